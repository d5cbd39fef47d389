"""EstNLTK's default NER tagger reproduces the published leaderboard rows through the metric.

Slow (about 3 minutes: the tagger runs on 2220 sentences, then 535 again); needs
``requirements-estnltk.txt``, skipped without it outside CI.
"""

import csv
import io
import os
import subprocess
import sys

import pytest
from seqeval.metrics.sequence_labeling import get_entities

from conftest import ROOT, benchmark_csv, require
from conftest import SHARED_BENCHMARKS as SHARED

EXAMPLES = os.path.join(ROOT, "examples")
SCRIPT = os.path.join(EXAMPLES, "reproduce_estnltk_leaderboard.py")

PUBLISHED = {  # recall, ci_low, ci_high, correct, incorrect (estnltk-model-data leaderboards)
    "amundsen_01": (0.5892016803782091, 0.5442531601445354, 0.6341502006118828, 344, 191),
    "amundsen_02": (0.5863719147123075, 0.5556871420680223, 0.6170566873565928, 775, 910),
}
STRATA = {  # (rows, correct); amundsen_01's from its files' `correct` column, amundsen_02's from this run
    "amundsen_01": {"levinumad": (350, 266), "mitmetahenduslikud": (13, 1), "ulejaanud": (172, 77)},
    "amundsen_02": {
        "A": (85, 42),
        "D": (6, 0),
        "G": (576, 213),
        "H": (773, 490),
        "I": (23, 9),
        "N": (5, 0),
        "S": (97, 21),
        "Y": (116, 0),
        "Z": (4, 0),
    },
}


@pytest.fixture(scope="module")
def prerequisites():
    require("estnltk", "pip install -r requirements-estnltk.txt")
    benchmark_csv("amundsen_01"), benchmark_csv("amundsen_02")


@pytest.fixture(scope="module")
def reproduction(prerequisites, tmp_path_factory):
    strata = tmp_path_factory.mktemp("reproduction") / "strata.csv"
    run = subprocess.run(
        [sys.executable, SCRIPT, "--benchmarks-dir", SHARED, "--strata", str(strata)],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    with open(strata, encoding="utf-8") as f:
        return run.stdout, list(csv.DictReader(f))


def test_output_is_csv_with_header(reproduction):
    lines = reproduction[0].splitlines()
    assert lines[0] == "benchmark,model,recall,ci_low,ci_high,correct,incorrect"
    assert [line.split(",")[:2] for line in lines[1:]] == [
        [name, "EstNLTK-default-NER"] for name in PUBLISHED
    ]


@pytest.mark.parametrize("benchmark", sorted(PUBLISHED))
def test_published_row(reproduction, benchmark):
    rows = {row["benchmark"]: row for row in csv.DictReader(io.StringIO(reproduction[0]))}
    row = rows[benchmark]
    recall, ci_low, ci_high, correct, incorrect = PUBLISHED[benchmark]
    assert abs(float(row["recall"]) - recall) <= 1e-12
    assert abs(float(row["ci_low"]) - ci_low) <= 1e-6
    assert abs(float(row["ci_high"]) - ci_high) <= 1e-6
    assert (int(row["correct"]), int(row["incorrect"])) == (correct, incorrect)


@pytest.mark.parametrize("benchmark", sorted(STRATA))
def test_per_population_counts(reproduction, benchmark):
    found = {
        row["subgroup"]: (int(row["n"]), int(row["correct"]))
        for row in reproduction[1]
        if row["benchmark"] == benchmark
    }
    assert found == STRATA[benchmark]


def test_amundsen_01_rows_agree_with_correct_column(prerequisites):
    """Row by row: found (exact offsets and label on the aligned grid) == the file's `correct`."""
    sys.path.insert(0, EXAMPLES)
    from estnltk_tagger import EstnltkNer, tag_dataset

    from ner_recall.readers.benchmarks import load_benchmark

    data = load_benchmark(os.path.join(SHARED, "amundsen_01", "data_description.csv"))
    tagged = tag_dataset(data, EstnltkNer())
    found = [
        get_entities(ref)[0] in get_entities(pred)
        for ref, pred in zip(tagged["references"], tagged["predictions"])
    ]
    disagree = [(e["subgroup"], e["row"]) for e, f in zip(data, found) if f != e["correct"]]
    assert disagree == [] and sum(found) == 344
