"""One matching pass of gold and predicted spans, counts as state, every score derived.

Matching. Gold spans never overlap each other, nor do predicted ones, so a span with an
exact counterpart overlaps nothing else: exact matches are unambiguous. Every other
overlapping (gold, predicted) pair is a candidate; where each span of a pair overlaps only
the other, the pair is matched as it is. Where one span overlaps several (a prediction across
two gold entities, two predictions inside one), the spans form a small chain, and we take the
one-to-one matching that has the most pairs, then the most pairs of the same type, then the
most shared tokens, then the leftmost pairs. It depends on positions only, never on the
order in which spans or sentences are listed.

Scenarios (SemEval-2013, as in Batista's write-up) of a matched pair, and the outcome table:

==========================  ========  =========  =========  =========
scenario                    strict    exact      partial    type
==========================  ========  =========  =========  =========
exact span, same type       correct   correct    correct    correct
exact span, other type      incorrect correct    correct    incorrect
overlap, same type          incorrect incorrect  partial    correct
overlap, other type         incorrect incorrect  partial    incorrect
==========================  ========  =========  =========  =========

An unmatched gold span is ``missed`` and an unmatched predicted one ``spurious`` in every
mode. The state is :class:`Counts`: per scenario a (gold type x predicted type) matrix, the
missed and spurious counts per type, and the token counts for accuracy.

>>> import ner_decoding as D
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

from typing import NamedTuple

import numpy as np

SCENARIOS = ("exact", "exact_other_type", "overlap", "overlap_other_type")
MODES = ("strict", "exact", "partial", "type")
OUTCOMES = ("correct", "incorrect", "partial")
#: per mode, the outcome of each scenario
OUTCOME_TABLE = {
    "strict": ("correct", "incorrect", "incorrect", "incorrect"),
    "exact": ("correct", "correct", "incorrect", "incorrect"),
    "partial": ("correct", "correct", "partial", "partial"),
    "type": ("correct", "incorrect", "correct", "incorrect"),
}
#: recall / precision credit of each outcome
CREDIT = {"correct": 1.0, "incorrect": 0.0, "partial": 0.5}
ZERO_DIVISION = (0, 1)


class Matching(NamedTuple):
    """Matched pairs (indices into the gold and predicted SpanArrays) and their scenario, and
    every overlapping pair, matched or not (sorted by gold then prediction), for the scorings
    that align spans many-to-many."""

    gold: np.ndarray
    pred: np.ndarray
    scenario: np.ndarray
    overlap_gold: np.ndarray
    overlap_pred: np.ndarray


def _candidates(gold, pred):
    """All overlapping (gold index, predicted index) pairs, sorted by gold then prediction."""
    lo = np.searchsorted(pred.end, gold.start, side="right")
    hi = np.searchsorted(pred.start, gold.end, side="left")
    degree = np.maximum(hi - lo, 0)
    g = np.repeat(np.arange(len(gold)), degree)
    first = np.repeat(np.cumsum(degree) - degree, degree)
    p = np.repeat(lo, degree) + np.arange(len(g)) - first
    return g, p


def _resolve_chains(g, p, gold, pred, ambiguous):
    """Keep, among the ambiguous candidate pairs, the best matching of each chain."""
    idx = np.flatnonzero(ambiguous)
    gi, pi = g[idx], p[idx]
    new_chain = np.ones(len(idx), dtype=bool)
    new_chain[1:] = (gi[1:] != gi[:-1]) & (pi[1:] != pi[:-1])
    overlap = np.minimum(gold.end[gi], pred.end[pi]) - np.maximum(gold.start[gi], pred.start[pi])
    same = (gold.type[gi] == pred.type[pi]).astype(np.int64)
    first = np.flatnonzero(new_chain)
    length = np.diff(np.append(first, len(idx)))
    keep = [_best_matchings(first[length == n], n, gi, pi, same, overlap) for n in np.unique(length).tolist()]
    return idx[np.concatenate(keep)]


def _best_matchings(first, n, gi, pi, same, overlap):
    """Pairs kept by the best one-to-one matching of each chain of ``n`` candidate pairs.

    The chains start at ``first`` and are solved side by side, one row each. Their pairs are
    sorted by position; two pairs are compatible when both their gold and their predicted
    spans differ, and then they are ordered the same way on both sides, so the best matching
    is a heaviest increasing subsequence. A pair weighs (1, same type, shared tokens), summed
    and compared as tuples, encoded as one integer; ties keep the leftmost pairs.
    """
    cols = first[:, None] + np.arange(n)
    scale = int(overlap[cols].sum(axis=1).max()) + 1  # above any sum of shared tokens
    dtype = np.int64 if scale * (n + 1) ** 2 < 2**62 else object  # exact either way
    weight = (scale * (n + 1) + same[cols] * scale + overlap[cols]).astype(dtype)
    back = _heaviest_increasing(gi[cols], pi[cols], weight)
    rows = np.arange(len(first))
    k = weight.argmax(axis=1)  # ``weight`` now holds each chain's best total ending at a pair
    chosen = np.zeros(cols.shape, dtype=bool)
    while len(rows):
        chosen[rows, k] = True
        k = back[rows, k]
        rows, k = rows[k >= 0], k[k >= 0]
    return cols[chosen]


def _heaviest_increasing(g, p, weight):
    """In place, ``weight[:, k]`` becomes the heaviest total of compatible pairs ending at pair k.

    Returns the back pointers: the previous pair of that best sequence, -1 for none (the
    first of equal totals, i.e. the leftmost).
    """
    back = np.full(g.shape, -1)
    for k in range(1, g.shape[1]):
        compatible = (g[:, :k] < g[:, k:k + 1]) & (p[:, :k] < p[:, k:k + 1])
        total = np.where(compatible, weight[:, :k], -1)
        j = total.argmax(axis=1)
        base = total[np.arange(len(j)), j]
        back[:, k] = np.where(base >= 0, j, -1)
        weight[:, k] += np.maximum(base, 0)
    return back


def match(gold, pred):
    """The one-to-one :class:`Matching` of two SpanArrays of the same corpus layout."""
    overlap_gold, overlap_pred = g, p = _candidates(gold, pred)
    gold_degree = np.bincount(g, minlength=len(gold))
    pred_degree = np.bincount(p, minlength=len(pred))
    keep = (gold_degree[g] == 1) & (pred_degree[p] == 1)  # pairs of spans that overlap nothing else
    if not keep.all():
        keep[_resolve_chains(g, p, gold, pred, ~keep)] = True
        g, p = g[keep], p[keep]
    exact = (gold.start[g] == pred.start[p]) & (gold.end[g] == pred.end[p])
    other_type = gold.type[g] != pred.type[p]
    scenario = np.where(exact, 0, 2) + other_type
    return Matching(g, p, scenario.astype(np.int8), overlap_gold, overlap_pred)


class Pairs(NamedTuple):
    """Matched pairs as a sparse table: one row per (scenario, gold type, predicted type) that
    occurs, sorted by that key, with ``n``, the number of pairs."""

    scenario: np.ndarray
    gold: np.ndarray
    pred: np.ndarray
    n: np.ndarray


class Counts(NamedTuple):
    """Sufficient statistics of a corpus: every score derives from these counts.

    ``pairs``: the matched pairs per (scenario, gold type, predicted type), a sparse
    :class:`Pairs` table, so memory grows with the pairs seen, not the square of the types;
    ``missed[i]`` / ``spurious[j]``: unmatched gold / predicted spans per type;
    ``tokens_correct`` / ``tokens``: tokens whose tags are equal, and all tokens.
    """

    types: tuple
    pairs: Pairs
    missed: np.ndarray
    spurious: np.ndarray
    tokens_correct: int
    tokens: int


def _pairs_table(scenario, gold_type, pred_type, k):
    """The :class:`Pairs` table of matched pairs given one by one (type indices below ``k``)."""
    code = (np.asarray(scenario, dtype=np.int64) * k + gold_type) * k + pred_type
    code, n = np.unique(code, return_counts=True)
    k = max(k, 1)
    return Pairs(code // (k * k), code // k % k, code % k, n.astype(np.int64))


def count(gold, pred, matching, types, tokens_correct, tokens):
    """:class:`Counts` from the spans of both sides and their matching."""
    k = len(types)
    pairs = _pairs_table(matching.scenario, gold.type[matching.gold], pred.type[matching.pred], k)
    gold_free = np.ones(len(gold), dtype=bool)
    gold_free[matching.gold] = False
    pred_free = np.ones(len(pred), dtype=bool)
    pred_free[matching.pred] = False
    missed = np.bincount(gold.type[gold_free], minlength=k)
    spurious = np.bincount(pred.type[pred_free], minlength=k)
    return Counts(tuple(types), pairs, missed, spurious, int(tokens_correct), int(tokens))


def _per_scenario(counts, side):
    """Matched pairs per scenario x type of one side (``"gold"`` or ``"pred"``), dense."""
    out = np.zeros((len(SCENARIOS), len(counts.types)), dtype=np.int64)
    np.add.at(out, (counts.pairs.scenario, getattr(counts.pairs, side)), counts.pairs.n)
    return out


# ---------------------------------------------------------------------------- scores


def check_zero_division(zero_division):
    """Validate the ``zero_division`` policy; returns the value a 0/0 score takes."""
    if isinstance(zero_division, bool) or zero_division not in ZERO_DIVISION:
        raise ValueError(f"zero_division must be one of {list(ZERO_DIVISION)}; got {zero_division!r}")
    return float(zero_division)


def check_beta(beta):
    """Validate the F-beta weight (a finite number > 0; recall counts ``beta`` times as much as
    precision); returns it as a float.

    >>> check_beta(2), fbeta_key(2), fbeta_key(0.5), fbeta_key(1.0)
    (2.0, 'f2', 'f0.5', 'f1')
    """
    if isinstance(beta, (int, float, np.integer, np.floating)) and not isinstance(beta, bool):
        try:
            value = float(beta)
        except OverflowError:  # an int beyond float range
            value = float("inf")
        if 0 < value < float("inf"):  # false for nan
            return value
    raise ValueError(f"beta must be a finite number > 0; got {beta!r}")


def fbeta_key(beta):
    """The name of the F-beta score: ``"f1"``, ``"f0.5"``, ``"f2"``."""
    text = repr(float(beta))
    return "f" + (text[:-2] if text.endswith(".0") else text)


def divide(numerator, denominator, zero_division):
    """``numerator / denominator`` as a plain float, ``zero_division`` where it is 0/0."""
    return float(numerator) / float(denominator) if denominator else float(zero_division)


def fbeta(precision, recall, beta=1.0):
    """The weighted harmonic mean of precision and recall, 0.0 when both are 0.

    >>> fbeta(0.5, 1.0), fbeta(0.5, 1.0, beta=2), fbeta(0.5, 1.0, beta=0.5)
    (0.6666666666666666, 0.8333333333333334, 0.5555555555555556)
    """
    if beta <= 1.0:  # beta ** 2 may underflow to 0: then the score is the precision
        b2 = beta * beta
        numerator, denominator = (1 + b2) * precision * recall, b2 * precision + recall
    else:  # divided by beta ** 2, which may overflow: then the score is the recall
        w = 1 / (beta * beta)
        numerator, denominator = (1 + w) * precision * recall, precision + w * recall
    return numerator / denominator if denominator else 0.0


def _mode_scores(recall_side, precision_side, missed, spurious, zero_division, beta):
    """One MUC table: counts of gold (recall) side, then scores from both sides."""
    possible = sum(recall_side.values()) + missed
    actual = sum(precision_side.values()) + spurious
    precision = divide(sum(CREDIT[o] * n for o, n in precision_side.items()), actual, zero_division)
    recall = divide(sum(CREDIT[o] * n for o, n in recall_side.items()), possible, zero_division)
    table = {o: int(recall_side[o]) for o in OUTCOMES}
    table.update(missed=int(missed), spurious=int(spurious), possible=int(possible), actual=int(actual),
                 precision=precision, recall=recall)
    table[fbeta_key(beta)] = fbeta(precision, recall, beta)
    return table


def _by_outcome(mode, per_scenario):
    """Sum per-scenario counts (first axis) into the mode's outcomes."""
    out = {o: 0 for o in OUTCOMES}
    for outcome, n in zip(OUTCOME_TABLE[mode], per_scenario):
        out[outcome] = out[outcome] + n
    return out


def muc_scores(counts, zero_division=0.0, beta=1.0):
    """The four MUC / SemEval-2013 modes, overall and per type.

    Per type, the recall side (correct, incorrect, partial, missed, possible) counts gold
    spans of that type and the precision side (spurious, actual, precision) predicted spans of
    that type, so every count adds up over the types to the overall count.
    """
    gold_side = _per_scenario(counts, "gold")  # scenario x gold type
    pred_side = _per_scenario(counts, "pred")  # scenario x predicted type
    overall = gold_side.sum(axis=1).tolist()
    per_type = list(zip(counts.types, gold_side.T.tolist(), pred_side.T.tolist(),  # plain ints: fast
                        counts.missed.tolist(), counts.spurious.tolist()))
    results = {}
    for mode in MODES:
        table = _mode_scores(_by_outcome(mode, overall), _by_outcome(mode, overall),
                             int(counts.missed.sum()), int(counts.spurious.sum()), zero_division, beta)
        table["per_type"] = {
            name: _mode_scores(_by_outcome(mode, gold), _by_outcome(mode, pred), missed, spurious, zero_division, beta)
            for name, gold, pred, missed, spurious in per_type
        }
        results[mode] = table
    return results


def seqeval_scores(counts, zero_division=0.0, beta=1.0):
    """Scores with seqeval's keys: per type, micro (``overall_*``), macro and weighted averages.

    Types are those with at least one gold or predicted entity, as in seqeval.
    """
    gold_side = _per_scenario(counts, "gold")
    tp = gold_side[SCENARIOS.index("exact")]  # exact span and same type
    true = gold_side.sum(axis=0) + counts.missed
    predicted = _per_scenario(counts, "pred").sum(axis=0) + counts.spurious
    table = prf_table(tp, tp, true, predicted, counts.types, zero_division, beta=beta)
    names = ("precision", "recall", fbeta_key(beta))
    results = {name: {k: row[k] for k in names + ("number",)} for name, row in table["per_type"].items()}
    results.update({f"overall_{k}": table[k] for k in names})
    results["overall_accuracy"] = divide(counts.tokens_correct, counts.tokens, zero_division)
    results.update({f"{avg}_{k}": table[f"{avg}_{k}"] for avg in ("macro", "weighted") for k in names})
    return results


def _prf(hit_gold, hit_pred, number, predicted, zero_division, beta):
    p = divide(hit_pred, predicted, zero_division)
    r = divide(hit_gold, number, zero_division)
    return {"precision": p, "recall": r, fbeta_key(beta): fbeta(p, r, beta),
            "number": int(number), "predicted": int(predicted)}


def _averages(rows, predicted, zero_division, beta):
    """Macro and gold-support-weighted means of the per-type (precision, recall, F-beta)."""
    names = ("precision", "recall", fbeta_key(beta))
    z = float(zero_division)
    if not rows:
        return {f"{avg}_{n}": z for avg in ("macro", "weighted") for n in names}
    scores = np.array([[row[n] for n in names] for row in rows], dtype=float)
    support = np.array([row["number"] for row in rows], dtype=float)
    macro = scores.mean(axis=0)
    if support.sum() > 0:
        weighted = (scores * support[:, None]).sum(axis=0) / support.sum()
    else:  # as seqeval: no gold item, so recall is 0/0; precision and F are 0 once something was predicted
        weighted = (z if predicted == 0 else 0.0, z, z if predicted == 0 else 0.0)
    out = {f"macro_{n}": float(v) for n, v in zip(names, macro)}
    out.update({f"weighted_{n}": float(v) for n, v in zip(names, weighted)})
    return out


def prf_table(hit_gold, hit_pred, number, predicted, types, zero_division=0.0, hit_names=(), beta=1.0):
    """Micro, macro and weighted precision / recall / F-beta with a per-type table, from counts.

    Per type ``i``: ``hit_gold[i]`` of its ``number[i]`` gold items were found and
    ``hit_pred[i]`` of its ``predicted[i]`` predicted items were right. Types with neither
    gold nor predicted items are left out of the table and the averages, as in seqeval.
    ``hit_names`` (gold name, predicted name) also reports the hits, overall and per type.
    The F key is ``fbeta_key(beta)``: ``f1``, ``macro_f1``, ... for the default beta of 1.
    """
    present = np.flatnonzero((np.asarray(number) + np.asarray(predicted)) > 0).tolist()
    per_type = {types[i]: _prf(hit_gold[i], hit_pred[i], number[i], predicted[i], zero_division, beta)
                for i in present}
    n, k = int(np.sum(number)), int(np.sum(predicted))
    table = _prf(np.sum(hit_gold), np.sum(hit_pred), n, k, zero_division, beta)
    table.update(_averages(list(per_type.values()), k, zero_division, beta))
    table["per_type"] = per_type
    if hit_names:
        gold_name, pred_name = hit_names
        table.update({gold_name: int(np.sum(hit_gold)), pred_name: int(np.sum(hit_pred))})
        for i in present:
            per_type[types[i]].update({gold_name: int(hit_gold[i]), pred_name: int(hit_pred[i])})
    return table


#: the confusion table of each scenario: same span (exact) or overlapping
CONFUSION_SPANS = ("same_span", "same_span", "overlap", "overlap")


def confusion(counts):
    """Type confusion: matched pairs per gold type and predicted type, for the pairs on the same
    span and the overlapping ones, and the missed and spurious spans per type (nonzero only).

    >>> import ner_decoding as D
    >>> corpus = D.encode([["B-LOC", "O", "B-ORG", "I-ORG"]], [["B-PER", "O", "B-ORG", "O"]])
    >>> gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    >>> counts = count(gold, pred, match(gold, pred), corpus.types, tokens_correct=2, tokens=4)
    >>> confusion(counts)
    {'same_span': {'PER': {'LOC': 1}}, 'overlap': {'ORG': {'ORG': 1}}, 'missed': {}, 'spurious': {}}
    """
    types, pairs = counts.types, counts.pairs
    out = {name: {} for name in CONFUSION_SPANS}
    spans = np.array(CONFUSION_SPANS)[pairs.scenario]
    for i in np.lexsort((pairs.pred, pairs.gold, spans)).tolist():  # by span, gold, predicted type
        row = out[spans[i]].setdefault(types[pairs.gold[i]], {})
        row[types[pairs.pred[i]]] = row.get(types[pairs.pred[i]], 0) + int(pairs.n[i])
    for side in ("missed", "spurious"):
        n = getattr(counts, side)
        out[side] = {types[i]: int(n[i]) for i in np.flatnonzero(n).tolist()}
    return out


def gold_outcomes(matching, n_gold, mode):
    """Each gold span's outcome in ``mode``: an index into ``OUTCOMES``, or ``len(OUTCOMES)``
    for a missed span."""
    table = np.array([OUTCOMES.index(o) for o in OUTCOME_TABLE[mode]], dtype=np.int8)
    outcome = np.full(n_gold, len(OUTCOMES), dtype=np.int8)
    outcome[matching.gold] = table[matching.scenario]
    return outcome
