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

from itertools import combinations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

if __package__:  # inside the package evaluate.load builds
    from .ner_core import MODES, SpanArrays, fbeta_key
    from .ner_decoding import decode, encode
    from .ner_matching import match
    from .ner_pipeline import check_options, score_spans, score_tags, tag_corpus
    from .ner_spans import check_entities
    from .ner_uncertainty import bootstrap_totals, check_resamples, document_units, group_rows
else:  # imported from the repo root: tests, ner_report, app
    from ner_core import MODES, SpanArrays, fbeta_key
    from ner_decoding import decode, encode
    from ner_matching import match
    from ner_pipeline import check_options, score_spans, score_tags, tag_corpus
    from ner_spans import check_entities
    from ner_uncertainty import bootstrap_totals, check_resamples, document_units, group_rows

KINDS = ("tags", "spans")


def check_annotations(annotations, kind):
    """A list of at least two annotators, each a list of as many sentences (examples)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}; got {kind!r}")
    if isinstance(annotations, (str, bytes, dict)) or not isinstance(annotations, (list, tuple)):
        raise ValueError("annotations must be a list of annotators, each a list of sentences")
    if len(annotations) < 2:
        raise ValueError(f"annotations must hold at least two annotators; got {len(annotations)}")
    for k, annotator in enumerate(annotations):
        if isinstance(annotator, (str, bytes, dict)) or not hasattr(annotator, "__len__"):
            raise ValueError(f"annotations[{k}] must be a list of sentences; got {type(annotator).__name__}")
        if len(annotator) != len(annotations[0]):
            raise ValueError(
                f"annotations[{k}] has {len(annotator)} sentences but annotations[0] has {len(annotations[0])}"
            )
    if not len(annotations[0]):
        raise ValueError("annotations hold no sentence")
    return [list(a) for a in annotations]


def _name(error, i, j):
    """A scoring error of the pair (i, j), with the annotators named."""
    text = str(error).replace("references", f"annotations[{i}]").replace("predictions", f"annotations[{j}]")
    return ValueError(text)


def pair_results(a, b, kind, options):
    """The metric's results of annotator ``b`` against annotator ``a``."""
    if kind == "spans":
        return score_spans(b, a, options)
    return score_tags(tag_corpus(b, a, options), options)[0]


def _pair_summary(results, beta):
    fkey = fbeta_key(beta)
    muc = results["muc"]
    per_type = {t: {m: muc[m]["per_type"][t][fkey] for m in MODES} for t in sorted(muc["strict"]["per_type"])}
    return {**{m: muc[m][fkey] for m in MODES}, "per_type": per_type}


def agreement(
    annotations, kind="tags", document_ids=None, ci_resamples=0, confidence_level=0.95, seed=0, **options
):
    """Agreement of the annotators: ``"pairs"`` (per pair ``"i-j"``: F1 per MUC mode and per type,
    ``"disagreements"``, and with ``ci_resamples`` ``"intervals"`` of the F1 per mode), ``"f1"`` (per mode, the mean over pairs), ``"kappa"`` (``"value"``,
    ``"method"``: cohen or fleiss, ``"tokens"``, ``"observed"``, ``"chance"``, with ``ci_resamples``
    ``"interval"``), and ``"settings"``. ``options`` are ``compute``'s (scheme, mode, types, ...)."""
    annotations = check_annotations(annotations, kind)
    fixed = sorted(set(options) & {"scores", "errors", "ci_resamples", "document_ids"})
    if fixed:
        raise ValueError(
            f"agreement sets {fixed[0]} itself (every pair is scored in seqeval and MUC modes, with"
            " its disagreements); give the other options of compute"
        )
    config = "spans" if kind == "spans" else "default"
    resamples = check_resamples(ci_resamples)
    intervals = (
        {"ci_resamples": resamples, "confidence_level": confidence_level, "seed": seed} if resamples else {}
    )
    if resamples and document_ids is not None:
        intervals["document_ids"] = document_ids
    checked = check_options(config, {**options, "scores": ["seqeval", "muc"], "errors": True, **intervals})
    units, n_units = document_units(document_ids, len(annotations[0]))
    pairs = {}
    for i, j in combinations(range(len(annotations)), 2):
        try:
            results = pair_results(annotations[i], annotations[j], kind, checked)
        except ValueError as error:
            raise _name(error, i, j) from None
        pairs[f"{i}-{j}"] = {
            **_pair_summary(results, checked.beta),
            "disagreements": _disagreements(results["errors"]["strict"]),
        }
        if resamples:  # the pair's F1 per mode, resampled as compute resamples it
            pairs[f"{i}-{j}"]["intervals"] = {m: results["intervals"][f"muc_{m}_f1"] for m in MODES}
    f1 = {m: float(np.mean([p[m] for p in pairs.values()])) for m in MODES}
    spans, lengths = _tag_spans(annotations, checked) if kind == "tags" else _span_spans(annotations)
    labels, sentence = token_labels(annotations, kind, checked, (spans, lengths))
    kappa = kappa_of(labels)
    if resamples:
        kappa["interval"] = _kappa_interval(
            labels, units[sentence], n_units, resamples, confidence_level, seed
        )
    alpha = span_alpha(spans, lengths, units, n_units, resamples, confidence_level, seed)
    settings = {
        "annotators": len(annotations),
        "sentences": len(annotations[0]),
        "units": n_units,
        "ci_resamples": resamples,
        "confidence_level": float(confidence_level),
        "seed": seed,
    }
    return {"pairs": pairs, "f1": f1, "kappa": kappa, "alpha": alpha, "settings": settings}


def _disagreements(strict_listing):
    """Every pair that is not strictly correct, and every missed or spurious entity."""
    out = []
    for outcome in ("incorrect", "missed", "spurious"):
        for entry in strict_listing.get(outcome, []):
            out.append(
                {"sentence": entry["sentence"], "a": entry["gold"], "b": entry["pred"], "kind": outcome}
            )
    return sorted(out, key=lambda e: (e["sentence"], str(e["a"]), str(e["b"])))


# ---------------------------------------------------------------------------- token labels and kappa


def token_labels(annotations, kind, options, decoded=None):
    """(annotators x tokens array of label codes, sentence of each token): per token the type of
    the innermost entity covering it, 0 (``O``) where none does. ``decoded``: the annotators'
    (spans, lengths), when already read."""
    if decoded is not None:
        spans, lengths = decoded
    elif kind == "tags":
        spans, lengths = _tag_spans(annotations, options)
    else:
        spans, lengths = _span_spans(annotations)
    base = np.concatenate([[0], np.cumsum(lengths)])
    names = sorted({label for side in spans for label, _, _, _ in side})
    code = {name: k + 1 for k, name in enumerate(names)}
    labels = np.zeros((len(annotations), int(base[-1])), dtype=np.int64)
    for k, side in enumerate(spans):
        # longest first, so that the innermost (shortest) entity is written last and stays
        for label, s, a, b in sorted(side, key=lambda e: (-(e[3] - e[2]), e[1], e[2], e[0])):
            labels[k, base[s] + a : base[s] + b] = code[label]
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    return labels, sentence


def _tag_spans(annotations, options):
    spans = []
    for k, annotator in enumerate(annotations):
        try:
            corpus = encode(annotator, annotator, suffix=options.suffix, scheme=options.scheme)
        except ValueError as error:
            raise ValueError(str(error).replace("predictions", f"annotations[{k}]")) from None
        found = decode(corpus.references, corpus, options.scheme)
        types = list(corpus.types)
        spans.append(
            [
                (types[t], int(s), int(o), int(o + e - b))
                for t, s, o, b, e in zip(
                    found.type.tolist(),
                    found.sentence.tolist(),
                    found.offset.tolist(),
                    found.start.tolist(),
                    found.end.tolist(),
                )
            ]
        )
    lengths = np.array([len(sentence) for sentence in annotations[0]], dtype=np.int64)
    return spans, lengths


def _span_spans(annotations):
    spans, width = [], np.zeros(len(annotations[0]), dtype=np.int64)
    for k, annotator in enumerate(annotations):
        labels, starts, ends, example, _ = check_entities(annotator, f"annotations[{k}]")
        spans.append(
            list(
                zip(
                    labels,
                    np.asarray(example).tolist(),
                    np.asarray(starts).tolist(),
                    np.asarray(ends).tolist(),
                )
            )
        )
        if len(ends):
            np.maximum.at(width, np.asarray(example), np.asarray(ends))
    return spans, width


def kappa_of(labels):
    """Cohen's kappa (two rows) or Fleiss' kappa (more) of the label codes (annotators x tokens)."""
    n_raters, n_tokens = labels.shape
    if n_raters == 2:
        observed = float(np.mean(labels[0] == labels[1])) if n_tokens else 1.0
        k = labels.max() + 1 if n_tokens else 1
        p0, p1 = (np.bincount(row, minlength=k) / max(n_tokens, 1) for row in labels)
        chance = float(np.sum(p0 * p1))
        method = "cohen"
    else:
        counts = _category_counts(labels)
        agree = (counts * (counts - 1)).sum(axis=1) / (n_raters * (n_raters - 1))
        observed = float(agree.mean()) if n_tokens else 1.0
        share = counts.sum(axis=0) / max(counts.sum(), 1)
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


def _category_counts(labels):
    """Tokens x categories: how many annotators gave each label to each token."""
    n_raters, n_tokens = labels.shape
    k = int(labels.max()) + 1 if n_tokens else 1
    counts = np.zeros((n_tokens, k), dtype=np.int64)
    for row in labels:
        counts[np.arange(n_tokens), row] += 1
    return counts


def _kappa_interval(labels, unit, n_units, resamples, level, seed):
    """Percentile bootstrap of kappa over units (sentences or documents) of tokens."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    members = [np.flatnonzero(unit == u) for u in range(n_units)]
    values = []
    for _ in range(resamples):
        drawn = rng.integers(0, n_units, n_units)
        columns = np.concatenate([members[u] for u in drawn]) if n_units else np.zeros(0, dtype=np.int64)
        values.append(kappa_of(labels[:, columns])["value"])
    alpha = (1 - level) / 2
    return [float(v) for v in np.quantile(values, [alpha, 1 - alpha])]


# ---------------------------------------------------------------------------- span-level alpha

#: the value an annotator gives a unit, per mode: its entity's span and type, its span, its type
ALPHA_MODES = ("strict", "exact", "type")


def _annotator_arrays(side, base, code):
    """One annotator's entities as SpanArrays in the flat layout, sorted as the matching wants."""
    rows = sorted(side, key=lambda e: (base[e[1]] + e[2], e[3] - e[2], code[e[0]]))
    columns = np.array([(base[s] + a, base[s] + b, code[t], s, a) for t, s, a, b in rows], dtype=np.int64)
    columns = columns.reshape(-1, 5)
    return SpanArrays(*(columns[:, k] for k in range(5)))


def alignment_units(spans, lengths):
    """The units of the span-level alpha: every entity of every annotator, linked to those the
    one-to-one matching pairs it with in each pair of annotators; a unit is a connected group.
    Returns (annotator, SpanArrays of all entities, unit of each); a unit holding two entities of
    one annotator (matchings of different pairs that disagree) keeps the first and the others
    become units of their own."""
    base = np.concatenate([[0], np.cumsum(np.asarray(lengths) + 1)])[:-1]
    names = sorted({t for side in spans for t, _, _, _ in side})
    code = {name: k for k, name in enumerate(names)}
    arrays = [_annotator_arrays(side, base, code) for side in spans]
    offsets = np.concatenate([[0], np.cumsum([len(a) for a in arrays])])
    links = [[], []]
    for i, j in combinations(range(len(arrays)), 2):
        if len(arrays[i]) and len(arrays[j]):
            m = match(arrays[i], arrays[j])
            links[0].append(offsets[i] + np.asarray(m.gold))
            links[1].append(offsets[j] + np.asarray(m.pred))
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
    extra = order[np.concatenate([[False], key[1:] == key[:-1]])]
    unit[extra] = unit.max() + 1 + np.arange(len(extra)) if len(extra) else unit[extra]
    return annotator, every, unit


def _unit_values(mode, every):
    """Per entity, the code of the value it gives its unit in ``mode`` (0 is reserved for ``O``)."""
    if mode == "type":
        key = every.type
    elif mode == "exact":
        key = every.start * (every.end.max(initial=0) + 1) + every.end
    else:
        key = (every.start * (every.end.max(initial=0) + 1) + every.end) * (
            every.type.max(initial=0) + 1
        ) + every.type
    return np.unique(key, return_inverse=True)[1].ravel() + 1


def alpha_stats(mode, annotator, every, unit, n_annotators, sentence_unit, n_resampling_units):
    """Per resampling unit (sentence or document): the additive pieces of Krippendorff's alpha,
    ``[agreeing ordered pairs, values, sum of squared counts of its own categories, count of each
    shared category]``, integers: the categories of the strict and exact modes (a span) belong to one
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
    rows = [
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


def alpha_of(totals, n_annotators):
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


def span_alpha(spans, lengths, units, n_units, resamples=0, level=0.95, seed=0):
    """``results["alpha"]``: Krippendorff's alpha (nominal) over the aligned units, per mode, with
    the number of units, and with ``resamples`` a percentile bootstrap interval over ``units``."""
    annotator, every, unit = alignment_units(spans, lengths)
    out = {
        "method": "krippendorff_nominal_on_aligned_units",
        "units": int(unit.max()) + 1 if len(unit) else 0,
    }
    for mode in ALPHA_MODES:
        stats = alpha_stats(mode, annotator, every, unit, len(spans), units, n_units)
        table = {"value": float(alpha_of(stats.sum(axis=0), len(spans))[0])}
        if resamples:
            table["interval"] = _alpha_interval(stats, len(spans), resamples, level, seed)
        out[mode] = table
    return out


def _alpha_interval(stats, n_annotators, resamples, level, seed):
    """Percentile bootstrap of alpha over the resampling units (their rows of :func:`alpha_stats`)."""
    patterns, counts = group_rows(stats)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    draws = np.concatenate(
        [alpha_of(t, n_annotators) for t in bootstrap_totals(patterns, counts, resamples, rng)]
    )
    draws = draws[~np.isnan(draws)]
    alpha = (1 - level) / 2
    return [float(v) for v in np.quantile(draws, [alpha, 1 - alpha])] if len(draws) else [float("nan")] * 2
