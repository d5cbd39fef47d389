"""evaluate's distributed mode: two real OS processes each add a disjoint shard; process 0's
result equals the single-process result on the union (nothing lost, nothing counted twice).

Each worker runs ``evaluate.load(path, config, num_process=2, process_id=i,
experiment_id=..., cache_dir=...)``, streams its shard through ``add_batch`` and calls
``compute``; evaluate meets the processes through file locks in ``cache_dir`` and process 0
reads every shard's cache file.
"""

import os
import pickle
import subprocess
import sys
import uuid

import pytest
from test_parity import random_corpus

from conftest import METRIC_PATH, ROOT

TESTS = os.path.dirname(os.path.abspath(__file__))
N_SENTENCES = 1200
SUBGROUPS = ("news", "fiction", "web")
COUNTS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")


def corpus(config, kind):
    references, predictions = random_corpus(17, N_SENTENCES, prefixes="OOOBIES")
    references[0], predictions[0] = ["B-A", "I-A"], ["B-A", "O"]  # a non-empty first example fixes the format
    inputs = {"predictions": predictions, "references": references}
    options = {}
    if kind == "ids":
        names = sorted({t for s in references + predictions for t in s})
        ids = {t: i for i, t in enumerate(names)}
        inputs = {side: [[ids[t] for t in s] for s in seqs] for side, seqs in inputs.items()}
        options["label_names"] = names
    if config == "subgroups":
        inputs["subgroups"] = [SUBGROUPS[(i * 7) % 3] for i in range(N_SENTENCES)]
    return inputs, options


def worker(args_file):
    """One process of the distributed runs (started as ``python -c``): every case in turn."""
    import evaluate

    with open(args_file, "rb") as f:
        args = pickle.load(f)
    results = {}
    for case, job in args["jobs"].items():
        metric = evaluate.load(
            METRIC_PATH,
            job["config"],
            num_process=2,
            process_id=args["process_id"],
            experiment_id=job["experiment_id"],
            cache_dir=args["cache_dir"],
            timeout=120,
        )
        shard = job["shard"]
        for start in range(0, len(shard["predictions"]), 97):
            metric.add_batch(**{k: v[start : start + 97] for k, v in shard.items()})
        results[case] = metric.compute(**job["options"])
    with open(args["out"], "wb") as f:
        pickle.dump(results, f)


SPLITS = {
    "halves": lambda i: i < N_SENTENCES // 2,
    "uneven-blocks": lambda i: i < 100,
    "interleaved": lambda i: i % 2 == 0,
}
CASES = [  # config, input kind, split
    ("default", "tags", "halves"),
    ("default", "tags", "uneven-blocks"),
    ("default", "ids", "interleaved"),
    ("subgroups", "tags", "interleaved"),
    ("subgroups", "ids", "uneven-blocks"),
]


def shards(inputs, split):
    in_first = [SPLITS[split](i) for i in range(N_SENTENCES)]
    return [
        {k: [v for v, first in zip(column, in_first) if first == (p == 0)] for k, column in inputs.items()}
        for p in (0, 1)
    ]


def run_two_processes(tmp_path, jobs_per_process):
    """Start both processes at once; their results, and the cache files left behind."""
    cache_dir = tmp_path / "cache"
    procs, outs = [], []
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    for process_id, jobs in enumerate(jobs_per_process):
        args_file, out = tmp_path / f"args{process_id}.pkl", tmp_path / f"out{process_id}.pkl"
        with open(args_file, "wb") as f:
            pickle.dump(dict(process_id=process_id, cache_dir=str(cache_dir), jobs=jobs, out=str(out)), f)
        code = f"import sys; sys.path[:0] = [{TESTS!r}, {ROOT!r}]; from test_distributed import worker; worker({str(args_file)!r})"
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", code],
                env=env,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
        outs.append(out)
    for process_id, proc in enumerate(procs):
        output, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"process {process_id} failed:\n{output[-3000:]}"
    results = []
    for out in outs:
        with open(out, "rb") as f:
            results.append(pickle.load(f))
    return results, sorted(p.name for p in cache_dir.rglob("*.arrow"))


@pytest.fixture(scope="module")
def single_metrics():
    import evaluate

    return {config: evaluate.load(METRIC_PATH, config) for config in ("default", "subgroups")}


@pytest.fixture(scope="module")
def distributed(tmp_path_factory):
    """Every case through one pair of processes (importing evaluate is slow)."""
    jobs = ({}, {})
    for case in CASES:
        config, kind, split = case
        inputs, options = corpus(config, kind)
        experiment_id = uuid.uuid4().hex
        for process_id, shard in enumerate(shards(inputs, split)):
            jobs[process_id][case] = dict(
                config=config, experiment_id=experiment_id, shard=shard, options=options
            )
    (first, second), leftovers = run_two_processes(tmp_path_factory.mktemp("distributed"), jobs)
    return first, second, leftovers


def test_every_shard_cache_file_is_read_and_removed(distributed):
    first, second, leftovers = distributed
    assert set(first) == set(second) and len(first) >= 3
    assert leftovers == []


@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_process_zero_scores_the_union(single_metrics, distributed, case):
    config, kind, split = case
    first_results, second_results, _ = distributed
    result, other = first_results[case], second_results[case]
    single = single_metrics[config]
    inputs, options = corpus(config, kind)
    first, second = shards(inputs, split)
    assert len(first["predictions"]) + len(second["predictions"]) == N_SENTENCES

    assert other is None  # only process 0 returns the result
    assert result == single.compute(**inputs, **options)
    per_shard = [single.compute(**shard, **options) for shard in (first, second)]
    assert per_shard[0] != result  # a process that scored only its own shard would fail
    for mode, table in result["muc"].items():  # counts add up over the shards: none lost or doubled
        for key in COUNTS:
            assert table[key] == sum(r["muc"][mode][key] for r in per_shard), (mode, key)
    assert result["muc"]["strict"]["possible"] > 1000
    if config == "subgroups":
        assert result["stratified_recall"] != per_shard[0]["stratified_recall"]


# --- a process with an empty shard, and two runs that share an experiment_id ------------------


EMPTY_CASES = [("default", "tags", 0), ("default", "ids", 1), ("subgroups", "tags", 0)]


@pytest.fixture(scope="module")
def empty_shards(tmp_path_factory):
    """One process of each pair adds nothing: it still takes part, and process 0 scores the other's shard."""
    jobs = ({}, {})
    for case in EMPTY_CASES:
        config, kind, empty = case
        inputs, options = corpus(config, kind)
        experiment_id = uuid.uuid4().hex
        for process_id in (0, 1):
            shard = inputs if process_id != empty else {k: [] for k in inputs}
            jobs[process_id][case] = dict(
                config=config, experiment_id=experiment_id, shard=shard, options=options
            )
    (first, second), leftovers = run_two_processes(tmp_path_factory.mktemp("empty"), jobs)
    return first, second, leftovers


@pytest.mark.parametrize("case", EMPTY_CASES, ids=lambda c: "-".join(map(str, c)))
def test_a_process_with_an_empty_shard_takes_part(single_metrics, empty_shards, case):
    config, kind, _ = case
    first, second, leftovers = empty_shards
    inputs, options = corpus(config, kind)
    assert second[case] is None and leftovers == []
    assert first[case] == single_metrics[config].compute(**inputs, **options)


def shared_worker(args_file):
    """One process of two runs that share an experiment_id (started as ``python -c``); ``role`` is
    "A0", "A1" or "B1", in the order: A0 and A1 add, A1 computes, B1 adds and computes, A0 computes."""
    import time

    import evaluate

    with open(args_file, "rb") as f:
        args = pickle.load(f)
    role, markers = args["role"], args["markers"]

    def wait_for(name):
        for _ in range(1200):
            if os.path.exists(os.path.join(markers, name)):
                return
            time.sleep(0.1)
        raise TimeoutError(name)

    if role == "B1":
        wait_for("A1-done")
    metric = evaluate.load(
        METRIC_PATH,
        num_process=2,
        process_id=int(role[1]),
        experiment_id="shared",
        cache_dir=args["cache_dir"],
        timeout=120,
    )
    metric.add_batch(**args["shard"])
    if role == "A0":
        wait_for("B1-done")
    try:
        outcome = ("result", metric.compute())
    except ValueError as error:
        outcome = ("error", str(error))
    open(os.path.join(markers, f"{role}-done"), "w").close()
    with open(args["out"], "wb") as f:
        pickle.dump(outcome, f)


def test_two_runs_sharing_an_experiment_id_fail_loudly(tmp_path):
    """Run B's process 1 starts when run A's process 1 is done: it takes over A's cache file name
    and overwrites A's shard. evaluate cannot tell the two apart by their files; process 0 sees
    that two processes joined as process 1 and refuses to score a mix."""
    inputs, _ = corpus("default", "tags")
    shards = {
        "A0": {k: v[:400] for k, v in inputs.items()},
        "A1": {k: v[400:800] for k, v in inputs.items()},
        "B1": {k: v[800:] for k, v in inputs.items()},
    }
    markers, cache_dir = tmp_path / "markers", tmp_path / "cache"
    markers.mkdir()
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    procs, outs = {}, {}
    for role, shard in shards.items():
        args_file, outs[role] = tmp_path / f"{role}.pkl", tmp_path / f"{role}.out"
        with open(args_file, "wb") as f:
            pickle.dump(
                dict(
                    role=role,
                    markers=str(markers),
                    cache_dir=str(cache_dir),
                    shard=shard,
                    out=str(outs[role]),
                ),
                f,
            )
        code = (
            f"import sys; sys.path[:0] = [{TESTS!r}, {ROOT!r}]; from test_distributed import shared_worker; "
            f"shared_worker({str(args_file)!r})"
        )
        procs[role] = subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    for role, proc in procs.items():
        output, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{role} failed:\n{output[-3000:]}"
    outcome = {}
    for role, out in outs.items():
        with open(out, "rb") as f:
            outcome[role] = pickle.load(f)
    assert outcome["A1"] == outcome["B1"] == ("result", None)
    kind, message = outcome["A0"]
    assert kind == "error", f"process 0 scored a mix of two runs: {message}"
    assert "process 1 of experiment_id 'shared' joined 2 times" in message
    assert "two distributed runs share this experiment_id" in message
    assert sorted(p.name for p in cache_dir.rglob("*.arrow")) == []  # nothing left to mix into a later run
