"""Stratum-weighted recall with confidence intervals.

Pure statistics for the NER recall metric: it knows nothing of spans, tags or
``evaluate``; it works on per-stratum counts only, so it is fast for any corpus.

Every gold entity belongs to one stratum (subgroup, population) p and earns a
credit c_i of 1 (found), 0.5 (partial credit) or 0. Stratum p has n_p gold
entities, ``full`` of them with credit 1 and ``half`` with credit 0.5, so its
credit is correct_p = full_p + half_p / 2 and its recall r_p = correct_p / n_p.
The estimate is R = sum_p W_p r_p, the W_p being the strata's population shares
(the EstNLTK recall benchmarks sample each population separately and weight
the recalls by the populations' estimated sizes). Shares are computed from the
weights exactly (fractions), so huge or tiny weights neither overflow nor
underflow, and every result satisfies 0 <= ci_low <= recall <= ci_high <= 1.
Strata are processed in the order of their names: reordering them, or the
sentences they were counted from, gives identical (``==``) results.

With estimated sizes (``{"occurences", "labelled", "positive"}`` per stratum),
size_p = positive_p occurences_p / labelled_p, q_p = positive_p / labelled_p and
g_p = 1 - labelled_p / occurences_p is the finite-population correction (the
labelled_p candidates were drawn without replacement from occurences_p; g_p = 1
when the sizes are plain numbers or labelled_p > occurences_p, which is warned
about; g_p = 0 for a census). Every method but ``weighted_wald`` uses g_p and the
size-estimation term (1 - q_p)(r_p - R)^2 of the combined ratio estimator's
linearisation variance (Cochran 1977, ch. 6).

Interval methods (``ci_method``); z is the normal quantile of the level:

* ``"wilson"`` (default) -- Wilson score interval at the design effective
  sample size, with the Jeffreys bound near 0 and 1 (below). Its standard
  error is sqrt(V) of step 2.
* ``"weighted_wald"`` -- the published EstNLTK formula: item weights
  w_i = W_p / n_p, SE^2 = R(1 - R) sum_i w_i^2, R +/- z SE. At the 95% level
  it uses z = 1.96, as the publication did (that reproduces the published
  amundsen_01 interval to 1e-15, the exact quantile only to 8e-7); at every
  other level the exact quantile.
* ``"stratified_wald"`` -- SE^2 = sum_p (W_p^2 / n_p) g_p [s_p^2 + (1 - q_p)
  (r_p - R)^2], s_p^2 the item variance with divisor n_p - 1 (0 when n_p = 1).
  Large-sample only: it collapses to the point R when every stratum's recall
  is 0 or 1.
* ``"korn_graubard"`` -- Clopper-Pearson at the same effective sample size as
  ``"wilson"`` (Korn & Graubard 1998; without their degrees-of-freedom factor),
  conservative. Its standard error is wilson's.
* ``"bootstrap"`` -- stratified percentile bootstrap with the McCarthy-Snowden
  (Rao-Wu) rescaling: each stratum's credits are redrawn as n_p - 1 items
  with replacement at its observed shares (n_p - 1 draws make the resampling
  variance the unbiased s_p^2 / n_p), shrunk towards r_p by sqrt(g_p); with
  estimated sizes positive_p is redrawn likewise from labelled_p - 1
  candidates. A stratum of recall 0 or 1 cannot vary under resampling (warned
  about). Resamples are drawn in chunks and the percentiles found by exact
  selection over repeated passes, so memory does not grow with
  ``n_bootstrap`` (``BOOTSTRAP_CELLS``, ``SELECT_CELLS``). Each stratum's own
  interval is the exact percentile interval of its resampling distribution
  (the limit of many resamples). Its standard error is the standard deviation
  of the resampled estimates. Seeded by ``seed``.

Both Wald intervals are clipped to [0, 1].

Design of the ``"wilson"`` interval (kappa = KAPPA = 1.96^2 / 2 at every level,
so that the standard error does not depend on ``confidence_level``):

1. Each stratum's per-item variance is taken at its Wilson midpoint: with kappa
   pseudo-items of credit 1 and kappa of credit 0,
   r~_p = (correct_p + kappa) / (n_p + 2 kappa) and
   s~_p^2 = (full_p + half_p/4 + kappa) / (n_p + 2 kappa) - r~_p^2. A stratum
   whose recall is 0 or 1 thus keeps a positive variance.
2. V = sum_p (W_p^2 / n_p) g_p [s~_p^2 + (1 - q_p)(r~_p - R~)^2],
   R~ = sum_p W_p r~_p (divisors n_p, as in Wilson's p(1 - p) / n).
3. Effective sample size n_eff = R~(1 - R~) / V (Kish's n / deff), not capped
   at n (``bench/ci_design.md``); with one stratum and no half credits
   n_eff = n / g exactly; infinite (the interval is the point R) when every
   stratum is a census.
4. The Wilson score interval for proportion R at n_eff trials, except that on
   a side with at most ``BOUNDARY_COUNT`` = 3.5 effective items beyond it
   (R n_eff hits for the lower bound, (1 - R) n_eff misses for the upper one)
   the Jeffreys bound Beta(x + 1/2, n_eff - x + 1/2) is taken where it is
   wider: Wilson's own bound there is too tight (Brown, Cai & DasGupta 2001
   modify it the same way), e.g. 92.0% coverage at 95% for 200 entities at
   recall 0.995 (98.1% with the Jeffreys bound; ``bench/ci_design.md``).

``bench/ci_coverage.py`` measures every method's coverage at 90% and 95%, by
exact enumeration where the outcome space allows, and ``docs/stratified-recall.md``
shows its tables and the rule for choosing a method. The per-stratum intervals
in the result are each method's interval for the stratum taken alone (one
stratum of weight 1, with its g_p).
"""

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import stats

from ner_recall.core.vocabulary import OUTCOME_CODES, SIZE_KEYS, check_confidence_level, check_seed, is_int

CI_METHODS = ("bootstrap", "korn_graubard", "stratified_wald", "weighted_wald", "wilson")
#: pseudo-items of credit 1 and of credit 0 per stratum in the variance of the default interval
KAPPA = 1.959963984540054**2 / 2
#: effective hits (misses) at or below which the default interval's lower (upper) bound is Jeffreys'
BOUNDARY_COUNT = 3.5
#: ints of the estimated-size form must stay below this (they are drawn as int64 by the bootstrap)
MAX_COUNT = 2**63
#: numbers held at once by the bootstrap (resampled credits of every stratum)
BOOTSTRAP_CELLS = 1_000_000
_Z95 = 1.959963984540054


def stratified_recall(
    strata: Mapping[str, tuple[int, int, int]],
    subgroup_weights: Mapping[str, object] | None = None,
    *,
    ci_method: str = "wilson",
    confidence_level: float = 0.95,
    n_bootstrap: int = 10_000,
    seed: int | None = 0,
) -> dict:
    """Stratum-weighted recall of gold entities with a confidence interval.

    Args:
        strata: ``{name: (n, full, half)}``; n gold entities of the stratum, ``full`` with
            credit 1, ``half`` with credit 0.5 (ints; names str). Strata with n = 0 are ignored
            unless ``subgroup_weights`` names them, which is an error.
        subgroup_weights: ``None`` (weights n_p / N: the estimate is plain recall); or
            ``{name: positive number}`` (relative population sizes, any magnitude); or
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
    >>> stratified_recall({"a": (4, 3, 0), "b": (4, 2, 0)}, {"a": 10**400, "b": 10**400})["recall"]
    0.625
    """
    check_stratified_options(subgroup_weights, ci_method, confidence_level, n_bootstrap, seed)
    names, n, full, half = _parse_strata(strata)
    sizes, q, labelled, occurences = _parse_weights(subgroup_weights, names, n)
    keep = n > 0  # a stratum without gold entities carries no information
    names = [name for name, k in zip(names, keep) if k]
    n, full, half, sizes, q = n[keep], full[keep], half[keep], sizes[keep], q[keep]
    if labelled is not None:
        labelled, occurences = labelled[keep], occurences[keep]
    if ci_method == "bootstrap":
        _warn_constant_strata(names, n, full, half)
    arrays = stratified_recall_arrays(
        n,
        full,
        half,
        sizes,
        q=q,
        labelled=labelled,
        occurences=occurences,
        ci_method=ci_method,
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap,
        rng=np.random.default_rng(seed),
        per_stratum=True,
    )
    return _result(names, n, full, half, sizes, arrays, ci_method, confidence_level)


def strata_counts(
    subgroups: Sequence[str], entity_sentence: npt.ArrayLike, entity_outcome: npt.ArrayLike
) -> dict[str, tuple[int, int, int]]:
    """Per-stratum counts for :func:`stratified_recall`: ``{name: (n, full, half)}``.

    Args:
        subgroups: the subgroup name (str) of each sentence.
        entity_sentence: each gold entity's sentence index (ints in ``range(len(subgroups))``).
        entity_outcome: each gold entity's outcome code, an index into ``OUTCOME_CODES``:
            0 correct (credit 1), 1 incorrect, 2 partial (credit 0.5), 3 missed.

    Every subgroup that names a sentence is a stratum, in sorted order (n = 0 if its
    sentences hold no gold entity). Integer counts: any order of the sentences gives the
    same result.

    >>> strata_counts(["web", "news", "web"], [0, 0, 1, 2], [0, 2, 3, 1])
    {'news': (1, 0, 0), 'web': (3, 1, 1)}
    """
    for i, name in enumerate(subgroups):
        if not isinstance(name, str):
            raise ValueError(f"subgroups[{i}] is {name!r}; every sentence needs a subgroup name (a str)")
    names = sorted(set(subgroups))
    index = {name: i for i, name in enumerate(names)}
    group = np.fromiter(map(index.__getitem__, subgroups), dtype=np.intp, count=len(subgroups))
    sentence = _index_array(entity_sentence, "entity_sentence", len(subgroups))
    outcome = _index_array(entity_outcome, "entity_outcome", len(OUTCOME_CODES))
    if len(sentence) != len(outcome):
        raise ValueError(f"entity_sentence has {len(sentence)} entries but entity_outcome has {len(outcome)}")
    entity_group = group[sentence]
    counts = [
        np.bincount(entity_group[keep], minlength=len(names))
        for keep in (slice(None), outcome == OUTCOME_CODES["correct"], outcome == OUTCOME_CODES["partial"])
    ]
    return {name: (int(a), int(b), int(c)) for name, a, b, c in zip(names, *counts)}


def _index_array(values, what, bound):
    """``values`` as an intp array of indices in [0, bound), or a ValueError naming the first bad one."""
    array = np.asarray(values)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise ValueError(f"{what} must be a 1-d sequence of ints; got {type(values).__name__}")
    bad = np.flatnonzero((array < 0) | (array >= bound))
    if bad.size:
        raise ValueError(f"{what}[{bad[0]}] is {array[bad[0]]}; expected an int in [0, {bound})")
    return array.astype(np.intp)


def _warn_constant_strata(names, n, full, half):
    """The bootstrap cannot vary a stratum whose every item has one credit: say so."""
    constant = [name for name, k, f, h in zip(names, n, full, half) if k == 1 or k in (f, h) or f + h == 0]
    if constant:
        warnings.warn(
            f"bootstrap: {len(constant)} stratum(s) (first {constant[0]!r}) have recall 0 or 1 "
            "(or a single entity, or only half credits) and do not vary under resampling, so the "
            "interval understates their uncertainty; ci_method='wilson' accounts for it",
            UserWarning,
            stacklevel=3,
        )


def _result(names, n, full, half, sizes, arrays, ci_method, confidence_level):
    """The returned dict, in plain Python numbers. The estimate is the correctly rounded sum of
    the strata's terms (``math.fsum``), so no order of the strata changes it in the last digit."""
    correct = full + 0.5 * half
    weights = sizes  # the exact shares, each rounded once
    recall = min(max(math.fsum(weights * (correct / n)), 0.0), 1.0)
    low, high, se = (float(a[0]) for a in arrays[1:4])
    low, high = min(low, recall), max(high, recall)
    alone_low, alone_high = arrays[4][0], arrays[5][0]
    strata = {
        name: {
            "n": int(n[i]),
            "correct": float(correct[i]),
            "recall": float(correct[i] / n[i]),
            "weight": float(weights[i]),
            "ci_low": float(alone_low[i]),
            "ci_high": float(alone_high[i]),
        }
        for i, name in enumerate(names)
    }
    return {
        "recall": recall,
        "ci_low": low,
        "ci_high": high,
        "standard_error": se,
        "confidence_level": float(confidence_level),
        "method": ci_method,
        "n": int(n.sum()),
        "correct": float(correct.sum()),
        "strata": strata,
    }


# ----------------------------------------------------------------------------- validation


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_stratified_options(
    subgroup_weights: Mapping[str, object] | None,
    ci_method: str,
    confidence_level: float,
    n_bootstrap: int,
    seed: int | None,
) -> None:
    """Validate every option of :func:`stratified_recall` that needs no data; raise ``ValueError``
    naming the option (and the subgroup and key) at fault.

    >>> check_stratified_options({"a": 1, "b": None}, "wilson", 0.95, 10_000, 0)
    Traceback (most recent call last):
    ValueError: subgroup_weights['b'] must be a positive finite number; got None
    """
    check_interval_options(ci_method, confidence_level, n_bootstrap, seed)
    _check_weights(subgroup_weights)


def check_interval_options(
    ci_method: str, confidence_level: float, n_bootstrap: int, seed: int | None
) -> None:
    """Validate the interval options of :func:`stratified_recall`; raise ``ValueError`` naming the bad one."""
    if not (isinstance(ci_method, str) and ci_method in CI_METHODS):
        raise ValueError(f"ci_method must be one of {list(CI_METHODS)}; got {ci_method!r}")
    check_confidence_level(confidence_level)
    if not (is_int(n_bootstrap) and 0 < n_bootstrap < MAX_COUNT):
        raise ValueError(f"n_bootstrap must be a positive int; got {n_bootstrap!r}")
    check_seed(seed)


def _check_name(name, where):
    if not isinstance(name, str):
        raise ValueError(f"subgroup names must be str; got {name!r} in {where}")


def _check_weights(weights):
    """The structure and values of ``subgroup_weights``, without the data."""
    if weights is None:
        return
    if not isinstance(weights, Mapping):
        raise ValueError(f"subgroup_weights must be None or a mapping; got {type(weights).__name__}")
    for name in weights:
        _check_name(name, "subgroup_weights")
    if len({isinstance(v, Mapping) for v in weights.values()}) > 1:
        raise ValueError(
            "subgroup_weights mixes numbers and {'occurences', 'labelled', 'positive'} "
            "mappings; use one form for every subgroup"
        )
    for name, value in weights.items():
        if isinstance(value, Mapping):
            _check_size_row(name, value)
        elif not _positive_number(value):
            raise ValueError(f"subgroup_weights[{name!r}] must be a positive finite number; got {value!r}")


def _positive_number(value):
    """A positive finite real; ints of any size (no float conversion, which could overflow)."""
    if is_int(value):
        return value > 0
    return _is_real(value) and math.isfinite(float(value)) and value > 0


def _check_size_row(name, value):
    """(occurences, labelled, positive) of one subgroup: positive ints below 2**63, labelled >= positive."""
    if set(value) != set(SIZE_KEYS):
        raise ValueError(
            f"subgroup_weights[{name!r}] must have exactly the keys {list(SIZE_KEYS)}; "
            f"got {sorted(map(str, value))}"
        )
    for key in SIZE_KEYS:
        if not (is_int(value[key]) and value[key] > 0):
            raise ValueError(f"subgroup_weights[{name!r}]: {key} must be a positive int; got {value[key]!r}")
        if value[key] >= MAX_COUNT:
            raise ValueError(f"subgroup_weights[{name!r}]: {key} must be below 2**63; got {value[key]!r}")
    if value["labelled"] < value["positive"]:
        raise ValueError(
            f"subgroup_weights[{name!r}]: labelled ({value['labelled']}) < positive ({value['positive']})"
        )


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
    if not (isinstance(counts, (tuple, list)) and len(counts) == 3 and all(map(is_int, counts))):
        raise ValueError(f"strata[{name!r}] must be a tuple of 3 ints (n, full, half); got {counts!r}")
    n, full, half = (int(c) for c in counts)
    if min(n, full, half) < 0 or full + half > n:
        raise ValueError(f"strata[{name!r}] = {counts!r} needs 0 <= full, half and full + half <= n")
    if n >= MAX_COUNT:
        raise ValueError(f"strata[{name!r}]: n must be below 2**63; got {n}")
    return n, full, half


def _parse_weights(weights, names, n):
    """Population shares (exact, rounded once), q_p = positive_p / labelled_p (1 if sizes are known),
    labelled_p and occurences_p (None if sizes are known), aligned with ``names``; zero where a
    stratum has n = 0. ``weights`` has passed ``_check_weights``."""
    ones = np.ones(len(names))
    if weights is None:
        return n / n.sum(), ones, None, None
    _match_names(weights, names, n)
    values = [weights.get(name) for name in names]  # None: a stratum with n = 0, not weighted
    if not any(isinstance(v, Mapping) for v in values):
        return _shares([None if v is None else _fraction(v) for v in values]), ones, None, None
    rows = []
    for name, v in zip(names, values):  # a loop, so that the warning's stacklevel is exact
        rows.append((1, 1, 0) if v is None else _size_row(name, v))
    occurences, labelled, positive = (np.array(col, dtype=float) for col in zip(*rows))
    sizes = _shares([Fraction(p * o, n) if p else None for o, n, p in rows])
    return sizes, positive / labelled, labelled, occurences


def _fraction(value):
    return Fraction(int(value)) if is_int(value) else Fraction(float(value))


def _shares(sizes):
    """Exact fractions (None: 0) as shares of their sum, each correctly rounded to a float."""
    total = sum(s for s in sizes if s is not None)
    return np.array([0.0 if s is None else float(s / total) for s in sizes])


def _match_names(weights, names, n):
    present = {name for name, count in zip(names, n) if count > 0}
    unweighted = sorted(present - set(weights))
    if unweighted:
        raise ValueError(
            f"subgroup {unweighted[0]!r} occurs in the data but has no entry in subgroup_weights"
        )
    absent = sorted(set(weights) - present)
    if absent:
        raise ValueError(f"subgroup {absent[0]!r} in subgroup_weights has no gold entity in the data")


def _size_row(name, value):
    """(occurences, labelled, positive) of one subgroup, as ints; warns if labelled > occurences."""
    occurences, labelled, positive = (int(value[key]) for key in SIZE_KEYS)
    if labelled > occurences:
        warnings.warn(
            f"subgroup_weights[{name!r}]: labelled ({labelled}) > occurences ({occurences}); "
            "the size estimate positive * occurences / labelled is used as given, "
            "without a finite-population correction",
            UserWarning,
            stacklevel=4,
        )
    return occurences, labelled, positive


# ----------------------------------------------------------------------------- vectorised core


class _Sample(NamedTuple):
    """Counts of m replicates x P strata, float arrays of shape (m, P)."""

    n: np.ndarray
    full: np.ndarray
    half: np.ndarray
    sizes: np.ndarray
    q: np.ndarray
    labelled: np.ndarray | None
    fpc: np.ndarray  # finite-population correction 1 - labelled / occurences (1: none)
    weights: np.ndarray
    recall: np.ndarray  # per stratum
    total: np.ndarray  # R, shape (m,)


def stratified_recall_arrays(
    n: npt.ArrayLike,
    full: npt.ArrayLike,
    half: npt.ArrayLike,
    sizes: npt.ArrayLike,
    *,
    q: npt.ArrayLike | None = None,
    labelled: npt.ArrayLike | None = None,
    occurences: npt.ArrayLike | None = None,
    ci_method: str = "wilson",
    confidence_level: float = 0.95,
    n_bootstrap: int = 10_000,
    rng: np.random.Generator | None = None,
    per_stratum: bool = False,
) -> tuple[npt.NDArray[np.float64], ...]:
    """Vectorised core of ``stratified_recall`` for m replicates at once, without validation.

    ``n``, ``full``, ``half``, ``sizes`` (population sizes, any scale), ``q`` (positive /
    labelled; default 1: sizes known), ``labelled`` and ``occurences`` (None: sizes known, no
    finite-population correction) broadcast to shape (m, P). A stratum with n = 0 must have
    size 0; it then counts for nothing.
    Returns four arrays of shape (m,): recall, ci_low, ci_high, standard_error; with
    ``per_stratum`` also ci_low and ci_high of each stratum alone, shape (m, P). Always
    0 <= ci_low <= recall <= ci_high <= 1.

    >>> r, lo, hi, se = stratified_recall_arrays([[10], [10]], [[7], [10]], [[0], [0]], [[1], [1]])
    >>> r.tolist(), hi.tolist()  # doctest: +ELLIPSIS
    ([0.7, 1.0], [0.9073..., 1.0])
    """
    sample = _sample(n, full, half, sizes, q, labelled, _fpc(labelled, occurences))
    if ci_method == "bootstrap":
        low, high, se, alone = _bootstrap(
            sample, confidence_level, n_bootstrap, rng or np.random.default_rng(), per_stratum
        )
    else:
        z = stats.norm.ppf(0.5 + confidence_level / 2)
        low, high, se = _INTERVALS[ci_method](sample, z)
        if per_stratum:
            n1, full1, half1, sizes1 = (
                a.reshape(-1, 1) for a in (sample.n, sample.full, sample.half, sample.n > 0)
            )
            single = _sample(n1, full1, half1, sizes1, None, None, sample.fpc.reshape(-1, 1))
            alone = [a.reshape(sample.n.shape) for a in _INTERVALS[ci_method](single, z)[:2]]
    result = (sample.total, *_ordered(sample.total, low, high), se)
    return result + _ordered(sample.recall, *alone) if per_stratum else result


def _ordered(estimate, low, high):
    """Interval ends in [0, 1] on either side of the estimate."""
    return np.minimum(np.clip(low, 0, 1), estimate), np.maximum(np.clip(high, 0, 1), estimate)


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
    total = np.clip((weights * recall).sum(-1), 0, 1)  # a rounding step must not leave [0, 1]
    return _Sample(n, full, half, sizes, q, labelled, fpc, weights, recall, total)


def _ratio(a, b):
    """a / b, 0 where b == 0."""
    return np.divide(a, b, out=np.zeros(np.broadcast(a, b).shape), where=b != 0)


def _wald(total, se, z):
    return total - z * se, total + z * se, se


def _weighted_wald(s, z):
    """Published formula: SE^2 = R(1 - R) sum_i w_i^2, w_i = W_p / n_p; z = 1.96 at 95%."""
    se = np.sqrt(s.total * (1 - s.total) * _ratio(s.weights**2, s.n).sum(-1))
    return _wald(s.total, se, 1.96 if abs(z - _Z95) < 1e-12 else z)


def _stratified_wald(s, z):
    """SE^2 = sum_p (W_p^2 / n_p) g_p [s_p^2 + (1 - q_p)(r_p - R)^2], s_p^2 with divisor n_p - 1."""
    item = np.maximum(_ratio(s.full + 0.25 * s.half, s.n) - s.recall**2, 0)
    spread = _ratio(s.n * item, s.n - 1) + (1 - s.q) * (s.recall - s.total[..., None]) ** 2
    return _wald(s.total, np.sqrt((_ratio(s.weights**2, s.n) * s.fpc * spread).sum(-1)), z)


def _design(s):
    """Smoothed stratified variance V and effective sample size n_eff = R~(1 - R~) / V, each
    stratum's variance taken at its Wilson midpoint (KAPPA pseudo-items of credit 1 and of 0)
    and finite-population corrected; n_eff is inf where V = 0 (every stratum a census)."""
    r = (s.full + 0.5 * s.half + KAPPA) / (s.n + 2 * KAPPA)
    item_variance = (s.full + 0.25 * s.half + KAPPA) / (s.n + 2 * KAPPA) - r**2
    total = (s.weights * r).sum(-1, keepdims=True)
    spread = item_variance + (1 - s.q) * (r - total) ** 2
    variance = (_ratio(s.weights**2, s.n) * s.fpc * spread).sum(-1)
    total = total[..., 0]
    n_eff = np.divide(total * (1 - total), variance, out=np.full(variance.shape, np.inf), where=variance > 0)
    return variance, n_eff


def _wilson(s, z):
    """Wilson score interval for R at n_eff trials; Jeffreys' bound on a side with at most
    BOUNDARY_COUNT effective items beyond it, where that is wider."""
    variance, n_eff = _design(s)
    census = np.isinf(n_eff)  # no sampling error: the interval is the point
    n_eff = np.where(census, 1.0, n_eff)
    p, k = s.total, z**2 / n_eff
    centre = (p + k / 2) / (1 + k)
    half_width = np.sqrt(k * p * (1 - p) + k**2 / 4) / (1 + k)
    low, high = np.where(p <= 0, 0.0, centre - half_width), np.where(p >= 1, 1.0, centre + half_width)
    alpha = 2 * stats.norm.sf(z)
    hits, misses = p * n_eff, (1 - p) * n_eff
    near = (hits > 0) & (hits <= BOUNDARY_COUNT) & ~census
    low[near] = np.minimum(low[near], stats.beta.ppf(alpha / 2, hits[near] + 0.5, misses[near] + 0.5))
    near = (misses > 0) & (misses <= BOUNDARY_COUNT) & ~census
    high[near] = np.maximum(high[near], stats.beta.ppf(1 - alpha / 2, hits[near] + 0.5, misses[near] + 0.5))
    return np.where(census, p, low), np.where(census, p, high), np.sqrt(variance)


def _korn_graubard(s, z):
    """Clopper-Pearson for R at n_eff trials (x = R n_eff successes)."""
    variance, n_eff = _design(s)
    census = np.isinf(n_eff)  # no sampling error: the interval is the point
    n_eff = np.where(census, 1.0, n_eff)
    alpha = 2 * stats.norm.sf(z)
    x = s.total * n_eff
    tiny = np.finfo(float).tiny
    low = stats.beta.ppf(alpha / 2, np.maximum(x, tiny), n_eff - x + 1)
    high = stats.beta.ppf(1 - alpha / 2, x + 1, np.maximum(n_eff - x, tiny))
    low = np.where(s.total <= 0, 0.0, low)
    high = np.where(s.total >= 1, 1.0, high)
    return np.where(census, s.total, low), np.where(census, s.total, high), np.sqrt(variance)


_INTERVALS = {
    "korn_graubard": _korn_graubard,
    "stratified_wald": _stratified_wald,
    "weighted_wald": _weighted_wald,
    "wilson": _wilson,
}


# ----------------------------------------------------------------------------- bootstrap


def _bootstrap(s, confidence_level, n_bootstrap, rng, per_stratum):
    """Percentile interval and standard deviation of the rescaled stratified bootstrap, and with
    ``per_stratum`` each stratum's own percentile interval (exact: the limit of many resamples).
    Resamples come in chunks of at most BOOTSTRAP_CELLS stratum draws, each chunk from its own
    generator seeded from ``rng``, so every pass over them sees the same numbers."""
    m, strata = s.n.shape
    size = max(1, BOOTSTRAP_CELLS // (m * strata))
    starts = range(0, n_bootstrap, size)
    base = int(rng.integers(2**63))

    def draw(k):
        return _resample(s, min(size, n_bootstrap - starts[k]), np.random.default_rng([base, k]))

    alpha = 1 - confidence_level
    bounds, sd = _select(draw, len(starts), m, n_bootstrap, (alpha / 2, 1 - alpha / 2))
    alone = _stratum_percentiles(s, (alpha / 2, 1 - alpha / 2)) if per_stratum else None
    return bounds[:, 0], bounds[:, 1], sd, alone


def _stratum_percentiles(s, probs):
    """Each stratum's bootstrap percentiles at ``probs``, exactly: the quantiles of its credit sum
    T over n_p - 1 draws (binomial; with half credits 2T = G + F, G ~ Binomial(n_p - 1,
    share of credit > 0), F | G ~ Binomial(G, share of full among those)), rescaled like
    ``_resample``."""
    draws, shrink, recall = np.maximum(s.n - 1, 0), np.sqrt(s.fpc), s.recall
    p_full, p_half = _ratio(s.full, s.n), _ratio(s.half, s.n)
    sums = np.stack([stats.binom.ppf(p, draws, p_full) for p in probs], -1)
    for i in zip(*np.nonzero((p_half > 0) & (draws > 0))):
        sums[i] = _half_credit_quantiles(int(draws[i]), p_full[i], p_half[i], probs)
    redrawn = np.where(draws[..., None] > 0, _ratio(sums, draws[..., None]), recall[..., None])
    bounds = recall[..., None] + shrink[..., None] * (redrawn - recall[..., None])
    return bounds[..., 0], bounds[..., 1]


def _half_credit_quantiles(draws, p_full, p_half, probs):
    """Quantiles of T = (G + F) / 2 above, from its distribution (tails below 1e-16 dropped)."""
    p_credit = p_full + p_half
    g = _support(draws, p_credit)
    f = _support(int(g[-1]), p_full / p_credit)
    f = f[None, :]
    weight = stats.binom.pmf(g, draws, p_credit)[:, None] * stats.binom.pmf(f, g[:, None], p_full / p_credit)
    total = g[:, None] + f
    pmf = np.bincount((total - total.min()).ravel(), weight.ravel())
    cdf = np.cumsum(pmf) / pmf.sum()
    return (total.min() + np.searchsorted(cdf, np.asarray(probs) * (1 - 1e-12))) / 2


def _support(n, p):
    """The values of Binomial(n, p) outside tails of probability 1e-16."""
    low, high = stats.binom.ppf([1e-16, 1 - 1e-16], n, p)
    return np.arange(int(low), int(high) + 1)


def _resample(s, b, rng):
    """b resampled estimates, shape (m, b). Each stratum's credits are
    n_p - 1 draws at its observed shares, shrunk towards r_p by sqrt(g_p); with estimated
    sizes positive_p is redrawn from labelled_p - 1 candidates the same way."""
    shape = s.n.shape + (b,)
    shrink = np.sqrt(s.fpc)[..., None]
    draws = np.broadcast_to(np.maximum(s.n - 1, 0)[..., None], shape).astype(np.int64)
    full = rng.binomial(draws, _ratio(s.full, s.n)[..., None])
    half = rng.binomial(draws - full, _ratio(s.half, s.n - s.full)[..., None]) if s.half.any() else 0
    recall = s.recall[..., None]
    recalls = recall + shrink * (np.where(draws > 0, _ratio(full + 0.5 * half, draws), recall) - recall)
    weights = s.weights[..., None]
    if s.labelled is not None:
        candidates = np.broadcast_to(np.maximum(s.labelled - 1, 0)[..., None], shape).astype(np.int64)
        q = s.q[..., None]
        redrawn = np.where(candidates > 0, _ratio(rng.binomial(candidates, q), candidates), q)
        sizes = s.sizes[..., None] * _ratio(q + shrink * (redrawn - q), q)
        weights = _ratio(sizes, sizes.sum(-2, keepdims=True))
    return np.clip((weights * np.clip(recalls, 0, 1)).sum(-2), 0, 1)


#: counters held at once by the exact selection of order statistics
SELECT_CELLS = 4_000_000


def _select(draw, n_chunks, rows, total, probs):
    """Quantiles at ``probs`` (linear interpolation between order statistics, numpy's default)
    and standard deviations of ``total`` values per row, given in ``n_chunks`` chunks by
    ``draw(k)`` (``rows`` x values, each in [0, 1]). Exact, in memory bounded by the chunk size
    whatever ``total``: passes over the chunks narrow each wanted rank to a range of values."""
    if rows * total <= SELECT_CELLS:  # few enough to hold: one pass
        values = np.concatenate([draw(k) for k in range(n_chunks)], axis=1)
        draw, n_chunks = (lambda k: values), 1
    cache = [draw(0)] if n_chunks == 1 else None

    def chunks():
        return iter(cache) if cache else map(draw, range(n_chunks))

    h = (total - 1) * np.asarray(probs)
    below = np.floor(h).astype(np.int64)
    above = np.minimum(below + 1, total - 1)
    ranks = np.unique(np.concatenate([below, above]))
    moments = _Moments()
    order = _order_statistics(chunks, ranks, rows, total, moments.add)
    x0, x1 = order[:, np.searchsorted(ranks, below)], order[:, np.searchsorted(ranks, above)]
    return np.clip(x0 + (h - below) * (x1 - x0), x0, x1), moments.sd(total)


class _Moments:
    """Mean and sum of squared deviations per row, merged chunk by chunk (Chan et al.)."""

    def __init__(self):
        self.count, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, values):
        b, chunk_mean = values.shape[1], values.mean(1)
        delta = chunk_mean - self.mean
        self.m2 = (
            self.m2
            + ((values - chunk_mean[:, None]) ** 2).sum(1)
            + delta**2 * self.count * b / (self.count + b)
        )
        self.mean, self.count = self.mean + delta * b / (self.count + b), self.count + b

    def sd(self, total):
        return np.sqrt(self.m2 / (total - 1)) if total > 1 else np.zeros_like(self.mean)


def _bits(values):
    """Non-negative floats as int64 bit patterns, which sort as the floats do."""
    return (np.asarray(values, dtype=float) + 0.0).view(np.int64)


def _order_statistics(chunks, ranks, rows, total, first_pass):
    """The values of the given ranks (0-based) in each row, as floats (rows x ranks). Each rank is
    kept in a range [lo, hi) of bit patterns; a pass cuts it into bins and narrows it to the
    smallest and largest value of the bin holding the rank, until the range holds few values
    (then collected and sorted) or a single float. ``first_pass`` sees every chunk once."""
    k = len(ranks)
    lo, hi = np.zeros((rows, k), np.int64), np.full((rows, k), _bits(1.0) + 1, np.int64)
    inside = np.full((rows, k), total, np.int64)
    target = np.repeat(np.asarray(ranks, np.int64)[None], rows, 0)  # rank within [lo, hi)
    bins = int(np.clip(SELECT_CELLS // (rows * k), 2, 4096))
    few = max(bins, SELECT_CELLS // (rows * k))
    while first_pass or ((hi - lo > 1) & (inside > few)).any():
        narrowing = (hi - lo > 1) & (inside > few)
        width = -(-(hi - lo) // bins)
        counts: np.ndarray = np.zeros((rows * k * bins), np.int64)  # flat while counted, then rows x k x bins
        smallest: np.ndarray = np.full(counts.shape, _bits(1.0) + 1)
        largest: np.ndarray = np.full(counts.shape, -1)
        for values in chunks():
            if first_pass:
                first_pass(values)
            for j, (r, v) in enumerate(_in_ranges(_bits(values), lo, hi, narrowing)):
                at = (r * k + j) * bins + (v - lo[r, j]) // width[r, j]
                counts += np.bincount(at, minlength=counts.size)
                np.minimum.at(smallest, at, v)
                np.maximum.at(largest, at, v)
        first_pass = None
        counts, smallest, largest = (a.reshape(rows, k, bins) for a in (counts, smallest, largest))
        cumulative = counts.cumsum(-1)
        chosen = np.minimum((cumulative <= target[..., None]).sum(-1), bins - 1)[..., None]
        target = np.where(
            narrowing, target - np.take_along_axis(cumulative - counts, chosen, -1)[..., 0], target
        )
        inside = np.where(narrowing, np.take_along_axis(counts, chosen, -1)[..., 0], inside)
        lo = np.where(narrowing, np.take_along_axis(smallest, chosen, -1)[..., 0], lo)
        hi = np.where(narrowing, np.take_along_axis(largest, chosen, -1)[..., 0] + 1, hi)
    return _collect(chunks, lo, hi, target)


def _in_ranges(bits, lo, hi, active):
    """For each rank j: the rows and bit patterns of the values in its range [lo, hi)."""
    for j in range(lo.shape[1]):
        r, c = np.nonzero(active[:, j, None] & (bits >= lo[:, j, None]) & (bits < hi[:, j, None]))
        yield r, bits[r, c]


def _collect(chunks, lo, hi, target):
    """The target-th smallest value of each range: the range's one float, or found by sorting
    the few values in it."""
    rows, k = lo.shape
    several = hi - lo > 1
    key_parts, found_parts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for values in chunks():
        for j, (r, v) in enumerate(_in_ranges(_bits(values), lo, hi, several)):
            key_parts.append(r * k + j)
            found_parts.append(v)
    keys, found = np.concatenate(key_parts), np.concatenate(found_parts)
    order = np.lexsort((found, keys))
    keys, found = keys[order], found[order]
    at = np.searchsorted(keys, np.arange(rows * k)).reshape(rows, k) + target
    picked = found[np.minimum(at, len(found) - 1)] if len(found) else lo
    return np.where(several, picked, lo).view(float)
