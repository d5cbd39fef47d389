"""Speed of several golds (``metric.compute_golds``) and of aligning a retokenized gold.

    python bench/golds.py [--sentences 3500] [--runs 3] [--out bench/golds.md]
    python bench/golds.py --conll GOLD_A GOLD_B [GOLD_C ...]   # public CoNLL files, read only

Synthetic corpora made here (seeded): an original gold of ``--sentences`` sentences, a corrected
gold (types flipped, entities removed and added), a retokenized gold (hyphenated tokens split,
one sentence in 20 merged with the next) and a system on the original tokens. Times are the best
of ``--runs`` (intervals excluded: ``ci_resamples`` left at 0). With ``--conll``, the files (token
first, tag last, blank lines between sentences, ``-DOCSTART-`` skipped) are compared gold against
gold and nothing is written; the files are never copied into the repository.
"""

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TYPES = ("PER", "LOC", "ORG", "MISC")
WORDS = ("the", "of", "said", "in", "on", "a", "match", "won", "team", "year")


def original(rng: random.Random, n: int) -> dict:
    """Sentences of 8-20 tokens; entities of 1-3 tokens, some hyphenated words."""
    tokens, tags = [], []
    for _ in range(n):
        toks, ts = [], []
        while len(toks) < rng.randint(8, 20):
            if rng.random() < 0.2:
                kind, size = rng.choice(TYPES), rng.randint(1, 3)
                for k in range(size):
                    word = f"N{rng.randint(0, 999)}" + ("-X" if rng.random() < 0.15 else "")
                    toks.append(word)
                    ts.append(("B-" if k == 0 else "I-") + kind)
            else:
                toks.append(rng.choice(WORDS) + ("-y" if rng.random() < 0.05 else ""))
                ts.append("O")
        tokens.append(toks)
        tags.append(ts)
    return {"tokens": tokens, "tags": tags}


def corrected(rng: random.Random, gold: dict) -> dict:
    """Types flipped (5% of entities), entities removed (2%) and O tokens made entities (1%)."""
    tags = []
    for ts in gold["tags"]:
        out, flip = [], None
        for t in ts:
            if t.startswith("B-"):
                r = rng.random()
                flip = "O" if r < 0.02 else rng.choice(TYPES) if r < 0.07 else None
            if t == "O":
                out.append(f"B-{rng.choice(TYPES)}" if rng.random() < 0.01 else "O")
                continue
            out.append(t if flip is None else "O" if flip == "O" else t[:2] + flip)
        tags.append(out)
    return {"tokens": gold["tokens"], "tags": tags}


def retokenized(rng: random.Random, gold: dict) -> dict:
    """Hyphenated tokens split into word, '-', word; one sentence in 20 merged with the next."""
    tokens, tags = [], []
    for toks, ts in zip(gold["tokens"], gold["tags"]):
        nt, ng = [], []
        for tok, tag in zip(toks, ts):
            parts = tok.replace("-", " - ").split() if "-" in tok[1:] else [tok]
            for k, p in enumerate(parts):
                nt.append(p)
                ng.append(tag if k == 0 or tag == "O" else "I-" + tag[2:])
        if tokens and rng.random() < 0.05:
            tokens[-1] += nt
            tags[-1] += ng
        else:
            tokens.append(nt)
            tags.append(ng)
    return {"tokens": tokens, "tags": tags}


def system(rng: random.Random, gold: dict) -> dict:
    tags = [
        [t if rng.random() < 0.9 else rng.choice(["O", "B-PER", "B-LOC", "I-ORG"]) for t in ts]
        for ts in gold["tags"]
    ]
    return {"tokens": gold["tokens"], "tags": tags}


def best(call, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return min(times)


def read_conll(path: str) -> dict:
    tokens, tags, toks, ts = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.split()
            if not cols or cols[0] == "-DOCSTART-":
                if toks:
                    tokens.append(toks)
                    tags.append(ts)
                toks, ts = [], []
                continue
            toks.append(cols[0])
            ts.append(cols[-1])
    if toks:
        tokens.append(toks)
        tags.append(ts)
    return {"tokens": tokens, "tags": tags}


def main() -> None:
    import evaluate

    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, default=3500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "golds.md"))
    parser.add_argument("--conll", nargs="+")
    args = parser.parse_args()
    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))
    if args.conll:
        golds = {os.path.basename(p): read_conll(p) for p in args.conll}
        names = list(golds)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                d = metric.gold_differences(golds[a], golds[b])
                print(
                    f"{a} vs {b}: F1 {d['f1']:.3f}; "
                    + "; ".join(f"{k} {sum(v.values())}" for k, v in d["counts"].items())
                )
        return
    rng = random.Random(0)
    gold = original(rng, args.sentences)
    plus, clean, pred = corrected(rng, gold), retokenized(rng, corrected(rng, gold)), system(rng, gold)
    tags = {"original": gold["tags"], "corrected": plus["tags"], "corrected_2": corrected(rng, gold)["tags"]}
    rows = [
        (
            "three golds, one tokenization (tag lists)",
            best(lambda: metric.compute_golds(predictions=pred["tags"], references=tags), args.runs),
            1.0,
        ),
        (
            "three golds, one retokenized and merged (characters)",
            best(
                lambda: metric.compute_golds(
                    predictions=pred, references={"original": gold, "corrected": plus, "clean": clean}
                ),
                args.runs,
            ),
            1.0,
        ),
        (
            "aligning a retokenized gold (gold_differences)",
            best(lambda: metric.gold_differences(gold, clean), args.runs),
            0.5,
        ),
        (
            "one gold, compute (for scale)",
            best(lambda: metric.compute(predictions=pred["tags"], references=gold["tags"]), args.runs),
            None,
        ),
    ]
    tokens = sum(map(len, gold["tokens"]))
    lines = [
        "# Several golds: speed",
        "",
        f"`python bench/golds.py --sentences {args.sentences} --runs {args.runs}`: synthetic corpora of "
        f"{args.sentences:,} sentences ({tokens:,} tokens; the retokenized gold {len(clean['tokens']):,} sentences, "
        f"{sum(map(len, clean['tokens'])):,} tokens), best of {args.runs} runs, intervals excluded, on this machine "
        "(2 cores shared).",
        "",
        "| call | seconds | target |",
        "|---|---:|---:|",
    ]
    for name, seconds, target in rows:
        lines.append(f"| {name} | {seconds:.3f} | {'' if target is None else f'< {target}'} |")
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
