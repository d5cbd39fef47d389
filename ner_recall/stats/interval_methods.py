"""How an interval is read from bootstrap draws: the percentile interval, Hesterberg's expanded
level, the bias-corrected and accelerated (BCa) interval with its jackknife acceleration, and the
draws of a large bootstrap binned per score (:class:`Binned`) once they no longer fit in memory.

:mod:`ner_recall.stats.uncertainty` draws the resamples; this module turns draws into bounds.

>>> import numpy as np
>>> draws = np.arange(1, 101, dtype=float)[:, None]  # 100 draws of one score
>>> [round(b, 4) for b in percentile_bounds(draws, [50.0], 0.9).ravel().tolist()]
[5.95, 95.05]
"""

from collections.abc import Iterable, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import t as student_t


def percentile_bounds(
    samples: NDArray[np.float64], estimate: NDArray[np.float64] | Sequence[float], level: float
) -> NDArray[np.float64]:
    """(2 x columns) percentile interval of each column of ``samples`` over its defined (not NaN)
    values; a score undefined in every resample gets its estimate at both ends."""
    alpha = (1 - level) / 2
    bounds = np.tile(np.asarray(estimate, dtype=float), (2, 1))
    defined = ~np.isnan(samples).all(axis=0)
    if defined.any():
        bounds[:, defined] = np.nanquantile(samples[:, defined], [alpha, 1 - alpha], axis=0)
    return bounds


#: the highest level an interval is taken at (a level of 1 has no normal quantile)
MAX_LEVEL = 1 - 1e-12


def expanded_level(level: float, n: int) -> float:
    """The percentile level of Hesterberg's expanded percentile interval on ``n`` units: the
    bootstrap's spread is that of a plug-in variance (divided by n, not n - 1) and its quantiles
    are normal ones, so widen both as Student's t interval would; tends to ``level`` as n grows.

    >>> round(expanded_level(0.95, 20), 4), round(expanded_level(0.95, 3453), 4)
    (0.9682, 0.9501)
    """
    if n < 2:
        return level
    z = np.sqrt(n / (n - 1)) * student_t.ppf(0.5 + level / 2, n - 1)
    # on a handful of units the widened level rounds to 1; the extreme draws are the bounds then
    return min(1 - 2 * NormalDist().cdf(-float(z)), MAX_LEVEL)


def sorted_quantiles(
    ordered: NDArray[np.float64], defined: NDArray[np.intp], levels: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``np.quantile``'s linear interpolation, to the bit, of each column of ``ordered`` (sorted
    along axis 0, NaN last) over its first ``defined`` values, at that column's ``levels`` (rows of
    levels x columns): every column at its own levels in one pass, not one call per column."""
    virtual = (defined - 1) * levels
    floor = np.floor(virtual)
    above, below = virtual >= defined - 1, virtual < 0
    start = np.where(above, -1.0, np.where(below, 0.0, floor))  # the index numpy interpolates from
    gamma = virtual - start
    last = np.broadcast_to(defined - 1, virtual.shape)
    at = np.where(above, last, np.where(below, 0, floor)).astype(np.intp)
    after = np.where(above, last, np.where(below, 0, floor + 1)).astype(np.intp)
    columns = np.broadcast_to(np.arange(ordered.shape[1]), virtual.shape)
    a, b = ordered[at, columns], ordered[after, columns]
    step = b - a
    out = a + step * gamma
    return np.where(gamma >= 0.5, b - step * (1 - gamma), out)


def _accelerations(jackknife, weights):
    """The BCa acceleration of each column from its defined leave-one-out values (weighted by how
    many units share each distinct row); the columns with the same undefined rows in one batch."""
    out = np.zeros(jackknife.shape[1])
    defined = ~np.isnan(jackknife)
    masks = np.packbits(defined, axis=0).T
    groups: dict[bytes, list[int]] = {}
    for j, mask in enumerate(map(bytes, masks)):
        groups.setdefault(mask, []).append(j)
    for members in groups.values():
        keep = defined[:, members[0]]
        if not keep.any():
            continue
        jack = np.ascontiguousarray(jackknife[keep][:, members].T)  # a row per column
        w = weights[keep]
        d = np.average(jack, weights=w, axis=1)[:, None] - jack
        spread, skew = (w * d**2).sum(axis=1).tolist(), (w * d**3).sum(axis=1).tolist()
        for j, s2, s3 in zip(members, spread, skew):
            out[j] = s3 / (6 * s2**1.5) if s2 > 0 else 0.0
    return out


def bca_interval(
    samples: Any,
    estimate: Any,
    level: float,
    jackknife: NDArray[np.float64],
    weights: NDArray[Any],
) -> NDArray[np.float64]:
    """Bias-corrected and accelerated interval of each column; ``jackknife``: the leave-one-unit
    -out values of each distinct row, ``weights``: how many units have that row. Every column's
    counts, acceleration and quantiles in batches; the normal quantiles one column at a time."""
    normal = NormalDist()
    alpha = (1 - min(level, MAX_LEVEL)) / 2
    ordered = np.sort(samples, axis=0)  # NaN last
    defined = np.count_nonzero(~np.isnan(samples), axis=0)
    below = np.count_nonzero(samples < estimate, axis=0) + 0.5 * np.count_nonzero(samples == estimate, axis=0)
    below = below / np.maximum(defined, 1)
    flat = ordered[np.maximum(defined - 1, 0), np.arange(samples.shape[1])] == ordered[0]
    accelerations = _accelerations(jackknife, weights)
    z_low, z_high = normal.inv_cdf(alpha), normal.inv_cdf(1 - alpha)
    levels = np.tile([[alpha], [1 - alpha]], (1, samples.shape[1]))
    for j, (p, a) in enumerate(zip(below.tolist(), accelerations.tolist())):
        if defined[j] == 0 or p <= 0 or p >= 1 or flat[j]:
            continue
        z0 = normal.inv_cdf(p)
        ends = [z0 + z_low, z0 + z_high]
        if any(1 - a * e <= 0 for e in ends):  # the acceleration folds the interval: percentile instead
            continue
        levels[:, j] = [normal.cdf(z0 + e / (1 - a * e)) for e in ends]
    out = sorted_quantiles(ordered, defined, levels)
    out[:, defined == 0] = np.asarray(estimate, dtype=float)[defined == 0]
    return out


#: resampled scores kept as they are (256 MB); beyond, each score's draws are binned (:class:`Binned`)
MAX_CELLS = 1 << 25


class Binned:
    """The draws of every score in bounded memory, for resamples x names above :data:`MAX_CELLS`:
    per score the draws defined, below and equal to the estimate (exact), their range, and a
    histogram of ``bins`` equal bins over [-1, 1] (scores and their differences). An interval end
    taken from it is within one bin width (``2 / bins``) of the exact order statistic."""

    def __init__(self, estimate):
        names = len(estimate)
        self.estimate = np.asarray(estimate, dtype=float)
        self.bins = int(min(max(MAX_CELLS // max(names, 1), 1024), 65536))
        self.hist = np.zeros(names * self.bins, dtype=np.int64)
        self.n, self.below, self.equal = (np.zeros(names, dtype=np.int64) for _ in range(3))
        self.lo, self.hi = np.full(names, np.inf), np.full(names, -np.inf)

    def add(self, chunk: NDArray[np.float64]) -> "Binned":
        ok = ~np.isnan(chunk)
        self.n += ok.sum(axis=0)
        self.below += (chunk < self.estimate).sum(axis=0)
        self.equal += (chunk == self.estimate).sum(axis=0)
        self.lo = np.minimum(self.lo, np.where(ok, chunk, np.inf).min(axis=0))
        self.hi = np.maximum(self.hi, np.where(ok, chunk, -np.inf).max(axis=0))
        column = np.broadcast_to(np.arange(chunk.shape[1]), chunk.shape)[ok]
        at = np.clip(((chunk[ok] + 1) / 2 * self.bins).astype(np.int64), 0, self.bins - 1)
        self.hist += np.bincount(column * self.bins + at, minlength=len(self.hist))
        return self

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.n.max()) if len(self.n) else 0, len(self.n))

    def quantile(self, j: int, levels: Sequence[float]) -> NDArray[np.float64]:
        """``np.quantile``'s linear interpolation between order statistics, each from its bin."""
        counts = self.hist[j * self.bins : (j + 1) * self.bins]
        cumulative, n = np.cumsum(counts), int(self.n[j])

        def order(k):
            b = int(np.searchsorted(cumulative, k, side="right"))
            within = k - (int(cumulative[b - 1]) if b else 0)
            value = -1 + 2 * (b + (within + 0.5) / counts[b]) / self.bins
            return float(np.clip(value, self.lo[j], self.hi[j]))

        out = []
        for q in levels:
            h = (n - 1) * q
            k = int(np.floor(h))
            out.append(order(k) + (h - k) * (order(min(k + 1, n - 1)) - order(k)))
        return np.array(out)


def collect(
    chunks: Iterable[NDArray[np.float64]], estimate: NDArray[np.float64], resamples: int
) -> NDArray[np.float64] | Binned:
    """The draws of ``chunks`` (resamples x names each): an array while they fit :data:`MAX_CELLS`,
    else a :class:`Binned` summary."""
    if resamples * max(len(estimate), 1) <= MAX_CELLS:
        chunks = list(chunks)
        return np.concatenate(chunks) if chunks else np.zeros((0, len(estimate)))
    binned = Binned(estimate)
    for chunk in chunks:
        binned.add(chunk)
    return binned


def binned_percentile(draws: Any, estimate: Any, level: float) -> NDArray[np.float64]:
    alpha = (1 - level) / 2
    bounds = np.tile(np.asarray(estimate, dtype=float), (2, 1))
    for j in np.flatnonzero(draws.n > 0):
        bounds[:, j] = draws.quantile(j, [alpha, 1 - alpha])
    return bounds


def binned_bca(
    draws: Any, estimate: Any, level: float, jackknife: NDArray[np.float64], weights: NDArray[Any]
) -> NDArray[np.float64]:
    """:func:`bca_interval` from a :class:`Binned` summary."""
    normal = NormalDist()
    alpha = (1 - min(level, MAX_LEVEL)) / 2
    out, accelerations = np.empty((2, len(draws.n))), _accelerations(jackknife, weights)
    for j in range(len(draws.n)):
        n = int(draws.n[j])
        if not n:
            out[:, j] = estimate[j]
            continue
        below = (draws.below[j] + 0.5 * draws.equal[j]) / n
        if below <= 0 or below >= 1 or draws.lo[j] == draws.hi[j]:
            out[:, j] = draws.quantile(j, [alpha, 1 - alpha])
            continue
        z0, a = normal.inv_cdf(below), float(accelerations[j])
        ends = [z0 + z for z in (normal.inv_cdf(alpha), normal.inv_cdf(1 - alpha))]
        if any(1 - a * e <= 0 for e in ends):
            out[:, j] = draws.quantile(j, [alpha, 1 - alpha])
            continue
        out[:, j] = draws.quantile(j, [normal.cdf(z0 + e / (1 - a * e)) for e in ends])
    return out
