"""The Files tab's error browser: the listed pairs of a mode, filtered by outcome and type, one
card per pair drawn in a window of its sentence (the pair outlined and named), a page at a time."""

from __future__ import annotations

from ner_recall.app.common import (
    CONTEXT,
    ERROR_PAGE,
    VOCAB,
    esc,
    metric,
    sentence_grid_html,
    span_text,
    type_colours,
)

ALL_TYPES = "all types"
NOT_CORRECT = "all but correct"


def sentence_spans(state: dict, i: int) -> tuple[list, list, tuple | None]:
    """(gold spans, predicted spans, tags or None) of sentence ``i``: (label, start, end) tuples."""
    inputs, options = state["inputs"], state["options"]
    gold, pred = inputs.references[i], inputs.predictions[i]
    if gold and isinstance(gold[0], dict) or pred and isinstance(pred[0], dict) or not (gold or pred):
        as_spans = [[(e["label"], e["start"], e["end"]) for e in side] for side in (gold, pred)]
        return as_spans[0], as_spans[1], None
    decode = lambda tags: metric().decode(
        tags, scheme=options.get("scheme"), suffix=options.get("suffix", False)
    )
    return ([tuple(s) for s in decode(gold)], [tuple(s) for s in decode(pred)], (gold, pred))


def browse_errors(
    state: dict, mode: str = "strict", outcome: str = NOT_CORRECT, type_name: str = ALL_TYPES
) -> list[tuple[str, dict]]:
    """The listed pairs of ``mode`` with ``outcome`` (or every outcome but correct) whose gold or
    predicted type is ``type_name``: [(outcome, entry)] in sentence order."""
    listing = state["results"].get("errors", {}).get(mode, {})
    outcomes = [o for o in VOCAB.OUTCOMES if o != "correct"] if outcome == NOT_CORRECT else [outcome]
    found = [
        (o, e)
        for o in outcomes
        for e in listing.get(o, [])
        if type_name == ALL_TYPES or type_name in {s[0] for s in (e["gold"], e["pred"]) if s}
    ]
    return sorted(found, key=_text_order)


def _text_order(item: tuple[str, dict]) -> tuple[int, int]:
    """(sentence, first token) of a listed pair: the error browser's order."""
    entry = item[1]
    return entry["sentence"], min(s[1] for s in (entry["gold"], entry["pred"]) if s)


def error_card_html(state: dict, outcome: str, entry: dict, colours: dict[str, str]) -> str:
    """One listed pair drawn in its sentence (a window of it), outlined and named in the card's
    head: two errors of one sentence make two cards that say which pair each is."""
    i = entry["sentence"]
    tokens = state["inputs"].tokens[i]
    pair = [tuple(s) if s else None for s in (entry["gold"], entry["pred"])]
    where = state["inputs"].where("references", i, min(s[1] for s in pair if s))
    named = " → ".join(f"{side} {span_text(s, tokens)}" for side, s in zip(("gold", "predicted"), pair) if s)
    head = (
        f'<div class="error-head"><span class="pill seg-{esc(outcome)}">{esc(outcome)}</span> sentence {i + 1} '
        f'<small>({esc(where)})</small><span class="error-pair">{named}</span></div>'
    )
    card = f'<div class="error-card" data-outcome="{esc(outcome)}" data-sentence="{i}">{head}'
    if isinstance(tokens, str):  # a text: character offsets, the pair named in the head
        return card + "</div>"
    gold_spans, pred_spans, tags = sentence_spans(state, i)
    start = min(s[1] for s in pair if s)
    end = max(s[2] for s in pair if s)
    window = (max(0, start - CONTEXT), min(len(tokens), end + CONTEXT))
    grid = sentence_grid_html(
        tokens, gold_spans, pred_spans, colours, tags=tags, focus={s for s in pair if s}, window=window
    )
    return f"{card}{grid}</div>"


def page_count(found: list) -> int:
    return max(1, -(-len(found) // ERROR_PAGE))


def errors_html(
    state: dict | None,
    mode: str = "strict",
    outcome: str = NOT_CORRECT,
    type_name: str = ALL_TYPES,
    page: float | None = 1,
) -> str:
    """The error browser's page ``page`` (from 1; clamped to the pages there are): how many pairs
    match the filters, and ERROR_PAGE of them drawn, so that a file of 50,000 sentences draws no
    more than a small one."""
    return show_page(state, mode, outcome, type_name, page)[1]


def show_page(
    state: dict | None, mode: str, outcome: str, type_name: str, page: float | None, step: int = 0
) -> tuple[int, str]:
    """(the page shown, its HTML): ``page`` + ``step`` clamped to the pages there are, so that the
    page box shows the page drawn."""
    if not state:
        return 1, ""
    if "errors" not in state["results"]:
        note = "No error listing: it reads contiguous entities only, and these files hold discontinuous ones (docs/discontinuous.md)."
        return 1, f'<p class="error-count" data-count="0">{note}</p>'
    found = browse_errors(state, mode, outcome, type_name)
    pages = page_count(found)
    page = min(max(1, int(page or 1) + step), pages)
    first = (page - 1) * ERROR_PAGE
    colours = type_colours(state["results"])
    shown = "".join(error_card_html(state, o, e, colours) for o, e in found[first : first + ERROR_PAGE])
    where = (
        f", pairs {first + 1}-{min(first + ERROR_PAGE, len(found))} shown (page {page} of {pages})"
        if len(found) > ERROR_PAGE
        else ""
    )
    return page, (
        f'<p class="error-count" data-count="{len(found)}" data-page="{page}" data-pages="{pages}">'
        f"{len(found)} pair(s) in mode <b>{esc(mode)}</b>{where}. "
        "The pair is outlined; gold above, predicted below.</p>" + shown
    )


def turn_page(
    state: dict | None, mode: str, outcome: str, type_name: str, page: float | None, step: int
) -> tuple:
    """The error browser ``step`` pages on (clamped): (the new page number, its HTML)."""
    return show_page(state, mode, outcome, type_name, page, step)
