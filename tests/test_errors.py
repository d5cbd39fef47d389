"""Every bad input gets a ValueError that says what and where."""

import re

import pytest

OK = [["B-PER", "O"]]

ERRORS = [
    # (compute arguments, message pattern)
    (dict(predictions=[["O", "O"]], references=[["O"]]),
     "predictions[0] has 2 tags but references[0] has 1"),
    (dict(predictions=[["O"], ["O", "O"]], references=[["O"], ["O"]]),
     "predictions[1] has 2 tags but references[1] has 1"),
    (dict(predictions=[["O"], ["O"]], references=[["O"]]),
     "Mismatch in the number of predictions (2) and references (1)"),
    (dict(predictions=[], references=[]), "no sentences: predictions and references are empty"),
    (dict(predictions=[["O", "B-"]], references=[["O", "O"]]),
     "tag 'B-' at predictions[0][1] has an empty entity type"),
    (dict(predictions=[["O", "O"]], references=[["O", "X-PER"]]),
     "invalid tag 'X-PER' at references[0][1] (scheme None (lenient) expects O, B-*, I-*, E-*, S-* as PREFIX-TYPE)"),
    (dict(predictions=[["PER"]], references=[["O"]]), "invalid tag 'PER' at predictions[0][0]"),
    (dict(predictions=[["BPER"]], references=[["O"]]), "invalid tag 'BPER' at predictions[0][0]"),
    (dict(predictions=[["O-PER"]], references=[["O"]]), "invalid tag 'O-PER' at predictions[0][0]"),
    (dict(predictions=[["U-PER"]], references=[["O"]]), "for BILOU tags use mode='strict', scheme='BILOU'"),
    (dict(predictions=[["B-PER", "E-PER"]], references=[["O", "O"]], mode="strict", scheme="IOB2"),
     "invalid tag 'E-PER' at predictions[0][1] (scheme IOB2 expects O, B-*, I-* as PREFIX-TYPE)"),
    (dict(predictions=[["B-PER"]], references=[["O"]], suffix=True),
     "invalid tag 'B-PER' at predictions[0][0] (scheme None (lenient) expects O, B-*, I-*, E-*, S-* as TYPE-PREFIX)"),
    (dict(predictions=[["O", None]], references=[["O", "O"]]),
     "predictions[0][1] is None, neither a tag (str) nor a class id (int)"),
    (dict(predictions=[["O", 5]], references=[["O", "O"]]),
     "predictions[0][1] is a class id (5) but earlier items are tags"),
    (dict(predictions=[["O"]], references=[[["O"]]]),
     "references[0][0] is ['O'], neither a tag (str) nor a class id (int)"),
    (dict(predictions=[["B-muc"]], references=[["O"]]), "entity type 'muc' collides with a result key"),
    (dict(predictions=[["B-overall_f1"]], references=[["O"]]), "entity type 'overall_f1' collides with a result key"),
    (dict(predictions=OK, references=OK, mode="bogus"), "mode must be one of [None, 'strict']; got 'bogus'"),
    (dict(predictions=OK, references=OK, mode="strict"),
     "mode='strict' needs a scheme, one of ['BILOU', 'IO', 'IOB1', 'IOB2', 'IOBES', 'IOE1', 'IOE2']"),
    (dict(predictions=OK, references=OK, mode="strict", scheme="IOB3"),
     "scheme must be one of ['BILOU', 'IO', 'IOB1', 'IOB2', 'IOBES', 'IOE1', 'IOE2'] or None; got 'IOB3'"),
    (dict(predictions=OK, references=OK, scheme="IOB2"), "scheme='IOB2' only applies with mode='strict'"),
    (dict(predictions=OK, references=OK, zero_division="warn"), "zero_division must be one of [0, 1]; got 'warn'"),
    (dict(predictions=OK, references=OK, zero_division=True), "zero_division must be one of [0, 1]; got True"),
    (dict(predictions=OK, references=OK, suffix="yes"), "suffix must be True or False; got 'yes'"),
]


@pytest.mark.parametrize("arguments, message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_error_messages(metric, arguments, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        metric.compute(**arguments)


def test_add_names_the_position_in_the_sentence(metric):
    with pytest.raises(ValueError, match=re.escape("prediction[1] is a class id (3) but earlier items are tags")):
        metric.add(prediction=["O", 3], reference=["O", "O"])


def test_unknown_option_is_rejected(metric):
    with pytest.raises(TypeError, match="unexpected keyword argument 'sample_weight'"):
        metric.compute(predictions=OK, references=OK, sample_weight=[1])


def test_strict_mode_drops_ill_formed_entities_instead_of_failing(metric):
    results = metric.compute(predictions=[["I-PER", "O"]], references=[["B-PER", "O"]], mode="strict", scheme="IOB2")
    assert results["muc"]["strict"]["missed"] == 1 and results["muc"]["strict"]["spurious"] == 0


@pytest.mark.parametrize("form", ["numpy", "arrow", "pandas", "torch"])
def test_batches_from_formatted_datasets_pass_the_type_check(metric, form):
    import datasets

    if form == "torch":
        pytest.importorskip("torch")
    names = ["O", "B-PER", "I-PER"]
    data = datasets.Dataset.from_dict({"pred": [[1, 2, 0], [0, 1]], "gold": [[1, 2, 0], [0, 0]]}).with_format(form)
    for batch in data.iter(batch_size=1):
        metric.add_batch(predictions=batch["pred"], references=batch["gold"])
    assert metric.compute(label_names=names)["overall_f1"] == pytest.approx(2 / 3)


def test_float_arrays_are_neither_tags_nor_ids(metric):
    import numpy as np

    with pytest.raises(ValueError, match=re.escape("predictions[0] holds float64 values, neither tags (str) nor class ids")):
        metric.compute(predictions=[np.array([0.1, 0.9])], references=[np.array([1, 2])], label_names=["O", "B-A", "I-A"])
