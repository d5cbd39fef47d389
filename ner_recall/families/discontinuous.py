"""Discontinuous entities: an entity of several fragments (``docs/discontinuous.md``).

An entity ``{"label", "start", "end", "fragments": [[s1, e1], [s2, e2], ...]}`` covers the
positions of its fragments only; ``start`` and ``end`` are its extent (the first fragment's start,
the last one's end). Fragments are sorted, non-overlapping and non-adjacent (a gap of at least one
position between two), each ``s < e``. One fragment equal to ``[start, end]``, or no
``"fragments"`` key, is a plain entity.

Per side, :func:`side_fragments` gives ``{span index: ((start, end), ...)}`` in flat positions for
the entities of two fragments or more, the others absent: the plain path never looks at it.
Pairs where an entity has fragments are weighed by the positions they share across fragments
(:func:`pair_overlap`): an exact match needs every fragment equal, two entities whose extents
overlap but whose fragments share no position do not overlap.

>>> from ner_recall.core.spans import encode_spans
>>> corpus = encode_spans([[]], [[{"label": "ADR", "start": 0, "end": 5, "fragments": [[0, 1], [4, 5]]}]])
>>> side_fragments(corpus.gold_extras, corpus.gold, corpus.gold_order, "references", corpus.types)
{0: ((0, 1), (4, 5))}
>>> pieces(corpus.gold, {0: ((0, 1), (4, 5))}).start.tolist()
[0, 4]
"""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ner_recall.core.vocabulary import InputError, SpanArrays, literal, prf_scores

#: per side, ``{span index: ((start, end), ...)}`` of the entities of two fragments or more
Fragments = dict[int, tuple[tuple[int, int], ...]]
#: a side's extra fields (``ner_spans.Extras``), read through ``values`` and ``where`` only
Extras = Any

#: what a ``fragments`` value must be, said by the error
RULE = (
    "fragments must be sorted, non-overlapping, non-adjacent [start, end] pairs of ints (start < end),"
    " the first starting at the entity's start and the last ending at its end"
)


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _problem(value, start, end):
    """Why ``value`` is not a valid ``fragments`` of an entity ``[start, end)``, or None."""
    if not isinstance(value, (list, tuple)) or not value:
        return RULE
    for pair in value:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(map(_is_int, pair)):
            return RULE
        if pair[0] >= pair[1]:
            return RULE
    if value[0][0] != start or value[-1][1] != end:
        return RULE
    if any(b[0] <= a[1] for a, b in zip(value, value[1:])):  # overlapping or adjacent
        return RULE
    return None


def side_fragments(
    extras: Extras | None, spans: SpanArrays, order: npt.NDArray[np.int64], name: str, types: Sequence[str]
) -> Fragments:
    """``{span index: fragments in flat positions}`` of one side's entities of two or more
    fragments, checked; ``extras``: the side's sorted :class:`ner_spans.Extras` (or None).

    Raises ``ValueError`` naming ``name[i][j]`` (the input place) of the first bad value."""
    if extras is None or "fragments" not in extras.values:
        return {}
    out = {}
    values = extras.values["fragments"]
    starts, ends, offsets = spans.start.tolist(), spans.end.tolist(), spans.offset.tolist()
    bad = []
    for k in [k for k, value in enumerate(values) if value is not None]:
        value = values[k]
        start, end = offsets[k], offsets[k] + ends[k] - starts[k]
        problem = _problem(value, start, end)
        if problem is not None:
            bad.append((int(order[k]), k, problem))
            continue
        if len(value) > 1:
            shift = starts[k] - offsets[k]
            out[k] = tuple((int(s) + shift, int(e) + shift) for s, e in value)
    if bad:
        at, k, problem = min(bad)
        entity = {
            "label": types[int(spans.type[k])],
            "start": offsets[k],
            "end": offsets[k] + ends[k] - starts[k],
            "fragments": values[k],
        }
        raise extras.error(name, at, f" {entity!r}: {problem}")
    return out


def restrict(fragments: Fragments, keep: npt.NDArray[np.bool_]) -> Fragments:
    """The fragments of the spans where the mask ``keep`` holds, renumbered as the kept spans."""
    if not fragments:
        return {}
    at = np.cumsum(keep) - 1
    return {int(at[k]): f for k, f in fragments.items() if keep[k]}


def _own(spans, fragments, k):
    return fragments.get(k) or ((int(spans.start[k]), int(spans.end[k])),)


def _shared(a, b):
    """Positions two sorted lists of disjoint ranges share."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


def size(pieces_: Sequence[tuple[int, int]]) -> int:
    return sum(e - s for s, e in pieces_)


def pair_overlap(
    g: npt.NDArray[np.int64],
    p: npt.NDArray[np.int64],
    gold: SpanArrays,
    pred: SpanArrays,
    fragments: tuple[Fragments, Fragments],
) -> tuple[npt.NDArray, npt.NDArray, npt.NDArray, npt.NDArray, npt.NDArray]:
    """For candidate pairs ``g, p``: the mask of those where an entity has fragments, and for
    them the positions shared across fragments, each side's size (positions covered) and whether
    every fragment is equal. ``fragments``: (gold's, pred's) of :func:`side_fragments`."""
    gold_f, pred_f = fragments
    mask = np.isin(g, list(gold_f)) | np.isin(p, list(pred_f))
    idx = np.flatnonzero(mask)
    shared, size_g, size_p, equal = (np.zeros(len(idx), dtype=np.int64) for _ in range(4))
    for n, (i, j) in enumerate(zip(g[idx].tolist(), p[idx].tolist())):
        a, b = _own(gold, gold_f, i), _own(pred, pred_f, j)
        shared[n], size_g[n], size_p[n], equal[n] = _shared(a, b), size(a), size(b), a == b
    return mask, shared, size_g, size_p, equal.astype(bool)


def fragment_overlap(fragments: tuple[Fragments, Fragments] | None) -> Callable | None:
    """What ``ner_matching.match`` takes as ``overlap``: :func:`pair_overlap` bound to both sides'
    fragments (per side ``{span index: fragments}``, :func:`view_fragments`), or None when no
    entity has several fragments (the plain path).

    >>> fragment_overlap(None), fragment_overlap(({}, {}))
    (None, None)
    >>> fragment_overlap(({0: ((0, 1), (4, 5))}, {})).keywords
    {'fragments': ({0: ((0, 1), (4, 5))}, {})}
    """
    if fragments is None or not any(fragments):
        return None
    return partial(pair_overlap, fragments=fragments)


def pieces(spans: SpanArrays, fragments: Fragments) -> SpanArrays:
    """The spans with each entity of several fragments replaced by its fragments (same type,
    sentence; offsets within the sentence): the positions an entity covers, for the token family."""
    if not fragments:
        return spans
    keep = np.ones(len(spans), dtype=bool)
    keep[list(fragments)] = False
    owner = np.repeat(np.array(list(fragments), dtype=np.int64), [len(f) for f in fragments.values()])
    bounds = np.array([pair for f in fragments.values() for pair in f], dtype=np.int64).reshape(-1, 2)
    shift = (spans.start - spans.offset)[owner]
    fields = (
        np.concatenate([spans.start[keep], bounds[:, 0]]),
        np.concatenate([spans.end[keep], bounds[:, 1]]),
        np.concatenate([spans.type[keep], spans.type[owner]]),
        np.concatenate([spans.sentence[keep], spans.sentence[owner]]),
        np.concatenate([spans.offset[keep], bounds[:, 0] - shift]),
    )
    order = np.lexsort((fields[2], fields[1], fields[0]))
    return SpanArrays(*(f[order] for f in fields))


def view_fragments(corpus: Any, selection: Any) -> tuple[Fragments, Fragments] | None:
    """Both sides' fragments (:func:`side_fragments`) renumbered as the spans ``selection`` kept
    (after ``types`` and ``label_map``), or None when no entity has two fragments or more."""
    if getattr(corpus, "gold_extras", None) is None and getattr(corpus, "pred_extras", None) is None:
        return None  # tag corpora, and span corpora without extras
    gold_f = side_fragments(corpus.gold_extras, corpus.gold, corpus.gold_order, "references", corpus.types)
    pred_f = side_fragments(corpus.pred_extras, corpus.pred, corpus.pred_order, "predictions", corpus.types)
    if not gold_f and not pred_f:
        return None
    if len(selection.gold) != len(corpus.gold):  # types dropped some gold entities (never relabelled)
        names = set(selection.types)
        gold_f = restrict(gold_f, np.array([corpus.types[t] in names for t in corpus.gold.type.tolist()]))
    if selection.pred_kept is not None:
        pred_f = restrict(pred_f, selection.pred_kept)
    return gold_f, pred_f


def discontinuous_results(
    gold: SpanArrays,
    pred: SpanArrays,
    matching: Any,
    fragments: tuple[Fragments, Fragments],
    zero_division: float = 0,
    beta: float = 1.0,
) -> dict:
    """``results["discontinuous"]``: exact match on every fragment and the type, as Dai et al.
    (ACL 2020) score it: over the discontinuous entities only (``precision``: of the predicted
    ones, ``recall``: of the gold ones) and over every entity of the examples holding a gold
    discontinuous entity (``sentences``)."""
    gold_f, pred_f = fragments
    right = matching.scenario == 0  # same type, every fragment equal
    g = matching.gold[right]
    correct = int(np.isin(g, list(gold_f)).sum())
    out = _prf(correct, correct, len(gold_f), len(pred_f), zero_division, beta)
    with_disc = np.zeros(
        int(max(gold.sentence.max(initial=-1), pred.sentence.max(initial=-1))) + 1, dtype=bool
    )
    with_disc[gold.sentence[list(gold_f)]] = True
    n_gold, n_pred = int(with_disc[gold.sentence].sum()), int(with_disc[pred.sentence].sum())
    found = int(with_disc[gold.sentence[g]].sum())
    out["sentences"] = _prf(found, found, n_gold, n_pred, zero_division, beta)
    out["sentences"]["examples"] = int(with_disc.sum())
    return out


def _prf(found, right, number, predicted, zero_division, beta):
    scores = prf_scores(found, right, number, predicted, zero_division, beta)
    return {**scores, "correct": found, "number": number, "predicted": predicted}


def refuse_fragments(examples: Sequence, name: str, what: str) -> None:
    """Raise naming ``name[i][j]`` of the first entity of several fragments: ``what`` does not read
    them (it would score the entity's extent). Examples of another shape pass, for their own check.

    >>> refuse_fragments([[{"label": "A", "start": 0, "end": 3, "fragments": [[0, 1], [2, 3]]}]], "references", "x")
    Traceback (most recent call last):
    ...
    ner_recall.core.vocabulary.InputError: references[0][0] has several fragments, which x does not read (see docs/discontinuous.md)
    """
    if not isinstance(examples, (list, tuple)):
        return
    for i, example in enumerate(examples):
        for j, entity in enumerate(example if isinstance(example, (list, tuple)) else ()):
            value = entity.get("fragments") if isinstance(entity, dict) else None
            if isinstance(value, (list, tuple)) and len(value) > 1:
                raise InputError(
                    f"{{place}} has several fragments, which {literal(what)} does not read (see docs/discontinuous.md)",
                    name,
                    i,
                    j,
                )


def keyed_by_fragments(
    spans: SpanArrays, extras: Extras | None, types: Sequence[str]
) -> tuple[SpanArrays, Sequence[str]]:
    """For the duplicate check: the spans with each type code made distinct per set of fragments
    (two entities of one type and extent are the same only with the same fragments), and the
    type names of those codes; as they are when no entity has several fragments."""
    values = None if extras is None else extras.values.get("fragments")
    if values is None:
        return spans, types
    codes: dict[str, int] = {}
    code = np.zeros(len(values), dtype=np.int64)
    for k in [k for k, v in enumerate(values) if v is not None]:
        v = values[k]
        if isinstance(v, (list, tuple)) and len(v) > 1:
            code[k] = codes.setdefault(repr(v), len(codes) + 1)
    if not codes:
        return spans, types
    keyed = spans.type + len(types) * code
    return SpanArrays(spans.start, spans.end, keyed, spans.sentence, spans.offset), tuple(types) * (
        len(codes) + 1
    )
