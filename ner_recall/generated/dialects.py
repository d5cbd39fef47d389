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

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```", re.DOTALL)
_GOLLIE = re.compile(r"\b[A-Za-z_]\w*\(\s*span\s*=")
_GNER = re.compile(r"\((?:[BI]-[^()\s]*|O)\)")
_TAG = re.compile(r"<([A-Za-z][\w.-]*)>(.*?)</\1\s*>", re.DOTALL)
_ATTRIBUTE_TAG = re.compile(
    r"<([A-Za-z][\w.-]*)\s+(?:type|label|class|category)\s*=\s*[\"']([A-Za-z][\w.-]*)[\"']\s*>(.*?)</\1\s*>",
    re.DOTALL,
)
_ANY_TAG = re.compile(r"</?[A-Za-z][\w.-]*\s*>")
_MARKDOWN = re.compile(r"\[([^\[\]\n]+)\]\(([^()\n]+)\)")
_LINE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])?\s*([^:\n]{1,60}?)\s*:\s*(\S.*?)\s*$")


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
    """Read one model output (a str, or objects already parsed) in ``dialect`` (or ``"auto"``)."""
    if isinstance(output, str):
        if len(output) > MAX_OUTPUT:
            return Reading(None, [], f"longer than {MAX_OUTPUT} characters")
        return _read_string(output, dialect)
    if isinstance(output, (list, tuple, dict)):
        return _read_objects(output, dialect)
    return Reading(None, [], f"an output is a str or parsed JSON; got {type(output).__name__}")


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
    body = fenced.group(1) if fenced else output
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


def _literal(text: str) -> Any:
    """A Python literal written like JSON (single quotes, True, a trailing comma), read by
    ``ast.literal_eval`` (literals only: nothing is run), or None."""
    if len(text) > MAX_OUTPUT:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None


def _json_list(body: str) -> Any:
    value = find_json(body)
    if isinstance(value, dict):
        wrapped = [value[k] for k in WRAPPER_KEYS if isinstance(value.get(k), list)]
        if len(value) == 1 and wrapped:
            return Reading("json_list", _list_items(wrapped[0]))
        return None
    if value is None or (value and not any(isinstance(e, dict) for e in value)):
        return None  # a list of no objects (strings, numbers) is read by no dialect
    return Reading("json_list", _list_items(value))


def _json_dict(body: str, name: str = "json_dict") -> Any:
    value = find_json(body, (dict,))
    if value is None or any(isinstance(value.get(k), list) and len(value) == 1 for k in WRAPPER_KEYS):
        return None
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
        return Reading("gollie", [], "not a Python list of Name(span=...) objects")
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
            words, label = [*words, word], kind_label
    if words:
        items.append(Item(" ".join(words), label, number=len(items)))
    return Reading("gner", items)


def _inline(body: str, pattern: re.Pattern, name: str, text_group: int, label_group: int) -> Any:
    matches = list(pattern.finditer(body))
    if not matches:
        return None
    items, plain, last = [], [], 0
    for j, m in enumerate(matches):
        plain.append(body[last : m.start()])
        start = sum(map(len, plain))
        text = _ANY_TAG.sub("", m.group(text_group)) if name == "inline_tags" else m.group(text_group)
        plain.append(text)
        items.append(Item(text, m.group(label_group).strip(), start, start + len(text), j))
        last = m.end()
    plain.append(body[last:])
    return Reading(name, items), "".join(plain)


def _inline_tags(body: str) -> Any:
    body = _ATTRIBUTE_TAG.sub(lambda m: f"<{m.group(2)}>{m.group(3)}</{m.group(2)}>", body)
    found = _inline(body, _TAG, "inline_tags", 2, 1)
    return found and _with_plain(*found)


def _markdown(body: str) -> Any:
    found = _inline(body, _MARKDOWN, "markdown", 1, 2)
    return found and _with_plain(*found)


def _with_plain(reading: Reading, plain: str) -> Reading:
    """Offsets in the output without its marks; :func:`offsets_on` checks them against the text."""
    return Reading(reading.dialect, reading.items, "", plain)


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


def _lines(body: str) -> Any:
    """``type: entity`` lines; a line between the first and the last of them that is not one
    (and not blank) is an unparseable item, lines before and after are chatter."""
    read: list = []
    for line in body.splitlines():
        m = _LINE.match(line)
        read.append(None if not m or "{" in line else m)
    found = [k for k, m in enumerate(read) if m is not None]
    if not found:
        return None
    items: list = []
    lines = body.splitlines()
    for k in range(found[0], found[-1] + 1):
        if read[k] is None:
            if lines[k].strip():
                items.append(Item(None, None, number=len(items), problem="not a 'type: entity' line"))
            continue
        label, value = read[k].group(1), read[k].group(2)
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
    and, when every record has them, ``references``; errors name the file and line."""
    texts, outputs, gold = [], [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:
                raise ValueError(f"{path}, line {number}: not JSON ({error})") from None
            if (
                not isinstance(record, dict)
                or not isinstance(record.get("text"), str)
                or "output" not in record
            ):
                raise ValueError(f'{path}, line {number}: a record is {{"text": str, "output": ...}}')
            texts.append(record["text"])
            outputs.append(record["output"])
            gold.append(record.get("entities"))
    out = {"texts": texts, "predictions": outputs}
    if gold and all(g is not None for g in gold):
        out["references"] = gold
    elif any(g is not None for g in gold):
        missing = gold.index(None)
        raise ValueError(f"{path}: record {missing + 1} has no 'entities' but others do")
    return out
