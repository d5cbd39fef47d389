"""The ner_recall_metric app: compare the scoring modes on one sentence (typed or marked by
selecting text), score whole files and see where the errors are, estimate stratified recall.

``python app.py`` serves it on http://127.0.0.1:7860 (``GRADIO_SERVER_PORT`` changes the port);
it never reaches the internet. Every number shown comes from the metric object, loaded as Hub
users load it, with ``evaluate.load``; this file only parses the input and draws the result.
Importing the module builds ``demo`` without launching it.
"""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import csv  # noqa: E402
import functools  # noqa: E402
import html  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import NamedTuple  # noqa: E402

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

import bootstrap  # noqa: E402, F401  (the root modules as the package ner_recall)
from ner_recall import (
    ner_files,  # noqa: E402
    ner_report,  # noqa: E402
)
from ner_recall.ner_attributes import MORPHOLOGY_OUTCOMES  # noqa: E402
from ner_recall.ner_core import SIZE_KEYS  # noqa: E402
from ner_recall.ner_matching import MODES  # noqa: E402
from ner_recall.ner_scorings import LISTED_OUTCOMES as OUTCOMES  # noqa: E402

HERE = Path(__file__).resolve().parent
METRIC_PATH = HERE / "ner_recall_metric.py"
#: the published EstNLTK benchmark, present beside the project (not on a Space)
BENCHMARK_CSV = HERE.parent / "shared" / "benchmarks" / "amundsen_01" / "data_description.csv"

MODE_WORDS = {
    "strict": "exact boundaries and the right type",
    "exact": "exact boundaries, any type",
    "partial": "overlapping boundaries earn half, any type",
    "type": "the right type, boundaries overlapping",
}
COUNT_KEYS = (*OUTCOMES, "possible", "actual")
SCORE_KEYS = ("precision", "recall", "f1")
#: decoding choices of the Compare tab -> (scheme, mode) options of compute
SCHEME_ORDER = (
    "IO",
    "IOB1",
    "IOB2",
    "IOE1",
    "IOE2",
    "IOBES",
    "BILOU",
)  # the order shown; the values are the metric's
PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f", "#edc948")


def metric(config_name="default"):
    """The metric as Hub users get it (``evaluate.load``); ``"subgroups"`` adds the stratified recall.
    One object per config, shared with ``ner_report``: two objects in one process wait on each
    other's cache-file lock."""
    return ner_report.load_metric(config_name)


def _scheme_rank(scheme):
    return SCHEME_ORDER.index(scheme) if scheme in SCHEME_ORDER else len(SCHEME_ORDER)


#: decoding choices of the Compare and Files tabs -> (scheme, mode) options of compute
DECODINGS = {"lenient (seqeval default)": (None, None)}
DECODINGS.update({f"{s} strict": (s, "strict") for s in sorted(metric().SCHEMES, key=_scheme_rank)})
#: the interval methods of the stratified recall, Wilson (the default) first
CI_METHODS = sorted(metric("subgroups").CI_METHODS, key=lambda m: m != "wilson")


def fmt(x, digits=4):
    return f"{x:.{digits}f}"


# ============================================================================ Compare tab


class Case(NamedTuple):
    """One sentence: tokens (may be empty: then unnamed), gold and predicted tags."""

    tokens: list
    gold: list
    pred: list


def _case(tokens, gold, pred):
    return Case(tokens.split(), gold.split(), pred.split())


#: name -> Case: the six SemEval-2013 scenarios as in Batista's write-up, two harder cases, all six at once
EXAMPLES = {
    "I. exact match": _case("The patient took phenytoin daily .", "O O O B-DRUG O O", "O O O B-DRUG O O"),
    "II. spurious: predicted, not in gold": _case("The patient is healthy .", "O O O O O", "O O O B-BRAND O"),
    "III. missed: in gold, not predicted": _case("Tikosyn was prescribed .", "B-BRAND O O O", "O O O O"),
    "IV. wrong type, same boundaries": _case("Stop propranolol now .", "O B-DRUG O O", "O B-BRAND O O"),
    "V. same type, overlapping boundaries": _case(
        "The dose of warfarin was lowered .", "O O O B-DRUG O O O", "O O B-DRUG I-DRUG O O O"
    ),
    "VI. wrong type, overlapping boundaries": _case(
        "She stopped oral contraceptives .", "O O O B-GROUP O", "O O B-DRUG I-DRUG O"
    ),
    "La patiente a une fièvre aiguë .": _case(
        "La patiente a une fièvre aiguë .", "O B-PER O B-DIS I-DIS O O", "B-PER B-PER O O B-DIS I-DIS O"
    ),
    "One prediction across two gold entities": _case(
        "Flights to Paris , France leave today .", "O O B-LOC O B-LOC O O O", "O O B-LOC I-LOC I-LOC O O O"
    ),
}
BATISTA_EXAMPLES = list(EXAMPLES)[:6]
FIRST_EXAMPLE = "La patiente a une fièvre aiguë ."
EXAMPLES["All six scenarios in one text"] = Case(
    *(  # the scenarios' sentences one after the other
        [item for name in BATISTA_EXAMPLES for item in getattr(EXAMPLES[name], side)] for side in Case._fields
    )
)


def split_items(text):
    """Tokens or tags typed one per line, or separated by spaces on one line."""
    text = (text or "").strip()
    if "\n" in text:
        return [line.strip() for line in text.splitlines() if line.strip()]
    return text.split()


def example_fields(name):
    """The three text boxes of an example: tokens, gold tags, predicted tags."""
    return tuple(" ".join(items) for items in EXAMPLES[name])


def score_sentence(tokens_text, gold_text, pred_text, decoding=next(iter(DECODINGS)), suffix=False):
    """(case, options, results) of one sentence; ValueError with the metric's message if it refuses."""
    case = Case(split_items(tokens_text), split_items(gold_text), split_items(pred_text))
    if not case.gold and not case.pred:
        raise ValueError("no tags: type the gold and predicted tags, or pick an example")
    scheme, mode = DECODINGS[decoding]
    options = dict(scheme=scheme, mode=mode, suffix=bool(suffix), errors=True)
    results = metric().compute(predictions=[case.pred], references=[case.gold], **options)
    # checked after the metric, so that its own message comes first when the tags are wrong too
    if case.tokens and len(case.tokens) != len(case.gold):
        raise ValueError(
            f"{len(case.tokens)} tokens but {len(case.gold)} gold tags: give one tag per "
            "token, or leave the tokens empty"
        )
    return case, options, results


def type_colours(results):
    types = sorted(results["muc"]["strict"]["per_type"])
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(types)}


def sentence_grid_html(
    tokens, gold_spans, pred_spans, colours, tags=None, focus=(), window=None, sides=("gold", "predicted")
):
    """A sentence with gold entities above and predicted entities below, aligned on the tokens.

    ``tags``: (gold tags, predicted tags) shown under each token (pairs that differ shaded);
    ``focus``: spans drawn outlined; ``window``: (first, last + 1) tokens shown, spans clipped to it.
    """
    first, stop = window or (0, len(tokens))
    cells = []
    for row, label, spans in ((1, sides[0], gold_spans), (3, sides[1], pred_spans)):
        cells.append(f'<div class="ner-side" style="grid-row:{row}">{label}</div>')
        for s in spans:
            start, end = max(s[1], first), min(s[2], stop)
            if start < end:
                outline = " ner-focus" if tuple(s) in focus else ""
                cells.append(
                    f'<div class="ner-span{outline}" data-side="{label}" style="grid-row:{row};'
                    f"grid-column:{start - first + 2}/{end - first + 2};background:"
                    f'{colours.get(s[0], "#888")}">{html.escape(s[0])}</div>'
                )
    for i in range(first, stop):
        g, p = (tags[0][i], tags[1][i]) if tags else ("", "")
        differs = " ner-differs" if g != p else ""
        under = (
            f'<span class="ner-tag">{html.escape(g)}</span>',
            f'<span class="ner-tag">{html.escape(p)}</span>',
        )
        cells.append(
            f'<div class="ner-token{differs}" style="grid-row:2;grid-column:{i - first + 2}">'
            f"{under[0] if tags else ''}<b>{html.escape(tokens[i])}</b>{under[1] if tags else ''}</div>"
        )
    return (
        f'<div class="ner-scroll"><div class="ner-grid" style="grid-template-columns:6rem '
        f'repeat({stop - first},max-content)">{"".join(cells)}</div></div>'
    )


def entities_html(case, options, results):
    """The sentence with its entities on both sides, then what each mode makes of each pair."""
    decode = functools.partial(metric().decode, scheme=options["scheme"], suffix=options["suffix"])
    tokens = case.tokens or [f"#{i}" for i in range(len(case.gold))]
    grid = sentence_grid_html(
        tokens, decode(case.gold), decode(case.pred), type_colours(results), tags=(case.gold, case.pred)
    )
    pairs = pairs_table_html([(None, case, pair, outcomes) for pair, outcomes in entity_pairs(results)])
    return (
        f'{grid}<p class="ner-legend">Tag pairs that differ are shaded; one colour per entity type.</p>'
        f'<h4 class="pairs-title">What each mode makes of each entity</h4>{pairs}'
    )


def entity_pairs(results):
    """[((gold span, predicted span), {mode: outcome})] of a one-sentence result with errors=True,
    in text order; a span is (label, start, end) or None (missed: no prediction; spurious: no gold)."""
    pairs = {}
    for mode in MODES:
        for outcome, entries in results["errors"][mode].items():
            for entry in entries:
                key = tuple(None if entry[side] is None else tuple(entry[side]) for side in ("gold", "pred"))
                pairs.setdefault(key, {})[mode] = outcome
    return sorted(pairs.items(), key=lambda item: min(span[1:] for span in item[0] if span))


def _span_text(span, case):
    if span is None:
        return "–"
    label, start, end = span
    words = " ".join(case.tokens[start:end]) if case.tokens else f"tokens {start}–{end - 1}"
    return f"{html.escape(label)} <i>{html.escape(words)}</i>"


def pairs_table_html(rows, first_column=None):
    """Entity pairs with one outcome pill per mode; ``rows``: (first cell, case, pair, outcomes)."""
    if not rows:
        return '<p class="ner-legend">No entity on either side.</p>'
    head = ([first_column] if first_column else []) + ["gold", "predicted", *MODES]
    body = []
    for first, case, (gold, pred), outcomes in rows:
        cells = [html.escape(first)] if first_column else []
        cells += [_span_text(gold, case), _span_text(pred, case)]
        cells += [f'<span class="pill seg-{outcomes[m]}">{outcomes[m]}</span>' for m in MODES]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (
        f'<table class="scenarios"><tr>{"".join(f"<th>{h}</th>" for h in head)}</tr>{"".join(body)}</table>'
    )


def _bar(parts, total):
    """A stacked bar of (name, count) parts, ``total`` wide."""
    segments = "".join(
        f'<span class="seg seg-{name}" style="flex:{n}" title="{name}: {n}"></span>' for name, n in parts if n
    )
    return f'<div class="bar">{segments or "<span class=seg-empty></span>"}</div><small>{total}</small>'


def mode_cards_html(results):
    """The four MUC modes side by side: scores, then gold and predicted outcomes as bars."""
    cards = []
    for mode in MODES:
        m = results["muc"][mode]
        scores = "".join(
            f'<div class="score"><span data-mode="{mode}" data-key="{k}">{fmt(m[k], 3)}'
            f"</span><small>{'F1' if k == 'f1' else k}</small></div>"
            for k in SCORE_KEYS
        )
        counts = "".join(
            f'<li><span class="dot seg-{k}"></span>{k}<b data-mode="{mode}" data-key="{k}">{m[k]}</b></li>'
            for k in COUNT_KEYS
        )
        outcomes = [(k, m[k]) for k in ("correct", "partial", "incorrect")]
        cards.append(
            f'<div class="mode-card"><h3>{mode}</h3><p>{MODE_WORDS[mode]}</p>'
            f'<div class="scores">{scores}</div>'
            f'<div class="bars"><span>gold</span>{_bar(outcomes + [("missed", m["missed"])], m["possible"])}'
            f"<span>pred</span>{_bar(outcomes + [('spurious', m['spurious'])], m['actual'])}</div>"
            f'<ul class="counts">{counts}</ul></div>'
        )
    return f'<div class="mode-cards">{"".join(cards)}</div>'


PER_TYPE_HEADERS = ["type", "mode", *COUNT_KEYS, *SCORE_KEYS]


def per_type_mode_rows(results):
    """One row per entity type and mode: the counts and scores of ``results["muc"][mode]["per_type"]``."""
    rows = []
    for name in sorted(results["muc"]["strict"]["per_type"]):
        for mode in MODES:
            m = results["muc"][mode]["per_type"][name]
            rows.append([name, mode, *(m[k] for k in COUNT_KEYS), *(round(m[k], 4) for k in SCORE_KEYS)])
    return rows


SEQEVAL_HEADERS = ["key", "precision", "recall", "f1", "number"]


def seqeval_rows(results):
    """seqeval's keys: one row per type, then the micro (overall_*), macro and weighted averages."""
    types = sorted(k for k, v in results.items() if isinstance(v, dict) and "number" in v)
    rows = [[t, *(round(results[t][k], 4) for k in SCORE_KEYS), results[t]["number"]] for t in types]
    total = sum(results[t]["number"] for t in types)
    rows += [
        [avg, *(round(results[f"{avg}_{k}"], 4) for k in SCORE_KEYS), total]
        for avg in ("overall", "macro", "weighted")
    ]
    return rows


def python_snippet(case, options):
    extra = "".join(f", {k}={v!r}" for k, v in options.items() if v not in (None, False))
    return (
        'import evaluate\n\nmetric = evaluate.load("ner_recall_metric.py")\n'
        f"results = metric.compute(\n    predictions=[{case.pred!r}],\n"
        f"    references=[{case.gold!r}]{extra},\n)\n"
        'results["muc"]["partial"]["recall"], results["overall_f1"]'
    )


COMPARE_HINT = (
    "In the message, <code>references</code> is the gold-tags box and <code>predictions</code> "
    "the predicted-tags box."
)
CSV_HINT = (
    'The accepted columns are under "CSV formats", below the button; in the metric\'s messages, '
    "<code>references</code> are the gold tags and <code>predictions</code> the predicted ones."
)


def error_html(error, heading, hint=""):
    """A visible error box: the metric's ValueError message as it is; anything else is a bug."""
    if not isinstance(error, ValueError):
        heading, hint = "The metric failed unexpectedly (a bug: please report it with this input)", ""
    message = str(error) if isinstance(error, ValueError) else f"{type(error).__name__}: {error}"
    hint = f"<p>{hint}</p>" if hint else ""
    return (
        f'<div class="app-error" role="alert"><strong>{heading}</strong>'
        f"<pre>{html.escape(message)}</pre>{hint}</div>"
    )


def compare_view(tokens_text, gold_text, pred_text, decoding, suffix):
    """All outputs of the Compare tab: error, results visibility, entities, cards, tables, code."""
    try:
        case, options, results = score_sentence(tokens_text, gold_text, pred_text, decoding, suffix)
    except Exception as error:  # noqa: BLE001 -- shown in the page, never as a stack trace
        hint = COMPARE_HINT if "references" in str(error) or "predictions" in str(error) else ""
        return (
            error_html(error, "The metric refused this input", hint),
            gr.Column(visible=False),
            "",
            "",
            None,
            None,
            "",
        )
    accuracy = f"seqeval-compatible (overall_accuracy, of the tags: {fmt(results['overall_accuracy'])})"
    return (
        "",
        gr.Column(visible=True),
        entities_html(case, options, results),
        mode_cards_html(results),
        per_type_mode_rows(results),
        gr.Dataframe(seqeval_rows(results), label=accuracy),
        python_snippet(case, options),
    )


# ---------------------------------------------------------------------------- Annotate mode

INPUT_MODES = ("Type tags", "Annotate (select text)")


def _chunk(item):
    """(text, label or None) of a HighlightedText chunk, given as a pair or as a dict."""
    if isinstance(item, dict):
        return item.get("token", ""), item.get("class_or_confidence")
    return item[0], item[1]


def marks_to_tags(chunks):
    """(tokens, IOB2 tags) of a marked text: the text split at whitespace, each labelled chunk an
    entity over the tokens it touches (a token already in an entity stays in the first one).

    >>> marks_to_tags([("Anna ", None), ("Tamm", "PER"), (" sang in New York", None)])
    (['Anna', 'Tamm', 'sang', 'in', 'New', 'York'], ['O', 'B-PER', 'O', 'O', 'O', 'O'])
    """
    chunks = [_chunk(c) for c in chunks or []]
    text = "".join(t for t, _ in chunks)
    words = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]
    tags, offset = ["O"] * len(words), 0
    for part, label in chunks:
        start, end, offset = offset, offset + len(part), offset + len(part)
        label = str(label).strip() if label not in (None, "") else ""
        inside = [i for i, (a, b, _) in enumerate(words) if a < end and b > start and tags[i] == "O"]
        if label and part.strip() and inside:
            tags[inside[0]] = f"B-{label}"
            for i in inside[1:]:
                tags[i] = f"I-{label}"
    return [w for _, _, w in words], tags


def tags_to_marks(tokens, tags, decoding, suffix):
    """The HighlightedText value of a tagged sentence: tokens joined by spaces, entities labelled."""
    scheme, _ = DECODINGS[decoding]
    spans = metric().decode(tags, scheme=scheme, suffix=bool(suffix)) if tags else []
    chunks, i = [], 0
    for span in spans:
        if span.start > i:
            chunks.append((" ".join(tokens[i : span.start]) + " ", None))
        chunks.append((" ".join(tokens[span.start : span.end]), span.label))
        chunks.append((" ", None))
        i = span.end
    chunks.append((" ".join(tokens[i:]), None))
    return [(t, label) for t, label in chunks if t]


def annotate_start(tokens_text, gold_text, pred_text, decoding, suffix):
    """The Annotate boxes from the tag boxes: the sentence, and both sides' entities as marks."""
    case = Case(split_items(tokens_text), split_items(gold_text), split_items(pred_text))
    tokens = case.tokens or [f"w{i}" for i in range(len(case.gold))]
    try:
        return (
            " ".join(tokens),
            tags_to_marks(tokens, case.gold, decoding, suffix),
            tags_to_marks(tokens, case.pred, decoding, suffix),
        )
    except ValueError:  # tags the metric refuses: start from the bare sentence
        return " ".join(tokens), [(" ".join(tokens), None)], [(" ".join(tokens), None)]


def annotate_text(text):
    """Both sides unmarked: a new sentence to annotate."""
    return [(text, None)], [(text, None)]


def annotate_marks(gold_marks, pred_marks):
    """The tag boxes (tokens, gold, predicted) from both sides' marks, in IOB2."""
    tokens, gold = marks_to_tags(gold_marks)
    pred_tokens, pred = marks_to_tags(pred_marks)
    if pred_tokens != tokens:  # the text differs: score the predictions as unmarked
        pred = ["O"] * len(tokens)
    return " ".join(tokens), " ".join(gold), " ".join(pred), "IOB2 strict"


def annotate_panel():
    """The Annotate mode's components (hidden until chosen): sentence, gold marks, predicted marks."""
    with gr.Column(visible=False) as panel:
        gr.Markdown(
            "Select a word or a phrase, type its entity type and press Enter; click a mark to "
            "change or remove it. The tag boxes below follow (IOB2) and the modes update."
        )
        text = gr.Textbox(label="Sentence", elem_id="annotate-text", lines=1)
        gold = gr.HighlightedText(
            label="Gold entities",
            interactive=True,
            elem_id="annotate-gold",
            show_legend=False,
            combine_adjacent=False,
        )
        pred = gr.HighlightedText(
            label="Predicted entities",
            interactive=True,
            elem_id="annotate-pred",
            show_legend=False,
            combine_adjacent=False,
        )
    return panel, text, gold, pred


# ============================================================================ Stratified recall tab


class Entities(NamedTuple):
    """The gold entities of a stratified-recall CSV as the metric's inputs: one sentence each
    (found/not found) or one tagged sentence per row."""

    subgroups: list
    references: list
    predictions: list


FOUND = {"yes": True, "no": False, "true": True, "false": False, "1": True, "0": False}
SUBGROUP_COLUMNS = ("subgroup", "population")
CSV_HELP = """\
**Entities CSV**, one row per gold entity, with a header; either
`subgroup,found` (found: yes/no), or `subgroup,gold,predicted` (the tags of one sentence, space
separated; its gold entities all belong to the subgroup). Other columns (`entity`, `tokens`) are
ignored.

**Subgroup sizes CSV** (optional; without it every entity weighs the same, the estimate is plain
recall): `subgroup,size` (relative sizes), or `subgroup,occurences,labelled,positive` as in the
EstNLTK benchmarks' `data_description.csv` (which can be uploaded as it is): the size is estimated
as positive × occurences / labelled.
"""


def read_csv(path, what):
    """(header, [(line number, {column: value})]) of a CSV file with a header row."""
    if not path:
        raise ValueError(f"no {what}: upload one or pick an example")
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f)
            header = [h.strip() for h in next(reader, [])]
            rows = [
                (reader.line_num, dict(zip(header, (v.strip() for v in values))))
                for values in reader
                if any(v.strip() for v in values)
            ]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"{what}: cannot read it as a UTF-8 CSV file ({error})") from None
    if not header or not rows:
        raise ValueError(f"{what}: needs a header row and at least one data row")
    return header, rows


def _subgroup_column(header, what):
    column = next((c for c in SUBGROUP_COLUMNS if c in header), None)
    if column is None:
        raise ValueError(f"{what}: needs a 'subgroup' column; has {header}")
    return column


def read_entities(path):
    """:class:`Entities` of an uploaded CSV (see ``CSV_HELP``)."""
    what = "entities CSV"
    header, rows = read_csv(path, what)
    group = _subgroup_column(header, what)
    if "found" in header or "correct" in header:
        found = "found" if "found" in header else "correct"
        flags = []
        for line, row in rows:
            if row[found].lower() not in FOUND:
                raise ValueError(f"{what} line {line}: {found} must be yes or no; got {row[found]!r}")
            flags.append(FOUND[row[found].lower()])
        # one-token sentences: a gold entity, predicted or not
        return Entities(
            [row[group] for _, row in rows],
            [["B-ENT"]] * len(rows),
            [["B-ENT"] if f else ["O"] for f in flags],
        )
    if "gold" in header and "predicted" in header:
        return Entities(
            [row[group] for _, row in rows],
            [row["gold"].split() for _, row in rows],
            [row["predicted"].split() for _, row in rows],
        )
    raise ValueError(
        f"{what}: needs the columns subgroup and found (yes/no), or subgroup, gold and "
        f"predicted (space-separated tags); has {header}"
    )


def _number(value, where):
    try:
        x = float(value)
    except ValueError:
        raise ValueError(f"{where}: not a number: {value!r}") from None
    return int(x) if x.is_integer() else x


def read_sizes(path):
    """``subgroup_weights`` from an optional sizes CSV: None, {name: size} or {name: {occurences, ...}}."""
    if not path:
        return None
    what = "sizes CSV"
    header, rows = read_csv(path, what)
    group = _subgroup_column(header, what)
    if "size" in header:
        return {row[group]: _number(row["size"], f"{what} line {line}") for line, row in rows}
    if all(k in header for k in SIZE_KEYS):
        return {
            row[group]: {k: _number(row[k], f"{what} line {line}") for k in SIZE_KEYS} for line, row in rows
        }
    raise ValueError(
        f"{what}: needs the columns subgroup and size, or subgroup, {', '.join(SIZE_KEYS)}; has {header}"
    )


def stratified(entities_path, sizes_path, ci_method="wilson", confidence_level=0.95, recall_mode="strict"):
    """``results["stratified_recall"]`` of the metric's subgroups config on the uploaded CSVs."""
    entities = read_entities(entities_path)
    results = metric("subgroups").compute(
        predictions=entities.predictions,
        references=entities.references,
        subgroups=entities.subgroups,
        subgroup_weights=read_sizes(sizes_path),
        ci_method=ci_method,
        confidence_level=float(confidence_level),
        recall_mode=recall_mode,
    )
    return results["stratified_recall"]


STRATA_HEADERS = ["subgroup", "n", "correct", "recall", "weight", "ci_low", "ci_high"]


def strata_rows(result):
    """The table behind the plot: each subgroup, then the weighted estimate."""
    rows = [
        [name, s["n"], s["correct"], *(round(s[k], 4) for k in STRATA_HEADERS[3:])]
        for name, s in result["strata"].items()
    ]
    rows.append(
        [
            "weighted estimate",
            result["n"],
            result["correct"],
            round(result["recall"], 4),
            1.0,
            round(result["ci_low"], 4),
            round(result["ci_high"], 4),
        ]
    )
    return rows


def headline_html(result):
    level = f"{result['confidence_level']:.0%}"
    plain = result["correct"] / result["n"]
    return (
        f'<div class="headline"><div class="big" data-key="recall">{result["recall"]:.1%}</div>'
        f"<div><b>weighted recall</b>, {level} interval "
        f"<b>{result['ci_low']:.1%} – {result['ci_high']:.1%}</b> ({result['method']})<br>"
        f"<small>{result['n']} gold entities in {len(result['strata'])} subgroups, credit "
        f"{result['correct']:g}: plain recall, every entity weighing the same, {plain:.1%}</small>"
        "</div></div>"
    )


class _Frame(NamedTuple):
    """Geometry of the recall plot: recall 0..1 maps to x in [left, width - right]."""

    width: int = 760
    left: int = 190
    right: int = 70
    row: int = 40
    top: int = 26

    def x(self, value):
        return round(self.left + value * (self.width - self.left - self.right), 1)

    def y(self, i):
        return self.top + self.row * i + self.row / 2


ESTIMATE_COLOUR, STRATUM_COLOUR = "#e15759", "#4e79a7"


def recall_svg(result):
    """Per-subgroup recall with its interval, dot area ~ weight, and the weighted estimate below."""
    frame = _Frame()
    strata = list(result["strata"].items())
    height = frame.top + frame.row * (len(strata) + 1) + 34
    parts = [
        f'<svg viewBox="0 0 {frame.width} {height}" width="100%" role="img" class="recall-plot" '
        f'font-family="system-ui, sans-serif" font-size="13" fill="currentColor">',
        _svg_guides(frame, result, height),
    ]
    parts += [_svg_stratum(frame, frame.y(i), name, s, result["n"]) for i, (name, s) in enumerate(strata)]
    parts += [_svg_estimate(frame, frame.y(len(strata)), result), "</svg>"]
    caption = (
        f'<p class="plot-caption">Dots: each subgroup\'s recall, area ~ its weight (its share of '
        f"the population; n and its share of the sample beside it); bars: its "
        f"{result['confidence_level']:.0%} interval taken alone. Red: the weighted estimate and its "
        "interval; dotted: plain recall.</p>"
    )
    return "".join(parts) + caption


def _svg_guides(frame, result, height):
    """Grid lines with percentages, the estimate's interval band and line, the plain recall line."""
    x, top, bottom = frame.x, frame.top - 8, height - 26
    plain = result["correct"] / result["n"]
    parts = [
        f'<line x1="{x(t)}" x2="{x(t)}" y1="{top}" y2="{bottom}" stroke="currentColor" stroke-opacity=".15"/>'
        f'<text x="{x(t)}" y="{height - 8}" text-anchor="middle" opacity=".7">{t:.0%}</text>'
        for t in (0, 0.2, 0.4, 0.6, 0.8, 1)
    ]
    low, high, estimate = x(result["ci_low"]), x(result["ci_high"]), x(result["recall"])
    parts.append(
        f'<rect x="{low}" y="{top}" width="{high - low}" height="{bottom - top}" '
        f'fill="{ESTIMATE_COLOUR}" opacity=".10"/>'
        f'<line x1="{estimate}" x2="{estimate}" y1="{top}" y2="{bottom}" stroke="{ESTIMATE_COLOUR}" '
        'stroke-dasharray="5 4"/>'
        f'<line x1="{x(plain)}" x2="{x(plain)}" y1="{top}" y2="{bottom}" stroke="currentColor" '
        'stroke-opacity=".45" stroke-dasharray="1 3"/>'
        f'<text x="{x(plain)}" y="{top - 4}" text-anchor="middle" font-size="11" opacity=".6">'
        f"plain {plain:.1%}</text>"
    )
    return "".join(parts)


def _svg_stratum(frame, y, name, stratum, n_total):
    """One subgroup: its name, n and weight, its interval and a dot of area ~ weight."""
    radius = 3 + 9 * stratum["weight"] ** 0.5
    return (
        f'<text x="{frame.left - 12}" y="{y - 2}" text-anchor="end" font-weight="600">{html.escape(name)}</text>'
        f'<text x="{frame.left - 12}" y="{y + 13}" text-anchor="end" font-size="11" opacity=".65">'
        f"n={stratum['n']} ({stratum['n'] / n_total:.0%}) · weight {stratum['weight']:.0%}</text>"
        + _svg_interval(frame, y, stratum, STRATUM_COLOUR, 2.5)
        + f'<circle cx="{frame.x(stratum["recall"])}" cy="{y}" r="{radius:.1f}" fill="{STRATUM_COLOUR}" '
        f'fill-opacity=".85"/><text x="{frame.width - frame.right + 8}" y="{y + 4}">{stratum["recall"]:.1%}</text>'
    )


def _svg_estimate(frame, y, result):
    """The weighted estimate: a diamond on its interval."""
    x, d = frame.x(result["recall"]), 8
    return (
        f'<text x="{frame.left - 12}" y="{y + 4}" text-anchor="end" font-weight="700" '
        f'fill="{ESTIMATE_COLOUR}">weighted estimate</text>'
        + _svg_interval(frame, y, result, ESTIMATE_COLOUR, 4)
        + f'<path d="M{x} {y - d} L{x + d} {y} L{x} {y + d} L{x - d} {y} Z" fill="{ESTIMATE_COLOUR}"/>'
        f'<text x="{frame.width - frame.right + 8}" y="{y + 4}" font-weight="700" '
        f'fill="{ESTIMATE_COLOUR}">{result["recall"]:.1%}</text>'
    )


def _svg_interval(frame, y, s, colour, stroke):
    low, high = frame.x(s["ci_low"]), frame.x(s["ci_high"])
    return (
        f'<line x1="{low}" x2="{high}" y1="{y}" y2="{y}" stroke="{colour}" stroke-width="{stroke}"/>'
        + "".join(
            f'<line x1="{e}" x2="{e}" y1="{y - 6}" y2="{y + 6}" stroke="{colour}" stroke-width="2"/>'
            for e in (low, high)
        )
    )


def stratified_view(entities_path, sizes_path, ci_method, confidence_level, recall_mode):
    """All outputs of the Stratified tab: error, results visibility, headline, plot, table."""
    try:
        result = stratified(entities_path, sizes_path, ci_method, confidence_level, recall_mode)
    except Exception as error:  # noqa: BLE001
        return error_html(error, "Cannot estimate recall", CSV_HINT), gr.Column(visible=False), "", "", None
    return "", gr.Column(visible=True), headline_html(result), recall_svg(result), strata_rows(result)


# ---------------------------------------------------------------------------- example CSVs

#: a small benchmark-shaped example: subgroup -> (found, not found, occurences, labelled, positive)
SYNTHETIC = {
    "frequent names": (33, 7, 9000, 300, 40),
    "ambiguous names": (3, 9, 8000, 300, 12),
    "rare names": (12, 18, 21000, 300, 30),
}
TAGGED = (  # subgroup, tokens, gold, predicted
    ("news", "Angela Merkel visited Paris .", "B-PER I-PER O B-LOC O", "B-PER I-PER O B-LOC O"),
    ("news", "The UN met in New York .", "O B-ORG O O B-LOC I-LOC O", "O B-ORG O O B-LOC O O"),
    ("news", "Tallinn hosted Estonia 's song festival .", "B-LOC O B-LOC O O O O", "B-LOC O B-ORG O O O O"),
    (
        "clinical",
        "Patient given warfarin by Dr Tamm .",
        "O O B-DRUG O B-PER I-PER O",
        "O O B-DRUG O O B-PER O",
    ),
    ("clinical", "No fever after aspirin .", "O B-DIS O B-DRUG O", "O O O B-DRUG O"),
    ("clinical", "Seen at Tartu University Hospital .", "O O B-ORG I-ORG I-ORG O", "O O B-LOC O O O"),
    ("social", "omg saw taylor swift in tartu", "O O B-PER I-PER O B-LOC", "O O O O O O"),
    ("social", "lunch at kolm sibulat with mari", "O O B-ORG I-ORG O B-PER", "O O O O O B-PER"),
)


@functools.cache
def _example_dir():
    return Path(tempfile.mkdtemp(prefix="ner_recall_app_"))


def _write_csv(name, header, rows):
    path = _example_dir() / name
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([header, *rows])
    return str(path)


def synthetic_example():
    rows = [
        [g, "yes" if k < found else "no"]
        for g, (found, missed, *_) in SYNTHETIC.items()
        for k in range(found + missed)
    ]
    sizes = [[g, *counts[2:]] for g, counts in SYNTHETIC.items()]
    return (
        _write_csv("synthetic_entities.csv", ["subgroup", "found"], rows),
        _write_csv("synthetic_sizes.csv", ["subgroup", *SIZE_KEYS], sizes),
    )


def tagged_example():
    sizes = [["news", 5], ["clinical", 3], ["social", 2]]
    return (
        _write_csv("tagged_entities.csv", ["subgroup", "tokens", "gold", "predicted"], TAGGED),
        _write_csv("tagged_sizes.csv", ["subgroup", "size"], sizes),
    )


def amundsen_example():
    """amundsen_01 from ../shared: which sampled entity the EstNLTK tagger found, and the sizes."""
    data = metric("subgroups").load_benchmark(BENCHMARK_CSV)
    rows = [
        [g, text, "yes" if ok else "no"]
        for g, text, ok in zip(data["subgroup"], data["span_text"], data["correct"])
    ]
    sizes = metric("subgroups").benchmark_sizes(BENCHMARK_CSV)
    return (
        _write_csv("amundsen_01_entities.csv", ["subgroup", "entity", "found"], rows),
        _write_csv(
            "amundsen_01_sizes.csv",
            ["subgroup", *SIZE_KEYS],
            [[g, *(s[k] for k in SIZE_KEYS)] for g, s in sizes.items()],
        ),
    )


STRATIFIED_EXAMPLES = {
    "Synthetic benchmark: three subgroups, found yes/no": synthetic_example,
    "Tagged sentences in three genres": tagged_example,
}
if BENCHMARK_CSV.exists():
    STRATIFIED_EXAMPLES = {
        "amundsen_01: EstNLTK tagger on Estonian place names": amundsen_example,
        **STRATIFIED_EXAMPLES,
    }


def stratified_example_files(name):
    """(entities CSV, sizes CSV) paths of an example, written to a temporary folder."""
    return STRATIFIED_EXAMPLES[name]()


def stratified_example_view(name, ci_method, confidence_level, recall_mode):
    """The example's CSV files in the upload boxes, and the Stratified tab's outputs for them."""
    try:
        entities, sizes = stratified_example_files(name)
    except Exception as error:  # noqa: BLE001
        return (
            None,
            None,
            error_html(error, "Cannot build this example"),
            gr.Column(visible=False),
            "",
            "",
            None,
        )
    return entities, sizes, *stratified_view(entities, sizes, ci_method, confidence_level, recall_mode)


# ============================================================================ Files tab

FILES_HELP = """\
**Gold and predictions**, in one of three layouts (read by `ner_files`, the same readers as
`python ner_report.py gold pred`):

- **CoNLL**: one token per line, token first and tag last (CoNLL-2003's four columns read as they
  are), a blank line between sentences; `-DOCSTART-` lines are dropped; lines starting with `#`
  are comments unless they have as many fields as the token lines. Both files hold the same
  sentences and tokens.
- **One file with two tag columns** (conlleval's layout, token … gold predicted): upload it as
  gold and leave the predictions empty.
- **JSONL spans** (`.jsonl`): `{"tokens": [...], "entities": [{"label", "start", "end"}]}` per
  line, end exclusive.
- **HIPE TSV** (by its header) and **HAREM markup** (`<DOC>` with HAREM's entity tags).
- **Annotation tools**: brat (`.ann` beside its `.txt`; discontinuous entities), Label Studio's JSON
  export, doccano and Prodigy JSONL, spaCy `.spacy` files, CoNLL-U with NER tags; told by name and
  content, or chosen in **File format** when a name is shared (docs/formats.md).

A second predictions file compares two systems on the same gold.
"""
#: the error browser shows at most this many pairs at once
ERROR_PAGE = 40
#: tokens shown either side of an error in the error browser
CONTEXT = 6
ALL_TYPES = "all types"
NOT_CORRECT = "all but correct"


def _path(upload):
    """A Gradio upload (a path, a file object or None) as a path or None."""
    if upload is None or isinstance(upload, str):
        return upload or None
    return getattr(upload, "name", None) or getattr(upload, "path", None)


#: the Files tab's format picker: told by name and content, or one of the readers'
AUTO_FORMAT = "by name and content"
FILE_FORMATS = (AUTO_FORMAT, *ner_files.PAIR_FORMATS)


def score_uploads(
    gold,
    pred,
    pred_b=None,
    decoding=next(iter(DECODINGS)),
    suffix=False,
    resamples=0,
    slices=None,
    file_format=AUTO_FORMAT,
):
    """The Files tab's state: inputs read, results (with errors, confusion and the entity buckets,
    and per slice with a slices file) of one or two systems."""
    gold, pred, pred_b, slices = _path(gold), _path(pred), _path(pred_b), _path(slices)
    if not gold:
        raise ValueError("no gold file: upload one (CoNLL, two tag columns or JSONL)")
    if pred_b and not pred:
        raise ValueError("a second predictions file needs the first one")
    scheme, mode = DECODINGS[decoding]
    options = dict(scheme=scheme, mode=mode, suffix=bool(suffix), ci_resamples=int(resamples or 0))
    inputs = ner_files.read_pair(
        gold, pred, file_format=None if file_format in (None, AUTO_FORMAT) else file_format
    )
    if slices:
        options["slices"] = ner_report.read_slices(slices, len(inputs.references))
    options["buckets"] = True
    state = {
        "inputs": inputs,
        "options": options,
        "names": [Path(p).name for p in (gold, pred or gold, pred_b) if p],
    }
    if pred_b:
        inputs_b = ner_files.read_second_predictions(inputs, pred_b)
        state["results"], state["results_b"], state["comparison"] = ner_report.score_two(
            inputs, inputs_b, **options
        )
    else:
        state["results"] = ner_report.score(inputs, **options)
    return state


def files_headline_html(results, names, n_sentences):
    """seqeval's micro scores (with their intervals when computed) and the corpus size."""
    intervals = results.get("intervals", {})
    cells = []
    for key in SCORE_KEYS:
        name = f"overall_{key}"
        value = results[name] if name in results else results["muc"]["strict"][key]
        band = intervals.get(name)
        band = f'<small class="interval">[{band[0]:.4f}, {band[1]:.4f}]</small>' if band else ""
        cells.append(
            f'<div class="score"><span data-key="{name}">{fmt(value)}</span>'
            f"<small>{'F1' if key == 'f1' else key}</small>{band}</div>"
        )
    strict = results["muc"]["strict"]
    level = " (95% bootstrap intervals)" if intervals else ""
    return (
        f'<div class="files-headline"><div class="scores">{"".join(cells)}</div><p>'
        f"<b>{html.escape(names[1])}</b> against <b>{html.escape(names[0])}</b>: {n_sentences} sentences, "
        f"{strict['possible']} gold and {strict['actual']} predicted entities; seqeval's micro "
        f"scores (exact boundaries and type){level}.</p></div>"
    )


def type_f1_svg(results):
    """Per type, one bar of F1 per MUC mode (grouped), with the value at its end."""
    types = sorted(results["muc"]["strict"]["per_type"])
    bar, gap, left, width = 14, 12, 110, 520
    height = len(types) * (len(MODES) * bar + gap) + 40
    parts = [
        f'<svg viewBox="0 0 {left + width + 60} {height}" width="100%" role="img" class="type-f1" '
        'font-family="system-ui, sans-serif" font-size="12" fill="currentColor">'
    ]
    parts += [
        f'<line x1="{left + width * t}" x2="{left + width * t}" y1="0" y2="{height - 24}" '
        f'stroke="currentColor" stroke-opacity=".15"/><text x="{left + width * t}" y="{height - 8}" '
        f'text-anchor="middle" opacity=".7">{t:.1f}</text>'
        for t in (0, 0.2, 0.4, 0.6, 0.8, 1)
    ]
    for i, name in enumerate(types):
        y0 = i * (len(MODES) * bar + gap) + 4
        parts.append(
            f'<text x="{left - 10}" y="{y0 + 2 * bar + 4}" text-anchor="end" font-weight="600">'
            f"{html.escape(name)}</text>"
        )
        for k, mode in enumerate(MODES):
            f1 = results["muc"][mode]["per_type"][name]["f1"]
            y = y0 + k * bar
            parts.append(
                f'<rect x="{left}" y="{y}" width="{width * f1:.1f}" height="{bar - 2}" fill="{PALETTE[k]}"'
                f' data-type="{html.escape(name)}" data-mode="{mode}" data-f1="{f1:.4f}"><title>{mode}: '
                f'{f1:.4f}</title></rect><text x="{left + width * f1 + 4:.1f}" y="{y + bar - 3}" '
                f'font-size="11" opacity=".8">{f1:.3f}</text>'
            )
    legend = "".join(
        f'<span><i style="background:{PALETTE[k]}"></i>{mode}</span>' for k, mode in enumerate(MODES)
    )
    return "".join(parts) + f'</svg><div class="legend">F1 per type: {legend}</div>'


def slices_html(results, comparison=None):
    """Per slice value: sentences, strict scores, F1 as a bar (with its interval when computed; with
    B - A and its Holm-corrected p-value for two systems); the worst slice highlighted."""
    if "slices" not in results:
        return '<p class="ner-legend">Upload a slices file (one value per line, one line per sentence) to see every score per slice.</p>'
    out = []
    for key, table in results["slices"].items():
        worst = (table.get("worst") or {}).get("value")
        compared = (comparison or {}).get("slices", {}).get(key)
        head = "<th>slice</th><th>sentences</th><th>precision</th><th>recall</th><th>f1</th>"
        head += "<th>B - A</th><th>p (Holm)</th>" if compared else ""
        rows = []
        for value, r in table["values"].items():
            name = "overall" if "overall_f1" in r else None
            p, rc, f = (
                r[f"overall_{k}"] if name else r["muc"]["strict"][k] for k in ("precision", "recall", "f1")
            )
            interval = r.get("intervals", {}).get("overall_f1" if name else "muc_strict_f1")
            bar = (
                f'<div class="slice-bar"><i style="width:{100 * f:.1f}%"></i>'
                + (
                    f'<b style="left:{100 * interval[0]:.1f}%;width:{100 * (interval[1] - interval[0]):.1f}%"></b>'
                    if interval
                    else ""
                )
                + f"</div>{f:.4f}"
                + (f" [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else "")
            )
            cells = f"<td>{html.escape(str(value))}</td><td>{r['sentences']}</td><td>{p:.4f}</td><td>{rc:.4f}</td><td>{bar}</td>"
            if compared:
                c = compared["values"][value]
                score = "overall_f1" if "overall_f1" in c["difference"] else "muc_strict_f1"
                cells += f"<td>{c['difference'][score]:+.4f}</td><td>{c['p_values_holm'][score]:.4f}</td>"
            mark = ' class="worst" title="the worst slice"' if value == worst else ""
            rows.append(f'<tr{mark} data-slice="{html.escape(str(value))}">{cells}</tr>')
        note = ""
        if worst is not None:
            w = table["worst"]
            note = (
                f'<p class="ner-legend">Worst slice: <b>{html.escape(str(worst))}</b>, {w["score"]} '
                f"{w['slice']:.4f}, {w['gap']:.4f} below the whole ({w['whole']:.4f}).</p>"
            )
        out.append(
            f'<h4>{html.escape(key)}</h4><table class="ner-slices" data-key="{html.escape(key)}">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{note}"
        )
    return "".join(out)


def buckets_svg(results):
    """Per entity attribute, strict F1 per bucket as bars (with the interval when computed) and the
    gold / predicted entities of each bucket."""
    if not results.get("buckets"):
        return ""
    bar, gap, left, width = 16, 6, 90, 460
    out = []
    for name, table in results["buckets"].items():
        labels = list(table)
        height = len(labels) * (bar + gap) + 30
        parts = [
            f'<svg viewBox="0 0 {left + width + 170} {height}" width="100%" role="img" class="bucket-f1" '
            f'data-attribute="{name}" font-family="system-ui, sans-serif" font-size="12" fill="currentColor">'
        ]
        for i, label in enumerate(labels):
            r, y = table[label], i * (bar + gap) + 4
            f1 = r["f1"]
            parts.append(
                f'<text x="{left - 8}" y="{y + bar - 4}" text-anchor="end">{html.escape(label)}</text>'
                f'<rect x="{left}" y="{y}" width="{width * f1:.1f}" height="{bar}" fill="{PALETTE[0]}" '
                f'data-bucket="{html.escape(label)}" data-f1="{f1:.4f}"><title>{label}: F1 {f1:.4f}</title></rect>'
            )
            if "intervals" in r:
                low, high = r["intervals"]["f1"]
                parts.append(
                    f'<line x1="{left + width * low:.1f}" x2="{left + width * high:.1f}" y1="{y + bar / 2}" '
                    f'y2="{y + bar / 2}" stroke="currentColor" stroke-width="2"/>'
                )
            parts.append(
                f'<text x="{left + width + 8}" y="{y + bar - 4}" font-size="11">{f1:.3f}  '
                f"({r['number']} gold, {r['predicted']} pred)</text>"
            )
        parts.append("</svg>")
        out.append(f"<h4>{html.escape(name.replace('_', ' '))}</h4>" + "".join(parts))
    return "".join(out)


def _simple_table(head, rows, key):
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{fmt(v) if isinstance(v, float) else html.escape(str(v))}</td>" for v in row)
        + "</tr>"
        for row in rows
    )
    return f'<table class="ner-slices" data-key="{key}"><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>'


def levels_html(results):
    """With a type hierarchy: the coarse level and HAREM's four measures (absolute, relative); with
    entity attributes: each attribute's item scores and HAREM's outcomes. Empty without either."""
    out = []
    h = results.get("hierarchy")
    if h:
        coarse = h["coarse"]
        rows = [
            [
                "coarse (categories)",
                coarse["overall_precision"],
                coarse["overall_recall"],
                coarse["overall_f1"],
                "",
                "",
                "",
            ]
        ]
        rows += [
            [
                m,
                h["absolute"][m]["precision"],
                h["absolute"][m]["recall"],
                h["absolute"][m]["f1"],
                h["relative"][m]["precision"],
                h["relative"][m]["recall"],
                h["relative"][m]["f1"],
            ]
            for m in h["absolute"]
        ]
        head = ["level / measure", "P", "R", "F1", "relative P", "relative R", "relative F1"]
        out += [
            "<h4>Categories and types (HAREM's classification)</h4>",
            _simple_table(head, rows, "hierarchy"),
        ]
    a = results.get("attributes")
    if a:
        outcomes = a["outcomes"]
        names = sorted(set(a["per_attribute"]) | set(outcomes))
        rows = [
            [
                n,
                *(a["per_attribute"].get(n, {}).get(k, 0.0) for k in ("precision", "recall", "f1")),
                *(outcomes.get(n, {}).get(o, 0) for o in MORPHOLOGY_OUTCOMES),
            ]
            for n in names
        ]
        head = ["attribute", "P", "R", "F1", *MORPHOLOGY_OUTCOMES]
        out += [
            "<h4>Entity attributes (items; HAREM's outcomes over aligned pairs)</h4>",
            _simple_table(head, rows, "attributes"),
        ]
    return "".join(out)


def ranking_svg(results):
    """Scored predictions: the precision-recall curve of each matching (the best-F1 threshold
    marked) and the reliability diagram (accuracy against mean score per bin, the diagonal)."""
    ranking = results.get("ranking")
    if not ranking:
        return ""
    size, pad = 260, 36
    colours = {"strict": PALETTE[0], "partial": PALETTE[2]}

    def frame(title, x_label, y_label):
        return [
            f'<rect x="{pad}" y="10" width="{size}" height="{size}" fill="none" stroke="currentColor" stroke-opacity=".3"/>',
            f'<text x="{pad + size / 2}" y="{size + 40}" text-anchor="middle">{x_label}</text>',
            f'<text x="10" y="{10 + size / 2}" transform="rotate(-90 10 {10 + size / 2})" text-anchor="middle">{y_label}</text>',
            *(
                f'<text x="{pad + size * t}" y="{size + 24}" text-anchor="middle" opacity=".7">{t:.1f}</text>'
                f'<text x="{pad - 4}" y="{10 + size * (1 - t) + 4}" text-anchor="end" opacity=".7">{t:.1f}</text>'
                for t in (0, 0.5, 1)
            ),
            f'<text x="{pad + size / 2}" y="8" text-anchor="middle" font-weight="600">{title}</text>',
        ]

    def xy(x, y):
        return f"{pad + size * x:.1f},{10 + size * (1 - y):.1f}"

    curve = frame("Precision-recall", "recall", "precision")
    for name, colour in colours.items():
        c = ranking[name]["curve"]
        points = " ".join(xy(r, p) for r, p in zip(c["recall"], c["precision"]))
        best = ranking[name]["best"]
        curve.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2" class="pr-curve" '
            f'data-matching="{name}" data-ap="{ranking[name]["average_precision"]:.4f}"/>'
        )
        if best["threshold"] is not None:
            curve.append(
                f'<circle cx="{xy(best["recall"], best["precision"]).split(",")[0]}" '
                f'cy="{xy(best["recall"], best["precision"]).split(",")[1]}" r="4" fill="{colour}">'
                f"<title>{name}: best F1 {best['f1']:.4f} at threshold {best['threshold']:.4f}</title></circle>"
            )
    reliability = frame("Reliability (strict)", "mean score", "accuracy")
    reliability.append(
        f'<line x1="{pad}" y1="{10 + size}" x2="{pad + size}" y2="10" stroke="currentColor" stroke-dasharray="4 3" opacity=".5"/>'
    )
    for row in ranking["strict"]["reliability"]:
        x0, x1 = pad + size * row["lower"], pad + size * row["upper"]
        h = size * row["accuracy"]
        reliability.append(
            f'<rect x="{x0 + 1:.1f}" y="{10 + size - h:.1f}" width="{x1 - x0 - 2:.1f}" height="{h:.1f}" fill="{PALETTE[0]}" '
            f'fill-opacity=".7" class="reliability-bin" data-count="{row["count"]}" data-accuracy="{row["accuracy"]:.4f}">'
            f"<title>{row['lower']:.1f}-{row['upper']:.1f}: {row['count']} predictions, accuracy {row['accuracy']:.3f}, "
            f"mean score {row['confidence']:.3f}</title></rect>"
        )
    legend = ", ".join(
        f'<span style="color:{colour}">{name}</span> AP {ranking[name]["average_precision"]:.4f}, '
        f"best F1 {ranking[name]['best']['f1']:.4f} at {ranking[name]['best']['threshold']}"
        for name, colour in colours.items()
    )
    svg = (
        f'<svg viewBox="0 0 {2 * (size + pad) + 60} {size + 50}" width="100%" role="img" class="ranking" '
        'font-family="system-ui, sans-serif" font-size="12" fill="currentColor">'
        + "".join(curve)
        + f'<g transform="translate({size + pad + 50},0)">'
        + "".join(reliability)
        + "</g></svg>"
    )
    return svg + f'<p class="ner-legend">{legend}; ECE {ranking["strict"]["ece"]:.4f} (strict).</p>'


def confusion_table(confusion):
    """(gold types, predicted types, {(gold, pred): (same span, overlapping)}) with None for missed
    (no prediction) and spurious (no gold)."""
    cells = {}
    for scenario, k in (("same_span", 0), ("overlap", 1)):
        for gold, row in confusion[scenario].items():
            for pred, n in row.items():
                counts = cells.setdefault((gold, pred), [0, 0])
                counts[k] += n
    cells.update({(t, None): [n, 0] for t, n in confusion["missed"].items()})
    cells.update({(None, t): [n, 0] for t, n in confusion["spurious"].items()})
    types = sorted({t for pair in cells for t in pair if t is not None})
    return types, cells


def heatmap_html(results):
    """Gold type x predicted type over every matched pair, and missed / spurious, as a shaded table."""
    if "confusion" not in results:
        return '<p class="ner-legend">This version of the metric gives no type confusion.</p>'
    types, cells = confusion_table(results["confusion"])
    peak = max((sum(c) for c in cells.values()), default=1) or 1
    head = "".join(f"<th>{html.escape(t)}</th>" for t in types) + "<th>missed</th>"
    rows = []
    for gold in [*types, None]:
        row = [f"<th>{html.escape(gold) if gold else 'spurious'}</th>"]
        for pred in [*types, None]:
            same, overlap = cells.get((gold, pred), (0, 0))
            n = same + overlap
            hue = "89,161,79" if gold == pred else "225,87,89"
            detail = f"{same} same span, {overlap} overlapping" if gold and pred else f"{n}"
            shade = f"background:rgba({hue},{0.12 + 0.75 * n / peak:.2f})" if n else ""
            row.append(
                f'<td style="{shade}" data-gold="{gold or ""}" data-pred="{pred or ""}" data-n="{n}" '
                f'title="{html.escape(detail)}">{n or ""}</td>'
            )
        rows.append("<tr>" + "".join(row) + "</tr>")
    return (
        f'<table class="heatmap"><tr><th>gold \\ predicted</th>{head}</tr>{"".join(rows)}</table>'
        '<p class="ner-legend">Every matched pair once (same span or overlapping, hover for which), a gold '
        'entity no prediction overlaps in "missed", a prediction no gold entity overlaps in "spurious". '
        "Green: the type agrees.</p>"
    )


def sentence_spans(state, i):
    """(gold spans, predicted spans, tags or None) of sentence ``i``: (label, start, end) tuples."""
    inputs, options = state["inputs"], state["options"]
    gold, pred = inputs.references[i], inputs.predictions[i]
    if gold and isinstance(gold[0], dict) or pred and isinstance(pred[0], dict) or not (gold or pred):
        as_spans = [[(e["label"], e["start"], e["end"]) for e in side] for side in (gold, pred)]
        return (*as_spans, None)
    decode = functools.partial(metric().decode, scheme=options["scheme"], suffix=options["suffix"])
    return ([tuple(s) for s in decode(gold)], [tuple(s) for s in decode(pred)], (gold, pred))


def browse_errors(state, mode="strict", outcome=NOT_CORRECT, type_name=ALL_TYPES):
    """The listed pairs of ``mode`` with ``outcome`` (or every outcome but correct) whose gold or
    predicted type is ``type_name``: [(outcome, entry)] in sentence order."""
    listing = state["results"]["errors"][mode]
    outcomes = [o for o in OUTCOMES if o != "correct"] if outcome == NOT_CORRECT else [outcome]
    found = [
        (o, e)
        for o in outcomes
        for e in listing.get(o, [])
        if type_name == ALL_TYPES or type_name in {s[0] for s in (e["gold"], e["pred"]) if s}
    ]
    return sorted(found, key=_text_order)


def _text_order(item):
    """(sentence, first token) of a listed pair: the error browser's order."""
    entry = item[1]
    return entry["sentence"], min(s[1] for s in (entry["gold"], entry["pred"]) if s)


def error_card_html(state, outcome, entry, colours):
    """One listed pair drawn in its sentence (a window of it), with its outcome in each mode."""
    i = entry["sentence"]
    tokens = state["inputs"].tokens[i]
    pair = [tuple(s) if s else None for s in (entry["gold"], entry["pred"])]
    where = state["inputs"].where("references", i, min(s[1] for s in pair if s))
    head = (
        f'<div class="error-head"><span class="pill seg-{outcome}">{outcome}</span> sentence {i + 1} '
        f"<small>({html.escape(where)})</small></div>"
    )
    if isinstance(tokens, str):  # JSONL text: character offsets
        marks = " / ".join(
            f"{side} {html.escape(s[0])} <i>{html.escape(tokens[s[1] : s[2]])}</i>"
            for side, s in zip(("gold", "predicted"), pair)
            if s
        )
        return (
            f'<div class="error-card" data-outcome="{outcome}" data-sentence="{i}">{head}<p>{marks}</p></div>'
        )
    gold_spans, pred_spans, tags = sentence_spans(state, i)
    start = min(s[1] for s in pair if s)
    end = max(s[2] for s in pair if s)
    window = (max(0, start - CONTEXT), min(len(tokens), end + CONTEXT))
    grid = sentence_grid_html(
        tokens, gold_spans, pred_spans, colours, tags=tags, focus=set(pair), window=window
    )
    return f'<div class="error-card" data-outcome="{outcome}" data-sentence="{i}">{head}{grid}</div>'


def errors_html(state, mode="strict", outcome=NOT_CORRECT, type_name=ALL_TYPES, page=1):
    """The error browser's page ``page`` (from 1; clamped to the pages there are): how many pairs
    match the filters, and ERROR_PAGE of them drawn, so that a file of 50,000 sentences draws no
    more than a small one."""
    if not state:
        return ""
    found = browse_errors(state, mode, outcome, type_name)
    pages = max(1, -(-len(found) // ERROR_PAGE))
    page = min(max(1, int(page or 1)), pages)
    first = (page - 1) * ERROR_PAGE
    colours = type_colours(state["results"])
    shown = "".join(error_card_html(state, o, e, colours) for o, e in found[first : first + ERROR_PAGE])
    where = (
        f", pairs {first + 1}-{min(first + ERROR_PAGE, len(found))} shown (page {page} of {pages})"
        if len(found) > ERROR_PAGE
        else ""
    )
    return (
        f'<p class="error-count" data-count="{len(found)}" data-page="{page}" data-pages="{pages}">'
        f"{len(found)} pair(s) in mode <b>{mode}</b>{where}. "
        "The pair is outlined; gold above, predicted below.</p>" + shown
    )


def turn_page(state, mode, outcome, type_name, page, step):
    """The error browser ``step`` pages on (clamped): (the new page number, its HTML)."""
    pages = max(1, -(-len(browse_errors(state, mode, outcome, type_name)) // ERROR_PAGE)) if state else 1
    page = min(max(1, int(page or 1) + step), pages)
    return page, errors_html(state, mode, outcome, type_name, page)


def results_json(state):
    """The full results (and the second system's, and the comparison) as a JSON file to download."""
    payload = {"files": state["names"], "options": state["options"], "results": state["results"]}
    for key in ("results_b", "comparison"):
        if state.get(key) is not None:
            payload[key] = state[key]
    path = Path(tempfile.mkdtemp(prefix="ner_results_")) / "ner_results.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def comparison_frame(state):
    """Both systems' scores: ``metric.compare``'s table, or side by side for span files."""
    if state.get("results_b") is None:
        return None
    comparison = state.get("comparison")
    if comparison and comparison.get("table"):
        keys = ("score", "a", "b", "difference", "low", "high", "p_value")
        rows = [[row[k] if k == "score" else round(row[k], 4) for k in keys] for row in comparison["table"]]
        return pd.DataFrame(rows, columns=["score", "A", "B", "B - A", "low", "high", "p"])
    rows = ner_report.comparison_rows(state["results"], state["results_b"])
    return pd.DataFrame(
        [[n, *(round(x, 4) for x in xs)] for n, *xs in rows], columns=["score", "A", "B", "B - A"]
    )


def files_stream(gold, pred, pred_b, decoding, suffix, resamples, slices=None, file_format=AUTO_FORMAT):
    """The Files tab's outputs as they become ready: everything but the JSON download first, then it."""
    outputs = files_view(
        gold,
        pred,
        pred_b,
        decoding,
        suffix,
        resamples,
        download=False,
        slices=slices,
        file_format=file_format,
    )
    yield outputs
    state = outputs[-1]
    if state is not None:
        yield tuple(results_json(state) if i == FILES_DOWNLOAD else gr.skip() for i in range(len(outputs)))


#: the position of the JSON download among files_view's outputs
FILES_DOWNLOAD = 10


def files_view(
    gold, pred, pred_b, decoding, suffix, resamples, download=True, slices=None, file_format=AUTO_FORMAT
):
    """All outputs of the Files tab: error, results visibility, headline, mode cards, per-type plot,
    heatmap, mode / outcome / type filters, error browser, download (None unless ``download``),
    two-systems visibility, comparison, slices table, bucket charts, ranking plots, state."""
    try:
        state = score_uploads(gold, pred, pred_b, decoding, suffix, resamples, slices, file_format)
    except Exception as error:  # noqa: BLE001 -- shown in the page
        return (
            error_html(
                error, "Cannot score these files", 'The format of each layout is under "File formats".'
            ),
            gr.Column(visible=False),
            "",
            "",
            "",
            "",
            "strict",
            NOT_CORRECT,
            gr.Dropdown(choices=[ALL_TYPES], value=ALL_TYPES),
            "",
            None,
            gr.Column(visible=False),
            None,
            "",
            "",
            "",
            None,
        )
    results = state["results"]
    types = [ALL_TYPES, *sorted(results["muc"]["strict"]["per_type"])]
    comparison = comparison_frame(state)
    return (
        "",
        gr.Column(visible=True),
        files_headline_html(results, state["names"], len(state["inputs"].references)),
        mode_cards_html(results),
        type_f1_svg(results),
        heatmap_html(results),
        "strict",
        NOT_CORRECT,
        gr.Dropdown(choices=types, value=ALL_TYPES),
        errors_html(state),
        results_json(state) if download else None,
        gr.Column(visible=comparison is not None),
        comparison,
        slices_html(results, state.get("comparison")),
        buckets_svg(results),
        ranking_svg(results) + levels_html(results),
        state,
    )


# ============================================================================ Agreement tab


def read_annotation_files(paths):
    """(inputs of the first two files, every annotator's annotations, file names): two or more files
    of one format holding the same sentences, one per annotator."""
    paths = [p for p in (_path(p) for p in (paths or [])) if p]
    if len(paths) < 2:
        raise ValueError("upload two or more annotation files of the same sentences, one per annotator")
    inputs = ner_files.read_pair(paths[0], paths[1])
    annotations = [inputs.references, inputs.predictions]
    for path in paths[2:]:
        annotations.append(ner_files.read_second_predictions(inputs, path).predictions)
    return inputs, annotations, [Path(p).name for p in paths]


def agreement_uploads(files, decoding=next(iter(DECODINGS)), suffix=False, resamples=0):
    """The Agreement tab's state: the files read and ``metric.agreement``'s results."""
    inputs, annotations, names = read_annotation_files(files)
    kind = "spans" if ner_report.is_spans(inputs) else "tags"
    scheme, mode = DECODINGS[decoding]
    options = dict(scheme=scheme, mode=mode, suffix=bool(suffix)) if kind == "tags" else {}
    config = "spans" if kind == "spans" else "default"
    results = metric(config).agreement(annotations, ci_resamples=int(resamples or 0), **options)
    return {
        "inputs": inputs,
        "annotations": annotations,
        "names": names,
        "kind": kind,
        "options": options,
        "agreement": results,
    }


def _with_interval(value, interval):
    text = f"{value:.4f}"
    return text + (f" [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else "")


def agreement_table_html(state):
    """Per pair of annotators F1 per MUC mode (with intervals), then kappa and alpha."""
    out, names = state["agreement"], state["names"]
    head = "<th>pair</th>" + "".join(f"<th>F1 {m}</th>" for m in MODES) + "<th>disagreements</th>"
    rows = []
    for pair, table in out["pairs"].items():
        i, j = map(int, pair.split("-"))
        cells = "".join(
            f'<td data-mode="{m}">{_with_interval(table[m], table.get("intervals", {}).get(m))}</td>'
            for m in MODES
        )
        rows.append(
            f'<tr data-pair="{pair}"><td>{html.escape(names[i])} / {html.escape(names[j])}</td>{cells}'
            f"<td>{len(table['disagreements'])}</td></tr>"
        )
    mean = "".join(f"<td>{out['f1'][m]:.4f}</td>" for m in MODES)
    rows.append(f"<tr><td><b>mean</b></td>{mean}<td></td></tr>")
    kappa, alpha = out["kappa"], out["alpha"]
    summary = (
        f'<p class="agreement-summary">{ {"cohen": "Cohen&#39;s", "fleiss": "Fleiss&#39;"}[kappa["method"]] } kappa over {kappa["tokens"]:,} tokens: '
        f'<b data-key="kappa">{_with_interval(kappa["value"], kappa.get("interval"))}</b>; Krippendorff\'s alpha '
        f'over {alpha["units"]:,} aligned units, strict <b data-key="alpha-strict">'
        f"{_with_interval(alpha['strict']['value'], alpha['strict'].get('interval'))}</b>, type "
        f'<b data-key="alpha-type">{_with_interval(alpha["type"]["value"], alpha["type"].get("interval"))}</b>.</p>'
    )
    return f'<table class="ner-slices agreement"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>{summary}'


def annotator_spans(state, k, i):
    """Annotator ``k``'s entities in sentence ``i`` as (label, start, end) tuples."""
    sentence = state["annotations"][k][i]
    if state["kind"] == "spans":
        return [(e["label"], e["start"], e["end"]) for e in sentence]
    decode = functools.partial(
        metric().decode, scheme=state["options"]["scheme"], suffix=state["options"]["suffix"]
    )
    return [tuple(s) for s in decode(sentence)]


def disagreements_html(state, pair=None):
    """The disagreements of one pair, each drawn in its sentence: one annotator above, the other below."""
    if not state:
        return ""
    pairs = state["agreement"]["pairs"]
    pair = pair if pair in pairs else next(iter(pairs))
    i, j = map(int, pair.split("-"))
    names = state["names"]
    listed = pairs[pair]["disagreements"]
    types = sorted({e[0] for d in listed for e in (d["a"], d["b"]) if e})
    colours = {t: PALETTE[k % len(PALETTE)] for k, t in enumerate(types)}
    cards = []
    for d in listed[:ERROR_PAGE]:
        s = d["sentence"]
        focus = {tuple(e) for e in (d["a"], d["b"]) if e}
        tokens = state["inputs"].tokens[s]
        head = (
            f'<div class="error-head"><span class="pill seg-{"incorrect" if d["kind"] == "incorrect" else d["kind"]}">'
            f"{d['kind']}</span> sentence {s + 1}</div>"
        )
        if isinstance(tokens, str):
            marks = " / ".join(
                f"{html.escape(names[k])} {html.escape(e[0])} <i>{html.escape(tokens[e[1] : e[2]])}</i>"
                for k, e in ((i, d["a"]), (j, d["b"]))
                if e
            )
            cards.append(f'<div class="error-card" data-kind="{d["kind"]}">{head}<p>{marks}</p></div>')
            continue
        start = min(e[1] for e in (d["a"], d["b"]) if e)
        end = max(e[2] for e in (d["a"], d["b"]) if e)
        window = (max(0, start - CONTEXT), min(len(tokens), end + CONTEXT))
        grid = sentence_grid_html(
            tokens,
            annotator_spans(state, i, s),
            annotator_spans(state, j, s),
            colours,
            focus=focus,
            window=window,
            sides=(f"#{i + 1}", f"#{j + 1}"),
        )
        cards.append(
            f'<div class="error-card" data-kind="{d["kind"]}" data-sentence="{s}">{head}{grid}</div>'
        )
    more = f", the first {ERROR_PAGE} shown" if len(listed) > ERROR_PAGE else ""
    return (
        f'<p class="error-count" data-count="{len(listed)}">{len(listed)} disagreement(s) between '
        f"<b>{html.escape(names[i])}</b> and <b>{html.escape(names[j])}</b>{more}; #{i + 1} above, "
        f"#{j + 1} below, the disagreeing entities outlined.</p>" + "".join(cards)
    )


def agreement_view(files, decoding, suffix, resamples):
    """The Agreement tab's outputs: error, results visibility, table, pair choice, disagreements, state."""
    try:
        state = agreement_uploads(files, decoding, suffix, resamples)
    except Exception as error:  # noqa: BLE001 -- shown in the page
        return (
            error_html(
                error,
                "Cannot compare these annotations",
                "Upload two or more files of one format, same sentences.",
            ),
            gr.Column(visible=False),
            "",
            gr.Dropdown(choices=[], value=None),
            "",
            None,
        )
    pairs = list(state["agreement"]["pairs"])
    return (
        "",
        gr.Column(visible=True),
        agreement_table_html(state),
        gr.Dropdown(choices=pairs, value=pairs[0]),
        disagreements_html(state, pairs[0]),
        state,
    )


def example_annotation_files():
    """Three annotators' CoNLL files of the Compare tab's examples: the gold, the system, and the
    gold with the system's errors on its first three sentences."""
    folder = _example_dir()
    cases = [case for name, case in EXAMPLES.items() if name != "All six scenarios in one text"]
    sides = {
        "annotator_1.conll": [c.gold for c in cases],
        "annotator_2.conll": [c.pred for c in cases],
        "annotator_3.conll": [c.pred for c in cases[:3]] + [c.gold for c in cases[3:]],
    }
    paths = []
    for name, tags in sides.items():
        text = "\n\n".join(
            "\n".join(f"{token} {tag}" for token, tag in zip(c.tokens, t)) for c, t in zip(cases, tags)
        )
        (folder / name).write_text(text + "\n", encoding="utf-8")
        paths.append(str(folder / name))
    return paths


def agreement_tab():
    gr.Markdown(
        "How far do annotators agree? Upload one file per annotator (CoNLL or JSONL, the same sentences): "
        "F1 of every pair in each MUC mode, Cohen's or Fleiss' kappa over tokens, Krippendorff's alpha over "
        "aligned entities, each with its interval, and every disagreement drawn in its sentence."
    )
    files = gr.File(label="Annotation files (two or more)", file_count="multiple", elem_id="agreement-files")
    with gr.Row(equal_height=True):
        decoding = gr.Dropdown(
            list(DECODINGS), value=next(iter(DECODINGS)), label="Decoding (scheme, mode)", scale=2
        )
        suffix = gr.Checkbox(False, label="suffix=True (tags like PER-B)", scale=1)
        resamples = gr.Slider(0, 2000, value=200, step=100, label="Bootstrap resamples (intervals)", scale=2)
        example = gr.Button("Example files", scale=1, elem_id="agreement-example")
        button = gr.Button("Score agreement", variant="primary", scale=1, elem_id="agreement-button")
    error = gr.HTML(elem_id="agreement-error")
    state = gr.State()
    with gr.Column(visible=False) as results:
        table = gr.HTML(elem_id="agreement-table")
        gr.Markdown("### Disagreements (adjudication)")
        pair = gr.Dropdown([], label="Pair of annotators", elem_id="agreement-pair")
        listing = gr.HTML(elem_id="agreement-disagreements")
    inputs = [files, decoding, suffix, resamples]
    outputs = [error, results, table, pair, listing, state]
    button.click(agreement_view, inputs, outputs)
    example.click(example_annotation_files, None, files).then(agreement_view, inputs, outputs)
    pair.input(disagreements_html, [state, pair], listing)


# ============================================================================ About tab


def scenario_table_html():
    """Batista's scenario table, each outcome computed by the metric on the scenario's example."""
    rows = []
    for name in BATISTA_EXAMPLES:
        case = EXAMPLES[name]
        results = metric().compute(predictions=[case.pred], references=[case.gold], errors=True)
        rows += [(name, case, pair, outcomes) for pair, outcomes in entity_pairs(results)]
    return pairs_table_html(rows, first_column="scenario")


ABOUT_MODES = """\
## What each mode counts

The metric matches every gold entity with at most one predicted entity (the ones that overlap),
once, and classifies each pair. The four modes of MUC / SemEval-2013 then only differ in what a
pair is worth:

- **strict**: a prediction is *correct* only with exactly the gold boundaries and the gold type.
  seqeval's precision and recall (the `overall_*` numbers) count the same way.
- **exact**: exactly the gold boundaries; the type does not matter.
- **partial**: exact boundaries are *correct*, overlapping ones *partial*, worth half; the type
  does not matter.
- **type**: the right type and boundaries that at least overlap.

A gold entity that no prediction overlaps is *missed*; a prediction that overlaps no gold entity
is *spurious*, in every mode. Then

- possible = correct + incorrect + partial + missed (the gold entities),
- actual = correct + incorrect + partial + spurious (the predicted entities),
- precision = (correct + ½ partial) / actual, recall = (correct + ½ partial) / possible,
  F1 their harmonic mean.

## The six scenarios

Computed by the metric on the Compare tab's examples I–VI, after David Batista's write-up
*Named-Entity evaluation metrics based on entity-level* (2018).
"""

ABOUT_REST = """\
When one prediction spans two gold entities, it is matched with one of them (the same type first,
then the larger overlap) and the other is missed: a prediction is never counted twice.

## Stratified recall

When gold entities were sampled per subgroup (say frequent, ambiguous and rare names), plain
recall weighs each subgroup by how many of its entities were sampled, not by how many it has.
The weighted estimate is Σ W<sub>p</sub> · recall<sub>p</sub>, W<sub>p</sub> being subgroup p's
share of the population, with a confidence interval: *wilson* (default) and *korn_graubard*
(conservative) at the design's effective sample size, a stratified percentile *bootstrap*, and
two Wald intervals (*weighted_wald* is the formula the EstNLTK benchmarks published).
"""


# ============================================================================ layout

CSS = """
.ner-scroll {overflow-x: auto; padding: .5rem 0;}
.ner-grid {display: grid; gap: 6px 4px; align-items: center; font-size: 15px;}
.ner-side {grid-column: 1; font-size: 12px; text-transform: uppercase; letter-spacing: .05em; opacity: .6;}
.ner-span {color: #fff; border-radius: 6px; padding: 2px 8px; font-size: 12px; font-weight: 700;
           text-align: center; white-space: nowrap;}
.ner-token {display: flex; flex-direction: column; align-items: center; padding: 4px 8px;
            border-radius: 6px; border: 1px solid var(--border-color-primary);}
.ner-token b {font-size: 16px; margin: 2px 0;}
.ner-tag {font-size: 11px; opacity: .65;}
.ner-differs {background: rgba(225, 87, 89, .14); border-color: rgba(225, 87, 89, .5);}
.ner-legend {font-size: 12px; opacity: .6; margin: 2px 0 0;}
.pairs-title {margin: 14px 0 2px; font-size: 14px;}
.mode-cards {display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px;}
.mode-card {border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 12px 14px;
            background: var(--background-fill-secondary);}
.mode-card h3 {margin: 0; font-size: 18px;}
.mode-card p {margin: 2px 0 10px; font-size: 12px; opacity: .7; min-height: 2.4em;}
.scores {display: flex; justify-content: space-between; margin-bottom: 10px;}
.score {display: flex; flex-direction: column; align-items: center;}
.score span {font-size: 22px; font-weight: 700; font-variant-numeric: tabular-nums;}
.score small {font-size: 11px; opacity: .65;}
.bars {display: grid; grid-template-columns: 2.6rem 1fr 1.4rem; gap: 4px; align-items: center;
       font-size: 11px; margin-bottom: 8px;}
.bar {display: flex; height: 12px; border-radius: 6px; overflow: hidden; background: var(--border-color-primary);}
.slice-bar {position: relative; display: inline-block; width: 120px; height: 10px; margin-right: 6px;
             vertical-align: middle; border-radius: 5px; background: var(--border-color-primary);}
.slice-bar i {position: absolute; left: 0; top: 0; bottom: 0; border-radius: 5px; background: #4e79a7;}
.slice-bar b {position: absolute; top: 4px; height: 2px; background: currentColor;}
.ner-slices {border-collapse: collapse; font-size: 13px; margin: 4px 0;}
.ner-slices th, .ner-slices td {padding: 4px 10px; text-align: left; white-space: nowrap;
                                border-bottom: 1px solid var(--border-color-primary);}
.ner-slices tr.worst td {background: rgba(225, 87, 89, .16); font-weight: 600;}
.seg-correct {background: #59a14f;} .seg-partial {background: #edc948;} .seg-incorrect {background: #f28e2b;}
.seg-missed {background: #9aa0a6;} .seg-spurious {background: #e15759;}
.seg-possible, .seg-actual {background: transparent; border: 1px solid currentColor;}
.counts {list-style: none; padding: 0; margin: 0; font-size: 13px; columns: 2;}
.counts li {display: flex; align-items: center; gap: 6px;}
.counts b {margin-left: auto; margin-right: 12px; font-variant-numeric: tabular-nums;}
.dot {width: 9px; height: 9px; border-radius: 50%; display: inline-block;}
.app-error {border: 1px solid #e15759; background: rgba(225, 87, 89, .10); border-radius: 10px;
            padding: 10px 14px;}
.app-error pre {white-space: pre-wrap; margin: 6px 0; font-size: 14px;}
.app-error p {margin: 0; font-size: 13px;}
.scenarios {border-collapse: collapse; border: none !important; font-size: 14px; margin: 4px 0 12px;}
.scenarios tr {border: none !important;}
.scenarios th, .scenarios td {padding: 6px 12px; border: none !important; text-align: left;
                              border-bottom: 1px solid var(--border-color-primary) !important;}
.pill {color: #fff; border-radius: 999px; padding: 2px 10px; font-size: 12px; font-weight: 600;}
.pill.seg-partial {color: #333;}
.headline {display: flex; gap: 18px; align-items: center; padding: 4px 0 8px;}
.plot-caption {font-size: 12px; opacity: .65; margin: 0 0 8px;}
.headline .big {font-size: 44px; font-weight: 800; color: #e15759; font-variant-numeric: tabular-nums;}
.ner-focus {outline: 3px solid currentColor; outline-offset: 1px;}
.files-headline .scores {justify-content: flex-start; gap: 36px;}
.interval {font-size: 12px; opacity: .75; font-variant-numeric: tabular-nums;}
.type-f1 + .legend, .legend {font-size: 12px; opacity: .8;}
.legend span {margin-right: 12px;} .legend i {display: inline-block; width: 10px; height: 10px; margin-right: 4px;}
.heatmap {border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums;}
.heatmap th, .heatmap td {padding: 5px 10px; border: 1px solid var(--border-color-primary); text-align: center;}
.error-card {border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 6px 10px; margin: 6px 0;}
.error-head {font-size: 13px;} .error-count {font-size: 13px;}
"""
THEME = gr.themes.Soft(
    primary_hue="indigo", font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"]
)


def compare_tab():
    gr.Markdown(
        "Type a sentence's tokens with its gold and predicted tags (space separated, or one "
        "per line), or pick an example; the four MUC modes then show how each scores it."
    )
    with gr.Row(equal_height=True):
        example = gr.Dropdown(
            list(EXAMPLES), value=FIRST_EXAMPLE, label="Example", scale=3, elem_id="example"
        )
        decoding = gr.Dropdown(
            list(DECODINGS), value=next(iter(DECODINGS)), label="Decoding (scheme, mode)", scale=2
        )
        suffix = gr.Checkbox(False, label="suffix=True (tags like PER-B)", scale=1)
    input_mode = gr.Radio(list(INPUT_MODES), value=INPUT_MODES[0], show_label=False, elem_id="input-mode")
    panel, text, gold_marks, pred_marks = annotate_panel()
    tokens, gold, pred = (
        gr.Textbox(value=v, label=label, lines=1, max_lines=12, elem_id=elem_id)
        for v, label, elem_id in zip(
            example_fields(FIRST_EXAMPLE),
            ("Tokens (optional)", "Gold tags (references)", "Predicted tags (predictions)"),
            ("tokens", "gold", "predicted"),
        )
    )
    button = gr.Button("Compare", variant="primary", elem_id="compare-button")
    error = gr.HTML(elem_id="compare-error")
    with gr.Column() as results:
        entities = gr.HTML(elem_id="entities")
        cards = gr.HTML(elem_id="mode-cards")
        per_type = gr.Dataframe(
            headers=PER_TYPE_HEADERS,
            label='Per type (results["muc"][mode]["per_type"])',
            elem_id="per-type",
            interactive=False,
        )
        seqeval = gr.Dataframe(
            headers=SEQEVAL_HEADERS, label="seqeval-compatible", elem_id="seqeval", interactive=False
        )
        with gr.Accordion("The same in Python", open=False):
            code = gr.Code(language="python")
    inputs = [tokens, gold, pred, decoding, suffix]
    outputs = [error, results, entities, cards, per_type, seqeval, code]
    example.input(example_fields, example, [tokens, gold, pred]).then(compare_view, inputs, outputs)
    button.click(compare_view, inputs, outputs)
    for option in (decoding, suffix):
        option.input(compare_view, inputs, outputs)
    input_mode.input(lambda choice: gr.Column(visible=choice == INPUT_MODES[1]), input_mode, panel).then(
        annotate_start, inputs, [text, gold_marks, pred_marks]
    )
    marks = [gold_marks, pred_marks]
    one_queue = dict(concurrency_id="annotate", concurrency_limit=1)  # marks scored in the order made
    text.submit(annotate_text, text, marks).then(annotate_marks, marks, [tokens, gold, pred, decoding]).then(
        compare_view, inputs, outputs, **one_queue
    )
    for side in marks:  # a mark made, changed or removed
        side.change(annotate_marks, marks, [tokens, gold, pred, decoding], **one_queue).then(
            compare_view, inputs, outputs, **one_queue
        )
    return inputs, outputs


def stratified_tab():
    first = next(iter(STRATIFIED_EXAMPLES))
    gr.Markdown(
        "Recall estimated from gold entities sampled per subgroup, each subgroup weighted by its "
        "size, with a confidence interval."
    )
    with gr.Row():
        with gr.Column(scale=2):
            example = gr.Dropdown(
                list(STRATIFIED_EXAMPLES), value=first, label="Example", elem_id="stratified-example"
            )
            entities = gr.File(label="Entities CSV", file_types=[".csv"], elem_id="entities-csv")
            sizes = gr.File(label="Subgroup sizes CSV (optional)", file_types=[".csv"], elem_id="sizes-csv")
            method = gr.Radio(list(CI_METHODS), value="wilson", label="Interval method", elem_id="ci-method")
            level = gr.Slider(0.5, 0.99, value=0.95, step=0.01, label="Confidence level", elem_id="level")
            recall_mode = gr.Radio(
                list(MODES), value="strict", label="Recall mode (tagged sentences)", elem_id="recall-mode"
            )
            button = gr.Button("Estimate recall", variant="primary", elem_id="estimate-button")
            with gr.Accordion("CSV formats", open=False):
                gr.Markdown(CSV_HELP)
        with gr.Column(scale=3):
            error = gr.HTML(elem_id="stratified-error")
            with gr.Column() as results:
                headline = gr.HTML(elem_id="headline")
                plot = gr.HTML(elem_id="recall-plot")
                table = gr.Dataframe(
                    headers=STRATA_HEADERS,
                    label='results["stratified_recall"]["strata"]',
                    elem_id="strata",
                    interactive=False,
                )
    inputs = [entities, sizes, method, level, recall_mode]
    outputs = [error, results, headline, plot, table]
    example.input(stratified_example_view, [example, *inputs[2:]], [entities, sizes, *outputs])
    button.click(stratified_view, inputs, outputs)
    for event in (method.input, recall_mode.input, level.release):
        event(stratified_view, inputs, outputs)
    return example, inputs, outputs


def example_conll_files():
    """(gold, predictions, second predictions) CoNLL files of the Compare tab's examples, one
    sentence each; the second system is the first with its errors on the last three sentences fixed."""
    folder = _example_dir()
    cases = [case for name, case in EXAMPLES.items() if name != "All six scenarios in one text"]
    fixed = len(cases) - 3
    sides = {
        "gold.conll": [c.gold for c in cases],
        "system_a.conll": [c.pred for c in cases],
        "system_b.conll": [c.pred for c in cases[:fixed]] + [c.gold for c in cases[fixed:]],
    }
    paths = []
    for name, tags in sides.items():
        text = (
            "-DOCSTART- O\n\n"
            + "\n\n".join(
                "\n".join(f"{token} {tag}" for token, tag in zip(c.tokens, t)) for c, t in zip(cases, tags)
            )
            + "\n"
        )
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(str(folder / name))
    return tuple(paths)


def files_tab():
    gr.Markdown(
        "Score a whole test set: upload the gold file and a system's predictions (CoNLL, one file "
        "with two tag columns, or JSONL spans); add a second system to compare the two."
    )
    with gr.Row():
        gold = gr.File(label="Gold (references)", elem_id="gold-file")
        pred = gr.File(label="Predictions (empty: the gold file has two tag columns)", elem_id="pred-file")
        pred_b = gr.File(label="Second system's predictions (optional)", elem_id="pred-b-file")
        slices = gr.File(
            label="Slices (optional): one value per line, one line per sentence", elem_id="slices-file"
        )
    with gr.Row(equal_height=True):
        file_format = gr.Dropdown(
            list(FILE_FORMATS), value=AUTO_FORMAT, label="File format", elem_id="files-format", scale=1
        )
        decoding = gr.Dropdown(
            list(DECODINGS),
            value=next(iter(DECODINGS)),
            label="Decoding (scheme, mode)",
            elem_id="files-decoding",
            scale=2,
        )
        suffix = gr.Checkbox(False, label="suffix=True (tags like PER-B)", scale=1)
        resamples = gr.Slider(
            0,
            2000,
            value=200,
            step=100,
            label="Bootstrap resamples (intervals)",
            scale=2,
            elem_id="resamples",
        )
        example = gr.Button("Example files", scale=1, elem_id="files-example")
        button = gr.Button("Score files", variant="primary", scale=1, elem_id="files-button")
    with gr.Accordion("File formats", open=False):
        gr.Markdown(FILES_HELP)
    error = gr.HTML(elem_id="files-error")
    state = gr.State()
    with gr.Column(visible=False) as results:
        headline = gr.HTML(elem_id="files-headline")
        cards = gr.HTML(elem_id="files-cards")
        with gr.Column(visible=False) as two_systems:
            gr.Markdown("### Two systems (B - A)")
            comparison = gr.Dataframe(elem_id="files-comparison", interactive=False)
        with gr.Row():
            with gr.Column():
                gr.Markdown("### F1 per type, each MUC mode")
                plot = gr.HTML(elem_id="type-f1")
            with gr.Column():
                gr.Markdown("### Type confusion")
                heatmap = gr.HTML(elem_id="heatmap")
        with gr.Row():
            with gr.Column():
                gr.Markdown("### Per slice")
                slices_table = gr.HTML(elem_id="files-slices")
            with gr.Column():
                gr.Markdown("### Per entity bucket (strict F1)")
                bucket_charts = gr.HTML(elem_id="files-buckets")
        ranking = gr.HTML(elem_id="files-ranking")
        gr.Markdown("### Error browser")
        with gr.Row():
            mode = gr.Radio(list(MODES), value="strict", label="Mode", elem_id="browse-mode")
            outcome = gr.Dropdown(
                [NOT_CORRECT, *OUTCOMES], value=NOT_CORRECT, label="Outcome", elem_id="browse-outcome"
            )
            type_name = gr.Dropdown(
                [ALL_TYPES], value=ALL_TYPES, label="Type (gold or predicted)", elem_id="browse-type"
            )
        with gr.Row():
            previous = gr.Button("Previous page", size="sm", elem_id="browse-previous")
            page = gr.Number(value=1, precision=0, minimum=1, label="Page", elem_id="browse-page")
            following = gr.Button("Next page", size="sm", elem_id="browse-next")
        browser = gr.HTML(elem_id="error-browser")
        download = gr.File(label="Full results (JSON)", elem_id="results-json")
    inputs = [gold, pred, pred_b, decoding, suffix, resamples, slices, file_format]
    outputs = [
        error,
        results,
        headline,
        cards,
        plot,
        heatmap,
        mode,
        outcome,
        type_name,
        browser,
        download,
        two_systems,
        comparison,
        slices_table,
        bucket_charts,
        ranking,
        state,
    ]
    button.click(files_stream, inputs, outputs).then(lambda: 1, None, page)
    example.click(example_conll_files, None, [gold, pred, pred_b]).then(files_stream, inputs, outputs).then(
        lambda: 1, None, page
    )
    filters = [state, mode, outcome, type_name]
    for control in (mode, outcome, type_name):  # a new filter starts at its first page
        control.input(lambda *f: (1, errors_html(*f)), filters, [page, browser])
    page.submit(errors_html, [*filters, page], browser)
    for button_, step in ((previous, -1), (following, 1)):
        button_.click(functools.partial(turn_page, step=step), [*filters, page], [page, browser])


def build_demo():
    with gr.Blocks(title="NER recall metric") as demo:
        gr.Markdown(
            "# NER recall metric\nEntity-level scores four ways (MUC / SemEval-2013 modes and "
            "seqeval's), and recall estimated over subgroups, from one `evaluate` metric."
        )
        with gr.Tabs():
            with gr.Tab("Compare", id="compare"):
                compare_inputs, compare_outputs = compare_tab()
            with gr.Tab("Files", id="files"):
                files_tab()
            with gr.Tab("Agreement", id="agreement"):
                agreement_tab()
            with gr.Tab("Stratified recall", id="stratified"):
                example, strat_inputs, strat_outputs = stratified_tab()
            with gr.Tab("About", id="about"):
                gr.Markdown(ABOUT_MODES)
                gr.HTML(scenario_table_html(), elem_id="scenario-table")
                gr.Markdown(ABOUT_REST)
        demo.load(compare_view, compare_inputs, compare_outputs)
        demo.load(stratified_example_view, [example, *strat_inputs[2:]], [*strat_inputs[:2], *strat_outputs])
    return demo


demo = build_demo()

if __name__ == "__main__":
    demo.launch(share=False, css=CSS, theme=THEME)
