"""Entity buckets: strict precision, recall and F per bucket of an entity attribute.

As ExplainaBoard (Fu, Liu and Neubig, EMNLP 2020) buckets them, a gold entity falls in the bucket of
its own attribute (recall: found, strictly, among the gold entities of the bucket) and a prediction in
the bucket of its own attribute (precision: right, strictly, among the predictions of the bucket). The
attributes, each with fixed buckets (ExplainaBoard draws its edges from the data; fixed ones compare
across systems and corpora):

* ``entity_length``: tokens (offset units in the span configs): ``1``, ``2``, ``3``, ``4+``;
* ``sentence_length``: tokens of the entity's sentence (tag configs): ``1-10``, ``11-20``, ``21-40``,
  ``41+``; in the span configs, characters of the example's text (``texts``): ``1-60``, ``61-120``,
  ``121-240``, ``241+``;
* ``density``: entities of the entity's side per token of its sentence (tag configs): ``0-0.1``,
  ``0.1-0.2``, ``0.2-0.3``, ``0.3+``; in the span configs, per 100 characters of the example's text:
  ``0-1.5``, ``1.5-3``, ``3-5``, ``5+`` (the tag configs' edges taken at six characters a token,
  rounded; the length edges likewise);
* ``capitalisation`` (needs the entity's text: ``tokens`` in the tag configs, ``texts`` in the span
  configs): ``upper`` (every letter upper case, two letters or more: ``NATO``), ``title`` (the first
  letter upper case: ``Anna``, ``New york``, ``A``), ``lower`` (the first letter lower case: ``de
  Gaulle``, ``iPhone``), ``none`` (no letter: ``1984``);
* with ``train_entities`` (the training set's entities as ``(type, text)`` pairs, or the training
  corpus ``{"tokens", "tags"}``), an entity's text compared exactly with the training texts: ``seen``
  (``seen``/``unseen``) and ``train_frequency`` (how many training entities have its text: ``0``,
  ``1-2``, ``3-9``, ``10+``);
* ``label_consistency``, ExplainaBoard's eCon (Fu, Liu and Neubig 2020; ``get_econ_efre_dic`` in
  ExplainaBoard 0.12.7), which needs the training corpus: among **every occurrence** of the entity's
  lower-cased text in the lower-cased training tokens (entity or not), the share labelled with the
  entity's type: ``unseen`` (the text is no training entity's; ExplainaBoard gives it 0), ``0``,
  ``0-0.5``, ``0.5-1``, ``1``. A gold entity is judged with its gold type, a prediction with its
  predicted type (ExplainaBoard judges every span with its true label). Occurrences are counted
  within a training sentence (ExplainaBoard concatenates the sentences, so an occurrence may straddle
  two), and training entities are decoded by the metric's lenient decoder, the type whole (ExplainaBoard's
  BIO reader keeps the type up to a second ``-`` and joins ``I-X I-Y`` into one entity).

An entity's text is its tokens joined by one space (tag configs), or its characters (span configs).

>>> from ner_recall.core import decoding as D
>>> from ner_recall.core import matching as M
>>> corpus = D.encode([["B-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "B-ORG"]])
>>> gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
>>> out = bucket_scores(gold, pred, M.match(gold, pred), corpus.lengths, ["entity_length"])
>>> out["entity_length"]["1"]["recall"], out["entity_length"]["2"]["f1"]
(0.0, 1.0)
>>> capitalisation(["NATO", "Anna", "de Gaulle", "1984", "A"]).tolist()
[0, 1, 2, 3, 1]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ner_recall.core.vocabulary import (
    InputError,
    SpanArrays,
    fbeta_array,
    holm,
    prf_scores,
    ratio,
    same_count,
    score_names,
)
from ner_recall.stats.uncertainty import (
    DEFAULT_METHOD,
    Bootstrap,
    bootstrap_totals,
    group_rows,
    interval_bounds,
)

if TYPE_CHECKING:  # the matching module's families import this one
    from ner_recall.core.matching import Matching

#: per numeric attribute, the lower edge of each bucket and its name
EDGES = {
    "entity_length": ((1, 2, 3, 4), ("1", "2", "3", "4+")),
    "sentence_length": ((1, 11, 21, 41), ("1-10", "11-20", "21-40", "41+")),
    "density": ((0.0, 0.1, 0.2, 0.3), ("0-0.1", "0.1-0.2", "0.2-0.3", "0.3+")),
    "train_frequency": ((0, 1, 3, 10), ("0", "1-2", "3-9", "10+")),
    # unseen is -1; a share strictly between 0 and 0.5 is in "0-0.5", from 0.5 below 1 in "0.5-1"
    "label_consistency": ((-1.0, 0.0, 1e-12, 0.5, 1.0), ("unseen", "0", "0-0.5", "0.5-1", "1")),
}
#: the span configs' sentence attributes, over the characters of the example's text (``texts``):
#: length in characters, density in entities per 100 characters
CHARACTER_EDGES = {
    "sentence_length": ((1, 61, 121, 241), ("1-60", "61-120", "121-240", "241+")),
    "density": ((0.0, 1.5, 3.0, 5.0), ("0-1.5", "1.5-3", "3-5", "5+")),
}
CATEGORIES = {
    "capitalisation": ("upper", "title", "lower", "none"),
    "seen": ("seen", "unseen"),
}
#: what each attribute needs beyond the entities: the sentence's length (tokens in the tag configs,
#: ``texts`` in the span configs), the entity's text, training
NEEDS = {
    "entity_length": "",
    "sentence_length": "length",
    "density": "length",
    "capitalisation": "text",
    "seen": "train",
    "train_frequency": "train",
    "label_consistency": "train",
}
ATTRIBUTES = tuple(NEEDS)


def edges_of(name: str, characters: bool = False) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """A numeric attribute's lower edges and bucket names; ``characters``: the span configs' sentence
    attributes, over the characters of a text."""
    return CHARACTER_EDGES[name] if characters and name in CHARACTER_EDGES else EDGES[name]


def labels_of(name: str, characters: bool = False) -> Sequence[str]:
    """The bucket labels of an attribute, in order (``characters``: as :func:`edges_of`).

    >>> labels_of("sentence_length"), labels_of("sentence_length", characters=True)
    (('1-10', '11-20', '21-40', '41+'), ('1-60', '61-120', '121-240', '241+'))
    """
    return CATEGORIES[name] if name in CATEGORIES else edges_of(name, characters)[1]


def check_buckets(buckets: Any) -> tuple[str, ...] | None:
    """A tuple of attribute names (None: none)."""
    if buckets is None:
        return None
    if not isinstance(buckets, (list, tuple)) or not buckets:  # a str is no list
        raise ValueError(f"buckets must be a list of attributes from {list(ATTRIBUTES)}; got {buckets!r}")
    for name in buckets:
        if name not in NEEDS:
            raise ValueError(f"buckets must be a list of attributes from {list(ATTRIBUTES)}; got {name!r}")
    return tuple(dict.fromkeys(buckets))


def needs_text(buckets: Any, span_config: bool = False) -> bool:
    """Whether an attribute reads the entity's text (in the span configs, ``texts``: also the
    sentence attributes, which count its characters)."""
    read = ("text", "train", "length") if span_config else ("text", "train")
    return bool(buckets) and any(NEEDS[name] in read for name in buckets)


def needs_train(buckets: Any) -> bool:
    """Whether an attribute reads the training entities."""
    return bool(buckets) and any(NEEDS[name] == "train" for name in buckets)


class Training(NamedTuple):
    """What the training-set buckets read: per exact text its training entities (``texts``), and
    with a training corpus ExplainaBoard's ``occurrences``: per
    lower-cased entity text, the label of each occurrence of it in the training text (its type
    where the occurrence is an entity, ``"O"`` where not); None from (type, text) pairs."""

    texts: Counter
    occurrences: dict | None


def check_train_entities(train_entities: object) -> Training | None:
    """``train_entities``: ``(type, text)`` pairs, or a training corpus ``{"tokens": [[str]],
    "tags": [[str]]}`` (decoded leniently); returns the :class:`Training` counts."""
    if train_entities is None:
        return None
    occurrences = None
    if isinstance(train_entities, dict):
        pairs, occurrences = _corpus_entities(train_entities)
    elif isinstance(train_entities, (list, tuple)):
        pairs = list(train_entities)
        for i, pair in enumerate(pairs):
            if (
                not isinstance(pair, (list, tuple))
                or len(pair) != 2
                or not all(isinstance(x, str) for x in pair)
            ):
                raise ValueError(f"train_entities[{i}] must be a (type, text) pair of str; got {pair!r}")
    else:
        raise ValueError(
            "train_entities must be a list of (type, text) pairs or {'tokens': ..., 'tags': ...}; got "
            f"{type(train_entities).__name__}"
        )
    return Training(Counter(text for _, text in pairs), occurrences)


def _corpus_entities(corpus):
    """The (type, text) pairs of a training corpus and the labels of every occurrence of their
    lower-cased texts (:func:`occurrence_labels`)."""
    if set(corpus) != {"tokens", "tags"}:
        raise ValueError(f"train_entities as a corpus has the keys 'tokens' and 'tags'; got {sorted(corpus)}")
    tokens, tags = corpus["tokens"], corpus["tags"]
    if (
        not isinstance(tokens, (list, tuple))
        or not isinstance(tags, (list, tuple))
        or len(tokens) != len(tags)
    ):
        raise ValueError(
            "train_entities['tokens'] and ['tags'] must be lists with one item per sentence each"
        )
    from ner_recall.core.decoding import tags_to_spans

    pairs, entities = [], []
    for i, (words, sequence) in enumerate(zip(tokens, tags)):
        if not isinstance(words, (list, tuple)) or len(words) != len(sequence):
            raise ValueError(f"train_entities['tokens'][{i}] must be a list as long as ['tags'][{i}]")
        for j, word in enumerate(words):
            if not isinstance(word, str):
                raise ValueError(
                    f"train_entities['tokens'][{i}][{j}] must be a str; got {type(word).__name__}"
                )
        try:
            spans = tags_to_spans(sequence)
        except InputError as error:  # its place, tags[j], within train_entities['tags'][i]
            raise error.framed(f"train_entities['tags'][{i}]: ") from None
        pairs += [(s.label, " ".join(words[s.start : s.end])) for s in spans]
        entities.append({(s.start, s.end): s.label for s in spans})
    return pairs, occurrence_labels(tokens, entities)


def occurrence_labels(tokens: Sequence[Sequence[str]], entities: Sequence[dict]) -> dict[str, Counter]:
    """ExplainaBoard's eCon counts (``get_econ_efre_dic``, 0.12.7): per lower-cased text of a
    training entity, a Counter of the label of every occurrence of that text in the lower-cased
    training tokens (joined by one space): the entity's type where ``(start, end)`` is an entity of
    the sentence (``entities``: per sentence ``{(start, end): type}``), ``"O"`` elsewhere.
    Occurrences are counted within a sentence; linear in the tokens times the distinct entity
    lengths.

    >>> occurrence_labels([["New", "York", "is", "new", "york"]], [{(0, 2): "LOC"}])
    {'new york': Counter({'LOC': 1, 'O': 1})}
    """
    lowered = [[w.lower() for w in words] for words in tokens]
    found: dict[str, Counter] = {}
    for words, spans in zip(lowered, entities):
        for (start, end), _ in spans.items():
            found.setdefault(" ".join(words[start:end]), Counter())
    widths = sorted({end - start for spans in entities for start, end in spans})
    for words, spans in zip(lowered, entities):
        for width in widths:
            for start in range(len(words) - width + 1):
                text = " ".join(words[start : start + width])
                if text in found:
                    found[text][spans.get((start, start + width), "O")] += 1
    return found


def check_tokens(tokens: Any, lengths: Sequence[int] | npt.NDArray[np.integer]) -> Any:
    """``tokens``: one list of str per sentence, as long as its tags; ValueError naming the place."""
    if not isinstance(tokens, (list, tuple)):
        raise ValueError(
            f"tokens must be a list with one list of str per sentence; got {type(tokens).__name__}"
        )
    same_count("tokens", len(tokens), "references", len(lengths))
    for i, (words, n) in enumerate(zip(tokens, lengths)):
        if not isinstance(words, (list, tuple)) or len(words) != n:
            raise ValueError(f"tokens[{i}] must be a list of {n} str, one per tag")
        for j, word in enumerate(words):
            if not isinstance(word, str):
                raise ValueError(f"tokens[{i}][{j}] must be a str; got {type(word).__name__}")
    return tokens


# ---------------------------------------------------------------------------- attributes


def entity_texts(spans: SpanArrays, sources: Sequence[Any], joiner: str | None) -> list[str]:
    """The text of each entity: its tokens joined by ``joiner`` (``sources`` a list of token lists)
    or its characters (``sources`` a list of str, ``joiner`` None)."""
    local = spans.offset
    width = spans.end - spans.start
    out = []
    for s, a, w in zip(spans.sentence.tolist(), local.tolist(), width.tolist()):
        piece = sources[s][a : a + w]
        out.append(piece if joiner is None else joiner.join(piece))
    return out


def capitalisation(texts: Sequence[str]) -> npt.NDArray[np.int64]:
    """Index into ``CATEGORIES["capitalisation"]`` of each text."""
    out = np.empty(len(texts), dtype=np.int64)
    for i, text in enumerate(texts):
        letters = [c for c in text if c.isalpha()]
        if not letters:
            out[i] = 3
        elif len(letters) > 1 and all(c.isupper() for c in letters):
            out[i] = 0
        else:
            out[i] = 1 if letters[0].isupper() else 2
    return out


def _bucket_of(values, name, characters=False):
    edges = np.asarray(edges_of(name, characters)[0], dtype=float)
    return np.searchsorted(edges, values, side="right") - 1


def _numeric_buckets(name, spans, lengths, characters=False):
    """The bucket of each entity by a numeric attribute; the sentence attributes are bucketed once
    per sentence (``characters``: ``lengths`` count a text's characters, density per 100)."""
    if name == "entity_length":
        return np.minimum(spans.end - spans.start, 4) - 1  # 1, 2, 3, 4+
    if name == "sentence_length":  # bucketed once per length, not once per sentence
        lengths = np.asarray(lengths, dtype=np.int64)
        by_length = _bucket_of(np.arange(int(lengths.max(initial=0)) + 1, dtype=float), name, characters)
        return by_length[lengths[spans.sentence]]
    sentence_length = np.asarray(lengths, dtype=float)
    count = np.bincount(spans.sentence, minlength=len(sentence_length)) * (100.0 if characters else 1.0)
    return _bucket_of(count / np.maximum(sentence_length, 1), name, characters)[spans.sentence]


def _train(name, texts, kinds, train):
    if name == "label_consistency":
        return label_consistency(texts, kinds, train)
    frequency = np.array([train.texts.get(t, 0) for t in texts], dtype=float)
    if name == "seen":
        return (frequency == 0).astype(np.int64)
    return frequency


def label_consistency(texts: Sequence[str], kinds: Sequence[str], train: Training) -> npt.NDArray[np.float64]:
    """ExplainaBoard's eCon of each entity: among the occurrences of its lower-cased text in the
    training text, the share labelled with its type; -1 (``unseen``) where the text is no training
    entity's. Needs the training corpus (the occurrences outside entities count)."""
    if train.occurrences is None:
        raise ValueError(
            "the bucket 'label_consistency' (ExplainaBoard's eCon) counts every occurrence of an entity's"
            " text in the training text, entity or not: give train_entities as the training corpus"
            " {'tokens': [[str]], 'tags': [[str]]}, not (type, text) pairs"
        )
    out = np.full(len(texts), -1.0)
    for i, (text, kind) in enumerate(zip(texts, kinds)):
        counts = train.occurrences.get(text.lower())
        if counts is not None:
            out[i] = counts[kind] / sum(counts.values())
    return out


def assign(
    name: str,
    spans: SpanArrays,
    lengths: Any,
    types: Sequence[str],
    texts: Any = None,
    train: Training | None = None,
    characters: bool = False,
) -> npt.NDArray[np.int64]:
    """The bucket index of each entity of one side (``characters``: ``lengths`` count the
    characters of each example's text, as in the span configs)."""
    if name == "capitalisation":
        return capitalisation(texts)
    if NEEDS[name] != "train":
        return _numeric_buckets(name, spans, lengths, characters)
    values = _train(name, texts, [types[c] for c in spans.type.tolist()], train)
    return values if name in CATEGORIES else _bucket_of(values, name)


# ---------------------------------------------------------------------------- scores


def bucket_scores(
    gold: SpanArrays,
    pred: SpanArrays,
    matching: Matching,
    lengths: Any,
    buckets: Sequence[str],
    zero_division: Any = 0.0,
    beta: float = 1.0,
    types: Sequence[str] = (),
    texts: tuple[Sequence[str], Sequence[str]] | None = None,
    train: Training | None = None,
    units: tuple[npt.NDArray[np.intp], int] | None = None,
    intervals: dict[str, Any] | None = None,
    keep_rows: bool = False,
    characters: bool = False,
) -> dict[str, Any] | tuple[dict[str, Any], BucketRows]:
    """``results["buckets"]``: per attribute, per bucket with an entity on either side, the strict
    ``precision``, ``recall``, F, ``number`` (gold entities) and ``predicted``; with ``intervals``
    (the checked interval options) and ``units`` (each sentence's unit, number of units), each
    bucket's ``intervals`` of the three scores by bootstrap over the units.

    ``texts``: (gold texts, predicted texts), one per entity, for the attributes that need them.
    ``keep_rows``: also return the :class:`BucketRows` of ``units`` (what ``compare`` pairs).
    ``characters``: ``lengths`` count each example's characters (the span configs' sentence
    attributes, :data:`CHARACTER_EDGES`).
    """
    exact = np.asarray(matching.scenario) == 0  # same span and type
    found = np.zeros(len(gold), dtype=bool)
    found[np.asarray(matching.gold)[exact]] = True
    right = np.zeros(len(pred), dtype=bool)
    right[np.asarray(matching.pred)[exact]] = True
    out, blocks = {}, []
    for name in buckets:
        labels = labels_of(name, characters)
        k = len(labels)
        g = assign(name, gold, lengths, types, texts and texts[0], train, characters)
        p = assign(name, pred, lengths, types, texts and texts[1], train, characters)
        number, hits = _counted(g, found, k)
        predicted, correct = _counted(p, right, k)
        table = {}
        for b, label in enumerate(labels):
            if number[b] or predicted[b]:
                scores = prf_scores(hits[b], correct[b], number[b], predicted[b], zero_division, beta)
                table[label] = {**scores, "number": int(number[b]), "predicted": int(predicted[b])}
        out[name] = table
        blocks.append((name, labels, g, p))
    if intervals is not None:
        _add_intervals(out, blocks, gold, pred, found, right, units, intervals, beta, zero_division)
    if keep_rows:
        layout = tuple((name, labels) for name, labels, _, _ in blocks)
        return out, BucketRows(layout, _unit_rows(blocks, gold, pred, found, right, units))
    return out


def _counted(buckets, hit, k):
    """Per bucket: its entities and those ``hit``, from one count over (bucket, hit) pairs."""
    both = np.bincount(np.asarray(buckets, dtype=np.int64) * 2 + hit, minlength=2 * k)
    return both[0::2] + both[1::2], both[1::2]


class BucketRows(NamedTuple):
    """Per unit, per attribute and bucket: gold entities, found ones, predictions, right ones;
    ``layout``: (attribute, bucket labels) in column order."""

    layout: tuple
    rows: np.ndarray


def bucket_scorer(
    widths: Sequence[int], beta: float = 1.0, undefined: bool = True, zero_division: Any = 0.0
) -> Callable[[npt.NDArray[Any]], npt.NDArray[np.float64]]:
    """``score(totals)``: per row of summed :class:`BucketRows` columns, each attribute's
    precision, recall and F per bucket (attribute by attribute, score by score, bucket by bucket);
    a 0/0 is NaN with ``undefined``, else ``zero_division``."""

    def score(totals):
        totals = np.atleast_2d(totals)
        columns, at = [], 0
        for k in widths:
            number, hits, predicted, correct = (totals[:, at + i * k : at + (i + 1) * k] for i in range(4))
            p, r = ratio(correct, predicted, np.nan), ratio(hits, number, np.nan)
            f = fbeta_array(p, r, beta)
            f = np.where(np.isnan(f) & ((p == 0) | (r == 0)), 0.0, f)
            columns += [p, r, f]
            at += 4 * k
        out = np.concatenate(columns, axis=1)
        return out if undefined else np.where(np.isnan(out), float(zero_division), out)

    return score


def compare_buckets(
    rows_a: npt.NDArray[np.int64],
    rows_b: npt.NDArray[np.int64],
    layout: Any,
    tables: tuple[dict[str, Any], dict[str, Any]],
    paired: Callable[..., dict[str, Any]],
    beta: float,
) -> dict[str, Any]:
    """``compare``'s ``"buckets"``: per attribute, per bucket of either system's table, the
    difference b - a of precision, recall and F, its paired interval and p-values
    (``paired(stats_a, stats_b, names, score, estimate)``), and the p-values corrected over the
    attribute's buckets (Holm)."""
    out, at = {}, 0
    for name, labels in layout:
        k = len(labels)
        a, b = rows_a[:, at : at + 4 * k], rows_b[:, at : at + 4 * k]
        at += 4 * k
        names = [f"{label}\t{key}" for key in score_names(beta) for label in labels]
        cmp = paired(a, b, names, bucket_scorer([k], beta), bucket_scorer([k], beta, undefined=False))
        shown = [label for label in labels if label in tables[0][name] or label in tables[1][name]]
        table: dict[str, Any] = {}
        for j, full in enumerate(names):
            label, key = full.split("\t")
            if label not in shown:
                continue
            row = table.setdefault(label, {"difference": {}, "p_values": {}})
            row["difference"][key] = float(cmp["difference"][j])
            row["p_values"][key] = float(cmp["p_values"][j])
            if "intervals" in cmp:
                row.setdefault("intervals", {})[key] = [
                    float(cmp["intervals"][0, j]),
                    float(cmp["intervals"][1, j]),
                ]
        for key in score_names(beta):
            for row, p in zip(table.values(), holm([row["p_values"][key] for row in table.values()])):
                row.setdefault("p_values_holm", {})[key] = p
        out[name] = {"values": table, "correction": "holm"}
    return out


def _unit_rows(blocks, gold, pred, found, right, units):
    """Per unit: for each attribute and bucket, gold entities, found ones, predictions, right ones."""
    unit, n_units = units
    gu, pu = np.asarray(unit)[gold.sentence], np.asarray(unit)[pred.sentence]
    columns = []
    for _, labels, g, p in blocks:
        k = len(labels)
        for where, buckets, keep in ((gu, g, None), (gu, g, found), (pu, p, None), (pu, p, right)):
            cell = where * k + buckets
            if keep is not None:
                cell = cell[keep]
            columns.append(np.bincount(cell, minlength=n_units * k).reshape(n_units, k))
    return np.concatenate(columns, axis=1)


def _add_intervals(out, blocks, gold, pred, found, right, units, options, beta, zero_division):
    stats = _unit_rows(blocks, gold, pred, found, right, units)
    widths = [len(labels) for _, labels, _, _ in blocks]
    score = bucket_scorer(widths, beta)

    patterns, counts = group_rows(stats)
    full = (patterns * counts[:, None]).sum(axis=0)
    estimate = score(full)[0]
    estimate = np.where(np.isnan(estimate), float(zero_division), estimate)  # as the table shows it
    rng = np.random.default_rng(np.random.SeedSequence(options["seed"]).spawn(1)[0])
    draws = np.concatenate([score(t) for t in bootstrap_totals(patterns, counts, options["resamples"], rng)])
    names = list(range(len(estimate)))
    boot = Bootstrap(names, estimate, draws, patterns, counts, score)
    bounds = interval_bounds(boot, options["confidence_level"], DEFAULT_METHOD)
    at = 0
    for (name, labels, _, _), k in zip(blocks, widths):
        for i, key in enumerate(score_names(beta)):
            for b, label in enumerate(labels):
                j = at + i * k + b
                if label in out[name]:
                    out[name][label].setdefault("intervals", {})[key] = [
                        float(bounds[0, j]),
                        float(bounds[1, j]),
                    ]
        at += 3 * k
