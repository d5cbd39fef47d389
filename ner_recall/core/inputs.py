"""Inputs as users hand them over: tag lists, class ids, arrays, tensors and Arrow columns.

Pure helpers (numpy and pyarrow; nothing else of this project, because ``evaluate`` copies
each module beside the metric script on its own). Two jobs:

* :func:`check_batch` validates one call's columns before anything is stored or scored:
  containers (a list of sentences, a 2-D array or tensor, a list of 1-D arrays, an Arrow or
  ``datasets`` list column, a ``pandas.Series`` indexed from 0), sentence counts and lengths,
  and one kind of item per call, tags (str) or class ids (int), as evaluate's two input
  formats require. Errors are ``ValueError`` naming the place (``predictions[3][1]``).
* ``core.cache.input_codes`` turns validated columns into tag codes over a vocabulary, ready for
  ``ner_decoding.corpus_from_codes``, without a Python object per tag: class ids through
  ``label_names`` (positions whose reference is ``-100`` are dropped on both sides, as Hugging
  Face token-classification scripts mark sub-word pieces and padding), string tags in Arrow
  through their dictionary encoding, Python lists of tag strings in the one pass over both
  sides that :func:`check_batch` makes to check them (``ner_decoding.tag_codes``): a dict
  lookup per tag, and each distinct tag's type looked at once.

>>> from ner_recall.core.cache import input_codes
>>> input_codes([[1, 2, 0]], [[1, 2, -100]], ["O", "B-PER", "I-PER"])[:4]
(('O', 'B-PER', 'I-PER'), array([1, 2]), array([1, 2]), array([2]))
>>> check_batch([["O", 5]], [["O", "O"]])
Traceback (most recent call last):
ner_recall.core.vocabulary.InputError: predictions[0][1] is a class id (5) but the other items are tags
"""

import numbers
from collections import Counter, deque
from collections.abc import Sequence
from itertools import chain
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ner_recall.core.decoding import tag_codes
from ner_recall.core.vocabulary import IGNORE_INDEX, InputError, literal, same_count

#: label value of positions to ignore (sub-word pieces, padding), as Hugging Face marks them
TAG, CLASS_ID = "tag", "class id"
_NDIM, _DTYPE = attrgetter("ndim"), attrgetter("dtype")
_INT64 = np.iinfo(np.int64)


class Codes(NamedTuple):
    """Both sides as codes: ``vocabulary[code]`` is a tag; codes of every token, sentences back
    to back, ``lengths`` tokens each; ``sides`` name the place of a bad tag (None: the codes'
    own positions); ``dense``: each tag listed once, ``O`` first, every other one occurs."""

    vocabulary: tuple
    predictions: np.ndarray
    references: np.ndarray
    lengths: np.ndarray
    sides: tuple | None = None
    dense: bool = False


# ---------------------------------------------------------------------------- label names


def check_label_names(label_names: Any) -> tuple[str, ...]:
    """Validate ``label_names``: a list (or tuple) of str, one per class id. Returns a tuple."""
    if isinstance(label_names, (str, bytes)) or not isinstance(label_names, (list, tuple)):
        raise ValueError(f"label_names must be a list of str (the tag of each class id); got {label_names!r}")
    bad = next((i for i, name in enumerate(label_names) if not isinstance(name, str)), None)
    if bad is not None:
        raise ValueError(f"label_names[{bad}] must be a str; got {label_names[bad]!r}")
    if not label_names:
        raise ValueError("label_names is empty")
    return tuple(label_names)


# ---------------------------------------------------------------------------- containers


ARROW = (pa.Array, pa.ChunkedArray)


def _arrow(column):
    """A chunked Arrow array of a ``datasets`` Column or an Arrow (chunked) array, else None.

    Chunks are kept as they are (a cache file read back holds one per batch written):
    combining them would copy the whole column."""
    if type(column).__name__ == "Column" and hasattr(column, "source") and hasattr(column, "column_name"):
        column = column.source.with_format("arrow")[column.column_name]
    if isinstance(column, pa.Array):
        return pa.chunked_array([column])
    return column if isinstance(column, pa.ChunkedArray) else None


def _tensor(value):
    """A tensor (torch, tensorflow, jax) as a numpy array; anything else unchanged."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch
        return value.detach().cpu().numpy()
    if (
        not isinstance(value, np.ndarray)
        and hasattr(value, "__array__")
        and hasattr(value, "shape")
        and not hasattr(value, "iloc")
    ):
        return np.asarray(value)
    return value


def _is_list_type(arrow_type):
    return (
        pa.types.is_list(arrow_type)
        or pa.types.is_large_list(arrow_type)
        or pa.types.is_fixed_size_list(arrow_type)
    )


def column(value: Any, name: str) -> Any:
    """One input column as a list of sentences, a 2-D array or an Arrow list array.

    Raises ``ValueError`` for anything else: None, a scalar, a str, a set, a dict, a
    generator, a DataFrame, a ``pandas.Series`` not indexed from 0, an array that is not 2-D.
    """
    arrow = _arrow(value)
    if arrow is not None:
        if not _is_list_type(arrow.type):
            raise InputError(
                f"{{place}} is an Arrow column of {literal(str(arrow.type))}; expected one list of tags per"
                " sentence",
                name,
            )
        if arrow.null_count:
            i = int(np.flatnonzero(arrow.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError("{place} is None; every sentence is a list of tags or class ids", name, i)
        return arrow
    if hasattr(value, "iloc") and hasattr(value, "columns"):
        raise InputError(
            "{place} is a DataFrame; pass one of its columns (one list of tags per sentence)", name
        )
    if hasattr(value, "iloc") and hasattr(value, "index"):  # a pandas Series
        index = value.index
        if not (type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1):
            raise InputError(
                f"{{place}} is a pandas Series indexed {literal(str(list(index[:3])))}...; sentences pair up"
                " by position, so pass series.reset_index(drop=True) or series.tolist()",
                name,
            )
        return value.tolist()
    value = _tensor(value)
    if isinstance(value, np.ndarray):
        if value.dtype == object and value.ndim in (1, 2):
            return list(value)
        if value.ndim != 2:
            hint = " (logits? take the argmax over the last axis)" if value.ndim == 3 else ""
            raise InputError(
                f"{{place}} is an array of shape {value.shape}; expected 2-D (sentences x tokens),"
                f" or a list of sentences{hint}",
                name,
            )
        return value
    if isinstance(value, (list, tuple)):
        return value
    what = "None" if value is None else type(value).__name__
    raise InputError(
        f"{{place}} must be a list of sentences (or a 2-D array, a tensor, an Arrow list column); got {what}",
        name,
    )


def _sentence(value, name, i=None):
    """One sentence of a list column: a list, tuple or 1-D array (tensors become arrays)."""
    if isinstance(value, (list, tuple)):
        return value
    value = _tensor(value)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value
    what = "None" if value is None else f"a {type(value).__name__}"
    if isinstance(value, np.ndarray):
        what = f"an array of shape {value.shape}"
    raise InputError(f"{{place}} is {what}; a sentence is a list of tags (str) or class ids (int)", name, i)


def _sentences(col, name):
    """A list column's sentences, each a list, tuple or 1-D array."""
    types = set(map(type, col))
    if types <= {list, tuple} or (types == {np.ndarray} and set(map(_NDIM, col)) == {1}):
        return col
    return [_sentence(s, name, i) for i, s in enumerate(col)]


def _list_lengths(col):
    """Tokens per sentence when every sentence of a Python list column is a list or a tuple
    (lists: one pass that checks and measures them); None otherwise, for :func:`_sentences`."""
    if type(col) is not list:
        return None
    try:  # one byte a sentence while each has fewer than 256 tags: the cheapest pass
        return np.frombuffer(bytes(map(list.__len__, col)), dtype=np.uint8).astype(np.int64)
    except ValueError:
        return np.fromiter(map(list.__len__, col), dtype=np.int64, count=len(col))
    except TypeError:  # a sentence that is not a list
        if set(map(type, col)) <= {list, tuple}:
            return np.fromiter(map(len, col), dtype=np.int64, count=len(col))
        return None


def _coded_lists(cols):
    """(codes, lengths) of two columns of tag strings in lists (or tuples): the codes'
    pass first, then the lengths' pass, which checks that each sentence is a list or a tuple
    (the codes' pass would read a str's characters as tags); None when they are not."""
    if not all(type(c) is list for c in cols) or len(cols[0]) != len(cols[1]):
        return None
    try:
        coded = _str_codes(cols)
    except Exception:  # an odd sentence (None, a dict, a tensor): the careful path names it
        return None
    if coded is None:
        return None
    lengths = [_list_lengths(c) for c in cols]
    return None if lengths[0] is None or lengths[1] is None else (coded, lengths)


# ---------------------------------------------------------------------------- kinds


def _kind(value):
    if isinstance(value, str):
        return TAG
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return CLASS_ID
    return None


def _dtype_kind(dtype):
    """TAG, CLASS_ID, "object" or None (neither) for an array dtype."""
    if dtype == object:  # noqa: E721  (a numpy dtype, equal to the object type when it holds objects)
        return "object"
    if np.issubdtype(dtype, np.integer):
        return CLASS_ID
    return TAG if np.issubdtype(dtype, np.str_) else None


def _arrow_kind(arrow):
    value_type = arrow.type.value_type
    if pa.types.is_string(value_type) or pa.types.is_large_string(value_type):
        return TAG
    return CLASS_ID if pa.types.is_integer(value_type) else None


def _only_tags(sentences):
    """Whether every sentence is a list or tuple of str only, checked in C (``str.join``
    raises on anything else) at a few ns a tag."""
    try:
        deque(map("".join, sentences), maxlen=0)
    except TypeError:
        return False
    return True


def _only_ids(sentences):
    kinds = set(map(type, chain.from_iterable(sentences)))
    return all(issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_)) for k in kinds)


def _misfit(sentences, name, single):
    """The error for a list column that mixes kinds: the first item of the rarer kind (or of
    no kind) is named, so that one stray item is blamed, not the ones after it."""
    counts = Counter(_kind(v) for s in sentences for v in (s.tolist() if isinstance(s, np.ndarray) else s))
    expected = TAG if counts[TAG] >= counts[CLASS_ID] else CLASS_ID
    for i, sentence in enumerate(sentences):
        for j, value in enumerate(sentence.tolist() if isinstance(sentence, np.ndarray) else sentence):
            kind = _kind(value)
            if kind is None:
                return InputError(
                    "{place} is {item!r}, neither a tag (str) nor a class id (int)",
                    name,
                    None if single else i,
                    j,
                    value,
                )
            if kind != expected:
                return InputError(
                    f"{{place}} is a {kind} ({{item!r}}) but the other items are {expected}s",
                    name,
                    None if single else i,
                    j,
                    value,
                )
    return None


def _list_kind(sentences, name, single, every_tag=True):
    """TAG, CLASS_ID or None (no items) of a list column; ``ValueError`` when it mixes.

    ``every_tag=False`` trusts a column whose first item is a str to hold tags only (the
    caller's decoder names any other item)."""
    types = set(map(type, sentences))
    if types <= {list, tuple}:
        if not every_tag:
            first = next((s[0] for s in sentences if len(s)), None)
            if isinstance(first, str):
                return TAG
        if _only_tags(sentences):
            return TAG if any(map(len, sentences)) else None
        if _only_ids(sentences):
            return CLASS_ID
        raise _misfit(sentences, name, single)
    if types == {np.ndarray}:  # arrays: each distinct dtype judged once
        kinds = {_dtype_kind(d) for d in set(map(_DTYPE, sentences))}
        if len(kinds) == 1 and kinds <= {TAG, CLASS_ID}:  # one kind, empty arrays included
            return kinds.pop() if any(map(len, sentences)) else None
        kinds = {_dtype_kind(s.dtype) for s in sentences if len(s)}
        if None not in kinds and "object" not in kinds and len(kinds) <= 1:
            return kinds.pop() if kinds else None
    kinds = set()
    for i, s in enumerate(sentences):
        kind = _dtype_kind(s.dtype) if isinstance(s, np.ndarray) else "object"
        if kind is None:
            raise InputError(
                f"{{place}} holds {literal(str(s.dtype))} values, neither tags (str) nor class ids (int)",
                name,
                i,
            )
        if len(s):
            kinds.add(kind)
    if "object" in kinds or len(kinds) > 1:
        plain = [s.tolist() if isinstance(s, np.ndarray) else s for s in sentences]
        return _list_kind(plain, name, single)
    return kinds.pop() if kinds else None


def kind_of(col: Any, name: str, single: bool = False, every_tag: bool = True) -> str | None:
    """TAG or CLASS_ID of a validated column (see :func:`column`), None when it has no item."""
    if isinstance(col, ARROW):
        kind = _arrow_kind(col)
        if kind is None:
            raise InputError(
                f"{{place}} holds {literal(str(col.type.value_type))} values, neither tags (str) nor class"
                " ids (int)",
                name,
            )
        values = pc.list_flatten(col)
        if values.null_count:
            i, j = _place(
                col_lengths(col), int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
            )
            raise InputError(
                "{place} is None, neither a tag (str) nor a class id (int)", name, None if single else i, j
            )
        return kind if len(values) else None
    if isinstance(col, np.ndarray):
        kind = _dtype_kind(col.dtype)
        if kind is None:
            raise InputError(
                f"{{place}} holds {literal(str(col.dtype))} values, neither tags (str) nor class ids (int)",
                name,
            )
        return kind if col.size else None
    return _list_kind(col, name, single, every_tag)


def col_lengths(col: Any) -> npt.NDArray[np.int64]:
    """Tokens per sentence of a validated column."""
    if isinstance(col, ARROW):
        return pc.list_value_length(col).to_numpy(zero_copy_only=False).astype(np.int64)
    if isinstance(col, np.ndarray):
        return np.full(col.shape[0], col.shape[1], dtype=np.int64)
    return np.fromiter(map(len, col), dtype=np.int64, count=len(col))


def _place(lengths: Sequence[int] | np.ndarray, k: int) -> tuple[int, int]:
    """(sentence, token) of the flat position ``k``."""
    ends = np.cumsum(lengths)
    i = int(np.searchsorted(ends, k, side="right"))
    return i, int(k - (ends[i] - lengths[i]))


class Checked(list):
    """A list column that :func:`check_batch` has validated, with what it found: passed on
    instead of the user's list, so that a second check is free."""

    batch: Any = None


class Batch(NamedTuple):
    """Validated columns of one call: the columns (lists, 2-D arrays or Arrow arrays), the
    kind of their items (TAG, CLASS_ID, or None when every sentence is empty), sentence
    lengths, the first item ``(side, i, j, value)`` for messages about the whole input, and
    for lists of tag strings their :class:`Codes`, made by the pass that checked them."""

    predictions: Any
    references: Any
    kind: str | None
    lengths: np.ndarray
    first: tuple
    codes: Codes | None = None


def _first_item(name, col, lengths):
    k = np.flatnonzero(lengths)
    if not len(k):
        return None
    i = int(k[0])
    if isinstance(col, ARROW):
        value = col[i].values[0].as_py()
    else:
        value = col[i][0]
        value = value.item() if isinstance(value, np.generic) else value
    return name, i, 0, value


def check_batch(predictions: Any, references: Any, single: bool = False, every_tag: bool = True) -> Batch:
    """Validate one call's two columns (``single``: one sentence each, as ``add`` takes).

    Same sentence count and lengths on both sides, and one kind of item in the whole call
    (``every_tag=False``: lists whose first item is a str are taken for tags without looking
    at every item; ``ner_decoding.encode`` names any other). Returns a :class:`Batch`.
    """
    names = ("prediction", "reference") if single else ("predictions", "references")
    if isinstance(predictions, Checked) and predictions.batch.references is references:
        return predictions.batch
    if single:
        predictions, references = [_one(predictions, names[0])], [_one(references, names[1])]
    cols = [column(value, name) for value, name in zip((predictions, references), names)]
    fast = _coded_lists(cols)  # lists of tag strings: coded, then checked and measured
    if fast is None and not single:
        cols = [c if isinstance(c, (*ARROW, np.ndarray)) else _sentences(c, n) for c, n in zip(cols, names)]
    same_count("predictions", len(cols[0]), "references", len(cols[1]))
    coded = fast[0] if fast else _str_codes(cols)
    kinds = [TAG, TAG] if coded else [kind_of(c, n, single, every_tag) for c, n in zip(cols, names)]
    lengths = fast[1] if fast else [col_lengths(c) for c in cols]
    bad = np.flatnonzero(lengths[0] != lengths[1])
    if bad.size:
        i = int(bad[0])
        if single:
            raise ValueError(f"prediction has {lengths[0][i]} tags but reference has {lengths[1][i]}")
        raise InputError(
            f"{{place}} has {lengths[0][i]} tags but {{other}} has {lengths[1][i]}",
            "predictions",
            i,
            other=("references", i),
        )
    firsts = [_first_item(n, c, lengths[0]) for n, c in zip(names, cols)]
    if kinds[0] and kinds[1] and kinds[0] != kinds[1]:
        side, i, j, value = firsts[1]
        raise InputError(
            f"{{place}} is a {kinds[1]} ({{item!r}}) but {{other}} hold {kinds[0]}s; both sides are tags,"
            " or both class ids",
            side,
            None if single else i,
            j,
            value,
            other=(names[0],),
        )
    _check_int64(cols, names, kinds[0] or kinds[1], lengths[0], single)
    if not single and not isinstance(cols[0], (*ARROW, np.ndarray)):
        cols[0] = Checked(cols[0])
    codes = None
    if coded:
        split = int(lengths[0].sum())
        sides = tuple(zip(names, cols)) if not single else None
        codes = Codes(coded[0], coded[1][:split], coded[1][split:], lengths[0], sides, dense=True)
    batch = Batch(cols[0], cols[1], kinds[0] or kinds[1], lengths[0], firsts[0], codes)
    if isinstance(cols[0], Checked):
        cols[0].batch = batch
    return batch


def _str_codes(cols):
    """(vocabulary, codes) of two list columns whose items are all tag strings, from one pass
    over both (``ner_decoding.tag_codes``) that checks them too; None otherwise, and the
    checks that name the place of a bad item run then. Sentences are lists, tuples or 1-D
    arrays (:func:`_sentence`); an array's items are numpy scalars, not str, unless it holds
    objects.

    Only the distinct items are looked at: equal keys of a dict are one (``1``, ``1.0``,
    ``True``), but a str is never equal to an item of another built-in type."""
    if any(isinstance(col, (*ARROW, np.ndarray)) for col in cols):
        return None
    first = next((sentence[0] for sentence in cols[0] if len(sentence)), None)
    if type(first) is not str:  # class ids, or no item at all: the general checks
        return None
    try:
        vocabulary, codes = tag_codes(*cols)
    except TypeError:  # an unhashable item
        return None
    if set(map(type, vocabulary)) != {str}:
        return None
    return tuple(vocabulary), codes


def _one(value, name):
    """One sentence, as ``add`` takes it."""
    if value is None or isinstance(value, (str, bytes, dict, set)):
        what = "None" if value is None else f"a {type(value).__name__}"
        raise InputError(f"{{place}} is {what}; a sentence is a list of tags (str) or class ids (int)", name)
    return _sentence(value, name)


def _check_int64(cols, names, kind, lengths, single):
    """Class ids must fit an int64, the type evaluate stores them as."""
    if kind != CLASS_ID:
        return
    for col, name in zip(cols, names):
        if isinstance(col, (*ARROW, np.ndarray)) and not (
            isinstance(col, np.ndarray) and col.dtype == np.uint64
        ):
            continue
        if set(map(type, col)) == {np.ndarray} and np.dtype(np.uint64) not in set(map(_DTYPE, col)):
            continue  # arrays of a narrower type than uint64 hold int64 values
        try:
            id_values(col, lengths)
        except OverflowError:
            k, value = next(
                (k, v) for k, v in enumerate(_flat_items(col)) if not _INT64.min <= v <= _INT64.max
            )
            i, j = _place(lengths, k)
            raise InputError(
                "{place} = {item} is not a class id: out of the int64 range",
                name,
                None if single else i,
                j,
                value,
            ) from None


def _flat_items(col):
    return chain.from_iterable(s.tolist() if isinstance(s, np.ndarray) else s for s in col)


# ---------------------------------------------------------------------------- codes


def id_values(col: Any, lengths: Any, n_names: Any = None) -> Any:
    """Every class id of a validated column, flat, as int64; an Arrow column whose ids all lie
    in ``[-100, n_names)`` as int16 (or int32), filled piece by piece, to keep memory small."""
    if isinstance(col, ARROW):
        values = pc.list_flatten(col)
        bounds = pc.min_max(values).as_py() if len(values) else {"min": 0, "max": 0}
        small = n_names is not None and bounds["min"] >= IGNORE_INDEX and bounds["max"] < n_names
        if not small:
            return values.to_numpy().astype(np.int64, copy=False)
        out = np.empty(len(values), dtype=np.int16 if n_names <= 2**15 else np.int32)
        start = 0
        for piece in _pieces(values):
            out[start : start + len(piece)] = piece.to_numpy(zero_copy_only=False)
            start += len(piece)
        return out
    if isinstance(col, np.ndarray):
        if col.dtype == np.uint64 and col.size and col.max() > _INT64.max:
            raise OverflowError
        return col.ravel().astype(np.int64, copy=False)
    if set(map(type, col)) <= {list, tuple}:
        return np.fromiter(chain.from_iterable(col), dtype=np.int64, count=int(lengths.sum()))
    parts = [np.asarray(s) for s in col]
    if any(p.dtype == np.uint64 and p.size and p.max() > _INT64.max for p in parts):
        raise OverflowError
    return np.concatenate([p.astype(np.int64, copy=False) for p in parts]) if parts else np.zeros(0, np.int64)


def tag_array(col: Any) -> pa.Array:
    """Every tag of a validated column, flat, as an Arrow string array."""
    if isinstance(col, ARROW):
        return pc.list_flatten(col)
    if isinstance(col, np.ndarray):
        return pa.array(col.ravel().astype(str))
    if set(map(type, col)) <= {list, tuple}:
        return pc.list_flatten(pa.array(col, type=pa.list_(pa.string())))
    return pa.array(
        np.concatenate([np.asarray(s, dtype=str) for s in col]) if len(col) else [], type=pa.string()
    )


#: tags encoded per step, so that no temporary array spans a whole side
_STEP = 1 << 20


def _pieces(values):
    for chunk in values.chunks if isinstance(values, pa.ChunkedArray) else [values]:
        for start in range(0, len(chunk), _STEP):
            yield chunk.slice(start, _STEP)


def dictionary_codes(values: Any, numbered: dict[str, int]) -> npt.NDArray[np.integer]:
    """The codes of an Arrow string array's tags, one byte each while there are at most 256
    distinct tags; ``numbered`` (tag -> code) grows with each new tag. Each chunk is
    dictionary-encoded on its own and its small dictionary mapped to the shared codes."""
    codes = np.empty(len(values), dtype=np.uint8)
    start = 0
    for piece in _pieces(values):
        encoded = pc.dictionary_encode(piece)
        remap = np.array(
            [numbered.setdefault(tag, len(numbered)) for tag in encoded.dictionary.to_pylist()],
            dtype=np.int64,
        )
        if len(numbered) > 256 and codes.dtype == np.uint8:
            codes = codes.astype(np.int32)
        codes[start : start + len(piece)] = remap[encoded.indices.to_numpy(zero_copy_only=False)]
        start += len(piece)
    return codes


def codes_of_tags(pred: Any, ref: Any, lengths: npt.NDArray[np.int64]) -> Codes:
    numbered = {"O": 0}
    pred_codes, ref_codes = (dictionary_codes(tag_array(col), numbered) for col in (pred, ref))
    if pred_codes.dtype != ref_codes.dtype:
        pred_codes, ref_codes = pred_codes.astype(np.int32), ref_codes.astype(np.int32)
    return Codes(tuple(numbered), pred_codes, ref_codes, lengths)


class _IdSentences:
    """One side's tags, sentence by sentence at the input's own positions (None where a
    position is ignored), built only when iterated: to name the place of a bad tag."""

    def __init__(self, names, ids, lengths, keep):
        self.names, self.ids, self.lengths, self.keep = names, ids, lengths, keep

    def __iter__(self):
        ends = np.cumsum(self.lengths)
        for a, b in zip((ends - self.lengths).tolist(), ends.tolist()):
            yield [
                self.names[v] if k else None for v, k in zip(self.ids[a:b].tolist(), self.keep[a:b].tolist())
            ]


def codes_of_ids(pred: Any, ref: Any, lengths: npt.NDArray[np.int64], names: tuple[str, ...]) -> Codes:
    """Codes of class ids (their own values over ``names``); ignored positions dropped."""
    pred_ids, ref_ids = id_values(pred, lengths, len(names)), id_values(ref, lengths, len(names))
    keep = ref_ids != IGNORE_INDEX
    for side, ids in (("predictions", pred_ids), ("references", ref_ids)):
        bad = np.flatnonzero(keep & ((ids < 0) | (ids >= len(names))))
        if bad.size:
            i, j = _place(lengths, int(bad[0]))
            raise _not_an_id(side, i, j, int(ids[bad[0]]), len(names))
    if keep.all():
        return Codes(names, pred_ids, ref_ids, lengths)
    dropped = np.bincount(np.repeat(np.arange(len(lengths)), lengths)[~keep], minlength=len(lengths))
    sides = tuple(
        (side, _IdSentences(names, ids, lengths, keep))
        for side, ids in (("predictions", pred_ids), ("references", ref_ids))
    )
    return Codes(names, pred_ids[keep], ref_ids[keep], lengths - dropped, sides)


def _not_an_id(side, i, j, value, n):
    hint = f"ids 0 to {n - 1}"
    if value == IGNORE_INDEX:
        hint = f"{IGNORE_INDEX} marks an ignored position only where the reference is {IGNORE_INDEX}"
    elif value < 0:
        hint = f"{IGNORE_INDEX}, not {value}, marks a position to ignore"
    return InputError(
        f"{{place}} = {{item!r}} is not a class id: label_names has {n} names ({hint})", side, i, j, value
    )


def check_kind(kind: str | None, first: tuple | None, label_names: tuple[str, ...] | None) -> None:
    """Raise unless class ids come with ``label_names`` and tags without; ``first`` is the
    input's first item ``(side, i, j, value)``."""
    if first is None:
        return
    side, i, j, value = first
    if label_names is None and kind == CLASS_ID:
        raise InputError(
            "{place} = {item!r} is a class id: pass label_names, the tag of each id", side, i, j, value
        )
    if label_names is not None and kind == TAG:
        raise InputError("{place} = {item!r} is not a class id, but label_names is given", side, i, j, value)


def as_list(values: Any) -> Any:
    """A column of one value per sentence (e.g. subgroups) as a Python list: an Arrow array
    as read from evaluate's cache is converted, anything else is returned as it is."""
    arrow = _arrow(values)
    return arrow.to_pylist() if arrow is not None else values
