"""``compute`` from class ids beside one NumPy pass over the same arrays, in one process.

The corpus of ``bench/speed.py`` (seeded; about 12% of the tokens start an entity, predictions
miss, retype, shift and invent entities and carry ill-formed tags) cut into sentences of 14
tokens, as class ids of ``speed.TAGS``; default options but ``label_names``, no intervals. Each
input form a Trainer or ``datasets`` hands over: a 2-D int64 array, a list of 1-D arrays, an Arrow
list column (what a ClassLabel column of a ``datasets.Dataset`` holds), a torch tensor; and the
general path on the 2-D array (the compiled path switched off) for comparison. The NumPy pass is
``np.count_nonzero(pred == ref)``: reading both sides once. Runs are interleaved (a busy spell hits
every form alike); the best of ``--runs`` is kept, wall clock and CPU seconds; every form's
results are checked equal to the general path's.

    HF_HUB_OFFLINE=1 python bench/class_ids.py [--sentences 1000000] [--runs 5] [--out bench/class_ids.md]

``bench/speed.py`` runs it too and puts its table in ``bench/speed.md``.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

LENGTH = 14
TARGET = 100e6  # tokens per second from a 2-D array


def corpus(sentences, seed=0):
    """(predicted ids, reference ids) as 2-D int64 arrays of ``sentences`` x 14, and the label names."""
    from speed import TAGS, synthetic_corpus

    _, gold, pred = synthetic_corpus(int(sentences * 1.05) + 10, seed)
    n = sentences * LENGTH
    return (
        pred[:n].astype(np.int64).reshape(-1, LENGTH),
        gold[:n].astype(np.int64).reshape(-1, LENGTH),
        list(TAGS),
    )


def forms(pred, ref):
    """Each input form: name -> (predictions, references)."""
    import pyarrow as pa

    out = {"2-D int64 array": (pred, ref), "list of 1-D arrays": (list(pred), list(ref))}
    offsets = np.arange(0, pred.size + 1, LENGTH, dtype=np.int32)
    out["Arrow list column"] = tuple(
        pa.ListArray.from_arrays(pa.array(offsets), pa.array(side.ravel())) for side in (pred, ref)
    )
    try:
        import torch

        out["torch tensor"] = (torch.from_numpy(pred), torch.from_numpy(ref))
    except ImportError:
        pass
    return out


def _general_switch(metric):
    """A function that turns the metric's compiled path off (True) or on (False)."""
    from ner_recall.pipeline import signature

    fast = signature.fast_results

    def switch(off):
        signature.fast_results = (lambda *args, **kwargs: None) if off else fast

    return switch


#: the step that only concatenates the list form's arrays: the least that form costs
LIST_FLOOR = "np.concatenate of the list of 1-D arrays, both sides"


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def measure(sentences=1_000_000, runs=5, seed=0):
    """Best (wall, cpu) seconds per step, and whether every form's results equal the general path's."""
    import evaluate

    metric = evaluate.load(str(ROOT / "ner_recall_metric.py"))
    pred, ref, names = corpus(sentences, seed)
    switch = _general_switch(metric)
    steps = {"numpy pass": lambda: np.count_nonzero(pred == ref)}
    layouts = forms(pred, ref)
    steps[LIST_FLOOR] = lambda: [np.concatenate(side) for side in layouts["list of 1-D arrays"]]
    for name, (p, r) in layouts.items():
        steps[f"compute, {name}"] = lambda p=p, r=r: metric.compute(
            predictions=p, references=r, label_names=names
        )
    steps["compute, 2-D array, general path"] = steps["compute, 2-D int64 array"]
    metric.compute(predictions=pred[:30000], references=ref[:30000], label_names=names)  # compile once
    best, results = {}, {}
    for _ in range(runs):
        for name, call in steps.items():
            switch(name.endswith("general path"))
            wall, cpu, out = _timed(call)
            switch(False)
            old = best.get(name, (np.inf, np.inf))
            best[name] = (min(old[0], wall), min(old[1], cpu))
            results[name] = out
    general = json.dumps(results.pop("compute, 2-D array, general path"))
    equal = all(json.dumps(v) == general for k, v in results.items() if k.startswith("compute"))
    return best, equal, int(pred.size)


def lines(best, equal, tokens, sentences):
    """The markdown table and the target line."""
    floor = best["numpy pass"][1]
    out = [
        f"Class ids, {sentences:,} sentences of {LENGTH} tokens ({tokens:,} tokens a side), one process, "
        f"default families, no intervals (`python bench/class_ids.py --sentences {sentences}`); best run, "
        "tokens per second from CPU seconds; x numpy pass: CPU seconds over those of "
        "`np.count_nonzero(pred == ref)` on the same arrays:",
        "",
        "| step | wall s | cpu s | tokens/s | x numpy pass |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, (wall, cpu) in best.items():
        out.append(f"| {name} | {wall:.3f} | {cpu:.3f} | {tokens / cpu:,.0f} | {cpu / floor:.1f} |")
    rate = tokens / best["compute, 2-D int64 array"][1]
    joined = tokens / best[LIST_FLOOR][1]
    out += [
        "",
        f"- `compute` from a 2-D int64 array: **{rate / 1e6:,.0f}M tokens/s** (target >= {TARGET / 1e6:.0f}M)",
        f"- every form's results equal to the general path's, bit for bit: **{equal}**",
        f"- a list of 1-D arrays: concatenating its two sides alone (one array per sentence and side) reads"
        f" {joined / 1e6:,.0f}M tokens/s, before any id is checked or counted",
    ]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "class_ids.md"))
    args = parser.parse_args()
    best, equal, tokens = measure(args.sentences, args.runs, args.seed)
    page = "\n".join(["# Class ids", "", *lines(best, equal, tokens, args.sentences)]) + "\n"
    print(page)
    Path(args.out).write_text(page)


if __name__ == "__main__":
    main()
