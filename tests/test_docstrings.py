"""Every ``>>>`` example in the docs runs: the core modules and the metric card's examples."""

import doctest
import glob
import importlib
import os

import pytest

from conftest import ROOT

#: the package's modules that hold code (not the packages' one-line docstrings, the app's tabs or ``__main__``)
CORE_MODULES = sorted(
    os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    for path in glob.glob(os.path.join(ROOT, "ner_recall", "*", "*.py"))
    if not path.endswith("__init__.py")
    and os.sep + "app" + os.sep not in path
    # the command line's reports of two golds and of generated output: tests/test_report_cli.py runs them
    and not path.endswith(os.path.join("cli", "gold_and_generated.py"))
)


@pytest.mark.parametrize("name", CORE_MODULES)
def test_module_examples_run(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failed == 0
    assert attempted > 0, f"{name} has no examples"


def test_metric_examples_run(metric, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples load "ner_recall_metric.py" from the working directory
    parser = doctest.DocTestParser()
    test = parser.get_doctest(metric.inputs_description, {}, "inputs_description", None, 0)
    assert test.examples, "the metric card has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0
