"""Type hierarchies: scores at the coarse level and HAREM's four classification measures.

A label splits into a **category** (the coarse level) and a **type** (the fine level): at the
first ``type_separator`` (``"ORGANIZACAO:SUB"`` with ``":"``, Few-NERD's ``"person-actor"`` with
``"-"``), or by a ``type_hierarchy`` mapping each fine label to its category. A label without the
separator, or absent from the mapping, is a category with no type.

HAREM (Santos, Seco, Cardoso and Vilela, "HAREM: an advanced NER evaluation contest for
Portuguese", LREC 2006; Santos and Cardoso, "Avaliação no HAREM: métodos e medidas", 2006,
section "Tarefa de classificação semântica") scores the classification of the entities that
identification aligned, four ways:

* **categories**: 1 if the category is right;
* **types**: among the pairs whose category is right, 1 if the type is right;
* **combined**: 0 if the category is wrong, 1 if it is right and the type wrong, ``2 - 1/n`` if
  both are right, ``n`` the number of types of the category (at least 1), normalised by the
  maxima: recall divides by the gold entities' maxima, precision by the predicted ones';
* **flat**: category and type as one label, 1 if the whole label is right.

**Absolute** scores divide by every gold (recall) and predicted (precision) entity, so missed and
spurious entities count against; **relative** ones only by the entities identification aligned
(the one-to-one pairs of the matching, exact or overlapping), which separates "found it" from
"typed it right". The pairs are the matching's one-to-one pairs, so each entity counts once.

>>> h = hierarchy_of(("ORG:INST", "ORG:SUB", "PER"), ":", None)
>>> h.categories, h.category.tolist(), h.type.tolist(), h.n_types.tolist()
(('ORG', 'PER'), [0, 0, 1], [0, 1, -1], [2, 2, 1])
>>> float(combined_maximum(h, np.array([0, 2])).sum())  # 2 - 1/2 for ORG:INST, 2 - 1/1 for PER
2.5
"""

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ner_recall.core.counts import count_rows, derive, seqeval_results
from ner_recall.core.matching import match
from ner_recall.core.registry import Family, register
from ner_recall.core.vocabulary import Renamed, prf_scores, score_names

MEASURES = ("categories", "types", "combined", "flat")


class Hierarchy(NamedTuple):
    """Per label code: its category code, its type code within the labels (-1: none), and the
    number of types of its category (at least 1); the category names, sorted."""

    categories: tuple
    category: np.ndarray
    type: np.ndarray
    n_types: np.ndarray


def reserved_categories(beta: float = 1.0) -> frozenset[str]:
    """The names a category may not take: the coarse table's own keys (``overall_f1``, ...)."""
    names = score_names(beta)
    averages = {f"{a}_{n}" for a in ("overall", "macro", "weighted") for n in names}
    return frozenset(averages | {"overall_accuracy"})


def check_hierarchy_options(
    type_separator: object, type_hierarchy: object
) -> tuple[str | None, dict[str, str] | None] | None:
    """``(separator, mapping)`` validated, or None when neither is given."""
    if type_separator is not None and type_hierarchy is not None:
        raise ValueError("give type_separator or type_hierarchy, not both: each says how a label splits")
    if type_separator is not None:
        if not isinstance(type_separator, str) or not type_separator:
            raise ValueError(
                f"type_separator must be a non-empty str, e.g. ':' or '-'; got {type_separator!r}"
            )
        return type_separator, None
    if type_hierarchy is not None:
        if not isinstance(type_hierarchy, dict) or not type_hierarchy:
            raise ValueError(
                f"type_hierarchy must be a non-empty dict of fine label -> category; got {type_hierarchy!r}"
            )
        for fine, coarse in type_hierarchy.items():
            if not (isinstance(fine, str) and fine and isinstance(coarse, str) and coarse):
                raise ValueError(
                    f"type_hierarchy maps {fine!r} to {coarse!r}; both must be labels (non-empty strings)"
                )
        return None, dict(type_hierarchy)
    return None


def _split(label, separator, mapping):
    """(category, type or None) of one label."""
    if mapping is not None:
        return (mapping[label], label) if label in mapping else (label, None)
    category, found, rest = label.partition(separator)
    return (category, rest) if found and category and rest else (label, None)


def hierarchy_of(
    labels: tuple[str, ...], separator: str | None, mapping: dict[str, str] | None, beta: float = 1.0
) -> Hierarchy:
    """The :class:`Hierarchy` of the label names ``labels``. Raises when it splits none of them
    (the option would change nothing), or when a category takes a name of the coarse table's own
    keys (:func:`reserved_categories`: it would overwrite that entry)."""
    parts = [_split(label, separator, mapping) for label in labels]
    reserved = reserved_categories(beta)
    clash = sorted((c, label) for label, (c, _) in zip(labels, parts) if c in reserved)
    if clash:
        raise ValueError(
            f"the label {clash[0][1]!r} has the category {clash[0][0]!r}, a key of"
            f" results['hierarchy']['coarse'] ({sorted(reserved)}); rename the category"
        )
    if labels and all(t is None for _, t in parts):
        how = f"type_separator {separator!r}" if mapping is None else "type_hierarchy"
        raise ValueError(
            f"{how} splits none of the labels {list(labels)[:5]}: it would change nothing"
            + (
                " (the types are named after the tag prefix: 'B-ORG:SUB' has the type 'ORG:SUB')"
                if mapping is None
                else ""
            )
        )
    categories = tuple(sorted({c for c, _ in parts}))
    index = {c: k for k, c in enumerate(categories)}
    types: dict[Any, Any] = {}
    for c, t in parts:
        if t is not None:
            types.setdefault(c, set()).add(t)
    if mapping is not None:  # the mapping names every type of each category, used or not
        for fine, coarse in mapping.items():
            types.setdefault(coarse, set()).add(fine)
    return Hierarchy(
        categories,
        np.array([index[c] for c, _ in parts], dtype=np.int64),
        np.array([-1 if t is None else k for k, (_, t) in enumerate(parts)], dtype=np.int64),
        np.array([max(1, len(types.get(c, ()))) for c, _ in parts], dtype=np.int64),
    )


def combined_maximum(hierarchy: Hierarchy, codes: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Each entity's largest combined score, ``2 - 1/n`` of its category (``codes``: label codes)."""
    return 2.0 - 1.0 / hierarchy.n_types[codes]


def pair_scores(
    hierarchy: Hierarchy, gold_codes: npt.NDArray[np.int64], pred_codes: npt.NDArray[np.int64]
) -> tuple[np.ndarray, ...]:
    """Per aligned pair: (category right, type right among them, combined score, flat right),
    and whether the gold and the predicted label have a type."""
    same_category = hierarchy.category[gold_codes] == hierarchy.category[pred_codes]
    gold_typed, pred_typed = hierarchy.type[gold_codes] >= 0, hierarchy.type[pred_codes] >= 0
    same_label = gold_codes == pred_codes
    same_type = same_category & gold_typed & same_label
    combined = np.where(
        same_category, np.where(same_label, combined_maximum(hierarchy, gold_codes), 1.0), 0.0
    )
    return same_category, same_type, combined, same_label, gold_typed, pred_typed


def _prf(hit, gold_total, pred_total, zero_division, beta, hit_pred=None):
    hit_pred = hit if hit_pred is None else hit_pred
    return Renamed(
        prf_scores(hit, hit_pred, gold_total, pred_total, zero_division, beta),
        correct=float(hit) if isinstance(hit, float) else int(hit),
        number=float(gold_total) if isinstance(gold_total, float) else int(gold_total),
        predicted=float(pred_total) if isinstance(pred_total, float) else int(pred_total),
    )


def classification(
    hierarchy: Hierarchy,
    gold: Any,
    pred: Any,
    matching: Any,
    relative: bool,
    zero_division: float = 0.0,
    beta: float = 1.0,
) -> dict[str, dict[str, Any]]:
    """HAREM's four measures over the aligned pairs, absolute or ``relative``."""
    g, p = matching.gold, matching.pred
    cat, typ, comb, flat, gold_typed, pred_typed = pair_scores(hierarchy, gold.type[g], pred.type[p])
    gold_codes, pred_codes = (gold.type[g], pred.type[p]) if relative else (gold.type, pred.type)
    n_gold, n_pred = len(gold_codes), len(pred_codes)
    right = cat.sum()
    out = {
        "categories": _prf(right, n_gold, n_pred, zero_division, beta),
        "types": _prf(typ.sum(), (cat & gold_typed).sum(), (cat & pred_typed).sum(), zero_division, beta),
        "combined": _prf(
            float(comb.sum()),
            float(combined_maximum(hierarchy, gold_codes).sum()),
            float(combined_maximum(hierarchy, pred_codes).sum()),
            zero_division,
            beta,
        ),
        "flat": _prf(flat.sum(), n_gold, n_pred, zero_division, beta),
    }
    return out


def coarse_scores(
    hierarchy: Hierarchy, gold: Any, pred: Any, zero_division: float, beta: float
) -> dict[str, Any]:
    """Strict seqeval-style scores with each label replaced by its category: the spans matched
    again at that level (an entity of the right category but another type is correct there)."""
    coarse_gold = _relabel(gold, hierarchy.category)
    coarse_pred = _relabel(pred, hierarchy.category)
    row = count_rows(coarse_gold, coarse_pred, match(coarse_gold, coarse_pred), len(hierarchy.categories))
    derived = derive(row, hierarchy.categories, ("seqeval",), zero_division, beta)
    results = seqeval_results(row, hierarchy.categories, derived, 0, 0, zero_division, beta)
    results.pop("overall_accuracy")
    return results


def _relabel(spans, category):
    return type(spans)(
        start=spans.start,
        end=spans.end,
        type=category[spans.type],
        sentence=spans.sentence,
        offset=spans.offset,
    )


def hierarchy_results(
    gold: Any,
    pred: Any,
    matching: Any,
    types: tuple[str, ...],
    options: tuple[str | None, dict[str, str] | None],
    zero_division: float,
    beta: float,
) -> dict[str, Any]:
    """``results["hierarchy"]``: how labels split, the coarse-level scores, and HAREM's measures
    absolute and relative."""
    separator, mapping = options
    h = hierarchy_of(tuple(types), separator, mapping, beta)
    return {
        "categories": {
            c: int(h.n_types[h.category == k].max())
            for k, c in enumerate(h.categories)  # never empty
        },
        "coarse": coarse_scores(h, gold, pred, zero_division, beta),
        "absolute": classification(h, gold, pred, matching, False, zero_division, beta),
        "relative": classification(h, gold, pred, matching, True, zero_division, beta),
    }


# ---------------------------------------------------------------------------- the family


def _view(view: Any) -> Any:
    return view


def _hierarchy(view: Any, _: Any) -> dict[str, Any]:
    o = view.options
    return hierarchy_results(
        view.gold, view.pred, view.matching, view.types, o.hierarchy, o.zero_division, o.beta
    )


register(
    Family(
        "hierarchy",
        "hierarchy",
        _view,
        _hierarchy,
        returns="""hierarchy (dict, with type_separator or type_hierarchy): "categories" {CATEGORY: number
    of its types}, "coarse" (the seqeval keys above over categories, matched again), and
    HAREM's classification measures "absolute" and "relative" (aligned pairs only), each
    with "categories", "types", "combined", "flat": "precision", "recall", "f1", "correct",
    "number", "predicted"; see docs/harem.md.""",
        supports=frozenset({"discontinuous", "golds"}),
        wanted=lambda view: view.options.hierarchy is not None,
        module=__name__,
    )
)
