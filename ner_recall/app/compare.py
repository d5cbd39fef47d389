"""The Compare tab: one sentence, typed as tags or marked by selecting text, and what each MUC mode
makes of each entity pair; the per-type table with gold-side and predicted-side counts apart."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import gradio as gr

from ner_recall.app.common import (
    LENIENT,
    SCORE_KEYS,
    VOCAB,
    decodings,
    entity_pairs,
    error_html,
    failed_heading,
    fmt,
    metric,
    mode_cards_html,
    pairs_table_html,
    sentence_grid_html,
    type_colours,
)
from ner_recall.app.examples import EXAMPLES, FIRST_EXAMPLE, Case, example_fields

#: the Example menu's entry once the user types a sentence of their own
OWN_SENTENCE = "(your own sentence)"


def split_items(text: str | None) -> list[str]:
    """Tokens or tags typed one per line, or separated by spaces on one line."""
    text = (text or "").strip()
    if "\n" in text:
        return [line.strip() for line in text.splitlines() if line.strip()]
    return text.split()


def score_sentence(
    tokens_text: str, gold_text: str, pred_text: str, decoding: str = LENIENT, suffix: bool = False
) -> tuple[Case, dict, dict]:
    """(case, options, results) of one sentence; ValueError with the metric's message if it refuses."""
    case = Case(split_items(tokens_text), split_items(gold_text), split_items(pred_text))
    if not case.gold and not case.pred:
        raise ValueError("no tags: type the gold and predicted tags, or pick an example")
    scheme, mode = decodings()[decoding]
    options = dict(scheme=scheme, mode=mode, suffix=bool(suffix), errors=True)
    results = metric().compute(predictions=[case.pred], references=[case.gold], **options)
    # checked after the metric, so that its own message comes first when the tags are wrong too
    if case.tokens and len(case.tokens) != len(case.gold):
        raise ValueError(
            f"{len(case.tokens)} tokens but {len(case.gold)} gold tags: give one tag per "
            "token, or leave the tokens empty"
        )
    return case, options, results


def entities_html(case: Case, options: dict, results: dict) -> str:
    """The sentence with its entities on both sides, then what each mode makes of each pair."""
    decode = lambda tags: metric().decode(tags, scheme=options["scheme"], suffix=options["suffix"])
    tokens = case.tokens or [f"#{i}" for i in range(len(case.gold))]
    grid = sentence_grid_html(
        tokens, decode(case.gold), decode(case.pred), type_colours(results), tags=(case.gold, case.pred)
    )
    rows = [(None, case.tokens, pair, outcomes) for pair, outcomes in entity_pairs(results)]
    pairs = pairs_table_html(rows)
    return (
        f'{grid}<p class="ner-legend">Tag pairs that differ are shaded; one colour per entity type.</p>'
        f'<h4 class="pairs-title">What each mode makes of each entity</h4>{pairs}'
    )


#: the per-type table: a type's gold entities (their outcomes and recall), then the predictions of
#: that type (their count, the spurious ones and precision): a pair of two types counts on the gold
#: side for the gold type and on the predicted side for the predicted type, so the two sides apart
GOLD_SIDE = ("correct", "incorrect", "partial", "missed", "possible", "recall")
PREDICTED_SIDE = ("actual", "spurious", "precision")
PER_TYPE_HEADERS = [
    "type",
    "mode",
    *(f"gold {k}" for k in GOLD_SIDE),
    *(f"predicted {k}" for k in PREDICTED_SIDE),
    "f1",
]

#: the share of the table's width of each column: the type, the mode, nine counts and scores, F1
PER_TYPE_WIDTHS: list[str | int] = ["10%", "7%", *["8.5%"] * (len(GOLD_SIDE) + len(PREDICTED_SIDE)), "6.5%"]


def per_type_mode_rows(results: dict) -> list[list]:
    """One row per entity type and mode of ``results["muc"][mode]["per_type"]``: the gold side's
    counts and recall, the predicted side's counts and precision, then F1."""
    rows = []
    for name in sorted(results["muc"]["strict"]["per_type"]):
        for mode in VOCAB.MODES:
            m = results["muc"][mode]["per_type"][name]
            cells = [m[k] if isinstance(m[k], int) else round(m[k], 4) for k in (*GOLD_SIDE, *PREDICTED_SIDE)]
            rows.append([name, mode, *cells, round(m["f1"], 4)])
    return rows


SEQEVAL_HEADERS = ["key", "precision", "recall", "f1", "number"]


def seqeval_rows(results: dict) -> list[list]:
    """seqeval's keys: one row per type, then the micro (overall_*), macro and weighted averages."""
    types = sorted(k for k, v in results.items() if isinstance(v, dict) and "number" in v)
    rows = [[t, *(round(results[t][k], 4) for k in SCORE_KEYS), results[t]["number"]] for t in types]
    total = sum(results[t]["number"] for t in types)
    rows += [
        [avg, *(round(results[f"{avg}_{k}"], 4) for k in SCORE_KEYS), total]
        for avg in ("overall", "macro", "weighted")
    ]
    return rows


def python_snippet(case: Case, options: dict) -> str:
    extra = "".join(f", {k}={v!r}" for k, v in options.items() if v not in (None, False))
    return (
        'import evaluate\n\nmetric = evaluate.load("ner_recall_metric.py")\n'
        f"results = metric.compute(\n    predictions=[{case.pred!r}],\n"
        f"    references=[{case.gold!r}]{extra},\n)\n"
        'results["muc"]["partial"]["recall"], results["overall_f1"]'
    )


#: the metric's sides as the tag boxes are named in error headings
TAG_BOXES = {"references": "gold tags", "predictions": "predicted tags"}
COMPARE_HINT = (
    "In the message, <code>references</code> is the gold-tags box and <code>predictions</code> "
    "the predicted-tags box."
)


def example_named(name: str | None, tokens_text: str, gold_text: str, pred_text: str) -> str:
    """The Example menu's entry for the tag boxes: the example picked while the boxes hold it,
    else "(your own sentence)" (marks of one's own are no longer the example)."""
    if name in EXAMPLES and (tokens_text, gold_text, pred_text) == example_fields(name):
        return name
    return OWN_SENTENCE


def example_boxes(name: str) -> tuple:
    """The three text boxes of the example picked; left as they are on "your own sentence"."""
    return example_fields(name) if name in EXAMPLES else (gr.skip(), gr.skip(), gr.skip())


#: the outputs of compare_view, in order
COMPARE_OUTPUTS = ("error", "results", "entities", "cards", "per type", "seqeval", "code")


def compare_view(tokens_text: str, gold_text: str, pred_text: str, decoding: str, suffix: bool) -> tuple:
    """All outputs of the Compare tab: error, results visibility, entities, cards, tables, code."""
    try:
        case, options, results = score_sentence(tokens_text, gold_text, pred_text, decoding, suffix)
    except Exception as error:  # noqa: BLE001 -- shown in the page, never as a stack trace
        hint = COMPARE_HINT if "references" in str(error) or "predictions" in str(error) else ""
        heading = failed_heading(
            error, "The metric refused this input", TAG_BOXES, "The metric refused the {}"
        )
        return (
            error_html(error, heading, hint),
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
#: the decoding of the Annotate mode: its marks are written as IOB2 tags
ANNOTATE_DECODING = "IOB2 strict"
ANNOTATE_NOTE = (
    "Annotate mode: the marks are written as IOB2 tags and decoded as IOB2 strict; "
    "choose Type tags to pick another decoding."
)


def _chunk(item: Any) -> tuple[str, Any]:
    """(text, label or None) of a HighlightedText chunk, given as a pair or as a dict."""
    if isinstance(item, dict):
        return item.get("token", ""), item.get("class_or_confidence")
    return item[0], item[1]


def marks_to_tags(chunks: Sequence | None) -> tuple[list[str], list[str]]:
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


def tags_to_marks(tokens: list[str], tags: list[str], decoding: str, suffix: bool) -> list[tuple]:
    """The HighlightedText value of a tagged sentence: tokens joined by spaces, entities labelled."""
    scheme, _ = decodings()[decoding]
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


def annotate_start(tokens_text: str, gold_text: str, pred_text: str, decoding: str, suffix: bool) -> tuple:
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


def annotate_text(text: str) -> tuple[list, list]:
    """Both sides unmarked: a new sentence to annotate."""
    return [(text, None)], [(text, None)]


def annotate_marks(gold_marks: Sequence | None, pred_marks: Sequence | None) -> tuple[str, str, str, str]:
    """The tag boxes (tokens, gold, predicted) from both sides' marks, in IOB2."""
    tokens, gold = marks_to_tags(gold_marks)
    pred_tokens, pred = marks_to_tags(pred_marks)
    if pred_tokens != tokens:  # the text differs: score the predictions as unmarked
        pred = ["O"] * len(tokens)
    return " ".join(tokens), " ".join(gold), " ".join(pred), ANNOTATE_DECODING


def annotate_view(gold_marks: Sequence | None, pred_marks: Sequence | None, suffix: bool) -> tuple:
    """The tag boxes from both sides' marks and the Compare tab's outputs scored from them, in one
    step: the scores never read tag boxes the page has not updated yet."""
    boxes = annotate_marks(gold_marks, pred_marks)
    return (*boxes, *compare_view(*boxes, suffix))


def decoding_menu(annotating: bool) -> gr.Dropdown:
    """The decoding menu: while marks make the tags, IOB2 strict, locked, with a note saying why;
    free again when tags are typed."""
    if annotating:
        return gr.Dropdown(value=ANNOTATE_DECODING, interactive=False, info=ANNOTATE_NOTE)
    return gr.Dropdown(interactive=True, info="")


def input_mode_view(
    choice: str, gold_marks: Sequence | None, pred_marks: Sequence | None, suffix: bool
) -> tuple:
    """The Compare tab on a change of input mode: entering the Annotate mode scores the marks as
    IOB2 strict at once (the menu says so); typing tags frees the decoding menu, nothing rescored."""
    if choice != INPUT_MODES[1]:
        return decoding_menu(False), *(gr.skip() for _ in range(3 + len(COMPARE_OUTPUTS)))
    tokens, gold, pred, _, *shown = annotate_view(gold_marks, pred_marks, suffix)
    return decoding_menu(True), tokens, gold, pred, *shown


def annotate_panel() -> tuple:
    """The Annotate mode's components (hidden until chosen): sentence, gold marks, predicted marks."""
    with gr.Column(visible=False) as panel:
        gr.Markdown(
            "Select a word or a phrase, type its entity type and press Enter; click a mark to "
            "change or remove it. The tag boxes below follow in IOB2 and the modes update, decoded "
            "as **IOB2 strict** (the Decoding menu above is set to it while you annotate).",
            elem_id="annotate-note",
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


def compare_tab() -> tuple[list, list]:
    gr.Markdown(
        "Type a sentence's tokens with its gold and predicted tags (space separated, or one "
        "per line), or pick an example; the four MUC modes then show how each scores it."
    )
    with gr.Row(equal_height=True):
        example = gr.Dropdown(
            [*EXAMPLES, OWN_SENTENCE], value=FIRST_EXAMPLE, label="Example", scale=3, elem_id="example"
        )
        decoding = gr.Dropdown(
            list(decodings()), value=LENIENT, label="Decoding (scheme, mode)", scale=2, elem_id="decoding"
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
            wrap=True,  # heads and long type names on two lines: all twelve columns in the page
            column_widths=PER_TYPE_WIDTHS,
        )
        seqeval = gr.Dataframe(
            headers=SEQEVAL_HEADERS, label="seqeval-compatible", elem_id="seqeval", interactive=False
        )
        with gr.Accordion("The same in Python", open=False):
            code = gr.Code(language="python")
    inputs = [tokens, gold, pred, decoding, suffix]
    outputs = [error, results, entities, cards, per_type, seqeval, code]
    example.input(example_boxes, example, [tokens, gold, pred]).then(compare_view, inputs, outputs)
    for box in (tokens, gold, pred):  # typed by the user: no longer the example it started from
        box.input(lambda: OWN_SENTENCE, None, example)
    button.click(compare_view, inputs, outputs)
    for option in (decoding, suffix):
        option.input(compare_view, inputs, outputs)
    marks = [gold_marks, pred_marks]
    one_queue = dict(concurrency_id="annotate", concurrency_limit=1)  # marks scored in the order made
    boxes_and_outputs = [tokens, gold, pred, decoding, *outputs]
    chosen = input_mode.input(lambda choice: gr.Column(visible=choice == INPUT_MODES[1]), input_mode, panel)
    boxes = [tokens, gold, pred]
    chosen.then(annotate_start, inputs, [text, *marks]).then(  # the marks read in the decoding chosen so far
        input_mode_view, [input_mode, *marks, suffix], [decoding, *boxes, *outputs], **one_queue
    ).then(example_named, [example, *boxes], example)
    text.input(lambda: OWN_SENTENCE, None, example)
    text.submit(annotate_text, text, marks).then(
        annotate_view, [*marks, suffix], boxes_and_outputs, **one_queue
    )
    for side in marks:  # a mark made, changed or removed: the example's name only while the boxes hold it
        side.change(annotate_view, [*marks, suffix], boxes_and_outputs, **one_queue).then(
            example_named, [example, *boxes], example
        )
    return inputs, outputs
