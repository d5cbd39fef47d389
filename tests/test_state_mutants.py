"""The mergeable state's layout, checks and messages word for word (what the mutation run of
``ner_state`` showed untested): the array types and bytes, the header, each block check with its
whole message, the budget of a state's arrays, older layouts, the merge operators, ``make_state``
and ``finalize_state`` called directly, and the counts state through the exact state's calls."""

import base64
import json
import zlib

import numpy as np
import pytest

from conftest import METRIC_PATH, unsigned
from ner_recall.state import counts as C
from ner_recall.state import exact as S

REFERENCES = [["B-A", "I-A"], ["O"], ["B-B"]]
PREDICTIONS = [["B-A", "O"], ["B-B"], ["B-B"]]
SPAN_GOLD = [[{"label": "A", "start": 0, "end": 2}], [{"label": "B", "start": 1, "end": 3}]]
SPAN_PRED = [[{"label": "A", "start": 0, "end": 2, "attributes": {"x": 1}}], []]


@pytest.fixture(scope="module")
def spans():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def b64(raw):
    return base64.b64encode(raw).decode("ascii")


def packed(values, dtype="int64", **fields):
    raw = np.asarray(values, dtype=dtype).tobytes()
    field = {"dtype": dtype, "count": len(values), "compression": "zlib", "data": b64(zlib.compress(raw))}
    return {**field, **fields}


def tag_layout(metric):
    return json.loads(metric.state(predictions=PREDICTIONS, references=REFERENCES).to_bytes())


def span_layout(spans):
    return json.loads(spans.state(predictions=SPAN_PRED, references=SPAN_GOLD).to_bytes())


def read(layout):
    return S.State.from_bytes(json.dumps(layout).encode())


def refused(layout, message):
    with pytest.raises(ValueError) as error:
        read(layout)
    assert str(error.value) == message


# ---------------------------------------------------------------------------- arrays and bytes


@pytest.mark.parametrize(
    "values, dtype",
    [
        ([], "uint8"),
        ([0, 255], "uint8"),
        ([0, 256], "uint16"),
        ([65535], "uint16"),
        ([65536], "int32"),
        ([-1, 3], "int32"),
        ([-(2**31), 2**31 - 1], "int32"),
        ([2**31], "int64"),
        ([-(2**31) - 1], "int64"),
    ],
)
def test_an_array_takes_the_smallest_type_that_holds_it(values, dtype):
    field = S._array(np.array(values, dtype=np.int64))
    assert field["dtype"] == dtype and field["count"] == len(values)
    back = S._from_array(field, "x")  # without a budget: the most a state may hold
    assert back.dtype == np.dtype(dtype) and back.tolist() == values


def test_a_state_is_its_bytes():
    """The layout pinned: compact JSON with sorted keys, each array its type, count, zlib level 1
    and base64; a tag block with the CRC-32 of its lengths."""
    block = {"kind": "tags", "vocabulary": ["O", "B-A"], "predictions": [1, 0, 0], "references": [1, 0, 0]}
    state = S.State.of("default", {}, 0, dict(block, lengths=np.array([2])))
    data = state.to_bytes()

    def array(values):
        raw = bytes(values)  # uint8
        return {
            "compression": "zlib",
            "count": len(values),
            "data": b64(zlib.compress(raw, 1)),
            "dtype": "uint8",
        }

    expected = {
        "blocks": [
            {
                "first_sentence": 0,
                "kind": "tags",
                "lengths": array([2]),
                "lengths_crc32": zlib.crc32(np.array([2], dtype="<i8").tobytes()),
                "predictions": array([1, 0, 0]),
                "references": array([1, 0, 0]),
                "vocabulary": ["O", "B-A"],
            }
        ],
        "config": "default",
        "format": "ner_recall_metric.state",
        "options": "{}",
        "version": 5,
    }
    assert data == json.dumps(expected, sort_keys=True, separators=(",", ":")).encode("utf-8")
    assert b" " not in data


def test_numpy_numbers_in_per_sentence_columns_are_held_as_python_numbers(metric):
    scores = [[np.float32(0.5), np.float64(0.25)], [np.float32(1.0)]]
    tags = [["B-A", "O"], ["O"]]
    state = metric.state(
        predictions=tags, references=tags, token_scores=scores, scores=["seqeval", "ranking"]
    )
    held = state.blocks[0]["token_scores"]
    assert held == [[0.5, 0.25], [1.0]] and {type(x) for row in held for x in row} == {float}
    assert json.loads(state.to_bytes())["blocks"][0]["token_scores"] == [[0.5, 0.25], [1.0]]


# ---------------------------------------------------------------------------- the state's operators


def test_the_operators(metric, spans):
    a = metric.state(predictions=PREDICTIONS[:1], references=REFERENCES[:1])
    b = metric.state(predictions=PREDICTIONS[1:], references=REFERENCES[1:], first_sentence=1)
    assert 0 + a is a and a != b and a != "state" and a == metric.State.from_bytes(a.to_bytes())
    with pytest.raises(TypeError):
        1 + a
    with pytest.raises(ValueError) as error:
        a + spans.state(predictions=SPAN_PRED, references=SPAN_GOLD, first_sentence=1)
    assert str(error.value) == "states of different configs merge into nothing: 'default' and 'spans'"


def test_the_first_option_that_differs_is_named_with_both_values(metric):
    a = metric.state(predictions=PREDICTIONS[:1], references=REFERENCES[:1], beta=2.0, zero_division=1)
    b = metric.state(predictions=PREDICTIONS[1:], references=REFERENCES[1:], first_sentence=1, beta=2.0)
    with pytest.raises(ValueError) as error:
        a + b
    assert (
        str(error.value) == "states with different options: zero_division is 1 in one and None in the other"
    )


# ---------------------------------------------------------------------------- the header


def test_a_header_without_blocks_is_the_empty_state():
    state = S.State.from_bytes(b'{"format": "ner_recall_metric.state", "version": 5}')
    assert isinstance(state, S.State) and state == S.State() and (state.config, state.options) == (None, None)


def test_counts_bytes_read_as_a_counts_state(metric):
    counts = metric.state(predictions=PREDICTIONS, references=REFERENCES, keep="counts")
    back = metric.State.from_bytes(counts.to_bytes())
    assert isinstance(back, metric.CountsState) and back == counts


HEADER = (
    '{"format": "ner_recall_metric.state", "version": 5, "config": "default", "options": %s, "blocks": %s}'
)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\xff", "not a state: its bytes are not the JSON of State.to_bytes"),
        (HEADER % ('"{}"', '"x"'), "state blocks: not a list of blocks"),
        (
            HEADER % ("5", "[{}]"),
            "state config and options: not the str config and JSON options of metric.state",
        ),
        (HEADER % ('"[1]"', "[]"), "state options: not the JSON of a dict of options"),
        (HEADER % ('"{"', "[]"), "state options: not the JSON of a dict of options"),
        (HEADER % ('"{}"', "[5]"), "state block 0: no first_sentence"),
    ],
)
def test_a_bad_header_is_named(data, message):
    with pytest.raises(ValueError) as error:
        S.State.from_bytes(data.encode() if isinstance(data, str) else data)
    assert str(error.value) == message


def test_the_blocks_report_their_progress(metric):
    from ner_recall.core import progress as ner_progress

    data = (metric.state(predictions=PREDICTIONS, references=REFERENCES)).to_bytes()
    seen = []
    with ner_progress.reporting(lambda done, what: seen.append((done, what))):
        S.State.from_bytes(data)
    assert seen == [(0.0, "state blocks"), (1.0, "state blocks")]


# ---------------------------------------------------------------------------- tag blocks


def with_crc(block, lengths):
    block["lengths"] = packed(lengths)
    block["lengths_crc32"] = zlib.crc32(np.array(lengths, dtype="<i8").tobytes())


TAG_ERRORS = [
    (lambda b: b.update(lengths=packed([], "uint8")), "state block 0: holds no sentence"),
    (
        lambda b: b.update(lengths=packed([4, 1], "uint8")),
        "state block 0 lengths: their CRC-32 is not lengths_crc32 (lengths changed after the state was"
        " made: sentences merged or split)",
    ),
    (lambda b: with_crc(b, [4, -1, 1]), "state block 0 lengths: a negative length"),
    (lambda b: b.update(predictions="x"), "state block 0 predictions: not an integer array of this layout"),
    (
        lambda b: b["predictions"].update(count=True),
        "state block 0 predictions: count True is not a number of values",
    ),
    (
        lambda b: b["predictions"].update(count=-1),
        "state block 0 predictions: count -1 is not a number of values",
    ),
    (
        lambda b: b["predictions"].update(count=9),
        "state block 0 predictions: the array's bytes are not base64 of zlib uint8 values (9 declared)",
    ),
    (
        lambda b: b.update(predictions=packed([1, 2, 0], "uint8", count=None)),
        "state block 0 predictions: not 7 codes of its 4 tags (with a 0 after each sentence)",
    ),
]


@pytest.mark.parametrize("change, message", TAG_ERRORS)
def test_each_bad_tag_block_is_named_in_full(metric, change, message):
    layout = tag_layout(metric)
    assert layout["blocks"][0]["vocabulary"] == ["O", "B-A", "B-B", "I-A"]
    change(layout["blocks"][0])
    refused(layout, message)


def test_the_messages_of_older_layouts(metric):
    """Layout 3 counts the tokens alone (no 0 after each sentence); layout 2 wrote no compression."""
    layout = dict(tag_layout(metric), version=3)
    refused(layout, "state block 0 predictions: not 4 codes of its 4 tags")
    lengths = {"dtype": "uint16", "data": b64(b"\x00\x01\x02")}
    layout = dict(layout, version=2)
    layout["blocks"][0]["lengths"] = lengths
    refused(layout, "state block 0 lengths: the array's bytes are not base64 of uncompressed uint16 values")


def test_layout_4_reads_without_counts_or_crc(metric):
    """Layout 4: the flat codes of layout 5, without declared counts or the lengths' CRC-32."""
    layout = dict(tag_layout(metric), version=4)
    block = layout["blocks"][0]
    block.pop("lengths_crc32")
    for name in ("predictions", "references", "lengths"):
        block[name].pop("count")
    expected = metric.compute(predictions=PREDICTIONS, references=REFERENCES)
    state = metric.State.from_bytes(json.dumps(layout).encode())
    assert state.blocks[0]["predictions"].tolist() == [1, 0, 0, 2, 0, 2, 0]  # a 0 after each sentence
    assert repr(metric.finalize(state)) == repr(expected)


def test_a_tag_listed_but_never_used_is_dropped(metric):
    layout = tag_layout(metric)
    layout["blocks"][0]["vocabulary"].append("B-UNUSED")
    expected = metric.compute(predictions=PREDICTIONS, references=REFERENCES)
    got = metric.finalize(metric.State.from_bytes(json.dumps(layout).encode()))
    assert "UNUSED" not in got and repr(got) == repr(expected)


@pytest.mark.parametrize("n, dtype", [(255, np.uint8), (256, np.int32)])
def test_merged_codes_take_one_byte_up_to_256_tags(metric, n, dtype):
    """O and ``n`` tags: one byte while they are at most 256, int32 beyond (tag 256 is not tag 0)."""
    tags = [[f"B-T{i}"] for i in range(n)]
    parts = [
        metric.state(predictions=tags[a:b], references=tags[a:b], first_sentence=a)
        for a, b in ((0, n // 2), (n // 2, n))
    ]
    merged = sum(parts)
    names, predictions, references, lengths = S.merged_flat([merged.blocks[f] for f in sorted(merged.blocks)])
    assert len(names) == n + 1 and predictions.dtype == dtype and references.dtype == dtype
    assert [names[c] for c in predictions.tolist()] == [t for row in tags for t in row + ["O"]]
    got = metric.finalize(metric.State.from_bytes(merged.to_bytes()))
    assert got["overall_f1"] == 1.0 and got[f"T{n - 1}"]["number"] == 1


# ---------------------------------------------------------------------------- span blocks and columns


SPAN_ERRORS = [
    (lambda b: b["gold"].pop(), "state block 0 gold: not the four columns (example, start, end, label)"),
    (
        lambda b: b.update(pred_extras={"x": [None]}),
        "state block 0 pred_extras: ['x']; a state's entities carry only ['attributes', 'fragments']",
    ),
    (lambda b: b.update(pred_scores=["x"]), "state block 0 pred_scores: not one number per prediction"),
    (lambda b: b.update(pred_scores=[True]), "state block 0 pred_scores: not one number per prediction"),
    (lambda b: b.update(texts=["a"]), "state block 0 texts: not one value per sentence (2)"),
    (lambda b: b.update(slices={}), "state block 0 slices: not a dict of one value list per key"),
    (lambda b: b.update(slices=["x", "y"]), "state block 0 slices: not a dict of one value list per key"),
    (lambda b: b.update(slices={"g": ["x"]}), "state block 0 slices['g']: not one value per sentence (2)"),
    (
        lambda b: b.update(slices={"g": ["x", "y"], "h": "xy"}),
        "state block 0 slices['h']: not one value per sentence (2)",
    ),
]


@pytest.mark.parametrize("change, message", SPAN_ERRORS)
def test_each_bad_span_block_is_named_in_full(spans, change, message):
    layout = span_layout(spans)
    change(layout["blocks"][0])
    refused(layout, message)


def test_a_span_block_may_carry_both_extras(spans):
    layout = span_layout(spans)
    layout["blocks"][0]["pred_extras"] = {"attributes": [{"x": 1}], "fragments": [None]}
    assert read(layout).blocks[0]["pred_extras"] == {"attributes": [{"x": 1}], "fragments": [None]}


def test_the_arrays_of_a_state_share_one_budget(metric, spans, monkeypatch):
    """The bytes a state may inflate to are counted across its arrays: each fits, together they do
    not (a tag block: 7 + 7 + 3 bytes; a span block: 2 + 4 x 1 + 4 x 2 bytes)."""
    tags, span = tag_layout(metric), span_layout(spans)
    monkeypatch.setattr(S, "MAX_INFLATED", 10)
    refused(
        tags,
        "state block 0 references: 7 values (7 bytes) inflate beyond the 10 bytes a state may hold"
        " (ner_state.MAX_INFLATED; keep='counts' holds any corpus in constant size)",
    )
    monkeypatch.setattr(S, "MAX_INFLATED", 13)
    refused(
        span,
        "state block 0 gold: 2 values (2 bytes) inflate beyond the 13 bytes a state may hold"
        + (" (ner_state.MAX_INFLATED; keep='counts' holds any corpus in constant size)"),
    )
    monkeypatch.setattr(S, "MAX_INFLATED", 14)
    assert read(span).sentences == 2


def test_a_column_in_some_partitions_only_is_named(metric):
    a = metric.state(predictions=[["B-A"]], references=[["B-A"]], slices={"g": ["x"]})
    b = metric.state(predictions=[["B-A"]], references=[["O"]], first_sentence=1)
    with pytest.raises(ValueError) as error:
        metric.finalize(a + b)
    assert str(error.value) == "some partitions carry slices and others not: give it to every partition"


# ---------------------------------------------------------------------------- make_state and finalize_state


def test_make_state_defaults_to_an_exact_state_from_sentence_0():
    state = S.make_state("default", PREDICTIONS, REFERENCES)
    assert isinstance(state, S.State) and list(state.blocks) == [0] and state.sentences == 3


@pytest.mark.parametrize("first", [-1, True, 1.5, "0"])
def test_first_sentence_is_a_non_negative_int(metric, first):
    with pytest.raises(ValueError) as error:
        metric.state(predictions=PREDICTIONS, references=REFERENCES, first_sentence=first)
    assert str(error.value) == (
        f"first_sentence must be a non-negative int (the sentences before the partition); got {first!r}"
        + S.FIRST_SENTENCE_HOW
    )
    assert list(
        metric.state(predictions=PREDICTIONS, references=REFERENCES, first_sentence=np.int64(4)).blocks
    ) == [4]


def test_keep_is_named_in_full(metric):
    with pytest.raises(ValueError) as error:
        metric.state(predictions=PREDICTIONS, references=REFERENCES, keep="sums")
    assert str(error.value) == "keep must be one of ['exact', 'counts']; got 'sums'"


def test_a_counts_state_through_the_state_calls(metric):
    """keep='counts' makes a counts state, which finalize scores with its interval method; a counts
    state holds no subgroups and belongs to its config."""
    import evaluate
    from test_parity import random_corpus

    references, predictions = random_corpus(0, 80, prefixes="OOBI", types="AB")
    state = metric.state(
        predictions=predictions, references=references, keep="counts", ci_resamples=50, seed=1
    )
    assert isinstance(state, metric.CountsState)
    for interval in ("percentile", "bias_corrected"):
        assert unsigned(metric.finalize(state, interval=interval)) == C.finalize_counts(
            "default", state, interval
        )
    direct = S.make_state("default", PREDICTIONS, REFERENCES, keep="counts", ci_resamples=30, seed=1)
    assert S.finalize_state("default", direct) == C.finalize_counts("default", direct, "percentile")
    assert (
        metric.finalize(state)["intervals"] != metric.finalize(state, interval="bias_corrected")["intervals"]
    )
    subgroups = evaluate.load(METRIC_PATH, "subgroups")
    with pytest.raises(ValueError) as error:
        subgroups.state(predictions=PREDICTIONS, references=REFERENCES, subgroups=["a"] * 3, keep="counts")
    assert str(error.value) == "keep='counts' holds no subgroups (the stratified recall needs every entity)"
    with pytest.raises(ValueError) as error:
        subgroups.finalize(state)
    assert str(error.value) == "a state of the 'default' config; this metric is 'subgroups'"


def test_finalize_state_defaults_and_its_messages(metric, spans):
    state = metric.state(predictions=PREDICTIONS, references=REFERENCES)
    direct = S.finalize_state("default", S.make_state("default", PREDICTIONS, REFERENCES))
    assert direct == unsigned(metric.compute(predictions=PREDICTIONS, references=REFERENCES))
    with pytest.raises(ValueError) as error:
        metric.finalize(state, interval="bias_corrected")
    assert str(error.value) == (
        "interval='bias_corrected' is for a counts state; an exact state's intervals are compute's (expanded BCa)"
    )
    with pytest.raises(ValueError) as error:
        spans.finalize(state)
    assert str(error.value) == "a state of the 'default' config; this metric is 'spans'"
    with pytest.raises(ValueError) as error:
        metric.finalize("state")
    assert str(error.value) == "finalize takes a State (metric.state, or State.from_bytes); got str"
    with pytest.raises(ValueError) as error:
        metric.finalize(metric.State())
    assert str(error.value) == "an empty state: no sentence to score"


@pytest.mark.parametrize(
    "options, other, references, predictions",
    [
        (
            {"scheme": "IOBES", "mode": "strict"},
            {},
            [["S-A", "B-B", "E-B"], ["B-A", "I-A", "E-A"]],
            [["B-A", "B-B", "E-B"], ["B-A", "E-A", "O"]],
        ),
        # as TYPE-PREFIX "I-B" is a type I: two entities where PREFIX-TYPE reads one
        ({"suffix": True}, {}, [["B-B", "I-B"], ["I-B", "O"]], [["B-B", "B-B"], ["I-B", "O"]]),
    ],
    ids=["scheme", "suffix"],
)
def test_the_tag_options_reach_the_decoding_of_the_merged_state(
    metric, options, other, references, predictions
):
    """The merged state decodes as compute does with the same options (which change the scores)."""
    whole = metric.compute(predictions=predictions, references=references, **options)
    parts = [
        metric.state(predictions=predictions[a:b], references=references[a:b], first_sentence=a, **options)
        for a, b in ((0, 1), (1, 2))
    ]
    assert repr(metric.finalize(metric.State.from_bytes(sum(parts).to_bytes()))) == repr(whole)
    assert (
        metric.compute(predictions=predictions, references=references, **other)["overall_f1"]
        != whole["overall_f1"]
    )


def test_texts_travel_with_their_partitions(spans):
    """Texts, one per example, merged in order: the merged state scores as compute with the texts
    (the signature names them), and a partition without them is named."""
    texts = ["ab cd", "a bcd"]
    whole = spans.compute(predictions=SPAN_PRED, references=SPAN_GOLD, texts=texts)
    parts = [
        spans.state(predictions=SPAN_PRED[a:b], references=SPAN_GOLD[a:b], first_sentence=a, texts=texts[a:b])
        for a, b in ((0, 1), (1, 2))
    ]
    assert [p.blocks[a]["texts"] for p, a in zip(parts, (0, 1))] == [texts[:1], texts[1:]]
    assert repr(spans.finalize(parts[1] + parts[0])) == repr(whole)
    assert whole["signature"] != spans.compute(predictions=SPAN_PRED, references=SPAN_GOLD)["signature"]
    bare = spans.state(predictions=SPAN_PRED[1:], references=SPAN_GOLD[1:], first_sentence=1)
    with pytest.raises(ValueError) as error:
        spans.finalize(parts[0] + bare)
    assert str(error.value) == "some partitions carry texts and others not: give it to every partition"


# ---------------------------------------------------------------------------- what make_state checks and keeps


def test_options_are_held_in_one_order(metric):
    a = metric.state(predictions=PREDICTIONS[:1], references=REFERENCES[:1], zero_division=1, beta=2.0)
    b = metric.state(
        predictions=PREDICTIONS[1:], references=REFERENCES[1:], first_sentence=1, beta=2.0, zero_division=1
    )
    assert a.options == b.options == '{"beta": 2.0, "zero_division": 1}'
    assert (a + b).sentences == 3


def test_a_counts_state_gets_the_partition_and_its_options(metric):
    state = metric.state(
        predictions=PREDICTIONS, references=REFERENCES, first_sentence=5, keep="counts", beta=2.0
    )
    assert state.ranges == [[5, 8]] and json.loads(state.settings["options"]) == {"beta": 2.0}
    assert state.tokens == (2, 4) and metric.finalize(state)["overall_precision"] == 1 / 3


def gliner(start, end, text, label="A"):
    return {"start": start, "end": end, "text": text, "label": label, "score": 0.5}


def said(call):
    with pytest.raises(ValueError) as error:
        call()
    return str(error.value)


def test_a_span_partition_is_checked_as_compute_checks_it(spans):
    """Model output read with the texts on either side, named there; every check of compute (an
    entity past its text); doubt and fragments refused by name."""
    mismatch = "text 'xy' is not texts[0][0:2] = 'ab' (offsets must be characters of the example's text)"
    for side in ("predictions", "references"):
        given = {"predictions": [[]], "references": [[]], side: [[gliner(0, 2, "xy")]]}
        assert (
            said(lambda: spans.state(**given, texts=["ab"]))
            == f"{side}[0][0] {gliner(0, 2, 'xy')!r}: {mismatch}"
        )
    past = [[{"label": "A", "start": 0, "end": 5}]]
    message = said(lambda: spans.compute(predictions=[[]], references=past, texts=["ab"]))
    assert message.endswith("end is past the end of the text")
    assert said(lambda: spans.state(predictions=[[]], references=past, texts=["ab"])) == message
    optional = [[{"label": "A", "start": 0, "end": 2, "optional": True}]]
    assert said(lambda: spans.state(predictions=[[]], references=optional)) == (
        "references hold doubt (alternatives, vague labels or optional entities): compute resolves it for the"
        " predictions; a state holds plain entities (resolve each partition with compute, or give the"
        " resolved references)"
    )
    several = [[{"label": "A", "start": 0, "end": 3, "fragments": [[0, 1], [2, 3]]}]]
    for side in ("predictions", "references"):
        given = {"predictions": [[]], "references": [[]], side: several}
        assert said(lambda: spans.state(**given)) == (
            f"{side}[0][0] has several fragments, which the state (it stores label, start and end) does not"
            " read (see docs/discontinuous.md)"
        )


def test_scored_model_output_reaches_the_ranking_family(spans):
    predictions = [[gliner(0, 2, "ab"), dict(gliner(3, 4, "d", "B"), score=0.9)]]
    references = [[{"label": "A", "start": 0, "end": 2}]]
    options = {"scores": ["seqeval", "ranking"], "texts": ["ab d"]}
    whole = spans.compute(predictions=predictions, references=references, **options)
    state = spans.state(predictions=predictions, references=references, **options)
    assert state.blocks[0]["pred_scores"] == [0.5, 0.9]
    assert repr(spans.finalize(spans.State.from_bytes(state.to_bytes()))) == repr(whole)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"document_ids": [1]}, "document_ids has 1 values but the partition has 3 sentences"),
        ({"slices": {"g": ["x"]}}, "slices['g'] has 1 values but the partition has 3 sentences"),
        ({"document_ids": [1, 1.5, 2]}, "document_ids[1] is 1.5; a state holds str or int document ids"),
        (
            {"document_ids": [True, False, True]},
            "document_ids[0] is True; a state holds str or int document ids",
        ),
        (
            {"subgroups": ["a"] * 3},
            "subgroups needs the 'subgroups' config: evaluate.load(path, 'subgroups')",
        ),
        (
            {"tokens": "abc", "buckets": ["capitalisation"]},
            "tokens must be a list with one list per sentence; got str",
        ),
        (
            {"token_scores": {"a": 1}, "scores": ["seqeval", "ranking"]},
            "token_scores must be a list with one list per sentence; got dict",
        ),
        (
            {"sentence_ids": ["a", "b", "c"]},
            "sentence_ids name the units of keep='counts'; the exact state numbers its sentences from first_sentence"
            + S.FIRST_SENTENCE_HOW,
        ),
    ],
)
def test_each_bad_column_is_named_in_full(metric, options, message):
    assert said(lambda: metric.state(predictions=PREDICTIONS, references=REFERENCES, **options)) == message


def test_subgroups_are_checked_by_name():
    import evaluate

    subgroups = evaluate.load(METRIC_PATH, "subgroups")
    message = said(
        lambda: subgroups.state(predictions=PREDICTIONS, references=REFERENCES, subgroups=[1.5, "a", "b"])
    )
    assert message == "subgroups[0] is 1.5; every sentence needs a subgroup name (a non-empty str)"


def test_numpy_columns_are_held_as_python_values(metric):
    state = metric.state(
        predictions=PREDICTIONS,
        references=REFERENCES,
        document_ids=np.array([4, 4, 7]),
        slices={"g": [np.int64(1), np.int64(2), np.int64(1)]},
        tokens=[("a", "b"), ["c"], ["d"]],
        buckets=["capitalisation"],
    )
    block = state.blocks[0]
    assert block["document_ids"] == [4, 4, 7] and {type(v) for v in block["document_ids"]} == {int}
    assert block["slices"] == {"g": [1, 2, 1]} and {type(v) for v in block["slices"]["g"]} == {int}
    assert block["tokens"] == [["a", "b"], ["c"], ["d"]]
    json.loads(state.to_bytes())  # plain JSON


def test_a_bad_token_row_is_named_when_finalized_as_compute_names_it(metric):
    tokens = [["a", "b"], 5, ["c"]]
    options = {"tokens": tokens, "buckets": ["capitalisation"]}
    message = said(lambda: metric.compute(predictions=PREDICTIONS, references=REFERENCES, **options))
    state = metric.state(predictions=PREDICTIONS, references=REFERENCES, **options)
    assert state.blocks[0]["tokens"][1] == 5
    assert said(lambda: metric.finalize(state)) == message == "tokens[1] must be a list of 1 str, one per tag"


def test_a_merged_state_is_decoded_under_its_scheme(metric):
    """A tag the scheme refuses, slipped into a state's vocabulary, is named when finalized, as
    compute names it."""
    state = metric.state(predictions=PREDICTIONS, references=REFERENCES, mode="strict", scheme="IOB2")
    layout = json.loads(state.to_bytes())
    assert layout["blocks"][0]["vocabulary"] == ["O", "B-A", "B-B", "I-A"]
    layout["blocks"][0]["vocabulary"][2] = "S-B"
    tampered = metric.State.from_bytes(json.dumps(layout).encode())
    assert said(lambda: metric.finalize(tampered)) == (
        "invalid tag 'S-B' at predictions[1][0] (scheme IOB2 expects O, B-*, I-* as PREFIX-TYPE)"
    )


def test_layout_4_names_the_codes_it_expects(metric):
    layout = dict(tag_layout(metric), version=4)
    layout["blocks"][0].pop("lengths_crc32")
    layout["blocks"][0]["predictions"] = packed([1, 2, 0], "uint8", count=None)
    refused(layout, "state block 0 predictions: not 7 codes of its 4 tags (with a 0 after each sentence)")
