"""The presets against the peers' scorers run live on shared fixtures.

The scorers are read from their public repositories at test time: a directory in
``NER_PEERS_DIR`` (holding ``universal-ner``, ``GNER``, ``GoLLIE`` checkouts) or the snapshots
under ``/work/.mirror``. CI has no network but package registries, so there they skip with the
reason; nothing of their code is in this repository. EuroEval changes other installed packages,
so its reading is checked against a table derived by hand from its source, scored by seqeval live.
"""

import json
import os
import subprocess
import sys
import types

import evaluate
import pytest

from conftest import METRIC_PATH

MIRROR = "/work/.mirror"
PEERS = {
    "uniner": ("universal-ner+universal-ner", "universal-ner", "src/eval/evaluate.py"),
    "gner": ("yyDing1+GNER", "GNER", "src/gner_evaluator.py"),
    "gollie": ("hitz-zentroa+GoLLIE", "GoLLIE", "src/tasks/utils_typing.py"),
}


def peer_source(name, path=None):
    """The text of a peer's file, from NER_PEERS_DIR or the mirror; skips with the reason."""
    mirror, folder, default = PEERS[name]
    path = path or default
    root = os.environ.get("NER_PEERS_DIR")
    if root and os.path.isfile(os.path.join(root, folder, path)):
        with open(os.path.join(root, folder, path), encoding="utf-8") as handle:
            return handle.read()
    git_dir = os.path.join(MIRROR, mirror, "repo")
    if os.path.isdir(git_dir):
        shown = subprocess.run(["git", "-C", git_dir, "show", f"HEAD:{path}"], capture_output=True, text=True)
        if shown.returncode == 0:
            return shown.stdout
    pytest.skip(f"{folder}'s {path} is not here (set NER_PEERS_DIR to a checkout; CI has no network)")


def load_module(name, source, stubs=()):
    """A peer's file as a module; imports it needs only to run its own program are stubbed."""
    for stub, names in dict(stubs).items():
        module = sys.modules.setdefault(stub, types.ModuleType(stub))
        for attribute in names:
            setattr(module, attribute, None)
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, name, "exec"), module.__dict__)  # the peer's scorer, a test fixture
    return module


@pytest.fixture(scope="module")
def generated():
    return evaluate.load(METRIC_PATH, "generated")


TOKENS = [
    "John Smith met Mary Smith in Paris .".split(),
    "Paris Hilton flew to Paris and then to Paris again .".split(),
    "The U.S. Army and the army of Rome met .".split(),
    "Nothing here .".split(),
]
TAGS = [
    ["B-PER", "I-PER", "O", "B-PER", "I-PER", "O", "B-LOC", "O"],
    ["B-PER", "I-PER", "O", "O", "B-LOC", "O", "O", "O", "B-LOC", "O", "O"],
    ["B-ORG", "I-ORG", "I-ORG", "O", "O", "O", "O", "B-LOC", "O", "O"],
    ["O", "O", "O"],
]
TEXTS = [" ".join(t) for t in TOKENS]


def _spans(tags, tokens):
    from ner_recall.generated.scoring import gold_from_tags

    return gold_from_tags(tags, tokens)[1]


UNINER_OUTPUTS = [
    {"PER": '["John Smith", "mary smith", "John Smith"]', "LOC": '["Paris", "Rome"]', "ORG": "[]"},
    {"PER": '["Paris Hilton"]', "LOC": '["Paris"]', "ORG": "Sure: []"},
    {"PER": "[]", "LOC": '["Rome",]', "ORG": 'Answer: ["U.S. Army"]'},
    {"PER": '["Nobody"]', "LOC": "[]", "ORG": '["x"] and ["y"]'},
]


#: the imports UniNER's evaluate.py makes for its own program (the model), not for its scorer
UNINER_STUBS = {
    "fire": (),
    "vllm": ("LLM",),
    "src": (),
    "src.serve": (),
    "src.serve.inference": ("inference",),
}


def test_uniner_preset_is_uniner(generated):
    module = load_module("uniner_eval", peer_source("uniner"), UNINER_STUBS)
    preds, golds = [], []
    for output, text, spans in zip(UNINER_OUTPUTS, TEXTS, _spans(TAGS, TOKENS)):
        for label in ("LOC", "ORG", "PER"):
            preds.append(output[label])
            golds.append(json.dumps([text[e["start"] : e["end"]] for e in spans if e["label"] == label]))
    theirs = module.NEREvaluator().evaluate(preds, golds)
    ours = generated.compute(predictions=UNINER_OUTPUTS, references=TAGS, tokens=TOKENS, convention="uniner")
    assert ours["counts"]["predicted"] > 0
    for key in ("precision", "recall", "f1"):
        assert ours[key] == theirs[key]


GNER_OUTPUTS = [
    "John(B-PER) Smith(I-PER) met(O) Mary(B-PER) Smith(I-PER) in(O) Paris(B-LOC) .(O)",
    "Paris(B-LOC) Paris(B-PER) Hilton(I-PER) flew(O) to(O) to(O) Paris(B-LOC) then(O) Paris(B-LOC) again(O).(O)",
    "The(B-ORG) Army(I-ORG) and(O) the(O) army(O) of(O) Rome(B-person) met(O)",
    "Here(B-LOC) Nothing(O)",
]


def test_gner_preset_is_gner(generated):
    pytest.importorskip("transformers")
    module = load_module("gner_eval", peer_source("gner"))
    examples = [
        {"prediction": out, "label_list": ["LOC", "ORG", "PER"], "instance": {"words": words, "labels": tags}}
        for out, words, tags in zip(GNER_OUTPUTS, TOKENS, TAGS)
    ]
    theirs = module.NEREvaluator().evaluate(examples, tokenizer=None)
    ours = generated.compute(predictions=GNER_OUTPUTS, references=TAGS, tokens=TOKENS, convention="gner")
    assert 0 < ours["f1"] < 1
    for key in ("precision", "recall", "f1"):
        assert ours[key] == theirs[key]


GOLLIE_OUTPUTS = [
    '[PER(span="John Smith"), PER(span="john smith"), PER(span="Mary Smith"), LOC(span="Paris")]',
    '[PER(span="Paris Hilton"), LOC(span="Paris"), LOC(span="Paris"), LOC(span="Paris"), LOC(span="Paris")]',
    '[ORG(span="U.S. Army"), Vehicle(span="army"), LOC(span="Rome "), LOC(span="Berlin"), "text"]',
    "[PER(span=",
]


def test_gollie_preset_is_gollie(generated):
    typing_source = peer_source("gollie")
    scorer_source = peer_source("gollie", "src/tasks/utils_scorer.py")
    package = types.ModuleType("gollie_tasks")
    package.__path__ = []
    sys.modules["gollie_tasks"] = package
    typing_module = load_module("gollie_tasks.utils_typing", typing_source)
    scorer_module = load_module(
        "gollie_tasks.utils_scorer",
        scorer_source.replace("from .utils_typing", "from gollie_tasks.utils_typing"),
    )
    guidelines = types.ModuleType("gollie_guidelines")
    sys.modules["gollie_guidelines"] = guidelines
    body = {"__annotations__": {"span": "str"}, "__module__": "gollie_guidelines"}
    classes = {
        name: typing_module.dataclass(type(name, (typing_module.Entity,), dict(body)))
        for name in ("PER", "LOC", "ORG")
    }
    guidelines.__dict__.update(classes)
    scorer = type("Scorer", (scorer_module.SpanScorer,), {"valid_types": list(classes.values())})()
    refs, preds = [], []
    for output, text, spans in zip(GOLLIE_OUTPUTS, TEXTS, _spans(TAGS, TOKENS)):
        listed = typing_module.AnnotationList.from_output(output, "gollie_guidelines")
        preds.append(list(listed.filter_hallucinations(text)))
        refs.append([classes[e["label"]](span=text[e["start"] : e["end"]]) for e in spans])
    theirs = scorer(refs, preds)["spans"]
    ours = generated.compute(predictions=GOLLIE_OUTPUTS, references=TAGS, tokens=TOKENS, convention="gollie")
    assert 0 < ours["f1"] < 1
    assert (ours["precision"], ours["recall"], ours["f1"]) == (
        theirs["precision"],
        theirs["recall"],
        theirs["f1-score"],
    )


#: EuroEval's tags derived by hand from token_classification.extract_labels_from_generation:
#: each word of a string marks every token containing it (b- for the first word; i- only on an
#: "o" token after one of the type, the first token's neighbour being the last token)
EUROEVAL_TABLE = [
    ('{"PER": ["John Smith"], "LOC": ["Paris"]}', ["b-per", "i-per", "o", "o", "o", "o", "b-loc", "o"]),
    (
        'x {"PER": ["Paris Hilton"], "LOC": ["Paris"]} y',
        ["b-loc", "i-per", "o", "o", "b-loc", "o", "o", "o", "b-loc", "o", "o"],
    ),
    (
        "{'ORG': ['U.S. Army'], 'LOC': ['Rome'], 'BAD': ['met']}",
        ["o", "b-org", "i-org", "o", "o", "o", "o", "b-loc", "o", "o"],
    ),
    ("no json", ["o", "o", "o"]),
]


@pytest.mark.parametrize("row", range(len(EUROEVAL_TABLE)))
def test_euroeval_tags_follow_its_source(row):
    from ner_recall.generated.conventions import euroeval_tags

    output, expected = EUROEVAL_TABLE[row]
    assert euroeval_tags(TOKENS[row], output, ["LOC", "ORG", "PER"], {}) == expected


def test_euroeval_preset_is_seqeval_on_its_tags(generated):
    seqeval = pytest.importorskip("seqeval.metrics")
    outputs = [output for output, _ in EUROEVAL_TABLE]
    ours = generated.compute(predictions=outputs, references=TAGS, tokens=TOKENS, convention="euroeval")
    gold = [[t.lower() for t in tags] for tags in TAGS]
    with pytest.warns(UserWarning):
        theirs = seqeval.f1_score(gold, [tags for _, tags in EUROEVAL_TABLE])
    assert ours["micro_f1"] == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"placement": "first"}, "placement contradicts"),
        ({"matching": "normalized"}, "matching contradicts"),
        ({"output_format": "lines"}, "output_format='lines' contradicts"),
        ({"scores": ["muc"]}, "scores contradicts"),
    ],
)
def test_an_option_a_convention_fixes_is_an_error(generated, options, words):
    with pytest.raises(ValueError, match=words):
        generated.compute(
            predictions=GNER_OUTPUTS, references=TAGS, tokens=TOKENS, convention="gner", **options
        )


def test_gner_and_euroeval_need_tokens(generated):
    with pytest.raises(ValueError, match="tags with tokens"):
        generated.compute(predictions=["x"], references=[[]], texts=["x"], convention="euroeval")


def test_seqeval_chunks_are_seqeval_on_random_tags():
    """The chunk rules the EuroEval preset scores with, against seqeval itself."""
    import random

    sequence_labeling = pytest.importorskip("seqeval.metrics.sequence_labeling")
    from ner_recall.generated.conventions import seqeval_chunks

    rng = random.Random(0)
    vocab = ["o", "b-per", "i-per", "b-loc", "O", "B-PER", "I-PER", "E-PER", "S-LOC", "I-LOC", "B-LOC"]
    for _ in range(500):
        sentences = [[rng.choice(vocab) for _ in range(rng.randint(0, 6))] for _ in range(rng.randint(1, 3))]
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            assert seqeval_chunks(sentences) == set(sequence_labeling.get_entities(sentences)), sentences


def test_the_common_subsequence_is_gners_on_random_words():
    """The alignment the GNER preset uses when the words are not the tokens, against GNER's own."""
    import random

    pytest.importorskip("transformers")
    module = load_module("gner_eval", peer_source("gner"))
    from ner_recall.generated.conventions import _common_subsequence

    rng = random.Random(0)
    for _ in range(500):
        raw = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        said = [rng.choice("abcde") for _ in range(rng.randint(0, 9))]
        assert _common_subsequence(raw, said) == module.lcs_solve_fast(raw, said), (raw, said)
