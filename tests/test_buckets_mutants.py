"""Entity buckets (``ner_buckets``), the small things a count does not see: every error message
whole, the option checks as tables, ExplainaBoard's occurrence counts themselves (not only their
ratios), a comparison over three attributes with buckets missing on one side or in the middle, and
intervals with ``beta`` on a corpus whose resamples all give the same scores."""

from collections import Counter

import numpy as np
import pytest

from ner_recall.core.decoding import tags_to_spans
from ner_recall.core.vocabulary import SpanArrays
from ner_recall.families import buckets as B

ALL = list(B.ATTRIBUTES)
LISTED = (
    "['entity_length', 'sentence_length', 'density', 'capitalisation', 'seen', 'train_frequency',"
    " 'label_consistency']"
)


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "buckets, expected",
    [
        (None, None),
        (["seen", "entity_length", "seen"], ("seen", "entity_length")),  # once each, in order
        (("density",), ("density",)),
        (["entity_length", "capitalisation"], ("entity_length", "capitalisation")),
        ("entity_length", f"buckets must be a list of attributes from {LISTED}; got 'entity_length'"),
        (b"seen", f"buckets must be a list of attributes from {LISTED}; got b'seen'"),
        ({"seen"}, f"buckets must be a list of attributes from {LISTED}; got {{'seen'}}"),
        ([], f"buckets must be a list of attributes from {LISTED}; got []"),
        (["seen", "shape"], f"buckets must be a list of attributes from {LISTED}; got 'shape'"),
        (["density", "sentence_length"], ("density", "sentence_length")),
    ],
)
def test_check_buckets(buckets, expected):
    if isinstance(expected, str):
        with pytest.raises(ValueError) as error:
            B.check_buckets(buckets)
        assert str(error.value) == expected
    else:
        assert B.check_buckets(buckets) == expected


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


@pytest.mark.parametrize(
    "buckets, text",
    [
        (["entity_length"], False),
        (["sentence_length"], True),  # the span configs count the text's characters
        (["density"], True),
        (["capitalisation"], True),
        (["seen"], True),
    ],
)
def test_what_the_attributes_read_in_the_span_configs(buckets, text):
    assert B.needs_text(buckets, span_config=True) == text


def test_the_span_configs_sentence_attributes_count_characters():
    assert {name: list(B.labels_of(name, characters=True)) for name in ALL} == {
        "entity_length": ["1", "2", "3", "4+"],
        "sentence_length": ["1-60", "61-120", "121-240", "241+"],
        "density": ["0-1.5", "1.5-3", "3-5", "5+"],
        "capitalisation": ["upper", "title", "lower", "none"],
        "seen": ["seen", "unseen"],
        "train_frequency": ["0", "1-2", "3-9", "10+"],
        "label_consistency": ["unseen", "0", "0-0.5", "0.5-1", "1"],
    }


@pytest.mark.parametrize(
    "characters, bucket",
    [
        (1, "1-60"),
        (60, "1-60"),  # both ends of each edge
        (61, "61-120"),
        (120, "61-120"),
        (121, "121-240"),
        (240, "121-240"),
        (241, "241+"),
    ],
)
def test_a_text_is_bucketed_by_its_characters(characters, bucket):
    zero = np.zeros(1, dtype=np.int64)
    spans = SpanArrays(zero, zero + 1, zero, zero, zero)  # (start, end, type, sentence, offset)
    got = B.assign("sentence_length", spans, [characters], ["PER"], characters=True)
    assert B.labels_of("sentence_length", True)[int(got[0])] == bucket


@pytest.mark.parametrize(
    "entities, characters, bucket",
    [
        (1, 100, "0-1.5"),  # 1 per 100 characters
        (3, 200, "1.5-3"),  # 1.5 per 100: the lower edge belongs to its bucket
        (3, 101, "1.5-3"),  # just under 3
        (3, 100, "3-5"),
        (5, 100, "5+"),
        (1, 20, "5+"),
    ],
)
def test_a_texts_density_counts_entities_per_100_characters(entities, characters, bucket):
    zeros = np.zeros(entities, dtype=np.int64)
    spans = SpanArrays(zeros, zeros, zeros + 1, zeros, zeros)
    got = B.assign("density", spans, [characters], ["PER"], characters=True)
    assert {B.labels_of("density", True)[int(b)] for b in got} == {bucket}


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


def test_training_pairs_are_counted_by_text():
    train = B.check_train_entities([("ORG", "NATO"), ("LOC", "NATO"), ("ORG", "NATO"), ["PER", "Anna"]])
    assert train == B.Training(Counter({"NATO": 3, "Anna": 1}), None)
    assert B.check_train_entities(None) is None
    assert B.check_train_entities(()) == B.Training(Counter(), None)


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
        ([("PER", "Anna"), "PE"], "train_entities[1] must be a (type, text) pair of str; got 'PE'"),
        ([5], "train_entities[0] must be a (type, text) pair of str; got 5"),
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


def test_intervals_of_identical_units_in_three_attributes_are_their_points(metric):
    """Each attribute's intervals are read from its own columns of the bootstrap (the third
    attribute's too): with identical units, every interval is its bucket's point."""
    references = [["B-PER", "I-PER", "O", "B-LOC", "B-X", "I-X", "I-X"]] * 6
    predictions = [["B-PER", "I-PER", "B-ORG", "B-LOC", "O", "O", "O"]] * 6
    tokens = [["Anna", "Smith", "nato", "BERN", "de", "la", "Mer"]] * 6
    out = metric.compute(
        predictions=predictions,
        references=references,
        buckets=["entity_length", "capitalisation", "seen"],
        tokens=tokens,
        train_entities=[("LOC", "BERN")],
        ci_resamples=20,
    )["buckets"]
    assert {name: sorted(table) for name, table in out.items()} == {
        "entity_length": ["1", "2", "3"],
        "capitalisation": ["lower", "title", "upper"],
        "seen": ["seen", "unseen"],
    }
    for name, table in out.items():
        for label, row in table.items():
            for key in ("precision", "recall", "f1"):
                assert row["intervals"][key] == [pytest.approx(row[key])] * 2, (name, label, key)
    assert (
        out["seen"]["unseen"]["recall"] == pytest.approx(0.5) and out["capitalisation"]["upper"]["f1"] == 1.0
    )


# ---------------------------------------------------------------------------- the pieces, called directly


def _spans(starts, ends, sentences, offsets):
    """SpanArrays of one type: (start, end, type, sentence, offset)."""
    from ner_recall.core.vocabulary import SpanArrays

    columns = [np.array(c, dtype=np.int64) for c in (starts, ends, [0] * len(starts), sentences, offsets)]
    return SpanArrays(*columns)


def test_bucket_scores_defaults():
    from ner_recall.core import decoding as D
    from ner_recall.core import matching as M

    corpus = D.encode([["B-PER", "I-PER", "O", "O"]], [["B-PER", "I-PER", "O", "B-LOC"]])  # predictions first
    gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    out = B.bucket_scores(gold, pred, M.match(gold, pred), corpus.lengths, ["entity_length"])
    assert out == {  # F1, a 0/0 precision as 0, the table alone (no rows)
        "entity_length": {
            "1": {"precision": 0.0, "recall": 0.0, "f1": 0.0, "number": 1, "predicted": 0},
            "2": {"precision": 1.0, "recall": 1.0, "f1": 1.0, "number": 1, "predicted": 1},
        }
    }


NAN = float("nan")


@pytest.mark.parametrize(
    "number, hits, predicted, correct, expected",
    [
        # (gold, found, predictions, right) of one bucket -> precision, recall, F
        (2, 0, 0, 0, [NAN, 0.0, 0.0]),  # nothing predicted, nothing found: F 0
        (2, 1, 0, 0, [NAN, 0.5, NAN]),  # nothing predicted, half found: F undefined
        (0, 0, 2, 0, [0.0, NAN, 0.0]),
        (0, 0, 2, 1, [0.5, NAN, NAN]),
        (0, 0, 2, 2, [1.0, NAN, NAN]),
        (2, 2, 0, 0, [NAN, 1.0, NAN]),
        (2, 0, 2, 0, [0.0, 0.0, 0.0]),
        (4, 1, 2, 1, [0.5, 0.25, 1 / 3]),
    ],
)
def test_bucket_scorer_of_one_bucket(number, hits, predicted, correct, expected):
    row = np.array([number, hits, predicted, correct])
    assert np.allclose(B.bucket_scorer([1])(row), [expected], equal_nan=True)  # NaN where undefined
    zero = B.bucket_scorer([1], undefined=False)
    one = B.bucket_scorer([1], undefined=False, zero_division=1)
    assert np.allclose(zero(row), [[0.0 if x != x else x for x in expected]])
    assert np.allclose(one(row), [[1.0 if x != x else x for x in expected]])


def test_bucket_scorer_reads_each_attribute_from_its_columns_with_beta():
    """Three attributes of one bucket each, and F2 = 5 p r / (4 p + r)."""
    score = B.bucket_scorer([1, 1, 1], beta=2)
    totals = np.array([[4, 1, 2, 1, 2, 2, 2, 1, 1, 1, 4, 1]])  # per attribute: gold, found, predicted, right
    expected = [[0.5, 0.25, 2.5 * 0.25 / 2.25, 0.5, 1.0, 2.5 / 3, 0.25, 1.0, 1.25 / 2]]
    assert np.allclose(score(totals), expected)


def test_density_counts_every_sentence_even_the_last_without_entities():
    spans = _spans([0, 2, 5], [1, 3, 6], [0, 0, 1], [0, 2, 0])
    # densities 2/4 and 1/12; the third sentence has none
    got = B._numeric_buckets("density", spans, [4, 12, 3])
    assert [B.labels_of("density")[b] for b in got.tolist()] == ["0.3+", "0.3+", "0-0.1"]


def test_sentence_length_of_no_entity_is_empty():
    for lengths in ([], [3, 5]):
        got = B._numeric_buckets("sentence_length", _spans([], [], [], []), lengths)
        assert got.tolist() == []


def test_an_entity_text_is_its_own_tokens_wherever_it_starts(metric):
    out = metric.compute(
        predictions=[["O", "B-ORG", "O"]],
        references=[["O", "B-ORG", "O"]],
        buckets=["capitalisation"],
        tokens=[["x", "NATO", "de"]],
    )["buckets"]
    assert list(out["capitalisation"]) == ["upper"]
    texts = B.entity_texts(_spans([5], [7], [1], [1]), [["a"], ["x", "New", "york", "z"]], " ")
    assert texts == ["New york"]
    assert B.entity_texts(_spans([9], [13], [1], [2]), ["", "a Bern b"], None) == ["Bern"]


def test_a_comparison_of_identical_units_has_point_intervals_of_the_f_beta_difference(metric):
    """Every unit alike in both systems: each resample's difference is the observed one, so each
    interval is the point, F2's included (the resamples score F2, not F1)."""
    references = [["B-PER", "O", "B-LOC", "B-ORG"]] * 6
    system_a = [["B-PER", "O", "O", "O"]] * 6  # length 1: p 1, r 1/3
    system_b = [["B-PER", "B-X", "B-LOC", "O"]] * 6  # length 1: p 2/3, r 2/3
    out = metric.compare(
        predictions=system_a,
        predictions_b=system_b,
        references=references,
        buckets=["entity_length"],
        beta=2,
        permutations=10,
        ci_resamples=20,
    )["buckets"]["entity_length"]["values"]["1"]
    f2_a, f2_b = 5 * (1 / 3) / (4 + 1 / 3), 5 * (4 / 9) / (4 * 2 / 3 + 2 / 3)
    assert out["difference"] == {
        "precision": pytest.approx(-1 / 3),
        "recall": pytest.approx(1 / 3),
        "f2": pytest.approx(f2_b - f2_a),
    }
    for key, value in out["difference"].items():
        assert out["intervals"][key] == [pytest.approx(value)] * 2, key


def test_compare_buckets_by_hand_from_the_rows_and_beta_alone():
    """``compare_buckets(rows_a, rows_b, layout, tables, paired, beta)``: the score names come from
    ``beta``; each bucket of either table gets b - a and its Holm-corrected p-values."""
    labels = ("1", "2")
    # per unit: gold entities, found, predicted, right; each a column per bucket
    rows_a = np.array([[2, 1, 0, 1, 1, 0, 0, 0]], dtype=np.int64)
    rows_b = np.array([[2, 1, 1, 1, 2, 1, 1, 1]], dtype=np.int64)
    calls = []

    def paired(a, b, names, score, estimate):
        calls.append(names)
        d = estimate(b.sum(axis=0))[0] - estimate(a.sum(axis=0))[0]
        return {"difference": d, "p_values": np.array([0.01 * (j + 1) for j in range(len(names))])}

    tables = ({"entity_length": {"1": {}}}, {"entity_length": {"1": {}, "2": {}}})
    out = B.compare_buckets(rows_a, rows_b, [("entity_length", labels)], tables, paired, 2.0)
    assert calls == [[f"{label}\t{key}" for key in ("precision", "recall", "f2") for label in labels]]
    values = out["entity_length"]["values"]
    assert out["entity_length"]["correction"] == "holm" and list(values) == ["1", "2"]
    assert values["1"]["difference"]["recall"] == 0.5  # 1/2 found against 0/2
    assert values["1"]["difference"]["precision"] == 0.5  # 1/2 right against 0/1
    assert values["2"]["difference"]["precision"] == 1.0  # 1/1 right against none predicted (0)
    assert values["2"]["difference"]["recall"] == 0.0
    assert values["1"]["p_values"]["f2"] == pytest.approx(0.05)
    assert values["1"]["p_values_holm"]["f2"] == pytest.approx(0.1)  # Holm over the two buckets
