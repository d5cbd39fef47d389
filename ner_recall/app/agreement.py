"""The Agreement tab: how far annotators agree, from one file per annotator or one Label Studio
export holding several annotators: F1 of every pair in each MUC mode, kappa, Krippendorff's
alpha, and every disagreement drawn in its sentence. Annotators are named alike everywhere."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ner_recall.app.common import (
    CONTEXT,
    ERROR_PAGE,
    LENIENT,
    VOCAB,
    attrs,
    colours_of,
    decodings,
    error_html,
    esc,
    metric,
    sentence_grid_html,
    span_text,
)
from ner_recall.app.examples import example_annotation_files
from ner_recall.app.uploads import Upload, scrubbed, upload_paths


def read_annotations(files: Any) -> dict:
    """The annotators of the uploaded files: ``{"annotations", "names", "tokens", "kind"}``. Two or
    more files of one format holding the same sentences, one per annotator; or one Label Studio
    export whose tasks hold two or more annotations (annotator k: the k-th annotation of a task)."""
    paths = upload_paths(files)
    placed: list[Upload | None] = []
    try:
        uploads = [Upload([p], f"annotator {k + 1}") for k, p in enumerate(paths)]
        placed = list(uploads)
        if len(uploads) == 1:
            return _one_file(uploads[0])
        if len(uploads) < 2:
            raise ValueError("upload two or more annotation files of the same sentences, one per annotator")
        read = VOCAB.read_systems(uploads[0].path, *(u.path for u in uploads[1:]))
        annotations = [read[0].references, *(r.predictions for r in read)]
        kind = "spans" if read[0].is_spans() else "tags"
        return {
            "annotations": annotations,
            "names": [u.name for u in uploads],
            "tokens": read[0].tokens,
            "kind": kind,
        }
    except ValueError as error:
        raise scrubbed(error, placed) from None


def _one_file(upload: Upload) -> dict:
    """The annotators of one Label Studio export (a .json file); any other single file is refused."""
    one = ValueError("upload two or more annotation files of the same sentences, one per annotator")
    if not upload.name.lower().endswith(".json"):
        raise one
    annotated = metric("spans").read_annotated(upload.path, format="label-studio")
    if not annotated.annotators or len(annotated.annotators) < 2:
        raise ValueError(
            f"{upload.name} holds one annotator: upload one file per annotator, or a Label Studio "
            "export whose tasks hold two or more annotations"
        )
    names = [f"{upload.name} #{k + 1}" for k in range(len(annotated.annotators))]
    spans = [
        [[{k: e[k] for k in ("label", "start", "end")} for e in ex] for ex in a] for a in annotated.annotators
    ]
    return {"annotations": spans, "names": names, "tokens": annotated.texts, "kind": "spans"}


def agreement_uploads(
    files: Any, decoding: str = LENIENT, suffix: bool = False, resamples: float = 0
) -> dict:
    """The Agreement tab's state: the annotators read and ``metric.agreement``'s results."""
    state = read_annotations(files)
    scheme, mode = decodings()[decoding]
    tags = state["kind"] == "tags"
    state["options"] = dict(scheme=scheme, mode=mode, suffix=bool(suffix)) if tags else {}
    config = "default" if tags else "spans"
    texts = state["tokens"]
    # spans: kappa counts each text's characters, so the files' texts go along (without them the
    # metric's own error says texts= is needed)
    given = {} if tags or not texts or not all(isinstance(t, str) for t in texts) else {"texts": texts}
    state["agreement"] = metric(config).agreement(
        state["annotations"], ci_resamples=int(resamples or 0), **state["options"], **given
    )
    return state


def pair_names(state: dict, pair: str) -> tuple[str, str]:
    """The two annotators' names of a pair key ``"i-j"``."""
    i, j = map(int, pair.split("-"))
    return state["names"][i], state["names"][j]


def pair_choices(state: dict) -> list[tuple[str, str]]:
    """The pair picker's choices: (the names shown, the metric's pair key)."""
    return [(" / ".join(pair_names(state, pair)), pair) for pair in state["agreement"]["pairs"]]


def _with_interval(value: float, interval: list | None) -> str:
    text = f"{value:.4f}"
    return text + (f" [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else "")


def agreement_table_html(state: dict) -> str:
    """Per pair of annotators F1 per MUC mode (with intervals), then kappa and alpha."""
    out = state["agreement"]
    modes = VOCAB.MODES
    head = "<th>pair</th>" + "".join(f"<th>F1 {m}</th>" for m in modes) + "<th>disagreements</th>"
    rows = []
    for pair, table in out["pairs"].items():
        first, second = pair_names(state, pair)
        cells = "".join(
            f'<td data-mode="{m}">{_with_interval(table[m], table.get("intervals", {}).get(m))}</td>'
            for m in modes
        )
        rows.append(
            f"<tr{attrs(data_pair=pair)}><td>{esc(first)} / {esc(second)}</td>{cells}"
            f"<td>{len(table['disagreements'])}</td></tr>"
        )
    mean = "".join(f"<td>{out['f1'][m]:.4f}</td>" for m in modes)
    rows.append(f"<tr><td><b>mean</b></td>{mean}<td></td></tr>")
    kappa, alpha = out["kappa"], out["alpha"]
    summary = (
        f'<p class="agreement-summary">{ {"cohen": "Cohen&#39;s", "fleiss": "Fleiss&#39;"}[kappa["method"]] } kappa over {kappa["tokens"]:,} tokens: '
        f'<b data-key="kappa">{_with_interval(kappa["value"], kappa.get("interval"))}</b>; Krippendorff\'s alpha '
        f'over {alpha["units"]:,} aligned units, strict <b data-key="alpha-strict">'
        f"{_with_interval(alpha['strict']['value'], alpha['strict'].get('interval'))}</b>, type "
        f'<b data-key="alpha-type">{_with_interval(alpha["type"]["value"], alpha["type"].get("interval"))}</b>.</p>'
    )
    table = f'<table class="ner-slices agreement"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return f'<div class="table-scroll">{table}</div>{summary}'


def annotator_spans(state: dict, k: int, i: int) -> list[tuple]:
    """Annotator ``k``'s entities in sentence ``i`` as (label, start, end) tuples."""
    sentence = state["annotations"][k][i]
    if state["kind"] == "spans":
        return [(e["label"], e["start"], e["end"]) for e in sentence]
    options = state["options"]
    return [tuple(s) for s in metric().decode(sentence, scheme=options["scheme"], suffix=options["suffix"])]


def disagreement_card(state: dict, d: dict, pair: tuple[int, int], colours: dict[str, str]) -> str:
    """One disagreement drawn in its sentence: one annotator above, the other below, outlined."""
    (i, j), s = pair, d["sentence"]
    names = [state["names"][i], state["names"][j]]
    tokens = state["tokens"][s]
    kind = esc(d["kind"])
    marks = " → ".join(f"{esc(name)} {span_text(e, tokens)}" for name, e in zip(names, (d["a"], d["b"])) if e)
    head = (
        f'<div class="error-head"><span class="pill seg-{kind}">{kind}</span> sentence {s + 1}'
        f'<span class="error-pair">{marks}</span></div>'
    )
    card = f'<div class="error-card" data-kind="{kind}" data-sentence="{s}">'
    if isinstance(tokens, str):
        return f"{card}{head}</div>"
    start = min(e[1] for e in (d["a"], d["b"]) if e)
    end = max(e[2] for e in (d["a"], d["b"]) if e)
    grid = sentence_grid_html(
        tokens,
        annotator_spans(state, i, s),
        annotator_spans(state, j, s),
        colours,
        focus={tuple(e) for e in (d["a"], d["b"]) if e},
        window=(max(0, start - CONTEXT), min(len(tokens), end + CONTEXT)),
        sides=(names[0], names[1]),
    )
    return f"{card}{head}{grid}</div>"


def disagreements_html(state: dict | None, pair: str | None = None) -> str:
    """The disagreements of one pair, each drawn in its sentence: one annotator above, the other below."""
    if not state:
        return ""
    pairs = state["agreement"]["pairs"]
    key: str = pair if pair is not None and pair in pairs else next(iter(pairs))
    i, j = map(int, key.split("-"))
    first, second = pair_names(state, key)
    listed = pairs[key]["disagreements"]
    colours = colours_of({e[0] for d in listed for e in (d["a"], d["b"]) if e})
    cards = "".join(disagreement_card(state, d, (i, j), colours) for d in listed[:ERROR_PAGE])
    more = f", the first {ERROR_PAGE} shown" if len(listed) > ERROR_PAGE else ""
    return (
        f'<p class="error-count" data-count="{len(listed)}">{len(listed)} disagreement(s) between '
        f"<b>{esc(first)}</b> and <b>{esc(second)}</b>{more}; {esc(first)} above, "
        f"{esc(second)} below, the disagreeing entities outlined.</p>" + cards
    )


def agreement_view(
    files: Any, decoding: str, suffix: bool, resamples: float, progress: Any = gr.Progress()
) -> tuple:
    """The Agreement tab's outputs: error, results visibility, table, pair choice, disagreements, state."""
    try:
        progress(0.1, desc="Reading the annotations and computing the agreement")
        state = agreement_uploads(files, decoding, suffix, resamples)
    except Exception as error:  # noqa: BLE001 -- shown in the page
        box = error_html(
            error,
            "Cannot compare these annotations",
            "Upload two or more files of one format, same sentences.",
        )
        return box, gr.Column(visible=False), "", gr.Dropdown(choices=[], value=None), "", None
    choices = pair_choices(state)
    return (
        "",
        gr.Column(visible=True),
        agreement_table_html(state),
        gr.Dropdown(choices=choices, value=choices[0][1]),
        disagreements_html(state, choices[0][1]),
        state,
    )


def agreement_tab() -> None:
    gr.Markdown(
        "How far do annotators agree? Upload one file per annotator (CoNLL, JSONL or an annotation "
        "tool's export, the same sentences), or one Label Studio export with several annotations per "
        "task: F1 of every pair in each MUC mode, Cohen's or Fleiss' kappa over tokens, Krippendorff's "
        "alpha over aligned entities, each with its interval, and every disagreement drawn in its sentence."
    )
    files = gr.File(
        label="Annotation files (two or more, or one Label Studio export)",
        file_count="multiple",
        elem_id="agreement-files",
    )
    with gr.Row(equal_height=True):
        decoding = gr.Dropdown(list(decodings()), value=LENIENT, label="Decoding (scheme, mode)", scale=2)
        suffix = gr.Checkbox(False, label="suffix=True (tags like PER-B)", scale=1)
        resamples = gr.Slider(0, 2000, value=200, step=100, label="Bootstrap resamples (intervals)", scale=2)
        example = gr.Button("Example files", scale=1, elem_id="agreement-example")
        button = gr.Button("Score agreement", variant="primary", scale=1, elem_id="agreement-button")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="agreement-stop")
    error = gr.HTML(elem_id="agreement-error")
    state = gr.State()
    with gr.Column(visible=False) as results:
        table = gr.HTML(elem_id="agreement-table")
        gr.Markdown("### Disagreements (adjudication)")
        pair = gr.Dropdown([], label="Pair of annotators", elem_id="agreement-pair")
        listing = gr.HTML(elem_id="agreement-disagreements")
    inputs = [files, decoding, suffix, resamples]
    outputs = [error, results, table, pair, listing, state]
    scoring = button.click(agreement_view, inputs, outputs)
    example_scoring = example.click(example_annotation_files, None, files).then(
        agreement_view, inputs, outputs
    )
    stop.click(None, None, None, cancels=[scoring, example_scoring])
    pair.input(disagreements_html, [state, pair], listing)
