"""Where the metric script lies: beside the package, at the root of a clone or of a Space.

The command line and the app load the metric through ``evaluate.load`` of this path, as users do.

>>> METRIC_PATH.name
'ner_recall_metric.py'
"""

from pathlib import Path

#: the ``evaluate`` metric script over the package
METRIC_PATH = Path(__file__).resolve().parents[2] / "ner_recall_metric.py"
