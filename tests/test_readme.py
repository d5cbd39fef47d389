"""The README and the docs pages tell the truth: their examples run from anywhere, their tables come
from the scripts, the commands are CI's."""

import doctest
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, benchmark_csv

README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
DOCS = {path: open(path, encoding="utf-8").read() for path in [os.path.join(ROOT, "README.md"), *PAGES]}
#: what a Hub Space holds: the metric script, the package it wraps, the app's launcher, the card and
#: the requirements
SPACE_FILES = [
    *glob.glob(os.path.join(ROOT, "ner_recall", "**", "*.py"), recursive=True),
    *(
        os.path.join(ROOT, name)
        for name in ("ner_recall_metric.py", "app.py", "README.md", "requirements.txt")
    ),
]


def block(name):
    """The text between ``<!-- name -->`` and ``<!-- /name -->``, in the README or a docs page."""
    found = [
        m.group(1).strip()
        for text in DOCS.values()
        for m in re.finditer(rf"<!-- {name} -->\n(.*?)\n<!-- /{name} -->", text, re.S)
    ]
    assert len(found) == 1, f"block {name} found {len(found)} times in the README and docs/"
    return found[0]


def run_doctests(text, name):
    parser = doctest.DocTestParser()
    examples = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    test = parser.get_doctest(examples, {}, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    return len(test.examples), runner.failures


def test_the_card_is_short_and_links_pages_that_exist():
    assert len(README.splitlines()) <= 300
    links = re.findall(r"\]\((docs/[^)#]+)", README)
    assert links and all(os.path.exists(os.path.join(ROOT, link)) for link in links), links


def test_yaml_header_is_a_metric_card():
    header = README.split("---")[1]
    for key in (
        "title:",
        "emoji:",
        "colorFrom:",
        "colorTo:",
        "sdk: gradio",
        "app_file: app.py",
        "- evaluate",
        "- metric",
        "description:",
    ):
        assert key in header, key


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)[:2]
    assert "pip install -e ." in commands[0] and "python examples/" in commands[0]
    test_command = commands[1].split("&&")[-1].strip()
    assert test_command.startswith("python -m pytest")
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    assert test_command in [line.split("  #")[0].strip() for line in ci.splitlines()]
    # first, as a newcomer: both commands read from this README, run in a clone with nothing beside it
    newcomer = ci.index("first=$(readme_command 1)"), ci.index("second=$(readme_command 2)")
    assert ci.index("git clone") < newcomer[0] < newcomer[1] < ci.index("requirements-extras.txt")


def test_ci_reads_the_readme_commands_as_written(tmp_path):
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    function = re.search(r"^readme_command\(\) \{\n.*?\n\}\n", ci, re.S | re.M).group(0)
    shutil.copy(os.path.join(ROOT, "README.md"), tmp_path / "README.md")
    got = [
        subprocess.run(
            ["bash", "-c", f"{function}readme_command {n}"], cwd=tmp_path, capture_output=True, text=True
        ).stdout.strip()
        for n in (1, 2)
    ]
    assert got == re.findall(r"```bash\n(.*?)\n```", README, re.S)[:2]


def test_the_first_command_scores_the_repository_files_from_another_folder(tmp_path, metric):
    """The example the first command runs needs nothing beside the clone, and prints the scores that
    compute gives on the same files."""
    script = re.search(
        r"python (examples/\S+\.py)", re.findall(r"```bash\n(.*?)\n```", README, re.S)[0]
    ).group(1)
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    ).stdout
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import quickstart
    finally:
        sys.path.pop(0)
    results = metric.compute(**quickstart.read_pairs(metric))
    for score in ("precision", "recall", "f1"):
        printed = float(re.search(rf"^{score}\s+(\S+)", out, re.M).group(1))
        assert printed == round(results[f"overall_{score}"], 3), score
    assert 0 < results["overall_f1"] < 1  # files with errors: a score to look at


@pytest.fixture
def space(tmp_path):
    """A copy of the metric's folder laid out as a Hub Space, named like its script."""
    folder = tmp_path / "ner_recall_metric"
    folder.mkdir()
    for path in SPACE_FILES:
        (folder / os.path.relpath(path, ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, folder / os.path.relpath(path, ROOT))
    return folder


def test_readme_examples_run_in_a_copy_of_the_folder(space, monkeypatch):
    monkeypatch.chdir(space)
    attempted, failures = run_doctests(README, "README.md")
    assert attempted and failures == 0


def test_the_load_lines_of_the_card_hold_from_another_folder(space, tmp_path, monkeypatch):
    import evaluate

    monkeypatch.chdir(tmp_path)
    references = [["B-PER", "I-PER", "O"]]
    for target in (
        str(space),
        str(space / "ner_recall_metric.py"),
        os.path.join(ROOT, "ner_recall_metric.py"),
    ):
        assert (
            evaluate.load(target).compute(predictions=references, references=references)["overall_f1"] == 1.0
        )
    for line in (
        'evaluate.load("/path/to/ner_recall_metric")',
        'evaluate.load("/path/to/folder/ner_recall_metric.py")',
    ):
        assert line in README


@pytest.mark.parametrize("page", PAGES, ids=os.path.basename)
def test_docs_examples_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the pages' examples use the folder's paths, as their intros say
    for name in sorted(set(re.findall(r"\.\./shared/benchmarks/(\w+)/", DOCS[page]))):
        benchmark_csv(name)  # skips where ../shared is not beside the clone
    attempted, failures = run_doctests(DOCS[page], page)
    assert failures == 0


@pytest.mark.parametrize(
    "script",
    [
        "examples/quickstart.py",
        "examples/recall_benchmark.py",
        "examples/matching_cases.py",
        "examples/compare_scorings.py",
    ],
)
def test_example_scripts_run_from_another_folder(script, tmp_path):
    if script == "examples/recall_benchmark.py":
        benchmark_csv("amundsen_01")  # skips when ../shared is not beside the project
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip()


def test_the_recall_benchmark_without_its_data_says_in_one_line_where_to_get_it(tmp_path):
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples/recall_benchmark.py"), str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert "missing: no such file" in run.stderr and "estnltk/estnltk-model-data" in run.stderr


def table_lines(text):
    return [line for line in text.splitlines() if line.startswith("|")]


@pytest.mark.parametrize(
    "name, script",
    [("matching-cases", "examples/matching_cases.py"), ("compare-scorings", "examples/compare_scorings.py")],
)
def test_tables_come_from_their_scripts(name, script, tmp_path):
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, script)], capture_output=True, text=True, cwd=tmp_path, check=True
    ).stdout
    assert table_lines(out) == table_lines(block(name))


def _sync_docs():
    """bench/sync_docs.py as a module (bench/ is not on the path: its names would shadow others)."""
    spec = importlib.util.spec_from_file_location("sync_docs", os.path.join(ROOT, "bench", "sync_docs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tables_of = _sync_docs().tables_of


@pytest.mark.parametrize(
    "name, output, chosen",
    [
        ("ci-coverage", "bench/ci_coverage.md", slice(0, 1)),
        ("ci-design", "bench/ci_design.md", slice(None)),
        ("speed", "bench/speed.md", slice(0, 1)),
        ("speed-touch", "bench/speed.md", slice(1, 2)),
        ("scale", "bench/scale.md", slice(None)),
        ("scale-ids", "bench/scale_ids.md", slice(-1, None)),
    ],
)
def test_tables_of_long_benchmarks_equal_their_output_files(name, output, chosen):
    """The scripts take minutes, so the README is compared with the file each one writes."""
    with open(os.path.join(ROOT, output), encoding="utf-8") as f:
        expected = [line for table in tables_of(f.read())[chosen] for line in table]
    assert expected and expected == table_lines(block(name))


def test_the_docs_sync_script_finds_every_block_in_sync():
    """bench/sync_docs.py, which puts a rerun's tables in place, maps each block to its file."""
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "sync_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_speed_targets_equal_the_output_file():
    with open(os.path.join(ROOT, "bench", "speed.md"), encoding="utf-8") as f:
        listed = [line for line in f.read().splitlines() if line.startswith("- ")]
    assert listed and listed == block("speed-targets").splitlines()
