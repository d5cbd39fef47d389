"""One matching pass of gold and predicted spans, counts as state, every score derived.

Matching. Every overlapping (gold, predicted) pair is a candidate, and the matching is
one-to-one. Pairs of the same type and offsets are always matched. Where each span of a pair
overlaps only the other, the pair is matched as it is. Where one span overlaps several (a
prediction across two gold entities, two predictions inside one, nested entities), we take
the one-to-one matching that has the most pairs, then the most pairs of the same type, then
the closest pairs (identical offsets first, then the larger Dice coefficient), then the
leftmost pairs: on flat spans by a heaviest-chain pass in
time linear after sorting, elsewhere by a maximum-weight assignment (``docs/matching.md``).
It depends on positions only, never on the order in which spans or sentences are listed.

Each matched pair is in one of ``ner_core.SCENARIOS``; ``ner_core.OUTCOME_TABLE`` maps it to
an outcome per mode. An unmatched gold span is ``missed`` and an unmatched predicted one
``spurious`` in every mode.

State and scores are ``ner_counts``'s, which reads a matching through its fields: a count row
per corpus or per unit (``ner_counts.count_rows``, the blocks of ``ner_core.COLUMNS``) and every
seqeval and MUC score derived from summed rows in one place (``ner_counts.derive``).

>>> from ner_recall.core import decoding as D
>>> from ner_recall.core.counts import count, muc_scores
>>> from ner_recall.core.vocabulary import SCENARIOS
>>> corpus = D.encode([["B-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O"]])
>>> gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
>>> matching = match(gold, pred)
>>> [SCENARIOS[s] for s in matching.scenario]
['overlap']
>>> counts = count(gold, pred, matching, corpus.types, tokens_correct=1, tokens=3)
>>> partial = muc_scores(counts)["partial"]
>>> partial["partial"], partial["spurious"], partial["recall"], partial["precision"]
(1, 1, 0.5, 0.25)
"""

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ner_recall.core.vocabulary import (
    PARALLEL_SPANS,
    InputError,
    SpanArrays,
    literal,
    shared_length,
    side_by_side,
)

#: ``overlap(g, p, gold, pred)`` for candidate pairs ``g, p`` (index arrays into the SpanArrays
#: ``gold`` and ``pred``): ``(mask, shared, size_g, size_p, equal)``, the pairs it decides, and for
#: those (in order) the positions they share, each side's size and whether they are identical
PairOverlap = Callable[
    [np.ndarray, np.ndarray, SpanArrays, SpanArrays],
    tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
]


class Matching(NamedTuple):
    """Matched pairs (indices into the gold and predicted SpanArrays, sorted by gold then
    prediction) and their scenario, and every overlapping pair, matched or not (sorted the same
    way), for the scorings that align spans many-to-many."""

    gold: np.ndarray
    pred: np.ndarray
    scenario: np.ndarray
    overlap_gold: np.ndarray
    overlap_pred: np.ndarray


#: chains still unsolved when fewer than this many remain are finished one by one in Python
_FEW_CHAINS = 8
#: largest weight a float64 assignment holds exactly
_EXACT_FLOAT = 2**53


def check_duplicates(spans: SpanArrays, side_name: str, types: Sequence[str] | None = None) -> None:
    """Raise ``ValueError`` if two spans of one sentence have the same type and offsets.

    Entities are numbered within their sentence in the order ``spans`` lists them; ``types``
    (names of the type codes) only makes the message readable.

    >>> from ner_recall.core.vocabulary import SpanArrays
    >>> a = lambda *v: np.array(v)
    >>> check_duplicates(SpanArrays(a(0, 1, 0), a(3, 2, 3), a(0, 0, 0), a(0, 0, 0), a(0, 1, 0)), "references", ["PER"])
    Traceback (most recent call last):
    ...
    ner_recall.core.vocabulary.InputError: references[0] entities 0 and 2 are the same entity ('PER', 0, 3); each entity may appear once
    """
    n = len(spans.start)
    if n < 2:
        return
    order = np.lexsort((np.arange(n), spans.type, spans.end, spans.start, spans.sentence))
    key = np.stack([spans.sentence, spans.start, spans.end, spans.type])[:, order]
    same = np.flatnonzero((key[:, 1:] == key[:, :-1]).all(axis=0))
    if len(same):
        first, second = order[same[0]], order[same[0] + 1]
        sentence = int(spans.sentence[first])
        rank = np.cumsum(spans.sentence == sentence) - 1  # index of each span within its sentence
        t = int(spans.type[first])
        label = types[t] if types is not None else t
        start = int(spans.offset[first])
        end = start + int(spans.end[first] - spans.start[first])
        raise InputError(
            f"{{place}} entities {int(rank[first])} and {int(rank[second])} are the same entity "
            f"({literal(repr(label))}, {start}, {end}); each entity may appear once",
            side_name,
            sentence,
        )


def _is_flat(spans):
    """True when the spans are sorted by position and no two of them overlap."""
    return bool(np.all(spans.start[1:] >= spans.end[:-1]))


def _expand(owner_lo, owner_hi):
    """For ranges ``[lo, hi)``, one (owner, position) row per position of each range."""
    degree = owner_hi - owner_lo
    np.maximum(degree, 0, out=degree)
    if degree.max(initial=0) <= 1:  # one row at most per owner (flat sides, mostly): no repeats
        owner = np.flatnonzero(degree)
        return owner, owner_lo[owner]
    owner = np.repeat(np.arange(len(degree)), degree)
    shift = np.cumsum(degree)  # row i of owner o sits at lo[o] + i - (rows before o)
    shift -= degree
    shift -= owner_lo
    position = np.arange(len(owner))
    position -= np.repeat(shift, degree)
    return owner, position


def _candidates(gold, pred, flat=None):
    """All overlapping (gold index, predicted index) pairs, sorted by gold then prediction;
    ``flat``: whether both sides are flat, if already known.

    Two spans overlap when the later-starting one starts inside the other: the pairs where the
    prediction starts inside the gold span, plus those where the gold span starts strictly
    inside the prediction. Flat sides need no sorting: each gold span overlaps one run of them.
    """
    if flat or (flat is None and _is_flat(gold) and _is_flat(pred)):
        lo = np.searchsorted(pred.end, gold.start, side="right")
        return _expand(lo, np.searchsorted(pred.start, gold.end, side="left"))
    by_pred = np.argsort(pred.start, kind="stable")
    starts = pred.start[by_pred]
    g1, at = _expand(np.searchsorted(starts, gold.start, "left"), np.searchsorted(starts, gold.end, "left"))
    by_gold = np.argsort(gold.start, kind="stable")
    starts = gold.start[by_gold]
    p2, at2 = _expand(np.searchsorted(starts, pred.start, "right"), np.searchsorted(starts, pred.end, "left"))
    g, p = np.concatenate([g1, by_gold[at2]]), np.concatenate([by_pred[at], p2])
    order = np.lexsort((p, g))
    return g[order], p[order]


#: a pair's closeness is its Dice coefficient in steps of 1 / DICE_SCALE, DICE_SCALE for identical offsets
DICE_SCALE = 1 << 20


def _pair_weights(g, p, gold, pred, over=None):
    """Per candidate pair: same type (0/1) and closeness, the Dice coefficient ``2 |g & p| / (|g| +
    |p|)`` in steps of ``1 / DICE_SCALE`` (rounded down), ``DICE_SCALE`` exactly for identical
    offsets and below it otherwise, so that identical offsets come first, then the larger share.
    ``over``: a :class:`FragmentPairs` of the same pairs (positions counted across fragments)."""
    same = (gold.type[g] == pred.type[p]).astype(np.int64)
    gs, ge, ps, pe = gold.start[g], gold.end[g], pred.start[p], pred.end[p]
    shared, length = shared_length(gs, ge, ps, pe), (ge - gs) + (pe - ps)
    identical = (gs == ps) & (ge == pe)
    if over is not None:
        shared = np.where(over.mask, over.shared, shared)
        length = np.where(over.mask, over.length, length)
        identical = np.where(over.mask, over.equal, identical)
    dice = np.floor(2 * shared.astype(float) / length.astype(float) * DICE_SCALE).astype(np.int64)
    return same, np.where(identical, DICE_SCALE, np.minimum(dice, DICE_SCALE - 1))


class FragmentPairs(NamedTuple):
    """Candidate pairs where an entity has fragments (``mask``), and for those the positions shared
    across fragments, both sizes summed (``length``) and whether every fragment is equal; the
    other pairs' values are unused."""

    mask: np.ndarray
    shared: np.ndarray
    length: np.ndarray
    equal: np.ndarray

    def take(self, idx: np.ndarray) -> "FragmentPairs":
        return FragmentPairs(*(values[idx] for values in self))


def _fragment_pairs(g, p, gold, pred, overlap):
    """The candidate pairs that share a position across fragments, and their :class:`FragmentPairs`
    (``overlap``: the caller's :data:`PairOverlap`)."""
    mask, shared, size_g, size_p, equal = overlap(g, p, gold, pred)
    full = [np.zeros(len(g), dtype=values.dtype) for values in (shared, size_g, equal)]
    idx = np.flatnonzero(mask)
    full[0][idx], full[1][idx], full[2][idx] = shared, size_g + size_p, equal
    keep = ~mask
    keep[idx] = shared > 0  # extents overlap, fragments share no position: no overlap
    return g[keep], p[keep], FragmentPairs(mask, *full).take(keep)


def _runs(values):
    """Per item, the index of the first item of its run of equal values."""
    new = np.ones(len(values), dtype=bool)
    new[1:] = values[1:] != values[:-1]
    starts = np.flatnonzero(new)
    return np.repeat(starts, np.diff(np.append(starts, len(values))))


def _resolve_chains(gi, pi, same, shared, first):
    """Among candidate pairs cut into chains (``first``: each chain's first pair), the pairs of
    each chain's best one-to-one matching, as a boolean mask.

    In a chain of flat spans the pairs sorted by gold then prediction have non-decreasing
    indices on both sides, so two pairs are compatible when both their spans differ, and the
    pairs compatible with pair k and before it form a prefix of its chain: the pairs before
    the first one sharing its gold span or its prediction. The best matching is then the
    heaviest chain of compatible pairs.
    """
    length = np.diff(np.append(first, len(gi)))
    chain_start = np.repeat(first, length)
    bound = np.minimum(_runs(gi), _runs(pi))  # pairs [chain_start, bound) are compatible with pair k
    weight = _chain_weights(same, shared, first, length)
    return _heaviest_chains(first, length, np.where(bound > chain_start, bound, -1), weight)


def _chain_weights(same, close, first, length):
    """Each pair weighs (1, same type, closeness), compared as tuples over a matching of its chain:
    encoded as one integer per chain, ``pair * unit + same * scale + closeness`` (weights of two
    chains are never compared). A chain so long that the code would pass int64 compares its
    closeness in coarser steps (over about 16,000 pairs), or in Python ints (over a million)."""
    shift: np.ndarray = np.zeros(len(first), dtype=np.int64)
    for bits in range(21):  # the finest steps whose code fits: (L * 2**(20 - bits) + 1) (L + 1) (L + 2)
        fits = (length * float(DICE_SCALE >> bits) + 1) * (length + 1.0) * (length + 2.0) < 2.0**61
        shift = np.where((shift == bits) & ~fits, bits + 1, shift)
    close = close >> np.repeat(np.minimum(shift, 20), length)
    scale = np.add.reduceat(close, first) + 1  # above the closeness of any matching of the chain
    unit = scale * (length + 1)  # above same-type count * scale + closeness
    if shift.max(initial=0) <= 20:
        return np.repeat(unit, length) + same * np.repeat(scale, length) + close
    scale = np.repeat(np.add.reduceat(close.astype(object), first) + 1, length)
    unit = scale * np.repeat((length + 1).astype(object), length)
    return unit + same.astype(object) * scale + close.astype(object)


def _heaviest_chains(first, length, bound, weight):
    """The heaviest sequence of compatible pairs in each chain (pairs ``[first, first + length)``,
    pair k compatible with the pairs ``[first, bound[k])``, none when ``bound[k] < 0``).

    The heaviest total of a sequence ending at pair k is its weight plus the running prefix
    maximum (``top``; ``arg``: where it is first reached, the leftmost) of those totals before
    ``bound[k]``, and that position is k's predecessor (``back``). Chains advance side by side,
    one pair per step; the last few long ones finish in plain Python. Ties keep the leftmost
    pairs. Returns a boolean mask of the chosen pairs.
    """
    n = len(weight)
    top = np.zeros(n + 1, dtype=weight.dtype)  # a last slot 0 with ``arg`` -1: no predecessor
    arg, back = np.full(n + 1, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    prev = np.where(bound >= 0, bound - 1, n)
    chains = np.argsort(-length, kind="stable")
    starts = first[chains]  # longest chains first: the chains still running at step t lead
    active = len(chains) - np.searchsorted(
        np.sort(length), np.arange(int(length.max(initial=0))), side="right"
    )
    for t, n_active in enumerate(active.tolist()):
        if n_active < _FEW_CHAINS and len(active) - t > 64:
            for c in chains[:n_active].tolist():
                _finish_chain(int(first[c]), int(first[c] + length[c]), t, bound, weight, top, arg, back)
            break
        k = starts[:n_active] + t
        j = prev[k]
        total = weight[k] + top[j]
        back[k] = arg[j]
        if t == 0:
            top[k], arg[k] = total, k
        else:
            keep = top[k - 1] >= total
            top[k] = np.where(keep, top[k - 1], total)
            arg[k] = np.where(keep, arg[k - 1], k)
    chosen = np.zeros(n, dtype=bool)
    k = arg[first + length - 1]  # each chain's heaviest sequence ends at its first heaviest total
    while len(k) >= _FEW_CHAINS:
        chosen[k] = True
        k = back[k]
        k = k[k >= 0]
    chosen[_trace(k.tolist(), back)] = True
    return chosen


def _trace(ends, back):
    """The pairs of the sequences ending at ``ends``, following ``back``, in plain Python."""
    found, back = [], back.tolist() if ends else []
    for k in ends:
        while k >= 0:
            found.append(k)
            k = back[k]
    return np.array(found, dtype=np.int64)


def _finish_chain(start, stop, t, bound, weight, top, arg, back):
    """:func:`_heaviest_chains` for one chain from its pair ``start + t`` on, in plain Python."""
    bound_, weight_ = (bound[start:stop] - start).tolist(), weight[start:stop].tolist()
    top_, arg_, back_ = (a[start:stop].tolist() for a in (top, arg, back))
    best, where = (top_[t - 1], arg_[t - 1]) if t else (None, -1)
    for k in range(t, stop - start):
        b = bound_[k]
        if b > 0:
            total = weight_[k] + top_[b - 1]
            back_[k] = arg_[b - 1]
        else:
            total = weight_[k]
        if where < 0 or total > best:
            best, where = total, start + k
        top_[k], arg_[k] = best, where
    top[start:stop], arg[start:stop], back[start:stop] = top_, arg_, back_


def flat_resolution(
    g: np.ndarray, p: np.ndarray, gold: SpanArrays, pred: SpanArrays, over: "FragmentPairs | None" = None
) -> np.ndarray:
    """Flat sides: isolated pairs as they are, each chain by :func:`_resolve_chains` (``over``: the
    pairs' :class:`FragmentPairs`, where an entity has fragments). Returns which of the candidate
    pairs ``g, p`` are kept; the pairs of whole chains may be given alone (``ner_fast`` does)."""
    gold_degree = np.bincount(g, minlength=len(gold))
    pred_degree = np.bincount(p, minlength=len(pred))
    keep = (gold_degree[g] == 1) & (pred_degree[p] == 1)  # pairs of spans that overlap nothing else
    if not keep.all():
        idx = np.flatnonzero(~keep)
        gi, pi = g[idx], p[idx]
        new_chain = np.ones(len(idx), dtype=bool)
        new_chain[1:] = (gi[1:] != gi[:-1]) & (pi[1:] != pi[:-1])
        same, shared = _pair_weights(gi, pi, gold, pred, None if over is None else over.take(idx))
        keep[idx[_resolve_chains(gi, pi, same, shared, np.flatnonzero(new_chain))]] = True
    return keep


def match(gold: SpanArrays, pred: SpanArrays, overlap: PairOverlap | None = None) -> Matching:
    """The one-to-one :class:`Matching` of two SpanArrays of the same corpus layout.

    Spans of a side may nest and overlap (see :func:`_nested_resolution`); the spans of a
    side need not be sorted then, but no span may appear twice (:func:`check_duplicates`).
    ``overlap``: None, or a :data:`PairOverlap` the caller gives when some entities are not
    contiguous (``ner_fragments.fragment_overlap``): the pairs it marks share the positions it
    counts, and are exact where it says so. The matching knows no more of fragments than that.
    """
    flat = _is_flat(gold) and _is_flat(pred)
    cut = None
    if flat and overlap is None and len(gold) + len(pred) >= PARALLEL_SPANS:
        cut = _halves(gold, pred)
    if cut is not None:
        kg, kp = cut
        first, second = side_by_side(
            [
                lambda: _match_once(gold.part(0, kg), pred.part(0, kp), None, True),
                lambda: _match_once(gold.part(kg, len(gold)), pred.part(kp, len(pred)), None, True),
            ]
        )
        shift = (kg, kp, 0, kg, kp)
        return Matching(*(np.concatenate((a, b + k)) for a, b, k in zip(first, second, shift)))
    return _match_once(gold, pred, overlap, flat)


def _halves(gold, pred):
    """Where to cut two flat sides (sorted, no overlap within a side) so that no span of either
    crosses the cut: ``(gold spans before it, predictions before it)``, at the start of the
    middle span of one side or one of the next few; None if each of them cuts a span of the
    other side."""
    one, other = (gold, pred) if len(gold) else (pred, gold)
    for k in range(len(one) // 2, min(len(one) // 2 + 64, len(one))):
        cut = one.start[k]
        j = int(np.searchsorted(other.start, cut, side="left"))
        if j == 0 or other.end[j - 1] <= cut:
            return (k, j) if one is gold else (j, k)
    return None


def _match_once(gold, pred, overlap, flat):
    """:func:`match` in one pass (``flat``: whether both sides are)."""
    overlap_gold, overlap_pred = g, p = _candidates(gold, pred, flat)
    over = None
    if overlap is not None:
        overlap_gold, overlap_pred, over = g, p, _ = _fragment_pairs(g, p, gold, pred, overlap)
    if flat:
        keep = flat_resolution(g, p, gold, pred, over)
    else:
        keep = _nested_resolution(g, p, gold, pred, over)
    g, p = g[keep], p[keep]
    exact = (gold.start[g] == pred.start[p]) & (gold.end[g] == pred.end[p])
    if over is not None:
        over = over.take(keep)
        exact = np.where(over.mask, over.equal, exact)
    other_type = gold.type[g] != pred.type[p]
    scenario = np.where(exact, 0, 2) + other_type
    return Matching(g, p, scenario.astype(np.int8), overlap_gold, overlap_pred)


def _nested_resolution(g, p, gold, pred, over=None):
    """Spans of a side nest or overlap: the best one-to-one matching of the candidate pairs.

    1. Pairs of the same type and offsets are matched first: each span has at most one such
       counterpart, so they never compete, and the seqeval keys stay exact matching.
    2. The other pairs of the spans left form connected components; a component whose spans do
       not overlap within a side is a chain, solved as on flat input (:func:`_resolve_chains`);
       a component with one span on a side takes its heaviest pair; any other goes to a
       maximum-weight assignment (:func:`_assign`).
    Weights compare (pairs, same-type pairs, closeness) as tuples; ties go to the pairs
    that come first by position (start, end, type of the gold span, then of the prediction).
    """
    exact = (gold.start[g] == pred.start[p]) & (gold.end[g] == pred.end[p]) & (gold.type[g] == pred.type[p])
    if over is not None:  # every fragment equal, too
        exact &= ~over.mask | over.equal
    exact &= (np.bincount(g[exact], minlength=len(gold))[g] == 1) & (
        np.bincount(p[exact], minlength=len(pred))[p] == 1
    )
    gold_free = np.ones(len(gold), dtype=bool)
    gold_free[g[exact]] = False
    pred_free = np.ones(len(pred), dtype=bool)
    pred_free[p[exact]] = False
    keep = exact.copy()
    rest = np.flatnonzero(gold_free[g] & pred_free[p])
    if len(rest):
        sub = None if over is None else over.take(rest)
        keep[rest[_resolve_components(g[rest], p[rest], gold, pred, sub)]] = True
    return keep


def _position_rank(spans):
    """Each span's rank by (start, end, type): the position order of the tie rule."""
    rank = np.empty(len(spans.start), dtype=np.int64)
    rank[np.lexsort((spans.type, spans.end, spans.start))] = np.arange(len(rank))
    return rank


def _resolve_components(g, p, gold, pred, over=None):
    """Boolean mask of the pairs kept among candidate pairs ``g, p`` (see :func:`_nested_resolution`)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_gold = len(gold.start)
    graph = coo_matrix((np.ones(len(g)), (g, n_gold + p)), shape=(n_gold + len(pred.start),) * 2)
    component = connected_components(graph, directed=False)[1][g]
    rank_g, rank_p = _position_rank(gold)[g], _position_rank(pred)[p]
    order = np.lexsort((rank_p, rank_g, component))
    g, p, component, rank_g, rank_p = g[order], p[order], component[order], rank_g[order], rank_p[order]
    first = _firsts(component)
    row, n_rows, flat_gold = _side(component, rank_g, g, gold)
    col, n_cols, flat_pred = _side(component, rank_p, p, pred)
    flat = flat_gold & flat_pred
    same, shared = _pair_weights(g, p, gold, pred, None if over is None else over.take(order))
    keep = np.zeros(len(g), dtype=bool)
    size = np.diff(np.append(first, len(g)))
    chain = np.repeat(flat, size)
    if chain.any():
        idx = np.flatnonzero(chain)
        keep[idx] = _resolve_chains(rank_g[idx], rank_p[idx], same[idx], shared[idx], _firsts(component[idx]))
    star = ~flat & ((n_rows == 1) | (n_cols == 1))
    if star.any():
        idx = np.flatnonzero(np.repeat(star, size))
        keep[idx[_heaviest_pairs(same[idx], shared[idx], _firsts(component[idx]))]] = True
    for c in np.flatnonzero(~flat & ~star).tolist():
        rows = slice(first[c], first[c] + size[c])
        keep[rows] = _assign(row[rows], col[rows], (int(n_rows[c]), int(n_cols[c])), same[rows], shared[rows])
    inverse = np.empty(len(order), dtype=bool)
    inverse[order] = keep
    return inverse


def _firsts(component):
    """Indices where a run of equal component labels starts."""
    return np.flatnonzero(np.append(True, component[1:] != component[:-1]))


def _side(component, rank, idx, spans):
    """One side of the pairs sorted by component: per pair, the rank of its span among its
    component's spans of that side; per component, how many spans of that side it has, and
    whether they are flat (no two overlap)."""
    order = np.lexsort((rank, component))
    c, r, i = component[order], rank[order], idx[order]
    new_component = np.append(True, c[1:] != c[:-1])
    new_span = new_component | np.append(False, r[1:] != r[:-1])
    number = np.cumsum(new_span) - 1
    component_id = np.cumsum(new_component) - 1
    first_number = number[new_component]
    local = np.empty(len(order), dtype=np.int64)
    local[order] = number - first_number[component_id]
    sizes = np.diff(np.append(first_number, number[-1] + 1))
    nodes, owner = i[new_span], component_id[new_span]  # by position within each component
    clash = (owner[1:] == owner[:-1]) & (spans.end[nodes[:-1]] > spans.start[nodes[1:]])
    flat = np.ones(len(sizes), dtype=bool)
    flat[owner[1:][clash]] = False
    return local, sizes, flat


def _heaviest_pairs(same, shared, first):
    """Index of the heaviest pair of each group (from ``first``), the first of equals."""
    key = same * (int(shared.max()) + 1) + shared
    group = np.repeat(np.arange(len(first)), np.diff(np.append(first, len(key))))
    order = np.lexsort((np.arange(len(key)), -key, group))
    return order[_firsts(group[order])]


def _assign(row, col, shape, same, shared):
    """Mask of the pairs of one component (spans numbered ``row``, ``col`` within it) kept by a
    maximum-weight assignment.

    A pair weighs ``(unit + same * scale + shared) * ties + tie``: ``scale`` above the shared
    tokens of any matching, ``unit`` above any same-type count times ``scale`` plus shared
    tokens (so the most pairs win), ``tie`` larger for the pairs first by position. If those
    weights would not fit a float exactly, the ``tie`` term is dropped (then ties go to the
    solver's first optimum on the position-sorted spans, still deterministic).
    """
    from scipy.optimize import linear_sum_assignment

    m, e = min(shape), len(row)
    shared_list = shared.tolist()
    scale = sum(sorted(shared_list, reverse=True)[:m]) + 1
    unit = scale * (m + 1)
    weight = [unit + s * scale + t for s, t in zip(same.tolist(), shared_list)]
    ties = m * e + 1
    if (unit + scale) * (m + 1) * ties < _EXACT_FLOAT:
        weight = [w * ties + (e - k) for k, w in enumerate(weight)]
    matrix = np.zeros(shape)
    matrix[row, col] = weight
    r, c = linear_sum_assignment(matrix, maximize=True)
    chosen = np.zeros(shape, dtype=bool)
    chosen[r, c] = True
    return chosen[row, col]
