"""Every bad input gets a ValueError that says what and where."""

import re

import pytest

from conftest import require

OK = [["B-PER", "O"]]

ERRORS = [
    # (compute arguments, message pattern)
    (dict(predictions=[["O", "O"]], references=[["O"]]), "predictions[0] has 2 tags but references[0] has 1"),
    (
        dict(predictions=[["O"], ["O", "O"]], references=[["O"], ["O"]]),
        "predictions[1] has 2 tags but references[1] has 1",
    ),
    (
        dict(predictions=[["O"], ["O"]], references=[["O"]]),
        "predictions has 2 sentences but references has 1",
    ),
    (dict(predictions=[], references=[]), "no sentences: predictions and references are empty"),
    (
        dict(predictions=[["O", "B-"]], references=[["O", "O"]]),
        "tag 'B-' at predictions[0][1] has an empty entity type",
    ),
    (
        dict(predictions=[["O", "O"]], references=[["O", "X-PER"]]),
        "invalid tag 'X-PER' at references[0][1] (scheme None (lenient) expects O, B-*, I-*, E-*, S-* as PREFIX-TYPE)",
    ),
    (dict(predictions=[["PER"]], references=[["O"]]), "invalid tag 'PER' at predictions[0][0]"),
    (dict(predictions=[["BPER"]], references=[["O"]]), "invalid tag 'BPER' at predictions[0][0]"),
    (dict(predictions=[["O-PER"]], references=[["O"]]), "invalid tag 'O-PER' at predictions[0][0]"),
    (dict(predictions=[["U-PER"]], references=[["O"]]), "for BILOU tags use mode='strict', scheme='BILOU'"),
    (
        dict(predictions=[["B-PER", "E-PER"]], references=[["O", "O"]], mode="strict", scheme="IOB2"),
        "invalid tag 'E-PER' at predictions[0][1] (scheme IOB2 expects O, B-*, I-* as PREFIX-TYPE)",
    ),
    (
        dict(predictions=[["B-PER"]], references=[["O"]], suffix=True),
        "invalid tag 'B-PER' at predictions[0][0] (scheme None (lenient) expects O, B-*, I-*, E-*, S-* as TYPE-PREFIX)",
    ),
    (
        dict(predictions=[["O", None]], references=[["O", "O"]]),
        "predictions[0][1] is None, neither a tag (str) nor a class id (int)",
    ),
    (
        dict(predictions=[["O", 5]], references=[["O", "O"]]),
        "predictions[0][1] is a class id (5) but the other items are tags",
    ),
    (
        dict(
            predictions=[[5, "O", "O"]], references=[["O", "O", "O"]]
        ),  # the stray item is named, not the next
        "predictions[0][0] is a class id (5) but the other items are tags",
    ),
    (
        dict(predictions=[["O"]], references=[[1]], label_names=["O"]),
        "references[0][0] is a class id (1) but predictions hold tags",
    ),
    (
        dict(predictions=[[b"O"]], references=[["O"]]),
        "predictions[0][0] is b'O', neither a tag (str) nor a class id",
    ),
    (dict(predictions=[b"O"], references=[[1]]), "predictions[0] is a bytes; a sentence is a list of tags"),
    (dict(predictions=["O"], references=[["O"]]), "predictions[0] is a str; a sentence is a list of tags"),
    (dict(predictions=None, references=[["O"]]), "predictions must be a list of sentences"),
    (
        dict(predictions=5, references=[["O"]]),
        "predictions must be a list of sentences (or a 2-D array, a tensor, an Arrow list column); got int",
    ),
    (dict(predictions={("O",)}, references=[["O"]]), "got set"),
    (dict(predictions=(s for s in [["O"]]), references=[["O"]]), "got generator"),
    (dict(predictions={"a": ["O"]}, references=[["O"]]), "got dict"),
    (
        dict(predictions=[[2**63]], references=[[0]], label_names=["O"]),
        "predictions[0][0] = 9223372036854775808 is not a class id: out of the int64 range",
    ),
    (
        dict(predictions=[[True]], references=[[0]], label_names=["O"]),
        "predictions[0][0] is True, neither a tag",
    ),
    (
        dict(predictions=[[0.0]], references=[[0]], label_names=["O"]),
        "predictions[0][0] is 0.0, neither a tag",
    ),
    (
        dict(predictions=[["O"]], references=[[["O"]]]),
        "references[0][0] is ['O'], neither a tag (str) nor a class id (int)",
    ),
    (
        dict(predictions=[["B-muc"]], references=[["O"]]),
        "entity type 'muc' (the entity at predictions[0][0]) collides with a result key",
    ),
    (
        dict(predictions=[["B-overall_f1"]], references=[["O"]]),
        "entity type 'overall_f1' (the entity at predictions[0][0]) collides with a result key",
    ),
    (dict(predictions=OK, references=OK, mode="bogus"), "mode must be one of [None, 'strict']; got 'bogus'"),
    (
        dict(predictions=OK, references=OK, mode="strict"),
        "mode='strict' needs a scheme, one of ['BILOU', 'IO', 'IOB1', 'IOB2', 'IOBES', 'IOE1', 'IOE2']",
    ),
    (
        dict(predictions=OK, references=OK, mode="strict", scheme="IOB3"),
        "scheme must be one of ['BILOU', 'IO', 'IOB1', 'IOB2', 'IOBES', 'IOE1', 'IOE2'] or None; got 'IOB3'",
    ),
    (dict(predictions=OK, references=OK, scheme="IOB2"), "scheme='IOB2' only applies with mode='strict'"),
    (
        dict(predictions=OK, references=OK, zero_division="warn"),
        "zero_division must be one of [0, 1]; got 'warn'",
    ),
    (
        dict(predictions=OK, references=OK, zero_division=True),
        "zero_division must be one of [0, 1]; got True",
    ),
    (dict(predictions=OK, references=OK, suffix="yes"), "suffix must be True or False; got 'yes'"),
]


@pytest.mark.parametrize("arguments, message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_error_messages(metric, arguments, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compute(**arguments)


def test_add_names_the_position_in_the_sentence(metric):
    with pytest.raises(
        ValueError, match=re.escape("prediction[1] is a class id (3) but the other items are tags")
    ):
        metric.add(prediction=["O", 3], reference=["O", "O"])


def test_unknown_option_is_rejected(metric):
    with pytest.raises(ValueError, match="unknown compute option 'sample_weight'; options: "):
        metric.compute(predictions=OK, references=OK, sample_weight=[1])


INPUTS = ("predictions", "references")


@pytest.mark.parametrize("streamed", [False, True], ids=["compute", "add_batch"])
@pytest.mark.parametrize("arguments, message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_the_object_stays_usable_after_each_error(tmp_path, arguments, message, streamed):
    """Every error case, given to compute or streamed through add_batch first (same message on
    both paths), then valid calls on the same object."""
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(METRIC_PATH, cache_dir=str(tmp_path))
    options = {k: v for k, v in arguments.items() if k not in INPUTS}
    if streamed and "sentences: predictions and references are empty" in message:
        message = "no sentences: compute got no predictions and references, and none were added"
    with pytest.raises(ValueError, match=re.escape(message)):
        if streamed:
            metric.add_batch(**{k: v for k, v in arguments.items() if k in INPUTS})
            metric.compute(**options)
        else:
            metric.compute(**arguments)
    if len(metric):  # an option error after streaming: the stream is kept, and scores without it
        assert streamed and options and len(metric) == len(arguments["references"])
        metric.compute()
    assert metric.compute(predictions=OK, references=OK)["overall_f1"] == 1.0
    metric.add_batch(predictions=[[1, 0]], references=[[1, 0]])
    assert metric.compute(label_names=["O", "B-PER"])["overall_f1"] == 1.0


def test_strict_mode_drops_ill_formed_entities_instead_of_failing(metric):
    results = metric.compute(
        predictions=[["I-PER", "O"]], references=[["B-PER", "O"]], mode="strict", scheme="IOB2"
    )
    assert results["muc"]["strict"]["missed"] == 1 and results["muc"]["strict"]["spurious"] == 0


@pytest.mark.parametrize("form", ["numpy", "arrow", "pandas", "torch"])
def test_batches_from_formatted_datasets_pass_the_type_check(metric, form):
    import datasets

    if form == "torch":
        require("torch")
    names = ["O", "B-PER", "I-PER"]
    data = datasets.Dataset.from_dict({"pred": [[1, 2, 0], [0, 1]], "gold": [[1, 2, 0], [0, 0]]}).with_format(
        form
    )
    for batch in data.iter(batch_size=1):
        metric.add_batch(predictions=batch["pred"], references=batch["gold"])
    assert metric.compute(label_names=names)["overall_f1"] == pytest.approx(2 / 3)


def test_a_typo_after_streaming_keeps_the_streamed_data(tmp_path):
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(METRIC_PATH, cache_dir=str(tmp_path))
    metric.add_batch(predictions=[["B-PER", "O"]], references=[["B-PER", "O"]])
    metric.add_batch(predictions=[["O", "O"]], references=[["B-LOC", "O"]])
    for bad in (
        dict(mode="Strict"),
        dict(sample_weight=1),
        dict(zero_division="warn"),
        dict(label_names="O B-PER"),
    ):
        with pytest.raises(ValueError):
            metric.compute(**bad)
        assert len(metric) == 2
    assert metric.compute()["overall_recall"] == 0.5


def test_a_failed_class_id_call_does_not_break_later_tag_calls(tmp_path):
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(METRIC_PATH, cache_dir=str(tmp_path))
    metric.add_batch(predictions=[["O"]], references=[["O"]])  # the cached path
    with pytest.raises(ValueError, match="predictions has 2 sentences but references has 1"):
        metric.compute(predictions=[[1], [0]], references=[[1]], label_names=["O", "B-PER"])
    assert metric.compute()["overall_accuracy"] == 1.0
    with pytest.raises(ValueError, match="predictions has 2 sentences but references has 1"):
        metric.add_batch(predictions=[[1], [0]], references=[[1]])
    assert metric.compute(predictions=OK, references=OK)["overall_f1"] == 1.0
    metric.add_batch(predictions=OK, references=OK)
    assert metric.compute()["overall_f1"] == 1.0


def test_empty_batches_add_nothing_and_empty_input_is_named(tmp_path):
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(METRIC_PATH, cache_dir=str(tmp_path))
    metric.add_batch(predictions=[], references=[])
    assert len(metric) == 0
    with pytest.raises(
        ValueError, match="no sentences: compute got no predictions and references, and none were added"
    ):
        metric.compute()
    metric.add_batch(predictions=[], references=[])
    metric.add_batch(predictions=OK, references=OK)
    assert metric.compute()["overall_f1"] == 1.0


def test_kinds_must_not_change_within_a_stream(tmp_path):
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(METRIC_PATH, cache_dir=str(tmp_path))
    metric.add_batch(predictions=OK, references=OK)
    with pytest.raises(
        ValueError, match=re.escape("predictions[1][0] is a class id (1) but earlier sentences hold tags")
    ):
        metric.add_batch(predictions=[[1, 0]], references=[[1, 0]])
    with pytest.raises(
        ValueError, match=re.escape("predictions[0][0] = 'B-PER' is not a class id, but label_names")
    ):
        metric.compute(label_names=["O", "B-PER"])
    assert len(metric) == 1 and metric.compute()["overall_f1"] == 1.0


def test_float_arrays_are_neither_tags_nor_ids(metric):
    import numpy as np

    with pytest.raises(
        ValueError, match=re.escape("predictions[0] holds float64 values, neither tags (str) nor class ids")
    ):
        metric.compute(
            predictions=[np.array([0.1, 0.9])], references=[np.array([1, 2])], label_names=["O", "B-A", "I-A"]
        )
