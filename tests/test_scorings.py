"""Token-level, Dice-overlap and HAREM scorings; type selection, label maps, error listings.

Published examples recomputed, options validated, and properties checked against brute-force
definitions on seeded random corpora.
"""

import math
import random

import pytest

from conftest import unsigned
from ner_recall.core.decoding import decode, encode, tags_to_spans
from ner_recall.core.matching import match
from ner_recall.families import scorings as S

# EDS-NLP's example (edsnlp/metrics/ner.py): "La patiente a une fièvre aiguë ."
EDS_TOKENS = ["La", "patiente", "a", "une", "fièvre", "aiguë", "."]
EDS_GOLD = [["O", "B-PER", "O", "B-DIS", "I-DIS", "O", "O"]]
EDS_PRED = [["B-PER", "B-PER", "O", "O", "B-DIS", "I-DIS", "O"]]

# HAREM's example: one gold entity of 9 tokens, predicted as 3 + 6 (split after "Cultura")
HAREM_TOKENS = "Departamento de Cultura Científica do Centro Acadêmico Pedro Nunes".split()
HAREM_GOLD = [["B-ORG"] + ["I-ORG"] * 8]
HAREM_PRED = [["B-ORG", "I-ORG", "I-ORG", "B-ORG"] + ["I-ORG"] * 5]

ALL = ["seqeval", "muc", "token", "overlap", "harem"]
TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "I-PER"]


def get(results, path):
    for key in path.split("."):
        results = results[key]
    return results


# ---------------------------------------------------------------------------- published examples


@pytest.fixture(scope="module")
def eds_results(metric):
    return metric.compute(predictions=EDS_PRED, references=EDS_GOLD, scores=ALL, overlap_threshold=0.5)


@pytest.mark.parametrize(
    "path, expected",
    [
        # span-exact (EDS-NLP ner_exact, seqeval): micro and per label
        ("overall_precision", 1 / 3),
        ("overall_recall", 1 / 2),
        ("overall_f1", 0.4),
        ("PER.precision", 0.5),
        ("PER.recall", 1.0),
        ("DIS.f1", 0.0),
        # token-level (EDS-NLP ner_token): 3 gold items, 4 predicted, 2 shared
        ("token.precision", 0.5),
        ("token.recall", 2 / 3),
        ("token.f1", 4 / 7),
        ("token.correct", 2),
        ("token.number", 3),
        ("token.predicted", 4),
        ("token.per_type.PER.precision", 0.5),
        ("token.per_type.PER.recall", 1.0),
        ("token.per_type.DIS.precision", 0.5),
        ("token.per_type.DIS.recall", 0.5),
        # overlap at Dice 0.5 (EDS-NLP ner_overlap): "une fièvre" ~ "fièvre aiguë" has Dice 0.5
        ("overlap.precision", 2 / 3),
        ("overlap.recall", 1.0),
        ("overlap.f1", 0.8),
        ("overlap.matched_pred", 2),
        ("overlap.matched_gold", 2),
        ("overlap.predicted", 3),
        ("overlap.per_type.PER.precision", 0.5),
        ("overlap.per_type.PER.recall", 1.0),
        ("overlap.per_type.DIS.f1", 1.0),
    ],
)
def test_eds_nlp_published_example(eds_results, path, expected):
    assert get(eds_results, path) == pytest.approx(expected, abs=1e-12)


def test_eds_nlp_rounded_figures(metric):
    results = metric.compute(predictions=EDS_PRED, references=EDS_GOLD, scores=ALL)
    table = {
        "exact": (results["overall_precision"], results["overall_recall"], results["overall_f1"]),
        "token": tuple(results["token"][k] for k in ("precision", "recall", "f1")),
        "overlap": tuple(results["overlap"][k] for k in ("precision", "recall", "f1")),
    }
    rounded = {k: tuple(round(v, 2) for v in prf) for k, prf in table.items()}
    assert rounded == {"exact": (0.33, 0.5, 0.4), "token": (0.5, 0.67, 0.57), "overlap": (0.67, 1.0, 0.8)}


def test_harem_published_split_example():
    corpus = encode(HAREM_PRED, HAREM_GOLD)
    gold, pred = decode(corpus.references, corpus), decode(corpus.predictions, corpus)
    alignment = S.harem_alignment(gold, pred, match(gold, pred))
    assert len(HAREM_TOKENS) == 9 and alignment.pred.tolist() == [0, 1]
    assert [round(c, 2) for c in alignment.credit.tolist()] == [0.17, 0.33]
    assert alignment.credit.tolist() == pytest.approx([0.5 * 3 / 9, 0.5 * 6 / 9])
    assert [S.HAREM_OUTCOMES[o] for o in alignment.outcome.tolist()] == ["partial_shortage"] * 2


def test_harem_published_split_example_scores(metric):
    harem = metric.compute(predictions=HAREM_PRED, references=HAREM_GOLD, scores=["harem"])["harem"]
    assert harem == pytest.approx(
        {
            "correct": 0,
            "partial_excess": 0,
            "partial_shortage": 2,
            "missed": 0,
            "spurious": 0,
            "possible": 1,
            "actual": 2,
            "credit": 0.5,
            "precision": 0.25,
            "recall": 0.5,
            "f1": 1 / 3,
        }
    )


@pytest.mark.parametrize(
    "name, gold, pred, credit, outcome",
    [
        ("exact", ["B-X", "I-X", "O"], ["B-X", "I-X", "O"], 1.0, "correct"),
        ("exact, other type", ["B-X", "I-X", "O"], ["B-Y", "I-Y", "O"], 1.0, "correct"),
        ("excess", ["O", "B-X", "O"], ["B-X", "I-X", "I-X"], 0.5 / 3, "partial_excess"),
        ("shortage", ["B-X", "I-X", "I-X"], ["O", "B-X", "O"], 0.5 / 3, "partial_shortage"),
        (
            "shifted, more tokens",
            ["B-X", "I-X", "O", "O"],
            ["O", "B-X", "I-X", "I-X"],
            0.5 / 4,
            "partial_excess",
        ),
        ("shifted, as many", ["B-X", "I-X", "O"], ["O", "B-X", "I-X"], 0.5 / 3, "partial_shortage"),
    ],
)
def test_harem_pair_outcomes(name, gold, pred, credit, outcome):
    corpus = encode([pred], [gold])
    gold, pred = decode(corpus.references, corpus), decode(corpus.predictions, corpus)
    alignment = S.harem_alignment(gold, pred, match(gold, pred))
    assert alignment.credit.tolist() == pytest.approx([credit])
    assert [S.HAREM_OUTCOMES[o] for o in alignment.outcome.tolist()] == [outcome]


def test_harem_many_to_one(metric):
    # one prediction across two gold entities: two pairs, each partial by excess
    harem = metric.compute(
        predictions=[["B-X", "I-X", "I-X", "I-X"]], references=[["B-X", "I-X", "B-Y", "O"]], scores=["harem"]
    )["harem"]
    assert (harem["partial_excess"], harem["credit"]) == (2, pytest.approx(0.5 * 2 / 4 + 0.5 * 1 / 4))
    assert (harem["precision"], harem["recall"]) == (pytest.approx(0.375), pytest.approx(0.1875))


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"overlap_threshold": 1.5, "scores": ["overlap"]},
            r"overlap_threshold must be in \(0, 1\]; got 1\.5$",
        ),
        ({"overlap_threshold": 0, "scores": ["overlap"]}, r"overlap_threshold must be in \(0, 1\]; got 0$"),
        ({"overlap_threshold": -0.2, "scores": ["overlap"]}, r"got -0\.2$"),
        ({"overlap_threshold": float("nan"), "scores": ["overlap"]}, r"got nan$"),
        ({"overlap_threshold": True, "scores": ["overlap"]}, r"got True$"),
        ({"overlap_threshold": "0.5", "scores": ["overlap"]}, r"got '0\.5'$"),
        (
            {"overlap_threshold": 0.5},
            r"overlap_threshold only applies with 'overlap' in scores; got scores=\['seqeval', 'muc'\]",
        ),
        ({"scores": "token"}, r"scores must be a list of names; got 'token'"),
        (
            {"scores": ["seqeval", "tokens"]},
            r"scores must be a subset of \['seqeval', 'muc', 'confusion', 'token', 'overlap', 'harem', 'ranking'\]; got 'tokens'",
        ),
        ({"scores": []}, r"scores must name at least one; got \[\]"),
        ({"types": "PER"}, r"types must be a list of names; got 'PER'"),
        ({"types": []}, r"types must name at least one"),
        ({"types": ["PER", ""]}, r"types must hold non-empty strings; got ''"),
        ({"types": [1]}, r"types must hold non-empty strings; got 1"),
        ({"types": ["muc"]}, r"entity type 'muc' \(types lists 'muc'\) collides with a result key"),
        (
            {"label_map": [("GEP", "LOC")]},
            r"label_map must be a dict of predicted type -> gold type; got list",
        ),
        ({"label_map": {"GEP": 1}}, r"label_map maps 'GEP' to 1; both must be entity types"),
        ({"label_map": {"": "LOC"}}, r"label_map maps '' to 'LOC'"),
        (
            {"label_map": {"PER": "overlap"}},
            r"entity type 'overlap' \(label_map\['PER'\]\) collides with a result key",
        ),
        ({"errors": "yes"}, r"errors must be True or False; got 'yes'"),
    ],
)
def test_option_errors(metric, options, message):
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=EDS_PRED, references=EDS_GOLD, **options)


def test_default_output_is_unchanged(metric):
    default = metric.compute(predictions=EDS_PRED, references=EDS_GOLD)
    explicit = metric.compute(
        predictions=EDS_PRED,
        references=EDS_GOLD,
        scores=["muc", "seqeval"],
        types=None,
        label_map=None,
        errors=False,
    )
    assert unsigned(default) == unsigned(explicit)
    assert not {"token", "overlap", "harem", "errors"} & set(default)


@pytest.mark.parametrize(
    "scores, keys",
    [
        (["token"], {"token"}),
        (["harem", "overlap"], {"harem", "overlap"}),
        (["muc"], {"muc"}),
    ],
)
def test_only_the_families_asked_for(metric, scores, keys):
    assert set(metric.compute(predictions=EDS_PRED, references=EDS_GOLD, scores=scores)) == keys | {
        "decoding",
        "signature",
    }


# ---------------------------------------------------------------------------- selection, label maps


def test_label_map_renames_predictions(metric):
    gold = [["B-LOC", "I-LOC", "O", "B-PER"]]
    pred = [["B-GEP", "I-GEP", "O", "B-PER"]]
    plain = metric.compute(predictions=pred, references=gold)
    mapped = metric.compute(predictions=pred, references=gold, label_map={"GEP": "LOC"}, scores=ALL)
    assert (plain["overall_f1"], mapped["overall_f1"]) == (0.5, 1.0)
    assert "GEP" not in mapped and "GEP" not in mapped["muc"]["strict"]["per_type"]
    assert mapped["overall_accuracy"] == 1.0 and mapped["token"]["f1"] == 1.0 and mapped["harem"]["f1"] == 1.0


def test_types_ignore_the_others_on_both_sides(metric):
    # the LOC prediction overlapping the gold PER is dropped, so the PER is missed, not incorrect
    gold = [["B-PER", "I-PER", "O", "B-ORG"]]
    pred = [["B-LOC", "I-LOC", "O", "B-ORG"]]
    results = metric.compute(predictions=pred, references=gold, types=["PER", "ORG"], scores=ALL)
    strict = results["muc"]["strict"]
    assert (strict["correct"], strict["incorrect"], strict["missed"], strict["spurious"]) == (1, 0, 1, 0)
    assert set(strict["per_type"]) == {"ORG", "PER"} and "LOC" not in results
    assert results["harem"]["missed"] == 1 and results["overall_accuracy"] == 0.5


def test_absent_selected_type_scores_zero_counts(metric):
    results = metric.compute(predictions=EDS_PRED, references=EDS_GOLD, types=["DIS", "LOC"])
    loc = results["muc"]["strict"]["per_type"]["LOC"]
    assert (loc["possible"], loc["actual"]) == (0, 0)
    assert "LOC" not in results and "PER" not in results and "PER" not in results["muc"]["strict"]["per_type"]


def random_corpus(seed, n, max_len=9):
    rng = random.Random(seed)
    refs, preds = [], []
    for _ in range(n):
        length = rng.randint(0, max_len)
        ref = [rng.choice(TAGS) for _ in range(length)]
        pred = [t if rng.random() < 0.6 else rng.choice(TAGS) for t in ref]
        refs.append(ref)
        preds.append(pred)
    return refs, preds


def scrub(sentences, keep, rename=None):
    """Tags of unkept types as O, types renamed: what the options do to the tags (accuracy)."""
    rename = rename or {}
    out = []
    for sentence in sentences:
        new = []
        for tag in sentence:
            label = rename.get(tag[2:], tag[2:]) if tag != "O" else None
            new.append("O" if label is None or (keep and label not in keep) else f"{tag[:2]}{label}")
        out.append(new)
    return out


def reencode(sentences, keep, rename=None):
    """The entities renamed and selected, written back as IOB2 tags: what the options do to spans."""
    rename = rename or {}
    out = []
    for sentence in sentences:
        tags = ["O"] * len(sentence)
        for span in tags_to_spans(sentence):
            label = rename.get(span.label, span.label)
            if not keep or label in keep:
                tags[span.start : span.end] = [f"B-{label}"] + [f"I-{label}"] * (span.end - span.start - 1)
        out.append(tags)
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "keep, rename",
    [
        (["PER"], None),
        (["LOC", "ORG"], None),
        (None, {"LOC": "ORG"}),
        (["PER", "ORG"], {"LOC": "PER"}),
    ],
)
def test_options_equal_the_same_change_to_the_data(metric, seed, keep, rename):
    refs, preds = random_corpus(seed, 120)
    via_options = metric.compute(predictions=preds, references=refs, scores=ALL, types=keep, label_map=rename)
    by_hand = metric.compute(
        predictions=reencode(preds, keep, rename), references=reencode(refs, keep), scores=ALL
    )
    on_tags = metric.compute(predictions=scrub(preds, keep, rename), references=scrub(refs, keep))
    assert via_options.pop("overall_accuracy") == on_tags["overall_accuracy"]
    by_hand.pop("overall_accuracy")
    via_options.pop("decoding"), by_hand.pop("decoding")  # it reports the tags as given, before the options
    if keep:  # selected types absent from the rewritten data have no row there
        for mode in via_options["muc"]:
            via_options["muc"][mode]["per_type"] = {
                t: row
                for t, row in via_options["muc"][mode]["per_type"].items()
                if t in by_hand["muc"][mode]["per_type"]
            }
    assert unsigned(via_options) == unsigned(by_hand)


def test_label_map_renames_entities_without_merging_them(metric):
    # the tagger made two entities; renaming GEP does not glue them into one
    results = metric.compute(
        predictions=[["B-GEP", "I-LOC"]],
        references=[["B-LOC", "I-LOC"]],
        label_map={"GEP": "LOC"},
        scores=ALL,
    )
    assert results["overall_f1"] == 0.0 and results["overall_accuracy"] == 1.0
    assert results["token"]["f1"] == 1.0 and results["overlap"]["matched_pred"] == 2


# ---------------------------------------------------------------------------- properties


def sentence_spans(sentences):
    return [tags_to_spans(s) for s in sentences]


def brute_force(refs, preds, threshold):
    """EDS-NLP's definitions and HAREM's, spelled out per sentence on Span lists."""
    gold_spans, pred_spans = sentence_spans(refs), sentence_spans(preds)
    gold_items = {
        (i, t, s.label) for i, spans in enumerate(gold_spans) for s in spans for t in range(s.start, s.end)
    }
    pred_items = {
        (i, t, s.label) for i, spans in enumerate(pred_spans) for s in spans for t in range(s.start, s.end)
    }

    def dice(a, b):
        return 2 * max(0, min(a.end, b.end) - max(a.start, b.start)) / (a.end - a.start + b.end - b.start)

    found = right = credit = 0
    for gs, ps in zip(gold_spans, pred_spans):
        found += sum(any(g.label == p.label and dice(g, p) >= threshold for p in ps) for g in gs)
        right += sum(any(g.label == p.label and dice(g, p) >= threshold for g in gs) for p in ps)
        for g in gs:
            for p in ps:
                common = max(0, min(g.end, p.end) - max(g.start, p.start))
                if common:
                    distinct = (g.end - g.start) + (p.end - p.start) - common
                    credit += 1.0 if (g.start, g.end) == (p.start, p.end) else 0.5 * common / distinct
    n_gold, n_pred = sum(map(len, gold_spans)), sum(map(len, pred_spans))
    return {
        "token": (len(gold_items & pred_items), len(gold_items), len(pred_items)),
        "overlap": (found, right, n_gold, n_pred),
        "credit": credit,
    }


@pytest.mark.parametrize("seed, threshold", [(0, 0.5), (1, 1.0), (2, 1e-9), (3, 0.3), (4, 2 / 3), (5, 0.75)])
def test_scores_equal_brute_force_definitions(metric, seed, threshold):
    refs, preds = random_corpus(seed, 200)
    results = metric.compute(predictions=preds, references=refs, scores=ALL, overlap_threshold=threshold)
    expected = brute_force(refs, preds, threshold)
    token, overlap = results["token"], results["overlap"]
    assert (token["correct"], token["number"], token["predicted"]) == expected["token"]
    assert (
        overlap["matched_gold"],
        overlap["matched_pred"],
        overlap["number"],
        overlap["predicted"],
    ) == expected["overlap"]
    assert results["harem"]["credit"] == pytest.approx(expected["credit"])


@pytest.mark.parametrize("seed", range(4))
def test_dice_one_is_exact_matching(metric, seed):
    refs, preds = random_corpus(seed, 200)
    results = metric.compute(predictions=preds, references=refs, scores=ALL, overlap_threshold=1.0)
    overlap = results["overlap"]
    assert overlap["matched_gold"] == overlap["matched_pred"] == results["muc"]["strict"]["correct"]
    for key in ("precision", "recall", "f1", "macro_f1", "weighted_f1"):
        assert overlap[key] == pytest.approx(results[f"overall_{key}" if "_" not in key else key])
    for name, row in overlap["per_type"].items():
        assert (row["precision"], row["recall"]) == pytest.approx(
            (results[name]["precision"], results[name]["recall"])
        )


@pytest.mark.parametrize("seed", range(4))
def test_tiny_threshold_is_any_shared_token_of_the_same_type(metric, seed):
    refs, preds = random_corpus(seed, 200)
    results = metric.compute(predictions=preds, references=refs, scores=["overlap"], overlap_threshold=1e-12)
    gold_spans, pred_spans = sentence_spans(refs), sentence_spans(preds)
    found = sum(
        any(g.label == p.label and g.start < p.end and p.start < g.end for p in ps)
        for gs, ps in zip(gold_spans, pred_spans)
        for g in gs
    )
    assert results["overlap"]["matched_gold"] == found > 0


@pytest.mark.parametrize("seed", range(3))
def test_perfect_predictions_score_one_everywhere(metric, seed):
    refs, _ = random_corpus(seed, 100)
    results = metric.compute(predictions=refs, references=refs, scores=ALL)
    for family in ("token", "overlap", "harem"):
        assert (results[family]["precision"], results[family]["recall"], results[family]["f1"]) == (
            1.0,
            1.0,
            1.0,
        )
    assert results["token"]["macro_f1"] == results["token"]["weighted_f1"] == 1.0
    assert results["harem"]["correct"] == results["harem"]["possible"] > 0


def test_sentence_order_does_not_matter(metric):
    refs, preds = random_corpus(7, 150)
    order = list(range(len(refs)))
    random.Random(1).shuffle(order)
    a = metric.compute(predictions=preds, references=refs, scores=ALL)
    b = metric.compute(predictions=[preds[i] for i in order], references=[refs[i] for i in order], scores=ALL)
    assert a == b


def test_results_hold_plain_python_values(metric):
    refs, preds = random_corpus(8, 80)
    results = metric.compute(predictions=preds, references=refs, scores=ALL, errors=True)

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                yield from walk(v)
        elif isinstance(value, list):
            for v in value:
                yield from walk(v)
        else:
            yield value

    kinds = {type(v) for v in walk(results)}
    assert kinds <= {int, float, str, type(None)} and not any(
        isinstance(v, float) and math.isnan(v) for v in walk(results)
    )


# ---------------------------------------------------------------------------- error listing


def test_error_listing_of_the_published_example(metric):
    errors = metric.compute(predictions=EDS_PRED, references=EDS_GOLD, scores=ALL, errors=True)["errors"]
    assert errors["strict"] == {
        "correct": [{"sentence": 0, "gold": ["PER", 1, 2], "pred": ["PER", 1, 2]}],
        "incorrect": [{"sentence": 0, "gold": ["DIS", 3, 5], "pred": ["DIS", 4, 6]}],
        "partial": [],
        "missed": [],
        "spurious": [{"sentence": 0, "gold": None, "pred": ["PER", 0, 1]}],
    }
    assert errors["partial"]["partial"] == errors["strict"]["incorrect"]
    assert errors["overlap"]["spurious"] == errors["strict"]["spurious"]
    assert errors["harem"]["partial_shortage"] == errors["strict"]["incorrect"]
    assert set(errors) == {"strict", "exact", "partial", "type", "overlap", "harem"}


@pytest.mark.parametrize("seed", range(3))
def test_error_listing_agrees_with_the_counts(metric, seed):
    refs, preds = random_corpus(seed, 150)
    results = metric.compute(predictions=preds, references=refs, scores=ALL, errors=True)
    errors = results["errors"]
    for mode, table in results["muc"].items():
        for outcome in S.LISTED_OUTCOMES:
            assert len(errors[mode][outcome]) == table[outcome], (mode, outcome)
    for outcome in S.HAREM_OUTCOMES:
        assert len(errors["harem"][outcome]) == results["harem"][outcome], outcome
    overlap = results["overlap"]
    assert len(errors["overlap"]["missed"]) == overlap["number"] - overlap["matched_gold"]
    assert len(errors["overlap"]["spurious"]) == overlap["predicted"] - overlap["matched_pred"]
    for entry in errors["strict"]["missed"]:
        label, start, end = entry["gold"]
        tags = refs[entry["sentence"]]
        assert tags[start] in (f"B-{label}", f"I-{label}") and all(t[2:] == label for t in tags[start:end])
