"""Doubt in the gold (``ner_doubt``): vague labels, ALT groups, optional entities, several
references, resolved for the predictions before any family counts (docs/harem.md). Expected
numbers are worked by hand from HAREM's rule: the alternative best for the system."""

import random

import pytest

from conftest import METRIC_PATH


@pytest.fixture(scope="module")
def spans():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def E(label, start, end, **extra):
    return {"label": label, "start": start, "end": end, **extra}


def ALT(*alternatives):
    return {"alternatives": [list(a) for a in alternatives]}


# "Rua da Prata" as one LOC, or "Prata" alone: (gold item, predictions, strict correct, possible, actual)
CASES = [
    (
        "ALT, the prediction fits the first",
        [ALT([E("LOC", 0, 3)], [E("LOC", 2, 3)])],
        [E("LOC", 0, 3)],
        1,
        1,
        1,
    ),
    (
        "ALT, the prediction fits the second",
        [ALT([E("LOC", 0, 3)], [E("LOC", 2, 3)])],
        [E("LOC", 2, 3)],
        1,
        1,
        1,
    ),
    # neither exact: the one-entity alternatives tie on fit; the first is taken, the prediction partial
    ("ALT, between alternatives", [ALT([E("LOC", 0, 3)], [E("LOC", 2, 3)])], [E("LOC", 1, 3)], 0, 1, 1),
    # no prediction: the empty alternative misses nothing
    ("ALT with an empty alternative", [ALT([E("LOC", 0, 3)], [])], [], 0, 0, 0),
    ("ALT, empty loses to a found entity", [ALT([E("LOC", 0, 3)], [])], [E("LOC", 0, 3)], 1, 1, 1),
    (
        "ALT, two entities beat one",
        [ALT([E("LOC", 0, 3)], [E("LOC", 0, 1), E("LOC", 2, 3)])],
        [E("LOC", 0, 1), E("LOC", 2, 3)],
        2,
        2,
        2,
    ),
    ("vague, the first type", [E(["LOC", "ORG"], 0, 2)], [E("LOC", 0, 2)], 1, 1, 1),
    ("vague, the second type", [E(["LOC", "ORG"], 0, 2)], [E("ORG", 0, 2)], 1, 1, 1),
    ("vague, a third type is wrong", [E(["LOC", "ORG"], 0, 2)], [E("PER", 0, 2)], 0, 1, 1),
    ("optional found: ignored", [E("LOC", 0, 2, optional=True)], [E("LOC", 0, 2)], 0, 0, 0),
    (
        "optional not found: not missed",
        [E("LOC", 0, 2, optional=True), E("PER", 4, 5)],
        [E("PER", 4, 5)],
        1,
        1,
        1,
    ),
]


@pytest.mark.parametrize("name, gold, pred, correct, possible, actual", CASES, ids=[c[0] for c in CASES])
def test_doubt_by_hand(spans, name, gold, pred, correct, possible, actual):
    strict = spans.compute(predictions=[pred], references=[gold])["muc"]["strict"]
    assert (strict["correct"], strict["possible"], strict["actual"]) == (correct, possible, actual)


def test_several_references_score_as_the_best(spans):
    refs = {"alternatives": [[E("PER", 0, 2)], [E("PER", 0, 1), E("ORG", 3, 4)]]}
    got = spans.compute(predictions=[[E("PER", 0, 1), E("ORG", 3, 4)]], references=[refs])
    assert got["overall_f1"] == 1.0 and got["doubt"]["references"] == 1
    got = spans.compute(predictions=[[E("PER", 0, 2)]], references=[refs])
    assert got["overall_f1"] == 1.0


def test_every_family_sees_the_resolved_gold(spans):
    gold = [[ALT([E("LOC", 0, 3)], [E("LOC", 2, 3)]), E(["PER", "ORG"], 5, 6)]]
    pred = [[E("LOC", 2, 3), E("ORG", 5, 6)]]
    plain = [[E("LOC", 2, 3), E("ORG", 5, 6)]]
    scores = ["seqeval", "muc", "token", "overlap", "harem", "confusion"]
    doubtful = spans.compute(predictions=pred, references=gold, scores=scores)
    resolved = spans.compute(predictions=pred, references=plain, scores=scores)
    assert {k: v for k, v in doubtful.items() if k != "doubt"} == resolved
    assert doubtful["doubt"]["groups"] == 1 and doubtful["doubt"]["chosen"] == {"1": 1}


def _random(rng, n):
    gold, pred = [], []
    for _ in range(n):
        g, p = [], []
        for s in range(0, 30, 6):
            r = rng.random()
            if r < 0.3:
                g.append(ALT([E("A", s, s + 3)], [E("A", s, s + 1), E("B", s + 2, s + 3)], []))
            elif r < 0.5:
                g.append(E(["A", "B"], s, s + 2))
            elif r < 0.6:
                g.append(E("A", s, s + 2, optional=True))
            else:
                g.append(E(rng.choice("AB"), s, s + 2))
            if rng.random() < 0.7:
                a = rng.choice([0, 1, 2])
                p.append(E(rng.choice("AB"), s + a, s + a + 1 + rng.choice([0, 1, 2])))
        gold.append(g)
        pred.append(p)
    return gold, pred


@pytest.mark.parametrize("seed", range(3))
def test_order_does_not_matter(spans, seed):
    rng = random.Random(seed)
    gold, pred = _random(rng, 30)
    base = spans.compute(predictions=pred, references=gold, scores=["seqeval", "muc", "harem"])
    order = list(range(30))
    rng.shuffle(order)

    def shuffle(example):
        out = [
            dict(x, alternatives=[a[::-1] for a in x["alternatives"]]) if "alternatives" in x else x
            for x in example
        ]
        return out[::-1]

    got = spans.compute(
        predictions=[pred[i][::-1] for i in order],
        references=[shuffle(gold[i]) for i in order],
        scores=["seqeval", "muc", "harem"],
    )
    assert got == base
    for mode in ("strict", "partial"):
        row = base["muc"][mode]
        per = row["per_type"].values()
        assert sum(t["possible"] for t in per) == row["possible"]
        assert sum(t["actual"] for t in per) == row["actual"]


def test_flat_input_is_unchanged(spans):
    gold, pred = [[E("A", 0, 2), E("B", 3, 4)]], [[E("A", 0, 2)]]
    got = spans.compute(predictions=pred, references=gold)
    assert "doubt" not in got and got["overall_recall"] == 0.5


@pytest.mark.parametrize(
    "gold, message",
    [
        ([{"alternatives": [[E("A", 0, 1)]]}], r"references\[0\]\[0\]: an ALT group needs at least two"),
        (
            [{"alternatives": [[E("A", 0, 1)], "x"]}],
            r"references\[0\]\[0\]\['alternatives'\]\[1\] must be a list",
        ),
        ([{"alternatives": [[E("A", 0, 1)], [E("A", 1, 0)]]}], r"\['alternatives'\]\[1\]\[0\] .*start < end"),
        ([{"alternatives": [[E("A", 0, 1)], [ALT([], [])]]}], r"ALT groups do not nest"),
        ([{"alternatives": [[]], "label": "A"}], r"the one key 'alternatives'"),
        ([E([], 0, 1)], r"references\[0\]\[0\] .*non-empty list"),
        ([E(["A", "A"], 0, 1)], r"lists a type twice"),
        ([E("A", 0, 1, optional="yes")], r"optional must be True or False"),
    ],
)
def test_bad_doubt_is_named_and_the_metric_stays_usable(spans, gold, message):
    with pytest.raises(ValueError, match=message):
        spans.compute(predictions=[[]], references=[gold])
    assert spans.compute(predictions=[[E("A", 0, 1)]], references=[[E("A", 0, 1)]])["overall_f1"] == 1.0


def test_doubt_in_predictions_and_in_the_stream_is_refused(spans):
    with pytest.raises(ValueError, match=r"predictions\[0\]\[0\] .*label must be a non-empty str"):
        spans.compute(predictions=[[E(["A", "B"], 0, 1)]], references=[[E("A", 0, 1)]])
    with pytest.raises(ValueError, match="add_batch and add store plain entities"):
        spans.add_batch(predictions=[[]], references=[[E(["A", "B"], 0, 1)]])
    with pytest.raises(ValueError, match="a state holds plain entities"):
        spans.state(predictions=[[]], references=[[E("A", 0, 1, optional=True)]])
    assert spans.compute(predictions=[[E("A", 0, 1)]], references=[[E("A", 0, 1)]])["overall_f1"] == 1.0


def test_the_docs_cost_is_the_bench_output():
    import os
    import re

    from conftest import ROOT

    bench = open(os.path.join(ROOT, "bench", "doubt.md"), encoding="utf-8").read()
    plain, doubt, ratio = re.search(
        r"\| plain \| ([\d.]+) .*\n\| with doubt \| ([\d.]+) \| ([\d.]+) \|", bench
    ).groups()
    docs = open(os.path.join(ROOT, "docs", "harem.md"), encoding="utf-8").read()
    assert f"{ratio} times the CPU" in docs and f"({float(doubt):.2f} s against {float(plain):.2f} s)" in docs
    assert float(ratio) <= 2.0
