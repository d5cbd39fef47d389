"""Progress of long work: the app's callback, the terminal bar's switches, cancelling."""

import io
import sys

import pytest

from ner_recall.core import progress as ner_progress

TAGS = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "O", "O"]] * 50
OTHER = [["B-PER", "O", "O", "B-LOC"], ["O", "B-ORG", "O", "O"]] * 50


class Cancelled(Exception):
    pass


def test_a_bootstrap_reports_its_resamples_in_order(metric):
    seen = []
    with metric.reporting(lambda done, what: seen.append((done, what))):
        metric.compute(predictions=TAGS, references=TAGS, ci_resamples=200)
    fractions = [done for done, what in seen if what == "bootstrap resamples"]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)


def test_a_comparison_reports_its_permutations(metric):
    seen = []
    with metric.reporting(lambda done, what: seen.append(what)):
        metric.compare(
            predictions=TAGS, predictions_b=OTHER, references=TAGS, permutations=100, ci_resamples=50
        )
    assert "permutations" in seen and "bootstrap resamples" in seen


def test_a_callback_that_raises_cancels_and_the_metric_stays_usable(metric):
    def cancel(done, what):
        if done > 0:
            raise Cancelled

    with pytest.raises(Cancelled), metric.reporting(cancel):
        metric.compute(predictions=TAGS, references=TAGS, ci_resamples=5_000)
    assert metric.compute(predictions=TAGS, references=TAGS)["overall_f1"] == 1.0


def test_nothing_is_reported_outside_reporting():
    with ner_progress.steps(3, "work") as counter:
        counter.advance(3)
    assert counter.done == 3 and counter._callback is None


@pytest.mark.parametrize("tty", [False, True])
def test_a_bar_only_on_a_terminal(monkeypatch, tty):
    stream = io.StringIO()
    stream.isatty = lambda: tty
    monkeypatch.setattr(sys, "stderr", stream)
    assert ner_progress.bars_enabled() is tty


def test_datasets_switch_turns_bars_off(monkeypatch):
    import datasets

    stream = io.StringIO()
    stream.isatty = lambda: True
    monkeypatch.setattr(sys, "stderr", stream)
    datasets.disable_progress_bars()
    try:
        assert not ner_progress.bars_enabled()
    finally:
        datasets.enable_progress_bars()
    assert ner_progress.bars_enabled()


def test_a_state_of_many_blocks_reports_them_as_it_reads_them(metric):
    parts = [
        metric.state(predictions=TAGS[k : k + 20], references=TAGS[k : k + 20], first_sentence=k)
        for k in range(0, len(TAGS), 20)
    ]
    merged = sum(parts, metric.State())
    seen = []
    with metric.reporting(lambda done, what: seen.append((done, what))):
        back = metric.State.from_bytes(merged.to_bytes())
    blocks = [done for done, what in seen if what == "state blocks"]
    assert blocks[0] == 0.0 and blocks[-1] == 1.0 and len(blocks) == len(parts) + 1
    assert metric.finalize(back)["overall_f1"] == 1.0


def test_a_file_reports_its_lines_as_it_reads_them(metric, tmp_path):
    path = tmp_path / "both.conll"
    path.write_text("".join(f"w{i} B-PER B-PER\nx{i} O O\n\n" for i in range(50)))
    seen = []
    with metric.reporting(lambda done, what: seen.append((done, what))):
        inputs = metric.read_files(str(path))
    assert [done for done, what in seen if what == "lines of both.conll"][::-1][0] == 1.0
    assert seen[0] == (0.0, "lines of both.conll") and len(inputs.references) == 50
