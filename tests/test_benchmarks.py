"""ner_benchmarks: the shared benchmarks as datasets, validation, tokenisation, span alignment."""

import collections
import csv
import doctest
import os
import random
import re
import warnings

import pytest
from seqeval.metrics.sequence_labeling import get_entities

from conftest import benchmark_csv
from ner_recall.readers import benchmarks as ner_benchmarks
from ner_recall.readers.benchmarks import align, benchmark_sizes, load_benchmark, spans_to_tags

SUBGROUPS = {
    "amundsen_01": {"levinumad": 350, "mitmetahenduslikud": 13, "ulejaanud": 172},
    "amundsen_02": {"A": 85, "D": 6, "G": 576, "H": 773, "I": 23, "N": 5, "S": 97, "Y": 116, "Z": 4},
}
CORRECT = {"amundsen_01": {True: 344, False: 191}, "amundsen_02": {None: 1685}}
WARNINGS = {
    "amundsen_01": [],
    "amundsen_02": [
        r"population 'I'\): labelled \(1000\) > occurences \(314\)",
        r"'Taimõri järve' \(101, 114\) occur in population 'G' row 219 and population 'S' row 9",
    ],
}


def entities(tags):
    """(label, first token, last token) of IOB2 tags."""
    return [tuple(entity) for entity in get_entities(list(tags))]


# ---------------------------------------------------------------- the shared benchmarks


@pytest.fixture(scope="module", params=sorted(SUBGROUPS))
def shared(request):
    path = benchmark_csv(request.param)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = load_benchmark(path)
    # only the loader's own warnings (UserWarning); libraries may emit others at any time
    return request.param, path, data, [str(w.message) for w in caught if w.category is UserWarning]


def test_shared_subgroup_counts(shared):
    name, path, data, _ = shared
    assert dict(collections.Counter(data["subgroup"])) == SUBGROUPS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # amundsen_02 population I: labelled > occurences
        sizes = benchmark_sizes(path)
    assert {k: v["positive"] for k, v in sizes.items()} == SUBGROUPS[name]


def test_shared_warnings(shared):
    name, _, _, messages = shared
    assert len(messages) == len(WARNINGS[name])
    for pattern in WARNINGS[name]:
        assert any(re.search(pattern, message) for message in messages), (pattern, messages)


def test_shared_gold_span_on_token_boundaries_and_tags_decode_to_it(shared):
    _, _, data, _ = shared
    for example in data:
        starts, ends = example["token_starts"], example["token_ends"]
        assert example["tokens"] == [example["text"][a:b] for a, b in zip(starts, ends)]
        [(label, i, j)] = entities(example["ner_tags"])
        assert (starts[i], ends[j], label) == (
            example["span_start"],
            example["span_end"],
            example["span_label"],
        )
        assert example["text"][starts[i] : ends[j]] == example["span_text"]


def test_shared_correct_column(shared):
    name, _, data, _ = shared
    assert dict(collections.Counter(data["correct"])) == CORRECT[name]


def test_shared_whitespace_at_gold_edges_is_a_token(shared):
    name, _, data, _ = shared
    edged = [(e["subgroup"], e["row"]) for e in data if e["span_text"] != e["span_text"].strip()]
    assert len(edged) == {"amundsen_01": 7, "amundsen_02": 0}[name]
    for example in data:
        if (example["subgroup"], example["row"]) in edged:
            assert any(not token.strip() for token in example["tokens"])


def test_amundsen_02_sizes_plug_into_subgroup_weights():
    path = benchmark_csv("amundsen_02")
    with pytest.warns(UserWarning, match="labelled"):
        sizes = benchmark_sizes(path)
    assert sizes["I"] == {"occurences": 314, "labelled": 1000, "positive": 23}
    assert sizes["H"] == {"occurences": 72084, "labelled": 1000, "positive": 773}


# ---------------------------------------------------------------- small benchmarks in tmp_path

DESCRIPTION = [
    ["", "population", "occurences", "labelled", "positive", "file"],
    ["0", "a", "100", "10", "2", "bench/data/a.csv"],
    ["1", "b", "50", "10", "1", "bench/data/b.csv"],
]
A = [
    ["", "text", "span", "correct"],
    ["0", "Ujusime Pühajärves .", "{'start': 8, 'end': 18, 'text': 'Pühajärves', 'labels': ['LOC']}", "yes"],
    ["1", "Anne kanal on puhas", "{'start': 0, 'end': 10, 'text': 'Anne kanal', 'labels': ['LOC']}", "no"],
]
B = [
    ["id", "text", "span"],
    ["0", "Oahu saarel", "{'start': 0, 'end': 11, 'text': 'Oahu saarel', 'labels': ['LOC']}"],
]


def write_benchmark(root, description=DESCRIPTION, a=A, b=B):
    """A two-population benchmark under root/bench; returns the description's path."""
    os.makedirs(os.path.join(root, "bench", "data"), exist_ok=True)
    for name, rows in (("data_description.csv", description), ("data/a.csv", a), ("data/b.csv", b)):
        if rows is not None:
            with open(os.path.join(root, "bench", name), "w", encoding="utf-8", newline="") as f:
                csv.writer(f).writerows(rows)
    return os.path.join(root, "bench", "data_description.csv")


def replaced(rows, row, column, value):
    copy = [list(r) for r in rows]
    copy[row][column] = value
    return copy


def span(start, end, text, labels="['LOC']"):
    return f"{{'start': {start}, 'end': {end}, 'text': {text!r}, 'labels': {labels}}}"


def test_small_benchmark_columns(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = load_benchmark(write_benchmark(tmp_path))
    assert data["subgroup"] == ["a", "a", "b"]
    assert data["row"] == [0, 1, 0]
    assert data["correct"] == [True, False, None]
    assert data[1]["tokens"] == ["Anne", "kanal", "on", "puhas"]
    assert data[1]["ner_tags"] == ["B-LOC", "I-LOC", "O", "O"]
    assert (data[1]["span_start"], data[1]["span_end"], data[1]["span_text"], data[1]["span_label"]) == (
        0,
        10,
        "Anne kanal",
        "LOC",
    )
    assert benchmark_sizes(write_benchmark(tmp_path)) == {
        "a": {"occurences": 100, "labelled": 10, "positive": 2},
        "b": {"occurences": 50, "labelled": 10, "positive": 1},
    }


@pytest.mark.parametrize("file", ["bench/data/a.csv", "data/a.csv", "ABSOLUTE"])
def test_file_paths_resolve(tmp_path, file):
    file = os.path.join(tmp_path, "bench", "data", "a.csv") if file == "ABSOLUTE" else file
    data = load_benchmark(write_benchmark(tmp_path, replaced(DESCRIPTION, 1, 5, file)))
    assert len(data) == 3


BROKEN = [
    # (id, description, a, b, message pattern)
    (
        "description column",
        [r[:4] + r[5:] for r in DESCRIPTION],
        A,
        B,
        r"bench/data_description\.csv: missing columns \['positive'\]",
    ),
    (
        "file missing",
        replaced(DESCRIPTION, 2, 5, "bench/data/nope.csv"),
        A,
        B,
        r"data_description\.csv: row 1 \(line 3, population 'b'\): file 'bench/data/nope\.csv' not found",
    ),
    ("file column", DESCRIPTION, [r[:2] + r[3:] for r in A], B, r"a\.csv: missing columns \['span'\]"),
    (
        "row count",
        replaced(DESCRIPTION, 1, 4, "3"),
        A,
        B,
        r"a\.csv: has 2 rows but .*row 0 .*population 'a'\) gives positive=3",
    ),
    (
        "span text",
        DESCRIPTION,
        replaced(A, 2, 2, span(0, 10, "Anne kana")),
        B,
        r"a\.csv: row 1 \(line 3\): span text 'Anne kana' != text\[0:10\] 'Anne kanal'",
    ),
    (
        "labels empty",
        DESCRIPTION,
        replaced(A, 1, 2, span(8, 18, "Pühajärves", "[]")),
        B,
        r"a\.csv: row 0 \(line 2\): span labels must be a non-empty list",
    ),
    (
        "labels str",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, span(0, 11, "Oahu saarel", "'LOC'")),
        r"b\.csv: row 0 \(line 2\): span labels must be a non-empty list",
    ),
    (
        "labels not str",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, span(0, 11, "Oahu saarel", "[1]")),
        r"b\.csv: row 0 \(line 2\): span labels must be a non-empty list of non-empty str",
    ),
    (
        "end past text",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, span(0, 12, "Oahu saarel")),
        r"b\.csv: row 0 \(line 2\): span offsets \(0, 12\) must be ints with 0 <= start < end <= 11",
    ),
    (
        "negative start",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, span(-1, 11, "Oahu saarel")),
        r"b\.csv: row 0 \(line 2\): span offsets \(-1, 11\)",
    ),
    (
        "empty span",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, span(3, 3, "")),
        r"b\.csv: row 0 \(line 2\): span offsets \(3, 3\)",
    ),
    (
        "span key",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, "{'start': 0, 'end': 11, 'text': 'Oahu saarel'}"),
        r"b\.csv: row 0 \(line 2\): span must be a dict with keys \['start', 'end', 'text', 'labels'\]",
    ),
    (
        "span code",
        DESCRIPTION,
        A,
        replaced(B, 1, 2, "__import__('os').getcwd()"),
        r"b\.csv: row 0 \(line 2\): span is not a Python literal",
    ),
    (
        "correct value",
        DESCRIPTION,
        replaced(A, 2, 3, "maybe"),
        B,
        r"a\.csv: row 1 \(line 3\): correct must be one of \['yes', 'no'\]; got 'maybe'",
    ),
    (
        "fields",
        DESCRIPTION,
        A,
        B[:1] + [B[1][:2]],
        r"b\.csv: row 0 \(line 2\) has 2 fields; the header has 3",
    ),
    (
        "count not int",
        replaced(DESCRIPTION, 1, 2, "1e5"),
        A,
        B,
        r"row 0 \(line 2, population 'a'\): occurences must be a non-negative integer; got '1e5'",
    ),
    (
        "positive > labelled",
        replaced(DESCRIPTION, 1, 3, "1"),
        A,
        B,
        r"population 'a'\): positive \(2\) > labelled \(1\)",
    ),
    (
        "duplicate population",
        replaced(DESCRIPTION, 2, 1, "a"),
        A,
        B,
        r"row 1 \(line 3, population 'a'\): population names must be non-empty and unique",
    ),
    ("no description", None, A, B, r"data_description\.csv: no such file"),
]


@pytest.mark.parametrize(
    "description, a, b, message", [row[1:] for row in BROKEN], ids=[row[0] for row in BROKEN]
)
def test_validation_errors(tmp_path, description, a, b, message):
    path = write_benchmark(tmp_path, description, a, b)
    with pytest.raises(ValueError, match=message):
        load_benchmark(path)


WARNED = [
    (
        "labelled > occurences",
        replaced(DESCRIPTION, 2, 2, "5"),
        A,
        B,
        r"row 1 \(line 3, population 'b'\): labelled \(10\) > occurences \(5\)",
    ),
    (
        "same row in two populations",
        DESCRIPTION,
        A,
        [B[0], ["0", A[2][1], A[2][2]]],
        r"'Anne kanal' \(0, 10\) occur in population 'a' row 1 and population 'b' row 0",
    ),
    (
        "same row twice in a population",
        DESCRIPTION,
        A[:2] + [A[1]],
        B,
        r"'Pühajärves' \(8, 18\) occur in population 'a' row 0 and population 'a' row 1",
    ),
]


@pytest.mark.parametrize(
    "description, a, b, message", [row[1:] for row in WARNED], ids=[row[0] for row in WARNED]
)
def test_warnings(tmp_path, description, a, b, message):
    with pytest.warns(UserWarning, match=message):
        data = load_benchmark(write_benchmark(tmp_path, description, a, b))
    assert len(data) == 3


# ---------------------------------------------------------------- tokenisation

TOKENISED = [
    # (text, start, end, tokens, tags)
    ("Inglise kanal on puhas", 0, 13, ["Inglise", "kanal", "on", "puhas"], ["B-LOC", "I-LOC", "O", "O"]),
    ("Ujusime Pühajärves .", 8, 17, ["Ujusime", "Pühajärve", "s", "."], ["O", "B-LOC", "O", "O"]),
    (
        "mandri ” -Venemaaga seotud",
        10,
        19,
        ["mandri", "”", "-", "Venemaaga", "seotud"],
        ["O", "O", "O", "B-LOC", "O"],
    ),
    ("x-Tartu-y", 2, 7, ["x-", "Tartu", "-y"], ["O", "B-LOC", "O"]),
    ("Pori jõgi voolab", 0, 10, ["Pori", "jõgi", " ", "voolab"], ["B-LOC", "I-LOC", "I-LOC", "O"]),
    ("lend  Assoori saartel", 5, 21, ["lend", " ", "Assoori", "saartel"], ["O", "B-LOC", "I-LOC", "I-LOC"]),
    ("Tartu", 0, 5, ["Tartu"], ["B-LOC"]),
]


@pytest.mark.parametrize("text, start, end, tokens, tags", TOKENISED)
def test_tokens_split_at_gold_boundaries(tmp_path, text, start, end, tokens, tags):
    b = [B[0], ["0", text, span(start, end, text[start:end])]]
    example = load_benchmark(write_benchmark(tmp_path, b=b))[2]
    assert (example["tokens"], example["ner_tags"]) == (tokens, tags)
    assert example["span_start"] in example["token_starts"] and example["span_end"] in example["token_ends"]


# ---------------------------------------------------------------- alignment

EXAMPLE = {
    "text": "Ujusime Pühajärves ja Anne kanalis .",
    "token_starts": [0, 8, 19, 22, 27, 35],
    "token_ends": [7, 18, 21, 26, 34, 36],
    "span_start": 22,
    "span_end": 34,
    "span_label": "LOC",
}
ALIGNED = [
    # (predicted spans, gold found exactly (any type), gold found with its type, tokens after alignment)
    ([(22, 34, "LOC")], True, True, 6),
    ([(22, 34, "ORG")], True, False, 6),
    ([(8, 18, "LOC"), (22, 34, "LOC")], True, True, 6),
    ([(22, 26, "LOC"), (27, 34, "LOC")], False, False, 6),
    ([(22, 33, "LOC")], False, False, 7),  # cuts 'kanalis' at the end
    ([(23, 34, "LOC")], False, False, 7),  # cuts 'Anne' at the start
    ([(22, 31, "LOC")], False, False, 7),  # the snapped-outward span would be the gold span
    ([(24, 31, "LOC")], False, False, 8),  # inside on both sides
    ([(21, 34, "LOC")], False, False, 7),  # starts on the space
    ([(22, 35, "LOC")], False, False, 7),  # ends on the space
    ([(22, 36, "LOC")], False, False, 6),  # takes the full stop
    ([(19, 34, "LOC")], False, False, 6),
    ([(8, 17, "LOC"), (17, 18, "PER")], False, False, 7),
    ([], False, False, 6),
]


@pytest.mark.parametrize("pred_spans, exact, strict, n_tokens", ALIGNED)
def test_align(pred_spans, exact, strict, n_tokens):
    tokens, references, predictions = align(EXAMPLE, pred_spans)
    assert len(tokens) == len(references) == len(predictions) == n_tokens
    [gold] = entities(references)
    found = entities(predictions)
    assert any(p[1:] == gold[1:] for p in found) is exact
    assert (gold in found) is strict
    assert len(found) == len(pred_spans)


def test_align_keeps_gold_whitespace_edge():
    text = "Pori jõgi voolab"
    example = {
        "text": text,
        "token_starts": [0, 5, 9, 10],
        "token_ends": [4, 9, 10, 16],
        "span_start": 0,
        "span_end": 10,
        "span_label": "LOC",
    }
    assert entities(align(example, [(0, 9, "LOC")])[2]) != entities(align(example, [(0, 9, "LOC")])[1])
    assert entities(align(example, [(0, 10, "LOC")])[2]) == entities(align(example, [(0, 10, "LOC")])[1])


@pytest.mark.parametrize(
    "pred_spans, message",
    [
        (
            [(22, 34, "LOC"), (30, 36, "PER")],
            r"predicted spans \(22, 34, 'LOC'\) and \(30, 36, 'PER'\) overlap",
        ),
        (
            [(0, 36, "LOC"), (22, 26, "LOC")],
            r"predicted spans \(0, 36, 'LOC'\) and \(22, 26, 'LOC'\) overlap",
        ),
        ([(22, 34, "LOC"), (22, 34, "LOC")], r"overlap"),
        (
            [(34, 22, "LOC")],
            r"predicted span \(34, 22, 'LOC'\): offsets must be ints with 0 <= start < end <= 36",
        ),
        ([(30, 40, "LOC")], r"<= 36"),
        ([(1.0, 4, "LOC")], r"offsets must be ints"),
        ([(0, 4, "")], r"label must be a non-empty str"),
        ([(0, 4)], r"must be a \(start, end, label\) tuple"),
    ],
)
def test_align_rejects(pred_spans, message):
    with pytest.raises(ValueError, match=message):
        align(EXAMPLE, pred_spans)


def test_spans_to_tags_rejects_span_off_the_grid():
    with pytest.raises(ValueError, match=r"span \(22, 33, 'LOC'\) is not on token boundaries"):
        spans_to_tags(EXAMPLE["token_starts"], EXAMPLE["token_ends"], [(22, 33, "LOC")])


def random_rows(rng, n):
    """n random one-sentence rows: words of letters and hyphens, single or double spaces."""
    rows = []
    for i in range(n):
        words = [
            "".join(rng.choice("ab-") for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5))
        ]
        text = "".join(w + rng.choice([" ", "  "]) for w in words).rstrip()
        start = rng.randrange(len(text))
        end = rng.randint(start + 1, len(text))
        rows.append([str(i), text, span(start, end, text[start:end])])
    return rows


def random_spans(rng, length, k):
    cuts = sorted(rng.sample(range(length + 1), min(length + 1, 2 * k)))
    return [(a, b, rng.choice(["LOC", "PER"])) for a, b in zip(cuts[::2], cuts[1::2])]


def test_exact_on_tokens_iff_exact_in_characters(tmp_path):
    """Property: after align, a predicted entity equals the gold entity on tokens exactly when
    the two have the same character offsets and label, for random texts, gold and predicted spans."""
    rng = random.Random(7)
    rows = random_rows(rng, 300)
    description = [DESCRIPTION[0], ["0", "a", "300", "300", "300", "bench/data/a.csv"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # random rows repeat
        data = load_benchmark(write_benchmark(tmp_path, description, [B[0]] + rows))
    outcomes = collections.Counter()
    for example in data:
        gold_chars = (example["span_start"], example["span_end"], example["span_label"])
        for _ in range(10):
            preds = random_spans(rng, len(example["text"]), rng.randint(0, 3))
            if rng.random() < 0.2:
                preds = [gold_chars]
            tokens, references, predictions = align(example, preds)
            assert "".join(tokens).replace(" ", "") == example["text"].replace(" ", "")
            [gold] = entities(references)
            exact = gold in entities(predictions)
            assert exact is (gold_chars in preds), (example["text"], gold_chars, preds)
            outcomes[exact] += 1
    assert outcomes[True] > 50 and outcomes[False] > 1000


def test_doctests():
    result = doctest.testmod(ner_benchmarks)
    assert result.attempted >= 10 and result.failed == 0


def test_numpy_integer_offsets_align_like_ints():
    import numpy as np

    example = {
        "text": "Ujusime Pühajärves .",
        "token_starts": [0, 8, 19],
        "token_ends": [7, 18, 20],
        "span_start": 8,
        "span_end": 18,
        "span_label": "LOC",
    }
    assert align(example, [(np.int64(8), np.int32(18), "LOC")]) == align(example, [(8, 18, "LOC")])
    with pytest.raises(ValueError, match="offsets must be ints"):
        align(example, [(np.float64(8), 18, "LOC")])


def test_size_keys_are_the_weights_keys_of_the_stratified_recall():
    from ner_recall.stats import stratified as ner_stratified

    assert ner_benchmarks.SIZE_KEYS == ner_stratified.SIZE_KEYS


@pytest.fixture(scope="module")
def served_benchmarks():
    """The shared benchmarks served over HTTP on 127.0.0.1 (as a public repository serves raw files)."""
    import functools
    import http.server
    import threading

    root = os.path.dirname(benchmark_csv("amundsen_01"))
    root = os.path.dirname(root)
    if not os.path.isdir(root):
        pytest.skip(f"the shared benchmarks are not at {root}")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("suffix", ["/amundsen_01", "/amundsen_01/", "/amundsen_01/data_description.csv"])
def test_a_benchmark_reads_from_a_url_like_from_its_folder(served_benchmarks, suffix):
    local = load_benchmark(benchmark_csv("amundsen_01"))
    remote = load_benchmark(served_benchmarks + suffix)
    assert remote.to_dict() == local.to_dict()
    assert benchmark_sizes(served_benchmarks + suffix) == benchmark_sizes(benchmark_csv("amundsen_01"))


def test_a_benchmark_reads_from_its_folder():
    folder = os.path.dirname(benchmark_csv("amundsen_02"))
    if not os.path.isdir(folder):
        pytest.skip(f"the shared benchmarks are not at {folder}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # amundsen_02's known quirks, tested above
        assert load_benchmark(folder).to_dict() == load_benchmark(benchmark_csv("amundsen_02")).to_dict()


@pytest.mark.parametrize(
    "suffix, message",
    [
        ("/nowhere", r"nowhere/data_description\.csv: the server answered 404"),
        ("/amundsen_01/data/recall_sets/missing.csv", r"missing\.csv: the server answered 404"),
    ],
)
def test_a_url_that_does_not_answer_is_named(served_benchmarks, suffix, message):
    with pytest.raises(ValueError, match=message):
        load_benchmark(served_benchmarks + suffix)


def test_a_missing_file_is_called_missing(tmp_path):
    with pytest.raises(ValueError, match=r"data_description\.csv: no such file"):
        load_benchmark(tmp_path / "data_description.csv")


def test_the_published_address_names_the_public_repository():
    assert ner_benchmarks.PUBLISHED.endswith(
        "estnltk-model-data/main/named_entity_recognition/recall_estimation/benchmarks"
    )
