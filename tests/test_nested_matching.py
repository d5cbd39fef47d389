"""Matching and scorings when the spans of a side nest and overlap."""

import itertools
import os
import random
import re

import numpy as np
import pytest

from conftest import ROOT
from ner_recall.core import matching as M
from ner_recall.core import vocabulary as ner_core
from ner_recall.families import scorings as S

TYPES = ("LOC", "ORG", "PER")


def side(sentences, lengths):
    """SpanArrays from per-sentence lists of (type name, start, end), in the order given."""
    base = np.concatenate([[0], np.cumsum(np.array(lengths) + 1)])
    rows = [
        (TYPES.index(t), base[s] + a, base[s] + b, s, a)
        for s, spans in enumerate(sentences)
        for t, a, b in spans
    ]
    type_, start, end, sentence, offset = np.array(rows, dtype=np.int64).reshape(-1, 5).T
    return ner_core.SpanArrays(start, end, type_, sentence, offset)


def entity(spans, i):
    """Span ``i`` as (type name, start, end) within its sentence."""
    return TYPES[spans.type[i]], int(spans.offset[i]), int(spans.offset[i] + spans.end[i] - spans.start[i])


def pairs(gold_sentences, pred_sentences, lengths):
    """The matched pairs as (sentence, gold entity, predicted entity, scenario), sorted."""
    gold, pred = side(gold_sentences, lengths), side(pred_sentences, lengths)
    matching = M.match(gold, pred)
    return sorted(
        (int(gold.sentence[g]), entity(gold, g), entity(pred, p), ner_core.SCENARIOS[s])
        for g, p, s in zip(matching.gold.tolist(), matching.pred.tolist(), matching.scenario.tolist())
    )


# "Bank of New York Mellon": gold ORG(0,5) and LOC(2,4) "New York" (nested)
WORKED = [("ORG", 0, 5), ("LOC", 2, 4)]
# (name, gold, predicted, expected matched pairs (gold, predicted, scenario))
CASES = [
    (
        "worked case: the exact pair first, then the same type",
        WORKED,
        [("ORG", 0, 4), ("LOC", 2, 4), ("LOC", 3, 4)],
        [(("LOC", 2, 4), ("LOC", 2, 4), "exact"), (("ORG", 0, 5), ("ORG", 0, 4), "overlap")],
    ),
    (
        "the most pairs beat the same type",
        WORKED,
        [("LOC", 0, 1), ("ORG", 2, 3)],
        [
            (("LOC", 2, 4), ("ORG", 2, 3), "overlap_other_type"),
            (("ORG", 0, 5), ("LOC", 0, 1), "overlap_other_type"),
        ],
    ),
    (
        "the same type beats exact offsets of another type",
        WORKED,
        [("LOC", 0, 5), ("ORG", 2, 4)],
        [(("LOC", 2, 4), ("LOC", 0, 5), "overlap"), (("ORG", 0, 5), ("ORG", 2, 4), "overlap")],
    ),
    (
        "one prediction over both nested entities: the same type",
        WORKED,
        [("ORG", 1, 5)],
        [(("ORG", 0, 5), ("ORG", 1, 5), "overlap")],
    ),
    (
        "one prediction over both, of neither type: the larger Dice coefficient (0.8 over 0.75)",
        WORKED,
        [("PER", 1, 4)],
        [(("LOC", 2, 4), ("PER", 1, 4), "overlap_other_type")],
    ),
    (
        "identical offsets first at equal pairs and types: gold ORG 1:2 in PER 0:3, predicted LOC 1:2",
        [("PER", 0, 3), ("ORG", 1, 2)],
        [("LOC", 1, 2)],
        [(("ORG", 1, 2), ("LOC", 1, 2), "exact_other_type")],
    ),
    (
        "an exact pair is kept even where it costs a pair",
        [("PER", 0, 3), ("PER", 0, 1)],
        [("PER", 0, 3), ("PER", 2, 5)],
        [(("PER", 0, 3), ("PER", 0, 3), "exact")],
    ),
    (
        "a tie between two nested gold entities: the leftmost",
        [("PER", 0, 2), ("PER", 2, 4), ("ORG", 0, 4)],
        [("PER", 1, 3)],
        [(("PER", 0, 2), ("PER", 1, 3), "overlap")],
    ),
    (
        "predictions nested on the other side",
        [("ORG", 0, 4)],
        [("ORG", 0, 2), ("ORG", 0, 3), ("LOC", 1, 2)],
        [(("ORG", 0, 4), ("ORG", 0, 3), "overlap")],
    ),
    (
        "two nested levels on each side, shifted by a token",
        [("ORG", 0, 4), ("PER", 1, 3)],
        [("ORG", 1, 5), ("PER", 2, 4)],
        [(("ORG", 0, 4), ("ORG", 1, 5), "overlap"), (("PER", 1, 3), ("PER", 2, 4), "overlap")],
    ),
]


@pytest.mark.parametrize("name, gold, pred, expected", CASES, ids=[c[0] for c in CASES])
def test_nested_cases(name, gold, pred, expected):
    assert [p[1:] for p in pairs([gold], [pred], [6])] == sorted(expected)


@pytest.mark.parametrize("name, gold, pred, expected", CASES, ids=[c[0] for c in CASES])
def test_nested_cases_do_not_depend_on_the_order_of_spans(name, gold, pred, expected):
    for gold_order in itertools.permutations(gold):
        for pred_order in itertools.permutations(pred):
            assert [p[1:] for p in pairs([list(gold_order)], [list(pred_order)], [6])] == sorted(expected)


# ---------------------------------------------------------------------------- properties


def random_nested(rng, n_sentences, max_length=8, max_spans=4):
    """Per sentence, distinct random (type, start, end) spans that nest and overlap freely."""
    lengths = [rng.randint(1, max_length) for _ in range(n_sentences)]

    def one(length):
        spans = {
            (rng.choice(TYPES[:2]), a, rng.randint(a + 1, length))
            for a in (rng.randrange(length) for _ in range(rng.randint(0, max_spans)))
        }
        spans = list(spans)
        rng.shuffle(spans)
        return spans

    return [one(k) for k in lengths], [one(k) for k in lengths], lengths


def _closeness(g, p):
    """Identical offsets 2**20, else the Dice coefficient in steps of 2**-20, rounded down."""
    if g[1:] == p[1:]:
        return 2**20
    shared = min(g[2], p[2]) - max(g[1], p[1])
    return min((2 * shared * 2**20) // ((g[2] - g[1]) + (p[2] - p[1])), 2**20 - 1)


def _key(matched):
    """(exact same-type pairs, pairs, same-type pairs, closeness) of a list of matched pairs."""
    return (
        sum(g == p for g, p in matched),
        len(matched),
        sum(g[0] == p[0] for g, p in matched),
        sum(_closeness(g, p) for g, p in matched),
    )


def _best_key(gold, pred):
    """The best key over every one-to-one matching of the overlapping pairs (exhaustive)."""
    edges = [(g, p) for g in gold for p in pred if max(g[1], p[1]) < min(g[2], p[2])]
    best = (0, 0, 0, 0)
    for r in range(1, min(len(gold), len(pred)) + 1):
        for chosen in itertools.combinations(edges, r):
            if len({g for g, _ in chosen}) == r == len({p for _, p in chosen}):
                best = max(best, _key(chosen))
    return best


def test_matching_is_optimal_against_exhaustive_search():
    """On random nested sentences the matching is one-to-one and reaches the best key."""
    rng = random.Random(3)
    for _ in range(400):
        gold, pred, lengths = random_nested(rng, 3)
        matched = pairs(gold, pred, lengths)
        for s in range(len(lengths)):
            mine = [(g, p) for sentence, g, p, _ in matched if sentence == s]
            assert len({g for g, _ in mine}) == len(mine) == len({p for _, p in mine})
            assert _key(mine) == _best_key(gold[s], pred[s]), (gold[s], pred[s], mine)


def test_matching_does_not_depend_on_the_order_of_spans_or_sentences():
    rng = random.Random(4)
    for _ in range(200):
        gold, pred, lengths = random_nested(rng, 5, max_length=10, max_spans=6)
        expected = pairs(gold, pred, lengths)
        order = list(range(len(lengths)))
        rng.shuffle(order)
        shuffled = pairs(
            [rng.sample(gold[i], len(gold[i])) for i in order],
            [rng.sample(pred[i], len(pred[i])) for i in order],
            [lengths[i] for i in order],
        )
        assert sorted((order[s],) + tuple(rest) for s, *rest in shuffled) == expected


def test_flat_input_matches_the_same_through_the_nested_path():
    """A nested sentence elsewhere in the corpus does not change a flat sentence's matching."""
    rng = random.Random(6)
    for _ in range(200):
        gold, pred, lengths = random_nested(rng, 4)
        flat = pairs([[("PER", 0, 2), ("PER", 2, 4)]], [[("PER", 1, 3), ("LOC", 3, 4)]], [5])
        both = pairs(
            gold + [[("PER", 0, 2), ("PER", 2, 4)]], pred + [[("PER", 1, 3), ("LOC", 3, 4)]], lengths + [5]
        )
        assert [p[1:] for p in both if p[0] == len(lengths)] == [p[1:] for p in flat]


# ---------------------------------------------------------------------------- duplicates


@pytest.mark.parametrize(
    "spans, message",
    [
        (
            [[("PER", 0, 3), ("PER", 1, 2), ("PER", 0, 3)]],
            r"references\[0\] entities 0 and 2 are the same entity \('PER', 0, 3\)",
        ),
        (
            [[("LOC", 0, 1)], [("ORG", 2, 4), ("LOC", 0, 1), ("ORG", 2, 4)]],
            r"references\[1\] entities 0 and 2 are the same entity \('ORG', 2, 4\)",
        ),
    ],
)
def test_duplicates_are_named(spans, message):
    with pytest.raises(ValueError, match=message):
        M.check_duplicates(side(spans, [6] * len(spans)), "references", TYPES)


def test_same_offsets_of_two_types_or_in_two_sentences_are_not_duplicates():
    M.check_duplicates(side([[("PER", 0, 3), ("ORG", 0, 3)], [("PER", 0, 3)]], [6, 6]), "predictions", TYPES)


# ---------------------------------------------------------------------------- scorings


def test_token_items_are_a_set_per_side():
    gold = side([[("PER", 0, 3), ("PER", 1, 2), ("ORG", 1, 2)]], [4])  # tokens 0-2 PER (once), token 1 ORG
    pred = side([[("PER", 1, 2), ("PER", 1, 3)]], [4])
    correct, number, predicted = S.token_counts(gold, pred, len(TYPES))
    assert (correct.tolist(), number.tolist(), predicted.tolist()) == ([0, 0, 2], [0, 1, 3], [0, 0, 2])


def test_overlap_and_harem_on_nested_spans():
    gold = side([WORKED], [6])
    pred = side([[("ORG", 0, 4), ("LOC", 2, 4), ("LOC", 3, 4)]], [6])
    matching = M.match(gold, pred)
    hits = S.overlap_hits(gold, pred, matching, threshold=0.5)
    found, right, number, predicted = S.overlap_counts(gold, pred, hits, len(TYPES))
    assert (found.tolist(), right.tolist(), number.tolist(), predicted.tolist()) == (
        [1, 1, 0],
        [2, 1, 0],
        [1, 1, 0],
        [2, 1, 0],
    )  # LOC(3,4) in LOC(2,4): Dice 2/3
    harem = S.harem_counts(gold, pred, S.harem_alignment(gold, pred, matching))
    # LOC(2,4) has an identical prediction, so it is aligned with it alone (1); the others:
    # ORG(0,5)-ORG(0,4) 0.5 * 4/5, ORG(0,5)-LOC(3,4) 0.5 * 1/5
    assert harem["credit"] == 1.5 and harem["correct"] == 1
    assert (harem["missed"], harem["spurious"]) == (0, 0)


def test_error_listing_on_nested_spans():
    gold, pred = side([WORKED], [6]), side([[("ORG", 0, 4), ("LOC", 2, 4), ("LOC", 3, 4)]], [6])
    matching = M.match(gold, pred)
    listing = S.error_listing(S.Selection(gold, pred, TYPES, 0), matching, ner_core.OUTCOME_TABLE)
    assert listing["strict"]["correct"] == [{"sentence": 0, "gold": ["LOC", 2, 4], "pred": ["LOC", 2, 4]}]
    assert listing["strict"]["incorrect"] == [{"sentence": 0, "gold": ["ORG", 0, 5], "pred": ["ORG", 0, 4]}]
    assert listing["strict"]["spurious"] == [{"sentence": 0, "gold": None, "pred": ["LOC", 3, 4]}]


def _scorings(g, p):
    matching = M.match(g, p)
    hits = S.overlap_hits(g, p, matching)
    return {
        "token": [a.tolist() for a in S.token_counts(g, p, len(TYPES))],
        "overlap": [a.tolist() for a in S.overlap_counts(g, p, hits, len(TYPES))],
        "harem": S.harem_counts(g, p, S.harem_alignment(g, p, matching)),
        "muc": np.bincount(matching.scenario, minlength=len(ner_core.SCENARIOS)).tolist(),
    }


def test_scorings_are_identical_under_any_order_of_sentences():
    """``==`` with nested entities too: integer counts, the HAREM credit summed exactly."""
    rng = random.Random(8)
    for _ in range(100):
        gold, pred, lengths = random_nested(rng, 30, max_length=12, max_spans=5)
        order = list(range(len(lengths)))
        rng.shuffle(order)
        results = [
            _scorings(
                side([gold[i] for i in o], [lengths[i] for i in o]),
                side([pred[i] for i in o], [lengths[i] for i in o]),
            )
            for o in (range(len(lengths)), order)
        ]
        assert results[0] == results[1]


# ---------------------------------------------------------------------------- pathological overlap


def test_one_prediction_over_a_thousand_nested_gold_entities():
    n = 1000
    gold = side([[("PER", i, 2 * n - i) for i in range(n)]], [2 * n + 1])
    pred = side([[("PER", 0, 2 * n + 1)]], [2 * n + 1])
    matching = M.match(gold, pred)
    assert matching.gold.tolist() == [0] and len(matching.overlap_gold) == n  # the widest, most tokens shared


def test_nested_levels_shifted_by_one_token_all_match():
    n = 60
    gold = side([[("PER", i, 2 * n - i) for i in range(n)]], [2 * n + 2])
    pred = side([[("PER", i + 1, 2 * n - i + 1) for i in range(n)]], [2 * n + 2])
    matching = M.match(gold, pred)
    assert len(matching.gold) == n and len(matching.overlap_gold) == n * n
    # every level matched to itself or a neighbour, whichever pairing has the larger Dice sum
    assert sorted(matching.gold.tolist()) == sorted(matching.pred.tolist()) == list(range(n))
    assert max(abs(g - p) for g, p in zip(matching.gold.tolist(), matching.pred.tolist())) <= 1


def test_the_cost_table_in_the_docs_is_the_bench_output():
    """``docs/matching.md`` shows the table ``bench/matching.py`` wrote to ``bench/matching.md``."""
    with open(os.path.join(ROOT, "docs", "matching.md"), encoding="utf-8") as f:
        shown = re.search(r"<!-- matching-bench -->\n(.*?)\n<!-- /matching-bench -->", f.read(), re.S).group(
            1
        )
    with open(os.path.join(ROOT, "bench", "matching.md"), encoding="utf-8") as f:
        written = [line for line in f.read().splitlines() if line.startswith("|")]
    assert written and shown.splitlines() == written


def test_identical_offsets_beat_a_dice_coefficient_a_hair_below_one():
    """Gold ORG 0:n+1 and, inside it, PER 0:n; predicted LOC 0:n+1. Both pairs have another type;
    PER's Dice is 1 - 1/(2n+1), within the closeness step of 1 at n = 2**21: identical offsets still
    come first (not the leftmost, PER)."""
    n = 2**21
    gold = side([[("ORG", 0, n + 1), ("PER", 0, n)]], [n + 2])
    pred = side([[("LOC", 0, n + 1)]], [n + 2])
    matching = M.match(gold, pred)
    assert [entity(gold, g) for g in matching.gold.tolist()] == [("ORG", 0, n + 1)]
    assert ner_core.SCENARIOS[int(matching.scenario[0])] == "exact_other_type"
