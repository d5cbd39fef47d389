"""Entities as annotation tools and libraries write them, read into texts and span dicts for the
span configs: brat standoff, Label Studio's JSON export, doccano and Prodigy JSONL, spaCy's
``DocBin`` and ``Doc``, and CoNLL-U with NER tags. Each reader returns an :class:`Annotated`:
per example its text, its entities ``{"label", "start", "end"}`` (character offsets, end exclusive;
``"fragments"`` for a discontinuous entity, ``"attributes"`` where the tool has them), its id, and
the line (or record) it came from; errors name the file and line. Nothing is dropped without a
word: what a reader leaves out is listed in docs/formats.md.

>>> import json, os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write(json.dumps({"text": "Ada Lovelace", "label": [[0, 12, "PER"]]}) + "\\n")
>>> read_doccano(path).entities
[[{'label': 'PER', 'start': 0, 'end': 12}]]
"""

import json
import os
import zlib
from collections import defaultdict, deque
from typing import NamedTuple

from ner_recall.core.decoding import tags_to_spans

FORMATS = ("brat", "label-studio", "doccano", "prodigy", "spacy", "conllu")
#: the optional package each format needs, with its install line (None: none)
PACKAGES: dict[str, tuple[str, str] | None] = {
    "brat": None,
    "label-studio": None,
    "doccano": None,
    "prodigy": None,
    "spacy": ("spaCy", "pip install spacy"),
    "conllu": None,
}


class MissingPackage(ModuleNotFoundError):
    """A format's optional package is not installed; the message names it and its install line."""

    def __init__(self, format: str, path: str | os.PathLike) -> None:
        package, install = PACKAGES[format] or (format, f"pip install {format}")
        super().__init__(
            f"{os.path.basename(path)}: reading a {format} file needs {package}, which is not installed: {install}"
        )
        self.name, self.install = package, install


def check_file(path: str | os.PathLike, folder: bool = False) -> None:
    """Raise ``ValueError("no such file: PATH")`` unless ``path`` exists: every reader says so alike
    (``folder``: a folder will do, as for brat)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"a path is a str; got {type(path).__name__}")
    if not os.path.exists(path):
        raise ValueError(f"no such file: {os.fspath(path)}")
    if not folder and os.path.isdir(path):
        raise ValueError(f"{os.fspath(path)} is a folder, not a file")


def text_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a UTF-8 text file (a byte-order mark dropped), for the token files (CoNLL,
    JSONL, HIPE TSV); a ValueError naming the file where it cannot be read."""
    check_file(path)
    try:
        with open(path, encoding="utf-8-sig") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{os.path.basename(path)}: cannot read it as UTF-8 text ({error})") from None


def parse_json(text: str, where: str) -> object:
    """``json.loads`` of ``text``; a ValueError naming ``where`` for what it refuses: not JSON, nested
    too deep for the parser's recursion, a number of more digits than Python converts."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deep to read (an example is a few levels)") from None
    except ValueError as error:  # a number past int's digit limit
        raise ValueError(f"{where}: not JSON this reader takes ({error})") from None


def looks_like(record: object) -> str:
    """What a JSON record looks like, for an error: the format whose keys it has."""
    if not isinstance(record, dict):
        kind = {type(None): "null", bool: "true or false", list: "array", str: "string"}.get(
            type(record), "number"
        )
        return f"a JSON {kind}, not an object"
    if "spans" in record:
        return "Prodigy (it has 'spans'): give the format 'prodigy'"
    if "label" in record:
        return "doccano (it has 'label'): give the format 'doccano'"
    if "entities" in record:
        entities = record["entities"]
        first = entities[0] if isinstance(entities, list) and entities else None
        if isinstance(first, dict) and "start_offset" in first:
            return "doccano (its 'entities' have 'start_offset'): give the format 'doccano'"
        return "this metric's own JSONL (it has 'entities' of 'label', 'start', 'end'): give no format"
    if "annotations" in record or "data" in record:
        return "a Label Studio task (it has 'annotations' or 'data'): give the format 'label-studio'"
    return f"none of the formats (its keys: {sorted(map(str, record))[:8]})"


class Annotated(NamedTuple):
    """Examples read from a tool's files: texts, entities (per example a list of span dicts), ids,
    the line or record of each example, and with several annotators (Label Studio) each
    annotator's entities, as ``metric.agreement`` takes them."""

    texts: list
    entities: list
    ids: list
    lines: list
    annotators: list | None = None


def _error(path, line, message):
    return ValueError(f"{os.path.basename(path)} line {line}: {message}")


def _entity(label, start, end, text_length, where, fragments=None):
    if not isinstance(label, str) or not label:
        raise ValueError(f"{where}: the label must be a non-empty str; got {label!r}")
    for value in (start, end):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{where}: offsets must be ints; got {value!r}")
    if not 0 <= start < end <= text_length:
        raise ValueError(f"{where}: offsets {start}-{end} are not a span of the text (length {text_length})")
    entity = {"label": label, "start": start, "end": end}
    if fragments and len(fragments) > 1:
        entity["fragments"] = [list(f) for f in fragments]
    return entity


# ---------------------------------------------------------------------------- brat


def _brat_fragments(offsets, path, line):
    try:
        fragments = [tuple(int(x) for x in part.split()) for part in offsets.split(";")]
    except ValueError:
        raise _error(path, line, f"offsets {offsets!r} are not 'start end' pairs separated by ';'") from None
    if any(len(f) != 2 or f[0] >= f[1] for f in fragments):
        raise _error(path, line, f"offsets {offsets!r}: each fragment is 'start end' with start < end")
    fragments.sort()
    for a, b in zip(fragments, fragments[1:]):
        if b[0] < a[1]:
            raise _error(path, line, f"offsets {offsets!r}: fragments overlap")
    merged = [list(fragments[0])]
    for s, e in fragments[1:]:  # brat writes a fragment per line of text: adjacent ones are one
        if s == merged[-1][1]:
            merged[-1][1] = e
        else:
            merged.append([s, e])
    return merged


def read_brat_pair(ann_path: str | os.PathLike, txt_path: str | os.PathLike | None = None) -> tuple:
    """One brat document: the ``.txt`` beside the ``.ann``. ``T`` lines are entities (several
    ``start end`` fragments separated by ``;`` make a discontinuous one; their text is checked
    against the ``.txt``), ``A`` and ``M`` lines their attributes (a binary attribute is True);
    notes (``#``), relations (``R``), events (``E``), equivalences (``*``) and normalisations
    (``N``) are not entities and are left out."""
    txt_path = txt_path or os.path.splitext(ann_path)[0] + ".txt"
    check_file(ann_path)
    if not os.path.exists(txt_path):
        raise ValueError(f"no such file: {txt_path} (the text of {os.path.basename(ann_path)})")
    try:
        with open(txt_path, encoding="utf-8", newline="") as f:
            text = f.read()
        with open(ann_path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(
            f"{os.path.basename(ann_path)}: cannot read it and its .txt as UTF-8 ({error})"
        ) from None
    entities, attributes = {}, []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        kind = line[0]
        if kind == "T":
            fields = line.split("\t")
            if len(fields) != 3 or " " not in fields[1]:
                raise _error(ann_path, number, "a T line is 'T1<tab>Label start end<tab>text'")
            label, offsets = fields[1].split(" ", 1)
            fragments = _brat_fragments(offsets, ann_path, number)
            covered = " ".join(text[s:e] for s, e in fragments)
            if (
                covered.replace("\n", " ") != fields[2]  # a line of the .ann holds no line break
                and "".join(text[s:e] for s, e in fragments) != fields[2]
            ):
                raise _error(
                    ann_path, number, f"the text {fields[2]!r} is not {covered!r} at {offsets} of the .txt"
                )
            where = f"{os.path.basename(ann_path)} line {number}"
            if fields[0] in entities:
                raise _error(
                    ann_path, number, f"a second T line with the id {fields[0]!r}; each id is one entity"
                )
            entities[fields[0]] = _entity(
                label, fragments[0][0], fragments[-1][1], len(text), where, fragments
            )
        elif kind in "AM":
            fields = line.split("\t")
            parts = fields[1].split() if len(fields) >= 2 else []
            if len(parts) not in (2, 3):
                raise _error(ann_path, number, "an A line is 'A1<tab>Name T1' or 'A1<tab>Name T1 Value'")
            attributes.append((number, parts))
        elif kind not in "#REN*":
            raise _error(
                ann_path, number, f"unknown annotation kind {kind!r} (brat's are T, A, M, R, E, N, #, *)"
            )
    for number, parts in attributes:
        if parts[1] not in entities:
            raise _error(ann_path, number, f"the attribute's target {parts[1]!r} is not a T line of the file")
        entity = entities[parts[1]]
        entity.setdefault("attributes", {})[parts[0]] = parts[2] if len(parts) == 3 else True
    ordered = sorted(entities.values(), key=lambda e: (e["start"], e["end"], e["label"]))
    return text, ordered


def read_brat(path: str | os.PathLike) -> Annotated:
    """A brat ``.ann`` file (its ``.txt`` beside it) or a folder of them, one example each."""
    check_file(path, folder=True)
    paths = (
        sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".ann"))
        if os.path.isdir(path)
        else [path]
    )
    if not paths:
        raise ValueError(f"{path}: no .ann file")
    texts, entities = zip(*(read_brat_pair(p) for p in paths))
    ids = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    return Annotated(list(texts), list(entities), ids, [1] * len(paths))


# ---------------------------------------------------------------------------- JSON lines


def _text(path):
    """The text of a UTF-8 file; a ValueError naming the file where it cannot be read."""
    check_file(path)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{os.path.basename(path)}: cannot read it as UTF-8 ({error})") from None


def _json_lines(path, format):
    for number, line in enumerate(_text(path).split("\n"), 1):
        if line.strip():
            record = parse_json(line, f"{os.path.basename(path)} line {number}")
            if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                raise _error(
                    path,
                    number,
                    f"a {format} record is an object with a 'text' string; this one looks like {looks_like(record)}",
                )
            yield number, record


def _list_field(record, key, path, number, format):
    """``record[key]``, a list (absent: empty); a ValueError naming the line otherwise."""
    value = record.get(key, [])
    if not isinstance(value, list):
        raise _error(path, number, f"{format}'s {key!r} is a list; got {value!r:.80}")
    return value


def read_doccano(path: str | os.PathLike) -> Annotated:
    """doccano's JSONL export: ``{"text", "label": [[start, end, "TYPE"], ...]}`` or the newer
    ``"entities": [{"start_offset", "end_offset", "label"}]``."""
    texts: list = []
    entities: list = []
    ids: list = []
    lines: list = []
    for number, record in _json_lines(path, "doccano"):
        where = f"{os.path.basename(path)} line {number}"
        text, found = record["text"], []
        if "spans" in record and "label" not in record and "entities" not in record:
            raise _error(
                path, number, f"no doccano 'label' or 'entities'; the record looks like {looks_like(record)}"
            )
        if "entities" in record:
            for e in _list_field(record, "entities", path, number, "doccano"):
                if not isinstance(e, dict):
                    raise _error(path, number, f"an entity is an object; got {e!r}")
                found.append(
                    _entity(e.get("label"), e.get("start_offset"), e.get("end_offset"), len(text), where)
                )
        else:
            for e in _list_field(record, "label", path, number, "doccano"):
                if not isinstance(e, (list, tuple)) or len(e) != 3:
                    raise _error(path, number, f"a label is [start, end, 'TYPE']; got {e!r}")
                found.append(_entity(e[2], e[0], e[1], len(text), where))
        texts.append(text)
        entities.append(found)
        ids.append(record.get("id", len(ids)))
        lines.append(number)
    return Annotated(texts, entities, ids, lines)


#: the answers Prodigy writes
ANSWERS = ("accept", "reject", "ignore")


def read_prodigy(path: str | os.PathLike, answers: tuple = ("accept",)) -> Annotated:
    """Prodigy's JSONL (``{"text", "spans": [{"start", "end", "label"}], "answer"}``): the records
    whose answer is in ``answers`` (rejected and ignored ones are left out unless asked)."""
    texts: list = []
    entities: list = []
    ids: list = []
    lines: list = []
    for number, record in _json_lines(path, "Prodigy"):
        if "spans" not in record and ("label" in record or "entities" in record):
            raise _error(path, number, f"no Prodigy 'spans'; the record looks like {looks_like(record)}")
        answer = record.get("answer", "accept")
        if answer not in ANSWERS:
            raise _error(path, number, f"answer must be one of {list(ANSWERS)}; got {answer!r:.80}")
        if answer not in answers:
            continue
        where = f"{os.path.basename(path)} line {number}"
        found = []
        for span in _list_field(record, "spans", path, number, "Prodigy"):
            if not isinstance(span, dict):
                raise _error(path, number, f"a span is an object; got {span!r}")
            found.append(
                _entity(span.get("label"), span.get("start"), span.get("end"), len(record["text"]), where)
            )
        texts.append(record["text"])
        entities.append(found)
        ids.append(record.get("_task_hash", len(ids)))
        lines.append(number)
    return Annotated(texts, entities, ids, lines)


# ---------------------------------------------------------------------------- Label Studio


def _ls_regions(results, text, where):
    if results is None:
        return []
    if not isinstance(results, list):
        raise ValueError(f"{where}: an annotation's 'result' is a list of regions; got {results!r:.80}")
    found = []
    for k, region in enumerate(results):
        if not isinstance(region, dict):
            raise ValueError(f"{where} result {k}: a region is an object; got {region!r:.80}")
        if region.get("type") != "labels":
            continue  # relations, choices, text areas: not entities
        value = region.get("value")
        labels = value.get("labels") if isinstance(value, dict) else None
        if not isinstance(value, dict) or not isinstance(labels, list):  # a str: read letter by letter
            raise ValueError(
                f'{where} result {k}: value.labels is a list of labels (Label Studio writes ["PER"]); got {labels!r:.80}'
            )
        for label in labels:  # a region with several labels: one entity each
            found.append(
                _entity(label, value.get("start"), value.get("end"), len(text), f"{where} result {k}")
            )
    return sorted(found, key=lambda e: (e["start"], e["end"], e["label"]))


def _ls_annotations(task, where):
    """The annotations of a task that are not cancelled; a ValueError for a malformed list."""
    annotations = task.get("annotations")
    if annotations is None:
        return []
    if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
        raise ValueError(f"{where}: 'annotations' is a list of objects; got {annotations!r:.80}")
    return [a for a in annotations if not a.get("was_cancelled")]


def read_label_studio(path: str | os.PathLike, text_key: str = "text") -> Annotated:
    """Label Studio's JSON export (a list of tasks). Each task's text is ``data[text_key]``; its
    annotations not cancelled become annotators, in order (``annotators[k]``: the k-th annotation of
    every task); ``entities`` is the first. Every task needs as many annotations for agreement."""
    tasks = parse_json(_text(path), f"{os.path.basename(path)} (a Label Studio JSON export)")
    if not isinstance(tasks, list):
        first = tasks
        raise ValueError(
            f"{os.path.basename(path)}: a Label Studio export is a list of tasks; this looks like {looks_like(first)}"
        )
    texts, per_task, ids = [], [], []
    for k, task in enumerate(tasks):
        where = f"{os.path.basename(path)} task {task.get('id', k) if isinstance(task, dict) else k}"
        if not isinstance(task, dict) or not isinstance((task.get("data") or {}).get(text_key), str):
            raise ValueError(f"{where}: no data[{text_key!r}] text")
        text = task["data"][text_key]
        annotations = _ls_annotations(task, where)
        per_task.append([_ls_regions(a.get("result"), text, where) for a in annotations])
        texts.append(text)
        ids.append(task.get("id", k))
    counts = {len(a) for a in per_task}
    annotators = None
    if counts and min(counts) > 1:
        if len(counts) > 1:
            raise ValueError(
                f"{os.path.basename(path)}: tasks hold {sorted(counts)} annotations; agreement needs as many in each"
            )
        annotators = [[task[k] for task in per_task] for k in range(min(counts))]
    entities = [task[0] if task else [] for task in per_task]
    return Annotated(texts, entities, ids, list(range(len(texts))), annotators)


# ---------------------------------------------------------------------------- spaCy


def from_docs(docs: list, spans_key: str | None = None) -> Annotated:
    """spaCy ``Doc`` objects: ``doc.ents``, or ``doc.spans[spans_key]`` (nested allowed)."""
    texts, entities = [], []
    for doc in docs:
        spans = doc.ents if spans_key is None else doc.spans[spans_key] if spans_key in doc.spans else []
        texts.append(doc.text)
        entities.append([{"label": s.label_, "start": s.start_char, "end": s.end_char} for s in spans])
    return Annotated(texts, entities, list(range(len(texts))), list(range(len(texts))))


#: a DocBin's bytes inflate to at most this many times their size plus a megabyte (text: about
#: 20; the same sentence repeated: about 200), and never past :data:`MAX_DOCBIN_BYTES`
MAX_INFLATION = 256
MAX_DOCBIN_BYTES = 1 << 29
#: docs without tokens a DocBin may hold beyond one per token (each costs a Doc)
MAX_EMPTY_DOCS = 10_000


def read_docbin(path: str | os.PathLike, spans_key: str | None = None) -> Annotated:
    """A spaCy ``.spacy`` file (``DocBin``). Its declared sizes are checked before spaCy builds
    anything (:func:`check_docbin`); spaCy missing is :class:`MissingPackage`."""
    check_file(path)
    try:
        import spacy
        from spacy.tokens import DocBin
    except ImportError:
        raise MissingPackage("spacy", path) from None
    with open(path, "rb") as f:
        data = f.read()
    check_docbin(data, os.path.basename(path))
    try:
        docs = list(DocBin().from_bytes(data).get_docs(spacy.blank("xx").vocab))
    except (MemoryError, RecursionError):
        raise ValueError(f"{os.path.basename(path)}: not a spaCy DocBin (too large to read)") from None
    except Exception as error:  # spaCy and srsly raise many kinds on bad bytes
        raise ValueError(
            f"{os.path.basename(path)}: not a spaCy DocBin ({type(error).__name__}: {error})"
        ) from None
    return from_docs(docs, spans_key)


def _inflate(data, name):
    """The zlib-inflated bytes of a DocBin, at most ``MAX_INFLATION`` times its size plus 1 MB."""
    limit = min(MAX_INFLATION * len(data) + (1 << 20), MAX_DOCBIN_BYTES)
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limit)
    except zlib.error as error:
        raise ValueError(f"{name}: not a spaCy DocBin (not zlib data: {error})") from None
    if inflater.unconsumed_tail:
        raise ValueError(
            f"{name}: not a spaCy DocBin it reads (it inflates past {limit} bytes: at most {MAX_INFLATION} "
            f"times its size, and {MAX_DOCBIN_BYTES} bytes)"
        )
    return out


def check_docbin(data: bytes, name: str) -> None:
    """Raise unless ``data`` inflate within bounds to a DocBin whose declared sizes agree: ``lengths``
    (tokens per doc, non-negative int32) sum to the rows of ``tokens`` (one uint64 per attribute)
    and of ``spaces``; a ValueError naming the file before any large allocation."""
    import srsly

    inflated = _inflate(data, name)
    try:
        msg = srsly.msgpack_loads(inflated)
    except Exception as error:  # msgpack raises several kinds, some without a message
        raise ValueError(
            f"{name}: not a spaCy DocBin (not msgpack: {type(error).__name__} {error})"
        ) from None
    keys = ("attrs", "tokens", "spaces", "lengths", "strings")
    if not isinstance(msg, dict) or any(k not in msg for k in keys):
        raise ValueError(f"{name}: not a spaCy DocBin (it needs {list(keys)})")
    attrs, tokens, spaces, lengths = (msg[k] for k in keys[:4])
    if (
        not isinstance(attrs, list)
        or not attrs
        or not all(isinstance(b, bytes) for b in (tokens, spaces, lengths))
    ):
        raise ValueError(f"{name}: not a spaCy DocBin (attrs a list, tokens, spaces and lengths bytes)")
    if len(lengths) % 4 or len(tokens) % (8 * len(attrs)):
        raise ValueError(f"{name}: not a spaCy DocBin (its arrays are not whole int32 / uint64 rows)")
    counts = [int.from_bytes(lengths[k : k + 4], "little", signed=True) for k in range(0, len(lengths), 4)]
    rows = len(tokens) // (8 * len(attrs))
    if any(c < 0 for c in counts) or sum(counts) != rows or len(spaces) != rows:
        raise ValueError(
            f"{name}: not a spaCy DocBin (its lengths sum to {sum(counts)} tokens, its arrays hold {rows} and {len(spaces)})"
        )
    if len(counts) > rows + MAX_EMPTY_DOCS:
        raise ValueError(f"{name}: not a spaCy DocBin it reads ({len(counts)} docs for {rows} tokens)")


# ---------------------------------------------------------------------------- CoNLL-U


def read_conllu(path: str | os.PathLike, column: int | None = None, misc_key: str = "NER") -> Annotated:
    """CoNLL-U with NER tags in MISC (``NER=B-PER``, the key ``misc_key``) or in a column after the
    ten of CoNLL-U (the last one, or ``column``, 0-based). Multiword token lines (``1-2``) and empty nodes
    (``1.1``) are skipped; a token without a tag is ``O``. Entities are character offsets into the
    sentence's tokens joined by one space (``SpaceAfter=No`` respected)."""
    texts: list = []
    entities: list = []
    ids: list = []
    lines: list = []
    tokens: list = []
    tags: list = []
    spaces: list = []
    start_line = None

    def flush():
        if not tokens:
            return
        starts, text = [], ""
        for token, space in zip(tokens, spaces):
            starts.append(len(text))
            text += token + (" " if space else "")
        text = text.rstrip(" ")
        spans = tags_to_spans(tags)
        texts.append(text)
        entities.append(
            [
                {
                    "label": s.label,
                    "start": starts[s.start],
                    "end": starts[s.end - 1] + len(tokens[s.end - 1]),
                }
                for s in spans
            ]
        )
        ids.append(len(ids))
        lines.append(start_line)

    for number, line in enumerate(_text(path).split("\n"), 1):
        if not line.strip():
            flush()
            tokens, tags, spaces, start_line = [], [], [], None
            continue
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 10:
            raise _error(path, number, f"{len(fields)} tab-separated fields; CoNLL-U has 10")
        if "-" in fields[0] or "." in fields[0]:
            continue
        misc = dict(part.split("=", 1) for part in fields[9].split("|") if "=" in part)
        if column is not None:
            if len(fields) <= column:
                raise _error(path, number, f"no column {column} (the line has {len(fields)})")
            tag = fields[column]
        elif len(fields) > 10:  # a tag column after CoNLL-U's ten: the last
            tag = fields[-1]
        else:
            tag = misc.get(misc_key, "O")
        if tag != "O" and (len(tag) < 3 or tag[1] != "-" or tag[0] not in "BIESLU"):
            raise _error(path, number, f"tag {tag!r} is not O or PREFIX-TYPE (B-PER, I-PER, ...)")
        start_line = start_line or number
        tokens.append(fields[1])
        tags.append(tag)
        spaces.append(misc.get("SpaceAfter") != "No")
    flush()
    return Annotated(texts, entities, ids, lines)


# ---------------------------------------------------------------------------- choosing the reader


def guess_format(path: str | os.PathLike) -> str:
    """The format of a file or folder by its name and, where names are shared, its content."""
    path = os.fspath(path)
    if os.path.isdir(path) or path.endswith(".ann"):
        return "brat"
    if path.endswith(".spacy"):
        return "spacy"
    if path.endswith(".conllu"):
        return "conllu"
    if path.endswith(".json"):
        return "label-studio"
    if path.endswith(".jsonl"):
        check_file(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            first = next((line for line in f if line.strip()), "{}")
        record = parse_json(first, f"{os.path.basename(path)}: its first record")
        if not isinstance(record, dict):
            raise ValueError(
                f"{os.path.basename(path)}: its first record is {looks_like(record)}; a record of every format is an object"
            )
        if "spans" in record:
            return "prodigy"
        if (
            "label" in record
            or "entities" in record
            and isinstance(record["entities"], list)
            and record["entities"]
            and isinstance(record["entities"][0], dict)
            and "start_offset" in record["entities"][0]
        ):
            return "doccano"
    raise ValueError(
        f"{os.path.basename(path)}: cannot tell its format from its name and content; give format= one of {list(FORMATS)}"
    )


READERS = {
    "brat": read_brat,
    "label-studio": read_label_studio,
    "doccano": read_doccano,
    "prodigy": read_prodigy,
    "spacy": read_docbin,
    "conllu": read_conllu,
}


def read_annotated(path: str | os.PathLike, format: str | None = None, **options: object) -> Annotated:
    """:class:`Annotated` of a file (or a brat folder) in one of :data:`FORMATS`, told by its name
    and content unless ``format`` says. A missing file is ``ValueError("no such file: PATH")``
    whatever the format; a format's missing package is :class:`MissingPackage`."""
    check_file(path, folder=True)
    if format is None:
        format = guess_format(path)
    if format not in READERS:
        raise ValueError(f"format must be one of {list(FORMATS)}; got {format!r}")
    return READERS[format](path, **options)


# ---------------------------------------------------------------------------- a gold and a predictions file


#: how messages name an example of a format whose examples are not lines of a text file: Label
#: Studio's tasks by their id (as the reader's own messages do), brat's documents by their name, a
#: DocBin's docs by their place, counted from 1
PLACES = {
    "label-studio": lambda k, key: f"task {key}",
    "brat": lambda k, key: f"document {key}",
    "spacy": lambda k, key: f"document {k + 1}",
}


class Pairing(NamedTuple):
    """How the examples of a gold and a predictions file of one format are paired."""

    what: str  # the examples, as a message names them
    keys: tuple  # the keys tried in order: the first that pairs every example, texts alike, wins
    how: str  # the keys in words


#: the formats whose examples keep their identity when an export changes their order; the others
#: are paired in the files' order, as lines are
PAIRED_BY = {
    "label-studio": Pairing("tasks", ("id", "text"), "by id, or by text when the ids differ"),
    "brat": Pairing("documents", ("id",), "by name"),
}
KEYS = {"id": lambda annotated: annotated.ids, "text": lambda annotated: annotated.texts}


def places(annotated: Annotated, format: str | None) -> list:
    """Where each example of a file is, as messages name it: its line (an int), or per :data:`PLACES`."""
    name = None if format is None else PLACES.get(format)
    return list(annotated.lines) if name is None else [name(k, key) for k, key in enumerate(annotated.ids)]


def at(place: object) -> str:
    """A place of :func:`places` in words: ``line 3``, ``task 17``."""
    return place if isinstance(place, str) else f"line {place}"


def pair_examples(gold: Annotated, pred: Annotated, formats: tuple, names: tuple) -> list[int]:
    """For each gold example the index of its predictions' example, the two with one text: by the
    keys of :data:`PAIRED_BY` when both files are of one such format and hold more than one example
    (Label Studio's tasks by id, or by text when the ids differ; brat's documents by name), else in
    the files' order. A ValueError names the examples without a partner on either side, or the
    first pair whose texts differ (``names``: the files' names)."""
    pairing = PAIRED_BY.get(formats[0]) if formats[0] == formats[1] else None
    if pairing is None or (len(gold.texts), len(pred.texts)) == (1, 1):
        if len(gold.texts) != len(pred.texts):
            raise ValueError(f"{names[0]} holds {len(gold.texts)} examples but {names[1]} {len(pred.texts)}")
        return _same_texts(list(range(len(gold.texts))), gold, pred, formats, names)
    paired = None
    for key in pairing.keys:
        order, left = _by_key(KEYS[key](gold), KEYS[key](pred))
        if None not in order and not left:
            if all(gold.texts[i] == pred.texts[j] for i, j in enumerate(order)):
                return order
            paired = paired or order
    if paired is not None:
        return _same_texts(paired, gold, pred, formats, names)
    gold_places, pred_places = places(gold, formats[0]), places(pred, formats[1])
    missing = [gold_places[i] for i, j in enumerate(order) if j is None]
    sides = [(names[0], names[1], missing), (names[1], names[0], [pred_places[j] for j in left])]
    raise ValueError(
        f"{names[0]} and {names[1]} do not hold the same {pairing.what} (paired {pairing.how}): "
        + "; ".join(f"in {a} and not in {b}: {_listed(found)}" for a, b, found in sides if found)
    )


def _by_key(gold_keys: list, pred_keys: list) -> tuple[list, list[int]]:
    """(for each gold key the index of the same key among the predictions', the k-th occurrence
    with the k-th, or None; the predictions' indexes left over). Keys compare by their repr (an id
    may be any JSON value)."""
    waiting: dict = defaultdict(deque)
    for j, key in enumerate(pred_keys):
        waiting[repr(key)].append(j)
    order = [waiting[repr(key)].popleft() if waiting.get(repr(key)) else None for key in gold_keys]
    return order, sorted(j for left in waiting.values() for j in left)


def _listed(found: list, shown: int = 5) -> str:
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    return ", ".join(at(place) for place in found[:shown]) + more


def _same_texts(order: list, gold: Annotated, pred: Annotated, formats: tuple, names: tuple) -> list[int]:
    """``order``, once each pair's texts are checked alike; a ValueError naming the first that differs."""
    differs = next((i for i, j in enumerate(order) if gold.texts[i] != pred.texts[j]), None)
    if differs is not None:
        raise ValueError(
            f"{names[1]} {at(places(pred, formats[1])[order[differs]])}: its text differs from the gold's "
            f"({at(places(gold, formats[0])[differs])} of {names[0]})"
        )
    return order
