"""Every benchmark script starts from a fresh clone after the README's install: each answers
``--help`` from another folder, and the cheap ones run for real."""

import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT

#: bench/ modules that other scripts import and that are no script of their own
HELPERS = {"procmem.py"}
SCRIPTS = sorted(
    os.path.basename(path)
    for path in glob.glob(os.path.join(ROOT, "bench", "*.py"))
    if os.path.basename(path) not in HELPERS
)


def run(script, *args, cwd):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", script), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=600,
    )


def test_the_helpers_are_modules_and_every_other_file_a_script():
    for name in HELPERS:
        assert "__main__" not in open(os.path.join(ROOT, "bench", name), encoding="utf-8").read()
    for name in SCRIPTS:
        assert (
            'if __name__ == "__main__":' in open(os.path.join(ROOT, "bench", name), encoding="utf-8").read()
        )


@pytest.mark.parametrize("script", SCRIPTS)
def test_each_script_answers_help_from_another_folder(script, tmp_path):
    done = run(script, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"usage: {script}")
    assert list(tmp_path.iterdir()) == []  # --help writes nothing


@pytest.mark.parametrize("script, args", [("options_table.py", ["--check"]), ("sync_docs.py", ["--check"])])
def test_the_cheap_checks_run_for_real(script, args, tmp_path):
    done = run(script, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_touch_timing_runs_from_another_folder(tmp_path):
    done = run("speed.py", "--touch", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "core (lists to codes to decoded entities) / the touch" in done.stdout
