"""Entity buckets (``ner_buckets``), the small things a count does not see: every error message
whole, the option checks as tables, ExplainaBoard's occurrence counts themselves (not only their
ratios), a comparison over three attributes with buckets missing on one side or in the middle, and
intervals with ``beta`` on a corpus whose resamples all give the same scores."""

from collections import Counter

import pytest

from ner_recall import ner_buckets as B
from ner_recall.ner_decoding import tags_to_spans

ALL = list(B.ATTRIBUTES)
LISTED = (
    "['entity_length', 'sentence_length', 'density', 'capitalisation', 'seen', 'train_frequency',"
    " 'label_consistency']"
)


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "buckets, span_config, expected",
    [
        (None, False, None),
        (["seen", "entity_length", "seen"], False, ("seen", "entity_length")),  # once each, in order
        (("density",), False, ("density",)),
        (["entity_length", "capitalisation"], True, ("entity_length", "capitalisation")),
        ("entity_length", False, f"buckets must be a list of attributes from {LISTED}; got 'entity_length'"),
        (b"seen", False, f"buckets must be a list of attributes from {LISTED}; got b'seen'"),
        ({"seen"}, False, f"buckets must be a list of attributes from {LISTED}; got {{'seen'}}"),
        ([], False, f"buckets must be a list of attributes from {LISTED}; got []"),
        (["seen", "shape"], False, f"buckets must be a list of attributes from {LISTED}; got 'shape'"),
        (
            ["entity_length", "sentence_length"],
            True,
            "the bucket 'sentence_length' needs tokens: the span configs have none (entity_length works)",
        ),
        (["density"], False, ("density",)),
    ],
)
def test_check_buckets(buckets, span_config, expected):
    if isinstance(expected, str):
        with pytest.raises(ValueError) as error:
            B.check_buckets(buckets, span_config)
        assert str(error.value) == expected
    else:
        assert B.check_buckets(buckets, span_config) == expected


@pytest.mark.parametrize(
    "buckets, text, train",
    [
        (None, False, False),
        ((), False, False),
        (["entity_length", "sentence_length", "density"], False, False),
        (["capitalisation"], True, False),
        (["entity_length", "seen"], True, True),
        (["train_frequency"], True, True),
        (["label_consistency"], True, True),
    ],
)
def test_what_the_attributes_read(buckets, text, train):
    assert (B.needs_text(buckets), B.needs_train(buckets)) == (text, train)


def test_every_attribute_has_its_labels():
    assert {name: list(B.labels_of(name)) for name in ALL} == {
        "entity_length": ["1", "2", "3", "4+"],
        "sentence_length": ["1-10", "11-20", "21-40", "41+"],
        "density": ["0-0.1", "0.1-0.2", "0.2-0.3", "0.3+"],
        "capitalisation": ["upper", "title", "lower", "none"],
        "seen": ["seen", "unseen"],
        "train_frequency": ["0", "1-2", "3-9", "10+"],
        "label_consistency": ["unseen", "0", "0-0.5", "0.5-1", "1"],
    }


# ---------------------------------------------------------------------------- training entities


def test_training_pairs_are_counted_by_text_and_by_text_and_type():
    train = B.check_train_entities([("ORG", "NATO"), ("LOC", "NATO"), ("ORG", "NATO"), ["PER", "Anna"]])
    assert train == B.Training(
        Counter({"NATO": 3, "Anna": 1}),
        Counter({("NATO", "ORG"): 2, ("NATO", "LOC"): 1, ("Anna", "PER"): 1}),
        None,
    )
    assert B.check_train_entities(None) is None
    assert B.check_train_entities(()) == B.Training(Counter(), Counter(), None)


def _corpus_error(tags):
    try:
        tags_to_spans(tags)
    except ValueError as error:
        return f"train_entities['tags'][0]: {error}"
    raise AssertionError(f"{tags} decodes")


@pytest.mark.parametrize(
    "train, message",
    [
        (
            "PER Anna",
            "train_entities must be a list of (type, text) pairs or {'tokens': ..., 'tags': ...}; got str",
        ),
        (5, "train_entities must be a list of (type, text) pairs or {'tokens': ..., 'tags': ...}; got int"),
        ([("PER", "Anna"), "PER"], "train_entities[1] must be a (type, text) pair of str; got 'PER'"),
        (
            [("PER", "Anna", "x")],
            "train_entities[0] must be a (type, text) pair of str; got ('PER', 'Anna', 'x')",
        ),
        ([("PER", 3)], "train_entities[0] must be a (type, text) pair of str; got ('PER', 3)"),
        ({"tokens": [["a"]]}, "train_entities as a corpus has the keys 'tokens' and 'tags'; got ['tokens']"),
        (
            {"tokens": [["a"]], "tags": [["O"]], "x": 1},
            "train_entities as a corpus has the keys 'tokens' and 'tags'; got ['tags', 'tokens', 'x']",
        ),
        (
            {"tokens": "a", "tags": [["O"]]},
            "train_entities['tokens'] and ['tags'] must be lists with one item per sentence each",
        ),
        (
            {"tokens": [["a"]], "tags": "O"},  # a str as long as the tokens: still not a list
            "train_entities['tokens'] and ['tags'] must be lists with one item per sentence each",
        ),
        (
            {"tokens": [["a"], ["b"]], "tags": [["O"]]},
            "train_entities['tokens'] and ['tags'] must be lists with one item per sentence each",
        ),
        (
            {"tokens": ["a"], "tags": [["O"]]},
            "train_entities['tokens'][0] must be a list as long as ['tags'][0]",
        ),
        (
            {"tokens": [["a"], ["b"]], "tags": [["O"], ["O", "O"]]},
            "train_entities['tokens'][1] must be a list as long as ['tags'][1]",
        ),
        (
            {"tokens": [["a", 3]], "tags": [["O", "O"]]},
            "train_entities['tokens'][0][1] must be a str; got int",
        ),
        ({"tokens": [["a"]], "tags": [["X-Y"]]}, _corpus_error(["X-Y"])),
    ],
)
def test_each_bad_training_set_is_named_whole(train, message):
    with pytest.raises(ValueError) as error:
        B.check_train_entities(train)
    assert str(error.value) == message


def occurrences_by_definition(tokens, entities):
    """Per lower-cased training entity text, the label of every window of tokens with that text."""
    lowered = [[w.lower() for w in words] for words in tokens]
    texts = {" ".join(words[a:b]) for words, spans in zip(lowered, entities) for a, b in spans}
    counts = {t: Counter() for t in texts}
    for words, spans in zip(lowered, entities):
        for a in range(len(words)):
            for b in range(a + 1, len(words) + 1):
                if " ".join(words[a:b]) in counts:
                    counts[" ".join(words[a:b])][spans.get((a, b), "O")] += 1
    return counts


def test_occurrences_are_counted_one_by_one():
    tokens = [["New", "York", "is", "new", "york"], ["NATO", "and", "nato", "new", "york"], ["York"]]
    entities = [{(0, 2): "LOC"}, {(0, 1): "ORG", (3, 5): "ORG"}, {(0, 1): "LOC"}]
    got = B.occurrence_labels(tokens, entities)
    assert got == occurrences_by_definition(tokens, entities)
    assert got == {
        "new york": Counter({"LOC": 1, "O": 1, "ORG": 1}),
        "nato": Counter({"ORG": 1, "O": 1}),
        "york": Counter({"O": 3, "LOC": 1}),  # york twice in the first sentence, once in the second
    }


def test_label_consistency_needs_the_training_corpus():
    with pytest.raises(ValueError) as error:
        B.label_consistency(["NATO"], ["ORG"], B.check_train_entities([("ORG", "NATO")]))
    assert str(error.value) == (
        "the bucket 'label_consistency' (ExplainaBoard's eCon) counts every occurrence of an entity's text in"
        " the training text, entity or not: give train_entities as the training corpus {'tokens': [[str]],"
        " 'tags': [[str]]}, not (type, text) pairs"
    )


# ---------------------------------------------------------------------------- tokens


@pytest.mark.parametrize(
    "tokens, message",
    [
        ("ab", "tokens must be a list with one list of str per sentence; got str"),
        ({"a": 1}, "tokens must be a list with one list of str per sentence; got dict"),
        ([["a", "b"]], "tokens has 1 sentences but references has 2"),
        ([["a", "b"], "c"], "tokens[1] must be a list of 1 str, one per tag"),
        ([["a", "b"], ["c", "d"]], "tokens[1] must be a list of 1 str, one per tag"),
        ([["a", b"b"], ["c"]], "tokens[0][1] must be a str; got bytes"),
    ],
)
def test_each_bad_tokens_is_named_whole(tokens, message):
    with pytest.raises(ValueError) as error:
        B.check_tokens(tokens, [2, 1])
    assert str(error.value) == message


def test_good_tokens_are_returned_as_given():
    tokens = (["a", "b"], ("c",))
    assert B.check_tokens(tokens, [2, 1]) is tokens


# ---------------------------------------------------------------------------- comparison and intervals

REFERENCES = [["B-PER", "O", "B-LOC", "I-LOC", "I-LOC"], ["B-ORG", "O", "B-MISC"], ["O"] * 5]
TOKENS = [["Anna", "x", "New", "York", "City"], ["NATO", "x", "1984"], ["The", "big", "old", "tree", "x"]]
# a misses the three-token LOC and adds a four-token MISC; b finds the LOC, makes NATO two tokens long
# and misses 1984: entity length 2 only in b's table, 4+ only in a's; no entity in lower case anywhere
SYSTEM_A = [
    ["B-PER", "O", "O", "O", "O"],
    ["B-ORG", "O", "B-MISC"],
    ["B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"],
]
SYSTEM_B = [["B-PER", "O", "B-LOC", "I-LOC", "I-LOC"], ["B-ORG", "I-ORG", "O"], ["O"] * 5]
OPTIONS = dict(
    buckets=["entity_length", "capitalisation", "seen"],
    tokens=TOKENS,
    train_entities=[("PER", "Anna")],
    beta=2,
)


def test_a_comparison_over_three_attributes_shows_every_bucket_of_either_table(metric):
    out = metric.compare(
        predictions=SYSTEM_A,
        predictions_b=SYSTEM_B,
        references=REFERENCES,
        permutations=20,
        ci_resamples=20,
        **OPTIONS,
    )
    a = metric.compute(predictions=SYSTEM_A, references=REFERENCES, **OPTIONS)["buckets"]
    b = metric.compute(predictions=SYSTEM_B, references=REFERENCES, **OPTIONS)["buckets"]
    assert {name: (list(a[name]), list(b[name])) for name in a} == {
        "entity_length": (["1", "3", "4+"], ["1", "2", "3"]),
        "capitalisation": (["upper", "title", "none"], ["upper", "title", "none"]),
        "seen": (["seen", "unseen"], ["seen", "unseen"]),
    }
    keys = ["precision", "recall", "f2"]
    for name, compared in out["buckets"].items():
        labels = [label for label in B.labels_of(name) if label in a[name] or label in b[name]]
        assert list(compared["values"]) == labels, name
        for label, row in compared["values"].items():
            assert [list(row[part]) for part in ("difference", "p_values", "p_values_holm", "intervals")] == [
                keys
            ] * 4
            for key in keys:
                expected = b[name].get(label, {}).get(key, 0.0) - a[name].get(label, {}).get(key, 0.0)
                assert row["difference"][key] == pytest.approx(expected, abs=1e-12), (name, label, key)
    # by hand: entity length 1, gold PER, ORG, MISC, all found by a; b finds PER only (recall 1/3)
    assert out["buckets"]["entity_length"]["values"]["1"]["difference"]["recall"] == pytest.approx(-2 / 3)


def test_intervals_of_identical_units_are_the_point_with_beta(metric):
    """Ten identical sentences: every resample has the same scores, so each interval is the point;
    F2 = 5 p r / (4 p + r), not F1."""
    references = [["B-PER", "I-PER", "O", "B-LOC", "B-X", "I-X", "I-X"]] * 10
    predictions = [["B-PER", "I-PER", "B-ORG", "B-LOC", "O", "O", "O"]] * 10
    table = metric.compute(
        predictions=predictions, references=references, buckets=["entity_length"], beta=2, ci_resamples=50
    )["buckets"]["entity_length"]
    # length 1: gold LOC found; predicted ORG wrong, LOC right: p 1/2, r 1, F2 = 2.5 / 3
    assert table["1"]["f2"] == pytest.approx(2.5 / 3)
    assert table["1"]["intervals"] == {
        "precision": [pytest.approx(0.5)] * 2,
        "recall": [1.0, 1.0],
        "f2": [pytest.approx(2.5 / 3)] * 2,
    }
    # length 3: gold X missed, nothing predicted: precision 0/0 shown as 0 (zero_division)
    assert (table["3"]["precision"], table["3"]["recall"], table["3"]["number"], table["3"]["predicted"]) == (
        0.0,
        0.0,
        10,
        0,
    )
    assert table["3"]["intervals"]["recall"] == [0.0, 0.0]
    assert table["3"]["intervals"]["precision"] == [0.0, 0.0]
