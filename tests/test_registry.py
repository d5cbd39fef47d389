"""A family is one module: a family declared here, and nowhere else, appears in compute, the card's
Returns, the reserved keys, the signature, slices with intervals, the exact state and several
golds; every path that cannot serve it says so by name; a family missing a part is refused with
the part named."""

import dataclasses

import pytest

from conftest import METRIC_PATH
from ner_recall.core import registry
from ner_recall.core.vocabulary import prf_scores
from ner_recall.pipeline.options import card_family_args, card_returns

NAME = "starts"


@pytest.fixture(scope="module")
def spans_metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def _starts(view):
    """Entity starts, types ignored: the (sentence, offset) of each side's entities; a start found
    when one of the other side lies within ``start_window`` tokens of it."""
    window = view.options.family["start_window"]
    gold = set(zip(view.gold.sentence.tolist(), view.gold.offset.tolist()))
    pred = set(zip(view.pred.sentence.tolist(), view.pred.offset.tolist()))

    def near(start, other):
        return any((start[0], start[1] + d) in other for d in range(-window, window + 1))

    found = sum(near(g, pred) for g in gold)
    right = sum(near(p, gold) for p in pred)
    return found, right, len(gold), len(pred)


def _window(value):
    if type(value) is not int or value < 0:
        raise ValueError(f"must be an int >= 0; got {value!r}")
    return value


def _derive(counts, view):
    found, right, number, predicted = counts
    o = view.options
    scores = prf_scores(found, right, number, predicted, o.zero_division, o.beta)
    return {**scores, "correct": right, "number": number}


STARTS = registry.Family(
    NAME,
    NAME,
    _starts,
    _derive,
    returns='starts (dict, with "starts" in scores): entity starts found, types ignored.',
    supports=frozenset({"golds"}),
    options=(registry.FamilyOption("start_window", "int", 0, "tokens a start may miss by", "stw", _window),),
    module=__name__,
)


@pytest.fixture(autouse=True)
def starts_family():
    registry.register(STARTS)
    yield STARTS
    registry.unregister(NAME)


REFERENCES = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG", "O"], ["B-PER", "O", "O", "O"]]
PREDICTIONS = [["B-ORG", "I-ORG", "O", "O"], ["O", "O", "B-ORG", "O"], ["B-PER", "O", "B-LOC", "O"]]


def expected(references, predictions):
    """The family's numbers by hand: starts of entities as (sentence, token)."""

    def starts(side):
        return {(i, j) for i, tags in enumerate(side) for j, t in enumerate(tags) if t.startswith("B-")}

    gold, pred = starts(references), starts(predictions)
    hits = len(gold & pred)
    p, r = hits / len(pred), hits / len(gold)
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r), "correct": hits, "number": len(gold)}


def test_compute_scores_the_family_and_names_it_among_the_choices(metric):
    results = metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=["seqeval", NAME])
    assert results[NAME] == pytest.approx(expected(REFERENCES, PREDICTIONS))
    assert "muc" not in results and "overall_f1" in results
    with pytest.raises(ValueError, match=r"scores must be a subset of \[.*'starts'\]; got 'start'"):
        metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=["start"])


def test_the_card_lists_what_it_returns_and_its_key_is_reserved(metric):
    assert STARTS.returns in card_returns()
    assert (
        "start_window (int, default 0; with 'starts' in scores): tokens a start may miss by."
        in card_family_args()
    )
    assert card_returns().index("muc (dict") < card_returns().index("starts (dict")  # in result order
    with pytest.raises(ValueError, match="entity type 'starts' .* collides with a result key"):
        metric.compute(predictions=[["B-starts"]], references=[["B-starts"]])


def test_its_option_is_checked_signed_and_given_back(metric):
    """start_window=1: the ORG started one token late counts; the option is signed by its code,
    read back, refused with a bad value and refused where its family does not run."""
    wide = metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=[NAME], start_window=1)
    exact = metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=[NAME])
    assert (exact[NAME]["correct"], wide[NAME]["correct"]) == (2, 3)
    assert "stw:1" in wide["signature"] and "stw" not in exact["signature"]
    assert metric.options_from_signature(wide["signature"]) == {"scores": [NAME], "start_window": 1}
    with pytest.raises(ValueError, match=r"start_window: must be an int >= 0; got -1"):
        metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=[NAME], start_window=-1)
    with pytest.raises(ValueError, match=r"start_window=1 changes nothing here: it needs 'starts' in scores"):
        metric.compute(predictions=PREDICTIONS, references=REFERENCES, start_window=1)
    with pytest.raises(ValueError, match=r"unknown compute option 'start_windows'"):
        metric.compute(predictions=PREDICTIONS, references=REFERENCES, start_windows=1)


def test_no_family_code_is_a_table_options_code():
    from ner_recall.pipeline import signature as S

    for name, (_, option) in registry.family_options().items():
        assert option.code not in S.CODES.values(), name
        assert S.code_of(name) == option.code


def test_the_signature_names_it_and_gives_it_back(metric):
    results = metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=[NAME])
    options = metric.options_from_signature(results["signature"])
    assert options["scores"] == [NAME]
    again = metric.compute(predictions=PREDICTIONS, references=REFERENCES, **options)
    assert again[NAME] == results[NAME]


def test_slices_with_intervals_score_it_per_slice(metric):
    slices = ["a", "b", "a"]
    results = metric.compute(
        predictions=PREDICTIONS,
        references=REFERENCES,
        scores=["seqeval", NAME],
        slices=slices,
        ci_resamples=50,
    )
    for value in ("a", "b"):
        keep = [i for i, s in enumerate(slices) if s == value]
        alone = (
            expected([REFERENCES[i] for i in keep], [PREDICTIONS[i] for i in keep]) if value == "a" else None
        )
        got = results["slices"]["slice"]["values"][value]
        assert NAME in got and "intervals" in got
        if alone is not None:
            assert got[NAME] == pytest.approx(alone)
    assert "overall_f1" in results["intervals"]  # the interval families keep theirs
    assert not any(name.startswith(NAME) for name in results["intervals"])  # none claimed for it


def test_the_exact_state_serves_it_and_the_counts_state_refuses_it_by_name(metric):
    state = metric.state(predictions=PREDICTIONS[:2], references=REFERENCES[:2], scores=[NAME])
    state = state + metric.state(
        predictions=PREDICTIONS[2:], references=REFERENCES[2:], first_sentence=2, scores=[NAME]
    )
    assert metric.finalize(state)[NAME] == pytest.approx(expected(REFERENCES, PREDICTIONS))
    with pytest.raises(
        ValueError,
        match=r"keep='counts' holds the counts of \['seqeval', 'muc'\]; scores asks for \['starts'\]",
    ):
        metric.state(predictions=PREDICTIONS, references=REFERENCES, scores=[NAME], keep="counts")


def test_several_golds_serve_it_where_it_says_so(metric):
    golds = {"a": REFERENCES, "b": PREDICTIONS}
    results = metric.compute_golds(predictions=PREDICTIONS, references=golds, scores=[NAME])
    assert results["golds"]["a"][NAME] == pytest.approx(expected(REFERENCES, PREDICTIONS))
    assert results["golds"]["b"][NAME]["f1"] == 1.0
    registry.unregister(NAME)
    registry.register(dataclasses.replace(STARTS, supports=frozenset()))
    with pytest.raises(
        ValueError, match=r"compute_golds does not serve the 'starts' family \(it does not support 'golds'\)"
    ):
        metric.compute_golds(predictions=PREDICTIONS, references=golds, scores=[NAME])


def test_discontinuous_entities_are_refused_by_a_family_that_does_not_read_fragments(spans_metric):
    entity = {"label": "ADR", "start": 0, "end": 5, "fragments": [[0, 2], [4, 5]]}
    with pytest.raises(
        ValueError, match=r"several fragments, which the 'starts' family \(contiguous spans only\)"
    ):
        spans_metric.compute(predictions=[[entity]], references=[[entity]], scores=[NAME])


def test_intervals_are_claimed_only_from_the_count_row(metric):
    registry.unregister(NAME)
    registry.register(dataclasses.replace(STARTS, supports=frozenset({"intervals"})))
    with pytest.raises(
        registry.RegistryError, match="family 'starts' supports 'intervals', but the bootstrap"
    ):
        metric.compute(predictions=PREDICTIONS, references=REFERENCES, scores=[NAME], ci_resamples=20)


@pytest.mark.parametrize(
    "change, part",
    [
        (dict(name="Starts"), "a name of lower-case letters, digits and _"),
        (dict(key=""), "a result key (or None)"),
        (dict(counts=None), "counts: a function of the view"),
        (dict(derive="f"), "derive: a function of (counts, view)"),
        (dict(returns="  "), "returns: its entry in the card"),
        (dict(supports=frozenset({"speed"})), "supports: a subset of"),
        (dict(supports=frozenset({"slices_headline"})), "headline: its F for the slices"),
        (dict(wanted=3), "wanted: a function of the view"),
        (dict(why_not={"golds": "no"}), "why_not: reasons for parts it does not support"),
        (dict(options=(registry.FamilyOption("min", "int", 0, "", "mn", int),)), "option 'min': its doc"),
        (
            dict(options=(registry.FamilyOption("min", "int", 0, "d", "", int),)),
            "option 'min': its signature code",
        ),
        (dict(options=(registry.FamilyOption("min", "int", 0, "d", "mn", None),)), "option 'min': a check"),
    ],
)
def test_a_family_missing_a_part_is_refused_naming_it(change, part):
    broken = dataclasses.replace(STARTS, **{"name": "other", "key": "other", **change})
    with pytest.raises(registry.RegistryError, match="lacks " + part.replace("(", r"\(").replace(")", r"\)")):
        registry.register(broken)
    assert "other" not in registry.selectable()


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(), "family 'starts' is registered twice"),
        (dict(name="other", key="muc"), "the result key 'muc' is another family's"),
        (
            dict(name="other", key="other", reserved=("overall_f1",)),
            "the result key 'overall_f1' is another family's",
        ),
    ],
)
def test_a_family_may_not_take_a_name_or_key_already_taken(change, words):
    with pytest.raises(registry.RegistryError, match=words):
        registry.register(dataclasses.replace(STARTS, **change))


def test_supporting_names_the_paths_it_knows():
    assert registry.supporting("intervals") == registry.supporting("counts_state") == ("seqeval", "muc")
    assert registry.supporting("golds")[-1] == NAME
    with pytest.raises(ValueError, match="'speed' is none of"):
        registry.supporting("speed")
