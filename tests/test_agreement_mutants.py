"""Agreement pinned where mutation testing found it loose: whole error messages, the option paths
of the pairs, the boundaries of kappa, the kappa bootstrap by its definition, and Krippendorff's
alpha by its definition (a coincidence matrix) with its per-sentence pieces and its whole block."""

import random
import re
from collections import Counter

import numpy as np
import pytest

from ner_recall.stats import agreement as A

SPAN = {"label": "A", "start": 0, "end": 1}


@pytest.mark.parametrize(
    "args, options, message",
    [
        (([[["O"]], [["O"]]], "bogus"), {}, "kind must be one of ['tags', 'spans']; got 'bogus'"),
        (("B-PER",), {}, "annotations must be a list of annotators, each a list of sentences"),
        (({"a": 1, "b": 2},), {}, "annotations must be a list of annotators, each a list of sentences"),
        ((5,), {}, "annotations must be a list of annotators, each a list of sentences"),
        (([[["O"]], "O"],), {}, "annotations[1] must be a list of sentences; got str"),
        (([[["O"]], 5],), {}, "annotations[1] must be a list of sentences; got int"),
        (([[], []],), {}, "annotations hold no sentence"),
        (
            ([[["O"]], [["O"]]],),
            {"errors": True},
            "agreement sets errors itself (every pair is scored in seqeval and MUC modes, with its"
            " disagreements); give the other options of compute",
        ),
        (
            ([[["O"]], [["O"]]],),
            {"scores": ["token"]},
            "agreement sets scores itself (every pair is scored in seqeval and MUC modes, with its"
            " disagreements); give the other options of compute",
        ),
        (
            ([[[SPAN]], [[SPAN]]], "spans"),
            {},
            "agreement over spans needs texts= (one str per example): kappa counts every character"
            " of each text, those no annotator marked too",
        ),
        (
            ([[[{"label": "A", "fragments": [[0, 1], [2, 3]]}]], [[SPAN]]], "spans"),
            {"texts": ["abcd"]},
            "annotations[0][0][0] has several fragments, which agreement (kappa and alpha over"
            " contiguous spans) does not read (see docs/discontinuous.md)",
        ),
        (
            ([[[SPAN]], [[{"label": "A", "fragments": [[0, 1], [2, 3]]}]]], "spans"),
            {"texts": ["abcd"]},
            "annotations[1][0][0] has several fragments, which agreement (kappa and alpha over"
            " contiguous spans) does not read (see docs/discontinuous.md)",
        ),
        (
            ([[["B-A"]], [["B-A"]]],),
            {"seed": 3},
            "seed=3 changes nothing here: it needs ci_resamples > 0 (or the stratified recall's"
            " 'bootstrap' ci_method)",
        ),
        (
            ([[["B-A"]], [["B-A"]]],),
            {"document_ids": ["a"]},
            "document_ids=['a'] changes nothing here: it needs ci_resamples > 0 in agreement",
        ),
        (
            ([[["B-A"]], [["B-A"]]],),
            {"confidence_level": 0.9},
            "confidence_level=0.9 changes nothing here: it needs ci_resamples > 0 (or a subgroups config)",
        ),
        (
            ([[["B-A"]], [["B-A"]]],),
            {"ci_resamples": 5, "document_ids": [None]},
            "document_ids[0] is None; every sentence needs a document id",
        ),
        (
            ([[["B-A"], ["O"]], [["B-A"], ["O"]]],),
            {"ci_resamples": 5, "document_ids": ["a", None]},
            "document_ids[1] is None; every sentence needs a document id",
        ),
        (
            ([[["O"]], [["O"]], [["X-PER"]]],),
            {},
            "invalid tag 'X-PER' at annotations[2][0][0] (scheme None (lenient) expects O, B-*, I-*, E-*,"
            " S-* as PREFIX-TYPE); tags that are a bare type, such as 'PER', need mode='strict', scheme='IO'",
        ),
        (
            ([[["O"], ["O", "B-A"]], [["O"], ["O", "X-PER"]], [["O"], ["O", "O"]]],),
            {},
            "invalid tag 'X-PER' at annotations[1][1][1] (scheme None (lenient) expects O, B-*, I-*, E-*,"
            " S-* as PREFIX-TYPE); tags that are a bare type, such as 'PER', need mode='strict', scheme='IO'",
        ),
        (
            ([[["B-A"]], [["S-A"]]],),
            {"mode": "strict", "scheme": "IOB2"},
            "invalid tag 'S-A' at annotations[1][0][0] (scheme IOB2 expects O, B-*, I-* as PREFIX-TYPE)",
        ),
        (
            ([[["E-A"]], [["B-A"]], [["O"]]],),
            {"mode": "strict", "scheme": "IOB2"},
            "invalid tag 'E-A' at annotations[0][0][0] (scheme IOB2 expects O, B-*, I-* as PREFIX-TYPE)",
        ),
        (
            ([[["B-A"]], [["O"]], [["B"]]],),
            {},
            "tag 'B' at annotations[2][0][0] has no entity type but tag 'B-A' at annotations[0][0][0] has"
            " one: tag every entity with a type, or none (tags with no type are read as one type, '_')",
        ),
    ],
)
def test_agreement_errors_are_whole(args, options, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        A.agreement(*args, **options)


def test_the_cap_on_annotators_is_inclusive(monkeypatch):
    monkeypatch.setattr(A, "MAX_ANNOTATORS", 3)
    assert A.agreement([[["B-A"]]] * 3)["settings"]["annotators"] == 3
    with pytest.raises(ValueError, match=r"^annotations must hold at most 3 annotators; got 4$"):
        A.agreement([[["B-A"]]] * 4)


def test_the_cap_on_labels_is_inclusive(monkeypatch):
    monkeypatch.setattr(A, "MAX_LABELS", 12)
    assert A.agreement([[["O"] * 6], [["O"] * 6]])["kappa"]["tokens"] == 6  # 12 labels: the cap
    spans = [[{"label": "A", "start": 0, "end": 6}, {"label": "B", "start": 0, "end": 6}]]
    assert A.agreement([spans, spans], "spans", texts=["x" * 6])["kappa"]["value"] == 1.0  # covers 12


def pairs_by_compute(metric, annotations, **options):
    """Each pair's F1 per MUC mode, from ``compute`` on the pair alone."""
    out = {}
    for i in range(len(annotations)):
        for j in range(i + 1, len(annotations)):
            muc = metric.compute(predictions=annotations[j], references=annotations[i], **options)["muc"]
            out[f"{i}-{j}"] = {m: muc[m]["f1"] for m in ("strict", "exact", "partial", "type")}
    return out


@pytest.mark.parametrize(
    "annotations, options",
    [
        # suffix tags: read as PER-B, PER-I; a mis-read suffix would leave no entity at all
        ([[["PER-B", "O"]], [["PER-B", "PER-I"]], [["O", "PER-B"]]], {"suffix": True}),
        # strict IOB2 drops an entity that starts with I-, lenient decoding keeps it
        ([[["B-A", "I-A"]], [["I-A", "I-A"]], [["B-A", "O"]]], {"mode": "strict", "scheme": "IOB2"}),
        ([[["B-A", "I-A"]], [["I-A", "I-A"]], [["B-A", "O"]]], {}),
        # tag ids with label_names: each pair through compute's own input path
        ([[[1, 2, 0]], [[1, 0, 0]], [[0, 1, 2]]], {"label_names": ["O", "B-A", "I-A"]}),
    ],
)
def test_each_pair_is_the_pair_alone_whatever_the_options(metric, annotations, options):
    got = A.agreement(annotations, **options)["pairs"]
    expected = pairs_by_compute(metric, annotations, **options)
    assert {p: {m: got[p][m] for m in ("strict", "exact", "partial", "type")} for p in got} == expected


def test_strict_iob2_pairs_by_hand():
    a, b = [["B-A", "I-A"]], [["I-A", "I-A"]]
    strict = A.agreement([a, b], mode="strict", scheme="IOB2")["pairs"]["0-1"]
    assert strict["strict"] == 0.0 and strict["disagreements"] == [
        {"sentence": 0, "a": ["A", 0, 2], "b": None, "kind": "missed"}
    ]
    assert A.agreement([a, b])["pairs"]["0-1"]["strict"] == 1.0


def test_pair_intervals_resample_the_documents(metric):
    rng = random.Random(1)
    a = [[rng.choice(["O", "B-A", "I-A"]) for _ in range(4)] for _ in range(12)]
    b = [[t if rng.random() < 0.7 else "O" for t in s] for s in a]
    ids = [k // 3 for k in range(12)]
    got = A.agreement([a, b], ci_resamples=40, seed=4, document_ids=ids)["pairs"]["0-1"]["intervals"]
    plain = metric.compute(predictions=b, references=a, ci_resamples=40, seed=4, document_ids=ids)[
        "intervals"
    ]
    assert got == {m: plain[f"muc_{m}_f1"] for m in ("strict", "exact", "partial", "type")}


@pytest.mark.parametrize(
    "annotations, kappa, observed, chance",
    [
        ([[["O", "O"]], [["B-PER", "O"]]], 0.0, 0.5, 0.5),  # the first annotator marked nothing
        ([[["B-A"]], [["B-A"]]], 1.0, 1.0, 1.0),  # one token: p_e = 1 * 1
        ([[["B-A"]], [["O"]]], 0.0, 0.0, 0.0),
        ([[["B-A", "O"]], [["B-A", "B-B"]]], 1 / 3, 0.5, 0.25),  # (1/2 - 1/4) / (1 - 1/4)
    ],
)
def test_kappa_at_its_edges(annotations, kappa, observed, chance):
    got = A.agreement(annotations)["kappa"]
    assert (got["value"], got["observed"], got["chance"]) == (
        pytest.approx(kappa),
        pytest.approx(observed),
        pytest.approx(chance),
    )


@pytest.mark.parametrize(
    "spans, expected",
    [
        # shortest wins whatever the order the entities come in
        ((["X", "Y"], [0, 0], [0, 0], [1, 3]), ["X", "Y", "Y", "O"]),
        ((["Y", "X"], [0, 0], [0, 0], [3, 1]), ["X", "Y", "Y", "O"]),
        # the same span with two types: the last type by name
        ((["X", "Y"], [0, 0], [0, 0], [2, 2]), ["Y", "Y", "O", "O"]),
        ((["Y", "X"], [0, 0], [0, 0], [2, 2]), ["Y", "Y", "O", "O"]),
        ((["Y", "X"], [0, 0], [0, 0], [1, 1]), ["Y", "O", "O", "O"]),  # two labels of one token
        # crossing spans of one width: the later start wins where they share
        ((["X", "Y"], [0, 0], [0, 1], [2, 3]), ["X", "Y", "Y", "O"]),
    ],
)
def test_the_label_of_a_shared_token(spans, expected):
    names, *arrays = spans
    side = (names, *(np.array(x, dtype=np.int64) for x in arrays))
    labels, sentence = A.token_labels([(["O"][:0], *(np.zeros(0, dtype=np.int64),) * 3), side], np.array([4]))
    shown = {0: "O", 1: "X", 2: "Y"}
    assert labels[0].tolist() == [0, 0, 0, 0]
    assert [shown[c] for c in labels[1].tolist()] == expected and sentence.tolist() == [0] * 4


def cohen(x, y):
    """Cohen's kappa of two label lists, from its definition."""
    n = len(x)
    observed = sum(p == q for p, q in zip(x, y)) / n
    cx, cy = Counter(x), Counter(y)
    chance = sum(cx[c] * cy[c] for c in cx) / n / n
    return 1.0 if observed == 1.0 else (observed - chance) / (1 - chance)


@pytest.mark.parametrize("seed, level, documents", [(0, 0.95, False), (3, 0.8, False), (5, 0.9, True)])
def test_the_kappa_interval_is_the_percentile_bootstrap(seed, level, documents):
    """Sentences (documents) drawn with replacement by the seeded generator the module names (the
    first child of ``SeedSequence(seed)``), kappa of each draw, the two percentiles of the level."""
    rng = random.Random(seed)
    a = [[rng.choice(["O", "B-A", "B-B"]) for _ in range(rng.randint(1, 4))] for _ in range(9)]
    b = [[t if rng.random() < 0.6 else rng.choice(["O", "B-A"]) for t in s] for s in a]
    ids = [k // 2 for k in range(9)] if documents else None
    got = A.agreement([a, b], ci_resamples=50, confidence_level=level, seed=seed, document_ids=ids)
    label = {"O": 0, "B-A": 1, "B-B": 2}
    units = [[k for k in range(9) if (ids[k] if documents else k) == u] for u in range(5 if documents else 9)]
    draw = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    values = []
    for _ in range(50):
        chosen = [k for u in draw.integers(0, len(units), len(units)) for k in units[u]]
        x = [label[t] for k in chosen for t in a[k]]
        y = [label[t] for k in chosen for t in b[k]]
        values.append(cohen(x, y))
    tail = (1 - level) / 2
    assert got["kappa"]["interval"] == pytest.approx(list(np.quantile(values, [tail, 1 - tail])))
    assert got["kappa"]["value"] == pytest.approx(
        cohen(*([label[t] for s in side for t in s] for side in (a, b)))
    )


# ---------------------------------------------------------------------------- Krippendorff's alpha


def alpha_by_definition(data):
    """Krippendorff's nominal alpha of a complete reliability table (annotators x units, any
    hashable values), from the coincidence matrix: 1 - (n - 1) D_o / D_e."""
    m = len(data)
    coincidences = Counter()
    for unit in zip(*data):
        for i in range(m):
            for j in range(m):
                if i != j:
                    coincidences[unit[i], unit[j]] += 1 / (m - 1)
    n_c = Counter()
    for (c, _), value in coincidences.items():
        n_c[c] += value
    n = sum(n_c.values())
    disagree = sum(v for (c, k), v in coincidences.items() if c != k)
    expected = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k) / (n - 1)
    return 1.0 if disagree < 1e-12 else 1 - disagree / expected


def reliability_table(spans, lengths, mode):
    """Annotators x aligned units: each annotator's value of each unit (``O`` where it has none)."""
    annotator, every, unit = A.alignment_units(spans, lengths)
    names = sorted({name for side in spans for name in side[0]})
    data = [["O"] * (int(unit.max()) + 1 if len(unit) else 0) for _ in spans]
    for k in range(len(annotator)):
        name = names[int(every.type[k])]
        value = (name, int(every.start[k]), int(every.end[k])) if mode == "strict" else name
        data[int(annotator[k])][int(unit[k])] = value
    return data


def span_sides(annotations):
    """Span items (one example per sentence) as (names, sentence, start, end) per annotator."""
    out = []
    for side in annotations:
        found = [(e["label"], k, e["start"], e["end"]) for k, items in enumerate(side) for e in items]
        names, *arrays = zip(*found) if found else ((), (), (), ())
        out.append((list(names), *(np.array(x, dtype=np.int64) for x in arrays)))
    return out


def random_span_annotators(seed, n, sentences=8):
    rng = random.Random(seed)
    gold = [
        [{"label": rng.choice("ABC"), "start": s, "end": s + rng.randint(1, 3)} for s in range(0, 12, 4)]
        for _ in range(sentences)
    ]
    out = []
    for _ in range(n):
        side = []
        for items in gold:
            kept = [dict(e, label=rng.choice("ABC")) if rng.random() < 0.3 else dict(e) for e in items]
            kept = [
                dict(e, end=e["end"] + 1) if rng.random() < 0.2 else e for e in kept if rng.random() < 0.8
            ]
            if rng.random() < 0.3:
                kept.append({"label": rng.choice("AB"), "start": 13, "end": 15})
            side.append(kept)
        out.append(side)
    return out


@pytest.mark.parametrize("seed, n", [(0, 2), (1, 3), (2, 4), (3, 3), (4, 2)])
def test_span_alpha_is_its_definition(seed, n):
    annotations = random_span_annotators(seed, n)
    texts = ["x" * 16] * len(annotations[0])
    got = A.agreement(annotations, "spans", texts=texts)["alpha"]
    spans, lengths = span_sides(annotations), np.array([16] * len(texts))
    for mode in A.ALPHA_MODES:
        data = reliability_table(spans, lengths, mode)
        assert got[mode]["value"] == pytest.approx(alpha_by_definition(data), abs=1e-12), mode
    assert got["units"] == len(data[0]) and got["method"] == "krippendorff_nominal_on_aligned_units"


# two sentences: sentence 0 as test_span_alpha_by_hand (units PER/PER, LOC/ORG, LOC/O), sentence 1
# a PER only a saw and a LOC only b saw
TWO = [
    [
        [
            {"label": "PER", "start": 0, "end": 4},
            {"label": "LOC", "start": 6, "end": 9},
            {"label": "LOC", "start": 12, "end": 15},
        ],
        [{"label": "PER", "start": 0, "end": 3}],
    ],
    [
        [{"label": "PER", "start": 0, "end": 4}, {"label": "ORG", "start": 6, "end": 9}],
        [{"label": "LOC", "start": 5, "end": 7}],
    ],
]


def test_alpha_pieces_per_sentence_by_hand():
    """Type mode (LOC 1, ORG 2, PER 3): [agreeing ordered pairs, values, 0, LOC, ORG, PER, O];
    strict mode: [agreeing ordered pairs, values, squared counts of the sentence's spans, O]."""
    spans = span_sides(TWO)
    annotator, every, unit = A.alignment_units(spans, np.array([16, 8]))
    assert int(unit.max()) + 1 == 5 and annotator.tolist() == [0, 0, 0, 0, 1, 1, 1]
    sentences = np.arange(2)
    kind = A.alpha_stats("type", every, unit, 2, sentences, 2)
    assert kind.tolist() == [[2, 6, 0, 2, 1, 2, 1], [0, 4, 0, 1, 0, 1, 2]] and kind.dtype == np.int64
    strict = A.alpha_stats("strict", every, unit, 2, sentences, 2)
    assert strict.tolist() == [[2, 6, 7, 1], [0, 4, 2, 2]]
    both = A.alpha_stats("strict", every, unit, 2, np.array([0, 0]), 1)
    assert both.tolist() == [[2, 10, 9, 3]]
    # alpha from the pieces: type 1 - (n - 1) * (n - agree) / (n^2 - squares)
    assert A.alpha_of(kind.sum(axis=0), 2).tolist() == pytest.approx([1 - 9 * 8 / (100 - (9 + 1 + 9 + 9))])
    assert A.alpha_of(strict.sum(axis=0), 2).tolist() == pytest.approx([1 - 9 * 8 / (100 - (9 + 9))])


def test_the_alpha_block_whole():
    out = A.agreement(TWO, "spans", texts=["x" * 16, "x" * 8])["alpha"]
    assert out == {
        "method": "krippendorff_nominal_on_aligned_units",
        "units": 5,
        "strict": {"value": pytest.approx(1 - 9 * 8 / 82)},
        "type": {"value": pytest.approx(1 - 9 * 8 / 72)},
    }


def test_alpha_intervals_follow_seed_and_level():
    annotations = random_span_annotators(7, 3, sentences=20)
    texts = ["x" * 16] * 20
    wide = A.agreement(annotations, "spans", texts=texts, ci_resamples=200, seed=1)["alpha"]
    again = A.agreement(annotations, "spans", texts=texts, ci_resamples=200, seed=1)["alpha"]
    other = A.agreement(annotations, "spans", texts=texts, ci_resamples=200, seed=2)["alpha"]
    narrow = A.agreement(annotations, "spans", texts=texts, ci_resamples=200, seed=1, confidence_level=0.5)[
        "alpha"
    ]
    assert wide == again and wide["strict"]["interval"] != other["strict"]["interval"]
    for mode in A.ALPHA_MODES:
        (lo, hi), (nlo, nhi) = wide[mode]["interval"], narrow[mode]["interval"]
        assert lo < nlo <= nhi < hi and lo < wide[mode]["value"] < hi


def test_alpha_without_any_entity_is_one():
    """No unit: no value disagrees, alpha 1 in every draw."""
    out = A.agreement([[["O"]], [["O"]]], ci_resamples=10)["alpha"]
    assert out == {
        "method": "krippendorff_nominal_on_aligned_units",
        "units": 0,
        "strict": {"value": 1.0, "interval": [1.0, 1.0]},
        "type": {"value": 1.0, "interval": [1.0, 1.0]},
    }


def test_the_alpha_interval_is_the_percentile_of_its_draws():
    """The interval is the two percentiles of the level over the draws of alpha from resampled
    sentences' pieces (the generator: the first child of ``SeedSequence(seed)``)."""
    from ner_recall.stats.uncertainty import bootstrap_totals, group_rows

    annotations = random_span_annotators(8, 3, sentences=15)
    texts = ["x" * 16] * 15
    level, seed = 0.9, 6
    got = A.agreement(annotations, "spans", texts=texts, ci_resamples=80, seed=seed, confidence_level=level)
    _, every, unit = A.alignment_units(span_sides(annotations), np.array([16] * 15))
    for mode in A.ALPHA_MODES:
        stats = A.alpha_stats(mode, every, unit, 3, np.arange(15), 15)
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
        draws = np.concatenate([A.alpha_of(t, 3) for t in bootstrap_totals(*group_rows(stats), 80, rng)])
        assert got["alpha"][mode]["interval"] == pytest.approx(list(np.quantile(draws, [0.05, 0.95])))


def test_an_annotator_twice_in_a_unit_keeps_the_first():
    """a: A[0,4); b: A[0,2), A[2,4); c: A[2,4). a pairs with b's first and with c, c with b's
    second: one connected group holding b twice; b's second (by position) becomes a unit of its
    own. Type values: unit 0 (A, A, A), unit 1 (O, A, O): coincidences A-A 3, A-O 1, O-A 1, O-O 1;
    n_A 4, n_O 2; alpha 1 - 2 / ((4 * 2 + 2 * 4) / 5) = 3/8."""
    spans = span_sides(
        [
            [[{"label": "A", "start": 0, "end": 4}]],
            [[{"label": "A", "start": 0, "end": 2}, {"label": "A", "start": 2, "end": 4}]],
            [[{"label": "A", "start": 2, "end": 4}]],
        ]
    )
    annotator, every, unit = A.alignment_units(spans, np.array([6]))
    assert annotator.tolist() == [0, 1, 1, 2] and unit.tolist() == [0, 0, 1, 0]
    texts = ["x" * 6]
    out = A.agreement(
        [
            [[{"label": "A", "start": 0, "end": 4}]],
            [[{"label": "A", "start": 0, "end": 2}, {"label": "A", "start": 2, "end": 4}]],
            [[{"label": "A", "start": 2, "end": 4}]],
        ],
        "spans",
        texts=texts,
    )["alpha"]
    assert out["units"] == 2 and out["type"]["value"] == pytest.approx(3 / 8)


def test_a_pair_without_entities_does_not_stop_the_linking():
    """The first annotator marks nothing: the pairs 0-1 and 0-2 have nothing to match, 1-2 still
    links its entities into one unit."""
    item = [{"label": "A", "start": 0, "end": 2}]
    out = A.agreement([[[]], [item], [item]], "spans", texts=["xxxx"])["alpha"]
    assert out["units"] == 1
    assert out["type"]["value"] == pytest.approx(alpha_by_definition([["O"], ["A"], ["A"]]))


def test_alpha_of_one_shared_value_is_one():
    """Two annotators, one entity of one type each: no disagreement and no expected one (0 / 0)."""
    out = A.agreement([[["B-A"]], [["B-A"]]])["alpha"]
    assert out["strict"]["value"] == 1.0 and out["type"]["value"] == 1.0


def test_disagreements_name_sentences_as_ints():
    listed = A.agreement([[["O"], ["B-A"]], [["O"], ["B-B"]]])["pairs"]["0-1"]["disagreements"]
    assert listed == [{"sentence": 1, "a": ["A", 0, 1], "b": ["B", 0, 1], "kind": "incorrect"}]
    assert all(type(v) is int for v in (listed[0]["sentence"], *listed[0]["a"][1:], *listed[0]["b"][1:]))
