"""Score NER files from a shell: ``ner-recall gold.conll pred.conll [pred_b.conll]`` (or ``python -m ner_recall``).

Prints the headline scores, the per-type table, the four MUC modes, the type confusion and, with a
second predictions file, both systems compared (``metric.compare``: the paired intervals and test).
``--json out.json`` writes every result. Runs from any working directory. Files are read by
``ner_recall.readers.files`` (CoNLL, one file with two tag columns, JSONL spans); exit status 1 with the
message when a file or the metric refuses the input. The metric is the script beside the package,
loaded with ``evaluate.load``.

>>> print(text_table(["score", "A"], [["overall_f1", 0.5]]))
score       A
overall_f1  0.5000
"""

import argparse
import functools
import hashlib
import json
import os
import sys
from typing import Any

from ner_recall.integrations.script import METRIC_PATH
from ner_recall.pipeline import record as ner_record
from ner_recall.readers import files as ner_files

MUC_COLUMNS = ("correct", "incorrect", "partial", "missed", "spurious", "precision", "recall", "f1")


def load_metric(config_name: str = "default") -> Any:
    """``evaluate.load`` of the metric beside this file, one object per config: two objects in one
    process wait on each other's cache-file lock (a second each compute)."""
    return _load(config_name)


@functools.cache
def _load(config_name):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import evaluate

    # an experiment id of this process: evaluate's cache-file locks are then never held by another
    # process scoring at the same time (each would cost a second of waiting)
    return evaluate.load(str(METRIC_PATH), config_name, experiment_id=f"ner_report_{os.getpid()}")


def _metric(inputs):
    """(metric, whether tag options apply) for reader output: spans go to the "spans" config."""
    return (load_metric("spans"), False) if inputs.is_spans() else (load_metric(), True)


def length_unit(inputs: ner_files.Inputs) -> str:
    """What the entity length bucket counts: the offsets' unit, tokens (tags, or spans over tokens)
    or characters (spans over texts: the annotation tools' files, JSONL with "text", HAREM)."""
    if inputs.over_texts():
        return "characters"
    if inputs.is_spans() and any(isinstance(t, str) for t in inputs.tokens or []):
        return "characters or tokens, as each example's offsets count"  # JSONL of both kinds of lines
    return "tokens"


def bucket_title(name: str, unit: str = "tokens") -> str:
    """The line over a bucket table: the attribute, with the unit of a length or a density."""
    characters = unit == "characters"
    counted = {
        "entity_length": f", in {unit}",
        "sentence_length": ", in characters of the text" if characters else ", in tokens",
        "density": ", entities per 100 characters of the text" if characters else ", entities per token",
    }.get(name, "")
    return f"per bucket of {name.replace('_', ' ')}{counted} (strict)"


def is_scored(inputs: ner_files.Inputs) -> bool:
    """Whether the predictions are span items with a ``"score"`` (then the ranking family runs)."""
    return inputs.is_spans() and any("score" in e for example in inputs.predictions for e in example)


def score(
    inputs: ner_files.Inputs,
    scheme: str | None = None,
    mode: str | None = None,
    suffix: bool = False,
    ci_resamples: int = 0,
    errors: bool = True,
    slices: list | None = None,
    buckets: bool = False,
) -> dict:
    """The metric's results on reader output, with "confusion" (and "errors" unless ``errors`` is
    False; with ``buckets``, the entity buckets of ``Inputs.bucket_options``). ValueErrors name file
    and line."""
    metric, tags = _metric(inputs)
    options: dict[str, Any] = dict(scheme=scheme, mode=mode, suffix=suffix) if tags else {}
    if not tags and any(
        "fragments" in e for example in inputs.references + inputs.predictions for e in example
    ):
        errors = buckets = (
            False  # the listing and the buckets read contiguous spans only (docs/discontinuous.md)
        )
    if slices is not None:
        options["slices"] = slices
    if buckets:
        options.update(inputs.bucket_options())
    try:
        scores = ["seqeval", "muc", "confusion"] + (["ranking"] if is_scored(inputs) else [])
        given = dict(errors=errors, ci_resamples=ci_resamples, scores=scores, **options)
        return metric.compute(**{**inputs.compute_inputs(), **given})
    except ValueError as error:
        raise ner_files.located(error, inputs) from None


def score_two(
    inputs: ner_files.Inputs,
    inputs_b: ner_files.Inputs,
    scheme: str | None = None,
    mode: str | None = None,
    suffix: bool = False,
    ci_resamples: int = 0,
    errors: bool = True,
    slices: list | None = None,
    buckets: bool = False,
) -> tuple:
    """Two systems on one gold, each scored once: (results, results_b, comparison). Tag systems get
    ``metric.compare``'s difference, interval and p-value (comparison None for spans); each
    system's own intervals come from the same per-unit rows. ValueErrors name file and line."""
    if inputs.is_spans():
        return (
            score(inputs, ci_resamples=ci_resamples, errors=errors, slices=slices, buckets=buckets),
            score(inputs_b, ci_resamples=ci_resamples, errors=errors, slices=slices, buckets=buckets),
            None,
        )
    given = dict(
        scheme=scheme, mode=mode, suffix=suffix, errors=errors, scores=["seqeval", "muc", "confusion"]
    )
    if slices is not None:
        given["slices"] = slices
    if buckets:
        given.update(inputs.bucket_options())
    try:
        out = load_metric().compare(
            predictions=inputs.predictions,
            predictions_b=inputs_b.predictions,
            references=inputs.references,
            system_intervals=ci_resamples,
            ci_resamples=ci_resamples or 1000,
            document_ids=inputs.document_ids,
            **given,
        )
    except ValueError as error:
        raise ner_files.located(*_side_of(error, inputs, inputs_b)) from None
    return out["a"], out["b"], out


def _side_of(error, inputs, inputs_b):
    """(error, the inputs its place is in, the side there) of a comparison's error: ``predictions_b``
    is the predictions of ``inputs_b``."""
    if getattr(error, "side", None) == "predictions_b":
        return error, inputs_b, "predictions"
    return error, inputs, None


# ---------------------------------------------------------------------------- the printed report


def text_table(header: list, rows: list, names: int = 1) -> str:
    """Rows under a header, floats to four places: the first ``names`` columns (names) left-aligned,
    the others (numbers) right-aligned."""
    cells = [[str(h) for h in header]] + [
        [f"{c:.4f}" if isinstance(c, float) else str(c) for c in r] for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) if i < names else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
        for row in cells
    )


def _interval(results, name):
    low_high = results.get("intervals", {}).get(name)
    return f" [{low_high[0]:.4f}, {low_high[1]:.4f}]" if low_high else ""


def headline(results: dict) -> str:
    if "overall_f1" not in results:
        strict = results["muc"]["strict"]
        return f"strict: precision {strict['precision']:.4f}  recall {strict['recall']:.4f}  f1 {strict['f1']:.4f}"
    parts = [
        f"{k} {results[f'overall_{k}']:.4f}{_interval(results, f'overall_{k}')}"
        for k in ("precision", "recall", "f1")
    ]
    accuracy = (
        f"  accuracy {results['overall_accuracy']:.4f}" if "overall_accuracy" in results else ""
    )  # no tokens: spans
    return "overall (seqeval): " + "  ".join(parts) + accuracy


def modes(results: dict) -> list:
    """The MUC modes of the results, strict first (the metric's order)."""
    return list(results["muc"])


def per_type_summary_rows(results: dict) -> list:
    strict = results["muc"]["strict"]["per_type"]
    return [
        [
            name,
            t["possible"],
            t["actual"],
            t["precision"],
            t["recall"],
            t["f1"],
            *(results["muc"][m]["per_type"][name]["f1"] for m in modes(results)[1:]),
        ]
        for name, t in sorted(strict.items())
    ]


def muc_rows(results: dict) -> list:
    return [[mode, *(results["muc"][mode][k] for k in MUC_COLUMNS)] for mode in modes(results)]


def confusion_lines(confusion: dict, top: int = 10) -> list:
    pairs = [
        (n, gold, pred, scenario)
        for scenario in ("same_span", "overlap")
        for gold, row in confusion[scenario].items()
        for pred, n in row.items()
        if gold != pred
    ]
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    lines = [
        f"  {gold} -> {pred} ({scenario.replace('_', ' ')}): {n}" for n, gold, pred, scenario in pairs[:top]
    ]
    return lines or ["  no entity took another type"]


def signature_lines(results: dict, results_b: dict | None = None) -> list:
    """The options that made the numbers (docs/signature.md), said once for every table: with a
    second system, once if both systems' agree, else each system's, labelled (A's tables carry A's,
    a table of B - A both; a comparison has no signature of its own)."""
    a = results.get("signature", "(none)")
    if results_b is None:
        return [f"signature of every table: {a}"]
    b = results_b.get("signature", "(none)")
    if a == b:
        return [f"signature of every table (A and B alike): {a}"]
    return [f"signature A (every table): {a}", f"signature B (with A's, each table of B - A): {b}"]


def report(
    results: dict,
    names: list,
    sentences: int,
    results_b: dict | None = None,
    comparison: dict | None = None,
    first: list | None = None,
    unit: str = "tokens",
) -> str:
    """The text the command line prints: the files, their counts and the signature of every table
    once, then ``first`` (lines of a report's own tables, the --generated ladder's), the headline
    and the tables; ``unit``: what an entity's length counts (:func:`length_unit`)."""
    out = [
        f"gold: {names[0]}  predictions: {names[1]}" + (f"  predictions B: {names[2]}" if results_b else ""),
        f"{sentences} sentences, {results['muc']['strict']['possible']} gold entities, "
        f"{results['muc']['strict']['actual']} predicted",
        *signature_lines(results, results_b),
        "",
        *(first or []),
        headline(results),
        "",
        "per type (strict counts; f1 of each mode)",
        text_table(
            ["type", "gold", "pred", "precision", "recall", "f1", *(f"f1 {m}" for m in modes(results)[1:])],
            per_type_summary_rows(results),
        ),
        "",
        "MUC / SemEval-2013 modes",
        text_table(["mode", *MUC_COLUMNS], muc_rows(results)),
        "",
        "most frequent type confusions (gold -> predicted)",
        *confusion_lines(results["confusion"]),
    ]
    if "hierarchy" in results:
        out += ["", "HAREM classification (categories and types; absolute / relative F1)"]
        h = results["hierarchy"]
        rows = [[m, h["absolute"][m]["f1"], h["relative"][m]["f1"]] for m in h["absolute"]]
        out += [text_table(["measure", "absolute f1", "relative f1"], rows)]
    if "doubt" in results:
        out += [
            "",
            "doubt in the gold resolved: " + ", ".join(f"{k} {v}" for k, v in results["doubt"].items()),
        ]
    if "documents" in results:
        out += ["", "per document (mean and standard deviation over documents, HIPE-scorer's macro_doc)"]
        out += [text_table(["mode", *DOC_COLUMNS], document_rows(results["documents"]))]
    for key, table in results.get("slices", {}).items():
        out += ["", f"per slice ({key})", *slice_lines(table, (comparison or {}).get("slices", {}).get(key))]
    if "ranking" in results:
        out += ["", "scored predictions (ranking and calibration)", ranking_table(results["ranking"])]
    for name, table in results.get("buckets", {}).items():
        compared = (comparison or {}).get("buckets", {}).get(name)
        out += ["", bucket_title(name, unit), bucket_table(table, compared)]
    if results_b is not None:
        out += ["", "two systems", comparison_text(results, results_b, comparison)]
    return "\n".join(out) + "\n"


DOC_COLUMNS = ("documents", "precision", "precision_std", "recall", "recall_std", "f1", "f1_std")


def document_rows(documents: dict) -> list:
    """(mode, documents, P, its std, R, its std, F1, its std); ``-`` where no document qualifies."""
    return [[mode, *("-" if t[k] is None else t[k] for k in DOC_COLUMNS)] for mode, t in documents.items()]


def ranking_table(ranking: dict) -> str:
    """Per matching: average precision, the best-F1 threshold with its scores, ECE."""
    rows = [
        [
            name,
            t["average_precision"],
            t["average_precision_gold"],
            "-" if t["best"]["threshold"] is None else t["best"]["threshold"],
            t["best"]["precision"],
            t["best"]["recall"],
            t["best"]["f1"],
            t["ece"],
        ]
        for name, t in ranking.items()
        if name in ("strict", "partial")
    ]
    return text_table(
        ["matching", "avg precision", "over gold", "best threshold", "precision", "recall", "f1", "ECE"], rows
    )


def bucket_table(table: dict, compared: dict | None = None) -> str:
    """Each bucket's gold and predicted entities, strict precision, recall and F1 (with its interval
    when computed; with B - A and its Holm-corrected p-value when compared)."""
    header = ["bucket", "gold", "pred", "precision", "recall", "f1"]
    rows = []
    for label, r in table.items():
        row = [label, r["number"], r["predicted"], r["precision"], r["recall"], r["f1"]]
        if "intervals" in r:
            row.append("[{:.4f}, {:.4f}]".format(*r["intervals"]["f1"]))
        if compared:
            c = compared["values"][label]
            row += [c["difference"]["f1"], c["p_values_holm"]["f1"]]
        rows.append(row)
    if any("intervals" in r for r in table.values()):
        header.append("f1 interval")
    if compared:
        header += ["f1 B - A", "p (Holm)"]
    return text_table(header, rows) + "".join(f"\n  {hint}" for hint in bucket_hints(table))


def bucket_hints(table: dict) -> list:
    """A note beside each bucket whose scores are defined but surprising: a bucket holds the gold
    entities of its side's attribute (recall) and the predicted ones of theirs (precision), so it
    may hold gold entities all found elsewhere and no prediction, e.g. recall 1.0 with F1 0.0."""
    hints = []
    for label, r in table.items():
        if r["number"] and not r["predicted"]:
            hints.append(
                f"{label}: {r['number']} gold entities and no prediction in this bucket (a prediction is"
                " bucketed by its own sentence and tokens, a gold entity by its own), so precision is"
                " undefined here and F1 0"
            )
        elif r["predicted"] and not r["number"]:
            hints.append(
                f"{label}: {r['predicted']} predictions and no gold entity in this bucket (each side is"
                " bucketed by its own attribute), so recall is undefined here and F1 0"
            )
    return hints


def slice_lines(table: dict, compared: dict | None = None) -> list:
    """Each slice's sentences and scores (with B - A and its Holm-corrected p-value when compared),
    then the worst slice."""
    name = "overall_f1" if "overall_f1" in next(iter(table["values"].values())) else None
    header = ["slice", "sentences", "precision", "recall", "f1"]
    rows = []
    for value, r in table["values"].items():
        scores = (
            [r[f"overall_{k}"] for k in ("precision", "recall", "f1")]
            if name
            else [r["muc"]["strict"][k] for k in ("precision", "recall", "f1")]
        )
        row = [str(value), r["sentences"], *scores]
        if compared:
            c = compared["values"][value]
            key = "overall_f1" if "overall_f1" in c["difference"] else "muc_strict_f1"
            row += [c["difference"][key], c["p_values_holm"][key]]
        rows.append(row)
    if compared:
        header += ["f1 B - A", "p (Holm)"]
    worst = table["worst"]
    tail = (
        [
            f"worst: {worst['value']} ({worst['score']} {worst['slice']:.4f}, {round(worst['gap'], 12) + 0.0:.4f} below the whole)"
        ]
        if worst
        else []
    )
    return [text_table(header, rows), *tail]


def comparison_rows(results: dict, results_b: dict) -> list:
    """(score, A, B, B - A) for the headline scores and each mode's F1."""
    names = [f"overall_{k}" for k in ("precision", "recall", "f1")] if "overall_f1" in results else []
    rows = [[n, results[n], results_b[n], results_b[n] - results[n]] for n in names]
    return rows + [
        [
            f"muc_{m}_f1",
            results["muc"][m]["f1"],
            results_b["muc"][m]["f1"],
            results_b["muc"][m]["f1"] - results["muc"][m]["f1"],
        ]
        for m in modes(results)
    ]


def comparison_text(results: dict, results_b: dict, comparison: dict | None) -> str:
    if comparison and comparison.get("table"):
        rows = [
            [r["score"], r["a"], r["b"], r["difference"], r["low"], r["high"], r["p_value"]]
            for r in comparison["table"]
            if r["score"].startswith(("overall_", "muc_")) and r["score"].count("_") <= 2
        ]
        return text_table(["score", "A", "B", "B - A", "low", "high", "p"], rows)
    return text_table(["score", "A", "B", "B - A"], comparison_rows(results, results_b))


# ---------------------------------------------------------------------------- command line


def formats_help() -> str:
    """The formats ``--format`` names, with what each is and the optional package it needs."""
    width = max(map(len, ner_files.FILE_FORMATS))
    lines = ["formats (--format; by default told by the file's name and content):"]
    for name, (what, package) in ner_files.FILE_FORMATS.items():
        needs = f" (needs {package[0]}: {package[1]})" if package else ""
        lines.append(f"  {name.ljust(width)}  {what}{needs}")
    return "\n".join(lines)


def parse_args(argv: list | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="ner_report",
        description=__doc__.split("\n\n")[0],
        epilog=formats_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "gold", help="gold file (CoNLL or JSONL); alone: one file with gold and predicted columns"
    )
    parser.add_argument("predictions", nargs="?", help="predictions file, same format and sentences")
    parser.add_argument(
        "predictions_b", nargs="?", help="a second system's predictions: compared with the first"
    )
    parser.add_argument(
        "--scheme",
        choices=load_metric().SCHEMES,
        help="decode strictly in this scheme (implies --mode strict)",
    )
    parser.add_argument(
        "--format",
        choices=list(ner_files.FILE_FORMATS),
        metavar="FORMAT",
        help="read the files in this format (listed below) instead of telling it by name and content",
    )
    parser.add_argument(
        "--mode", choices=("strict",), help="strict decoding (needs --scheme); default: lenient"
    )
    parser.add_argument("--suffix", action="store_true", help="tags carry the prefix last (PER-B)")
    parser.add_argument("--no-token-check", action="store_true", help="do not require identical tokens")
    parser.add_argument(
        "--column", metavar="NAME", help="the tag column of HIPE TSV files (default NE-COARSE-LIT)"
    )
    parser.add_argument(
        "--slices",
        metavar="PATH",
        help="a file with one slice value (genre, period, ...) per line, one line per sentence",
    )
    parser.add_argument(
        "--buckets",
        action="store_true",
        help="strict scores per bucket of entity length, sentence length, density and capitalisation",
    )
    parser.add_argument(
        "--ci-resamples", type=int, default=0, help="bootstrap resamples of the intervals (0: none)"
    )
    parser.add_argument(
        "--golds",
        action="store_true",
        help="GOLD and PREDICTIONS are two golds of the same sentences: what the second changes in the first",
    )
    parser.add_argument(
        "--generated",
        action="store_true",
        help='PREDICTIONS (or GOLD alone) is a JSONL of a language model\'s {"text", "output"} records, '
        'scored against GOLD\'s {"text", "entities"} (or the records\' own "entities") at every matching level',
    )
    parser.add_argument("--json", metavar="PATH", help="write every result (with the error listing) as JSON")
    parser.add_argument(
        "--record",
        metavar="PATH",
        help="write a record of the run: arguments, file hashes, versions, matching policy, results",
    )
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="GOLD is a record: score its files again and say if the results are identical",
    )
    return parser.parse_args(argv)


#: the arguments a record keeps (the files are kept with their SHA-256)
RECORDED = (
    "scheme",
    "mode",
    "suffix",
    "no_token_check",
    "column",
    "slices",
    "buckets",
    "ci_resamples",
    "format",
)
FILES = ("gold", "predictions", "predictions_b", "slices")


def file_hash(path: str) -> str:
    """``sha256:`` and the hex digest of a file's bytes (a folder, brat's: of its files' names and bytes)."""
    digest = hashlib.sha256()
    paths = [path]
    if os.path.isdir(path):
        paths = sorted(
            os.path.join(path, n) for n in os.listdir(path) if os.path.isfile(os.path.join(path, n))
        )
    for name in paths:
        if name != path:
            digest.update(os.path.basename(name).encode("utf-8") + b"\0")
        with open(name, "rb") as f:
            digest.update(f.read())
    return "sha256:" + digest.hexdigest()


def stored_path(path: str, record_path: str) -> str:
    """``path`` relative to the record's folder (so that the record and its files move together);
    absolute where no relative path leads there (another drive)."""
    try:
        return os.path.relpath(os.path.abspath(path), os.path.dirname(os.path.abspath(record_path)))
    except ValueError:
        return os.path.abspath(path)


def make_cli_record(args: argparse.Namespace, payload: dict) -> dict:
    """The record of a command-line run (``ner_record``'s layout, config ``"ner_report"``); each
    file's path relative to the record (``args.record``)."""
    record = ner_record.make_record(
        "ner_report",
        {},
        {k: getattr(args, k) for k in RECORDED},
        {},
        {k: v for k, v in payload.items() if k != "files"},
    )
    record["decoding"] = payload["results"].get("decoding")
    record["files"] = {
        role: {
            "path": stored_path(getattr(args, role), args.record),
            "sha256": file_hash(getattr(args, role)),
        }
        for role in FILES
        if getattr(args, role)
    }
    return record


def read_record(record_path: str) -> dict:
    """The command-line record at ``record_path``, checked; a ValueError naming what is wrong."""
    try:
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"--rerun {record_path}: cannot read it as a JSON record ({error})") from None
    ner_record.check_record(record, f"--rerun {record_path}: ")
    if record["config"] != "ner_report" or "files" not in record:
        raise ValueError(f"--rerun {record_path}: a record of metric.record, not of the command line")
    files = record["files"]
    if not isinstance(files, dict) or "gold" not in files or set(files) - set(FILES):
        raise ValueError(f"--rerun {record_path}: its 'files' map {list(FILES)} (gold among them) to files")
    for role, entry in files.items():
        if not (isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("path", "sha256"))):
            raise ValueError(f"--rerun {record_path}: the {role} file needs a 'path' and a 'sha256' (str)")
    unknown = sorted(set(record["options"]) - set(RECORDED))
    if unknown:
        raise ValueError(f"--rerun {record_path}: {unknown[0]!r} is not an option of the command line")
    return record


def rerun(record_path: str) -> tuple:
    """(text, identical) of a record's run scored again from its files, each checked by its hash;
    a file's path relative to the record's folder (as records are written) or absolute."""
    record = read_record(record_path)
    folder = os.path.dirname(os.path.abspath(record_path))
    paths = {role: os.path.join(folder, entry["path"]) for role, entry in record["files"].items()}
    for role, path in paths.items():
        if not os.path.exists(path):
            raise ValueError(f"--rerun: the {role} file {path} is gone")
        if file_hash(path) != record["files"][role]["sha256"]:
            raise ValueError(
                f"--rerun: the {role} file {path} changed (its SHA-256 differs from the record's)"
            )
    args = parse_args([paths[r] for r in ("gold", "predictions", "predictions_b") if r in paths])
    for key in RECORDED:
        setattr(args, key, record["options"].get(key))
    args.slices = paths.get("slices")
    _, payload = run(args)
    results = {k: v for k, v in payload.items() if k != "files"}
    if ner_record.same_results(record, results):
        return f"identical: the results of {record_path} are reproduced to the last digit\n", True
    where = ", ".join(ner_record.differences(record, results))
    return f"different: {where} (versions then: {record['versions']}; now: {ner_record.versions()})\n", False


def run(args: argparse.Namespace) -> tuple:
    """(text, results as a JSON-ready dict) of parsed arguments; ValueError on bad input."""
    if getattr(args, "golds", False) or getattr(args, "generated", False):
        from ner_recall.cli import gold_and_generated  # the reports of two golds and of a model's raw output

        return gold_and_generated.run(args, sys.modules[__name__])
    options = dict(
        scheme=args.scheme, mode=args.mode or ("strict" if args.scheme else None), suffix=args.suffix
    )
    inputs = ner_files.read_pair(
        args.gold, args.predictions, not args.no_token_check, args.column, getattr(args, "format", None)
    )
    slices = None if args.slices is None else read_slices(args.slices, len(inputs.references))
    names = [args.gold, args.predictions or args.gold]
    payload = {"files": {"gold": args.gold, "predictions": names[1]}}
    results_b = comparison = None
    if args.predictions_b:
        inputs_b = ner_files.read_second_predictions(
            inputs, args.predictions_b, not args.no_token_check, args.column, getattr(args, "format", None)
        )
        results, results_b, comparison = score_two(
            inputs, inputs_b, ci_resamples=args.ci_resamples, slices=slices, buckets=args.buckets, **options
        )
        names.append(args.predictions_b)
        payload.update(results=results, results_b=results_b, comparison=comparison)
        payload["files"]["predictions_b"] = args.predictions_b
    else:
        payload["results"] = results = score(
            inputs, ci_resamples=args.ci_resamples, slices=slices, buckets=args.buckets, **options
        )
    text = report(results, names, len(inputs.references), results_b, comparison, unit=length_unit(inputs))
    lost = [(d, e) for d, doc in zip(inputs.document_ids or [], inputs.unplaced or []) for e in doc]
    if lost:  # a system that changed the text: what the alignment could not place is said, not dropped
        text += f"\n{len(lost)} predicted entities could not be placed on the gold text (not scored):\n"
        text += "".join(
            f"  {d}: {e['label']} at {e['start']}-{e['end']} of the system's text\n" for d, e in lost
        )
    return text, payload


def read_slices(path: str, n_sentences: int) -> list:
    """One slice value per line, one line per sentence; ValueError naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            values = [line.rstrip("\r\n") for line in f]
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--slices {path}: cannot read it as UTF-8 text ({error})") from None
    if len(values) != n_sentences:
        raise ValueError(f"--slices {path}: {len(values)} lines but the files hold {n_sentences} sentences")
    empty = next((i for i, v in enumerate(values) if not v.strip()), None)
    if empty is not None:
        raise ValueError(f"--slices {path} line {empty + 1}: empty; every sentence needs a slice value")
    return values


#: the options the readers and the metric name in their messages (as an input error's side, the
#: keyword a Python caller writes), each as this command line spells it
FLAGS = {
    "check_tokens=False": "--no-token-check",
    "file_format": "--format",
    "column": "--column",
    "mode": "--mode",
    "ci_resamples": "--ci-resamples",
}


def in_flags(error: ValueError) -> ValueError:
    """``error`` with the options it names written as the command line's flags (:data:`FLAGS`): an
    input error names its option as its side, which ``renamed`` rewrites; any other error as it is."""
    renamed = getattr(error, "renamed", None)
    return renamed(FLAGS) if renamed is not None else error


def check_output(path: str, option: str = "--json") -> None:
    """Raise unless ``path`` can be written (checked before any scoring, so nothing is printed in vain)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {path}: the folder {folder} does not exist")
    if (
        os.path.isdir(path)
        or not os.access(folder, os.W_OK)
        or (os.path.exists(path) and not os.access(path, os.W_OK))
    ):
        raise ValueError(f"{option} {path}: not a file this process can write")


def main(argv: list | None = None) -> int:
    """Run the command line: exit 0, 1 when a file or the metric refuses the input (the message on
    stderr), 2 when a format's optional package is missing (named with its install line) or a
    rerun's results differ."""
    args = parse_args(argv)
    try:
        if args.rerun:
            text, identical = rerun(args.gold)
            print(text, end="")
            return 0 if identical else 2
        for option, path in (("--json", args.json), ("--record", args.record)):
            if path:
                check_output(path, option)
        text, payload = run(args)
        record = make_cli_record(args, payload) if args.record else None
    except ValueError as error:  # a rerun's options come from its record, whose keys it names
        print(f"ner_report: {error if args.rerun else in_flags(error)}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as error:  # a format's optional package (ner_formats.MissingPackage)
        install = getattr(error, "install", None) or f"pip install {error.name}"
        message = str(error) if getattr(error, "install", None) else f"{error} (install it: {install})"
        print(f"ner_report: {message}", file=sys.stderr)
        return 2
    print(text, end="")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=1)
    if record is not None:
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
