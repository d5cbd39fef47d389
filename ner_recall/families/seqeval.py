"""The seqeval family: per-type and overall precision, recall and F of exact entities, as seqeval
reports them (``results["PER"]``, ``results["overall_f1"]``), with their intervals.

Its counts are the view's count row (``core.counts.count_rows``), shared with the MUC family; its
results derive from that row (``core.counts.seqeval_results``).

>>> from ner_recall.core.registry import family
>>> entry = family("seqeval")
>>> entry.key is None, entry.headline({"overall_f1": 0.5}, "f1")
(True, ('overall_f1', 0.5))
"""

from typing import Any

from ner_recall.core.counts import seqeval_results
from ner_recall.core.registry import Family, register
from ner_recall.core.vocabulary import fbeta_key


def view_row(view: Any) -> Any:
    """The counts of the seqeval and MUC families: the view's one count row."""
    return view.row


#: what the families of the count row (seqeval, MUC) support: every path, intervals included
COUNT_ROW_SUPPORTS = frozenset(
    {"intervals", "slices_headline", "discontinuous", "counts_state", "golds", "compiled", "generated"}
)


def _seqeval(row: Any, view: Any) -> dict[str, Any]:
    o = view.options
    return seqeval_results(
        row, view.types, view.derived, view.selection.tokens_correct, view.tokens, o.zero_division, o.beta
    )


def _headline(results: Any, fkey: str) -> tuple[str, float] | None:
    key = f"overall_{fkey}"
    return (key, results[key]) if key in results else None


register(
    Family(
        "seqeval",
        None,
        view_row,
        _seqeval,
        returns="""TYPE (dict): per entity type with a gold or predicted entity:
    "precision", "recall", "f1" (float) and "number" (int, gold entities of the type).
overall_precision, overall_recall, overall_f1 (float): micro averages over entities.
overall_accuracy (float): token-level accuracy of the tags (not in the span configs:
    without tokens it is not defined).
macro_precision, macro_recall, macro_f1 (float): unweighted means of the per-type scores.
weighted_precision, weighted_recall, weighted_f1 (float): per-type scores weighted by
    "number".""",
        supports=COUNT_ROW_SUPPORTS,
        reserved=tuple(
            f"{a}_{s}" for a in ("overall", "macro", "weighted") for s in ("precision", "recall", "f1")
        )
        + ("overall_accuracy",),
        headline=_headline,
        module=__name__,
    )
)
assert fbeta_key(1.0) == "f1"  # the reserved keys above name the F of beta 1; check_types adds beta's
