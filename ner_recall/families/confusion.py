"""The confusion family: which gold type each prediction of the one-to-one matching took
(``results["confusion"]``), on the same span and overlapping, with the missed and spurious.

>>> from ner_recall.core.registry import family
>>> entry = family("confusion")
>>> entry.key, sorted(entry.supports)
('confusion', ['discontinuous', 'golds'])
"""

from typing import Any

from ner_recall.core.counts import confusion, count
from ner_recall.core.registry import Family, register


def _pairs(view: Any) -> Any:
    return count(view.gold, view.pred, view.matching, view.types, 0, 0)


def _confusion(counts: Any, view: Any) -> dict[str, Any]:
    return confusion(counts)


register(
    Family(
        "confusion",
        "confusion",
        _pairs,
        _confusion,
        returns="""confusion (dict, with "confusion" in scores): type confusion of the one-to-one matching:
    "same_span" and "overlap" {GOLD TYPE: {PREDICTED TYPE: int}} (matched pairs on the
    same span, and overlapping), "missed" and "spurious" {TYPE: int}; nonzero entries only.""",
        supports=frozenset({"discontinuous", "golds"}),
        module=__name__,
    )
)
