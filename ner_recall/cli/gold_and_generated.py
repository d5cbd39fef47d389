"""Two reports of the command line (``ner_recall/cli/report.py``): what a second gold changes in a first
(``--golds``), and a language model's raw output scored at every matching level (``--generated``).
Each takes the parsed arguments and the command line's module, whose tables and metric it uses."""

import argparse
import json
from types import ModuleType

from ner_recall.generated.matching import LEVELS


def run(args: argparse.Namespace, cli: ModuleType) -> tuple:
    """(text, JSON-ready dict) of ``--golds`` or ``--generated``."""
    return gold_report(args, cli) if args.golds else generated_report(args, cli)


def gold_report(args: argparse.Namespace, cli: ModuleType) -> tuple:
    """(text, JSON-ready dict) of ``--golds``: the changes from GOLD to PREDICTIONS by kind and type
    pair, then each change with its sentence (``metric.gold_differences``)."""
    if not args.predictions:
        raise ValueError("--golds compares two golds: give GOLD and a second gold as PREDICTIONS")
    inputs = cli.ner_files.read_pair(
        args.gold, args.predictions, not args.no_token_check, args.column, args.format
    )
    if inputs.is_spans():  # metric.gold_differences reads tags (tokens and their tags) only
        raise ValueError(
            f"--golds compares golds of tags (CoNLL, HIPE TSV); {args.gold} and {args.predictions} hold spans"
        )
    options = dict(
        scheme=args.scheme, mode=args.mode or ("strict" if args.scheme else None), suffix=args.suffix
    )
    diff = cli.load_metric().gold_differences(inputs.references, inputs.predictions, **options)
    rows = [
        [kind, pair, n] for kind, pairs in sorted(diff["counts"].items()) for pair, n in sorted(pairs.items())
    ]
    out = [
        f"gold A: {args.gold}  gold B: {args.predictions}",
        "",
        "changes from A to B by kind and type pair",
    ]
    out += [
        cli.text_table(["kind", "types", "entities"], rows) if rows else "  none: the two golds agree",
        "",
    ]
    listed = diff["changes"][:GOLD_CHANGES_SHOWN]
    out += [f"the changes, each with its sentence ({len(listed)} of {len(diff['changes'])}; --json for all)"]
    for change in listed:
        words = inputs.tokens[change["unit"]] if inputs.tokens else None
        shown = {side: _span_text(change[side], words) for side in ("a", "b")}
        out.append(  # "unit" indexes the sentences; the text counts them from 1, as every message does
            f"  sentence {change['unit'] + 1}: {change['kind']} {change['pair']}: {shown['a']} -> {shown['b']}"
        )
    return "\n".join(out) + "\n", {"files": {"a": args.gold, "b": args.predictions}, "differences": diff}


#: changes listed in the text of ``--golds`` (all in ``--json``)
GOLD_CHANGES_SHOWN = 50


def _span_text(span: list | None, words: list | None) -> str:
    if span is None:
        return "(none)"
    label, start, end = span
    text = " ".join(words[start:end]) if words else f"{start}-{end}"
    return f"{label} '{text}'"


def generated_report(args: argparse.Namespace, cli: ModuleType) -> tuple:
    """(text, JSON-ready dict) of ``--generated``: each item's outcome counted, the matching ladder
    with each step's gain and its interval, then the usual report at the exact level."""
    metric = cli.load_metric("generated")
    records = metric.read_generated(args.predictions or args.gold)
    if args.predictions:  # the gold in its own file of {"text", "entities"} records
        gold = read_generated_gold(args.gold)
        if gold["texts"] != records["texts"]:
            first = next(i for i, (a, b) in enumerate(zip(gold["texts"], records["texts"])) if a != b)
            raise ValueError(f"{args.gold} and {args.predictions}: the texts of record {first + 1} differ")
        records["references"] = gold["references"]
    if "references" not in records:
        raise ValueError(f'{args.gold}: the records have no "entities": give the gold file first')
    results = metric.compute(
        predictions=records["predictions"],
        references=records["references"],
        texts=records["texts"],
        matching=list(LEVELS),
        scores=["seqeval", "muc", "confusion"],
    )
    counts = results["generated"]["counts"]
    out = ["items of the model's output: " + ", ".join(f"{k} {v}" for k, v in counts.items()), ""]
    rows = [
        [level, *(results["ladder"][level][f"overall_{s}"] for s in ("precision", "recall", "f1"))]
        for level in LEVELS
    ]
    out += [
        "matching ladder (each level's entity scores)",
        cli.text_table(["score", "precision", "recall", "f1"], rows),
        "",
    ]
    if results.get("ladder_gains"):
        out += [
            "gains of each matching level over the one before (paired bootstrap interval)",
            cli.text_table(["step", "score", "gain", "low", "high"], gain_rows(results["ladder_gains"]), 2),
            "",
        ]
    names = [args.gold, args.predictions or args.gold]
    text = cli.report(results, names, len(records["texts"]), first=out)  # the signature once, on top
    return text, {"files": {"gold": args.gold, "predictions": names[1]}, "results": results}


def gain_rows(gains: list) -> list:
    """(step, score, gain, low, high) of each of ``results["ladder_gains"]``; ``-`` for an interval
    not computed."""
    return [
        [
            f"{g['from']} -> {g['to']}",
            g["score"],
            g["difference"],
            *("-" if g[k] is None else g[k] for k in ("low", "high")),
        ]
        for g in gains
    ]


#: the matching levels ``--generated`` scores side by side


def read_generated_gold(path: str) -> dict:
    """A JSONL of ``{"text", "entities"}`` records (an output-less gold) as ``texts`` and ``references``."""
    texts, references = [], []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                record = json.loads(line)
                if (
                    not isinstance(record, dict)
                    or not isinstance(record.get("text"), str)
                    or "entities" not in record
                ):
                    raise ValueError(
                        f'{path}, line {number}: a gold record is {{"text": str, "entities": [...]}}'
                    )
                texts.append(record["text"])
                references.append(record["entities"])
    except FileNotFoundError:
        raise ValueError(f"no such file: {path}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{path}: not a JSONL file ({error})") from None
    return {"texts": texts, "references": references}
