"""The README tells the truth: its examples run, its tables come from the scripts, its commands are CI's."""

import doctest
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()


def block(name):
    match = re.search(rf"<!-- {name} -->\n(.*?)\n<!-- /{name} -->", README, re.S)
    assert match, f"README has no block {name}"
    return match.group(1).strip()


def test_yaml_header_is_a_metric_card():
    header = README.split("---")[1]
    for key in ("title:", "emoji:", "colorFrom:", "colorTo:", "sdk: gradio", "app_file: app.py",
                "- evaluate", "- metric", "description:"):
        assert key in header, key


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)[:2]
    assert "pip install -r requirements.txt" in commands[0] and "python examples/" in commands[0]
    test_command = commands[1].split("&&")[-1].strip()
    assert test_command.startswith("python -m pytest")
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    assert test_command in ci.splitlines()


def test_the_first_command_scores_the_published_benchmark():
    """The example the first command runs prints the published amundsen_01 estimate."""
    script = re.search(r"python (examples/\S+\.py)", re.findall(r"```bash\n(.*?)\n```", README, re.S)[0]).group(1)
    if not os.path.exists(os.path.join(ROOT, "..", "shared", "benchmarks", "amundsen_01")):
        pytest.skip("../shared/benchmarks is not beside the project")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=ROOT, check=True,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"}).stdout
    recall = float(re.search(r"stratum-weighted recall: (\S+)", out).group(1))
    low, high = map(float, re.search(r"CI \(weighted_wald\): \((\S+), (\S+)\)", out).group(1, 2))
    assert recall == pytest.approx(0.5892016803782091, abs=1e-12)
    assert (low, high) == (pytest.approx(0.5442531601445354, abs=1e-6), pytest.approx(0.6341502006118828, abs=1e-6))


def test_python_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    parser = doctest.DocTestParser()
    examples = "\n".join(re.findall(r"```python\n(.*?)```", README, re.S))
    test = parser.get_doctest(examples, {}, "README", "README.md", 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def table_lines(text):
    return [line for line in text.splitlines() if line.startswith("|")]


@pytest.mark.parametrize("name, script", [("matching-cases", "examples/matching_cases.py"),
                                          ("compare-scorings", "examples/compare_scorings.py")])
def test_tables_come_from_their_scripts(name, script):
    out = subprocess.run([sys.executable, os.path.join(ROOT, script)], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert table_lines(out) == table_lines(block(name))


def tables_of(text):
    """The markdown tables of a text, each as its list of lines."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            found, current = found + [current], []
    return found


@pytest.mark.parametrize("name, output, chosen", [
    ("ci-coverage", "bench/ci_coverage.md", slice(0, 1)),
    ("ci-design", "bench/ci_design.md", slice(None)),
    ("speed", "bench/speed.md", slice(0, 1)),
    ("scale", "bench/scale.md", slice(None)),
    ("scale-ids", "bench/scale_ids.md", slice(-1, None)),
])
def test_tables_of_long_benchmarks_equal_their_output_files(name, output, chosen):
    """The scripts take minutes, so the README is compared with the file each one writes."""
    with open(os.path.join(ROOT, output), encoding="utf-8") as f:
        expected = [line for table in tables_of(f.read())[chosen] for line in table]
    assert expected and expected == table_lines(block(name))


def test_speed_targets_equal_the_output_file():
    with open(os.path.join(ROOT, "bench", "speed.md"), encoding="utf-8") as f:
        listed = [line for line in f.read().splitlines() if line.startswith("- ")]
    assert listed and listed == block("speed-targets").splitlines()
