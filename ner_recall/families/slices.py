"""Scores per slice of the sentences: ``results["slices"]``, every family on each slice value's
sentences, and the worst slice by the headline F.

>>> from ner_recall.families import slices as ner_slices
>>> ner_slices.check_slices(["news", "web", "news"])
{'slice': ['news', 'web', 'news']}
"""

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.counts import count_rows, derive, muc_results_rows, seqeval_results_rows, sides
from ner_recall.core.decoding import Numbered
from ner_recall.core.registry import registered
from ner_recall.core.vocabulary import fbeta_key, same_count
from ner_recall.families.documents import check_id_values
from ner_recall.families.seqeval import view_row
from ner_recall.families.table import Results, View
from ner_recall.stats.uncertainty import families_of, many_intervals

#: each sentence's unit (itself, or its document) and the number of units
Units = tuple[NDArray[np.intp], int]

# ---------------------------------------------------------------------------- slices

#: the key of a slices option given as one list
SLICE_KEY = "slice"


def check_slices(slices: list | dict | None) -> dict[str, list] | None:
    """The ``slices`` option, its values unchecked against the corpus: None, or ``{key: list}``
    (a list given alone is ``{"slice": list}``). Every value is a str, int or bool, never None."""
    if slices is None:
        return None
    named = slices if isinstance(slices, dict) else {SLICE_KEY: slices}
    if not named:
        raise ValueError("slices is an empty dict; give {key: one value per sentence}, a list, or None")
    out = {}
    for key, column in named.items():
        where = "slices" if not isinstance(slices, dict) else f"slices[{key!r}]"
        if not isinstance(key, str) or not key:
            raise ValueError(f"slices keys must be non-empty str; got {key!r}")
        if isinstance(column, (str, bytes, dict, set, frozenset)) or not hasattr(column, "__len__"):
            raise ValueError(
                f"{where} must be a list with one value per sentence; got {type(column).__name__}"
            )
        values = column.tolist() if isinstance(column, np.ndarray) else list(column)
        kinds = set(map(type, values))  # at C speed; the place of a bad value only when there is one
        if not all(issubclass(kind, (str, int, np.integer)) for kind in kinds):
            for i, value in enumerate(values):
                if not isinstance(value, (str, int, np.integer, bool)) or value is None:
                    raise ValueError(f"{where}[{i}] is {value!r}; a slice value is a str or an int")
        check_id_values(values, where)
        out[key] = values
    return out


def slice_codes(values: list, where: str, n_sentences: int) -> tuple[list, NDArray[np.intp]]:
    """The sorted distinct values of one slice key and each sentence's index into them."""
    same_count(where, len(values), "", n_sentences, unit="values")
    numbered = Numbered()  # one pass over the values, each coded in the order first met
    first = np.fromiter(map(numbered.__getitem__, values), dtype=np.intp, count=len(values))
    distinct = sorted(numbered, key=lambda v: (type(v).__name__, v))
    order = np.empty(len(distinct), dtype=np.intp)
    order[[numbered[v] for v in distinct]] = np.arange(len(distinct))
    return distinct, order[first]


class Groups(NamedTuple):
    """Items (sentences, spans, pairs) grouped by a value code with one stable argsort: value
    ``i``'s items are ``order[bounds[i]:bounds[i + 1]]``, in their order; ``rank``: each item's
    index among its value's."""

    order: NDArray[np.intp]
    bounds: NDArray[np.intp]
    rank: NDArray[np.intp]

    def members(self, i: int) -> NDArray[np.intp]:
        return self.order[self.bounds[i] : self.bounds[i + 1]]


def group_by(value: NDArray[np.intp], m: int) -> Groups:
    """:class:`Groups` of items by their ``value`` (codes 0 to ``m`` - 1), in O(n log n)."""
    order = np.argsort(value, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(value, minlength=m))]).astype(np.intp)
    rank = np.empty(len(value), dtype=np.intp)
    rank[order] = np.arange(len(value)) - np.repeat(bounds[:-1], np.diff(bounds))
    return Groups(order, bounds, rank)


def slice_views(
    view: View, code: NDArray[np.intp], tokens: NDArray[Any], tokens_correct: NDArray[Any]
) -> Iterator[View]:
    """The :class:`View` of each value's sentences (``code``: each sentence's value), the same
    matching restricted, value after value: every side and pair grouped once, so that all the
    views together take time in the size of the corpus, not in values x corpus."""
    m, mt = len(tokens), view.matching
    sides = [group_by(code[side.sentence], m) for side in (view.gold, view.pred)]
    gold_of = view.gold.sentence
    pairs, overlaps = group_by(code[gold_of[mt.gold]], m), group_by(code[gold_of[mt.overlap_gold]], m)
    fragments = (
        None if view.fragments is None else [_by_value(f, g, m) for f, g in zip(view.fragments, sides)]
    )
    (gold, pred), rank = sides, [g.rank for g in sides]
    for i in range(m):
        g, p, q, o = gold.members(i), pred.members(i), pairs.members(i), overlaps.members(i)
        matching = type(mt)(
            rank[0][mt.gold[q]],
            rank[1][mt.pred[q]],
            mt.scenario[q],
            rank[0][mt.overlap_gold[o]],
            rank[1][mt.overlap_pred[o]],
        )
        selection = view.selection._replace(
            gold=_take(view.gold, g), pred=_take(view.pred, p), tokens_correct=int(tokens_correct[i])
        )
        scores = None if view.pred_scores is None else view.pred_scores[p]
        attributes = None
        if view.attributes is not None:
            gold_attributes, pred_attributes = view.attributes
            attributes = ([gold_attributes[k] for k in g.tolist()], [pred_attributes[k] for k in p.tolist()])
        pieces = None if fragments is None else (fragments[0][i], fragments[1][i])
        yield View(view.options, selection, matching, int(tokens[i]), scores, pieces, attributes)


def _by_value(fragments, groups, m):
    """Per value, the fragments of its spans, renumbered as its spans (``ner_fragments.restrict``)."""
    out: list[dict] = [{} for _ in range(m)]
    value = np.zeros(len(groups.rank), dtype=np.intp)
    value[groups.order] = np.repeat(np.arange(m), np.diff(groups.bounds))
    for k, f in fragments.items():
        out[value[k]][int(groups.rank[k])] = f
    return out


def _take(spans, at):
    return type(spans)(*(field[at] for field in spans))


def value_unit_rows(
    view: View, code: NDArray[np.intp], units: Units | None, m: int
) -> list[NDArray[np.int64]]:
    """Per value, the count row of each unit of its sentences (each sentence, or the part of its
    document in the value; None: the sentences), units in increasing order: one ``count_rows``
    over (value, unit) pairs."""
    unit, n_units = units if units is not None else (np.arange(len(code)), len(code))
    keys, local = np.unique(code.astype(np.int64) * n_units + unit, return_inverse=True)
    rows = count_rows(view.gold, view.pred, view.matching, len(view.types), local.ravel(), len(keys))
    bounds = np.searchsorted(keys // n_units, np.arange(m + 1))
    return [rows[bounds[i] : bounds[i + 1]] for i in range(m)]


def headline(results: Results, beta: float) -> tuple[str, float] | None:
    """(name, value) of the score the worst slice is chosen by: the F of the first family of the
    registry that supports the slices' headline and has results here (seqeval's overall F, else
    the strict MUC F, else token, overlap, HAREM); None for families without one."""
    fkey = fbeta_key(beta)
    for family in registered():
        if "slices_headline" in family.supports and family.headline is not None:
            found = family.headline(results, fkey)
            if found is not None:
                return found
    return None


def slice_results(
    view: View,
    slices: dict[str, list],
    lengths: Sequence[int] | NDArray[np.int64],
    tokens_correct: Sequence[int] | NDArray[np.int64],
    units: Units | None,
    whole: Results,
) -> Results:
    """``results["slices"]``: per key, per value the families' results on its sentences (and
    their intervals), and the worst slice by the headline F with its gap to the whole.

    The count-row families (seqeval, MUC) of every value come from one ``count_rows`` with the
    values as units, derived in one batch; the intervals from one ``count_rows`` with (value, unit)
    pairs as units (:func:`value_unit_rows`); the other families restrict the view to the value's
    sentences (:func:`slice_views`), every side grouped by value once: linear in the values and
    the sentences (``python bench/slices.py --costs``)."""
    n = len(lengths)
    lengths = np.asarray(lengths)
    scores = view.options.scoring.scores
    others = [f for f in registered() if f.wanted is None and f.name in scores and f.counts is not view_row]
    out = {}
    for key, values in slices.items():
        where = "slices" if key == SLICE_KEY and len(slices) == 1 else f"slices[{key!r}]"
        distinct, code = slice_codes(values, where, n)
        m = len(distinct)
        rows = count_rows(view.gold, view.pred, view.matching, len(view.types), code, m)
        sentences = np.bincount(code, minlength=m)
        tokens = np.bincount(code, weights=lengths, minlength=m)
        correct = np.bincount(code, weights=tokens_correct, minlength=m)
        by_row = _row_families(view, rows, correct, tokens)
        views = slice_views(view, code, tokens, correct) if others else None
        stats = None
        o = view.options
        if o.intervals is not None:
            stats = many_intervals(
                value_unit_rows(view, code, units, m),
                view.types,
                o.intervals,
                families_of(o.scoring.scores),
                o.beta,
                o.zero_division,
            )
        table = {}
        for i, value in enumerate(distinct):
            results = {"sentences": int(sentences[i]), **by_row[i]}
            if views is not None:
                sub = next(views)
                for family in others:
                    derived = family.derive(family.counts(sub), sub)
                    if family.key is None:
                        results.update(derived)
                    else:
                        results[family.key] = derived
            if stats is not None:
                results["intervals"] = stats[i]
            table[value] = results
        out[key] = {"values": table, "worst": _worst(table, whole, view.options.beta)}
    return out


def _row_families(view, rows, tokens_correct, tokens):
    """The seqeval and MUC results (those asked for) of each count row, derived in one batch per
    distinct set of types present (seqeval's per-type keys and averages are over those)."""
    o, types = view.options, view.types
    families = tuple(f for f in ("seqeval", "muc") if f in o.scoring.scores)
    out: list[dict[str, Any]] = [{} for _ in range(len(rows))]
    if not families:
        return out
    gold, pred, missed, spurious = sides(rows, len(types))
    seen = (gold.sum(axis=1) + missed + pred.sum(axis=1) + spurious) > 0
    groups: dict[bytes, list[int]] = {}  # the packed bits of the types present -> its rows
    for i, packed in enumerate(map(bytes, np.packbits(seen, axis=1))):
        groups.setdefault(packed, []).append(i)
    for members in groups.values():
        present = tuple(np.flatnonzero(seen[members[0]]).tolist())
        derived = derive(rows[members], types, families, o.zero_division, o.beta, present)
        if "seqeval" in families:
            correct, real = (np.asarray(a)[members].tolist() for a in (tokens_correct, tokens))
            for i, scored in zip(
                members, seqeval_results_rows(types, derived, correct, real, o.zero_division, o.beta)
            ):
                out[i].update(scored)
        if "muc" in families:
            for i, muc in zip(members, muc_results_rows(rows[members], types, derived, o.beta)):
                out[i]["muc"] = muc
    return out


def _worst(table, whole, beta):
    """The slice with the lowest headline F among those with an entity on either side."""
    total = headline(whole, beta)
    if total is None:
        return None
    name, best = None, None
    for value, results in table.items():
        if results.get("muc", {}).get("strict", {}).get("possible", 1) == 0 and not _predicted(results):
            continue
        found = headline(results, beta)
        assert found is not None  # a slice is scored by the same families as the whole, which has one
        score = found[1]
        if best is None or score < best[1]:
            name, best = value, (value, score)
    if best is None:
        return None
    return {"value": name, "score": total[0], "slice": best[1], "whole": total[1], "gap": total[1] - best[1]}


def _predicted(results):
    return results.get("muc", {}).get("strict", {}).get("actual", 1) > 0
