"""The compiled path of class ids (ner_fast, ner_kernels) gives the general path's results, bit for bit.

Random corpora of every layout the path reads (2-D arrays, lists of 1-D arrays, Arrow list
columns, tensors), label vocabularies with ``O`` anywhere, names given twice, IOBES tags,
ignored positions, ill-formed sequences; then every case where the path must step aside.
"""

import json
import os

import numpy as np
import pyarrow as pa
import pytest

from conftest import METRIC_PATH, require
from ner_recall.core import kernels as ner_kernels
from ner_recall.pipeline import compute as ner_pipeline
from ner_recall.pipeline import fast as ner_fast
from ner_recall.pipeline import options as ner_options

VOCABULARIES = {
    "iob2": ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"],
    "o_last": ["B-PER", "I-PER", "B-LOC", "I-LOC", "O"],
    "iobes": ["B-PER", "I-PER", "E-PER", "S-PER", "O", "B-MISC", "I-MISC", "E-MISC", "S-MISC"],
    "twice": ["O", "B-PER", "I-PER", "B-PER", "O", "I-LOC"],
    "single": ["O", "S-X", "B-X", "E-X", "S-Y"],
    "untyped": ["O", "B", "I"],
    "no_o": ["B-PER", "I-PER"],
}


def _options(names, **more):
    return ner_options.check_options("default", {"label_names": names, **more})


def _general(pred, ref, names, **more):
    options = _options(names, **more)
    return ner_pipeline.score_tags(ner_pipeline.tag_corpus(pred, ref, options), options)[0]


def _fast(pred, ref, names, **more):
    chosen = {"label_names": names, **more}
    return ner_fast.fast_results(pred, ref, chosen, _options(names, **more), min_tokens=0)


def _corpus(rng, names, n_sentences=60, ignore=0.0, o_share=0.6):
    """(predictions, references) as lists of 1-D int64 arrays: mostly O, runs of one type, noise."""
    o = names.index("O") if "O" in names else 0
    lengths = rng.integers(0, 12, n_sentences)
    ref = []
    pred = []
    for n in lengths:
        r = np.where(rng.random(n) < o_share, o, rng.integers(0, len(names), n)).astype(np.int64)
        p = np.where(rng.random(n) < 0.2, rng.integers(0, len(names), n), r).astype(np.int64)
        r = np.where(rng.random(n) < ignore, -100, r)
        ref.append(r)
        pred.append(p)
    return pred, ref


def _same(a, b):
    assert json.dumps(a) == json.dumps(b)  # keys in the same order, floats to the bit


@pytest.mark.parametrize("vocabulary", sorted(VOCABULARIES))
@pytest.mark.parametrize("seed", range(4))
def test_random_corpora_equal_the_general_path(compiled, vocabulary, seed):
    names = VOCABULARIES[vocabulary]
    rng = np.random.default_rng(seed)
    pred, ref = _corpus(rng, names, ignore=0.1 if seed % 2 else 0.0)
    _same(_fast(pred, ref, names), _general(pred, ref, names))


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_chunks_of_sentences_add_up_to_the_whole(compiled, monkeypatch, chunk):
    """Counted chunk by chunk of whole sentences (one sentence alone when it is longer)."""
    names = VOCABULARIES["iobes"]
    pred, ref = _corpus(np.random.default_rng(chunk), names, n_sentences=80, ignore=0.1)
    whole = _fast(pred, ref, names)
    monkeypatch.setattr(ner_fast, "CHUNK_TOKENS", chunk)
    _same(_fast(pred, ref, names), whole)
    _same(whole, _general(pred, ref, names))


@pytest.mark.parametrize("more", [{"zero_division": 1}, {"beta": 2.0}, {"zero_division": 1, "beta": 0.5}])
def test_zero_division_and_beta_reach_every_score(compiled, more):
    names = VOCABULARIES["iob2"]
    pred, ref = _corpus(np.random.default_rng(7), names, n_sentences=30, o_share=0.9)
    _same(_fast(pred, ref, names, **more), _general(pred, ref, names, **more))


def _layouts(pred, ref):
    """The same corpus (sentences of one length) in every input form the compiled path reads."""
    torch = require("torch", "tensors of class ids")
    table = pa.chunked_array(
        [pa.array([r.tolist() for r in ref[:5]]), pa.array([r.tolist() for r in ref[5:]])]
    )
    ptable = pa.chunked_array(
        [pa.array([p.tolist() for p in pred[:7]]), pa.array([p.tolist() for p in pred[7:]])]
    )
    return {
        "2-D int64": (np.stack(pred), np.stack(ref)),
        "2-D int16": (np.stack(pred).astype(np.int16), np.stack(ref).astype(np.int16)),
        "2-D Fortran order": (np.asfortranarray(np.stack(pred)), np.asfortranarray(np.stack(ref))),
        "2-D big-endian": (np.stack(pred).astype(">i4"), np.stack(ref).astype(">i8")),
        "list of arrays": (pred, ref),
        "Arrow chunks": (ptable, table),
        "torch": (torch.tensor(np.stack(pred)), torch.tensor(np.stack(ref))),
    }


def test_every_input_form_gives_the_same_results(compiled):
    names = VOCABULARIES["iob2"]
    rng = np.random.default_rng(3)
    ref = [np.where(rng.random(9) < 0.5, 0, rng.integers(0, 7, 9)) for _ in range(20)]
    ref = [np.where(rng.random(9) < 0.1, -100, r) for r in ref]
    pred = [np.where(rng.random(9) < 0.3, rng.integers(0, 7, 9), np.maximum(r, 0)) for r in ref]
    expected = _general([r.tolist() for r in pred], [r.tolist() for r in ref], names)
    for form, (p, r) in _layouts(pred, ref).items():
        found = _fast(p, r, names)
        assert found is not None, form
        _same(found, expected)


@pytest.mark.parametrize(
    "case, pred, ref",
    [
        ("an id past the names", [[0, 9]], [[0, 1]]),
        ("a negative reference", [[0, 1]], [[0, -1]]),
        ("a predicted -100 where the reference is kept", [[0, -100]], [[0, 1]]),
        ("float ids", [[0.0, 1.0]], [[0.0, 1.0]]),
        ("tags, not ids", [["O", "B-PER"]], [["O", "B-PER"]]),
        ("uint64 ids", np.array([[0, 1]], dtype=np.uint64), np.array([[0, 1]], dtype=np.uint64)),
        ("lists of Python ints", [[0, 1]], [[0, 1]]),
        ("sentences of other lengths", [np.array([0, 1])], [np.array([0, 1, 2])]),
    ],
)
def test_the_general_path_takes_what_the_compiled_one_does_not_read(compiled, case, pred, ref):
    if case not in ("tags, not ids", "lists of Python ints"):
        pred, ref = (np.array(x) if isinstance(x, list) else x for x in (pred, ref))
        if case == "sentences of other lengths":
            pred, ref = [np.array([0, 1])], [np.array([0, 1, 2])]
    assert _fast(pred, ref, VOCABULARIES["iob2"]) is None


@pytest.mark.parametrize(
    "names",
    [
        ["O", "B-PER", "X-PER"],  # a name the general path refuses (if it occurs)
        ["O", "B-X", "L-X", "U-X"],  # BILOU: lenient decoding refuses it
        ["O", "B", "B-PER"],  # untyped and typed names mixed
        ["O", "B-muc", "I-muc"],  # a type named like a result key
        ["O", "B-overall_f1"],
    ],
)
def test_names_the_general_path_judges_are_left_to_it(compiled, names):
    pred = ref = np.array([[0, 1, 0]])
    assert _fast(pred, ref, names) is None


def test_a_large_vocabulary_is_left_to_the_general_path(compiled):
    """A table of every pair of label names would grow with their square: past MAX_CODES names, no table."""
    names = ["O"] + [f"{p}-T{i}" for i in range(ner_fast.MAX_CODES) for p in "BI"]
    pred = ref = np.array([[0, 1, 2, 2 * ner_fast.MAX_CODES]])
    assert ner_fast._tables(tuple(names)) is None and _fast(pred, ref, names) is None
    _same(_general(pred, ref, names), _general(pred.tolist(), ref.tolist(), names))
    small = names[: ner_fast.MAX_CODES]
    assert ner_fast._tables(tuple(small)) is not None


def test_only_the_default_families_take_the_compiled_path(compiled):
    names = VOCABULARIES["iob2"]
    pred = ref = np.zeros((2, 3), dtype=np.int64)
    options = _options(names)
    for chosen in ({"label_names": names, "errors": True}, {"label_names": names, "scores": ["token"]}, {}):
        assert ner_fast.fast_results(pred, ref, chosen, options, min_tokens=0) is None
    assert ner_fast.fast_results(pred, ref, {"label_names": names}, options) is None  # too small


def test_without_numba_the_general_path_runs(monkeypatch):
    monkeypatch.setattr(ner_fast, "compiled", lambda: None)
    names = VOCABULARIES["iob2"]
    pred = ref = np.zeros((2, 3), dtype=np.int64)
    assert _fast(pred, ref, names) is None


def _decoded(module, pred, ref, lengths, names):
    """decode_pair's outputs (head, each side's entities, the pairs and degrees), as lists."""
    canon, flags, type_of, reasons, _ = ner_fast._tables(tuple(names))
    n = len(ref) + 1
    arrays = [np.zeros((2, n), np.int64), np.zeros((2, n), np.int64), np.zeros((2, n), np.int32)]
    arrays += [np.zeros((2, n), np.uint8), np.zeros((2, n), np.int64), np.zeros((2, n), np.int64)]
    head = module.decode_pair(pred, ref, lengths, canon, flags, type_of, reasons, *arrays)
    k = head[3:5]
    spans = [[a[side, : k[side]] for a in arrays[:4]] for side in (0, 1)]
    pairs = arrays[4][:, : head[5]]
    degree = [arrays[5][side, : k[side]] for side in (0, 1)]
    return head, spans, pairs, degree


@pytest.mark.parametrize("vocabulary", ["iob2", "iobes", "twice"])
def test_the_kernels_as_plain_python_equal_the_compiled_ones(compiled, vocabulary):
    """The kernels are plain Python in ner_kernels (what numba compiles): run both on one corpus."""
    names = VOCABULARIES[vocabulary]
    pred, ref = _corpus(np.random.default_rng(11), names, n_sentences=25, ignore=0.1)
    lengths = np.array([len(r) for r in ref], dtype=np.int64)
    pred, ref = np.concatenate(pred), np.concatenate(ref)
    outs = []
    for module in (ner_kernels, compiled):
        head, spans, pairs, degree = _decoded(module, pred, ref, lengths, names)
        keep, rest = module.isolated(pairs[0].copy(), pairs[1].copy(), degree[0], degree[1])
        (gs, ge, gt, gr), (ps, pe, pt, pr) = spans
        row = module.count_row(pairs[0].copy(), pairs[1].copy(), keep, gs, ge, gt, ps, pe, pt, 4)
        flat = [x.tolist() for x in (*spans[0], *spans[1], pairs, *degree, keep, rest, row)]
        outs.append((tuple(head), flat))
    assert outs[0] == outs[1]


def test_pairs_are_the_candidates_of_the_general_matching(compiled):
    """Every overlapping pair, in order, with each entity's count: as ner_matching._candidates finds them."""
    from ner_recall.core import matching as ner_matching
    from ner_recall.core.vocabulary import SpanArrays

    names = VOCABULARIES["iob2"]
    for seed in range(5):
        pred, ref = _corpus(np.random.default_rng(seed), names, n_sentences=40, ignore=0.05, o_share=0.3)
        lengths = np.array([len(r) for r in ref], dtype=np.int64)
        pred, ref = np.concatenate(pred), np.concatenate(ref)
        _, spans, pairs, degree = _decoded(compiled, pred, ref, lengths, names)
        none = np.zeros(0, np.int32)
        gold, found = (SpanArrays(side[0], side[1], side[2], none, none) for side in spans)
        g, p = ner_matching._candidates(gold, found, flat=True)
        assert pairs[0].tolist() == g.tolist() and pairs[1].tolist() == p.tolist()
        assert degree[0].tolist() == np.bincount(g, minlength=len(gold.start)).tolist()
        assert degree[1].tolist() == np.bincount(p, minlength=len(found.start)).tolist()


def test_pairs_by_hand(compiled):
    names = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    #        gold: PER [0,2)   LOC [3,6)         PER [7,8)
    #        pred:   PER [1,4)      LOC [4,5) PER [5,8)
    ref = np.array([1, 2, 0, 3, 4, 4, 0, 1])
    pred = np.array([0, 1, 2, 2, 3, 1, 2, 2])
    head, spans, pairs, degree = _decoded(compiled, pred, ref, np.array([8]), names)
    assert [x.tolist() for x in spans[0][:2]] == [[0, 3, 7], [2, 6, 8]]
    assert [x.tolist() for x in spans[1][:2]] == [[1, 4, 5], [4, 5, 8]]
    assert list(zip(*pairs.tolist())) == [(0, 0), (1, 0), (1, 1), (1, 2), (2, 2)]
    assert degree[0].tolist() == [1, 3, 1] and degree[1].tolist() == [2, 1, 2]
    assert head[:3] == (-1, 8, 0)  # no bad id, 8 tokens kept, none tagged alike


def test_decoding_report_by_hand(compiled):
    names = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    #        I-PER (no begin) | B-PER I-LOC (type change) | B-PER I-PER: fine
    ref = np.array([[2, 0, 1, 4, 0, 1, 2]])
    found = _fast(ref, ref, names)
    assert found["decoding"]["references"] == {
        "entities": 4,
        "repaired": 2,
        "dropped": 0,
        "reasons": {"no_begin": 1, "type_change": 1, "after_end": 0, "not_closed": 0},
    }
    _same(found, _general(ref, ref, names))


def test_compute_takes_the_compiled_path_for_a_large_corpus(compiled):
    """Through evaluate: at MIN_TOKENS tokens the results equal those of the same ids as lists
    (which take the general path), signature included."""
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(METRIC_PATH)
    names = VOCABULARIES["iob2"]
    rng = np.random.default_rng(5)
    rows = ner_fast.MIN_TOKENS // 12 + 1
    ref = np.where(rng.random((rows, 12)) < 0.7, 0, rng.integers(0, 7, (rows, 12)))
    pred = np.where(rng.random((rows, 12)) < 0.1, rng.integers(0, 7, (rows, 12)), ref)
    fast = metric.compute(predictions=pred, references=ref, label_names=names)
    general = metric.compute(predictions=pred[:, :].tolist(), references=ref.tolist(), label_names=names)
    _same(fast, general)
    assert (
        ner_fast.id_arrays(pred, ref) is not None and ner_fast.id_arrays(pred.tolist(), ref.tolist()) is None
    )


def test_numba_is_not_imported_with_the_metric():
    """Loading the metric does not import numba: only a large class-id corpus compiles."""
    import subprocess
    import sys

    code = "import sys, ner_recall_metric; print('numba' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(METRIC_PATH),
        check=True,
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32])
def test_integer_arrays_of_every_width_are_read(compiled, dtype):
    names = VOCABULARIES["iob2"]
    ref = np.array([[1, 2, 0, 3], [0, 5, 6, 6]])
    pred = np.array([[1, 2, 0, 0], [3, 5, 6, 0]])
    expected = _general(pred.tolist(), ref.tolist(), names)
    _same(_fast(pred.astype(dtype), ref.astype(dtype), names), expected)
    _same(_fast(list(pred.astype(dtype)), list(ref.astype(dtype)), names), expected)


@pytest.mark.parametrize(
    "case",
    [
        "float32",
        "float64",
        "bool",
        "uint64",
        "floats in a list",
        "2-D sentences in a list",
        "Arrow floats",
        "Arrow null",
    ],
)
def test_what_is_not_integer_ids_is_left_to_the_general_path(compiled, case):
    ref = np.array([[1, 0, 1], [0, 1, 1]])
    arrays = {
        "float32": ref.astype(np.float32),
        "float64": ref.astype(np.float64),
        "bool": ref.astype(bool),
        "uint64": ref.astype(np.uint64),
        "floats in a list": [r.astype(np.float32) for r in ref],
        "2-D sentences in a list": [ref, ref],
        "Arrow floats": pa.array([[1.0, 0.0], [0.0, 1.0]]),
        "Arrow null": pa.array([[1, None], [0, 1]]),
    }
    value = arrays[case]
    assert ner_fast.id_arrays(value, value) is None


def test_arrow_chunks_empty_or_many_are_joined(compiled):
    names = VOCABULARIES["iob2"]
    rows = [[1, 2, 0], [0, 3, 4], [5, 6, 6]]
    column = pa.chunked_array(
        [pa.array(rows[:1]), pa.array([], type=pa.list_(pa.int64())), pa.array(rows[1:])]
    )
    pred, ref, lengths = ner_fast.id_arrays(column, column)
    assert pred.tolist() == ref.tolist() == [1, 2, 0, 0, 3, 4, 5, 6, 6] and lengths.tolist() == [3, 3, 3]
    single = pa.chunked_array([pa.array(rows)])
    assert ner_fast.id_arrays(single, single)[0].tolist() == pred.tolist()
    _same(_fast(column, column, names), _general(rows, rows, names))


@pytest.mark.parametrize("vocabulary", ["iob2", "iobes", "twice", "untyped"])
def test_the_reasons_table_by_its_definition(vocabulary):
    """A repaired entity's reason, for every (previous code, code): as ner_decoding_report tells it."""
    names = VOCABULARIES[vocabulary]
    canon, _, type_of, reasons, _ = ner_fast._tables.__wrapped__(tuple(names))  # not a cached table
    codes = sorted(set(canon.tolist()) | {0})
    prefix = {c: "O" for c in codes}
    for name, c in zip(names, canon.tolist()):
        prefix[c] = name[0] if name != "O" else "O"
    for prev in codes:
        for code in codes:
            if prefix[code] not in ("I", "E"):
                expected = 0
            elif prefix[prev] == "O":
                expected = 1  # no_begin
            elif type_of[prev] != type_of[code]:
                expected = 2  # type_change
            else:
                expected = 3  # after_end
            assert reasons[prev, code] == expected, (names, prev, code)


@pytest.mark.parametrize("side", ["predictions", "references"])
def test_a_bad_id_at_the_first_token_is_left_to_the_general_path(compiled, side):
    good = np.array([[1, 2, 0], [0, 1, 0]])
    bad = good.copy()
    bad[0, 0] = 99
    pred, ref = (bad, good) if side == "predictions" else (good, bad)
    assert _fast(pred, ref, VOCABULARIES["iob2"]) is None


def test_a_type_named_like_a_beta_key_is_left_to_the_general_path(compiled):
    names = ["O", "B-overall_f2"]
    pred = ref = np.array([[1, 0]])
    assert _fast(pred, ref, names, beta=2.0) is None
    assert _fast(pred, ref, names) is not None  # beta 1: overall_f2 is no result key


@pytest.mark.parametrize("chunk", [1, 3, 1 << 21])
def test_every_token_an_entity(compiled, monkeypatch, chunk):
    """As many entities as tokens, on both sides: the arrays the loops write into are full."""
    monkeypatch.setattr(ner_fast, "CHUNK_TOKENS", chunk)
    names = ["O", "B-A", "B-B", "I-A"]
    rng = np.random.default_rng(chunk)
    ref = rng.integers(1, 3, (40, 6))
    pred = rng.integers(1, 3, (40, 6))
    _same(_fast(pred, ref, names), _general(pred, ref, names))
    _same(_fast(ref, ref, names), _general(ref, ref, names))


def test_min_tokens_is_the_least_corpus_taken(compiled):
    names = VOCABULARIES["iob2"]
    pred = ref = np.array([[1, 2, 0], [0, 1, 0]])
    options, chosen = _options(names), {"label_names": names}
    assert ner_fast.fast_results(pred, ref, chosen, options, min_tokens=6) is not None
    assert ner_fast.fast_results(pred, ref, chosen, options, min_tokens=7) is None


@pytest.mark.parametrize("zero_division", [0, 1])
def test_every_position_ignored(compiled, zero_division):
    """No kept token: the accuracy is zero_division's, as on the general path."""
    names = VOCABULARIES["iob2"]
    pred, ref = np.array([[1, 2], [0, 1]]), np.full((2, 2), -100)
    found = _fast(pred, ref, names, zero_division=zero_division)
    assert found["overall_accuracy"] == zero_division
    _same(found, _general(pred, ref, names, zero_division=zero_division))


@pytest.mark.parametrize(
    "case, arrays, read",
    [
        ("one dtype", [np.array([1, 2, 3]), np.array([], dtype=np.int64), np.array([4])], True),
        ("int8", [np.array([1, 2], dtype=np.int8), np.array([3], dtype=np.int8)], True),
        ("two dtypes, promoted", [np.array([1, 2], dtype=np.int8), np.array([300], dtype=np.int16)], True),
        ("strided views", [np.arange(10)[::2], np.arange(6)[1::3]], True),
        ("big-endian", [np.array([1, 2], dtype=">i4"), np.array([7], dtype=">i4")], True),
        ("a 2-D sentence", [np.array([1, 2]), np.array([[3], [4]])], False),
        ("a 0-d array", [np.array([1, 2]), np.array(3)], False),
        ("floats", [np.array([1.0, 2.0]), np.array([3.0])], False),
        ("uint64 beside int64", [np.array([1], dtype=np.uint64), np.array([2])], False),
    ],
)
def test_a_list_of_arrays_is_read_end_to_end(case, arrays, read):
    """Joined as bytes where they share a dtype and are contiguous, else concatenated: the same ids."""
    found = ner_fast._flat_ids(arrays)
    if not read:
        assert found is None, case
        return
    flat, lengths = found
    assert flat.tolist() == np.concatenate(arrays).tolist(), case
    assert flat.dtype == np.concatenate(arrays).dtype
    assert lengths.tolist() == [len(a) for a in arrays]
