"""Several golds: known splits on a small corpus with a corrected, a retokenized and a
sentence-merged gold; properties on random corpora; gold against gold; errors that point.

The hand corpus: "conll03" (the original), "plus" (Germany LOC -> ORG, Paris removed, "said"
added as MISC; same tokens) and "clean" (SKIING-WORLD retokenized as SKIING - WORLD, the last two
sentences merged, Germany and Italy LOC -> ORG). The system is on conll03's tokens.
"""

import random
import re

import pytest

S0 = ["SKIING-WORLD", "CUP", "in", "Paris", "."]
S1 = ["Germany", "beat", "Italy"]
S2 = ["Hans", "Müller", "said"]
TOKENS = [S0, S1, S2]
CONLL03 = {
    "tokens": TOKENS,
    "tags": [["B-MISC", "I-MISC", "O", "B-LOC", "O"], ["B-LOC", "O", "B-LOC"], ["B-PER", "I-PER", "O"]],
}
PLUS = {
    "tokens": TOKENS,
    "tags": [["B-MISC", "I-MISC", "O", "O", "O"], ["B-ORG", "O", "B-LOC"], ["B-PER", "I-PER", "B-MISC"]],
}
CLEAN = {
    "tokens": [["SKIING", "-", "WORLD", "CUP", "in", "Paris", "."], S1 + S2],
    "tags": [
        ["B-MISC", "I-MISC", "I-MISC", "I-MISC", "O", "B-LOC", "O"],
        ["B-ORG", "O", "B-ORG", "B-PER", "I-PER", "O"],
    ],
}
SYSTEM = {
    "tokens": TOKENS,
    "tags": [["B-MISC", "I-MISC", "O", "B-LOC", "O"], ["B-ORG", "O", "O"], ["B-PER", "O", "O"]],
}
GOLDS = {"conll03": CONLL03, "plus": PLUS, "clean": CLEAN}
TEXTS = ["SKIING-WORLD CUP in Paris .", "Germany beat Italy\nHans Müller said"]

#: the splits worked out by hand (module docstring): per gold, correct / false positives / missed
SPLITS = {
    "conll03": ((1, 1), (1, 1), (1, 2)),
    "plus": ((1, 1), (1, 1), (1, 2)),
    "clean": ((1, 2), (1, 0), (1, 1)),
}


def split_tuple(split: dict) -> tuple:
    c, fp, fn = split["correct"], split["false_positives"], split["false_negatives"]
    return (
        (c["under_every_gold"], c["disputed"]),
        (fp["wrong_under_every_gold"], fp["disputed"]),
        (fn["missed_under_every_gold"], fn["disputed"]),
    )


@pytest.fixture(scope="module", params=[None, TEXTS], ids=["tokens", "texts"])
def hand(metric, request):
    return metric.compute_golds(predictions=SYSTEM, references=GOLDS, texts=request.param)


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_known_splits_per_gold(hand, name):
    assert split_tuple(hand["split"][name]) == SPLITS[name]


def test_each_prediction_is_right_everywhere_disputed_or_wrong_everywhere(hand):
    assert hand["predictions"] == {"right_under_every_gold": 1, "disputed": 2, "wrong_under_every_gold": 1}
    assert [(d["entity"][0], d["right_under"]) for d in hand["disputed"]] == [
        ("LOC", ["conll03", "clean"]),
        ("ORG", ["plus", "clean"]),
    ]


@pytest.mark.parametrize(
    "pair, counts, f1",
    [
        (
            "conll03 vs plus",
            {"added": {"MISC": 1}, "removed": {"LOC": 1}, "type_changed": {"LOC->ORG": 1}},
            0.6,
        ),
        ("conll03 vs clean", {"type_changed": {"LOC->ORG": 2}}, 0.6),
        (
            "plus vs clean",
            {"added": {"LOC": 1}, "removed": {"MISC": 1}, "type_changed": {"LOC->ORG": 1}},
            0.6,
        ),
    ],
)
def test_gold_against_gold(hand, pair, counts, f1):
    versus = hand["gold_vs_gold"][pair]
    assert versus["counts"] == counts
    assert versus["f1"] == pytest.approx(f1)
    assert sum(map(len, counts.values())) and all(c["sentence"] for c in versus["changes"])


def test_each_gold_is_scored_as_compute_scores_it(hand):
    for name, (correct, fp, fn) in SPLITS.items():
        strict = hand["golds"][name]["muc"]["strict"]
        assert strict["correct"] == sum(correct)
        assert strict["actual"] - strict["correct"] == sum(fp)
        assert strict["possible"] - strict["correct"] == sum(fn)
        assert hand["golds"][name]["signature"].startswith("nrm1.1/spans|")
    assert hand["golds"]["conll03"]["overall_f1"] == pytest.approx(2 * 0.5 * 0.4 / 0.9)


def test_alignment_says_how_sentences_were_grouped(hand):
    a = hand["alignment"]
    assert a["units"] == 2 and hand["units"] == "characters"
    assert a["sides"]["clean"] == {"sentences": 2, "tokens": 13}
    assert a["units_of_several_sentences"] == {"predictions": 1, "conll03": 1, "plus": 1, "clean": 0}


def test_with_texts_offsets_are_in_the_documents(metric):
    d = metric.gold_differences(CONLL03, CLEAN, texts=TEXTS)
    units = ["SKIING-WORLD CUP in Paris .", "Germany beat Italy\nHans Müller said"]
    assert [units[c["unit"]][c["a"][1] : c["a"][2]] for c in d["changes"]] == ["Germany", "Italy"]
    assert d["changes"][0]["sentence"] == "Germany beat Italy Hans Müller said"


def test_one_tokenization_as_tag_lists_gives_the_same_splits(metric):
    tags = {name: gold["tags"] for name, gold in GOLDS.items() if name != "clean"}
    ours = metric.compute_golds(predictions=SYSTEM["tags"], references=tags)
    aligned = metric.compute_golds(predictions=SYSTEM, references={n: GOLDS[n] for n in tags})
    assert ours["units"] == "sentences" and "alignment" not in ours
    assert ours["split"] == aligned["split"] and ours["predictions"] == aligned["predictions"]
    for name in tags:
        assert ours["golds"][name]["overall_f1"] == aligned["golds"][name]["overall_f1"]
        assert ours["golds"][name] == metric.compute(predictions=SYSTEM["tags"], references=tags[name])


def test_a_retokenized_and_merged_gold_with_the_same_entities_changes_nothing(metric):
    same = {
        "tokens": CLEAN["tokens"],
        "tags": [
            ["B-MISC", "I-MISC", "I-MISC", "I-MISC", "O", "B-LOC", "O"],
            ["B-LOC", "O", "B-LOC", "B-PER", "I-PER", "O"],
        ],
    }
    d = metric.gold_differences(CONLL03, same)
    assert d["changes"] == [] and d["f1"] == 1.0
    both = metric.compute_golds(predictions=SYSTEM, references={"a": CONLL03, "b": same})
    assert both["predictions"]["disputed"] == 0
    assert both["golds"]["a"]["overall_f1"] == both["golds"]["b"]["overall_f1"]


# ---------------------------------------------------------------------------- properties


def random_tags(rng: random.Random, n: int) -> list:
    return [
        [rng.choice(["O", "O", "B-A", "I-A", "B-B", "I-B"]) for _ in range(rng.randint(1, 8))]
        for _ in range(n)
    ]


def perturbed(rng: random.Random, tags: list) -> list:
    return [[t if rng.random() < 0.8 else rng.choice(["O", "B-A", "B-B", "I-B"]) for t in s] for s in tags]


@pytest.mark.parametrize("seed", range(6))
def test_splits_add_up_to_each_gold_counts(metric, seed):
    rng = random.Random(seed)
    base = random_tags(rng, 40)
    golds = {f"g{i}": perturbed(rng, base) for i in range(rng.randint(1, 4))}
    results = metric.compute_golds(predictions=perturbed(rng, base), references=golds)
    for name, split in results["split"].items():
        strict = results["golds"][name]["muc"]["strict"]
        (ce, cd), (fw, fd), (me, md) = split_tuple(split)
        assert (ce + cd, fw + fd, me + md) == (
            strict["correct"],
            strict["actual"] - strict["correct"],
            strict["possible"] - strict["correct"],
        )
        if len(golds) == 1:
            assert cd == fd == md == 0
    p = results["predictions"]
    assert sum(p.values()) == results["golds"]["g0"]["muc"]["strict"]["actual"]
    assert p["disputed"] == len(results["disputed"])


@pytest.mark.parametrize("seed", range(6))
def test_differences_mirror_and_a_gold_equals_itself(metric, seed):
    rng = random.Random(seed)
    a = random_tags(rng, 30)
    b = perturbed(rng, a)
    ab, ba = metric.gold_differences(a, b), metric.gold_differences(b, a)
    assert ab["counts"].get("removed", {}) == ba["counts"].get("added", {})
    assert ab["counts"].get("added", {}) == ba["counts"].get("removed", {})
    flips = {"->".join(k.split("->")[::-1]): v for k, v in ab["counts"].get("type_changed", {}).items()}
    assert flips == ba["counts"].get("type_changed", {})
    assert (ab["precision"], ab["recall"]) == (ba["recall"], ba["precision"])
    same = metric.gold_differences(a, a)
    assert same["changes"] == [] and same["f1"] == (1.0 if same["entities"]["a"] else 0.0)


def test_every_entity_outside_the_other_gold_is_listed_once(metric):
    a = [["B-PER", "I-PER", "O", "O"]]
    b = [["B-PER", "B-LOC", "I-LOC", "O"]]  # PER shortened, a LOC overlapping a's PER
    d = metric.gold_differences(a, b)
    listed_a = [c["a"] for c in d["changes"] if c["a"] is not None]
    listed_b = [c["b"] for c in d["changes"] if c["b"] is not None]
    assert ["PER", 0, 2] in listed_a and ["PER", 0, 1] in listed_b and ["LOC", 1, 3] in listed_b
    assert d["counts"] == {"boundary_changed": {"PER->LOC": 1, "PER->PER": 1}}


@pytest.mark.parametrize("seed", range(4))
def test_splitting_a_token_into_characters_keeps_every_entity(metric, seed):
    rng = random.Random(seed)
    tags = random_tags(rng, 20)
    tokens = [[f"w{i}x{j}" for j in range(len(s))] for i, s in enumerate(tags)]
    pieces, piece_tags = [], []
    for sentence, ts in zip(tokens, tags):
        ps, pt = [], []
        for token, tag in zip(sentence, ts):
            for k, ch in enumerate(token):
                ps.append(ch)
                pt.append(tag if k == 0 or tag == "O" else "I-" + tag[2:])
        pieces.append(ps)
        piece_tags.append(pt)
    d = metric.gold_differences({"tokens": tokens, "tags": tags}, {"tokens": pieces, "tags": piece_tags})
    assert d["changes"] == [] and d["entities"]["a"] == d["entities"]["b"]


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "references, words",
    [
        ([CONLL03], "references must be a mapping"),
        ({}, "references is empty"),
        ({3: CONLL03}, "gold names must be non-empty strings; got 3"),
        ({"": CONLL03}, "gold names must be non-empty strings"),
        ({"predictions": CONLL03}, "may not be named 'predictions'"),
        ({"a": CONLL03["tags"]}, "predictions is given with its tokens but a is not"),
        ({"a": {"tokens": TOKENS}}, "must be tag lists or"),
        ({"a": {"tokens": TOKENS[:2], "tags": CONLL03["tags"]}}, "2 sentences of tokens but 3 of tags"),
        ({"a": {"tokens": [S0, S1, S2[:2]], "tags": CONLL03["tags"]}}, "sentence 2 has 2 tokens but 3 tags"),
        (
            {"a": {"tokens": [S0, ["Germany", "beat", "Italia"], S2], "tags": CONLL03["tags"]}},
            r"gold 'a' does not align with 'predictions': document 0, character 38 .*'i' in 'a' "
            r"\(its sentence 1, token 2: 'Italia'\), 'y' in 'predictions'",
        ),
    ],
)
def test_bad_golds_are_named(metric, references, words):
    with pytest.raises(ValueError, match=words):
        metric.compute_golds(predictions=SYSTEM, references=references)
    assert metric.compute_golds(predictions=SYSTEM, references={"a": CONLL03})["predictions"]


def test_a_gold_of_another_text_names_the_gold_document_and_character(metric):
    texts = ["SKIING-WORLD CUP in Paris .", "Germany beat Italy\nHans Muller said"]
    with pytest.raises(
        ValueError, match=r"the predictions does not align with the texts: document 1, character 25"
    ):
        metric.compute_golds(predictions=SYSTEM, references=GOLDS, texts=texts)


@pytest.mark.parametrize(
    "call, words",
    [
        (
            {"texts": TEXTS, "predictions": SYSTEM["tags"], "references": {"a": CONLL03["tags"]}},
            "texts needs the tokens",
        ),
        (
            {"predictions": SYSTEM, "references": GOLDS, "document_ids": [0, 1, 2]},
            "document_ids has one value per sentence",
        ),
        (
            {"predictions": SYSTEM["tags"], "references": {"a": [["O"]]}},
            "not tokenized as 'predictions' \\(sentence 0\\)",
        ),
        ({"predictions": SYSTEM, "references": GOLDS, "bogus": 1}, "unknown compute option 'bogus'"),
    ],
)
def test_bad_calls_are_named(metric, call, words):
    with pytest.raises(ValueError, match=words):
        metric.compute_golds(**call)


def test_gold_differences_reads_decoding_options_and_types_only(metric):
    with pytest.raises(ValueError, match="decoding options and types only; got 'ci_resamples'"):
        metric.gold_differences(CONLL03, PLUS, ci_resamples=10)
    only_loc = metric.gold_differences(CONLL03, PLUS, types=["LOC"])
    assert only_loc["counts"] == {"removed": {"LOC": 2}}


def test_the_speed_table_in_the_docs_is_the_benchmark_output():
    import os

    from conftest import ROOT

    with open(os.path.join(ROOT, "bench", "golds.md"), encoding="utf-8") as f:
        table = [line for line in f.read().splitlines() if line.startswith("|")]
    with open(os.path.join(ROOT, "docs", "golds.md"), encoding="utf-8") as f:
        block = f.read().split("<!-- golds -->\n")[1].split("<!-- /golds -->")[0].splitlines()
    assert block == table


@pytest.mark.parametrize(
    "call, place",
    [
        (
            lambda m: m.compute_golds(
                predictions=[["O", "B-PER"]], references={"a": [["O", "O"]], "b": [["O", "X-PER"]]}
            ),
            "references['b'][0][1]",
        ),
        (
            lambda m: m.compute_golds(
                predictions=[["O", "X-PER"]], references={"a": [["O", "O"]], "b": [["O", "O"]]}
            ),
            "predictions[0][1]",
        ),
        (lambda m: m.gold_differences([["X-PER", "O"]], [["O", "O"]]), "gold_a[0][0]"),
        (lambda m: m.gold_differences([["O", "B-PER"]], [["O", "X-PER"]]), "gold_b[0][1]"),
    ],
)
def test_a_bad_tag_is_named_at_its_own_side(metric, call, place):
    with pytest.raises(ValueError, match=rf"invalid tag 'X-PER' at {re.escape(place)} "):
        call(metric)
