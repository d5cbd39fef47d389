"""Copy the tables (and the target lines) a long benchmark wrote into the docs blocks that show them.

The benchmarks take minutes, so the tests compare each docs block with the file its script writes
(``tests/test_readme.py``, ``tests/test_state.py``, ``tests/test_decoding.py``); after a rerun this
puts the new output in place, between ``<!-- name -->`` and ``<!-- /name -->``. The prose around a
block is not touched: read it again against the new figures.

    python bench/sync_docs.py [--check]

``--check``: change nothing, list the blocks that differ from their file, exit 1 if any does.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (page, block, benchmark output, which of its tables; "targets": its "- " lines; "body": all of it
#: but its title)
BLOCKS = (
    ("docs/speed.md", "speed", "bench/speed.md", slice(0, 1)),
    ("docs/speed.md", "speed-touch", "bench/speed.md", slice(1, 2)),
    ("docs/speed.md", "speed-targets", "bench/speed.md", "targets"),
    ("docs/speed.md", "speed-profile", "bench/speed_profile.md", slice(None)),
    ("docs/speed.md", "scale", "bench/scale.md", slice(None)),
    ("docs/signature.md", "conventions", "bench/conventions.md", slice(None)),
    ("docs/golds.md", "golds", "bench/golds.md", slice(None)),
    ("docs/generated.md", "generated", "bench/generated.md", slice(None)),
    ("docs/speed.md", "scale-ids", "bench/scale_ids.md", slice(-1, None)),
    ("docs/speed.md", "scale-out", "bench/scale_out.md", slice(None)),
    ("docs/decoding.md", "decoding-speed", "bench/decoding.md", "body"),
)


def tables_of(text):
    """The markdown tables of a text, each as its list of lines."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            found, current = found + [current], []
    return found


def wanted_lines(output, chosen):
    text = (ROOT / output).read_text(encoding="utf-8")
    if chosen == "targets":
        return [line for line in text.splitlines() if line.startswith("- ")]
    if chosen == "body":
        return text.split("\n", 1)[1].strip("\n").splitlines()
    tables = tables_of(text)[chosen]
    return [line for i, table in enumerate(tables) for line in ([""] if i else []) + table]


def synced(page_text, name, lines):
    """The page with block ``name``'s lines replaced; raises unless the block occurs once."""
    pattern = re.compile(rf"(<!-- {re.escape(name)} -->\n)(.*?)(\n<!-- /{re.escape(name)} -->)", re.S)
    if len(pattern.findall(page_text)) != 1:
        raise SystemExit(f"block {name!r}: not found exactly once")
    return pattern.sub(lambda m: m.group(1) + "\n".join(lines) + m.group(3), page_text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block differs")
    args = parser.parse_args()
    pages, differ = {}, []
    for page, name, output, chosen in BLOCKS:
        text = pages.setdefault(page, (ROOT / page).read_text(encoding="utf-8"))
        new = synced(text, name, wanted_lines(output, chosen))
        if new != text:
            differ.append(f"{page}: {name} (from {output})")
            pages[page] = new
    for line in differ:
        print(("differs: " if args.check else "updated: ") + line)
    if args.check:
        sys.exit(1 if differ else 0)
    for page, text in pages.items():
        (ROOT / page).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
