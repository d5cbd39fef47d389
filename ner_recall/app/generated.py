"""The Generated tab: a language model's raw output read, each item's outcome drawn on the
document's text (placed spans highlighted by type; hallucinated, duplicate, off-schema and
unparseable items listed with their reason), and with a gold the matching ladder's scores.

A model's output is hostile input: every value reaches HTML through ``esc`` / ``attrs``. The
outcomes come from ``metric.generated_outcomes`` and the scores from ``compute`` of the metric's
"generated" config (``evaluate.load(path, "generated")``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import gradio as gr

from ner_recall.app.common import (
    InputFailed,
    colours_of,
    error_html,
    esc,
    failed_heading,
    fmt,
    metric,
    signature_html,
    simple_table,
)
from ner_recall.generated.matching import LEVELS

#: the output-format choice that lets the metric tell the dialect
AUTO = "auto"
#: the matching levels of the ladder shown with a gold

FENCE = "`" * 3
EXAMPLE_TEXT = "Paris Hilton flew to Paris on Monday. Then John met Paris Hilton in Rome."
EXAMPLE_OUTPUT = (
    "Sure! Here are the named entities I found in the text:\n\n"
    f"{FENCE}json\n"
    '[{"text": "Paris Hilton", "type": "PER"}, {"text": "Paris", "type": "LOC"},\n'
    ' {"text": "John", "type": "PER"}, {"text": "paris  hilton", "type": "PER"},\n'
    ' {"text": "Rome", "type": "LOC"}, {"text": "Rome", "type": "LOC"},\n'
    ' {"text": "Monday", "type": "DATE"}, {"text": "Berlin", "type": "LOC"}]\n'
    f"{FENCE}\n\nLet me know if you need anything else!"
)
EXAMPLE_GOLD = json.dumps(
    [
        {"label": "PER", "start": 0, "end": 12},
        {"label": "LOC", "start": 21, "end": 26},
        {"label": "PER", "start": 43, "end": 47},
        {"label": "PER", "start": 52, "end": 64},
        {"label": "LOC", "start": 68, "end": 72},
    ]
)


def output_formats() -> list[str]:
    """The output-format choices: "auto", then the metric's dialects."""
    return [AUTO, *metric("generated").DIALECTS]


#: the gold box as error headings name it ("Cannot read the gold entities")
GOLD_BOX = "gold entities"


def parse_gold(gold: str | None) -> list[dict] | None:
    """The gold box as a list of entities, or None when it is empty; ValueError naming the box."""
    if gold is None or not gold.strip():
        return None
    try:
        entities = json.loads(gold)
    except json.JSONDecodeError as error:
        raise InputFailed(f"gold entities: not JSON ({error})", GOLD_BOX) from None
    if not isinstance(entities, list):
        raise InputFailed(
            f'gold entities: a JSON list of {{"label", "start", "end"}} is needed, got {type(entities).__name__}',
            GOLD_BOX,
        )
    return entities


def parse_types(types: str | None) -> list[str] | None:
    """The types box (comma separated) as a list, or None when it is empty."""
    names = [t.strip() for t in (types or "").split(",") if t.strip()]
    return names or None


def marked_text_html(text: str, spans: Sequence[tuple[str, int, int]], colours: dict[str, str]) -> str:
    """``text`` with each (label, start, end) span highlighted in its type's colour and its label
    after it; overlapping spans split the text at every boundary (a piece names all its spans)."""
    cuts = sorted({0, len(text), *(p for _, s, e in spans for p in (s, e))})
    by_start = sorted(range(len(spans)), key=lambda i: spans[i][1])
    active: list[int] = []  # the spans covering the piece: started at or before it, ending after
    pieces, k = [], 0
    for left, right in zip(cuts, cuts[1:]):
        while k < len(by_start) and spans[by_start[k]][1] <= left:
            active.append(by_start[k])
            k += 1
        active = [i for i in active if spans[i][2] > left]
        over = [spans[i] for i in sorted(active)]
        piece = esc(text[left:right])
        if over:
            label = over[-1][0]
            ending = "".join(f"<sup>{esc(s[0])}</sup>" for s in over if s[2] == right)
            title = ", ".join(s[0] for s in over)
            style = f"background:{colours.get(label, '#888')}"
            piece = f'<mark style="{esc(style)}" title="{esc(title)}">{piece}{ending}</mark>'
        pieces.append(piece)
    return f'<div class="gen-text">{"".join(pieces)}</div>'


def items_table_html(listing: Sequence[dict]) -> str:
    """Every item of the output: its number, outcome, type, string, places and reason."""
    rows = [
        [
            "whole output" if o["item"] is None else o["item"],
            o["outcome"],
            o["label"] if o["label"] is not None else "–",
            o["text"] if o["text"] is not None else "–",
            " ".join(f"{s}–{e}" for s, e in o["places"]) or "–",
            o["detail"] or "",
        ]
        for o in listing
    ]
    return simple_table(["item", "outcome", "type", "string", "places", "reason"], rows, "generated-items")


def counts_html(listing: Sequence[dict]) -> str:
    """How many items fall in each outcome (the metric's outcomes, in its order)."""
    outcomes = metric("generated").ITEM_OUTCOMES
    counts = {o: sum(1 for item in listing if item["outcome"] == o) for o in outcomes}
    cells = "".join(f'<li data-outcome="{esc(o)}">{esc(o)} <b>{n}</b></li>' for o, n in counts.items())
    return f'<ul class="counts gen-counts">{cells}<li>items <b>{len(listing)}</b></li></ul>'


def ladder_html(results: dict) -> str:
    """The ladder's levels side by side (precision, recall, F1, outcome counts), each level's gain
    over the one before, and the result's signature."""
    outcomes = metric("generated").ITEM_OUTCOMES
    head = ["level", "precision", "recall", "F1", *outcomes]
    rows = [
        [
            level,
            v["overall_precision"],
            v["overall_recall"],
            v["overall_f1"],
            *(v["counts"][o] for o in outcomes),
        ]
        for level, v in results["ladder"].items()
    ]
    gains = [
        [
            f"{g['from']} → {g['to']}",
            g["score"],
            f"{g['difference']:+.4f}",
            f"[{fmt(g['low'])}, {fmt(g['high'])}]",
        ]
        for g in results["ladder_gains"]
    ]
    return (
        "<h4>Matching ladder</h4>"
        + simple_table(head, rows, "ladder")
        + "<h4>Gains</h4>"
        + simple_table(["step", "score", "difference", "interval"], gains, "ladder-gains")
        + signature_html(results)
    )


def generated_view(
    text: str,
    output: str,
    output_format: str = AUTO,
    gold: str | None = "",
    types: str | None = "",
    matching: str = LEVELS[0],
) -> tuple[str, str, str, str]:
    """The tab's outputs: error box, the text with the items placed at the ``matching`` level (and
    the gold) marked, the items listing with counts, the ladder (with a gold). Bad input shows the
    metric's message."""
    try:
        given = (parse_gold(gold), parse_types(types), matching or LEVELS[0])
        return _view(text or "", output or "", output_format or AUTO, *given)
    except Exception as error:  # noqa: BLE001 -- shown in the page
        heading = failed_heading(error, "Cannot read this output", {"references": GOLD_BOX})
        return error_html(error, heading), "", "", ""


def _view(
    text: str, output: str, output_format: str, gold: list | None, types: list | None, matching: str
) -> tuple:
    m = metric("generated")
    results = None
    if gold is not None:  # scored first: the metric checks the gold before it is drawn
        options = {"types": types} if types else {}
        results = m.compute(
            predictions=[output],
            references=[gold],
            texts=[text],
            output_format=output_format,
            matching=list(LEVELS),
            **options,
        )
        types = types or sorted({g["label"] for g in gold})  # the schema compute judged by
    listing = m.generated_outcomes(
        predictions=[output], texts=[text], types=types, output_format=output_format, matching=matching
    )[0]
    placed = [(o["label"], s, e) for o in listing if o["outcome"] == "placed" for s, e in o["places"]]
    gold_spans = [(g["label"], g["start"], g["end"]) for g in gold or []]
    colours = colours_of({s[0] for s in placed + gold_spans})
    drawn = "<h4>The model's entities on the text</h4>" + marked_text_html(text, placed, colours)
    ladder = ""
    if results is not None:
        drawn += "<h4>The gold on the text</h4>" + marked_text_html(text, gold_spans, colours)
        ladder = ladder_html(results)
    return "", drawn, counts_html(listing) + items_table_html(listing), ladder


def example_fields() -> tuple[str, str, str, str, str, str]:
    """The example: a text, a chatty model output with a fenced JSON list (a name in lower case
    with a double space: placed from the normalized level on), its gold, auto, no types, exact."""
    return EXAMPLE_TEXT, EXAMPLE_OUTPUT, AUTO, EXAMPLE_GOLD, "", LEVELS[0]


def generated_tab() -> None:
    gr.Markdown(
        "Paste a document's text and a language model's raw output (a JSON list or object, "
        "`type: entity` lines, inline tags, GNER's `word(B-PER)`, UniNER's answers, GoLLIE's "
        "objects; chatter and code fences allowed), and optionally the gold entities as JSON "
        '(`[{"label": "PER", "start": 0, "end": 12}]`, character offsets, end exclusive).'
    )
    with gr.Row():
        text = gr.Textbox(label="Document text", lines=6, elem_id="gen-text")
        output = gr.Textbox(label="Model output (raw)", lines=6, elem_id="gen-output")
    with gr.Row(equal_height=True):
        gold = gr.Textbox(label="Gold entities (JSON, optional)", lines=2, elem_id="gen-gold", scale=3)
        types = gr.Textbox(label="Types (comma separated; empty: the gold's)", elem_id="gen-types", scale=1)
        output_format = gr.Dropdown(
            output_formats(), value=AUTO, label="Output format", elem_id="gen-format", scale=1
        )
        matching = gr.Dropdown(
            list(LEVELS), value=LEVELS[0], label="Matching (the text view)", elem_id="gen-matching", scale=1
        )
        example = gr.Button("Example", scale=1, elem_id="gen-example")
        button = gr.Button("Read output", variant="primary", scale=1, elem_id="gen-button")
    error = gr.HTML(elem_id="gen-error")
    drawn = gr.HTML(elem_id="gen-drawn")
    items = gr.HTML(elem_id="gen-items")
    ladder = gr.HTML(elem_id="gen-ladder")
    inputs = [text, output, output_format, gold, types, matching]
    outputs = [error, drawn, items, ladder]
    button.click(generated_view, inputs, outputs)
    example.click(example_fields, None, inputs).then(generated_view, inputs, outputs)
