"""Doubt in the gold, as HAREM marks it (Santos et al., LREC 2006; "Avaliação no HAREM: métodos e
medidas", vagueness and alternatives), in the span configs' references:

* a **vague label**: ``{"label": ["LOC", "ORG"], "start", "end"}``, either type is right;
* an **ALT group**, an item ``{"alternatives": [[entity, ...], [entity, ...]]}`` of an example:
  segmentations of one stretch of text (an alternative may be empty: no entity there);
* an **optional** entity ``{"label", "start", "end", "optional": True}``: found, it is ignored
  (neither it nor the predictions overlapping it alone count); not found, it is not missed;
* **several references** for an example: ``references[i] = {"alternatives": [[...], [...]]}``.

:func:`resolve` turns doubtful gold into plain gold, given the predictions, before anything is
matched, so that every family scores the same resolved gold. Each ALT group takes the alternative
best for the system on the predictions overlapping the group's stretch: the most predictions equal
to an entity (offsets and a right type), then the fewest missed and spurious entities there, then
the most overlapping pairs, then the first alternative. A vague label takes the listed type of a
prediction on the same span, else of the prediction overlapping it most (the earliest on a tie),
else its first type. Several references: the one best by the same rule over the whole example.
Each choice looks only at the example's own entities and predictions, so order changes nothing.

>>> gold = [[{"alternatives": [[{"label": "LOC", "start": 0, "end": 2}],
...                            [{"label": "LOC", "start": 0, "end": 1}, {"label": "LOC", "start": 1, "end": 2}]]}]]
>>> resolve([[{"label": "LOC", "start": 0, "end": 1}]], gold)[1]
[[{'label': 'LOC', 'start': 0, 'end': 1}, {'label': 'LOC', 'start': 1, 'end': 2}]]
>>> resolve([[{"label": "ORG", "start": 3, "end": 4}]], [[{"label": ["LOC", "ORG"], "start": 3, "end": 4}]])[1]
[[{'label': 'ORG', 'start': 3, 'end': 4}]]
"""

import heapq
from bisect import bisect_left
from collections.abc import Sequence
from itertools import chain
from numbers import Integral

from ner_recall.core.vocabulary import InputError, literal

GROUP = "alternatives"


# ---------------------------------------------------------------------------- detection and checks


def _is_doubt(entity):
    return isinstance(entity, dict) and (
        GROUP in entity or isinstance(entity.get("label"), list) or "optional" in entity
    )


def has_doubt(references: object) -> bool:
    """Whether any example has several references, an ALT group, a vague label or an optional
    entity (two passes in C over the entities, and a Python look at the few odd ones)."""
    if not isinstance(references, (list, tuple)):
        return False
    kinds = set(map(type, references))
    if dict in kinds:
        return any(isinstance(r, dict) and GROUP in r for r in references)
    if not kinds <= {list, tuple}:
        return False
    flat = list(chain.from_iterable(references))
    try:
        if set(map(len, flat)) != {3} or list in set(map(type, map(dict.get, flat, ["label"] * len(flat)))):
            return any(map(_is_doubt, flat))
    except TypeError:
        return False
    return False


def _below(where, *keys):
    """The place ``keys`` below ``where``, a place ``(side, sentence, token, deeper keys)``: the
    first int below a sentence is its token, the rest are keys of the item."""
    side, sentence, token, deeper = where
    for key in keys:
        if token is None and not deeper and sentence is not None and not isinstance(key, str):
            token = key
        else:
            deeper += (key,)
    return side, sentence, token, deeper


def _error(where, text):
    """The :class:`InputError` of ``text`` at ``where`` (see :func:`_below`)."""
    side, sentence, token, deeper = where
    keys = "".join(f"[{k!r}]" if isinstance(k, str) else f"[{k}]" for k in deeper)
    return InputError("{place}" + literal(keys + text), side, sentence, token)


def _check_entity(entity, where, texts_length=None):
    if not isinstance(entity, dict):
        raise _error(where, f" {entity!r}: an entity must be a dict with keys ['label', 'start', 'end']")
    unknown = sorted(set(entity) - {"label", "start", "end", "optional", "attributes", "fragments"})
    if unknown:
        raise _error(where, f" {entity!r}: unknown key {unknown[0]!r}")
    label = entity.get("label")
    labels = label if isinstance(label, list) else [label]
    if not labels or not all(isinstance(x, str) and x for x in labels):
        raise _error(where, f" {entity!r}: the label must be a non-empty str or a non-empty list of them")
    if isinstance(label, list) and len(set(label)) != len(label):
        raise _error(where, f" {entity!r}: a vague label lists a type twice")
    for key in ("start", "end"):
        value = entity.get(key)
        if not isinstance(value, Integral) or isinstance(value, bool):
            raise _error(where, f" {entity!r}: {key} must be an int")
    if not 0 <= entity["start"] < entity["end"]:
        raise _error(where, f" {entity!r}: offsets must be >= 0 and start < end")
    if "optional" in entity and not isinstance(entity["optional"], bool):
        raise _error(where, f" {entity!r}: optional must be True or False")


def _check_group(group, where):
    if set(group) != {GROUP}:
        raise _error(where, f": an ALT group has the one key 'alternatives'; got {sorted(group)}")
    alternatives = group[GROUP]
    if not isinstance(alternatives, (list, tuple)) or len(alternatives) < 2:
        raise _error(where, ": an ALT group needs at least two alternatives (lists of entities)")
    for a, alternative in enumerate(alternatives):
        if not isinstance(alternative, (list, tuple)):
            raise _error(_below(where, GROUP, a), " must be a list of entities")
        for b, entity in enumerate(alternative):
            if isinstance(entity, dict) and GROUP in entity:
                raise _error(_below(where, GROUP, a, b), ": ALT groups do not nest")
            _check_entity(entity, _below(where, GROUP, a, b))


def _check_example(example, where):
    if not isinstance(example, (list, tuple)):
        raise _error(where, f" must be a list of entities; got {type(example).__name__}")
    for j, item in enumerate(example):
        if isinstance(item, dict) and GROUP in item:
            _check_group(item, _below(where, j))
        elif _is_doubt(item):
            _check_entity(item, _below(where, j))


def check_doubt(references: Sequence, name: str = "references") -> list:
    """Validate the doubt forms (errors name ``references[3][2]['alternatives'][1][0]``) and return
    the references with each doubtful item replaced by a plain stand-in at its place, for the
    type checks of plain entities (a group by its first entity or a one-token stand-in)."""
    out: list = []
    for i, example in enumerate(references):
        if isinstance(example, dict):
            where = (name, i, None, ())
            if set(example) != {GROUP}:
                raise _error(
                    where,
                    " is a dict: several references are {'alternatives': [[...], [...]]};"
                    f" got keys {sorted(example)}",
                )
            refs = example[GROUP]
            if not isinstance(refs, (list, tuple)) or len(refs) < 2:
                raise _error(where, ": several references need at least two lists of entities")
            for a, ref in enumerate(refs):
                _check_example(ref, _below(where, GROUP, a))
            out.append([])
            continue
        _check_example(example, (name, i, None, ()))
        out.append([_stand_in(item) for item in example] if any(map(_is_doubt, example)) else example)
    return out


def _stand_in(item):
    if not _is_doubt(item):
        return item
    if GROUP in item:
        return {"label": "doubt", "start": 0, "end": 1}
    label = item["label"][0] if isinstance(item["label"], list) else item["label"]
    return {"label": label, "start": item["start"], "end": item["end"]}


# ---------------------------------------------------------------------------- resolution


def _labels(entity):
    label = entity["label"]
    return label if isinstance(label, list) else [label]


def overlapping(queries: list, intervals: list) -> list:
    """For each query entity, the indices (ascending) of the ``intervals`` entities it overlaps:
    those starting inside it (a bisection into the intervals sorted by start) and those covering
    its start (a sweep over the queries by start, with the intervals begun and not ended in a heap).
    Time ``O((q + n) log n)`` plus the pairs found, whatever the nesting.

    >>> overlapping([{"start": 2, "end": 5}, {"start": 9, "end": 10}],
    ...             [{"start": 0, "end": 3}, {"start": 4, "end": 12}, {"start": 5, "end": 6}])
    [[0, 1], [1]]
    """
    order = sorted(range(len(intervals)), key=lambda k: intervals[k]["start"])
    starts = [intervals[k]["start"] for k in order]
    out: list = [None] * len(queries)
    active: list = []
    at = 0
    for q in sorted(range(len(queries)), key=lambda k: queries[k]["start"]):
        lo, hi = queries[q]["start"], queries[q]["end"]
        while at < len(order) and starts[at] < lo:
            heapq.heappush(active, (intervals[order[at]]["end"], order[at]))
            at += 1
        while active and active[0][0] <= lo:
            heapq.heappop(active)
        inside = order[bisect_left(starts, lo) : bisect_left(starts, hi)]
        out[q] = sorted([k for _, k in active] + inside)
    return out


def _fit(entities, predictions):
    """How well ``predictions`` fit ``entities``: larger is better (the resolution's rule)."""
    by_span: dict[tuple[int, int], set[str]] = {}
    for p in predictions:
        by_span.setdefault((p["start"], p["end"]), set()).add(p["label"])
    exact = sum(bool(by_span.get((e["start"], e["end"]), set()) & set(_labels(e))) for e in entities)
    hits = overlapping(entities, predictions)
    found = sum(map(bool, hits))
    used = len({k for hit in hits for k in hit})
    missed, spurious = len(entities) - found, len(predictions) - used
    return exact, -(missed + spurious), found


def _choose(alternatives, predictions):
    """The index of the best alternative (the first on a tie)."""
    fits = [_fit(alt, predictions) for alt in alternatives]
    return max(range(len(fits)), key=lambda k: (fits[k], -k))


def _vague_label(entity, predictions, near):
    """The vague entity's label: a listed type of the first prediction on its span, else of the
    prediction among ``near`` (the indices of those overlapping it) sharing most positions with it
    (the earliest start, then the first listed, on a tie), else its first listed type."""
    labels = _labels(entity)
    near = [predictions[k] for k in near if predictions[k]["label"] in labels]
    for p in near:
        if p["start"] == entity["start"] and p["end"] == entity["end"]:
            return p["label"]
    if near:
        shared = [min(p["end"], entity["end"]) - max(p["start"], entity["start"]) for p in near]
        best = max(range(len(near)), key=lambda k: (shared[k], -near[k]["start"], -k))
        return near[best]["label"]
    return labels[0]


def _resolve_example(predictions, example, report):
    """(predictions, plain gold) of one example."""
    plain, groups = [], [item for item in example if isinstance(item, dict) and GROUP in item]
    stretches = [[e for alt in g[GROUP] for e in alt] for g in groups]
    hits = iter(overlapping([e for stretch in stretches for e in stretch], predictions))
    local = iter([sorted({k for _ in stretch for k in next(hits)}) for stretch in stretches])
    for item in example:
        if isinstance(item, dict) and GROUP in item:
            alternatives = item[GROUP]
            k = _choose(alternatives, [predictions[j] for j in next(local)])
            report["groups"] += 1
            report["chosen"][k] = report["chosen"].get(k, 0) + 1
            plain.extend(alternatives[k])
        else:
            plain.append(item)
    vague = [e for e in plain if isinstance(e["label"], list)]
    near = iter(overlapping(vague, predictions))
    gold = []
    for entity in plain:
        if isinstance(entity["label"], list):
            entity = dict(entity, label=_vague_label(entity, predictions, next(near)))
            report["vague"] += 1
        gold.append(entity)
    return _drop_optional(predictions, gold, report)


def _drop_optional(predictions, gold, report):
    optional = [e for e in gold if e.get("optional")]
    gold = [{k: v for k, v in e.items() if k != "optional"} for e in gold if not e.get("optional")]
    if not optional:
        return predictions, gold
    on_optional, on_gold = overlapping(predictions, optional), overlapping(predictions, gold)
    kept = [p for p, a, b in zip(predictions, on_optional, on_gold) if not (a and not b)]
    found = len({k for hit in on_optional for k in hit})
    report["optional_found"] += found
    report["optional_not_found"] += len(optional) - found
    report["predictions_ignored"] += len(predictions) - len(kept)
    return kept, gold


def resolve(predictions: Sequence, references: Sequence) -> tuple[list, list, dict]:
    """(predictions, plain references, report) with every doubt of the references resolved for
    the predictions (see the module's docstring). References without doubt come back as given."""
    report: dict = {
        "groups": 0,
        "chosen": {},
        "vague": 0,
        "references": 0,
        "optional_found": 0,
        "optional_not_found": 0,
        "predictions_ignored": 0,
    }
    out_pred, out_gold = list(predictions), list(references)
    for i, example in enumerate(references):
        if isinstance(example, dict):
            options = [
                _resolve_example(predictions[i], ref, dict(report, chosen={})) for ref in example[GROUP]
            ]
            k = _choose([g for _, g in options], predictions[i])
            report["references"] += 1
            out_pred[i], out_gold[i] = _resolve_example(predictions[i], example[GROUP][k], report)
        elif any(map(_is_doubt, example)):
            out_pred[i], out_gold[i] = _resolve_example(predictions[i], example, report)
    report["chosen"] = {str(k): v for k, v in sorted(report["chosen"].items())}
    return out_pred, out_gold, report
