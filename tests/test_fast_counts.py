"""The counts state by compiled loops: the same state as the general path's, to the bit.

A large corpus of class ids makes its counts state through ``ner_fast`` (the count row, the
tokens, the decoding report and every count's sentence) and sums its Poisson resamples in
``ner_kernels.poisson_sums``; both are held equal here to the NumPy code they stand beside, on
random corpora, every unit kind, ignored positions and patterns past the 16-bit sums.
"""

import numpy as np
import pytest
from test_fast_ids import VOCABULARIES, _corpus

from ner_recall.core import decoding as ner_decoding
from ner_recall.core import kernels as ner_kernels
from ner_recall.core import vocabulary as ner_core
from ner_recall.pipeline import fast as ner_fast
from ner_recall.pipeline import options as ner_options
from ner_recall.state import counts as C


def _state(monkeypatch, fast, pred, ref, **options):
    """The counts state with the compiled path forced (from any size) or turned off."""
    taken = []

    def counts(*args, **kwargs):
        out = ner_fast.fast_counts(*args, **kwargs, min_tokens=0) if fast else None
        taken.append(out is not None)
        return out

    monkeypatch.setattr(C, "fast_counts", counts)
    state = C.make_counts_state("default", pred, ref, **options)
    assert taken == [fast]
    return state


UNITS = {
    "first_sentence": lambda n, rng: {"first_sentence": 1000},
    "sentence_ids": lambda n, rng: {"sentence_ids": [f"s{i}" for i in rng.permutation(n)]},
    "document_ids": lambda n, rng: {"document_ids": (np.arange(n) // 7).tolist()},
}


@pytest.mark.parametrize("vocabulary", sorted(VOCABULARIES))
@pytest.mark.parametrize("units", sorted(UNITS))
@pytest.mark.parametrize("seed", range(2))
def test_random_corpora_give_the_general_paths_state(compiled, monkeypatch, vocabulary, units, seed):
    names = VOCABULARIES[vocabulary]
    rng = np.random.default_rng(seed)
    pred, ref = _corpus(rng, names, n_sentences=90, ignore=0.1 if seed else 0.0)
    options = {"label_names": names, "ci_resamples": 23, "seed": seed, **UNITS[units](len(ref), rng)}
    fast = _state(monkeypatch, True, pred, ref, **options)
    general = _state(monkeypatch, False, pred, ref, **options)
    assert fast == general
    assert fast.to_bytes() == general.to_bytes()


@pytest.mark.parametrize("chunk", [1, 5, 40])
def test_chunks_give_the_same_state(compiled, monkeypatch, chunk):
    """Each chunk's sentences are numbered from the chunk's first (a unit is a whole sentence)."""
    names = VOCABULARIES["iob2"]
    pred, ref = _corpus(np.random.default_rng(chunk), names, n_sentences=70, ignore=0.2)
    options = {"label_names": names, "ci_resamples": 11, "seed": 3}
    whole = _state(monkeypatch, False, pred, ref, **options)
    monkeypatch.setattr(ner_fast, "CHUNK_TOKENS", chunk)
    assert _state(monkeypatch, True, pred, ref, **options) == whole


def test_without_resamples_the_state_holds_the_same_counts(compiled, monkeypatch):
    names = VOCABULARIES["iobes"]
    pred, ref = _corpus(np.random.default_rng(5), names, n_sentences=50)
    fast = _state(monkeypatch, True, pred, ref, label_names=names)
    assert fast == _state(monkeypatch, False, pred, ref, label_names=names)
    assert fast.to_bytes() == _state(monkeypatch, False, pred, ref, label_names=names).to_bytes()


def test_entries_add_up_to_the_row(compiled):
    """Every count's column, binned, is the count row; every sentence lies in the corpus."""
    names = VOCABULARIES["iob2"]
    pred, ref = _corpus(np.random.default_rng(11), names, n_sentences=200, ignore=0.1)
    options = ner_options.check_options("default", {"label_names": names})
    types, row, _, _, n, (sentence, column) = ner_fast.fast_counts(
        pred, ref, {"label_names": names}, options, min_tokens=0
    )
    assert np.array_equal(np.bincount(column, minlength=len(row)), row)
    assert n == 200 and sentence.min() >= 0 and sentence.max() < n
    gold_in = [set(np.flatnonzero(np.asarray(r) > 0)) for r in ref]
    assert all(gold_in[s] or np.asarray(pred[s]).any() for s in sentence)  # no count in an empty sentence


def test_other_options_and_small_corpora_take_the_general_path(compiled):
    names = VOCABULARIES["iob2"]
    pred, ref = _corpus(np.random.default_rng(2), names, n_sentences=20)
    options = ner_options.check_options("default", {"label_names": names})
    assert ner_fast.fast_counts(pred, ref, {"label_names": names}, options) is None  # few tokens
    more = {"label_names": names, "mode": None}
    assert ner_fast.fast_counts(pred, ref, more, options, min_tokens=0) is None
    assert ner_fast.fast_counts(pred, ref, {"label_names": names}, options, min_tokens=0) is not None


# ---------------------------------------------------------------------------- the Poisson sums


def test_the_cuts_are_the_table():
    """A weight is the number of cuts its 16-bit uniform reaches: the table at every value."""
    values = np.arange(1 << 16)
    assert len(C.POISSON_CUTS) == 8 == int(C.POISSON_TABLE.max())
    assert np.array_equal((values[:, None] >= C.POISSON_CUTS[None, :]).sum(axis=1), C.POISSON_TABLE)


def _patterns(rng, n, rows, big=0):
    """Sorted rows of ``n`` units, the first holding ``big`` of them (past the 16-bit sums)."""
    pattern = np.sort(np.concatenate([np.zeros(big, np.int64), rng.integers(0, rows, n - big)]))
    seeded = C._seeded(rng.integers(0, 2**63, n).astype(np.uint64), int(rng.integers(100)))
    return seeded, pattern


@pytest.mark.parametrize("resamples", [1, 3, 4, 5, 97])
@pytest.mark.parametrize(
    "big", [0, ner_kernels.SUM_UNITS - 1, ner_kernels.SUM_UNITS + 1, 2 * ner_kernels.SUM_UNITS]
)
def test_compiled_sums_equal_the_numpy_ones(compiled, resamples, big):
    rng = np.random.default_rng(resamples + big)
    seeded, pattern = _patterns(rng, big + 3000, 40, big)
    expected = C._pattern_sums(seeded, pattern, C._CHUNK_ROWS, resamples)
    out = np.full((C._CHUNK_ROWS, resamples), 7.0)  # a used buffer: zeroed first
    assert np.array_equal(C._sums(compiled, seeded, pattern, out, resamples), expected)
    assert np.array_equal(C._sums(None, seeded, pattern, None, resamples), expected)
    assert expected[:40].sum() > 0 and not expected[40:].any()


def test_the_kernel_as_plain_python_equals_the_numpy_sums():
    rng = np.random.default_rng(0)
    seeded, pattern = _patterns(rng, 30, 4)
    sums = np.zeros((4, 6))
    with np.errstate(over="ignore"):
        ner_kernels.poisson_sums(seeded, pattern, C._STEPS[:2], C.POISSON_CUTS, sums)
    assert np.array_equal(sums, C._pattern_sums(seeded, pattern, 4, 6))
    assert sums.sum() > 0


def _recording(compiled, used):
    """The compiled kernels, each noting its name in ``used`` when called."""

    def noted(name):
        def call(*args):
            used.append(name)
            return getattr(compiled, name)(*args)

        return call

    return type("Noted", (), {name: staticmethod(noted(name)) for name in ("poisson_sums", "row_patterns")})


_N, _WIDTH, _RESAMPLES = 5000, 16, 41


@pytest.mark.parametrize("weights", [0, _N * _RESAMPLES, _N * _RESAMPLES + 1, 1 << 40])
def test_resampled_rows_are_the_same_either_way(compiled, monkeypatch, weights):
    """From :data:`COMPILED_WEIGHTS` weights (units x resamples) on, the compiled loops find the
    rows and sum the weights; below, NumPy does: the same counts, as int64."""
    rng = np.random.default_rng(4)
    entries = rng.integers(0, _N * _WIDTH, 12000)
    keys = rng.integers(0, 2**63, _N).astype(np.uint64)
    expected = C.poisson_weights(keys, 6, _RESAMPLES).T.astype(np.int64) @ np.bincount(
        entries, minlength=_N * _WIDTH
    ).reshape(_N, _WIDTH)
    monkeypatch.setattr(C, "_CHUNK_ROWS", 64)  # many chunks of rows
    monkeypatch.setattr(C, "COMPILED_WEIGHTS", weights)
    used: list = []
    monkeypatch.setattr(C, "compiled", lambda: _recording(compiled, used))
    got = C.resampled_rows(entries, keys, _WIDTH, 6, _RESAMPLES)
    assert got.dtype == np.int64 and np.array_equal(got, expected)
    taken = weights <= _N * _RESAMPLES
    assert set(used) == ({"poisson_sums", "row_patterns"} if taken else set())
    assert used.count("row_patterns") == taken


@pytest.mark.parametrize("weights", [0, 1 << 40])
def test_more_distinct_rows_than_16_bits_number(compiled, monkeypatch, weights):
    """70,000 distinct rows (each unit's 17 bits as 17 columns): the units sorted by row without
    the 16-bit radix sort, whichever loops sum them."""
    n, width = 70_000, 17
    bits = (np.arange(1, n + 1)[:, None] >> np.arange(width)) & 1
    unit, column = np.nonzero(bits)
    entries = unit * width + column
    keys = np.arange(n, dtype=np.uint64)
    monkeypatch.setattr(C, "COMPILED_WEIGHTS", weights)
    expected = C.poisson_weights(keys, 2, 3).T.astype(np.int64) @ bits
    assert np.array_equal(C.resampled_rows(entries, keys, width, 2, 3), expected)


def test_one_unit_near_the_float_limit_is_refused(monkeypatch):
    """A chunk of one unit whose weight, times its count, reaches a quarter of the limit."""
    keys = C.unit_keys([7], "ids")
    weight = int(C.poisson_weights(keys, 0, 40).max())
    entries = np.zeros(3, dtype=np.int64)  # a count of 3 in column 0
    monkeypatch.setattr(C, "_EXACT", 4 * 3 * weight)
    with pytest.raises(ValueError, match="resampled counts near 2"):
        C.resampled_rows(entries, keys, 1, 0, 40)


def test_totals_near_the_float_limit_are_refused_though_each_chunk_is_not(monkeypatch):
    """Rows of one chunk each: every chunk below the limit, their sum at it (and just below it,
    computed); no count at all is never refused."""
    n = 50
    entries = np.repeat(np.arange(n), np.arange(1, n + 1))  # unit i: a count of i + 1 in column 0
    keys = np.arange(n, dtype=np.uint64)
    monkeypatch.setattr(C, "_CHUNK_ROWS", 1)
    total = int(C.resampled_rows(entries, keys, 1, 3, 9).max())
    monkeypatch.setattr(C, "_EXACT", 4 * total)
    with pytest.raises(ValueError) as error:
        C.resampled_rows(entries, keys, 1, 3, 9)
    assert str(error.value) == "resampled counts near 2**53: split the corpus into more states"
    monkeypatch.setattr(C, "_EXACT", 4 * total + 4)
    assert int(C.resampled_rows(entries, keys, 1, 3, 9).max()) == total
    monkeypatch.setattr(C, "_EXACT", 4)
    assert not C.resampled_rows(np.zeros(0, dtype=np.int64), keys, 1, 3, 9).any()


def test_the_first_sentence_is_0_unless_given():
    names = VOCABULARIES["iob2"]
    pred, ref = _corpus(np.random.default_rng(8), names, n_sentences=30)
    options = {"label_names": names, "ci_resamples": 7, "seed": 2}
    assert C.make_counts_state("default", pred, ref, **options) == C.make_counts_state(
        "default", pred, ref, 0, **options
    )
    assert C.make_counts_state("default", pred, ref, **options) != C.make_counts_state(
        "default", pred, ref, 1, **options
    )


# ---------------------------------------------------------------------------- through the metric


def test_the_metric_makes_the_same_state_from_class_ids_and_from_tags(compiled, metric):
    """Past MIN_TOKENS class ids take the compiled path; the tags of the same corpus do not."""
    names = VOCABULARIES["iob2"]
    rng = np.random.default_rng(9)
    n = ner_fast.MIN_TOKENS // 9 + 1
    ref = np.where(rng.random((n, 9)) < 0.6, 0, rng.integers(0, len(names), (n, 9)))
    pred = np.where(rng.random((n, 9)) < 0.2, rng.integers(0, len(names), (n, 9)), ref)
    common = {"keep": "counts", "ci_resamples": 9, "seed": 1}
    fast = metric.state(predictions=pred, references=ref, label_names=names, **common)
    tags = [[names[i] for i in row] for row in ref.tolist()]
    ptags = [[names[i] for i in row] for row in pred.tolist()]
    assert fast == metric.state(predictions=ptags, references=tags, **common)
    halves = [
        metric.state(
            predictions=pred[a:b], references=ref[a:b], label_names=names, first_sentence=a, **common
        )
        for a, b in ((0, n // 2), (n // 2, n))
    ]  # each half below MIN_TOKENS: the general path
    assert (halves[0] + halves[1]).to_bytes() == fast.to_bytes()


# ---------------------------------------------------------------------------- the distinct rows


def _same_patterns(found, expected):
    """The same units, each holding the same row; the rows distinct (their numbers may differ)."""
    (units, pattern, rows), (units_0, pattern_0, rows_0) = found, expected
    assert np.array_equal(units, units_0)
    assert np.array_equal(rows[pattern], rows_0[pattern_0])
    assert len(np.unique(rows, axis=0)) == len(rows) == len(rows_0)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_patterns_are_the_numpy_ones(compiled, seed):
    rng = np.random.default_rng(seed)
    width, n = int(rng.integers(1, 40)), int(rng.integers(1, 5000))
    units = rng.choice(n * 3, n, replace=False)  # units with gaps between them
    entries = units[rng.integers(0, n, 4 * n)] * width + rng.integers(0, min(width, 1 + seed), 4 * n)
    _same_patterns(C.unit_patterns(entries, width, compiled), C.unit_patterns(entries, width))


def test_rows_whose_hashes_collide_are_told_apart(monkeypatch):
    """Every cell hashed to 0 (the plain-Python kernel): all rows share one hash, are confirmed
    cell by cell, and the table still doubles past 512 rows."""
    monkeypatch.setattr(ner_kernels, "_M1", np.uint64(0))
    width = 1000  # unit i holds column i (unit 2 also 3); unit 901 holds unit 5's row, 902 column 2 alone
    entries = np.concatenate(
        [np.arange(900) * width + np.arange(900), [2 * width + 3, 901 * width + 5, 902 * width + 2]]
    )
    run = type("Plain", (), {"row_patterns": staticmethod(ner_kernels.row_patterns)})
    found = C.unit_patterns(entries, width, run)
    _same_patterns(found, C.unit_patterns(entries, width))
    assert len(found[2]) == 901 and found[1][-2] == found[1][5]


def test_every_option_it_reads_at_once_and_the_least_corpus_take_the_compiled_path(compiled):
    """All six options the counts path reads, and a corpus of exactly ``min_tokens`` tokens."""
    names = VOCABULARIES["iob2"]
    pred, ref = _corpus(np.random.default_rng(3), names, n_sentences=40)
    chosen = {
        "label_names": names,
        "zero_division": 1,
        "beta": 2.0,
        "ci_resamples": 5,
        "seed": 0,
        "document_ids": list(range(40)),
    }
    assert set(chosen) == ner_fast.COUNTS_OPTIONS
    options = ner_options.check_options("default", {k: v for k, v in chosen.items() if k != "document_ids"})
    tokens = sum(map(len, ref))
    assert ner_fast.fast_counts(pred, ref, chosen, options, min_tokens=tokens) is not None
    assert ner_fast.fast_counts(pred, ref, chosen, options, min_tokens=tokens + 1) is None


def test_a_vocabulary_it_cannot_table_is_left_to_the_general_path(compiled):
    names = ["O"] + [f"B-T{i}" for i in range(ner_fast.MAX_CODES)]
    rng = np.random.default_rng(0)
    ref = [rng.integers(0, len(names), 9) for _ in range(20)]
    options = ner_options.check_options("default", {"label_names": names})
    assert ner_fast.fast_counts(ref, ref, {"label_names": names}, options, min_tokens=0) is None


@pytest.mark.parametrize("seed", range(3))
def test_unit_entries_bin_into_each_units_count_row(seed):
    """``unit_entries`` (what bench/ci_coverage.py reads): binned, each unit's row of ``count_rows``."""
    from ner_recall.core import counts as ner_counts
    from ner_recall.families import table as ner_families
    from ner_recall.pipeline import compute as ner_pipeline

    names = VOCABULARIES["iob2"]
    rng = np.random.default_rng(seed)
    pred, ref = _corpus(rng, names, n_sentences=60, ignore=0.1)
    checked = ner_options.check_options("default", {"label_names": names})
    corpus = ner_pipeline.tag_corpus(pred, ref, checked)
    gold, found = (
        ner_decoding.decode(codes, corpus, None) for codes in (corpus.references, corpus.predictions)
    )
    view = ner_families.build_view(corpus, gold, found, checked)
    units = np.arange(60) // 4  # 15 units of four sentences
    width = len(ner_core.COLUMNS) * len(view.types)
    binned = np.bincount(C.unit_entries(view, units), minlength=15 * width).reshape(15, width)
    expected = ner_counts.count_rows(view.gold, view.pred, view.matching, len(view.types), units, 15)
    assert binned.sum() > 0 and np.array_equal(binned, expected)


# ---------------------------------------------------------------------------- the kernels as plain Python


@pytest.mark.parametrize("held", [1, 3, ner_kernels.SUM_UNITS])
def test_plain_poisson_sums_flush_their_16_bit_sums(monkeypatch, held):
    """Plain Python (what numba compiles): sums moved to int64 every ``SUM_UNITS`` units of a row
    (lowered here) and at each row's end equal NumPy's, with resamples not a multiple of four."""
    monkeypatch.setattr(ner_kernels, "SUM_UNITS", held)
    rng = np.random.default_rng(held)
    seeded, pattern = _patterns(rng, 40, 5)
    sums = np.zeros((5, 7))
    with np.errstate(over="ignore"):
        ner_kernels.poisson_sums(seeded, pattern, C._STEPS[:2], C.POISSON_CUTS, sums)
    assert np.array_equal(sums, C._pattern_sums(seeded, pattern, 5, 7))


@pytest.mark.parametrize("seed", range(3))
def test_plain_row_patterns_are_the_numpy_ones(seed):
    rng = np.random.default_rng(seed)
    width, n = 6, 300
    entries = rng.integers(0, n, 700) * width + rng.integers(0, 3, 700)
    run = type("Plain", (), {"row_patterns": staticmethod(ner_kernels.row_patterns)})
    with np.errstate(over="ignore"):
        found = C.unit_patterns(entries, width, run)
    _same_patterns(found, C.unit_patterns(entries, width))
    assert len(found[2]) > 20


def test_plain_poisson_sums_read_every_cut_and_its_edge():
    """Cuts chosen among the lanes the hash gives (each met exactly, eight levels all reached):
    each weight is the number of cuts its lane reaches, ``>=`` at the edge."""
    rng = np.random.default_rng(5)
    seeded, resamples = C._seeded(rng.integers(0, 2**63, 64).astype(np.uint64), 1), 8
    z = np.empty((64, 2), dtype="<u8")
    lanes = C._hash_lanes(seeded, resamples, z, np.empty_like(z)).astype(np.int64)
    cuts = np.sort(rng.choice(np.unique(lanes), 8, replace=False)).astype(np.uint16)
    weights = (lanes[:, :, None] >= cuts.astype(np.int64)).sum(axis=2)
    assert (
        set(np.unique(weights)) >= set(range(9)) - {0} and (lanes[:, :, None] == cuts).any(axis=(0, 1)).all()
    )
    sums = np.zeros((1, resamples))
    with np.errstate(over="ignore"):
        ner_kernels.poisson_sums(seeded, np.zeros(64, np.int64), C._STEPS[:2], cuts, sums)
    assert np.array_equal(sums[0], weights.sum(axis=0))


def test_plain_poisson_sums_of_one_row_past_16_bits():
    """70,000 units of one row: each resample's sum passes 2**16, so the 16-bit sums must be moved
    into the row's every SUM_UNITS units."""
    seeded = C._seeded(np.arange(70_000, dtype=np.uint64), 4)
    sums = np.zeros((1, 4))
    with np.errstate(over="ignore"):
        ner_kernels.poisson_sums(seeded, np.zeros(70_000, np.int64), C._STEPS[:1], C.POISSON_CUTS, sums)
    assert sums.min() > 2**16 and np.array_equal(
        sums, C._pattern_sums(seeded, np.zeros(70_000, np.int64), 1, 4)
    )


def test_plain_row_patterns_grow_the_table_and_still_find_the_first_rows():
    """1,500 distinct rows (the table doubles twice), then every row again after the growth."""
    width, n = 11, 1500
    bits = (np.arange(1, n + 1)[:, None] >> np.arange(width)) & 1
    again = bits
    unit, column = np.nonzero(np.vstack([bits, again]))
    entries = unit * width + column
    run = type("Plain", (), {"row_patterns": staticmethod(ner_kernels.row_patterns)})
    with np.errstate(over="ignore"):
        found = C.unit_patterns(entries, width, run)
    _same_patterns(found, C.unit_patterns(entries, width))
    assert len(found[2]) == n and np.array_equal(found[1][n:], found[1][:n])
