"""ner_recall_metric: entity-level NER scores in one pass.

seqeval-compatible precision / recall / F1, the four MUC / SemEval-2013 modes with per-type
tables, more scorings (token, overlap, HAREM, confusion), bootstrap intervals, a paired test
of two systems and a stratum-weighted recall. The metric class is a thin wrapper: options and
the family table live in ``ner_pipeline``, every count and score in the ``ner_*`` modules beside
this file, and the patches to evaluate's cache and distributed runs in their own section.
"""

import datasets
import evaluate

# evaluate copies exactly the siblings imported here, one top-level line each and no comment on
# the line (it would be read as a file to fetch); some are imported for that alone
from .ner_agreement import agreement
from .ner_attributes import MORPHOLOGY_OUTCOMES
from .ner_benchmarks import align, benchmark_sizes, load_benchmark
from .ner_buckets import EDGES
from .ner_core import MODES
from .ner_decoding import SCHEMES, tags_to_spans
from .ner_doubt import GROUP
from .ner_evaluate import EvaluatePatches
from .ner_files import read_harem_inputs, read_hipe_pair, read_pair
from .ner_formats import read_annotated
from .ner_fragments import discontinuous_results
from .ner_harem import read_harem
from .ner_hierarchy import MEASURES
from .ner_inputs import as_list
from .ner_matching import match
from .ner_model_outputs import spans_from_outputs
from .ner_pipeline import (
    ALL_OPTIONS,
    CONFIG_OPTIONS,
    SPAN_CONFIGS,
    SUBGROUP_CONFIGS,
    check_options,
    check_subgroups,
    compare_systems,
    is_default,
    score_spans,
    score_tags,
    tag_corpus,
)
from .ner_planning import neyman_plan
from .ner_ranking import RIGHT
from .ner_record import check_inputs, check_record, flat_results, make_record, model_index
from .ner_scorings import DEFAULT_SCORES
from .ner_spans import place_strings, placement_report
from .ner_state import State, finalize_state, make_state
from .ner_stratified import CI_METHODS
from .ner_trainer import make_compute_metrics
from .ner_uncertainty import check_comparison_options

_CITATION = """\
@inproceedings{segura-bedmar-etal-2013-semeval,
    title = "{S}em{E}val-2013 Task 9 : Extraction of Drug-Drug Interactions from Biomedical Texts ({DDIE}xtraction 2013)",
    author = "Segura-Bedmar, Isabel and Mart{\\'\\i}nez, Paloma and Herrero-Zazo, Mar{\\'\\i}a",
    booktitle = "Proceedings of the Seventh International Workshop on Semantic Evaluation ({S}em{E}val 2013)",
    year = "2013",
    pages = "341--350",
}
@misc{seqeval,
  title={{seqeval}: A Python framework for sequence labeling evaluation},
  url={https://github.com/chakki-works/seqeval},
  author={Hiroki Nakayama},
  year={2018},
}
"""

_DESCRIPTION = """\
Entity-level evaluation of named entity recognition from tag sequences (IO, IOB1, IOB2, IOE1,
IOE2, IOBES, BILOU, typed or untyped). One matching of gold and predicted entities gives the seqeval-compatible scores
(per type, micro, macro and support-weighted averages, token accuracy) and the four MUC /
SemEval-2013 modes (strict, exact, partial, type) with per-type tables whose counts add up.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str or int): predicted tags, one list per sentence; or class
        ids (as a datasets ClassLabel column holds them) with label_names. Also a 2-D array or
        tensor, a list of 1-D arrays, or an Arrow / datasets list column.
    references (list of list of str or int): gold tags (or class ids), same shape as predictions.
        Class ids of -100 mark positions ignored on both sides (padding, sub-word pieces).
    scheme (str or None): None (default) decodes leniently, as seqeval's default mode and
        conlleval on IOB and IOE tags (accepts O, B-, I-, E-, S- tags and repairs ill-formed sequences). With
        mode="strict": one of "IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU", decoded like
        seqeval's strict mode (entities that break the scheme are dropped), or "IO" (tags
        "I-PER" or a bare type "PER"; a run of one type is one entity). Tags with no type
        ("B", "I") are one type, "_", as in seqeval; a corpus may not mix them with typed tags.
    mode (str or None): None (default) or "strict"; "strict" requires a scheme.
    suffix (bool): tags carry their prefix last ("PER-B"). Default False.
    zero_division (int): 0 (default) or 1, the value of a score whose denominator is 0.
    beta (float): the weight of recall in every F score, a finite number > 0; default 1 (F1).
        With another beta every "f1" key below is named for it: "f2", "overall_f0.5",
        "macro_f2" ("f" followed by repr(float(beta)) without a trailing ".0").
    label_names (list of str or None): the tag of each class id, for class-id input
        (e.g. ``dataset.features["ner_tags"].feature.names``); None (default) for tags.
    scores (list of str): the score families, any of "seqeval" (top-level keys), "muc",
        "token", "overlap", "harem", "confusion". Default ["seqeval", "muc"].
    types (list of str or None): score only these entity types; entities of other types are
        dropped on both sides (and their tags count as O for overall_accuracy). A listed type
        absent from the data is allowed (a batch may lack it) and scores zero counts. None
        (default): every type.
    label_map (dict of str to str or None): renames predicted types before scoring, e.g.
        {"GEP": "LOC"} for a tagger whose label set differs from the gold's; applied before
        types, to predictions only. Keys absent from the predictions are ignored.
    overlap_threshold (float or None): the Dice coefficient in (0, 1] a same-type pair needs
        in the "overlap" family; None (default) means 0.5. Only with "overlap" in scores.
    errors (bool): add "errors", the listing of every pair per mode, and the first places
        decoding repaired or dropped (decoding's "first"). Default False.
    ci_resamples (int): bootstrap resamples for "intervals"; 0 (default) adds nothing.
    confidence_level (float): in (0, 1), of "intervals" and of the stratified recall; default 0.95.
    seed (int): seed of the bootstrap resamples (intervals, stratified "bootstrap"); default 0.
    document_ids (list or None): one hashable id per sentence, with ci_resamples: resample
        whole documents instead of sentences (sentences of a document are correlated).
    type_separator (str or None): labels split into a category and a type at its first
        occurrence ("ORGANIZACAO:SUB" with ":", Few-NERD's "person-actor" with "-"); adds
        "hierarchy". type_hierarchy (dict or None): {fine label: category} instead.

    With the "spans" config (``evaluate.load(path, "spans")``; "spans_subgroups" adds the
    subgroups options below): predictions and references are, per example, lists of entities
    {"label": str, "start": int, "end": int} (end exclusive; token or character offsets, the
    same unit on both sides; entities may nest and overlap). scheme, mode, suffix and
    label_names do not apply; the scoring options above do, and:
    texts (list of str or None): each example's text; character ends past it are an error.
    Predictions may also be model output as it comes: a token-classification pipeline's list
        of dicts (any aggregation_strategy, "none" merged by the tag grammar) or GLiNER's
        predictions; their "score" is read with "ranking" (docs/model_outputs.md).
    References may hold doubt, as HAREM marks it: a vague label (a list of types), an ALT
        group {"alternatives": [[entities], [entities]]}, an entity with "optional": True, or a
        whole example {"alternatives": [...]} (several references); each is resolved for the
        predictions before scoring ("doubt" in the results; docs/harem.md).
    An entity may carry "attributes": {name: str, bool, int or list of str} (scored in
        "attributes"; "?" is underspecified, as in HAREM's morphology; docs/harem.md).
    An entity may carry "fragments": [[start, end], ...] (a discontinuous entity; exact needs
        every fragment equal, overlaps count shared fragment positions; docs/discontinuous.md).

    With the "subgroups" or "spans_subgroups" config only:
    subgroups (list of str): the subgroup (stratum) of each sentence; its gold entities are
        the items of the stratified recall.
    subgroup_weights (dict or None): None (default: the sample's own shares, so the estimate is
        plain recall), {subgroup: relative size} (positive numbers, any magnitude), or {subgroup: {"occurences": int,
        "labelled": int, "positive": int}} (sizes estimated as positive * occurences /
        labelled; the interval then includes their uncertainty).
    ci_method (str): "wilson" (default; Jeffreys' bound near 0 and 1), "weighted_wald" (the
        published EstNLTK formula), "stratified_wald", "korn_graubard", "bootstrap"
        (docs/stratified-recall.md says which to use).
    recall_mode (str): the MUC mode that credits a gold entity; "strict" (default), "exact",
        "partial", "type" (partial matches earn 0.5 in "partial" and "type").
    n_bootstrap (int): resamples of the "bootstrap" interval (10000).

Returns:
    TYPE (dict): per entity type with a gold or predicted entity:
        "precision", "recall", "f1" (float) and "number" (int, gold entities of the type).
    overall_precision, overall_recall, overall_f1 (float): micro averages over entities.
    overall_accuracy (float): token-level accuracy of the tags (not in the span configs:
        without tokens it is not defined).
    macro_precision, macro_recall, macro_f1 (float): unweighted means of the per-type scores.
    weighted_precision, weighted_recall, weighted_f1 (float): per-type scores weighted by
        "number".
    muc (dict): for each mode "strict", "exact", "partial", "type": "correct", "incorrect",
        "partial", "missed", "spurious", "possible", "actual" (int), "precision", "recall",
        "f1" (float) and "per_type" {TYPE: the same keys}. Per type, the gold side
        (correct, incorrect, partial, missed, possible, recall) counts gold entities of the type
        and the predicted side (spurious, actual, precision) predicted entities of the type.
    token (dict, with "token" in scores): each (token, type) pair inside an entity is an item:
        "precision", "recall", "f1", macro_* and weighted_* (float), "correct", "number",
        "predicted" (int) and "per_type" {TYPE: "precision", "recall", "f1", "correct",
        "number", "predicted"}.
    overlap (dict, with "overlap" in scores): a predicted span is right, and a gold span found,
        when a span of the same type on the other side has a Dice coefficient of at least
        "threshold": the keys of "token" with "matched_gold" and "matched_pred" for "correct".
    harem (dict, with "harem" in scores): HAREM identification, types ignored: "correct",
        "partial_excess", "partial_shortage" (aligned pairs), "missed", "spurious", "possible",
        "actual" (int), "credit", "precision", "recall", "f1" (float).
    confusion (dict, with "confusion" in scores): type confusion of the one-to-one matching:
        "same_span" and "overlap" {GOLD TYPE: {PREDICTED TYPE: int}} (matched pairs on the
        same span, and overlapping), "missed" and "spurious" {TYPE: int}; nonzero entries only.
    errors (dict, with errors=True): per mode ("strict", "exact", "partial", "type", and
        "overlap" / "harem" when scored), per outcome, a list of {"sentence": int,
        "gold": [TYPE, start, end] or None, "pred": [TYPE, start, end] or None}, offsets in
        the sentence, end exclusive.
    decoding (dict): what decoding did, for "predictions" and "references": "entities" (int,
        decoded), "repaired" (int, lenient mode: entities begun on an I- or E- tag),
        "dropped" (int, strict mode: chunks of non-O tags the scheme rejects) and "reasons"
        {"no_begin", "type_change", "after_end", "not_closed": int}; with errors=True also
        "first", the first five places: [{"sentence", "start", "end" (exclusive), "reason"}].
    intervals (dict, with ci_resamples > 0): {name: [low, high]} at confidence_level, names
        "overall_precision" (and _recall, _f1), "macro_*", "weighted_*", "TYPE_precision" (and
        _recall, _f1) with "seqeval" in scores, "muc_MODE_precision" (and _recall, _f1) and
        "muc_MODE_TYPE_precision" (...) with "muc"; bootstrap (expanded BCa) over sentences,
        or documents with document_ids; see docs/uncertainty.md.
    attributes (dict, span configs, when an entity carries attributes): EDS-NLP's items
        "overall" and "per_attribute" {NAME: the keys of "overall" and "per_value" {VALUE: ...}}
        ("precision", "recall", "f1", "correct", "gold", "predicted"), and HAREM's "outcomes"
        {NAME: "correct", "partial", "wrong", "missing", "spurious", "overspecified"}.
    doubt (dict, span configs, when the references hold doubt): what was resolved: "groups",
        "chosen" {position: count}, "vague", "references", "optional_found",
        "optional_not_found", "predictions_ignored" (int).
    hierarchy (dict, with type_separator or type_hierarchy): "categories" {CATEGORY: number
        of its types}, "coarse" (the seqeval keys above over categories, matched again), and
        HAREM's classification measures "absolute" and "relative" (aligned pairs only), each
        with "categories", "types", "combined", "flat": "precision", "recall", "f1", "correct",
        "gold", "predicted"; see docs/harem.md.
    discontinuous (dict, span configs, when an entity has several fragments): Dai et al.'s
        exact-match "precision", "recall", "f1" (float), "correct", "number", "predicted" (int)
        over discontinuous entities, and "sentences" (the same over the examples holding one).
    stratified_recall (dict, "subgroups" config): "recall", "ci_low", "ci_high",
        "standard_error", "confidence_level" (float), "method", "mode" (str), "n" (int, gold
        entities), "correct" (float, their credit) and "strata" {SUBGROUP: "n", "correct",
        "recall", "weight", "ci_low", "ci_high"}.

Examples:
    >>> import evaluate
    >>> metric = evaluate.load("ner_recall_metric.py")
    >>> references = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG", "O"]]
    >>> predictions = [["B-PER", "I-PER", "O", "B-PER"], ["O", "B-ORG", "O", "O"]]
    >>> results = metric.compute(predictions=predictions, references=references)
    >>> round(results["overall_f1"], 4), results["PER"]["number"]
    (0.3333, 1)
    >>> strict = results["muc"]["strict"]
    >>> strict["correct"], strict["incorrect"], strict["missed"], strict["spurious"]
    (1, 2, 0, 0)
    >>> round(results["muc"]["partial"]["recall"], 4)  # 2 correct + 0.5 for the partial ORG
    0.8333
    >>> more = metric.compute(predictions=predictions, references=references,
    ...                       scores=["token", "overlap", "harem"])
    >>> more["token"]["precision"], more["token"]["recall"], more["harem"]["credit"]
    (0.75, 0.6, 2.25)
    >>> stratified = evaluate.load("ner_recall_metric.py", "subgroups")
    >>> results = stratified.compute(predictions=predictions, references=references, subgroups=["news", "web"],
    ...                              subgroup_weights={"news": 3, "web": 1})
    >>> results["stratified_recall"]["strata"]["web"]["recall"], results["stratified_recall"]["recall"]
    (0.0, 0.375)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NerRecallMetric(EvaluatePatches, evaluate.Metric):
    """Entity-level NER evaluation: seqeval-compatible scores and the four MUC modes."""

    #: the values of the ``scheme``, ``recall_mode`` and ``ci_method`` options
    SCHEMES = SCHEMES
    MODES = MODES
    CI_METHODS = CI_METHODS

    def _info(self):
        formats = [  # tags, or class ids (a ClassLabel column) with label_names
            {
                side: datasets.Sequence(datasets.Value(dtype, id="label"), id="sequence")
                for side in ("predictions", "references")
            }
            for dtype in ("string", "int64")
        ]
        if self.config_name in SPAN_CONFIGS:  # a list of entities per example
            entity = {
                "label": datasets.Value("string"),
                "start": datasets.Value("int64"),
                "end": datasets.Value("int64"),
            }
            formats = [{side: datasets.List(entity) for side in ("predictions", "references")}]
        if self.config_name in SUBGROUP_CONFIGS:  # one subgroup (stratum) name per sentence
            for f in formats:
                f["subgroups"] = datasets.Value("string")
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[datasets.Features(f) for f in formats],
            codebase_urls=[
                "https://github.com/chakki-works/seqeval",
                "https://github.com/MantisAI/nervaluate",
            ],
            reference_urls=["https://www.davidsbatista.net/blog/2018/05/09/Named_Entity_Evaluation/"],
        )
        # the cache is read back as Arrow columns, not as Python lists (MetricInfo rejects a
        # format for Sequence features when it is built, so it is set afterwards)
        if self.config_name not in SPAN_CONFIGS:  # entities are read back as evaluate's lists of dicts
            info.format = "arrow"
        return info

    def _compute(
        self,
        predictions,
        references,
        subgroups=None,
        scheme=None,
        mode=None,
        suffix=False,
        label_names=None,
        zero_division=0,
        beta=1.0,
        scores=DEFAULT_SCORES,
        types=None,
        label_map=None,
        overlap_threshold=None,
        errors=False,
        subgroup_weights=None,
        ci_method="wilson",
        confidence_level=0.95,
        recall_mode="strict",
        n_bootstrap=10_000,
        seed=0,
        texts=None,
        ci_resamples=0,
        document_ids=None,
        slices=None,
        buckets=None,
        tokens=None,
        train_entities=None,
        token_scores=None,
        calibration_bins=10,
        threshold_from=None,
        threshold_on_scored_set=False,
        type_separator=None,
        type_hierarchy=None,
    ):
        given = locals()
        options = check_options(
            self.config_name,
            {
                name: given[name]
                for name, default in ALL_OPTIONS.items()
                if not is_default(given[name], default)
            },
        )
        subgroups = as_list(subgroups)  # an Arrow column when read from evaluate's cache
        if self.config_name in SUBGROUP_CONFIGS:
            check_subgroups(subgroups, "subgroups")
        elif subgroups is not None:
            raise ValueError("subgroups needs the 'subgroups' config: evaluate.load(path, 'subgroups')")
        if self.config_name in SPAN_CONFIGS:
            return score_spans(predictions, references, options, subgroups)
        if len(references) == 0:
            raise ValueError("no sentences: predictions and references are empty")
        return score_tags(tag_corpus(predictions, references, options), options, subgroups)[0]

    def compare(
        self,
        *,
        predictions,
        predictions_b,
        references,
        permutations=10_000,
        ci_resamples=1_000,
        document_ids=None,
        confidence_level=0.95,
        seed=0,
        **compute_options,
    ):
        """Two systems on the same references: each headline score's difference (b - a) with a
        paired-bootstrap interval and an approximate-randomisation p-value (two-sided).

        Resamples and permutes sentences, or documents with ``document_ids`` (one id per
        sentence). ``compute_options`` (scheme, mode, scores, types, ...) apply to both systems.
        Returns "a" and "b" (each system's ``compute`` results), "difference", "intervals",
        "p_values" ({score name: ...}, the names of ``compute``'s "intervals"), "table" (one
        row per score: "score", "a", "b", "difference", "low", "high", "p_value") and
        "settings"; see docs/uncertainty.md.
        """
        options = check_options("default", compute_options)
        settings = check_comparison_options(
            permutations, ci_resamples, confidence_level, seed, document_ids, options.scoring.scores
        )
        return compare_systems(predictions, predictions_b, references, options, settings, document_ids)

    def agreement(
        self, annotations, document_ids=None, ci_resamples=0, confidence_level=0.95, seed=0, **options
    ):
        """Agreement between annotators: ``annotations`` is a list of two or more annotators, each
        annotating the same sentences as this config takes them (tags per sentence, or entity spans
        per example in the span configs; nested spans allowed). Returns "pairs" (per pair "i-j": the
        F1 of each MUC mode, per type, and the disagreements), "f1" (per mode, the mean over pairs),
        "kappa" (Cohen's for two annotators, Fleiss' for more, over token labels; with
        ``ci_resamples`` a bootstrap "interval" over sentences, or the documents of ``document_ids``)
        and "settings". ``options``: ``compute``'s (scheme, mode, types, ...). See docs/agreement.md.
        """
        kind = "spans" if self.config_name in SPAN_CONFIGS else "tags"
        return agreement(annotations, kind, document_ids, ci_resamples, confidence_level, seed, **options)

    def state(self, *, predictions, references, first_sentence=0, subgroups=None, **options):
        """One partition of a corpus as a mergeable :class:`ner_state.State` (Spark, Ray, Dask,
        torch.distributed): its sentences numbered from ``first_sentence`` (the number of sentences
        before it), with ``compute``'s options. Merge states with ``+`` (an empty ``State()`` is the
        identity), send them as ``state.to_bytes()`` / ``State.from_bytes``, then ``finalize``.
        See docs/state.md."""
        return make_state(self.config_name, predictions, references, first_sentence, subgroups, **options)

    def finalize(self, state):
        """``compute``'s results on the merged partitions of ``state`` (sentences 0 to n - 1), the
        same to the bit as one ``compute`` on the whole corpus with the same options."""
        return finalize_state(self.config_name, state)

    #: the state class, for an empty state and ``State.from_bytes``
    State = State

    def plan_benchmark(self, pilot, population, half_width=None, budget=None, confidence_level=0.95):
        """How many entities to label per stratum of a recall benchmark (Neyman allocation), from a
        pilot ``{stratum: (labelled, correct)}`` and the strata's sizes ``{stratum: entities}``: for
        a target ``half_width`` of the stratified recall's interval, or the half-width a ``budget``
        buys. Returns ``{"strata": {name: {"n", "size", "weight", "recall"}}, "total", "half_width",
        ...}``; see docs/planning.md."""
        return neyman_plan(pilot, population, half_width, budget, confidence_level)

    def find_entities(self, texts, entities):
        """Place ``(label, string)`` pairs (eval4ner's, or an LLM's output) on their texts.

        ``texts``: one str per example; ``entities``: per example a list of ``(label, string)``.
        Left to right, each string goes on its first occurrence at word boundaries not taken by
        an earlier pair with the same string. Returns ``{"entities"``: per example the
        ``{"label", "start", "end"}`` character spans, ready for the "spans" config;
        ``"ambiguous"``: per example the pairs whose string occurs more than once;
        ``"not_found"``: per example the pairs not placed (hallucinated, paraphrased, or
        listed more often than they occur); ``"total"``: ``{"strings", "placed",
        "ambiguous", "not_found"}`` counts``}``. See ``ner_spans.place_strings``.
        """
        placement = place_strings(texts, entities)
        return {
            "entities": placement.spans,
            "ambiguous": placement.ambiguous,
            "not_found": placement.not_found,
            "total": placement_report(placement),
        }

    def load_benchmark(self, description_csv):
        """A recall benchmark (its ``data_description.csv``) as a ``datasets.Dataset``.

        One example per sampled entity: ``text``, ``tokens``, ``token_starts``, ``token_ends``,
        ``ner_tags`` (IOB2, only the sampled entity), ``subgroup``, ``row``, ``span_*`` and
        ``correct``; see ``ner_benchmarks.load_benchmark``. Bad files raise ``ValueError``
        naming file and row.
        """
        return load_benchmark(description_csv)

    def benchmark_sizes(self, description_csv):
        """``{subgroup: {"occurences", "labelled", "positive"}}``, ready for ``subgroup_weights``."""
        return benchmark_sizes(description_csv)

    def align(self, example, pred_spans):
        """``(tokens, references, predictions)`` of a benchmark example and a tagger's character
        spans ``[(start, end, label), ...]`` on one token grid, so that a span cutting a token
        never matches exactly; see ``ner_benchmarks.align``."""
        return align(example, pred_spans)

    def read_files(self, gold_path, pred_path=None, column=None, check_tokens=True):
        """Gold and predictions from files, as ``compute`` takes them: ``.compute_inputs()`` of the
        result is ``{"predictions", "references"}`` (and ``document_ids`` for HIPE files). CoNLL
        (token first, tag last), one file with two tag columns (``pred_path=None``), JSONL spans
        (``.jsonl``, ``.json``, ``.ndjson``), or CLEF-HIPE TSV (by its header; ``column`` names the
        tag column, default ``NE-COARSE-LIT``). Errors name the file and line."""
        return read_pair(gold_path, pred_path, check_tokens, column)

    def read_hipe(self, gold_path, pred_path, column="NE-COARSE-LIT", merge_lines=False):
        """A CLEF-HIPE gold and system TSV file with each segment's document id (``merge_lines``:
        one segment per document, as HIPE-scorer's option), for HIPE-scorer's document scores."""
        return read_hipe_pair(gold_path, pred_path, column, merge_lines)

    def read_annotated(self, path, format=None, **options):
        """A file of an annotation tool or library (``ner_formats``: brat, Label Studio, doccano,
        Prodigy, spaCy DocBin, CoNLL-U; told by name and content unless ``format``): ``texts``,
        ``entities`` (character spans, with "fragments" and "attributes" where the tool has them),
        ``ids``, ``lines``, and Label Studio's ``annotators`` for ``agreement``."""
        return read_annotated(path, format, **options)

    def read_harem_markup(self, gold_path, system_path=None):
        """HAREM's golden collection markup (``ner_harem``): with one path, the documents' texts,
        ids and gold items (categories, types, MORF attributes, vague labels, ALT groups); with a
        system file too, the pair ready for the "spans" config (``compute(**inputs.compute_inputs())``),
        the system's entities aligned to the gold text where it changed it (``inputs.unplaced``:
        those it could not place)."""
        if system_path is None:
            return read_harem(gold_path)
        return read_harem_inputs(gold_path, system_path)

    def decode(self, tags, scheme=None, suffix=False):
        """The entities of one tag sequence as ``Span(label, start, end)`` (end exclusive).

        Same rules as ``compute``: ``scheme=None`` decodes leniently (seqeval's default),
        a scheme name decodes strictly.
        """
        return tags_to_spans(tags, scheme=scheme, suffix=suffix)

    def record(self, *, predictions, references, subgroups=None, **options):
        """``compute`` with a record of the run (``ner_record``, docs/record.md): the results with
        the config, every option (and the defaults of the rest), the seed, the decoding report, the
        matching policy, package versions and a SHA-256 of each input. ``json.dump`` writes it."""
        inputs = {"predictions": predictions, "references": references, "subgroups": subgroups}
        given = {k: v for k, v in inputs.items() if v is not None}
        results = self.compute(**given, **options)
        defaults = CONFIG_OPTIONS[self.config_name if self.config_name in CONFIG_OPTIONS else "default"]
        return make_record(self.config_name, inputs, options, defaults, results)

    def rerun(self, record, *, predictions, references, subgroups=None, **data):
        """The results of a recorded run computed again: the record's options on the inputs given,
        which must be the ones it hashed (a ValueError names the one that differs; per-sentence
        options such as ``texts`` or ``document_ids`` are given again here). Compare with
        ``record["results"]`` (equal to the last bit when nothing changed)."""
        check_record(record)
        if record["config"] != self.config_name:
            raise ValueError(
                f"the record is of the {record['config']!r} config: evaluate.load(path, {record['config']!r})"
            )
        given = {"predictions": predictions, "references": references, "subgroups": subgroups, **data}
        check_inputs(record, given)
        return self.compute(**{k: v for k, v in given.items() if v is not None}, **record["options"])

    @staticmethod
    def model_index(results, model_name, dataset_name, dataset_type, split=None, dataset_config=None):
        """The ``model-index`` metadata of a Hugging Face model card for these results."""
        return model_index(results, model_name, dataset_name, dataset_type, split, dataset_config)

    @staticmethod
    def flat_results(results):
        """The results as one level of ``a/b/c`` keys with numbers (``evaluate.save(path, **flat)``)."""
        return flat_results(results)

    def trainer_compute_metrics(self, label_names, **options):
        """A ``compute_metrics`` for ``transformers.Trainer``: ``EvalPrediction -> {name: number}``.

        Takes logits (argmax) or class ids, skips positions labelled -100, maps ids through
        ``label_names`` and returns ``compute(**options)`` flattened: ``overall_f1``,
        ``PER_f1``, ``muc_partial_f1``, ``muc_strict_PER_missed`` (see ``ner_trainer``).
        Options are checked now, so a typo fails before training.
        """
        check_options(self.config_name, options)
        return make_compute_metrics(self.compute, label_names, options, input_names=self._feature_names())

    def compare_with_intervals(
        self,
        *,
        predictions: list,
        predictions_b: list,
        references: list,
        system_intervals: int = 0,
        permutations: int = 10_000,
        ci_resamples: int = 1_000,
        document_ids: list | None = None,
        confidence_level: float = 0.95,
        seed: int = 0,
        **compute_options: object,
    ) -> dict:
        """``compare``, and with ``system_intervals`` (resamples; 0: none) each system's own
        ``"intervals"`` in ``"a"`` and ``"b"``, from the same per-unit rows, beside the difference's
        (as the command line and the app show them)."""
        options = check_options("default", compute_options)
        settings = check_comparison_options(
            permutations, ci_resamples, confidence_level, seed, document_ids, options.scoring.scores
        )
        return compare_systems(
            predictions, predictions_b, references, options, settings, document_ids, system_intervals
        )
