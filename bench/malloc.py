"""What glibc's allocator settings cost the counts state: Dask's worker environment measured.

Dask's nanny starts each worker process with ``MALLOC_TRIM_THRESHOLD_=65536``
(``distributed.nanny.pre-spawn-environ``). Setting any of glibc's thresholds turns off its dynamic
mmap threshold, which then stays at 128 KiB: every larger temporary array is mapped afresh and its
pages faulted in again. This script times one partition's ``metric.state(..., keep="counts")`` (the
partition of bench/scale_out.py, 1,000 resamples, ``to_bytes`` included) in a fresh process under
each environment, best CPU seconds of ``--runs``, and writes bench/malloc.md.

    HF_HUB_OFFLINE=1 python bench/malloc.py [--sentences 1000000] [--runs 3] [--out bench/malloc.md]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: name -> the environment variables set for the timed process
ENVIRONMENTS = {
    "glibc's defaults": {},
    "Dask's workers (MALLOC_TRIM_THRESHOLD_=65536)": {"MALLOC_TRIM_THRESHOLD_": "65536"},
    "Dask's, with MALLOC_MMAP_THRESHOLD_=1073741824": {
        "MALLOC_TRIM_THRESHOLD_": "65536",
        "MALLOC_MMAP_THRESHOLD_": "1073741824",
    },
}

CHILD = """
import json, os, sys, time
sys.path[:0] = [{root!r}, {bench!r}]
from scale_out import metric, part_arrays, tags
m = metric()
p, g = part_arrays({n}, 5)
options = dict(label_names=tags(), keep="counts", ci_resamples=1000, seed=0)
m.state(predictions=p, references=g, **options)  # compiled loops loaded, caches warm
seconds = []
for _ in range({runs}):
    start = time.process_time()
    m.state(predictions=p, references=g, **options).to_bytes()
    seconds.append(time.process_time() - start)
print(json.dumps(min(seconds)))
"""


def timed(env: dict, sentences: int, runs: int) -> float:
    code = CHILD.format(root=str(ROOT), bench=str(ROOT / "bench"), n=sentences, runs=runs)
    base = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**base, "HF_HUB_OFFLINE": "1", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "malloc.md"))
    args = parser.parse_args()
    started, load = time.perf_counter(), os.getloadavg()[0]
    seconds = {name: timed(env, args.sentences, args.runs) for name, env in ENVIRONMENTS.items()}
    first = seconds["glibc's defaults"]
    lines = [
        "# The allocator's settings and the counts state",
        "",
        f"`python bench/malloc.py --sentences {args.sentences} --runs {args.runs}`:"
        f" {time.perf_counter() - started:.0f} s on 2 cores (load average {load:.1f}),"
        f" {time.strftime('%Y-%m-%d')}. One partition of bench/scale_out.py ({args.sentences:,} sentences),"
        " `metric.state(..., keep='counts', ci_resamples=1000)` and `to_bytes`, in a fresh process per"
        " environment; best CPU seconds of the runs.",
        "",
        "| environment | CPU s | x glibc's defaults |",
        "|---|---:|---:|",
        *(f"| {name} | {s:.3f} | {s / first:.2f} |" for name, s in seconds.items()),
        "",
    ]
    page = "\n".join(lines)
    print(page)
    Path(args.out).write_text(page)


if __name__ == "__main__":
    main()
