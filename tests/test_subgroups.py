"""The "subgroups" config: stratum-weighted recall through evaluate.load, as Hub users get it."""

import csv
import re

import pytest

from conftest import METRIC_PATH, benchmark_csv

# published leaderboard row of the EstNLTK default tagger on amundsen_01
PUBLISHED = (0.5892016803782091, 0.5442531601445354, 0.6341502006118828)
FOUND = {"levinumad": (266, 350), "mitmetahenduslikud": (1, 13), "ulejaanud": (77, 172)}


@pytest.fixture(scope="module")
def metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "subgroups")


def published_sizes():
    with open(benchmark_csv("amundsen_01"), encoding="utf-8") as f:
        return {
            row["population"]: {k: int(row[k]) for k in ("occurences", "labelled", "positive")}
            for row in csv.DictReader(f)
        }


def one_token_corpus(found):
    """One sentence per sampled entity: gold B-LOC, predicted B-LOC if found, else O."""
    predictions, references, subgroups = [], [], []
    for name, (hits, n) in found.items():
        for i in range(n):
            references.append(["B-LOC"])
            predictions.append(["B-LOC" if i < hits else "O"])
            subgroups.append(name)
    return predictions, references, subgroups


def test_config_adds_the_subgroups_column(metric):
    for features in metric.features:
        assert set(features) == {"predictions", "references", "subgroups"}


def test_published_amundsen_01_row_is_reproduced(metric):
    predictions, references, subgroups = one_token_corpus(FOUND)
    result = metric.compute(
        predictions=predictions,
        references=references,
        subgroups=subgroups,
        subgroup_weights=published_sizes(),
        ci_method="weighted_wald",
    )["stratified_recall"]
    assert result["recall"] == pytest.approx(PUBLISHED[0], abs=1e-12)
    assert (result["ci_low"], result["ci_high"]) == pytest.approx(PUBLISHED[1:], abs=1e-6)
    assert (result["n"], result["correct"], result["method"], result["mode"]) == (
        535,
        344,
        "weighted_wald",
        "strict",
    )
    assert {k: (v["correct"], v["n"]) for k, v in result["strata"].items()} == FOUND


def test_streamed_batches_equal_one_compute(metric):
    predictions, references, subgroups = one_token_corpus(FOUND)
    whole = metric.compute(predictions=predictions, references=references, subgroups=subgroups)
    for start in range(0, len(predictions), 100):
        stop = start + 100
        metric.add_batch(
            predictions=predictions[start:stop],
            references=references[start:stop],
            subgroups=subgroups[start:stop],
        )
    assert metric.compute() == whole


def test_without_weights_the_estimate_is_plain_recall(metric):
    predictions, references, subgroups = one_token_corpus(FOUND)
    results = metric.compute(predictions=predictions, references=references, subgroups=subgroups)
    assert results["stratified_recall"]["recall"] == pytest.approx(
        results["muc"]["strict"]["recall"], abs=1e-12
    )
    assert results["stratified_recall"]["method"] == "wilson"


@pytest.mark.parametrize(
    "recall_mode, expected", [("strict", 0.0), ("exact", 0.0), ("partial", 0.5), ("type", 1.0)]
)
def test_recall_mode_credits_like_the_muc_mode(metric, recall_mode, expected):
    # the gold entity spans two tokens, the prediction one: a partial match of the same type
    result = metric.compute(
        predictions=[["B-LOC", "O"]],
        references=[["B-LOC", "I-LOC"]],
        subgroups=["a"],
        recall_mode=recall_mode,
    )["stratified_recall"]
    assert result["recall"] == expected and result["mode"] == recall_mode


def test_each_gold_entity_takes_its_sentence_subgroup(metric):
    result = metric.compute(
        predictions=[["B-A", "O", "B-A"], ["O"]],
        references=[["B-A", "O", "B-A"], ["B-A"]],
        subgroups=["x", "y"],
    )["stratified_recall"]
    assert {k: (v["n"], v["correct"]) for k, v in result["strata"].items()} == {"x": (2, 2), "y": (1, 0)}


def test_default_config_is_unchanged():
    import evaluate

    default = evaluate.load(METRIC_PATH)
    assert set(default.features[0]) == {"predictions", "references"}
    assert "stratified_recall" not in default.compute(predictions=[["B-A"]], references=[["B-A"]])


ERRORS = [
    (dict(subgroups=None), "inputs are missing: ['subgroups']"),  # evaluate's own check
    (dict(subgroups=[None]), "subgroups[0] is None; every sentence needs a subgroup name"),
    (dict(subgroups=[""]), "subgroups[0] is ''; every sentence needs a subgroup name"),
    (
        dict(subgroups=["a"], ci_method="bogus"),
        "ci_method must be one of ['bootstrap', 'korn_graubard', 'stratified_wald', 'weighted_wald', 'wilson']; got 'bogus'",
    ),
    (
        dict(subgroups=["a"], recall_mode="loose"),
        "recall_mode must be one of ['exact', 'partial', 'strict', 'type']; got 'loose'",
    ),
    (dict(subgroups=["a"], subgroup_weights={"b": 1.0}), "'a'"),
    (dict(subgroups=["a"], subgroup_weights={"a": -1}), "subgroup_weights['a']"),
    (dict(subgroups=["a"], confidence_level=1.5), "confidence_level"),
]


@pytest.mark.parametrize("options, message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_errors(metric, options, message):
    kwargs = dict(predictions=[["B-A"]], references=[["B-A"]])
    if options.get("subgroups", "") is None:
        options = {k: v for k, v in options.items() if k != "subgroups"}
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compute(**kwargs, **options)


def test_add_batch_without_subgroups_names_the_column(metric):
    with pytest.raises(ValueError, match="the 'subgroups' config needs a subgroups column"):
        metric.add_batch(predictions=[["B-A"]], references=[["B-A"]])


@pytest.mark.parametrize(
    "option, value",
    [
        ("ci_method", "bootstrap"),
        ("subgroup_weights", {"a": 1}),
        ("recall_mode", "partial"),
        ("n_bootstrap", 500),
    ],
)
def test_stratified_options_need_the_subgroups_config(option, value):
    import evaluate

    default = evaluate.load(METRIC_PATH)
    with pytest.raises(ValueError, match=re.escape(f"{option} needs the 'subgroups' config")):
        default.compute(predictions=[["B-A"]], references=[["B-A"]], **{option: value})


@pytest.mark.parametrize("subgroups", [5, 3.5, {"news": 1}, {"news"}])
def test_subgroups_not_a_list_is_named(metric, subgroups):
    """Not a column of names (a number, a dict, a set): a ValueError naming it, in compute and state."""
    kwargs = dict(predictions=[["B-A"]], references=[["B-A"]], subgroups=subgroups)
    message = f"subgroups is {subgroups!r}; give one subgroup name per sentence (a list)"
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compute(**kwargs)
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.state(**kwargs)
    assert (
        metric.compute(predictions=[["B-A"]], references=[["B-A"]], subgroups=["news"])["overall_f1"] == 1.0
    )
