"""Model output as it comes, turned into the span configs' entities (``docs/model_outputs.md``).

Three forms, told apart by the keys of each entity dict (exactly these keys):

* a token-classification pipeline with an ``aggregation_strategy`` ("simple", "first",
  "average", "max"): ``{"entity_group", "score", "word", "start", "end"}``, one per entity;
* the same pipeline without one ("none"): ``{"entity", "score", "index", "word", "start",
  "end"}``, one per sub-word token not tagged ``O``; the tags are decoded into entities by the
  one tag grammar (``ner_decoding``, lenient: seqeval's default), the token ``index`` giving
  the order and the gaps (an index left out was tagged ``O``); an entity runs from its first
  token's ``start`` to its last token's ``end`` and scores the mean of its tokens' scores (the
  pipeline's "simple" grouping does the same). Each sub-word piece is a token: a ``B-`` on the
  second piece of a word begins an entity inside the word, as the model said;
* GLiNER's predictions: ``{"start", "end", "text", "label", "score"}``; with ``texts``,
  ``text`` must be ``texts[i][start:end]`` (the pipeline's ``word`` is the tokenizer's
  rendering, lower-cased, ``[UNK]`` or marked ``##``: it is not compared).

Offsets are characters. The ``score`` is kept for the "ranking" family and otherwise not read.
An entity of our own form (``label``, ``start``, ``end``) passes as it is; a side mixing forms
is refused.

>>> spans_from_outputs([[{"entity_group": "PER", "score": 0.9, "word": "mari", "start": 0, "end": 4}]],
...                    "predictions")
[[{'label': 'PER', 'start': 0, 'end': 4}]]
>>> tokens = [{"entity": "B-LOC", "score": 0.5, "index": 1, "word": "tar", "start": 0, "end": 3},
...           {"entity": "I-LOC", "score": 0.7, "index": 2, "word": "##tu", "start": 3, "end": 5},
...           {"entity": "I-LOC", "score": 0.9, "index": 4, "word": "big", "start": 9, "end": 12}]
>>> spans_from_outputs([tokens], "predictions", scored=True)
[[{'label': 'LOC', 'start': 0, 'end': 5, 'score': 0.6}, {'label': 'LOC', 'start': 9, 'end': 12, 'score': 0.9}]]
"""

import math
from collections.abc import Sequence
from itertools import chain
from numbers import Integral, Real

from ner_recall.core.decoding import decode, encode, spans_by_sentence, tags_to_spans
from ner_recall.core.vocabulary import InputError

#: each model-output form by the exact keys of its entities
FORMS = {
    "pipeline": frozenset({"entity_group", "score", "word", "start", "end"}),
    "pipeline_tokens": frozenset({"entity", "score", "index", "word", "start", "end"}),
    "gliner": frozenset({"start", "end", "text", "label", "score"}),
}
#: how an error names each form
FORM_NAMES = {
    "pipeline": "token-classification pipeline output (aggregated)",
    "pipeline_tokens": "token-classification pipeline output (aggregation_strategy='none')",
    "gliner": "GLiNER output",
    None: "an entity {'label', 'start', 'end'}",
}
_SIZES = {len(keys) for keys in FORMS.values()}


def output_form(entity: object) -> str | None:
    """The form of one entity: a key of :data:`FORMS`, or None (our own form, or not a dict).

    >>> output_form({"start": 0, "end": 4, "text": "Mari", "label": "person", "score": 0.8})
    'gliner'
    """
    if not isinstance(entity, dict) or len(entity) not in _SIZES:
        return None
    keys = entity.keys()
    return next((form for form, expected in FORMS.items() if keys == expected), None)


def _side_form(examples, name):
    """The one form of a side's entities, or None when none is model output; a mixture raises."""
    flat = list(chain.from_iterable(examples))
    try:
        if not set(map(len, flat)) & _SIZES:  # our own entities: decided at C speed
            return None
    except TypeError:  # not dicts: the shape check names the place
        return None
    forms = [output_form(e) for e in flat]
    found = dict.fromkeys(forms)
    if len(found) == 1:
        return forms[0]
    first, other = forms[0], next(f for f in forms if f != forms[0])
    where = [_where(examples, name, forms.index(f)) for f in (first, other)]
    raise ValueError(
        f"{where[1]} {flat[forms.index(other)]!r} is {FORM_NAMES[other]} but {where[0]} is"
        f" {FORM_NAMES[first]}; a side holds entities of one form"
    )


def _place(examples, k):
    """(example, entity) of the ``k``-th entity of the side."""
    for i, example in enumerate(examples):
        if k < len(example):
            return i, k
        k -= len(example)
    raise IndexError(k)


def _where(examples, name, k):
    """``name[i][j]`` of the ``k``-th entity of the side."""
    i, j = _place(examples, k)
    return f"{name}[{i}][{j}]"


def spans_from_outputs(
    examples: object, name: str, texts: Sequence | None = None, scored: bool = False
) -> object:
    """The examples with model output turned into ``{"label", "start", "end"}`` entities (with
    ``"score"`` when ``scored``); examples of our own form are returned as they are.

    Raises ``ValueError`` naming ``name[i][j]``: a side mixing forms, a field of the wrong type
    (``start`` None: the pipeline needs a fast tokenizer for offsets), a tag the grammar refuses,
    a token ``index`` given twice, a GLiNER ``text`` that is not ``texts[i][start:end]``.
    """
    if isinstance(examples, (str, bytes, dict)) or not isinstance(examples, (list, tuple)):
        return examples
    if not set(map(type, examples)) <= {list, tuple}:
        return examples  # the shape check names the place
    form = _side_form(examples, name)
    if form is None:
        return examples
    if form == "pipeline_tokens":
        return _merged_tokens(examples, name, scored)
    label = "entity_group" if form == "pipeline" else "label"
    out = []
    for i, example in enumerate(examples):
        spans = []
        for j, e in enumerate(example):
            where = f"{name}[{i}][{j}] {e!r}"
            span = {"label": e[label], "start": e["start"], "end": e["end"]}
            _check_fields(span, e["score"], where)
            if form == "gliner":
                _check_text(e, texts, i, where)
            spans.append(dict(span, score=float(e["score"])) if scored else span)
        out.append(spans)
    return out


def _check_fields(span, score, where):
    if not isinstance(span["label"], str) or not span["label"]:
        raise ValueError(f"{where}: the label must be a non-empty str")
    for key in ("start", "end"):
        value = span[key]
        if value is None:
            raise ValueError(
                f"{where}: {key} is None (the pipeline gives offsets with a fast tokenizer only)"
            )
        if not isinstance(value, Integral) or isinstance(value, bool):
            raise ValueError(f"{where}: {key} must be an int")
    if not isinstance(score, Real) or isinstance(score, bool):
        raise ValueError(f"{where}: score must be a number")
    try:
        finite = math.isfinite(float(score))
    except OverflowError:  # an int beyond a float
        finite = False
    if not finite:
        raise ValueError(f"{where}: score must be a finite number; got {score!r}")


def _check_text(entity, texts, i, where):
    """GLiNER's ``text`` is its text's characters between ``start`` and ``end``."""
    if not isinstance(texts, (list, tuple)) or i >= len(texts) or not isinstance(texts[i], str):
        return  # no texts, or bad ones: the texts check names the problem
    start, end = int(entity["start"]), int(entity["end"])
    if entity["text"] != texts[i][start:end]:
        raise ValueError(
            f"{where}: text {entity['text']!r} is not texts[{i}][{start}:{end}] = {texts[i][start:end]!r}"
            " (offsets must be characters of the example's text)"
        )


def _token_sequences(examples, name):
    """Per example, its tag sequence over its tokens in index order, one ``O`` where the pipeline
    left tokens out (a gap of any length reads as one ``O``: nothing is allocated per missing
    index), and per position in that sequence its token (None for a gap)."""
    sequences, tokens = [], []
    for i, example in enumerate(examples):
        at: dict[int, tuple[int, dict]] = {}  # token index -> (position in the example, entity)
        for j, e in enumerate(example):
            where = f"{name}[{i}][{j}] {e!r}"
            _check_fields({"label": e["entity"], "start": e["start"], "end": e["end"]}, e["score"], where)
            index = e["index"]
            if not isinstance(index, Integral) or isinstance(index, bool) or index < 0:
                raise ValueError(f"{where}: index must be an int >= 0")
            if index in at:
                raise ValueError(
                    f"{where}: token index {index} was given before, at {name}[{i}][{at[int(index)][0]}]"
                )
            at[int(index)] = (j, e)
        tags: list[str] = []
        members: list[dict | None] = []
        last = -1
        for index in sorted(at):
            if index > last + 1:  # tokens left out: tagged O
                tags.append("O")
                members.append(None)
            tags.append(at[index][1]["entity"])
            members.append(at[index][1])
            last = index
        sequences.append(tags)
        tokens.append(members)
    return sequences, tokens


def _check_tags(examples, name):
    """Each distinct tag by the decoder's grammar; an error names the first token holding it."""
    for tag in dict.fromkeys(e["entity"] for example in examples for e in example):
        try:
            tags_to_spans([tag])
        except InputError as error:
            k = next(k for k, e in enumerate(chain.from_iterable(examples)) if e["entity"] == tag)
            i, j = _place(examples, k)
            raise error.framed(
                f"{name}[{i}][{j}] {examples[i][j]!r}: ",
                ". Per-token output is decoded by its prefixes; for labels without them, run the"
                " pipeline with an aggregation_strategy",
            ) from None


def _merged_tokens(examples, name, scored):
    """Per-token pipeline output decoded into entities (see the module's description)."""
    sequences, tokens = _token_sequences(examples, name)
    _check_tags(examples, name)
    if not any(sequences):
        return [[] for _ in examples]
    corpus = encode(sequences, sequences)
    out = []
    for at, spans in zip(
        tokens, spans_by_sentence(decode(corpus.references, corpus), corpus.types, len(examples))
    ):
        entities = []
        for span in spans:
            first, last = at[span.start], at[span.end - 1]
            entity = {"label": span.label, "start": int(first["start"]), "end": int(last["end"])}
            if scored:
                members = [float(at[k]["score"]) for k in range(span.start, span.end)]
                entity["score"] = sum(members) / len(members)
            entities.append(entity)
        out.append(entities)
    return out
