"""The Files tab: gold and one or two systems' files scored through the metric: the headline
scores, the four modes, F1 per type, the type confusion, slices, entity buckets, HAREM's levels,
scored predictions' curves, the error browser and the results as JSON. Long work shows its
progress and can be stopped."""

from __future__ import annotations

import functools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import gradio as gr
import pandas as pd

from ner_recall.app.charts import bucket_title, buckets_svg, heatmap_html, ranking_svg, type_f1_svg
from ner_recall.app.common import (
    LENIENT,
    SCORE_KEYS,
    VOCAB,
    attrs,
    decodings,
    error_html,
    esc,
    failed_heading,
    fmt,
    mode_cards_html,
    simple_table,
)
from ner_recall.app.errors import ALL_TYPES, NOT_CORRECT, errors_html, show_page, turn_page
from ner_recall.app.examples import example_conll_files
from ner_recall.app.golds import AUTO_FORMAT, golds_section
from ner_recall.app.uploads import (
    Upload,
    absent_buckets,
    gather,
    offset_unit,
    read_slices,
    score,
    score_two,
    scrubbed,
)

FILES_HELP = """\
**Gold and predictions**, in one of three layouts (read by `ner_files`, the same readers as
`python -m ner_recall gold pred`):

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
#: the Files tab's format picker: told by name and content, or one of the metric's readers'


def file_formats() -> list[str]:
    return [AUTO_FORMAT, *VOCAB.FILE_FORMATS]


def _quiet(fraction: float, desc: str = "") -> None:
    """No progress bar (outside a Gradio event)."""


def score_uploads(
    gold: Any,
    pred: Any,
    pred_b: Any = None,
    decoding: str = LENIENT,
    suffix: bool = False,
    resamples: float = 0,
    slices: Any = None,
    file_format: str = AUTO_FORMAT,
    progress: Any = _quiet,
) -> dict:
    """The Files tab's state: inputs read, results (with errors, confusion and the entity buckets,
    and per slice with a slices file) of one or two systems. Each slot takes one file, a brat pair
    (.ann + .txt) or a zip; errors name the uploaded files, not the server's copies."""
    uploads: list[Upload | None] = []
    try:
        for upload, slot in (
            (gold, "gold"),
            (pred, "predictions"),
            (pred_b, "second predictions"),
            (slices, "slices"),
        ):
            uploads.append(gather(upload, slot))
        gold_, pred_, pred_b_, slices_ = uploads
        return _score(gold_, pred_, pred_b_, slices_, decoding, suffix, resamples, file_format, progress)
    except ValueError as error:
        raise scrubbed(error, uploads) from None


def _score(
    gold: Upload | None,
    pred: Upload | None,
    pred_b: Upload | None,
    slices: Upload | None,
    decoding: str,
    suffix: bool,
    resamples: float,
    file_format: str,
    progress: Any,
) -> dict:
    if gold is None:
        raise ValueError(
            "no gold file: upload one (CoNLL, two tag columns, JSONL or an annotation tool's file)"
        )
    if pred_b and not pred:
        raise ValueError("a second predictions file needs the first one")
    scheme, mode = decodings()[decoding]
    tag_options = dict(scheme=scheme, mode=mode, suffix=bool(suffix))
    resamples = int(resamples or 0)
    progress(0.05, desc="Reading the files")
    fmt_ = None if file_format in (None, AUTO_FORMAT) else file_format
    systems = [p.path for p in (pred, pred_b) if p]
    read = VOCAB.read_systems(gold.path, *systems, file_format=fmt_)
    inputs = read[0]
    values = read_slices(slices.path, slices.name, len(inputs.references)) if slices else None
    names = [gold.name, (pred or gold).name] + ([pred_b.name] if pred_b else [])
    state = {"inputs": inputs, "options": {**tag_options, "ci_resamples": resamples}, "names": names}
    state["units"] = resampled_units(inputs, values)
    progress(0.3, desc="Scoring" + (" both systems and their difference" if pred_b else ""))
    if pred_b:
        state["results"], state["results_b"], state["comparison"] = score_two(
            inputs, read[1], tag_options, values, resamples
        )
    else:
        state["results"] = score(inputs, tag_options, values, resamples)
    progress(0.8, desc="Drawing")
    return state


class Units(NamedTuple):
    """What the intervals and tests resample: sentences, or documents when the files have them;
    how many the files hold, and how many each slice value holds. From one unit no interval or
    test can be made: its resamples are all that unit (a zero-width interval, p 1)."""

    name: str
    whole: int
    slices: dict[str, int]

    def one(self, value: str | None = None) -> bool:
        """Whether the files (or the slice ``value``) hold a single unit."""
        return (self.whole if value is None else self.slices.get(value, 0)) == 1

    @property
    def none_made(self) -> str:
        """What is shown instead of an interval or a p-value made from one unit."""
        return f"n/a (1 {self.name})"


def resampled_units(inputs: Any, values: list[str] | None) -> Units:
    """The :class:`Units` of read files (and of a slices file's values, one per sentence)."""
    ids = inputs.document_ids
    units = list(range(len(inputs.references))) if ids is None else list(ids)
    members: dict[str, set] = {}
    for value, unit in zip(values or [], units):
        members.setdefault(value, set()).add(unit)
    name = "sentence" if ids is None else "document"
    return Units(name, len(set(units)), {value: len(m) for value, m in members.items()})


#: no units counted: every interval shown as the metric gives it
NO_UNITS = Units("sentence", 0, {})


def files_headline_html(results: dict, names: list[str], n_sentences: int, units: Units = NO_UNITS) -> str:
    """seqeval's micro scores (with their intervals when computed; none from a single unit) and
    the corpus size."""
    intervals = results.get("intervals", {})
    cells = []
    for key in SCORE_KEYS:
        name = f"overall_{key}"
        value = results[name] if name in results else results["muc"]["strict"][key]
        band = intervals.get(name)
        shown = "" if not band else units.none_made if units.one() else f"[{band[0]:.4f}, {band[1]:.4f}]"
        cells.append(
            f'<div class="score"><span data-key="{name}">{fmt(value)}</span>'
            f"<small>{'F1' if key == 'f1' else key}</small>"
            + (f'<small class="interval">{shown}</small>' if shown else "")
            + "</div>"
        )
    strict = results["muc"]["strict"]
    level = " (95% bootstrap intervals)" if intervals else ""
    return (
        f'<div class="files-headline"><div class="scores">{"".join(cells)}</div><p>'
        f"<b>{esc(names[1])}</b> against <b>{esc(names[0])}</b>: {n_sentences} sentences, "
        f"{strict['possible']} gold and {strict['actual']} predicted entities; seqeval's micro "
        f"scores (exact boundaries and type){level}.</p></div>"
    )


def slices_html(results: dict, comparison: dict | None = None, units: Units = NO_UNITS) -> str:
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
            cells = slice_cells(value, r, compared and compared["values"][value], units)
            mark = ' class="worst" title="the worst slice"' if value == worst else ""
            rows.append(f"<tr{mark}{attrs(data_slice=value)}>{cells}</tr>")
        note = ""
        if worst is not None:
            w = table["worst"]
            note = (
                f'<p class="ner-legend">Worst slice: <b>{esc(worst)}</b>, {esc(w["score"])} '
                f"{w['slice']:.4f}, {w['gap']:.4f} below the whole ({w['whole']:.4f}).</p>"
            )
        out.append(
            f'<h4>{esc(key)}</h4><div class="table-scroll"><table class="ner-slices"{attrs(data_key=key)}>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>{note}"
        )
    return "".join(out)


def slice_cells(value: str, r: dict, compared: dict | None, units: Units) -> str:
    """One slice's cells: its value, sentences, strict scores, F1 as a bar with its interval, and
    B - A with its interval and Holm-corrected p-value; a slice of one unit gets neither interval
    nor p-value (its resamples are all that unit: a zero-width interval, p 1)."""
    name = "overall_f1" if "overall_f1" in r else "muc_strict_f1"
    p, rc, f = (r[f"overall_{k}"] if name == "overall_f1" else r["muc"]["strict"][k] for k in SCORE_KEYS)
    interval = r.get("intervals", {}).get(name)
    alone = units.one(value)
    bar = f'<div class="slice-bar"><i style="width:{100 * f:.1f}%"></i>'
    if interval and not alone:
        low, high = interval
        bar += f'<b style="left:{100 * low:.1f}%;width:{100 * (high - low):.1f}%"></b></div>{f:.4f} [{low:.4f}, {high:.4f}]'
    else:
        bar += f"</div>{f:.4f}" + (f" {units.none_made}" if interval else "")
    cells = f"<td>{esc(value)}</td><td>{r['sentences']}</td><td>{p:.4f}</td><td>{rc:.4f}</td><td>{bar}</td>"
    if compared:
        score = "overall_f1" if "overall_f1" in compared["difference"] else "muc_strict_f1"
        low, high = compared["intervals"][score]
        band = units.none_made if alone else f"[{low:+.4f}, {high:+.4f}]"
        p_value = units.none_made if alone else f"{compared['p_values_holm'][score]:.4f}"
        cells += f"<td>{compared['difference'][score]:+.4f} {band}</td><td>{p_value}</td>"
    return cells


def buckets_html(state: dict) -> str:
    """The bucket charts, entity length in the unit of the files' offsets, and why a chart that tag
    files get is not drawn for these files."""
    inputs = state["inputs"]
    unit = offset_unit(inputs)
    absent = "".join(
        f"<li><b>{esc(bucket_title(name, unit))}</b>: {esc(reason)}</li>"
        for name, reason in absent_buckets(inputs).items()
    )
    note = f'<p class="ner-legend">Not drawn for these files:</p><ul class="ner-legend">{absent}</ul>'
    return buckets_svg(state["results"], unit) + (note if absent else "")


def levels_html(results: dict) -> str:
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
            simple_table(head, rows, "hierarchy"),
        ]
    a = results.get("attributes")
    if a:
        outcomes = a["outcomes"]
        names = sorted(set(a["per_attribute"]) | set(outcomes))
        rows = [
            [
                n,
                *(a["per_attribute"].get(n, {}).get(k, 0.0) for k in ("precision", "recall", "f1")),
                *(outcomes.get(n, {}).get(o, 0) for o in VOCAB.ATTRIBUTE_OUTCOMES),
            ]
            for n in names
        ]
        head = ["attribute", "P", "R", "F1", *VOCAB.ATTRIBUTE_OUTCOMES]
        out += [
            "<h4>Entity attributes (items; HAREM's outcomes over aligned pairs)</h4>",
            simple_table(head, rows, "attributes"),
        ]
    return "".join(out)


def results_json(state: dict) -> str:
    """The full results (and the second system's, and the comparison) as a JSON file to download."""
    payload = {"files": state["names"], "options": state["options"], "results": state["results"]}
    for key in ("results_b", "comparison"):
        if state.get(key) is not None:
            payload[key] = state[key]
    path = Path(tempfile.mkdtemp(prefix="ner_results_")) / "ner_results.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def comparison_frame(state: dict) -> pd.DataFrame | None:
    """Both systems' scores: the metric's comparison table, or side by side for span files."""
    if state.get("results_b") is None:
        return None
    comparison = state.get("comparison")
    if comparison and comparison.get("table"):
        keys = ("score", "a", "b", "difference", "low", "high", "p_value")
        units = state.get("units", NO_UNITS)
        made = keys[:4] if units.one() else keys  # from one unit: no interval nor p-value
        rows = [
            [row[k] if k == "score" else round(row[k], 4) if k in made else units.none_made for k in keys]
            for row in comparison["table"]
        ]
        return pd.DataFrame(rows, columns=["score", "A", "B", "B - A", "low", "high", "p"])
    a, b = state["results"], state["results_b"]
    pairs = [(f"overall_{k}", a.get(f"overall_{k}"), b.get(f"overall_{k}")) for k in SCORE_KEYS]
    pairs += [(f"muc_{m}_f1", a["muc"][m]["f1"], b["muc"][m]["f1"]) for m in VOCAB.MODES]
    rows = [[n, round(x, 4), round(y, 4), round(y - x, 4)] for n, x, y in pairs if x is not None]
    return pd.DataFrame(rows, columns=["score", "A", "B", "B - A"])


#: the position of the JSON download among files_view's outputs
FILES_DOWNLOAD = 10


def failed_outputs(error: BaseException) -> tuple:
    """The Files tab's outputs when the files cannot be scored: the error box, nothing else."""
    heading = failed_heading(error, "Cannot score these files")  # "Cannot read the gold file"
    box = error_html(error, heading, 'The format of each layout is under "File formats".')
    hidden = gr.Column(visible=False)
    empty_types = gr.Dropdown(choices=[ALL_TYPES], value=ALL_TYPES)
    return (
        box,
        hidden,
        "",
        "",
        "",
        "",
        "strict",
        NOT_CORRECT,
        empty_types,
        "",
        None,
        hidden,
        None,
        "",
        "",
        "",
        None,
    )


def files_view(
    gold: Any,
    pred: Any,
    pred_b: Any,
    decoding: str,
    suffix: bool,
    resamples: float,
    download: bool = True,
    slices: Any = None,
    file_format: str = AUTO_FORMAT,
    progress: Any = _quiet,
) -> tuple:
    """All outputs of the Files tab: error, results visibility, headline, mode cards, per-type plot,
    heatmap, mode / outcome / type filters, error browser, download (None unless ``download``),
    two-systems visibility, comparison, slices table, bucket charts, ranking plots, state."""
    try:
        state = score_uploads(gold, pred, pred_b, decoding, suffix, resamples, slices, file_format, progress)
    except Exception as error:  # noqa: BLE001 -- shown in the page
        return failed_outputs(error)
    try:
        return shown_outputs(state, download)
    except Exception as error:  # noqa: BLE001 -- a drawing bug shown in the page, never a blank "Error"
        return failed_outputs(error)


def shown_outputs(state: dict, download: bool) -> tuple:
    """The Files tab's outputs drawn from its state (see files_view)."""
    results, units = state["results"], state.get("units", NO_UNITS)
    types = [ALL_TYPES, *sorted(results["muc"]["strict"]["per_type"])]
    comparison = comparison_frame(state)
    return (
        "",
        gr.Column(visible=True),
        files_headline_html(results, state["names"], len(state["inputs"].references), units),
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
        slices_html(results, state.get("comparison"), units),
        buckets_html(state),
        ranking_svg(results) + levels_html(results),
        state,
    )


def files_stream(
    gold: Any,
    pred: Any,
    pred_b: Any,
    decoding: str,
    suffix: bool,
    resamples: float,
    slices: Any = None,
    file_format: str = AUTO_FORMAT,
    progress: Any = gr.Progress(),
) -> Iterator[tuple]:
    """The Files tab's outputs as they become ready, with a progress bar (Gradio's): everything
    but the JSON download first, then it. The Stop button cancels between the steps."""
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
        progress=progress,
    )
    yield outputs
    state = outputs[-1]
    if state is not None:
        progress(0.95, desc="Writing the JSON download")
        yield tuple(results_json(state) if i == FILES_DOWNLOAD else gr.skip() for i in range(len(outputs)))


def example_uploads() -> tuple[list[str], list[str], list[str]]:
    """The example files for the three upload slots, each a list (the slots take several files)."""
    gold, pred, pred_b = example_conll_files()
    return [gold], [pred], [pred_b]


def first_page(state: dict | None, mode: str, outcome: str, type_name: str) -> tuple[int, str]:
    """The error browser at page 1: a new filter starts there."""
    return show_page(state, mode, outcome, type_name, 1)


def _upload_slot(label: str, elem_id: str) -> gr.File:
    """An upload slot: one file, a brat pair (.ann + .txt, several pairs), or a zip of them."""
    return gr.File(label=label, file_count="multiple", elem_id=elem_id)


def files_tab() -> None:
    gr.Markdown(
        "Score a whole test set: upload the gold file and a system's predictions (CoNLL, one file "
        "with two tag columns, JSONL spans, or an annotation tool's export; brat as its .ann and .txt "
        "together, or a zip); add a second system to compare the two."
    )
    with gr.Row():
        gold = _upload_slot("Gold (references)", "gold-file")
        pred = _upload_slot("Predictions (empty: the gold file has two tag columns)", "pred-file")
        pred_b = _upload_slot("Second system's predictions (optional)", "pred-b-file")
        slices = gr.File(
            label="Slices (optional): one value per line, one line per sentence", elem_id="slices-file"
        )
    with gr.Row(equal_height=True):  # the options, then the buttons: each menu shows its longest choice whole
        file_format = gr.Dropdown(
            file_formats(), value=AUTO_FORMAT, label="File format", elem_id="files-format", scale=1
        )
        decoding = gr.Dropdown(
            list(decodings()),
            value=LENIENT,
            label="Decoding (scheme, mode)",
            elem_id="files-decoding",
            scale=1,
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
    with gr.Row():
        example = gr.Button("Example files", scale=1, elem_id="files-example")
        button = gr.Button("Score files", variant="primary", scale=1, elem_id="files-button")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="files-stop")
    with gr.Accordion("File formats", open=False):
        gr.Markdown(FILES_HELP)
    golds_section(gold, decoding, suffix, file_format)
    error = gr.HTML(elem_id="files-error")
    state = gr.State()
    with gr.Column(visible=False) as results:
        headline = gr.HTML(elem_id="files-headline")
        cards = gr.HTML(elem_id="files-cards")
        with gr.Column(visible=False) as two_systems:
            gr.Markdown("### Two systems (B - A)")
            comparison = gr.Dataframe(elem_id="files-comparison", interactive=False)
        gr.Markdown("### F1 per type, each MUC mode")
        plot = gr.HTML(elem_id="type-f1")
        gr.Markdown("### Type confusion")
        heatmap = gr.HTML(elem_id="heatmap")
        gr.Markdown("### Per slice")
        slices_table = gr.HTML(elem_id="files-slices")
        gr.Markdown("### Per entity bucket (strict F1)")
        bucket_charts = gr.HTML(elem_id="files-buckets")
        ranking = gr.HTML(elem_id="files-ranking")
        gr.Markdown("### Error browser")
        with gr.Row():
            mode = gr.Radio(list(VOCAB.MODES), value="strict", label="Mode", elem_id="browse-mode")
            outcome = gr.Dropdown(
                [NOT_CORRECT, *VOCAB.OUTCOMES], value=NOT_CORRECT, label="Outcome", elem_id="browse-outcome"
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
    outputs = [error, results, headline, cards, plot, heatmap, mode, outcome, type_name, browser, download]
    outputs += [two_systems, comparison, slices_table, bucket_charts, ranking, state]
    scoring = button.click(files_stream, inputs, outputs)
    scoring.then(lambda: 1, None, page)
    from_example = example.click(example_uploads, None, [gold, pred, pred_b])
    example_scoring = from_example.then(files_stream, inputs, outputs)
    example_scoring.then(lambda: 1, None, page)
    stop.click(None, None, None, cancels=[scoring, example_scoring])
    filters = [state, mode, outcome, type_name]
    for control in (mode, outcome, type_name):  # a new filter starts at its first page
        control.input(first_page, filters, [page, browser])
    page.submit(show_page, [*filters, page], [page, browser])
    for button_, step in ((previous, -1), (following, 1)):
        button_.click(functools.partial(turn_page, step=step), [*filters, page], [page, browser])
