"""Class ids as input: ``label_names`` maps them to tags; the result equals that of the tags."""

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import require
from ner_recall.core import cache as ner_cache

NAMES = ["O", "B-A", "I-A", "B-B", "I-B", "B-C", "I-C", "B-D", "I-D"]
ID = {name: i for i, name in enumerate(NAMES)}


def ids(sequences):
    return [[ID[tag] for tag in sequence] for sequence in sequences]


@pytest.fixture(scope="module")
def corpus():
    references, predictions = random_corpus(5, 400, prefixes="OOOBI")
    references[0], predictions[0] = ["B-A", "I-A"], ["B-A", "O"]  # the first example fixes the format
    return references, predictions


@pytest.mark.parametrize("as_numpy", [False, True])
def test_ids_score_as_their_tags(metric, corpus, as_numpy):
    references, predictions = corpus
    pred_ids, ref_ids = ids(predictions), ids(references)
    if as_numpy:
        pred_ids = [np.array(s, dtype=np.int64) for s in pred_ids]
        ref_ids = [np.array(s, dtype=np.int64) for s in ref_ids]
    from_ids = metric.compute(predictions=pred_ids, references=ref_ids, label_names=NAMES)
    from_tags = metric.compute(predictions=predictions, references=references)
    assert from_ids == from_tags
    assert from_ids["muc"]["strict"]["possible"] > 300


def test_ids_with_options_score_as_their_tags(metric, corpus):
    references, predictions = corpus
    options = dict(mode="strict", scheme="IOB2", zero_division=1)
    from_ids = metric.compute(
        predictions=ids(predictions), references=ids(references), label_names=NAMES, **options
    )
    assert from_ids == metric.compute(predictions=predictions, references=references, **options)


def test_ids_stream_through_add_batch(metric, corpus):
    references, predictions = corpus
    for start in range(0, len(references), 64):
        metric.add_batch(
            predictions=ids(predictions[start : start + 64]), references=ids(references[start : start + 64])
        )
    streamed = metric.compute(label_names=NAMES)
    assert streamed == metric.compute(predictions=predictions, references=references)


@pytest.mark.parametrize(
    "predictions, references, label_names, message",
    [
        (
            [[1, 2, 0, 12]],
            [[1, 2, 0, 0]],
            NAMES,
            r"predictions\[0\]\[3\] = 12 is not a class id: label_names has 9 names",
        ),
        (
            [[1, 2], [0, 0, 1, 0, 0, 9]],
            [[1, 2], [0] * 6],
            NAMES,
            r"predictions\[1\]\[5\] = 9 is not a class id",
        ),
        ([[1, 2]], [[1, -1]], NAMES, r"references\[0\]\[1\] = -1 is not a class id"),
        (
            [[1, -100]],
            [[1, 2]],
            NAMES,
            r"predictions\[0\]\[1\] = -100 is not a class id: label_names has 9 names"
            r" \(-100 marks an ignored position only where the reference is -100\)",
        ),
        (
            [[1, 2]],
            [[1, -2]],
            NAMES,
            r"references\[0\]\[1\] = -2 is not a class id.*\(-100, not -2, marks a position",
        ),
        (
            [[1, 2]],
            [[1, 2**62]],
            NAMES,
            r"references\[0\]\[1\] = 4611686018427387904 is not a class id.*ids 0 to 8",
        ),
        ([[1, 2]], [[1, 2]], None, r"predictions\[0\]\[0\] = 1 is a class id: pass label_names"),
        (
            [["B-A"]],
            [["B-A"]],
            NAMES,
            r"predictions\[0\]\[0\] = 'B-A' is not a class id, but label_names is given",
        ),
        ([[1]], [[1]], "O B-A", r"label_names must be a list of str"),
        ([[1]], [[1]], ["O", 1], r"label_names\[1\] must be a str; got 1"),
        ([[0]], [[0]], [], r"label_names is empty"),
        ([[0, 1]], [[0, 1]], ["O", "X-A"], r"invalid tag 'X-A'.*predictions\[0\]\[1\]"),
    ],
)
def test_invalid_class_ids_fail_naming_the_place(metric, predictions, references, label_names, message):
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=predictions, references=references, label_names=label_names)


def test_ids_and_tags_mixed_fail(metric):
    with pytest.raises(
        ValueError, match=r"references\[0\]\[0\] is a tag \('B-A'\) but predictions hold class ids"
    ):
        metric.compute(predictions=[[1, 2]], references=[["B-A", "I-A"]], label_names=NAMES)


@pytest.mark.parametrize("streamed", [False, True])
def test_an_empty_first_sentence_keeps_class_ids_as_ids(metric, streamed):
    """evaluate picks its format from the first example; ids behind an empty sentence stay ids."""
    inputs = dict(predictions=[[], [1, 2]], references=[[], [1, 2]])
    if streamed:
        metric.add_batch(**inputs)
        inputs = {}
    assert metric.compute(**inputs, label_names=NAMES)["A"]["number"] == 1


@pytest.mark.parametrize(
    "sequences, message",
    [
        ([[0, 1], [2, "B-A"]], r"predictions\[1\]\[1\] is a tag \('B-A'\) but the other items are class ids"),
        ([[0, 1.5]], r"predictions\[0\]\[1\] is 1.5, neither a tag \(str\) nor a class id"),
    ],
)
def test_input_codes_reject_non_ids(sequences, message):
    with pytest.raises(ValueError, match=message):
        ner_cache.input_codes(sequences, [[0] * len(s) for s in sequences], NAMES)


def test_references_at_minus_100_are_ignored_on_both_sides(metric, corpus):
    references, predictions = corpus
    pred_ids, ref_ids = ids(predictions), ids(references)
    padded_pred = [s + [0, 5] for s in pred_ids]  # whatever the model says at padding
    padded_ref = [s + [-100, -100] for s in ref_ids]
    assert metric.compute(
        predictions=padded_pred, references=padded_ref, label_names=NAMES
    ) == metric.compute(predictions=predictions, references=references)


def test_a_datasets_classlabel_column_scores_through_its_names(metric, corpus):
    datasets = require("datasets")
    references, predictions = corpus
    label = datasets.Sequence(datasets.ClassLabel(names=NAMES))
    features = datasets.Features({"ner_tags": label, "pred_tags": label})
    ds = datasets.Dataset.from_dict({"ner_tags": references, "pred_tags": predictions}, features=features)
    assert ds[0]["ner_tags"] == [ID["B-A"], ID["I-A"]]  # ClassLabel stores ids
    names = ds.features["ner_tags"].feature.names
    result = metric.compute(predictions=ds["pred_tags"], references=ds["ner_tags"], label_names=names)
    assert result == metric.compute(predictions=predictions, references=references)
