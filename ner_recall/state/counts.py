"""A state of constant size: ``metric.state(..., keep="counts")`` keeps counts, not sentences.

A partition becomes a :class:`CountsState`: the count row of :data:`ner_core.COLUMNS` over its
entity types (every seqeval and MUC score is a ratio of its sums), the agreeing and real tokens
(``overall_accuracy``), the decoding report's counts and, with ``ci_resamples``, the count row of
each of the resamples of a **Poisson bootstrap** (Chamandy et al., 2012): every unit (a document of
``document_ids``, else a sentence of ``sentence_ids``, else the sentence ``first_sentence + i``)
weighs Poisson(1) in each resample, its weight drawn from a counter-based generator keyed by the
seed, the unit's id and the resample, so a unit weighs the same in whichever partition it sits.
Merging is adding integer arrays (types aligned by name): the result is the same to the bit
however the corpus is partitioned and in whichever order states merge. Its size depends on the
types and resamples, never on the corpus.

What counts cannot give is refused by name (:data:`REFUSED`): the error listing, slices and
buckets (defined per sentence), families other than seqeval and MUC, the stratified recall, the
span configs, the BCa interval (its acceleration needs every unit); the decoding report keeps its
counts without places, and ``document_ids`` make documents the units without the per-document
table. See docs/state.md.

>>> from ner_recall.state import counts as C
>>> w = C.poisson_weights(C.unit_keys([0, 1, 2], "ids"), seed=0, resamples=4000)
>>> w.shape, round(float(w.mean()), 1), round(float(w.var()), 1)
((3, 4000), 1.0, 1.0)
"""

import base64
import hashlib
import json
import math
import sys
import zlib
from statistics import NormalDist
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ner_recall.core.counts import count_parts, derive, muc_results, present_types, seqeval_results
from ner_recall.core.decoding import decode
from ner_recall.core.decoding_report import REASONS, decoding_reports
from ner_recall.core.registry import supporting
from ner_recall.core.vocabulary import COLUMNS
from ner_recall.families.table import build_view
from ner_recall.pipeline.compute import tag_corpus
from ner_recall.pipeline.fast import compiled, fast_counts
from ner_recall.pipeline.options import SPAN_CONFIGS, SUBGROUP_CONFIGS, check_options
from ner_recall.state.unit_ids import MAX_ID_SLOTS, held_ids, id_slots, merged_ids, read_ids
from ner_recall.stats.interval_methods import percentile_bounds
from ner_recall.stats.uncertainty import (
    INTERVAL_FAMILIES,
    align_types,
    document_units,
    families_of,
    score_table,
)

COUNTS_FORMAT = "ner_recall_metric.counts"
COUNTS_VERSION = 2
#: the ``keep`` values of ``metric.state``
KEEPS = ("exact", "counts")
#: what a counts state cannot give: the option that asks for it and the words of the error
REFUSED = {
    "errors": "the error listing (errors=True) names entities in their sentences",
    "slices": "slices are defined per sentence",
    "buckets": "buckets are defined per entity and sentence",
    "tokens": "tokens feed the text buckets",
    "token_scores": "the ranking family needs every prediction's score",
    "train_entities": "train_entities feed the buckets",
    "type_separator": "the hierarchy family matches categories again",
    "type_hierarchy": "the hierarchy family matches categories again",
}
#: interval methods of a counts state (BCa's acceleration needs the jackknife of every unit)
INTERVAL_METHODS = ("percentile", "bias_corrected")
#: the counts of a decoding report, in compute's order (``reasons`` in ``ner_decoding.REASONS``'s)
REPORT_KEYS = ("entities", "repaired", "dropped", "reasons")
#: how the units of a state are named: documents, sentence ids, or sentence numbers
UNIT_KINDS = ("document_ids", "sentence_ids", "first_sentence")
#: resample totals are exact in float64 below this (their matrix product adds integers)
_EXACT = 2**53
#: units whose weights are drawn at once (a block of units x resamples stays in cache; its
#: summed weights, at most 255 x the block, fit the uint16 of the block's running sums)
_BLOCK = 128
#: distinct rows whose summed weights are held at once (rows x resamples floats)
_CHUNK_ROWS = 2048
#: the largest declared size of a blob's array (bytes) and of the blob itself
MAX_ARRAY_BYTES = 1 << 28

# ---------------------------------------------------------------------------- the generator

_M1, _M2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S33 = np.uint64(33)
_INT_TAG = np.uint64(0x5851F42D4C957F2D)


def mix64(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """MurmurHash3's 64-bit finaliser (a bijection of uint64 that spreads every bit), in place
    on a copy; numpy's uint64 arithmetic wraps."""
    z = np.array(z, dtype=np.uint64, copy=True)
    z ^= z >> _S33
    z *= _M1
    z ^= z >> _S33
    z *= _M2
    z ^= z >> _S33
    return z


def _poisson_table() -> npt.NDArray[np.uint8]:
    """The Poisson(1) value at each of 65,536 equally likely 16-bit uniforms (inverse CDF at
    their midpoints): each probability within 2**-16 of Poisson(1)'s."""
    cdf = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(20)])
    u = (np.arange(1 << 16) + 0.5) / (1 << 16)
    return np.searchsorted(cdf, u, side="right").astype(np.uint8)


POISSON_TABLE = _poisson_table()
#: the 16-bit values at which :data:`POISSON_TABLE` steps up, one a weight from 1 to 8: a weight is
#: the number of them its uniform reaches (what the compiled loop reads)
POISSON_CUTS = np.searchsorted(POISSON_TABLE, np.arange(1, int(POISSON_TABLE.max()) + 1)).astype(np.uint16)
#: units x resamples from which the resamples' sums take the compiled loop (when numba is there)
COMPILED_WEIGHTS = 1 << 26
#: the Weyl step of each group of four resamples
_STEPS = np.arange(1, 250_001, dtype=np.uint64) * _GOLDEN


def unit_keys(ids: Any, name: str) -> npt.NDArray[np.uint64]:
    """A 64-bit key per unit id: an int (not bool) in the int64 range by its value, any other
    int or str by BLAKE2b of its text (a str and an int never share a key)."""
    values = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
    keys = np.empty(len(values), dtype=np.uint64)
    for i, value in enumerate(values):
        value = int(value) if isinstance(value, np.integer) else value
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(f"{name}[{i}] is {value!r}; a unit id is a str or an int")
        if isinstance(value, int) and -(2**63) <= value < 2**63:
            keys[i] = np.uint64(value % 2**64)
        else:
            tag = b"s" if isinstance(value, str) else b"i"
            text = tag + str(value).encode("utf-8", "surrogatepass")  # all of it: a prefix would merge ids
            digest = hashlib.blake2b(text, digest_size=8, person=b"ner-unit").digest()
            keys[i] = np.uint64(int.from_bytes(digest, "little") | 1 << 63)  # past any int key's mix
    return keys


def _seeded(keys: npt.NDArray[np.uint64], seed: int) -> npt.NDArray[np.uint64]:
    seed_key = mix64(np.array([seed % 2**64], dtype=np.uint64) ^ _INT_TAG)[0]
    return mix64(mix64(keys ^ _INT_TAG) ^ seed_key)


def _hash_lanes(seeded: np.ndarray, resamples: int, z: np.ndarray, spare: np.ndarray) -> np.ndarray:
    """The 16-bit uniform of each ``seeded`` unit (rows) in each resample: one 64-bit hash per
    unit and four resamples (SplitMix64's Weyl step and MurmurHash3's finaliser), computed in
    the buffers ``z`` and ``spare`` (units x groups of four, uint64) without a temporary."""
    z, spare = z[: len(seeded)], spare[: len(seeded)]
    np.add(seeded[:, None], _STEPS[: z.shape[1]], out=z)
    for multiplier in (_M1, _M2, None):
        np.right_shift(z, _S33, out=spare)
        z ^= spare
        if multiplier is not None:
            z *= multiplier
    return z.view("<u2" if z.dtype.byteorder in "<=" else ">u2")[:, :resamples]


def _block_weights(seeded: npt.NDArray[np.uint64], resamples: int) -> np.ndarray:
    """Weights of ``seeded`` units (rows) in each resample, each resample's 16 bits read through
    :data:`POISSON_TABLE`."""
    z = np.empty((len(seeded), (resamples + 3) // 4), dtype="<u8")
    return POISSON_TABLE[_hash_lanes(seeded, resamples, z, np.empty_like(z))]


def poisson_weights(keys: npt.NDArray[np.uint64], seed: int, resamples: int) -> npt.NDArray[np.uint8]:
    """Each unit's Poisson(1) weight in each resample (units x resamples): a function of the
    seed, the unit's key and the resample alone."""
    return _block_weights(_seeded(np.asarray(keys, dtype=np.uint64), seed), resamples)


# ---------------------------------------------------------------------------- resampled counts


def sentence_entries(view: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(sentence, column of :data:`COLUMNS`) of every counted entity (``ner_counts.count_rows``
    before its bincount): the sparse per-sentence count rows."""
    # always four parts: the matched gold, the other-type predictions, the missed, the spurious
    parts = count_parts(view.gold, view.pred, view.matching, len(view.types))
    sentence = np.concatenate([side.sentence[at].astype(np.int64) for side, at, _ in parts])
    column = np.concatenate([c for _, _, c in parts]).astype(np.int64)
    return sentence, column


def unit_entries(view: Any, units: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
    """Per counted entity, ``unit * width + column`` of :data:`COLUMNS`: the sparse per-unit
    count rows."""
    return on_units(sentence_entries(view), units, len(COLUMNS) * len(view.types))


def on_units(placed: tuple, units: npt.NDArray[np.intp], width: int) -> npt.NDArray[np.int64]:
    """``unit * width + column`` of each (sentence, column) in ``placed``, ``units`` the unit of
    each sentence."""
    sentence, column = placed
    return units[sentence].astype(np.int64) * width + column


def unit_patterns(entries: npt.NDArray[np.int64], width: int, run: Any = None) -> tuple:
    """The units with a count and their distinct rows: (units, pattern of each unit, patterns),
    the patterns a dense int64 array; checked exactly (a hash collision falls back). With
    ``run`` (the compiled kernels) in one loop over the sorted entries, rows numbered as met."""
    if run is not None:
        return _compiled_patterns(run, entries, width)
    cells, counts = np.unique(entries, return_counts=True)
    unit, column = cells // width, cells % width
    starts = np.flatnonzero(np.diff(unit, prepend=-1))  # cells are sorted: so are their units
    units, nonzero = unit[starts], np.diff(starts, append=len(unit))
    signs = mix64((column.astype(np.uint64) << np.uint64(32)) + counts.astype(np.uint64))
    signature = np.add.reduceat(signs, starts) + mix64(nonzero.astype(np.uint64)) if len(starts) else signs
    _, first, pattern = np.unique(signature, return_index=True, return_inverse=True)
    pattern = pattern.ravel()
    rows: npt.NDArray[np.int64] = np.zeros((len(first), width), dtype=np.int64)
    owner = np.repeat(np.arange(len(units)), nonzero)
    is_first = np.zeros(len(units), dtype=bool)
    is_first[first] = True
    at_first = is_first[owner]
    rows[pattern[owner[at_first]], column[at_first]] = counts[at_first]
    if not np.array_equal(rows[pattern[owner], column], counts) or not np.array_equal(
        np.count_nonzero(rows, axis=1)[pattern], nonzero
    ):
        dense = np.zeros((len(units), width), dtype=np.int64)
        dense[owner, column] = counts
        rows, pattern = np.unique(dense, axis=0, return_inverse=True)
        pattern = pattern.ravel()
    return units, pattern, rows


def _compiled_patterns(run: Any, entries: npt.NDArray[np.int64], width: int) -> tuple:
    """:func:`unit_patterns` by ``ner_kernels.row_patterns``: each row from its first unit's cells."""
    cells = np.sort(entries)
    units, pattern, first, last = (np.empty(len(cells), dtype=np.int64) for _ in range(4))
    n_units, n_rows = run.row_patterns(
        cells, width, units, pattern, first, last, np.empty(len(cells), np.uint64)
    )
    sizes = last[:n_rows] - first[:n_rows]
    at = np.arange(int(sizes.sum())) + np.repeat(first[:n_rows] - (np.cumsum(sizes) - sizes), sizes)
    owner = np.repeat(np.arange(n_rows), sizes)
    rows = np.bincount(owner * width + cells[at] % width, minlength=n_rows * width).reshape(n_rows, width)
    return units[:n_units], pattern[:n_units], rows


def resampled_rows(
    entries: npt.NDArray[np.int64], keys: npt.NDArray[np.uint64], width: int, seed: int, resamples: int
) -> npt.NDArray[np.int64]:
    """The count row of each Poisson resample (resamples x width): units sorted by their row,
    their weights drawn in blocks and summed per distinct row, each chunk of rows then one
    matrix product (integers in float64: exact below 2**53, checked). From
    :data:`COMPILED_WEIGHTS` weights on, the sums take a compiled loop when numba is installed."""
    many = len(keys) * resamples >= COMPILED_WEIGHTS and sys.byteorder == "little"
    run = compiled() if many else None  # the uint16 lanes of the compiled loop are little-endian
    units, pattern, rows = unit_patterns(entries, width, run)
    narrow = pattern.astype(np.uint16) if len(rows) <= 1 << 16 else pattern  # a radix sort, 8x faster
    order = np.argsort(narrow, kind="stable")
    seeded, pattern = _seeded(keys[units[order]], seed), pattern[order]
    totals = np.zeros((resamples, width))
    bounds = np.searchsorted(pattern, np.arange(0, len(rows) + _CHUNK_ROWS, _CHUNK_ROWS))
    buffer = np.empty((_CHUNK_ROWS, resamples)) if run is not None else None  # reused chunk by chunk
    for first, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        if a < b:
            sums = _sums(run, seeded[a:b], pattern[a:b] - first * _CHUNK_ROWS, buffer, resamples)
            chunk = rows[first * _CHUNK_ROWS : (first + 1) * _CHUNK_ROWS].astype(np.float64)
            most = float(chunk.sum(axis=0).max())  # a weight is at most 8: the exact check when 8 may reach
            if 8.0 * (b - a) * most >= _EXACT / 4 and float(sums.max()) * most >= _EXACT / 4:
                raise ValueError("resampled counts near 2**53: split the corpus into more states")
            totals += sums[: len(chunk)].T @ chunk
    if float(np.abs(totals).max(initial=0)) >= _EXACT / 4:
        raise ValueError("resampled counts near 2**53: split the corpus into more states")
    return np.rint(totals).astype(np.int64)


def _sums(run: Any, seeded: np.ndarray, pattern: np.ndarray, out: Any, resamples: int) -> np.ndarray:
    """The summed weights of :data:`_CHUNK_ROWS` rows (float64 integers): :func:`_pattern_sums`,
    or with ``run`` the same sums in one compiled loop (``ner_kernels.poisson_sums``) into
    ``out``, zeroed first."""
    if run is None:
        return _pattern_sums(seeded, pattern, _CHUNK_ROWS, resamples)
    out.fill(0)
    run.poisson_sums(seeded, pattern.astype(np.int64), _STEPS[: (resamples + 3) // 4], POISSON_CUTS, out)
    return out


def _pattern_sums(seeded: np.ndarray, pattern: np.ndarray, n_rows: int, resamples: int) -> np.ndarray:
    """Per distinct row, the summed weights of its units in each resample (rows x resamples, as
    float64 integers): each block's weights in reused buffers, summed in uint16 (a block of one
    row at once, else as differences of running sums at the rows' ends: exact, as modular)."""
    sums = np.zeros((n_rows, resamples), dtype=np.int64)
    z = np.empty((_BLOCK, (resamples + 3) // 4), dtype="<u8")
    spare, weights = np.empty_like(z), np.empty((_BLOCK, resamples), dtype=np.uint8)
    running = np.zeros((_BLOCK + 1, resamples), dtype=np.uint16)
    for a in range(0, len(seeded), _BLOCK):
        block = pattern[a : a + _BLOCK]
        w = weights[: len(block)]
        lanes = _hash_lanes(seeded[a : a + _BLOCK], resamples, z, spare)
        np.take(POISSON_TABLE, lanes, out=w, mode="wrap")  # 16-bit lanes: always in the table
        if block[0] == block[-1]:
            sums[block[0]] += w.sum(axis=0, dtype=np.uint16)
        else:
            ends = np.append(np.flatnonzero(block[1:] != block[:-1]) + 1, len(block))
            np.cumsum(w, axis=0, dtype=np.uint16, out=running[1 : len(block) + 1])
            sums[block[ends - 1]] += running[ends] - running[ends - np.diff(ends, prepend=0)]
    return sums.astype(np.float64)


# ---------------------------------------------------------------------------- the state


def _add_nested(a: dict, b: dict) -> dict:
    """Two decoding reports' counts added key by key."""
    return {k: _add_nested(v, b[k]) if isinstance(v, dict) else v + b[k] for k, v in a.items()}


def _union_types(a: tuple, b: tuple) -> tuple:
    """Both states' types: as they are when equal (a ``types`` option's order), else sorted."""
    return tuple(a) if tuple(a) == tuple(b) else tuple(sorted(set(a) | set(b)))


def _aligned(rows: npt.NDArray[np.int64], types: tuple, union: tuple) -> npt.NDArray[np.int64]:
    if tuple(types) == tuple(union):
        return rows
    return align_types(np.atleast_2d(rows), list(types), list(union))


class CountsState:
    """The counts of the partitions scored so far (``keep="counts"``): ``settings`` (config,
    options, unit kind), ``types``, ``row`` (the count row), ``tokens`` (agreeing, real),
    ``decoding`` (the report's counts), ``resamples`` (resamples x row, or None), ``sentences``
    and the sentence ids held, while they are few (:data:`MAX_ID_SLOTS`): ``ranges`` of int ids
    (sentence numbers from ``first_sentence``, or int ``sentence_ids``) and ``names`` (str
    ``sentence_ids``), both None once they would take more than :data:`MAX_ID_SLOTS`."""

    def __init__(
        self,
        settings: dict | None = None,
        types: tuple = (),
        row: npt.NDArray[np.int64] | None = None,
        tokens: tuple[int, int] = (0, 0),
        decoding: dict | None = None,
        resamples: npt.NDArray[np.int64] | None = None,
        sentences: int = 0,
        ranges: list | tuple | None = (),
        names: list | tuple | None = (),
    ) -> None:
        self.settings, self.types, self.tokens, self.decoding = (
            settings,
            tuple(types),
            tuple(tokens),
            decoding,
        )
        self.row = np.zeros(len(COLUMNS) * len(self.types), dtype=np.int64) if row is None else row
        self.resamples, self.sentences = resamples, int(sentences)
        self.ranges: list | None = None
        self.names: list | None = None
        if ranges is not None and names is not None and id_slots(list(ranges), list(names)) <= MAX_ID_SLOTS:
            self.ranges, self.names = list(ranges), list(names)

    def __radd__(self, other: object) -> "CountsState":
        if isinstance(other, int) and other == 0:  # sum(states) starts from 0
            return self
        return self.__add__(other)

    def __add__(self, other: object) -> "CountsState":
        if not isinstance(other, CountsState):
            if type(other).__name__ == "State":
                raise ValueError(
                    "a counts state (keep='counts') and an exact state (keep='exact') do not merge:"
                    " make every partition's state with the same keep"
                )
            return NotImplemented
        if self.settings is None or other.settings is None:
            return self if other.settings is None else other
        _check_same(self.settings, other.settings)
        first = "sentences" if self.settings["units"] == "first_sentence" else "sentence_ids"
        ids = merged_ids((self.ranges, self.names), (other.ranges, other.names), first)
        types = _union_types(self.types, other.types)
        row = _aligned(self.row, self.types, types) + _aligned(other.row, other.types, types)
        resamples = None
        if self.resamples is not None:
            resamples = _aligned(self.resamples, self.types, types) + _aligned(
                cast(npt.NDArray[np.int64], other.resamples), other.types, types
            )
        return CountsState(
            self.settings,
            types,
            row.reshape(-1),
            (self.tokens[0] + other.tokens[0], self.tokens[1] + other.tokens[1]),
            _add_nested(cast(dict, self.decoding), cast(dict, other.decoding)),
            resamples,
            self.sentences + other.sentences,
            *ids,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CountsState) and self.to_bytes() == other.to_bytes()

    def to_bytes(self) -> bytes:
        """The state as versioned JSON (integer arrays compressed, in base64); no pickle."""
        state = {
            "format": COUNTS_FORMAT,
            "version": COUNTS_VERSION,
            "settings": self.settings,
            "types": list(self.types),
            "row": _blob(self.row),
            "tokens": list(self.tokens),
            "decoding": self.decoding,
            "resamples": None if self.resamples is None else _blob(self.resamples),
            "sentences": self.sentences,
            "ranges": self.ranges,
            "names": self.names,
        }
        return json.dumps(state, sort_keys=True, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> "CountsState":
        """The state :meth:`to_bytes` wrote; anything else is a ``ValueError`` naming the field."""
        return _read_counts(cls, data)


def _check_same(a: dict, b: dict) -> None:
    """Raise naming the first setting on which two states differ, with both values (for the
    options, the first option that differs)."""
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            one, other = a.get(name), b.get(name)
            if name == "options":
                one, other = json.loads(cast(str, one)), json.loads(cast(str, other))
                name = min(k for k in set(one) | set(other) if one.get(k) != other.get(k))
                one, other = one.get(name, "its default"), other.get(name, "its default")
            raise ValueError(f"states that do not merge: {name} is {one!r} in one and {other!r} in the other")


def _blob(values: npt.NDArray[np.int64]) -> dict:
    """An int64 array as the layout writes it: its shape and its little-endian bytes in base64,
    uncompressed, so that a state's size is the same whatever its counts."""
    values = np.asarray(values, dtype="<i8")
    return {
        "shape": list(values.shape),
        "dtype": "int64",
        "data": base64.b64encode(values.tobytes()).decode("ascii"),
    }


class InflatesBeyond(ValueError):
    """zlib data that inflates beyond the bytes allowed it (a decompression bomb, or a count
    declared too small): a reader that bounds it by more than one limit tells which was passed."""


def inflate(data: bytes, limit: int, where: str) -> bytes:
    """zlib-inflate ``data`` to at most ``limit`` bytes: :class:`InflatesBeyond` naming ``where``
    for more (a decompression bomb stops at the limit, never allocating beyond it), a
    ``ValueError`` for bad bytes."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error:
        raise ValueError(f"{where}: the bytes are not zlib data") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise InflatesBeyond(f"{where}: inflates beyond its declared {limit:,} bytes")
    if not inflater.eof:
        raise ValueError(f"{where}: the zlib data is cut short")
    return out


def _from_blob(field: object, shape: tuple, where: str) -> npt.NDArray[np.int64]:
    """An int64 array of a counts blob, of exactly ``shape`` (its size checked before inflating)."""
    size = 8 * math.prod(shape)
    if size > MAX_ARRAY_BYTES:
        raise ValueError(f"{where}: {size:,} bytes, more than a counts state holds ({MAX_ARRAY_BYTES:,})")
    if not (isinstance(field, dict) and field.get("dtype") == "int64" and isinstance(field.get("data"), str)):
        raise ValueError(f"{where}: not an int64 array of this layout")
    if field.get("shape") != list(shape):
        raise ValueError(f"{where}: shape {field.get('shape')!r}, expected {list(shape)}")
    if len(field["data"]) != 4 * math.ceil(size / 3):
        raise ValueError(
            f"{where}: {len(field['data']):,} base64 characters, expected {4 * math.ceil(size / 3):,}"
        )
    try:
        raw = base64.b64decode(field["data"], validate=True)
    except ValueError:
        raise ValueError(f"{where}: the data is not base64") from None
    if len(raw) != size:
        raise ValueError(f"{where}: {len(raw):,} bytes, expected {size:,}")
    return np.frombuffer(raw, dtype="<i8").astype(np.int64).reshape(shape)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_report(report: object, where: str) -> dict:
    """A decoding report's counts: nested dicts of non-negative ints."""
    if not isinstance(report, dict):
        raise ValueError(f"{where}: not a dict of counts")
    for key, value in report.items():
        if isinstance(value, dict):
            _check_report(value, f"{where}[{key!r}]")
        elif not _is_count(value):
            raise ValueError(f"{where}[{key!r}] is {value!r}, not a count")
    return report


def _read_counts(cls: type, data: bytes) -> CountsState:
    try:
        state = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, TypeError, ValueError, RecursionError):
        raise ValueError("not a counts state: its bytes are not the JSON of CountsState.to_bytes") from None
    if not isinstance(state, dict) or state.get("format") != COUNTS_FORMAT:
        raise ValueError(f"not a counts state: the format is not {COUNTS_FORMAT!r}")
    if state.get("version") != COUNTS_VERSION:
        raise ValueError(
            f"a counts state of layout {state.get('version')!r}; this metric reads [{COUNTS_VERSION}]"
        )
    settings, types = state.get("settings"), state.get("types")
    if settings is not None and not _valid_settings(settings):
        raise ValueError("counts state settings: not the settings of metric.state(keep='counts')")
    if not (
        isinstance(types, list) and all(isinstance(t, str) for t in types) and len(set(types)) == len(types)
    ):
        raise ValueError("counts state types: not a list of distinct type names")
    width = len(COLUMNS) * len(types)
    row = _from_blob(state.get("row"), (width,), "counts state row")
    resamples = None
    if settings is not None and settings["resamples"]:
        resamples = _from_blob(
            state.get("resamples"), (settings["resamples"], width), "counts state resamples"
        )
    elif state.get("resamples") is not None:
        raise ValueError("counts state resamples: present, but the settings ask for none")
    tokens, sentences, ids = _scalars(state)
    if (row < 0).any() or (resamples is not None and (resamples < 0).any()):
        raise ValueError("counts state: a negative count")
    decoding: Any = state.get("decoding")
    if settings is not None:
        _check_report(decoding, "counts state decoding")
        shape = {side: {*REPORT_KEYS[:3], "reasons"} for side in ("predictions", "references")}
        if {side: set(report) for side, report in decoding.items()} != shape or any(
            set(decoding[side]["reasons"]) != set(REASONS) for side in shape
        ):
            raise ValueError(
                f"counts state decoding: not the decoding report's counts {REPORT_KEYS} per side"
            )
    return cls(settings, tuple(types), row, tuple(tokens), decoding, resamples, sentences, *ids)


def _scalars(state: dict) -> tuple:
    """A counts state's tokens, sentences and (ranges, names), checked."""
    tokens, sentences = state.get("tokens"), state.get("sentences")
    if not (
        isinstance(tokens, list)
        and len(tokens) == 2
        and all(map(_is_count, tokens))
        and tokens[0] <= tokens[1]
    ):
        raise ValueError(f"counts state tokens: {tokens!r} is not [agreeing, real] token counts")
    if not _is_count(sentences):
        raise ValueError(f"counts state sentences: {sentences!r} is not a count")
    return tokens, sentences, read_ids(state.get("ranges"), state.get("names"))


def _valid_settings(settings: object) -> bool:
    return (
        isinstance(settings, dict)
        and set(settings) == {"config", "options", "units", "resamples", "seed"}
        and isinstance(settings["config"], str)
        and isinstance(settings["options"], str)
        and settings["units"] in UNIT_KINDS
        and _is_count(settings["resamples"])
        and settings["resamples"] <= 1_000_000
        and (settings["seed"] is None or _is_count(settings["seed"]))
    )


# ---------------------------------------------------------------------------- the metric's two calls


def _refuse(config: str, options: dict, checked: Any) -> None:
    """Raise naming what a counts state cannot give, for the options that ask for it."""
    if config in SPAN_CONFIGS or config in SUBGROUP_CONFIGS:
        raise ValueError(
            f"keep='counts' holds the seqeval and MUC counts of the tag configs; the {config!r} config needs"
            " every entity (its spans or subgroups): use keep='exact'"
        )
    for name, words in REFUSED.items():
        if options.get(name) not in (None, False):
            raise ValueError(f"keep='counts' cannot give {name}: {words}; use keep='exact'")
    held = supporting("counts_state")
    other = [f for f in checked.scoring.scores if f not in held]
    if other:
        raise ValueError(
            f"keep='counts' holds the counts of {list(held)}; scores asks for {other}: use keep='exact'"
        )
    if checked.intervals is not None and checked.intervals["seed"] is None:
        raise ValueError("keep='counts' needs a seed (an int): every partition must draw the same weights")


def _units(options: dict, sentence_ids: Any, first_sentence: int, n: int) -> tuple:
    """(unit kind, unit of each sentence, key of each unit, (ranges, names) of the ids held)."""
    ids = options.get("document_ids")
    if ids is not None and sentence_ids is not None:
        raise ValueError("give document_ids or sentence_ids, not both: the units are one or the other")
    if ids is not None:  # a document may span partitions: its id in two of them is one unit
        units, count = document_units(ids, n)
        first = np.full(count, -1, dtype=np.int64)
        first[units[::-1]] = np.arange(n - 1, -1, -1)
        values = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
        return "document_ids", units, unit_keys([values[i] for i in first], "document_ids"), ([], [])
    if sentence_ids is not None:
        if isinstance(sentence_ids, (str, bytes, dict)) or not hasattr(sentence_ids, "__len__"):
            raise ValueError(
                f"sentence_ids must be a list with one id per sentence; got {type(sentence_ids).__name__}"
            )
        if len(sentence_ids) != n:
            raise ValueError(f"sentence_ids has {len(sentence_ids)} ids but the partition has {n} sentences")
        keys = unit_keys(sentence_ids, "sentence_ids")
        return "sentence_ids", np.arange(n), keys, held_ids(sentence_ids)
    keys = np.arange(first_sentence, first_sentence + n, dtype=np.uint64)
    return "first_sentence", np.arange(n), keys, ([[first_sentence, first_sentence + n]], [])


def make_counts_state(
    config: str, predictions: object, references: object, first_sentence: int = 0, **options: object
) -> CountsState:
    """The :class:`CountsState` of one partition (``metric.state(..., keep="counts")``)."""
    sentence_ids = options.pop("sentence_ids", None)
    checked = check_options(config, options)
    _refuse(config, options, checked)
    resamples, seed = (checked.intervals or {}).get("resamples", 0), (checked.intervals or {}).get("seed")
    counted = fast_counts(predictions, references, options, checked, entries=bool(resamples))
    if counted is None:
        counted = _counted(predictions, references, checked, entries=bool(resamples))
    types, row, tokens, decoding, n, placed = counted
    kind, units, keys, ids = _units(options, sentence_ids, int(first_sentence), n)
    kept = {
        k: v for k, v in options.items() if k not in ("document_ids", "label_names", "ci_resamples", "seed")
    }
    settings = {
        "config": config,
        "options": json.dumps(kept, sort_keys=True),
        "units": kind,
        "resamples": resamples,
        "seed": seed,
    }
    sampled = None
    if resamples:
        width = len(COLUMNS) * len(types)
        sampled = resampled_rows(on_units(placed, units, width), keys, width, cast(int, seed), resamples)
    return CountsState(settings, types, row, tokens, decoding, sampled, n, *ids)


def _counted(predictions: object, references: object, checked: Any, entries: bool) -> tuple:
    """A counts state's parts on the general path, as ``ner_fast.fast_counts`` gives them."""
    corpus = tag_corpus(predictions, references, checked)
    if len(corpus.lengths) == 0:
        raise ValueError("no sentences: predictions and references are empty")
    gold = decode(corpus.references, corpus, checked.scheme)
    pred = decode(corpus.predictions, corpus, checked.scheme)
    view = build_view(corpus, gold, pred, checked)
    decoding = decoding_reports(corpus, pred, gold, checked.scheme, places=0)
    tokens = (int(view.selection.tokens_correct), int(view.tokens))
    placed = sentence_entries(view) if entries else None
    return view.types, view.row[0], tokens, decoding, len(corpus.lengths), placed


def _bias_corrected(
    samples: npt.NDArray[np.float64], estimate: npt.NDArray[np.float64], level: float
) -> np.ndarray:
    """Efron's bias-corrected percentile interval (BCa without the acceleration, which needs the
    jackknife of every unit): the percentile levels moved by ``z0``, the normal quantile of the
    share of resamples below the estimate."""
    normal, alpha = NormalDist(), (1 - level) / 2
    bounds = percentile_bounds(samples, estimate, level)
    for j in range(samples.shape[1]):
        s = samples[:, j][~np.isnan(samples[:, j])]
        below = (np.count_nonzero(s < estimate[j]) + 0.5 * np.count_nonzero(s == estimate[j])) / max(
            len(s), 1
        )
        if len(s) and 0 < below < 1 and np.ptp(s) > 0:
            z0 = normal.inv_cdf(below)
            levels = [normal.cdf(2 * z0 + normal.inv_cdf(q)) for q in (alpha, 1 - alpha)]
            bounds[:, j] = np.quantile(s, levels)
    return bounds


def counts_intervals(state: CountsState, method: str = "percentile") -> dict:
    """``results["intervals"]`` of a merged counts state with resamples: ``{score name: [low, high]}``."""
    assert state.resamples is not None  # finalize_counts asks only a state with resamples
    options = json.loads(cast(dict, state.settings)["options"])
    families = families_of(options.get("scores", INTERVAL_FAMILIES))
    beta, zero = float(options.get("beta", 1.0)), float(options.get("zero_division", 0))
    level = float(options.get("confidence_level", 0.95))
    present = present_types(state.row[None], len(state.types))
    names, estimate = score_table(state.row[None], state.types, families, beta, zero, present)
    samples = score_table(state.resamples, state.types, families, beta, zero, present, undefined=True)[1]
    bounds = (percentile_bounds if method == "percentile" else _bias_corrected)(samples, estimate[0], level)
    return {name: [float(bounds[0, j]), float(bounds[1, j])] for j, name in enumerate(names)}


#: how a counts state's signature names its units
UNIT_WORDS = {"document_ids": "doc", "sentence_ids": "sent", "first_sentence": "sent"}


def counts_signed(state: CountsState, options: dict, interval: str, table: dict) -> tuple:
    """(options, table) for the signature of a finalized counts state: its options and
    ``keep:counts.UNITS[.INTERVAL]`` (UNITS ``doc`` or ``sent``, INTERVAL ``percentile`` or
    ``bias_corrected`` with resamples), since its document ids are not hashed and its
    intervals are not ``compute``'s."""
    settings = cast(dict, state.settings)
    kind = f"counts.{UNIT_WORDS[settings['units']]}" + (f".{interval}" if settings["resamples"] else "")
    return {**options, "keep": kind}, {**table, "keep": "exact"}


def finalize_counts(config: str, state: CountsState, interval: str = "percentile") -> dict:
    """``compute``'s seqeval and MUC results, decoding counts and Poisson-bootstrap intervals of a
    merged counts state, in constant time."""
    if state.settings is None:
        raise ValueError("an empty counts state: no sentence to score")
    if state.settings["config"] != config:
        raise ValueError(f"a state of the {state.settings['config']!r} config; this metric is {config!r}")
    if interval not in INTERVAL_METHODS:
        raise ValueError(
            f"interval must be one of {list(INTERVAL_METHODS)} for a counts state; got {interval!r}"
            + (
                " (BCa's acceleration needs every unit: keep='exact')"
                if "bca" in str(interval).lower()
                else ""
            )
        )
    options = json.loads(cast(dict, state.settings)["options"])
    checked = check_options(
        config, {k: options[k] for k in ("zero_division", "beta", "scores") if k in options}
    )
    families = families_of(checked.scoring.scores)
    row, types = state.row[None], state.types
    derived = derive(row, types, families, checked.zero_division, checked.beta)
    results = {}
    if "seqeval" in families:
        tokens_correct, tokens = state.tokens
        results.update(
            seqeval_results(row, types, derived, tokens_correct, tokens, checked.zero_division, checked.beta)
        )
    if "muc" in families:
        results["muc"] = muc_results(row, types, derived, checked.beta)
    if state.resamples is not None:
        results["intervals"] = counts_intervals(state, interval)
    results["decoding"] = {
        side: _report(cast(dict, state.decoding)[side]) for side in ("predictions", "references")
    }
    return results


def _report(counts: dict) -> dict:
    """A decoding report's counts in ``compute``'s key order (the bytes sort their keys)."""
    out = {key: counts[key] for key in REPORT_KEYS}
    out["reasons"] = {reason: counts["reasons"][reason] for reason in REASONS}
    return out
