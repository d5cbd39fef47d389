"""Hostile input and bounded cost, round three: a named ValueError, a right answer, or a bounded cost,
and the object usable after each; interval end points pinned against an independent computation."""

import re
from statistics import NormalDist

import numpy as np
import pytest
from scipy.stats import t as student_t

from conftest import METRIC_PATH
from ner_recall.core import vocabulary as ner_core
from ner_recall.stats import interval_methods as IM
from ner_recall.stats import uncertainty as U

OK = [["B-PER", "O"]]


@pytest.fixture(scope="module")
def spans_metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


# ---------------------------------------------------------------------------- intervals, independently


def rows_for(seed, units=60):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, size=(units, len(ner_core.COLUMNS) * 2)), ("LOC", "PER")


def naive_bca(samples, estimate, jackknife, level):
    """Efron and Tibshirani's BCa (1993, ch. 14) from the draws and a leave-one-unit-out jackknife."""
    normal = NormalDist()
    s = samples[~np.isnan(samples)]
    z0 = normal.inv_cdf((np.sum(s < estimate) + 0.5 * np.sum(s == estimate)) / len(s))
    d = jackknife.mean() - jackknife
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    alpha = (1 - level) / 2
    ends = [z0 + normal.inv_cdf(p) for p in (alpha, 1 - alpha)]
    return np.quantile(s, [normal.cdf(z0 + e / (1 - a * e)) for e in ends])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_interval_is_a_two_sided_expanded_bca_computed_independently(seed):
    rows, types = rows_for(seed)
    boot = U.bootstrap(rows, types, resamples=2000, seed=seed)
    ours = U.intervals(rows, types, resamples=2000, seed=seed)
    n = len(rows)
    # Hesterberg's expanded level, from Student's t, by hand
    z = np.sqrt(n / (n - 1)) * student_t.ppf(0.975, n - 1)
    level = 1 - 2 * NormalDist().cdf(-z)
    for j, name in enumerate(boot.names[:3]):  # overall precision, recall, F1
        jack = np.array([U.score_table(rows.sum(0) - rows[i], types)[1][0, j] for i in range(n)])
        expected = naive_bca(boot.samples[:, j], boot.estimate[j], jack, level)
        assert ours[name] == pytest.approx(expected.tolist(), abs=1e-12), name


def test_percentile_interval_cuts_both_tails_by_half_the_rest():
    rows, types = rows_for(5)
    boot = U.bootstrap(rows, types, resamples=3000, seed=5)
    ours = U.intervals(rows, types, resamples=3000, seed=5, method="percentile", confidence_level=0.9)
    s = boot.samples[:, 0]
    assert ours[boot.names[0]] == pytest.approx(
        np.quantile(s[~np.isnan(s)], [0.05, 0.95]).tolist(), abs=1e-15
    )


def test_draws_beyond_the_memory_bound_are_binned_within_one_bin(monkeypatch):
    rows, types = rows_for(3, units=300)
    exact = U.intervals(rows, types, resamples=3000, seed=0)
    monkeypatch.setattr(IM, "MAX_CELLS", 1000)  # 3000 resamples x 60 scores: binned, 1024 bins
    boot = U.bootstrap(rows, types, resamples=3000, seed=0)
    assert isinstance(boot.samples, IM.Binned) and boot.samples.bins == 1024
    binned = U.intervals(rows, types, resamples=3000, seed=0)
    for name in exact:
        assert binned[name] == pytest.approx(exact[name], abs=2 / 1024), name


@pytest.mark.parametrize("option", ["ci_resamples", "permutations"])
def test_resamples_and_permutations_are_capped(metric, option):
    call = metric.compare if option == "permutations" else metric.compute
    extra = {"predictions_b": OK} if option == "permutations" else {}
    with pytest.raises(ValueError, match=re.escape(f"{option} must be at most 1,000,000; got 1000000000")):
        call(predictions=OK, references=OK, **extra, **{option: 10**9})
    assert metric.compute(predictions=OK, references=OK)["overall_f1"] == 1.0


# ---------------------------------------------------------------------------- bounded cost


def test_token_counts_of_huge_entities_come_from_run_lengths(spans_metric):
    gold = [[{"label": "A", "start": 0, "end": 10**9}, {"label": "A", "start": 5, "end": 20}]]
    pred = [[{"label": "A", "start": 5, "end": 10**9 + 5}]]
    token = spans_metric.compute(predictions=pred, references=gold, scores=["token"])["token"]
    # gold covers [0, 1e9) once (the nested one adds nothing), the prediction [5, 1e9 + 5)
    assert (token["correct"], token["number"], token["predicted"]) == (10**9 - 5, 10**9, 10**9)


@pytest.mark.parametrize("seed", range(5))
def test_token_counts_equal_the_item_sets(spans_metric, seed):
    rng = np.random.default_rng(seed)

    def side():
        out = []
        for _ in range(30):
            spans = []
            for _ in range(rng.integers(0, 5)):
                s = int(rng.integers(0, 12))
                spans.append(
                    {"label": str(rng.choice(["A", "B"])), "start": s, "end": s + int(rng.integers(1, 5))}
                )
            out.append(list({(d["label"], d["start"], d["end"]): d for d in spans}.values()))
        return out

    gold, pred = side(), side()
    items = [
        {
            (i, t, label)
            for i, ex in enumerate(s)
            for d in ex
            for label in [d["label"]]
            for t in range(d["start"], d["end"])
        }
        for s in (gold, pred)
    ]
    token = spans_metric.compute(predictions=pred, references=gold, scores=["token"])["token"]
    assert (token["correct"], token["number"], token["predicted"]) == (
        len(items[0] & items[1]),
        len(items[0]),
        len(items[1]),
    )


def test_span_offsets_beyond_the_layout_are_refused_by_name(spans_metric):
    big = 2**61
    gold = [[{"label": "A", "start": big, "end": big + 1}]] * 3
    pred = [[{"label": "A", "start": 0, "end": 1}]] * 3
    with pytest.raises(
        ValueError, match=r"span offsets too large: .* above the bound 2\*\*62 .* references\[0\]"
    ):
        spans_metric.compute(predictions=pred, references=gold)
    assert spans_metric.compute(predictions=pred[:1], references=pred[:1])["overall_f1"] == 1.0


def test_placing_one_string_many_times_takes_each_next_occurrence(metric):
    text = " ".join(["abc"] * 40_000)  # bench/stress.py times it: linear now, quadratic before
    placed = metric.find_entities([text], [[("X", "abc")] * 20_000])
    assert placed["total"]["placed"] == 20_000 and placed["entities"][0][-1]["start"] == 4 * 19_999
    assert [e["start"] for e in placed["entities"][0][:3]] == [0, 4, 8]


# ---------------------------------------------------------------------------- named errors


def _bad_calls():
    from ner_recall.readers import benchmarks as ner_benchmarks
    from ner_recall.readers import files as ner_files

    example = {
        "text": "a b",
        "token_starts": [0, 2],
        "token_ends": [1, 3],
        "span_start": 0,
        "span_end": 1,
        "span_label": "PER",
    }
    return [
        (
            "compare references None",
            lambda m: m.compare(predictions=OK, predictions_b=OK, references=None),
            "references must be a list of tag lists, one per sentence; got NoneType",
        ),
        (
            "compare references a str",
            lambda m: m.compare(predictions=OK, predictions_b=OK, references="B-PER"),
            "references must be a list of tag lists, one per sentence; got str",
        ),
        (
            "find_entities texts None",
            lambda m: m.find_entities(None, [[("PER", "a")]]),
            "texts must be a list of str, one per example; got None",
        ),
        (
            "read_pair None",
            lambda m: ner_files.read_pair(None, "p.conll"),
            "gold_path must be the path of a file",
        ),
        ("load_benchmark None", lambda m: m.load_benchmark(None), "description_csv must be the path"),
        (
            "align spans None",
            lambda m: m.align(example, None),
            "pred_spans must be a list of (start, end, label)",
        ),
        (
            "align without span keys",
            lambda m: m.align({"text": "a"}, []),
            "missing ['token_starts', 'token_ends'",
        ),
        (
            "align not a dict",
            lambda m: ner_benchmarks.align(None, []),
            "example must be a row of load_benchmark",
        ),
        (
            "reserved type in tags",
            lambda m: m.compute(predictions=[["O", "B-muc"]], references=[["O", "O"]]),
            "entity type 'muc' (the entity at predictions[0][1]) collides",
        ),
        (
            "reserved type by label_map",
            lambda m: m.compute(predictions=OK, references=OK, label_map={"PER": "token"}),
            "entity type 'token' (label_map['PER']) collides",
        ),
    ]


@pytest.mark.parametrize("name, call, message", _bad_calls(), ids=[c[0] for c in _bad_calls()])
def test_hostile_calls_are_named_value_errors(metric, name, call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call(metric)
    assert metric.compute(predictions=OK, references=OK)["overall_f1"] == 1.0


def test_a_generator_of_subgroups_is_read_once():
    import evaluate

    stratified = evaluate.load(METRIC_PATH, "subgroups")
    results = stratified.compute(predictions=OK * 2, references=OK * 2, subgroups=(g for g in ["a", "b"]))
    assert results["stratified_recall"]["strata"]["b"]["n"] == 1


def test_document_ids_as_a_numpy_array(metric):
    ids = np.array([7, 7, 9])
    as_array = metric.compute(predictions=OK * 3, references=OK * 3, ci_resamples=20, document_ids=ids)
    as_list = metric.compute(
        predictions=OK * 3, references=OK * 3, ci_resamples=20, document_ids=ids.tolist()
    )
    assert as_array == as_list


@pytest.mark.parametrize(
    "labels, predictions, message",
    [
        ([[1, 2], [1]], np.zeros((2, 2), int), "label_ids[1] has 1 items but label_ids[0] has 2"),
        (np.zeros((2, 2), int), [[1, 2], [1]], "predictions[1] has 1 items but predictions[0] has 2"),
        (
            np.zeros((2, 4), int),
            np.zeros((2, 3, 5)),
            "label_ids have shape (2, 4) but the logits have (2, 3)",
        ),
    ],
)
def test_trainer_helper_names_ragged_and_misshapen_arrays(labels, predictions, message):
    from ner_recall.integrations.trainer import eval_prediction_ids

    with pytest.raises(ValueError, match=re.escape(message)):
        eval_prediction_ids((predictions, labels))


def test_a_sentence_break_holding_only_a_tab_is_blank(tmp_path):
    from ner_recall.readers import files as ner_files

    path = tmp_path / "x.conll"
    path.write_text("a\tB-PER\n\t\nb\tO\n \t \nc\tO\n", encoding="utf-8")
    assert ner_files.read_conll(str(path)).tokens == [["a"], ["b"], ["c"]]


@pytest.mark.parametrize(
    "line, message",
    [
        (
            '{"tokens": ["a"], "entities": [{"label": "A", "start": false, "end": true}]}',
            "start and end must be ints",
        ),
        ('{"tokens": ["a"], "entities": [{"label": "A", "start": 0, "end": true}]}', "got 0, True"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deep to read"),
    ],
)
def test_jsonl_refuses_booleans_as_offsets_and_deep_nesting(tmp_path, line, message):
    from ner_recall.readers import files as ner_files

    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        ner_files.read_jsonl(str(path))
    assert "x.jsonl line 1" in str(error.value)


def test_binned_draws_give_the_order_statistics_at_bin_centres():
    """Draws at the centres of distinct bins: the binned quantiles are the exact ones."""
    bins = 1024
    binned = IM.Binned(np.zeros(1))
    assert binned.bins == 65536
    binned.bins, binned.hist = bins, np.zeros(bins, dtype=np.int64)
    rng = np.random.default_rng(0)
    centres = -1 + (2 * rng.choice(bins, size=301, replace=False) + 1) / bins
    binned.add(centres[:, None])
    for q in (0.0, 0.025, 0.5, 0.975, 1.0):
        assert binned.quantile(0, [q])[0] == pytest.approx(np.quantile(centres, q), abs=1e-12)
