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
from typing import NamedTuple

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


class _Doc:
    def __init__(self, doc_id, line):
        self.id, self.line = doc_id, line
        self.parts, self.length, self.items = [], 0, []
        self.open = None  # (names, attributes, start, line) of the entity being read
        self.alt = None  # per alternative [text parts, entities], with the ALT's line

    def add_text(self, text, line, where):
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
            self.alt["alternatives"][-1][0].append(piece)

    def offset(self):
        if self.alt is None:
            return self.length
        return self.length + len("".join(self.alt["alternatives"][-1][0]))

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
    categories = attributes.get("CATEG", names) if names == "EM" else names
    if names == "EM" and "CATEG" not in attributes:
        categories = "EM"  # identification only
    labels = _labels(categories, attributes.get("TIPO"), where)
    entity = {"label": labels[0] if len(labels) == 1 else labels, "start": start, "end": end}
    if "MORF" in attributes:
        entity["attributes"] = _morf(attributes["MORF"], where)
    return entity


def read_harem_text(source, name="<text>"):
    """:class:`Harem` of markup given as a str; errors name ``name`` and the line."""

    def where(line):
        return f"{name} line {line}"

    source = DECLARATION.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    docs, doc, pos, reading_id, metadata = [], None, 0, None, None
    has_docs = re.search(r"<DOC[\s>]", source) is not None
    if not has_docs:
        doc = _Doc(os.path.basename(name), 1)
    for match in TAG.finditer(source):
        line = source.count("\n", 0, match.start()) + 1
        text = source[pos : match.start()]
        pos = match.end()
        if reading_id is not None:
            reading_id.append(text)
        elif metadata is not None:
            pass
        elif doc is not None:
            doc.add_text(text, line, where)
        elif text.strip():
            raise ValueError(f"{where(line)}: text outside a <DOC>: {text.strip()[:30]!r}")
        closing, tag, raw = match.group(1) == "/", match.group(2), match.group(3)
        attributes = dict(ATTRIBUTE.findall(raw))
        if tag in IGNORED:
            continue
        if tag in METADATA - {"DOCID"}:
            metadata = None if closing else tag
            continue
        if tag == "DOC":
            if not closing:
                if doc is not None and has_docs:
                    raise ValueError(f"{where(line)}: <DOC> inside a document (line {doc.line})")
                doc = _Doc(attributes.get("DOCID"), line)
            else:
                docs.append(_finish(doc, line, where))
                doc = None
        elif tag == "DOCID":
            if doc is None:
                raise ValueError(f"{where(line)}: <DOCID> outside a <DOC>")
            if not closing:
                reading_id = []
            else:
                doc.id, reading_id = "".join(reading_id or []).strip(), None
        elif doc is None:
            raise ValueError(f"{where(line)}: <{'/' if closing else ''}{tag}> outside a <DOC>")
        elif tag == "ALT":
            if not closing:
                if doc.alt is not None:
                    raise ValueError(f"{where(line)}: ALT inside an ALT (line {doc.alt['line']})")
                if doc.open is not None:
                    raise ValueError(f"{where(line)}: ALT inside an entity")
                doc.alt = {"line": line, "alternatives": [[[], []]]}
            else:
                _close_alt(doc, line, where)
        elif not tag.replace("|", "").isupper():
            raise ValueError(f"{where(line)}: unknown tag <{tag}> (categories are upper case)")
        elif not closing:
            unknown = sorted(set(attributes) - ENTITY_ATTRIBUTES)
            if unknown:
                raise ValueError(f"{where(line)}: unknown attribute {unknown[0]!r} of <{tag}>")
            if doc.open is not None:
                raise ValueError(
                    f"{where(line)}: <{tag}> inside <{doc.open[0]}> (line {doc.open[3]}): entities do not nest"
                )
            doc.open = (tag, attributes, doc.offset(), line)
        else:
            if doc.open is None or doc.open[0] != tag:
                opened = f"<{doc.open[0]}> (line {doc.open[3]})" if doc.open else "no entity"
                raise ValueError(f"{where(line)}: </{tag}> closes {opened}")
            names, attrs, start, first = doc.open
            end = doc.offset()
            if end <= start:
                raise ValueError(f"{where(first)}: <{tag}> marks no text")
            doc.add_entity(_entity(names, attrs, start, end, where(first)))
            doc.open = None
    tail = source[pos:]
    if doc is not None:
        doc.add_text(tail, source.count("\n") + 1, where)
        if has_docs:
            raise ValueError(f"{where(doc.line)}: <DOC> not closed")
        docs.append(_finish(doc, source.count("\n") + 1, where))
    elif tail.strip():
        raise ValueError(f"{where(source.count(chr(10)) + 1)}: text outside a <DOC>")
    return Harem([d[0] for d in docs], [d[1] for d in docs], [d[2] for d in docs], [d[3] for d in docs])


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
    doc.alt = None
    if any(entities for _, entities in alternatives):
        doc.items.append({"alternatives": [entities for _, entities in alternatives]})
    doc.parts.append(texts[0])
    doc.length += len(texts[0])


def _finish(doc, line, where):
    if doc is None:
        raise ValueError(f"{where(line)}: </DOC> without <DOC>")
    if doc.open is not None:
        raise ValueError(f"{where(doc.open[3])}: <{doc.open[0]}> not closed")
    if doc.alt is not None:
        raise ValueError(f"{where(doc.alt['line'])}: <ALT> not closed")
    return "".join(doc.parts), doc.id or f"doc{len(doc.parts)}", doc.items, doc.line


def read_harem(path):
    """:class:`Harem` of a file of HAREM markup (UTF-8, or Latin-1 as HAREM's files were)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        source = data.decode("latin-1")
    return read_harem_text(source, os.path.basename(path))


def is_harem(path):
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


def _open_tag(entity):
    labels = entity["label"] if isinstance(entity["label"], list) else [entity["label"]]
    cats = [label.partition(":")[0] for label in labels]
    types = [label.partition(":")[2] for label in labels]
    tag = "|".join(dict.fromkeys(cats))
    attributes = ""
    if any(types):
        attributes += f' TIPO="{"|".join(types) if len(set(types)) > 1 else types[0]}"'
    morf = entity.get("attributes")
    if morf:
        attributes += (
            ' MORF="'
            + ",".join("|".join(morf[k]) if isinstance(morf[k], list) else morf[k] for k in MORF_FIELDS)
            + '"'
        )
    return f"<{tag}{attributes}>", f"</{tag}>"


def _marked(text, entities, start, end):
    out, pos = [], start
    for e in sorted(entities, key=lambda e: e["start"]):
        opening, closing = _open_tag(e)
        out += [text[pos : e["start"]], opening, text[e["start"] : e["end"]], closing]
        pos = e["end"]
    out.append(text[pos:end])
    return "".join(out)


def write_harem(harem):
    """The markup of a :class:`Harem` (first HAREM's entity tags): ``read_harem_text`` of it gives
    the same texts, ids and items."""
    out = []
    for text, doc_id, items in zip(harem.texts, harem.document_ids, harem.items):
        pieces, pos = [], 0
        for item in sorted(items, key=_item_start):
            if "alternatives" in item:
                spans = [e for alt in item["alternatives"] for e in alt]
                lo, hi = min(e["start"] for e in spans), max(e["end"] for e in spans)
                pieces += [_marked(text, [], pos, lo), "<ALT>"]
                pieces.append("|".join(_marked(text, alt, lo, hi) for alt in item["alternatives"]))
                pieces.append("</ALT>")
            else:
                lo, hi = item["start"], item["end"]
                pieces.append(_marked(text, [item], pos, hi))
            pos = hi
        pieces.append(text[pos:])
        out.append(f"<DOC><DOCID>{doc_id}</DOCID>{''.join(pieces)}</DOC>\n")
    return "".join(out)


def _item_start(item):
    if "alternatives" in item:
        return min(e["start"] for alt in item["alternatives"] for e in alt)
    return item["start"]


# ---------------------------------------------------------------------------- alignment


def _squeeze(text):
    """The text without white space, and for each of its characters the offset in ``text``."""
    at = [k for k, c in enumerate(text) if not c.isspace()]
    return "".join(text[k] for k in at), at


def _occurrence(haystack, needle, before):
    """How many times ``needle`` starts in ``haystack`` before ``before``."""
    count, k = 0, haystack.find(needle)
    while 0 <= k < before:
        count, k = count + 1, haystack.find(needle, k + 1)
    return count


def _nth(haystack, needle, n):
    k = -1
    for _ in range(n + 1):
        k = haystack.find(needle, k + 1)
        if k < 0:
            return -1
    return k


def _place(gold_sq, gold_at, sys_sq, sys_at, start, end):
    """(start, end) in the gold text of the system's [start, end), or None."""
    lo = next((i for i, k in enumerate(sys_at) if k >= start), len(sys_at))
    hi = next((i for i, k in enumerate(sys_at) if k >= end), len(sys_at))
    needle = sys_sq[lo:hi]
    if not needle:
        return None
    k = _nth(gold_sq, needle, _occurrence(sys_sq, needle, lo))
    if k >= 0:
        return gold_at[k], gold_at[k + len(needle) - 1] + 1
    return None


def _words(text, start, end):
    return [(m.start() + start, m.end() + start) for m in re.finditer(r"\w+|[^\w\s]", text[start:end])]


def align_to_gold(gold_text, system_text, entities):
    """(entities placed on ``gold_text``, entities that could not be placed) for ``entities`` given
    in character offsets of ``system_text``, a changed copy of the gold text (spaces added or
    removed, numbers split, contractions expanded). An entity's characters, white space aside, are
    looked up by their numbered occurrence (the n-th "Prata" of the system's text is the n-th of the
    gold's); failing that, its first and last words by theirs, so that a contraction expanded
    inside it ("do" written "de o") still places it. Nothing is dropped: the rest is returned.

    >>> align_to_gold("Vivo no Porto, 1000 anos.", "Vivo em o Porto , 1 000 anos .",
    ...               [{"label": "LOCAL", "start": 10, "end": 15}, {"label": "VALOR", "start": 18, "end": 23}])
    ([{'label': 'LOCAL', 'start': 8, 'end': 13}, {'label': 'VALOR', 'start': 15, 'end': 19}], [])
    """
    if gold_text == system_text:
        return list(entities), []
    gold_sq, gold_at = _squeeze(gold_text)
    sys_sq, sys_at = _squeeze(system_text)
    placed, lost = [], []
    for entity in entities:
        span = _place(gold_sq, gold_at, sys_sq, sys_at, entity["start"], entity["end"])
        if span is None:
            words = _words(system_text, entity["start"], entity["end"])
            if words:
                first = _place(gold_sq, gold_at, sys_sq, sys_at, *words[0])
                last = _place(gold_sq, gold_at, sys_sq, sys_at, *words[-1])
                if first and last and first[0] < last[1]:
                    span = (first[0], last[1])
        if span is None:
            lost.append(entity)
        else:
            placed.append(dict(entity, start=span[0], end=span[1]))
    return placed, lost


def system_entities(items, name, document_id):
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


def read_harem_pair(gold_path, system_path):
    """(gold :class:`Harem`, system entities per gold document placed on its text, entities that
    could not be placed per document). Documents pair by id; a system document whose text differs
    from the gold's is aligned (:func:`align_to_gold`)."""
    gold, system = read_harem(gold_path), read_harem(system_path)
    by_id = dict(zip(system.document_ids, zip(system.texts, system.items)))
    missing = [d for d in gold.document_ids if d not in by_id]
    if missing:
        raise ValueError(f"{os.path.basename(system_path)}: no document {missing[0]!r} of the gold")
    extra = [d for d in system.document_ids if d not in set(gold.document_ids)]
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
