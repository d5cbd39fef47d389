"""Decoding parity with seqscore 0.9.0: IO, BIO (IOB2), IOB (IOB1), BIOES (IOBES) and BILOU.

seqscore decodes only valid sequences; its validator says which are, and for BIO it repairs the
others in two ways. Ours against theirs, on seeded random sequences of every shape:

* a sequence is valid for seqscore exactly when strict decoding drops nothing
  (``decoding_report(...)["dropped"] == 0``), and then both decoders equal seqscore's;
* BIO and IOB: lenient decoding equals seqscore's ``"conlleval"`` repair then decoding;
* BIO: strict IOB2 decoding equals seqscore's ``"discard"`` repair then decoding;
* IO: ``scheme="IO"`` equals seqscore's IO decoder, on ``I-TYPE`` tags and on the same
  tags written as bare types (which seqscore does not read).
"""

import random

import pytest

from conftest import require
from ner_recall.core import decoding as D
from ner_recall.core import decoding_report as R

seqscore_encoding = require("seqscore.encoding", "decoding parity with seqscore")
from seqscore.validation import validate_labels  # noqa: E402

#: seqscore's name of each of our schemes, and the prefixes of its tags
SCHEMES = {
    "IO": ("IO", "OI"),
    "IOB2": ("BIO", "OBI"),
    "IOB1": ("IOB", "OBI"),
    "IOBES": ("BIOES", "OBIES"),
    "BILOU": ("BILOU", "OBILU"),
}


def random_sequences(seed, prefixes, n=1500, types="AB"):
    rng = random.Random(seed)
    return [
        [
            "O" if p == "O" else f"{p}-{rng.choice(types)}"
            for p in (rng.choice(prefixes) for _ in range(rng.randint(1, 9)))
        ]
        for _ in range(n)
    ]


def theirs(encoding, tags):
    return [(m.type, m.span.start, m.span.end) for m in encoding.decode_labels(tags)]


def ours(tags, scheme):
    """(spans, decoding report) of one sequence."""
    corpus = D.encode([tags], [tags], scheme=scheme)
    spans = D.decode(corpus.references, corpus, scheme)
    found = [tuple(s) for s in D.spans_by_sentence(spans, corpus.types, 1)[0]]
    return found, R.decoding_report(corpus.references, corpus, spans, scheme)


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_valid_exactly_when_strict_decoding_drops_nothing_and_then_the_same_entities(scheme):
    name, prefixes = SCHEMES[scheme]
    encoding = seqscore_encoding.get_encoding(name)
    valid = 0
    for tags in random_sequences(scheme, prefixes):
        found, report = ours(tags, scheme)
        is_valid = validate_labels(tags, encoding).is_valid()
        assert is_valid == (report["dropped"] == 0), tags
        if is_valid:
            valid += 1
            assert found == theirs(encoding, tags), tags
            if scheme in ("IOB2", "IOB1", "IOBES"):  # lenient decoding reads valid sequences alike
                assert ours(tags, None)[0] == found, tags
    assert valid > 100  # the random sequences hold valid ones to compare


@pytest.mark.parametrize("scheme", ["IOB2", "IOB1"])
def test_lenient_decoding_is_the_conlleval_repair(scheme):
    name, prefixes = SCHEMES[scheme]
    encoding = seqscore_encoding.get_encoding(name)
    repaired = 0
    for tags in random_sequences(scheme + "-conlleval", prefixes):
        if not validate_labels(tags, encoding).is_valid():
            repaired += 1
            tags_after = encoding.repair_labels(tags, "conlleval")
        else:
            tags_after = tags
        assert ours(tags, None)[0] == theirs(encoding, tags_after), tags
    assert repaired > 100


def test_strict_iob2_decoding_is_the_discard_repair():
    encoding = seqscore_encoding.get_encoding("BIO")
    for tags in random_sequences("discard", "OBI"):
        if not validate_labels(tags, encoding).is_valid():
            assert ours(tags, "IOB2")[0] == theirs(encoding, encoding.repair_labels(tags, "discard")), tags


@pytest.mark.parametrize("types", [("PER", "LOC"), ("PER", "LOC", "ORG", "MISC", "person-actor")])
def test_io_decoding_on_prefixed_and_bare_tags(types):
    encoding = seqscore_encoding.get_encoding("IO")
    for tags in random_sequences(len(types), "OOI", types=types):
        expected = theirs(encoding, tags)
        assert ours(tags, "IO")[0] == expected, tags
        bare = [t if t == "O" else t[2:] for t in tags]
        assert ours(bare, "IO")[0] == expected, bare
        assert ours(tags, None)[0] == expected, tags  # conlleval reads I-only tags the same way


@pytest.mark.parametrize(
    "name, scheme", [("BIO", "IOB2"), ("IOB", "IOB1"), ("BIOES", "IOBES"), ("BILOU", "BILOU"), ("IO", "IO")]
)
def test_seqscore_encodings_of_random_mentions_decode_back(name, scheme):
    """seqscore writes random mentions in its encoding; strict decoding gives them back."""
    from seqscore.model import Mention, Span

    encoding, rng = seqscore_encoding.get_encoding(name), random.Random(name)
    for _ in range(500):
        length, mentions, position = rng.randint(1, 12), [], 0
        while True:
            position += rng.randint(0, 2)
            size = rng.randint(1, 3)
            if position + size > length:
                break
            kind = rng.choice("AB")
            if name == "IO" and mentions and mentions[-1].span.end == position and mentions[-1].type == kind:
                kind = "A" if kind == "B" else "B"  # IO cannot tell two adjacent entities of one type apart
            mentions.append(Mention(Span(position, position + size), kind))
            position += size
        tags = list(encoding.encode_mentions(mentions, length))
        assert ours(tags, scheme)[0] == [(m.type, m.span.start, m.span.end) for m in mentions], tags
