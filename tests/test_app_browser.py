"""The app in a real browser: ``python app.py`` driven by Playwright in headless Chromium.

Fills a case, presses the button and checks that the numbers on the page are ``metric.compute``'s
on the same input; the same for one stratified-recall run from an uploaded CSV, for gold and
predictions files uploaded to the Files tab (whose error browser it filters), and for entities
marked by selecting text in the Annotate mode. Saves a
screenshot of each tab to ``artifacts/`` (``UPDATE_SCREENSHOTS=1`` also copies them to
``docs/screenshots/`` for the README). Needs Debian's ``chromium`` (``apt-get install chromium``)
and ``pip install playwright``; without them the test is skipped, except in CI, where it fails.
"""

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import METRIC_PATH, ROOT, require
from ner_recall.app import common, compare, examples
from ner_recall.app import stratified as strat
from ner_recall.app.golds import AUTO_FORMAT
from ner_recall.generated.matching import LEVELS

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(ROOT) / "artifacts"
SCREENSHOTS = Path(ROOT) / "docs" / "screenshots"
START_TIMEOUT = 180  # seconds; importing evaluate and gradio is slow on a loaded CI machine

# a case typed into the Compare tab: a boundary error, a type error, a miss and a spurious entity
TOKENS = "Dr Anna Tamm joined Tartu University Hospital in May"
GOLD = "O B-PER I-PER O B-ORG I-ORG I-ORG O B-DATE"
PREDICTED = "B-PER I-PER I-PER O B-LOC I-LOC I-LOC B-PER O"
# the stratified run: tagged sentences per genre, uploaded with relative sizes
STRATA_ROWS = [
    ("news", "B-PER I-PER O B-LOC", "B-PER I-PER O B-LOC"),
    ("news", "O B-ORG O B-LOC I-LOC", "O B-ORG O B-LOC O"),
    ("news", "B-LOC O O", "O O O"),
    ("clinical", "O B-DRUG O B-DIS", "O B-DRUG O O"),
    ("clinical", "B-DIS I-DIS O", "B-DIS I-DIS O"),
    ("social", "O B-PER O B-LOC", "O O O O"),
    ("social", "B-ORG I-ORG O", "B-ORG I-ORG O"),
]
SIZES = {"news": 6, "clinical": 3, "social": 1}


def _chromium_or_skip():
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI installs it: see .ci/run")
        pytest.skip(message)


@pytest.fixture(scope="module")
def browser():
    sync_api = require("playwright.sync_api", "the browser test of app.py")
    _chromium_or_skip()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(browser):
    """``python app.py`` as a user starts it, on a free port; its output goes to artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    env = dict(
        os.environ,
        GRADIO_SERVER_PORT=str(port),
        GRADIO_SERVER_NAME="127.0.0.1",
        HF_HUB_OFFLINE="1",
        GRADIO_ANALYTICS_ENABLED="False",
    )
    with open(ARTIFACTS / "app_server.log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}/"
        started = time.monotonic()
        try:
            _wait_until_up(url, process, started)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


def _wait_until_up(url, process, started):
    while time.monotonic() - started < START_TIMEOUT:
        if process.poll() is not None:
            pytest.fail(f"app.py exited with {process.returncode}; see {ARTIFACTS / 'app_server.log'}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"app.py did not answer within {START_TIMEOUT} s")


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.outside_requests = []
    page.on(
        "request",
        lambda r: r.url.startswith((server, "data:", "blob:")) or page.outside_requests.append(r.url),
    )
    page.goto(server)
    page.wait_for_selector("#mode-cards .mode-card", timeout=60_000)  # the first example, computed
    yield page
    context.close()


@pytest.fixture(scope="module")
def metric():
    import evaluate

    return evaluate.load(METRIC_PATH)


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.wait_for_timeout(500)  # let the last transition settle
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("UPDATE_SCREENSHOTS"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SCREENSHOTS / path.name)


def fill(page, elem_id, text):
    page.locator(f"#{elem_id} textarea, #{elem_id} input").first.fill(text)


def pick(page, elem_id, option):
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def grid(page, elem_id, columns):
    """The rows of a Dataframe as shown: lists of cell texts."""
    cells = page.locator(f"#{elem_id} [role=gridcell]").all_inner_texts()
    return [[c.strip() for c in cells[i : i + columns]] for i in range(0, len(cells), columns)]


def shown_cards(page):
    return page.locator("#mode-cards [data-mode][data-key]").evaluate_all(
        "nodes => nodes.map(n => [n.dataset.mode, n.dataset.key, n.textContent])"
    )


def assert_cards_show(page, results):

    cards = shown_cards(page)
    assert len(cards) == len(common.VOCAB.MODES) * (len(common.count_keys()) + len(common.SCORE_KEYS))
    for mode, key, text in cards:
        assert float(text) == pytest.approx(results["muc"][mode][key], abs=5e-4), (mode, key)


def assert_per_type_shows(page, results):

    rows = grid(page, "per-type", len(compare.PER_TYPE_HEADERS))
    assert len(rows) == len(results["muc"]["strict"]["per_type"]) * len(common.VOCAB.MODES)
    for row in rows:
        name, mode, *numbers = row
        expected = results["muc"][mode]["per_type"][name]
        for key, text in zip(compare.PER_TYPE_HEADERS[2:], numbers):
            side_key = key.split()[-1]  # "gold correct", "predicted precision", "f1"
            assert float(text) == pytest.approx(expected[side_key], abs=5e-5), (name, mode, key)


def test_compare_tab_shows_the_metrics_numbers(page, metric):

    fill(page, "tokens", TOKENS)
    fill(page, "gold", GOLD)
    fill(page, "predicted", PREDICTED)
    page.click("#compare-button")
    page.wait_for_selector("#entities :text('Hospital')")
    results = metric.compute(predictions=[PREDICTED.split()], references=[GOLD.split()])
    assert_cards_show(page, results)
    assert_per_type_shows(page, results)
    seqeval = {row[0]: row for row in grid(page, "seqeval", len(compare.SEQEVAL_HEADERS))}
    assert float(seqeval["overall"][3]) == pytest.approx(results["overall_f1"], abs=5e-5)
    assert float(seqeval["PER"][2]) == pytest.approx(results["PER"]["recall"], abs=5e-5)
    assert page.locator("#entities .ner-span[data-side=gold]").count() == 3

    pick(page, "example", examples.FIRST_EXAMPLE)
    page.wait_for_selector("#entities :text('fièvre')")
    case = examples.EXAMPLES[examples.FIRST_EXAMPLE]
    assert_cards_show(page, metric.compute(predictions=[case.pred], references=[case.gold]))
    screenshot(page, "compare")
    assert page.outside_requests == []


def test_bad_input_shows_the_metrics_message(page, metric):
    fill(page, "gold", "B-PER O O")
    fill(page, "predicted", "B-PER O")
    page.click("#compare-button")
    error = page.locator("#compare-error .app-error")
    error.wait_for()
    with pytest.raises(ValueError) as info:
        metric.compute(predictions=[["B-PER", "O"]], references=[["B-PER", "O", "O"]])
    assert str(info.value) in error.inner_text()
    assert not page.locator("#mode-cards").is_visible()
    screenshot(page, "bad_input")

    fill(page, "predicted", "B-PER O X-LOC")
    page.click("#compare-button")
    with pytest.raises(ValueError) as info:
        metric.compute(predictions=[["B-PER", "O", "X-LOC"]], references=[["B-PER", "O", "O"]])
    expect = require("playwright.sync_api").expect
    expect(page.locator("#compare-error")).to_contain_text(str(info.value))
    assert "Traceback" not in page.content()


def write_strata(tmp_path):
    entities, sizes = tmp_path / "genres.csv", tmp_path / "genre_sizes.csv"
    with open(entities, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("subgroup", "gold", "predicted"), *STRATA_ROWS])
    with open(sizes, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("subgroup", "size"), *SIZES.items()])
    return entities, sizes


def upload(page, elem_id, *paths):
    """Files put in an upload slot (several at once: a brat pair)."""
    clear = page.locator(f"#{elem_id} button[aria-label=Clear]")
    if clear.count():
        clear.click()
    page.locator(f"#{elem_id} input[type=file]").set_input_files([str(p) for p in paths])
    for path in paths:  # a slot of several files shows each name's stem and suffix apart
        page.wait_for_selector(f"#{elem_id} :text('{Path(path).stem}')")


def test_stratified_tab_shows_the_metrics_numbers(page, tmp_path):
    import evaluate

    page.get_by_role("tab", name="Stratified recall").click()
    page.wait_for_selector("#recall-plot svg", timeout=60_000)
    screenshot(page, "stratified")

    entities, sizes = write_strata(tmp_path)
    upload(page, "entities-csv", entities)
    upload(page, "sizes-csv", sizes)
    page.locator("#ci-method").get_by_label("stratified_wald").check()
    page.locator("#recall-mode").get_by_label("partial").check()
    level = page.locator("#level input[type=number]")
    level.fill("0.9")
    level.press("Enter")
    page.click("#estimate-button")
    page.wait_for_selector("#headline :text('90% interval')")
    page.wait_for_selector("#strata [role=gridcell] :text('clinical')")

    subgroups = [row[0] for row in STRATA_ROWS]
    expected = evaluate.load(METRIC_PATH, "subgroups").compute(
        predictions=[row[2].split() for row in STRATA_ROWS],
        references=[row[1].split() for row in STRATA_ROWS],
        subgroups=subgroups,
        subgroup_weights=SIZES,
        ci_method="stratified_wald",
        confidence_level=0.9,
        recall_mode="partial",
    )["stratified_recall"]
    rows = {row[0]: row for row in grid(page, "strata", len(strat.STRATA_HEADERS))}
    assert set(rows) == {*SIZES, "weighted estimate"}
    for name, stratum in expected["strata"].items():
        for key, text in zip(strat.STRATA_HEADERS[1:], rows[name][1:]):
            assert float(text) == pytest.approx(stratum[key], abs=5e-5), (name, key)
    total = dict(zip(strat.STRATA_HEADERS, rows["weighted estimate"]))
    for key in ("n", "correct", "recall", "ci_low", "ci_high"):
        assert float(total[key]) == pytest.approx(expected[key], abs=5e-5), key
    assert page.locator("#recall-plot svg circle").count() == len(SIZES)
    assert page.outside_requests == []


def test_about_tab(page):
    page.get_by_role("tab", name="About").click()
    table = page.locator("#scenario-table table")
    table.wait_for()
    assert table.locator("tr").count() == 7
    screenshot(page, "about")


DATA = Path(ROOT) / "tests" / "data"
SELECT_TEXT = """([elem, word]) => {
  const root = document.querySelector('#' + elem);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const i = node.textContent.indexOf(word);
    if (i >= 0) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + word.length);
      const box = range.getBoundingClientRect();
      return [box.left, box.top, box.width, box.height];
    }
  }
  return null;
}"""


def error_count(page):
    return int(page.locator("#error-browser .error-count").get_attribute("data-count"))


def test_files_tab_shows_the_metrics_numbers(page, metric):
    from ner_recall.readers import files as ner_files

    page.get_by_role("tab", name="Files").click()
    for elem_id, name in (
        ("gold-file", "gold.conll"),
        ("pred-file", "pred_a.conll"),
        ("pred-b-file", "pred_b.conll"),
    ):
        upload(page, elem_id, DATA / name)
    pick(page, "files-decoding", "IOB2 strict")
    page.click("#files-button")
    page.wait_for_selector("#heatmap table", timeout=60_000)

    inputs = ner_files.read_conll_pair(str(DATA / "gold.conll"), str(DATA / "pred_a.conll"))
    results = metric.compute(**inputs.compute_inputs(), scheme="IOB2", mode="strict")
    shown = dict(
        page.locator("#files-headline [data-key]").evaluate_all(
            "nodes => nodes.map(n => [n.dataset.key, n.textContent])"
        )
    )
    assert set(shown) == {"overall_precision", "overall_recall", "overall_f1"}
    for key, text in shown.items():
        assert float(text) == pytest.approx(results[key], abs=5e-5)
        assert float(text) == pytest.approx(4 / 7, abs=5e-5)  # counted by hand: 4 of 7 entities exact
    cards = page.locator("#files-cards [data-mode][data-key]").evaluate_all(
        "nodes => nodes.map(n => [n.dataset.mode, n.dataset.key, n.textContent])"
    )
    assert len(cards) == len(common.VOCAB.MODES) * (len(common.count_keys()) + len(common.SCORE_KEYS))
    for mode, key, text in cards:
        assert float(text) == pytest.approx(results["muc"][mode][key], abs=5e-4), (mode, key)
    bars = page.locator("#type-f1 rect[data-f1]").evaluate_all(
        "nodes => nodes.map(n => [n.dataset.type, n.dataset.mode, n.dataset.f1])"
    )
    assert len(bars) == len(results["muc"]["strict"]["per_type"]) * len(common.VOCAB.MODES)
    for name, mode, text in bars:
        assert float(text) == pytest.approx(results["muc"][mode]["per_type"][name]["f1"], abs=5e-5)
    assert page.locator("#heatmap td[data-gold=MISC][data-pred=LOC]").inner_text() == "1"

    results_b = metric.compute(
        **ner_files.read_conll_pair(str(DATA / "gold.conll"), str(DATA / "pred_b.conll")).compute_inputs(),
        scheme="IOB2",
        mode="strict",
    )
    comparison = page.locator("#files-comparison [role=gridcell]", has_text="overall_f1")
    comparison.first.wait_for(timeout=60_000)  # the table may render after the heatmap
    rows = {
        row[0]: row for row in grid(page, "files-comparison", 7) if row
    }  # score, A, B, B - A, low, high, p
    assert float(rows["overall_f1"][1]) == pytest.approx(results["overall_f1"], abs=5e-5)
    assert float(rows["overall_f1"][2]) == pytest.approx(results_b["overall_f1"], abs=5e-5)
    assert float(rows["overall_f1"][3]) == pytest.approx(12 / 13 - 4 / 7, abs=5e-5)  # counted by hand
    assert (
        float(rows["overall_f1"][4]) <= float(rows["overall_f1"][5]) and 0 < float(rows["overall_f1"][6]) <= 1
    )
    screenshot(page, "files")

    assert error_count(page) == 4  # strict, all but correct: Tessarian, Maren, HARROWFEN, Monday
    page.locator("#browse-mode").get_by_label("partial").check()
    pick(page, "browse-outcome", "partial")
    page.wait_for_selector("#error-browser .error-count[data-count='1']")
    assert page.locator("#error-browser .error-card").count() == 1
    assert "Oakhurst" in page.locator("#error-browser .error-card").inner_text()
    page.locator("#browse-mode").get_by_label("strict").check()
    pick(page, "browse-outcome", "all but correct")
    pick(page, "browse-type", "LOC")
    page.wait_for_selector("#error-browser .error-count[data-count='2']")
    outcomes = page.locator("#error-browser .error-card").evaluate_all(
        "nodes => nodes.map(n => n.dataset.outcome)"
    )
    assert outcomes == ["incorrect", "missed"]
    screenshot(page, "files_errors")
    assert page.locator("#results-json a").first.get_attribute("href")
    assert page.outside_requests == []


def test_files_tab_slices_and_bucket_charts(page, metric, tmp_path):
    """A slices file uploaded beside the gold: the per-slice table with the worst slice marked, and
    the bucket charts, both the metric's numbers."""
    from ner_recall.readers import files as ner_files

    inputs = ner_files.read_conll_pair(str(DATA / "gold.conll"), str(DATA / "pred_a.conll"))
    values = ["news" if i % 2 else "web" for i in range(len(inputs.references))]
    slices = tmp_path / "genre.txt"
    slices.write_text("\n".join(values) + "\n")
    page.get_by_role("tab", name="Files").click()
    for elem_id, path in (
        ("gold-file", DATA / "gold.conll"),
        ("pred-file", DATA / "pred_a.conll"),
        ("slices-file", slices),
    ):
        upload(page, elem_id, path)
    page.click("#files-button")
    page.wait_for_selector("#files-slices table", timeout=60_000)
    tokens = inputs.tokens
    results = metric.compute(
        **inputs.compute_inputs(),
        slices=values,
        buckets=["entity_length", "sentence_length", "density", "capitalisation"],
        tokens=tokens,
    )
    worst = results["slices"]["slice"]["worst"]["value"]
    assert page.locator("#files-slices tr.worst").get_attribute("data-slice") == worst
    rows = page.locator("#files-slices tbody tr").evaluate_all("nodes => nodes.map(n => n.dataset.slice)")
    assert rows == sorted(set(values))
    bars = page.locator("#files-buckets rect[data-bucket]").evaluate_all(
        "nodes => nodes.map(n => [n.closest('svg').dataset.attribute, n.dataset.bucket, n.dataset.f1])"
    )
    assert len(bars) == sum(len(t) for t in results["buckets"].values())
    for name, label, f1 in bars:
        assert float(f1) == pytest.approx(results["buckets"][name][label]["f1"], abs=5e-5)
    screenshot(page, "files_slices")
    assert page.outside_requests == []


def test_files_tab_draws_a_span_files_sentence_charts_in_characters(page):
    """A Label Studio export (spans over texts): the four charts tag files get, the sentence ones
    titled in characters, each bar the metric's number from the span config given the texts."""
    from ner_recall.readers import files as ner_files

    studio = DATA / "formats" / "label_studio.json"
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", studio)
    upload(page, "pred-file", studio)
    page.click("#files-button")
    page.wait_for_selector("#files-buckets svg", timeout=60_000)
    titles = page.locator("#files-buckets h4").all_inner_texts()
    assert titles == [
        "entity length (characters)",
        "text length (characters)",
        "density (entities per 100 characters of the text)",
        "capitalisation",
    ]
    inputs = ner_files.read_pair(str(studio), str(studio))
    import evaluate

    results = evaluate.load(METRIC_PATH, "spans").compute(
        **inputs.compute_inputs(), buckets=["entity_length", "sentence_length", "density", "capitalisation"]
    )
    bars = page.locator("#files-buckets rect[data-bucket]").evaluate_all(
        "nodes => nodes.map(n => [n.closest('svg').dataset.attribute, n.dataset.bucket, n.dataset.f1])"
    )
    assert sorted((name, label) for name, label, _ in bars) == sorted(
        (name, label) for name, table in results["buckets"].items() for label in table
    )
    for name, label, f1 in bars:
        assert float(f1) == pytest.approx(results["buckets"][name][label]["f1"], abs=5e-5)
    assert page.outside_requests == []


def test_agreement_tab_shows_the_metrics_numbers(page, metric):
    """The Agreement tab's example files: the pair table with intervals, kappa and alpha, and the
    disagreements of each pair drawn in their sentences."""
    from ner_recall.readers import files as ner_files

    page.get_by_role("tab", name="Agreement").click()
    page.click("#agreement-example")
    page.wait_for_selector("#agreement-table table", timeout=60_000)
    paths = examples.example_annotation_files()
    first = ner_files.read_pair(paths[0], paths[1])
    annotations = [
        first.references,
        first.predictions,
        ner_files.read_second_predictions(first, paths[2]).predictions,
    ]
    expected = metric.agreement(annotations, ci_resamples=200)
    shown = page.locator("#agreement-table td[data-mode=strict]").all_inner_texts()
    assert [float(t.split()[0]) for t in shown] == [
        pytest.approx(p["strict"], abs=5e-5) for p in expected["pairs"].values()
    ]
    kappa = page.locator("#agreement-table [data-key=kappa]").inner_text()
    assert float(kappa.split()[0]) == pytest.approx(expected["kappa"]["value"], abs=5e-5)
    count = int(page.locator("#agreement-disagreements .error-count").get_attribute("data-count"))
    assert count == len(expected["pairs"]["0-1"]["disagreements"])
    assert page.locator("#agreement-disagreements .error-card").count() == count
    screenshot(page, "agreement")
    assert page.outside_requests == []


def select_and_label(page, elem_id, word, label):
    """Select ``word`` with the mouse in a HighlightedText, type its label and press Enter."""
    field = page.locator(f"#{elem_id} input")
    for _ in range(3):  # a selection made while the component re-renders is lost: select again
        x, y, width, height = page.evaluate(SELECT_TEXT, [elem_id, word])
        page.mouse.move(x + 1, y + height / 2)
        page.mouse.down()
        page.mouse.move(x + width - 1, y + height / 2, steps=5)
        page.mouse.up()
        try:
            field.first.wait_for(timeout=5_000)
            break
        except Exception:  # noqa: BLE001 -- playwright's TimeoutError
            page.mouse.click(5, 5)
    field.first.fill(label)
    field.first.press("Enter")


def test_annotate_mode(page, metric):
    page.locator("#input-mode").get_by_label("Annotate (select text)").check()
    page.wait_for_selector("#annotate-gold :text('patiente')")
    text = page.locator("#annotate-text textarea, #annotate-text input").first
    text.fill("Anna Tamm flew to Riga today")
    text.press("Enter")
    page.wait_for_selector("#annotate-pred :text('Anna Tamm flew')")
    expect = require("playwright.sync_api").expect
    expect(page.locator("#tokens textarea, #tokens input").first).to_have_value(
        "Anna Tamm flew to Riga today"
    )
    page.wait_for_selector("#entities :text('today')")
    select_and_label(page, "annotate-gold", "Anna Tamm", "PER")
    expect(page.locator("#gold textarea, #gold input").first).to_have_value(
        "B-PER I-PER O O O O", timeout=60_000
    )
    page.wait_for_selector("#entities .ner-span[data-side=gold]")
    select_and_label(page, "annotate-gold", "Riga", "LOC")
    select_and_label(page, "annotate-pred", "Tamm", "PER")
    expect(page.locator("#predicted textarea, #predicted input").first).to_have_value(
        "O B-PER O O O O", timeout=60_000
    )
    expect(page.locator("#gold textarea, #gold input").first).to_have_value("B-PER I-PER O O B-LOC O")
    expect(page.locator("#mode-cards [data-mode=strict][data-key=missed]")).to_have_text("1", timeout=60_000)
    expect(page.locator("#mode-cards [data-mode=type][data-key=correct]")).to_have_text("1", timeout=60_000)
    results = metric.compute(
        predictions=[["O", "B-PER", "O", "O", "O", "O"]],
        references=[["B-PER", "I-PER", "O", "O", "B-LOC", "O"]],
        scheme="IOB2",
        mode="strict",
    )
    assert_cards_show(page, results)
    # by hand: the PER pair overlaps with the right type (partial in "partial", correct in "type"); Riga missed
    assert (results["muc"]["type"]["correct"], results["muc"]["partial"]["partial"]) == (1, 1)
    assert results["muc"]["strict"]["missed"] == 1
    screenshot(page, "annotate")


# ---------------------------------------------------------------------------- what a user sees

#: the relative luminance contrast of two CSS colours (WCAG), computed in the page
CONTRAST_JS = """([a, b]) => {
  const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const v = rgb(c).map(x => { x /= 255; return x <= .03928 ? x / 12.92 : ((x + .055) / 1.055) ** 2.4; });
                     return .2126 * v[0] + .7152 * v[1] + .0722 * v[2]; };
  const [l1, l2] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (l1 + .05) / (l2 + .05);
}"""
#: an outlined span's outline colour and the first opaque background around it
OUTLINE_JS = """el => {
  let node = el.parentElement, bg = 'rgb(255, 255, 255)';
  while (node) { const c = getComputedStyle(node).backgroundColor;
                 if (c && c !== 'transparent' && !c.startsWith('rgba(0, 0, 0, 0)')) { bg = c; break; } node = node.parentElement; }
  const s = getComputedStyle(el);
  return [s.outlineColor, bg, s.outlineStyle, parseFloat(s.outlineWidth)];
}"""


def assert_outline_visible(page, selector):
    """The outlined pair: a solid outline of at least 2 px, contrast 3:1 or more against the page."""
    focus = page.locator(selector).first
    colour, background, style, width = focus.evaluate(OUTLINE_JS)
    assert style == "solid" and width >= 2, (style, width)
    contrast = page.evaluate(CONTRAST_JS, [colour, background])
    assert contrast >= 3, (colour, background, contrast)


def assert_nothing_off_the_page(page):
    """No horizontal scrolling of the page: every element within the viewport's width."""
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], widths


def assert_no_handlers(page):
    """No element of the page carries an inline event handler (on...) attribute."""
    handlers = page.evaluate(
        "() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => a.name.toLowerCase().startsWith('on')).map(a => e.tagName + ' ' + a.name))"
    )
    assert handlers == []


def files_scored(page, timeout=90_000):
    page.click("#files-button")
    page.wait_for_selector("#files-headline .scores, #files-error .app-error", timeout=timeout)


def test_files_tab_outline_and_page_clamp(page):
    """The error browser's outlined pair contrasts with the page; two errors of a sentence make two
    cards that differ; page 999 is clamped in the box too."""
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", DATA / "gold.conll")
    upload(page, "pred-file", DATA / "pred_a.conll")
    files_scored(page)
    assert_outline_visible(page, "#error-browser .ner-focus")
    heads = page.locator("#error-browser .error-head").all_inner_texts()
    assert len(heads) == len(set(heads)) == error_count(page)  # one card per pair, each named
    expect = require("playwright.sync_api").expect
    box = page.locator("#browse-page input")
    box.fill("999")
    box.press("Enter")
    expect(box).to_have_value("1")  # one page of pairs: clamped
    assert_nothing_off_the_page(page)
    screenshot(page, "files_outline")


def test_files_tab_hostile_label_is_inert(page, tmp_path):
    """A doccano label holding markup is shown as text: no element gets an event handler."""
    label = 'x" onmouseover="alert(1)'
    line = {"id": 1, "text": "Ada met Bob.", "label": [[0, 3, label], [8, 11, "PER"]]}
    gold = tmp_path / "hostile.jsonl"
    gold.write_text(json.dumps(line) + "\n", encoding="utf-8")
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", gold)
    upload(page, "pred-file", gold)
    pick(page, "files-format", "doccano")
    files_scored(page)
    assert page.locator("#files-error .app-error").count() == 0
    assert_no_handlers(page)
    assert label in page.locator("#type-f1").inner_text() and label in page.locator("#heatmap").inner_text()
    assert page.locator("#heatmap td[data-gold]").first.get_attribute("data-gold") in (label, "PER")


def test_files_tab_brat_pair_and_missing_package(page, tmp_path):
    """brat as its .ann and .txt in one slot; a .spacy file without spaCy names the package and its
    install line; an error names the user's file, not a server folder."""
    brat = DATA / "formats" / "brat"
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", brat / "doc1.ann", brat / "doc1.txt")
    upload(page, "pred-file", brat / "doc1.ann", brat / "doc1.txt")
    files_scored(page)
    assert page.locator("#files-error .app-error").count() == 0
    assert page.locator("#files-headline [data-key=overall_f1]").inner_text() == "1.0000"
    bad = tmp_path / "broken.conll"
    bad.write_text("BREVICOR B-ORG\nwelcomes O O\n", encoding="utf-8")
    upload(page, "gold-file", bad)
    upload(page, "pred-file", DATA / "pred_a.conll")
    files_scored(page)
    error = page.locator("#files-error .app-error").inner_text()
    assert "broken.conll line 2" in error and "/tmp" not in error and "gradio" not in error
    try:
        import spacy  # noqa: F401
    except ImportError:
        docbin = tmp_path / "corpus.spacy"
        docbin.write_bytes(b"\\x00")
        upload(page, "gold-file", docbin)
        upload(page, "pred-file", docbin)
        files_scored(page)
        error = page.locator("#files-error .app-error").inner_text()
        assert "pip install spacy" in error and "failed unexpectedly" not in error


def test_files_tab_harem_charts_fit(page):
    """HAREM's category:type names are drawn whole in the F1 chart; the heatmap's columns, "missed"
    last, lie inside the viewport."""
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", DATA / "harem" / "gold.txt")
    upload(page, "pred-file", DATA / "harem" / "system.txt")
    files_scored(page)
    page.locator("#heatmap").scroll_into_view_if_needed()
    clipped = page.locator("#type-f1 text.type-name").evaluate_all(
        "ns => ns.filter(n => { const t = n.getBBox(), s = n.ownerSVGElement.viewBox.baseVal;"
        " return t.x < s.x || t.x + t.width > s.x + s.width; }).map(n => n.textContent)"
    )
    assert clipped == []
    width = page.viewport_size["width"]
    heads = page.locator("#heatmap thead th").evaluate_all(
        "ns => ns.map(n => { const r = n.getBoundingClientRect(); return [n.textContent, r.left, r.right]; })"
    )
    assert heads[-1][0] == "missed"
    assert all(0 <= left and right <= width for _, left, right in heads), heads
    assert_nothing_off_the_page(page)
    screenshot(page, "files_harem")


def test_files_tab_two_systems_with_slices(page, tmp_path):
    """Two systems and a slices file: the slice table and the bucket charts do not overlap, and
    each slice shows its F1 interval and B - A with its interval."""
    from ner_recall.readers import files as ner_files

    n = len(ner_files.read_pair(str(DATA / "gold.conll"), str(DATA / "pred_a.conll")).references)
    slices = tmp_path / "genre.txt"
    slices.write_text("\n".join("news" if i % 2 else "web" for i in range(n)) + "\n")
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", DATA / "gold.conll")
    upload(page, "pred-file", DATA / "pred_a.conll")
    upload(page, "pred-b-file", DATA / "pred_b.conll")
    upload(page, "slices-file", slices)
    files_scored(page, timeout=180_000)
    table = page.locator("#files-slices table").bounding_box()
    charts = page.locator("#files-buckets svg").first.bounding_box()
    assert table["y"] + table["height"] <= charts["y"] or charts["x"] >= table["x"] + table["width"]
    for row in page.locator("#files-slices tbody tr").all_inner_texts():
        assert row.count("[") == 2, row  # the slice's F1 interval and B - A's
    assert page.locator("#files-slices .slice-bar b").count() == 2
    assert_nothing_off_the_page(page)
    screenshot(page, "files_two_systems")


def label_studio_two_annotators(tmp_path, label="PER"):
    tasks = [
        {
            "id": k,
            "data": {"text": text},
            "annotations": [
                {
                    "id": 10 * k + a,
                    "completed_by": a,
                    "was_cancelled": False,
                    "result": [
                        {
                            "id": f"{k}{a}{i}",
                            "from_name": "label",
                            "to_name": "text",
                            "type": "labels",
                            "value": {"start": s, "end": e, "text": text[s:e], "labels": [lab]},
                        }
                        for i, (s, e, lab) in enumerate(spans)
                    ],
                }
                for a, spans in enumerate(sides, 1)
            ],
        }
        for k, (text, sides) in enumerate(
            [
                (
                    "Ada met Bob in Riga.",
                    ([(0, 3, label), (8, 11, "PER"), (15, 19, "LOC")], [(0, 3, label), (15, 19, "ORG")]),
                ),
                ("Tartu hosted Anna.", ([(0, 5, "LOC"), (13, 17, "PER")], [(0, 5, "LOC"), (13, 17, "PER")])),
            ],
            1,
        )
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def test_agreement_tab_label_studio_two_annotators(page, metric, tmp_path):
    """One Label Studio export with two annotators is scored; the annotators are named alike in the
    picker and the listing; the disagreeing pair is outlined (a hostile label stays text)."""
    label = 'x" onmouseover="alert(1)'
    page.get_by_role("tab", name="Agreement").click()
    upload(page, "agreement-files", label_studio_two_annotators(tmp_path, label))
    page.click("#agreement-button")
    page.wait_for_selector("#agreement-table table, #agreement-error .app-error", timeout=90_000)
    assert page.locator("#agreement-error .app-error").count() == 0
    picked = page.locator("#agreement-pair input").input_value()
    assert picked == "export.json #1 / export.json #2"
    listing = page.locator("#agreement-disagreements .error-count").inner_text()
    assert "export.json #1" in listing and "export.json #2" in listing
    assert page.locator("#agreement-table tbody tr").first.inner_text().startswith(picked)
    assert_no_handlers(page)
    assert_nothing_off_the_page(page)
    screenshot(page, "agreement_label_studio")


def test_agreement_tab_outline_contrast(page):
    page.get_by_role("tab", name="Agreement").click()
    page.click("#agreement-example")
    page.wait_for_selector("#agreement-disagreements .ner-focus", timeout=90_000)
    assert_outline_visible(page, "#agreement-disagreements .ner-focus")
    assert_nothing_off_the_page(page)


def test_compare_tab_example_menu_follows_the_user(page):
    """Typing a sentence of one's own: the Example menu no longer names the example."""
    expect = require("playwright.sync_api").expect
    assert page.locator("#example input").input_value() == examples.FIRST_EXAMPLE
    box = page.locator("#gold textarea, #gold input").first
    box.click()
    box.press("End")
    page.keyboard.type(" O")  # typed as a user types (fill sends no input event to Gradio)
    expect(page.locator("#example input")).to_have_value(compare.OWN_SENTENCE)
    assert_nothing_off_the_page(page)


def test_annotate_mode_says_it_decodes_as_iob2_strict(page, metric):
    """Choosing the Annotate mode sets the decoding menu to IOB2 strict at once, locked, with a note
    beside it and in the panel; the scores shown are IOB2 strict's; typing tags frees the menu."""
    expect = require("playwright.sync_api").expect
    page.locator("#input-mode").get_by_label("Annotate (select text)").check()
    menu = page.locator("#decoding input")
    expect(menu).to_have_value(compare.ANNOTATE_DECODING)
    expect(menu).to_be_disabled()
    expect(page.locator("#decoding")).to_contain_text(compare.ANNOTATE_NOTE)
    expect(page.locator("#annotate-note")).to_contain_text("decoded as IOB2 strict")
    case = examples.EXAMPLES[examples.FIRST_EXAMPLE]
    results = metric.compute(
        predictions=[case.pred], references=[case.gold], scheme="IOB2", mode="strict", errors=True
    )
    expect(page.locator("#mode-cards .ner-signature input")).to_have_value(results["signature"])
    page.locator("#input-mode").get_by_label("Type tags").check()
    expect(menu).to_be_enabled()
    expect(page.locator("#decoding")).not_to_contain_text(compare.ANNOTATE_NOTE)
    assert_nothing_off_the_page(page)


def test_annotate_marks_of_ones_own_are_no_longer_the_example(page):
    """A mark made on the example's sentence: the Example menu says "(your own sentence)"."""
    expect = require("playwright.sync_api").expect
    page.locator("#input-mode").get_by_label("Annotate (select text)").check()
    page.wait_for_selector("#annotate-gold :text('patiente')")
    expect(page.locator("#decoding input")).to_have_value(compare.ANNOTATE_DECODING)
    expect(page.locator("#example input")).to_have_value(examples.FIRST_EXAMPLE)  # entering changes nothing
    select_and_label(page, "annotate-gold", "aiguë", "DIS")
    expect(page.locator("#gold textarea, #gold input").first).to_have_value(
        "O B-PER O B-DIS I-DIS B-DIS O", timeout=60_000
    )
    expect(page.locator("#example input")).to_have_value(compare.OWN_SENTENCE, timeout=60_000)


def test_stratified_files_of_ones_own_are_no_longer_the_example(page, tmp_path):
    """Uploading one's own CSV: the Stratified tab's Example menu says "(your own files)"."""
    expect = require("playwright.sync_api").expect
    page.get_by_role("tab", name="Stratified recall").click()
    page.wait_for_selector("#recall-plot svg", timeout=60_000)
    first = next(iter(examples.STRATIFIED_EXAMPLES))
    expect(page.locator("#stratified-example input")).to_have_value(first)
    entities, _ = write_strata(tmp_path)
    upload(page, "entities-csv", entities)
    expect(page.locator("#stratified-example input")).to_have_value(strat.OWN_FILES)


#: the elements of a selector whose text is cut: wider than the box that shows it
CLIPPED_JS = """ns => ns.filter(n => n.scrollWidth > n.clientWidth + 1)
                  .map(n => [n.value || n.textContent, n.scrollWidth, n.clientWidth])"""


def test_the_per_type_table_and_the_files_menus_fit(page):
    """At 1280 px: the per-type table's twelve columns and every head shown whole; the Files tab's
    menus show their longest choice whole."""
    widths = page.locator("#per-type .virtual-table-viewport").evaluate("n => [n.scrollWidth, n.clientWidth]")
    assert widths[0] <= widths[1], widths
    heads = page.locator("#per-type th .header-content span")
    assert heads.count() == len(compare.PER_TYPE_HEADERS)
    assert heads.evaluate_all(CLIPPED_JS) == []
    assert_nothing_off_the_page(page)
    page.get_by_role("tab", name="Files").click()
    for elem_id, choices in (
        ("files-format", [AUTO_FORMAT, *common.VOCAB.FILE_FORMATS]),
        ("files-decoding", list(common.decodings())),
    ):
        longest = max(choices, key=len)
        pick(page, elem_id, longest)
        menu = page.locator(f"#{elem_id} input")
        assert menu.input_value() == longest
        assert menu.evaluate_all(CLIPPED_JS) == [], elem_id
    assert_nothing_off_the_page(page)


@pytest.mark.parametrize("tab", ["Stratified recall", "About"])
def test_other_tabs_fit_the_page(page, tab):
    page.get_by_role("tab", name=tab).click()
    page.wait_for_timeout(1000)
    assert_nothing_off_the_page(page)


def big_corpus(tmp_path, sentences=4000):
    """Gold and two noisy systems of ``sentences`` sentences: seconds of scoring with intervals."""
    import random

    rng = random.Random(1)
    gold = []
    for _ in range(sentences):
        tags = ["O"] * rng.randint(5, 15)
        for _ in range(2):
            tags[rng.randrange(len(tags))] = "B-" + rng.choice(["PER", "LOC", "ORG", "MISC"])
        gold.append(tags)
    paths = []
    for name in ("gold", "system_a", "system_b"):
        side = gold if name == "gold" else [[t if rng.random() > 0.1 else "O" for t in s] for s in gold]
        path = tmp_path / f"{name}.conll"
        path.write_text("\n\n".join("\n".join(f"w{i} {t}" for i, t in enumerate(s)) for s in side) + "\n")
        paths.append(path)
    return paths


def test_files_tab_shows_progress_and_stops(page, tmp_path):
    """Two systems of 4,000 sentences with 2,000 resamples: a progress bar names the step, and
    Stop ends the work without results."""
    page.get_by_role("tab", name="Files").click()
    for slot, path in zip(("gold-file", "pred-file", "pred-b-file"), big_corpus(tmp_path)):
        upload(page, slot, path)
    page.locator("#resamples input[type=number]").fill("2000")
    page.locator("#resamples input[type=number]").press("Enter")
    page.click("#files-button")
    level = page.locator(".progress-level").first
    level.wait_for(timeout=30_000)
    assert "Scoring both systems" in level.inner_text() or "Reading" in level.inner_text()
    screenshot(page, "files_progress")
    page.click("#files-stop")
    page.wait_for_selector(".progress-level", state="detached", timeout=30_000)
    page.wait_for_timeout(3_000)
    assert not page.locator("#files-headline .scores").is_visible()


def test_files_tab_example_files_fill_the_multi_file_slots(page):
    """The Example files button puts one file in each slot and scores two systems."""
    page.get_by_role("tab", name="Files").click()
    page.click("#files-example")
    page.wait_for_selector("#files-comparison table", timeout=90_000)
    for slot, name in (("gold-file", "gold"), ("pred-file", "system_a"), ("pred-b-file", "system_b")):
        assert name in page.locator(f"#{slot}").inner_text()
    assert page.locator("#files-error .app-error").count() == 0
    assert_nothing_off_the_page(page)


def test_generated_tab_example_and_hostile_output(page):
    """The Generated tab's example: the model's items marked on the text as the metric places
    them, the ladder's F1 per level and its signature; a hostile output stays text."""
    from ner_recall.app import generated as gen

    page.get_by_role("tab", name="Generated").click()
    page.click("#gen-example")
    page.wait_for_selector("#gen-ladder table[data-key=ladder]", timeout=60_000)
    text, output, _, gold, _, matching = gen.example_fields()
    entities = json.loads(gold)
    m = common.metric("generated")
    types = sorted({e["label"] for e in entities})
    listing = m.generated_outcomes(predictions=[output], texts=[text], types=types, matching=matching)[0]
    placed = [text[s:e] + i["label"] for i in listing if i["outcome"] == "placed" for s, e in i["places"]]
    marks = page.locator("#gen-drawn .gen-text").first.locator("mark").all_inner_texts()
    assert sorted(t.replace("\n", "") for t in marks) == sorted(placed)
    results = m.compute(predictions=[output], references=[entities], texts=[text], matching=list(LEVELS))
    for level, values in results["ladder"].items():
        row = page.locator("#gen-ladder table[data-key=ladder] tr", has_text=level).first.inner_text().split()
        assert float(row[3]) == pytest.approx(values["overall_f1"], abs=5e-5)
    assert page.locator("#gen-ladder .ner-signature input").input_value() == results["signature"]
    for outcome in m.ITEM_OUTCOMES:
        expected = sum(i["outcome"] == outcome for i in listing)
        assert page.locator(f"#gen-items li[data-outcome={outcome}] b").inner_text() == str(expected)
    screenshot(page, "generated")
    hostile = '<script>window.pwned=1</script>" onmouseover="window.pwned=2'
    fill(
        page, "gen-output", json.dumps([{"text": hostile, "type": "PER"}, {"text": "Rome", "type": hostile}])
    )
    fill(page, "gen-text", f"{hostile} in Rome.")
    fill(page, "gen-gold", "")
    fill(page, "gen-types", f"PER, {hostile}")
    page.click("#gen-button")
    page.wait_for_function(
        "() => document.querySelector('#gen-items') && document.querySelector('#gen-items').innerText.includes('pwned')"
    )
    assert_no_handlers(page)
    assert page.evaluate("() => window.pwned") is None
    assert hostile in page.locator("#gen-items").inner_text()
    assert page.locator("#gen-drawn mark").count() == 2


def test_files_tab_two_golds(page):
    """Two golds uploaded: the counts by kind and pair and one card per change, as the metric's."""
    page.get_by_role("tab", name="Files").click()
    upload(page, "gold-file", DATA / "gold.conll")
    page.get_by_text("Two golds: what a second gold changes in the gold").click()
    upload(page, "gold-b-file", DATA / "pred_a.conll")
    page.click("#golds-button")
    page.wait_for_selector("#golds-changes .error-count, #golds-error .app-error", timeout=60_000)
    assert page.locator("#golds-error .app-error").count() == 0
    m = common.metric()
    read = m.read_systems(str(DATA / "gold.conll"), str(DATA / "pred_a.conll"))[0]
    expected = m.gold_differences(
        {"tokens": read.tokens, "tags": read.references}, {"tokens": read.tokens, "tags": read.predictions}
    )
    rows = page.locator("#golds-summary table[data-key=gold-counts] tbody tr").all_inner_texts()
    assert sorted(tuple(r.split("\t")) for r in rows) == sorted(
        (k, p, str(n)) for k, pairs in expected["counts"].items() for p, n in pairs.items()
    )
    assert page.locator("#golds-changes .gold-change").count() == min(
        len(expected["changes"]), common.ERROR_PAGE
    )
    screenshot(page, "files_two_golds")
