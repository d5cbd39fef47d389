"""Bootstrap intervals on every headline score and a paired test of two systems, from counts.

One matching pass gives, per sentence (or per document), a row of sufficient statistics:
per entity type, the matched gold spans of each scenario (exact, exact_other_type, overlap,
overlap_other_type), the predicted spans of the two other-type scenarios (the same-type ones
are the gold ones), and the missed and spurious spans. Every seqeval and MUC score is a
ratio of sums of these columns, so a resample is a weighted sum of rows, never a new
matching. Many units share a row: a bootstrap of n units is a multinomial over the u
distinct rows with probabilities n_k / n, and a random swap of the two systems' rows only
moves the units whose rows differ, a group of m identical difference rows by
Binomial(m, 1/2). Both run in chunks of resamples, so their memory grows with the units only;
the resampled scores are kept while they fit ``interval_methods.MAX_CELLS``, and binned per score
beyond (``interval_methods.Binned``).

Intervals: ``"percentile"``; ``"bca"``, bias-corrected and accelerated (the acceleration from
the jackknife of the distinct rows); ``"expanded"`` and ``"expanded_bca"`` (the default), the
same at the wider level of Hesterberg's expanded percentile interval, which corrects the
bootstrap's narrowness on few units. P-values are two-sided,
(1 + exceedances) / (1 + permutations).

>>> import numpy as np
>>> types = ("LOC", "PER")
>>> rows = np.zeros((4, len(COLUMNS) * 2), dtype=np.int64)
>>> rows[:3, 0] = 1                  # an exact LOC match in three sentences
>>> rows[3, COLUMNS.index("missed") * 2 + 1] = 1   # a missed PER in the fourth
>>> names, values = score_table(rows.sum(axis=0)[None], types)
>>> dict(zip(names, values[0].tolist()))["overall_recall"]
0.75
>>> ci = intervals(rows, types, resamples=200, seed=0)
>>> ci["overall_recall"][0] < 0.75 <= ci["overall_recall"][1], ci["muc_strict_precision"]
(True, [1.0, 1.0])
"""

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.counts import count_rows, derive, flat_scores, present_types
from ner_recall.core.matching import Matching
from ner_recall.core.progress import steps
from ner_recall.core.registry import RegistryError, supporting
from ner_recall.core.vocabulary import (
    COLUMNS,
    InputError,
    SpanArrays,
    check_confidence_level,
    check_seed,
    is_int,
    same_count,
)
from ner_recall.stats import interval_methods
from ner_recall.stats.interval_methods import (
    Binned,
    bca_interval,
    binned_bca,
    binned_percentile,
    collect,
    expanded_level,
    percentile_bounds,
)

#: the families whose scores derive from the count row (``core.counts``): what the bootstrap here
#: resamples; a family of the registry that supports "intervals" must be one of them
INTERVAL_FAMILIES = ("seqeval", "muc")
METHODS = ("percentile", "expanded", "bca", "expanded_bca")
DEFAULT_METHOD = "expanded_bca"
CELLS_PER_CHUNK = 1 << 21  # resamples x distinct rows held at once


# ---------------------------------------------------------------------------- options


#: the most resamples (and permutations) one call draws: at 100,000 sentences a million take minutes,
#: and a p-value's resolution is 1 / (1 + permutations) already
MAX_RESAMPLES = 1_000_000


def check_resamples(value: Any, name: str = "ci_resamples", minimum: int = 0) -> int:
    """An int from ``minimum`` to :data:`MAX_RESAMPLES` (a plain int); an :class:`InputError` whose
    side is the option ``name`` (a front end names it its own way: the command line's flag)."""
    if not (is_int(value) and value >= minimum):
        kind = "non-negative" if minimum == 0 else f">= {minimum}"
        raise InputError(f"{{place}} must be a {kind} int; got {{item!r}}", name, item=value)
    if value > MAX_RESAMPLES:
        raise InputError(f"{{place}} must be at most {MAX_RESAMPLES:,}; got {{item!r}}", name, item=value)
    return int(value)


def document_units(
    document_ids: Any, n_sentences: int, name: str = "document_ids"
) -> tuple[NDArray[np.intp], int]:
    """The unit index of each sentence: ``arange`` without ids, else documents numbered in
    order of first appearance. Returns (units, number of units)."""
    if document_ids is None:
        return np.arange(n_sentences), n_sentences
    _check_id_list(document_ids, name)
    same_count(name, len(document_ids), "", n_sentences, unit="ids")
    index: dict[Any, int] = {}
    units = np.empty(n_sentences, dtype=np.intp)
    for i, doc in enumerate(document_ids.tolist() if isinstance(document_ids, np.ndarray) else document_ids):
        try:
            units[i] = index.setdefault(doc, len(index))
        except TypeError:
            raise ValueError(
                f"{name}[{i}] is {doc!r}, not hashable; ids must be str, int or another hashable"
            ) from None
        if doc is None:
            raise ValueError(f"{name}[{i}] is None; every sentence needs a document id")
    return units, len(index)


def check_uncertainty_options(
    ci_resamples: Any = 0,
    confidence_level: Any = 0.95,
    seed: Any = 0,
    document_ids: Any = None,
    scores: Sequence[str] = INTERVAL_FAMILIES,
) -> dict[str, Any] | None:
    """The interval options of ``compute``: a dict, or None when ``ci_resamples`` is 0."""
    resamples = check_resamples(ci_resamples)
    level, seed = check_confidence_level(confidence_level), check_seed(seed)
    if resamples:
        _check_families(scores, "ci_resamples")
    if document_ids is not None:
        _check_id_list(document_ids)
    if not resamples:
        return None
    return {"resamples": resamples, "confidence_level": level, "seed": seed, "document_ids": document_ids}


def check_comparison_options(
    permutations: Any = 10_000,
    ci_resamples: Any = 1000,
    confidence_level: Any = 0.95,
    seed: Any = 0,
    document_ids: Any = None,
    scores: Sequence[str] = INTERVAL_FAMILIES,
    system_intervals: Any = 0,
) -> dict[str, Any]:
    """The options of ``compare``, as a dict (``system_intervals``: each system's own bootstrap
    resamples, 0 for none)."""
    _check_families(scores, "compare")
    out = {
        "permutations": check_resamples(permutations, "permutations", minimum=1),
        "resamples": check_resamples(ci_resamples),
        "confidence_level": check_confidence_level(confidence_level),
        "seed": check_seed(seed),
        "document_ids": document_ids,
        "system_intervals": check_resamples(system_intervals, "system_intervals"),
    }
    if document_ids is not None:
        _check_id_list(document_ids)
    return out


def _check_families(scores, what):
    if not families_of(scores):
        raise ValueError(
            f"{what} needs 'seqeval' or 'muc' in scores (the scores it gives intervals for); "
            f"got scores={list(scores)!r}"
        )


def _check_id_list(document_ids, name="document_ids"):
    if isinstance(document_ids, (str, bytes, dict, set, frozenset)) or not hasattr(document_ids, "__len__"):
        raise ValueError(f"{name} must be a list with one id per sentence; got {type(document_ids).__name__}")


# ---------------------------------------------------------------------------- statistics


def unit_stats(
    gold: SpanArrays,
    pred: SpanArrays,
    matching: Matching,
    n_types: int,
    units: NDArray[np.intp],
    n_units: int,
) -> NDArray[np.int64]:
    """Per unit, the count row of :data:`COLUMNS` (``ner_counts.count_rows``)."""
    return count_rows(gold, pred, matching, n_types, units, n_units)


def align_types(stats: NDArray[np.int64], types: Sequence[str], union: Sequence[str]) -> NDArray[np.int64]:
    """``stats`` over ``types`` rewritten over the type names ``union`` (a superset)."""
    k, K = len(types), len(union)
    where = np.array([union.index(t) for t in types], dtype=np.intp)
    out = np.zeros((len(stats), len(COLUMNS), K), dtype=stats.dtype)
    out[:, :, where] = stats.reshape(len(stats), len(COLUMNS), k)
    return out.reshape(len(stats), len(COLUMNS) * K)


def group_rows(rows: NDArray[np.integer]) -> tuple[NDArray[np.integer], NDArray[np.int64]]:
    """The distinct rows and how many units share each: (patterns, counts)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if rows.shape[1] == 0:
        return rows[:1], np.array([len(rows)])
    # one random 64-bit key per row (wrapping arithmetic), checked: a collision falls back
    coefficients = np.random.default_rng(0).integers(-(2**62), 2**62, rows.shape[1], dtype=np.int64)
    with np.errstate(over="ignore"):
        keys = rows @ coefficients
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    patterns = rows[first]
    if not np.array_equal(patterns[inverse.ravel()], rows):
        patterns, counts = np.unique(rows, axis=0, return_counts=True)
    return patterns, counts


def distinct_rows(rows: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """The distinct rows of an array of whole numbers and each row's index among them
    (``distinct[inverse]`` is ``rows``): a row scores alike wherever it is, so each is scored once."""
    coefficients = np.random.default_rng(0).integers(-(2**62), 2**62, rows.shape[1], dtype=np.int64)
    with np.errstate(over="ignore"):
        keys = rows.astype(np.int64) @ coefficients
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if not np.array_equal(rows[first][inverse], rows):  # a collision of keys: sort the rows themselves
        distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
        return distinct, inverse.ravel()
    return rows[first], inverse


# ---------------------------------------------------------------------------- scores


def score_table(
    totals: NDArray[Any],
    types: Sequence[str],
    families: Sequence[str] = INTERVAL_FAMILIES,
    beta: float = 1.0,
    zero_division: Any = 0.0,
    present: Any = None,
    undefined: bool = False,
) -> tuple[list[str], NDArray[np.float64]]:
    """Every headline score of each row of summed statistics: (names, rows x names array), from
    the one derivation ``ner_counts.derive``.

    ``present``: the types of the seqeval per-type keys (default: those seen in the first row).
    ``undefined``: a score whose denominator is 0 is NaN (a resample where it is undefined),
    except the macro and weighted averages, which follow ``zero_division`` as seqeval does.
    """
    totals = np.atleast_2d(totals)
    return flat_scores(derive(totals, types, families, float(zero_division), beta, present, undefined), types)


# ---------------------------------------------------------------------------- resampling


def _chunks(total, width, description="bootstrap resamples"):
    """Sizes of the chunks of ``total`` draws, each of about CELLS_PER_CHUNK cells, with progress."""
    step = max(1, CELLS_PER_CHUNK // max(width, 1))
    with steps(total, description) as done:
        for start in range(0, total, step):
            size = min(step, total - start)
            yield size
            done.advance(size)


def bootstrap_totals(
    patterns: NDArray[np.integer], counts: NDArray[np.int64], resamples: int, rng: np.random.Generator
) -> Iterator[NDArray[np.float64]]:
    """Summed statistics of ``resamples`` bootstrap resamples of the units, chunk by chunk."""
    n = int(counts.sum())
    p = counts / n
    matrix = patterns.astype(float)
    for size in _chunks(resamples, max(len(counts), 2 * matrix.shape[1])):
        yield rng.multinomial(n, p, size=size).astype(float) @ matrix


def permutation_shifts(
    differences: NDArray[np.integer], counts: NDArray[np.int64], permutations: int, rng: np.random.Generator
) -> Iterator[NDArray[np.float64]]:
    """For random swaps of the two systems, the sum of the swapped difference rows, chunked."""
    matrix = differences.astype(float)
    for size in _chunks(permutations, max(len(counts), 2 * matrix.shape[1]), "permutations"):
        yield rng.binomial(counts, 0.5, size=(size, len(counts))).astype(float) @ matrix


class Bootstrap(NamedTuple):
    """Bootstrap draws of every score: ``samples`` (resamples x names), the ``estimate`` on the
    whole data, and what the jackknife of the BCa interval needs."""

    names: list
    estimate: np.ndarray
    samples: NDArray[np.float64] | Binned
    patterns: np.ndarray
    counts: np.ndarray
    score: Callable[[NDArray[Any]], NDArray[np.float64]]


def bootstrap(
    stats: NDArray[np.int64],
    types: Sequence[str],
    resamples: int = 1000,
    seed: int = 0,
    families: Sequence[str] = INTERVAL_FAMILIES,
    beta: float = 1.0,
    zero_division: Any = 0.0,
) -> Bootstrap:
    """A :class:`Bootstrap` over the rows of ``stats`` (one per unit)."""
    patterns, counts = group_rows(stats)
    full = (patterns * counts[:, None]).sum(axis=0)
    present = present_types(full, len(types))

    def score(totals):
        return score_table(totals, types, families, beta, zero_division, present, undefined=True)[1]

    names, estimate = score_table(full, types, families, beta, zero_division, present)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    draws = (score(t) for t in bootstrap_totals(patterns, counts, resamples, rng))
    return Bootstrap(names, estimate[0], collect(draws, estimate[0], resamples), patterns, counts, score)


def interval_bounds(
    boot: Bootstrap, confidence_level: float = 0.95, method: str = DEFAULT_METHOD
) -> NDArray[np.float64]:
    """(2 x names) lower and upper bounds of a :class:`Bootstrap`'s intervals."""
    percentile: Callable[..., NDArray[np.float64]] = (
        binned_percentile if isinstance(boot.samples, Binned) else percentile_bounds
    )
    if method == "percentile":
        return percentile(boot.samples, boot.estimate, confidence_level)
    if method == "expanded":
        return percentile(boot.samples, boot.estimate, expanded_level(confidence_level, boot.counts.sum()))
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}; got {method!r}")
    full = (boot.patterns * boot.counts[:, None]).sum(axis=0)
    jackknife = boot.score(full - boot.patterns)  # one unit of each distinct row left out
    if method == "expanded_bca":
        confidence_level = expanded_level(confidence_level, boot.counts.sum())
    bca = binned_bca if isinstance(boot.samples, Binned) else bca_interval
    return bca(boot.samples, boot.estimate, confidence_level, jackknife, boot.counts)


def _as_dict(names, bounds):
    return {name: [float(bounds[0, j]), float(bounds[1, j])] for j, name in enumerate(names)}


def intervals(
    stats: NDArray[np.int64],
    types: Sequence[str],
    resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    families: Sequence[str] = INTERVAL_FAMILIES,
    beta: float = 1.0,
    zero_division: Any = 0.0,
    method: str = DEFAULT_METHOD,
) -> dict[str, Any]:
    """``{score name: [low, high]}`` by bootstrap over the rows of ``stats`` (one per unit)."""
    boot = bootstrap(stats, types, resamples, seed, families, beta, zero_division)
    return _as_dict(boot.names, interval_bounds(boot, confidence_level, method))


def paired(
    stats_a: NDArray[np.int64],
    stats_b: NDArray[np.int64],
    types: Sequence[str],
    permutations: int = 10_000,
    resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    families: Sequence[str] = INTERVAL_FAMILIES,
    beta: float = 1.0,
    zero_division: Any = 0.0,
    method: str = DEFAULT_METHOD,
) -> dict[str, Any]:
    """Two systems on the same units (rows of ``stats_a`` / ``stats_b``, one type space).

    Returns names, the scores ``a`` and ``b``, ``difference`` (b - a), its paired-bootstrap
    ``intervals`` (with ``resamples`` > 0) and the approximate-randomisation ``p_values``.
    """
    k = len(types)
    total_a, total_b = stats_a.sum(axis=0), stats_b.sum(axis=0)
    present = tuple(sorted(set(present_types(total_a, k)) | set(present_types(total_b, k))))

    def score(t):
        return score_table(t, types, families, beta, zero_division, present, undefined=True)[1]

    def estimate(t):
        return score_table(t, types, families, beta, zero_division, present)

    names = estimate(total_a)[0]
    return paired_scores(
        stats_a,
        stats_b,
        names,
        score,
        lambda t: estimate(t)[1],
        permutations,
        resamples,
        confidence_level,
        seed,
        method,
    )


def paired_scores(
    stats_a: NDArray[np.int64],
    stats_b: NDArray[np.int64],
    names: list[str],
    score: Callable[[NDArray[Any]], NDArray[np.float64]],
    estimate: Callable[[NDArray[Any]], NDArray[np.float64]],
    permutations: int,
    resamples: int,
    confidence_level: float,
    seed: int,
    method: str = DEFAULT_METHOD,
) -> dict[str, Any]:
    """:func:`paired` for any scores of summed rows: ``score(totals)`` (rows x names, NaN where
    undefined) for the resamples and permutations, ``estimate(totals)`` for the point values."""
    total_a, total_b = stats_a.sum(axis=0), stats_b.sum(axis=0)
    both = estimate(np.stack([total_a, total_b]))
    observed = both[1] - both[0]
    boot_rng, perm_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    out = {
        "names": names,
        "a": both[0],
        "b": both[1],
        "difference": observed,
        "p_values": _p_values(stats_b - stats_a, total_a, total_b, observed, permutations, perm_rng, score),
    }
    if resamples:
        patterns, counts = group_rows(np.concatenate([stats_a, stats_b], axis=1))
        width = stats_a.shape[1]

        def gap(t):
            return score(t[:, width:]) - score(t[:, :width])

        draws = (gap(t) for t in bootstrap_totals(patterns, counts, resamples, boot_rng))
        boot = Bootstrap(names, observed, collect(draws, observed, resamples), patterns, counts, gap)
        out["intervals"] = interval_bounds(boot, confidence_level, method)
    return out


def _p_values(differences, total_a, total_b, observed, permutations, rng, score):
    """Two-sided approximate-randomisation p-value of each score's difference."""
    moved = np.any(differences != 0, axis=1)
    if not moved.any():
        return np.ones(len(observed))
    patterns, counts = group_rows(differences[moved])
    tolerance = 1e-12 * np.maximum(1.0, np.abs(observed))
    extreme = np.zeros(len(observed), dtype=np.int64)
    defined = np.zeros(len(observed), dtype=np.int64)
    for shift in permutation_shifts(patterns, counts, permutations, rng):
        gap = score(total_b - shift) - score(total_a + shift)
        extreme += np.count_nonzero(np.abs(gap) >= np.abs(observed) - tolerance, axis=0)
        defined += np.count_nonzero(~np.isnan(gap), axis=0)
    return (1 + extreme) / (1 + defined)


# ---------------------------------------------------------------------------- results


def families_of(scores: Iterable[str]) -> tuple[str, ...]:
    """The score families with intervals among the families ``scores`` asks for: those of the
    registry that support "intervals" (each must derive from the count row)."""
    wanted = tuple(scores)
    families = supporting("intervals", wanted)
    strange = [f for f in families if f not in INTERVAL_FAMILIES]
    if strange:
        raise RegistryError(
            f"family {strange[0]!r} supports 'intervals', but the bootstrap resamples the count row of"
            f" {list(INTERVAL_FAMILIES)} only: its scores must derive from that row"
        )
    return families


def interval_results(
    stats: NDArray[np.int64],
    types: Sequence[str],
    options: dict[str, Any],
    families: Sequence[str] = INTERVAL_FAMILIES,
    beta: float = 1.0,
    zero_division: Any = 0.0,
) -> dict[str, Any]:
    """``results["intervals"]`` from per-unit ``stats`` and the dict of
    :func:`check_uncertainty_options`."""
    return intervals(
        stats,
        types,
        options["resamples"],
        options["confidence_level"],
        options["seed"],
        families,
        beta,
        zero_division,
        method=DEFAULT_METHOD,
    )


#: cells (rows x statistics columns) of resampled totals scored in one batch by :func:`many_intervals`
CELLS_PER_BATCH = 1 << 18


def _grouped(stats, types):
    patterns, counts = group_rows(stats)
    full = (patterns * counts[:, None]).sum(axis=0)
    return patterns, counts, full, present_types(full, len(types))


def many_intervals(
    stats_list: Sequence[NDArray[np.int64]],
    types: Sequence[str],
    options: dict[str, Any],
    families: Sequence[str] = INTERVAL_FAMILIES,
    beta: float = 1.0,
    zero_division: Any = 0.0,
) -> list[dict[str, Any]]:
    """:func:`interval_results` of each of ``stats_list`` (the unit rows of each slice value), the
    same to the bit: each draws its own resamples from its own generator, and the scores of many
    (their estimates, resamples and jackknife rows, one derivation per row) are derived in batches,
    not in three calls each. Batches hold :data:`CELLS_PER_BATCH` cells; values of the same present
    types go together (seqeval's per-type scores are over those)."""
    resamples, level, seed = options["resamples"], options["confidence_level"], options["seed"]
    grouped = [_grouped(stats, types) for stats in stats_list]
    by_present: dict[tuple[int, ...], list[int]] = {}
    for i, g in enumerate(grouped):
        by_present.setdefault(g[3], []).append(i)
    out: list[dict[str, Any]] = [{} for _ in stats_list]
    for present, members in by_present.items():

        def score(totals, undefined, present=present):
            return score_table(totals, types, families, beta, zero_division, present, undefined)

        names, estimates = score(np.stack([grouped[i][2] for i in members]), False)
        if resamples * max(len(names), 1) > interval_methods.MAX_CELLS:  # binned draws: one value at a time
            for i in members:
                out[i] = interval_results(stats_list[i], types, options, families, beta, zero_division)
            continue
        position = {i: k for k, i in enumerate(members)}
        cells = [(resamples + len(grouped[i][0])) * len(grouped[i][2]) for i in members]
        for batch in _batches(members, cells):
            for i, (samples, jackknife) in zip(
                batch, _scored_draws([grouped[i] for i in batch], seed, resamples, score)
            ):
                patterns, counts = grouped[i][:2]
                boot = Bootstrap(names, estimates[position[i]], samples, patterns, counts, _given(jackknife))
                out[i] = _as_dict(names, interval_bounds(boot, level, DEFAULT_METHOD))
    return out


def _given(scores: NDArray[np.float64]) -> Callable[[NDArray[Any]], NDArray[np.float64]]:
    return lambda _: scores  # the jackknife rows' scores, derived in a batch


def _scored_draws(grouped, seed, resamples, score):
    """Per grouped value, (its resamples' scores, its jackknife rows' scores): each value's draws
    from its own generator (as :func:`bootstrap` draws them), every row scored in one call."""
    parts, sizes = [], []
    for patterns, counts, full, _ in grouped:
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
        draws = list(bootstrap_totals(patterns, counts, resamples, rng))
        parts += [*draws, full - patterns]  # the jackknife: one unit of each distinct row left out
        sizes.append((sum(map(len, draws)), len(patterns)))
    rows = np.concatenate(parts)
    if 4 * sum(_outcomes(counts, resamples) + len(counts) for _, counts, _, _ in grouped) < len(rows):
        distinct, inverse = distinct_rows(rows)  # small values repeat their totals: each scored once
        scored = score(distinct, True)[1][inverse]
    else:
        scored = score(rows, True)[1]
    start = 0
    for size, left_out in sizes:
        yield scored[start : start + size], scored[start + size : start + size + left_out]
        start += size + left_out


def _outcomes(counts, resamples):
    """At most how many distinct totals ``resamples`` draws of units with these distinct rows give."""
    n, k = int(counts.sum()), len(counts)
    if n + k > 400:  # far more multisets than draws
        return resamples
    return min(math.comb(n + k - 1, k - 1), resamples)


def _batches(members: list[int], cells: list[int]) -> Iterator[list[int]]:
    """``members`` in runs of at most :data:`CELLS_PER_BATCH` cells (each run at least one)."""
    batch: list[int] = []
    size = 0
    for i, c in zip(members, cells):
        if batch and size + c > CELLS_PER_BATCH:
            yield batch
            batch, size = [], 0
        batch.append(i)
        size += c
    if batch:
        yield batch


def comparison_results(
    out: dict[str, Any], results_a: dict[str, Any], results_b: dict[str, Any], settings: dict[str, Any]
) -> dict[str, Any]:
    """The dict ``compare`` returns, from :func:`paired`'s ``out`` and both systems' results."""
    names = out["names"]
    table, difference, p_values, bounds = [], {}, {}, {}
    for j, name in enumerate(names):
        difference[name] = float(out["difference"][j])
        p_values[name] = float(out["p_values"][j])
        row = {
            "score": name,
            "a": float(out["a"][j]),
            "b": float(out["b"][j]),
            "difference": difference[name],
        }
        if "intervals" in out:
            bounds[name] = [float(out["intervals"][0, j]), float(out["intervals"][1, j])]
            row.update(low=bounds[name][0], high=bounds[name][1])
        row["p_value"] = p_values[name]
        table.append(row)
    result: dict[str, Any] = {"a": results_a, "b": results_b, "difference": difference}
    if "intervals" in out:
        result["intervals"] = bounds
    result.update(p_values=p_values, table=table, settings=settings)
    return result
