"""HAREM's golden collection markup: read into texts and gold items, written back, and a system's
output over a changed text aligned to the gold text.

The markup (HAREM's directives, Linguateca 2005-2008): documents ``<DOC><DOCID>id</DOCID> ...
</DOC>``; entities ``<ORGANIZACAO TIPO="SUB" MORF="M,S">DCC</ORGANIZACAO>`` (first HAREM) or
``<EM ID="1" CATEG="ORGANIZACAO" TIPO="INSTITUICAO">...</EM>`` (second HAREM); a vague category or
type written ``PESSOA|ORGANIZACAO``; alternative segmentations ``<ALT>...|...</ALT>``. Each document
becomes its text (the characters between the tags, the first alternative's inside an ALT) and a list
of gold items for the span configs (``ner_doubt``'s forms): an entity ``{"label", "start", "end"}``
with character offsets, the label ``CATEGORY`` or ``CATEGORY:TYPE`` (read with
``type_separator=":"``), a list of labels when vague, ``"attributes": {"gender", "number"}`` from
MORF (``"?"`` kept, ``A|B`` as a list); an ALT as ``{"alternatives": [[...], [...]]}``.

>>> doc = read_harem_text('<DOC><DOCID>d1</DOCID>O <ORGANIZACAO TIPO="SUB" MORF="M,S">DCC</ORGANIZACAO> e '
...                       '<ALT><LOCAL>Rua da Prata</LOCAL>|Rua da <LOCAL>Prata</LOCAL></ALT></DOC>')
>>> doc.texts, doc.document_ids
(['O DCC e Rua da Prata'], ['d1'])
>>> doc.items[0][0]
{'label': 'ORGANIZACAO:SUB', 'start': 2, 'end': 5, 'attributes': {'gender': 'M', 'number': 'S'}}
>>> doc.items[0][1]["alternatives"]
[[{'label': 'LOCAL', 'start': 8, 'end': 20}], [{'label': 'LOCAL', 'start': 15, 'end': 20}]]
"""

import os
import re
from bisect import bisect_left
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ner_recall.core.collector import no_cycle_collection

TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z|]*)((?:\s+[A-Za-z_]+\s*=\s*\"[^\"]*\")*)\s*>")
ATTRIBUTE = re.compile(r"([A-Za-z_]+)\s*=\s*\"([^\"]*)\"")
DECLARATION = re.compile(r"<[?!][^>]*>")  # <?xml ...?>, <!DOCTYPE ...>: no text
#: the second HAREM's collection wrapper and paragraphs: tags without text of their own
IGNORED = {"colHAREM", "P"}
#: the second HAREM's document metadata: their content is not the document's text
METADATA = {"DOCID", "GENERO", "ORIGEM"}
ENTITY_ATTRIBUTES = {"TIPO", "MORF", "ID", "CATEG", "COMENT", "SUBTIPO", "CORREL", "COREL", "TIPOREL"}
MORF_FIELDS = ("gender", "number")


class Harem(NamedTuple):
    """Documents read from HAREM markup: per document its text, its id, its gold items, and the
    line where it starts."""

    texts: list
    document_ids: list
    items: list
    lines: list


class _Lines:
    """Line numbers of the positions of a text, asked in increasing order: each character is
    counted once over the whole reading (``scanned``), so that reading is linear in the text."""

    def __init__(self, source: str) -> None:
        self.source, self.pos, self.line, self.scanned = source, 0, 1, 0

    def at(self, pos: int) -> int:
        if pos < self.pos:
            raise ValueError(f"line of position {pos} asked after position {self.pos}")
        self.line += self.source.count("\n", self.pos, pos)
        self.scanned += pos - self.pos
        self.pos = pos
        return self.line


class _Doc:
    def __init__(self, doc_id, line):
        self.id, self.line = doc_id, line
        self.parts, self.length, self.items = [], 0, []
        self.open = None  # (names, attributes, start, line) of the entity being read
        self.alt = None  # per alternative [text parts, entities], with the ALT's line
        self.alt_length = 0  # the characters of the ALT's last alternative so far (0 outside an ALT)
        self.open_words = False  # whether the open entity holds a character that is not white space

    def add_text(self, text, line, where):
        if self.open is not None and not self.open_words:
            self.open_words = not text.isspace() and bool(text)
        if self.alt is None:
            self.parts.append(text)
            self.length += len(text)
            return
        pieces = text.split("|")
        for k, piece in enumerate(pieces):
            if k:
                if self.open is not None:
                    raise ValueError(f"{where(line)}: an entity is open across an ALT's '|'")
                self.alt["alternatives"].append([[], []])
                self.alt_length = 0
            self.alt["alternatives"][-1][0].append(piece)
            self.alt_length += len(piece)

    def offset(self):
        return self.length + self.alt_length  # alt_length is 0 outside an ALT

    def add_entity(self, entity):
        (self.items if self.alt is None else self.alt["alternatives"][-1][1]).append(entity)


def _labels(categories, types, where):
    cats = categories.split("|")
    if not types:
        return cats
    kinds = types.split("|")
    if len(kinds) == 1:
        return [f"{c}:{kinds[0]}" for c in cats]
    if len(kinds) != len(cats):
        raise ValueError(f"{where}: {len(cats)} categories {categories!r} but {len(kinds)} types {types!r}")
    return [f"{c}:{t}" for c, t in zip(cats, kinds)]


def _morf(value, where):
    fields = value.split(",")
    if len(fields) != 2 or not all(fields):
        raise ValueError(f"{where}: MORF={value!r} must be gender,number (e.g. 'M,S', '?,P')")
    return {name: (f.split("|") if "|" in f else f) for name, f in zip(MORF_FIELDS, fields)}


def _entity(names, attributes, start, end, where):
    categories = attributes.get("CATEG", "EM") if names == "EM" else names  # EM alone: identification only
    labels = _labels(categories, attributes.get("TIPO"), where)
    entity = {"label": labels[0] if len(labels) == 1 else labels, "start": start, "end": end}
    if "MORF" in attributes:
        entity["attributes"] = _morf(attributes["MORF"], where)
    return entity


class _Reader:
    """One reading of markup: the documents read, the one being read, and where the text is."""

    def __init__(self, source, name):
        self.source, self.name, self.lines = source, name, _Lines(source)
        self.docs, self.pos, self.reading_id, self.metadata = [], 0, None, None
        self.has_docs = re.search(r"<DOC[\s>]", source) is not None
        self.doc: _Doc | None = None if self.has_docs else _Doc(os.path.basename(name), 1)

    def where(self, line):
        return f"{self.name} line {line}"

    def text(self, text, line):
        """The text before a tag, to the document, the id or the metadata being read."""
        if self.reading_id is not None:
            self.reading_id.append(text)
        elif self.metadata is not None:
            pass
        elif self.doc is not None:
            self.doc.add_text(text, line, self.where)
        elif text.strip():
            raise ValueError(f"{self.where(line)}: text outside a <DOC>: {text.strip()[:30]!r}")

    def tag(self, closing, tag, attributes, line):
        if tag in IGNORED:
            return
        if tag in METADATA - {"DOCID"}:
            if self.doc is None:
                raise ValueError(f"{self.where(line)}: <{'/' if closing else ''}{tag}> outside a <DOC>")
            self.metadata = None if closing else tag
        elif tag == "DOC":
            self.doc_tag(closing, attributes, line)
        elif tag == "DOCID":
            if self.doc is None:
                raise ValueError(f"{self.where(line)}: <DOCID> outside a <DOC>")
            if not closing:
                self.reading_id = []
            else:
                self.doc.id, self.reading_id = "".join(self.reading_id or []).strip(), None
        elif self.doc is None:
            raise ValueError(f"{self.where(line)}: <{'/' if closing else ''}{tag}> outside a <DOC>")
        elif tag == "ALT":
            self.alt_tag(self.doc, closing, line)
        elif not tag.isupper():  # '|' is not cased: PESSOA|LOCAL is upper case
            raise ValueError(f"{self.where(line)}: unknown tag <{tag}> (categories are upper case)")
        elif not closing:
            self.open_entity(self.doc, tag, attributes, line)
        else:
            self.close_entity(self.doc, tag, line)

    def doc_tag(self, closing, attributes, line):
        if closing:
            if self.doc is None:
                raise ValueError(f"{self.where(line)}: </DOC> without <DOC>")
            self.docs.append(_finish(self.doc, self.where, len(self.docs) + 1))
            self.doc = None
            return
        if self.doc is not None and self.has_docs:
            raise ValueError(f"{self.where(line)}: <DOC> inside a document (line {self.doc.line})")
        self.doc = _Doc(attributes.get("DOCID"), line)

    def alt_tag(self, doc: _Doc, closing, line):
        if closing:
            _close_alt(doc, line, self.where)
            return
        if doc.alt is not None:
            raise ValueError(f"{self.where(line)}: ALT inside an ALT (line {doc.alt['line']})")
        if doc.open is not None:
            raise ValueError(f"{self.where(line)}: ALT inside an entity")
        doc.alt = {"line": line, "alternatives": [[[], []]]}

    def open_entity(self, doc: _Doc, tag, attributes, line):
        unknown = sorted(set(attributes) - ENTITY_ATTRIBUTES)
        if unknown:
            raise ValueError(f"{self.where(line)}: unknown attribute {unknown[0]!r} of <{tag}>")
        if doc.open is not None:
            raise ValueError(
                f"{self.where(line)}: <{tag}> inside <{doc.open[0]}> (line {doc.open[3]}):"
                " entities do not nest"
            )
        doc.open, doc.open_words = (tag, attributes, doc.offset(), line), False

    def close_entity(self, doc: _Doc, tag, line):
        if doc.open is None or doc.open[0] != tag:
            opened = f"<{doc.open[0]}> (line {doc.open[3]})" if doc.open else "no entity"
            raise ValueError(f"{self.where(line)}: </{tag}> closes {opened}")
        names, attrs, start, first = doc.open
        end = doc.offset()
        if end <= start:
            raise ValueError(f"{self.where(first)}: <{tag}> marks no text")
        if not doc.open_words:  # white space names no word
            raise ValueError(f"{self.where(first)}: <{tag}> marks only white space")
        doc.add_entity(_entity(names, attrs, start, end, self.where(first)))
        doc.open = None

    def read(self):
        for match in TAG.finditer(self.source):
            line = self.lines.at(match.start())
            self.text(self.source[self.pos : match.start()], line)
            self.pos = match.end()
            self.tag(match.group(1) == "/", match.group(2), dict(ATTRIBUTE.findall(match.group(3))), line)
        return self.end()

    def end(self):
        tail, last = self.source[self.pos :], self.lines.at(len(self.source))
        if self.doc is not None:
            self.doc.add_text(tail, last, self.where)
            if self.has_docs:
                raise ValueError(f"{self.where(self.doc.line)}: <DOC> not closed")
            self.docs.append(_finish(self.doc, self.where, 1))
        elif tail.strip():
            raise ValueError(f"{self.where(last)}: text outside a <DOC>")
        _check_unique(self.docs, self.name)
        return Harem(*(list(column) for column in zip(*self.docs)))  # a reading has a document at least


def _check_unique(docs, name):
    """Refuse a document id given twice: documents pair by id, a second one would be lost."""
    first: dict[str, int] = {}
    for _, doc_id, _, line in docs:
        if doc_id in first:
            raise ValueError(
                f"{name}: document id {doc_id!r} at line {first[doc_id]} and again at line {line};"
                " document ids must be unique"
            )
        first[doc_id] = line


def read_harem_text(source: str, name: str = "<text>") -> Harem:
    """:class:`Harem` of markup given as a str; errors name ``name`` and the line. A document
    without an id is ``doc<k>``, ``k`` its position in the file from 1; an id given twice (or a
    default id equal to a given one) is a ``ValueError`` naming both lines. Time linear in the
    length of the markup."""
    source = DECLARATION.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    with no_cycle_collection():
        return _Reader(source, name).read()


def _close_alt(doc, line, where):
    if doc.alt is None:
        raise ValueError(f"{where(line)}: </ALT> without <ALT>")
    if doc.open is not None:
        raise ValueError(f"{where(line)}: <{doc.open[0]}> (line {doc.open[3]}) not closed inside the ALT")
    alternatives = doc.alt["alternatives"]
    if len(alternatives) < 2:
        raise ValueError(f"{where(doc.alt['line'])}: an ALT needs two alternatives separated by '|'")
    texts = ["".join(parts) for parts, _ in alternatives]
    if len(set(texts)) > 1:
        raise ValueError(
            f"{where(doc.alt['line'])}: the ALT's alternatives differ in their text ({texts[0]!r} and "
            f"{next(t for t in texts if t != texts[0])!r}); they may differ in markup only"
        )
    doc.alt, doc.alt_length = None, 0
    if any(entities for _, entities in alternatives):
        doc.items.append({"alternatives": [entities for _, entities in alternatives]})
    doc.parts.append(texts[0])
    doc.length += len(texts[0])


def _finish(doc, where, position):
    if doc.open is not None:
        raise ValueError(f"{where(doc.open[3])}: <{doc.open[0]}> not closed")
    if doc.alt is not None:
        raise ValueError(f"{where(doc.alt['line'])}: <ALT> not closed")
    return "".join(doc.parts), doc.id or f"doc{position}", doc.items, doc.line


def read_harem(path: str | os.PathLike) -> Harem:
    """:class:`Harem` of a file of HAREM markup (UTF-8, or Latin-1 as HAREM's files were)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        source = data.decode("latin-1")
    return read_harem_text(source, os.path.basename(path))


def is_harem(path: str | os.PathLike) -> bool:
    """Whether a file looks like HAREM markup: ``<DOC>`` and a category or ``<EM`` tag."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536).decode("utf-8", errors="replace")
    except OSError:
        return False
    return bool(re.search(r"<DOC[\s>]", head)) and bool(
        re.search(r"<(EM|(?!DOC)[A-Z]{4,}(\|[A-Z]+)*)[\s>]", head)
    )


# ---------------------------------------------------------------------------- writing


#: a category the markup can carry: upper-case ASCII letters, not a structural tag
CATEGORY = re.compile(r"[A-Z]+")
RESERVED = {"DOC", "ALT"} | METADATA | {t for t in IGNORED if t.isupper()}
#: what a TIPO or MORF value cannot hold (it would split, end the value or open a tag)
VALUE_BREAKERS = ('"', "|", "<", ",")
#: text that the reader would take for markup
MARKUP_IN_TEXT = re.compile(r"<[A-Za-z/?!]")


def _label_problem(label):
    """Why a label (or vague list of labels) cannot be written so as to read back, or None."""
    labels = label if isinstance(label, list) else [label]
    if isinstance(label, list) and len(label) < 2:
        return "a vague label lists two types or more"
    if not all(isinstance(x, str) for x in labels):
        return "a label is a str"
    cats = [x.partition(":")[0] for x in labels]
    bad = next((c for c in cats if not CATEGORY.fullmatch(c) or c in RESERVED), None)
    if bad is not None:
        return f"the category {bad!r} is not a tag name (upper-case ASCII letters, not {sorted(RESERVED)})"
    typed = [":" in x for x in labels]
    if any(typed) and not all(typed):
        return "the types of a vague label are all given or all absent"
    types = [x.partition(":")[2] for x in labels]
    if any(typed) and not all(t and not any(b in t for b in VALUE_BREAKERS) for t in types):
        return f"a type is not empty and holds none of {list(VALUE_BREAKERS)}"
    return None


def _morf_problem(morf):
    if not isinstance(morf, dict) or set(morf) != set(MORF_FIELDS):
        return "attributes are {'gender', 'number'} (MORF)"
    for value in morf.values():
        values = value if isinstance(value, list) else [value]
        if isinstance(value, list) and len(value) < 2:
            return "a MORF value given as a list lists two or more"
        if not all(isinstance(v, str) and v and not any(b in v for b in VALUE_BREAKERS) for v in values):
            return f"a MORF value is a non-empty str holding none of {list(VALUE_BREAKERS)}"
    return None


def _entity_problem(entity, text):
    if not isinstance(entity, dict) or not {"label", "start", "end"} <= set(entity) <= {
        "label",
        "start",
        "end",
        "attributes",
    }:
        return "an entity has the keys label, start, end and optionally attributes"
    start, end = entity["start"], entity["end"]
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        return "offsets are ints with 0 <= start < end <= the text's length"
    if text[start:end].isspace():
        return "the entity's text is white space only: it names no word"
    problem = _label_problem(entity["label"])
    if problem is None and "attributes" in entity:
        problem = _morf_problem(entity["attributes"])
    return problem


def _in_order(entities):
    return all(a["end"] <= b["start"] for a, b in zip(entities, entities[1:]))


def _item_problem(item, text):
    if not (isinstance(item, dict) and "alternatives" in item):
        return _entity_problem(item, text)
    alternatives = item["alternatives"]
    if set(item) != {"alternatives"} or not isinstance(alternatives, list) or len(alternatives) < 2:
        return "an ALT group is {'alternatives': [two lists of entities or more]}"
    if not any(alternatives) or not all(isinstance(alt, list) for alt in alternatives):
        return "an ALT group's alternatives are lists, one at least not empty"
    for alt in alternatives:
        problem = next((p for p in (_entity_problem(e, text) for e in alt) if p), None)
        if problem is not None:
            return problem
        if not _in_order(alt):
            return "the entities of an alternative are in text order and do not overlap"
    lo, hi = _extent(item)
    if "|" in text[lo:hi]:
        return "the text of an ALT group holds no '|'"
    return None


def _extent(item):
    if "alternatives" in item:
        spans = [e for alt in item["alternatives"] for e in alt]
        return min(e["start"] for e in spans), max(e["end"] for e in spans)
    return item["start"], item["end"]


def _check_writable(k, text, doc_id, items):
    """Refuse what the markup cannot carry so that it reads back the same, naming where."""
    where = f"write_harem: document {k} ({doc_id!r})"
    if not isinstance(doc_id, str) or not doc_id or doc_id != doc_id.strip() or MARKUP_IN_TEXT.search(doc_id):
        raise ValueError(f"{where}: an id is a non-empty str without surrounding white space or markup")
    if not isinstance(text, str) or MARKUP_IN_TEXT.search(text):
        raise ValueError(f"{where}: the text holds markup ('<' then a letter, '/', '?' or '!')")
    for j, item in enumerate(items):
        problem = _item_problem(item, text)
        if problem is not None:
            raise ValueError(f"{where}, item {j} {item!r}: {problem}")
    if not _in_order([dict(zip(("start", "end"), _extent(item))) for item in items]):
        raise ValueError(f"{where}: the items are in text order and do not overlap")


def _open_tag(entity):
    labels = entity["label"] if isinstance(entity["label"], list) else [entity["label"]]
    cats = [label.partition(":")[0] for label in labels]
    types = [label.partition(":")[2] for label in labels]
    tag = "|".join(cats)
    attributes = ""
    if any(types):
        attributes += f' TIPO="{"|".join(types) if len(set(types)) > 1 else types[0]}"'
    morf = entity.get("attributes")
    if morf is not None:
        attributes += (
            ' MORF="'
            + ",".join("|".join(morf[k]) if isinstance(morf[k], list) else morf[k] for k in MORF_FIELDS)
            + '"'
        )
    return f"<{tag}{attributes}>", f"</{tag}>"


def _marked(text, entities, start, end):
    out, pos = [], start
    for e in entities:
        opening, closing = _open_tag(e)
        out += [text[pos : e["start"]], opening, text[e["start"] : e["end"]], closing]
        pos = e["end"]
    out.append(text[pos:end])
    return "".join(out)


def write_harem(harem: Harem) -> str:
    """The markup of a :class:`Harem` (first HAREM's entity tags): ``read_harem_text`` of it gives
    the same texts, ids and items. What the markup cannot carry so is a ``ValueError`` naming the
    document and the item: a category not of upper-case ASCII letters (``LOC2``, ``ORG-X``), a type
    or MORF value holding ``"``, ``|``, ``<`` or ``,``, a vague label mixing typed and untyped
    labels, text that reads as a tag, items out of text order or overlapping."""
    out = []
    for k, (text, doc_id, items) in enumerate(zip(harem.texts, harem.document_ids, harem.items)):
        _check_writable(k, text, doc_id, items)
        pieces, pos = [], 0
        for item in items:
            lo, hi = _extent(item)
            if "alternatives" in item:
                pieces += [_marked(text, [], pos, lo), "<ALT>"]
                pieces.append("|".join(_marked(text, alt, lo, hi) for alt in item["alternatives"]))
                pieces.append("</ALT>")
            else:
                pieces.append(_marked(text, [item], pos, hi))
            pos = hi
        pieces.append(text[pos:])
        out.append(f"<DOC><DOCID>{doc_id}</DOCID>{''.join(pieces)}</DOC>\n")
    return "".join(out)


# ---------------------------------------------------------------------------- alignment


def _squeeze(text):
    """The text without white space, and for each of its characters the offset in ``text``."""
    at = [k for k, c in enumerate(text) if not c.isspace()]
    return "".join(text[k] for k in at), at


#: up to this many distinct strings of one length are searched for one by one (``str.find``);
#: more are found together by one pass of rolling hashes over the text
FEW_NEEDLES = 32
_BASE = 0x9E3779B97F4A7C15  # odd: invertible modulo 2**64
_MASK = (1 << 64) - 1
_TABLE = 1 << 22  # the filter's slots


class _Occurrences:
    """Where each string occurs in a text (overlapping occurrences too), found once per string
    and looked up by bisection: the n-th occurrence, and how many start before a position.

    :meth:`prepare` finds many strings at once: those of one length by a rolling hash of every
    window of that length (numpy, modulo 2**64, each hit checked against the text), so that the
    cost is per distinct length, ``O(n log n)``, not per string."""

    def __init__(self, text: str) -> None:
        self.found: dict[str, list[int]] = {}
        self.text = text
        self.prefix: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # prefix sums, powers, inverses

    def of(self, needle: str) -> list:
        starts = self.found.get(needle)
        if starts is None:
            starts, k = [], self.text.find(needle)
            while k >= 0:
                starts.append(k)
                k = self.text.find(needle, k + 1)
            self.found[needle] = starts
        return starts

    def before(self, needle: str, pos: int) -> int:
        return bisect_left(self.of(needle), pos)

    def nth(self, needle: str, n: int) -> int:
        starts = self.of(needle)
        return starts[n] if n < len(starts) else -1

    def prepare(self, needles: Iterable[str]) -> None:
        """Find every string of ``needles`` not yet found, by length."""
        by_length: dict[int, list[str]] = {}
        for needle in set(needles) - set(self.found):
            by_length.setdefault(len(needle), []).append(needle)
        for length, group in by_length.items():
            if len(group) > FEW_NEEDLES and length <= len(self.text):
                self._hashed(length, group)

    def _hashed(self, length, group):
        prefix, powers, inverse = self._prefix()
        n = len(self.text) - length + 1
        keys = (prefix[length:] - prefix[:n]) * powers[:n]  # window k: sum of c[k + j] / BASE**j
        wanted: dict[int, list[str]] = {}
        for needle in group:
            wanted.setdefault(_key(needle, inverse), []).append(needle)
            self.found[needle] = []
        sought = np.sort(np.array(list(wanted), dtype=np.uint64))
        table = np.zeros(_TABLE, dtype=bool)  # a filter on the low bits first: a gather per window
        table[(sought & np.uint64(_TABLE - 1)).astype(np.int64)] = True
        at = np.flatnonzero(table[(keys & np.uint64(_TABLE - 1)).astype(np.int64)])
        slot = np.minimum(np.searchsorted(sought, keys[at]), len(sought) - 1)
        at = at[sought[slot] == keys[at]]
        for k, key in zip(at.tolist(), keys[at].tolist()):
            window = self.text[k : k + length]
            if window in self.found and window in wanted[key]:
                self.found[window].append(k)

    def _prefix(self):
        if self.prefix is None:
            n = len(self.text)
            codes = (
                np.frombuffer(self.text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(
                    np.uint64
                )
                + 1
            )
            inverse = np.cumprod(np.full(n + 1, pow(_BASE, -1, 1 << 64), dtype=np.uint64))
            inverse[1:], inverse[0] = inverse[:-1].copy(), 1
            powers = np.cumprod(np.full(n + 1, _BASE, dtype=np.uint64))
            powers[1:], powers[0] = powers[:-1].copy(), 1
            prefix = np.zeros(n + 1, dtype=np.uint64)
            np.cumsum(codes * inverse[:n], out=prefix[1:])
            self.prefix = prefix, powers, inverse
        return self.prefix


def _key(needle, inverse):
    """The rolling-hash key of a string: the sum of its codes + 1, the j-th over BASE**j."""
    total = 0
    for j, c in enumerate(needle):
        total = (total + (ord(c) + 1) * int(inverse[j])) & _MASK
    return total


class _Alignment:
    """The two texts without white space, each character's offset, and their occurrence tables.
    When the two agree without white space (spaces added or removed only), the n-th occurrence of
    a string in one is where it is in the other: no lookup."""

    def __init__(self, gold_text: str, system_text: str) -> None:
        self.gold_sq, self.gold_at = _squeeze(gold_text)
        self.sys_sq, self.sys_at = _squeeze(system_text)
        self.same = self.gold_sq == self.sys_sq
        self.gold_occ, self.sys_occ = _Occurrences(self.gold_sq), _Occurrences(self.sys_sq)

    def squeezed(self, start: int, end: int) -> tuple:
        """(lo, hi) in the squeezed system text of the system's [start, end)."""
        return bisect_left(self.sys_at, start), bisect_left(self.sys_at, end)

    def prepare(self, spans: Iterable[tuple[int, int]]) -> None:
        """Find at once the strings that the spans (of the system text) will look up."""
        if not self.same:
            needles = [self.sys_sq[lo:hi] for lo, hi in map(lambda s: self.squeezed(*s), spans)]
            self.sys_occ.prepare(needles)
            self.gold_occ.prepare(needles)

    def place(self, start: int, end: int) -> tuple[int, int] | None:
        """(start, end) in the gold text of the system's [start, end), or None."""
        lo, hi = self.squeezed(start, end)
        if hi <= lo:
            return None
        if self.same:
            k = lo
        else:
            needle = self.sys_sq[lo:hi]
            k = self.gold_occ.nth(needle, self.sys_occ.before(needle, lo))
            if k < 0:
                return None
        return self.gold_at[k], self.gold_at[k + hi - lo - 1] + 1


def _words(text, start, end):
    return [(m.start() + start, m.end() + start) for m in re.finditer(r"\w+|[^\w\s]", text[start:end])]


def align_to_gold(gold_text: str, system_text: str, entities: list) -> tuple:
    """(entities placed on ``gold_text``, entities that could not be placed) for ``entities`` given
    in character offsets of ``system_text``, a changed copy of the gold text (spaces added or
    removed, numbers split, contractions expanded). An entity's characters, white space aside, are
    looked up by their numbered occurrence (the n-th "Prata" of the system's text is the n-th of the
    gold's); failing that, its first and last words by theirs, so that a contraction expanded
    inside it ("do" written "de o") still places it. Nothing is dropped: the rest is returned.

    Time: linear in the texts when they agree but for white space; otherwise the strings looked up
    are found in each text once per distinct length (:class:`_Occurrences`), and each entity costs
    a bisection.

    >>> align_to_gold("Vivo no Porto, 1000 anos.", "Vivo em o Porto , 1 000 anos .",
    ...               [{"label": "LOCAL", "start": 10, "end": 15}, {"label": "VALOR", "start": 18, "end": 23}])
    ([{'label': 'LOCAL', 'start': 8, 'end': 13}, {'label': 'VALOR', 'start': 15, 'end': 19}], [])
    """
    if gold_text == system_text:
        return list(entities), []
    alignment = _Alignment(gold_text, system_text)
    alignment.prepare([(e["start"], e["end"]) for e in entities])
    spans = [alignment.place(e["start"], e["end"]) for e in entities]
    words = {k: _words(system_text, e["start"], e["end"]) for k, e in enumerate(entities) if spans[k] is None}
    alignment.prepare([w for found in words.values() if found for w in (found[0], found[-1])])
    for k, found in words.items():
        if found:
            first, last = alignment.place(*found[0]), alignment.place(*found[-1])
            if first and last and first[1] <= last[0]:  # the first word before the last
                spans[k] = (first[0], last[1])
    placed = [dict(e, start=span[0], end=span[1]) for e, span in zip(entities, spans) if span is not None]
    return placed, [e for e, span in zip(entities, spans) if span is None]


def system_entities(items: list, name: str, document_id: str) -> list[dict]:
    """A system's items as plain entities: a system marks no ALT and no vague label."""
    out = []
    for item in items:
        if "alternatives" in item or isinstance(item["label"], list):
            raise ValueError(
                f"{name}, document {document_id}: a system's output holds an ALT or a vague label"
                f" ({item!r}); only the gold may be in doubt"
            )
        out.append(dict(item))
    return out


def read_harem_pair(gold_path: str | os.PathLike, system_path: str | os.PathLike) -> tuple[Harem, list, list]:
    """(gold :class:`Harem`, system entities per gold document placed on its text, entities that
    could not be placed per document). Documents pair by id; a system document whose text differs
    from the gold's is aligned (:func:`align_to_gold`)."""
    gold, system = read_harem(gold_path), read_harem(system_path)
    by_id = dict(zip(system.document_ids, zip(system.texts, system.items)))
    missing = [d for d in gold.document_ids if d not in by_id]
    if missing:
        raise ValueError(f"{os.path.basename(system_path)}: no document {missing[0]!r} of the gold")
    known = set(gold.document_ids)
    extra = [d for d in system.document_ids if d not in known]
    if extra:
        raise ValueError(f"{os.path.basename(system_path)}: document {extra[0]!r} is not in the gold")
    predictions, lost = [], []
    for doc_id, text in zip(gold.document_ids, gold.texts):
        sys_text, items = by_id[doc_id]
        placed, unplaced = align_to_gold(
            text, sys_text, system_entities(items, os.path.basename(system_path), doc_id)
        )
        predictions.append(placed)
        lost.append(unplaced)
    return gold, predictions, lost
