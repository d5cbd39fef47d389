"""Cost of decoding and of the decoding report on bench/speed.py's seeded synthetic corpus.

Steps, each the best of ``--runs`` runs in this process (the corpus built once, as lists):

* ``encode``: both sides' tags to codes (``ner_decoding.encode``);
* ``decode`` / ``decode strict``: both sides' entities, lenient and ``scheme="IOB2"``;
* ``report`` / ``report strict``: ``decoding_reports`` of both sides, given their entities;
* ``core`` / ``core strict``: the metric's ``_compute`` (default options), which includes the report;
  ``... without the report``: the same with the report replaced by nothing, in the same process.

    HF_HUB_OFFLINE=1 python bench/decoding.py [--sentences 100000] [--runs 5] [--out bench/decoding.md]
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from speed import as_lists, synthetic_corpus  # noqa: E402

from ner_recall.core import decoding as D  # noqa: E402
from ner_recall.core import decoding_report as R  # noqa: E402


def best(step, runs):
    """(wall, cpu) seconds of the fastest run, by CPU time: on a shared machine the wall clock
    also counts the time other processes hold the cores."""
    times = []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        step()
        times.append((time.process_time() - cpu, time.perf_counter() - wall))
    cpu, wall = min(times)
    return wall, cpu


def steps(predictions, references):
    corpus = D.encode(predictions, references)
    strict = D.encode(predictions, references, scheme="IOB2")
    sides = {
        scheme: [(codes, D.decode(codes, c, scheme)) for codes in (c.predictions, c.references)]
        for scheme, c in ((None, corpus), ("IOB2", strict))
    }
    report = R.decoding_reports
    out = {
        "encode": lambda: D.encode(predictions, references),
        "decode": lambda: [D.decode(codes, corpus) for codes in (corpus.predictions, corpus.references)],
        "decode strict": lambda: [
            D.decode(codes, strict, "IOB2") for codes in (strict.predictions, strict.references)
        ],
    }
    if report is not None:
        out["report"] = lambda: report(corpus, sides[None][0][1], sides[None][1][1])
        out["report strict"] = lambda: report(strict, sides["IOB2"][0][1], sides["IOB2"][1][1], "IOB2")
    metric = _metric()
    # the pipeline calls the report
    from ner_recall.pipeline import compute as module

    reports = getattr(module, "decoding_reports", None)

    def core(scheme, with_report=True):
        options = {"mode": "strict", "scheme": scheme} if scheme else {}

        def run():
            if reports is not None:  # the same code, the report replaced by nothing
                module.decoding_reports = reports if with_report else (lambda *args, **kwargs: {})
            try:
                return metric._compute(predictions=predictions, references=references, **options)
            finally:
                if reports is not None:
                    module.decoding_reports = reports

        return run

    out["core"], out["core strict"] = core(None), core("IOB2")
    if reports is not None:
        out["core without the report"], out["core strict without the report"] = (
            core(None, False),
            core("IOB2", False),
        )
    return out


def _metric():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import evaluate

    return evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=f"decoding-{os.getpid()}")


def moved_table(lenient, strict):
    """Lenient against strict IOB2 scores of one corpus, and what decoding did to the predictions."""
    rows = [
        "| decoding | overall_f1 | predicted entities | repaired | dropped |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, results in (("lenient", lenient), ("strict, IOB2", strict)):
        report = results.get("decoding", {}).get("predictions", {})
        rows.append(
            f"| {name} | {results['overall_f1']:.4f} | {results['muc']['strict']['actual']:,} | "
            f"{report.get('repaired', 0):,} | {report.get('dropped', 0):,} |"
        )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "decoding.md"))
    args = parser.parse_args(argv)
    lengths, gold, pred = synthetic_corpus(args.sentences, args.seed)
    references, predictions = as_lists(lengths, gold), as_lists(lengths, pred)
    timed = steps(predictions, references)
    rows = [(name, best(step, args.runs)) for name, step in timed.items()]
    lenient, strict = timed["core"](), timed["core strict"]()
    lines = [
        "# Decoding cost",
        "",
        f"`python bench/decoding.py --sentences {args.sentences} --runs {args.runs}`: bench/speed.py's seeded "
        f"corpus, {args.sentences:,} sentences, {int(lengths.sum()):,} tokens per side (Python "
        f"{platform.python_version()}, numpy {np.__version__}, load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores); seconds are those of the run of least CPU time of {args.runs}.",
        "",
        "| step | wall s | cpu s |",
        "|---|---:|---:|",
        *(f"| {name} | {wall:.4f} | {cpu:.4f} |" for name, (wall, cpu) in rows),
        "",
        "On the same corpus, whose predictions carry ill-formed tags (bench/speed.py: 4% of the B- tags",
        "written I-, 3% of the I- tags switched to another type):",
        "",
        *moved_table(lenient, strict),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
