"""Parity with HIPE-scorer (CLEF-HIPE's scorer) on its own unit-test files and reference results.

``tests/data/hipe/`` holds the scorer's NER unit-test TSV files, the reference results its tests
compare against (``*_ref_results.json``), and the HIPE-2022 tag set, from the public repository
hipe-eval/HIPE-scorer (MIT license, ``tests/data/hipe/LICENSE``). Each case reads the files with
``ner_files.read_hipe_pair`` and scores them with ``compute``; every micro count and score (correct,
incorrect, partial, missed, spurious, possible, actual, P, R, F1) of every mode (HIPE's ``strict``,
``exact``, ``partial``, ``ent_type`` are our ``strict``, ``exact``, ``partial``, ``type``), overall
and per type, must equal the reference, and so must the document-level macro scores
(``P_macro_doc``... and their ``_std``) where HIPE-scorer's own tests check them (the two-document
file; its single-document references are not checked by its tests and hold stale macro values), to
HIPE-scorer's own tolerance (7 decimals: some references are rounded to 8).

HIPE-scorer ignores predicted types that are not gold types (or, given a tag set, not in it); the
cases pass the same types with ``types=``. One documented difference (docs/slices.md): a prediction
of the wrong type over a gold entity's exact span (type substitution) counts, per type, under the
prediction's type for us (as seqeval and conlleval count it), under the gold entity's type for
HIPE-scorer. ``DIFFERENCES`` lists every reference value this changes; the test pins them.
"""

import json
import math
import os

import pytest

from conftest import ROOT
from ner_recall.readers import files as ner_files
from ner_recall.readers.hipe import read_hipe

DATA = os.path.join(ROOT, "tests", "data", "hipe")
MODES = {"strict": "strict", "exact": "exact", "partial": "partial", "ent_type": "type"}
MICRO = {"P_micro": "precision", "R_micro": "recall", "F1_micro": "f1"}
COUNTS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")
MACRO = {"P_macro_doc": "precision", "R_macro_doc": "recall", "F1_macro_doc": "f1"}
with open(os.path.join(DATA, "tagset-hipe2022-all.txt")) as f:
    TAGSET = {line.strip() for line in f if line.strip()}

# name, gold file, column, reference file, tag set given, scheme, merge_lines, macro checked
CASES = [
    ("ner-1", "unittest-ner-1", "NE-COARSE-LIT", ".ner-coarse-lit_ref_results.json", True, None, False, False),
    ("ner-2-coarse", "unittest-ner-2", "NE-COARSE-LIT", ".coarse-lit_ref_results.json", False, None, False, False),
    ("ner-2-iobes", "unittest-ner-2-IOBES", "NE-COARSE-LIT", ".coarse-lit_ref_results.json", False, "IOBES", False, False),
    ("ner-2-nested", "unittest-ner-2", "NE-NESTED", ".nested_ref_results.json", True, None, False, False),
    ("ner-2-fine", "unittest-ner-2", "NE-FINE-LIT", ".fine-lit_ref_results.json", True, None, False, False),
    ("lit-coarse-3", "unittest-ner-lit-coarse-3", "NE-COARSE-LIT", ".ref_results.json", False, None, False, False),
    ("lit-coarse-4", "unittest-ner-lit-coarse-4", "NE-COARSE-LIT", ".ref_results.json", True, None, False, False),
    ("bundle3-fine", "unittest-true_bundle3_de_1", "NE-FINE-LIT", "ref_results_nerc_fine_all.json", False, None, True, True),
]  # fmt: skip

# (case, gold type, mode, key): (HIPE-scorer's value, ours); a type substitution on the gold type
SUBSTITUTED = {"ner-2-fine": "PERS.IND", "lit-coarse-4": "ORG"}
DIFFERENCES = {
    (case, kind, mode, key): values
    for case, kind in SUBSTITUTED.items()
    for mode in MODES
    for key, values in {
        "actual": (1, 0),
        # a type-substituted prediction is right in the exact and partial modes, wrong in the others
        "P_micro": (1.0, 0.0) if mode in ("exact", "partial") else None,
        "F1_micro": (1.0, 0.0) if mode in ("exact", "partial") else None,
    }.items()
    if values is not None
}


def paths(gold):
    if "bundle3" in gold:
        return os.path.join(DATA, gold + ".tsv"), os.path.join(DATA, gold.replace("true", "pred") + ".tsv")
    return os.path.join(DATA, gold + "-true.tsv"), os.path.join(DATA, gold + "-pred.tsv")


def entity_types(tags):
    return {tag[2:] for sentence in tags for tag in sentence if tag != "O"}


def reference(gold, suffix):
    name = suffix if "bundle3" in gold else os.path.basename(paths(gold)[1]) + suffix
    with open(os.path.join(DATA, name)) as f:
        ref = json.load(f)
    if "strict" in ref:  # the 2020 layout: mode -> type; the 2022 one: type -> mode
        ref = {kind: {mode: ref[mode][kind] for mode in ref} for kind in ref["strict"]}
    return ref


def ours_for(results, kind, mode):
    """Our micro table and macro_doc table of one type (``ALL``: overall) and HIPE mode."""
    muc, docs = results["muc"][MODES[mode]], results["documents"][MODES[mode]]
    if kind == "ALL":
        return muc, docs
    return muc["per_type"][kind.lower()], docs["per_type"].get(kind.lower())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hipe_scorer_reference_results(metric, case):
    name, gold, column, suffix, tagset, scheme, merge_lines, macro = case
    inputs = ner_files.read_hipe_pair(*paths(gold), column=column, merge_lines=merge_lines)
    gold_types = entity_types(inputs.references)
    types = gold_types | (entity_types(inputs.predictions) & TAGSET if tagset else set())
    options = {"scheme": scheme, "mode": "strict"} if scheme else {}
    results = metric.compute(**inputs.compute_inputs(), scores=["muc"], types=sorted(types), **options)
    compared = differences = 0
    for kind, modes in reference(gold, suffix).items():
        for mode, values in modes.items():
            micro, docs = ours_for(results, kind, mode)
            for key, expected in values.items():
                base, std = (key[:-4], "_std") if key.endswith("_std") else (key, "")
                if key in COUNTS or key in MICRO:
                    got = micro[MICRO.get(key, key)]
                elif base in MACRO and macro:
                    got = docs[MACRO[base] + std]
                else:
                    continue
                where = f"{name}: {kind} {mode} {key}"
                if (name, kind, mode, key) in DIFFERENCES:
                    assert (expected, got) == DIFFERENCES[(name, kind, mode, key)], where
                    differences += 1
                elif expected is None or got is None:
                    assert expected is got, f"{where}: HIPE-scorer {expected}, ours {got}"
                else:
                    assert math.isclose(got, expected, abs_tol=1e-7), (
                        f"{where}: HIPE-scorer {expected}, ours {got}"
                    )
                compared += 1
    assert compared >= 40
    assert differences == sum(1 for key in DIFFERENCES if key[0] == name)


def test_hipe_structure_as_the_scorer_reads_it():
    """HIPE-scorer's own test counts: 2 documents, 21 segments, 129 tokens (merge_lines off)."""
    f = read_hipe(paths("unittest-true_bundle3_de_1")[0], "NE-FINE-LIT")
    assert (len(set(f.document_ids)), len(f.tokens), sum(map(len, f.tokens))) == (2, 21, 129)
    merged = read_hipe(paths("unittest-true_bundle3_de_1")[0], "NE-FINE-LIT", merge_lines=True)
    assert len(merged.tokens) == 2 and merged.document_ids == sorted(set(f.document_ids), reverse=True)
    for gold, tokens in (("unittest-ner-lit-coarse-3", 37), ("unittest-ner-lit-coarse-4", 24)):
        f = read_hipe(paths(gold)[0])
        assert (len(f.tokens), sum(map(len, f.tokens))) == (1, tokens)


def test_hipe_reader_errors_name_file_and_line(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("TOKEN\tNE-COARSE-LIT\n# hipe2022:document_id = a\nAnna\tB-pers\nsang\n")
    with pytest.raises(ValueError, match=r"gold.tsv line 4: no NE-COARSE-LIT field"):
        read_hipe(str(gold))
    gold.write_text("TOKEN\tNE-COARSE-LIT\n# hipe2022:document_id = a\nAnna\tB-pers\nsang\tO\n")
    pred = tmp_path / "pred.tsv"
    pred.write_text("TOKEN\tNE-COARSE-LIT\n# hipe2022:document_id = b\nAnna\tB-pers\nsang\tO\n")
    with pytest.raises(ValueError, match=r"segment 1 is in document 'a' in gold.tsv \(line 3\) but in 'b'"):
        ner_files.read_hipe_pair(str(gold), str(pred))
    pred.write_text("TOKEN\tNE-COARSE-LIT\nAnna\tB-pers\n")
    with pytest.raises(
        ValueError, match=r"pred.tsv has 1 tokens and no document comments, but gold.tsv has 2"
    ):
        ner_files.read_hipe_pair(str(gold), str(pred))


def test_hipe_predictions_without_comments_are_cut_like_the_gold(tmp_path, metric):
    """As HIPE-scorer does: a system file without document comments takes the gold's segmentation."""
    gold = tmp_path / "gold.tsv"
    gold.write_text(
        "TOKEN\tNE-COARSE-LIT\n# hipe2022:document_id = a\nAnna\tB-pers\nsang\tO\n"
        "# hipe2022:document_id = b\nBern\tB-loc\n"
    )
    pred = tmp_path / "pred.tsv"
    pred.write_text("TOKEN\tNE-COARSE-LIT\nAnna\tB-pers\nsang\tO\nBern\tO\n")
    inputs = ner_files.read_hipe_pair(str(gold), str(pred))
    assert inputs.predictions == [["B-pers", "O"], ["O"]] and inputs.document_ids == ["a", "b"]
    docs = metric.compute(**inputs.compute_inputs())["documents"]["strict"]
    # document a: P = R = 1; document b: R = 0, no prediction (not in the precision mean)
    assert (docs["precision"], docs["recall"], docs["recall_std"]) == (1.0, 0.5, 0.5)


def test_hipe_files_on_the_command_line_and_in_compare(metric, capsys):
    """ner_report reads HIPE files by their header and prints the per-document table; compare gives
    each system the documents block compute gives."""
    from ner_recall.cli import report as ner_report

    gold, pred = paths("unittest-true_bundle3_de_1")
    inputs = ner_files.read_pair(gold, pred, column="NE-FINE-LIT")
    expected = metric.compute(**inputs.compute_inputs())["documents"]
    assert ner_report.main([gold, pred, pred, "--column", "NE-FINE-LIT"]) == 0
    printed = capsys.readouterr().out
    strict = expected["strict"]
    row = f"strict           2     {strict['precision']:.4f}         {strict['precision_std']:.4f}"
    assert row in printed
    compared = metric.compare(
        predictions=inputs.predictions,
        predictions_b=inputs.predictions,
        references=inputs.references,
        document_ids=inputs.document_ids,
        ci_resamples=50,
        permutations=50,
    )
    assert compared["a"]["documents"] == expected == compared["b"]["documents"]
    with pytest.raises(ValueError, match="column='X' applies to HIPE TSV files"):
        ner_files.read_pair(os.path.join(ROOT, "tests", "data", "gold.conll"), gold, column="X")


def test_the_loaded_metric_reads_hipe_files(metric):
    """Hub users have only the loaded object: its readers give what ner_files gives."""
    gold, pred = paths("unittest-true_bundle3_de_1")
    direct = ner_files.read_hipe_pair(gold, pred, "NE-FINE-LIT", merge_lines=True)
    assert metric.read_hipe(gold, pred, "NE-FINE-LIT", merge_lines=True) == direct
    assert metric.read_files(gold, pred, column="NE-FINE-LIT") == ner_files.read_pair(
        gold, pred, column="NE-FINE-LIT"
    )
    conll = (
        os.path.join(ROOT, "tests", "data", "gold.conll"),
        os.path.join(ROOT, "tests", "data", "pred_a.conll"),
    )
    assert metric.read_files(*conll).compute_inputs() == ner_files.read_pair(*conll).compute_inputs()


# ---------------------------------------------------------------------------- the fuzzy regime and our type mode

HEADER = "TOKEN\tNE-COARSE-LIT\tNE-COARSE-METO\tNE-FINE-LIT\tNE-FINE-METO\tNE-FINE-COMP\tNE-NESTED\tNEL-LIT\tNEL-METO\tMISC"
# "Paris Hilton sang ." with the gold's place "Paris" and person "Hilton sang"; the system's one
# person "Paris Hilton" overlaps both, the place first
FUZZY_TOKENS = ["Paris", "Hilton", "sang", "."]
FUZZY_GOLD = ["B-loc", "B-pers", "I-pers", "O"]
FUZZY_PRED = ["B-pers", "I-pers", "O", "O"]


def _hipe_file(path, tags):
    rows = [HEADER, "# hipe2022:document_id = doc-1", "# hipe2022:segment_iiif_link = _"]
    rows += [f"{token}\t{tag}\tO\tO\tO\tO\tO\t_\t_\t_" for token, tag in zip(FUZZY_TOKENS, tags)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


def _fuzzy_files(tmp_path):
    return _hipe_file(tmp_path / "gold.tsv", FUZZY_GOLD), _hipe_file(tmp_path / "pred.tsv", FUZZY_PRED)


#: HIPE-scorer's ``ent_type`` (its fuzzy regime) on the case, read from its ``compute_metrics``: each
#: prediction takes the first gold entity in order that it overlaps and that no earlier prediction
#: took, whatever the type; the person pairs with the place, a type error, and the gold person is
#: missed. Our type mode pairs by the one-to-one matching, which prefers a pair of the same type.
HIPE_FUZZY = {"correct": 0, "incorrect": 1, "missed": 1, "spurious": 0}
OURS_TYPE = {"correct": 1, "incorrect": 0, "missed": 1, "spurious": 0}
#: the other modes count alike (a strict error, a partial overlap, an exact error, one missed)
SAME = {
    "strict": {"correct": 0, "incorrect": 1, "partial": 0, "missed": 1, "spurious": 0},
    "partial": {"correct": 0, "incorrect": 0, "partial": 1, "missed": 1, "spurious": 0},
    "exact": {"correct": 0, "incorrect": 1, "partial": 0, "missed": 1, "spurious": 0},
}


def test_our_type_mode_pairs_by_type_where_hipe_fuzzy_takes_the_first_overlap(metric, tmp_path):
    """The documented difference (docs/slices.md): one prediction over two gold entities, the
    first of another type. Every other mode counts as HIPE-scorer does."""
    inputs = ner_files.read_hipe_pair(*_fuzzy_files(tmp_path), column="NE-COARSE-LIT")
    muc = metric.compute(**inputs.compute_inputs(), scores=["muc"])["muc"]
    assert {key: muc["type"][key] for key in OURS_TYPE} == OURS_TYPE != HIPE_FUZZY
    for mode, counts in SAME.items():
        assert {key: muc[mode][key] for key in counts} == counts, mode


def _hipe_scorer_path():
    """A clone of hipe-eval/HIPE-scorer: ``$HIPE_SCORER``, or beside the repository, or in /tmp."""
    for path in (os.environ.get("HIPE_SCORER"), os.path.join(ROOT, "..", "HIPE-scorer"), "/tmp/HIPE-scorer"):
        if path and os.path.isfile(os.path.join(path, "hipe_evaluation", "ner_eval.py")):
            return path
    return None


def test_hipe_scorer_live_on_the_fuzzy_case(tmp_path, monkeypatch):
    """HIPE-scorer itself (not on PyPI: a clone named by $HIPE_SCORER) gives the counts above."""
    path = _hipe_scorer_path()
    if path is None:
        pytest.skip("HIPE-scorer not found: clone hipe-eval/HIPE-scorer and set HIPE_SCORER to it")
    pytest.importorskip("smart_open", reason="HIPE-scorer reads its files with smart_open")
    monkeypatch.syspath_prepend(path)
    from hipe_evaluation.ner_eval import Evaluator

    gold, pred = _fuzzy_files(tmp_path)
    counts, _ = Evaluator(gold, pred).evaluate(["NE-COARSE-LIT"], eval_type="nerc")
    assert {key: counts["ent_type"][key] for key in HIPE_FUZZY} == HIPE_FUZZY
    for mode, expected in SAME.items():
        assert {key: counts[mode][key] for key in expected} == expected, mode
