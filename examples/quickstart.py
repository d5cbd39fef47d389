"""Quickstart: score a system against a gold standard, from files in this repository alone.

The files are HIPE-scorer's public NER test files (tests/data/hipe, MIT license): pages of historical
newspapers with their gold entities and a system's run, in the CLEF-HIPE TSV format. The script reads
each gold/system pair through the metric, scores them together with documents as the units of the
bootstrap, and prints what a user came for: precision, recall and F1 with 95% intervals, per type, and
the four MUC / SemEval-2013 modes.

    python examples/quickstart.py
"""

import glob
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "hipe")


def read_pairs(metric):
    """Every ``*-true.tsv`` / ``*-pred.tsv`` pair of the folder as one corpus for ``compute``."""
    corpus = {"predictions": [], "references": [], "document_ids": []}
    for gold in sorted(glob.glob(os.path.join(DATA, "unittest-*true*.tsv"))):
        system = gold.replace("true", "pred")
        inputs = metric.read_hipe(gold, system).compute_inputs()
        name = os.path.basename(gold)
        corpus["predictions"] += inputs["predictions"]
        corpus["references"] += inputs["references"]
        corpus["document_ids"] += [f"{name}/{doc}" for doc in inputs["document_ids"]]
    return corpus


def main():
    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))
    corpus = read_pairs(metric)
    results = metric.compute(**corpus, ci_resamples=1000, seed=0)
    intervals = results["intervals"]
    documents = len(set(corpus["document_ids"]))
    print(f"{len(corpus['references'])} sentences in {documents} documents (HIPE-scorer's test files)\n")
    print("score      value  95% interval (documents resampled)")
    for score in ("precision", "recall", "f1"):
        low, high = intervals[f"overall_{score}"]
        print(f"{score:9s} {results['overall_' + score]:6.3f}  [{low:.3f}, {high:.3f}]")
    print("\ntype      gold  precision  recall     f1")
    for name, row in sorted(results.items()):
        if isinstance(row, dict) and "number" in row:
            print(
                f"{name:8s} {row['number']:5d}  {row['precision']:9.3f}  {row['recall']:6.3f}  {row['f1']:5.3f}"
            )
    print("\nmode     correct  incorrect  partial  missed  spurious     f1")
    for mode, row in results["muc"].items():
        print(
            f"{mode:8s} {row['correct']:7d}  {row['incorrect']:9d}  {row['partial']:7d}  {row['missed']:6d}"
            f"  {row['spurious']:8d}  {row['f1']:5.3f}"
        )


if __name__ == "__main__":
    main()
