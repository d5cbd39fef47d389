"""Coverage study of the confidence intervals of ``ner_stratified``, at 90% and 95%.

A panel of stratified recall samples; every interval method is computed through the vectorised
core that ``stratified_recall`` itself calls, and each method's coverage of the true recall and
mean width are reported. Writes ``bench/ci_coverage.md``.

Two kinds of rows: *fixed* rows (every stratum's recall fixed) and *averaged* rows (each
replicate draws every stratum's recall uniformly from a range, which smooths the lattice effects
of tiny strata). Where sizes are known and the outcome space (the product of n_p + 1) has at
most 250,000 outcomes, coverage is computed by **exact enumeration** (averaged rows: exactly for
each of up to 400 drawn recall vectors, then averaged; the standard error is that of the
average). Elsewhere, and always for the bootstrap, by Monte Carlo, with its standard error.

    python bench/ci_coverage.py [--replicates 20000] [--boot-replicates 1000] [--n-bootstrap 500] [--seed 0]

With ``--design-checks`` it instead checks two choices behind the default interval and writes
``bench/ci_design.md``: how far each method's mean variance lies from the Monte Carlo variance of
the estimate where sizes are estimated (``--replicates 2000000`` resolves 0.1%), and the coverage
the Wilson interval would have with n_eff capped at n.

    python bench/ci_coverage.py --design-checks --replicates 2000000

With ``--poisson`` it checks the Poisson-bootstrap intervals of the counts state
(``metric.state(..., keep="counts")``) instead and writes ``bench/poisson_coverage.md``: a panel of
synthetic corpora whose documents are the units (each document's detection rate drawn around its
scenario's, so that sentences of a document are alike), every score's coverage of its population value
(the ratio of expected counts, from a population of 400,000 documents) by the percentile and the
bias-corrected interval at 95%, through the same resampling code the state runs (``ner_counts_state``); and,
at 1M sentences of bench/speed.py's corpus, how far the Poisson percentile ends lie from the exact
(multinomial) bootstrap's.

    python bench/ci_coverage.py --poisson [--replicates 2000] [--resamples 1000] [--seed 0]
"""

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from ner_recall.core import counts as ner_counts
from ner_recall.core.vocabulary import COLUMNS  # noqa: E402
from ner_recall.state import counts as ner_counts_state
from ner_recall.stats import interval_methods  # noqa: E402
from ner_recall.stats import stratified as ner_stratified
from ner_recall.stats import uncertainty as ner_uncertainty  # noqa: E402

BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
METHODS = ("wilson", "weighted_wald", "stratified_wald", "korn_graubard", "bootstrap")
LEVELS = (0.95, 0.90)
#: coverage band of the default interval on averaged rows, and its floor on fixed rows
BANDS = {0.95: (0.935, 0.965), 0.90: (0.885, 0.915)}
FLOORS = {0.95: 0.925, 0.90: 0.875}
EXACT_OUTCOMES = 250_000
EXACT_CELLS = 20_000_000  # outcomes x recall vectors held at once
RECALL_DRAWS = 400  # recall vectors of an exact averaged row
CHUNK = 200_000  # Monte Carlo replicates per chunk


# ----------------------------------------------------------------------------- scenarios


def scenario(name, n, weights, p_full, p_half=0.0, estimated=None, ranges=None):
    """One scenario: sample sizes n_p, true population sizes, true credit probabilities; or, for
    an averaged row, ``ranges`` = (low, high) per stratum, each replicate's recalls drawn
    uniformly from them. ``estimated`` = (occurences, labelled): the design of ``corpus_scenario``."""
    n = np.asarray(n, dtype=float)
    if ranges is not None:
        ranges = tuple(np.broadcast_to(np.asarray(r, dtype=float), n.shape) for r in ranges)
        p_full = (ranges[0] + ranges[1]) / 2
    p_full, p_half = (np.broadcast_to(np.asarray(p, dtype=float), n.shape) for p in (p_full, p_half))
    weights = np.asarray(weights, dtype=float)
    true_recall = weights @ (p_full + 0.5 * p_half) / weights.sum()
    return dict(
        name=name,
        n=n,
        weights=weights,
        p_full=p_full,
        p_half=p_half,
        estimated=estimated,
        ranges=ranges,
        truth=float(true_recall),
    )


def read_sizes(benchmark):
    """occurences, labelled, positive arrays of a benchmark's populations, in file order."""
    with open(BENCHMARKS / benchmark / "data_description.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return tuple(np.array([int(row[key]) for row in rows]) for key in ("occurences", "labelled", "positive"))


def corpus_scenario(name, occurences, labelled, positive, recalls):
    """A fixed corpus: population p holds K_p = round(q_p occurences_p) entities, q_p = positive_p /
    labelled_p, and F_p = round(recall_p K_p) of them are found; the truth is sum F_p / sum K_p. A
    population with labelled_p > occurences_p is drawn with replacement: it weighs q_p occurences_p."""
    finite = labelled <= occurences
    expected = positive / labelled * occurences
    entities = np.where(finite, np.round(expected), expected)
    recalls = np.asarray(recalls, dtype=float)
    p_full = np.where(finite, np.round(recalls * entities) / entities, recalls)
    return dict(scenario(name, positive, entities, p_full, estimated=(occurences, labelled)), finite=finite)


AMUNDSEN_RECALLS = {
    "amundsen_01": [0.76, 0.08, 0.45],
    "amundsen_02": [0.40, 0.30, 0.80, 0.60, 0.50, 0.20, 0.50, 0.70, 0.25],
}
TINY, TINY_WEIGHTS = [4, 5, 6, 5, 4], [0.1, 0.3, 0.2, 0.25, 0.15]


def fixed_scenarios():
    rows = [
        scenario("equal recalls 0.7", [100, 50, 200], [0.3, 0.5, 0.2], 0.7),
        scenario("very different recalls", [100, 30, 200], [0.2, 0.5, 0.3], [0.95, 0.3, 0.6]),
        scenario("plain recall (weights = n)", [60, 90, 150], [60, 90, 150], [0.9, 0.5, 0.7]),
        scenario("partial credits", [80, 40, 120], [0.4, 0.4, 0.2], [0.6, 0.4, 0.7], [0.15, 0.2, 0.1]),
        scenario("recall near 0.02", [200, 100, 300], [0.3, 0.3, 0.4], [0.01, 0.03, 0.02]),
        scenario("recall near 0.99", [200, 100, 300], [0.3, 0.3, 0.4], [0.995, 0.98, 0.99]),
        scenario("one stratum of 200 at 0.995", [200], [1], [0.995]),
        scenario("two of 100 at 0.99 and 1", [100, 100], [0.5, 0.5], [0.99, 1.0]),
        scenario("30 of 330 carry 0.6, recall 0", [30, 300], [0.6, 0.4], [0.0, 0.7]),
        scenario("30 of 330 carry 0.6, recall 0.02", [30, 300], [0.6, 0.4], [0.02, 0.7]),
        scenario("10 entities carry 0.9, recalls 0.7 / 0.8", [10, 200], [0.9, 0.1], [0.7, 0.8]),
        scenario("10 entities carry 0.9, recalls 0.5 / 0.8", [10, 200], [0.9, 0.1], [0.5, 0.8]),
        scenario("tiny strata (4-6 items)", TINY, TINY_WEIGHTS, [0.9, 0.5, 0.7, 0.3, 0.8]),
        scenario("tiny strata, recalls 0.85-1", TINY, TINY_WEIGHTS, [0.95, 0.9, 1.0, 0.85, 0.95]),
        scenario("tiny strata, recalls 0-0.2", TINY, TINY_WEIGHTS, [0.1, 0.05, 0.2, 0.0, 0.1]),
        scenario("30 items in all", [10, 12, 8], [0.5, 0.3, 0.2], [0.8, 0.5, 0.6]),
        scenario("5 items carry half the weight", [5, 200], [0.5, 0.5], [0.6, 0.8]),
    ]
    for bench, recalls in AMUNDSEN_RECALLS.items():
        occurences, labelled, positive = read_sizes(bench)
        rows.append(
            scenario(f"{bench} shape, sizes known", positive, positive * occurences / labelled, recalls)
        )
        rows.append(
            corpus_scenario(f"{bench} shape, sizes estimated", occurences, labelled, positive, recalls)
        )
    return rows


def averaged_scenarios():
    return [
        scenario("tiny strata, recalls 0.3-0.9", TINY, TINY_WEIGHTS, None, ranges=(0.3, 0.9)),
        scenario("tiny strata, recalls 0.8-1", TINY, TINY_WEIGHTS, None, ranges=(0.8, 1.0)),
        scenario("tiny strata, recalls 0-0.2", TINY, TINY_WEIGHTS, None, ranges=(0.0, 0.2)),
        scenario("30 items in all, recalls 0.4-0.9", [10, 12, 8], [0.5, 0.3, 0.2], None, ranges=(0.4, 0.9)),
        scenario("5 items carry half, recalls 0.5-0.9", [5, 200], [0.5, 0.5], None, ranges=(0.5, 0.9)),
        scenario("10 entities carry 0.9, recalls 0.2-0.95", [10, 200], [0.9, 0.1], None, ranges=(0.2, 0.95)),
        scenario("one stratum of 20, recall 0.1-0.9", [20], [1], None, ranges=(0.1, 0.9)),
        scenario("one stratum of 200, recall 0.98-1", [200], [1], None, ranges=(0.98, 1.0)),
        scenario("two of 100, recalls 0.97-1", [100, 100], [0.5, 0.5], None, ranges=(0.97, 1.0)),
        scenario(
            "30 of 330 carry 0.6, recalls 0-0.05 / 0.5-0.9",
            [30, 300],
            [0.6, 0.4],
            None,
            ranges=([0.0, 0.5], [0.05, 0.9]),
        ),
        scenario(
            "three strata of 50-200, recalls 0.5-0.9",
            [100, 50, 200],
            [0.3, 0.5, 0.2],
            None,
            ranges=(0.5, 0.9),
        ),
        scenario(
            "three strata of 100-300, recalls 0-0.04",
            [200, 100, 300],
            [0.3, 0.3, 0.4],
            None,
            ranges=(0.0, 0.04),
        ),
        scenario(
            "three strata of 100-300, recalls 0.97-1",
            [200, 100, 300],
            [0.3, 0.3, 0.4],
            None,
            ranges=(0.97, 1.0),
        ),
    ]


def outcome_count(sc):
    return float(np.prod(sc["n"] + 1))


def is_exact(sc):
    return sc["estimated"] is None and not sc["p_half"].any() and outcome_count(sc) <= EXACT_OUTCOMES


# ----------------------------------------------------------------------------- exact enumeration


def exact_coverage(sc, rng, methods=METHODS[:-1]):
    """{level: {method: (coverage, standard error, mean width)}} by enumerating every outcome of
    the full counts (bootstrap excluded); averaged rows: for each drawn recall vector."""
    n = sc["n"].astype(int)
    full = np.stack([g.ravel() for g in np.meshgrid(*(np.arange(k + 1) for k in n), indexing="ij")], -1)
    draws = (
        sc["p_full"][None]
        if sc["ranges"] is None
        else rng.uniform(*sc["ranges"], size=(min(RECALL_DRAWS, max(1, EXACT_CELLS // len(full))), len(n)))
    )
    prob = np.ones((len(full), len(draws)))
    for p in range(len(n)):
        prob *= stats.binom.pmf(np.arange(n[p] + 1)[:, None], n[p], draws[None, :, p])[full[:, p]]
    truth = draws @ sc["weights"] / sc["weights"].sum()
    out = {}
    for level in LEVELS:
        out[level] = {}
        for method in methods:
            _, low, high, _ = ner_stratified.stratified_recall_arrays(
                sc["n"], full, 0, sc["weights"], ci_method=method, confidence_level=level
            )
            covered = (((low[:, None] <= truth) & (truth <= high[:, None])) * prob).sum(0)
            se = covered.std(ddof=1) / len(covered) ** 0.5 if len(covered) > 1 else 0.0
            out[level][method] = (float(covered.mean()), float(se), float(prob.mean(1) @ (high - low)))
    return out


# ----------------------------------------------------------------------------- Monte Carlo


def simulate(sc, m, rng):
    """Counts of m replicates and their truths: (n, full, half, sizes), sizes keywords, truth."""
    shape = (m, len(sc["n"]))
    p_full = np.broadcast_to(sc["p_full"], shape)
    truth = np.full(m, sc["truth"])
    if sc["ranges"] is not None:
        p_full = rng.uniform(*sc["ranges"], size=shape)
        truth = p_full @ sc["weights"] / sc["weights"].sum()
    if sc["estimated"] is None:
        n = np.broadcast_to(sc["n"], shape).astype(np.int64)
        full, half = binomial_credits(n, p_full, np.broadcast_to(sc["p_half"], shape), rng)
        return (n, full, half, sc["weights"]), {}, truth
    occurences, labelled = sc["estimated"]
    finite = sc["finite"]
    n = np.empty(shape, dtype=np.int64)
    for p in range(shape[1]):
        if finite[p]:
            entities = round(sc["weights"][p])
            n[:, p] = rng.hypergeometric(entities, occurences[p] - entities, labelled[p], size=m)
        else:
            n[:, p] = rng.binomial(labelled[p], sc["n"][p] / labelled[p], size=m)
    full, half = binomial_credits(np.where(finite, 0, n), p_full, np.broadcast_to(sc["p_half"], shape), rng)
    for p in np.flatnonzero(finite):  # the credits of entities drawn without replacement
        entities = round(sc["weights"][p])
        found, halved = round(sc["p_full"][p] * entities), round(sc["p_half"][p] * entities)
        full[:, p] = rng.hypergeometric(found, entities - found, n[:, p])
        half[:, p] = rng.hypergeometric(halved, entities - found - halved, n[:, p] - full[:, p])
    sizes = dict(q=n / labelled, labelled=labelled, occurences=occurences)
    return (n, full, half, n * occurences / labelled), sizes, truth


def binomial_credits(n, p_full, p_half, rng):
    """full and half credits of n items drawn with replacement."""
    full = rng.binomial(n, p_full)
    p_half = np.divide(p_half, 1 - p_full, out=np.zeros(p_full.shape), where=p_full < 1)
    return full, rng.binomial(n - full, p_half)


def monte_carlo_coverage(sc, methods, replicates, rng, n_bootstrap=None):
    """{level: {method: (coverage, standard error, mean width)}} from ``replicates`` simulated samples."""
    covered = {(level, m): 0 for level in LEVELS for m in methods}
    width = dict.fromkeys(covered, 0.0)
    chunk = (
        CHUNK
        if n_bootstrap is None
        else max(1, ner_stratified.BOOTSTRAP_CELLS // (n_bootstrap * len(sc["n"])))
    )
    for start in range(0, replicates, chunk):
        counts, sizes, truth = simulate(sc, min(chunk, replicates - start), rng)
        for level, method in covered:
            _, low, high, _ = ner_stratified.stratified_recall_arrays(
                *counts,
                **sizes,
                ci_method=method,
                confidence_level=level,
                n_bootstrap=n_bootstrap or 1,
                rng=rng,
            )
            covered[level, method] += int(((low <= truth) & (truth <= high)).sum())
            width[level, method] += float((high - low).sum())
    out = {level: {} for level in LEVELS}
    for (level, method), c in covered.items():
        p = c / replicates
        out[level][method] = (p, (p * (1 - p) / replicates) ** 0.5, width[level, method] / replicates)
    return out


def run_row(sc, args, rng):
    """Every method's coverage in one scenario, and how each was measured."""
    if is_exact(sc):
        result, how = exact_coverage(sc, rng), "exact"
    else:
        result = monte_carlo_coverage(sc, METHODS[:-1], args.replicates, rng)
        how = f"MC {args.replicates:,}"
    boot = monte_carlo_coverage(sc, ("bootstrap",), args.boot_replicates, rng, args.n_bootstrap)
    for level in LEVELS:
        result[level].update(boot[level])
    return result, how


# ----------------------------------------------------------------------------- report


def goal(sc, row, level, averaged):
    """Whether wilson meets its goal at this level, and if not, how it misses."""
    coverage, _, width = row["wilson"]
    wald_coverage, _, wald_width = row["weighted_wald"]
    band = BANDS[level] if averaged else (FLOORS[level], 1.0)
    misses = []
    if not band[0] <= coverage <= band[1]:
        misses.append(
            "below the floor"
            if not averaged
            else "below the band"
            if coverage < band[0]
            else "above the band"
        )
    if wald_coverage >= BANDS[level][0] and width > wald_width * (1 + 1e-9):
        misses.append(f"{100 * (width / wald_width - 1):.1f}% wider than weighted_wald")
    return "; ".join(misses) or "met"


def cell(values):
    coverage, se, width = values
    return f"{coverage:.4f}" + (f" ± {se:.4f}" if se > 0 else "") + f" / {width:.4f}"


def level_table(results, level):
    lines = [
        f"### {round(100 * level)}%",
        "",
        "| scenario | kind | how | true R | " + " | ".join(METHODS) + " | goal |",
        "|---|---|---|---|" + "---|" * len(METHODS) + "---|",
    ]
    for sc, averaged, (row, how) in results:
        kind = "averaged" if averaged else "fixed"
        truth = "avg " + f"{sc['truth']:.3f}" if averaged else f"{sc['truth']:.4f}"
        cells = " | ".join(cell(row[level][m]) for m in METHODS)
        lines.append(
            f"| {sc['name']} | {kind} | {how} | {truth} | {cells} | {goal(sc, row[level], level, averaged)} |"
        )
    return lines


def table(results, args, seconds):
    """Markdown report."""
    lines = [
        "# Coverage of the recall intervals at 95% and 90%",
        "",
        f"`python bench/ci_coverage.py --replicates {args.replicates} --boot-replicates {args.boot_replicates} "
        f"--n-bootstrap {args.n_bootstrap} --seed {args.seed}`; {seconds:.0f} s.",
        "",
        "Each cell: coverage of the true recall (± its standard error, where it has one) / mean width. "
        "Goal for wilson, the default: on averaged rows coverage in "
        f"[{BANDS[0.95][0]}, {BANDS[0.95][1]}] at 95% and [{BANDS[0.90][0]}, {BANDS[0.90][1]}] at 90%; on fixed rows at "
        f"least {FLOORS[0.95]} / {FLOORS[0.90]}; and no wider than weighted_wald where that one reaches the band.",
        "",
    ]
    for level in LEVELS:
        lines += level_table(results, level) + [""]
    lines += [
        "Notes:",
        "- *exact*: every outcome of the credit counts enumerated with its binomial probability (averaged rows: "
        f"for each of up to {RECALL_DRAWS} recall vectors drawn uniformly from the ranges; ± is the standard error "
        "of that average). *MC n*: n simulated samples; ± is the binomial standard error. The bootstrap column is "
        f"always Monte Carlo: {args.boot_replicates:,} samples of {args.n_bootstrap} resamples each.",
        '- "sizes estimated" follows the benchmarks\' design: a fixed corpus whose population p has occurences_p '
        "candidates (data_description.csv), K_p = round(occurences_p positive_p / labelled_p) of them entities and "
        "round(recall_p K_p) of those found; per sample labelled_p candidates are drawn without replacement "
        "(positive_p ~ hypergeometric), the entities among them are n_p = positive_p (credits hypergeometric too), "
        "the weights are re-estimated (a population whose draw is 0 drops out), and the truth is the corpus recall. "
        "amundsen_02's population I (labelled 1000 > occurences 314) is drawn with replacement.",
        "- weighted_wald is the published EstNLTK formula; korn_graubard is conservative by design.",
        "",
        *scenario_table(results),
    ]
    return "\n".join(lines) + "\n"


DOCS = ROOT / "docs" / "stratified-recall.md"


def misses(results):
    """Markdown list: the rows where the default misses its goal, by level."""
    lines = []
    for level in LEVELS:
        for sc, averaged, (row, how) in results:
            verdict = goal(sc, row[level], level, averaged)
            if verdict != "met":
                lines.append(
                    f"- {round(100 * level)}%, {sc['name']} ({'averaged' if averaged else 'fixed'}, {how}): "
                    f"wilson {row[level]['wilson'][0]:.4f}, korn_graubard "
                    f"{row[level]['korn_graubard'][0]:.4f}: {verdict}"
                )
    return lines or ["- none"]


def update_docs(blocks, path=DOCS):
    """Replace the docs page's ``<!-- name -->`` ... ``<!-- /name -->`` blocks with these lines."""
    text = path.read_text()
    for name, lines in blocks.items():
        start = text.index(f"<!-- {name} -->\n") + len(f"<!-- {name} -->\n")
        text = text[:start] + "".join(line + "\n" for line in lines) + text[text.index(f"<!-- /{name} -->") :]
    path.write_text(text)


def table_blocks(text):
    """The markdown tables of a text, one blank line between two."""
    lines = []
    for line in text.splitlines():
        if line.startswith("|"):
            lines.append(line)
        elif lines and lines[-1] != "":
            lines.append("")
    return lines[:-1] if lines and lines[-1] == "" else lines


def coverage_blocks(results):
    """The docs page's coverage tables (one block per level) and its list of misses."""
    names = {0.95: "ci-coverage", 0.90: "ci-coverage-90"}
    blocks = {names[level]: level_table(results, level)[2:] for level in LEVELS}
    return dict(blocks, **{"ci-misses": misses(results)})


def scenario_table(results):
    """Markdown rows: each scenario's sample sizes, relative weights and true credit rates."""

    def numbers(values, digits=3):
        return ", ".join(f"{v:.{digits}g}" for v in values)

    lines = ["| scenario | n_p | weights W_p | P(credit 1) | P(credit 0.5) |", "|---|---|---|---|---|"]
    for sc, averaged, _ in results:
        weights = sc["weights"] / sc["weights"].sum()
        rates = (
            numbers(sc["p_full"])
            if sc["ranges"] is None
            else ", ".join(f"{a:g}-{b:g}" for a, b in zip(*sc["ranges"]))
        )
        lines.append(
            f"| {sc['name']} | {numbers(sc['n'], 6)} | {numbers(weights)} | {rates} | "
            f"{numbers(sc['p_half'])} |"
        )
    return lines


# ----------------------------------------------------------------------------- design checks

VARIANCE_METHODS = ("wilson", "weighted_wald", "stratified_wald")


def mc_chunks(sc, replicates, rng):
    for start in range(0, replicates, CHUNK):
        yield simulate(sc, min(CHUNK, replicates - start), rng)


def variance_check(sc, replicates, rng):
    """Monte Carlo variance of R, and each method's mean variance (its standard error squared)
    relative to it."""
    total = total_sq = 0.0
    mean_variance = {m: 0.0 for m in VARIANCE_METHODS}
    for counts, sizes, _ in mc_chunks(sc, replicates, rng):
        for method in VARIANCE_METHODS:
            r, _, _, se = ner_stratified.stratified_recall_arrays(*counts, **sizes, ci_method=method)
            mean_variance[method] += float((se**2).sum()) / replicates
        total, total_sq = total + float(r.sum()), total_sq + float((r**2).sum())
    var_r = (total_sq - total**2 / replicates) / (replicates - 1)
    return var_r, {m: 100 * (v / var_r - 1) for m, v in mean_variance.items()}


def capped_coverage(sc, replicates, rng):
    """Coverage and mean width of the Wilson interval as it is, and with n_eff capped at n."""
    design = ner_stratified._design

    def capped_design(sample):
        variance, n_eff = design(sample)
        return variance, np.minimum(n_eff, sample.n.sum(-1))

    covered, width = [0, 0], [0.0, 0.0]
    for counts, sizes, truth in mc_chunks(sc, replicates, rng):
        for k, variant in enumerate((design, capped_design)):
            ner_stratified._design = variant
            try:
                _, low, high, _ = ner_stratified.stratified_recall_arrays(
                    *counts, **sizes, ci_method="wilson"
                )
            finally:
                ner_stratified._design = design
            covered[k] += int(((low <= truth) & (truth <= high)).sum())
            width[k] += float((high - low).sum())
    return [(c / replicates, w / replicates) for c, w in zip(covered, width)]


def boundary_rule(rng):
    """Exact coverage of the default on every exact row, at both levels, with its Jeffreys bound
    near 0 and 1 and without it (BOUNDARY_COUNT = 0: plain Wilson at n_eff)."""
    rows = []
    for sc in fixed_scenarios() + averaged_scenarios():
        if is_exact(sc):
            cells = []
            for count in (ner_stratified.BOUNDARY_COUNT, 0.0):
                saved, ner_stratified.BOUNDARY_COUNT = ner_stratified.BOUNDARY_COUNT, count
                try:
                    result = exact_coverage(sc, np.random.default_rng(0), methods=("wilson",))
                finally:
                    ner_stratified.BOUNDARY_COUNT = saved
                cells.append(result)
            rows.append((sc, cells))
    lines = ["| scenario | 95% | 95%, plain Wilson | 90% | 90%, plain Wilson |", "|---|---|---|---|---|"]
    for sc, (rule, plain) in rows:
        values = [
            f"{c[level]['wilson'][0]:.4f} / {c[level]['wilson'][2]:.4f}"
            for level in LEVELS
            for c in (rule, plain)
        ]
        lines.append(f"| {sc['name']} | " + " | ".join(values) + " |")
    return lines


def design_report(args, rng):
    """Markdown report of the design checks."""
    begin = time.perf_counter()
    boundary_lines = boundary_rule(rng)
    estimated = [sc for sc in fixed_scenarios() if sc["estimated"] is not None]
    variance_rows = [(sc, *variance_check(sc, args.replicates, rng)) for sc in estimated]
    cap_rows = [(sc, capped_coverage(sc, args.replicates, rng)) for sc in fixed_scenarios()]
    seconds = time.perf_counter() - begin
    lines = [
        "# Design checks of the default interval",
        "",
        f"`python bench/ci_coverage.py --design-checks --replicates {args.replicates} --seed {args.seed}`; "
        f"{seconds:.0f} s. Monte Carlo SE of a relative variance: {100 * (2 / (args.replicates - 1)) ** 0.5:.2f}%; "
        f"of a coverage: {(0.95 * 0.05 / args.replicates) ** 0.5:.4f}. 95% level.",
        "",
        "Mean variance (standard error squared) of each method against the Monte Carlo variance of the "
        "estimate, where sizes are estimated:",
        "",
        "| scenario | Var(R) | " + " | ".join(VARIANCE_METHODS) + " |",
        "|---|---:|" + "---:|" * len(VARIANCE_METHODS),
    ]
    for sc, var_r, bias in variance_rows:
        lines.append(
            f"| {sc['name']} | {var_r:.4e} | "
            + " | ".join(f"{bias[m]:+.2f}%" for m in VARIANCE_METHODS)
            + " |"
        )
    lines += [
        "",
        "Wilson coverage / mean width, n_eff as it is and capped at n:",
        "",
        "| scenario | wilson | wilson, n_eff capped at n |",
        "|---|---|---|",
    ]
    for sc, ((c0, w0), (c1, w1)) in cap_rows:
        lines.append(f"| {sc['name']} | {c0:.4f} / {w0:.4f} | {c1:.4f} / {w1:.4f} |")
    lines += [
        "",
        "Exact coverage / mean width of the default on the exact rows of the coverage panel, with its Jeffreys "
        f"bound where at most {ner_stratified.BOUNDARY_COUNT} effective entities lie beyond a bound, and as "
        "plain Wilson at n_eff:",
        "",
        *boundary_lines,
    ]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- Poisson bootstrap

POISSON_TYPES = ("LOC", "MISC", "ORG", "PER")
#: the scores whose coverage is reported (per type: every type's F1, precision and recall)
POISSON_SCORES = ("overall_f1", "overall_precision", "overall_recall", "muc_partial_f1", "macro_f1")
POISSON_BAND = (0.93, 0.97)


def poisson_scenarios():
    """(name, documents, sentences per document, entity rate per sentence and type, detection
    rate, its spread over documents (Beta concentration), wrong-type share, partial share,
    spurious rate per sentence)."""
    rates = np.array([0.5, 0.2, 0.4, 0.5])
    return [
        ("200 documents of 10 sentences", 200, 10, rates, 0.8, 20, 0.06, 0.08, 0.15),
        ("1,000 documents of 10 sentences", 1000, 10, rates, 0.8, 20, 0.06, 0.08, 0.15),
        ("60 documents of 20 sentences", 60, 20, rates, 0.7, 10, 0.08, 0.1, 0.2),
        ("500 documents, a rare type", 500, 8, np.array([0.6, 0.02, 0.4, 0.6]), 0.85, 30, 0.05, 0.05, 0.1),
        ("300 documents, uneven documents", 300, 0, rates, 0.75, 5, 0.08, 0.08, 0.2),
    ]


def document_rows(rng, scenario, documents):
    """Per document, its count row of ``ner_core.COLUMNS`` (types as the last axis)."""
    _, _, sentences, rates, detect, spread, wrong, partial, spurious = scenario
    k, width = len(POISSON_TYPES), len(COLUMNS) * len(POISSON_TYPES)
    size = rng.integers(2, 40, documents) if sentences == 0 else np.full(documents, sentences)
    p = rng.beta(detect * spread, (1 - detect) * spread, documents)
    gold = rng.poisson(np.outer(size, rates))  # documents x types
    shares = np.stack([p * (1 - wrong - partial), np.full(documents, wrong), np.full(documents, partial)], 1)
    shares = np.column_stack([shares, 1 - shares.sum(axis=1)])  # exact, other type, overlap, missed
    rows = np.zeros((documents, len(COLUMNS), k), dtype=np.int64)
    for t in range(k):
        outcome = rng.multinomial(gold[:, t], shares)
        rows[:, 0, t], rows[:, 1, t], rows[:, 2, t], rows[:, 6, t] = outcome.T
        rows[:, 4, (t + 1) % k] += outcome[:, 1]  # the predicted side of a wrong type
        rows[:, 7, t] = rng.poisson(size * spurious / k)
    return rows.reshape(documents, width)


def _scores(totals, present=None):
    present = tuple(range(len(POISSON_TYPES))) if present is None else present
    return ner_uncertainty.score_table(np.atleast_2d(totals), POISSON_TYPES, present=present, undefined=True)


def poisson_row(scenario, args, rng):
    """Coverage of every score by both intervals over ``--replicates`` corpora of the scenario."""
    names, truth = _scores(document_rows(rng, scenario, 400_000).sum(axis=0))
    keep = [j for j, n in enumerate(names) if n in POISSON_SCORES or n.split("_")[0] in POISSON_TYPES]
    hits = {m: np.zeros(len(keep)) for m in ner_counts_state.INTERVAL_METHODS}
    width = {m: np.zeros(len(keep)) for m in ner_counts_state.INTERVAL_METHODS}
    defined = np.zeros(len(keep))
    for replicate in range(args.replicates):
        rows = document_rows(rng, scenario, scenario[1])
        entries = np.repeat(np.arange(rows.size), rows.ravel())
        keys = ner_counts_state.unit_keys(list(range(len(rows))), "documents")
        sampled = ner_counts_state.resampled_rows(entries, keys, rows.shape[1], replicate, args.resamples)
        estimate = _scores(rows.sum(axis=0))[1][0]
        samples = _scores(sampled)[1]
        ok = ~np.isnan(estimate[keep])
        defined += ok
        for method, interval in (
            ("percentile", interval_methods.percentile_bounds),
            ("bias_corrected", ner_counts_state._bias_corrected),
        ):
            bounds = interval(samples[:, keep], estimate[keep], 0.95)
            inside = (bounds[0] <= truth[0][keep]) & (truth[0][keep] <= bounds[1])
            hits[method] += inside & ok
            width[method] += np.where(ok, bounds[1] - bounds[0], 0)
    return [names[j] for j in keep], hits, width, defined


def exact_gap(args):
    """The largest distance between the Poisson and the exact bootstrap's percentile ends at 1M
    sentences of bench/speed.py's corpus (sentences as units)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from speed import TAGS, synthetic_corpus

    from ner_recall.core import decoding as ner_decoding
    from ner_recall.families import table as ner_families
    from ner_recall.pipeline import options as ner_options

    lengths, gold, pred = synthetic_corpus(1_000_000, seed=args.seed)
    options = ner_options.check_options("default", {})
    corpus = ner_decoding.corpus_from_codes(TAGS, pred, gold, lengths)
    g, p = ner_decoding.decode(corpus.references, corpus), ner_decoding.decode(corpus.predictions, corpus)
    view = ner_families.build_view(corpus, g, p, options)
    units = np.arange(len(lengths))
    width = len(COLUMNS) * len(view.types)
    entries = ner_counts_state.unit_entries(view, units)
    sampled = ner_counts_state.resampled_rows(
        entries, units.astype(np.uint64), width, args.seed, args.resamples
    )
    present = ner_counts.present_types(view.row, len(view.types))
    names, estimate = ner_uncertainty.score_table(view.row, view.types, present=present)
    poisson = interval_methods.percentile_bounds(
        ner_uncertainty.score_table(sampled, view.types, present=present, undefined=True)[1],
        estimate[0],
        0.95,
    )
    stats = np.bincount(entries, minlength=len(units) * width).reshape(len(units), width)
    exact = ner_uncertainty.intervals(stats, view.types, args.resamples, 0.95, args.seed, method="percentile")
    gaps = {
        n: max(abs(exact[n][0] - poisson[0, j]), abs(exact[n][1] - poisson[1, j]))
        for j, n in enumerate(names)
    }
    worst = max(gaps, key=gaps.get)
    return worst, gaps[worst], exact["overall_f1"], poisson[:, names.index("overall_f1")].tolist()


def poisson_report(args):
    begin = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    lines = [
        "# Coverage of the counts state's Poisson-bootstrap intervals at 95%",
        "",
        "Each cell: coverage of the population value over the replicates where the score is defined"
        f" (goal: in [{POISSON_BAND[0]}, {POISSON_BAND[1]}]) / mean width; documents are the units.",
        "",
        "| scenario | score | percentile | bias-corrected | goal (percentile) |",
        "|---|---|---|---|---|",
    ]
    met = total = 0
    for scenario in poisson_scenarios():
        names, hits, width, defined = poisson_row(scenario, args, rng)
        for j, name in enumerate(names):
            cover = {m: hits[m][j] / max(defined[j], 1) for m in hits}
            ok = POISSON_BAND[0] <= cover["percentile"] <= POISSON_BAND[1]
            met, total = met + ok, total + 1
            lines.append(
                f"| {scenario[0]} | {name} | {cover['percentile']:.4f} / {width['percentile'][j] / max(defined[j], 1):.4f}"
                f" | {cover['bias_corrected']:.4f} / {width['bias_corrected'][j] / max(defined[j], 1):.4f}"
                f" | {'met' if ok else 'outside'} |"
            )
        print(f"{time.perf_counter() - begin:6.1f} s  {scenario[0]}", file=sys.stderr)
    worst, gap, exact_f1, poisson_f1 = exact_gap(args)
    se = np.sqrt(0.95 * 0.05 / args.replicates)
    lines[1:1] = [
        "",
        f"`python bench/ci_coverage.py --poisson --replicates {args.replicates} --resamples {args.resamples}"
        f" --seed {args.seed}`: {time.perf_counter() - begin:.0f} s. {met} of {total} rows in the band"
        f" (a coverage's Monte Carlo standard error about {se:.4f}). At 1M sentences of bench/speed.py's corpus"
        f" the Poisson percentile ends lie at most {gap:.5f} from the exact bootstrap's ({worst}; overall_f1"
        f" exact [{exact_f1[0]:.5f}, {exact_f1[1]:.5f}], Poisson [{poisson_f1[0]:.5f}, {poisson_f1[1]:.5f}]).",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20_000, help="Monte Carlo samples per row")
    parser.add_argument(
        "--boot-replicates", type=int, default=1000, help="Monte Carlo samples for the bootstrap"
    )
    parser.add_argument("--n-bootstrap", type=int, default=500, help="resamples per bootstrap sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="rows whose name contains this (a quick check; not written)")
    parser.add_argument("--output", type=Path, help="default bench/ci_coverage.md (bench/ci_design.md)")
    parser.add_argument(
        "--design-checks",
        action="store_true",
        help="the variance and n_eff-cap checks instead of the coverage table",
    )
    parser.add_argument("--poisson", action="store_true", help="the counts state's Poisson intervals")
    parser.add_argument("--resamples", type=int, default=1000, help="Poisson resamples (with --poisson)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    if args.poisson:
        report = poisson_report(args)
        (args.output or ROOT / "bench" / "poisson_coverage.md").write_text(report)
        print(report)
        return
    if args.design_checks:
        report = design_report(args, rng)
        (args.output or ROOT / "bench" / "ci_design.md").write_text(report)
        if args.output is None:
            update_docs({"ci-design": table_blocks(report)})
        print(report)
        return
    begin = time.perf_counter()
    panel = [(sc, False) for sc in fixed_scenarios()] + [(sc, True) for sc in averaged_scenarios()]
    if args.only:
        panel = [(sc, a) for sc, a in panel if args.only in sc["name"]]
    results = []
    for sc, averaged in panel:
        results.append((sc, averaged, run_row(sc, args, rng)))
        print(f"{time.perf_counter() - begin:6.1f} s  {sc['name']}", file=sys.stderr)
    report = table(results, args, time.perf_counter() - begin)
    if not args.only:
        (args.output or ROOT / "bench" / "ci_coverage.md").write_text(report)
        if args.output is None:
            update_docs(coverage_blocks(results))
    print(report)


if __name__ == "__main__":
    main()
