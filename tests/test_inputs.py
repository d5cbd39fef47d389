"""Inputs in every form users hand them over, and the two paths of ``compute``.

``compute`` with nothing added before, in one process, scores its inputs directly; after
``add_batch`` it reads evaluate's cache as Arrow. Both paths, and every input form (tags,
class ids, padded arrays, tensors, ragged arrays, Arrow and ``datasets`` columns), give the
same result byte for byte (``repr`` equality, so even a float's last digit counts).
"""

import random
import re

import numpy as np
import pyarrow as pa
import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH, require
from ner_recall.core import cache as ner_cache

SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")
OPTION_FAMILIES = [
    {},
    {"zero_division": 1},
    {"scores": ["seqeval", "muc", "token", "overlap", "harem"], "errors": True},
    {"scores": ["overlap"], "overlap_threshold": 0.3},
    {"types": ["A", "C", "ZZ"], "label_map": {"B": "A"}},
    *({"mode": "strict", "scheme": s} for s in SCHEMES),
]
SUBGROUP_FAMILIES = [
    {},
    {"subgroup_weights": {"news": 3, "web": 1, "wiki": 2}, "ci_method": "korn_graubard"},
    {"ci_method": "bootstrap", "n_bootstrap": 200, "seed": 3, "recall_mode": "partial"},
]


@pytest.fixture(scope="module")
def metrics():
    import evaluate

    return {config: evaluate.load(METRIC_PATH, config) for config in ("default", "subgroups")}


def corpus(seed, n=300, scheme=None):
    prefixes = {"BILOU": "OOBILU", "IOBES": "OOBIES", "IOE1": "OOIE", "IOE2": "OOIE"}.get(
        scheme, "OOOBIES" if scheme is None else "OOBI"
    )
    references, predictions = random_corpus(seed, n, prefixes=prefixes)
    references[0], predictions[0] = list(references[0]) or ["O"], list(predictions[0]) or ["O"]
    return references, predictions


def streamed(metric, inputs, options, batch_size):
    n = len(inputs["references"])
    for start in range(0, n, batch_size):
        metric.add_batch(**{k: v[start : start + batch_size] for k, v in inputs.items()})
    return metric.compute(**options)


@pytest.mark.parametrize("options", OPTION_FAMILIES, ids=repr)
@pytest.mark.parametrize("seed", [1, 2])
def test_direct_and_cached_paths_agree_byte_for_byte(metrics, options, seed):
    metric = metrics["default"]
    references, predictions = corpus(seed, scheme=options.get("scheme"))
    inputs = {"predictions": predictions, "references": references}
    direct = metric.compute(**inputs, **options)
    assert len(metric) == 0  # nothing went through the cache
    cached = streamed(metric, inputs, options, batch_size=random.Random(seed).randint(1, 120))
    assert repr(direct) == repr(cached)
    # class ids, as a 2-D array padded with -100, as Arrow: the same again
    names = sorted({t for s in references + predictions for t in s})
    ids = {t: i for i, t in enumerate(names)}
    width = max(map(len, references))
    pad = lambda rows, fill: np.array([[ids[t] for t in r] + [fill] * (width - len(r)) for r in rows])  # noqa: E731
    from_ids = metric.compute(
        predictions=pad(predictions, 0), references=pad(references, -100), label_names=names, **options
    )
    from_arrow = metric.compute(predictions=pa.array(predictions), references=pa.array(references), **options)
    assert repr(from_ids) == repr(direct) == repr(from_arrow)


@pytest.mark.parametrize("options", SUBGROUP_FAMILIES, ids=repr)
def test_subgroups_paths_agree_byte_for_byte(metrics, options):
    metric = metrics["subgroups"]
    references, predictions = corpus(5)
    groups = [("news", "web", "wiki")[i % 3] for i in range(len(references))]
    inputs = {"predictions": predictions, "references": references, "subgroups": groups}
    direct = metric.compute(**inputs, **options)
    assert repr(direct) == repr(streamed(metric, inputs, options, batch_size=77))


FORMS = [
    "lists",
    "tuples",
    "numpy-2d",
    "numpy-ragged",
    "torch-2d",
    "torch-ragged",
    "arrow",
    "chunked-arrow",
    "datasets-column",
    "series",
    "add-one-by-one",
    "arrow-batches",
    "numpy-str-2d",
]


def as_form(form, rows, fill):
    """``rows`` (lists of ids) in ``form``; ``fill`` pads 2-D forms."""
    width = max(map(len, rows))
    padded = np.array([r + [fill] * (width - len(r)) for r in rows], dtype=np.int64)
    if form == "tuples":
        return tuple(tuple(r) for r in rows)
    if form == "numpy-2d":
        return padded
    if form == "numpy-ragged":
        return [np.array(r, dtype=np.int32) for r in rows]
    if form in ("torch-2d", "torch-ragged"):
        torch = require("torch")
        return (
            torch.tensor(padded) if form == "torch-2d" else [torch.tensor(r, dtype=torch.long) for r in rows]
        )
    if form == "arrow":
        return pa.array(rows)
    if form == "chunked-arrow":
        return pa.chunked_array([pa.array(rows[:3]), pa.array(rows[3:])])
    if form == "series":
        pd = require("pandas")
        return pd.Series(rows)
    return rows


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_class_ids_scores_alike(metrics, form):
    metric = metrics["default"]
    names = ["O", "B-A", "I-A", "B-B", "I-B"]
    references, predictions = corpus(9, n=40)
    references = [[t if t[2:] in "AB" else "O" for t in s] for s in references]
    predictions = [[t if t[2:] in "AB" and t[0] in "BI" else "O" for t in s] for s in predictions]
    references = [[t if t[0] in "BIO" else "O" for t in s] for s in references]
    expected = metric.compute(predictions=predictions, references=references)
    pred_ids = [[names.index(t) for t in s] for s in predictions]
    ref_ids = [[names.index(t) for t in s] for s in references]
    if form == "datasets-column":
        import datasets

        ds = datasets.Dataset.from_dict({"p": pred_ids, "r": ref_ids})
        result = metric.compute(predictions=ds["p"], references=ds["r"], label_names=names)
    elif form == "add-one-by-one":
        for p, r in zip(pred_ids, ref_ids):
            metric.add(prediction=p, reference=r)
        result = metric.compute(label_names=names)
    elif form == "arrow-batches":
        import datasets

        ds = datasets.Dataset.from_dict({"p": pred_ids, "r": ref_ids}).with_format("arrow")
        for batch in ds.iter(batch_size=7):
            metric.add_batch(predictions=batch["p"], references=batch["r"])
        result = metric.compute(label_names=names)
    elif form == "numpy-str-2d":
        width = max(map(len, references))
        result = metric.compute(
            predictions=np.array([s + ["O"] * (width - len(s)) for s in predictions]),
            references=np.array([s + ["O"] * (width - len(s)) for s in references]),
        )
        tokens = expected["overall_accuracy"]
        expected = metric.compute(
            predictions=[s + ["O"] * (width - len(s)) for s in predictions],
            references=[s + ["O"] * (width - len(s)) for s in references],
        )
        assert tokens != expected["overall_accuracy"]  # padding with O counts tokens: a real difference
    else:
        result = metric.compute(
            predictions=as_form(form, pred_ids, 0), references=as_form(form, ref_ids, -100), label_names=names
        )
    assert repr(result) == repr(expected)


def test_string_tags_from_a_datasets_arrow_column(metrics):
    import datasets

    references, predictions = corpus(4, n=200)
    ds = datasets.Dataset.from_dict({"p": predictions, "r": references}).with_format("arrow")
    expected = metrics["default"].compute(predictions=predictions, references=references)
    assert repr(metrics["default"].compute(predictions=ds["p"], references=ds["r"])) == repr(expected)
    shuffled = datasets.Dataset.from_dict({"p": predictions, "r": references}).select(range(199, -1, -1))
    result = metrics["default"].compute(predictions=shuffled["p"], references=shuffled["r"])
    assert (
        result["muc"]
        == metrics["default"].compute(predictions=predictions[::-1], references=references[::-1])["muc"]
    )


@pytest.mark.parametrize(
    "predictions, references, message",
    [
        (
            np.zeros((2, 3, 4)),
            np.zeros((2, 3), dtype=int),
            "predictions is an array of shape (2, 3, 4); expected 2-D"
            " (sentences x tokens), or a list of sentences (logits?",
        ),
        (
            np.zeros(3, dtype=int),
            np.zeros(3, dtype=int),
            "predictions is an array of shape (3,); expected 2-D",
        ),
        (
            np.zeros((2, 3), dtype=int),
            np.zeros((2, 4), dtype=int),
            "predictions[0] has 3 tags but references[0] has 4",
        ),
        (np.zeros((2, 3)), np.zeros((2, 3), dtype=int), "predictions holds float64 values, neither tags"),
        (
            pa.array([1, 2]),
            pa.array([[1], [2]]),
            "predictions is an Arrow column of int64; expected one list of tags",
        ),
        (pa.array([[1], None]), pa.array([[1], [2]]), "predictions[1] is None; every sentence is a list"),
        (pa.array([[1], [None]]), pa.array([[1], [2]]), "predictions[1][0] is None, neither a tag"),
        (pa.array([[1.5]]), pa.array([[1]]), "predictions holds double values, neither tags"),
        (
            [np.zeros((2, 2), dtype=int)],
            [[0, 0]],
            "predictions[0] is an array of shape (2, 2); a sentence is a list",
        ),
        (
            [[0, 1]],
            [np.array([0, 2**63], dtype=np.uint64)],
            "references[0][1] = 9223372036854775808 is not a class id",
        ),
    ],
)
def test_array_and_arrow_errors_name_the_place(metrics, predictions, references, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metrics["default"].compute(
            predictions=predictions, references=references, label_names=["O", "B-A", "I-A"]
        )


def test_a_series_must_be_indexed_from_zero(metrics):
    pd = require("pandas")
    rows = pd.Series([["B-A"], ["O"]], index=[5, 6])
    with pytest.raises(
        ValueError,
        match=re.escape("predictions is a pandas Series indexed [5, 6]...; sentences pair up by position"),
    ):
        metrics["default"].compute(predictions=rows, references=[["B-A"], ["O"]])
    with pytest.raises(ValueError, match="predictions is a DataFrame; pass one of its columns"):
        metrics["default"].compute(predictions=pd.DataFrame({"a": [1]}), references=[["O"]])


def test_input_codes_share_one_vocabulary_across_chunks_and_sides():
    chunked = pa.chunked_array([pa.array([["B-A", "O"]]), pa.array([["I-A"], ["B-A"]])])
    codes = ner_cache.input_codes(chunked, pa.array([["O", "I-A"], ["O"], ["B-B"]]))
    assert codes.vocabulary == ("O", "B-A", "I-A", "B-B")
    assert codes.predictions.tolist() == [1, 0, 2, 1] and codes.references.tolist() == [0, 2, 0, 3]
    assert codes.lengths.tolist() == [2, 1, 1]
    many = [[f"B-T{k}" for k in range(300)]]
    codes = ner_cache.input_codes(pa.array(many), pa.array(many))
    assert codes.predictions.dtype == np.int32 and codes.predictions.tolist() == list(range(1, 301))
    # Python lists of tag strings: coded by the pass that checks them, in order of first sight
    codes = ner_cache.input_codes([["B-A", "O"], ["I-A"]], [["O", "I-A"], ["B-B"]])
    assert codes.vocabulary == ("O", "B-A", "I-A", "B-B") and codes.dense
    assert codes.predictions.tolist() == [1, 0, 2] and codes.references.tolist() == [0, 2, 3]
    codes = ner_cache.input_codes(many, many)
    assert codes.predictions.dtype == np.int32 and codes.predictions.tolist() == list(range(1, 301))
    # an item that is not a str (1 and True are one dict key): left to ner_decoding.encode to name
    for odd in (1, True, None, 1.0, b"O"):
        assert ner_cache.input_codes([["B-A", odd]], [["O", "O"]]) is None


def test_ignored_positions_keep_their_places_in_errors(metrics):
    """A bad tag behind -100 positions is named at its place in the input, not in the shortened sentence."""
    with pytest.raises(ValueError, match=re.escape("invalid tag 'X-A' at predictions[0][3]")):
        metrics["default"].compute(
            predictions=[[0, 0, 0, 3]],
            references=[[-100, -100, 0, 0]],
            label_names=["O", "B-A", "I-A", "X-A"],
        )


def test_the_speed_profile_in_the_docs_is_the_scripts_output():
    import os

    from conftest import ROOT

    with open(os.path.join(ROOT, "bench", "speed_profile.md"), encoding="utf-8") as f:
        written = [line for line in f.read().splitlines() if line.startswith("|")]
    with open(os.path.join(ROOT, "docs", "speed.md"), encoding="utf-8") as f:
        found = re.search(r"<!-- speed-profile -->\n(.*?)\n<!-- /speed-profile -->", f.read(), re.S)
    assert found and written and found.group(1).splitlines() == written


def test_the_cache_of_tags_is_read_batch_by_batch_into_codes(metrics, monkeypatch):
    """One process that added tag strings reads evaluate's cache one record batch at a time
    (``core.cache.CachedColumns``): the same results as the direct path, across a switch from
    one-byte codes to int32 codes when the 257th distinct tag arrives in a later batch."""
    from ner_recall.core import cache as package

    metric = metrics["default"]
    reads = []
    original = package.CachedColumns.__init__

    def counted(self, path):
        reads.append(path)
        original(self, path)

    monkeypatch.setattr(package.CachedColumns, "__init__", counted)
    references, predictions = corpus(5, n=200)
    many = [f"{p}-T{k}" for k in range(150) for p in "BI"]  # 300 tags and O
    references += [many, ["O", "B-A"]]
    predictions += [many[::-1], ["B-A", "O"]]
    direct = metric.compute(predictions=predictions, references=references)
    assert reads == []
    cached = streamed(metric, {"predictions": predictions, "references": references}, {}, 50)
    assert len(reads) == 1 and repr(cached) == repr(direct)
    # a tag the scheme does not allow is named at its place in the whole stream
    metric.add_batch(predictions=[["O"]], references=[["O"]])
    metric.add_batch(predictions=[["O", "X-A"]], references=[["O", "O"]])
    with pytest.raises(ValueError, match=re.escape("'X-A' at predictions[1][1]")):
        metric.compute()
    assert metric.compute(predictions=[["B-A"]], references=[["B-A"]])["overall_f1"] == 1.0


def test_a_subgroups_stream_reads_its_subgroups_from_the_batches(metrics):
    references, predictions = corpus(6, n=120)
    subgroups = [("news", "web", "wiki")[k % 3] for k in range(len(references))]
    inputs = {"predictions": predictions, "references": references, "subgroups": subgroups}
    direct = metrics["subgroups"].compute(**inputs)
    assert repr(streamed(metrics["subgroups"], inputs, {}, 25)) == repr(direct)
