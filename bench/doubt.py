"""What doubt in the gold costs: ``compute`` of the "spans" config on a seeded corpus, plain, and
the same corpus where a share of the examples hold an ALT group (one gold entity of three tokens
given as itself or as two entities), a vague label and an optional entity.

Each example holds three gold entities of 1-3 tokens (3 types); predictions keep 80% of them, a
fifth one token shorter. The plain variant has, in each doubtful example, the ALT group's first
alternative, the vague label's first type and the optional entity as a plain one: the same number
of entities. Best of ``--runs`` per variant, the same process. Writes bench/doubt.md.

    python bench/doubt.py --examples 100000 --share 0.1

Then one example of ``--groups`` ALT groups (each with a vague label in its second alternative and
an optional entity beside it, two predictions per group), resolved by ``ner_doubt.resolve``: the
resolution within one example is ``O(n log n)`` (it was quadratic: 4,000 groups took 14 s).
"""

import argparse
import os
import random
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus(n, share, seed=0):
    rng = random.Random(seed)
    plain, doubtful, pred = [], [], []
    for _ in range(n):
        g, d, p, pos = [], [], [], 0
        doubt = rng.random() < share
        for k in range(3):
            pos += rng.randint(0, 4)
            length = rng.randint(1, 3)
            label = rng.choice("ABC")
            entity = {"label": label, "start": pos, "end": pos + length}
            g.append(entity)
            if doubt and k == 0:
                parts = [dict(entity, end=pos + 1), dict(entity, start=pos + 1)] if length > 1 else []
                d.append({"alternatives": [[entity], parts]})
            elif doubt and k == 1:
                d.append(dict(entity, label=[label, "D"]))
            elif doubt and k == 2:
                d.append(dict(entity, optional=True))
            else:
                d.append(entity)
            if rng.random() < 0.8:
                end = pos + length - (length > 1 and rng.random() < 0.2)
                p.append({"label": rng.choice([label, label, "B"]), "start": pos, "end": end})
            pos += length
        plain.append(g)
        doubtful.append(d)
        pred.append(p)
    return plain, doubtful, pred


def best(fn, runs):
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def one_example(n):
    """One example of ``n`` ALT groups, vague labels and optional entities, and its predictions."""
    gold, pred = [], []
    for k in range(n):
        s = 10 * k
        whole, halves = {"label": "A", "start": s, "end": s + 4}, {"label": "A", "start": s, "end": s + 2}
        gold.append(
            {"alternatives": [[whole], [halves, {"label": ["A", "B"], "start": s + 2, "end": s + 4}]]}
        )
        gold.append({"label": "B", "start": s + 5, "end": s + 6, "optional": True})
        pred += [dict(halves), {"label": "B", "start": s + 5, "end": s + 6}]
    return [pred], [gold]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--share", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--groups", type=int, nargs="+", default=[1000, 4000, 16000])
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "doubt.md"))
    args = parser.parse_args()
    import evaluate

    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "spans")
    plain, doubtful, pred = corpus(args.examples, args.share)
    metric.compute(predictions=pred[:100], references=doubtful[:100])  # warm
    t_plain = best(lambda: metric.compute(predictions=pred, references=plain), args.runs)
    t_doubt = best(lambda: metric.compute(predictions=pred, references=doubtful), args.runs)
    groups = metric.compute(predictions=pred, references=doubtful)["doubt"]["groups"]
    command = (
        f"python bench/doubt.py --examples {args.examples} --share {args.share} --runs {args.runs}"
        f" --groups {' '.join(map(str, args.groups))}"
    )
    text = (
        f"# What doubt in the gold costs\n\n`{command}` (CPU seconds, best of {args.runs}; two shared cores):\n\n"
        f"{args.examples:,} examples; {groups:,} with an ALT group, a vague label and an optional entity.\n\n"
        "| references | cpu s | x plain |\n|---|---:|---:|\n"
        f"| plain | {t_plain:.3f} | 1.00 |\n| with doubt | {t_doubt:.3f} | {t_doubt / t_plain:.2f} |\n"
        "\nOne example of many ALT groups (`ner_doubt.resolve`):\n\n| groups | cpu s |\n|---:|---:|\n"
    )
    sys.path.insert(0, ROOT)
    from ner_recall.core.doubt import resolve

    for n in args.groups:
        pred_one, gold_one = one_example(n)
        text += f"| {n:,} | {best(lambda: resolve(pred_one, gold_one), args.runs):.3f} |\n"
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
