"""Tags to spans: one table per scheme, then agreement with seqeval's own decoders."""

import os
import random
import re
import sys
import warnings

import pytest
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import BILOU, IOB1, IOB2, IOBES, IOE1, IOE2, Tokens

from conftest import require
from ner_recall.core import decoding as D
from ner_recall.core import decoding_report as R
from ner_recall.core import tags as T
from ner_recall.core import vocabulary as ner_core

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
    prefixes = T.ALLOWED_PREFIXES[scheme] + "O"
    sequences = [random_tags(rng, prefixes, rng.randint(0, 12)) for _ in range(800)]
    corpus = D.encode(sequences, sequences, scheme=scheme)
    ours = D.spans_by_sentence(D.decode(corpus.references, corpus, scheme), corpus.types, len(sequences))
    for tags, got in zip(sequences, ours):
        expected = [(e.tag, e.start, e.end) for e in Tokens(tags, SEQEVAL_SCHEMES[scheme]).entities]
        assert [tuple(s) for s in got] == expected, tags


@pytest.mark.parametrize("scheme", [None, *sorted(SEQEVAL_SCHEMES)])
def test_decoding_by_steps_finds_what_one_step_finds(scheme, monkeypatch):
    """Decoding runs by steps of positions (and searches sentences by steps of entities): steps
    of a few positions, cutting entities and sentences anywhere, give the spans of one step."""
    rng = random.Random(f"steps {scheme}")
    prefixes = (T.ALLOWED_PREFIXES[scheme] if scheme else "BIES") + "OO"
    sequences = [random_tags(rng, prefixes, rng.randint(0, 9)) for _ in range(400)]
    corpus = D.encode(sequences, sequences, scheme=scheme)
    whole = D.decode(corpus.references, corpus, scheme)
    assert len(corpus.references) > 1000 and len(whole) > 100
    for step, search, pair in ((1, 1, 1), (5, 3, 2), (64, 7, 16)):
        monkeypatch.setattr(D, "_DECODE_STEP", step)
        monkeypatch.setattr(D, "_LOOKUP_STEP", search)
        monkeypatch.setattr(D, "_PAIR_STEP", pair)
        stepped = D.decode(corpus.references, corpus, scheme)
        assert all(a.tolist() == b.tolist() for a, b in zip(stepped, whole)), (step, search, pair)


@pytest.mark.parametrize("scheme", [None, "IOB2"])
def test_two_threads_score_what_one_thread_scores(scheme, monkeypatch):
    """Large corpora decode their two sides, and match their entities in two halves, in two
    threads: every result (errors, intervals, buckets included) is the one-thread result."""
    from test_parity import random_corpus

    from ner_recall.core import matching as ner_matching
    from ner_recall.pipeline import compute as ner_pipeline
    from ner_recall.pipeline import options as ner_options

    references, predictions = random_corpus(f"threads {scheme}", 1500, prefixes="OOOBI")
    options = ner_options.check_options(
        "default",
        {
            "scheme": scheme,
            "mode": "strict" if scheme else None,
            "errors": True,
            "ci_resamples": 50,
            "seed": 3,
            "buckets": ["entity_length", "sentence_length"],
        },
    )
    corpus = ner_pipeline.tag_corpus(predictions, references, options)
    one = repr(ner_pipeline.score_tags(corpus, options)[0])
    calls, threaded = [], ner_core.side_by_side
    monkeypatch.setattr(ner_pipeline, "PARALLEL_POSITIONS", 0)
    monkeypatch.setattr(ner_matching, "PARALLEL_SPANS", 0)
    monkeypatch.setattr(
        ner_matching, "side_by_side", lambda c, parallel=True: calls.append(1) or threaded(c, parallel)
    )
    two = repr(ner_pipeline.score_tags(corpus, options)[0])
    assert calls and two == one  # the matching was cut in halves, and nothing changed


def test_spans_never_cross_sentences():
    sequences = [["B-PER", "I-PER"], ["I-PER", "O"], ["I-PER"]]
    corpus = D.encode(sequences, sequences)
    got = D.spans_by_sentence(D.decode(corpus.references, corpus), corpus.types, 3)
    assert [[tuple(s) for s in sent] for sent in got] == [[("PER", 0, 2)], [("PER", 0, 1)], [("PER", 0, 1)]]


# ---------------------------------------------------------------------------- untyped chunk tags

UNTYPED = [
    # (scheme, tags, expected spans): one type, '_', as seqeval names it
    (None, ["B", "I", "O", "B"], [("_", 0, 2), ("_", 3, 4)]),
    (None, ["I", "I", "O", "I"], [("_", 0, 2), ("_", 3, 4)]),  # repaired like I-X
    (None, ["B", "E", "S", "I"], [("_", 0, 2), ("_", 2, 3), ("_", 3, 4)]),
    ("IOB2", ["B", "I", "B", "O", "I"], [("_", 0, 2), ("_", 2, 3)]),
    ("IOB1", ["I", "I", "B", "I"], [("_", 0, 2), ("_", 2, 4)]),
    ("IOE2", ["I", "E", "E", "I"], [("_", 0, 2), ("_", 2, 3)]),
    ("IOBES", ["B", "E", "S", "B", "I"], [("_", 0, 2), ("_", 2, 3)]),
    ("BILOU", ["U", "B", "I", "L"], [("_", 0, 1), ("_", 1, 4)]),
    ("IO", ["I", "I", "O", "I"], [("_", 0, 2), ("_", 3, 4)]),
    (None, ["PER-B", "PER-I"], [("PER", 0, 2)]),
]


@pytest.mark.parametrize("scheme, tags, expected", UNTYPED)
def test_untyped_table(scheme, tags, expected):
    suffix = any("-" in t for t in tags) and tags[0].endswith(("-B", "-I"))
    assert spans(tags, scheme=scheme, suffix=suffix) == expected


@pytest.mark.parametrize("seed", range(2))
def test_untyped_lenient_agrees_with_seqeval(seed):
    rng = random.Random(seed)
    sequences = [[rng.choice("OOBIES") for _ in range(rng.randint(0, 12))] for _ in range(500)]
    corpus = D.encode(sequences, sequences)
    ours = D.spans_by_sentence(D.decode(corpus.references, corpus), corpus.types, len(sequences))
    for tags, got in zip(sequences, ours):
        assert [tuple(s) for s in got] == [(t, a, b + 1) for t, a, b in get_entities(tags)], tags


@pytest.mark.parametrize("scheme", sorted(SEQEVAL_SCHEMES))
def test_untyped_strict_agrees_with_seqeval(scheme):
    rng = random.Random(scheme + "untyped")
    prefixes = T.ALLOWED_PREFIXES[scheme] + "O"
    sequences = [[rng.choice(prefixes) for _ in range(rng.randint(0, 12))] for _ in range(500)]
    corpus = D.encode(sequences, sequences, scheme=scheme)
    ours = D.spans_by_sentence(D.decode(corpus.references, corpus, scheme), corpus.types, len(sequences))
    for tags, got in zip(sequences, ours):
        assert [tuple(s) for s in got] == [
            (e.tag, e.start, e.end) for e in Tokens(tags, SEQEVAL_SCHEMES[scheme]).entities
        ]


@pytest.mark.parametrize(
    "predictions, references, message",
    [
        (
            [["B", "I"]],
            [["B-PER", "O"]],
            r"tag 'B' at predictions\[0\]\[0\] has no entity type but tag 'B-PER' at references\[0\]\[0\] has one",
        ),
        (
            [["B-PER", "I"]],
            [["O", "O"]],
            r"tag 'I' at predictions\[0\]\[1\] has no entity type but tag 'B-PER' at predictions\[0\]\[0\]",
        ),
        ([["B-_", "B"]], [["O", "O"]], r"tag 'B' at predictions\[0\]\[1\] has no entity type but tag 'B-_'"),
    ],
)
def test_typed_and_untyped_tags_do_not_mix(predictions, references, message):
    with pytest.raises(ValueError, match=message):
        D.encode(predictions, references)


# ---------------------------------------------------------------------------- IO

IO = [
    (["PER", "PER", "O", "LOC"], [("PER", 0, 2), ("LOC", 3, 4)]),
    (["I-PER", "I-PER", "I-LOC"], [("PER", 0, 2), ("LOC", 2, 3)]),
    (["PER", "I-PER"], [("PER", 0, 2)]),  # a bare type and its I- tag are one type
    (
        ["person-actor", "person-actor", "location-GPE"],
        [("person-actor", 0, 2), ("location-GPE", 2, 3)],
    ),  # Few-NERD
    (["O", "O"], []),
    (["X", "O", "MISC-X"], [("X", 0, 1), ("MISC-X", 2, 3)]),
    (["I", "I", "O"], [("_", 0, 2)]),
]


@pytest.mark.parametrize("tags, expected", IO)
def test_io_table(tags, expected):
    assert spans(tags, scheme="IO") == expected


@pytest.mark.parametrize(
    "tags, message",
    [
        (
            ["B-PER"],
            r"invalid tag 'B-PER' at tags\[0\] \(scheme IO expects O, I-\* as PREFIX-TYPE, or a bare type\)",
        ),
        (["PER", "B"], r"invalid tag 'B' at tags\[1\]"),  # one-letter chunk prefixes are not types
        (["i-PER"], r"tag 'i-PER' at tags\[0\] has the lower-case prefix 'i'"),
        (["PER", "I"], r"tag 'I' at tags\[1\] has no entity type but tag 'PER' at tags\[0\] has one"),
    ],
)
def test_io_errors(tags, message):
    with pytest.raises(ValueError, match=message):
        D.tags_to_spans(tags, scheme="IO")


@pytest.mark.parametrize("scheme", [None, "IOB2", "IOBES", "BILOU"])
def test_bare_types_need_io(scheme):
    with pytest.raises(ValueError, match=r"invalid tag 'PER' at tags\[1\].*need mode='strict', scheme='IO'"):
        D.tags_to_spans(["O", "PER"], scheme=scheme)


def random_entities(rng, length, types=("PER", "LOC", "ORG")):
    """Non-overlapping (type, start, end) in a sentence of ``length``; adjacent ones differ in type."""
    entities, position = [], 0
    while True:
        position += rng.choice([0, 0, 1, 2])
        size = rng.randint(1, 4)
        if position + size > length:
            return entities
        kind = rng.choice(
            [t for t in types if not (entities and entities[-1][2] == position and entities[-1][0] == t)]
        )
        entities.append((kind, position, position + size))
        position += size


@pytest.mark.parametrize("seed", range(3))
def test_io_projection_of_iob2_decodes_to_the_same_spans(seed):
    rng = random.Random(seed)
    iob2, io = [], []
    for _ in range(400):
        length = rng.randint(0, 15)
        tags = ["O"] * length
        for kind, start, end in random_entities(rng, length):
            tags[start:end] = [f"B-{kind}"] + [f"I-{kind}"] * (end - start - 1)
        iob2.append(tags)
        bare = rng.random() < 0.5  # as I-TYPE, or as bare types
        io.append(["O" if t == "O" else t[2:] if bare else "I-" + t[2:] for t in tags])
    strict = D.encode(iob2, iob2, scheme="IOB2")
    projected = D.encode(io, io, scheme="IO")
    expected = D.spans_by_sentence(D.decode(strict.references, strict, "IOB2"), strict.types, len(iob2))
    assert (
        D.spans_by_sentence(D.decode(projected.references, projected, "IO"), projected.types, len(io))
        == expected
    )


# ---------------------------------------------------------------------------- tag strings as they come

#: every odd tag string, what it becomes: spans, or the ValueError's reason (the place is tags[1])
TAG_STRINGS = [
    # (tag, scheme, suffix, entities of ["O", tag] or the error)
    ("", None, False, "is empty"),  # seqeval: IndexError
    (
        "B-PER ",
        None,
        False,
        "has whitespace or an invisible character at its start or end",
    ),  # seqeval: type 'PER '
    (" B-PER", None, False, "has whitespace or an invisible character at its start or end"),
    ("B-PER\r", None, False, "has whitespace or an invisible character at its start or end"),  # a CRLF file
    (
        "\ufeffB-PER",
        None,
        False,
        "has whitespace or an invisible character at its start or end",
    ),  # a byte-order mark
    ("B- PER", None, False, "has whitespace or an invisible character around its entity type"),
    ("PER -B", None, True, "has whitespace or an invisible character around its entity type"),
    ("B-PER\x00X", None, False, "contains the control character '\\x00'"),
    ("B-PER\tX", None, False, "contains the control character '\\t'"),
    ("B-WORK OF ART", None, False, [("WORK OF ART", 1, 2)]),  # inner spaces are part of the type
    ("B-組織", None, False, [("組織", 1, 2)]),
    (
        "B--PER",
        None,
        False,
        "has the entity type '-PER', which begins or ends with '-'",
    ),  # seqeval: '-PER' or 'PER'
    ("B-PER-", "IOB2", False, "has the entity type 'PER-', which begins or ends with '-'"),
    ("PER--B", None, True, "has the entity type 'PER-', which begins or ends with '-'"),
    ("B-MISC-X", None, False, [("MISC-X", 1, 2)]),
    ("B-O", None, False, "has the entity type 'O', the name of the outside tag"),  # seqeval: a type 'O'
    (
        "b-PER",
        None,
        False,
        "has the lower-case prefix 'b' (prefixes are upper case: 'B')",
    ),  # seqeval: garbage
    ("o", None, False, "has the lower-case prefix 'o'"),
    ("U-PER", None, False, r"invalid tag 'U-PER'.*for BILOU tags use mode='strict', scheme='BILOU'"),
    ("-", None, False, r"invalid tag '-' at tags\[1\] \(scheme None \(lenient\)"),  # seqeval: a type '_'
    ("B-", None, False, "has an empty entity type"),  # seqeval: the type '_'
    ("B", None, False, [("_", 1, 2)]),  # an untyped chunk tag
    ("O-PER", None, False, r"invalid tag 'O-PER'"),  # seqeval: O, with a warning
    ("BPER", None, False, r"invalid tag 'BPER'.*scheme='IO'"),  # seqeval: B-PER, with a warning
    ("PER", None, False, r"invalid tag 'PER'.*need mode='strict', scheme='IO'"),
    ("PER", "IO", False, [("PER", 1, 2)]),
    ("-", "IO", False, "has the entity type '-', which begins or ends with '-'"),
    ("B-PER", None, True, r"invalid tag 'B-PER'.*as PREFIX-TYPE it needs suffix=False"),
    ("PER-B", None, False, r"invalid tag 'PER-B'.*as TYPE-PREFIX it needs suffix=True"),
    (
        "E-PER",
        "IOB2",
        False,
        r"invalid tag 'E-PER' at tags\[1\] \(scheme IOB2 expects O, B-\*, I-\* as PREFIX-TYPE\)",
    ),
    (b"B-PER", None, False, "is not a string"),
    (None, None, False, "is not a string"),
]


@pytest.mark.parametrize(
    "tag, scheme, suffix, expected", TAG_STRINGS, ids=[repr(r[0]) + str(r[1]) for r in TAG_STRINGS]
)
def test_tag_strings(tag, scheme, suffix, expected):
    if isinstance(expected, list):
        assert spans(["O", tag], scheme=scheme, suffix=suffix) == expected
        return
    pattern = expected if expected.startswith("invalid") else rf"at tags\[1\] {re.escape(expected)}"
    with pytest.raises(ValueError, match=pattern):
        D.tags_to_spans(["O", tag], scheme=scheme, suffix=suffix)
    if isinstance(tag, str):  # the corpus encoder says the same, naming the side
        with pytest.raises(ValueError, match=pattern.replace(r"tags\[1\]", r"references\[0\]\[1\]")):
            D.encode([["O", "O"]], [["O", tag]], scheme=scheme, suffix=suffix)


@pytest.mark.parametrize("tags", ["B-PER", ("B-PER",), 5])
def test_tags_to_spans_takes_a_list_of_tags(tags):
    if isinstance(tags, tuple):
        assert D.tags_to_spans(tags) == [ner_core.Span("PER", 0, 1)]
    else:
        with pytest.raises(ValueError, match="tags must be a list of tags"):
            D.tags_to_spans(tags)


@pytest.mark.parametrize("suffix", ["no", "yes", 1, None])
def test_suffix_must_be_a_bool(suffix):
    with pytest.raises(ValueError, match=f"suffix must be True or False; got {suffix!r}"):
        D.tags_to_spans(["B-PER"], suffix=suffix)


def test_span_arrays_replace_and_length():
    corpus = D.encode([["B-PER", "O", "B-LOC"]], [["O", "O", "O"]])
    spans = D.decode(corpus.predictions, corpus)
    assert len(spans) == 2
    relabelled = spans._replace(type=spans.type * 0)
    assert (
        isinstance(relabelled, ner_core.SpanArrays)
        and len(relabelled) == 2
        and relabelled.type.tolist() == [0, 0]
    )
    assert relabelled.start is spans.start


# ---------------------------------------------------------------------------- what decoding did

REPORTS = [
    # (scheme, tags, repaired or dropped places (start, end, reason))
    (None, ["B-PER", "I-PER", "O"], []),
    (None, ["O", "I-PER", "I-PER"], [(1, 3, "no_begin")]),
    (None, ["I-PER"], [(0, 1, "no_begin")]),
    (None, ["B-PER", "I-LOC", "I-LOC"], [(1, 3, "type_change")]),
    (None, ["B-PER", "E-PER", "I-PER"], [(2, 3, "after_end")]),
    (None, ["S-PER", "E-PER"], [(1, 2, "after_end")]),
    (None, ["B-PER", "E-PER", "S-LOC"], []),
    (None, ["B", "I", "O", "I"], [(3, 4, "no_begin")]),
    ("IOB2", ["B-PER", "I-PER", "O"], []),
    ("IOB2", ["O", "I-PER", "I-PER"], [(1, 3, "no_begin")]),
    ("IOB2", ["B-PER", "I-LOC", "I-LOC", "I-ORG"], [(1, 3, "type_change"), (3, 4, "type_change")]),
    ("IOBES", ["B-PER", "I-PER", "O", "S-LOC"], [(0, 2, "not_closed")]),
    ("IOBES", ["S-PER", "E-PER"], [(1, 2, "after_end")]),
    ("BILOU", ["B-PER", "I-PER", "U-LOC"], [(0, 2, "not_closed")]),
    ("IOE2", ["I-PER", "I-PER", "O"], [(0, 2, "not_closed")]),
    ("IOB1", ["B-PER", "I-PER"], [(0, 1, "no_begin")]),  # seqeval's IOB1 starts no entity on B after O
    ("IO", ["PER", "I-PER", "LOC"], []),
]


@pytest.mark.parametrize("scheme, tags, expected", REPORTS)
def test_report_table(scheme, tags, expected):
    corpus = D.encode([["O"], tags], [["O"], tags], scheme=scheme)
    report = R.decoding_report(corpus.references, corpus, D.decode(corpus.references, corpus, scheme), scheme)
    assert [(p["sentence"], p["start"], p["end"], p["reason"]) for p in report["first"]] == [
        (1, *e) for e in expected
    ]
    assert report["repaired" if scheme is None else "dropped"] == len(expected)
    assert report["dropped" if scheme is None else "repaired"] == 0
    assert report["reasons"] == {r: sum(e[2] == r for e in expected) for r in R.REASONS}


def plain_report(tags, found, scheme):
    """The report of one sentence by a plain loop: lenient entities begun on I-/E-, or strict runs of
    one type of non-O tokens outside every entity."""
    if scheme is None:
        return [(s.start, s.end) for s in found if tags[s.start][0] in "IE"]
    inside = {j for s in found for j in range(s.start, s.end)}
    runs = []
    for j, tag in enumerate(tags):
        if tag != "O" and j not in inside:
            if runs and runs[-1][1] == j and tags[j - 1][2:] == tag[2:]:
                runs[-1] = (runs[-1][0], j + 1)
            else:
                runs.append((j, j + 1))
    return runs


@pytest.mark.parametrize("scheme", [None, *sorted(D.SCHEMES)])
def test_report_counts_what_a_plain_loop_finds(scheme):
    rng = random.Random(f"report{scheme}")
    prefixes = T.ALLOWED_PREFIXES[scheme] + "OO"
    sequences = [random_tags(rng, prefixes, rng.randint(0, 10)) for _ in range(600)]
    corpus = D.encode(sequences, sequences, scheme=scheme)
    found = D.decode(corpus.references, corpus, scheme)
    report = R.decoding_report(corpus.references, corpus, found, scheme, places=10**6)
    expected = [
        (i, a, b)
        for i, (tags, sentence) in enumerate(
            zip(sequences, D.spans_by_sentence(found, corpus.types, len(sequences)))
        )
        for a, b in plain_report(tags, sentence, scheme)
    ]
    assert [(p["sentence"], p["start"], p["end"]) for p in report["first"]] == expected
    assert report["repaired"] + report["dropped"] == sum(report["reasons"].values()) == len(expected)
    assert report["entities"] == len(found)
    assert len(R.decoding_report(corpus.references, corpus, found, scheme)["first"]) == min(5, len(expected))
    assert "first" not in R.decoding_reports(corpus, found, found, scheme)["predictions"]


# ---------------------------------------------------------------------------- docs/decoding.md

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "decoding.md")


def doc_block(name):
    text = open(DOCS, encoding="utf-8").read()
    found = re.findall(rf"<!-- {name} -->\n(.*?)\n<!-- /{name} -->", text, re.S)
    assert len(found) == 1, name
    return [line for line in found[0].splitlines() if line.startswith("|")]


def test_the_cases_table_comes_from_its_script(capsys):
    sys.path.insert(0, os.path.join(os.path.dirname(DOCS), "..", "examples"))
    try:
        import decoding_cases
    finally:
        sys.path.pop(0)
    decoding_cases.main()
    assert capsys.readouterr().out.strip().splitlines() == doc_block("decoding-cases")


def test_the_speed_table_is_the_bench_file():
    bench = os.path.join(os.path.dirname(DOCS), "..", "bench", "decoding.md")
    lines = open(bench, encoding="utf-8").read().splitlines()
    assert [line for line in lines if line.startswith("|")] == doc_block("decoding-speed")


# ---------------------------------------------------------------------------- fuzz

require("hypothesis", "the fuzz tests")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

#: characters that make tags odd: prefixes in both cases, hyphens, whitespace, control and format characters
ODD = "OBIESLUobiesluPER-_ \t\r\n\x00\x1f\u00a0\u200b\ufeff組"
tag_strings = st.one_of(
    st.text(alphabet=ODD, max_size=6), st.sampled_from(["O", "B-PER", "I-PER", "PER", "B", "I"])
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(tag_strings, max_size=6), st.sampled_from([None, *D.SCHEMES]), st.booleans())
def test_any_tag_string_decodes_or_names_its_place(tags, scheme, suffix):
    try:
        found = D.tags_to_spans(tags, scheme=scheme, suffix=suffix)
    except ValueError as error:
        place = re.search(r"at tags\[(\d+)\]", str(error))
        assert place and int(place.group(1)) < len(tags), str(error)
        return
    for span in found:  # a type as given, never with whitespace or control characters at its ends
        assert span.label and span.label == span.label.strip() and span.label not in ("O", "")
        assert 0 <= span.start < span.end <= len(tags)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(st.lists(tag_strings, max_size=4), min_size=1, max_size=3), st.sampled_from([None, "IOB2", "IO"])
)
def test_any_corpus_encodes_or_names_its_place(sequences, scheme):
    try:
        D.encode(sequences, [["O"] * len(s) for s in sequences], scheme=scheme)
    except ValueError as error:
        place = re.search(r"(predictions|references)\[(\d+)\]\[(\d+)\]", str(error))
        assert place, str(error)
        i, j = int(place.group(2)), int(place.group(3))
        assert place.group(1) == "predictions" and j < len(sequences[i])


def test_the_metric_decode_names_its_own_argument(metric):
    with pytest.raises(ValueError, match=r"invalid tag 'X' at tags\[1\]"):
        metric.decode(["B-PER", "X"])
    with pytest.raises(ValueError, match="suffix must be True or False; got 'no'"):
        metric.decode(["PER-B"], suffix="no")
    assert metric.decode(["PER", "I-PER"], scheme="IO") == [ner_core.Span("PER", 0, 2)]
