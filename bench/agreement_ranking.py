"""Cost of agreement between annotators and of the ranking family, against one plain ``compute``.

On the seeded corpus of bench/speed.py (100,000 sentences, about 1.4M tokens, about 170,000 gold
entities), in one process, each step ``--rounds`` times interleaved, CPU seconds, the best run:

* ``compute``: ``metric.compute`` on the tags (the system of bench/speed.py against the gold);
* ``agreement``: ``metric.agreement`` of three annotators, each the gold with 5% of its entities
  changed (retyped, dropped, or one token longer), seeded apart: three pairs, kappa, alpha;
* ``compute spans`` / ``ranking spans``: the "spans" config on the same entities, without and with
  a ``"score"`` on every prediction and ``scores=["seqeval", "muc", "ranking"]``;
* ``ranking tags (lists)`` / ``ranking tags (arrays)``: the tag config with ``token_scores`` as
  Python lists, and as one numpy array per sentence (a model's output), against ``compute``.

    HF_HUB_OFFLINE=1 python bench/agreement_ranking.py [--size 100000] [--rounds 3]
        [--out bench/agreement_ranking.md]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from speed import TAGS, TYPES, as_lists, synthetic_corpus  # noqa: E402

#: step, its baseline, target ratio (None: reported only)
TARGETS = [
    ("agreement", "compute", 3.0),
    ("ranking spans", "compute spans", 1.5),
    ("ranking tags (arrays)", "compute", None),
    ("ranking tags (lists)", "compute", None),
]


def annotator(gold, rng, rate=0.05):
    """The gold codes with ``rate`` of the entities changed: retyped, dropped or one token longer."""
    codes = gold.copy()
    begins = np.flatnonzero(codes % 2 == 1)
    for b in begins[rng.random(len(begins)) < rate].tolist():
        end = b + 1
        while end < len(codes) and codes[end] == codes[b] + 1:
            end += 1
        r = rng.random()
        if r < 0.4:
            new_type = (codes[b] // 2 + rng.integers(1, len(TYPES))) % len(TYPES)
            codes[b], codes[b + 1 : end] = 1 + 2 * new_type, 2 + 2 * new_type
        elif r < 0.7:
            codes[b:end] = 0
        elif end < len(codes) and codes[end] == 0:
            codes[end] = codes[b] + 1
    return codes


def build(size, seed=0):
    lengths, gold, pred = synthetic_corpus(size, seed)
    rng = np.random.default_rng(seed + 1)
    annotators = [as_lists(lengths, annotator(gold, np.random.default_rng(seed + 10 + k))) for k in range(3)]
    references, predictions = as_lists(lengths, gold), as_lists(lengths, pred)
    flat = rng.random(int(lengths.sum()))
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    arrays = [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    lists = [a.tolist() for a in arrays]
    return references, predictions, annotators, arrays, lists


def spans_of(metric, tags):
    return [[{"label": s.label, "start": s.start, "end": s.end} for s in metric.decode(t)] for t in tags]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "agreement_ranking.md"))
    args = parser.parse_args()
    import evaluate

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    tags = evaluate.load(str(ROOT / "ner_recall_metric.py"), experiment_id=f"bench-{os.getpid()}")
    spans = evaluate.load(str(ROOT / "ner_recall_metric.py"), "spans", experiment_id=f"bench-{os.getpid()}")
    references, predictions, annotators, arrays, lists = build(args.size)
    gold_spans, pred_spans = spans_of(tags, references), spans_of(tags, predictions)
    rng = np.random.default_rng(5)
    scored = [[dict(e, score=float(rng.random())) for e in example] for example in pred_spans]
    ranking = ["seqeval", "muc", "ranking"]
    steps = {
        "compute": lambda: tags.compute(predictions=predictions, references=references),
        "agreement": lambda: tags.agreement(annotators),
        "compute spans": lambda: spans.compute(predictions=pred_spans, references=gold_spans),
        "ranking spans": lambda: spans.compute(predictions=scored, references=gold_spans, scores=ranking),
        "ranking tags (lists)": lambda: tags.compute(
            predictions=predictions, references=references, scores=ranking, token_scores=lists
        ),
        "ranking tags (arrays)": lambda: tags.compute(
            predictions=predictions, references=references, scores=ranking, token_scores=arrays
        ),
    }
    best = {name: float("inf") for name in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            print(f"{name} ...", file=sys.stderr, flush=True)
            start = time.process_time()
            step()
            best[name] = min(best[name], time.process_time() - start)
    alpha = tags.agreement(annotators)
    lines = [
        "# Agreement and ranking: cost",
        "",
        f"`python bench/agreement_ranking.py --size {args.size} --rounds {args.rounds}`: "
        f"{time.perf_counter() - started:.0f} s on {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}; "
        f"{args.size:,} sentences, CPU seconds, the best of {args.rounds} interleaved runs. Three annotators "
        f"agree at strict F1 {np.mean([p['strict'] for p in alpha['pairs'].values()]):.3f}, "
        f"alpha (strict) {alpha['alpha']['strict']['value']:.3f}, kappa {alpha['kappa']['value']:.3f}.",
        "",
        "| step | cpu s |",
        "|---|---:|",
        *(f"| {name} | {seconds:.3f} |" for name, seconds in best.items()),
        "",
        "<!-- cost-targets -->",
        "| step | against | ratio | target |",
        "|---|---|---:|---:|",
        *(
            f"| {step} | {base} | {best[step] / best[base]:.2f}x | {f'<= {target:.1f}x' if target else '-'} |"
            for step, base, target in TARGETS
        ),
        "<!-- /cost-targets -->",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    assert TAGS[0] == "O"
    main()
