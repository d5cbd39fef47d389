"""``metric.trainer_compute_metrics``: decoding an EvalPrediction, flat names, a real Trainer.

The Trainer tests build a tiny ``BertForTokenClassification`` from a ``BertConfig`` (nothing
downloaded, nothing trained) and compare what ``Trainer.evaluate()`` logs with a direct
``compute`` on tags decoded here, one sentence at a time, without the helper under test.
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, require
from ner_recall.core import vocabulary as ner_core
from ner_recall.integrations import trainer as T

NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]
X = ner_core.IGNORE_INDEX


def one_hot_logits(ids, n=len(NAMES)):
    ids = np.asarray(ids)
    logits = np.full(ids.shape + (n,), -1.0, dtype=np.float32)
    np.put_along_axis(logits, np.clip(ids, 0, n - 1)[..., None], 1.0, axis=-1)
    return logits


PRED = [[0, 1, 2, 0, 3, 0], [5, 6, 0, 0, 0, 0]]
LABEL = [[X, 1, 2, X, 3, X], [5, 5, 0, X, X, X]]
PRED_TAGS = [["B-PER", "I-PER", "B-LOC"], ["B-ORG", "I-ORG", "O"]]
GOLD_TAGS = [["B-PER", "I-PER", "B-LOC"], ["B-ORG", "B-ORG", "O"]]


class Prediction:  # the shape of transformers' EvalPrediction, without transformers
    def __init__(self, predictions, label_ids):
        self.predictions, self.label_ids = predictions, label_ids


@pytest.mark.parametrize(
    "eval_prediction",
    [
        pytest.param(Prediction(np.array(PRED), np.array(LABEL)), id="ids"),
        pytest.param(Prediction(one_hot_logits(PRED), np.array(LABEL)), id="logits"),
        pytest.param((one_hot_logits(PRED), np.array(LABEL)), id="tuple"),
        pytest.param((one_hot_logits(PRED), np.array(LABEL), np.zeros((2, 6))), id="tuple-with-inputs"),
        pytest.param(
            Prediction((one_hot_logits(PRED), np.zeros((2, 6, 4))), np.array(LABEL)), id="model-outputs"
        ),
        pytest.param(
            Prediction(np.where(np.array(LABEL) == X, X, PRED), np.array(LABEL)), id="ids-padded-with-100"
        ),
    ],
)
def test_eval_predictions_score_as_their_tags_without_ignored_positions(metric, eval_prediction):
    ids, labels = T.eval_prediction_ids(eval_prediction)
    assert ids.shape == labels.shape == (2, 6)
    assert metric.compute(predictions=ids, references=labels, label_names=NAMES) == metric.compute(
        predictions=PRED_TAGS, references=GOLD_TAGS
    )


@pytest.mark.parametrize(
    "predictions, label_ids, message",
    [
        (
            np.array(PRED) + 6,
            np.array(LABEL),
            r"predictions\[0\]\[1\] = 7 is not a class id: label_names has 7 names",
        ),
        (
            np.array(PRED),
            np.where(np.array(LABEL) == 5, 9, LABEL),
            r"references\[1\]\[0\] = 9 is not a class id",
        ),
        (
            np.array(PRED, dtype=float),
            np.array(LABEL),
            r"predictions must be logits .* got float64 of shape \(2, 6\)",
        ),
        (np.array(PRED), np.array(LABEL)[:, :5], r"label_ids must be integer class ids of shape \(2, 6\)"),
        (np.array(PRED), None, r"no label_ids"),
        (
            np.zeros(6, dtype=int),
            np.zeros(6, dtype=int),
            r"label_ids must be integer class ids \(batch x length\)",
        ),
        (
            np.full((2, 6, 7), np.nan, dtype=np.float32),
            np.array(LABEL),
            r"predictions\[0\]\[1\]: the logits hold NaN",
        ),
        (
            np.where(np.arange(7) == 3, np.nan, one_hot_logits(PRED)),
            np.array(LABEL),
            r"predictions\[0\]\[1\]: the logits hold NaN",
        ),
    ],
)
def test_bad_eval_predictions_are_rejected(metric, predictions, label_ids, message):
    compute_metrics = metric.trainer_compute_metrics(NAMES)
    with pytest.raises(ValueError, match=message):
        compute_metrics(Prediction(predictions, label_ids))


def test_nan_logits_at_ignored_positions_do_not_matter():
    logits = one_hot_logits(PRED)
    logits[np.array(LABEL) == X] = np.nan
    ids, _ = T.eval_prediction_ids(Prediction(logits, np.array(LABEL)))
    assert (ids[np.array(LABEL) != X] == np.array(PRED)[np.array(LABEL) != X]).all()


@pytest.mark.parametrize(
    "results, flat",
    [
        (
            {"overall_f1": 0.5, "PER": {"f1": 1.0, "number": 2}},
            {"overall_f1": 0.5, "PER_f1": 1.0, "PER_number": 2},
        ),
        (
            {"muc": {"strict": {"f1": 0.5, "per_type": {"PER": {"missed": 1}}}}},
            {"muc_strict_f1": 0.5, "muc_strict_PER_missed": 1},
        ),
        (
            {"s": {"interval": [0.25, 0.75], "method": "wilson", "p": None}},
            {"s_interval_low": 0.25, "s_interval_high": 0.75},
        ),
        ({"a": np.float64(0.5), "b": np.int64(3), "c": True}, {"a": 0.5, "b": 3, "c": 1}),
        (
            {
                "errors": {"strict": {"missed": [{"sentence": 0, "gold": ["PER", 0, 2], "pred": None}]}},
                "f1": 0.5,
            },
            {"f1": 0.5},
        ),
    ],
)
def test_flatten_results_names_every_number(results, flat):
    out = T.flatten_results(results)
    assert out == flat
    assert all(type(v) in (int, float) for v in out.values())


@pytest.mark.parametrize(
    "results",
    [
        {"overall_f1": 0.5, "overall": {"f1": 0.4}},  # an entity type named "overall"
        {"muc": {"strict": {"f1": 0.5}}, "muc_strict": {"f1": 0.1}},
    ],
)
def test_flatten_results_rejects_colliding_names(results):
    with pytest.raises(ValueError, match="both flatten to"):
        T.flatten_results(results)


def test_compute_metrics_equals_flattened_compute(metric):
    compute_metrics = metric.trainer_compute_metrics(NAMES, mode="strict", scheme="IOB2")
    logged = compute_metrics(Prediction(one_hot_logits(PRED), np.array(LABEL)))
    direct = metric.compute(predictions=PRED_TAGS, references=GOLD_TAGS, mode="strict", scheme="IOB2")
    assert logged == T.flatten_results(direct)
    assert logged["muc_partial_f1"] == direct["muc"]["partial"]["f1"] != logged["muc_strict_f1"]
    assert logged["ORG_number"] == 2 and logged["muc_exact_ORG_missed"] == 1


@pytest.mark.parametrize(
    "label_names, options, message",
    [
        (NAMES, {"mdoe": "strict"}, r"unknown compute option 'mdoe'; options: \[.*'mode'"),
        (NAMES, {"predictions": []}, r"unknown compute option 'predictions'"),
        (NAMES, {"mode": "bogus"}, r"mode must be one of"),
        (NAMES, {"mode": "strict", "scheme": "IOBES"}, None),
        (NAMES + ["X-PER"], {}, r"invalid tag 'X-PER'"),
        ("O B-PER", {}, r"label_names must be a list of str"),
    ],
)
def test_trainer_compute_metrics_checks_options_before_training(metric, label_names, options, message):
    if message is None:
        assert callable(metric.trainer_compute_metrics(label_names, **options))
        return
    with pytest.raises(ValueError, match=message):
        metric.trainer_compute_metrics(label_names, **options)


def test_trainer_compute_metrics_needs_tag_inputs_only(tmp_path):
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(METRIC_PATH, "subgroups", cache_dir=str(tmp_path))
    with pytest.raises(
        ValueError, match=r"scores tags only; this configuration also needs inputs \['subgroups'\]"
    ):
        metric.trainer_compute_metrics(NAMES)


# --- a real Trainer -------------------------------------------------------------------------

SENTENCES = [  # (word pieces per word, tag per word)
    ([1, 2, 1, 1], ["B-PER", "I-PER", "O", "B-LOC"]),
    ([1, 1, 3, 1, 1], ["O", "B-ORG", "I-ORG", "O", "O"]),
    ([2, 1], ["B-LOC", "O"]),
    ([1, 1, 1, 1, 1, 1, 1], ["O", "B-PER", "O", "O", "B-ORG", "I-ORG", "I-ORG"]),
    ([1], ["O"]),
    ([1, 2, 2, 1, 1, 1], ["B-LOC", "I-LOC", "O", "B-PER", "I-PER", "O"]),
    ([3, 1, 1], ["B-ORG", "O", "B-PER"]),
]
VOCAB = 50
CLS, SEP, PAD = 1, 2, 0


def encoded_sentences():
    """Token ids with [CLS] / [SEP], labels on each word's first piece and -100 elsewhere."""
    rng = np.random.default_rng(0)
    rows = []
    for pieces, tags in SENTENCES:
        input_ids, labels = [CLS], [X]
        for n, tag in zip(pieces, tags):
            input_ids += rng.integers(3, VOCAB, size=n).tolist()
            labels += [NAMES.index(tag)] + [X] * (n - 1)
        input_ids.append(SEP)
        labels.append(X)
        rows.append({"input_ids": input_ids, "attention_mask": [1] * len(input_ids), "labels": labels})
    return rows


def pad_batch(rows):
    """Pad each batch to its longest row (so batches differ in length, as in real runs)."""
    torch = require("torch")
    width = max(len(r["input_ids"]) for r in rows)
    fill = {"input_ids": PAD, "attention_mask": 0, "labels": X}
    return {
        key: torch.tensor([r[key] + [value] * (width - len(r[key])) for r in rows])
        for key, value in fill.items()
    }


def tiny_model(torch, transformers):
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=VOCAB,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        num_labels=len(NAMES),
    )
    return transformers.BertForTokenClassification(config).eval()


def expected_tags(torch, model, rows):
    """Tags decoded one sentence at a time, independently of ner_trainer."""
    predictions, references = [], []
    with torch.no_grad():
        for row in rows:
            logits = model(input_ids=torch.tensor([row["input_ids"]])).logits[0]
            keep = [j for j, label in enumerate(row["labels"]) if label != X]
            predictions.append([NAMES[int(logits[j].argmax())] for j in keep])
            references.append([NAMES[row["labels"][j]] for j in keep])
    return predictions, references


def argmax_logits(logits, labels):
    return logits.argmax(dim=-1)


@pytest.mark.parametrize("form", ["logits", "ids", "model-outputs"])
def test_trainer_evaluate_logs_the_metric(metric, tmp_path, form):
    torch = require("torch", "the Trainer suite")
    transformers = require("transformers", "the Trainer suite")
    require("accelerate", "Trainer needs it")
    model = tiny_model(torch, transformers)
    rows = encoded_sentences()
    predictions, references = expected_tags(torch, model, rows)
    if form == "model-outputs":  # predictions arrive as a tuple (logits, hidden states)
        model.config.output_hidden_states = True
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path),
        per_device_eval_batch_size=3,
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
    )
    trainer = transformers.Trainer(
        model=model,
        args=args,
        eval_dataset=rows,
        data_collator=pad_batch,
        compute_metrics=metric.trainer_compute_metrics(NAMES, zero_division=1),
        preprocess_logits_for_metrics=argmax_logits if form == "ids" else None,
    )
    logged = trainer.evaluate()

    direct = metric.compute(predictions=predictions, references=references, zero_division=1)
    assert direct["muc"]["strict"]["actual"] > 0 and direct["muc"]["strict"]["possible"] == 10
    expected = {f"eval_{k}": v for k, v in T.flatten_results(direct).items()}
    assert {k: logged.get(k) for k in expected} == expected
    assert set(logged) - set(expected) <= {
        "eval_loss",
        "eval_runtime",
        "eval_samples_per_second",
        "eval_steps_per_second",
        "eval_model_preparation_time",
        "epoch",
    }
    assert logged["eval_overall_f1"] == direct["overall_f1"]
    assert logged["eval_muc_partial_f1"] == direct["muc"]["partial"]["f1"]
    for entity_type in ("PER", "LOC", "ORG"):
        assert logged[f"eval_{entity_type}_number"] == direct[entity_type]["number"]
        assert (
            logged[f"eval_muc_strict_{entity_type}_missed"]
            == direct["muc"]["strict"]["per_type"][entity_type]["missed"]
        )
    assert "eval_loss" in logged


def test_the_readme_trainer_example_runs(tmp_path):
    """examples/trainer_example.py, run as the docs tell a new user to, from another folder."""
    require("torch", "the Trainer suite")
    require("transformers", "the Trainer suite")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "trainer_example.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    scores = dict(re.findall(r"^  (eval_\w+) +\S+ -> +(\S+)$", run.stdout, re.M))
    assert float(scores["eval_overall_f1"]) > 0.8 and float(scores["eval_muc_strict_f1"]) > 0.8, run.stdout
    assert re.search(r"^\d{3} numbers logged", run.stdout, re.M), run.stdout


def test_the_docs_trainer_block_is_the_example_script():
    with open(os.path.join(ROOT, "docs", "training.md"), encoding="utf-8") as f:
        readme = f.read()
    found = re.search(
        r"<!-- trainer-example -->\n```python\n(.*?)```\n<!-- /trainer-example -->", readme, re.S
    )
    assert found, "docs/training.md has no trainer-example block"
    with open(os.path.join(ROOT, "examples", "trainer_example.py"), encoding="utf-8") as f:
        assert found.group(1) == f.read()
