"""Readers of annotation tools' formats (``ner_formats``; docs/formats.md): files written by each
tool's documented format (and by spaCy itself) read back to their entities; errors name the file
and line; read entities score like the same entities given by hand."""

import json
import os
import re

import pytest

from conftest import METRIC_PATH, ROOT, require
from ner_recall.readers import formats as F

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
    spacy = spacy_or_skip()
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
            r"bad.jsonl line 2: a doccano record is an object with a 'text' string; this one looks like none",
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
    from ner_recall.readers import files as ner_files

    inputs = ner_files.read_pair(os.path.join(DATA, "doccano.jsonl"), os.path.join(DATA, "doccano.jsonl"))
    assert inputs.compute_inputs()["texts"] == inputs.tokens and inputs.references == inputs.predictions
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "Something else.", "label": []}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"holds 2 examples but other.jsonl 1"):
        ner_files.read_pair(os.path.join(DATA, "doccano.jsonl"), str(other))


# ---------------------------------------------------------------------------- hostile and mistaken input
JSON_RECORDS = [
    # (format, record line, message)
    ("doccano", '{"text": "ab", "label": null}', r"line 1: doccano's 'label' is a list; got None"),
    ("doccano", '{"text": "ab", "entities": null}', r"line 1: doccano's 'entities' is a list; got None"),
    ("doccano", '{"text": "ab", "entities": "PER"}', r"doccano's 'entities' is a list; got 'PER'"),
    ("doccano", '{"text": null, "label": []}', r"line 1: a doccano record is an object with a 'text' string"),
    ("prodigy", '{"text": "ab", "spans": null}', r"line 1: Prodigy's 'spans' is a list; got None"),
    (
        "prodigy",
        '{"text": "ab", "spans": [], "answer": null}',
        r"answer must be one of \['accept', 'reject', 'ignore'\]; got None",
    ),
    ("prodigy", '{"text": "ab", "spans": [null]}', r"line 1: a span is an object; got None"),
    (
        "prodigy",
        '{"text": "ab", "spans": [{"start": null, "end": 1, "label": "X"}]}',
        r"offsets must be ints; got None",
    ),
    (
        "prodigy",
        '{"text": "ab", "spans": [{"start": 0, "end": 1, "label": null}]}',
        r"label must be a non-empty str; got None",
    ),
    (
        "doccano",
        "5",
        r"line 1: a doccano record is an object with a 'text' string; this one looks like a JSON number",
    ),
    ("prodigy", "null", r"line 1: a Prodigy record .* looks like a JSON null, not an object"),
    ("doccano", "[" * 100_000 + "]" * 100_000, r"line 1: JSON nested too deep to read"),
    (
        "doccano",
        '{"text": "ab", "label": [], "id": ' + "9" * 5000 + "}",
        r"line 1: not JSON this reader takes \(Exceeds",
    ),
    # the wrong format given: the record named for what it looks like
    (
        "doccano",
        '{"text": "ab", "spans": [{"start": 0, "end": 1, "label": "X"}]}',
        r"no doccano 'label' or 'entities'; the record looks like Prodigy \(it has 'spans'\): give the format 'prodigy'",
    ),
    (
        "prodigy",
        '{"text": "ab", "label": [[0, 1, "X"]]}',
        r"no Prodigy 'spans'; the record looks like doccano \(it has 'label'\)",
    ),
    (
        "prodigy",
        '{"text": "ab", "entities": [{"start_offset": 0, "end_offset": 1, "label": "X"}]}',
        r"looks like doccano \(its 'entities' have 'start_offset'\)",
    ),
]


@pytest.mark.parametrize("fmt, line, message", JSON_RECORDS)
def test_hostile_json_records_are_named(tmp_path, fmt, line, message):
    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"x\.jsonl line 1: .*" + message.removeprefix("line 1: ")):
        F.read_annotated(str(path), format=fmt)


@pytest.mark.parametrize(
    "first, message",
    [
        ("5", r"x.jsonl: its first record is a JSON number, not an object"),
        ("null", r"x.jsonl: its first record is a JSON null, not an object"),
        ('"PER"', r"x.jsonl: its first record is a JSON string, not an object"),
        ("[" * 100_000 + "]" * 100_000, r"x.jsonl: its first record: JSON nested too deep to read"),
        ('{"text": "a", "n": ' + "1" * 5000 + "}", r"x.jsonl: its first record: not JSON this reader takes"),
    ],
)
def test_guessing_a_hostile_jsonl_is_a_named_error(tmp_path, first, message):
    from ner_recall.readers import files as ner_files

    path = tmp_path / "x.jsonl"
    path.write_text(first + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        F.guess_format(str(path))
    with pytest.raises(ValueError, match=r"x\.jsonl"):  # the command line's and the app's path
        ner_files.read_pair(str(path), str(path))


def label_studio(tmp_path, annotations):
    path = tmp_path / "ls.json"
    path.write_text(json.dumps([{"id": 7, "data": {"text": "PER x"}, "annotations": annotations}]))
    return str(path)


def region(labels, **value):
    return {"type": "labels", "value": {"start": 0, "end": 3, "labels": labels, **value}}


@pytest.mark.parametrize(
    "annotations, message",
    [
        # a str of labels would be read letter by letter (P, E, R): refused, as Label Studio writes a list
        (
            [{"result": [region("PER")]}],
            r"ls.json task 7 result 0: value.labels is a list of labels .*got 'PER'",
        ),
        ([{"result": [region(None)]}], r"task 7 result 0: value.labels is a list of labels .*got None"),
        ([{"result": [{"type": "labels", "value": "PER"}]}], r"task 7 result 0: value.labels is a list"),
        (
            [{"result": "PER 0 3"}],
            r"ls.json task 7: an annotation's 'result' is a list of regions; got 'PER 0 3'",
        ),
        ([{"result": [5]}], r"task 7 result 0: a region is an object; got 5"),
        ("all", r"ls.json task 7: 'annotations' is a list of objects; got 'all'"),
        ([5], r"ls.json task 7: 'annotations' is a list of objects; got \[5\]"),
        ({"result": []}, r"'annotations' is a list of objects"),
        ([{"result": [region(["PER"], start=None)]}], r"task 7 result 0: offsets must be ints; got None"),
    ],
)
def test_malformed_label_studio_annotations_are_refused(tmp_path, annotations, message):
    with pytest.raises(ValueError, match=message):
        F.read_annotated(label_studio(tmp_path, annotations))


def test_label_studio_labels_each_make_an_entity(tmp_path):
    path = label_studio(
        tmp_path, [{"result": [region(["PER", "ORG"])]}, {"result": None}, {"was_cancelled": True}]
    )
    got = F.read_annotated(path)
    assert got.entities == [[{"label": "ORG", "start": 0, "end": 3}, {"label": "PER", "start": 0, "end": 3}]]
    assert got.annotators == [[got.entities[0]], [[]]]


def test_a_second_brat_t_line_with_the_same_id_is_refused(tmp_path):
    (tmp_path / "d.txt").write_text("Anna Riga", encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tPER 0 4\tAnna\nT1\tLOC 5 9\tRiga\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"d\.ann line 2: a second T line with the id 'T1'"):
        F.read_annotated(str(tmp_path / "d.ann"))


@pytest.mark.parametrize(
    "offsets, covered, fragments",
    [
        ("0 4;4 9", "Anna Riga", None),  # adjacent: one fragment (brat's line break)
        ("0 4;5 9", "Anna Riga", [[0, 4], [5, 9]]),  # one character apart: two fragments
        ("0 3;4 9", "Ann  Riga", [[0, 3], [4, 9]]),
    ],
)
def test_brat_fragments_join_only_when_adjacent(tmp_path, offsets, covered, fragments):
    (tmp_path / "d.txt").write_text("Anna Riga", encoding="utf-8")
    (tmp_path / "d.ann").write_text(f"T1\tPER {offsets}\t{covered}\n", encoding="utf-8")
    (entity,) = F.read_annotated(str(tmp_path / "d.ann")).entities[0]
    assert (entity["start"], entity["end"]) == (int(offsets.split()[0]), 9)
    assert entity.get("fragments") == fragments


def test_conllu_ranges_and_empty_nodes_are_not_words(tmp_path):
    rows = [
        "1-2\tdo\t_\t_\t_\t_\t_\t_\t_\tNER=B-LOC",
        "1\tde\t_\t_\t_\t_\t_\t_\t_\tNER=O",
        "2\to\t_\t_\t_\t_\t_\t_\t_\tNER=O",
        "2.1\tghost\t_\t_\t_\t_\t_\t_\t_\tNER=B-PER",
        "3\tPorto\t_\t_\t_\t_\t_\t_\t_\tNER=B-LOC",
    ]
    path = tmp_path / "x.conllu"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    got = F.read_annotated(str(path))
    assert got.texts == ["de o Porto"]
    assert got.entities == [[{"label": "LOC", "start": 5, "end": 10}]]


@pytest.mark.parametrize("fmt", [None, *F.FORMATS])
def test_a_missing_file_is_named_alike_by_every_reader(tmp_path, fmt):
    missing = str(tmp_path / "gone.jsonl")
    with pytest.raises(ValueError, match="^no such file: " + re.escape(missing) + "$"):
        F.read_annotated(missing, fmt)


def test_a_missing_brat_text_is_named(tmp_path):
    (tmp_path / "d.ann").write_text("T1\tPER 0 4\tAnna\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"no such file: .*d\.txt \(the text of d\.ann\)"):
        F.read_annotated(str(tmp_path / "d.ann"))


def spacy_or_skip():
    """spaCy, or a skip naming where it comes from (in CI, a failure: CI installs it)."""
    return require("spacy", "spaCy is in requirements-extras.txt")


def docbin_bytes(**changes):
    """A DocBin's bytes with the fields of its message changed (declared sizes that lie)."""
    import zlib

    spacy = spacy_or_skip()
    import srsly  # spaCy's, installed with it
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    msg = srsly.msgpack_loads(zlib.decompress(DocBin(docs=[nlp("Ada met Babbage")]).to_bytes()))
    msg.update(changes)
    return zlib.compress(srsly.msgpack_dumps(msg))


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not zlib", r"not a spaCy DocBin \(not zlib data"),
        (__import__("zlib").compress(b"\xc1 not msgpack"), r"not a spaCy DocBin \("),
        (__import__("zlib").compress(b"\x93\x01\x02\x03"), r"not a spaCy DocBin \(it needs"),
        ("lengths", r".*its lengths sum to 1000 tokens, its arrays hold 3 and 3\)"),
        ("negative", r".*its lengths sum to"),
        ("ragged", r".*not whole int32 / uint64 rows"),
        ("empty docs", r".*docs for 3 tokens"),
        ("bomb", r".*inflates past"),
    ],
)
def test_a_malformed_or_inflating_docbin_is_refused_before_it_is_built(tmp_path, content, message):
    import zlib

    import numpy as np

    if content == "lengths":
        content = docbin_bytes(lengths=np.array([1000], dtype="int32").tobytes())
    elif content == "negative":
        content = docbin_bytes(lengths=np.array([5, -2], dtype="int32").tobytes())
    elif content == "ragged":
        content = docbin_bytes(lengths=b"\x01\x00\x00")
    elif content == "empty docs":
        content = docbin_bytes(lengths=np.array([3] + [0] * 20_000, dtype="int32").tobytes())
    elif content == "bomb":  # 3 MB that would inflate to 3 GB
        inflater = zlib.compressobj(9)
        chunk = b"\0" * (1 << 24)
        content = b"".join(inflater.compress(chunk) for _ in range(180)) + inflater.flush()
    spacy_or_skip()
    path = tmp_path / "x.spacy"
    path.write_bytes(content)
    with pytest.raises(
        ValueError, match=r"x\.spacy: not a spaCy DocBin" + message.removeprefix("not a spaCy DocBin")
    ):
        F.read_annotated(str(path))


def test_spacy_missing_is_named_with_its_install_line(tmp_path, monkeypatch):
    import sys

    path = tmp_path / "x.spacy"
    path.write_bytes(b"anything")
    monkeypatch.setitem(sys.modules, "spacy", None)  # import spacy now fails as if not installed
    with pytest.raises(
        ModuleNotFoundError, match=r"x\.spacy: reading a spacy file needs spaCy.*pip install spacy"
    ) as info:
        F.read_annotated(str(path))
    assert isinstance(info.value, F.MissingPackage) and info.value.install == "pip install spacy"


# ---------------------------------------------------------------------------- from the mutation survivors
BRAT_TEXT = "Patient had muscle and joint pain.\n"
BRAT_FILES = [
    # (.ann, message or the entities read as (label, start, end, fragments))
    ("T1\tADR x 18\tmuscle\n", r"d\.ann line 1: offsets 'x 18' are not 'start end' pairs separated by ';'"),
    ("\nT1\tADR 12 18;15 22\tmuscle cle an\n", r"d\.ann line 2: offsets '12 18;15 22': fragments overlap"),
    (
        "T1\tADR 12 18;17 33\tmuscle e and joint pain\n",
        r"d\.ann line 1: offsets '12 18;17 33': fragments overlap",
    ),
    (
        "T1\tADR 12 18\tmuscle\nA1\tNegated\n",
        r"d\.ann line 2: an A line is 'A1<tab>Name T1' or 'A1<tab>Name T1 Value'$",
    ),
    ("T1\tADR 12 18\tmuscle\nA1\n", r"d\.ann line 2: an A line is"),
    ("T1\t ADR 12 18\tmuscle\n", r"d\.ann line 1: offsets 'ADR 12 18' are not 'start end' pairs"),
    ("T1\tADR 30 40\tain. \n\n", r"d\.ann line 1: offsets 30-40 are not a span of the text \(length 35\)"),
    ("T1\tADR 12 18\tmuscle\n\nT2\tADR 29 33\tpain\n", [("ADR", 12, 18, None), ("ADR", 29, 33, None)]),
    ("T1\tADR 12 18;29 33\tmusclepain\n", [("ADR", 12, 33, [[12, 18], [29, 33]])]),
    ("T1\tADR 12 18;29 33\tmuscle pain\n", [("ADR", 12, 33, [[12, 18], [29, 33]])]),
]


@pytest.mark.parametrize("ann, expected", BRAT_FILES)
def test_brat_lines_read_or_named(tmp_path, ann, expected):
    (tmp_path / "d.txt").write_text(BRAT_TEXT, encoding="utf-8")
    (tmp_path / "d.ann").write_text(ann, encoding="utf-8")
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected):
            F.read_annotated(str(tmp_path / "d.ann"))
        return
    (entities,) = F.read_annotated(str(tmp_path / "d.ann")).entities
    assert [(e["label"], e["start"], e["end"], e.get("fragments")) for e in entities] == expected


def test_brat_text_is_read_as_written_crlf_and_utf8(tmp_path):
    (tmp_path / "d.txt").write_bytes("Anna\r\nRiga ü".encode())
    (tmp_path / "d.ann").write_bytes("T1\tLOC 6 10\tRiga\nT2\tX 11 12\tü\n".encode())
    got = F.read_annotated(str(tmp_path / "d.ann"))
    assert got.texts == ["Anna\r\nRiga ü"] and [e["start"] for e in got.entities[0]] == [6, 11]
    (tmp_path / "d.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match=r"^d\.ann: cannot read it and its \.txt as UTF-8 \("):
        F.read_annotated(str(tmp_path / "d.ann"))


def test_prodigy_records_ids_and_lines(tmp_path):
    records = [
        {"text": "ab", "spans": [], "answer": "reject"},
        {"text": "ab", "spans": [{"start": 0, "end": 1, "label": "X"}], "_task_hash": 17, "label": "textcat"},
        {"text": "cd"},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records[:2]) + "\n\n" + json.dumps(records[2]) + "\n")
    got = F.read_prodigy(str(path))
    assert got.entities == [[{"label": "X", "start": 0, "end": 1}], []]
    assert got.ids == [17, 1] and got.lines == [2, 4] and got.texts == ["ab", "cd"]


def test_doccano_ids_and_lines(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('\n{"text": "ab", "id": "x"}\n{"text": "cd", "entities": []}\n')
    got = F.read_doccano(str(path))
    assert got.ids == ["x", 1] and got.lines == [2, 3] and got.entities == [[], []]


def test_label_studio_skips_other_regions_before_labels(tmp_path):
    path = label_studio(tmp_path, [{"result": [{"type": "choices", "value": {}}, region(["PER"])]}])
    assert F.read_annotated(path).entities == [[{"label": "PER", "start": 0, "end": 3}]]


def conllu(tmp_path, rows, name="x.conllu"):
    path = tmp_path / name
    path.write_text(
        "\n".join("\t".join(r) if isinstance(r, tuple) else r for r in rows) + "\n", encoding="utf-8"
    )
    return str(path)


def word(k, form, misc="_", *more):
    return (str(k), form, "_", "_", "_", "_", "_", "_", "_", misc, *more)


def test_conllu_texts_lines_and_ids(tmp_path):
    path = conllu(
        tmp_path,
        [
            "# sent_id = 1",
            word(1, "New York", "NER=B-LOC"),
            word(2, "TAXX", "NER=B-ORG|Gloss=a=b"),
            "",
            "",
            word(1, "x\u00a0"),
        ],
    )
    got = F.read_conllu(path)
    assert got.texts == [
        "New York TAXX",
        "x\u00a0",
    ]  # a form may hold a space; only the joining space is stripped
    assert got.entities[0] == [
        {"label": "LOC", "start": 0, "end": 8},
        {"label": "ORG", "start": 9, "end": 13},
    ]
    assert got.lines == [2, 6] and got.ids == [0, 1]
    assert F.read_conllu(conllu(tmp_path, [word(1, "a", "NER=B-A=B")])).entities == [
        [{"label": "A=B", "start": 0, "end": 1}]
    ]  # MISC is split at its first "="


@pytest.mark.parametrize(
    "tag, message",
    [
        ("B-X", None),
        ("S-X", None),
        ("BPER", r"tag 'BPER' is not O or PREFIX-TYPE"),
        ("X-PER", r"tag 'X-PER' is not O"),
        ("B-", r"tag 'B-' is not O"),
        ("PER", r"tag 'PER' is not O"),
    ],
)
def test_conllu_tags_are_checked(tmp_path, tag, message):
    path = conllu(tmp_path, [word(1, "a", f"NER={tag}")])
    if message is None:
        assert F.read_conllu(path).entities == [[{"label": "X", "start": 0, "end": 1}]]
        return
    with pytest.raises(ValueError, match=r"x\.conllu line 1: " + message):
        F.read_conllu(path)


def test_conllu_column_and_unreadable_files(tmp_path):
    path = conllu(tmp_path, ["# c", word(1, "Ada", "_", "B-PER", "O"), word(2, "King", "_", "I-PER", "O")])
    assert F.read_conllu(path, column=10).entities == [[{"label": "PER", "start": 0, "end": 8}]]
    assert F.read_conllu(path).entities == [[]]  # the last column by default
    with pytest.raises(ValueError, match=r"^x\.conllu line 2: no column 12 \(the line has 12\)$"):
        F.read_conllu(path, column=12)
    bad = tmp_path / "bad.conllu"
    bad.write_bytes(b"\xff\n")
    with pytest.raises(ValueError, match=r"^bad\.conllu: cannot read it as UTF-8 \("):
        F.read_conllu(str(bad))


@pytest.mark.parametrize(
    "record, looks",
    [
        (True, "a JSON true or false, not an object"),
        ([1], "a JSON array, not an object"),
        ("x", "a JSON string, not an object"),
        (None, "a JSON null, not an object"),
        (5.5, "a JSON number, not an object"),
        (
            {"entities": "x"},
            "this metric's own JSONL (it has 'entities' of 'label', 'start', 'end'): give no format",
        ),
        (
            {"entities": [5]},
            "this metric's own JSONL (it has 'entities' of 'label', 'start', 'end'): give no format",
        ),
        (
            {"entities": []},
            "this metric's own JSONL (it has 'entities' of 'label', 'start', 'end'): give no format",
        ),
        (
            {"entities": [{"start_offset": 0}]},
            "doccano (its 'entities' have 'start_offset'): give the format 'doccano'",
        ),
        (
            {"annotations": []},
            "a Label Studio task (it has 'annotations' or 'data'): give the format 'label-studio'",
        ),
        (
            {"data": {}},
            "a Label Studio task (it has 'annotations' or 'data'): give the format 'label-studio'",
        ),
        ({f"k{i}": 0 for i in range(10)}, f"none of the formats (its keys: {[f'k{i}' for i in range(8)]})"),
    ],
)
def test_what_a_record_looks_like(record, looks):
    assert F.looks_like(record) == looks


@pytest.mark.parametrize(
    "line, expected",
    [
        ('{"text": "ab"}', []),
        ('{"text": "ab", "spans": [], "label": [[0, 1, "X"]]}', [("X", 0, 1)]),
        ('{"text": "ab", "spans": [], "entities": []}', []),
        (
            '{"text": "ab", "label": [[0, 1, 5]]}',
            r"x\.jsonl line 1: the label must be a non-empty str; got 5",
        ),
        (
            '{"text": "ab", "label": [[1, 1, "X"]]}',
            r"x\.jsonl line 1: offsets 1-1 are not a span of the text \(length 2\)",
        ),
        ('{"text": "ab", "entities": [5]}', r"^x\.jsonl line 1: an entity is an object; got 5$"),
        (
            '{"text": "ab", "entities": [{"label": "X", "start_offset": 0, "end_offset": 9}]}',
            r"^x\.jsonl line 1: offsets 0-9 are not a span",
        ),
    ],
)
def test_doccano_records(tmp_path, line, expected):
    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n")
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected):
            F.read_doccano(str(path))
        return
    (entities,) = F.read_doccano(str(path)).entities
    assert [(e["label"], e["start"], e["end"]) for e in entities] == expected


def test_unreadable_json_lines_and_brat_folders(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\xff\n")
    with pytest.raises(ValueError, match=r"^x\.jsonl: cannot read it as UTF-8 \("):
        F.read_doccano(str(path))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=f"^{re.escape(str(empty))}: no .ann file$"):
        F.read_brat(str(empty))
    for name in ("a", "b"):
        (empty / f"{name}.txt").write_text("Anna")
        (empty / f"{name}.ann").write_text("T1\tPER 0 4\tAnna\n")
    got = F.read_brat(str(empty))
    assert got.ids == ["a", "b"] and got.lines == [1, 1]


def test_label_studio_tasks_ids_annotators_and_errors(tmp_path):
    def export(tasks, name="ls.json"):
        path = tmp_path / name
        path.write_text(json.dumps(tasks) if not isinstance(tasks, str) else tasks)
        return str(path)

    one = {"result": [region(["PER"])]}
    got = F.read_annotated(
        export([{"id": 7, "data": {"text": "PER x"}, "annotations": [one]}, {"data": {"text": "y"}}])
    )
    assert (
        got.ids == [7, 1] and got.lines == [0, 1] and got.annotators is None
    )  # one annotation: no agreement
    assert got.entities == [[{"label": "PER", "start": 0, "end": 3}], []]
    assert F.read_annotated(export([])) == F.Annotated([], [], [], [], None)
    uneven = [{"data": {"text": "PER x"}, "annotations": [one] * n} for n in (2, 3)]
    with pytest.raises(
        ValueError, match=r"^ls\.json: tasks hold \[2, 3\] annotations; agreement needs as many"
    ):
        F.read_annotated(export(uneven))
    with pytest.raises(ValueError, match=r"^ls\.json \(a Label Studio JSON export\): not JSON"):
        F.read_annotated(export("{oops"))
    with pytest.raises(ValueError, match=r"list of tasks; this looks like a Label Studio task"):
        F.read_annotated(export({"data": {}}))
    with pytest.raises(ValueError, match=r"^ls\.json task 1: no data\['text'\] text$"):
        F.read_annotated(export([{"data": {"text": "a"}}, 5]))
    with pytest.raises(ValueError, match=r"^ls\.json task 1: no data"):
        F.read_annotated(export([{"data": {"text": "a"}}, {"data": {}}]))


def test_docs_without_the_spans_key_and_their_ids():
    spacy = spacy_or_skip()
    nlp = spacy.blank("en")
    docs = [nlp("Ada met Babbage"), nlp("x")]
    got = F.from_docs(docs, spans_key="missing")
    assert got.entities == [[], []] and got.ids == [0, 1] and got.lines == [0, 1]


def test_docbin_inflation_bound_and_messages():
    import zlib

    spacy_or_skip()
    small = zlib.compress(b"\0" * 500_000)  # inflates 500 times, but within 1 MB: read, then not msgpack
    with pytest.raises(ValueError, match=r"^x: not a spaCy DocBin \(not msgpack: [A-Z]\w+"):
        F.check_docbin(small, "x")
    with pytest.raises(ValueError, match="not msgpack: (?!NoneType)"):
        F.check_docbin(small, "x")
    big = zlib.compress(b"\0" * 1_600_000)
    limit = 256 * len(big) + (1 << 20)
    with pytest.raises(
        ValueError, match=rf"^x: not a spaCy DocBin it reads \(it inflates past {limit} bytes"
    ):
        F.check_docbin(big, "x")


def test_more_survivors_guessing_options_fragments_and_docbin_parts(tmp_path):
    import zlib

    import numpy as np

    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    with pytest.raises(ValueError, match="cannot tell its format"):
        F.guess_format(str(blank))
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"text": "\xe9", "spans": []}\n')
    assert F.guess_format(str(latin)) == "prodigy"  # the first line is read leniently to guess
    prodigy = tmp_path / "p.jsonl"
    prodigy.write_text('{"text": "ab", "spans": [], "answer": "reject"}\n')
    assert len(F.read_annotated(str(prodigy), "prodigy", answers=("reject",)).texts) == 1
    (tmp_path / "d.txt").write_text("Anna")
    (tmp_path / "d.ann").write_text("T1\tPER 2 2\t\n")
    with pytest.raises(ValueError, match=r"each fragment is 'start end' with start < end"):
        F.read_annotated(str(tmp_path / "d.ann"))
    one_each = [{"data": {"text": "PER x"}, "annotations": [{"result": [region(["PER"])]}]}] * 2
    assert F.read_annotated(label_studio_file(tmp_path, one_each)).annotators is None
    spacy_or_skip()
    import srsly  # spaCy's, installed with it

    with pytest.raises(ValueError, match=r"not a spaCy DocBin \(it needs"):
        F.check_docbin(zlib.compress(srsly.msgpack_dumps({"attrs": []})), "x")
    with pytest.raises(ValueError, match=r"^x: not a spaCy DocBin \(attrs a list"):
        F.check_docbin(docbin_bytes(attrs="ORTH"), "x")
    with pytest.raises(ValueError, match=r"lengths sum to 1 tokens"):
        F.check_docbin(docbin_bytes(lengths=np.array([3, 2**32 - 2], dtype="uint32").tobytes()), "x")
    ok = docbin_bytes(lengths=np.array([1, 2] + [0] * 10_000, dtype="int32").tobytes())
    F.check_docbin(ok, "x")  # 10,000 empty docs beyond one per token: read
    with pytest.raises(ValueError, match=r"lengths sum to 4 tokens"):
        F.check_docbin(docbin_bytes(lengths=np.array([1, 2, 1], dtype="int32").tobytes()), "x")


def label_studio_file(tmp_path, tasks):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks))
    return str(path)


# ---------------------------------------------------------------------------- a gold and a predictions file


def ls_task(task_id, text, *spans):
    """A Label Studio task of one annotation, its regions ``(start, end, label)``."""
    result = [region([label], start=start, end=end) for start, end, label in spans]
    return {"id": task_id, "data": {"text": text}, "annotations": [{"result": result}]}


LS_GOLD = [
    ls_task(1, "Ada met Babbage.", (0, 3, "PER"), (8, 15, "PER")),
    ls_task(2, "In London.", (3, 9, "LOC")),
    ls_task(3, "Paris is big.", (0, 5, "LOC")),
]


def renumbered(tasks, offset):
    return [dict(task, id=task["id"] + offset) for task in tasks]


@pytest.mark.parametrize(
    "pred, ids",
    [
        (LS_GOLD, [1, 2, 3]),
        (LS_GOLD[::-1], [1, 2, 3]),  # exported in another order: paired by id
        ([LS_GOLD[1], LS_GOLD[2], LS_GOLD[0]], [1, 2, 3]),
        (renumbered(LS_GOLD[::-1], 100), [101, 102, 103]),  # another project's ids: paired by text
        (renumbered(LS_GOLD, 1)[:2] + [dict(LS_GOLD[2], id=1)], [2, 3, 1]),  # ids that pair the wrong texts
    ],
)
def test_label_studio_tasks_are_paired_by_id_or_text_and_named_as_tasks(tmp_path, pred, ids):
    from ner_recall.readers import files as ner_files

    gold_path, pred_path = tmp_path / "gold.json", tmp_path / "pred.json"
    gold_path.write_text(json.dumps(LS_GOLD))
    pred_path.write_text(json.dumps(pred))
    inputs = ner_files.read_pair(str(gold_path), str(pred_path))
    assert inputs.predictions == inputs.references  # each task beside its own
    assert [inputs.where("predictions", k) for k in range(3)] == [f"pred.json task {i}" for i in ids]
    assert inputs.where("references", 2, 0) == "gold.json task 3"  # a task, never "line 0"


@pytest.mark.parametrize(
    "pred, message",
    [
        (
            LS_GOLD[:2],
            "gold.json and pred.json do not hold the same tasks (paired by id, or by text when the ids"
            " differ): in gold.json and not in pred.json: task 3",
        ),
        (
            LS_GOLD[::-1] + [ls_task(4, "More.")],
            "in pred.json and not in gold.json: task 4",
        ),
        (
            renumbered(LS_GOLD[1:], 100) + [ls_task(7, "Other.")],
            "in gold.json and not in pred.json: task 1; in pred.json and not in gold.json: task 7",
        ),
        (  # the same ids, a text changed: the pair whose texts differ
            [LS_GOLD[0], ls_task(2, "In London!"), LS_GOLD[2]],
            "pred.json task 2: its text differs from the gold's (task 2 of gold.json)",
        ),
    ],
)
def test_label_studio_tasks_without_a_partner_are_named(tmp_path, pred, message):
    from ner_recall.readers import files as ner_files

    gold_path, pred_path = tmp_path / "gold.json", tmp_path / "pred.json"
    gold_path.write_text(json.dumps(LS_GOLD))
    pred_path.write_text(json.dumps(pred))
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_files.read_pair(str(gold_path), str(pred_path))


def brat_folder(folder, names):
    folder.mkdir()
    for name in names:
        (folder / f"{name}.txt").write_text(f"Anna {name}.", encoding="utf-8")
        (folder / f"{name}.ann").write_text("T1\tPER 0 4\tAnna\n", encoding="utf-8")
    return str(folder)


@pytest.mark.parametrize(
    "gold, pred, message",
    [
        (["a", "b", "c"], ["a", "c"], "in gold and not in pred: document b"),
        (["a", "c"], ["a", "b", "c"], "in pred and not in gold: document b"),
        (
            ["a", "b"],
            ["a", "c", "d"],
            "in gold and not in pred: document b; in pred and not in gold: document c, document d",
        ),
        (
            ["a", "b", "c", "d", "e", "f", "g"],
            ["z"],
            "in gold and not in pred: document a, document b, document c, document d, document e and 2 more;"
            " in pred and not in gold: document z",
        ),
    ],
)
def test_brat_folders_name_the_documents_one_holds_and_the_other_not(tmp_path, gold, pred, message):
    from ner_recall.readers import files as ner_files

    paths = brat_folder(tmp_path / "gold", gold), brat_folder(tmp_path / "pred", pred)
    with pytest.raises(ValueError) as raised:
        ner_files.read_pair(*paths)
    assert str(raised.value) == f"gold and pred do not hold the same documents (paired by name): {message}"


def test_brat_folders_pair_their_documents_by_name(tmp_path):
    from ner_recall.readers import files as ner_files

    inputs = ner_files.read_pair(
        brat_folder(tmp_path / "gold", ["a", "b"]), brat_folder(tmp_path / "pred", ["a", "b"])
    )
    assert [inputs.where("predictions", k) for k in range(2)] == ["pred document a", "pred document b"]
