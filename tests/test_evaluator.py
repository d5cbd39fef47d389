"""evaluate's ``evaluator("token-classification")`` with this metric as ``metric=``.

evaluate 0.4.6 reads ``transformers.TFPreTrainedModel``, which transformers 5 removed, whenever
``model_or_pipeline`` is neither a str nor a ``PreTrainedModel``: with transformers 5, pass the model
and its tokenizer, not a ``Pipeline`` (the card says so; the second test notices when that changes).
"""

import os

import pytest

from conftest import METRIC_PATH, require

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "mari", "kask", "lives", "in", "tartu", "tallinn", "is", "big"]
SENTENCES = [
    (["Mari", "Kask", "lives", "in", "Tartu"], [1, 2, 0, 0, 3]),
    (["Tallinn", "is", "big"], [3, 0, 0]),
    (["Kask", "is", "in", "Tallinn"], [1, 0, 0, 3]),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny BERT token classifier and its tokenizer, built offline (one word, one word piece)."""
    torch = require("torch", "the Trainer suite")
    transformers = require("transformers", "the Trainer suite")
    vocab = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    vocab.write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(vocab))
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(WORDS),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    return transformers.BertForTokenClassification(config).eval(), tokenizer


@pytest.fixture(scope="module")
def data():
    import datasets

    features = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "ner_tags": datasets.Sequence(datasets.ClassLabel(names=LABELS)),
        }
    )
    return datasets.Dataset.from_dict(
        {"tokens": [w for w, _ in SENTENCES], "ner_tags": [t for _, t in SENTENCES]}, features=features
    )


def predicted_tags(model, tokenizer):
    """Each word's tag: the argmax of its (only) word piece, computed without evaluate."""
    import torch

    out = []
    for words, _ in SENTENCES:
        encoded = tokenizer(words, is_split_into_words=True, return_tensors="pt")
        with torch.no_grad():
            best = model(**encoded).logits[0].argmax(-1).tolist()
        ids = encoded.word_ids()
        out.append([LABELS[best[ids.index(i)]] for i in range(len(words))])
    return out


def test_evaluator_scores_a_model_with_this_metric(tiny, data):
    import evaluate

    model, tokenizer = tiny
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    metric = evaluate.load(METRIC_PATH)
    results = evaluate.evaluator("token-classification").compute(
        model_or_pipeline=model, tokenizer=tokenizer, data=data, metric=metric
    )
    references = [[LABELS[t] for t in tags] for _, tags in SENTENCES]
    direct = metric.compute(predictions=predicted_tags(model, tokenizer), references=references)
    assert direct["muc"]["strict"]["actual"] > 0  # the tiny model predicts entities: a real comparison
    assert {k: results[k] for k in direct} == direct


def test_a_pipeline_object_fails_inside_evaluate_with_transformers_5(tiny, data):
    import evaluate
    import transformers

    if int(transformers.__version__.split(".")[0]) < 5:
        pytest.skip("transformers < 5 still has TFPreTrainedModel")
    model, tokenizer = tiny
    pipe = transformers.pipeline("token-classification", model=model, tokenizer=tokenizer)
    with pytest.raises(AttributeError, match="TFPreTrainedModel"):
        evaluate.evaluator("token-classification").compute(
            model_or_pipeline=pipe, data=data, metric=evaluate.load(METRIC_PATH)
        )
