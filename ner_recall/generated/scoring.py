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

import difflib
import re
import string
import unicodedata
from collections import Counter
from json import loads as _loads
from typing import Any, NamedTuple

import numpy as np

from ner_recall.core.counts import count_rows
from ner_recall.core.inputs import as_list
from ner_recall.core.spans import check_texts
from ner_recall.core.vocabulary import InputError
from ner_recall.generated.dialects import (
    ARTICLES,
    PUNCTUATION,
    Item,
    Reading,
    check_dialect,
    offsets_on,
    read_output,
)
from ner_recall.pipeline.compute import score_spans
from ner_recall.pipeline.options import CONFIG_OPTIONS, check_options
from ner_recall.stats.uncertainty import align_types, paired

#: the config name
GENERATED = "generated"
#: the outcome of every item read, in the order of the counts
ITEM_OUTCOMES = ("placed", "hallucinated", "duplicate", "off_schema", "unparseable")
PLACEMENTS = ("order", "first", "every", "offsets")
LEVELS = ("exact", "normalized", "fuzzy")
#: the normalization steps, in the order they apply (UniNER's SQuAD normalizer is case,
#: punctuation, articles, space)
STEPS = ("nfkc", "case", "punctuation", "articles", "space")
#: the options of the generated config that the span scoring does not read
GENERATED_OPTIONS = {
    "output_format": "auto",
    "placement": "order",
    "matching": "exact",
    "normalize": None,
    "fuzzy_threshold": 0.9,
    "convention": None,
}
#: the order-placement chain is searched exactly up to this many candidate places a document
MAX_CHAIN = 4000


class Settings(NamedTuple):
    """How items are placed: the placement, the matching level, the steps of the normalized
    level, the fuzzy threshold and the label map."""

    placement: str = "order"
    level: str = "exact"
    steps: tuple = STEPS
    threshold: float = 0.9
    label_map: Any = None


class Outcome(NamedTuple):
    """One item's outcome: its document and index in the output (None for a whole output
    unparseable), type (after the label map), string, the places it took (character offsets)
    and, where useful, why."""

    document: int
    item: Any
    outcome: str
    label: Any
    text: Any
    places: list
    detail: str = ""


# ---------------------------------------------------------------------------- normalization


def _is_punctuation(char: str) -> bool:
    return char in PUNCTUATION or unicodedata.category(char).startswith("P")


def normalized_map(text: str, steps: tuple = STEPS) -> tuple:
    """``text`` normalized by ``steps`` and, for each of its characters, the offset in ``text``
    of the character it came from.

    >>> normalized_map("The  U.S. army")
    ('u s army', [5, 6, 7, 8, 10, 11, 12, 13])
    """
    chars, where = [], []
    nfkc, case, punct, space = (
        ("nfkc" in steps),
        ("case" in steps),
        ("punctuation" in steps),
        ("space" in steps),
    )
    for k, c in enumerate(text):
        s = unicodedata.normalize("NFKC", c) if nfkc and not c.isascii() else c
        for ch in s.casefold() if case else s:
            if punct and _is_punctuation(ch):
                ch = " "  # a word apart: "Paris-Hilton" is "paris hilton"
            chars.append(" " if space and ch.isspace() else ch)
            where.append(k)
    joined = "".join(chars)
    if "articles" in steps:
        joined = ARTICLES.sub(lambda m: " " * len(m.group()), joined)
    if not space:
        return joined, where
    out, kept, previous = [], [], " "
    for ch, k in zip(joined, where):
        if ch == " " and (previous == " " or ch.isspace() and previous == " "):
            continue
        out.append(ch)
        kept.append(k)
        previous = ch
    if out and out[-1] == " ":
        out.pop()
        kept.pop()
    return "".join(out), kept


def normalize_string(s: str, steps: tuple = STEPS) -> str:
    """One string normalized by ``steps`` (as the text is by :func:`normalized_map`)."""
    return normalized_map(s, steps)[0]


# ---------------------------------------------------------------------------- occurrences


#: the ASCII characters of words (letters, digits, underscore)
_ASCII_WORD = frozenset(string.ascii_letters + string.digits + "_")


def _is_word(char: str) -> bool:
    """As ``ner_spans`` reads words: a letter, digit or underscore, not a wide (East Asian) one."""
    if char.isascii():
        return char in _ASCII_WORD
    return char.isalnum() and unicodedata.east_asian_width(char) not in ("W", "F")


def word_occurrences(text: str, s: str) -> list:
    """The (start, end) of each occurrence of ``s`` in ``text`` at word boundaries (the places
    of ``ner_spans.occurrences``, found with fewer calls).

    >>> word_occurrences("Peter Peters met Peter", "Peter")
    [(0, 5), (17, 22)]
    """
    k = text.find(s)
    if k < 0:
        return []
    found, n, size = [], len(s), len(text)
    head, tail, word = _is_word(s[0]), _is_word(s[-1]), _ASCII_WORD
    while k >= 0:
        e = k + n
        if head and k:
            c = text[k - 1]
            if c in word or (not c.isascii() and _is_word(c)):
                k = text.find(s, k + 1)
                continue
        if tail and e < size:
            c = text[e]
            if c in word or (not c.isascii() and _is_word(c)):
                k = text.find(s, k + 1)
                continue
        found.append((k, e))
        k = text.find(s, k + 1)
    return found


def _with_marks(text: str, start: int, end: int, said: str) -> tuple:
    """A normalized match widened over the punctuation the string itself starts or ends with
    ("U.S." keeps its last full stop where the text has it).

    >>> _with_marks("the U.S. army", 4, 7, "u.s.")
    (4, 8)
    """
    tail = said[len(said.rstrip(string.punctuation)) :]
    if tail and text.startswith(tail, end):
        end += len(tail)
    elif not tail and text.startswith(".", end) and _abbreviation(text, start, end):
        end += 1
    head = said[: len(said) - len(said.lstrip(string.punctuation))]
    if head and start >= len(head) and text[start - len(head) : start] == head:
        start -= len(head)
    return start, end


def _abbreviation(text: str, start: int, end: int) -> bool:
    """Whether the full stop after ``text[start:end]`` ends it as an abbreviation ("U.S", "Co")
    rather than a sentence: its last word holds a full stop, or is a capitalised word of at most
    three letters followed by more of the sentence (a lower-case word) or by punctuation.

    >>> _abbreviation("Smith & Co. said", 0, 10), _abbreviation("met Ann. Then", 4, 7)
    (True, False)
    """
    word = text[start:end].rsplit(None, 1)[-1]
    if "." in word:
        return True
    rest = text[end + 1 :].lstrip()
    return len(word) <= 3 and word[:1].isupper() and (rest[:1].islower() or _is_punctuation(rest[:1] or "A"))


class _Document:
    """One text's occurrences of strings at a level, each string searched once."""

    def __init__(self, text: str, settings: Settings) -> None:
        self.text, self.settings = text, settings
        self.cache: dict = {}
        self.norm: Any = None

    def places(self, s: str) -> list:
        if s not in self.cache:
            self.cache[s] = self._search(s)
        return self.cache[s]

    def _search(self, s: str) -> list:
        level = self.settings.level
        if level == "exact":
            return word_occurrences(self.text, s)
        if self.norm is None:
            self.norm = normalized_map(self.text, self.settings.steps)
        norm, where = self.norm
        key = normalize_string(s, self.settings.steps)
        if not key:
            return []
        found = [
            _with_marks(self.text, where[k], where[k + len(key) - 1] + 1, s)
            for k, _ in word_occurrences(norm, key)
        ]
        if found or level != "fuzzy":
            return found
        return self._fuzzy(key)

    def _fuzzy(self, key: str) -> list:
        """Runs of words of the normalized text at least ``threshold`` similar to ``key``; the
        best of each overlapping group kept, in reading order."""
        norm, where = self.norm
        starts = [m.start() for m in re.finditer(r"\S+", norm)]
        ends = [m.end() for m in re.finditer(r"\S+", norm)]
        n = key.count(" ") + 1
        found = []
        threshold, size = self.settings.threshold, len(key)
        for width in (n - 1, n, n + 1):
            for a in range(len(starts) - width + 1 if width > 0 else 0):
                window = norm[starts[a] : ends[a + width - 1]]
                if 2 * min(size, len(window)) < threshold * (size + len(window)):
                    continue  # too short or too long to reach the threshold
                matcher = difflib.SequenceMatcher(None, key, window, autojunk=False)
                if matcher.quick_ratio() < threshold:
                    continue
                ratio = matcher.ratio()
                if ratio >= threshold:
                    found.append((-ratio, where[starts[a]], where[ends[a + width - 1] - 1] + 1))
        kept: list = []
        for _, s, e in sorted(found):
            if all(e <= ks or s >= ke for ks, ke in kept):
                kept.append((s, e))
        return sorted(kept)


# ---------------------------------------------------------------------------- placement


def _chain(candidates: list) -> dict:
    """The longest chain (then the most characters) of (item, start, end) with items and places
    both in order and not overlapping: one place per item of the chain."""
    n = len(candidates)
    best, back = [(1, e - s) for _, s, e in candidates], [-1] * n
    for c, (i, s, e) in enumerate(candidates):
        for d in range(c):
            j, ds, de = candidates[d]
            if j < i and de <= s:
                score = (best[d][0] + 1, best[d][1] + e - s)
                if score > best[c]:
                    best[c], back[c] = score, d
    chosen = {}
    c = max(range(n), key=best.__getitem__) if n else -1
    while c >= 0:
        chosen[candidates[c][0]] = candidates[c][1:]
        c = back[c]
    return chosen


def place_in_order(places: list) -> list:
    """One place (or None) per item, given each item's places in reading order.

    >>> place_in_order([[(0, 5), (10, 15)], [(0, 5), (10, 15)], [(3, 4)]])
    [(0, 5), (10, 15), None]
    >>> place_in_order([[(20, 25)], [(0, 5), (20, 25)]])
    [(20, 25), (0, 5)]
    """
    chosen: list = [None] * len(places)
    cursor, complete = 0, True
    for i, found in enumerate(places):
        for pick in found:
            if pick[0] >= cursor:
                chosen[i], cursor = pick, pick[1]
                break
        else:
            complete = complete and not found
    if complete:
        return chosen
    candidates = [(i, s, e) for i, found in enumerate(places) for s, e in found]
    chained: dict = _chain(candidates) if len(candidates) <= MAX_CHAIN else dict(enumerate(chosen))
    chosen = [chained.get(i) for i in range(len(places))]
    taken = {p for p in chosen if p is not None}
    for i, found in enumerate(places):
        if chosen[i] is None and found:
            apart = [p for p in found if all(p[1] <= t[0] or p[0] >= t[1] for t in taken)]
            if apart:  # never inside a span already placed
                chosen[i] = apart[0]
                taken.add(apart[0])
    return chosen


def _place_first(places: list) -> list:
    chosen, taken = [], set()
    for found in places:
        pick = next((p for p in found if p not in taken), None)
        chosen.append(pick)
        taken.add(pick)
    return chosen


def _check_offsets(item: Item, text: str, document: int) -> Any:
    start, end = item.start, item.end
    if start is None:
        return None
    if not 0 <= start < end <= len(text):
        raise ValueError(
            f"predictions[{document}] item {item.number} {item.text!r}: offsets [{start}, {end}) are"
            f" outside the text (length {len(text)}) or empty"
        )
    return start, end


def place_document(text: str, reading: Reading, schema: Any, settings: Settings, document: int = 0) -> list:
    """Every item of one output in exactly one :class:`Outcome`, in the order of the output."""
    if reading.dialect is None:
        return [Outcome(document, None, "unparseable", None, None, [], reading.problem)]
    items = offsets_on(reading, text) if reading.plain else reading.items
    out: list = [None] * len(items)
    todo: list = []
    mapping = settings.label_map
    for j, item in enumerate(items):
        label = item.label
        if mapping and isinstance(label, str):
            label = mapping.get(label, label)
        if item.problem:
            out[j] = Outcome(document, item.number, "unparseable", label, item.text, [], item.problem)
        elif schema is not None and label not in schema:
            out[j] = Outcome(document, item.number, "off_schema", label, item.text, [])
        else:
            todo.append((j, item, label))
    doc = _Document(text, settings)
    cache, search = doc.cache, doc.places
    places = [cache.get(s) or search(s) for s in [item.text.strip() for _, item, _ in todo]]
    for (j, item, label), place, found in zip(
        todo, _placements(todo, places, text, settings, document, doc), places
    ):
        if place:
            out[j] = Outcome(document, item.number, "placed", label, item.text, place)
        elif settings.placement == "offsets" and item.start is not None:
            out[j] = Outcome(
                document, item.number, "hallucinated", label, item.text, [], "not at its offsets"
            )
        else:
            out[j] = Outcome(
                document, item.number, "duplicate" if found else "hallucinated", label, item.text, []
            )
    return out


def _placements(todo: list, places: list, text: str, settings: Settings, document: int, doc: Any) -> list:
    """The places each item takes (a list per item; empty when none)."""
    if settings.placement == "every":
        seen, out = set(), []
        for (_, item, _), found in zip(todo, places):
            key = (
                normalize_string(item.text, settings.steps)
                if settings.level != "exact"
                else item.text.strip()
            )
            out.append([] if key in seen else list(found))
            seen.add(key)
        return out
    if settings.placement == "offsets":
        given = [_check_offsets(item, text, document) for _, item, _ in todo]
        rest = _place_first([f for f, g in zip(places, given) if g is None])
        out = []
        for (_, item, _), g in zip(todo, given):
            if g is None:
                pick = rest.pop(0)
                out.append([pick] if pick else [])
            else:
                out.append([g] if _matches(text[g[0] : g[1]], item.text, doc) else [])
        return out
    picks = place_in_order(places) if settings.placement == "order" else _place_first(places)
    return [[p] if p else [] for p in picks]


def _matches(found: str, said: str, doc: Any) -> bool:
    """Whether the text at an item's offsets is its string, at the document's matching level."""
    level, steps = doc.settings.level, doc.settings.steps
    if level == "exact" or found.strip() == said.strip():
        return found.strip() == said.strip()
    a, b = normalize_string(found, steps), normalize_string(said, steps)
    if level == "normalized" or a == b:
        return a == b
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= doc.settings.threshold


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


def plain_list_in_order(output: Any, text: str, schema: Any) -> Any:
    """The common case without building an :class:`Outcome` per item: a str holding exactly a
    JSON list of ``{"text": str, "type": str}`` whose items are all found in reading order,
    placed at the exact level. ((placed, hallucinated, off_schema), spans), or None when the
    general path (:func:`place_document`) must read it; both give the same counts and spans.

    >>> plain_list_in_order('[{"text": "Ann", "type": "PER"}, {"text": "Bo", "type": "PER"}]', "Ann met Ann", None)
    ((1, 1, 0), [{'label': 'PER', 'start': 0, 'end': 3}])
    """
    if type(output) is not str or output[:1] != "[":
        return None
    try:
        entities = _loads(output)
    except (ValueError, RecursionError):
        return None
    if type(entities) is not list:
        return None
    cache: dict = {}
    spans: list = []
    cursor, hallucinated, off = 0, 0, 0
    for e in entities:
        if type(e) is not dict or len(e) != 2:
            return None
        t, label = e.get("text"), e.get("type")
        if type(t) is not str or type(label) is not str or not label or label != label.strip():
            return None
        s = t.strip()
        if not s:
            return None
        if schema is not None and label not in schema:
            off += 1
            continue
        found = cache.get(s)
        if found is None:
            found = cache[s] = word_occurrences(text, s)
        for p in found:
            if p[0] >= cursor:
                break
        else:
            if found:
                return None  # out of reading order: the general path's chain decides
            hallucinated += 1
            continue
        cursor = p[1]
        spans.append({"label": label, "start": p[0], "end": p[1]})
    return (len(spans), hallucinated, off), spans


def place_corpus(predictions: list, texts: list, schema: Any, settings: Settings, dialect: str) -> tuple:
    """Every output read and placed: (outcome counts, placed spans per document, dialects read)."""
    fast = dialect in ("auto", "json_list") and settings[:2] == ("order", "exact") and not settings.label_map
    counts: dict = dict.fromkeys(ITEM_OUTCOMES, 0)
    spans: list = []
    dialects: Counter = Counter()
    for i, (output, text) in enumerate(zip(predictions, texts)):
        got = plain_list_in_order(output, text, schema) if fast else None
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
