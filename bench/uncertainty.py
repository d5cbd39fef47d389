"""Speed and validity of the bootstrap intervals and the paired test (``ner_uncertainty``).

Validity: corpora simulated from known per-sentence entity processes, reduced to the count
rows the metric resamples (``ner_uncertainty.unit_stats``'s layout; a check at the start runs
one corpus through ``compute`` and ``compare`` as tags and asserts the same intervals and
p-values), so that thousands of replicates run in minutes:

* a sentence has Poisson(1.64) gold entities (CoNLL-2003 test: 5,648 in 3,453 sentences) of
  4 types; a system finds each with probability q (the document's, see below), and a found
  entity is an exact same-type match (96%), exact with another type (2%), an overlap of the
  same type (1.5%) or of another type (0.5%); spurious entities are Poisson(0.082) per
  sentence. Micro F1 is then about 0.91. The true precision, recall and F1 are the ratios of
  the expected counts, known in closed form.
* "documents share an error rate": sentences come 15 to a document and the document draws
  its q from a Beta distribution (mean q, concentration 20) and its spurious rate from a
  Gamma (mean 0.082, shape 2), shared by every sentence of the document and, in the paired
  studies, by both systems.

Reported: the coverage of the nominal 95% and 90% intervals (percentile, BCa, and both at
Hesterberg's expanded level) for micro
precision, recall and F1, by bootstrap over sentences or over documents (``document_ids``),
each with its Monte Carlo standard error; the type-I error of the approximate-randomisation
test at alpha 0.05 when both systems draw from the same process (a true null); its power
against a 1-point F1 difference at CoNLL-2003 test size with errors of the two systems
correlated (rho: the chance that a gold entity's difficulty is shared), and the coverage of
the paired-bootstrap interval of the difference.

Speed: ``compute`` with ``ci_resamples=1000`` against a plain ``compute`` on the same corpus
(bench/speed.py's synthetic corpus), and ``compare`` with 10,000 permutations, best of
``--runs``, with the peak memory above the input lists.

    HF_HUB_OFFLINE=1 python bench/uncertainty.py [--replicates 2000] [--speed-sizes 10000 100000]
        [--runs 3] [--out bench/uncertainty.md]
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy.stats import beta

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from ner_recall.core import vocabulary as ner_core
from ner_recall.stats import uncertainty as U  # noqa: E402

TYPES = ("LOC", "MISC", "ORG", "PER")
GOLD_RATE, SPURIOUS_RATE, FOUND = 1.64, 0.082, 0.95
SCENARIO_P = np.array([0.96, 0.02, 0.015, 0.005])
PER_DOCUMENT, CONCENTRATION, GAMMA_SHAPE = 15, 20.0, 2.0
SCORES = ("overall_precision", "overall_recall", "overall_f1")
CONLL_TEST = 3453
GOALS = {0.95: (0.93, 0.97), 0.90: (0.88, 0.92)}


class Process(NamedTuple):
    """A corpus design: sentences, whether documents share an error rate, the found rates."""

    name: str
    sentences: int
    documents: bool
    found: tuple = (FOUND,)


# ---------------------------------------------------------------------------- truth and simulation


def true_scores(found):
    """Micro precision, recall, F1 of a system with found rate ``found``: ratios of expectations."""
    tp = GOLD_RATE * found * SCENARIO_P[0]
    predicted = GOLD_RATE * found + SPURIOUS_RATE
    p, r = tp / predicted, tp / GOLD_RATE
    return np.array([p, r, 2 * p * r / (p + r)])


def found_for_f1(f1):
    """The found rate whose true micro F1 is ``f1``."""
    c = SCENARIO_P[0]
    return f1 * (GOLD_RATE + SPURIOUS_RATE) / (GOLD_RATE * (2 * c - f1))


def _document_rates(rng, n_docs, documents):
    """Per document, a uniform quantile shared by both systems' found rates, and the spurious rate's scale."""
    if not documents:
        return np.full(n_docs, 0.5), np.ones(n_docs)
    return rng.random(n_docs), rng.gamma(GAMMA_SHAPE, 1 / GAMMA_SHAPE, n_docs)


def _found_rates(found, z, documents):
    """Per document, the found rate: the ``z`` quantile of Beta(found 20, (1 - found) 20), mean ``found``."""
    if not documents:
        return np.full(len(z), found)
    return beta.ppf(z, found * CONCENTRATION, (1 - found) * CONCENTRATION)


def simulate(process, rng, rho=0.0):
    """Count rows (sentences x ``unit_stats`` columns) of each system, and the document of each sentence."""
    n, k = process.sentences, len(TYPES)
    doc = np.arange(n) // PER_DOCUMENT
    z, spurious_scale = _document_rates(rng, doc[-1] + 1, process.documents)
    gold_n = rng.poisson(GOLD_RATE, n)
    sentence = np.repeat(np.arange(n), gold_n)
    kind = rng.integers(0, k, len(sentence))
    difficulty = rng.random(len(sentence))
    width = len(ner_core.COLUMNS) * k
    systems = []
    for found in process.found:
        q = _found_rates(found, z, process.documents)[doc[sentence]]
        u = np.where(rng.random(len(sentence)) < rho, difficulty, rng.random(len(sentence)))
        hit = u < q
        scenario = rng.choice(4, size=len(sentence), p=SCENARIO_P)
        other = (scenario == 1) | (scenario == 3)
        pred_kind = np.where(other, (kind + rng.integers(1, k, len(kind))) % k, kind)
        n_spurious = rng.poisson(SPURIOUS_RATE * spurious_scale[doc])
        columns = [
            (sentence[hit], scenario[hit] * k + kind[hit]),
            (sentence[hit & other], (4 + (scenario[hit & other] == 3)) * k + pred_kind[hit & other]),
            (sentence[~hit], 6 * k + kind[~hit]),
            (np.repeat(np.arange(n), n_spurious), 7 * k + rng.integers(0, k, n_spurious.sum())),
        ]
        flat = np.concatenate([s * width + c for s, c in columns])
        systems.append(np.bincount(flat, minlength=n * width).reshape(n, width))
    return systems, doc


def _units(rows, doc, by_document):
    if not by_document:
        return rows
    out = np.zeros((doc[-1] + 1, rows.shape[1]), dtype=rows.dtype)
    np.add.at(out, doc, rows)
    return out


# ---------------------------------------------------------------------------- studies


def coverage(process, replicates, resamples, seed, by_document):
    """Hits of each (method, level, score) over ``replicates`` corpora."""
    truth = true_scores(process.found[0])
    rng = np.random.default_rng(seed)
    hits = {(m, lv): np.zeros(len(SCORES)) for m in U.METHODS for lv in GOALS}
    width = {(m, lv): np.zeros(len(SCORES)) for m in U.METHODS for lv in GOALS}
    for r in range(replicates):
        (rows,), doc = simulate(process, rng)
        boot = U.bootstrap(_units(rows, doc, by_document), TYPES, resamples, seed=r, families=("seqeval",))
        cols = [boot.names.index(s) for s in SCORES]
        for m in U.METHODS:
            for lv in GOALS:
                low, high = U.interval_bounds(boot, lv, m)[:, cols]
                hits[m, lv] += (low <= truth) & (truth <= high)
                width[m, lv] += high - low
    return hits, width


def paired_study(process, replicates, permutations, resamples, seed, rho, by_document):
    """Rejections at alpha 0.05 of the overall F1 difference, and hits of its 95% interval."""
    truth = np.diff([true_scores(f)[2] for f in process.found])[0]
    rng = np.random.default_rng(seed)
    rejected = covered = 0
    for r in range(replicates):
        (a, b), doc = simulate(process, rng, rho)
        out = U.paired(
            _units(a, doc, by_document),
            _units(b, doc, by_document),
            TYPES,
            permutations,
            resamples,
            0.95,
            seed=r,
            families=("seqeval",),
        )
        j = out["names"].index("overall_f1")
        rejected += out["p_values"][j] <= 0.05
        if resamples:
            covered += out["intervals"][0, j] <= truth <= out["intervals"][1, j]
    return rejected, covered


def _rate(hits, n):
    p = hits / n
    return p, np.sqrt(p * (1 - p) / n)


def _mark(p, goal):
    return "" if goal[0] <= p <= goal[1] else " (!)"


COVERAGE_HEADER = [
    "| corpus | unit | method | level | "
    + " | ".join(s.replace("overall_", "") for s in SCORES)
    + " | mean width of the F1 interval | replicates |",
    "|---|---|---|---:|" + "---:|" * len(SCORES) + "---:|---:|",
]
PAIRED_HEADER = [
    "| study | corpus | unit | rho | F1 a | F1 b | rejection rate at 0.05 | 95% difference interval coverage | replicates |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|",
]


def coverage_rows(process, by_document, replicates, resamples, seed):
    """The coverage table's rows of one design."""
    hits, width = coverage(process, replicates, resamples, seed, by_document)
    unit = "document" if by_document else "sentence"
    lines = []
    for (m, lv), h in hits.items():
        cells = []
        for j in range(len(SCORES)):
            p, se = _rate(h[j], replicates)
            cells.append(f"{p:.3f} ± {se:.3f}{_mark(p, GOALS[lv])}")
        lines.append(
            f"| {process.name} | {unit} | {m} | {lv:.2f} | "
            + " | ".join(cells)
            + f" | {width[m, lv][2] / replicates:.4f} | {replicates:,} |"
        )
    return lines


def paired_row(study, process, rho, by_document, replicates, permutations, resamples, seed):
    """One row of the paired table."""
    rejected, covered = paired_study(process, replicates, permutations, resamples, seed, rho, by_document)
    p, se = _rate(rejected, replicates)
    f = [true_scores(q)[2] for q in process.found]
    unit = "document" if by_document else "sentence"
    cover = "" if not resamples else "{:.3f} ± {:.3f}".format(*_rate(covered, replicates))
    return [
        f"| {study} | {process.name} | {unit} | {rho:.1f} | {f[0]:.4f} | {f[1]:.4f} | "
        f"{p:.3f} ± {se:.3f} | {cover} | {replicates:,} |"
    ]


def coverage_designs():
    """Every coverage design: name -> (process, resampled by document)."""
    conll = Process(f"{CONLL_TEST:,} sentences", CONLL_TEST, False)
    docs = Process(f"{CONLL_TEST:,} sentences, documents share an error rate", CONLL_TEST, True)
    return {
        "conll": (conll, False),
        "documents": (docs, True),
        "documents-by-sentence": (docs, False),
        "small-documents": (Process("300 sentences, documents share an error rate", 300, True), True),
        "small": (Process("150 sentences", 150, False), False),
    }


def paired_designs():
    """Every paired design: name -> (study, process, rho, resampled by document, with the interval)."""
    conll, docs = coverage_designs()["conll"][0], coverage_designs()["documents"][0]
    same, two = (FOUND, FOUND), (FOUND, found_for_f1(true_scores(FOUND)[2] + 0.01))
    out = {
        f"null-{rho}": ("type-I error", conll._replace(found=same), rho, False, False) for rho in (0.0, 0.9)
    }
    out["null-documents"] = ("type-I error", docs._replace(found=same), 0.9, True, False)
    out.update(
        {
            f"power-{rho}": ("power, +1 point F1", conll._replace(found=two), rho, False, True)
            for rho in (0.0, 0.5, 0.9)
        }
    )
    out["power-documents"] = ("power, +1 point F1", docs._replace(found=two), 0.9, True, True)
    return out


# ---------------------------------------------------------------------------- speed


def _second_system(lengths, gold, pred, seed):
    """Codes of a second system: 20% of the sentences tagged like the gold, 10% with no entity."""
    rng = np.random.default_rng(seed)
    which = rng.random(len(lengths))
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    out = pred.copy()
    out[which[sentence] < 0.2] = gold[which[sentence] < 0.2]
    out[(which[sentence] >= 0.2) & (which[sentence] < 0.3)] = 0
    return out


def _timed(step, runs):
    """Best wall seconds of ``runs`` calls, and the peak resident memory above the start (MB)."""
    from procmem import reset_peak, status_kb

    best, peak = float("inf"), 0.0
    for _ in range(runs):
        reset_peak()
        base = status_kb("VmRSS")
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
        peak = max(peak, (status_kb("VmHWM") - base) / 1024)
    return best, peak


def _core_rows(refs, a, b):
    """Per-sentence count rows of two systems (one type space), as the metric builds them."""
    from ner_recall.core import decoding as D
    from ner_recall.core import matching as M

    out = []
    for p in (a, b):
        corpus = D.encode(p, refs)
        g, q = D.decode(corpus.references, corpus), D.decode(corpus.predictions, corpus)
        out.append(
            (
                U.unit_stats(g, q, M.match(g, q), len(corpus.types), np.arange(len(refs)), len(refs)),
                corpus.types,
            )
        )
    (stats_a, types), (stats_b, types_b) = out
    assert types == types_b
    return stats_a, stats_b, types


def speed(sizes, runs):
    """Rows of the speed table: plain compute, compute with intervals, compare."""
    import evaluate
    from speed import as_lists, synthetic_corpus

    metric = evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=f"uncertainty-{os.getpid()}")
    rows = []
    for n in sizes:
        lengths, gold, pred = synthetic_corpus(n, seed=0)
        refs, a = as_lists(lengths, gold), as_lists(lengths, pred)
        b = as_lists(lengths, _second_system(lengths, gold, pred, 1))
        docs = (np.arange(n) // PER_DOCUMENT).tolist()
        steps = {
            "compute": lambda: metric.compute(predictions=a, references=refs),
            "compute, ci_resamples=1000": lambda: metric.compute(
                predictions=a, references=refs, ci_resamples=1000
            ),
            "compute, ci_resamples=1000, documents": lambda: metric.compute(
                predictions=a, references=refs, ci_resamples=1000, document_ids=docs
            ),
            "compare, permutations=10000, ci_resamples=0": lambda: metric.compare(
                predictions=a, predictions_b=b, references=refs, permutations=10_000, ci_resamples=0
            ),
            "compare, permutations=10000, ci_resamples=1000": lambda: metric.compare(
                predictions=a, predictions_b=b, references=refs, permutations=10_000, ci_resamples=1000
            ),
        }
        stats_a, stats_b, types = _core_rows(refs, a, b)
        steps["core: intervals, 1000 resamples"] = lambda: U.intervals(stats_a, types, 1000)
        steps["core: paired test, 10000 permutations"] = lambda: U.paired(stats_a, stats_b, types, 10_000, 0)
        times = {name: _timed(step, runs) for name, step in steps.items()}
        base = times["compute"][0]
        for name, (seconds, peak) in times.items():
            rows.append(
                {
                    "sentences": n,
                    "step": name,
                    "seconds": seconds,
                    "x_compute": seconds / base,
                    "peak_mb": peak,
                }
            )
    return rows


# ---------------------------------------------------------------------------- report


def _check_through_api():
    """The count rows the study resamples are those ``compute`` builds from tags: one small
    corpus through ``compute`` and ``compare`` and through the core gives equal results."""
    import evaluate
    from speed import as_lists, synthetic_corpus

    metric = evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=f"uncertainty-{os.getpid()}")
    lengths, gold, pred = synthetic_corpus(300, seed=3)
    refs, a = as_lists(lengths, gold), as_lists(lengths, pred)
    b = as_lists(lengths, _second_system(lengths, gold, pred, 4))
    ours = metric.compute(predictions=a, references=refs, ci_resamples=200, seed=5)["intervals"]
    compared = metric.compare(
        predictions=a, predictions_b=b, references=refs, permutations=500, ci_resamples=200
    )
    ra, rb, types = _core_rows(refs, a, b)
    assert U.intervals(ra, types, 200, 0.95, 5) == ours
    out = U.paired(ra, rb, types, 500, 200)
    assert np.allclose(out["p_values"], [compared["p_values"][n] for n in out["names"]])


def _section(title, lines):
    return [f"## {title}", ""] + lines + [""]


def write(results, out):
    """bench/uncertainty.md from the cached results of every part."""
    text = [
        "# Uncertainty: speed and validity",
        "",
        "Written by `bench/uncertainty.py` (see its docstring for the simulated processes). "
        f"{platform.python_version()} Python, numpy {np.__version__}.",
        "",
    ]
    if "speed" in results:
        r = results["speed"]
        lines = [
            r["note"],
            "",
            "| sentences | step | seconds | x compute | peak above start MB |",
            "|---:|---|---:|---:|---:|",
        ]
        lines += [
            f"| {row['sentences']:,} | {row['step']} | {row['seconds']:.3f} | {row['x_compute']:.2f} | "
            f"{row['peak_mb']:.0f} |"
            for row in r["rows"]
        ]
        text += _section("Speed", lines)
    if "coverage" in results:
        rows = [line for name in coverage_designs() for line in results["coverage"].get(name, [])]
        text += _section("Coverage of the intervals", [COVERAGE_NOTE, ""] + COVERAGE_HEADER + rows)
    if "paired" in results:
        rows = [line for name in paired_designs() for line in results["paired"].get(name, [])]
        text += _section("The paired test", [PAIRED_NOTE, ""] + PAIRED_HEADER + rows)
    Path(out).write_text("\n".join(text))


def main():
    import json

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--parts", nargs="+", default=["speed", "coverage", "paired"], choices=["speed", "coverage", "paired"]
    )
    parser.add_argument(
        "--designs",
        nargs="+",
        default=None,
        help=f"coverage designs {list(coverage_designs())} and paired designs {list(paired_designs())}",
    )
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--speed-sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "uncertainty.md"))
    args = parser.parse_args()
    cache = Path(args.out).with_suffix(".json")
    results = json.loads(cache.read_text()) if cache.exists() else {}
    _check_through_api()
    for part in args.parts:
        start = time.perf_counter()
        if part == "speed":
            results["speed"] = {"note": _speed_note(args), "rows": speed(args.speed_sizes, args.runs)}
        elif part == "coverage":
            designs = coverage_designs()
            for i, name in enumerate(designs):
                if args.designs is None or name in args.designs:
                    rows = coverage_rows(*designs[name], args.replicates, args.resamples, args.seed + i)
                    results.setdefault("coverage", {})[name] = rows
        else:
            designs = paired_designs()
            for i, name in enumerate(designs):
                if args.designs is None or name in args.designs:
                    study, process, rho, by_document, interval = designs[name]
                    rows = paired_row(
                        study,
                        process,
                        rho,
                        by_document,
                        args.replicates,
                        args.permutations,
                        args.resamples if interval else 0,
                        args.seed + 100 + i,
                    )
                    results.setdefault("paired", {})[name] = rows
        print(f"{part}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
        cache.write_text(json.dumps(results, indent=1, ensure_ascii=False))
        write(results, args.out)


def _speed_note(args):
    return (
        f"`python bench/uncertainty.py --parts speed --runs {args.runs}`: best of {args.runs} runs, "
        "wall seconds through `evaluate.load`; bench/speed.py's synthetic corpus (4 types); the "
        "second system of `compare` tags 20% of the sentences like the gold and 10% with no entity; "
        "documents: 15 sentences each. x compute: against the plain `compute` of the same size. core: the "
        "`ner_uncertainty` step alone, on the count rows (no decoding or matching). Peak: "
        "VmHWM above the resident size at the start of the step (the input lists are excluded)."
    )


COVERAGE_NOTE = (
    "`python bench/uncertainty.py --parts coverage [--designs ...] --replicates N --resamples 1000`: N simulated "
    "corpora per design, 1000 bootstrap resamples each; the coverage of the true micro precision, recall and F1 "
    "± its Monte Carlo standard error; (!) marks a value outside the goal ([0.93, 0.97] at 0.95, [0.88, 0.92] at "
    "0.90). unit: what is resampled (sentences, or documents as with `document_ids`). method: percentile, "
    "expanded percentile, BCa, and expanded BCa (the default of `compute` and `compare`), all four from the "
    "same resamples."
)
PAIRED_NOTE = (
    "`python bench/uncertainty.py --parts paired [--designs ...] --replicates N --permutations 1000`: N simulated "
    "pairs of systems per design on the same gold, 1000 permutations (and 1000 bootstrap resamples for the "
    "interval, expanded BCa) each: the rejection rate of the approximate-randomisation test of overall_f1 at alpha 0.05 (the "
    "type-I error where both systems draw from one process, the power where b's true F1 is 1 point higher) and "
    "the coverage of the 95% paired-bootstrap interval of the difference, each ± its Monte Carlo standard "
    "error. rho: the share of gold entities whose difficulty both systems share (0: independent errors)."
)


if __name__ == "__main__":
    main()
