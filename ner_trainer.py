"""Class ids, ``transformers.Trainer`` and flat result names for the NER metric.

Pure helpers (stdlib and numpy only; they import nothing else of this project, because
``evaluate`` copies each module beside the metric script on its own):

* :func:`as_tags` turns integer class ids (as a ``datasets.ClassLabel`` column holds them)
  into tag strings through ``label_names``, with errors that name the place;
* :func:`decode_eval_prediction` turns a Trainer ``EvalPrediction`` (logits or ids, labels
  with -100 on ignored positions) into tag sequences;
* :func:`flatten_results` flattens a nested result into the ``{name: number}`` dict that
  Trainer logs;
* :func:`make_compute_metrics` ties them into a ``compute_metrics`` callable.

Flat names: nested keys are joined with ``_`` and a ``per_type`` level is dropped, so
``results["muc"]["partial"]["f1"]`` is ``muc_partial_f1``, ``results["PER"]["f1"]`` is
``PER_f1`` and ``results["muc"]["strict"]["per_type"]["PER"]["missed"]`` is
``muc_strict_PER_missed``; top-level numbers keep their names (``overall_f1``). Lists of
numbers are indexed (``..._interval_0``); other lists (the ``errors`` listing), ``None``
and strings are left out. Two paths that would give one name are a ``ValueError``: a name
never stands for two numbers.

>>> as_tags([[0, 1, 2]], [[0, 1, 1]], ["O", "B-PER", "I-PER"])
([['O', 'B-PER', 'I-PER']], [['O', 'B-PER', 'B-PER']])
>>> flatten_results({"overall_f1": 0.5, "PER": {"f1": 1.0, "number": 2},
...                  "muc": {"strict": {"f1": 0.5, "per_type": {"PER": {"f1": 1.0}}}}})
{'overall_f1': 0.5, 'PER_f1': 1.0, 'PER_number': 2, 'muc_strict_f1': 0.5, 'muc_strict_PER_f1': 1.0}
"""

import inspect
import numbers
from itertools import chain

import numpy as np

#: label value of positions Trainer (and the data collators) ignore
IGNORE_INDEX = -100
#: inputs of the metric that tags provide; any other input column can not come from Trainer
TAG_INPUTS = ("predictions", "references")
#: levels of a result that add nothing to a flat name
TRANSPARENT_KEYS = frozenset(["per_type"])


def check_label_names(label_names):
    """Validate ``label_names``: a list (or tuple) of str, one per class id. Returns a tuple."""
    if isinstance(label_names, (str, bytes)) or not isinstance(label_names, (list, tuple)):
        raise ValueError(f"label_names must be a list of str (the tag of each class id); got {label_names!r}")
    bad = next((i for i, name in enumerate(label_names) if not isinstance(name, str)), None)
    if bad is not None:
        raise ValueError(f"label_names[{bad}] must be a str; got {label_names[bad]!r}")
    if not label_names:
        raise ValueError("label_names is empty")
    return tuple(label_names)


def _is_id(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _first(sequences):
    """(i, j, value) of the first element of a list of sequences, or None if all are empty."""
    for i, sequence in enumerate(sequences):
        for j, value in enumerate(sequence):
            return i, j, value
    return None


def _not_a_class_id(side, i, j, value, n):
    return ValueError(f"{side}[{i}][{j}] = {value!r} is not a class id: label_names has {n} names")


def _first_non_id(sequences, side, n):
    i, j, value = next((i, j, v) for i, s in enumerate(sequences) for j, v in enumerate(s) if not _is_id(v))
    return _not_a_class_id(side, i, j, value, n)


def ids_to_tags(sequences, label_names, side="predictions"):
    """Class-id sequences to tag sequences; ``side`` names the input in errors."""
    names = label_names
    lengths = [len(sequence) for sequence in sequences]
    try:
        flat = np.fromiter(chain.from_iterable(sequences), dtype=np.int64, count=sum(lengths))
    except (TypeError, ValueError, OverflowError):
        raise _first_non_id(sequences, side, len(names)) from None
    bad = np.flatnonzero((flat < 0) | (flat >= len(names)))
    if bad.size:
        ends = np.cumsum(lengths)
        i = int(np.searchsorted(ends, bad[0], side="right"))
        j = int(bad[0] - (ends[i] - lengths[i]))
        raise _not_a_class_id(side, i, j, int(flat[bad[0]]), len(names))
    try:
        return [[names[k] for k in sequence] for sequence in sequences]
    except TypeError:  # a float, which fromiter truncated
        raise _first_non_id(sequences, side, len(names)) from None


def as_tags(predictions, references, label_names=None):
    """Both sides as tag strings: class ids are mapped through ``label_names``.

    Without ``label_names`` the input must be tags; with it, class ids. A side that holds
    the other kind is a ``ValueError`` naming its first element.
    """
    if label_names is not None:
        label_names = check_label_names(label_names)
    sides = (("predictions", predictions), ("references", references))
    for side, sequences in sides:
        first = _first(sequences)
        if first is None:
            continue
        i, j, value = first
        if label_names is None and _is_id(value):
            raise ValueError(f"{side}[{i}][{j}] = {value!r} is a class id: pass label_names, the tag of each id")
        if label_names is not None and not _is_id(value):
            hint = ""
            if isinstance(value, str) and value.lstrip("-").isdigit():
                hint = (" (evaluate picks the input format from the first example: when its sentences are"
                        " empty, class ids are stored as strings; put a non-empty sentence first)")
            raise ValueError(f"{side}[{i}][{j}] = {value!r} is not a class id, but label_names is given{hint}")
    if label_names is None:
        return predictions, references
    return tuple(ids_to_tags(sequences, label_names, side) for side, sequences in sides)


def _unpack(eval_prediction):
    """(predictions, label_ids) of an ``EvalPrediction`` or a ``(predictions, label_ids[, inputs[, losses]])`` tuple."""
    if hasattr(eval_prediction, "predictions") and hasattr(eval_prediction, "label_ids"):
        predictions, label_ids = eval_prediction.predictions, eval_prediction.label_ids
    elif isinstance(eval_prediction, (tuple, list)) and len(eval_prediction) in (2, 3, 4):
        predictions, label_ids = eval_prediction[0], eval_prediction[1]
    else:
        raise ValueError(f"expected an EvalPrediction or a (predictions, label_ids, ...) tuple;"
                         f" got {type(eval_prediction).__name__}")
    if isinstance(predictions, tuple):  # model outputs: the logits come first
        predictions = predictions[0]
    if isinstance(label_ids, tuple):
        label_ids = label_ids[0]
    if label_ids is None:
        raise ValueError("the EvalPrediction has no label_ids: the eval dataset needs a 'labels' column")
    return np.asarray(predictions), np.asarray(label_ids)


def decode_eval_prediction(eval_prediction, label_names, ignore_index=IGNORE_INDEX):
    """Predicted and gold tag sequences of an ``EvalPrediction``.

    ``predictions`` are logits (batch x length x classes, the argmax is taken) or class ids
    (batch x length); positions whose label is ``ignore_index`` are skipped on both sides.
    """
    names = check_label_names(label_names)
    predictions, labels = _unpack(eval_prediction)
    if predictions.ndim == 3:
        predictions = predictions.argmax(axis=-1)
    elif predictions.ndim != 2 or not np.issubdtype(predictions.dtype, np.integer):
        raise ValueError(f"predictions must be logits (batch x length x classes) or integer class ids"
                         f" (batch x length); got {predictions.dtype} of shape {predictions.shape}")
    if labels.ndim != 2 or not np.issubdtype(labels.dtype, np.integer) or labels.shape != predictions.shape:
        raise ValueError(f"label_ids must be integer class ids of shape {predictions.shape} like the"
                         f" predictions; got {labels.dtype} of shape {labels.shape}")
    keep = labels != ignore_index
    for side, ids in (("label_ids", labels), ("predictions", predictions)):
        bad = np.argwhere(keep & ((ids < 0) | (ids >= len(names))))
        if bad.size:
            i, j = map(int, bad[0])
            raise _not_a_class_id(side, i, j, int(ids[i, j]), len(names))
    table = np.array(names, dtype=object)
    pred_tags = [table[row[mask]].tolist() for row, mask in zip(predictions, keep)]
    gold_tags = [table[row[mask]].tolist() for row, mask in zip(labels, keep)]
    return pred_tags, gold_tags


def _is_number(value):
    return isinstance(value, (numbers.Real, np.number, np.bool_))


def _leaves(value, path):
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _leaves(sub, path if key in TRANSPARENT_KEYS else path + (str(key),))
    elif isinstance(value, (list, tuple)):
        if all(_is_number(sub) for sub in value):  # e.g. an interval; not a listing such as "errors"
            for k, sub in enumerate(value):
                yield from _leaves(sub, path + (str(k),))
    elif isinstance(value, (bool, np.bool_)):
        yield path, int(value)
    elif isinstance(value, (numbers.Integral, np.integer)):
        yield path, int(value)
    elif isinstance(value, (numbers.Real, np.floating)):
        yield path, float(value)
    # None, strings and other values have no number to log


def flatten_results(results):
    """A nested result as one flat ``{name: int or float}`` dict (names: see the module doc)."""
    flat, origin = {}, {}
    for path, number in _leaves(results, ()):
        name = "_".join(path)
        if name in flat:
            raise ValueError(f"result paths {origin[name]} and {path} both flatten to {name!r};"
                             f" rename the entity type")
        flat[name], origin[name] = number, path
    return flat


def check_options(options, compute_signature, fixed=(*TAG_INPUTS, "label_names")):
    """Raise unless every option is a keyword of the metric's ``_compute`` (typos fail early)."""
    known = [name for name in inspect.signature(compute_signature).parameters if name not in fixed]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"unknown compute option {unknown[0]!r}; options: {known}")


def make_compute_metrics(compute, label_names, options, *, compute_signature, input_names=TAG_INPUTS):
    """A ``compute_metrics(eval_prediction) -> {name: number}`` for ``transformers.Trainer``.

    ``compute`` is the metric's ``compute``; ``options`` its keyword options, checked now
    against ``compute_signature`` and by scoring every label name once, so that a typo or an
    invalid tag fails before training, not at the first evaluation.
    """
    names = check_label_names(label_names)
    extra = [name for name in input_names if name not in TAG_INPUTS]
    if extra:
        raise ValueError(f"trainer_compute_metrics scores tags only; this configuration also needs inputs {extra}")
    check_options(options, compute_signature)
    compute(predictions=[list(names)], references=[list(names)], **options)

    def compute_metrics(eval_prediction):
        predictions, references = decode_eval_prediction(eval_prediction, names)
        return flatten_results(compute(predictions=predictions, references=references, **options))

    return compute_metrics
