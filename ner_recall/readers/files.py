"""Readers of NER files into what ``compute`` takes: CoNLL columns and JSONL spans.

Three layouts:

* **CoNLL**, one file per side: one token per line, its fields separated by a tab (then a field
  may hold spaces) or by spaces; the token is the first field and the tag the last (CoNLL-2003's
  ``token POS chunk NER`` reads as it is). A blank line ends a sentence. A ``-DOCSTART-`` line
  ends the sentence too and is dropped, so documents never merge sentences and never count as
  one. **Comments**: a line starting with ``#`` is a comment (CoNLL-U's ``# sent_id = 1``, ``#
  text = ...``) unless it has exactly as many fields as the file's token lines: ``# O`` in a
  two-field file is the token ``#`` tagged ``O``, as tweets need.
* **Two tag columns** in one file (conlleval's layout): token first, gold tag second to last,
  predicted tag last.
* **JSONL spans**, one example per line: ``{"tokens": [...]}`` or ``{"text": "..."}`` with
  ``"entities": [{"label": str, "start": int, "end": int}]``, offsets into the tokens or the
  characters, end exclusive; what the ``spans`` config takes. A prediction's ``"score"`` is kept
  (the ranking family reads it).

Every reader returns :class:`Inputs`, whose ``compute_inputs()`` goes to ``metric.compute``, with
the line of every token, so that :func:`locate` can turn the metric's ``predictions[3][1]`` into
a file and line. Bad files raise ``ValueError`` naming file and line: ragged columns, a missing
tag column, sentence counts or tokens that differ between gold and predictions. Tags are the
decoder's to judge, with the scheme and suffix the scoring uses (one grammar for the metric, the
command line and the app): its error names ``predictions[3][1]``, and :func:`locate` adds the
file and line.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> gold, pred = os.path.join(folder, "gold.conll"), os.path.join(folder, "pred.conll")
>>> _ = open(gold, "w").write("-DOCSTART- O\\n\\nAnna B-PER\\nsang O\\n\\nin O\\nRiga B-LOC\\n")
>>> _ = open(pred, "w").write("-DOCSTART- O\\n\\nAnna B-PER\\nsang O\\n\\nin O\\nRiga B-ORG\\n")
>>> inputs = read_conll_pair(gold, pred)
>>> inputs.compute_inputs()
{'predictions': [['B-PER', 'O'], ['O', 'B-ORG']], 'references': [['B-PER', 'O'], ['O', 'B-LOC']]}
>>> inputs.tokens, inputs.where("predictions", 1, 1)
([['Anna', 'sang'], ['in', 'Riga']], 'pred.conll line 7')
"""

import os
from typing import Any, NamedTuple

from ner_recall.core.collector import no_cycle_collection
from ner_recall.core.progress import steps
from ner_recall.core.vocabulary import ENTITY_KEYS, InputError, literal
from ner_recall.readers.formats import (
    FORMATS,
    PACKAGES,
    check_file,
    guess_format,
    looks_like,
    pair_examples,
    parse_json,
    places,
    read_annotated,
    text_lines,
)
from ner_recall.readers.harem import is_harem, read_harem_pair
from ner_recall.readers.hipe import is_hipe, read_hipe, resegment
from ner_recall.readers.model_outputs import output_form

DOCSTART = "-DOCSTART-"
#: the option that skips the token check, as the side of the errors that name it (the command line
#: names it its own way, ``InputError.renamed``)
NO_TOKEN_CHECK = "check_tokens=False"
COMMENT = "#"
JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


class Sentences(NamedTuple):
    """One CoNLL file: per sentence its tokens, the tags of each tag column asked for, and the
    1-based line of each token."""

    path: str | os.PathLike
    tokens: list
    columns: tuple  # one list of tag sequences per tag column read
    lines: list


#: the entity buckets of tag files: every attribute that needs no training set
TAG_BUCKETS = ("entity_length", "sentence_length", "density", "capitalisation")


class Inputs(NamedTuple):
    """Gold and predictions of one corpus, as ``compute`` takes them, and where each came from.

    ``references``/``predictions``: tag sequences (CoNLL) or lists of span dicts (JSONL).
    ``tokens``: per sentence the tokens (or the text of a JSONL example). ``lines``: per side,
    per sentence the line of each token (CoNLL) or the example's line (JSONL).
    """

    references: list
    predictions: list
    tokens: list
    paths: dict
    lines: dict
    document_ids: list | None = None  # per sentence, where the format has documents (HIPE)
    options: dict | None = None  # compute options the format implies (HAREM: texts, type_separator)
    unplaced: list | None = None  # per document, system entities the alignment could not place (HAREM)

    def compute_inputs(self) -> dict:
        out = {"predictions": self.predictions, "references": self.references}
        if self.document_ids is not None:
            out["document_ids"] = self.document_ids
        out.update(self.options or {})
        return out

    def is_spans(self) -> bool:
        """Whether the files hold entity spans (then the "spans" config scores them), not tags."""
        return any(isinstance(x, dict) for example in self.references for x in example)

    def over_texts(self) -> bool:
        """Whether the files hold spans placed on texts (character offsets), not on tokens."""
        return self.is_spans() and bool(self.tokens) and all(isinstance(t, str) for t in self.tokens)

    def bucket_options(self) -> dict:
        """The entity buckets the files allow, with the option that gives their text: for tags
        every attribute that needs no training set (with the tokens); for spans over texts the
        same (the sentence attributes count the text's characters), over tokens the entity
        length alone."""
        if not self.is_spans():
            return {"buckets": list(TAG_BUCKETS), "tokens": self.tokens}
        if self.over_texts():
            return {"buckets": list(TAG_BUCKETS), "texts": self.tokens}
        return {"buckets": ["entity_length"]}

    def where(self, side: str, sentence: int, item: int | None = None) -> str:
        """``"file line N"`` of ``side`` ("references"/"predictions") at ``[sentence][item]``, or the
        place a file without lines gives (``"export.json task 17"``)."""
        line = self.lines[side][sentence]
        if isinstance(line, list):
            line = line[item if item is not None and item < len(line) else 0] if line else 0
        place = line if isinstance(line, str) else f"line {line}"
        return f"{os.path.basename(os.path.normpath(self.paths[side]))} {place}"


def _is_comment(fields, width):
    return fields[0].startswith(COMMENT) and len(fields) != width


def _width(path, records):
    """The number of fields of the file's token lines: those of its first token line."""
    for _, fields in records:
        if fields and fields[0] != DOCSTART and not fields[0].startswith(COMMENT):
            return len(fields)
    raise ValueError(f"{os.path.basename(path)}: no token lines (an empty file?)")


def _records(path):
    """[(line number, fields or [] for a blank line)] of a text file; ValueError if unreadable."""
    lines = text_lines(path)
    fields: list = []
    with steps(len(lines), f"lines of {os.path.basename(path)}") as done:  # a large file's progress
        for chunk in (lines[k : k + (1 << 18)] for k in range(0, len(lines), 1 << 18)):
            fields += [_fields(line) for line in chunk]
            done.advance(len(chunk))
    return list(enumerate(fields, 1))


def _fields(line):
    """The fields of a line: tab-separated if it has a tab, else space-separated; a line of white
    space alone (spaces, tabs) is blank and ends a sentence."""
    if not line.strip():
        return []
    return line.split("\t") if "\t" in line else line.split()


def read_conll(path: str | os.PathLike, tag_columns: tuple = (-1,)) -> Sentences:
    """:class:`Sentences` of a CoNLL file, reading the tags of ``tag_columns`` (default: the last).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.conll")
    >>> _ = open(path, "w").write("# text = Anna sang\\nAnna NNP B-PER\\nsang VBD O\\n")
    >>> s = read_conll(path)
    >>> s.tokens, s.columns, s.lines
    ([['Anna', 'sang']], ([['B-PER', 'O']],), [[2, 3]])
    >>> _ = open(path, "w").write("Anna NNP B-PER\\nsang O\\n")
    >>> read_conll(path)
    Traceback (most recent call last):
    ValueError: x.conll line 2: 2 fields, but the token lines before have 3 (ragged columns)
    """
    with no_cycle_collection():
        return _read_conll(path, tag_columns)


def _read_conll(path, tag_columns):
    name = os.path.basename(path)
    records = _records(path)
    width = _width(path, records)
    needed = 1 + max(c if c >= 0 else -c for c in tag_columns)
    if width < needed:
        raise ValueError(
            f"{name} line {_first_token_line(records)}: {width} field(s), but a token and "
            f"{len(tag_columns)} tag column(s) need {needed} (a tag column is missing)"
        )
    sentences = Sentences(path, [], tuple([] for _ in tag_columns), [])
    current: list[tuple[int, list[str]]] = []  # the sentence being read: (line number, fields) per token
    for n, fields in records + [(len(records) + 1, [])]:
        if not fields or fields[0] == DOCSTART:
            _close(current, sentences, tag_columns)
            current = []
        elif not _is_comment(fields, width):
            if len(fields) != width:
                raise ValueError(
                    f"{name} line {n}: {len(fields)} fields, but the token lines before have "
                    f"{width} (ragged columns)"
                )
            current.append((n, fields))
    return sentences


def _first_token_line(records):
    return next(n for n, fields in records if fields and fields[0] != DOCSTART)


def _close(rows, sentences, tag_columns):
    if rows:
        sentences.tokens.append([fields[0] for _, fields in rows])
        sentences.lines.append([n for n, _ in rows])
        for column, index in zip(sentences.columns, tag_columns):
            column.append([fields[index] for _, fields in rows])


def _check_same_sentences(gold, pred, check_tokens=True):
    """Raise unless the two files hold the same sentences (lengths, and tokens if asked)."""
    g, p = os.path.basename(gold.path), os.path.basename(pred.path)
    if gold.tokens == pred.tokens:  # the common case, compared at C speed
        return
    for i, (gt, pt, gl, pl) in enumerate(zip(gold.tokens, pred.tokens, gold.lines, pred.lines)):
        if len(gt) != len(pt):
            raise ValueError(
                f"sentence {i + 1} has {len(gt)} tokens in {g} (line {gl[0]}) but {len(pt)} in "
                f"{p} (line {pl[0]}): the files must hold the same sentences"
            )
        if check_tokens:
            for j, (a, b) in enumerate(zip(gt, pt)):
                if a != b:
                    raise InputError(
                        literal(f"token {a!r} at {g} line {gl[j]} but {b!r} at {p} line {pl[j]}: the ")
                        + "files must hold the same tokens ({place} skips this check)",
                        NO_TOKEN_CHECK,
                    )
    if len(gold.tokens) != len(pred.tokens):
        raise ValueError(
            f"{g} has {len(gold.tokens)} sentences but {p} has {len(pred.tokens)}: the first "
            f"{min(len(gold.tokens), len(pred.tokens))} agree, the rest of the longer one has no "
            "partner"
        )


def read_conll_pair(
    gold_path: str | os.PathLike, pred_path: str | os.PathLike, check_tokens: bool = True
) -> Inputs:
    """:class:`Inputs` of a gold and a predicted CoNLL file (each token, tag last)."""
    gold, pred = read_conll(gold_path), read_conll(pred_path)
    _check_same_sentences(gold, pred, check_tokens)
    return Inputs(
        gold.columns[0],
        pred.columns[0],
        gold.tokens,
        {"references": gold_path, "predictions": pred_path},
        {"references": gold.lines, "predictions": pred.lines},
    )


def read_other_predictions(inputs: Inputs, pred_path: str | os.PathLike, check_tokens: bool = True) -> Inputs:
    """``inputs`` with the predictions of another CoNLL file, checked against the same sentences
    (the gold file is not read again)."""
    pred = read_conll(pred_path)
    gold = Sentences(
        inputs.paths["references"], inputs.tokens, (inputs.references,), inputs.lines["references"]
    )
    _check_same_sentences(gold, pred, check_tokens)
    return inputs._replace(
        predictions=pred.columns[0],
        paths={**inputs.paths, "predictions": pred_path},
        lines={**inputs.lines, "predictions": pred.lines},
    )


def read_two_columns(path: str | os.PathLike) -> Inputs:
    """:class:`Inputs` of one file with a gold and a predicted tag column (token, ..., gold, pred).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "both.txt")
    >>> _ = open(path, "w").write("Anna B-PER B-PER\\nsang O B-LOC\\n")
    >>> read_two_columns(path).compute_inputs()
    {'predictions': [['B-PER', 'B-LOC']], 'references': [['B-PER', 'O']]}
    """
    sentences = read_conll(path, tag_columns=(-2, -1))
    gold, pred = sentences.columns
    _check_not_chunks(path, gold)
    return Inputs(
        gold,
        pred,
        sentences.tokens,
        {"references": path, "predictions": path},
        {"references": sentences.lines, "predictions": sentences.lines},
    )


#: the phrase types of CoNLL-2000 chunk tags (CoNLL-2003's third column: ``B-NP``, ``I-VP``, ...)
CHUNK_TYPES = frozenset(("NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "PRT", "CONJP", "INTJ", "LST", "UCP"))


def _check_not_chunks(path, gold):
    """Raise if the gold column of a two-column file holds chunk tags: a CoNLL-2003 file (token POS
    chunk NER) given alone would score its NER column against its chunk column."""
    types = {tag.split("-", 1)[-1] for sentence in gold for tag in sentence if tag != "O"}
    if types and types <= CHUNK_TYPES:
        raise ValueError(
            f"{os.path.basename(path)} looks like CoNLL-2003 (token, POS, chunk, NER): its second-to-last "
            f"column holds chunk tags ({', '.join(sorted(types)[:4])}), not gold entities. Given alone, a file "
            "is read as token ... gold predicted; give the predictions as a second file (the NER tag, the last "
            "column, is then read from each), or add the predicted tags as a last column"
        )


# ---------------------------------------------------------------------------- HIPE TSV


def read_hipe_pair(
    gold_path: str | os.PathLike,
    pred_path: str | os.PathLike,
    column: str = "NE-COARSE-LIT",
    merge_lines: bool = False,
    check_tokens: bool = True,
) -> Inputs:
    """:class:`Inputs` of a HIPE gold file and a system file, with each segment's document id, so
    that ``compute(**inputs.compute_inputs())`` gives HIPE-scorer's document-level scores too. A
    system file without comments is cut like the gold file; otherwise documents must agree."""
    gold = read_hipe(gold_path, column, merge_lines)
    pred = read_hipe(pred_path, column, merge_lines)
    if not pred.marked and gold.marked:
        pred = resegment(pred, gold)
    g = Sentences(gold_path, gold.tokens, (gold.tags,), gold.lines)
    p = Sentences(pred_path, pred.tokens, (pred.tags,), pred.lines)
    _check_same_sentences(g, p, check_tokens)
    for i, (a, b) in enumerate(zip(gold.document_ids, pred.document_ids)):
        if a != b:
            raise ValueError(
                f"segment {i + 1} is in document {a!r} in {os.path.basename(gold_path)} (line "
                f"{gold.lines[i][0]}) but in {b!r} in {os.path.basename(pred_path)} (line "
                f"{pred.lines[i][0]})"
            )
    return Inputs(
        gold.tags,
        pred.tags,
        gold.tokens,
        {"references": gold_path, "predictions": pred_path},
        {"references": gold.lines, "predictions": pred.lines},
        gold.document_ids,
    )


class Examples(NamedTuple):
    """One JSONL file: per example its tokens (list) or text (str), entities and line."""

    path: str | os.PathLike
    tokens: list
    entities: list
    lines: list


def _json_line(text, where):
    item = parse_json(text, where)
    if not isinstance(item, (dict, list)):
        raise ValueError(
            f"{where}: an example is a JSON object (or a pipeline's list of entities); got {looks_like(item)}"
        )
    return item


def _example(item, where):
    """(tokens or text, [span dicts]) of one JSONL example; (None, entities as the model gave
    them) for a model's output of one text (a list of its entity dicts)."""
    if isinstance(item, list):
        return None, _outputs(item, where)
    content = item.get("tokens", item.get("text"))
    if not (
        isinstance(content, str) or (isinstance(content, list) and all(isinstance(t, str) for t in content))
    ):
        raise ValueError(
            f'{where}: needs "tokens" (a list of str) or "text" (a str); the record looks like {looks_like(item)}'
        )
    entities = item.get("entities")
    if not isinstance(entities, list):
        raise ValueError(
            f'{where}: needs "entities", a list of {{"label", "start", "end"}}; the record looks like {looks_like(item)}'
        )
    if entities and all(output_form(e) is not None for e in entities):
        return content, _outputs(entities, where)
    return content, [_span(e, len(content), f"{where} entity {k}") for k, e in enumerate(entities)]


def _outputs(entities, where):
    """A model's entities as it gave them (a token-classification pipeline's or GLiNER's dicts,
    ``ner_model_outputs``): the metric reads and checks them."""
    for k, entity in enumerate(entities):
        if output_form(entity) is None:
            raise ValueError(
                f"{where} entity {k}: a list of entities is a model's output (a pipeline's or GLiNER's "
                f"dicts, docs/model_outputs.md); got {entity!r:.120}"
            )
    return entities


def _span(entity, size, where):
    if not isinstance(entity, dict) or any(k not in entity for k in ENTITY_KEYS):
        raise ValueError(f'{where}: needs "label", "start" and "end"; got {entity!r}')
    label, start, end = (entity[k] for k in ENTITY_KEYS)
    if not isinstance(label, str) or not label:
        raise ValueError(f"{where}: label must be a non-empty str; got {label!r}")
    if not all(type(x) is int for x in (start, end)) or not 0 <= start < end <= size:
        raise ValueError(
            f"{where}: start and end must be ints with 0 <= start < end <= {size} (end exclusive); "
            f"got {start!r}, {end!r}"
        )
    if "score" in entity:  # a scored prediction: the metric's ranking family checks the value
        return {"label": label, "start": start, "end": end, "score": entity["score"]}
    return {"label": label, "start": start, "end": end}


def read_jsonl(path: str | os.PathLike) -> "Examples":
    """:class:`Examples` of a JSONL file of spans; blank lines are skipped. A line may also be a
    model's output for one text, as ``compute`` takes it (``ner_model_outputs``): a JSON list of a
    token-classification pipeline's or GLiNER's entity dicts (its text is the gold's), or an
    object whose ``"entities"`` are such dicts.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "gold.jsonl")
    >>> _ = open(path, "w").write('{"text": "Anna sang", "entities": [{"label": "PER", "start": 0, "end": 4}]}\\n')
    >>> read_jsonl(path).entities
    [[{'label': 'PER', 'start': 0, 'end': 4}]]
    """
    with no_cycle_collection():
        return _read_jsonl(path)


def _read_jsonl(path):
    name = os.path.basename(path)
    examples = Examples(path, [], [], [])
    for n, line in enumerate(text_lines(path), 1):
        if line.strip():
            content, entities = _example(_json_line(line, f"{name} line {n}"), f"{name} line {n}")
            examples.tokens.append(content)
            examples.entities.append(entities)
            examples.lines.append(n)
    if not examples.lines:
        raise ValueError(f"{name}: no examples (an empty file?)")
    return examples


def read_jsonl_pair(
    gold_path: str | os.PathLike, pred_path: str | os.PathLike, check_tokens: bool = True
) -> Inputs:
    """:class:`Inputs` of a gold and a predicted JSONL file: lists of span dicts per example."""
    gold, pred = read_jsonl(gold_path), read_jsonl(pred_path)
    g, p = os.path.basename(gold_path), os.path.basename(pred_path)
    if any(t is None for t in gold.tokens):
        k = gold.tokens.index(None)
        raise ValueError(
            f'{g} line {gold.lines[k]}: a gold example needs "text" or "tokens" (a list of entities is a model\'s output)'
        )
    outputs = any(e and output_form(e[0]) for e in pred.entities)
    if outputs and not all(isinstance(t, str) for t in gold.tokens):
        raise ValueError(
            f'{p} holds a model\'s output, whose offsets are characters: the gold {g} needs "text", not "tokens"'
        )
    for i, (a, b) in enumerate(zip(gold.tokens, pred.tokens)):
        if check_tokens and b is not None and a != b:
            raise InputError(
                literal(f"example {i + 1} differs: {g} line {gold.lines[i]} and {p} line {pred.lines[i]} ")
                + "hold different tokens or text ({place} skips this check)",
                NO_TOKEN_CHECK,
            )
    if len(gold.lines) != len(pred.lines):
        raise ValueError(f"{g} has {len(gold.lines)} examples but {p} has {len(pred.lines)}")
    return Inputs(
        gold.entities,
        pred.entities,
        gold.tokens,
        {"references": gold_path, "predictions": pred_path},
        {"references": gold.lines, "predictions": pred.lines},
        options={"texts": gold.tokens} if outputs else None,
    )


def read_second_predictions(
    inputs: Inputs,
    pred_path: str | os.PathLike,
    check_tokens: bool = True,
    column: str | None = None,
    file_format: str | None = None,
) -> Inputs:
    """``inputs`` (from :func:`read_pair`) with a second system's predictions file instead: a CoNLL
    file checked against the same sentences (the gold file is not read again); any other format
    read as :func:`read_pair` reads it with the gold file."""
    gold = inputs.paths["references"]
    if gold == inputs.paths["predictions"]:
        raise ValueError(
            "a second predictions file needs a gold file of its own, not one with two tag columns"
        )
    check_file(pred_path, folder=True)
    if (file_format or pair_format(gold, pred_path)) != "conll":
        return read_pair(gold, pred_path, check_tokens, column, file_format)
    return read_other_predictions(inputs, pred_path, check_tokens)


def is_jsonl(path: str | os.PathLike) -> bool:
    return str(path).lower().endswith(JSONL_SUFFIXES)


#: formats ``read_pair`` can be told (``file_format``), beyond telling them by name and content,
#: each with what it is and the optional package it needs (None: none beyond requirements.txt)
FILE_FORMATS = {
    "conll": ("CoNLL columns: token first, tag last (alone: token ... gold predicted)", None),
    "jsonl": ('JSONL spans {"text" or "tokens", "entities"}, or a model\'s output per line', None),
    "hipe": ("CLEF-HIPE TSV (its header names the columns)", None),
    "harem": ("HAREM golden collection markup", None),
    "brat": ("brat standoff (.ann beside its .txt, or a folder)", None),
    "label-studio": ("Label Studio JSON export", None),
    "doccano": ("doccano JSONL", None),
    "prodigy": ("Prodigy JSONL", None),
    "spacy": ("spaCy DocBin (.spacy)", PACKAGES["spacy"]),
    "conllu": ("CoNLL-U with NER tags", None),
}
PAIR_FORMATS = tuple(FILE_FORMATS)


def read_pair(
    gold_path: str | os.PathLike,
    pred_path: str | os.PathLike | None = None,
    check_tokens: bool = True,
    column: str | None = None,
    file_format: str | None = None,
) -> Inputs:
    """:class:`Inputs` of gold and predictions: two CoNLL or two JSONL files (by the name's ending:
    .jsonl, .json, .ndjson), two HIPE TSV files (by their header; ``column``, default
    ``NE-COARSE-LIT``, names the tag column), or, without ``pred_path``, one file with two tag
    columns; the formats of :data:`FILE_FORMATS` by name and content, or as ``file_format`` says. A
    missing file is ``ValueError("no such file: PATH")``."""
    for name, path in (("gold_path", gold_path), ("pred_path", pred_path)):
        if not (path is None and name == "pred_path") and not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"{name} must be the path of a file; got {path!r}")
    if file_format is not None and file_format not in FILE_FORMATS:
        raise ValueError(
            f"file_format must be one of {list(FILE_FORMATS)} (or None: by name and content); got {file_format!r}"
        )
    for path in (gold_path, pred_path):
        if path is not None:
            check_file(path, folder=True)
    if file_format is not None and pred_path is None and file_format != "conll":
        raise InputError(
            "{place}={item!r} reads a gold and a predictions file; give both", "file_format", item=file_format
        )
    if file_format is not None:
        return _read_as(file_format, gold_path, pred_path, check_tokens, column)
    if pred_path is None:
        return read_two_columns(gold_path)
    if column is not None and format_of(gold_path) in ("conll", "jsonl"):
        raise InputError(
            "{place}={item!r} applies to HIPE TSV files; "
            + literal(f"{os.path.basename(gold_path)} is not one"),
            "column",
            item=column,
        )
    found = pair_format(gold_path, pred_path)
    if found == "harem":
        return read_harem_inputs(gold_path, pred_path)
    if found in FORMATS:
        return read_annotated_pair(gold_path, pred_path)
    if found == "hipe":
        return read_hipe_pair(gold_path, pred_path, column or "NE-COARSE-LIT", check_tokens=check_tokens)
    if found == "jsonl":
        return read_jsonl_pair(gold_path, pred_path, check_tokens)
    return read_conll_pair(gold_path, pred_path, check_tokens)


def format_of(path: str | os.PathLike) -> str:
    """The format of :data:`FILE_FORMATS` a file is read in when none is given, told by its name and
    content (CoNLL when nothing else fits)."""
    if is_harem(path):
        return "harem"
    return annotated_format(path) or ("hipe" if is_hipe(path) else "jsonl" if is_jsonl(path) else "conll")


def pair_format(gold_path: str | os.PathLike, pred_path: str | os.PathLike) -> str:
    """The format a gold and a predictions file are read in, told by name and content (the gold's);
    an :class:`InputError` naming each file's format when the two do not read together. The annotation
    tools' formats mix (each file is read in its own), and HAREM's reader takes any system file (one
    without entities has no markup to tell it by)."""
    gold, pred = format_of(gold_path), format_of(pred_path)
    if gold == pred or gold == "harem" or (gold in FORMATS and pred in FORMATS):
        return gold
    g, p = os.path.basename(gold_path), os.path.basename(pred_path)
    raise InputError(
        literal(f"{g} is {gold!r} but {p} is {pred!r}: ")
        + "the gold and the predictions must be in one format, told by their name and content or given as "
        + "{place}, one of "
        + literal(str(list(FILE_FORMATS))),
        "file_format",
    )


def _read_as(file_format, gold_path, pred_path, check_tokens, column):
    """:func:`read_pair` told the format."""
    if column is not None and file_format != "hipe":
        raise InputError(
            "{place}={item!r} applies to HIPE TSV files, not to " + literal(repr(file_format)),
            "column",
            item=column,
        )
    if file_format == "conll":
        if pred_path is None:
            return read_two_columns(gold_path)
        return read_conll_pair(gold_path, pred_path, check_tokens)
    if file_format == "jsonl":
        return read_jsonl_pair(gold_path, pred_path, check_tokens)
    if file_format == "hipe":
        return read_hipe_pair(gold_path, pred_path, column or "NE-COARSE-LIT", check_tokens=check_tokens)
    if file_format == "harem":
        return read_harem_inputs(gold_path, pred_path)
    return read_annotated_pair(gold_path, pred_path, file_format)


def annotated_format(path: str | os.PathLike) -> str | None:
    """The annotation tool's format of a file (``ner_formats``), or None for this module's own
    layouts (CoNLL, JSONL with "entities" of label/start/end, HIPE)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return "brat"
    if path.endswith(".json"):
        try:
            with open(path, encoding="utf-8") as f:
                head = f.read(64).lstrip()
        except (OSError, UnicodeDecodeError):
            return None
        return "label-studio" if head.startswith("[") else None
    if not path.endswith((".ann", ".spacy", ".conllu", ".jsonl")):
        return None
    try:
        return guess_format(path)
    except (ValueError, OSError, UnicodeDecodeError):
        return None


def read_annotated_pair(
    gold_path: str | os.PathLike, pred_path: str | os.PathLike, format: str | None = None
) -> Inputs:
    """:class:`Inputs` of two files of an annotation tool's format (``ner_formats``): the same
    texts on both sides, character spans, scored with ``texts``. The examples are paired as
    ``ner_formats.pair_examples`` pairs them (Label Studio's tasks by id or text, brat's documents by
    name: in the gold's order) and named as ``ner_formats.places`` names them (a task, a document)."""
    formats = (format or annotated_format(gold_path), format or annotated_format(pred_path))
    gold, pred = (read_annotated(path, f) for path, f in zip((gold_path, pred_path), formats))
    order = pair_examples(gold, pred, formats, (_name(gold_path), _name(pred_path)))
    pred_places = places(pred, formats[1])
    return Inputs(
        gold.entities,
        [pred.entities[j] for j in order],
        gold.texts,
        {"references": gold_path, "predictions": pred_path},
        {"references": places(gold, formats[0]), "predictions": [pred_places[j] for j in order]},
        options={"texts": gold.texts},
    )


def _name(path: str | os.PathLike) -> str:
    """The name of a file or folder (``brat/`` is ``brat``)."""
    return os.path.basename(os.path.normpath(path))


def _labels_of(items):
    for item in items:
        for entity in [e for alt in item["alternatives"] for e in alt] if "alternatives" in item else [item]:
            yield from entity["label"] if isinstance(entity["label"], list) else [entity["label"]]


def read_harem_inputs(gold_path: str | os.PathLike, system_path: str | os.PathLike) -> Inputs:
    """:class:`Inputs` of a HAREM gold file and a system file in the same markup (``ner_harem``):
    per document its text, the gold items (doubt included) and the system's entities placed on
    the gold text; ``options`` gives ``texts`` and, when a label has a type, ``type_separator``."""
    gold, predictions, unplaced = read_harem_pair(gold_path, system_path)
    labels = {label for items in gold.items + predictions for label in _labels_of(items)}
    options: dict[str, Any] = {"texts": gold.texts}
    if any(":" in label for label in labels):
        options["type_separator"] = ":"
    return Inputs(
        gold.items,
        predictions,
        gold.texts,
        {"references": gold_path, "predictions": system_path},
        {"references": gold.lines, "predictions": gold.lines},
        list(gold.document_ids),
        options,
        unplaced,
    )


#: the attributes that make an error an :class:`InputError`
INPUT_ERROR_FIELDS = ("side", "sentence", "token", "noted")


def locate(error: Exception, inputs: "Inputs") -> str:
    """The message of ``error`` with the file and line of its place: an :class:`InputError` of the
    metric at ``predictions[i][j]`` (or ``references``, ``predictions_b``: the side as ``inputs``
    names it, ``names`` maps the others) is written again with its note; any other error as it is.

    >>> inputs = Inputs([["O"]], [["X"]], [["a"]], {"references": "g.conll", "predictions": "p.conll"},
    ...                 {"references": [[3]], "predictions": [[7]]})
    >>> locate(InputError("invalid tag {item!r} at {place}", "predictions", 0, 0, "X"), inputs)
    "invalid tag 'X' at predictions[0][0] (p.conll line 7)"
    """
    return str(located(error, inputs))


def located(error: Exception, inputs: "Inputs", side: str | None = None) -> Exception:
    """``error`` with the file and line of its place noted (:func:`locate`), the same object when it
    has no place in ``inputs``; ``side``: the side of ``inputs`` its place is on, when the error
    names it otherwise (``predictions_b``). An :class:`InputError` is told by its attributes: the
    metric ``evaluate.load`` returns raises the class of its own copy of ``ner_core``."""
    if not all(hasattr(error, k) for k in INPUT_ERROR_FIELDS):
        return error
    place: InputError = error  # type: ignore[assignment]  # one of the InputError classes
    side = side or place.side
    lines = (inputs.lines or {}).get(side)
    if place.sentence is None or lines is None or not 0 <= place.sentence < len(lines):
        return error
    return place.noted(inputs.where(side, place.sentence, place.token))
