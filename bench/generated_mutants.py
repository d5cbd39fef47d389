"""Hand-planted mutants of the generated config's modules, each run against their own tests.

Each mutant is one replacement in a source file; the file is restored after its run. A mutant
the tests do not kill is a missing test or a line that does nothing.

    python bench/generated_mutants.py      (from the repository root; minutes)
"""

import argparse
import subprocess
import sys

MUTANTS = [
    (
        "ner_recall/generated/conventions.py",
        "return list(dict.fromkeys(keys))",
        "return list(keys)",
    ),
    (
        "ner_recall/generated/conventions.py",
        'm = re.match(r"\\[(.*?)\\]", answer)',
        'm = re.search(r"\\[(.*?)\\]", answer)',
    ),
    (
        "ner_recall/generated/conventions.py",
        "if count[key] < seen[key]:",
        "if count[key] <= seen[key]:",
    ),
    (
        "ner_recall/generated/conventions.py",
        'if words and tag[:1] in ("B", "O"):',
        'if words and tag[:1] in ("B",):',
    ),
    (
        "ner_recall/generated/conventions.py",
        'elif tags[k] == "o" and tags[k - 1][2:] == name:',
        'elif tags[k] == "o":',
    ),
    ("ner_recall/generated/conventions.py", "q = bisect_left(tops, v)", "q = bisect_left(tops, v + 1)"),
    (
        "ner_recall/generated/placement.py",
        "k = bisect_left(index.of(found), cursor)\n        if k < len(found):\n            chosen[i]",
        "k = 0\n        if k < len(found):\n            chosen[i]",
    ),
    ("ner_recall/generated/placement.py", "q = bisect_right(ends, s)", "q = len(ends)"),
    (
        "ner_recall/generated/scoring.py",
        'counts["items"] = sum(counts.values())',
        'counts["items"] = sum(counts.values()) - counts["unparseable"]',
    ),
    ("ner_recall/generated/placement.py", "elif schema is not None and label not in schema:", "elif False:"),
    (
        "ner_recall/generated/placement.py",
        "if not 0 <= start < end <= len(text):",
        "if not 0 <= start < end:",
    ),
    ("ner_recall/generated/dialects.py", 'if kind != "O":', "if True:"),
    ("ner_recall/generated/dialects.py", "if tries > 50:", "if tries > 0:"),
    (
        "ner_recall/generated/dialects.py",
        "if reading.plain == text:\n        return reading.items",
        "if True:\n        return reading.items",
    ),
]
TESTS = {
    "ner_recall/generated/conventions.py": "tests/test_conventions.py",
    "ner_recall/generated/scoring.py": "tests/test_generated.py",
    "ner_recall/generated/placement.py": "tests/test_generated.py",
    "ner_recall/generated/dialects.py": "tests/test_generated.py",
}


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    killed = survived = 0
    for path, old, new in MUTANTS:
        with open(path) as handle:
            source = handle.read()
        if old not in source:
            print("not found:", path, old[:40])
            continue
        backup = open(path).read()
        with open(path, "w") as handle:
            handle.write(source.replace(old, new, 1))
        try:
            r = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-x",
                    "-p",
                    "no:cacheprovider",
                    TESTS[path],
                    "-k",
                    "not docs_page",
                ],
                capture_output=True,
                text=True,
                timeout=300,
            )
        finally:
            with open(path, "w") as handle:
                handle.write(backup)
        ok = r.returncode != 0
        killed += ok
        survived += not ok
        print("KILLED " if ok else "SURVIVED", path, new[:60].replace("\n", " "))
    print(f"killed {killed}, survived {survived}")


if __name__ == "__main__":
    main()
