"""The counts state's cost and size: what the Poisson resamples cost beside a ``compute`` without
intervals, how long ``finalize`` takes, and the state's bytes at two corpus sizes.

The corpus of bench/speed.py as Arrow list columns of class ids (``label_names``). At ``--size``
sentences: ``compute`` (default families, no intervals), ``metric.state(keep="counts")`` without and
with ``--resamples`` Poisson resamples (the resamples' cost: the difference, and its ratio to
``compute``), and ``finalize`` of the state through its bytes; then the state's bytes at each of
``--size-check`` sizes (the size depends on the types and resamples, not on the corpus). Each timing
is the best of ``--runs``. Writes bench/counts_speed.md.

    HF_HUB_OFFLINE=1 python bench/counts_speed.py [--size 1000000] [--resamples 1000]
        [--size-check 10000 10000000] [--runs 2]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
from speed import TAGS, synthetic_corpus  # noqa: E402


def columns(n, seed=0):
    lengths, gold, pred = synthetic_corpus(n, seed)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
    return [pa.LargeListArray.from_arrays(offsets, pa.array(c.astype(np.int64))) for c in (pred, gold)]


def best(call, runs):
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--size-check", type=int, nargs="+", default=[10_000, 10_000_000])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "bench" / "counts_speed.md"))
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import evaluate

    metric = evaluate.load(str(ROOT / "ner_recall_metric.py"))
    began = time.perf_counter()
    pred, gold = columns(args.size)
    common = {"predictions": pred, "references": gold, "label_names": TAGS}
    t_compute, _ = best(lambda: metric.compute(**common), args.runs)
    t_plain, _ = best(lambda: metric.state(**common, keep="counts"), args.runs)
    t_resampled, state = best(
        lambda: metric.state(**common, keep="counts", ci_resamples=args.resamples, seed=0), args.runs
    )
    data = state.to_bytes()
    t_final, _ = best(lambda: metric.finalize(metric.State.from_bytes(data)), args.runs)
    sizes = {}
    for n in args.size_check:
        p, g = columns(n, seed=1)
        blob = metric.state(
            predictions=p, references=g, label_names=TAGS, keep="counts", ci_resamples=args.resamples, seed=0
        ).to_bytes()
        sizes[n] = len(blob)
    extra = t_resampled - t_plain
    lines = [
        "# The counts state: the resamples' cost, finalize, size",
        "",
        f"`python bench/counts_speed.py --size {args.size} --resamples {args.resamples} --size-check"
        f" {' '.join(map(str, args.size_check))} --runs {args.runs}`: {time.perf_counter() - began:.0f} s on"
        f" {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f}), {time.strftime('%Y-%m-%d')}."
        " Best of the runs, seconds; the corpus of bench/speed.py as Arrow class-id columns.",
        "",
        "| step | sentences | seconds |",
        "|---|---:|---:|",
        f"| compute, no intervals | {args.size:,} | {t_compute:.2f} |",
        f"| state, keep='counts', no resamples | {args.size:,} | {t_plain:.2f} |",
        f"| state, keep='counts', {args.resamples:,} resamples | {args.size:,} | {t_resampled:.2f} |",
        f"| finalize (from bytes) | {args.size:,} | {t_final:.3f} |",
        "",
        f"The resamples cost {extra:.2f} s, {extra / t_compute:.2f}x a compute without intervals (goal: at"
        f" most 3x). finalize: {t_final:.3f} s (goal: under 1 s at any size).",
        "",
        "| sentences | state bytes |",
        "|---:|---:|",
        *[f"| {n:,} | {b:,} |" for n, b in sizes.items()],
        "",
        f"Largest over smallest: {max(sizes.values()) / min(sizes.values()):.3f}x (goal: within 1.1x).",
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
