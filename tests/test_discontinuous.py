"""Discontinuous entities (``"fragments"``) in the span configs (``docs/discontinuous.md``): the
definitions as tables with hand arithmetic, Dai et al.'s (ACL 2020) scores on a CADEC-style
sample, properties, errors with their places."""

import os
import random

import evaluate
import pytest

from conftest import METRIC_PATH, ROOT, unsigned

SAMPLE = os.path.join(ROOT, "tests", "data", "cadec_sample")
ALL = ["seqeval", "muc", "token", "overlap", "confusion"]


@pytest.fixture(scope="module")
def spans():
    return evaluate.load(METRIC_PATH, "spans")


def ent(label, start, end, *fragments):
    entity = {"label": label, "start": start, "end": end}
    if fragments:
        entity["fragments"] = [list(f) for f in fragments]
    return entity


def read_brat(ann, lines):
    """brat-like ``T1<TAB>LABEL s e;s e<TAB>text`` lines, offsets in the document; one example per
    line of the text: entities with offsets within their line, the text checked against them."""
    text = "\n".join(lines) + "\n"
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    examples = [[] for _ in lines]
    for row in ann.splitlines():
        _, spec, surface = row.split("\t")
        label, places = spec.split(" ", 1)
        pairs = [tuple(map(int, p.split())) for p in places.split(";")]
        assert " ".join(text[s:e] for s, e in pairs) == surface  # the sample is written right
        i = max(k for k, s in enumerate(starts) if s <= pairs[0][0])
        local = [(s - starts[i], e - starts[i]) for s, e in pairs]
        examples[i].append(ent(label, local[0][0], local[-1][1], *(local if len(local) > 1 else ())))
    return examples


@pytest.fixture(scope="module")
def sample():
    lines = open(os.path.join(SAMPLE, "sample.txt")).read().splitlines()
    gold = read_brat(open(os.path.join(SAMPLE, "gold.ann")).read(), lines)
    pred = read_brat(open(os.path.join(SAMPLE, "pred.ann")).read(), lines)
    return lines, gold, pred


def dai_scores(gold, pred):
    """Dai et al.'s evaluation from its definition: a mention is (label, fragments), right when the
    same mention is on the other side of its sentence; micro P/R/F over all mentions, over the
    discontinuous mentions only, and over every mention of the sentences with a gold
    discontinuous one."""

    def key(e):
        return e["label"], tuple(map(tuple, e.get("fragments", [[e["start"], e["end"]]])))

    def prf(tp_pred, n_pred, tp_gold, n_gold):
        p, r = tp_pred / n_pred, tp_gold / n_gold
        return p, r, 2 * p * r / (p + r) if p + r else 0.0

    def counts(pairs, keep):
        tp_p = n_p = tp_g = n_g = 0
        for g, p in pairs:
            gk, pk = {key(e) for e in g}, {key(e) for e in p}
            tp_p += sum(1 for k in pk if keep(k) and k in gk)
            n_p += sum(1 for k in pk if keep(k))
            tp_g += sum(1 for k in gk if keep(k) and k in pk)
            n_g += sum(1 for k in gk if keep(k))
        return prf(tp_p, n_p, tp_g, n_g)

    pairs = list(zip(gold, pred))
    with_disc = [(g, p) for g, p in pairs if any("fragments" in e for e in g)]
    return {
        "all": counts(pairs, lambda k: True),
        "discontinuous": counts(pairs, lambda k: len(k[1]) > 1),
        "sentences": counts(with_disc, lambda k: True),
    }


def test_the_sample_scores_as_dai_et_al_define(spans, sample):
    lines, gold, pred = sample
    results = spans.compute(predictions=pred, references=gold, texts=lines, scores=ALL)
    dai = dai_scores(gold, pred)
    # by hand: 8 gold, 8 predicted, 5 equal (both of line 0, "aches in legs", "tired", "pain in upper back")
    assert dai["all"] == (5 / 8, 5 / 8, 5 / 8)
    assert (results["overall_precision"], results["overall_recall"], results["overall_f1"]) == dai["all"]
    # discontinuous: 4 gold (muscle pain, cramps in legs, both back pains), 3 predicted (muscle pain,
    # tired dizzy, pain in upper back), 2 right: P 2/3, R 2/4, F 2 (1/3) / (7/6) = 4/7
    assert dai["discontinuous"] == pytest.approx((2 / 3, 1 / 2, 4 / 7))
    d = results["discontinuous"]
    assert (d["precision"], d["recall"], d["f1"]) == pytest.approx(dai["discontinuous"])
    assert (d["correct"], d["number"], d["predicted"]) == (2, 4, 3)
    # sentences with a gold discontinuous entity: lines 0, 1, 3; 6 gold, 6 predicted, 4 right
    s = d["sentences"]
    assert dai["sentences"] == pytest.approx((4 / 6,) * 3)
    assert (s["precision"], s["recall"], s["f1"]) == pytest.approx(dai["sentences"])
    assert (s["examples"], s["correct"], s["number"], s["predicted"]) == (3, 4, 6, 6)


def test_the_muc_modes_on_the_sample(spans, sample):
    """By hand: 5 exact pairs; "cramps" inside "cramps ... in legs", "tired ... dizzy" against "dizzy"
    (after "tired" took its exact twin), "lower back" inside "pain in ... lower back": 3 overlaps of
    the same type; nothing missed or spurious."""
    _, gold, pred = sample
    muc = spans.compute(predictions=pred, references=gold)["muc"]
    assert [muc["strict"][k] for k in ("correct", "incorrect", "partial", "missed", "spurious")] == [
        5,
        3,
        0,
        0,
        0,
    ]
    assert [muc["exact"][k] for k in ("correct", "incorrect")] == [5, 3]
    assert [muc["partial"][k] for k in ("correct", "partial")] == [5, 3]
    assert muc["partial"]["recall"] == (5 + 0.5 * 3) / 8
    assert muc["type"]["correct"] == 8


# one example, tokens: muscle 0, and 1, joint 2, pain 3; gold "muscle ... pain" and "joint pain"
MUSCLE_PAIN = ent("ADR", 0, 4, (0, 1), (3, 4))
JOINT_PAIN = ent("ADR", 2, 4)

# (name, predictions, MUC partial [correct, partial, missed, spurious], token [correct, number, predicted])
TABLE = [
    # all equal; tokens {0, 3} | {2, 3} = {0, 2, 3} on both sides
    ("every fragment equal", [MUSCLE_PAIN, JOINT_PAIN], [2, 0, 0, 0], [3, 3, 3]),
    # the extent [0, 4) shares 2 positions with "muscle ... pain" (Dice 2*2/(2+4)) and 2 with "joint pain"
    # (2*2/(4+2)): a tie, the leftmost gold entity wins; tokens: predicted {0, 1, 2, 3}, 3 found
    ("the extent is not the entity", [ent("ADR", 0, 4)], [0, 1, 1, 0], [3, 3, 4]),
    # "and joint" [1, 3): inside the extent of "muscle ... pain" but no shared position: overlaps
    # "joint pain" only (position 2)
    ("no shared position, no overlap", [ent("ADR", 1, 3)], [0, 1, 1, 0], [1, 3, 2]),
    # "and" alone: within the extent of "muscle ... pain", shares nothing with either: spurious
    ("inside the gap", [ent("ADR", 1, 2)], [0, 0, 2, 1], [0, 3, 1]),
    # one fragment right: "muscle ... pain" against "muscle" shares 1 position
    ("one fragment of two", [ent("ADR", 0, 1), JOINT_PAIN], [1, 1, 0, 0], [3, 3, 3]),
    # fragments that differ from the gold's: [0,1] + [2,4] shares 2 with "muscle ... pain" (not exact)
    ("other fragments, same extent", [ent("ADR", 0, 4, (0, 1), (2, 4)), JOINT_PAIN], [1, 1, 0, 0], [3, 3, 3]),
]


@pytest.mark.parametrize("predictions, partial, token", [r[1:] for r in TABLE], ids=[r[0] for r in TABLE])
def test_definitions(spans, predictions, partial, token):
    results = spans.compute(predictions=[predictions], references=[[MUSCLE_PAIN, JOINT_PAIN]], scores=ALL)
    p = results["muc"]["partial"]
    assert [p["correct"], p["partial"], p["missed"], p["spurious"]] == partial
    t = results["token"]
    assert [t["correct"], t["number"], t["predicted"]] == token


def test_the_overlap_family_reads_fragments(spans):
    """Dice over positions: "muscle" against "muscle ... pain" is 2 * 1 / (1 + 2) = 0.67 >= 0.5, a hit;
    against the extent [0, 4) it would be 2 / 5 = 0.4."""
    results = spans.compute(predictions=[[ent("ADR", 0, 1)]], references=[[MUSCLE_PAIN]], scores=["overlap"])
    overlap = results["overlap"]
    assert (overlap["matched_gold"], overlap["matched_pred"], overlap["recall"]) == (1, 1, 1.0)


def shuffled(examples, seed):
    rng = random.Random(seed)
    return [rng.sample(example, len(example)) for example in examples]


@pytest.mark.parametrize("seed", range(3))
def test_order_of_the_entities_does_not_matter(spans, sample, seed):
    lines, gold, pred = sample
    want = spans.compute(predictions=pred, references=gold, scores=ALL)
    assert (
        spans.compute(predictions=shuffled(pred, seed), references=shuffled(gold, seed + 7), scores=ALL)
        == want
    )


def test_one_fragment_is_a_plain_entity(spans, sample):
    """An entity with a single fragment equal to [start, end] scores as the plain entity, in every
    family (harem and errors too: no entity has several fragments)."""
    _, gold, pred = sample
    gold, pred = gold[:3], pred[:3]  # line 3 holds two entities of one extent: not plain input

    def plain(examples):
        return [[ent(e["label"], e["start"], e["end"]) for e in x] for x in examples]

    def single(examples):
        return [[ent(e["label"], e["start"], e["end"], (e["start"], e["end"])) for e in x] for x in examples]

    scores = ALL + ["harem"]
    want = spans.compute(predictions=plain(pred), references=plain(gold), scores=scores, errors=True)
    got = spans.compute(predictions=single(pred), references=single(gold), scores=scores, errors=True)
    assert got == want and "discontinuous" not in got


def test_types_and_label_map_keep_each_entity_its_fragments(spans, sample):
    """Entities of a type not selected are dropped with their fragments: the rest score as if the
    dropped ones were never given."""
    _, gold, pred = sample
    noise = [[ent("DRUG", 6, 13)] if i == 2 else [] for i in range(len(gold))]
    with_noise = [g + n for g, n in zip(gold, noise)]
    want = spans.compute(predictions=pred, references=gold, scores=ALL)
    got = spans.compute(predictions=pred, references=with_noise, scores=ALL, types=["ADR"])
    assert unsigned(got) == unsigned(want)
    renamed = [[dict(e, label="AE") for e in x] for x in pred]
    got = spans.compute(predictions=renamed, references=gold, scores=ALL, label_map={"AE": "ADR"})
    assert unsigned(got) == unsigned(want)


def test_slices_read_fragments(spans, sample):
    """A slice holding every example scores as the whole, token family included."""
    _, gold, pred = sample
    results = spans.compute(predictions=pred, references=gold, scores=ALL, slices=["all"] * len(gold))
    whole = results["slices"]["slice"]["values"]["all"]
    assert whole["token"] == results["token"] and whole["overall_f1"] == results["overall_f1"]


RULE = "fragments must be sorted, non-overlapping, non-adjacent"
ERRORS = [
    ("unsorted", ent("A", 0, 6, (4, 6), (0, 2))),
    ("overlapping", ent("A", 0, 6, (0, 3), (2, 6))),
    ("adjacent", ent("A", 0, 6, (0, 3), (3, 6))),
    ("first not at the start", ent("A", 0, 6, (1, 2), (4, 6))),
    ("last not at the end", ent("A", 0, 6, (0, 2), (4, 5))),
    ("a single fragment other than the entity", ent("A", 0, 6, (0, 5))),
    ("empty fragment", ent("A", 0, 6, (0, 2), (4, 4), (5, 6))),
    ("not a pair", {"label": "A", "start": 0, "end": 6, "fragments": [[0, 2, 3], [4, 6]]}),
    ("not ints", {"label": "A", "start": 0, "end": 6, "fragments": [[0, 2.0], [4, 6]]}),
    ("empty list", {"label": "A", "start": 0, "end": 6, "fragments": []}),
    ("not a list", {"label": "A", "start": 0, "end": 6, "fragments": 5}),
]


@pytest.mark.parametrize("entity", [r[1] for r in ERRORS], ids=[r[0] for r in ERRORS])
def test_bad_fragments_are_named_and_the_metric_stays_usable(spans, entity):
    references = [[ent("B", 0, 1)], [ent("B", 8, 9), entity]]  # sorted, the bad one comes first
    with pytest.raises(ValueError) as error:
        spans.compute(predictions=[[], []], references=references)
    assert str(error.value).startswith(f"references[1][1] {entity!r}: {RULE}")
    assert (
        spans.compute(predictions=[[], []], references=[[ent("B", 0, 1)], []])["muc"]["strict"]["missed"] == 1
    )


@pytest.mark.parametrize(
    "options, what",
    [
        ({"scores": ["seqeval", "harem"]}, "the 'harem' family"),
        ({"errors": True}, "errors=True"),
        ({"buckets": ["entity_length"]}, "buckets"),
    ],
)
def test_what_does_not_read_fragments_refuses_them(spans, options, what):
    predictions = [[ent("ADR", 0, 1)], [ent("ADR", 0, 4, (0, 1), (3, 4))]]
    with pytest.raises(ValueError, match=rf"predictions\[1\]\[0\] has several fragments, which {what}"):
        spans.compute(predictions=predictions, references=[[], []], **options)
    assert spans.compute(predictions=predictions, references=[[], []])["muc"]["strict"]["spurious"] == 2


def test_agreement_and_the_state_refuse_fragments(spans):
    a = [[MUSCLE_PAIN]]
    b = [[ent("ADR", 0, 4)]]
    with pytest.raises(
        ValueError, match=r"annotations\[1\]\[0\]\[0\] has several fragments, which agreement"
    ):
        spans.agreement([b, a], texts=["pain"])
    with pytest.raises(ValueError, match=r"references\[0\]\[0\] has several fragments, which the state"):
        spans.state(predictions=b, references=a)
    assert spans.agreement([b, b], texts=["pain"])["f1"]["strict"] == 1.0


def test_the_stream_refuses_fragments(spans):
    with pytest.raises(ValueError, match=r"references\[0\]\[0\] has 'fragments'"):
        spans.add_batch(predictions=[[]], references=[[MUSCLE_PAIN]])
    assert spans.compute(predictions=[[JOINT_PAIN]], references=[[JOINT_PAIN]])["overall_f1"] == 1.0


def test_fragment_free_input_takes_the_plain_path(spans, monkeypatch):
    """Without fragments the matching is never given any: the plain path, as fast as before."""
    from ner_recall.core import matching as ner_matching
    from ner_recall.core.spans import encode_spans
    from ner_recall.families import discontinuous as ner_fragments

    def fail(*args, **kwargs):
        raise AssertionError("fragment logic on plain input")

    monkeypatch.setattr(ner_fragments, "pair_overlap", fail)
    match = ner_matching.match

    corpus = encode_spans([[ent("A", 0, 2)]], [[ent("A", 0, 2), ent("A", 1, 3)]])
    assert list(match(corpus.gold, corpus.pred).scenario) == [0]
    overlap = ner_fragments.fragment_overlap(({}, {}))
    assert overlap is None and list(match(corpus.gold, corpus.pred, overlap).scenario) == [0]
    assert spans.compute(predictions=[[ent("A", 0, 2)]], references=[[ent("A", 0, 2)]])["overall_f1"] == 1.0


def test_the_matching_takes_the_fragment_overlap_from_its_caller():
    """The core knows no feature: the matching is given the fragments' pair overlap as a callable
    (here one saying that every candidate pair shares no position: no pair survives)."""
    import numpy as np

    from ner_recall.core import matching as ner_matching
    from ner_recall.core.spans import encode_spans

    def disjoint(g, p, gold, pred):
        n = len(g)
        return (
            np.ones(n, bool),
            np.zeros(n, np.int64),
            np.ones(n, np.int64),
            np.ones(n, np.int64),
            np.zeros(n, bool),
        )

    corpus = encode_spans([[ent("A", 0, 2)]], [[ent("A", 0, 2)]])
    assert list(ner_matching.match(corpus.gold, corpus.pred).gold) == [0]
    assert list(ner_matching.match(corpus.gold, corpus.pred, disjoint).gold) == []


@pytest.mark.parametrize("module", ["vocabulary", "tags", "decoding", "matching", "counts"])
def test_the_core_imports_no_feature_module(module):
    """The vocabulary, decoding and matching (and the counting beside it) import nothing of the
    package but the core's own modules."""
    import ast

    with open(os.path.join(ROOT, "ner_recall", "core", f"{module}.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    ours = {name for name in imported if name and name.startswith("ner_recall")}
    assert all(name.startswith("ner_recall.core.") for name in ours), ours


def test_one_extent_twice_is_one_entity_only_with_the_same_fragments(spans):
    """ "pain in upper and lower back": two entities of one type and extent, told apart by their
    fragments; the same fragments twice are one entity given twice."""
    upper, lower = ent("ADR", 0, 6, (0, 3), (5, 6)), ent("ADR", 0, 6, (0, 2), (4, 6))
    with pytest.raises(
        ValueError, match=r"references\[0\] entities 0 and 2 are the same entity \('ADR', 0, 6\)"
    ):
        spans.compute(predictions=[[]], references=[[upper, lower, upper]])
    results = spans.compute(predictions=[[lower]], references=[[upper, lower]])
    assert (results["muc"]["strict"]["correct"], results["muc"]["strict"]["missed"]) == (1, 1)


def test_the_ranking_family_reads_fragments(spans):
    """By score: "muscle ... pain" with other fragments (0.9; strictly wrong, a partial match), then
    "joint pain" (0.4, right): strict average precision is the precision at the one right
    prediction, 1/2; in the partial mode both are right, 1.0."""
    predictions = [[dict(ent("ADR", 0, 4, (0, 2), (3, 4)), score=0.9), dict(JOINT_PAIN, score=0.4)]]
    ranking = spans.compute(
        predictions=predictions, references=[[MUSCLE_PAIN, JOINT_PAIN]], scores=["ranking"]
    )["ranking"]
    assert ranking["strict"]["average_precision"] == 0.5
    assert ranking["partial"]["average_precision"] == 1.0


# ---------------------------------------------------------------------------- the helpers, one by one


def test_a_later_sentence_shifts_fragments_into_flat_positions():
    """Sentence 1 starts at flat position 2 (a span corpus leaves room after each sentence): the
    fragments read in flat positions, the pieces sorted by start, end and type, their offsets back
    within the sentence."""
    from ner_recall.core.spans import encode_spans
    from ner_recall.families import discontinuous as F

    # sentence 1: "B" of fragments [1, 2) and [4, 6); "A" [0, 7) and [1, 3); "C" [4, 6)
    disc = ent("B", 1, 6, (1, 2), (4, 6))
    corpus = encode_spans(
        [[], []], [[ent("A", 0, 1)], [ent("C", 4, 6), ent("A", 0, 7), disc, ent("A", 1, 3)]]
    )
    assert corpus.gold.start.tolist() == [0, 2, 3, 3, 6] and corpus.gold.offset.tolist() == [0, 0, 1, 1, 4]
    fragments = F.side_fragments(
        corpus.gold_extras, corpus.gold, corpus.gold_order, "references", corpus.types
    )
    assert fragments == {3: ((3, 4), (6, 8))}
    got = F.pieces(corpus.gold, fragments)
    # (type, start, end, offset) by start, end, type: "A" [0, 7) before "B" [1, 2) (by start, not end),
    # "B" [1, 2) before "A" [1, 3) (the shorter first), "B" [4, 6) before "C" [4, 6) (by type)
    assert list(zip(got.type.tolist(), got.start.tolist(), got.end.tolist(), got.offset.tolist())) == [
        (0, 0, 1, 0),
        (0, 2, 9, 0),
        (1, 3, 4, 1),
        (0, 3, 5, 1),
        (1, 6, 8, 4),
        (2, 6, 8, 4),
    ]
    assert got.sentence.tolist() == [0, 1, 1, 1, 1, 1]


def test_the_first_bad_fragments_in_input_order_are_named(spans):
    """Two bad entities in one example: the one given first is named, though it sorts later."""
    first, second = ent("A", 4, 8, (4, 5), (5, 8)), ent("A", 0, 3, (0, 1))
    with pytest.raises(ValueError) as error:
        spans.compute(predictions=[[]], references=[[first, second]])
    assert str(error.value) == f"references[0][0] {first!r}: {F_RULE}"


def test_bad_fragments_in_the_predictions_are_named_there(spans):
    bad = ent("ADR", 0, 6, (0, 2), (2, 6))
    with pytest.raises(ValueError) as error:
        spans.compute(predictions=[[], [ent("ADR", 0, 1), bad]], references=[[], []])
    assert str(error.value) == f"predictions[1][1] {bad!r}: {F_RULE}"


def test_fragments_on_the_predictions_alone_are_read(spans):
    """Gold plain (no extras at all), "and" [1, 2); the prediction "muscle ... pain": its extent covers
    the gold entity but no fragment does: a miss and a spurious, not a partial match."""
    results = spans.compute(predictions=[[MUSCLE_PAIN]], references=[[ent("ADR", 1, 2)]], scores=ALL)
    partial = results["muc"]["partial"]
    assert [partial[k] for k in ("correct", "partial", "missed", "spurious")] == [0, 0, 1, 1]
    d = results["discontinuous"]
    assert (d["correct"], d["number"], d["predicted"], d["precision"]) == (0, 0, 1, 0.0)
    assert d["sentences"]["examples"] == 0


def test_the_tag_configs_have_no_fragments(metric):
    results = metric.compute(predictions=[["B-A", "I-A"]], references=[["B-A", "O"]])
    assert "discontinuous" not in results and results["overall_f1"] == 0.0


def test_beta_weighs_the_discontinuous_scores(spans, sample):
    """P 2/3, R 1/2: F2 = 5 P R / (4 P + R) = (5/3) / (19/6) = 10/19; the sentences' P = R = 2/3."""
    lines, gold, pred = sample
    d = spans.compute(predictions=pred, references=gold, beta=2.0)["discontinuous"]
    assert d["f2"] == pytest.approx(10 / 19) and "f1" not in d
    assert d["sentences"]["f2"] == pytest.approx(2 / 3)


def test_the_discontinuous_results_default_to_f1_and_zero():
    """No prediction: precision 0 (zero_division 0), the F-score named f1 (beta 1); an empty side."""
    from ner_recall.core import matching as ner_matching
    from ner_recall.core.spans import encode_spans
    from ner_recall.families import discontinuous as F

    corpus = encode_spans([[], []], [[MUSCLE_PAIN], [JOINT_PAIN]])
    fragments = (
        F.side_fragments(corpus.gold_extras, corpus.gold, corpus.gold_order, "references", corpus.types),
        {},
    )
    matching = ner_matching.match(corpus.gold, corpus.pred, F.fragment_overlap(fragments))
    d = F.discontinuous_results(corpus.gold, corpus.pred, matching, fragments)
    assert {k: d[k] for k in ("precision", "recall", "f1", "correct", "number", "predicted")} == {
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "correct": 0,
        "number": 1,
        "predicted": 0,
    }
    assert (d["sentences"]["examples"], d["sentences"]["number"], d["sentences"]["predicted"]) == (1, 1, 0)


# (name, gold, pred, [(gold index, pred index) candidates], (mask, shared, size_g, size_p, equal))
PAIRS = [
    # "muscle ... pain" against the extent [0, 4): 2 shared of 2 and 4; "joint pain" plain on both sides
    (
        "gold fragments",
        [MUSCLE_PAIN, JOINT_PAIN],
        [ent("ADR", 0, 4)],
        [(0, 0), (1, 0)],
        ([True, False], [2], [2], [4], [False]),
    ),
    # three predicted fragments within one long gold entity: 3 shared of 10 and 3
    (
        "predicted fragments",
        [ent("ADR", 0, 10)],
        [ent("ADR", 0, 7, (0, 1), (3, 4), (6, 7))],
        [(0, 0)],
        ([True], [3], [10], [3], [False]),
    ),
    ("every fragment equal", [MUSCLE_PAIN], [MUSCLE_PAIN], [(0, 0)], ([True], [2], [2], [2], [True])),
]


@pytest.mark.parametrize("gold, pred, pairs, want", [r[1:] for r in PAIRS], ids=[r[0] for r in PAIRS])
def test_the_pair_overlap_counts_shared_positions(gold, pred, pairs, want):
    import numpy as np

    from ner_recall.core.spans import encode_spans
    from ner_recall.families import discontinuous as F

    corpus = encode_spans([pred], [gold])
    fragments = tuple(
        F.side_fragments(extras, side, order, name, corpus.types)
        for extras, side, order, name in (
            (corpus.gold_extras, corpus.gold, corpus.gold_order, "references"),
            (corpus.pred_extras, corpus.pred, corpus.pred_order, "predictions"),
        )
    )
    g, p = (np.array([pair[k] for pair in pairs], dtype=np.int64) for k in (0, 1))
    got = F.pair_overlap(g, p, corpus.gold, corpus.pred, fragments)
    assert [a.tolist() for a in got] == [list(w) for w in want]
    assert [a.dtype for a in got] == [bool, np.int64, np.int64, np.int64, bool]


@pytest.mark.parametrize(
    "examples",
    [
        [5],  # not a list of entities: left to the examples' own check
        [[["ADR", 0, 1]]],  # an entity that is not a dict: the same
        [[ent("ADR", 0, 3, (0, 3))]],  # one fragment: a plain entity
        "ab",
    ],
)
def test_what_refuse_fragments_lets_pass(examples):
    from ner_recall.families import discontinuous as F

    assert F.refuse_fragments(examples, "references", "x") is None


def test_the_codes_that_tell_one_extent_apart():
    """Per set of two fragments or more a code from 1 (plain entities and one fragment: 0); the type
    code moved by the number of types per code, the names repeated once per code."""
    import numpy as np

    from ner_recall.core.spans import encode_spans
    from ner_recall.families import discontinuous as F

    upper, lower = ent("B", 0, 6, (0, 3), (5, 6)), ent("B", 0, 6, (0, 2), (4, 6))
    references = [[ent("A", 0, 6), upper, ent("B", 0, 6, (0, 6)), lower, upper]]
    corpus = encode_spans([[]], references)
    keyed, names = F.keyed_by_fragments(corpus.gold, corpus.gold_extras, corpus.types)
    codes = [2 * F_CODE[repr(e.get("fragments"))] + "AB".index(e["label"]) for e in references[0]]
    assert sorted(keyed.type.tolist()) == sorted(codes) and keyed.type.dtype == np.int64
    assert names == ("A", "B") * 3
    plain = encode_spans([[]], [[ent("A", 0, 6), ent("B", 0, 6, (0, 6))]])
    assert F.keyed_by_fragments(plain.gold, plain.gold_extras, plain.types) == (plain.gold, plain.types)


F_RULE = RULE + (
    " [start, end] pairs of ints (start < end), the first starting at the entity's start and the last"
    " ending at its end"
)
F_CODE = {"None": 0, "[[0, 6]]": 0, "[[0, 3], [5, 6]]": 1, "[[0, 2], [4, 6]]": 2}

DUPLICATES = [
    # a single fragment equal to the extent is the plain entity: given twice
    ("one fragment is the plain entity", [ent("A", 0, 3), ent("A", 0, 3, (0, 3))], "entities 0 and 1"),
    # the same two fragments twice (their code the last one given)
    (
        "the last set twice",
        [ent("A", 0, 6, (0, 2), (4, 6)), ent("A", 0, 6, (0, 1), (5, 6)), ent("A", 0, 6, (0, 1), (5, 6))],
        "entities 1 and 2",
    ),
]


@pytest.mark.parametrize("references, pair", [r[1:] for r in DUPLICATES], ids=[r[0] for r in DUPLICATES])
def test_duplicates_among_fragments_are_named(spans, references, pair):
    with pytest.raises(ValueError) as error:
        spans.compute(predictions=[[]], references=[references])
    assert str(error.value) == (
        f"references[0] {pair} are the same entity ('A', {references[-1]['start']}, {references[-1]['end']});"
        " each entity may appear once"
    )


def test_an_extent_with_and_without_fragments_or_of_two_types_is_two_entities(spans):
    references = [[ent("A", 0, 6), ent("A", 0, 6, (0, 2), (4, 6)), ent("B", 0, 6)]]
    results = spans.compute(predictions=references, references=references)
    assert results["overall_f1"] == 1.0 and results["muc"]["strict"]["correct"] == 3
