"""Reproduce the published leaderboard rows of EstNLTK's default NER tagger, through the metric.

    python examples/reproduce_estnltk_leaderboard.py [--benchmarks-dir DIR] [--strata FILE]

Needs ``pip install -r requirements-estnltk.txt``. Loads each benchmark with
``metric.load_benchmark``, tags it with ``estnltk_tagger.EstnltkNer`` (beside this file), puts the
tagger's character spans and the gold span on one token grid with ``metric.align``, and scores
it with ``metric.compute(..., subgroup_weights=metric.benchmark_sizes(...), ci_method="weighted_wald",
recall_mode="strict")``: an entity is found when a predicted span has exactly its character offsets
and its label (the published criterion). Prints CSV to stdout,
``benchmark,model,recall,ci_low,ci_high,correct,incorrect``, header first; ``--strata FILE`` also
writes ``benchmark,subgroup,n,correct,recall,weight`` per population. About 2.5 minutes for both
benchmarks on one CPU core.

Published (estnltk-model-data leaderboards):
    amundsen_01  0.5892016803782091  (0.5442531601445354, 0.6341502006118828)  344 / 535
    amundsen_02  0.5863719147123075  (0.5556871420680223, 0.6170566873565928)  775 / 1685
"""

import argparse
import csv
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from estnltk_tagger import MODEL_NAME, EstnltkNer, tag_dataset  # noqa: E402

METRIC_PATH = os.path.join(ROOT, "ner_recall_metric.py")
BENCHMARKS = ("amundsen_01", "amundsen_02")
HEADER = ("benchmark", "model", "recall", "ci_low", "ci_high", "correct", "incorrect")
STRATA_HEADER = ("benchmark", "subgroup", "n", "correct", "recall", "weight")


def score_benchmark(metric, description_csv, tagger):
    """The metric's ``stratified_recall`` result for ``tagger`` on one benchmark."""
    dataset = metric.load_benchmark(description_csv)
    tagged = tag_dataset(dataset, tagger, metric.align)
    results = metric.compute(
        predictions=tagged["predictions"],
        references=tagged["references"],
        subgroups=tagged["subgroups"],
        subgroup_weights=metric.benchmark_sizes(description_csv),
        ci_method="weighted_wald",
        recall_mode="strict",
    )
    return results["stratified_recall"]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--benchmarks-dir",
        default=os.path.join(ROOT, "..", "shared", "benchmarks"),
        help="folder holding amundsen_01/ and amundsen_02/ (default: ../shared/benchmarks)",
    )
    parser.add_argument(
        "--benchmark", action="append", choices=BENCHMARKS, help="one benchmark (repeatable; default: both)"
    )
    parser.add_argument("--strata", help="also write per-population rows to this CSV file")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    import evaluate

    metric = evaluate.load(METRIC_PATH, "subgroups")
    tagger = EstnltkNer()
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(HEADER)
    strata_rows = []
    for name in args.benchmark or BENCHMARKS:
        started = time.perf_counter()
        result = score_benchmark(
            metric, os.path.join(args.benchmarks_dir, name, "data_description.csv"), tagger
        )
        correct = round(result["correct"])  # strict mode credits whole entities only
        out.writerow(
            (
                name,
                MODEL_NAME,
                result["recall"],
                result["ci_low"],
                result["ci_high"],
                correct,
                result["n"] - correct,
            )
        )
        sys.stdout.flush()
        strata_rows += [
            (name, group, s["n"], round(s["correct"]), s["recall"], s["weight"])
            for group, s in result["strata"].items()
        ]
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.strata:
        with open(args.strata, "w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows([STRATA_HEADER, *strata_rows])


if __name__ == "__main__":
    main()
