"""One test per patch of ``ner_evaluate``: evaluate, unpatched, still behaves as the patch says.

Each test runs a plain ``evaluate.Metric`` (no patch) and asserts the behaviour the patch fixes. The day
evaluate changes it, the test fails: the patch may then go (or must change). The patched behaviour
itself is tested elsewhere (test_errors, test_distributed, test_inputs, test_speed-related tests).
"""

import inspect
import os

import datasets
import evaluate
import pytest

from ner_recall.integrations import evaluate_patches as ner_evaluate


class Plain(evaluate.Metric):
    """A metric with evaluate's own compute, add_batch and cache, and a keyword option."""

    def _info(self):
        sequence = datasets.Sequence(datasets.Value("string"))
        return evaluate.MetricInfo(
            description="",
            citation="",
            inputs_description="",
            features=datasets.Features({"predictions": sequence, "references": sequence}),
        )

    def _compute(self, predictions, references, bogus=None):
        if bogus is not None:
            raise ValueError("bogus option")
        return {"n": len(predictions)}


OK = {"predictions": [["O"]], "references": [["O"]]}


def patched(name):
    """The patch exists, so that a test here does not outlive it."""
    assert name in vars(ner_evaluate.EvaluatePatches) or hasattr(ner_evaluate, name), name


def test_compute_writes_the_cache_before_it_sees_an_option_and_keeps_it_after_a_failure(tmp_path):
    patched("compute")
    patched("_release_cache")
    metric = Plain(cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match="bogus option"):
        metric.compute(**OK, bogus=1)
    # the inputs were written before the option was seen, and the failed call left file and lock
    assert metric.file_paths and all(os.path.exists(p) for p in metric.file_paths)
    assert all(lock.is_locked for lock in metric.filelocks)
    for lock in metric.filelocks:
        lock.release()


def test_add_batch_names_no_place_for_a_bad_row(tmp_path):
    patched("add_batch")
    patched("add")
    metric = Plain(cache_dir=str(tmp_path))
    with pytest.raises(ValueError) as error:
        metric.add_batch(predictions=[["O"], ["O"], 5], references=[["O"]] * 3)
    assert "don't match the expected format" in str(error.value) and "[2]" not in str(error.value)


def test_a_failed_first_add_batch_leaves_its_writer_and_cache_file(tmp_path):
    patched("_drop_writer")
    metric = Plain(cache_dir=str(tmp_path))
    with pytest.raises(ValueError):
        metric.add_batch(predictions=[["O"], 5], references=[["O"], ["O"]])
    assert metric.writer is not None and os.path.exists(metric.cache_file_name)


def test_compute_reads_the_cache_back_as_python_lists(tmp_path):
    patched("_store")  # writes one Arrow table a batch; the metric's _info asks for the "arrow" format
    assert Plain(cache_dir=str(tmp_path)).info.format is None


def test_process_0_reads_every_cache_file_with_one_format_and_knows_no_other_run():
    patched("_read_caches")
    patched("_check_one_run")
    source = inspect.getsource(evaluate.Metric._finalize)
    assert 'reader.read_files([{"filename": f} for f in file_paths])' in source
    assert "experiment_id" in source and "joined" not in source


def test_compute_memory_maps_the_whole_cache_file(tmp_path):
    patched("_reads_codes")  # one process's cache of tag strings is read batch by batch instead
    metric = Plain(cache_dir=str(tmp_path))
    metric.add_batch(**OK)
    metric._finalize()
    try:
        assert isinstance(metric.data.data, datasets.table.MemoryMappedTable)
    finally:
        for lock in metric.filelocks:
            lock.release()
