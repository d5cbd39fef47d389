"""Entities given as spans or as strings: validated, then laid out for the core.

Two input forms that never pass through tags:

* **spans**: per example a list of ``{"label": str, "start": int, "end": int}`` (end
  exclusive; offsets in tokens or in characters, the same unit on both sides). Entities may
  nest and overlap. :func:`encode_spans` checks both sides and returns a :class:`SpanCorpus`
  whose ``gold`` and ``pred`` are :class:`SpanArrays` in the layout the matching uses.
* **strings** (eval4ner, LLM and GLiNER-style output): per example ``(label, surface string)``
  pairs and the example's text. :func:`place_strings` puts each string on the text and
  returns character spans for the first form, with the strings it could not place for sure.

Layout. Example ``i`` occupies its own range of flat positions, starting at the sum over
earlier examples of (largest end on either side + 1), so no entity of one example touches
another's; ``sentence`` and ``offset`` give the example and the start within it. Each side is
sorted by (start, end, type); ``types`` are the label names, sorted.

>>> corpus = encode_spans(
...     [[{"label": "PER", "start": 0, "end": 2}], [{"label": "LOC", "start": 3, "end": 4}]],
...     [[{"label": "PER", "start": 0, "end": 2}, {"label": "ORG", "start": 1, "end": 2}], []])
>>> corpus.types
('LOC', 'ORG', 'PER')
>>> corpus.gold.start.tolist(), corpus.gold.end.tolist(), corpus.gold.type.tolist()
([0, 1], [2, 2], [2, 1])
>>> corpus.pred.start.tolist(), corpus.pred.sentence.tolist(), corpus.pred.offset.tolist()
([0, 6], [0, 1], [0, 3])
>>> encode_spans([[{"label": "PER", "start": 2, "end": 2}]], [[]])
Traceback (most recent call last):
...
ner_recall.core.vocabulary.InputError: predictions[0][0] {'label': 'PER', 'start': 2, 'end': 2}: start must be < end
"""

import unicodedata
from collections.abc import Collection, Sequence
from itertools import chain
from numbers import Integral, Real
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.doubt import GROUP, check_doubt, has_doubt
from ner_recall.core.vocabulary import ENTITY_KEYS, InputError, SpanArrays, literal, same_count


class SpanCorpus(NamedTuple):
    """Both sides of a span corpus, and the fields of a corpus without tokens.

    ``references``, ``predictions`` (one ``O`` code per example), ``lengths`` (zero tokens),
    ``prefix`` and ``type`` (the code ``O`` only) let the type selection and label map that
    work on tag corpora run unchanged here; they count no token. ``gold_order`` and
    ``pred_order``: the input index (over the whole side) of each sorted span.
    """

    gold: SpanArrays
    pred: SpanArrays
    types: tuple
    references: np.ndarray
    predictions: np.ndarray
    lengths: np.ndarray
    prefix: np.ndarray
    type: np.ndarray
    gold_order: np.ndarray
    pred_order: np.ndarray
    pred_scores: object = None  # with scored predictions: each sorted span's score
    gold_extras: object = None  # an Extras of the references (their keys beyond label/start/end)
    pred_extras: object = None  # and of the predictions; values in the sorted order of gold / pred


# ---------------------------------------------------------------------------- extras

#: what an entity may carry beyond ``label``, ``start``, ``end`` (a prediction's ``"score"`` is read
#: with the "ranking" family), and the sides that may carry it; each is read and checked by its family
ENTITY_EXTRAS = {
    "attributes": ("predictions", "references"),
    "fragments": ("predictions", "references"),
    "optional": ("references",),
}


class Extras(NamedTuple):
    """One side's extra entity keys: ``values[key]`` holds, per entity of the side (flat, in input
    order until :func:`encode_spans` sorts it like the spans), the key's value or None where the
    entity lacks it; ``counts``: the number of entities of each example (to name a place)."""

    values: dict
    counts: np.ndarray

    def place(self, k: int) -> tuple[int, int]:
        """(example, entity) of the ``k``-th entity of the side (input order)."""
        return _locate(self.counts, k)

    def error(self, name: str, k: int, text: str) -> InputError:
        """The :class:`InputError` of ``text`` after the place ``name[example][entity]`` of the
        ``k``-th entity of the side (input order)."""
        return InputError("{place}" + literal(text), name, *self.place(k))


def split_extras(examples: Any, name: str, scored: bool = False) -> tuple[Any, Extras | None]:
    """The examples with each entity cut to its core keys (``label``, ``start``, ``end``, and
    ``score`` if ``scored``), and an :class:`Extras` of the keys of :data:`ENTITY_EXTRAS` the
    side may carry, or None when no entity has one. Other keys stay, for the shape check to name.

    >>> plain, extras = split_extras(
    ...     [[{"label": "A", "start": 0, "end": 1, "attributes": {"negated": True}}], []], "references")
    >>> plain, extras.values, str(extras.error("references", 0, " is odd"))
    ([[{'label': 'A', 'start': 0, 'end': 1}], []], {'attributes': [{'negated': True}]}, 'references[0][0] is odd')
    >>> split_extras([[{"label": "A", "start": 0, "end": 1}]], "predictions")[1] is None
    True
    """
    examples = as_entity_lists(examples, name)
    base = len(SCORED_KEYS if scored else ENTITY_KEYS)
    if not isinstance(examples, (list, tuple)) or not set(map(type, examples)) <= {list, tuple}:
        return examples, None  # not lists of entities: the shape check names the place
    flat = list(chain.from_iterable(examples))
    try:
        sizes = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    except TypeError:  # not lists of dicts: the shape check names the place
        return examples, None
    odd = np.flatnonzero(sizes != base).tolist()  # the entities with a key more or less
    if not odd:
        return examples, None
    allowed = [key for key, sides in ENTITY_EXTRAS.items() if name.rstrip("s") + "s" in sides]
    found: dict[str, None] = {}
    cut = {k: _cut(flat[k], allowed, found, base) for k in odd}
    if not found:
        return examples, None
    counts = np.fromiter(map(len, examples), dtype=np.int64, count=len(examples))
    owner = np.repeat(np.arange(len(examples)), counts)
    first = np.cumsum(counts) - counts
    plain = list(examples)
    for i in sorted(set(owner[odd].tolist())):  # only the examples with an extra are copied
        plain[i] = list(examples[i])
    for k, entity in cut.items():
        plain[owner[k]][k - first[owner[k]]] = entity
    values = {}
    for key in found:
        column = [None] * len(flat)
        for k in odd:
            if isinstance(flat[k], dict):
                column[k] = flat[k].get(key)
        values[key] = column
    return plain, Extras(values, counts)


def _cut(entity, allowed, found, base):
    if not isinstance(entity, dict) or len(entity) == base:
        return entity
    extra = [key for key in allowed if key in entity]
    found.update(dict.fromkeys(extra))
    return {k: v for k, v in entity.items() if k not in extra} if extra else entity


def sorted_extras(extras: Extras | None, order: NDArray[np.integer]) -> Extras | None:
    """The extras in the sorted order of the spans (``order``: input index of each span)."""
    if extras is None:
        return None
    return Extras(
        {key: [values[k] for k in order.tolist()] for key, values in extras.values.items()}, extras.counts
    )


# ---------------------------------------------------------------------------- validation


def _entity_error(name, i, j, entity, problem):
    return InputError(f"{{place}} {{item!r}}: {literal(problem)}", name, i, j, entity)


#: the keys of a scored prediction (the "ranking" family)
SCORED_KEYS = (*ENTITY_KEYS, "score")


def _check_entity_shape(name, i, j, entity, keys=ENTITY_KEYS):
    """Raise the error of an entity that is not a dict of exactly ``keys``."""
    if not isinstance(entity, dict):
        raise _entity_error(name, i, j, entity, f"an entity must be a dict with keys {list(keys)}")
    unknown = sorted(map(str, set(entity) - set(keys)))
    if unknown:
        hint = (
            " (a prediction's score is read by the 'ranking' family: scores=[..., 'ranking'])"
            if unknown[0] == "score" and keys == ENTITY_KEYS and name == "predictions"
            else ""
        )
        extras = [key for key, sides in ENTITY_EXTRAS.items() if name.rstrip("s") + "s" in sides]
        may = f" and may carry {extras}" if extras else ""
        raise _entity_error(
            name, i, j, entity, f"unknown key {unknown[0]!r}; an entity has keys {list(keys)}{may}{hint}"
        )
    missing = [k for k in keys if k not in entity]
    if missing:
        raise _entity_error(name, i, j, entity, f"missing key {missing[0]!r}")


def as_entity_lists(examples: Any, name: str) -> Any:
    """Every example as a list of entity dicts. An example given as a dict of lists
    (``{"label": [...], "start": [...], "end": [...]}``, as a ``datasets.Sequence`` of dicts
    returns it) becomes a list of dicts; anything else is left for :func:`check_entities`.

    >>> as_entity_lists([{"label": ["A", "B"], "start": [0, 2], "end": [1, 4]}, []], "references")
    [[{'label': 'A', 'start': 0, 'end': 1}, {'label': 'B', 'start': 2, 'end': 4}], []]
    """
    if isinstance(examples, (str, bytes, dict)) or not hasattr(examples, "__len__"):
        return examples
    if dict not in set(map(type, examples)):
        return examples
    return [
        _from_dict_of_lists(e, name, i) if isinstance(e, dict) and GROUP not in e else e
        for i, e in enumerate(examples)
    ]


def _from_dict_of_lists(example, name, i):
    if set(example) != set(ENTITY_KEYS) or not all(isinstance(v, (list, tuple)) for v in example.values()):
        raise InputError(
            f"{{place}} must be a list of entities, or a dict of lists with keys {literal(str(list(ENTITY_KEYS)))}; "
            "got {item!r}",
            name,
            i,
            item=example,
        )
    sizes = [len(example[k]) for k in ENTITY_KEYS]
    if len(set(sizes)) > 1:
        raise InputError(
            f"{{place}}: label, start and end have {sizes} items; they must have as many", name, i
        )
    return [dict(zip(ENTITY_KEYS, values)) for values in zip(*(example[k] for k in ENTITY_KEYS))]


def _flatten(examples, name, keys=ENTITY_KEYS):
    """Labels, starts, ends of every entity, and the number of entities per example (and with
    ``keys`` :data:`SCORED_KEYS`, the scores after them).

    The loops run in C (``map``, ``chain``); the slow path only locates a problem found.
    """
    if isinstance(examples, (str, bytes, dict)) or not hasattr(examples, "__len__"):
        raise InputError(
            f"{{place}} must be a list of examples, each a list of entities; got {type(examples).__name__}",
            name,
        )
    if not set(map(type, examples)) <= {list, tuple}:
        i = next(i for i, e in enumerate(examples) if type(e) not in (list, tuple))
        raise InputError(
            f"{{place}} must be a list of entities (dicts with keys {literal(str(list(ENTITY_KEYS)))}); "
            f"got {type(examples[i]).__name__}",
            name,
            i,
        )
    counts = np.fromiter(map(len, examples), dtype=np.int64, count=len(examples))
    flat = list(chain.from_iterable(examples))
    try:
        if set(map(type, flat)) <= {dict} and set(map(len, flat)) <= {len(keys)}:
            columns = [list(map(itemgetter(key), flat)) for key in keys]
            return (*columns[:3], counts, *columns[3:])
    except KeyError:
        pass
    for k, entity in enumerate(flat):  # find the entity that is not a dict of exactly the keys
        _check_entity_shape(name, *_locate(counts, k), entity, keys)
    return _flatten([[dict(e) for e in example] for example in examples], name, keys)  # dict subclasses


def _locate(counts: np.ndarray, flat: int) -> tuple[int, int]:
    """(example, entity) of the ``flat``-th entity of a side."""
    bounds = np.cumsum(counts)
    i = int(np.searchsorted(bounds, flat, side="right"))
    return i, int(flat - (bounds[i] - counts[i]))


def _is_offset(kind):
    return issubclass(kind, Integral) and not issubclass(kind, bool)


def _first_bad(values, good):
    """Index of the first value whose type fails ``good``, or None (each type checked once)."""
    bad = {kind for kind in set(map(type, values)) if not good(kind)}
    if not bad:
        return None
    return next(k for k, value in enumerate(values) if type(value) in bad)


def _type_problem(labels, starts, ends):
    """The first entity whose label is not a str or an offset not an int, as (index, problem)."""
    checks = [
        (_first_bad(labels, lambda kind: issubclass(kind, str)), "the label must be a non-empty str"),
        (_first_bad(starts, _is_offset), "start must be an int"),
        (_first_bad(ends, _is_offset), "end must be an int"),
    ]
    checks = [(k, msg) for k, msg in checks if k is not None]
    return min(checks) if checks else None


def _int64(values):
    """Integers as int64; one beyond int64's range becomes -1 (an offset error either way)."""
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array([v if -(2**63) <= v < 2**63 else -1 for v in values], dtype=np.int64)


def _value_problem(labels, start, end, reserved, text_lengths, example):
    """The first entity with a bad value, as (index, problem), or None; the types are right."""
    label_set = set(labels)
    named = {"": "the label must be a non-empty str"}
    named.update({r: f"the label {r!r} collides with a result key" for r in label_set & set(reserved)})
    rules: list[tuple[np.ndarray, str | None]] = [  # a None message: the label's own
        ((start < 0) | (end < 0), "offsets must be >= 0 and < 2**63"),
        (start >= end, "start must be < end"),
    ]
    if text_lengths is not None:
        rules.append((end > text_lengths[example], "end is past the end of the text"))
    if label_set & set(named):
        rules.append((np.array([lab in named for lab in labels], dtype=bool), None))
    found = [(int(np.argmax(mask)), msg) for mask, msg in rules if mask.any()]
    if not found:
        return None
    k, msg = min(found, key=lambda f: f[0])
    return k, msg if msg is not None else named[labels[k]]


def check_entity_types(examples: Any, name: str, single: bool = False, scored: bool = False) -> Any:
    """Check only what a cast to the ``{"label": str, "start": int64, "end": int64}`` feature would
    change or lose: the shape of each entity and the types of its values (their values are
    checked when the corpus is scored). Returns the examples, dicts of lists made lists.
    ``scored``: each entity also has a ``"score"`` (checked when scored).
    """
    examples = as_entity_lists(examples, name)
    plain = check_doubt(examples, name) if name == "references" and has_doubt(examples) else examples
    plain, _ = split_extras(plain, name, scored)
    labels, starts, ends, counts, *_ = _flatten(plain, name, SCORED_KEYS if scored else ENTITY_KEYS)
    problem = _type_problem(labels, starts, ends)
    if problem is not None:
        _raise_at(examples, name, counts, single, *problem)
    return examples


def _raise_at(examples, name, counts, single, k, msg):
    i, j = _locate(counts, k)
    raise InputError(f"{{place}} {{item!r}}: {literal(msg)}", name, None if single else i, j, examples[i][j])


def check_entities(
    examples: Any,
    name: str,
    reserved: Collection[str] = (),
    texts: Sequence[str] | None = None,
    single: bool = False,
    scored: bool = False,
) -> Any:
    """Validate one side; returns (labels, starts, ends, example of each entity, counts).

    Raises ``ValueError`` naming ``name[example][entity]`` of the first bad entity: not a dict
    of exactly ``label``, ``start``, ``end``; a label that is not a non-empty str or that is in
    ``reserved``; an offset that is not an int (bool is not) or is negative; ``start >= end``;
    with ``texts``, an ``end`` past its example's text. ``single``: ``examples`` holds the
    one example of ``add``, named ``name[entity]``. ``scored``: every entity also has a
    ``"score"``, a number in [0, 1]; the scores (float64) are returned last.

    >>> check_entities([[{"label": "X", "start": 0, "end": True}]], "references")
    Traceback (most recent call last):
    ...
    ner_recall.core.vocabulary.InputError: references[0][0] {'label': 'X', 'start': 0, 'end': True}: end must be an int
    """
    examples = as_entity_lists(examples, name)
    labels, starts, ends, counts, *scores = _flatten(examples, name, SCORED_KEYS if scored else ENTITY_KEYS)
    example = np.repeat(np.arange(len(counts)), counts)
    text_lengths = None if texts is None else np.array([len(t) for t in texts], dtype=np.int64)
    first = _type_problem(labels, starts, ends)
    n = len(labels) if first is None else first[0]  # the entities before it have the right types
    start, end = _int64(starts[:n] if first else starts), _int64(ends[:n] if first else ends)
    problem = _value_problem(labels[:n] if first else labels, start, end, reserved, text_lengths, example[:n])
    problem = problem or first
    if problem is not None:
        _raise_at(examples, name, counts, single, *problem)
    if scored:
        bad = _score_problem(scores[0])
        if bad is not None:
            _raise_at(examples, name, counts, single, bad, "score must be a number in [0, 1]")
        return labels, start, end, example, counts, np.asarray(scores[0], dtype=np.float64)
    return labels, start, end, example, counts


def _score_problem(scores):
    """Index of the first score that is not a real number in [0, 1] (bool is not), or None."""
    bad = _first_bad(scores, lambda kind: issubclass(kind, Real) and not issubclass(kind, bool))
    if bad is not None:
        return bad
    values = np.asarray(scores, dtype=np.float64)
    outside = np.flatnonzero(~((values >= 0) & (values <= 1)))  # NaN too
    return int(outside[0]) if len(outside) else None


def check_texts(texts: Any, n_examples: int | None = None) -> list[str] | None:
    """Validate ``texts``: None, or one str per example (``n_examples`` of them, if given)."""
    if texts is None:
        return None
    if isinstance(texts, str) or not isinstance(texts, (list, tuple)):
        raise ValueError(f"texts must be a list of str, one per example; got {type(texts).__name__}")
    if n_examples is not None and len(texts) != n_examples:
        raise ValueError(f"texts has {len(texts)} items but there are {n_examples} examples")
    bad = _first_bad(texts, lambda kind: issubclass(kind, str))
    if bad is not None:
        raise ValueError(f"texts[{bad}] must be a str; got {type(texts[bad]).__name__}")
    return list(texts)


# ---------------------------------------------------------------------------- layout


def _arrays(labels, start, end, example, base, type_index):
    """One side's SpanArrays sorted by (start, end, type), and the input index of each span."""
    codes = np.fromiter(map(type_index.__getitem__, labels), dtype=np.int64, count=len(labels))
    flat_start, flat_end = base[example] + start, base[example] + end
    span = int(end.max() - start.min()) + 1 if len(end) else 1
    if len(end) and int(flat_start.max() + 1) * span * (len(type_index) + 1) < 2**62:  # one int64 key
        order = np.argsort((flat_start * span + (end - start)) * (len(type_index) + 1) + codes, kind="stable")
    else:
        order = np.lexsort((codes, flat_end, flat_start))
    return SpanArrays(flat_start[order], flat_end[order], codes[order], example[order], start[order]), order


#: the flat layout puts examples end to end in int64 positions; their total stays below this bound
MAX_POSITION = 2**62


def _check_layout(width, gold, pred):
    """Raise unless the examples laid end to end (each as long as its largest end, plus one) fit
    below :data:`MAX_POSITION`, so that no two examples' positions alias."""
    n = len(width)
    if not n or int(width.max()) < (MAX_POSITION - 1) // n - 1:  # the common case, without a big sum
        return
    total = sum(int(w) + 1 for w in width.tolist())
    if total <= MAX_POSITION:
        return
    i = int(np.argmax(width))
    side = "references" if i in set(gold[3][gold[2] == width[i]].tolist()) else "predictions"
    raise InputError(
        f"span offsets too large: the examples laid end to end need {total} positions, above the bound "
        f"2**62 = {MAX_POSITION}; the largest end is {int(width[i])} in {{place}} (offsets are token or "
        "character positions within an example)",
        side,
        i,
    )


def encode_spans(
    predictions: Any, references: Any, reserved: Collection[str] = (), texts: Any = None, scored: bool = False
) -> SpanCorpus:
    """Validate both sides and lay them out: a :class:`SpanCorpus`.

    ``reserved``: labels that may not be used (result keys). ``texts``: None, or one str per
    example, whose length bounds the (character) ends. ``scored``: every prediction has a
    ``"score"`` (``pred_scores``, in the sorted order of ``pred``).
    """
    if hasattr(predictions, "__len__") and hasattr(references, "__len__"):
        same_count("predictions", len(predictions), "references", len(references), "examples")
    texts = check_texts(texts, len(references) if hasattr(references, "__len__") else None)
    predictions, pred_extras = split_extras(predictions, "predictions", scored)
    references, gold_extras = split_extras(references, "references")
    pred = check_entities(predictions, "predictions", reserved, texts, scored=scored)
    gold = check_entities(references, "references", reserved, texts)
    n = len(gold[4])
    width = np.zeros(n, dtype=np.int64)
    np.maximum.at(width, gold[3], gold[2])
    np.maximum.at(width, pred[3], pred[2])
    _check_layout(width, gold, pred)
    base = np.cumsum(width + 1) - (width + 1)
    types = tuple(sorted(set(gold[0]) | set(pred[0])))
    type_index = {name: k for k, name in enumerate(types)}
    no_tokens = np.zeros(n, dtype=np.int8)
    (gold_spans, gold_order), (pred_spans, pred_order) = (
        _arrays(side[0], side[1], side[2], side[3], base, type_index) for side in (gold, pred)
    )
    return SpanCorpus(
        gold_spans,
        pred_spans,
        types,
        no_tokens,
        no_tokens,
        np.zeros(n, dtype=np.int64),
        np.zeros(1, dtype=np.int8),
        np.full(1, -1, dtype=np.int32),
        gold_order,
        pred_order,
        pred[5][pred_order] if scored else None,
        sorted_extras(gold_extras, gold_order),
        sorted_extras(pred_extras, pred_order),
    )


def has_duplicates(spans: SpanArrays) -> bool:
    """Whether two spans of a sorted side have the same type and offsets (they are neighbours).

    >>> has_duplicates(encode_spans([[{"label": "A", "start": 0, "end": 1}] * 2], [[]]).pred)
    True
    """
    same = (spans.start[1:] == spans.start[:-1]) & (spans.end[1:] == spans.end[:-1])
    return bool(np.any(same & (spans.type[1:] == spans.type[:-1])))


def in_input_order(spans: SpanArrays, order: NDArray[np.integer]) -> SpanArrays:
    """The sorted ``spans`` put back in the order of the input (``order``: input index of
    each), so that a span's rank within its example is its index there.

    >>> corpus = encode_spans([[{"label": "A", "start": 5, "end": 6}, {"label": "A", "start": 0, "end": 1}]], [[]])
    >>> corpus.pred.start.tolist(), in_input_order(corpus.pred, corpus.pred_order).start.tolist()
    ([0, 5], [5, 0])
    """
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return SpanArrays(*(values[back] for values in spans))


def spans_from_arrays(spans: SpanArrays, types: Sequence[str], n_examples: int) -> list[list[dict[str, Any]]]:
    """Per example, its entities as ``{"label", "start", "end"}`` dicts (the inverse of the
    layout; tag corpora decoded to SpanArrays come out as span input).

    >>> corpus = encode_spans([[{"label": "A", "start": 1, "end": 3}]], [[]])
    >>> spans_from_arrays(corpus.pred, corpus.types, 1)
    [[{'label': 'A', 'start': 1, 'end': 3}]]
    """
    out: list[list[dict[str, Any]]] = [[] for _ in range(n_examples)]
    for s, o, length, t in zip(
        spans.sentence.tolist(),
        spans.offset.tolist(),
        (spans.end - spans.start).tolist(),
        spans.type.tolist(),
    ):
        out[s].append({"label": types[t], "start": o, "end": o + length})
    return out


# ---------------------------------------------------------------------------- strings


def _is_word_char(char):
    """A letter, digit or underscore of a script written with spaces between words.

    Wide (East Asian) characters are words of their own, so a string may start or end next
    to one: Chinese or Japanese text has no spaces to mark word boundaries.
    """
    return (char.isalnum() or char == "_") and unicodedata.east_asian_width(char) not in ("W", "F")


def _at_boundary(text, k):
    """No word runs across position ``k`` (between ``text[k-1]`` and ``text[k]``)."""
    return k == 0 or k == len(text) or not (_is_word_char(text[k - 1]) and _is_word_char(text[k]))


def occurrences(text: str, string: str) -> list[int]:
    """Start offsets of ``string`` in ``text`` at word boundaries, left to right.

    >>> occurrences("Peter Peters met Peter", "Peter")
    [0, 17]
    >>> occurrences("播放一首告白气球", "告白气球")
    [4]
    """
    found, k = [], text.find(string)
    while k >= 0:
        if _at_boundary(text, k) and _at_boundary(text, k + len(string)):
            found.append(k)
        k = text.find(string, k + 1)
    return found


class Placement(NamedTuple):
    """Strings placed on their texts: per example the spans (character offsets, in the
    order of the pairs placed), the pairs found more than once (``ambiguous``, placed on the
    first unused occurrence) and the pairs not placed (``not_found``)."""

    spans: list
    ambiguous: list
    not_found: list


def _check_pair(pair, name, i, j):
    if isinstance(pair, (str, bytes, dict)) or not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise InputError("{place} must be a (label, string) pair; got {item!r}", name, i, j, pair)
    label, string = pair
    if not isinstance(label, str) or not label:
        raise InputError("{place} {item!r}: the label must be a non-empty str", name, i, j, pair)
    if not isinstance(string, str) or not string:
        raise InputError("{place} {item!r}: the string must be a non-empty str", name, i, j, pair)
    return label, string


def place_example(
    text: str, pairs: Any, name: str = "entities", i: int = 0
) -> tuple[list[dict[str, Any]], list[tuple[str, str]], list[tuple[str, str]]]:
    """Place one example's ``(label, string)`` pairs on ``text``: (spans, ambiguous, not found).

    Left to right through the pairs, each string goes on its first occurrence at word
    boundaries not yet taken by an earlier pair with the same string. A string with more
    than one such occurrence is ambiguous; one with none left is not found.

    >>> spans, ambiguous, missing = place_example(
    ...     "York, then New York", [("LOC", "York"), ("LOC", "New York"), ("PER", "Bob")])
    >>> spans
    [{'label': 'LOC', 'start': 0, 'end': 4}, {'label': 'LOC', 'start': 11, 'end': 19}]
    >>> ambiguous, missing
    ([('LOC', 'York')], [('PER', 'Bob')])
    """
    if isinstance(pairs, (str, bytes, dict)) or not isinstance(pairs, (list, tuple)):
        raise InputError(
            f"{{place}} must be a list of (label, string) pairs; got {type(pairs).__name__}", name, i
        )
    spans, ambiguous, not_found = [], [], []
    cache: dict[str, list[int]] = {}
    taken: dict[str, int] = {}
    for j, pair in enumerate(pairs):
        label, string = _check_pair(pair, name, i, j)
        if string not in cache:
            cache[string] = occurrences(text, string)
        found, k = cache[string], taken.get(string, 0)  # occurrences are taken in order: the next is free
        if len(found) > 1:
            ambiguous.append((label, string))
        if k == len(found):
            not_found.append((label, string))
            continue
        taken[string] = k + 1
        spans.append({"label": label, "start": found[k], "end": found[k] + len(string)})
    return spans, ambiguous, not_found


def place_strings(texts: Any, entities: Any, name: str = "entities") -> Placement:
    """Place every example's ``(label, string)`` pairs on its text: a :class:`Placement`.

    >>> placed = place_strings(["John Jones and Peter Peters came to York"],
    ...                        [[("PER", "Peter Peters"), ("LOC", "York"), ("PER", "Jim")]])
    >>> placed.spans[0]
    [{'label': 'PER', 'start': 15, 'end': 27}, {'label': 'LOC', 'start': 36, 'end': 40}]
    >>> placed.not_found
    [[('PER', 'Jim')]]
    """
    if isinstance(entities, (str, bytes, dict)) or not isinstance(entities, (list, tuple)):
        raise InputError("{place} must be a list of examples, each a list of (label, string) pairs", name)
    if texts is None:
        raise ValueError("texts must be a list of str, one per example; got None")
    texts = check_texts(texts, len(entities))
    placed = [place_example(text, pairs, name, i) for i, (text, pairs) in enumerate(zip(texts, entities))]
    return Placement(*(list(side) for side in zip(*placed))) if placed else Placement([], [], [])


def placement_report(placement: Placement) -> dict[str, int]:
    """Totals of a :class:`Placement`: ``strings``, ``placed``, ``ambiguous``, ``not_found``."""
    placed = sum(map(len, placement.spans))
    not_found = sum(map(len, placement.not_found))
    return {
        "strings": placed + not_found,
        "placed": placed,
        "ambiguous": sum(map(len, placement.ambiguous)),
        "not_found": not_found,
    }
