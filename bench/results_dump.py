"""Dump ``repr`` of the results of many option families on seeded corpora, to check that a
refactoring changes no result: ``python bench/results_dump.py OUT.json`` before and after, then
compare the two files (``tests/test_results_dump.py`` compares today's code with the committed
``bench/results_dump.json``)."""

import argparse
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

TYPES = ("PER", "LOC", "ORG", "MISC")
#: (config, options) of each family dumped
FAMILIES = [
    ("default", {}),
    ("default", {"scores": ["seqeval", "muc", "token", "overlap", "harem", "confusion"]}),
    ("default", {"scores": ["seqeval", "muc", "token", "overlap", "harem"], "errors": True, "beta": 0.5}),
    ("default", {"scheme": "IOBES", "mode": "strict", "zero_division": 1}),
    (
        "default",
        {"label_map": {"MISC": "ORG"}, "types": ["PER", "ORG", "LOC"], "scores": ["seqeval", "muc", "token"]},
    ),
    ("default", {"ci_resamples": 40, "seed": 3}),
    ("default", {"ci_resamples": 30, "seed": 1, "confidence_level": 0.9, "scores": ["muc"], "beta": 2.0}),
    ("subgroups", {"ci_method": "wilson", "recall_mode": "partial"}),
    ("spans", {"scores": ["seqeval", "muc", "token", "overlap", "harem", "confusion"], "errors": True}),
    ("spans", {"ci_resamples": 25, "seed": 2}),
]


def corpus(seed, n=40, prefixes="OOOOBIIES"):
    rng = random.Random(seed)
    references, predictions = [], []
    for _ in range(n):
        length = rng.randint(1, 14)
        ref = [
            p if p == "O" else f"{p}-{rng.choice(TYPES)}"
            for p in (rng.choice(prefixes) for _ in range(length))
        ]
        pred = [
            t
            if rng.random() < 0.75
            else ("O" if rng.random() < 0.3 else f"{rng.choice('BIES')}-{rng.choice(TYPES)}")
            for t in ref
        ]
        references.append(ref)
        predictions.append(pred)
    return references, predictions


def spans_of(metric, tags):
    return [[{"label": s.label, "start": s.start, "end": s.end} for s in metric.decode(t)] for t in tags]


def dump():
    import evaluate

    metrics = {
        name: evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), name)
        for name in ("default", "subgroups", "spans")
    }
    out = {}
    for seed in range(6):
        references, predictions = corpus(seed)
        for i, (config, options) in enumerate(FAMILIES):
            metric, inputs = metrics[config], {"predictions": predictions, "references": references}
            if config == "subgroups":
                inputs["subgroups"] = [f"g{j % 3}" for j in range(len(references))]
            if config == "spans":
                inputs = {
                    "predictions": spans_of(metric, predictions),
                    "references": spans_of(metric, references),
                }
            out[f"{seed}/{i}"] = repr(metric.compute(**inputs, **options))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", nargs="?", default=os.path.join(ROOT, "bench", "results_dump.json"))
    with open(parser.parse_args().out, "w") as f:
        json.dump(dump(), f, indent=0, sort_keys=True)
