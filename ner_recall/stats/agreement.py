"""Agreement between annotators: pairwise F1 in every MUC mode, and kappa over tokens.

Annotators are scored against each other with the metric's own one-to-one matching, pair by pair:
F1 is symmetric (swapping which annotator is the reference swaps precision and recall), so a pair's
F1 needs no reference. Per pair, per mode and per type; then the mean over the pairs.

Kappa. Each token (each offset unit of a span config: a character with character offsets) gets a
label per annotator: the type of the entity covering it, the innermost (shortest, then first by
position) where entities nest, ``O`` where none does. Cohen's kappa for two annotators, Fleiss'
kappa for more, over those labels (``(p_o - p_e) / (1 - p_e)``; 1 where the annotators agree on
every token, also when chance agreement is 1). Intervals resample sentences (or the documents of
``document_ids``): percentile bootstrap, seeded.

>>> a = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG"]]
>>> b = [["B-PER", "I-PER", "O", "B-ORG"], ["O", "B-ORG"]]
>>> out = agreement([a, b], "tags")
>>> out["f1"]["strict"], out["pairs"]["0-1"]["per_type"]["PER"]["strict"]
(0.6666666666666666, 1.0)
>>> round(out["kappa"]["value"], 4), out["kappa"]["method"]  # (5/6 - 10/36) / (1 - 10/36) = 20/26
(0.7692, 'cohen')
"""

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ner_recall.core.decoding import check_lengths, corpus_from_codes, tag_codes
from ner_recall.core.matching import match
from ner_recall.core.vocabulary import MODES, InputError, SpanArrays, fbeta_key, same_count
from ner_recall.families.discontinuous import refuse_fragments
from ner_recall.pipeline.compute import score_spans, score_tags, tag_corpus
from ner_recall.pipeline.options import check_options, check_unused
from ner_recall.stats.uncertainty import bootstrap_totals, check_resamples, document_units, group_rows

KINDS = ("tags", "spans")
#: the most annotators one call takes (every pair is scored: 4,950 pairs at 100)
MAX_ANNOTATORS = 100
#: the most token labels kappa holds, annotators x tokens (each offset unit of every text); beyond
#: it kappa is refused before anything is allocated
MAX_LABELS = 100_000_000


def check_annotations(annotations: Sequence, kind: str) -> list[list]:
    """A list of at least two annotators (at most :data:`MAX_ANNOTATORS`), each a list of as many
    sentences (examples)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}; got {kind!r}")
    if isinstance(annotations, (str, bytes, dict)) or not isinstance(annotations, (list, tuple)):
        raise ValueError("annotations must be a list of annotators, each a list of sentences")
    if len(annotations) < 2:
        raise ValueError(f"annotations must hold at least two annotators; got {len(annotations)}")
    if len(annotations) > MAX_ANNOTATORS:
        raise ValueError(f"annotations must hold at most {MAX_ANNOTATORS} annotators; got {len(annotations)}")
    for k, annotator in enumerate(annotations):
        if isinstance(annotator, (str, bytes, dict)) or not hasattr(annotator, "__len__"):
            raise ValueError(f"annotations[{k}] must be a list of sentences; got {type(annotator).__name__}")
        same_count(f"annotations[{k}]", len(annotator), "annotations[0]", len(annotations[0]))
    if not len(annotations[0]):
        raise ValueError("annotations hold no sentence")
    return [list(a) for a in annotations]


def _name(error: InputError, i: int, j: int) -> InputError:
    """An input error of annotator ``i`` against ``j`` (``i`` as the reference, ``j`` as the
    predictions), with the annotators named: the one place that renames a side an annotator."""
    return error.renamed({"references": f"annotations[{i}]", "predictions": f"annotations[{j}]"})


def pair_results(
    a: Sequence, b: Sequence, kind: str, options: Any, corpus: Any = None
) -> tuple[dict, list, Any]:
    """The metric's results of annotator ``b`` against annotator ``a``, and their disagreements
    (the strict listing without its correct pairs). ``corpus``: the pair's tags, already encoded."""
    views: list[Any] = []
    if kind == "spans":
        results = score_spans(b, a, options, views=views)
    else:
        corpus = tag_corpus(b, a, options) if corpus is None else corpus
        results = score_tags(corpus, options, views=views)[0]
    return results, disagreements(views[0]), views[0]


def shared_codes(annotations: list, options: Any) -> tuple | None:
    """Every annotator's tags encoded once, in one vocabulary: (vocabulary, codes per annotator,
    sentence lengths); None when an annotator is not plain lists of tag strings (each pair then
    goes through ``compute``'s own input path, which names any problem)."""
    try:
        lengths = [check_lengths(annotator, annotations[0]) for annotator in annotations[1:]]
        vocabulary, codes = tag_codes(*annotations)
    except (TypeError, ValueError):
        return None
    if options.label_names is not None:
        return None
    size = int(lengths[0].sum())
    return vocabulary, [codes[k * size : (k + 1) * size] for k in range(len(annotations))], lengths[0]


def _pair_corpus(shared, annotations, i, j, options):
    vocabulary, codes, lengths = shared
    sides = (("predictions", annotations[j]), ("references", annotations[i]))
    return corpus_from_codes(
        vocabulary, codes[j], codes[i], lengths, suffix=options.suffix, scheme=options.scheme, sides=sides
    )


def score_pairs(annotations: list, kind: str, options: Any, resamples: int) -> tuple[dict, dict]:
    """Every pair ``i < j`` scored, ``j`` against ``i``: (the pairs' summaries by ``"i-j"``, their
    views by ``(i, j)``); an input error names the annotators."""
    pairs, views = {}, {}
    shared = shared_codes(annotations, options) if kind == "tags" else None
    for i, j in combinations(range(len(annotations)), 2):
        try:
            corpus = None if shared is None else _pair_corpus(shared, annotations, i, j, options)
            results, listing, views[i, j] = pair_results(
                annotations[i], annotations[j], kind, options, corpus
            )
        except InputError as error:
            raise _name(error, i, j) from None
        pairs[f"{i}-{j}"] = {**_pair_summary(results, options.beta), "disagreements": listing}
        if resamples:  # the pair's F1 per mode, resampled as compute resamples it
            pairs[f"{i}-{j}"]["intervals"] = {m: results["intervals"][f"muc_{m}_f1"] for m in MODES}
    return pairs, views


def _pair_summary(results, beta):
    fkey = fbeta_key(beta)
    muc = results["muc"]
    per_type = {t: {m: muc[m]["per_type"][t][fkey] for m in MODES} for t in sorted(muc["strict"]["per_type"])}
    return {**{m: muc[m][fkey] for m in MODES}, "per_type": per_type}


def agreement(
    annotations: Sequence,
    kind: str = "tags",
    document_ids: Sequence | None = None,
    ci_resamples: int = 0,
    confidence_level: float = 0.95,
    seed: int = 0,
    **options: Any,
) -> dict[str, Any]:
    """Agreement of the annotators: ``"pairs"`` (per pair ``"i-j"``: F1 per MUC mode and per type,
    ``"disagreements"``, and with ``ci_resamples`` ``"intervals"`` of the F1 per mode), ``"f1"`` (per mode, the mean over pairs), ``"kappa"`` (``"value"``,
    ``"method"``: cohen or fleiss, ``"tokens"``, ``"observed"``, ``"chance"``, with ``ci_resamples``
    ``"interval"``), and ``"settings"``. ``options`` are ``compute``'s (scheme, mode, types, ...);
    spans need ``texts`` (one str per example: kappa counts every character, marked or not)."""
    annotations = check_annotations(annotations, kind)
    for k, annotator in enumerate(annotations if kind == "spans" else ()):
        refuse_fragments(annotator, f"annotations[{k}]", "agreement (kappa and alpha over contiguous spans)")
    fixed = sorted(set(options) & {"scores", "errors"})
    if fixed:
        raise ValueError(
            f"agreement sets {fixed[0]} itself (every pair is scored in seqeval and MUC modes, with"
            " its disagreements); give the other options of compute"
        )
    config = "spans" if kind == "spans" else "default"
    if kind == "spans" and options.get("texts") is None:
        raise ValueError(
            "agreement over spans needs texts= (one str per example): kappa counts every character"
            " of each text, those no annotator marked too"
        )
    own = dict(document_ids=document_ids, ci_resamples=ci_resamples, confidence_level=confidence_level)
    check_unused("agreement", config, {**own, "seed": seed})
    resamples = check_resamples(ci_resamples)
    intervals: dict[str, Any] = (
        {"ci_resamples": resamples, "confidence_level": confidence_level, "seed": seed} if resamples else {}
    )
    if resamples and document_ids is not None:
        intervals["document_ids"] = document_ids
    checked = check_options(config, {**options, "scores": ["seqeval", "muc"], **intervals})
    lengths = sentence_lengths(annotations, kind, checked)
    units, n_units = document_units(document_ids, len(annotations[0]))
    pairs, views = score_pairs(annotations, kind, checked, resamples)
    f1 = {m: float(np.mean([p[m] for p in pairs.values()])) for m in MODES}
    # each annotator's entities as the pairs scored them (after types and label_map), from a pair
    # it is in: the first annotator's from the pair 0-1, the others' from the pair 0-k
    spans = [_view_spans(views[0, 1], "gold")] + [
        _view_spans(views[0, k], "pred") for k in range(1, len(annotations))
    ]
    labels, sentence = token_labels(spans, lengths)
    kappa = kappa_of(labels)
    if resamples:
        kappa["interval"] = _kappa_interval(
            labels, units[sentence], n_units, resamples, confidence_level, seed
        )
    # tag entities never overlap within an annotator: every pair's view lists them in one order
    # (position), so the pairs' own matchings index ``spans``
    matchings = (
        {pair: (v.matching.gold, v.matching.pred) for pair, v in views.items()} if kind == "tags" else None
    )
    alpha = span_alpha(spans, lengths, units, n_units, resamples, confidence_level, seed, matchings)
    settings = {
        "annotators": len(annotations),
        "sentences": len(annotations[0]),
        "units": n_units,
        "ci_resamples": resamples,
        "confidence_level": float(confidence_level),
        "seed": seed,
    }
    return {"pairs": pairs, "f1": f1, "kappa": kappa, "alpha": alpha, "settings": settings}


def sentence_lengths(annotations: list, kind: str, options: Any) -> npt.NDArray[np.int64]:
    """Each sentence's length in kappa's units: its tags, or its text's characters (span kind),
    refused (``ValueError``) when the annotators' labels would exceed :data:`MAX_LABELS`."""
    if kind == "spans":
        if len(options.texts) != len(annotations[0]):
            raise ValueError(
                f"texts has {len(options.texts)} examples but annotations[0] has {len(annotations[0])}"
            )
        lengths = np.fromiter(map(len, options.texts), dtype=np.int64, count=len(options.texts))
    else:
        lengths = np.fromiter(map(len, annotations[0]), dtype=np.int64, count=len(annotations[0]))
    cells = len(annotations) * int(lengths.sum())
    if cells > MAX_LABELS:
        raise ValueError(
            f"agreement's kappa would label {len(annotations)} annotators x {int(lengths.sum())} tokens,"
            f" {cells:,} labels; at most {MAX_LABELS:,} (score fewer or shorter examples)"
        )
    return lengths


#: the kinds of disagreement, in the order they are listed at one position
DISAGREEMENTS = ("incorrect", "missed", "spurious")


def disagreements(view: Any) -> list[dict[str, Any]]:
    """Every strictly wrong pair of the one matching (``incorrect``), every entity of ``a`` that
    ``b`` lacks (``missed``) and the reverse (``spurious``), in order of sentence and position,
    each ``{"sentence", "a", "b", "kind"}`` with the entities as ``[TYPE, start, end]``."""
    gold, pred, m = view.gold, view.pred, view.matching
    wrong = np.asarray(m.scenario) != 0
    free_gold, free_pred = np.ones(len(gold), dtype=bool), np.ones(len(pred), dtype=bool)
    free_gold[m.gold] = False
    free_pred[m.pred] = False
    a = np.concatenate([np.asarray(m.gold)[wrong], np.flatnonzero(free_gold), np.full(free_pred.sum(), -1)])
    b = np.concatenate([np.asarray(m.pred)[wrong], np.full(free_gold.sum(), -1), np.flatnonzero(free_pred)])
    kind = np.repeat([0, 1, 2], [int(wrong.sum()), int(free_gold.sum()), int(free_pred.sum())])
    a, b = a.astype(np.int64), b.astype(np.int64)
    start = _either(a, b, gold.start, pred.start)
    order = np.lexsort((kind, start))
    a, b, kind = a[order], b[order], kind[order]
    sentence = _either(a, b, gold.sentence, pred.sentence)
    sides = []
    for spans, idx in ((gold, a), (pred, b)):
        entities = [None] * len(idx)
        at = np.flatnonzero(idx >= 0)
        chosen = idx[at]
        names = np.array(view.types, dtype=object)[spans.type[chosen]].tolist()
        offset = spans.offset[chosen]
        listed = map(
            list, zip(names, offset.tolist(), (offset + spans.end[chosen] - spans.start[chosen]).tolist())
        )
        for k, entity in zip(at.tolist(), listed):
            entities[k] = entity
        sides.append(entities)
    kinds = [DISAGREEMENTS[k] for k in kind.tolist()]
    return [
        {"sentence": s, "a": x, "b": y, "kind": k}
        for s, x, y, k in zip(sentence.tolist(), sides[0], sides[1], kinds)
    ]


def _either(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per listed disagreement, ``x`` at ``a`` where it names an entity of ``a``, else ``y`` at ``b``
    (either side may hold no entity at all)."""
    out = np.zeros(len(a), dtype=np.int64)
    left = a >= 0
    out[left] = x[a[left]]
    out[~left] = y[b[~left]]
    return out


# ---------------------------------------------------------------------------- token labels and kappa


def token_labels(
    spans: list, lengths: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(annotators x tokens array of label codes, sentence of each token): per token the type of
    the innermost entity covering it (the shortest; among equally short ones the last by start,
    then type), 0 (``O``) where none does. ``spans``: per annotator its entities as (type names,
    sentence, start, end), offsets in the sentence; ``lengths``: the sentences' lengths."""
    base = np.concatenate([[0], np.cumsum(lengths)])
    names = sorted(set().union(*(_names_of(side[0]) for side in spans)))
    code = {name: k + 1 for k, name in enumerate(names)}
    labels = np.zeros((len(spans), int(base[-1])), dtype=np.int64)
    for k, (kinds, sentence, start, end) in enumerate(spans):
        if not len(start):
            continue
        codes = _codes_of(kinds, code)
        width = end - start
        if int(width.sum()) > MAX_LABELS:  # nested entities cover a token more than once
            raise ValueError(
                f"annotations[{k}]'s entities cover {int(width.sum()):,} tokens with their nesting;"
                f" kappa labels at most {MAX_LABELS:,}"
            )
        position = np.repeat(base[sentence] + start, width) + _ramps(width)
        entity = np.repeat(np.arange(len(start)), width)
        if len(position) < 2 or (np.diff(position) > 0).all():  # no two entities share a token
            labels[k, position] = codes[entity]
            continue
        # per position the innermost entity: shortest, then last by start, then by type
        order = np.lexsort((-codes[entity], -start[entity], width[entity], position))
        first = np.append(True, position[order][1:] != position[order][:-1])
        chosen = order[first]
        labels[k, position[chosen]] = codes[entity[chosen]]
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    return labels, sentence


def _ramps(widths):
    """0, 1, ..., w - 1 for each width, end to end."""
    total = int(widths.sum())
    return np.arange(total) - np.repeat(np.cumsum(widths) - widths, widths)


def _names_of(kinds):
    """The type names an annotator's entities use: ``kinds`` is a list of names, or (the names of
    a type space, each entity's code into them)."""
    if isinstance(kinds, tuple):
        return (
            set(np.asarray(kinds[0], dtype=object)[np.unique(kinds[1])].tolist()) if len(kinds[1]) else set()
        )
    return set(kinds)


def _codes_of(kinds, code):
    """Each entity's code in ``code`` (name -> code) from :func:`_names_of`'s ``kinds``."""
    if isinstance(kinds, tuple):
        lookup = np.array([code.get(name, -1) for name in kinds[0]] + [-1], dtype=np.int64)
        return lookup[kinds[1]]
    return np.fromiter(map(code.__getitem__, kinds), dtype=np.int64, count=len(kinds))


def _view_spans(view, side):
    """One side of a pair's view as ((type names, codes), sentence, start, end), offsets in the
    sentence."""
    spans = getattr(view, side)
    names = (tuple(view.types), np.asarray(spans.type, dtype=np.int64))
    offset = np.asarray(spans.offset, dtype=np.int64)
    end = offset + np.asarray(spans.end - spans.start, dtype=np.int64)
    return names, np.asarray(spans.sentence, dtype=np.int64), offset, end


def kappa_of(labels: npt.NDArray[np.int64]) -> dict[str, Any]:
    """Cohen's kappa (two rows) or Fleiss' kappa (more) of the label codes (annotators x tokens)."""
    n_raters, n_tokens = labels.shape
    if n_raters == 2:
        observed = float(np.mean(labels[0] == labels[1])) if n_tokens else 1.0
        k = labels.max() + 1 if n_tokens else 1
        p0, p1 = (np.bincount(row, minlength=k) / max(n_tokens, 1) for row in labels)
        chance = float(np.sum(p0 * p1))
        method = "cohen"
    else:
        # per token the share of agreeing ordered pairs of raters, from pairwise equalities
        pairs = sum(np.count_nonzero(labels[i] == labels[j]) for i, j in combinations(range(n_raters), 2))
        observed = float(pairs / (n_raters * (n_raters - 1) / 2) / n_tokens) if n_tokens else 1.0
        share = np.bincount(labels.ravel()) / max(labels.size, 1)
        chance = float(np.sum(share**2))
        method = "fleiss"
    value = 1.0 if observed == 1.0 else (observed - chance) / (1 - chance)
    return {
        "value": float(value),
        "method": method,
        "tokens": int(n_tokens),
        "observed": observed,
        "chance": chance,
    }


def _kappa_interval(labels, unit, n_units, resamples, level, seed):
    """Percentile bootstrap of kappa over units (sentences or documents) of tokens."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    members = [np.flatnonzero(unit == u) for u in range(n_units)]
    values = []
    for _ in range(resamples):
        drawn = rng.integers(0, n_units, n_units)
        columns = np.concatenate([members[u] for u in drawn])  # n_units >= 1: annotations hold a sentence
        values.append(kappa_of(labels[:, columns])["value"])
    alpha = (1 - level) / 2
    return [float(v) for v in np.quantile(values, [alpha, 1 - alpha])]


# ---------------------------------------------------------------------------- span-level alpha

#: the value an annotator gives a unit, per mode: its entity's span and type, its type
ALPHA_MODES = ("strict", "type")


def _annotator_arrays(side, base, code, presorted):
    """One annotator's entities as SpanArrays in the flat layout, sorted as the matching wants
    (``presorted``: they already are, in the order the given matchings index)."""
    kinds, sentence, start, end = side
    codes = _codes_of(kinds, code)
    flat = base[sentence] + start
    order = slice(None) if presorted else np.lexsort((codes, end - start, flat))
    return SpanArrays(flat[order], (base[sentence] + end)[order], codes[order], sentence[order], start[order])


def alignment_units(
    spans: list, lengths: npt.ArrayLike, matchings: dict | None = None
) -> tuple[npt.NDArray[np.int64], SpanArrays, npt.NDArray[np.int64]]:
    """The units of the span-level alpha: every entity of every annotator, linked to those the
    one-to-one matching pairs it with in each pair of annotators; a unit is a connected group.
    Returns (annotator, SpanArrays of all entities, unit of each); a unit holding two entities of
    one annotator (matchings of different pairs that disagree) keeps the first and the others
    become units of their own. ``matchings``: per pair ``(i, j)`` the matched (entity of i,
    entity of j) indices into ``spans``, when the pairs were matched already."""
    base = np.concatenate([[0], np.cumsum(np.asarray(lengths) + 1)])[:-1]
    names = sorted(set().union(*(_names_of(side[0]) for side in spans)))
    code = {name: k for k, name in enumerate(names)}
    arrays = [_annotator_arrays(side, base, code, matchings is not None) for side in spans]
    offsets = np.concatenate([[0], np.cumsum([len(a) for a in arrays])])
    links: list[list[Any]] = [[], []]
    for i, j in combinations(range(len(arrays)), 2):
        if matchings is not None:
            g, p = matchings[i, j]
        elif len(arrays[i]) and len(arrays[j]):
            m = match(arrays[i], arrays[j])
            g, p = m.gold, m.pred
        else:
            continue
        links[0].append(offsets[i] + np.asarray(g))
        links[1].append(offsets[j] + np.asarray(p))
    n = int(offsets[-1])
    a = np.concatenate(links[0]).astype(np.int64) if links[0] else np.zeros(0, dtype=np.int64)
    b = np.concatenate(links[1]).astype(np.int64) if links[1] else np.zeros(0, dtype=np.int64)
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    _, unit = connected_components(graph, directed=False)
    annotator = np.repeat(np.arange(len(arrays)), [len(x) for x in arrays])
    every = SpanArrays(*(np.concatenate([x[k] for x in arrays]) for k in range(5)))
    # an annotator twice in a unit: the first (by position) stays, the others get units of their own
    order = np.lexsort((every.end, every.start, annotator, unit))
    key = unit[order] * len(arrays) + annotator[order]
    extra = order[np.concatenate([np.zeros(min(len(key), 1), dtype=bool), key[1:] == key[:-1]])]
    unit[extra] = unit.max() + 1 + np.arange(len(extra)) if len(extra) else unit[extra]
    return annotator, every, unit


def _unit_values(mode, every):
    """Per entity, the code of the value it gives its unit in ``mode`` (0 is reserved for ``O``)."""
    if mode == "type":  # type codes are compact already
        return np.asarray(every.type, dtype=np.int64) + 1
    key = (every.start * (every.end.max(initial=0) + 1) + every.end) * (
        every.type.max(initial=0) + 1
    ) + every.type
    return np.unique(key, return_inverse=True)[1].ravel() + 1


def alpha_stats(
    mode: str,
    every: SpanArrays,
    unit: npt.NDArray[np.int64],
    n_annotators: int,
    sentence_unit: npt.NDArray[np.int64],
    n_resampling_units: int,
) -> npt.NDArray[np.int64]:
    """Per resampling unit (sentence or document): the additive pieces of Krippendorff's alpha,
    ``[agreeing ordered pairs, values, sum of squared counts of its own categories, count of each
    shared category]``, integers: the categories of the strict mode (a span) belong to one
    sentence, those of the type mode (and ``O``) are shared."""
    m = n_annotators
    values = _unit_values(mode, every)
    n_units = int(unit.max()) + 1 if len(unit) else 0
    shared = mode == "type"
    # per (unit, value): how many annotators give it; O: those without an entity in the unit
    pair = np.unique(unit * (values.max(initial=0) + 1) + values, return_counts=True)
    pair_unit, counts = pair[0] // (values.max(initial=0) + 1), pair[1]
    pair_value = pair[0] % (values.max(initial=0) + 1)
    entities = np.bincount(unit, minlength=n_units)
    o_count = m - entities
    agree = np.bincount(pair_unit, weights=counts * (counts - 1), minlength=n_units) + o_count * (o_count - 1)
    where = (
        sentence_unit[every.sentence[_first_of(unit, n_units)]] if n_units else np.zeros(0, dtype=np.int64)
    )
    k = n_resampling_units
    rows: list[npt.NDArray[Any]] = [
        np.bincount(where, weights=agree, minlength=k),
        np.bincount(where, weights=np.full(n_units, float(m)), minlength=k),
    ]
    n_categories = int(values.max(initial=0)) + 1 if shared else 1
    if shared:
        rows.append(np.zeros(k))
        for c in range(1, n_categories):
            rows.append(
                np.bincount(where[pair_unit[pair_value == c]], weights=counts[pair_value == c], minlength=k)
            )
    else:
        own = np.bincount(pair_value, weights=counts, minlength=int(values.max(initial=0)) + 1) ** 2
        value_unit = np.zeros(int(values.max(initial=0)) + 1, dtype=np.int64)
        value_unit[values] = where[unit]
        rows.append(np.bincount(value_unit[1:], weights=own[1:], minlength=k))
    rows.append(np.bincount(where, weights=o_count.astype(float), minlength=k))  # O, shared
    return np.rint(np.column_stack(rows)).astype(np.int64)


def _first_of(unit, n_units):
    first = np.full(n_units, -1, dtype=np.int64)
    first[unit[::-1]] = np.arange(len(unit))[::-1]
    return first


def alpha_of(totals: npt.ArrayLike, n_annotators: int) -> npt.NDArray[np.float64]:
    """Krippendorff's alpha (nominal) from summed :func:`alpha_stats` rows (rows x columns), with
    every unit valued by all ``n_annotators`` (m): ``1 - (n - 1) * (n - agreeing / (m - 1)) /
    (n**2 - sum of squared category counts)``, 1 where the values never disagree."""
    totals = np.atleast_2d(totals).astype(float)
    agree, n, own = totals[:, 0] / (n_annotators - 1), totals[:, 1], totals[:, 2]
    squares = own + (totals[:, 3:] ** 2).sum(axis=1)
    observed = n - agree
    expected = n * n - squares
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1 - (n - 1) * observed / expected
    return np.where(observed <= 1e-9 * np.maximum(n, 1), 1.0, value)


def span_alpha(
    spans: list,
    lengths: npt.ArrayLike,
    units: npt.NDArray[np.int64],
    n_units: int,
    resamples: int,
    level: float,
    seed: int,
    matchings: dict | None,
) -> dict[str, Any]:
    """``results["alpha"]``: Krippendorff's alpha (nominal) over the aligned units, per mode, with
    the number of units, and with ``resamples`` a percentile bootstrap interval over ``units``."""
    _, every, unit = alignment_units(spans, lengths, matchings)
    out = {
        "method": "krippendorff_nominal_on_aligned_units",
        "units": int(unit.max()) + 1 if len(unit) else 0,
    }
    for mode in ALPHA_MODES:
        stats = alpha_stats(mode, every, unit, len(spans), units, n_units)
        table = {"value": float(alpha_of(stats.sum(axis=0), len(spans))[0])}
        if resamples:
            table["interval"] = _alpha_interval(stats, len(spans), resamples, level, seed)
        out[mode] = table
    return out


def _alpha_interval(stats, n_annotators, resamples, level, seed):
    """Percentile bootstrap of alpha over the resampling units (their rows of :func:`alpha_stats`)."""
    patterns, counts = group_rows(stats)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    # never NaN: the expected disagreement is 0 only when every value is one category, and then
    # the observed one is 0 too (alpha 1)
    draws = np.concatenate(
        [alpha_of(t, n_annotators) for t in bootstrap_totals(patterns, counts, resamples, rng)]
    )
    alpha = (1 - level) / 2
    return [float(v) for v in np.quantile(draws, [alpha, 1 - alpha])]
