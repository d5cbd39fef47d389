"""Write the README's options table from the options table (``ner_options.OPTIONS``).

    python bench/options_table.py [--check]

The table stands between ``<!-- options -->`` and ``<!-- /options -->``; ``tests/test_options.py``
fails when it differs from ``ner_options.options_table()``. ``--check``: change nothing, exit 1
if it differs.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ner_recall.pipeline.options import options_table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the table differs")
    args = parser.parse_args()
    path = ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(r"(<!-- options -->\n)(.*?)(\n<!-- /options -->)", re.S)
    if len(pattern.findall(text)) != 1:
        raise SystemExit("README.md: the block <!-- options --> is not there exactly once")
    new = pattern.sub(lambda m: m.group(1) + options_table() + m.group(3), text)
    if args.check:
        return int(new != text)
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
