"""Options: one checker for every config, run before any input is read."""

import os
import re

import pytest

from conftest import METRIC_PATH
from ner_recall.pipeline import options as ner_options

OK = [["B-PER", "O"]]

OPTION_ERRORS = [
    # (config, options, message)
    ("default", {"subgroup_weights": {"a": 1}}, "subgroup_weights needs the 'subgroups' config"),
    ("default", {"ci_method": "wilson2"}, "ci_method needs the 'subgroups' config"),
    ("default", {"subgroups": ["a"]}, "subgroups needs the 'subgroups' config"),
    ("default", {"modes": "strict"}, "unknown compute option 'modes'"),
    ("subgroups", {"ci_method": "wald"}, "ci_method must be one of"),
    ("subgroups", {"recall_mode": "loose"}, "recall_mode must be one of"),
    ("subgroups", {"confidence_level": 1.5}, "confidence_level must be in (0, 1); got 1.5"),
    ("subgroups", {"n_bootstrap": 0}, "n_bootstrap must be a positive int; got 0"),
    ("subgroups", {"seed": -1}, "seed must be a non-negative int or None; got -1"),
    ("default", {"scores": ["seqeval", "bogus"]}, "scores must be a subset of"),
    ("default", {"types": ["muc"]}, "entity type 'muc' (types lists 'muc') collides with a result key"),
    ("default", {"label_names": "B-PER"}, "label_names must be a list of str"),
    ("default", {"overlap_threshold": 0.5}, "overlap_threshold only applies with 'overlap' in scores"),
]


@pytest.fixture(scope="module")
def wrapper(metric):
    """The metric script's module, as evaluate loaded it."""
    import sys

    return sys.modules[type(metric).__module__]


@pytest.mark.parametrize("config, options, message", OPTION_ERRORS, ids=[m[:40] for *_, m in OPTION_ERRORS])
def test_check_options_names_the_option(wrapper, config, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        wrapper.check_options(config, options)


def test_defaults_are_valid_in_every_config(wrapper):
    for config, defaults in wrapper.CONFIG_OPTIONS.items():
        assert wrapper.check_options(config, dict(defaults)).zero_division == 0.0


def test_subgroups_rejected_by_the_default_config(metric):
    with pytest.raises(ValueError, match=re.escape("subgroups needs the 'subgroups' config")):
        metric.compute(predictions=OK, references=OK, subgroups=["a"])


def test_trainer_helper_rejects_options_of_another_config(metric):
    with pytest.raises(ValueError, match=re.escape("subgroups needs the 'subgroups' config")):
        metric.trainer_compute_metrics(["O", "B-PER"], subgroups=["a"])


def test_stratified_options_checked_before_any_tag_is_read():
    import evaluate

    stratified = evaluate.load(METRIC_PATH, "subgroups")
    # the tags are invalid too: the option error comes first
    with pytest.raises(ValueError, match=re.escape("confidence_level must be in (0, 1)")):
        stratified.compute(predictions=[["X-PER"]], references=[["O"]], subgroups=["a"], confidence_level=2)


def test_a_string_is_not_a_subgroups_column():
    import evaluate

    stratified = evaluate.load(METRIC_PATH, "subgroups")
    with pytest.raises(
        ValueError, match=re.escape("subgroups is 'ab', one string; give one subgroup name per sentence")
    ):
        stratified.add_batch(predictions=[["O"], ["O"]], references=[["O"], ["O"]], subgroups="ab")
    with pytest.raises(ValueError, match=re.escape("subgroups is 'ab', one string")):
        stratified.compute(predictions=[["O"], ["O"]], references=[["O"], ["O"]], subgroups="ab")


# the one rule: an option set to a value other than its default that would change nothing is an error
NO_EFFECT = [
    # (config, options, the option named, what it needs)
    ("default", {"confidence_level": 0.9}, "confidence_level=0.9", "ci_resamples > 0"),
    ("spans", {"confidence_level": 0.9}, "confidence_level=0.9", "ci_resamples > 0"),
    ("default", {"seed": 3}, "seed=3", "ci_resamples > 0"),
    ("default", {"seed": None}, "seed=None", "ci_resamples > 0"),
    ("subgroups", {"seed": 3}, "seed=3", "'bootstrap' ci_method"),
    ("subgroups", {"n_bootstrap": 500}, "n_bootstrap=500", "ci_method='bootstrap'"),
    ("subgroups", {"n_bootstrap": 500, "ci_method": "wilson"}, "n_bootstrap=500", "ci_method='bootstrap'"),
    ("default", {"overlap_threshold": 0.5}, "overlap_threshold", "'overlap' in scores"),
]


@pytest.mark.parametrize(
    "config, options, name, needs", NO_EFFECT, ids=[f"{c}-{n}" for c, _, n, _ in NO_EFFECT]
)
def test_an_option_that_changes_nothing_is_an_error(wrapper, config, options, name, needs):
    with pytest.raises(ValueError, match=re.escape(name) + ".*" + re.escape(needs)):
        wrapper.check_options(config, options)


EFFECT = [
    ("default", {"confidence_level": 0.9, "ci_resamples": 10}),
    ("default", {"seed": 3, "ci_resamples": 10, "document_ids": ["a"]}),
    ("subgroups", {"confidence_level": 0.9}),
    ("subgroups", {"seed": 3, "n_bootstrap": 500, "ci_method": "bootstrap"}),
    ("default", {"overlap_threshold": 0.5, "scores": ["overlap"]}),
    ("default", {"seed": 0}),  # a default value given explicitly
]


@pytest.mark.parametrize("config, options", EFFECT)
def test_an_option_with_what_it_needs_is_accepted(wrapper, config, options):
    wrapper.check_options(config, options)


def test_every_option_of_compute_is_declared_once_with_its_default(wrapper, metric):
    import inspect

    from ner_recall.pipeline.options import ALL_OPTIONS

    signature = inspect.signature(type(metric)._compute).parameters
    declared = wrapper.CONFIG_OPTIONS["default"] | wrapper.CONFIG_OPTIONS["spans_subgroups"]
    declared |= {name: d for name, d in ALL_OPTIONS.items() if name not in declared}  # the generated config's
    options = {
        name: p.default
        for name, p in signature.items()
        if name not in ("self", "predictions", "references", "subgroups") and p.kind is not p.VAR_KEYWORD
    }
    assert options == {name: declared[name] for name in options} and set(options) == set(declared)
    # the registered families' options arrive as keywords beside these
    assert [p.kind for p in signature.values()][-1] is inspect.Parameter.VAR_KEYWORD


# the same rule in every method that takes options: each refuses, naming it, an option that changes nothing
A = [["B-PER", "I-PER", "O"], ["O", "B-LOC", "O"]]
B = [["B-PER", "O", "O"], ["O", "B-LOC", "O"]]
METHOD_NO_EFFECT = [
    # (method, call, the option named, what it needs)
    ("compute", lambda m: m.compute(predictions=A, references=B, seed=3), "seed=3", "ci_resamples > 0"),
    ("agreement", lambda m: m.agreement(annotations=[A, A], seed=3), "seed=3", "ci_resamples > 0"),
    (
        "agreement",
        lambda m: m.agreement([A, B], confidence_level=0.9),
        "confidence_level=0.9",
        "ci_resamples",
    ),
    ("agreement", lambda m: m.agreement([A, B], document_ids=["a", "b"]), "document_ids=", "ci_resamples"),
    (
        "compare",
        lambda m: m.compare(
            predictions=A, predictions_b=B, references=B, ci_resamples=0, confidence_level=0.9
        ),
        "confidence_level=0.9",
        "ci_resamples > 0",
    ),
    (
        "compare",
        lambda m: m.compare(predictions=A, predictions_b=B, references=B, calibration_bins=5),
        "calibration_bins=5",
        "'ranking' in scores",
    ),
    ("state", lambda m: m.state(predictions=A, references=B, seed=3), "seed=3", "ci_resamples > 0"),
    (
        "record",
        lambda m: m.record(predictions=A, references=B, confidence_level=0.8),
        "confidence_level=0.8",
        "ci_resamples",
    ),
    ("trainer", lambda m: m.trainer_compute_metrics(["O", "B-PER"], seed=3), "seed=3", "ci_resamples > 0"),
]


@pytest.mark.parametrize(
    "method, call, name, needs", METHOD_NO_EFFECT, ids=[f"{m}-{n}" for m, _, n, _ in METHOD_NO_EFFECT]
)
def test_every_method_refuses_an_option_that_changes_nothing(metric, method, call, name, needs):
    with pytest.raises(
        ValueError, match=re.escape(name) + ".*changes nothing here: it needs .*" + re.escape(needs)
    ):
        call(metric)
    assert metric.compute(predictions=A, references=B)["overall_f1"] == 0.5  # still usable


METHOD_EFFECT = [
    lambda m: m.agreement([A, B], seed=3, ci_resamples=20, confidence_level=0.9, document_ids=["a", "b"]),
    lambda m: m.compare(
        predictions=A, predictions_b=B, references=B, ci_resamples=0, seed=3, permutations=10
    ),
    lambda m: m.compare(predictions=A, predictions_b=B, references=B, ci_resamples=20, confidence_level=0.9),
    lambda m: m.plan_benchmark({"a": (10, 8)}, {"a": 100}, budget=20, confidence_level=0.9),
]


@pytest.mark.parametrize("call", METHOD_EFFECT)
def test_every_method_accepts_an_option_with_what_it_needs(metric, call):
    call(metric)


@pytest.mark.parametrize("method", ["compute", "compare", "agreement", "state", "plan_benchmark"])
def test_the_options_of_each_method_are_those_of_the_table(metric, method):
    """Each method's own keywords carry the table's defaults; the table lists no option it lacks."""
    import inspect

    function = type(metric)._compute if method == "compute" else getattr(type(metric), method)
    inputs = {
        "self",
        "predictions",
        "predictions_b",
        "references",
        "subgroups",
        "annotations",
        "pilot",
        "population",
    }
    signature = {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if name not in inputs and p.kind is not p.VAR_KEYWORD
    }
    table = {name: o.default_of(method) for name, o in ner_options.OPTIONS.items() if method in o.methods}
    assert list(signature) == list(table) if method == "compute" else signature == table


def test_the_card_and_the_readme_list_the_options_of_the_table(metric):
    """The card's Args and the README's options table are written from the table: none drifts."""
    from conftest import ROOT

    card = metric.inputs_description
    for name in ner_options.COMPUTE_OPTIONS:
        assert ner_options.card_option(name) in card, name
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    block = re.search(r"<!-- options -->\n(.*?)\n<!-- /options -->", readme, re.S).group(1)
    assert block == ner_options.options_table()


def _with_threshold(threshold):
    return {"ranking": {"fingerprint": "f", "strict": {"best": {"threshold": threshold}}}}


@pytest.mark.parametrize("threshold", [float("nan"), 5.0, -float("inf"), True, "0.5", -0.1])
def test_threshold_from_refuses_a_threshold_that_is_no_score(threshold):
    options = {"scores": ["ranking"], "threshold_from": _with_threshold(threshold)}
    with pytest.raises(
        ValueError,
        match=re.escape(
            "threshold_from: results['ranking']['strict']['best']['threshold'] must be a number in [0, 1]; got"
        ),
    ):
        ner_options.check_options("spans", options)


@pytest.mark.parametrize("threshold", [0.0, 0.5, 1, 1.0])
def test_threshold_from_takes_a_score(threshold):
    options = {"scores": ["ranking"], "threshold_from": _with_threshold(threshold)}
    assert ner_options.check_options("spans", options).ranking["threshold_from"]["threshold"] == float(
        threshold
    )
