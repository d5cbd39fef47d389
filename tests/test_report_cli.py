"""ner_report: the command line prints the metric's numbers for two or three files, from any folder."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from ner_recall.cli import report as ner_report
from ner_recall.readers import files as ner_files

DATA = os.path.join(ROOT, "tests", "data")
GOLD, PRED_A, PRED_B, BOTH = (
    os.path.join(DATA, name) for name in ("gold.conll", "pred_a.conll", "pred_b.conll", "gold_pred_a.conll")
)
SCRIPT = os.path.join(ROOT, "ner_recall", "cli", "report.py")


def run(*args, cwd):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_script_from_another_folder_with_json(tmp_path, metric):
    out = tmp_path / "out.json"
    done = run("-m", "ner_recall", GOLD, PRED_A, PRED_B, "--json", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    expected = metric.compute(**inputs.compute_inputs())
    saved = json.loads(out.read_text())
    assert saved["results"]["overall_f1"] == pytest.approx(expected["overall_f1"])
    assert saved["results"]["muc"] == json.loads(json.dumps(expected["muc"]))
    assert "errors" in saved["results"] and "confusion" in saved["results"]
    # hand-counted on tests/data: 7 gold entities, 4 exact matches; B finds 6, predicts nothing wrong
    assert f"precision {4 / 7:.4f}  recall {4 / 7:.4f}  f1 {4 / 7:.4f}" in done.stdout
    assert re.search(r"^partial +5 +0 +1 +1 +1 +0\.7857 +0\.7857 +0\.7857$", done.stdout, re.M)
    # A, B, B - A, then the paired interval and p-value
    assert re.search(
        rf"^overall_f1 +{4 / 7:.4f} +{12 / 13:.4f} +{12 / 13 - 4 / 7:.4f} +\S+ +\S+ +[01]\.\d{{4}}$",
        done.stdout,
        re.M,
    )
    assert "MISC -> LOC (same span): 1" in done.stdout
    assert saved["results_b"]["overall_recall"] == pytest.approx(6 / 7)


def test_module_from_the_repo_root():
    done = run("-m", "ner_recall", BOTH, "--scheme", "IOB2", "--mode", "strict", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "4 sentences, 7 gold entities, 7 predicted" in done.stdout


@pytest.mark.parametrize(
    "files, message",
    [
        (
            ["bad.conll", PRED_A],
            "bad.conll line 2: 3 fields, but the token lines before have 2 (ragged columns)",
        ),
        ([GOLD, "short.conll"], "gold.conll has 4 sentences but short.conll has 1"),
    ],
)
def test_bad_files_exit_1_with_the_message(tmp_path, files, message):
    (tmp_path / "bad.conll").write_text("BREVICOR B-ORG\nwelcomes O O\n")
    (tmp_path / "short.conll").write_text(
        "BREVICOR B-ORG\nwelcomes O\nValdorian B-MISC\nplan O\nto O\nimport O\nTessarian B-LOC\nwool O\n. O\n"
    )
    done = run("-m", "ner_recall", *files, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"ner_report: {message}")


def test_metric_refusal_names_the_line(tmp_path, capsys):
    (tmp_path / "g.conll").write_text("a B-PER\nb I-PER\n")
    (tmp_path / "p.conll").write_text("a B-PER\nb S-PER\n")
    code = ner_report.main(
        [str(tmp_path / "g.conll"), str(tmp_path / "p.conll"), "--scheme", "IOB2", "--mode", "strict"]
    )
    assert code == 1
    assert capsys.readouterr().err.rstrip().endswith("(p.conll line 2)")


def test_jsonl_with_tokens_scores_like_the_tags(tmp_path, metric):
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    for name, side in (("g.jsonl", inputs.references), ("p.jsonl", inputs.predictions)):
        with open(tmp_path / name, "w") as f:
            for tokens, tags in zip(inputs.tokens, side):
                entities = [{"label": s.label, "start": s.start, "end": s.end} for s in metric.decode(tags)]
                f.write(json.dumps({"tokens": tokens, "entities": entities}) + "\n")
    spans = ner_files.read_pair(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"))
    assert ner_report.score(spans)["muc"] == ner_report.score(inputs)["muc"]
    done = run("-m", "ner_recall", str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # spans have no tokens to count: no token accuracy in the headline
    assert f"overall (seqeval): precision {4 / 7:.4f}  recall {4 / 7:.4f}  f1 {4 / 7:.4f}\n" in done.stdout


def test_confusion_matches_hand_counts():
    results = ner_report.score(ner_files.read_conll_pair(GOLD, PRED_A))
    assert results["confusion"] == {
        "same_span": {"ORG": {"ORG": 2}, "MISC": {"MISC": 2, "LOC": 1}},
        "overlap": {"PER": {"PER": 1}},
        "missed": {"LOC": 1},
        "spurious": {"MISC": 1},
    }


def test_docs_sample_is_the_output(capsys, monkeypatch):
    """docs/app.md shows what the command prints on tests/data."""
    text = open(os.path.join(ROOT, "docs", "app.md"), encoding="utf-8").read()
    command, output = re.search(r"```\n\$ (python -m ner_recall [^\n]+)\n(.*?)```", text, re.S).groups()
    monkeypatch.chdir(ROOT)
    assert ner_report.main(command.split()[3:]) == 0
    assert capsys.readouterr().out == output


def test_one_metric_object_per_config():
    assert ner_report.load_metric() is ner_report.load_metric("default")


def test_a_scheme_implies_strict_decoding(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert ner_report.main([GOLD, PRED_A, "--scheme", "IOB2"]) == 0
    implied = capsys.readouterr().out
    assert ner_report.main([GOLD, PRED_A, "--scheme", "IOB2", "--mode", "strict"]) == 0
    assert capsys.readouterr().out == implied


def test_io_files_with_bare_types_and_untyped_files_from_another_folder(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("Anna PER\nsang O\nin O\nRiga LOC\n", encoding="utf-8")
    pred.write_text("Anna PER\nsang O\nin O\nRiga PER\n", encoding="utf-8")
    done = run(
        "-m",
        "ner_recall",
        str(gold),
        str(pred),
        "--scheme",
        "IO",
        "--json",
        str(tmp_path / "io.json"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    strict = json.loads((tmp_path / "io.json").read_text())["results"]["muc"]["strict"]
    assert (strict["correct"], strict["incorrect"]) == (1, 1)  # Anna right, Riga typed PER for LOC
    gold.write_text("Anna B\nKarenina I\nsang O\n", encoding="utf-8")
    pred.write_text("Anna B\nKarenina O\nsang O\n", encoding="utf-8")
    done = run(
        "-m", "ner_recall", str(gold), str(pred), "--json", str(tmp_path / "untyped.json"), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    partial = json.loads((tmp_path / "untyped.json").read_text())["results"]["muc"]["partial"]
    assert (partial["partial"], partial["correct"]) == (1, 0)


def test_json_into_a_missing_folder_fails_before_printing(tmp_path):
    done = run("-m", "ner_recall", GOLD, PRED_A, "--json", "no/such/dir/out.json", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr
    assert "--json no/such/dir/out.json: the folder" in done.stderr and "does not exist" in done.stderr


def test_the_per_type_table_by_hand(tmp_path):
    """Gold: 2 PER, 1 LOC; predicted: 1 PER (right), 2 LOC (one right, one spurious)."""
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("a B-PER\nb O\nc B-PER\nd B-LOC\ne O\n", encoding="utf-8")
    pred.write_text("a B-PER\nb B-LOC\nc O\nd B-LOC\ne O\n", encoding="utf-8")
    results = ner_report.score(ner_files.read_pair(str(gold), str(pred)))
    rows = {row[0]: row for row in ner_report.per_type_summary_rows(results)}
    # type, gold (possible), predicted (actual), precision, recall, f1 (strict), then the other modes' f1
    assert rows["PER"][:6] == ["PER", 2, 1, 1.0, 0.5, pytest.approx(2 / 3)]
    assert rows["LOC"][:6] == ["LOC", 1, 2, 0.5, 1.0, pytest.approx(2 / 3)]
    text = ner_report.report(results, ["g.conll", "p.conll"], 1)
    assert re.search(r"^PER +2 +1 +1\.0000 +0\.5000 +0\.6667", text, re.M)


def test_slices_from_a_file_print_a_table_per_slice(tmp_path, metric):
    slices = tmp_path / "genre.txt"
    slices.write_text("news\nweb\nnews\nweb\n", encoding="utf-8")
    done = run("-m", "ner_recall", GOLD, PRED_A, PRED_B, "--slices", str(slices), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    for genre, at in (("news", [0, 2]), ("web", [1, 3])):
        alone = metric.compute(
            predictions=[inputs.predictions[i] for i in at], references=[inputs.references[i] for i in at]
        )
        row = rf"^{genre} +2 +{alone['overall_precision']:.4f} +{alone['overall_recall']:.4f} +{alone['overall_f1']:.4f}"
        assert re.search(row + r" +-?\d\.\d{4} +[01]\.\d{4}$", done.stdout, re.M), done.stdout
    assert re.search(
        r"^worst: (news|web) \(overall_f1 \d\.\d{4}, \d\.\d{4} below the whole\)$", done.stdout, re.M
    )
    slices.write_text("news\n\nnews\nweb\n", encoding="utf-8")
    done = run("-m", "ner_recall", GOLD, PRED_A, "--slices", str(slices), cwd=tmp_path)
    assert (
        done.returncode == 1 and "genre.txt line 2: empty; every sentence needs a slice value" in done.stderr
    )


def test_buckets_on_the_command_line(metric, capsys):
    """--buckets prints one table per entity attribute: the metric's strict numbers, and with two
    systems B - A and its Holm-corrected p-value."""
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    expected = metric.compute(
        **inputs.compute_inputs(),
        buckets=["entity_length", "sentence_length", "density", "capitalisation"],
        tokens=inputs.tokens,
    )["buckets"]
    assert ner_report.main([GOLD, PRED_A, "--buckets"]) == 0
    printed = capsys.readouterr().out
    for name, table in expected.items():
        unit = {
            "entity_length": ", in tokens",
            "sentence_length": ", in tokens",
            "density": ", entities per token",
        }
        assert f"per bucket of {name.replace('_', ' ')}{unit.get(name, '')} (strict)" in printed
        for label, r in table.items():
            row = f"{r['number']}  {r['predicted']:>4}     {r['precision']:.4f}  {r['recall']:.4f}  {r['f1']:.4f}"
            assert any(line.startswith(label) and row in line for line in printed.splitlines()), (name, label)
    assert ner_report.main([GOLD, PRED_A, PRED_B, "--buckets"]) == 0
    assert "f1 B - A  p (Holm)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "files, unit",
    [
        ([GOLD, PRED_A], "tokens"),
        (["tokens.jsonl", "tokens.jsonl"], "tokens"),
        (["text.jsonl", "text.jsonl"], "characters"),
        ([os.path.join(DATA, "formats", "doccano.jsonl")] * 2, "characters"),
        ([os.path.join(DATA, "formats", "label_studio.json")] * 2, "characters"),
        (["mixed.jsonl", "mixed.jsonl"], "characters or tokens, as each example's offsets count"),
    ],
)
def test_the_entity_length_buckets_say_their_unit(tmp_path, capsys, monkeypatch, files, unit):
    """A span's length counts its offsets: characters over a text (the tools' files, JSONL with
    "text"), tokens over tokens, either in JSONL of both kinds of lines; the 1, 2, 3, 4+ of the
    table mean either."""
    monkeypatch.chdir(tmp_path)
    entity = {"label": "PER", "start": 0, "end": 1}
    (tmp_path / "tokens.jsonl").write_text(
        json.dumps({"tokens": ["Anna", "sang"], "entities": [entity]}) + "\n"
    )
    (tmp_path / "text.jsonl").write_text(json.dumps({"text": "Anna sang", "entities": [entity]}) + "\n")
    (tmp_path / "mixed.jsonl").write_text(
        (tmp_path / "text.jsonl").read_text() + (tmp_path / "tokens.jsonl").read_text()
    )
    assert ner_report.main([*files, "--buckets"]) == 0
    titles = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("per bucket of entity")
    ]
    assert titles == [f"per bucket of entity length, in {unit} (strict)"]


def test_span_files_over_a_text_bucket_sentences_by_its_characters(capsys):
    """A Label Studio export (spans over texts) gets the charts CoNLL gets: its sentence attributes
    count the text's characters, as the metric's span config does given the texts."""
    studio = os.path.join(DATA, "formats", "label_studio.json")
    inputs = ner_files.read_pair(studio, studio)
    expected = ner_report.load_metric("spans").compute(
        **inputs.compute_inputs(), buckets=["sentence_length", "density"]
    )["buckets"]
    assert ner_report.main([studio, studio, "--buckets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = [line for line in lines if line.startswith("per bucket of")]
    assert titles == [
        "per bucket of entity length, in characters (strict)",
        "per bucket of sentence length, in characters of the text (strict)",
        "per bucket of density, entities per 100 characters of the text (strict)",
        "per bucket of capitalisation (strict)",
    ]
    for name in ("sentence_length", "density"):
        at = lines.index(next(t for t in titles if name.replace("_", " ") in t))
        assert [line.split()[0] for line in lines[at + 2 : at + 2 + len(expected[name])]] == list(
            expected[name]
        )


def test_scored_jsonl_predictions_print_the_ranking(tmp_path, capsys):
    """A JSONL predictions file with scores: the ranking family runs and its table is printed."""
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text(
        '{"tokens": ["Anna", "met", "Bob"], "entities": [{"label": "PER", "start": 0, "end": 1}, {"label": "PER", "start": 2, "end": 3}]}\n'
    )
    pred.write_text(
        '{"tokens": ["Anna", "met", "Bob"], "entities": [{"label": "PER", "start": 0, "end": 1, "score": 0.9}, {"label": "LOC", "start": 2, "end": 3, "score": 0.4}]}\n'
    )
    assert ner_report.main([str(gold), str(pred)]) == 0
    printed = capsys.readouterr().out
    # one right prediction (0.9, ranked first) of two gold entities: AP 1, over the gold 0.5, best
    # at 0.9 (P 1, R 0.5), ECE 0.25
    assert "strict           1.0000     0.5000          0.9000     1.0000  0.5000  0.6667  0.2500" in printed
    pred.write_text(
        '{"tokens": ["Anna", "met", "Bob"], "entities": [{"label": "PER", "start": 0, "end": 1, "score": 2}]}\n'
    )
    assert ner_report.main([str(gold), str(pred)]) == 1
    assert "score must be a number in [0, 1]" in capsys.readouterr().err


# ---------------------------------------------------------------------------- through the metric; easy mistakes


def test_the_command_line_imports_no_scoring_internals():
    import ast

    tree = ast.parse(open(SCRIPT, encoding="utf-8").read())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom | ast.Import)
        for alias in node.names
    } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    internals = {"ner_pipeline", "ner_matching", "ner_uncertainty", "ner_decoding", "ner_scorings"}
    assert not {name.rsplit(".", 1)[-1] for name in imported} & internals, imported


def test_two_systems_come_from_the_metric_with_each_systems_intervals(metric):
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    inputs_b = ner_files.read_second_predictions(inputs, PRED_B)
    a, b, comparison = ner_report.score_two(inputs, inputs_b, ci_resamples=30)
    direct = metric.compare_with_intervals(
        predictions=inputs.predictions,
        predictions_b=inputs_b.predictions,
        references=inputs.references,
        system_intervals=30,
        ci_resamples=30,
        errors=True,
        scores=["seqeval", "muc", "confusion"],
    )
    assert json.dumps(comparison, sort_keys=True) == json.dumps(direct, sort_keys=True)
    assert a["intervals"]["overall_f1"] == direct["a"]["intervals"]["overall_f1"] and "intervals" in b
    plain = metric.compare(
        predictions=inputs.predictions, predictions_b=inputs_b.predictions, references=inputs.references
    )
    with_none = metric.compare_with_intervals(
        predictions=inputs.predictions, predictions_b=inputs_b.predictions, references=inputs.references
    )
    assert json.dumps(plain, sort_keys=True) == json.dumps(with_none, sort_keys=True)  # compare, and no more
    assert "intervals" not in with_none["a"]


def test_help_lists_every_format_with_its_package(capsys):
    with pytest.raises(SystemExit):
        ner_report.parse_args(["--help"])
    shown = capsys.readouterr().out
    for name in ner_files.FILE_FORMATS:
        assert re.search(rf"^  {re.escape(name)} +\S", shown, re.M), name
    assert re.search(r"^  spacy +spaCy DocBin \(\.spacy\) \(needs spaCy: pip install spacy\)$", shown, re.M)
    assert "--format FORMAT" in shown


def test_format_chooses_the_reader(tmp_path, capsys):
    doccano = os.path.join(DATA, "formats", "doccano.jsonl")
    assert ner_report.main([doccano, doccano, "--format", "doccano"]) == 0
    assert "overall (seqeval): precision 1.0000  recall 1.0000  f1 1.0000" in capsys.readouterr().out
    assert ner_report.main([doccano, doccano, "--format", "prodigy"]) == 1
    assert "no Prodigy 'spans'; the record looks like doccano" in capsys.readouterr().err
    assert ner_report.main([GOLD, PRED_A, PRED_B, "--format", "conll"]) == 0
    with pytest.raises(SystemExit):
        ner_report.parse_args([GOLD, "--format", "xml"])


@pytest.mark.parametrize(
    "files, found",
    [
        (["x.spacy", GOLD], [("x.spacy", "spacy"), ("gold.conll", "conll")]),
        ([GOLD, "x.spacy"], [("gold.conll", "conll"), ("x.spacy", "spacy")]),
        ([GOLD, PRED_A, "x.spacy"], [("gold.conll", "conll"), ("x.spacy", "spacy")]),
        ([os.path.join(DATA, "formats", "brat"), GOLD], [("brat", "brat"), ("gold.conll", "conll")]),
        (
            [os.path.join(DATA, "formats", "label_studio.json"), GOLD],
            [("label_studio.json", "label-studio"), ("gold.conll", "conll")],
        ),
        (["g.jsonl", GOLD], [("g.jsonl", "jsonl"), ("gold.conll", "conll")]),
        (
            [os.path.join(DATA, "formats", "doccano.jsonl"), "g.jsonl"],
            [("doccano.jsonl", "doccano"), ("g.jsonl", "jsonl")],
        ),
    ],
)
def test_files_of_two_formats_are_named_with_each_format(tmp_path, capsys, monkeypatch, files, found):
    """A gold and predictions in formats that do not read together: each file named with the format
    its name and content tell, and the flag that gives a format with every format it takes (conll
    among them), not the Python reader's format= and its list of the tools' formats."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.spacy").write_bytes(b"not read: its name tells its format")
    (tmp_path / "g.jsonl").write_text('{"text": "a", "entities": []}\n')
    assert ner_report.main(files) == 1
    (a, format_a), (b, format_b) = found
    assert capsys.readouterr().err == (
        f"ner_report: {a} is {format_a!r} but {b} is {format_b!r}: the gold and the predictions must be in"
        f" one format, told by their name and content or given as --format, one of {list(ner_files.FILE_FORMATS)}\n"
    )


def test_a_spacy_file_without_spacy_exits_2_naming_the_install_line(tmp_path, capsys, monkeypatch):
    path = tmp_path / "x.spacy"
    path.write_bytes(b"anything")
    monkeypatch.setitem(sys.modules, "spacy", None)  # import spacy now fails as if not installed
    assert ner_report.main([str(path), str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "ner_report: x.spacy: reading a spacy file needs spaCy, which is not installed: pip install spacy\n"
    )


@pytest.mark.parametrize(
    "files, message",
    [
        (["gone.conll", PRED_A], "no such file: gone.conll"),
        ([GOLD, "gone.conll"], "no such file: gone.conll"),
        ([GOLD, PRED_A, "gone.conll"], "no such file: gone.conll"),
        (["c2003.txt"], "c2003.txt looks like CoNLL-2003 (token, POS, chunk, NER)"),
    ],
)
def test_easy_mistakes_are_named(tmp_path, files, message, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c2003.txt").write_text("BREVICOR NNP B-NP B-ORG\nwelcomes VBZ B-VP O\n")
    assert ner_report.main(files) == 1
    assert capsys.readouterr().err.startswith(f"ner_report: {message}")


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["x1.conll", "x2.conll"],
            "token 'a' at x1.conll line 1 but 'b' at x2.conll line 1: the files must hold the same tokens"
            " (--no-token-check skips this check)",
        ),
        (
            ["x1.jsonl", "x2.jsonl"],
            "example 1 differs: x1.jsonl line 1 and x2.jsonl line 1 hold different tokens or text"
            " (--no-token-check skips this check)",
        ),
        (
            ["x1.conll", "x1.conll", "--column", "X"],
            "--column='X' applies to HIPE TSV files; x1.conll is not one",
        ),
        (
            ["x1.conll", "x1.conll", "--format", "conll", "--column", "X"],
            "--column='X' applies to HIPE TSV files, not to 'conll'",
        ),
        (
            ["x1.jsonl", "--format", "jsonl"],
            "--format='jsonl' reads a gold and a predictions file; give both",
        ),
        (["x1.conll", "x1.conll", "--mode", "strict"], "--mode='strict' needs a scheme, one of ['BILOU', "),
        (["--golds", "x1.conll", "x1.conll", "--mode", "strict"], "--mode='strict' needs a scheme, one of"),
        (
            ["x1.conll", "x1.conll", "--ci-resamples", "-5"],
            "--ci-resamples must be a non-negative int; got -5",
        ),
        (
            ["x1.conll", "x1.conll", "--ci-resamples", "2000000"],
            "--ci-resamples must be at most 1,000,000; got 2000000",
        ),
    ],
)
def test_messages_name_the_flag_a_shell_user_gives(tmp_path, capsys, monkeypatch, args, message):
    """The readers and the metric name an option by its Python keyword (check_tokens=False, column=,
    file_format=, mode=, ci_resamples); the command line names its flag instead."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x1.conll").write_text("a O\n")
    (tmp_path / "x2.conll").write_text("b O\n")
    (tmp_path / "x1.jsonl").write_text('{"text": "a", "entities": []}\n')
    (tmp_path / "x2.jsonl").write_text('{"text": "b", "entities": []}\n')
    assert ner_report.main(args) == 1
    assert capsys.readouterr().err.startswith(f"ner_report: {message}")


def test_a_pipelines_output_is_scored_from_the_command_line(tmp_path, capsys):
    gold = tmp_path / "g.jsonl"
    gold.write_text(
        json.dumps({"text": "Anna sang", "entities": [{"label": "PER", "start": 0, "end": 4}]}) + "\n"
    )
    pred = tmp_path / "p.jsonl"
    pred.write_text(
        json.dumps([{"entity_group": "PER", "score": 0.75, "word": "anna", "start": 0, "end": 4}]) + "\n"
    )
    assert ner_report.main([str(gold), str(pred)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "f1 1.0000" in out and "scored predictions (ranking and calibration)" in out


def _recorded(tmp_path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    for name, source in (("gold.conll", GOLD), ("pred.conll", PRED_A)):
        (folder / name).write_bytes(open(source, "rb").read())
    record = folder / "run.json"
    assert (
        ner_report.main([str(folder / "gold.conll"), str(folder / "pred.conll"), "--record", str(record)])
        == 0
    )
    capsys.readouterr()
    return folder, record


def test_a_moved_record_reruns_with_its_files(tmp_path, capsys):
    folder, record = _recorded(tmp_path, capsys)
    stored = json.loads(record.read_text())
    assert stored["files"]["gold"]["path"] == "gold.conll" and stored["options"]["format"] is None
    moved = tmp_path / "elsewhere"
    folder.rename(moved)
    assert ner_report.main(["--rerun", str(moved / "run.json")]) == 0
    assert capsys.readouterr().out.startswith("identical")


def _tamper(record, change):
    data = json.loads(record.read_text())
    change(data)
    record.write_text(json.dumps(data))


TAMPERED_CLI = [
    (lambda r: r.update(files=[1]), "its 'files' map"),
    (lambda r: r.update(files={}), "its 'files' map"),
    (lambda r: r["files"].update(other={"path": "x", "sha256": "y"}), "its 'files' map"),
    (lambda r: r["files"].update(gold="gold.conll"), "the gold file needs a 'path' and a 'sha256'"),
    (lambda r: r["files"]["gold"].update(path=None), "the gold file needs a 'path'"),
    (lambda r: r["options"].update(evil=1), "'evil' is not an option of the command line"),
    (lambda r: r.update(options="x"), "its 'options' is a dict"),
    (lambda r: r["options"].update(predictions=[["O"]]), "its 'options' hold 'predictions'"),
    (lambda r: r.pop("results"), "not a record: no 'results'"),
    (lambda r: r.update(config="default"), "a record of metric.record, not of the command line"),
    (lambda r: r["files"]["gold"].update(path="gone.conll"), "the gold file .*gone.conll is gone"),
    (lambda r: r["files"]["gold"].update(sha256="sha256:0"), "the gold file .* changed"),
    (lambda r: r["options"].update(ci_resamples="many"), "ci_resamples"),
    (lambda r: r["options"].update(scheme="XYZ"), "scheme"),
]


@pytest.mark.parametrize("change, message", TAMPERED_CLI)
def test_rerun_of_a_tampered_record_is_a_message_not_a_traceback(tmp_path, capsys, change, message):
    folder, record = _recorded(tmp_path, capsys)
    _tamper(record, change)
    assert ner_report.main(["--rerun", str(record)]) == 1
    err = capsys.readouterr().err
    assert re.match(r"ner_report: .*" + message, err), err


@pytest.mark.parametrize(
    "content, message",
    [
        ("[" * 100_000 + "]" * 100_000, "cannot read it as a JSON record"),
        ('{"n": ' + "9" * 5000 + "}", "cannot read it as a JSON record"),
        ("not json", "cannot read it as a JSON record"),
        ("5", "not a record"),
    ],
)
def test_rerun_of_a_file_that_is_no_record(tmp_path, capsys, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    assert ner_report.main(["--rerun", str(path)]) == 1
    assert message in capsys.readouterr().err
    assert ner_report.main(["--rerun", str(tmp_path / "gone.json")]) == 1
    assert "cannot read it as a JSON record" in capsys.readouterr().err


@pytest.mark.parametrize(
    "a, b, lines",
    [
        ("s", None, ["signature of every table: s"]),
        ("s", "s", ["signature of every table (A and B alike): s"]),
        ("s", "t", ["signature A (every table): s", "signature B (with A's, each table of B - A): t"]),
        (None, None, ["signature of every table: (none)"]),
    ],
)
def test_the_signature_is_said_once_each_system_labelled_only_when_they_differ(a, b, lines):
    """A comparison has no signature: A's tables carry A's, a table of B - A A's and B's; when the
    two agree, one line says it for every table."""
    results = {} if a is None else {"signature": a}
    assert ner_report.signature_lines(results, None if b is None else {"signature": b}) == lines


@pytest.mark.parametrize(
    "args, line",
    [
        ([GOLD, PRED_A], "signature of every table: {a}"),
        ([GOLD, PRED_A, "--buckets"], "signature of every table: {a}"),
        ([GOLD, PRED_A, PRED_B, "--buckets"], "signature of every table (A and B alike): {a}"),
    ],
)
def test_the_signature_is_printed_once_under_the_counts(tmp_path, capsys, args, line):
    """Seven tables made with one set of options: their signature once, not under each table."""
    out_json = tmp_path / "out.json"
    assert ner_report.main([*args, "--json", str(out_json)]) == 0
    lines = capsys.readouterr().out.splitlines()
    payload = json.loads(out_json.read_text(encoding="utf-8"))
    a = payload["results"]["signature"]
    assert a and payload.get("results_b", payload["results"])["signature"] == a
    assert [text for text in lines if "signature" in text] == [line.format(a=a)] == lines[2:3]


def test_two_golds_list_what_the_second_changes(capsys):
    assert ner_report.main(["--golds", GOLD, PRED_A]) == 0
    out = capsys.readouterr().out
    for row in ("type_changed      MISC->LOC         1", "removed                 LOC         1"):
        assert row in out
    assert ner_report.main(["--golds", GOLD]) == 1
    assert "--golds compares two golds" in capsys.readouterr().err


@pytest.mark.parametrize(
    "line",
    [  # by hand from tests/data: the sentences of gold.conll counted from 1, as every message counts them
        "sentence 1: type_changed MISC->LOC: MISC 'Tessarian' -> LOC 'Tessarian'",
        "sentence 2: boundary_changed PER->PER: PER 'Maren Oakhurst' -> PER 'Maren'",
        "sentence 3: removed LOC: LOC 'HARROWFEN' -> (none)",
        "sentence 4: added MISC: (none) -> MISC 'Monday'",
    ],
)
def test_two_golds_count_their_sentences_from_1(capsys, line):
    assert ner_report.main(["--golds", GOLD, PRED_A]) == 0
    assert f"\n  {line}\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    "name, line",
    [
        ("g.jsonl", {"text": "Anna sang in Riga", "entities": [{"label": "PER", "start": 0, "end": 4}]}),
        ("g.jsonl", {"tokens": ["Anna", "sang"], "entities": [{"label": "PER", "start": 0, "end": 1}]}),
        ("d.jsonl", {"text": "Anna sang in Riga", "label": [[0, 4, "PER"]]}),
    ],
)
def test_two_golds_of_spans_are_refused_with_what_golds_reads(tmp_path, capsys, name, line):
    """gold_differences reads tags: span files are refused by name, not with a message about sentence
    0 and Python forms."""
    path = tmp_path / name
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert ner_report.main(["--golds", str(path), str(path)]) == 1
    assert capsys.readouterr().err == (
        f"ner_report: --golds compares golds of tags (CoNLL, HIPE TSV); {path} and {path} hold spans\n"
    )


def language_model_files(tmp_path):
    """A gold of one text and a model's records for it: 'Paris Hilton' twice and 'John' placed
    exactly, 'paris' from the normalized level on, 'Berlin' nowhere in the text."""
    text = "Paris Hilton flew to Paris. Then John met Paris Hilton in Rome."
    gold = [[0, 12, "PER"], [21, 26, "LOC"], [33, 37, "PER"], [42, 54, "PER"], [58, 62, "LOC"]]
    entities = [{"label": label, "start": start, "end": end} for start, end, label in gold]
    output = json.dumps(
        [
            {"text": "Paris Hilton", "type": "PER"},
            {"text": "paris", "type": "LOC"},
            {"text": "John", "type": "PER"},
            {"text": "Paris Hilton", "type": "PER"},
            {"text": "Berlin", "type": "LOC"},
        ]
    )
    records, golds = tmp_path / "out.jsonl", tmp_path / "gold.jsonl"
    records.write_text(json.dumps({"text": text, "output": "Sure! " + output}) + "\n")
    golds.write_text(json.dumps({"text": text, "entities": entities}) + "\n")
    return golds, records, text, entities


def test_a_language_models_records_are_scored_at_every_matching_level(tmp_path, capsys):
    golds, records, text, entities = language_model_files(tmp_path)
    assert ner_report.main([str(golds), str(records), "--generated"]) == 0
    out = capsys.readouterr().out
    assert "placed 4, hallucinated 1, duplicate 0, off_schema 0, unparseable 0, items 5" in out
    assert "exact          1.0000  0.6000  0.7500" in out  # 'paris' is placed from 'normalized' on
    assert "normalized     1.0000  0.8000  0.8889" in out
    assert len([line for line in out.splitlines() if "signature" in line]) == 1  # the ladder's too
    golds.write_text(json.dumps({"text": text + " ", "entities": entities}) + "\n")
    assert ner_report.main([str(golds), str(records), "--generated"]) == 1
    assert "the texts of record 1 differ" in capsys.readouterr().err


@pytest.mark.parametrize(
    "step, score, gain",
    [  # by hand: recall 3/5 exact, 4/5 from normalized on, precision 1 throughout (one text: the
        # resampled interval is the gain itself)
        ("exact -> normalized", "overall_precision", 0.0),
        ("exact -> normalized", "overall_recall", 4 / 5 - 3 / 5),
        ("exact -> normalized", "overall_f1", 8 / 9 - 3 / 4),
        ("normalized -> fuzzy", "overall_precision", 0.0),
        ("normalized -> fuzzy", "overall_recall", 0.0),
        ("normalized -> fuzzy", "overall_f1", 0.0),
    ],
)
def test_the_ladders_gains_print_as_a_table(tmp_path, capsys, step, score, gain):
    golds, records, _, _ = language_model_files(tmp_path)
    assert ner_report.main([str(golds), str(records), "--generated"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"^{step} +{score} +{gain:.4f} +{gain:.4f} +{gain:.4f}$", out, re.M), out
    assert '"difference"' not in out  # the gains as rows, not a line of JSON


@pytest.mark.parametrize(
    "row, words",
    [
        ({"number": 2, "predicted": 0}, "2 gold entities and no prediction in this bucket"),
        ({"number": 0, "predicted": 3}, "3 predictions and no gold entity in this bucket"),
        ({"number": 2, "predicted": 2}, None),
        ({"number": 0, "predicted": 0}, None),
    ],
)
def test_a_bucket_whose_scores_surprise_carries_a_hint(row, words):
    hints = ner_report.bucket_hints({"0.3+": row})
    assert hints == ([] if words is None else [hints[0]]) and (words is None or words in hints[0])
    assert all(hint.startswith("0.3+: ") for hint in hints)
