"""What reading HAREM's markup and aligning a system's changed text cost (``ner_harem``).

Markup: seeded documents of Portuguese-like text, one line per sentence, an entity every few words
(first HAREM's tags with TIPO and MORF, now and then a vague label or an ALT group), as large as
asked. The reader is timed on ``--sizes`` kB of it; the target (issue 36): 1 MB in at most 2 s here,
and 4x the bytes in at most 5x the time. Then ``--entities`` entities (a name and a number: mostly distinct strings) are aligned onto the gold text
from a system text with every space doubled and a punctuation mark split off (the same text but for
white space) and from one where every "do" is written "de o" (a changed text). CPU seconds, best of
``--runs``, the same process. Writes bench/harem_markup.md.

    python bench/harem_markup.py --sizes 250 1000 4000 --entities 8000 32000 --runs 3

``--before FILE`` times another copy of ``ner_recall/readers/harem.py`` too (e.g. ``git show b76adce:ner_recall/readers/harem.py >
/tmp/ner_harem_before.py``), once, on the first two sizes and the first entity count.
"""

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from ner_recall.readers import harem as H  # noqa: E402

WORDS = "o a de do em no que para com uma os se mais por como foi casa rio dia ano".split()
NAMES = ["Lisboa", "Porto", "Rui Costa", "Universidade de Lisboa", "Braga", "DCC", "Rua da Prata"]
TAGS = [("LOCAL", "HUMANO"), ("PESSOA", "INDIVIDUAL"), ("ORGANIZACAO", "INSTITUICAO"), ("TEMPO", "DATA")]


def sentence(rng):
    out = []
    for _ in range(rng.randint(2, 4)):
        out += rng.sample(WORDS, rng.randint(2, 5))
        name, (cat, kind), roll = rng.choice(NAMES), rng.choice(TAGS), rng.random()
        if roll < 0.05:
            first = name.split()[0]
            out.append(f"<ALT><{cat}>{name}</{cat}>|<{cat}>{first}</{cat}>{name[len(first) :]}</ALT>")
        elif roll < 0.1:
            out.append(f"<PESSOA|{cat}>{name}</PESSOA|{cat}>")
        else:
            out.append(f'<{cat} TIPO="{kind}" MORF="M,S">{name}</{cat}>')
    return " ".join(out) + " ."


def markup(size_bytes, seed=0):
    """Documents of about ``size_bytes`` bytes of markup."""
    rng, docs, total, k = random.Random(seed), [], 0, 0
    while total < size_bytes:
        k += 1
        body = "\n".join(sentence(rng) for _ in range(20))
        doc = f"<DOC>\n<DOCID>B-{k}</DOCID>\n{body}\n</DOC>\n"
        docs.append(doc)
        total += len(doc.encode("utf-8"))
    return "".join(docs)


def best(fn, runs):
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def aligned_texts(n_entities, seed=0):
    """A gold text with ``n_entities`` entities, its entities, and two system texts with theirs."""
    rng, words, entities, pos = random.Random(seed), [], [], 0
    for _ in range(n_entities):
        for w in rng.sample(WORDS, 3):
            words.append(w)
            pos += len(w) + 1
        name = f"{rng.choice(NAMES)} {rng.randrange(n_entities)}"  # mostly distinct strings
        words.append(name)
        entities.append((pos, pos + len(name)))
        pos += len(name) + 1
    gold = " ".join(words)
    return gold, entities


def system_entities(gold, entities, change):
    """The system text ``change(gold)`` and the entities moved onto it (a character map)."""
    out, at, length = [], [], 0
    for k, c in enumerate(gold):
        piece = change(c, gold, k)
        at.append(length)
        out.append(piece)
        length += len(piece)
    text = "".join(out)
    ends = [a + len(p) for a, p in zip(at, out)]
    return text, [{"label": "L", "start": at[s], "end": ends[e - 1]} for s, e in entities]


def spaces(c, text, k):
    return "  " if c == " " else c


def contraction(c, text, k):
    if text.startswith("do ", k) and (k == 0 or text[k - 1] == " "):
        return "de o"
    if text.startswith("o ", k) and k > 0 and text[k - 1] == "d" and (k < 2 or text[k - 2] == " "):
        return " "
    return c


def before(args):
    """Rows for the copy of the module in ``args.before``, timed once."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ner_harem_before", args.before)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    rows = [
        "",
        "Before (`--before`, one run): the module as it was.",
        "",
        "| what | size | cpu s |",
        "|---|---:|---:|",
    ]
    for kb in args.sizes[:2]:
        source = markup(kb * 1000)
        rows.append(f"| read markup | {kb:,} kB | {best(lambda: old.read_harem_text(source), 1):.3f} |")
        print(rows[-1], flush=True)
    gold, spans = aligned_texts(args.entities[0])
    text, entities = system_entities(gold, spans, spaces)
    rows.append(
        f"| align, spaces doubled | {args.entities[0]:,} entities | {best(lambda: old.align_to_gold(gold, text, entities), 1):.3f} |"
    )
    print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 1000, 4000])
    parser.add_argument("--entities", type=int, nargs="+", default=[8000, 32000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="another copy of ner_recall/readers/harem.py to time as well")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "harem_markup.md"))
    args = parser.parse_args()
    lines = [
        "# Reading HAREM's markup and aligning a changed system text",
        "",
        f"`python bench/harem_markup.py --sizes {' '.join(map(str, args.sizes))} --entities "
        f"{' '.join(map(str, args.entities))} --runs {args.runs}` (CPU seconds, best of {args.runs}; two shared cores).",
        "Target: 1 MB of markup read in at most 2 s, and 4x the bytes in at most 5x the time.",
        "",
        "| markup | bytes | documents | entities | cpu s | x time per x bytes |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    previous = None
    for kb in args.sizes:
        source = markup(kb * 1000)
        harem = H.read_harem_text(source)
        n = sum(1 for doc in harem.items for _ in doc)
        t = best(lambda: H.read_harem_text(source), args.runs)
        size = len(source.encode("utf-8"))
        ratio = "" if previous is None else f"{t / previous[1]:.2f} / {size / previous[0]:.2f}"
        lines.append(f"| {kb:,} kB | {size:,} | {len(harem.texts):,} | {n:,} | {t:.3f} | {ratio} |")
        previous = (size, t)
        print(lines[-1], flush=True)
    lines += ["", "| system text | entities | cpu s | placed |", "|---|---:|---:|---:|"]
    for n in args.entities:
        gold, spans = aligned_texts(n)
        for name, change in (("spaces doubled", spaces), ('"do" written "de o"', contraction)):
            text, entities = system_entities(gold, spans, change)
            t = best(lambda: H.align_to_gold(gold, text, entities), args.runs)
            placed, _ = H.align_to_gold(gold, text, entities)
            lines.append(f"| {name} | {n:,} | {t:.3f} | {len(placed):,} |")
            print(lines[-1], flush=True)
    if args.before:
        lines += before(args)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
