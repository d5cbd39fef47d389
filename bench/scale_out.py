"""Throughput of the mergeable states on real engines: 1 and 2 workers of PySpark, Ray and Dask.

The corpus of bench/speed.py is cut into ``--partitions`` parts; each worker makes its parts (seeded,
so the driver never holds the corpus) as Arrow list columns of class ids, turns each into
``metric.state(...)`` bytes, and the driver merges them and calls ``metric.finalize``. Making the data
is timed apart from the metric's own work: a worker generates a part once and keeps its arrays on the
local disk (``--cache``), later runs load them; each task reports its seconds of making (generating or
loading) and of the state step (``metric.state`` and ``to_bytes``), and the process it ran in.

Per state (``--keep exact``: every sentence; ``counts``: constant size, with ``--ci-resamples``
Poisson-bootstrap resamples), engine and number of workers: the wall seconds of the map (the engine's
overhead and the making included), the state step's seconds summed over tasks and its wall (the most
any one worker process spent in it), the driver's merge + finalize, the metric's own work (state wall
+ driver), its speed-up from 1 to 2 workers, and the total size of the states' bytes. Every engine's
finalized results are compared (equal on all), and at the smallest size with one ``compute`` of the
whole corpus (intervals aside for the counts state, whose Poisson bootstrap is its own).

    HF_HUB_OFFLINE=1 python bench/scale_out.py [--sizes 1000000] [--partitions 8] [--keep exact counts]
        [--ci-resamples 1000] [--engines spark ray dask] [--out bench/scale_out.md]
"""

import argparse
import functools
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for path in (str(ROOT), str(ROOT / "bench")):
    if path not in sys.path:
        sys.path.insert(0, path)

OPTIONS = {}  # compute's defaults: seqeval and the four MUC modes, per type
#: the options of each kind of state (the counts state's resamples set by --ci-resamples)
KEEP_OPTIONS = {"exact": {}, "counts": {"keep": "counts", "seed": 0}}
CACHE = Path(os.environ.get("SCALE_OUT_CACHE", "/tmp/ner_scale_out"))


@functools.cache
def metric():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import evaluate

    return evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=f"scale-{os.getpid()}")


def part_lists(first, n, seed):
    """The tags of sentences ``first .. first + n - 1`` of the seeded corpus of a size: each part
    is drawn from its own seed, so that any worker makes it alone."""
    from speed import as_lists, synthetic_corpus

    lengths, gold, pred = synthetic_corpus(n, seed=seed * 1_000_003 + first)
    return as_lists(lengths, pred), as_lists(lengths, gold)


def part_arrays(first, n, seed):
    """The part as Arrow list columns of class ids (``TAGS`` of bench/speed.py), made once per
    worker machine and kept on its disk: (predictions, references, seconds of making)."""
    import pyarrow as pa
    from speed import synthetic_corpus

    start = time.perf_counter()
    path = CACHE / f"part-{seed}-{first}-{n}.npz"
    if path.exists():
        saved = np.load(path)
        lengths, gold, pred = saved["lengths"], saved["gold"], saved["pred"]
    else:
        lengths, gold, pred = synthetic_corpus(n, seed=seed * 1_000_003 + first)
        CACHE.mkdir(parents=True, exist_ok=True)
        np.savez(path.with_suffix(".tmp.npz"), lengths=lengths, gold=gold, pred=pred)
        os.replace(path.with_suffix(".tmp.npz"), path)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
    sides = [pa.LargeListArray.from_arrays(offsets, pa.array(c.astype(np.int64))) for c in (pred, gold)]
    return sides[0], sides[1], time.perf_counter() - start


def partition_state(task):
    """(first sentence, sentences, seed, options) -> (the partition's state as bytes, the worker
    process, seconds making the data, seconds of the state step)."""
    from speed import TAGS

    first, n, seed, options = task
    predictions, references, making = part_arrays(first, n, seed)
    start = time.perf_counter()
    data = (
        metric()
        .state(
            predictions=predictions, references=references, first_sentence=first, label_names=TAGS, **options
        )
        .to_bytes()
    )
    return data, os.getpid(), making, time.perf_counter() - start


def worker_function():
    """``partition_state`` as the workers import it: from the module ``scale_out`` by name (a
    function of ``__main__`` would not unpickle there)."""
    import scale_out

    return scale_out.partition_state


def tasks(size, partitions, seed=0, options=None):
    bounds = np.linspace(0, size, partitions + 1).astype(int).tolist()
    return [(a, b - a, seed, options or {}) for a, b in zip(bounds[:-1], bounds[1:])]


def finalize(states):
    m = metric()
    merged = sum(m.State.from_bytes(b) for b in states)
    return m.finalize(merged)


def run_spark(jobs, workers):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers run this interpreter
    spark = (
        SparkSession.builder.master(f"local[{workers}]")
        .appName("scale_out")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "8g")
        .getOrCreate()
    )
    try:
        sc, work = spark.sparkContext, worker_function()
        sc.parallelize(tasks(2_000, workers), workers).map(work).collect()  # warm the workers
        start = time.perf_counter()
        states = sc.parallelize(jobs, len(jobs)).map(work).collect()
        return states, time.perf_counter() - start
    finally:
        spark.stop()


def run_ray(jobs, workers):
    import ray

    ray.init(
        num_cpus=workers,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": {
                "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "bench")]),
                "HF_HUB_OFFLINE": "1",
            }
        },
    )
    try:
        remote = ray.remote(worker_function())
        ray.get([remote.remote(t) for t in tasks(2_000, workers)])  # warm the workers
        start = time.perf_counter()
        states = ray.get([remote.remote(t) for t in jobs])
        return states, time.perf_counter() - start
    finally:
        ray.shutdown()


def run_dask(jobs, workers):
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with Client(cluster) as client:
            work = worker_function()
            client.gather(client.map(work, tasks(2_000, workers), pure=False))  # warm
            start = time.perf_counter()
            states = client.gather(client.map(work, jobs, pure=False))
            return states, time.perf_counter() - start


ENGINES = {"spark": run_spark, "ray": run_ray, "dask": run_dask}


def check(size, partitions, results):
    """The finalized results equal one ``compute`` of the whole corpus (intervals aside)."""
    predictions, references = [], []
    for first, n, seed, _ in tasks(size, partitions):
        p, r = part_lists(first, n, seed)
        predictions += p
        references += r
    expected = metric().compute(predictions=predictions, references=references, **OPTIONS)
    return repr(expected) == repr({k: v for k, v in results.items() if k != "intervals"})


def run(engine, jobs, workers):
    """One engine's run: a row of seconds, the states' bytes and the finalized results."""
    outputs, mapped = ENGINES[engine](jobs, workers)
    states = [o[0] for o in outputs]
    per_process = {}
    for _, pid, _, seconds in outputs:
        per_process[pid] = per_process.get(pid, 0.0) + seconds
    start = time.perf_counter()
    results = finalize(states)
    driver = time.perf_counter() - start
    row = {
        "map": mapped,
        "making": sum(o[2] for o in outputs),
        "state": sum(o[3] for o in outputs),
        "state wall": max(per_process.values()),
        "driver": driver,
        "bytes": sum(map(len, states)),
    }
    row["own"] = row["state wall"] + driver
    return row, results


def measure(args):
    rows, checked, agree = [], {}, {}
    for keep in args.keep:
        options = dict(KEEP_OPTIONS[keep])
        if keep == "counts" and args.ci_resamples:
            options["ci_resamples"] = args.ci_resamples
        for size in args.sizes:
            jobs = tasks(size, args.partitions, options=options)
            for engine in args.engines:
                own = {}
                for workers in (1, 2):
                    print(
                        f"{keep}, {engine}, {workers} worker(s), {size:,} sentences ...",
                        file=sys.stderr,
                        flush=True,
                    )
                    row, results = run(engine, jobs, workers)
                    agree.setdefault((keep, size), set()).add(repr(results))
                    if size == min(args.sizes) and (keep, size) not in checked:
                        checked[keep, size] = check(size, args.partitions, results)
                    own[workers] = row["own"]
                    rows.append(dict(row, keep=keep, engine=engine, size=size, workers=workers))
                rows[-1]["speed-up"] = own[1] / own[2]
    return rows, checked, {key: len(v) == 1 for key, v in agree.items()}


def table(rows):
    lines = [
        "| state | engine | sentences | workers | map s | making s | state s (sum) | state wall s | driver s"
        " | metric's own s | sentences/s (own) | states MB | own speed-up 1 -> 2 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        speed = f"{r['speed-up']:.2f}x" if "speed-up" in r else ""
        lines.append(
            f"| {r['keep']} | {r['engine']} | {r['size']:,} | {r['workers']} | {r['map']:.1f} | {r['making']:.1f} |"
            f" {r['state']:.1f} | {r['state wall']:.1f} | {r['driver']:.2f} | {r['own']:.1f} |"
            f" {r['size'] / r['own']:,.0f} | {r['bytes'] / 1e6:,.1f} | {speed} |"
        )
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--keep", nargs="+", default=["exact", "counts"], choices=list(KEEP_OPTIONS))
    parser.add_argument("--ci-resamples", type=int, default=1000)
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    parser.add_argument("--out", default=str(ROOT / "bench" / "scale_out.md"))
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]
    )
    started = time.perf_counter()
    metric()  # the driver's metric loaded before any timing
    rows, checked, agree = measure(args)
    command = (
        f"python bench/scale_out.py --sizes {' '.join(map(str, args.sizes))} --partitions {args.partitions}"
        f" --keep {' '.join(args.keep)} --ci-resamples {args.ci_resamples} --engines {' '.join(args.engines)}"
    )
    lines = [
        "# Scale-out: the mergeable states on PySpark, Ray and Dask",
        "",
        f"`{command}`: {time.perf_counter() - started:.0f} s on {os.cpu_count()} cores"
        f" (load average {os.getloadavg()[0]:.1f} at the end), {time.strftime('%Y-%m-%d')}. Wall seconds."
        " map: partitions to state bytes on the workers (warmed up), making the data included; making:"
        " generating a part (first run) or loading it from the worker's disk, summed over tasks; state:"
        " `metric.state(...).to_bytes()` summed over tasks, and its wall (the most one worker process spent"
        " in it); driver: merge and finalize; the metric's own work: state wall + driver. Counts states:"
        f" `keep='counts'`, {args.ci_resamples} Poisson-bootstrap resamples.",
        "",
        "Results equal on every engine: "
        + ", ".join(f"{k} at {s:,}: {ok}" for (k, s), ok in agree.items())
        + ". Equal to one compute of the whole corpus (intervals aside): "
        + ", ".join(f"{k} at {s:,}: {ok}" for (k, s), ok in checked.items())
        + ".",
        "",
        *table(rows),
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
