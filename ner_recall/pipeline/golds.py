"""Several golds at once: each scored, each error split by the other golds, gold against gold.

A corpus may have more than one gold (CoNLL-03 and its corrections CoNLL++ and CleanCoNLL).
:func:`score_golds` scores a system against each gold (``compute``'s every family, per gold)
and splits its outcomes by the other golds: a predicted entity that one gold counts wrong is
*wrong under every gold* or *disputed* (right under at least one other), a correct one is
*correct under every gold* or *disputed*, and a gold entity missed is *missed under every gold*
or *disputed*. Matching here is exact (same span and type), as the strict MUC mode and seqeval.
:func:`gold_differences` lists what one gold changes in another: type changes, boundary changes,
removed and added entities, by type pair, each with its place and sentence.

Golds of one tokenization are lists of tag lists. Golds whose tokenization differs are given as
``{"tokens": [[str]], "tags": [[str]]}`` (the predictions too): every side is laid on characters,
the text's (``texts``: one str per document) or, without texts, the characters of the tokens
with whitespace removed, so ``SKIING-WORLD`` and ``SKIING - WORLD`` are the same characters.
Scoring units are the stretches between sentence starts that every side shares (and document
starts), so a sentence merged or split in one gold makes one unit of the sentences around it;
the entities are scored as character spans in their unit (the "spans" config's scoring).

>>> from ner_recall.pipeline import golds as ner_golds
>>> golds = {"a": [["B-LOC", "O", "B-PER"]], "b": [["B-ORG", "O", "B-PER"]]}
>>> d = ner_golds.gold_differences("default", golds["a"], golds["b"], None, {})
>>> d["counts"], d["f1"]
({'type_changed': {'LOC->ORG': 1}}, 0.5)
"""

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ner_recall.core.decoding import decode
from ner_recall.core.inputs import as_list
from ner_recall.core.registry import refuse_unsupported
from ner_recall.core.vocabulary import InputError
from ner_recall.pipeline.compute import tag_corpus
from ner_recall.pipeline.options import ALL_OPTIONS, SPAN_CONFIGS, check_options, is_default
from ner_recall.pipeline.signature import read_convention, scored, signed, with_convention

#: options read for decoding tags (the rest go to the scoring of each gold)
DECODING = ("scheme", "mode", "suffix", "label_names", "convention")
#: options of one value per sentence: they do not fit units made of aligned sentences
PER_SENTENCE = ("document_ids", "slices", "tokens", "token_scores", "texts")
PREDICTIONS = "predictions"
_SPACE = re.compile(r"\s+")

Entity = tuple  # (unit, type, start, end): end exclusive, tokens or characters in the unit


class Side(NamedTuple):
    """One side laid out: its entities, and per token its character start and end (aligned)."""

    name: str
    entities: list
    sentence_starts: np.ndarray  # first token of each sentence
    tokens: list | None  # flat tokens (aligned sides), for messages


# ---------------------------------------------------------------------------- inputs


def check_golds(references: Any) -> dict[str, Any]:
    """``references`` as {name: gold}; a ValueError names a bad name or an empty mapping."""
    if not isinstance(references, Mapping):
        raise ValueError(
            f"references must be a mapping of gold names to golds, e.g. {{'conll03': ..., "
            f"'cleanconll': ...}}; got {type(references).__name__}"
        )
    if not references:
        raise ValueError("references is empty: give at least one gold")
    for i, name in enumerate(references):
        if not isinstance(name, str) or not name:
            raise ValueError(f"gold names must be non-empty strings; got {name!r} (references key {i})")
        if name == PREDICTIONS:
            raise ValueError(f"a gold may not be named {PREDICTIONS!r} (the system's side)")
    return dict(references)


def _is_aligned_form(side: Any) -> bool:
    return isinstance(side, Mapping)


def _check_form(name: str, side: Any) -> tuple[list, list | None]:
    """(tags, tokens or None) of a side."""
    if not _is_aligned_form(side):
        return side, None
    if set(side) != {"tokens", "tags"}:
        raise ValueError(
            f"{name} must be tag lists or {{'tokens': ..., 'tags': ...}}; got keys {sorted(side)}"
        )
    tokens, tags = as_list(side["tokens"]), as_list(side["tags"])
    if len(tokens) != len(tags):
        raise ValueError(f"{name}: {len(tokens)} sentences of tokens but {len(tags)} of tags")
    if list(map(len, tokens)) != list(map(len, tags)):
        s = next(i for i, (tok, tag) in enumerate(zip(tokens, tags)) if len(tok) != len(tag))
        raise ValueError(f"{name}: sentence {s} has {len(tokens[s])} tokens but {len(tags[s])} tags")
    try:
        "".join(map("".join, tokens))  # in C: a TypeError when a token is not a str
    except TypeError:
        s, t = next(
            (s, t) for s, tok in enumerate(tokens) for t, x in enumerate(tok) if not isinstance(x, str)
        )
        raise ValueError(f"{name}: sentence {s} token {t} must be a str; got {tokens[s][t]!r}")
    return tags, tokens


def split_options(given: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the decoding options, the others) of a call."""
    return (
        {k: v for k, v in given.items() if k in DECODING},
        {k: v for k, v in given.items() if k not in DECODING},
    )


# ---------------------------------------------------------------------------- entities


def token_entities(tags: Any, given: Mapping[str, Any], config: str = "default") -> tuple:
    """(sentence, start, end, type) arrays of one side's entities, token positions of the whole
    corpus (end exclusive), decoded as ``compute`` decodes with the options ``given``."""
    checked = check_options(config, with_convention(config, given))
    read, _, _ = read_convention(given, tags, tags, as_list)
    corpus = tag_corpus(read, read, checked)
    spans = decode(corpus.references, corpus, checked.scheme)
    types = np.asarray(list(corpus.types) or [""], dtype=object)[spans.type]
    starts = np.concatenate([[0], np.cumsum(corpus.lengths)[:-1]]).astype(np.int64)
    return spans.sentence, spans.start - spans.sentence, spans.end - spans.sentence, types, starts


def selected(entities: list, options: Mapping[str, Any], predicted: bool) -> list:
    """The entities after ``label_map`` (predictions only) and ``types``, as scoring selects them."""
    label_map = options.get("label_map") or {}
    keep = options.get("types")
    out = []
    for unit, kind, start, end in entities:
        kind = label_map.get(kind, kind) if predicted else kind
        if keep is None or kind in keep:
            out.append((unit, kind, start, end))
    return out


def side_name(name: str) -> str:
    """How an error names a side: ``predictions``, a gold of ``compute_golds`` as
    ``references['conll03']``, ``gold_a`` and ``gold_b`` of ``gold_differences`` as themselves."""
    return name if name in (PREDICTIONS, "gold_a", "gold_b") else f"references[{name!r}]"


def _token_level(tags: Any, given: Mapping[str, Any], name: str = PREDICTIONS) -> list:
    """One tokenization's entities as (sentence, type, start, end), offsets in the sentence; a bad
    tag is named at its side (:func:`side_name`)."""
    try:
        sentence, start, end, types, starts = token_entities(tags, given)
    except InputError as error:
        raise error.renamed({"predictions": side_name(name), "references": side_name(name)}) from None
    base = starts[sentence]
    return list(zip(sentence.tolist(), types.tolist(), (start - base).tolist(), (end - base).tolist()))


# ---------------------------------------------------------------------------- characters


class Layout(NamedTuple):
    """The characters every side is laid on: ``stream`` (no whitespace), and with texts the
    document and offset of each stream character."""

    stream: str
    document: np.ndarray  # empty without texts
    offset: np.ndarray
    doc_starts: np.ndarray  # stream position where each document starts


def text_layout(texts: Sequence[str] | None) -> Layout | None:
    """The non-whitespace characters of ``texts`` (None: no texts, the tokens decide)."""
    if texts is None:
        return None
    if isinstance(texts, str):
        texts = [texts]
    parts, docs, offsets, starts, total = [], [], [], [], 0
    for d, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"texts[{d}] must be a str; got {type(text).__name__}")
        where = [m.start() for m in re.finditer(r"\S", text)]
        starts.append(total)
        parts.append(_SPACE.sub("", text))
        docs.append(np.full(len(where), d, dtype=np.int64))
        offsets.append(np.asarray(where, dtype=np.int64))
        total += len(where)
    return Layout("".join(parts), np.concatenate(docs), np.concatenate(offsets), np.asarray(starts))


def _first_difference(a: str, b: str) -> int:
    """The first position where two strings differ (binary search on prefixes)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def char_starts(tokens: list) -> tuple[str, np.ndarray, np.ndarray]:
    """(the side's characters without whitespace, each token's first character, sentence starts
    as token positions)."""
    flat = [t for sentence in tokens for t in sentence]
    if _SPACE.search("".join(flat)):  # a token holding whitespace (rare): its characters only
        flat = [_SPACE.sub("", t) for t in flat]
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    sentences = np.concatenate([[0], np.cumsum([len(s) for s in tokens])]).astype(np.int64)
    return "".join(flat), starts, sentences


def _where_differs(
    name: str,
    reference: str,
    stream: str,
    starts: np.ndarray,
    sentences: np.ndarray,
    tokens: list,
    layout: Layout | None,
    against: str,
) -> ValueError:
    at = _first_difference(reference, stream)
    token = max(int(np.searchsorted(starts, at, side="right")) - 1, 0)
    sentence = max(int(np.searchsorted(sentences, token, side="right")) - 1, 0)
    in_sentence = token - int(sentences[min(sentence, len(sentences) - 1)])
    place = f"document 0, character {at} (of the tokens' characters, whitespace left out)"
    if layout is not None and len(layout.document):
        k = min(at, len(layout.document) - 1)
        place = f"document {int(layout.document[k])}, character {int(layout.offset[k]) + (at > k)}"
    side = "the predictions" if name == PREDICTIONS else f"gold {name!r}"
    ours = repr(stream[at]) if at < len(stream) else "the end"
    theirs = repr(reference[at]) if at < len(reference) else "the end"
    word = repr(tokens[token]) if token < len(tokens) else "past the last token"
    return ValueError(
        f"{side} does not align with {against}: {place}: "
        f"{ours} in {name!r} (its sentence {sentence}, token {in_sentence}: {word}), {theirs} in {against} "
        "(the texts differ beyond tokenization)"
    )


def lay_out(sides: Mapping[str, list], layout: Layout | None) -> dict[str, tuple]:
    """Per side (its tokens): (token character starts, sentence starts) on the shared characters;
    a ValueError names the first side whose characters differ, where, by sentence and token."""
    out, reference, against = {}, None if layout is None else layout.stream, "the texts"
    for name, tokens in sides.items():
        stream, starts, sentences = char_starts(tokens)
        if reference is None:
            reference, against = stream, repr(name)
        elif stream != reference:
            flat = [t for s in tokens for t in s]
            raise _where_differs(name, reference, stream, starts, sentences, flat, layout, against)
        out[name] = (starts, sentences)
    return out


def unit_bounds(placed: Mapping[str, tuple], layout: Layout | None, total: int) -> np.ndarray:
    """Stream positions where a unit starts: sentence starts shared by every side, documents'
    starts, and the end (``total``) last."""
    shared = None
    for starts, sentences in placed.values():
        here = set(starts[sentences[:-1]].tolist())
        shared = here if shared is None else shared & here
    cuts = (shared or set()) | {0} | (set() if layout is None else set(layout.doc_starts.tolist()))
    return np.asarray(sorted(c for c in cuts if c < total) + [total], dtype=np.int64)


def char_entities(
    name: str,
    tags: Any,
    tokens: list,
    place: tuple,
    bounds: np.ndarray,
    layout: Layout | None,
    given: Mapping[str, Any],
) -> list:
    """One side's entities as (unit, type, start, end) characters in their unit."""
    starts, _ = place
    sentence, first, last, types, _ = token_entities(tags, given)
    lo, hi = starts[first], starts[last]
    empty = np.flatnonzero(hi <= lo)
    if len(empty):
        k = int(empty[0])
        raise ValueError(f"{name}: the entity at sentence {int(sentence[k])} has no character but whitespace")
    unit = np.searchsorted(bounds, lo, side="right") - 1
    crossing = np.flatnonzero(bounds[unit + 1] < hi)
    if len(crossing):
        k = int(crossing[0])
        raise ValueError(f"{name}: the entity at sentence {int(sentence[k])} crosses a document boundary")
    if layout is None:
        a, b = lo - bounds[unit], hi - bounds[unit]
    else:
        origin = layout.offset[bounds[unit]]
        a, b = layout.offset[lo] - origin, layout.offset[hi - 1] + 1 - origin
    return list(zip(unit.tolist(), types.tolist(), a.tolist(), b.tolist()))


def unit_texts(bounds: np.ndarray, layout: Layout | None, texts: Sequence[str] | None) -> list[str]:
    """The text of each unit (without texts: its characters, whitespace removed)."""
    if layout is None or texts is None:
        stream = "" if layout is None else layout.stream
        return [stream[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())] if stream else []
    docs = [texts] if isinstance(texts, str) else texts
    out = []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        d = int(layout.document[a])
        out.append(docs[d][int(layout.offset[a]) : int(layout.offset[b - 1]) + 1])
    return out


def as_examples(entities: list, n_units: int) -> list[list[dict]]:
    """Entities (unit, type, start, end) as the "spans" config's examples."""
    out: list[list[dict]] = [[] for _ in range(n_units)]
    for unit, kind, start, end in entities:
        out[unit].append({"label": kind, "start": start, "end": end})
    return out


# ---------------------------------------------------------------------------- splits and differences


def outcome_split(pred: set, golds: Mapping[str, set]) -> dict[str, Any]:
    """Per gold, its outcomes split by the other golds; and each prediction's standing."""
    names = list(golds)
    every = set.intersection(*golds.values()) if golds else set()
    some = set.union(*golds.values()) if golds else set()
    per_gold = {}
    for name, gold in golds.items():
        correct, wrong, missed = pred & gold, pred - gold, gold - pred
        per_gold[name] = {
            "correct": {"under_every_gold": len(correct & every), "disputed": len(correct - every)},
            "false_positives": {"wrong_under_every_gold": len(wrong - some), "disputed": len(wrong & some)},
            "false_negatives": {
                "missed_under_every_gold": len(missed & every),
                "disputed": len(missed - every),
            },
        }
    disputed = sorted((pred & some) - every, key=_order)
    return {
        "per_gold": per_gold,
        "predictions": {
            "right_under_every_gold": len(pred & every),
            "disputed": len(disputed),
            "wrong_under_every_gold": len(pred - some),
        },
        "disputed": [
            {"unit": e[0], "entity": list(e[1:]), "right_under": [n for n in names if e in golds[n]]}
            for e in disputed
        ],
    }


def _order(entity: tuple) -> tuple:
    unit, kind, start, end = entity
    return unit, start, end, kind


def _pair(a: str, b: str) -> str:
    return f"{a}->{b}"


def differences(a: set, b: set) -> list[dict[str, Any]]:
    """What b changes in a, entity by entity: "type_changed" (same span), "boundary_changed" (an
    overlapping entity, other span), "removed" (nothing of b overlaps), "added" (nothing of a
    overlaps); sorted by place."""
    changes = []
    only_a, only_b = sorted(a - b, key=_order), sorted(b - a, key=_order)
    b_units: dict[int, list] = defaultdict(list)
    for e in only_b:
        b_units[e[0]].append(e)
    b_all: dict[int, list] = defaultdict(list)
    for e in b:
        b_all[e[0]].append(e)
    paired_b = set()
    for e in only_a:
        same = [o for o in b_units[e[0]] if o[2:] == e[2:]]
        if same:
            changes.append({"kind": "type_changed", "pair": _pair(e[1], same[0][1]), "a": e, "b": same[0]})
            paired_b.add(same[0])
            continue
        over = [o for o in b_all[e[0]] if o[2] < e[3] and e[2] < o[3]]
        if over:
            o = over[0]
            changes.append({"kind": "boundary_changed", "pair": _pair(e[1], o[1]), "a": e, "b": o})
            paired_b.add(o)
        else:
            changes.append({"kind": "removed", "pair": e[1], "a": e, "b": None})
    a_all: dict[int, list] = defaultdict(list)
    for e in a:
        a_all[e[0]].append(e)
    for o in only_b:
        if o in paired_b:
            continue
        over = [e for e in a_all[o[0]] if e[2] < o[3] and o[2] < e[3]]
        if over:  # it overlaps an entity of a that has its match elsewhere
            changes.append(
                {"kind": "boundary_changed", "pair": _pair(over[0][1], o[1]), "a": over[0], "b": o}
            )
        else:
            changes.append({"kind": "added", "pair": o[1], "a": None, "b": o})
    changes.sort(key=lambda c: _order(c["a"] or c["b"]))
    return changes


def _prf(a: set, b: set) -> dict[str, float]:
    """b scored against a (a the reference), exact match."""
    hit = len(a & b)
    p = hit / len(b) if b else 0.0
    r = hit / len(a) if a else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def difference_report(a: set, b: set, sentence_text: Any = None) -> dict[str, Any]:
    """Counts by kind and type pair, the listing (each change with its place and sentence), and
    the exact-match precision, recall and F1 of b against a."""
    changes = differences(a, b)
    counts: dict[str, Counter] = defaultdict(Counter)
    for c in changes:
        counts[c["kind"]][c["pair"]] += 1
    listing = []
    for c in changes:
        unit = (c["a"] or c["b"])[0]
        row = {
            "kind": c["kind"],
            "pair": c["pair"],
            "unit": unit,
            "a": None if c["a"] is None else list(c["a"][1:]),
            "b": None if c["b"] is None else list(c["b"][1:]),
        }
        if sentence_text is not None:
            row["sentence"] = sentence_text(unit)
        listing.append(row)
    return {
        **_prf(a, b),
        "entities": {"a": len(a), "b": len(b)},
        "counts": {k: dict(sorted(v.items())) for k, v in sorted(counts.items())},
        "changes": listing,
    }


# ---------------------------------------------------------------------------- the two calls


def chosen_options(config: str, options: Mapping[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
    """The options not at their default, checked as ``compute`` checks them (before any input)."""
    chosen = {k: v for k, v in options.items() if k not in table or not is_default(v, table[k])}
    check_options(config, with_convention(config, chosen))
    return chosen


class Prepared(NamedTuple):
    """Every side's entities on one grid: sentences and tokens, or units and characters."""

    entities: dict[str, list]
    aligned: bool
    n_units: int
    unit_texts: list[str] | None
    sentence_text: Any
    alignment: dict[str, Any] | None


def _aligned(forms: Mapping[str, tuple], texts: Any, given: Mapping[str, Any]) -> Prepared:
    layout = text_layout(texts)
    placed = lay_out({name: tokens for name, (_, tokens) in forms.items()}, layout)
    first = next(iter(forms))
    stream = layout.stream if layout is not None else char_starts(forms[first][1])[0]
    bounds = unit_bounds(placed, layout, len(stream))
    entities = {
        name: char_entities(name, tags, tokens, placed[name], bounds, layout, given)
        for name, (tags, tokens) in forms.items()
    }
    n_units = len(bounds) - 1
    first_tokens = [t for s in forms[first][1] for t in s]
    # the first token of each unit in the first side (units start where its sentences start)
    cut = np.searchsorted(placed[first][0][:-1], bounds, side="left").tolist()
    several = {}
    for name, (starts, sentences) in placed.items():
        unit_of = np.searchsorted(bounds, starts[sentences[:-1]], side="right") - 1
        several[name] = int((np.bincount(unit_of, minlength=n_units) > 1).sum())
    alignment = {
        "units": n_units,
        "characters": len(stream),
        "sides": {n: {"sentences": len(p[1]) - 1, "tokens": len(p[0]) - 1} for n, p in placed.items()},
        "units_of_several_sentences": several,
    }
    texts_of = unit_texts(
        bounds,
        layout if texts is not None else Layout(stream, np.zeros(0, np.int64), np.zeros(0, np.int64), bounds),
        texts,
    )
    return Prepared(
        entities, True, n_units, texts_of, lambda u: " ".join(first_tokens[cut[u] : cut[u + 1]]), alignment
    )


def prepare(sides: Mapping[str, Any], texts: Any, given: Mapping[str, Any]) -> Prepared:
    """Every side (a name and tag lists, or tokens and tags) decoded and laid on one grid."""
    forms = {name: _check_form(name, side) for name, side in sides.items()}
    with_tokens = [name for name, (_, tokens) in forms.items() if tokens is not None]
    if with_tokens and len(with_tokens) != len(forms):
        without = next(name for name in forms if name not in with_tokens)
        raise ValueError(
            f"{with_tokens[0]} is given with its tokens but {without} is not: give every side as tag "
            "lists (one tokenization), or every side as {'tokens': ..., 'tags': ...}"
        )
    if with_tokens:
        return _aligned(forms, texts, given)
    if texts is not None:
        raise ValueError("texts needs the tokens of every side: give each as {'tokens': ..., 'tags': ...}")
    lengths = {name: [len(s) for s in as_list(tags)] for name, (tags, _) in forms.items()}
    first = next(iter(lengths))
    for name, these in lengths.items():
        if these != lengths[first]:
            s = next(
                (i for i, (x, y) in enumerate(zip(these, lengths[first])) if x != y),
                min(map(len, (these, lengths[first]))),
            )
            raise ValueError(
                f"gold {name!r} is not tokenized as {first!r} (sentence {s}): give every side as "
                "{'tokens': ..., 'tags': ...} to align them on characters"
            )
    entities = {name: _token_level(tags, given, name) for name, (tags, _) in forms.items()}
    return Prepared(entities, False, len(lengths[first]), None, None, None)


def score_golds(
    config: str,
    predictions: Any,
    references: Any,
    texts: Any,
    given: Mapping[str, Any],
    table: Mapping[str, Any],
) -> dict[str, Any]:
    """A system against several golds: see the module's docstring and docs/golds.md."""
    if config in SPAN_CONFIGS:
        raise ValueError(
            "compute_golds reads tags: use the 'default' config (spans: score each gold with compute)"
        )
    given = chosen_options(config, given, table)
    refuse_unsupported("compute_golds", "golds", given.get("scores", ()))
    golds = check_golds(references)
    decoding, _ = split_options(given)
    prepared = prepare({PREDICTIONS: predictions, **golds}, texts, decoding)
    if prepared.aligned:
        bad = [k for k in PER_SENTENCE if k in given]
        if bad:
            raise ValueError(
                f"{bad[0]} has one value per sentence, but golds of different tokenizations are scored by "
                "aligned units: leave it out"
            )
        expanded = with_convention(config, given)
        others = {k: v for k, v in expanded.items() if k not in DECODING}
        others["texts"] = prepared.unit_texts
        examples = {n: as_examples(e, prepared.n_units) for n, e in prepared.entities.items()}
        per_gold = {n: scored("spans", examples[PREDICTIONS], examples[n], others, table) for n in golds}
    else:
        per_gold = {n: scored(config, predictions, gold, given, table) for n, gold in golds.items()}
    scoring = with_convention(config, given)
    pred = set(selected(prepared.entities[PREDICTIONS], scoring, True))
    gold_sets = {n: set(selected(prepared.entities[n], scoring, False)) for n in golds}
    split = outcome_split(pred, gold_sets)
    names = list(golds)
    versus = {
        f"{a} vs {b}": difference_report(gold_sets[a], gold_sets[b], prepared.sentence_text)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    }
    results = {
        "golds": per_gold,
        "split": split["per_gold"],
        "predictions": split["predictions"],
        "disputed": split["disputed"],
        "gold_vs_gold": versus,
        "units": "characters" if prepared.aligned else "sentences",
    }
    if prepared.alignment is not None:
        results["alignment"] = prepared.alignment
    return signed(results, config, given, table)


def gold_differences(
    config: str, gold_a: Any, gold_b: Any, texts: Any, given: Mapping[str, Any]
) -> dict[str, Any]:
    """What ``gold_b`` changes in ``gold_a``: see :func:`difference_report`."""
    given = chosen_options(config, given, ALL_OPTIONS)
    decoding, rest = split_options(given)
    unknown = sorted(set(rest) - {"types", "label_map"})
    if unknown:
        raise ValueError(f"gold_differences reads the decoding options and types only; got {unknown[0]!r}")
    prepared = prepare({"gold_a": gold_a, "gold_b": gold_b}, texts, decoding)
    a = set(selected(prepared.entities["gold_a"], rest, False))
    b = set(selected(prepared.entities["gold_b"], rest, False))
    report = difference_report(a, b, prepared.sentence_text)
    report["units"] = "characters" if prepared.aligned else "sentences"
    if prepared.alignment is not None:
        report["alignment"] = prepared.alignment
    return report
