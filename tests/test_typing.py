"""Every public function and method of the shipped code is type-annotated.

The type checker (mypy, run by ``.ci/run``) checks what is annotated; this test checks that nothing
public is left out: each parameter but ``self``/``cls`` and each return of a function or method whose
name does not start with ``_``, in the metric script, the app and the package ner_recall.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted({ROOT / "ner_recall_metric.py", ROOT / "app.py", *(ROOT / "ner_recall").rglob("*.py")})


def _public_functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """(function, is a method) for each public function of the module and public method of its
    public classes, nested functions aside."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
            found.append((node, False))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not item.name.startswith("_"):
                    found.append((item, True))
    return found


def missing(source: str) -> list[tuple[int, str, list[str]]]:
    """(line, name, what lacks an annotation) for each public function of ``source`` not fully
    annotated."""
    lacking = []
    for function, is_method in _public_functions(ast.parse(source)):
        args = function.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)
        if is_method and not static and params and params[0].arg in ("self", "cls"):
            params = params[1:]
        params += [a for a in (args.vararg, args.kwarg) if a is not None]
        names = [p.arg for p in params if p.annotation is None]
        if function.returns is None:
            names.append("return")
        if names:
            lacking.append((function.lineno, function.name, names))
    return lacking


@pytest.mark.parametrize(
    "source, expected",
    [
        ("def f(a: int) -> int: ...", []),
        ("def f(a) -> int: ...", [(1, "f", ["a"])]),
        ("def f(a: int): ...", [(1, "f", ["return"])]),
        ("def f(*a, **k) -> None: ...", [(1, "f", ["a", "k"])]),
        ("def f(a: int, *, b) -> None: ...", [(1, "f", ["b"])]),
        ("def _f(a): ...", []),
        ("class C:\n    def m(self, a: int) -> None: ...", []),
        ("class C:\n    def m(self, a): ...", [(2, "m", ["a", "return"])]),
        ("class C:\n    @classmethod\n    def m(cls) -> None: ...", []),
        ("class C:\n    @staticmethod\n    def m(self) -> None: ...", [(3, "m", ["self"])]),
        ("class C:\n    def __init__(self, a): ...", []),
        ("class _C:\n    def m(self, a): ...", []),
        ("def f() -> None:\n    def g(a): ...", []),
    ],
)
def test_missing_finds_what_lacks_an_annotation(source, expected):
    assert missing(source) == expected


def test_the_files_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in FILES}
    assert {
        "ner_recall_metric.py",
        "ner_recall/cli/report.py",
        "app.py",
        "ner_recall/app/common.py",
        "ner_recall/core/vocabulary.py",
    } <= names


def test_every_public_function_is_annotated():
    lacking = [
        f"{path.relative_to(ROOT)}:{line}:{name} ({', '.join(names)})"
        for path in FILES
        for line, name, names in missing(path.read_text(encoding="utf-8"))
    ]
    assert not lacking, f"{len(lacking)} public functions lack annotations:\n" + "\n".join(lacking)
