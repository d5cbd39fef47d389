"""Generated output under hostile input: bounded costs, no silent wrong results, named errors;
and the linear readers and aligners read what the patterns and loops they replace read."""

import difflib
import json
import random
import re
import time
import tracemalloc

import pytest

from ner_recall.generated import conventions as C
from ner_recall.generated import dialects as D
from ner_recall.generated import placement
from ner_recall.generated import scoring as G

TEXT = "Paris Hilton flew to Paris. Then John met Paris Hilton in Rome."
GOLD = [{"label": "PER", "start": 0, "end": 12}, {"label": "LOC", "start": 58, "end": 62}]


def _timed(call, *args, **kwargs):
    start = time.perf_counter()
    out = call(*args, **kwargs)
    return out, time.perf_counter() - start


def _counts(output, text=TEXT, gold=GOLD, **options):
    return G.score_generated([output], [gold], {"texts": [text], **options})["generated"]["counts"]


# ---------------------------------------------------------------------------- costs


def test_a_run_of_spaces_is_read_at_once():
    """The ``lines`` pattern backtracked cubically: 400 spaces took 7.4 s, 1,000 past 20 s."""
    reading, seconds = _timed(D.read_output, " " * 400 + "x")
    assert seconds < 1.0 and reading.dialect is None
    counts, seconds = _timed(_counts, " " * 1000 + "x")
    assert seconds < 2.0 and counts["unparseable"] == 1


def test_ten_thousand_inline_tags_are_read_at_once_with_their_offsets():
    reading, seconds = _timed(D.read_output, "<PER>John</PER> " * 10_000)
    assert seconds < 3.0 and len(reading.items) == 10_000
    assert [(i.start, i.end) for i in reading.items[-2:]] == [(49_990, 49_994), (49_995, 49_999)]
    assert reading.plain == "John " * 10_000


@pytest.mark.parametrize("output", ["<A>" * 300_000, "<A>x" * 200_000 + "</B>", '<e type="X">' * 60_000])
def test_tags_never_closed_are_scanned_once(output):
    reading, seconds = _timed(D.read_output, output)
    assert seconds < 2.0 and reading.items == []


def test_an_unclosed_code_fence_is_scanned_once():
    reading, seconds = _timed(D.read_output, "```" + "x" * 200_000)
    assert seconds < 1.0 and reading.dialect is None


def test_a_gner_entity_of_forty_thousand_words_is_one_item_read_at_once():
    reading, seconds = _timed(D.read_output, "w(B-PER) " + "w(I-PER) " * 39_999)
    assert seconds < 2.0 and [(len(i.text.split()), i.label) for i in reading.items] == [(40_000, "PER")]


def test_ten_thousand_items_out_of_reading_order_are_placed_at_once():
    n = 10_000
    output = [{"text": f"w{k}", "type": "X"} for k in reversed(range(n))]
    text = " ".join(f"w{k}" for k in range(n))
    listing, seconds = _timed(G.generated_outcomes, [output], [text])
    assert seconds < 5.0
    assert all(o["outcome"] == "placed" for o in listing[0])
    assert text[slice(*listing[0][0]["places"][0])] == f"w{n - 1}"


def test_a_long_list_alternating_two_strings_is_placed_in_bounded_memory():
    """250 kB of list over a text of half as many mentions used to build items x occurrences
    candidate places (4 GB)."""
    n = 9_000
    output = json.dumps([{"text": "ab"[k % 2], "type": "X"} for k in range(n)])
    text = " ".join("ab"[k % 2] for k in range(n // 2))
    assert len(output) > 250_000
    tracemalloc.start()
    try:
        counts, seconds = _timed(_counts, output, text, [{"label": "X", "start": 0, "end": 1}])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts["placed"] == n // 2 and counts["duplicate"] == n // 2
    assert peak < 50 * 2**20 and seconds < 5.0


def test_an_output_of_more_items_than_the_bound_is_unparseable_and_names_it():
    output = json.dumps([{"text": "Rome", "type": "LOC"}] * (D.MAX_ITEMS + 1))
    listing = G.generated_outcomes([output], [TEXT])[0]
    assert [o["outcome"] for o in listing] == ["unparseable"]
    assert f"more than {D.MAX_ITEMS:,}" in listing[0]["detail"]
    assert _counts("PER: John\n" * (D.MAX_ITEMS + 1))["unparseable"] == 1
    assert _counts(json.dumps([{"text": "Rome", "type": "LOC"}] * D.MAX_ITEMS))["placed"] == 1


def test_fuzzy_matching_thirty_items_on_twenty_thousand_words_is_quick():
    """Items x words x 3 difflib calls took 21 s; the character counts of every run now filter
    with arrays, difflib only where the threshold can be reached."""
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 8))) for _ in range(20_000)]
    text = " ".join(words)
    items = [{"text": words[k][::-1] + "q", "type": "X"} for k in range(0, 20_000, 667)]
    listing, seconds = _timed(G.generated_outcomes, [items], [text], matching="fuzzy")
    assert seconds < 5.0 and len(listing[0]) == 30


def test_fuzzy_matching_past_its_bound_is_refused_with_the_bound():
    from ner_recall.generated.matching import MAX_FUZZY_WORK

    text = " ".join(["word"] * 50_000)
    items = [{"text": "x" * 200 + str(k), "type": "X"} for k in range(10)]
    with pytest.raises(
        ValueError, match=rf"predictions\[0\]: fuzzy matching .* more than {MAX_FUZZY_WORK:,}"
    ):
        G.generated_outcomes([items], [text], matching="fuzzy")


def test_placement_past_its_bound_is_refused_with_the_bound(monkeypatch):
    from ner_recall.generated import matching

    monkeypatch.setattr(matching, "MAX_PLACES", 50)
    text = " ".join(["a"] * 100)
    with pytest.raises(ValueError, match=r"predictions\[0\]: .* more than 50 places"):
        G.generated_outcomes([[{"text": "a", "type": "X"}]], [text])
    output = [{"text": f"a b{k}", "type": "X"} for k in range(20)]  # through the index of words
    with pytest.raises(ValueError, match=r"more than 50 places"):
        G.generated_outcomes([output], [text])


def test_the_ladders_resamples_are_bounded():
    options = {"texts": [TEXT], "matching": ["exact", "normalized"]}
    with pytest.raises(ValueError, match=r"ci_resamples must be at most 10,000 with a ladder.*got 1000000"):
        G.score_generated(["PER: John"], [GOLD], {**options, "ci_resamples": 10**6})
    assert "ladder_gains" in G.score_generated(["PER: John"], [GOLD], {**options, "ci_resamples": 10_000})
    one = G.score_generated(["PER: John"], [GOLD], {"texts": [TEXT], "ci_resamples": 20_000})
    assert "ladder" not in one  # one level: the span config's own bound


# ---------------------------------------------------------------------------- silent wrong results


@pytest.mark.parametrize(
    "output",
    [
        "[Person(span='John'), Person(span='Ann'",
        '[Person(span="John"), Location(span="Par',
        "Answer: [PER(span='Paris Hilton'),",
    ],
)
def test_a_gollie_output_cut_off_is_unparseable_not_nothing(output):
    assert _counts(output) == {
        "placed": 0,
        "hallucinated": 0,
        "duplicate": 0,
        "off_schema": 0,
        "unparseable": 1,
        "items": 1,
    }


def test_a_json_list_cut_off_is_unparseable_not_a_map_of_types():
    cut = '[{"text": "Rome", "type": "LOC"}, {"text": "Ann'
    assert _counts(cut)["unparseable"] == 1 and _counts(cut)["items"] == 1
    assert D.read_output(cut, "json_dict").dialect is None  # an entity's object is no map of types
    assert _counts('{"text": "Rome", "type": "LOC"}')["placed"] == 1  # one object alone: one entity
    assert _counts('Note [1]: {"LOC": ["Rome"]}')["placed"] == 1  # a map of types still is one


@pytest.mark.parametrize(
    "said, text, place",
    [
        ("Café", "Cafe\u0301 au lait", (0, 5)),
        ("Cafe\u0301", "Café au lait", (0, 4)),
        ("ｶﾞｲﾄﾞ", "ガイド", (0, 3)),
        ("\u1100\u1161", "가 b", (0, 1)),
    ],
)
def test_nfkc_normalizes_whole_strings_and_maps_back_to_the_text(said, text, place):
    listing = G.generated_outcomes([[{"text": said, "type": "X"}]], [text], matching="normalized")[0]
    assert [(o["outcome"], o["places"]) for o in listing] == [("placed", [list(place)])]


def test_normalized_map_agrees_with_nfkc_of_the_whole_text():
    import unicodedata

    from ner_recall.generated.matching import normalized_map

    rng = random.Random(3)
    pieces = ["a", "e", "\u0301", "\u0327", " ", "ﬁ", "ｶ", "ﾞ", "\u1100", "\u1161", "\u11a8", "가", "Å", "x."]
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        norm, starts, ends = normalized_map(text, ("nfkc",))
        assert norm == unicodedata.normalize("NFKC", text)
        assert all(0 <= s < e <= len(text) for s, e in zip(starts, ends))
        assert starts == sorted(starts) and ends == sorted(ends)


def _former_normalized_map(text, steps):
    """NFKC per character: what the normalization did before (equal where nothing composes)."""
    import unicodedata

    from ner_recall.generated.dialects import ARTICLES
    from ner_recall.generated.matching import _is_punctuation

    chars, where = [], []
    for k, c in enumerate(text):
        s = unicodedata.normalize("NFKC", c) if "nfkc" in steps and not c.isascii() else c
        for ch in s.casefold() if "case" in steps else s:
            if "punctuation" in steps and _is_punctuation(ch):
                ch = " "
            chars.append(" " if "space" in steps and ch.isspace() else ch)
            where.append(k)
    joined = "".join(chars)
    if "articles" in steps:
        joined = ARTICLES.sub(lambda m: " " * len(m.group()), joined)
    if "space" not in steps:
        return joined, where
    out, kept, previous = [], [], " "
    for ch, k in zip(joined, where):
        if ch == " " and previous == " ":
            continue
        out.append(ch)
        kept.append(k)
        previous = ch
    if out and out[-1] == " ":
        out.pop()
        kept.pop()
    return "".join(out), kept


def test_normalized_map_is_the_former_one_where_nothing_composes():
    """ASCII texts take a path of their own (translate tables, arrays); both paths, every subset
    of the steps, against the former character by character normalization."""
    from ner_recall.generated.matching import STEPS, normalized_map

    rng = random.Random(11)
    alphabet = list(" \t\n.,-'aAbTheé\x1cﬁ") + ["the ", "an ", "a ", "U.S.", "Ü"]
    for _ in range(5_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 15)))
        if rng.random() < 0.5:
            text = text.encode("ascii", "ignore").decode()
        steps = tuple(s for s in STEPS if rng.random() < 0.6)
        norm, starts, ends = normalized_map(text, steps)
        assert (norm, starts) == _former_normalized_map(text, steps), (text, steps)
        assert ends == [s + 1 for s in starts]


# ---------------------------------------------------------------------------- named errors


def test_read_generated_names_a_line_nested_too_deep(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"text": "a", "output": "x"}) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"out.jsonl, line 2: nested deeper than JSON is read here"):
        D.read_generated(str(path))


@pytest.mark.parametrize("make", [lambda p: p / "missing.jsonl", lambda p: p])
def test_read_generated_names_a_missing_file_or_a_folder(tmp_path, make):
    with pytest.raises(ValueError, match="cannot read it"):
        D.read_generated(str(make(tmp_path)))


def test_the_command_line_reports_a_line_nested_too_deep_without_a_traceback(tmp_path, capsys):
    from ner_recall.cli import report as ner_report

    records, golds = tmp_path / "out.jsonl", tmp_path / "gold.jsonl"
    records.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    golds.write_text(json.dumps({"text": TEXT, "entities": GOLD}) + "\n")
    assert ner_report.main([str(golds), str(records), "--generated"]) != 0
    err = capsys.readouterr().err
    assert "line 1: nested deeper than JSON is read here" in err and "Traceback" not in err


def test_the_conventions_name_their_bounds(monkeypatch):
    tokens = [["w"] * 50]
    with pytest.raises(ValueError, match=r"predictions\[0\]: .* characters; convention='gollie' reads"):
        G.score_generated(["[" + " " * D.MAX_OUTPUT + "]"], [GOLD], {"texts": [TEXT], "convention": "gollie"})
    monkeypatch.setattr(C, "MAX_GNER_PAIRS", 100)
    with pytest.raises(ValueError, match=r"predictions\[0\]: aligning its 51 words .* more than 100"):
        G.score_generated([" ".join(["w(O)"] * 51)], [["O"] * 50], {"tokens": tokens, "convention": "gner"})
    monkeypatch.setattr(C, "MAX_ITEMS", 3)
    with pytest.raises(ValueError, match=r"predictions\[0\]: 4 objects; convention='gollie' reads at most 3"):
        G.score_generated(
            ['[PER(span="w")] '.replace("]", ", PER(span='w')" * 3 + "]")],
            [GOLD],
            {"texts": [TEXT], "convention": "gollie", "types": ["PER"]},
        )
    with pytest.raises(
        ValueError, match=r"predictions\[0\]: 4 strings; convention='euroeval' reads at most 3"
    ):
        G.score_generated(
            [json.dumps({"PER": ["w"] * 4})], [["O"] * 50], {"tokens": tokens, "convention": "euroeval"}
        )


# ---------------------------------------------------------------------------- parity with what they replace


_LINE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])?\s*([^:\n]{1,60}?)\s*:\s*(\S.*?)\s*$")


def test_a_type_line_is_read_as_the_pattern_read_it():
    """The former pattern, but for a type of spaces only (its backtracking made ``- : x`` a line of
    type ``" "``; the type is now ``"-"``)."""
    rng = random.Random(0)
    for _ in range(20_000):
        line = "".join(
            rng.choice(["a", "P", " ", "\t", "-", "*", "1", ".", ")", ":", "{", "\u2022"]) for _ in range(12)
        )
        if rng.random() < 0.1:
            line = "a" * rng.randint(55, 65) + line
        m = _LINE.match(line)
        old = None if not m or "{" in line else (m.group(1), m.group(2))
        if old is not None and not old[0].strip():
            continue
        assert D.type_line(line) == old, line


_TAG = re.compile(r"<([A-Za-z][\w.-]*)>(.*?)</\1\s*>", re.DOTALL)
_ATTRIBUTE_TAG = re.compile(
    r"<([A-Za-z][\w.-]*)\s+(?:type|label|class|category)\s*=\s*[\"']([A-Za-z][\w.-]*)[\"']\s*>(.*?)</\1\s*>",
    re.DOTALL,
)
_ANY_TAG = re.compile(r"</?[A-Za-z][\w.-]*\s*>")


def _former_inline_tags(body):
    body = _ATTRIBUTE_TAG.sub(lambda m: f"<{m.group(2)}>{m.group(3)}</{m.group(2)}>", body)
    return [(_ANY_TAG.sub("", m.group(2)), m.group(1)) for m in _TAG.finditer(body)]


def test_inline_tags_are_read_as_the_patterns_read_them():
    rng = random.Random(1)
    parts = [
        "<A>",
        "</A>",
        "<B>",
        "</B >",
        "x",
        " ",
        '<e type="A">',
        "</e>",
        "<a.b>",
        "</a.b>",
        "\n",
        "<",
        ">",
    ]
    for _ in range(20_000):
        body = "".join(rng.choice(parts) for _ in range(rng.randint(0, 10)))
        reading = D._inline_tags(body)
        got = [(i.text, i.label) for i in reading.items] if reading else []
        assert got == _former_inline_tags(body), body


def test_gner_labels_are_found_as_the_pattern_found_them():
    rng = random.Random(2)
    for _ in range(20_000):
        output = "".join(
            rng.choice(["(", "B-", "I-", "O", ")", "\n", "x", " ", "(O)", "(B-"]) for _ in range(15)
        )
        former = [m.span() for m in re.finditer(r"\(B-.*?\)|\(I-.*?\)|\(O\)", output)]
        assert C.gner_tags(output) == former, output


def _former_place_in_order(places):
    chosen, cursor, complete = [None] * len(places), 0, True
    for i, found in enumerate(places):
        for pick in found:
            if pick[0] >= cursor:
                chosen[i], cursor = pick, pick[1]
                break
        else:
            complete = complete and not found
    if complete:
        return chosen
    candidates = [(i, s, e) for i, found in enumerate(places) for s, e in found]
    n = len(candidates)
    best, back = [(1, e - s) for _, s, e in candidates], [-1] * n
    for c, (i, s, e) in enumerate(candidates):
        for d in range(c):
            j, ds, de = candidates[d]
            if j < i and de <= s:
                score = (best[d][0] + 1, best[d][1] + e - s)
                if score > best[c]:
                    best[c], back[c] = score, d
    chained, c = {}, max(range(n), key=best.__getitem__) if n else -1
    while c >= 0:
        chained[candidates[c][0]] = candidates[c][1:]
        c = back[c]
    chosen = [chained.get(i) for i in range(len(places))]
    taken = {p for p in chosen if p is not None}
    for i, found in enumerate(places):
        if chosen[i] is None and found:
            apart = [p for p in found if all(p[1] <= t[0] or p[0] >= t[1] for t in taken)]
            if apart:
                chosen[i] = apart[0]
                taken.add(apart[0])
    return chosen


def _random_places(rng):
    lists = []
    for _ in range(rng.randint(1, 4)):
        starts = sorted(rng.sample(range(30), rng.randint(0, 5)))
        lists.append([(s, s + rng.randint(1, 4)) for s in starts])
    return [rng.choice(lists) for _ in range(rng.randint(0, 9))]  # items share their string's list


def test_order_placement_places_as_the_former_quadratic_search():
    rng = random.Random(4)
    for _ in range(5_000):
        places = _random_places(rng)
        assert placement.place_in_order(places) == _former_place_in_order(places), places


def test_the_chain_is_skipped_past_its_bound_and_the_rest_placed_apart(monkeypatch):
    from ner_recall.generated import placement

    rng = random.Random(5)
    monkeypatch.setattr(placement, "MAX_CHAIN", 3)
    for _ in range(2_000):
        places = _random_places(rng)
        chosen = placement.place_in_order(places)
        taken = sorted(p for p in chosen if p is not None)
        assert all(a[1] <= b[0] for a, b in zip(taken, taken[1:]))  # apart
        assert all(c is None or c in found for c, found in zip(chosen, places))


def test_first_placement_places_as_the_former_scan():
    from ner_recall.generated.placement import _place_first

    rng = random.Random(6)
    for _ in range(5_000):
        places = _random_places(rng)
        chosen, taken = [], set()
        for found in places:
            pick = next((p for p in found if p not in taken), None)
            chosen.append(pick)
            taken.add(pick)
        assert _place_first(places) == chosen


def _former_fuzzy(norm, starts, ends, key, threshold):
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", norm)]
    n, size, found = key.count(" ") + 1, len(key), []
    for width in (n - 1, n, n + 1):
        for a in range(len(words) - width + 1 if width > 0 else 0):
            window = norm[words[a][0] : words[a + width - 1][1]]
            if 2 * min(size, len(window)) < threshold * (size + len(window)):
                continue
            matcher = difflib.SequenceMatcher(None, key, window, autojunk=False)
            if matcher.quick_ratio() < threshold:
                continue
            ratio = matcher.ratio()
            if ratio >= threshold:
                found.append((-ratio, starts[words[a][0]], ends[words[a + width - 1][1] - 1]))
    kept = []
    for _, s, e in sorted(found):
        if all(e <= ks or s >= ke for ks, ke in kept):
            kept.append((s, e))
    return sorted(kept)


def test_fuzzy_matching_finds_what_the_former_loop_found():
    from ner_recall.generated.matching import Occurrences, normalized_map

    rng = random.Random(7)
    vocabulary = ["paris", "hilton", "parsi", "hiltn", "rome", "roma", "a", "ab", "ba", "new", "york"]
    for _ in range(400):
        text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 12)))
        threshold = rng.choice([0.5, 0.7, 0.8, 0.9])
        doc = Occurrences(text, "fuzzy", threshold=threshold)
        doc.norm = norm = normalized_map(text)
        for _ in range(3):
            key = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 3))) + rng.choice(["", "x"])
            assert doc._fuzzy(key) == _former_fuzzy(*norm, key, threshold), (text, key)


def test_the_index_of_words_finds_what_the_scan_finds():
    from ner_recall.generated.matching import _Index, indexed_occurrences, word_occurrences

    rng = random.Random(8)
    alphabet = ["a", "b", "ab", " ", "-", "é", "東", "_", "1", ".", "(", "\u0301", "ａ"]
    for _ in range(5_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        index = _Index(text)
        for _ in range(4):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))).strip()
            if s:
                assert indexed_occurrences(index, s)[0] == word_occurrences(text, s), (text, s)


def _former_euroeval_words(tokens, entities, name):
    tags = ["o"] * len(tokens)
    for entity in entities:
        for n, word in enumerate(entity.split()):
            for k, token in enumerate(tokens):
                if word in token:
                    if n == 0:
                        tags[k] = f"b-{name}"
                    elif tags[k] == "o" and tags[k - 1][2:] == name:
                        tags[k] = f"i-{name}"
    return tags


def test_euroeval_tags_the_tokens_the_former_loop_tagged():
    rng = random.Random(9)
    pieces = ["a", "b", "ab", "ba", "c", "a\x00b", "\x00"]
    for _ in range(3_000):
        tokens = [
            "".join(rng.choice(pieces) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 8))
        ]
        entities = [
            " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(0, 3))
        ]
        got = C.euroeval_tags(tokens, json.dumps({"PER": entities}), ["PER"], {})
        assert got == _former_euroeval_words(tokens, entities, "per"), (tokens, entities)


def test_gollie_and_uniner_count_as_their_former_loops():
    rng = random.Random(10)
    spans = ["Paris", "paris ", "Rome", "Paris Hilton", "John", "Nobody"]
    for _ in range(300):
        objects = [(rng.choice(["PER", "LOC"]), rng.choice(spans)) for _ in range(rng.randint(0, 8))]
        output = "[" + ", ".join(f"{t}(span={s!r})" for t, s in objects) + "]"
        gold = rng.sample(
            [
                {"label": "PER", "start": 0, "end": 12},
                {"label": "LOC", "start": 21, "end": 26},
                {"label": "PER", "start": 33, "end": 37},
                {"label": "LOC", "start": 58, "end": 62},
                {"label": "LOC", "start": 0, "end": 5},
            ],
            rng.randint(0, 5),
        )
        pred, seen, lower = [], {}, TEXT.lower()
        for label, span in C.gollie_objects(output, ["PER", "LOC"], {}) or []:
            if span.lower().strip() not in lower:
                continue
            seen[span.lower()] = seen.get(span.lower(), 0) + 1
            if lower.count(span.lower()) >= seen[span.lower()]:
                pred.append((label, span.lower().strip()))
        assert C._gollie_filter(C.gollie_objects(output, ["PER", "LOC"], {}) or [], TEXT) == pred
        ref = [(e["label"], TEXT[e["start"] : e["end"]].lower().strip()) for e in gold]
        correct = 0
        for p in pred:
            if p in ref:
                correct += 1
                ref.remove(p)
        assert C._gollie([output], [TEXT], [gold], ["PER", "LOC"], {}) == (correct, len(pred), len(gold))


def test_the_docs_name_every_bound_with_its_value():
    from conftest import ROOT
    from ner_recall.generated import matching, placement

    with open(f"{ROOT}/docs/generated.md", encoding="utf-8") as handle:
        page = handle.read()
    bounds = {
        "MAX_OUTPUT": D.MAX_OUTPUT,
        "MAX_ITEMS": D.MAX_ITEMS,
        "MAX_PLACES": matching.MAX_PLACES,
        "MAX_CHAIN": placement.MAX_CHAIN,
        "MAX_FUZZY_WORK": matching.MAX_FUZZY_WORK,
        "MAX_LADDER_RESAMPLES": G.MAX_LADDER_RESAMPLES,
        "MAX_GNER_PAIRS": C.MAX_GNER_PAIRS,
    }
    for name, value in bounds.items():
        assert re.search(rf"^\| `{name}` \| {value:,} ", page, re.M), name
    assert f"a type of 1 to {D.MAX_LINE_LABEL} characters" in page


@pytest.mark.parametrize("level", ["exact", "normalized", "fuzzy"])
def test_lone_surrogates_and_combining_marks_in_the_text_are_placed_at_every_level(level):
    text = "Paris \ud800 Hilton x\u0301 \udfff"
    items = [
        {"text": "Hiltom", "type": "X"},
        {"text": "\ud800", "type": "X"},
        {"text": "x\u0301", "type": "X"},
    ]
    listing = G.generated_outcomes(
        [items], [text], matching=level, fuzzy_threshold=0.8 if level == "fuzzy" else 0.9
    )
    places = [o["places"] for o in listing[0]]
    assert places[1:] == [[[6, 7]], [[15, 17]]]
    assert places[0] == ([[8, 14]] if level == "fuzzy" else [])
