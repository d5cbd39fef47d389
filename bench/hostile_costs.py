"""Costs that hostile input used to make superlinear, measured at two sizes: the ratio of CPU seconds
when the size doubles is about 2 for a linear cost (4 for a quadratic one).

* ``ranking``: ``compute`` (spans config, ``scores=["seqeval", "ranking"]``) of N entities, each of
  its own label (N distinct labels), every prediction scored;
* ``attributes``: ``compute`` (spans config) of N entities, each with an attribute of its own name;
* ``planning``: ``plan_benchmark``'s search for an unreachable half-width (1e-300) over strata of
  10**15 entities (it used to loop forever above 2**53; now it stops at the population).
* ``generated: ...``: the generated config's readers and aligners on the outputs that made them
  superlinear (``docs/generated.md``): a run of N spaces (the ``lines`` pattern backtracked
  cubically), N inline tags closed and N never closed, a GNER entity of N words, N items listed
  backwards, N items alternating two strings over N/2 mentions (a 250 kB list at 2N), 30 items
  fuzzy-matched on a text of N words, GNER's alignment of N words onto N tokens.

    HF_HUB_OFFLINE=1 python bench/hostile_costs.py [--size 8000] [--out bench/hostile_costs.md]
"""

import argparse
import gc
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ner_recall.generated import conventions as ner_conventions
from ner_recall.generated import dialects as ner_dialects
from ner_recall.generated import scoring as ner_generated
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


def _listing(items, text, **options):
    return lambda: ner_generated.generated_outcomes([items], [text], **options)


def _alternating(n):
    items = [{"text": "ab"[k % 2], "type": "X"} for k in range(n)]
    return _listing(items, " ".join("ab"[k % 2] for k in range(n // 2)))


def _backwards(n):
    return _listing(
        [{"text": f"w{k}", "type": "X"} for k in reversed(range(n))], " ".join(f"w{k}" for k in range(n))
    )


def _fuzzy(n):
    words = [f"{'abcdefghij'[k % 10]}{'klmnopqrst'[k % 7]}{k % 13}word" for k in range(n)]
    items = [{"text": words[k][::-1], "type": "X"} for k in range(0, 30 * 97, 97)]
    return _listing(items, " ".join(words), matching="fuzzy")


def _gner_alignment(n):
    tokens = [f"w{k}" for k in range(n)]
    output = " ".join(f"{w}(O)" for w in tokens[1:] + ["extra"])
    return lambda: ner_conventions.gner_labels(tokens, output, ["PER"])


#: (cost, N, the call at size n)
GENERATED = [
    ("generated: a run of N spaces", 200_000, lambda n: lambda: ner_dialects.read_output(" " * n + "x")),
    ("generated: N inline tags", 5_000, lambda n: lambda: ner_dialects.read_output("<PER>John</PER> " * n)),
    ("generated: N tags never closed", 150_000, lambda n: lambda: ner_dialects.read_output("<A>" * n)),
    (
        "generated: a GNER entity of N words",
        20_000,
        lambda n: lambda: ner_dialects.read_output("w(B-PER) " + "w(I-PER) " * (n - 1)),
    ),
    ("generated: N items listed backwards", 5_000, _backwards),
    ("generated: N items alternating two strings", 4_500, _alternating),
    ("generated: 30 items fuzzy on N words", 10_000, _fuzzy),
    ("generated: GNER alignment of N words", 20_000, _gner_alignment),
]


def generated_rows():
    rows = []
    for name, size, make in GENERATED:
        calls = [make(n) for n in (size, 2 * size)]
        rows.append((name, size, *(min(cpu(call) for _ in range(2)) for call in calls)))
    return rows


def cpu(call):
    """CPU seconds of one call, the garbage collector off during it: its full passes scan every
    object alive (the earlier rows' too) at moments that depend on the whole process, and they are
    amortized linear by design (one when the objects grew by a quarter)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        call()
        return time.process_time() - start
    finally:
        gc.enable()


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
    return rows + generated_rows()


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
            " (one machine, shared; CPU seconds, best of two, the garbage collector off during each call):\n\n"
            + text
        )


if __name__ == "__main__":
    main()
