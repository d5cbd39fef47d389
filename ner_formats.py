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
from typing import NamedTuple

from .ner_decoding import tags_to_spans

FORMATS = ("brat", "label-studio", "doccano", "prodigy", "spacy", "conllu")


class Annotated(NamedTuple):
    """Examples read from a tool's files: texts, entities (per example a list of span dicts), ids,
    the line or record of each example, and with several annotators (Label Studio) each
    annotator's entities, as ``metric.agreement`` takes them."""

    texts: list
    entities: list
    ids: list
    lines: list
    annotators: list = None


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


def read_brat_pair(ann_path, txt_path=None):
    """One brat document: the ``.txt`` beside the ``.ann``. ``T`` lines are entities (several
    ``start end`` fragments separated by ``;`` make a discontinuous one; their text is checked
    against the ``.txt``), ``A`` and ``M`` lines their attributes (a binary attribute is True);
    notes (``#``), relations (``R``), events (``E``), equivalences (``*``) and normalisations
    (``N``) are not entities and are left out."""
    txt_path = txt_path or os.path.splitext(ann_path)[0] + ".txt"
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
                covered.replace("\n", " ") != fields[2].replace("\n", " ")
                and "".join(text[s:e] for s, e in fragments) != fields[2]
            ):
                raise _error(
                    ann_path, number, f"the text {fields[2]!r} is not {covered!r} at {offsets} of the .txt"
                )
            where = f"{os.path.basename(ann_path)} line {number}"
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


def read_brat(path):
    """A brat ``.ann`` file (its ``.txt`` beside it) or a folder of them, one example each."""
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


def _json_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{os.path.basename(path)}: cannot read it as UTF-8 ({error})") from None
    for number, line in enumerate(raw, 1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise _error(path, number, f"not JSON ({error.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                raise _error(path, number, "a record is an object with a 'text' string")
            yield number, record


def read_doccano(path):
    """doccano's JSONL export: ``{"text", "label": [[start, end, "TYPE"], ...]}`` or the newer
    ``"entities": [{"start_offset", "end_offset", "label"}]``."""
    texts, entities, ids, lines = [], [], [], []
    for number, record in _json_lines(path):
        where = f"{os.path.basename(path)} line {number}"
        text, found = record["text"], []
        if "entities" in record:
            for e in record["entities"]:
                if not isinstance(e, dict):
                    raise _error(path, number, f"an entity is an object; got {e!r}")
                found.append(
                    _entity(e.get("label"), e.get("start_offset"), e.get("end_offset"), len(text), where)
                )
        else:
            for e in record.get("label", []):
                if not isinstance(e, (list, tuple)) or len(e) != 3:
                    raise _error(path, number, f"a label is [start, end, 'TYPE']; got {e!r}")
                found.append(_entity(e[2], e[0], e[1], len(text), where))
        texts.append(text)
        entities.append(found)
        ids.append(record.get("id", len(ids)))
        lines.append(number)
    return Annotated(texts, entities, ids, lines)


def read_prodigy(path, answers=("accept",)):
    """Prodigy's JSONL (``{"text", "spans": [{"start", "end", "label"}], "answer"}``): the records
    whose answer is in ``answers`` (rejected and ignored ones are left out unless asked)."""
    texts, entities, ids, lines = [], [], [], []
    for number, record in _json_lines(path):
        if record.get("answer", "accept") not in answers:
            continue
        where = f"{os.path.basename(path)} line {number}"
        found = []
        for span in record.get("spans", []):
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
    found = []
    for region in results or []:
        if not isinstance(region, dict) or region.get("type") != "labels":
            continue  # relations, choices, text areas: not entities
        value = region.get("value") or {}
        for label in value.get("labels") or []:  # a region with several labels: one entity each
            found.append(_entity(label, value.get("start"), value.get("end"), len(text), where))
    return sorted(found, key=lambda e: (e["start"], e["end"], e["label"]))


def read_label_studio(path, text_key="text"):
    """Label Studio's JSON export (a list of tasks). Each task's text is ``data[text_key]``; its
    annotations not cancelled become annotators, in order (``annotators[k]``: the k-th annotation of
    every task); ``entities`` is the first. Every task needs as many annotations for agreement."""
    try:
        with open(path, encoding="utf-8") as f:
            tasks = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{os.path.basename(path)}: not a Label Studio JSON export ({error})") from None
    if not isinstance(tasks, list):
        raise ValueError(f"{os.path.basename(path)}: a Label Studio export is a list of tasks")
    texts, per_task, ids = [], [], []
    for k, task in enumerate(tasks):
        where = f"{os.path.basename(path)} task {task.get('id', k) if isinstance(task, dict) else k}"
        if not isinstance(task, dict) or not isinstance((task.get("data") or {}).get(text_key), str):
            raise ValueError(f"{where}: no data[{text_key!r}] text")
        text = task["data"][text_key]
        annotations = [a for a in task.get("annotations") or [] if not a.get("was_cancelled")]
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


def from_docs(docs, spans_key=None):
    """spaCy ``Doc`` objects: ``doc.ents``, or ``doc.spans[spans_key]`` (nested allowed)."""
    texts, entities = [], []
    for doc in docs:
        spans = doc.ents if spans_key is None else doc.spans[spans_key] if spans_key in doc.spans else []
        texts.append(doc.text)
        entities.append([{"label": s.label_, "start": s.start_char, "end": s.end_char} for s in spans])
    return Annotated(texts, entities, list(range(len(texts))), list(range(len(texts))))


def read_docbin(path, spans_key=None):
    """A spaCy ``.spacy`` file (``DocBin``)."""
    import spacy
    from spacy.tokens import DocBin

    try:
        docs = list(DocBin().from_disk(path).get_docs(spacy.blank("xx").vocab))
    except (OSError, ValueError) as error:
        raise ValueError(f"{os.path.basename(path)}: not a spaCy DocBin ({error})") from None
    return from_docs(docs, spans_key)


# ---------------------------------------------------------------------------- CoNLL-U


def read_conllu(path, column=None, misc_key="NER"):
    """CoNLL-U with NER tags in MISC (``NER=B-PER``, the key ``misc_key``) or in a column after the
    ten of CoNLL-U (the last one, or ``column``, 0-based). Multiword token lines (``1-2``) and empty nodes
    (``1.1``) are skipped; a token without a tag is ``O``. Entities are character offsets into the
    sentence's tokens joined by one space (``SpaceAfter=No`` respected)."""
    texts, entities, ids, lines = [], [], [], []
    tokens, tags, spaces, start_line = [], [], [], None

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

    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{os.path.basename(path)}: cannot read it as UTF-8 ({error})") from None
    for number, line in enumerate(raw, 1):
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


def guess_format(path):
    """The format of a file or folder by its name and, where names are shared, its content."""
    if os.path.isdir(path) or path.endswith(".ann"):
        return "brat"
    if path.endswith(".spacy"):
        return "spacy"
    if path.endswith(".conllu"):
        return "conllu"
    if path.endswith(".json"):
        return "label-studio"
    if path.endswith(".jsonl"):
        with open(path, encoding="utf-8", errors="replace") as f:
            first = next((line for line in f if line.strip()), "{}")
        try:
            record = json.loads(first)
        except json.JSONDecodeError:
            record = {}
        if "spans" in record:
            return "prodigy"
        if (
            "label" in record
            or "entities" in record
            and record["entities"]
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


def read_annotated(path, format=None, **options):
    """:class:`Annotated` of a file (or a brat folder) in one of :data:`FORMATS`, told by its name
    and content unless ``format`` says."""
    if format is None:
        format = guess_format(path)
    if format not in READERS:
        raise ValueError(f"format must be one of {list(FORMATS)}; got {format!r}")
    return READERS[format](path, **options)
