"""Live comparison with nervaluate 1.2.1 on 300 random nested corpora (10 examples each).

    python bench/nervaluate_nested.py          # writes bench/nervaluate_nested.md

Each example is scored by nervaluate in six orders of its entity lists (as given, either list
reversed, both, two shuffles); where nervaluate gives the same counts in every order, its MUC counts
(correct, incorrect, partial, missed, spurious per mode) are compared with ours. Every difference is
then checked to lie in an example where an entity overlaps two or more entities of the other side
(nervaluate then matches each mode on its own, greedily; one matching serves every mode here).
"""

import argparse
import collections
import os
import random
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
MODES = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
KEYS = ("correct", "incorrect", "partial", "missed", "spurious")


def theirs(gold, pred):
    from nervaluate import Evaluator

    inclusive = [[[{**e, "end": e["end"] - 1} for e in side]] for side in (gold, pred)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Evaluator(*inclusive, tags=list("ABC"), loader="dict").evaluate()["overall"]
    return {m: tuple(getattr(result[n], k) for k in KEYS) for m, n in MODES.items()}


def ours(metric, gold, pred):
    muc = metric._compute(predictions=[pred], references=[gold])["muc"]
    return {m: tuple(muc[m][k] for k in KEYS) for m in MODES}


def ambiguous(gold, pred):
    """Whether an entity overlaps two or more entities of the other side."""

    def hits(a, side):
        return sum(b["start"] < a["end"] and a["start"] < b["end"] for b in side)

    return any(hits(g, pred) > 1 for g in gold) or any(hits(p, gold) > 1 for p in pred)


def compare(metric, corpora=300, examples=10):
    from test_spans import nested_corpus

    tally, unexplained = collections.Counter(), []
    for seed in range(corpora):
        rng = random.Random(seed)
        for gold, pred in zip(*nested_corpus(rng, examples, types="ABC", width=12)):
            orders = [(gold, pred), (gold[::-1], pred), (gold, pred[::-1]), (gold[::-1], pred[::-1])]
            for _ in range(2):
                a, b = gold[:], pred[:]
                rng.shuffle(a), rng.shuffle(b)
                orders.append((a, b))
            counts = [theirs(a, b) for a, b in orders]
            if any(c != counts[0] for c in counts):
                tally["nervaluate depends on the order"] += 1
            elif ours(metric, gold, pred) == counts[0]:
                tally["same counts"] += 1
            else:
                tally["differ"] += 1
                if not ambiguous(gold, pred):
                    unexplained.append((gold, pred))
    return tally, unexplained


def main():
    import evaluate

    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "spans")
    tally, unexplained = compare(metric)
    independent = tally["same counts"] + tally["differ"]
    rows = [
        "| examples | nervaluate depends on the order | order-independent | same counts | differ | differ without an ambiguous overlap |",
        "|---|---|---|---|---|---|",
        f"| {sum(tally.values()):,} | {tally['nervaluate depends on the order']:,} | {independent:,} | "
        f"{tally['same counts']:,} ({tally['same counts'] / independent:.1%}) | {tally['differ']:,} | {len(unexplained)} |",
    ]
    with open(os.path.join(ROOT, "bench", "nervaluate_nested.md"), "w") as f:
        f.write(
            "Written by `python bench/nervaluate_nested.py` (nervaluate 1.2.1, 300 corpora of 10 nested examples).\n\n"
        )
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    main()
