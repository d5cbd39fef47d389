"""The inputs as evaluate's cache holds them: each batch validated once and written as Arrow
list columns (``list<string>`` tags, ``list<int64>`` class ids), read back as codes without a
Python object per tag (:class:`CachedColumns`, :class:`CachedTags`), and :func:`input_codes`, both
sides as codes whether they come from the cache or are given directly.

>>> codes = input_codes([["B-PER", "O"]], [["B-PER", "B-LOC"]])  # tags coded in the pass that checks them
>>> codes.vocabulary, codes.predictions.tolist(), codes.references.tolist()
(('O', 'B-PER', 'B-LOC'), [1, 0], [1, 2])
"""

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ner_recall.core.decoding import joined
from ner_recall.core.inputs import (
    ARROW,
    CLASS_ID,
    TAG,
    Batch,
    Checked,
    Codes,
    check_batch,
    check_kind,
    check_label_names,
    codes_of_ids,
    codes_of_tags,
    dictionary_codes,
    id_values,
    tag_array,
)


class CachedTags:
    """One side of evaluate's cache as :class:`CachedColumns` read it: the codes of both
    sides are held in one box and handed over once (:func:`input_codes`), so that they go
    once laid out. ``len`` counts sentences; ``[:]`` (how evaluate takes a column) is itself."""

    __slots__ = ("box", "side", "n")

    def __init__(self, box, side, n):
        self.box, self.side, self.n = box, side, n

    def __len__(self):
        return self.n

    def __getitem__(self, key):
        if key != slice(None):
            raise TypeError(f"the cached {self.side} are read whole ([:]), not at {key!r}")
        return self

    def take(self) -> Codes:
        """The :class:`Codes` of both sides, once."""
        codes, self.box[0] = self.box[0], None
        if codes is None:
            raise ValueError(f"the cached {self.side} were handed over already")
        return codes


def _append_codes(parts, codes):
    """Add one batch's codes to ``parts``: one growing bytearray while codes are one byte
    each (no copy of them all when joined), arrays beyond."""
    if codes.dtype != np.uint8:
        parts.append(codes)
    elif parts and isinstance(parts[-1], bytearray):
        parts[-1] += memoryview(codes)  # a bytearray grows in place; an array would add
    else:
        parts.append(bytearray(codes))


def _joined_codes(parts):
    return joined(
        [np.frombuffer(p, dtype=np.uint8) if isinstance(p, bytearray) else p for p in parts], np.uint8
    )


class CachedColumns:
    """evaluate's cache file of one process that added tag strings, read one record batch at a
    time into codes (one byte a tag while there are at most 256 distinct tags), the strings
    never memory-mapped whole: the ``data`` that evaluate's ``compute`` takes its columns from
    (``data.set_format``, ``data[name][:]``). Other columns (subgroups) become Python lists.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "cache.arrow")
    >>> table = pa.table({"predictions": [["B-PER", "O"], ["O"]], "references": [["B-PER", "I-PER"], ["B-LOC"]]})
    >>> with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
    ...     writer.write_table(table)
    >>> data = CachedColumns(path)
    >>> codes = data["predictions"][:].take()
    >>> codes.vocabulary, codes.predictions.tolist(), codes.references.tolist(), codes.lengths.tolist()
    (('O', 'B-PER', 'I-PER', 'B-LOC'), [1, 0, 0], [1, 2, 3], [2, 1])
    """

    SIDES = ("predictions", "references")

    def __init__(self, path):
        numbered: dict[str, int] = {"O": 0}
        parts: tuple[list[bytearray | np.ndarray], list[bytearray | np.ndarray]] = ([], [])  # per side
        length_parts: list[np.ndarray] = []
        others: dict[str, list] = {}
        with pa.OSFile(path) as source:
            for batch in pa.ipc.open_stream(source):
                for part, side in zip(parts, self.SIDES):
                    _append_codes(part, dictionary_codes(pc.list_flatten(batch.column(side)), numbered))
                length_parts.append(
                    pc.list_value_length(batch.column("references")).to_numpy(zero_copy_only=False)
                )
                for name in batch.schema.names:
                    if name not in self.SIDES:
                        others.setdefault(name, []).extend(batch.column(name).to_pylist())
        pred, ref = (_joined_codes(part) for part in parts)
        del parts
        lengths = joined(length_parts, np.int64).astype(np.int64)
        box = [Codes(tuple(numbered), pred, ref, lengths)]
        self.columns: dict[str, CachedTags | list] = {  # the two sides, then the other columns' values
            side: CachedTags(box, side, len(lengths)) for side in self.SIDES
        }
        self.columns.update(others)

    def set_format(self, type: Any = None) -> None:  # noqa: A002  (evaluate's keyword)
        """The columns are given as read, whatever the format asked."""

    def __getitem__(self, name):
        return self.columns[name]


def input_codes(predictions: Any, references: Any, label_names: Any = None) -> Codes | None:
    """Both sides as :class:`Codes`, or None for Python lists that are not all tag strings
    (``ner_decoding.encode`` then names the place of the first problem). Raises ``ValueError``
    naming the place."""
    if isinstance(predictions, CachedTags) and isinstance(references, CachedTags):
        return predictions.take()  # validated when added; both sides in one box
    names = None if label_names is None else check_label_names(label_names)
    batch = check_batch(predictions, references, every_tag=False)
    check_kind(batch.kind, batch.first, names)
    if batch.codes is not None:
        if isinstance(predictions, Checked):  # handed over once, so that they go once laid out
            predictions.batch = batch._replace(codes=None)
        return batch.codes
    pred, ref = batch.predictions, batch.references
    plain = not any(isinstance(c, (*ARROW, np.ndarray)) for c in (pred, ref)) and set(map(type, pred)) | set(
        map(type, ref)
    ) <= {list, tuple}
    if names is None and plain:
        return None
    if names is None:
        return codes_of_tags(pred, ref, batch.lengths)
    return codes_of_ids(pred, ref, batch.lengths, names)


def arrow_column(col: Any, kind: str | None, lengths: npt.NDArray[np.int64]) -> pa.Array:
    """A validated column as an Arrow list array: ``list<string>`` for tags (and for a column
    with no item), ``list<int64>`` for class ids; how ``evaluate``'s cache stores it."""
    offsets = pa.array(np.concatenate(([0], np.cumsum(lengths))), type=pa.int64())
    if kind == CLASS_ID:
        values = pa.array(id_values(col, lengths), type=pa.int64())
    elif isinstance(col, ARROW) and kind == TAG:
        values = pc.list_flatten(col).cast(pa.string()).combine_chunks()
    elif kind == TAG:
        values = tag_array(col)
    else:
        values = pa.array([], type=pa.string())
    return pa.LargeListArray.from_arrays(offsets, values).cast(pa.list_(values.type))


def arrow_columns(batch: Batch, kind: str | None) -> dict[str, pa.Array]:
    """``{"predictions": ..., "references": ...}``: both columns of a validated batch as
    :func:`arrow_column` makes them; lists of tag strings from the codes of the pass that
    checked them (their vocabulary taken at each code), without a Python object per tag."""
    sides = ("predictions", "references")
    if batch.codes is None:
        return {side: arrow_column(col, kind, batch.lengths) for side, col in zip(sides, batch[:2])}
    offsets = pa.array(np.concatenate(([0], np.cumsum(batch.lengths))), type=pa.int64())
    vocabulary = pa.array(batch.codes.vocabulary, type=pa.string())
    return {
        side: pa.LargeListArray.from_arrays(offsets, vocabulary.take(pa.array(codes))).cast(
            pa.list_(pa.string())
        )
        for side, codes in zip(sides, (batch.codes.predictions, batch.codes.references))
    }
