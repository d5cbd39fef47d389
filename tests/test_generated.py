"""The generated config: dialects, outcomes, placement, the ladder and bad input."""

import json

import evaluate
import pytest

from conftest import METRIC_PATH
from ner_recall.generated import dialects as D
from ner_recall.generated import scoring as G

TEXT = "Paris Hilton flew to Paris. Then John met Paris Hilton in Rome."
#: the gold: Paris Hilton twice (PER), Paris (LOC) once as a word of its own, John (PER), Rome (LOC)
GOLD = [
    {"label": "PER", "start": 0, "end": 12},
    {"label": "LOC", "start": 21, "end": 26},
    {"label": "PER", "start": 33, "end": 37},
    {"label": "PER", "start": 42, "end": 54},
    {"label": "LOC", "start": 58, "end": 62},
]


@pytest.fixture(scope="module")
def generated():
    return evaluate.load(METRIC_PATH, "generated")


#: one output per dialect, each with its known outcomes in the order of the items
DIALECT_CASES = [
    ("json_list", 'Note [1] [2] [3]: see [{"text": "Rome", "type": "LOC"}]', ["placed"]),
    (
        "json_list",
        '[{"text": "Paris Hilton", "type": "PER"}, {"entity": "Paris", "label": "LOC"}, {"text": "Oslo", "type": "LOC"}]',
        ["placed", "placed", "hallucinated"],
    ),
    (
        "json_list",
        'Here you go:\n```json\n[{"span": "John", "type": "PER"}, {"text": "John", "type": "PER"}, 3]\n```\nDone.',
        ["placed", "duplicate", "unparseable"],
    ),
    (
        "json_list",
        '{"extractions": [{"extraction_text": "Rome", "extraction_class": "LOC", "char_interval": {"start_pos": 58, "end_pos": 62}}]}',
        ["placed"],
    ),
    (
        "json_list",
        "Here: [{'text': 'Rome', 'type': 'LOC'}, {'text': 'rome', 'type': 'LOC'},] ok",
        ["placed", "hallucinated"],
    ),
    (
        "json_list",
        '[{"text": "John", "entity": "PER"}, {"name": "Paris Hilton", "label": "PER"}]',
        ["placed", "placed"],
    ),
    (
        "inline_tags",
        '<entity type="PER">Paris Hilton</entity> flew to <e label="LOC">Paris</e>.',
        ["placed", "placed"],
    ),
    (
        "json_dict",
        '{"PER": ["Paris Hilton", "Paris Hilton", "Paris Hilton"], "DATE": ["Then"]}',
        ["placed", "placed", "duplicate", "off_schema"],
    ),
    ("uniner", {"PER": '["John", "Paris Hilton"]', "LOC": '["Rome"]'}, ["placed", "placed", "placed"]),
    (
        "lines",
        "Entities:\nPER: Paris Hilton\n- LOC: Paris\nLOC: Rome\nPER: Nobody",
        ["placed", "placed", "placed", "hallucinated"],
    ),
    (
        "lines",
        "Found:\nPER: John\nLOC - Rome\n\nLOC: Rome\nThat is all.",
        ["placed", "unparseable", "placed"],
    ),
    (
        "inline_tags",
        "<PER>Paris Hilton</PER> flew to <LOC>Paris</LOC>. Then <PER>John</PER> met Paris Hilton in Rome.",
        ["placed", "placed", "placed"],
    ),
    (
        "markdown",
        "[Paris Hilton](PER) flew to [Paris](LOC). Then John met [Paris Hilton](PER) in [Rome](LOC).",
        ["placed", "placed", "placed", "placed"],
    ),
    (
        "gner",
        "Paris(B-PER) Hilton(I-PER) flew(O) to(O) Paris(B-LOC) .(O) Then(O) John(B-PER)",
        ["placed", "placed", "placed"],
    ),
    (
        "gollie",
        '[PER(span="Paris Hilton"), LOC(span="Paris"), PER(span=open("x")), Vehicle(span="Rome")]',
        ["placed", "placed", "unparseable", "off_schema"],
    ),
]


@pytest.mark.parametrize("dialect, output, outcomes", DIALECT_CASES)
def test_each_dialect_read_auto_and_named(dialect, output, outcomes):
    for fmt in ("auto", dialect):
        listing = G.generated_outcomes([output], [TEXT], types=["PER", "LOC"], output_format=fmt)
        assert [o["outcome"] for o in listing[0]] == outcomes
        assert D.read_output(output, fmt).dialect in (dialect, "json_dict")


@pytest.mark.parametrize("output", ["", "No entities found.", "[{]", 42, None, "x" * (D.MAX_OUTPUT + 1)])
def test_an_output_no_dialect_reads_is_unparseable_and_counted(generated, output):
    result = generated.compute(predictions=[output], references=[GOLD], texts=[TEXT])
    counts = result["generated"]["counts"]
    assert counts == {
        "placed": 0,
        "hallucinated": 0,
        "duplicate": 0,
        "off_schema": 0,
        "unparseable": 1,
        "items": 1,
    }
    assert result["overall_recall"] == 0.0


def test_a_named_dialect_that_does_not_read_the_output_leaves_it_unparseable():
    listing = G.generated_outcomes(["PER: John"], [TEXT], output_format="gollie")
    assert [o["outcome"] for o in listing[0]] == ["unparseable"]
    assert "gollie" in listing[0][0]["detail"]


def test_places_are_offsets_of_the_strings():
    markdown = next(case[1] for case in DIALECT_CASES if case[0] == "markdown")
    listing = G.generated_outcomes([markdown], [TEXT], types=["PER", "LOC"])
    for o in listing[0]:
        for start, end in o["places"]:
            assert TEXT[start:end] == o["text"]
    assert [o["places"] for o in listing[0]] == [[[0, 12]], [[21, 26]], [[42, 54]], [[58, 62]]]


PLACEMENT_CASES = [
    # (text, strings in the list's order, placement, expected starts or None)
    ("Paris Hilton flew to Paris", ["Paris Hilton", "Paris"], "order", [0, 21]),
    ("Paris Hilton flew to Paris", ["Paris Hilton", "Paris"], "first", [0, 0]),
    ("Paris flew to Paris Hilton", ["Paris", "Paris Hilton"], "order", [0, 14]),
    ("a b a b a", ["b", "a", "a"], "order", [2, 4, 8]),
    ("a b a", ["b", "a", "a"], "order", [2, 4, 0]),
    ("a b", ["b", "a", "a"], "order", [2, 0, None]),
    ("York and New York and York", ["New York", "York", "York"], "order", [9, 22, 0]),
    ("x y x", ["y", "x", "x"], "order", [2, 4, 0]),
    ("x y x", ["y", "x", "x"], "first", [2, 0, 4]),
    ("Peter Peters met Peter", ["Peter", "Peter", "Peter"], "order", [0, 17, None]),
]


@pytest.mark.parametrize("text, strings, placement, starts", PLACEMENT_CASES)
def test_placement(text, strings, placement, starts):
    output = [{"text": s, "type": "X"} for s in strings]
    listing = G.generated_outcomes([output], [text], placement=placement)[0]
    got = [o["places"][0][0] if o["places"] else None for o in listing]
    assert got == starts
    assert [o["outcome"] for o in listing] == ["placed" if s is not None else "duplicate" for s in starts]


def test_every_places_a_string_on_all_its_occurrences_once():
    output = [{"text": "Paris", "type": "LOC"}, {"text": "Paris", "type": "LOC"}]
    listing = G.generated_outcomes([output], [TEXT], placement="every")[0]
    assert [o["outcome"] for o in listing] == ["placed", "duplicate"]
    assert listing[0]["places"] == [[0, 5], [21, 26], [42, 47]]


def test_offsets_are_checked_and_used(generated):
    good = [
        {"text": "Rome", "type": "LOC", "start": 58, "end": 62},
        {"text": "Rome", "type": "LOC", "start": 0, "end": 4},
    ]
    listing = G.generated_outcomes([good], [TEXT], placement="offsets")[0]
    assert [(o["outcome"], o["places"]) for o in listing] == [("placed", [[58, 62]]), ("hallucinated", [])]
    bad = [{"text": "Rome", "type": "LOC", "start": 58, "end": 99}]
    with pytest.raises(ValueError, match=r"predictions\[0\] item 0 'Rome': offsets \[58, 99\) are outside"):
        generated.compute(predictions=[bad], references=[GOLD], texts=[TEXT], placement="offsets")


@pytest.mark.parametrize("case", range(len(DIALECT_CASES)))
def test_counts_add_up_to_the_items_read(generated, case):
    _, output, outcomes = DIALECT_CASES[case]
    result = generated.compute(predictions=[output, output], references=[GOLD, GOLD], texts=[TEXT, TEXT])
    counts = result["generated"]["counts"]
    assert counts["items"] == 2 * len(outcomes) == sum(counts[k] for k in G.ITEM_OUTCOMES)


def test_label_map_comes_before_the_schema(generated):
    output = '[{"text": "Rome", "type": "City"}]'
    without = generated.compute(predictions=[output], references=[GOLD], texts=[TEXT])
    mapped = generated.compute(
        predictions=[output], references=[GOLD], texts=[TEXT], label_map={"City": "LOC"}
    )
    assert without["generated"]["counts"]["off_schema"] == 1
    assert mapped["generated"]["counts"]["placed"] == 1 and mapped["LOC"]["precision"] == 1.0


def test_types_is_the_schema(generated):
    output = '[{"text": "Rome", "type": "LOC"}, {"text": "John", "type": "PER"}]'
    result = generated.compute(predictions=[output], references=[GOLD], texts=[TEXT], types=["LOC"])
    assert result["generated"]["counts"]["off_schema"] == 1
    assert set(result) >= {"LOC"} and "PER" not in result


def test_a_perfect_list_in_reading_order_scores_one(generated):
    output = [{"text": TEXT[e["start"] : e["end"]], "type": e["label"]} for e in GOLD]
    result = generated.compute(predictions=[json.dumps(output)], references=[GOLD], texts=[TEXT])
    assert result["overall_f1"] == 1.0
    first = generated.compute(
        predictions=[json.dumps(output)], references=[GOLD], texts=[TEXT], placement="first"
    )
    assert first["overall_f1"] < 1.0  # "Paris" taken inside the first "Paris Hilton"


def test_the_ladder_levels_and_gains(generated):
    output = json.dumps(
        [
            {"text": "paris hilton", "type": "PER"},
            {"text": "PARIS", "type": "LOC"},
            {"text": "Jon", "type": "PER"},
        ]
    )
    result = generated.compute(
        predictions=[output] * 4,
        references=[GOLD] * 4,
        texts=[TEXT] * 4,
        matching=["exact", "normalized", "fuzzy"],
        fuzzy_threshold=0.8,
        ci_resamples=200,
    )
    ladder = result["ladder"]
    assert [ladder[k]["counts"]["placed"] for k in ("exact", "normalized", "fuzzy")] == [0, 8, 12]
    assert ladder["exact"]["overall_f1"] < ladder["normalized"]["overall_f1"] < ladder["fuzzy"]["overall_f1"]
    gains = {(g["to"], g["score"]): g for g in result["ladder_gains"]}
    gain = gains[("fuzzy", "overall_f1")]
    assert gain["difference"] == pytest.approx(
        ladder["fuzzy"]["overall_f1"] - ladder["normalized"]["overall_f1"]
    )
    assert gain["low"] <= gain["difference"] <= gain["high"]
    assert result["overall_f1"] == ladder["fuzzy"]["overall_f1"]


@pytest.mark.parametrize(
    "steps, found",
    [
        (["case"], False),
        (["case", "punctuation"], False),
        (["case", "punctuation", "space"], True),
        (["nfkc", "case", "punctuation", "articles", "space"], True),
    ],
)
def test_each_normalization_step_is_an_option(steps, found):
    output = [{"text": "the  paris-HILTON", "type": "PER"}]
    listing = G.generated_outcomes([output], ["The Paris Hilton."], matching="normalized", normalize=steps)[0]
    assert (listing[0]["outcome"] == "placed") == found


def test_the_span_families_work_on_placed_spans(generated):
    output = '[{"text": "Paris Hilton", "type": "PER"}, {"text": "Paris", "type": "PER"}]'
    result = generated.compute(
        predictions=[output], references=[GOLD], texts=[TEXT], scores=["seqeval", "muc"], errors=True
    )
    assert result["muc"]["strict"]["correct"] == 1 and "errors" in result
    assert result["muc"]["type"]["correct"] == 1


def test_gold_as_tags_with_tokens(generated):
    tokens = [["John", "Smith", "met", "Ann"]]
    result = generated.compute(
        predictions=["PER: John Smith\nPER: Ann"],
        references=[["B-PER", "I-PER", "O", "B-PER"]],
        tokens=tokens,
    )
    assert result["overall_f1"] == 1.0


@pytest.mark.parametrize(
    "options, words",
    [
        ({"texts": [3]}, r"texts\[0\] must be a str"),
        ({"texts": [TEXT], "output_format": "yaml"}, "output_format must be 'auto' or one of"),
        ({"texts": [TEXT], "placement": "best"}, "placement must be one of"),
        ({"texts": [TEXT], "matching": "loose"}, "matching must be one of"),
        ({"texts": [TEXT], "normalize": ["case"]}, "normalize changes nothing here"),
        ({"texts": [TEXT], "fuzzy_threshold": 0.5}, "fuzzy_threshold changes nothing here"),
        (
            {"texts": [TEXT], "matching": "fuzzy", "fuzzy_threshold": 2},
            r"fuzzy_threshold must be a number in \(0, 1\]",
        ),
        ({"texts": [TEXT], "convention": "spacy"}, "convention must be one of"),
        ({"texts": [TEXT], "bogus": 1}, "unknown compute option 'bogus'"),
        ({}, "needs texts="),
    ],
)
def test_bad_input_is_named(generated, options, words):
    with pytest.raises(ValueError, match=words):
        generated.compute(predictions=["PER: John"], references=[GOLD], **options)
    assert (
        generated.compute(predictions=["PER: John"], references=[GOLD], texts=[TEXT])["overall_precision"]
        == 1.0
    )


def test_the_other_configs_refuse_the_generated_options():
    spans = evaluate.load(METRIC_PATH, "spans")
    with pytest.raises(ValueError, match="placement needs the 'generated' config"):
        spans.compute(predictions=[[]], references=[[]], placement="first")


def test_model_output_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    output = f'[PER(span=__import__("pathlib").Path({str(marker)!r}).touch())]'
    for fmt in ("auto", "gollie"):
        G.generated_outcomes([output], [TEXT], output_format=fmt)
    assert not marker.exists()


def test_read_generated_names_file_and_line(generated, tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"text": TEXT, "output": "PER: John", "entities": GOLD}) + "\n\n")
    inputs = generated.read_generated(str(path))
    assert generated.compute(**inputs)["overall_precision"] == 1.0
    path.write_text(json.dumps({"text": TEXT, "output": "x"}) + "\n{oops\n")
    with pytest.raises(ValueError, match=r"out.jsonl, line 2: not JSON"):
        generated.read_generated(str(path))


def test_the_fast_path_gives_what_the_general_path_gives():
    """``plain_list_in_order`` (no Outcome per item) against ``place_document`` on random lists."""
    import random

    rng = random.Random(0)
    words = ["Paris", "Paris Hilton", "York", "New York", "Ann", "Oslo", " Ann ", "ann"]
    text = "Paris Hilton met Ann in New York . Ann went to Paris and York , then Paris Hilton left ."
    checked = 0
    for _ in range(400):
        items = [
            {"text": rng.choice(words), "type": rng.choice(["PER", "LOC", "MISC"])}
            for _ in range(rng.randint(0, 7))
        ]
        output = json.dumps(items)
        fast = G.plain_list_in_order(output, text, {"PER", "LOC"})
        outcomes = G.place_document(text, D.read_output(output), {"PER", "LOC"}, G.Settings())
        counts = G.outcome_counts([outcomes])
        if fast is not None:
            checked += 1
            assert fast[0] == (counts["placed"], counts["hallucinated"], counts["off_schema"])
            assert fast[1] == G.placed_spans([outcomes])[0]
    assert checked > 100


def test_the_docs_page_runs(monkeypatch):
    """Every example of docs/generated.md runs, and its table is bench/generated.md's."""
    import doctest
    import os
    import re

    from conftest import ROOT

    monkeypatch.chdir(ROOT)
    failed, attempted = doctest.testfile(
        os.path.join(ROOT, "docs", "generated.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert attempted > 20 and failed == 0
    with open(os.path.join(ROOT, "docs", "generated.md"), encoding="utf-8") as handle:
        block = re.search(r"<!-- generated -->\n(.*?)<!-- /generated -->", handle.read(), re.DOTALL).group(1)
    with open(os.path.join(ROOT, "bench", "generated.md"), encoding="utf-8") as handle:
        bench = handle.read()
    tables = [line for line in bench.splitlines() if line.startswith("|")]
    assert [line for line in block.splitlines() if line.startswith("|")] == tables


def test_streaming_is_refused_clearly_and_datasets_columns_read(generated):
    datasets = pytest.importorskip("datasets")
    with pytest.raises(ValueError, match="one compute call; add_batch is not offered"):
        generated.add_batch(predictions=["PER: John"], references=[GOLD])
    with pytest.raises(ValueError, match="one compute call; add is not offered"):
        generated.add(prediction="PER: John", reference=GOLD)
    table = datasets.Dataset.from_dict({"output": ["PER: John"], "text": [TEXT], "gold": [GOLD]})
    result = generated.compute(predictions=table["output"], references=table["gold"], texts=table["text"])
    assert result["overall_precision"] == 1.0


def test_intervals_slices_and_document_scores_on_placed_spans(generated):
    output = '[{"text": "Paris Hilton", "type": "PER"}, {"text": "Rome", "type": "LOC"}]'
    result = generated.compute(
        predictions=[output, "PER: John"],
        references=[GOLD, GOLD],
        texts=[TEXT, TEXT],
        ci_resamples=50,
        slices={"source": ["web", "news"]},
        document_ids=["a", "b"],
    )
    low, high = result["intervals"]["overall_recall"]
    assert low <= result["overall_recall"] <= high
    assert set(result["slices"]["source"]["values"]) == {"web", "news"}
    assert result["slices"]["source"]["values"]["news"]["overall_precision"] == 1.0


def test_fuzzy_finds_a_misspelt_name_and_not_a_stranger():
    output = [{"text": "Paris Hilten", "type": "PER"}, {"text": "Zanzibar", "type": "LOC"}]
    listing = G.generated_outcomes([output], [TEXT], matching="fuzzy", fuzzy_threshold=0.85)[0]
    assert [(o["outcome"], o["places"]) for o in listing] == [("placed", [[0, 12]]), ("hallucinated", [])]


def test_a_convention_reads_types_and_label_map(generated):
    output = '[Person(span="Paris Hilton"), City(span="Rome"), Person(span="Nobody")]'
    result = generated.compute(
        predictions=[output],
        references=[GOLD],
        texts=[TEXT],
        convention="gollie",
        label_map={"Person": "PER", "City": "LOC"},
        types=["PER", "LOC"],
    )
    assert result["counts"] == {"correct": 2, "predicted": 2, "gold": 5}


def test_inline_offsets_are_kept_only_when_the_text_is_the_documents():
    same = "<PER>Paris Hilton</PER> flew to <LOC>Paris</LOC>. Then John met Paris Hilton in Rome."
    other = "Then <PER>Paris Hilton</PER> flew to <LOC>Paris</LOC>."
    for output, places in ((same, [[[0, 12]], [[21, 26]]]), (other, [[[0, 12]], [[0, 5]]])):
        listing = G.generated_outcomes([output], [TEXT], placement="offsets")[0]
        assert [o["places"] for o in listing] == places  # "other": its first free occurrences
    items = D.offsets_on(D.read_output(other), TEXT)
    assert [(i.start, i.end) for i in items] == [(None, None), (None, None)]
