"""Planning a recall benchmark: how many entities to label in each stratum (Neyman allocation).

A recall benchmark samples gold entities stratum by stratum (a population of texts, a subgroup) and
estimates the recall on the whole as the stratum-weighted mean ``R = sum_h W_h p_h``, with ``W_h =
N_h / N`` (``ner_stratified``). With ``n_h`` entities labelled in stratum h the estimate's variance is
``sum_h W_h**2 S_h**2 / n_h * (1 - n_h / N_h)``, ``S_h**2 = p_h (1 - p_h)``. For a total n, Neyman's
allocation ``n_h = n W_h S_h / sum_k W_k S_k`` makes it smallest (Cochran, *Sampling Techniques*, 5.25):

* for a target half-width ``d`` at confidence level ``1 - alpha`` (``z`` its normal quantile):
  ``n = (sum W_h S_h)**2 / (d**2 / z**2 + sum W_h S_h**2 / N)``;
* for a budget of n entities, the half-width ``z sqrt(sum W_h**2 S_h**2 / n_h (1 - n_h / N_h))``.

``p_h`` comes from a pilot, ``(labelled, correct)`` per stratum, as ``(correct + 1) / (labelled + 2)``
(so that a pilot of all hits or all misses still asks for entities). A stratum whose share exceeds its
size is labelled whole and the rest allocated again; each ``n_h`` is rounded up, at least
``minimum`` (2) where the stratum has that many.

>>> plan = neyman_plan({"news": (20, 18), "web": (20, 10)}, {"news": 3000, "web": 1000}, half_width=0.05)
>>> plan["strata"]["news"]["n"], plan["strata"]["web"]["n"], plan["total"]
(144, 70, 214)
>>> round(plan["half_width"], 4) <= 0.05
True
"""

import math
from statistics import NormalDist
from typing import Any

from ner_recall.core.vocabulary import check_confidence_level, is_int

#: the largest stratum size, pilot count, budget or ``minimum`` taken: counts stay exact in a float
#: (below 2**53), so that the allocation's arithmetic ends
MAX_SIZE = 10**15


def _check_count(value: Any, what: str, smallest: int) -> None:
    if not (is_int(value) and smallest <= value <= MAX_SIZE):
        raise ValueError(f"{what} must be an int from {smallest} to {MAX_SIZE:.0e}; got {_shown(value)}")


def _shown(value: Any) -> str:
    """A value for an error message; an int too long to print is given by its size."""
    if is_int(value) and abs(value) > MAX_SIZE**2:
        return f"an int of about 10**{int(abs(value).bit_length() * math.log10(2))}"
    return repr(value)


def _check(pilot, population):
    if not isinstance(pilot, dict) or not pilot:
        raise ValueError("pilot must be a dict {stratum: (labelled, correct)}, one entry per stratum")
    if not isinstance(population, dict) or set(population) != set(pilot):
        missing = (
            sorted(set(pilot) ^ set(population or {}), key=str) if isinstance(population, dict) else None
        )
        raise ValueError(
            f"population must be a dict {{stratum: size}} for the strata of pilot; differs at {missing}"
        )
    for name, counts in pilot.items():
        if not (isinstance(counts, (tuple, list)) and len(counts) == 2 and all(map(is_int, counts))):
            raise ValueError(f"pilot[{name!r}] must be (labelled, correct), two ints; got {counts!r}")
        n, x = counts
        _check_count(n, f"pilot[{name!r}]'s labelled count", 0)
        if not 0 <= x <= n:
            raise ValueError(f"pilot[{name!r}] = {counts!r}: need 0 <= correct <= labelled")
        size = population[name]
        if not (is_int(size) and size >= 1):
            raise ValueError(
                f"population[{name!r}] must be a positive int (entities in the stratum); got {size!r}"
            )
        _check_count(size, f"population[{name!r}]", 1)


def _strata(pilot, population):
    total = sum(population.values())
    out = {}
    for name, (n, x) in pilot.items():
        p = (x + 1) / (n + 2)
        out[name] = {
            "size": population[name],
            "weight": population[name] / total,
            "recall": p,
            "spread": math.sqrt(p * (1 - p)),
        }
    return out


def _allocate(strata: dict[str, dict], n: int, minimum: int) -> dict[str, int]:
    """Neyman shares of n; a stratum asking for more than its size is taken whole, the rest reallocated."""
    fixed: dict[str, int] = {}
    free = dict(strata)
    while True:
        left = n - sum(fixed.values())
        mass = sum(s["weight"] * s["spread"] for s in free.values())
        # mass > 0: every spread is above 0 (the pilot's recall is strictly inside (0, 1))
        share = {h: left * s["weight"] * s["spread"] / mass for h, s in free.items()}
        over = [h for h, v in share.items() if v >= free[h]["size"]]
        if not over:
            break
        for h in over:
            fixed[h] = free.pop(h)["size"]
        if not free:
            break
    sizes = {
        **fixed,
        **{h: min(s["size"], max(math.ceil(share[h]), min(minimum, s["size"]))) for h, s in free.items()},
    }
    return {h: sizes[h] for h in strata}


def expected_half_width(strata: dict[str, dict], sizes: dict[str, int], z: float) -> float:
    """The expected half-width of the stratified recall's interval at these sizes."""
    variance = 0.0
    for h, s in strata.items():
        n = sizes[h]
        if n:
            variance += s["weight"] ** 2 * s["spread"] ** 2 / n * (1 - n / s["size"])
        else:
            variance += s["weight"] ** 2 * 0.25  # an unlabelled stratum: recall unknown in [0, 1]
    return z * math.sqrt(max(variance, 0.0))


def neyman_plan(
    pilot: dict,
    population: dict,
    half_width: float | None = None,
    budget: int | None = None,
    confidence_level: float = 0.95,
    minimum: int = 2,
) -> dict[str, Any]:
    """Entities to label per stratum: for a target ``half_width`` (the smallest total reaching it), or
    for a ``budget`` of entities (and the half-width it buys). Returns ``{"strata": {name: {"n",
    "size", "weight", "recall"}}, "total", "half_width", "confidence_level", "method"}``."""
    _check(pilot, population)
    _check_count(minimum, "minimum", 0)
    if (half_width is None) == (budget is None):
        raise ValueError("give half_width (a target) or budget (entities to label), one of them")
    level = check_confidence_level(confidence_level)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    strata = _strata(pilot, population)
    if budget is not None:
        if not (is_int(budget) and budget >= 1):
            raise ValueError(f"budget must be a positive int (entities to label); got {budget!r}")
        sizes = _allocate(strata, min(budget, sum(s["size"] for s in strata.values())), minimum)
    else:
        if not (
            isinstance(half_width, (int, float)) and not isinstance(half_width, bool) and 0 < half_width < 1
        ):
            raise ValueError(f"half_width must be in (0, 1); got {half_width!r}")
        sizes = _for_target(strata, half_width, z, minimum)
    return {
        "strata": {
            h: {"n": sizes[h], "size": s["size"], "weight": s["weight"], "recall": s["recall"]}
            for h, s in strata.items()
        },
        "total": sum(sizes.values()),
        "half_width": expected_half_width(strata, sizes, z),
        "confidence_level": level,
        "method": "neyman",
    }


def _for_target(strata, target, z, minimum):
    """The smallest Neyman allocation whose half-width reaches ``target`` (Cochran's n, then raised
    one entity at a time where rounding and capping left it short)."""
    mass = sum(s["weight"] * s["spread"] for s in strata.values())
    population = sum(s["size"] for s in strata.values())
    correction = sum(s["weight"] * s["spread"] ** 2 for s in strata.values()) / population
    n = math.ceil(mass**2 / (target**2 / z**2 + correction))
    sizes = _allocate(strata, min(n, population), minimum)
    # n grows by 1% a step, and stops at the population (everything labelled): at most a few thousand
    while expected_half_width(strata, sizes, z) > target and n < population:
        n += max(1, n // 100)
        sizes = _allocate(strata, min(n, population), minimum)
    return sizes
