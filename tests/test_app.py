"""The app's pure functions: examples parse, every number shown is the metric's, bad input shows
the metric's own message. The browser drives the same functions in test_app_browser.py."""

import csv
import html
import json
import os
import re

import pytest

from ner_recall.app import about, agreement, charts, common, compare, examples, files, golds, uploads
from ner_recall.app import errors as browser
from ner_recall.app import generated as gen
from ner_recall.app import stratified as strat
from ner_recall.generated.matching import LEVELS
from ner_recall.readers import files as ner_files

LENIENT = next(iter(common.decodings()))


def metric_error(**inputs):
    """The metric's ValueError message for these inputs."""
    with pytest.raises(ValueError) as info:
        common.metric().compute(**inputs)
    return str(info.value)


def shown_numbers(fragment):
    """{(mode, key): text} of the numbers the mode cards show."""
    return {(m, k): v for m, k, v in re.findall(r'data-mode="(\w+)" data-key="(\w+)">([^<]+)<', fragment)}


def test_import_builds_without_launching():
    import gradio as gr

    import app

    assert isinstance(app.demo, gr.Blocks) and app.demo is app.demo  # built once, on first use
    assert not app.demo.is_running


@pytest.mark.parametrize(
    "text, items",
    [
        ("B-PER I-PER O", ["B-PER", "I-PER", "O"]),
        ("  B-PER   O \n", ["B-PER", "O"]),
        ("B-PER\nI-PER\n\nO\n", ["B-PER", "I-PER", "O"]),
        ("New York\nis", ["New York", "is"]),  # one per line: a token may hold a space
        ("", []),
        (None, []),
    ],
)
def test_split_items(text, items):
    assert compare.split_items(text) == items


@pytest.mark.parametrize("name", list(examples.EXAMPLES))
def test_examples_parse_and_show_the_metrics_numbers(name):
    case = examples.EXAMPLES[name]
    assert len(case.tokens) == len(case.gold) == len(case.pred)
    fields = examples.example_fields(name)
    shown_case, options, results = compare.score_sentence(*fields)
    assert shown_case == case
    assert results == common.metric().compute(predictions=[case.pred], references=[case.gold], errors=True)
    cards = shown_numbers(common.mode_cards_html(results))
    for mode in common.VOCAB.MODES:
        for key in common.count_keys():
            assert cards[mode, key] == str(results["muc"][mode][key])
        for key in common.SCORE_KEYS:
            assert float(cards[mode, key]) == pytest.approx(results["muc"][mode][key], abs=5e-4)


def test_scenarios_are_batistas():
    expected = {  # strict, exact, partial, type (Batista 2018, table of scenarios I-VI)
        "I.": ("correct",) * 4,
        "II.": ("spurious",) * 4,
        "III.": ("missed",) * 4,
        "IV.": ("incorrect", "correct", "correct", "incorrect"),
        "V.": ("incorrect", "incorrect", "partial", "correct"),
        "VI.": ("incorrect", "incorrect", "partial", "incorrect"),
    }
    for name in examples.BATISTA_EXAMPLES:
        case = examples.EXAMPLES[name]
        results = common.metric().compute(predictions=[case.pred], references=[case.gold], errors=True)
        ((_, outcomes),) = common.entity_pairs(results)
        assert tuple(outcomes.values()) == expected[name.split()[0]], name
    table = about.scenario_table_html()
    assert table.count("<tr>") == 1 + len(examples.BATISTA_EXAMPLES)


def test_each_entity_pair_gets_the_metrics_outcome_per_mode():
    case, options, results = compare.score_sentence(*examples.example_fields(examples.FIRST_EXAMPLE))
    assert common.entity_pairs(results) == [
        ((None, ("PER", 0, 1)), dict.fromkeys(common.VOCAB.MODES, "spurious")),
        ((("PER", 1, 2), ("PER", 1, 2)), dict.fromkeys(common.VOCAB.MODES, "correct")),
        (
            (("DIS", 3, 5), ("DIS", 4, 6)),
            dict(strict="incorrect", exact="incorrect", partial="partial", type="correct"),
        ),
    ]
    fragment = compare.entities_html(case, options, results)
    assert fragment.count('class="pill seg-spurious"') == 4
    assert "DIS <i>une fièvre</i>" in fragment and "DIS <i>fièvre aiguë</i>" in fragment


def test_one_prediction_across_two_gold_entities_is_counted_once():
    _, _, results = compare.score_sentence(
        *examples.example_fields("One prediction across two gold entities")
    )
    outcomes = [outcome["partial"] for _, outcome in common.entity_pairs(results)]
    assert outcomes == ["partial", "missed"]


def test_all_six_scenarios_add_up():
    muc = compare.score_sentence(*examples.example_fields("All six scenarios in one text"))[2]["muc"]
    strict = muc["strict"]
    assert (strict["correct"], strict["incorrect"], strict["missed"], strict["spurious"]) == (1, 3, 1, 1)
    assert muc["partial"]["partial"] == 2


def test_tables_are_the_metrics_per_type_and_seqeval_keys():
    _, _, results = compare.score_sentence(*examples.example_fields(examples.FIRST_EXAMPLE))
    rows = compare.per_type_mode_rows(results)
    assert len(rows) == len(results["muc"]["strict"]["per_type"]) * len(common.VOCAB.MODES)
    for row in rows:
        shown = dict(zip(compare.PER_TYPE_HEADERS, row))
        expected = results["muc"][shown["mode"]]["per_type"][shown["type"]]
        for key in compare.GOLD_SIDE:
            assert shown[f"gold {key}"] == pytest.approx(expected[key], abs=5e-5)
        for key in compare.PREDICTED_SIDE:
            assert shown[f"predicted {key}"] == pytest.approx(expected[key], abs=5e-5)
        assert shown["f1"] == pytest.approx(expected["f1"], abs=5e-5)
    seqeval = {row[0]: dict(zip(compare.SEQEVAL_HEADERS, row)) for row in compare.seqeval_rows(results)}
    assert seqeval["PER"]["f1"] == pytest.approx(results["PER"]["f1"], abs=5e-5)
    for avg in ("overall", "macro", "weighted"):
        for key in common.SCORE_KEYS:
            assert seqeval[avg][key] == pytest.approx(results[f"{avg}_{key}"], abs=5e-5)


def test_per_type_table_keeps_the_gold_side_and_the_predicted_side_apart():
    """A gold ORG predicted LOC on the same tokens: in exact mode the LOC row has no gold entity and
    one credited prediction; its counts say which side each belongs to."""
    _, _, results = compare.score_sentence("Tartu won", "B-ORG O", "B-LOC O")
    rows = {(r[0], r[1]): dict(zip(compare.PER_TYPE_HEADERS, r)) for r in compare.per_type_mode_rows(results)}
    loc = rows["LOC", "exact"]
    assert (loc["gold possible"], loc["gold correct"], loc["gold recall"]) == (0, 0, 0.0)
    assert (loc["predicted actual"], loc["predicted precision"]) == (1, 1.0)
    shown = {*compare.GOLD_SIDE, *compare.PREDICTED_SIDE, "f1"}
    assert shown == {*common.count_keys(), *common.SCORE_KEYS} - {"spurious"} | {"spurious"}
    assert compare.PER_TYPE_HEADERS.index("gold recall") < compare.PER_TYPE_HEADERS.index("predicted actual")


def test_options_reach_the_metric():
    tags = "PER-B PER-I O"
    _, options, results = compare.score_sentence("", tags, tags, "IOB2 strict", True)
    assert options == {"scheme": "IOB2", "mode": "strict", "suffix": True, "errors": True}
    assert results["muc"]["strict"]["correct"] == 1


def test_entities_are_drawn_over_their_tokens():
    case, options, results = compare.score_sentence(*examples.example_fields(examples.FIRST_EXAMPLE))
    fragment = compare.entities_html(case, options, results)
    # gold: PER patiente (token 1), DIS une fièvre (3-4); grid columns are offset by the label column
    assert re.findall(r'data-side="gold" style="grid-row:1;grid-column:(\d+)/(\d+)', fragment) == [
        ("3", "4"),
        ("5", "7"),
    ]
    assert len(re.findall(r'data-side="predicted"', fragment)) == 3
    assert fragment.count("ner-differs") == sum(g != p for g, p in zip(case.gold, case.pred))


@pytest.mark.parametrize(
    "gold, pred, inputs",
    [
        ("B-PER O", "O", dict(predictions=[["O"]], references=[["B-PER", "O"]])),
        ("B-PER X-LOC", "O O", dict(predictions=[["O", "O"]], references=[["B-PER", "X-LOC"]])),
        ("B-PER O", "B-PER 7", dict(predictions=[["B-PER", "7"]], references=[["B-PER", "O"]])),
    ],
)
def test_bad_input_shows_the_metrics_message(gold, pred, inputs):
    error, results, *outputs = compare.compare_view("", gold, pred, LENIENT, False)
    assert html.escape(metric_error(**inputs)) in error
    assert "refused" in error and "Traceback" not in error
    assert results.visible is False


def test_strict_decoding_without_a_scheme_shows_the_metrics_message():
    error = compare.compare_view("", "B-PER", "B-PER", "IOB2 strict", False)[0]
    assert error == ""  # the app always passes a scheme with mode="strict"


@pytest.mark.parametrize(
    "tokens, gold, message",
    [
        ("a b c", "B-PER O", "3 tokens but 2 gold tags"),
        ("", "", "no tags"),
    ],
)
def test_bad_input_of_the_app_itself(tokens, gold, message):
    error = compare.compare_view(tokens, gold, gold, LENIENT, False)[0]
    assert message in error


def test_an_unexpected_error_is_shown_as_a_bug(monkeypatch):
    class Broken:
        def compute(self, **_):
            raise KeyError("boom")

    monkeypatch.setattr(compare, "metric", lambda config_name="default": Broken())
    error = compare.compare_view("", "O", "O", LENIENT, False)[0]
    assert "a bug" in error and "KeyError" in error


# ---------------------------------------------------------------------------- stratified recall


def write(tmp_path, name, rows):
    path = tmp_path / name
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    return str(path)


def test_found_csv_becomes_one_token_sentences(tmp_path):
    path = write(tmp_path, "e.csv", [["subgroup", "found"], ["a", "yes"], ["a", "No"], ["b", "1"]])
    entities = strat.read_entities(path)
    assert entities.subgroups == ["a", "a", "b"]
    assert entities.references == [["B-ENT"]] * 3
    assert entities.predictions == [["B-ENT"], ["O"], ["B-ENT"]]


def test_tagged_csv_keeps_the_tags(tmp_path):
    path = write(
        tmp_path,
        "e.csv",
        [["subgroup", "tokens", "gold", "predicted"], ["news", "New York", "B-LOC I-LOC", "B-LOC O"]],
    )
    entities = strat.read_entities(path)
    assert entities == strat.Entities(["news"], [["B-LOC", "I-LOC"]], [["B-LOC", "O"]])


@pytest.mark.parametrize(
    "rows, message",
    [
        (
            [["subgroup", "found"], ["a", "maybe"]],
            "entities CSV line 2: found must be yes or no; got 'maybe'",
        ),
        ([["group", "found"], ["a", "yes"]], "needs a 'subgroup' column"),
        ([["subgroup", "gold"], ["a", "B-PER"]], "needs the columns subgroup and found"),
        ([["subgroup", "found"]], "at least one data row"),
    ],
)
def test_bad_entities_csv(tmp_path, rows, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        strat.read_entities(write(tmp_path, "e.csv", rows))


def test_sizes_csv_forms(tmp_path):
    assert strat.read_sizes(None) is None
    relative = write(tmp_path, "s.csv", [["subgroup", "size"], ["a", "3"], ["b", "0.5"]])
    assert strat.read_sizes(relative) == {"a": 3, "b": 0.5}
    estimated = write(
        tmp_path,
        "d.csv",
        [
            ["", "population", "occurences", "labelled", "positive", "file"],
            ["0", "a", "100", "10", "4", "x.csv"],
        ],
    )
    assert strat.read_sizes(estimated) == {"a": {"occurences": 100, "labelled": 10, "positive": 4}}
    with pytest.raises(ValueError, match="sizes CSV line 2: not a number: 'many'"):
        strat.read_sizes(write(tmp_path, "bad.csv", [["subgroup", "size"], ["a", "many"]]))


@pytest.mark.parametrize("name", list(examples.STRATIFIED_EXAMPLES))
def test_stratified_examples_show_the_metrics_numbers(name):
    entities_path, sizes_path = examples.stratified_example_files(name)
    entities, sizes = strat.read_entities(entities_path), strat.read_sizes(sizes_path)
    shown = strat.stratified(entities_path, sizes_path, "weighted_wald", 0.9, "partial")
    direct = common.metric("subgroups").compute(
        predictions=entities.predictions,
        references=entities.references,
        subgroups=entities.subgroups,
        subgroup_weights=sizes,
        ci_method="weighted_wald",
        confidence_level=0.9,
        recall_mode="partial",
    )
    assert shown == direct["stratified_recall"]
    rows = strat.strata_rows(shown)
    assert [row[0] for row in rows] == [*shown["strata"], "weighted estimate"]
    assert rows[-1][3:] == [
        round(shown["recall"], 4),
        1.0,
        round(shown["ci_low"], 4),
        round(shown["ci_high"], 4),
    ]
    svg = charts.recall_svg(shown)
    assert svg.startswith("<svg") and all(html.escape(s) in svg for s in shown["strata"])


@pytest.mark.skipif(
    not examples.BENCHMARK_CSV.exists(), reason="../shared/benchmarks is not beside the project"
)
def test_amundsen_example_reproduces_the_published_estimate():
    result = strat.stratified(*examples.amundsen_example(), "weighted_wald", 0.95, "strict")
    assert (result["n"], result["correct"]) == (535, 344)
    assert result["recall"] == pytest.approx(0.5892016803782091, abs=1e-12)
    assert (result["ci_low"], result["ci_high"]) == pytest.approx(
        (0.5442531601445354, 0.6341502006118828), abs=1e-6
    )


def test_stratified_errors_are_shown(tmp_path):
    entities = write(tmp_path, "e.csv", [["subgroup", "found"], ["a", "yes"], ["b", "no"]])
    sizes = write(tmp_path, "s.csv", [["subgroup", "size"], ["a", "3"]])  # b has no size
    error, results, *_ = strat.stratified_view(entities, sizes, "wilson", 0.95, "strict")
    with pytest.raises(ValueError) as info:
        common.metric("subgroups").compute(
            predictions=[["B-ENT"], ["O"]],
            references=[["B-ENT"]] * 2,
            subgroups=["a", "b"],
            subgroup_weights={"a": 3},
        )
    assert html.escape(str(info.value)) in error
    assert results.visible is False
    assert "no entities CSV" in strat.stratified_view(None, None, "wilson", 0.95, "strict")[0]


def test_app_offers_the_metrics_option_values():
    metric = common.metric("subgroups")
    assert sorted(common.VOCAB.CI_METHODS) == sorted(metric.CI_METHODS)
    assert sorted(scheme for scheme, _ in common.decodings().values() if scheme) == sorted(metric.SCHEMES)


# ---------------------------------------------------------------------------- Files tab

DATA = common.ROOT / "tests" / "data"
GOLD, PRED_A, PRED_B, BOTH = (
    str(DATA / n) for n in ("gold.conll", "pred_a.conll", "pred_b.conll", "gold_pred_a.conll")
)
FILES_OUTPUTS = [
    "error",
    "results",
    "headline",
    "cards",
    "plot",
    "heatmap",
    "mode",
    "outcome",
    "type",
    "browser",
    "download",
    "two_systems",
    "comparison",
    "slices",
    "buckets",
    "ranking",
    "state",
]


def files_view(*paths, decoding=LENIENT, resamples=0, slices=None):
    shown = files.files_view(*paths, *[None] * (3 - len(paths)), decoding, False, resamples, slices=slices)
    assert len(shown) == len(FILES_OUTPUTS)
    return dict(zip(FILES_OUTPUTS, shown))


def test_app_constants_are_the_metrics():
    """The app's vocabulary is the metric object's: nothing of the scoring internals is imported."""
    import ast

    metric = common.metric()
    assert common.VOCAB.MODES == metric.MODES and common.VOCAB.OUTCOMES == metric.OUTCOMES
    assert set(common.VOCAB.OUTCOMES) == set(files_view(GOLD, PRED_A)["state"]["results"]["errors"]["strict"])
    internals = {
        "ner_pipeline",
        "ner_matching",
        "ner_uncertainty",
        "ner_decoding",
        "ner_core",
        "ner_scorings",
    }
    for path in [*(common.ROOT / "ner_recall" / "app").glob("*.py"), common.ROOT / "app.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {name.split(".")[-1] for name in imported} & internals, path.name


def test_files_tab_hand_counted():
    """tests/data, counted by hand: 7 gold and 7 predicted entities; BREVICOR, Valdorian, Greyfield
    Council and the second Valdorian exact; Tessarian MISC predicted LOC; Maren Oakhurst predicted
    Maren; HARROWFEN missed; Monday spurious."""
    shown = files_view(GOLD, PRED_A)
    assert shown["error"] == ""
    headline = dict(re.findall(r'data-key="(\w+)">([^<]+)<', shown["headline"]))
    assert headline == {
        "overall_precision": "0.5714",
        "overall_recall": "0.5714",
        "overall_f1": "0.5714",
    }  # 4/7
    cards = shown_numbers(shown["cards"])
    assert [cards["strict", k] for k in ("correct", "incorrect", "missed", "spurious")] == [
        "4",
        "2",
        "1",
        "1",
    ]
    assert [cards["exact", k] for k in ("correct", "incorrect")] == ["5", "1"]
    assert cards["partial", "partial"] == "1" and cards["partial", "recall"] == "0.786"  # (5 + 1/2) / 7
    assert [cards["type", k] for k in ("correct", "incorrect")] == ["5", "1"]  # Maren: type right
    heat = {
        (g, p): int(n)
        for g, p, n in re.findall(r'data-gold="(\w*)" data-pred="(\w*)" data-n="(\d+)"', shown["heatmap"])
    }
    assert {k: n for k, n in heat.items() if n} == {
        ("ORG", "ORG"): 2,
        ("MISC", "MISC"): 2,
        ("MISC", "LOC"): 1,
        ("PER", "PER"): 1,
        ("LOC", ""): 1,
        ("", "MISC"): 1,
    }
    f1 = {
        (t, m): float(v)
        for t, m, v in re.findall(r'data-type="(\w+)" data-mode="(\w+)" data-f1="([\d.]+)"', shown["plot"])
    }
    assert f1["MISC", "strict"] == pytest.approx(2 / 3, abs=1e-4) and f1["PER", "type"] == 1.0


@pytest.mark.parametrize(
    "mode, outcome, type_name, count",
    [  # counted by hand on tests/data
        ("strict", browser.NOT_CORRECT, browser.ALL_TYPES, 4),
        ("strict", "correct", browser.ALL_TYPES, 4),
        ("strict", browser.NOT_CORRECT, "MISC", 2),  # Tessarian (gold MISC) and Monday (predicted MISC)
        ("strict", browser.NOT_CORRECT, "LOC", 2),  # Tessarian (predicted LOC) and HARROWFEN
        ("exact", "incorrect", browser.ALL_TYPES, 1),
        ("partial", "partial", "PER", 1),
        ("type", "incorrect", "ORG", 0),
    ],
)
def test_error_browser_filters(mode, outcome, type_name, count):
    state = files_view(GOLD, PRED_A)["state"]
    page = browser.errors_html(state, mode, outcome, type_name)
    assert f'data-count="{count}"' in page
    assert page.count('class="error-card"') == count
    assert len(browser.browse_errors(state, mode, outcome, type_name)) == count


def test_error_browser_draws_the_pair_in_its_sentence():
    state = files_view(GOLD, PRED_A)["state"]
    page = browser.errors_html(state, "strict", "incorrect", "LOC")
    assert "sentence 1 <small>(gold.conll line 9)</small>" in page  # Tessarian, line 9 of gold.conll
    assert re.findall(r'ner-span ner-focus" data-side="(\w+)"[^>]*>(\w+)<', page) == [
        ("gold", "MISC"),
        ("predicted", "LOC"),
    ]
    assert (
        page.count('class="ner-token') == 9 and "<b>wool</b>" in page
    )  # the whole sentence: 6 tokens around


def test_error_browser_window(monkeypatch):
    monkeypatch.setattr(browser, "CONTEXT", 1)
    page = browser.errors_html(files_view(GOLD, PRED_A)["state"], "strict", "incorrect", "LOC")
    assert re.findall(r"<b>([^<]+)</b>", page)[1:] == ["import", "Tessarian", "wool"]


def test_heatmap_is_the_error_listing_counted_again(metric):
    """The type confusion shown, against a count of the strict error listing done here."""
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    listing = metric.compute(**inputs.compute_inputs(), errors=True)["errors"]["strict"]
    expected = {}
    for entries in listing.values():
        for e in entries:
            key = (e["gold"][0] if e["gold"] else "", e["pred"][0] if e["pred"] else "")
            expected[key] = expected.get(key, 0) + 1
    shown = files_view(GOLD, PRED_A)["heatmap"]
    heat = {
        (g, p): int(n) for g, p, n in re.findall(r'data-gold="(\w*)" data-pred="(\w*)" data-n="(\d+)"', shown)
    }
    assert {k: n for k, n in heat.items() if n} == expected


def test_files_tab_numbers_are_the_metrics(metric):
    shown = files_view(GOLD, PRED_A, PRED_B, decoding="IOB2 strict")
    inputs = ner_files.read_conll_pair(GOLD, PRED_B)
    expected_b = metric.compute(**inputs.compute_inputs(), scheme="IOB2", mode="strict")
    state = shown["state"]
    for mode in common.VOCAB.MODES:
        assert {k: v for k, v in state["results_b"]["muc"][mode].items()} == expected_b["muc"][mode]
    rows = {row[0]: row for row in shown["comparison"].values.tolist()}
    assert rows["overall_f1"][1:4] == [round(4 / 7, 4), round(12 / 13, 4), round(12 / 13 - 4 / 7, 4)]
    saved = json.loads(open(shown["download"], encoding="utf-8").read())
    assert saved["results"]["muc"] == json.loads(json.dumps(state["results"]["muc"]))
    assert saved["results_b"]["overall_recall"] == pytest.approx(6 / 7)
    assert shown["two_systems"].visible is True


def test_two_tag_columns_and_jsonl_give_the_same_scores(tmp_path, metric):
    pair = files_view(GOLD, PRED_A)["state"]["results"]
    assert files_view(BOTH)["state"]["results"]["muc"] == pair["muc"]
    inputs = ner_files.read_conll_pair(GOLD, PRED_A)
    for name, side in (("g.jsonl", inputs.references), ("p.jsonl", inputs.predictions)):
        with open(tmp_path / name, "w", encoding="utf-8") as f:
            for tokens, tags in zip(inputs.tokens, side):
                entities = [{"label": s.label, "start": s.start, "end": s.end} for s in metric.decode(tags)]
                f.write(json.dumps({"tokens": tokens, "entities": entities}) + "\n")
    shown = files_view(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"))
    assert shown["state"]["results"]["muc"] == pair["muc"]
    assert browser.errors_html(shown["state"]).count('class="error-card"') == 4


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "BREVICOR B-ORG\nwelcomes O O\n",
            "bad.conll line 2: 3 fields, but the token lines before have 2 (ragged columns)",
        ),
    ],
)
def test_bad_files_show_the_readers_message(tmp_path, text, message):
    (tmp_path / "bad.conll").write_text(text, encoding="utf-8")
    shown = files_view(str(tmp_path / "bad.conll"), PRED_A)
    assert html.escape(message) in shown["error"] and "Traceback" not in shown["error"]
    assert shown["results"].visible is False
    assert "no gold file" in files_view(None)["error"]


def heading(box):
    """The bold heading of an error box."""
    return html.unescape(re.search(r"<strong>(.*?)</strong>", box).group(1))


def test_the_error_heading_names_the_file_that_failed(tmp_path):
    """The Files tab's error box says which upload failed (a reader's message, the metric's refusal
    of a side, a slot's own check), and "Cannot score these files" when it is about several."""
    bad = tmp_path / "bad.conll"
    bad.write_text("BREVICOR B-ORG\nwelcomes O O\n", encoding="utf-8")
    odd = tmp_path / "odd.conll"  # the gold's sentences, a tag the IOB2 scheme refuses
    odd.write_text(open(GOLD, encoding="utf-8").read().replace("B-MISC", "S-MISC", 1), encoding="utf-8")
    short = tmp_path / "short.txt"
    short.write_text("news\n")
    spans, past = tmp_path / "spans.jsonl", tmp_path / "past.jsonl"  # an entity past the tokens
    for path, end in ((spans, 1), (past, 5)):
        entities = [{"label": "PER", "start": 0, "end": end}]
        path.write_text(json.dumps({"tokens": ["Ada", "sang"], "entities": entities}) + "\n")
    strict = "IOB2 strict"
    for paths, options, expected in (
        ((str(bad), PRED_A), {}, "Cannot read the gold file"),
        ((GOLD, str(bad)), {}, "Cannot read the predictions file"),
        ((str(odd), PRED_A), {"decoding": strict}, "Cannot read the gold file"),
        ((GOLD, str(odd)), {"decoding": strict}, "Cannot read the predictions file"),
        ((GOLD, PRED_A, str(odd)), {"decoding": strict}, "Cannot read the second predictions file"),
        ((GOLD, PRED_A), {"slices": str(short)}, "Cannot read the slices file"),
        ((str(spans), str(spans), str(past)), {}, "Cannot read the second predictions file"),
        ((GOLD, [str(tmp_path / "doc.ann")]), {}, "Cannot read the predictions file"),
        ((GOLD, str(DATA / "formats" / "label_studio.json")), {}, "Cannot score these files"),
    ):
        (tmp_path / "doc.ann").write_text("T1\tPER 0 3\tAda\n", encoding="utf-8")
        assert heading(files_view(*paths, **options)["error"]) == expected, (paths, options)
    assert heading(files_view(None)["error"]) == "Cannot score these files"  # no gold file at all


def test_a_file_with_two_tag_columns_is_the_gold_file_on_either_side(tmp_path):
    both = tmp_path / "both.conll"
    both.write_text("Ada B-PER S-PER\nsang O O\n", encoding="utf-8")
    error = files_view(str(both), decoding="IOB2 strict")["error"]
    assert "predictions[0][0]" in error and heading(error) == "Cannot read the gold file"


def test_the_golds_error_heading_names_the_gold_that_failed(tmp_path):
    bad = tmp_path / "bad.conll"
    bad.write_text("BREVICOR B-ORG\nwelcomes O O\n", encoding="utf-8")
    for first, second, expected in (
        (str(bad), GOLD, "Cannot read the gold file"),
        (GOLD, str(bad), "Cannot read the second gold file"),
        (GOLD, None, "Cannot compare these golds"),
    ):
        error = golds.golds_view([first], second and [second], LENIENT, False, golds.AUTO_FORMAT)[0]
        assert heading(error) == expected


def test_a_refused_tag_box_is_named():
    assert heading(compare.compare_view("", "B-PER X-LOC", "O O", LENIENT, False)[0]) == (
        "The metric refused the gold tags"
    )
    assert heading(compare.compare_view("", "B-PER O", "B-PER 7", LENIENT, False)[0]) == (
        "The metric refused the predicted tags"
    )
    assert heading(compare.compare_view("a b c", "B-PER O", "O O", LENIENT, False)[0]) == (
        "The metric refused this input"
    )


def test_the_download_comes_second():
    first, second = files.files_stream(GOLD, PRED_A, None, LENIENT, False, 0)
    assert first[files.FILES_DOWNLOAD] is None and FILES_OUTPUTS[files.FILES_DOWNLOAD] == "download"
    assert first[2:6] == tuple(files_view(GOLD, PRED_A)[k] for k in ("headline", "cards", "plot", "heatmap"))
    saved = json.loads(open(second[files.FILES_DOWNLOAD], encoding="utf-8").read())
    assert saved["results"]["muc"]["strict"]["correct"] == 4
    assert list(files.files_stream(None, None, None, LENIENT, False, 0))[0][0].startswith(
        '<div class="app-error"'
    )


def test_example_files_score():
    shown = files_view(*examples.example_conll_files())
    assert shown["error"] == "" and shown["two_systems"].visible is True


# ---------------------------------------------------------------------------- Annotate mode


@pytest.mark.parametrize(
    "chunks, tokens, tags",
    [
        ([("Anna Tamm", "PER"), (" flew to Riga", None)], "Anna Tamm flew to Riga", "B-PER I-PER O O O"),
        (
            [("Anna ", None), ("Tamm", "PER"), (" flew to ", None), ("Riga", "LOC")],
            "Anna Tamm flew to Riga",
            "O B-PER O O B-LOC",
        ),
        ([("Ri", "LOC"), ("ga", None)], "Riga", "B-LOC"),  # part of a word marks the word
        (
            [("New", "LOC"), (" ", None), ("York", "LOC")],
            "New York",
            "B-LOC B-LOC",
        ),  # two marks, two entities
        ([("a ", None), (" ", "X"), ("b", None)], "a b", "O O"),  # a mark on spaces only is no entity
        ([{"token": "Tartu", "class_or_confidence": "LOC"}], "Tartu", "B-LOC"),  # the component's dict form
        ([], "", ""),
    ],
)
def test_marks_to_tags(chunks, tokens, tags):
    assert compare.marks_to_tags(chunks) == (tokens.split(), tags.split())


@pytest.mark.parametrize("name", list(examples.EXAMPLES))
def test_annotate_round_trip_keeps_the_entities(name):
    fields = examples.example_fields(name)
    text, gold_marks, pred_marks = compare.annotate_start(*fields, LENIENT, False)
    tokens, gold, pred, decoding = compare.annotate_marks(gold_marks, pred_marks)
    case = examples.EXAMPLES[name]
    assert tokens.split() == case.tokens and decoding == "IOB2 strict"
    decode = common.metric().decode
    assert decode(gold.split(), scheme="IOB2") == decode(case.gold)
    assert decode(pred.split(), scheme="IOB2") == decode(case.pred)


def test_annotate_view_scores_the_boxes_it_makes():
    """Marks in, the tag boxes and the Compare outputs of exactly those boxes out, in one step."""
    gold_marks = [("Anna Tamm", "PER"), (" flew to ", None), ("Riga", "LOC"), (" today", None)]
    pred_marks = [("Anna ", None), ("Tamm", "PER"), (" flew to Riga today", None)]
    out = compare.annotate_view(gold_marks, pred_marks, False)
    boxes = compare.annotate_marks(gold_marks, pred_marks)
    assert (
        out[:4]
        == boxes
        == ("Anna Tamm flew to Riga today", "B-PER I-PER O O B-LOC O", "O B-PER O O O O", "IOB2 strict")
    )
    expected = compare.compare_view(*boxes, False)
    assert len(out) == 4 + len(expected)
    texts = [i for i, o in enumerate(expected) if isinstance(o, str)]  # error, entities, cards, code
    assert len(texts) == 4 and [out[4 + i] for i in texts] == [expected[i] for i in texts]
    assert out[5].visible and expected[1].visible
    assert 'data-mode="type" data-key="correct">1<' in out[7]  # the cards: Tamm overlaps Anna Tamm


def test_docs_table_is_the_benchmarks():
    """docs/app.md's time-to-first-result table is bench/app_files.md's, as bench/app_files.py wrote it."""
    docs = (common.ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    bench = (common.ROOT / "bench" / "app_files.md").read_text(encoding="utf-8")

    def table(text):
        return [line for line in text.splitlines() if line.startswith("|")]

    shown = re.search(r"<!-- app-files -->\n(.*?)\n<!-- /app-files -->", docs, re.S).group(1)
    assert table(bench) and table(shown) == table(bench)
    assert all((common.ROOT / "docs" / p).exists() for p in re.findall(r"\]\((screenshots/[^)]+)\)", docs))


def test_span_inputs_are_drawn_from_their_spans():
    """As the "spans" config returns them: span dicts per example, over tokens or characters."""
    loc, org = {"label": "LOC", "start": 2, "end": 4}, {"label": "ORG", "start": 2, "end": 3}
    inputs = ner_files.Inputs(
        [[loc]],
        [[org]],
        [["Flights", "to", "New", "York"]],
        {"references": "g.jsonl", "predictions": "p.jsonl"},
        {"references": [1], "predictions": [1]},
    )
    state = {"inputs": inputs, "options": {}}
    assert browser.sentence_spans(state, 0) == ([("LOC", 2, 4)], [("ORG", 2, 3)], None)
    entry = {"sentence": 0, "gold": ["LOC", 2, 4], "pred": ["ORG", 2, 3]}
    card = browser.error_card_html(state, "incorrect", entry, {"LOC": "#111", "ORG": "#222"})
    assert "(g.jsonl line 1)" in card and card.count("ner-focus") == 2 and 'class="ner-tag"' not in card
    text = inputs._replace(tokens=["Flights to New York"])
    entry = {"sentence": 0, "gold": ["LOC", 11, 19], "pred": ["ORG", 11, 14]}
    card = browser.error_card_html({"inputs": text, "options": {}}, "incorrect", entry, {})
    assert "gold LOC <i>New York</i> → predicted ORG <i>New</i>" in card


def test_bad_tags_show_the_decoders_message_with_file_and_line(tmp_path):
    gold = tmp_path / "g.conll"
    gold.write_text("BREVICOR B-ORG\nwelcomes S-ORG\nx U-ORG\n", encoding="utf-8")
    pred = tmp_path / "p.conll"
    pred.write_text("BREVICOR B-ORG\nwelcomes O\nx O\n", encoding="utf-8")
    shown = files_view(str(gold), str(pred))
    assert (
        "invalid tag &#x27;U-ORG&#x27; at references[0][2]" in shown["error"]
        and "g.conll line 3" in shown["error"]
    )


def test_io_files_with_bare_types_and_untyped_files_score_in_the_files_tab(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("Anna PER\nsang O\nin O\nRiga LOC\n", encoding="utf-8")
    pred.write_text("Anna PER\nsang O\nin O\nRiga PER\n", encoding="utf-8")
    io = next(name for name, (scheme, _) in common.decodings().items() if scheme == "IO")
    state = files.score_uploads(str(gold), str(pred), decoding=io)
    assert (
        state["results"]["muc"]["strict"]["correct"] == 1
        and state["results"]["muc"]["strict"]["incorrect"] == 1
    )
    gold.write_text("Anna B\nKarenina I\nsang O\n", encoding="utf-8")
    pred.write_text("Anna B\nKarenina O\nsang O\n", encoding="utf-8")
    state = files.score_uploads(str(gold), str(pred))
    assert state["results"]["muc"]["partial"]["partial"] == 1


def test_files_tab_slices_and_buckets(tmp_path):
    """A slices file gives the per-slice table (the worst slice marked, equal to the metric's
    slices); the bucket charts draw the metric's strict F1 per bucket."""
    from ner_recall.readers import files as ner_files

    n = len(ner_files.read_pair(GOLD, PRED_A).references)
    values = ["news" if i % 2 else "web" for i in range(n)]
    path = tmp_path / "genre.txt"
    path.write_text("\n".join(values) + "\n")
    shown = files_view(GOLD, PRED_A, slices=str(path), resamples=100)
    results = shown["state"]["results"]
    table = results["slices"]["slice"]
    assert set(table["values"]) == {"news", "web"}
    worst = table["worst"]["value"]
    assert f'<tr class="worst" title="the worst slice" data-slice="{worst}">' in shown["slices"]
    for value, r in table["values"].items():
        assert f"{r['overall_f1']:.4f} [" in shown["slices"]  # with its interval
    expected = common.metric().compute(**ner_files.read_pair(GOLD, PRED_A).compute_inputs(), slices=values)
    assert {v: r["overall_f1"] for v, r in table["values"].items()} == {
        v: r["overall_f1"] for v, r in expected["slices"]["slice"]["values"].items()
    }
    for name, buckets in results["buckets"].items():
        assert f'data-attribute="{name}"' in shown["buckets"]
        for label, r in buckets.items():
            assert f'data-bucket="{label}" data-f1="{r["f1"]:.4f}"' in shown["buckets"]
    assert set(results["buckets"]) == {"entity_length", "sentence_length", "density", "capitalisation"}
    # without a slices file: a hint, never an empty table
    assert "Upload a slices file" in files_view(GOLD, PRED_A)["slices"]
    # two systems: B - A per slice with its Holm-corrected p-value
    two = files_view(GOLD, PRED_A, PRED_B, slices=str(path))
    assert "<th>p (Holm)</th>" in two["slices"]
    # a slices file of the wrong length names itself
    path.write_text("news\n")
    assert (
        f"slices file {path.name}: 1 lines but the files hold {n} sentences"
        in files_view(GOLD, PRED_A, slices=str(path))["error"]
    )


def bucket_titles(fragment):
    return [html.unescape(t) for t in re.findall(r"<h4>(.*?)</h4>", fragment)]


def test_bucket_charts_name_their_unit_and_say_why_one_is_absent(tmp_path):
    """Entity length in tokens for tag files, in characters for span files over a text; the charts
    of tag files that span files do not get are named with the reason."""
    conll = files_view(GOLD, PRED_A)["buckets"]
    assert bucket_titles(conll) == [
        "entity length (tokens)",
        "sentence length (tokens)",
        "density (entities per token of the sentence)",
        "capitalisation",
    ]
    assert "Not drawn" not in conll
    studio = str(DATA / "formats" / "label_studio.json")
    shown = files_view(studio, studio)
    assert list(shown["state"]["results"]["buckets"]) == [
        "entity_length",
        "sentence_length",
        "density",
        "capitalisation",
    ]
    assert bucket_titles(shown["buckets"]) == [
        "entity length (characters)",
        "text length (characters)",
        "density (entities per 100 characters of the text)",
        "capitalisation",
    ]
    assert "Not drawn" not in shown["buckets"]
    tokens = tmp_path / "tokens.jsonl"  # offsets into tokens: entity length in tokens, no text
    tokens.write_text(
        json.dumps(
            {"tokens": ["Ada", "Lovelace", "sang"], "entities": [{"label": "PER", "start": 0, "end": 2}]}
        )
        + "\n",
        encoding="utf-8",
    )
    shown = files_view(str(tokens), str(tokens))["buckets"]
    assert bucket_titles(shown) == ["entity length (tokens)"]
    absent = dict(re.findall(r"<li><b>(.*?)</b>: (.*?)</li>", shown))
    assert list(absent) == [
        "sentence length (tokens)",
        "density (entities per token of the sentence)",
        "capitalisation",
    ]
    assert all(html.unescape(reason).endswith("and these files give tokens") for reason in absent.values())
    brat = [str(DATA / "formats" / "brat" / n) for n in ("doc1.ann", "doc1.txt")]
    shown = files.files_view(brat, brat, None, LENIENT, False, 0)[FILES_OUTPUTS.index("buckets")]
    assert bucket_titles(shown) == [] and shown.count("discontinuous entities") == 4


def test_files_tab_draws_the_ranking_of_scored_predictions(tmp_path):
    """JSONL predictions with a score: the precision-recall curve of each matching and the
    reliability diagram, the metric's numbers."""
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text(
        '{"tokens": ["Anna", "met", "Bob", "in", "Riga"], "entities": [{"label": "PER", "start": 0, "end": 1}, {"label": "PER", "start": 2, "end": 3}, {"label": "LOC", "start": 4, "end": 5}]}\n'
    )
    pred.write_text(
        '{"tokens": ["Anna", "met", "Bob", "in", "Riga"], "entities": [{"label": "PER", "start": 0, "end": 1, "score": 0.9}, {"label": "LOC", "start": 2, "end": 3, "score": 0.35}, {"label": "LOC", "start": 4, "end": 5, "score": 0.62}]}\n'
    )
    shown = files_view(str(gold), str(pred))
    ranking = shown["state"]["results"]["ranking"]
    for name in ("strict", "partial"):
        assert (
            f'data-matching="{name}" data-ap="{ranking[name]["average_precision"]:.4f}"' in shown["ranking"]
        )
    bins = re.findall(
        r'class="reliability-bin" data-count="(\d+)" data-accuracy="([0-9.]+)"', shown["ranking"]
    )
    assert [(int(c), float(a)) for c, a in bins] == [
        (r["count"], round(r["accuracy"], 4)) for r in ranking["strict"]["reliability"]
    ]
    # unscored files draw nothing
    assert files_view(GOLD, PRED_A)["ranking"] == ""


def test_agreement_tab_shows_the_metrics_numbers():
    paths = examples.example_annotation_files()
    error, _, table, _, listing, state = agreement.agreement_view(paths, LENIENT, False, 100)
    assert error == ""
    from ner_recall.readers import files as ner_files

    first = ner_files.read_pair(paths[0], paths[1])
    annotations = [
        first.references,
        first.predictions,
        ner_files.read_second_predictions(first, paths[2]).predictions,
    ]
    expected = common.metric().agreement(annotations, ci_resamples=100)
    assert state["agreement"] == expected
    for pair, row in expected["pairs"].items():
        for mode in common.VOCAB.MODES:
            low, high = row["intervals"][mode]
            assert f'<td data-mode="{mode}">{row[mode]:.4f} [{low:.4f}, {high:.4f}]</td>' in table
    assert f'<b data-key="kappa">{expected["kappa"]["value"]:.4f}' in table
    assert f'<b data-key="alpha-strict">{expected["alpha"]["strict"]["value"]:.4f}' in table
    first_pair = expected["pairs"]["0-1"]["disagreements"]
    assert f'data-count="{len(first_pair)}"' in listing
    assert listing.count('class="error-card"') == min(len(first_pair), common.ERROR_PAGE)
    assert [m for m in re.findall(r'data-kind="(\w+)"', listing)] == [d["kind"] for d in first_pair]
    other = agreement.disagreements_html(state, "1-2")
    assert f'data-count="{len(expected["pairs"]["1-2"]["disagreements"])}"' in other
    assert "annotator_2.conll</b> and <b>annotator_3.conll" in other


def test_agreement_tab_needs_two_files():
    assert "two or more annotation files" in agreement.agreement_view([GOLD], LENIENT, False, 0)[0]
    assert (
        "Cannot compare"
        in agreement.agreement_view(
            [GOLD, str(DATA / "pred_a.conll"), "/nonexistent.conll"], LENIENT, False, 0
        )[0]
    )


@pytest.mark.parametrize("page_size", [1, 2, 3])
def test_error_browser_pages_cover_every_pair_once(monkeypatch, page_size):
    monkeypatch.setattr(browser, "ERROR_PAGE", page_size)
    state = files_view(GOLD, PRED_A)["state"]
    found = browser.browse_errors(state, "strict")
    pages = -(-len(found) // page_size)
    assert pages >= 2  # the gold file has enough errors to page
    drawn = []
    for page in range(1, pages + 1):
        html_page = browser.errors_html(state, "strict", page=page)
        assert f'data-page="{page}" data-pages="{pages}"' in html_page
        drawn += re.findall(r'data-outcome="(\w+)" data-sentence="(\d+)"', html_page)
    assert drawn == [(o, str(e["sentence"])) for o, e in found]  # in order, none twice, none left out
    last = browser.errors_html(state, "strict", page=pages)
    assert browser.errors_html(state, "strict", page=pages + 5) == last  # clamped
    assert browser.errors_html(state, "strict", page=0) == browser.errors_html(state, "strict", page=1)
    assert browser.turn_page(state, "strict", browser.NOT_CORRECT, browser.ALL_TYPES, pages, step=1) == (
        pages,
        last,
    )
    assert browser.turn_page(state, "strict", browser.NOT_CORRECT, browser.ALL_TYPES, 2, step=-1)[0] == 1


def test_files_tab_shows_the_hierarchy_and_attribute_tables_of_a_harem_pair():
    import os

    folder = os.path.join(common.ROOT, "tests", "data", "harem")
    shown = files_view(os.path.join(folder, "gold.txt"), os.path.join(folder, "system.txt"))
    assert shown["error"] == ""
    results = shown["state"]["results"]
    table = shown["ranking"]
    assert 'data-key="hierarchy"' in table and 'data-key="attributes"' in table
    combined = results["hierarchy"]["absolute"]["combined"]
    assert f"<td>combined</td><td>{common.fmt(combined['precision'])}</td>" in table
    wrong = results["attributes"]["outcomes"]["number"]["wrong"]
    assert re.search(r"<td>number</td>(<td>[^<]*</td>){5}<td>" + str(wrong) + "</td>", table)
    plain = files_view(GOLD, PRED_A)["ranking"]
    assert "hierarchy" not in plain and "attributes" not in plain


@pytest.mark.parametrize("file_format", [golds.AUTO_FORMAT, "doccano"])
def test_files_tab_reads_an_annotation_tool_by_name_or_by_the_picker(file_format):
    import os

    path = os.path.join(common.ROOT, "tests", "data", "formats", "doccano.jsonl")
    shown = files.files_view(path, path, None, LENIENT, False, 0, file_format=file_format)
    assert shown[0] == "" and shown[-1]["results"]["overall_f1"] == 1.0


def test_files_tab_names_a_wrong_format_choice():
    import os

    path = os.path.join(common.ROOT, "tests", "data", "formats", "doccano.jsonl")
    shown = files.files_view(path, path, None, LENIENT, False, 0, file_format="conllu")
    assert "Cannot score these files" in shown[0] and shown[-1] is None


# ---------------------------------------------------------------------------- hostile and careless uploads

HOSTILE = 'x" onmouseover="alert(1)'


def attribute_names(fragment):
    """Every attribute name of every element of an HTML fragment, as a browser parses it."""
    from html.parser import HTMLParser

    names = set()

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            names.update(name for name, _ in attrs)

    Collect().feed(fragment)
    return names


def test_every_value_reaching_html_is_escaped(tmp_path):
    """A type name holding markup, through every drawing of the Files tab: no live attribute."""
    line = {"id": 1, "text": "Ada met Bob.", "label": [[0, 3, HOSTILE], [8, 11, "PER"]]}
    path = tmp_path / f"{HOSTILE}.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    shown = files.files_view(str(path), str(path), None, LENIENT, False, 0, file_format="doccano")
    assert shown[0] == ""
    drawn = "".join(x for x in shown if isinstance(x, str))
    assert HOSTILE not in drawn and html.escape(HOSTILE) in drawn
    assert attribute_names(drawn) and not {a for a in attribute_names(drawn) if a.startswith("on")}
    assert common.attrs(data_x=HOSTILE) == ' data-x="x&quot; onmouseover=&quot;alert(1)"'
    grid = common.sentence_grid_html(
        ["<b>"], [(HOSTILE, 0, 1)], [], {HOSTILE: "#000"}, focus=[(HOSTILE, 0, 1)]
    )
    assert "<b><b>" not in grid and "&lt;b&gt;" in grid and HOSTILE not in grid


@pytest.mark.parametrize(
    "files_, message",
    [
        ({"doc.ann": "T1\tPER 0 3\tAda\n"}, "upload doc.txt together with doc.ann"),
        ({"a.conll": "x O\n", "b.conll": "x O\n"}, "one file per slot (2 given: a.conll, b.conll)"),
    ],
)
def test_an_upload_slot_takes_one_file_or_brat_pairs(tmp_path, files_, message):
    paths = []
    for name, text in files_.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    with pytest.raises(ValueError, match=re.escape(message)):
        uploads.gather(paths, "gold")


def test_brat_as_a_pair_or_a_zip_scores_like_its_folder(tmp_path):
    import zipfile

    brat = common.ROOT / "tests" / "data" / "formats" / "brat"
    pair = [str(brat / "doc1.ann"), str(brat / "doc1.txt")]
    archive = tmp_path / "brat.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in pair:
            z.write(p, "nested/" + os.path.basename(p))  # folders inside are flattened
    by_pair = files.score_uploads(pair, pair)["results"]
    by_zip = files.score_uploads([str(archive)], pair)["results"]
    expected = common.metric("spans").compute(**ner_files.read_pair(str(brat), str(brat)).compute_inputs())
    assert by_pair["overall_f1"] == by_zip["overall_f1"] == expected["overall_f1"] == 1.0
    assert uploads.gather(pair, "gold").name == "doc1.ann"


def test_a_zip_is_bounded_before_it_is_extracted(tmp_path, monkeypatch):
    import zipfile

    archive = tmp_path / "big.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.conll", "x O\n" * 1000)
    monkeypatch.setattr(uploads, "ZIP_BYTES", 100)
    with pytest.raises(
        ValueError,
        match=r"big.zip holds 1 files, 4,000 bytes uncompressed; at most 10,000 files and 100 bytes",
    ):
        uploads.gather([str(archive)], "gold")
    (tmp_path / "not.zip").write_bytes(b"PK no zip")
    with pytest.raises(ValueError, match="not.zip is not a zip archive"):
        uploads.gather([str(tmp_path / "not.zip")], "gold")


def test_errors_name_the_uploaded_file_not_the_server_folder(tmp_path):
    bad = tmp_path / "broken.conll"
    bad.write_text("BREVICOR B-ORG\nwelcomes O O\n", encoding="utf-8")
    error = files.files_view([str(bad)], [PRED_A], None, LENIENT, False, 0)[0]
    assert "broken.conll line 2" in error and "ner_app_upload_" not in error and str(tmp_path) not in error


def test_a_missing_optional_package_is_named_with_its_install_line():
    error = ModuleNotFoundError("No module named 'spacy'", name="spacy")
    box = common.error_html(error, "Cannot score these files")
    assert "optional package spacy" in box and "pip install spacy" in box and "a bug" not in box
    try:
        import spacy  # noqa: F401
    except ImportError:  # the real reader, as a user without spaCy meets it
        path = common.example_dir() / "corpus.spacy"
        path.write_bytes(b"\x00")
        shown = files.files_view([str(path)], [str(path)], None, LENIENT, False, 0)[0]
        assert "pip install spacy" in shown and "failed unexpectedly" not in shown


def test_the_page_box_shows_the_page_drawn():
    state = files_view(GOLD, PRED_A)["state"]
    pages = browser.page_count(browser.browse_errors(state))
    assert browser.show_page(state, "strict", browser.NOT_CORRECT, browser.ALL_TYPES, 999)[0] == pages
    assert browser.show_page(state, "strict", browser.NOT_CORRECT, browser.ALL_TYPES, -3)[0] == 1


def test_two_errors_of_a_sentence_make_two_cards_that_differ(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("Anna B-PER\nmet O\nBob B-PER\nin O\nRiga B-LOC\n", encoding="utf-8")
    pred.write_text("Anna B-LOC\nmet O\nBob O\nin O\nRiga B-LOC\n", encoding="utf-8")
    page = browser.errors_html(files_view(str(gold), str(pred))["state"])
    cards = re.findall(r'<div class="error-card".*?(?=<div class="error-card"|$)', page, re.S)
    assert len(cards) == 2 and cards[0] != cards[1]
    assert all(card.count("ner-focus") in (1, 2) for card in cards)
    assert (
        "gold PER <i>Anna</i> → predicted LOC <i>Anna</i>" in cards[0] and "gold PER <i>Bob</i>" in cards[1]
    )


def test_the_example_menu_follows_the_user():
    assert compare.example_boxes(examples.FIRST_EXAMPLE) == examples.example_fields(examples.FIRST_EXAMPLE)
    skipped = compare.example_boxes(compare.OWN_SENTENCE)
    assert len(skipped) == 3 and all(not isinstance(x, str) for x in skipped)
    # the boxes that marks make: the example's name only while they hold the example
    fields = examples.example_fields(examples.FIRST_EXAMPLE)
    assert compare.example_named(examples.FIRST_EXAMPLE, *fields) == examples.FIRST_EXAMPLE
    marked = (fields[0], fields[1].replace("I-DIS O O", "I-DIS B-DIS O"), fields[2])
    assert compare.example_named(examples.FIRST_EXAMPLE, *marked) == compare.OWN_SENTENCE
    assert compare.example_named(compare.OWN_SENTENCE, *fields) == compare.OWN_SENTENCE
    # the Stratified tab's "(your own files)" leaves the uploads and the results as they are
    kept = strat.stratified_example_view(strat.OWN_FILES, "wilson", 0.95, "strict")
    assert len(kept) == 7 and all(not isinstance(x, str) for x in kept)


def label_studio_export(tmp_path, annotations):
    tasks = [
        {
            "id": 1,
            "data": {"text": "Ada met Bob."},
            "annotations": [
                {
                    "id": k,
                    "completed_by": k,
                    "was_cancelled": False,
                    "result": [
                        {
                            "id": f"{k}{i}",
                            "from_name": "label",
                            "to_name": "text",
                            "type": "labels",
                            "value": {"start": s, "end": e, "labels": [label]},
                        }
                        for i, (s, e, label) in enumerate(spans)
                    ],
                }
                for k, spans in enumerate(annotations, 1)
            ],
        }
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return str(path)


def test_one_label_studio_export_of_two_annotators_is_accepted(tmp_path):
    path = label_studio_export(tmp_path, [[(0, 3, "PER"), (8, 11, "PER")], [(0, 3, "PER"), (8, 11, HOSTILE)]])
    error, _, table, picker, listing, state = agreement.agreement_view([path], LENIENT, False, 0)
    assert error == ""
    assert state["names"] == ["export.json #1", "export.json #2"]
    assert picker.choices == [("export.json #1 / export.json #2", "0-1")]
    assert "<td>export.json #1 / export.json #2</td>" in table
    assert "<b>export.json #1</b> and <b>export.json #2</b>" in listing and HOSTILE not in listing
    expected = common.metric("spans").agreement(
        [
            [[{"label": "PER", "start": 0, "end": 3}, {"label": "PER", "start": 8, "end": 11}]],
            [[{"label": "PER", "start": 0, "end": 3}, {"label": HOSTILE, "start": 8, "end": 11}]],
        ],
        texts=["Ada met Bob."],
    )
    assert state["agreement"] == expected
    one = label_studio_export(tmp_path, [[(0, 3, "PER")]])
    assert "holds one annotator" in agreement.agreement_view([one], LENIENT, False, 0)[0]


def test_the_agreement_tab_shows_the_metrics_value_error(monkeypatch):
    class Refusing:
        def agreement(self, *args, **kwargs):
            raise ValueError("annotations[1] marks no entity")

    monkeypatch.setattr(agreement, "metric", lambda config_name="default": Refusing())
    error = agreement.agreement_view(examples.example_annotation_files(), LENIENT, False, 0)[0]
    assert "annotations[1] marks no entity" in error and "a bug" not in error


def test_an_annotator_with_no_entity_is_not_called_a_bug(tmp_path):
    paths = []
    for name, tags in (("a.conll", "B-PER O"), ("b.conll", "O O")):
        (tmp_path / name).write_text("\n".join(f"w{i} {t}" for i, t in enumerate(tags.split())) + "\n")
        paths.append(str(tmp_path / name))
    assert "failed unexpectedly" not in agreement.agreement_view(paths, LENIENT, False, 0)[0]


def test_two_systems_show_each_slices_interval(tmp_path):
    n = len(ner_files.read_pair(GOLD, PRED_A).references)
    path = tmp_path / "genre.txt"
    path.write_text("\n".join("news" if i % 2 else "web" for i in range(n)) + "\n")
    shown = files_view(GOLD, PRED_A, PRED_B, slices=str(path), resamples=100)
    alone = common.metric().compute(
        **ner_files.read_pair(GOLD, PRED_A).compute_inputs(),
        slices=[*path.read_text().split()],
        ci_resamples=100,
    )
    for value, r in alone["slices"]["slice"]["values"].items():
        low, high = r["intervals"]["overall_f1"]
        assert f"{r['overall_f1']:.4f} [{low:.4f}, {high:.4f}]" in shown["slices"]
    compared = shown["state"]["comparison"]["slices"]["slice"]["values"]
    for value, c in compared.items():
        low, high = c["intervals"]["overall_f1"]
        assert f"{c['difference']['overall_f1']:+.4f} [{low:+.4f}, {high:+.4f}]" in shown["slices"]


def test_a_slice_of_one_sentence_shows_no_interval_nor_p_value(tmp_path):
    """A bootstrap over one sentence resamples that sentence only (a zero-width interval, p 1): the
    slice of one sentence shows its scores and B - A, and says that no interval or test is made;
    the other slice keeps its intervals and p-value as the metric gives them."""
    n = len(ner_files.read_pair(GOLD, PRED_A).references)
    values = ["alone", *["rest"] * (n - 1)]
    path = tmp_path / "genre.txt"
    path.write_text("\n".join(values) + "\n")
    shown = files_view(GOLD, PRED_A, PRED_B, slices=str(path), resamples=100)
    rows = dict(re.findall(r'data-slice="(\w+)">(.*?)</tr>', shown["slices"]))
    compared = shown["state"]["comparison"]["slices"]["slice"]["values"]
    one = compared["alone"]
    assert one["sentences"] == 1 and one["intervals"]["overall_f1"][0] == one["intervals"]["overall_f1"][1]
    assert "[" not in rows["alone"] and rows["alone"].count("n/a (1 sentence)") == 3  # F1, B - A, p
    assert f"<td>{one['difference']['overall_f1']:+.4f} n/a (1 sentence)</td>" in rows["alone"]
    rest = compared["rest"]
    low, high = rest["intervals"]["overall_f1"]
    assert f"{rest['difference']['overall_f1']:+.4f} [{low:+.4f}, {high:+.4f}]" in rows["rest"]
    assert f"<td>{rest['p_values_holm']['overall_f1']:.4f}</td>" in rows["rest"] and "n/a" not in rows["rest"]


def test_files_of_one_sentence_show_no_interval_nor_p_value(tmp_path):
    """One sentence in the files: the headline scores and the comparison's B - A without interval
    or p-value; the JSON download keeps the metric's results as they are."""
    paths = []
    for name in ("gold.conll", "pred_a.conll", "pred_b.conll"):  # the first sentence of each
        blocks = [b for b in (DATA / name).read_text().split("\n\n") if not b.startswith("-DOCSTART-")]
        paths.append(tmp_path / name)
        paths[-1].write_text(blocks[0] + "\n")
    shown = files_view(*map(str, paths), resamples=100)
    assert shown["error"] == "" and len(shown["state"]["inputs"].references) == 1
    assert shown["headline"].count("n/a (1 sentence)") == 3 and "[" not in shown["headline"]
    table = shown["comparison"]
    assert list(table.loc[0, ["low", "high", "p"]]) == ["n/a (1 sentence)"] * 3
    row = shown["state"]["comparison"]["table"][0]
    assert table.loc[0, "B - A"] == round(row["difference"], 4) and row["low"] == row["high"]
    hipe = [str(DATA / "hipe" / f"unittest-ner-1-{side}.tsv") for side in ("true", "pred")]
    assert files_view(*hipe, resamples=100)["headline"].count("n/a (1 document)") == 3  # units: documents


def test_harem_names_fit_the_chart():
    folder = common.ROOT / "tests" / "data" / "harem"
    results = files_view(str(folder / "gold.txt"), str(folder / "system.txt"))["state"]["results"]
    svg = charts.type_f1_svg(results)
    left = int(
        re.search(r'<text x="(\d+)" y="[\d.]+" text-anchor="end" font-weight="600" class="type-name"', svg)[1]
    )
    longest = max(results["muc"]["strict"]["per_type"], key=len)
    assert left >= charts.CHAR_WIDTH * len(longest)
    heat = charts.heatmap_html(results)
    assert (
        heat.count('class="col"') == len(results["muc"]["strict"]["per_type"]) + 1
    )  # the types and "missed"


def test_the_metric_compares_two_systems_with_each_systems_intervals(metric):
    inputs = ner_files.read_pair(GOLD, PRED_A)
    b = ner_files.read_second_predictions(inputs, PRED_B)
    out = metric.compare_with_intervals(
        predictions=inputs.predictions,
        predictions_b=b.predictions,
        references=inputs.references,
        system_intervals=50,
        ci_resamples=50,
        permutations=50,
    )
    plain = metric.compare(
        predictions=inputs.predictions,
        predictions_b=b.predictions,
        references=inputs.references,
        ci_resamples=50,
        permutations=50,
    )
    assert out["table"] == plain["table"]
    low, high = out["a"]["intervals"]["overall_f1"]
    assert low <= out["a"]["overall_f1"] <= high and "intervals" not in plain["a"]
    read = metric.read_systems(GOLD, PRED_A, PRED_B)
    assert [r.predictions for r in read] == [inputs.predictions, b.predictions]
    bad = [list(sentence) for sentence in inputs.predictions]
    bad[0][1] = "X-PER"
    with pytest.raises(ValueError) as error:
        metric.compute(predictions=bad, references=inputs.references)
    assert metric.locate(error.value, inputs).endswith("(pred_a.conll line 4)")
    assert metric.FILE_FORMATS and "correct" in metric.OUTCOMES and "positive" in metric.SIZE_KEYS


def test_the_app_is_a_launcher_over_a_package_that_loads_nothing_at_import():
    """app.py stays small; each module of ner_app under 800 lines; importing them all (and app.py)
    loads no metric: evaluate.load happens on first use."""
    import subprocess
    import sys

    assert len((common.ROOT / "app.py").read_text(encoding="utf-8").splitlines()) <= 250
    modules = sorted(
        p.stem for p in (common.ROOT / "ner_recall" / "app").glob("*.py") if p.stem != "__init__"
    )
    assert {"compare", "files", "agreement", "stratified", "about", "charts", "common"} <= set(modules)
    for name in modules:
        assert (
            len((common.ROOT / "ner_recall" / "app" / f"{name}.py").read_text(encoding="utf-8").splitlines())
            <= 800
        )
    code = (
        "import sys; sys.path.insert(0, '.'); import app, importlib\n"
        f"for m in {modules!r}: importlib.import_module('ner_recall.app.' + m)\n"
        "from ner_recall.app import common\n"
        "print(common.metric.cache_info().currsize, 'demo' in app._built)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=common.ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["0", "False"]


def test_the_apps_public_functions_are_annotated():
    import ast

    for path in [*(common.ROOT / "ner_recall" / "app").glob("*.py"), common.ROOT / "app.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
        for node in tree.body + [f for c in classes for f in c.body]:  # module and class level
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                args = [a for a in node.args.args + node.args.kwonlyargs if a.arg != "self"]
                assert node.returns is not None and all(a.annotation for a in args), (
                    f"{path.name}: {node.name}"
                )


def test_example_uploads_are_lists_for_the_multi_file_slots():
    uploads_ = files.example_uploads()
    assert all(isinstance(u, list) and len(u) == 1 for u in uploads_)
    assert [u[0] for u in uploads_] == list(examples.example_conll_files())


# ---------------------------------------------------------------------------- the Generated tab


def generated_metric():
    return common.metric("generated")


def test_generated_example_shows_the_metrics_outcomes_on_the_text_and_its_ladder():
    text, output, output_format, gold, types, matching = gen.example_fields()
    assert output_format == "auto" and "```json" in output and output.count('"Rome"') == 2
    error, drawn, items, ladder = gen.generated_view(text, output, output_format, gold, types, matching)
    assert error == ""
    entities = json.loads(gold)
    listing = generated_metric().generated_outcomes(
        predictions=[output], texts=[text], types=sorted({e["label"] for e in entities}), matching=matching
    )[0]
    shown = dict(re.findall(r'data-outcome="(\w+)">\w+ <b>(\d+)</b>', items))
    assert shown == {
        o: str(sum(i["outcome"] == o for i in listing)) for o in generated_metric().ITEM_OUTCOMES
    }
    assert {"placed", "duplicate", "off_schema", "hallucinated"} <= {o for o, n in shown.items() if n != "0"}
    marked = re.findall(r"<mark [^>]*>([^<]+)<sup>(\w+)</sup></mark>", drawn.split("The gold on")[0])
    placed = [(text[s:e], i["label"]) for i in listing if i["outcome"] == "placed" for s, e in i["places"]]
    assert sorted(marked) == sorted(placed) and ("Monday", "DATE") not in marked  # off-schema not drawn
    assert ("Paris", "LOC") in marked and ("Paris Hilton", "PER") in marked
    results = generated_metric().compute(
        predictions=[output], references=[entities], texts=[text], matching=["exact", "normalized", "fuzzy"]
    )
    rows = re.findall(
        r"<tr><td>(exact|normalized|fuzzy)</td><td>([\d.]+)</td><td>([\d.]+)</td><td>([\d.]+)</td>", ladder
    )
    assert [(lv, *map(float, v)) for lv, *v in rows] == [
        (lv, *(round(r[k], 4) for k in ("overall_precision", "overall_recall", "overall_f1")))
        for lv, r in results["ladder"].items()
    ]
    assert html.escape(results["signature"]) in ladder and 'class="ner-signature"' in ladder
    assert [lv for lv, *_ in rows] == list(LEVELS) and rows[0][3] < rows[1][3]  # the ladder gains


@pytest.mark.parametrize("level", ["exact", "normalized", "fuzzy"])
def test_generated_text_view_follows_the_matching_level(level):
    text, output, output_format, gold, types, _ = gen.example_fields()
    _, drawn, items, _ = gen.generated_view(text, output, output_format, gold, types, level)
    listing = generated_metric().generated_outcomes(
        predictions=[output], texts=[text], types=["LOC", "PER"], matching=level
    )[0]
    placed = sum(i["outcome"] == "placed" for i in listing)
    assert f'data-outcome="placed">placed <b>{placed}</b>' in items
    assert drawn.split("The gold on")[0].count("<mark ") == placed
    assert ("paris  hilton" in [i["text"] for i in listing if i["outcome"] == "placed"]) == (level != "exact")


@pytest.mark.parametrize(
    "output, dialect",
    [
        ("PER: Ann\nLOC: Oslo", "lines"),
        ('{"PER": ["Ann"], "LOC": ["Oslo"]}', "json_dict"),
        ("<PER>Ann</PER> lives in <LOC>Oslo</LOC>.", "inline_tags"),
        ('[Person(span="Ann"), Location(span="Oslo")]', "gollie"),
    ],
)
def test_generated_reads_every_dialect_and_the_format_choice_restricts_it(output, dialect):
    text = "Ann lives in Oslo."
    assert gen.output_formats() == ["auto", *generated_metric().DIALECTS] and dialect in gen.output_formats()
    for chosen in ("auto", dialect):
        error, drawn, items, _ = gen.generated_view(text, output, chosen, "", "")
        assert error == "" and drawn.count("<mark ") == 2
    other = "gner"  # a dialect none of these outputs is written in
    _, drawn, items, _ = gen.generated_view(text, output, other, "", "")
    assert "<mark " not in drawn and 'data-outcome="placed">placed <b>0</b>' in items


def test_generated_unparseable_and_bad_gold_show_their_reason():
    _, _, items, ladder = gen.generated_view("Ann.", "no entities here, sorry", "auto", "", "PER")
    assert "whole output" in items and "unparseable" in items and "no dialect reads it" in items
    assert ladder == ""
    for gold, message in (
        ("{", "gold entities: not JSON"),
        ('{"a": 1}', "gold entities: a JSON list"),
        ('[{"label": "PER", "start": 0, "end": 99}]', "past the end of the text"),
    ):
        error = gen.generated_view("Ann.", "PER: Ann", "auto", gold, "")[0]
        assert 'role="alert"' in error and message in html.unescape(error)
        assert heading(error) == "Cannot read the gold entities"  # the gold failed, not the output
    error = gen.generated_view("Ann.", "PER: Ann", "json", "", "")[0]  # no such output format
    assert heading(error) == "Cannot read this output"


GEN_HOSTILE = ("<script>alert(1)</script>", 'x" onmouseover="alert(1)')


@pytest.mark.parametrize("hostile", GEN_HOSTILE)
def test_generated_a_hostile_output_reaches_html_escaped(hostile):
    """A model output is hostile input: its strings, types and reasons land as text only."""
    text = f"Ann met {hostile} in Oslo."
    output = json.dumps(
        [{"text": hostile, "type": hostile}, {"text": "Ann", "type": "PER"}, {"text": hostile}]
    )
    gold = json.dumps(
        [{"label": hostile, "start": 8, "end": 8 + len(hostile)}, {"label": "PER", "start": 0, "end": 3}]
    )
    for g, types in ((gold, ""), ("", f"PER, {hostile}")):
        shown = gen.generated_view(text, output, "auto", g, types)
        assert shown[0] == ""
        drawn = "".join(shown)
        assert hostile not in drawn and html.escape(hostile) in drawn and "<script" not in drawn
        assert not {a for a in attribute_names(drawn) if a.startswith("on")}
    error = gen.generated_view(
        hostile, output, "auto", json.dumps([{"label": hostile, "start": 0, "end": 99}]), ""
    )[0]
    assert "<script" not in error and 'onmouseover="' not in error


def shown_signatures(fragment):
    """The signatures an HTML fragment shows (the value of each signature line's box)."""
    return [html.unescape(v) for v in re.findall(r'class="ner-signature">.*?value="([^"]*)"', fragment)]


@pytest.mark.parametrize(
    "spans, marks",
    [
        ([], []),
        ([("A", 0, 2)], [("ab", "A")]),
        ([("A", 0, 4), ("B", 2, 6)], [("ab", ""), ("cd", "A"), ("ef", "B")]),  # overlaps split the text
        ([("A", 1, 3), ("B", 1, 3)], [("bc", "AB")]),
    ],
)
def test_marked_text_keeps_every_character_once(spans, marks):
    drawn = gen.marked_text_html("abcdef", spans, {"A": "#000", "B": "#111"})
    assert re.sub(r"<sup>\w</sup>|<[^>]+>", "", drawn) == "abcdef"
    found = re.findall(r"<mark [^>]*>([a-f]+)((?:<sup>\w</sup>)*)</mark>", drawn)
    assert [(w, re.sub(r"</?sup>", "", s)) for w, s in found] == marks


def test_every_score_table_carries_its_signature():
    """Compare and Files show the signature of the result whose numbers they show."""
    fields = (*examples.example_fields(next(iter(examples.EXAMPLES))), LENIENT, False)
    shown = "".join(x for x in compare.compare_view(*fields) if isinstance(x, str))
    conll = examples.example_conll_files()
    files_shown = files.files_view([conll[0]], [conll[1]], None, LENIENT, False, 0)
    expected = (compare.score_sentence(*fields)[2]["signature"], files_shown[-1]["results"]["signature"])
    assert [shown_signatures(x) for x in (shown, files_shown[3])] == [[expected[0]], [expected[1]]]
    assert all(s.startswith("nrm") and "dec:lenient" in s for s in expected)
    assert common.signature_html({}) == "" and HOSTILE not in common.signature_html({"signature": HOSTILE})
    entities_path, sizes_path = examples.stratified_example_files(next(iter(examples.STRATIFIED_EXAMPLES)))
    headline = strat.stratified_view(
        entities_path, sizes_path, "wilson", 0.95, "strict", progress=lambda *a, **k: None
    )[2]
    direct = strat.stratified_results(entities_path, sizes_path, "wilson", 0.95, "strict")
    assert shown_signatures(headline) == [direct["signature"]] and "subgroups" in direct["signature"]


# ---------------------------------------------------------------------------- two golds (Files tab)


def conll_file(path, sentences):
    """A CoNLL file of [(token, tag), ...] sentences."""
    path.write_text(
        "\n\n".join("\n".join(f"{t} {g}" for t, g in s) for s in sentences) + "\n", encoding="utf-8"
    )
    return str(path)


def test_two_golds_show_the_metrics_differences_each_in_its_sentence():
    conll = examples.example_conll_files()
    error, summary, page, changes, state = golds.golds_view(
        [conll[0]], [conll[1]], LENIENT, False, golds.AUTO_FORMAT
    )
    assert error == "" and page == 1
    read = common.metric().read_systems(conll[0], conll[1])[0]
    expected = common.metric().gold_differences(
        {"tokens": read.tokens, "tags": read.references}, {"tokens": read.tokens, "tags": read.predictions}
    )
    assert state["differences"] == expected and expected["changes"]
    shown = {
        (html.unescape(k), html.unescape(p)): int(n)
        for k, p, n in re.findall(r"<tr><td>(\w+)</td><td>([^<]+)</td><td>(\d+)</td></tr>", summary)
    }
    assert shown == {(k, p): n for k, pairs in expected["counts"].items() for p, n in pairs.items()}
    assert f"F1 {expected['f1']:.4f}" in summary
    cards = re.findall(r'data-kind="(\w+)"><b>\w+</b> ([^<]+) <small>\((\S+) line (\d+)\)</small>', changes)
    assert [(k, html.unescape(p)) for k, p, _, _ in cards] == [
        (c["kind"], c["pair"]) for c in expected["changes"]
    ]
    assert {name for _, _, name, _ in cards} == {"gold.conll"}
    for change, card in zip(expected["changes"], changes.split('class="error-card')[1:]):
        assert (
            re.sub(r"<sup>[^<]*</sup>|<[^>]+>", "", card.split("</small>", 2)[2]).count(change["sentence"])
            == 2
        )


def test_two_golds_are_paged_and_the_page_clamped(tmp_path):
    n = common.ERROR_PAGE + 5
    a = conll_file(tmp_path / "a.conll", [[(f"w{i}", "B-LOC"), ("x", "O")] for i in range(n)])
    b = conll_file(tmp_path / "b.conll", [[(f"w{i}", "B-ORG"), ("x", "O")] for i in range(n)])
    _, summary, page, changes, state = golds.golds_view([a], [b], LENIENT, False, golds.AUTO_FORMAT)
    assert "<td>type_changed</td><td>LOC-&gt;ORG</td><td>45</td>" in summary
    assert changes.count('class="error-card') == common.ERROR_PAGE and "page 1 of 2" in changes
    assert golds.gold_page(state, 1, step=1)[1].count('class="error-card') == 5
    assert golds.gold_page(state, 9)[0] == 2 and golds.gold_page(state, 1, step=-1)[0] == 1
    assert golds.gold_page(None, 3) == (1, "")
    same = golds.golds_view([a], [a], LENIENT, False, golds.AUTO_FORMAT)
    assert "agree on every entity" in same[1] and same[3].count('class="error-card') == 0


def test_two_golds_errors_name_the_slot_and_hostile_types_are_escaped(tmp_path):
    hostile = '<script>alert(1)</script>"onmouseover="x'  # a tag without whitespace
    a = conll_file(tmp_path / "a.conll", [[("Ann", f"B-{hostile}"), ("x", "O")]])
    b = conll_file(tmp_path / "b.conll", [[("Ann", "B-PER"), ("x", "B-LOC")]])
    error = golds.golds_view([a], None, LENIENT, False, golds.AUTO_FORMAT)[0]
    assert 'role="alert"' in error and "second gold" in error
    short = conll_file(tmp_path / "short.conll", [[("Ann", "O")]])
    error = golds.golds_view([a], [short], LENIENT, False, golds.AUTO_FORMAT)[0]
    assert 'role="alert"' in error and str(tmp_path) not in error  # the server's folder scrubbed
    assert "short.conll" in error and "different tokenizations" in error
    shown = golds.golds_view([a], [b], LENIENT, False, golds.AUTO_FORMAT)
    drawn = "".join(x for x in shown if isinstance(x, str))
    assert shown[0] == "" and "<script" not in drawn and html.escape(hostile) in drawn
    assert not {n for n in attribute_names(drawn) if n.startswith("on")}


def test_marked_text_names_exactly_the_spans_over_each_piece():
    """Random overlapping spans: each highlighted piece's title lists the spans covering it, in
    their order, and every character outside them stays plain (against a direct count)."""
    import random

    rng = random.Random(7)
    text = "abcdefghijkl"
    for _ in range(300):
        spans = []
        for _ in range(rng.randint(0, 6)):
            start = rng.randrange(len(text))
            spans.append((rng.choice("ABC"), start, rng.randint(start + 1, len(text))))
        drawn = gen.marked_text_html(text, spans, {})
        cuts = sorted({0, len(text), *(p for _, s, e in spans for p in (s, e))})
        expected = []
        for left, right in zip(cuts, cuts[1:]):
            over = [s[0] for s in spans if s[1] <= left and right <= s[2]]
            expected.append((text[left:right], ", ".join(over)))
        body = re.sub(
            r"<sup>[^<]*</sup>", "", drawn.removeprefix('<div class="gen-text">').removesuffix("</div>")
        )
        pieces = re.findall(r'<mark style="[^"]*" title="([^"]*)">([a-l]+)</mark>|([a-l]+)', body)
        assert [(w or plain, t) for t, w, plain in pieces] == expected
