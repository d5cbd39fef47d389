"""The app's page: a title and the six tabs, each built by its module."""

from __future__ import annotations

import gradio as gr

from ner_recall.app.about import about_tab
from ner_recall.app.agreement import agreement_tab
from ner_recall.app.compare import compare_tab, compare_view
from ner_recall.app.files import files_tab
from ner_recall.app.generated import generated_tab
from ner_recall.app.stratified import stratified_example_view, stratified_tab


def build_demo() -> gr.Blocks:
    """The Blocks of the app (the metric is loaded here, on first use, not at import)."""
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
            with gr.Tab("Generated", id="generated"):
                generated_tab()
            with gr.Tab("Agreement", id="agreement"):
                agreement_tab()
            with gr.Tab("Stratified recall", id="stratified"):
                example, strat_inputs, strat_outputs = stratified_tab()
            with gr.Tab("About", id="about"):
                about_tab()
        demo.load(compare_view, compare_inputs, compare_outputs)
        demo.load(stratified_example_view, [example, *strat_inputs[2:]], [*strat_inputs[:2], *strat_outputs])
    return demo
