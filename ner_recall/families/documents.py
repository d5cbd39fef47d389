"""Scores per document: ``results["documents"]``, HIPE-scorer's macro average over documents.

>>> import numpy as np
>>> from ner_recall.families import documents as ner_documents
>>> ner_documents.by_unit(np.array([[1, 0], [2, 1], [0, 5]]), (np.array([0, 1, 0]), 2)).tolist()
[[1, 5], [2, 1]]
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.counts import derive, sides
from ner_recall.core.vocabulary import MODES, fbeta_key

# ---------------------------------------------------------------------------- documents

if TYPE_CHECKING:  # the options module imports this one
    from ner_recall.pipeline.options import Options


def document_scores(rows: NDArray[np.int64], types: Sequence[str], options: "Options") -> dict[str, Any]:
    """``results["documents"]``: per MUC mode, the mean and (population) standard deviation over the
    documents of each document's precision, recall and F (HIPE-scorer's ``macro_doc``): precision over
    the documents with a prediction, recall over those with a gold entity, F over those with both;
    the same per type (``per_type``, the types with an entity in some document)."""
    derived = derive(rows, types, ("muc",), options.zero_division, options.beta, undefined=True)
    gold, pred, missed, spurious = sides(rows, len(types))
    possible = gold.sum(axis=1) + missed  # documents x types
    actual = pred.sum(axis=1) + spurious
    seen = np.flatnonzero((possible + actual).sum(axis=0) > 0)
    fkey = fbeta_key(options.beta)
    out = {}
    for mode in MODES:
        p, r, f = derived["muc"][mode]["overall"]
        table = _macro_doc(p, r, f, possible.sum(axis=1), actual.sum(axis=1), fkey)
        table["documents"] = int(len(rows))
        pt, rt, ft = derived["muc"][mode]["per_type"]
        table["per_type"] = {
            types[t]: _macro_doc(pt[:, t], rt[:, t], ft[:, t], possible[:, t], actual[:, t], fkey)
            for t in seen.tolist()
        }
        out[mode] = table
    return out


def _macro_doc(p, r, f, possible, actual, fkey):
    table = {}
    for name, values, keep in (
        ("precision", p, actual > 0),
        ("recall", r, possible > 0),
        (fkey, f, (actual > 0) & (possible > 0)),
    ):
        chosen = values[keep]
        table[name] = float(chosen.mean()) if len(chosen) else None
        table[f"{name}_std"] = float(chosen.std()) if len(chosen) else None
    return table


def check_id_values(values: list, where: str) -> None:
    """Refuse ids (document ids, slice values) that would merge two groups or split one: a NaN,
    equal to no id (not even itself), and True or False beside ints (``True == 1``).

    >>> check_id_values(["a", 1, 2], "document_ids")
    >>> check_id_values([1, True], "slices")
    Traceback (most recent call last):
    ...
    ValueError: slices[1] is True beside int values (slices[0] is 1): True equals 1 and False 0, so they would be one group; give bools alone, or ints
    """
    kinds = set(map(type, values))  # at C speed; the place only when there is a bad one
    if any(issubclass(kind, (float, np.floating)) for kind in kinds):
        for i, value in enumerate(values):
            if isinstance(value, (float, np.floating)) and value != value:
                raise ValueError(f"{where}[{i}] is {value!r}; an id must equal itself (NaN is no id)")
    bools = [k for k in kinds if issubclass(k, (bool, np.bool_))]
    if bools and any(issubclass(k, (int, np.integer)) and k not in bools for k in kinds):
        i = next(i for i, v in enumerate(values) if isinstance(v, (bool, np.bool_)))
        j = next(j for j, v in enumerate(values) if isinstance(v, (int, np.integer)) and type(v) not in bools)
        raise ValueError(
            f"{where}[{i}] is {values[i]!r} beside int values ({where}[{j}] is {values[j]!r}): True equals 1"
            " and False 0, so they would be one group; give bools alone, or ints"
        )


def by_unit(rows: NDArray[np.int64], units: tuple[NDArray[np.intp], int]) -> NDArray[np.int64]:
    """Per-sentence count rows summed per unit (the sentence itself, or its document)."""
    unit, n_units = units
    out = np.zeros((n_units, rows.shape[1]), dtype=rows.dtype)
    np.add.at(out, unit, rows)
    return out
