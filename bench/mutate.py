"""Mutation testing of one module of the package against its own test files, with mutmut (3.x).

mutmut names each mutant after its module's dotted path (``ner_recall.stats.planning``) and switches
mutants on by comparing that name with the importing module's ``__name__``; the package is imported
under that name everywhere, the metric script included (it imports the package), so the run needs no
more than a scratch copy of the package, the script, the tests and the files the tests read. Tests
that need files beyond those (examples, the app's launcher) are listed by a clean run first and
deselected.

    python bench/mutate.py ner_recall/stats/planning.py tests/test_planning.py [--workdir /tmp/mutate] [--max-children 2]

``-k EXPR`` (pytest's) keeps only the tests it selects, in the clean run and in every mutant's run: for a
test file with slow parity tests, e.g. ``-k "not krippendorff"`` for ``tests/test_agreement.py``.
``--names GLOB ...`` runs only the mutants whose names match (mutmut's names: ``ner_recall.SUB.MODULE.x_FUNCTION__mutmut_N``,
e.g. ``"ner_recall.pipeline.fast.x__counted__mutmut_*"``): the functions a change touched.

Prints mutmut's summary and writes ``<workdir>/<module>/survivors.txt`` (each surviving mutant's diff).
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def workspace(where: Path) -> Path:
    """A scratch copy: the package, the metric script, tests/, docs/, tests' data and bench/*.md."""
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    shutil.copytree(ROOT / "ner_recall", where / "ner_recall", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "ner_recall_metric.py", where / "ner_recall_metric.py")
    shutil.copytree(ROOT / "tests", where / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "docs", where / "docs")
    (where / "bench").mkdir()
    for path in (ROOT / "bench").glob("*.md"):
        shutil.copy2(path, where / "bench" / path.name)
    return where


def clean_failures(where: Path, tests: list[str], keyword: list[str]) -> list[str]:
    """The test ids that fail on the unmutated copy (they need files the copy lacks)."""
    report = where / "clean.txt"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", *keyword, *tests],
        cwd=where,
        stdout=open(report, "w"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    return [
        line.split()[1] for line in report.read_text().splitlines() if line.startswith(("FAILED ", "ERROR "))
    ]


def configure(
    where: Path, module: str, tests: list[str], deselect: list[str], max_children: int, keyword: list[str]
) -> None:
    args = ["-p", "no:cacheprovider", "-q", "-x", *keyword] + [f"--deselect={t}" for t in deselect]
    (where / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        f'source_paths = ["{module}"]\n'
        'also_copy = ["ner_recall", "ner_recall_metric.py", "docs", "bench"]\n'
        f"pytest_add_cli_args_test_selection = {tests!r}\n"
        f"pytest_add_cli_args = {args!r}\n"
        f"max_children = {max_children}\n".replace("'", '"')
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the module's path, e.g. ner_recall/stats/planning.py")
    parser.add_argument("tests", nargs="+")
    parser.add_argument("--workdir", default="/tmp/mutate")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("-k", dest="keyword", help="pytest's -k: run only the tests it selects")
    parser.add_argument("--names", nargs="+", default=[], help="mutmut's mutant names (globs) to run")
    args = parser.parse_args()
    keyword = ["-k", args.keyword] if args.keyword else []
    if not (ROOT / args.module).is_file() or not args.module.startswith("ner_recall/"):
        parser.error(
            f"{args.module}: not a module of the package (give its path, e.g. ner_recall/stats/planning.py)"
        )
    where = workspace(Path(args.workdir) / Path(args.module).stem)
    deselect = clean_failures(where, args.tests, keyword)
    print(f"deselected (need files beyond the package): {deselect}")
    configure(where, args.module, args.tests, deselect, args.max_children, keyword)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    subprocess.run(
        ["mutmut", "run", "--max-children", str(args.max_children), *args.names], cwd=where, env=env
    )
    results = subprocess.run(["mutmut", "results"], cwd=where, env=env, capture_output=True, text=True).stdout
    survivors = [
        line.split(":")[0].strip() for line in results.splitlines() if line.strip().endswith("survived")
    ]
    with open(where / "survivors.txt", "w") as out:
        for name in survivors:
            shown = subprocess.run(
                ["mutmut", "show", name], cwd=where, env=env, capture_output=True, text=True
            )
            out.write(shown.stdout + "\n")
    print(results)
    print(f"{len(survivors)} survivors: {where / 'survivors.txt'}")


if __name__ == "__main__":
    main()
