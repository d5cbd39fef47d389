"""HAREM's golden collection markup (``ner_harem``): reading every construct, writing back,
errors with their line, the alignment of a changed system text, and the command line."""

import os
import subprocess

import pytest

from conftest import CLI, METRIC_PATH, ROOT
from ner_recall.readers import harem as H

DATA = os.path.join(ROOT, "tests", "data", "harem")
GOLD, SYSTEM = os.path.join(DATA, "gold.txt"), os.path.join(DATA, "system.txt")


def marked(doc, text):
    """Every entity of the document, with the characters it covers."""
    out = []
    for item in doc:
        for e in [x for a in item["alternatives"] for x in a] if "alternatives" in item else [item]:
            out.append((e["label"], text[e["start"] : e["end"]]))
    return out


def test_every_construct_is_read_with_its_offsets():
    harem = H.read_harem(GOLD)
    assert harem.document_ids == ["HAREM-TEST-001", "HAREM-TEST-002"]
    assert marked(harem.items[0], harem.texts[0]) == [
        ("ORGANIZACAO:SUB", "DCC"),
        ("ORGANIZACAO:INSTITUICAO", "Universidade de Lisboa"),
        ("LOCAL:HUMANO", "Rua da Prata"),  # the ALT's first alternative
        ("LOCAL:HUMANO", "Prata"),  # and its second
        (["PESSOA:INDIVIDUAL", "ORGANIZACAO:INSTITUICAO"], "Rui Costa"),  # vague, paired in order
        ("TEMPO:DATA", "1000"),
    ]
    assert "<" not in harem.texts[0] and "Rua da Prata." in harem.texts[0]
    assert harem.items[0][0]["attributes"] == {"gender": "M", "number": "S"}
    assert harem.items[0][3]["attributes"] == {"gender": "?", "number": "S"}  # underspecified kept
    assert marked(harem.items[1], harem.texts[1]) == [
        ("LOCAL:HUMANO", "Braga"),
        (["PESSOA", "LOCAL"], "Porto"),
    ]
    assert harem.lines == [1, 6]


def test_an_alt_with_an_empty_alternative_and_a_round_trip():
    source = '<DOC><DOCID>x</DOCID>Em <ALT><LOCAL>Lisboa Norte</LOCAL>|Lisboa Norte</ALT> e <VALOR MORF="M|F,P">dez</VALOR></DOC>'
    harem = H.read_harem_text(source)
    assert harem.items[0][0] == {"alternatives": [[{"label": "LOCAL", "start": 3, "end": 15}], []]}
    assert harem.items[0][1]["attributes"] == {"gender": ["M", "F"], "number": "P"}
    back = H.read_harem_text(H.write_harem(harem))
    assert (back.texts, back.document_ids, back.items) == (harem.texts, harem.document_ids, harem.items)
    gold = H.read_harem(GOLD)
    again = H.read_harem_text(H.write_harem(gold))
    assert (again.texts, again.items) == (gold.texts, gold.items)


@pytest.mark.parametrize(
    "source, message",
    [
        ("<DOC>\nO <PESSOA>Rui</PESSOA\n</DOC>", r"line 1: <PESSOA> not closed|line 2"),
        ("<DOC>\n\nO <PESSOA>Rui</LOCAL>\n</DOC>", r"line 3: </LOCAL> closes <PESSOA> \(line 3\)"),
        ('<DOC>\nO <PESSOA COR="x">Rui</PESSOA>\n</DOC>', r"line 2: unknown attribute 'COR'"),
        ("<DOC>\n<ALT><LOCAL>Porto</LOCAL></ALT>\n</DOC>", r"line 2: an ALT needs two alternatives"),
        (
            "<DOC>\n<ALT><LOCAL>Porto</LOCAL>|Lisboa</ALT>\n</DOC>",
            r"line 2: the ALT's alternatives differ in their text",
        ),
        (
            "<DOC>\nO <PESSOA>Rui <LOCAL>X</LOCAL></PESSOA>\n</DOC>",
            r"line 2: <LOCAL> inside <PESSOA>.*do not nest",
        ),
        ('<DOC>\n<PESSOA MORF="M">Rui</PESSOA>\n</DOC>', r"line 2: MORF='M' must be gender,number"),
        ("<DOC>\nO Rui\n", r"line 1: <DOC> not closed"),
        ('<DOC>\n<PESSOA|LOCAL TIPO="A|B|C">Rui</PESSOA|LOCAL></DOC>', r"2 categories .* 3 types"),
        ("<DOC>\n<PESSOA></PESSOA></DOC>", r"line 2: <PESSOA> marks no text"),
    ],
)
def test_malformed_markup_is_named_by_line(source, message):
    with pytest.raises(ValueError, match=message):
        H.read_harem_text(source, "f.txt")


@pytest.mark.parametrize(
    "gold, system, entity, expected",
    [
        ("no Porto", "em o Porto", (5, 10), (3, 8)),  # contraction expanded before the entity
        (
            "Universidade do Porto",
            "Universidade de o Porto",
            (0, 23),
            (0, 21),
        ),  # and inside it: first/last words
        ("Lisboa, Porto.", "Lisboa , Porto .", (9, 14), (8, 13)),  # spaces added
        ("1000 anos", "1 000 anos", (0, 5), (0, 4)),  # a number split
        ("Porto e Porto", "Porto e Porto", (8, 13), (8, 13)),  # the same text: as given
        ("Porto e Porto.", "Porto e o Porto .", (10, 15), (8, 13)),  # the second occurrence stays second
    ],
)
def test_alignment_places_entities_of_a_changed_text(gold, system, entity, expected):
    placed, lost = H.align_to_gold(gold, system, [{"label": "L", "start": entity[0], "end": entity[1]}])
    assert lost == [] and (placed[0]["start"], placed[0]["end"]) == expected


def test_an_entity_the_alignment_cannot_place_is_returned():
    placed, lost = H.align_to_gold(
        "Vivo em Lisboa.", "Vivo em Coimbra.", [{"label": "L", "start": 8, "end": 15}]
    )
    assert placed == [] and lost == [{"label": "L", "start": 8, "end": 15}]


def test_the_pair_scores_through_the_loaded_metric():
    import evaluate

    metric = evaluate.load(METRIC_PATH, "spans")
    inputs = metric.read_harem_markup(GOLD, SYSTEM)
    assert inputs.unplaced == [[], []]
    results = metric.compute(**inputs.compute_inputs())
    # doc 1: DCC typed INSTITUICAO (wrong), Universidade right, Prata fits the ALT's 2nd alternative,
    # Rui Costa right under the vague label's first type, 1000 right; doc 2: Braga right, Porto LOCAL
    # right under the vague label: 6 of 7 strict
    assert results["muc"]["strict"]["correct"] == 6 and results["muc"]["strict"]["possible"] == 7
    assert results["doubt"]["chosen"] == {"1": 1} and results["doubt"]["vague"] == 2
    assert results["hierarchy"]["absolute"]["categories"]["correct"] == 7
    assert results["attributes"]["outcomes"]["number"]["wrong"] == 1  # Prata's S typed P


def test_the_command_line_scores_a_harem_pair_and_names_what_it_could_not_place(tmp_path):
    out = subprocess.run(
        [*CLI, GOLD, SYSTEM],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )
    assert out.returncode == 0, out.stderr
    assert "HAREM classification" in out.stdout and "doubt in the gold resolved: groups 1" in out.stdout
    changed = tmp_path / "system.txt"
    changed.write_text(
        open(SYSTEM, encoding="utf-8").read().replace(">Braga<", ">Braganca<"), encoding="utf-8"
    )
    out = subprocess.run(
        [*CLI, GOLD, str(changed)],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )
    assert out.returncode == 0, out.stderr
    assert "1 predicted entities could not be placed" in out.stdout and "LOCAL:HUMANO" in out.stdout


def test_the_second_harem_layout():
    harem = H.read_harem(os.path.join(DATA, "gold_em.xml"))
    assert harem.document_ids == ["H2-dftre765"] and "<" not in harem.texts[0]
    assert marked(harem.items[0], harem.texts[0]) == [
        ("LOCAL:HUMANO", "Alemanha"),
        (["ABSTRACCAO:IDEIA", "ACONTECIMENTO:EFEMERIDE"], "Reforma Protestante"),  # types paired in order
    ]
    assert H.is_harem(os.path.join(DATA, "gold_em.xml")) and not H.is_harem(
        os.path.join(ROOT, "tests", "data", "gold.conll")
    )
    metadata = '<DOC DOCID="x"><GENERO>web</GENERO><P>Em <EM CATEG="LOCAL">Braga</EM>.</P></DOC>'
    assert H.read_harem_text(metadata).texts == ["Em Braga."]


# ---------------------------------------------------------------------------- linear reading


def _many_documents(n):
    doc = '<DOC>\n<DOCID>d{k}</DOCID>\nO <ORGANIZACAO TIPO="SUB" MORF="M,S">DCC</ORGANIZACAO> e\n' + (
        "<ALT><LOCAL>Rua da Prata</LOCAL>|Rua da <LOCAL>Prata</LOCAL></ALT> em <PESSOA>Rui</PESSOA>.\n</DOC>\n"
    )
    return "".join(doc.format(k=k) for k in range(n))


@pytest.mark.parametrize("n", [1, 10, 200])
def test_reading_counts_each_character_once_for_the_line_numbers(monkeypatch, n):
    """The reader's work on line numbers is the length of the markup, not the length times the
    tags (it counted from the start of the file for every tag: 1 MB took 19.8 s)."""
    made = []

    class Counted(H._Lines):
        def __init__(self, source):
            super().__init__(source)
            made.append(self)

    monkeypatch.setattr(H, "_Lines", Counted)
    source = _many_documents(n)
    harem = H.read_harem_text(source, "f.txt")
    assert len(made) == 1 and made[0].scanned == len(source)
    assert harem.lines == [1 + 5 * k for k in range(n)]  # each <DOC> at its line


def test_line_numbers_are_asked_in_order_only():
    lines = H._Lines("a\nb\nc")
    assert (lines.at(2), lines.at(2), lines.at(4)) == (2, 2, 3)
    with pytest.raises(ValueError, match="position 1 asked after position 4"):
        lines.at(1)


def test_an_error_late_in_a_long_file_names_its_line():
    source = _many_documents(50) + "<DOC>\n<DOCID>z</DOCID>\n<PESSOA>Rui</LOCAL>\n</DOC>\n"
    with pytest.raises(ValueError, match=r"f.txt line 253: </LOCAL> closes <PESSOA> \(line 253\)"):
        H.read_harem_text(source, "f.txt")


# ---------------------------------------------------------------------------- alignment, fast and exact


def _naive_place(gold_text, system_text, start, end):
    """The alignment's rule written plainly: the n-th occurrence (overlapping ones counted) of the
    entity's characters, white space aside, in the system text is the n-th in the gold text; the
    same text gives the entity as it is."""
    if gold_text == system_text:
        return start, end
    gold_at = [k for k, c in enumerate(gold_text) if not c.isspace()]
    sys_at = [k for k, c in enumerate(system_text) if not c.isspace()]
    gold_sq, sys_sq = "".join(gold_text[k] for k in gold_at), "".join(system_text[k] for k in sys_at)
    inside = [i for i, k in enumerate(sys_at) if start <= k < end]
    if not inside:
        return None
    lo, hi = inside[0], inside[-1] + 1
    needle = sys_sq[lo:hi]
    n = sum(sys_sq.startswith(needle, i) for i in range(lo))
    found = [i for i in range(len(gold_sq)) if gold_sq.startswith(needle, i)]
    return (gold_at[found[n]], gold_at[found[n] + len(needle) - 1] + 1) if n < len(found) else None


@pytest.mark.parametrize("few", [0, 32])
@pytest.mark.parametrize("seed", range(12))
def test_alignment_finds_what_the_plain_rule_finds(monkeypatch, seed, few):
    """Random texts over a small alphabet (many repeated and overlapping strings), the system's a
    changed copy; each entity is placed where the plain rule places it, by the lookup one string at
    a time (``few=32``) and by the rolling hashes (``few=0``)."""
    import random

    monkeypatch.setattr(H, "FEW_NEEDLES", few)
    rng = random.Random(seed)
    gold = "".join(rng.choice("ab a  bc\n") for _ in range(rng.randint(1, 60)))
    system = "".join(c if rng.random() > 0.1 else rng.choice(["", "a", "  ", "ba"]) for c in gold)
    system = system or "a"
    entities = []
    for k in range(20):
        s = rng.randrange(len(system))
        entities.append({"label": f"L{k}", "start": s, "end": rng.randint(s + 1, min(len(system), s + 6))})
    placed, lost = H.align_to_gold(gold, system, entities)
    assert sorted(e["label"] for e in placed + lost) == sorted(e["label"] for e in entities)
    where = {e["label"]: (e["start"], e["end"]) for e in placed}
    for entity in entities:
        span = _naive_place(gold, system, entity["start"], entity["end"])
        if span is not None:  # else the first and last words may place it
            assert where[entity["label"]] == span


def test_the_rolling_hash_checks_each_hit_against_the_text(monkeypatch):
    """A hash collision is no occurrence: every window the hash picks is compared with the string."""
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)
    monkeypatch.setattr(H, "_key", lambda needle, inverse: 0)  # every string collides
    occurrences = H._Occurrences("abcab")
    occurrences.prepare(["ab", "ca", "zz"])
    assert occurrences.found == {"ab": [], "ca": [], "zz": []}  # the windows' real keys are not 0
    occurrences = H._Occurrences("abcab")
    occurrences.prepare(["ab", "ca", "zz", "bc"])
    assert [occurrences.of(s) for s in ("ab", "ca", "zz", "bc")] in ([[0, 3], [2], [], [1]], [[], [], [], []])


def test_the_rolling_hash_finds_overlapping_occurrences(monkeypatch):
    monkeypatch.setattr(H, "FEW_NEEDLES", 0)
    occurrences = H._Occurrences("aaaabaaa")
    occurrences.prepare(["aa", "ab", "ba", "bb"])
    assert occurrences.found == {"aa": [0, 1, 2, 5, 6], "ab": [3], "ba": [4], "bb": []}
    assert (occurrences.before("aa", 5), occurrences.nth("aa", 3), occurrences.nth("aa", 5)) == (3, 5, -1)


# ---------------------------------------------------------------------------- document ids


@pytest.mark.parametrize(
    "source, message",
    [
        (
            "<DOC><DOCID>a</DOCID>x</DOC>\n<DOC><DOCID>a</DOCID>y</DOC>",
            r"f.txt: document id 'a' at line 1 and again at line 2; document ids must be unique",
        ),
        ('<DOC DOCID="a">x</DOC>\n\n<DOC DOCID="a">y</DOC>', r"id 'a' at line 1 and again at line 3"),
        ("<DOC>x</DOC>\n<DOC><DOCID>doc1</DOCID>y</DOC>", r"id 'doc1' at line 1 and again at line 2"),
    ],
)
def test_a_repeated_document_id_is_refused_naming_both_lines(source, message):
    with pytest.raises(ValueError, match=message):
        H.read_harem_text(source, "f.txt")


def test_documents_without_an_id_get_distinct_ones_by_position():
    harem = H.read_harem_text("<DOC>x</DOC>\n<DOC>y z</DOC>\n<DOC><DOCID> </DOCID>w</DOC>")
    assert harem.document_ids == ["doc1", "doc2", "doc3"]
    assert H.read_harem_text("Vivo em <LOCAL>Braga</LOCAL>.", "notes.txt").document_ids == ["notes.txt"]


def _report(tmp_path, *paths):
    return subprocess.run(
        [*CLI, *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )


def test_a_file_of_repeated_ids_scored_against_itself_is_refused_by_name(tmp_path):
    """``ner_recall/cli/report.py g.txt g.txt`` printed F1 0.6667 for a file of two documents of one id: the
    system's first was dropped and its second scored twice. Now the file is refused."""
    twice = tmp_path / "g.txt"
    twice.write_text(
        "<DOC>\n<DOCID>a</DOCID>\nVivo em <LOCAL>Braga</LOCAL>.\n</DOC>\n"
        "<DOC>\n<DOCID>a</DOCID>\nO <PESSOA>Rui</PESSOA> e <LOCAL>Rio</LOCAL>.\n</DOC>\n",
        encoding="utf-8",
    )
    out = _report(tmp_path, twice, twice)
    assert out.returncode != 0 and "0.6667" not in out.stdout
    assert "g.txt: document id 'a' at line 1 and again at line 5" in out.stderr + out.stdout


def test_a_plain_system_scored_against_its_own_gold_is_perfect(tmp_path):
    gold = tmp_path / "g.txt"
    gold.write_text(
        "<DOC>\nVivo em <LOCAL>Braga</LOCAL>.\n</DOC>\n<DOC>\nO <PESSOA>Rui</PESSOA> e a <LOCAL>Rua</LOCAL>.\n</DOC>\n",
        encoding="utf-8",
    )
    gold_doc, predictions, lost = H.read_harem_pair(str(gold), str(gold))
    assert gold_doc.document_ids == ["doc1", "doc2"] and predictions == gold_doc.items and lost == [[], []]
    out = _report(tmp_path, gold, gold)
    assert out.returncode == 0, out.stderr
    assert "1.0000" in out.stdout and "0.6667" not in out.stdout


# ---------------------------------------------------------------------------- writing reads back


@pytest.mark.parametrize(
    "label, message",
    [
        ("LOC2", r"the category 'LOC2' is not a tag name"),
        ("ORG-X", r"the category 'ORG-X' is not a tag name"),
        ("loc", r"the category 'loc' is not a tag name"),
        ("ALT", r"the category 'ALT' is not a tag name"),
        ("DOCID:X", r"the category 'DOCID' is not a tag name"),
        ("LOC:", r"a type is not empty"),
        ('LOC:a"b', r"a type is not empty and holds none of"),
        ("LOC:a|b", r"a type is not empty and holds none of"),
        (["LOC:x", "ORG"], r"the types of a vague label are all given or all absent"),
        (["LOC"], r"a vague label lists two types or more"),
        (["LOC", 3], r"a label is a str"),
    ],
)
def test_write_refuses_a_label_the_markup_cannot_carry(label, message):
    harem = H.Harem(["Vivo em Braga."], ["d"], [[{"label": label, "start": 8, "end": 13}]], [1])
    with pytest.raises(ValueError, match=r"write_harem: document 0 \('d'\), item 0 .*: " + message):
        H.write_harem(harem)


@pytest.mark.parametrize(
    "text, doc_id, items, message",
    [
        ("a <LOCAL> b", "d", [], r"the text holds markup"),
        ("a <!x> b", "d", [], r"the text holds markup"),
        ("ab", " d", [], r"an id is a non-empty str"),
        ("ab", "", [], r"an id is a non-empty str"),
        ("ab", "<P>", [], r"an id is a non-empty str"),
        ("ab", "d", [{"label": "L", "start": 1, "end": 1}], r"0 <= start < end"),
        ("ab", "d", [{"label": "L", "start": 0, "end": 3}], r"0 <= start < end"),
        ("ab", "d", [{"label": "L", "start": 0, "end": 1, "optional": True}], r"the keys label"),
        (
            "ab",
            "d",
            [{"label": "L", "start": 1, "end": 2}, {"label": "L", "start": 0, "end": 1}],
            r"text order",
        ),
        (
            "ab",
            "d",
            [{"label": "L", "start": 0, "end": 2}, {"label": "L", "start": 1, "end": 2}],
            r"text order",
        ),
        (
            "ab",
            "d",
            [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": "M"}}],
            r"'gender', 'number'",
        ),
        (
            "ab",
            "d",
            [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": "M,F", "number": "S"}}],
            r"a MORF value",
        ),
        (
            "ab",
            "d",
            [{"label": "L", "start": 0, "end": 1, "attributes": {"gender": ["M"], "number": "S"}}],
            "two or more",
        ),
        ("a|b", "d", [{"alternatives": [[{"label": "L", "start": 0, "end": 3}], []]}], r"holds no '\|'"),
        ("ab", "d", [{"alternatives": [[], []]}], r"one at least not empty"),
        ("ab", "d", [{"alternatives": [[{"label": "L", "start": 0, "end": 1}]]}], r"two lists"),
    ],
)
def test_write_refuses_what_would_not_read_back(text, doc_id, items, message):
    with pytest.raises(ValueError, match=message):
        H.write_harem(H.Harem([text], [doc_id], [items], [1]))


hypothesis = pytest.importorskip("hypothesis", reason="pip install -r requirements-dev.txt")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECE = st.text(alphabet='ABCLOxz09-_:|"<, É', min_size=0, max_size=6)
_LABEL = st.one_of(_PIECE, st.lists(_PIECE, min_size=1, max_size=3))
_MORF = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "gender": st.one_of(_PIECE, st.lists(_PIECE, max_size=3)),
            "number": st.sampled_from(["S", "P", "?"]),
        }
    ),
)


@settings(max_examples=300, deadline=None)
@given(labels=st.lists(st.tuples(_LABEL, _MORF), min_size=1, max_size=4), alt=st.booleans())
def test_write_then_read_is_the_identity_or_a_named_refusal(labels, alt):
    """Random labels (letters, digits, '-', ':', '|', quotes, '<', commas, spaces): what is written
    reads back the same; what cannot be is refused by name, never written wrong."""
    text = " ".join(["Braga"] * len(labels)) + "."
    entities = []
    for k, (label, morf) in enumerate(labels):
        entity = {"label": label, "start": 6 * k, "end": 6 * k + 5}
        if morf is not None:
            entity["attributes"] = morf
        entities.append(entity)
    items = [{"alternatives": [entities[:1], []]}] + entities[1:] if alt else entities
    harem = H.Harem([text], ["doc-1"], [items], [1])
    try:
        markup = H.write_harem(harem)
    except ValueError as error:
        assert str(error).startswith("write_harem: document 0 ('doc-1')")
        return
    back = H.read_harem_text(markup)
    assert (back.texts, back.document_ids, back.items) == (harem.texts, harem.document_ids, harem.items)
