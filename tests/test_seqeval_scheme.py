"""seqeval's own ``tests/test_scheme.py`` (and the ``get_entities`` cases of its
``tests/test_metrics.py``), replayed through our decoder.

Each of seqeval's tables is restated here in one form: ``tags | entities`` rows (``-`` for
no tag, entities as ``TYPE start end`` with ``end`` exclusive), and ``previous tag | start
inside end`` rows for the transition tables (``x`` true, ``.`` false). Every row is checked
against our decoder and against the installed seqeval, so a row that stops stating seqeval's
behaviour fails too. Where we part from seqeval on purpose (a ValueError instead of a
KeyError or IndexError, no guessed scheme) the test says so; tests/test_decisions.py pins
those differences against seqeval.
"""

import warnings

import pytest
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import BILOU, IOB1, IOB2, IOBES, IOE1, IOE2, Entities, Prefix, Token, Tokens, auto_detect

from ner_recall.core import decoding as D
from ner_recall.core import tags as T
from ner_recall.core import vocabulary as ner_core

SEQEVAL = {"IOB1": IOB1, "IOB2": IOB2, "IOE1": IOE1, "IOE2": IOE2, "IOBES": IOBES, "BILOU": BILOU}

#: seqeval's tests/test_scheme.py, test_<scheme>_tokens and test_<scheme>_tokens_without_tag
TOKENS = {
    ("IOB1", "typed"): """
-            |
B-PER        |
I-PER        | PER 0 1
O            |
O I-PER      | PER 1 2
O B-PER      |
I-PER O      | PER 0 1
I-PER I-PER  | PER 0 2
I-PER I-ORG  | PER 0 1; ORG 1 2
I-PER B-PER  | PER 0 1; PER 1 2
I-PER B-ORG  | PER 0 1
B-PER O      |
B-PER I-PER  | PER 1 2
B-PER I-ORG  | ORG 1 2
B-PER B-PER  | PER 1 2
B-PER B-ORG  |
""",
    ("IOB1", "untyped"): """
-            |
B            |
I            | _ 0 1
O            |
O O          |
O I          | _ 1 2
O B          |
I O          | _ 0 1
I I          | _ 0 2
I B          | _ 0 1; _ 1 2
B O          |
B I          | _ 1 2
B B          | _ 1 2
""",
    ("IOB2", "typed"): """
-            |
B-PER        | PER 0 1
I-PER        |
O            |
O I-PER      |
O B-PER      | PER 1 2
I-PER O      |
I-PER I-PER  |
I-PER I-ORG  |
I-PER B-PER  | PER 1 2
I-PER B-ORG  | ORG 1 2
B-PER O      | PER 0 1
B-PER I-PER  | PER 0 2
B-PER I-ORG  | PER 0 1
B-PER B-PER  | PER 0 1; PER 1 2
B-PER B-ORG  | PER 0 1; ORG 1 2
""",
    ("IOB2", "untyped"): """
-            |
B            | _ 0 1
I            |
O            |
O O          |
O I          |
O B          | _ 1 2
I O          |
I I          |
I B          | _ 1 2
B O          | _ 0 1
B I          | _ 0 2
B B          | _ 0 1; _ 1 2
""",
    ("IOE1", "typed"): """
-            |
E-PER        |
I-PER        | PER 0 1
O            |
O I-PER      | PER 1 2
O E-PER      |
I-PER O      | PER 0 1
I-PER I-PER  | PER 0 2
I-PER I-ORG  | PER 0 1; ORG 1 2
I-PER E-ORG  | PER 0 1
E-PER O      |
E-PER I-PER  | PER 1 2
E-PER I-ORG  | ORG 1 2
E-PER E-PER  |
E-PER E-ORG  |
""",
    ("IOE1", "untyped"): """
-            |
E            |
I            | _ 0 1
O            |
O O          |
O I          | _ 1 2
O E          |
I O          | _ 0 1
I I          | _ 0 2
E O          |
E I          | _ 1 2
E E          |
""",
    ("IOE2", "typed"): """
-            |
E-PER        | PER 0 1
I-PER        |
O            |
O I-PER      |
O E-PER      | PER 1 2
I-PER O      |
I-PER I-PER  |
I-PER I-ORG  |
I-PER E-PER  | PER 0 2
I-PER E-ORG  | ORG 1 2
E-PER O      | PER 0 1
E-PER I-PER  | PER 0 1
E-PER I-ORG  | PER 0 1
E-PER E-PER  | PER 0 1; PER 1 2
E-PER E-ORG  | PER 0 1; ORG 1 2
""",
    ("IOE2", "untyped"): """
-            |
E            | _ 0 1
I            |
O            |
O O          |
O I          |
O E          | _ 1 2
I O          |
I I          |
I E          | _ 0 2
E O          | _ 0 1
E I          | _ 0 1
E E          | _ 0 1; _ 1 2
""",
    ("IOBES", "typed"): """
O            |
I-PER        |
B-PER        |
E-PER        |
S-PER        | PER 0 1
O O          |
O I-PER      |
O B-PER      |
O E-PER      |
O S-PER      | PER 1 2
I-PER O      |
I-PER I-PER  |
I-PER I-ORG  |
I-PER B-PER  |
I-PER E-PER  |
I-PER E-ORG  |
I-PER S-PER  | PER 1 2
B-PER O      |
B-PER I-PER  |
B-PER I-ORG  |
B-PER B-PER  |
B-PER E-PER  | PER 0 2
B-PER E-ORG  |
B-PER S-PER  | PER 1 2
E-PER O      |
E-PER I-PER  |
E-PER B-PER  |
E-PER E-PER  |
E-PER S-PER  | PER 1 2
S-PER O      | PER 0 1
S-PER I-PER  | PER 0 1
S-PER B-PER  | PER 0 1
S-PER E-PER  | PER 0 1
S-PER S-PER  | PER 0 1; PER 1 2
""",
    ("IOBES", "untyped"): """
O            |
I            |
B            |
E            |
S            | _ 0 1
O O          |
O I          |
O B          |
O E          |
O S          | _ 1 2
I O          |
I I          |
I B          |
I E          |
I S          | _ 1 2
B O          |
B I          |
B B          |
B E          | _ 0 2
B S          | _ 1 2
E O          |
E I          |
E B          |
E E          |
E S          | _ 1 2
S O          | _ 0 1
S I          | _ 0 1
S B          | _ 0 1
S E          | _ 0 1
S S          | _ 0 1; _ 1 2
""",
    ("BILOU", "typed"): """
O            |
I-PER        |
B-PER        |
L-PER        |
U-PER        | PER 0 1
O O          |
O I-PER      |
O B-PER      |
O L-PER      |
O U-PER      | PER 1 2
I-PER O      |
I-PER I-PER  |
I-PER I-ORG  |
I-PER B-PER  |
I-PER L-PER  |
I-PER L-ORG  |
I-PER U-PER  | PER 1 2
B-PER O      |
B-PER I-PER  |
B-PER I-ORG  |
B-PER B-PER  |
B-PER L-PER  | PER 0 2
B-PER L-ORG  |
B-PER U-PER  | PER 1 2
L-PER O      |
L-PER I-PER  |
L-PER B-PER  |
L-PER L-PER  |
L-PER U-PER  | PER 1 2
U-PER O      | PER 0 1
U-PER I-PER  | PER 0 1
U-PER B-PER  | PER 0 1
U-PER L-PER  | PER 0 1
U-PER U-PER  | PER 0 1; PER 1 2
""",
    ("BILOU", "untyped"): """
O            |
I            |
B            |
L            |
U            | _ 0 1
O O          |
O I          |
O B          |
O L          |
O U          | _ 1 2
I O          |
I I          |
I B          |
I L          |
I U          | _ 1 2
B O          |
B I          |
B B          |
B L          | _ 0 2
B U          | _ 1 2
L O          |
L I          |
L B          |
L L          |
L U          | _ 1 2
U O          | _ 0 1
U I          | _ 0 1
U B          | _ 0 1
U L          | _ 0 1
U U          | _ 0 1; _ 1 2
""",
}
#: rows seqeval's IOE1 tables leave out ("IOE1 hasn't yet been able to handle some cases"):
#: what seqeval 1.2.2 does, and so do we
TOKENS[("IOE1", "left out")] = """
I-PER E-PER  |
I E          |
"""

#: seqeval's tests/test_scheme.py, test_<scheme>_start_inside_end
FLAGS = {
    "IOB1": """
O O          | . . .
O I-PER      | x . .
O B-PER      | . . .
I-PER O      | . . x
I-PER I-PER  | . x .
I-PER I-ORG  | x . x
I-PER B-PER  | x . x
I-PER B-ORG  | . . x
B-PER O      | . . x
B-PER I-PER  | x x .
B-PER I-ORG  | x . x
B-PER B-PER  | x . x
B-PER B-ORG  | . . .
""",
    "IOB2": """
O O          | . . .
O I-PER      | . . .
O B-PER      | x . .
I-PER O      | . . x
I-PER I-PER  | . x .
I-PER I-ORG  | . . x
I-PER B-PER  | x . x
I-PER B-ORG  | x . x
B-PER O      | . . x
B-PER I-PER  | . x .
B-PER I-ORG  | . . x
B-PER B-PER  | x . x
B-PER B-ORG  | x . x
""",
    "IOE1": """
O O          | . . .
O I-PER      | x . .
O E-PER      | . . .
I-PER O      | . . x
I-PER I-PER  | . x .
I-PER I-ORG  | x . x
I-PER E-PER  | . x .
I-PER E-ORG  | . . x
E-PER O      | . . .
E-PER I-PER  | x . x
E-PER I-ORG  | x . .
E-PER E-PER  | x . x
E-PER E-ORG  | . . .
""",
    "IOE2": """
O O          | . . .
O I-PER      | x . .
O E-PER      | x . .
I-PER O      | . . .
I-PER I-PER  | . x .
I-PER I-ORG  | x . .
I-PER E-PER  | . x .
I-PER E-ORG  | x . .
E-PER O      | . . x
E-PER I-PER  | x . x
E-PER I-ORG  | x . x
E-PER E-PER  | x . x
E-PER E-ORG  | x . x
""",
    "IOBES": """
O O          | . . .
O I-PER      | . . .
O B-PER      | x . .
O E-PER      | . . .
O S-PER      | x . .
I-PER O      | . . .
I-PER I-PER  | . x .
I-PER I-ORG  | . . .
I-PER B-PER  | x . .
I-PER E-PER  | . x .
I-PER E-ORG  | . . .
I-PER S-PER  | x . .
B-PER O      | . . .
B-PER I-PER  | . x .
B-PER I-ORG  | . . .
B-PER E-PER  | . x .
B-PER E-ORG  | . . .
B-PER S-PER  | x . .
E-PER O      | . . x
E-PER I-PER  | . . x
E-PER B-PER  | x . x
E-PER E-PER  | . . x
E-PER S-PER  | x . x
S-PER O      | . . x
S-PER I-PER  | . . x
S-PER B-PER  | x . x
S-PER E-PER  | . . x
S-PER S-PER  | x . x
""",
    "BILOU": """
O O          | . . .
O I-PER      | . . .
O B-PER      | x . .
O L-PER      | . . .
O U-PER      | x . .
I-PER O      | . . .
I-PER I-PER  | . x .
I-PER I-ORG  | . . .
I-PER B-PER  | x . .
I-PER L-PER  | . x .
I-PER L-ORG  | . . .
I-PER U-PER  | x . .
B-PER O      | . . .
B-PER I-PER  | . x .
B-PER I-ORG  | . . .
B-PER L-PER  | . x .
B-PER L-ORG  | . . .
B-PER U-PER  | x . .
L-PER O      | . . x
L-PER I-PER  | . . x
L-PER B-PER  | x . x
L-PER L-PER  | . . x
L-PER U-PER  | x . x
U-PER O      | . . x
U-PER I-PER  | . . x
U-PER B-PER  | x . x
U-PER L-PER  | . . x
U-PER U-PER  | x . x
""",
}


def rows(table):
    for line in table.strip().splitlines():
        left, right = (part.strip() for part in line.split("|"))
        yield left, right


def token_rows():
    for (scheme, kind), table in TOKENS.items():
        for left, right in rows(table):
            tags = [] if left == "-" else left.split()
            spans = (
                [(t, int(a), int(b)) for t, a, b in (e.split() for e in right.split(";"))] if right else []
            )
            yield pytest.param(scheme, tags, spans, id=f"{scheme}-{kind}-{left}")


def flag_rows():
    for scheme, table in FLAGS.items():
        for left, right in rows(table):
            yield pytest.param(
                scheme, *left.split(), [c == "x" for c in right.split()], id=f"{scheme}-{left}"
            )


@pytest.mark.parametrize("scheme, tags, expected", list(token_rows()))
def test_tokens_tables(scheme, tags, expected):
    assert [tuple(s) for s in D.tags_to_spans(tags, scheme=scheme)] == expected
    assert [e.to_tuple()[1:] for e in Tokens(tags, SEQEVAL[scheme]).entities] == expected


@pytest.mark.parametrize("scheme, previous, tag, expected", list(flag_rows()))
def test_start_inside_end_tables(scheme, previous, tag, expected):
    (prev_prefix, prev_type), (prefix, type_) = (T.parse_tag(t, False, scheme) for t in (previous, tag))
    same = int(prev_type == type_)
    assert [bool(table[prev_prefix, prefix, same]) for table in D._STRICT[scheme]] == expected
    theirs = SEQEVAL[scheme](tag), SEQEVAL[scheme](previous)
    assert [
        theirs[0].is_start(theirs[1]),
        theirs[0].is_inside(theirs[1]),
        theirs[0].is_end(theirs[1]),
    ] == expected


@pytest.mark.parametrize(
    "tag, suffix, prefix",
    [
        ("I-MISC", False, "I"),
        ("B-MISC", False, "B"),
        ("O", False, "O"),
        ("MISC-I", True, "I"),
        ("MISC-B", True, "B"),
        ("O", True, "O"),
    ],
)
def test_token_prefix(tag, suffix, prefix):
    assert T.PREFIXES[T.parse_tag(tag, suffix, None)[0]] == prefix
    assert Token(tag, suffix=suffix).prefix == Prefix[prefix]


@pytest.mark.parametrize(
    "tag, suffix, label",
    [
        ("I-MISC", False, "MISC"),
        ("MISC-I", True, "MISC"),
        ("I", False, "_"),
        ("I-ORG-COMPANY", False, "ORG-COMPANY"),
        ("ORG-COMPANY-I", True, "ORG-COMPANY"),
        ("I-組織", False, "組織"),
    ],
)
def test_token_type(tag, suffix, label):
    assert D.tags_to_spans([tag], scheme="IOB1", suffix=suffix) == [ner_core.Span(label, 0, 1)]
    assert Token(tag, suffix=suffix).tag == label


def test_outside_has_no_type():
    # seqeval gives O the type '_' (test_token_tag); here O is no entity and has no type
    assert Token("O").tag == "_"
    assert T.parse_tag("O", False, None) == (D._O, None)


VALID_PREFIX = [
    ("I", "IOB1"),
    ("O", "IOB1"),
    ("B", "IOB1"),
    ("I", "IOB2"),
    ("O", "IOB2"),
    ("B", "IOB2"),
    ("I", "IOE1"),
    ("O", "IOE1"),
    ("E", "IOE1"),
    ("I", "IOE2"),
    ("O", "IOE2"),
    ("E", "IOE2"),
    ("I", "IOBES"),
    ("O", "IOBES"),
    ("B", "IOBES"),
    ("E", "IOBES"),
    ("S", "IOBES"),
]
INVALID_PREFIX = [
    ("E", "IOB1"),
    ("S", "IOB1"),
    ("E", "IOB2"),
    ("S", "IOB2"),
    ("B", "IOE1"),
    ("S", "IOE1"),
    ("B", "IOE2"),
    ("S", "IOE2"),
]


@pytest.mark.parametrize("tag, scheme", VALID_PREFIX)
def test_valid_prefix(tag, scheme):
    assert SEQEVAL[scheme](tag).is_valid()
    D.encode([[tag]], [[tag]], scheme=scheme)


@pytest.mark.parametrize("tag, scheme", INVALID_PREFIX)
def test_invalid_prefix(tag, scheme):
    with pytest.raises(ValueError):
        SEQEVAL[scheme](tag).is_valid()
    with pytest.raises(
        ValueError, match=rf"invalid tag '{tag}' at predictions\[0\]\[0\] \(scheme {scheme} expects"
    ):
        D.encode([[tag]], [[tag]], scheme=scheme)


@pytest.mark.parametrize(
    "tag, seqeval_error, ours",
    [
        ("I-組織".encode(), KeyError, "is not a string"),  # TestToken: bytes
        ("", IndexError, "is empty"),  # TestToken: the empty string
    ],
)
def test_bad_tags_are_value_errors_naming_the_place(tag, seqeval_error, ours):
    with pytest.raises(seqeval_error):
        Token(tag)
    with pytest.raises(ValueError, match=rf"at tags\[1\] {ours}"):
        D.tags_to_spans(["O", tag])


def test_unknown_prefix():  # TestIOB2Token.test_invalid_prefix
    with pytest.raises(KeyError):
        IOB2("T")
    with pytest.raises(ValueError, match=r"invalid tag 'T' at tags\[0\] \(scheme IOB2"):
        D.tags_to_spans(["T"], scheme="IOB2")


def test_iobes_tags_in_iob2():  # TestTokens
    tags = ["B-PER", "E-PER", "S-PER"]
    with pytest.raises(ValueError):
        _ = Tokens(tags, IOB2).entities
    with pytest.raises(ValueError, match=r"invalid tag 'E-PER' at tags\[1\]"):
        D.tags_to_spans(tags, scheme="IOB2")


def test_entities_filter():  # test_entities_filter: entities of one type, from the decoded spans
    sequences = [["B-PER", "B-ORG"]]
    corpus = D.encode(sequences, sequences, scheme="IOB2")
    spans = D.spans_by_sentence(D.decode(corpus.references, corpus, "IOB2"), corpus.types, 1)
    for name in ("", "ORG", "PER"):
        ours = {
            (i, s.label, s.start, s.end)
            for i, sentence in enumerate(spans)
            for s in sentence
            if s.label == name
        }
        assert ours == {e.to_tuple() for e in Entities(sequences, IOB2).filter(name)}


AUTO_DETECT = [  # TestAutoDetect.test_valid_scheme: the sequences and the scheme seqeval guesses
    ("B I O", "IOB2"),
    ("B I", "IOB2"),
    ("B O", "IOB2"),
    ("B", "IOB2"),
    ("I O E", "IOE2"),
    ("I E", "IOE2"),
    ("E O", "IOE2"),
    ("E", "IOE2"),
    ("I O B E S", "IOBES"),
    ("I B E S", "IOBES"),
    ("I O B E", "IOBES"),
    ("O B E S", "IOBES"),
    ("I B E", "IOBES"),
    ("B E S", "IOBES"),
    ("O B E", "IOBES"),
    ("B E", "IOBES"),
    ("S", "IOBES"),
    ("I O B L U", "BILOU"),
    ("I B L U", "BILOU"),
    ("I O B L", "BILOU"),
    ("O B L U", "BILOU"),
    ("I B L", "BILOU"),
    ("B L U", "BILOU"),
    ("O B L", "BILOU"),
    ("B L", "BILOU"),
    ("U", "BILOU"),
]


@pytest.mark.parametrize("tags, scheme", AUTO_DETECT)
def test_auto_detect_is_not_done_but_the_named_scheme_decodes_alike(metric, tags, scheme):
    # seqeval guesses the scheme in strict mode; here the user names it (tests/test_decisions.py)
    sequences = [tags.split()]
    assert auto_detect(sequences) is SEQEVAL[scheme]
    with pytest.raises(ValueError, match="mode='strict' needs a scheme"):
        metric.compute(predictions=sequences, references=sequences, mode="strict")
    expected = [e.to_tuple()[1:] for e in Entities(sequences, SEQEVAL[scheme]).entities[0]]
    assert [tuple(s) for s in D.tags_to_spans(sequences[0], scheme=scheme)] == expected


@pytest.mark.parametrize("tags", ["I O", "H"])  # TestAutoDetect.test_invalid_scheme
def test_auto_detect_failures(metric, tags):
    with pytest.raises(ValueError):
        auto_detect([tags.split()])
    with pytest.raises(ValueError, match="mode='strict' needs a scheme"):
        metric.compute(predictions=[tags.split()], references=[tags.split()], mode="strict")


# ---------------------------------------------------------------------------- get_entities

GET_ENTITIES = [  # seqeval's tests/test_metrics.py; sentences as lists, entities (sentence, TYPE, start, end)
    (
        [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O", "B-PER", "I-PER"]],
        False,
        [(0, "MISC", 3, 6), (0, "PER", 7, 9)],
    ),
    (
        [["O", "O", "O", "MISC-B", "MISC-I", "MISC-I", "O", "PER-B", "PER-I"]],
        True,
        [(0, "MISC", 3, 6), (0, "PER", 7, 9)],
    ),
    ([["O", "O", "O", "B", "I", "I", "O"], ["B", "I", "O"]], False, [(0, "_", 3, 6), (1, "_", 0, 2)]),
]


@pytest.mark.parametrize("sequences, suffix, expected", GET_ENTITIES)
def test_get_entities(sequences, suffix, expected):
    corpus = D.encode(sequences, sequences, suffix=suffix)
    spans = D.spans_by_sentence(D.decode(corpus.references, corpus), corpus.types, len(sequences))
    assert [(i, s.label, s.start, s.end) for i, sentence in enumerate(spans) for s in sentence] == expected
    # seqeval joins the sentences with an O between them and ends its spans inclusively
    starts = [sum(len(s) + 1 for s in sequences[:i]) for i in range(len(sequences))]
    theirs = [(label, starts[i] + a, starts[i] + b - 1) for i, label, a, b in expected]
    assert get_entities(sequences if len(sequences) > 1 else sequences[0], suffix=suffix) == theirs


@pytest.mark.parametrize("suffix", [False, True])
def test_get_entities_with_non_ne_input(suffix):
    # seqeval warns and decodes bare types into garbage; here they need scheme="IO"
    tags = ["O", "O", "O", "MISC", "MISC", "MISC", "O", "PER", "PER"]
    with pytest.warns(UserWarning):
        get_entities(tags, suffix=suffix)
    with pytest.raises(ValueError, match=r"invalid tag 'MISC' at tags\[3\].*scheme='IO'"):
        D.tags_to_spans(tags, suffix=suffix)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.tags_to_spans(tags, scheme="IO", suffix=suffix) == [
            ner_core.Span("MISC", 3, 6),
            ner_core.Span("PER", 7, 9),
        ]
