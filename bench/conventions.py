"""The documented sources of discrepancy between NER scorers, each with the option that reproduces
it and its effect on one public output: HIPE-scorer's public test files (``tests/data/hipe``, MIT).

    python bench/conventions.py [--out bench/conventions.md]

For each source, the entity F1 (strict, micro) with the metric's defaults and with the option
that reproduces the other convention, on the file named in the row; docs/signature.md copies the
table.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from ner_recall.readers import files as ner_files  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "hipe")
FILES = {
    "IOBES": ("unittest-ner-2-IOBES-true.tsv", "unittest-ner-2-IOBES-pred.tsv"),
    "bundle3": ("unittest-true_bundle3_de_1.tsv", "unittest-pred_bundle3_de_1.tsv"),
}


def inputs(name: str) -> dict:
    gold, pred = (os.path.join(DATA, f) for f in FILES[name])
    return ner_files.read_hipe_pair(gold, pred, column="NE-FINE-LIT").compute_inputs()


def f1(metric, data: dict, **options) -> float:
    data = {k: v for k, v in data.items() if k != "document_ids" or "ci_resamples" in options}
    return metric.compute(**data, **options)["overall_f1"]


def rows(metric) -> list[tuple]:
    """(source, option, file, default F1, F1 with the option)."""
    iobes, bundle = inputs("IOBES"), inputs("bundle3")
    types = sorted({t[2:] for s in bundle["references"] for t in s if t != "O"})
    token = metric.compute(
        predictions=bundle["predictions"], references=bundle["references"], scores=["token"]
    )
    docs = metric.compute(**bundle, scores=["muc"])["documents"]["strict"]
    micro = metric.compute(**bundle, scores=["muc"])["muc"]["strict"]["f1"]
    return [
        (
            "IOBES read by conlleval.pl (S- and E- merged with the next)",
            'convention="conlleval"',
            "IOBES",
            f1(metric, iobes),
            f1(metric, iobes, convention="conlleval"),
        ),
        (
            "strict decoding of the scheme (seqeval mode='strict', seqscore 'discard')",
            'scheme="IOBES", mode="strict"',
            "IOBES",
            f1(metric, iobes),
            f1(metric, iobes, scheme="IOBES", mode="strict"),
        ),
        (
            "strict decoding of IOB2",
            'scheme="IOB2", mode="strict"',
            "bundle3",
            f1(metric, bundle),
            f1(metric, bundle, scheme="IOB2", mode="strict"),
        ),
        (
            f"a type dropped ({types[-1]!r}, as MISC is dropped)",
            f"types={types[:-1]}",
            "bundle3",
            f1(metric, bundle),
            f1(metric, bundle, types=types[:-1]),
        ),
        (
            "token-level F1 reported as entity F1",
            'scores=["token"], results["token"]["f1"]',
            "bundle3",
            f1(metric, bundle),
            token["token"]["f1"],
        ),
        (
            "document units (HIPE-scorer's macro over documents)",
            'document_ids, results["documents"]',
            "bundle3",
            micro,
            docs["f1"] if "f1" in docs else docs.get("macro_f1"),
        ),
        (
            "zero division counted as 1 (per-type scores without entities)",
            "zero_division=1",
            "bundle3",
            metric.compute(**{k: v for k, v in bundle.items() if k != "document_ids"})["macro_f1"],
            metric.compute(**{k: v for k, v in bundle.items() if k != "document_ids"}, zero_division=1)[
                "macro_f1"
            ],
        ),
    ]


def main() -> None:
    import evaluate

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "conventions.md"))
    args = parser.parse_args()
    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))
    lines = [
        "# Sources of discrepancy, measured",
        "",
        "`python bench/conventions.py`: F1 (strict, micro; macro F1 for zero division) with the defaults and with the "
        "option that reproduces each source, on HIPE-scorer's public test files (tests/data/hipe: `IOBES` = "
        "unittest-ner-2-IOBES, `bundle3` = unittest-*_bundle3_de_1, column NE-FINE-LIT).",
        "",
        "| source | option | file | default | with the option | difference |",
        "|---|---|---|---:|---:|---:|",
    ]
    for source, option, name, base, other in rows(metric):
        lines.append(f"| {source} | `{option}` | {name} | {base:.4f} | {other:.4f} | {other - base:+.4f} |")
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
