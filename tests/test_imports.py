"""The import graph of the package: no cycle, and every import goes down the layers below, the
order docs/layout.md gives. Imports inside functions count; those under ``TYPE_CHECKING`` (types
only, never run) do not."""

import ast
import glob
import os

import pytest

from conftest import ROOT

#: the layers, lowest first: each group of modules imports only from its own layer or below
LAYERS = (
    ("__init__", "core"),
    ("stats.interval_methods", "stats.uncertainty", "stats.stratified", "stats.planning", "readers"),
    ("families",),
    ("pipeline.options", "pipeline.fast"),
    ("stats.comparison",),
    ("pipeline.compute",),
    ("state.unit_ids", "state.counts", "stats.agreement", "generated"),
    ("state.exact",),
    ("pipeline.signature",),
    ("pipeline.golds", "pipeline.record", "integrations"),
    ("cli", "app", "__main__"),
)


def module_of(path):
    name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return name.removesuffix(".__init__")


def group_of(module):
    """The entry of :data:`LAYERS` a module belongs to (its longest prefix), and its layer."""
    rest = module.removeprefix("ner_recall").removeprefix(".") or "__init__"
    for level, groups in enumerate(LAYERS):
        for group in groups:
            if rest == group or rest.startswith(group + "."):
                return group, level
    raise AssertionError(f"{module} is in no layer of tests/test_imports.py's LAYERS")


def imports(path):
    """The package modules ``path`` imports, anywhere but under ``if TYPE_CHECKING:``."""
    found = []

    def visit(nodes):
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("ner_recall")
            ):
                # a submodule imported by name (from ner_recall.pipeline import options) is that module
                found.extend(
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                    for a in node.names
                )
            elif isinstance(node, ast.Import):
                found.extend(a.name for a in node.names if a.name.startswith("ner_recall"))
            visit([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)])

    with open(path, encoding="utf-8") as handle:
        visit(ast.parse(handle.read()).body)
    return found


PATHS = sorted(glob.glob(os.path.join(ROOT, "ner_recall", "**", "*.py"), recursive=True))
MODULES = {module_of(p) for p in PATHS}
#: every module's imports of the package (a sub-package's own one-line module, which imports
#: nothing, and a module's imports of its own package's names left out)
GRAPH = {
    module_of(p): [t for t in imports(p) if t != module_of(p)]
    for p in PATHS
    if not (p.endswith("__init__.py") and module_of(p).count(".") == 1 and not imports(p))
}


def test_every_module_has_a_layer():
    for module in GRAPH:
        group_of(module)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_down_the_layers(module):
    group, level = group_of(module)
    for target in GRAPH[module]:
        other, other_level = group_of(target)
        if target == "ner_recall.families" or other == group:
            continue  # the families' package registers them; a group imports its own
        assert other_level <= level, f"{module} (layer {level}) imports {target} (layer {other_level})"


def test_no_cycle():
    state = {}

    def walk(module, path):
        state[module] = "open"
        for target in GRAPH.get(module, ()):
            assert state.get(target) != "open", " -> ".join([*path, module, target])
            if target not in state:
                walk(target, [*path, module])
        state[module] = "done"

    for module in GRAPH:
        if module not in state:
            walk(module, [])


def test_the_layers_are_the_layout_pages():
    with open(os.path.join(ROOT, "docs", "layout.md"), encoding="utf-8") as handle:
        page = handle.read()
    for groups in LAYERS:
        assert " · ".join(f"`{g}`" for g in groups) in page, groups
