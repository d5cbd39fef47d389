"""The MUC / SemEval-2013 family: the four modes ``strict``, ``exact``, ``partial`` and ``type``
of nervaluate, overall and per type (``results["muc"]``), with their intervals.

Its counts are the view's count row, shared with the seqeval family (:func:`seqeval.view_row`).

>>> from ner_recall.core.registry import family
>>> entry = family("muc")
>>> entry.key, entry.headline({"muc": {"strict": {"f2": 0.25}}}, "f2")
('muc', ('muc_strict_f2', 0.25))
"""

from typing import Any

from ner_recall.core.counts import muc_results
from ner_recall.core.registry import Family, register
from ner_recall.families.seqeval import COUNT_ROW_SUPPORTS, view_row


def _muc(row: Any, view: Any) -> dict[str, Any]:
    return muc_results(row, view.types, view.derived, view.options.beta)


def _headline(results: Any, fkey: str) -> tuple[str, float] | None:
    return (f"muc_strict_{fkey}", results["muc"]["strict"][fkey]) if "muc" in results else None


register(
    Family(
        "muc",
        "muc",
        view_row,
        _muc,
        returns="""muc (dict): for each mode "strict", "exact", "partial", "type": "correct", "incorrect",
    "partial", "missed", "spurious", "possible", "actual" (int), "precision", "recall",
    "f1" (float) and "per_type" {TYPE: the same keys}. Per type, the gold side
    (correct, incorrect, partial, missed, possible, recall) counts gold entities of the type
    and the predicted side (spurious, actual, precision) predicted entities of the type.""",
        supports=COUNT_ROW_SUPPORTS,
        headline=_headline,
        module=__name__,
    )
)
