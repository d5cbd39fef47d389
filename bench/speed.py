"""Speed and peak memory of ner_recall_metric against evaluate's floor, seqeval and nervaluate.

A seeded synthetic corpus at each size: sentences of about 14 tokens, about 12% of the tokens
start an entity, 4 types; predictions miss, retype, shift and invent entities, and carry
ill-formed tags (an entity opened with I-, a type switch inside an entity). Each measurement
runs in its own subprocess, which builds the corpus as Python lists, resets the peak resident
memory, runs the step ``--runs`` times and reports its VmHWM, so peaks do not mix; each of our
steps gets ``--rounds`` such processes, interleaved with the other steps. Steps:

* ``compute``: ``metric.compute`` of ner_recall_metric, default options (seqeval keys, the four
  MUC modes, per type), handed the whole corpus with nothing added before: the direct path,
  evaluate's cache neither written nor read;
* ``compute slices``: the same with ``slices`` (50 seeded values, one per sentence) and the
  default entity buckets (entity length, sentence length, density), up to ``--peers-max``;
* ``floor``: evaluate's own cost, a metric with the same features whose ``_compute`` returns {};
* ``stream`` / ``stream floor``: both metrics fed through ``add_batch`` in batches of
  ``STREAM_BATCH`` sentences, then ``compute()``: the cached path (ours reads it as Arrow);
* ``core`` / ``core strict``: the metric's ``_compute`` alone (no evaluate round trip), lenient
  and ``mode="strict", scheme="IOB2"``;
* ``seqeval`` / ``seqeval strict``: ``classification_report(output_dict=True)`` plus
  ``accuracy_score``, as evaluate's seqeval metric calls them; default and strict (IOB2);
* ``nervaluate``: ``Evaluator(..., loader="list").evaluate()`` (all four modes, per type);
* class ids (``bench/class_ids.py``, one process, at the largest size): ``compute`` from a 2-D
  array, a list of 1-D arrays, an Arrow list column and a tensor of class ids, beside one NumPy
  pass over the same arrays;
* ``stratified`` / ``bootstrap``: 1M gold entities in 100 strata (population weights) reduced
  to counts and ``stratified_recall``, default interval and 10,000 bootstrap resamples;
* ``core subgroups`` (``bootstrap``): ``_compute`` in the "subgroups" config on 600,000 sentences
  (about 1M gold entities) in 100 subgroups, beside ``core`` on the same corpus: the difference
  is what the stratified recall costs inside the metric.

The peers grow faster than linearly and run only up to ``--peers-max`` sentences.

    HF_HUB_OFFLINE=1 python bench/speed.py [--sizes 100000 1000000] [--peers-max 100000]
        [--stream-max 1000000] [--rounds 2] [--runs 2] [--out bench/speed.md]

Steps at 1M sentences run as those at 100k (``--rounds`` processes of ``--runs`` runs each, the best),
so that time per sentence compares like with like.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from procmem import reset_peak, status_kb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TYPES = ("LOC", "MISC", "ORG", "PER")
TAGS = ["O"] + [f"{p}-{t}" for t in TYPES for p in "BI"]  # code 1 + 2t: B-t, 2 + 2t: I-t
CORPUS_STEPS = (
    "floor",
    "compute",
    "compute slices",
    "core",
    "core strict",
    "stream floor",
    "stream",
    "seqeval",
    "seqeval strict",
    "nervaluate",
)
STREAM_STEPS = ("stream floor", "stream")
#: where a tagger fails: 50 slices (one seeded value per sentence) and the default entity buckets
N_SLICES = 50
SLICE_BUCKETS = ["entity_length", "sentence_length", "density"]
STREAM_BATCH = 1000
BIG = 1_000_000  # the large size, the one of the per-sentence and peak-memory targets
#: peak memory of ``compute`` at 1M sentences before the direct path (bench/speed.md of 2026-11-22)
PEAK_BEFORE_MB = 2268
PEERS = ("seqeval", "seqeval strict", "nervaluate")
STRATA_STEPS = ("stratified", "bootstrap")  # stratified_recall on counts
METRIC_STRATA_STEPS = ("core", "core subgroups", "core subgroups bootstrap")  # through _compute
N_ENTITIES, N_STRATA, N_BOOTSTRAP = 1_000_000, 100, 10_000
STRATA_SENTENCES = 600_000  # about 1M gold entities


# ---------------------------------------------------------------------------- corpus


def _paint(n, sentence_end, starts, length, kind):
    """IOB2 codes of entities (``starts`` sorted and distinct; a later start cuts a span),
    each cut at the end of its sentence."""
    owner = np.full(n, -1)
    owner[starts] = np.arange(len(starts))
    owner = np.maximum.accumulate(owner)  # the entity that started last at or before a token
    pos = np.flatnonzero(owner >= 0)
    k = owner[pos]
    inside = (pos < starts[k] + length[k]) & (sentence_end[pos] == sentence_end[starts[k]])
    codes = np.zeros(n, dtype=np.int8)
    codes[pos[inside]] = 2 + 2 * kind[k[inside]]
    codes[starts] = 1 + 2 * kind
    return codes


def synthetic_corpus(n_sentences, seed=0, ill_formed=(0.04, 0.03)):
    """(lengths, gold codes, predicted codes) of a seeded corpus; codes index ``TAGS``.

    ``ill_formed``: the shares of predicted B- tags written I- and of predicted I- tags switched
    to another type (see :func:`_ill_formed`); None for none (the rest of the corpus unchanged)."""
    rng = np.random.default_rng(seed)
    lengths = 1 + rng.poisson(13, n_sentences)
    n = int(lengths.sum())
    sentence_end = np.repeat(np.cumsum(lengths), lengths)
    first_token = sentence_end - np.repeat(lengths, lengths)
    starts = np.flatnonzero(rng.random(n) < 0.12)
    length = rng.geometric(0.55, len(starts))
    kind = rng.choice(len(TYPES), len(starts), p=[0.3, 0.15, 0.25, 0.3])
    gold = _paint(n, sentence_end, starts, length, kind)
    pred_starts, pred_length, pred_kind = _prediction_errors(rng, starts, length, kind, first_token)
    pred = _paint(n, sentence_end, pred_starts, pred_length, pred_kind)
    if ill_formed:
        _ill_formed(rng, pred, *ill_formed)
    return lengths, gold, pred


def _prediction_errors(rng, starts, length, kind, first_token):
    """Gold entities with 7% missed, 6% retyped, 8% one token longer or shorter, 3% starting a
    token early, plus spurious entities at 1.5% of the tokens."""
    r = rng.random(len(starts))
    kind = np.where(
        (r >= 0.07) & (r < 0.13), (kind + rng.integers(1, len(TYPES), len(kind))) % len(TYPES), kind
    )
    shift = (r >= 0.13) & (r < 0.21)
    length = np.where(shift, np.maximum(1, length + rng.choice([-1, 1], len(length))), length)
    early = (r >= 0.21) & (r < 0.24) & (starts > first_token[starts])
    starts, length = starts - early, length + early
    spurious = np.flatnonzero(rng.random(len(first_token)) < 0.015)
    all_starts = np.concatenate([starts[r >= 0.07], spurious])
    order = np.argsort(all_starts, kind="stable")
    all_length = np.concatenate([length[r >= 0.07], rng.geometric(0.6, len(spurious))])[order]
    all_kind = np.concatenate([kind[r >= 0.07], rng.integers(0, len(TYPES), len(spurious))])[order]
    unique, first = np.unique(all_starts[order], return_index=True)
    return unique, all_length[first], all_kind[first]


def _ill_formed(rng, pred, b_share=0.04, i_share=0.03):
    """In place: ``b_share`` of the B- tags written I-, ``i_share`` of the I- tags switched to
    another type."""
    b = np.flatnonzero(pred % 2 == 1)
    pred[b[rng.random(len(b)) < b_share]] += 1
    i = np.flatnonzero((pred > 0) & (pred % 2 == 0))
    switch = i[rng.random(len(i)) < i_share]
    pred[switch] = 2 + 2 * ((pred[switch] // 2 - 1 + rng.integers(1, len(TYPES), len(switch))) % len(TYPES))


def as_lists(lengths, codes):
    """Per sentence, its tags as a list of str (the shape evaluate and the peers take)."""
    flat = np.array(TAGS, dtype=object)[codes].tolist()
    bounds = np.concatenate(([0], np.cumsum(lengths))).tolist()
    return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


# ---------------------------------------------------------------------------- steps

FLOOR_METRIC = '''"""A metric with ner_recall_metric's features whose _compute does nothing."""
import datasets
import evaluate


class FloorMetric(evaluate.Metric):
    def _info(self):
        formats = [{side: datasets.Sequence(datasets.Value(dtype, id="label"), id="sequence")
                    for side in ("predictions", "references")} for dtype in ("string", "int64")]
        return evaluate.MetricInfo(description="floor", citation="", inputs_description="",
                                   features=[datasets.Features(f) for f in formats])

    def _compute(self, predictions, references):
        return {}
'''


def _load_metrics(workdir):
    """ner_recall_metric and the floor metric through ``evaluate.load``; same features checked."""
    import evaluate

    floor_path = Path(workdir) / "floor_metric.py"
    floor_path.write_text(FLOOR_METRIC)
    # an experiment id of their own, so that no other process's lock on evaluate's default
    # cache file makes them wait (evaluate waits 1 s, then picks another file)
    experiment = f"speed-{os.getpid()}"
    ours = evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=experiment)
    floor = evaluate.load(str(floor_path), experiment_id=experiment)
    if floor.info.features != ours.info.features:
        raise SystemExit(f"the floor's features differ from the metric's: {ours.info.features}")
    return ours, floor


def _subgroups_step(step, workdir, predictions, references, seed):
    """``_compute`` in the "subgroups" config: one of 100 subgroups per sentence."""
    import evaluate

    metric = evaluate.load(
        str(ROOT / "ner_recall_metric.py"), "subgroups", experiment_id=f"speed-{os.getpid()}"
    )
    names = [f"stratum{k:03d}" for k in range(N_STRATA)]
    subgroups = [names[k] for k in np.random.default_rng(seed).integers(0, N_STRATA, len(references))]
    method = {"ci_method": "bootstrap", "n_bootstrap": N_BOOTSTRAP} if step.endswith("bootstrap") else {}
    from ner_recall.pipeline import compute

    _time_inside(compute, "_stratified_recall")
    return lambda: metric._compute(
        predictions=predictions, references=references, subgroups=subgroups, **method
    )


INSIDE = []  # seconds spent in the function _time_inside wraps, one entry per call


def _time_inside(module, name):
    """Wrap ``module.name`` (if it exists) to record its own duration in ``INSIDE``."""
    function = getattr(module, name, None)
    if function is None:
        raise SystemExit(f"{module.__name__} has no {name} to time: bench/speed.py needs the new name")

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            INSIDE.append(time.perf_counter() - start)

    setattr(module, name, timed)


def _corpus_step(step, workdir, predictions, references, seed):
    """A no-argument callable that runs ``step`` once on the corpus."""
    if step.startswith("core subgroups"):
        return _subgroups_step(step, workdir, predictions, references, seed)
    if step in ("floor", "compute", "compute slices", "core", "core strict") + STREAM_STEPS:
        ours, floor = _load_metrics(workdir)
        values = [f"s{v}" for v in np.random.default_rng(seed).integers(0, N_SLICES, len(references))]
        strict = {"mode": "strict", "scheme": "IOB2"} if step == "core strict" else {}

        def stream(metric):
            for start in range(0, len(references), STREAM_BATCH):
                metric.add_batch(
                    predictions=predictions[start : start + STREAM_BATCH],
                    references=references[start : start + STREAM_BATCH],
                )
            return metric.compute()

        return {
            "floor": lambda: floor.compute(predictions=predictions, references=references),
            "stream floor": lambda: stream(floor),
            "stream": lambda: stream(ours),
            "compute": lambda: ours.compute(predictions=predictions, references=references),
            "compute slices": lambda: ours.compute(
                predictions=predictions, references=references, slices=values, buckets=SLICE_BUCKETS
            ),
            "core": lambda: ours._compute(predictions=predictions, references=references),
            "core strict": lambda: ours._compute(predictions=predictions, references=references, **strict),
        }[step]
    if step == "nervaluate":
        from nervaluate import Evaluator

        return lambda: Evaluator(references, predictions, tags=list(TYPES), loader="list").evaluate()
    from seqeval.metrics import accuracy_score, classification_report
    from seqeval.scheme import IOB2

    strict = {"mode": "strict", "scheme": IOB2} if step == "seqeval strict" else {}
    return lambda: (
        classification_report(references, predictions, output_dict=True, **strict),
        accuracy_score(references, predictions),
    )


def _strata_step(step, seed):
    """A callable: 1M gold entities (stratum, credit) to counts to ``stratified_recall``."""
    from ner_recall.stats.stratified import stratified_recall

    rng = np.random.default_rng(seed)
    stratum = rng.integers(0, N_STRATA, N_ENTITIES)
    credit = rng.choice(3, N_ENTITIES, p=[0.1, 0.05, 0.85])  # missed, partial, found
    names = [f"stratum{k:03d}" for k in range(N_STRATA)]
    weights = dict(zip(names, rng.uniform(1, 100, N_STRATA).tolist()))
    method = {"stratified": {}, "bootstrap": {"ci_method": "bootstrap", "n_bootstrap": N_BOOTSTRAP}}[step]

    def run():
        n = np.bincount(stratum, minlength=N_STRATA)
        full = np.bincount(stratum[credit == 2], minlength=N_STRATA)
        half = np.bincount(stratum[credit == 1], minlength=N_STRATA)
        strata = {name: (int(a), int(b), int(c)) for name, a, b, c in zip(names, n, full, half)}
        return stratified_recall(strata, weights, **method)

    return run


PROFILE_SIZE = 100_000


def _profile_stages(workdir, predictions, references):
    """(stage, callable) pairs that split the core (``_compute`` on lists of tags) into its
    steps, each fed by the one before."""
    from ner_recall.core import cache as ner_cache
    from ner_recall.core import decoding as D
    from ner_recall.pipeline import compute as pipeline
    from ner_recall.pipeline import options as ner_options

    options = ner_options.check_options("default", {})
    state = {}

    def codes():
        state["codes"] = ner_cache.input_codes(predictions, references)

    def corpus():
        state["corpus"] = D.corpus_from_codes(**state["codes"]._asdict())

    def decode():
        c = state["corpus"]
        state["spans"] = (D.decode(c.references, c), D.decode(c.predictions, c))

    return [
        ("options checked (`check_options`)", lambda: ner_options.check_options("default", {})),
        (
            "one pass over both sides: every item a str, tags to one-byte codes, lengths compared"
            " (`check_batch`, `ner_decoding.tag_codes`)",
            codes,
        ),
        ("codes to the flat layout, each distinct tag parsed once (`corpus_from_codes`)", corpus),
        ("entities of both sides decoded (`ner_decoding.decode`)", decode),
        (
            "matching, counting, seqeval keys and the four MUC modes (`ner_pipeline.score_view`)",
            lambda: pipeline.score_view(state["corpus"], *state["spans"], options),
        ),
    ]


# ---------------------------------------------------------------------------- touch and core

#: the touch step: sentences, and the shares of predicted B- and I- tags made ill-formed
TOUCH_SIZE, TOUCH_ILL_FORMED = 100_000, (0.05, 0.05)
TOUCH_RUNS = 9
#: target: the core within this factor of the touch, the pass that reads every tag once into a code
#: (one dict lookup a tag into a bytearray: about 0.07 s for the 2.8M tags of 100k sentences here)
TOUCH_TARGET = 1.5


def bare_loop(*sides):
    """Every tag of every side touched once, from the Python lists: the least any pass costs."""
    for side in sides:
        for sentence in side:
            for _tag in sentence:
                pass


def _touch_steps(predictions, references):
    """(name, callable) of the touch step, on one corpus: the bare loop, one dict lookup per
    tag into a bytearray (the least a pass that maps each tag to a code costs), and the core:
    ``ner_pipeline.tag_corpus`` (``check_batch``'s one pass that checks every item and makes
    the codes, the sentence lengths compared, the flat layout, each distinct tag parsed) and
    ``ner_decoding.decode`` of both sides: lists to codes to decoded entities, as ``_compute``
    runs it before the matching."""
    from itertools import chain

    from ner_recall.core.decoding import decode
    from ner_recall.pipeline.compute import tag_corpus
    from ner_recall.pipeline.options import check_options

    options = check_options("default", {})
    numbered = {tag: code for code, tag in enumerate(TAGS)}

    def lookups():
        return bytearray(map(numbered.__getitem__, chain.from_iterable(chain(predictions, references))))

    def core():
        corpus = tag_corpus(predictions, references, options)
        return decode(corpus.references, corpus), decode(corpus.predictions, corpus)

    return [("bare", lambda: bare_loop(predictions, references)), ("lookups", lookups), ("core", core)]


def _touch_child(args):
    """Best CPU seconds of each touch step on a clean corpus and on one with ill-formed tags,
    the runs interleaved in this one process."""
    import gc

    corpora, out = {}, []
    lengths, gold, clean = synthetic_corpus(TOUCH_SIZE, args.seed, ill_formed=None)
    for name, shares in (("clean", None), ("ill-formed", TOUCH_ILL_FORMED)):
        pred = synthetic_corpus(TOUCH_SIZE, args.seed, ill_formed=shares)[2]
        changed = int(np.count_nonzero(pred != clean))
        corpora[name] = (
            as_lists(lengths, pred),
            as_lists(lengths, gold),
            changed,
            int(np.count_nonzero(pred)),
        )
    steps = {name: _touch_steps(*corpus[:2]) for name, corpus in corpora.items()}
    best = {(name, step): float("inf") for name in steps for step, _ in steps[name]}
    for _ in range(max(args.runs, TOUCH_RUNS)):
        for name, pairs in steps.items():
            for step, run in pairs:
                gc.collect()
                start = time.process_time()
                run()
                best[(name, step)] = min(best[(name, step)], time.process_time() - start)
    for name, (pred, ref, changed, entity_tags) in corpora.items():
        out.append(
            {
                "corpus": name,
                "tags": 2 * int(lengths.sum()),
                "changed": changed,
                "entity_tags": entity_tags,
                **{step: best[(name, step)] for step, _ in steps[name]},
            }
        )
    return out


def _touch_lines(touch):
    """The touch table and its target lines."""
    lines = [
        "",
        f"The core beside the touch (every tag read once into a code) and the bare loop, {TOUCH_SIZE:,} sentences, both sides, in one process (best CPU "
        f"seconds of {TOUCH_RUNS} interleaved runs); ill-formed: {TOUCH_ILL_FORMED[0]:.0%} of the predicted"
        f" B- tags written I- and {TOUCH_ILL_FORMED[1]:.0%} of the I- tags switched to another type:",
        "",
        "| corpus | tags | ill-formed predicted tags | bare loop s | touch s (a dict lookup a tag) | core s "
        "| core / touch | core / bare loop |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in touch:
        share = f"{row['changed']:,} ({row['changed'] / row['entity_tags']:.1%} of entity tags)"
        lines.append(
            f"| {row['corpus']} | {row['tags']:,} | {share} | {row['bare']:.3f} | {row['lookups']:.3f} "
            f"| {row['core']:.3f} | {row['core'] / row['lookups']:.2f} | {row['core'] / row['bare']:.2f} |"
        )
    targets = [
        f"- core (lists to codes to decoded entities) / the touch (every tag read once into a code), "
        f"{row['corpus']} corpus: **{row['core'] / row['lookups']:.2f}x** (target <= {TOUCH_TARGET}x)"
        for row in touch
    ]
    return lines, targets


def _measure_touch(args):
    """The touch step in a subprocess of its own: its JSON result."""
    command = [
        sys.executable,
        __file__,
        "--child",
        "touch",
        "--seed",
        str(args.seed),
        "--runs",
        str(args.runs),
    ]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"touch failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _profile_child(args, workdir, predictions, references):
    stages = _profile_stages(workdir, predictions, references)
    best = [float("inf")] * len(stages)
    for _ in range(args.runs):
        for k, (_, stage) in enumerate(stages):
            start = time.process_time()
            stage()
            best[k] = min(best[k], time.process_time() - start)
    return [(name, seconds) for (name, _), seconds in zip(stages, best)]


def _profile_lines(profile, results):
    """The profile table: CPU seconds of each stage of the core at PROFILE_SIZE sentences."""
    total = sum(seconds for _, seconds in profile)
    lines = [
        "",
        f"Where the core's time goes at {PROFILE_SIZE:,} sentences (best CPU seconds of each stage, "
        "run in turn in one process):",
        "",
        "| stage | cpu s | share |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {seconds:.3f} | {seconds / total:.0%} |" for name, seconds in profile]
    lines.append(f"| all stages | {total:.3f} | 100% |")
    return lines


# ---------------------------------------------------------------------------- one measurement


def run_child(args):
    """Measure one step in this process; print a JSON line.

    The input lists stay in the heap as in a caller's process (not frozen out of the garbage
    collector: that would change when evaluate's full collections run); a collection runs
    before each run, so that every run starts from the same heap.
    """
    import gc
    import warnings

    warnings.simplefilter("ignore")  # seqeval warns about ill-formed tags
    if args.child == "touch":
        print(json.dumps(_touch_child(args)))
        return
    with tempfile.TemporaryDirectory() as workdir:
        if args.child == "profile":
            data = np.load(args.corpus)
            references = as_lists(data["lengths"], data["gold"])
            predictions = as_lists(data["lengths"], data["pred"])
            print(json.dumps(_profile_child(args, workdir, predictions, references)))
            return
        if args.child in STRATA_STEPS:
            run = _strata_step(args.child, args.seed)
        else:
            data = np.load(args.corpus)
            references = as_lists(data["lengths"], data["gold"])
            predictions = as_lists(data["lengths"], data["pred"])
            del data
            run = _corpus_step(args.child, workdir, predictions, references, args.seed)
        gc.collect()
        reset = reset_peak()
        base = status_kb("VmRSS")
        wall, cpu = [], []
        for _ in range(args.runs):
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        peak = status_kb("VmHWM")
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": cpu,
                "above_kb": peak - base,
                "peak_kb": peak,
                "peak_reset": reset,
                "inside": INSIDE,
            }
        )
    )


def measure(step, size, corpus, args, runs):
    """Run one step in a subprocess; its JSON result."""
    command = [
        sys.executable,
        __file__,
        "--child",
        step,
        "--size",
        str(size),
        "--seed",
        str(args.seed),
        "--runs",
        str(runs),
    ] + (["--corpus", corpus] if corpus else [])
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"{step} at {size} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _merge(old, new):
    """Results of two processes of one step: all runs, the higher peaks."""
    if old is None:
        return new
    return {
        "wall": old["wall"] + new["wall"],
        "cpu": old["cpu"] + new["cpu"],
        "inside": old["inside"] + new["inside"],
        "above_kb": max(old["above_kb"], new["above_kb"]),
        "peak_kb": max(old["peak_kb"], new["peak_kb"]),
        "peak_reset": old["peak_reset"] and new["peak_reset"],
    }


# ---------------------------------------------------------------------------- report


def _row(step, size, tokens, result, floor):
    wall, cpu = min(result["wall"]), min(result["cpu"])
    ratio = f"{cpu / floor:.2f}" if floor else ""
    return (
        f"| {step} | {size:,} | {tokens:,} | {wall:.3f} | {cpu:.3f} | {tokens / wall:,.0f} | {ratio} "
        f"| {len(result['wall'])} | {result['peak_kb'] / 1024:,.0f} | {result['above_kb'] / 1024:,.0f} |"
    )


def _best(results, step, size):
    """The best CPU seconds of a step: the ratios use CPU time, which other processes on a
    shared machine disturb far less than the wall clock."""
    found = results.get((step, size))
    return min(found["cpu"]) if found else None


def _ratio_line(results, step, base, size, target, what):
    if _best(results, step, size) and _best(results, base, size):
        ratio = _best(results, step, size) / _best(results, base, size)
        return [f"- {what} at {size:,} sentences: **{ratio:.2f}x** (target <= {target}x)"]
    return []


def _targets(results, sizes):
    """The speed targets, as ratios, each at the sizes it was measured at."""
    lines = []
    best = lambda step, size: _best(results, step, size)  # noqa: E731
    for size in sizes:
        lines += _ratio_line(
            results, "compute", "floor", size, 0.25, "`compute` (direct) / the no-op metric's `compute`"
        )
    for size in sizes:
        lines += _ratio_line(
            results,
            "compute slices",
            "compute",
            size,
            1.3,
            f"`compute` with {N_SLICES} slices and the buckets {', '.join(SLICE_BUCKETS)} / plain `compute`",
        )
    for size in sizes:
        lines += _ratio_line(
            results,
            "stream",
            "stream floor",
            size,
            1.05,
            "`add_batch` + `compute` / the no-op metric's, streamed alike,",
        )
    for size in [s for s in sizes if all(best(step, s) for step in ("core",) + PEERS)]:
        parts = [f"{peer} **{best(peer, size) / best('core', size):,.0f}x**" for peer in PEERS]
        lines.append(f"- core faster than, at {size:,} sentences: " + ", ".join(parts) + " (target >= 100x)")
    if best("compute", BIG) and best("compute", 100_000):
        for step in ("compute", "core", "stream", "floor"):
            if best(step, BIG) and best(step, 100_000):
                growth = best(step, BIG) / (BIG / 100_000) / best(step, 100_000)
                lines.append(f"- `{step}` time per sentence, 1M / 100k: **{growth:.2f}** (target <= 1.1)")
    for step in ("compute", "stream"):
        if results.get((step, BIG)):
            peak = results[(step, BIG)]["peak_kb"] / 1024
            lines.append(
                f"- `{step}` peak memory at {BIG:,} sentences: **{peak:,.0f} MB**, "
                f"**{peak / PEAK_BEFORE_MB:.2f}x** the {PEAK_BEFORE_MB:,} MB of `compute` before the direct"
                " path (target <= 0.5x)"
            )
    return lines


def _strata_lines(results, entities):
    """The stratified recall: on counts, and what it adds to ``_compute``."""
    lines = []
    for step, what in zip(STRATA_STEPS, ("default interval", f"{N_BOOTSTRAP:,} bootstrap resamples")):
        if (step, N_ENTITIES) in results:
            lines.append(
                f"- `stratified_recall`, {what}, from {N_ENTITIES:,} gold entities' (stratum, credit): "
                f"**{_best(results, step, N_ENTITIES):.3f} s**"
            )
    plain = _best(results, "core", STRATA_SENTENCES)
    for step, what in zip(
        METRIC_STRATA_STEPS[1:], ("default interval", f"{N_BOOTSTRAP:,} bootstrap resamples")
    ):
        if plain and (step, STRATA_SENTENCES) in results:
            inside = results[(step, STRATA_SENTENCES)]["inside"]
            part = f"**{min(inside):.3f} s**" if inside else "not measured (no `_stratified_recall` to time)"
            lines.append(
                f'- `_compute` in the "subgroups" config, {what}, {entities:,} gold entities in '
                f"{STRATA_SENTENCES:,} sentences: {_best(results, step, STRATA_SENTENCES):.3f} s, of which "
                f"the stratified recall (subgroups to interval) {part}; without subgroups {plain:.3f} s"
            )
    return lines


def report(results, tokens, args, elapsed, entities=None, touch=None, ids=None):
    """The markdown page: set-up, one table, the targets."""
    import evaluate

    lines = [
        "# Speed",
        "",
        f"`{' '.join(['python bench/speed.py'] + sys.argv[1:])}`: {elapsed:.0f} s on {os.cpu_count()} cores "
        f"(Python {sys.version.split()[0]}, numpy {np.__version__}, evaluate {evaluate.__version__}), "
        f"{time.strftime('%Y-%m-%d')}. Each step runs in processes of its own ({args.rounds} rounds of "
        f"{args.runs} runs at every size, rounds interleaved; peers and the stratified steps once); seconds are the best run, wall clock and CPU; "
        "tokens per side; every ratio (x floor, the targets) divides CPU seconds. Peak: VmHWM of the step's process (input lists included), and above the input "
        f"lists alone. Peers only up to {args.peers_max:,} sentences: nothing is extrapolated.",
        "",
        "| step | sentences | tokens | wall s | cpu s | tokens/s | x floor | runs | peak MB | above input MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in args.sizes:
        for step in CORPUS_STEPS:
            if (step, size) in results:
                base = "stream floor" if step in STREAM_STEPS else "floor"
                lines.append(
                    _row(step, size, tokens[size], results[(step, size)], _best(results, base, size))
                )
    if not all(r["peak_reset"] for r in results.values()):
        lines += ["", "Peaks could not be reset (/proc/self/clear_refs): they include building the input."]
    touch_table, touch_targets = _touch_lines(touch) if touch else ([], [])
    lines += touch_table
    lines += ["", "Targets:", ""] + touch_targets + _targets(results, args.sizes)
    if ids:
        lines += ["", *ids]
    if args.strata:
        lines += ["", f"Stratified recall, {N_STRATA} strata:", ""] + _strata_lines(results, entities)
    return "\n".join(lines) + "\n"


def _class_ids(sentences, args):
    """The lines of ``bench/class_ids.py`` (compute from class ids beside a numpy pass), in a process
    of its own."""
    command = [sys.executable, str(ROOT / "bench" / "class_ids.py"), "--sentences", str(sentences)]
    command += ["--runs", str(args.rounds * args.runs + 1), "--seed", str(args.seed), "--out", os.devnull]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
    return done.stdout.strip().splitlines()[2:]  # past the page's title


def _run(results, step, size, corpus, args, runs):
    print(f"{step} at {size:,} ...", file=sys.stderr, flush=True)
    results[(step, size)] = _merge(results.get((step, size)), measure(step, size, corpus, args, runs))


def _save_corpus(workdir, size, seed):
    """The corpus of ``size`` sentences as an .npz file: (path, tokens, gold entities)."""
    lengths, gold, pred = synthetic_corpus(size, seed)
    path = str(Path(workdir) / f"corpus{size}.npz")
    np.savez(path, lengths=lengths, gold=gold, pred=pred)
    return path, int(lengths.sum()), int(np.count_nonzero(gold % 2 == 1))


def run_all(args):
    """Every step at every size, each in processes of its own; the markdown page."""
    started = time.perf_counter()
    results, tokens, entities = {}, {}, None
    with tempfile.TemporaryDirectory() as workdir:
        for size in args.sizes:
            corpus, tokens[size], _ = _save_corpus(workdir, size, args.seed)
            runs, rounds = args.runs, args.rounds
            for _ in range(rounds):  # interleaved, so that a busy spell hits every step alike
                for step in CORPUS_STEPS:
                    if step == "compute slices" and size > args.peers_max:
                        continue
                    if step not in PEERS and (step not in STREAM_STEPS or size <= args.stream_max):
                        _run(results, step, size, corpus, args, runs)
            for step in PEERS if size <= args.peers_max else ():
                _run(results, step, size, corpus, args, 1)
        print("touch ...", file=sys.stderr, flush=True)
        touch = _measure_touch(args)
        print("class ids ...", file=sys.stderr, flush=True)
        ids = _class_ids(max(args.sizes), args)
        if args.strata:
            corpus, _, entities = _save_corpus(workdir, STRATA_SENTENCES, args.seed)
            for step in METRIC_STRATA_STEPS:
                _run(results, step, STRATA_SENTENCES, corpus, args, args.runs)
            for step in STRATA_STEPS:
                _run(results, step, N_ENTITIES, None, args, args.runs)
    return report(results, tokens, args, time.perf_counter() - started, entities, touch, ids)


def run_profile(args):
    """The core's stages at PROFILE_SIZE sentences, in one process: the markdown page."""
    with tempfile.TemporaryDirectory() as workdir:
        corpus, _, _ = _save_corpus(workdir, PROFILE_SIZE, args.seed)
        command = [
            sys.executable,
            __file__,
            "--child",
            "profile",
            "--size",
            str(PROFILE_SIZE),
            "--seed",
            str(args.seed),
            "--runs",
            str(args.runs),
            "--corpus",
            corpus,
        ]
        env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
        if done.returncode:
            raise SystemExit(f"profile failed:\n{done.stderr}")
        profile = json.loads(done.stdout.strip().splitlines()[-1])
    return (
        "\n".join(
            [
                "# Profile of the core",
                "",
                f"`python bench/speed.py --profile --runs {args.runs}`, "
                f"{time.strftime('%Y-%m-%d')}, Python {sys.version.split()[0]}, numpy {np.__version__}.",
            ]
            + _profile_lines(profile, None)
        )
        + "\n"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[100_000, 1_000_000], help="corpus sizes in sentences"
    )
    parser.add_argument("--peers-max", type=int, default=100_000, help="largest size the peers run at")
    parser.add_argument(
        "--stream-max", type=int, default=1_000_000, help="largest size the stream steps run at"
    )
    parser.add_argument("--rounds", type=int, default=2, help="processes per step of ours, interleaved")
    parser.add_argument("--runs", type=int, default=2, help="runs per process (peers: 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-strata", dest="strata", action="store_false", help="skip the stratified timings"
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "speed.md"))
    parser.add_argument(
        "--profile",
        action="store_true",
        help="time the core's stages at 100k sentences instead; writes bench/speed_profile.md",
    )
    parser.add_argument(
        "--touch",
        action="store_true",
        help="only the core beside the touch and the bare loop (one process, 100k sentences); prints, writes nothing",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return run_child(args)
    if args.touch:
        table, targets = _touch_lines(_measure_touch(args))
        print("\n".join(table + [""] + targets))
        return
    if args.profile:
        out = (
            args.out
            if args.out != str(ROOT / "bench" / "speed.md")
            else str(ROOT / "bench" / "speed_profile.md")
        )
        page = run_profile(args)
        print(page)
        Path(out).write_text(page)
        return
    page = run_all(args)
    print(page)
    Path(args.out).write_text(page)


if __name__ == "__main__":
    main()
