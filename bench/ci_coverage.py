"""Coverage study of the confidence intervals of ``ner_stratified``.

Simulates a panel of stratified recall samples, computes every interval method through the
vectorised core that ``stratified_recall`` itself calls, and reports each method's empirical
coverage of the true recall and the interval's mean width. Writes ``bench/ci_coverage.md``.

    python bench/ci_coverage.py [--replicates 10000] [--seed 0] [--n-bootstrap 1000]
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
    "- Every replicate draws each stratum's credits from Binomial(n_p, recall_p) (partial credits: "
    "multinomial full / half / zero); intervals come from `ner_stratified.stratified_recall_arrays`, "
    "the core that `stratified_recall` calls.",
    "- \"sizes known\": weights are the true population sizes. \"sizes estimated\": per replicate "
    "positive_p ~ Binomial(labelled_p, q_p) with q_p = positive_p / labelled_p from the benchmark's "
    "data_description.csv, n_p = positive_p and the weights are re-estimated from it "
    "(a population whose draw is 0 drops out); the truth uses the true sizes.",
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
    ``estimated`` = (occurences, labelled): positive_p ~ Binomial(labelled_p, q_p) per replicate."""
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
        out.append(scenario(f"{bench} shape, sizes estimated", positive, sizes, recalls,
                            estimated=(occurences, labelled)))
    return out


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
    """Harder than the brief's panel: tiny strata at extreme recalls, a tiny heavy stratum."""
    tiny, tiny_weights = [4, 5, 6, 5, 4], [0.1, 0.3, 0.2, 0.25, 0.15]
    return [
        scenario("stress: tiny strata, recalls 0.85-1", tiny, tiny_weights, [0.95, 0.9, 1.0, 0.85, 0.95]),
        scenario("stress: tiny strata, recalls 0-0.2", tiny, tiny_weights, [0.1, 0.05, 0.2, 0.0, 0.1]),
        scenario("stress: 5 items carry half the weight", [5, 200], [0.5, 0.5], [0.6, 0.8]),
    ]


def simulate(sc, m, rng):
    """Counts of m replicates: n, full, half, sizes, q, labelled (q, labelled None if known)."""
    shape = (m, len(sc["n"]))
    if sc["estimated"] is None:
        n, sizes, q, labelled = np.broadcast_to(sc["n"], shape), sc["weights"], None, None
    else:
        occurences, labelled = sc["estimated"]
        positive = rng.binomial(labelled, sc["n"] / labelled, size=shape)
        n, q = positive.astype(float), positive / labelled
        sizes = positive * occurences / labelled
    full = rng.binomial(n.astype(np.int64), sc["p_full"], size=shape)
    p_half = np.divide(sc["p_half"], 1 - sc["p_full"], out=np.zeros_like(sc["p_half"]),
                       where=sc["p_full"] < 1)
    half = rng.binomial((n - full).astype(np.int64), p_half, size=shape)
    return n, full, half, sizes, q, labelled


def run_scenario(sc, replicates, n_bootstrap, rng):
    """Coverage and mean width of every method in one scenario."""
    chunk = max(1, min(replicates, CELLS_PER_CHUNK // (n_bootstrap * len(sc["n"]))))
    covered = {m: 0 for m in METHODS}
    width = {m: 0.0 for m in METHODS}
    for start in range(0, replicates, chunk):
        m = min(chunk, replicates - start)
        n, full, half, sizes, q, labelled = simulate(sc, m, rng)
        for method in METHODS:
            _, low, high, _ = ner_stratified.stratified_recall_arrays(
                n, full, half, sizes, q=q, labelled=labelled, ci_method=method,
                n_bootstrap=n_bootstrap, rng=rng)
            covered[method] += int(((low <= sc["truth"]) & (sc["truth"] <= high)).sum())
            width[method] += float((high - low).sum())
    return {m: (covered[m] / replicates, width[m] / replicates) for m in METHODS}


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
        "Rows marked stress go beyond the brief's panel.",
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
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "ci_coverage.md")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    begin = time.perf_counter()
    results = [(sc, run_scenario(sc, args.replicates, args.n_bootstrap, rng)) for sc in scenarios() + stress_scenarios()]
    report = table(results, args, time.perf_counter() - begin)
    args.output.write_text(report)
    print(report)


if __name__ == "__main__":
    main()
