"""The sentence ids a counts state holds, to see a sentence given twice while they are few.

A partition's ids are its sentence numbers (``first_sentence`` on), or its ``sentence_ids``: int
ids as coalesced ``[first, end)`` ranges, str ids as themselves (``names``), each compared as a
value, never by a hash, so distinct ids are never refused. Two states that share an id do not
merge (a ``ValueError`` naming both states' ids). The ids take at most :data:`MAX_ID_SLOTS`
slots; past that a state holds none (``None``), and its merges check nothing. See docs/state.md.

>>> from ner_recall.state import unit_ids as U
>>> U.held_ids([5, 3, 4, "x"])
([[3, 6]], ['x'])
>>> U.merged_ids(([[0, 4]], []), ([[4, 9]], ["a"]), "sentence_ids")
([[0, 9]], ['a'])
"""

import json
from typing import Any

import numpy as np
import numpy.typing as npt

#: the sentence ids a state holds to see one given twice, in slots: a run of consecutive int ids
#: is one slot, a str id one slot and one more per 16 characters of its JSON; beyond, ids are no
#: longer held (None), and a merge with such a state checks nothing (docs/state.md)
MAX_ID_SLOTS = 32768


def coalesced(ranges: list) -> list:
    """``[first, end)`` ranges sorted, touching ones joined."""
    out: list = []
    for lo, hi in sorted(ranges):
        if out and out[-1][1] == lo:
            out[-1] = [out[-1][0], hi]
        else:
            out.append([lo, hi])
    return out


def _runs(values: npt.NDArray[np.int64]) -> list:
    """Sorted distinct ints as ``[first, end)`` runs."""
    if not len(values):
        return []
    breaks = np.flatnonzero(np.diff(values) != 1) + 1
    starts, lasts = values[np.r_[0, breaks]], values[np.r_[breaks - 1, len(values) - 1]]
    return [[int(a), int(b) + 1] for a, b in zip(starts, lasts)]  # in Python: 2**63 - 1 ends at 2**63


def _shown(ranges: list, names: list) -> str:
    """A state's ids in a few words: its first ranges and names, and how many more."""
    items = [f"{lo}" if hi == lo + 1 else f"{lo} to {hi - 1}" for lo, hi in ranges[:3]]
    items += [repr(name) for name in names[: max(0, 3 - len(items))]]
    more = len(ranges) + len(names) - len(items)
    return ", ".join(items) + (f" and {more} more" if more else "")


def _overlap(a: list, b: list) -> tuple | None:
    """The first ``[lo, hi)`` two sorted lists of disjoint ranges share, or None (one sweep)."""
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            return lo, hi
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return None


def merged_ids(a: tuple, b: tuple, first: str) -> tuple:
    """(ranges, names) of two states whose ids are ``a`` and ``b`` (ranges, names): raise naming
    both states' ids where they share one (``first``: "sentences", numbered from
    ``first_sentence``, or "sentence_ids"); None, None when either holds none."""
    if a[0] is None or b[0] is None:
        return None, None
    both = _overlap(a[0], b[0])
    same = sorted(set(a[1]) & set(b[1]))
    if both is not None or same:
        what = f"{first} {both[0]} to {both[1] - 1}" if both is not None else f"{first} {same[0]!r}"
        raise ValueError(
            f"two states hold {what}: one holds {first} {_shown(*a)}, the other {_shown(*b)}; each"
            " sentence is one unit, in one partition: "
            + (
                "give each partition its own first_sentence (the number of sentences before it), or sentence_ids"
                if first == "sentences"
                else "give each sentence its own id"
            )
        )
    return coalesced(a[0] + b[0]), sorted(a[1] + b[1])


def read_ids(ranges: object, names: object) -> tuple:
    """The (ranges, names) of a counts state's bytes, checked."""
    if ranges is None and names is None:
        return None, None
    if ranges is None or names is None:
        raise ValueError("counts state ranges and names: both held or neither")
    if not (isinstance(ranges, list) and all(_is_range(r) for r in ranges)):
        raise ValueError("counts state ranges: not a list of [first, end) sentence ranges")
    if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise ValueError("counts state names: not a list of str sentence ids")
    if names != sorted(set(names)):
        raise ValueError("counts state names: not distinct sorted ids")
    ranges = _disjoint(ranges)
    if id_slots(ranges, names) > MAX_ID_SLOTS:
        raise ValueError(f"counts state ranges and names: more than {MAX_ID_SLOTS} slots of ids")
    return ranges, names


def _disjoint(ranges: list) -> list:
    ranges = sorted(ranges)
    for (lo, hi), (lo2, _) in zip(ranges, ranges[1:]):
        if lo2 < hi:
            raise ValueError(f"counts state ranges: sentences {lo2} to {hi - 1} held twice")
    return coalesced(ranges)


def _is_range(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v <= 2**63 for v in value)
        and value[0] < value[1]
    )


def held_ids(sentence_ids: Any) -> tuple:
    """A partition's sentence ids as (ranges of its int ids, its str ids), each id checked to be
    given once; (None, None) past :data:`MAX_ID_SLOTS` or for an int beyond 64 bits."""
    values = sentence_ids.tolist() if isinstance(sentence_ids, np.ndarray) else list(sentence_ids)
    values = [int(v) if isinstance(v, np.integer) else v for v in values]  # unit_keys checked the types
    small = [v for v in values if isinstance(v, int) and -(2**63) <= v < 2**63]
    names = [v for v in values if isinstance(v, str)]
    ints = np.sort(np.array(small, dtype=np.int64))
    twice = ints[1:][np.diff(ints) == 0][:1].tolist()
    names.sort()
    large = sorted(v for v in values if isinstance(v, int) and not -(2**63) <= v < 2**63)
    twice += [a for side in (names, large) for a, b in zip(side, side[1:]) if a == b][:1]
    if twice:
        i = values.index(twice[0])
        j = values.index(twice[0], i + 1)
        raise ValueError(
            f"sentence_ids[{i}] and sentence_ids[{j}] are both {twice[0]!r}: each sentence is one unit,"
            " with its own id"
        )
    runs = _runs(ints)
    if len(small) + len(names) < len(values) or len(runs) + len(names) > MAX_ID_SLOTS:
        return None, None
    return (runs, names) if id_slots(runs, names) <= MAX_ID_SLOTS else (None, None)


def id_slots(ranges: list, names: list) -> int:
    """The room ids take in a state: a slot per range, a slot and one per 16 characters of JSON per name."""
    return len(ranges) + sum(1 + len(json.dumps(name)) // 16 for name in names)
