"""The SemEval-2013 scenarios and the one-to-one matching policy, as tables."""

import random

import pytest
from nervaluate import Evaluator

import ner_decoding as D
import ner_matching as M

NERVALUATE_MODE = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
OUTCOME_KEYS = ("correct", "incorrect", "partial", "missed", "spurious")

# Batista's six scenarios: (name, gold, prediction, expected outcome per mode)
SCENARIOS = [
    ("I exact match", ["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"],
     {"strict": "correct", "exact": "correct", "partial": "correct", "type": "correct"}),
    ("II spurious", ["O", "O", "O"], ["O", "B-PER", "O"],
     {"strict": "spurious", "exact": "spurious", "partial": "spurious", "type": "spurious"}),
    ("III missed", ["O", "B-PER", "O"], ["O", "O", "O"],
     {"strict": "missed", "exact": "missed", "partial": "missed", "type": "missed"}),
    ("IV wrong type", ["B-LOC", "I-LOC", "O"], ["B-ORG", "I-ORG", "O"],
     {"strict": "incorrect", "exact": "correct", "partial": "correct", "type": "incorrect"}),
    ("V wrong boundaries", ["B-PER", "I-PER", "O"], ["O", "B-PER", "O"],
     {"strict": "incorrect", "exact": "incorrect", "partial": "partial", "type": "correct"}),
    ("VI wrong type and boundaries", ["B-PER", "I-PER", "O"], ["O", "B-ORG", "O"],
     {"strict": "incorrect", "exact": "incorrect", "partial": "partial", "type": "incorrect"}),
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
    ("one prediction across two gold entities",
     ["B-PER", "I-PER", "O", "B-PER", "I-PER"], ["O", "B-PER", "I-PER", "I-PER", "O"],
     (0, 1, 0, 1, 0), (0, 0, 1, 1, 0), (1, 0, 0, 1, 0)),
    ("prediction across two gold entities, the second of its type",
     ["B-PER", "I-PER", "B-LOC", "I-LOC"], ["B-LOC", "I-LOC", "I-LOC", "I-LOC"],
     (0, 1, 0, 1, 0), (0, 0, 1, 1, 0), (1, 0, 0, 1, 0)),
    ("two predictions inside one gold entity",
     ["B-LOC", "I-LOC", "I-LOC", "I-LOC", "I-LOC"], ["B-LOC", "O", "B-LOC", "I-LOC", "I-LOC"],
     (0, 1, 0, 0, 1), (0, 0, 1, 0, 1), (1, 0, 0, 0, 1)),
    ("a chain: the most pairs win over the largest overlap",
     ["B-PER", "I-PER", "I-PER", "B-PER", "I-PER", "I-PER", "I-PER", "I-PER", "O"],
     ["O", "O", "B-PER", "I-PER", "I-PER", "I-PER", "O", "B-PER", "I-PER"],
     (0, 2, 0, 0, 0), (0, 0, 2, 0, 0), (2, 0, 0, 0, 0)),
]


@pytest.mark.parametrize("name, gold, pred, strict, partial, type_", AMBIGUOUS, ids=[a[0] for a in AMBIGUOUS])
def test_one_to_one_matching(metric, name, gold, pred, strict, partial, type_):
    muc = metric.compute(predictions=[pred], references=[gold])["muc"]
    for mode, expected in (("strict", strict), ("partial", partial), ("type", type_)):
        assert tuple(muc[mode][k] for k in OUTCOME_KEYS) == expected, mode


@pytest.mark.parametrize("pred, matched", [
    (["B-LOC", "O", "B-LOC", "I-LOC", "I-LOC"], 1),  # overlaps of 1 and 3 tokens
    (["B-LOC", "I-LOC", "I-LOC", "O", "B-LOC"], 0),  # overlaps of 3 and 1 tokens
    (["B-LOC", "O", "O", "O", "B-LOC"], 0),  # a tie: the leftmost
    (["B-PER", "O", "O", "B-LOC", "O"], 1),  # the same type first
])
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
            assert {k: a[mode][k] for k in OUTCOME_KEYS} == {k: b[mode][k] for k in OUTCOME_KEYS}, (gold, pred)


def _mirror(spans, n):
    return [(s.label, n - s.end, n - s.start) for s in spans]


def _tags(spans, n):
    tags = ["O"] * n
    for label, start, end in spans:
        tags[start] = f"B-{label}"
        tags[start + 1:end] = [f"I-{label}"] * (end - start - 1)
    return tags
