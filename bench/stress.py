"""Stress cases: time and peak memory of inputs at the edge of the metric's scale.

Each case runs in its own subprocess (a fresh interpreter, so one case's memory cannot hide
another's), with a time limit (``--timeout``, 120 s: the row then says "timeout") and a memory
limit on the process's data segment (``--memory-gb``, 6 GB: "out of memory" when a case asks
for more). A case reports the time of the call alone, the process's peak resident memory
(``VmHWM``, imports included) and the peak added by the call (``VmHWM`` reset through
``/proc/self/clear_refs`` just before it), and a check value that shows the call finished.

    python bench/stress.py [--cases a,b] [--timeout 120] [--memory-gb 6] [--out bench/stress.md]

Linux only (reads ``/proc/self/status``); no psutil.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from procmem import reset_peak, status_kb

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
ALL_FAMILIES = ["seqeval", "muc", "token", "overlap", "harem", "confusion"]


def many_types(k):
    """One sentence per type; every other prediction takes the next type on the same span."""
    references = [[f"B-T{i}", f"I-T{i}", "O"] for i in range(k)]
    predictions = [
        [f"B-T{i if i % 2 else (i + 1) % k}", f"I-T{i if i % 2 else (i + 1) % k}", "O"] for i in range(k)
    ]
    return references, predictions


def chain(n):
    """One sentence: n gold entities of two tokens back to back, the n predicted ones shifted by
    one token, so that every entity overlaps two of the other side: one chain of 2n pairs."""
    return [["B-A", "I-A"] * n + ["O"]], [["O"] + ["B-A", "I-A"] * n]


def one_across(n):
    """One predicted entity across n single-token gold entities."""
    return [["B-A"] * n], [["B-A"] + ["I-A"] * (n - 1)]


def compute_case(make, *args):
    def setup():
        import evaluate

        metric = evaluate.load(str(ROOT / "ner_recall_metric.py"))
        references, predictions = make(*args)

        def call():
            results = metric.compute(predictions=predictions, references=references, scores=ALL_FAMILIES)
            return f"overall_f1 {results['overall_f1']:.4f}, muc partial recall {results['muc']['partial']['recall']:.4f}"

        return call

    return setup


def strata(k, seed=0):
    """k subgroups of 5 to 40 gold entities, random credit."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = rng.integers(5, 41, k)
    full = rng.binomial(n, 0.7)
    half = rng.binomial(n - full, 0.3)
    return {f"s{i}": (int(a), int(b), int(c)) for i, (a, b, c) in enumerate(zip(n, full, half))}


def stratified_case(k, ci_method, n_bootstrap=10_000):
    def setup():
        from ner_recall.stats.stratified import stratified_recall

        groups = strata(k)
        weights = {name: 1 + i % 7 for i, name in enumerate(groups)}

        def call():
            r = stratified_recall(groups, weights, ci_method=ci_method, n_bootstrap=n_bootstrap)
            return f"recall {r['recall']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"

        return call

    return setup


def span_case(gold, pred, **options):
    def setup():
        import evaluate

        metric = evaluate.load(str(ROOT / "ner_recall_metric.py"), "spans")

        def call():
            r = metric.compute(predictions=pred, references=gold, **options)
            if "token" in r:
                return f"token correct {r['token']['correct']:,}, number {r['token']['number']:,}"
            return f"overall_f1 {r['overall_f1']:.4f}, intervals {len(r['intervals'])}"

        return call

    return setup


def many_spans(n, k):
    """n examples of k spans of k types each, predictions one token off every other time."""
    gold = [[{"label": f"T{t}", "start": 2 * t, "end": 2 * t + 2} for t in range(k)] for _ in range(n)]
    pred = [
        [{"label": f"T{t}", "start": 2 * t + (i % 2), "end": 2 * t + 2} for t in range(k)] for i in range(n)
    ]
    return gold, pred


def placement_case(occurrences, pairs):
    def setup():
        import evaluate

        metric = evaluate.load(str(ROOT / "ner_recall_metric.py"))
        text = " ".join(["abc"] * occurrences)

        def call():
            placed = metric.find_entities([text], [[("X", "abc")] * pairs])
            return f"placed {placed['total']['placed']:,}"

        return call

    return setup


def compare_case(permutations):
    def setup():
        import evaluate

        metric = evaluate.load(str(ROOT / "ner_recall_metric.py"))
        references, predictions = many_types(200)

        def call():
            try:
                metric.compare(
                    predictions=predictions,
                    predictions_b=references,
                    references=references,
                    permutations=permutations,
                )
            except ValueError as error:
                return f"ValueError: {error}"
            return "compared"

        return call

    return setup


CASES = {
    "types_20000": ("20,000 entity types (all families)", compute_case(many_types, 20_000)),
    "types_30000": ("30,000 entity types (all families)", compute_case(many_types, 30_000)),
    "chain_128k": ("chain: 128k entities per side, shifted by one token", compute_case(chain, 128_000)),
    "chain_500k": ("chain: 500k entities per side, shifted by one token", compute_case(chain, 500_000)),
    "one_across_1000": (
        "one prediction across 1,000 gold entities (all families)",
        compute_case(one_across, 1_000),
    ),
    "strata_30k_wilson": ("stratified recall, 30k subgroups, Wilson", stratified_case(30_000, "wilson")),
    "strata_30k_bootstrap": (
        "stratified recall, 30k subgroups, bootstrap (10,000)",
        stratified_case(30_000, "bootstrap"),
    ),
    "bootstrap_1e8": (
        "stratified recall, 2 subgroups, bootstrap n_bootstrap=10**8",
        stratified_case(2, "bootstrap", 10**8),
    ),
    "token_1e9": (
        "token family, one entity of 10**9 tokens per side",
        span_case(
            [[{"label": "A", "start": 0, "end": 10**9}]],
            [[{"label": "A", "start": 5, "end": 10**9 + 5}]],
            scores=["token"],
        ),
    ),
    "intervals_1e6": (
        "ci_resamples=10**6 on 2,000 examples of 20 types (draws binned)",
        span_case(*many_spans(2_000, 20), ci_resamples=10**6),
    ),
    "permutations_1e9": ("compare, permutations=10**9 (capped)", compare_case(10**9)),
    "placement_10k": (
        "find_entities: one string 10k times in a text with 20k occurrences",
        placement_case(20_000, 10_000),
    ),
    "offsets_2e62": (
        "span offsets near 2**62 in three examples",
        span_case(
            [[{"label": "A", "start": 2**61, "end": 2**61 + 1}]] * 3,
            [[{"label": "A", "start": 0, "end": 1}]] * 3,
        ),
    ),
}


def run_one(name, memory_gb):
    """In the subprocess: set up, then time one call; prints a JSON line."""
    import resource

    limit = int(memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    sys.path.insert(0, str(ROOT))
    call = CASES[name][1]()
    reset_peak()
    before = status_kb("VmRSS")
    start = time.perf_counter()
    try:
        check = call()
    except MemoryError:
        check = f"out of memory (limit {memory_gb:g} GB)"
    except ValueError as error:
        check = f"ValueError: {str(error)[:90]}"
    seconds = time.perf_counter() - start
    peak = status_kb("VmHWM")
    print(
        json.dumps(
            {"seconds": seconds, "peak_mb": peak / 1024, "added_mb": (peak - before) / 1024, "check": check}
        )
    )


def measure(name, timeout, memory_gb):
    command = [sys.executable, __file__, "--one", name, "--memory-gb", str(memory_gb)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"check": f"timeout (> {timeout:g} s)"}
    if done.returncode != 0:
        return {"check": f"failed: {done.stderr.strip().splitlines()[-1][:100]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(rows):
    lines = [
        "| case | time (s) | peak memory (MB) | added by the call (MB) | result |",
        "|---|---:|---:|---:|---|",
    ]
    for title, r in rows:
        if "seconds" in r:
            lines.append(
                f"| {title} | {r['seconds']:.2f} | {r['peak_mb']:.0f} | {r['added_mb']:.0f} | {r['check']} |"
            )
        else:
            lines.append(f"| {title} | | | | {r['check']} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated names: " + ", ".join(CASES))
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--memory-gb", type=float, default=6.0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "stress.md"))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return run_one(args.one, args.memory_gb)
    names = args.cases.split(",")
    unknown = [n for n in names if n not in CASES]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}; cases: {', '.join(CASES)}")
    start = time.perf_counter()
    rows = []
    for name in names:
        rows.append((CASES[name][0], measure(name, args.timeout, args.memory_gb)))
        print(table(rows[-1:])[-1], flush=True)
    total = time.perf_counter() - start
    command = "python bench/stress.py" + ("" if len(names) == len(CASES) else f" --cases {args.cases}")
    text = [
        f"# Stress cases\n\nCommand: `{command}` (total {total:.0f} s; time limit {args.timeout:g} s and "
        f"memory limit {args.memory_gb:g} GB per case, each case in its own process).\n"
    ]
    text += table(rows)
    Path(args.out).write_text("\n".join(text) + "\n")
    print(f"wrote {args.out} in {total:.0f} s")


if __name__ == "__main__":
    main()
