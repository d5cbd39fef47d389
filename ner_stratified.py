"""Stratum-weighted recall with confidence intervals.

Pure statistics for the NER recall metric: it knows nothing of spans, tags or
``evaluate``; it works on per-stratum counts only, so it is fast for any corpus.

Every gold entity belongs to one stratum (subgroup, population) p and earns a
credit c_i of 1 (found), 0.5 (partial credit) or 0. Stratum p has n_p gold
entities, ``full`` of them with credit 1 and ``half`` with credit 0.5, so its
credit is correct_p = full_p + half_p / 2 and its recall r_p = correct_p / n_p.
The estimate is R = sum_p W_p r_p, the W_p being the strata's population shares
(the EstNLTK recall benchmarks sample each population separately and weight
the recalls by the populations' estimated sizes).

Interval methods (``ci_method``); z is the normal quantile of the level:

* ``"weighted_wald"`` -- the published EstNLTK formula: item weights
  w_i = W_p / n_p, SE^2 = R(1 - R) sum_i w_i^2, R +/- z SE. It uses the tabled
  z rounded to two decimals (1.96 at 95%), as the publication did: that
  reproduces the published amundsen_01 interval to 1e-15, the exact quantile
  only to 8e-7.
* ``"stratified_wald"`` -- SE^2 = sum_p W_p^2 r_p(1 - r_p) / n_p, R +/- z SE
  (with half credits r_p(1 - r_p) bounds the item variance from above).
* ``"wilson"`` (default) -- Wilson score interval at the design-based effective
  sample size; see below. Its standard error is sqrt(V) of step 2.
* ``"korn_graubard"`` -- Clopper-Pearson at the same effective sample size as
  ``"wilson"`` (Korn & Graubard 1998; without their degrees-of-freedom factor),
  conservative. Its standard error is wilson's.
* ``"bootstrap"`` -- stratified percentile bootstrap: each stratum's
  (full, half, zero) counts are redrawn from a multinomial at its observed
  shares; with estimated sizes every positive_p is redrawn from
  Binomial(labelled_p, q_p) as well (with replacement: no finite-population
  correction). Its standard error is the standard deviation of the resampled
  estimates. Seeded by ``seed``.

Both Wald intervals are clipped to [0, 1]; they collapse to a point when every
stratum's recall is 0 or 1.

Design of the ``"wilson"`` interval (z the normal quantile, kappa = z^2 / 2):

1. Each stratum's per-item variance is taken at its Wilson midpoint: with kappa
   pseudo-items of credit 1 and kappa of credit 0,
   r~_p = (correct_p + kappa) / (n_p + 2 kappa) and
   s~_p^2 = (full_p + half_p/4 + kappa) / (n_p + 2 kappa) - r~_p^2, which is
   r~_p(1 - r~_p) when there are no half credits. A stratum whose recall is 0
   or 1 thus keeps a positive variance (the plug-in one is 0).
2. V = sum_p (W_p^2 / n_p) g_p [s~_p^2 + (1 - q_p)(r~_p - R~)^2],
   R~ = sum_p W_p r~_p. The second term is the delta-method variance of the
   estimated sizes size_p = positive_p occurences_p / labelled_p,
   q_p = positive_p / labelled_p; it is 0 (q_p = 1) when the sizes are known.
   g_p = 1 - labelled_p / occurences_p is the finite-population correction:
   the labelled_p candidates are drawn without replacement from occurences_p,
   so the n_p entities among them are a without-replacement sample of the
   size_p entities at the same fraction n_p / size_p, and one factor corrects
   both terms. With g_p this is the textbook linearisation variance of the
   combined ratio estimator under stratified sampling without replacement
   (Cochran 1977, ch. 6), with divisors n_p, not n_p - 1, as in Wilson's
   p(1 - p) / n. The estimand is then the recall over the corpus's entities.
   g_p = 1 (no correction) when the sizes are numbers (the fractions are
   unknown) and where labelled_p > occurences_p (inconsistent counts, such as
   amundsen_02's population I; warned about); g_p = 0 when every candidate was
   labelled (a census: no sampling error).
3. Effective sample size n_eff = R~(1 - R~) / V (Kish's n / deff), not capped
   at n: stratification and half credits legitimately make it exceed n, and
   there a cap only widens the interval (up to 4.5%, plain recall) where
   coverage is already in band (``bench/ci_coverage.py --design-checks``). It
   is defined even when R is 0 or 1, because R~ and V are smoothed; with one
   stratum and no half credits n_eff = n / g exactly; it is infinite (the
   interval is the point R) when every stratum is a census.
4. The Wilson score interval for proportion R at n_eff trials. For a stratum
   without half credits taken alone that is the textbook Wilson interval for
   r_p at n_p (at n_p / g_p with a correction); at R = 0 it is
   [0, z^2 / (n_eff + z^2)].

Why kappa = z^2/2 and no cap (``bench/ci_coverage.py`` scenarios, 60,000 to
200,000 replicates): with the (c + 1/2)/(n + 1) smoothing, tiny strata (4-6
items) cover 0.936 and very different recalls 0.941; kappa = 1 gives 0.948 and
0.942; kappa = z^2/2 gives 0.954 and 0.946, and 0.963 for 30 items in all, its
highest. A Student-t factor on n_eff (Satterthwaite degrees of freedom) was
tried and rejected: wider than the published interval where that covers, and
0.97 for tiny strata at extreme recalls. Known limit: when a stratum of about
5 items carries half the weight the estimate is nearly as discrete as a
Binomial(5, r), and coverage is 0.91.

Why the finite-population correction (``bench/ci_coverage.py``'s corpus design,
2,000,000 replicates; ``--design-checks`` reruns the figures with the
correction and the published formula's): with estimated sizes the mean of V is
0.36% below the true variance of R with it and 0.54% above without it
(amundsen_01 shape; amundsen_02: -0.22% and +1.32%); the published formula's
is 1.32% below (+1.43%). In the amundsen_01 row (200,000 replicates) wilson
covers 0.9498 with mean width 0.08987 (without the correction 0.9510 / 0.09019 at 100,000),
weighted_wald 0.9478 / 0.08978, narrower only because its variance is low; no
principled change makes wilson as narrow there. Measured (100,000 replicates)
and rejected: kappa = 1 (0.08986; but 0.948 for 30 items and 0.854 when 5 items
carry half the weight), kappa only in strata of recall 0 or 1 (0.08985; 0.936
for very different recalls), plug-in recalls in the size term (wider: 0.0904
without the correction), and subtracting the estimated Var(r_p - R) from
(r_p - R)^2 (0.08978, a tie, got by correcting one second-order term of the
linearisation, not the others, in a V that is already low).

``bench/ci_coverage.py`` measures the coverage of all methods by simulation.
The per-stratum intervals in the result are each method's interval for the
stratum taken alone (one stratum of weight 1, with its g_p).
"""
import math
import numbers
import warnings
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from scipy import stats

CI_METHODS = ("bootstrap", "korn_graubard", "stratified_wald", "weighted_wald", "wilson")
SIZE_KEYS = ("occurences", "labelled", "positive")


def stratified_recall(strata, subgroup_weights=None, *, ci_method="wilson", confidence_level=0.95,
                      n_bootstrap=10_000, seed=0):
    """Stratum-weighted recall of gold entities with a confidence interval.

    Args:
        strata: ``{name: (n, full, half)}``; n gold entities of the stratum, ``full`` with
            credit 1, ``half`` with credit 0.5 (ints; names str). Strata with n = 0 are ignored
            unless ``subgroup_weights`` names them, which is an error.
        subgroup_weights: ``None`` (weights n_p / N: the estimate is plain recall); or
            ``{name: positive number}`` (relative population sizes); or
            ``{name: {"occurences": int, "labelled": int, "positive": int}}`` (estimated sizes
            positive * occurences / labelled, as in the EstNLTK benchmarks).
        ci_method: one of ``CI_METHODS``; see the module docstring.
        confidence_level: in (0, 1).
        n_bootstrap: resamples for ``"bootstrap"``.
        seed: seed of ``numpy.random.default_rng`` for ``"bootstrap"``.

    Returns:
        dict with ``recall``, ``ci_low``, ``ci_high``, ``standard_error``, ``confidence_level``,
        ``method``, ``n`` (gold entities), ``correct`` (total credit) and ``strata``:
        ``{name: {"n", "correct", "recall", "weight", "ci_low", "ci_high"}}`` sorted by name,
        each interval the method's interval for that stratum alone. Plain float / int.

    >>> res = stratified_recall({"a": (10, 8, 0), "b": (5, 2, 2)}, {"a": 1, "b": 3})
    >>> round(res["recall"], 4), round(res["ci_low"], 4), round(res["ci_high"], 4)
    (0.65, 0.3611, 0.8592)
    >>> res["strata"]["b"]["weight"], res["strata"]["b"]["recall"]
    (0.75, 0.6)
    """
    check_interval_options(ci_method, confidence_level, n_bootstrap, seed)
    names, n, full, half = _parse_strata(strata)
    sizes, q, labelled, occurences = _parse_weights(subgroup_weights, names, n)
    keep = n > 0   # a stratum without gold entities carries no information
    names = [name for name, k in zip(names, keep) if k]
    n, full, half, sizes, q = n[keep], full[keep], half[keep], sizes[keep], q[keep]
    if labelled is not None:
        labelled, occurences = labelled[keep], occurences[keep]
    arrays = stratified_recall_arrays(
        n, full, half, sizes, q=q, labelled=labelled, occurences=occurences, ci_method=ci_method,
        confidence_level=confidence_level, n_bootstrap=n_bootstrap, rng=np.random.default_rng(seed),
        per_stratum=True)
    return _result(names, n, full, half, sizes, arrays, ci_method, confidence_level)


def _result(names, n, full, half, sizes, arrays, ci_method, confidence_level):
    """The returned dict, in plain Python numbers."""
    recall, low, high, se = (float(a[0]) for a in arrays[:4])
    alone_low, alone_high = arrays[4][0], arrays[5][0]
    correct = full + 0.5 * half
    weights = sizes / sizes.sum()
    strata = {name: {"n": int(n[i]), "correct": float(correct[i]),
                     "recall": float(correct[i] / n[i]), "weight": float(weights[i]),
                     "ci_low": float(alone_low[i]), "ci_high": float(alone_high[i])}
              for i, name in enumerate(names)}
    return {"recall": recall, "ci_low": low, "ci_high": high, "standard_error": se,
            "confidence_level": float(confidence_level), "method": ci_method,
            "n": int(n.sum()), "correct": float(correct.sum()), "strata": strata}


# ----------------------------------------------------------------------------- validation

def _is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_interval_options(ci_method, confidence_level, n_bootstrap, seed):
    """Validate the interval options of :func:`stratified_recall`; raise ``ValueError`` naming the bad one."""
    if ci_method not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {list(CI_METHODS)}; got {ci_method!r}")
    if not (_is_real(confidence_level) and 0 < confidence_level < 1):
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    if not (_is_int(n_bootstrap) and n_bootstrap > 0):
        raise ValueError(f"n_bootstrap must be a positive int; got {n_bootstrap!r}")
    if not (seed is None or (_is_int(seed) and seed >= 0)):
        raise ValueError(f"seed must be a non-negative int or None; got {seed!r}")


def _check_name(name, where):
    if not isinstance(name, str):
        raise ValueError(f"subgroup names must be str; got {name!r} in {where}")


def _parse_strata(strata):
    """Sorted names and the n, full, half arrays of ``strata``."""
    if not isinstance(strata, Mapping):
        raise ValueError(f"strata must be a mapping {{name: (n, full, half)}}; got {type(strata).__name__}")
    for name in strata:
        _check_name(name, "strata")
    names = sorted(strata)
    rows = [_stratum_counts(name, strata[name]) for name in names]
    if sum(row[0] for row in rows) == 0:
        raise ValueError("no gold entity at all: strata is empty or every n is 0")
    n, full, half = (np.array(col, dtype=float) for col in zip(*rows))
    return names, n, full, half


def _stratum_counts(name, counts):
    """(n, full, half) of one stratum, validated."""
    if not (isinstance(counts, (tuple, list)) and len(counts) == 3 and all(map(_is_int, counts))):
        raise ValueError(f"strata[{name!r}] must be a tuple of 3 ints (n, full, half); got {counts!r}")
    n, full, half = (int(c) for c in counts)
    if min(n, full, half) < 0 or full + half > n:
        raise ValueError(f"strata[{name!r}] = {counts!r} needs 0 <= full, half and full + half <= n")
    return n, full, half


def _parse_weights(weights, names, n):
    """Population sizes, q_p = positive_p / labelled_p (1 if sizes are known), labelled_p and
    occurences_p (None if sizes are known), aligned with ``names``; zero where a stratum has n = 0."""
    ones = np.ones(len(names))
    if weights is None:
        return n.copy(), ones, None, None
    if not isinstance(weights, Mapping):
        raise ValueError(f"subgroup_weights must be None or a mapping; got {type(weights).__name__}")
    _match_names(weights, names, n)
    values = [weights.get(name) for name in names]
    kinds = {isinstance(v, Mapping) for v in weights.values()}
    if len(kinds) > 1:
        raise ValueError("subgroup_weights mixes numbers and {'occurences', 'labelled', 'positive'} "
                         "mappings; use one form for every subgroup")
    if kinds == {False}:
        sizes = [0.0 if v is None else _number_weight(name, v) for name, v in zip(names, values)]
        return np.array(sizes), ones, None, None
    rows = []
    for name, v in zip(names, values):   # a loop, so that the warning's stacklevel is exact
        rows.append((0, 1, 0) if v is None else _size_row(name, v))
    occurences, labelled, positive = (np.array(col, dtype=float) for col in zip(*rows))
    return positive * occurences / labelled, positive / labelled, labelled, occurences


def _match_names(weights, names, n):
    for name in weights:
        _check_name(name, "subgroup_weights")
    present = {name for name, count in zip(names, n) if count > 0}
    unweighted = sorted(present - set(weights))
    if unweighted:
        raise ValueError(f"subgroup {unweighted[0]!r} occurs in the data but has no entry in subgroup_weights")
    absent = sorted(set(weights) - present)
    if absent:
        raise ValueError(f"subgroup {absent[0]!r} in subgroup_weights has no gold entity in the data")


def _number_weight(name, value):
    if not (_is_real(value) and math.isfinite(value) and value > 0):
        raise ValueError(f"subgroup_weights[{name!r}] must be a positive finite number; got {value!r}")
    return float(value)


def _size_row(name, value):
    """(occurences, labelled, positive) of one subgroup, validated."""
    if set(value) != set(SIZE_KEYS):
        raise ValueError(f"subgroup_weights[{name!r}] must have exactly the keys {list(SIZE_KEYS)}; "
                         f"got {sorted(map(str, value))}")
    occurences, labelled, positive = (value[key] for key in SIZE_KEYS)
    for key in SIZE_KEYS:
        if not (_is_int(value[key]) and value[key] > 0):
            raise ValueError(f"subgroup_weights[{name!r}]: {key} must be a positive int; got {value[key]!r}")
    if labelled < positive:
        raise ValueError(f"subgroup_weights[{name!r}]: labelled ({labelled}) < positive ({positive})")
    if labelled > occurences:
        warnings.warn(f"subgroup_weights[{name!r}]: labelled ({labelled}) > occurences ({occurences}); "
                      "the size estimate positive * occurences / labelled is used as given, "
                      "without a finite-population correction",
                      UserWarning, stacklevel=4)
    return int(occurences), int(labelled), int(positive)


# ----------------------------------------------------------------------------- vectorised core

class _Sample(NamedTuple):
    """Counts of m replicates x P strata, float arrays of shape (m, P)."""
    n: np.ndarray
    full: np.ndarray
    half: np.ndarray
    sizes: np.ndarray
    q: np.ndarray
    labelled: np.ndarray | None
    fpc: np.ndarray      # finite-population correction 1 - labelled / occurences (1: none)
    weights: np.ndarray
    recall: np.ndarray   # per stratum
    total: np.ndarray    # R, shape (m,)


def stratified_recall_arrays(n, full, half, sizes, *, q=None, labelled=None, occurences=None,
                             ci_method="wilson", confidence_level=0.95, n_bootstrap=10_000, rng=None,
                             per_stratum=False):
    """Vectorised core of ``stratified_recall`` for m replicates at once, without validation.

    ``n``, ``full``, ``half``, ``sizes`` (population sizes, any scale), ``q`` (positive /
    labelled; default 1: sizes known), ``labelled`` and ``occurences`` (None: sizes known, no
    finite-population correction) broadcast to shape (m, P). A stratum with n = 0 must have
    size 0; it then counts for nothing.
    Returns four arrays of shape (m,): recall, ci_low, ci_high, standard_error; with
    ``per_stratum`` also ci_low and ci_high of each stratum alone, shape (m, P).

    >>> r, lo, hi, se = stratified_recall_arrays([[10], [10]], [[7], [10]], [[0], [0]], [[1], [1]])
    >>> r.tolist(), hi.tolist()  # doctest: +ELLIPSIS
    ([0.7, 1.0], [0.8922..., 1.0])
    """
    sample = _sample(n, full, half, sizes, q, labelled, _fpc(labelled, occurences))
    if ci_method == "bootstrap":
        totals, recalls = _bootstrap(sample, n_bootstrap, rng or np.random.default_rng())
        low, high, se = _percentile(totals, confidence_level)
        alone = _percentile(recalls, confidence_level)[:2]
    else:
        z = stats.norm.ppf(0.5 + confidence_level / 2)
        low, high, se = _INTERVALS[ci_method](sample, z)
        if per_stratum:
            single = _sample(*(a.reshape(-1, 1) for a in (sample.n, sample.full, sample.half,
                                                          sample.n > 0)),
                             None, None, sample.fpc.reshape(-1, 1))
            alone = (a.reshape(sample.n.shape) for a in _INTERVALS[ci_method](single, z)[:2])
    result = (sample.total, low, high, se)
    return result + tuple(alone) if per_stratum else result


def _fpc(labelled, occurences):
    """Finite-population correction 1 - labelled / occurences; 1 (none) where sizes are known
    or labelled > occurences (inconsistent counts, warned about), 0 for a census."""
    if labelled is None or occurences is None:
        return 1.0
    labelled, occurences = np.asarray(labelled, dtype=float), np.asarray(occurences, dtype=float)
    return np.where(labelled > occurences, 1.0, 1 - _ratio(labelled, occurences))


def _sample(n, full, half, sizes, q, labelled, fpc=1.0):
    """The counts as a _Sample of float arrays (m, P), with weights and recalls."""
    n, full, half, sizes = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (n, full, half, sizes))
    n, full, half, sizes = np.broadcast_arrays(n, full, half, sizes)
    q = np.ones_like(n) if q is None else np.broadcast_to(np.asarray(q, dtype=float), n.shape)
    if labelled is not None:
        labelled = np.broadcast_to(np.asarray(labelled, dtype=float), n.shape)
    fpc = np.broadcast_to(np.asarray(fpc, dtype=float), n.shape)
    weights = _ratio(sizes, sizes.sum(axis=-1, keepdims=True))
    recall = _ratio(full + 0.5 * half, n)
    return _Sample(n, full, half, sizes, q, labelled, fpc, weights, recall, (weights * recall).sum(-1))


def _ratio(a, b):
    """a / b, 0 where b == 0."""
    return np.divide(a, b, out=np.zeros(np.broadcast(a, b).shape), where=b != 0)


def _wald(total, se, z):
    return np.clip(total - z * se, 0, 1), np.clip(total + z * se, 0, 1), se


def _weighted_wald(s, z):
    """Published formula: SE^2 = R(1 - R) sum_i w_i^2, w_i = W_p / n_p; z to two decimals."""
    se = np.sqrt(s.total * (1 - s.total) * _ratio(s.weights**2, s.n).sum(-1))
    return _wald(s.total, se, round(float(z), 2))


def _stratified_wald(s, z):
    """SE^2 = sum_p W_p^2 r_p(1 - r_p) / n_p."""
    variance = (_ratio(s.weights**2, s.n) * s.recall * (1 - s.recall)).sum(-1)
    return _wald(s.total, np.sqrt(variance), z)


def _design(s, z):
    """Smoothed stratified variance V and effective sample size n_eff = R~(1 - R~) / V, each
    stratum's variance taken at its Wilson midpoint (z^2/2 pseudo-items of credit 1 and of 0)
    and finite-population corrected; n_eff is inf where V = 0 (every stratum a census)."""
    kappa = z**2 / 2
    r = (s.full + 0.5 * s.half + kappa) / (s.n + 2 * kappa)
    item_variance = (s.full + 0.25 * s.half + kappa) / (s.n + 2 * kappa) - r**2
    total = (s.weights * r).sum(-1, keepdims=True)
    spread = item_variance + (1 - s.q) * (r - total) ** 2
    variance = (_ratio(s.weights**2, s.n) * s.fpc * spread).sum(-1)
    total = total[..., 0]
    n_eff = np.divide(total * (1 - total), variance, out=np.full(variance.shape, np.inf),
                      where=variance > 0)
    return variance, n_eff


def _wilson(s, z):
    """Wilson score interval for R at n_eff trials."""
    variance, n_eff = _design(s, z)
    p, k = s.total, z**2 / n_eff
    centre = (p + k / 2) / (1 + k)
    half_width = np.sqrt(k * p * (1 - p) + k**2 / 4) / (1 + k)
    low = np.where(p <= 0, 0.0, np.clip(centre - half_width, 0, p))
    high = np.where(p >= 1, 1.0, np.clip(centre + half_width, p, 1))
    return low, high, np.sqrt(variance)


def _korn_graubard(s, z):
    """Clopper-Pearson for R at n_eff trials (x = R n_eff successes)."""
    variance, n_eff = _design(s, z)
    census = np.isinf(n_eff)   # no sampling error: the interval is the point
    n_eff = np.where(census, 1.0, n_eff)
    alpha = 2 * stats.norm.sf(z)
    x = s.total * n_eff
    tiny = np.finfo(float).tiny
    low = stats.beta.ppf(alpha / 2, np.maximum(x, tiny), n_eff - x + 1)
    high = stats.beta.ppf(1 - alpha / 2, x + 1, np.maximum(n_eff - x, tiny))
    low = np.where(s.total <= 0, 0.0, np.minimum(low, s.total))
    high = np.where(s.total >= 1, 1.0, np.maximum(high, s.total))
    return np.where(census, s.total, low), np.where(census, s.total, high), np.sqrt(variance)


def _bootstrap(s, n_bootstrap, rng):
    """Stratified bootstrap, all resamples at once: estimates (m, B) and stratum recalls (m, P, B).
    The resample axis is last, so consecutive binomial draws share their parameters."""
    shape = s.n.shape + (n_bootstrap,)
    n = np.broadcast_to(s.n[..., None], shape).astype(np.int64)
    full = rng.binomial(n, _ratio(s.full, s.n)[..., None])
    half = rng.binomial(n - full, _ratio(s.half, s.n - s.full)[..., None]) if s.half.any() else 0
    recalls = _ratio(full + 0.5 * half, n)
    weights = s.weights[..., None]
    if s.labelled is not None:
        labelled = np.broadcast_to(s.labelled[..., None], shape).astype(np.int64)
        positive = rng.binomial(labelled, s.q[..., None])
        sizes = _ratio(s.sizes, s.q * s.labelled)[..., None] * positive
        weights = _ratio(sizes, sizes.sum(-2, keepdims=True))
    return (weights * recalls).sum(-2), recalls


def _percentile(resamples, confidence_level):
    """Percentile interval and standard deviation over the last axis."""
    alpha = 1 - confidence_level
    low, high = np.quantile(resamples, [alpha / 2, 1 - alpha / 2], axis=-1)
    se = resamples.std(axis=-1, ddof=1) if resamples.shape[-1] > 1 else np.zeros(low.shape)
    return low, high, se


_INTERVALS = {"korn_graubard": _korn_graubard, "stratified_wald": _stratified_wald,
              "weighted_wald": _weighted_wald, "wilson": _wilson}
