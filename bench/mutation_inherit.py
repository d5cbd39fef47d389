"""Which mutants of a new mutation run an earlier run has already killed, so that only the others run.

A mutant of the new run whose change is identical, line for line, to a mutant an earlier run killed, in
the same function, is counted killed (the tests only grew); the others are written to a file for
``mutmut run $(cat FILE)`` in the new run's folder (made by ``bench/mutate.py``).

    python bench/mutation_inherit.py MODULE NEW_WORKDIR OLD_WORKDIR [OLD_WORKDIR ...] --out names.txt
"""

import argparse
import ast
import difflib
import json
from pathlib import Path


def changes(where: Path, module: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Per mutant name: (its function, the lines its change removes and adds)."""
    source = (where / "mutants" / "ner_recall" / f"{module}.py").read_text()
    lines = source.splitlines()
    body = {
        node.name: lines[node.lineno - 1 : node.end_lineno]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef)
    }
    out = {}
    for name in body:
        base, _, number = name.rpartition("__mutmut_")
        if not base or number == "orig" or base + "__mutmut_orig" not in body:
            continue
        old = [line.replace(base + "__mutmut_orig", "") for line in body[base + "__mutmut_orig"]]
        new = [line.replace(name, "") for line in body[name]]
        diff = difflib.unified_diff(old, new, lineterm="", n=0)
        out[f"ner_recall.{module}.{name}"] = (
            base,
            tuple(d for d in diff if not d.startswith(("---", "+++", "@@"))),
        )
    return out


def verdicts(where: Path, module: str) -> dict[str, int | None]:
    meta = where / "mutants" / "ner_recall" / f"{module}.py.meta"
    return json.loads(meta.read_text())["exit_code_by_key"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module")
    parser.add_argument("new", type=Path)
    parser.add_argument("old", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    killed = set()
    for where in args.old:
        found = verdicts(where, args.module)
        killed |= {change for name, change in changes(where, args.module).items() if found.get(name) == 1}
    new = changes(args.new, args.module)
    done = verdicts(args.new, args.module)
    todo = [name for name, change in new.items() if change not in killed and done.get(name) is None]
    print(f"{len(new)} mutants; {len(new) - len(todo)} killed before or already run; {len(todo)} to run")
    args.out.write_text("\n".join(todo) + "\n")


if __name__ == "__main__":
    main()
