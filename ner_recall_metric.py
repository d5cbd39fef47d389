"""ner_recall_metric: entity-level NER scores in one pass.

seqeval-compatible precision / recall / F1, the four MUC / SemEval-2013 modes with per-type
tables, more scorings (token, overlap, HAREM, confusion), bootstrap intervals, a paired test
of two systems and a stratum-weighted recall. The metric class is a thin wrapper: options and
the family table live in ``ner_pipeline``, every count and score in the ``ner_*`` modules beside
this file, and the patches to evaluate's cache and distributed runs in their own section.
"""

import json
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import datasets
import evaluate

# The library this metric wraps. evaluate's loader reads each import line below and, where the
# package is not installed, asks for "pip install" of the text after "From:" (run in the folder of
# this script: a clone of the repository or of its Space).
from ner_recall import __version__  # From: -e .
from ner_recall.core.decoding import SCHEMES, tags_to_spans  # From: -e .
from ner_recall.core.inputs import as_list  # From: -e .
from ner_recall.core.progress import reporting  # From: -e .
from ner_recall.core.spans import (  # From: -e .
    place_strings,
    placement_report,
)
from ner_recall.core.vocabulary import MODES, SIZE_KEYS, Span  # From: -e .
from ner_recall.families.attributes import (  # From: -e .
    MORPHOLOGY_OUTCOMES,
)
from ner_recall.families.scorings import (  # From: -e .
    DEFAULT_SCORES,
    LISTED_OUTCOMES,
)
from ner_recall.generated.dialects import (  # From: -e .
    DIALECTS,
    read_generated,
)
from ner_recall.generated.scoring import (  # From: -e .
    GENERATED,
    ITEM_OUTCOMES,
    generated_outcomes,
    score_generated,
)
from ner_recall.integrations.evaluate_patches import (  # From: -e .
    EvaluatePatches,
)
from ner_recall.integrations.trainer import (  # From: -e .
    make_compute_metrics,
)
from ner_recall.pipeline.compute import compare_systems  # From: -e .
from ner_recall.pipeline.golds import (  # From: -e .
    gold_differences,
    score_golds,
)
from ner_recall.pipeline.options import (  # From: -e .
    CONFIG_OPTIONS,
    CONFIGS,
    GENERATED_CONFIGS,
    SPAN_CONFIGS,
    SUBGROUP_CONFIGS,
    TAG_CONFIGS,
    WITH_GENERATED,
    all_options,
    card_args,
    card_family_args,
    card_returns,
    check_options,
    check_subgroups,
    check_unused,
    is_default,
)
from ner_recall.pipeline.record import (  # From: -e .
    check_inputs,
    check_record,
    flat_results,
    make_record,
    model_index,
)
from ner_recall.pipeline.signature import (  # From: -e .
    options_from_signature,
    refuse_convention_in_state,
    scored,
    signed,
    signed_comparison,
    state_options,
    with_convention,
)
from ner_recall.readers.benchmarks import (  # From: -e .
    align,
    benchmark_sizes,
    load_benchmark,
)
from ner_recall.readers.files import (  # From: -e .
    PAIR_FORMATS,
    Inputs,
    located,
    read_harem_inputs,
    read_hipe_pair,
    read_pair,
    read_second_predictions,
)
from ner_recall.readers.formats import (  # From: -e .
    Annotated,
    read_annotated,
)
from ner_recall.readers.harem import Harem, read_harem  # From: -e .
from ner_recall.state.counts import (  # From: -e .
    CountsState,
    counts_signed,
)
from ner_recall.state.exact import (  # From: -e .
    State,
    finalize_state,
    make_state,
)
from ner_recall.stats.agreement import agreement  # From: -e .
from ner_recall.stats.planning import neyman_plan  # From: -e .
from ner_recall.stats.stratified import CI_METHODS  # From: -e .
from ner_recall.stats.uncertainty import (  # From: -e .
    check_comparison_options,
)

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

_KWARGS_DESCRIPTION = (
    """
Args:
    predictions (list of list of str or int): predicted tags, one list per sentence; or class
        ids (as a datasets ClassLabel column holds them) with label_names. Also a 2-D array or
        tensor, a list of 1-D arrays, or an Arrow / datasets list column.
    references (list of list of str or int): gold tags (or class ids), same shape as predictions.
        Class ids of -100 mark positions ignored on both sides (padding, sub-word pieces).

    The options (ner_options.OPTIONS declares each once; an option given another value than its
    default that would change nothing is a ValueError naming it):
"""
    + card_args(CONFIGS, TAG_CONFIGS)
    + """

    With the "spans" config (``evaluate.load(path, "spans")``; "spans_subgroups" adds the
    subgroups options below): predictions and references are, per example, lists of entities
    {"label": str, "start": int, "end": int} (end exclusive; token or character offsets, the
    same unit on both sides; entities may nest and overlap). The tag configs' options (scheme,
    mode, suffix, label_names, tokens, token_scores) do not apply; the others do, and:
"""
    + card_args(SPAN_CONFIGS)
    + """
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
"""
    + card_args(SUBGROUP_CONFIGS)
    + """

    With the "generated" config (``evaluate.load(path, "generated")``; docs/generated.md):
    predictions are, per document, a model's raw output (a str, or parsed JSON); references the
    gold spans with texts=, or tags with tokens=. The span config's scoring options apply to
    the placed spans ("generated" in the results: each outcome's count), and:
"""
    + card_args(GENERATED_CONFIGS, WITH_GENERATED)
    + card_family_args()
    + """

Returns:
"""
    + card_returns()
    + """
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
    doubt (dict, span configs, when the references hold doubt): what was resolved: "groups",
        "chosen" {position: count}, "vague", "references", "optional_found",
        "optional_not_found", "predictions_ignored" (int).
    discontinuous (dict, span configs, when an entity has several fragments): Dai et al.'s
        exact-match "precision", "recall", "f1" (float), "correct", "number", "predicted" (int)
        over discontinuous entities, and "sentences" (the same over the examples holding one).
    stratified_recall (dict, "subgroups" config): "recall", "ci_low", "ci_high",
        "standard_error", "confidence_level" (float), "method", "mode" (str), "n" (int, gold
        entities), "correct" (float, their credit) and "strata" {SUBGROUP: "n", "correct",
        "recall", "weight", "ci_low", "ci_high"}.
    signature (str): one line of at most 120 characters naming every option that moves a number
        (``metric.options_from_signature`` gives them back; docs/signature.md).
    convention (dict, with convention="conlleval"): "name" and "report", the script's printout.

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
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NerRecallMetric(EvaluatePatches, evaluate.Metric):
    """Entity-level NER evaluation: seqeval-compatible scores and the four MUC modes."""

    #: the metric's version (``ner_recall.__version__``; renamed result keys: docs/glossary.md)
    VERSION = __version__
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
        if self.config_name == GENERATED:  # a model's raw output per document (docs/generated.md)
            entity = {
                key: datasets.Value("string" if key == "label" else "int64")
                for key in ("label", "start", "end")
            }
            formats = [{"predictions": datasets.Value("string"), "references": datasets.List(entity)}]
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
        # entities are read back as evaluate's lists of dicts
        if self.config_name not in (*SPAN_CONFIGS, GENERATED):
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
        output_format="auto",
        placement="order",
        matching="exact",
        normalize=None,
        fuzzy_threshold=0.9,
        convention=None,
        **family_options,
    ):
        """``compute``: the options above and those of the registered families (``family_options``)."""
        given = {**locals(), **family_options}
        table = all_options()
        unknown = sorted(set(family_options) - set(table))
        if unknown:
            raise ValueError(f"unknown compute option {unknown[0]!r}; options: {sorted(table)}")
        chosen = {
            name: given[name]
            for name, default in table.items()
            if name in given and not is_default(given[name], default)
        }
        if self.config_name == GENERATED:  # model output as text: ner_generated reads, places and scores it
            return score_generated(predictions, references, chosen)  # compute signs it
        options = check_options(self.config_name, with_convention(self.config_name, chosen))
        subgroups = as_list(subgroups)  # an Arrow column when read from evaluate's cache
        if self.config_name in SUBGROUP_CONFIGS:
            check_subgroups(subgroups, "subgroups")
        elif subgroups is not None:
            raise ValueError("subgroups needs the 'subgroups' config: evaluate.load(path, 'subgroups')")
        return scored(self.config_name, predictions, references, chosen, table, subgroups, options)

    def compare(
        self,
        *,
        predictions: Any,
        predictions_b: Any,
        references: Any,
        permutations: Any = 10_000,
        ci_resamples: Any = 1_000,
        document_ids: Any = None,
        confidence_level: Any = 0.95,
        seed: Any = 0,
        system_intervals: Any = 0,
        **compute_options: Any,
    ) -> dict[str, Any]:
        """Two systems on the same references: each headline score's difference (b - a) with a
        paired-bootstrap interval and an approximate-randomisation p-value (two-sided).

        Resamples and permutes sentences, or documents with ``document_ids`` (one id per
        sentence). ``compute_options`` (scheme, mode, scores, types, ...) apply to both systems.
        ``system_intervals``: each system's own "intervals" in ["a"] and ["b"] (and per slice
        with ``slices``) at that many bootstrap resamples of the same per-sentence rows, as
        ``compute(ci_resamples=...)`` gives them for one system (0: none).
        Returns "a" and "b" (each system's ``compute`` results), "difference", "intervals",
        "p_values" ({score name: ...}, the names of ``compute``'s "intervals"), "table" (one
        row per score: "score", "a", "b", "difference", "low", "high", "p_value") and
        "settings"; see docs/uncertainty.md.
        """
        options = check_options("default", compute_options)
        own = dict(permutations=permutations, ci_resamples=ci_resamples, document_ids=document_ids)
        check_unused("compare", "default", {**own, "confidence_level": confidence_level, "seed": seed})
        settings = check_comparison_options(
            permutations,
            ci_resamples,
            confidence_level,
            seed,
            document_ids,
            options.scoring.scores,
            system_intervals,
        )
        systems = settings["system_intervals"]
        result = compare_systems(
            predictions, predictions_b, references, options, settings, document_ids, systems
        )
        signed_own = {"ci_resamples": systems, "confidence_level": confidence_level, "seed": seed}
        return signed_comparison(
            result, compute_options, all_options(), document_ids, signed_own if systems else None
        )

    def agreement(
        self,
        annotations: Any,
        document_ids: Any = None,
        ci_resamples: Any = 0,
        confidence_level: Any = 0.95,
        seed: Any = 0,
        **options: Any,
    ) -> dict[str, Any]:
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

    def state(
        self,
        *,
        predictions: Any,
        references: Any,
        first_sentence: Any = 0,
        subgroups: Any = None,
        keep: str = "exact",
        **options: Any,
    ) -> State | CountsState:
        """One partition of a corpus as a mergeable :class:`ner_state.State` (Spark, Ray, Dask,
        torch.distributed): its sentences numbered from ``first_sentence`` (the number of sentences
        before it), with ``compute``'s options. Merge states with ``+`` (an empty ``State()`` is the
        identity), send them as ``state.to_bytes()`` / ``State.from_bytes``, then ``finalize``.
        ``keep="counts"``: a state of constant size (counts and Poisson-bootstrap resamples,
        units from ``document_ids``, ``sentence_ids`` or the sentence numbers). See docs/state.md."""
        refuse_convention_in_state(options)
        return make_state(
            self.config_name, predictions, references, first_sentence, subgroups, keep, **options
        )

    def finalize(self, state: State | CountsState, interval: str = "percentile") -> dict[str, Any]:
        """``compute``'s results on the merged partitions of ``state`` (sentences 0 to n - 1), the
        same to the bit as one ``compute`` on the whole corpus with the same options (a counts
        state: its ``interval``, "percentile" or "bias_corrected")."""
        results = finalize_state(self.config_name, state, interval)
        if isinstance(state, CountsState):
            settings = state.settings or {}
            options = json.loads(settings.get("options", "{}"))
            if settings.get("resamples"):  # the resamples' count and seed are the state's settings
                options["ci_resamples"] = settings["resamples"]
                if not is_default(settings["seed"], all_options()["seed"]):
                    options["seed"] = settings["seed"]
            return signed(results, self.config_name, *counts_signed(state, options, interval, all_options()))
        return signed(results, self.config_name, state_options(state), all_options())

    #: the state class, for an empty state and ``State.from_bytes`` (which reads a counts state too)
    State = State
    #: the counts state class (``keep="counts"``), for an empty one and ``CountsState.from_bytes``
    CountsState = CountsState

    def plan_benchmark(
        self,
        pilot: Any,
        population: Any,
        half_width: Any = None,
        budget: Any = None,
        confidence_level: Any = 0.95,
    ) -> dict[str, Any]:
        """How many entities to label per stratum of a recall benchmark (Neyman allocation), from a
        pilot ``{stratum: (labelled, correct)}`` and the strata's sizes ``{stratum: entities}``: for
        a target ``half_width`` of the stratified recall's interval, or the half-width a ``budget``
        buys. Returns ``{"strata": {name: {"n", "size", "weight", "recall"}}, "total", "half_width",
        ...}``; see docs/planning.md."""
        own = dict(half_width=half_width, budget=budget, confidence_level=confidence_level)
        check_unused("plan_benchmark", "default", own)
        return neyman_plan(pilot, population, half_width, budget, confidence_level)

    def find_entities(self, texts: Any, entities: Any) -> dict[str, Any]:
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

    def load_benchmark(self, description_csv: str | os.PathLike) -> datasets.Dataset:
        """A recall benchmark (its ``data_description.csv``) as a ``datasets.Dataset``.

        One example per sampled entity: ``text``, ``tokens``, ``token_starts``, ``token_ends``,
        ``ner_tags`` (IOB2, only the sampled entity), ``subgroup``, ``row``, ``span_*`` and
        ``correct``; see ``ner_benchmarks.load_benchmark``. Bad files raise ``ValueError``
        naming file and row.
        """
        return load_benchmark(description_csv)

    def benchmark_sizes(self, description_csv: str | os.PathLike) -> dict[str, dict[str, int]]:
        """``{subgroup: {"occurences", "labelled", "positive"}}``, ready for ``subgroup_weights``."""
        return benchmark_sizes(description_csv)

    def align(
        self, example: Mapping[str, Any], pred_spans: Sequence[tuple[int, int, str]]
    ) -> tuple[list[str], list[str], list[str]]:
        """``(tokens, references, predictions)`` of a benchmark example and a tagger's character
        spans ``[(start, end, label), ...]`` on one token grid, so that a span cutting a token
        never matches exactly; see ``ner_benchmarks.align``."""
        return align(example, pred_spans)

    def read_files(
        self,
        gold_path: str | os.PathLike,
        pred_path: str | os.PathLike | None = None,
        column: Any = None,
        check_tokens: bool = True,
    ) -> Inputs:
        """Gold and predictions from files, as ``compute`` takes them: ``.compute_inputs()`` of the
        result is ``{"predictions", "references"}`` (and ``document_ids`` for HIPE files). CoNLL
        (token first, tag last), one file with two tag columns (``pred_path=None``), JSONL spans
        (``.jsonl``, ``.json``, ``.ndjson``), or CLEF-HIPE TSV (by its header; ``column`` names the
        tag column, default ``NE-COARSE-LIT``). Errors name the file and line."""
        return read_pair(gold_path, pred_path, check_tokens, column)

    def read_hipe(
        self,
        gold_path: str | os.PathLike,
        pred_path: str | os.PathLike,
        column: str = "NE-COARSE-LIT",
        merge_lines: bool = False,
    ) -> Inputs:
        """A CLEF-HIPE gold and system TSV file with each segment's document id (``merge_lines``:
        one segment per document, as HIPE-scorer's option), for HIPE-scorer's document scores."""
        return read_hipe_pair(gold_path, pred_path, column, merge_lines)

    def read_annotated(self, path: str | os.PathLike, format: str | None = None, **options: Any) -> Annotated:
        """A file of an annotation tool or library (``ner_formats``: brat, Label Studio, doccano,
        Prodigy, spaCy DocBin, CoNLL-U; told by name and content unless ``format``): ``texts``,
        ``entities`` (character spans, with "fragments" and "attributes" where the tool has them),
        ``ids``, ``lines``, and Label Studio's ``annotators`` for ``agreement``."""
        return read_annotated(path, format, **options)

    def read_harem_markup(
        self, gold_path: str | os.PathLike, system_path: str | os.PathLike | None = None
    ) -> Harem | Inputs:
        """HAREM's golden collection markup (``ner_harem``): with one path, the documents' texts,
        ids and gold items (categories, types, MORF attributes, vague labels, ALT groups); with a
        system file too, the pair ready for the "spans" config (``compute(**inputs.compute_inputs())``),
        the system's entities aligned to the gold text where it changed it (``inputs.unplaced``:
        those it could not place)."""
        if system_path is None:
            return read_harem(gold_path)
        return read_harem_inputs(gold_path, system_path)

    def decode(self, tags: Any, scheme: str | None = None, suffix: bool = False) -> list[Span]:
        """The entities of one tag sequence as ``Span(label, start, end)`` (end exclusive).

        Same rules as ``compute``: ``scheme=None`` decodes leniently (seqeval's default),
        a scheme name decodes strictly.
        """
        return tags_to_spans(tags, scheme=scheme, suffix=suffix)

    def record(
        self, *, predictions: Any, references: Any, subgroups: Any = None, **options: Any
    ) -> dict[str, Any]:
        """``compute`` with a record of the run (``ner_record``, docs/record.md): the results with
        the config, every option (and the defaults of the rest), the seed, the decoding report, the
        matching policy, package versions and a SHA-256 of each input. ``json.dump`` writes it."""
        inputs = {"predictions": predictions, "references": references, "subgroups": subgroups}
        given = {k: v for k, v in inputs.items() if v is not None}
        results = self.compute(**given, **options)
        defaults = CONFIG_OPTIONS[self.config_name if self.config_name in CONFIG_OPTIONS else "default"]
        return make_record(self.config_name, inputs, options, defaults, results)

    def rerun(
        self,
        record: Mapping[str, Any],
        *,
        predictions: Any,
        references: Any,
        subgroups: Any = None,
        **data: Any,
    ) -> dict[str, Any]:
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
    def model_index(
        results: Mapping[str, Any],
        model_name: str,
        dataset_name: str,
        dataset_type: str,
        split: str | None = None,
        dataset_config: str | None = None,
    ) -> dict[str, Any]:
        """The ``model-index`` metadata of a Hugging Face model card for these results."""
        return model_index(results, model_name, dataset_name, dataset_type, split, dataset_config)

    @staticmethod
    def flat_results(results: Mapping[str, Any]) -> dict[str, Any]:
        """The results as one level of ``a/b/c`` keys with numbers (``evaluate.save(path, **flat)``)."""
        return flat_results(results)

    def trainer_compute_metrics(
        self, label_names: Sequence[str] | Mapping[int, str], **options: Any
    ) -> Callable[..., dict[str, Any]]:
        """A ``compute_metrics`` for ``transformers.Trainer``: ``EvalPrediction -> {name: number}``.

        Takes logits (argmax) or class ids, skips positions labelled -100, maps ids through
        ``label_names`` and returns ``compute(**options)`` flattened: ``overall_f1``,
        ``PER_f1``, ``muc_partial_f1``, ``muc_strict_PER_missed`` (see ``ner_trainer``).
        Options are checked now, so a typo fails before training.
        """
        check_options(self.config_name, options)
        return make_compute_metrics(self.compute, label_names, options, input_names=self._feature_names())

    @staticmethod
    def reporting(callback: Callable[[float, str], None]) -> AbstractContextManager[None]:
        """A context in which long work (bootstrap resamples, permutations, ...) reports its progress
        to ``callback(fraction_done, description)``, instead of a terminal bar; the callback may raise
        to cancel the work between steps (see ``ner_progress``)."""
        return reporting(callback)

    def options_from_signature(self, signature: str, **data: object) -> dict:
        """The options of a result's ``signature``, ready for ``compute(**options)`` (the same
        numbers, to the bit). Options signed by a hash only (per-sentence data such as
        ``document_ids``, ``texts``, ``slices``; long lists) are given again in ``data`` and
        checked against it. See docs/signature.md."""
        return options_from_signature(signature, self.config_name, all_options(), data)

    def compute_golds(
        self, *, predictions: object, references: dict, texts: object = None, **options: object
    ) -> dict:
        """A system against several golds at once, ``references={"conll03": ..., "cleanconll": ...}``
        (a method, not ``compute``: evaluate's batches take one gold per sentence). Each gold scored
        as ``compute`` would ("golds"), each outcome split into under every gold / disputed
        ("split", "predictions", "disputed"), each gold against each ("gold_vs_gold"). Golds of
        different tokenizations: every side as ``{"tokens": ..., "tags": ...}``, aligned on the
        characters of ``texts`` (one str per document) or of the tokens. See docs/golds.md."""
        return score_golds(self.config_name, predictions, references, texts, options, all_options())

    def gold_differences(
        self, gold_a: object, gold_b: object, texts: object = None, **options: object
    ) -> dict:
        """What ``gold_b`` changes in ``gold_a``: "counts" {kind: {type pair: n}} (type_changed,
        boundary_changed, removed, added), "changes" (each with its unit and sentence), and the
        exact-match precision, recall and F1 of ``gold_b`` against ``gold_a``. Golds as in
        ``compute_golds``; ``options``: decoding (scheme, mode, suffix, convention), types,
        label_map. See docs/golds.md."""
        return gold_differences(self.config_name, gold_a, gold_b, texts, options)

    # ---- what the app (and any front end) shows, reached through the metric (docs/app.md)

    #: the outcomes of a listed pair (``errors=True``): the keys of ``results["errors"][mode]``
    OUTCOMES = LISTED_OUTCOMES
    #: HAREM's outcomes of an entity attribute over aligned pairs (``results["attributes"]["outcomes"]``)
    ATTRIBUTE_OUTCOMES = MORPHOLOGY_OUTCOMES
    #: the fields of a subgroup's size in ``subgroup_weights`` (a benchmark's data description)
    SIZE_KEYS = SIZE_KEYS
    #: the formats ``read_systems`` can be told (``file_format``), beyond telling them by name and content
    FILE_FORMATS = PAIR_FORMATS

    def read_systems(self, gold_path: str, *pred_paths: str, file_format: str | None = None) -> list[Inputs]:
        """One gold file and one or more systems' (or annotators') files of the same sentences: one
        ``Inputs`` per predictions file, all on the gold's sentences (``read_files``' layouts, or
        ``file_format``, one of ``FILE_FORMATS``). No predictions file: the gold holds two tag columns."""
        first = read_pair(gold_path, pred_paths[0] if pred_paths else None, file_format=file_format)
        return [first, *(read_second_predictions(first, path) for path in pred_paths[1:])]

    @staticmethod
    def locate(error: Exception, inputs: Inputs, side: str | None = None) -> str:
        """The message of the metric's ``error`` about read files with the file and line of its
        place (an input error's side, sentence and token); ``side``: the side of ``inputs`` its place
        is on when the error names it otherwise (a comparison's ``predictions_b``)."""
        return str(located(error, inputs, side))

    def compare_with_intervals(self, **arguments: Any) -> dict[str, Any]:
        """``compare(system_intervals=...)`` under its former name: the same entry, the same results."""
        return self.compare(**arguments)

    def compute(self, *, predictions: Any = None, references: Any = None, **options: Any) -> Any:
        """Score the inputs (see the Args); the "generated" config reads, places and scores them
        directly (``ner_generated``), the others as ``EvaluatePatches.compute`` does."""
        if self.config_name != GENERATED:
            return super().compute(predictions=predictions, references=references, **options)
        chosen = {
            k: v for k, v in options.items() if k not in all_options() or not is_default(v, all_options()[k])
        }
        return signed(
            score_generated(predictions, references, options), self.config_name, chosen, all_options()
        )

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch (see ``EvaluatePatches.add_batch``); the "generated" config takes its corpus in compute."""
        if self.config_name == GENERATED:
            raise ValueError(
                "the 'generated' config scores a corpus in one compute call; add_batch is not offered"
            )
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one example (see ``EvaluatePatches.add``); the "generated" config takes its corpus in compute."""
        if self.config_name == GENERATED:
            raise ValueError("the 'generated' config scores a corpus in one compute call; add is not offered")
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def read_generated(self, path: str) -> dict:
        """A JSONL file of {"text", "output"} records (and "entities", the gold) as compute's
        inputs: {"texts", "predictions"[, "references"]} (docs/generated.md)."""
        return read_generated(path)

    def generated_outcomes(
        self, *, predictions: Any, texts: Any, types: Any = None, label_map: Any = None, **options: Any
    ) -> list:
        """Per document, each item of a model's output with its outcome and places on the text
        (placed, hallucinated, duplicate, off_schema, unparseable; docs/generated.md)."""
        return generated_outcomes(predictions, texts, types, label_map, **options)

    #: the output dialects of the "generated" config (``output_format``, beside "auto")
    DIALECTS = DIALECTS
    #: the outcomes of a generated item (``generated_outcomes``), in the order they are counted
    ITEM_OUTCOMES = ITEM_OUTCOMES
