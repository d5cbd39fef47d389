"""Entity attributes: an entity may carry ``"attributes": {name: value}`` (HAREM's morphology
``{"gender": "M", "number": "S"}`` with ``"?"`` underspecified, clinical qualifiers such as
``{"negation": True}``), scored two ways in ``results["attributes"]``.

* **Items** (EDS-NLP's span-attribute metric): each (example, start, end, name, value) of a side
  is an item; a predicted item is right when the gold has the same item (same boundaries, whatever
  the label). Precision, recall and F1 overall, per attribute and per value (``per_value``, the
  value written as ``str``). An attribute left out is no item, so a "default" value is written by
  leaving it out (EDS-NLP drops falsy values and its ``default_values``; here every value given
  counts).
* **HAREM's outcomes** (Santos and Cardoso, "Avaliação no HAREM: métodos e medidas", 2006,
  morphological classification) over the one-to-one pairs of the matching, per attribute:
  ``correct``; ``partial`` (values given as lists that share some value but not all);
  ``wrong``; ``missing`` (the gold has a value, the prediction none, or ``"?"``);
  ``spurious`` (the prediction has a value the gold has not); ``overspecified`` (the gold says
  ``"?"``, the prediction a value). A gold ``"?"`` with no predicted value is correct. The
  entities identification missed or added are not classified.

>>> places = [(0, 0, 1), (1, 0, 1)]  # (example, start, end) of each entity
>>> scores = item_scores([{"neg": True}, {"neg": True}], [{"neg": True}, {"neg": False}], places, places)
>>> scores["overall"]["precision"], scores["per_attribute"]["neg"]["per_value"]["False"]["predicted"]
(0.5, 1)
>>> outcome("?", "M"), outcome("M", None), outcome(["M", "F"], "M"), outcome(None, "S")
('overspecified', 'missing', 'partial', 'spurious')
"""

from collections import Counter
from numbers import Integral

from .ner_core import Renamed, prf_scores

MORPHOLOGY_OUTCOMES = ("correct", "partial", "wrong", "missing", "spurious", "overspecified")
UNDERSPECIFIED = "?"


def _value_problem(value):
    if isinstance(value, (str, bool)) or (isinstance(value, Integral) and not isinstance(value, bool)):
        return None if value != "" else "an empty str"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) and v for v in value):
        return None
    return f"{type(value).__name__} {value!r}"


def check_attributes(values, where):
    """Each entity's attributes (None: none) checked: a dict of non-empty str names to a str, bool,
    int or a non-empty list of str; ``where(k)`` names the ``k``-th entity."""
    for k, attributes in enumerate(values):
        if attributes is None:
            continue
        if not isinstance(attributes, dict):
            raise ValueError(f"{where(k)}: attributes must be a dict of name -> value; got {attributes!r}")
        for name, value in attributes.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"{where(k)}: an attribute name must be a non-empty str; got {name!r}")
            problem = _value_problem(value)
            if problem is not None:
                raise ValueError(
                    f"{where(k)}: attribute {name!r} must be a str, bool, int or a list of str; got {problem}"
                )


def _key(value):
    return tuple(sorted(value)) if isinstance(value, (list, tuple)) else value


def _shown(value):
    return "|".join(sorted(value)) if isinstance(value, (list, tuple)) else str(value)


def _items(attributes, places):
    """The side's items: (example, start, end, name, value) for every attribute given."""
    return {
        (*place, name, _key(value))
        for values, place in zip(attributes, places)
        if values
        for name, value in values.items()
    }


def _prf(correct, gold, predicted, zero_division, beta):
    scores = prf_scores(correct, correct, gold, predicted, zero_division, beta)
    return Renamed(scores, correct=correct, number=gold, predicted=predicted)


def item_scores(gold_attributes, pred_attributes, gold_places, pred_places, zero_division=0.0, beta=1.0):
    """EDS-NLP's item precision, recall and F1: ``overall`` and ``per_attribute`` (each with its
    ``per_value``). ``*_places``: per entity its (example, start, end); attributes per entity."""
    gold, pred = _items(gold_attributes, gold_places), _items(pred_attributes, pred_places)
    right = gold & pred
    out = {"overall": _prf(len(right), len(gold), len(pred), zero_division, beta), "per_attribute": {}}
    names = sorted({item[3] for item in gold | pred})
    for name in names:
        counts = [Counter(_shown(i[4]) for i in side if i[3] == name) for side in (right, gold, pred)]
        values = sorted(set(counts[1]) | set(counts[2]))
        table = _prf(*(sum(c.values()) for c in counts), zero_division, beta)
        table["per_value"] = {v: _prf(*(c[v] for c in counts), zero_division, beta) for v in values}
        out["per_attribute"][name] = table
    return out


def outcome(gold_value, pred_value):
    """HAREM's outcome of one attribute of an aligned pair (None: neither side has it)."""
    if gold_value is None:
        return None if pred_value is None else "spurious"
    if gold_value == UNDERSPECIFIED:
        return "correct" if pred_value in (None, UNDERSPECIFIED) else "overspecified"
    if pred_value is None or pred_value == UNDERSPECIFIED:
        return "missing"
    g, p = (set(v) if isinstance(v, (list, tuple)) else {v} for v in (gold_value, pred_value))
    return "correct" if g == p else "partial" if g & p else "wrong"


def pair_outcomes(pairs):
    """Per attribute name, the count of each of :data:`MORPHOLOGY_OUTCOMES` over the aligned pairs
    ``[(gold attributes or None, predicted attributes or None)]``."""
    table = {}
    for gold, pred in pairs:
        gold, pred = gold or {}, pred or {}
        for name in set(gold) | set(pred):
            found = outcome(gold.get(name), pred.get(name))
            if found is not None:
                table.setdefault(name, dict.fromkeys(MORPHOLOGY_OUTCOMES, 0))[found] += 1
    return {name: table[name] for name in sorted(table)}


def attribute_results(gold, pred, matching, gold_attributes, pred_attributes, zero_division=0.0, beta=1.0):
    """``results["attributes"]``: items (``overall``, ``per_attribute``) and HAREM's ``outcomes``
    per attribute over the matching's one-to-one pairs. ``*_attributes``: per span of the sorted
    side its attributes dict or None."""

    def places(spans):
        return list(
            zip(
                spans.sentence.tolist(),
                spans.offset.tolist(),
                (spans.offset + spans.end - spans.start).tolist(),
            )
        )

    out = item_scores(gold_attributes, pred_attributes, places(gold), places(pred), zero_division, beta)
    pairs = [
        (gold_attributes[g], pred_attributes[p])
        for g, p in zip(matching.gold.tolist(), matching.pred.tolist())
    ]
    out["outcomes"] = pair_outcomes(pairs)
    return out
