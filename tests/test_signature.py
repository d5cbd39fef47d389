"""The signature on every result, its round trip, and the conventions against the real scorers.

The signature is driven by the options table (``ner_options.ALL_OPTIONS``): every option is
signed or declared neutral; two different option sets give two signatures; the options read
back from a signature (with per-sentence data given again) reproduce the result to the bit.
Each convention is checked against its scorer run live: perl's conlleval.pl (``CONLLEVAL_PL``,
or a mirror of a public repository that carries it; skipped with the reason when absent), the
seqeval, seqscore and nervaluate packages, and HIPE-scorer's reference files.
"""

import glob
import os
import random
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from ner_recall.pipeline import signature as S
from ner_recall.pipeline.options import ALL_OPTIONS, CONFIG_OPTIONS, GENERATED_CONFIGS
from ner_recall.pipeline.options import COMPUTE_OPTIONS as OPTIONS

TYPES = ("PER", "LOC", "ORG", "MISC")


def corpus(seed: int, n: int = 30, prefixes: str = "OOOBIIES", types: str | tuple = TYPES) -> tuple:
    rng = random.Random(seed)
    references, predictions = [], []
    for _ in range(n):
        ref = [
            p if p == "O" else f"{p}-{rng.choice(types)}" for p in rng.choices(prefixes, k=rng.randint(1, 12))
        ]
        pred = [
            t if rng.random() < 0.7 else rng.choice(["O", f"{rng.choice(prefixes[3:])}-{rng.choice(types)}"])
            for t in ref
        ]
        references.append(ref)
        predictions.append(pred)
    return references, predictions


# ---------------------------------------------------------------------------- the table


def test_every_option_of_the_table_is_signed_or_declared_neutral():
    assert set(OPTIONS) <= set(S.CODES) | S.NEUTRAL
    assert not set(S.CODES) - set(OPTIONS), "a code for an option the table no longer has"
    assert len(set(S.CODES.values())) == len(S.CODES), "two options share a code"
    assert not S.NEUTRAL & set(S.CODES)


def test_class_ids_with_their_names_sign_as_their_tags_and_the_names_are_given_again(metric):
    names = ["O", "B-PER", "I-PER"]
    ids = metric.compute(predictions=[[1, 2, 0]], references=[[1, 2, 0]], label_names=names)
    tags = metric.compute(predictions=[["B-PER", "I-PER", "O"]], references=[["B-PER", "I-PER", "O"]])
    assert ids["signature"] == tags["signature"]
    back = metric.options_from_signature(ids["signature"], label_names=names)
    assert metric.compute(predictions=[[1, 2, 0]], references=[[1, 2, 0]], **back) == ids


def test_an_option_without_a_code_is_still_signed_under_its_name():
    table = {**ALL_OPTIONS, "brand_new": None}
    sig = S.signature("default", {"brand_new": 3}, table)
    assert sig.endswith("|brand_new:3")
    assert S.options_from_signature(sig, "default", table) == {"brand_new": 3}


#: values to draw for each option (any option of the table: the signature does not validate)
POOL = {
    "scheme": ["IOB2", "IOBES", "IO"],
    "mode": ["strict"],
    "suffix": [True],
    "zero_division": [1, 0.5],
    "beta": [0.5, 2.0, 3],
    "scores": [["muc"], ["seqeval", "token"], ["seqeval", "muc", "overlap", "harem", "confusion", "token"]],
    "types": [["PER"], ["PER", "LOC", "ORG"], ["A" * 40, "B" * 40]],
    "label_map": [{"GEP": "LOC"}, {"a b": "c"}, {"X": "PER", "Y": "ORG"}],
    "overlap_threshold": [0.25, 1.0],
    "errors": [True],
    "subgroup_weights": [{"a": 1, "b": 2}],
    "ci_method": ["bootstrap", "weighted_wald"],
    "confidence_level": [0.9, 0.99],
    "recall_mode": ["partial", "type"],
    "n_bootstrap": [500, 20000],
    "seed": [1, 2, 12345],
    "texts": [["a b", "c"], ["x"]],
    "ci_resamples": [100, 1000],
    "document_ids": [[0, 0, 1], ["d1", "d2", "d2"]],
    "slices": [["a", "b", "a"], {"genre": ["x", "y", "x"]}],
    "buckets": [["length"], ["length", "seen"]],
    "tokens": [[["a"], ["b"]]],
    "token_scores": [[[0.5], [0.25]]],
    "calibration_bins": [5, 20],
    "threshold_from": [{"ranking": {"strict": 0.5, "fingerprint": "x"}}],
    "threshold_on_scored_set": [True],
    "train_entities": [[("PER", "Anna")], [("LOC", "Paris"), ("PER", "Anna")]],
    "type_separator": [":", "-"],
    "type_hierarchy": [{"PER": "ANIMATE", "LOC": "PLACE"}],
    "convention": ["conlleval", "seqeval", "nervaluate", "hipe", "seqscore"],
}


def test_the_pool_draws_every_signed_option():
    generated = {name for name, o in OPTIONS.items() if o.configs == GENERATED_CONFIGS}
    assert set(POOL) == set(OPTIONS) - S.NEUTRAL - generated


def test_generated_results_are_signed_and_read_back():
    """The generated config's own options have codes too; scoring with them reproduces the result."""
    import evaluate

    from conftest import METRIC_PATH

    generated = evaluate.load(METRIC_PATH, "generated")
    texts = ["John met Mary in Paris and then john left Paris ."]
    gold = [[{"label": "PER", "start": 0, "end": 4}, {"label": "LOC", "start": 21, "end": 26}]]
    output = ['[{"text": "JOHN", "type": "PER"}, {"text": "Paris", "type": "LOC"}]']
    options = {"matching": ["exact", "fuzzy"], "placement": "first", "fuzzy_threshold": 0.8}
    results = generated.compute(predictions=output, references=gold, texts=texts, **options)
    signature = results["signature"]
    assert all(f"{S.CODES[name]}:" in signature for name in options)
    back = generated.options_from_signature(signature, texts=texts)
    again = generated.compute(predictions=output, references=gold, **back)
    assert repr(again) == repr(results)


def random_options(rng: random.Random, config: str) -> dict:
    names = rng.sample(sorted(set(CONFIG_OPTIONS[config]) - S.NEUTRAL), rng.randint(0, 9))
    return {name: rng.choice(POOL[name]) for name in names}


def hashed(sig: str, options: dict) -> dict:
    """The options a signature names by their hash only (to give again)."""
    by_code = {S.CODES[name]: name for name in options}
    names = set()
    for part in sig.split("|"):
        if part.startswith("#@"):
            bits = int(part[2:].partition(":")[0], 16)
            names.update(n for i, n in enumerate(ALL_OPTIONS) if bits >> i & 1)
        elif part.startswith("#"):
            names.update(by_code[c] for c in part[1:].partition(":")[0].split("+"))
        elif "#" in part:
            names.add(by_code[part.partition("#")[0]])
    return {name: options[name] for name in names}


@pytest.mark.parametrize("config", ["default", "spans", "subgroups"])
def test_random_option_sets_give_distinct_signatures_that_read_back(config):
    rng = random.Random(config)
    seen: dict[str, dict] = {}
    for _ in range(400):
        options = random_options(rng, config)
        sig = S.signature(config, options, ALL_OPTIONS)
        assert len(sig) <= S.MAX_LENGTH, sig
        key = repr(sorted((k, S.plain(S.CANONICAL.get(k, lambda v: v)(v))) for k, v in options.items()))
        if sig in seen:
            assert seen[sig] == key, f"two option sets, one signature: {sig}"
        seen[sig] = key
        back = S.options_from_signature(sig, config, ALL_OPTIONS, hashed(sig, options))
        assert {k: S.plain(v) for k, v in back.items()} == {k: S.plain(v) for k, v in options.items()}
    assert len(seen) > 300


@pytest.mark.parametrize(
    "given, part",
    [
        ({"scheme": "IOB2", "mode": "strict"}, "dec:IOB2.strict"),
        ({}, "dec:lenient"),
        ({"beta": 2.0}, "b:2.0"),
        ({"zero_division": 1}, "zd:1"),
        ({"types": ["PER", "LOC"]}, "ty:(PER+LOC)"),
        ({"label_map": {"GEP": "LOC"}}, "lm:{GEP>LOC}"),
        ({"ci_resamples": 1000, "seed": 3}, "s:3|ci:1000"),
        ({"document_ids": [0, 1]}, "doc#"),
        ({"convention": "conlleval"}, "cv:conlleval"),
    ],
)
def test_the_signature_names_each_choice(given, part):
    sig = S.signature("default", given, ALL_OPTIONS)
    assert part in sig and sig.startswith(f"nrm{S.METRIC_VERSION}|")
    assert "zd:" in sig and "b:" in sig  # always shown


def test_a_long_set_of_options_fits_by_hashing_then_grouping():
    options = {name: POOL[name][-1] for name in CONFIG_OPTIONS["default"] if name not in S.NEUTRAL}
    sig = S.signature("default", options, ALL_OPTIONS)
    assert len(sig) <= S.MAX_LENGTH and "#" in sig
    assert (
        S.options_from_signature(sig, "default", ALL_OPTIONS, hashed(sig, options)).keys() == options.keys()
    )


@pytest.mark.parametrize(
    "sig, data, words",
    [
        ("nrm0.9|dec:lenient|zd:0|b:1.0", {}, "metric version '0.9'"),
        ("nrm1.1/spans|zd:0|b:1.0", {}, "'spans' config"),
        ("nrm1.1|dec:lenient|zd:0|b:1.0|doc#abcdef", {}, "document_ids by its hash only"),
        ("nrm1.1|dec:lenient|zd:0|b:1.0|doc#abcdef", {"document_ids": [1, 2]}, "is not the one signed"),
        ("nrm1.1|dec:lenient|zd:0|b:1.0", {"texts": ["a"]}, "does not name it"),
        ("nrm1.1|dec:lenient|zd:0|b:1.0|zz:3", {}, "cannot read 'zz:3'"),
        ("nrm1.1|dec:lenient|b:(a+b c)", {}, "not a signature value"),
        ("no signature", {}, "not a signature"),
        ("nrm1.1|" + "x" * 130, {}, "not a signature"),
    ],
)
def test_a_bad_signature_is_named(sig, data, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace("+", r"\+")):
        S.options_from_signature(sig, "default", ALL_OPTIONS, data)


@pytest.mark.parametrize(
    "value", [None, True, False, 0, -3, 2.5, 1e-05, "IOB2", ["a", "b"], [], {"a": "b"}, {"k": 1, "j": None}]
)
def test_plain_values_are_spelled_and_read_back(value):
    text = S.spell(value)
    assert text is not None and "|" not in text
    assert S.read_value(text) == value and type(S.read_value(text)) is type(value)


@pytest.mark.parametrize(
    "value", ["a b", "T", "1", float("inf"), float("nan"), ("x|y",), {"": "x"}, {1: "a"}, object()]
)
def test_values_that_cannot_be_spelled_are_hashed(value):
    assert S.spell(value) is None


# ---------------------------------------------------------------------------- round trip on the metric


#: options that change numbers, for the round trip on a corpus (with the data they need)
ROUND_TRIP_POOL = {
    "zero_division": [1],
    "beta": [0.5, 2.0],
    "scores": [["muc"], ["seqeval", "token", "overlap"], ["seqeval", "muc", "harem", "confusion"]],
    "types": [["PER", "LOC"], ["ORG"]],
    "label_map": [{"MISC": "ORG"}, {"LOC": "ORG", "PER": "MISC"}],
    "errors": [True],
    "ci_resamples": [20],
    "convention": ["conlleval", "seqeval"],
    "document_ids": ["docs"],
    "slices": ["genre"],
}


def _round_trip_options(rng: random.Random, n: int) -> dict:
    names = rng.sample(sorted(ROUND_TRIP_POOL), rng.randint(1, 6))
    options = {name: rng.choice(ROUND_TRIP_POOL[name]) for name in names}
    if "ci_resamples" in options:
        options["seed"] = rng.randint(1, 9)
        options["confidence_level"] = rng.choice([0.9, 0.95, 0.8])
    else:
        options.pop("document_ids", None)
    if "document_ids" in options:
        options["document_ids"] = [i // 4 for i in range(n)]
    if "slices" in options:
        options["slices"] = [rng.choice(["news", "web"]) for _ in range(n)]
    if options.get("convention") == "conlleval" and "scores" in options:
        options["scores"] = ["seqeval", "muc"]
    if options.get("convention") == "seqeval":
        options.pop("scores", None)
    return options


@pytest.mark.parametrize("seed", range(8))
def test_scoring_with_the_options_read_back_reproduces_the_result_to_the_bit(metric, seed):
    rng = random.Random(seed)
    references, predictions = corpus(seed)
    options = _round_trip_options(rng, len(references))
    first = metric.compute(predictions=predictions, references=references, **options)
    data = {k: options[k] for k in ("document_ids", "slices") if k in options}
    back = metric.options_from_signature(first["signature"], **data)
    again = metric.compute(predictions=predictions, references=references, **back)
    assert repr(again) == repr(first)


def test_different_options_that_change_numbers_change_the_signature(metric):
    references, predictions = corpus(3)
    seen = {}
    for options in [
        {},
        {"beta": 2.0},
        {"zero_division": 1},
        {"types": ["PER"]},
        {"scheme": "IOBES", "mode": "strict"},
        {"label_map": {"LOC": "PER"}},
        {"convention": "conlleval"},
        {"ci_resamples": 10},
        {"ci_resamples": 10, "seed": 2},
    ]:
        sig = metric.compute(predictions=predictions, references=references, **options)["signature"]
        assert sig not in seen, (options, seen.get(sig))
        seen[sig] = options


def test_a_failed_reading_leaves_the_metric_usable(metric):
    with pytest.raises(ValueError):
        metric.options_from_signature("nrm1.1|dec:lenient|zd:0|b:1.0|doc#abcdef")
    assert metric.compute(predictions=[["B-PER"]], references=[["B-PER"]])["overall_f1"] == 1.0


# ---------------------------------------------------------------------------- conventions


@pytest.mark.parametrize("name", sorted(S.CONVENTIONS))
def test_a_convention_sets_its_options_and_refuses_a_contradiction(metric, name):
    references, predictions = corpus(5, prefixes="OOOBII")
    preset = {k: v for k, v in S.CONVENTIONS[name].items() if k != "suffix"}
    by_hand = metric.compute(predictions=predictions, references=references, **preset)
    ours = metric.compute(predictions=predictions, references=references, convention=name)
    assert ours["signature"].endswith(f"|cv:{name}") and ours["signature"] != by_hand["signature"]
    for key in by_hand:
        # conlleval: its chunks are scored as written in IOB2 (nothing to repair); the accuracy
        # is over the tags as given
        if key != "signature" and not (name == "conlleval" and key in ("overall_accuracy", "decoding")):
            assert ours[key] == by_hand[key], key
    with pytest.raises(ValueError, match=f"convention={name!r} sets scores="):
        metric.compute(predictions=predictions, references=references, convention=name, scores=["token"])


@pytest.mark.parametrize(
    "call, words",
    [
        ({"convention": "bogus"}, "convention must be one of"),
        ({"convention": 3}, "convention must be one of"),
        ({"convention": "conlleval", "label_names": ["O", "B-PER"]}, "give tags, not class ids"),
    ],
)
def test_a_bad_convention_is_named(metric, call, words):
    tags = [[1]] if "label_names" in call else [["B-PER"]]
    with pytest.raises(ValueError, match=words):
        metric.compute(predictions=tags, references=tags, **call)


def test_tag_conventions_are_refused_by_the_span_configs_and_every_convention_by_state():
    import evaluate

    spans = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "spans")
    example = [[{"label": "PER", "start": 0, "end": 1}]]
    with pytest.raises(ValueError, match="reads tags"):
        spans.compute(predictions=example, references=example, convention="conlleval")
    assert spans.compute(predictions=example, references=example, convention="nervaluate")["muc"]
    tags = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"))
    with pytest.raises(ValueError, match="not read by state"):
        tags.state(predictions=[["B-PER"]], references=[["B-PER"]], convention="seqeval")


def conlleval_script(tmp_path_factory: pytest.TempPathFactory) -> str:
    """perl's conlleval.pl: ``CONLLEVAL_PL``, or from a local mirror of a public repository that
    carries it (its license is not ours: it is never copied into this repository)."""
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed: conlleval.pl cannot run")
    path = os.environ.get("CONLLEVAL_PL")
    if path and os.path.isfile(path):
        return path
    for mirror in sorted(glob.glob(os.path.join(ROOT, "..", ".mirror", "*", "repo"))):
        shown = subprocess.run(["git", "-C", mirror, "show", "HEAD:conlleval.pl"], capture_output=True)
        if shown.returncode == 0 and b"conlleval" in shown.stdout:
            out = tmp_path_factory.mktemp("conlleval") / "conlleval.pl"
            out.write_bytes(shown.stdout)
            return str(out)
    pytest.skip("conlleval.pl not found: set CONLLEVAL_PL to the CoNLL-2000 script (version 2004-01-26)")


def run_conlleval(script: str, references: list, predictions: list) -> str:
    lines = ["\n".join(f"w {g} {p}" for g, p in zip(ref, pred)) for ref, pred in zip(references, predictions)]
    text = "\n\n".join(lines) + "\n"
    return subprocess.run(["perl", script], input=text, capture_output=True, text=True, check=True).stdout


#: tag alphabets of the random corpora: prefixes (O first) and types ("" untyped)
ALPHABETS = [
    ("OBI", TYPES),
    ("OIB", ("A", "B")),
    ("OBIES", TYPES),
    ("OBIES", ("A", "B")),
    ("OIE", TYPES),
    ("OBILU", ("A", "B")),
    ("OBI", ("",)),
    ("OBIE", ("",)),
]


def alphabet_corpus(seed: int, prefixes: str, types: tuple, n: int = 60) -> tuple:
    rng = random.Random(seed)

    def tag() -> str:
        p = rng.choice(prefixes)
        kind = rng.choice(types)
        return p if p == "O" or not kind else f"{p}-{kind}"

    references = [[tag() for _ in range(rng.randint(1, 10))] for _ in range(n)]
    predictions = [[t if rng.random() < 0.6 else tag() for t in ref] for ref in references]
    return references, predictions


@pytest.mark.parametrize("seed", range(len(ALPHABETS) * 3))
def test_conlleval_convention_prints_what_the_script_prints(metric, tmp_path_factory, seed):
    script = conlleval_script(tmp_path_factory)
    prefixes, types = ALPHABETS[seed % len(ALPHABETS)]
    references, predictions = alphabet_corpus(seed, prefixes, types)
    results = metric.compute(predictions=predictions, references=references, convention="conlleval")
    assert results["convention"]["report"] == run_conlleval(script, references, predictions)
    assert f"accuracy: {100 * results['overall_accuracy']:6.2f}%" in results["convention"]["report"]


def test_conlleval_accuracy_is_over_the_tags_as_given(metric):
    results = metric.compute(
        predictions=[["B-PER", "I-PER"]], references=[["B-PER", "E-PER"]], convention="conlleval"
    )
    assert results["overall_accuracy"] == 0.5 and results["overall_f1"] == 1.0


def test_conlleval_reads_iobes_as_the_script_and_differs_from_the_default(metric, tmp_path_factory):
    script = conlleval_script(tmp_path_factory)
    references, predictions = [["S-PER", "S-PER", "O"]], [["S-PER", "O", "O"]]
    ours = metric.compute(predictions=predictions, references=references, convention="conlleval")
    assert ours["convention"]["report"] == run_conlleval(script, references, predictions)
    assert (ours["muc"]["strict"]["possible"], ours["muc"]["strict"]["correct"]) == (1, 0)
    default = metric.compute(predictions=predictions, references=references)["muc"]["strict"]
    assert (default["possible"], default["correct"]) == (2, 1)


@pytest.mark.parametrize("seed", range(4))
def test_seqeval_convention_gives_seqeval_numbers(metric, seed):
    from seqeval.metrics import classification_report

    references, predictions = alphabet_corpus(seed, "OBI", TYPES, n=200)
    ours = metric.compute(predictions=predictions, references=references, convention="seqeval")
    theirs = classification_report(references, predictions, output_dict=True, zero_division=0)
    assert ours["overall_precision"] == pytest.approx(theirs["micro avg"]["precision"], abs=1e-12)
    assert ours["overall_recall"] == pytest.approx(theirs["micro avg"]["recall"], abs=1e-12)
    assert ours["overall_f1"] == pytest.approx(theirs["micro avg"]["f1-score"], abs=1e-12)
    for kind in TYPES:
        if kind in theirs:
            assert ours[kind]["f1"] == pytest.approx(theirs[kind]["f1-score"], abs=1e-12)
            assert ours[kind]["number"] == theirs[kind]["support"]


@pytest.mark.parametrize("prefixes, encoding", [("OBI", "BIO"), ("OIB", "IOB")])
@pytest.mark.parametrize("seed", range(3))
def test_seqscore_convention_gives_seqscore_numbers(metric, seed, prefixes, encoding):
    from seqscore.scoring import score_label_sequences

    references, predictions = alphabet_corpus(seed, prefixes, TYPES, n=200)
    ours = metric.compute(predictions=predictions, references=references, convention="seqscore")
    score, accuracy = score_label_sequences(predictions, references, encoding, repair="conlleval")
    assert ours["overall_precision"] == pytest.approx(score.precision, abs=1e-12)
    assert ours["overall_recall"] == pytest.approx(score.recall, abs=1e-12)
    assert ours["overall_f1"] == pytest.approx(score.f1, abs=1e-12)
    assert ours["overall_accuracy"] == pytest.approx(accuracy.accuracy, abs=1e-12)


@pytest.mark.parametrize("seed", range(2))
def test_nervaluate_convention_gives_nervaluate_counts(metric, seed):
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from nervaluate import Evaluator
    from test_parity import MUC_KEYS, NERVALUATE_MODE, nervaluate_corpus

    references, predictions = nervaluate_corpus(metric, seed, 600)
    muc = metric.compute(predictions=predictions, references=references, convention="nervaluate")["muc"]
    theirs = Evaluator(references, predictions, tags=list("ABC"), loader="list").evaluate()["overall"]
    for mode, name in NERVALUATE_MODE.items():
        assert {k: muc[mode][k] for k in MUC_KEYS} == {k: getattr(theirs[name], k) for k in MUC_KEYS}


class _WithConvention:
    """The metric with ``convention`` added to every compute (to replay another test's cases)."""

    def __init__(self, metric, name: str) -> None:
        self.metric, self.name = metric, name

    def compute(self, **kwargs):
        return self.metric.compute(convention=self.name, **kwargs)


def test_hipe_convention_gives_hipe_scorer_reference_results(metric):
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import test_hipe

    for case in test_hipe.CASES:
        test_hipe.test_hipe_scorer_reference_results(_WithConvention(metric, "hipe"), case)


def test_every_result_of_compute_and_finalize_is_signed(metric):
    references, predictions = corpus(7)
    whole = metric.compute(predictions=predictions, references=references, ci_resamples=5, seed=2)
    state = metric.state(predictions=predictions, references=references, ci_resamples=5, seed=2)
    assert (
        metric.finalize(state)["signature"] == whole["signature"] == "nrm1.1|dec:lenient|zd:0|b:1.0|s:2|ci:5"
    )


def docs_block(page: str, name: str) -> list[str]:
    with open(os.path.join(ROOT, "docs", page), encoding="utf-8") as f:
        text = f.read()
    return text.split(f"<!-- {name} -->\n")[1].split(f"<!-- /{name} -->")[0].splitlines()


def test_the_discrepancy_table_in_the_docs_is_the_benchmark_output():
    with open(os.path.join(ROOT, "bench", "conventions.md"), encoding="utf-8") as f:
        table = [line for line in f.read().splitlines() if line.startswith("|")]
    assert docs_block("signature.md", "conventions") == table


def test_the_discrepancy_benchmark_reproduces_its_table(metric):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import conventions

    with open(os.path.join(ROOT, "bench", "conventions.md"), encoding="utf-8") as f:
        rows = [line for line in f.read().splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(conventions.rows(metric))
    for row, (source, option, name, base, other) in zip(rows, conventions.rows(metric)):
        assert row.endswith(f"| {base:.4f} | {other:.4f} | {other - base:+.4f} |"), source


@pytest.mark.parametrize("n", [3, 5000])
def test_a_column_hashes_alike_as_list_tuple_or_array_and_apart_when_values_differ(n):
    import numpy as np

    ints = [i // 7 for i in range(n)]
    assert S.value_hash(ints) == S.value_hash(tuple(ints)) == S.value_hash(np.array(ints))
    floats = [i / 2 for i in range(n)]
    assert S.value_hash(floats) == S.value_hash(np.array(floats))
    others = [
        [float(i) for i in ints],
        [str(i) for i in ints],
        ints[:-1] + [ints[-1] + 1],
        ints[:-1],
        [str(i) for i in ints[:-1]] + [ints[-1]],
    ]
    hashes = {S.value_hash(ints)} | {S.value_hash(o) for o in others}
    assert len(hashes) == 1 + len(others)
    assert S.value_hash([f"d{i}" for i in ints]) == S.value_hash(np.array([f"d{i}" for i in ints]))


# ---------------------------------------------------------------------------- comparisons, defaults


def second_system(references: list, seed: int) -> list:
    rng = random.Random(seed)
    return [[t if rng.random() < 0.8 else "O" for t in sentence] for sentence in references]


@pytest.mark.parametrize(
    "options, data, system_intervals",
    [
        ({}, {}, 0),
        ({"types": ["PER", "LOC"], "beta": 2.0}, {}, 0),
        ({"scores": ["seqeval", "muc", "token"], "zero_division": 1}, {}, 0),
        ({"scheme": "IOBES", "mode": "strict", "label_map": {"MISC": "ORG"}}, {}, 0),
        ({}, {"document_ids": "docs"}, 0),
        ({"slices": "genre"}, {}, 0),
        ({}, {}, 20),
        ({"types": ["PER"]}, {"document_ids": "docs"}, 15),
    ],
)
def test_each_system_of_a_comparison_is_signed_as_compute_signs_it(metric, options, data, system_intervals):
    """compare's "a" and "b" carry the signature compute gives each system's results; the options
    read back from it make compute give that system's results again, key for key."""
    references, predictions = corpus(11)
    predictions_b = second_system(references, 12)
    n = len(references)
    options = {k: ([i % 3 for i in range(n)] if v == "genre" else v) for k, v in options.items()}
    data = {k: [i // 4 for i in range(n)] for k in data}
    call = dict(predictions=predictions, predictions_b=predictions_b, references=references, permutations=20)
    if system_intervals:
        out = metric.compare(
            **call, ci_resamples=0, system_intervals=system_intervals, seed=3, **data, **options
        )
    else:
        out = metric.compare(**call, ci_resamples=0, **data, **options)
    assert out["a"]["signature"] == out["b"]["signature"]
    hashed_data = {k: v for k, v in {**data, **options}.items() if k in ("document_ids", "slices")}
    for side, system in (("a", predictions), ("b", predictions_b)):
        back = metric.options_from_signature(out[side]["signature"], **hashed_data)
        again = metric.compute(predictions=system, references=references, **back)
        assert again == out[side]  # the same numbers (key order aside: compare adds documents last)


def test_compare_is_the_one_entry_and_checks_system_intervals(metric):
    """compare(system_intervals=n) is the comparison with each system's own intervals; the former
    name gives the same results; a bad count is refused naming the option."""
    references, predictions = corpus(11)
    call = dict(
        predictions=predictions,
        predictions_b=second_system(references, 12),
        references=references,
        permutations=20,
        ci_resamples=30,
        system_intervals=40,
    )
    out = metric.compare(**call)
    assert "intervals" in out["a"] and "intervals" in out["b"]
    assert metric.compare_with_intervals(**call) == out
    assert "intervals" not in metric.compare(**{**call, "system_intervals": 0})["a"]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=rf"system_intervals must be a non-negative int; got {bad!r}"):
            metric.compare(**{**call, "system_intervals": bad})


@pytest.mark.parametrize(
    "explicit",
    [
        {"scores": ["seqeval", "muc"]},
        {"scores": ("seqeval", "muc")},
        {"calibration_bins": 10},
        {"types": None, "label_map": None},
        {"confidence_level": 0.95, "ci_resamples": 0},
    ],
)
def test_an_option_given_at_its_default_signs_as_the_default(metric, explicit):
    references, predictions = corpus(4)
    omitted = metric.compute(predictions=predictions, references=references)
    given = metric.compute(predictions=predictions, references=references, **explicit)
    assert given["signature"] == omitted["signature"] == S.signature("default", explicit, ALL_OPTIONS)
    assert metric.options_from_signature(given["signature"]) == {}
    assert repr(given) == repr(omitted)


@pytest.mark.parametrize(
    "value, default, same",
    [
        (["seqeval", "muc"], ("seqeval", "muc"), True),
        (["muc", "seqeval"], ("seqeval", "muc"), False),
        (["seqeval"], ("seqeval", "muc"), False),
        (["seqeval", "muc", "token"], ("seqeval", "muc"), False),
        (1, 1.0, False),
        (True, 1, False),
        (0.95, 0.95, True),
        (None, None, True),
        ([], None, False),
        ({"a": 1}, {"a": 1}, True),
        ({1: "x", "a": "y"}, {"a": 1}, False),
    ],
)
def test_at_default_compares_plain_data_with_types_apart(value, default, same):
    assert S.at_default(value, default) is same


@pytest.mark.parametrize("scores", [["seqeval"], ["muc", "seqeval"], ["seqeval", "muc", "token"]])
def test_a_scores_list_other_than_the_default_is_signed(metric, scores):
    references, predictions = corpus(4)
    omitted = metric.compute(predictions=predictions, references=references)["signature"]
    given = metric.compute(predictions=predictions, references=references, scores=scores)["signature"]
    assert given != omitted and "|sc:(" in given
    assert metric.options_from_signature(given) == {"scores": scores}
