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
from itertools import chain

import numpy as np

from .ner_core import Renamed, fbeta_array, fbeta_key, prf_scores, same_count

#: scenarios of a matched pair that make a prediction right, per matching
RIGHT = {"strict": (0,), "partial": (0, 2)}
DEFAULT_BINS = 10


def check_bins(bins):
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 1 <= bins <= 1000:
        raise ValueError(f"calibration_bins must be an int from 1 to 1000; got {bins!r}")
    return int(bins)


def check_threshold_from(value):
    """``threshold_from``: None, or results with a ``"ranking"`` block (a development set's)."""
    if value is None:
        return None
    ranking = value.get("ranking") if isinstance(value, dict) else None
    if not isinstance(ranking, dict) or "strict" not in ranking or "fingerprint" not in ranking:
        raise ValueError(
            "threshold_from must be the results of compute with scores=[..., 'ranking'] on a "
            "development set (its results['ranking'] gives the threshold)"
        )
    best = ranking["strict"].get("best") if isinstance(ranking["strict"], dict) else None
    threshold = best.get("threshold", "missing") if isinstance(best, dict) else "missing"
    if threshold is None:
        raise ValueError("threshold_from: those results have no threshold (no prediction had a score)")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(  # NaN fails the range too
            "threshold_from['ranking']['strict']['best']['threshold'] must be a score in [0, 1]; "
            f"got {threshold!r}"
        )
    return {"threshold": float(threshold), "fingerprint": ranking["fingerprint"]}


def check_token_scores(token_scores, lengths):
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
            sizes = np.fromiter(map(len, token_scores), dtype=np.int64, count=len(token_scores))
            values = np.concatenate(token_scores).astype(np.float64) if len(token_scores) else np.zeros(0)
            if np.array_equal(sizes, lengths) and ((values >= 0) & (values <= 1)).all():
                return _with_sentinels(values, lengths)
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


def tag_entity_scores(flat_scores, pred):
    """The mean token score of each predicted entity (flat positions)."""
    if not len(pred.start):
        return np.zeros(0)
    bounds = np.column_stack([pred.start, pred.end]).ravel()  # sums over [start, end), summed in order
    return np.add.reduceat(flat_scores, bounds)[::2] / (pred.end - pred.start)


def fingerprint(gold, pred, scores):
    """A digest of the scored set: both sides' spans and the scores (``threshold_from`` compares)."""
    digest = hashlib.sha1()
    for array in (*gold[:3], *pred[:3], scores):
        digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def right_of(n_pred, matching, scenarios):
    right = np.zeros(n_pred, dtype=bool)
    scenario = np.asarray(matching.scenario)
    right[np.asarray(matching.pred)[np.isin(scenario, scenarios)]] = True
    return right


def curve(scores, right, n_gold, order=None):
    """(thresholds, precision, recall), thresholds descending, one per distinct score; ``order``:
    the predictions by score, highest first (computed when not given)."""
    order = np.argsort(-scores, kind="stable") if order is None else order
    s, r = scores[order], right[order]
    last = np.append(np.flatnonzero(np.diff(s) != 0), len(s) - 1) if len(s) else np.zeros(0, dtype=int)
    tp = np.cumsum(r)[last] if len(s) else np.zeros(0)
    kept = last + 1
    recall = tp / n_gold if n_gold else np.zeros(len(tp))
    return s[last], tp / np.maximum(kept, 1), recall


def ranking_table(scores, right, n_gold, bins=DEFAULT_BINS, beta=1.0, with_curve=True, order=None):
    """The ranking and calibration scores of one set of scored predictions (``order``: as
    :func:`curve` takes it)."""
    fkey = fbeta_key(beta)
    thresholds, precision, recall = curve(scores, right, n_gold, order)
    ap_gold = float(np.sum(np.diff(np.concatenate(([0.0], recall))) * precision))
    found = int(np.count_nonzero(right))
    ap = ap_gold * n_gold / found if found else 0.0  # recall over the right predictions
    if len(thresholds):
        f = fbeta_array(precision, recall, beta)
        f = np.where(np.isnan(f), 0.0, f)
        k = int(np.argmax(f))
        best = {
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


def calibration(scores, right, bins=DEFAULT_BINS):
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


def threshold_scores(scores, right, n_gold, threshold, beta=1.0):
    """Precision, recall and F of the predictions scored at least ``threshold``."""
    kept = scores >= threshold
    tp, n = int(np.count_nonzero(right & kept)), int(np.count_nonzero(kept))
    return {"predicted": n, **prf_scores(tp, tp, n_gold, n, 0.0, beta)}


def ranking_results(gold, pred, matching, types, scores, options):
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
    kinds = np.asarray(pred.type)
    of_type = {k: np.flatnonzero(kinds == k) for k in range(len(types))}
    type_orders = {}
    for k, members in of_type.items():  # the type's predictions, by score, as indices into them
        local = np.full(len(scores), -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        type_orders[k] = local[order[kinds[order] == k]]
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
