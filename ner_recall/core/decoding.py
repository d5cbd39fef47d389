"""Tag sequences to entity spans, for IO and every BIO-family scheme, vectorised over a whole corpus.

One span convention everywhere: ``Span(label, start, end)`` with ``end`` exclusive, offsets
within the sentence.

Two decoders, both table-driven:

* ``scheme=None`` (lenient): the conlleval-style rules of seqeval's default mode
  (``seqeval.metrics.sequence_labeling.get_entities``). A chunk starts and ends on
  prefix transitions looked up in ``_LENIENT_START`` / ``_LENIENT_END``, or on a change of type.
  Accepts the prefixes O, B, I, E, S; ill-formed sequences (``O I-PER``) are repaired as
  conlleval does (its counts on IOB and IOE tags; on IOBES it differs, docs/decoding.md).
* ``scheme`` in IOB1, IOB2, IOE1, IOE2, IOBES, BILOU (strict): the start / inside / end
  patterns of seqeval's ``seqeval.scheme`` classes, as tables. An entity is the first start
  token of a run of "inside" tokens plus that run, kept only if the run ends properly.
  ``scheme="IO"``: tags are a bare type (``PER``) or ``I-PER``; a maximal run of one type is
  one entity.

Tags without a type (``B``, ``I``, ``E``, ``S``, ``L``, ``U``) are chunk tags of one type named
``_``, as seqeval names it; a corpus that mixes them with typed tags is an error. Odd tag
strings (empty, whitespace or control characters, ``B--PER``, ``B-O``, lower-case prefixes)
raise ``ValueError`` naming the place. ``ner_decoding_report`` says what decoding did to one side:
the entities lenient mode repaired, the chunks strict mode dropped.

The corpus is laid out flat with one ``O`` sentinel after each sentence, so a token's
predecessor and successor are plain array shifts and no entity crosses a sentence.

>>> tags_to_spans(["B-PER", "I-PER", "O", "B-LOC"])
[Span(label='PER', start=0, end=2), Span(label='LOC', start=3, end=4)]
>>> tags_to_spans(["O", "I-PER", "I-PER"])            # lenient: repaired
[Span(label='PER', start=1, end=3)]
>>> tags_to_spans(["O", "I-PER", "I-PER"], scheme="IOB2")  # strict: dropped
[]
>>> tags_to_spans(["U-LOC", "B-PER", "L-PER"], scheme="BILOU")
[Span(label='LOC', start=0, end=1), Span(label='PER', start=1, end=3)]
>>> tags_to_spans(["B", "I", "O", "B"])                # untyped chunk tags
[Span(label='_', start=0, end=2), Span(label='_', start=3, end=4)]
>>> tags_to_spans(["PER", "PER", "I-LOC", "O"], scheme="IO")
[Span(label='PER', start=0, end=2), Span(label='LOC', start=2, end=3)]
"""

from collections import defaultdict
from collections.abc import Sequence
from itertools import chain, count
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.tags import (
    PREFIXES,
    UNTYPED,
    first_place,
    mixed_input_error,
    parse_tag,
    tag_input_error,
    tag_place,
)
from ner_recall.core.vocabulary import InputError, Span, SpanArrays, same_count

SCHEMES = ("BILOU", "IO", "IOB1", "IOB2", "IOBES", "IOE1", "IOE2")
_O, _B, _I, _E, _S, _L, _U = range(len(PREFIXES))
_ANY = tuple(range(len(PREFIXES)))


class EncodedCorpus(NamedTuple):
    """Both sides of a corpus as small integer codes, ready for decoding and matching.

    ``references`` and ``predictions`` hold tag codes in the flat layout (sentinel
    after each sentence has code 0, the tag ``O``); ``prefix[code]`` and
    ``type[code]`` describe each code; ``types`` are the entity type names, sorted; ``tags``
    the tag of each code (``O`` first), when known.
    """

    references: np.ndarray
    predictions: np.ndarray
    lengths: np.ndarray
    sentence_starts: np.ndarray
    prefix: np.ndarray
    type: np.ndarray
    types: tuple
    tags: tuple = ()


def _table(patterns):
    """A boolean [prev prefix, prefix, same type] table from seqeval-style patterns."""
    table = np.zeros((len(PREFIXES), len(PREFIXES), 2), dtype=bool)
    for prev, cur, same in patterns:
        for p in prev if isinstance(prev, tuple) else (prev,):
            for c in cur if isinstance(cur, tuple) else (cur,):
                table[p, c, list(same)] = True
    return table


_SAME, _DIFF, _EITHER = (1,), (0,), (0, 1)

# (start, inside, end) patterns of each strict scheme, as in seqeval.scheme
_STRICT_PATTERNS = {
    "IO": (
        [(_O, _I, _EITHER), (_I, _I, _DIFF)],
        [(_I, _I, _SAME)],
        [(_I, _O, _EITHER), (_I, _I, _DIFF)],
    ),
    "IOB1": (
        [(_O, _I, _EITHER), (_I, _I, _DIFF), (_B, _I, _EITHER), (_I, _B, _SAME), (_B, _B, _SAME)],
        [(_B, _I, _SAME), (_I, _I, _SAME)],
        [
            (_I, _I, _DIFF),
            (_I, _O, _EITHER),
            (_I, _B, _EITHER),
            (_B, _O, _EITHER),
            (_B, _I, _DIFF),
            (_B, _B, _SAME),
        ],
    ),
    "IOE1": (
        [(_O, _I, _EITHER), (_I, _I, _DIFF), (_E, _I, _EITHER), (_E, _E, _SAME)],
        [(_I, _I, _SAME), (_I, _E, _SAME)],
        [(_I, _I, _DIFF), (_I, _O, _EITHER), (_I, _E, _DIFF), (_E, _I, _SAME), (_E, _E, _SAME)],
    ),
    "IOB2": (
        [(_ANY, _B, _EITHER)],
        [(_B, _I, _SAME), (_I, _I, _SAME)],
        [
            (_I, _O, _EITHER),
            (_I, _I, _DIFF),
            (_I, _B, _EITHER),
            (_B, _O, _EITHER),
            (_B, _I, _DIFF),
            (_B, _B, _EITHER),
        ],
    ),
    "IOE2": (
        [
            (_O, _I, _EITHER),
            (_O, _E, _EITHER),
            (_E, _I, _EITHER),
            (_E, _E, _EITHER),
            (_I, _I, _DIFF),
            (_I, _E, _DIFF),
        ],
        [(_I, _E, _SAME), (_I, _I, _SAME)],
        [(_E, _ANY, _EITHER)],
    ),
    "IOBES": (
        [(_ANY, _B, _EITHER), (_ANY, _S, _EITHER)],
        [(_B, _I, _SAME), (_B, _E, _SAME), (_I, _I, _SAME), (_I, _E, _SAME)],
        [(_S, _ANY, _EITHER), (_E, _ANY, _EITHER)],
    ),
    "BILOU": (
        [(_ANY, _B, _EITHER), (_ANY, _U, _EITHER)],
        [(_B, _I, _SAME), (_B, _L, _SAME), (_I, _I, _SAME), (_I, _L, _SAME)],
        [(_U, _ANY, _EITHER), (_L, _ANY, _EITHER)],
    ),
}
_STRICT = {name: tuple(map(_table, patterns)) for name, patterns in _STRICT_PATTERNS.items()}

_NON_O = (_B, _I, _E, _S)
# lenient (conlleval) transitions; a change of type also starts / ends a chunk
_LENIENT_START = _table([(_ANY, (_B, _S), _EITHER), ((_E, _S), (_E, _I), _EITHER), (_O, _NON_O, _EITHER)])
_LENIENT_END = _table([((_E, _S), _ANY, _EITHER), ((_B, _I), (_B, _S, _O), _EITHER)])


def check_scheme(scheme: Any) -> str | None:
    """Validate a ``scheme`` option (None for lenient decoding)."""
    if scheme is not None and scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {list(SCHEMES)} or None; got {scheme!r}")
    return scheme


def check_suffix(suffix: Any) -> bool:
    """Validate a ``suffix`` option: True or False, not a truthy stand-in such as ``"no"``."""
    if not isinstance(suffix, (bool, np.bool_)):
        raise ValueError(f"suffix must be True or False; got {suffix!r}")
    return bool(suffix)


def _lengths(sequences, length=len):
    return np.fromiter(map(length, sequences), dtype=np.int64, count=len(sequences))


def check_lengths(predictions: Any, references: Any) -> NDArray[np.int64]:
    """Raise unless both sides have the same number of sentences, each of the same length.

    Returns the sentence lengths.
    """
    same_count("predictions", len(predictions), "references", len(references))
    try:  # fast path: lists only (``list.__len__`` rejects anything else), lengths equal
        lengths = _lengths(references, list.__len__)
        if np.array_equal(_lengths(predictions, list.__len__), lengths):
            return lengths
    except TypeError:
        pass
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        if (
            isinstance(pred, str)
            or isinstance(ref, str)
            or not hasattr(pred, "__len__")
            or not hasattr(ref, "__len__")
        ):
            side = "predictions" if isinstance(pred, str) or not hasattr(pred, "__len__") else "references"
            raise InputError(
                f"{{place}} must be a list of tags; got {type(pred if side == 'predictions' else ref).__name__}",
                side,
                i,
            )
        if len(pred) != len(ref):
            raise InputError(
                f"{{place}} has {len(pred)} tags but {{other}} has {len(ref)}",
                "predictions",
                i,
                other=("references", i),
            )
    return _lengths(references)


def _first_non_string(sides):
    flat = chain.from_iterable(chain.from_iterable(sequences for _, sequences in sides))
    return next(t for t in flat if not isinstance(t, str))


def _vocabulary(numbered, sides, suffix, scheme):
    """Per code of ``numbered`` (tag -> code, ``O`` is 0), its prefix code and type name.

    Tags with no type (``B``, ``I``) get the type ``UNTYPED``; a corpus that also has typed
    tags is an error.
    """
    prefixes: list[int] = [_O] * len(numbered)
    labels: list[str | None] = [None] * len(numbered)
    results = {tag: parse_tag(tag, suffix, scheme) for tag in numbered if tag != "O"}
    bad = {tag for tag, result in results.items() if not isinstance(result, tuple)}
    if bad:
        tag, place = first_place(bad, sides)
        raise tag_input_error(tag, place, suffix, scheme)
    # every result is a (prefix, type) pair now, and a type, "" at least, as only O has None
    parsed = cast(dict[str, tuple[int, str]], results)
    untyped = sorted(tag for tag, (_, label) in parsed.items() if label == "")
    if untyped and len(untyped) < len(parsed):
        typed = min(tag for tag, (_, label) in parsed.items() if label)
        raise mixed_input_error(untyped[0], typed, sides)
    for tag, (prefix, label) in parsed.items():
        prefixes[numbered[tag]], labels[numbered[tag]] = prefix, label or UNTYPED
    return prefixes, labels


class Numbered(dict):
    """key -> code in the order keys are first met (tags: ``Numbered(O=0)``, ``O`` code 0): a new key
    takes the next code."""

    def __missing__(self, key):
        self[key] = code = len(self)
        return code


def tag_codes(*columns: Any) -> tuple[list[Any], NDArray[np.integer]]:
    """(vocabulary, codes): the code of every tag of ``columns`` (each a list of sentences, a
    sentence a list of tags), columns and sentences back to back, in ONE pass over them all.

    ``vocabulary[code]`` is a code's tag: ``O`` is code 0 and every other tag occurs. Codes
    are one byte each while there are at most 256 distinct tags (int32 beyond). Items are
    told apart as dict keys are (``1``, ``1.0`` and ``True`` are one key): the caller checks
    the vocabulary's types, and ``TypeError`` means an unhashable item.

    >>> vocabulary, codes = tag_codes([["B-PER", "O"]], [["B-PER", "I-PER"]])
    >>> vocabulary, codes.tolist()
    (['O', 'B-PER', 'I-PER'], [1, 0, 1, 2])
    """
    numbered = Numbered(O=0)

    def codes():
        return map(numbered.__getitem__, chain.from_iterable(chain.from_iterable(columns)))

    try:
        out = np.frombuffer(bytearray(codes()), dtype=np.uint8)
    except ValueError:
        if len(numbered) <= 256:  # not the 257th tag: an item's own __eq__ raised
            raise
        out = np.fromiter(codes(), dtype=np.int32)
    return list(numbered), out


def encode(
    predictions: Any, references: Any, *, suffix: bool = False, scheme: str | None = None
) -> EncodedCorpus:
    """Validate both sides (lists of tag lists) and turn them into an :class:`EncodedCorpus`.

    Raises ``ValueError`` naming the place of the first problem: sentence counts or lengths
    that differ, a tag that is not a string, a tag the scheme does not allow, an empty type.
    """
    lengths = check_lengths(predictions, references)
    sides = (("predictions", predictions), ("references", references))
    try:
        vocabulary, codes = tag_codes(predictions, references)
    except TypeError:  # an unhashable tag, e.g. a list
        bad = _first_non_string(sides)
        raise tag_input_error(bad, tag_place(bad, sides), suffix, scheme) from None
    split = int(lengths.sum())
    return corpus_from_codes(
        vocabulary,
        codes[:split],
        codes[split:],
        lengths,
        suffix=suffix,
        scheme=scheme,
        sides=sides,
        dense=True,
    )


#: tokens per step where a code array is indexed, so that no intp copy of a whole side is made
_CHUNK = 1 << 20


def take_by_steps(
    table: NDArray[Any], codes: NDArray[np.integer], out: NDArray[Any] | None = None
) -> NDArray[Any]:
    """``table[codes]`` by steps (into ``out`` if given), with no intp copy of ``codes``."""
    out = np.empty(len(codes), dtype=table.dtype) if out is None else out
    for a in range(0, len(codes), _CHUNK):
        np.take(table, codes[a : a + _CHUNK], out=out[a : a + _CHUNK])
    return out


def codes_seen(codes: NDArray[np.integer], n: int) -> NDArray[np.bool_]:
    """Which of the codes ``0 .. n-1`` occur in ``codes``."""
    seen = np.zeros(n, dtype=bool)
    for a in range(0, len(codes), _CHUNK):
        seen |= np.bincount(codes[a : a + _CHUNK], minlength=n) > 0
    return seen


def dense_codes(
    vocabulary: Sequence[Any],
    predictions: NDArray[np.integer],
    references: NDArray[np.integer],
    used: NDArray[np.bool_] | None = None,
) -> tuple[list[Any], NDArray[np.integer], NDArray[np.integer]]:
    """(tags, prediction codes, reference codes): one code per distinct tag that occurs,
    ``O`` first (code 0), codes in the order the tags first occur in ``vocabulary``; ``used``:
    which codes occur, if known.

    >>> tags, pred, ref = dense_codes(["B-X", "O", "B-Y"], np.array([2, 1]), np.array([1, 1]))
    >>> tags, pred.tolist(), ref.tolist()
    (['O', 'B-Y'], [1, 0], [0, 0])
    """
    n = len(vocabulary)
    if used is None:
        used = codes_seen(predictions, n) | codes_seen(references, n)
    numbered = defaultdict(count(1).__next__, {"O": 0})
    remap = np.array(
        [numbered[tag] if seen else 0 for tag, seen in zip(vocabulary, used.tolist())], dtype=np.int64
    )
    dtype = np.uint8 if len(numbered) <= 256 else np.int32
    identity = n == len(numbered) and np.array_equal(remap, np.arange(n))
    if identity and predictions.dtype == references.dtype == dtype:
        return list(numbered), predictions, references
    table = remap.astype(dtype)
    return list(numbered), take_by_steps(table, predictions), take_by_steps(table, references)


class _CodeSentences:
    """The tags of one side, sentence by sentence, built from its codes in the flat layout only
    when iterated (to name the place of a bad tag)."""

    def __init__(self, vocabulary, codes, lengths):
        self.vocabulary, self.codes, self.lengths = vocabulary, codes, lengths

    def __iter__(self):
        ends = np.cumsum(self.lengths + 1) - 1  # each sentence's sentinel
        for a, b in zip((ends - self.lengths).tolist(), ends.tolist()):
            yield [self.vocabulary[c] for c in self.codes[a:b].tolist()]


def flat_layout(codes: NDArray[np.integer], lengths: Any) -> NDArray[np.integer]:
    """Codes of sentences back to back (``lengths`` tokens each) in the flat layout: a code 0
    (``O``) after each sentence.

    >>> flat_layout(np.array([5, 6, 7], dtype=np.uint8), np.array([2, 0, 1])).tolist()
    [5, 6, 0, 0, 7, 0]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    real = np.ones(int(lengths.sum()) + len(lengths), dtype=bool)
    real[np.cumsum(lengths + 1) - 1] = False
    out = np.zeros(len(real), dtype=codes.dtype)
    out[real] = codes
    return out


def corpus_from_codes(
    vocabulary: Sequence[Any],
    predictions: Any,
    references: Any,
    lengths: Any,
    *,
    suffix: bool = False,
    scheme: str | None = None,
    sides: Any = None,
    dense: bool = False,
) -> EncodedCorpus:
    """An :class:`EncodedCorpus` from tag codes: ``vocabulary[code]`` is a code's tag.

    ``predictions`` and ``references`` hold the code of every token, sentences back to back
    (``lengths`` tokens each, the same on both sides); ``vocabulary`` may list tags that do
    not occur and a tag more than once (such codes are merged). ``sides``, ``(name,
    sentences)`` pairs, name the place of a bad tag; by default the codes' own tags.
    ``dense``: the vocabulary lists each tag once, ``O`` first, and every other tag occurs
    (as :func:`tag_codes` gives it), so the codes are kept as they are.

    >>> corpus = corpus_from_codes(["B-PER", "I-PER", "O"], np.array([0, 1, 2]), np.array([0, 2, 2]), [3])
    >>> corpus.types, corpus.references.tolist(), corpus.predictions.tolist(), corpus.tags
    (('PER',), [1, 0, 0, 0], [1, 2, 0, 0], ('O', 'B-PER', 'I-PER'))
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    pred_tokens, ref_tokens = np.asarray(predictions), np.asarray(references)
    tags = list(vocabulary)
    if not dense:
        tags, pred_tokens, ref_tokens = dense_codes(vocabulary, pred_tokens, ref_tokens)
    pred_codes, ref_codes = flat_layout(pred_tokens, lengths), flat_layout(ref_tokens, lengths)
    return corpus_from_flat(tags, pred_codes, ref_codes, lengths, suffix=suffix, scheme=scheme, sides=sides)


def corpus_from_flat(
    tags: Sequence[Any],
    predictions: NDArray[np.integer],
    references: NDArray[np.integer],
    lengths: Any,
    *,
    suffix: bool = False,
    scheme: str | None = None,
    sides: Any = None,
) -> EncodedCorpus:
    """An :class:`EncodedCorpus` from codes already in the flat layout (:func:`flat_layout`) and
    dense: ``tags`` lists each tag once, ``O`` first, and every other tag occurs. Each tag is
    parsed once; ``sides`` as in :func:`corpus_from_codes` (by default the codes' own tags).

    >>> corpus_from_flat(["O", "B-LOC"], np.array([1, 0, 0]), np.array([0, 0, 0]), [2]).types
    ('LOC',)
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.cumsum(lengths + 1) - (lengths + 1)  # of the sentences in the flat layout
    if sides is None:
        sides = (
            ("predictions", _CodeSentences(tags, predictions, lengths)),
            ("references", _CodeSentences(tags, references, lengths)),
        )
    numbered = {tag: code for code, tag in enumerate(tags)}
    prefixes, labels = _vocabulary(numbered, sides, suffix, scheme)
    types = tuple(sorted({label for label in labels if label is not None}))
    type_index = {name: i for i, name in enumerate(types)}
    type_codes = np.array([-1 if lab is None else type_index[lab] for lab in labels], dtype=np.int32)
    return EncodedCorpus(
        references,
        predictions,
        lengths,
        starts,
        np.array(prefixes, dtype=np.int8),
        type_codes,
        types,
        tuple(tags),
    )


def sentence_of(
    positions: NDArray[np.integer], sentence_starts: NDArray[np.integer], offsets: bool = False
) -> NDArray[np.int32] | tuple[NDArray[np.int32], NDArray[np.int32]]:
    """The sentence (int32) of each of the sorted flat ``positions``: by steps of positions, each
    step's sentences laid out over the positions it spans, then looked up (no binary search);
    with ``offsets``, also each position's offset in its sentence (int32), from the same steps.

    >>> sentence_of(np.array([0, 2, 3, 7]), np.array([0, 3, 5])).tolist()
    [0, 0, 1, 2]
    >>> [a.tolist() for a in sentence_of(np.array([0, 2, 3, 7]), np.array([0, 3, 5]), offsets=True)]
    [[0, 0, 1, 2], [0, 2, 0, 2]]
    """
    sentence = np.empty(len(positions), dtype=np.int32)
    offset = np.empty(len(positions) if offsets else 0, dtype=np.int32)
    for a in range(0, len(positions), _LOOKUP_STEP):
        step = positions[a : a + _LOOKUP_STEP]
        first, last = int(step[0]), int(step[-1]) + 1
        lo = int(np.searchsorted(sentence_starts, first, side="right")) - 1
        hi = int(np.searchsorted(sentence_starts, step[-1], side="right"))
        bounds = np.clip(sentence_starts[lo + 1 : hi], first, last)
        runs = np.diff(np.concatenate(([first], bounds, [last])))
        found = np.repeat(np.arange(lo, hi, dtype=np.int32), runs)[step - first]
        sentence[a : a + len(step)] = found
        if offsets:
            np.subtract(step, sentence_starts[found], out=offset[a : a + len(step)], casting="unsafe")
    return (sentence, offset) if offsets else sentence


def _spans(starts, ends, types, sentence_starts):
    """SpanArrays of decoded entities; sentence and offset as int32 (they index sentences and
    tokens of one sentence), half the memory of the positions' int64."""
    sentence, offset = sentence_of(starts, sentence_starts, offsets=True)
    return SpanArrays(starts, ends, types, sentence, offset)


#: transition bits of a position: an entity starts here, the token is inside, an entity ends
#: (strict: the token ends a run properly; lenient: the chunk before it ends here)
_START, _INSIDE, _END = 1, 2, 4
#: positions per step of decoding: a step's temporary arrays stay small (reused
#: rather than paged in afresh), and no array of flags spans a whole side
_DECODE_STEP = 1 << 21
#: entities per step of the look-up of their sentences (its table of positions stays small)
_LOOKUP_STEP = 1 << 14
#: tokens per lookup of pairs of neighbouring codes (``take`` copies its index as intp)
_PAIR_STEP = 1 << 16
#: beyond this many distinct tags the bits are looked up per token, not per pair of tag codes
_MAX_PAIR_CODES = 2048


def _transition_flags(prev_prefix, prefix, same, scheme):
    """The transition bits of (previous tag, tag) pairs, given as broadcastable arrays."""
    if scheme is None:  # a change of type also starts a chunk at a non-O tag, and ends one after it
        start = (prefix != _O) & (_LENIENT_START[prev_prefix, prefix, same] | (same == 0))
        end = (prev_prefix != _O) & (_LENIENT_END[prev_prefix, prefix, same] | (same == 0))
        return (start * _START | end * _END).astype(np.uint8)
    start, inside, end = (table[prev_prefix, prefix, same] for table in _STRICT[scheme])
    return (start * _START | inside * _INSIDE | end * _END).astype(np.uint8)


def _pair_table(corpus, scheme):
    """The transition bits of every pair of codes: ``table[previous, code]``."""
    prefix = corpus.prefix.astype(np.intp)
    same = (corpus.type[:, None] == corpus.type[None, :]).astype(np.intp)
    return _transition_flags(prefix[:, None], prefix[None, :], same, scheme)


def _flag_steps(codes, corpus, scheme):
    """``(first position, flags)`` per step of at most :data:`_DECODE_STEP` positions: the
    transition bits of each position from its predecessor (an ``O`` before the first).

    One-byte codes: each two neighbouring bytes read as one little-endian uint16 (previous,
    code), one lookup per token into a table of every pair, no array of pairs made first."""
    n_codes = len(corpus.prefix)
    if codes.dtype != np.uint8 or not codes.flags.c_contiguous or n_codes > 256:
        yield 0, _flags(codes, corpus, scheme)
        return
    wide = np.zeros((256, 256), dtype=np.uint8)  # [code, previous]
    wide[:n_codes, :n_codes] = _pair_table(corpus, scheme).T
    flat = wide.ravel()
    for a in range(0, len(codes), _DECODE_STEP):
        b = min(a + _DECODE_STEP, len(codes))
        flags = np.empty(b - a, dtype=np.uint8)
        lo, out = (0, flags[1:]) if a == 0 else (a - 1, flags)
        if a == 0:
            flags[0] = flat[256 * int(codes[0])]
        pairs: np.ndarray = np.ndarray((b - lo - 1,), dtype="<u2", buffer=codes, offset=lo, strides=(1,))
        for c in range(0, len(pairs), _PAIR_STEP):
            np.take(flat, pairs[c : c + _PAIR_STEP], out=out[c : c + _PAIR_STEP])
        yield a, flags


def _flags(codes, corpus, scheme):
    """Per flat position, the transition bits from its predecessor (an ``O`` before the first),
    for codes :func:`_flag_steps` does not read by pairs of bytes."""
    n_codes = len(corpus.prefix)
    if n_codes > _MAX_PAIR_CODES:
        prefix, label = corpus.prefix[codes].astype(np.intp), corpus.type[codes]
        prev_prefix = np.concatenate(([_O], prefix[:-1]))
        same = np.concatenate(([False], label[1:] == label[:-1])).astype(np.intp)
        return _transition_flags(prev_prefix, prefix, same, scheme)
    table = _pair_table(corpus, scheme).ravel()
    pair: np.ndarray = np.zeros(len(codes), dtype=np.uint16 if n_codes <= 256 else np.int32)
    pair[1:] = codes[:-1]
    pair *= n_codes
    np.add(pair, codes, out=pair, casting="unsafe")
    return table[pair]  # unlike ``take``, no intp copy of ``pair``


def decode(codes: NDArray[np.integer], corpus: EncodedCorpus, scheme: str | None = None) -> SpanArrays:
    """Entities of one side (``corpus.references`` or ``corpus.predictions``) as SpanArrays."""
    bits = (_START, _END) if scheme is None else (_START, _INSIDE, _END)
    found: dict[int, list[NDArray[np.intp]]] = {bit: [] for bit in bits}
    for a, flags in _flag_steps(codes, corpus, scheme):
        for bit in bits:
            found[bit].append(_where(flags, bit))
            found[bit][-1] += a
    positions = {bit: joined(parts) for bit, parts in found.items()}
    if scheme is None:
        # every non-O token lies in exactly one chunk, so starts and ends pair up in order
        starts, ends = positions[_START], positions[_END]
    else:
        starts, ends = _strict_chunks(positions[_START], positions[_INSIDE], positions[_END])
    return _spans(starts, ends, corpus.type[codes[starts]], corpus.sentence_starts)


def joined(parts: Sequence[NDArray[Any]], dtype: Any = np.intp) -> NDArray[Any]:
    """One array of the parts made step by step (no copy of a single part; empty: of ``dtype``).

    >>> joined([np.array([1, 2])]).tolist(), joined([np.array([1]), np.array([2])]).tolist(), len(joined([]))
    ([1, 2], [1, 2], 0)
    """
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def _where(flags, bit):
    """Positions whose flags have ``bit`` (nonzero runs several times faster on bools)."""
    return np.flatnonzero((flags & bit) != 0)


def _strict_chunks(candidates, inside, proper_ends):
    """(starts, exclusive ends) of the entities of a strict scheme, from the positions with
    each of the bits start, inside and end."""
    # seqeval scans forward from a start while tokens are "inside": the first start before a
    # run of inside tokens claims the run, and keeps it if the token after it ends it properly
    ends = _skip_inside(inside, candidates + 1)
    first = np.ones(len(candidates), dtype=bool)
    first[1:] = ends[1:] != ends[:-1]
    starts, ends = candidates[first], ends[first]
    ok = np.isin(ends, proper_ends, assume_unique=True)
    return starts[ok], ends[ok]


def _skip_inside(inside, positions):
    """For each of the sorted ``positions``, the first position at or after it not in ``inside``."""
    if not len(inside):
        return positions
    breaks = np.flatnonzero(np.diff(inside) != 1)
    run_start = inside[np.concatenate(([0], breaks + 1))]
    run_end = inside[np.concatenate((breaks, [len(inside) - 1]))] + 1
    run = np.searchsorted(run_start, positions, side="right") - 1
    within = (run >= 0) & (positions < run_end[run])
    return np.where(within, run_end[run], positions)


def spans_by_sentence(spans: SpanArrays, types: Sequence[str], n_sentences: int) -> list[list[Span]]:
    """Per sentence, its entities as :class:`Span` lists."""
    out: list[list[Span]] = [[] for _ in range(n_sentences)]
    for s, o, length, t in zip(
        spans.sentence.tolist(),
        spans.offset.tolist(),
        (spans.end - spans.start).tolist(),
        spans.type.tolist(),
    ):
        out[s].append(Span(types[t], o, o + length))
    return out


def tags_to_spans(tags: Any, *, scheme: str | None = None, suffix: bool = False) -> list[Span]:
    """The entities of one tag sequence, as a list of :class:`Span`; errors name ``tags[j]``.

    >>> tags_to_spans(["PER-B", "PER-I", "O"], suffix=True)
    [Span(label='PER', start=0, end=2)]
    >>> tags_to_spans(["B-PER", "B-PER "])
    Traceback (most recent call last):
    ...
    ner_recall.core.vocabulary.InputError: tag 'B-PER ' at tags[1] has whitespace or an invisible character at its start or end
    """
    check_scheme(scheme)
    suffix = check_suffix(suffix)
    if isinstance(tags, (str, bytes)) or not hasattr(tags, "__len__"):
        raise ValueError(f"tags must be a list of tags (str); got {type(tags).__name__}")
    tags = list(tags)
    sides = (("tags[{j}]", [tags]),)
    bad = [j for j, tag in enumerate(tags) if not isinstance(tag, str)]
    if bad:
        raise tag_input_error(tags[bad[0]], ("tags", bad[0], None), suffix, scheme)
    _vocabulary({tag: code for code, tag in enumerate(dict.fromkeys(["O", *tags]))}, sides, suffix, scheme)
    corpus = encode([tags], [tags], suffix=suffix, scheme=scheme)
    return spans_by_sentence(decode(corpus.references, corpus, scheme), corpus.types, 1)[0]
