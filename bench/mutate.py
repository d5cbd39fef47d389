"""Mutation testing of one root module against its own test files, with mutmut (3.x).

mutmut names each mutant after its module's path and switches mutants on by comparing that name with
the importing module's ``__name__``. The repository imports its root modules as ``ner_recall.X``
(``bootstrap.py``) and, through ``evaluate.load``, under a hashed name: mutants would never be on. So
the run happens in a scratch copy where the root modules form a real package folder ``ner_recall/``
and the tests' ``evaluate.load`` of the metric script builds the metric from that package (the mutated
modules). Tests that need files beyond the package (docs, bench, examples) are listed by a clean run
first and deselected.

    python bench/mutate.py ner_planning tests/test_planning.py [--workdir /tmp/mutate] [--max-children 2]

``-k EXPR`` (pytest's) keeps only the tests it selects, in the clean run and in every mutant's run: for a
test file with slow parity tests, e.g. ``-k "not krippendorff"`` for ``tests/test_agreement.py``.
``--names GLOB ...`` runs only the mutants whose names match (mutmut's names: ``ner_recall.MODULE.x_FUNCTION__mutmut_N``,
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

BOOTSTRAP = '''"""The package folder ner_recall/ of a mutation run (a real package: mutmut names it)."""
from pathlib import Path

NAME = "ner_recall"
ROOT = Path(__file__).resolve().parent / NAME
'''

# appended to the copied tests/conftest.py: the metric script loads from the mutated package
CONFTEST = """

def _load_from_package(path, config_name=None, *args, **kwargs):
    if str(path).endswith("ner_recall_metric.py"):
        from ner_recall.ner_recall_metric import NerRecallMetric

        return NerRecallMetric(config_name=config_name)
    return _evaluate_load(path, config_name, *args, **kwargs)


import evaluate as _evaluate  # noqa: E402

_evaluate_load = _evaluate.load
_evaluate.load = _load_from_package
"""


def workspace(module: str, tests: list[str], where: Path) -> Path:
    """A scratch copy: ner_recall/ (every root module), bootstrap.py, tests/, docs/, bench/*.md."""
    if where.exists():
        shutil.rmtree(where)
    package = where / "ner_recall"
    package.mkdir(parents=True)
    for path in ROOT.glob("*.py"):
        if path.name not in ("bootstrap.py", "app.py"):
            shutil.copy2(path, package / path.name)
    (package / "__init__.py").write_text('"""The root modules, for a mutation run."""\n')
    (where / "bootstrap.py").write_text(BOOTSTRAP)
    shutil.copytree(ROOT / "tests", where / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    with open(where / "tests" / "conftest.py", "a") as conftest:
        conftest.write(CONFTEST)
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
        f'source_paths = ["ner_recall/{module}.py"]\n'
        'also_copy = ["ner_recall", "bootstrap.py", "docs", "bench"]\n'
        f"pytest_add_cli_args_test_selection = {tests!r}\n"
        f"pytest_add_cli_args = {args!r}\n"
        f"max_children = {max_children}\n".replace("'", '"')
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module")
    parser.add_argument("tests", nargs="+")
    parser.add_argument("--workdir", default="/tmp/mutate")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("-k", dest="keyword", help="pytest's -k: run only the tests it selects")
    parser.add_argument("--names", nargs="+", default=[], help="mutmut's mutant names (globs) to run")
    args = parser.parse_args()
    keyword = ["-k", args.keyword] if args.keyword else []
    where = workspace(args.module, args.tests, Path(args.workdir) / args.module)
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
