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


# ---------------------------------------------------------------------------- the resolution and its report


def _resolve(pred, gold):
    from ner_recall.core import doubt as ner_doubt

    return ner_doubt.resolve([pred], [gold])


# (name, gold, predictions, the alternative chosen): HAREM's "best for the system" made exact
CHOICES = [
    ("a tie takes the first", ALT([E("A", 0, 3)], [E("A", 0, 3)]), [], 0),
    (
        "a tie takes the first, predictions overlapping",
        ALT([E("A", 0, 3)], [E("A", 1, 3)]),
        [E("A", 0, 2)],
        0,
    ),
    ("an exact pair first", ALT([E("A", 0, 1), E("A", 1, 3)], [E("A", 0, 3)]), [E("A", 0, 3)], 1),
    ("the type must be allowed for exact", ALT([E("B", 0, 3)], [E("A", 0, 3)]), [E("A", 0, 3)], 1),
    (
        "exact beats fewer errors",
        ALT([E("A", 0, 1)], [E("A", 0, 1), E("A", 2, 3), E("A", 4, 5)]),
        [E("A", 0, 1)],
        0,
    ),
    ("then fewer missed and spurious", ALT([E("A", 0, 2), E("A", 3, 4)], [E("A", 0, 4)]), [E("A", 1, 3)], 1),
    ("then more overlapping pairs", ALT([E("A", 0, 2)], [E("A", 0, 1), E("A", 1, 2)]), [E("A", 0, 2)], 0),
    ("an empty alternative misses nothing", ALT([E("A", 0, 2)], []), [], 1),
    ("the last of three", ALT([E("A", 0, 3)], [E("A", 0, 1)], [E("A", 2, 3)]), [E("A", 2, 3)], 2),
    ("fewer missed, not more found", ALT([E("A", 0, 2), E("A", 2, 4)], [E("A", 6, 7)]), [E("A", 0, 4)], 0),
    ("fewer spurious, not more used", ALT([E("A", 0, 4)], [E("A", 6, 7)]), [E("A", 0, 2), E("A", 2, 4)], 0),
]


@pytest.mark.parametrize("name, group, pred, chosen", CHOICES, ids=[c[0] for c in CHOICES])
def test_each_alt_group_takes_the_alternative_best_for_the_predictions(name, group, pred, chosen):
    out_pred, out_gold, report = _resolve(pred, [group])
    assert out_gold == [group["alternatives"][chosen]] and out_pred == [pred]
    assert (report["groups"], report["chosen"]) == (1, {str(chosen): 1})


def test_a_group_looks_only_at_the_predictions_on_its_stretch():
    """A prediction elsewhere in the example is neither spurious nor used for this group."""
    group = ALT([E("A", 0, 2)], [E("A", 0, 1), E("A", 1, 2)])
    _, gold, report = _resolve([E("A", 0, 1), E("A", 1, 2), E("B", 8, 9)], [group, E("B", 8, 9)])
    assert gold == [[E("A", 0, 1), E("A", 1, 2), E("B", 8, 9)]] and report["chosen"] == {"1": 1}


# (name, vague entity, predictions, the label it takes)
VAGUE = [
    ("no prediction: the first listed", E(["B", "A"], 0, 2), [], "B"),
    ("an unlisted type is no help", E(["B", "A"], 0, 2), [E("C", 0, 2)], "B"),
    ("a prediction on the same span", E(["B", "A"], 0, 2), [E("A", 0, 2)], "A"),
    ("the same span beats a larger share", E(["B", "A"], 0, 4), [E("B", 0, 3), E("A", 0, 4)], "A"),
    ("the first on the same span", E(["B", "A"], 0, 2), [E("A", 0, 2), E("B", 0, 2)], "A"),
    ("else the most shared positions", E(["B", "A"], 0, 4), [E("B", 0, 1), E("A", 1, 5)], "A"),
    ("a tie on shared: the earliest start", E(["B", "A"], 1, 5), [E("A", 3, 7), E("B", 0, 3)], "B"),
    ("a tie on both: the first listed prediction", E(["B", "A"], 1, 5), [E("A", 0, 3), E("B", 0, 3)], "A"),
    ("a prediction not overlapping is no help", E(["B", "A"], 0, 2), [E("A", 2, 4)], "B"),
    ("the same span beats an earlier cover", E(["B", "A"], 2, 4), [E("B", 0, 6), E("A", 2, 4)], "A"),
]


@pytest.mark.parametrize("name, entity, pred, label", VAGUE, ids=[c[0] for c in VAGUE])
def test_a_vague_label_takes_the_type_of_the_closest_prediction(name, entity, pred, label):
    _, gold, report = _resolve(pred, [entity])
    assert gold == [[dict(entity, label=label)]] and report["vague"] == 1


# (name, gold, predictions, predictions kept, found, not found, ignored)
OPTIONAL = [
    ("found by the same span", [E("A", 0, 2, optional=True)], [E("A", 0, 2)], [], 1, 0, 1),
    ("found by an overlap, any type", [E("A", 0, 2, optional=True)], [E("B", 1, 3)], [], 1, 0, 1),
    ("touching is not overlapping", [E("A", 0, 2, optional=True)], [E("B", 2, 3)], [E("B", 2, 3)], 0, 1, 0),
    (
        "a prediction also on a plain entity stays",
        [E("A", 0, 2, optional=True), E("B", 2, 4)],
        [E("B", 1, 3)],
        [E("B", 1, 3)],
        1,
        0,
        0,
    ),
    (
        "two predictions on one optional: both ignored",
        [E("A", 0, 4, optional=True)],
        [E("A", 0, 1), E("A", 2, 3)],
        [],
        1,
        0,
        2,
    ),
    (
        "one prediction on two optionals: both found",
        [E("A", 0, 2, optional=True), E("A", 2, 4, optional=True)],
        [E("A", 1, 3)],
        [],
        2,
        0,
        1,
    ),
    ("nothing predicted: not found", [E("A", 0, 2, optional=True)], [], [], 0, 1, 0),
]


@pytest.mark.parametrize(
    "name, gold, pred, kept, found, not_found, ignored", OPTIONAL, ids=[c[0] for c in OPTIONAL]
)
def test_an_optional_entity_and_the_predictions_on_it_only(name, gold, pred, kept, found, not_found, ignored):
    out_pred, out_gold, report = _resolve(pred, gold)
    assert out_pred == [kept] and out_gold == [[e for e in gold if not e.get("optional")]]
    assert (report["optional_found"], report["optional_not_found"], report["predictions_ignored"]) == (
        found,
        not_found,
        ignored,
    )


def test_the_report_of_a_corpus_adds_its_examples():
    from ner_recall.core import doubt as ner_doubt

    gold = [
        [ALT([E("A", 0, 2)], [E("A", 0, 1)]), E(["A", "B"], 3, 4)],
        [ALT([E("A", 0, 2)], [E("A", 0, 1)]), E("B", 5, 6, optional=True)],
        {"alternatives": [[E("A", 0, 1)], [E("B", 0, 1)]]},
        [E("A", 0, 1)],
    ]
    pred = [[E("A", 0, 1)], [E("A", 0, 2), E("B", 5, 6)], [E("B", 0, 1)], [E("A", 0, 1)]]
    out_pred, out_gold, report = ner_doubt.resolve(pred, gold)
    assert report == {
        "groups": 2,
        "chosen": {"0": 1, "1": 1},
        "vague": 1,
        "references": 1,
        "optional_found": 1,
        "optional_not_found": 0,
        "predictions_ignored": 1,
    }
    assert out_gold == [[E("A", 0, 1), E("A", 3, 4)], [E("A", 0, 2)], [E("B", 0, 1)], [E("A", 0, 1)]]
    assert out_pred[1] == [E("A", 0, 2)] and out_gold[3] is gold[3]


@pytest.mark.parametrize(
    "queries, intervals, expected",
    [
        ([E("q", 2, 5)], [E("a", 0, 2), E("a", 5, 6)], [[]]),  # touching on either side
        ([E("q", 2, 5)], [E("a", 0, 3), E("a", 4, 9), E("a", 2, 5), E("a", 0, 9)], [[0, 1, 2, 3]]),
        ([E("q", 0, 1), E("q", 5, 6), E("q", 3, 4)], [E("a", 0, 10), E("a", 2, 4)], [[0], [0], [0, 1]]),
        ([], [E("a", 0, 1)], []),
        ([E("q", 0, 1)], [], [[]]),
    ],
)
def test_overlapping_finds_every_pair_whatever_the_nesting(queries, intervals, expected):
    from ner_recall.core import doubt as ner_doubt

    assert ner_doubt.overlapping(queries, intervals) == expected


@pytest.mark.parametrize("n", [10, 100, 1000])
def test_resolving_one_example_does_work_linear_in_its_groups(monkeypatch, n):
    """4,000 ALT groups in one example took 14 s (each group scanned every prediction): the
    entities and predictions handed to the overlap search, over the whole resolution, grow as the
    example does."""
    from ner_recall.core import doubt as ner_doubt

    work = []
    real = ner_doubt.overlapping

    def counted(queries, intervals):
        work.append(len(queries) + len(intervals))
        return real(queries, intervals)

    monkeypatch.setattr(ner_doubt, "overlapping", counted)
    gold = [ALT([E("A", 10 * k, 10 * k + 4)], [E("A", 10 * k, 10 * k + 2)]) for k in range(n)]
    pred = [E("A", 10 * k, 10 * k + 2) for k in range(n)]
    _, out, report = ner_doubt.resolve([pred], [gold])
    assert report["chosen"] == {"1": n} and out == [pred]
    assert sum(work) <= 8 * n + 8


def test_a_nested_group_is_named_by_its_place():
    from ner_recall.core import doubt as ner_doubt

    nested = ALT([E("A", 0, 1)], [E("A", 0, 1), ALT([E("A", 0, 1)], [])])
    with pytest.raises(ValueError) as error:
        ner_doubt.check_doubt([[], [E("B", 3, 4), nested]])
    assert str(error.value) == "references[1][1]['alternatives'][1][1]: ALT groups do not nest"


def test_the_checked_references_hold_plain_stand_ins_at_the_places_of_doubt():
    """For the type checks of plain entities: a group by a one-token stand-in, a vague label by its
    first type, an optional entity without its flag; plain examples as they are."""
    from ner_recall.core import doubt as ner_doubt

    plain = [E("A", 0, 1)]
    checked = ner_doubt.check_doubt(
        [[ALT([E("A", 2, 3)], []), E(["BB", "C"], 4, 6), E("DATE", 7, 8, optional=True)], plain]
    )
    assert checked == [
        [{"label": "doubt", "start": 0, "end": 1}, E("BB", 4, 6), E("DATE", 7, 8)],
        plain,
    ]
    assert checked[1] is plain


# ---------------------------------------------------------------------------- the checks, message by message

CHECKS = [
    (
        ALT([5], []),
        "references[0][0]['alternatives'][0][0] 5: an entity must be a dict with keys ['label', 'start', 'end']",
    ),
    (
        ALT([E("A", 0, 1, color=1)], []),
        "references[0][0]['alternatives'][0][0] {'label': 'A', 'start': 0, 'end': 1, 'color': 1}: unknown key 'color'",
    ),
    (
        ALT([E("A", 0, 1, b=1, a=2)], []),
        "references[0][0]['alternatives'][0][0] {'label': 'A', 'start': 0, 'end': 1, 'b': 1, 'a': 2}: unknown key 'a'",
    ),
    (
        ALT([E(5, 0, 1)], []),
        "references[0][0]['alternatives'][0][0] {'label': 5, 'start': 0, 'end': 1}: the label must be a non-empty str or a non-empty list of them",
    ),
    (
        E(["A", ""], 0, 1),
        "references[0][0] {'label': ['A', ''], 'start': 0, 'end': 1}: the label must be a non-empty str or a non-empty list of them",
    ),
    (
        E([], 0, 1),
        "references[0][0] {'label': [], 'start': 0, 'end': 1}: the label must be a non-empty str or a non-empty list of them",
    ),
    (
        E(["A", "A"], 0, 1),
        "references[0][0] {'label': ['A', 'A'], 'start': 0, 'end': 1}: a vague label lists a type twice",
    ),
    (
        E(["A", "B"], True, 2),
        "references[0][0] {'label': ['A', 'B'], 'start': True, 'end': 2}: start must be an int",
    ),
    (
        E(["A", "B"], 0, 2.0),
        "references[0][0] {'label': ['A', 'B'], 'start': 0, 'end': 2.0}: end must be an int",
    ),
    (
        E(["A", "B"], 1, 1),
        "references[0][0] {'label': ['A', 'B'], 'start': 1, 'end': 1}: offsets must be >= 0 and start < end",
    ),
    (
        E(["A", "B"], -1, 1),
        "references[0][0] {'label': ['A', 'B'], 'start': -1, 'end': 1}: offsets must be >= 0 and start < end",
    ),
    (
        E("A", 0, 1, optional=1),
        "references[0][0] {'label': 'A', 'start': 0, 'end': 1, 'optional': 1}: optional must be True or False",
    ),
    (
        {"alternatives": [[], []], "x": 1},
        "references[0][0]: an ALT group has the one key 'alternatives'; got ['alternatives', 'x']",
    ),
    (
        {"alternatives": [[]]},
        "references[0][0]: an ALT group needs at least two alternatives (lists of entities)",
    ),
    (
        {"alternatives": "ab"},
        "references[0][0]: an ALT group needs at least two alternatives (lists of entities)",
    ),
    ({"alternatives": [[], 5]}, "references[0][0]['alternatives'][1] must be a list of entities"),
]


@pytest.mark.parametrize("item, message", CHECKS, ids=[m.split(": ", 1)[-1][:40] for _, m in CHECKS])
def test_each_bad_doubt_is_named_exactly(item, message):
    from ner_recall.core import doubt as ner_doubt

    with pytest.raises(ValueError) as error:
        ner_doubt.check_doubt([[item]])
    assert str(error.value) == message


@pytest.mark.parametrize(
    "references, message",
    [
        (
            [[], {"alternatives": [[]], "x": 1}],
            "golds[1] is a dict: several references are {'alternatives': [[...], [...]]}; got keys ['alternatives', 'x']",
        ),
        ([{"alternatives": [[]]}], "golds[0]: several references need at least two lists of entities"),
        ([{"alternatives": "ab"}], "golds[0]: several references need at least two lists of entities"),
        ([{"alternatives": [[], 5]}], "golds[0]['alternatives'][1] must be a list of entities; got int"),
        (
            [{"alternatives": [[], [E(["A"], 0, 1), E(["A", "A"], 1, 2)]]}],
            "golds[0]['alternatives'][1][1] {'label': ['A', 'A'], 'start': 1, 'end': 2}: a vague label lists a type twice",
        ),
        ([[], "ab"], "golds[1] must be a list of entities; got str"),
        ([{"alternatives": [[], []]}, "ab"], "golds[1] must be a list of entities; got str"),
    ],
)
def test_several_references_are_checked_by_name(references, message):
    from ner_recall.core import doubt as ner_doubt

    with pytest.raises(ValueError) as error:
        ner_doubt.check_doubt(references, "golds")
    assert str(error.value) == message


def test_the_checks_accept_attributes_fragments_and_several_references():
    from ner_recall.core import doubt as ner_doubt

    entity = E("A", 0, 2, attributes={"gender": "M"}, fragments=[[0, 1]], optional=False)
    several = {"alternatives": [[E("A", 0, 1)], [E(["A", "B"], 0, 1)]]}
    assert ner_doubt.check_doubt([[ALT([entity], [])], several]) == [
        [{"label": "doubt", "start": 0, "end": 1}],
        [],
    ]


@pytest.mark.parametrize(
    "references, expected",
    [
        ([[E("A", 0, 1)]], False),
        ([[E(["A", "B"], 0, 1)], ()], True),
        ([(), [E("A", 0, 1, optional=True)]], True),
        ([[ALT([E("A", 0, 1)], [])]], True),
        ([{"alternatives": [[], []]}], True),
        ([{"x": 1}], False),
        (["abc"], False),
        ([[5]], False),
        ([[E("A", 0, 1)], 5], False),
        ("abc", False),
        ([], False),
    ],
)
def test_has_doubt_says_whether_any_example_holds_doubt(references, expected):
    from ner_recall.core import doubt as ner_doubt

    assert ner_doubt.has_doubt(references) is expected


def test_several_references_holding_doubt_report_it_once():
    """Each reference is tried on a copy of the report; only the one chosen counts, once."""
    from ner_recall.core import doubt as ner_doubt

    several = {"alternatives": [[ALT([E("A", 0, 2)], [E("A", 0, 1)]), E(["A", "B"], 3, 4)], [E("A", 0, 2)]]}
    pred = [E("A", 0, 1), E("B", 3, 4)]
    out_pred, out_gold, report = ner_doubt.resolve([pred, pred], [several, several])
    assert out_gold == [[E("A", 0, 1), E("B", 3, 4)]] * 2 and out_pred == [pred, pred]
    assert (report["references"], report["groups"], report["chosen"], report["vague"]) == (2, 2, {"1": 2}, 2)


def test_the_report_counts_every_vague_label_and_the_gold_loses_the_optional_flag():
    from ner_recall.core import doubt as ner_doubt

    gold = [E(["A", "B"], 0, 1), E(["A", "B"], 2, 3), E("C", 4, 5, optional=False)]
    _, out_gold, report = ner_doubt.resolve([[]], [gold])
    assert report["vague"] == 2 and out_gold == [[E("A", 0, 1), E("A", 2, 3), E("C", 4, 5)]]
