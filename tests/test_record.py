"""The record of a run (``ner_record``; docs/record.md): rerun gives the identical results, a
changed input is found by its hash, the model card's metadata, ``evaluate.save``, the command line."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH, ROOT

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
        from ner_recall.ner_decoding import tags_to_spans

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
    from ner_recall import ner_record

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
    from ner_recall import ner_record

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
        [sys.executable, os.path.join(ROOT, "ner_report.py"), *argv],
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
