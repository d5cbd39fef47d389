"""The view and the table of score families.

:func:`run_families` runs every family of the registry (``ner_recall.core.registry``) the options
ask for: each counts from the :class:`View` and derives its results from those counts. A view is
the corpus after relabelling and selection with its one matching; what several families share
(count rows, pair table, overlap hits, HAREM alignment) is counted once, when first asked. A new
family is one module that registers itself.

>>> from ner_recall.families import table as ner_families
>>> ner_families.check_types(["PER", "muc"])
Traceback (most recent call last):
...
ValueError: entity type 'muc' (types lists 'muc') collides with a result key; reserved: [...]
"""

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.counts import count_rows, derive
from ner_recall.core.matching import Matching, match
from ner_recall.core.registry import registered
from ner_recall.core.vocabulary import OUTCOME_TABLE, SpanArrays, fbeta_key
from ner_recall.families.attributes import check_attributes
from ner_recall.families.discontinuous import fragment_overlap, view_fragments
from ner_recall.families.ranking import check_token_scores, tag_entity_scores
from ner_recall.families.scorings import (
    HaremAlignment,
    Selection,
    error_listing,
    harem_alignment,
    overlap_hits,
    select_and_relabel,
)
from ner_recall.stats.uncertainty import families_of, interval_results

if TYPE_CHECKING:  # the options module imports this one
    from ner_recall.pipeline.options import Options

#: a family's results, or a whole result dict: plain JSON values
Results = dict[str, Any]

#: top-level result keys an entity type may not take besides the families' (:func:`reserved_keys`)
BASE_RESERVED_KEYS = frozenset(
    [
        "stratified_recall",
        "errors",
        "decoding",
        "intervals",
        "slices",
        "documents",
        "buckets",
        "discontinuous",
        "doubt",
        "signature",
        "convention",
    ]
)


def reserved_keys() -> frozenset[str]:
    """Every top-level result key an entity type may not take: the families' keys and the keys
    they write (from the registry), and the breakdowns' and the record's."""
    families = registered()
    return BASE_RESERVED_KEYS | {f.key for f in families if f.key} | {k for f in families for k in f.reserved}


def check_types(types: Iterable[str], beta: float = 1.0, where: Callable[[str], str] | None = None) -> None:
    """Raise if an entity type would collide with a top-level result key; ``where(type)`` names
    the place it comes from (the ``types`` option by default)."""
    reserved = reserved_keys() | {f"{a}_{fbeta_key(beta)}" for a in ("overall", "macro", "weighted")}
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

            def place(k: int, e=extras, n=name, o=order) -> tuple[str, int, int]:
                return (n, *e.place(int(o[k])))

            check_attributes(values, place)
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


def run_families(view: View) -> Results:
    """The results of every family the options ask for, then the error listing."""
    results = {}
    for family in registered():
        if family.name in view.options.scoring.scores if family.wanted is None else family.wanted(view):
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
