"""Agreement between annotators: kappas equal scikit-learn's and statsmodels', self-agreement and
nested agreement 1, order independence, pairwise F1 symmetric, errors that name the annotator."""

import random
import re

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH, require
from ner_recall.stats import agreement as A


@pytest.fixture(scope="module")
def spans_metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def annotators(seed, n=3, sentences=200):
    """Annotators who copy a reference and change a share of its tags."""
    references, _ = random_corpus(seed, sentences, prefixes="OOOBI")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        out.append(
            [
                [t if rng.random() < 0.85 else rng.choice(["O", "B-A", "I-A", "B-B", "B-C"]) for t in s]
                for s in references
            ]
        )
    return out


def token_labels_by_hand(metric, sentences):
    """Per token the type of the entity covering it (tags decode to flat entities), else O."""
    out = []
    for tags in sentences:
        labels = ["O"] * len(tags)
        for span in metric.decode(tags):
            labels[span.start : span.end] = [span.label] * (span.end - span.start)
        out += labels
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_cohens_kappa_equals_scikit_learn(metric, seed):
    from sklearn.metrics import cohen_kappa_score

    a, b = annotators(seed, n=2)
    ours = metric.agreement([a, b])["kappa"]
    expected = cohen_kappa_score(token_labels_by_hand(metric, a), token_labels_by_hand(metric, b))
    assert ours["method"] == "cohen" and ours["value"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [2, 3])
def test_fleiss_kappa_equals_statsmodels(metric, seed):
    inter_rater = require("statsmodels.stats.inter_rater", "pip install -r requirements-extras.txt")
    raters = annotators(seed, n=4)
    ours = metric.agreement(raters)["kappa"]
    labels = np.array([token_labels_by_hand(metric, r) for r in raters]).T  # tokens x raters
    table, _ = inter_rater.aggregate_raters(labels)
    assert ours["method"] == "fleiss" and ours["value"] == pytest.approx(
        inter_rater.fleiss_kappa(table), abs=1e-12
    )


def test_pairwise_f1_is_the_metrics_and_symmetric(metric):
    a, b, c = annotators(4)
    out = metric.agreement([a, b, c])
    for (i, x), (j, y) in [((0, a), (1, b)), ((1, b), (2, c))]:
        one = metric.compute(predictions=y, references=x)["muc"]
        other = metric.compute(predictions=x, references=y)["muc"]
        for mode in ("strict", "exact", "partial", "type"):
            assert (
                out["pairs"][f"{i}-{j}"][mode]
                == pytest.approx(one[mode]["f1"])
                == pytest.approx(other[mode]["f1"])
            )
    assert out["f1"]["strict"] == pytest.approx(np.mean([p["strict"] for p in out["pairs"].values()]))


def test_an_annotator_agrees_with_itself(metric):
    a, _, _ = annotators(5)
    out = metric.agreement([a, a, a], ci_resamples=50)
    assert out["f1"] == {m: 1.0 for m in ("strict", "exact", "partial", "type")}
    assert out["kappa"]["value"] == 1.0 and out["kappa"]["interval"] == [1.0, 1.0]
    assert all(out["alpha"][m] == {"value": 1.0, "interval": [1.0, 1.0]} for m in A.ALPHA_MODES)
    assert all(not p["disagreements"] for p in out["pairs"].values())


def test_nested_annotations_that_agree_score_one(spans_metric):
    """Two annotators with the same nested spans (a space at an edge would not matter: offsets are
    compared, not strings)."""
    nested = [
        [{"label": "ORG", "start": 0, "end": 24}, {"label": "LOC", "start": 8, "end": 16}],
        [{"label": "PER", "start": 0, "end": 5}],
    ]
    texts = ["x" * 30, "x" * 10]
    out = spans_metric.agreement([nested, [list(reversed(e)) for e in nested]], texts=texts)
    assert out["f1"]["strict"] == 1.0 and out["kappa"]["value"] == 1.0
    assert {out["alpha"][m]["value"] for m in A.ALPHA_MODES} == {1.0} and out["alpha"]["units"] == 3
    # the innermost entity labels its tokens: LOC inside ORG
    spans = [(["ORG", "LOC"], np.array([0, 0]), np.array([0, 8]), np.array([24, 16]))]
    labels, _ = A.token_labels(spans, np.array([30]))
    assert labels[0, 8] != labels[0, 0] and labels[0, 16] == labels[0, 0]


def test_results_do_not_depend_on_the_order_of_spans(spans_metric):
    rng = random.Random(0)

    def side():
        return [
            [
                {"label": rng.choice("AB"), "start": s, "end": s + rng.randint(1, 3)}
                for s in sorted(rng.sample(range(10), 3))
            ]
            for _ in range(30)
        ]

    a, b = side(), side()
    texts = ["x" * 12] * 30
    first = spans_metric.agreement([a, b], texts=texts)
    shuffled = [[rng.sample(e, len(e)) for e in side_] for side_ in (a, b)]
    assert spans_metric.agreement(shuffled, texts=texts) == first


def test_disagreements_are_listed_per_pair(metric):
    a = [["B-PER", "O", "B-LOC"]]
    b = [["B-ORG", "O", "O"]]
    listed = metric.agreement([a, b])["pairs"]["0-1"]["disagreements"]
    assert listed == [  # in order of position
        {"sentence": 0, "a": ["PER", 0, 1], "b": ["ORG", 0, 1], "kind": "incorrect"},
        {"sentence": 0, "a": ["LOC", 2, 3], "b": None, "kind": "missed"},
    ]


@pytest.mark.parametrize(
    "annotations, message",
    [
        ([[["O"]]], "at least two annotators; got 1"),
        ("B-PER", "annotations must be a list of annotators"),
        ([[["O"]], [["O"], ["O"]]], "annotations[1] has 2 sentences but annotations[0] has 1"),
        ([[["O"]], [["X-PER"]]], "annotations[1]"),
    ],
)
def test_bad_annotations_name_the_annotator(metric, annotations, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.agreement(annotations)
    assert metric.compute(predictions=[["B-PER"]], references=[["B-PER"]])["overall_f1"] == 1.0


def test_options_agreement_sets_itself_are_refused(metric):
    with pytest.raises(ValueError, match="agreement sets scores itself"):
        metric.agreement([[["O"]], [["O"]]], scores=["token"])


def test_pairwise_f1_intervals_are_computes(metric):
    a, b, _ = annotators(6)
    out = metric.agreement([a, b], ci_resamples=60, seed=2)
    expected = metric.compute(predictions=b, references=a, ci_resamples=60, seed=2)["intervals"]
    assert out["pairs"]["0-1"]["intervals"] == {
        m: expected[f"muc_{m}_f1"] for m in ("strict", "exact", "partial", "type")
    }
    low, high = out["kappa"]["interval"]
    assert low <= out["kappa"]["value"] <= high


def reliability_data(spans, lengths, mode):
    """Annotators x units value codes (0: no entity in the unit) of the aligned units."""
    annotator, every, unit = A.alignment_units(spans, lengths)
    values = A._unit_values(mode, every)
    data = np.zeros((len(spans), int(unit.max()) + 1))
    data[annotator, unit] = values
    return data


def tag_spans(metric, raters):
    """Per annotator its entities as the metric decodes them: (type names, sentence, start, end)."""
    out = []
    for rater in raters:
        found = [(s.label, k, s.start, s.end) for k, tags in enumerate(rater) for s in metric.decode(tags)]
        names, sentence, start, end = zip(*found) if found else ((), (), (), ())
        out.append((list(names), *(np.array(x, dtype=np.int64) for x in (sentence, start, end))))
    return out


@pytest.mark.parametrize("seed, n", [(0, 2), (1, 3), (2, 4), (3, 5)])
def test_span_alpha_equals_the_krippendorff_package(metric, seed, n):
    krippendorff = require("krippendorff", "pip install -r requirements-dev.txt")
    raters = annotators(seed, n=n, sentences=120)
    out = metric.agreement(raters)["alpha"]
    spans, lengths = tag_spans(metric, raters), np.array([len(s) for s in raters[0]])
    for mode in A.ALPHA_MODES:
        data = reliability_data(spans, lengths, mode)
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert out[mode]["value"] == pytest.approx(expected, abs=1e-12), mode
    assert out["units"] == data.shape[1]


def test_span_alpha_by_hand(spans_metric):
    """Two annotators, three units: PER agreed, LOC/ORG on one span, a LOC only the first saw.
    Type mode values per unit (a, b): (PER, PER), (LOC, ORG), (LOC, O); n = 6; pairable values
    PER 2, LOC 2, ORG 1, O 1; observed disagreement 4 ordered pairs of 6 values."""
    a = [
        [
            {"label": "PER", "start": 0, "end": 4},
            {"label": "LOC", "start": 6, "end": 9},
            {"label": "LOC", "start": 12, "end": 15},
        ]
    ]
    b = [[{"label": "PER", "start": 0, "end": 4}, {"label": "ORG", "start": 6, "end": 9}]]
    out = spans_metric.agreement([a, b], texts=["x" * 16])["alpha"]
    # alpha = 1 - (n - 1) * D_o / D_e = 1 - 5 * 4 / (36 - (4 + 4 + 1 + 1))
    assert out["type"]["value"] == pytest.approx(1 - 5 * 4 / 26)
    assert out["units"] == 3


def test_span_alpha_interval_resamples_sentences(metric):
    raters = annotators(6, n=3, sentences=150)
    out = metric.agreement(raters, ci_resamples=300, seed=2)["alpha"]
    again = metric.agreement(raters, ci_resamples=300, seed=2)["alpha"]
    assert out == again
    for mode in A.ALPHA_MODES:
        low, high = out[mode]["interval"]
        assert low < out[mode]["value"] < high
    by_document = metric.agreement(
        raters, ci_resamples=300, seed=2, document_ids=[i // 10 for i in range(150)]
    )
    assert by_document["alpha"]["strict"]["value"] == out["strict"]["value"]
    assert by_document["alpha"]["strict"]["interval"] != out["strict"]["interval"]


@pytest.mark.parametrize("page", ["agreement.md", "ranking.md"])
def test_the_docs_cost_table_is_the_bench_output(page):
    import os

    from conftest import ROOT

    def table(text):
        return text[text.index("<!-- cost-targets -->") : text.index("<!-- /cost-targets -->")]

    bench = open(os.path.join(ROOT, "bench", "agreement_ranking.md")).read()
    assert table(open(os.path.join(ROOT, "docs", page)).read()) == table(bench)


# ---------------------------------------------------------------------------- hostile and boundary input


@pytest.mark.parametrize(
    "annotations, kappa, observed",
    [
        ([[["B-PER", "O"]], [["O", "O"]]], 0.0, 0.5),  # one annotator marked nothing: p_e = 1/2
        ([[["O", "O"]], [["O", "O"]]], 1.0, 1.0),  # nobody marked anything: every token agrees
        ([[["O"], ["B-PER"]], [["O"], ["O"]], [["O"], ["O"]]], -0.2, 2 / 3),  # Fleiss, one mark
        ([[[]], [[]]], 1.0, 1.0),  # sentences without tokens
    ],
)
def test_annotators_without_entities_get_a_kappa(metric, annotations, kappa, observed):
    out = metric.agreement(annotations, ci_resamples=20)
    assert out["kappa"]["value"] == pytest.approx(kappa) and out["kappa"]["observed"] == pytest.approx(
        observed
    )
    assert all(not p["disagreements"] or p["disagreements"][0]["b"] is None for p in out["pairs"].values())
    assert out["alpha"]["units"] == sum(t.startswith("B") for a in annotations for s in a for t in s)


def test_span_annotators_without_entities(spans_metric):
    out = spans_metric.agreement([[[]], [[]]], texts=["ab"])
    assert out["kappa"]["value"] == 1.0 and out["kappa"]["tokens"] == 2 and out["alpha"]["units"] == 0
    one = spans_metric.agreement([[[{"label": "A", "start": 0, "end": 1}]], [[]]], texts=["abcd"])
    # a: A O O O, b: O O O O; p_o = 3/4, p_e = 3/4 * 1 ... kappa 0
    assert one["kappa"]["observed"] == 0.75 and one["kappa"]["value"] == 0.0
    assert one["pairs"]["0-1"]["disagreements"] == [
        {"sentence": 0, "a": ["A", 0, 1], "b": None, "kind": "missed"}
    ]


def as_span_items(metric, annotator):
    """Tag sentences as span items (offsets in tokens) as the metric decodes them."""
    return [[{"label": s.label, "start": s.start, "end": s.end} for s in metric.decode(t)] for t in annotator]


@pytest.mark.parametrize("seed, n", [(0, 2), (1, 3), (2, 2)])
def test_spans_and_tags_give_the_same_agreement(metric, spans_metric, seed, n):
    """The same annotations as tags and as spans (a text per sentence, one character per token):
    kappa counts the tokens after the last entity of a sentence in both."""
    raters = annotators(seed, n=n, sentences=120)
    texts = ["x" * len(s) for s in raters[0]]
    as_tags = metric.agreement(raters)
    as_spans = spans_metric.agreement([as_span_items(metric, r) for r in raters], texts=texts)
    assert as_spans["kappa"] == as_tags["kappa"]
    assert as_spans["f1"] == as_tags["f1"] and as_spans["alpha"] == as_tags["alpha"]
    assert as_tags["kappa"]["tokens"] == sum(map(len, raters[0]))


def test_spans_need_their_texts(spans_metric):
    a = [[{"label": "A", "start": 0, "end": 2}]]
    with pytest.raises(ValueError, match=r"agreement over spans needs texts="):
        spans_metric.agreement([a, a])
    with pytest.raises(ValueError, match=r"texts has 2 examples but annotations\[0\] has 1"):
        spans_metric.agreement([a, a], texts=["abc", "d"])
    far = [[{"label": "A", "start": 0, "end": 10**9}]]
    with pytest.raises(ValueError, match=r"annotations\[0\]\[0\]\[0\].*end"):
        spans_metric.agreement([far, a], texts=["abc"])


def test_kappa_is_bounded_before_it_allocates(monkeypatch):
    monkeypatch.setattr(A, "MAX_LABELS", 11)
    with pytest.raises(ValueError, match=r"2 annotators x 6 tokens, 12 labels; at most 11"):
        A.agreement([[["O"] * 6], [["O"] * 6]])
    assert A.agreement([[["O"] * 5], [["O"] * 5]])["kappa"]["tokens"] == 5  # 10 labels pass
    nested = [[{"label": "A", "start": 0, "end": 5}, {"label": "B", "start": 0, "end": 4}]]
    nested[0].append({"label": "C", "start": 1, "end": 4})  # 5 + 4 + 3 labels
    with pytest.raises(ValueError, match=r"annotations\[0\]'s entities cover 12 tokens"):
        A.agreement([nested, nested], "spans", texts=["x" * 5])
    assert A.agreement([[nested[0][:2]], [nested[0][:1]]], "spans", texts=["x" * 5])["kappa"]["tokens"] == 5


def test_annotators_are_capped(metric):
    with pytest.raises(
        ValueError, match=f"at most {A.MAX_ANNOTATORS} annotators; got {A.MAX_ANNOTATORS + 1}"
    ):
        metric.agreement([[["O"]]] * (A.MAX_ANNOTATORS + 1))
    assert metric.agreement([[["B-A"]]] * 5)["kappa"]["method"] == "fleiss"


@pytest.mark.parametrize("kind", ["sentences", "documents"])
def test_the_kappa_bootstrap_draws_the_last_unit(metric, kind):
    """Only the last sentence (document) disagrees: an interval that never draws it would be [1, 1]."""
    a = [["B-A", "O"], ["B-A", "O"], ["B-A", "O"]]
    b = [["B-A", "O"], ["B-A", "O"], ["O", "B-A"]]
    ids = {"sentences": None, "documents": ["d0", "d1", "d2"]}[kind]
    out = metric.agreement([a, b], ci_resamples=200, document_ids=ids)
    low, high = out["kappa"]["interval"]
    assert low < out["kappa"]["value"] < 1.0 and high == 1.0
    assert out["alpha"]["strict"]["interval"][0] < 1.0


def test_a_failed_call_names_the_pair_and_leaves_the_metric_usable(metric):
    good = [["B-A", "O"]]
    with pytest.raises(ValueError, match=r"annotations\[2\]") as caught:
        metric.agreement([good, good, [["B-A"]]])
    assert "predictions" not in str(caught.value) and "references" not in str(caught.value)
    assert metric.agreement([good, good])["kappa"]["value"] == 1.0


# ---------------------------------------------------------------------------- reports pinned whole


def test_the_whole_report_of_a_small_pair_by_hand(metric):
    """a: PER PER O LOC | O ORG; b: PER PER O ORG | O ORG. Tokens 6, agreeing 5: p_o = 5/6; a's labels
    PER 2, LOC 1, ORG 1, O 2; b's PER 2, ORG 2, O 2: p_e = (2*2 + 1*2 + 2*2) / 36 = 10/36."""
    a = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG"]]
    b = [["B-PER", "I-PER", "O", "B-ORG"], ["O", "B-ORG"]]
    out = metric.agreement([a, b])
    assert out["kappa"] == {
        "value": pytest.approx((5 / 6 - 10 / 36) / (1 - 10 / 36)),
        "method": "cohen",
        "tokens": 6,
        "observed": pytest.approx(5 / 6),
        "chance": pytest.approx(10 / 36),
    }
    assert out["settings"] == {
        "annotators": 2,
        "sentences": 2,
        "units": 2,
        "ci_resamples": 0,
        "confidence_level": 0.95,
        "seed": 0,
    }
    pair = out["pairs"]["0-1"]
    assert {m: pair[m] for m in ("strict", "exact", "partial", "type")} == {
        "strict": pytest.approx(2 / 3),
        "exact": 1.0,
        "partial": 1.0,
        "type": pytest.approx(2 / 3),
    }
    assert pair["per_type"] == {
        "LOC": {"strict": 0.0, "exact": 0.0, "partial": 0.0, "type": 0.0},
        # ORG's exact and partial: b's ORG on a's LOC span is right on the span (precision side)
        "ORG": {"strict": pytest.approx(2 / 3), "exact": 1.0, "partial": 1.0, "type": pytest.approx(2 / 3)},
        "PER": {"strict": 1.0, "exact": 1.0, "partial": 1.0, "type": 1.0},
    }
    assert out["f1"] == {m: pair[m] for m in ("strict", "exact", "partial", "type")}
    assert set(out) == {"pairs", "f1", "kappa", "alpha", "settings"}


def test_fleiss_kappa_by_hand():
    """Three raters, four tokens: labels (A A A), (A A O), (O O O), (A O O): agreeing pairs per token
    3, 1, 3, 1 of 3: p_o = 8/12; shares A 6/12, O 6/12: p_e = 1/2; kappa (2/3 - 1/2) / (1/2) = 1/3."""
    labels = np.array([[1, 1, 0, 1], [1, 1, 0, 0], [1, 0, 0, 0]])
    got = A.kappa_of(labels)
    assert got == {
        "value": pytest.approx(1 / 3),
        "method": "fleiss",
        "tokens": 4,
        "observed": pytest.approx(2 / 3),
        "chance": pytest.approx(0.5),
    }
    assert A.kappa_of(np.zeros((3, 0), dtype=np.int64))["value"] == 1.0
    assert A.kappa_of(np.zeros((2, 0), dtype=np.int64)) == {
        "value": 1.0,
        "method": "cohen",
        "tokens": 0,
        "observed": 1.0,
        "chance": 0.0,
    }


def test_disagreements_at_one_position_are_listed_incorrect_missed_spurious():
    """Same start: an incorrect pair, then a missed, then a spurious entity, in sentence order."""
    a = [["B-A", "O", "B-B", "I-B"], ["B-A"]]
    b = [["B-C", "O", "B-B", "O"], ["O"]]
    listed = A.agreement([a, b])["pairs"]["0-1"]["disagreements"]
    assert listed == [
        {"sentence": 0, "a": ["A", 0, 1], "b": ["C", 0, 1], "kind": "incorrect"},
        {"sentence": 0, "a": ["B", 2, 4], "b": ["B", 2, 3], "kind": "incorrect"},
        {"sentence": 1, "a": ["A", 0, 1], "b": None, "kind": "missed"},
    ]
    reverse = A.agreement([b, a])["pairs"]["0-1"]["disagreements"]
    assert [d["kind"] for d in reverse] == ["incorrect", "incorrect", "spurious"] and reverse[2]["a"] is None


def test_the_innermost_entity_labels_a_token():
    """Nested spans: shortest wins; among equally short ones the last by start."""
    spans = [
        (
            ["X", "Y", "Z", "W"],
            np.array([0, 0, 0, 0]),
            np.array([0, 2, 3, 6]),
            np.array([6, 4, 5, 8]),
        )
    ]
    labels, sentence = A.token_labels(spans, np.array([9]))
    names = {0: "O", 1: "W", 2: "X", 3: "Y", 4: "Z"}
    assert [names[c] for c in labels[0].tolist()] == ["X", "X", "Y", "Z", "Z", "X", "W", "W", "O"]
    assert sentence.tolist() == [0] * 9
