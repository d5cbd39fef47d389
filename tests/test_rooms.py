"""No room too big: no Python file outside ``tests/``, ``bench/`` and ``examples/`` over 800 lines."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: folders whose files may be longer (tables of cases, scripts), and those not the project's
OUTSIDE = {"tests", "bench", "examples"}
LIMIT = 800


def shipped_python_files() -> list[Path]:
    """The repository's Python files outside :data:`OUTSIDE` and hidden or virtual-env folders."""
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not any(part in OUTSIDE or part.startswith(".") for part in path.relative_to(ROOT).parts[:-1])
    )


def test_the_shipped_files_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in shipped_python_files()}
    assert {
        "ner_recall_metric.py",
        "ner_recall/core/decoding.py",
        "app.py",
        "ner_recall/app/common.py",
    } <= names
    assert not any(name.startswith(("tests/", "bench/", "examples/")) for name in names)


def test_no_file_is_over_800_lines():
    sizes = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in shipped_python_files()}
    over = [f"{path.relative_to(ROOT)}: {n} lines" for path, n in sorted(sizes.items()) if n > LIMIT]
    assert not over, f"over {LIMIT} lines:\n" + "\n".join(over)
