"""Parity with the seqeval and nervaluate packages, on tricky cases and seeded random corpora."""

import math
import random
import warnings

import pytest
from nervaluate import Evaluator
from seqeval import scheme as seqeval_scheme
from seqeval.metrics import accuracy_score, classification_report

from ner_recall.core import decoding as D
from ner_recall.core import tags as T

MUC_KEYS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")
NERVALUATE_MODE = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}


def seqeval_results(references, predictions, mode=None, scheme=None, suffix=False, zero_division=0):
    """What evaluate's seqeval metric returns, plus the macro and weighted averages it drops."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = classification_report(
            references,
            predictions,
            suffix=suffix,
            output_dict=True,
            mode=mode,
            scheme=getattr(seqeval_scheme, scheme) if scheme else None,
            zero_division=zero_division,
        )
    averages = {name: report.pop(f"{name} avg") for name in ("micro", "macro", "weighted")}
    results = {
        t: {"precision": s["precision"], "recall": s["recall"], "f1": s["f1-score"], "number": s["support"]}
        for t, s in report.items()
    }
    for ours, theirs in (("overall", "micro"), ("macro", "macro"), ("weighted", "weighted")):
        for key, name in (("precision", "precision"), ("recall", "recall"), ("f1", "f1-score")):
            results[f"{ours}_{key}"] = averages[theirs][name]
    results["overall_accuracy"] = accuracy_score(references, predictions)
    return results


def assert_seqeval_parity(metric, references, predictions, *, core=False, **options):
    """Our keys against seqeval's; ``core=True`` calls ``_compute`` itself, without evaluate's cache."""
    score = metric._compute if core else metric.compute
    ours = score(predictions=predictions, references=references, **options)
    theirs = seqeval_results(references, predictions, **options)
    for key, value in theirs.items():
        if isinstance(value, dict):
            assert ours[key]["number"] == value["number"], key
            for k in ("precision", "recall", "f1"):
                assert ours[key][k] == pytest.approx(value[k], abs=1e-9), (key, k)
        elif not math.isnan(value):  # seqeval's macro average of no type is nan
            assert ours[key] == pytest.approx(value, abs=1e-9), key
    types = {k for k, v in ours.items() if isinstance(v, dict) and k not in ("muc", "decoding")}
    assert types == {k for k, v in theirs.items() if isinstance(v, dict)}


TRICKY = [
    ("all O", [["O", "O"], ["O"]], [["O", "O"], ["O"]]),
    ("empty sentences", [[], ["B-PER"], []], [[], ["B-PER"], []]),
    ("I after O", [["O", "I-PER", "I-PER"]], [["O", "B-PER", "I-PER"]]),
    ("type change inside", [["B-PER", "I-LOC", "I-LOC"]], [["B-PER", "I-PER", "I-LOC"]]),
    ("B after B", [["B-PER", "B-PER", "I-PER"]], [["B-PER", "I-PER", "I-PER"]]),
    ("nothing predicted", [["B-PER", "O"], ["B-LOC"]], [["O", "O"], ["O"]]),
    ("only spurious", [["O", "O"]], [["B-PER", "O"]]),
    ("hyphenated types", [["B-MISC-X", "I-MISC-X"]], [["B-MISC-X", "B-MISC-X"]]),
    ("IOBES tags, lenient", [["B-PER", "E-PER", "S-LOC"]], [["S-PER", "E-PER", "S-LOC"]]),
    ("entity at the end", [["O", "B-PER"]], [["O", "I-PER"]]),
    ("single tokens", [["B-A"], ["I-A"], ["O"]], [["I-A"], ["B-A"], ["B-B"]]),
]


@pytest.mark.parametrize("zero_division", [0, 1])
@pytest.mark.parametrize("name, references, predictions", TRICKY, ids=[t[0] for t in TRICKY])
def test_seqeval_parity_on_tricky_cases(metric, name, references, predictions, zero_division):
    assert_seqeval_parity(metric, references, predictions, zero_division=zero_division)


STRICT_TRICKY = [
    ("IOB2", [["I-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "B-LOC"]]),
    ("IOB1", [["I-PER", "B-PER", "O"]], [["I-PER", "I-PER", "O"]]),
    ("IOE1", [["I-PER", "E-PER", "I-PER"]], [["I-PER", "I-PER", "I-PER"]]),
    ("IOE2", [["I-PER", "E-PER", "O"]], [["I-PER", "I-PER", "O"]]),
    ("IOBES", [["B-PER", "E-PER", "S-LOC"]], [["B-PER", "I-PER", "S-LOC"]]),
    ("BILOU", [["B-PER", "L-PER", "U-LOC"]], [["U-PER", "L-PER", "U-LOC"]]),
]


@pytest.mark.parametrize("scheme, references, predictions", STRICT_TRICKY, ids=[t[0] for t in STRICT_TRICKY])
def test_seqeval_strict_parity_on_tricky_cases(metric, scheme, references, predictions):
    assert_seqeval_parity(metric, references, predictions, mode="strict", scheme=scheme)


def test_seqeval_parity_with_suffix_tags(metric):
    references = [["PER-B", "PER-I", "O", "LOC-S"]]
    predictions = [["PER-B", "O", "O", "LOC-S"]]
    assert_seqeval_parity(metric, references, predictions, suffix=True)


def random_corpus(seed, n_sentences, prefixes="OOOBI", types="ABCD", max_len=15):
    """References with ill-formed transitions and predictions that perturb them."""
    rng = random.Random(seed)

    def tag():
        p = rng.choice(prefixes)
        return "O" if p == "O" else f"{p}-{rng.choice(types)}"

    references, predictions = [], []
    for _ in range(n_sentences):
        ref = [tag() for _ in range(rng.randint(0, max_len))]
        references.append(ref)
        predictions.append([t if rng.random() < 0.7 else tag() for t in ref])
    return references, predictions


@pytest.mark.parametrize("zero_division", [0, 1])
@pytest.mark.parametrize("seed", range(3))
def test_seqeval_parity_on_random_corpora(metric, seed, zero_division):
    references, predictions = random_corpus(seed, 2000, prefixes="OOOBIES")
    assert_seqeval_parity(metric, references, predictions, zero_division=zero_division)


@pytest.mark.parametrize("scheme", sorted(set(D.SCHEMES) - {"IO"}))  # seqeval has no IO
def test_seqeval_strict_parity_on_random_corpora(metric, scheme):
    references, predictions = random_corpus(scheme, 2000, prefixes="OO" + T.ALLOWED_PREFIXES[scheme])
    assert_seqeval_parity(metric, references, predictions, mode="strict", scheme=scheme)


def test_seqeval_parity_per_sentence(metric):
    references, predictions = random_corpus(11, 300, max_len=8)
    for ref, pred in zip(references, predictions):
        if ref:
            assert_seqeval_parity(metric, [ref], [pred], core=True)


# ---------------------------------------------------------------------------- nervaluate


def one_to_one(metric, ref, pred, same_type=False):
    """Whether each span overlaps at most one on the other side (and, optionally, of its type)."""
    gold, guess = metric.decode(ref), metric.decode(pred)
    for side, other in ((gold, guess), (guess, gold)):
        for s in side:
            hits = [o for o in other if o.start < s.end and s.start < o.end]
            if len(hits) > 1 or (same_type and any(o.label != s.label for o in hits)):
                return False
    return True


def nervaluate_corpus(metric, seed, n, same_type=False):
    references, predictions = random_corpus(seed, 4 * n, prefixes="OOOBI", types="ABC")
    keep = [(r, p) for r, p in zip(references, predictions) if one_to_one(metric, r, p, same_type)][:n]
    assert len(keep) == n
    return [r for r, _ in keep], [p for _, p in keep]


def assert_counts_equal(ours, theirs):
    assert {k: ours[k] for k in MUC_KEYS} == {k: getattr(theirs, k) for k in MUC_KEYS}
    for k in ("precision", "recall", "f1"):
        assert ours[k] == pytest.approx(getattr(theirs, k), abs=1e-9), k


@pytest.mark.parametrize("seed", range(2))
def test_nervaluate_parity_where_spans_pair_up(metric, seed):
    references, predictions = nervaluate_corpus(metric, seed, 1200)
    muc = metric.compute(predictions=predictions, references=references)["muc"]
    theirs = Evaluator(references, predictions, tags=list("ABC"), loader="list").evaluate()["overall"]
    for mode, name in NERVALUATE_MODE.items():
        assert_counts_equal(muc[mode], theirs[name])


def test_nervaluate_per_type_parity_where_overlaps_share_a_type(metric):
    references, predictions = nervaluate_corpus(metric, 5, 1000, same_type=True)
    muc = metric.compute(predictions=predictions, references=references)["muc"]
    theirs = Evaluator(references, predictions, tags=list("ABC"), loader="list").evaluate()["entities"]
    for mode, name in NERVALUATE_MODE.items():
        for label in "ABC":
            assert_counts_equal(muc[mode]["per_type"][label], theirs[label][name])


@pytest.mark.parametrize(
    "name, gold, pred",
    [
        ("wrong type", ["B-A", "I-A", "O"], ["B-B", "I-B", "O"]),
        ("boundaries and type", ["B-A", "I-A", "I-A"], ["O", "B-B", "I-B"]),
        ("I after O", ["O", "I-A", "I-A"], ["O", "B-A", "O"]),
        ("adjacent entities", ["B-A", "B-A", "B-B"], ["B-A", "B-A", "B-A"]),
    ],
)
def test_nervaluate_parity_on_tricky_cases(metric, name, gold, pred):
    muc = metric.compute(predictions=[pred], references=[gold])["muc"]
    theirs = Evaluator([gold], [pred], tags=list("AB"), loader="list").evaluate()["overall"]
    for mode, nerval in NERVALUATE_MODE.items():
        assert_counts_equal(muc[mode], theirs[nerval])
