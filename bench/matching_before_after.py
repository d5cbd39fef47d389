"""The matching and the span-aligning scorings of this tree against those of an earlier commit.

Takes ``ner_recall/core/matching.py`` and ``ner_recall/families/scorings.py`` as they were at ``--before`` (``git show``), and
times, interleaved (each version first in turn) and best of ``--runs``, on the same SpanArrays of
``--sentences`` sentences (``bench/matching.py``'s flat corpora): ``match`` alone, and ``match``
plus the token, overlap and HAREM counts. Prints a markdown table (the numbers vary by a tenth from run to run on a
shared machine).

    python bench/matching_before_after.py [--before 911df4c] [--sentences 100000] [--runs 5]
"""

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from matching import flat_corpus  # noqa: E402

from ner_recall.core import matching as ner_matching  # noqa: E402
from ner_recall.families import scorings as ner_scorings  # noqa: E402


def earlier(commit, name, folder):
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{name}.py"], capture_output=True, text=True, check=True
    ).stdout
    path = Path(folder) / f"{name}_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"{name}_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def core(matching, scorings, gold, pred):
    found = matching.match(gold, pred)
    scorings.token_counts(gold, pred, 4)
    scorings.overlap_counts(gold, pred, scorings.overlap_hits(gold, pred, found), 4)
    scorings.harem_counts(gold, pred, scorings.harem_alignment(gold, pred, found))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="911df4c")
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        versions = {
            "before": tuple(earlier(args.before, name, folder) for name in ("ner_matching", "ner_scorings")),
            "now": (ner_matching, ner_scorings),
        }
        print(f"<!-- python bench/matching_before_after.py {' '.join(sys.argv[1:])} -->")
        print(f"| corpus ({args.sentences:,} sentences) | step | before {args.before} (s) | now (s) |")
        print("|---|---|---:|---:|")
        for name, random_tags in (("synthetic", False), ("random tags", True)):
            gold, pred = flat_corpus(args.sentences, random_tags=random_tags)
            times = {(v, step): [] for v in versions for step in ("match", "match + scorings")}
            for run in range(args.runs):
                for v, (matching, scorings) in list(versions.items())[
                    :: 1 if run % 2 else -1
                ]:  # each first in turn
                    start = time.perf_counter()
                    matching.match(gold, pred)
                    times[v, "match"].append(time.perf_counter() - start)
                    start = time.perf_counter()
                    core(matching, scorings, gold, pred)
                    times[v, "match + scorings"].append(time.perf_counter() - start)
            for step in ("match", "match + scorings"):
                print(
                    f"| {name} | {step} | {min(times['before', step]):.4f} | {min(times['now', step]):.4f} |"
                )


if __name__ == "__main__":
    main()
