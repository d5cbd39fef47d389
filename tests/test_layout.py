"""The house's layout: one vocabulary, siblings that evaluate copies, and a metric that loads
from a copied folder with nothing of the repository on the path."""

import ast
import glob
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "ner_recall_metric.py")
MODULES = sorted(glob.glob(os.path.join(ROOT, "ner_*.py")))
#: the shared facts of ner_core, none defined anywhere else
VOCABULARY = (
    "Span",
    "SpanArrays",
    "SCENARIOS",
    "MODES",
    "OUTCOMES",
    "OUTCOME_TABLE",
    "CREDIT",
    "SCENARIO_CREDIT",
    "OUTCOME_CODES",
    "COLUMNS",
    "ZERO_DIVISION",
    "divide",
    "ratio",
    "fbeta",
    "fbeta_key",
    "IGNORE_INDEX",
    "SIZE_KEYS",
    "is_int",
    "_is_int",
    "shared_length",
    "union_length",
    "check_confidence_level",
    "check_seed",
)


def tree(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


def defined(path):
    """Top-level names a module defines (assignments, functions, classes), not those it imports."""
    names = set()
    for node in tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def sibling_imports(path):
    return {
        node.module for node in ast.walk(tree(path)) if isinstance(node, ast.ImportFrom) and node.level == 1
    }


def test_no_fact_of_the_vocabulary_is_defined_twice():
    for name in VOCABULARY:
        owners = [os.path.basename(p) for p in MODULES + [os.path.join(ROOT, "app.py")] if name in defined(p)]
        assert len(owners) <= 1, f"{name} is defined in {owners}"
        if name != "_is_int":
            assert owners == ["ner_recall/core/vocabulary.py"], (
                f"{name} is defined in {owners}, not ner_recall/core/vocabulary.py"
            )


def test_the_script_imports_every_sibling_the_siblings_import():
    with open(SCRIPT, encoding="utf-8") as f:
        lines = f.read().splitlines()
    top = {line.split()[1][1:] for line in lines if line.startswith("from .") and "#" not in line}
    needed = set().union(*(sibling_imports(p) for p in MODULES)) - {None}
    assert needed <= top, f"siblings evaluate would not copy: {sorted(needed - top)}"


def test_the_wrapper_holds_no_scoring_arithmetic():
    nodes = list(ast.walk(tree(SCRIPT)))
    calls = {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not calls & {"divide", "ratio", "fbeta", "fbeta_array", "prf_table", "derive"}
    family_tests = [
        n
        for n in nodes
        if isinstance(n, ast.Compare)
        and isinstance(n.ops[0], ast.In)
        and any(getattr(c, "id", getattr(c, "attr", "")) == "scores" for c in n.comparators)
    ]
    assert not family_tests, "the wrapper dispatches families by 'x in scores'"


LOAD = textwrap.dedent("""
    import sys, evaluate
    tags = evaluate.load(sys.argv[1])
    r = tags.compute(predictions=[["B-PER", "I-PER", "O"]], references=[["B-PER", "I-PER", "O"]],
                     scores=["seqeval", "muc", "token", "overlap", "harem", "confusion"], ci_resamples=5)
    spans = evaluate.load(sys.argv[1], "spans")
    s = spans.compute(predictions=[[{"label": "PER", "start": 0, "end": 2}]],
                      references=[[{"label": "PER", "start": 0, "end": 2}]])
    print(r["overall_f1"], r["harem"]["f1"], s["muc"]["strict"]["f1"])
    print(sorted(m for m in sys.modules if m.split(".")[-1].startswith("ner_") and "." not in m))
""")


@pytest.mark.parametrize("by", ["script", "folder"])
def test_loads_from_a_copied_folder_with_nothing_else_on_the_path(tmp_path, by):
    folder = tmp_path / "space" / "ner_recall_metric"
    folder.mkdir(parents=True)
    for path in MODULES:
        shutil.copy(path, folder)
    target = str(folder / "ner_recall_metric.py") if by == "script" else str(folder)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HF_HUB_OFFLINE"] = env["HF_EVALUATE_OFFLINE"] = "1"
    env["HF_MODULES_CACHE"] = str(tmp_path / "modules")
    out = subprocess.run(
        [sys.executable, "-c", LOAD, target],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    scores, top_level = out.stdout.strip().splitlines()
    assert scores == "1.0 1.0 1.0"
    assert top_level == "[]", "a sibling was imported as a top-level module, not from evaluate's package"
