"""The SemEval-2013 scenarios and the one-to-one matching policy, as tables."""

import json
import random

import numpy as np
import pytest
from nervaluate import Evaluator

from ner_recall.core import counts as ner_counts
from ner_recall.core import decoding as D
from ner_recall.core import matching as M
from ner_recall.core import registry
from ner_recall.core import vocabulary as ner_core
from ner_recall.families import scorings as S

NERVALUATE_MODE = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
OUTCOME_KEYS = ("correct", "incorrect", "partial", "missed", "spurious")

# Batista's six scenarios: (name, gold, prediction, expected outcome per mode)
SCENARIOS = [
    (
        "I exact match",
        ["B-PER", "I-PER", "O"],
        ["B-PER", "I-PER", "O"],
        {"strict": "correct", "exact": "correct", "partial": "correct", "type": "correct"},
    ),
    (
        "II spurious",
        ["O", "O", "O"],
        ["O", "B-PER", "O"],
        {"strict": "spurious", "exact": "spurious", "partial": "spurious", "type": "spurious"},
    ),
    (
        "III missed",
        ["O", "B-PER", "O"],
        ["O", "O", "O"],
        {"strict": "missed", "exact": "missed", "partial": "missed", "type": "missed"},
    ),
    (
        "IV wrong type",
        ["B-LOC", "I-LOC", "O"],
        ["B-ORG", "I-ORG", "O"],
        {"strict": "incorrect", "exact": "correct", "partial": "correct", "type": "incorrect"},
    ),
    (
        "V wrong boundaries",
        ["B-PER", "I-PER", "O"],
        ["O", "B-PER", "O"],
        {"strict": "incorrect", "exact": "incorrect", "partial": "partial", "type": "correct"},
    ),
    (
        "VI wrong type and boundaries",
        ["B-PER", "I-PER", "O"],
        ["O", "B-ORG", "O"],
        {"strict": "incorrect", "exact": "incorrect", "partial": "partial", "type": "incorrect"},
    ),
]


@pytest.mark.parametrize("name, gold, pred, expected", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_semeval_scenarios(metric, name, gold, pred, expected):
    muc = metric.compute(predictions=[pred], references=[gold])["muc"]
    nerval = Evaluator([gold], [pred], tags=["PER", "LOC", "ORG"], loader="list").evaluate()["overall"]
    for mode, outcome in expected.items():
        ours = {k: muc[mode][k] for k in OUTCOME_KEYS}
        assert ours == {k: int(k == outcome) for k in OUTCOME_KEYS}, mode
        assert ours == {k: getattr(nerval[NERVALUATE_MODE[mode]], k) for k in OUTCOME_KEYS}, mode


def test_partial_credit_is_one_half(metric):
    muc = metric.compute(predictions=[["O", "B-PER", "O"]], references=[["B-PER", "I-PER", "O"]])["muc"]
    assert muc["partial"]["precision"] == muc["partial"]["recall"] == 0.5
    assert muc["strict"]["precision"] == muc["exact"]["recall"] == 0.0
    assert muc["type"]["recall"] == 1.0


# Where spans overlap several on the other side: (name, gold, prediction, strict counts,
# (correct, incorrect, partial, missed, spurious) in partial and type modes)
AMBIGUOUS = [
    (
        "one prediction across two gold entities",
        ["B-PER", "I-PER", "O", "B-PER", "I-PER"],
        ["O", "B-PER", "I-PER", "I-PER", "O"],
        (0, 1, 0, 1, 0),
        (0, 0, 1, 1, 0),
        (1, 0, 0, 1, 0),
    ),
    (
        "prediction across two gold entities, the second of its type",
        ["B-PER", "I-PER", "B-LOC", "I-LOC"],
        ["B-LOC", "I-LOC", "I-LOC", "I-LOC"],
        (0, 1, 0, 1, 0),
        (0, 0, 1, 1, 0),
        (1, 0, 0, 1, 0),
    ),
    (
        "two predictions inside one gold entity",
        ["B-LOC", "I-LOC", "I-LOC", "I-LOC", "I-LOC"],
        ["B-LOC", "O", "B-LOC", "I-LOC", "I-LOC"],
        (0, 1, 0, 0, 1),
        (0, 0, 1, 0, 1),
        (1, 0, 0, 0, 1),
    ),
    (
        "a chain: the most pairs win over the largest overlap",
        ["B-PER", "I-PER", "I-PER", "B-PER", "I-PER", "I-PER", "I-PER", "I-PER", "O"],
        ["O", "O", "B-PER", "I-PER", "I-PER", "I-PER", "O", "B-PER", "I-PER"],
        (0, 2, 0, 0, 0),
        (0, 0, 2, 0, 0),
        (2, 0, 0, 0, 0),
    ),
]


@pytest.mark.parametrize("name, gold, pred, strict, partial, type_", AMBIGUOUS, ids=[a[0] for a in AMBIGUOUS])
def test_one_to_one_matching(metric, name, gold, pred, strict, partial, type_):
    muc = metric.compute(predictions=[pred], references=[gold])["muc"]
    for mode, expected in (("strict", strict), ("partial", partial), ("type", type_)):
        assert tuple(muc[mode][k] for k in OUTCOME_KEYS) == expected, mode


@pytest.mark.parametrize(
    "pred, matched",
    [
        (["B-LOC", "O", "B-LOC", "I-LOC", "I-LOC"], 1),  # overlaps of 1 and 3 tokens
        (["B-LOC", "I-LOC", "I-LOC", "O", "B-LOC"], 0),  # overlaps of 3 and 1 tokens
        (["B-LOC", "O", "O", "O", "B-LOC"], 0),  # a tie: the leftmost
        (["B-PER", "O", "O", "B-LOC", "O"], 1),  # the same type first
    ],
)
def test_matching_choice_within_a_chain(pred, matched):
    gold = ["B-LOC", "I-LOC", "I-LOC", "I-LOC", "I-LOC"]
    corpus = D.encode([pred], [gold])
    matching = M.match(D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus))
    assert matching.gold.tolist() == [0] and matching.pred.tolist() == [matched]


def test_chain_matching_is_mirror_invariant(metric):
    """Reversing every sentence mirrors the spans; a position-only policy gives the same counts."""
    rng = random.Random(7)
    for _ in range(150):
        gold = [rng.choice(["O", "B-A", "I-A", "B-B", "I-B"]) for _ in range(9)]
        pred = [rng.choice(["O", "B-A", "I-A", "B-B", "I-B"]) for _ in range(9)]
        gold_r = metric.decode(gold)
        pred_r = metric.decode(pred)
        # mirror spans, then write them back as IOB2 tags
        mirrored = [_tags(_mirror(gold_r, 9), 9), _tags(_mirror(pred_r, 9), 9)]
        a = metric.compute(predictions=[_tags(pred_r, 9)], references=[_tags(gold_r, 9)])["muc"]
        b = metric.compute(predictions=[mirrored[1]], references=[mirrored[0]])["muc"]
        for mode in a:
            assert {k: a[mode][k] for k in OUTCOME_KEYS} == {k: b[mode][k] for k in OUTCOME_KEYS}, (
                gold,
                pred,
            )


def _mirror(spans, n):
    return [(s.label, n - s.end, n - s.start) for s in spans]


def _tags(spans, n):
    tags = ["O"] * n
    for label, start, end in spans:
        tags[start] = f"B-{label}"
        tags[start + 1 : end] = [f"I-{label}"] * (end - start - 1)
    return tags


# ---------------------------------------------------------------------------- the chain pass against the
# quadratic implementation it replaced (kept here as the reference)


def _reference_match(gold, pred):
    """The former matching: each chain solved by a quadratic heaviest increasing subsequence."""
    g, p = M._candidates(gold, pred)
    gold_degree, pred_degree = np.bincount(g, minlength=len(gold)), np.bincount(p, minlength=len(pred))
    keep = (gold_degree[g] == 1) & (pred_degree[p] == 1)
    if not keep.all():
        idx = np.flatnonzero(~keep)
        gi, pi = g[idx], p[idx]
        new_chain = np.ones(len(idx), dtype=bool)
        new_chain[1:] = (gi[1:] != gi[:-1]) & (pi[1:] != pi[:-1])
        overlap = np.array(
            [closeness(gold, pred, a, b) for a, b in zip(gi.tolist(), pi.tolist())], dtype=np.int64
        )
        same = (gold.type[gi] == pred.type[pi]).astype(np.int64)
        first = np.flatnonzero(new_chain)
        length = np.diff(np.append(first, len(idx)))
        for n in np.unique(length).tolist():
            keep[idx[_reference_chains(first[length == n], n, gi, pi, same, overlap)]] = True
    return g[keep], p[keep]


def closeness(gold, pred, a, b):
    """The tie rule's third key, by hand: identical offsets first, then the Dice coefficient (in
    steps of 2**-20, rounded down)."""
    gs, ge, ps, pe = (int(x) for x in (gold.start[a], gold.end[a], pred.start[b], pred.end[b]))
    if (gs, ge) == (ps, pe):
        return 2**20
    shared = min(ge, pe) - max(gs, ps)
    return min((2 * shared * 2**20) // ((ge - gs) + (pe - ps)), 2**20 - 1)


def _reference_chains(first, n, gi, pi, same, overlap):
    cols = first[:, None] + np.arange(n)
    scale = int(overlap[cols].sum(axis=1).max()) + 1
    weight = (scale * (n + 1) + same[cols] * scale + overlap[cols]).astype(object)
    g, p = gi[cols], pi[cols]
    back = np.full(g.shape, -1)
    for k in range(1, n):
        compatible = (g[:, :k] < g[:, k : k + 1]) & (p[:, :k] < p[:, k : k + 1])
        total = np.where(compatible, weight[:, :k], -1)
        j = np.array([row.tolist().index(max(row.tolist())) for row in total])
        base = total[np.arange(len(j)), j]
        back[:, k] = np.where(base >= 0, j, -1)
        weight[:, k] += np.maximum(base, 0)
    rows = np.arange(len(first))
    k = np.array([row.tolist().index(max(row.tolist())) for row in weight])
    chosen = np.zeros(cols.shape, dtype=bool)
    while len(rows):
        chosen[rows, k] = True
        k = back[rows, k]
        rows, k = rows[k >= 0], k[k >= 0]
    return cols[chosen]


def random_flat_side(rng, lengths, n_types, density):
    """SpanArrays of random non-overlapping spans (1-4 tokens), sentences laid out flat."""
    start, end, type_, sentence, offset = [], [], [], [], []
    base = 0
    for s, n in enumerate(lengths):
        i = 0
        while i < n:
            if rng.random() < density:
                e = min(n, i + rng.randint(1, 4))
                start.append(base + i), end.append(base + e), type_.append(rng.randrange(n_types))
                sentence.append(s), offset.append(i)
                i = e + (rng.random() < 0.3)  # adjacent entities or a gap
            else:
                i += 1
        base += n + 1
    return ner_core.SpanArrays(*(np.array(a, dtype=np.int64) for a in (start, end, type_, sentence, offset)))


def _random_flat_corpus(rng, max_sentences=4, max_length=12):
    lengths = [rng.randint(0, max_length) for _ in range(rng.randint(1, max_sentences))]
    n_types, density = rng.randint(1, 3), rng.choice([0.3, 0.6, 0.9])
    return random_flat_side(rng, lengths, n_types, density), random_flat_side(rng, lengths, n_types, density)


def test_chain_pass_equals_the_quadratic_reference_on_random_flat_corpora():
    """Both the flat path and the general (nested-input) path give the former matching."""
    rng = random.Random(13)
    for _ in range(3000):
        gold, pred = _random_flat_corpus(rng)
        expected = [a.tolist() for a in _reference_match(gold, pred)]
        matching = M.match(gold, pred)
        assert [matching.gold.tolist(), matching.pred.tolist()] == expected, (gold, pred)
        g, p = M._candidates(gold, pred)
        keep = M._nested_resolution(g, p, gold, pred)
        assert [g[keep].tolist(), p[keep].tolist()] == expected, (gold, pred)


@pytest.mark.parametrize("seed", range(6))
def test_long_chains_equal_the_quadratic_reference(seed):
    """Chains of hundreds of pairs, some finished one by one after the others."""
    rng = random.Random(seed)
    lengths = [rng.randint(0, 20) for _ in range(20)] + [rng.randint(300, 900) for _ in range(2)]
    rng.shuffle(lengths)
    gold, pred = random_flat_side(rng, lengths, 2, 0.95), random_flat_side(rng, lengths, 2, 0.95)
    matching = M.match(gold, pred)
    assert [matching.gold.tolist(), matching.pred.tolist()] == [
        a.tolist() for a in _reference_match(gold, pred)
    ]


def test_matching_in_two_halves_equals_one_pass(monkeypatch):
    """Large flat sides are matched in two halves, in two threads, cut where no span crosses:
    every array of the matching is the one pass's, also when the middle cuts a chain (the cut
    moves on) or one side is empty."""
    rng = random.Random(29)
    cases = [_random_flat_corpus(rng, max_sentences=9, max_length=30) for _ in range(400)]
    lengths = [rng.randint(300, 900) for _ in range(3)]
    cases.append((random_flat_side(rng, lengths, 2, 0.95), random_flat_side(rng, lengths, 2, 0.95)))
    empty = ner_core.SpanArrays(*(np.zeros(0, dtype=np.int64),) * 5)
    cases += [(cases[0][0], empty), (empty, cases[0][1])]
    one_pass = [M.match(gold, pred) for gold, pred in cases]
    monkeypatch.setattr(M, "PARALLEL_SPANS", 0)
    split = 0
    for (gold, pred), expected in zip(cases, one_pass):
        split += M._halves(gold, pred) not in (None, (0, 0)) if len(gold) + len(pred) else 0
        got = M.match(gold, pred)
        assert [a.tolist() for a in got] == [a.tolist() for a in expected], (gold, pred)
        assert [a.dtype for a in got] == [a.dtype for a in expected]
    assert split > 300  # most cases really were cut


def test_a_long_chain_of_shifted_entities_matches_every_entity():
    n = 5000
    gold = ner_core.SpanArrays(
        np.arange(n) * 2, np.arange(n) * 2 + 2, np.zeros(n, int), np.zeros(n, int), np.arange(n) * 2
    )
    pred = ner_core.SpanArrays(
        np.arange(n) * 2 + 1, np.arange(n) * 2 + 3, np.zeros(n, int), np.zeros(n, int), np.arange(n) * 2 + 1
    )
    matching = M.match(gold, pred)
    assert (
        matching.gold.tolist() == matching.pred.tolist() == list(range(n))
    )  # each with the one to its right


# ---------------------------------------------------------------------------- order of sentences


TAG_CHOICES = ["O", "O", "B-A", "I-A", "B-B", "I-B", "B-C", "I-C"]


def _permuted_equal(a, b, permutation):
    """``a`` and ``b`` equal, ``b``'s error listing mapped back to ``a``'s sentence numbers."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _permuted_equal(a[key], b[key], permutation)
    elif isinstance(a, list) and a and isinstance(a[0], dict):
        key = lambda e: json.dumps(e, sort_keys=True)  # noqa: E731
        mapped = [dict(e, sentence=permutation[e["sentence"]]) for e in b]
        assert sorted(a, key=key) == sorted(mapped, key=key)
    else:
        assert type(a) is type(b) and a == b, (a, b)


def _families(preds, refs):
    """Every score family and the error listing, from the core functions (no evaluate)."""
    corpus = D.encode(preds, refs)
    gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    options = S.check_scoring_options(scores=list(registry.selectable()), errors=True)
    selection = S.select_and_relabel(corpus, gold, pred, options)
    gold, pred, types = selection.gold, selection.pred, selection.types
    matching = M.match(gold, pred)
    counts = ner_counts.count(
        gold, pred, matching, types, selection.tokens_correct, int(corpus.lengths.sum())
    )
    hits = S.overlap_hits(gold, pred, matching)
    alignment = S.harem_alignment(gold, pred, matching)
    return {
        "seqeval": ner_counts.seqeval_scores(counts),
        "muc": ner_counts.muc_scores(counts),
        "token": list(map(np.ndarray.tolist, S.token_counts(gold, pred, len(types)))),
        "overlap": list(map(np.ndarray.tolist, S.overlap_counts(gold, pred, hits, len(types)))),
        "harem": S.harem_counts(gold, pred, alignment),
        "errors": S.error_listing(selection, matching, ner_core.OUTCOME_TABLE, hits, alignment),
    }


def test_every_family_is_identical_under_any_order_of_sentences():
    """``==``, not approximately: the HAREM credit is summed exactly, counts are integers."""
    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(2, 25)
        lengths = [rng.randint(1, 14) for _ in range(n)]
        refs = [[rng.choice(TAG_CHOICES) for _ in range(k)] for k in lengths]
        preds = [[rng.choice(TAG_CHOICES) for _ in range(k)] for k in lengths]
        order = list(range(n))
        rng.shuffle(order)
        a = _families(preds, refs)
        b = _families([preds[i] for i in order], [refs[i] for i in order])
        _permuted_equal(a, b, order)
