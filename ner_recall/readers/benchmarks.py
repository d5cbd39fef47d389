"""ner_benchmarks: EstNLTK-style NER recall benchmarks as ``datasets.Dataset``, and span alignment.

A benchmark is a folder ``NAME/`` with a ``data_description.csv`` and one CSV file per population
(subgroup) of candidate phrases. ``data_description.csv`` has one row per population: a leading
index column, ``population`` (its name), ``occurences`` (candidate phrases of the population in the
whole corpus), ``labelled`` (how many of them were inspected by hand), ``positive`` (how many of the
inspected ones are true entities; they are the rows of the population's file) and ``file`` (the
population's file, relative to the folder that holds ``NAME/``, or to ``NAME/`` itself, or absolute).
A population file has a leading index column, ``text`` (one sentence), ``span`` (a Python dict
literal ``{'start': int, 'end': int, 'text': str, 'labels': [str, ...]}``, character offsets into
``text``, end exclusive) and optionally ``correct`` (``yes``/``no``). Each row annotates exactly one
entity, the sampled one, so a benchmark measures recall only.

Tokens: the benchmark texts come tokenised with spaces. A text's tokens are its whitespace-separated
words, cut again wherever the gold span starts or ends inside one, so the gold span always starts
on a token start and ends on a token end. A gold span that starts or ends with whitespace (seven
rows of amundsen_01 do, e.g. ``'Pori jõgi '``) keeps that whitespace as a token of its own: the
published evaluation compares character offsets, so a prediction without the space must not match.

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> os.makedirs(os.path.join(root, "demo", "data"))
>>> with open(os.path.join(root, "demo", "data_description.csv"), "w", encoding="utf-8") as f:
...     _ = f.write(",population,occurences,labelled,positive,file\\n"
...                 "0,lakes,500,100,1,demo/data/lakes.csv\\n")
>>> with open(os.path.join(root, "demo", "data", "lakes.csv"), "w", encoding="utf-8") as f:
...     _ = f.write(",text,span\\n"
...                 "0,Ujusime Pühajärves .,\\"{'start': 8, 'end': 18, 'text': 'Pühajärve', "
...                 "'labels': ['LOC']}\\"\\n")
>>> load_benchmark(os.path.join(root, "demo", "data_description.csv"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: ...lakes.csv: row 0 (line 2): span text 'Pühajärve' != text[8:18] 'Pühajärves'
>>> with open(os.path.join(root, "demo", "data", "lakes.csv"), "w", encoding="utf-8") as f:
...     _ = f.write(",text,span\\n"
...                 "0,Ujusime Pühajärves .,\\"{'start': 8, 'end': 17, 'text': 'Pühajärve', "
...                 "'labels': ['LOC']}\\"\\n")
>>> data = load_benchmark(os.path.join(root, "demo", "data_description.csv"))
>>> data[0]["tokens"], data[0]["ner_tags"], data[0]["correct"]
(['Ujusime', 'Pühajärve', 's', '.'], ['O', 'B-LOC', 'O', 'O'], None)
>>> benchmark_sizes(os.path.join(root, "demo", "data_description.csv"))
{'lakes': {'occurences': 500, 'labelled': 100, 'positive': 1}}
"""

import ast
import bisect
import csv
import io
import os
import re
import urllib.error
import urllib.request
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import datasets

from ner_recall.core.vocabulary import SIZE_KEYS, is_int

DESCRIPTION_COLUMNS = ("population", *SIZE_KEYS, "file")
FILE_COLUMNS = ("text", "span")
BENCHMARK_SPAN_KEYS = ("start", "end", "text", "labels")
CORRECT_VALUES = {"yes": True, "no": False}
DESCRIPTION_FILE = "data_description.csv"
#: the published EstNLTK recall benchmarks (``PUBLISHED + "/amundsen_01"`` is one of them)
PUBLISHED = (
    "https://raw.githubusercontent.com/estnltk/estnltk-model-data/main/"
    "named_entity_recognition/recall_estimation/benchmarks"
)
#: the largest file a benchmark reads, and how long a server may take to answer
MAX_BYTES = 256 * 2**20
URL_TIMEOUT = 60

FEATURES = datasets.Features(
    {
        "text": datasets.Value("string"),
        "tokens": datasets.Sequence(datasets.Value("string")),
        "token_starts": datasets.Sequence(datasets.Value("int32")),
        "token_ends": datasets.Sequence(datasets.Value("int32")),
        "ner_tags": datasets.Sequence(datasets.Value("string")),
        "subgroup": datasets.Value("string"),
        "row": datasets.Value("int32"),
        "span_start": datasets.Value("int32"),
        "span_end": datasets.Value("int32"),
        "span_text": datasets.Value("string"),
        "span_label": datasets.Value("string"),
        "correct": datasets.Value("bool"),
    }
)


class Population(NamedTuple):
    """One row of ``data_description.csv``: a population and where its rows live."""

    name: str
    occurences: int
    labelled: int
    positive: int
    path: str
    where: str  # "data_description.csv: row 2 (population 'A')", for messages


# ---------------------------------------------------------------- loading


def load_benchmark(description_csv: str | os.PathLike) -> datasets.Dataset:
    """Load a benchmark as a ``datasets.Dataset``, one example per sampled entity.

    Args:
        description_csv (str or os.PathLike): the benchmark's ``data_description.csv``, its folder,
            or an http(s) URL of either: ``PUBLISHED + "/amundsen_01"`` reads the published
            benchmark from its public repository (:data:`PUBLISHED`).

    Returns:
        datasets.Dataset with the columns
        ``text`` (str), ``tokens`` (list of str), ``token_starts``, ``token_ends`` (list of int,
        character offsets into ``text``, end exclusive), ``ner_tags`` (list of str, IOB2 over
        ``tokens``: only the sampled entity, e.g. ``['O', 'B-LOC', 'I-LOC']``), ``subgroup`` (str,
        the population), ``row`` (int, 0-based data row in the population's file, the row the
        errors name), ``span_start``, ``span_end`` (int), ``span_text`` (str), ``span_label`` (str,
        the first of the span's labels, the one the published evaluation compares), and
        ``correct`` (bool from the file's ``yes``/``no`` column: whether the EstNLTK default
        tagger found the entity; None where the file has no ``correct`` column).
        Examples come in the order of the description's populations, then of the file's rows.

    Raises:
        ValueError naming the file and row: a required column is missing, a listed file does not
        exist, a file's row count differs from its ``positive``, a span is not a dict with
        ``start``, ``end``, ``text``, ``labels``, its offsets are out of range, ``text[start:end]``
        differs from its ``text``, or ``labels`` is not a non-empty list of str.

    Warns (UserWarning): a population has ``labelled > occurences``; the same sentence and span
    occur in two rows (naming both populations and rows).
    """
    columns: dict[str, list[object]] = {name: [] for name in FEATURES}
    seen: dict[tuple[str, int, int], tuple[str, int]] = {}
    for population in read_description(description_csv):
        for example in _read_population(population):
            _warn_duplicate(example, seen)
            for name, value in example.items():
                columns[name].append(value)
    return datasets.Dataset.from_dict(columns, features=FEATURES)


def benchmark_sizes(description_csv: str | os.PathLike) -> dict[str, dict[str, int]]:
    """``{population: {"occurences": int, "labelled": int, "positive": int}}`` of a benchmark.

    The form the metric's ``subgroup_weights`` option takes: population p's estimated number of
    positives in the corpus is ``positive * occurences / labelled``. Populations with no positive
    (no rows, so no weight) are left out. Only ``data_description.csv`` is read and checked.
    """
    return {
        p.name: {key: getattr(p, key) for key in SIZE_KEYS}
        for p in read_description(description_csv)
        if p.positive > 0
    }


def read_description(description_csv: str | os.PathLike) -> list[Population]:
    """The populations of ``data_description.csv``, validated, with their files resolved."""
    description_csv = description_path(description_csv)
    header, rows = _read_csv(description_csv)
    _require_columns(header, DESCRIPTION_COLUMNS, description_csv)
    populations, names = [], set()
    for i, line, record in rows:
        name = record["population"]
        where = f"{description_csv}: row {i} (line {line}, population {name!r})"
        if not name or name in names:
            raise ValueError(f"{where}: population names must be non-empty and unique")
        names.add(name)
        occurences, labelled, positive = (_count(record[key], key, where) for key in SIZE_KEYS)
        if positive > labelled:
            raise ValueError(f"{where}: positive ({positive}) > labelled ({labelled})")
        if labelled > occurences:
            warnings.warn(
                f"{where}: labelled ({labelled}) > occurences ({occurences}); the size "
                "estimate positive * occurences / labelled is used as given",
                UserWarning,
                stacklevel=3,
            )
        path = _resolve(record["file"], description_csv, where)
        populations.append(Population(name, occurences, labelled, positive, path, where))
    return populations


def _read_csv(path: str) -> tuple[list[str], list[tuple[int, int, dict[str, str]]]]:
    """(header, [(row index, line number, {column: value})]) of a CSV file or URL, strings unparsed."""
    reader = csv.reader(io.StringIO(_read_text(path), newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{path}: empty file, expected a header row")
        rows, line = [], reader.line_num + 1
        for i, values in enumerate(reader):
            if len(values) != len(header):
                raise ValueError(
                    f"{path}: row {i} (line {line}) has {len(values)} fields; the header has {len(header)}"
                )
            rows.append((i, line, dict(zip(header, values))))
            line = reader.line_num + 1
    except csv.Error as error:
        raise ValueError(f"{path}: cannot read as a CSV file: {error}") from error
    return header, rows


def is_url(location: object) -> bool:
    """Whether ``location`` is an http(s) URL (read over the network) rather than a path."""
    return isinstance(location, str) and location.startswith(("http://", "https://"))


def _read_text(location: str) -> str:
    """The UTF-8 text of a file or an http(s) URL, at most :data:`MAX_BYTES` bytes."""
    url = is_url(location)
    try:
        if url:
            with urllib.request.urlopen(location, timeout=URL_TIMEOUT) as response:
                data = response.read(MAX_BYTES + 1)
        else:
            with open(location, "rb") as f:
                data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ValueError(f"{location}: no such file") from None
    except urllib.error.HTTPError as error:
        raise ValueError(f"{location}: the server answered {error.code} {error.reason}") from None
    except (OSError, urllib.error.URLError) as error:
        raise ValueError(f"{location}: cannot read it: {error}") from None
    if len(data) > MAX_BYTES:
        raise ValueError(f"{location}: larger than {MAX_BYTES:,} bytes; a benchmark file is far smaller")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"{location}: cannot read as UTF-8 text: {error}") from None


def _require_columns(header, required, path):
    missing = [column for column in required if column not in header]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; has {header}")


def _count(value, key, where):
    if not re.fullmatch(r"[0-9]+", value.strip()):
        raise ValueError(f"{where}: {key} must be a non-negative integer; got {value!r}")
    return int(value)


def _resolve(file: str, description_csv: str, where: str) -> str:
    """``file`` relative to the benchmarks root (the description's grandparent), else to the
    description's own folder; an absolute path as it is. For a URL, the same two places on its
    server, the first that answers."""
    if is_url(description_csv):
        folder = description_csv.rsplit("/", 1)[0]
        candidates = [f"{folder.rsplit('/', 1)[0]}/{file}", f"{folder}/{file}"]
        for candidate in candidates:
            if _url_exists(candidate):
                return candidate
    else:
        benchmark_dir = os.path.dirname(os.path.abspath(description_csv))
        candidates = [os.path.join(os.path.dirname(benchmark_dir), file), os.path.join(benchmark_dir, file)]
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate
    raise ValueError(f"{where}: file {file!r} not found (looked for {candidates})")


def _url_exists(url: str) -> bool:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=URL_TIMEOUT):
            return True
    except urllib.error.HTTPError as error:
        if error.code in (404, 410):
            return False
        raise ValueError(f"{url}: the server answered {error.code} {error.reason}") from None
    except (OSError, urllib.error.URLError) as error:
        raise ValueError(f"{url}: cannot read it: {error}") from None


def description_path(source: str | os.PathLike) -> str:
    """The ``data_description.csv`` that ``source`` names: the file itself, a benchmark's folder,
    or an http(s) URL of either (a URL that does not end in ``.csv`` is taken as a folder)."""
    if not isinstance(source, (str, os.PathLike)):
        raise ValueError(
            "description_csv must be the path or URL of a data_description.csv, or of a benchmark's "
            f"folder; got {source!r}"
        )
    source = os.fspath(source)
    if is_url(source):
        return source if source.endswith(".csv") else f"{source.rstrip('/')}/{DESCRIPTION_FILE}"
    return os.path.join(source, DESCRIPTION_FILE) if os.path.isdir(source) else source


def _read_population(population):
    """The examples of one population's file, validated (see ``load_benchmark``)."""
    header, rows = _read_csv(population.path)
    _require_columns(header, FILE_COLUMNS, population.path)
    if len(rows) != population.positive:
        raise ValueError(
            f"{population.path}: has {len(rows)} rows but {population.where} gives "
            f"positive={population.positive}"
        )
    has_correct = "correct" in header
    for i, line, record in rows:
        where = f"{population.path}: row {i} (line {line})"
        start, end, span_text, label = _parse_span(record["span"], record["text"], where)
        yield _example(
            record["text"],
            start,
            end,
            span_text,
            label,
            population.name,
            i,
            _parse_correct(record["correct"], where) if has_correct else None,
        )


def _parse_span(literal, text, where):
    """(start, end, text, first label) of a span literal, checked against the sentence."""
    try:
        span = ast.literal_eval(literal)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as error:
        raise ValueError(f"{where}: span is not a Python literal: {literal!r}") from error
    if not isinstance(span, dict) or any(key not in span for key in BENCHMARK_SPAN_KEYS):
        raise ValueError(
            f"{where}: span must be a dict with keys {list(BENCHMARK_SPAN_KEYS)}; got {literal!r}"
        )
    start, end, span_text, labels = (span[key] for key in BENCHMARK_SPAN_KEYS)
    if not (is_int(start) and is_int(end) and 0 <= start < end <= len(text)):
        raise ValueError(
            f"{where}: span offsets ({start!r}, {end!r}) must be ints with "
            f"0 <= start < end <= {len(text)} (the text's length)"
        )
    if span_text != text[start:end]:
        raise ValueError(f"{where}: span text {span_text!r} != text[{start}:{end}] {text[start:end]!r}")
    if not (isinstance(labels, list) and labels and all(isinstance(x, str) and x for x in labels)):
        raise ValueError(f"{where}: span labels must be a non-empty list of non-empty str; got {labels!r}")
    return start, end, span_text, labels[0]


def _parse_correct(value, where):
    if value.strip().lower() not in CORRECT_VALUES:
        raise ValueError(f"{where}: correct must be one of {list(CORRECT_VALUES)}; got {value!r}")
    return CORRECT_VALUES[value.strip().lower()]


def _example(text, start, end, span_text, label, subgroup, row, correct):
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    starts, ends = refine([a for a, _ in words], [b for _, b in words], [(start, end, label)])
    return {
        "text": text,
        "tokens": [text[a:b] for a, b in zip(starts, ends)],
        "token_starts": starts,
        "token_ends": ends,
        "ner_tags": spans_to_tags(starts, ends, [(start, end, label)]),
        "subgroup": subgroup,
        "row": row,
        "span_start": start,
        "span_end": end,
        "span_text": span_text,
        "span_label": label,
        "correct": correct,
    }


def _warn_duplicate(example, seen):
    key = (example["text"], example["span_start"], example["span_end"])
    here = (example["subgroup"], example["row"])
    if key in seen:
        (group, row), span_text, (_, start, end) = seen[key], example["span_text"], key
        warnings.warn(
            f"the same sentence and span {span_text!r} ({start}, {end}) occur in population "
            f"{group!r} row {row} and population {here[0]!r} row {here[1]}",
            UserWarning,
            stacklevel=3,
        )
    else:
        seen[key] = here


# ---------------------------------------------------------------- alignment


def refine(
    token_starts: Sequence[int], token_ends: Sequence[int], spans: Sequence[tuple[Any, ...]]
) -> tuple[list[int], list[int]]:
    """Cut a token grid at every boundary of ``spans``; return the new ``(starts, ends)``.

    A token that a span boundary falls inside is split there. A span boundary in the whitespace
    between tokens adds that whitespace, from the boundary to the neighbouring token, as a token
    of its own, so every span starts on a token start and ends on a token end, and two spans cover
    the same tokens exactly when they have the same character offsets.

    Args:
        token_starts, token_ends (list of int): the grid, sorted, non-overlapping, end exclusive.
        spans (list of (start, end, label)): character offsets, end exclusive.

    >>> # "Ujusime Pühajärves ." with the span "Pühajärve"
    >>> refine([0, 8, 19], [7, 18, 20], [(8, 17, "LOC")])
    ([0, 8, 17, 19], [7, 17, 18, 20])
    >>> refine([0, 8, 19], [7, 18, 20], [(7, 18, "LOC")])  # starts on the space
    ([0, 7, 8, 19], [7, 8, 18, 20])
    """
    cuts = sorted(set(token_starts) | set(token_ends) | {x for span in spans for x in span[:2]})
    heads, tails = {span[0] for span in spans}, {span[1] for span in spans}
    starts, ends = [], []
    for a, b in zip(cuts, cuts[1:]):
        k = bisect.bisect_right(token_starts, a) - 1
        in_token = k >= 0 and token_ends[k] >= b
        if in_token or a in heads or b in tails:
            starts.append(a)
            ends.append(b)
    return starts, ends


def spans_to_tags(
    token_starts: Sequence[int], token_ends: Sequence[int], spans: Sequence[tuple[Any, ...]]
) -> list[str]:
    """IOB2 tags over tokens for character spans that start and end on token boundaries.

    Raises ValueError for a span that cuts a token or starts or ends in whitespace (``refine``
    the grid first, or use ``align``), for overlapping spans, and for malformed spans.

    >>> spans_to_tags([0, 8, 19], [7, 18, 20], [(8, 20, "LOC")])
    ['O', 'B-LOC', 'I-LOC']
    >>> spans_to_tags([0, 8, 19], [7, 18, 20], [(8, 17, "LOC")])
    Traceback (most recent call last):
    ValueError: span (8, 17, 'LOC') is not on token boundaries; refine the token grid first (see align)
    """
    spans = check_spans(spans, token_ends[-1] if token_ends else 0)
    first = {start: i for i, start in enumerate(token_starts)}
    last = {end: i for i, end in enumerate(token_ends)}
    tags = ["O"] * len(token_starts)
    for span in spans:
        start, end, label = span
        if start not in first or end not in last:
            raise ValueError(
                f"span {span!r} is not on token boundaries; refine the token grid first (see align)"
            )
        i, j = first[start], last[end]
        tags[i : j + 1] = [f"B-{label}"] + [f"I-{label}"] * (j - i)
    return tags


def check_spans(spans: Any, length: int, what: str = "span") -> list[tuple[int, int, str]]:
    """``spans`` as sorted ``(start, end, label)`` tuples; ValueError if malformed or overlapping."""
    checked = []
    for span in spans:
        if not (isinstance(span, (tuple, list)) and len(span) == 3):
            raise ValueError(f"{what} {span!r} must be a (start, end, label) tuple")
        start, end, label = span
        if not (is_int(start) and is_int(end) and 0 <= start < end <= length):
            raise ValueError(
                f"{what} {tuple(span)!r}: offsets must be ints with 0 <= start < end <= {length}"
            )
        if not (isinstance(label, str) and label):
            raise ValueError(f"{what} {tuple(span)!r}: label must be a non-empty str")
        checked.append((int(start), int(end), label))
    checked.sort()
    for before, after in zip(checked, checked[1:]):
        if after[0] < before[1]:
            raise ValueError(f"{what}s {before!r} and {after!r} overlap")
    return checked


#: the keys of a benchmark example that ``align`` reads
EXAMPLE_KEYS = ("text", "token_starts", "token_ends", "span_start", "span_end", "span_label")


def align(
    example: Mapping[str, Any], pred_spans: Sequence[tuple[int, int, str]]
) -> tuple[list[str], list[str], list[str]]:
    """A tagger's character spans and an example's gold span as IOB2 tags on one token grid.

    The example's tokens are cut at every predicted boundary that falls inside a token or in
    whitespace (``refine``); the gold span keeps its exact extent on the new grid. A predicted span
    then decodes to the same tokens as the gold span exactly when it has the same character
    offsets: a span that cuts a token is never an exact match, whichever way it cuts.

    Args:
        example (dict): a row of ``load_benchmark`` (uses ``text``, ``token_starts``,
            ``token_ends``, ``span_start``, ``span_end``, ``span_label``).
        pred_spans (list of (start, end, label)): the tagger's entities in ``text``, character
            offsets, end exclusive. Overlapping spans raise ValueError naming them.

    Returns:
        (tokens, references, predictions): lists of equal length, the tags IOB2.

    >>> example = {"text": "Ujusime Pühajärves .", "token_starts": [0, 8, 19],
    ...            "token_ends": [7, 18, 20], "span_start": 8, "span_end": 18, "span_label": "LOC"}
    >>> align(example, [(8, 18, "LOC")])
    (['Ujusime', 'Pühajärves', '.'], ['O', 'B-LOC', 'O'], ['O', 'B-LOC', 'O'])
    >>> align(example, [(8, 17, "LOC")])  # cuts 'Pühajärves': no exact match
    (['Ujusime', 'Pühajärve', 's', '.'], ['O', 'B-LOC', 'I-LOC', 'O'], ['O', 'B-LOC', 'O', 'O'])
    >>> align(example, [(0, 10, "PER"), (9, 18, "LOC")])
    Traceback (most recent call last):
    ValueError: predicted spans (0, 10, 'PER') and (9, 18, 'LOC') overlap
    """
    missing = [k for k in EXAMPLE_KEYS if not isinstance(example, dict) or k not in example]
    if missing:
        raise ValueError(
            f"example must be a row of load_benchmark, a dict with {list(EXAMPLE_KEYS)}; missing {missing}"
        )
    if isinstance(pred_spans, (str, bytes, dict)) or not isinstance(pred_spans, (list, tuple)):
        raise ValueError(f"pred_spans must be a list of (start, end, label); got {type(pred_spans).__name__}")
    text = example["text"]
    gold = (example["span_start"], example["span_end"], example["span_label"])
    preds = check_spans(pred_spans, len(text), "predicted span")
    starts, ends = refine(list(example["token_starts"]), list(example["token_ends"]), preds)
    tokens = [text[a:b] for a, b in zip(starts, ends)]
    return tokens, spans_to_tags(starts, ends, [gold]), spans_to_tags(starts, ends, preds)
