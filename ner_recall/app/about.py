"""The About tab: what each MUC mode counts, and SemEval-2013's six scenarios, each outcome
computed by the metric on the Compare tab's examples."""

from __future__ import annotations

import gradio as gr

from ner_recall.app.common import entity_pairs, metric, pairs_table_html
from ner_recall.app.examples import BATISTA_EXAMPLES, EXAMPLES


def scenario_table_html() -> str:
    """Batista's scenario table, each outcome computed by the metric on the scenario's example."""
    rows = []
    for name in BATISTA_EXAMPLES:
        case = EXAMPLES[name]
        results = metric().compute(predictions=[case.pred], references=[case.gold], errors=True)
        rows += [(name, case.tokens, pair, outcomes) for pair, outcomes in entity_pairs(results)]
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


def about_tab() -> None:
    gr.Markdown(ABOUT_MODES)
    gr.HTML(scenario_table_html(), elem_id="scenario-table")
    gr.Markdown(ABOUT_REST)
