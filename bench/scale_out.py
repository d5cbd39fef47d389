"""Throughput of the mergeable states on real engines: 1 and 2 workers of PySpark, Ray and Dask.

A corpus of ``--sizes`` sentences is cut into partitions of ``--partition-size`` sentences; each
task makes its partition inside the worker (from its seed: the driver never holds a sentence) as
NumPy arrays of class ids in Arrow list columns (``label_names``), and turns it into
``metric.state(...)`` bytes. Counts states (``keep="counts"``, ``--ci-resamples`` Poisson
resamples) are added up on the workers in a tree (Spark's ``treeReduce``, a tree of tasks on Ray
and Dask), so the driver receives one state; exact states (every sentence) are collected and
added on the driver. The driver then reads the bytes and calls ``metric.finalize``.

Each task reports, per worker process, its seconds of making the data, of the state step
(``metric.state`` and ``to_bytes``) and of merging; so the metric's own work is timed apart from
making the data. Per state, engine and number of workers, the table gives: the wall seconds of
the whole job on the engine (making, the engine's overhead and the merges included), the
making and state seconds summed over tasks, the merge seconds, the own wall (the most one worker
process spent in state and merge steps), the driver's seconds (read + merge + finalize), the
metric's own seconds (own wall + driver) and its speed-up from 1 to 2 workers, and the bytes the
driver receives. The script asserts that every engine and worker count finalizes to the same
results, and up to ``--check-max`` sentences that they are those of one ``compute`` of the whole
corpus (the counts state's intervals and signature aside: its Poisson bootstrap is its own).

    HF_HUB_OFFLINE=1 python bench/scale_out.py [--sizes 1000000] [--partition-size 1000000]
        [--keep counts exact] [--ci-resamples 1000] [--engines spark ray dask] [--workers 1 2]
        [--check-max 2000000] [--out bench/scale_out.md]

The full measurement (idle machine): ``--sizes 100000000 --keep counts`` (100 partitions of 1M
sentences; a partition's state with 1,000 resamples is under a second of one core: counts_speed.md).
"""

import argparse
import functools
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for path in (str(ROOT), str(ROOT / "bench")):
    if path not in sys.path:
        sys.path.insert(0, path)

TYPES = 4  # class ids: 0 O, 1 + 2t B-t, 2 + 2t I-t (bench/speed.py's TAGS)
#: the options of each kind of state (the counts state's resamples set by --ci-resamples)
KEEP_OPTIONS = {"exact": {}, "counts": {"keep": "counts", "seed": 0}}


@functools.cache
def metric():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import evaluate

    return evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=f"scale-{os.getpid()}")


def part_codes(n: int, seed: int) -> tuple:
    """(lengths, gold codes, predicted codes) of ``n`` seeded sentences, in a few NumPy passes:
    1 + Poisson(13) tokens a sentence, an entity starting at 12% of the tokens (of one of four
    types, continued by I- with probability 0.45 twice), predictions the gold with 10% of the
    tags replaced by a random tag (some ill-formed I- tags among them, as models write)."""
    rng = np.random.default_rng(seed)
    lengths = 1 + rng.poisson(13, n)
    total = int(lengths.sum())
    first = np.zeros(total, dtype=bool)
    first[np.cumsum(lengths)[:-1]] = True
    first[0] = True
    u = rng.random(total, dtype=np.float32)
    kind = rng.integers(0, TYPES, total, dtype=np.int8)
    gold = np.where(u < 0.12, 1 + 2 * kind, 0).astype(np.int8)
    for _ in range(2):  # I- after a B- or I- of the sentence, with probability 0.45
        prev = np.r_[np.int8(0), gold[:-1]]
        go = (prev > 0) & ~first & (gold == 0) & (rng.random(total, dtype=np.float32) < 0.45)
        gold[go] = 2 + 2 * ((prev[go] - 1) // 2)
    pred = gold.copy()
    noisy = rng.random(total, dtype=np.float32) < 0.10
    pred[noisy] = rng.integers(0, 1 + 2 * TYPES, int(noisy.sum()), dtype=np.int8)
    return lengths, gold, pred


def part_arrays(n: int, seed: int) -> tuple:
    """The partition as Arrow list columns of class ids: (predictions, references)."""
    import pyarrow as pa

    lengths, gold, pred = part_codes(n, seed)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
    return tuple(pa.LargeListArray.from_arrays(offsets, pa.array(c)) for c in (pred, gold))


def tags():
    from speed import TAGS

    return TAGS


def partition_state(task: tuple) -> tuple:
    """(first sentence, sentences, seed, options) -> (the partition's state bytes, steps), the
    steps a list of (worker process, step, seconds) for making and the state step."""
    first, n, seed, options = task
    start = time.perf_counter()
    predictions, references = part_arrays(n, seed * 1_000_003 + first)
    made = time.perf_counter()
    state = metric().state(
        predictions=predictions, references=references, first_sentence=first, label_names=tags(), **options
    )
    data = state.to_bytes()
    done = time.perf_counter()
    return data, [(os.getpid(), "making", made - start), (os.getpid(), "state", done - made)]


def add_states(a: tuple, b: tuple) -> tuple:
    """Two (state bytes, steps) added on a worker: the merged bytes and both steps lists with the
    merge's seconds."""
    start = time.perf_counter()
    m = metric()
    data = (m.State.from_bytes(a[0]) + m.State.from_bytes(b[0])).to_bytes()
    return data, a[1] + b[1] + [(os.getpid(), "merge", time.perf_counter() - start)]


def worker_functions():
    """``partition_state`` and ``add_states`` as the workers import them: from the module
    ``scale_out`` by name (a function of ``__main__`` would not unpickle there)."""
    import scale_out

    return scale_out.partition_state, scale_out.add_states


def tasks(size: int, partitions: int, seed: int = 0, options: dict | None = None) -> list:
    bounds = np.linspace(0, size, partitions + 1).astype(int).tolist()
    return [(a, b - a, seed, options or {}) for a, b in zip(bounds[:-1], bounds[1:])]


#: sentences of each warm-up task: enough class ids for the compiled path and its resamples' loop
WARM_SENTENCES = 100_000


def warm(workers: int, jobs: list) -> list:
    """Two tasks a worker, each the jobs' options on :data:`WARM_SENTENCES` sentences (under a
    seed of its own): every worker process imports the metric and loads its compiled loops
    before the clock starts."""
    options = jobs[0][3] if jobs else {}
    return tasks(2 * workers * WARM_SENTENCES, 2 * workers, seed=1, options=options)


def tree(items: list, add) -> object:
    """Pairs added level by level (``add`` returns a future or a value) to one."""
    while len(items) > 1:
        items = [add(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)] + (
            [items[-1]] if len(items) % 2 else []
        )
    return items[0]


def run_spark(jobs: list, workers: int, reduce: bool) -> tuple:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers run this interpreter
    spark = (
        SparkSession.builder.master(f"local[{workers}]")
        .appName("scale_out")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.driver.maxResultSize", "4g")
        .getOrCreate()
    )
    try:
        sc, (work, add) = spark.sparkContext, worker_functions()
        sc.parallelize(warm(workers, jobs), 2 * workers).map(work).collect()  # warm the workers
        start = time.perf_counter()
        rdd = sc.parallelize(jobs, len(jobs)).map(work)
        out = (
            [rdd.treeReduce(add, depth=max(2, math.ceil(math.log2(len(jobs)))))] if reduce else rdd.collect()
        )
        return out, time.perf_counter() - start
    finally:
        spark.stop()


def run_ray(jobs: list, workers: int, reduce: bool) -> tuple:
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
        work, add = (ray.remote(f) for f in worker_functions())
        ray.get([work.remote(t) for t in warm(workers, jobs)])  # warm the workers
        start = time.perf_counter()
        futures = [work.remote(t) for t in jobs]
        out = [ray.get(tree(futures, add.remote))] if reduce else ray.get(futures)
        return out, time.perf_counter() - start
    finally:
        ray.shutdown()


#: environment variables Dask's nanny adds to its workers' (``--dask-environ KEY=VALUE``)
DASK_ENVIRON: dict = {}


def run_dask(jobs: list, workers: int, reduce: bool) -> tuple:
    import dask
    from distributed import Client, LocalCluster

    extra = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in DASK_ENVIRON.items()}
    with (
        dask.config.set(extra),
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
    ):
        with Client(cluster) as client:
            work, add = worker_functions()
            client.gather(client.map(work, warm(workers, jobs), pure=False))  # warm
            start = time.perf_counter()
            futures = client.map(work, jobs, pure=False)
            if reduce:
                out = [tree(futures, lambda a, b: client.submit(add, a, b, pure=False)).result()]
            else:
                out = client.gather(futures)
            return out, time.perf_counter() - start


ENGINES = {"spark": run_spark, "ray": run_ray, "dask": run_dask}


def finalize(outputs: list) -> tuple:
    """The driver's part: read the states' bytes, add them, finalize. (results, seconds)."""
    start = time.perf_counter()
    m = metric()
    merged = sum(m.State.from_bytes(data) for data, _ in outputs)
    results = m.finalize(merged)
    return results, time.perf_counter() - start


def run(engine: str, jobs: list, workers: int, reduce: bool) -> tuple:
    """One engine's run: a row of seconds and bytes, and the finalized results."""
    outputs, wall = ENGINES[engine](jobs, workers, reduce)
    results, driver = finalize(outputs)
    steps = [step for _, s in outputs for step in s]
    per_process: dict = {}
    for pid, step, seconds in steps:
        if step != "making":
            per_process[pid] = per_process.get(pid, 0.0) + seconds
    total = {name: sum(s for _, step, s in steps if step == name) for name in ("making", "state", "merge")}
    row = dict(total, wall=wall, driver=driver, bytes=sum(len(data) for data, _ in outputs))
    row["own wall"] = max(per_process.values())
    row["own"] = row["own wall"] + driver
    return row, results


def check(size: int, partitions: int, keep: str, results: dict) -> bool:
    """The finalized results are one ``compute``'s on the whole corpus (for a counts state, its
    intervals and signature aside)."""
    import pyarrow as pa

    parts = [part_arrays(n, seed * 1_000_003 + first) for first, n, seed, _ in tasks(size, partitions)]
    predictions, references = (pa.concat_arrays([p[i] for p in parts]) for i in (0, 1))
    expected = metric().compute(predictions=predictions, references=references, label_names=tags())
    drop = ("intervals", "signature") if keep == "counts" else ()
    return repr({k: v for k, v in expected.items() if k not in drop}) == repr(
        {k: v for k, v in results.items() if k not in drop}
    )


def measure(args: argparse.Namespace) -> tuple:
    rows, checked = [], {}
    for keep in args.keep:
        options = dict(KEEP_OPTIONS[keep])
        if keep == "counts" and args.ci_resamples:
            options["ci_resamples"] = args.ci_resamples
        for size in args.sizes:
            partitions = max(2, math.ceil(size / args.partition_size))
            jobs, seen = tasks(size, partitions, options=options), set()
            for engine in args.engines:
                own = {}
                for workers in args.workers:
                    print(
                        f"{keep}, {engine}, {workers} worker(s), {size:,} sentences ...",
                        file=sys.stderr,
                        flush=True,
                    )
                    row, results = run(engine, jobs, workers, reduce=keep == "counts")
                    seen.add(repr(results))
                    assert len(seen) == 1, (
                        f"{keep} at {size:,}: {engine} on {workers} worker(s) finalizes otherwise"
                    )
                    own[workers] = row["own"]
                    rows.append(
                        dict(row, keep=keep, engine=engine, size=size, workers=workers, parts=partitions)
                    )
                if len(own) == 2:
                    rows[-1]["speed-up"] = own[min(own)] / own[max(own)]
            if size <= args.check_max:
                checked[keep, size] = check(size, partitions, keep, results)
                assert checked[keep, size], f"{keep} at {size:,}: not compute's results"
    return rows, checked


def table(rows: list) -> list:
    lines = [
        "| state | engine | sentences | partitions | workers | wall s | making s (sum) | state s (sum) |"
        " merge s (sum) | own wall s | driver s | metric's own s | sentences/s (own) | driver's MB |"
        " own speed-up |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        speed = f"{r['speed-up']:.2f}x" if "speed-up" in r else ""
        lines.append(
            f"| {r['keep']} | {r['engine']} | {r['size']:,} | {r['parts']} | {r['workers']} | {r['wall']:.1f} |"
            f" {r['making']:.1f} | {r['state']:.1f} | {r['merge']:.2f} | {r['own wall']:.1f} |"
            f" {r['driver']:.2f} | {r['own']:.1f} | {r['size'] / r['own']:,.0f} | {r['bytes'] / 1e6:,.1f} |"
            f" {speed} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--partition-size", type=int, default=1_000_000)
    parser.add_argument("--keep", nargs="+", default=["counts", "exact"], choices=list(KEEP_OPTIONS))
    parser.add_argument("--ci-resamples", type=int, default=1000)
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--check-max", type=int, default=2_000_000)
    parser.add_argument("--out", default=str(ROOT / "bench" / "scale_out.md"))
    parser.add_argument(
        "--dask-environ",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="set in Dask's workers by its nanny, e.g. MALLOC_MMAP_THRESHOLD_=1073741824 (bench/malloc.md)",
    )
    args = parser.parse_args()
    DASK_ENVIRON.update(item.split("=", 1) for item in args.dask_environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")  # one core a worker: no BLAS threads of their own
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]
    )
    started, load = time.perf_counter(), os.getloadavg()[0]
    metric()  # the driver's metric loaded before any timing
    rows, checked = measure(args)
    command = (
        f"python bench/scale_out.py --sizes {' '.join(map(str, args.sizes))} --partition-size"
        f" {args.partition_size} --keep {' '.join(args.keep)} --ci-resamples {args.ci_resamples}"
        f" --engines {' '.join(args.engines)} --workers {' '.join(map(str, args.workers))}"
        + ("" if Path(args.out) == ROOT / "bench" / "scale_out.md" else f" --out {args.out}")
        + (f" --dask-environ {' '.join(args.dask_environ)}" if args.dask_environ else "")
    )
    lines = [
        "# Scale-out: the mergeable states on PySpark, Ray and Dask",
        "",
        f"`{command}`: {time.perf_counter() - started:.0f} s on {os.cpu_count()} cores (load average"
        f" {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end), {time.strftime('%Y-%m-%d')}."
        " Seconds. wall: the job on the engine (workers warmed up), from the first task to the state(s)"
        " on the driver: making the data, the engine's overhead and the merges included. making: the"
        " partitions' class-id arrays generated in the workers; state: `metric.state(...).to_bytes()`;"
        " merge: counts states added on the workers (a tree: Spark's treeReduce, a tree of tasks on Ray"
        " and Dask); all three summed over tasks. own wall: the most one worker process spent in state"
        " and merge steps; driver: reading the bytes it receives, adding them and finalize; the"
        f" metric's own work: own wall + driver. Counts states: `keep='counts'`, {args.ci_resamples}"
        " Poisson-bootstrap resamples, one state to the driver; exact states: every partition's state"
        " to the driver.",
        "",
        "Every engine and worker count finalizes to the same results (asserted). Equal to one compute"
        " of the whole corpus (intervals and signature aside for counts; asserted): "
        + (", ".join(f"{k} at {s:,}" for (k, s) in checked) or "not checked at these sizes")
        + ".",
        "",
        *table(rows),
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
