"""The view and the table of score families.

:data:`FAMILIES` holds one row per score family: its name (as in ``scores``), the function that
counts from the :class:`View` and the one that derives the results from those counts. A view is
the corpus after relabelling and selection with its one matching; what several families share
(count rows, pair table, overlap hits, HAREM alignment) is counted once, when first asked. A new
family is one row and its two functions.

>>> from ner_recall.families import table as ner_families
>>> list(ner_families.FAMILIES)[:3]
['seqeval', 'muc', 'confusion']
>>> ner_families.check_types(["PER", "muc"])
Traceback (most recent call last):
...
ValueError: entity type 'muc' (types lists 'muc') collides with a result key; reserved: [...]
"""

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.counts import (
    confusion,
    count,
    count_rows,
    derive,
    muc_results,
    prf_table,
    seqeval_results,
)
from ner_recall.core.matching import Matching, match
from ner_recall.core.vocabulary import OUTCOME_TABLE, SpanArrays, fbeta_key
from ner_recall.families.attributes import attribute_results, check_attributes
from ner_recall.families.discontinuous import fragment_overlap, pieces, view_fragments
from ner_recall.families.hierarchy import hierarchy_results
from ner_recall.families.ranking import check_token_scores, ranking_results, tag_entity_scores
from ner_recall.families.scorings import (
    SCORES,
    HaremAlignment,
    Selection,
    error_listing,
    harem_alignment,
    harem_scores,
    overlap_counts,
    overlap_hits,
    select_and_relabel,
    token_counts,
)
from ner_recall.stats.uncertainty import INTERVAL_FAMILIES, families_of, interval_results

if TYPE_CHECKING:  # the options module imports this one
    from ner_recall.pipeline.options import Options

#: a family's results, or a whole result dict: plain JSON values
Results = dict[str, Any]

#: top-level result keys an entity type may not take
RESERVED_KEYS = frozenset(
    [
        "muc",
        "stratified_recall",
        "token",
        "overlap",
        "harem",
        "confusion",
        "errors",
        "decoding",
        "intervals",
        "slices",
        "documents",
        "buckets",
        "ranking",
        "hierarchy",
        "discontinuous",
        "attributes",
        "doubt",
        "signature",
        "convention",
    ]
    + [f"{a}_{s}" for a in ("overall", "macro", "weighted") for s in ("precision", "recall", "f1")]
    + ["overall_accuracy"]
)


def check_types(types: Iterable[str], beta: float = 1.0, where: Callable[[str], str] | None = None) -> None:
    """Raise if an entity type would collide with a top-level result key; ``where(type)`` names
    the place it comes from (the ``types`` option by default)."""
    reserved = RESERVED_KEYS | {f"{a}_{fbeta_key(beta)}" for a in ("overall", "macro", "weighted")}
    clash = sorted(set(types) & reserved)
    if clash:
        place = where(clash[0]) if where else f"types lists {clash[0]!r}"
        raise ValueError(
            f"entity type {clash[0]!r} ({place}) collides with a result key; reserved: {sorted(reserved)}"
        )


# ---------------------------------------------------------------------------- the view and the families


class View:
    """The corpus as every family sees it: both sides after ``label_map`` and ``types`` (a
    ``Selection``), their one matching, and the counts several families share, each made once
    when first asked. :func:`build_view` makes it from a corpus; :func:`ner_slices.slice_views` keeps some
    of its sentences, with the same matching."""

    def __init__(
        self,
        options: "Options",
        selection: Selection,
        matching: Matching,
        tokens: int,
        pred_scores: NDArray[np.float64] | None = None,
        fragments: tuple[dict, dict] | None = None,
        attributes: tuple[list, list] | None = None,
    ) -> None:
        self.options, self.selection, self.matching, self.tokens = options, selection, matching, tokens
        self.gold, self.pred, self.types = selection.gold, selection.pred, selection.types
        self.pred_scores = pred_scores  # each prediction's score (the "ranking" family), or None
        self.fragments = fragments  # per side {span index: fragments} (ner_fragments), or None
        self.attributes = attributes  # per side, each span's attributes dict or None; or None

    @cached_property
    def row(self) -> NDArray[np.int64]:
        """The corpus's count row (``ner_core.COLUMNS``): seqeval, MUC and their intervals."""
        return count_rows(self.gold, self.pred, self.matching, len(self.types))

    @cached_property
    def derived(self) -> dict[str, Any]:
        """The scores of :attr:`row` (``ner_counts.derive``), for seqeval and MUC."""
        families = families_of(self.options.scoring.scores)
        return derive(self.row, self.types, families, self.options.zero_division, self.options.beta)

    @cached_property
    def hits(self) -> Any:
        """The overlap family's hits (``ner_scorings.overlap_hits``), at the options' threshold."""
        threshold = self.options.scoring.overlap_threshold
        return overlap_hits(self.gold, self.pred, self.matching, threshold, self.fragments)

    @cached_property
    def alignment(self) -> HaremAlignment:
        """HAREM's many-to-many alignment of the two sides."""
        return harem_alignment(self.gold, self.pred, self.matching)


def _type_place(name, selection, scoring):
    """Where an entity type comes from: the first entity of the type, or the option naming it."""
    mapped = [key for key, value in (scoring.label_map or {}).items() if value == name]
    if mapped:
        return f"label_map[{mapped[0]!r}]"
    k = selection.types.index(name)
    for side, spans in (("references", selection.gold), ("predictions", selection.pred)):
        at = np.flatnonzero(spans.type == k)
        if len(at):
            return f"the entity at {side}[{int(spans.sentence[at[0]])}][{int(spans.offset[at[0]])}]"
    return f"types lists {name!r}"


def build_view(corpus: Any, gold: SpanArrays, pred: SpanArrays, options: "Options") -> View:
    """The :class:`View` of a decoded corpus: relabelled, selected and matched once."""
    selection = select_and_relabel(corpus, gold, pred, options.scoring)
    check_types(selection.types, options.beta, lambda name: _type_place(name, selection, options.scoring))
    scores = _entity_scores(corpus, pred, options)
    if scores is not None and selection.pred_kept is not None:
        scores = scores[selection.pred_kept]
    fragments = view_fragments(corpus, selection)
    matching = match(selection.gold, selection.pred, fragment_overlap(fragments))
    attributes = _view_attributes(corpus, selection)
    return View(options, selection, matching, int(corpus.lengths.sum()), scores, fragments, attributes)


def _view_attributes(corpus, selection):
    """Both sides' entity attributes (checked, naming the input place) for the spans ``selection``
    kept, or None when no entity carries any (and in the tag configs)."""
    sides = []
    for name, side in (("references", "gold"), ("predictions", "pred")):
        extras = getattr(corpus, f"{side}_extras", None)
        values = None if extras is None else extras.values.get("attributes")
        if values is not None:
            order = getattr(corpus, f"{side}_order")
            check_attributes(values, lambda k, e=extras, n=name, o=order: (n, *e.place(int(o[k]))))
        sides.append(values)
    if sides == [None, None]:
        return None
    gold, pred = (v or [None] * len(spans) for v, spans in zip(sides, (corpus.gold, corpus.pred)))
    if len(selection.gold) != len(gold):  # types dropped some gold entities (never relabelled)
        names = set(selection.types)
        gold = [a for a, t in zip(gold, corpus.gold.type.tolist()) if corpus.types[t] in names]
    if selection.pred_kept is not None:
        pred = [a for a, kept in zip(pred, selection.pred_kept.tolist()) if kept]
    return gold, pred


def _entity_scores(corpus, pred, options):
    """Each decoded prediction's score with the "ranking" family: the span item's ``score``, or
    the mean of ``token_scores`` over the entity's tokens; None without the family."""
    if options.ranking is None:
        return None
    if getattr(corpus, "pred_scores", None) is not None:
        return corpus.pred_scores
    return tag_entity_scores(check_token_scores(options.ranking["token_scores"], corpus.lengths), pred)


# each family: a counts function (view -> counts) and a derive function (counts, view -> results)


def view_row(view: View) -> NDArray[np.int64]:
    """The counts of the seqeval and MUC families: the view's one count row."""
    return view.row


def _seqeval(row, view):
    o = view.options
    return seqeval_results(
        row, view.types, view.derived, view.selection.tokens_correct, view.tokens, o.zero_division, o.beta
    )


def _muc(row, view):
    return muc_results(row, view.types, view.derived, view.options.beta)


def _pairs(view):
    return count(view.gold, view.pred, view.matching, view.types, 0, 0)


def _confusion(counts, view):
    return confusion(counts)


def _token_counts(view):
    gold, pred = view.gold, view.pred
    if view.fragments is not None:  # a discontinuous entity's items are its fragments' positions
        gold, pred = pieces(gold, view.fragments[0]), pieces(pred, view.fragments[1])
    correct, number, predicted = token_counts(gold, pred, len(view.types))
    return correct, correct, number, predicted


def _prf(names):
    def derive(counts, view):
        return prf_table(
            *counts, view.types, view.options.zero_division, hit_names=names, beta=view.options.beta
        )

    return derive


def _overlap_counts(view):
    return overlap_counts(view.gold, view.pred, view.hits, len(view.types))


def _overlap(counts, view):
    table = _prf(("matched_gold", "matched_pred"))(counts, view)
    table["threshold"] = view.options.scoring.overlap_threshold
    return table


def _alignment(view):
    return view.alignment


def _view(view):
    return view


def _ranking(view, _):
    return ranking_results(view.gold, view.pred, view.matching, view.types, view.pred_scores, view.options)


def _hierarchy(view, _):
    o = view.options
    return hierarchy_results(
        view.gold, view.pred, view.matching, view.types, o.hierarchy, o.zero_division, o.beta
    )


def _attributes(view, _):
    o = view.options
    return attribute_results(view.gold, view.pred, view.matching, *view.attributes, o.zero_division, o.beta)


def _harem(alignment, view):
    return harem_scores(view.gold, view.pred, alignment, view.options.zero_division, view.options.beta)


class Family(NamedTuple):
    """A score family: where its results go (None: the top level, as seqeval's keys), the function
    that counts from the view, the one that derives the results from the counts, and whether its
    scores get intervals (from the per-unit count rows: ``results["intervals"]``)."""

    key: object
    counts: Callable
    derive: Callable
    intervals: bool = False
    wanted: Callable | None = None  # view -> whether it runs (None: when ``scores`` names it)


#: every score family, in the order of the results
FAMILIES = {
    "seqeval": Family(None, view_row, _seqeval, intervals=True),
    "muc": Family("muc", view_row, _muc, intervals=True),
    "confusion": Family("confusion", _pairs, _confusion),
    "token": Family("token", _token_counts, _prf(("correct", "correct"))),
    "overlap": Family("overlap", _overlap_counts, _overlap),
    "harem": Family("harem", _alignment, _harem),
    "ranking": Family("ranking", _view, _ranking),
    "hierarchy": Family("hierarchy", _view, _hierarchy, wanted=lambda v: v.options.hierarchy is not None),
    "attributes": Family("attributes", _view, _attributes, wanted=lambda v: v.attributes is not None),
}
assert {n for n, f in FAMILIES.items() if f.wanted is None} == set(SCORES), (
    "every family in ner_scorings.SCORES has a row"
)
assert tuple(n for n, f in FAMILIES.items() if f.intervals) == INTERVAL_FAMILIES, (
    "the interval families agree"
)


def run_families(view: View) -> Results:
    """The results of every family the options ask for, then the error listing."""
    results = {}
    for name, family in FAMILIES.items():
        if name in view.options.scoring.scores if family.wanted is None else family.wanted(view):
            out = family.derive(family.counts(view), view)
            if family.key is None:
                results.update(out)
            else:
                results[family.key] = out
    if view.options.scoring.errors:
        scores = view.options.scoring.scores
        results["errors"] = error_listing(
            view.selection,
            view.matching,
            OUTCOME_TABLE,
            view.hits if "overlap" in scores else None,
            view.alignment if "harem" in scores else None,
        )
    return results


def interval_scores(view: View, stats: NDArray[np.int64]) -> Results:
    """``results["intervals"]`` of the view's families from per-unit count rows ``stats``; only
    where the options ask for intervals."""
    o = view.options
    assert o.intervals is not None  # its one caller runs it only where the options ask for intervals
    return interval_results(
        stats,
        view.types,
        o.intervals,
        families_of(o.scoring.scores),
        beta=o.beta,
        zero_division=o.zero_division,
    )
