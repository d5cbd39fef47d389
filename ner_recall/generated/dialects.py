"""Entity lists as language models write them, read into items (``docs/generated.md``).

A model's raw output (a string, or objects already parsed from it) is read in one of the
:data:`DIALECTS` into :class:`Item` s: a surface string, a type, and the character offsets when
the output gives them. Nothing in an output is executed: JSON is read with ``json``, GoLLIE's
Python-like objects with ``ast.parse`` (the tree is walked, never evaluated).

* ``json_list``: ``[{"text": "John", "type": "PER"}, ...]`` (JSON, or a Python literal written
  like it: single quotes, a trailing comma); the string under ``text``,
  ``span``, ``mention``, ``entity``, ``name``, ``value`` or ``extraction_text``, the type under
  ``type``, ``label``, ``entity_type``, ``category``, ``class``, ``tag`` or
  ``extraction_class``; offsets as ``start``/``end`` or langextract's ``char_interval``
  (``{"start_pos", "end_pos"}``). A wrapper ``{"entities": [...]}`` (or ``extractions``) is read too.
* ``json_dict``: ``{"PER": ["John", "Mary"], "LOC": []}``, type to strings.
* ``uniner``: UniNER's per-type answers, ``{"PER": '["John", "Mary"]'}``: each type's answer
  as the model wrote it (a JSON list of strings, possibly in chatter).
* ``lines``: ``PER: John`` one entity a line (bullets allowed; lines without a colon are chatter).
* ``inline_tags``: the text rewritten with ``<PER>John</PER>`` (or ``<entity type="PER">John</entity>``); when the text without its tags
  is the document's text, each item carries its offsets.
* ``markdown``: the text rewritten with ``[John](PER)``; offsets as for inline tags.
* ``gner``: GNER's ``John(B-PER) Smith(I-PER) said(O)``, entities joined from B-/I- words.
* ``gollie``: ``[Person(span="John"), Location(span="Paris")]``.

JSON (and the other dialects) inside a code fence, and chatter around it, are found.

>>> [(i.text, i.label) for i in read_output('Sure! ```json\\n[{"text": "John", "type": "PER"}]\\n```').items]
[('John', 'PER')]
>>> read_output("<PER>John</PER> met <LOC>Ann</LOC>").items[1]
Item(text='Ann', label='LOC', start=9, end=12, number=1, problem='')
>>> read_output('[Person(span="John"), Location(span=__import__("os"))]').items[1].problem
'not a call Name(span="...") with a string'
"""

import ast
import json
import re
import string
from bisect import bisect_left
from functools import lru_cache
from typing import Any, NamedTuple

#: what normalized matching drops, here and in the peers' normalizers (SQuAD's, UniNER's)
ARTICLES = re.compile(r"\b(?:a|an|the)\b")
PUNCTUATION = frozenset(string.punctuation)

#: the dialects an output may be read in (``output_format``), ``"auto"`` trying them in this order
DIALECTS = ("json_list", "json_dict", "uniner", "gollie", "gner", "inline_tags", "markdown", "lines")
#: the keys of an object's surface string and of its type, first present wins
TEXT_KEYS = ("text", "span", "mention", "entity", "name", "value", "extraction_text")
LABEL_KEYS = ("type", "label", "entity_type", "category", "class", "tag", "extraction_class")
#: the keys of a wrapper object around a list of entities
WRAPPER_KEYS = ("entities", "extractions", "named_entities", "results")
#: outputs longer than this are not read (unparseable): nothing inflates without bound
MAX_OUTPUT = 1_000_000
#: outputs of more items than this are not placed (unparseable, the number in the detail)
MAX_ITEMS = 10_000

#: a code fence; its language tag and the spaces after it are taken whole (a lookahead and its
#: backreference: no backtracking into them, so an unclosed fence is scanned once)
_FENCE = re.compile(r"```(?=([A-Za-z0-9_+-]*))\1(?=([ \t]*))\2\n?(?P<body>.*?)```", re.DOTALL)
_GOLLIE = re.compile(r"\b[A-Za-z_]\w*\(\s*span\s*=")
_GNER = re.compile(r"\((?:[BI]-[^()\s]*|O)\)")
_OPEN = re.compile(r"<([A-Za-z][\w.-]*)>")
_ATTRIBUTE_OPEN = re.compile(
    r"<([A-Za-z][\w.-]*)\s+(?:type|label|class|category)\s*=\s*[\"']([A-Za-z][\w.-]*)[\"']\s*>"
)
_CLOSE = re.compile(r"</([A-Za-z][\w.-]*)\s*>")
_ANY_TAG = re.compile(r"</?[A-Za-z][\w.-]*\s*>")
_MARKDOWN = re.compile(r"\[([^\[\]\n]+)\]\(([^()\n]+)\)")
_BULLET = re.compile(r"[-*\u2022]|\d+[.)]")
#: the longest type a ``type: entity`` line may have
MAX_LINE_LABEL = 60


class Item(NamedTuple):
    """One predicted item: its surface string, type, offsets (when given), its number in the
    output, and why it could not be read (``problem``; empty when it was)."""

    text: Any
    label: Any
    start: Any = None
    end: Any = None
    number: int = 0
    problem: str = ""


class Reading(NamedTuple):
    """An output read: the dialect it was read in (None when none read it), its items, and why
    the whole output is unparseable (``problem``; empty when it was read)."""

    dialect: Any
    items: list
    problem: str = ""
    plain: str = ""  # inline dialects: the output without its marks


def check_dialect(output_format: str) -> str:
    """``output_format`` checked: ``"auto"`` or one of :data:`DIALECTS`."""
    if output_format != "auto" and output_format not in DIALECTS:
        raise ValueError(f"output_format must be 'auto' or one of {list(DIALECTS)}; got {output_format!r}")
    return output_format


def read_output(output: Any, dialect: str = "auto") -> Reading:
    """Read one model output (a str, or objects already parsed) in ``dialect`` (or ``"auto"``):
    in time linear in its length; at most :data:`MAX_OUTPUT` characters and :data:`MAX_ITEMS`
    items (beyond, unparseable)."""
    if isinstance(output, str):
        if len(output) > MAX_OUTPUT:
            return Reading(None, [], f"longer than {MAX_OUTPUT:,} characters")
        reading = _read_string(output, dialect)
    elif isinstance(output, (list, tuple, dict)):
        reading = _read_objects(output, dialect)
    else:
        return Reading(None, [], f"an output is a str or parsed JSON; got {type(output).__name__}")
    if len(reading.items) > MAX_ITEMS:
        return Reading(
            reading.dialect,
            [],
            f"{len(reading.items):,} items: more than {MAX_ITEMS:,}, the most an output holds",
        )
    return reading


def _read_objects(output: Any, dialect: str) -> Reading:
    if isinstance(output, dict):
        wrapped = next((output[k] for k in WRAPPER_KEYS if isinstance(output.get(k), list)), None)
        if wrapped is not None and len(output) == 1 and dialect in ("auto", "json_list"):
            return Reading("json_list", _list_items(wrapped))
        if dialect in ("auto", "json_dict", "uniner"):
            return Reading("uniner" if dialect == "uniner" else "json_dict", _dict_items(output))
    elif dialect in ("auto", "json_list"):
        return Reading("json_list", _list_items(output))
    return Reading(None, [], f"a {type(output).__name__} is not read as {dialect}")


def _read_string(output: str, dialect: str) -> Reading:
    fenced = _FENCE.search(output)
    body = fenced.group("body") if fenced else output
    order = DIALECTS if dialect == "auto" else (dialect,)
    for name in order:
        reading = _READERS[name](body)
        if reading is not None:
            return reading
    if fenced:  # the fence held something else: read the whole output
        for name in order:
            reading = _READERS[name](output)
            if reading is not None:
                return reading
    named = "no dialect reads it" if dialect == "auto" else f"not read as {dialect!r}"
    return Reading(None, [], named)


# ---------------------------------------------------------------------------- JSON


def _entity_like(value: Any) -> bool:
    """A list that could hold entities: empty, or with an object or a string in it."""
    return not isinstance(value, list) or not value or any(isinstance(e, (dict, str)) for e in value)


def find_json(text: str, kinds: tuple = (list, dict)) -> Any:
    """The first JSON value of one of ``kinds`` in ``text`` (chatter around it skipped; a list of
    no object or string, such as a footnote's ``[1]``, is chatter too), or None.

    >>> find_json('Here: {"PER": ["Ann"]} done')
    {'PER': ['Ann']}
    >>> find_json('Note [1]: see [{"text": "Ann", "type": "PER"}]')
    [{'text': 'Ann', 'type': 'PER'}]
    """
    stripped = text.strip()
    if stripped[:1] in "[{":
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = _literal(stripped)
        if value is not None:
            return value if isinstance(value, kinds) else None
    decoder, tries = json.JSONDecoder(), 0
    for found in re.finditer(r"[\[{]", text):
        tries += 1
        if tries > 50:
            break
        try:
            value = decoder.raw_decode(text, found.start())[0]
        except (ValueError, RecursionError):
            continue
        if isinstance(value, kinds) and _entity_like(value):
            return value
    first = min((k for k in (text.find("["), text.find("{")) if k >= 0), default=-1)
    if first >= 0:  # a Python literal in chatter: from the first bracket to its last partner
        value = _literal(text[first : text.rfind("]" if text[first] == "[" else "}") + 1])
        if isinstance(value, kinds):
            return value
    return None


@lru_cache(maxsize=4)
def _literal(text: str) -> Any:
    """A Python literal written like JSON (single quotes, True, a trailing comma), read by
    ``ast.literal_eval`` (literals only: nothing is run), or None; the last few kept, as the
    JSON dialects each look for one in the same output (callers only read the value)."""
    if len(text) > MAX_OUTPUT:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None


def _entity_object(value: dict) -> bool:
    """An object of one entity (a string under a text key, a type under a type key), not a map
    of types to strings."""
    return isinstance(_first(value, TEXT_KEYS), str) and isinstance(_first(value, LABEL_KEYS), str)


_LIST_OF_OBJECTS = re.compile(r"\[\s*\{")


def _cut_list(body: str) -> Any:
    """An unparseable reading when the first bracket of ``body`` opens a list of objects that
    neither JSON nor a Python literal reads (a generation cut off: its first objects must not be
    read as something else), else None.

    >>> _cut_list('[{"text": "John", "type": "PER"}, {"text": "Ann"').problem
    'a list of objects that does not parse (cut off?)'
    """
    first = min((k for k in (body.find("["), body.find("{")) if k >= 0), default=-1)
    if first < 0 or not _LIST_OF_OBJECTS.match(body, first):
        return None
    try:
        json.JSONDecoder().raw_decode(body, first)
        return None
    except (ValueError, RecursionError):
        pass
    end = body.rfind("]")
    if end > first and _literal(body[first : end + 1]) is not None:
        return None
    return Reading("json_list", [], "a list of objects that does not parse (cut off?)")


def _json_list(body: str) -> Any:
    value = find_json(body)
    if isinstance(value, dict):
        wrapped = [value[k] for k in WRAPPER_KEYS if isinstance(value.get(k), list)]
        if len(value) == 1 and wrapped:
            return Reading("json_list", _list_items(wrapped[0]))
        if _entity_object(value):  # one object alone, or the first of a list cut off
            return _cut_list(body) or Reading("json_list", _list_items([value]))
        return _cut_list(body)
    if value is None:
        return _cut_list(body)
    if value and not any(isinstance(e, dict) for e in value):
        return None  # a list of no objects (strings, numbers) is read by no dialect
    return Reading("json_list", _list_items(value))


def _json_dict(body: str, name: str = "json_dict") -> Any:
    value = find_json(body, (dict,))
    if value is None or any(isinstance(value.get(k), list) and len(value) == 1 for k in WRAPPER_KEYS):
        return None
    if _entity_object(value):
        return None  # one entity's object is no map of types to strings
    return Reading(name, _dict_items(value))


def _first(entity: dict, keys: tuple) -> Any:
    return next((entity[k] for k in keys if k in entity), None)


def _offsets(entity: dict) -> tuple:
    interval = entity.get("char_interval")
    if isinstance(interval, dict):
        return interval.get("start_pos"), interval.get("end_pos")
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        return interval[0], interval[1]
    return entity.get("start"), entity.get("end")


def _object_item(entity: Any, j: int) -> Item:
    if not isinstance(entity, dict):
        return Item(None, None, None, None, j, "not an object with a string and a type")
    text = entity.get("text")
    if text is None:
        text = _first(entity, TEXT_KEYS)
    label = entity.get("type")
    if label is None:
        label = _first(entity, LABEL_KEYS)
        if label is None and "text" in entity and isinstance(entity.get("entity"), str):
            label = entity["entity"]  # {"text": "John", "entity": "PER"}
    if not isinstance(text, str) or not text.strip():
        return Item(None, label, None, None, j, f"no string under any of {list(TEXT_KEYS)}")
    if not isinstance(label, str) or not label.strip():
        return Item(text, None, None, None, j, f"no type under any of {list(LABEL_KEYS)}")
    if "start" not in entity and "end" not in entity and "char_interval" not in entity:
        return Item(text, label.strip(), None, None, j)
    start, end = _offsets(entity)
    if (start is None) != (end is None) or not all(
        v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in (start, end)
    ):
        return Item(text, label, None, None, j, "offsets must be two integers")
    return Item(text, label.strip(), start, end, j)


def _list_items(entities: Any) -> list:
    return [_object_item(entity, j) for j, entity in enumerate(entities)]


def _answer_strings(answer: Any) -> Any:
    """A type's answer as strings: a list of str, or a str holding a JSON list (or one string)."""
    if isinstance(answer, str):
        value = find_json(answer, (list,))
        if value is None:
            return [answer] if answer.strip() and "[" not in answer else None
        answer = value
    if isinstance(answer, (list, tuple)):
        return answer
    return None


def _dict_items(value: dict) -> list:
    items: list = []
    for label, answer in value.items():
        strings = _answer_strings(answer)
        if strings is None or not isinstance(label, str):
            items.append(Item(None, label, number=len(items), problem="not a list of strings for a type"))
            continue
        for s in strings:
            ok = isinstance(s, str) and s.strip()
            problem = "" if ok else "not a non-empty string"
            items.append(Item(s if ok else None, label.strip(), number=len(items), problem=problem))
    return items


# ---------------------------------------------------------------------------- other dialects


def _gollie(body: str) -> Any:
    if not _GOLLIE.search(body):
        return None
    start = body.find("[")
    source = body[start : body.rfind("]") + 1] if start >= 0 else body.strip()
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Reading("gollie", [], "not a Python list of Name(span=...) objects (cut off?)")
    elements = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    return Reading("gollie", [_gollie_item(e, j) for j, e in enumerate(elements)])


def _gollie_item(node: ast.AST, j: int) -> Item:
    """``Name(span="...")`` (or ``Name("...")``): the class name is the type; nothing is run."""
    problem = 'not a call Name(span="...") with a string'
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return Item(None, None, number=j, problem=problem)
    values = [k.value for k in node.keywords if k.arg == "span"] or node.args[:1]
    extra = len(node.args) + len(node.keywords) != 1
    if extra or not values or not isinstance(values[0], ast.Constant) or not isinstance(values[0].value, str):
        return Item(None, node.func.id, number=j, problem=problem)
    return Item(values[0].value, node.func.id, number=j)


def _gner(body: str) -> Any:
    marks = list(_GNER.finditer(body))
    if not marks:
        return None
    items: list = []
    words: list = []
    label, previous = None, 0
    for mark in marks:
        word, tag = body[previous : mark.start()].strip(), mark.group()[1:-1]
        previous = mark.end()
        if not word:
            continue
        kind, kind_label = tag[0], tag[2:]
        if words and (kind != "I" or kind_label != label):
            items.append(Item(" ".join(words), label, number=len(items)))
            words, label = [], None
        if kind != "O":
            words.append(word)
            label = kind_label
    if words:
        items.append(Item(" ".join(words), label, number=len(items)))
    return Reading("gner", items)


def _elements(body: str, opening: re.Pattern) -> list:
    """(opening match, closing start, closing end) of each ``<name ...>text</name>`` of ``body``,
    as ``re.finditer`` reads ``<name ...>(.*?)</name\\s*>`` (leftmost, not overlapping, each
    opening closed by the first closing of its name after it) in n log n: every closing tag
    found once, then a binary search per opening for the first of its name after it.

    >>> [(m.group(1), s, e) for m, s, e in _elements("<A><B>x</A> <A>y", _OPEN)]
    [('A', 7, 11)]
    """
    closings: dict = {}
    for m in _CLOSE.finditer(body):
        closings.setdefault(m.group(1), ([], []))
        closings[m.group(1)][0].append(m.start())
        closings[m.group(1)][1].append(m.end())
    out, done = [], 0
    for m in opening.finditer(body):
        if m.start() < done or m.group(1) not in closings:
            continue
        starts, ends = closings[m.group(1)]
        k = bisect_left(starts, m.end())
        if k < len(starts):
            out.append((m, starts[k], ends[k]))
            done = ends[k]
    return out


def _inline(body: str, found: list, name: str) -> Any:
    """Items of (start, end, text, label) spans of ``body``, with offsets in ``body`` without
    its marks (the marks of each item replaced by its text)."""
    if not found:
        return None
    items, plain, last, at = [], [], 0, 0
    for j, (start, end, text, label) in enumerate(found):
        plain.append(body[last:start])
        at += start - last
        plain.append(text)
        items.append(Item(text, label.strip(), at, at + len(text), j))
        at += len(text)
        last = end
    plain.append(body[last:])
    return Reading(name, items, "", "".join(plain))


def _inline_tags(body: str) -> Any:
    named = _elements(body, _ATTRIBUTE_OPEN)
    if named:  # <e type="PER">John</e> read as <PER>John</PER>
        parts, last = [], 0
        for m, s, e in named:
            parts += [body[last : m.start()], f"<{m.group(2)}>", body[m.end() : s], f"</{m.group(2)}>"]
            last = e
        body = "".join([*parts, body[last:]])
    spans = [
        (m.start(), e, _ANY_TAG.sub("", body[m.end() : s]), m.group(1)) for m, s, e in _elements(body, _OPEN)
    ]
    return _inline(body, spans, "inline_tags")


def _markdown(body: str) -> Any:
    spans = [(m.start(), m.end(), m.group(1), m.group(2)) for m in _MARKDOWN.finditer(body)]
    return _inline(body, spans, "markdown")


def offsets_on(reading: Reading, text: str) -> list:
    """The items of an inline reading with their offsets kept only when the output without its
    marks is ``text`` (then they are the text's offsets); otherwise without offsets."""
    if reading.dialect not in ("inline_tags", "markdown"):
        return reading.items
    if reading.plain == text:
        return reading.items
    shift = reading.plain.find(text) if text and len(reading.plain) > len(text) else -1
    if shift >= 0 and reading.plain.strip() == text.strip():
        return [i._replace(start=i.start - shift, end=i.end - shift) for i in reading.items]
    return [i._replace(start=None, end=None) for i in reading.items]


def type_line(line: str) -> Any:
    """(type, entity) of a ``type: entity`` line (a bullet ``-``, ``*``, ``\u2022``, ``1.`` or
    ``1)`` before it allowed; the type of 1 to :data:`MAX_LINE_LABEL` characters without a
    colon; no ``{`` in the line), or None; in time linear in the line.

    >>> type_line("  - PER: John Smith "), type_line("Entities:"), type_line("1. LOC: Paris: France")
    (('PER', 'John Smith'), None, ('LOC', 'Paris: France'))
    """
    colon = line.find(":")
    if colon < 0 or "{" in line:
        return None
    label, value = line[:colon].strip(), line[colon + 1 :].strip()
    bullet = _BULLET.match(label)
    if bullet and label[bullet.end() :].strip():
        label = label[bullet.end() :].strip()
    if not value or not 1 <= len(label) <= MAX_LINE_LABEL:
        return None
    return label, value


def _lines(body: str) -> Any:
    """``type: entity`` lines; a line between the first and the last of them that is not one
    (and not blank) is an unparseable item, lines before and after are chatter."""
    lines = body.splitlines()
    read = [type_line(line) for line in lines]
    found = [k for k, m in enumerate(read) if m is not None]
    if not found:
        return None
    items: list = []
    for k in range(found[0], found[-1] + 1):
        if read[k] is None:
            if lines[k].strip():
                items.append(Item(None, None, number=len(items), problem="not a 'type: entity' line"))
            continue
        label, value = read[k]
        strings = _answer_strings(value) if value.startswith("[") else [value]
        for s in strings or [None]:
            ok = isinstance(s, str) and s.strip()
            problem = "" if ok else "not a non-empty string"
            items.append(Item(s.strip() if ok else None, label, number=len(items), problem=problem))
    return Reading("lines", items)


_READERS = {
    "json_list": _json_list,
    "json_dict": _json_dict,
    "uniner": lambda body: _json_dict(body, "uniner"),
    "gollie": _gollie,
    "gner": _gner,
    "inline_tags": _inline_tags,
    "markdown": _markdown,
    "lines": _lines,
}


def read_generated(path: str) -> dict:
    """A JSONL file of ``{"text": str, "output": str or JSON}`` records (optionally
    ``"entities"``: the gold, a list of ``{"label", "start", "end"}``): ``texts``, ``predictions``
    and, when every record has them, ``references``; errors (a ``ValueError``) name the file and
    the line: a missing file or a folder, a line that is not UTF-8, not JSON or nested deeper than
    JSON is read here, a record of another shape."""
    texts, outputs, gold = [], [], []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        raise ValueError(f"{path}: cannot read it ({error.strerror or error})") from None
    number = 0
    with handle:
        try:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    record = _record(line, path, number)
                    texts.append(record["text"])
                    outputs.append(record["output"])
                    gold.append(record.get("entities"))
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}, line {number + 1}: not UTF-8 text ({error.reason})") from None
    out = {"texts": texts, "predictions": outputs}
    if gold and all(g is not None for g in gold):
        out["references"] = gold
    elif any(g is not None for g in gold):
        missing = gold.index(None)
        raise ValueError(f"{path}: record {missing + 1} has no 'entities' but others do")
    return out


def _record(line: str, path: str, number: int) -> dict:
    """One line of :func:`read_generated` read as a record."""
    try:
        record = json.loads(line)
    except RecursionError:
        raise ValueError(f"{path}, line {number}: nested deeper than JSON is read here") from None
    except ValueError as error:
        raise ValueError(f"{path}, line {number}: not JSON ({error})") from None
    if not isinstance(record, dict) or not isinstance(record.get("text"), str) or "output" not in record:
        raise ValueError(f'{path}, line {number}: a record is {{"text": str, "output": ...}}')
    return record
