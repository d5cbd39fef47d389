"""Per-slice intervals and the per-slice comparison, by simulation; and what slices cost.

    python bench/slices.py           # writes bench/slices.md (a few minutes)
    python bench/slices.py --costs   # only the costs section of bench/slices.md (about a minute)

Coverage: a population of 200,000 sentences in three slices of different difficulty gives each slice's
true overall F1; 300 corpora of 1,500 sentences drawn from it get per-slice intervals (the default
expanded BCa, 500 resamples) and the share that holds the true value is the coverage.

Family-wise error: two systems drawn from the same error model (the null: no slice differs) on 300
corpora of 600 sentences in five slices; the share of corpora where any slice's Holm-corrected
p-value of overall_f1 is below 0.05.

Costs: CPU seconds of one ``compute`` with slices and their intervals (1,000 resamples, the default
expanded BCa) at 10, 100 and 1,000 slice values, on N and 2N sentences (values assigned in turn), and
999 values of 3 and of 6 sentences: linear in the values and in the sentences, each value paying
for its own 1,000 resamples. Best of two.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
SKILL = {"easy": 0.9, "mid": 0.75, "hard": 0.55}


def gold_sentences(rng, n):
    """Ten tokens each; a token starts a one-token entity of type A or B with probability 0.15."""
    return [
        [(f"B-{'A' if rng.random() < 0.5 else 'B'}" if rng.random() < 0.15 else "O") for _ in range(10)]
        for _ in range(n)
    ]


def predict(rng, gold, slices, skill):
    """A system that finds a gold entity with its slice's probability, else misses it or gives the
    other type (half and half), and adds a spurious entity on 1% of the other tokens."""
    out = []
    for tags, s in zip(gold, slices):
        p = []
        for t in tags:
            u = rng.random()
            if t == "O":
                p.append("B-A" if u < 0.01 else "O")
            elif u < skill[s]:
                p.append(t)
            else:
                p.append("O" if u < (1 + skill[s]) / 2 else ("B-B" if t == "B-A" else "B-A"))
        out.append(p)
    return out


def sentences(rng, n, slices, skill):
    gold = gold_sentences(rng, n)
    return gold, predict(rng, gold, slices, skill)


def coverage(metric, replicates=300, n=1500):
    rng = np.random.default_rng(0)
    names = list(SKILL)
    population_slices = [names[i % 3] for i in range(200_000)]
    gold, pred = sentences(rng, 200_000, population_slices, SKILL)
    truth = metric.compute(predictions=pred, references=gold, slices=population_slices)["slices"]["slice"][
        "values"
    ]
    hits = {s: 0 for s in names}
    for _ in range(replicates):
        at = rng.integers(0, 200_000, n)
        out = metric.compute(
            predictions=[pred[i] for i in at],
            references=[gold[i] for i in at],
            slices=[population_slices[i] for i in at],
            ci_resamples=500,
            seed=int(rng.integers(2**31)),
        )["slices"]["slice"]["values"]
        for s in names:
            low, high = out[s]["intervals"]["overall_f1"]
            hits[s] += low <= truth[s]["overall_f1"] <= high
    return {s: hits[s] / replicates for s in names}


def family_wise_error(metric, replicates=300, n=600):
    rng = np.random.default_rng(1)
    names = [f"s{k}" for k in range(5)]
    skill = {s: 0.75 for s in names}
    rejected = 0
    for _ in range(replicates):
        slices = [names[int(k)] for k in rng.integers(0, 5, n)]
        gold = gold_sentences(rng, n)
        a, b = predict(rng, gold, slices, skill), predict(rng, gold, slices, skill)
        out = metric.compare(
            predictions=a,
            predictions_b=b,
            references=gold,
            slices=slices,
            permutations=400,
            ci_resamples=0,
            seed=int(rng.integers(2**31)),
        )
        rejected += any(
            v["p_values_holm"]["overall_f1"] < 0.05 for v in out["slices"]["slice"]["values"].values()
        )
    return rejected / replicates


#: (slice values, sentences) of the costs table: 10 to 1,000 values on N and 2N sentences, and the
#: shape of many small values (999 values of 3 and of 6 sentences)
COST_CASES = [(m, n) for n in (20_000, 40_000) for m in (10, 100, 1000)] + [(999, 2997), (999, 5994)]


def costs(metric, cases=COST_CASES, resamples=1000):
    rng = np.random.default_rng(2)
    names = [f"v{k}" for k in range(max(m for m, _ in cases))]
    corpora = {}
    rows = []
    for m, n in cases:
        if n not in corpora:
            corpora[n] = sentences(rng, n, [names[0]] * n, {names[0]: 0.75})
        gold, pred = corpora[n]
        slices = [names[i % m] for i in range(n)]
        times = []
        for _ in range(2):
            start = time.process_time()
            metric.compute(predictions=pred, references=gold, slices=slices, ci_resamples=resamples)
            times.append(time.process_time() - start)
        rows.append((m, n, min(times)))
    lines = [
        "## Costs",
        "",
        f"Written by `python bench/slices.py --costs`: CPU seconds of one `compute` with slices and their"
        f" intervals ({resamples:,} resamples), best of two.",
        "",
        "| slice values | sentences | CPU s | per value, ms |",
        "|---:|---:|---:|---:|",
    ]
    for m, n, t in rows:
        lines.append(f"| {m:,} | {n:,} | {t:.3f} | {1000 * t / m:.2f} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--costs", action="store_true", help="only the costs section")
    args = parser.parse_args()
    import evaluate

    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))
    path = os.path.join(ROOT, "bench", "slices.md")
    if args.costs:
        with open(path) as f:
            lines = f.read().split("\n## Costs")[0].rstrip("\n").splitlines()
    else:
        cover = coverage(metric)
        fwer = family_wise_error(metric)
        lines = [
            "Written by `python bench/slices.py`.",
            "",
            "| check | slice | value |",
            "|---|---|---:|",
            *[
                f"| coverage of the 95% per-slice interval of overall_f1 (300 corpora of 1,500 sentences) | {s} | {c:.3f} |"
                for s, c in cover.items()
            ],
            f"| family-wise error of the per-slice comparison under the null, Holm, level 0.05 (300 corpora, 5 slices) | all | {fwer:.3f} |",
        ]
    lines += ["", *costs(metric)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
