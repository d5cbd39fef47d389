"""The mergeable state: random corpora split into 1 to 50 partitions, merged in random order and
grouping, serialised in between, give every result key of one ``compute`` (intervals with the same
seed), in every config; mismatched options, overlapping or missing partitions and bad bytes are
named errors."""

import json
import random
import re
import zlib

import numpy as np
import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH

CONFIGS = ("default", "subgroups", "spans", "spans_subgroups")
OPTIONS = [
    {},
    {"scores": ["seqeval", "muc", "token", "overlap", "harem", "confusion"], "errors": True},
    {"ci_resamples": 30, "seed": 4, "document_ids": "docs"},
    {"label_map": {"C": "A"}, "types": ["A", "B"], "slices": "genre", "beta": 2.0},
]


@pytest.fixture(scope="module")
def metrics():
    import evaluate

    return {config: evaluate.load(METRIC_PATH, config) for config in CONFIGS}


def spans_of(metric, tags):
    return [[{"label": s.label, "start": s.start, "end": s.end} for s in metric.decode(t)] for t in tags]


def corpus(metrics, config, seed, n=120):
    references, predictions = random_corpus(seed, n, prefixes="OOOBIES", types="ABC")
    if config.startswith("spans"):
        references, predictions = (spans_of(metrics["default"], t) for t in (references, predictions))
    rng = random.Random(seed)
    columns = {
        "subgroups": [rng.choice("xyz") for _ in references],
        "docs": [i // 7 for i in range(n)],
        "genre": [rng.choice(["news", "web"]) for _ in references],
    }
    return predictions, references, columns


def resolved(options, columns, lo=None, hi=None):
    out = dict(options)
    for name, column in (("document_ids", "docs"), ("slices", "genre")):
        if out.get(name) == column:
            out[name] = columns[column][lo:hi]
    return out


def merge_randomly(states, rng):
    """Merge in random order and grouping, through bytes now and then."""
    pool = list(states)
    while len(pool) > 1:
        i, j = rng.sample(range(len(pool)), 2)
        merged = pool[i] + pool[j]
        if rng.random() < 0.5:
            merged = type(merged).from_bytes(merged.to_bytes())
        pool = [s for k, s in enumerate(pool) if k not in (i, j)] + [merged]
    return pool[0]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("case", range(len(OPTIONS)))
def test_merged_partitions_give_compute(metrics, config, case):
    metric, options = metrics[config], OPTIONS[case]
    rng = random.Random(case * 10 + CONFIGS.index(config))
    predictions, references, columns = corpus(metrics, config, seed=case)
    subgroups = config.endswith("subgroups")
    inputs = {"subgroups": columns["subgroups"]} if subgroups else {}
    whole = metric.compute(
        predictions=predictions, references=references, **inputs, **resolved(options, columns)
    )
    n = len(references)
    cuts = sorted(rng.sample(range(1, n), rng.randint(0, 49)))
    states = []
    for lo, hi in zip([0] + cuts, cuts + [n]):
        part = {"subgroups": columns["subgroups"][lo:hi]} if subgroups else {}
        states.append(
            metric.state(
                predictions=predictions[lo:hi],
                references=references[lo:hi],
                first_sentence=lo,
                **part,
                **resolved(options, columns, lo, hi),
            )
        )
    merged = merge_randomly(states + [metric.State()], rng)
    assert repr(metric.finalize(merged)) == repr(whole)


def test_states_with_other_options_do_not_merge(metrics):
    metric = metrics["default"]
    a = metric.state(predictions=[["B-A"]], references=[["B-A"]], first_sentence=0)
    b = metric.state(predictions=[["B-A"]], references=[["B-A"]], first_sentence=1, beta=2.0)
    with pytest.raises(
        ValueError, match=re.escape("states with different options: beta is None in one and 2.0")
    ):
        a + b


def test_overlapping_and_missing_partitions_are_named(metrics):
    metric = metrics["default"]
    a = metric.state(predictions=[["B-A"], ["O"]], references=[["B-A"], ["O"]], first_sentence=0)
    b = metric.state(predictions=[["B-A"]], references=[["O"]], first_sentence=1)
    with pytest.raises(
        ValueError, match="two states hold sentences 1 to 1: give each partition its own first_sentence"
    ):
        a + b
    c = metric.state(predictions=[["B-A"]], references=[["O"]], first_sentence=3)
    with pytest.raises(ValueError, match="the merged states miss sentences 2 to 2"):
        metric.finalize(a + c)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\xff", "not a state"),
        (b'{"format": "other"}', "not a state: the format is not"),
        (b'{"format": "ner_recall_metric.state", "version": 9}', "a state of layout version 9"),
        (
            b'{"format": "ner_recall_metric.state", "version": 1, "config": "default", "options": "{}", "blocks": [{"first_sentence": 0, "lengths": '
            b'{"dtype": "int64", "data": "%%%"}}]}',
            "state block 0 lengths: the array's bytes are not base64",
        ),
        (
            b'{"format": "ner_recall_metric.state", "version": 3, "config": "default", "options": "{}", "blocks": [{"first_sentence": 0, "lengths": '
            b'{"dtype": "uint8", "compression": "lz4", "data": "AA=="}}]}',
            "state block 0 lengths: compression 'lz4' is not one of ['zlib']",
        ),
        (
            b'{"format": "ner_recall_metric.state", "version": 3, "config": "default", "options": "{}", "blocks": [{"first_sentence": 0, "lengths": '
            b'{"dtype": "uint8", "compression": "zlib", "data": "AAAA"}}]}',
            "state block 0 lengths: the array's bytes are not base64 of zlib uint8 values",
        ),
    ],
)
def test_bad_bytes_are_named(metrics, data, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metrics["default"].State.from_bytes(data)


def test_an_empty_state_is_the_identity_and_merging_commutes(metrics):
    metric = metrics["spans"]
    gold = [[{"label": "A", "start": 0, "end": 2}], [{"label": "B", "start": 1, "end": 3}]]
    a = metric.state(predictions=gold[:1], references=gold[:1], first_sentence=0)
    b = metric.state(predictions=gold[1:], references=gold[1:], first_sentence=1)
    assert a + b == b + a and a + metric.State() == a and sum([a, b]) == a + b
    assert metric.finalize(a + b) == metric.compute(predictions=gold, references=gold)


def test_class_ids_with_label_names_and_ignored_positions(metrics):
    import numpy as np

    metric, names = metrics["default"], ["O", "B-PER", "I-PER", "B-LOC"]
    rng = np.random.default_rng(0)
    references, predictions = rng.integers(0, 4, size=(50, 7)), rng.integers(0, 4, size=(50, 7))
    references[:, -1] = predictions[:, -1] = -100  # padding, ignored on both sides
    whole = metric.compute(predictions=predictions, references=references, label_names=names)
    a = metric.state(predictions=predictions[:20], references=references[:20], label_names=names)
    b = metric.state(
        predictions=predictions[20:], references=references[20:], first_sentence=20, label_names=names
    )
    assert repr(metric.finalize(b + a)) == repr(whole)


@pytest.mark.parametrize("config", CONFIGS)
def test_ranking_and_buckets_merge_as_compute(metrics, config):
    """Scored predictions (span scores or token scores), the entity buckets with their tokens and
    training entities, and intervals: every key of the merged state's results equals compute's."""
    metric, rng = metrics[config], random.Random(CONFIGS.index(config))
    predictions, references, columns = corpus(metrics, config, seed=7)
    n = len(references)
    options = {"scores": ["seqeval", "muc", "ranking"], "ci_resamples": 20, "calibration_bins": 7}
    per_sentence = {}
    if config.startswith("spans"):
        predictions = [[dict(e, score=rng.random()) for e in p] for p in predictions]
        options["buckets"] = ["entity_length"]  # the others read texts, which these spans have not
    else:
        per_sentence["token_scores"] = [[rng.random() for _ in t] for t in predictions]
        per_sentence["tokens"] = [[rng.choice(["Anna", "x", "NATO"]) for _ in t] for t in predictions]
        options["buckets"] = ["entity_length", "capitalisation", "seen"]
        options["train_entities"] = [("A", "Anna"), ("B", "NATO x")]
    subgroups = config.endswith("subgroups")
    inputs = {"subgroups": columns["subgroups"]} if subgroups else {}
    whole = metric.compute(
        predictions=predictions, references=references, **inputs, **options, **per_sentence
    )
    cuts = sorted(rng.sample(range(1, n), 9))
    states = [
        metric.state(
            predictions=predictions[lo:hi],
            references=references[lo:hi],
            first_sentence=lo,
            **({"subgroups": columns["subgroups"][lo:hi]} if subgroups else {}),
            **options,
            **{name: column[lo:hi] for name, column in per_sentence.items()},
        )
        for lo, hi in zip([0] + cuts, cuts + [n])
    ]
    merged = merge_randomly(states, rng)
    assert "ranking" in whole and "buckets" in whole
    assert repr(metric.finalize(merged)) == repr(whole)


def test_arrays_take_the_smallest_type_and_older_layouts_still_read(metrics):
    """Tag codes are written as uint8 in the flat layout (a 0 after each sentence), zlib-compressed
    (layout 4); a state written by layout 3 (codes of the tokens only, any vocabulary order,
    compressed), 2 (not compressed) or 1 (every array int64) reads and finalizes the same."""
    import base64
    import json
    import zlib

    import numpy as np

    metric = metrics["default"]
    predictions, references, _ = corpus(metrics, "default", seed=3)
    state = metric.state(predictions=predictions, references=references)
    layout = json.loads(state.to_bytes())
    block = layout["blocks"][0]
    assert layout["version"] == 5 and block["vocabulary"][0] == "O"
    assert block["predictions"]["dtype"] == "uint8" and block["predictions"]["compression"] == "zlib"
    expected = metric.compute(predictions=predictions, references=references)

    def values(field):
        return np.frombuffer(zlib.decompress(base64.b64decode(field["data"])), dtype=field["dtype"])

    lengths = values(block["lengths"])
    real = np.ones(int(lengths.sum()) + len(lengths), dtype=bool)
    real[np.cumsum(lengths + 1) - 1] = False
    order = block["vocabulary"][::-1] + ["B-UNUSED"]  # layouts 1 to 3 took any vocabulary
    recode = np.array([order.index(t) for t in block["vocabulary"]], dtype=np.uint8)
    tokens = {name: recode[values(block[name])[real]] for name in ("predictions", "references")}
    sizes = {4: len(state.to_bytes())}
    for version, dtype, compressed in ((3, None, True), (2, None, False), (1, "<i8", False)):
        old = dict(block, vocabulary=order)
        for name, field in dict(tokens, lengths=lengths).items():
            raw = field.astype(dtype or field.dtype).tobytes()
            old[name] = {"dtype": "int64" if dtype else str(field.dtype)}
            old[name]["data"] = base64.b64encode(zlib.compress(raw, 1) if compressed else raw).decode()
            if compressed:
                old[name]["compression"] = "zlib"
        data = json.dumps(dict(layout, version=version, blocks=[old])).encode()
        assert repr(metric.finalize(metric.State.from_bytes(data))) == repr(expected), version
        sizes[version] = len(data)
    assert repr(metric.finalize(state)) == repr(expected)
    assert sizes[1] > 4 * sizes[2] and sizes[2] > sizes[3] and sizes[4] < 1.2 * sizes[3]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda b: b.update(vocabulary=b["vocabulary"][::-1]), "must list 'O' first and each tag once"),
        (lambda b: b.update(vocabulary=b["vocabulary"] + ["O"]), "must list 'O' first and each tag once"),
        (lambda b: b.update(vocabulary=["O"]), "predictions: not 7 codes of its 1 tags"),
        (lambda b: b.update(lengths=[2, 2]), "predictions: not 6 codes of its 4 tags (with a 0 after"),
        (
            lambda b: b.update(references=[1, 2, 0, 1, 0, 0, 0]),
            "references: a sentence not followed by the code 0",
        ),
        (lambda b: b.update(vocabulary=[1, 2, 3]), "the vocabulary is not a list of tags"),
        (lambda b: b.update(predictions=[1, 2, 0, 0, 0, -1, 0]), "predictions: not 7 codes of its 4 tags"),
        (lambda b: b.pop("kind") and b.update(predictions=[9] * 7), "predictions: not 7 codes of its 4 tags"),
    ],
)
def test_a_bad_tag_block_is_named(metrics, change, message):
    """A layout 4 tag block whose codes do not fit its vocabulary or lengths is a ValueError."""
    import json

    import numpy as np

    metric = metrics["default"]
    state = metric.state(
        predictions=[["B-A", "I-A", "O"], ["O", "B-B"]], references=[["B-A", "O", "O"], ["O", "O"]]
    )
    assert state.blocks[0]["predictions"].tolist() == [1, 2, 0, 0, 0, 3, 0]  # a 0 after each sentence
    block = dict(state.blocks[0])
    change(block)
    arrays = {name: np.asarray(block[name]) for name in ("predictions", "references", "lengths")}
    data = metric.State(state.config, state.options, {0: dict(block, **arrays)}).to_bytes()
    with pytest.raises(ValueError, match=re.escape("state block 0") + ".*" + re.escape(message)):
        metric.State.from_bytes(data)
    assert json.loads(data)["version"] == 5


def test_the_scale_out_table_is_the_bench_output():
    import os

    from conftest import ROOT

    with open(os.path.join(ROOT, "bench", "scale_out.md")) as f:
        bench = [line for line in f.read().splitlines() if line.startswith("|")]
    with open(os.path.join(ROOT, "docs", "speed.md")) as f:
        page = f.read()
    shown = page[page.index("<!-- scale-out -->") : page.index("<!-- /scale-out -->")]
    assert bench and [line for line in shown.splitlines() if line.startswith("|")] == bench


def test_entity_extras_travel_in_the_state_as_given():
    from ner_recall.state import exact as ner_state

    refs = [[{"label": "A", "start": 0, "end": 3, "fragments": [[0, 1], [2, 3]]}], []]
    preds = [
        [{"label": "A", "start": 0, "end": 1, "attributes": {"negated": True}}],
        [{"label": "B", "start": 0, "end": 1}],
    ]
    block = ner_state.span_block(preds, refs)
    state = ner_state.State.of("spans", {}, 0, block)
    back = ner_state.State.from_bytes(state.to_bytes())
    assert ner_state.merged_spans([back.blocks[0]]) == (preds, refs)


# ---------------------------------------------------------------------------- tampered blocks


def span_state_layout(metrics):
    gold = [[{"label": "A", "start": 0, "end": 2}], [{"label": "B", "start": 1, "end": 3}]]
    pred = [[{"label": "A", "start": 0, "end": 2, "attributes": {"x": 1}}], []]
    state = metrics["spans"].state(predictions=pred, references=gold)
    return json.loads(state.to_bytes())


def packed(values, dtype="int64"):
    raw = np.asarray(values, dtype=dtype).tobytes()
    return {"dtype": dtype, "count": len(values), "compression": "zlib", "data": b64(zlib.compress(raw))}


def b64(raw):
    import base64

    return base64.b64encode(raw).decode()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda b: b["gold"].__setitem__(3, packed([0, -1])), "gold: a label code outside 0 to 1"),
        (lambda b: b["gold"].__setitem__(3, packed([0, 2])), "gold: a label code outside 0 to 1"),
        (lambda b: b["gold"].__setitem__(0, packed([0, -1])), "gold: an example index outside 0 to 1"),
        (lambda b: b["gold"].__setitem__(0, packed([0, 2])), "gold: an example index outside 0 to 1"),
        (
            lambda b: b["gold"].__setitem__(1, packed([0, 1, 1])),
            "gold: columns of unequal length [2, 3, 2, 2]",
        ),
        (lambda b: b["gold"].pop(), "gold: not the four columns"),
        (lambda b: b.update(labels="AB"), "labels: not a list of labels"),
        (
            lambda b: b.update(gold_extras={"optional": [True]}),
            "gold_extras: ['optional']; a state's entities",
        ),
        (
            lambda b: b.update(pred_extras={"attributes": []}),
            "pred_extras['attributes']: not one value per entity",
        ),
        (lambda b: b.update(pred_scores=[0.5, 0.5]), "pred_scores: not one number per prediction"),
        (lambda b: b.update(kind="tag"), "kind 'tag' is not 'tags' or 'spans'"),
        (lambda b: b.update(lengths=packed([0, 0, 0])), "gold: columns"),  # an example more: checked
        (lambda b: b.update(lengths=packed([1, 0])), "lengths: a span block holds 0 per example"),
        (lambda b: b.update(texts=["a"]), "texts: not one value per sentence (2)"),
        (lambda b: b.update(first_sentence=-3), "first_sentence -3 is not a sentence number"),
    ],
)
def test_a_tampered_span_block_is_named(metrics, change, message):
    layout = span_state_layout(metrics)
    block = layout["blocks"][0]
    block["gold"] = list(block["gold"])
    change(block)
    data = json.dumps(layout).encode()
    if message == "gold: columns":  # three examples, their entities in range: no error, three examples
        assert metrics["spans"].State.from_bytes(data).sentences == 3
        return
    with pytest.raises(ValueError, match=re.escape(message)):
        metrics["spans"].State.from_bytes(data)


def tag_layout(metrics, predictions=None, references=None):
    references = references or [["B-A", "I-A"], ["O"], ["B-B"]]
    predictions = predictions or [["B-A", "O"], ["B-B"], ["B-B"]]
    return json.loads(metrics["default"].state(predictions=predictions, references=references).to_bytes())


def test_lengths_that_merge_sentences_are_named(metrics):
    layout = tag_layout(metrics)
    layout["blocks"][0]["lengths"] = packed([4, 1], "uint8")  # sentences 0 and 1 as one: same code count
    with pytest.raises(ValueError, match="lengths: their CRC-32 is not lengths_crc32"):
        metrics["default"].State.from_bytes(json.dumps(layout).encode())


def test_a_code_equal_to_the_vocabulary_size_is_named(metrics):
    layout = tag_layout(metrics)
    block = layout["blocks"][0]
    size = len(block["vocabulary"])
    block["predictions"] = packed([size, 0, 0, 3, 0, 3, 0], "uint8")
    with pytest.raises(ValueError, match=f"predictions: not 7 codes of its {size} tags"):
        metrics["default"].State.from_bytes(json.dumps(layout).encode())
    block["predictions"] = packed([size - 1, 0, 0, 3, 0, 3, 0], "uint8")
    metrics["default"].State.from_bytes(json.dumps(layout).encode())  # the largest code is fine


def test_more_than_256_tags_keep_their_names(metrics):
    metric = metrics["default"]
    tags = [[f"B-T{i}"] for i in range(300)]
    shifted = tags[1:] + tags[:1]
    parts = [
        metric.state(predictions=shifted[a:b], references=tags[a:b], first_sentence=a)
        for a, b in ((0, 150), (150, 300))
    ]
    back = metric.State.from_bytes(sum(parts).to_bytes())
    block = json.loads(parts[1].to_bytes())["blocks"][0]
    assert block["predictions"]["dtype"] == "uint8" and len(block["vocabulary"]) == 152
    expected = metric.compute(predictions=shifted, references=tags)
    got = metric.finalize(back)
    assert repr(got) == repr(expected) and got["T299"]["number"] == 1 and "T43" in got


def test_a_future_layout_is_refused(metrics):
    layout = tag_layout(metrics)
    layout["version"] = 6
    with pytest.raises(
        ValueError, match=re.escape("a state of layout version 6; this metric reads [1, 2, 3, 4, 5]")
    ):
        metrics["default"].State.from_bytes(json.dumps(layout).encode())


def test_a_decompression_bomb_stops_before_its_size(metrics, monkeypatch):
    from ner_recall.state import exact as ner_state

    layout = tag_layout(metrics)
    block = layout["blocks"][0]
    bomb = zlib.compress(bytes(50_000_000), 9)  # 49 KB inflating to 50 MB
    block["predictions"] = {"dtype": "uint8", "count": 9, "compression": "zlib", "data": b64(bomb)}
    with pytest.raises(ValueError, match="predictions: inflates beyond its declared 9 bytes"):
        ner_state.State.from_bytes(json.dumps(layout).encode())
    block["predictions"]["count"] = 50_000_000  # declared, but more than the state may hold
    monkeypatch.setattr(ner_state, "MAX_INFLATED", 1 << 20)
    with pytest.raises(ValueError, match="inflate beyond the 1,048,576 bytes a state may hold"):
        ner_state.State.from_bytes(json.dumps(layout).encode())
    old = dict(layout, version=4)  # no declared count: bounded by what the state may still hold
    old["blocks"][0]["predictions"].pop("count")
    with pytest.raises(ValueError, match="predictions: inflates beyond its declared 1,0"):
        ner_state.State.from_bytes(json.dumps(old).encode())


@pytest.mark.parametrize("seed", range(40))
def test_a_randomly_tampered_state_is_a_value_error_or_reads(metrics, seed):
    """Fields replaced by values of other types, removed or cut: a ValueError, never another exception."""
    rng = random.Random(seed)
    layout = span_state_layout(metrics) if seed % 2 else tag_layout(metrics)
    odd = [None, -1, 2**70, "x", [], {}, [1, "a"], {"dtype": "uint8"}, 1.5, True]
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                paths.append(path + [key])
                walk(value, path + [key])
        elif isinstance(node, list):
            for i, value in enumerate(node):
                paths.append(path + [i])
                walk(value, path + [i])

    walk(layout, [])
    for _ in range(3):
        path = rng.choice(paths)
        node = layout
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = rng.choice(odd)
        except (KeyError, IndexError, TypeError):
            pass
    metric = metrics["spans" if seed % 2 else "default"]
    try:
        state = metric.State.from_bytes(json.dumps(layout).encode())
        metric.finalize(state)
    except ValueError:
        pass


def test_partitions_with_different_slice_keys_are_named(metrics):
    metric = metrics["default"]
    a = metric.state(predictions=[["B-A"]], references=[["B-A"]], slices={"g": ["x"]})
    b = metric.state(predictions=[["B-A"]], references=[["O"]], first_sentence=1, slices={"h": ["y"]})
    with pytest.raises(
        ValueError, match=re.escape("different slices keys: ['g'] in one and ['h'] in another")
    ):
        metric.finalize(a + b)


HOW = [
    r"Spark rdd\.zipWithIndex\(\) \(first_sentence = the index of a partition's first row\)",
    r"dataset\.map\(lambda r, i: \{'index': i\}, with_indices=True\)",
    r"Dask the cumulative sum of the partitions' lengths \(bag\.map_partitions\(lambda p: \[len\(p\)\]\)",
    r"Ray an index column \(ds\.zip\(ray\.data\.range\(ds\.count\(\)\)\) adds 'id'\)",
    r"keep='counts' with sentence_ids, which needs no numbering",
]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("options", [{"first_sentence": -1}, {"first_sentence": "3"}, {"sentence_ids": [0]}])
def test_a_state_call_without_a_sentence_number_says_how_to_get_it(metrics, options, how):
    with pytest.raises(ValueError, match=how):
        metrics["default"].state(predictions=[["B-A"]], references=[["O"]], **options)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("where", ["gap", "overlap", "both at 0"])
def test_errors_that_need_first_sentence_say_how_to_get_it_on_each_engine(metrics, where, how):
    metric = metrics["default"]
    a = metric.state(predictions=[["B-A"], ["O"]], references=[["O"], ["O"]])  # first_sentence=0
    b = metric.state(
        predictions=[["B-A"]], references=[["O"]], first_sentence={"gap": 3, "overlap": 1}.get(where, 0)
    )
    with pytest.raises(ValueError, match=how):
        metric.finalize(a + b) if where == "gap" else a + b
    if where != "gap":
        with pytest.raises(ValueError, match=r"one block holds [01] to [01], the other [01] to [01]\)"):
            b + a
