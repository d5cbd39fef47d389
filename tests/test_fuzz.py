"""Fuzzing the input path: bad inputs of every class, drawn by hypothesis, through ``compute``,
``add_batch`` and ``add``. Each must raise a ``ValueError`` that names the place (the input,
the sentence or the item, or the option), and the metric object must stay usable after it:
the data streamed before an option error is kept, and a valid call scores as expected.

Bounded: a fixed number of examples per test, no deadline; about a minute in all.
"""

import re

import numpy as np
import pytest

from conftest import METRIC_PATH, require

hypothesis = require("hypothesis", "pip install -r requirements-dev.txt")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
TAGS = NAMES
FUZZ = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
VALID = dict(predictions=[["B-PER", "I-PER", "O"], ["B-LOC"]], references=[["B-PER", "O", "O"], ["B-LOC"]])
VALID_F1 = 0.5


@pytest.fixture(scope="module")
def metric(tmp_path_factory):
    import evaluate

    return evaluate.load(METRIC_PATH, cache_dir=str(tmp_path_factory.mktemp("fuzz")))


def still_usable(metric):
    """A valid call after a failure scores as it should, and leaves nothing behind."""
    assert len(metric) == 0
    assert metric.compute(**VALID)["overall_f1"] == VALID_F1
    metric.add_batch(**VALID)
    assert metric.compute()["overall_f1"] == VALID_F1


corpora = st.lists(st.lists(st.sampled_from(TAGS), min_size=1, max_size=6), min_size=1, max_size=5)
BAD_ITEMS = [
    None,
    1.5,
    float("nan"),
    True,
    False,
    b"B-PER",
    ["O"],
    ("O",),
    {"O": 1},
    1 + 2j,
    object(),
    np.float32(1),
    np.bool_(True),
    2**63,
    -(2**63) - 1,
    10**30,
]
BAD_SENTENCES = [None, "B-PER O", b"O", 5, 1.5, {"a": 1}, {"O"}, np.zeros((2, 2), dtype=int), np.float64(3)]
BAD_COLUMNS = [
    None,
    5,
    "B-PER O",
    b"O",
    {"a": ["O"]},
    {("O",)},
    np.zeros(3, dtype=int),
    np.zeros((2, 3, 4)),
    np.zeros((2, 2)),
    1.5,
]


def call(metric, how, predictions, references, **options):
    if how == "compute":
        return metric.compute(predictions=predictions, references=references, **options)
    if how == "add_batch":
        metric.add_batch(predictions=predictions, references=references)
        return metric.compute(**options)
    for p, r in zip(predictions, references):
        metric.add(prediction=p, reference=r)
    return metric.compute(**options)


def place(side, i, j, how):
    return f"{side[:-1]}[{j}]" if how == "add" else f"{side}[{i}][{j}]"


@FUZZ
@given(
    corpus=corpora,
    data=st.data(),
    how=st.sampled_from(["compute", "add_batch", "add"]),
    bad=st.sampled_from(BAD_ITEMS),
    ids=st.booleans(),
)
def test_a_bad_item_is_named_at_its_place(metric, corpus, data, how, bad, ids):
    references = [list(s) for s in corpus]
    predictions = [list(s) for s in corpus]
    options = {}
    if ids:
        references = [[NAMES.index(t) for t in s] for s in references]
        predictions = [[NAMES.index(t) for t in s] for s in predictions]
        options = {"label_names": NAMES}
    side = data.draw(st.sampled_from(["predictions", "references"]))
    i = data.draw(st.integers(0, len(corpus) - 1))
    j = data.draw(st.integers(0, len(corpus[i]) - 1))
    (predictions if side == "predictions" else references)[i][j] = bad
    with pytest.raises(ValueError) as error:
        call(metric, how, predictions, references, **options)
    message = str(error.value)
    if how == "add":  # sentence i is added alone: the place is its item j
        assert re.search(rf"\b{side[:-1]}\[{j}\]", message), message
    else:
        assert place(side, i, j, how) in message, message
    still_usable(drained(metric, options))


def drained(metric, options=None):
    """The same object after scoring what a failed ``add`` left: the sentences added before
    the bad one, each its own call, are kept and score."""
    if len(metric):
        assert metric.compute(**(options or {}))["overall_accuracy"] == 1.0
    return metric


@FUZZ
@given(
    corpus=corpora,
    data=st.data(),
    how=st.sampled_from(["compute", "add_batch"]),
    bad=st.sampled_from(BAD_SENTENCES),
)
def test_a_bad_sentence_is_named(metric, corpus, data, how, bad):
    predictions, references = [list(s) for s in corpus], [list(s) for s in corpus]
    side = data.draw(st.sampled_from(["predictions", "references"]))
    i = data.draw(st.integers(0, len(corpus) - 1))
    (predictions if side == "predictions" else references)[i] = bad
    with pytest.raises(ValueError) as error:
        call(metric, how, predictions, references)
    assert re.search(rf"{side}\[{i}\]", str(error.value)), str(error.value)
    still_usable(metric)


@FUZZ
@given(
    corpus=corpora,
    how=st.sampled_from(["compute", "add_batch"]),
    bad=st.sampled_from(BAD_COLUMNS),
    side=st.sampled_from(["predictions", "references"]),
)
def test_a_bad_column_is_named(metric, corpus, how, bad, side):
    columns = {"predictions": [list(s) for s in corpus], "references": [list(s) for s in corpus]}
    columns[side] = bad
    with pytest.raises(ValueError) as error:
        call(metric, how, columns["predictions"], columns["references"])
    assert side in str(error.value), str(error.value)
    still_usable(metric)


@FUZZ
@given(corpus=corpora, data=st.data(), how=st.sampled_from(["compute", "add_batch", "add"]))
def test_lengths_that_differ_are_named(metric, corpus, data, how):
    predictions, references = [list(s) for s in corpus], [list(s) for s in corpus]
    i = data.draw(st.integers(0, len(corpus) - 1))
    references[i] = references[i] + ["O"]
    with pytest.raises(ValueError) as error:
        call(metric, how, predictions, references)
    expected = "prediction has" if how == "add" else f"predictions[{i}] has"
    assert expected in str(error.value), str(error.value)
    still_usable(drained(metric))


@FUZZ
@given(corpus=corpora, data=st.data(), how=st.sampled_from(["compute", "add_batch"]))
def test_class_ids_out_of_range_are_named(metric, corpus, data, how):
    predictions = [[NAMES.index(t) for t in s] for s in corpus]
    references = [[NAMES.index(t) for t in s] for s in corpus]
    side = data.draw(st.sampled_from(["predictions", "references"]))
    i = data.draw(st.integers(0, len(corpus) - 1))
    j = data.draw(st.integers(0, len(corpus[i]) - 1))
    bad = data.draw(
        st.sampled_from([len(NAMES), 99, -1, -7, 2**40] + ([-100] if side == "predictions" else []))
    )
    (predictions if side == "predictions" else references)[i][j] = bad
    as_array = data.draw(st.booleans()) and len({len(s) for s in corpus}) == 1
    if as_array:
        predictions, references = np.array(predictions), np.array(references)
    with pytest.raises(ValueError) as error:
        call(metric, how, predictions, references, label_names=NAMES)
    message = str(error.value)
    assert f"{side}[{i}][{j}] = {bad} is not a class id" in message and "label_names" in message, message
    still_usable(metric)


BAD_OPTIONS = [
    ("mode", ["Strict", "lenient", 1, ""]),
    ("scheme", ["iob2", "BIO", 2]),
    ("zero_division", ["warn", 2, -1, 0.5, None, 1 + 0j, np.array([0, 1]), True]),
    ("suffix", ["yes", 1, None]),
    ("label_names", ["O B-PER", [1, 2], [], 5]),
    ("scores", [["bogus"]]),
    ("overlap_threshold", [0, 1.5, -0.1]),
    ("sample_weight", [[1]]),
    ("Mode", ["strict"]),
]


@FUZZ
@given(corpus=corpora, option=st.sampled_from(BAD_OPTIONS), data=st.data(), streamed=st.booleans())
def test_a_bad_option_is_named_and_the_stream_kept(metric, corpus, option, data, streamed):
    name, values = option
    value = data.draw(st.sampled_from(values))
    inputs = {"predictions": [list(s) for s in corpus], "references": [list(s) for s in corpus]}
    if streamed:
        metric.add_batch(**inputs)
        inputs = {}
    with pytest.raises(ValueError) as error:
        metric.compute(**inputs, **{name: value})
    assert name in str(error.value), str(error.value)
    if streamed:  # checked before the cache is touched: the stream is still there
        assert len(metric) == len(corpus)
        assert metric.compute()["overall_accuracy"] == 1.0
    still_usable(metric)
