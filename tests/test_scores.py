"""Counts and the scores derived from them: the sparse pair table against a dense reference,
F-beta, type confusion, and hand-computed MUC tables."""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parity import random_corpus

from conftest import assert_signed, require, unsigned
from ner_recall.core import counts as ner_counts
from ner_recall.core import decoding as D
from ner_recall.core import matching as M
from ner_recall.core import vocabulary as ner_core


def core_counts(references, predictions, extra_types=()):
    """Counts through the core (no evaluate round trip); ``extra_types`` have no entity."""
    corpus = D.encode(predictions, references)
    gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    types = tuple(corpus.types) + tuple(extra_types)
    tokens_correct = sum(r == p for ref, prd in zip(references, predictions) for r, p in zip(ref, prd))
    tokens = sum(map(len, references))
    return ner_counts.count(gold, pred, M.match(gold, pred), types, tokens_correct, tokens)


# ------------------------------------------------------------------ dense reference
# The counting and scoring as they were with a dense (scenario x gold type x predicted type)
# array, kept verbatim in substance: the sparse table must give the same scores, to the bit.


def dense_pairs(counts):
    k = len(counts.types)
    pairs = np.zeros((len(ner_core.SCENARIOS), k, k), dtype=np.int64)
    p = counts.pairs
    pairs[p.scenario, p.gold, p.pred] = p.n
    return pairs


def dense_count(gold, pred, matching, k):
    flat = (matching.scenario.astype(np.int64) * k + gold.type[matching.gold]) * k + pred.type[matching.pred]
    return np.bincount(flat, minlength=len(ner_core.SCENARIOS) * k * k).reshape(len(ner_core.SCENARIOS), k, k)


def ref_divide(numerator, denominator, zero_division):
    return float(numerator) / float(denominator) if denominator else float(zero_division)


def ref_f1(precision, recall):
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def ref_mode_scores(recall_side, precision_side, missed, spurious, z):
    possible = sum(recall_side.values()) + missed
    actual = sum(precision_side.values()) + spurious
    precision = ref_divide(sum(ner_core.CREDIT[o] * n for o, n in precision_side.items()), actual, z)
    recall = ref_divide(sum(ner_core.CREDIT[o] * n for o, n in recall_side.items()), possible, z)
    table = {o: int(recall_side[o]) for o in ner_core.OUTCOMES}
    table.update(
        missed=int(missed),
        spurious=int(spurious),
        possible=int(possible),
        actual=int(actual),
        precision=precision,
        recall=recall,
        f1=ref_f1(precision, recall),
    )
    return table


def ref_by_outcome(mode, per_scenario):
    out = {o: 0 for o in ner_core.OUTCOMES}
    for outcome, n in zip(ner_core.OUTCOME_TABLE[mode], per_scenario):
        out[outcome] = out[outcome] + n
    return out


def ref_muc_scores(counts, pairs, z):
    gold_side, pred_side, overall = pairs.sum(axis=2), pairs.sum(axis=1), pairs.sum(axis=(1, 2))
    results = {}
    for mode in ner_core.MODES:
        table = ref_mode_scores(
            ref_by_outcome(mode, overall),
            ref_by_outcome(mode, overall),
            counts.missed.sum(),
            counts.spurious.sum(),
            z,
        )
        table["per_type"] = {
            name: ref_mode_scores(
                ref_by_outcome(mode, gold_side[:, i]),
                ref_by_outcome(mode, pred_side[:, i]),
                counts.missed[i],
                counts.spurious[i],
                z,
            )
            for i, name in enumerate(counts.types)
        }
        results[mode] = table
    return results


def ref_prf(hit_gold, hit_pred, number, predicted, z):
    p, r = ref_divide(hit_pred, predicted, z), ref_divide(hit_gold, number, z)
    return {
        "precision": p,
        "recall": r,
        "f1": ref_f1(p, r),
        "number": int(number),
        "predicted": int(predicted),
    }


def ref_averages(rows, predicted, z):
    names = ("precision", "recall", "f1")
    if not rows:
        return {f"{avg}_{n}": float(z) for avg in ("macro", "weighted") for n in names}
    scores = np.array([[row[n] for n in names] for row in rows], dtype=float)
    support = np.array([row["number"] for row in rows], dtype=float)
    macro = scores.mean(axis=0)
    if support.sum() > 0:
        weighted = (scores * support[:, None]).sum(axis=0) / support.sum()
    else:
        weighted = (z if predicted == 0 else 0.0, z, z if predicted == 0 else 0.0)
    out = {f"macro_{n}": float(v) for n, v in zip(names, macro)}
    out.update({f"weighted_{n}": float(v) for n, v in zip(names, weighted)})
    return out


def ref_prf_table(hit_gold, hit_pred, number, predicted, types, z):
    present = np.flatnonzero((np.asarray(number) + np.asarray(predicted)) > 0).tolist()
    per_type = {types[i]: ref_prf(hit_gold[i], hit_pred[i], number[i], predicted[i], z) for i in present}
    table = ref_prf(np.sum(hit_gold), np.sum(hit_pred), int(np.sum(number)), int(np.sum(predicted)), z)
    table.update(ref_averages(list(per_type.values()), int(np.sum(predicted)), z))
    table["per_type"] = per_type
    return table


def ref_seqeval_scores(counts, pairs, z):
    tp = np.diagonal(pairs[0]).astype(np.int64)
    true = pairs.sum(axis=(0, 2)) + counts.missed
    predicted = pairs.sum(axis=(0, 1)) + counts.spurious
    table = ref_prf_table(tp, tp, true, predicted, counts.types, z)
    results = {
        name: {k: row[k] for k in ("precision", "recall", "f1", "number")}
        for name, row in table["per_type"].items()
    }
    results.update({f"overall_{k}": table[k] for k in ("precision", "recall", "f1")})
    results["overall_accuracy"] = ref_divide(counts.tokens_correct, counts.tokens, z)
    results.update(
        {
            f"{avg}_{k}": table[f"{avg}_{k}"]
            for avg in ("macro", "weighted")
            for k in ("precision", "recall", "f1")
        }
    )
    return results


def assert_same_as_dense(references, predictions, extra_types=()):
    corpus = D.encode(predictions, references)
    gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    matching = M.match(gold, pred)
    counts = core_counts(references, predictions, extra_types)
    pairs = dense_count(gold, pred, matching, len(counts.types))
    assert np.array_equal(dense_pairs(counts), pairs)
    for z in (0.0, 1.0):
        assert ner_counts.muc_scores(counts, z) == ref_muc_scores(counts, pairs, z)
        assert ner_counts.seqeval_scores(counts, z) == ref_seqeval_scores(counts, pairs, z)


TAGS = ["O", "O", "B-A", "I-A", "B-B", "I-B", "E-A", "S-B", "B-C", "I-C", "I-D"]
sentence_pairs = st.integers(0, 12).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(TAGS), min_size=n, max_size=n),
        st.lists(st.sampled_from(TAGS), min_size=n, max_size=n),
    )
)


@settings(max_examples=300, deadline=None)
@given(st.lists(sentence_pairs, min_size=1, max_size=8), st.booleans())
def test_sparse_counts_score_as_the_dense_reference(sentences, extra_type):
    references, predictions = [list(r) for r, _ in sentences], [list(p) for _, p in sentences]
    assert_same_as_dense(references, predictions, ("Z",) if extra_type else ())


@pytest.mark.parametrize("seed, n_types", [(0, 4), (1, 30), (2, 300)])
def test_sparse_counts_score_as_the_dense_reference_on_larger_corpora(seed, n_types):
    types = [f"T{i}" for i in range(n_types)]
    references, predictions = random_corpus(seed, 1500, prefixes="OOOBIES", types=types)
    assert_same_as_dense(references, predictions, extra_types=("ZZ", "ZZZ"))


def test_pair_table_holds_only_the_pairs_seen():
    references, predictions = random_corpus(5, 400, prefixes="OOOBI", types=[f"T{i}" for i in range(2000)])
    counts = core_counts(references, predictions)
    p = counts.pairs
    assert len(p.n) <= sum(map(len, references)) and (p.n > 0).all()
    code = (p.scenario * len(counts.types) + p.gold) * len(counts.types) + p.pred
    assert (np.diff(code) > 0).all()  # sorted and unique
    assert int(p.n.sum()) + int(counts.missed.sum()) == ner_counts.muc_scores(counts)["strict"]["possible"]


def test_no_type_at_all():
    counts = core_counts([["O"], []], [["O"], []])
    assert counts.types == () and len(counts.pairs.n) == 0
    assert ner_counts.muc_scores(counts, 1.0)["strict"]["recall"] == 1.0
    assert ner_counts.confusion(counts) == {"same_span": {}, "overlap": {}, "missed": {}, "spurious": {}}


# ------------------------------------------------------------------ hand-computed MUC tables
# A gold PER predicted as LOC on the same span; a gold ORG found by an overlapping ORG.
SWAP = ([["B-PER", "I-PER", "O", "B-ORG", "I-ORG"]], [["B-LOC", "I-LOC", "O", "B-ORG", "O"]])


@pytest.mark.parametrize(
    "mode, name, key, z, expected",
    [
        # the predicted LOC scores on its own (predicted) side
        ("exact", "LOC", "precision", 0, 1.0),
        ("partial", "LOC", "precision", 0, 1.0),
        ("strict", "LOC", "precision", 0, 0.0),
        ("type", "LOC", "precision", 0, 0.0),
        ("exact", "LOC", "actual", 0, 1),
        ("exact", "LOC", "possible", 0, 0),
        ("exact", "LOC", "recall", 0, 0.0),  # 0/0
        ("exact", "LOC", "recall", 1, 1.0),
        # the gold PER on its own (gold) side
        ("exact", "PER", "recall", 0, 1.0),
        ("exact", "PER", "correct", 0, 1),
        ("strict", "PER", "recall", 0, 0.0),
        ("strict", "PER", "incorrect", 0, 1),
        ("exact", "PER", "precision", 0, 0.0),  # 0/0
        ("exact", "PER", "precision", 1, 1.0),
        ("exact", "PER", "actual", 1, 0),
        # the overlapping ORG pair
        ("partial", "ORG", "partial", 0, 1),
        ("partial", "ORG", "precision", 0, 0.5),
        ("type", "ORG", "recall", 0, 1.0),
        ("exact", "ORG", "precision", 0, 0.0),
        ("strict", "ORG", "f1", 0, 0.0),
    ],
)
def test_per_type_muc_table_by_hand(mode, name, key, z, expected):
    references, predictions = SWAP
    table = ner_counts.muc_scores(core_counts(references, predictions), float(z))[mode]["per_type"][name]
    assert table[key] == expected and type(table[key]) is type(expected)


@pytest.mark.parametrize("mode", ner_core.MODES)
@pytest.mark.parametrize("z", [0, 1])
def test_muc_recall_with_nothing_possible_follows_zero_division(mode, z):
    counts = core_counts([["O", "O", "O"]], [["B-PER", "O", "B-LOC"]])
    table = ner_counts.muc_scores(counts, float(z))[mode]
    assert (table["possible"], table["actual"], table["spurious"]) == (0, 2, 2)
    assert (table["recall"], table["precision"], table["f1"]) == (float(z), 0.0, 0.0)
    assert all(row["recall"] == float(z) for row in table["per_type"].values())


@pytest.mark.parametrize("z", [0, 1])
def test_muc_precision_with_nothing_predicted_follows_zero_division(z):
    counts = core_counts([["B-PER", "O"]], [["O", "O"]])
    table = ner_counts.muc_scores(counts, float(z))["strict"]
    assert (table["precision"], table["recall"], table["per_type"]["PER"]["precision"]) == (
        float(z),
        0.0,
        float(z),
    )


# ------------------------------------------------------------------ F-beta
@pytest.mark.parametrize(
    "beta, key",
    [
        (1, "f1"),
        (1.0, "f1"),
        (np.float64(1), "f1"),
        (np.int64(2), "f2"),
        (2, "f2"),
        (0.5, "f0.5"),
        (0.25, "f0.25"),
        (3.5, "f3.5"),
        (1e-5, "f1e-05"),
        (1e20, "f1e+20"),
    ],
)
def test_fbeta_key(beta, key):
    assert ner_core.fbeta_key(ner_counts.check_beta(beta)) == key


@pytest.mark.parametrize(
    "beta",
    [
        True,
        False,
        np.bool_(True),
        0,
        0.0,
        -1,
        -0.5,
        math.nan,
        math.inf,
        -math.inf,
        10**400,
        "1",
        None,
        [1],
        1j,
        np.array(1.0),
        np.nan,
    ],
)
def test_bad_beta_is_a_value_error(beta):
    with pytest.raises(ValueError, match=r"beta must be a finite number > 0; got "):
        ner_counts.check_beta(beta)


@pytest.mark.parametrize(
    "precision, recall, beta, expected",
    [
        (0.5, 1.0, 2, 5 * 0.5 / (4 * 0.5 + 1)),  # (1 + b2) p r / (b2 p + r)
        (0.5, 1.0, 0.5, 1.25 * 0.5 / (0.25 * 0.5 + 1)),
        (1.0, 0.5, 2, 5 * 0.5 / (4 + 0.5)),
        (0.0, 0.0, 2, 0.0),
        (0.0, 1.0, 0.5, 0.0),
        (1.0, 1.0, 3, 1.0),
    ],
)
def test_fbeta_by_hand(precision, recall, beta, expected):
    assert ner_core.fbeta(precision, recall, beta) == pytest.approx(expected, abs=1e-15)


def test_fbeta_of_one_is_the_harmonic_mean_bit_for_bit():
    rng = random.Random(0)
    values = [0.0, 1.0, 0.5, 1 / 3] + [rng.random() for _ in range(200)]
    for p in values:
        for r in values[:40]:
            assert ner_core.fbeta(p, r) == ner_core.fbeta(p, r, 1.0) == ref_f1(p, r)


@pytest.mark.parametrize("p, r", [(0.3, 0.9), (0.9, 0.3), (1e-300, 0.5)])
def test_fbeta_extremes_tend_to_precision_and_recall(p, r):
    assert ner_core.fbeta(p, r, 1e-200) == pytest.approx(p, rel=1e-12)  # beta ** 2 underflows
    assert ner_core.fbeta(p, r, 1e200) == pytest.approx(r, rel=1e-12)  # beta ** 2 overflows
    for beta in (1e-5, 0.5, 1.0, 2.0, 1e5):
        assert min(p, r) <= ner_core.fbeta(p, r, beta) <= max(p, r)


def indicator_matrices(references, predictions, types):
    """Each matched or unmatched entity as a row of (gold, predicted) type indicators, as
    scikit-learn scores a multilabel problem: micro/macro/weighted F-beta of the seqeval keys."""
    gold = {(i, s) for i, ref in enumerate(references) for s in D.tags_to_spans(ref)}
    pred = {(i, s) for i, prd in enumerate(predictions) for s in D.tags_to_spans(prd)}
    index = {t: j for j, t in enumerate(types)}
    rows = sorted(gold | pred, key=str)
    y_true = np.zeros((len(rows), len(types)), dtype=int)
    y_pred = np.zeros_like(y_true)
    for row, item in enumerate(rows):
        y_true[row, index[item[1].label]] = item in gold
        y_pred[row, index[item[1].label]] = item in pred
    return y_true, y_pred


@pytest.mark.parametrize("beta", [0.5, 2.0, 3.0])
@pytest.mark.parametrize("seed", range(3))
def test_seqeval_fbeta_equals_scikit_learn(seed, beta):
    metrics = require("sklearn.metrics", "pip install -r requirements-dev.txt")
    references, predictions = random_corpus(seed, 200, prefixes="OOOBI", types="ABCDE")
    counts = core_counts(references, predictions)
    ours = ner_counts.seqeval_scores(counts, 0.0, beta=beta)
    key = ner_core.fbeta_key(beta)
    present = [t for t in counts.types if t in ours]
    y_true, y_pred = indicator_matrices(references, predictions, present)
    for average in ("micro", "macro", "weighted"):
        theirs = metrics.fbeta_score(y_true, y_pred, beta=beta, average=average, zero_division=0)
        name = "overall" if average == "micro" else average
        assert ours[f"{name}_{key}"] == pytest.approx(theirs, abs=1e-12), average
    per_type = metrics.fbeta_score(y_true, y_pred, beta=beta, average=None, zero_division=0)
    assert [ours[t][key] for t in present] == pytest.approx(per_type.tolist(), abs=1e-12)


def rename_f(value, key):
    """``value`` with every F key (``f1``, ``overall_f1``, ...) renamed for ``key``."""
    if not isinstance(value, dict):
        return value
    return {
        (k[:-2] + key if k == "f1" or k.endswith("_f1") else k): rename_f(v, key) for k, v in value.items()
    }


def keys(value):
    return {k for k, v in value.items() for k in [k, *(keys(v) if isinstance(v, dict) else ())]}


def without_f(value, key):
    return (
        {k: without_f(v, key) for k, v in value.items() if not k.endswith(key)}
        if isinstance(value, dict)
        else value
    )


@pytest.mark.parametrize("beta", [0.5, 2])
@pytest.mark.parametrize("scores", [ner_counts.muc_scores, ner_counts.seqeval_scores])
def test_beta_renames_every_f_key_and_changes_only_f(scores, beta):
    references, predictions = random_corpus(7, 300, prefixes="OOOBIES")
    counts = core_counts(references, predictions, ("Z",))
    key = ner_core.fbeta_key(beta)
    plain, weighted = rename_f(scores(counts, 0.0), key), scores(counts, 0.0, beta=beta)
    assert keys(plain) == keys(weighted) and not any(k.endswith("f1") for k in keys(weighted))
    assert without_f(plain, key) == without_f(weighted, key)
    assert plain != weighted


# ------------------------------------------------------------------ type confusion
@pytest.mark.parametrize(
    "references, predictions, expected",
    [
        (
            *SWAP,
            {"same_span": {"PER": {"LOC": 1}}, "overlap": {"ORG": {"ORG": 1}}, "missed": {}, "spurious": {}},
        ),
        (
            [["B-PER", "O", "B-LOC"], ["B-PER"]],
            [["B-PER", "O", "O"], ["B-ORG"]],
            {"same_span": {"PER": {"ORG": 1, "PER": 1}}, "overlap": {}, "missed": {"LOC": 1}, "spurious": {}},
        ),
        (
            [["B-PER", "I-PER", "O", "O"]],
            [["B-LOC", "B-PER", "O", "B-LOC"]],  # two inside one: one matched
            {"same_span": {}, "overlap": {"PER": {"PER": 1}}, "missed": {}, "spurious": {"LOC": 2}},
        ),
        ([["O", "O"]], [["O", "O"]], {"same_span": {}, "overlap": {}, "missed": {}, "spurious": {}}),
    ],
)
def test_confusion_by_hand(references, predictions, expected):
    assert ner_counts.confusion(core_counts(references, predictions, ("Z",))) == expected


def test_confusion_adds_up_to_the_muc_counts():
    references, predictions = random_corpus(11, 800, prefixes="OOOBIES")
    counts = core_counts(references, predictions)
    table, muc = ner_counts.confusion(counts), ner_counts.muc_scores(counts)

    def total(rows, gold=None):
        return sum(n for g, row in rows.items() if gold in (None, g) for n in row.values())

    for name, row in muc["exact"]["per_type"].items():  # exact mode: same span is correct
        assert total(table["same_span"], name) == row["correct"]
        assert total(table["overlap"], name) == row["incorrect"]
        assert table["missed"].get(name, 0) == row["missed"]
        assert table["spurious"].get(name, 0) == row["spurious"]
        assert table["same_span"].get(name, {}).get(name, 0) == muc["strict"]["per_type"][name]["correct"]
    values = [n for part in ("same_span", "overlap") for row in table[part].values() for n in row.values()]
    values += list(table["missed"].values()) + list(table["spurious"].values())
    assert all(type(n) is int and n > 0 for n in values)


# ------------------------------------------------------------------ through the metric
@pytest.fixture(scope="module")
def wrapper(metric):
    """The metric script's module, as evaluate loaded it."""
    import sys

    return sys.modules[type(metric).__module__]


@pytest.mark.parametrize("beta", [0, -2, True, "2", math.nan, math.inf, None, [2]])
def test_beta_checked_with_every_option_before_any_tag_is_read(metric, wrapper, beta):
    with pytest.raises(ValueError, match=r"^beta must be a finite number > 0; got "):
        wrapper.check_options("default", {"beta": beta})
    with pytest.raises(ValueError, match=r"^beta must be a finite number > 0; got "):
        metric.compute(predictions=[["B-PER"]], references=[["B-PER", "O"]], beta=beta)  # lengths differ


def test_confusion_family_through_compute(metric):
    references, predictions = SWAP
    results = metric.compute(predictions=predictions, references=references, scores=["confusion"])
    assert (
        results.pop("decoding")["references"]["entities"] == 2
    )  # what the decoder did comes with every family
    assert_signed(results)
    assert unsigned(results) == {
        "confusion": {
            "same_span": {"PER": {"LOC": 1}},
            "overlap": {"ORG": {"ORG": 1}},
            "missed": {},
            "spurious": {},
        }
    }


def test_confusion_is_a_reserved_result_key(metric):
    with pytest.raises(
        ValueError,
        match=r"entity type 'confusion' \(the entity at references\[0\]\[0\]\) collides with a result key",
    ):
        metric.compute(predictions=[["B-confusion"]], references=[["B-confusion"]])


def test_docs_stress_table_is_bench_stress_md():
    import os
    import re

    from conftest import ROOT

    def rows(text):
        return [line for line in text.splitlines() if line.startswith("|")]

    with open(os.path.join(ROOT, "docs", "scores.md"), encoding="utf-8") as f:
        page = re.search(r"<!-- stress -->\n(.*?)<!-- /stress -->", f.read(), re.S).group(1)
    with open(os.path.join(ROOT, "bench", "stress.md"), encoding="utf-8") as f:
        written = rows(f.read())
    assert len(written) > 2 and rows(page) == written


def test_f_beta_keys_are_reserved_result_keys(metric):
    tags = [["B-overall_f2"]]
    assert metric.compute(predictions=tags, references=tags)["overall_f2"]["number"] == 1
    with pytest.raises(
        ValueError, match=r"entity type 'overall_f2' \(the entity at references\[0\]\[0\]\) collides"
    ):
        metric.compute(predictions=tags, references=tags, beta=2)
