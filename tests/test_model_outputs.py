"""Model output as it comes, in the span configs: token-classification pipelines (every
aggregation strategy, real output of a tiny offline model) and GLiNER (hand-written dicts in its
documented shape) score as the same entities given as span dicts (``docs/model_outputs.md``)."""

import re

import evaluate
import pytest

from conftest import METRIC_PATH, require
from ner_recall.readers.model_outputs import output_form, spans_from_outputs

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
WORDS = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "mari",
    "ka",
    "##sk",
    "lives",
    "in",
    "tar",
    "##tu",
    "tallinn",
    "is",
    "big",
]
TEXTS = ["Mari Kask lives in Tartu", "Tallinn is big", "Kask is in Tallinn, Tartu"]
GOLD = [
    [{"label": "PER", "start": 0, "end": 9}, {"label": "LOC", "start": 19, "end": 24}],
    [{"label": "LOC", "start": 0, "end": 7}],
    [
        {"label": "PER", "start": 0, "end": 4},
        {"label": "LOC", "start": 11, "end": 18},
        {"label": "LOC", "start": 20, "end": 25},
    ],
]
SCORES = ["seqeval", "muc", "token", "overlap", "confusion"]
STRATEGIES = ["none", "simple", "first", "average", "max"]


@pytest.fixture(scope="module")
def spans_metric():
    return evaluate.load(METRIC_PATH, "spans")


@pytest.fixture(scope="module")
def outputs():
    """Each strategy's output of a tiny random BERT tagger (word pieces "ka ##sk", "tar ##tu")."""
    torch = require("torch", "the pipeline outputs")
    transformers = require("transformers", "the pipeline outputs")
    tokenizer = transformers.BertTokenizerFast(vocab={w: i for i, w in enumerate(WORDS)})
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(WORDS),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    model = transformers.BertForTokenClassification(config).eval()
    return {
        strategy: transformers.pipeline(
            "token-classification", model=model, tokenizer=tokenizer, aggregation_strategy=strategy
        )(TEXTS)
        for strategy in STRATEGIES
    }


def as_spans(groups, scored=False):
    """Aggregated pipeline output written by hand as span dicts."""
    return [
        [
            {
                "label": g["entity_group"],
                "start": g["start"],
                "end": g["end"],
                **({"score": float(g["score"])} if scored else {}),
            }
            for g in example
        ]
        for example in groups
    ]


def test_the_tiny_model_gives_pieces_gaps_and_both_types(outputs):
    """The output exercises what the merging must handle (else the parity below proves little)."""
    tokens = [e for example in outputs["none"] for e in example]
    assert any(e["word"].startswith("##") for e in tokens)  # a sub-word piece
    assert {e["entity"][2:] for e in tokens} == {"PER", "LOC"}
    assert {e["entity"][:2] for e in tokens} == {"B-", "I-"}
    indices = [[e["index"] for e in example] for example in outputs["none"]]
    assert any(b - a > 1 for ix in indices for a, b in zip(ix, ix[1:]))  # a token left out (tagged O)
    assert output_form(outputs["none"][0][0]) == "pipeline_tokens"
    assert output_form(outputs["simple"][0][0]) == "pipeline"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_pipeline_output_scores_as_its_entities(spans_metric, outputs, strategy):
    """Each strategy's output scores as the same entities given as span dicts; for "none" those
    are the pipeline's own "simple" grouping of the same tokens (its B-/I- grouping is the peer)."""
    output = outputs[strategy]
    entities = as_spans(outputs["simple" if strategy == "none" else strategy])
    got = spans_metric.compute(predictions=output, references=GOLD, texts=TEXTS, scores=SCORES)
    want = spans_metric.compute(predictions=entities, references=GOLD, texts=TEXTS, scores=SCORES)
    assert got == want
    assert spans_from_outputs(output, "predictions") == entities


@pytest.mark.parametrize("strategy", ["simple", "first", "average", "max"])
def test_pipeline_scores_feed_the_ranking_family(spans_metric, outputs, strategy):
    scores = ["seqeval", "ranking"]
    got = spans_metric.compute(predictions=outputs[strategy], references=GOLD, scores=scores)
    want = spans_metric.compute(
        predictions=as_spans(outputs[strategy], scored=True), references=GOLD, scores=scores
    )
    assert got == want
    assert all(
        type(e["score"]) is float for x in spans_from_outputs(outputs[strategy], "p", scored=True) for e in x
    )


def test_none_scores_are_the_mean_of_the_tokens(outputs):
    """An entity merged from tokens scores their mean, as the pipeline's "simple" grouping does."""
    merged = spans_from_outputs(outputs["none"], "predictions", scored=True)
    simple = as_spans(outputs["simple"], scored=True)
    flat = [e["score"] for x in merged for e in x]
    assert flat == pytest.approx([e["score"] for x in simple for e in x], abs=1e-6)


def test_the_stream_stores_model_output_as_entities(spans_metric, outputs):
    spans_metric.add_batch(predictions=outputs["first"], references=GOLD)
    streamed = spans_metric.compute(scores=SCORES)
    assert streamed == spans_metric.compute(
        predictions=as_spans(outputs["first"]), references=GOLD, scores=SCORES
    )


def token(tag, index, start, end, score=0.5, word="w"):
    return {"entity": tag, "score": score, "index": index, "word": word, "start": start, "end": end}


# per-token output decoded by the tag grammar (lenient); offsets by hand from each token's characters
MERGING = [
    ("B then I continue", [token("B-PER", 1, 0, 4), token("I-PER", 2, 5, 9)], [("PER", 0, 9)]),
    (
        "an index left out ends the entity",
        [token("B-PER", 1, 0, 4), token("I-PER", 3, 10, 12)],
        [("PER", 0, 4), ("PER", 10, 12)],
    ),
    ("I after O begins one", [token("I-LOC", 2, 3, 5), token("I-LOC", 3, 6, 8)], [("LOC", 3, 8)]),
    (
        "a change of type ends it",
        [token("B-PER", 1, 0, 2), token("I-LOC", 2, 2, 4)],
        [("PER", 0, 2), ("LOC", 2, 4)],
    ),
    (
        "B on a second piece begins one inside the word",
        [token("B-LOC", 1, 0, 3), token("B-LOC", 2, 3, 5, word="##tu")],
        [("LOC", 0, 3), ("LOC", 3, 5)],
    ),
    (
        "I on a second piece continues",
        [token("B-LOC", 1, 0, 3), token("I-LOC", 2, 3, 5, word="##tu")],
        [("LOC", 0, 5)],
    ),
    (
        "order of the list does not matter",
        [token("I-PER", 2, 5, 9), token("B-PER", 1, 0, 4)],
        [("PER", 0, 9)],
    ),
    ("no token", [], []),
    (
        "a far index is a gap, nothing allocated for it",
        [token("B-PER", 1, 0, 4), token("I-PER", 10**12, 5, 9)],
        [("PER", 0, 4), ("PER", 5, 9)],
    ),
    (
        "the first index need not be 0 or 1",
        [token("I-PER", 7, 0, 4), token("I-PER", 8, 5, 9)],
        [("PER", 0, 9)],
    ),
]


@pytest.mark.parametrize("tokens, expected", [row[1:] for row in MERGING], ids=[row[0] for row in MERGING])
def test_tokens_merge_by_the_tag_grammar(tokens, expected):
    merged = spans_from_outputs([tokens, [token("B-PER", 1, 0, 1)]], "predictions")
    assert [(e["label"], e["start"], e["end"]) for e in merged[0]] == expected


def test_merged_score_is_the_mean():
    tokens = [token("B-PER", 1, 0, 4, score=0.2), token("I-PER", 2, 5, 9, score=0.6)]
    assert spans_from_outputs([tokens], "p", scored=True)[0][0]["score"] == pytest.approx(
        0.4
    )  # (0.2 + 0.6) / 2


def gliner(label, start, end, text, score=0.9):
    return {"start": start, "end": end, "text": text, "label": label, "score": score}


GLINER = [
    [gliner("person", 0, 9, "Mari Kask"), gliner("location", 19, 24, "Tartu", 0.4)],
    [],
    [gliner("location", 11, 18, "Tallinn", 0.7)],
]


def test_gliner_output_scores_as_its_entities(spans_metric):
    entities = [[{"label": e["label"], "start": e["start"], "end": e["end"]} for e in x] for x in GLINER]
    gold = [
        [dict(e, label=e["label"].replace("PER", "person").replace("LOC", "location")) for e in x]
        for x in GOLD
    ]
    got = spans_metric.compute(predictions=GLINER, references=gold, texts=TEXTS, scores=SCORES)
    assert got == spans_metric.compute(predictions=entities, references=gold, texts=TEXTS, scores=SCORES)
    # by hand: 3 predicted, 6 gold (2 + 1 + 3), 3 exact matches: precision 3/3, recall 3/6
    assert (got["overall_precision"], got["overall_recall"]) == (1.0, 0.5)
    ranked = spans_metric.compute(predictions=GLINER, references=gold, scores=["seqeval", "ranking"])
    scored = [[dict(e, score=g["score"]) for e, g in zip(x, y)] for x, y in zip(entities, GLINER)]
    assert ranked == spans_metric.compute(predictions=scored, references=gold, scores=["seqeval", "ranking"])


ERRORS = [
    (
        "mixture",
        [
            [gliner("PER", 0, 4, "Mari")],
            [{"entity_group": "LOC", "score": 0.5, "word": "x", "start": 0, "end": 7}],
        ],
        re.escape(
            "predictions[1][0] {'entity_group': 'LOC', 'score': 0.5, 'word': 'x', 'start': 0, 'end': 7} is"
            " token-classification pipeline output (aggregated) but predictions[0][0] is GLiNER output;"
            " a side holds entities of one form"
        ),
    ),
    (
        "mixture with our own form",
        [[{"label": "PER", "start": 0, "end": 4}], [gliner("LOC", 0, 7, "Tallinn")]],
        r"predictions\[1\]\[0\] .* is GLiNER output but predictions\[0\]\[0\] is an entity \{'label', 'start', 'end'\}",
    ),
    (
        "slow tokenizer",
        [[{"entity_group": "PER", "score": 0.5, "word": "x", "start": None, "end": None}], []],
        r"predictions\[0\]\[0\] .*: start is None \(the pipeline gives offsets with a fast tokenizer only\)",
    ),
    (
        "bad tag",
        [[token("B-PER", 1, 0, 4)], [token("B-LOC", 1, 0, 4), token("X-LOC", 2, 5, 7)]],
        r"predictions\[1\]\[1\] .*: invalid tag 'X-LOC'",
    ),
    (
        "bare label",
        [[token("PER", 1, 0, 4)], []],
        r"predictions\[0\]\[0\] .*: invalid tag 'PER' .* run the pipeline with an aggregation_strategy",
    ),
    (
        "index twice",
        [[token("B-PER", 1, 0, 4), token("I-PER", 1, 5, 9)], []],
        r"predictions\[0\]\[1\] .*: token index 1 was given before, at predictions\[0\]\[0\]",
    ),
    (
        "gliner text",
        [[gliner("PER", 0, 4, "Kask")], []],
        r"predictions\[0\]\[0\] .*: text 'Kask' is not texts\[0\]\[0:4\] = 'Mari' \(offsets must be characters",
    ),
    (
        "score not a number",
        [[gliner("PER", 0, 4, "Mari", score="high")], []],
        r"predictions\[0\]\[0\] .*: score must be a number",
    ),
    (
        "gliner text in another case",
        [[], [gliner("LOC", 0, 7, "tallinn")]],
        r"predictions\[1\]\[0\] .*: text 'tallinn' is not texts\[1\]\[0:7\] = 'Tallinn'",
    ),
    (
        "score beyond a float",
        [[gliner("PER", 0, 4, "Mari", score=10**400)], []],
        r"predictions\[0\]\[0\] .*: score must be a finite number",
    ),
    (
        "score NaN",
        [[], [{"entity_group": "LOC", "score": float("nan"), "word": "x", "start": 0, "end": 7}]],
        r"predictions\[1\]\[0\] .*: score must be a finite number; got nan",
    ),
    (
        "label not a str",
        [[gliner(5, 0, 4, "Mari")], []],
        r"predictions\[0\]\[0\] .*: the label must be a non-empty str",
    ),
    (
        "tag not a str",
        [[token(["B-PER"], 1, 0, 4)], []],
        r"predictions\[0\]\[0\] .*: the label must be a non-empty str",
    ),
    (
        "index negative",
        [[token("B-PER", -1, 0, 4)], []],
        r"predictions\[0\]\[0\] .*: index must be an int >= 0",
    ),
    (
        "index a bool",
        [[], [token("B-PER", True, 0, 4)]],
        r"predictions\[1\]\[0\] .*: index must be an int >= 0",
    ),
    (
        "start a float",
        [[gliner("PER", 0.0, 4, "Mari")], []],
        r"predictions\[0\]\[0\] .*: start must be an int",
    ),
]


@pytest.mark.parametrize("predictions, message", [row[1:] for row in ERRORS], ids=[row[0] for row in ERRORS])
def test_errors_name_the_place_and_leave_the_metric_usable(spans_metric, predictions, message):
    references = [[], []]
    with pytest.raises(ValueError, match=message):
        spans_metric.compute(predictions=predictions, references=references, texts=TEXTS[:2])
    ok = spans_metric.compute(
        predictions=[[gliner("PER", 0, 4, "Mari")], []], references=references, texts=TEXTS[:2]
    )
    assert ok["muc"]["strict"]["spurious"] == 1


def test_our_own_form_is_returned_as_it_is():
    examples = [[{"label": "A", "start": 0, "end": 1}], []]
    assert spans_from_outputs(examples, "predictions") is examples


def test_our_own_scores_still_need_the_ranking_family(spans_metric):
    """A model always gives a score, so it is not read without "ranking"; a span dict's score is
    refused there, as before (it would be read by nothing)."""
    with pytest.raises(ValueError, match="unknown key 'score'"):
        spans_metric.compute(
            predictions=[[{"label": "A", "start": 0, "end": 1, "score": 0.5}]], references=[[]]
        )
    assert (
        spans_metric.compute(predictions=[[gliner("A", 0, 1, "x")]], references=[[]])["muc"]["strict"][
            "spurious"
        ]
        == 1
    )


def test_the_state_takes_model_output(spans_metric, outputs):
    """A partition's state from pipeline output finalizes as compute scores it, ranking included."""
    options = {"scores": ["seqeval", "ranking"]}
    state = spans_metric.state(predictions=outputs["max"], references=GOLD, **options)
    assert spans_metric.finalize(state) == spans_metric.compute(
        predictions=outputs["max"], references=GOLD, **options
    )


HOSTILE = [None, "", "x", -1, 10**400, float("nan"), float("inf"), 1.5, True, [], {}, b"x", ("B-PER",)]
VALID = {
    "pipeline": {"entity_group": "PER", "score": 0.5, "word": "mari", "start": 0, "end": 4},
    "pipeline_tokens": token("B-PER", 1, 0, 4),
    "gliner": gliner("PER", 0, 4, "Mari"),
}


@pytest.mark.parametrize("form", sorted(VALID))
def test_any_malformed_field_is_a_value_error_naming_the_item(form):
    """Each field of each form replaced by each hostile value: the entity comes out, or a
    ``ValueError`` names ``predictions[1][0]``; never another exception."""
    for key in VALID[form]:
        for value in HOSTILE:
            entity = dict(VALID[form], **{key: value})
            try:
                spans_from_outputs([[], [entity]], "predictions", texts=["", "Mari"], scored=True)
            except ValueError as error:
                assert str(error).startswith("predictions[1][0] "), (key, value, error)


@pytest.mark.parametrize("texts", [["Mari"], ["Mari", None], None, "Mari Tallinn"])
def test_the_text_check_leaves_missing_or_bad_texts_to_the_texts_check(texts):
    """GLiNER's ``text`` is compared only where the example has a text (a str): texts too short,
    not a str or not a list are named by the texts check, not here, and nothing crashes."""
    predictions = [[gliner("PER", 0, 4, "Mari")], [gliner("LOC", 0, 7, "Tallinn")]]
    expected = [[{"label": "PER", "start": 0, "end": 4}], [{"label": "LOC", "start": 0, "end": 7}]]
    assert spans_from_outputs(predictions, "predictions", texts=texts) == expected
