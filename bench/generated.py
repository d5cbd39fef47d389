"""The generated config: placement targets on synthetic documents, and its speed.

Synthetic documents (seeded): sentences of filler words and mentions drawn from a small
vocabulary in which strings repeat and lie inside longer entities ("Paris" and "Paris Hilton",
"York" and "New York", "Jordan" as a person and a country); half the mentions of a document
repeat a string already mentioned in it.

* **placement**: a perfect list of the mentions in reading order (a JSON list of
  ``{"text", "type"}``), placed by ``placement="order"`` (and, for comparison, ``"first"`` and
  the first-free-occurrence ``find_entities``); target F1 >= 0.999 per document (every
  document's F1, its minimum and mean, and the corpus F1). With case, whitespace and
  punctuation drift in 30% of the strings, ``matching="normalized"``: target >= 0.995.
* **speed**: ``--documents`` documents; the generated config's ``compute`` (parse, place,
  count and score) against the "spans" config's ``compute`` of the same entities; best of
  ``--runs``, the two taking turns. Target: within 2x.

    HF_HUB_OFFLINE=1 python bench/generated.py [--documents 100000] [--runs 3] [--out bench/generated.md]
"""

import argparse
import json
import os
import platform
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402

METRIC = os.path.join(ROOT, "ner_recall_metric.py")
VOCABULARY = [
    ("Paris Hilton", "PER"),
    ("Paris", "LOC"),
    ("New York", "LOC"),
    ("York", "LOC"),
    ("Jordan", "PER"),
    ("Jordan", "LOC"),
    ("Michael Jordan", "PER"),
    ("Apple", "ORG"),
    ("Apple Music", "ORG"),
    ("U.S.", "LOC"),
    ("John Smith", "PER"),
    ("Smith & Co.", "ORG"),
]
FILLER = "the of and to in said that was for on with at by from after before met visited".split()


def document(rng: random.Random, n_mentions: int) -> tuple:
    """(text, gold spans, mentions in reading order as (string, type)): half the mentions
    repeat a string of the document."""
    mentions, parts, gold, length = [], [], [], 0
    for k in range(n_mentions):
        repeat = mentions and rng.random() < 0.5
        string, label = rng.choice(mentions) if repeat else rng.choice(VOCABULARY)
        filler = " ".join(rng.choice(FILLER) for _ in range(rng.randint(1, 4)))
        prefix = ("" if k == 0 else " ") + filler + " "
        parts.append(prefix)
        length += len(prefix)
        gold.append({"label": label, "start": length, "end": length + len(string)})
        parts.append(string)
        length += len(string)
        mentions.append((string, label))
    parts.append(" .")
    return "".join(parts), gold, mentions


def drifted(rng: random.Random, string: str) -> str:
    """The string with case, whitespace or punctuation drift."""
    kind = rng.choice(("case", "space", "punctuation"))
    if kind == "case":
        return string.upper() if rng.random() < 0.5 else string.lower()
    if kind == "space":
        return "  " + string.replace(" ", "  ") + " "
    return string.rstrip(".") + ("" if string.endswith(".") else ",")


def corpus(n: int, seed: int = 0, drift: float = 0.0) -> tuple:
    rng = random.Random(seed)
    texts, golds, outputs = [], [], []
    for _ in range(n):
        text, gold, mentions = document(rng, rng.randint(2, 8))
        items = [
            {"text": drifted(rng, s) if rng.random() < drift else s, "type": label} for s, label in mentions
        ]
        texts.append(text)
        golds.append(gold)
        outputs.append(json.dumps(items))
    return texts, golds, outputs


def placement_rows(metric, spans_metric, n: int) -> list:
    rows = []
    texts, golds, outputs = corpus(n, seed=1)
    for placement in ("order", "first"):
        rows.append(("perfect list", placement, "exact", *_f1(metric, outputs, golds, texts, placement)))
    pairs = [[(i["type"], i["text"]) for i in json.loads(o)] for o in outputs]
    found = spans_metric.find_entities(texts, pairs)
    spans = found["entities"]
    rows.append(("perfect list", "find_entities", "exact", *_spans_f1(spans_metric, spans, golds)))
    texts, golds, outputs = corpus(n, seed=2, drift=0.3)
    for level in ("exact", "normalized"):
        rows.append(("30% drift", "order", level, *_f1(metric, outputs, golds, texts, "order", level)))
    return rows


def _f1(metric, outputs, golds, texts, placement, level="exact") -> tuple:
    result = metric.compute(
        predictions=outputs, references=golds, texts=texts, placement=placement, matching=level
    )
    return result["overall_f1"], _document_f1s(metric, outputs, golds, texts, placement, level)


def _document_f1s(metric, outputs, golds, texts, placement, level) -> tuple:
    from ner_recall.generated import scoring as G

    settings = G.Settings(placement, level)
    readings = G.read_outputs(outputs, "auto")
    schema = {e["label"] for g in golds for e in g}
    placed = G.placed_spans(G.place_all(readings, texts, schema, settings))
    f1s = [_doc_f1(p, g) for p, g in zip(placed, golds)]
    return min(f1s), sum(f1s) / len(f1s)


def _doc_f1(pred: list, gold: list) -> float:
    p = {(e["label"], e["start"], e["end"]) for e in pred}
    g = {(e["label"], e["start"], e["end"]) for e in gold}
    return 2 * len(p & g) / (len(p) + len(g)) if p or g else 1.0


def _spans_f1(spans_metric, spans, golds) -> tuple:
    result = spans_metric.compute(predictions=spans, references=golds)
    f1s = [_doc_f1(p, g) for p, g in zip(spans, golds)]
    return result["overall_f1"], (min(f1s), sum(f1s) / len(f1s))


def speed_rows(metric, spans_metric, n: int, runs: int) -> list:
    """Best of ``runs`` of each ``compute``, wall clock and CPU time of this process (the machine
    may be shared: CPU time is what this process spent)."""
    texts, golds, outputs = corpus(n, seed=3)
    spans = [
        [{"label": i["type"], "start": g["start"], "end": g["end"]} for i, g in zip(json.loads(o), gold)]
        for o, gold in zip(outputs, golds)
    ]
    wall = {"spans": float("inf"), "generated": float("inf")}
    cpu = dict(wall)
    for _ in range(runs):
        for name, call in (
            ("spans", lambda: spans_metric.compute(predictions=spans, references=golds, texts=texts)),
            ("generated", lambda: metric.compute(predictions=outputs, references=golds, texts=texts)),
        ):
            t, c = time.perf_counter(), time.process_time()
            result = call()
            wall[name] = min(wall[name], time.perf_counter() - t)
            cpu[name] = min(cpu[name], time.process_time() - c)
            assert result["overall_f1"] == 1.0
    entities = sum(map(len, golds))
    return [
        (n, entities, "wall", wall["spans"], wall["generated"], wall["generated"] / wall["spans"]),
        (n, entities, "CPU", cpu["spans"], cpu["generated"], cpu["generated"] / cpu["spans"]),
    ]


def table(placement: list, speed: list, args) -> str:
    lines = [
        "# The generated config: placement and speed",
        "",
        f"Made by `python bench/generated.py --documents {args.documents} --placement {args.placement}"
        f" --runs {args.runs}` on {platform.python_implementation()} {platform.python_version()}"
        f" ({platform.machine()}, {os.cpu_count()} cores).",
        "",
        "## Placement (targets: perfect list >= 0.999 per document; 30% drift >= 0.995 normalized)",
        "",
        "| list | placement | matching | corpus F1 | min document F1 | mean document F1 |",
        "|---|---|---|---|---|---|",
    ]
    for name, placement_name, level, f1, (low, mean) in placement:
        lines.append(f"| {name} | {placement_name} | {level} | {f1:.4f} | {low:.4f} | {mean:.4f} |")
    lines += [
        "",
        "## Speed (target: generated within 2x spans)",
        "",
        "| documents | entities | time | spans compute (s) | generated compute (s) | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for n, entities, clock, a, b, ratio in speed:
        lines.append(f"| {n:,} | {entities:,} | {clock} | {a:.2f} | {b:.2f} | {ratio:.2f}x |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--placement", type=int, default=20_000, help="documents of the placement study")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    metric = evaluate.load(METRIC, "generated")
    spans_metric = evaluate.load(METRIC, "spans")
    out = table(
        placement_rows(metric, spans_metric, args.placement),
        speed_rows(metric, spans_metric, args.documents, args.runs),
        args,
    )
    print(out)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(out)


if __name__ == "__main__":
    main()
