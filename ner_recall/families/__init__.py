"""The score families and breakdowns, one module each, and the table that runs them.

Each score family registers itself in ``ner_recall.core.registry`` when its module is imported;
importing this package imports the built-in families in the order of their results.
"""

# isort: off
# the order of registration is the order of the results: these lines keep it
import ner_recall.families.seqeval  # noqa: F401  (registers the family)
import ner_recall.families.muc  # noqa: F401  (registers the family)
import ner_recall.families.confusion  # noqa: F401  (registers the family)
import ner_recall.families.token  # noqa: F401  (registers the family)
import ner_recall.families.overlap  # noqa: F401  (registers the family)
import ner_recall.families.harem  # noqa: F401  (registers the family)
import ner_recall.families.ranking  # noqa: F401  (registers the family)
import ner_recall.families.hierarchy  # noqa: F401  (registers the family)
import ner_recall.families.attributes  # noqa: F401  (registers the family)
# isort: on
