"""bench/scale_out.py: the partitions it makes in the workers, the tree it adds counts states in,
and (slow: it starts Dask) a small run whose results every worker count agrees on and which equal
one ``compute``'s."""

import argparse
import os
import sys

import numpy as np
import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
import scale_out  # noqa: E402


@pytest.mark.parametrize("seed", [0, 7])
def test_a_partition_is_its_seed_alone(seed):
    lengths, gold, pred = scale_out.part_codes(500, seed)
    again = scale_out.part_codes(500, seed)
    assert all(np.array_equal(a, b) for a, b in zip((lengths, gold, pred), again))
    assert len(gold) == len(pred) == lengths.sum() and lengths.min() >= 1
    assert gold.min() >= 0 and max(gold.max(), pred.max()) <= 2 * scale_out.TYPES
    first = np.r_[0, np.cumsum(lengths)[:-1]]
    assert not (gold[first] % 2 == 0)[gold[first] > 0].any()  # no gold I- opens a sentence
    assert 0.05 < (gold != pred).mean() < 0.15 and not np.array_equal(
        gold, scale_out.part_codes(500, seed + 1)[1]
    )


@pytest.mark.parametrize("n", range(1, 10))
def test_the_tree_adds_every_item_once_in_order(n):
    assert scale_out.tree([[i] for i in range(n)], lambda a, b: a + b) == list(range(n))


def test_partition_states_added_on_a_worker_are_the_state_of_both():
    options = {"keep": "counts", "seed": 0, "ci_resamples": 20}
    jobs = scale_out.tasks(300, 3, options=options)
    outputs = [scale_out.partition_state(job) for job in jobs]
    merged, steps = scale_out.tree(outputs, scale_out.add_states)
    assert [step for _, step, _ in steps].count("merge") == 2 and len(steps) == 3 * 2 + 2
    import pyarrow as pa

    parts = [scale_out.part_arrays(n, seed * 1_000_003 + first) for first, n, seed, _ in jobs]
    whole = scale_out.metric().state(
        predictions=pa.concat_arrays([p[0] for p in parts]),
        references=pa.concat_arrays([p[1] for p in parts]),
        label_names=scale_out.tags(),
        **options,
    )
    assert merged == whole.to_bytes()


@pytest.mark.slow
def test_a_small_run_agrees_on_every_worker_count_and_with_compute(tmp_path):
    args = argparse.Namespace(
        keep=["counts", "exact"],
        ci_resamples=10,
        sizes=[2_000],
        partition_size=500,
        engines=["dask"],
        workers=[1, 2],
        check_max=2_000,
    )
    rows, checked = scale_out.measure(args)  # asserts equal results on every run
    assert checked == {("counts", 2_000): True, ("exact", 2_000): True}
    assert [(r["keep"], r["workers"], r["parts"]) for r in rows] == [
        ("counts", 1, 4),
        ("counts", 2, 4),
        ("exact", 1, 4),
        ("exact", 2, 4),
    ]
    counts = [r for r in rows if r["keep"] == "counts"]
    assert all(r["merge"] > 0 and r["state"] > 0 and r["own"] >= r["own wall"] for r in counts)
    assert "speed-up" in rows[1] and len(scale_out.table(rows)) == 2 + len(rows)
