"""Counts as state, every score derived, one formatter: the sufficient statistics of a matching
(:class:`Counts`, the count rows of ``ner_core.COLUMNS``), the one derivation of precision, recall
and F from them (:func:`derive`, :func:`prf`) and the result dicts of the seqeval and MUC families.

It reads a matching (``ner_matching.Matching``) through its fields only and imports no sibling but
``ner_core``.

>>> from ner_recall.core import decoding as D
>>> from ner_recall.core.matching import match
>>> corpus = D.encode([["B-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O"]])
>>> gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
>>> counts = count(gold, pred, match(gold, pred), corpus.types, tokens_correct=1, tokens=3)
>>> muc_scores(counts)["strict"]["incorrect"], muc_scores(counts)["strict"]["spurious"]
(1, 1)
"""

from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from ner_recall.core.vocabulary import (
    COLUMNS,
    MODES,
    OUTCOME_CODES,
    OUTCOME_TABLE,
    OUTCOMES,
    SCENARIO_CREDIT,
    ZERO_DIVISION,
    divide,
    fbeta_array,
    fbeta_key,
    ratio,
    score_names,
)


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


def count(gold: Any, pred: Any, matching: Any, types: Any, tokens_correct: int, tokens: int) -> Counts:
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


def count_parts(gold: Any, pred: Any, matching: Any, k: int) -> list[tuple[Any, Any, npt.NDArray[np.int64]]]:
    """(side, its entities counted, the column of :data:`COLUMNS` each adds to): one part per block
    of columns, for ``k`` types; a count row is the bincount of the columns."""
    scenario = np.asarray(matching.scenario, dtype=np.int64)
    g, p = np.asarray(matching.gold), np.asarray(matching.pred)
    other = (scenario == 1) | (scenario == 3)
    gold_free = np.ones(len(gold.type), dtype=bool)
    gold_free[g] = False
    pred_free = np.ones(len(pred.type), dtype=bool)
    pred_free[p] = False
    return [
        (gold, g, scenario * k + gold.type[g]),
        (pred, p[other], (4 + (scenario[other] == 3)) * k + pred.type[p[other]]),
        (gold, gold_free, 6 * k + gold.type[gold_free]),
        (pred, pred_free, 7 * k + pred.type[pred_free]),
    ]


def count_rows(
    gold: Any,
    pred: Any,
    matching: Any,
    n_types: int,
    units: npt.NDArray[np.int64] | None = None,
    n_units: Any = None,
) -> npt.NDArray[np.int64]:
    """The count rows of :data:`COLUMNS` (``n_types`` columns per block): one for the corpus, or
    with ``units`` (the unit of each sentence) one per unit, ``n_units`` rows.

    Every seqeval and MUC score is a ratio of sums of these columns (:func:`derive`), so a
    bootstrap resample is a weighted sum of unit rows, never a new matching.
    """
    parts = count_parts(gold, pred, matching, n_types)
    width = len(COLUMNS) * n_types
    if units is None:  # one row: no sentence looked up, no part copied
        return cast(Any, sum(np.bincount(column, minlength=width) for _, _, column in parts))[None]
    flat = np.concatenate([units[side.sentence[at]] * width + column for side, at, column in parts])
    return np.bincount(flat.astype(np.int64, copy=False), minlength=n_units * width).reshape(n_units, width)


def rows_of(counts: Counts) -> npt.NDArray[np.int64]:
    """The one count row of a :class:`Counts` (its pairs folded by side)."""
    k, pairs = len(counts.types), counts.pairs
    blocks = np.zeros((len(COLUMNS), k), dtype=np.int64)
    np.add.at(blocks, (pairs.scenario, pairs.gold), pairs.n)
    other = (pairs.scenario == 1) | (pairs.scenario == 3)
    np.add.at(blocks, (4 + (pairs.scenario[other] == 3), pairs.pred[other]), pairs.n[other])
    blocks[6], blocks[7] = counts.missed, counts.spurious
    return blocks.reshape(1, -1)


# ---------------------------------------------------------------------------- scores: one derivation


def check_zero_division(zero_division: Any) -> float:
    """Validate the ``zero_division`` policy; returns the value a 0/0 score takes."""
    if isinstance(zero_division, bool) or zero_division not in ZERO_DIVISION:
        raise ValueError(f"zero_division must be one of {list(ZERO_DIVISION)}; got {zero_division!r}")
    return float(zero_division)


def check_beta(beta: Any) -> float:
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


def sides(rows: Any, k: int) -> tuple[npt.NDArray[Any], ...]:
    """Per row: gold-side and predicted-side scenario counts (rows x 4 x types), missed,
    spurious (rows x types), as floats."""
    blocks = np.asarray(rows).reshape(len(rows), len(COLUMNS), k).astype(float)
    gold = blocks[:, 0:4]
    pred = gold.copy()
    pred[:, 1], pred[:, 3] = blocks[:, 4], blocks[:, 5]
    return gold, pred, blocks[:, 6], blocks[:, 7]


def prf(
    hit_gold: Any,
    hit_pred: Any,
    number: Any,
    predicted: Any,
    zero_division: float = 0.0,
    beta: float = 1.0,
    undefined: bool = False,
) -> tuple[Any, Any, Any]:
    """Precision, recall and F-beta, elementwise. With ``undefined`` a 0/0 ratio is NaN (a
    resample where it is undefined), and F is NaN only where neither side scored."""
    z = np.nan if undefined else zero_division
    p, r = ratio(hit_pred, predicted, z), ratio(hit_gold, number, z)
    f = fbeta_array(p, r, beta)
    if undefined:
        f = np.where(np.isnan(f) & ((p == 0) | (r == 0)), 0.0, f)
    return p, r, f


def averages(scores: Any, number: Any, predicted: Any, zero_division: float) -> tuple[Any, Any]:
    """Macro and gold-support-weighted means over the types (last axis) of each of ``scores``
    (precision, recall, F; rows x types), summed type after type; ``predicted``: the rows'
    predicted items. Returns (macro, weighted), each 3 x rows. Without types both are
    ``zero_division``; without gold items the weighted recall is 0/0 and the weighted
    precision and F are 0 once something was predicted, as in seqeval."""
    z = float(zero_division)
    n_rows, n_types = np.shape(number)
    if not n_types:
        return np.full((3, n_rows), z), np.full((3, n_rows), z)
    scores = np.stack(scores)  # 3 x rows x types
    support = np.asarray(number, dtype=float)
    total = support.sum(axis=1)
    macro = np.cumsum(scores, axis=2)[..., -1] / n_types
    weighted = np.cumsum(scores * support, axis=2)[..., -1] / np.where(total > 0, total, 1)
    none = np.where(np.asarray(predicted) == 0, z, 0.0)
    empty = np.stack([none, np.full(n_rows, z), none])
    return macro, np.where(total > 0, weighted, empty)


def derive(
    rows: Any,
    types: Any,
    families: Any = ("seqeval", "muc"),
    zero_division: float = 0.0,
    beta: float = 1.0,
    present: Any = None,
    undefined: bool = False,
) -> dict[str, Any]:
    """Every seqeval and MUC score of each count row, as arrays over the rows.

    The point estimate is a batch of one row; bootstrap resamples and permutations are a batch
    of many. Returns ``{"seqeval": {"overall", "macro", "weighted"``: 3 x rows (precision,
    recall, F), ``"per_type"``: 3 x rows x present types, ``"present"``: their indices``},
    "muc": {mode: {"overall": 3 x rows, "per_type": 3 x rows x types}}}`` for the families
    asked for. ``present``: the types of seqeval's per-type scores (default: those with a gold
    or predicted entity in the first row). :func:`flat_scores` names them.
    """
    rows = np.atleast_2d(rows)
    k = len(types)
    gold, pred, missed, spurious = sides(rows, k)
    present = present_types(rows[:1], k) if present is None else tuple(present)
    out = {}
    if "seqeval" in families:
        out["seqeval"] = _seqeval(gold, pred, missed, spurious, present, zero_division, beta, undefined)
    if "muc" in families:
        out["muc"] = _muc(gold, pred, missed, spurious, zero_division, beta, undefined)
    return out


def present_types(rows: Any, n_types: int) -> tuple[int, ...]:
    """Indices of the types with a gold or predicted entity in the first row."""
    gold, pred, missed, spurious = sides(np.atleast_2d(rows)[:1], n_types)
    seen = (gold.sum(axis=1) + missed + pred.sum(axis=1) + spurious)[0]
    return tuple(np.flatnonzero(seen > 0).tolist())


def _seqeval(gold, pred, missed, spurious, present, zero_division, beta, undefined):
    tp = gold[:, 0]  # exact span and same type
    number, predicted = gold.sum(axis=1) + missed, pred.sum(axis=1) + spurious
    overall = prf(tp.sum(1), tp.sum(1), number.sum(1), predicted.sum(1), zero_division, beta, undefined)
    at = list(present)
    per = prf(tp[:, at], tp[:, at], number[:, at], predicted[:, at], zero_division, beta)
    macro, weighted = averages(per, number[:, at], predicted.sum(1), zero_division)
    if undefined:  # per type, a 0/0 is undefined; the averages above follow zero_division
        per = prf(tp[:, at], tp[:, at], number[:, at], predicted[:, at], zero_division, beta, True)
    return {
        "overall": np.stack(overall),
        "macro": macro,
        "weighted": weighted,
        "per_type": np.stack(per),
        "present": present,
        "number": number,
    }


def _muc(gold, pred, missed, spurious, zero_division, beta, undefined):
    out = {}
    possible, actual = gold.sum(axis=1) + missed, pred.sum(axis=1) + spurious
    for mode in MODES:
        credit = np.array(SCENARIO_CREDIT[mode])
        hit_gold, hit_pred = credit @ gold, credit @ pred  # rows x types
        overall = prf(
            hit_gold.sum(1), hit_pred.sum(1), possible.sum(1), actual.sum(1), zero_division, beta, undefined
        )
        per = prf(hit_gold, hit_pred, possible, actual, zero_division, beta, undefined)
        out[mode] = {"overall": np.stack(overall), "per_type": np.stack(per)}
    return out


def flat_scores(derived: dict[str, Any], types: Any) -> tuple[list[str], npt.NDArray[np.float64]]:
    """The scores of :func:`derive` under the names of ``results["intervals"]`` (``overall_f1``,
    ``macro_recall``, ``PER_precision``, ``muc_strict_f1``, ``muc_partial_LOC_recall``):
    (names, rows x names array)."""
    keys = ("precision", "recall", "f1")
    names, columns = [], []
    if "seqeval" in derived:
        s = derived["seqeval"]
        names += [f"overall_{key}" for key in keys] + [
            f"{avg}_{key}" for key in keys for avg in ("macro", "weighted")
        ]
        columns += [s["overall"], np.stack([s[avg][j] for j in range(3) for avg in ("macro", "weighted")])]
        names += [f"{types[i]}_{key}" for i in s["present"] for key in keys]
        columns.append(s["per_type"].transpose(2, 0, 1).reshape(-1, s["per_type"].shape[1]))
    for mode, m in derived.get("muc", {}).items():
        names += [f"muc_{mode}_{key}" for key in keys] + [
            f"muc_{mode}_{t}_{key}" for t in types for key in keys
        ]
        columns += [m["overall"], m["per_type"].transpose(2, 0, 1).reshape(-1, m["per_type"].shape[1])]
    n_rows = len(columns[0][0]) if columns else 0
    values = np.concatenate(columns).T if columns else np.zeros((n_rows, 0))
    return names, values


# ---------------------------------------------------------------------------- results: one formatter


#: per mode, the scenario x outcome matrix that sums scenario counts into the mode's outcomes
OUTCOME_MATRIX = {
    mode: np.array([[int(outcome == o) for o in OUTCOMES] for outcome in table], dtype=np.int64)
    for mode, table in OUTCOME_TABLE.items()
}


def _muc_tables(names, recall_side, precision_side, missed, spurious, scores, fkey):
    """One MUC table per name: outcomes (recall side), missed, spurious, possible, actual, scores."""
    out = {}
    for name, r, p, m, s, values in zip(names, recall_side, precision_side, missed, spurious, scores):
        table = dict(zip(OUTCOMES, r))
        table.update(missed=m, spurious=s, possible=sum(r) + m, actual=sum(p) + s)
        table.update(zip(("precision", "recall", fkey), values))
        out[name] = table
    return out


def muc_results(row: Any, types: Any, derived: dict[str, Any], beta: float = 1.0) -> dict[str, Any]:
    """``results["muc"]`` from one count row and its :func:`derive` values."""
    return muc_results_rows(row, types, derived, beta)[0]


def muc_results_rows(
    rows: Any, types: Any, derived: dict[str, Any], beta: float = 1.0
) -> list[dict[str, Any]]:
    """``results["muc"]`` of each count row of a batch, from their :func:`derive` values: the
    arithmetic once for the batch, then one table per row."""
    k = len(types)
    gold, pred, missed, spurious = (a.astype(np.int64) for a in sides(rows, k))  # (rows, scenarios, k)
    fkey = fbeta_key(beta)
    missed_t, spurious_t = missed.tolist(), spurious.tolist()
    total_missed, total_spurious = missed.sum(axis=1).tolist(), spurious.sum(axis=1).tolist()
    out: list[dict[str, Any]] = [{} for _ in range(len(rows))]
    for mode in MODES:
        matrix = OUTCOME_MATRIX[mode]
        recall_side = (gold.transpose(0, 2, 1) @ matrix).tolist()
        precision_side = (pred.transpose(0, 2, 1) @ matrix).tolist()
        overall = (gold.sum(axis=2) @ matrix).tolist()
        scores = derived["muc"][mode]
        overall_scores, per_type_scores = (
            scores["overall"].T.tolist(),
            scores["per_type"].transpose(1, 2, 0).tolist(),
        )
        for i, results in enumerate(out):
            table = _muc_tables(
                [None],
                [overall[i]],
                [overall[i]],
                [total_missed[i]],
                [total_spurious[i]],
                [overall_scores[i]],
                fkey,
            )[None]
            table["per_type"] = _muc_tables(
                types, recall_side[i], precision_side[i], missed_t[i], spurious_t[i], per_type_scores[i], fkey
            )
            results[mode] = table
    return out


def seqeval_results(
    row: Any,
    types: Any,
    derived: dict[str, Any],
    tokens_correct: Any,
    tokens: Any,
    zero_division: float = 0.0,
    beta: float = 1.0,
) -> dict[str, Any]:
    """The seqeval family (per type, micro, macro, weighted, accuracy) from one count row's
    :func:`derive` values."""
    return seqeval_results_rows(types, derived, [tokens_correct], [tokens], zero_division, beta)[0]


def seqeval_results_rows(
    types: Any,
    derived: dict[str, Any],
    tokens_correct: Any,
    tokens: Any,
    zero_division: float = 0.0,
    beta: float = 1.0,
) -> list[dict[str, Any]]:
    """The seqeval family of each count row of a batch, from their :func:`derive` values (the
    types present are the batch's) and each row's agreeing and real tokens."""
    names = score_names(beta)
    s = derived["seqeval"]
    number = s["number"].astype(np.int64).tolist()
    per_type = s["per_type"].transpose(1, 2, 0).tolist()  # rows x present types x scores
    overall, macro, weighted = (s[k].T.tolist() for k in ("overall", "macro", "weighted"))
    out = []
    for r, (n, scored) in enumerate(zip(number, per_type)):
        # per type a dict, then the overall, macro and weighted scores and the accuracy as floats
        results: dict[str, Any] = {
            types[i]: {**dict(zip(names, v)), "number": n[i]} for i, v in zip(s["present"], scored)
        }
        results.update({f"overall_{name}": v for name, v in zip(names, overall[r])})
        results["overall_accuracy"] = divide(tokens_correct[r], tokens[r], zero_division)
        results.update({f"macro_{name}": v for name, v in zip(names, macro[r])})
        results.update({f"weighted_{name}": v for name, v in zip(names, weighted[r])})
        out.append(results)
    return out


def muc_scores(counts: Counts, zero_division: float = 0.0, beta: float = 1.0) -> dict[str, Any]:
    """The four MUC / SemEval-2013 modes, overall and per type, of a :class:`Counts`.

    Per type, the recall side (correct, incorrect, partial, missed, possible) counts gold
    spans of that type and the precision side (spurious, actual, precision) predicted spans of
    that type, so every count adds up over the types to the overall count.
    """
    row = rows_of(counts)
    return muc_results(row, counts.types, derive(row, counts.types, ("muc",), zero_division, beta), beta)


def seqeval_scores(counts: Counts, zero_division: float = 0.0, beta: float = 1.0) -> dict[str, Any]:
    """Scores with seqeval's keys: per type, micro (``overall_*``), macro and weighted averages.

    Types are those with at least one gold or predicted entity, as in seqeval.
    """
    row = rows_of(counts)
    derived = derive(row, counts.types, ("seqeval",), zero_division, beta)
    return seqeval_results(
        row, counts.types, derived, counts.tokens_correct, counts.tokens, zero_division, beta
    )


def prf_table(
    hit_gold: Any,
    hit_pred: Any,
    number: Any,
    predicted: Any,
    types: Any,
    zero_division: float = 0.0,
    hit_names: Any = (),
    beta: float = 1.0,
) -> dict[str, Any]:
    """Micro, macro and weighted precision / recall / F-beta with a per-type table, from counts.

    Per type ``i``: ``hit_gold[i]`` of its ``number[i]`` gold items were found and
    ``hit_pred[i]`` of its ``predicted[i]`` predicted items were right. Types with neither
    gold nor predicted items are left out of the table and the averages, as in seqeval.
    ``hit_names`` (gold name, predicted name) also reports the hits, overall and per type.
    The F key is ``fbeta_key(beta)``: ``f1``, ``macro_f1``, ... for the default beta of 1.
    """
    names = score_names(beta)
    hit_gold, hit_pred, number, predicted = (
        np.asarray(a, dtype=np.int64) for a in (hit_gold, hit_pred, number, predicted)
    )
    present = np.flatnonzero((number + predicted) > 0)
    per = prf(
        hit_gold[None, present],
        hit_pred[None, present],
        number[None, present],
        predicted[None, present],
        zero_division,
        beta,
    )
    n, k = int(number.sum()), int(predicted.sum())
    overall = prf(hit_gold.sum(), hit_pred.sum(), n, k, zero_division, beta)
    macro, weighted = averages(per, number[None, present], np.array([k]), zero_division)
    table: dict[str, Any] = {
        **{name: float(v) for name, v in zip(names, overall)},
        "number": n,
        "predicted": k,
    }
    table.update({f"macro_{name}": float(v[0]) for name, v in zip(names, macro)})
    table.update({f"weighted_{name}": float(v[0]) for name, v in zip(names, weighted)})
    columns = np.stack(per)[:, 0].T.tolist()  # present x 3
    per_type = {
        types[i]: {**dict(zip(names, columns[j])), "number": int(number[i]), "predicted": int(predicted[i])}
        for j, i in enumerate(present.tolist())
    }
    table["per_type"] = per_type
    if hit_names:
        gold_name, pred_name = hit_names
        table.update({gold_name: int(hit_gold.sum()), pred_name: int(hit_pred.sum())})
        for i in present.tolist():
            per_type[types[i]].update({gold_name: int(hit_gold[i]), pred_name: int(hit_pred[i])})
    return table


#: the confusion table of each scenario: same span (exact) or overlapping
CONFUSION_SPANS = ("same_span", "same_span", "overlap", "overlap")


def confusion(counts: Counts) -> dict[str, dict[str, Any]]:
    """Type confusion: matched pairs per gold type and predicted type, for the pairs on the same
    span and the overlapping ones, and the missed and spurious spans per type (nonzero only).

    >>> from ner_recall.core import decoding as D
    >>> corpus = D.encode([["B-LOC", "O", "B-ORG", "I-ORG"]], [["B-PER", "O", "B-ORG", "O"]])
    >>> gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    >>> from ner_recall.core.matching import match
    >>> counts = count(gold, pred, match(gold, pred), corpus.types, tokens_correct=2, tokens=4)
    >>> confusion(counts)
    {'same_span': {'PER': {'LOC': 1}}, 'overlap': {'ORG': {'ORG': 1}}, 'missed': {}, 'spurious': {}}
    """
    types, pairs = counts.types, counts.pairs
    out: dict[str, dict[str, Any]] = {name: {} for name in CONFUSION_SPANS}
    spans = np.array(CONFUSION_SPANS)[pairs.scenario]
    for i in np.lexsort((pairs.pred, pairs.gold, spans)).tolist():  # by span, gold, predicted type
        row = out[spans[i]].setdefault(types[pairs.gold[i]], {})
        row[types[pairs.pred[i]]] = row.get(types[pairs.pred[i]], 0) + int(pairs.n[i])
    for side in ("missed", "spurious"):
        n = getattr(counts, side)
        out[side] = {types[i]: int(n[i]) for i in np.flatnonzero(n).tolist()}
    return out


def gold_outcomes(matching: Any, n_gold: int, mode: str) -> npt.NDArray[np.int8]:
    """Each gold span's outcome in ``mode``, as its code in ``OUTCOME_CODES`` (``"missed"`` for a
    gold span not matched)."""
    table = np.array([OUTCOME_CODES[o] for o in OUTCOME_TABLE[mode]], dtype=np.int8)
    outcome = np.full(n_gold, OUTCOME_CODES["missed"], dtype=np.int8)
    outcome[matching.gold] = table[matching.scenario]
    return outcome
