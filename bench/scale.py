"""Streaming a large corpus through ``add_batch``: memory and time, then the final ``compute``.

Sentences (``--tokens`` tokens on average, tags of 4 entity types, predictions that perturb
the gold) are generated batch by batch from a fixed pool, so the benchmark itself holds one
batch at a time. At each checkpoint it reports the process's resident memory (``VmRSS``),
the peak since the previous checkpoint (``VmHWM``, reset through ``/proc/self/clear_refs``
where the kernel allows it), the size of evaluate's cache file on disk and the time. Then it
times ``compute`` and its peak memory: the metric reads evaluate's cache back as Arrow
columns (list offsets and dictionary-encoded tags, no Python object per tag), so that step
grows with the data by a few bytes a token.

    python bench/scale.py [--sentences 1000000] [--batch-size 1000] [--kind tags|ids]
                          [--checkpoints 100000,300000,1000000] [--out bench/scale.md]

Linux only (reads ``/proc/self/status``); no psutil.
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from procmem import reset_peak, status_kb

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

TYPES = ("PER", "LOC", "ORG", "MISC")
NAMES = ["O"] + [f"{p}-{t}" for t in TYPES for p in "BI"]
POOL = 997  # distinct sentences, cycled


def pool(mean_tokens, seed=0):
    """POOL (reference, prediction) pairs of tag lists; entities of 1-3 tokens."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(POOL):
        n = rng.randint(mean_tokens // 2, mean_tokens + mean_tokens // 2)
        ref = []
        while len(ref) < n:
            if rng.random() < 0.7:
                ref.append("O")
            else:
                t = rng.choice(TYPES)
                ref += [f"B-{t}"] + [f"I-{t}"] * rng.randint(0, 2)
        ref = ref[:n]
        pred = [tag if rng.random() < 0.9 else rng.choice(NAMES) for tag in ref]
        pairs.append((ref, pred))
    return pairs


def batches(pairs, n_sentences, batch_size, kind):
    index = {name: i for i, name in enumerate(NAMES)}
    if kind == "ids":
        pairs = [([index[t] for t in r], [index[t] for t in p]) for r, p in pairs]
    done = 0
    while done < n_sentences:
        size = min(batch_size, n_sentences - done)
        rows = [pairs[(done + k) % POOL] for k in range(size)]
        yield [r for r, _ in rows], [p for _, p in rows]
        done += size


def cache_bytes(cache_dir):
    return sum(p.stat().st_size for p in Path(cache_dir).rglob("*.arrow"))


def mb(kb):
    return f"{kb / 1024:,.0f}"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--tokens", type=int, default=14, help="mean tokens per sentence")
    parser.add_argument("--kind", choices=("tags", "ids"), default="tags")
    parser.add_argument("--checkpoints", default="100000,300000,1000000")
    parser.add_argument("--out", help="also write the tables to this markdown file")
    args = parser.parse_args(argv)
    checkpoints = sorted(
        {int(c) for c in args.checkpoints.split(",") if int(c) <= args.sentences} | {args.sentences}
    )

    import evaluate

    pairs = pool(args.tokens)
    lines = [
        f"`python bench/scale.py --sentences {args.sentences} --batch-size {args.batch_size} --kind {args.kind}`",
        f"(evaluate {evaluate.__version__}, Python {sys.version.split()[0]}; "
        f"{sum(len(r) for r, _ in pairs) / POOL:.1f} tokens per sentence on average)",
        "",
    ]
    with tempfile.TemporaryDirectory() as cache_dir:
        metric = evaluate.load(str(ROOT / "ner_recall_metric.py"), cache_dir=cache_dir)
        can_reset = reset_peak()
        base_rss = status_kb("VmRSS")
        lines += [
            "| sentences added | RSS (MB) | peak since last row (MB) | cache on disk (MB) | add_batch wall / CPU (s) |",
            "|---:|---:|---:|---:|---:|",
            f"| 0 (metric loaded) | {mb(base_rss)} | {mb(status_kb('VmHWM'))} | 0 | 0 |",
        ]
        print("\n".join(lines), flush=True)
        start, cpu, added, targets = time.perf_counter(), time.process_time(), 0, iter(checkpoints)
        target = next(targets)
        for references, predictions in batches(pairs, args.sentences, args.batch_size, args.kind):
            metric.add_batch(predictions=predictions, references=references)
            added += len(references)
            if added >= target:
                row = (
                    f"| {added:,} | {mb(status_kb('VmRSS'))} | {mb(status_kb('VmHWM'))} | "
                    f"{cache_bytes(cache_dir) / 2**20:,.0f} | {time.perf_counter() - start:.1f} / "
                    f"{time.process_time() - cpu:.1f} |"
                )
                lines.append(row)
                print(row, flush=True)
                reset_peak()
                target = next(targets, None)
        del references, predictions
        reset_peak()
        before = status_kb("VmRSS")
        start, cpu = time.perf_counter(), time.process_time()
        options = {"label_names": NAMES} if args.kind == "ids" else {}
        results = metric.compute(**options)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        peak = status_kb("VmHWM")
    tail = [
        "",
        "| final compute | wall / CPU (s) | RSS before (MB) | peak during compute (MB) | overall_f1 | gold entities |",
        "|---|---:|---:|---:|---:|---:|",
        f"| {args.sentences:,} sentences | {seconds:.1f} / {cpu:.1f} | {mb(before)} | {mb(peak)} | "
        f"{results['overall_f1']:.4f} | {results['muc']['strict']['possible']:,} |",
    ]
    if not can_reset:
        tail.append("\n(the kernel refused to reset VmHWM: peaks are since the start of the process)")
    lines += tail
    print("\n".join(tail), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
