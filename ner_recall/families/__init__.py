"""The score families and breakdowns, one module each, and the table that runs them.

Each score family registers itself in ``ner_recall.core.registry`` when its module is imported;
importing this package imports the built-in families in the order of their results.
"""

# isort: off
# the order of registration is the order of the results: these lines keep it
from ner_recall.families import seqeval  # noqa: F401
from ner_recall.families import muc  # noqa: F401
from ner_recall.families import confusion  # noqa: F401
from ner_recall.families import token  # noqa: F401
from ner_recall.families import overlap  # noqa: F401
from ner_recall.families import harem  # noqa: F401
from ner_recall.families import ranking  # noqa: F401
from ner_recall.families import hierarchy  # noqa: F401
from ner_recall.families import attributes  # noqa: F401
# isort: on
