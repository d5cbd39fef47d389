"""Tests of ner_stratified: published numbers, hand-computed cases, properties, errors."""

import csv
import doctest
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from conftest import SHARED_BENCHMARKS, benchmark_csv
from ner_recall.stats import stratified as ner_stratified
from ner_recall.stats.stratified import CI_METHODS, stratified_recall

Z = stats.norm.ppf(0.975)

# Two strata: a has 8 of 10 found; b has 2 found and 2 half-credited of 5. Weights 1 : 3.
STRATA = {"a": (10, 8, 0), "b": (5, 2, 2)}
WEIGHTS = {"a": 1, "b": 3}
W_A, W_B, R_A, R_B = 0.25, 0.75, 0.8, 0.6
RECALL = W_A * R_A + W_B * R_B  # 0.65


def read_description(benchmark):
    """The rows of a published benchmark's description; skips where ``../shared`` is not beside the clone."""
    with open(benchmark_csv(benchmark), newline="") as f:
        return list(csv.DictReader(f))


def size_weights(rows):
    return {
        row["population"]: {key: int(row[key]) for key in ("occurences", "labelled", "positive")}
        for row in rows
    }


def wilson_bounds(p, n, z=Z):
    """Textbook Wilson score interval for proportion p at n trials."""
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return centre - half, centre + half


def default_bounds(p, n, level=0.95):
    """The default interval by hand: Wilson, with the Jeffreys bound on a side with at most 3.5
    effective items (p n hits, (1 - p) n misses) beyond it where that is wider."""
    z = stats.norm.ppf(0.5 + level / 2)
    low, high = wilson_bounds(p, n, z)
    jeffreys = stats.beta(p * n + 0.5, (1 - p) * n + 0.5)
    if 0 < p * n <= 3.5:
        low = min(low, jeffreys.ppf((1 - level) / 2))
    if 0 < (1 - p) * n <= 3.5:
        high = max(high, jeffreys.ppf((1 + level) / 2))
    return max(low, 0.0) if p > 0 else 0.0, min(high, 1.0) if p < 1 else 1.0


# ----------------------------------------------------------------------------- published numbers


def test_amundsen_01_published_recall_and_interval():
    rows = read_description("amundsen_01")
    strata = {}
    for row in rows:
        with open(Path(SHARED_BENCHMARKS, row["file"]), newline="") as f:
            found = [r["correct"] == "yes" for r in csv.DictReader(f)]
        strata[row["population"]] = (len(found), sum(found), 0)
    assert strata == {"levinumad": (350, 266, 0), "mitmetahenduslikud": (13, 1, 0), "ulejaanud": (172, 77, 0)}
    res = stratified_recall(strata, size_weights(rows), ci_method="weighted_wald")
    assert res["recall"] == pytest.approx(0.5892016803782091, abs=1e-12)
    # The publication used z = 1.96: it reproduces the interval to 1e-15; the exact quantile
    # 1.959964 would be 8e-7 off, so this tolerance pins the rounded z.
    assert res["ci_low"] == pytest.approx(0.5442531601445354, abs=1e-12)
    assert res["ci_high"] == pytest.approx(0.6341502006118828, abs=1e-12)
    assert (res["n"], res["correct"]) == (535, 344.0)


def test_amundsen_01_weights_are_the_published_relative_sizes():
    rows = read_description("amundsen_01")
    strata = {"levinumad": (350, 266, 0), "mitmetahenduslikud": (13, 1, 0), "ulejaanud": (172, 77, 0)}
    res = stratified_recall(strata, size_weights(rows))
    for row in rows:
        assert res["strata"][row["population"]]["weight"] == pytest.approx(
            float(row["relative_frequency"]), rel=1e-12
        )


# ----------------------------------------------------------------------------- hand-computed cases


def hand_weighted_wald():
    se = math.sqrt(RECALL * (1 - RECALL) * (W_A**2 / 10 + W_B**2 / 5))
    return RECALL - 1.96 * se, RECALL + 1.96 * se, se


def hand_stratified_wald():
    # item variances with divisor n - 1: a 0.8 * 0.2 * 10 / 9; b ((2 + 2 / 4) / 5 - 0.36) * 5 / 4
    se = math.sqrt(W_A**2 * 0.16 / 9 + W_B**2 * 0.14 / 4)
    return RECALL - Z * se, RECALL + Z * se, se


def hand_n_eff():
    """Per-item variances at the Wilson midpoints (z^2/2 pseudo-items of credit 1 and 0)."""
    k = Z**2 / 2
    ra = (8 + k) / (10 + 2 * k)
    va = ra * (1 - ra)
    rb = (2 + 0.5 * 2 + k) / (5 + 2 * k)
    vb = (2 + 0.25 * 2 + k) / (5 + 2 * k) - rb**2
    variance = W_A**2 * va / 10 + W_B**2 * vb / 5
    smoothed = W_A * ra + W_B * rb
    return smoothed * (1 - smoothed) / variance, variance


def hand_wilson():
    n_eff, variance = hand_n_eff()
    return (*default_bounds(RECALL, n_eff), math.sqrt(variance))


def hand_korn_graubard():
    n_eff, variance = hand_n_eff()
    x = RECALL * n_eff
    return (
        stats.beta.ppf(0.025, x, n_eff - x + 1),
        stats.beta.ppf(0.975, x + 1, n_eff - x),
        math.sqrt(variance),
    )


@pytest.mark.parametrize(
    "method, hand",
    [
        ("weighted_wald", hand_weighted_wald),
        ("stratified_wald", hand_stratified_wald),
        ("wilson", hand_wilson),
        ("korn_graubard", hand_korn_graubard),
    ],
)
def test_two_strata_by_hand(method, hand):
    res = stratified_recall(STRATA, WEIGHTS, ci_method=method)
    low, high, se = hand()
    assert res["recall"] == pytest.approx(RECALL, abs=1e-15)
    assert (res["ci_low"], res["ci_high"], res["standard_error"]) == pytest.approx((low, high, se), abs=1e-12)
    assert res["correct"] == 11.0 and res["n"] == 15


def test_wilson_with_estimated_sizes_by_hand():
    weights = {
        "a": {"occurences": 1000, "labelled": 100, "positive": 10},
        "b": {"occurences": 600, "labelled": 100, "positive": 5},
    }
    wa, wb = 100 / 130, 30 / 130  # sizes 10 * 1000 / 100 and 5 * 600 / 100
    qa, qb = 0.10, 0.05
    ga, gb = 1 - 100 / 1000, 1 - 100 / 600  # finite-population corrections 1 - labelled / occurences
    k = Z**2 / 2
    ra = (8 + k) / (10 + 2 * k)
    rb = (3 + k) / (5 + 2 * k)
    vb = (2.5 + k) / (5 + 2 * k) - rb**2
    smoothed = wa * ra + wb * rb
    variance = wa**2 / 10 * ga * (ra * (1 - ra) + (1 - qa) * (ra - smoothed) ** 2) + wb**2 / 5 * gb * (
        vb + (1 - qb) * (rb - smoothed) ** 2
    )
    recall = wa * 0.8 + wb * 0.6
    low, high = default_bounds(recall, smoothed * (1 - smoothed) / variance)
    res = stratified_recall(STRATA, weights)
    assert (res["recall"], res["ci_low"], res["ci_high"], res["standard_error"]) == pytest.approx(
        (recall, low, high, math.sqrt(variance)), abs=1e-12
    )
    # stratum a alone (no half credits): the Wilson interval at n_a / g_a
    assert (res["strata"]["a"]["ci_low"], res["strata"]["a"]["ci_high"]) == pytest.approx(
        default_bounds(0.8, 10 / ga), abs=1e-12
    )


@pytest.mark.parametrize("method", ["wilson", "korn_graubard"])
@pytest.mark.parametrize(
    "occurences, labelled, correction",
    [
        (1000, 100, 0.9),  # labelled 100 of 1000 candidates without replacement
        (10**9, 100, 1 - 1e-7),
        (100, 100, 0.0),  # every candidate labelled: a census, no sampling error
    ],
)
def test_finite_population_correction_of_one_stratum(occurences, labelled, correction, method):
    weights = {"only": {"occurences": occurences, "labelled": labelled, "positive": 10}}
    res = stratified_recall({"only": (10, 8, 0)}, weights, ci_method=method)
    if correction == 0:
        assert (res["ci_low"], res["ci_high"], res["standard_error"]) == (0.8, 0.8, 0.0)
    else:
        n_eff = 10 / correction
        expected = (
            default_bounds(0.8, n_eff)
            if method == "wilson"
            else (
                stats.beta.ppf(0.025, 8 / correction, n_eff - 8 / correction + 1),
                stats.beta.ppf(0.975, 8 / correction + 1, n_eff - 8 / correction),
            )
        )
        assert (res["ci_low"], res["ci_high"]) == pytest.approx(expected, abs=1e-12)
    alone = res["strata"]["only"]
    assert (alone["ci_low"], alone["ci_high"]) == pytest.approx((res["ci_low"], res["ci_high"]), abs=1e-15)


def test_labelled_above_occurences_gets_no_correction():
    inconsistent = {"occurences": 50, "labelled": 100, "positive": 10}
    with pytest.warns(UserWarning, match="without a finite-population correction"):
        res = stratified_recall({"only": (10, 8, 0)}, {"only": inconsistent})
    assert (res["ci_low"], res["ci_high"]) == pytest.approx(default_bounds(0.8, 10), abs=1e-12)


def test_census_of_every_stratum_is_the_point_estimate():
    census = {
        "a": {"occurences": 40, "labelled": 40, "positive": 10},
        "b": {"occurences": 30, "labelled": 30, "positive": 5},
    }
    res = stratified_recall(STRATA, census)
    assert res["ci_low"] == res["recall"] == res["ci_high"] and res["standard_error"] == 0.0


def test_bootstrap_standard_error_matches_the_sampling_variance():
    # Unbiased item variances (divisor n - 1): a 0.8 * 0.2 * 10 / 9; b ((2 + 2 / 4) / 5 - 0.36) * 5 / 4.
    se = math.sqrt(W_A**2 * 0.16 / 9 + W_B**2 * 0.14 / 4)
    res = stratified_recall(STRATA, WEIGHTS, ci_method="bootstrap", n_bootstrap=20_000)
    assert res["standard_error"] == pytest.approx(se, rel=0.03)
    # percentiles of 4 draws in stratum b: a coarse lattice, so only near the normal interval
    assert res["ci_low"] == pytest.approx(RECALL - Z * se, abs=0.04)
    assert res["ci_high"] == pytest.approx(RECALL + Z * se, abs=0.04)


def test_bootstrap_resamples_estimated_sizes_too():
    strata = {"a": (400, 360, 0), "b": (300, 60, 0)}
    weights = {
        "a": {"occurences": 2000, "labelled": 1000, "positive": 400},
        "b": {"occurences": 4000, "labelled": 1000, "positive": 300},
    }
    wa, wb, ra, rb = 800 / 2000, 1200 / 2000, 0.9, 0.2
    recall = wa * ra + wb * rb
    ga, gb = 1 - 1000 / 2000, 1 - 1000 / 4000  # finite-population corrections
    sampling = ga * wa**2 * ra * (1 - ra) / 399 + gb * wb**2 * rb * (1 - rb) / 299
    sizes = ga * wa**2 / 400 * 0.6 * (ra - recall) ** 2 + gb * wb**2 / 300 * 0.7 * (rb - recall) ** 2
    res = stratified_recall(strata, weights, ci_method="bootstrap", n_bootstrap=20_000)
    assert res["standard_error"] == pytest.approx(math.sqrt(sampling + sizes), rel=0.03)
    assert sizes > 0.4 * sampling  # the size term is not negligible here


@pytest.mark.parametrize("n, correct", [(10, 8), (1, 0), (1, 1), (30, 0), (30, 30), (7, 3)])
def test_wilson_of_one_stratum_is_the_textbook_wilson(n, correct):
    res = stratified_recall({"only": (n, correct, 0)})
    low, high = default_bounds(correct / n, n)
    assert (res["ci_low"], res["ci_high"]) == pytest.approx((max(low, 0), min(high, 1)), abs=1e-12)
    assert (res["strata"]["only"]["ci_low"], res["strata"]["only"]["ci_high"]) == pytest.approx(
        (res["ci_low"], res["ci_high"]), abs=1e-15
    )


def test_korn_graubard_of_one_stratum_is_clopper_pearson():
    res = stratified_recall({"only": (10, 8, 0)}, ci_method="korn_graubard")
    assert (res["ci_low"], res["ci_high"]) == pytest.approx(
        (stats.beta.ppf(0.025, 8, 3), stats.beta.ppf(0.975, 9, 2)), abs=1e-12
    )


def test_per_stratum_intervals_are_the_strata_alone():
    strata = {"a": (10, 8, 0), "b": (40, 10, 0)}
    res = stratified_recall(strata, {"a": 5, "b": 1})
    for name, (n, correct, _) in strata.items():
        low, high = default_bounds(correct / n, n)
        assert (res["strata"][name]["ci_low"], res["strata"][name]["ci_high"]) == pytest.approx(
            (low, high), abs=1e-12
        )


# ----------------------------------------------------------------------------- properties

CASES = [
    ({"a": (10, 8, 0), "b": (5, 2, 2)}, {"a": 1, "b": 3}),
    ({"x": (1, 0, 0)}, None),
    ({"x": (1, 1, 0)}, None),
    ({"a": (50, 50, 0), "b": (3, 0, 0)}, {"a": 0.2, "b": 0.8}),
    ({"a": (200, 37, 11), "b": (40, 40, 0), "c": (7, 0, 7)}, None),
    ({"a": (400, 7, 0), "b": (300, 1, 0)}, {"a": 2, "b": 1}),
]


@pytest.mark.parametrize("method", CI_METHODS)
@pytest.mark.parametrize("strata, weights", CASES)
def test_interval_contains_estimate_within_unit_interval(strata, weights, method):
    res = stratified_recall(strata, weights, ci_method=method)
    assert 0 <= res["ci_low"] <= res["recall"] <= res["ci_high"] <= 1
    assert math.isfinite(res["standard_error"]) and res["standard_error"] >= 0
    for row in res["strata"].values():
        assert 0 <= row["ci_low"] <= row["recall"] <= row["ci_high"] <= 1


@pytest.mark.parametrize("method", CI_METHODS)
def test_all_correct(method):
    res = stratified_recall({"a": (20, 20, 0), "b": (5, 5, 0)}, {"a": 1, "b": 2}, ci_method=method)
    assert res["recall"] == 1.0 and res["ci_high"] == 1.0
    if method in ("wilson", "korn_graubard"):
        assert 0.5 < res["ci_low"] < 1.0
    else:  # Wald and percentile intervals collapse to a point: documented
        assert res["ci_low"] == 1.0


@pytest.mark.parametrize("method", ["wilson", "korn_graubard"])
def test_none_correct_still_has_an_upper_bound(method):
    res = stratified_recall({"a": (20, 0, 0), "b": (5, 0, 0)}, {"a": 1, "b": 2}, ci_method=method)
    assert res["recall"] == 0.0 == res["ci_low"]
    assert 0.0 < res["ci_high"] < 0.5


@pytest.mark.parametrize("strata", [{"x": (20, 13, 4)}, {"a": (10, 8, 0), "b": (30, 11, 5), "c": (1, 0, 1)}])
def test_weights_none_is_plain_recall(strata):
    res = stratified_recall(strata)
    total = sum(n for n, _, _ in strata.values())
    credit = sum(full + 0.5 * half for _, full, half in strata.values())
    assert res["recall"] == pytest.approx(credit / total, abs=1e-15)
    assert (res["n"], res["correct"]) == (total, credit)


def summary(res):
    return [res["recall"], res["ci_low"], res["ci_high"], res["standard_error"]] + [
        v for row in res["strata"].values() for v in (row["weight"], row["ci_low"], row["ci_high"])
    ]


@pytest.mark.parametrize("method", CI_METHODS)
def test_weights_are_scale_free(method):
    scaled = {name: 7 * w for name, w in WEIGHTS.items()}
    assert summary(stratified_recall(STRATA, scaled, ci_method=method)) == pytest.approx(
        summary(stratified_recall(STRATA, WEIGHTS, ci_method=method)), rel=1e-9
    )


def test_estimated_sizes_scale_free_in_occurences_but_the_correction():
    rows = size_weights(read_description("amundsen_01"))
    scaled = {name: dict(row, occurences=7 * row["occurences"]) for name, row in rows.items()}
    strata = {"levinumad": (350, 266, 0), "mitmetahenduslikud": (13, 1, 0), "ulejaanud": (172, 77, 0)}
    res, more = stratified_recall(strata, rows), stratified_recall(strata, scaled)
    assert more["recall"] == pytest.approx(res["recall"], rel=1e-12)
    assert [row["weight"] for row in more["strata"].values()] == pytest.approx(
        [row["weight"] for row in res["strata"].values()], rel=1e-12
    )
    # a smaller sampling fraction labelled / occurences: a smaller correction, a wider interval
    assert more["ci_low"] < res["ci_low"] < res["ci_high"] < more["ci_high"]


@pytest.mark.parametrize("method", CI_METHODS)
def test_weights_none_equals_weights_proportional_to_n(method):
    proportional = {name: counts[0] for name, counts in STRATA.items()}
    assert summary(stratified_recall(STRATA, ci_method=method)) == pytest.approx(
        summary(stratified_recall(STRATA, proportional, ci_method=method)), rel=1e-12
    )


def test_bootstrap_reproducible_with_seed():
    first = stratified_recall(STRATA, WEIGHTS, ci_method="bootstrap", seed=3)
    assert stratified_recall(STRATA, WEIGHTS, ci_method="bootstrap", seed=3) == first
    other = stratified_recall(STRATA, WEIGHTS, ci_method="bootstrap", seed=4)
    assert summary(other) != summary(first)


def test_strata_sorted_and_plain_python_numbers():
    res = stratified_recall({"b": (5, 2, 2), "a": (10, 8, 0)}, {"b": 3, "a": 1})
    assert list(res["strata"]) == ["a", "b"]
    assert set(res) == {
        "recall",
        "ci_low",
        "ci_high",
        "standard_error",
        "confidence_level",
        "method",
        "n",
        "correct",
        "strata",
    }
    assert all(
        type(res[k]) is float
        for k in ("recall", "ci_low", "ci_high", "standard_error", "confidence_level", "correct")
    )
    assert type(res["n"]) is int and res["method"] == "wilson"
    for row in res["strata"].values():
        assert set(row) == {"n", "correct", "recall", "weight", "ci_low", "ci_high"}
        assert type(row["n"]) is int
        assert all(type(row[k]) is float for k in ("correct", "recall", "weight", "ci_low", "ci_high"))


def test_numpy_integer_counts_are_accepted():
    res = stratified_recall({"a": tuple(np.int64(v) for v in (10, 8, 0))}, {"a": np.float64(2.0)})
    assert res["recall"] == 0.8 and type(res["n"]) is int


def test_higher_confidence_gives_wider_interval():
    narrow = stratified_recall(STRATA, WEIGHTS, confidence_level=0.8)
    wide = stratified_recall(STRATA, WEIGHTS, confidence_level=0.99)
    assert wide["ci_low"] < narrow["ci_low"] < narrow["ci_high"] < wide["ci_high"]
    assert wide["confidence_level"] == 0.99


def test_empty_stratum_is_ignored_without_weights():
    res = stratified_recall({"a": (10, 8, 0), "empty": (0, 0, 0)})
    assert list(res["strata"]) == ["a"] and res["recall"] == 0.8


@pytest.mark.parametrize("method", ["weighted_wald", "stratified_wald", "wilson", "korn_graubard"])
def test_vectorised_core_equals_one_call_per_replicate(method):
    n = np.array([[10, 5], [20, 7], [3, 9]])
    full = np.array([[8, 2], [11, 7], [0, 4]])
    half = np.array([[0, 2], [3, 0], [1, 2]])
    sizes = np.array([1.0, 3.0])
    recall, low, high, se = ner_stratified.stratified_recall_arrays(n, full, half, sizes, ci_method=method)
    for i in range(3):
        res = stratified_recall(
            {
                "a": tuple(int(v) for v in (n[i, 0], full[i, 0], half[i, 0])),
                "b": tuple(int(v) for v in (n[i, 1], full[i, 1], half[i, 1])),
            },
            {"a": 1, "b": 3},
            ci_method=method,
        )
        assert [res["recall"], res["ci_low"], res["ci_high"], res["standard_error"]] == pytest.approx(
            [recall[i], low[i], high[i], se[i]], abs=1e-14
        )


@pytest.mark.parametrize("method", ["wilson", "bootstrap"])
def test_million_entities_in_100_strata(method):
    """Large inputs work (their timing is in bench/speed.py, not in a test)."""
    rng = np.random.default_rng(1)
    n = rng.multinomial(1_000_000, np.full(100, 0.01))
    full = rng.binomial(n, 0.6)
    half = rng.binomial(n - full, 0.3)
    strata = {f"s{i:03d}": (int(a), int(b), int(c)) for i, (a, b, c) in enumerate(zip(n, full, half))}
    weights = {name: float(i + 1) for i, name in enumerate(strata)}
    res = stratified_recall(strata, weights, ci_method=method)
    assert res["ci_low"] < res["recall"] < res["ci_high"]
    assert res["n"] == 1_000_000 and len(res["strata"]) == 100


def test_doctests_pass():
    failed, attempted = doctest.testmod(ner_stratified)
    assert attempted > 0 and failed == 0


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "strata, weights, message",
    [
        (
            {"X": (3, 1, 0), "a": (2, 1, 0)},
            {"a": 1},
            "subgroup 'X' occurs in the data but has no entry in subgroup_weights",
        ),
        (
            {"a": (2, 1, 0)},
            {"a": 1, "Y": 2},
            "subgroup 'Y' in subgroup_weights has no gold entity in the data",
        ),
        (
            {"a": (2, 1, 0), "Y": (0, 0, 0)},
            {"a": 1, "Y": 2},
            "subgroup 'Y' in subgroup_weights has no gold entity in the data",
        ),
        ({"Z": (2, 1, 0)}, {"Z": -1}, "subgroup_weights['Z'] must be a positive finite number; got -1"),
        ({"Z": (2, 1, 0)}, {"Z": 0}, "subgroup_weights['Z'] must be a positive finite number; got 0"),
        (
            {"Z": (2, 1, 0)},
            {"Z": float("nan")},
            "subgroup_weights['Z'] must be a positive finite number; got nan",
        ),
        (
            {"Z": (2, 1, 0)},
            {"Z": float("inf")},
            "subgroup_weights['Z'] must be a positive finite number; got inf",
        ),
        ({"Z": (2, 1, 0)}, {"Z": "2"}, "subgroup_weights['Z'] must be a positive finite number; got '2'"),
        ({"Z": (2, 1, 0)}, {"Z": True}, "subgroup_weights['Z'] must be a positive finite number; got True"),
        (
            {"I": (9, 1, 0)},
            {"I": {"occurences": 50, "labelled": 5, "positive": 9}},
            "subgroup_weights['I']: labelled (5) < positive (9)",
        ),
        (
            {"I": (9, 1, 0)},
            {"I": {"occurences": 50, "labelled": 20, "positive": 0}},
            "subgroup_weights['I']: positive must be a positive int; got 0",
        ),
        (
            {"I": (9, 1, 0)},
            {"I": {"occurrences": 50, "labelled": 20, "positive": 9}},
            "subgroup_weights['I'] must have exactly the keys ['occurences', 'labelled', 'positive']",
        ),
        (
            {"a": (2, 1, 0), "b": (2, 1, 0)},
            {"a": 1, "b": {"occurences": 5, "labelled": 2, "positive": 2}},
            "subgroup_weights mixes numbers and",
        ),
        ({"a": (2, 1, 0)}, [("a", 1)], "subgroup_weights must be None or a mapping; got list"),
        ({"a": (2, 1, 0)}, {1: 1, "a": 1}, "subgroup names must be str; got 1 in subgroup_weights"),
        ({1: (2, 1, 0)}, None, "subgroup names must be str; got 1 in strata"),
        ({}, None, "no gold entity at all"),
        ({"a": (0, 0, 0)}, None, "no gold entity at all"),
        ({"a": (3, 2, 2)}, None, "strata['a'] = (3, 2, 2) needs 0 <= full, half and full + half <= n"),
        ({"a": (3, -1, 0)}, None, "strata['a'] = (3, -1, 0) needs 0 <= full, half"),
        ({"a": (3, 1)}, None, "strata['a'] must be a tuple of 3 ints (n, full, half); got (3, 1)"),
        ({"a": (3.0, 1, 0)}, None, "strata['a'] must be a tuple of 3 ints"),
        ([("a", (3, 1, 0))], None, "strata must be a mapping {name: (n, full, half)}; got list"),
    ],
)
def test_bad_input_raises(strata, weights, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        stratified_recall(strata, weights)


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"ci_method": "bogus"},
            "ci_method must be one of ['bootstrap', 'korn_graubard', 'stratified_wald', "
            "'weighted_wald', 'wilson']; got 'bogus'",
        ),
        ({"confidence_level": 0}, "confidence_level must be in (0, 1); got 0"),
        ({"confidence_level": 1}, "confidence_level must be in (0, 1); got 1"),
        ({"confidence_level": 95}, "confidence_level must be in (0, 1); got 95"),
        ({"confidence_level": float("nan")}, "confidence_level must be in (0, 1); got nan"),
        ({"n_bootstrap": 0}, "n_bootstrap must be a positive int; got 0"),
        ({"n_bootstrap": 10.5}, "n_bootstrap must be a positive int; got 10.5"),
        ({"n_bootstrap": True}, "n_bootstrap must be a positive int; got True"),
        ({"seed": -1}, "seed must be a non-negative int or None; got -1"),
        ({"seed": "0"}, "seed must be a non-negative int or None; got '0'"),
    ],
)
def test_bad_option_raises(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        stratified_recall(STRATA, WEIGHTS, **options)


def test_labelled_above_occurences_warns_and_names_the_subgroup():
    weights = size_weights(read_description("amundsen_02"))
    # Synthetic counts (the published per-population counts are not released): half found.
    strata = {name: (row["positive"], row["positive"] // 2, 0) for name, row in weights.items()}
    with pytest.warns(UserWarning) as caught:
        res = stratified_recall(strata, weights)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "subgroup_weights['I']: labelled (1000) > occurences (314); the size estimate "
        "positive * occurences / labelled is used as given, without a finite-population "
        "correction"
    ]
    assert res["n"] == 1685


# ----------------------------------------------------------------------------- options checked before data


@pytest.mark.parametrize(
    "weights, message",
    [
        ({"a": None, "b": 1}, "subgroup_weights['a'] must be a positive finite number; got None"),
        ({"a": None, "b": None}, "subgroup_weights['a'] must be a positive finite number; got None"),
        ({"a": 1, "b": -2.5}, "subgroup_weights['b'] must be a positive finite number; got -2.5"),
        ({"a": float("nan")}, "subgroup_weights['a'] must be a positive finite number; got nan"),
        ({"a": float("-inf")}, "subgroup_weights['a'] must be a positive finite number; got -inf"),
        ({"a": -(10**400)}, "subgroup_weights['a'] must be a positive finite number; got -1000"),
        ({"a": np.array([1.0])}, "subgroup_weights['a'] must be a positive finite number; got array([1.])"),
        ({"a": 1 + 2j}, "subgroup_weights['a'] must be a positive finite number; got (1+2j)"),
        (
            {"a": {"occurences": 10, "labelled": 5, "positive": None}},
            "subgroup_weights['a']: positive must be a positive int; got None",
        ),
        (
            {"a": {"occurences": 2**63, "labelled": 5, "positive": 3}},
            "subgroup_weights['a']: occurences must be below 2**63; got 9223372036854775808",
        ),
        (
            {"a": {"occurences": 10, "labelled": 5.0, "positive": 3}},
            "subgroup_weights['a']: labelled must be a positive int; got 5.0",
        ),
        (
            {"a": {"occurences": 10, "labelled": 2, "positive": 3}},
            "subgroup_weights['a']: labelled (2) < positive (3)",
        ),
        ({"a": {"occurences": 10, "labelled": 5}}, "subgroup_weights['a'] must have exactly the keys"),
        ({"a": 1, "b": {"occurences": 10, "labelled": 5, "positive": 3}}, "subgroup_weights mixes numbers"),
        ({("a",): 1}, "subgroup names must be str; got ('a',) in subgroup_weights"),
        ("ab", "subgroup_weights must be None or a mapping; got str"),
    ],
)
def test_check_stratified_options_names_the_weight(weights, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_stratified.check_stratified_options(weights, "wilson", 0.95, 10_000, 0)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"ci_method": ["wilson"]}, "ci_method must be one of"),
        ({"confidence_level": np.array([0.95])}, "confidence_level must be in (0, 1); got array([0.95])"),
        ({"confidence_level": 0.95 + 0j}, "confidence_level must be in (0, 1)"),
        ({"n_bootstrap": 1e8}, "n_bootstrap must be a positive int; got 100000000.0"),
        ({"n_bootstrap": 2**63}, "n_bootstrap must be a positive int; got 9223372036854775808"),
        ({"seed": 1.5}, "seed must be a non-negative int or None; got 1.5"),
    ],
)
def test_check_stratified_options_names_the_option(options, message):
    given = dict(subgroup_weights=None, ci_method="wilson", confidence_level=0.95, n_bootstrap=10_000, seed=0)
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_stratified.check_stratified_options(**{**given, **options})


@pytest.mark.parametrize(
    "weights",
    [
        None,
        {"a": 1, "b": 2.5},
        {"a": 10**400, "b": np.float32(3)},
        {"a": {"occurences": 10, "labelled": 5, "positive": 3}},
    ],
)
def test_check_stratified_options_accepts_valid_weights(weights):
    assert ner_stratified.check_stratified_options(weights, "bootstrap", 0.9, 1, None) is None


# ----------------------------------------------------------------------------- magnitudes, range and order


@pytest.mark.parametrize(
    "weights",
    [{"a": 1e308, "b": 1e308}, {"a": 10**400, "b": 10**400}, {"a": 5e-324, "b": 5e-324}, {"a": 1, "b": 1.0}],
)
def test_equal_weights_of_any_magnitude(weights):
    res = stratified_recall({"a": (4, 4, 0), "b": (4, 2, 0)}, weights)
    assert res["recall"] == 0.75
    assert [row["weight"] for row in res["strata"].values()] == [0.5, 0.5]


def test_weights_far_apart_are_exact_shares():
    res = stratified_recall({"a": (4, 4, 0), "b": (4, 2, 0)}, {"a": 10**400, "b": 3 * 10**400})
    assert res["recall"] == 0.625 and res["strata"]["a"]["weight"] == 0.25
    tiny = stratified_recall({"a": (4, 4, 0), "b": (4, 2, 0)}, {"a": 1, "b": 10**400})
    assert tiny["recall"] == 0.5 and tiny["strata"]["a"]["weight"] == 0.0  # 1e-400 is below float range


@pytest.mark.parametrize("method", CI_METHODS)
def test_interval_always_ordered_in_unit_interval(method):
    """Random weightings, including recalls at 0 and 1 and weights that round badly."""
    rng = np.random.default_rng(7)
    for _ in range(60 if method == "bootstrap" else 600):
        k = int(rng.integers(1, 6))
        n = rng.integers(1, 30, k)
        full = rng.binomial(n, rng.choice([0.0, 0.3, 0.97, 1.0], k))
        half = rng.binomial(n - full, 0.2 * rng.integers(0, 2))
        strata = {f"s{i}": (int(a), int(b), int(c)) for i, (a, b, c) in enumerate(zip(n, full, half))}
        weights = {name: float(w) for name, w in zip(strata, rng.choice([1e-300, 0.1, 1 / 3, 7, 1e300], k))}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stratified_recall(
                strata,
                weights,
                ci_method=method,
                confidence_level=float(rng.uniform(0.5, 0.999)),
                n_bootstrap=200,
            )
        assert 0 <= res["ci_low"] <= res["recall"] <= res["ci_high"] <= 1, (strata, weights)
        for row in res["strata"].values():
            assert 0 <= row["ci_low"] <= row["recall"] <= row["ci_high"] <= 1


@pytest.mark.parametrize("method", CI_METHODS)
def test_order_of_strata_changes_nothing(method):
    strata = {"x": (13, 5, 2), "a": (40, 31, 0), "m": (7, 7, 0), "b": (90, 12, 30)}
    weights = {"x": 0.1, "a": 1 / 3, "m": 2.0, "b": 0.7}
    first = stratified_recall(strata, weights, ci_method=method, n_bootstrap=500)
    for order in ([3, 1, 0, 2], [2, 0, 3, 1]):
        names = [list(strata)[i] for i in order]
        again = stratified_recall(
            {k: strata[k] for k in names},
            {k: weights[k] for k in reversed(names)},
            ci_method=method,
            n_bootstrap=500,
        )
        assert again == first


def test_strata_counts_independent_of_sentence_order():
    rng = np.random.default_rng(3)
    subgroups = [f"g{i}" for i in rng.integers(0, 5, 200)]
    sentence = rng.integers(0, 200, 1000)
    outcome = rng.integers(0, 4, 1000)
    counts = ner_stratified.strata_counts(subgroups, sentence, outcome)
    perm = rng.permutation(200)  # sentence i moves to position where[i]
    where = np.argsort(perm)
    shuffled = ner_stratified.strata_counts([subgroups[i] for i in perm], where[sentence], outcome)
    assert shuffled == counts
    entities = rng.permutation(1000)
    assert ner_stratified.strata_counts(subgroups, sentence[entities], outcome[entities]) == counts
    assert sum(n for n, _, _ in counts.values()) == 1000
    assert sum(full for _, full, _ in counts.values()) == int((outcome == 0).sum())


@pytest.mark.parametrize(
    "subgroups, sentence, outcome, expected",
    [
        (["a"], [], [], {"a": (0, 0, 0)}),
        (["b", "a"], [0, 1, 1], [3, 2, 0], {"a": (2, 1, 1), "b": (1, 0, 0)}),
        (["a", "a"], np.array([0, 1]), np.array([1, 1], dtype=np.int8), {"a": (2, 0, 0)}),
    ],
)
def test_strata_counts_table(subgroups, sentence, outcome, expected):
    assert ner_stratified.strata_counts(subgroups, sentence, outcome) == expected


@pytest.mark.parametrize(
    "sentence, outcome, message",
    [
        ([0, 2], [0, 0], "entity_sentence[1] is 2; expected an int in [0, 2)"),
        ([0, -1], [0, 0], "entity_sentence[1] is -1"),
        ([0, 1], [0, 4], "entity_outcome[1] is 4; expected an int in [0, 4)"),
        ([0, 1], [0], "entity_sentence has 2 entries but entity_outcome has 1"),
        ([0.0], [0], "entity_sentence must be a 1-d sequence of ints; got list"),
    ],
)
def test_strata_counts_errors(sentence, outcome, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_stratified.strata_counts(["a", "b"], sentence, outcome)


@pytest.mark.parametrize("subgroups", [["a", 1], ["a", None], ["a", ["b"]]])
def test_strata_counts_names_a_subgroup_that_is_no_str(subgroups):
    with pytest.raises(ValueError, match=re.escape(f"subgroups[1] is {subgroups[1]!r}")):
        ner_stratified.strata_counts(subgroups, [0], [0])


def test_strata_counts_feed_stratified_recall():
    strata = ner_stratified.strata_counts(["a", "b", "a"], [0, 0, 1, 2, 2], [0, 2, 3, 0, 1])
    res = stratified_recall(strata)
    assert res["recall"] == (1 + 0.5 + 1) / 5 and res["strata"]["b"]["n"] == 1


# ----------------------------------------------------------------------------- levels and methods


@pytest.mark.parametrize("method", ["wilson", "korn_graubard", "weighted_wald", "stratified_wald"])
@pytest.mark.parametrize("strata, weights", CASES)
def test_standard_error_does_not_depend_on_the_level(strata, weights, method):
    errors = {
        stratified_recall(strata, weights, ci_method=method, confidence_level=level)["standard_error"]
        for level in (0.5, 0.8, 0.9, 0.95, 0.99)
    }
    assert len(errors) == 1


@pytest.mark.parametrize("level", [0.8, 0.9, 0.99])
def test_weighted_wald_uses_the_exact_quantile_away_from_95(level):
    low, high, se = hand_weighted_wald()
    z = stats.norm.ppf(0.5 + level / 2)
    res = stratified_recall(STRATA, WEIGHTS, ci_method="weighted_wald", confidence_level=level)
    assert (res["ci_low"], res["ci_high"]) == pytest.approx(
        (RECALL - z * se, min(RECALL + z * se, 1)), abs=1e-14
    )


def test_weighted_wald_at_95_uses_1_96():
    low, high, _ = hand_weighted_wald()
    res = stratified_recall(STRATA, WEIGHTS, ci_method="weighted_wald")
    assert (res["ci_low"], res["ci_high"]) == pytest.approx((low, high), abs=1e-15)


def test_stratified_wald_with_estimated_sizes_by_hand():
    weights = {
        "a": {"occurences": 1000, "labelled": 100, "positive": 10},
        "b": {"occurences": 600, "labelled": 100, "positive": 5},
    }
    wa, wb, ga, gb = 100 / 130, 30 / 130, 0.9, 1 - 100 / 600
    recall = wa * 0.8 + wb * 0.6
    variance = wa**2 / 10 * ga * (0.16 * 10 / 9 + 0.9 * (0.8 - recall) ** 2) + wb**2 / 5 * gb * (
        0.14 * 5 / 4 + 0.95 * (0.6 - recall) ** 2
    )
    res = stratified_recall(STRATA, weights, ci_method="stratified_wald")
    assert res["standard_error"] == pytest.approx(math.sqrt(variance), abs=1e-15)
    assert (res["ci_low"], res["ci_high"]) == pytest.approx(
        (recall - Z * math.sqrt(variance), recall + Z * math.sqrt(variance)), abs=1e-12
    )


@pytest.mark.parametrize("n, found, level", [(200, 197, 0.95), (100, 2, 0.95), (50, 48, 0.9), (30, 1, 0.99)])
def test_default_takes_jeffreys_near_the_boundary(n, found, level):
    res = stratified_recall({"only": (n, found, 0)}, confidence_level=level)
    assert (res["ci_low"], res["ci_high"]) == pytest.approx(default_bounds(found / n, n, level), abs=1e-12)
    low, high = wilson_bounds(found / n, n, stats.norm.ppf(0.5 + level / 2))
    assert res["ci_high"] - res["ci_low"] > high - low  # wider than Wilson alone


def exact_coverage(n, recall, level):
    found = np.arange(n + 1)
    prob = stats.binom.pmf(found, n, recall)
    _, low, high, _ = ner_stratified.stratified_recall_arrays(
        np.full((n + 1, 1), n), found[:, None], 0, 1, confidence_level=level
    )
    return float(prob[(low <= recall) & (recall <= high)].sum())


@pytest.mark.parametrize(
    "n, recall, level, floor",
    [
        (200, 0.995, 0.95, 0.925),
        (200, 0.005, 0.95, 0.925),
        (100, 0.99, 0.95, 0.925),
        (200, 0.995, 0.9, 0.875),
    ],
)
def test_default_covers_near_the_boundary_exactly(n, recall, level, floor):
    assert exact_coverage(n, recall, level) >= floor


# ----------------------------------------------------------------------------- bootstrap


def test_bootstrap_warns_about_strata_at_recall_0_or_1():
    with pytest.warns(UserWarning, match=re.escape("bootstrap: 2 stratum(s) (first 'a') have recall 0 or 1")):
        stratified_recall(
            {"a": (10, 10, 0), "b": (10, 4, 0), "c": (5, 0, 0)}, ci_method="bootstrap", n_bootstrap=100
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stratified_recall({"b": (10, 4, 0)}, ci_method="bootstrap", n_bootstrap=100)
        stratified_recall({"a": (10, 10, 0)}, ci_method="wilson")


@pytest.mark.parametrize("cells", [4, 40, 400])
def test_order_statistics_exact_in_chunks(monkeypatch, cells):
    """The chunked selection equals numpy's quantiles, ties and all, whatever the budget."""
    monkeypatch.setattr(ner_stratified, "SELECT_CELLS", cells)
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random((3, 700)), np.round(rng.random((2, 700)), 1), np.zeros((1, 700))])
    values[0, :5] = 1.0
    chunks = [values[:, i : i + 64] for i in range(0, 700, 64)]
    probs = (0.025, 0.975, 0.5)
    quantiles, sd = ner_stratified._select(chunks.__getitem__, len(chunks), 6, 700, probs)
    assert quantiles == pytest.approx(np.quantile(values, probs, axis=1).T, abs=1e-15)
    assert sd == pytest.approx(values.std(axis=1, ddof=1), rel=1e-12)


def test_bootstrap_in_many_chunks(monkeypatch):
    """A small chunk budget (memory independent of n_bootstrap) gives the same kind of interval."""
    strata, weights = {"a": (400, 360, 0), "b": (300, 60, 10)}, {"a": 2, "b": 3}
    whole = stratified_recall(strata, weights, ci_method="bootstrap", n_bootstrap=4000)
    monkeypatch.setattr(ner_stratified, "BOOTSTRAP_CELLS", 50)
    monkeypatch.setattr(ner_stratified, "SELECT_CELLS", 64)
    chunked = stratified_recall(strata, weights, ci_method="bootstrap", n_bootstrap=4000)
    assert chunked != whole  # other random numbers
    for key in ("ci_low", "ci_high", "standard_error"):
        assert chunked[key] == pytest.approx(whole[key], rel=0.05)
    for name in strata:
        assert chunked["strata"][name]["ci_low"] == pytest.approx(whole["strata"][name]["ci_low"], rel=0.05)


# ----------------------------------------------------------------------------- docs page

ROOT = Path(__file__).resolve().parents[1]


def docs_block(name):
    text = (ROOT / "docs" / "stratified-recall.md").read_text()
    start = text.index(f"<!-- {name} -->\n") + len(f"<!-- {name} -->\n")
    return text[start : text.index(f"<!-- /{name} -->")]


def bench_tables():
    """The tables of bench/ci_coverage.md, each as its list of lines."""
    tables, current = [], []
    for line in (ROOT / "bench" / "ci_coverage.md").read_text().splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables, current = tables + [current], []
    return tables


@pytest.mark.parametrize("name, table", [("ci-coverage", 0), ("ci-coverage-90", 1)])
def test_docs_coverage_tables_are_the_bench_output(name, table):
    rows = [line for line in docs_block(name).splitlines() if line.startswith("|")]
    assert rows == bench_tables()[table] and len(rows) > 30


def test_docs_misses_are_the_rows_off_goal():
    off_goal = [
        (level, line.split(" | ")[0][2:])
        for level, table in zip((95, 90), bench_tables()[:2])
        for line in table[2:]
        if not line.endswith("| met |")
    ]
    listed = [line for line in docs_block("ci-misses").splitlines() if line.startswith("- ")]
    assert len(listed) == max(len(off_goal), 1)
    for (level, name), entry in zip(off_goal, listed):
        assert entry.startswith(f"- {level}%, {name} (")


def test_docs_example_of_a_stratum_at_recall_1():
    res = stratified_recall({"a": (30, 30, 0)})
    assert (round(res["ci_low"], 2), res["ci_high"]) == (0.89, 1.0)  # "30 of 30 found: about [0.89, 1]"


def test_bootstrap_stratum_interval_with_half_credits_is_its_resampling_percentile():
    """The exact per-stratum percentiles equal those of many simulated resamples."""
    n, full, half = 40, 22, 9
    res = stratified_recall({"a": (n, full, half), "b": (30, 12, 0)}, ci_method="bootstrap", n_bootstrap=10)
    rng = np.random.default_rng(0)
    credits = rng.multinomial(n - 1, [full / n, half / n, 1 - (full + half) / n], size=400_000)
    resampled = (credits[:, 0] + 0.5 * credits[:, 1]) / (n - 1)
    low, high = np.quantile(resampled, [0.025, 0.975])
    assert (res["strata"]["a"]["ci_low"], res["strata"]["a"]["ci_high"]) == pytest.approx(
        (low, high), abs=1e-9
    )
    b_low, b_high = stats.binom.ppf([0.025, 0.975], 29, 0.4) / 29
    assert (res["strata"]["b"]["ci_low"], res["strata"]["b"]["ci_high"]) == pytest.approx(
        (b_low, b_high), abs=1e-12
    )


@pytest.fixture(scope="module")
def subgroups_metric():
    import evaluate

    from conftest import METRIC_PATH

    return evaluate.load(METRIC_PATH, "subgroups")


@pytest.mark.parametrize(
    "weights, message",
    [
        ({"a": None, "b": 1}, "subgroup_weights['a'] must be a positive finite number; got None"),
        ({"a": 10**400, "b": -1}, "subgroup_weights['b'] must be a positive finite number; got -1"),
    ],
)
def test_compute_checks_weights_before_tags_and_stays_usable(subgroups_metric, weights, message):
    with pytest.raises(ValueError, match=re.escape(message)):  # the tags are invalid too
        subgroups_metric.compute(
            predictions=[["X-PER"], ["O"]],
            references=[["B-PER"], ["O"]],
            subgroups=["a", "b"],
            subgroup_weights=weights,
        )
    res = subgroups_metric.compute(
        predictions=[["B-PER"], ["O"]],
        references=[["B-PER"], ["B-LOC"]],
        subgroups=["a", "b"],
        subgroup_weights={"a": 1e308, "b": 1e308},
    )
    assert res["stratified_recall"]["recall"] == 0.5
    assert res["stratified_recall"]["strata"] == stratified_recall({"a": (1, 1, 0), "b": (1, 0, 0)})["strata"]
