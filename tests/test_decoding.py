"""Tags to spans: one table per scheme, then agreement with seqeval's own decoders."""

import random
import warnings

import pytest
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import BILOU, IOB1, IOB2, IOBES, IOE1, IOE2, Tokens

import ner_decoding as D

SEQEVAL_SCHEMES = {"IOB1": IOB1, "IOB2": IOB2, "IOE1": IOE1, "IOE2": IOE2, "IOBES": IOBES, "BILOU": BILOU}


def spans(tags, scheme=None, suffix=False):
    return [tuple(s) for s in D.tags_to_spans(tags, scheme=scheme, suffix=suffix)]


LENIENT = [
    # (tags, expected spans (label, start, end exclusive))
    ([], []),
    (["O", "O"], []),
    (["B-PER", "I-PER", "O", "B-LOC"], [("PER", 0, 2), ("LOC", 3, 4)]),
    (["I-PER", "I-PER"], [("PER", 0, 2)]),  # I after O starts a chunk
    (["B-PER", "B-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    (["B-PER", "I-LOC"], [("PER", 0, 1), ("LOC", 1, 2)]),  # a type change splits
    (["B-PER", "E-PER", "I-PER"], [("PER", 0, 2), ("PER", 2, 3)]),
    (["S-PER", "S-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    (["E-PER", "E-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    (["O", "B-MISC-X", "I-MISC-X"], [("MISC-X", 1, 3)]),  # hyphens inside a type
    (["B-PER", "I-PER"], [("PER", 0, 2)]),
]


@pytest.mark.parametrize("tags, expected", LENIENT)
def test_lenient_table(tags, expected):
    assert spans(tags) == expected


def test_suffix_tags():
    assert spans(["PER-B", "PER-I", "O", "LOC-S"], suffix=True) == [("PER", 0, 2), ("LOC", 3, 4)]
    assert spans(["PER-B", "PER-I"], scheme="IOB2", suffix=True) == [("PER", 0, 2)]


STRICT = [
    ("IOB2", ["B-PER", "I-PER", "O"], [("PER", 0, 2)]),
    ("IOB2", ["I-PER", "I-PER", "O"], []),  # no B: not an entity
    ("IOB2", ["B-PER", "I-LOC"], [("PER", 0, 1)]),  # the stray I-LOC is dropped
    ("IOB2", ["B-PER", "B-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    ("IOB1", ["I-PER", "I-PER", "B-PER"], [("PER", 0, 2), ("PER", 2, 3)]),
    ("IOB1", ["I-PER", "I-LOC"], [("PER", 0, 1), ("LOC", 1, 2)]),
    ("IOE1", ["I-PER", "E-PER", "I-PER"], [("PER", 0, 2), ("PER", 2, 3)]),
    ("IOE2", ["I-PER", "E-PER", "E-PER"], [("PER", 0, 2), ("PER", 2, 3)]),
    ("IOE2", ["I-PER", "I-PER", "O"], []),  # no E: not an entity
    ("IOBES", ["B-PER", "I-PER", "E-PER", "S-LOC"], [("PER", 0, 3), ("LOC", 3, 4)]),
    ("IOBES", ["B-PER", "I-PER", "O"], []),  # never closed
    ("IOBES", ["S-PER", "E-PER"], [("PER", 0, 1)]),
    ("BILOU", ["B-PER", "L-PER", "U-LOC"], [("PER", 0, 2), ("LOC", 2, 3)]),
    ("BILOU", ["B-PER", "I-PER", "O"], []),
    ("BILOU", ["U-PER", "L-PER"], [("PER", 0, 1)]),
]


@pytest.mark.parametrize("scheme, tags, expected", STRICT)
def test_strict_table(scheme, tags, expected):
    assert spans(tags, scheme=scheme) == expected
    seqeval = [(e.tag, e.start, e.end) for e in Tokens(tags, SEQEVAL_SCHEMES[scheme]).entities]
    assert seqeval == expected  # the table states seqeval's behaviour


def random_tags(rng, prefixes, n, types="ABC"):
    return ["O" if p == "O" else f"{p}-{rng.choice(types)}" for p in (rng.choice(prefixes) for _ in range(n))]


@pytest.mark.parametrize("seed", range(4))
def test_lenient_agrees_with_seqeval_on_random_sequences(seed):
    rng = random.Random(seed)
    sequences = [random_tags(rng, "OOBIES", rng.randint(0, 12)) for _ in range(500)]
    corpus = D.encode(sequences, sequences)
    ours = D.spans_by_sentence(D.decode(corpus.references, corpus), corpus.types, len(sequences))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for tags, got in zip(sequences, ours):
            assert [tuple(s) for s in got] == [(t, a, b + 1) for t, a, b in get_entities(tags)], tags


@pytest.mark.parametrize("scheme", sorted(SEQEVAL_SCHEMES))
def test_strict_agrees_with_seqeval_on_random_sequences(scheme):
    rng = random.Random(scheme)
    prefixes = D.ALLOWED_PREFIXES[scheme] + "O"
    sequences = [random_tags(rng, prefixes, rng.randint(0, 12)) for _ in range(800)]
    corpus = D.encode(sequences, sequences, scheme=scheme)
    ours = D.spans_by_sentence(D.decode(corpus.references, corpus, scheme), corpus.types, len(sequences))
    for tags, got in zip(sequences, ours):
        expected = [(e.tag, e.start, e.end) for e in Tokens(tags, SEQEVAL_SCHEMES[scheme]).entities]
        assert [tuple(s) for s in got] == expected, tags


def test_spans_never_cross_sentences():
    sequences = [["B-PER", "I-PER"], ["I-PER", "O"], ["I-PER"]]
    corpus = D.encode(sequences, sequences)
    got = D.spans_by_sentence(D.decode(corpus.references, corpus), corpus.types, 3)
    assert [[tuple(s) for s in sent] for sent in got] == [[("PER", 0, 2)], [("PER", 0, 1)], [("PER", 0, 1)]]
