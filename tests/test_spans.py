"""Span input: validation, layout, and the same numbers as tags where both can be posed."""

import random
import re

import numpy as np
import pytest
from test_parity import random_corpus

from ner_recall.core import counts as ner_counts
from ner_recall.core import decoding as D
from ner_recall.core import matching as M
from ner_recall.core import registry
from ner_recall.core import tags as T
from ner_recall.core import vocabulary as ner_core
from ner_recall.core.spans import SpanCorpus, check_entities, encode_spans, spans_from_arrays
from ner_recall.families import scorings as S


def ent(label, start, end):
    return {"label": label, "start": start, "end": end}


# ---------------------------------------------------------------------------- core pipeline


def core_scores(corpus, gold, pred, types=None, label_map=None, zero_division=0):
    """What the metric computes from one side's spans, through the core functions."""
    options = S.check_scoring_options(scores=registry.selectable(), types=types, label_map=label_map)
    view = S.select_and_relabel(corpus, gold, pred, options)
    matching = M.match(view.gold, view.pred)
    counts = ner_counts.count(view.gold, view.pred, matching, view.types, view.tokens_correct, 1)
    results = ner_counts.seqeval_scores(counts, zero_division)
    results["muc"] = ner_counts.muc_scores(counts, zero_division)
    correct, number, predicted = S.token_counts(view.gold, view.pred, len(view.types))
    results["token"] = ner_counts.prf_table(correct, correct, number, predicted, view.types, zero_division)
    hits = S.overlap_hits(view.gold, view.pred, matching)
    results["overlap"] = ner_counts.prf_table(
        *S.overlap_counts(view.gold, view.pred, hits, len(view.types)), view.types, zero_division
    )
    results["harem"] = S.harem_counts(view.gold, view.pred, S.harem_alignment(view.gold, view.pred, matching))
    results["errors"] = S.error_listing(
        view, matching, ner_core.OUTCOME_TABLE, hits, S.harem_alignment(view.gold, view.pred, matching)
    )
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
    corpus = encode_spans([[ent("A", 0, 4)], [ent("A", 0, 1)], []], [[ent("B", 2, 3)], [], [ent("A", 5, 7)]])
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
    assert S.select_and_relabel(corpus, corpus.gold, corpus.pred, options).tokens_correct == 0
    assert (
        S.select_and_relabel(corpus, corpus.gold, corpus.pred, S.check_scoring_options()).tokens_correct == 0
    )


# ---------------------------------------------------------------------------- bad input

BAD = [
    (
        "start == end",
        [[ent("A", 2, 2)]],
        r"predictions\[0\]\[0\] \{'label': 'A', 'start': 2, 'end': 2\}: start must be < end",
    ),
    ("start > end", [[], [ent("A", 0, 1), ent("A", 3, 2)]], r"predictions\[1\]\[1\] .*start must be < end"),
    ("negative", [[ent("A", -1, 2)]], r"predictions\[0\]\[0\] .*offsets must be >= 0"),
    ("huge offset", [[ent("A", 0, 2**64)]], r"predictions\[0\]\[0\] .*offsets must be >= 0 and < 2\*\*63"),
    ("float offset", [[ent("A", 0.0, 2)]], r"predictions\[0\]\[0\] .*start must be an int"),
    ("bool offset", [[ent("A", 0, True)]], r"predictions\[0\]\[0\] .*end must be an int"),
    ("str offset", [[ent("A", "0", 2)]], r"predictions\[0\]\[0\] .*start must be an int"),
    ("None offset", [[ent("A", 0, None)]], r"predictions\[0\]\[0\] .*end must be an int"),
    (
        "empty label",
        [[ent("A", 0, 1), ent("", 0, 1)]],
        r"predictions\[0\]\[1\] .*label must be a non-empty str",
    ),
    ("None label", [[ent(None, 0, 1)]], r"predictions\[0\]\[0\] .*label must be a non-empty str"),
    ("int label", [[ent(3, 0, 1)]], r"predictions\[0\]\[0\] .*label must be a non-empty str"),
    ("missing label", [[{"start": 0, "end": 1}]], r"predictions\[0\]\[0\] .*missing key 'label'"),
    ("missing end", [[{"label": "A", "start": 0}]], r"predictions\[0\]\[0\] .*missing key 'end'"),
    (
        "unknown key",
        [[{"label": "A", "start": 0, "end": 1, "score": 0.9}]],
        r"predictions\[0\]\[0\] .*unknown key 'score'",
    ),
    ("typo key", [[{"lable": "A", "start": 0, "end": 1}]], r"predictions\[0\]\[0\] .*unknown key 'lable'"),
    ("tuple entity", [[("A", 0, 1)]], r"predictions\[0\]\[0\] .*must be a dict"),
    ("example not a list", ["A"], r"predictions\[0\] must be a list of entities"),
    ("example a dict", [ent("A", 0, 1)], r"predictions\[0\] must be a list of entities"),
    (
        "reserved label",
        [[ent("overall_f1", 0, 1)]],
        r"predictions\[0\]\[0\] .*'overall_f1' collides with a result key",
    ),
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


@pytest.mark.parametrize(
    "texts, message",
    [
        ("ab", "texts must be a list of str"),
        (["ab"], "texts has 1 items but there are 2 examples"),
        (["ab", 3], r"texts\[1\] must be a str"),
    ],
)
def test_bad_texts(texts, message):
    with pytest.raises(ValueError, match=message):
        encode_spans([[], []], [[], []], texts=texts)


@pytest.mark.parametrize(
    "predictions, references, message",
    [
        ([[]], [[], []], "predictions has 1 examples but references has 2"),
        ("abc", "abc", "predictions must be a list of examples"),
        (None, [[]], "predictions must be a list of examples"),
        ([[]], None, "references must be a list of examples"),
    ],
)
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
        references, predictions = random_corpus(
            rng.random(), rng.randint(1, 6), prefixes="OOOBIES", types="ABC", max_len=10
        )
        if not any(references):
            continue
        corpus, gold, pred, tags = tag_scores(references, predictions)
        gold_spans, pred_spans = decoded(corpus, gold, pred)
        assert_same_scores(tags, span_scores(gold_spans, pred_spans)), (seed, k)


@pytest.mark.parametrize(
    "options",
    [
        {"types": ["A", "C"]},
        {"label_map": {"B": "A"}},
        {"label_map": {"A": "Z"}, "types": ["Z", "B"]},
        {"zero_division": 1},
    ],
)
def test_decoded_spans_score_like_their_tags_with_options(options):
    rng = random.Random(str(options))
    for _ in range(300):
        references, predictions = random_corpus(
            rng.random(), rng.randint(1, 5), prefixes="OOBI", types="ABC", max_len=8
        )
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
    references, predictions = random_corpus(scheme, 1500, prefixes="OO" + T.ALLOWED_PREFIXES[scheme])
    corpus, gold, pred, tags = tag_scores(references, predictions, scheme=scheme)
    spans = span_scores(*decoded(corpus, gold, pred))
    for mode in ner_core.MODES:
        rows = tags["muc"][mode]["per_type"]
        tags["muc"][mode]["per_type"] = {t: r for t, r in rows.items() if r["possible"] + r["actual"]}
    assert_same_scores(tags, spans)


# ---------------------------------------------------------------------------- nervaluate's span cases

#: nervaluate's span-input test cases (its ends are inclusive: +1 here) with the tags it scores
NERVALUATE_CASES = [
    (
        "compute_metrics_case_1",
        [
            ("PER", 59, 69),
            ("LOC", 127, 134),
            ("LOC", 164, 174),
            ("LOC", 197, 205),
            ("LOC", 208, 219),
            ("MISC", 230, 240),
        ],
        [
            ("PER", 24, 30),
            ("LOC", 124, 134),
            ("PER", 164, 174),
            ("LOC", 197, 205),
            ("LOC", 208, 219),
            ("LOC", 225, 243),
        ],
        ["PER", "LOC", "MISC"],
    ),
    (
        "extra_tags_in_prediction",
        [("PER", 50, 52), ("ORG", 59, 69), ("ORG", 71, 72)],
        [("LOC", 50, 52), ("ORG", 59, 69), ("MISC", 71, 72)],
        ["PER", "LOC", "ORG"],
    ),
    (
        "extra_tags_in_true",
        [("PER", 50, 52), ("ORG", 59, 69), ("MISC", 71, 72)],
        [("LOC", 50, 52), ("ORG", 59, 69), ("ORG", 71, 72)],
        ["PER", "LOC", "ORG"],
    ),
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
        assert {k: ours[mode][k] for k in MUC_KEYS} == {
            k: getattr(theirs[their_mode], k) for k in MUC_KEYS
        }, mode
        for k in ("precision", "recall", "f1"):
            assert ours[mode][k] == pytest.approx(getattr(theirs[their_mode], k), abs=1e-12)


def test_nervaluate_one_prediction_over_two_gold_entities():
    """One-to-one, the prediction pairs with the gold entity of its type, and the other gold
    entity is missed, in either order of the gold list."""
    gold = exclusive([("A", 0, 12), ("B", 14, 17)])
    for order in (gold, gold[::-1]):
        muc = span_scores([order], [exclusive([("A", 0, 17)])])["muc"]
        assert [muc["type"][k] for k in ("correct", "incorrect", "missed", "actual")] == [1, 0, 1, 1]
        assert [muc["partial"][k] for k in ("partial", "missed", "possible")] == [1, 1, 2]


# ---------------------------------------------------------------------------- the spans config

import evaluate  # noqa: E402

from conftest import METRIC_PATH, unsigned  # noqa: E402

ALL_SCORES = ["seqeval", "muc", "token", "overlap", "harem"]


@pytest.fixture(scope="module")
def spans_metric():
    return evaluate.load(METRIC_PATH, "spans")


@pytest.fixture(scope="module")
def tags_metric():
    return evaluate.load(METRIC_PATH)


def as_span_input(metric, sequences):
    return [[ent(*span) for span in metric.decode(tags)] for tags in sequences]


def test_spans_config_takes_the_decoded_spans_of_thousands_of_tag_corpora(tags_metric, spans_metric):
    rng = random.Random(19)
    for k in range(2000):
        references, predictions = random_corpus(
            rng.random(), rng.randint(1, 5), prefixes="OOOBIES", types="ABC", max_len=9
        )
        if not any(references):
            continue
        options = {"scores": ALL_SCORES, "errors": True, "zero_division": k % 2}
        tags = tags_metric._compute(predictions=predictions, references=references, **options)
        spans = spans_metric._compute(
            predictions=as_span_input(tags_metric, predictions),
            references=as_span_input(tags_metric, references),
            **options,
        )
        del tags["overall_accuracy"], tags["decoding"]  # what the tags' decoder did: no tags, no block
        assert unsigned(tags) == unsigned(spans), k  # the signatures name the config and decoding


def test_spans_config_through_compute(tags_metric, spans_metric):
    references, predictions = random_corpus(3, 300, prefixes="OOOBIES")
    tags = tags_metric.compute(
        predictions=predictions,
        references=references,
        types=["A", "B"],
        label_map={"C": "A"},
        scores=ALL_SCORES,
    )
    spans = spans_metric.compute(
        predictions=as_span_input(tags_metric, predictions),
        references=as_span_input(tags_metric, references),
        types=["A", "B"],
        label_map={"C": "A"},
        scores=ALL_SCORES,
    )
    assert "overall_accuracy" not in spans
    del tags["overall_accuracy"], tags["decoding"]
    assert unsigned(tags) == unsigned(spans)


def test_spans_subgroups_config(tags_metric):
    stratified = evaluate.load(METRIC_PATH, "subgroups")
    spans = evaluate.load(METRIC_PATH, "spans_subgroups")
    references, predictions = random_corpus(4, 200, prefixes="OOOBI")
    groups = [["news", "web", "mail"][i % 3] for i in range(200)]
    options = {"subgroup_weights": {"news": 5, "web": 3, "mail": 1}, "recall_mode": "partial"}
    tags = stratified.compute(predictions=predictions, references=references, subgroups=groups, **options)
    ours = spans.compute(
        predictions=as_span_input(tags_metric, predictions),
        references=as_span_input(tags_metric, references),
        subgroups=groups,
        **options,
    )
    assert ours["stratified_recall"] == tags["stratified_recall"]


@pytest.mark.parametrize(
    "config, options, message",
    [
        ("spans", {"scheme": "IOB2"}, "scheme needs the 'default' config"),
        ("spans", {"label_names": ["O", "B-A"]}, "label_names needs the 'default' config"),
        ("spans", {"subgroup_weights": {"a": 1}}, "subgroup_weights needs the 'subgroups' config"),
        ("default", {"texts": ["ab"]}, "texts needs the 'spans' config"),
        ("spans", {"texts": "ab"}, "texts must be a list of str"),
        (
            "spans",
            {"types": ["overall_f1"]},
            r"entity type 'overall_f1' \(types lists 'overall_f1'\) collides with a result key",
        ),
    ],
)
def test_options_of_the_span_configs(config, options, message):
    metric = evaluate.load(METRIC_PATH, config)
    inputs = [[ent("A", 0, 1)]] if config == "spans" else [["B-A"]]
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=inputs, references=inputs, **options)


def test_bad_entities_named_by_add_batch_and_add(spans_metric):
    metric = evaluate.load(METRIC_PATH, "spans")
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] .*unknown key 'type'"):
        metric.add_batch(predictions=[[], []], references=[[], [{"type": "A", "start": 0, "end": 1}]])
    with pytest.raises(ValueError, match=r"prediction\[1\] .*end must be an int"):
        metric.add(prediction=[ent("A", 0, 1), ent("A", 3, 1.5)], reference=[])
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] .*label must be a non-empty str"):
        metric.add_batch(predictions=[[], []], references=[[], [ent(None, 0, 1)]])
    metric.add(prediction=[], reference=[])
    metric.add(prediction=[ent("A", 0, 1), ent("A", 3, 1)], reference=[])  # values are checked by compute
    with pytest.raises(ValueError, match=r"predictions\[1\]\[1\] .*start must be < end"):
        metric.compute()
    with pytest.raises(ValueError, match=r"references\[0\]\[0\] .*'muc' collides with a result key"):
        metric.compute(predictions=[[]], references=[[ent("muc", 0, 1)]])


def test_no_examples(spans_metric):
    with pytest.raises(ValueError, match="no examples"):
        spans_metric._compute(predictions=[], references=[])


def test_texts_bound_character_offsets(spans_metric):
    ok = spans_metric.compute(predictions=[[ent("A", 0, 3)]], references=[[ent("A", 0, 3)]], texts=["abc"])
    assert ok["overall_f1"] == 1.0
    with pytest.raises(ValueError, match=r"predictions\[0\]\[0\] .*past the end of the text"):
        spans_metric.compute(predictions=[[ent("A", 0, 4)]], references=[[ent("A", 0, 3)]], texts=["abc"])
    with pytest.raises(ValueError, match="texts has 2 items but there are 1 examples"):
        spans_metric.compute(predictions=[[]], references=[[]], texts=["abc", "d"])


# ---------------------------------------------------------------------------- nested entities


def muc_counts(results, mode):
    return {k: results["muc"][mode][k] for k in ("correct", "incorrect", "partial", "missed", "spurious")}


def test_nested_gold_predicted_exactly(spans_metric):
    """ "Bank of America": ORG over tokens 0-3, LOC "America" inside it, both found."""
    gold = [ent("ORG", 0, 3), ent("LOC", 2, 3)]
    results = spans_metric.compute(predictions=[gold[::-1]], references=[gold], scores=ALL_SCORES)
    assert results["overall_f1"] == 1.0
    for mode in ner_core.MODES:
        assert muc_counts(results, mode) == {
            "correct": 2,
            "incorrect": 0,
            "partial": 0,
            "missed": 0,
            "spurious": 0,
        }
    assert results["token"]["f1"] == results["overlap"]["f1"] == 1.0


def test_nested_harem_scores_stay_in_bounds(spans_metric):
    gold = [ent("ORG", 0, 3), ent("LOC", 2, 3)]
    harem = spans_metric.compute(predictions=[gold], references=[gold], scores=["harem"])["harem"]
    assert (harem["precision"], harem["recall"], harem["correct"], harem["partial_excess"]) == (
        1.0,
        1.0,
        2,
        0,
    )
    # one prediction partially over three nested gold entities: 0.45 + 0.4 + 0.35, capped at 1
    nested = [ent("A", 0, 9), ent("A", 0, 8), ent("A", 0, 7)]
    harem = spans_metric.compute(predictions=[[ent("A", 0, 10)]], references=[nested], scores=["harem"])[
        "harem"
    ]
    assert harem["credit"] == pytest.approx(1.2) and harem["precision"] == 1.0
    assert harem["recall"] == pytest.approx(1.2 / 3)


@pytest.mark.parametrize("seed", range(5))
def test_harem_scores_in_bounds_on_random_nested_corpora(spans_metric, seed):
    rng = random.Random(seed)

    def side():
        return [
            [
                ent(rng.choice("AB"), s, s + rng.randint(1, 6))
                for s in sorted(rng.sample(range(12), rng.randint(0, 6)))
            ]
            for _ in range(30)
        ]

    gold, pred = side(), side()
    gold = [list({(e["label"], e["start"], e["end"]): e for e in example}.values()) for example in gold]
    pred = [list({(e["label"], e["start"], e["end"]): e for e in example}.values()) for example in pred]
    harem = spans_metric.compute(predictions=pred, references=gold, scores=["harem"])["harem"]
    assert 0 <= harem["precision"] <= 1 and 0 <= harem["recall"] <= 1


def test_nested_gold_one_prediction_pairs_with_its_type(spans_metric):
    """The worked case of docs/spans.md: LOC(1, 3) overlaps ORG(0, 3) (2 tokens, other type)
    and LOC(2, 3) (1 token, same type); the type comes first, so it pairs with the LOC."""
    gold = [ent("ORG", 0, 3), ent("LOC", 2, 3)]
    results = spans_metric.compute(predictions=[[ent("LOC", 1, 3)]], references=[gold], errors=True)
    assert muc_counts(results, "type") == {
        "correct": 1,
        "incorrect": 0,
        "partial": 0,
        "missed": 1,
        "spurious": 0,
    }
    assert muc_counts(results, "partial") == {
        "correct": 0,
        "incorrect": 0,
        "partial": 1,
        "missed": 1,
        "spurious": 0,
    }
    assert results["errors"]["partial"]["partial"] == [
        {"sentence": 0, "gold": ["LOC", 2, 3], "pred": ["LOC", 1, 3]}
    ]


@pytest.mark.parametrize("seed", range(3))
def test_nested_input_order_does_not_matter(spans_metric, seed):
    rng = random.Random(seed)
    gold, pred = nested_corpus(rng, 60)
    shuffled = [rng.sample(e, len(e)) for e in gold], [rng.sample(e, len(e)) for e in pred]
    a = spans_metric._compute(predictions=pred, references=gold, scores=ALL_SCORES)
    b = spans_metric._compute(predictions=shuffled[1], references=shuffled[0], scores=ALL_SCORES)
    assert a == b


def nested_corpus(rng, n, types="AB", width=12):
    """Examples of nested and overlapping entities without exact duplicates on a side."""

    def side():
        spans = {
            (rng.choice(types), s, s + rng.randint(1, 4)) for s in (rng.randrange(width) for _ in range(5))
        }
        return [ent(*s) for s in sorted(spans)]

    return [side() for _ in range(n)], [side() for _ in range(n)]


@pytest.mark.parametrize("seed", range(3))
def test_nested_matching_is_one_to_one_and_counts_add_up(spans_metric, seed):
    gold, pred = nested_corpus(random.Random(seed), 200)
    results = spans_metric._compute(predictions=pred, references=gold)
    n_gold, n_pred = sum(map(len, gold)), sum(map(len, pred))
    for mode in ner_core.MODES:
        m = results["muc"][mode]
        assert m["possible"] == n_gold and m["actual"] == n_pred
        assert m["correct"] + m["incorrect"] + m["partial"] + m["missed"] == n_gold
        assert m["correct"] + m["incorrect"] + m["partial"] + m["spurious"] == n_pred
        for key in ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual"):
            assert sum(t[key] for t in m["per_type"].values()) == m[key]


@pytest.mark.parametrize("seed", range(3))
def test_nested_exact_pairs_are_always_matched(spans_metric, seed):
    """Every (label, start, end) present on both sides is a correct pair in strict mode, as
    in EDS-NLP's exact metric (a set intersection)."""
    gold, pred = nested_corpus(random.Random(seed), 200)
    results = spans_metric._compute(predictions=pred, references=gold)
    common = sum(
        len({tuple(e.values()) for e in g} & {tuple(e.values()) for e in p}) for g, p in zip(gold, pred)
    )
    assert results["muc"]["strict"]["correct"] == common
    n_gold, n_pred = sum(map(len, gold)), sum(map(len, pred))
    assert results["overall_recall"] == common / n_gold and results["overall_precision"] == common / n_pred


def test_nested_token_items_count_once(spans_metric):
    """EDS-NLP's token metric: (token, label) items, a token inside two nested entities of
    one type is one item."""
    gold = [ent("DIS", 3, 6), ent("DIS", 4, 6)]
    pred = [ent("DIS", 4, 6)]
    token = spans_metric.compute(predictions=[pred], references=[gold], scores=["token"])["token"]
    assert (token["correct"], token["number"], token["predicted"]) == (2, 3, 2)


def test_nested_overlap_family(spans_metric):
    """EDS-NLP's overlap metric on nested gold: a prediction is right if a gold span of its
    type reaches the Dice threshold, a gold span found if such a prediction exists."""
    gold = [ent("DIS", 3, 6), ent("DIS", 4, 6)]
    pred = [ent("DIS", 4, 6)]
    overlap = spans_metric.compute(predictions=[pred], references=[gold], scores=["overlap"])["overlap"]
    # Dice(3-6, 4-6) = 2*2/(3+2) = 0.8; Dice(4-6, 4-6) = 1
    assert (overlap["matched_gold"], overlap["matched_pred"], overlap["number"], overlap["predicted"]) == (
        2,
        1,
        2,
        1,
    )


def test_nested_predictions_inside_one_gold(spans_metric):
    gold = [ent("A", 0, 6)]
    pred = [ent("A", 0, 6), ent("A", 1, 3), ent("B", 2, 5)]
    results = spans_metric.compute(predictions=[pred], references=[gold], scores=ALL_SCORES)
    assert muc_counts(results, "strict") == {
        "correct": 1,
        "incorrect": 0,
        "partial": 0,
        "missed": 0,
        "spurious": 2,
    }
    assert results["harem"]["correct"] == 1


def test_exact_duplicates_name_both(spans_metric):
    with pytest.raises(
        ValueError, match=re.escape("references[1] entities 0 and 2 are the same entity ('A', 0, 2)")
    ):
        spans_metric.compute(
            predictions=[[], []], references=[[], [ent("A", 0, 2), ent("B", 1, 2), ent("A", 0, 2)]]
        )
    with pytest.raises(
        ValueError, match=re.escape("predictions[0] entities 1 and 2 are the same entity ('B', 1, 2)")
    ):
        spans_metric.compute(predictions=[[ent("B", 5, 6), ent("B", 1, 2), ent("B", 1, 2)]], references=[[]])


# ---------------------------------------------------------------------------- docs/spans.md


def test_docs_speed_tables_equal_the_bench_output():
    """bench/speed_spans.py takes minutes: docs/spans.md is compared with the file it writes."""
    import os

    from conftest import ROOT

    def read(*path):
        with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
            return f.read()

    block = re.search(
        r"<!-- speed-spans -->\n(.*?)\n<!-- /speed-spans -->", read("docs", "spans.md"), re.S
    ).group(1)
    bench = read("bench", "speed_spans.md")
    table = [line for line in bench.splitlines() if line.startswith("|")]
    targets = [line for line in bench.splitlines() if line.startswith("- ")]
    assert table and targets
    assert [line for line in block.splitlines() if line.startswith("|")] == table
    assert [line for line in block.splitlines() if line.startswith("- ")] == targets


# ---------------------------------------------------------------------------- EDS-NLP's documented metrics

#: EDS-NLP's tests/test_metrics.py documents, as token offsets of its tokenizer:
#: "Le patient a [le covid](covid) 19." twice, and
#: "[Corona](covid): positif. Le [cvid](covid) est une [maladie très très grave](disease)." against
#: "[Corona:](covid) positif. Le cvid est une [maladie](disease) très très grave."
EDS_GOLD = [[ent("covid", 3, 5)], [ent("covid", 0, 1), ent("covid", 5, 6), ent("disease", 8, 12)]]
EDS_PRED = [[ent("covid", 3, 5)], [ent("covid", 0, 2), ent("disease", 8, 9)]]
#: its docs/metrics/ner.md example "La patiente a une fièvre aiguë ." (micro P, R, F1 to 2 decimals)
EDS_DOC_GOLD = [[ent("PER", 1, 2), ent("DIS", 3, 5)]]
EDS_DOC_PRED = [[ent("PER", 0, 1), ent("PER", 1, 2), ent("DIS", 4, 6)]]


@pytest.mark.parametrize(
    "family, threshold, micro",
    [  # EDS-NLP's expected "micro" entries
        (
            "exact",
            None,
            {"p": 1 / 3, "r": 0.25, "f": 0.2857142857142857, "tp": 1, "positives": 3, "support": 4},
        ),
        ("token", None, {"p": 0.8, "r": 0.5, "f": 0.6153846153846154, "tp": 4, "positives": 5, "support": 8}),
        (
            "overlap",
            0.00001,
            {"p": 1, "r": 0.75, "f": 0.8571428571428572, "tp": 3, "positives": 3, "support": 4},
        ),
        (
            "overlap",
            0.5,
            {"p": 2 / 3, "r": 0.5, "f": 0.5714285714285714, "tp": 2, "positives": 3, "support": 4},
        ),
        (
            "overlap",
            1.0,
            {"p": 1 / 3, "r": 0.25, "f": 0.2857142857142857, "tp": 1, "positives": 3, "support": 4},
        ),
    ],
)
def test_eds_nlp_scorer_tests(spans_metric, family, threshold, micro):
    scores = {"exact": ["seqeval", "muc"], "token": ["token"], "overlap": ["overlap"]}[family]
    options = {} if threshold is None else {"overlap_threshold": threshold}
    results = spans_metric.compute(predictions=EDS_PRED, references=EDS_GOLD, scores=scores, **options)
    if family == "exact":
        strict = results["muc"]["strict"]
        row = {
            "p": results["overall_precision"],
            "r": results["overall_recall"],
            "f": results["overall_f1"],
            "tp": strict["correct"],
            "positives": strict["actual"],
            "support": strict["possible"],
        }
    else:
        table = results[family]
        row = {
            "p": table["precision"],
            "r": table["recall"],
            "f": table["f1"],
            "tp": table["correct"] if family == "token" else table["matched_pred"],
            "positives": table["predicted"],
            "support": table["number"],
        }
    assert row == pytest.approx(micro, abs=1e-12)


def test_eds_nlp_overlap_recall_counts_gold_spans_found(spans_metric):
    """EDS-NLP's recall of the overlap metric counts gold spans found: 3 of 4 at any overlap."""
    results = spans_metric.compute(
        predictions=EDS_PRED, references=EDS_GOLD, scores=["overlap"], overlap_threshold=0.00001
    )
    assert results["overlap"]["matched_gold"] == 3 and results["overlap"]["recall"] == 0.75


@pytest.mark.parametrize(
    "family, expected",
    [
        ("exact", (0.33, 0.5, 0.40)),
        ("token", (0.50, 0.67, 0.57)),
        ("overlap", (0.67, 1.0, 0.80)),
    ],
)
def test_eds_nlp_docs_summary_table(spans_metric, family, expected):
    scores = {"exact": ["seqeval"], "token": ["token"], "overlap": ["overlap"]}[family]
    results = spans_metric.compute(predictions=EDS_DOC_PRED, references=EDS_DOC_GOLD, scores=scores)
    row = (
        results[family]
        if family != "exact"
        else {k: results[f"overall_{k}"] for k in ("precision", "recall", "f1")}
    )
    assert tuple(round(row[k], 2) for k in ("precision", "recall", "f1")) == expected


def one_to_one_example(gold, pred):
    """Whether each entity overlaps at most one entity of the other side."""

    def hits(a, side):
        return sum(b["start"] < a["end"] and a["start"] < b["end"] for b in side)

    return all(hits(g, pred) <= 1 for g in gold) and all(hits(p, gold) <= 1 for p in pred)


@pytest.mark.parametrize("seed", range(3))
def test_nervaluate_parity_on_nested_examples_that_pair_up(spans_metric, seed):
    """Nested and overlapping entities on each side, in examples where each entity overlaps at
    most one of the other side (nervaluate's matching is then unambiguous)."""
    from nervaluate import Evaluator

    gold, pred = nested_corpus(random.Random(seed), 4000, types="ABC", width=30)
    keep = [(g, p) for g, p in zip(gold, pred) if one_to_one_example(g, p)]
    nested = sum(
        any(a is not b and a["start"] < b["end"] and b["start"] < a["end"] for a in g for b in g)
        for g, _ in keep
    )
    assert len(keep) > 150 and nested > 50
    gold, pred = [g for g, _ in keep], [p for _, p in keep]
    inclusive = [[[{**e, "end": e["end"] - 1} for e in example] for example in side] for side in (gold, pred)]
    theirs = Evaluator(inclusive[0], inclusive[1], tags=list("ABC"), loader="dict").evaluate()["overall"]
    ours = spans_metric._compute(predictions=pred, references=gold)["muc"]
    for mode, their_mode in NERVALUATE_MODE.items():
        assert {k: ours[mode][k] for k in MUC_KEYS} == {
            k: getattr(theirs[their_mode], k) for k in MUC_KEYS
        }, mode


# ---------------------------------------------------------------------------- datasets columns


def test_a_datasets_sequence_of_dicts_column_scores(spans_metric):
    """A ``datasets.Sequence`` of entity dicts comes back as a dict of lists per example."""
    import datasets

    entity = {
        "label": datasets.Value("string"),
        "start": datasets.Value("int64"),
        "end": datasets.Value("int64"),
    }
    features = datasets.Features({"gold": datasets.Sequence(entity), "pred": datasets.Sequence(entity)})
    ds = datasets.Dataset.from_dict(
        {
            "gold": [
                {"label": ["PER", "LOC"], "start": [0, 4], "end": [2, 5]},
                {"label": [], "start": [], "end": []},
            ],
            "pred": [
                {"label": ["PER"], "start": [0], "end": [2]},
                {"label": ["ORG"], "start": [1], "end": [2]},
            ],
        },
        features=features,
    )
    assert isinstance(ds["gold"][0], dict)
    results = spans_metric.compute(predictions=ds["pred"], references=ds["gold"])
    assert (results["overall_precision"], results["overall_recall"]) == (0.5, 0.5)
    metric = evaluate.load(METRIC_PATH, "spans")
    for row in ds:
        metric.add(prediction=row["pred"], reference=row["gold"])
    assert metric.compute()["overall_f1"] == results["overall_f1"]


@pytest.mark.parametrize(
    "example, message",
    [
        (
            {"label": ["A"], "start": [0, 1], "end": [1]},
            r"references\[0\]: label, start and end have \[1, 2, 1\] items",
        ),
        ({"label": ["A"], "start": [0]}, r"references\[0\] must be a list of entities, or a dict of lists"),
        ({"label": "A", "start": 0, "end": 1}, r"references\[0\] must be a list of entities"),
    ],
)
def test_bad_dicts_of_lists(example, message):
    with pytest.raises(ValueError, match=message):
        encode_spans([[]], [example])


def test_live_comparison_with_nervaluate_on_nested_corpora(spans_metric):
    """Where nervaluate's counts do not depend on the order of its lists, they equal ours, or the
    example holds an entity overlapping two or more of the other side (bench/nervaluate_nested.py
    runs 300 corpora; here 40)."""
    import os
    import sys

    from conftest import ROOT

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import nervaluate_nested

    tally, unexplained = nervaluate_nested.compare(spans_metric, corpora=40)
    assert tally["same counts"] > 4 * tally["differ"] and not unexplained


def test_extras_split_off_in_input_order_and_sorted_with_the_spans():
    from ner_recall.core.spans import split_extras

    refs = [
        [ent("A", 5, 6), dict(ent("B", 0, 1), attributes={"negated": True})],
        [dict(ent("A", 0, 2), optional=True)],
    ]
    plain, extras = split_extras(refs, "references")
    assert plain == [[ent("A", 5, 6), ent("B", 0, 1)], [ent("A", 0, 2)]]
    assert extras.values == {"attributes": [None, {"negated": True}, None], "optional": [None, None, True]}
    assert [extras.place(k) for k in range(3)] == [(0, 0), (0, 1), (1, 0)]
    assert str(extras.error("references", 2, " is optional")) == "references[1][0] is optional"
    corpus = encode_spans([[], []], refs)
    assert corpus.gold.start.tolist() == [0, 5, 7]  # B first: sorted by start
    assert corpus.gold_extras.values["attributes"] == [{"negated": True}, None, None]
    assert refs[0][1]["attributes"] == {"negated": True}  # the input is not changed


@pytest.mark.parametrize(
    "side, entity, message",
    [
        (
            "predictions",
            dict(ent("A", 0, 1), optional=True),
            r"unknown key 'optional'.* may carry \['attributes', 'fragments'\]",
        ),
        (
            "references",
            dict(ent("A", 0, 1), colour="red"),
            r"unknown key 'colour'.* may carry \['attributes', 'fragments', 'optional'\]",
        ),
    ],
)
def test_an_extra_a_side_may_not_carry_is_named(side, entity, message):
    with pytest.raises(ValueError, match=message):
        check_entities([[entity]], side)


def test_the_stream_refuses_extras_naming_the_place_and_stays_usable():
    import evaluate

    from conftest import METRIC_PATH

    spans = evaluate.load(METRIC_PATH, "spans")
    tagged = dict(ent("A", 0, 1), attributes={"negated": True})
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] has 'attributes': .*read by compute"):
        spans.add_batch(predictions=[[], []], references=[[], [tagged]])
    with pytest.raises(ValueError, match=r"prediction\[0\] has 'fragments'"):
        spans.add(prediction=[dict(ent("A", 0, 3), fragments=[[0, 1], [2, 3]])], reference=[])
    spans.add_batch(predictions=[[ent("A", 0, 1)]], references=[[ent("A", 0, 1)]])
    assert spans.compute()["overall_f1"] == 1.0
