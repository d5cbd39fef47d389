"""Type hierarchies (``type_separator``, ``type_hierarchy``): coarse scores and HAREM's four
classification measures, absolute and relative (docs/harem.md). Expected numbers are worked by
hand from the definitions in ``ner_hierarchy``'s docstring."""

import random
import re

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH, unsigned


@pytest.fixture(scope="module")
def spans():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def ent(label, start, end):
    return {"label": label, "start": start, "end": end}


# gold ORG:SUB, PER and ORG:INST; predicted ORG:INST on the first (category right, type wrong)
# and PER on the second; ORG has 2 types (n = 2, maximum 2 - 1/2 = 1.5), PER none (n = 1, maximum 1)
GOLD = [[ent("ORG:SUB", 0, 2), ent("PER", 3, 4), ent("ORG:INST", 5, 6)]]
PRED = [[ent("ORG:INST", 0, 2), ent("PER", 3, 4)]]

CASES = [
    # (scope, measure, precision, recall)
    ("absolute", "categories", 2 / 2, 2 / 3),  # both pairs have the right category; 3 gold
    ("relative", "categories", 2 / 2, 2 / 2),  # the missed ORG:INST is not aligned
    ("absolute", "types", 0 / 1, 0 / 1),  # one pair with a right category has types: wrong
    ("absolute", "combined", 2 / 2.5, 2 / 4),  # 1 + 1 over gold 1.5 + 1 + 1.5, predicted 1.5 + 1
    ("relative", "combined", 2 / 2.5, 2 / 2.5),  # aligned gold maxima 1.5 + 1
    ("absolute", "flat", 1 / 2, 1 / 3),  # PER alone has the whole label right
    ("relative", "flat", 1 / 2, 1 / 2),
]


@pytest.mark.parametrize("scope, measure, precision, recall", CASES)
def test_the_measures_by_hand(spans, scope, measure, precision, recall):
    got = spans.compute(predictions=PRED, references=GOLD, type_separator=":")["hierarchy"][scope][measure]
    assert got["precision"] == pytest.approx(precision) and got["recall"] == pytest.approx(recall)
    f1 = 0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    assert got["f1"] == pytest.approx(f1)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_combined_is_one_for_a_fully_right_entity_and_one_over_the_maximum_for_a_wrong_type(spans, n):
    labels = [f"LOC:T{k}" for k in range(n)]
    gold = [[ent(label, 2 * k, 2 * k + 1) for k, label in enumerate(labels)]]
    right = spans.compute(predictions=gold, references=gold, type_separator=":")["hierarchy"]
    assert right["categories"] == {"LOC": n}
    assert right["absolute"]["combined"]["recall"] == 1.0  # (2 - 1/n) / (2 - 1/n)
    assert right["absolute"]["combined"]["correct"] == pytest.approx(n * (2 - 1 / n))
    if n > 1:  # each entity typed as its neighbour: category right, type wrong, 1 / (2 - 1/n)
        wrong = [[ent(labels[(k + 1) % n], 2 * k, 2 * k + 1) for k in range(n)]]
        got = spans.compute(predictions=wrong, references=gold, type_separator=":")["hierarchy"]
        assert got["absolute"]["combined"]["recall"] == pytest.approx(1 / (2 - 1 / n))
    other = [[ent("PER:X", 2 * k, 2 * k + 1) for k in range(n)]]  # category wrong: 0
    got = spans.compute(predictions=other, references=gold, type_separator=":")["hierarchy"]
    assert got["absolute"]["combined"]["correct"] == 0.0


def test_types_ignore_pairs_with_a_wrong_category(spans):
    gold = [[ent("LOC:CITY", 0, 1), ent("ORG:SUB", 2, 3)]]
    pred = [[ent("LOC:CITY", 0, 1), ent("PER:GROUP", 2, 3)]]
    got = spans.compute(predictions=pred, references=gold, type_separator=":")["hierarchy"]["absolute"]
    assert (got["types"]["correct"], got["types"]["number"], got["types"]["predicted"]) == (1, 1, 1)


def test_flat_is_strict_over_whole_labels_and_coarse_is_strict_over_categories(spans):
    refs, preds = random_corpus(3, 60, types=("A:x", "A:y", "B:z", "C"))
    as_spans = [spans_of(s) for s in refs], [spans_of(s) for s in preds]
    whole = spans.compute(
        references=as_spans[0], predictions=as_spans[1], type_separator=":", scores=["seqeval", "muc"]
    )
    coarse_map = {"A:x": "A", "A:y": "A", "B:z": "B", "C": "C"}
    mapped = (
        [[dict(e, label=coarse_map[e["label"]]) for e in ex] for ex in as_spans[0]],
        [[dict(e, label=coarse_map[e["label"]]) for e in ex] for ex in as_spans[1]],
    )
    by_hand = spans.compute(references=mapped[0], predictions=mapped[1])
    coarse = whole["hierarchy"]["coarse"]
    assert coarse == {k: v for k, v in unsigned(by_hand).items() if k != "muc"}
    flat = whole["hierarchy"]["absolute"]["flat"]
    # the aligned pairs with the whole label right are MUC's "type" mode's correct pairs (the same
    # one-to-one matching); its gold and predicted are every entity
    assert flat["correct"] == whole["muc"]["type"]["correct"]
    assert (flat["number"], flat["predicted"]) == (
        whole["muc"]["type"]["possible"],
        whole["muc"]["type"]["actual"],
    )


def spans_of(tags):
    out, k = [], 0
    while k < len(tags):
        if tags[k].startswith("B-"):
            end = k + 1
            while end < len(tags) and tags[end] == "I-" + tags[k][2:]:
                end += 1
            out.append(ent(tags[k][2:], k, end))
            k = end
        else:
            k += 1
    return out


def test_few_nerd_labels_in_the_tags_config():
    import evaluate

    tags = evaluate.load(METRIC_PATH)
    refs = [["B-person-actor", "I-person-actor", "O", "B-location-city"]]
    preds = [["B-person-artist", "I-person-artist", "O", "B-location-city"]]
    got = tags.compute(predictions=preds, references=refs, type_separator="-")["hierarchy"]
    assert got["categories"] == {"location": 1, "person": 2}
    assert got["coarse"]["overall_f1"] == 1.0  # both entities right at the coarse level
    # person pair: category right, type wrong (1 of 1.5); location: 2 - 1/1 = 1 of 1
    assert got["absolute"]["combined"]["recall"] == pytest.approx(2 / 2.5)


def test_a_mapping_names_the_types_of_each_category(spans):
    mapping = {"city": "LOC", "country": "LOC", "river": "LOC", "person": "PER"}
    gold = [[ent("city", 0, 1)]]
    got = spans.compute(predictions=gold, references=gold, type_hierarchy=mapping)["hierarchy"]
    assert got["categories"] == {"LOC": 3}  # the mapping's three LOC types, used or not
    assert got["absolute"]["combined"]["correct"] == pytest.approx(2 - 1 / 3)


def test_order_does_not_matter(spans):
    rng = random.Random(5)
    gold = [[ent(rng.choice(["A:x", "A:y", "B:z"]), k, k + 1) for k in range(0, 12, 2)] for _ in range(20)]
    pred = [
        [dict(e, label=rng.choice(["A:x", "A:y", "B:z"])) for e in ex if rng.random() < 0.8] for ex in gold
    ]
    base = spans.compute(predictions=pred, references=gold, type_separator=":")["hierarchy"]
    order = list(range(20))
    rng.shuffle(order)
    shuffled = spans.compute(
        predictions=[sorted(pred[i], key=lambda e: -e["start"]) for i in order],
        references=[gold[i][::-1] for i in order],
        type_separator=":",
    )["hierarchy"]
    assert shuffled == base


def test_without_the_option_nothing_changes(spans):
    plain = spans.compute(predictions=PRED, references=GOLD)
    split = spans.compute(predictions=PRED, references=GOLD, type_separator=":")
    assert "hierarchy" not in plain
    assert {k: v for k, v in unsigned(split).items() if k != "hierarchy"} == unsigned(plain)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"type_separator": ":", "type_hierarchy": {"a": "b"}}, "not both"),
        ({"type_separator": ""}, "non-empty str"),
        ({"type_separator": 3}, "non-empty str"),
        ({"type_separator": "/"}, "splits none of the labels"),
        ({"type_hierarchy": {"X": "Y"}}, "splits none of the labels"),
        ({"type_hierarchy": {"ORG:SUB": ""}}, "non-empty strings"),
        ({"type_hierarchy": ["ORG"]}, "non-empty dict"),
    ],
)
def test_bad_options_are_named_and_the_metric_stays_usable(spans, options, message):
    with pytest.raises(ValueError, match=message):
        spans.compute(predictions=PRED, references=GOLD, **options)
    assert spans.compute(predictions=PRED, references=GOLD)["overall_recall"] == pytest.approx(1 / 3)


def test_the_docs_table_is_the_example_script_output():
    import os
    import re
    import sys

    from conftest import ROOT

    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import harem_hierarchy

    with open(os.path.join(ROOT, "docs", "harem.md"), encoding="utf-8") as f:
        shown = re.search(
            r"<!-- harem-hierarchy -->\n(.*?)\n<!-- /harem-hierarchy -->", f.read(), re.S
        ).group(1)
    assert shown == harem_hierarchy.table()


# every denominator of HAREM's measures apart: 8 gold (one missed), 9 predicted (two spurious), 7
# aligned pairs, one of them with the wrong category (B:z against C:w)
HAND_GOLD = [
    [
        ent("A:x", 0, 1),  # p: A:x, all right
        ent("A:y", 2, 3),  # p: A:x, type wrong
        ent("A", 4, 5),  # p: A:y, gold untyped
        ent("B:z", 6, 7),  # p: B, prediction untyped
        ent("C:w", 8, 9),  # missed
        ent("A", 12, 13),  # p: A, both untyped
        ent("B:z", 14, 15),  # p: C:w, category wrong
        ent("B:z", 16, 17),  # p: B, prediction untyped
    ]
]
HAND_PRED = [
    [
        ent("A:x", 0, 1),
        ent("A:x", 2, 3),
        ent("A:y", 4, 5),
        ent("B", 6, 7),
        ent("D:q", 10, 11),  # spurious
        ent("A", 12, 13),
        ent("C:w", 14, 15),
        ent("B", 16, 17),
        ent("D", 20, 21),  # spurious
    ]
]
# A has the types x, y (n = 2, maximum 1.5), B, C and D one each (maximum 1); combined per pair:
# 1.5, 1, 1, 1, 1.5, 0, 1 = 7; gold maxima 4 * 1.5 + 4 * 1 = 10 (aligned 9), predicted 4 * 1.5 + 5 (9)
HAND = [
    # (scope, measure, correct, gold, predicted)
    ("absolute", "categories", 6, 8, 9),
    ("relative", "categories", 6, 7, 7),
    ("absolute", "types", 1, 4, 3),  # among the 6 right categories: gold typed g1 g2 g4 g8, pred p1 p2 p3
    ("relative", "types", 1, 4, 3),
    ("absolute", "combined", 7.0, 10.0, 11.0),
    ("relative", "combined", 7.0, 9.0, 9.0),
    ("absolute", "flat", 2, 8, 9),
    ("relative", "flat", 2, 7, 7),
]


@pytest.mark.parametrize("scope, measure, correct, gold, predicted", HAND)
def test_every_denominator_by_hand(spans, scope, measure, correct, gold, predicted):
    out = spans.compute(predictions=HAND_PRED, references=HAND_GOLD, type_separator=":")["hierarchy"]
    got = out[scope][measure]
    assert (got["correct"], got["gold"], got["predicted"]) == (correct, gold, predicted)
    assert type(got["correct"]) is type(correct) and type(got["gold"]) is type(gold)
    assert type(got["predicted"]) is type(predicted)
    assert got["precision"] == pytest.approx(correct / predicted) and got["recall"] == pytest.approx(
        correct / gold
    )
    assert out["categories"] == {"A": 2, "B": 1, "C": 1, "D": 1}


def test_the_types_measure_by_hand_in_the_function():
    import numpy as np

    from ner_recall.families import hierarchy as H

    h = H.hierarchy_of(("A", "A:x", "A:y", "B", "B:z"), ":", None)
    assert (
        h.categories == ("A", "B")
        and h.type.tolist() == [-1, 1, 2, -1, 4]
        and h.n_types.tolist() == [2, 2, 2, 1, 1]
    )
    gold, pred = np.array([1, 2, 0, 4, 4, 1]), np.array([1, 1, 2, 3, 4, 3])
    cat, typ, comb, flat, gold_typed, pred_typed = H.pair_scores(h, gold, pred)
    assert cat.tolist() == [True, True, True, True, True, False]
    assert typ.tolist() == [True, False, False, False, True, False]
    assert comb.tolist() == [1.5, 1.0, 1.0, 1.0, 1.0, 0.0] and flat.tolist() == [1, 0, 0, 0, 1, 0]
    assert gold_typed.tolist() == [True, True, False, True, True, True]
    assert pred_typed.tolist() == [True, True, True, False, True, False]


@pytest.mark.parametrize(
    "labels, options",
    [
        (("overall_f1:X", "PER"), {"type_separator": ":"}),
        (("overall_accuracy:X", "PER"), {"type_separator": ":"}),
        (("weighted_recall:X", "PER"), {"type_separator": ":"}),
        (("macro_precision:X", "PER"), {"type_separator": ":"}),
        (("overall_f2:X", "PER"), {"type_separator": ":", "beta": 2.0}),
        (("X", "PER"), {"type_hierarchy": {"X": "overall_f1"}}),
    ],
)
def test_a_category_may_not_take_a_key_of_the_coarse_table(spans, labels, options):
    gold = [[ent(labels[0], 0, 1), ent(labels[1], 2, 3)]]
    with pytest.raises(ValueError, match=r"has the category '(overall|weighted|macro)_\w+', a key of"):
        spans.compute(predictions=gold, references=gold, **options)
    assert spans.compute(predictions=gold, references=gold)["overall_f1"] == 1.0


def test_a_category_named_like_another_beta_is_kept(spans):
    gold = [[ent("overall_f2:X", 0, 1), ent("overall_f2:Y", 2, 3)]]
    out = spans.compute(predictions=gold, references=gold, type_separator=":")["hierarchy"]
    assert out["coarse"]["overall_f2"]["f1"] == 1.0 and out["coarse"]["overall_f1"] == 1.0


@pytest.mark.parametrize(
    "labels, categories, types",
    [
        (("A:B:C", "A:x"), ("A",), [0, 1]),  # the first separator splits: A with the type B:C
        (("A:", "A:x"), ("A", "A:"), [-1, 1]),  # no type after it: a category of its own
        ((":B", "C:d"), (":B", "C"), [-1, 1]),  # no category before it
    ],
)
def test_a_label_splits_at_its_first_separator(labels, categories, types):
    from ner_recall.families import hierarchy as H

    h = H.hierarchy_of(labels, ":", None)
    assert h.categories == categories and h.type.tolist() == types
    assert all(a.dtype == np.int64 for a in (h.category, h.type, h.n_types))


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"type_separator": "/"},
            "type_separator '/' splits none of the labels ['ORG:INST', 'ORG:SUB', 'PER']: it would change"
            " nothing (the types are named after the tag prefix: 'B-ORG:SUB' has the type 'ORG:SUB')",
        ),
        (
            {"type_hierarchy": {"X": "Y"}},
            "type_hierarchy splits none of the labels ['ORG:INST', 'ORG:SUB', 'PER']: it would change nothing",
        ),
        (
            {"type_separator": ":", "type_hierarchy": {"a": "b"}},
            "give type_separator or type_hierarchy, not both: each says how a label splits",
        ),
    ],
)
def test_option_errors_are_whole(spans, options, message):
    import re

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        spans.compute(predictions=PRED, references=GOLD, **options)


def test_beta_and_zero_division_reach_every_measure(spans):
    """No typed pair (types 0/0) and beta 2: every measure and the coarse table use them."""
    gold = [[ent("A:x", 0, 1), ent("B", 2, 3)]]
    pred = [[ent("A", 0, 1), ent("B", 2, 3), ent("C:y", 5, 6)]]
    out = spans.compute(predictions=pred, references=gold, type_separator=":", zero_division=1, beta=2.0)
    h = out["hierarchy"]
    for scope in ("absolute", "relative"):
        assert set(h[scope]) == {"categories", "types", "combined", "flat"}
        for measure in h[scope].values():
            assert "f2" in measure and "f1" not in measure
    types = h["relative"]["types"]  # gold A:x against A (untyped): gold side 1, predicted side 0/0
    assert (types["correct"], types["gold"], types["predicted"]) == (0, 1, 0)
    assert types["precision"] == 1.0 and types["recall"] == 0.0
    assert h["coarse"]["overall_f2"] == pytest.approx(5 * (2 / 3) * 1 / (4 * (2 / 3) + 1))
    assert h["categories"] == {"A": 1, "B": 1, "C": 1}
    cats = h["absolute"]["categories"]  # A and B right, C spurious: 2 of 3 predicted, 2 of 2 gold
    assert cats["f2"] == pytest.approx(5 * (2 / 3) * 1 / (4 * (2 / 3) + 1))
    combined = h["absolute"]["combined"]
    assert isinstance(combined["correct"], float) and isinstance(h["absolute"]["flat"]["gold"], int)
    empty = spans.compute(
        predictions=[[]], references=[[ent("A:x", 0, 1)]], type_separator=":", zero_division=1
    )
    assert empty["hierarchy"]["relative"]["categories"]["precision"] == 1.0  # 0/0 aligned


def test_the_reserved_names_default_to_f1():
    from ner_recall.families import hierarchy as H

    assert H.reserved_categories() == H.reserved_categories(1.0)
    assert "overall_f1" in H.reserved_categories() and "overall_f2" not in H.reserved_categories()
    assert "overall_f2" in H.reserved_categories(2.0) and "overall_accuracy" in H.reserved_categories(2.0)
    with pytest.raises(
        ValueError, match=r"^the label 'overall_f1:X' has the category 'overall_f1', a key of"
    ):
        H.hierarchy_of(("overall_f1:X", "A"), ":", None)
    assert H.hierarchy_of(("overall_f2:X", "A"), ":", None).categories == ("A", "overall_f2")


def test_a_hierarchy_of_no_label_keeps_integer_codes():
    from ner_recall.families import hierarchy as H

    h = H.hierarchy_of((), ":", None)
    assert h.categories == () and all(a.dtype == np.int64 and a.size == 0 for a in h[1:])


def test_the_message_shows_the_first_five_labels():
    from ner_recall.families import hierarchy as H

    labels = ("A", "B", "C", "D", "E", "F")
    message = (
        "type_separator ':' splits none of the labels ['A', 'B', 'C', 'D', 'E']: it would change nothing"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)} \\(the types"):
        H.hierarchy_of(labels, ":", None)
