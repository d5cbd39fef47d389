"""Invariants that hold for every input, checked on seeded random corpora."""

import random

import pytest

from test_parity import random_corpus

MODES = ("strict", "exact", "partial", "type")
COUNT_KEYS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")


@pytest.fixture(scope="module")
def corpus():
    return random_corpus(21, 1500, prefixes="OOOBIES")


@pytest.fixture(scope="module")
def results(metric, corpus):
    references, predictions = corpus
    return metric.compute(predictions=predictions, references=references)


def walk(value, path="results"):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, f"{path}[{k!r}]")
    else:
        yield path, value


def test_results_hold_plain_python_numbers(results):
    for path, value in walk(results):
        assert type(value) in (int, float), (path, type(value))


def test_perfect_predictions_score_one(metric, corpus):
    references, _ = corpus
    results = metric.compute(predictions=references, references=references)
    for key in ("overall_precision", "overall_recall", "overall_f1", "overall_accuracy",
                "macro_f1", "weighted_f1"):
        assert results[key] == 1.0, key
    for mode in MODES:
        m = results["muc"][mode]
        assert (m["precision"], m["recall"], m["f1"]) == (1.0, 1.0, 1.0)
        assert m["correct"] == m["possible"] == m["actual"] > 0
        assert m["incorrect"] == m["partial"] == m["missed"] == m["spurious"] == 0


def test_per_type_counts_add_up(results):
    for mode in MODES:
        table = results["muc"][mode]
        for key in COUNT_KEYS:
            assert sum(t[key] for t in table["per_type"].values()) == table[key], (mode, key)


def test_possible_and_actual_decompose(results):
    for mode in MODES:
        m = results["muc"][mode]
        assert m["possible"] == m["correct"] + m["incorrect"] + m["partial"] + m["missed"]
        assert m["actual"] == m["correct"] + m["incorrect"] + m["partial"] + m["spurious"]
        for t in m["per_type"].values():
            assert t["possible"] == t["correct"] + t["incorrect"] + t["partial"] + t["missed"]


def test_possible_equals_seqeval_support(results):
    support = sum(v["number"] for k, v in results.items() if isinstance(v, dict) and k not in ("muc", "decoding"))
    assert all(results["muc"][mode]["possible"] == support for mode in MODES)


def test_modes_are_ordered_by_leniency(results):
    muc = results["muc"]
    assert muc["strict"]["correct"] <= muc["exact"]["correct"] <= muc["partial"]["correct"]
    assert muc["strict"]["correct"] <= muc["type"]["correct"]
    assert muc["strict"]["f1"] == pytest.approx(results["overall_f1"], abs=1e-12)


def test_invariant_to_sentence_order(metric, corpus, results):
    references, predictions = corpus
    order = list(range(len(references)))
    random.Random(3).shuffle(order)
    shuffled = metric.compute(predictions=[predictions[i] for i in order],
                              references=[references[i] for i in order])
    assert shuffled == results


def test_swapping_sides_swaps_precision_and_recall(metric, corpus, results):
    references, predictions = corpus
    swapped = metric.compute(predictions=references, references=predictions)
    assert swapped["overall_precision"] == pytest.approx(results["overall_recall"], abs=1e-12)
    assert swapped["overall_recall"] == pytest.approx(results["overall_precision"], abs=1e-12)
    for mode in MODES:
        a, b = results["muc"][mode], swapped["muc"][mode]
        assert (b["precision"], b["recall"]) == pytest.approx((a["recall"], a["precision"]), abs=1e-12)
        assert (b["missed"], b["spurious"]) == (a["spurious"], a["missed"])


def test_add_batch_and_add_equal_compute(metric, corpus, results):
    references, predictions = corpus
    for start in range(0, len(references), 400):
        metric.add_batch(predictions=predictions[start:start + 400], references=references[start:start + 400])
    assert metric.compute() == results
    for pred, ref in zip(predictions[:50], references[:50]):
        metric.add(prediction=pred, reference=ref)
    assert metric.compute() == metric.compute(predictions=predictions[:50], references=references[:50])


def test_empty_sentences_change_nothing_but_nothing(metric, corpus, results):
    references, predictions = corpus
    padded = metric.compute(predictions=predictions + [[]] * 5, references=references + [[]] * 5)
    assert padded == results


@pytest.mark.parametrize("zero_division", [0, 1])
def test_no_entity_at_all_follows_zero_division(metric, zero_division):
    results = metric.compute(predictions=[["O"], []], references=[["O"], []], zero_division=zero_division)
    z = float(zero_division)
    assert results["overall_precision"] == results["overall_recall"] == z
    assert results["overall_accuracy"] == 1.0
    assert all(results["muc"][m]["precision"] == z for m in MODES)
    only_empty = metric.compute(predictions=[[]], references=[[]], zero_division=zero_division)
    assert only_empty["overall_accuracy"] == z
