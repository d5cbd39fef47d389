"""Every scoring of the metric on the same two published examples: the README's comparison table.

Example 1 is EDS-NLP's (``edsnlp/metrics/ner.py``): "La patiente a une fièvre aiguë .", a
spurious PER on "La" and a DIS shifted by one token. Example 2 is HAREM's: the 9 tokens of
"Departamento de Cultura Científica do Centro Acadêmico Pedro Nunes" split after "Cultura".

Usage (from the repository root, offline)::

    HF_HUB_OFFLINE=1 python examples/compare_scorings.py
"""

import os

import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXAMPLES = {
    "EDS-NLP": (
        "La patiente a une fièvre aiguë .".split(),
        ["O", "B-PER", "O", "B-DIS", "I-DIS", "O", "O"],
        ["B-PER", "B-PER", "O", "O", "B-DIS", "I-DIS", "O"],
    ),
    "HAREM": (
        "Departamento de Cultura Científica do Centro Acadêmico Pedro Nunes".split(),
        ["B-ORG"] + ["I-ORG"] * 8,
        ["B-ORG", "I-ORG", "I-ORG", "B-ORG"] + ["I-ORG"] * 5,
    ),
}

#: (row label, what counts, threshold or None, where the micro P / R / F1 are)
ROWS = [
    (
        "span exact (seqeval)",
        "same type, same boundaries",
        None,
        lambda r: (r["overall_precision"], r["overall_recall"], r["overall_f1"]),
    ),
    ("MUC strict", "as seqeval, one-to-one", None, lambda r: _prf(r["muc"]["strict"])),
    ("MUC exact", "same boundaries, any type", None, lambda r: _prf(r["muc"]["exact"])),
    ("MUC partial", "overlap earns 0.5, any type", None, lambda r: _prf(r["muc"]["partial"])),
    ("MUC type", "overlap, same type", None, lambda r: _prf(r["muc"]["type"])),
    ("token-level", "(token, type) items", None, lambda r: _prf(r["token"])),
    ("overlap, Dice ≥ 1.0", "equals span exact", 1.0, lambda r: _prf(r["overlap"])),
    ("overlap, Dice ≥ 0.5", "EDS-NLP's default", 0.5, lambda r: _prf(r["overlap"])),
    ("overlap, Dice ≥ 1e-9", "any shared token, same type", 1e-9, lambda r: _prf(r["overlap"])),
    (
        "HAREM identification",
        "shared tokens, 0.5·common/distinct, any type",
        None,
        lambda r: _prf(r["harem"]),
    ),
]


def _prf(table):
    return table["precision"], table["recall"], table["f1"]


def results(metric, references, predictions, threshold):
    return metric.compute(
        predictions=[predictions],
        references=[references],
        scores=["seqeval", "muc", "token", "overlap", "harem"],
        overlap_threshold=threshold if threshold is not None else 0.5,
    )


def table(metric):
    header = (
        "| scoring | counts as a hit | "
        + " | ".join(f"{name} {s}" for name in EXAMPLES for s in ("P", "R", "F1"))
        + " |"
    )
    lines = [header, "|" + "---|" * (2 + 3 * len(EXAMPLES))]
    for label, what, threshold, pick in ROWS:
        cells = []
        for _, references, predictions in EXAMPLES.values():
            cells += [f"{v:.2f}" for v in pick(results(metric, references, predictions, threshold))]
        lines.append(f"| {label} | {what} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))
    for name, (tokens, references, predictions) in EXAMPLES.items():
        print(f"{name}: " + " ".join(f"{t}/{g}/{p}" for t, g, p in zip(tokens, references, predictions)))
    print("(token/gold/predicted)\n")
    print(table(metric))


if __name__ == "__main__":
    main()
