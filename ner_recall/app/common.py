"""What every tab shares: the metric (loaded on first use), the decoding choices, HTML escaping and
the rendering helpers (a sentence with its entities, entity pairs, mode cards, an error box), the
CSS and the theme.

Every value that reaches HTML goes through :func:`esc` (text) or :func:`attrs` (attributes), both
``html.escape(..., quote=True)``: type names, texts, file and annotator names come from uploads.
"""

from __future__ import annotations

import functools
import html
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gradio as gr  # noqa: E402

from ner_recall.integrations.script import METRIC_PATH  # noqa: E402

#: the repository (the metric script beside the package)
ROOT = METRIC_PATH.parent

MODE_WORDS = {
    "strict": "exact boundaries and the right type",
    "exact": "exact boundaries, any type",
    "partial": "overlapping boundaries earn half, any type",
    "type": "the right type, boundaries overlapping",
}
SCORE_KEYS = ("precision", "recall", "f1")
#: the order the decoding choices are shown in; the values are the metric's
SCHEME_ORDER = ("IO", "IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")
PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f", "#edc948")
#: the first decoding choice: seqeval's default
LENIENT = "lenient (seqeval default)"
#: the error browser and the disagreement listing show at most this many pairs at once
ERROR_PAGE = 40
#: tokens shown either side of an error
CONTEXT = 6


@functools.cache
def metric(config_name: str = "default") -> Any:
    """The metric as Hub users get it (``evaluate.load``), one object per config, loaded on first
    use; ``"subgroups"`` adds the stratified recall, ``"spans"`` takes entity spans."""
    import evaluate

    # an experiment id of this process: evaluate's cache-file locks are never held by another
    # process scoring at the same time
    return evaluate.load(str(METRIC_PATH), config_name, experiment_id=f"ner_app_{os.getpid()}")


class _Vocabulary:
    """The metric's own names (MODES, OUTCOMES, SCHEMES, ...), read from the loaded object."""

    def __getattr__(self, name: str) -> Any:
        return getattr(metric(), name)


#: ``VOCAB.MODES``, ``VOCAB.OUTCOMES``, ...: the metric object's class attributes
VOCAB = _Vocabulary()


def count_keys() -> tuple[str, ...]:
    """The counts of a mode's table: the outcomes, then possible and actual."""
    return (*VOCAB.OUTCOMES, "possible", "actual")


@functools.cache
def decodings() -> dict[str, tuple[str | None, str | None]]:
    """Decoding choices of the Compare, Files and Agreement tabs -> (scheme, mode) of compute."""
    rank = {s: i for i, s in enumerate(SCHEME_ORDER)}
    schemes = sorted(VOCAB.SCHEMES, key=lambda s: rank.get(s, len(rank)))
    return {LENIENT: (None, None), **{f"{s} strict": (s, "strict") for s in schemes}}


def fmt(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}"


def esc(value: object) -> str:
    """Any value as HTML text or attribute content: the one place values are escaped."""
    return html.escape(str(value), quote=True)


def attrs(**values: object) -> str:
    """HTML attributes, each value escaped (``data_gold`` is written ``data-gold``); None skipped."""
    return "".join(
        f' {name.rstrip("_").replace("_", "-")}="{esc(v)}"' for name, v in values.items() if v is not None
    )


@functools.cache
def example_dir() -> Path:
    """A temporary folder of this process for the example files the app writes."""
    return Path(tempfile.mkdtemp(prefix="ner_recall_app_"))


# ---------------------------------------------------------------------------- errors

#: an optional package a reader needs -> the line that installs it
INSTALL_LINES = {"spacy": "pip install spacy", "conllu": "pip install conllu"}


class InputFailed(ValueError):
    """A ValueError about one input of a tab: ``named`` as the page names it ("gold file", "gold
    entities"), so that the error box's heading says which input failed; ``side`` the metric's name
    of it (``references``, ``predictions``, ``predictions_b``) when the metric refused it."""

    def __init__(self, message: str, named: str | None = None, side: str | None = None) -> None:
        super().__init__(message)
        self.named, self.side = named, side

    @staticmethod
    def of(error: ValueError, named: str | None = None, side: str | None = None) -> InputFailed:
        """``error``'s message as it was written, not a word changed, said of the input ``named``
        (or of the metric's ``side``): the one place an error of a tab is told which input it is about."""
        return InputFailed(str(error), named, side)


def failed_heading(
    error: BaseException,
    default: str,
    sides: Mapping[str, str] | None = None,
    template: str = "Cannot read the {}",
) -> str:
    """An error box's heading: ``template`` with the input that failed when the error names one
    (:class:`InputFailed`, or a metric's error whose ``side`` ``sides`` names: ``{"references":
    "gold entities"}``), ``default`` when it is about several inputs or none."""
    named = error.named if isinstance(error, InputFailed) else None
    named = named or (sides or {}).get(getattr(error, "side", None) or "")
    return template.format(named) if named else default


def error_html(error: BaseException, heading: str, hint: str = "") -> str:
    """A visible error box: the metric's ValueError message as it is, a missing optional package
    named with its install line; anything else is a bug."""
    if isinstance(error, ImportError):
        package = (getattr(error, "name", None) or "").split(".")[0] or str(error)
        line = INSTALL_LINES.get(package, f"pip install {package}")
        heading = f"This file needs the optional package {package}, which is not installed"
        message, hint = f"Install it with: {line}\n({error})", "Then restart the app."
    elif isinstance(error, ValueError):
        message = str(error)
    else:
        heading, hint = "The metric failed unexpectedly (a bug: please report it with this input)", ""
        message = f"{type(error).__name__}: {error}"
    hint = f"<p>{hint}</p>" if hint else ""
    return (
        f'<div class="app-error" role="alert"><strong>{esc(heading)}</strong>'
        f"<pre>{esc(message)}</pre>{hint}</div>"
    )


# ---------------------------------------------------------------------------- sentences and pairs


def type_colours(results: dict) -> dict[str, str]:
    """One colour per entity type of a result."""
    return colours_of(results["muc"]["strict"]["per_type"])


def colours_of(types: Iterable[str]) -> dict[str, str]:
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sorted(types))}


SpanLike = Sequence  # (label, start, end), end exclusive: a tuple, a list or a core Span


def sentence_grid_html(
    tokens: Sequence[str],
    gold_spans: Iterable[SpanLike],
    pred_spans: Iterable[SpanLike],
    colours: dict[str, str],
    tags: tuple[Sequence[str], Sequence[str]] | None = None,
    focus: Iterable[tuple] = (),
    window: tuple[int, int] | None = None,
    sides: tuple[str, str] = ("gold", "predicted"),
) -> str:
    """A sentence with gold entities above and predicted entities below, aligned on the tokens.

    ``tags``: (gold tags, predicted tags) shown under each token (pairs that differ shaded);
    ``focus``: spans drawn outlined; ``window``: (first, last + 1) tokens shown, spans clipped to it.
    """
    first, stop = window or (0, len(tokens))
    focus = set(focus)
    cells = []
    for row, label, spans in ((1, sides[0], gold_spans), (3, sides[1], pred_spans)):
        cells.append(
            f"<div{attrs(class_='ner-side', style=f'grid-row:{row}', title=label)}>{esc(label)}</div>"
        )
        for s in spans:
            start, end = max(s[1], first), min(s[2], stop)
            if start < end:
                style = f"grid-row:{row};grid-column:{start - first + 2}/{end - first + 2};background:{colours.get(s[0], '#888')}"
                css = "ner-span ner-focus" if tuple(s) in focus else "ner-span"
                cells.append(f"<div{attrs(class_=css, data_side=label, style=style)}>{esc(s[0])}</div>")
    for i in range(first, stop):
        g, p = (tags[0][i], tags[1][i]) if tags else ("", "")
        under = [f'<span class="ner-tag">{esc(t)}</span>' if tags else "" for t in (g, p)]
        css = "ner-token ner-differs" if g != p else "ner-token"
        style = f"grid-row:2;grid-column:{i - first + 2}"
        cells.append(
            f"<div{attrs(class_=css, style=style)}>{under[0]}<b>{esc(tokens[i])}</b>{under[1]}</div>"
        )
    return (
        f'<div class="ner-scroll"><div class="ner-grid" style="grid-template-columns:minmax(5rem,max-content) '
        f'repeat({stop - first},max-content)">{"".join(cells)}</div></div>'
    )


def entity_pairs(results: dict) -> list[tuple[tuple, dict[str, str]]]:
    """[((gold span, predicted span), {mode: outcome})] of a one-sentence result with errors=True,
    in text order; a span is (label, start, end) or None (missed: no prediction; spurious: no gold)."""
    pairs: dict[tuple, dict[str, str]] = {}
    for mode in VOCAB.MODES:
        for outcome, entries in results["errors"][mode].items():
            for entry in entries:
                key = tuple(None if entry[side] is None else tuple(entry[side]) for side in ("gold", "pred"))
                pairs.setdefault(key, {})[mode] = outcome
    return sorted(pairs.items(), key=lambda item: min(span[1:] for span in item[0] if span))


def span_text(span: SpanLike | None, tokens: Sequence[str] | str | None) -> str:
    """A span as its type and words (or characters of a text; token numbers without tokens)."""
    if span is None:
        return "–"
    label, start, end = span
    if isinstance(tokens, str):
        words = tokens[start:end]
    else:
        words = " ".join(tokens[start:end]) if tokens else f"tokens {start}–{end - 1}"
    return f"{esc(label)} <i>{esc(words)}</i>"


def pairs_table_html(rows: Sequence[tuple], first_column: str | None = None) -> str:
    """Entity pairs with one outcome pill per mode; ``rows``: (first cell, tokens, pair, outcomes)."""
    if not rows:
        return '<p class="ner-legend">No entity on either side.</p>'
    modes = VOCAB.MODES
    head = ([first_column] if first_column else []) + ["gold", "predicted", *modes]
    body = []
    for first, tokens, (gold, pred), outcomes in rows:
        cells = [esc(first)] if first_column else []
        cells += [span_text(gold, tokens), span_text(pred, tokens)]
        cells += [f'<span class="pill seg-{esc(outcomes[m])}">{esc(outcomes[m])}</span>' for m in modes]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head_html = "".join(f"<th>{esc(h)}</th>" for h in head)
    return f'<table class="scenarios"><tr>{head_html}</tr>{"".join(body)}</table>'


def _bar(parts: Sequence[tuple[str, int]], total: int) -> str:
    """A stacked bar of (name, count) parts, ``total`` wide."""
    segments = "".join(
        f'<span class="seg seg-{name}" style="flex:{n}" title="{name}: {n}"></span>' for name, n in parts if n
    )
    return f'<div class="bar">{segments or "<span class=seg-empty></span>"}</div><small>{total}</small>'


def mode_cards_html(results: dict) -> str:
    """The four MUC modes side by side: scores, then gold and predicted outcomes as bars."""
    cards = []
    for mode in VOCAB.MODES:
        m = results["muc"][mode]
        scores = "".join(
            f'<div class="score"><span data-mode="{mode}" data-key="{k}">{fmt(m[k], 3)}'
            f"</span><small>{'F1' if k == 'f1' else k}</small></div>"
            for k in SCORE_KEYS
        )
        counts = "".join(
            f'<li><span class="dot seg-{k}"></span>{k}<b data-mode="{mode}" data-key="{k}">{m[k]}</b></li>'
            for k in count_keys()
        )
        outcomes = [(k, m[k]) for k in ("correct", "partial", "incorrect")]
        cards.append(
            f'<div class="mode-card"><h3>{mode}</h3><p>{MODE_WORDS[mode]}</p>'
            f'<div class="scores">{scores}</div>'
            f'<div class="bars"><span>gold</span>{_bar(outcomes + [("missed", m["missed"])], m["possible"])}'
            f"<span>pred</span>{_bar(outcomes + [('spurious', m['spurious'])], m['actual'])}</div>"
            f'<ul class="counts">{counts}</ul></div>'
        )
    return f'<div class="mode-cards">{"".join(cards)}</div>{signature_html(results)}'


def signature_html(results: dict) -> str:
    """The result's signature (the options that move a number) in a small monospace line: a
    read-only box, its whole text selected by one triple click, to copy; empty without one. No
    script: the page holds no event attribute."""
    signature = results.get("signature") if isinstance(results, dict) else None
    if not signature:
        return ""
    box = attrs(readonly="readonly", value=signature, size=min(len(signature), 120), title="select and copy")
    return f'<div class="ner-signature"><span>signature (select and copy)</span><input{box}></div>'


def simple_table(head: Sequence[str], rows: Iterable[Sequence[object]], key: str) -> str:
    """A plain table, floats to four digits, every cell escaped."""
    cells = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{fmt(v) if isinstance(v, float) else esc(v)}</td>" for v in row) + "</tr>"
        for row in rows
    )
    return (
        f'<div class="table-scroll"><table class="ner-slices"{attrs(data_key=key)}><thead><tr>{cells}</tr>'
        f"</thead><tbody>{body}</tbody></table></div>"
    )


# ---------------------------------------------------------------------------- layout

CSS = """
.ner-signature {display: flex; gap: 6px; align-items: center; font-size: 11px; margin: 6px 0; opacity: .8;}
.ner-signature input {font-family: monospace; font-size: 11px; flex: 1; max-width: 60rem; padding: 1px 4px;
                      border: 1px solid var(--border-color-primary); background: transparent; color: inherit;}
.gen-text {white-space: pre-wrap; line-height: 2.1; font-size: 15px; padding: 8px 0;}
.gen-text mark {color: #fff; border-radius: 4px; padding: 1px 3px;}
.gen-text mark sup {font-size: 9px; font-weight: 700; margin-left: 3px;}
.ner-scroll, .table-scroll {overflow-x: auto; padding: .5rem 0; max-width: 100%;}
.ner-grid {display: grid; gap: 6px 4px; align-items: center; font-size: 15px;}
.ner-side {grid-column: 1; font-size: 12px; letter-spacing: .03em; opacity: .7; max-width: 16rem;
           overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding-right: 8px;}
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
.ner-slices th.side {text-align: center; border-bottom: 2px solid var(--border-color-primary);}
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
.ner-focus {outline: 3px solid var(--body-text-color, #1f2937); outline-offset: 2px;}
.files-headline .scores {justify-content: flex-start; gap: 36px;}
.interval {font-size: 12px; opacity: .75; font-variant-numeric: tabular-nums;}
.type-f1 + .legend, .legend {font-size: 12px; opacity: .8;}
.legend span {margin-right: 12px;} .legend i {display: inline-block; width: 10px; height: 10px; margin-right: 4px;}
.heatmap-scroll {overflow-x: auto; max-width: 100%;}
.type-f1, .bucket-f1 {max-width: 860px; display: block;}
.recall-plot {max-width: 980px; display: block;}
.ranking {max-width: 900px; display: block;}
.heatmap {border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums;}
.heatmap th, .heatmap td {padding: 5px 8px; border: 1px solid var(--border-color-primary); text-align: center;}
.heatmap thead th.col {writing-mode: vertical-rl; transform: rotate(180deg); text-align: left;
                       white-space: nowrap; padding: 8px 4px; font-weight: 600;}
.heatmap tbody th {text-align: right; white-space: nowrap;}
.error-card {border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 6px 10px; margin: 6px 0;}
.error-head {font-size: 13px;} .error-count {font-size: 13px;}
.error-pair {font-size: 13px; margin-left: 8px;}
"""
THEME = gr.themes.Soft(
    primary_hue="indigo", font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"]
)
