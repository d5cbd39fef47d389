"""Planning a recall benchmark: Neyman allocation by hand, the target met, budgets, caps, errors, and the
docs table from bench/neyman.py."""

import math
import os
import re
from statistics import NormalDist

import pytest

from conftest import ROOT
from ner_recall.stats import planning as P

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
        ({"a": (5, 1)}, {"a": P.MAX_SIZE + 1}, {}, "population['a'] must be an int from 1 to 1e+15"),
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


@pytest.mark.parametrize("size", [1, 7, 10**6, P.MAX_SIZE])
def test_an_unreachable_half_width_labels_everything_and_ends(size):
    """A half-width of 1e-300 cannot be reached short of the whole population: the plan labels it all
    (and the loop that raises n stops there)."""
    sizes = {"a": size, "b": P.MAX_SIZE, "c": 3}
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


def by_hand(pilot, sizes):
    """Per stratum (weight, spread) from the definitions."""
    total = sum(sizes.values())
    out = {}
    for h, (n, x) in pilot.items():
        p = (x + 1) / (n + 2)
        out[h] = (sizes[h] / total, math.sqrt(p * (1 - p)))
    return out


def half_width_by_hand(pilot, sizes, plan, level=0.95):
    z = NormalDist().inv_cdf(0.5 + level / 2)
    variance = 0.0
    for h, (w, s) in by_hand(pilot, sizes).items():
        n = plan["strata"][h]["n"]
        variance += w**2 * s**2 / n * (1 - n / sizes[h]) if n else w**2 / 4
    return z * math.sqrt(variance)


@pytest.mark.parametrize("budget, level", [(100, 0.95), (333, 0.9), (1, 0.99), (2, 0.95)])
def test_a_budgets_plan_and_half_width_by_hand(budget, level):
    plan = P.neyman_plan(PILOT, SIZES, budget=budget, confidence_level=level)
    strata = by_hand(PILOT, SIZES)
    mass = sum(w * s for w, s in strata.values())
    for h, (w, s) in strata.items():
        share = budget * w * s / mass
        assert plan["strata"][h] == {
            "n": max(math.ceil(share), 2),
            "size": SIZES[h],
            "weight": w,
            "recall": (PILOT[h][1] + 1) / (PILOT[h][0] + 2),
        }
    assert plan["total"] == sum(s["n"] for s in plan["strata"].values())
    assert plan["half_width"] == pytest.approx(half_width_by_hand(PILOT, SIZES, plan, level), rel=1e-12)
    assert (plan["confidence_level"], plan["method"]) == (level, "neyman")
    assert set(plan) == {"strata", "total", "half_width", "confidence_level", "method"}


def test_an_unlabelled_stratum_counts_as_recall_unknown():
    """A stratum given no entity (``expected_half_width`` of sizes with a 0): its recall is unknown
    in [0, 1], variance w**2 / 4."""
    pilot, sizes = {"a": (2, 1), "b": (10, 7)}, {"a": 5, "b": 100}
    strata = P._strata(pilot, sizes)
    z = NormalDist().inv_cdf(0.975)
    (w_a, s_a), (w_b, _) = by_hand(pilot, sizes).values()
    got = P.expected_half_width(strata, {"a": 3, "b": 0}, z)
    assert got == pytest.approx(z * math.sqrt(w_a**2 * s_a**2 / 3 * (1 - 3 / 5) + w_b**2 / 4), rel=1e-12)
    assert P.expected_half_width(strata, {"a": 5, "b": 100}, z) == 0.0


@pytest.mark.parametrize("target", [0.01, 0.005, 0.002])
def test_a_target_plan_is_cochrans_n_when_it_meets_the_target(target):
    """Large strata, no cap: the total is Cochran's n shared out (each share rounded up), and that
    allocation meets the target."""
    pilot, sizes = {"a": (50, 40), "b": (50, 10), "c": (10, 9)}, {"a": 10**6, "b": 3 * 10**6, "c": 10**7}
    z = NormalDist().inv_cdf(0.975)
    strata = by_hand(pilot, sizes)
    mass = sum(w * s for w, s in strata.values())
    correction = sum(w * s**2 for w, s in strata.values()) / sum(sizes.values())
    n = math.ceil(mass**2 / (target**2 / z**2 + correction))
    plan = P.neyman_plan(pilot, sizes, half_width=target)
    assert {h: s["n"] for h, s in plan["strata"].items()} == {
        h: math.ceil(n * w * s / mass) for h, (w, s) in strata.items()
    }
    assert plan["half_width"] <= target


def test_the_default_minimum_is_two():
    """A stratum of almost no spread and tiny weight gets 2 entities by default."""
    plan = P.neyman_plan({"a": (10**6, 10**6), "b": (10, 5)}, {"a": 30, "b": 10**6}, budget=100)
    assert plan["strata"]["a"]["n"] == 2


@pytest.mark.parametrize(
    "pilot, sizes, kwargs, message",
    [
        (
            PILOT,
            SIZES,
            {"half_width": 0.05, "budget": 10},
            "give half_width (a target) or budget (entities to label), one of them",
        ),
        (PILOT, SIZES, {"half_width": 1}, "half_width must be in (0, 1); got 1"),
        (PILOT, SIZES, {"budget": 0}, "budget must be a positive int (entities to label); got 0"),
        (
            {},
            SIZES,
            {"budget": 1},
            "pilot must be a dict {stratum: (labelled, correct)}, one entry per stratum",
        ),
        (
            {"a": (1, 1), "b": (1, 1)},
            {"a": 1, 2: 3},
            {"budget": 1},
            "population must be a dict {stratum: size} for the strata of pilot; differs at [2, 'b']",
        ),
        (
            {"a": (1, 1)},
            [("a", 1)],
            {"budget": 1},
            "population must be a dict {stratum: size} for the strata of pilot; differs at None",
        ),
        (
            {"a": (1, 2, 3)},
            {"a": 5},
            {"budget": 1},
            "pilot['a'] must be (labelled, correct), two ints; got (1, 2, 3)",
        ),
        (
            {"a": ("x", "y")},
            {"a": 5},
            {"budget": 1},
            "pilot['a'] must be (labelled, correct), two ints; got ('x', 'y')",
        ),
        (
            {"a": [1.5, 1]},
            {"a": 5},
            {"budget": 1},
            "pilot['a'] must be (labelled, correct), two ints; got [1.5, 1]",
        ),
        ({"a": 7}, {"a": 5}, {"budget": 1}, "pilot['a'] must be (labelled, correct), two ints; got 7"),
        ({"a": (3, 4)}, {"a": 5}, {"budget": 1}, "pilot['a'] = (3, 4): need 0 <= correct <= labelled"),
        ({"a": (3, -1)}, {"a": 5}, {"budget": 1}, "pilot['a'] = (3, -1): need 0 <= correct <= labelled"),
        (
            {"a": (3, 1)},
            {"a": True},
            {"budget": 1},
            "population['a'] must be a positive int (entities in the stratum); got True",
        ),
    ],
)
def test_errors_are_the_whole_message(pilot, sizes, kwargs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        P.neyman_plan(pilot, sizes, **kwargs)


@pytest.mark.parametrize(
    "value, shown",
    [(10**30 + 1, "an int of about 10**30"), (10**30, "1" + "0" * 30), (-(10**31), "an int of about 10**31")],
)
def test_huge_ints_are_shown_by_their_size(value, shown):
    assert P._shown(value) == shown
