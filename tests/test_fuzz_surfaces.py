"""Fuzzing the other surfaces: the span configs, ``compare``, ``find_entities``, the file readers and
the command line (a subprocess from another folder). Every drawn case is a right answer or a
``ValueError``, under a time limit (hypothesis' deadline) and a memory cap (the peak Python memory a
case allocates, by tracemalloc; the command line runs under an address-space limit), and the object
stays usable after it.
"""

import json
import os
import subprocess
import sys
import tracemalloc

import pytest

from conftest import METRIC_PATH, require

hypothesis = require("hypothesis", "pip install -r requirements-dev.txt")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(
    max_examples=80,
    deadline=5000,  # milliseconds: a case that takes longer fails
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
MEMORY_CAP = 200 * 2**20  # bytes of Python memory one case may allocate at its peak
SPAN = {"label": "PER", "start": 0, "end": 1}


@pytest.fixture(scope="module")
def spans_metric(tmp_path_factory):
    import evaluate

    return evaluate.load(METRIC_PATH, "spans", cache_dir=str(tmp_path_factory.mktemp("fuzz_spans")))


def bounded(call):
    """Run ``call``: its result, or the ValueError it raised; anything else fails the test, and so does
    a peak above the memory cap."""
    tracemalloc.start()
    try:
        return call()
    except ValueError as error:
        assert str(error), "an empty message names nothing"
        return error
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MEMORY_CAP, f"the case allocated {peak / 2**20:.0f} MB"


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
)
entities = st.fixed_dictionaries(
    {
        "label": st.one_of(st.sampled_from(["PER", "LOC", "muc"]), values),
        "start": st.one_of(st.integers(-2, 12), values),
        "end": st.one_of(st.integers(-2, 14), values),
    }
)
examples = st.lists(st.one_of(st.lists(entities, max_size=4), values), min_size=0, max_size=4)


@FUZZ
@given(
    gold=examples, pred=examples, scores=st.sampled_from([["seqeval", "muc"], ["token", "overlap", "harem"]])
)
def test_span_inputs_give_scores_or_a_named_error(spans_metric, gold, pred, scores):
    out = bounded(lambda: spans_metric.compute(predictions=pred, references=gold, scores=scores))
    if isinstance(out, ValueError):
        assert any(word in str(out) for word in ("predictions", "references", "examples", "entity", "span"))
    else:
        assert (
            all(0 <= out["muc"]["strict"][k] <= 1 for k in ("precision", "recall")) if "muc" in out else True
        )
    assert spans_metric.compute(predictions=[[SPAN]], references=[[SPAN]])["overall_f1"] == 1.0


tags = st.lists(
    st.lists(st.sampled_from(["O", "B-PER", "I-PER", "B-LOC"]), min_size=1, max_size=5),
    min_size=1,
    max_size=4,
)


@FUZZ
@given(a=tags, data=st.data(), bad=st.sampled_from([None, "B-PER", 5, [["O"]], "swap"]))
def test_compare_gives_a_difference_or_a_named_error(metric, a, data, bad):
    b = data.draw(st.lists(st.sampled_from(["O", "B-PER", "B-LOC"]), min_size=len(a[0]), max_size=len(a[0])))
    references = [list(s) for s in a]
    predictions_b = [b] + [list(s) for s in a[1:]]
    if bad == "swap":
        references = data.draw(st.sampled_from([None, "B-PER", 5, [["O"]]]))
    elif bad is not None:
        predictions_b = bad
    out = bounded(
        lambda: metric.compare(
            predictions=a,
            predictions_b=predictions_b,
            references=references,
            permutations=50,
            ci_resamples=20,
        )
    )
    if isinstance(out, ValueError):
        assert any(w in str(out) for w in ("references", "predictions_b", "sentence", "tags"))
    else:
        assert set(out) >= {"difference", "p_values", "table"}
    assert metric.compute(predictions=[["B-PER"]], references=[["B-PER"]])["overall_f1"] == 1.0


@FUZZ
@given(
    texts=st.one_of(st.lists(st.text(alphabet="ab .", max_size=30), min_size=1, max_size=3), values),
    pairs=st.one_of(
        st.lists(
            st.lists(
                st.one_of(st.tuples(st.sampled_from(["X", ""]), st.text(alphabet="ab", max_size=3)), values),
                max_size=5,
            ),
            min_size=1,
            max_size=3,
        ),
        values,
    ),
)
def test_find_entities_places_strings_or_names_the_problem(metric, texts, pairs):
    out = bounded(lambda: metric.find_entities(texts, pairs))
    if not isinstance(out, ValueError):
        for text, spans in zip(texts, out["entities"]):
            for span in spans:
                assert 0 <= span["start"] < span["end"] <= len(text)


lines = st.lists(
    st.one_of(
        st.text(alphabet="ab \tB-PERIO-", max_size=12),
        st.sampled_from(["", "\t", "-DOCSTART- O", "# c", "a B-PER", "a\tO", "[[[[", '{"tokens": 1}']),
        st.builds(
            json.dumps,
            st.fixed_dictionaries(
                {
                    "tokens": st.lists(st.text(max_size=2), max_size=3),
                    "entities": st.lists(entities, max_size=2),
                }
            ),
        ),
    ),
    max_size=8,
)


@FUZZ
@given(gold=lines, pred=lines, suffix=st.sampled_from([".conll", ".jsonl"]))
def test_readers_read_or_name_the_file_and_line(tmp_path_factory, gold, pred, suffix):
    from ner_recall.readers import files as ner_files

    folder = tmp_path_factory.mktemp("files")
    paths = [str(folder / f"{name}{suffix}") for name in ("g", "p")]
    for path, text in zip(paths, (gold, pred)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(text) + "\n")
    out = bounded(lambda: ner_files.read_pair(*paths))
    if isinstance(out, ValueError):
        assert "g" + suffix in str(out) or "p" + suffix in str(out), str(out)


CLI = """
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
sys.argv = ["ner_recall"] + sys.argv[1:]
runpy.run_module("ner_recall", run_name="__main__")
"""


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(gold=lines, pred=lines)
def test_the_command_line_from_another_folder_prints_or_names_the_problem(tmp_path_factory, gold, pred):
    folder = tmp_path_factory.mktemp("cli")
    for name, text in (("g.conll", gold), ("p.conll", pred)):
        (folder / name).write_text("\n".join(text) + "\n", encoding="utf-8")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-c", CLI, "g.conll", "p.conll"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode in (0, 1)
    if done.returncode == 1:
        assert done.stderr.startswith("ner_report: ") and (
            "g.conll" in done.stderr or "p.conll" in done.stderr or "no token" in done.stderr
        )
