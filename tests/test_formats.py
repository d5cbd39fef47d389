"""Readers of annotation tools' formats (``ner_formats``; docs/formats.md): files written by each
tool's documented format (and by spaCy itself) read back to their entities; errors name the file
and line; read entities score like the same entities given by hand."""

import json
import os

import pytest

from conftest import METRIC_PATH, ROOT
from ner_recall import ner_formats as F

DATA = os.path.join(ROOT, "tests", "data", "formats")


@pytest.fixture(scope="module")
def spans():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def covered(annotated):
    return [
        [(e["label"], t[e["start"] : e["end"]]) for e in ents]
        for t, ents in zip(annotated.texts, annotated.entities)
    ]


def test_brat_entities_fragments_and_attributes():
    got = F.read_annotated(os.path.join(DATA, "brat"))
    assert got.ids == ["doc1"]
    assert covered(got) == [[("ADR", "muscle and joint pain"), ("ADR", "joint pain"), ("Symptom", "fever")]]
    first, second, third = got.entities[0]
    assert first["fragments"] == [[12, 18], [29, 33]]  # "muscle" ... "pain": discontinuous
    assert "fragments" not in second and second["attributes"] == {"Severity": "mild"}
    assert third["attributes"] == {"Negated": True}  # a binary attribute; the relation and note left out


def test_doccano_prodigy_label_studio_and_conllu():
    assert covered(F.read_annotated(os.path.join(DATA, "doccano.jsonl"))) == [
        [("PER", "Ada Lovelace"), ("PER", "Babbage")],
        [("LOC", "London")],
    ]
    prodigy = F.read_annotated(os.path.join(DATA, "prodigy.jsonl"))
    assert covered(prodigy) == [[("PER", "Ada Lovelace")]]  # the rejected record left out
    assert len(F.read_prodigy(os.path.join(DATA, "prodigy.jsonl"), answers=("accept", "reject")).texts) == 2
    studio = F.read_annotated(os.path.join(DATA, "label_studio.json"))
    assert len(studio.annotators) == 2  # the cancelled annotation is no annotator
    assert covered(studio) == [[("PER", "Ada Lovelace"), ("LOC", "London")]]
    conllu = F.read_annotated(os.path.join(DATA, "sample.conllu"))
    assert conllu.texts == ["Ada Lovelace met Babbage.", "de o Porto"]  # SpaceAfter=No; syntactic words
    assert covered(conllu) == [[("PER", "Ada Lovelace"), ("PER", "Babbage")], [("LOC", "Porto")]]


def test_label_studio_annotators_go_to_agreement(spans):
    studio = F.read_annotated(os.path.join(DATA, "label_studio.json"))
    agreement = spans.agreement(studio.annotators, texts=studio.texts)
    # annotator 1: PER Ada, LOC London; annotator 2: PER Ada, PER Babbage, ORG London:
    # strict 1 pair right of 2 and 3: F1 = 2 * 1 / (2 + 3) = 0.4
    assert agreement["pairs"]["0-1"]["strict"] == pytest.approx(0.4)


def test_spacy_docbin_round_trip(tmp_path):
    spacy = (
        pytest.importorskip("spacy", reason="spaCy is in requirements-extras.txt (CI installs it)")
        if not os.environ.get("CI")
        else __import__("spacy")
    )
    from spacy.tokens import DocBin, Span

    nlp = spacy.blank("en")
    doc = nlp("Ada Lovelace met Charles Babbage in London")
    doc.ents = [Span(doc, 0, 2, "PER"), Span(doc, 3, 5, "PER"), Span(doc, 6, 7, "LOC")]
    doc.spans["nested"] = [Span(doc, 0, 2, "PER"), Span(doc, 1, 2, "SURNAME")]
    path = tmp_path / "docs.spacy"
    DocBin(docs=[doc], store_user_data=True).to_disk(path)
    got = F.read_annotated(str(path))
    assert covered(got) == [[("PER", "Ada Lovelace"), ("PER", "Charles Babbage"), ("LOC", "London")]]
    nested = F.read_docbin(str(path), spans_key="nested")
    assert covered(nested) == [[("PER", "Ada Lovelace"), ("SURNAME", "Lovelace")]]
    assert F.from_docs([doc]).entities == got.entities


def test_read_entities_score_like_the_same_entities_by_hand(spans):
    got = F.read_annotated(os.path.join(DATA, "brat"))
    by_hand = [
        [
            {"label": "ADR", "start": 12, "end": 33, "fragments": [[12, 18], [29, 33]]},
            {"label": "ADR", "start": 23, "end": 33},
            {"label": "Symptom", "start": 38, "end": 43},
        ]
    ]
    plain = [[{k: v for k, v in e.items() if k != "attributes"} for e in ex] for ex in got.entities]
    assert plain == by_hand
    assert spans.compute(predictions=plain, references=got.entities, texts=got.texts)["overall_f1"] == 1.0


@pytest.mark.parametrize(
    "name, content, message",
    [
        (
            "bad.jsonl",
            '{"text": "ab", "label": [[0, 5, "X"]]}\n',
            r"bad.jsonl line 1: offsets 0-5 are not a span",
        ),
        (
            "bad.jsonl",
            '{"text": "ab", "label": [[0, 1, "X"]]}\n{"text": 3}\n',
            r"bad.jsonl line 2: a record is an object with a 'text'",
        ),
        ("bad.jsonl", '{"text": "ab", "label": [[0, 1]]}\n', r"line 1: a label is \[start, end, 'TYPE'\]"),
        ("bad.jsonl", "not json\n", r"bad.jsonl line 1: not JSON"),
        ("bad.conllu", "1\tAda\n", r"bad.conllu line 1: 2 tab-separated fields"),
        (
            "bad.conllu",
            "1\tAda\t_\t_\t_\t_\t_\t_\t_\tNER=PER\n",
            r"bad.conllu line 1: tag 'PER' is not O or PREFIX-TYPE",
        ),
        ("bad.json", '{"data": {}}', r"a Label Studio export is a list of tasks"),
        ("bad.json", '[{"id": 4, "data": {}}]', r"bad.json task 4: no data\['text'\] text"),
    ],
)
def test_malformed_records_are_named_by_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    fmt = {"bad.jsonl": "doccano", "bad.conllu": "conllu", "bad.json": "label-studio"}[name]
    with pytest.raises(ValueError, match=message):
        F.read_annotated(str(path), format=fmt)


@pytest.mark.parametrize(
    "ann, message",
    [
        ("T1\tADR 12 18\tmuscles\n", r"line 1: the text 'muscles' is not 'muscle'"),
        ("T1\tADR 18 12\tx\n", r"line 1: offsets '18 12': each fragment is 'start end' with start < end"),
        ("T1\tADR 12 18\tmuscle\nA1\tNegated T9\n", r"line 2: the attribute's target 'T9'"),
        ("T1 ADR 12 18 muscle\n", r"line 1: a T line is"),
        ("X1\tfoo\n", r"line 1: unknown annotation kind 'X'"),
    ],
)
def test_malformed_brat_lines_are_named(tmp_path, ann, message):
    (tmp_path / "d.txt").write_text("Patient had muscle and joint pain.\n", encoding="utf-8")
    (tmp_path / "d.ann").write_text(ann, encoding="utf-8")
    with pytest.raises(ValueError, match=r"d\.ann " + message):
        F.read_annotated(str(tmp_path / "d.ann"))


def test_the_format_is_told_or_asked_for(tmp_path):
    odd = tmp_path / "x.jsonl"
    odd.write_text(json.dumps({"text": "a", "tags": []}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cannot tell its format.*format= one of"):
        F.read_annotated(str(odd))
    with pytest.raises(ValueError, match=r"format must be one of"):
        F.read_annotated(str(odd), format="xml")


def test_conllu_with_a_tag_column_after_the_ten(tmp_path):
    path = tmp_path / "eleven.conllu"
    path.write_text(
        "1\tAda\t_\t_\t_\t_\t_\t_\t_\t_\tB-PER\n2\tKing\t_\t_\t_\t_\t_\t_\t_\t_\tI-PER\n\n", encoding="utf-8"
    )
    assert covered(F.read_annotated(str(path))) == [[("PER", "Ada King")]]


def test_files_of_a_tool_are_scored_by_the_command_line_and_read_pair(tmp_path):
    from ner_recall import ner_files

    inputs = ner_files.read_pair(os.path.join(DATA, "doccano.jsonl"), os.path.join(DATA, "doccano.jsonl"))
    assert inputs.compute_inputs()["texts"] == inputs.tokens and inputs.references == inputs.predictions
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "Something else.", "label": []}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"holds 2 examples but other.jsonl 1"):
        ner_files.read_pair(os.path.join(DATA, "doccano.jsonl"), str(other))
