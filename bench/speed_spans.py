"""Speed of the "spans" config: flat input against the tag config, nested corpora, pathological overlap.

Three studies, each timed in this process (best of ``--runs``, wall clock):

* **flat**: bench/speed.py's seeded tag corpus (``--flat`` sentences); the default config
  scores the tags, the "spans" config the same entities decoded to ``{"label", "start",
  "end"}`` dicts, the two taking turns in each round. ``compute`` goes through evaluate (Arrow
  cache and back), ``core`` is ``_compute`` alone. Target: spans ``compute`` within 1.5x the
  default config's.
* **nested**: ``--nested`` examples of up to 8 entities each on 24 positions, nesting and
  overlapping freely on both sides (predictions shift, retype, drop and invent entities).
* **overlap**: one example, one prediction over ``n`` gold entities: ``n`` adjacent one-token
  entities (a chain) or ``n`` entities nested inside each other; ``core`` time per ``n``.

    HF_HUB_OFFLINE=1 python bench/speed_spans.py [--flat 100000] [--nested 100000] [--runs 5]
        [--out bench/speed_spans.md]
"""

import argparse
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402
from speed import as_lists, synthetic_corpus  # noqa: E402

from ner_recall.core import decoding as D  # noqa: E402
from ner_recall.core.spans import spans_from_arrays  # noqa: E402

METRIC = os.path.join(ROOT, "ner_recall_metric.py")
OVERLAP_SIZES = (10, 100, 1000, 3000)


def best(fn, runs):
    return best_of(runs, fn)[0]


def best_of(runs, *fns):
    """The best time of each function over ``runs`` rounds, the functions taking turns in each
    round, so that a change of the machine's load hits all of them alike."""
    times = [[] for _ in fns]
    for _ in range(runs):
        for fn, spent in zip(fns, times):
            t = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - t)
    return [min(spent) for spent in times]


def flat_inputs(n):
    lengths, gold, pred = synthetic_corpus(n, seed=0)
    references, predictions = as_lists(lengths, gold), as_lists(lengths, pred)
    corpus = D.encode(predictions, references)
    spans = [
        spans_from_arrays(D.decode(codes, corpus), corpus.types, n)
        for codes in (corpus.references, corpus.predictions)
    ]
    return (references, predictions), (spans[0], spans[1])


def nested_inputs(n, seed=0, width=24, types=("DIS", "DRUG", "ANAT", "PROC")):
    """Per example up to 8 distinct entities on ``width`` positions; predictions perturb them."""
    rng = np.random.default_rng(seed)

    def side(starts, lengths, kinds, counts):
        out, k = [], 0
        for c in counts.tolist():
            spans = {
                (types[t], s, s + length)
                for t, s, length in zip(
                    kinds[k : k + c].tolist(), starts[k : k + c].tolist(), lengths[k : k + c].tolist()
                )
            }
            out.append([{"label": t, "start": s, "end": e} for t, s, e in sorted(spans)])
            k += c
        return out

    counts = rng.integers(0, 9, n)
    m = int(counts.sum())
    starts, lengths, kinds = rng.integers(0, width, m), rng.geometric(0.35, m), rng.integers(0, len(types), m)
    gold = side(starts, lengths, kinds, counts)
    r = rng.random(m)
    p_starts = np.where(r < 0.1, np.maximum(starts - 1, 0), starts)
    p_lengths = np.where((r >= 0.1) & (r < 0.2), lengths + 1, lengths)
    p_kinds = np.where((r >= 0.2) & (r < 0.28), (kinds + 1) % len(types), kinds)
    p_kinds = np.where(r >= 0.93, rng.integers(0, len(types), m), p_kinds)  # some become other entities
    p_starts = np.where(r >= 0.93, rng.integers(0, width, m), p_starts)
    pred = side(p_starts, p_lengths, p_kinds, counts)
    return gold, pred


def overlap_inputs(n, shape):
    if shape == "chain":  # n adjacent one-token gold entities under one prediction
        gold = [{"label": "A", "start": i, "end": i + 1} for i in range(n)]
        pred = [{"label": "A", "start": 0, "end": n}]
    else:  # n gold entities nested inside each other, the prediction across the inner half
        gold = [{"label": "A", "start": i, "end": 2 * n - i} for i in range(n)]
        pred = [{"label": "A", "start": n // 2, "end": 2 * n - n // 2 - 1}]
    return [gold], [pred]


def entities(side):
    return sum(map(len, side))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flat", type=int, default=100_000)
    parser.add_argument("--nested", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(HERE, "speed_spans.md"))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tags, spans = evaluate.load(METRIC), evaluate.load(METRIC, "spans")
    rows = []

    (refs, preds), (gold, pred) = flat_inputs(args.flat)
    n_ent = f"{entities(gold):,} / {entities(pred):,}"
    t_tags, t_spans = best_of(
        args.runs,
        lambda: tags.compute(predictions=preds, references=refs),
        lambda: spans.compute(predictions=pred, references=gold),
    )
    c_tags, c_spans = best_of(
        args.runs,
        lambda: tags._compute(predictions=preds, references=refs),
        lambda: spans._compute(predictions=pred, references=gold),
    )
    rows += [
        ("flat", "default config (tags)", "compute", args.flat, n_ent, t_tags),
        ("flat", "spans config", "compute", args.flat, n_ent, t_spans),
        ("flat", "default config (tags)", "core", args.flat, n_ent, c_tags),
        ("flat", "spans config", "core", args.flat, n_ent, c_spans),
    ]

    gold, pred = nested_inputs(args.nested)
    n_ent = f"{entities(gold):,} / {entities(pred):,}"
    t_nested = best(lambda: spans.compute(predictions=pred, references=gold), args.runs)
    c_nested = best(lambda: spans._compute(predictions=pred, references=gold), args.runs)
    rows += [
        ("nested", "spans config", "compute", args.nested, n_ent, t_nested),
        ("nested", "spans config", "core", args.nested, n_ent, c_nested),
    ]

    for shape in ("chain", "nested"):
        for n in OVERLAP_SIZES:
            gold, pred = overlap_inputs(n, shape)
            t = best(lambda: spans._compute(predictions=pred, references=gold), args.runs)
            rows.append((f"overlap ({shape})", f"1 prediction over {n:,} gold", "core", 1, f"{n:,} / 1", t))

    write(args, rows, t_spans / t_tags, c_spans / c_tags, time.perf_counter() - started)


def write(args, rows, ratio, core_ratio, elapsed):
    lines = [
        "# Speed of the span configs",
        "",
        f"`python bench/speed_spans.py`: {elapsed:.0f} s on {os.cpu_count()} cores (Python "
        f"{platform.python_version()}, numpy {np.__version__}, evaluate {evaluate.__version__}), "
        f"{time.strftime('%Y-%m-%d')}. Best of {args.runs} runs, wall clock, in one process (flat: the two "
        "configs take turns). `compute`: through evaluate; `core`: `_compute` alone. Entities: gold / predicted.",
        "",
        "| study | input | step | examples | entities | s |",
        "|---|---|---|---:|---:|---:|",
    ]
    lines += [f"| {a} | {b} | {c} | {d:,} | {e} | {t:.4f} |" for a, b, c, d, e, t in rows]
    lines += [
        "",
        "Targets:",
        "",
        f"- flat input, spans `compute` / default `compute`: **{ratio:.2f}x** (target <= 1.5x)",
        f"- flat input, spans `core` / default `core`: **{core_ratio:.2f}x**",
        "",
    ]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
