"""ner_files: the readers give compute's inputs, and bad files fail naming file and line."""

import json
import os
import re
from pathlib import Path

import pytest

from conftest import ROOT
from ner_recall.readers import files as ner_files
from ner_recall.readers.hipe import read_hipe

DATA = os.path.join(ROOT, "tests", "data")
GOLD, PRED_A, PRED_B, BOTH = (
    os.path.join(DATA, name) for name in ("gold.conll", "pred_a.conll", "pred_b.conll", "gold_pred_a.conll")
)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_conll_2003_layout():
    s = ner_files.read_conll(GOLD)
    assert len(s.tokens) == 4  # -DOCSTART- lines end a sentence and are dropped
    assert s.tokens[1] == ["Maren", "Oakhurst"] and s.columns[0][1] == ["B-PER", "I-PER"]
    assert s.lines[0][0] == 3 and s.lines[1] == [13, 14]
    assert all(len(t) == len(g) == len(n) for t, g, n in zip(s.tokens, s.columns[0], s.lines))


def test_pair_and_two_columns_agree(metric):
    pair = ner_files.read_conll_pair(GOLD, PRED_A)
    both = ner_files.read_two_columns(BOTH)
    assert pair.compute_inputs() == both.compute_inputs()
    assert pair.tokens == both.tokens
    assert metric.compute(**pair.compute_inputs())["overall_f1"] == pytest.approx(4 / 7)  # hand-counted


@pytest.mark.parametrize(
    "gold, pred",
    [
        (GOLD, PRED_A),
        (BOTH, None),
        tuple(os.path.join(DATA, "hipe", f"unittest-ner-1-{side}.tsv") for side in ("true", "pred")),
        (os.path.join(DATA, "formats", "doccano.jsonl"),) * 2,
    ],
    ids=["conll", "two columns", "hipe", "doccano"],
)
def test_pair_reads_a_path_object_as_its_str(gold, pred):
    """read_pair takes an os.PathLike as its check says: a pathlib.Path reads as its str does."""
    as_path = ner_files.read_pair(Path(gold), None if pred is None else Path(pred))
    assert as_path.compute_inputs() == ner_files.read_pair(gold, pred).compute_inputs()


@pytest.mark.parametrize(
    "text, tokens, tags",
    [
        ("a O\n\n\n\nb B-X\n", [["a"], ["b"]], [["O"], ["B-X"]]),  # several blank lines: one break
        ("a O\n-DOCSTART- O\nb O\n", [["a"], ["b"]], [["O"], ["O"]]),  # no blank line around -DOCSTART-
        ("# sent_id = 1\n# text = a b\na O\nb O\n", [["a", "b"]], [["O", "O"]]),  # CoNLL-U comments
        (
            "a O\n# O\n#tag B-X\n",
            [["a", "#", "#tag"]],
            [["O", "O", "B-X"]],
        ),  # '#' tokens: as many fields as token lines
        ("New York\tB-LOC\n", [["New York"]], [["B-LOC"]]),  # tab-separated: fields may hold spaces
        ("a\tO\r\nb\tO\r\n", [["a", "b"]], [["O", "O"]]),  # Windows line ends
        ("\ufeffa O\n", [["a"]], [["O"]]),  # a byte-order mark
        (
            "a PER-B\nb PER\nc B\n",
            [["a", "b", "c"]],
            [["PER-B", "PER", "B"]],
        ),  # tags are the decoder's to judge
    ],
)
def test_conll_layouts(tmp_path, text, tokens, tags):
    path = write(tmp_path, "x.conll", text)
    s = ner_files.read_conll(path)
    assert (s.tokens, s.columns[0]) == (tokens, tags)


@pytest.mark.parametrize(
    "text, message",
    [
        ("a O\nb X O\n", "x.conll line 2: 3 fields, but the token lines before have 2 (ragged columns)"),
        (
            "a\nb\n",
            "x.conll line 1: 1 field(s), but a token and 1 tag column(s) need 2 (a tag column is missing)",
        ),
        ("", "x.conll: no token lines"),
    ],
)
def test_bad_conll(tmp_path, text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_files.read_conll(write(tmp_path, "x.conll", text))


def test_two_columns_need_three_fields(tmp_path):
    with pytest.raises(
        ValueError,
        match=re.escape(
            "x.conll line 1: 2 field(s), but a token and 2 tag column(s) need 3 (a tag column is missing)"
        ),
    ):
        ner_files.read_two_columns(write(tmp_path, "x.conll", "a O\n"))


@pytest.mark.parametrize(
    "pred, message",
    [
        ("a O\nb O\n\nc O\n\nd O\n", "g.conll has 2 sentences but p.conll has 3"),
        ("a O\n\nc O\n", "sentence 1 has 2 tokens in g.conll (line 1) but 1 in p.conll (line 1)"),
        ("a O\nB O\n\nc O\n", "token 'b' at g.conll line 2 but 'B' at p.conll line 2"),
    ],
)
def test_pairs_that_do_not_match(tmp_path, pred, message):
    gold = write(tmp_path, "g.conll", "a O\nb O\n\nc O\n")
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_files.read_conll_pair(gold, write(tmp_path, "p.conll", pred))


def test_token_check_can_be_skipped(tmp_path):
    gold = write(tmp_path, "g.conll", "(  O\nParis B-LOC\n")
    pred = write(tmp_path, "p.conll", "-LRB- O\nParis B-LOC\n")
    assert ner_files.read_conll_pair(gold, pred, check_tokens=False).tokens == [["(", "Paris"]]


def jsonl(tmp_path, name, examples):
    return write(tmp_path, name, "\n".join(json.dumps(e) for e in examples) + "\n")


def test_jsonl_pair(tmp_path):
    per = {"label": "PER", "start": 0, "end": 1}
    gold = jsonl(
        tmp_path,
        "g.jsonl",
        [{"tokens": ["Anna", "sang"], "entities": [per]}, {"tokens": ["in", "Riga"], "entities": []}],
    )
    pred = jsonl(
        tmp_path,
        "p.jsonl",
        [
            {"tokens": ["Anna", "sang"], "entities": []},
            {"tokens": ["in", "Riga"], "entities": [{"label": "LOC", "start": 1, "end": 2}]},
        ],
    )
    inputs = ner_files.read_pair(gold, pred)
    assert inputs.references == [[{"label": "PER", "start": 0, "end": 1}], []]
    assert inputs.predictions[1] == [{"label": "LOC", "start": 1, "end": 2}]
    assert inputs.where("predictions", 1) == "p.jsonl line 2"


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "g.jsonl line 2: not JSON"),
        ("[1, 2]", "g.jsonl line 2 entity 0: a list of entities is a model's output"),
        ('{"entities": []}', 'g.jsonl line 2: needs "tokens" (a list of str) or "text" (a str)'),
        ('{"text": "ab"}', 'g.jsonl line 2: needs "entities"'),
        (
            '{"text": "ab", "entities": [{"label": "X", "start": 0}]}',
            'g.jsonl line 2 entity 0: needs "label"',
        ),
        (
            '{"text": "ab", "entities": [{"label": "X", "start": 1, "end": 3}]}',
            "g.jsonl line 2 entity 0: start and end must be ints with 0 <= start < end <= 2",
        ),
        (
            '{"text": "ab", "entities": [{"label": "", "start": 0, "end": 1}]}',
            "label must be a non-empty str",
        ),
    ],
)
def test_bad_jsonl(tmp_path, line, message):
    path = write(tmp_path, "g.jsonl", '{"text": "a", "entities": []}\n' + line + "\n")
    with pytest.raises(ValueError, match=re.escape(message)):
        ner_files.read_jsonl(path)


def test_jsonl_pairs_that_do_not_match(tmp_path):
    gold = jsonl(tmp_path, "g.jsonl", [{"text": "ab", "entities": []}])
    with pytest.raises(ValueError, match="example 1 differs: g.jsonl line 1 and p.jsonl line 1"):
        ner_files.read_pair(gold, jsonl(tmp_path, "p.jsonl", [{"text": "abc", "entities": []}]))
    with pytest.raises(ValueError, match="g.jsonl has 1 examples but p.jsonl has 2"):
        ner_files.read_pair(gold, jsonl(tmp_path, "p.jsonl", [{"text": "ab", "entities": []}] * 2))
    with pytest.raises(ValueError, match="g.jsonl is 'jsonl' but pred_a.conll is 'conll': the gold and"):
        ner_files.read_pair(gold, PRED_A)


@pytest.mark.parametrize(
    "files, options, message",
    [
        (
            ("g.conll", "p.conll"),
            {},
            "the files must hold the same tokens (check_tokens=False skips this check)",
        ),
        (("g.jsonl", "p.jsonl"), {}, "hold different tokens or text (check_tokens=False skips this check)"),
        (("g.conll", "g.conll"), {"column": "X"}, "column='X' applies to HIPE TSV files; g.conll is not one"),
        (
            ("g.conll", "g.conll"),
            {"column": "X", "file_format": "conll"},
            "column='X' applies to HIPE TSV files, not to 'conll'",
        ),
        (
            ("g.jsonl", None),
            {"file_format": "jsonl"},
            "file_format='jsonl' reads a gold and a predictions file",
        ),
        (
            ("x.spacy", "g.conll"),
            {},
            "x.spacy is 'spacy' but g.conll is 'conll': the gold and the predictions must be in one format, "
            f"told by their name and content or given as file_format, one of {list(ner_files.FILE_FORMATS)}",
        ),
    ],
)
def test_messages_name_the_keyword_a_python_caller_gives(tmp_path, files, options, message):
    """The readers name an option by its keyword, as the error's side (the command line renames it
    to its flag: tests/test_report_cli.py)."""
    write(tmp_path, "g.conll", "a O\n")
    write(tmp_path, "p.conll", "b O\n")
    (tmp_path / "x.spacy").write_bytes(b"not read: its name tells its format")
    jsonl(tmp_path, "g.jsonl", [{"text": "a", "entities": []}])
    jsonl(tmp_path, "p.jsonl", [{"text": "b", "entities": []}])
    paths = [None if name is None else str(tmp_path / name) for name in files]
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        ner_files.read_pair(*paths, **options)
    assert raised.value.side in message  # type: ignore[attr-defined]


@pytest.mark.parametrize("pred, predicted", [("pred_a.conll", (1, 6)), ("pred_b.conll", (1, 5))])
def test_the_sample_files_capitalisation_buckets(metric, pred, predicted):
    """Counted by hand on the invented samples (the app's Files tab shows these buckets): gold holds
    BREVICOR and HARROWFEN in capitals, Valdorian (twice), Tessarian, Maren Oakhurst and Greyfield
    Council in title case; pred_a misses HARROWFEN and adds Monday, pred_b misses BREVICOR."""
    inputs = ner_files.read_conll_pair(os.path.join(DATA, "gold.conll"), os.path.join(DATA, pred))
    out = metric.compute(
        **inputs.compute_inputs(),
        tokens=inputs.tokens,
        scheme="IOB2",
        mode="strict",
        buckets=["capitalisation"],
    )["buckets"]["capitalisation"]
    assert {b: (r["number"], r["predicted"]) for b, r in out.items()} == {
        "upper": (2, predicted[0]),
        "title": (5, predicted[1]),
    }


def test_metric_messages_point_to_the_file_line(tmp_path, metric):
    gold = write(tmp_path, "g.conll", "a O\n\nb B-PER\nc I-PER\n")
    pred = write(tmp_path, "p.conll", "a O\n\nb B-PER\nc S-PER\n")
    inputs = ner_files.read_conll_pair(gold, pred)
    with pytest.raises(ValueError) as info:
        metric.compute(**inputs.compute_inputs(), scheme="IOB2", mode="strict")
    assert "predictions[1][1]" in str(info.value)
    assert (info.value.side, info.value.sentence, info.value.token) == ("predictions", 1, 1)
    assert ner_files.locate(info.value, inputs) == f"{info.value} (p.conll line 4)"
    assert ner_files.locate(ValueError("predictions[0][0] in the text only"), inputs) == (
        "predictions[0][0] in the text only"
    )  # a place is read from the attributes, never from the text


def test_reading_leaves_the_garbage_collector_as_it_was(tmp_path):
    import gc

    path = write(tmp_path, "x.conll", "a O\n")
    assert gc.isenabled()
    ner_files.read_conll(path)
    assert gc.isenabled()
    gc.disable()
    try:
        ner_files.read_conll(path)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ValueError):
        ner_files.read_conll(write(tmp_path, "y.conll", "a O\nb O O\n"))
    assert gc.isenabled()


# one tag grammar: the decoder judges the tags of a file with the options of the scoring, and the
# reader only locates its errors
TAG_FILES = [
    # (gold, pred, options, message)
    ("a B-PER\nb S-LOC\n\nc U-ORG\n", "a O\nb O\n\nc O\n", {}, "invalid tag 'U-ORG' at references[1][0]"),
    ("a B-PER\nb LOC-B\n", "a O\nb O\n", {}, "invalid tag 'LOC-B' at references[0][1]"),
    ("a B-PER\nb X-LOC\n", "a O\nb O\n", {}, "'X-LOC' at references[0][1]"),
    ("a O\nb O\n", "a O\nb B-\n", {}, "tag 'B-' at predictions[0][1] has an empty entity type"),
    ("a PER\nb O\n", "a PER\nb LOC\n", {"scheme": "IO", "mode": "strict", "suffix": False}, None),
    ("a B\nb I\n", "a B\nb O\n", {}, None),
    ("a PER-B\nb PER-I\n", "a PER-B\nb O\n", {"suffix": True}, None),
]


@pytest.mark.parametrize("gold, pred, options, message", TAG_FILES)
def test_tags_are_judged_by_the_decoder_and_located_in_the_file(tmp_path, gold, pred, options, message):
    from ner_recall.cli import report as ner_report

    inputs = ner_files.read_pair(write(tmp_path, "g.conll", gold), write(tmp_path, "p.conll", pred))
    if message is None:
        results = ner_report.score(inputs, **options)
        assert results["muc"]["strict"]["possible"] >= 1
        return
    line = {"references": "g.conll line", "predictions": "p.conll line"}[
        message.split(" at ")[1].split("[")[0]
    ]
    with pytest.raises(ValueError, match=re.escape(message) + ".*" + re.escape(line)):
        ner_report.score(inputs, **options)


# ---------------------------------------------------------------------------- easy mistakes named


def test_a_conll_2003_file_alone_is_not_scored_against_its_chunk_column(tmp_path):
    path = write(
        tmp_path, "train.txt", "-DOCSTART- -X- -X- O\n\nBREVICOR NNP B-NP B-ORG\nwelcomes VBZ B-VP O\n"
    )
    with pytest.raises(
        ValueError, match=r"train.txt looks like CoNLL-2003 \(token, POS, chunk, NER\).*NP, VP"
    ):
        ner_files.read_pair(path)
    inputs = ner_files.read_pair(path, path)  # as gold and predictions: the NER column, the last
    assert inputs.references == [["B-ORG", "O"]]
    with_predictions = write(tmp_path, "out.txt", "BREVICOR NNP B-NP B-ORG B-LOC\nwelcomes VBZ B-VP O O\n")
    assert ner_files.read_pair(with_predictions).compute_inputs() == {
        "predictions": [["B-LOC", "O"]],
        "references": [["B-ORG", "O"]],
    }


@pytest.mark.parametrize("file_format", [None, *ner_files.FILE_FORMATS])
def test_a_missing_file_is_called_missing(tmp_path, file_format):
    gold, gone = write(tmp_path, "g.conll", "a O\n"), str(tmp_path / "gone.conll")
    for pair in ((gone, gold), (gold, gone)):
        with pytest.raises(ValueError, match="^no such file: " + re.escape(gone) + "$"):
            ner_files.read_pair(*pair, file_format=file_format)
    for reader in (ner_files.read_conll, ner_files.read_jsonl, read_hipe):
        with pytest.raises(ValueError, match="^no such file: "):
            reader(gone)


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"text": "ab", "spans": []}', r"needs \"entities\".*looks like Prodigy \(it has 'spans'\)"),
        ('{"text": "ab", "label": []}', r"needs \"entities\".*looks like doccano \(it has 'label'\)"),
        ('{"data": {"text": "ab"}}', r"needs \"tokens\".*looks like a Label Studio task"),
        ("5", r"an example is a JSON object .*got a JSON number"),
        ("null", r"got a JSON null"),
        ("[" * 100_000 + "]" * 100_000, r"JSON nested too deep to read"),
        ('{"text": "ab", "entities": [], "n": ' + "7" * 5000 + "}", r"not JSON this reader takes"),
        ('[{"label": "PER", "start": 0, "end": 1}]', r"entity 0: a list of entities is a model's output"),
    ],
)
def test_a_jsonl_in_another_shape_is_named_for_what_it_looks_like(tmp_path, line, message):
    gold = write(tmp_path, "g.jsonl", line + "\n")
    with pytest.raises(ValueError, match=r"g.jsonl line 1[: ].*" + message):
        ner_files.read_jsonl(gold)


PIPELINE = [
    [{"entity_group": "PER", "score": 0.9, "word": "anna", "start": 0, "end": 4}],
    [],
]


def test_a_pipelines_own_output_is_read_and_scored(tmp_path):
    from ner_recall.cli import report as ner_report

    gold = jsonl(
        tmp_path,
        "g.jsonl",
        [
            {"text": "Anna sang", "entities": [{"label": "PER", "start": 0, "end": 4}]},
            {"text": "in Riga", "entities": [{"label": "LOC", "start": 3, "end": 7}]},
        ],
    )
    pred = jsonl(tmp_path, "p.jsonl", PIPELINE)
    inputs = ner_files.read_pair(gold, pred)
    assert inputs.predictions == PIPELINE and inputs.compute_inputs()["texts"] == ["Anna sang", "in Riga"]
    results = ner_report.score(inputs)
    assert (results["overall_precision"], results["overall_recall"]) == (1.0, 0.5)
    assert "ranking" in results  # a model's scores are read by the ranking family
    tokens = jsonl(tmp_path, "t.jsonl", [{"tokens": ["Anna"], "entities": []}] * 2)
    with pytest.raises(ValueError, match=r"p.jsonl holds a model's output.*t.jsonl needs \"text\""):
        ner_files.read_pair(tokens, pred)
    with pytest.raises(ValueError, match=r"p.jsonl line 1: a gold example needs \"text\""):
        ner_files.read_pair(pred, gold)
