"""ner_recall_metric inside ``transformers.Trainer``: the README's example, runnable.

From any folder, after ``pip install torch==2.13.0`` (first, alone: the CPU build)
and ``pip install -r requirements.txt -r requirements-trainer.txt``:

    python path/to/examples/trainer_example.py

A tiny BERT is built from a ``BertConfig`` (nothing is downloaded), evaluated, trained for a
few seconds on six sentences and evaluated again on the same six (a smoke test, not a
benchmark). Trainer logs every metric with the ``eval_`` prefix; this prints a few of them.
"""

import os
import tempfile

import evaluate
import torch
from transformers import BertConfig, BertForTokenClassification, Trainer, TrainingArguments

label_names = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]
sentences = [
    (["Mari", "Kask", "lives", "in", "Tartu"], ["B-PER", "I-PER", "O", "O", "B-LOC"]),
    (["Bolt", "opened", "an", "office", "in", "Tallinn"], ["B-ORG", "O", "O", "O", "O", "B-LOC"]),
    (["Jaan", "works", "at", "Tartu", "Ülikool"], ["B-PER", "O", "O", "B-ORG", "I-ORG"]),
    (["Tallinn", "and", "Tartu", "are", "cities"], ["B-LOC", "O", "B-LOC", "O", "O"]),
    (["Anna", "Saar", "met", "Mari"], ["B-PER", "I-PER", "O", "B-PER"]),
    (["Skype", "started", "in", "Tallinn"], ["B-ORG", "O", "O", "B-LOC"]),
]

# A toy word-piece tokenizer. With a real one, take each word's first piece from
# tokenizer(words, is_split_into_words=True).word_ids() in the same way.
vocab = {"[PAD]": 0, "[CLS]": 1, "[SEP]": 2}


def pieces(word):
    return [word[:5], "##" + word[5:]] if len(word) > 5 else [word]


def encode(words, tags):
    """input_ids with [CLS] and [SEP]; a word's label on its first piece, -100 on the rest."""
    input_ids, labels = [vocab["[CLS]"]], [-100]
    for word, tag in zip(words, tags):
        ids = [vocab.setdefault(piece, len(vocab)) for piece in pieces(word)]
        input_ids += ids
        labels += [label_names.index(tag)] + [-100] * (len(ids) - 1)
    return {"input_ids": input_ids + [vocab["[SEP]"]], "labels": labels + [-100]}


dataset = [encode(words, tags) for words, tags in sentences]


def collate(rows):
    """Pad a batch to its longest row: input_ids with [PAD], labels with -100."""
    width = max(len(row["input_ids"]) for row in rows)
    input_ids = torch.tensor([r["input_ids"] + [0] * (width - len(r["input_ids"])) for r in rows])
    labels = torch.tensor([r["labels"] + [-100] * (width - len(r["labels"])) for r in rows])
    return {"input_ids": input_ids, "attention_mask": (input_ids != 0).long(), "labels": labels}


torch.manual_seed(0)
config = BertConfig(
    vocab_size=len(vocab),
    hidden_size=32,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=64,
    num_labels=len(label_names),
    id2label=dict(enumerate(label_names)),
)
model = BertForTokenClassification(config)

metric = evaluate.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ner_recall_metric.py"))
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    num_train_epochs=30,
    learning_rate=1e-2,
    per_device_train_batch_size=6,
    report_to="none",
    use_cpu=True,
    logging_strategy="no",
    save_strategy="no",
)
trainer = Trainer(
    model=model,
    args=args,
    train_dataset=dataset,
    eval_dataset=dataset,
    data_collator=collate,
    # logits -> argmax, -100 positions skipped, ids -> label_names, the result flattened
    compute_metrics=metric.trainer_compute_metrics(label_names, mode="strict", scheme="IOB2"),
)
before = trainer.evaluate()
trainer.train()
after = trainer.evaluate()
print(f"{len(after)} numbers logged, among them:")
for key in (
    "eval_overall_f1",
    "eval_PER_f1",
    "eval_LOC_recall",
    "eval_muc_strict_f1",
    "eval_muc_partial_f1",
    "eval_muc_strict_spurious",
    "eval_muc_strict_PER_incorrect",
):
    print(f"  {key:28} {before[key]:6.3g} -> {after[key]:6.3g}")
