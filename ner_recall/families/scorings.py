"""Scorings beyond MUC: token-level, Dice overlap, HAREM identification; type selection,
label maps and error listings.

Pure numpy over the whole corpus, on ``ner_core.SpanArrays`` (positions in the flat layout, one
sentinel after each sentence; spans of a side may nest and overlap) and a corpus with
``references, predictions, prefix, type, types, lengths``.

One place relabels and selects (:func:`select_and_relabel`): the predicted types go through
``label_map``, then the spans of types outside ``types`` are dropped on both sides. Every
score family, the core matching and the token accuracy then see the same spans.

Families, each reduced to sufficient counts here; the scores derive from those counts in
``ner_counts.prf_table`` (token, overlap) and from the credit (HAREM):

* ``token``: each (token, type) pair inside an entity is an item (EDS-NLP's ``ner_token``);
  each side's items form a set, so a token inside two nested entities of one type counts once
  for that type, and once per type when their types differ.
* ``overlap``: a predicted span is correct when a gold span of the same type has a Dice
  coefficient ``2 |g & p| / (|g| + |p|)`` of at least the threshold, and a gold span is found
  when such a prediction exists (EDS-NLP's ``ner_overlap``; not one-to-one: two predictions
  inside one gold span may both count). Threshold 1.0 is exact matching; a tiny threshold
  accepts any shared token. Above 2/3 a span reaches the threshold with at most one span of
  the other side.
* ``harem``: HAREM identification (Santos, Seco, Cardoso & Vilela, 2006). Types are
  ignored; every (gold, predicted) pair sharing a token is aligned, one-to-many and
  many-to-one. An identical pair is correct and earns 1; any other pair earns
  ``0.5 * common tokens / distinct tokens`` (tokens in both / tokens in either) and is
  partial "by excess" when the prediction has more tokens than the gold entity, "by
  shortage" otherwise (fewer tokens, or as many but shifted). Precision is the credit over
  the predicted entities, recall the credit over the gold ones. The credit is summed exactly
  (as a fraction, rounded once to a float), so it does not depend on the order of sentences.

EDS-NLP's example, "La patiente a une fièvre aiguë .":

>>> from ner_recall.core.decoding import decode, encode
>>> from ner_recall.core.counts import prf_table
>>> from ner_recall.core.matching import match
>>> corpus = encode([["B-PER", "B-PER", "O", "O", "B-DIS", "I-DIS", "O"]],
...                 [["O", "B-PER", "O", "B-DIS", "I-DIS", "O", "O"]])
>>> gold, pred = decode(corpus.references, corpus), decode(corpus.predictions, corpus)
>>> correct, number, predicted = token_counts(gold, pred, len(corpus.types))
>>> token = prf_table(correct, correct, number, predicted, corpus.types)
>>> round(token["precision"], 2), round(token["recall"], 2), round(token["f1"], 2)
(0.5, 0.67, 0.57)
>>> matching = match(gold, pred)
>>> hits = overlap_hits(gold, pred, matching, threshold=0.5)
>>> overlap = prf_table(*overlap_counts(gold, pred, hits, len(corpus.types)), corpus.types)
>>> round(overlap["precision"], 2), overlap["recall"], round(overlap["f1"], 2)
(0.67, 1.0, 0.8)
>>> [round(c, 4) for c in harem_alignment(gold, pred, matching).credit.tolist()]  # PER exact; DIS 0.5 * 1/3
[1.0, 0.1667]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.decoding import sentence_of
from ner_recall.core.registry import selectable
from ner_recall.core.vocabulary import SpanArrays, prf_scores, shared_length, union_length
from ner_recall.families.discontinuous import pair_overlap

if TYPE_CHECKING:  # these modules import this one, or import what does
    from ner_recall.core.matching import Matching

DEFAULT_SCORES = ("seqeval", "muc")
DEFAULT_OVERLAP_THRESHOLD = 0.5
HAREM_OUTCOMES = ("correct", "partial_excess", "partial_shortage", "missed", "spurious")
LISTED_OUTCOMES = ("correct", "incorrect", "partial", "missed", "spurious")


class ScoringOptions(NamedTuple):
    """Validated options: score families, type subset, label map, Dice threshold, listing."""

    scores: tuple
    types: tuple
    label_map: dict
    overlap_threshold: float
    errors: bool


class Selection(NamedTuple):
    """Both sides after relabelling and selection, in one type space ``types``."""

    gold: SpanArrays
    pred: SpanArrays
    types: tuple[str, ...]
    tokens_correct: int
    pred_kept: NDArray[np.bool_] | None = None  # which predictions the selection kept (None: every one)


# ---------------------------------------------------------------------------- options


def _names(value, option):
    """A list, tuple or set of non-empty strings, as a tuple in the given order."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise ValueError(f"{option} must be a list of names; got {value!r}")
    names = tuple(sorted(value)) if isinstance(value, (set, frozenset)) else tuple(value)
    bad = [v for v in names if not isinstance(v, str) or not v]
    if bad:
        raise ValueError(f"{option} must hold non-empty strings; got {bad[0]!r}")
    if not names:
        raise ValueError(f"{option} must name at least one; got {value!r}")
    return names


def _check_label_map(label_map):
    if label_map is None:
        return None
    if not isinstance(label_map, dict):
        raise ValueError(
            f"label_map must be a dict of predicted type -> gold type; got {type(label_map).__name__}"
        )
    for key, value in label_map.items():
        if not (isinstance(key, str) and key and isinstance(value, str) and value):
            raise ValueError(
                f"label_map maps {key!r} to {value!r}; both must be entity types (non-empty strings)"
            )
    return dict(label_map)


def _check_threshold(threshold, scores):
    if threshold is None:
        return DEFAULT_OVERLAP_THRESHOLD
    # a Real compares with ints as a float does (NaN included), though its stub names only < and <=
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or not 0 < cast(float, threshold) <= 1:
        raise ValueError(f"overlap_threshold must be in (0, 1]; got {threshold!r}")
    if "overlap" not in scores:
        raise ValueError(
            f"overlap_threshold only applies with 'overlap' in scores; got scores={list(scores)}"
        )
    return float(threshold)


def check_scoring_options(
    scores: Any = DEFAULT_SCORES,
    types: Any = None,
    label_map: Any = None,
    overlap_threshold: Any = None,
    errors: Any = False,
) -> ScoringOptions:
    """Validate the scoring options; raise ``ValueError`` naming the first bad one."""
    scores = _names(scores, "scores")
    known = selectable()  # the registered families that scores may name, in the order of the results
    unknown = [s for s in scores if s not in known]
    if unknown:
        raise ValueError(f"scores must be a subset of {list(known)}; got {unknown[0]!r}")
    if types is not None:
        types = tuple(sorted(set(_names(types, "types"))))
    if not isinstance(errors, bool):
        raise ValueError(f"errors must be True or False; got {errors!r}")
    threshold = _check_threshold(overlap_threshold, scores)
    return ScoringOptions(
        tuple(s for s in known if s in scores), types, _check_label_map(label_map), threshold, errors
    )


# ---------------------------------------------------------------------------- selection


def _keep(spans, mask, new_type):
    """The spans where ``mask`` holds, their types replaced by ``new_type``."""
    # by keyword, not ``_replace``: SpanArrays' ``__len__`` counts spans and trips ``_make``
    return type(spans)(
        start=spans.start[mask],
        end=spans.end[mask],
        type=new_type[mask],
        sentence=spans.sentence[mask],
        offset=spans.offset[mask],
    )


def _used(codes, n):
    """The distinct values of ``codes`` (integers in ``[0, n)``), sorted, as a list."""
    return np.flatnonzero(np.bincount(codes, minlength=n)).tolist()


def _type_space(corpus_types, gold, pred, keep, label_map):
    """The type names after relabelling: the selected ones, else every name still in use."""
    if keep is not None:
        return keep
    mapped_pred = {corpus_types[i] for i in _used(pred.type, len(corpus_types))} & set(label_map)
    names = {t for t in corpus_types if t not in label_map}
    names |= {corpus_types[i] for i in _used(gold.type, len(corpus_types))}
    names |= {label_map[t] for t in mapped_pred}
    return tuple(sorted(names))


def select_and_relabel(corpus: Any, gold: SpanArrays, pred: SpanArrays, options: ScoringOptions) -> Selection:
    """Relabel predictions with ``label_map``, keep the ``types`` selected: a :class:`Selection`.

    Without either option the spans and type names are returned as they are. The token
    accuracy sees the same relabelling: a tag of an unselected type counts as ``O``.
    """
    label_map, keep = options.label_map or {}, options.types
    if not label_map and keep is None:
        return Selection(
            gold, pred, tuple(corpus.types), _real_tokens(corpus, corpus.references == corpus.predictions)
        )
    types, gold_index, pred_index = _relabelling(corpus, gold, pred, options)
    new_gold = _keep(gold, gold_index[gold.type] >= 0, gold_index[gold.type])
    kept = pred_index[pred.type] >= 0
    new_pred = _keep(pred, kept, pred_index[pred.type])
    return Selection(
        new_gold,
        new_pred,
        types,
        _real_tokens(corpus, _same_tags(corpus, gold_index, pred_index, len(types))),
        kept,
    )


def _relabelling(corpus, gold, pred, options):
    """The selected type names and, per type code of the corpus (and -1 for ``O``), the new code
    of a gold and of a predicted type (-1: dropped)."""
    label_map = options.label_map or {}
    types = _type_space(corpus.types, gold, pred, options.types, label_map)
    index = {name: i for i, name in enumerate(types)}
    gold_index = np.array([index.get(t, -1) for t in corpus.types] + [-1], dtype=np.int64)
    pred_index = np.array([index.get(label_map.get(t, t), -1) for t in corpus.types] + [-1], dtype=np.int64)
    return types, gold_index, pred_index


def _same_tags(corpus, gold_index, pred_index, n_types):
    """Per flat position, whether the (prefix, relabelled type) of both sides agree; unselected
    types count as ``O``."""

    def keys(index):
        new_type = index[corpus.type]  # the type code -1 (tag O) hits the trailing -1
        prefix = np.where(new_type >= 0, corpus.prefix.astype(np.int64), 0)
        return prefix * (n_types + 1) + new_type + 1

    return keys(gold_index)[corpus.references] == keys(pred_index)[corpus.predictions]


def _real_tokens(corpus, same, by_sentence=False):
    """Agreeing real tokens (the sentinels are ``O`` on both sides), in all or per sentence."""
    if not by_sentence:
        return int(np.count_nonzero(same)) - len(corpus.lengths)
    # per sentence its tokens less those that disagree (few): the sentinels always agree
    lengths = np.asarray(corpus.lengths, dtype=np.int64)
    wrong = sentence_of(np.flatnonzero(~np.asarray(same, dtype=bool)), corpus.sentence_starts)
    return lengths - np.bincount(wrong, minlength=len(lengths))


def tokens_correct_by_sentence(
    corpus: Any, gold: SpanArrays, pred: SpanArrays, options: ScoringOptions
) -> NDArray[np.int64]:
    """Per sentence, the tokens whose tags agree after ``label_map`` and ``types`` (as the token
    accuracy counts them); zeros for a corpus without tokens."""
    if not np.asarray(corpus.lengths).any():
        return np.zeros(len(corpus.lengths), dtype=np.int64)
    if not options.label_map and options.types is None:
        return _real_tokens(corpus, corpus.references == corpus.predictions, by_sentence=True)
    types, gold_index, pred_index = _relabelling(corpus, gold, pred, options)
    return _real_tokens(corpus, _same_tags(corpus, gold_index, pred_index, len(types)), by_sentence=True)


# ---------------------------------------------------------------------------- families


def token_counts(gold: SpanArrays, pred: SpanArrays, k: int) -> tuple[NDArray[np.int64], ...]:
    """Per type (``k`` of them), the (token, type) items found, in the gold, and predicted.

    From run lengths, never one item per token: per type, the events ``+1`` at each entity's
    start and ``-1`` at its end on each side, swept in order of position, cover segments; a
    segment covered on a side counts its length once (the items form a set), and once more as
    found when both sides cover it. Cost grows with the entities, not their lengths.
    """
    k = max(k, 1)
    pos = np.concatenate([gold.start, gold.end, pred.start, pred.end]).astype(np.int64)
    kind = np.concatenate([gold.type, gold.type, pred.type, pred.type]).astype(np.int64)
    n_gold, n_pred = len(gold.start), len(pred.start)
    step_gold = np.concatenate([np.ones(n_gold), -np.ones(n_gold), np.zeros(2 * n_pred)]).astype(np.int64)
    step_pred = np.concatenate([np.zeros(2 * n_gold), np.ones(n_pred), -np.ones(n_pred)]).astype(np.int64)
    order = np.lexsort((pos, kind))
    pos, kind = pos[order], kind[order]
    on_gold, on_pred = np.cumsum(step_gold[order]) > 0, np.cumsum(step_pred[order]) > 0  # each type sums to 0
    length = np.zeros(len(pos), dtype=np.int64)
    same = kind[1:] == kind[:-1]
    length[:-1] = np.where(same, pos[1:] - pos[:-1], 0)  # the segment up to the next event of the type
    out = []
    for covered in (on_gold & on_pred, on_gold, on_pred):
        counts = np.zeros(k, dtype=np.int64)
        np.add.at(counts, kind[covered], length[covered])
        out.append(counts)
    return tuple(out)


def overlap_hits(
    gold: SpanArrays,
    pred: SpanArrays,
    matching: Matching,
    threshold: float = DEFAULT_OVERLAP_THRESHOLD,
    fragments: Any = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The overlapping pairs of ``matching`` of the same type whose Dice coefficient reaches
    ``threshold``, as (gold indices, predicted indices); ``fragments`` (``ner_fragments``, per
    side): a discontinuous entity's positions are its fragments'."""
    g, p = matching.overlap_gold, matching.overlap_pred
    common = shared_length(gold.start[g], gold.end[g], pred.start[p], pred.end[p])
    length = (gold.end[g] - gold.start[g]) + (pred.end[p] - pred.start[p])
    if fragments is not None:
        mask, shared, size_g, size_p, _ = pair_overlap(g, p, gold, pred, fragments)
        common, length = common.copy(), length.copy()
        common[mask], length[mask] = shared, size_g + size_p
    dice = 2 * common / length
    hit = (gold.type[g] == pred.type[p]) & (dice >= threshold)
    return g[hit], p[hit]


def overlap_counts(
    gold: SpanArrays, pred: SpanArrays, hits: tuple[NDArray[np.intp], NDArray[np.intp]], k: int
) -> tuple[NDArray[np.int64], ...]:
    """Per type: gold spans found, predicted spans right (by the ``hits`` pairs), gold and
    predicted spans."""
    g, p = hits
    found = np.zeros(len(gold), dtype=bool)
    found[g] = True
    right = np.zeros(len(pred), dtype=bool)
    right[p] = True
    return (
        np.bincount(gold.type[found], minlength=k),
        np.bincount(pred.type[right], minlength=k),
        np.bincount(gold.type, minlength=k),
        np.bincount(pred.type, minlength=k),
    )


class HaremAlignment(NamedTuple):
    """Aligned pairs, each pair's credit and outcome (an index into ``HAREM_OUTCOMES``)."""

    gold: np.ndarray
    pred: np.ndarray
    credit: np.ndarray
    outcome: np.ndarray


def harem_alignment(gold: SpanArrays, pred: SpanArrays, matching: Matching) -> HaremAlignment:
    """Every (gold, predicted) pair sharing a token (the overlapping pairs of ``matching``),
    with its HAREM credit and outcome."""
    g, p = matching.overlap_gold, matching.overlap_pred
    exact = (gold.start[g] == pred.start[p]) & (gold.end[g] == pred.end[p])
    # an entity with an identical counterpart is aligned with it alone (only nested entities
    # have other overlaps then); HAREM ignores types
    found_g = np.zeros(len(gold.start), dtype=bool)
    found_g[g[exact]] = True
    found_p = np.zeros(len(pred.start), dtype=bool)
    found_p[p[exact]] = True
    keep = exact | ~(found_g[g] | found_p[p])
    g, p, exact = g[keep], p[keep], exact[keep]
    gs, ge, ps, pe = gold.start[g], gold.end[g], pred.start[p], pred.end[p]
    common = shared_length(gs, ge, ps, pe)
    distinct = union_length(gs, ge, ps, pe)  # overlapping spans: their union is one run
    credit = np.where(exact, 1.0, 0.5 * common / np.maximum(distinct, 1))
    outcome = np.where(exact, 0, np.where((pe - ps) > (ge - gs), 1, 2))
    return HaremAlignment(g, p, credit, outcome.astype(np.int8))


def harem_counts(gold: SpanArrays, pred: SpanArrays, alignment: HaremAlignment) -> dict[str, Any]:
    """HAREM identification counts: outcomes, ``possible``, ``actual`` and the ``credit``.

    The credit is the exact sum of the pairs' credits (:func:`exact_credit`) as a float.
    """
    counts = np.bincount(alignment.outcome, minlength=3)
    table: dict[str, Any] = {name: int(n) for name, n in zip(HAREM_OUTCOMES, counts)}
    table.update(
        missed=int(len(gold) - len(_used(alignment.gold, len(gold)))),
        spurious=int(len(pred) - len(_used(alignment.pred, len(pred)))),
        possible=len(gold),
        actual=len(pred),
        credit=float(exact_credit(gold, pred, alignment)),
    )
    return table


def harem_scores(
    gold: SpanArrays, pred: SpanArrays, alignment: HaremAlignment, zero_division: Any = 0.0, beta: float = 1.0
) -> dict[str, Any]:
    """The HAREM family: :func:`harem_counts`, then precision over the predicted entities and
    recall over the gold ones from the capped credits (:func:`capped_credits`; both equal
    ``credit`` unless entities nest), and F-beta."""
    table = harem_counts(gold, pred, alignment)
    found, right = capped_credits(gold, pred, alignment)
    table.update(prf_scores(found, right, table["possible"], table["actual"], zero_division, beta))
    return table


def capped_credits(gold: SpanArrays, pred: SpanArrays, alignment: HaremAlignment) -> tuple[float, ...]:
    """(recall credit, precision credit): the alignment's credit with each gold, and each predicted,
    entity's share capped at 1, as floats summed exactly.

    On flat input no entity earns more than 1 (an exact pair overlaps nothing else, and the
    partial pairs of an entity earn at most 0.5 together), so both equal ``credit``; nested
    entities partially aligned with several on the other side could earn more.
    """
    total = exact_credit(gold, pred, alignment)
    return tuple(
        float(total - _excess(idx, n, gold, pred, alignment))
        for idx, n in ((alignment.gold, len(gold.start)), (alignment.pred, len(pred.start)))
    )


def _excess(idx, n, gold, pred, alignment):
    """What the entities numbered by ``idx`` earn beyond 1 each, exactly (a ``Fraction``)."""
    rough = np.bincount(idx, weights=alignment.credit, minlength=n)
    excess = Fraction(0)
    for entity in np.flatnonzero(rough > 1 - 1e-9).tolist():
        pairs = np.flatnonzero(idx == entity)
        g, p = alignment.gold[pairs], alignment.pred[pairs]
        common = shared_length(gold.start[g], gold.end[g], pred.start[p], pred.end[p])
        distinct = union_length(gold.start[g], gold.end[g], pred.start[p], pred.end[p])
        earned = sum(
            (
                Fraction(1) if o == 0 else Fraction(int(c), 2 * int(d))
                for o, c, d in zip(alignment.outcome[pairs].tolist(), common.tolist(), distinct.tolist())
            ),
            Fraction(0),
        )
        excess += max(earned - 1, Fraction(0))
    return excess


def exact_credit(gold: SpanArrays, pred: SpanArrays, alignment: HaremAlignment) -> Fraction | int:
    """The HAREM credit of ``alignment`` as a ``Fraction``: 1 per correct pair plus
    ``common / (2 * distinct)`` per partial one, summed per distinct denominator, so the sum is
    the same in any order.

    >>> from ner_recall.core.vocabulary import SpanArrays
    >>> from ner_recall.core.matching import match
    >>> a = lambda *v: np.array(v)
    >>> gold = SpanArrays(a(0, 4), a(3, 7), a(0, 0), a(0, 0), a(0, 4))  # (0, 3) and (4, 7)
    >>> pred = SpanArrays(a(0, 4), a(2, 7), a(0, 0), a(0, 0), a(0, 4))  # (0, 2) and (4, 7)
    >>> exact_credit(gold, pred, harem_alignment(gold, pred, match(gold, pred)))  # 2/3 * 1/2 + 1
    Fraction(4, 3)
    """
    g, p = alignment.gold, alignment.pred
    partial = alignment.outcome != 0
    g, p = g[partial], p[partial]
    common = shared_length(gold.start[g], gold.end[g], pred.start[p], pred.end[p])
    distinct = union_length(gold.start[g], gold.end[g], pred.start[p], pred.end[p])
    order = np.argsort(distinct, kind="stable")
    common, distinct = common[order].astype(np.int64), distinct[order]
    starts = np.flatnonzero(np.append(True, distinct[1:] != distinct[:-1])) if len(distinct) else np.arange(0)
    sums = np.add.reduceat(common, starts) if len(starts) else common
    partial_credit = sum(
        (Fraction(int(c), 2 * int(d)) for c, d in zip(sums.tolist(), distinct[starts].tolist())), Fraction(0)
    )
    return int(np.count_nonzero(~partial)) + partial_credit


# ---------------------------------------------------------------------------- error listing


def _span_lists(spans, idx, types):
    labels = [types[t] for t in spans.type[idx].tolist()]
    starts = spans.offset[idx].tolist()
    ends = (spans.offset[idx] + spans.end[idx] - spans.start[idx]).tolist()
    return [[label, s, e] for label, s, e in zip(labels, starts, ends)]


def _entries(gold, pred, g, p, types):
    """JSON-friendly ``{"sentence", "gold", "pred"}`` entries; ``g`` or ``p`` may be None."""
    sentence = (gold.sentence[g] if g is not None else pred.sentence[p]).tolist()
    golds = _span_lists(gold, g, types) if g is not None else [None] * len(sentence)
    preds = _span_lists(pred, p, types) if p is not None else [None] * len(sentence)
    return [{"sentence": s, "gold": a, "pred": b} for s, a, b in zip(sentence, golds, preds)]


def _unpaired(n, paired):
    free = np.ones(n, dtype=bool)
    free[paired] = False
    return np.flatnonzero(free)


def error_listing(
    view: Selection,
    matching: Matching,
    outcome_table: Mapping[str, Sequence[str]],
    overlap: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    harem: HaremAlignment | None = None,
) -> dict[str, Any]:
    """Per mode, the (sentence, gold span, predicted span) entries of each outcome.

    ``view`` is the :class:`Selection` (its ``gold``, ``pred`` and ``types``) that ``matching``
    matched; ``matching`` holds the one-to-one pairs ``gold``, ``pred`` and their ``scenario``;
    ``outcome_table`` maps each MUC mode to the outcome name of every scenario. ``overlap``
    (the :func:`overlap_hits`) and ``harem`` (the :func:`harem_alignment`) add those listings.
    """
    gold, pred, types = view.gold, view.pred, view.types
    missed = _entries(gold, pred, _unpaired(len(gold), matching.gold), None, types)
    spurious = _entries(gold, pred, None, _unpaired(len(pred), matching.pred), types)
    listing = {}
    for mode, outcomes in outcome_table.items():
        outcome = np.array([LISTED_OUTCOMES.index(o) for o in outcomes])[matching.scenario]
        table = {
            o: _entries(gold, pred, matching.gold[outcome == i], matching.pred[outcome == i], types)
            for i, o in enumerate(LISTED_OUTCOMES[:3])
        }
        listing[mode] = dict(table, missed=missed, spurious=spurious)
    if overlap is not None:
        g, p = overlap
        listing["overlap"] = {
            "correct": _entries(gold, pred, g, p, types),
            "missed": _entries(gold, pred, _unpaired(len(gold), g), None, types),
            "spurious": _entries(gold, pred, None, _unpaired(len(pred), p), types),
        }
    if harem is not None:
        a = harem
        listing["harem"] = {
            o: _entries(gold, pred, a.gold[a.outcome == i], a.pred[a.outcome == i], types)
            for i, o in enumerate(HAREM_OUTCOMES[:3])
        }
        listing["harem"].update(
            missed=_entries(gold, pred, _unpaired(len(gold), a.gold), None, types),
            spurious=_entries(gold, pred, None, _unpaired(len(pred), a.pred), types),
        )
    return listing
