"""CLEF-HIPE TSV files (2020 and 2022 layouts): one file's segments, the tags of one column, the
line of each token and the document of each segment; a system file without comments cut like its
gold. ``ner_files.read_hipe_pair`` makes a gold and a system file the pair ``compute`` takes.
"""

import os
from typing import NamedTuple

from ner_recall.readers.formats import text_lines

HIPE_DOCUMENT = ("# document_id", "# hipe2022:document_id")
HIPE_SEGMENT = "# segment"


class HipeFile(NamedTuple):
    """One HIPE TSV file: per segment its tokens, the tags of one column, the line of each token
    and its document's id."""

    path: str | os.PathLike
    tokens: list
    tags: list
    lines: list
    document_ids: list
    marked: bool  # whether the file has document or segment comments


def read_hipe(
    path: str | os.PathLike, column: str = "NE-COARSE-LIT", merge_lines: bool = False
) -> "HipeFile":
    """:class:`HipeFile` of a CLEF-HIPE TSV file (2020 and 2022 layouts), reading ``column``.

    The first line names the columns (``TOKEN NE-COARSE-LIT ... MISC``), fields are separated by
    tabs, and lines starting with ``#`` are comments: ``# document_id = X`` (2020) or ``#
    hipe2022:document_id = X`` starts a document, ``# segment...`` (2020) a segment within it. A
    document without segment comments is one segment; ``merge_lines=True`` makes every document
    one segment, so that an entity may cross a line (HIPE-scorer's ``merge_lines``). Tags are kept
    as written (IOB or IOBES): the scoring's ``scheme`` judges them.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "gold.tsv")
    >>> _ = open(path, "w").write("TOKEN\\tNE-COARSE-LIT\\tMISC\\n# hipe2022:document_id = d1\\n"
    ...     "Anna\\tB-pers\\t_\\nsang\\tO\\t_\\n# hipe2022:document_id = d2\\nBern\\tB-loc\\t_\\n")
    >>> f = read_hipe(path)
    >>> f.tokens, f.tags, f.document_ids
    ([['Anna', 'sang'], ['Bern']], [['B-pers', 'O'], ['B-loc']], ['d1', 'd2'])
    >>> read_hipe(path, column="NE-FINE-LIT")
    Traceback (most recent call last):
    ValueError: gold.tsv line 1: no column 'NE-FINE-LIT'; the columns are TOKEN, NE-COARSE-LIT, MISC
    """
    name = os.path.basename(path)
    records = [(n, line) for n, line in _raw_lines(path) if line.strip()]
    if not records:
        raise ValueError(f"{name}: no lines (an empty file?)")
    header_line, header = records[0][0], records[0][1].split("\t")
    if column not in header:
        raise ValueError(
            f"{name} line {header_line}: no column {column!r}; the columns are {', '.join(header)}"
        )
    index = header.index(column)
    out = HipeFile(path, [], [], [], [], False)
    document, count, segment = None, 0, []  # type: ignore[var-annotated]

    def close():
        if segment:
            out.tokens.append([token for _, token, _ in segment])
            out.tags.append([tag for _, _, tag in segment])
            out.lines.append([n for n, _, _ in segment])
            out.document_ids.append(document if document is not None else f"#{count}")
            segment.clear()

    for n, line in records[1:]:
        if line.startswith("#"):
            comment = line.split("\t")[0].strip()
            if comment.startswith(HIPE_DOCUMENT):
                close()
                count += 1
                document = comment.partition("=")[2].strip() or f"#{count}"
                out = out._replace(marked=True)
            elif comment.startswith(HIPE_SEGMENT):
                out = out._replace(marked=True)
                if not merge_lines:
                    close()
            continue
        fields = line.split("\t")
        if len(fields) <= index or not fields[index].strip():
            raise ValueError(f"{name} line {n}: no {column} field (the header names {len(header)})")
        segment.append((n, fields[0], fields[index].strip()))
    close()
    return out


def _raw_lines(path):
    return list(enumerate(text_lines(path), 1))


def resegment(pred: HipeFile, gold: HipeFile) -> HipeFile:
    """A predictions file without document or segment comments, cut like the gold file (as
    HIPE-scorer does); ValueError when the token counts differ."""
    flat = [(token, tag, n) for seg in zip(pred.tokens, pred.tags, pred.lines) for token, tag, n in zip(*seg)]
    total = sum(map(len, gold.tokens))
    if len(flat) != total:
        raise ValueError(
            f"{os.path.basename(pred.path)} has {len(flat)} tokens and no document comments, but "
            f"{os.path.basename(gold.path)} has {total}: the files must hold the same tokens"
        )
    tokens, tags, lines, at = [], [], [], 0
    for seg in gold.tokens:
        part = flat[at : at + len(seg)]
        tokens.append([t for t, _, _ in part])
        tags.append([g for _, g, _ in part])
        lines.append([n for _, _, n in part])
        at += len(seg)
    return pred._replace(tokens=tokens, tags=tags, lines=lines, document_ids=list(gold.document_ids))


def is_hipe(path: str | os.PathLike) -> bool:
    """Whether a file is in HIPE's TSV layout: its first line names the columns, ``TOKEN`` first
    and a ``NE-`` column among them."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            first = f.readline().rstrip("\r\n").split("\t")
    except (OSError, UnicodeDecodeError):
        return False
    return first[0] == "TOKEN" and any(name.startswith("NE-") for name in first)
