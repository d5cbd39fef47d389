"""Every option of ``compute`` declared once, and the one check of the options given.

:data:`OPTIONS` declares every option of ``compute`` once: its default, the configs that have
it, and what it needs to change anything. One rule holds for every option and config: an option
given a value other than its default that would change nothing (an ``overlap_threshold``
without the "overlap" family, ``seed`` without anything random) is a ``ValueError`` naming what
it needs. :func:`check_options` applies the table, then each family's own checker, before any
input is read.

>>> from ner_recall.pipeline import options as ner_options
>>> ner_options.check_options("default", {"scores": ["token"]}).scoring.scores
('token',)
>>> ner_options.check_options("default", {"seed": 3})
Traceback (most recent call last):
...
ValueError: seed=3 changes nothing here: it needs ci_resamples > 0 (or the stratified recall's 'bootstrap' ci_method)
"""

import reprlib
import textwrap
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.counts import check_beta, check_zero_division
from ner_recall.core.decoding import SCHEMES, check_scheme, check_suffix
from ner_recall.core.inputs import check_label_names
from ner_recall.core.registry import family_options, registered
from ner_recall.core.spans import check_texts
from ner_recall.core.vocabulary import MODES, InputError
from ner_recall.families.buckets import Training, check_buckets, check_train_entities, needs_text, needs_train
from ner_recall.families.documents import check_id_values
from ner_recall.families.hierarchy import check_hierarchy_options
from ner_recall.families.ranking import DEFAULT_BINS, check_bins, check_threshold_from
from ner_recall.families.scorings import DEFAULT_SCORES, ScoringOptions, check_scoring_options
from ner_recall.families.slices import check_slices
from ner_recall.families.table import check_types
from ner_recall.stats.stratified import check_stratified_options
from ner_recall.stats.uncertainty import check_uncertainty_options

# ---------------------------------------------------------------------------- options, declared once

CONFIGS = ("default", "subgroups", "spans", "spans_subgroups")
#: configs whose input is entity spans, and those with a subgroups column
SPAN_CONFIGS = ("spans", "spans_subgroups")
SUBGROUP_CONFIGS = ("subgroups", "spans_subgroups")
TAG_CONFIGS = ("default", "subgroups")
#: the config of a language model's raw output (ner_generated), and every config with it
GENERATED_CONFIGS = ("generated",)
WITH_GENERATED = (*CONFIGS, *GENERATED_CONFIGS)
MODE_OPTIONS = (None, "strict")
#: what a rule of :class:`Need` reads: the options given over the method's defaults
Values = Mapping[str, Any]


class Need(NamedTuple):
    """When an option changes anything: ``holds(values, config, method)``, and the words of the
    error when it does not."""

    holds: Callable[[Values, str, str], bool]
    words: str


def _intervals(values: Values) -> bool:
    return values.get("ci_resamples", 0) != 0


OVERLAP = Need(lambda v, c, m: "overlap" in v["scores"], "'overlap' in scores")
LEVEL = Need(
    lambda v, c, m: _intervals(v) or c in SUBGROUP_CONFIGS or m == "plan_benchmark",
    "ci_resamples > 0 (or a subgroups config)",
)
RANDOM = Need(
    lambda v, c, m: _intervals(v) or v.get("ci_method") == "bootstrap" or v.get("permutations", 0) > 0,
    "ci_resamples > 0 (or the stratified recall's 'bootstrap' ci_method)",
)
BOOTSTRAP = Need(lambda v, c, m: v.get("ci_method") == "bootstrap", "ci_method='bootstrap'")
TEXT_BUCKETS = Need(
    lambda v, c, m: needs_text(v["buckets"]), "a bucket that reads the entity's text, e.g. 'capitalisation'"
)
TRAIN_BUCKETS = Need(
    lambda v, c, m: needs_train(v["buckets"]),
    "a bucket that reads them: 'seen', 'train_frequency', 'label_consistency'",
)
RANKING = Need(lambda v, c, m: "ranking" in (v["scores"] or ()), "'ranking' in scores")
NEEDS_THRESHOLD_FROM = Need(lambda v, c, m: v["threshold_from"] is not None, "threshold_from")
#: agreement's units only serve its resamples (compute's documents are scored too)
UNITS = Need(lambda v, c, m: m != "agreement" or _intervals(v), "ci_resamples > 0 in agreement")


class Option(NamedTuple):
    """One option: its name, its type and default as the card writes them, one line of doc, the
    configs that have it, when it changes anything (None: always), and the methods that take it
    (``defaults``: where a method's default differs)."""

    name: str
    type: str
    default: Any
    doc: str
    configs: tuple[str, ...] = CONFIGS
    needs: Need | None = None
    methods: tuple[str, ...] = ("compute",)
    defaults: Mapping[str, Any] = {}

    def default_of(self, method: str) -> Any:
        """The option's default in ``method``."""
        return self.defaults.get(method, self.default)


#: ``compute``, ``agreement`` and ``compare`` share the interval options
SHARED = ("compute", "agreement", "compare")

#: every option, once: ``compute``'s in the order of its signature, then the other methods' own
OPTIONS = {
    o.name: o
    for o in (
        Option(
            "scheme",
            "str or None",
            None,
            "None decodes leniently (seqeval's default); with mode='strict' one of IO, IOB1, IOB2, IOE1, IOE2, IOBES, BILOU, decoded as seqeval's strict mode (docs/decoding.md)",
            TAG_CONFIGS,
        ),
        Option("mode", "str or None", None, "None or 'strict' (which needs a scheme)", TAG_CONFIGS),
        Option("suffix", "bool", False, "tags carry their prefix last ('PER-B')", TAG_CONFIGS),
        Option(
            "label_names",
            "list of str or None",
            None,
            "the tag of each class id, for class-id input (dataset.features['ner_tags'].feature.names)",
            TAG_CONFIGS,
        ),
        Option("zero_division", "int", 0, "0 or 1, the value of a score whose denominator is 0"),
        Option(
            "beta",
            "float",
            1.0,
            "the weight of recall in every F score (> 0); its keys are named for it: f2, overall_f0.5",
        ),
        Option(
            "scores",
            "list of str",
            DEFAULT_SCORES,
            "the score families: 'seqeval' (top-level keys), 'muc', 'token', 'overlap', 'harem', 'confusion', 'ranking'",
        ),
        Option(
            "types",
            "list of str or None",
            None,
            "score only these entity types (others are dropped on both sides); None: every type",
        ),
        Option(
            "label_map",
            "dict of str to str or None",
            None,
            "renames predicted types before scoring, e.g. {'GEP': 'LOC'}",
        ),
        Option(
            "overlap_threshold",
            "float or None",
            None,
            "the Dice coefficient in (0, 1] a same-type pair needs in 'overlap'; None means 0.5",
            needs=OVERLAP,
        ),
        Option(
            "errors",
            "bool",
            False,
            "add 'errors', every pair per mode and outcome, and decoding's first repairs",
        ),
        Option(
            "subgroup_weights",
            "dict or None",
            None,
            "None (plain recall), {subgroup: size}, or {subgroup: {'occurences', 'labelled', 'positive'}} (metric.benchmark_sizes)",
            SUBGROUP_CONFIGS,
        ),
        Option(
            "ci_method",
            "str",
            "wilson",
            "the stratified recall's interval: 'wilson', 'weighted_wald', 'stratified_wald', 'korn_graubard', 'bootstrap' (docs/stratified-recall.md)",
            SUBGROUP_CONFIGS,
        ),
        Option(
            "confidence_level",
            "float",
            0.95,
            "in (0, 1), of every interval",
            needs=LEVEL,
            methods=SHARED + ("plan_benchmark",),
        ),
        Option(
            "recall_mode",
            "str",
            "strict",
            "the MUC mode that credits a gold entity in the stratified recall",
            SUBGROUP_CONFIGS,
        ),
        Option(
            "n_bootstrap",
            "int",
            10_000,
            "resamples of the stratified recall's 'bootstrap' interval",
            SUBGROUP_CONFIGS,
            needs=BOOTSTRAP,
        ),
        Option(
            "seed", "int or None", 0, "seed of every resample and permutation", needs=RANDOM, methods=SHARED
        ),
        Option(
            "texts",
            "list of str or None",
            None,
            "each example's text; a character end past it is an error",
            SPAN_CONFIGS,
        ),
        Option(
            "ci_resamples",
            "int",
            0,
            "bootstrap resamples of 'intervals' (0: none)",
            methods=SHARED,
            defaults={"compare": 1_000},
        ),
        Option(
            "system_intervals",
            "int",
            0,
            "each system's own intervals in 'a' and 'b' at this many bootstrap resamples (0: none)",
            methods=("compare",),
        ),
        Option(
            "document_ids",
            "list or None",
            None,
            "one id per sentence: 'documents' (macro scores over documents) and documents resampled",
            needs=UNITS,
            methods=SHARED,
        ),
        Option(
            "slices",
            "list or dict or None",
            None,
            "one value (str or int) per sentence, or {key: [...]}: every family per slice value, and the worst slice",
        ),
        Option(
            "buckets",
            "list of str or None",
            None,
            "entity attributes to bucket by ('entity_length', 'sentence_length', 'density', 'capitalisation', 'seen', 'train_frequency', 'label_consistency'): strict scores per bucket",
        ),
        Option(
            "tokens",
            "list of list of str or None",
            None,
            "each sentence's tokens, for the buckets that read an entity's text",
            TAG_CONFIGS,
            needs=TEXT_BUCKETS,
        ),
        Option(
            "train_entities",
            "list or dict or None",
            None,
            "the training set's (type, text) pairs (or {'tokens', 'tags'}), for the buckets that compare with them",
            needs=TRAIN_BUCKETS,
        ),
        Option(
            "token_scores",
            "list of list of float or None",
            None,
            "per sentence, the probability of each predicted tag, for 'ranking'",
            TAG_CONFIGS,
            needs=RANKING,
        ),
        Option(
            "calibration_bins",
            "int",
            DEFAULT_BINS,
            "equal-width bins of 'ranking''s calibration",
            needs=RANKING,
        ),
        Option(
            "threshold_from",
            "dict or None",
            None,
            "a development set's 'ranking' results, whose best threshold is applied here",
            needs=RANKING,
        ),
        Option(
            "threshold_on_scored_set",
            "bool",
            False,
            "allow threshold_from to be this set's own results",
            needs=NEEDS_THRESHOLD_FROM,
        ),
        Option(
            "type_separator",
            "str or None",
            None,
            "labels split into category and type at its first occurrence ('ORG:SUB' with ':'); adds 'hierarchy'",
        ),
        Option(
            "type_hierarchy",
            "dict or None",
            None,
            "{fine label: category} instead of type_separator; adds 'hierarchy'",
        ),
        Option(
            "output_format",
            "str",
            "auto",
            "the dialect of the model's output: 'auto' or one of 'json_list', 'json_dict', 'uniner', 'gollie', 'gner', 'inline_tags', 'markdown', 'lines' (docs/generated.md)",
            GENERATED_CONFIGS,
        ),
        Option(
            "placement",
            "str",
            "order",
            "where a listed string goes on the text: 'order' (a monotone alignment in reading order), 'first', 'every', 'offsets'",
            GENERATED_CONFIGS,
        ),
        Option(
            "matching",
            "str or list of str",
            "exact",
            "how a listed string meets the text: 'exact', 'normalized', 'fuzzy'; a list is the ladder ('ladder', 'ladder_gains' with paired bootstrap intervals)",
            GENERATED_CONFIGS,
        ),
        Option(
            "normalize",
            "list of str or None",
            None,
            "the steps of 'normalized' matching among 'nfkc', 'case', 'punctuation', 'articles', 'space'; None: all",
            GENERATED_CONFIGS,
        ),
        Option(
            "fuzzy_threshold",
            "float",
            0.9,
            "the character similarity in (0, 1] that 'fuzzy' matching needs",
            GENERATED_CONFIGS,
        ),
        Option(
            "convention",
            "str or None",
            None,
            "the options of a scorer whose numbers to reproduce: 'conlleval' (its IOBES reading and printout, adds 'convention'), 'seqeval', 'seqscore', 'nervaluate', 'hipe' (docs/signature.md); in the generated config 'uniner', 'gner', 'gollie', 'euroeval' (docs/generated.md)",
            WITH_GENERATED,
        ),
        Option(
            "permutations",
            "int",
            10_000,
            "approximate-randomisation permutations of the paired test (>= 1)",
            methods=("compare",),
        ),
        Option("first_sentence", "int", 0, "the sentences before this partition", methods=("state",)),
        Option(
            "keep",
            "str",
            "exact",
            "'exact' (every sentence, merged to the bit) or 'counts' (a state of constant size)",
            methods=("state",),
        ),
        Option(
            "half_width",
            "float or None",
            None,
            "the target half-width of the stratified recall's interval (or give budget)",
            methods=("plan_benchmark",),
        ),
        Option(
            "budget",
            "int or None",
            None,
            "entities to label (or give half_width)",
            methods=("plan_benchmark",),
        ),
    )
}
#: the options of ``compute``, in the order of its signature
COMPUTE_OPTIONS = {name: o for name, o in OPTIONS.items() if "compute" in o.methods}
ALL_OPTIONS = {name: option.default for name, option in COMPUTE_OPTIONS.items()}
#: the options of each config, with their defaults
CONFIG_OPTIONS = {
    config: {name: o.default for name, o in COMPUTE_OPTIONS.items() if config in o.configs}
    for config in CONFIGS
}
#: the config to name when an option (or input) is missing from another
OPTION_CONFIGS = {name: o.configs[0] for name, o in COMPUTE_OPTIONS.items() if o.configs != CONFIGS}
OPTION_CONFIGS["subgroups"] = "subgroups"


# ---------------------------------------------------------------------------- the card and the README, from the table

#: how the card and the README name the configs an option belongs to
CONFIG_WORDS = {
    CONFIGS: "all",
    TAG_CONFIGS: "tag configs",
    SPAN_CONFIGS: "span configs",
    SUBGROUP_CONFIGS: "subgroup configs",
    GENERATED_CONFIGS: "the generated config",
    WITH_GENERATED: "all, and the generated config",
}


def _shown(value: Any) -> str:
    return repr(list(value)) if isinstance(value, tuple) else repr(value)


def card_option(name: str) -> str:
    """One option as the card's Args lists it, wrapped as the card is:

    >>> print(card_option("suffix"))
        suffix (bool, default False; tag configs): tags carry their prefix last ('PER-B').
    """
    o = OPTIONS[name]
    where = "" if o.configs == CONFIGS else f"; {CONFIG_WORDS[o.configs]}"
    text = f"{name} ({o.type}, default {_shown(o.default)}{where}): {o.doc}."
    return textwrap.fill(text, 100, initial_indent=" " * 4, subsequent_indent=" " * 8)


def card_args(*configs: tuple[str, ...]) -> str:
    """The card's Args lines of ``compute``'s options whose configs are one of ``configs``."""
    return "\n".join(card_option(name) for name, o in COMPUTE_OPTIONS.items() if o.configs in configs)


def card_family_args() -> str:
    """The card's Args lines of the options the registered families declare (an empty string
    where none does), each naming its family."""
    lines = [
        textwrap.fill(
            f"{name} ({option.type}, default {_shown(option.default)}; with {family.name!r} in scores): {option.doc}.",
            100,
            initial_indent=" " * 4,
            subsequent_indent=" " * 8,
        )
        for name, (family, option) in family_options().items()
    ]
    return "\n\n    The options of the registered families:\n" + "\n".join(lines) if lines else ""


def card_returns() -> str:
    """The card's Returns entries of every registered family, in the order of the results, each
    as its module declares it (indented as the card is):

    >>> print(card_returns().splitlines()[0])
        TYPE (dict): per entity type with a gold or predicted entity:
    """
    return "\n".join(textwrap.indent(f.returns, " " * 4) for f in registered())


#: the rows of the README's options table: options that go together, every option of ``compute`` once
README_ROWS = (
    ("scheme", "mode", "suffix", "label_names"),
    ("zero_division", "beta"),
    ("scores", "types", "label_map"),
    ("overlap_threshold", "errors"),
    ("ci_resamples", "confidence_level", "seed", "document_ids"),
    ("slices", "buckets", "tokens", "train_entities"),
    ("token_scores", "calibration_bins", "threshold_from", "threshold_on_scored_set"),
    ("type_separator", "type_hierarchy"),
    ("texts",),
    ("subgroup_weights", "ci_method", "recall_mode", "n_bootstrap"),
    ("output_format", "placement", "matching", "normalize", "fuzzy_threshold"),
    ("convention",),
)
assert sorted(n for row in README_ROWS for n in row) == sorted(COMPUTE_OPTIONS), "each option in one row"


def options_table() -> str:
    """The README's table of ``compute``'s options (``bench/options_table.py`` writes it there)."""
    lines = ["| options | defaults | configs | meaning |", "|---|---|---|---|"]
    for row in README_ROWS:
        options = [OPTIONS[name] for name in row]
        names = ", ".join(f"`{o.name}`" for o in options)
        defaults = ", ".join(f"`{_shown(o.default)}`" for o in options)
        words = {CONFIG_WORDS[o.configs] for o in options}
        configs = (
            words.pop()
            if len(words) == 1
            else "all; "
            + ", ".join(f"`{o.name}`: {CONFIG_WORDS[o.configs]}" for o in options if o.configs != CONFIGS)
        )
        meaning = "; ".join(
            f"`{o.name}`: {o.doc}" + (f" (changes nothing without {o.needs.words})" if o.needs else "")
            for o in options
        )
        lines.append(f"| {names} | {defaults} | {configs} | {meaning} |")
    return "\n".join(lines)


class Options(NamedTuple):
    """Every option of a ``compute`` call, validated."""

    scheme: str | None
    mode: str | None
    suffix: bool
    label_names: tuple[str, ...] | None
    zero_division: float
    beta: float
    scoring: ScoringOptions
    stratified: dict[str, Any] | None  # the stratified recall's options, in the subgroup configs
    texts: list[str] | None
    intervals: dict[str, Any] | None  # check_uncertainty_options; None without resamples
    slices: dict[str, list] | None
    document_ids: Sequence[Hashable] | NDArray[Any] | None = None
    buckets: tuple[str, ...] | None = None
    tokens: Sequence[Sequence[str]] | None = None
    train: Training | None = None  # (texts Counter, (text, type) Counter) of train_entities
    ranking: dict[str, Any] | None = None  # {"bins", "threshold_from", "on_scored_set", "token_scores"}
    hierarchy: tuple[str | None, dict[str, str] | None] | None = None  # (type_separator, type_hierarchy)
    #: the options registered families declare (``core.registry.FamilyOption``), checked: every
    #: one, at its default where not given
    family: Mapping[str, Any] = {}


def check_family_options(given: Mapping[str, Any], scores: Sequence[str]) -> dict[str, Any]:
    """The values of the registered families' options: each given one checked by its family's
    check, and refused when given another value than its default while its family does not run
    (the one no-op rule); the others at their defaults.

    >>> check_family_options({}, ("seqeval",))
    {}
    """
    declared = family_options()
    out = {name: option.default for name, (_, option) in declared.items()}
    for name, value in given.items():
        family, option = declared[name]
        if family.wanted is None and family.name not in scores and not is_default(value, option.default):
            raise ValueError(f"{name}={value!r} changes nothing here: it needs {family.name!r} in scores")
        try:
            out[name] = option.check(value)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name}: {error}") from None
    return out


def all_options() -> dict[str, Any]:
    """Every option of ``compute`` with its default: the table's and the registered families'."""
    return {**ALL_OPTIONS, **{name: option.default for name, (_, option) in family_options().items()}}


def is_default(value: Any, default: Any) -> bool:
    """Whether an option's value is its default (an option left alone is no error in any config)."""
    return value is default or (
        type(value) is type(default) and not isinstance(value, dict) and value == default
    )


def check_options(config_name: str, options: Mapping[str, Any]) -> "Options":
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
    declared = family_options()
    unknown = sorted(set(options) - set(CONFIG_OPTIONS[config]) - set(declared))
    if unknown:
        name = unknown[0]
        if name in OPTION_CONFIGS:
            raise ValueError(
                f"{name} needs the {OPTION_CONFIGS[name]!r} config: "
                f"evaluate.load(path, {OPTION_CONFIGS[name]!r})"
            )
        raise ValueError(
            f"unknown compute option {name!r}; options: {sorted([*CONFIG_OPTIONS[config], *declared])}"
        )
    o = {**ALL_OPTIONS, **options}
    _check_mode(o["mode"], o["scheme"])
    check_suffix(o["suffix"])
    label_names = None if o["label_names"] is None else check_label_names(o["label_names"])
    zero, beta = check_zero_division(o["zero_division"]), check_beta(o["beta"])
    scoring = check_scoring_options(
        o["scores"], o["types"], o["label_map"], o["overlap_threshold"], o["errors"]
    )
    check_types(scoring.types or (), beta)
    if o["document_ids"] is not None and hasattr(o["document_ids"], "__len__"):
        ids = o["document_ids"]
        check_id_values(ids.tolist() if isinstance(ids, np.ndarray) else list(ids), "document_ids")
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
    check_unused("compute", config, options)
    texts = check_texts(o["texts"])
    buckets = check_buckets(o["buckets"])
    spans = config in SPAN_CONFIGS
    if needs_text(buckets, spans) and o["texts" if spans else "tokens"] is None:
        assert buckets is not None  # needs_text holds for some buckets only
        raise ValueError(
            f"buckets {list(buckets)} read each entity's text"
            + (
                " or count its example's characters: pass texts= (one str per example)"
                if spans
                else ": pass tokens= (one list of str per sentence)"
            )
        )
    if needs_train(buckets) and o["train_entities"] is None:
        assert buckets is not None  # needs_train holds for some buckets only
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
        check_family_options({k: v for k, v in options.items() if k in declared}, scoring.scores),
    )


def check_unused(method: str, config: str, given: Mapping[str, Any]) -> None:
    """The one rule, for every method: an option given another value than its default must change
    something; else a ``ValueError`` names it and what it needs. ``given``: the options passed."""
    values = {name: o.default_of(method) for name, o in OPTIONS.items() if method in o.methods}
    values.update(given)
    for name, value in given.items():
        if name not in OPTIONS:  # a registered family's option: check_family_options holds it
            continue
        option = OPTIONS[name]
        if option.needs is None or is_default(value, option.default_of(method)):
            continue
        if not option.needs.holds(values, config, method):
            raise ValueError(
                f"{name}={reprlib.repr(value)} changes nothing here: it needs {option.needs.words}"
            )


def _check_mode(mode, scheme):
    if mode not in MODE_OPTIONS:
        raise ValueError(f"mode must be one of {list(MODE_OPTIONS)}; got {mode!r}")
    check_scheme(scheme)
    if mode == "strict" and scheme is None:
        raise InputError(f"{{place}}={{item!r}} needs a scheme, one of {list(SCHEMES)}", "mode", item=mode)
    if mode is None and scheme is not None:
        raise ValueError(
            f"scheme={scheme!r} only applies with mode='strict' (lenient decoding has no scheme)"
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


def check_subgroups(column: Any, name: str, single: bool = False) -> None:
    """Raise unless every example has a subgroup name (a non-empty str)."""
    if column is None:
        raise ValueError("the 'subgroups' config needs a subgroups column: one subgroup name per sentence")
    if isinstance(column, (str, bytes)) and not single:
        raise ValueError(f"{name} is {column!r}, one string; give one subgroup name per sentence (a list)")
    if not hasattr(column, "__iter__") or isinstance(column, (dict, set)):
        raise ValueError(f"{name} is {column!r}; give one subgroup name per sentence (a list)")
    for i, value in enumerate(column):
        if not isinstance(value, str) or not value:
            where = name if single else f"{name}[{i}]"
            raise ValueError(f"{where} is {value!r}; every sentence needs a subgroup name (a non-empty str)")
