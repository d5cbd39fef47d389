"""The README recipe: a model's predictions added to a ``datasets.Dataset`` with a batched
``map``, scored from its columns at once and streamed through ``add_batch``; same results.
"""

import random

import pytest

from conftest import require

NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]
ENTITIES = {
    "PER": ["Anna", "Mari Kask", "Jaan Saar"],
    "LOC": ["Tartu", "Tallinn", "Narva"],
    "ORG": ["Bolt", "Skype", "Tartu Ülikool"],
}
#: what the "model" knows: single words, and Tartu is always a place
GAZETTEER = {"Anna": "PER", "Mari": "PER", "Jaan": "PER", "Tartu": "LOC", "Tallinn": "LOC", "Bolt": "ORG"}


def corpus(n_sentences, seed=0):
    """Tokens and ClassLabel ids of sentences mixing words and one- or two-token entities."""
    rng = random.Random(seed)
    rows = {"tokens": [], "ner_tags": []}
    for _ in range(n_sentences):
        tokens, tags = [], []
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.5:
                tokens.append(rng.choice(["the", "of", "went", "to", "in"]))
                tags.append(0)
                continue
            entity = rng.choice(list(ENTITIES))
            words = rng.choice(ENTITIES[entity]).split()
            tokens += words
            tags += [NAMES.index("B-" + entity)] + [NAMES.index("I-" + entity)] * (len(words) - 1)
        rows["tokens"].append(tokens)
        rows["ner_tags"].append(tags)
    return rows


def predict(batch):
    """The "model": a one-word gazetteer, one class id per token (so it errs on purpose)."""
    return {
        "pred_tags": [
            [NAMES.index("B-" + GAZETTEER[w]) if w in GAZETTEER else 0 for w in tokens]
            for tokens in batch["tokens"]
        ]
    }


@pytest.fixture(scope="module")
def dataset():
    datasets = require("datasets")
    features = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "ner_tags": datasets.Sequence(datasets.ClassLabel(names=NAMES)),
        }
    )
    return datasets.Dataset.from_dict(corpus(1000), features=features)


@pytest.fixture(scope="module")
def expected(metric, dataset):
    """The scores of plain Python lists of tags, without datasets in the way."""
    names = dataset.features["ner_tags"].feature.names
    gold = [[names[i] for i in row] for row in dataset["ner_tags"]]
    pred = [[names[i] for i in row] for row in predict({"tokens": dataset["tokens"]})["pred_tags"]]
    result = metric.compute(predictions=pred, references=gold)
    assert 0.2 < result["overall_recall"] < 0.95 and result["PER"]["number"] > 100  # a non-trivial test
    return result


@pytest.mark.parametrize("map_batch_size", [1, 64, 1000])
def test_scored_from_columns(metric, dataset, expected, map_batch_size):
    scored = dataset.map(predict, batched=True, batch_size=map_batch_size)
    names = scored.features["ner_tags"].feature.names
    result = metric.compute(predictions=scored["pred_tags"], references=scored["ner_tags"], label_names=names)
    assert result == expected


@pytest.mark.parametrize(
    "iter_batch_size, output_format", [(1, None), (37, None), (256, "numpy"), (5000, None)]
)
def test_streamed_through_add_batch(metric, dataset, expected, iter_batch_size, output_format):
    scored = dataset.map(predict, batched=True).with_format(output_format)
    names = scored.features["ner_tags"].feature.names
    for batch in scored.iter(batch_size=iter_batch_size):
        metric.add_batch(predictions=batch["pred_tags"], references=batch["ner_tags"])
    assert metric.compute(label_names=names) == expected


def test_tag_strings_in_the_dataset_score_alike(metric, dataset, expected):
    """A string column (e.g. after ``ClassLabel.int2str``) needs no label_names."""
    names = dataset.features["ner_tags"].feature
    scored = dataset.map(predict, batched=True).map(
        lambda b: {
            "pred": [names.int2str(r) for r in b["pred_tags"]],
            "gold": [names.int2str(r) for r in b["ner_tags"]],
        },
        batched=True,
    )
    for batch in scored.iter(batch_size=100):
        metric.add_batch(predictions=batch["pred"], references=batch["gold"])
    assert metric.compute() == expected
