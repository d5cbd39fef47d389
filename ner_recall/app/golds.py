"""The Files tab's two golds: what a second gold file changes in the first
(``metric.gold_differences``): the exact-match scores of one against the other, the counts by kind
and type pair, and each change in its sentence, paged as the error browser is.

Both files are read by ``metric.read_systems`` (the second in the predictions' place, so on the
first's sentences); every value reaches HTML through ``esc`` / ``attrs``.
"""

from __future__ import annotations

import functools
from typing import Any

import gradio as gr

from ner_recall.app.common import (
    ERROR_PAGE,
    colours_of,
    decodings,
    error_html,
    esc,
    failed_heading,
    fmt,
    metric,
    simple_table,
)
from ner_recall.app.generated import marked_text_html
from ner_recall.app.uploads import Upload, gather, scrubbed

GOLDS_HINT = (
    "Both golds must hold the same sentences and tokens here; golds of different tokenizations are "
    "aligned on their characters by <code>metric.gold_differences</code> in Python (docs/golds.md)."
)
#: the Files tab's "tell the format by name and content" choice
AUTO_FORMAT = "by name and content"


def read_golds(gold: Any, gold_b: Any, decoding: str, suffix: bool, file_format: str | None) -> dict:
    """The state of the two-golds view: the differences, the file names and where each sentence
    starts in the first file. ValueError naming the slot or the file."""
    uploads: list[Upload | None] = []
    try:
        uploads = [gather(gold, "gold"), gather(gold_b, "second gold")]
        first, second = uploads
        if first is None or second is None:
            raise ValueError("two golds: upload the gold file and the second gold file")
        chosen = None if file_format in (None, AUTO_FORMAT) else file_format
        inputs = metric().read_systems(first.path, second.path, file_format=chosen)[0]
        if inputs.is_spans():
            raise ValueError("two golds: these files hold entity spans; the gold comparison reads tags")
        scheme, mode = decodings()[decoding]
        options = {k: v for k, v in (("scheme", scheme), ("mode", mode)) if v is not None}
        differences = metric().gold_differences(
            {"tokens": inputs.tokens, "tags": inputs.references},
            {"tokens": inputs.tokens, "tags": inputs.predictions},
            suffix=bool(suffix),
            **options,
        )
        lines = [first.scrub(inputs.where("references", i)) for i in range(len(inputs.tokens))]
        return {"differences": differences, "names": (first.name, second.name), "lines": lines}
    except ValueError as error:
        raise scrubbed(error, uploads) from None


def _marked(sentence: str, span: list | None, colours: dict[str, str]) -> str:
    """The unit's words with ``span`` ([type, start, end] over its characters, whitespace left out)
    marked; the words alone when the side has nothing there."""
    if span is None:
        return marked_text_html(sentence, [], colours)
    at = [i for i, c in enumerate(sentence) if not c.isspace()]  # character n -> its place in the words
    label, start, end = span
    return marked_text_html(sentence, [(label, at[start], at[end - 1] + 1)], colours)


def change_html(state: dict, change: dict, colours: dict[str, str]) -> str:
    """One change: its kind and type pair, where it is, and the sentence under each gold."""
    unit = change["unit"]
    lines = state["lines"]
    where = lines[unit] if state["differences"]["alignment"]["units"] == len(lines) else f"unit {unit}"
    names = state["names"]
    sides = "".join(
        f'<div class="gold-side"><small>{esc(name)}</small>{_marked(change["sentence"], change[side], colours)}</div>'
        for name, side in zip(names, ("a", "b"))
    )
    return (
        f'<div class="error-card gold-change" data-kind="{esc(change["kind"])}">'
        f"<b>{esc(change['kind'])}</b> {esc(change['pair'])} <small>({esc(where)})</small>{sides}</div>"
    )


def summary_html(state: dict) -> str:
    """Scores of the second gold against the first, entities per side, counts by kind and pair."""
    d = state["differences"]
    a, b = state["names"]
    head = (
        f'<p class="gold-summary">{esc(b)} against {esc(a)} (exact match): precision {fmt(d["precision"])}, '
        f"recall {fmt(d['recall'])}, F1 {fmt(d['f1'])}; entities "
        + ", ".join(f"{esc(name)} {n}" for name, n in zip((a, b), d["entities"].values()))
        + "</p>"
    )
    rows = [[kind, pair, n] for kind, pairs in d["counts"].items() for pair, n in sorted(pairs.items())]
    if not rows:
        return head + '<p class="ner-legend">The two golds agree on every entity.</p>'
    return head + simple_table(["kind", "type pair", "changes"], rows, "gold-counts")


def gold_page(state: dict | None, page: float | None, step: int = 0) -> tuple[int, str]:
    """(the page shown, its HTML): the changes of page ``page`` + ``step``, clamped."""
    if not state:
        return 1, ""
    changes = state["differences"]["changes"]
    pages = max(1, -(-len(changes) // ERROR_PAGE))
    page = min(max(1, int(page or 1) + step), pages)
    first = (page - 1) * ERROR_PAGE
    types = {s[0] for c in changes for s in (c["a"], c["b"]) if s}
    colours = colours_of(types)
    cards = "".join(change_html(state, c, colours) for c in changes[first : first + ERROR_PAGE])
    count = f'<p class="error-count"{" "}data-count="{len(changes)}">{len(changes)} changes; page {page} of {pages}</p>'
    return page, count + cards


def golds_view(
    gold: Any, gold_b: Any, decoding: str, suffix: bool, file_format: str | None
) -> tuple[str, str, int, str, dict | None]:
    """The two-golds outputs: error box, summary, page number, the first page of changes, state."""
    try:
        state = read_golds(gold, gold_b, decoding, suffix, file_format)
    except Exception as error:  # noqa: BLE001 -- shown in the page
        heading = failed_heading(error, "Cannot compare these golds")  # "Cannot read the second gold file"
        return error_html(error, heading, GOLDS_HINT), "", 1, "", None
    page, shown = gold_page(state, 1)
    return "", summary_html(state), page, shown, state


def golds_section(
    gold: gr.File, decoding: gr.Dropdown, suffix: gr.Checkbox, file_format: gr.Dropdown
) -> None:
    """The Files tab's accordion: a second gold slot and what it changes in the gold."""
    with gr.Accordion("Two golds: what a second gold changes in the gold", open=False):
        with gr.Row():
            gold_b = gr.File(label="Second gold", file_count="multiple", elem_id="gold-b-file")
            button = gr.Button("Compare the golds", elem_id="golds-button")
        error = gr.HTML(elem_id="golds-error")
        summary = gr.HTML(elem_id="golds-summary")
        with gr.Row():
            previous = gr.Button("Previous page", size="sm", elem_id="golds-previous")
            page = gr.Number(value=1, precision=0, minimum=1, label="Page", elem_id="golds-page")
            following = gr.Button("Next page", size="sm", elem_id="golds-next")
        changes = gr.HTML(elem_id="golds-changes")
        state = gr.State()
    button.click(
        golds_view, [gold, gold_b, decoding, suffix, file_format], [error, summary, page, changes, state]
    )
    page.submit(gold_page, [state, page], [page, changes])
    for button_, step in ((previous, -1), (following, 1)):
        button_.click(functools.partial(gold_page, step=step), [state, page], [page, changes])
