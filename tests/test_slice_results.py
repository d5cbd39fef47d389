"""Every family by slice: per-slice results equal the metric on those sentences alone, their counts
add up to the whole, the worst slice and its gap, and errors that name the key and the place."""

import random
import re

import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH, unsigned

ALL = ["seqeval", "muc", "token", "overlap", "harem", "confusion"]
GENRES = ("news", "web", "fiction")


@pytest.fixture(scope="module")
def spans_metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def genres(n, seed=0):
    rng = random.Random(seed)
    return [rng.choice(GENRES) for _ in range(n)]


def counts(results):
    """Every count of every family, as a flat dict (the scores are not additive)."""
    out = {}
    for mode, table in results["muc"].items():
        out.update({f"muc.{mode}.{k}": v for k, v in table.items() if isinstance(v, int)})
        for t, row in table["per_type"].items():
            out.update({f"muc.{mode}.{t}.{k}": v for k, v in row.items() if isinstance(v, int)})
    for family in ("token", "overlap", "harem"):
        out.update({f"{family}.{k}": v for k, v in results[family].items() if isinstance(v, int)})
    for side, table in results["confusion"].items():
        for gold, row in table.items():
            if isinstance(row, int):
                out[f"confusion.{side}.{gold}"] = row
            else:
                out.update({f"confusion.{side}.{gold}.{p}": n for p, n in row.items()})
    out.update(
        {f"seqeval.{t}": v["number"] for t, v in results.items() if isinstance(v, dict) and "number" in v}
    )
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_slice_counts_add_up_to_the_whole_in_every_family(metric, seed):
    references, predictions = random_corpus(seed, 300, prefixes="OOOBIES")
    slices = {"genre": genres(len(references), seed), "parity": [i % 2 for i in range(len(references))]}
    results = metric.compute(predictions=predictions, references=references, scores=ALL, slices=slices)
    whole = counts(results)
    for key in slices:
        parts = [counts(r) for r in results["slices"][key]["values"].values()]
        summed = {name: sum(p.get(name, 0) for p in parts) for name in set().union(*parts) | set(whole)}
        assert summed == {name: whole.get(name, 0) for name in summed}, key
        assert sum(r["sentences"] for r in results["slices"][key]["values"].values()) == len(references)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_slice_scores_as_its_sentences_alone(metric, seed):
    references, predictions = random_corpus(seed, 200, prefixes="OOOBIES")
    slices = genres(len(references), seed)
    results = metric.compute(predictions=predictions, references=references, scores=ALL, slices=slices)
    for genre in GENRES:
        at = [i for i, g in enumerate(slices) if g == genre]
        alone = metric.compute(
            predictions=[predictions[i] for i in at], references=[references[i] for i in at], scores=ALL
        )
        part = results["slices"]["slice"]["values"][genre]
        for key, value in unsigned(alone).items():  # a slice's scores carry no signature of their own
            if key in ("decoding", "muc", "confusion"):
                continue
            if isinstance(value, dict) and "per_type" in value:
                assert {k: v for k, v in part[key].items() if k != "per_type"} == {
                    k: v for k, v in value.items() if k != "per_type"
                }, key
            else:
                assert part[key] == value, (genre, key)
        for mode, table in alone["muc"].items():
            assert {k: v for k, v in part["muc"][mode].items() if k != "per_type"} == {
                k: v for k, v in table.items() if k != "per_type"
            }
            for t, row in table["per_type"].items():
                assert part["muc"][mode]["per_type"][t] == row
        assert part["confusion"] == alone["confusion"]


def test_the_worst_slice_and_its_gap_by_hand(metric):
    references = [["B-PER", "O"], ["B-LOC", "O"], ["B-ORG", "O"], ["O", "O"]]
    predictions = [["B-PER", "O"], ["O", "O"], ["B-ORG", "O"], ["O", "O"]]
    results = metric.compute(predictions=predictions, references=references, slices=["a", "b", "a", "c"])
    worst = results["slices"]["slice"]["worst"]
    # a: 2 of 2 found (F 1); b: 0 of 1 (F 0); c: nothing on either side (left out)
    assert worst == {"value": "b", "score": "overall_f1", "slice": 0.0, "whole": 0.8, "gap": 0.8}
    assert results["slices"]["slice"]["values"]["c"]["overall_f1"] == 0.0


def test_slices_in_the_span_config_and_with_intervals(spans_metric):
    gold = [[{"label": "PER", "start": 0, "end": 2}], [{"label": "LOC", "start": 1, "end": 3}]] * 10
    pred = [[{"label": "PER", "start": 0, "end": 2}], [{"label": "LOC", "start": 1, "end": 2}]] * 10
    results = spans_metric.compute(
        predictions=pred, references=gold, slices={"n": [0, 1] * 10}, ci_resamples=50
    )
    values = results["slices"]["n"]["values"]
    assert values[0]["overall_f1"] == 1.0 and values[1]["overall_f1"] == 0.0
    assert values[0]["intervals"]["overall_f1"] == [1.0, 1.0]
    assert values[1]["muc"]["partial"]["recall"] == 0.5
    assert "overall_accuracy" not in values[0]


def test_slices_do_not_depend_on_the_order_of_sentences(metric):
    references, predictions = random_corpus(7, 150, prefixes="OOOBI")
    slices = genres(len(references), 7)
    order = list(range(len(references)))
    random.Random(1).shuffle(order)
    first = metric.compute(predictions=predictions, references=references, slices=slices)["slices"]
    again = metric.compute(
        predictions=[predictions[i] for i in order],
        references=[references[i] for i in order],
        slices=[slices[i] for i in order],
    )["slices"]
    assert first == again


BAD = [
    ({"genre": ["a"]}, "slices['genre'] has 1 values but there are 2 sentences"),
    (["a", None], "slices[1] is None; a slice value is a str or an int"),
    ({"genre": ["a", 1.5]}, "slices['genre'][1] is 1.5"),
    ({}, "slices is an empty dict"),
    ({"": ["a", "b"]}, "slices keys must be non-empty str"),
    ("ab", "slices must be a list with one value per sentence; got str"),
]


@pytest.mark.parametrize("slices, message", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_slices_name_the_key_and_the_place(metric, slices, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compute(predictions=[["O"], ["B-PER"]], references=[["O"], ["B-PER"]], slices=slices)
    assert metric.compute(predictions=[["B-PER"]], references=[["B-PER"]])["overall_f1"] == 1.0


def test_holm_equals_statsmodels():
    from conftest import require

    multitest = require("statsmodels.stats.multitest", "pip install -r requirements-extras.txt")
    import numpy as np

    from ner_recall.core.vocabulary import holm

    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.uniform(0, 0.2, rng.integers(1, 12)).tolist()
        assert holm(p) == pytest.approx(multitest.multipletests(p, method="holm")[1].tolist(), abs=1e-15)


def test_two_systems_per_slice_with_holm(metric):
    references, predictions = random_corpus(8, 240, prefixes="OOOBI")
    _, predictions_b = random_corpus(9, 240, prefixes="OOOBI")
    predictions_b = [b if len(b) == len(r) else p for b, p, r in zip(predictions_b, predictions, references)]
    slices = genres(len(references), 8)
    out = metric.compare(
        predictions=predictions,
        predictions_b=predictions_b,
        references=references,
        slices=slices,
        permutations=200,
        ci_resamples=100,
    )
    table = out["slices"]["slice"]["values"]
    assert set(table) == set(GENRES) and out["slices"]["slice"]["correction"] == "holm"
    for genre, cmp in table.items():
        at = [i for i, g in enumerate(slices) if g == genre]
        alone = metric.compare(
            predictions=[predictions[i] for i in at],
            predictions_b=[predictions_b[i] for i in at],
            references=[references[i] for i in at],
            permutations=200,
            ci_resamples=0,
        )
        assert cmp["difference"]["overall_f1"] == pytest.approx(alone["difference"]["overall_f1"], abs=1e-12)
        assert cmp["sentences"] == len(at)
        for name, p in cmp["p_values"].items():
            assert p <= cmp["p_values_holm"][name] <= 1
    assert (
        out["difference"]
        == metric.compare(
            predictions=predictions,
            predictions_b=predictions_b,
            references=references,
            permutations=200,
            ci_resamples=100,
        )["difference"]
    )


def test_document_macro_scores_by_hand(metric):
    """HIPE-scorer's macro_doc: per document P, R, F, then their mean and population std; precision
    over the documents with a prediction, recall over those with a gold entity, F over those with both."""
    references = [["B-PER", "O"], ["B-LOC", "O"], ["O", "O"], ["B-ORG", "O"]]
    predictions = [["B-PER", "O"], ["O", "O"], ["B-LOC", "O"], ["B-ORG", "B-PER"]]
    ids = ["d1", "d1", "d2", "d3"]
    strict = metric.compute(predictions=predictions, references=references, document_ids=ids)["documents"][
        "strict"
    ]
    # d1: 1 of 1 predicted right, 1 of 2 gold found; d2: 0 of 1 predicted, no gold; d3: 1 of 2, 1 of 1
    import numpy as np

    precision, recall, f1 = [1.0, 0.0, 0.5], [0.5, 1.0], [2 / 3, 2 / 3]
    assert strict["precision"] == pytest.approx(np.mean(precision))
    assert strict["precision_std"] == pytest.approx(np.std(precision))
    assert strict["recall"] == pytest.approx(np.mean(recall)) and strict["recall_std"] == pytest.approx(0.25)
    assert strict["f1"] == pytest.approx(np.mean(f1)) and strict["f1_std"] == pytest.approx(0.0, abs=1e-12)
    assert strict["documents"] == 3 and set(
        metric.compute(predictions=predictions, references=references, document_ids=ids)["documents"]
    ) == {"strict", "exact", "partial", "type"}


def test_entity_buckets_by_hand(metric):
    references = [["B-PER", "I-PER", "O", "B-LOC"], ["B-ORG"] + ["O"] * 11]
    predictions = [["B-PER", "I-PER", "O", "B-ORG"], ["B-ORG"] + ["O"] * 11]
    out = metric.compute(
        predictions=predictions,
        references=references,
        buckets=["entity_length", "sentence_length", "density"],
    )["buckets"]
    # one-token entities: gold LOC (missed), ORG (found); predicted ORG (wrong), ORG (right)
    assert out["entity_length"]["1"] == {
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "number": 2,
        "predicted": 2,
    }
    assert out["entity_length"]["2"]["f1"] == 1.0 and set(out["entity_length"]) == {"1", "2"}
    # sentence lengths 4 and 12; gold densities 2/4 and 1/12
    assert (
        out["sentence_length"]["1-10"]["recall"] == 0.5 and out["sentence_length"]["11-20"]["recall"] == 1.0
    )
    assert out["density"]["0.3+"]["number"] == 2 and out["density"]["0-0.1"]["number"] == 1


@pytest.mark.parametrize("seed", [0, 1])
def test_bucket_counts_add_up_to_the_strict_counts(metric, seed):
    references, predictions = random_corpus(seed, 300, prefixes="OOOBIES")
    results = metric.compute(
        predictions=predictions, references=references, buckets=["entity_length", "density"]
    )
    strict = results["muc"]["strict"]
    for table in results["buckets"].values():
        assert sum(b["number"] for b in table.values()) == strict["possible"]
        assert sum(b["predicted"] for b in table.values()) == strict["actual"]
        assert sum(round(b["recall"] * b["number"]) for b in table.values()) == strict["correct"]


def test_sentence_buckets_in_span_configs_need_the_texts(spans_metric):
    with pytest.raises(ValueError, match=r"count its example's characters: pass texts="):
        spans_metric.compute(predictions=[[]], references=[[]], buckets=["density"])
    spans_metric.compute(predictions=[[]], references=[[]], buckets=["density"], texts=[""])
    with pytest.raises(ValueError, match="buckets must be a list of attributes"):
        spans_metric.compute(predictions=[[]], references=[[]], buckets=["shape"])


def test_the_docs_table_is_the_bench_output():
    import os

    from conftest import ROOT

    written = [
        line
        for line in open(os.path.join(ROOT, "bench", "slices.md")).read().split("\n## Costs")[0].splitlines()
        if line.startswith("|")
    ]
    page = open(os.path.join(ROOT, "docs", "slices.md")).read()
    shown = (
        re.search(r"<!-- slices-bench -->\n(.*?)\n<!-- /slices-bench -->", page, re.S).group(1).splitlines()
    )
    assert len(written) > 2 and shown == written


# ids that would merge two groups (True == 1) or split one (NaN equals nothing) are refused, naming the place
MERGING_IDS = [
    ("default", dict(slices=[1, True]), "slices[1] is True beside int values (slices[0] is 1)"),
    ("default", dict(slices={"k": [0, False]}), "slices['k'][1] is False beside int values"),
    ("default", dict(slices=[float("nan"), 1]), "slices[0] is nan"),
    ("default", dict(document_ids=[1, True]), "document_ids[1] is True beside int values"),
    ("default", dict(document_ids=["a", float("nan")]), "document_ids[1] is nan; an id must equal itself"),
    ("compare", dict(document_ids=[0, False]), "document_ids[1] is False beside int values"),
    ("agreement", dict(document_ids=[float("nan"), 1], ci_resamples=10), "document_ids[0] is nan"),
]


@pytest.mark.parametrize("method, options, message", MERGING_IDS, ids=[m for _, _, m in MERGING_IDS])
def test_ids_that_would_merge_or_split_groups_are_refused(metric, method, options, message):
    two = [["B-PER", "O"], ["O", "B-LOC"]]
    call = {
        "default": lambda: metric.compute(predictions=two, references=two, **options),
        "compare": lambda: metric.compare(predictions=two, predictions_b=two, references=two, **options),
        "agreement": lambda: metric.agreement([two, two], **options),
    }[method]
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
