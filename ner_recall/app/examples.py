"""The examples the tabs offer: the Compare tab's sentences (SemEval-2013's six scenarios as in
Batista's write-up, and harder cases), written out as CoNLL files for the Files and Agreement tabs,
and the Stratified tab's CSV files."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import NamedTuple

from ner_recall.app.common import ROOT, VOCAB, example_dir, metric

#: the published EstNLTK benchmark, present beside the project (not on a Space)
BENCHMARK_CSV = ROOT.parent / "shared" / "benchmarks" / "amundsen_01" / "data_description.csv"


class Case(NamedTuple):
    """One sentence: tokens (may be empty: then unnamed), gold and predicted tags."""

    tokens: list
    gold: list
    pred: list


def _case(tokens: str, gold: str, pred: str) -> Case:
    return Case(tokens.split(), gold.split(), pred.split())


#: name -> Case: the six SemEval-2013 scenarios as in Batista's write-up, two harder cases, all six at once
EXAMPLES = {
    "I. exact match": _case("The patient took phenytoin daily .", "O O O B-DRUG O O", "O O O B-DRUG O O"),
    "II. spurious: predicted, not in gold": _case("The patient is healthy .", "O O O O O", "O O O B-BRAND O"),
    "III. missed: in gold, not predicted": _case("Tikosyn was prescribed .", "B-BRAND O O O", "O O O O"),
    "IV. wrong type, same boundaries": _case("Stop propranolol now .", "O B-DRUG O O", "O B-BRAND O O"),
    "V. same type, overlapping boundaries": _case(
        "The dose of warfarin was lowered .", "O O O B-DRUG O O O", "O O B-DRUG I-DRUG O O O"
    ),
    "VI. wrong type, overlapping boundaries": _case(
        "She stopped oral contraceptives .", "O O O B-GROUP O", "O O B-DRUG I-DRUG O"
    ),
    "La patiente a une fièvre aiguë .": _case(
        "La patiente a une fièvre aiguë .", "O B-PER O B-DIS I-DIS O O", "B-PER B-PER O O B-DIS I-DIS O"
    ),
    "One prediction across two gold entities": _case(
        "Flights to Paris , France leave today .", "O O B-LOC O B-LOC O O O", "O O B-LOC I-LOC I-LOC O O O"
    ),
}
BATISTA_EXAMPLES = list(EXAMPLES)[:6]
FIRST_EXAMPLE = "La patiente a une fièvre aiguë ."
EXAMPLES["All six scenarios in one text"] = Case(
    *(  # the scenarios' sentences one after the other
        [item for name in BATISTA_EXAMPLES for item in getattr(EXAMPLES[name], side)] for side in Case._fields
    )
)


def example_fields(name: str) -> tuple[str, str, str]:
    """The three text boxes of an example: tokens, gold tags, predicted tags."""
    case = EXAMPLES[name]
    return " ".join(case.tokens), " ".join(case.gold), " ".join(case.pred)


def _conll(cases: list[Case], tags: list[list[str]], docstart: bool = False) -> str:
    sentences = ("\n".join(f"{t} {tag}" for t, tag in zip(c.tokens, s)) for c, s in zip(cases, tags))
    return ("-DOCSTART- O\n\n" if docstart else "") + "\n\n".join(sentences) + "\n"


def _cases() -> list[Case]:
    return [case for name, case in EXAMPLES.items() if name != "All six scenarios in one text"]


def example_conll_files() -> tuple[str, str, str]:
    """(gold, predictions, second predictions) CoNLL files of the Compare tab's examples, one
    sentence each; the second system is the first with its errors on the last three sentences fixed."""
    cases = _cases()
    fixed = len(cases) - 3
    sides = {
        "gold.conll": [c.gold for c in cases],
        "system_a.conll": [c.pred for c in cases],
        "system_b.conll": [c.pred for c in cases[:fixed]] + [c.gold for c in cases[fixed:]],
    }
    paths = []
    for name, tags in sides.items():
        (example_dir() / name).write_text(_conll(cases, tags, docstart=True), encoding="utf-8")
        paths.append(str(example_dir() / name))
    return paths[0], paths[1], paths[2]


def example_annotation_files() -> list[str]:
    """Three annotators' CoNLL files of the Compare tab's examples: the gold, the system, and the
    gold with the system's errors on its first three sentences."""
    cases = _cases()
    sides = {
        "annotator_1.conll": [c.gold for c in cases],
        "annotator_2.conll": [c.pred for c in cases],
        "annotator_3.conll": [c.pred for c in cases[:3]] + [c.gold for c in cases[3:]],
    }
    paths = []
    for name, tags in sides.items():
        (example_dir() / name).write_text(_conll(cases, tags), encoding="utf-8")
        paths.append(str(example_dir() / name))
    return paths


# ---------------------------------------------------------------------------- stratified recall

#: a small benchmark-shaped example: subgroup -> (found, not found, occurences, labelled, positive)
SYNTHETIC = {
    "frequent names": (33, 7, 9000, 300, 40),
    "ambiguous names": (3, 9, 8000, 300, 12),
    "rare names": (12, 18, 21000, 300, 30),
}
TAGGED = (  # subgroup, tokens, gold, predicted
    ("news", "Angela Merkel visited Paris .", "B-PER I-PER O B-LOC O", "B-PER I-PER O B-LOC O"),
    ("news", "The UN met in New York .", "O B-ORG O O B-LOC I-LOC O", "O B-ORG O O B-LOC O O"),
    ("news", "Tallinn hosted Estonia 's song festival .", "B-LOC O B-LOC O O O O", "B-LOC O B-ORG O O O O"),
    (
        "clinical",
        "Patient given warfarin by Dr Tamm .",
        "O O B-DRUG O B-PER I-PER O",
        "O O B-DRUG O O B-PER O",
    ),
    ("clinical", "No fever after aspirin .", "O B-DIS O B-DRUG O", "O O O B-DRUG O"),
    ("clinical", "Seen at Tartu University Hospital .", "O O B-ORG I-ORG I-ORG O", "O O B-LOC O O O"),
    ("social", "omg saw taylor swift in tartu", "O O B-PER I-PER O B-LOC", "O O O O O O"),
    ("social", "lunch at kolm sibulat with mari", "O O B-ORG I-ORG O B-PER", "O O O O O B-PER"),
)


def _write_csv(name: str, header: list[str], rows: Sequence) -> str:
    path = example_dir() / name
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([header, *rows])
    return str(path)


def synthetic_example() -> tuple[str, str]:
    rows = [
        [g, "yes" if k < found else "no"]
        for g, (found, missed, *_) in SYNTHETIC.items()
        for k in range(found + missed)
    ]
    sizes = [[g, *counts[2:]] for g, counts in SYNTHETIC.items()]
    return (
        _write_csv("synthetic_entities.csv", ["subgroup", "found"], rows),
        _write_csv("synthetic_sizes.csv", ["subgroup", *VOCAB.SIZE_KEYS], sizes),
    )


def tagged_example() -> tuple[str, str]:
    sizes = [["news", 5], ["clinical", 3], ["social", 2]]
    return (
        _write_csv("tagged_entities.csv", ["subgroup", "tokens", "gold", "predicted"], TAGGED),
        _write_csv("tagged_sizes.csv", ["subgroup", "size"], sizes),
    )


def amundsen_example() -> tuple[str, str]:
    """amundsen_01 from ../shared: which sampled entity the EstNLTK tagger found, and the sizes."""
    data = metric("subgroups").load_benchmark(BENCHMARK_CSV)
    rows = [
        [g, text, "yes" if ok else "no"]
        for g, text, ok in zip(data["subgroup"], data["span_text"], data["correct"])
    ]
    sizes = metric("subgroups").benchmark_sizes(BENCHMARK_CSV)
    keys = VOCAB.SIZE_KEYS
    return (
        _write_csv("amundsen_01_entities.csv", ["subgroup", "entity", "found"], rows),
        _write_csv(
            "amundsen_01_sizes.csv",
            ["subgroup", *keys],
            [[g, *(s[k] for k in keys)] for g, s in sizes.items()],
        ),
    )


STRATIFIED_EXAMPLES = {
    "Synthetic benchmark: three subgroups, found yes/no": synthetic_example,
    "Tagged sentences in three genres": tagged_example,
}
if BENCHMARK_CSV.exists():
    STRATIFIED_EXAMPLES = {
        "amundsen_01: EstNLTK tagger on Estonian place names": amundsen_example,
        **STRATIFIED_EXAMPLES,
    }


def stratified_example_files(name: str) -> tuple[str, str]:
    """(entities CSV, sizes CSV) paths of an example, written to a temporary folder."""
    return STRATIFIED_EXAMPLES[name]()
