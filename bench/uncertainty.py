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

Reported: the coverage of the nominal 95% and 90% intervals (percentile and BCa) for micro
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
import ner_uncertainty as U  # noqa: E402

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
    width = len(U.COLUMNS) * k
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
        out = U.paired(_units(a, doc, by_document), _units(b, doc, by_document), TYPES, permutations, resamples,
                       0.95, seed=r, families=("seqeval",))
        j = out["names"].index("overall_f1")
        rejected += out["p_values"][j] <= 0.05
        covered += out["intervals"][0, j] <= truth <= out["intervals"][1, j]
    return rejected, covered


def _rate(hits, n):
    p = hits / n
    return p, np.sqrt(p * (1 - p) / n)


def _mark(p, se, goal):
    lo, hi = goal
    return "" if lo <= p <= hi else " (!)"


def coverage_table(processes, replicates, resamples, seed):
    lines = ["| corpus | unit | method | level | " + " | ".join(s.replace("overall_", "") for s in SCORES)
             + " | mean width F1 |", "|---|---|---|---:|" + "---:|" * len(SCORES) + "---:|"]
    for i, (process, by_document) in enumerate(processes):
        hits, width = coverage(process, replicates, resamples, seed + i, by_document)
        unit = "document" if by_document else "sentence"
        for (m, lv), h in hits.items():
            cells = []
            for j in range(len(SCORES)):
                p, se = _rate(h[j], replicates)
                cells.append(f"{p:.3f} ± {se:.3f}{_mark(p, se, GOALS[lv])}")
            lines.append(f"| {process.name} | {unit} | {m} | {lv:.2f} | " + " | ".join(cells)
                         + f" | {width[m, lv][2] / replicates:.4f} |")
    return lines


def paired_table(rows, replicates, permutations, resamples, seed):
    lines = ["| study | corpus | unit | rho | F1 a | F1 b | rejection rate at 0.05 | 95% difference interval coverage |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for i, (study, process, rho, by_document) in enumerate(rows):
        rejected, covered = paired_study(process, replicates, permutations, resamples, seed + 100 + i, rho, by_document)
        p, se = _rate(rejected, replicates)
        c, cse = _rate(covered, replicates)
        f = [true_scores(q)[2] for q in process.found]
        unit = "document" if by_document else "sentence"
        lines.append(f"| {study} | {process.name} | {unit} | {rho:.1f} | {f[0]:.4f} | {f[1]:.4f} | "
                     f"{p:.3f} ± {se:.3f} | {c:.3f} ± {cse:.3f} |")
    return lines


def validity(replicates, resamples, permutations, seed):
    conll = Process(f"{CONLL_TEST:,} sentences", CONLL_TEST, False)
    docs = Process(f"{CONLL_TEST:,} sentences, documents share an error rate", CONLL_TEST, True)
    small = Process("300 sentences, documents share an error rate", 300, True)
    tiny = Process("150 sentences", 150, False)
    cov = coverage_table([(conll, False), (docs, True), (docs, False), (small, True), (tiny, False)],
                         replicates, resamples, seed)
    f_a = true_scores(FOUND)[2]
    two = (FOUND, found_for_f1(f_a + 0.01))
    null = [("type-I error", Process(conll.name, CONLL_TEST, False, (FOUND, FOUND)), rho, False) for rho in (0.0, 0.9)]
    null.append(("type-I error", Process(docs.name, CONLL_TEST, True, (FOUND, FOUND)), 0.9, True))
    power = [("power, +1 point F1", Process(conll.name, CONLL_TEST, False, two), rho, False) for rho in (0.0, 0.5, 0.9)]
    power.append(("power, +1 point F1", Process(docs.name, CONLL_TEST, True, two), 0.9, True))
    return cov, paired_table(null + power, replicates, permutations, resamples, seed)
