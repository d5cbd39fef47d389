"""The counts state's values from their definitions (what the mutation run of ``ner_counts_state``
showed untested): the percentile and bias-corrected intervals computed by hand from the state's
resampled counts under every option that moves them, unit keys at the int64 bounds, the merge
operators, the duplicate-id message, and the inflation bound."""

import tracemalloc
import zlib
from statistics import NormalDist

import numpy as np
import pytest
from test_parity import random_corpus

from ner_recall.core.counts import present_types
from ner_recall.state import counts as C
from ner_recall.stats.uncertainty import score_table


def intervals_by_definition(state, families, beta, zero, level, method):
    """Efron's percentile interval of each score over the resamples where it is defined (the
    estimate where it never is); bias-corrected: the levels moved by z0 = the normal quantile of the
    share of resamples below the estimate (ties count half)."""
    present = present_types(state.row[None], len(state.types))
    names, estimate = score_table(state.row[None], state.types, families, beta, zero, present)
    samples = score_table(state.resamples, state.types, families, beta, zero, present, undefined=True)[1]
    normal, alpha = NormalDist(), (1 - level) / 2
    out = {}
    for j, name in enumerate(names):
        s = samples[:, j][~np.isnan(samples[:, j])]
        bounds = [float(x) for x in np.quantile(s, [alpha, 1 - alpha])] if len(s) else [estimate[0, j]] * 2
        if method == "bias_corrected" and len(s) and np.ptp(s) > 0:
            below = (np.sum(s < estimate[0, j]) + np.sum(s == estimate[0, j]) / 2) / len(s)
            if 0 < below < 1:
                z0 = normal.inv_cdf(below)
                levels = [normal.cdf(2 * z0 + normal.inv_cdf(q)) for q in (alpha, 1 - alpha)]
                bounds = [float(x) for x in np.quantile(s, levels)]
        out[name] = [float(b) for b in bounds]
    return out


@pytest.mark.parametrize("method", ["percentile", "bias_corrected"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"confidence_level": 0.8, "beta": 2.0, "zero_division": 1, "scores": ["seqeval"]},
        {"scores": ["muc"], "confidence_level": 0.5},
    ],
    ids=["defaults", "level-beta-zero-seqeval", "muc"],
)
def test_the_intervals_are_their_definitions(metric, options, method):
    """A type the predictions never hold (its precision never defined) and a rare one (undefined in
    some resamples) beside the common ones."""
    references, predictions = random_corpus(4, 60, prefixes="OOBI", types="AB")
    references = references + [["B-C", "O"], ["B-D"]]
    predictions = predictions + [["O", "O"], ["O"]]
    predictions[0] = ["B-E"] + ["O"] * (len(predictions[0]) - 1)
    state = metric.state(
        predictions=predictions, references=references, keep="counts", ci_resamples=120, seed=3, **options
    )
    families = tuple(f for f in ("seqeval", "muc") if f in options.get("scores", ("seqeval", "muc")))
    want = intervals_by_definition(
        state,
        families,
        float(options.get("beta", 1.0)),
        float(options.get("zero_division", 0)),
        float(options.get("confidence_level", 0.95)),
        method,
    )
    got = metric.finalize(state, interval=method)["intervals"]
    assert got == want
    assert C.counts_intervals(state) == intervals_by_definition(
        state,
        families,
        *[float(options.get(k, d)) for k, d in (("beta", 1.0), ("zero_division", 0))],
        float(options.get("confidence_level", 0.95)),
        "percentile",
    )


def test_unit_keys_at_the_int64_bounds():
    """Ints from -2**63 to 2**63 - 1 by their value (mod 2**64), beyond by the hash of their text
    (bit 63 set); a lone surrogate in a str hashes (its UTF-8 with surrogatepass)."""
    keys = C.unit_keys([-(2**63), 2**63 - 1, -(2**63) - 1, 2**63, "\ud800", np.int64(7)], "ids")
    assert [int(k) for k in keys] == [
        2**63,
        2**63 - 1,
        14768413867090472273,
        9527500019882882879,
        11402360483048462738,
        7,
    ]


def test_poisson_weights_take_keys_as_a_list():
    keys = [0, 2**64 - 1, 5]
    assert np.array_equal(
        C.poisson_weights(keys, 1, 9), C.poisson_weights(np.array(keys, dtype=np.uint64), 1, 9)
    )


def test_the_counts_state_operators(metric):
    refs = [["B-A", "O"], ["B-B", "I-B"]]
    a = metric.state(predictions=refs, references=refs, keep="counts")
    b = metric.state(predictions=refs, references=refs, keep="counts", first_sentence=2)
    assert 0 + a is a and a != b and a != "state"
    with pytest.raises(TypeError):
        5 + a


def test_a_duplicate_id_is_named_in_full(metric):
    refs = [["B-A"], ["O"], ["B-B"]]
    with pytest.raises(ValueError) as error:
        metric.state(predictions=refs, references=refs, keep="counts", sentence_ids=[1, 2, 2])
    assert (
        str(error.value)
        == "sentence_ids[1] and sentence_ids[2] are both 2: each sentence is one unit, with its own id"
    )


def test_inflate_stops_at_its_limit():
    """One byte past the limit is refused; a bomb is refused without inflating it (memory stays
    near the limit); bad bytes are named."""
    with pytest.raises(ValueError) as error:
        C.inflate(zlib.compress(b"a" * 1001), 1000, "the blob")
    assert str(error.value) == "the blob: inflates beyond its declared 1,000 bytes"
    bomb = zlib.compress(bytes(50_000_000), 9)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="inflates beyond"):
            C.inflate(bomb, 1000, "the blob")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    with pytest.raises(ValueError) as error:
        C.inflate(b"not zlib", 10, "the blob")
    assert str(error.value) == "the blob: the bytes are not zlib data"


def test_a_seed_counts_modulo_2_to_the_64():
    keys = C.unit_keys([0, 1, "d"], "ids")
    assert np.array_equal(C.poisson_weights(keys, 2**64 + 5, 8), C.poisson_weights(keys, 5, 8))


def test_a_partition_without_entities_resamples_to_zero(metric):
    state = metric.state(
        predictions=[["O", "O"]], references=[["O", "O"]], keep="counts", ci_resamples=4, seed=0
    )
    assert state.resamples.shape == (4, 0) and state.row.tolist() == [] and state.tokens == (2, 2)
    other = metric.state(
        predictions=[["B-A"]], references=[["O"]], keep="counts", ci_resamples=4, seed=0, first_sentence=1
    )
    merged = state + other
    assert merged.resamples.shape == (4, 8) and merged.row.tolist() == other.row.tolist()


def test_a_collision_of_rows_with_one_count_each_falls_back(monkeypatch):
    """Every unit one non-zero column, its count differing: with every signature alike only the
    values tell the rows apart, and the exact rows are still found."""
    entries = np.repeat(np.arange(12) * 5 + np.arange(12) % 5, np.arange(12) % 3 + 1)
    monkeypatch.setattr(C, "mix64", lambda z: np.zeros_like(np.asarray(z, dtype=np.uint64)))
    units, pattern, rows = C.unit_patterns(entries, 5)
    dense = np.bincount(entries, minlength=60).reshape(12, 5)
    assert np.array_equal(rows[pattern], dense[units]) and len(rows) == len(np.unique(dense, axis=0))


def test_resampled_counts_near_the_float_limit_are_refused(monkeypatch):
    """Summed weights times a column's count at a quarter of the exact limit: refused by name (here
    with the limit lowered so that small counts reach it); just below it, computed."""
    rng = np.random.default_rng(0)
    entries = rng.integers(0, 30 * 3, 200)
    keys = C.unit_keys(list(range(30)), "ids")
    units, pattern, rows = C.unit_patterns(entries, 3)
    order = np.argsort(pattern, kind="stable")
    seeded = C._seeded(keys[units[order]], 6)
    sums = C._pattern_sums(seeded, pattern[order], len(rows), 5)
    reach = float(sums.max()) * float(rows.sum(axis=0).max())
    monkeypatch.setattr(C, "_EXACT", 4 * reach)
    with pytest.raises(ValueError) as error:
        C.resampled_rows(entries, keys, 3, 6, 5)
    assert str(error.value) == "resampled counts near 2**53: split the corpus into more states"
    monkeypatch.setattr(C, "_EXACT", 4 * reach + 4)
    assert C.resampled_rows(entries, keys, 3, 6, 5).shape == (5, 3)


def test_mix64_takes_lists_and_leaves_its_input_alone():
    z = np.array([1, 2**64 - 1], dtype=np.uint64)
    assert np.array_equal(C.mix64([1, 2**64 - 1]), C.mix64(z)) and z.tolist() == [1, 2**64 - 1]


def counts_layout(metric):
    import json

    refs = [["B-A", "O"], ["B-B", "I-B"]]
    return json.loads(metric.state(predictions=refs, references=refs, keep="counts").to_bytes())


def test_the_counts_messages_in_full(metric):
    import json

    refs = [["B-A", "O"], ["B-B", "I-B"]]
    a, b = (metric.state(predictions=refs, references=refs, keep="counts", first_sentence=k) for k in (0, 1))
    with pytest.raises(ValueError) as error:
        a + b
    assert str(error.value) == (
        "two states hold sentences 1 to 1: one holds sentences 0 to 1, the other 1 to 2; each sentence is one"
        " unit, in one partition: give each partition its own first_sentence (the number of sentences"
        " before it), or sentence_ids"
    )
    layout = counts_layout(metric)
    layout["decoding"]["predictions"]["reasons"]["no_begin"] = -1
    with pytest.raises(ValueError) as error:
        metric.State.from_bytes(json.dumps(layout).encode())
    assert (
        str(error.value) == "counts state decoding['predictions']['reasons']['no_begin'] is -1, not a count"
    )


def test_adjacent_ranges_read_as_one(metric):
    import json

    layout = counts_layout(metric)
    layout["ranges"] = [[2, 3], [0, 2]]
    assert metric.State.from_bytes(json.dumps(layout).encode()).ranges == [[0, 3]]


def test_the_counts_bytes_are_compact_sorted_json(metric):
    import json

    refs = [["B-A", "O"], ["B-B", "I-B"]]
    state = metric.state(predictions=refs, references=refs, keep="counts", zero_division=1, beta=2.0)
    data = state.to_bytes()
    assert data == json.dumps(json.loads(data), sort_keys=True, separators=(",", ":")).encode("utf-8")
    assert state.settings["options"] == '{"beta": 2.0, "zero_division": 1}'


def tampered_message(metric, edit):
    import json

    layout = json.loads(
        metric.state(
            predictions=[["B-A", "O"], ["B-B", "I-B"]],
            references=[["B-A", "O"], ["B-B", "I-B"]],
            keep="counts",
            ci_resamples=5,
            seed=0,
        ).to_bytes()
    )
    edit(layout)
    with pytest.raises(ValueError) as error:
        metric.State.from_bytes(json.dumps(layout).encode())
    return str(error.value)


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda s: s.update(settings=5),
            "counts state settings: not the settings of metric.state(keep='counts')",
        ),
        (lambda s: s.update(types="AB"), "counts state types: not a list of distinct type names"),
        (lambda s: s["row"].update(dtype="x"), "counts state row: not an int64 array of this layout"),
        (
            lambda s: s["resamples"].update(dtype="x"),
            "counts state resamples: not an int64 array of this layout",
        ),
        (
            lambda s: s.update(settings=dict(s["settings"], resamples=0)),
            "counts state resamples: present, but the settings ask for none",
        ),
        (
            lambda s: s.update(ranges=[[2, 2]]),
            "counts state ranges: not a list of [first, end) sentence ranges",
        ),
        (
            lambda s: s["row"].update(data=base64_of(np.full(16, -1, dtype="<i8").tobytes())),
            "counts state: a negative count",
        ),
    ],
)
def test_tampered_counts_are_named_in_full(metric, edit, message):
    assert tampered_message(metric, edit) == message


def base64_of(raw):
    import base64

    return base64.b64encode(raw).decode()


def test_the_counts_calls_name_their_errors_in_full(metric):
    import evaluate

    from conftest import METRIC_PATH

    refs = [["B-A", "O"], ["B-B", "I-B"]]

    def said(call):
        with pytest.raises(ValueError) as error:
            call()
        return str(error.value)

    state = metric.state(predictions=refs, references=refs, keep="counts")
    assert said(lambda: metric.state(predictions=[], references=[], keep="counts")) == (
        "no sentences: predictions and references are empty"
    )
    assert said(
        lambda: metric.state(predictions=refs, references=refs, keep="counts", ci_resamples=5, seed=None)
    ) == ("keep='counts' needs a seed (an int): every partition must draw the same weights")
    assert (
        said(
            lambda: metric.state(
                predictions=refs, references=refs, keep="counts", document_ids=[1, 2], sentence_ids=[1, 2]
            )
        )
        == "give document_ids or sentence_ids, not both: the units are one or the other"
    )
    assert said(lambda: state + metric.state(predictions=refs, references=refs, first_sentence=2)) == (
        "a counts state (keep='counts') and an exact state (keep='exact') do not merge: make every partition's"
        " state with the same keep"
    )
    assert (
        said(lambda: metric.finalize(metric.CountsState())) == "an empty counts state: no sentence to score"
    )
    assert said(lambda: metric.finalize(state, interval="student")) == (
        "interval must be one of ['percentile', 'bias_corrected'] for a counts state; got 'student'"
    )
    assert said(lambda: evaluate.load(METRIC_PATH, "subgroups").finalize(state)) == (
        "a state of the 'default' config; this metric is 'subgroups'"
    )
    assert C.finalize_counts("default", state) == C.finalize_counts("default", state, "percentile")
