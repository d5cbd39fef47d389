"""Intervals on every headline score and the paired test: counts, resampling, API, docs."""

import itertools
import json
import os
import re

import numpy as np
import pytest

from conftest import ROOT, unsigned
from ner_recall.core import counts as ner_counts
from ner_recall.core import decoding as D
from ner_recall.core import matching as M
from ner_recall.core import vocabulary as ner_core
from ner_recall.stats import interval_methods as IM
from ner_recall.stats import uncertainty as U

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]


def random_corpus(n, seed, noise=0.3, length=8):
    """Gold and predicted tag lists: predictions copy the gold and change ``noise`` of the tags."""
    rng = np.random.default_rng(seed)
    gold = [[TAGS[i] for i in rng.choice(len(TAGS), length, p=[0.55] + [0.075] * 6)] for _ in range(n)]
    pred = [[TAGS[rng.integers(len(TAGS))] if rng.random() < noise else t for t in sent] for sent in gold]
    return gold, pred


def rows_of(references, predictions, units=None):
    corpus = D.encode(predictions, references)
    gold, pred = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
    matching = M.match(gold, pred)
    n = len(references)
    units = (np.arange(n), n) if units is None else units
    stats = U.unit_stats(gold, pred, matching, len(corpus.types), *units)
    counts = ner_counts.count(gold, pred, matching, corpus.types, 0, 1)
    return stats, corpus.types, counts


def flat_scores(results):
    """compute's headline scores under the names of ``results["intervals"]``."""
    flat = {
        k: v for k, v in results.items() if re.match(r"(overall|macro|weighted)_(precision|recall|f1)$", k)
    }
    for name, row in results.items():
        if isinstance(row, dict) and "number" in row:
            flat.update({f"{name}_{k}": row[k] for k in ("precision", "recall", "f1")})
    for mode, table in results.get("muc", {}).items():
        flat.update({f"muc_{mode}_{k}": table[k] for k in ("precision", "recall", "f1")})
        for name, row in table["per_type"].items():
            flat.update({f"muc_{mode}_{name}_{k}": row[k] for k in ("precision", "recall", "f1")})
    return flat


@pytest.fixture(scope="module")
def corpus():
    return random_corpus(300, seed=1)


# ---------------------------------------------------------------------------- counts


@pytest.mark.parametrize("seed, noise", [(0, 0.0), (1, 0.1), (2, 0.3), (3, 0.8)])
def test_unit_rows_add_up_to_the_corpus_counts(seed, noise):
    references, predictions = random_corpus(80, seed, noise)
    stats, types, counts = rows_of(references, predictions)
    k = len(types)
    blocks = stats.sum(axis=0).reshape(len(ner_core.COLUMNS), k)
    pairs = np.zeros(
        (4, k, k), dtype=np.int64
    )  # the sparse pair table made dense: scenario x gold x predicted
    np.add.at(pairs, (counts.pairs.scenario, counts.pairs.gold, counts.pairs.pred), counts.pairs.n)
    assert (blocks[:4] == pairs.sum(axis=2)).all()  # gold side, per scenario
    assert (blocks[4] == pairs[1].sum(axis=0)).all() and (blocks[5] == pairs[3].sum(axis=0)).all()
    assert (blocks[6] == counts.missed).all() and (blocks[7] == counts.spurious).all()


@pytest.mark.parametrize(
    "options",
    [{}, {"zero_division": 1}, {"types": ["PER", "ORG"]}, {"scores": ["muc"]}, {"label_map": {"LOC": "ORG"}}],
)
def test_scores_of_the_summed_rows_are_computes(metric, corpus, options):
    """Every name of "intervals" is a headline score of compute, and the core recomputes it exactly."""
    references, predictions = corpus
    predictions = predictions[:150] + [["O"] * len(s) for s in references[150:]]  # some 0/0 per type
    results = metric.compute(predictions=predictions, references=references, ci_resamples=20, **options)
    flat = flat_scores(results)
    assert set(results["intervals"]) == set(flat)
    for name, (low, high) in results["intervals"].items():
        assert isinstance(low, float) and isinstance(high, float) and low <= high, name


def test_score_table_equals_the_metric_to_the_last_bit(metric, corpus):
    references, predictions = corpus
    stats, types, _ = rows_of(references, predictions)
    names, values = U.score_table(stats.sum(axis=0), types)
    flat = flat_scores(metric.compute(predictions=predictions, references=references))
    assert dict(zip(names, values[0].tolist())) == flat


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_f_beta_from_precision_and_recall(beta):
    rows = np.zeros((1, len(ner_core.COLUMNS)), dtype=np.int64)
    rows[0, 0], rows[0, 6], rows[0, 7] = 6, 2, 4  # 6 exact, 2 missed, 4 spurious: P 0.6, R 0.75
    names, values = U.score_table(rows, ("X",), beta=beta)
    scores = dict(zip(names, values[0]))
    p, r = 0.6, 0.75
    assert scores["overall_f1"] == pytest.approx((1 + beta**2) * p * r / (beta**2 * p + r))


def test_rows_group_into_distinct_patterns():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 3, (5000, 6))
    patterns, counts = U.group_rows(rows)
    assert counts.sum() == len(rows) and len(np.unique(patterns, axis=0)) == len(patterns)
    assert ((patterns * counts[:, None]).sum(axis=0) == rows.sum(axis=0)).all()
    assert len(patterns) == len(np.unique(rows, axis=0))


# ---------------------------------------------------------------------------- intervals


def test_no_resamples_leaves_the_output_unchanged_byte_for_byte(metric, corpus):
    references, predictions = corpus
    plain = metric.compute(predictions=predictions, references=references)
    explicit = metric.compute(
        predictions=predictions, references=references, ci_resamples=0, confidence_level=0.95, seed=0
    )
    assert json.dumps(plain) == json.dumps(explicit) and "intervals" not in plain
    with_intervals = metric.compute(predictions=predictions, references=references, ci_resamples=50)
    assert "|ci:50" in with_intervals["signature"]  # the one other change: the signature names it
    assert json.dumps({k: v for k, v in unsigned(with_intervals).items() if k != "intervals"}) == json.dumps(
        unsigned(plain)
    )


def test_the_subgroups_config_has_intervals_too(corpus):
    import evaluate

    from conftest import METRIC_PATH

    references, predictions = corpus
    stratified = evaluate.load(METRIC_PATH, "subgroups")
    results = stratified.compute(
        predictions=predictions,
        references=references,
        subgroups=["a", "b"] * 150,
        ci_resamples=50,
        confidence_level=0.9,
    )
    assert results["stratified_recall"]["confidence_level"] == 0.9 and "overall_f1" in results["intervals"]


def test_intervals_are_seeded(metric, corpus):
    references, predictions = corpus
    runs = [
        metric.compute(predictions=predictions, references=references, ci_resamples=100, seed=s)["intervals"]
        for s in (7, 7, 8)
    ]
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_intervals_hold_the_estimate_and_narrow_with_confidence(metric):
    references, predictions = random_corpus(2000, seed=4)
    results = metric.compute(predictions=predictions, references=references, ci_resamples=400)
    narrow = metric.compute(
        predictions=predictions, references=references, ci_resamples=400, confidence_level=0.5
    )["intervals"]
    for name, value in flat_scores(results).items():
        low, high = results["intervals"][name]
        assert low <= value <= high, name
        assert low <= narrow[name][0] <= narrow[name][1] <= high, name


def test_grouped_multinomial_is_the_plain_bootstrap():
    """Resampling patterns by multinomial gives the spread of resampling sentences one by one."""
    references, predictions = random_corpus(400, seed=5)
    stats, types, _ = rows_of(references, predictions)
    boot = U.bootstrap(stats, types, 4000, seed=1, families=("seqeval",))
    j = boot.names.index("overall_f1")
    rng = np.random.default_rng(2)
    naive = [
        U.score_table(stats[rng.integers(0, len(stats), len(stats))].sum(axis=0), types, ("seqeval",))[1][
            0, j
        ]
        for _ in range(4000)
    ]
    assert np.std(boot.samples[:, j]) == pytest.approx(np.std(naive), rel=0.06)
    assert np.mean(boot.samples[:, j]) == pytest.approx(np.mean(naive), abs=0.002)


def test_documents_of_one_sentence_are_sentences(metric, corpus):
    references, predictions = corpus
    by_sentence = metric.compute(predictions=predictions, references=references, ci_resamples=100)[
        "intervals"
    ]
    ids = [f"doc{i}" for i in range(len(references))]
    by_document = metric.compute(
        predictions=predictions, references=references, ci_resamples=100, document_ids=ids
    )["intervals"]
    assert by_sentence == by_document


def test_document_rows_are_sums_of_their_sentences(corpus):
    references, predictions = corpus
    ids = [i % 7 for i in range(len(references))]
    units = U.document_units(ids, len(references))
    by_document, _, _ = rows_of(references, predictions, units)
    by_sentence, _, _ = rows_of(references, predictions)
    assert units[1] == 7
    for d in range(7):
        assert (by_document[d] == by_sentence[np.array(ids) == d].sum(axis=0)).all()


def test_correlated_documents_widen_the_interval():
    """Sentences of a document that share their errors: resampling documents is wider."""
    references, predictions = random_corpus(60, seed=6, noise=0.0)
    rng = np.random.default_rng(0)
    bad = set(rng.choice(60, 12, replace=False).tolist())
    references, predictions = (
        references * 10,
        [["O"] * len(p) if i in bad else p for i, p in enumerate(predictions)] * 10,
    )
    ids = list(range(60)) * 10  # a document: ten copies of one sentence
    stats, types, _ = rows_of(references, predictions)
    width = {}
    for name, units in (("sentence", None), ("document", U.document_units(ids, len(ids)))):
        rows = stats if units is None else rows_of(references, predictions, units)[0]
        low, high = U.intervals(rows, types, 500, families=("seqeval",))["overall_recall"]
        width[name] = high - low
    assert width["document"] > 2 * width["sentence"]


def test_a_resample_where_a_score_is_undefined_is_left_out():
    """One PER, found, in 1 of 50 sentences: its recall is 1 in every resample that holds it."""
    rows = np.zeros((50, 2 * len(ner_core.COLUMNS)), dtype=np.int64)
    rows[:, 0] = 1  # an exact LOC in every sentence
    rows[0, 1] = 1  # the one exact PER
    ci = U.intervals(rows, ("LOC", "PER"), 300)
    assert ci["PER_recall"] == [1.0, 1.0] and ci["muc_strict_PER_precision"] == [1.0, 1.0]


@pytest.mark.parametrize("n, level", [(20, 0.95), (100, 0.9), (10_000, 0.95)])
def test_expanded_level_widens_for_few_units(n, level):
    expanded = IM.expanded_level(level, n)
    assert level < expanded < 1 and (expanded - level < 1e-3) == (n >= 10_000)


@pytest.mark.parametrize("method", U.METHODS)
def test_every_method_gives_an_interval_around_the_estimate(method):
    references, predictions = random_corpus(500, seed=8)
    stats, types, _ = rows_of(references, predictions)
    ci = U.intervals(stats, types, 500, method=method)
    estimate = dict(
        zip(*[U.score_table(stats.sum(axis=0), types)[0], U.score_table(stats.sum(axis=0), types)[1][0]])
    )
    for name in ("overall_f1", "muc_partial_recall", "PER_precision"):
        assert ci[name][0] <= estimate[name] <= ci[name][1]


# ---------------------------------------------------------------------------- paired test


def test_identical_systems_differ_by_nothing(metric, corpus):
    references, predictions = corpus
    out = metric.compare(
        predictions=predictions,
        predictions_b=predictions,
        references=references,
        permutations=200,
        ci_resamples=100,
    )
    assert set(out) == {"a", "b", "difference", "intervals", "p_values", "table", "settings"}
    # each system's results as compute gives them, its signature included
    assert out["a"] == out["b"] == metric.compute(predictions=predictions, references=references)
    assert set(out["difference"].values()) == {0.0} and set(out["p_values"].values()) == {1.0}
    assert all(bounds == [0.0, 0.0] for bounds in out["intervals"].values())
    row = out["table"][0]
    assert list(row) == ["score", "a", "b", "difference", "low", "high", "p_value"]
    assert out["settings"] == {
        "unit": "sentence",
        "units": 300,
        "permutations": 200,
        "ci_resamples": 100,
        "confidence_level": 0.95,
        "seed": 0,
    }


def test_compare_reports_both_systems_and_their_difference(metric, corpus):
    references, predictions = corpus
    better = [r if i % 2 else p for i, (r, p) in enumerate(zip(references, predictions))]
    out = metric.compare(
        predictions=predictions,
        predictions_b=better,
        references=references,
        permutations=500,
        ci_resamples=200,
        document_ids=[i // 10 for i in range(300)],
    )
    ids = [i // 10 for i in range(300)]
    a = metric.compute(predictions=predictions, references=references, document_ids=ids)
    b = metric.compute(predictions=better, references=references, document_ids=ids)
    assert out["a"] == a and out["b"] == b  # the documents block and the signature included
    assert out["difference"]["overall_f1"] == pytest.approx(b["overall_f1"] - a["overall_f1"], abs=1e-15)
    assert out["difference"]["muc_type_f1"] == pytest.approx(
        b["muc"]["type"]["f1"] - a["muc"]["type"]["f1"], abs=1e-15
    )
    low, high = out["intervals"]["overall_f1"]
    assert 0 < low < out["difference"]["overall_f1"] < high
    assert out["p_values"]["overall_f1"] == 1 / 501  # no random swap of 30 documents comes close
    assert out["settings"]["unit"] == "document" and out["settings"]["units"] == 30


def test_systems_with_other_type_sets_are_aligned(metric):
    references = [["B-PER", "O"], ["B-LOC", "O"], ["O", "O"]] * 10
    a = [["B-PER", "O"], ["B-LOC", "O"], ["O", "B-MISC"]] * 10
    b = [["B-PER", "O"], ["O", "O"], ["O", "O"]] * 10
    out = metric.compare(
        predictions=a, predictions_b=b, references=references, permutations=100, ci_resamples=50
    )
    assert "MISC_precision" in out["difference"] and "muc_strict_MISC_f1" in out["difference"]
    assert out["difference"]["LOC_recall"] == -1.0


def test_compare_takes_class_ids_with_label_names(metric, corpus):
    references, predictions = corpus
    ids = {tag: i for i, tag in enumerate(TAGS)}
    as_ids = [[[ids[t] for t in sent] for sent in side] for side in (references, predictions)]
    by_ids = metric.compare(
        predictions=as_ids[1],
        predictions_b=as_ids[0],
        references=as_ids[0],
        permutations=100,
        ci_resamples=0,
        label_names=TAGS,
    )
    by_tags = metric.compare(
        predictions=predictions,
        predictions_b=references,
        references=references,
        permutations=100,
        ci_resamples=0,
    )
    assert by_ids == by_tags and "intervals" not in by_ids and "low" not in by_ids["table"][0]


def exact_p_value(stats_a, stats_b, types, name):
    """The two-sided p-value over every one of the 2^n swaps."""
    names, both = U.score_table(np.stack([stats_a.sum(0), stats_b.sum(0)]), types)
    j = names.index(name)
    observed = abs(both[1, j] - both[0, j])
    extreme = 0
    for swap in itertools.product([0, 1], repeat=len(stats_a)):
        s = np.array(swap, dtype=bool)[:, None]
        a, b = np.where(s, stats_b, stats_a).sum(0), np.where(s, stats_a, stats_b).sum(0)
        values = U.score_table(np.stack([a, b]), types, undefined=True)[1][:, j]
        extreme += abs(values[1] - values[0]) >= observed - 1e-12
    return extreme / 2 ** len(stats_a)


def test_randomisation_p_value_matches_the_exact_one():
    references, predictions = random_corpus(12, seed=9, noise=0.2)
    _, other = random_corpus(12, seed=9, noise=0.5)
    stats_a, types, _ = rows_of(references, predictions)
    stats_b, types_b, _ = rows_of(references, other)
    union = tuple(sorted(set(types) | set(types_b)))
    stats_a, stats_b = U.align_types(stats_a, types, union), U.align_types(stats_b, types_b, union)
    out = U.paired(stats_a, stats_b, union, permutations=20_000, resamples=0)
    j = out["names"].index("overall_f1")
    assert out["p_values"][j] == pytest.approx(exact_p_value(stats_a, stats_b, union, "overall_f1"), abs=0.01)


def test_under_a_true_null_the_test_rejects_at_its_level():
    """Two systems from one process: p <= 0.05 in about 5% of 300 corpora (3 standard errors)."""
    rng = np.random.default_rng(10)
    rejected = 0
    for r in range(300):
        rows = np.zeros((2, 200, len(ner_core.COLUMNS)), dtype=np.int64)
        gold = rng.poisson(1.5, 200)
        for s in range(2):
            found = rng.binomial(gold, 0.85)
            rows[s, :, 0], rows[s, :, 6], rows[s, :, 7] = found, gold - found, rng.poisson(0.2, 200)
        out = U.paired(rows[0], rows[1], ("X",), permutations=200, resamples=0, seed=r, families=("seqeval",))
        rejected += out["p_values"][out["names"].index("overall_f1")] <= 0.05
    assert abs(rejected / 300 - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 300)


# ---------------------------------------------------------------------------- bad input

GOOD = [["B-PER", "O"], ["O", "B-LOC"]]

COMPUTE_ERRORS = [
    ({"ci_resamples": -1}, "ci_resamples must be a non-negative int; got -1"),
    ({"ci_resamples": 2.5}, "ci_resamples must be a non-negative int; got 2.5"),
    ({"ci_resamples": True}, "ci_resamples must be a non-negative int; got True"),
    ({"ci_resamples": "100"}, "ci_resamples must be a non-negative int; got '100'"),
    ({"ci_resamples": 10, "confidence_level": 0.0}, "confidence_level must be in (0, 1); got 0.0"),
    ({"ci_resamples": 10, "confidence_level": 1}, "confidence_level must be in (0, 1); got 1"),
    ({"ci_resamples": 10, "confidence_level": "0.9"}, "confidence_level must be in (0, 1); got '0.9'"),
    ({"ci_resamples": 10, "seed": -2}, "seed must be a non-negative int or None; got -2"),
    ({"ci_resamples": 10, "document_ids": ["a"]}, "document_ids has 1 ids but there are 2 sentences"),
    (
        {"ci_resamples": 10, "document_ids": "ab"},
        "document_ids must be a list with one id per sentence; got str",
    ),
    ({"ci_resamples": 10, "document_ids": ["a", ["b"]]}, "document_ids[1] is ['b'], not hashable"),
    ({"ci_resamples": 10, "document_ids": ["a", None]}, "document_ids[1] is None"),
    ({"document_ids": ["a"]}, "document_ids has 1 ids but there are 2 sentences"),
    ({"ci_resamples": 10, "scores": ["token"]}, "ci_resamples needs 'seqeval' or 'muc' in scores"),
]


@pytest.mark.parametrize("options, message", COMPUTE_ERRORS, ids=[m[:40] for _, m in COMPUTE_ERRORS])
def test_compute_rejects_bad_interval_options(metric, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compute(predictions=GOOD, references=GOOD, **options)


COMPARE_ERRORS = [
    ({"predictions_b": GOOD[:1]}, "predictions_b has 1 sentences but references has 2"),
    ({"predictions_b": [["B-PER"], ["O", "B-LOC"]]}, "predictions_b[0] has 1 tags but references[0] has 2"),
    ({"predictions_b": [["B-PER", "X-LOC"], ["O", "O"]]}, "at predictions_b[0][1]"),
    ({"predictions_b": [["B-PER", 3], ["O", "O"]]}, "predictions_b[0][1]"),
    ({"predictions_b": "B-PER O"}, "predictions_b must be a list of tag lists"),
    ({"permutations": 0}, "permutations must be a >= 1 int; got 0"),
    ({"ci_resamples": -5}, "ci_resamples must be a non-negative int; got -5"),
    ({"confidence_level": 95}, "confidence_level must be in (0, 1); got 95"),
    ({"document_ids": [1, 2, 3]}, "document_ids has 3 ids but there are 2 sentences"),
    ({"mode": "strict"}, "mode='strict' needs a scheme"),
    ({"subgroups": ["a", "b"]}, "subgroups needs the 'subgroups' config"),
    ({"scores": ["harem"]}, "compare needs 'seqeval' or 'muc' in scores"),
]


@pytest.mark.parametrize("options, message", COMPARE_ERRORS, ids=[m[:40] for _, m in COMPARE_ERRORS])
def test_compare_rejects_bad_input(metric, options, message):
    given = {"predictions": GOOD, "predictions_b": GOOD, "references": GOOD, **options}
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compare(**given)


# ---------------------------------------------------------------------------- trainer and docs


def test_trainer_logs_interval_ends(metric):
    compute_metrics = metric.trainer_compute_metrics(["O", "B-PER", "I-PER"], ci_resamples=50)
    logged = compute_metrics((np.array([[1, 2, 0, 1]] * 30), np.array([[1, 2, 0, 0]] * 30)))
    assert logged["intervals_overall_f1_low"] <= logged["overall_f1"] <= logged["intervals_overall_f1_high"]


def tables(text):
    """Every markdown table of a text, as a list of row lists."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line.strip())
        elif current:
            found.append(current)
            current = []
    return found


def test_the_docs_tables_are_the_bench_tables():
    docs = open(os.path.join(ROOT, "docs", "uncertainty.md"), encoding="utf-8").read()
    bench = open(os.path.join(ROOT, "bench", "uncertainty.md"), encoding="utf-8").read()
    shown = tables(docs)
    assert len(shown) >= 3, "docs/uncertainty.md shows the speed, coverage and paired-test tables"
    for table in shown:
        assert table in tables(bench), table[:2]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_intervals_and_compare_on_a_handful_of_sentences(metric, n):
    """The widened level of a tiny corpus rounds to 1: the extreme draws are the bounds, no error."""
    references = [["O", "B-PER", "I-PER", "O", "B-LOC"], ["B-ORG", "I-ORG", "O", "B-PER"], ["B-LOC"]][:n]
    predictions = [["O", "B-PER", "O", "O", "B-ORG"], ["B-ORG", "I-ORG", "O", "O"], ["B-LOC"]][:n]
    results = metric.compute(predictions=predictions, references=references, ci_resamples=200)
    for name, (low, high) in results["intervals"].items():
        assert 0 <= low <= high <= 1, name
    comparison = metric.compare(
        predictions=predictions,
        predictions_b=references,
        references=references,
        permutations=200,
        ci_resamples=200,
    )
    assert 0 < comparison["p_values"]["overall_f1"] <= 1
    low, high = comparison["intervals"]["overall_f1"]
    assert low <= comparison["difference"]["overall_f1"] <= high or n == 1
