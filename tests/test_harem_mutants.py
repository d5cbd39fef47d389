"""HAREM's markup (``ner_harem``), the small things a count does not see: every error message whole
with its file and line, the defaults (a file without ``<DOC>``, an ``EM`` without ``CATEG``, the name
``<text>``), Latin-1 files, the markup written character for character, the alignment's word rule
away from the start of the text, and the occurrence tables' cache and fast paths."""

import pytest

from ner_recall.readers import harem as H

# ---------------------------------------------------------------------------- reading: errors whole

READ_ERRORS = [
    # (markup, the whole message)
    ("<DOC>\n<ALT><LOCAL>Rua|Rua</LOCAL></ALT></DOC>", "f.txt line 2: an entity is open across an ALT's '|'"),
    (
        '<DOC>\n<PESSOA|LOCAL TIPO="A|B|C">Rui</PESSOA|LOCAL></DOC>',
        "f.txt line 2: 2 categories 'PESSOA|LOCAL' but 3 types 'A|B|C'",
    ),
    (
        '<DOC>\n<PESSOA MORF="M">Rui</PESSOA>\n</DOC>',
        "f.txt line 2: MORF='M' must be gender,number (e.g. 'M,S', '?,P')",
    ),
    (
        '<DOC>\n\n<PESSOA MORF="M,">Rui</PESSOA>\n</DOC>',
        "f.txt line 3: MORF='M,' must be gender,number (e.g. 'M,S', '?,P')",
    ),
    (
        "<DOC>x</DOC>\n  texto fora de qualquer documento, longo <DOC>y</DOC>",
        "f.txt line 2: text outside a <DOC>: 'texto fora de qualquer documen'",  # the first 30 characters
    ),
    ("<DOC>x</DOC>\n<DOCID>a</DOCID>", "f.txt line 2: <DOCID> outside a <DOC>"),
    ("<DOC>x</DOC>\n<PESSOA>a</PESSOA><DOC>y</DOC>", "f.txt line 2: <PESSOA> outside a <DOC>"),
    ("<DOC>x</DOC>\n\n</PESSOA><DOC>y</DOC>", "f.txt line 3: </PESSOA> outside a <DOC>"),
    (
        "<DOC>x</DOC>\n<GENERO>web</GENERO>",
        "f.txt line 2: <GENERO> outside a <DOC>",
    ),  # its text would be lost
    ("<DOC>x</DOC>\n</ORIGEM>", "f.txt line 2: </ORIGEM> outside a <DOC>"),
    ("<DOC>\n<Pessoa>a</Pessoa></DOC>", "f.txt line 2: unknown tag <Pessoa> (categories are upper case)"),
    (
        "<DOC>\n<PESSOA|local>a</PESSOA|local></DOC>",
        "f.txt line 2: unknown tag <PESSOA|local> (categories are upper case)",
    ),
    ("<DOC>\n\n<DOC>y</DOC>", "f.txt line 3: <DOC> inside a document (line 1)"),
    ("<DOC>\n<ALT>a\n<ALT>b</ALT>|a b</ALT></DOC>", "f.txt line 3: ALT inside an ALT (line 2)"),
    ("<DOC>\n<LOCAL>a\n<ALT>b|b</ALT></LOCAL></DOC>", "f.txt line 3: ALT inside an entity"),
    (
        '<DOC>\nO <PESSOA ZED="y" COR="x">Rui</PESSOA>\n</DOC>',
        "f.txt line 2: unknown attribute 'COR' of <PESSOA>",
    ),
    (
        "<DOC>\nO <PESSOA>Rui\n<LOCAL>X</LOCAL></PESSOA>\n</DOC>",
        "f.txt line 3: <LOCAL> inside <PESSOA> (line 2): entities do not nest",
    ),
    ("<DOC>\n\nO <PESSOA>Rui</LOCAL>\n</DOC>", "f.txt line 3: </LOCAL> closes <PESSOA> (line 3)"),
    ("<DOC>\n\nO Rui</LOCAL>\n</DOC>", "f.txt line 3: </LOCAL> closes no entity"),
    ("<DOC>\n<PESSOA></PESSOA></DOC>", "f.txt line 2: <PESSOA> marks no text"),
    # white space names no word: in either HAREM's form, across lines, in an ALT, any Unicode space
    ("<DOC>\nO <PESSOA> </PESSOA> Rui</DOC>", "f.txt line 2: <PESSOA> marks only white space"),
    ('<DOC>\n<EM ID="1" CATEG="LOCAL">\t\n\n</EM> Porto</DOC>', "f.txt line 2: <EM> marks only white space"),
    (
        "<DOC>\nx\n<ALT><LOCAL>\u00a0</LOCAL>|\u00a0</ALT></DOC>",
        "f.txt line 3: <LOCAL> marks only white space",
    ),
    ("Vivo em <LOCAL>\u2003\n</LOCAL>", "f.txt line 1: <LOCAL> marks only white space"),
    ("<DOC>\nO Rui\n", "f.txt line 1: <DOC> not closed"),
    ("<DOC>x</DOC>\n\ntail text", "f.txt line 3: text outside a <DOC>"),
    ("<DOC>\n</ALT></DOC>", "f.txt line 2: </ALT> without <ALT>"),
    ("<DOC>\n<ALT><LOCAL>a\n\n</ALT></DOC>", "f.txt line 4: <LOCAL> (line 2) not closed inside the ALT"),
    (
        "<DOC>\n<ALT><LOCAL>Porto</LOCAL></ALT>\n</DOC>",
        "f.txt line 2: an ALT needs two alternatives separated by '|'",
    ),
    (
        "<DOC>\n<ALT><LOCAL>Porto</LOCAL>|Lisboa</ALT>\n</DOC>",
        "f.txt line 2: the ALT's alternatives differ in their text ('Porto' and 'Lisboa'); they may differ in"
        " markup only",
    ),
    (
        "<DOC>\n<ALT>Porto|Porto|<LOCAL>Lisboa</LOCAL></ALT>\n</DOC>",
        "f.txt line 2: the ALT's alternatives differ in their text ('Porto' and 'Lisboa'); they may differ in"
        " markup only",
    ),
    ("<DOC>x</DOC>\n\n</DOC>", "f.txt line 3: </DOC> without <DOC>"),
    ("<DOC>\n<PESSOA>x\n</DOC>", "f.txt line 2: <PESSOA> not closed"),
    ("<DOC>\n<ALT>x\n</DOC>", "f.txt line 2: <ALT> not closed"),
    # a file without <DOC>: its end closes the one document
    ("Vivo\n<ALT><LOCAL>a\n|b", "f.txt line 3: an entity is open across an ALT's '|'"),
    ("Vivo em\n<LOCAL>Braga", "f.txt line 2: <LOCAL> not closed"),
    ("Vivo em\n<ALT>Braga", "f.txt line 2: <ALT> not closed"),
]


@pytest.mark.parametrize("source, message", READ_ERRORS)
def test_each_reading_error_is_named_whole(source, message):
    with pytest.raises(ValueError) as error:
        H.read_harem_text(source, "f.txt")
    assert str(error.value) == message


def test_the_default_name_is_text():
    with pytest.raises(ValueError) as error:
        H.read_harem_text("<DOC>\n")
    assert str(error.value) == "<text> line 1: <DOC> not closed"


# ---------------------------------------------------------------------------- reading: what is read


def test_a_file_without_doc_is_one_document_named_by_the_file():
    harem = H.read_harem_text("Vivo em <LOCAL>Braga</LOCAL>.", "notes.txt")
    assert harem == H.Harem(
        ["Vivo em Braga."], ["notes.txt"], [[{"label": "LOCAL", "start": 8, "end": 13}]], [1]
    )
    # no name to take: the document is doc1, by its position
    assert H.read_harem_text("x", "").document_ids == ["doc1"]


def test_the_tag_forms_give_their_labels():
    source = (
        "<DOC>"
        "<EM>a</EM> "  # identification only
        '<EM CATEG="LOCAL">b</EM> '
        '<EM TIPO="X">c</EM> '
        '<PESSOA CATEG="LOCAL">d</PESSOA>'  # the first HAREM's tag names the category
        "</DOC>"
    )
    harem = H.read_harem_text(source)
    assert [e["label"] for e in harem.items[0]] == ["EM", "LOCAL", "EM:X", "PESSOA"]


def test_an_id_is_the_text_of_its_docid_across_ignored_tags():
    assert H.read_harem_text("<DOC><DOCID> d<P>1</P> </DOCID>x</DOC>").document_ids == ["d1"]


def test_declarations_keep_the_line_numbers():
    source = (
        '<?xml version="1.0"?>\n<!DOCTYPE colHAREM\n  x>\n<DOC>Em <LOCAL>Braga</LOCAL>.</DOC>\n<DOC>\n<X>'
    )
    with pytest.raises(ValueError) as error:
        H.read_harem_text(source, "f.txt")
    assert str(error.value) == "f.txt line 5: <DOC> not closed"
    harem = H.read_harem_text(source[: source.index("\n<DOC>\n<X>")], "f.txt")
    assert (harem.texts, harem.lines) == (["Em Braga."], [4])


def test_metadata_inside_a_document_is_not_its_text():
    harem = H.read_harem_text("<DOC><GENERO>web</GENERO><ORIGEM>pt</ORIGEM>Em <LOCAL>Braga</LOCAL></DOC>")
    assert harem.texts == ["Em Braga"] and harem.items == [[{"label": "LOCAL", "start": 3, "end": 8}]]


def test_an_alt_after_an_alt_starts_at_its_own_offset():
    harem = H.read_harem_text("<DOC><ALT><L>ab</L>|ab</ALT> <ALT><L>c</L>d|c<L>d</L></ALT> <M>e</M></DOC>")
    assert harem.texts == ["ab cd e"]
    assert harem.items[0] == [
        {"alternatives": [[{"label": "L", "start": 0, "end": 2}], []]},
        {"alternatives": [[{"label": "L", "start": 3, "end": 4}], [{"label": "L", "start": 4, "end": 5}]]},
        {"label": "M", "start": 6, "end": 7},
    ]


def test_files_in_utf8_or_latin1(tmp_path):
    markup = "<DOC><DOCID>d</DOCID>Em <LOCAL>Évora</LOCAL>.</DOC>"
    for encoding in ("utf-8", "latin-1"):
        path = tmp_path / f"{encoding}.txt"
        path.write_bytes(markup.encode(encoding))
        assert H.read_harem(path).texts == ["Em Évora."], encoding
        assert H.is_harem(path), encoding
    plain = tmp_path / "plain.txt"
    plain.write_text("Em <LOCAL>Braga</LOCAL>.\n<LOCAL>", encoding="utf-8")
    with pytest.raises(ValueError) as error:
        H.read_harem(plain)
    assert str(error.value) == "plain.txt line 2: <LOCAL> not closed"  # named by the file's name
    plain.write_text("Em <LOCAL>Braga</LOCAL>.", encoding="utf-8")
    assert H.read_harem(plain).document_ids == ["plain.txt"]


def test_is_harem_reads_the_first_64_kib_only(tmp_path):
    path = tmp_path / "f.txt"
    head = "<EM>" + "x" * (65532 - 4)
    path.write_text(head + "<DOC>", encoding="ascii")  # '>' is byte 65537: not read
    assert not H.is_harem(path)
    path.write_text(head[:-1] + "<DOC>", encoding="ascii")  # '>' is byte 65536: read
    assert H.is_harem(path)


@pytest.mark.parametrize(
    "content, expected",
    [
        ("<DOC>texto</DOC>", False),  # a document, no entity tag
        ("<PESSOA>Rui</PESSOA>", False),  # an entity, no document
        ("<DOC><PESSOA>Rui</PESSOA></DOC>", True),
        ('<DOC ID="x"><EM CATEG="L">a</EM></DOC>', True),
        ("<DOC><PES>Rui</PES></DOC>", False),  # three letters: not taken for a category
    ],
)
def test_is_harem_needs_a_document_and_an_entity_tag(tmp_path, content, expected):
    path = tmp_path / "f.txt"
    path.write_text(content, encoding="utf-8")
    assert H.is_harem(path) is expected


def test_is_harem_of_what_cannot_be_read_is_false(tmp_path):
    assert H.is_harem(tmp_path / "missing.txt") is False
    assert H.is_harem(tmp_path) is False  # a folder


# ---------------------------------------------------------------------------- writing


WRITE_ERRORS = [
    # (items, the problem as the message ends)
    (
        [{"label": "L", "start": 0, "end": 1, "x": 1}],
        "an entity has the keys label, start, end and optionally attributes",
    ),
    (["L"], "an entity has the keys label, start, end and optionally attributes"),
    ([{"label": "L", "start": 0, "end": 9}], "offsets are ints with 0 <= start < end <= the text's length"),
    ([{"label": "L", "start": 0.0, "end": 1}], "offsets are ints with 0 <= start < end <= the text's length"),
    (
        [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": "M"}}],
        "attributes are {'gender', 'number'} (MORF)",
    ),
    (
        [{"label": "L", "start": 0, "end": 1, "attributes": "M,S"}],
        "attributes are {'gender', 'number'} (MORF)",
    ),
    (
        [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": ["M"], "number": "S"}}],
        "a MORF value given as a list lists two or more",
    ),
    (
        [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": "", "number": "S"}}],
        "a MORF value is a non-empty str holding none of ['\"', '|', '<', ',']",
    ),
    (
        [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": 3, "number": "S"}}],
        "a MORF value is a non-empty str holding none of ['\"', '|', '<', ',']",
    ),
    (
        [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": ["M", ""], "number": "S"}}],
        "a MORF value is a non-empty str holding none of ['\"', '|', '<', ',']",
    ),
    (
        [{"label": "LOC:", "start": 0, "end": 1}],
        "a type is not empty and holds none of ['\"', '|', '<', ',']",
    ),
    (
        [{"label": "LOC2", "start": 0, "end": 1}],
        "the category 'LOC2' is not a tag name (upper-case ASCII letters, not ['ALT', 'DOC', 'DOCID', 'GENERO',"
        " 'ORIGEM', 'P'])",
    ),
    (
        [{"label": ["LOC:x", "ORG"], "start": 0, "end": 1}],
        "the types of a vague label are all given or all absent",
    ),
    ([{"label": ["LOC"], "start": 0, "end": 1}], "a vague label lists two types or more"),
    ([{"label": ["LOC", 3], "start": 0, "end": 1}], "a label is a str"),
    (
        [{"alternatives": [[{"label": "L", "start": 0, "end": 1}], []], "x": 1}],
        "an ALT group is {'alternatives': [two lists of entities or more]}",
    ),
    (
        [{"alternatives": ([{"label": "L", "start": 0, "end": 1}], [])}],
        "an ALT group is {'alternatives': [two lists of entities or more]}",
    ),
    (
        [{"alternatives": [[{"label": "L", "start": 0, "end": 1}]]}],
        "an ALT group is {'alternatives': [two lists of entities or more]}",
    ),
    ([{"alternatives": [[], []]}], "an ALT group's alternatives are lists, one at least not empty"),
    (
        [{"alternatives": [[{"label": "L", "start": 0, "end": 1}], "x"]}],
        "an ALT group's alternatives are lists, one at least not empty",
    ),
    (
        [
            {
                "alternatives": [
                    [{"label": "L", "start": 1, "end": 2}, {"label": "L", "start": 0, "end": 1}],
                    [],
                ]
            }
        ],
        "the entities of an alternative are in text order and do not overlap",
    ),
    (
        [{"alternatives": [[{"label": "L", "start": 0, "end": 1}], [{"label": "L", "start": 0, "end": 9}]]}],
        "offsets are ints with 0 <= start < end <= the text's length",
    ),
]


@pytest.mark.parametrize("start, end", [(1, 2), (1, 3), (2, 3)])
def test_an_entity_of_white_space_only_is_not_written(start, end):
    """It would not read back: the reader refuses an entity that names no word."""
    items = [{"label": "L", "start": start, "end": end}]
    with pytest.raises(ValueError) as error:
        H.write_harem(H.Harem(["a \u00a0b"], ["d"], [items], [1]))
    assert str(error.value) == (
        f"write_harem: document 0 ('d'), item 0 {items[0]!r}: the entity's text is white space only: it names no word"
    )
    assert H.write_harem(H.Harem(["a \u00a0b"], ["d"], [[{"label": "L", "start": 0, "end": 2}]], [1]))


@pytest.mark.parametrize("items, problem", WRITE_ERRORS)
def test_each_writing_refusal_is_named_whole(items, problem):
    harem = H.Harem(["ab"], ["d"], [items], [1])
    with pytest.raises(ValueError) as error:
        H.write_harem(harem)
    assert str(error.value) == f"write_harem: document 0 ('d'), item 0 {items[0]!r}: {problem}"


def test_an_alt_holding_a_bar_is_refused_whole():
    items = [{"alternatives": [[{"label": "L", "start": 0, "end": 3}], []]}]
    with pytest.raises(ValueError) as error:
        H.write_harem(H.Harem(["a|b"], ["d"], [items], [1]))
    assert (
        str(error.value)
        == f"write_harem: document 0 ('d'), item 0 {items[0]!r}: the text of an ALT group holds no '|'"
    )


def _round_trip(text, items):
    harem = H.Harem([text], ["d"], [items], [1])
    markup = H.write_harem(harem)
    back = H.read_harem_text(markup)
    assert (back.texts, back.document_ids, back.items) == (harem.texts, harem.document_ids, harem.items)
    return markup


@pytest.mark.parametrize(
    "text, items, markup",
    [
        (
            "Rui Costa",
            [{"label": ["PESSOA:X", "ORGANIZACAO:X"], "start": 0, "end": 9}],
            '<PESSOA|ORGANIZACAO TIPO="X">Rui Costa</PESSOA|ORGANIZACAO>',  # a shared type written once
        ),
        (
            "Rui Costa",
            [{"label": ["PESSOA:X", "ORGANIZACAO:Y"], "start": 0, "end": 9}],
            '<PESSOA|ORGANIZACAO TIPO="X|Y">Rui Costa</PESSOA|ORGANIZACAO>',
        ),
        (
            "dez",
            [{"label": "VALOR", "start": 0, "end": 3, "attributes": {"gender": "MF", "number": ["S", "P"]}}],
            '<VALOR MORF="MF,S|P">dez</VALOR>',  # a value of two letters stays whole
        ),
        (
            "ab",
            [{"label": "L:a:", "start": 0, "end": 1}],
            '<L TIPO="a:">a</L>b',
        ),  # the type after the first ':'
        (
            "ab",
            [{"label": "L", "start": 0, "end": 1}, {"label": "M", "start": 1, "end": 2}],
            "<L>a</L><M>b</M>",  # adjacent entities
        ),
        (
            "Rua da Prata",
            [
                {
                    "alternatives": [
                        [{"label": "LOCAL", "start": 0, "end": 12}],
                        [{"label": "LOCAL", "start": 0, "end": 3}, {"label": "LOCAL", "start": 7, "end": 12}],
                    ]
                }
            ],
            "<ALT><LOCAL>Rua da Prata</LOCAL>|<LOCAL>Rua</LOCAL> da <LOCAL>Prata</LOCAL></ALT>",
        ),
    ],
)
def test_the_markup_written_character_for_character(text, items, markup):
    assert _round_trip(text, items) == f"<DOC><DOCID>d</DOCID>{markup}</DOC>\n"


# ---------------------------------------------------------------------------- alignment


@pytest.mark.parametrize(
    "gold, system, entity, expected",
    [
        # a contraction expanded inside an entity that starts further on, text after it
        ("Vivo na Universidade do Porto e", "Vivo em a Universidade de o Porto e", (10, 33), (8, 29)),
        ("ab bba", "b ab ", (0, 5), None),  # the last word placed before the first: not placed
        ("ab", "b a a", (0, 4), None),
        (" ,aa", " , b a", (0, 6), (1, 3)),  # the first word ends where the last begins
    ],
)
def test_the_first_and_last_words_place_what_the_whole_cannot(gold, system, entity, expected):
    placed, lost = H.align_to_gold(gold, system, [{"label": "L", "start": entity[0], "end": entity[1]}])
    if expected is None:
        assert placed == [] and len(lost) == 1
    else:
        assert lost == [] and (placed[0]["start"], placed[0]["end"]) == expected


def test_texts_that_agree_but_for_white_space_need_no_lookup(monkeypatch):
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)  # prepare finds every string at once
    alignment = H._Alignment("Em  Braga", "Em Braga")
    alignment.prepare([(3, 8)])
    assert alignment.gold_occ.found == {} and alignment.sys_occ.found == {}
    assert alignment.place(3, 8) == (4, 9)
    assert alignment.gold_occ.found == {} and alignment.sys_occ.found == {}
    alignment = H._Alignment("Em Braga", "Em o Braga")
    alignment.prepare([(5, 10)])
    assert alignment.gold_occ.found == {"Braga": [2]} and alignment.sys_occ.found == {"Braga": [3]}
    assert alignment.place(5, 10) == (3, 8)


class _Counted(str):
    """A text that counts its ``find`` calls."""

    finds = 0

    def find(self, *args):
        _Counted.finds += 1
        return super().find(*args)


def test_each_string_is_searched_once():
    _Counted.finds = 0
    occurrences = H._Occurrences(_Counted("abcab"))
    assert occurrences.of("ab") == [0, 3] and occurrences.of("ab") == [0, 3]
    assert _Counted.finds == 3  # two hits and the search past the last, once


def test_many_strings_of_one_length_are_found_by_hashing(monkeypatch):
    hashed = []
    monkeypatch.setattr(
        H._Occurrences, "_hashed", lambda self, length, group: hashed.append((length, len(group)))
    )
    text = "x" * 6
    H._Occurrences(text).prepare([f"{k:06d}" for k in range(H.FEW_NEEDLES)])  # FEW_NEEDLES: one by one
    H._Occurrences(text).prepare([f"{k:07d}" for k in range(H.FEW_NEEDLES + 1)])  # longer than the text
    assert hashed == []
    H._Occurrences(text).prepare([f"{k:06d}" for k in range(H.FEW_NEEDLES + 1)])  # as long as the text
    assert hashed == [(6, H.FEW_NEEDLES + 1)]


def test_a_string_longer_than_the_text_is_not_hashed(monkeypatch):
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)
    occurrences = H._Occurrences("abc")
    occurrences.prepare(["abcdef"])
    assert occurrences.of("abcdef") == []


def test_the_filter_lets_through_what_the_keys_then_decide(monkeypatch):
    """A filter of one slot passes every window: the keys alone decide, with keys above every one
    sought among them."""
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)
    monkeypatch.setattr(H, "_TABLE", 1)
    text = "abcabxyzpqrstuvw"
    occurrences = H._Occurrences(text)
    inverse = occurrences._prefix()[2]
    sought = ["ab", "ca", "zz"]
    windows = {text[k : k + 2] for k in range(len(text) - 1)}
    assert max(H._key(w, inverse) for w in windows) > max(H._key(s, inverse) for s in sought)  # the case
    occurrences.prepare(sought)
    assert occurrences.found == {"ab": [0, 3], "ca": [2], "zz": []}


def test_a_hit_counts_only_for_a_string_sought_under_its_key(monkeypatch):
    """A window that is another string already found, whose key one sought string shares, is not
    counted again."""
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)
    occurrences = H._Occurrences("abcab")
    assert occurrences.of("ca") == [2]
    inverse = occurrences._prefix()[2]
    real = H._key
    monkeypatch.setattr(H, "_key", lambda needle, inv: real("ca", inverse))
    occurrences.prepare(["ab"])
    assert occurrences.found == {"ca": [2], "ab": []}


def test_lone_surrogates_are_hashed(monkeypatch):
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)
    occurrences = H._Occurrences("a\ud800b a\ud800b")
    occurrences.prepare(["a\ud800b", "\ud800b"])
    assert occurrences.found == {"a\ud800b": [0, 4], "\ud800b": [1, 5]}


# ---------------------------------------------------------------------------- pairs


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "system, message",
    [
        (
            "<DOC><DOCID>a</DOCID>x</DOC>",
            "s.txt: no document 'b' of the gold",
        ),
        (
            "<DOC><DOCID>a</DOCID>x</DOC><DOC><DOCID>b</DOCID>y</DOC><DOC><DOCID>c</DOCID>z</DOC>"
            "<DOC><DOCID>e</DOCID>z</DOC>",
            "s.txt: document 'c' is not in the gold",
        ),
        (
            "<DOC><DOCID>a</DOCID>x</DOC><DOC><DOCID>b</DOCID><L|M>y</L|M></DOC>",
            "s.txt, document b: a system's output holds an ALT or a vague label ({'label': ['L', 'M'], 'start': 0,"
            " 'end': 1}); only the gold may be in doubt",
        ),
        (
            "<DOC><DOCID>a</DOCID>x</DOC><DOC><DOCID>b</DOCID><ALT><L>y</L>|y</ALT></DOC>",
            "s.txt, document b: a system's output holds an ALT or a vague label ({'alternatives': [[{'label': 'L',"
            " 'start': 0, 'end': 1}], []]}); only the gold may be in doubt",
        ),
    ],
)
def test_a_system_file_that_does_not_pair_is_named(tmp_path, system, message):
    gold = _write(tmp_path, "g.txt", "<DOC><DOCID>a</DOCID>x</DOC><DOC><DOCID>b</DOCID>y</DOC>")
    with pytest.raises(ValueError) as error:
        H.read_harem_pair(gold, _write(tmp_path, "s.txt", system))
    assert str(error.value) == message


def test_two_missing_documents_name_the_first(tmp_path):
    gold = _write(tmp_path, "g.txt", "<DOC><DOCID>a</DOCID>x</DOC><DOC><DOCID>b</DOCID>y</DOC>")
    with pytest.raises(ValueError) as error:
        H.read_harem_pair(gold, _write(tmp_path, "s.txt", "<DOC><DOCID>z</DOCID>x</DOC>"))
    assert str(error.value) == "s.txt: no document 'a' of the gold"
