"""The token family: each (token, type) pair inside an entity is an item, scored as precision,
recall and F (``results["token"]``); a discontinuous entity's items are its fragments' tokens.

>>> from ner_recall.core.registry import family
>>> entry = family("token")
>>> entry.key, "discontinuous" in entry.supports, entry.headline({"token": {"f1": 0.75}}, "f1")
('token', True, ('token_f1', 0.75))
"""

from collections.abc import Callable, Sequence
from typing import Any

from ner_recall.core.counts import prf_table
from ner_recall.core.registry import Family, keyed_headline, register
from ner_recall.families.discontinuous import pieces
from ner_recall.families.scorings import token_counts


def _token_counts(view: Any) -> tuple[Any, Any, Any, Any]:
    gold, pred = view.gold, view.pred
    if view.fragments is not None:  # a discontinuous entity's items are its fragments' positions
        gold, pred = pieces(gold, view.fragments[0]), pieces(pred, view.fragments[1])
    correct, number, predicted = token_counts(gold, pred, len(view.types))
    return correct, correct, number, predicted


def prf_of(names: Sequence[str]) -> Callable[[Any, Any], dict[str, Any]]:
    """The derivation of a family whose counts are (hits on the gold side, hits on the predicted
    side, gold items, predicted items), its hits named ``names`` in the results."""

    def derive(counts: tuple[Any, Any, Any, Any], view: Any) -> dict[str, Any]:
        hit_gold, hit_pred, number, predicted = counts
        o = view.options
        return prf_table(
            hit_gold,
            hit_pred,
            number,
            predicted,
            view.types,
            o.zero_division,
            hit_names=tuple(names),
            beta=o.beta,
        )

    return derive


register(
    Family(
        "token",
        "token",
        _token_counts,
        prf_of(("correct", "correct")),
        returns="""token (dict, with "token" in scores): each (token, type) pair inside an entity is an item:
    "precision", "recall", "f1", macro_* and weighted_* (float), "correct", "number",
    "predicted" (int) and "per_type" {TYPE: "precision", "recall", "f1", "correct",
    "number", "predicted"}.""",
        supports=frozenset({"slices_headline", "discontinuous", "golds"}),
        headline=keyed_headline("token"),
        module=__name__,
    )
)
