"""Entity strings (eval4ner's input, LLM output): placed on their texts, then scored as spans."""

import evaluate
import pytest

from conftest import METRIC_PATH, require
from ner_recall.core.spans import occurrences, place_example, place_strings, placement_report

MODES = ("strict", "exact", "partial", "type")
COUNTS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")


@pytest.fixture(scope="module")
def spans_metric():
    return evaluate.load(METRIC_PATH, "spans")


# ---------------------------------------------------------------------------- placement

PLACEMENTS = [
    # (name, text, pairs, spans as (label, start, end), ambiguous, not found)
    ("whole words only", "Peterson met Peter", [("PER", "Peter")], [("PER", 13, 18)], [], []),
    ("inside a word: not found", "Peterson", [("PER", "Peter")], [], [], [("PER", "Peter")]),
    ("punctuation is a boundary", "(York), York.", [("LOC", "York")], [("LOC", 1, 5)], [("LOC", "York")], []),
    (
        "repeated string: next occurrence",
        "York and York",
        [("LOC", "York"), ("LOC", "York")],
        [("LOC", 0, 4), ("LOC", 9, 13)],
        [("LOC", "York"), ("LOC", "York")],
        [],
    ),
    (
        "listed more often than it occurs",
        "York",
        [("LOC", "York"), ("ORG", "York")],
        [("LOC", 0, 4)],
        [],
        [("ORG", "York")],
    ),
    ("paraphrase not found", "the United States", [("LOC", "USA")], [], [], [("LOC", "USA")]),
    ("case matters", "new york", [("LOC", "New York")], [], [], [("LOC", "New York")]),
    (
        "nested strings",
        "Bank of America",
        [("ORG", "Bank of America"), ("LOC", "America")],
        [("ORG", 0, 15), ("LOC", 8, 15)],
        [],
        [],
    ),
    (
        "order of the pairs kept",
        "Ann and Bob",
        [("PER", "Bob"), ("PER", "Ann")],
        [("PER", 8, 11), ("PER", 0, 3)],
        [],
        [],
    ),
    ("wide characters are words", "来一首告白气球", [("SONG", "告白气球")], [("SONG", 3, 7)], [], []),
    (
        "digits and underscores are word characters",
        "A1 x_A1 A1",
        [("ID", "A1")],
        [("ID", 0, 2)],
        [("ID", "A1")],
        [],
    ),
    ("accented letters are word characters", "Éric Ric", [("PER", "ric")], [], [], [("PER", "ric")]),
    ("string with spaces at its ends", "say  hi ", [("X", " hi ")], [("X", 4, 8)], [], []),
]


@pytest.mark.parametrize(
    "name, text, pairs, spans, ambiguous, missing", PLACEMENTS, ids=[p[0] for p in PLACEMENTS]
)
def test_placement(name, text, pairs, spans, ambiguous, missing):
    placed, amb, not_found = place_example(text, pairs)
    assert [(s["label"], s["start"], s["end"]) for s in placed] == spans
    assert amb == ambiguous and not_found == missing
    for s, (label, string) in zip(placed, [p for p in pairs if p not in missing]):
        assert text[s["start"] : s["end"]] == string


def test_occurrences_left_to_right_at_boundaries():
    assert occurrences("an ant, an", "an") == [0, 8]
    assert occurrences("aaa", "aa") == []  # every occurrence cuts a word


@pytest.mark.parametrize(
    "texts, entities, message",
    [
        ("text", [[]], "texts must be a list of str"),
        (["a"], "a", "entities must be a list of examples"),
        (["a", "b"], [[]], "texts has 2 items but there are 1 examples"),
        ([3], [[]], r"texts\[0\] must be a str"),
        (["a"], [[("A",)]], r"entities\[0\]\[0\] must be a \(label, string\) pair"),
        (["a"], [[("", "a")]], r"entities\[0\]\[0\] .*label must be a non-empty str"),
        (["a"], [[("A", "")]], r"entities\[0\]\[0\] .*string must be a non-empty str"),
        (["a"], [[("A", 3)]], r"entities\[0\]\[0\] .*string must be a non-empty str"),
        (["a"], [("A", "a")], r"entities\[0\]\[0\] must be a \(label, string\) pair; got 'A'"),
        (["a"], ["A"], r"entities\[0\] must be a list of \(label, string\) pairs"),
    ],
)
def test_bad_string_input(texts, entities, message):
    with pytest.raises(ValueError, match=message):
        place_strings(texts, entities)


def test_report_per_example_and_in_total(spans_metric):
    found = spans_metric.find_entities(
        ["Ann met Ann", "Bob left"], [[("PER", "Ann"), ("PER", "Jo")], [("PER", "Bob"), ("LOC", "Paris")]]
    )
    assert found["entities"] == [
        [{"label": "PER", "start": 0, "end": 3}],
        [{"label": "PER", "start": 0, "end": 3}],
    ]
    assert found["ambiguous"] == [[("PER", "Ann")], []]
    assert found["not_found"] == [[("PER", "Jo")], [("LOC", "Paris")]]
    assert found["total"] == {"strings": 4, "placed": 2, "ambiguous": 1, "not_found": 2}
    assert placement_report(place_strings([], [])) == {
        "strings": 0,
        "placed": 0,
        "ambiguous": 0,
        "not_found": 0,
    }


def test_placed_spans_score_with_texts(spans_metric):
    texts = ["John Jones and Peter Peters came to York"]
    gold = spans_metric.find_entities(texts, [[("PER", "John Jones"), ("LOC", "York")]])["entities"]
    pred = spans_metric.find_entities(texts, [[("PER", "John Jones"), ("LOC", "to York")]])["entities"]
    results = spans_metric.compute(predictions=pred, references=gold, texts=texts)
    assert results["muc"]["partial"]["partial"] == 1 and results["overall_f1"] == 0.5


# ---------------------------------------------------------------------------- eval4ner's README

TEXT = "John Jones and Peter Peters came to York"
GOLD = [("PER", "John Jones"), ("PER", "Peter Peters"), ("LOC", "York")]
PREDICTIONS = [
    [("PER", "John Jones and Peter Peters came to York")],
    [("LOC", "John Jones"), ("PER", "Peters"), ("LOC", "York")],
    [("PER", "John Jones"), ("PER", "Peter Peters"), ("LOC", "York")],
]
#: eval4ner's README, "Evaluate single prediction" (the first prediction)
README_SINGLE = {
    "strict": {
        "correct": 0,
        "incorrect": 1,
        "partial": 0,
        "missed": 2,
        "spurious": 0,
        "possible": 3,
        "actual": 1,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
    },
    "exact": {
        "correct": 0,
        "incorrect": 1,
        "partial": 0,
        "missed": 2,
        "spurious": 0,
        "possible": 3,
        "actual": 1,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
    },
    "partial": {
        "correct": 0,
        "incorrect": 0,
        "partial": 1,
        "missed": 2,
        "spurious": 0,
        "possible": 3,
        "actual": 1,
        "precision": 0.5,
        "recall": 0.16666666666666666,
        "f1": 0.25,
    },
    "type": {
        "correct": 1,
        "incorrect": 0,
        "partial": 0,
        "missed": 2,
        "spurious": 0,
        "possible": 3,
        "actual": 1,
        "precision": 1.0,
        "recall": 0.3333333333333333,
        "f1": 0.5,
    },
}
#: eval4ner's README, "Evaluate all predictions": means over the examples, to 4 decimals
README_ALL = {
    "strict": (0.4444, 0.4444, 0.4444),
    "exact": (0.5556, 0.5556, 0.5556),
    "partial": (0.7778, 0.6667, 0.6944),
    "type": (0.8889, 0.6667, 0.7222),
}


def score_strings(metric, texts, gold, pred):
    placed_gold = metric.find_entities(texts, gold)
    placed_pred = metric.find_entities(texts, pred)
    assert placed_gold["total"]["not_found"] == placed_pred["total"]["not_found"] == 0
    return metric.compute(
        predictions=placed_pred["entities"], references=placed_gold["entities"], texts=texts
    )


def test_eval4ner_single_prediction_table(spans_metric):
    muc = score_strings(spans_metric, [TEXT], [GOLD], [PREDICTIONS[0]])["muc"]
    for mode in MODES:
        ours = {k: muc[mode][k] for k in README_SINGLE[mode]}
        assert ours == pytest.approx(README_SINGLE[mode], abs=1e-12), mode


def test_eval4ner_evaluate_all_table(spans_metric):
    """eval4ner averages each example's precision, recall and F1 over the examples."""
    per_example = [score_strings(spans_metric, [TEXT], [GOLD], [pred])["muc"] for pred in PREDICTIONS]
    for mode in MODES:
        means = tuple(
            sum(m[mode][k] for m in per_example) / len(per_example) for k in ("precision", "recall", "f1")
        )
        assert tuple(round(x, 4) for x in means) == README_ALL[mode], mode


def test_eval4ner_live_parity(spans_metric):
    muc4 = require("eval4ner.muc", "pip install -r requirements-dev.txt")
    for pred in PREDICTIONS:
        theirs = muc4.evaluate_one(pred, GOLD, TEXT)
        ours = score_strings(spans_metric, [TEXT], [GOLD], [pred])["muc"]
        for mode in MODES:
            assert [ours[mode][k] for k in ("correct", "incorrect", "partial", "missed", "spurious")] == [
                theirs[mode][k] for k in ("correct", "incorrect", "partial", "missed", "spurius")
            ], (pred, mode)
            for k, their_key in (("precision", "precision"), ("recall", "recall"), ("f1", "f1_score")):
                assert ours[mode][k] == pytest.approx(theirs[mode][their_key], abs=1e-12)


#: eval4ner's scenario table (its README gives the strings, not the texts: these texts hold them)
SCENARIOS = [  # (scenario, text, gold, prediction)
    ("III", "我想听告白气球", [("MUSIC_NAME", "告白气球")], []),
    ("II", "播放年轮", [], [("MUSIC_NAME", "年轮")]),
    ("V", "来一首告白气球", [("MUSIC_NAME", "告白气球")], [("MUSIC_NAME", "一首告白气球")]),
    ("IV", "播放告白气球", [("MUSIC_NAME", "告白气球")], [("SINGER", "告白气球")]),
    ("I", "播放告白气球", [("MUSIC_NAME", "告白气球")], [("MUSIC_NAME", "告白气球")]),
    ("VI", "来一首告白气球", [("MUSIC_NAME", "告白气球")], [("SINGER", "一首告白气球")]),
]
#: its totals: (correct, incorrect, partial, missed, spurious, precision, recall, f1) per mode
README_SCENARIO_TOTALS = {
    "type": (2, 2, 0, 1, 1, 0.4, 0.4, 0.4),
    "partial": (2, 0, 2, 1, 1, 0.6, 0.6, 0.6),
    "exact": (2, 2, 0, 1, 1, 0.4, 0.4, 0.4),
    "strict": (1, 3, 0, 1, 1, 0.2, 0.2, 0.2),
}


def test_eval4ner_scenario_table(spans_metric):
    texts = [s[1] for s in SCENARIOS]
    muc = score_strings(spans_metric, texts, [s[2] for s in SCENARIOS], [s[3] for s in SCENARIOS])["muc"]
    for mode, expected in README_SCENARIO_TOTALS.items():
        ours = tuple(
            muc[mode][k]
            for k in ("correct", "incorrect", "partial", "missed", "spurious", "precision", "recall", "f1")
        )
        assert ours == pytest.approx(expected, abs=1e-12), mode


@pytest.mark.parametrize("seed", range(5))
def test_placement_properties(seed):
    """On random texts: every placed span holds its string at word boundaries, no two pairs of
    one string share an occurrence, and every pair is placed or reported not found."""
    import random

    rng = random.Random(seed)
    words = ["Ann", "Bob", "New York", "York", "of", "Bank of America", "America", "Ann-Marie", "告白", "x"]
    for _ in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        pairs = [(rng.choice("AB"), rng.choice(words)) for _ in range(rng.randint(0, 6))]
        spans, ambiguous, missing = place_example(text, pairs)
        assert len(spans) + len(missing) == len(pairs)
        placed = [p for p in pairs if p not in missing] if not missing else None
        seen = set()
        for s in spans:
            string = text[s["start"] : s["end"]]
            assert s["start"] in occurrences(text, string)
            assert (s["start"], string) not in seen
            seen.add((s["start"], string))
        for label, string in missing:
            taken = sum(text[s["start"] : s["end"]] == string for s in spans)
            assert taken == len(occurrences(text, string))
        for label, string in ambiguous:
            assert len(occurrences(text, string)) > 1
        assert placed is None or [(s["label"], text[s["start"] : s["end"]]) for s in spans] == placed
