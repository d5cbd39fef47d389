"""Every parser and aligner of generated output in time linear in its input (or n log n).

Each case times one call at four sizes (n, 2n, 4n, 8n) and asserts that the time grows at most 5x
for 4x the input (linear: 4x; n log n: a little over; quadratic: 16x): the growth is read from the
slope of log time over log size through the four sizes (4 ** slope), so that one size measured in
a busy moment of the shared machine does not decide alone. Each size's time is the best of three
(time.perf_counter), the sizes measured in turn in each round; a case measured too slow is
measured again (three tries at most).
"""

import gc
import json
import math
import time

import pytest

from ner_recall.generated import conventions as C
from ner_recall.generated import dialects as D
from ner_recall.generated import placement
from ner_recall.generated import scoring as G

SIZES = (1, 2, 4, 8)


def _time(run, arg, calls):
    gc.collect()
    start = time.perf_counter()
    for _ in range(calls):
        run(arg)
    return time.perf_counter() - start


def growth(times):
    """How many times the time grows for 4x the input: 4 ** the slope of log time over log size."""
    logs = [math.log(k) for k in SIZES]
    mean_x, mean_y = sum(logs) / len(logs), sum(math.log(t) for t in times) / len(times)
    slope = sum((x - mean_x) * (math.log(t) - mean_y) for x, t in zip(logs, times)) / sum(
        (x - mean_x) ** 2 for x in logs
    )
    return 4**slope


def assert_linear(run, make, base):
    """``run(make(n))`` at n = base, 2 base, 4 base, 8 base grows at most 5x for 4x the input. A
    call too quick to time (under 5 ms) is made several times in each measure, as many at each size."""
    args = [make(base * k) for k in SIZES]
    calls = min(100, max(1, int(0.005 / max(_time(run, args[0], 1), 1e-6))))
    for _ in range(3):
        times = [float("inf")] * len(args)
        for _ in range(3):
            for k, arg in enumerate(args):
                times[k] = min(times[k], _time(run, arg, calls))
        if growth(times) <= 5:
            return times
    raise AssertionError(f"time grows {growth(times):.1f}x for 4x the input: {times} at {SIZES} x {base}")


def _read(output):
    return D.read_output(output)


#: outputs that every dialect reader (auto-detection reads them all in turn) meets in linear time:
#: (name, output of size n, base n)
READERS = [
    ("lines: a run of spaces", lambda n: " " * n + "x", 50_000),
    ("lines: runs of spaces about a colon", lambda n: "PER" + " " * n + ": x" + " " * n + "y", 25_000),
    ("lines: many", lambda n: "PER: John\n" * n, 2_000),
    ("inline tags: closed", lambda n: "<PER>John</PER> " * n, 1_000),
    ("inline tags: never closed", lambda n: "<A>" * n, 10_000),
    ("inline tags: closed by another name", lambda n: "<A>x" * n + "</B>", 15_000),
    ("attribute tags: never closed", lambda n: '<e type="PER">x ' * n, 5_000),
    ("markdown", lambda n: "[a](PER) " * n, 1_000),
    ("gner: one entity of n words", lambda n: "w(B-PER) " + "w(I-PER) " * n, 5_000),
    ("gollie: cut off", lambda n: '[Person(span="a"), ' * n, 2_000),
    ("json list", lambda n: json.dumps([{"text": "a", "type": "PER"}] * n), 1_000),
    ("json list: cut off", lambda n: json.dumps([{"text": "a", "type": "PER"}] * n)[:-5], 2_000),
    ("a code fence never closed", lambda n: "```" + "x" * n, 100_000),
]


@pytest.mark.parametrize("name, make, base", READERS, ids=[r[0] for r in READERS])
def test_reading_an_output_is_linear(name, make, base):
    assert_linear(_read, make, base)


def _place(args):
    output, text, options = args
    return G.generated_outcomes([output], [text], **options)


def _alternating(n):
    """A list twice as long as the text's mentions, alternating two strings: out of reading order."""
    return [{"text": "ab"[k % 2], "type": "X"} for k in range(2 * n)], " ".join("ab"[k % 2] for k in range(n))


PLACEMENTS = [
    (
        "order: distinct strings listed backwards",
        lambda n: (
            [{"text": f"w{k}", "type": "X"} for k in reversed(range(n))],
            " ".join(f"w{k}" for k in range(n)),
            {},
        ),
        500,
    ),
    ("order: two strings alternating, listed twice", lambda n: (*_alternating(n), {}), 500),
    ("first: two strings alternating", lambda n: (*_alternating(n), {"placement": "first"}), 500),
    (
        "offsets: none given",
        lambda n: (*_alternating(n), {"placement": "offsets"}),
        500,
    ),
    (
        "order: one string listed in reading order",
        lambda n: ([{"text": "a", "type": "X"}] * n, " ".join(["a"] * n), {}),
        1_000,
    ),
    (
        "order: normalized",
        lambda n: (*_alternating(n), {"matching": "normalized"}),
        250,
    ),
]


@pytest.mark.parametrize("name, make, base", PLACEMENTS, ids=[p[0] for p in PLACEMENTS])
def test_placing_a_list_is_n_log_n(name, make, base):
    assert_linear(_place, make, base)


def test_the_fast_path_of_a_plain_list_in_order_is_linear():
    def make(n):
        return json.dumps([{"text": "ab"[k % 2], "type": "X"} for k in range(n)]), " ".join(
            "ab"[k % 2] for k in range(n)
        )

    assert_linear(lambda args: G.plain_list_in_order(args[0], args[1], None), make, 1_000)


def test_the_chain_of_a_list_out_of_order_is_n_log_n():
    """Every item one candidate per place of its string: the chain's search over the candidates."""

    def make(n):
        return [[(k, k + 1)] for k in range(n - 1, -1, -1)] + [[(2 * n + k, 2 * n + k + 1)] for k in range(n)]

    assert_linear(placement.place_in_order, make, 500)


def test_normalizing_a_text_is_linear():
    from ner_recall.generated.matching import normalized_map

    unit = "Cafe\u0301 \ufb01 \uff76\uff9e \u1100\u1161 東京 ＡＢＣ "
    assert_linear(normalized_map, lambda n: unit * n, 500)


def test_fuzzy_matching_is_linear_in_the_text():
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()

    def make(n):
        text = " ".join(words[k % len(words)] + str(k % 7) for k in range(n))
        return [{"text": w, "type": "X"} for w in ("alphx1", "betq2 gamma3", "nothing at all")], text

    assert_linear(lambda args: _place((*args, {"matching": "fuzzy"})), make, 2_000)


def test_the_ladder_is_linear_in_the_documents():
    text = "Paris Hilton flew to Paris. Then John met Paris Hilton in Rome."
    gold = [{"label": "PER", "start": 0, "end": 12}, {"label": "LOC", "start": 21, "end": 26}]
    output = json.dumps([{"text": "paris hilton", "type": "PER"}, {"text": "Pariss", "type": "LOC"}])

    def run(n):
        G.score_generated(
            [output] * n,
            [gold] * n,
            {"texts": [text] * n, "matching": ["exact", "normalized", "fuzzy"], "ci_resamples": 50},
        )

    assert_linear(run, lambda n: n, 25)


# ---------------------------------------------------------------------------- the conventions


def test_gner_labels_are_read_in_linear_time():
    assert_linear(C.gner_words, lambda n: "w(B-" * n + "\n)", 20_000)  # each label unclosed on its line
    assert_linear(C.gner_words, lambda n: "w(B-PER) " * n, 2_000)


def test_gner_entities_and_uniner_answers_drop_repeats_in_linear_time():
    assert_linear(lambda n: C.gner_entities([f"w{k}" for k in range(n)], ["B-PER"] * n), lambda n: n, 2_000)
    assert_linear(C.uniner_answer, lambda n: json.dumps([f"w{k}" for k in range(n)]), 2_000)


def test_gner_alignment_is_n_log_n():
    def make(n):
        tokens = [f"w{k}" for k in range(n)]
        return tokens, " ".join(f"{w}(O)" for w in tokens[1:] + ["extra"])

    assert_linear(lambda args: C.gner_labels(args[0], args[1], ["PER"]), make, 2_000)


def _gollie_case(objects, words):
    output = "[" + ", ".join(f'PER(span="w{k % words}")' for k in range(objects)) + "]"
    text = " ".join(f"w{k}" for k in range(words))
    return output, text, [{"label": "PER", "start": 0, "end": 2}] * objects


def test_gollie_is_linear_in_the_objects_and_in_the_text():
    """Each distinct string is searched once in the text (at most ``MAX_ITEMS`` objects an output)."""

    def run(args):
        C._gollie([args[0]], [args[1]], [args[2]], ["PER"], {})

    assert_linear(run, lambda n: _gollie_case(n, 100), 1_000)
    assert_linear(run, lambda n: _gollie_case(100, n), 5_000)


def test_euroeval_tags_are_linear_in_the_strings_and_in_the_tokens():
    def make(strings, tokens):
        names = [f"w{k}x w{k + 1}x" for k in range(strings)]
        return [f"w{k}x" for k in range(tokens)], json.dumps({"PER": names})

    def run(args):
        C.euroeval_tags(args[0], args[1], ["PER"], {})

    assert_linear(run, lambda n: make(n, 200), 1_000)
    assert_linear(run, lambda n: make(50, n), 5_000)
