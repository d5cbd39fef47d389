"""Scored predictions: how good a tagger's confidences are (the opt-in "ranking" family).

Each predicted entity carries a score: ``"score"`` in a span item (a number in [0, 1]), or in the
tag configs the mean of ``token_scores`` (the probability of each token's predicted tag) over the
entity's tokens. A prediction is **right** when the one matching pairs it with a gold entity of its
type on the same span (``strict``), or on an overlapping span (``partial``: nervaluate's
``ent_type``; the type must agree, the boundaries overlap). Ranking the predictions by score,
highest first, each distinct score is a threshold (a prediction is kept when its score is at
least the threshold):

* ``curve``: per threshold, precision (right among the kept) and recall (right kept among **every
  gold entity**, so a system that misses entities never reaches recall 1);
* ``average_precision``: scikit-learn's ``average_precision_score`` of the predictions' right/wrong
  labels ranked by score, ``sum((R_k - R_(k-1)) * P_k)`` over the thresholds, highest first, with
  recall over the right predictions: how well the scores rank right above wrong;
* ``average_precision_gold``: the same area with recall over **every gold entity** (the curve's
  recall): ``average_precision`` times the recall reached at the lowest threshold, so that a system
  that misses entities cannot score 1; the two agree when every gold entity is found;
* ``best``: the threshold of the highest F1 (the highest threshold among ties) with its precision,
  recall and F1; descriptive: **choosing** a threshold on the set it is scored on is optimistic,
  so ``threshold_from`` (a development set's results) applies a threshold, and results of the same
  set are refused there unless ``threshold_on_scored_set=True``;
* calibration: the scores cut into ``calibration_bins`` equal bins of [0, 1] (the last one closed);
  per bin with a prediction its ``count``, mean score (``confidence``) and share right
  (``accuracy``); ``ece`` = sum over the bins of ``count / predictions * |accuracy - confidence|``.

Overall and per type (the predictions of the type, against the gold entities of the type).

>>> scores = np.array([0.9, 0.8, 0.7, 0.4])
>>> right = np.array([True, False, True, False])
>>> table = ranking_table(scores, right, n_gold=3, bins=2)
>>> round(table["average_precision_gold"], 4), table["best"]["threshold"]  # (1/3)*1 + (1/3)*(2/3)
(0.5556, 0.7)
>>> round(table["average_precision"], 4)  # recall over the two right ones: (1/2)*1 + (1/2)*(2/3)
0.8333
>>> round(table["ece"], 4)  # 3/4 * |2/3 - 0.8| (bin 0.5-1) + 1/4 * |0 - 0.4| (bin 0-0.5)
0.2
"""

import hashlib
from collections.abc import Sequence
from fractions import Fraction
from itertools import chain
from numbers import Real
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ner_recall.core.registry import Family, register
from ner_recall.core.vocabulary import Renamed, SpanArrays, fbeta_array, fbeta_key, prf_scores, same_count

#: scenarios of a matched pair that make a prediction right, per matching
RIGHT = {"strict": (0,), "partial": (0, 2)}
DEFAULT_BINS = 10


def check_bins(bins: object) -> int:
    """``calibration_bins``: an int from 1 to 1000 (bool is not)."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 1 <= bins <= 1000:
        raise ValueError(f"calibration_bins must be an int from 1 to 1000; got {bins!r}")
    return int(bins)


THRESHOLD_FROM = (
    "threshold_from must be the results of compute with scores=[..., 'ranking'] on a "
    "development set (its results['ranking'] gives the threshold)"
)


def check_threshold_from(value: object) -> dict[str, Any] | None:
    """``threshold_from``: None, or results with a ``"ranking"`` block (a development set's):
    ``{"threshold", "fingerprint"}``. The threshold, ``ranking["strict"]["best"]["threshold"]``,
    must be a real number in [0, 1] (not bool, not NaN); anything else is a ``ValueError`` naming
    the option and the place."""
    if value is None:
        return None
    ranking = value.get("ranking") if isinstance(value, dict) else None
    if not isinstance(ranking, dict) or "strict" not in ranking or "fingerprint" not in ranking:
        raise ValueError(THRESHOLD_FROM)
    best = ranking["strict"].get("best") if isinstance(ranking["strict"], dict) else None
    if not isinstance(best, dict) or "threshold" not in best:
        raise ValueError(f"{THRESHOLD_FROM}; results['ranking']['strict']['best']['threshold'] is missing")
    if not isinstance(ranking["fingerprint"], str):
        raise ValueError(
            f"{THRESHOLD_FROM}; results['ranking']['fingerprint'] must be a str, got {ranking['fingerprint']!r}"
        )
    threshold = best["threshold"]
    if threshold is None:
        raise ValueError("threshold_from: those results have no threshold (no prediction had a score)")
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or not 0 <= cast(float, threshold) <= 1:
        raise ValueError(
            "threshold_from: results['ranking']['strict']['best']['threshold'] must be a number in"
            f" [0, 1]; got {threshold!r}"
        )
    return {"threshold": float(threshold), "fingerprint": ranking["fingerprint"]}


def check_token_scores(token_scores: object, lengths: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``token_scores``: per sentence, one probability in [0, 1] per tag; the flat array in the
    corpus layout (a 0 after each sentence). Checked at C speed; a problem is then located."""
    if isinstance(token_scores, (str, bytes)) or not isinstance(token_scores, (list, tuple)):
        raise ValueError(
            f"token_scores must be a list with one list of numbers per sentence; got {type(token_scores).__name__}"
        )
    lengths = np.asarray(lengths, dtype=np.int64)
    same_count("token_scores", len(token_scores), "predictions", len(lengths))
    if token_scores and set(map(type, token_scores)) == {np.ndarray}:  # a model's arrays, one per sentence
        dtypes = {row.dtype.kind for row in token_scores}
        if dtypes <= {"f", "i", "u"} and all(row.ndim == 1 for row in token_scores):
            array_sizes = np.fromiter(map(len, token_scores), dtype=np.int64, count=len(token_scores))
            array_values = (
                np.concatenate(token_scores).astype(np.float64) if len(token_scores) else np.zeros(0)
            )
            if np.array_equal(array_sizes, lengths) and ((array_values >= 0) & (array_values <= 1)).all():
                return _with_sentinels(array_values, lengths)
        token_scores = [row.tolist() for row in token_scores]  # located below
    rows_ok = set(map(type, token_scores)) <= {list, tuple}
    sizes = np.fromiter(map(len, token_scores), dtype=np.int64, count=len(token_scores)) if rows_ok else None
    if sizes is None or not np.array_equal(sizes, lengths):
        i = next(
            i
            for i, (row, n) in enumerate(zip(token_scores, lengths.tolist()))
            if not isinstance(row, (list, tuple)) or len(row) != n
        )
        raise ValueError(f"token_scores[{i}] must hold {lengths[i]} numbers, one per tag")
    flat = chain.from_iterable(token_scores)
    kinds = set(map(type, chain.from_iterable(token_scores)))
    numbers = all(
        issubclass(k, (int, float, np.integer, np.floating)) and not issubclass(k, bool) for k in kinds
    )
    values = np.fromiter(flat, dtype=np.float64, count=int(lengths.sum())) if numbers else None
    if values is None or not ((values >= 0) & (values <= 1)).all():
        for i, row in enumerate(token_scores):
            for j, v in enumerate(row):
                if isinstance(v, bool) or not _unit_number(v) or isinstance(v, (str, bytes)):
                    raise ValueError(f"token_scores[{i}][{j}] is {v!r}; a token score is a number in [0, 1]")
    return _with_sentinels(values, lengths)


def _with_sentinels(values, lengths):
    """Token values, sentences back to back, in the corpus layout: a 0 after each sentence."""
    out = np.zeros(len(values) + len(lengths))
    out[np.arange(len(values)) + np.repeat(np.arange(len(lengths)), lengths)] = values
    return out


def _unit_number(value):
    try:
        return 0 <= float(value) <= 1
    except (TypeError, ValueError):
        return False


def tag_entity_scores(flat_scores: npt.NDArray[np.float64], pred: SpanArrays) -> npt.NDArray[np.float64]:
    """The mean token score of each predicted entity (flat positions)."""
    if not len(pred.start):
        return np.zeros(0)
    bounds = np.column_stack([pred.start, pred.end]).ravel()  # sums over [start, end), summed in order
    return np.add.reduceat(flat_scores, bounds)[::2] / (pred.end - pred.start)


def fingerprint(gold: SpanArrays, pred: SpanArrays, scores: npt.NDArray[np.float64]) -> str:
    """A digest of the scored set: both sides' spans and the scores (``threshold_from`` compares)."""
    digest = hashlib.sha1()
    for array in (*gold[:3], *pred[:3], scores):
        digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def group_by_type(
    kinds: npt.NDArray[np.int64], order: npt.NDArray[np.int64], n_types: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per type code: its predictions (indices, in input order), and those by score as indices into
    them (``order``: all the predictions by score). Two stable sorts, whatever the number of types."""
    by_type = np.argsort(kinds, kind="stable")
    bounds = np.searchsorted(kinds[by_type], np.arange(n_types + 1))
    rank = np.empty(len(kinds), dtype=np.int64)  # each prediction's place among its type's
    rank[by_type] = np.arange(len(kinds)) - bounds[kinds[by_type]]
    ranked = order[np.argsort(kinds[order], kind="stable")]  # by type, by score within a type
    members = [by_type[bounds[k] : bounds[k + 1]] for k in range(n_types)]
    orders = [rank[ranked[bounds[k] : bounds[k + 1]]] for k in range(n_types)]
    return members, orders


def right_of(n_pred: int, matching: Any, scenarios: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """Per prediction: whether the matching pairs it in one of ``scenarios``."""
    right = np.zeros(n_pred, dtype=bool)
    scenario = np.asarray(matching.scenario)
    right[np.asarray(matching.pred)[np.isin(scenario, scenarios)]] = True
    return right


def _counts(
    scores: npt.NDArray[np.float64], right: npt.NDArray[np.bool_], order: npt.NDArray[np.int64] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds descending, right predictions kept, predictions kept) at each distinct score."""
    order = np.argsort(-scores, kind="stable") if order is None else order
    s, r = scores[order], right[order]
    last = np.append(np.flatnonzero(np.diff(s) != 0), len(s) - 1) if len(s) else np.zeros(0, dtype=int)
    tp = np.cumsum(r)[last] if len(s) else np.zeros(0, dtype=np.int64)
    return s[last], tp, last + 1


def best_index(tp: npt.ArrayLike, kept: npt.ArrayLike, n_gold: int, beta: float = 1.0) -> int:
    """The threshold of the highest F, the highest threshold (first: they descend) among exact ties:
    ``F = (1 + b**2) tp / (b**2 n_gold + kept)`` compared as fractions, ``b**2`` the exact square of
    the float ``beta``, so that rounding decides no tie (floats only shortlist)."""
    tp, kept = np.asarray(tp, dtype=np.int64), np.asarray(kept, dtype=np.int64)
    b2 = Fraction(beta) ** 2
    approximate = tp / (float(b2) * n_gold + np.maximum(kept, 1))
    top = float(approximate.max(initial=0.0))
    if top <= 0:
        return 0
    near = np.flatnonzero(approximate >= top * (1 - 1e-9)).tolist()
    exact = [Fraction(int(tp[i])) / (b2 * n_gold + int(kept[i])) for i in near]
    return near[exact.index(max(exact))]


def ranking_table(
    scores: npt.NDArray[np.float64],
    right: npt.NDArray[np.bool_],
    n_gold: int,
    bins: int = DEFAULT_BINS,
    beta: float = 1.0,
    with_curve: bool = True,
    order: npt.NDArray[np.int64] | None = None,
) -> dict[str, Any]:
    """The ranking and calibration scores of one set of scored predictions (``order``: as
    ``_counts`` takes it)."""
    fkey = fbeta_key(beta)
    thresholds, tp, kept = _counts(scores, right, order)
    precision = tp / np.maximum(kept, 1)
    recall = tp / n_gold if n_gold else np.zeros(len(tp))
    ap_gold = float(np.sum(np.diff(np.concatenate(([0.0], recall))) * precision))
    found = int(np.count_nonzero(right))
    ap = ap_gold * n_gold / found if found else 0.0  # recall over the right predictions
    if len(thresholds):
        f = fbeta_array(precision, recall, beta)
        f = np.where(np.isnan(f), 0.0, f)
        k = best_index(tp, kept, n_gold, beta)
        best: dict[str, float | None] = {
            "threshold": float(thresholds[k]),
            "precision": float(precision[k]),
            "recall": float(recall[k]),
            fkey: float(f[k]),
        }
    else:
        best = {"threshold": None, "precision": 0.0, "recall": 0.0, fkey: 0.0}
    table = Renamed(
        average_precision=ap,
        average_precision_gold=ap_gold,
        best=best,
        predicted=int(len(scores)),
        number=int(n_gold),
    )
    table.update(calibration(scores, right, bins))
    if with_curve:
        table["curve"] = {
            "thresholds": thresholds.tolist(),
            "precision": precision.tolist(),
            "recall": recall.tolist(),
        }
    return table


def calibration(
    scores: npt.NDArray[np.float64], right: npt.NDArray[np.bool_], bins: int = DEFAULT_BINS
) -> dict[str, Any]:
    """``ece`` and the ``reliability`` table of equal-width bins of [0, 1]."""
    n = len(scores)
    at = np.minimum((scores * bins).astype(np.int64), bins - 1)
    count = np.bincount(at, minlength=bins)
    confidence = np.bincount(at, weights=scores, minlength=bins)
    hits = np.bincount(at, weights=right.astype(float), minlength=bins)
    rows, ece = [], 0.0
    for b in np.flatnonzero(count).tolist():
        c, conf, acc = int(count[b]), confidence[b] / count[b], hits[b] / count[b]
        ece += c / n * abs(acc - conf)
        rows.append(
            {
                "lower": b / bins,
                "upper": (b + 1) / bins,
                "count": c,
                "confidence": float(conf),
                "accuracy": float(acc),
            }
        )
    return {"ece": float(ece), "reliability": rows}


def threshold_scores(
    scores: npt.NDArray[np.float64],
    right: npt.NDArray[np.bool_],
    n_gold: int,
    threshold: float,
    beta: float = 1.0,
) -> dict[str, Any]:
    """Precision, recall and F of the predictions scored at least ``threshold``."""
    kept = scores >= threshold
    tp, n = int(np.count_nonzero(right & kept)), int(np.count_nonzero(kept))
    return {"predicted": n, **prf_scores(tp, tp, n_gold, n, 0.0, beta)}


def ranking_results(
    gold: SpanArrays,
    pred: SpanArrays,
    matching: Any,
    types: Sequence[str],
    scores: npt.NDArray[np.float64],
    options: Any,
) -> dict[str, Any]:
    """``results["ranking"]``: per matching (strict, partial), the table overall and per type;
    the set's ``fingerprint``; with ``threshold_from``, the threshold ``applied``."""
    beta, bins = options.beta, options.ranking["bins"]
    out = {"bins": bins, "fingerprint": fingerprint(gold, pred, scores)}
    chosen = options.ranking["threshold_from"]
    if (
        chosen is not None
        and chosen["fingerprint"] == out["fingerprint"]
        and not options.ranking["on_scored_set"]
    ):
        raise ValueError(
            "threshold_from holds the results of this very set: a threshold chosen on the set it is "
            "scored on is optimistic; take it from a development set, or pass "
            "threshold_on_scored_set=True to do it knowingly"
        )
    gold_types = np.bincount(gold.type, minlength=len(types))
    order = np.argsort(-scores, kind="stable")  # one sort serves every table
    of_type, type_orders = group_by_type(np.asarray(pred.type, dtype=np.int64), order, len(types))
    for name, scenarios in RIGHT.items():
        right = right_of(len(pred), matching, scenarios)
        table = ranking_table(scores, right, len(gold), bins, beta, order=order)
        table["per_type"] = {
            t: ranking_table(
                scores[of_type[k]], right[of_type[k]], int(gold_types[k]), bins, beta, order=type_orders[k]
            )
            for k, t in enumerate(types)
            if gold_types[k] or len(of_type[k])
        }
        if chosen is not None:
            table["applied"] = threshold_scores(scores, right, len(gold), chosen["threshold"], beta)
        out[name] = table
    if chosen is not None:
        out["threshold"] = chosen["threshold"]
    return out


# ---------------------------------------------------------------------------- the family


def _view(view: Any) -> Any:
    return view


def _ranking(view: Any, _: Any) -> dict[str, Any]:
    return ranking_results(view.gold, view.pred, view.matching, view.types, view.pred_scores, view.options)


register(
    Family(
        "ranking",
        "ranking",
        _view,
        _ranking,
        returns="""ranking (dict, with "ranking" in scores: span items with a "score", or token_scores):
    "bins" (int), "fingerprint" (str, of the scored set: threshold_from refuses its own) and per
    matching ("strict", "partial") "average_precision", "average_precision_gold", "ece"
    (float), "curve" (per threshold: "threshold", "precision", "recall"), "best" (the
    threshold of the highest F with its scores), "calibration" (per bin: "count",
    "confidence", "accuracy") and "per_type" {TYPE: the same}; with threshold_from, "applied"
    (the threshold and its scores here); see docs/ranking.md.""",
        supports=frozenset({"discontinuous", "golds"}),
        module=__name__,
    )
)
