"""The CoNLL shared-task script's counts on seeded corpora, for ``tests/test_conlleval.py``.

    python bench/conlleval_reference.py /path/to/conlleval.pl

runs ``perl conlleval.pl`` (the CoNLL-2000 script, version 2004-01-26; it is not part of this
repository) on the corpora that :func:`corpora` draws, and writes what it prints (tokens, gold and
found phrases, correct phrases, accuracy, and per type the phrases found and the precision) to
``tests/data/conlleval_reference.json``. The test recomputes the same corpora with the metric.
"""

import argparse
import json
import os
import random
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "conlleval_reference.json")
TYPES = ("PER", "LOC", "ORG")
#: the tag alphabet of each kind of corpus (its prefixes, and whether tags carry a type)
KINDS = {
    "IOB1": ("IB", True),
    "IOB2": ("BI", True),
    "IOE": ("IE", True),
    "IOBES": ("BIES", True),
    "untyped": ("BI", False),
}
#: the hand case of docs/decoding.md: gold S-PER S-PER, predicted S-PER O
HAND_CASE = {
    "name": "IOBES S-PER S-PER / S-PER O",
    "kind": "IOBES",
    "sentences": [[["a", "S-PER", "S-PER"], ["b", "S-PER", "O"]]],
}


def _valid_tags(rng, kind, length):
    """A well-formed sequence of the kind: entities of 1-3 tokens between O runs."""
    prefixes, typed = KINDS[kind]
    tags, prev_type = [], None
    while len(tags) < length:
        if rng.random() < 0.5:
            tags.append("O")
            prev_type = None
            continue
        n, t = rng.randint(1, 3), rng.choice(TYPES)
        if kind == "IOB1":
            first = "B" if prev_type == t else "I"
            chunk = [first] + ["I"] * (n - 1)
        elif kind in ("IOB2", "untyped"):
            chunk = ["B"] + ["I"] * (n - 1)
        elif kind == "IOE":
            chunk = ["I"] * (n - 1) + ["E"]
        else:
            chunk = ["S"] if n == 1 else ["B"] + ["I"] * (n - 2) + ["E"]
        tags += [f"{p}-{t}" if typed else p for p in chunk]
        prev_type = t
    return tags[:length]


def _noisy(rng, kind, tags, rate):
    """The tags with a share ``rate`` replaced by any tag of the alphabet (ill-formed sequences)."""
    prefixes, typed = KINDS[kind]
    out = []
    for tag in tags:
        if rng.random() < rate:
            p = rng.choice("O" + prefixes)
            tag = p if p == "O" or not typed else f"{p}-{rng.choice(TYPES)}"
        out.append(tag)
    return out


def corpora(n=200, sentences=25):
    """The seeded corpora: per corpus its kind and sentences of (token, gold tag, predicted tag)."""
    out = []
    for seed in range(n):
        rng = random.Random(seed)
        kind = list(KINDS)[seed % len(KINDS)]
        valid = seed % 2 == 0
        corpus = []
        for _ in range(sentences):
            length = rng.randint(1, 12)
            gold = _valid_tags(rng, kind, length)
            pred = _noisy(rng, kind, gold, 0.25)
            if not valid:
                gold = _noisy(rng, kind, gold, 0.15)
            corpus.append([[f"w{i}", g, p] for i, (g, p) in enumerate(zip(gold, pred))])
        out.append({"name": f"seed {seed}", "kind": kind, "valid": valid, "sentences": corpus})
    return out + [HAND_CASE]


def run_conlleval(script, sentences):
    """What the script prints for these sentences, parsed."""
    text = "\n\n".join("\n".join(" ".join(row) for row in sentence) for sentence in sentences) + "\n"
    out = subprocess.run(["perl", script], input=text, capture_output=True, text=True, check=True).stdout
    tokens, gold = map(int, re.search(r"processed (\d+) tokens with (\d+) phrases", out).groups())
    found, correct = map(int, re.search(r"found: (\d+) phrases; correct: (\d+)", out).groups())
    accuracy = re.search(r"accuracy:\s+([\d.]+)%", out).group(1)
    types = {
        m[0]: {"precision": m[1], "found": int(m[2])}
        for m in re.findall(r"^\s*(\S*): precision:\s+([\d.]+)%; recall:.*?FB1:\s+[\d.]+\s+(\d+)$", out, re.M)
    }
    return {
        "tokens": tokens,
        "gold": gold,
        "found": found,
        "correct": correct,
        "accuracy": accuracy,
        "types": types,
    }


def main(script):
    rows = [
        {"name": c["name"], "kind": c["kind"], "conlleval": run_conlleval(script, c["sentences"])}
        for c in corpora()
    ]
    with open(OUT, "w") as f:
        json.dump({"script": "conlleval.pl, version 2004-01-26", "corpora": rows}, f, indent=0)
    print(f"{len(rows)} corpora -> {OUT}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", help="the path of conlleval.pl (not part of this repository)")
    main(parser.parse_args().script)
