"""Where we differ from seqeval, seqscore or nervaluate, on purpose: each row of the table in
docs/decoding.md ("Where we differ") is one test here, named in the table's last column.

Each test states what we do and what the peer does, so a change on either side shows here.
"""

import math
import os
import re
import sys
import warnings

import pytest
from nervaluate import Evaluator
from seqeval.metrics import accuracy_score, classification_report
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import IOB2, Tokens

from ner_recall.core import decoding as D
from ner_recall.core import decoding_report as R
from ner_recall.core import vocabulary as ner_core

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "decoding.md")


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


def seqeval_both(tags):
    """seqeval's entities of one sequence in its default mode and in strict IOB2 mode, (type, start, end
    exclusive), or the name of the exception it raises."""
    out = []
    for decode in (
        lambda: [(t, a, b + 1) for t, a, b in get_entities(tags)],
        lambda: [(e.tag, e.start, e.end) for e in Tokens(tags, IOB2).entities],
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(decode())
            except Exception as error:  # noqa: BLE001 - the peer's error is the point
                out.append(type(error).__name__)
    return out


def test_bilou_tags_in_lenient_mode_are_an_error(metric):
    tags = ["U-PER", "B-PER", "L-PER"]
    assert seqeval_both(tags)[0] == [("PER", 1, 3)]  # seqeval: U-PER lost
    with pytest.raises(ValueError, match=r"at predictions\[0\]\[0\].*use mode='strict', scheme='BILOU'"):
        metric.compute(predictions=[tags], references=[["O"] * 3])
    results = metric.compute(predictions=[tags], references=[tags], mode="strict", scheme="BILOU")
    assert results["overall_f1"] == 1.0 and results["PER"]["number"] == 2


def test_bare_types_need_scheme_io(metric):
    tags = ["PER", "PER", "O"]
    assert seqeval_both(tags)[0] == [("ER", 0, 2)]  # seqeval: prefix 'P', type 'ER', with a warning
    with pytest.raises(ValueError, match=r"invalid tag 'PER' at predictions\[0\]\[0\].*scheme='IO'"):
        metric.compute(predictions=[tags], references=[tags])
    results = metric.compute(predictions=[tags], references=[tags], mode="strict", scheme="IO")
    assert results["PER"]["number"] == 1


def test_io_reads_bare_types_as_well_as_i_tags():
    from seqscore.encoding import EncodingError, get_encoding

    io = get_encoding("IO")
    with pytest.raises(EncodingError):  # seqscore's IO takes I-PER only
        io.decode_labels(["PER", "O"])
    assert D.tags_to_spans(["PER", "I-PER", "O"], scheme="IO") == [ner_core.Span("PER", 0, 2)]


def test_untyped_and_typed_tags_do_not_mix(metric):
    tags = ["B", "I", "B-PER"]
    assert seqeval_both(tags) == [[("_", 0, 2), ("PER", 2, 3)]] * 2  # seqeval: untyped tags are a type '_'
    with pytest.raises(
        ValueError, match=r"tag 'B' at predictions\[0\]\[0\] has no entity type but tag 'B-PER'"
    ):
        metric.compute(predictions=[tags], references=[tags])


def test_an_empty_type_is_an_error(metric):
    assert seqeval_both(["B-", "I-"]) == [[("_", 0, 2)]] * 2  # seqeval: the type '_'
    with pytest.raises(ValueError, match=r"tag 'B-' at predictions\[0\]\[0\] has an empty entity type"):
        metric.compute(predictions=[["B-", "I-"]], references=[["O", "O"]])


def assert_tag_error(metric, tag, seqeval, reason):
    assert seqeval_both([tag]) == seqeval
    with pytest.raises(
        ValueError, match=rf"tag {re.escape(repr(tag))} at predictions\[0\]\[0\] {re.escape(reason)}"
    ):
        metric.compute(predictions=[[tag]], references=[["O"]])


@pytest.mark.parametrize(
    "tag, seqeval, reason",
    [
        ("", ["IndexError", "IndexError"], "is empty"),
        ("B-PER ", [[("PER ", 0, 1)]] * 2, "has whitespace or an invisible character at its start or end"),
        ("B-PER\r", [[("PER\r", 0, 1)]] * 2, "has whitespace or an invisible character at its start or end"),
        ("B-PER\x00", [[("PER\x00", 0, 1)]] * 2, "contains the control character"),
    ],
)
def test_empty_tags_and_invisible_characters_are_errors(metric, tag, seqeval, reason):
    assert_tag_error(metric, tag, seqeval, reason)


def test_a_type_that_begins_or_ends_with_a_hyphen_is_an_error(metric):
    # seqeval's two modes disagree on the type
    assert_tag_error(
        metric,
        "B--PER",
        [[("-PER", 0, 1)], [("PER", 0, 1)]],
        "has the entity type '-PER', which begins or ends with '-'",
    )


def test_o_is_not_an_entity_type(metric):
    assert_tag_error(
        metric, "B-O", [[("O", 0, 1)]] * 2, "has the entity type 'O', the name of the outside tag"
    )


def test_prefixes_are_upper_case(metric):
    assert_tag_error(metric, "b-PER", [[("PER", 0, 1)], "KeyError"], "has the lower-case prefix 'b'")


@pytest.mark.parametrize(
    "tag, seqeval",
    [
        ("BPER", [[("PER", 0, 1)]] * 2),  # read as B-PER
        ("O-PER", [[], []]),  # read as O
        ("-", [[], "KeyError"]),
    ],
)
def test_tags_without_a_prefix_and_hyphen_are_errors(metric, tag, seqeval):
    assert seqeval_both([tag]) == seqeval
    with pytest.raises(ValueError, match=rf"invalid tag {re.escape(repr(tag))} at predictions\[0\]\[0\]"):
        metric.compute(predictions=[[tag]], references=[["O"]])


def test_suffix_must_be_a_bool(metric):
    tags = ["PER-B", "PER-I"]
    assert get_entities(tags, suffix="no") == [("PER", 0, 1)]  # seqeval: any truthy value
    with pytest.raises(ValueError, match="suffix must be True or False; got 'no'"):
        metric.compute(predictions=[tags], references=[tags], suffix="no")


def test_ill_formed_iobes_is_decoded_strictly_and_counted():
    from seqscore.encoding import get_encoding
    from seqscore.validation import validate_labels

    tags = ["B-PER", "I-PER", "O", "S-LOC"]
    bioes = get_encoding("BIOES")
    assert not validate_labels(tags, bioes).is_valid()
    with pytest.raises(NotImplementedError):  # seqscore: no repair for BIOES
        bioes.repair_labels(tags, "discard")
    corpus = D.encode([tags], [tags], scheme="IOBES")
    spans = D.decode(corpus.references, corpus, "IOBES")
    report = R.decoding_report(corpus.references, corpus, spans, "IOBES")
    assert len(spans) == 1 and report["dropped"] == 1 and report["reasons"]["not_closed"] == 1


def test_the_decoding_block_shows_what_lenient_mode_repaired(metric):
    references = [["B-PER", "I-PER", "O"]]
    predictions = [["O", "I-PER", "O"]]
    lenient = metric.compute(predictions=predictions, references=references)
    strict = metric.compute(predictions=predictions, references=references, mode="strict", scheme="IOB2")
    # seqeval reports the two numbers and nothing else; here the block says why they differ
    assert seqeval_report(references, predictions)["micro avg"]["f1-score"] == lenient["overall_f1"] == 0.0
    assert (
        lenient["decoding"]["predictions"]["repaired"] == 1
        and strict["decoding"]["predictions"]["dropped"] == 1
    )


def test_zero_division_warn_and_sample_weight_are_not_offered(metric):
    references = [["B-PER", "O"]]
    seqeval_report(references, references, sample_weight=[1])  # seqeval takes both
    classification_report(references, references, zero_division="warn")
    with pytest.raises(ValueError, match="zero_division must be one of"):
        metric.compute(predictions=references, references=references, zero_division="warn")
    with pytest.raises(ValueError, match="unknown compute option 'sample_weight'"):
        metric.compute(predictions=references, references=references, sample_weight=[1])


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
    assert (
        theirs["entities"]["PER"]["strict"].missed == 1 and theirs["entities"]["LOC"]["strict"].spurious == 1
    )
    per_type = metric.compute(predictions=pred, references=gold)["muc"]["strict"]["per_type"]
    assert (per_type["PER"]["incorrect"], per_type["PER"]["possible"], per_type["PER"]["actual"]) == (1, 1, 0)
    assert (per_type["LOC"]["spurious"], per_type["LOC"]["possible"], per_type["LOC"]["actual"]) == (0, 0, 1)


def test_every_row_of_the_table_is_pinned_here():
    text = open(DOCS, encoding="utf-8").read().split("## Where we differ", 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("| ")][1:]  # the header row first
    named = [re.fullmatch(r"`(test_\w+)`", row.rstrip(" |").rsplit("| ", 1)[1]).group(1) for row in rows]
    module = sys.modules[__name__]
    tests = {
        name
        for name in dir(module)
        if name.startswith("test_") and name != "test_every_row_of_the_table_is_pinned_here"
    }
    assert len(named) == len(set(named)) and set(named) == tests  # one test per row, one row per test


def test_iobes_in_lenient_mode_differs_from_conlleval(metric):
    from test_conlleval import iobes_differs

    iobes_differs(metric)  # conlleval.pl's stored counts against ours, and the hand case S-PER S-PER


def test_docstart_lines_are_no_tokens(tmp_path, metric):
    from test_conlleval import docstart_is_no_token

    docstart_is_no_token(tmp_path, metric)
