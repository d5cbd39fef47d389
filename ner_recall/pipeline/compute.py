"""The scoring pipeline behind ``compute``: inputs to a view, the families, the breakdowns.

The options come checked (``ner_options``); the view and the family table are ``ner_families``'s;
the breakdowns are the modules ``ner_slices``, ``ner_documents`` and ``ner_buckets``; the
comparison of two systems is ``ner_comparison``'s. This module orders the steps.

>>> from ner_recall.core import decoding as D
>>> from ner_recall.pipeline import options as ner_options
>>> options = ner_options.check_options("default", {"scores": ["seqeval", "muc", "harem"]})
>>> corpus = D.encode([["B-PER", "I-PER", "O"]], [["B-PER", "O", "O"]])
>>> results = score_tags(corpus, options)[0]
>>> results["overall_f1"], results["muc"]["partial"]["partial"], results["harem"]["credit"]
(0.0, 1, 0.25)
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.cache import input_codes
from ner_recall.core.counts import count_rows, gold_outcomes
from ner_recall.core.decoding import EncodedCorpus, corpus_from_codes, decode, encode
from ner_recall.core.decoding_report import REPORT_PLACES, decoding_reports
from ner_recall.core.doubt import check_doubt, has_doubt, resolve
from ner_recall.core.matching import check_duplicates
from ner_recall.core.registry import family
from ner_recall.core.spans import check_entity_types, encode_spans, has_duplicates, in_input_order
from ner_recall.core.vocabulary import (
    PARALLEL_POSITIONS,
    InputError,
    SpanArrays,
    literal,
    same_count,
    side_by_side,
)
from ner_recall.families.buckets import BucketRows, bucket_scores, check_tokens, entity_texts, needs_text
from ner_recall.families.discontinuous import discontinuous_results, keyed_by_fragments
from ner_recall.families.documents import check_id_values, document_scores
from ner_recall.families.scorings import tokens_correct_by_sentence
from ner_recall.families.slices import Units, slice_results
from ner_recall.families.table import Results, View, build_view, interval_scores, reserved_keys, run_families
from ner_recall.pipeline.options import Options
from ner_recall.stats.comparison import check_same_layout, compare_scored
from ner_recall.stats.stratified import strata_counts, stratified_recall
from ner_recall.stats.uncertainty import document_units

# ---------------------------------------------------------------------------- the pipeline


def score_view(
    corpus: Any,
    gold: SpanArrays,
    pred: SpanArrays,
    options: Options,
    subgroups: Sequence[str] | None = None,
    units: Units | None = None,
    views: list[View] | None = None,
) -> tuple[Results, NDArray[np.int64] | None, tuple[str, ...], BucketRows | None]:
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
        assert stats is not None  # intervals give units above, and units give the per-unit rows
        results["intervals"] = interval_scores(view, stats)
    if options.buckets and paired_units:
        results["buckets"], bucket_rows = _buckets(corpus, view, options, units, keep_rows=True)
    elif options.buckets:
        results["buckets"] = _buckets(corpus, view, options, units)
    if options.document_ids is not None and units is not None:  # units come with document_ids
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
    texts, lengths, characters = None, corpus.lengths, options.texts is not None
    if characters:  # span configs: an entity's characters, a sentence's length the text's
        lengths = np.array([len(text) for text in options.texts], dtype=np.int64)
    if needs_text(options.buckets):
        if characters:
            sources, joiner = options.texts, None
        else:
            sources, joiner = check_tokens(options.tokens, corpus.lengths), " "
        texts = entity_texts(view.gold, sources, joiner), entity_texts(view.pred, sources, joiner)
    return bucket_scores(
        view.gold,
        view.pred,
        view.matching,
        lengths,
        options.buckets,
        options.zero_division,
        options.beta,
        types=view.types,
        texts=texts,
        train=options.train,
        units=units,
        intervals=options.intervals,
        keep_rows=keep_rows,
        characters=characters,
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


def tag_corpus(predictions: Any, references: Any, options: Options) -> EncodedCorpus:
    """Both sides' tags (lists, arrays, tensors, Arrow columns, class ids) as an encoded corpus."""
    codes = input_codes(predictions, references, options.label_names)
    if codes is None:
        return encode(predictions, references, suffix=options.suffix, scheme=options.scheme)
    return corpus_from_codes(**codes._asdict(), suffix=options.suffix, scheme=options.scheme)


def score_tags(
    corpus: EncodedCorpus,
    options: Options,
    subgroups: Sequence[str] | None = None,
    units: Units | None = None,
    views: list[View] | None = None,
) -> tuple[Results, NDArray[np.int64] | None, tuple[str, ...], BucketRows | None]:
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


def score_spans(
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Options,
    subgroups: Sequence[str] | None = None,
    views: list[View] | None = None,
) -> Results:
    """Every score family from entity spans (the span configs); without tokens, no token accuracy.
    Doubt in the references (``ner_doubt``) is resolved for the predictions first."""
    doubt = None
    if has_doubt(references):
        check_doubt(references)
        check_entity_types(predictions, "predictions", scored=options.ranking is not None)
        same_count("predictions", len(predictions), "references", len(references), "examples")
        predictions, references, doubt = resolve(predictions, references)
    corpus = encode_spans(
        predictions, references, reserved_keys(), options.texts, scored=options.ranking is not None
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
#: what besides the families does not read fragments yet: refused when an entity has two
#: fragments or more (a family says so in the registry: it does not support "discontinuous")
FRAGMENTS_REFUSED = {
    "buckets": "buckets (an entity's length and text are of contiguous spans)",
    "errors": "errors=True (the listing gives [TYPE, start, end])",
}


def _check_extras_read(corpus):
    """Refuse an entity extra nothing would read, rather than drop it silently."""
    for name, extras in (("references", corpus.gold_extras), ("predictions", corpus.pred_extras)):
        for key in extras.values if extras is not None else ():
            if key not in EXTRAS_READ:
                raise InputError(
                    f"{{place}} carry {literal(repr(key))}, which this version does not score yet", name
                )


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
    asked = {"buckets": bool(options.buckets), "errors": bool(options.scoring.errors)}
    families = [f for f in options.scoring.scores if "discontinuous" not in family(f).supports]
    refused = [
        f"the {name!r} family ({family(name).why_not.get('discontinuous', 'contiguous spans only')})"
        for name in families
    ]
    refused += [FRAGMENTS_REFUSED[key] for key, on in asked.items() if on]
    if refused:
        name, k, extras = several[0]
        order = corpus.gold_order if name == "references" else corpus.pred_order
        raise extras.error(
            name,
            int(order[k]),
            f" has several fragments, which {refused[0]} does not read; see docs/discontinuous.md",
        )


def score_system(
    predictions: Any, references: Any, options: Options, units: Units, name: str
) -> tuple[Results, NDArray[np.int64], tuple[str, ...], BucketRows | None]:
    """One system of ``compare``: (results, per-unit counts, type names); errors name ``name``."""
    try:
        corpus = tag_corpus(predictions, references, options)
    except InputError as error:  # every input error names its side: renamed by attribute
        raise error.renamed({"predictions": name}) from None
    results, stats, types, bucket_rows = score_tags(corpus, options, None, units)
    assert stats is not None  # score_tags counts per unit whenever units are given
    return results, stats, types, bucket_rows


def compare_systems(
    predictions: Any,
    predictions_b: Any,
    references: Any,
    options: Options,
    settings: Mapping[str, Any],
    document_ids: Sequence[Any] | None = None,
    system_intervals: int = 0,
) -> Results:
    """Two systems on the same references, each scored once: the dict ``compare`` returns.

    ``settings``: the checked comparison options (``check_comparison_options``). With
    ``system_intervals`` each system's results also get their own ``"intervals"``, from the same
    per-unit rows, at ``system_intervals`` resamples (the command line and the app show them
    beside the difference; 0: none). With ``slices`` in the options, ``"slices"`` holds the
    comparison on each slice, its p-values corrected for the number of slices (Holm); the
    statistics are ``ner_comparison``'s.
    """
    check_same_layout(predictions_b, references)
    n = len(references)
    if n == 0:
        raise ValueError("no sentences: predictions and references are empty")
    if document_ids is not None and hasattr(document_ids, "__len__"):
        check_id_values(list(document_ids), "document_ids")
    units = document_units(document_ids, n)
    sentences = (np.arange(n), n)  # per-sentence rows: documents and slices sum them
    systems = [
        score_system(p, references, options, sentences, name)
        for name, p in (("predictions", predictions), ("predictions_b", predictions_b))
    ]
    return compare_scored(systems, units, options, settings, document_ids is not None, system_intervals)
