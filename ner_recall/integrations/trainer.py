"""``transformers.Trainer`` and flat result names for the NER metric.

Pure helpers (stdlib and numpy only; they import nothing else of this project, because
``evaluate`` copies each module beside the metric script on its own):

* :func:`eval_prediction_ids` turns a Trainer ``EvalPrediction`` (logits or class ids,
  labels with -100 on ignored positions) into two 2-D arrays of class ids, which the
  metric's ``compute`` takes as they are, with ``label_names``;
* :func:`flatten_results` flattens a nested result into the ``{name: number}`` dict that
  Trainer logs;
* :func:`make_compute_metrics` ties them into a ``compute_metrics`` callable.

Flat names: nested keys are joined with ``_`` and a ``per_type`` level is dropped, so
``results["muc"]["partial"]["f1"]`` is ``muc_partial_f1``, ``results["PER"]["f1"]`` is
``PER_f1`` and ``results["muc"]["strict"]["per_type"]["PER"]["missed"]`` is
``muc_strict_PER_missed``; top-level numbers keep their names (``overall_f1``). An interval's
two ends are ``..._low`` and ``..._high`` (``intervals_overall_f1_low``), longer lists of numbers
are indexed (``..._0``); other lists (the ``errors`` listing), ``None``
and strings are left out. Two paths that would give one name are a ``ValueError``: a name
never stands for two numbers.

>>> ids, labels = eval_prediction_ids((np.array([[[0.1, 0.9], [0.8, 0.2]]]), np.array([[1, -100]])))
>>> ids.tolist(), labels.tolist()
([[1, 0]], [[1, -100]])
>>> flatten_results({"overall_f1": 0.5, "PER": {"f1": 1.0, "number": 2},
...                  "muc": {"strict": {"f1": 0.5, "per_type": {"PER": {"f1": 1.0}}}}})
{'overall_f1': 0.5, 'PER_f1': 1.0, 'PER_number': 2, 'muc_strict_f1': 0.5, 'muc_strict_PER_f1': 1.0}
"""

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.vocabulary import IGNORE_INDEX

#: label value of positions Trainer (and the data collators) ignore
#: inputs of the metric that tags provide; any other input column can not come from Trainer
TAG_INPUTS = ("predictions", "references")
#: the names of an interval's two ends in a flat name (``intervals_overall_f1_low``)
INTERVAL_ENDS = ("low", "high")
#: levels of a result that add nothing to a flat name
TRANSPARENT_KEYS = frozenset(["per_type"])


def _unpack(eval_prediction):
    """(predictions, label_ids) of an ``EvalPrediction`` or a ``(predictions, label_ids[, inputs[, losses]])`` tuple."""
    if hasattr(eval_prediction, "predictions") and hasattr(eval_prediction, "label_ids"):
        predictions, label_ids = eval_prediction.predictions, eval_prediction.label_ids
    elif isinstance(eval_prediction, (tuple, list)) and len(eval_prediction) in (2, 3, 4):
        predictions, label_ids = eval_prediction[0], eval_prediction[1]
    else:
        raise ValueError(
            f"expected an EvalPrediction or a (predictions, label_ids, ...) tuple;"
            f" got {type(eval_prediction).__name__}"
        )
    if isinstance(predictions, tuple):  # model outputs: the logits come first
        predictions = predictions[0]
    if isinstance(label_ids, tuple):
        label_ids = label_ids[0]
    if label_ids is None:
        raise ValueError("the EvalPrediction has no label_ids: the eval dataset needs a 'labels' column")
    return _array(predictions, "predictions"), _array(label_ids, "label_ids")


def _array(value, name):
    """``value`` as an array; a ragged list (rows of different lengths) is a ValueError naming the row."""
    try:
        return np.asarray(value)
    except ValueError:
        lengths = [len(row) if hasattr(row, "__len__") else None for row in value]
        i = next((i for i, n in enumerate(lengths) if n != lengths[0]), 0)
        raise ValueError(
            f"{name} must be a rectangular array (batch x length), padded with -100 as Trainer pads them;"
            f" {name}[{i}] has {lengths[i]} items but {name}[0] has {lengths[0]}"
        ) from None


def eval_prediction_ids(
    eval_prediction: Any, ignore_index: int = IGNORE_INDEX
) -> tuple[NDArray[np.integer], NDArray[np.integer]]:
    """(predicted ids, label ids), two 2-D integer arrays, of an ``EvalPrediction``.

    ``predictions`` are logits (batch x length x classes, the argmax is taken) or class ids
    (batch x length). Logits that hold NaN at a labelled position are a ``ValueError``
    (``argmax`` would pick the NaN's class silently).
    """
    predictions, labels = _unpack(eval_prediction)
    if predictions.ndim == 3 and labels.ndim == 2 and predictions.shape[:2] != labels.shape:
        raise ValueError(
            f"label_ids have shape {labels.shape} but the logits have {predictions.shape[:2]} (batch x length)"
            f" before their {predictions.shape[2]} classes; both come from the same eval batch"
        )
    if labels.ndim != 2 or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(
            f"label_ids must be integer class ids (batch x length); got {labels.dtype} of shape"
            f" {labels.shape}"
        )
    if (
        predictions.ndim == 3
        and np.issubdtype(predictions.dtype, np.floating)
        and predictions.shape[:2] == labels.shape
    ):
        nan = np.isnan(predictions).any(axis=-1) & (labels != ignore_index)
        if nan.any():
            i, j = map(int, np.argwhere(nan)[0])
            raise ValueError(f"predictions[{i}][{j}]: the logits hold NaN (the model diverged?)")
        predictions = predictions.argmax(axis=-1)
    if predictions.ndim != 2 or not np.issubdtype(predictions.dtype, np.integer):
        raise ValueError(
            f"predictions must be logits (batch x length x classes) or integer class ids"
            f" (batch x length); got {predictions.dtype} of shape {predictions.shape}"
        )
    if labels.shape != predictions.shape:
        raise ValueError(
            f"label_ids must be integer class ids of shape {predictions.shape} like the"
            f" predictions; got {labels.dtype} of shape {labels.shape}"
        )
    return predictions, labels


def _is_number(value):
    return isinstance(value, (numbers.Real, np.number, np.bool_))


def _leaves(value, path):
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _leaves(sub, path if key in TRANSPARENT_KEYS else path + (str(key),))
    elif isinstance(value, (list, tuple)):
        if all(_is_number(sub) for sub in value):  # e.g. an interval; not a listing such as "errors"
            names = INTERVAL_ENDS if len(value) == 2 else map(str, range(len(value)))
            for name, sub in zip(names, value):
                yield from _leaves(sub, path + (name,))
    elif isinstance(value, (bool, np.bool_)):
        yield path, int(value)
    elif isinstance(value, (numbers.Integral, np.integer)):
        yield path, int(value)
    elif isinstance(value, (numbers.Real, np.floating)):
        yield path, float(value)
    # None, strings and other values have no number to log


def flatten_results(results: Mapping[str, Any]) -> dict[str, int | float]:
    """A nested result as one flat ``{name: int or float}`` dict (names: see the module doc)."""
    flat: dict[str, int | float] = {}
    origin: dict[str, tuple[str, ...]] = {}
    for path, number in _leaves(results, ()):
        name = "_".join(path)
        if name in flat:
            raise ValueError(
                f"result paths {origin[name]} and {path} both flatten to {name!r}; rename the entity type"
            )
        flat[name], origin[name] = number, path
    return flat


def make_compute_metrics(
    compute: Callable[..., dict[str, Any]],
    label_names: Sequence[str] | Mapping[int, str],
    options: Mapping[str, Any],
    *,
    input_names: Sequence[str] = TAG_INPUTS,
) -> Callable[[Any], dict[str, int | float]]:
    """A ``compute_metrics(eval_prediction) -> {name: number}`` for ``transformers.Trainer``.

    ``compute`` is the metric's ``compute``; ``options`` its keyword options (the metric has checked
    them), tried now by scoring every label name once, so that an invalid tag fails before
    training, not at the first evaluation. Positions labelled -100
    are ignored on both sides (``compute`` drops them).
    """
    extra = [name for name in input_names if name not in TAG_INPUTS]
    if extra:
        raise ValueError(
            f"trainer_compute_metrics scores tags only; this configuration also needs inputs {extra}"
        )
    every_id = [list(range(len(label_names)))] if isinstance(label_names, (list, tuple)) else [[0]]
    compute(predictions=every_id, references=every_id, label_names=label_names, **options)

    def compute_metrics(eval_prediction: Any) -> dict[str, int | float]:
        predictions, label_ids = eval_prediction_ids(eval_prediction)
        return flatten_results(
            compute(predictions=predictions, references=label_ids, label_names=label_names, **options)
        )

    return compute_metrics
