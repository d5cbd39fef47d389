"""The mergeable state on real engines, each in its local mode: Dask, PySpark (local[2]), Ray (a local
cluster) and torch.distributed (gloo, two processes, no shared filesystem). Each scores the same corpus
in partitions and checks the merged state against one ``compute``. The engines are extras
(requirements-extras.txt): locally their tests skip with the reason, in CI they run."""

import functools
import os
import pickle
import subprocess
import sys
import textwrap

# isort: off
# isort: on
from test_parity import random_corpus

from conftest import METRIC_PATH, ROOT, require

OPTIONS = {"scores": ["seqeval", "muc", "token"], "ci_resamples": 20, "seed": 1}


def corpus():

    references, predictions = random_corpus(11, 400, prefixes="OOOBIES", types="ABC")
    return [(i, p, r) for i, (p, r) in enumerate(zip(predictions, references))]


@functools.cache
def _metric():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import evaluate

    return evaluate.load(METRIC_PATH)


def partition_states(rows):
    """What an engine runs on one partition: a state per run of consecutive sentences, as bytes."""
    rows = sorted(rows, key=lambda row: row[0])
    out, run = [], []
    for row in rows + [None]:
        if run and (row is None or row[0] != run[-1][0] + 1):
            state = _metric().state(
                predictions=[p for _, p, _ in run],
                references=[r for _, _, r in run],
                first_sentence=run[0][0],
                **OPTIONS,
            )
            out.append(state.to_bytes())
            run = []
        if row is not None:
            run.append(row)
    return out


def check(states):
    metric = _metric()
    merged = sum((metric.State.from_bytes(b) for b in states), metric.State())
    rows = corpus()
    expected = metric.compute(
        predictions=[p for _, p, _ in rows], references=[r for _, _, r in rows], **OPTIONS
    )
    assert len(states) >= 2 and repr(metric.finalize(merged)) == repr(expected)


def test_dask_bag():
    require("dask.bag", "pip install -r requirements-extras.txt")
    import dask.bag as db

    bag = db.from_sequence(corpus(), npartitions=4)
    states = bag.map_partitions(partition_states).compute(scheduler="processes", num_workers=2)
    check(states)


def workers_path(monkeypatch):
    """The workers an engine starts import this module (and the metric's folder) by name."""
    path = os.pathsep.join([os.path.join(ROOT, "tests"), ROOT, os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path)
    return path


def test_pyspark_local(monkeypatch):
    require("pyspark", "pip install -r requirements-extras.txt (and a Java runtime)")
    from pyspark.sql import SparkSession

    workers_path(monkeypatch)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)  # the workers run this interpreter
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("ner_state")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        rdd = spark.sparkContext.parallelize(corpus(), 4)
        states = rdd.mapPartitions(partition_states).collect()
    finally:
        spark.stop()
    check(states)


def test_ray_local_cluster(monkeypatch):
    ray = require("ray", "pip install -r requirements-extras.txt")
    path = workers_path(monkeypatch)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        ignore_reinit_error=True,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path, "HF_HUB_OFFLINE": "1"}},
    )
    try:
        import datasets

        rows = corpus()
        ds = datasets.Dataset.from_dict(
            {
                "index": [i for i, _, _ in rows],
                "predictions": [p for _, p, _ in rows],
                "references": [r for _, _, r in rows],
            }
        )

        def batch_states(batch):
            triples = [
                (int(i), list(p), list(r))
                for i, p, r in zip(batch["index"], batch["predictions"], batch["references"])
            ]
            return {"state": partition_states(triples)}

        data = ray.data.from_huggingface(ds).repartition(4)
        states = [row["state"] for row in data.map_batches(batch_states, batch_size=150).take_all()]
    finally:
        ray.shutdown()
    check(states)


GLOO = textwrap.dedent("""
    import os, pickle, sys
    import torch.distributed as dist
    sys.path[:0] = [sys.argv[3], os.path.join(sys.argv[3], "tests")]
    import test_engines as T
    rank, out = int(sys.argv[1]), sys.argv[2]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[4])
    dist.init_process_group("gloo", rank=rank, world_size=2)
    rows = T.corpus()
    mine = T.partition_states(rows[rank * 200:(rank + 1) * 200])
    gathered = [None, None]
    dist.all_gather_object(gathered, mine)
    if rank == 0:
        with open(out, "wb") as f:
            pickle.dump([b for part in gathered for b in part], f)
    dist.destroy_process_group()
""")


def test_torch_distributed_gloo(tmp_path):
    require("torch.distributed", "pip install torch")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    out = tmp_path / "states.pkl"
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", GLOO, str(rank), str(out), ROOT, port],
            env=env,
            cwd=tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
    with open(out, "rb") as f:
        check(pickle.load(f))


# ---------------------------------------------------------------------------- the counts state

COUNTS = {"keep": "counts", "ci_resamples": 50, "seed": 2}


def counts_state(rows):
    """One partition's counts state as bytes, its sentences named by their index (``sentence_ids``:
    no numbering of partitions needed); an empty partition gives the empty state."""
    rows = list(rows)
    metric = _metric()
    if not rows:
        return metric.CountsState().to_bytes()
    return metric.state(
        predictions=[p for _, p, _ in rows],
        references=[r for _, _, r in rows],
        sentence_ids=[i for i, _, _ in rows],
        **COUNTS,
    ).to_bytes()


def add_counts(a, b):
    """Two counts states' bytes merged (a tree reduction's step)."""
    metric = _metric()
    return (metric.State.from_bytes(a) + metric.State.from_bytes(b)).to_bytes()


def check_counts(data):
    """The tree-reduced bytes are the whole corpus's counts state, to the bit, and its point results
    are compute's."""
    metric = _metric()
    rows = corpus()
    assert data == counts_state(rows)
    results = metric.finalize(metric.State.from_bytes(data))
    expected = metric.compute(predictions=[p for _, p, _ in rows], references=[r for _, _, r in rows])
    assert "intervals" in results and "|ci:" in results["signature"]  # the state's resamples are signed
    point = {k: v for k, v in results.items() if k not in ("intervals", "signature")}
    assert repr(point) == repr({k: v for k, v in expected.items() if k != "signature"})


def test_dask_reduction_of_counts():
    require("dask.bag", "pip install -r requirements-extras.txt")
    import functools as ft

    import dask.bag as db

    bag = db.from_sequence(corpus(), npartitions=6)
    total = bag.reduction(counts_state, lambda parts: ft.reduce(add_counts, parts), split_every=2)
    check_counts(total.compute(scheduler="processes", num_workers=2))


def test_pyspark_tree_reduce_of_counts(monkeypatch):
    require("pyspark", "pip install -r requirements-extras.txt (and a Java runtime)")
    from pyspark.sql import SparkSession

    workers_path(monkeypatch)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("ner_counts_state")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        rdd = spark.sparkContext.parallelize(corpus(), 6)
        data = rdd.mapPartitions(lambda rows: [counts_state(rows)]).treeReduce(add_counts, depth=2)
    finally:
        spark.stop()
    check_counts(data)
