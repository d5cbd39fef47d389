"""Score a language model's raw entity output by position: the "generated" config.

Reads the JSONL of {"text", "output", "entities"} records given (or a small built-in one),
prints the outcome of every item on its text and the ladder of matching levels with each
gain's paired bootstrap interval.

    python examples/generated_outputs.py [records.jsonl]
"""

import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402

TEXT = "Paris Hilton flew to Paris. Then John met Paris Hilton in Rome."
GOLD = [
    {"label": "PER", "start": 0, "end": 12},
    {"label": "LOC", "start": 21, "end": 26},
    {"label": "PER", "start": 33, "end": 37},
    {"label": "PER", "start": 42, "end": 54},
    {"label": "LOC", "start": 58, "end": 62},
]
RECORDS = [
    {
        "text": TEXT,
        "entities": GOLD,
        "output": 'Sure!\n```json\n[{"text": "Paris Hilton", "type": "PER"}, '
        '{"text": "paris", "type": "LOC"}, {"text": "Jon", "type": "PER"}, {"text": "Paris Hilton", "type": "PER"}, '
        '{"text": "Rome", "type": "LOC"}, {"text": "Rome", "type": "LOC"}, {"text": "today", "type": "DATE"}]\n```',
    },
    {
        "text": TEXT,
        "entities": GOLD,
        "output": "<PER>Paris Hilton</PER> flew to <LOC>Paris</LOC>. Then <PER>John</PER> met"
        " Paris Hilton in <LOC>Rome</LOC>.",
    },
    {"text": TEXT, "entities": GOLD, "output": "I could not find any entities."},
]


def main() -> None:
    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "generated")
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        handle = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
        handle.write("".join(json.dumps(r) + "\n" for r in RECORDS))
        handle.close()
        path = handle.name
    inputs = metric.read_generated(path)
    listing = metric.generated_outcomes(
        predictions=inputs["predictions"], texts=inputs["texts"], types=["PER", "LOC", "ORG"]
    )
    for i, items in enumerate(listing):
        print(f"document {i}:")
        for o in items:
            print(f"  {o['outcome']:<13} {o['label']!s:<5} {o['text']!r} {o['places']} {o['detail']}")
    results = metric.compute(**inputs, matching=["exact", "normalized", "fuzzy"], fuzzy_threshold=0.8)
    print("counts at the last level:", results["generated"]["counts"])
    for level, scores in results["ladder"].items():
        print(f"{level:<11} F1 {scores['overall_f1']:.3f}")
    for gain in results["ladder_gains"]:
        if gain["score"] == "overall_f1":
            print(
                f"gain {gain['from']} -> {gain['to']}: {gain['difference']:+.3f} [{gain['low']:+.3f}, {gain['high']:+.3f}]"
            )


if __name__ == "__main__":
    main()
