"""ner_unit_ids: a partition's sentence ids as ranges and names, the merge that names an id held
twice with both states' ids, the slots past which ids are not held, and the bytes' check. Tables
plus a property: random disjoint id sets merge in any order to the same ids, and one shared id is
always named."""

import random

import numpy as np
import pytest

from ner_recall.state import unit_ids as U


@pytest.mark.parametrize(
    "ids, ranges, names",
    [
        ([], [], []),
        ([3], [[3, 4]], []),
        ([5, 3, 4], [[3, 6]], []),
        ([0, 2, 4], [[0, 1], [2, 3], [4, 5]], []),
        ([-2, -1, 7], [[-2, 0], [7, 8]], []),
        (np.array([9, 8]), [[8, 10]], []),
        ([np.int32(1), 2], [[1, 3]], []),
        (["b", "a", 1], [[1, 2]], ["a", "b"]),
        ([2**63 - 1], [[2**63 - 1, 2**63]], []),
        ([-(2**63)], [[-(2**63), -(2**63) + 1]], []),
        ([2**63], None, None),  # beyond 64 bits: not held
        ([1, 2**70], None, None),
    ],
)
def test_held_ids(ids, ranges, names):
    assert U.held_ids(ids) == (ranges, names)


@pytest.mark.parametrize(
    "ids, i, j, value",
    [
        ([1, 1], 0, 1, "1"),
        ([4, 2, 3, 2], 1, 3, "2"),
        (["x", "y", "x"], 0, 2, "'x'"),
        ([2**70, 5, 2**70], 0, 2, str(2**70)),
        ([np.int64(6), 6], 0, 1, "6"),
    ],
)
def test_an_id_twice_in_a_partition_is_named_by_both_places(ids, i, j, value):
    with pytest.raises(ValueError, match=rf"sentence_ids\[{i}\] and sentence_ids\[{j}\] are both {value}:"):
        U.held_ids(ids)


@pytest.mark.parametrize("ids", [[1, "1"], ["a", "A"], [0, -0 + 1], ["x" * 70_000 + "a", "x" * 70_000 + "b"]])
def test_distinct_ids_are_never_refused(ids):
    U.held_ids(ids)


def test_slots_bound_what_is_held():
    assert U.id_slots([], []) == 0
    assert U.id_slots([[0, 10**9]], []) == 1
    assert U.id_slots([], ["a" * 13]) == 1 and U.id_slots([], ["a" * 14]) == 2  # '"' + 14 + '"' = 16
    assert U.held_ids(list(range(0, 2 * U.MAX_ID_SLOTS, 2)))[0] is not None
    assert U.held_ids(list(range(0, 2 * U.MAX_ID_SLOTS + 2, 2))) == (None, None)
    assert U.held_ids([f"{i:07d}" for i in range(U.MAX_ID_SLOTS)])[1] is not None
    assert U.held_ids([f"{i:07d}" for i in range(U.MAX_ID_SLOTS + 1)]) == (None, None)
    assert U.held_ids(["a" * 16 * U.MAX_ID_SLOTS]) == (None, None)


@pytest.mark.parametrize(
    "a, b, merged",
    [
        (([[0, 2]], []), ([[2, 4]], []), ([[0, 4]], [])),
        (([[5, 6]], ["b"]), ([[0, 1]], ["a"]), ([[0, 1], [5, 6]], ["a", "b"])),
        (([], []), ([], []), ([], [])),
        ((None, None), ([[0, 1]], []), (None, None)),
        (([[0, 1]], []), (None, None), (None, None)),
    ],
)
def test_merged_ids(a, b, merged):
    assert U.merged_ids(a, b, "sentence_ids") == merged == U.merged_ids(b, a, "sentence_ids")


@pytest.mark.parametrize(
    "a, b, words",
    [
        (
            ([[0, 5]], []),
            ([[4, 9]], []),
            "two states hold sentences 4 to 4: one holds sentences 0 to 4, the other 4 to 8",
        ),
        (
            ([[0, 10]], []),
            ([[2, 3], [5, 7]], []),
            "sentences 2 to 2: one holds sentences 0 to 9, the other 2, 5 to 6",
        ),
        (
            ([[0, 1], [2, 3], [4, 5], [6, 7]], ["q"]),
            ([[6, 7]], []),
            "sentences 6 to 6: one holds sentences 0, 2, 4 and 2 more, the other 6;",
        ),
        (([], ["a", "b"]), ([], ["b"]), "sentences 'b': one holds sentences 'a', 'b', the other 'b'"),
    ],
)
def test_a_shared_id_names_both_states(a, b, words):
    with pytest.raises(ValueError, match=words):
        U.merged_ids(a, b, "sentences")
    advice = "; each sentence is one unit, in one partition: give each partition its own first_sentence"
    with pytest.raises(
        ValueError, match=advice + r" \(the number of sentences before it\), or sentence_ids$"
    ):
        U.merged_ids(b, a, "sentences")
    with pytest.raises(
        ValueError, match="; each sentence is one unit, in one partition: give each sentence its own id$"
    ):
        U.merged_ids(a, b, "sentence_ids")


@pytest.mark.parametrize("seed", range(8))
def test_random_disjoint_ids_merge_alike_in_any_order_and_a_shared_one_is_named(seed):
    rng = random.Random(seed)
    ids = rng.sample(range(-50, 200), 120) + [f"s{i}" for i in range(rng.randrange(30))]
    rng.shuffle(ids)
    cuts = sorted(rng.sample(range(1, len(ids)), 5))
    parts = [U.held_ids(ids[a:b]) for a, b in zip([0] + cuts, cuts + [len(ids)])]
    whole = U.held_ids(ids)
    for _ in range(3):
        order = parts[:]
        rng.shuffle(order)
        while len(order) > 1:
            i = rng.randrange(len(order) - 1)
            order[i : i + 2] = [U.merged_ids(order[i], order[i + 1], "sentence_ids")]
        assert order[0] == whole
    shared = rng.choice(ids)
    words = f"two states hold sentence_ids ({shared!r}|{shared} to {shared}):"
    with pytest.raises(ValueError, match=words):
        U.merged_ids(U.held_ids([shared]), whole, "sentence_ids")
    assert U.merged_ids(U.held_ids([1000, "new"]), whole, "sentence_ids")[0][-1] == [1000, 1001]


@pytest.mark.parametrize(
    "ranges, names, words",
    [
        (None, [], "^counts state ranges and names: both held or neither$"),
        ([], None, "both held or neither"),
        ([[1, 1]], [], "^counts state ranges: not a list of \\[first, end\\) sentence ranges$"),
        ([[0, True]], [], "not a list of \\[first, end\\)"),
        ([[0, 2**63 + 1]], [], "not a list of \\[first, end\\)"),
        ([[0, 1, 2]], [], "not a list of \\[first, end\\)"),
        ("ab", [], "not a list of \\[first, end\\)"),
        ([], "ab", "not a list of str"),
        ([], [1], "not a list of str"),
        ([], ["b", "a"], "not distinct sorted"),
        ([], ["a", "a"], "not distinct sorted"),
        ([[0, 3], [2, 5]], [], "sentences 2 to 2 held twice"),
        ([[2 * i, 2 * i + 1] for i in range(U.MAX_ID_SLOTS + 1)], [], "more than 32768 slots"),
    ],
)
def test_read_ids_names_what_is_wrong(ranges, names, words):
    with pytest.raises(ValueError, match=words):
        U.read_ids(ranges, names)


def test_read_ids_coalesces_and_keeps():
    assert U.read_ids(None, None) == (None, None)
    assert U.read_ids([[3, 5], [0, 3], [7, 8]], ["a"]) == ([[0, 5], [7, 8]], ["a"])
    assert U.coalesced([[4, 6], [0, 2], [2, 4], [7, 9]]) == [[0, 6], [7, 9]]
