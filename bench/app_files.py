"""Time to the first result of the app's Files tab, and of the command line, on large CoNLL files.

Writes seeded synthetic CoNLL files (token and tag columns, ``-DOCSTART-`` every 20 sentences,
14 tokens a sentence on average, 4 entity types, predictions that perturb the gold: wrong types,
shifted boundaries, misses and spurious entities) of CoNLL-2003 test size (3,500 sentences) and
of 50,000 sentences, then times, in this process:

- reading both files (``ner_files.read_pair``),
- scoring them (``ner_report.score``: the metric with the error listing and the type confusion),
- the Files tab's first result (``ner_app.files.files_view`` without the download: reading, scoring and
  drawing every output): what a user waits for after pressing "Score files",
- the JSON download, written after the first result is shown,
- the first result with a second system (the two-system comparison),

and the command line ``python -m ner_recall gold pred`` as a new process (start-up included).
Each figure is the median of ``--repeat`` runs, wall clock and CPU (this process and its children):
on a shared machine the wall clock waits for other jobs and the CPU time does not. The first run of
the app, which loads the metric, is not counted.

    python bench/app_files.py [--sizes 3500,50000] [--repeat 3] [--out bench/app_files.md]
"""

import argparse
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

TYPES = ("PER", "LOC", "ORG", "MISC")
WORDS = ("the", "of", "said", "in", "a", "to", "on", "was", "for", "by", "with", "at")


def sentence(rng):
    """(tokens, gold tags, predicted tags) of one synthetic sentence."""
    tokens, gold = [], []
    while len(tokens) < rng.randint(7, 21):
        if rng.random() < 0.8:
            tokens.append(rng.choice(WORDS))
            gold.append("O")
        else:
            kind, size = rng.choice(TYPES), rng.randint(1, 3)
            tokens += [f"{kind.title()}{rng.randint(0, 999)}" for _ in range(size)]
            gold += [f"B-{kind}"] + [f"I-{kind}"] * (size - 1)
    return tokens, gold, perturb(gold, rng)


def perturb(gold, rng):
    """A tagger's output: most tags kept, some entities retyped, cut short, dropped or invented."""
    pred = list(gold)
    for i, tag in enumerate(gold):
        r = rng.random()
        if tag.startswith("B-") and r < 0.06:
            pred[i] = f"B-{rng.choice(TYPES)}"
        elif tag.startswith("B-") and r < 0.10:
            pred[i] = "O"
        elif tag.startswith("I-") and r < 0.08:
            pred[i] = "O"
        elif tag == "O" and r < 0.01:
            pred[i] = f"B-{rng.choice(TYPES)}"
    return pred


def write_files(folder, n, seed=0):
    """gold.conll, pred.conll and pred_b.conll of ``n`` sentences; their paths."""
    rng = random.Random(seed)
    paths = [folder / f"{name}_{n}.conll" for name in ("gold", "pred", "pred_b")]
    files = [open(p, "w", encoding="utf-8") for p in paths]
    tokens_total = 0
    try:
        for i in range(n):
            tokens, gold, pred = sentence(rng)
            tokens_total += len(tokens)
            pred_b = perturb(gold, rng)
            for f, tags in zip(files, (gold, pred, pred_b)):
                if i % 20 == 0:
                    f.write("-DOCSTART- O\n\n")
                f.write("".join(f"{t} {g}\n" for t, g in zip(tokens, tags)) + "\n")
    finally:
        for f in files:
            f.close()
    return [str(p) for p in paths], tokens_total


def median_time(fn, repeat):
    """(wall, CPU) seconds of ``fn``, medians of ``repeat`` runs; CPU includes child processes."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu = _cpu()
        start = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(paths, repeat):
    from ner_recall.app import errors, files
    from ner_recall.app.common import LENIENT as lenient
    from ner_recall.cli import report as ner_report
    from ner_recall.readers import files as ner_files

    gold, pred, pred_b = paths
    state = files.files_view(gold, pred, None, lenient, False, 0)[-1]  # loads the metric once
    inputs = ner_files.read_pair(gold, pred)
    cli = [sys.executable, str(ROOT / "ner_recall/cli/report.py"), gold, pred]
    return {
        "read": median_time(lambda: ner_files.read_pair(gold, pred), repeat),
        "score": median_time(lambda: ner_report.score(inputs), repeat),
        "tab": median_time(
            lambda: files.files_view(gold, pred, None, lenient, False, 0, download=False), repeat
        ),
        "json": median_time(lambda: files.results_json(state), repeat),
        "page": median_time(
            lambda: errors.turn_page(state, "strict", errors.NOT_CORRECT, errors.ALL_TYPES, 5, 1), repeat
        ),
        "tab_b": median_time(
            lambda: files.files_view(gold, pred, pred_b, lenient, False, 0, download=False), repeat
        ),
        "cli": median_time(
            lambda: subprocess.run(cli, check=True, capture_output=True, cwd=tempfile.gettempdir()), repeat
        ),
    }


COLUMNS = {
    "read": "read both files",
    "score": "score, with errors and confusion",
    "tab": "Files tab, first result",
    "json": "then the JSON download",
    "page": "then a page of the error browser",
    "tab_b": "Files tab, two systems",
    "cli": "command line, new process",
}


def table(rows):
    lines = [
        "| sentences | tokens | " + " | ".join(f"{name}, wall / CPU (s)" for name in COLUMNS.values()) + " |",
        "|---:|---:|" + "---:|" * len(COLUMNS),
    ]
    lines += [
        f"| {n:,} | {tokens:,} | " + " | ".join(f"{t[k][0]:.2f} / {t[k][1]:.2f}" for k in COLUMNS) + " |"
        for n, tokens, t in rows
    ]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="3500,50000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "app_files.md"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in map(int, args.sizes.split(",")):
            paths, tokens = write_files(Path(folder), n)
            rows.append((n, tokens, measure(paths, args.repeat)))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    command = f"python bench/app_files.py --sizes {args.sizes} --repeat {args.repeat}"
    text = (
        f"`{command}`\n(Python {platform.python_version()}, {os.cpu_count()} CPU cores shared with other jobs: "
        f"the CPU seconds are what an idle machine would take; medians of {args.repeat} runs)\n\n{table(rows)}\n"
    )
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
