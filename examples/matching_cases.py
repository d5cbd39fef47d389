"""Where spans overlap several on the other side: our counts beside nervaluate's.

nervaluate matches greedily in list order, so its counts can change when the same gold
entities are listed in another order; ours depend on positions only. Prints the README's markdown table.

    python examples/matching_cases.py
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402
from nervaluate import Evaluator  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
KEYS = ("correct", "incorrect", "partial", "missed", "spurious")

CASES = [
    ("one prediction across two gold entities", "B-PER I-PER O B-PER I-PER", "O B-PER I-PER I-PER O"),
    (
        "prediction across two gold entities, the second of its type",
        "B-PER I-PER B-LOC I-LOC",
        "B-LOC I-LOC I-LOC I-LOC",
    ),
    ("two predictions inside one gold entity", "B-LOC I-LOC I-LOC I-LOC I-LOC", "B-LOC O B-LOC I-LOC I-LOC"),
    (
        "a chain: one prediction across two gold entities, a second prediction on the second",
        "B-PER I-PER I-PER B-PER I-PER I-PER I-PER I-PER O",
        "O O B-PER I-PER I-PER I-PER O B-PER I-PER",
    ),
]


def as_dicts(metric, tags):
    return [{"label": s.label, "start": s.start, "end": s.end - 1} for s in metric.decode(tags)]


def nervaluate_counts(gold, pred, labels):
    overall = Evaluator([gold], [pred], tags=labels, loader="dict").evaluate()["overall"]
    return {mode: tuple(getattr(overall[name], k) for k in KEYS) for mode, name in MODES.items()}


def rows(metric):
    for name, gold_text, pred_text in CASES:
        gold_tags, pred_tags = gold_text.split(), pred_text.split()
        muc = metric.compute(predictions=[pred_tags], references=[gold_tags])["muc"]
        gold, pred = as_dicts(metric, gold_tags), as_dicts(metric, pred_tags)
        labels = sorted({e["label"] for e in gold + pred})
        listed = nervaluate_counts(gold, pred, labels)
        reversed_ = nervaluate_counts(gold[::-1], pred, labels)
        for mode in MODES:
            ours = tuple(muc[mode][k] for k in KEYS)
            yield name, gold_text, pred_text, mode, ours, listed[mode], reversed_[mode]


def table(metric):
    lines = [
        "| case | gold | prediction | mode | ours (C/I/P/M/S) | nervaluate, gold listed left to right | nervaluate, gold listed right to left |",
        "|---|---|---|---|---|---|---|",
    ]
    last = None
    for name, gold, pred, mode, ours, listed, reversed_ in rows(metric):
        first = name != last
        last = name
        fmt = "/".join
        lines.append(
            f"| {name if first else ''} | {f'`{gold}`' if first else ''} | {f'`{pred}`' if first else ''} "
            f"| {mode} | {fmt(map(str, ours))} | {fmt(map(str, listed))} | {fmt(map(str, reversed_))} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))))
