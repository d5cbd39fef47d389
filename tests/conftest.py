"""Test set-up: the repo root on sys.path, the Hub never contacted."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: the package importable in every process a test starts, from any folder, installed or not
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
#: the command line as users start it (``ner-recall`` once installed)
CLI = [sys.executable, "-m", "ner_recall"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")


def require(module_name, why=""):
    """Import an optional dependency of a heavyweight suite.

    Skips the test where it is missing, except in CI (``CI`` set), where a missing
    dependency means the CI set-up is broken and the test fails.
    """
    import importlib

    try:
        return importlib.import_module(module_name)
    except ImportError:
        message = f"{module_name} is not installed{': ' + why if why else ''}"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI installs it: see .ci/run)")
        skip(message)


def skip(message):
    """Skip the calling test, reported at the test (``pytest -ra`` names it), not at this helper."""
    raise pytest.skip.Exception(message, allow_module_level=True, _use_item_location=True)


METRIC_PATH = os.path.join(ROOT, "ner_recall_metric.py")
#: the shared folder beside the project (read only): the published recall benchmarks
SHARED_BENCHMARKS = os.path.join(ROOT, "..", "shared", "benchmarks")


def benchmark_csv(name):
    """The ``data_description.csv`` of a shared benchmark; skips (never fails) when ``../shared`` is absent."""
    path = os.path.join(SHARED_BENCHMARKS, name, "data_description.csv")
    if not os.path.isfile(path):
        skip(f"../shared/benchmarks/{name} is not beside the project ({SHARED_BENCHMARKS})")
    return path


@pytest.fixture(scope="session")
def metric():
    """The metric as users get it: ``evaluate.load`` of the script."""
    import evaluate

    return evaluate.load(METRIC_PATH)


@pytest.fixture(scope="session")
def compiled():
    """The compiled kernels of the class-id path (``ner_fast.compiled``); numba required."""
    from ner_recall.pipeline import fast as ner_fast

    require("numba", "the compiled path of class ids")
    run = ner_fast.compiled()
    assert run is not None
    return run


#: suites that start engines, browsers, models or thousands of generated cases: marked ``slow``, left
#: out of the README's test command (``-m "not slow"``) and run by CI (``.ci/run``) after it
SLOW_MODULES = frozenset(
    [
        "test_app_browser.py",
        "test_distributed.py",
        "test_engines.py",
        "test_estnltk_reproduction.py",
        "test_evaluator.py",
        "test_fuzz.py",
        "test_fuzz_surfaces.py",
        "test_trainer.py",
    ]
)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a heavy suite; run by CI, left out of the quick command")


#: single tests of the quick suites that start subprocesses, peers or copies of the folder (each
#: tens of seconds on 2 cores): slow too
SLOW_TESTS = (
    "test_fast_ids.py::test_numba_is_not_imported_with_the_metric",
    "test_fast_ids.py::test_compute_takes_the_compiled_path_for_a_large_corpus",
    "test_agreement.py::test_span_alpha_equals_the_krippendorff_package",
    "test_record.py::test_the_command_line_records_and_reruns",
    "test_harem_markup.py::test_the_command_line_",
    "test_harem_markup.py::test_a_plain_system_scored_against_its_own_gold_is_perfect",
    "test_layout.py::test_no_fact_of_the_vocabulary_is_defined_twice",
    "test_layout.py::test_loads_from_a_copied_folder_with_nothing_else_on_the_path",
    "test_slice_results.py::test_holm_equals_statsmodels",
    "test_readme.py::test_tables_come_from_their_scripts",
    "test_readme.py::test_example_scripts_run_from_another_folder",
    "test_stratified.py::test_million_entities_in_100_strata",
    "test_report_cli.py::test_io_files_with_bare_types_and_untyped_files_from_another_folder",
    "test_report_cli.py::test_module_from_the_repo_root",
    "test_bench_scripts.py::test_the_touch_timing_runs_from_another_folder",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        node = item.nodeid.split("/")[-1]
        if item.path.name in SLOW_MODULES or node.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


def unsigned(results):
    """The results without their ``"signature"`` (which names the options of the call): for
    comparing the numbers of two calls whose options differ but should give the same numbers."""
    return {k: v for k, v in results.items() if k != "signature"}


def assert_signed(results):
    """The results carry a signature: a str of at most 120 characters."""
    signature = results["signature"]
    assert isinstance(signature, str) and 0 < len(signature) <= 120, signature
