"""Entity buckets: strict precision, recall and F per bucket of an entity attribute.

As ExplainaBoard (Fu, Liu and Neubig, EMNLP 2020) buckets them, a gold entity falls in the bucket of
its own attribute (recall: found, strictly, among the gold entities of the bucket) and a prediction in
the bucket of its own attribute (precision: right, strictly, among the predictions of the bucket). The
attributes, each with fixed bucket edges (ExplainaBoard's are drawn from the data; fixed edges compare
across systems and corpora):

* ``entity_length``: tokens (offset units in the span configs): ``1``, ``2``, ``3``, ``4+``;
* ``sentence_length``: tokens of the entity's sentence (tag configs): ``1-10``, ``11-20``, ``21-40``,
  ``41+``;
* ``density``: entities of the entity's side per token of its sentence (tag configs): ``0-0.1``,
  ``0.1-0.2``, ``0.2-0.3``, ``0.3+``.

>>> import ner_decoding as D, ner_matching as M
>>> corpus = D.encode([["B-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "B-ORG"]])
>>> gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
>>> out = bucket_scores(gold, pred, M.match(gold, pred), corpus.lengths, ["entity_length"])
>>> out["entity_length"]["1"]["recall"], out["entity_length"]["2"]["f1"]
(0.0, 1.0)
"""

import numpy as np

if __package__:  # inside the package evaluate.load builds
    from .ner_core import divide, fbeta, fbeta_key
else:  # imported from the repo root: tests, ner_report, app
    from ner_core import divide, fbeta, fbeta_key

#: per attribute, the lower edge of each bucket and its name
EDGES = {
    "entity_length": ((1, 2, 3, 4), ("1", "2", "3", "4+")),
    "sentence_length": ((1, 11, 21, 41), ("1-10", "11-20", "21-40", "41+")),
    "density": ((0.0, 0.1, 0.2, 0.3), ("0-0.1", "0.1-0.2", "0.2-0.3", "0.3+")),
}
TOKEN_ATTRIBUTES = ("sentence_length", "density")


def check_buckets(buckets, span_config=False):
    """A list of attribute names (None: none)."""
    if buckets is None:
        return None
    if isinstance(buckets, (str, bytes)) or not isinstance(buckets, (list, tuple)) or not buckets:
        raise ValueError(f"buckets must be a list of attributes from {list(EDGES)}; got {buckets!r}")
    for name in buckets:
        if name not in EDGES:
            raise ValueError(f"buckets must be a list of attributes from {list(EDGES)}; got {name!r}")
        if span_config and name in TOKEN_ATTRIBUTES:
            raise ValueError(
                f"the bucket {name!r} needs tokens: the span configs have none (entity_length works)"
            )
    return tuple(dict.fromkeys(buckets))


def _attribute(name, spans, lengths):
    if name == "entity_length":
        return (spans.end - spans.start).astype(float)
    sentence_length = np.asarray(lengths, dtype=float)[spans.sentence]
    if name == "sentence_length":
        return sentence_length
    per_sentence = np.bincount(spans.sentence, minlength=len(lengths)).astype(float)
    return per_sentence[spans.sentence] / np.maximum(sentence_length, 1)


def _bucket_of(values, edges):
    return np.searchsorted(np.asarray(edges, dtype=float), values, side="right") - 1


def bucket_scores(gold, pred, matching, lengths, buckets, zero_division=0.0, beta=1.0):
    """``results["buckets"]``: per attribute, per bucket with an entity on either side, the strict
    ``precision``, ``recall``, F, ``number`` (gold entities) and ``predicted``."""
    exact = np.asarray(matching.scenario) == 0  # same span and type
    found = np.zeros(len(gold), dtype=bool)
    found[np.asarray(matching.gold)[exact]] = True
    right = np.zeros(len(pred), dtype=bool)
    right[np.asarray(matching.pred)[exact]] = True
    fkey = fbeta_key(beta)
    out = {}
    for name in buckets:
        edges, labels = EDGES[name]
        g = _bucket_of(_attribute(name, gold, lengths), edges)
        p = _bucket_of(_attribute(name, pred, lengths), edges)
        k = len(labels)
        number, hits = np.bincount(g, minlength=k), np.bincount(g[found], minlength=k)
        predicted, correct = np.bincount(p, minlength=k), np.bincount(p[right], minlength=k)
        table = {}
        for b, label in enumerate(labels):
            if number[b] or predicted[b]:
                precision = divide(correct[b], predicted[b], zero_division)
                recall = divide(hits[b], number[b], zero_division)
                table[label] = {
                    "precision": precision,
                    "recall": recall,
                    fkey: fbeta(precision, recall, beta),
                    "number": int(number[b]),
                    "predicted": int(predicted[b]),
                }
        out[name] = table
    return out
