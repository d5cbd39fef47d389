"""Tag sequences to entity spans, for every BIO-family scheme, vectorised over a whole corpus.

One span convention everywhere: ``Span(label, start, end)`` with ``end`` exclusive, offsets
within the sentence.

Two decoders, both table-driven:

* ``scheme=None`` (lenient): the conlleval-style rules of seqeval's default mode
  (``seqeval.metrics.sequence_labeling.get_entities``). A chunk starts and ends on
  prefix transitions looked up in ``_LENIENT_START`` / ``_LENIENT_END``, or on a change of type.
  Accepts the prefixes O, B, I, E, S; ill-formed sequences (``O I-PER``) are repaired as
  conlleval does.
* ``scheme`` in IOB1, IOB2, IOE1, IOE2, IOBES, BILOU (strict): the start / inside / end
  patterns of seqeval's ``seqeval.scheme`` classes, as tables. An entity is the first start
  token of a run of "inside" tokens plus that run, kept only if the run ends properly.

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
"""

from collections import defaultdict, deque
from itertools import chain, count
from typing import NamedTuple

import numpy as np

SCHEMES = ("BILOU", "IOB1", "IOB2", "IOBES", "IOE1", "IOE2")
PREFIXES = "OBIESLU"  # a prefix's code is its index; O is 0
_O, _B, _I, _E, _S, _L, _U = range(len(PREFIXES))
_ANY = tuple(range(len(PREFIXES)))

#: prefixes each decoder accepts (None: lenient)
ALLOWED_PREFIXES = {
    None: "OBIES",
    "IOB1": "OBI",
    "IOB2": "OBI",
    "IOE1": "OIE",
    "IOE2": "OIE",
    "IOBES": "OIBES",
    "BILOU": "OBILU",
}


class Span(NamedTuple):
    """An entity: its type and its token offsets in the sentence, ``end`` exclusive."""

    label: str
    start: int
    end: int


class SpanArrays(NamedTuple):
    """All entities of one side of a corpus, sorted by position.

    ``start`` and ``end`` are positions in the flat layout (sentences back to back, one
    sentinel after each); ``sentence`` and ``offset`` locate the start within its sentence;
    ``type`` indexes the corpus's type names.
    """

    start: np.ndarray
    end: np.ndarray
    type: np.ndarray
    sentence: np.ndarray
    offset: np.ndarray

    def __len__(self):
        return len(self.start)


class EncodedCorpus(NamedTuple):
    """Both sides of a corpus as small integer codes, ready for decoding and matching.

    ``references`` and ``predictions`` hold tag codes in the flat layout (sentinel
    after each sentence has code 0, the tag ``O``); ``prefix[code]`` and
    ``type[code]`` describe each code; ``types`` are the entity type names, sorted.
    """

    references: np.ndarray
    predictions: np.ndarray
    lengths: np.ndarray
    sentence_starts: np.ndarray
    prefix: np.ndarray
    type: np.ndarray
    types: tuple


def _table(patterns):
    """A boolean [prev prefix, prefix, same type] table from seqeval-style patterns."""
    table = np.zeros((len(PREFIXES), len(PREFIXES), 2), dtype=bool)
    for prev, cur, same in patterns:
        for p in (prev if isinstance(prev, tuple) else (prev,)):
            for c in (cur if isinstance(cur, tuple) else (cur,)):
                table[p, c, list(same)] = True
    return table


_SAME, _DIFF, _EITHER = (1,), (0,), (0, 1)

# (start, inside, end) patterns of each strict scheme, as in seqeval.scheme
_STRICT_PATTERNS = {
    "IOB1": (
        [(_O, _I, _EITHER), (_I, _I, _DIFF), (_B, _I, _EITHER), (_I, _B, _SAME), (_B, _B, _SAME)],
        [(_B, _I, _SAME), (_I, _I, _SAME)],
        [(_I, _I, _DIFF), (_I, _O, _EITHER), (_I, _B, _EITHER), (_B, _O, _EITHER),
         (_B, _I, _DIFF), (_B, _B, _SAME)],
    ),
    "IOE1": (
        [(_O, _I, _EITHER), (_I, _I, _DIFF), (_E, _I, _EITHER), (_E, _E, _SAME)],
        [(_I, _I, _SAME), (_I, _E, _SAME)],
        [(_I, _I, _DIFF), (_I, _O, _EITHER), (_I, _E, _DIFF), (_E, _I, _SAME), (_E, _E, _SAME)],
    ),
    "IOB2": (
        [(_ANY, _B, _EITHER)],
        [(_B, _I, _SAME), (_I, _I, _SAME)],
        [(_I, _O, _EITHER), (_I, _I, _DIFF), (_I, _B, _EITHER), (_B, _O, _EITHER),
         (_B, _I, _DIFF), (_B, _B, _EITHER)],
    ),
    "IOE2": (
        [(_O, _I, _EITHER), (_O, _E, _EITHER), (_E, _I, _EITHER), (_E, _E, _EITHER),
         (_I, _I, _DIFF), (_I, _E, _DIFF)],
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


def check_scheme(scheme):
    """Validate a ``scheme`` option (None for lenient decoding)."""
    if scheme is not None and scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {list(SCHEMES)} or None; got {scheme!r}")
    return scheme


def _expected(scheme):
    return ", ".join("O" if p == "O" else f"{p}-*" for p in ALLOWED_PREFIXES[scheme])


def _parse_tag(tag, suffix, allowed):
    """(prefix code, type name) of a valid tag, else the reason it is not (a str)."""
    if not isinstance(tag, str):
        return "is not a string"
    if tag == "O":
        return _O, None
    prefix, sep, label = (tag[-1], tag[-2:-1], tag[:-2]) if suffix else (tag[0], tag[1:2], tag[2:])
    if sep != "-" or prefix not in allowed or prefix == "O":
        return None
    return (PREFIXES.index(prefix), label) if label else "has an empty entity type"


def _tag_error(tag, where, suffix, scheme):
    reason = _parse_tag(tag, suffix, ALLOWED_PREFIXES[scheme])
    if isinstance(reason, str):
        return f"tag {tag!r} at {where} {reason}"
    shape = "TYPE-PREFIX" if suffix else "PREFIX-TYPE"
    name = "None (lenient)" if scheme is None else scheme
    lenient_bilou = scheme is None and isinstance(tag, str) and tag[-1 if suffix else 0] in "LU"
    hint = "; for BILOU tags use mode='strict', scheme='BILOU'" if lenient_bilou else ""
    return f"invalid tag {tag!r} at {where} (scheme {name} expects {_expected(scheme)} as {shape}{hint})"


def _locate(tag, sides):
    """The first ``name[i][j]`` where ``tag`` occurs."""
    for name, sequences in sides:
        for i, sequence in enumerate(sequences):
            for j, value in enumerate(sequence):
                if value is tag or (type(value) is type(tag) and value == tag):
                    return f"{name}[{i}][{j}]"
    return "the input"


_ID_TYPES = (int, np.integer)


def _kind(value):
    if isinstance(value, str):
        return "tag"
    if isinstance(value, _ID_TYPES) and not isinstance(value, (bool, np.bool_)):
        return "class id"
    return None


def _array_kind(dtype):
    """The kind of items an array (numpy, torch, ...) of this dtype holds, by its name."""
    text = str(dtype).rsplit(".", 1)[-1]  # "torch.int64" -> "int64"
    if "int" in text:
        return "class id"
    return "tag" if text.startswith(("<U", ">U", "|S", "str")) else None


def check_tag_types(sequences, name, single=False):
    """Raise unless every item of ``sequences`` is a tag (str), or every one a class id (int).

    Run on raw input, before it is stored, so the error names the place in the input
    (``name[i][j]``, or ``name[j]`` for a ``single`` sentence). Sentences given as arrays
    (numpy, torch) are judged by their dtype; other containers are left to evaluate.
    """
    try:
        sequences = list(sequences)
    except TypeError:  # not a list of sequences: evaluate's own check names it
        return
    if _only_tags(sequences):
        return
    for i, sequence in enumerate(sequences):
        dtype = getattr(sequence, "dtype", None)
        if dtype is not None and str(dtype) != "object" and _array_kind(dtype) is None:
            raise ValueError(f"{name}[{i}] holds {dtype} values, neither tags (str) nor class ids (int)")
    plain = [s if isinstance(s, (list, tuple)) or str(getattr(s, "dtype", "")) == "object" else () for s in sequences]
    kinds = set(map(type, chain.from_iterable(plain)))
    if kinds <= {str} or all(issubclass(k, _ID_TYPES) and k is not bool for k in kinds):
        return
    expected = None
    for i, sequence in enumerate(plain):
        for j, value in enumerate(sequence):
            kind, where = _kind(value), f"{name}[{j}]" if single else f"{name}[{i}][{j}]"
            if kind is None:
                raise ValueError(f"{where} is {value!r}, neither a tag (str) nor a class id (int)")
            if expected is not None and kind != expected:
                raise ValueError(f"{where} is a {kind} ({value!r}) but earlier items are {expected}s")
            expected = kind


def _only_tags(sequences):
    """Whether every sentence is a list or tuple of str only: the common case, checked in C
    (``str.join`` raises on anything else) at a few ns a tag."""
    if not set(map(type, sequences)) <= {list, tuple}:
        return False
    try:
        deque(map("".join, sequences), maxlen=0)
    except TypeError:
        return False
    return True


def _lengths(sequences, length=len):
    return np.fromiter(map(length, sequences), dtype=np.int64, count=len(sequences))


def check_lengths(predictions, references):
    """Raise unless both sides have the same number of sentences, each of the same length.

    Returns the sentence lengths.
    """
    if len(predictions) != len(references):
        raise ValueError(
            f"predictions has {len(predictions)} sentences but references has {len(references)}"
        )
    try:  # fast path: lists only (``list.__len__`` rejects anything else), lengths equal
        lengths = _lengths(references, list.__len__)
        if np.array_equal(_lengths(predictions, list.__len__), lengths):
            return lengths
    except TypeError:
        pass
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        if isinstance(pred, str) or isinstance(ref, str) or not hasattr(pred, "__len__") or not hasattr(ref, "__len__"):
            side = "predictions" if isinstance(pred, str) or not hasattr(pred, "__len__") else "references"
            raise ValueError(f"{side}[{i}] must be a list of tags; got {type(pred if side == 'predictions' else ref).__name__}")
        if len(pred) != len(ref):
            raise ValueError(f"predictions[{i}] has {len(pred)} tags but references[{i}] has {len(ref)}")
    return _lengths(references)


def _first_non_string(sides):
    flat = chain.from_iterable(chain.from_iterable(sequences for _, sequences in sides))
    return next(t for t in flat if not isinstance(t, str))


def _vocabulary(numbered, sides, suffix, scheme):
    """Per code of ``numbered`` (tag -> code, ``O`` is 0), its prefix code and type name."""
    allowed = ALLOWED_PREFIXES[scheme]
    prefixes, labels = [_O] * len(numbered), [None] * len(numbered)
    for tag in sorted((t for t in numbered if t != "O"), key=repr):  # the first bad tag in a fixed order
        parsed = _parse_tag(tag, suffix, allowed)
        if not isinstance(parsed, tuple):
            raise ValueError(_tag_error(tag, _locate(tag, sides), suffix, scheme))
        prefixes[numbered[tag]], labels[numbered[tag]] = parsed
    return prefixes, labels


def _codes(sequences, numbered):
    """One side's tag codes, sentences back to back (no sentinels).

    ``numbered`` (a defaultdict) gives each new tag the next code. One pass over the
    Python lists, no list built; one byte per token while there are at most 256 tags
    (``bytearray`` takes small ints faster than ``np.fromiter``).
    """
    def codes():
        return map(numbered.__getitem__, chain.from_iterable(sequences))

    try:
        return np.frombuffer(bytearray(codes()), dtype=np.uint8)
    except ValueError:  # a 257th tag
        return np.fromiter(codes(), dtype=np.int32)


def encode(predictions, references, *, suffix=False, scheme=None):
    """Validate both sides (lists of tag lists) and turn them into an :class:`EncodedCorpus`.

    Raises ``ValueError`` naming the place of the first problem: sentence counts or lengths
    that differ, a tag that is not a string, a tag the scheme does not allow, an empty type.
    """
    lengths = check_lengths(predictions, references)
    sides = (("predictions", predictions), ("references", references))
    numbered = defaultdict(count(1).__next__, {"O": 0})
    try:
        pred_codes, ref_codes = (_codes(sequences, numbered) for _, sequences in sides)
    except TypeError:  # an unhashable tag, e.g. a list
        bad = _first_non_string(sides)
        raise ValueError(_tag_error(bad, _locate(bad, sides), suffix, scheme)) from None
    return corpus_from_codes(list(numbered), pred_codes, ref_codes, lengths, suffix=suffix, scheme=scheme,
                             sides=sides)


#: tokens per step where a code array is indexed, so that no intp copy of a whole side is made
_CHUNK = 1 << 20


def _chunked_take(table, codes):
    out = np.empty(len(codes), dtype=table.dtype)
    for a in range(0, len(codes), _CHUNK):
        np.take(table, codes[a:a + _CHUNK], out=out[a:a + _CHUNK])
    return out


def _used(codes, n):
    """Which of the codes ``0 .. n-1`` occur in ``codes``."""
    seen = np.zeros(n, dtype=bool)
    for a in range(0, len(codes), _CHUNK):
        seen |= np.bincount(codes[a:a + _CHUNK], minlength=n) > 0
    return seen


def _dense(vocabulary, predictions, references):
    """(tags, prediction codes, reference codes): one code per distinct tag that occurs,
    ``O`` first (code 0), codes in the order the tags first occur in ``vocabulary``."""
    n = len(vocabulary)
    used = _used(predictions, n) | _used(references, n)
    numbered = defaultdict(count(1).__next__, {"O": 0})
    remap = np.array([numbered[tag] if seen else 0 for tag, seen in zip(vocabulary, used.tolist())], dtype=np.int64)
    dtype = np.uint8 if len(numbered) <= 256 else np.int32
    identity = n == len(numbered) and np.array_equal(remap, np.arange(n))
    if identity and predictions.dtype == references.dtype == dtype:
        return list(numbered), predictions, references
    table = remap.astype(dtype)
    return list(numbered), _chunked_take(table, predictions), _chunked_take(table, references)


class _CodeSentences:
    """The tags of one side, sentence by sentence, built from codes only when iterated (to
    name the place of a bad tag)."""

    def __init__(self, vocabulary, codes, lengths):
        self.vocabulary, self.codes, self.lengths = vocabulary, codes, lengths

    def __iter__(self):
        ends = np.cumsum(self.lengths)
        for a, b in zip((ends - self.lengths).tolist(), ends.tolist()):
            yield [self.vocabulary[c] for c in self.codes[a:b].tolist()]


def corpus_from_codes(vocabulary, predictions, references, lengths, *, suffix=False, scheme=None, sides=None):
    """An :class:`EncodedCorpus` from tag codes: ``vocabulary[code]`` is a code's tag.

    ``predictions`` and ``references`` hold the code of every token, sentences back to back
    (``lengths`` tokens each, the same on both sides); ``vocabulary`` may list tags that do
    not occur and a tag more than once (such codes are merged). ``sides``, ``(name,
    sentences)`` pairs, name the place of a bad tag; by default the codes' own tags.

    >>> corpus = corpus_from_codes(["B-PER", "I-PER", "O"], np.array([0, 1, 2]), np.array([0, 2, 2]), [3])
    >>> corpus.types, corpus.references.tolist(), corpus.predictions.tolist()
    (('PER',), [1, 0, 0, 0], [1, 2, 0, 0])
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    tags, pred_tokens, ref_tokens = _dense(vocabulary, np.asarray(predictions), np.asarray(references))
    starts = np.cumsum(lengths + 1) - (lengths + 1)  # of the sentences in the flat layout
    real = np.ones(int(lengths.sum()) + len(lengths), dtype=bool)
    real[starts + lengths] = False
    pred_codes, ref_codes = (np.zeros(len(real), dtype=pred_tokens.dtype) for _ in range(2))
    pred_codes[real], ref_codes[real] = pred_tokens, ref_tokens
    if sides is None:
        sides = (("predictions", _CodeSentences(tags, pred_tokens, lengths)),
                 ("references", _CodeSentences(tags, ref_tokens, lengths)))
    numbered = {tag: code for code, tag in enumerate(tags)}
    prefixes, labels = _vocabulary(numbered, sides, suffix, scheme)
    types = tuple(sorted({label for label in labels if label is not None}))
    type_index = {name: i for i, name in enumerate(types)}
    type_codes = np.array([-1 if lab is None else type_index[lab] for lab in labels], dtype=np.int32)
    return EncodedCorpus(ref_codes, pred_codes, lengths, starts,
                         np.array(prefixes, dtype=np.int8), type_codes, types)


def _spans(starts, ends, types, sentence_starts):
    sentence = np.searchsorted(sentence_starts, starts, side="right") - 1
    return SpanArrays(starts, ends, types, sentence, starts - sentence_starts[sentence])


#: transition bits of a position: an entity starts here, the token is inside, an entity ends
#: (strict: the token ends a run properly; lenient: the chunk before it ends here)
_START, _INSIDE, _END = 1, 2, 4
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


def _flags(codes, corpus, scheme):
    """Per flat position, the transition bits from its predecessor (an ``O`` before the first).

    One table per pair of tag codes, then one lookup per token: the tokens' prefixes and
    types are never materialised.
    """
    n_codes = len(corpus.prefix)
    if n_codes > _MAX_PAIR_CODES:
        prefix, label = corpus.prefix[codes].astype(np.intp), corpus.type[codes]
        prev_prefix = np.concatenate(([_O], prefix[:-1]))
        same = np.concatenate(([False], label[1:] == label[:-1])).astype(np.intp)
        return _transition_flags(prev_prefix, prefix, same, scheme)
    prefix = corpus.prefix.astype(np.intp)
    same = (corpus.type[:, None] == corpus.type[None, :]).astype(np.intp)
    table = _transition_flags(prefix[:, None], prefix[None, :], same, scheme).ravel()
    pair = np.zeros(len(codes), dtype=np.uint16 if n_codes <= 256 else np.int32)
    pair[1:] = codes[:-1]
    pair *= n_codes
    np.add(pair, codes, out=pair, casting="unsafe")
    return table[pair]  # unlike ``take``, no intp copy of ``pair``


def decode(codes, corpus, scheme=None):
    """Entities of one side (``corpus.references`` or ``corpus.predictions``) as SpanArrays."""
    flags = _flags(codes, corpus, scheme)
    if scheme is None:
        # every non-O token lies in exactly one chunk, so starts and ends pair up in order
        starts, ends = _where(flags, _START), _where(flags, _END)
    else:
        starts, ends = _strict_chunks(flags)
    return _spans(starts, ends, corpus.type[codes[starts]], corpus.sentence_starts)


def _where(flags, bit):
    """Positions whose flags have ``bit`` (nonzero runs several times faster on bools)."""
    return np.flatnonzero((flags & bit) != 0)


def _strict_chunks(flags):
    """(starts, exclusive ends) of the entities of a strict scheme."""
    # seqeval scans forward from a start while tokens are "inside": the first start before a
    # run of inside tokens claims the run, and keeps it if the token after it ends it properly
    candidates = _where(flags, _START)
    ends = _skip_inside(_where(flags, _INSIDE), candidates + 1)
    first = np.ones(len(candidates), dtype=bool)
    first[1:] = ends[1:] != ends[:-1]
    starts, ends = candidates[first], ends[first]
    ok = (flags[ends] & _END) != 0
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


def spans_by_sentence(spans, types, n_sentences):
    """Per sentence, its entities as :class:`Span` lists."""
    out = [[] for _ in range(n_sentences)]
    for s, o, length, t in zip(spans.sentence.tolist(), spans.offset.tolist(),
                               (spans.end - spans.start).tolist(), spans.type.tolist()):
        out[s].append(Span(types[t], o, o + length))
    return out


def tags_to_spans(tags, *, scheme=None, suffix=False):
    """The entities of one tag sequence, as a list of :class:`Span`.

    >>> tags_to_spans(["PER-B", "PER-I", "O"], suffix=True)
    [Span(label='PER', start=0, end=2)]
    """
    check_scheme(scheme)
    corpus = encode([tags], [tags], suffix=suffix, scheme=scheme)
    return spans_by_sentence(decode(corpus.references, corpus, scheme), corpus.types, 1)[0]
