"""Planning a recall benchmark: Neyman allocation by hand, the target met, budgets, caps, errors, and the
docs table from bench/neyman.py."""

import math
import os
import re
from statistics import NormalDist

import pytest

from conftest import ROOT
from ner_recall import ner_planning as P

PILOT = {"news": (20, 18), "web": (20, 10)}
SIZES = {"news": 3000, "web": 1000}


def test_cochrans_total_and_neyman_shares_by_hand():
    z = NormalDist().inv_cdf(0.975)
    p = {"news": 19 / 22, "web": 11 / 22}  # (correct + 1) / (labelled + 2)
    w = {"news": 0.75, "web": 0.25}
    s = {h: math.sqrt(p[h] * (1 - p[h])) for h in p}
    mass = sum(w[h] * s[h] for h in p)
    n = math.ceil(mass**2 / (0.05**2 / z**2 + sum(w[h] * s[h] ** 2 for h in p) / 4000))
    plan = P.neyman_plan(PILOT, SIZES, half_width=0.05)
    assert plan["total"] >= n and plan["half_width"] <= 0.05
    share = plan["strata"]["news"]["n"] / plan["total"]
    assert share == pytest.approx(w["news"] * s["news"] / mass, abs=0.01)


def test_a_budget_buys_a_half_width_and_more_buys_less():
    small = P.neyman_plan(PILOT, SIZES, budget=100)
    large = P.neyman_plan(PILOT, SIZES, budget=400)
    assert small["total"] >= 100 and large["half_width"] < small["half_width"]
    census = P.neyman_plan(PILOT, SIZES, budget=10_000)
    assert census["total"] == 4000 and census["half_width"] == 0.0


def test_a_stratum_asking_for_more_than_its_size_is_labelled_whole():
    plan = P.neyman_plan({"a": (10, 5), "b": (40, 38)}, {"a": 100, "b": 1000}, half_width=0.005)
    # a's Neyman share (its spread 0.5 against b's 0.26) passes its 100 entities: all 100, the rest to b
    assert plan["strata"]["a"]["n"] == 100 and plan["strata"]["b"]["n"] < 1000 and plan["half_width"] <= 0.005


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"half_width": 0.05, "budget": 10}, "give half_width (a target) or budget"),
        ({}, "give half_width (a target) or budget"),
        ({"half_width": 1.5}, "half_width must be in (0, 1); got 1.5"),
        ({"budget": 0}, "budget must be a positive int"),
    ],
)
def test_bad_requests_are_named(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        P.neyman_plan(PILOT, SIZES, **kwargs)


@pytest.mark.parametrize(
    "pilot, sizes, message",
    [
        ({"a": (5, 6)}, {"a": 10}, "pilot['a'] = (5, 6): need 0 <= correct <= labelled"),
        ({"a": (5, 1)}, {"b": 10}, "population must be a dict {stratum: size} for the strata of pilot"),
        ({"a": (5, 1)}, {"a": 0}, "population['a'] must be a positive int"),
        ({}, {}, "pilot must be a dict"),
    ],
)
def test_bad_pilots_are_named(pilot, sizes, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        P.neyman_plan(pilot, sizes, budget=10)


def test_the_metric_offers_it(metric):
    assert metric.plan_benchmark(PILOT, SIZES, budget=100) == P.neyman_plan(PILOT, SIZES, budget=100)


def test_docs_table_is_the_bench_output():
    rows = [
        line
        for line in open(os.path.join(ROOT, "bench", "neyman.md")).read().splitlines()
        if line.startswith("|")
    ]
    page = open(os.path.join(ROOT, "docs", "planning.md")).read()
    shown = re.search(r"<!-- neyman -->\n(.*?)\n<!-- /neyman -->", page, re.S).group(1).splitlines()
    assert len(rows) > 2 and shown == rows


@pytest.mark.parametrize(
    "pilot, sizes, kwargs, message",
    [
        (
            {"a": (5, 1)},
            {"a": 10**400},
            {},
            "population['a'] must be an int from 1 to 1e+15; got an int of about 10**400",
        ),
        ({"a": (5, 1)}, {"a": 10**5000}, {}, "got an int of about 10**5000"),
        (
            {"a": (5, 1)},
            {"a": 2**53},
            {},
            "population['a'] must be an int from 1 to 1e+15; got 9007199254740992",
        ),
        ({"a": (5, 1)}, {"a": P.MAX_COUNT + 1}, {}, "population['a'] must be an int from 1 to 1e+15"),
        ({"a": (10**400, 1)}, {"a": 10}, {}, "pilot['a']'s labelled count must be an int from 0 to 1e+15"),
        ({"a": (5, 1)}, {"a": 10}, {"minimum": -1}, "minimum must be an int from 0 to 1e+15; got -1"),
        ({"a": (5, 1)}, {"a": 10}, {"minimum": True}, "minimum must be an int from 0 to 1e+15; got True"),
        ({"a": (5, 1)}, {"a": 10}, {"half_width": float("nan")}, "half_width must be in (0, 1); got nan"),
        ({"a": (5, 1)}, {"a": 10}, {"half_width": 0.0}, "half_width must be in (0, 1); got 0.0"),
        ({"a": (5, 1)}, {"a": 10}, {"half_width": True}, "half_width must be in (0, 1); got True"),
        ({"a": (5, 1)}, {"a": 10}, {"budget": 2.0}, "budget must be a positive int"),
    ],
)
def test_huge_and_malformed_sizes_are_named(pilot, sizes, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        P.neyman_plan(pilot, sizes, **({"half_width": 0.05} | kwargs if "budget" not in kwargs else kwargs))


@pytest.mark.parametrize("size", [1, 7, 10**6, P.MAX_COUNT])
def test_an_unreachable_half_width_labels_everything_and_ends(size):
    """A half-width of 1e-300 cannot be reached short of the whole population: the plan labels it all
    (and the loop that raises n stops there)."""
    sizes = {"a": size, "b": P.MAX_COUNT, "c": 3}
    plan = P.neyman_plan({"a": (10, 5), "b": (10, 9), "c": (0, 0)}, sizes, half_width=1e-300)
    assert {h: s["n"] for h, s in plan["strata"].items()} == sizes and plan["total"] == sum(sizes.values())
    assert plan["half_width"] == 0.0


def test_a_budget_beyond_the_population_labels_it_all():
    plan = P.neyman_plan({"a": (10, 5), "b": (4, 4)}, {"a": 10, "b": 5}, budget=10**400)
    assert plan["total"] == 15 and plan["half_width"] == 0.0


@pytest.mark.parametrize("minimum, expected", [(0, 1), (1, 1), (2, 2), (5, 5), (30, 30), (50, 30)])
def test_the_minimum_per_stratum_is_kept_up_to_the_stratum(minimum, expected):
    """A stratum with almost no spread gets its Neyman share (near 0) raised to ``minimum``, or to
    its size when smaller."""
    plan = P.neyman_plan(
        {"a": (10**6, 10**6), "b": (10, 5)}, {"a": 30, "b": 10**6}, budget=100, minimum=minimum
    )
    assert plan["strata"]["a"]["n"] == expected  # its share is a sliver: ceil gives 1
