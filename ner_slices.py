"""Scores per slice of the sentences: ``results["slices"]``, every family on each slice value's
sentences, and the worst slice by the headline F.

>>> from ner_recall import ner_slices
>>> ner_slices.check_slices(["news", "web", "news"])
{'slice': ['news', 'web', 'news']}
"""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .ner_core import fbeta_key, same_count
from .ner_decoding import Numbered
from .ner_documents import check_id_values
from .ner_families import FAMILIES, Results, View, interval_scores, view_row
from .ner_fragments import restrict
from .ner_matching import count_rows, derive, muc_results_rows, seqeval_results_rows, sides

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


def slice_view(view: View, keep: NDArray[np.bool_], tokens: int, tokens_correct: int) -> View:
    """The :class:`View` of the sentences where ``keep`` holds: the same matching, restricted."""
    gold_keep, pred_keep = keep[view.gold.sentence], keep[view.pred.sentence]
    gold_at, pred_at = np.cumsum(gold_keep) - 1, np.cumsum(pred_keep) - 1
    m = view.matching
    pair, overlap = gold_keep[m.gold], gold_keep[m.overlap_gold]
    matching = type(m)(
        gold_at[m.gold[pair]],
        pred_at[m.pred[pair]],
        m.scenario[pair],
        gold_at[m.overlap_gold[overlap]],
        pred_at[m.overlap_pred[overlap]],
    )
    selection = view.selection._replace(
        gold=_take(view.gold, gold_keep), pred=_take(view.pred, pred_keep), tokens_correct=int(tokens_correct)
    )
    scores = None if view.pred_scores is None else view.pred_scores[pred_keep]
    fragments = None
    if view.fragments is not None:
        fragments = (restrict(view.fragments[0], gold_keep), restrict(view.fragments[1], pred_keep))
    attributes = None
    if view.attributes is not None:
        attributes = tuple(
            [a for a, k in zip(side, keep_side.tolist()) if k]
            for side, keep_side in zip(view.attributes, (gold_keep, pred_keep))
        )
    return View(view.options, selection, matching, int(tokens), scores, fragments, attributes)


def _take(spans, mask):
    return type(spans)(*(field[mask] for field in spans))


def headline(results: Results, beta: float) -> tuple[str, float] | None:
    """(name, value) of the score the worst slice is chosen by: seqeval's overall F, else the
    strict MUC F, else the first family's F; None for a family without one."""
    fkey = fbeta_key(beta)
    if f"overall_{fkey}" in results:
        return f"overall_{fkey}", results[f"overall_{fkey}"]
    if "muc" in results:
        return f"muc_strict_{fkey}", results["muc"]["strict"][fkey]
    for family in ("token", "overlap", "harem"):
        if family in results:
            return f"{family}_{fkey}", results[family][fkey]
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
    values as units, derived in one batch; the other families and the intervals restrict the view
    to the value's sentences (:func:`slice_view`)."""
    n = len(lengths)
    lengths = np.asarray(lengths)
    scores = view.options.scoring.scores
    others = [name for name in FAMILIES if name in scores and FAMILIES[name].counts is not view_row]
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
        table = {}
        for i, value in enumerate(distinct):
            results = {"sentences": int(sentences[i]), **by_row[i]}
            if others or view.options.intervals is not None:
                keep = code == i
                sub = slice_view(view, keep, int(tokens[i]), int(correct[i]))
                for name in others:
                    family = FAMILIES[name]
                    results[family.key] = family.derive(family.counts(sub), sub)
                if view.options.intervals is not None:
                    results["intervals"] = interval_scores(sub, _slice_rows(sub, keep, units))
            table[value] = results
        out[key] = {"values": table, "worst": _worst(table, whole, view.options.beta)}
    return out


def _row_families(view, rows, tokens_correct, tokens):
    """The seqeval and MUC results (those asked for) of each count row, derived in one batch per
    distinct set of types present (seqeval's per-type keys and averages are over those)."""
    o, types = view.options, view.types
    families = tuple(f for f in ("seqeval", "muc") if f in o.scoring.scores)
    out = [{} for _ in range(len(rows))]
    if not families:
        return out
    gold, pred, missed, spurious = sides(rows, len(types))
    seen = (gold.sum(axis=1) + missed + pred.sum(axis=1) + spurious) > 0
    groups = {}
    for i, present in enumerate(map(bytes, np.packbits(seen, axis=1))):
        groups.setdefault(present, []).append(i)
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


def _slice_rows(sub, keep, units):
    """Per unit of the slice (its sentences, or their documents), the count row."""
    unit, _ = units
    local = np.full(len(unit), -1, dtype=np.intp)
    _, local[keep] = np.unique(unit[keep], return_inverse=True)
    return count_rows(sub.gold, sub.pred, sub.matching, len(sub.types), local, int(local.max()) + 1)


def _worst(table, whole, beta):
    """The slice with the lowest headline F among those with an entity on either side."""
    total = headline(whole, beta)
    if total is None:
        return None
    name, best = None, None
    for value, results in table.items():
        if results.get("muc", {}).get("strict", {}).get("possible", 1) == 0 and not _predicted(results):
            continue
        score = headline(results, beta)[1]
        if best is None or score < best[1]:
            name, best = value, (value, score)
    if best is None:
        return None
    return {"value": name, "score": total[0], "slice": best[1], "whole": total[1], "gap": total[1] - best[1]}


def _predicted(results):
    return results.get("muc", {}).get("strict", {}).get("actual", 1) > 0
