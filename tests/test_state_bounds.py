"""A block's sentences bounded by its bytes: a state blob of a few KB cannot declare a million
empty examples (span blocks: ``ner_state.MAX_PACKED_EXAMPLES``) or a million empty sentences (tag
blocks: ``ner_state.MAX_VALUES_PER_BYTE`` values a compressed byte), checked before anything is
inflated or allocated, while a state of as many, as ``State.to_bytes`` writes it, reads back."""

import base64
import json
import re
import tracemalloc
import zlib

import numpy as np
import pytest

from conftest import METRIC_PATH
from ner_recall.state import exact as ner_state

LIMIT = ner_state.MAX_PACKED_EXAMPLES


@pytest.fixture(scope="module")
def metrics():
    import evaluate

    return {config: evaluate.load(METRIC_PATH, config) for config in ("default", "spans")}


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def zeros(n: int, compressed: bool = True, count: bool = True) -> dict:
    """A lengths field of ``n`` zeros (uint8), zlib-compressed or written out, its count declared or not."""
    raw = bytes(n)
    field = {"dtype": "uint8", "data": b64(zlib.compress(raw, 9) if compressed else raw)}
    if compressed:
        field["compression"] = "zlib"
    if count:
        field["count"] = n
    return field


def span_layout(metrics, n_empty: int = 0) -> dict:
    gold = [[{"label": "A", "start": 0, "end": 2}]] + [[] for _ in range(n_empty)]
    pred = [[{"label": "A", "start": 0, "end": 2}]] + [[] for _ in range(n_empty)]
    return json.loads(metrics["spans"].state(predictions=pred, references=gold).to_bytes())


def blob(layout: dict, lengths: dict, version: int | None = None) -> bytes:
    layout = json.loads(json.dumps(layout))
    layout["blocks"][0]["lengths"] = lengths
    if version is not None:
        layout["version"] = version
    return json.dumps(layout).encode()


def test_two_kilobytes_declaring_a_million_empty_examples_are_refused_in_little_memory(metrics):
    data = blob(span_layout(metrics), zeros(10**6))
    assert len(data) < 3000  # the bomb: a million examples in a few KB
    tracemalloc.start()
    try:
        with pytest.raises(
            ValueError, match=re.escape("state block 0 lengths: 1,000,000 examples in compressed")
        ):
            ner_state.State.from_bytes(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200_000, peak  # nothing inflated: the declared count is refused first


def test_a_layout_without_counts_is_checked_as_read(metrics):
    data = blob(span_layout(metrics), zeros(10**6, count=False), version=4)
    with pytest.raises(ValueError, match="1,000,000 examples in compressed bytes"):
        ner_state.State.from_bytes(data)


@pytest.mark.parametrize("count", [True, False])
@pytest.mark.parametrize("n, refused", [(LIMIT - 1, False), (LIMIT, False), (LIMIT + 1, True)])
def test_the_bound_on_compressed_lengths_is_exact(metrics, n, refused, count):
    layout = span_layout(metrics)
    data = blob(layout, zeros(n, count=count), version=None if count else 4)
    if refused:
        with pytest.raises(
            ValueError, match=f"{n:,} examples in compressed bytes; a span block declares at most"
        ):
            ner_state.State.from_bytes(data)
    else:
        assert ner_state.State.from_bytes(data).sentences == n


def test_lengths_written_out_hold_any_number_of_examples(metrics):
    n = LIMIT * 3
    data = blob(span_layout(metrics), zeros(n, compressed=False))
    assert len(data) > n  # a byte (and a third in base64) an example
    assert ner_state.State.from_bytes(data).sentences == n


def test_a_state_of_many_empty_examples_writes_its_lengths_out_and_reads_back(metrics):
    n = LIMIT + 10
    layout = span_layout(metrics, n_empty=n - 1)
    lengths = layout["blocks"][0]["lengths"]
    assert "compression" not in lengths and lengths["count"] == n
    assert base64.b64decode(lengths["data"]) == bytes(n)
    back = ner_state.State.from_bytes(json.dumps(layout).encode())
    assert back.sentences == n and np.all(back.blocks[0]["lengths"] == 0)


def test_tag_blocks_keep_their_lengths_compressed(metrics):
    state = metrics["default"].state(predictions=[["B-A", "O"]] * 3, references=[["B-A", "O"]] * 3)
    block = json.loads(state.to_bytes())["blocks"][0]
    assert block["lengths"]["compression"] == "zlib" and block["predictions"]["compression"] == "zlib"


# ---------------------------------------------------------------------------- tag blocks

PER_BYTE = ner_state.MAX_VALUES_PER_BYTE


def tag_bomb(metrics, n: int, count: bool = True, version: int | None = None) -> bytes:
    """A tag block of ``n`` empty sentences: its lengths and each side's codes (an O after each
    sentence) ``n`` zeros, zlib level 9, the CRC-32 of its lengths right: valid but for its size."""
    layout = json.loads(metrics["default"].state(predictions=[["O"]], references=[["O"]]).to_bytes())
    block = layout["blocks"][0]
    for name in ("lengths", "predictions", "references"):
        block[name] = zeros(n, count=count)
    block["lengths_crc32"] = zlib.crc32(np.zeros(n, dtype="<i8").tobytes())
    if version is not None:
        layout["version"] = version
    return json.dumps(layout).encode()


def peak_of_refusal(data: bytes, message: str) -> int:
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=message):
            ner_state.State.from_bytes(data)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_tag_block_of_a_million_empty_sentences_in_4_kb_is_refused_in_little_memory(metrics):
    data = tag_bomb(metrics, 10**6)
    assert len(data) < 4500  # three arrays of a million zeros, about 1 KB each
    message = re.escape(
        f"state block 0 lengths: 1,000,000 values in 991 compressed bytes; a tag block's arrays hold at most"
        f" {PER_BYTE} values a compressed byte (ner_state.MAX_VALUES_PER_BYTE"
    )
    assert peak_of_refusal(data, message) < 200_000  # nothing inflated: the declared count is refused first


def test_the_tag_bomb_is_refused_by_the_bound_alone(metrics, monkeypatch):
    monkeypatch.setattr(ner_state, "MAX_VALUES_PER_BYTE", 10**4)
    assert ner_state.State.from_bytes(tag_bomb(metrics, 10**6)).sentences == 10**6


def test_a_tag_layout_without_counts_inflates_no_more_than_its_bound(metrics):
    data = tag_bomb(metrics, 10**6, count=False, version=4)
    message = re.escape(f"state block 0 lengths: more than {PER_BYTE * 991:,} values in 991 compressed bytes")
    assert peak_of_refusal(data, message) < 4 * PER_BYTE * 991  # the bound, not the million


@pytest.mark.parametrize("extra, refused", [(-1, False), (0, False), (1, True)])
def test_the_bound_on_a_tag_arrays_values_is_exact(extra, refused):
    field = zeros(10**6)
    compressed = len(base64.b64decode(field["data"]))
    field["count"] = PER_BYTE * compressed + extra
    with pytest.raises(ValueError) as error:
        ner_state._from_array(field, "state block 0 lengths", None, PER_BYTE)
    assert ("values a compressed byte" in str(error.value)) == refused, error.value
    assert refused or "inflates beyond its declared" in str(error.value)  # read up to its count


@pytest.mark.parametrize(
    "sentences",
    [
        [[]] * 10**6,  # the most a level-1 zlib packs: every array a run of zeros
        [["O"]] * 10**6,
        [["B-PER", "I-PER", "O", "B-LOC"][: 1 + k % 4] + ["O"] * (k % 37) for k in range(200_000)],
    ],
    ids=["empty", "one-O", "varied"],
)
def test_large_tag_states_of_to_bytes_read_back(metrics, sentences):
    state = metrics["default"].state(predictions=sentences, references=sentences)
    data = state.to_bytes()
    for name in ("lengths", "predictions", "references"):
        field = json.loads(data)["blocks"][0][name]
        assert field["count"] < PER_BYTE * len(base64.b64decode(field["data"]))
    back = ner_state.State.from_bytes(data)
    assert back.sentences == len(sentences) and back.to_bytes() == data
