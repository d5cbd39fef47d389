"""The HAREM family: HAREM's identification scores, types ignored, from its many-to-many alignment
of the two sides (``results["harem"]``): partial credit for excess and shortage.

>>> from ner_recall.core.registry import family
>>> entry = family("harem")
>>> entry.key, entry.why_not["discontinuous"]
('harem', 'its excess and shortage are of contiguous spans')
"""

from typing import Any

from ner_recall.core.registry import Family, keyed_headline, register
from ner_recall.families.scorings import harem_scores


def _alignment(view: Any) -> Any:
    return view.alignment


def _harem(alignment: Any, view: Any) -> dict[str, Any]:
    return harem_scores(view.gold, view.pred, alignment, view.options.zero_division, view.options.beta)


register(
    Family(
        "harem",
        "harem",
        _alignment,
        _harem,
        returns="""harem (dict, with "harem" in scores): HAREM identification, types ignored: "correct",
    "partial_excess", "partial_shortage" (aligned pairs), "missed", "spurious", "possible",
    "actual" (int), "credit", "precision", "recall", "f1" (float).""",
        supports=frozenset({"slices_headline", "golds"}),
        why_not={"discontinuous": "its excess and shortage are of contiguous spans"},
        headline=keyed_headline("harem"),
        module=__name__,
    )
)
