"""Time of the one-to-one matching and of the scorings that align spans, flat and nested.

Each case builds its spans directly as SpanArrays (no tags, no evaluate) and times, best of
``--runs``:

* ``flat``: the synthetic corpus of ``bench/speed.py`` (sentences of about 14 tokens, 4 types,
  predictions that miss, retype, shift and invent entities), ``--sentences`` sentences;
  ``match`` alone, then ``match`` plus the token, overlap, HAREM scorings and the error listing;
* ``flat random tags``: the same number of sentences of uniformly random tags (many chains);
* ``chain n``: one sentence of ``n`` adjacent gold entities of two tokens and ``n`` predicted
  ones shifted by one token, so every entity overlaps two of the other side;
* ``star n``: one prediction over ``n`` adjacent one-token gold entities (flat), then over ``n``
  gold entities nested in one another (the prediction one token wider than the widest);
* ``nested levels n``: ``n`` gold entities nested in one another, and ``n`` predicted ones
  shifted by one token: every pair overlaps (one ``n`` x ``n`` assignment);
* ``nested corpus``: ``--sentences`` sentences of random entities that nest and overlap on
  both sides (about 3 a side per sentence).

    python bench/matching.py [--sentences 100000] [--runs 3] [--chains 128000 500000]
        [--levels 10 100 1000] [--out bench/matching.md]

With ``--flat-only`` only the flat cases run (the nested cases need nested-aware matching).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from speed import TAGS, as_lists, synthetic_corpus  # noqa: E402

from ner_recall.core import matching as M  # noqa: E402
from ner_recall.core.decoding import decode, encode  # noqa: E402
from ner_recall.core.vocabulary import SpanArrays  # noqa: E402
from ner_recall.families import scorings as S  # noqa: E402

TYPES = ("LOC", "MISC", "ORG", "PER")


def spans(start, end, type_, sentence, sentence_start):
    """SpanArrays from flat positions, sorted by (start, end, type)."""
    order = np.lexsort((type_, end, start))
    start, end, type_, sentence = (
        np.asarray(a, dtype=np.int64)[order] for a in (start, end, type_, sentence)
    )
    return SpanArrays(start, end, type_, sentence, start - sentence_start[sentence])


def flat_corpus(n_sentences, random_tags=False, seed=0):
    if random_tags:
        rng = np.random.default_rng(seed)
        lengths = 1 + rng.poisson(13, n_sentences)
        gold, pred = (rng.integers(0, len(TAGS), int(lengths.sum())) for _ in range(2))
    else:
        lengths, gold, pred = synthetic_corpus(n_sentences, seed)
    corpus = encode(as_lists(lengths, pred), as_lists(lengths, gold))
    return decode(corpus.references, corpus), decode(corpus.predictions, corpus)


def one_sentence(gold, pred):
    """SpanArrays of one sentence from lists of (type, start, end)."""

    def side(items):
        t, s, e = (np.array(c, dtype=np.int64) for c in zip(*items))
        return spans(s, e, t, np.zeros(len(s), dtype=np.int64), np.zeros(1, dtype=np.int64))

    return side(gold), side(pred)


def chain(n):
    return one_sentence(
        [(0, 2 * i, 2 * i + 2) for i in range(n)], [(0, 2 * i + 1, 2 * i + 3) for i in range(n)]
    )


def star(n, nested):
    gold = [(0, i, 2 * n - i) for i in range(n)] if nested else [(0, i, i + 1) for i in range(n)]
    return one_sentence(gold, [(0, 0, 2 * n + 1 if nested else n)])


def nested_levels(n):
    return one_sentence([(0, i, 2 * n - i) for i in range(n)], [(1, i + 1, 2 * n - i + 1) for i in range(n)])


def nested_corpus(n_sentences, seed=0):
    """Per sentence of 14 tokens, about 3 entities a side, nesting and overlapping freely;
    predictions keep, shift or retype the gold ones and add some."""
    rng = np.random.default_rng(seed)
    length = 15  # 14 tokens and the sentinel
    sentence_start = np.arange(n_sentences) * length
    k = rng.poisson(3, n_sentences)
    sentence = np.repeat(np.arange(n_sentences), k)
    start = rng.integers(0, 13, len(sentence))
    end = np.minimum(start + rng.geometric(0.4, len(sentence)), 14)
    type_ = rng.integers(0, 4, len(sentence))
    r = rng.random(len(sentence))
    p_start = np.where(r < 0.2, np.maximum(start - 1, 0), start)
    p_end = np.where((r > 0.8) & (end < 14), end + 1, end)
    p_type = np.where((r > 0.4) & (r < 0.5), (type_ + 1) % 4, type_)
    keep = r > 0.1
    extra = rng.integers(0, n_sentences, n_sentences // 3)
    e_start = rng.integers(0, 13, len(extra))
    gold = _unique(start, end, type_, sentence, sentence_start)
    pred = _unique(
        np.concatenate([p_start[keep], e_start]),
        np.concatenate([p_end[keep], e_start + 1 + (e_start < 12)]),
        np.concatenate([p_type[keep], rng.integers(0, 4, len(extra))]),
        np.concatenate([sentence[keep], extra]),
        sentence_start,
    )
    return gold, pred


def _unique(start, end, type_, sentence, sentence_start):
    flat_start = sentence_start[sentence] + start
    flat_end = sentence_start[sentence] + end
    key = np.unique(np.stack([flat_start, flat_end, type_, sentence]), axis=1)
    return spans(key[0], key[1], key[2], key[3], sentence_start)


def scorings(gold, pred):
    matching = M.match(gold, pred)
    S.token_counts(gold, pred, len(TYPES))
    hits = S.overlap_hits(gold, pred, matching)
    S.overlap_counts(gold, pred, hits, len(TYPES))
    alignment = S.harem_alignment(gold, pred, matching)
    S.harem_counts(gold, pred, alignment)
    return matching


def best_time(function, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        function()
        times.append(time.perf_counter() - t)
    return min(times)


def cases(args):
    n = args.sentences
    yield f"flat, {n:,} sentences", flat_corpus(n), True
    yield f"flat random tags, {n:,} sentences", flat_corpus(n, random_tags=True), True
    for size in args.chains:
        yield f"chain {size:,}", chain(size), False
    for size in args.stars:
        yield f"star {size:,} flat", star(size, nested=False), False
        if not args.flat_only:
            yield f"star {size:,} nested", star(size, nested=True), False
    if not args.flat_only:
        for size in args.levels:
            yield f"nested levels {size:,}", nested_levels(size), False
        yield f"nested corpus, {n:,} sentences", nested_corpus(n), True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chains", type=int, nargs="*", default=[128_000, 500_000])
    parser.add_argument("--stars", type=int, nargs="*", default=[1_000])
    parser.add_argument("--levels", type=int, nargs="*", default=[10, 100, 1_000])
    parser.add_argument("--flat-only", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = [
        "| case | gold | predicted | matched | match (s) | match + scorings (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, (gold, pred), with_scorings in cases(args):
        runs = args.runs if len(gold) < 1_000_000 else 1
        matched = len(M.match(gold, pred).gold)
        alone = best_time(lambda: M.match(gold, pred), runs)
        total = f"{best_time(lambda: scorings(gold, pred), runs):.4f}" if with_scorings else ""
        rows.append(f"| {name} | {len(gold):,} | {len(pred):,} | {matched:,} | {alone:.4f} | {total} |")
        print(rows[-1], flush=True)
    table = "\n".join(rows)
    if args.out:
        Path(args.out).write_text(f"<!-- python bench/matching.py {' '.join(sys.argv[1:])} -->\n{table}\n")


if __name__ == "__main__":
    main()
