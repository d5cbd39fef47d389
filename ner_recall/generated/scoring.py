"""Generated entity lists scored by position: the "generated" config (``docs/generated.md``).

Per document a model's raw output (``ner_dialects``) and the document's text; each item read is
put in exactly one outcome (:data:`ITEM_OUTCOMES`): ``placed`` on the text, ``hallucinated`` (its
string does not occur at the matching level), ``duplicate`` (every occurrence already taken, or
the same string listed again with ``placement="every"``), ``off_schema`` (its type, after
``label_map``, is not in ``types=`` or the gold's types) or ``unparseable`` (an output, or an item
of it, that no dialect reads). The placed spans are scored by the span config's scoring
(``ner_pipeline.score_spans``: every family, interval, slice and the error listing).

Placement (``placement``): ``"order"`` aligns the list monotonically onto the occurrences
(each item after the one before it, at word boundaries, never inside a span already placed;
when the list leaves reading order, the longest chain of items in order is kept and the rest
go to their first free occurrence); ``"first"``: each string on its first free occurrence;
``"every"``: each string on all its occurrences (as set scorers read a list); ``"offsets"``: the
item's own ``start``/``end``, checked against the text.

Matching levels (``matching``): ``"exact"``, ``"normalized"`` (the ``normalize`` steps:
Unicode NFKC, case, space, punctuation, articles), ``"fuzzy"`` (character similarity of at least
``fuzzy_threshold`` with a run of words of the text, after normalizing). A list of levels is the
ladder: each level scored, side by side, with the paired bootstrap interval of each level's gain.

>>> from ner_recall.generated import scoring as G
>>> from ner_recall.generated.dialects import read_output
>>> text = "Paris Hilton flew to Paris."
>>> outcomes = G.place_document(text, read_output('[{"text": "Paris Hilton", "type": "PER"},'
...     ' {"text": "Paris", "type": "LOC"}, {"text": "Paris", "type": "LOC"}, {"text": "Rome", "type": "LOC"}]'),
...     {"PER", "LOC"}, G.Settings())
>>> [(o.outcome, o.places) for o in outcomes]
[('placed', [(0, 12)]), ('placed', [(21, 26)]), ('duplicate', []), ('hallucinated', [])]
"""

from collections import Counter
from typing import Any

import numpy as np

from ner_recall.core.counts import count_rows
from ner_recall.core.inputs import as_list
from ner_recall.core.spans import check_texts
from ner_recall.core.vocabulary import InputError, is_int
from ner_recall.generated.dialects import (
    check_dialect,
    read_output,
)
from ner_recall.generated.matching import LEVELS, STEPS
from ner_recall.generated.placement import (
    PLACEMENTS,
    Settings,
    place_document,
    plain_list_in_order,
)
from ner_recall.pipeline.compute import score_spans
from ner_recall.pipeline.options import CONFIG_OPTIONS, check_options
from ner_recall.stats.uncertainty import align_types, paired

#: the config name
GENERATED = "generated"
#: the outcome of every item read, in the order of the counts
ITEM_OUTCOMES = ("placed", "hallucinated", "duplicate", "off_schema", "unparseable")
#: the options of the generated config that the span scoring does not read
GENERATED_OPTIONS = {
    "output_format": "auto",
    "placement": "order",
    "matching": "exact",
    "normalize": None,
    "fuzzy_threshold": 0.9,
    "convention": None,
}
#: the most resamples of the ladder's paired bootstrap (each level's gain over the one before):
#: it draws them once per step, beside each level's own intervals
MAX_LADDER_RESAMPLES = 10_000


# ---------------------------------------------------------------------------- options and inputs


def _check_levels(matching: Any) -> tuple:
    levels = (matching,) if isinstance(matching, str) else matching
    if not isinstance(levels, (list, tuple)) or not levels or any(level not in LEVELS for level in levels):
        raise ValueError(
            f"matching must be one of {list(LEVELS)} or a list of them (the ladder); got {matching!r}"
        )
    if len(set(levels)) != len(levels):
        raise ValueError(f"matching lists a level twice: {list(levels)}")
    return tuple(levels)


def check_generated_options(given: dict) -> dict:
    """The generated config's own options checked (defaults filled in): a dict with ``levels``
    (the matching levels), ``steps`` (of normalization) and the others as given."""
    o = {**GENERATED_OPTIONS, **{k: v for k, v in given.items() if k in GENERATED_OPTIONS}}
    check_dialect(o["output_format"])
    if o["placement"] not in PLACEMENTS:
        raise ValueError(f"placement must be one of {list(PLACEMENTS)}; got {o['placement']!r}")
    levels = _check_levels(o["matching"])
    steps = STEPS if o["normalize"] is None else o["normalize"]
    if isinstance(steps, str) or not isinstance(steps, (list, tuple)) or any(s not in STEPS for s in steps):
        raise ValueError(f"normalize must be a list of steps among {list(STEPS)}; got {o['normalize']!r}")
    if o["normalize"] is not None and levels == ("exact",):
        raise ValueError("normalize changes nothing here: it needs matching 'normalized' or 'fuzzy'")
    threshold = o["fuzzy_threshold"]
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ValueError(f"fuzzy_threshold must be a number in (0, 1]; got {threshold!r}")
    if threshold != GENERATED_OPTIONS["fuzzy_threshold"] and "fuzzy" not in levels:
        raise ValueError("fuzzy_threshold changes nothing here: it needs matching 'fuzzy'")
    return {
        **o,
        "levels": levels,
        "steps": tuple(s for s in STEPS if s in steps),
        "threshold": float(threshold),
    }


def _check_label_map(label_map: Any) -> dict:
    if label_map is None:
        return {}
    if not isinstance(label_map, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in label_map.items()
    ):
        raise ValueError(f"label_map must be a dict of str to str; got {label_map!r}")
    return label_map


def gold_from_tags(references: Any, tokens: Any) -> tuple:
    """Texts (tokens joined by one space) and character spans from tags with their tokens."""
    from ner_recall.core.decoding import tags_to_spans

    if not isinstance(tokens, (list, tuple)) or len(tokens) != len(references):
        raise ValueError(f"tokens must be a list of token lists, one per document ({len(references)})")
    texts, gold = [], []
    for i, (words, tags) in enumerate(zip(tokens, references)):
        if not isinstance(words, (list, tuple)) or not all(isinstance(w, str) and w for w in words):
            raise ValueError(f"tokens[{i}] must be a list of non-empty str")
        if not isinstance(tags, (list, tuple)) or len(tags) != len(words):
            raise ValueError(f"references[{i}] must hold one tag per token of tokens[{i}] ({len(words)})")
        starts = np.cumsum([0] + [len(w) + 1 for w in words]).tolist()
        try:
            spans = tags_to_spans(list(tags))
        except InputError as error:  # its place, tags[j], within references[i]
            raise error.framed(f"references[{i}]: ") from None
        gold.append([{"label": s.label, "start": starts[s.start], "end": starts[s.end] - 1} for s in spans])
        texts.append(" ".join(words))
    return texts, gold


def generated_inputs(predictions: Any, references: Any, texts: Any, tokens: Any) -> tuple:
    """(predictions, references, texts, gold spans) as lists: the gold as character spans with
    ``texts``, or as tags with ``tokens``."""
    predictions, references, texts, tokens = (as_list(v) for v in (predictions, references, texts, tokens))
    if isinstance(predictions, (str, bytes, dict)) or not isinstance(predictions, (list, tuple)):
        raise ValueError("predictions must be a list of model outputs, one per document")
    if references is None or len(predictions) != len(references):
        n = None if references is None else len(references)
        raise ValueError(f"predictions has {len(predictions)} documents but references has {n}")
    if tokens is not None:
        if texts is not None:
            raise ValueError(
                "texts and tokens both given: the gold is character spans with texts, or tags with tokens"
            )
        return (predictions, references, *gold_from_tags(references, tokens))
    if texts is None:
        raise ValueError("the generated config needs texts= (one str per document), or tokens= with tags")
    gold = [list(r) if isinstance(r, (list, tuple)) else r for r in references]
    return predictions, references, check_texts(texts, len(predictions)), gold


def read_outputs(predictions: list, dialect: str) -> list:
    """Every output read (:class:`ner_dialects.Reading`); a dialect named explicitly that reads
    nothing of an output leaves it unparseable, counted."""
    return [read_output(output, dialect) for output in predictions]


# ---------------------------------------------------------------------------- scoring


def place_all(readings: list, texts: list, schema: Any, settings: Settings) -> list:
    """Per document, its :class:`Outcome` s."""
    return [place_document(t, r, schema, settings, i) for i, (t, r) in enumerate(zip(texts, readings))]


def place_corpus(predictions: list, texts: list, schema: Any, settings: Settings, dialect: str) -> tuple:
    """Every output read and placed: (outcome counts, placed spans per document, dialects read)."""
    fast = dialect in ("auto", "json_list") and settings[:2] == ("order", "exact") and not settings.label_map
    counts: dict = dict.fromkeys(ITEM_OUTCOMES, 0)
    spans: list = []
    dialects: Counter = Counter()
    for i, (output, text) in enumerate(zip(predictions, texts)):
        got = plain_list_in_order(output, text, schema, i) if fast else None
        if got is not None:
            dialects["json_list"] += 1
            (placed, hallucinated, off), found = got
            counts["placed"] += placed
            counts["hallucinated"] += hallucinated
            counts["off_schema"] += off
            spans.append(found)
            continue
        reading = read_output(output, dialect)
        dialects[str(reading.dialect)] += 1
        outcomes = place_document(text, reading, schema, settings, i)
        for o in outcomes:
            counts[o.outcome] += 1
        spans.append(placed_spans([outcomes])[0])
    counts["items"] = sum(counts.values())
    return counts, spans, dict(dialects)


def outcome_counts(outcomes: list) -> dict:
    """How many items of each outcome, and ``items``, their sum (every item read)."""
    counts = Counter(o.outcome for doc in outcomes for o in doc)
    out = {name: counts.get(name, 0) for name in ITEM_OUTCOMES}
    out["items"] = sum(out.values())
    return out


def placed_spans(outcomes: list) -> list:
    """The span config's predictions: per document the placed items' spans, once each."""
    return [
        list(
            {
                (o.label, s, e): {"label": o.label, "start": s, "end": e}
                for o in doc
                if o.outcome == "placed"
                for s, e in o.places
            }.values()
        )
        for doc in outcomes
    ]


def _level_scores(spans: list, gold: list, options: Any, rows: bool) -> tuple:
    views: list = []
    results = score_spans(spans, gold, options, views=views)
    if not rows:
        return results, None, None
    view, n = views[-1], len(gold)
    stats = count_rows(view.gold, view.pred, view.matching, len(view.types), np.arange(n), n)
    return results, stats, tuple(view.types)


def ladder_gains(stats: list, names: tuple, resamples: int, level: float, seed: int) -> list:
    """Each level's gain over the one before on the overall scores, with its paired bootstrap
    interval (documents resampled; ``ner_uncertainty.paired``)."""
    union = tuple(sorted(set().union(*(types for _, types in stats))))
    aligned = [align_types(s, types, union) if types != union else s for s, types in stats]
    gains = []
    for k in range(1, len(aligned)):
        out = paired(
            aligned[k - 1],
            aligned[k],
            union,
            permutations=0,
            resamples=resamples,
            confidence_level=level,
            seed=seed,
        )
        where = {name: i for i, name in enumerate(out["names"])}
        for score in ("overall_precision", "overall_recall", "overall_f1"):
            i = where[score]
            low, high = (float(v) for v in out["intervals"][:, i]) if resamples else (None, None)
            gains.append(
                {
                    "from": names[k - 1],
                    "to": names[k],
                    "score": score,
                    "difference": float(out["difference"][i]),
                    "low": low,
                    "high": high,
                }
            )
    return gains


def score_generated(predictions: Any, references: Any, given: dict) -> dict:
    """The generated config's ``compute``: read, place, count and score (``given``: the options
    set, by name)."""
    allowed = {*CONFIG_OPTIONS["spans"], *GENERATED_OPTIONS, "tokens"}
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise ValueError(f"unknown compute option {unknown[0]!r}; options of 'generated': {sorted(allowed)}")
    gen = check_generated_options(given)
    resamples: Any = given.get("ci_resamples")
    if len(gen["levels"]) > 1 and is_int(resamples) and resamples > MAX_LADDER_RESAMPLES:
        raise ValueError(
            f"ci_resamples must be at most {MAX_LADDER_RESAMPLES:,} with a ladder of matching levels"
            f" (each step's gain is bootstrapped beside each level's intervals); got {resamples!r}"
        )
    label_map = _check_label_map(given.get("label_map"))
    predictions, references, texts, gold = generated_inputs(
        predictions, references, given.get("texts"), given.get("tokens")
    )
    if gen["convention"] is not None:
        from ner_recall.generated.conventions import convention_results

        return convention_results(gen, predictions, references, texts, gold, given, label_map)
    rest = {k: v for k, v in given.items() if k not in (*GENERATED_OPTIONS, "tokens", "texts", "label_map")}
    options = check_options("spans", {**rest, "texts": texts})
    schema = set(options.scoring.types or ()) or {
        e.get("label") for doc in gold if isinstance(doc, list) for e in doc if isinstance(e, dict)
    }
    return _scored_levels(predictions, texts, gold, schema, gen, label_map, options, rest)


def _scored_levels(
    predictions: list,
    texts: list,
    gold: list,
    schema: set,
    gen: dict,
    label_map: dict,
    options: Any,
    rest: dict,
) -> dict:
    """Each matching level placed and scored; the last level's results, with the ladder."""
    ladder: dict = {}
    stats: list = []
    results: dict = {}
    for level in gen["levels"]:
        settings = Settings(gen["placement"], level, gen["steps"], gen["threshold"], label_map)
        counts, spans, dialects = place_corpus(predictions, texts, schema, settings, gen["output_format"])
        results, rows, types = _level_scores(spans, gold, options, len(gen["levels"]) > 1)
        stats.append((rows, types))
        ladder[level] = {key: results[key] for key in ("overall_precision", "overall_recall", "overall_f1")}
        ladder[level]["counts"] = counts
    results["generated"] = {
        "counts": counts,
        "dialects": dialects,
        "placement": gen["placement"],
        "matching": level,
    }
    if len(gen["levels"]) > 1:
        resamples = rest.get("ci_resamples") or 1000
        results["ladder"] = ladder
        results["ladder_gains"] = ladder_gains(
            stats, gen["levels"], resamples, rest.get("confidence_level", 0.95), rest.get("seed", 0)
        )
    return results


def outcome_listing(outcomes: list) -> list:
    """Per document, each item's outcome as a dict (``item``, ``outcome``, ``label``, ``text``,
    ``places`` as [start, end] pairs, ``detail``): what a view draws on the text."""
    return [
        [
            {
                "item": o.item,
                "outcome": o.outcome,
                "label": o.label,
                "text": o.text,
                "places": [list(p) for p in o.places],
                "detail": o.detail,
            }
            for o in doc
        ]
        for doc in outcomes
    ]


def generated_outcomes(
    predictions: Any, texts: Any, types: Any = None, label_map: Any = None, **given: Any
) -> list:
    """Per document, every item's outcome (:func:`outcome_listing`) without scoring: ``types``
    (the schema; None: every type is in it) and the generated options (``output_format``,
    ``placement``, ``matching`` as one level, ``normalize``, ``fuzzy_threshold``)."""
    unknown = sorted(set(given) - set(GENERATED_OPTIONS) - {"convention"})
    if unknown or given.get("convention") is not None:
        raise ValueError(
            f"unknown option {(unknown or ['convention'])[0]!r}; options: {sorted(GENERATED_OPTIONS)}"
        )
    gen = check_generated_options(given)
    if len(gen["levels"]) != 1:
        raise ValueError("outcomes are listed at one matching level; got a ladder")
    if isinstance(predictions, (str, bytes, dict)) or not isinstance(predictions, (list, tuple)):
        raise ValueError("predictions must be a list of model outputs, one per document")
    texts = check_texts(texts, len(predictions))
    settings = Settings(
        gen["placement"], gen["levels"][0], gen["steps"], gen["threshold"], _check_label_map(label_map)
    )
    schema = None if types is None else set(types)
    return outcome_listing(
        place_all(read_outputs(list(predictions), gen["output_format"]), texts, schema, settings)
    )
