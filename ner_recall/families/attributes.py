"""Entity attributes: an entity may carry ``"attributes": {name: value}`` (HAREM's morphology
``{"gender": "M", "number": "S"}`` with ``"?"`` underspecified, clinical qualifiers such as
``{"negation": True}``), scored two ways in ``results["attributes"]``.

* **Items** (EDS-NLP's span-attribute metric): each (example, start, end, name, value) of a side
  is an item; a predicted item is right when the gold has the same item (same boundaries, whatever
  the label). Precision, recall and F1 overall, per attribute and per value (``per_value``, the
  value written as ``str``). An attribute left out is no item, so a "default" value is written by
  leaving it out (EDS-NLP drops falsy values and its ``default_values``; here every value given
  counts). ``True`` is not ``1`` (Python's ``==`` says it is; they are reported apart, so they are
  compared apart). Items are counted per name in one pass, linear in the items and names.
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
from collections.abc import Callable, Iterable, Sequence
from numbers import Integral
from typing import Any

from ner_recall.core.registry import Family, register
from ner_recall.core.vocabulary import InputError, Renamed, literal, prf_scores

MORPHOLOGY_OUTCOMES = ("correct", "partial", "wrong", "missing", "spurious", "overspecified")
UNDERSPECIFIED = "?"


def _value_problem(value):
    if isinstance(value, (str, bool)) or (isinstance(value, Integral) and not isinstance(value, bool)):
        return None if value != "" else "an empty str"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) and v for v in value):
        return None
    return f"{type(value).__name__} {value!r}"


def check_attributes(values: Sequence, place: Callable[[int], tuple[str, int | None, int | None]]) -> None:
    """Each entity's attributes (None: none) checked: a dict of non-empty str names to a str, bool,
    int or a non-empty list of str; ``place(k)`` is the ``k``-th entity's (side, example, entity),
    where an :class:`InputError` names it."""
    for k, attributes in enumerate(values):
        if attributes is None:
            continue
        if not isinstance(attributes, dict):
            template = "{place}: attributes must be a dict of name -> value; got {item!r}"
            raise InputError(template, *place(k), attributes)
        for name, value in attributes.items():
            if not isinstance(name, str) or not name:
                raise InputError(
                    "{place}: an attribute name must be a non-empty str; got {item!r}", *place(k), name
                )
            problem = _value_problem(value)
            if problem is not None:
                raise InputError(
                    f"{{place}}: attribute {literal(repr(name))} must be a str, bool, int or a list of str; got"
                    f" {literal(problem)}",
                    *place(k),
                )


def _key(value):
    """A value as an item compares it: a list as its sorted tuple; a bool apart from the int it
    equals in Python (``True`` is not ``1``: they are shown apart, so they count apart)."""
    if isinstance(value, (list, tuple)):
        return ("list", tuple(sorted(value)))
    return (type(value).__name__ if isinstance(value, bool) else "value", value)


def _shown(key):
    """The str a value's :func:`_key` is reported under in ``per_value``."""
    kind, value = key
    return "|".join(value) if kind == "list" else str(value)


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


def item_scores(
    gold_attributes: Sequence,
    pred_attributes: Sequence,
    gold_places: Sequence,
    pred_places: Sequence,
    zero_division: float = 0.0,
    beta: float = 1.0,
) -> dict[str, Any]:
    """EDS-NLP's item precision, recall and F1: ``overall`` and ``per_attribute`` (each with its
    ``per_value``). ``*_places``: per entity its (example, start, end); attributes per entity."""
    gold, pred = _items(gold_attributes, gold_places), _items(pred_attributes, pred_places)
    right = gold & pred
    out = {"overall": _prf(len(right), len(gold), len(pred), zero_division, beta), "per_attribute": {}}
    counts: dict[str, list[Counter]] = {}  # per name: Counters of right, gold, predicted values
    for k, side in enumerate((right, gold, pred)):
        for item in side:
            counts.setdefault(item[3], [Counter(), Counter(), Counter()])[k][_shown(item[4])] += 1
    for name in sorted(counts):
        right_n, gold_n, pred_n = counts[name]
        values = sorted(set(gold_n) | set(pred_n))
        table = _prf(sum(right_n.values()), sum(gold_n.values()), sum(pred_n.values()), zero_division, beta)
        table["per_value"] = {v: _prf(right_n[v], gold_n[v], pred_n[v], zero_division, beta) for v in values}
        out["per_attribute"][name] = table
    return out


def outcome(gold_value: object, pred_value: object) -> str | None:
    """HAREM's outcome of one attribute of an aligned pair (None: neither side has it)."""
    if gold_value is None:
        return None if pred_value is None else "spurious"
    if gold_value == UNDERSPECIFIED:
        return "correct" if pred_value in (None, UNDERSPECIFIED) else "overspecified"
    if pred_value is None or pred_value == UNDERSPECIFIED:
        return "missing"
    g, p = (
        {_key(x) for x in v} if isinstance(v, (list, tuple)) else {_key(v)} for v in (gold_value, pred_value)
    )
    return "correct" if g == p else "partial" if g & p else "wrong"


def pair_outcomes(pairs: Iterable[tuple[dict | None, dict | None]]) -> dict[str, dict[str, int]]:
    """Per attribute name, the count of each of :data:`MORPHOLOGY_OUTCOMES` over the aligned pairs
    ``[(gold attributes or None, predicted attributes or None)]``."""
    table: dict[str, Any] = {}
    for gold, pred in pairs:
        gold, pred = gold or {}, pred or {}
        for name in set(gold) | set(pred):
            found = outcome(gold.get(name), pred.get(name))
            if found is not None:
                table.setdefault(name, dict.fromkeys(MORPHOLOGY_OUTCOMES, 0))[found] += 1
    return {name: table[name] for name in sorted(table)}


def attribute_results(
    gold: Any,
    pred: Any,
    matching: Any,
    gold_attributes: Sequence,
    pred_attributes: Sequence,
    zero_division: float,
    beta: float,
) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------- the family


def _view(view: Any) -> Any:
    return view


def _attributes(view: Any, _: Any) -> dict[str, Any]:
    o = view.options
    gold, pred = view.attributes
    return attribute_results(view.gold, view.pred, view.matching, gold, pred, o.zero_division, o.beta)


register(
    Family(
        "attributes",
        "attributes",
        _view,
        _attributes,
        returns="""attributes (dict, span configs, when an entity carries attributes): EDS-NLP's items
    "overall" and "per_attribute" {NAME: the keys of "overall" and "per_value" {VALUE: ...}}
    ("precision", "recall", "f1", "correct", "number", "predicted"), and HAREM's "outcomes"
    {NAME: "correct", "partial", "wrong", "missing", "spurious", "overspecified"}.""",
        supports=frozenset({"discontinuous", "golds"}),
        wanted=lambda view: view.attributes is not None,
        module=__name__,
    )
)
