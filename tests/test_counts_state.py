"""The counts state (``keep="counts"``): random corpora split into random partitions and merged in
random order give the same bytes and results; its point results are ``compute``'s to the bit; its
size does not grow with the corpus; the Poisson weights are Poisson(1), keyed by seed, unit and
resample alone; what counts cannot give, bad merges and tampered bytes are named errors."""

import base64
import json
import math
import random
import re
import zlib

import numpy as np
import pytest
from test_parity import random_corpus

from ner_recall.state import counts as C
from ner_recall.state import unit_ids as ner_unit_ids

SETTINGS = [
    {},
    {"ci_resamples": 50, "seed": 3},
    {"ci_resamples": 40, "seed": 1, "document_ids": "docs"},
    {"ci_resamples": 40, "seed": 2, "sentence_ids": "ids"},
    {"ci_resamples": 30, "seed": 4, "sentence_ids": "ints"},
    {"types": ["C", "A"], "label_map": {"B": "A"}, "beta": 2.0, "zero_division": 1},
    {"scheme": "IOBES", "mode": "strict", "scores": ["muc"], "ci_resamples": 20, "seed": 0},
]


def corpus(seed, n=150):
    references, predictions = random_corpus(seed, n, prefixes="OOOBIES", types="ABC")
    rng = random.Random(seed)
    docs, doc = [], 0
    for _ in references:
        doc += rng.random() < 0.2
        docs.append(f"d{doc}" if doc % 3 else doc)  # str and int ids
    ids, ints = [f"s{i}" for i in range(n)], list(range(1000, 1000 + n))
    rng.shuffle(ids)
    rng.shuffle(ints)  # each partition holds many runs of int ids, their union one
    return references, predictions, {"docs": docs, "ids": ids, "ints": ints}


def options_of(setting, columns, a, b):
    out = {}
    for key, value in setting.items():
        if key == "document_ids":
            out[key] = columns[value][a:b]
        elif key == "sentence_ids":
            out[key] = columns[value][a:b]
        else:
            out[key] = value
    return out


def cuts(rng, n, k):
    points = sorted(rng.sample(range(1, n), k - 1))
    return list(zip([0] + points, points + [n]))


def states(metric, refs, preds, columns, setting, parts):
    return [
        metric.state(
            predictions=preds[a:b],
            references=refs[a:b],
            first_sentence=a,
            keep="counts",
            **options_of(setting, columns, a, b),
        )
        for a, b in parts
    ]


def merged(metric, rng, parts):
    """Merge in a random order and grouping, through bytes on the way."""
    parts = list(parts)
    while len(parts) > 1:
        rng.shuffle(parts)
        a, b = parts.pop(), parts.pop()
        parts.append(metric.State.from_bytes((a + b).to_bytes()))
    return parts[0]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: ",".join(s) or "defaults")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_any_partition_gives_the_same_bits(metric, setting, seed):
    refs, preds, columns = corpus(seed)
    rng = random.Random(seed)
    blobs, results = set(), set()
    for k in (1, 2, 5, 17):
        state = merged(metric, rng, states(metric, refs, preds, columns, setting, cuts(rng, len(refs), k)))
        blobs.add(state.to_bytes())
        results.add(json.dumps(metric.finalize(state), sort_keys=True))
    assert len(blobs) == 1 and len(results) == 1


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: ",".join(s) or "defaults")
def test_point_results_are_compute_to_the_bit(metric, setting):
    refs, preds, columns = corpus(7)
    state = sum(states(metric, refs, preds, columns, setting, [(0, 60), (60, 150)]))
    got = metric.finalize(metric.State.from_bytes(state.to_bytes()))
    given = {k: v for k, v in options_of(setting, columns, 0, 150).items() if k != "sentence_ids"}
    want = metric.compute(predictions=preds, references=refs, **given)
    for key in ("intervals", "documents"):
        assert (key in got) == (key == "intervals" and "ci_resamples" in setting)
        got.pop(key, None), want.pop(key, None)
    units = "doc" if "document_ids" in setting else "sent"  # the ids stay with the partitions: no hash
    kind = f"|keep:counts.{units}" + (".percentile" if "ci_resamples" in setting else "")
    assert got.pop("signature") == re.sub(r"\|doc#\w+", "", want.pop("signature")) + kind
    assert json.dumps(got) == json.dumps(want)  # the key order too


def test_intervals_hold_the_estimate_and_follow_the_method(metric):
    refs, preds, _ = corpus(3, 400)
    state = metric.state(predictions=preds, references=refs, keep="counts", ci_resamples=400, seed=5)
    point, percentile = metric.finalize(state), metric.finalize(state)["intervals"]
    corrected = metric.finalize(state, interval="bias_corrected")["intervals"]
    assert set(percentile) == set(
        metric.compute(predictions=preds, references=refs, ci_resamples=20)["intervals"]
    )
    for name in ("overall_f1", "overall_precision", "muc_partial_recall"):
        value = point[name] if name.startswith("overall") else point["muc"]["partial"]["recall"]
        assert percentile[name][0] <= value <= percentile[name][1]
    assert any(percentile[n] != corrected[n] for n in percentile)
    exact = metric.compute(predictions=preds, references=refs, ci_resamples=400, seed=5)["intervals"]
    for name in ("overall_f1", "overall_recall"):  # two bootstraps of the same sentences
        assert abs(exact[name][0] - percentile[name][0]) < 0.03
        assert abs(exact[name][1] - percentile[name][1]) < 0.03


def test_the_size_does_not_grow_with_the_corpus(metric):
    sizes = []
    for n in (200, 2000):
        refs, preds = random_corpus(n, n, prefixes="OOBI", types="ABCD")
        state = metric.state(predictions=preds, references=refs, keep="counts", ci_resamples=100, seed=0)
        sizes.append(len(state.to_bytes()))
    assert max(sizes) / min(sizes) < 1.1


def test_the_largest_state_is_under_4_mb(metric):
    types = [f"T{i:02d}" for i in range(20)]
    rng = random.Random(0)
    refs = [[f"B-{t}", "O"] for t in types] * 10
    preds = [[rng.choice(["O", f"B-{rng.choice(types)}", f"I-{rng.choice(types)}"]), "O"] for _ in refs]
    state = metric.state(predictions=preds, references=refs, keep="counts", ci_resamples=1000, seed=0)
    assert len(state.types) == 20 and state.resamples.shape == (1000, 160)
    assert len(state.to_bytes()) <= 4 * 2**20


# ---------------------------------------------------------------------------- the generator


def test_the_table_is_poisson_1():
    counts = np.bincount(C.POISSON_TABLE, minlength=12)
    pmf = [math.exp(-1) / math.factorial(k) for k in range(12)]
    assert np.all(np.abs(counts / 2**16 - pmf) <= 2**-16)
    assert C.POISSON_TABLE[0] == 0 and C.POISSON_TABLE[-1] == 8  # the inverse CDF rises to the tail


def test_the_table_is_pinned():
    """Made at import (no mutant reaches it), so pinned whole: 2**16 uint8 values, rising, value k at
    the midpoints u = (i + 1/2) / 2**16 from P(X < k) to P(X <= k) of Poisson(1)."""
    table = C.POISSON_TABLE
    assert table.dtype == np.uint8 and table.shape == (1 << 16,) and np.all(np.diff(table.astype(int)) >= 0)
    assert np.bincount(table).tolist() == [24109, 24110, 12054, 4019, 1004, 201, 34, 4, 1]
    cdf = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(9)])
    first = [int(np.ceil(c * (1 << 16) - 0.5)) for c in cdf[:-1]]  # the first i with u >= P(X <= k)
    assert np.searchsorted(table, np.arange(1, 9)).tolist() == first


def test_weights_are_poisson_and_keyed_by_unit_seed_and_resample():
    keys = C.unit_keys(list(range(2000)), "ids")
    w = C.poisson_weights(keys, seed=0, resamples=1000)
    freq = np.bincount(w.ravel(), minlength=10)[:6] / w.size
    assert np.allclose(freq, [math.exp(-1) / math.factorial(k) for k in range(6)], atol=3e-3)
    assert abs(np.corrcoef(w[:, 0], w[:, 1])[0, 1]) < 0.1  # resamples independent
    assert abs(np.corrcoef(w[:-1, 5], w[1:, 5])[0, 1]) < 0.1  # neighbouring units independent
    # a unit's weights depend on its key alone: any order, any company
    picked = [17, 3, 1999, 0]
    assert np.array_equal(C.poisson_weights(keys[picked], 0, 1000), w[picked])
    assert np.array_equal(C.poisson_weights(keys, 0, 7), w[:, :7])  # the first resamples are the same
    assert not np.array_equal(C.poisson_weights(keys, 1, 1000), w)


@pytest.mark.parametrize(
    "ids, same",
    [
        ([1, "1"], False),
        ([2**70, str(2**70)], False),
        ([-1, 2**64 - 1], False),  # an int beyond int64 by its text
        ([5, np.int64(5)], True),
        (["é", "é"], True),
    ],
)
def test_unit_keys(ids, same):
    keys = C.unit_keys(ids, "ids")
    assert (keys[0] == keys[1]) == same


def test_long_ids_sharing_a_prefix_are_two_units():
    """The whole id is hashed: ids that share their first 64 KiB (or more) are two units."""
    prefix = "x" * (1 << 17)
    keys = C.unit_keys([prefix + "a", prefix + "b", prefix + "a", 2**64 + 1, 2**64 + 2], "ids")
    assert keys[0] != keys[1] and keys[0] == keys[2] and keys[3] != keys[4]


@pytest.mark.parametrize("bad", [True, 1.5, None, b"x", (1,)])
def test_unit_keys_refuse_other_ids(bad):
    with pytest.raises(ValueError, match=r"ids\[1\] is .*a unit id is a str or an int"):
        C.unit_keys([1, bad], "ids")


@pytest.mark.parametrize("seed", range(5))
def test_unit_patterns_are_the_distinct_rows(seed):
    rng = np.random.default_rng(seed)
    width, units = 6, 50
    entries = rng.integers(0, units * width, 300) * (rng.random(300) < 0.9)
    got_units, pattern, rows = C.unit_patterns(entries, width)
    dense = np.bincount(entries, minlength=units * width).reshape(units, width)
    assert np.array_equal(got_units, np.flatnonzero(dense.any(axis=1)))
    assert np.array_equal(rows[pattern], dense[got_units])
    assert len(np.unique(rows, axis=0)) == len(rows)


def test_resampled_rows_are_weighted_sums():
    rng = np.random.default_rng(0)
    width, units = 4, 700
    entries = rng.integers(0, units * width, 2000)
    keys = C.unit_keys(list(range(units)), "ids")
    got = C.resampled_rows(entries, keys, width, seed=9, resamples=13)
    dense = np.bincount(entries, minlength=units * width).reshape(units, width)
    assert np.array_equal(got, C.poisson_weights(keys, 9, 13).T.astype(np.int64) @ dense)


# ---------------------------------------------------------------------------- what counts cannot give


@pytest.mark.parametrize(
    "options, words",
    [
        ({"errors": True}, "cannot give errors: the error listing"),
        ({"slices": ["a", "b"]}, "cannot give slices"),
        ({"buckets": ["entity_length"]}, "cannot give buckets"),
        ({"scores": ["seqeval", "token"]}, r"scores asks for \['token'\]"),
        ({"ci_resamples": 10, "seed": None}, "needs a seed"),
        ({"document_ids": [1, 2], "sentence_ids": ["a", "b"]}, "not both"),
        ({"sentence_ids": ["a"]}, "sentence_ids has 1 ids but the partition has 2"),
        ({"sentence_ids": ["a", "a"]}, r"sentence_ids\[0\] and sentence_ids\[1\] are both 'a'"),
        ({"sentence_ids": "ab"}, "sentence_ids must be a list"),
    ],
)
def test_what_counts_cannot_give_is_named(metric, options, words):
    refs = [["B-A", "O"], ["O", "B-B"]]
    with pytest.raises(ValueError, match=words):
        metric.state(predictions=refs, references=refs, keep="counts", **options)


def test_configs_and_methods_counts_cannot_serve(metric):
    import evaluate

    from conftest import METRIC_PATH

    spans = evaluate.load(METRIC_PATH, "spans")
    with pytest.raises(ValueError, match="the 'spans' config needs every entity"):
        spans.state(predictions=[[]], references=[[]], keep="counts")
    with pytest.raises(ValueError, match="keep must be one of"):
        metric.state(predictions=[["O"]], references=[["O"]], keep="sums")
    state = metric.state(predictions=[["B-A"]], references=[["B-A"]], keep="counts", ci_resamples=5, seed=0)
    with pytest.raises(ValueError, match="BCa's acceleration needs every unit"):
        metric.finalize(state, interval="bca")
    with pytest.raises(ValueError, match="interval='bias_corrected' is for a counts state"):
        metric.finalize(metric.state(predictions=[["O"]], references=[["O"]]), interval="bias_corrected")
    with pytest.raises(ValueError, match="sentence_ids name the units of keep='counts'"):
        metric.state(predictions=[["O"]], references=[["O"]], sentence_ids=["a"])


# ---------------------------------------------------------------------------- bad merges


def one(metric, first=0, keep="counts", **options):
    refs = [["B-A", "O"], ["B-B", "I-B"]]
    return metric.state(predictions=refs, references=refs, first_sentence=first, keep=keep, **options)


@pytest.mark.parametrize(
    "a, b, words",
    [
        (
            {"ci_resamples": 5, "seed": 1},
            {"ci_resamples": 5, "seed": 2},
            "seed is 1 in one and 2 in the other",
        ),
        ({"ci_resamples": 5, "seed": 1}, {"ci_resamples": 6, "seed": 1}, "resamples is 5 in one and 6 in"),
        ({"ci_resamples": 5, "seed": 1}, {}, "resamples is 5 in one and 0 in the other"),
        ({"types": ["A"]}, {"types": ["B"]}, r"types is \['A'\] in one and \['B'\] in the other"),
        ({"types": ["A"]}, {}, r"types is \['A'\] in one and 'its default' in the other"),
        ({"scores": ["muc"]}, {}, r"scores is \['muc'\] in one and 'its default' in the other"),
        ({"label_map": {"B": "A"}}, {}, r"label_map is \{'B': 'A'\} in one and 'its default' in the other"),
        ({"beta": 2.0}, {"beta": 0.5}, "beta is 2.0 in one and 0.5 in the other"),
        ({"sentence_ids": ["x", "y"]}, {}, "units is 'sentence_ids' in one and 'first_sentence'"),
        ({"document_ids": ["x", "y"]}, {"sentence_ids": ["x", "y"]}, "units is 'document_ids' in one and"),
    ],
)
def test_states_that_do_not_merge_name_both_sides(metric, a, b, words):
    with pytest.raises(ValueError, match=words):
        one(metric, 0, **a) + one(metric, 2, **b)


def test_counts_and_exact_states_do_not_merge(metric):
    for left, right in ((one(metric), one(metric, 2, "exact")), (one(metric, 0, "exact"), one(metric, 2))):
        with pytest.raises(
            ValueError, match=r"a counts state \(keep='counts'\) and an exact state \(keep='exact'\)"
        ):
            left + right


def test_a_sentence_held_twice_is_named(metric):
    with pytest.raises(
        ValueError, match="two states hold sentences 1 to 1: one holds sentences 0 to 1, the other 1 to 2"
    ):
        one(metric, 0) + one(metric, 1)
    with pytest.raises(ValueError, match="two states hold sentences 0 to 1"):
        one(metric, 0) + one(metric, 0)
    merged = one(metric, 4) + one(metric, 0) + one(metric, 2)
    assert merged.ranges == [[0, 6]] and merged.names == [] and merged.sentences == 6


@pytest.mark.parametrize(
    "ids, words",
    [
        ([7, 7], r"sentence_ids\[0\] and sentence_ids\[1\] are both 7"),
        (["a", "a"], r"sentence_ids\[0\] and sentence_ids\[1\] are both 'a'"),
        ([np.int64(3), 3], r"sentence_ids\[0\] and sentence_ids\[1\] are both 3"),
    ],
)
def test_a_sentence_id_given_twice_in_a_partition_is_named(metric, ids, words):
    with pytest.raises(ValueError, match=words):
        one(metric, sentence_ids=ids)


@pytest.mark.parametrize(
    "a, b, words",
    [
        (
            [1, 2],
            [2, 3],
            "two states hold sentence_ids 2 to 2: one holds sentence_ids 1 to 2, the other 2 to 3",
        ),
        ([5, 1], [1, 9], "sentence_ids 1 to 1: one holds sentence_ids 1, 5, the other 1, 9"),
        (["x", "y"], ["z", "y"], "sentence_ids 'y': one holds sentence_ids 'x', 'y', the other 'y', 'z'"),
        ([0, "y"], ["y", 1], "sentence_ids 'y': one holds sentence_ids 0, 'y', the other 1, 'y'"),
    ],
)
def test_a_sentence_id_given_in_two_partitions_is_named_with_both(metric, a, b, words):
    with pytest.raises(ValueError, match=words):
        one(metric, sentence_ids=a) + one(metric, sentence_ids=b)
    with pytest.raises(ValueError, match="give each sentence its own id"):
        one(metric, sentence_ids=b) + metric.State.from_bytes(one(metric, sentence_ids=a).to_bytes())


def test_ids_that_differ_are_never_refused(metric):
    """No false error: an int and its text, and long ids that share their first 64 KB (and so
    their 64-bit key), are different ids."""
    long = "x" * (1 << 16)
    state = one(metric, sentence_ids=[long + "a", long + "b"]) + one(metric, sentence_ids=[3, "3"])
    assert state.sentences == 4 and state.ranges == [[3, 4]] and state.names == ["3", long + "a", long + "b"]
    assert (one(metric, sentence_ids=[3, "3"]) + one(metric, sentence_ids=["03", 4])).names == ["03", "3"]


def test_past_the_slots_ids_are_not_held_and_merges_stay_the_same_bits(metric):
    many = [f"id{i}" for i in range(ner_unit_ids.MAX_ID_SLOTS + 2)]
    refs = [["B-A"]] * len(many)
    big = metric.state(predictions=refs, references=refs, keep="counts", sentence_ids=many)
    small = [one(metric, sentence_ids=[f"a{k}", f"b{k}"]) for k in range(3)]
    assert big.ranges is None and big.names is None and "ranges" in json.loads(big.to_bytes())
    orders = [big + small[0] + small[1] + small[2], small[2] + (small[1] + (small[0] + big))]
    assert orders[0].to_bytes() == orders[1].to_bytes() and orders[0].sentences == len(many) + 6
    # what it no longer holds is not checked: an id of the big state given again merges
    assert (big + one(metric, sentence_ids=["id0", "z"])).names is None
    assert ner_unit_ids.id_slots([[0, 5]], ["a" * 40]) == 1 + 1 + len('"' + "a" * 40 + '"') // 16


def test_document_ids_repeat_across_partitions_by_design(metric):
    state = one(metric, document_ids=["d", "e"]) + one(metric, document_ids=["e", "d"])
    assert state.sentences == 4 and state.ranges == [] and state.names == []


def test_a_document_split_across_partitions_weighs_the_same(metric):
    refs, preds, _ = corpus(5, 60)
    docs = [i // 7 for i in range(60)]
    whole = metric.state(
        predictions=preds, references=refs, keep="counts", ci_resamples=30, seed=0, document_ids=docs
    )
    parts = [
        metric.state(
            predictions=preds[a:b],
            references=refs[a:b],
            keep="counts",
            ci_resamples=30,
            seed=0,
            document_ids=docs[a:b],
        )
        for a, b in ((0, 10), (10, 11), (11, 60))
    ]
    assert sum(parts).to_bytes() == whole.to_bytes()


@pytest.mark.parametrize(
    "options, interval, part",
    [
        ({}, "percentile", "|keep:counts.sent"),
        (
            {"sentence_ids": ["a", "b"], "ci_resamples": 5, "seed": 0},
            "percentile",
            "|keep:counts.sent.percentile",
        ),
        ({"document_ids": ["a", "a"]}, "percentile", "|keep:counts.doc"),
        (
            {"document_ids": [1, 2], "ci_resamples": 5, "seed": 0},
            "bias_corrected",
            "|keep:counts.doc.bias_corrected",
        ),
    ],
)
def test_the_signature_names_the_units_and_the_interval(metric, options, interval, part):
    signature = metric.finalize(one(metric, **options), interval=interval)["signature"]
    assert signature.endswith(part) and "doc#" not in signature  # document ids are not hashed
    with pytest.raises(ValueError, match=re.escape(f"cannot read {part[1:]!r}")):
        metric.options_from_signature(signature)  # compute cannot give a counts state's numbers


def test_the_empty_state_is_the_identity(metric):
    state = one(metric, 0, ci_resamples=5, seed=0)
    assert (metric.CountsState() + state) == state == (state + metric.CountsState()) == sum([state])
    with pytest.raises(ValueError, match="an empty counts state"):
        metric.finalize(metric.CountsState())


# ---------------------------------------------------------------------------- tampered bytes


def tampered(metric, edit):
    state = json.loads(one(metric, 0, ci_resamples=5, seed=0).to_bytes())
    edit(state)
    return json.dumps(state).encode()


def blob(values, shape=None, raw=None):
    data = raw if raw is not None else np.asarray(values, dtype="<i8").tobytes()
    shape = list(np.shape(values)) if shape is None else shape
    return {"shape": shape, "dtype": "int64", "data": base64.b64encode(data).decode()}


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda s: s.update(version=1), "a counts state of layout 1"),
        (lambda s: s.update(types=["A", "A"]), "not a list of distinct type names"),
        (lambda s: s.update(types="AB"), "not a list of distinct type names"),
        (lambda s: s.update(row=blob(np.zeros(3))), r"shape \[3\], expected \[16\]"),
        (lambda s: s.update(row=blob(-np.ones(16))), "a negative count"),
        (
            lambda s: s.update(row=blob(np.zeros(16), raw=bytes(8 * 17))),
            "184 base64 characters, expected 172",
        ),
        (lambda s: s.update(row=blob(np.zeros(16), raw=bytes(8))), "12 base64 characters, expected 172"),
        (lambda s: s["row"].update(data="!" * 172), "not base64"),
        (lambda s: s["row"].update(dtype="float64"), "not an int64 array"),
        (
            lambda s: s.update(
                types=[f"T{i}" for i in range(30)],
                row=blob(np.zeros(240)),
                settings=dict(s["settings"], resamples=10**6),
            ),
            "more than a counts state holds",
        ),
        (lambda s: s.update(resamples=None), "not an int64 array"),
        (lambda s: s.update(tokens=[5, 2]), "not \\[agreeing, real\\] token counts"),
        (lambda s: s.update(sentences=-1), "sentences: -1 is not a count"),
        (lambda s: s.update(ranges=[[0, 2], [1, 3]]), "sentences 1 to 1 held twice"),
        (lambda s: s.update(ranges=[[2, 2]]), "not a list of"),
        (lambda s: s.update(ranges=[[0, 2.5]]), "not a list of"),
        (lambda s: s.update(ranges=None), "ranges and names: both held or neither"),
        (lambda s: s.update(names=["b", "a"]), "not distinct sorted ids"),
        (lambda s: s.update(names=["a", "a"]), "not distinct sorted ids"),
        (lambda s: s.update(names=[1]), "not a list of str sentence ids"),
        (
            lambda s: s.update(ranges=[[2 * i, 2 * i + 1] for i in range(ner_unit_ids.MAX_ID_SLOTS + 1)]),
            "more than 32768",
        ),
        (lambda s: s["decoding"]["predictions"].update(entities=-1), r"\['entities'\] is -1, not a count"),
        (lambda s: s["decoding"].update(predictions=[]), r"decoding\['predictions'\] is \[\], not a count"),
        (lambda s: s.update(decoding=None), "decoding: not a dict of counts"),
        (
            lambda s: s["decoding"]["predictions"]["reasons"].pop("no_begin"),
            "not the decoding report's counts",
        ),
        (lambda s: s["decoding"].pop("references"), "not the decoding report's counts"),
        (lambda s: s["settings"].update(units="pages"), "not the settings"),
        (lambda s: s["settings"].update(resamples=10**7), "not the settings"),
        (lambda s: s["settings"].update(extra=1), "not the settings"),
    ],
)
def test_tampered_bytes_are_named(metric, edit, words):
    with pytest.raises(ValueError, match=words):
        metric.State.from_bytes(tampered(metric, edit))


@pytest.mark.parametrize("data", [b"\xff", b"[]", b'{"format": "ner_recall_metric.counts"}', b"1" * 10])
def test_not_a_counts_state(data):
    with pytest.raises(ValueError, match="counts state|not a state"):
        C.CountsState.from_bytes(data)


def test_a_decompression_bomb_stops_at_its_declared_size():
    with pytest.raises(ValueError, match="inflates beyond its declared 1,000 bytes"):
        C.inflate(zlib.compress(b"\0" * 10**8), 1000, "the blob")
    with pytest.raises(ValueError, match="cut short"):
        C.inflate(zlib.compress(b"abc" * 100)[:-6], 1000, "the blob")
    assert C.inflate(zlib.compress(b"abc"), 3, "the blob") == b"abc"


def test_the_weights_are_pinned():
    """The generator's output, pinned: a state made on any machine and any release weighs units alike."""
    keys = C.unit_keys([0, 1, "doc-7", 2**70], "ids")
    assert [int(k) for k in keys] == [0, 1, 16030767425015705018, 14815309224144068237]
    assert C.poisson_weights(keys, 0, 12).tolist() == [
        [0, 1, 1, 1, 0, 1, 0, 2, 1, 1, 0, 2],
        [1, 0, 3, 1, 0, 2, 0, 0, 0, 2, 0, 1],
        [0, 0, 1, 0, 2, 0, 1, 1, 0, 0, 0, 2],
        [0, 0, 1, 1, 1, 0, 1, 3, 1, 1, 2, 0],
    ]
    assert C.poisson_weights(keys[3:], 5, 12).tolist() == [[2, 1, 0, 0, 0, 0, 5, 0, 1, 1, 0, 1]]


def test_chunks_and_blocks_do_not_change_the_resamples(monkeypatch):
    rng = np.random.default_rng(1)
    width, units = 3, 3000
    entries = rng.integers(0, units * width, 20000)
    keys = C.unit_keys(list(range(units)), "ids")
    whole = C.resampled_rows(entries, keys, width, seed=4, resamples=9)
    monkeypatch.setattr(C, "_CHUNK_ROWS", 7)
    monkeypatch.setattr(C, "_BLOCK", 5)
    assert np.array_equal(C.resampled_rows(entries, keys, width, seed=4, resamples=9), whole)
    dense = np.bincount(entries, minlength=units * width).reshape(units, width)
    assert np.array_equal(whole, C.poisson_weights(keys, 4, 9).T.astype(np.int64) @ dense)


@pytest.mark.parametrize("block", [1, 2, 128, 1000])
def test_blocks_of_one_row_and_of_many_sum_alike(monkeypatch, block):
    """Units of one row fill whole blocks (summed at once); a few of other rows mix in (summed as
    differences of running sums); the block's uint16 sums cannot wrap."""
    width, units = 2, 1500
    entries = np.r_[np.arange(units) * width, np.arange(0, units, 97) * width + 1]
    keys = C.unit_keys(list(range(units)), "ids")
    assert 255 * C._BLOCK < 2**16  # a uint8 weight's sums over a block fit its uint16 sums
    monkeypatch.setattr(C, "_BLOCK", block)
    got = C.resampled_rows(entries, keys, width, seed=1, resamples=7)
    dense = np.bincount(entries, minlength=units * width).reshape(units, width)
    assert np.array_equal(got, C.poisson_weights(keys, 1, 7).T.astype(np.int64) @ dense)


def test_a_hash_collision_falls_back_to_the_exact_rows(monkeypatch):
    rng = np.random.default_rng(2)
    entries = rng.integers(0, 40 * 5, 300)
    monkeypatch.setattr(
        C, "mix64", lambda z: np.zeros_like(np.asarray(z, dtype=np.uint64))
    )  # every row alike
    units, pattern, rows = C.unit_patterns(entries, 5)
    dense = np.bincount(entries, minlength=200).reshape(40, 5)
    assert np.array_equal(rows[pattern], dense[units]) and len(rows) == len(np.unique(dense[units], axis=0))
