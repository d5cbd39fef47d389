"""Throughput of the mergeable state on real engines: 1 and 2 workers of PySpark, Ray and Dask.

The corpus of bench/speed.py is cut into ``--partitions`` parts; each worker makes its parts (seeded,
so the driver never holds the corpus), turns each into ``metric.state(...)`` bytes, and the driver
merges them and calls ``metric.finalize``. Per engine and number of workers: the wall seconds of the
map (partitions to state bytes, the engine's own overhead included, the workers warmed up with a first
small job that loads the metric), of merge + finalize on the driver, their sum, sentences per second,
the speed-up from 1 to 2 workers, and the total size of the states' bytes. The finalized results are
checked against one ``compute`` of the same corpus at the smallest size.

    HF_HUB_OFFLINE=1 python bench/scale_out.py [--sizes 1000000] [--partitions 8]
        [--engines spark ray dask] [--out bench/scale_out.md]
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


def partition_state(task):
    """(first sentence, sentences, seed) -> the partition's state as bytes."""
    first, n, seed = task
    predictions, references = part_lists(first, n, seed)
    return (
        metric()
        .state(predictions=predictions, references=references, first_sentence=first, **OPTIONS)
        .to_bytes()
    )


def worker_function():
    """``partition_state`` as the workers import it: from the module ``scale_out`` by name (a
    function of ``__main__`` would not unpickle there)."""
    import scale_out

    return scale_out.partition_state


def tasks(size, partitions, seed=0):
    bounds = np.linspace(0, size, partitions + 1).astype(int).tolist()
    return [(a, b - a, seed) for a, b in zip(bounds[:-1], bounds[1:])]


def finalize(states):
    m = metric()
    merged = sum((m.State.from_bytes(b) for b in states), m.State())
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
    """The finalized results equal one ``compute`` of the whole corpus."""
    predictions, references = [], []
    for first, n, seed in tasks(size, partitions):
        p, r = part_lists(first, n, seed)
        predictions += p
        references += r
    expected = metric().compute(predictions=predictions, references=references, **OPTIONS)
    return repr(expected) == repr(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    parser.add_argument("--out", default=str(ROOT / "bench" / "scale_out.md"))
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]
    )
    started = time.perf_counter()
    metric()  # the driver's metric loaded before any timing
    rows, checked = [], {}
    for size in args.sizes:
        jobs = tasks(size, args.partitions)
        for engine in args.engines:
            seconds = {}
            for workers in (1, 2):
                print(f"{engine}, {workers} worker(s), {size:,} sentences ...", file=sys.stderr, flush=True)
                states, mapped = ENGINES[engine](jobs, workers)
                start = time.perf_counter()
                results = finalize(states)
                final = time.perf_counter() - start
                if size == min(args.sizes) and (size, engine) not in checked:
                    checked[size, engine] = check(size, args.partitions, results)
                seconds[workers] = mapped + final
                rows.append(
                    (
                        engine,
                        size,
                        workers,
                        mapped,
                        final,
                        mapped + final,
                        size / (mapped + final),
                        sum(map(len, states)),
                    )
                )
            rows[-1] = (*rows[-1], seconds[1] / seconds[2])
    lines = [
        "# Scale-out: the mergeable state on PySpark, Ray and Dask",
        "",
        f"`python bench/scale_out.py --sizes {' '.join(map(str, args.sizes))} --partitions {args.partitions}`: "
        f"{time.perf_counter() - started:.0f} s on {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}. "
        "Wall seconds; map: partitions to state bytes on the workers (warmed up); finalize: merge and "
        "score on the driver. "
        + ", ".join(f"{e} at {s:,}: finalize equal to compute: {ok}" for (s, e), ok in checked.items()),
        "",
        "| engine | sentences | workers | map s | finalize s | total s | sentences/s | state MB | speed-up 1 -> 2 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        engine, size, workers, mapped, final, total, rate, nbytes = row[:8]
        speed = f"{row[8]:.2f}x" if len(row) > 8 else ""
        lines.append(
            f"| {engine} | {size:,} | {workers} | {mapped:.1f} | {final:.1f} | {total:.1f} | {rate:,.0f} | "
            f"{nbytes / 1e6:,.0f} | {speed} |"
        )
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
