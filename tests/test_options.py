"""Options: one checker for every config, run before any input is read."""

import re

import pytest

from conftest import METRIC_PATH

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

    signature = inspect.signature(type(metric)._compute).parameters
    declared = wrapper.CONFIG_OPTIONS["default"] | wrapper.CONFIG_OPTIONS["spans_subgroups"]
    declared |= {
        name: d for name, d in wrapper.ALL_OPTIONS.items() if name not in declared
    }  # the generated config's
    options = {
        name: p.default
        for name, p in signature.items()
        if name not in ("self", "predictions", "references", "subgroups")
    }
    assert options == {name: declared[name] for name in options} and set(options) == set(declared)
