"""Generated items put back on their document's text: one :class:`Outcome` per item.

Placement (``placement``): ``"order"`` aligns the list monotonically onto the occurrences
(each item after the one before it, at word boundaries, never inside a span already placed;
when the list leaves reading order, the longest chain of items in order is kept and the rest
go to their first free occurrence); ``"first"``: each string on its first free occurrence;
``"every"``: each string on all its occurrences (as set scorers read a list); ``"offsets"``: the
item's own ``start``/``end``, checked against the text.

Every step is n log n in the items and the occurrences: per string a sorted list of its
occurrences, a binary search for the first one after a place, and a pointer to its first one
still free; the chain is a longest increasing chain over a Fenwick tree, searched exactly up to
:data:`MAX_CHAIN` candidate places a document.

>>> place_in_order([[(0, 5), (10, 15)], [(0, 5), (10, 15)], [(3, 4)]])
[(0, 5), (10, 15), None]
>>> place_in_order([[(20, 25)], [(0, 5), (20, 25)]])
[(20, 25), (0, 5)]
"""

from bisect import bisect_left, bisect_right
from json import loads as _loads
from typing import Any, NamedTuple

from ner_recall.generated.dialects import MAX_ITEMS, Item, Reading, offsets_on
from ner_recall.generated.matching import STEPS, Occurrences, normalize_string

PLACEMENTS = ("order", "first", "every", "offsets")
#: the order-placement chain is searched exactly up to this many candidate places a document
#: (an item's candidates are its string's occurrences); beyond, the greedy alignment is kept
MAX_CHAIN = 100_000


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


# ---------------------------------------------------------------------------- order


class _Starts(dict):
    """The starts of each list of places (lists shared by items of one string are one entry)."""

    def of(self, found: list) -> list:
        key = id(found)
        if key not in self:
            self[key] = (found, [p[0] for p in found])  # the list itself kept: its id stays its own
        return self[key][1]


def _chain(places: list) -> dict:
    """The longest chain (then the most characters; then the earliest candidates) of places,
    one per item, with items and places both in order and not overlapping: item -> place.
    Candidates are taken item by item; a Fenwick tree over their ends gives the best chain
    ending at or before a start in log time."""
    flat = [(i, s, e) for i, found in enumerate(places) for s, e in found]
    ends = sorted({e for _, _, e in flat})
    tree: list = [None] * (len(ends) + 1)
    best: list = []
    back: list = []
    c = 0
    for found in places:
        first = c
        for s, e in found:
            top, q = None, bisect_right(ends, s)  # chains ending at or before s
            while q > 0:
                if tree[q] is not None and (top is None or tree[q] > top):
                    top = tree[q]
                q -= q & -q
            best.append((1, e - s) if top is None else (top[0] + 1, top[1] + e - s))
            back.append(-1 if top is None else -top[2])
            c += 1
        for d in range(first, c):  # an item's candidates join once the item is done
            q, key = bisect_left(ends, flat[d][2]) + 1, (*best[d], -d)
            while q < len(tree):
                if tree[q] is None or key > tree[q]:
                    tree[q] = key
                q += q & -q
    chosen: dict = {}
    c = max(range(len(flat)), key=lambda d: (best[d], -d)) if flat else -1
    while c >= 0:
        chosen[flat[c][0]] = flat[c][1:]
        c = back[c]
    return chosen


class _Taken:
    """Places taken, apart from each other, among the places that may be taken: one added, and
    whether a place overlaps one taken, in log time (a Fenwick tree over the starts counts the
    places taken before a point; the last of them is the only one that may reach past it)."""

    def __init__(self, starts: list) -> None:
        self.keys = sorted(set(starts))
        self.tree = [0] * (len(self.keys) + 1)
        self.ends: dict = {}
        self.top = 1 << max(len(self.keys).bit_length() - 1, 0)

    def add(self, place: tuple) -> None:
        self.ends[place[0]] = place[1]
        q = bisect_left(self.keys, place[0]) + 1
        while q < len(self.tree):
            self.tree[q] += 1
            q += q & -q

    def overlaps(self, place: tuple) -> bool:
        q, before = bisect_left(self.keys, place[1]), 0  # the places taken starting before its end
        while q > 0:
            before += self.tree[q]
            q -= q & -q
        if not before:
            return False
        at, step = 0, self.top  # the rank of the last of them: the before-th start taken
        while step:
            if at + step < len(self.tree) and self.tree[at + step] < before:
                at += step
                before -= self.tree[at]
            step >>= 1
        return self.ends[self.keys[at]] > place[0]


def _fill(places: list, chosen: list) -> list:
    """Each item without a place given its first occurrence overlapping no place taken (the
    places taken are apart; a string's occurrences once overlapped stay so: a pointer each)."""
    lists = {id(found): found for found in places}
    taken = _Taken([p[0] for found in lists.values() for p in found])
    for place in chosen:
        if place is not None:
            taken.add(place)
    pointer: dict = {}
    for i, found in enumerate(places):
        if chosen[i] is not None or not found:
            continue
        k = pointer.get(id(found), 0)
        while k < len(found) and taken.overlaps(found[k]):
            k += 1
        pointer[id(found)] = k
        if k < len(found):  # never inside a span already placed
            chosen[i] = found[k]
            taken.add(found[k])
    return chosen


def place_in_order(places: list) -> list:
    """One place (or None) per item, given each item's places in reading order."""
    chosen: list = [None] * len(places)
    index = _Starts()
    cursor, complete = 0, True
    for i, found in enumerate(places):
        k = bisect_left(index.of(found), cursor)
        if k < len(found):
            chosen[i], cursor = found[k], found[k][1]
        else:
            complete = complete and not found
    if complete:
        return chosen
    if sum(map(len, places)) <= MAX_CHAIN:
        chained = _chain(places)
        chosen = [chained.get(i) for i in range(len(places))]
    return _fill(places, chosen)


def _place_first(places: list) -> list:
    """Each item on its string's first occurrence not taken before (a pointer per string)."""
    chosen: list = []
    taken: set = set()
    pointer: dict = {}
    for found in places:
        k = pointer.get(id(found), 0)
        while k < len(found) and found[k] in taken:
            k += 1
        pointer[id(found)] = k
        pick = found[k] if k < len(found) else None
        chosen.append(pick)
        taken.add(pick)
    return chosen


# ---------------------------------------------------------------------------- a document


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
    if reading.dialect is None or reading.problem:
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
    doc = Occurrences(text, settings.level, settings.steps, settings.threshold, document)
    places = [doc.places(item.text.strip()) for _, item, _ in todo]
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


def _placements(
    todo: list, places: list, text: str, settings: Settings, document: int, doc: Occurrences
) -> list:
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
        rest = iter(_place_first([f for f, g in zip(places, given) if g is None]))
        out = []
        for (_, item, _), g in zip(todo, given):
            if g is None:
                pick = next(rest)
                out.append([pick] if pick else [])
            else:
                out.append([g] if doc.matches(text[g[0] : g[1]], item.text) else [])
        return out
    picks = place_in_order(places) if settings.placement == "order" else _place_first(places)
    return [[p] if p else [] for p in picks]


def plain_list_in_order(output: Any, text: str, schema: Any, document: int = 0) -> Any:
    """The common case without building an :class:`Outcome` per item: a str holding exactly a
    JSON list of ``{"text": str, "type": str}`` (at most :data:`MAX_ITEMS`) whose items are all
    found in reading order, placed at the exact level. ((placed, hallucinated, off_schema),
    spans), or None when the general path (:func:`place_document`) must read it; both give the
    same counts and spans.

    >>> plain_list_in_order('[{"text": "Ann", "type": "PER"}, {"text": "Bo", "type": "PER"}]', "Ann met Ann", None)
    ((1, 1, 0), [{'label': 'PER', 'start': 0, 'end': 3}])
    """
    if type(output) is not str or output[:1] != "[":
        return None
    try:
        entities = _loads(output)
    except (ValueError, RecursionError):
        return None
    if type(entities) is not list or len(entities) > MAX_ITEMS:
        return None
    doc = Occurrences(text, "exact", document=document)
    cache: dict = {}  # each string's places and their starts
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
        entry = cache.get(s)
        if entry is None:
            found = doc.places(s)
            entry = cache[s] = (found, [p[0] for p in found])
        found, starts = entry
        k = bisect_left(starts, cursor)
        if k == len(found):
            if found:
                return None  # out of reading order: the general path's chain decides
            hallucinated += 1
            continue
        cursor = found[k][1]
        spans.append({"label": label, "start": found[k][0], "end": cursor})
    return (len(spans), hallucinated, off), spans
