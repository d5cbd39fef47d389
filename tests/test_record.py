"""The record of a run (``ner_record``; docs/record.md): rerun gives the identical results, a
changed input is found by its hash, the model card's metadata, ``evaluate.save``, the command line."""

import json
import os
import subprocess

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import CLI, METRIC_PATH, ROOT

DATA = os.path.join(ROOT, "tests", "data")


@pytest.fixture(scope="module")
def metrics():
    import evaluate

    return {c: evaluate.load(METRIC_PATH, c) for c in ("default", "spans")}


def test_a_record_holds_what_produced_the_results(metrics):
    refs, preds = random_corpus(4, 40)
    record = metrics["default"].record(
        predictions=preds, references=refs, mode="strict", scheme="IOB2", seed=7, ci_resamples=20
    )
    assert record["config"] == "default" and record["options"] == {
        "mode": "strict",
        "scheme": "IOB2",
        "seed": 7,
        "ci_resamples": 20,
    }
    assert record["defaults"]["zero_division"] == 0 and "mode" not in record["defaults"]
    assert record["seed"] == 7 and record["decoding"] == record["results"]["decoding"]
    assert set(record["inputs"]) == {"predictions", "references"} and "one-to-one" in record["matching"]
    assert record["versions"]["numpy"] == np.__version__
    json.dumps(record)  # JSON as it is


@pytest.mark.parametrize("config", ["default", "spans"])
def test_rerun_reproduces_the_results_to_the_bit(metrics, config):
    refs, preds = random_corpus(5, 60)
    if config == "spans":
        from ner_recall.core.decoding import tags_to_spans

        refs, preds = (
            [[dict(label=s.label, start=s.start, end=s.end) for s in tags_to_spans(t)] for t in side]
            for side in (refs, preds)
        )
    options = dict(
        ci_resamples=50, seed=3, scores=["seqeval", "muc", "token"], document_ids=[i // 4 for i in range(60)]
    )
    record = json.loads(json.dumps(metrics[config].record(predictions=preds, references=refs, **options)))
    assert (
        "document_ids" in record["inputs"] and "document_ids" not in record["options"]
    )  # hashed, not stored
    again = metrics[config].rerun(
        record, predictions=preds, references=refs, document_ids=[i // 4 for i in range(60)]
    )
    from ner_recall.pipeline import record as ner_record

    assert ner_record.same_results(record, again)
    assert json.loads(json.dumps(again)) == record["results"]


def test_a_changed_input_is_found_by_its_hash_and_the_metric_stays_usable(metrics):
    refs, preds = random_corpus(6, 20)
    record = metrics["default"].record(predictions=preds, references=refs)
    flipped = [list(s) for s in preds]
    k = next(i for i, s in enumerate(flipped) if s)
    flipped[k][0] = "O" if flipped[k][0] != "O" else "B-A"
    with pytest.raises(
        ValueError, match=r"predictions is not the input of the record: its hash sha256:\w+ differs"
    ):
        metrics["default"].rerun(record, predictions=flipped, references=refs)
    with pytest.raises(ValueError, match=r"'document_ids' was not an input of the recorded run"):
        metrics["default"].rerun(record, predictions=preds, references=refs, document_ids=[0] * 20)
    with pytest.raises(ValueError, match=r"the record is of the 'default' config"):
        metrics["spans"].rerun(record, predictions=preds, references=refs)
    with pytest.raises(ValueError, match="not a record"):
        metrics["default"].rerun({"format": "x"}, predictions=preds, references=refs)
    assert metrics["default"].rerun(record, predictions=preds, references=refs) == metrics["default"].compute(
        predictions=preds, references=refs
    )


def test_hashes_see_values_not_containers():
    from ner_recall.pipeline import record as ner_record

    tags = [["B-A", "O"], ["O"]]
    assert ner_record.fingerprint(tags) == ner_record.fingerprint(tuple(map(tuple, tags)))
    assert ner_record.fingerprint([np.array([1, 2])]) == ner_record.fingerprint([[1, 2]])
    assert ner_record.fingerprint(tags) != ner_record.fingerprint([["B-A", "O"], ["B-A"]])


def test_model_index_and_evaluate_save(metrics, tmp_path):
    import evaluate

    refs, preds = random_corpus(7, 30)
    results = metrics["default"].compute(predictions=preds, references=refs)
    card = metrics["default"].model_index(results, "my-tagger", "CoNLL-2003", "conll2003", split="test")
    entry = card["model-index"][0]
    assert entry["name"] == "my-tagger" and entry["results"][0]["task"]["type"] == "token-classification"
    values = {m["name"]: m["value"] for m in entry["results"][0]["metrics"]}
    assert (
        values["F1"] == results["overall_f1"]
        and values["F1 (MUC partial)"] == results["muc"]["partial"]["f1"]
    )
    flat = metrics["default"].flat_results(results)
    assert (
        flat["muc/strict/f1"] == results["muc"]["strict"]["f1"]
        and flat["overall_f1"] == results["overall_f1"]
    )
    path = evaluate.save(str(tmp_path), **flat)
    saved = json.loads(open(path, encoding="utf-8").read())
    assert saved["muc/strict/f1"] == results["muc"]["strict"]["f1"]


def _cli(*argv, cwd):
    return subprocess.run(
        [*CLI, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )


def test_the_command_line_records_and_reruns(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_bytes(open(os.path.join(DATA, "gold.conll"), "rb").read())
    pred.write_bytes(open(os.path.join(DATA, "pred_a.conll"), "rb").read())
    out = _cli(str(gold), str(pred), "--ci-resamples", "20", "--record", "run.json", cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert record["options"]["ci_resamples"] == 20 and record["files"]["gold"]["sha256"].startswith("sha256:")
    again = _cli("--rerun", "run.json", cwd=str(tmp_path))
    assert again.returncode == 0 and again.stdout.startswith("identical"), again.stderr
    pred.write_text(pred.read_text(encoding="utf-8").replace("B-LOC", "B-ORG", 1), encoding="utf-8")
    changed = _cli("--rerun", "run.json", cwd=str(tmp_path))
    assert (
        changed.returncode == 1 and "the predictions file" in changed.stderr and "changed" in changed.stderr
    )
    missing = _cli(str(gold), str(pred), "--record", "no/such/run.json", cwd=str(tmp_path))
    assert (
        missing.returncode == 1
        and "--record no/such/run.json: the folder" in missing.stderr
        and missing.stdout == ""
    )


# ---------------------------------------------------------------------------- the record's parts, unit by unit


def _record(**changes):
    from ner_recall.pipeline import record as ner_record

    record = ner_record.make_record(
        "default",
        {"predictions": [["B-A"]], "references": [["B-A"]], "subgroups": None},
        {"mode": "strict", "texts": ["a"]},
        {"mode": None, "seed": 0, "beta": 1.0},
        {"overall_f1": 1.0, "decoding": {"repaired": 0}},
    )
    record.update(changes)
    return record


def test_make_record_keeps_options_hashes_data_and_fills_defaults():
    from ner_recall.pipeline import record as ner_record

    record = _record()
    assert record["format"] == ner_record.RECORD_FORMAT and record["version"] == ner_record.RECORD_VERSION
    assert record["options"] == {"mode": "strict"}  # texts: per-sentence data, hashed
    assert record["defaults"] == {"seed": 0, "beta": 1.0}  # given options are not defaults
    assert record["seed"] == 0 and record["decoding"] == {"repaired": 0}
    assert set(record["inputs"]) == {"predictions", "references", "texts"}  # None is not hashed
    assert record["inputs"]["texts"] == ner_record.fingerprint(["a"])
    assert record["results"] == {"overall_f1": 1.0, "decoding": {"repaired": 0}}
    assert record["matching"] == ner_record.MATCHING and record["versions"] == ner_record.versions()
    seeded = ner_record.make_record("default", {}, {"seed": 5}, {"seed": 0}, {})
    assert seeded["seed"] == 5 and seeded["decoding"] is None
    with pytest.raises(ValueError, match="an option cannot be written in a record"):
        ner_record.make_record("default", {}, {"mode": object()}, {}, {})
    ner_record.check_record(record)


def test_a_hash_does_not_depend_on_dict_key_order():
    from ner_recall.pipeline import record as ner_record

    a = [[{"label": "PER", "start": 0, "end": 2}]]
    b = [[{"end": 2, "start": 0, "label": "PER"}]]
    assert ner_record.canonical(a) == ner_record.canonical(b) == (b'[[{"end":2,"label":"PER","start":0}]]')
    assert ner_record.fingerprint(a) == ner_record.fingerprint(b)
    assert ner_record.fingerprint({"x": [1], "y": 2}) == ner_record.fingerprint({"y": 2, "x": [1]})
    assert ner_record.canonical({1: "é"}) == '{"1":"é"}'.encode()  # keys as str, UTF-8, no escapes
    assert ner_record.canonical(np.int64(3)) == b"3" and ner_record.canonical(np.array([[1.5]])) == b"[[1.5]]"
    assert ner_record.fingerprint([]).startswith("sha256:") and len(ner_record.fingerprint([])) == 71


class _Arrow:
    def to_pylist(self):
        return [1, (2, 3)]


class _Tensor:
    def tolist(self):
        return [[4]]


def test_columns_and_tensors_hash_as_the_lists_they_hold():
    from ner_recall.pipeline import record as ner_record

    assert ner_record.canonical(_Arrow()) == b"[1,[2,3]]"
    assert ner_record.canonical({"t": _Tensor()}) == b'{"t":[[4]]}'


TAMPERED = [
    # (change, message)
    ({"format": "x"}, r"not a record: its 'format'"),
    ({"version": 2}, r"a record of layout 2; this metric reads 1"),
    ({"version": True}, r"a record of layout True"),
    ({"version": "1"}, r"a record of layout '1'"),
    ({"options": ["mode"]}, r"not a record: its 'options' is a dict; got list"),
    ({"options": None}, r"its 'options' is a dict; got NoneType"),
    ({"config": 3}, r"its 'config' is a str; got int"),
    ({"inputs": "x"}, r"its 'inputs' is a dict; got str"),
    ({"results": [1]}, r"its 'results' is a dict; got list"),
    ({"options": {"predictions": [["O"]]}}, r"its 'options' hold 'predictions', an input"),
    ({"options": {"references": []}}, r"hold 'references'"),
    ({"options": {"texts": ["a"]}}, r"hold 'texts'"),
    ({"inputs": {"predictions": 5}}, r"the hash of input 'predictions' is not 'sha256:...'; got 5"),
    ({"inputs": {"predictions": "md5:x"}}, r"the hash of input 'predictions'"),
]


@pytest.mark.parametrize("change, message", TAMPERED)
def test_a_tampered_record_is_a_named_error(change, message):
    from ner_recall.pipeline import record as ner_record

    with pytest.raises(ValueError, match=message):
        ner_record.check_record(_record(**change))


@pytest.mark.parametrize("part", ["config", "options", "inputs", "results"])
def test_a_record_without_a_part_is_refused(part):
    from ner_recall.pipeline import record as ner_record

    record = _record()
    del record[part]
    with pytest.raises(ValueError, match=f"not a record: no '{part}'"):
        ner_record.check_record(record)


def test_a_recursive_or_unwritable_record_is_refused():
    from ner_recall.pipeline import record as ner_record

    record = _record()
    record["results"]["self"] = record
    with pytest.raises(ValueError, match=r"a tampered record: it cannot be written as JSON \(ValueError"):
        ner_record.check_record(record)
    with pytest.raises(ValueError, match=r"cannot be written as JSON \(TypeError"):
        ner_record.check_record(_record(results={"x": object()}))
    deep = _record()
    for _ in range(100_000):
        deep["results"] = {"r": deep["results"]}
    with pytest.raises(ValueError, match=r"cannot be written as JSON \(RecursionError"):
        ner_record.check_record(deep)
    with pytest.raises(ValueError, match="not a record"):
        ner_record.check_record([record])


def test_check_inputs_names_the_input_that_differs():
    from ner_recall.pipeline import record as ner_record

    record = _record()
    given = {"predictions": [["B-A"]], "references": [["B-A"]], "texts": ["a"]}
    ner_record.check_inputs(record, given)
    ner_record.check_inputs(record, {**given, "subgroups": None})  # None is no input
    with pytest.raises(ValueError, match=r"the record hashed 'texts'; give it again to rerun"):
        ner_record.check_inputs(record, {**given, "texts": None})
    with pytest.raises(ValueError, match=r"the record hashed 'texts'"):
        ner_record.check_inputs(record, {k: v for k, v in given.items() if k != "texts"})
    with pytest.raises(ValueError, match=r"^references is not the input of the record: its hash sha256:"):
        ner_record.check_inputs(record, {**given, "references": [["O"]]})
    with pytest.raises(ValueError, match=r"^'document_ids' was not an input of the recorded run$"):
        ner_record.check_inputs(record, {**given, "document_ids": [0], "subgroups": ["x"]})


def test_same_results_and_differences_to_the_bit():
    from ner_recall.pipeline import record as ner_record

    record = _record(results={"a": 1.0, "b": {"c": 0.5, "d": [1, 2]}, "e": 1})
    assert ner_record.same_results(record, {"b": {"d": (1, 2), "c": 0.5}, "a": 1.0, "e": 1})
    assert not ner_record.same_results(record, {"a": 1.0, "b": {"c": 0.5 + 2**-53, "d": [1, 2]}, "e": 1})
    assert ner_record.differences(record, {"a": 1.0, "b": {"c": 0.25, "d": [1]}, "e": 1}) == ["b.c", "b.d"]
    assert ner_record.differences(record, {"a": 2.0, "b": {"c": 0.5, "d": [1, 2]}, "f": 1}) == ["a", "e", "f"]
    many = {f"k{i}": i for i in range(9)}
    assert ner_record.differences(_record(results=many), {}) == [f"k{i}" for i in range(5)]
    assert ner_record.differences(_record(results=many), {}, limit=2) == ["k0", "k1"]
    assert ner_record.differences(_record(results={"a": 1}), {"a": 1}) == []


def test_model_index_metrics_and_dataset():
    from ner_recall.pipeline import record as ner_record

    results = {
        "overall_precision": 0.5,
        "overall_recall": 0.25,
        "overall_f1": 1 / 3,
        "muc": {"strict": {"f1": 0.3}, "type": {"f1": 0.4}},
    }
    card = ner_record.model_index(results, "m", "CoNLL", "conll2003")
    (entry,) = card["model-index"]
    (result,) = entry["results"]
    assert entry["name"] == "m"
    assert result["task"] == {"type": "token-classification", "name": "Token Classification"}
    assert result["dataset"] == {"name": "CoNLL", "type": "conll2003"}
    assert result["metrics"] == [
        {"type": "precision", "value": 0.5, "name": "Precision"},
        {"type": "recall", "value": 0.25, "name": "Recall"},
        {"type": "f1", "value": 1 / 3, "name": "F1"},
        {"type": "f1", "value": 0.3, "name": "F1 (MUC strict)"},
        {"type": "f1", "value": 0.4, "name": "F1 (MUC type)"},
    ]
    full = ner_record.model_index({"overall_accuracy": 0.9}, "m", "d", "t", split="test", dataset_config="en")
    (result,) = full["model-index"][0]["results"]
    assert result["dataset"] == {"name": "d", "type": "t", "split": "test", "config": "en"}
    assert result["metrics"] == [{"type": "accuracy", "value": 0.9, "name": "Accuracy"}]


def test_flat_results_keep_numbers_only():
    from ner_recall.pipeline import record as ner_record

    results = {"a": 1, "b": {"c": 0.5, "d": {"e": 2}}, "s": "x", "l": [1], "t": True, "n": None}
    assert ner_record.flat_results(results) == {"a": 1, "b/c": 0.5, "b/d/e": 2}
    assert ner_record.flat_results({"x": 1.5}, prefix="p/") == {"p/x": 1.5}


def test_versions_name_python_and_each_package():
    import platform

    from ner_recall.pipeline import record as ner_record

    found = ner_record.versions()
    assert found["python"] == platform.python_version() and list(found) == ["python", *ner_record.PACKAGES]
    assert found["numpy"] == np.__version__


def test_a_package_not_installed_has_no_version(monkeypatch):
    from ner_recall.pipeline import record as ner_record

    monkeypatch.setattr(ner_record, "PACKAGES", ("numpy", "no-such-package-here"))
    assert ner_record.versions()["no-such-package-here"] is None


def test_a_record_with_nan_results_is_a_record():
    from ner_recall.pipeline import record as ner_record

    ner_record.check_record(_record(results={"f1": float("nan")}))  # JSON as Python writes it


def test_the_hash_that_differs_is_the_given_inputs():
    from ner_recall.pipeline import record as ner_record

    given = {"predictions": [["B-A"]], "references": [["O"]], "texts": ["a"]}
    digest = ner_record.fingerprint([["O"]])
    with pytest.raises(
        ValueError, match=f"its hash {digest} differs from {_record()['inputs']['references']}$"
    ):
        ner_record.check_inputs(_record(), given)


def test_differences_between_a_table_and_a_number():
    from ner_recall.pipeline import record as ner_record

    record = _record(results={"a": {"b": 1}, "c": 2})
    assert ner_record.differences(record, {"a": 5, "c": 2}) == ["a"]
    assert ner_record.differences(record, {"a": {"b": 1}, "c": {"d": 2}}) == ["c"]
