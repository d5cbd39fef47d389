"""Span input: validation, layout, and the same numbers as tags where both can be posed."""

import random

import numpy as np
import pytest

import ner_decoding as D
import ner_matching as M
import ner_scorings as S
from ner_spans import SpanCorpus, check_entities, encode_spans, spans_from_arrays
from test_parity import random_corpus


def ent(label, start, end):
    return {"label": label, "start": start, "end": end}


# ---------------------------------------------------------------------------- core pipeline


def core_scores(corpus, gold, pred, types=None, label_map=None, zero_division=0):
    """What the metric computes from one side's spans, through the core functions."""
    options = S.check_scoring_options(scores=S.SCORES, types=types, label_map=label_map)
    view = S.restrict(corpus, gold, pred, options)
    matching = M.match(view.gold, view.pred)
    counts = M.count(view.gold, view.pred, matching, view.types, view.tokens_correct, 1)
    results = M.seqeval_scores(counts, zero_division)
    results["muc"] = M.muc_scores(counts, zero_division)
    correct, number, predicted = S.token_counts(view.gold, view.pred, len(view.types))
    results["token"] = M.prf_table(correct, correct, number, predicted, view.types, zero_division)
    hits = S.overlap_hits(view.gold, view.pred, matching)
    results["overlap"] = M.prf_table(*S.overlap_counts(view.gold, view.pred, hits, len(view.types)), view.types,
                                     zero_division)
    results["harem"] = S.harem_counts(view.gold, view.pred, S.harem_alignment(view.gold, view.pred, matching))
    results["errors"] = S.error_listing(view, matching, M.OUTCOME_TABLE, hits,
                                        S.harem_alignment(view.gold, view.pred, matching))
    del results["overall_accuracy"]  # no tokens in span input
    return results


def tag_scores(references, predictions, scheme=None, **options):
    corpus = D.encode(predictions, references, scheme=scheme)
    gold, pred = D.decode(corpus.references, corpus, scheme), D.decode(corpus.predictions, corpus, scheme)
    return corpus, gold, pred, core_scores(corpus, gold, pred, **options)


def span_scores(references, predictions, **options):
    corpus = encode_spans(predictions, references)
    return core_scores(corpus, corpus.gold, corpus.pred, **options)


def decoded(corpus, gold, pred):
    n = len(corpus.lengths)
    return spans_from_arrays(gold, corpus.types, n), spans_from_arrays(pred, corpus.types, n)


# ---------------------------------------------------------------------------- layout


def test_layout_gives_each_example_its_own_range():
    corpus = encode_spans([[ent("A", 0, 4)], [ent("A", 0, 1)], []],
                          [[ent("B", 2, 3)], [], [ent("A", 5, 7)]])
    assert isinstance(corpus, SpanCorpus)
    # widths: example 0 ends at 4, example 1 at 1, so example 2 starts at 5 + 2
    assert corpus.pred.start.tolist() == [0, 5]
    assert corpus.gold.start.tolist() == [2, 12]
    assert corpus.gold.offset.tolist() == [2, 5] and corpus.gold.sentence.tolist() == [0, 2]


def test_sides_sorted_by_start_end_type_and_types_sorted():
    example = [ent("C", 2, 4), ent("B", 0, 3), ent("A", 0, 3), ent("A", 0, 1)]
    corpus = encode_spans([example], [[]])
    assert corpus.types == ("A", "B", "C")
    rows = list(zip(corpus.pred.start.tolist(), corpus.pred.end.tolist(), corpus.pred.type.tolist()))
    assert rows == [(0, 1, 0), (0, 3, 0), (0, 3, 1), (2, 4, 2)]


def test_round_trip_through_spans_from_arrays():
    examples = [[ent("A", 0, 2), ent("B", 1, 5)], [], [ent("A", 3, 4)]]
    corpus = encode_spans(examples, [[], [], []])
    back = spans_from_arrays(corpus.pred, corpus.types, 3)
    assert [sorted(e, key=lambda d: (d["start"], d["end"], d["label"])) for e in examples] == back


def test_numpy_integers_are_offsets():
    corpus = encode_spans([[{"label": "A", "start": np.int64(1), "end": np.int32(3)}]], [[]])
    assert corpus.pred.end.tolist() == [3]


def test_corpus_counts_no_tokens():
    corpus = encode_spans([[ent("A", 0, 2)]], [[ent("A", 0, 2)]])
    options = S.check_scoring_options(label_map={"A": "B"})
    assert S.restrict(corpus, corpus.gold, corpus.pred, options).tokens_correct == 0
    assert S.restrict(corpus, corpus.gold, corpus.pred, S.check_scoring_options()).tokens_correct == 0


# ---------------------------------------------------------------------------- bad input

BAD = [
    ("start == end", [[ent("A", 2, 2)]], r"predictions\[0\]\[0\] \{'label': 'A', 'start': 2, 'end': 2\}: start must be < end"),
    ("start > end", [[], [ent("A", 0, 1), ent("A", 3, 2)]], r"predictions\[1\]\[1\] .*start must be < end"),
    ("negative", [[ent("A", -1, 2)]], r"predictions\[0\]\[0\] .*offsets must be >= 0"),
    ("float offset", [[ent("A", 0.0, 2)]], r"predictions\[0\]\[0\] .*start must be an int"),
    ("bool offset", [[ent("A", 0, True)]], r"predictions\[0\]\[0\] .*end must be an int"),
    ("str offset", [[ent("A", "0", 2)]], r"predictions\[0\]\[0\] .*start must be an int"),
    ("None offset", [[ent("A", 0, None)]], r"predictions\[0\]\[0\] .*end must be an int"),
    ("empty label", [[ent("A", 0, 1), ent("", 0, 1)]], r"predictions\[0\]\[1\] .*label must be a non-empty str"),
    ("None label", [[ent(None, 0, 1)]], r"predictions\[0\]\[0\] .*label must be a non-empty str"),
    ("int label", [[ent(3, 0, 1)]], r"predictions\[0\]\[0\] .*label must be a non-empty str"),
    ("missing label", [[{"start": 0, "end": 1}]], r"predictions\[0\]\[0\] .*missing key 'label'"),
    ("missing end", [[{"label": "A", "start": 0}]], r"predictions\[0\]\[0\] .*missing key 'end'"),
    ("unknown key", [[{"label": "A", "start": 0, "end": 1, "score": 0.9}]], r"predictions\[0\]\[0\] .*unknown key 'score'"),
    ("typo key", [[{"lable": "A", "start": 0, "end": 1}]], r"predictions\[0\]\[0\] .*unknown key 'lable'"),
    ("tuple entity", [[("A", 0, 1)]], r"predictions\[0\]\[0\] .*must be a dict"),
    ("example not a list", ["A"], r"predictions\[0\] must be a list of entities"),
    ("example a dict", [ent("A", 0, 1)], r"predictions\[0\] must be a list of entities"),
    ("reserved label", [[ent("overall_f1", 0, 1)]], r"predictions\[0\]\[0\] .*'overall_f1' collides with a result key"),
]


@pytest.mark.parametrize("name, predictions, message", BAD, ids=[b[0] for b in BAD])
def test_bad_entities_name_example_and_entity(name, predictions, message):
    references = [[] for _ in predictions]
    with pytest.raises(ValueError, match=message):
        encode_spans(predictions, references, reserved={"overall_f1", "muc"})


@pytest.mark.parametrize("name, references, message", BAD, ids=[b[0] for b in BAD])
def test_bad_references_are_named_too(name, references, message):
    predictions = [[] for _ in references]
    with pytest.raises(ValueError, match=message.replace("predictions", "references")):
        encode_spans(predictions, references, reserved={"overall_f1", "muc"})


def test_first_bad_entity_is_named_whatever_its_problem():
    examples = [[ent("A", 0, 1)], [ent("A", 4, 2), ent("", 0, 1)], [ent("A", 0.5, 1)]]
    with pytest.raises(ValueError, match=r"\[1\]\[0\]"):
        check_entities(examples, "references")


def test_an_entity_with_two_problems_gets_one_message():
    with pytest.raises(ValueError, match=r"predictions\[0\]\[0\] .*offsets must be >= 0"):
        encode_spans([[ent("", -1, 2)]], [[]])


def test_offsets_past_the_text():
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] .*past the end of the text"):
        encode_spans([[], []], [[], [ent("A", 3, 6)]], texts=["abcdef", "abcde"])
    encode_spans([[], []], [[], [ent("A", 3, 5)]], texts=["abcdef", "abcde"])


@pytest.mark.parametrize("texts, message", [
    ("ab", "texts must be a list of str"),
    (["ab"], "texts has 1 items but there are 2 examples"),
    (["ab", 3], r"texts\[1\] must be a str"),
])
def test_bad_texts(texts, message):
    with pytest.raises(ValueError, match=message):
        encode_spans([[], []], [[], []], texts=texts)


@pytest.mark.parametrize("predictions, references, message", [
    ([[]], [[], []], "predictions has 1 examples but references has 2"),
    ("abc", "abc", "predictions must be a list of examples"),
    (None, [[]], "predictions must be a list of examples"),
])
def test_bad_corpora(predictions, references, message):
    with pytest.raises(ValueError, match=message):
        encode_spans(predictions, references)


# ---------------------------------------------------------------------------- flat input: tags == spans


def assert_same_scores(tags, spans):
    assert tags.keys() == spans.keys()
    assert tags == spans


@pytest.mark.parametrize("seed", range(6))
def test_decoded_spans_score_like_their_tags(seed):
    """Thousands of small random corpora: the span path gives the tag path's numbers exactly."""
    rng = random.Random(seed)
    for k in range(400):
        references, predictions = random_corpus(rng.random(), rng.randint(1, 6), prefixes="OOOBIES",
                                                types="ABC", max_len=10)
        if not any(references):
            continue
        corpus, gold, pred, tags = tag_scores(references, predictions)
        gold_spans, pred_spans = decoded(corpus, gold, pred)
        assert_same_scores(tags, span_scores(gold_spans, pred_spans)), (seed, k)


@pytest.mark.parametrize("options", [
    {"types": ["A", "C"]},
    {"label_map": {"B": "A"}},
    {"label_map": {"A": "Z"}, "types": ["Z", "B"]},
    {"zero_division": 1},
])
def test_decoded_spans_score_like_their_tags_with_options(options):
    rng = random.Random(str(options))
    for _ in range(300):
        references, predictions = random_corpus(rng.random(), rng.randint(1, 5), prefixes="OOBI",
                                                types="ABC", max_len=8)
        if not any(references):
            continue
        corpus, gold, pred, tags = tag_scores(references, predictions, **options)
        gold_spans, pred_spans = decoded(corpus, gold, pred)
        if "label_map" in options and "types" not in options:  # tag types without entities
            continue
        assert_same_scores(tags, span_scores(gold_spans, pred_spans, **options))


def test_a_large_tag_corpus_scores_like_its_spans():
    references, predictions = random_corpus(7, 3000, prefixes="OOOBIES")
    corpus, gold, pred, tags = tag_scores(references, predictions)
    assert_same_scores(tags, span_scores(*decoded(corpus, gold, pred)))


@pytest.mark.parametrize("scheme", sorted(D.SCHEMES))
def test_strict_schemes_score_like_their_spans(scheme):
    """Strict decoding may drop every entity of a type; its per-type rows are then all zero
    in the tag path and absent from the span path, the rest is equal."""
    references, predictions = random_corpus(scheme, 1500, prefixes="OO" + D.ALLOWED_PREFIXES[scheme])
    corpus, gold, pred, tags = tag_scores(references, predictions, scheme=scheme)
    spans = span_scores(*decoded(corpus, gold, pred))
    for mode in M.MODES:
        rows = tags["muc"][mode]["per_type"]
        tags["muc"][mode]["per_type"] = {t: r for t, r in rows.items() if r["possible"] + r["actual"]}
    assert_same_scores(tags, spans)


# ---------------------------------------------------------------------------- nervaluate's span cases

#: nervaluate's span-input test cases (its ends are inclusive: +1 here) with the tags it scores
NERVALUATE_CASES = [
    ("compute_metrics_case_1",
     [("PER", 59, 69), ("LOC", 127, 134), ("LOC", 164, 174), ("LOC", 197, 205), ("LOC", 208, 219), ("MISC", 230, 240)],
     [("PER", 24, 30), ("LOC", 124, 134), ("PER", 164, 174), ("LOC", 197, 205), ("LOC", 208, 219), ("LOC", 225, 243)],
     ["PER", "LOC", "MISC"]),
    ("extra_tags_in_prediction",
     [("PER", 50, 52), ("ORG", 59, 69), ("ORG", 71, 72)],
     [("LOC", 50, 52), ("ORG", 59, 69), ("MISC", 71, 72)], ["PER", "LOC", "ORG"]),
    ("extra_tags_in_true",
     [("PER", 50, 52), ("ORG", 59, 69), ("MISC", 71, 72)],
     [("LOC", 50, 52), ("ORG", 59, 69), ("ORG", 71, 72)], ["PER", "LOC", "ORG"]),
    ("no_predictions", [("PER", 50, 52), ("ORG", 59, 69), ("MISC", 71, 72)], [], ["PER", "ORG", "MISC"]),
    ("min_overlap_default", [("PER", 0, 9)], [("PER", 0, 2)], ["PER"]),
    ("min_overlap_one_token", [("PER", 0, 9)], [("PER", 9, 9)], ["PER"]),
    ("single_token_same_position", [("PER", 1, 1)], [("ORG", 1, 1)], ["PER", "ORG"]),
    ("single_token_missed", [("PER", 1, 1), ("ORG", 4, 4)], [("PER", 1, 1)], ["PER", "ORG"]),
]
NERVALUATE_MODE = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
MUC_KEYS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")


def exclusive(entities):
    return [ent(label, start, end + 1) for label, start, end in entities]


@pytest.mark.parametrize("name, gold, pred, tags", NERVALUATE_CASES, ids=[c[0] for c in NERVALUATE_CASES])
def test_nervaluate_span_cases(name, gold, pred, tags):
    from nervaluate import Evaluator

    inclusive = [[{"label": label, "start": s, "end": e} for label, s, e in side] for side in (gold, pred)]
    theirs = Evaluator([inclusive[0]], [inclusive[1]], tags=tags, loader="dict").evaluate()["overall"]
    ours = span_scores([exclusive(gold)], [exclusive(pred)], types=tags)["muc"]
    for mode, their_mode in NERVALUATE_MODE.items():
        assert {k: ours[mode][k] for k in MUC_KEYS} == {k: getattr(theirs[their_mode], k) for k in MUC_KEYS}, mode
        for k in ("precision", "recall", "f1"):
            assert ours[mode][k] == pytest.approx(getattr(theirs[their_mode], k), abs=1e-12)


def test_nervaluate_one_prediction_over_two_gold_entities():
    """nervaluate counts the one prediction twice (actual 2); one-to-one, it pairs with the
    gold entity of its type, and the other gold entity is missed."""
    gold = exclusive([("A", 0, 12), ("B", 14, 17)])
    for order in (gold, gold[::-1]):
        muc = span_scores([order], [exclusive([("A", 0, 17)])])["muc"]
        assert [muc["type"][k] for k in ("correct", "incorrect", "missed", "actual")] == [1, 0, 1, 1]
        assert [muc["partial"][k] for k in ("partial", "missed", "possible")] == [1, 1, 2]
