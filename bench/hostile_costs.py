"""Costs that hostile input used to make superlinear, measured at two sizes: the ratio of CPU seconds
when the size doubles is about 2 for a linear cost (4 for a quadratic one).

* ``ranking``: ``compute`` (spans config, ``scores=["seqeval", "ranking"]``) of N entities, each of
  its own label (N distinct labels), every prediction scored;
* ``attributes``: ``compute`` (spans config) of N entities, each with an attribute of its own name;
* ``planning``: ``plan_benchmark``'s search for an unreachable half-width (1e-300) over strata of
  10**15 entities (it used to loop forever above 2**53; now it stops at the population).

    HF_HUB_OFFLINE=1 python bench/hostile_costs.py [--size 8000] [--out bench/hostile_costs.md]
"""

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ner_recall.stats import planning as ner_planning


def ranking_inputs(n, seed=0):
    rng = random.Random(seed)
    refs = [[{"label": f"T{k}", "start": 0, "end": 3}] for k in range(n)]
    preds = [
        [{**r[0], "label": r[0]["label"] if rng.random() < 0.7 else "T0", "score": rng.random()}]
        for r in refs
    ]
    return preds, refs


def attribute_inputs(n):
    refs = [[{"label": "A", "start": 0, "end": 1, "attributes": {f"a{k}": "v"}}] for k in range(n)]
    return refs, refs


def cpu(call):
    start = time.process_time()
    call()
    return time.process_time() - start


def measure(metric, size):
    rows = []
    for name, make, options in (
        ("ranking", ranking_inputs, {"scores": ["seqeval", "ranking"]}),
        ("attributes", attribute_inputs, {}),
    ):
        times = []
        for n in (size, 2 * size):
            predictions, references = make(n)
            times.append(
                min(
                    cpu(lambda: metric.compute(predictions=predictions, references=references, **options))
                    for _ in range(2)
                )
            )
        rows.append((name, size, times[0], times[1]))
    strata = {h: (10, k) for k, h in enumerate("abc")}
    times = [
        cpu(lambda: ner_planning.neyman_plan(strata, dict.fromkeys(strata, n), half_width=1e-300))
        for n in (10**15 // 2, 10**15)
    ]
    rows.append(("planning", "5e14 per stratum", times[0], times[1]))
    return rows


def table(rows):
    lines = ["| cost | size N | CPU s at N | CPU s at 2N | ratio |", "|---|---:|---:|---:|---:|"]
    for name, size, a, b in rows:
        shown = f"{size:,}" if isinstance(size, int) else size
        lines.append(f"| {name} | {shown} | {a:.3f} | {b:.3f} | {b / max(a, 1e-9):.2f} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8000)
    parser.add_argument("--out")
    args = parser.parse_args()
    import evaluate

    metric = evaluate.load(str(ROOT / "ner_recall_metric.py"), "spans")
    text = table(measure(metric, args.size))
    print(text)
    if args.out:
        Path(args.out).write_text(
            "# Hostile-input costs\n\n`HF_HUB_OFFLINE=1 python bench/hostile_costs.py --out bench/hostile_costs.md`"
            " (one machine, shared; CPU seconds, best of two):\n\n" + text
        )


if __name__ == "__main__":
    main()
