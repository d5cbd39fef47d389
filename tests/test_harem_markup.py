"""HAREM's golden collection markup (``ner_harem``): reading every construct, writing back,
errors with their line, the alignment of a changed system text, and the command line."""

import os
import subprocess
import sys

import pytest

from conftest import METRIC_PATH, ROOT
from ner_recall import ner_harem as H

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
        [sys.executable, os.path.join(ROOT, "ner_report.py"), GOLD, SYSTEM],
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
        [sys.executable, os.path.join(ROOT, "ner_report.py"), GOLD, str(changed)],
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
