"""docs/glossary.md names each quantity's key in every family: each key named there is in its
family's table, and a renamed key still reads, with a FutureWarning, under its old name."""

import json
import os
import warnings

import evaluate
import pytest

from conftest import METRIC_PATH, ROOT
from ner_recall.core import vocabulary as ner_core

REFERENCES = [
    [
        {"label": "ORG:SUB", "start": 0, "end": 2, "attributes": {"gender": "M"}},
        {"label": "PER", "start": 3, "end": 4},
    ],
    [{"label": "LOC", "start": 1, "end": 3}],
]
PREDICTIONS = [
    [
        {"label": "ORG:SUB", "start": 0, "end": 2, "score": 0.9, "attributes": {"gender": "F"}},
        {"label": "LOC", "start": 3, "end": 4, "score": 0.4},
    ],
    [
        {"label": "LOC", "start": 1, "end": 2, "score": 0.7},
        {"label": "PER", "start": 4, "end": 5, "score": 0.2},
    ],
]
SCORES = ["seqeval", "muc", "token", "overlap", "harem", "ranking"]


@pytest.fixture(scope="module")
def tables():
    """Each family's table, as the glossary says where it is."""
    spans = evaluate.load(METRIC_PATH, "spans")
    r = spans.compute(
        predictions=PREDICTIONS,
        references=REFERENCES,
        scores=SCORES,
        type_separator=":",
        buckets=["entity_length"],
        document_ids=["a", "b"],
    )
    fragments = [[{"label": "PER", "start": 0, "end": 4, "fragments": [[0, 1], [3, 4]]}]]
    disc = spans.compute(predictions=fragments, references=fragments)
    stratified = evaluate.load(METRIC_PATH, "spans_subgroups").compute(
        predictions=[[{k: v for k, v in e.items() if k != "score"} for e in p] for p in PREDICTIONS],
        references=REFERENCES,
        subgroups=["x", "y"],
    )
    return {
        "seqeval": r["LOC"],
        "muc": r["muc"]["strict"],
        "token": r["token"],
        "overlap": r["overlap"],
        "harem": r["harem"],
        "buckets": next(iter(r["buckets"]["entity_length"].values())),
        "attributes": r["attributes"]["overall"],
        "hierarchy": r["hierarchy"]["absolute"]["types"],
        "discontinuous": disc["discontinuous"],
        "ranking": r["ranking"]["strict"],
        "documents": r["documents"]["strict"],
        "stratified_recall": stratified["stratified_recall"],
    }


def glossary():
    """(quantity, family, key) of every cell of the glossary's table that names a key."""
    with open(os.path.join(ROOT, "docs", "glossary.md"), encoding="utf-8") as f:
        text = f.read()
    block = text.split("<!-- glossary -->\n")[1].split("\n<!-- /glossary -->")[0].splitlines()
    header = [cell.strip() for cell in block[0].strip("|").split("|")]
    cells = []
    for line in block[2:]:
        row = [cell.strip() for cell in line.strip("|").split("|")]
        cells += [(row[0], family, key.strip("`")) for family, key in zip(header[1:], row[1:]) if key != "—"]
    return header[1:], cells


FAMILIES, CELLS = glossary()


def test_the_glossary_has_a_column_for_every_family_and_a_row_per_quantity():
    assert len(FAMILIES) == len(set(FAMILIES)) == 12
    assert {"gold items (the recall's denominator)", "precision", "recall"} <= {q for q, _, _ in CELLS}


@pytest.mark.parametrize("quantity, family, key", CELLS, ids=[f"{f}-{k}" for _, f, k in CELLS])
def test_each_key_of_the_glossary_is_in_its_family_table(tables, quantity, family, key):
    table = tables[family]
    for part in key.split("."):
        assert part in table, f"{family} has no {key!r} ({quantity}); it has {sorted(table)}"
        table = table[part]


def test_one_name_for_the_gold_count_where_items_are_counted(tables):
    """Every family that counts gold items calls them ``number`` (MUC, HAREM and the stratified
    recall keep their published names: docs/glossary.md, "Kept on purpose")."""
    counted = [f for _, f, k in CELLS if k == "number"]
    assert set(counted) == set(FAMILIES) - {"muc", "harem", "documents", "stratified_recall"}
    for family in counted:
        assert "gold" not in tables[family] and "predictions" not in tables[family]


@pytest.mark.parametrize(
    "family, old, new",
    [
        ("attributes", "gold", "number"),
        ("hierarchy", "gold", "number"),
        ("ranking", "predictions", "predicted"),
    ],
)
def test_a_renamed_key_reads_under_its_old_name_with_a_future_warning(tables, family, old, new):
    table = tables[family]
    with pytest.warns(FutureWarning, match=f"{old!r} is now {new!r}"):
        assert table[old] == table[new]
    with pytest.warns(FutureWarning):
        assert table.get(old) == table[new]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert table.get("nothing", 7) == 7 and old not in table
        with pytest.raises(KeyError):
            table["nothing"]
    assert json.loads(json.dumps(table)) == dict(table)  # JSON holds the new key only
    assert all(
        type(v) in (int, float, str, list, dict, type(None)) or isinstance(v, dict) for v in table.values()
    )


def test_the_version_went_up_with_the_rename():
    import ner_recall

    assert ner_recall.__version__ == "1.1.0"
    assert set(ner_core.RENAMED_KEYS.items()) == {("gold", "number"), ("predictions", "predicted")}
