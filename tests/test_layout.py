"""The house's layout: one vocabulary, a metric script that imports the package (with the line
evaluate's loader turns into an install hint), and a metric that loads from a copied folder."""

import ast
import functools
import glob
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "ner_recall_metric.py")
MODULES = sorted(glob.glob(os.path.join(ROOT, "ner_recall", "**", "*.py"), recursive=True))
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


@functools.cache
def tree(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


def defined(path):
    """Top-level names a module defines (assignments, functions, classes), not those it imports."""
    names = set()
    for node in tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def test_no_fact_of_the_vocabulary_is_defined_twice():
    for name in VOCABULARY:
        owners = [
            os.path.relpath(p, ROOT).replace(os.sep, "/")
            for p in MODULES + [SCRIPT, os.path.join(ROOT, "app.py")]
            if name in defined(p)
        ]
        assert len(owners) <= 1, f"{name} is defined in {owners}"
        if name != "_is_int":
            assert owners == ["ner_recall/core/vocabulary.py"], (
                f"{name} is defined in {owners}, not ner_recall/core/vocabulary.py"
            )


def test_the_script_imports_the_package_on_lines_that_carry_its_install_hint():
    """evaluate's loader reads the script line by line: a relative import would be a sibling file to
    copy, and an import of the package without ``# From: -e .`` an install hint without the path."""
    from evaluate.loading import get_imports

    imports = get_imports(SCRIPT)
    assert not [i for i in imports if i[0] != "library"], "the script copies no sibling"
    ours = {path for kind, name, path, _ in imports if name == "ner_recall"}
    assert ours == {"-e ."}
    packages = {n.module for n in ast.walk(tree(SCRIPT)) if isinstance(n, ast.ImportFrom)}
    assert {m for m in packages if m.startswith("ner_recall")}, "the script wraps the package"
    assert all(node.level == 0 for node in ast.walk(tree(SCRIPT)) if isinstance(node, ast.ImportFrom))


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
    import ner_recall
    print(ner_recall.__file__)
""")


def hub_module(tmp_path):
    """What a Hub module of the metric downloads: the script, its card and its requirements."""
    folder = tmp_path / "space" / "ner_recall_metric"
    folder.mkdir(parents=True)
    for name in ("ner_recall_metric.py", "README.md", "requirements.txt"):
        shutil.copy(os.path.join(ROOT, name), folder)
    return folder


def load_in_a_process(tmp_path, target, package_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = package_path
    env["HF_HUB_OFFLINE"] = env["HF_EVALUATE_OFFLINE"] = "1"
    env["HF_MODULES_CACHE"] = str(tmp_path / "modules")
    return subprocess.run(
        [sys.executable, "-c", LOAD, target],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("by", ["script", "folder"])
def test_loads_from_a_copied_folder_over_the_installed_package(tmp_path, by):
    folder = hub_module(tmp_path)
    target = str(folder / "ner_recall_metric.py") if by == "script" else str(folder)
    out = load_in_a_process(tmp_path, target, ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    scores, package = out.stdout.strip().splitlines()
    assert scores == "1.0 1.0 1.0"
    assert package == os.path.join(ROOT, "ner_recall", "__init__.py")


def test_without_the_package_the_loader_says_how_to_install_it(tmp_path):
    """Where ``ner_recall`` cannot be imported (run from a folder without it, in a Python that has not
    installed it), evaluate's loader names the package and the pip argument of the script's hint."""
    out = load_in_a_process(tmp_path, str(hub_module(tmp_path)), str(tmp_path / "nothing"))
    if out.returncode == 0:
        pytest.skip("ner_recall is installed in this Python, so nothing is missing")
    assert "ImportError" in out.stderr and "['ner_recall']" in out.stderr
    assert "pip install -e ." in out.stderr


def test_the_layout_page_names_every_module_once():
    page = open(os.path.join(ROOT, "docs", "layout.md"), encoding="utf-8").read()
    named = [
        path
        for line in page.splitlines()
        if line.startswith("| `")
        for path in re.findall(r"`([\w/.]+\.py)`", line.split(" | ")[0])
    ]
    modules = [
        os.path.relpath(p, ROOT).replace(os.sep, "/") for p in MODULES if not p.endswith("__init__.py")
    ]
    assert len(named) == len(set(named)), "a module named twice"
    assert sorted(m for m in named if m.startswith("ner_recall/")) == sorted(modules)


def module_name(path):
    name = os.path.relpath(path, ROOT).replace(os.sep, "/").removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def annotations(module):
    for node in ast.walk(module):
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


def read_names(module):
    """The names a module reads, in its code and in annotations written as strings ("Options");
    not the strings of an ``__all__``."""
    names = {node.id for node in ast.walk(module) if isinstance(node, ast.Name)}
    for annotation in annotations(module):
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names |= {
                    n.id for n in ast.walk(ast.parse(node.value, mode="eval")) if isinstance(n, ast.Name)
                }
    return names


def package_imports(module):
    """(line, module, name, bound name) of every ``from ner_recall... import name [as bound]``."""
    return [
        (node.lineno, node.module, alias.name, alias.asname or alias.name)
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ner_recall")
        for alias in node.names
    ]


def test_no_module_imports_a_name_only_to_offer_it():
    """A name of the package is imported where it is read: an import kept for others to read from
    there (a ``noqa: F401`` re-export, an ``__all__`` of imported names) makes two homes for one name."""
    kept = []
    for path in MODULES:
        module = tree(path)
        read = read_names(module) | defined(path)
        kept += [
            f"{os.path.relpath(path, ROOT)}:{line}: {name} from {home}"
            for line, home, name, bound in package_imports(module)
            if bound not in read
        ]
    assert not kept, "imported and never read: " + ", ".join(kept)


def test_every_name_of_the_package_is_imported_from_its_home():
    """``from ner_recall.x import name`` names a module of the package or a name x defines, in the
    package, its script and app, the tests, bench and examples."""
    homes = {module_name(path): defined(path) for path in MODULES}
    files = [SCRIPT, os.path.join(ROOT, "app.py")] + [
        path
        for folder in ("tests", "bench", "examples")
        for path in glob.glob(os.path.join(ROOT, folder, "*.py"))
    ]
    elsewhere = [
        f"{os.path.relpath(path, ROOT)}:{line}: {name} from {module}"
        for path in MODULES + files
        for line, module, name, _ in package_imports(tree(path))
        if f"{module}.{name}" not in homes and name not in homes.get(module, {name})
    ]
    assert not elsewhere, "imported from a module that does not define it: " + ", ".join(elsewhere)


def reads_text(nodes, name):
    """Whether ``nodes`` read the text of the exception bound to ``name``: ``str()``, ``repr()``,
    ``format()``, an f-string or ``.args``."""
    for node in (n for top in nodes for n in ast.walk(top)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("str", "repr", "format"):
            if any(isinstance(a, ast.Name) and a.id == name for a in node.args):
                return True
        if (
            isinstance(node, ast.FormattedValue)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return True
        if (
            isinstance(node, ast.Attribute)
            and getattr(node.value, "id", None) == name
            and node.attr == "args"
        ):
            return True
    return False


def calls_the_package(nodes, path):
    """Whether ``nodes`` call a function of the package: one the module defines or imports from it,
    or one of a module of it (``ner_files.read_pair``)."""
    module = tree(path)
    ours = defined(path) | {bound for _, _, _, bound in package_imports(module)}
    for node in (n for top in nodes for n in ast.walk(top)):
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if isinstance(func, ast.Name) and func.id in ours | {"self"}:
                return True
    return False


def text_readers(path):
    """{function of the module: positions of the parameters whose text it reads}."""
    return {
        node.name: {k for k, arg in enumerate(node.args.args) if reads_text(node.body, arg.arg)}
        for node in tree(path).body
        if isinstance(node, ast.FunctionDef)
    }


def rewords(handler, path):
    """Whether an ``except ... as name`` that raises reads the text of ``name``, itself or through a
    function of the module it hands ``name`` to."""
    if not any(isinstance(n, ast.Raise) for top in handler.body for n in ast.walk(top)):
        return False
    readers = text_readers(path)
    handed = any(
        isinstance(node, ast.Call)
        and any(
            isinstance(a, ast.Name) and a.id == handler.name and k in readers.get(node.func.id, ())
            for k, a in enumerate(node.args)
        )
        for top in handler.body
        for node in ast.walk(top)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    )
    return handed or reads_text(handler.body, handler.name)


def test_no_error_of_the_package_is_reworded():
    """An error the package raised reaches the user as it was written: an ``except`` that raises
    again never reads the caught error's text (its place is renamed, noted or framed through
    ``InputError``'s own methods). Errors of other libraries (json, zlib, spaCy) have only their
    text to tell what went wrong: a handler of a block that calls no function of the package may
    quote it."""
    reworded = [
        f"{os.path.relpath(path, ROOT)}:{handler.lineno}"
        for path in MODULES
        for node in ast.walk(tree(path))
        if isinstance(node, ast.Try) and calls_the_package(node.body, path)
        for handler in node.handlers
        if handler.name and rewords(handler, path)
    ]
    assert not reworded, "an except that rewords the error it caught: " + ", ".join(reworded)
