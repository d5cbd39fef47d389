"""Where we differ from seqeval or nervaluate, on purpose: each case of the README's list.

Each test states what we do and what the peer does, so a change on either side shows here.
"""

import math
import warnings

import pytest
from nervaluate import Evaluator
from seqeval.metrics import accuracy_score, classification_report
from seqeval.metrics.sequence_labeling import get_entities


def seqeval_report(references, predictions, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return classification_report(references, predictions, output_dict=True, zero_division=0, **options)


def test_strict_mode_without_scheme_is_an_error_not_a_guess(metric):
    references = [["B-PER", "E-PER"]]
    # seqeval guesses the scheme from the references (here IOBES) ...
    assert seqeval_report(references, references, mode="strict")["PER"]["support"] == 1
    # ... we ask for it
    with pytest.raises(ValueError, match="mode='strict' needs a scheme"):
        metric.compute(predictions=references, references=references, mode="strict")


def test_scheme_without_strict_mode_is_an_error_not_ignored(metric):
    references, predictions = [["I-PER", "I-PER"]], [["B-PER", "I-PER"]]
    # seqeval ignores the scheme and decodes leniently: I-PER I-PER is an entity
    from seqeval.scheme import IOB2
    assert seqeval_report(references, predictions, scheme=IOB2)["micro avg"]["f1-score"] == 1.0
    with pytest.raises(ValueError, match="only applies with mode='strict'"):
        metric.compute(predictions=predictions, references=references, scheme="IOB2")


@pytest.mark.parametrize("tags", [["U-PER", "B-PER"], ["PER", "O"], ["B", "I"], ["B-", "O"]])
def test_lenient_mode_rejects_what_it_cannot_read(metric, tags):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        get_entities(tags)  # seqeval decodes these (into '_' types or garbage), with a warning at most
    with pytest.raises(ValueError, match=r"at predictions\[0\]\[0\]"):
        metric.compute(predictions=[tags], references=[["O"] * len(tags)])


def test_bilou_is_read_in_strict_mode(metric):
    results = metric.compute(predictions=[["U-PER", "B-LOC", "L-LOC"]], references=[["U-PER", "B-LOC", "L-LOC"]],
                             mode="strict", scheme="BILOU")
    assert results["overall_f1"] == 1.0 and results["LOC"]["number"] == 1


def test_averages_without_any_entity_follow_zero_division(metric):
    references = [["O", "O"]]
    report = seqeval_report(references, references)
    assert math.isnan(report["macro avg"]["f1-score"])  # numpy's mean of nothing
    results = metric.compute(predictions=references, references=references, zero_division=1)
    assert results["macro_f1"] == results["weighted_f1"] == 1.0


def test_accuracy_without_tokens_follows_zero_division(metric):
    with pytest.raises(ZeroDivisionError):
        accuracy_score([[]], [[]])
    assert metric.compute(predictions=[[]], references=[[]])["overall_accuracy"] == 0.0


def test_ambiguous_overlaps_do_not_depend_on_list_order(metric):
    gold_tags = ["B-PER", "I-PER", "I-PER", "B-PER", "I-PER", "I-PER", "I-PER", "I-PER", "O"]
    pred_tags = ["O", "O", "B-PER", "I-PER", "I-PER", "I-PER", "O", "B-PER", "I-PER"]
    gold = [{"label": s.label, "start": s.start, "end": s.end - 1} for s in metric.decode(gold_tags)]
    pred = [{"label": s.label, "start": s.start, "end": s.end - 1} for s in metric.decode(pred_tags)]

    def nervaluate(gold_list):
        result = Evaluator([gold_list], [pred], tags=["PER"], loader="dict").evaluate()["overall"]["strict"]
        return result.incorrect, result.missed, result.spurious

    assert nervaluate(gold) != nervaluate(gold[::-1])  # (2, 0, 0) versus (1, 1, 1)
    strict = metric.compute(predictions=[pred_tags], references=[gold_tags])["muc"]["strict"]
    assert (strict["incorrect"], strict["missed"], strict["spurious"]) == (2, 0, 0)


def test_any_shared_token_is_an_overlap_however_long_the_gold_span(metric):
    gold = ["B-LOC"] + ["I-LOC"] * 149 + ["O"]
    pred = ["O"] * 149 + ["B-LOC", "O"]  # one token of 150: under nervaluate's 1% threshold
    theirs = Evaluator([gold], [pred], tags=["LOC"], loader="list").evaluate()["overall"]["partial"]
    assert (theirs.partial, theirs.missed, theirs.spurious) == (0, 1, 1)
    ours = metric.compute(predictions=[pred], references=[gold])["muc"]["partial"]
    assert (ours["partial"], ours["missed"], ours["spurious"]) == (1, 0, 0)


def test_per_type_tables_add_up_across_types(metric):
    gold, pred = [["B-PER", "I-PER", "O"]], [["B-LOC", "I-LOC", "O"]]
    theirs = Evaluator(gold, pred, tags=["PER", "LOC"], loader="list").evaluate()
    # nervaluate scores each type alone: the pair is a miss for PER and a spurious LOC
    assert theirs["overall"]["strict"].incorrect == 1
    assert theirs["entities"]["PER"]["strict"].missed == 1 and theirs["entities"]["LOC"]["strict"].spurious == 1
    per_type = metric.compute(predictions=pred, references=gold)["muc"]["strict"]["per_type"]
    assert (per_type["PER"]["incorrect"], per_type["PER"]["possible"], per_type["PER"]["actual"]) == (1, 1, 0)
    assert (per_type["LOC"]["spurious"], per_type["LOC"]["possible"], per_type["LOC"]["actual"]) == (0, 0, 1)
