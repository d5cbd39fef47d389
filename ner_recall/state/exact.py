"""A mergeable state: score a corpus in partitions (Spark, Ray, Dask, torch.distributed), merge.

``metric.state(predictions=..., references=..., first_sentence=k, **options)`` turns one partition
into a :class:`State`: its sentences as tag codes and a vocabulary of tags (or its entity spans),
numbered from ``first_sentence``, with the options. States merge with ``+``: associative and
commutative, an empty ``State()`` the identity; two states must hold the same config and options
and never the same sentence (a ``ValueError`` names the option or the sentences). ``to_bytes`` and
``from_bytes`` write and read a versioned JSON layout (no pickle). ``metric.finalize(state)`` scores
the merged partitions, which must hold the sentences 0 to n - 1, and gives what ``compute`` gives on
the whole corpus, to the bit: the pipeline runs once, on the same codes, so every family, interval
(same seed) and stratified recall is the same.

Size: a state grows with the tokens (a tag code per token and side, and a 0 after each sentence: one
byte while there are at most 256 distinct tags, compressed, in base64), not with the tags' text; span
states with the entities. ``keep="counts"`` makes a :class:`ner_counts_state.CountsState` instead: counts
and Poisson-bootstrap resamples of constant size, without the error listing, slices or BCa intervals,
which need the sentences.

>>> a = State.of("default", {}, 0, {"kind": "tags", "vocabulary": ["O", "B-PER"], "predictions": [1, 0, 0],
...                                   "references": [1, 0, 0], "lengths": [2]})
>>> b = State.of("default", {}, 1, {"kind": "tags", "vocabulary": ["O", "B-LOC"], "predictions": [0, 0],
...                                   "references": [1, 0], "lengths": [1]})
>>> merged = State.from_bytes((b + a + State()).to_bytes())
>>> merged.sentences, sorted(merged.blocks)
(2, [0, 1])
"""

import base64
import json
import zlib
from functools import partial
from typing import Any, cast

import numpy as np

from ner_recall.core.decoding import codes_seen, corpus_from_flat, dense_codes, flat_layout, take_by_steps
from ner_recall.core.doubt import has_doubt
from ner_recall.core.progress import steps
from ner_recall.core.spans import encode_spans, split_extras
from ner_recall.core.vocabulary import PARALLEL_POSITIONS, side_by_side
from ner_recall.families.discontinuous import refuse_fragments
from ner_recall.families.table import reserved_keys
from ner_recall.pipeline.compute import score_spans, score_tags, tag_corpus
from ner_recall.pipeline.options import SPAN_CONFIGS, SUBGROUP_CONFIGS, check_options, check_subgroups
from ner_recall.readers.model_outputs import spans_from_outputs
from ner_recall.state.counts import (
    COUNTS_FORMAT,
    INTERVAL_METHODS,
    KEEPS,
    CountsState,
    InflatesBeyond,
    finalize_counts,
    inflate,
    make_counts_state,
)

STATE_FORMAT = "ner_recall_metric.state"
#: 4: tag codes in the flat layout (a code 0, ``O``, after each sentence), the vocabulary ``O``
#: first and then only tags that occur; 3: arrays zlib-compressed (level 1) before base64; 2: arrays
#: in the smallest of uint8, uint16, int32, int64 that holds them; 1: int64
STATE_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)
#: 5: each array declares its ``count`` of values (checked before inflating, inflated with that
#: bound) and each tag block the CRC-32 of its lengths (``lengths_crc32``: lengths that merge or
#: split sentences are named)
#: the most bytes the arrays of one state inflate to (a decompression bomb stops here)
MAX_INFLATED = 1 << 31
#: how the array bytes of a layout may be compressed (layout 3 writes zlib; 1 and 2 wrote none)
COMPRESSIONS = ("zlib",)
#: the array types of the layout, smallest first, with their bounds
DTYPES = {
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
#: per-sentence columns a state carries besides the inputs: an input of the subgroup configs, and
#: two options of compute that hold one value per sentence
STATE_COLUMNS = ("subgroups", "document_ids", "slices", "texts", "tokens", "token_scores")
_ARRAYS = ("lengths", "predictions", "references")  # lengths first: a block's sentences are checked first
#: bytes of a block's arrays from which they are read in threads
_PARALLEL_BYTES = 1 << 20


def _array(values, compress=True):
    """An integer array as the layout writes it: its type (the smallest that holds its values) and
    its little-endian bytes, zlib-compressed (level 1: tag codes are mostly ``O``, about a
    quarter of their size; ``compress=False``: as they are), in base64."""
    values = np.asarray(values)
    low, high = (int(values.min()), int(values.max())) if len(values) else (0, 0)
    dtype = next(name for name, (a, b) in DTYPES.items() if a <= low and high <= b)
    raw = values.astype(np.dtype(dtype).newbyteorder("<")).tobytes()
    if not compress:
        return {"dtype": dtype, "count": len(values), "data": base64.b64encode(raw).decode("ascii")}
    return {
        "dtype": dtype,
        "count": len(values),
        "compression": "zlib",
        "data": base64.b64encode(zlib.compress(raw, 1)).decode("ascii"),
    }


def _from_array(field, where, budget=None, per_byte=None):
    """The integer array of a layout field, in its own type; its declared ``count`` (layout 5)
    checked against ``budget`` (a one-item list of the bytes the state may still inflate to)
    before inflating, and inflating bounded by it; with ``per_byte``, compressed bytes hold at
    most that many values each (checked before inflating, or bounding it without a count)."""
    if not (isinstance(field, dict) and field.get("dtype") in DTYPES and isinstance(field.get("data"), str)):
        raise ValueError(f"{where}: not an integer array of this layout")
    compression = field.get("compression")
    if compression is not None and compression not in COMPRESSIONS:
        raise ValueError(f"{where}: compression {compression!r} is not one of {list(COMPRESSIONS)}")
    itemsize = np.dtype(field["dtype"]).itemsize
    budget = [MAX_INFLATED] if budget is None else budget
    count = field.get("count")
    if count is not None and not (isinstance(count, int) and not isinstance(count, bool) and count >= 0):
        raise ValueError(f"{where}: count {count!r} is not a number of values")
    limit = budget[0] if count is None else count * itemsize
    if limit > budget[0]:
        raise ValueError(
            f"{where}: {count:,} values ({limit:,} bytes) inflate beyond the {MAX_INFLATED:,} bytes a state"
            " may hold (ner_state.MAX_INFLATED; keep='counts' holds any corpus in constant size)"
        )
    try:
        data = base64.b64decode(field["data"], validate=True)
    except ValueError:
        raise ValueError(f"{where}: the array's bytes are not base64") from None
    bad = f"{where}: the array's bytes are not base64 of {compression or 'uncompressed'} {field['dtype']} values"
    if compression == "zlib":
        dense = _check_density(count, len(data), per_byte, where)
        try:
            data = inflate(data, limit if dense is None else min(limit, dense * itemsize), where)
        except InflatesBeyond as error:
            if dense is not None and dense * itemsize < limit:  # the density bounded it, not a count
                raise _density_error(f"more than {dense:,}", len(data), per_byte, where) from None
            raise error from None
        except ValueError:
            raise ValueError(bad) from None
    if (count is not None and len(data) != limit) or len(data) % itemsize:
        raise ValueError(bad + ("" if count is None else f" ({count:,} declared)"))
    budget[0] -= len(data)
    values = np.frombuffer(data, dtype=np.dtype(field["dtype"]).newbyteorder("<"))
    return values.astype(field["dtype"], copy=False)  # a copy only on a big-endian machine


#: the most values a tag block's array declares per byte of its compressed bytes: a block's
#: sentences are tied to the bytes given (each sentence a value of its lengths and, from layout 4,
#: of each side's codes); ``State.to_bytes`` compresses at level 1, which packs fewer even on runs
#: of one value (a million empty sentences read back: ``tests/test_state_bounds.py``), where the
#: level 9 of a crafted state packs about 1,000 (a million empty sentences in 4 KB, refused)
MAX_VALUES_PER_BYTE = 256


def _check_density(count, compressed, per_byte, where):
    """The values ``compressed`` bytes may hold under ``per_byte`` (None: unbounded); a
    ``ValueError`` naming ``where`` and the bound when ``count`` declares more."""
    if per_byte is None:
        return None
    if count is not None and count > per_byte * compressed:
        raise _density_error(f"{count:,}", compressed, per_byte, where)
    return per_byte * compressed


def _density_error(values, compressed, per_byte, where):
    return ValueError(
        f"{where}: {values} values in {compressed:,} compressed bytes; a tag block's arrays hold at most"
        f" {per_byte} values a compressed byte (ner_state.MAX_VALUES_PER_BYTE; State.to_bytes packs"
        " fewer), so its sentences are bounded by its bytes"
    )


class State:
    """The partitions scored so far: ``blocks`` maps each partition's first sentence to its data."""

    def __init__(
        self, config: str | None = None, options: str | None = None, blocks: dict | None = None
    ) -> None:
        self.config, self.options, self.blocks = config, options, dict(blocks or {})

    @classmethod
    def of(cls, config: str, options: dict, first_sentence: int, block: dict) -> "State":
        return cls(config, json.dumps(options, sort_keys=True), {int(first_sentence): block})

    @property
    def sentences(self) -> int:
        return sum(len(b["lengths"]) for b in self.blocks.values())

    def __radd__(self, other: object) -> "State":  # sum(states) starts from 0
        return self if other == 0 else NotImplemented

    def __add__(self, other: object) -> "State":
        if not isinstance(other, State):
            return NotImplemented
        if not self.blocks or not other.blocks:
            return State(
                self.config or other.config, self.options or other.options, {**self.blocks, **other.blocks}
            )
        if self.config != other.config:
            raise ValueError(
                f"states of different configs merge into nothing: {self.config!r} and {other.config!r}"
            )
        if self.options != other.options:
            raise ValueError(f"states with different options: {_difference(self.options, other.options)}")
        _check_disjoint(self.blocks, other.blocks)
        return State(self.config, self.options, {**self.blocks, **other.blocks})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_bytes() == other.to_bytes()

    def to_bytes(self) -> bytes:
        blocks = []
        for first in sorted(self.blocks):
            block = dict(self.blocks[first], first_sentence=first)
            if block.get("kind", "tags") == "tags":
                block["lengths_crc32"] = _crc(block["lengths"])
            spans = block.get("kind") == "spans"  # its lengths written out: its bytes bound its examples
            for name in _ARRAYS + ("gold", "pred"):
                if name in block and not isinstance(block[name], dict):
                    block[name] = (
                        _array(block[name], compress=not (spans and name == "lengths"))
                        if name in _ARRAYS
                        else [_array(c) for c in block[name]]
                    )
            blocks.append(block)
        state = {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "config": self.config,
            "options": self.options,
            "blocks": blocks,
        }
        return json.dumps(state, sort_keys=True, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> "State | CountsState":
        """The state :meth:`to_bytes` wrote (or a counts state's bytes); anything else, tampered
        or too large, a ``ValueError`` naming the block and field."""
        try:
            state = json.loads(bytes(data).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, TypeError, ValueError, RecursionError):
            raise ValueError("not a state: its bytes are not the JSON of State.to_bytes") from None
        if isinstance(state, dict) and state.get("format") == COUNTS_FORMAT:
            return CountsState.from_bytes(data)
        _check_header(state)
        budget = [MAX_INFLATED]
        blocks = {}
        with steps(len(state["blocks"]), "state blocks") as done:  # each inflated and checked
            for k, block in enumerate(state["blocks"]):
                first, blocks_k = _read_block(block, state["version"], f"state block {k}", budget)
                blocks[first] = blocks_k
                done.advance()
        out = cls(state["config"], state["options"], {})
        for first, block in blocks.items():  # checked one by one: overlapping blocks are an error
            _check_disjoint(out.blocks, {first: block})
            out.blocks[first] = block
        return out


def _crc(lengths) -> int:
    return zlib.crc32(np.asarray(lengths, dtype="<i8").tobytes())


def _check_header(state) -> None:
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise ValueError(f"not a state: the format is not {STATE_FORMAT!r}")
    if state.get("version") not in READABLE_VERSIONS:
        raise ValueError(
            f"a state of layout version {state.get('version')!r}; this metric reads {list(READABLE_VERSIONS)}"
        )
    state.setdefault("blocks", [])
    if not isinstance(state["blocks"], list):
        raise ValueError("state blocks: not a list of blocks")
    config, options = state.get("config"), state.get("options")
    if state["blocks"] and not (isinstance(config, str) and isinstance(options, str)):
        raise ValueError("state config and options: not the str config and JSON options of metric.state")
    if isinstance(options, str):
        try:
            parsed = json.loads(options)
        except (json.JSONDecodeError, RecursionError):
            parsed = None
        if not isinstance(parsed, dict):
            raise ValueError("state options: not the JSON of a dict of options")
    state.setdefault("config", None), state.setdefault("options", None)


def _read_block(block, version, where, budget):
    """(first sentence, block) of one block of the layout, every field checked."""
    if not isinstance(block, dict) or not isinstance(block.get("first_sentence"), int):
        raise ValueError(f"{where}: no first_sentence")
    block = dict(block)
    first = block.pop("first_sentence")
    if isinstance(first, bool) or first < 0:
        raise ValueError(f"{where}: first_sentence {first!r} is not a sentence number")
    kind = block.get("kind", "tags")  # blocks of layout 1 had no kind
    if kind not in ("tags", "spans"):
        raise ValueError(f"{where}: kind {kind!r} is not 'tags' or 'spans'")
    if kind == "spans":
        _check_span_examples(block.get("lengths"), None, where)
    per_byte = MAX_VALUES_PER_BYTE if kind == "tags" else None  # a span block's lengths bound its examples
    names = [name for name in _ARRAYS if name in block]
    large = sum(len(str(block[name].get("data", ""))) for name in names if isinstance(block[name], dict))
    arrays = side_by_side(  # zlib and base64 release the GIL: large blocks read in two threads
        [partial(_from_array, block[name], f"{where} {name}", budget, per_byte) for name in names],
        parallel=large >= _PARALLEL_BYTES,
    )
    fields = {name: block[name] for name in names}
    block.update(zip(names, arrays))
    if not isinstance(block.get("lengths"), np.ndarray) or len(block["lengths"]) == 0:
        raise ValueError(f"{where}: holds no sentence")
    if kind == "spans" and fields["lengths"].get("count") is None:  # a layout before counts: checked as read
        _check_span_examples(fields["lengths"], block["lengths"], where)
    if kind == "tags":
        _check_crc(block, version, where)
        block = _flat_block(block, version, where)
    else:
        block = _span_columns(block, where, budget)
    _check_columns(block, where)
    return first, block


#: the most examples a span block declares in compressed lengths: its lengths are all 0, so 2 KB of
#: zlib would declare a million empty examples; beyond this, the lengths are written out, a byte an
#: example (as ``State.to_bytes`` writes a span block's), and the block's bytes bound its examples
MAX_PACKED_EXAMPLES = 1 << 16


def _check_span_examples(lengths, read, where):
    """A span block's examples against what its bytes hold: compressed lengths declare at most
    :data:`MAX_PACKED_EXAMPLES` (their declared ``count`` checked before inflating; ``read``: the
    lengths as read, for a layout that declared no count)."""
    if not isinstance(lengths, dict) or lengths.get("compression") is None:
        return  # written out (each example a byte of the block), or not an array (named when read)
    count = lengths.get("count") if read is None else len(read)
    if isinstance(count, int) and not isinstance(count, bool) and count > MAX_PACKED_EXAMPLES:
        raise ValueError(
            f"{where} lengths: {count:,} examples in compressed bytes; a span block declares at most"
            f" {MAX_PACKED_EXAMPLES:,} so (ner_state.MAX_PACKED_EXAMPLES), more with its lengths written"
            " out, a byte an example, as State.to_bytes writes them"
        )


def _check_crc(block, version, where):
    crc = block.pop("lengths_crc32", None)
    if version >= 5 and crc != _crc(block["lengths"]):
        raise ValueError(
            f"{where} lengths: their CRC-32 is not lengths_crc32 (lengths changed after the state was made:"
            " sentences merged or split)"
        )


#: the entity extras a span block may carry (doubt such as ``optional`` is resolved by compute,
#: never held; fragments are refused when the state is made)
STATE_EXTRAS = ("attributes", "fragments")


def _span_columns(block, where, budget):
    """A span block with its columns checked: labels, per side four equal columns (example in
    range, label code in range), scores and extras one per prediction or entity."""
    labels, n = block.get("labels"), len(block["lengths"])
    if not (isinstance(labels, list) and all(isinstance(t, str) for t in labels)):
        raise ValueError(f"{where} labels: not a list of labels")
    if np.any(block["lengths"] != 0):
        raise ValueError(f"{where} lengths: a span block holds 0 per example")
    for side in ("pred", "gold"):
        columns = block.get(side)
        if not (isinstance(columns, list) and len(columns) == 4):
            raise ValueError(f"{where} {side}: not the four columns (example, start, end, label)")
        block[side] = [_from_array(c, f"{where} {side}", budget) for c in columns]
        example, start, end, label = block[side]
        if len({len(c) for c in block[side]}) != 1:
            raise ValueError(f"{where} {side}: columns of unequal length {[len(c) for c in block[side]]}")
        if len(example) and (example.min() < 0 or example.max() >= n):
            raise ValueError(f"{where} {side}: an example index outside 0 to {n - 1}")
        if len(label) and (label.min() < 0 or label.max() >= len(labels)):
            raise ValueError(f"{where} {side}: a label code outside 0 to {len(labels) - 1}")
        _check_extras(block, side, len(example), where)
    scores = block.get("pred_scores")
    if scores is not None and not (
        isinstance(scores, list)
        and len(scores) == len(block["pred"][0])
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in scores)
    ):
        raise ValueError(f"{where} pred_scores: not one number per prediction")
    return block


def _check_extras(block, side, count, where):
    extras = block.get(f"{side}_extras")
    if extras is None:
        return
    if not isinstance(extras, dict) or not set(extras) <= set(STATE_EXTRAS):
        keys = sorted(extras) if isinstance(extras, dict) else extras
        raise ValueError(
            f"{where} {side}_extras: {keys!r}; a state's entities carry only {list(STATE_EXTRAS)}"
        )
    for key, values in extras.items():
        if not (isinstance(values, list) and len(values) == count):
            raise ValueError(f"{where} {side}_extras[{key!r}]: not one value per entity ({count})")


def _check_columns(block, where):
    """The per-sentence columns of a block: one value per sentence (slices: per key)."""
    n = len(block["lengths"])
    for name in STATE_COLUMNS:
        if name not in block:
            continue
        column = block[name]
        if name == "slices":
            if not (isinstance(column, dict) and column):
                raise ValueError(f"{where} slices: not a dict of one value list per key")
            bad = [k for k, v in column.items() if not (isinstance(v, list) and len(v) == n)]
        else:
            bad = [] if isinstance(column, list) and len(column) == n else [None]
        if bad:
            at = "" if bad[0] is None else f"[{bad[0]!r}]"
            raise ValueError(f"{where} {name}{at}: not one value per sentence ({n})")


def _difference(a, b):
    a, b = json.loads(a), json.loads(b)
    name = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[0]
    return f"{name} is {a.get(name)!r} in one and {b.get(name)!r} in the other"


#: how to number sentences on each engine, for the errors that need first_sentence
FIRST_SENTENCE_HOW = (
    "; to number sentences: Spark rdd.zipWithIndex() (first_sentence = the index of a partition's first"
    " row), a datasets index column (dataset.map(lambda r, i: {'index': i}, with_indices=True)), Dask"
    " the cumulative sum of the partitions' lengths (bag.map_partitions(lambda p: [len(p)]).compute()),"
    " Ray an index column (ds.zip(ray.data.range(ds.count())) adds 'id'); or keep='counts' with"
    " sentence_ids, which needs no numbering"
)


def _ranges(blocks):
    return sorted((first, first + len(b["lengths"])) for first, b in blocks.items())


def _check_disjoint(a, b):
    for lo, hi in _ranges(a):
        for lo2, hi2 in _ranges(b):
            if lo < hi2 and lo2 < hi:
                raise ValueError(
                    f"two states hold sentences {max(lo, lo2)} to {min(hi, hi2) - 1}: give each partition its"
                    f" own first_sentence (the number of sentences before it; one block holds {lo} to {hi - 1},"
                    f" the other {lo2} to {hi2 - 1})" + FIRST_SENTENCE_HOW
                )


def check_whole(state: object) -> list:
    """The blocks in order; raise unless they hold the sentences 0 to n - 1, each once."""
    if not isinstance(state, State):
        raise ValueError(
            f"finalize takes a State (metric.state, or State.from_bytes); got {type(state).__name__}"
        )
    if not state.blocks:
        raise ValueError("an empty state: no sentence to score")
    expected = 0
    for lo, hi in _ranges(state.blocks):
        if lo != expected:
            raise ValueError(
                f"the merged states miss sentences {expected} to {lo - 1}: merge every partition first"
                + FIRST_SENTENCE_HOW
            )
        expected = hi
    return [state.blocks[first] for first in sorted(state.blocks)]


# ---------------------------------------------------------------------------- tags and spans


def tag_block(corpus: Any) -> dict:
    """The block of a tag partition, from its :class:`ner_decoding.EncodedCorpus`: the tag of
    each code (``O`` first, then only tags that occur), both sides' codes in the flat layout
    (a 0 after each sentence), the lengths."""
    return {
        "kind": "tags",
        "vocabulary": list(corpus.tags),
        "predictions": corpus.predictions,
        "references": corpus.references,
        "lengths": np.asarray(corpus.lengths, dtype=np.int64),
    }


def _flat_block(block, version, where):
    """A tag block as layout 4 holds it: older layouts' codes (any vocabulary, no sentinels) are
    made dense and laid out flat; a layout 4 block is checked (a ``ValueError`` names it)."""
    vocabulary, lengths = block.get("vocabulary"), block["lengths"]
    if not (isinstance(vocabulary, list) and all(isinstance(t, str) for t in vocabulary)):
        raise ValueError(f"{where}: the vocabulary is not a list of tags")
    tokens = int(lengths.sum()) + (len(lengths) if version >= 4 else 0)
    for name in ("predictions", "references"):
        codes = block.get(name)
        fits = codes is not None and len(codes) == tokens
        if fits and len(codes):
            fits = int(codes.min()) >= 0 and int(codes.max()) < len(vocabulary)
        if not fits:
            raise ValueError(
                f"{where} {name}: not {tokens} codes of its {len(vocabulary)} tags"
                + (" (with a 0 after each sentence)" if version >= 4 else "")
            )
    if lengths.min(initial=0) < 0:
        raise ValueError(f"{where} lengths: a negative length")
    if version < 4:
        tags, pred, ref = dense_codes(vocabulary, block["predictions"], block["references"])
        return dict(
            block,
            vocabulary=tags,
            predictions=flat_layout(pred, lengths),
            references=flat_layout(ref, lengths),
        )
    if vocabulary[:1] != ["O"] or len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"{where}: the vocabulary must list 'O' first and each tag once")
    ends = np.cumsum(lengths + 1) - 1
    for name in ("predictions", "references"):
        if np.any(block[name][ends] != 0):
            raise ValueError(f"{where} {name}: a sentence not followed by the code 0 (O)")
    return block


def merged_flat(blocks: list) -> tuple:
    """(tags, predictions, references, lengths) of the tag blocks end to end, in one vocabulary
    (``O`` first, only tags that occur), in the flat layout: each block's codes mapped into
    place (both sides in two threads on a large corpus)."""
    index: dict[str, int] = {"O": 0}
    for block in blocks:
        for tag in block["vocabulary"]:
            index.setdefault(tag, len(index))
    dtype = np.uint8 if len(index) <= 256 else np.int32
    tables: list = [np.array([index[t] for t in block["vocabulary"]], dtype=dtype) for block in blocks]
    tables = [None if np.array_equal(t, np.arange(len(t))) else t for t in tables]  # None: codes as they are
    ends = np.cumsum([len(block["predictions"]) for block in blocks]).tolist()

    def side(name):
        out = np.empty(ends[-1], dtype=dtype)
        for block, table, a, b in zip(blocks, tables, [0] + ends[:-1], ends):
            if table is None:
                out[a:b] = block[name]
            else:
                take_by_steps(table, block[name], out[a:b])
        return out, codes_seen(out, len(index))

    (pred, pred_used), (ref, ref_used) = side_by_side(
        [lambda: side("predictions"), lambda: side("references")], parallel=ends[-1] >= PARALLEL_POSITIONS
    )
    tags = list(index)
    if not (pred_used | ref_used).all():  # a block listed a tag that never occurs: codes made dense
        tags, pred, ref = dense_codes(tags, pred, ref, pred_used | ref_used)
    return tags, pred, ref, np.concatenate([block["lengths"] for block in blocks])


def span_block(predictions: list, references: list, scored: bool = False) -> dict:
    """The block of a span partition: per side the (example, start, end, label code) columns; with
    ``scored``, each prediction's score (``pred_scores``, floats: JSON keeps them exactly)."""
    index: dict = {}
    sides, extras = [], {}
    for name, side in (("pred", predictions), ("gold", references)):
        side, found = split_extras(side, "predictions" if name == "pred" else "references", scored)
        if found is not None:  # per extra key, each entity's value (None: none), JSON as given
            extras[f"{name}_extras"] = found.values
        rows = [
            (i, e["start"], e["end"], index.setdefault(e["label"], len(index)))
            for i, ex in enumerate(side)
            for e in ex
        ]
        sides.append([np.array([r[k] for r in rows], dtype=np.int64) for k in range(4)])
    labels = list(index)
    block = {
        "kind": "spans",
        "labels": labels,
        "pred": sides[0],
        "gold": sides[1],
        "lengths": np.zeros(len(references), dtype=np.int64),
    }
    if scored:
        block["pred_scores"] = [float(e["score"]) for ex in predictions for e in ex]
    block.update(extras)
    return block


def merged_spans(blocks: list) -> tuple:
    """Both sides as lists of entity dicts per example, the blocks end to end."""
    out: dict[str, list] = {"predictions": [], "references": []}
    for block in blocks:
        n = len(block["lengths"])
        for side, name in (("pred", "predictions"), ("gold", "references")):
            examples: list[list[dict]] = [[] for _ in range(n)]
            example, start, end, label = block[side]
            scores = block.get("pred_scores") if side == "pred" else None
            extras = block.get(f"{side}_extras", {})
            for k, (i, s, e, c) in enumerate(
                zip(example.tolist(), start.tolist(), end.tolist(), label.tolist())
            ):
                entity = {"label": block["labels"][c], "start": s, "end": e}
                if scores is not None:
                    entity["score"] = scores[k]
                entity.update({key: values[k] for key, values in extras.items() if values[k] is not None})
                examples[i].append(entity)
            out[name] += examples
    return out["predictions"], out["references"]


def merged_columns(blocks: list) -> dict:
    """The per-sentence columns the blocks carry, end to end (a column absent from every block: None)."""
    out: dict[str, Any] = {}
    for name in STATE_COLUMNS:
        present = [name in b for b in blocks]
        if not any(present):
            continue
        if not all(present):
            raise ValueError(f"some partitions carry {name} and others not: give it to every partition")
        if name == "slices":
            keys = blocks[0][name].keys()
            other = next((b[name].keys() for b in blocks if b[name].keys() != keys), None)
            if other is not None:
                raise ValueError(
                    f"partitions with different slices keys: {sorted(keys)} in one and {sorted(other)} in"
                    " another; give every partition the same keys"
                )
            out[name] = {k: [v for b in blocks for v in b[name][k]] for k in keys}
        else:
            out[name] = [v for b in blocks for v in b[name]]
    return out


# ---------------------------------------------------------------------------- the metric's two calls


def make_state(
    config: str,
    predictions: object,
    references: object,
    first_sentence: int = 0,
    subgroups: object = None,
    keep: str = "exact",
    **options: object,
) -> "State | CountsState":
    """The :class:`State` of one partition, validated as ``compute`` validates its inputs; with
    ``keep="counts"`` a :class:`ner_counts_state.CountsState` of constant size."""
    if keep not in KEEPS:
        raise ValueError(f"keep must be one of {list(KEEPS)}; got {keep!r}")
    if not (
        isinstance(first_sentence, (int, np.integer))
        and not isinstance(first_sentence, bool)
        and first_sentence >= 0
    ):
        raise ValueError(
            f"first_sentence must be a non-negative int (the sentences before the partition); "
            f"got {first_sentence!r}" + FIRST_SENTENCE_HOW
        )
    if keep == "counts":
        if subgroups is not None:
            raise ValueError("keep='counts' holds no subgroups (the stratified recall needs every entity)")
        return make_counts_state(config, predictions, references, first_sentence, **options)
    if "sentence_ids" in options:
        raise ValueError(
            "sentence_ids name the units of keep='counts'; the exact state numbers its sentences from"
            " first_sentence" + FIRST_SENTENCE_HOW
        )
    checked = check_options(config, options)
    columns = _columns(config, options, subgroups, checked)
    kept = {k: v for k, v in options.items() if k not in STATE_COLUMNS}
    block = _partition_block(config, predictions, references, checked)
    _check_column_lengths(columns, checked, len(block["lengths"]))
    block.update({k: v for k, v in columns.items() if v is not None})
    return State.of(config, kept, int(first_sentence), block)


def _partition_block(config, predictions, references, checked):
    """A partition's tag or span block, with every check of ``compute``."""
    if config not in SPAN_CONFIGS:
        return tag_block(tag_corpus(predictions, references, checked))
    if has_doubt(references):
        raise ValueError(
            "references hold doubt (alternatives, vague labels or optional entities): compute resolves"
            " it for the predictions; a state holds plain entities (resolve each partition with"
            " compute, or give the resolved references)"
        )
    scored = checked.ranking is not None
    predictions = spans_from_outputs(predictions, "predictions", checked.texts, scored)  # model output
    references = spans_from_outputs(references, "references", checked.texts)
    for name, side in (("predictions", predictions), ("references", references)):
        refuse_fragments(side, name, "the state (it stores label, start and end)")
    encode_spans(predictions, references, reserved_keys(), checked.texts, scored)  # every check of compute
    return span_block(predictions, references, scored)


def _check_column_lengths(columns, checked, n):
    for name, column in columns.items():
        if column is not None and name != "slices" and len(column) != n:
            raise ValueError(f"{name} has {len(column)} values but the partition has {n} sentences")
    for key, values in (checked.slices or {}).items():
        if len(values) != n:
            raise ValueError(f"slices[{key!r}] has {len(values)} values but the partition has {n} sentences")


def _columns(config, options, subgroups, checked):
    """The per-sentence columns of a partition, as JSON holds them (str or int values)."""
    columns: dict[str, list | dict[str, list]] = {}  # slices: a list per key; the others: one list
    if config in SUBGROUP_CONFIGS:
        check_subgroups(subgroups, "subgroups")
        columns["subgroups"] = list(subgroups)
    elif subgroups is not None:
        raise ValueError("subgroups needs the 'subgroups' config: evaluate.load(path, 'subgroups')")
    ids = options.get("document_ids")
    if ids is not None:
        ids = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
        bad = next(
            (i for i, v in enumerate(ids) if not isinstance(v, (str, int)) or isinstance(v, bool)), None
        )
        if bad is not None:
            raise ValueError(f"document_ids[{bad}] is {ids[bad]!r}; a state holds str or int document ids")
        columns["document_ids"] = ids
    if checked.slices:
        columns["slices"] = {
            k: [int(v) if isinstance(v, np.integer) else v for v in values]
            for k, values in checked.slices.items()
        }
    if checked.texts is not None:
        columns["texts"] = list(checked.texts)
    for name in ("tokens", "token_scores"):  # per sentence a list (validated when finalized)
        column = options.get(name)
        if column is not None:
            if isinstance(column, (str, bytes)) or not isinstance(column, (list, tuple)):
                raise ValueError(
                    f"{name} must be a list with one list per sentence; got {type(column).__name__}"
                )
            columns[name] = [
                list(map(_plain, row)) if isinstance(row, (list, tuple)) else row for row in column
            ]
    return columns


def _plain(value):
    """A numpy number as the Python number JSON writes (a float keeps its value exactly)."""
    return value.item() if isinstance(value, np.generic) else value


def finalize_state(config: str, state: "State | CountsState", interval: str = "percentile") -> dict:
    """``compute``'s results on the sentences of the merged ``state`` (a counts state: its counts'
    results, with ``interval`` the method of its intervals)."""
    if isinstance(state, CountsState):
        return finalize_counts(config, state, interval)
    if interval != INTERVAL_METHODS[0]:
        raise ValueError(
            f"interval={interval!r} is for a counts state; an exact state's intervals are compute's"
            " (expanded BCa)"
        )
    blocks = check_whole(state)
    if state.config != config:
        raise ValueError(f"a state of the {state.config!r} config; this metric is {config!r}")
    options = json.loads(cast(str, state.options))
    columns = merged_columns(blocks)
    subgroups = columns.pop("subgroups", None)
    checked = check_options(config, {**options, **columns})
    if config in SPAN_CONFIGS:
        predictions, references = merged_spans(blocks)
        return score_spans(predictions, references, checked, subgroups)
    tags, predictions, references, lengths = merged_flat(blocks)
    corpus = corpus_from_flat(
        tags, predictions, references, lengths, suffix=checked.suffix, scheme=checked.scheme
    )
    return score_tags(corpus, checked, subgroups)[0]
