"""The worked example of docs/harem.md: HAREM's classification measures on a small gold standard
with categories and types (``python examples/harem_hierarchy.py`` prints the table the page shows)."""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ent(label, start, end):
    return {"label": label, "start": start, "end": end}


#: "O DCC da Universidade de Lisboa e o Rui Costa visitaram Braga.": tokens, and the entities
GOLD = [
    [
        ent("ORGANIZACAO:SUB", 1, 2),
        ent("ORGANIZACAO:INSTITUICAO", 3, 6),
        ent("PESSOA:INDIVIDUAL", 8, 10),
        ent("LOCAL:HUMANO", 11, 12),
    ]
]
PRED = [
    [
        ent("ORGANIZACAO:INSTITUICAO", 1, 2),
        ent("ORGANIZACAO:INSTITUICAO", 3, 6),
        ent("ORGANIZACAO:EMPRESA", 8, 10),
        ent("PESSOA:INDIVIDUAL", 13, 14),
    ]
]
TYPES = {  # HAREM's directives: the types of each category used here (a selective scenario)
    "ORGANIZACAO:SUB": "ORGANIZACAO",
    "ORGANIZACAO:INSTITUICAO": "ORGANIZACAO",
    "ORGANIZACAO:EMPRESA": "ORGANIZACAO",
    "ORGANIZACAO:ADMINISTRACAO": "ORGANIZACAO",
    "PESSOA:INDIVIDUAL": "PESSOA",
    "PESSOA:GRUPO": "PESSOA",
    "LOCAL:HUMANO": "LOCAL",
    "LOCAL:FISICO": "LOCAL",
}


def table():
    import evaluate

    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "spans")
    h = metric.compute(predictions=PRED, references=GOLD, type_hierarchy=TYPES)["hierarchy"]
    lines = [
        "| scope | measure | correct | gold | predicted | precision | recall | F1 |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for scope in ("absolute", "relative"):
        for measure, s in h[scope].items():
            lines.append(
                f"| {scope} | {measure} | {s['correct']:g} | {s['number']:g} | {s['predicted']:g} | "
                f"{s['precision']:.4f} | {s['recall']:.4f} | {s['f1']:.4f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(table() + "\n")
