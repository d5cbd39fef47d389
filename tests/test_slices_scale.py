"""Slices in time linear in the values and the sentences, with the same numbers: each value's
sentences grouped by one sort (``ner_slices.group_by``), its unit rows from one count over
(value, unit) pairs, and the BCa interval of every score in batches; each piece checked against
the one-value-at-a-time definition it replaces, to the bit."""

import random
from statistics import NormalDist

import numpy as np
import pytest
from test_parity import random_corpus

from ner_recall.core import vocabulary as ner_core
from ner_recall.core.counts import count_rows
from ner_recall.families import slices as ner_slices
from ner_recall.stats import interval_methods as IM
from ner_recall.stats import uncertainty as U


def reference_bca(samples, estimate, level, jackknife, weights):
    """The BCa interval column by column, as the definition reads (np.quantile per column)."""
    normal = NormalDist()
    alpha = (1 - min(level, IM.MAX_LEVEL)) / 2
    out = np.empty((2, samples.shape[1]))
    for j in range(samples.shape[1]):
        s, jack = samples[:, j], jackknife[:, j]
        s, keep = s[~np.isnan(s)], ~np.isnan(jack)
        if not len(s):
            out[:, j] = estimate[j]
            continue
        below = (np.count_nonzero(s < estimate[j]) + 0.5 * np.count_nonzero(s == estimate[j])) / len(s)
        if below <= 0 or below >= 1 or np.ptp(s) == 0:
            out[:, j] = np.quantile(s, [alpha, 1 - alpha])
            continue
        z0 = normal.inv_cdf(below)
        d = np.average(jack[keep], weights=weights[keep]) - jack[keep] if keep.any() else np.zeros(0)
        spread = float(np.sum(weights[keep] * d**2))
        a = float(np.sum(weights[keep] * d**3)) / (6 * spread**1.5) if spread > 0 else 0.0
        ends = [z0 + z for z in (normal.inv_cdf(alpha), normal.inv_cdf(1 - alpha))]
        if any(1 - a * e <= 0 for e in ends):
            out[:, j] = np.quantile(s, [alpha, 1 - alpha])
            continue
        out[:, j] = np.quantile(s, [normal.cdf(z0 + e / (1 - a * e)) for e in ends])
    return out


def draws(rng, shape, kind):
    """Resampled scores as the bootstrap gives them: ties, a grid of ratios, NaN where undefined."""
    values = {
        "uniform": lambda: rng.random(shape),
        "ties": lambda: rng.integers(0, 5, shape) / 4.0,
        "ratios": lambda: rng.integers(0, 3, shape) / rng.integers(1, 7, shape),
        "rounded": lambda: rng.random(shape).round(2),
    }[kind]()
    values[rng.random(shape) < rng.random() * 0.3] = np.nan
    return values


@pytest.mark.parametrize("kind", ["uniform", "ties", "ratios", "rounded"])
@pytest.mark.parametrize("seed", range(6))
def test_quantiles_of_sorted_columns_equal_numpys_column_by_column(kind, seed):
    rng = np.random.default_rng(seed)
    samples = draws(rng, (int(rng.integers(1, 400)), int(rng.integers(1, 20))), kind)
    samples[:, 0] = np.nan if seed % 2 else samples[:, 0]
    levels = np.vstack(
        [rng.random(samples.shape[1]), rng.choice([0.0, 1.0, 0.5, 1 - 1e-12], samples.shape[1])]
    )
    defined = np.count_nonzero(~np.isnan(samples), axis=0)
    got = IM.sorted_quantiles(np.sort(samples, axis=0), defined, levels)
    for j in np.flatnonzero(defined):
        column = samples[:, j][~np.isnan(samples[:, j])]
        want = np.quantile(column, levels[:, j])
        assert np.array_equal(got[:, j], want) and np.array_equal(np.signbit(got[:, j]), np.signbit(want))


@pytest.mark.parametrize("kind", ["uniform", "ties", "ratios", "rounded"])
@pytest.mark.parametrize("level", [0.95, 0.9, 0.5, 1 - 1e-12])
@pytest.mark.parametrize("seed", range(5))
def test_bca_in_batches_equals_the_column_by_column_definition(kind, level, seed):
    rng = np.random.default_rng([seed, int(level * 100)])
    n_draws, n_scores, n_rows = int(rng.integers(1, 300)), int(rng.integers(1, 15)), int(rng.integers(1, 40))
    samples = draws(rng, (n_draws, n_scores), kind)
    if seed == 0:
        samples[:, 0] = np.nan  # a score undefined in every resample
    drawn = np.nan_to_num(samples[rng.integers(0, n_draws)])  # an estimate equal to some draws
    estimate = np.where(rng.random(n_scores) < 0.5, drawn, rng.random(n_scores))
    jackknife = rng.random((n_rows, n_scores)) * rng.random()
    jackknife[rng.random((n_rows, n_scores)) < 0.2] = np.nan
    if seed == 1:
        jackknife[:] = jackknife[:, :1]  # every score with the same undefined rows
    weights = rng.integers(1, 50, n_rows)
    got = IM.bca_interval(samples, estimate, level, jackknife, weights)
    want = reference_bca(samples, estimate, level, jackknife, weights)
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("m, n", [(1, 1), (3, 50), (40, 200), (200, 200)])
def test_groups_are_each_values_items_in_order_and_their_ranks(m, n):
    code = np.random.default_rng(n).integers(0, m, n)
    groups = ner_slices.group_by(code, m)
    for i in range(m):
        at = np.flatnonzero(code == i)
        assert np.array_equal(groups.members(i), at)
        assert np.array_equal(groups.rank[at], np.arange(len(at)))


def mask_unit_rows(view, code, units, m):
    """Per value, the unit rows the way a mask per value gives them (the definition)."""
    unit, _ = units
    out = []
    for i in range(m):
        keep = code == i
        local = np.full(len(unit), -1, dtype=np.intp)
        _, local[keep] = np.unique(unit[keep], return_inverse=True)
        gold_keep, pred_keep = keep[view.gold.sentence], keep[view.pred.sentence]
        gold_at, pred_at = np.cumsum(gold_keep) - 1, np.cumsum(pred_keep) - 1
        mt = view.matching
        pair, overlap = gold_keep[mt.gold], gold_keep[mt.overlap_gold]
        matching = type(mt)(
            gold_at[mt.gold[pair]],
            pred_at[mt.pred[pair]],
            mt.scenario[pair],
            gold_at[mt.overlap_gold[overlap]],
            pred_at[mt.overlap_pred[overlap]],
        )
        gold = type(view.gold)(*(f[gold_keep] for f in view.gold))
        pred = type(view.pred)(*(f[pred_keep] for f in view.pred))
        out.append(count_rows(gold, pred, matching, len(view.types), local, int(local.max()) + 1))
    return out


@pytest.mark.parametrize("documents", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_value_unit_rows_from_one_count_equal_a_count_per_value(metric, seed, documents):
    from ner_recall.pipeline import compute as ner_pipeline
    from ner_recall.pipeline import options as ner_options
    from ner_recall.stats.uncertainty import document_units

    references, predictions = random_corpus(seed, 120, prefixes="OOOBIES")
    options = ner_options.check_options("default", {})
    views: list = []
    ner_pipeline.score_tags(ner_pipeline.tag_corpus(predictions, references, options), options, views=views)
    view = views[0]
    n, m = len(references), [2, 7, 40][seed]
    code = np.random.default_rng(seed).integers(0, m, n)
    ids = [i // 5 for i in range(n)] if documents else None  # a document's sentences in several values
    units = document_units(ids, n)
    got = ner_slices.value_unit_rows(view, code, units, m)
    for a, b in zip(got, mask_unit_rows(view, code, units, m)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", [5, 6])
def test_a_slices_intervals_are_those_of_its_sentences_alone(metric, seed):
    references, predictions = random_corpus(seed, 300, prefixes="OOOBIES")
    rng = random.Random(seed)
    slices = [rng.choice("ab") for _ in references]
    results = metric.compute(
        predictions=predictions, references=references, slices=slices, ci_resamples=80, seed=seed
    )
    for value in "ab":
        at = [i for i, s in enumerate(slices) if s == value]
        alone = metric.compute(
            predictions=[predictions[i] for i in at],
            references=[references[i] for i in at],
            ci_resamples=80,
            seed=seed,
        )
        part = results["slices"]["slice"]["values"][value]["intervals"]
        assert set(alone["intervals"]) == set(part)  # every type on either side of each slice
        assert alone["intervals"] == part


def unit_rows(rng, n_units, n_types, sparse):
    """Count rows of units: few distinct rows (sparse) or many, some types absent."""
    rows = rng.integers(0, 3, (n_units, len(ner_core.COLUMNS) * n_types))
    rows[rng.random(rows.shape) < sparse] = 0
    return rows


@pytest.mark.parametrize("cells", [None, 1, 5000])  # the default batches, one value a batch, a few
@pytest.mark.parametrize("seed", range(4))
def test_many_intervals_in_batches_equal_one_interval_call_each(monkeypatch, seed, cells):
    if cells is not None:
        monkeypatch.setattr(U, "CELLS_PER_BATCH", cells)
    rng = np.random.default_rng(seed)
    types = ("LOC", "ORG", "PER")
    stats = [
        unit_rows(rng, int(rng.integers(1, 30)), len(types), rng.choice([0.5, 0.9, 1.0])) for _ in range(12)
    ]
    options = {"resamples": int(rng.choice([1, 40, 300])), "confidence_level": 0.9, "seed": seed}
    families = [("seqeval", "muc"), ("seqeval",), ("muc",)][seed % 3]
    beta, zero = [1.0, 2.0][seed % 2], [0.0, 1.0][seed // 2 % 2]
    got = U.many_intervals(stats, types, options, families, beta, zero)
    for rows, one in zip(stats, got):
        assert one == U.interval_results(rows, types, options, families, beta, zero)


def test_many_intervals_beyond_the_kept_draws_bin_as_one_call_does(monkeypatch):
    monkeypatch.setattr(IM, "MAX_CELLS", 1000)  # 300 resamples x names: binned draws
    rng = np.random.default_rng(9)
    stats = [unit_rows(rng, 20, 2, 0.5) for _ in range(3)]
    options = {"resamples": 300, "confidence_level": 0.95, "seed": 1}
    got = U.many_intervals(stats, ("A", "B"), options)
    assert got == [U.interval_results(rows, ("A", "B"), options) for rows in stats]


def test_the_docs_costs_table_is_the_bench_output():
    import os
    import re

    from conftest import ROOT

    with open(os.path.join(ROOT, "bench", "slices.md")) as f:
        written = [line for line in f.read().split("\n## Costs")[1].splitlines() if line.startswith("|")]
    with open(os.path.join(ROOT, "docs", "slices.md")) as f:
        page = f.read()
    shown = (
        re.search(r"<!-- slices-costs -->\n(.*?)\n<!-- /slices-costs -->", page, re.S).group(1).splitlines()
    )
    assert len(written) == 10 and shown == written


@pytest.mark.parametrize("seed", range(4))
def test_distinct_rows_give_every_row_back(seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, [2, 3, 50, 10**6][seed], (500, 7)).astype(float)
    distinct, inverse = U.distinct_rows(rows)
    assert np.array_equal(distinct[inverse], rows)
    assert len(distinct) == len(np.unique(rows, axis=0))


def test_distinct_rows_whose_keys_collide_are_still_told_apart():
    c = np.random.default_rng(0).integers(-(2**62), 2**62, 2, dtype=np.int64)  # the keys' coefficients
    rows = np.array([[c[1], 0], [0, c[0]], [c[1], 0]], dtype=np.int64)  # c1 * c0 == c0 * c1: one key
    distinct, inverse = U.distinct_rows(rows)
    assert len(distinct) == 2 and np.array_equal(distinct[inverse], rows)


@pytest.mark.parametrize("counts", [[1], [2, 1], [1, 1, 1], [3, 2, 1, 1], [5] * 6, [200, 201]])
def test_the_bound_on_distinct_totals_holds(counts):
    counts = np.array(counts)
    draws = np.random.default_rng(0).multinomial(counts.sum(), counts / counts.sum(), size=3000)
    bound = U._outcomes(counts, 3000)
    assert len(np.unique(draws, axis=0)) <= bound <= 3000
