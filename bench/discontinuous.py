"""What discontinuous entities cost: ``score_spans`` on a seeded span corpus without fragments, and
on the same corpus where a share of the entities (gold and predicted) are given as two fragments.

Each example holds three entities of 1-3 tokens (3 types) with gaps between them; predictions
keep 80% of them, a fifth of those one token shorter. With ``--share`` s, a fraction s of the
entities of length 3 on each side become ``[start, start + 1] + [start + 2, end]`` (one token left
out), the prediction of a gold entity made so too half of the time. Best of ``--runs`` per variant;
families seqeval, muc, token, overlap. Prints a Markdown table (bench/discontinuous.md).

    python bench/discontinuous.py --examples 100000 --share 0.1
"""

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ner_recall.pipeline.compute import score_spans  # noqa: E402
from ner_recall.pipeline.options import check_options  # noqa: E402


def corpus(n, share, seed=0):
    rng = random.Random(seed)
    gold, pred = [], []
    for _ in range(n):
        g, p, pos = [], [], 0
        for _ in range(3):
            pos += rng.randint(0, 4)
            length = rng.randint(1, 3)
            split = length == 3 and rng.random() < share
            g.append(_entity(rng.choice("ABC"), pos, pos + length, split))
            if rng.random() < 0.8:
                end = pos + length - (length > 1 and rng.random() < 0.2)
                p.append(
                    _entity(rng.choice("AAB"), pos, end, split and end - pos == 3 and rng.random() < 0.5)
                )
            pos += length
        gold.append(g)
        pred.append(p)
    return gold, pred


def _entity(label, start, end, split):
    entity = {"label": label, "start": start, "end": end}
    if split:
        entity["fragments"] = [[start, start + 1], [start + 2, end]]
    return entity


def best(gold, pred, runs):
    options = check_options("spans", {"scores": ["seqeval", "muc", "token", "overlap"]})
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        score_spans(pred, gold, options)
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--share", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    plain = corpus(args.examples, 0.0)
    split = corpus(args.examples, args.share)
    n_split = sum("fragments" in e for side in split for x in side for e in x)
    n = sum(len(x) for side in split for x in side)
    t_plain, t_split = best(*plain, args.runs), best(*split, args.runs)
    print(f"{args.examples:,} examples, {n:,} entities; {n_split:,} with two fragments ({n_split / n:.1%})\n")
    print(f"| input | seconds (best of {args.runs}) | x plain |")
    print("|---|---|---|")
    print(f"| no fragments | {t_plain:.3f} | 1.00 |")
    print(
        f"| {args.share:.0%} of the 3-token entities in two fragments | {t_split:.3f} | {t_split / t_plain:.2f} |"
    )


if __name__ == "__main__":
    main()
