"""A span block's examples bounded by its bytes: a state blob of a few KB cannot declare a
million empty examples (``ner_state.MAX_PACKED_EXAMPLES``), checked before anything is inflated
or allocated, while a state of as many examples, as ``State.to_bytes`` writes it, reads back."""

import base64
import json
import re
import tracemalloc
import zlib

import numpy as np
import pytest

from conftest import METRIC_PATH
from ner_recall import ner_state

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
