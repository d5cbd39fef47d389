"""``compute`` from class ids at the speed of memory: the default families in compiled passes.

When a large corpus comes as integer class ids (a 2-D array, a tensor, an Arrow or ``datasets``
list column, a list of 1-D arrays) with ``label_names``, and nothing but the default families is
asked (``zero_division`` and ``beta`` may be set), ``compute`` reads each side once in a loop
compiled by numba (``ner_kernels``) instead of building the encoded corpus: ids checked, both
sides decoded (lenient, as ``scheme=None``), tokens compared, overlapping entities paired, the
count row made. The scores then derive from that row exactly as on the general path, so the
results are the same, bit for bit (``tests/test_fast_ids.py`` holds them equal on random
corpora, ignored positions, repeated label names, ill-formed tags and every input form).

Anything else takes the general path, which also names the place of any bad input: a corpus of
fewer than :data:`MIN_TOKENS` tokens (no compiling for small calls), numba not installed, an id
out of range, a label name the general path would refuse, a type named like a result key.
"""

from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import NDArray

from ner_recall.core.counts import derive, muc_results, seqeval_results
from ner_recall.core.decoding import _E, _I, _O, Numbered, _pair_table, _vocabulary
from ner_recall.core.decoding_report import REASONS
from ner_recall.core.inputs import column
from ner_recall.core.kernels import count_row, decode_pair, isolated, poisson_sums, row_patterns
from ner_recall.core.matching import flat_resolution
from ner_recall.core.vocabulary import IGNORE_INDEX as IGNORE
from ner_recall.core.vocabulary import SpanArrays
from ner_recall.families.table import check_types
from ner_recall.stats.uncertainty import families_of

#: tokens (per side) from which ``compute`` takes the compiled path
MIN_TOKENS = 1 << 18
#: the options the compiled path reads; any other option set takes the general path
READ_OPTIONS = frozenset({"label_names", "zero_division", "beta"})
#: the options a counts state's compiled path reads besides those (its resamples and units)
COUNTS_OPTIONS = READ_OPTIONS | frozenset({"ci_resamples", "seed", "document_ids"})
#: tokens per chunk of whole sentences: its arrays are made once and reused (no page made afresh)
CHUNK_TOKENS = 1 << 21
#: distinct label names up to which the compiled path holds a table of every pair of them (64 KB)
MAX_CODES = 256
_KERNELS = (decode_pair, isolated, count_row, poisson_sums, row_patterns)


@lru_cache(maxsize=1)
def compiled() -> SimpleNamespace | None:
    """The kernels compiled by numba (cached on disk beside ``ner_kernels``), or None without numba."""
    try:
        from numba import njit
    except ImportError:
        return None
    return SimpleNamespace(**{f.__name__: njit(cache=True, nogil=True)(f) for f in _KERNELS})


@lru_cache(maxsize=32)
def _tables(names: tuple[str, ...]) -> tuple[Any, ...] | None:
    """(canonical code of each id, pair flags, type of each code, reasons of a repaired entity
    (:func:`_reasons`), type names) of ``label_names``; None when a name is refused (the general
    path names it) or when there are more than :data:`MAX_CODES` distinct names."""
    numbered = Numbered(O=0)
    canon = np.array([numbered[name] for name in names], dtype=np.int64)
    if len(numbered) > MAX_CODES:
        return None  # the general path looks larger vocabularies up per token
    try:
        prefixes, labels = _vocabulary(numbered, (("label_names", [list(numbered)]),), False, None)
    except ValueError:
        return None
    types = tuple(sorted({label for label in labels if label is not None}))
    index = {name: i for i, name in enumerate(types)}
    type_of = np.array([-1 if label is None else index[label] for label in labels], dtype=np.int32)
    prefix_of = np.array(prefixes, dtype=np.intp)
    flags = _pair_table(SimpleNamespace(prefix=prefix_of, type=type_of), None)
    return canon, np.ascontiguousarray(flags), type_of, _reasons(prefix_of, type_of), types


def _reasons(prefix: NDArray[np.intp], kind: NDArray[np.int32]) -> NDArray[np.uint8]:
    """Per (previous code, code) of an entity's first token: 0 when the entity is not repaired,
    else 1 + its reason's index in ``REASONS`` (as ``ner_decoding_report`` tells them, lenient)."""
    repaired = np.isin(prefix, (_I, _E))[None, :]
    after = np.where(prefix[:, None] == _O, 0, np.where(kind[:, None] != kind[None, :], 1, 2))
    return np.where(repaired, 1 + after, 0).astype(np.uint8)


def _flat_ids(col: Any) -> tuple[NDArray[np.integer], NDArray[np.int64]] | None:
    """(every id, flat; tokens per sentence) of one column, without a copy where it can; None
    for anything but integer ids in arrays or Arrow lists."""
    if isinstance(col, np.ndarray):
        if not _integer(col.dtype):
            return None
        native = np.ascontiguousarray(col, dtype=col.dtype.newbyteorder("="))  # numba reads native only
        return native.reshape(-1), np.full(col.shape[0], col.shape[1], dtype=np.int64)
    if isinstance(col, pa.ChunkedArray):
        if not pa.types.is_integer(col.type.value_type):
            return None
        chunks = [c for c in col.chunks if len(c)]
        values = [pc.list_flatten(c) for c in chunks]
        if any(v.null_count for v in values):
            return None
        lengths = [pc.list_value_length(c).to_numpy(zero_copy_only=False) for c in chunks]
        return _joined([v.to_numpy(zero_copy_only=False) for v in values]), _joined(lengths, np.int64)
    if (
        isinstance(col, (list, tuple))
        and col
        and type(col[0]) is np.ndarray
        and set(map(type, col)) == {np.ndarray}
    ):
        try:
            flat = np.concatenate(col)  # native byte order
        except ValueError:  # a 0-d array: the general path names it
            return None
        if flat.ndim != 1 or not _integer(flat.dtype):  # 2-D sentences, floats, uint64 with int64
            return None
        return flat, np.fromiter(map(len, col), dtype=np.int64, count=len(col))
    return None


def _integer(dtype: np.dtype) -> bool:
    """Signed ints, and unsigned ones the compiled comparisons read exactly (not uint64)."""
    return dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8)


def _joined(parts: Sequence[NDArray[Any]], dtype: Any = np.int64) -> NDArray[Any]:
    if not parts:
        return np.zeros(0, dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def id_arrays(
    predictions: Any, references: Any
) -> tuple[NDArray[Any], NDArray[Any], NDArray[np.int64]] | None:
    """(predicted ids, reference ids, tokens per sentence) of two columns of class ids of the same
    shape; None for any other input (the general path reads it, or names what is wrong).

    >>> pred, ref, lengths = id_arrays(np.array([[0, 1], [2, 0]]), [np.array([0, 1]), np.array([1, 0])])
    >>> pred.tolist(), ref.tolist(), lengths.tolist()
    ([0, 1, 2, 0], [0, 1, 1, 0], [2, 2])
    >>> id_arrays([["O", "B-PER"]], [["O", "B-PER"]]) is None  # tags: the general path
    True
    """
    sides = []
    for value, name in ((predictions, "predictions"), (references, "references")):
        try:
            col = column(value, name)
        except ValueError:
            return None
        flat = _flat_ids(col)
        if flat is None:
            return None
        sides.append(flat)
    (pred, pred_lengths), (ref, ref_lengths) = sides
    if not np.array_equal(pred_lengths, ref_lengths):
        return None
    return pred, ref, ref_lengths


def fast_results(
    predictions: Any,
    references: Any,
    chosen: Mapping[str, Any],
    options: Any,
    min_tokens: int = MIN_TOKENS,
) -> dict[str, Any] | None:
    """``compute``'s results for class ids by the compiled path, or None where it does not apply
    (the caller then takes the general path). ``options``: the checked options of ``chosen``."""
    ready = _ready(predictions, references, chosen, options, READ_OPTIONS, min_tokens)
    return None if ready is None else _scored(*ready, options)


def fast_counts(
    predictions: Any,
    references: Any,
    chosen: Mapping[str, Any],
    options: Any,
    entries: bool = True,
    min_tokens: int = MIN_TOKENS,
) -> tuple[Any, ...] | None:
    """A counts state's parts for class ids by the compiled path (``ner_counts_state`` reads
    them), or None where it does not apply: (types, count row, (kept, correct) tokens, decoding
    report, sentences, (sentence, column) of every count, or None without ``entries``).
    ``chosen``: the options given but the sentence ids (read by the caller); ``options``: their
    checked form."""
    ready = _ready(predictions, references, chosen, options, COUNTS_OPTIONS, min_tokens)
    if ready is None:
        return None
    counted = _counted(*ready, options, entries)
    if counted is None:
        return None
    types, row, tokens, sides, placed = counted
    sentences = len(ready[3])  # the lengths
    return types, row[0], (int(tokens[1]), int(tokens[0])), _decoding(sides), sentences, placed


def _ready(
    predictions: Any,
    references: Any,
    chosen: Mapping[str, Any],
    options: Any,
    allowed: frozenset[str],
    min_tokens: int,
) -> tuple[Any, Any, Any, Any, Any] | None:
    """(compiled kernels, predicted ids, reference ids, tokens per sentence, tables) when the
    compiled path applies: ``label_names`` given, no option outside ``allowed``, at least
    ``min_tokens`` class ids in arrays or Arrow lists, numba installed, names it can table."""
    if "label_names" not in chosen or not set(chosen) <= allowed:
        return None
    arrays = id_arrays(predictions, references)
    if arrays is None or len(arrays[1]) < min_tokens:
        return None
    run = compiled()
    tables = _tables(tuple(options.label_names))
    if run is None or tables is None:
        return None
    return (run, *arrays, tables)


def _chunks(lengths: NDArray[np.int64], size: int) -> list[tuple[int, int]]:
    """Runs of whole sentences ``[a, b)`` of about ``size`` tokens each (a longer sentence alone).

    >>> _chunks(np.array([3, 3, 3, 9, 1]), 6)
    [(0, 2), (2, 3), (3, 4), (4, 5)]
    """
    ends = np.cumsum(lengths)
    out, a = [], 0
    while a < len(lengths):
        before = int(ends[a - 1]) if a else 0
        b = max(int(np.searchsorted(ends, before + size, side="right")), a + 1)
        out.append((a, b))
        a = b
    return out


class _Buffers:
    """The arrays ``decode_pair`` writes into, made once for the largest chunk and reused."""

    def __init__(self, n: int) -> None:
        self.start, self.end = np.empty((2, n), dtype=np.int64), np.empty((2, n), dtype=np.int64)
        self.kind, self.reason = np.empty((2, n), dtype=np.int32), np.empty((2, n), dtype=np.uint8)
        self.pairs, self.degree = np.empty((2, n), dtype=np.int64), np.zeros((2, n), dtype=np.int64)

    def args(self) -> tuple[NDArray[Any], ...]:
        return self.start, self.end, self.kind, self.reason, self.pairs, self.degree


def _scored(run, pred, ref, lengths, tables, options):
    """``compute``'s results from the chunks' counts (:func:`_counted`), None where the general
    path must name a type."""
    counted = _counted(run, pred, ref, lengths, tables, options, entries=False)
    if counted is None:
        return None
    types, row, tokens, sides, _ = counted
    derived = derive(row, types, families_of(options.scoring.scores), options.zero_division, options.beta)
    kept, correct = tokens.tolist()
    results = seqeval_results(row, types, derived, correct, kept, options.zero_division, options.beta)
    results["muc"] = muc_results(row, types, derived, options.beta)
    results["decoding"] = _decoding(sides)
    return results


def _counted(run, pred, ref, lengths, tables, options, entries):
    """Chunk by chunk of whole sentences (no entity and no pair crosses a sentence), the counts
    added up: (types present, count row over them, (kept, correct) tokens, each side's entities
    and reasons, and with ``entries`` the (sentence, column) of every entity counted); None when
    an id is out of range or a type's name collides (the general path names either)."""
    canon, flags, type_of, reasons, all_types = tables
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    chunks = _chunks(lengths, CHUNK_TOKENS)
    buffers = _Buffers(max(int(offsets[b] - offsets[a]) for a, b in chunks) + 1)
    k = max(len(all_types), 1)
    row, tokens, sides = (
        np.zeros(8 * k, dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.zeros((2, 4), np.int64),
    )
    found: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []
    for a, b in chunks:
        bad, kept, correct, n_gold, n_pred, n_pairs = run.decode_pair(
            pred[offsets[a] : offsets[b]],
            ref[offsets[a] : offsets[b]],
            lengths[a:b],
            canon,
            flags,
            type_of,
            reasons,
            *buffers.args(),
        )
        if bad >= 0:
            return None  # the general path names the id and its place
        tokens += (kept, correct)
        chunk_row, keep = _chunk_row(run, buffers, n_gold, n_pred, n_pairs, k)
        row += chunk_row
        sides += [_reasons_found(buffers.reason[side, :n], n) for side, n in enumerate((n_gold, n_pred))]
        if entries:
            kept_ends = np.cumsum(lengths[a:b] - _ignored(ref[offsets[a] : offsets[b]], lengths[a:b]))
            position, column = _chunk_entries(buffers, n_gold, n_pred, n_pairs, keep, k)
            found.append((a + np.searchsorted(kept_ends, position, side="right"), column))
    blocks = row.reshape(8, k)[:, : len(all_types)]
    present = np.flatnonzero(blocks.sum(axis=0))
    types = tuple(all_types[i] for i in present)
    try:
        check_types(types, options.beta)
    except ValueError:
        return None  # the general path names the entity whose type collides
    placed = None
    if entries:  # columns over all k types become columns over the types present
        new = np.zeros(k, dtype=np.int64)
        new[present] = np.arange(len(present))
        column = _joined([f[1] for f in found])
        placed = (_joined([f[0] for f in found]), column // k * len(present) + new[column % k])
    return types, blocks[:, present].reshape(1, -1), tokens, sides, placed


def _ignored(ref: NDArray[np.integer], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """The positions each sentence drops (a reference ``IGNORE``)."""
    dropped = ref == IGNORE
    if not dropped.any():
        return np.zeros(len(lengths), dtype=np.int64)
    ends = np.concatenate(([0], np.cumsum(dropped)))[np.cumsum(lengths)]
    return np.diff(ends, prepend=0)


def _chunk_row(run, buffers, n_gold, n_pred, n_pairs, k):
    """One chunk's count row over all ``k`` types, from its entities, overlapping pairs and each
    entity's number of them (the degrees are zeroed again for the next chunk), and which pairs
    were kept."""
    none = np.zeros(0, dtype=np.int32)  # sentences and offsets: the matching reads positions only
    gold, pred = (
        SpanArrays(buffers.start[side, :n], buffers.end[side, :n], buffers.kind[side, :n], none, none)
        for side, n in enumerate((n_gold, n_pred))
    )
    g, p = buffers.pairs[0, :n_pairs], buffers.pairs[1, :n_pairs]
    keep, rest = run.isolated(g, p, buffers.degree[0, :n_gold], buffers.degree[1, :n_pred])
    buffers.degree[0, :n_gold] = 0
    buffers.degree[1, :n_pred] = 0
    if len(rest):
        keep[rest[flat_resolution(g[rest], p[rest], gold, pred)]] = True
    row = run.count_row(g, p, keep, gold.start, gold.end, gold.type, pred.start, pred.end, pred.type, k)
    return row, keep


def _chunk_entries(buffers, n_gold, n_pred, n_pairs, keep, k):
    """(kept position of its first token, column of ``ner_core.COLUMNS``) of every count of a
    chunk's row, as ``ner_kernels.count_row`` adds them up: the per-unit rows of a counts state."""
    g, p = buffers.pairs[0, :n_pairs][keep], buffers.pairs[1, :n_pairs][keep]
    g_start, p_start = buffers.start[0, :n_gold], buffers.start[1, :n_pred]
    g_end, p_end = buffers.end[0, :n_gold], buffers.end[1, :n_pred]
    g_type, p_type = buffers.kind[0, :n_gold].astype(np.int64), buffers.kind[1, :n_pred].astype(np.int64)
    other = g_type[g] != p_type[p]
    scenario = np.where((g_start[g] == p_start[p]) & (g_end[g] == p_end[p]), 0, 2) + other
    g_free, p_free = np.ones(n_gold, dtype=bool), np.ones(n_pred, dtype=bool)
    g_free[g], p_free[p] = False, False
    where = (g_start[g], p_start[p][other], g_start[g_free], p_start[p_free])
    column = (
        scenario * k + g_type[g],
        (4 + (scenario[other] == 3)) * k + p_type[p][other],
        6 * k + g_type[g_free],
        7 * k + p_type[p_free],
    )
    return np.concatenate(where), np.concatenate(column)


def _reasons_found(reasons: NDArray[np.uint8], entities: int) -> list[int]:
    """(entities, then how many were repaired for each reason but the last, strict-only one)."""
    return [entities, *(int(np.count_nonzero(reasons == 1 + i)) for i in range(len(REASONS) - 1))]


def _decoding(sides):
    """Both sides' decoding reports from their :func:`_reasons_found` counts (row 0 the references)."""
    return {"predictions": _report(sides[1]), "references": _report(sides[0])}


def _report(counts):
    """One side's decoding report from its :func:`_reasons_found` counts, as
    ``ner_decoding_report.decoding_report`` gives it (lenient, no places)."""
    entities, *tally = counts.tolist()
    return {
        "entities": entities,
        "repaired": sum(tally),
        "dropped": 0,
        "reasons": dict(zip(REASONS, [*tally, 0])),
    }
