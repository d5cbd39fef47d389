"""The Stratified recall tab: recall estimated from gold entities sampled per subgroup, each
subgroup weighted by its size, with a confidence interval; its CSV files read here."""

from __future__ import annotations

import csv
from typing import Any, NamedTuple

import gradio as gr

from ner_recall.app.charts import recall_svg
from ner_recall.app.common import VOCAB, error_html, esc, metric, signature_html
from ner_recall.app.examples import STRATIFIED_EXAMPLES, stratified_example_files

CSV_HINT = (
    'The accepted columns are under "CSV formats", below the button; in the metric\'s messages, '
    "<code>references</code> are the gold tags and <code>predictions</code> the predicted ones."
)


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


def read_csv(path: str | None, what: str) -> tuple[list[str], list[tuple[int, dict]]]:
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


def _subgroup_column(header: list[str], what: str) -> str:
    column = next((c for c in SUBGROUP_COLUMNS if c in header), None)
    if column is None:
        raise ValueError(f"{what}: needs a 'subgroup' column; has {header}")
    return column


def read_entities(path: str | None) -> Entities:
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


def _number(value: str, where: str) -> int | float:
    try:
        x = float(value)
    except ValueError:
        raise ValueError(f"{where}: not a number: {value!r}") from None
    return int(x) if x.is_integer() else x


def read_sizes(path: str | None) -> dict | None:
    """``subgroup_weights`` from an optional sizes CSV: None, {name: size} or {name: {occurences, ...}}."""
    if not path:
        return None
    what = "sizes CSV"
    header, rows = read_csv(path, what)
    group = _subgroup_column(header, what)
    if "size" in header:
        return {row[group]: _number(row["size"], f"{what} line {line}") for line, row in rows}
    keys = VOCAB.SIZE_KEYS
    if all(k in header for k in keys):
        return {row[group]: {k: _number(row[k], f"{what} line {line}") for k in keys} for line, row in rows}
    raise ValueError(
        f"{what}: needs the columns subgroup and size, or subgroup, {', '.join(keys)}; has {header}"
    )


def stratified(
    entities_path: str | None,
    sizes_path: str | None,
    ci_method: str = "wilson",
    confidence_level: float = 0.95,
    recall_mode: str = "strict",
) -> dict:
    """``results["stratified_recall"]`` of the metric's subgroups config on the uploaded CSVs."""
    return stratified_results(entities_path, sizes_path, ci_method, confidence_level, recall_mode)[
        "stratified_recall"
    ]


def stratified_results(
    entities_path: str | None,
    sizes_path: str | None,
    ci_method: str = "wilson",
    confidence_level: float = 0.95,
    recall_mode: str = "strict",
) -> dict:
    """The results of the metric's subgroups config on the uploaded CSVs (with their signature)."""
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
    return results


STRATA_HEADERS = ["subgroup", "n", "correct", "recall", "weight", "ci_low", "ci_high"]


def strata_rows(result: dict) -> list[list]:
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


def headline_html(result: dict) -> str:
    level = f"{result['confidence_level']:.0%}"
    plain = result["correct"] / result["n"]
    return (
        f'<div class="headline"><div class="big" data-key="recall">{result["recall"]:.1%}</div>'
        f"<div><b>weighted recall</b>, {level} interval "
        f"<b>{result['ci_low']:.1%} – {result['ci_high']:.1%}</b> ({esc(result['method'])})<br>"
        f"<small>{result['n']} gold entities in {len(result['strata'])} subgroups, credit "
        f"{result['correct']:g}: plain recall, every entity weighing the same, {plain:.1%}</small>"
        "</div></div>"
    )


def stratified_view(
    entities_path: str | None,
    sizes_path: str | None,
    ci_method: str,
    confidence_level: float,
    recall_mode: str,
    progress: Any = gr.Progress(),
) -> tuple:
    """All outputs of the Stratified tab: error, results visibility, headline, plot, table (a
    progress bar while the interval is computed: the bootstrap takes seconds)."""
    try:
        progress(0.1, desc=f"Estimating recall ({ci_method} interval)")
        results = stratified_results(entities_path, sizes_path, ci_method, confidence_level, recall_mode)
    except Exception as error:  # noqa: BLE001
        return error_html(error, "Cannot estimate recall", CSV_HINT), gr.Column(visible=False), "", "", None
    result = results["stratified_recall"]
    headline = headline_html(result) + signature_html(results)
    return "", gr.Column(visible=True), headline, recall_svg(result), strata_rows(result)


# ---------------------------------------------------------------------------- example CSVs


#: the Example menu's entry once the user uploads CSV files of their own
OWN_FILES = "(your own files)"


def stratified_example_view(name: str, ci_method: str, confidence_level: float, recall_mode: str) -> tuple:
    """The example's CSV files in the upload boxes, and the Stratified tab's outputs for them; the
    page left as it is on "(your own files)"."""
    if name not in STRATIFIED_EXAMPLES:
        return tuple(gr.skip() for _ in range(7))
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


def stratified_tab() -> tuple:
    first = next(iter(STRATIFIED_EXAMPLES))
    gr.Markdown(
        "Recall estimated from gold entities sampled per subgroup, each subgroup weighted by its "
        "size, with a confidence interval."
    )
    with gr.Row():
        with gr.Column(scale=2):
            example = gr.Dropdown(
                [*STRATIFIED_EXAMPLES, OWN_FILES], value=first, label="Example", elem_id="stratified-example"
            )
            entities = gr.File(label="Entities CSV", file_types=[".csv"], elem_id="entities-csv")
            sizes = gr.File(label="Subgroup sizes CSV (optional)", file_types=[".csv"], elem_id="sizes-csv")
            method = gr.Radio(
                sorted(VOCAB.CI_METHODS, key=lambda m: m != "wilson"),
                value="wilson",
                label="Interval method",
                elem_id="ci-method",
            )
            level = gr.Slider(0.5, 0.99, value=0.95, step=0.01, label="Confidence level", elem_id="level")
            recall_mode = gr.Radio(
                list(VOCAB.MODES),
                value="strict",
                label="Recall mode (tagged sentences)",
                elem_id="recall-mode",
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
    for box in (entities, sizes):  # a file of the user's own: no longer the example's
        for event in (box.upload, box.clear):
            event(lambda: OWN_FILES, None, example)
    button.click(stratified_view, inputs, outputs)
    for event in (method.input, recall_mode.input, level.release):
        event(stratified_view, inputs, outputs)
    return example, inputs, outputs
