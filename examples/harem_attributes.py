"""docs/harem.md's attribute tables: HAREM's morphological outcomes and EDS-NLP's documented
example (``python examples/harem_attributes.py`` prints them)."""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ent(label, start, end, **attributes):
    return {"label": label, "start": start, "end": end, **({"attributes": attributes} if attributes else {})}


MORPHOLOGY_GOLD = [
    [
        ent("PESSOA", 0, 1, gender="M", number="S"),
        ent("LOCAL", 2, 3, gender="?"),
        ent("OBRA", 4, 6, gender="F", number="P"),
        ent("COISA", 7, 8),
    ]
]
MORPHOLOGY_PRED = [
    [
        ent("PESSOA", 0, 1, gender="M", number="P"),
        ent("LOCAL", 2, 3, gender="F"),
        ent("OBRA", 4, 5, number=["P", "S"]),
        ent("COISA", 7, 8, number="S"),
    ]
]
EDS_GOLD = [
    [ent("SYMP", 0, 1, neg=True), ent("DIS", 2, 3, carrier="FATHER"), ent("DIS", 4, 5, carrier="PATIENT")]
]
EDS_PRED = [
    [
        ent("SYMP", 0, 1, neg=True),
        ent("DIS", 2, 3, carrier="PATIENT"),
        ent("DIS", 4, 5, neg=True, carrier="PATIENT"),
    ]
]


def tables():
    import evaluate

    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "spans")
    outcomes = metric.compute(predictions=MORPHOLOGY_PRED, references=MORPHOLOGY_GOLD)["attributes"][
        "outcomes"
    ]
    names = list(next(iter(outcomes.values())))
    lines = ["| attribute | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    lines += [f"| {a} | " + " | ".join(str(row[n]) for n in names) + " |" for a, row in outcomes.items()]
    items = metric.compute(predictions=EDS_PRED, references=EDS_GOLD)["attributes"]
    rows = [("overall", items["overall"])] + list(items["per_attribute"].items())
    eds = [
        "| items | correct | gold | predicted | precision | recall | F1 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    eds += [
        f"| {name} | {r['correct']} | {r['number']} | {r['predicted']} | {r['precision']:.2f} | {r['recall']:.2f} | {r['f1']:.2f} |"
        for name, r in rows
    ]
    return "\n".join(lines), "\n".join(eds)


if __name__ == "__main__":
    sys.stdout.write("\n\n".join(tables()) + "\n")
