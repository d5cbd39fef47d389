"""Entity attributes (``"attributes"`` on span items): EDS-NLP's item scores and HAREM's outcomes
(docs/attributes.md). Expected numbers come from EDS-NLP's documentation and from EDS-NLP itself
where installed, or are worked by hand from the definitions in ``ner_attributes``."""

import os
import random

import pytest

from conftest import METRIC_PATH


@pytest.fixture(scope="module")
def spans():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def ent(label, start, end, **attributes):
    out = {"label": label, "start": start, "end": end}
    if attributes:
        out["attributes"] = attributes
    return out


# EDS-NLP's documented example (edsnlp.metrics.span_attribute): "fièvreux" SYMP, "du diabète" DIS,
# "cancer" DIS; neg=False and missing values are EDS-NLP's defaults, so they are left out here
EDS_GOLD = [
    [ent("SYMP", 0, 1, neg=True), ent("DIS", 2, 3, carrier="FATHER"), ent("DIS", 4, 5, carrier="PATIENT")]
]
EDS_PRED = [
    [
        ent("SYMP", 0, 1, neg=True),
        ent("DIS", 2, 3, carrier="PATIENT"),
        ent("DIS", 4, 5, neg=True, carrier="PATIENT"),
    ]
]


def test_edsnlp_documented_example(spans):
    got = spans.compute(predictions=EDS_PRED, references=EDS_GOLD)["attributes"]
    # EDS-NLP's docs: micro p 0.5 r 0.67 tp 2 support 3 positives 4; neg p 0.5 r 1; carrier p 0.5 r 0.5
    assert (got["overall"]["correct"], got["overall"]["number"], got["overall"]["predicted"]) == (2, 3, 4)
    assert round(got["overall"]["f1"], 2) == 0.57
    assert (got["per_attribute"]["neg"]["precision"], got["per_attribute"]["neg"]["recall"]) == (0.5, 1.0)
    assert (got["per_attribute"]["carrier"]["precision"], got["per_attribute"]["carrier"]["recall"]) == (
        0.5,
        0.5,
    )


def _random_docs(rng, n):
    """Gold and predicted attributes on the same spans (EDS-NLP scores attributes of given spans)."""
    gold, pred = [], []
    for _ in range(n):
        starts = sorted(rng.sample(range(0, 20, 2), rng.randint(0, 4)))
        g, p = [], []
        for s in starts:
            label = rng.choice("AB")
            values = [{"neg": rng.random() < 0.5, "carrier": rng.choice(["P", "F", "O"])} for _ in range(2)]
            g.append(ent(label, s, s + 1, **values[0]))
            p.append(ent(label, s, s + 1, **(values[1] if rng.random() < 0.5 else values[0])))
        gold.append(g)
        pred.append(p)
    return gold, pred


@pytest.mark.parametrize("seed", range(4))
def test_parity_with_edsnlp(spans, seed):
    if not os.environ.get("CI"):
        pytest.importorskip("edsnlp", reason="EDS-NLP is in requirements-extras.txt (CI installs it)")
    import edsnlp
    from edsnlp.metrics.span_attribute import span_attribute_metric
    from spacy.tokens import Span

    for name in ("neg", "carrier"):
        if not Span.has_extension(name):
            Span.set_extension(name, default=None)
    gold, pred = _random_docs(random.Random(seed), 30)
    nlp = edsnlp.blank("eds")

    def doc(example):
        d = nlp(" ".join(f"w{k}" for k in range(22)))
        d.spans["entities"] = [Span(d, e["start"], e["end"], e["label"]) for e in example]
        for span, e in zip(d.spans["entities"], example):
            for name, value in e["attributes"].items():
                span._.set(name, value)
        return d

    examples = [(doc(g), doc(p)) for g, p in zip(gold, pred)]
    from spacy.training import Example

    theirs = span_attribute_metric(
        [Example(p, r) for r, p in examples],
        span_getter={"entities": True},
        attributes={"neg": True, "carrier": True},
        include_falsy=True,
        default_values={"neg": "no default", "carrier": "no default"},
    )
    ours = spans.compute(predictions=pred, references=gold)["attributes"]
    assert ours["overall"]["precision"] == pytest.approx(theirs["micro"]["p"])
    assert ours["overall"]["recall"] == pytest.approx(theirs["micro"]["r"])
    for name in ("neg", "carrier"):
        assert ours["per_attribute"][name]["correct"] == theirs[name]["tp"]
        assert ours["per_attribute"][name]["number"] == theirs[name]["support"]
        assert ours["per_attribute"][name]["predicted"] == theirs[name]["positives"]


def test_harem_outcomes_each_once(spans):
    gold = [
        [
            ent("PESSOA", 0, 1, gender="M", number="S"),  # gender correct, number wrong
            ent("LOCAL", 2, 3, gender="?"),  # overspecified
            ent("OBRA", 4, 6, gender="F", number="P"),  # gender missing, number partial
            ent("COISA", 7, 8),  # spurious number
            ent("TEMPO", 9, 10, gender="F"),  # missed entity: not classified
        ]
    ]
    pred = [
        [
            ent("PESSOA", 0, 1, gender="M", number="P"),
            ent("LOCAL", 2, 3, gender="F"),
            ent("OBRA", 4, 5, number=["P", "S"]),  # partially identified, still aligned
            ent("COISA", 7, 8, number="S"),
        ]
    ]
    got = spans.compute(predictions=pred, references=gold)["attributes"]["outcomes"]
    assert got["gender"] == {
        "correct": 1,
        "partial": 0,
        "wrong": 0,
        "missing": 1,
        "spurious": 0,
        "overspecified": 1,
    }
    assert got["number"] == {
        "correct": 0,
        "partial": 1,
        "wrong": 1,
        "missing": 0,
        "spurious": 1,
        "overspecified": 0,
    }


def test_per_value_counts_add_up_and_order_does_not_matter(spans):
    gold, pred = _random_docs(random.Random(9), 40)
    base = spans.compute(predictions=pred, references=gold)["attributes"]
    for row in base["per_attribute"].values():
        for key in ("correct", "number", "predicted"):
            assert sum(v[key] for v in row["per_value"].values()) == row[key]
    assert sum(r["correct"] for r in base["per_attribute"].values()) == base["overall"]["correct"]
    order = list(range(40))
    random.Random(1).shuffle(order)
    shuffled = spans.compute(
        predictions=[pred[i][::-1] for i in order], references=[gold[i][::-1] for i in order]
    )["attributes"]
    assert shuffled == base


def test_without_attributes_nothing_changes(spans):
    strip = [[{k: v for k, v in e.items() if k != "attributes"} for e in ex] for ex in EDS_GOLD]
    plain = spans.compute(predictions=strip, references=strip)
    tagged = spans.compute(predictions=EDS_PRED, references=EDS_GOLD)
    assert "attributes" not in plain
    assert {k: v for k, v in tagged.items() if k != "attributes"} == spans.compute(
        predictions=[[{k: v for k, v in e.items() if k != "attributes"} for e in ex] for ex in EDS_PRED],
        references=strip,
    )


def test_types_select_the_entities_whose_attributes_count(spans):
    got = spans.compute(predictions=EDS_PRED, references=EDS_GOLD, types=["DIS"])["attributes"]
    assert (got["overall"]["number"], got["overall"]["predicted"]) == (2, 3)  # SYMP's neg left out


def test_attributes_travel_in_the_state(spans):
    halves = [
        spans.state(predictions=EDS_PRED, references=EDS_GOLD, first_sentence=0),
        spans.state(predictions=EDS_PRED, references=EDS_GOLD, first_sentence=1),
    ]
    merged = type(halves[0]).from_bytes((halves[1] + halves[0]).to_bytes())
    assert spans.finalize(merged) == spans.compute(predictions=EDS_PRED * 2, references=EDS_GOLD * 2)


@pytest.mark.parametrize(
    "attributes, message",
    [
        ("neg", r"references\[0\]\[1\]: attributes must be a dict"),
        ({"": 1}, r"references\[0\]\[1\].*non-empty str"),
        (
            {"neg": None},
            r"references\[0\]\[1\].*attribute 'neg' must be a str, bool, int or a list of str; got NoneType",
        ),
        ({"neg": 1.5}, r"attribute 'neg' must be .*got float"),
        ({"neg": []}, r"attribute 'neg' must be .*got list"),
    ],
)
def test_bad_attributes_are_named_and_the_metric_stays_usable(spans, attributes, message):
    gold = [[ent("A", 5, 6), {"label": "A", "start": 0, "end": 1, "attributes": attributes}]]
    with pytest.raises(ValueError, match=message):
        spans.compute(predictions=gold, references=gold)
    assert spans.compute(predictions=EDS_PRED, references=EDS_GOLD)["attributes"]["overall"]["correct"] == 2


def test_the_docs_tables_are_the_example_script_output():
    import re
    import sys

    from conftest import ROOT

    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import harem_attributes

    with open(os.path.join(ROOT, "docs", "harem.md"), encoding="utf-8") as f:
        shown = re.search(
            r"<!-- harem-attributes -->\n(.*?)\n<!-- /harem-attributes -->", f.read(), re.S
        ).group(1)
    assert shown == "\n\n".join(harem_attributes.tables())


def items_by_brute_force(gold_attributes, pred_attributes, places):
    """Per attribute name, per value shown as str: (right, gold, predicted) item counts."""
    table = {}
    for attributes, k in ((gold_attributes, 1), (pred_attributes, 2)):
        for values, place in zip(attributes, places):
            for name, value in (values or {}).items():
                shown = "|".join(sorted(value)) if isinstance(value, list) else str(value)
                table.setdefault(name, {}).setdefault(shown, [0, 0, 0])[k] += 1
    for g, p, place in zip(gold_attributes, pred_attributes, places):
        for name, value in (g or {}).items():
            key = sorted(value) if isinstance(value, list) else value
            other = (p or {}).get(name)
            same_kind = isinstance(other, bool) == isinstance(value, bool)  # True is not 1
            if (
                same_kind
                and other is not None
                and (sorted(other) if isinstance(other, list) else other) == key
            ):
                shown = "|".join(key) if isinstance(value, list) else str(value)
                table[name][shown][0] += 1
    return table


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_many_attribute_names_are_each_counted_once(seed):
    """Hundreds of names, values shared and not: each name's and value's counts from one pass equal
    a brute-force count, and the names come out sorted."""
    from ner_recall.families import attributes as T

    rng = random.Random(seed)
    names = [f"n{k}" for k in range(300)]
    values = ["M", "F", True, 1, ["a", "b"], "?"]

    def side():
        return [
            {rng.choice(names): rng.choice(values) for _ in range(rng.randint(0, 3))} or None
            for _ in range(200)
        ]

    gold, pred = side(), side()
    places = [(k, 0, 1) for k in range(200)]
    out = T.item_scores(gold, pred, places, places)
    expected = items_by_brute_force(gold, pred, places)
    assert list(out["per_attribute"]) == sorted(expected)
    for name, per_value in expected.items():
        got = out["per_attribute"][name]
        assert [got["correct"], got["gold"], got["predicted"]] == [
            sum(v[i] for v in per_value.values()) for i in range(3)
        ]
        assert {
            v: [c["correct"], c["gold"], c["predicted"]] for v, c in got["per_value"].items()
        } == per_value
    total = [sum(v[i] for pv in expected.values() for v in pv.values()) for i in range(3)]
    assert [out["overall"][k] for k in ("correct", "gold", "predicted")] == total


@pytest.mark.parametrize(
    "gold, pred, right, outcome",
    [
        (True, 1, 0, "wrong"),
        (1, 1, 1, "correct"),
        (False, 0, 0, "wrong"),
        (["a", "b"], ["b", "a"], 1, "correct"),
        (["a", "b"], ["a"], 0, "partial"),
        ("1", 1, 0, "wrong"),
    ],
)
def test_a_bool_is_not_the_int_it_equals(gold, pred, right, outcome):
    from ner_recall.families import attributes as T

    places = [(0, 0, 1)]
    out = T.item_scores([{"x": gold}], [{"x": pred}], places, places)
    assert out["overall"]["correct"] == right
    assert sum(v["correct"] for v in out["per_attribute"]["x"]["per_value"].values()) == right
    assert T.outcome(gold, pred) == outcome


@pytest.mark.parametrize(
    "attributes, message",
    [
        (
            [None, {"x": ""}],
            "entity 1: attribute 'x' must be a str, bool, int or a list of str; got an empty str",
        ),
        (
            [{"x": ["a", ""]}],
            "entity 0: attribute 'x' must be a str, bool, int or a list of str; got list ['a', '']",
        ),
        ([{"x": [1]}], "entity 0: attribute 'x' must be a str, bool, int or a list of str; got list [1]"),
        ([{"x": []}], "entity 0: attribute 'x' must be a str, bool, int or a list of str; got list []"),
        ([{"x": 1.5}], "entity 0: attribute 'x' must be a str, bool, int or a list of str; got float 1.5"),
        ([None, None, {"": 1}], "entity 2: an attribute name must be a non-empty str; got ''"),
        ([None, 3], "entity 1: attributes must be a dict of name -> value; got 3"),
    ],
)
def test_attribute_errors_are_whole(attributes, message):
    import re

    from ner_recall.families import attributes as T

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        T.check_attributes(attributes, lambda k: (f"entity {k}", None, None))


@pytest.mark.parametrize("value", ["M", True, False, 0, 7, ["a", "b"], ("a",)])
def test_attribute_values_that_pass(value):
    from ner_recall.families import attributes as T

    assert T.check_attributes([None, {"x": value}], lambda k: (f"entity {k}", None, None)) is None


@pytest.mark.parametrize(
    "gold, pred, found",
    [
        (None, None, None),
        (None, "M", "spurious"),
        ("?", None, "correct"),
        ("?", "?", "correct"),
        ("?", "M", "overspecified"),
        ("M", "?", "missing"),
        ("M", None, "missing"),
        ("M", "M", "correct"),
        ("M", "F", "wrong"),
        (["M", "F"], ["F", "M"], "correct"),
        (["M", "F"], "M", "partial"),
    ],
)
def test_harem_outcomes_table(gold, pred, found):
    from ner_recall.families import attributes as T

    assert T.outcome(gold, pred) == found


def test_outcomes_are_counted_per_pair():
    from ner_recall.families import attributes as T

    pairs = [({"g": "M"}, {"g": "M"}), ({"g": "M"}, {"g": "M"}), ({"g": "M"}, None), (None, {"n": "S"})]
    assert T.pair_outcomes(pairs) == {
        "g": {"correct": 2, "partial": 0, "wrong": 0, "missing": 1, "spurious": 0, "overspecified": 0},
        "n": {"correct": 0, "partial": 0, "wrong": 0, "missing": 0, "spurious": 1, "overspecified": 0},
    }


def test_beta_and_zero_division_reach_the_items(spans):
    gold = [[{"label": "A", "start": 0, "end": 2, "attributes": {"x": "1"}}]]
    pred = [[{"label": "A", "start": 0, "end": 2, "attributes": {"x": "1", "y": "2"}}]]
    out = spans.compute(predictions=pred, references=gold, beta=2.0, zero_division=1)["attributes"]
    assert out["overall"]["f2"] == pytest.approx(5 * 0.5 * 1 / (4 * 0.5 + 1))
    assert out["per_attribute"]["y"]["recall"] == 1.0  # 0/0 gold items of y
    assert out["per_attribute"]["y"]["precision"] == 0.0 and "f1" not in out["overall"]
    from ner_recall.families import attributes as T

    empty = T.item_scores([None], [None], [(0, 0, 1)], [(0, 0, 1)], zero_division=1.0)
    assert empty["overall"]["precision"] == 1.0 and empty["overall"]["recall"] == 1.0


def test_item_scores_default_to_f1_and_zero_for_nothing():
    """The defaults: F1 (beta 1) and 0 for 0/0 (no predicted item of a value)."""
    from ner_recall.families import attributes as T

    places = [(0, 0, 1)]
    got = T.item_scores([{"neg": True}], [None], places, places)
    assert got["overall"] == {
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "correct": 0,
        "number": 1,
        "predicted": 0,
    }
    assert got["overall"] == T.item_scores([{"neg": True}], [None], places, places, 0.0, 1.0)["overall"]
