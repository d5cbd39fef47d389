"""Entity buckets that read the entity's text and the training entities, and intervals per bucket:
hand-counted tables, counts that add up to the strict MUC counts on random corpora in every
attribute, and errors that name what is missing."""

import random

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH
from ner_recall.families import buckets as ner_buckets

ALL = list(ner_buckets.ATTRIBUTES)
WORDS = ("Anna", "NATO", "riga", "1984", "de", "Bern", "iPhone", "UN", "x")


@pytest.fixture(scope="module")
def spans_metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def random_tokens(references, seed):
    rng = random.Random(seed)
    return [[rng.choice(WORDS) for _ in sentence] for sentence in references]


# text -> capitalisation bucket
CAPITALS = [
    ("NATO", "upper"),
    ("UN", "upper"),
    ("Anna", "title"),
    ("A", "title"),
    ("New york", "title"),
    ("de Gaulle", "lower"),
    ("iPhone", "lower"),
    ("1984", "none"),
    ("", "none"),
    ("Ölüdeniz", "title"),
    ("ÉTAT", "upper"),
]


@pytest.mark.parametrize("text, bucket", CAPITALS)
def test_capitalisation_of_a_text(text, bucket):
    index = ner_buckets.capitalisation([text])[0]
    assert ner_buckets.CATEGORIES["capitalisation"][index] == bucket


# a training corpus: entities Anna Smith PER, NATO ORG (twice), NATO LOC, Bern LOC; "nato" also
# occurs twice outside any entity
TRAIN_CORPUS = {
    "tokens": [
        ["Anna", "Smith", "met", "NATO"],
        ["nato", "and", "NATO", "in", "Bern"],
        ["NATO", "x", "nato"],
    ],
    "tags": [["B-PER", "I-PER", "O", "B-ORG"], ["O", "O", "B-LOC", "O", "B-LOC"], ["B-ORG", "O", "O"]],
}
TRAIN_PAIRS = [("PER", "Anna Smith"), ("ORG", "NATO"), ("LOC", "NATO"), ("ORG", "NATO"), ("LOC", "Bern")]


@pytest.mark.parametrize("train", [TRAIN_CORPUS, TRAIN_PAIRS])
def test_text_and_training_buckets_by_hand(metric, train):
    references = [["B-PER", "I-PER", "O", "B-ORG"], ["B-LOC", "O", "B-PER"]]
    predictions = [["B-PER", "I-PER", "O", "B-LOC"], ["B-LOC", "O", "O"]]
    tokens = [["Anna", "Smith", "of", "NATO"], ["riga", "x", "1984"]]
    out = metric.compute(
        predictions=predictions,
        references=references,
        buckets=["capitalisation", "seen", "train_frequency"],
        tokens=tokens,
        train_entities=train,
    )["buckets"]
    # gold: Anna Smith PER (found), NATO ORG (missed: predicted LOC), riga LOC (found), 1984 PER (missed)
    # predicted: Anna Smith PER (right), NATO LOC (wrong), riga LOC (right)
    cap = out["capitalisation"]
    assert {b: (r["number"], r["predicted"], r["recall"], r["precision"]) for b, r in cap.items()} == {
        "title": (1, 1, 1.0, 1.0),
        "upper": (1, 1, 0.0, 0.0),
        "lower": (1, 1, 1.0, 1.0),
        "none": (1, 0, 0.0, 0.0),
    }
    assert {b: (r["number"], r["predicted"]) for b, r in out["seen"].items()} == {
        "seen": (2, 2),
        "unseen": (2, 1),
    }
    assert {b: (r["number"], r["predicted"]) for b, r in out["train_frequency"].items()} == {
        "0": (2, 1),
        "1-2": (1, 1),
        "3-9": (1, 1),
    }
    if train is TRAIN_PAIRS:  # eCon needs the occurrences outside entities: pairs have none
        with pytest.raises(ValueError, match=r"'label_consistency' \(ExplainaBoard's eCon\) counts every"):
            metric.compute(
                predictions=predictions,
                references=references,
                buckets=["label_consistency"],
                tokens=tokens,
                train_entities=train,
            )
        return
    consistency = metric.compute(
        predictions=predictions,
        references=references,
        buckets=["label_consistency"],
        tokens=tokens,
        train_entities=train,
    )["buckets"]["label_consistency"]
    # "nato" occurs 5 times in training: ORG 2, LOC 1, O 2 (ExplainaBoard counts every occurrence,
    # lower-cased): gold ORG 2/5 and predicted LOC 1/5 both in 0-0.5 (2/3 and 1/3 over the entities)
    assert {b: (r["number"], r["predicted"]) for b, r in consistency.items()} == {
        "unseen": (2, 1),
        "1": (1, 1),
        "0-0.5": (1, 1),
    }


def econ_by_definition(corpus):
    """ExplainaBoard's eCon, straight from its definition: per lower-cased training entity text, per
    label, the occurrences of the text (every window of tokens of every width) with that label
    (the entity's type where the window is an entity, O elsewhere) over all its occurrences."""
    from ner_recall.core.decoding import tags_to_spans

    sentences = []
    for words, tags in zip(corpus["tokens"], corpus["tags"]):
        sentences.append(
            ([w.lower() for w in words], {(s.start, s.end): s.label for s in tags_to_spans(tags)})
        )
    texts = {" ".join(words[a:b]) for words, spans in sentences for a, b in spans}
    counts = {t: {} for t in texts}
    for words, spans in sentences:
        for a in range(len(words)):
            for b in range(a + 1, len(words) + 1):
                text = " ".join(words[a:b])
                if text in counts:
                    label = spans.get((a, b), "O")
                    counts[text][label] = counts[text].get(label, 0) + 1
    return {f"{t}|||{k}": n / sum(c.values()) for t, c in counts.items() for k, n in c.items()}


@pytest.mark.parametrize("seed", range(3))
def test_label_consistency_is_explainaboards_econ(seed):
    rng = random.Random(seed)
    words = ["New", "new", "York", "york", "Bern", "x", "de"]
    corpus = {"tokens": [], "tags": []}
    for _ in range(80):
        tags = random_corpus(rng.randrange(10**6), 1, prefixes="OOBI")[0][0]
        corpus["tags"].append(tags)
        corpus["tokens"].append([rng.choice(words) for _ in tags])
    train = ner_buckets.check_train_entities(corpus)
    expected = econ_by_definition(corpus)
    assert {
        f"{t}|||{k}": n / sum(c.values()) for t, c in train.occurrences.items() for k, n in c.items()
    } == (pytest.approx(expected))
    texts = [t for t in train.occurrences] + ["unseen text"]
    kinds = [rng.choice(["A", "B", "C", "O"]) for _ in texts]
    got = ner_buckets.label_consistency([t.upper() for t in texts], kinds, train)
    for text, kind, value in zip(texts, kinds, got.tolist()):
        assert value == (expected.get(f"{text}|||{kind}", 0.0) if text in train.occurrences else -1.0)


@pytest.mark.parametrize(
    "value, bucket",
    [
        (-1.0, "unseen"),
        (0.0, "0"),
        (1e-9, "0-0.5"),
        (0.4999, "0-0.5"),
        (0.5, "0.5-1"),
        (0.9999, "0.5-1"),
        (1.0, "1"),
    ],
)
def test_label_consistency_bucket_edges(value, bucket):
    index = ner_buckets._bucket_of(np.array([value]), "label_consistency")[0]
    assert ner_buckets.labels_of("label_consistency")[index] == bucket


@pytest.mark.parametrize(
    "name, values, buckets",
    [
        ("entity_length", [1, 2, 3, 4, 5, 40], ["1", "2", "3", "4+", "4+", "4+"]),
        (
            "sentence_length",
            [1, 10, 11, 20, 21, 40, 41, 500],
            ["1-10", "1-10", "11-20", "11-20", "21-40", "21-40", "41+", "41+"],
        ),
        ("train_frequency", [0, 1, 2, 3, 9, 10, 99], ["0", "1-2", "1-2", "3-9", "3-9", "10+", "10+"]),
        (
            "density",
            [0.0, 0.0999, 0.1, 0.2, 0.2999, 0.3, 2.0],
            ["0-0.1", "0-0.1", "0.1-0.2", "0.2-0.3", "0.2-0.3", "0.3+", "0.3+"],
        ),
    ],
)
def test_numeric_bucket_edges(name, values, buckets):
    labels = ner_buckets.labels_of(name)
    if name == "entity_length":
        from ner_recall.core.vocabulary import SpanArrays

        n = len(values)
        spans = SpanArrays(
            np.zeros(n, dtype=np.int64),
            np.array(values),
            np.zeros(n, dtype=np.int64),
            np.arange(n),
            np.zeros(n, dtype=np.int64),
        )
        got = ner_buckets._numeric_buckets(name, spans, [100] * n)
    elif name == "sentence_length":
        from ner_recall.core.vocabulary import SpanArrays

        n = len(values)
        spans = SpanArrays(
            np.zeros(n, dtype=np.int64),
            np.ones(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64),
            np.arange(n),
            np.zeros(n, dtype=np.int64),
        )
        got = ner_buckets._numeric_buckets(name, spans, values)
    else:
        got = ner_buckets._bucket_of(np.array(values, dtype=float), name)
    assert [labels[b] for b in np.asarray(got).tolist()] == buckets


def test_four_token_entities_are_in_the_last_length_bucket(metric):
    references = [["B-A", "I-A", "I-A", "I-A", "O", "B-B", "I-B", "I-B"], ["B-A", "I-A", "I-A", "I-A", "I-A"]]
    out = metric.compute(predictions=references, references=references, buckets=["entity_length"])["buckets"]
    assert {b: r["number"] for b, r in out["entity_length"].items()} == {"3": 1, "4+": 2}


def test_a_training_corpus_counts_as_its_entities(metric):
    references = [["B-PER", "O", "B-LOC"]]
    tokens = [["Anna", "in", "Bern"]]
    corpus = {"tokens": [["Anna", "sang"], ["Bern", "Bern"]], "tags": [["B-PER", "O"], ["B-LOC", "I-LOC"]]}
    pairs = [("PER", "Anna"), ("LOC", "Bern Bern")]
    scores = [
        metric.compute(
            predictions=references, references=references, buckets=["seen"], tokens=tokens, train_entities=t
        )["buckets"]
        for t in (corpus, pairs)
    ]
    assert scores[0] == scores[1] and scores[0]["seen"]["seen"]["number"] == 1


def test_span_configs_read_the_entity_text_from_texts(spans_metric):
    texts = ["Anna met NATO"]
    gold = [[{"label": "PER", "start": 0, "end": 4}, {"label": "ORG", "start": 9, "end": 13}]]
    out = spans_metric.compute(
        predictions=gold,
        references=gold,
        texts=texts,
        buckets=["capitalisation", "seen"],
        train_entities=[("ORG", "NATO")],
    )["buckets"]
    assert set(out["capitalisation"]) == {"title", "upper"}
    assert out["seen"]["seen"]["number"] == 1 and out["seen"]["unseen"]["number"] == 1


@pytest.mark.parametrize("seed", range(4))
def test_every_attribute_adds_up_to_the_strict_counts(metric, seed):
    references, predictions = random_corpus(seed, 200, prefixes="OOOBIES")
    tokens = random_tokens(references, seed)
    train = [(random.Random(seed + i).choice("ABC"), w) for i, w in enumerate(WORDS * 3)]
    train = {"tokens": [[w] for _, w in train], "tags": [[f"B-{k}"] for k, _ in train]}  # as a corpus
    results = metric.compute(
        predictions=predictions, references=references, buckets=ALL, tokens=tokens, train_entities=train
    )
    strict = results["muc"]["strict"]
    assert set(results["buckets"]) == set(ALL)
    for name, table in results["buckets"].items():
        assert set(table) <= set(ner_buckets.labels_of(name)), name
        assert sum(b["number"] for b in table.values()) == strict["possible"], name
        assert sum(b["predicted"] for b in table.values()) == strict["actual"], name
        assert sum(round(b["recall"] * b["number"]) for b in table.values()) == strict["correct"], name
        assert sum(round(b["precision"] * b["predicted"]) for b in table.values()) == strict["correct"], name


def test_intervals_per_bucket(metric):
    references, predictions = random_corpus(3, 400, prefixes="OOOBIE")
    tokens = random_tokens(references, 3)
    options = dict(buckets=["entity_length", "capitalisation"], tokens=tokens)
    plain = metric.compute(predictions=predictions, references=references, **options)["buckets"]
    out = metric.compute(predictions=predictions, references=references, ci_resamples=300, seed=5, **options)
    again = metric.compute(
        predictions=predictions, references=references, ci_resamples=300, seed=5, **options
    )
    assert out["buckets"] == again["buckets"]  # the seed fixes the resamples
    for name, table in out["buckets"].items():
        for label, row in table.items():
            assert {k: v for k, v in row.items() if k != "intervals"} == plain[name][label]
            for key in ("precision", "recall", "f1"):
                low, high = row["intervals"][key]
                assert low <= row[key] + 1e-12 and row[key] <= high + 1e-12, (name, label, key)
    # a perfect tagger: every bucket's interval is the point 1
    perfect = metric.compute(predictions=references, references=references, ci_resamples=100, **options)
    for table in perfect["buckets"].values():
        for row in table.values():
            assert all(row["intervals"][k] == [1.0, 1.0] for k in ("precision", "recall", "f1"))
    # documents as units: wider than sentences, never narrower in this corpus
    ids = [i // 20 for i in range(len(references))]
    by_doc = metric.compute(
        predictions=predictions, references=references, ci_resamples=300, document_ids=ids, **options
    )["buckets"]["entity_length"]["1"]["intervals"]["f1"]
    by_sentence = out["buckets"]["entity_length"]["1"]["intervals"]["f1"]
    assert by_doc != by_sentence


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(buckets=["capitalisation"]), r"read each entity's text: pass tokens="),
        (dict(buckets=["seen"], tokens=[["a"]]), r"compare with the training entities: pass train_entities="),
        (dict(tokens=[["Anna"]]), r"tokens=\[\['Anna'\]\] changes nothing here"),
        (dict(train_entities=[("PER", "Anna")]), r"train_entities=.* changes nothing here"),
        (dict(buckets=["capitalisation"], tokens=[["a", "b"]]), r"tokens\[0\] must be a list of 1 str"),
        (dict(buckets=["capitalisation"], tokens=[[3]]), r"tokens\[0\]\[0\] must be a str; got int"),
        (
            dict(buckets=["capitalisation"], tokens=[["a"], ["b"]]),
            r"tokens has 2 sentences but references has 1",
        ),
        (
            dict(buckets=["seen"], tokens=[["a"]], train_entities=[("PER", 1)]),
            r"train_entities\[0\] must be a \(type, text\) pair of str",
        ),
        (
            dict(
                buckets=["seen"], tokens=[["a"]], train_entities={"tokens": [["a"]], "tags": [["B-X", "O"]]}
            ),
            r"train_entities\['tokens'\]\[0\] must be a list as long as \['tags'\]\[0\]",
        ),
        (
            dict(buckets=["seen"], tokens=[["a"]], train_entities={"tokens": [["a"]], "tags": [["X-Y"]]}),
            r"train_entities\['tags'\]\[0\]: .*X-Y",
        ),
    ],
)
def test_bucket_errors_name_what_is_missing(metric, options, message):
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=[["B-PER"]], references=[["B-PER"]], **options)
    # the failed call left the metric usable
    assert metric.compute(predictions=[["B-PER"]], references=[["B-PER"]])["overall_f1"] == 1.0


def test_span_configs_bucket_sentences_by_the_characters_of_their_texts(spans_metric):
    """A text of 13 characters with 2 entities: length 1-60, density 15.4 per 100 characters;
    a text of 130 with one: 121-240, 0.77 per 100. Each bucket's counts are its entities'."""
    texts = ["Anna met NATO", "Bern " * 26]
    gold = [
        [{"label": "PER", "start": 0, "end": 4}, {"label": "ORG", "start": 9, "end": 13}],
        [{"label": "LOC", "start": 0, "end": 4}],
    ]
    pred = [gold[0][:1], gold[1]]
    out = spans_metric.compute(
        predictions=pred, references=gold, texts=texts, buckets=["sentence_length", "density"]
    )["buckets"]
    assert out["sentence_length"]["1-60"] == out["density"]["5+"]
    assert (out["sentence_length"]["1-60"]["number"], out["sentence_length"]["1-60"]["recall"]) == (2, 0.5)
    assert out["sentence_length"]["121-240"]["number"] == out["density"]["0-1.5"]["number"] == 1
    assert set(out["sentence_length"]) == {"1-60", "121-240"} and set(out["density"]) == {"0-1.5", "5+"}


def test_span_configs_need_texts_for_the_sentence_attributes(spans_metric):
    for name in ("sentence_length", "density"):
        with pytest.raises(
            ValueError, match=r"count its example's characters: pass texts= \(one str per example\)"
        ):
            spans_metric.compute(predictions=[[]], references=[[]], buckets=[name])


def test_tokens_belong_to_the_tag_configs(spans_metric):
    with pytest.raises(ValueError, match="tokens needs the 'default' config"):
        spans_metric.compute(predictions=[[]], references=[[]], tokens=[[]])
    with pytest.raises(ValueError, match=r"pass texts= \(one str per example\)"):
        spans_metric.compute(predictions=[[]], references=[[]], buckets=["capitalisation"])


def test_two_systems_per_bucket_with_holm(metric):
    from ner_recall.core.vocabulary import holm

    references, predictions = random_corpus(1, 300)
    better = [r if i % 2 else p for i, (r, p) in enumerate(zip(references, predictions))]
    tokens = random_tokens(references, 1)
    options = dict(buckets=["entity_length", "capitalisation"], tokens=tokens)
    out = metric.compare(
        predictions=predictions,
        predictions_b=better,
        references=references,
        permutations=300,
        ci_resamples=200,
        **options,
    )
    a = metric.compute(predictions=predictions, references=references, **options)["buckets"]
    b = metric.compute(predictions=better, references=references, **options)["buckets"]
    assert out["a"]["buckets"] == a and out["b"]["buckets"] == b
    for name, compared in out["buckets"].items():
        assert compared["correction"] == "holm" and set(compared["values"]) == set(a[name]) | set(b[name])
        for key in ("precision", "recall", "f1"):
            rows = compared["values"]
            assert [r["p_values_holm"][key] for r in rows.values()] == holm(
                [r["p_values"][key] for r in rows.values()]
            )
            for label, row in rows.items():
                expected = b[name].get(label, {}).get(key, 0.0) - a[name].get(label, {}).get(key, 0.0)
                assert row["difference"][key] == pytest.approx(expected, abs=1e-12), (name, label, key)
                low, high = row["intervals"][key]
                assert low <= row["difference"][key] + 1e-12 <= high + 2e-12
    # a system against itself: no difference anywhere, every p-value 1
    same = metric.compare(
        predictions=predictions,
        predictions_b=predictions,
        references=references,
        permutations=100,
        ci_resamples=0,
        **options,
    )["buckets"]
    for compared in same.values():
        for row in compared["values"].values():
            assert set(row["difference"].values()) == {0.0} and set(row["p_values"].values()) == {1.0}
