"""Invariants that hold for every input, checked on seeded random corpora."""

import random

import pytest
from test_parity import random_corpus

from conftest import assert_signed, unsigned
from ner_recall.core.vocabulary import fbeta, fbeta_key

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
    assert_signed(results)  # the one str: the signature naming the options
    for path, value in walk(unsigned(results)):
        assert type(value) in (int, float), (path, type(value))


def test_perfect_predictions_score_one(metric, corpus):
    references, _ = corpus
    results = metric.compute(predictions=references, references=references)
    for key in (
        "overall_precision",
        "overall_recall",
        "overall_f1",
        "overall_accuracy",
        "macro_f1",
        "weighted_f1",
    ):
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
    support = sum(
        v["number"] for k, v in results.items() if isinstance(v, dict) and k not in ("muc", "decoding")
    )
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
    shuffled = metric.compute(
        predictions=[predictions[i] for i in order], references=[references[i] for i in order]
    )
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
        metric.add_batch(
            predictions=predictions[start : start + 400], references=references[start : start + 400]
        )
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


# ------------------------------------------------------------------ zero_division and beta, every family
FAMILIES = ["seqeval", "muc", "token", "overlap", "harem"]
ZERO_CASES = {
    "random, with an absent type": (
        *random_corpus(4, 60, prefixes="OOOOBIES", types="ABC", max_len=6),
        ["A", "C", "ZZ"],
    ),
    "random, few entities": (*random_corpus(9, 12, prefixes="OOOOOOBI", types="ABCDE", max_len=5), None),
    "no entity at all": ([["O", "O"], []], [["O", "O"], []], None),
    "only empty sentences": ([[]], [[]], None),
    "only spurious": ([["O", "O", "O"]], [["B-A", "O", "B-B"]], None),
    "only missed": ([["B-A", "I-A", "O"]], [["O", "O", "O"]], ["A", "B"]),
    "one of each": ([["B-A", "O", "B-B", "O", "B-C"]], [["B-A", "O", "O", "B-D", "B-C"]], None),
}


def leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    else:
        yield path, value


#: result blocks that are no entity type
BLOCKS = {*FAMILIES, "decoding", "errors", "confusion", "stratified_recall", "intervals"}


def seqeval_rows(results):
    return {k: v for k, v in results.items() if isinstance(v, dict) and k not in BLOCKS}


def prf_tables(results):
    """(path, table) of every table with precision / recall / F keys, and their denominators' names."""
    muc = results["muc"]
    for name in seqeval_rows(results):  # seqeval per type: predicted entities are muc's strict "actual"
        yield (
            (name,),
            dict(results[name], actual=muc["strict"]["per_type"][name]["actual"]),
            "actual",
            "number",
        )
    yield (
        (),
        {
            "precision": results["overall_precision"],
            "recall": results["overall_recall"],
            "f1": results["overall_f1"],
            **{k: muc["strict"][k] for k in ("actual", "possible")},
        },
        "actual",
        "possible",
    )
    for mode, table in muc.items():
        yield ("muc", mode), table, "actual", "possible"
        for name, row in table["per_type"].items():
            yield ("muc", mode, "per_type", name), row, "actual", "possible"
    for family in ("token", "overlap"):
        yield (family,), results[family], "predicted", "number"
        for name, row in results[family]["per_type"].items():
            yield (family, "per_type", name), row, "predicted", "number"
    yield ("harem",), results["harem"], "actual", "possible"


def ratios(results, tokens):
    """(path, value, denominator) of every precision, recall and accuracy of every family."""
    yield ("overall_accuracy",), results["overall_accuracy"], tokens
    for path, table, predicted, gold in prf_tables(results):
        prefix = "" if path else "overall_"  # the seqeval micro scores are top-level keys
        yield path + (prefix + "precision",), table["precision"], table[predicted]
        yield path + (prefix + "recall",), table["recall"], table[gold]


def derived(path):
    """Whether a result key is an F score or an average of per-type scores."""
    return path[-1] == "f1" or path[-1] == "overall_f1" or path[-1].startswith(("macro_", "weighted_"))


def assert_derived_from_ratios(results, z):
    for path, table, _, _ in prf_tables(results):
        assert table["f1"] == fbeta(table["precision"], table["recall"]), path
    for rows, averages in [
        (seqeval_rows(results), results),
        (results["token"]["per_type"], results["token"]),
        (results["overlap"]["per_type"], results["overlap"]),
    ]:
        support = sum(row["number"] for row in rows.values())
        for key in ("precision", "recall", "f1"):
            values = [row[key] for row in rows.values()]
            assert averages[f"macro_{key}"] == pytest.approx(
                sum(values) / len(values) if values else z, abs=1e-12
            )
            if support:
                weighted = sum(row[key] * row["number"] for row in rows.values()) / support
                assert averages[f"weighted_{key}"] == pytest.approx(weighted, abs=1e-12)


@pytest.mark.parametrize("case", sorted(ZERO_CASES))
def test_zero_division_sets_every_zero_over_zero_score_and_nothing_else(metric, case):
    references, predictions, types = ZERO_CASES[case]
    tokens = sum(map(len, references))
    runs = [
        metric.compute(
            predictions=predictions, references=references, scores=FAMILIES, types=types, zero_division=z
        )
        for z in (0, 1)
    ]
    zero_over_zero = set()
    for (path, v0, d0), (path1, v1, d1) in zip(*(ratios(r, tokens) for r in runs)):
        assert (path, d0) == (path1, d1)
        assert (v0, v1) == ((0.0, 1.0) if d0 == 0 else (v0, v0)), path
        if d0 == 0:
            zero_over_zero.add(path)
    a, b = (dict(leaves(unsigned(r))) for r in runs)
    assert a.keys() == b.keys()
    assert {p for p in a if a[p] != b[p]} <= zero_over_zero | {p for p in a if derived(p)}
    for results, z in zip(runs, (0.0, 1.0)):
        assert_derived_from_ratios(results, z)
    if case != "random, few entities":  # every case but one has a 0/0 score
        assert zero_over_zero


@pytest.mark.parametrize("beta", [0.5, 2, 3.25])
def test_beta_names_every_f_key_of_every_family_and_changes_only_f(metric, corpus, beta):
    references, predictions = corpus
    key = fbeta_key(beta)
    plain, weighted = (
        dict(
            leaves(
                unsigned(
                    metric.compute(
                        predictions=predictions[:300], references=references[:300], scores=FAMILIES, beta=b
                    )
                )
            )
        )
        for b in (1, beta)
    )
    renamed = {
        p[:-1] + (p[-1][:-2] + key,) if derived(p) and p[-1].endswith("f1") else p: v
        for p, v in plain.items()
    }
    assert renamed.keys() == weighted.keys()
    assert not any(p[-1].endswith("f1") for p in weighted)
    changed = {p for p in weighted if weighted[p] != renamed[p]}
    assert changed and all(p[-1].endswith(key) for p in changed)
