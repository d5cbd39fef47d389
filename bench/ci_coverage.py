"""Coverage study of the confidence intervals of ``ner_stratified``.

Simulates a panel of stratified recall samples, computes every interval method through the
vectorised core that ``stratified_recall`` itself calls, and reports each method's empirical
coverage of the true recall and the interval's mean width. Writes ``bench/ci_coverage.md``.

    python bench/ci_coverage.py [--replicates 10000] [--seed 0] [--n-bootstrap 1000]

With ``--design-checks`` it instead checks two choices behind the default interval and writes
``bench/ci_design.md``: how far each method's mean variance lies from the Monte Carlo variance of
the estimate where sizes are estimated (``--replicates 2000000`` resolves 0.1%), and the coverage
the Wilson interval would have with n_eff capped at n.

    python bench/ci_coverage.py --design-checks --replicates 2000000
"""
import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import ner_stratified  # noqa: E402

BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
METHODS = ("wilson", "weighted_wald", "stratified_wald", "korn_graubard", "bootstrap")
GOAL = (0.94, 0.965)
CELLS_PER_CHUNK = 4_000_000   # bootstrap works on replicates x resamples x strata arrays
NOTES = [
    "Notes:",
    "- With known sizes every replicate draws each stratum's credits from Binomial(n_p, recall_p) "
    "(partial credits: multinomial full / half / zero); intervals come from "
    "`ner_stratified.stratified_recall_arrays`, the core that `stratified_recall` calls.",
    "- \"sizes known\": weights are the true population sizes. \"sizes estimated\" follows the benchmarks' "
    "design: a fixed corpus whose population p has occurences_p candidates (data_description.csv), "
    "K_p = round(occurences_p positive_p / labelled_p) of them entities and round(recall_p K_p) of those "
    "found; per replicate labelled_p candidates are drawn without replacement (positive_p ~ hypergeometric), "
    "the entities among them are n_p = positive_p (credits hypergeometric too), the weights are re-estimated "
    "(a population whose draw is 0 drops out), and the truth is the corpus recall. amundsen_02's "
    "population I (labelled 1000 > occurences 314) cannot be drawn so: it is drawn with replacement, and "
    "`ner_stratified` applies no finite-population correction to it.",
    "- The bootstrap uses `--n-bootstrap` resamples per replicate (the library default is 10,000).",
    "- weighted_wald is the published EstNLTK formula; korn_graubard is conservative by design.",
]


def read_sizes(benchmark):
    """occurences, labelled, positive arrays of a benchmark's populations, in file order."""
    with open(BENCHMARKS / benchmark / "data_description.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return tuple(np.array([int(row[key]) for row in rows]) for key in ("occurences", "labelled", "positive"))


def scenario(name, n, weights, p_full, p_half=0.0, estimated=None):
    """One scenario: sample sizes n_p, true population sizes, true credit probabilities.
    ``estimated`` = (occurences, labelled): the corpus design of ``corpus_scenario``."""
    n = np.asarray(n, dtype=float)
    p_full, p_half = (np.broadcast_to(np.asarray(p, dtype=float), n.shape) for p in (p_full, p_half))
    weights = np.asarray(weights, dtype=float)
    true_recall = weights @ (p_full + 0.5 * p_half) / weights.sum()
    return dict(name=name, n=n, weights=weights, p_full=p_full, p_half=p_half,
                estimated=estimated, truth=float(true_recall))


def benchmark_scenarios():
    """amundsen_01 and amundsen_02 shapes, with known and with estimated sizes."""
    out = []
    for bench, recalls in (("amundsen_01", [0.76, 0.08, 0.45]),
                           ("amundsen_02", [0.40, 0.30, 0.80, 0.60, 0.50, 0.20, 0.50, 0.70, 0.25])):
        occurences, labelled, positive = read_sizes(bench)
        sizes = positive * occurences / labelled
        out.append(scenario(f"{bench} shape, sizes known", positive, sizes, recalls))
        out.append(corpus_scenario(f"{bench} shape, sizes estimated", occurences, labelled, positive,
                                   recalls))
    return out


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


def scenarios():
    return [
        scenario("equal recalls 0.7", [100, 50, 200], [0.3, 0.5, 0.2], 0.7),
        scenario("very different recalls", [100, 30, 200], [0.2, 0.5, 0.3], [0.95, 0.3, 0.6]),
        scenario("tiny strata (4-6 items)", [4, 5, 6, 5, 4], [0.1, 0.3, 0.2, 0.25, 0.15],
                 [0.9, 0.5, 0.7, 0.3, 0.8]),
        scenario("recall near 0.02", [200, 100, 300], [0.3, 0.3, 0.4], [0.01, 0.03, 0.02]),
        scenario("recall near 0.99", [200, 100, 300], [0.3, 0.3, 0.4], [0.995, 0.98, 0.99]),
        scenario("30 items in all", [10, 12, 8], [0.5, 0.3, 0.2], [0.8, 0.5, 0.6]),
        scenario("plain recall (weights = n)", [60, 90, 150], [60, 90, 150], [0.9, 0.5, 0.7]),
        scenario("partial credits", [80, 40, 120], [0.4, 0.4, 0.2], [0.6, 0.4, 0.7], [0.15, 0.2, 0.1]),
        *benchmark_scenarios(),
    ]


def stress_scenarios():
    """Harder than the panel the goal is set on: tiny strata at extreme recalls, a tiny heavy stratum."""
    tiny, tiny_weights = [4, 5, 6, 5, 4], [0.1, 0.3, 0.2, 0.25, 0.15]
    return [
        scenario("stress: tiny strata, recalls 0.85-1", tiny, tiny_weights, [0.95, 0.9, 1.0, 0.85, 0.95]),
        scenario("stress: tiny strata, recalls 0-0.2", tiny, tiny_weights, [0.1, 0.05, 0.2, 0.0, 0.1]),
        scenario("stress: 5 items carry half the weight", [5, 200], [0.5, 0.5], [0.6, 0.8]),
    ]


def simulate(sc, m, rng):
    """Counts of m replicates: n, full, half, sizes, q, labelled, occurences (the last three None if
    the sizes are known)."""
    shape = (m, len(sc["n"]))
    if sc["estimated"] is None:
        n = np.broadcast_to(sc["n"], shape).astype(np.int64)
        full, half = binomial_credits(sc, n, np.ones(len(sc["n"]), bool), rng)
        return n, full, half, sc["weights"], None, None, None
    occurences, labelled = sc["estimated"]
    finite = sc["finite"]
    n = np.empty(shape, dtype=np.int64)
    for p in range(shape[1]):
        if finite[p]:
            entities = round(sc["weights"][p])
            n[:, p] = rng.hypergeometric(entities, occurences[p] - entities, labelled[p], size=m)
        else:
            n[:, p] = rng.binomial(labelled[p], sc["n"][p] / labelled[p], size=m)
    full, half = binomial_credits(sc, n, ~finite, rng)
    for p in np.flatnonzero(finite):   # the credits of entities drawn without replacement
        entities = round(sc["weights"][p])
        found, halved = round(sc["p_full"][p] * entities), round(sc["p_half"][p] * entities)
        full[:, p] = rng.hypergeometric(found, entities - found, n[:, p])
        half[:, p] = rng.hypergeometric(halved, entities - found - halved, n[:, p] - full[:, p])
    return n, full, half, n * occurences / labelled, n / labelled, labelled, occurences


def binomial_credits(sc, n, columns, rng):
    """full and half credits drawn with replacement in ``columns`` (zeros elsewhere)."""
    p_full, p_half = (np.where(columns, sc[key], 0.0) for key in ("p_full", "p_half"))
    full = rng.binomial(np.where(columns, n, 0), p_full)
    p_half = np.divide(p_half, 1 - p_full, out=np.zeros_like(p_half), where=p_full < 1)
    return full, rng.binomial(n - full, p_half)


def chunks(sc, replicates, size, rng):
    """Simulated replicates, ``size`` at a time, as the positional and keyword counts of
    ``ner_stratified.stratified_recall_arrays``."""
    for start in range(0, replicates, size):
        n, full, half, sizes, q, labelled, occurences = simulate(sc, min(size, replicates - start), rng)
        yield (n, full, half, sizes), dict(q=q, labelled=labelled, occurences=occurences)


def run_scenario(sc, replicates, n_bootstrap, rng):
    """Coverage and mean width of every method in one scenario."""
    chunk = max(1, min(replicates, CELLS_PER_CHUNK // (n_bootstrap * len(sc["n"]))))
    covered = {m: 0 for m in METHODS}
    width = {m: 0.0 for m in METHODS}
    for counts, sizes in chunks(sc, replicates, chunk, rng):
        for method in METHODS:
            _, low, high, _ = ner_stratified.stratified_recall_arrays(
                *counts, **sizes, ci_method=method, n_bootstrap=n_bootstrap, rng=rng)
            covered[method] += int(((low <= sc["truth"]) & (sc["truth"] <= high)).sum())
            width[method] += float((high - low).sum())
    return {m: (covered[m] / replicates, width[m] / replicates) for m in METHODS}


VARIANCE_METHODS = ("wilson", "weighted_wald", "stratified_wald")
CHUNK = 200_000


def variance_check(sc, replicates, rng):
    """Monte Carlo variance of R, and each method's mean variance (its standard error squared)
    relative to it."""
    total = total_sq = 0.0
    mean_variance = {m: 0.0 for m in VARIANCE_METHODS}
    for counts, sizes in chunks(sc, replicates, CHUNK, rng):
        for method in VARIANCE_METHODS:
            r, _, _, se = ner_stratified.stratified_recall_arrays(*counts, **sizes, ci_method=method)
            mean_variance[method] += float((se**2).sum()) / replicates
        total, total_sq = total + float(r.sum()), total_sq + float((r**2).sum())
    var_r = (total_sq - total**2 / replicates) / (replicates - 1)
    return var_r, {m: 100 * (v / var_r - 1) for m, v in mean_variance.items()}


def capped_coverage(sc, replicates, rng):
    """Coverage and mean width of the Wilson interval as it is, and with n_eff capped at n."""
    design = ner_stratified._design

    def capped_design(sample, z):
        variance, n_eff = design(sample, z)
        return variance, np.minimum(n_eff, sample.n.sum(-1))

    covered, width = [0, 0], [0.0, 0.0]
    for counts, sizes in chunks(sc, replicates, CHUNK, rng):
        for k, variant in enumerate((design, capped_design)):
            ner_stratified._design = variant
            try:
                _, low, high, _ = ner_stratified.stratified_recall_arrays(*counts, **sizes, ci_method="wilson")
            finally:
                ner_stratified._design = design
            covered[k] += int(((low <= sc["truth"]) & (sc["truth"] <= high)).sum())
            width[k] += float((high - low).sum())
    return [(c / replicates, w / replicates) for c, w in zip(covered, width)]


def design_report(args, rng):
    """Markdown report of the two design checks."""
    begin = time.perf_counter()
    estimated = [sc for sc in scenarios() if sc["estimated"] is not None]
    variance_rows = [(sc, *variance_check(sc, args.replicates, rng)) for sc in estimated]
    cap_rows = [(sc, capped_coverage(sc, args.replicates, rng)) for sc in scenarios() + stress_scenarios()]
    seconds = time.perf_counter() - begin
    lines = [
        "# Design checks of the default interval",
        "",
        f"`python bench/ci_coverage.py --design-checks --replicates {args.replicates} --seed {args.seed}`; "
        f"{seconds:.0f} s. Monte Carlo SE of a relative variance: {100 * (2 / (args.replicates - 1)) ** 0.5:.2f}%; "
        f"of a coverage: {(0.95 * 0.05 / args.replicates) ** 0.5:.4f}.",
        "",
        "Mean variance (standard error squared) of each method against the Monte Carlo variance of the "
        "estimate, where sizes are estimated:",
        "",
        "| scenario | Var(R) | " + " | ".join(VARIANCE_METHODS) + " |",
        "|---|---:|" + "---:|" * len(VARIANCE_METHODS),
    ]
    for sc, var_r, bias in variance_rows:
        lines.append(f"| {sc['name']} | {var_r:.4e} | " + " | ".join(f"{bias[m]:+.2f}%" for m in VARIANCE_METHODS) + " |")
    lines += ["", "Wilson coverage / mean width, n_eff as it is and capped at n:", "",
              "| scenario | wilson | wilson, n_eff capped at n |", "|---|---|---|"]
    for sc, ((c0, w0), (c1, w1)) in cap_rows:
        lines.append(f"| {sc['name']} | {c0:.4f} / {w0:.4f} | {c1:.4f} / {w1:.4f} |")
    return "\n".join(lines) + "\n"


def goal(row):
    """Whether wilson meets the goal in this scenario, and if not, how it misses."""
    coverage, width = row["wilson"]
    wald_coverage, wald_width = row["weighted_wald"]
    misses = []
    if not GOAL[0] <= coverage <= GOAL[1]:
        misses.append("coverage out of band")
    if wald_coverage >= GOAL[0] and width > wald_width:
        misses.append(f"{100 * (width / wald_width - 1):.1f}% wider than weighted_wald")
    return "; ".join(misses) or "met"


def table(results, args, seconds):
    """Markdown report."""
    mc_se = (0.95 * 0.05 / args.replicates) ** 0.5
    lines = [
        "# Coverage of the 95% recall intervals",
        "",
        f"`python bench/ci_coverage.py --replicates {args.replicates} --seed {args.seed} "
        f"--n-bootstrap {args.n_bootstrap}`; {seconds:.0f} s. Each cell: empirical coverage of the true "
        f"recall (Monte Carlo SE {mc_se:.4f}) / mean width. Goal: wilson coverage in "
        f"[{GOAL[0]}, {GOAL[1]}], and wilson no wider than weighted_wald where that covers >= {GOAL[0]}. "
        "Rows marked stress go beyond the panel of scenarios the goal is set on.",
        "",
        "| scenario | true R | " + " | ".join(METHODS) + " | goal |",
        "|---|---|" + "---|" * len(METHODS) + "---|",
    ]
    for sc, row in results:
        cells = " | ".join(f"{row[m][0]:.4f} / {row[m][1]:.4f}" for m in METHODS)
        lines.append(f"| {sc['name']} | {sc['truth']:.4f} | {cells} | {goal(row)} |")
    lines += ["", *NOTES, "", *scenario_table(sc for sc, _ in results)]
    return "\n".join(lines) + "\n"


def scenario_table(panel):
    """Markdown rows: each scenario's sample sizes, relative weights and true credit rates."""
    def numbers(values, digits):
        return ", ".join(f"{v:.{digits}g}" for v in values)
    lines = ["| scenario | n_p | weights W_p | P(credit 1) | P(credit 0.5) |", "|---|---|---|---|---|"]
    for sc in panel:
        weights = sc["weights"] / sc["weights"].sum()
        lines.append(f"| {sc['name']} | {numbers(sc['n'], 6)} | {numbers(weights, 3)} | "
                     f"{numbers(sc['p_full'], 3)} | {numbers(sc['p_half'], 3)} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-bootstrap", type=int, default=1000, help="resamples per replicate")
    parser.add_argument("--output", type=Path, help="default bench/ci_coverage.md (bench/ci_design.md)")
    parser.add_argument("--design-checks", action="store_true",
                        help="the variance and n_eff-cap checks instead of the coverage table")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    if args.design_checks:
        report = design_report(args, rng)
        (args.output or ROOT / "bench" / "ci_design.md").write_text(report)
        print(report)
        return
    begin = time.perf_counter()
    results = [(sc, run_scenario(sc, args.replicates, args.n_bootstrap, rng)) for sc in scenarios() + stress_scenarios()]
    report = table(results, args, time.perf_counter() - begin)
    (args.output or ROOT / "bench" / "ci_coverage.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
