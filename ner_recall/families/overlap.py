"""The overlap family: a predicted span is right, and a gold span found, when a span of the same
type on the other side has a Dice coefficient of at least ``overlap_threshold``
(``results["overlap"]``).

>>> from ner_recall.core.registry import family
>>> entry = family("overlap")
>>> entry.key, entry.headline({}, "f1")  # no overlap results: no headline from it
('overlap', None)
"""

from typing import Any

from ner_recall.core.registry import Family, keyed_headline, register
from ner_recall.families.scorings import overlap_counts
from ner_recall.families.token import prf_of


def _overlap_counts(view: Any) -> Any:
    return overlap_counts(view.gold, view.pred, view.hits, len(view.types))


def _overlap(counts: Any, view: Any) -> dict[str, Any]:
    table = prf_of(("matched_gold", "matched_pred"))(counts, view)
    table["threshold"] = view.options.scoring.overlap_threshold
    return table


register(
    Family(
        "overlap",
        "overlap",
        _overlap_counts,
        _overlap,
        returns="""overlap (dict, with "overlap" in scores): a predicted span is right, and a gold span found,
    when a span of the same type on the other side has a Dice coefficient of at least
    "threshold": the keys of "token" with "matched_gold" and "matched_pred" for "correct".""",
        supports=frozenset({"slices_headline", "discontinuous", "golds"}),
        headline=keyed_headline("overlap"),
        module=__name__,
    )
)
