"""The scoring pipeline behind ``compute``: options declared once, a table of score families.

Options. :data:`OPTIONS` declares every option of ``compute`` once: its default, the configs
that have it, and what it needs to change anything. One rule holds for every option and
config: an option given a value other than its default that would change nothing (an
``overlap_threshold`` without the "overlap" family, ``seed`` without anything random) is a
``ValueError`` naming what it needs. :func:`check_options` applies the table, then each
family's own checker, before any input is read.

Families. :data:`FAMILIES` holds one row per score family: its name (as in ``scores``), the
function that counts from the :class:`View` and the one that derives the results from those
counts. A view is the corpus after relabelling and selection with its one matching; what
several families share (count rows, pair table, overlap hits, HAREM alignment) is counted
once, when first asked. A new family is one row and its two functions.

>>> from ner_recall import ner_decoding as D
>>> options = check_options("default", {"scores": ["seqeval", "muc", "harem"]})
>>> corpus = D.encode([["B-PER", "I-PER", "O"]], [["B-PER", "O", "O"]])
>>> results = score_tags(corpus, options)[0]
>>> results["overall_f1"], results["muc"]["partial"]["partial"], results["harem"]["credit"]
(0.0, 1, 0.25)
>>> check_options("default", {"seed": 3})
Traceback (most recent call last):
...
ValueError: seed=3 changes nothing here: it needs ci_resamples > 0 (or the stratified recall's 'bootstrap' ci_method)
"""

import re
import reprlib
from collections.abc import Callable
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .ner_attributes import attribute_results, check_attributes
from .ner_buckets import (
    bucket_scores,
    check_buckets,
    check_tokens,
    check_train_entities,
    compare_buckets,
    entity_texts,
    needs_text,
    needs_train,
)
from .ner_core import PARALLEL_POSITIONS, InputError, fbeta_key, holm, side_by_side
from .ner_decoding import (
    REPORT_PLACES,
    SCHEMES,
    Numbered,
    check_scheme,
    check_suffix,
    corpus_from_codes,
    decode,
    decoding_reports,
    encode,
)
from .ner_doubt import check_doubt, has_doubt, resolve
from .ner_fragments import discontinuous_results, keyed_by_fragments, pieces, restrict, view_fragments
from .ner_hierarchy import check_hierarchy_options, hierarchy_results
from .ner_inputs import check_label_names, input_codes
from .ner_matching import (
    MODES,
    OUTCOME_TABLE,
    check_beta,
    check_duplicates,
    check_zero_division,
    confusion,
    count,
    count_rows,
    derive,
    gold_outcomes,
    match,
    muc_results,
    muc_results_rows,
    prf_table,
    seqeval_results,
    seqeval_results_rows,
    sides,
)
from .ner_ranking import (
    DEFAULT_BINS,
    check_bins,
    check_threshold_from,
    check_token_scores,
    ranking_results,
    tag_entity_scores,
)
from .ner_scorings import (
    DEFAULT_SCORES,
    SCORES,
    check_scoring_options,
    error_listing,
    harem_alignment,
    harem_scores,
    overlap_counts,
    overlap_hits,
    select_and_relabel,
    token_counts,
    tokens_correct_by_sentence,
)
from .ner_spans import check_entity_types, check_texts, encode_spans, has_duplicates, in_input_order
from .ner_stratified import check_stratified_options, strata_counts, stratified_recall
from .ner_uncertainty import (
    INTERVAL_FAMILIES,
    align_types,
    check_same_layout,
    check_uncertainty_options,
    comparison_results,
    document_units,
    families_of,
    interval_results,
    paired,
    paired_scores,
)

# ---------------------------------------------------------------------------- options, declared once

CONFIGS = ("default", "subgroups", "spans", "spans_subgroups")
#: configs whose input is entity spans, and those with a subgroups column
SPAN_CONFIGS = ("spans", "spans_subgroups")
SUBGROUP_CONFIGS = ("subgroups", "spans_subgroups")
TAG_CONFIGS = ("default", "subgroups")
MODE_OPTIONS = (None, "strict")


def _always(given, config):
    return True


def _with_overlap(given, config):
    return "overlap" in given.get("scores", DEFAULT_SCORES)


def _with_intervals(given, config):
    return given.get("ci_resamples", 0) != 0


def _with_level(given, config):
    return _with_intervals(given, config) or config in SUBGROUP_CONFIGS


def _with_randomness(given, config):
    return _with_intervals(given, config) or given.get("ci_method") == "bootstrap"


def _with_bootstrap(given, config):
    return given.get("ci_method") == "bootstrap"


def _with_text_buckets(given, config):
    return needs_text(given.get("buckets"))


def _with_train_buckets(given, config):
    return needs_train(given.get("buckets"))


def _with_ranking(given, config):
    return "ranking" in (given.get("scores") or ())


def _with_threshold_from(given, config):
    return given.get("threshold_from") is not None


class Option(NamedTuple):
    """One option of ``compute``: its default, the configs that have it, and when it changes
    anything (``needs(given options, config)``, with the words of the error when it does not)."""

    default: object
    configs: tuple
    needs: Callable = _always
    need_words: str = ""


#: every option of ``compute``, in the order of its signature
OPTIONS = {
    "scheme": Option(None, TAG_CONFIGS),
    "mode": Option(None, TAG_CONFIGS),
    "suffix": Option(False, TAG_CONFIGS),
    "label_names": Option(None, TAG_CONFIGS),
    "zero_division": Option(0, CONFIGS),
    "beta": Option(1.0, CONFIGS),
    "scores": Option(DEFAULT_SCORES, CONFIGS),
    "types": Option(None, CONFIGS),
    "label_map": Option(None, CONFIGS),
    "overlap_threshold": Option(None, CONFIGS, _with_overlap, "'overlap' in scores"),
    "errors": Option(False, CONFIGS),
    "subgroup_weights": Option(None, SUBGROUP_CONFIGS),
    "ci_method": Option("wilson", SUBGROUP_CONFIGS),
    "confidence_level": Option(0.95, CONFIGS, _with_level, "ci_resamples > 0 (or a subgroups config)"),
    "recall_mode": Option("strict", SUBGROUP_CONFIGS),
    "n_bootstrap": Option(10_000, SUBGROUP_CONFIGS, _with_bootstrap, "ci_method='bootstrap'"),
    "seed": Option(
        0, CONFIGS, _with_randomness, "ci_resamples > 0 (or the stratified recall's 'bootstrap' ci_method)"
    ),
    "texts": Option(None, SPAN_CONFIGS),
    "ci_resamples": Option(0, CONFIGS),
    "document_ids": Option(None, CONFIGS),
    "slices": Option(None, CONFIGS),
    "buckets": Option(None, CONFIGS),
    "tokens": Option(
        None, TAG_CONFIGS, _with_text_buckets, "a bucket that reads the entity's text, e.g. 'capitalisation'"
    ),
    "token_scores": Option(None, TAG_CONFIGS, _with_ranking, "'ranking' in scores"),
    "calibration_bins": Option(DEFAULT_BINS, CONFIGS, _with_ranking, "'ranking' in scores"),
    "threshold_from": Option(None, CONFIGS, _with_ranking, "'ranking' in scores"),
    "threshold_on_scored_set": Option(False, CONFIGS, _with_threshold_from, "threshold_from"),
    "train_entities": Option(
        None,
        CONFIGS,
        _with_train_buckets,
        "a bucket that reads them: 'seen', 'train_frequency', 'label_consistency'",
    ),
    "type_separator": Option(None, CONFIGS),
    "type_hierarchy": Option(None, CONFIGS),
}
ALL_OPTIONS = {name: option.default for name, option in OPTIONS.items()}
#: the options of each config, with their defaults
CONFIG_OPTIONS = {
    config: {name: o.default for name, o in OPTIONS.items() if config in o.configs} for config in CONFIGS
}
#: the config to name when an option (or input) is missing from another
OPTION_CONFIGS = {name: o.configs[0] for name, o in OPTIONS.items() if o.configs != CONFIGS}
OPTION_CONFIGS["subgroups"] = "subgroups"

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
    ]
    + [f"{a}_{s}" for a in ("overall", "macro", "weighted") for s in ("precision", "recall", "f1")]
    + ["overall_accuracy"]
)


class Options(NamedTuple):
    """Every option of a ``compute`` call, validated."""

    scheme: object
    mode: object
    suffix: bool
    label_names: object
    zero_division: float
    beta: float
    scoring: object
    stratified: object
    texts: object
    intervals: object
    slices: object
    document_ids: object = None
    buckets: object = None
    tokens: object = None
    train: object = None  # (texts Counter, (text, type) Counter) of train_entities
    ranking: object = None  # {"bins", "threshold_from", "on_scored_set", "token_scores"} with "ranking"
    hierarchy: object = None  # (type_separator, type_hierarchy) when a label splits into levels


def is_default(value, default):
    """Whether an option's value is its default (an option left alone is no error in any config)."""
    return value is default or (
        type(value) is type(default) and not isinstance(value, dict) and value == default
    )


def check_options(config_name, options):
    """Validate the ``compute`` options of a config, before any input is read: an :class:`Options`.

    ``options`` maps option names to the values given; the others take their defaults.
    Raises ``ValueError`` naming the first bad option, any name that is not an option of this
    config (with the config that has it), and any option that would change nothing.
    """
    config = config_name if config_name in CONFIGS else "default"
    for name, value in options.items():  # numpy's "truth value is ambiguous" would name nothing
        if isinstance(value, (np.ndarray, complex, np.complexfloating)) and name not in (
            "document_ids",
            "slices",
        ):
            raise ValueError(f"{name} must be a plain value, not an array or a complex number; got {value!r}")
    unknown = sorted(set(options) - set(CONFIG_OPTIONS[config]))
    if unknown:
        name = unknown[0]
        if name in OPTION_CONFIGS:
            raise ValueError(
                f"{name} needs the {OPTION_CONFIGS[name]!r} config: "
                f"evaluate.load(path, {OPTION_CONFIGS[name]!r})"
            )
        raise ValueError(f"unknown compute option {name!r}; options: {sorted(CONFIG_OPTIONS[config])}")
    o = {**ALL_OPTIONS, **options}
    _check_mode(o["mode"], o["scheme"])
    check_suffix(o["suffix"])
    label_names = None if o["label_names"] is None else check_label_names(o["label_names"])
    zero, beta = check_zero_division(o["zero_division"]), check_beta(o["beta"])
    scoring = check_scoring_options(
        o["scores"], o["types"], o["label_map"], o["overlap_threshold"], o["errors"]
    )
    check_types(scoring.types or (), beta)
    intervals = check_uncertainty_options(
        o["ci_resamples"], o["confidence_level"], o["seed"], o["document_ids"], scoring.scores
    )
    stratified = None
    if config in SUBGROUP_CONFIGS:
        stratified = {
            name: o[name]
            for name in (
                "subgroup_weights",
                "ci_method",
                "recall_mode",
                "n_bootstrap",
                "confidence_level",
                "seed",
            )
        }
        _check_stratified(stratified)
    _check_needs(config, options)
    texts = check_texts(o["texts"])
    buckets = check_buckets(o["buckets"], config in SPAN_CONFIGS)
    if needs_text(buckets) and o["texts" if config in SPAN_CONFIGS else "tokens"] is None:
        raise ValueError(
            f"buckets {list(buckets)} read each entity's text: pass "
            + (
                "texts= (one str per example)"
                if config in SPAN_CONFIGS
                else "tokens= (one list of str per sentence)"
            )
        )
    if needs_train(buckets) and o["train_entities"] is None:
        raise ValueError(
            f"buckets {list(buckets)} compare with the training entities: pass train_entities= "
            "((type, text) pairs, or {'tokens': ..., 'tags': ...})"
        )
    ranking = None
    if "ranking" in scoring.scores:
        if config in TAG_CONFIGS and o["token_scores"] is None:
            raise ValueError(
                "scores 'ranking' in a tag config reads token_scores= (per sentence, the probability of "
                "each predicted tag); span items carry a 'score' instead"
            )
        if not isinstance(o["threshold_on_scored_set"], bool):
            raise ValueError(
                f"threshold_on_scored_set must be True or False; got {o['threshold_on_scored_set']!r}"
            )
        ranking = {
            "bins": check_bins(o["calibration_bins"]),
            "threshold_from": check_threshold_from(o["threshold_from"]),
            "on_scored_set": o["threshold_on_scored_set"],
            "token_scores": o["token_scores"],
        }
    return Options(
        o["scheme"],
        o["mode"],
        o["suffix"],
        label_names,
        zero,
        beta,
        scoring,
        stratified,
        texts,
        intervals,
        check_slices(o["slices"]),
        o["document_ids"],
        buckets,
        o["tokens"],
        check_train_entities(o["train_entities"]),
        ranking,
        check_hierarchy_options(o["type_separator"], o["type_hierarchy"]),
    )


def _check_needs(config, options):
    """The one rule: an option set to another value than its default must change something."""
    for name, value in options.items():
        option = OPTIONS[name]
        if not is_default(value, option.default) and not option.needs(options, config):
            raise ValueError(
                f"{name}={reprlib.repr(value)} changes nothing here: it needs {option.need_words}"
            )


def _check_mode(mode, scheme):
    if mode not in MODE_OPTIONS:
        raise ValueError(f"mode must be one of {list(MODE_OPTIONS)}; got {mode!r}")
    check_scheme(scheme)
    if mode == "strict" and scheme is None:
        raise ValueError(f"mode='strict' needs a scheme, one of {list(SCHEMES)}")
    if mode is None and scheme is not None:
        raise ValueError(
            f"scheme={scheme!r} only applies with mode='strict' (lenient decoding has no scheme)"
        )


def check_types(types, beta=1.0, where=None):
    """Raise if an entity type would collide with a top-level result key; ``where(type)`` names
    the place it comes from (the ``types`` option by default)."""
    reserved = RESERVED_KEYS | {f"{a}_{fbeta_key(beta)}" for a in ("overall", "macro", "weighted")}
    clash = sorted(set(types) & reserved)
    if clash:
        place = where(clash[0]) if where else f"types lists {clash[0]!r}"
        raise ValueError(
            f"entity type {clash[0]!r} ({place}) collides with a result key; reserved: {sorted(reserved)}"
        )


def _check_stratified(options):
    if options["recall_mode"] not in MODES:
        raise ValueError(f"recall_mode must be one of {sorted(MODES)}; got {options['recall_mode']!r}")
    check_stratified_options(
        options["subgroup_weights"],
        options["ci_method"],
        options["confidence_level"],
        options["n_bootstrap"],
        options["seed"],
    )


def check_subgroups(column, name, single=False):
    """Raise unless every example has a subgroup name (a non-empty str)."""
    if column is None:
        raise ValueError("the 'subgroups' config needs a subgroups column: one subgroup name per sentence")
    if isinstance(column, (str, bytes)) and not single:
        raise ValueError(f"{name} is {column!r}, one string; give one subgroup name per sentence (a list)")
    for i, value in enumerate(column):
        if not isinstance(value, str) or not value:
            where = name if single else f"{name}[{i}]"
            raise ValueError(f"{where} is {value!r}; every sentence needs a subgroup name (a non-empty str)")


# ---------------------------------------------------------------------------- the view and the families


class View:
    """The corpus as every family sees it: both sides after ``label_map`` and ``types`` (a
    ``Selection``), their one matching, and the counts several families share, each made once
    when first asked. :func:`build_view` makes it from a corpus; :func:`slice_view` keeps some
    of its sentences, with the same matching."""

    def __init__(
        self, options, selection, matching, tokens, pred_scores=None, fragments=None, attributes=None
    ):
        self.options, self.selection, self.matching, self.tokens = options, selection, matching, tokens
        self.gold, self.pred, self.types = selection.gold, selection.pred, selection.types
        self.pred_scores = pred_scores  # each prediction's score (the "ranking" family), or None
        self.fragments = fragments  # per side {span index: fragments} (ner_fragments), or None
        self.attributes = attributes  # per side, each span's attributes dict or None; or None

    @cached_property
    def row(self):
        """The corpus's count row (``ner_core.COLUMNS``): seqeval, MUC and their intervals."""
        return count_rows(self.gold, self.pred, self.matching, len(self.types))

    @cached_property
    def derived(self):
        families = families_of(self.options.scoring.scores)
        return derive(self.row, self.types, families, self.options.zero_division, self.options.beta)

    @cached_property
    def hits(self):
        threshold = self.options.scoring.overlap_threshold
        return overlap_hits(self.gold, self.pred, self.matching, threshold, self.fragments)

    @cached_property
    def alignment(self):
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


def build_view(corpus, gold, pred, options):
    """The :class:`View` of a decoded corpus: relabelled, selected and matched once."""
    selection = select_and_relabel(corpus, gold, pred, options.scoring)
    check_types(selection.types, options.beta, lambda name: _type_place(name, selection, options.scoring))
    scores = _entity_scores(corpus, pred, options)
    if scores is not None and selection.pred_kept is not None:
        scores = scores[selection.pred_kept]
    fragments = view_fragments(corpus, selection)
    matching = match(selection.gold, selection.pred, fragments)
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
            check_attributes(values, lambda k, e=extras, n=name, o=order: e.where(n, int(o[k])))
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


def _row(view):
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
    wanted: Callable = None  # view -> whether it runs (None: when ``scores`` names it)


#: every score family, in the order of the results
FAMILIES = {
    "seqeval": Family(None, _row, _seqeval, intervals=True),
    "muc": Family("muc", _row, _muc, intervals=True),
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


def run_families(view):
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


# ---------------------------------------------------------------------------- documents


def document_scores(rows, types, options):
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
            for t in seen
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


# ---------------------------------------------------------------------------- slices

#: the key of a slices option given as one list
SLICE_KEY = "slice"


def check_slices(slices):
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
        out[key] = values
    return out


def _slice_codes(values, where, n_sentences):
    """The sorted distinct values of one slice key and each sentence's index into them."""
    if len(values) != n_sentences:
        raise ValueError(
            f"{where} has {len(values)} values but there are {n_sentences} sentences; give one per sentence"
        )
    numbered = Numbered()  # one pass over the values, each coded in the order first met
    first = np.fromiter(map(numbered.__getitem__, values), dtype=np.intp, count=len(values))
    distinct = sorted(numbered, key=lambda v: (type(v).__name__, v))
    order = np.empty(len(distinct), dtype=np.intp)
    order[[numbered[v] for v in distinct]] = np.arange(len(distinct))
    return distinct, order[first]


def slice_view(view, keep, tokens, tokens_correct):
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


def headline(results, beta):
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


def slice_results(view, slices, lengths, tokens_correct, units, whole):
    """``results["slices"]``: per key, per value the families' results on its sentences (and
    their intervals), and the worst slice by the headline F with its gap to the whole.

    The count-row families (seqeval, MUC) of every value come from one ``count_rows`` with the
    values as units, derived in one batch; the other families and the intervals restrict the view
    to the value's sentences (:func:`slice_view`)."""
    n = len(lengths)
    lengths = np.asarray(lengths)
    scores = view.options.scoring.scores
    others = [name for name in FAMILIES if name in scores and FAMILIES[name].counts is not _row]
    out = {}
    for key, values in slices.items():
        where = "slices" if key == SLICE_KEY and len(slices) == 1 else f"slices[{key!r}]"
        distinct, code = _slice_codes(values, where, n)
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
                    results["intervals"] = _intervals(sub, _slice_rows(sub, keep, units))
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


# ---------------------------------------------------------------------------- the pipeline


def score_view(corpus, gold, pred, options, subgroups=None, units=None, views=None):
    """The results of the decoded entities of both sides, the per-unit count rows (with
    ``units``, or with intervals asked for) with their type names, and with ``units`` and
    ``buckets`` the per-unit :class:`ner_buckets.BucketRows` (None otherwise)."""
    bucket_rows, paired_units = None, units is not None  # compare pairs the bucket rows
    if units is None and (options.intervals is not None or options.document_ids is not None):
        units = document_units(options.document_ids, len(corpus.lengths))
    view = build_view(corpus, gold, pred, options)
    if views is not None:  # the caller keeps the view (agreement lists disagreements from it)
        views.append(view)
    results = run_families(view)
    if options.stratified is not None:
        results["stratified_recall"] = _stratified_recall(view, subgroups, options.stratified)
    stats = (
        None if units is None else count_rows(view.gold, view.pred, view.matching, len(view.types), *units)
    )
    if options.intervals is not None:
        results["intervals"] = _intervals(view, stats)
    if options.buckets and paired_units:
        results["buckets"], bucket_rows = _buckets(corpus, view, options, units, keep_rows=True)
    elif options.buckets:
        results["buckets"] = _buckets(corpus, view, options, units)
    if options.document_ids is not None:
        rows = (
            stats
            if stats is not None
            else count_rows(view.gold, view.pred, view.matching, len(view.types), *units)
        )
        results["documents"] = document_scores(rows, view.types, options)
    if options.slices is not None:
        by_sentence = tokens_correct_by_sentence(corpus, gold, pred, options.scoring)
        results["slices"] = slice_results(view, options.slices, corpus.lengths, by_sentence, units, results)
    return results, stats, view.types, bucket_rows


def _buckets(corpus, view, options, units, keep_rows=False):
    texts = None
    if needs_text(options.buckets):
        if options.texts is not None:  # span configs: the entity's characters
            sources, joiner = options.texts, None
        else:
            sources, joiner = check_tokens(options.tokens, corpus.lengths), " "
        texts = tuple(entity_texts(side, sources, joiner) for side in (view.gold, view.pred))
    return bucket_scores(
        view.gold,
        view.pred,
        view.matching,
        corpus.lengths,
        options.buckets,
        options.zero_division,
        options.beta,
        types=view.types,
        texts=texts,
        train=options.train,
        units=units,
        intervals=options.intervals,
        keep_rows=keep_rows,
    )


def _intervals(view, stats):
    o = view.options
    return interval_results(
        stats,
        view.types,
        o.intervals,
        families_of(o.scoring.scores),
        beta=o.beta,
        zero_division=o.zero_division,
    )


def _stratified_recall(view, subgroups, options):
    """Stratum-weighted recall of the gold entities, each in its sentence's subgroup."""
    outcome = gold_outcomes(view.matching, len(view.gold), options["recall_mode"])
    strata = strata_counts(subgroups, view.gold.sentence, outcome)
    result = stratified_recall(
        strata,
        options["subgroup_weights"],
        ci_method=options["ci_method"],
        confidence_level=options["confidence_level"],
        n_bootstrap=options["n_bootstrap"],
        seed=options["seed"],
    )
    result["mode"] = options["recall_mode"]
    return result


def tag_corpus(predictions, references, options):
    """Both sides' tags (lists, arrays, tensors, Arrow columns, class ids) as an encoded corpus."""
    codes = input_codes(predictions, references, options.label_names)
    if codes is None:
        return encode(predictions, references, suffix=options.suffix, scheme=options.scheme)
    return corpus_from_codes(**codes._asdict(), suffix=options.suffix, scheme=options.scheme)


def score_tags(corpus, options, subgroups=None, units=None, views=None):
    """Decode both sides and score them: (results with what decoding did, per-unit counts, types)."""
    gold, pred = side_by_side(
        [
            lambda: decode(corpus.references, corpus, options.scheme),
            lambda: decode(corpus.predictions, corpus, options.scheme),
        ],
        parallel=len(corpus.references) >= PARALLEL_POSITIONS,
    )
    results, stats, types, bucket_rows = score_view(corpus, gold, pred, options, subgroups, units, views)
    results["decoding"] = decoding_reports(
        corpus, pred, gold, options.scheme, places=REPORT_PLACES if options.scoring.errors else 0
    )
    return results, stats, types, bucket_rows


def score_spans(predictions, references, options, subgroups=None, views=None):
    """Every score family from entity spans (the span configs); without tokens, no token accuracy.
    Doubt in the references (``ner_doubt``) is resolved for the predictions first."""
    doubt = None
    if has_doubt(references):
        check_doubt(references)
        check_entity_types(predictions, "predictions", scored=options.ranking is not None)
        if len(predictions) != len(references):
            raise ValueError(
                f"predictions has {len(predictions)} examples but references has {len(references)}"
            )
        predictions, references, doubt = resolve(predictions, references)
    corpus = encode_spans(
        predictions, references, RESERVED_KEYS, options.texts, scored=options.ranking is not None
    )
    if len(corpus.lengths) == 0:
        raise ValueError("no examples: predictions and references are empty")
    _check_extras_read(corpus)
    _check_fragments_read(corpus, options)
    for name, spans, order, extras in (
        ("predictions", corpus.pred, corpus.pred_order, corpus.pred_extras),
        ("references", corpus.gold, corpus.gold_order, corpus.gold_extras),
    ):
        keyed, types = keyed_by_fragments(spans, extras, corpus.types)
        if keyed is not spans or has_duplicates(spans):  # named by their index in the input
            check_duplicates(in_input_order(keyed, order), name, types)
    held = [] if views is None else views
    results = score_view(corpus, corpus.gold, corpus.pred, options, subgroups, views=held)[0]
    if doubt is not None:
        results["doubt"] = doubt
    view = held[-1]
    if view.fragments is not None:
        results["discontinuous"] = discontinuous_results(
            view.gold, view.pred, view.matching, view.fragments, options.zero_division, options.beta
        )
    for table in [results] + [
        t for key in results.get("slices", {}).values() for t in key["values"].values()
    ]:
        table.pop("overall_accuracy", None)
    return results


#: the entity extras (``ner_spans.ENTITY_EXTRAS``) that some part of the scoring reads
EXTRAS_READ = ("fragments", "attributes")
#: what does not read fragments yet: refused when an entity has two fragments or more
FRAGMENTS_REFUSED = {
    "harem": "the 'harem' family (its excess and shortage are of contiguous spans)",
    "buckets": "buckets (an entity's length and text are of contiguous spans)",
    "errors": "errors=True (the listing gives [TYPE, start, end])",
}


def _check_extras_read(corpus):
    """Refuse an entity extra nothing would read, rather than drop it silently."""
    for name, extras in (("references", corpus.gold_extras), ("predictions", corpus.pred_extras)):
        for key in extras.values if extras is not None else ():
            if key not in EXTRAS_READ:
                raise ValueError(f"{name} carry {key!r}, which this version does not score yet")


def _check_fragments_read(corpus, options):
    """Refuse, before any work, what would score a discontinuous entity as its extent."""
    several = [
        (name, next(k for k, v in enumerate(values) if isinstance(v, (list, tuple)) and len(v) > 1), extras)
        for name, extras in (("references", corpus.gold_extras), ("predictions", corpus.pred_extras))
        if extras is not None
        for values in [extras.values.get("fragments", ())]
        if any(isinstance(v, (list, tuple)) and len(v) > 1 for v in values)
    ]
    if not several:
        return
    asked = {
        "harem": "harem" in options.scoring.scores,
        "buckets": bool(options.buckets),
        "errors": bool(options.scoring.errors),
    }
    refused = [FRAGMENTS_REFUSED[key] for key, on in asked.items() if on]
    if refused:
        name, k, extras = several[0]
        order = corpus.gold_order if name == "references" else corpus.pred_order
        raise ValueError(
            f"{extras.where(name, int(order[k]))} has several fragments, which {refused[0]} does not read;"
            " see docs/discontinuous.md"
        )


def score_system(predictions, references, options, units, name):
    """One system of ``compare``: (results, per-unit counts, type names); errors name ``name``."""
    try:
        corpus = tag_corpus(predictions, references, options)
    except InputError as error:  # its place rewritten by attribute
        raise error.renamed({"predictions": name}) from None
    except ValueError as error:
        raise ValueError(re.sub(r"\bpredictions\b", name, str(error))) from None
    return score_tags(corpus, options, None, units)


def compare_systems(
    predictions, predictions_b, references, options, settings, document_ids=None, system_intervals=0
):
    """Two systems on the same references, each scored once: the dict ``compare`` returns.

    ``settings``: the checked comparison options (``check_comparison_options``). With
    ``system_intervals`` each system's results also get their own ``"intervals"``, from the same
    per-unit rows, at ``system_intervals`` resamples (the command line and the app show them
    beside the difference; 0: none). With ``slices`` in the options, ``"slices"`` holds the
    comparison on each slice, its p-values corrected for the number of slices (Holm).
    """
    check_same_layout(predictions_b, references)
    n = len(references)
    if n == 0:
        raise ValueError("no sentences: predictions and references are empty")
    units = document_units(document_ids, n)
    sentences = (np.arange(n), n)  # per-sentence rows: documents and slices sum them
    systems = [
        score_system(p, references, options, sentences, name)
        for name, p in (("predictions", predictions), ("predictions_b", predictions_b))
    ]
    families = families_of(options.scoring.scores)
    if document_ids is not None:  # as compute gives them with document_ids
        for results, rows, types, _ in systems:
            results["documents"] = document_scores(by_unit(rows, units), types, options)
    if system_intervals:
        level = {
            "resamples": system_intervals,
            "confidence_level": settings["confidence_level"],
            "seed": settings["seed"],
        }
        for results, rows, types, _ in systems:
            results["intervals"] = interval_results(
                by_unit(rows, units),
                types,
                level,
                families,
                beta=options.beta,
                zero_division=options.zero_division,
            )
    union = tuple(sorted(set(systems[0][2]) | set(systems[1][2])))
    rows_a, rows_b = (align_types(rows, types, union) for _, rows, types, _ in systems)
    out = _paired(by_unit(rows_a, units), by_unit(rows_b, units), union, settings, families, options)
    summary = {
        "unit": "sentence" if document_ids is None else "document",
        "units": units[1],
        "permutations": settings["permutations"],
        "ci_resamples": settings["resamples"],
        "confidence_level": settings["confidence_level"],
        "seed": settings["seed"],
    }
    result = comparison_results(out, systems[0][0], systems[1][0], summary)
    if options.slices:
        result["slices"] = _slice_comparisons(rows_a, rows_b, units, union, options, settings, families)
    if options.buckets:
        (a, _, _, buckets_a), (b, _, _, buckets_b) = systems

        def paired(stats_a, stats_b, names, score, estimate):
            return paired_scores(
                stats_a,
                stats_b,
                names,
                score,
                estimate,
                settings["permutations"],
                settings["resamples"],
                settings["confidence_level"],
                settings["seed"],
            )

        result["buckets"] = compare_buckets(
            by_unit(buckets_a.rows, units),
            by_unit(buckets_b.rows, units),
            buckets_a.layout,
            (a["buckets"], b["buckets"]),
            paired,
            options.beta,
            fbeta_key(options.beta),
        )
    return result


def by_unit(rows, units):
    """Per-sentence count rows summed per unit (the sentence itself, or its document)."""
    unit, n_units = units
    out = np.zeros((n_units, rows.shape[1]), dtype=rows.dtype)
    np.add.at(out, unit, rows)
    return out


def _paired(rows_a, rows_b, types, settings, families, options):
    return paired(
        rows_a,
        rows_b,
        types,
        settings["permutations"],
        settings["resamples"],
        settings["confidence_level"],
        settings["seed"],
        families,
        beta=options.beta,
        zero_division=options.zero_division,
    )


def _slice_comparisons(rows_a, rows_b, units, types, options, settings, families):
    """Per slice key and value: the difference b - a, its interval and p-values on the slice's
    sentences (or their documents), and the p-values corrected over the key's values (Holm)."""
    out = {}
    for key, values in options.slices.items():
        where = "slices" if key == SLICE_KEY and len(options.slices) == 1 else f"slices[{key!r}]"
        distinct, code = _slice_codes(values, where, len(rows_a))
        table = {}
        for i, value in enumerate(distinct):
            keep = code == i
            local, inverse = np.unique(units[0][keep], return_inverse=True)
            slice_units = (inverse, len(local))
            cmp = _paired(
                by_unit(rows_a[keep], slice_units),
                by_unit(rows_b[keep], slice_units),
                types,
                settings,
                families,
                options,
            )
            table[value] = {
                "sentences": int(keep.sum()),
                "difference": dict(zip(cmp["names"], cmp["difference"].tolist())),
                "p_values": dict(zip(cmp["names"], cmp["p_values"].tolist())),
            }
            if "intervals" in cmp:
                table[value]["intervals"] = {
                    n: [float(cmp["intervals"][0, j]), float(cmp["intervals"][1, j])]
                    for j, n in enumerate(cmp["names"])
                }
        names = set.intersection(*(set(t["p_values"]) for t in table.values()))
        for name in sorted(names):
            adjusted = holm([t["p_values"][name] for t in table.values()])
            for t, p in zip(table.values(), adjusted):
                t.setdefault("p_values_holm", {})[name] = p
        out[key] = {"values": table, "correction": "holm"}
    return out
