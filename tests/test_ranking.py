"""Scored predictions (the "ranking" family): average precision against scikit-learn, the curve,
the F1-optimal threshold and the calibration against direct computations, thresholds taken from a
development set (and refused from the scored set itself without the flag), token scores in the tag
configs, and errors that name the place."""

import random
import re

import numpy as np
import pytest

from conftest import METRIC_PATH, require

TYPES = ("LOC", "ORG", "PER")


@pytest.fixture(scope="module")
def spans_metric():
    import evaluate

    return evaluate.load(METRIC_PATH, "spans")


def scored_corpus(seed, n=60, ties=False):
    """Gold spans and scored predictions: exact copies, shifted ones, retyped ones, spurious ones."""
    rng = random.Random(seed)
    gold, pred = [], []
    for _ in range(n):
        g, p, at = [], [], 0
        for _ in range(rng.randint(0, 4)):
            start = at + rng.randint(0, 3)
            end = start + rng.randint(1, 4)
            at = end + 1
            label = rng.choice(TYPES)
            g.append({"label": label, "start": start, "end": end})
            r = rng.random()
            if r < 0.55:
                p.append({"label": label, "start": start, "end": end})
            elif r < 0.7:
                p.append({"label": label, "start": start, "end": end + 1})
            elif r < 0.8:
                p.append({"label": rng.choice(TYPES), "start": start, "end": end})
        if rng.random() < 0.4:
            p.append({"label": rng.choice(TYPES), "start": at + 2, "end": at + 4})
        for item in p:
            score = rng.random()
            item["score"] = round(score, 1) if ties else score
        gold.append(g)
        pred.append(p)
    return gold, pred


def right_flags(gold, pred, strict=True):
    """Each prediction's right/wrong by hand for corpora whose entities never overlap within a side:
    strict, the same span and type as a gold entity; partial, overlapping one of its type."""
    flags, scores = [], []
    for g, p in zip(gold, pred):
        for item in p:
            if strict:
                ok = any(
                    e["label"] == item["label"] and (e["start"], e["end"]) == (item["start"], item["end"])
                    for e in g
                )
            else:
                ok = any(
                    e["label"] == item["label"] and e["start"] < item["end"] and item["start"] < e["end"]
                    for e in g
                )
            flags.append(ok)
            scores.append(item["score"])
    return np.array(flags), np.array(scores)


@pytest.mark.parametrize("seed, ties", [(0, False), (1, True), (2, False), (3, True)])
def test_average_precision_and_curve_match_scikit_learn(spans_metric, seed, ties):
    require("sklearn")
    from sklearn.metrics import average_precision_score, precision_recall_curve

    gold, pred = scored_corpus(seed, ties=ties)
    out = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"])["ranking"]
    n_gold = sum(map(len, gold))
    for matching, strict in (("strict", True), ("partial", False)):
        right, scores = right_flags(gold, pred, strict)
        table = out[matching]
        reached = right.sum() / n_gold
        assert table["average_precision"] == pytest.approx(average_precision_score(right, scores), abs=1e-12)
        assert table["average_precision_gold"] == pytest.approx(
            average_precision_score(right, scores) * reached, abs=1e-12
        )
        precision, recall, thresholds = precision_recall_curve(right, scores)
        curve = table["curve"]
        assert curve["thresholds"] == thresholds[::-1].tolist()
        assert np.allclose(curve["precision"], precision[:-1][::-1])
        assert np.allclose(curve["recall"], recall[:-1][::-1] * reached)
        assert all(a <= b for a, b in zip(curve["recall"], curve["recall"][1:]))  # recall grows as t falls
        f1 = [2 * p * r / (p + r) if p + r else 0.0 for p, r in zip(curve["precision"], curve["recall"])]
        k = int(np.argmax(f1))
        assert table["best"] == {
            "threshold": curve["thresholds"][k],
            "precision": curve["precision"][k],
            "recall": curve["recall"][k],
            "f1": f1[k],
        }


def test_when_every_gold_entity_is_found_average_precision_is_scikit_learns(spans_metric):
    require("sklearn")
    from sklearn.metrics import average_precision_score

    gold = [[{"label": "PER", "start": 0, "end": 2}, {"label": "LOC", "start": 4, "end": 5}]]
    pred = [
        [
            {"label": "PER", "start": 0, "end": 2, "score": 0.6},
            {"label": "LOC", "start": 4, "end": 5, "score": 0.3},
            {"label": "ORG", "start": 7, "end": 9, "score": 0.8},
        ]
    ]
    ap = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"])["ranking"]["strict"]
    assert ap["average_precision"] == pytest.approx(average_precision_score([1, 1, 0], [0.6, 0.3, 0.8]))
    assert ap["average_precision"] == ap["average_precision_gold"] == pytest.approx(0.5 * 0.5 + 0.5 * 2 / 3)


@pytest.mark.parametrize("bins", [1, 5, 10, 15])
def test_expected_calibration_error_is_the_direct_sum(spans_metric, bins):
    gold, pred = scored_corpus(5)
    out = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"], calibration_bins=bins)
    right, scores = right_flags(gold, pred)
    ece, rows = 0.0, []
    for b in range(bins):
        lower, upper = b / bins, (b + 1) / bins
        inside = (scores >= lower) & ((scores < upper) if b < bins - 1 else (scores <= upper))
        if inside.any():
            ece += inside.sum() / len(scores) * abs(right[inside].mean() - scores[inside].mean())
            rows.append((int(inside.sum()), right[inside].mean(), scores[inside].mean()))
    table = out["ranking"]["strict"]
    assert table["ece"] == pytest.approx(ece, abs=1e-12)
    assert [(r["count"], r["accuracy"]) for r in table["reliability"]] == [
        (c, pytest.approx(a)) for c, a, _ in rows
    ]
    assert sum(r["count"] for r in table["reliability"]) == len(scores)


def test_per_type_tables_split_the_predictions(spans_metric):
    gold, pred = scored_corpus(7)
    out = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"])["ranking"]["strict"]
    assert sum(t["predicted"] for t in out["per_type"].values()) == out["predicted"]
    assert sum(t["number"] for t in out["per_type"].values()) == out["number"]
    for name, table in out["per_type"].items():
        kept = [[e for e in p if e["label"] == name] for p in pred]
        wanted = [[e for e in g if e["label"] == name] for g in gold]
        alone = spans_metric.compute(predictions=kept, references=wanted, scores=["ranking"])["ranking"][
            "strict"
        ]
        assert table["average_precision"] == pytest.approx(alone["average_precision"])
        assert table["average_precision_gold"] == pytest.approx(alone["average_precision_gold"])


def test_order_of_entities_changes_nothing(spans_metric):
    gold, pred = scored_corpus(9)
    shuffled = [random.Random(i).sample(p, len(p)) for i, p in enumerate(pred)]
    a = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"])["ranking"]
    b = spans_metric.compute(predictions=shuffled, references=gold, scores=["ranking"])["ranking"]
    assert a == b


def test_threshold_from_a_development_set(spans_metric):
    dev_gold, dev_pred = scored_corpus(11)
    test_gold, test_pred = scored_corpus(12)
    dev = spans_metric.compute(predictions=dev_pred, references=dev_gold, scores=["ranking"])
    threshold = dev["ranking"]["strict"]["best"]["threshold"]
    out = spans_metric.compute(
        predictions=test_pred, references=test_gold, scores=["ranking"], threshold_from=dev
    )
    assert out["ranking"]["threshold"] == threshold
    for matching, strict in (("strict", True), ("partial", False)):
        right, scores = right_flags(test_gold, test_pred, strict)
        kept = scores >= threshold
        applied = out["ranking"][matching]["applied"]
        assert applied["predicted"] == kept.sum()
        assert applied["precision"] == pytest.approx((right & kept).sum() / kept.sum())
        assert applied["recall"] == pytest.approx((right & kept).sum() / sum(map(len, test_gold)))


def test_a_threshold_chosen_on_the_scored_set_needs_the_flag(spans_metric):
    gold, pred = scored_corpus(13)
    own = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"])
    shuffled = [list(reversed(p)) for p in pred]  # the same set in another order is the same set
    for predictions in (pred, shuffled):
        with pytest.raises(ValueError, match="threshold_from holds the results of this very set"):
            spans_metric.compute(
                predictions=predictions, references=gold, scores=["ranking"], threshold_from=own
            )
    out = spans_metric.compute(
        predictions=pred,
        references=gold,
        scores=["ranking"],
        threshold_from=own,
        threshold_on_scored_set=True,
    )
    assert out["ranking"]["strict"]["applied"]["f1"] == pytest.approx(own["ranking"]["strict"]["best"]["f1"])
    # the metric is still usable after the refusal
    assert spans_metric.compute(predictions=pred, references=gold, scores=["ranking"]) == own


def test_token_scores_in_the_tag_configs(metric):
    references = [["B-PER", "I-PER", "O", "B-LOC"], ["B-ORG", "O"]]
    predictions = [["B-PER", "I-PER", "O", "B-ORG"], ["B-ORG", "O"]]
    token_scores = [[0.9, 0.7, 0.99, 0.4], [0.6, 0.1]]
    out = metric.compute(
        predictions=predictions,
        references=references,
        scores=["seqeval", "ranking"],
        token_scores=token_scores,
    )["ranking"]["strict"]
    # entities: PER (mean 0.8, right), ORG (0.4, wrong), ORG (0.6, right)
    assert out["curve"] == {
        "thresholds": [0.8, 0.6, 0.4],
        "precision": [1.0, 1.0, 2 / 3],
        "recall": [1 / 3, 2 / 3, 2 / 3],
    }


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(scores=["ranking"]), r"reads token_scores="),
        (dict(token_scores=[[0.5]]), r"token_scores=.* changes nothing here: it needs 'ranking' in scores"),
        (dict(scores=["ranking"], token_scores=[[0.5, 0.5]]), r"token_scores\[0\] must hold 1 numbers"),
        (
            dict(scores=["ranking"], token_scores=[[1.5]]),
            r"token_scores\[0\]\[0\] is 1.5; a token score is a number in \[0, 1\]",
        ),
        (dict(scores=["ranking"], token_scores=[["x"]]), r"token_scores\[0\]\[0\] is 'x'"),
        (
            dict(scores=["ranking"], token_scores=[[0.5]], calibration_bins=0),
            r"calibration_bins must be an int",
        ),
        (
            dict(scores=["ranking"], token_scores=[[0.5]], threshold_from={"x": 1}),
            r"threshold_from must be the results",
        ),
        (
            dict(scores=["ranking"], token_scores=[[0.5]], threshold_on_scored_set=True),
            r"changes nothing here: it needs threshold_from",
        ),
    ],
)
def test_ranking_errors_in_the_tag_configs(metric, options, message):
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=[["B-PER"]], references=[["B-PER"]], **options)


@pytest.mark.parametrize(
    "item, message",
    [
        (
            {"label": "PER", "start": 0, "end": 2, "score": 1.2},
            r"predictions\[0\]\[0\] .*: score must be a number in \[0, 1\]",
        ),
        (
            {"label": "PER", "start": 0, "end": 2, "score": "high"},
            r"predictions\[0\]\[0\] .*: score must be a number",
        ),
        (
            {"label": "PER", "start": 0, "end": 2, "score": float("nan")},
            r"score must be a number in \[0, 1\]",
        ),
        ({"label": "PER", "start": 0, "end": 2, "score": True}, r"score must be a number"),
        ({"label": "PER", "start": 0, "end": 2}, r"predictions\[0\]\[0\] .*: missing key 'score'"),
    ],
)
def test_scored_span_errors_name_the_place(spans_metric, item, message):
    gold = [[{"label": "PER", "start": 0, "end": 2}]]
    with pytest.raises(ValueError, match=message):
        spans_metric.compute(predictions=[[item]], references=gold, scores=["ranking"])


def test_a_score_without_the_family_is_refused_with_the_way_to_use_it(spans_metric):
    gold = [[{"label": "PER", "start": 0, "end": 2}]]
    with pytest.raises(ValueError, match=r"unknown key 'score'.*scores=\[\.\.\., 'ranking'\]"):
        spans_metric.compute(
            predictions=[[{"label": "PER", "start": 0, "end": 2, "score": 0.5}]], references=gold
        )


def test_types_drop_the_scores_of_unselected_predictions(spans_metric):
    gold, pred = scored_corpus(15)
    out = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"], types=["PER"])[
        "ranking"
    ]
    kept = [[e for e in p if e["label"] == "PER"] for p in pred]
    wanted = [[e for e in g if e["label"] == "PER"] for g in gold]
    alone = spans_metric.compute(predictions=kept, references=wanted, scores=["ranking"])["ranking"]
    assert out["strict"]["curve"] == alone["strict"]["curve"]


# ---------------------------------------------------------------------------- boundaries and hostile input


def tie_corpus():
    """15 gold entities; 12 predictions at 0.9 (9 right), 3 more at 0.5 (1 right): F1 is 2/3 at both
    thresholds (18/27 and 20/30), which floats round apart."""
    gold = [[{"label": "A", "start": 0, "end": 1}] for _ in range(15)]
    pred = []
    for k in range(15):
        at_09, right = k < 12, (k < 9) or k == 12
        start = 0 if right else 2
        pred.append([{"label": "A", "start": start, "end": start + 1, "score": 0.9 if at_09 else 0.5}])
    return gold, pred


def test_exact_ties_go_to_the_highest_threshold(spans_metric):
    gold, pred = tie_corpus()
    best = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"])["ranking"]["strict"]
    assert best["curve"]["thresholds"] == [0.9, 0.5]
    assert best["best"]["best" if False else "threshold"] == 0.9
    assert best["best"]["f1"] == pytest.approx(2 / 3) and best["best"]["precision"] == 0.75


@pytest.mark.parametrize(
    "tp, kept, n_gold, beta, expected",
    [
        ([9, 10], [12, 15], 15, 1.0, 0),  # 18/27 == 20/30: the higher threshold
        ([9, 11], [12, 15], 15, 1.0, 1),  # 22/30 > 18/27
        ([1, 2, 3], [1, 2, 3], 3, 1.0, 2),  # rising to the lowest threshold
        ([0, 0], [1, 2], 4, 1.0, 0),  # F 0 everywhere: the highest threshold
        ([2, 3], [2, 6], 3, 2.0, 1),  # beta 2: 5*2/(4*3+2)=10/14 < 5*3/(12+6)=15/18
        ([2, 3], [2, 6], 3, 0.5, 0),  # beta 1/2: 1.25*2/(0.75+2) > 1.25*3/(0.75+6)
        ([1, 2], [1, 4], 2, 1.0, 0),  # 2/3 == 4/6
    ],
)
def test_best_index_by_hand(tp, kept, n_gold, beta, expected):
    from ner_recall.families import ranking as R

    assert R.best_index(tp, kept, n_gold, beta) == expected


def test_best_threshold_is_the_exact_maximum_on_random_sets():
    from fractions import Fraction

    from ner_recall.families import ranking as R

    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        scores = np.round(rng.random(n), 1)
        right = rng.random(n) < 0.6
        n_gold = int(right.sum() + rng.integers(0, 5))
        thresholds, tp, kept = R._counts(scores, right, None)
        exact = [Fraction(2 * int(t), n_gold + int(k)) for t, k in zip(tp, kept)]
        top = max(exact)
        table = R.ranking_table(scores, right, n_gold)
        expected = thresholds[exact.index(top)] if top else thresholds[0]
        assert table["best"]["threshold"] == expected


@pytest.mark.parametrize("bins", [1, 2, 3, 10, 1000])
def test_a_score_of_one_lands_in_the_last_bin(bins):
    from ner_recall.families import ranking as R

    scores = np.array([1.0, 1.0 - 1e-12, 0.0])
    table = R.calibration(scores, np.array([True, True, False]), bins)
    rows = [(row["lower"], row["upper"], row["count"]) for row in table["reliability"]]
    if bins == 1:
        assert rows == [(0.0, 1.0, 3)]
    else:
        assert rows == [(0.0, 1 / bins, 1), ((bins - 1) / bins, 1.0, 2)]
    assert len(R.calibration(np.ones(4), np.ones(4, dtype=bool), bins)["reliability"]) == 1


@pytest.mark.parametrize(
    "scores, right, bins, rows",
    [
        (
            [0.05, 0.15, 0.95],
            [True, False, True],
            10,
            [(0, 1, 0.05, 1.0), (1, 1, 0.15, 0.0), (9, 1, 0.95, 1.0)],
        ),
        ([0.5, 0.5, 0.25], [True, False, False], 2, [(0, 1, 0.25, 0.0), (1, 2, 0.5, 0.5)]),
    ],
)
def test_reliability_rows_by_hand(scores, right, bins, rows):
    from ner_recall.families import ranking as R

    table = R.calibration(np.array(scores), np.array(right), bins)
    assert [
        (r["lower"], r["upper"], r["count"], r["confidence"], r["accuracy"]) for r in table["reliability"]
    ] == [(b / bins, (b + 1) / bins, c, conf, acc) for b, c, conf, acc in rows]
    n = len(scores)
    assert table["ece"] == pytest.approx(sum(c / n * abs(acc - conf) for _, c, conf, acc in rows))


def dev_results(threshold, fingerprint="f" * 40):
    return {"ranking": {"fingerprint": fingerprint, "strict": {"best": {"threshold": threshold}}}}


@pytest.mark.parametrize(
    "value, message",
    [
        (dev_results(float("nan")), r"threshold_from: .*must be a number in \[0, 1\]; got nan"),
        (dev_results(5.0), r"threshold_from: .*got 5.0"),
        (dev_results(float("-inf")), r"threshold_from: .*got -inf"),
        (dev_results(-0.1), r"threshold_from: .*got -0.1"),
        (dev_results(True), r"threshold_from: .*got True"),
        (dev_results("0.5"), r"threshold_from: .*got '0.5'"),
        (dev_results([0.5]), r"threshold_from: .*got \[0.5\]"),
        (dev_results(None), r"threshold_from: those results have no threshold"),
        (dev_results(0.5, fingerprint=3), r"threshold_from must be .*\['fingerprint'\] must be a str"),
        ({"ranking": {"fingerprint": "f", "strict": None}}, r"threshold_from must be .*is missing"),
        ({"ranking": {"fingerprint": "f", "strict": {"best": 0.5}}}, r"threshold_from must be .*is missing"),
        ({"ranking": {"fingerprint": "f", "strict": {}}}, r"threshold_from must be .*is missing"),
        ({"ranking": {"fingerprint": "f", "strict": {"best": {}}}}, r"threshold_from must be .*is missing"),
        ({"ranking": {"strict": {}}}, r"threshold_from must be the results"),
        ({"ranking": {"fingerprint": "f"}}, r"threshold_from must be the results"),
        ({"ranking": []}, r"threshold_from must be the results"),
        ([("ranking", 1)], r"threshold_from must be the results"),
    ],
)
def test_malformed_threshold_from_is_refused(spans_metric, value, message):
    gold, pred = tie_corpus()
    with pytest.raises(ValueError, match=message):
        spans_metric.compute(predictions=pred, references=gold, scores=["ranking"], threshold_from=value)
    again = spans_metric.compute(predictions=pred, references=gold, scores=["seqeval", "ranking"])
    assert again["overall_f1"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "threshold, kept", [(0.0, 15), (1.0, 0), (0.5, 15), (0.9, 12), (np.float64(0.7), 12)]
)
def test_threshold_from_bounds_apply(spans_metric, threshold, kept):
    gold, pred = tie_corpus()
    out = spans_metric.compute(
        predictions=pred, references=gold, scores=["ranking"], threshold_from=dev_results(threshold)
    )["ranking"]
    assert out["threshold"] == threshold and out["strict"]["applied"]["predicted"] == kept


def test_per_type_tables_with_many_types_are_each_types_own():
    """Grouping by type (two sorts) gives each type its predictions in input order and by score."""
    from ner_recall.families import ranking as R

    rng = np.random.default_rng(3)
    kinds = rng.integers(0, 50, 400)
    scores = np.round(rng.random(400), 2)
    order = np.argsort(-scores, kind="stable")
    members, orders = R.group_by_type(kinds, order, 52)
    for k in range(52):
        assert members[k].tolist() == np.flatnonzero(kinds == k).tolist()
        local = scores[members[k]]
        assert orders[k].tolist() == np.argsort(-local, kind="stable").tolist()


# ---------------------------------------------------------------------------- what mutation left alive


def _ranking():
    from ner_recall.families import ranking as R

    return R


@pytest.mark.parametrize(
    "token_scores, lengths, message",
    [
        ("0.5", [1], "token_scores must be a list with one list of numbers per sentence; got str"),
        ({"a": 1}, [1], "token_scores must be a list with one list of numbers per sentence; got dict"),
        ([[0.5]], [1, 2], "token_scores has 1 sentences but predictions has 2"),
        ([[0.5], [0.5]], [1, 2], "token_scores[1] must hold 2 numbers, one per tag"),
        ([[0.5], 0.5], [1, 1], "token_scores[1] must hold 1 numbers, one per tag"),
        ([[0.5, True]], [2], "token_scores[0][1] is True; a token score is a number in [0, 1]"),
        ([[0.5, float("nan")]], [2], "token_scores[0][1] is nan; a token score is a number in [0, 1]"),
        ([[1.0000001]], [1], "token_scores[0][0] is 1.0000001; a token score is a number in [0, 1]"),
        ([[-0.01]], [1], "token_scores[0][0] is -0.01; a token score is a number in [0, 1]"),
        ([[0.5], ["0.5"]], [1, 1], "token_scores[1][0] is '0.5'; a token score is a number in [0, 1]"),
        ([[None]], [1], "token_scores[0][0] is None; a token score is a number in [0, 1]"),
        ([np.array([0.5, 2.0])], [2], "token_scores[0][1] is 2.0; a token score is a number in [0, 1]"),
        ([np.array([0.5, 0.5])], [3], "token_scores[0] must hold 3 numbers, one per tag"),
        (
            [np.array([[0.5, 0.5]])],
            [1],
            "token_scores[0][0] is [0.5, 0.5]; a token score is a number in [0, 1]",
        ),
        ([np.array(["a"])], [1], "token_scores[0][0] is 'a'; a token score is a number in [0, 1]"),
    ],
)
def test_token_score_errors_are_whole_and_placed(token_scores, lengths, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        _ranking().check_token_scores(token_scores, lengths)


@pytest.mark.parametrize(
    "token_scores, lengths, flat",
    [
        ([[0.5, 1.0], [0.25]], [2, 1], [0.5, 1.0, 0.0, 0.25, 0.0]),
        ([(0, 1), []], [2, 0], [0.0, 1.0, 0.0, 0.0]),
        ([[np.float32(0.5)], [np.int64(1)]], [1, 1], [0.5, 0.0, 1.0, 0.0]),
        ([np.array([0.5, 1.0]), np.array([0, 1])], [2, 2], [0.5, 1.0, 0.0, 0.0, 1.0, 0.0]),
        ([np.array([0.0], dtype=np.float32), np.array([1], dtype=np.uint8)], [1, 1], [0.0, 0.0, 1.0, 0.0]),
        ([], [], []),
    ],
)
def test_token_scores_in_the_corpus_layout(token_scores, lengths, flat):
    got = _ranking().check_token_scores(token_scores, lengths)
    assert got.dtype == np.float64 and got.tolist() == flat


def test_an_empty_or_unscored_table_by_hand():
    R = _ranking()
    empty = R.ranking_table(np.zeros(0), np.zeros(0, dtype=bool), n_gold=3, bins=4)
    assert empty == {
        "average_precision": 0.0,
        "average_precision_gold": 0.0,
        "best": {"threshold": None, "precision": 0.0, "recall": 0.0, "f1": 0.0},
        "predicted": 0,
        "number": 3,
        "ece": 0.0,
        "reliability": [],
        "curve": {"thresholds": [], "precision": [], "recall": []},
    }
    wrong = R.ranking_table(
        np.array([0.8, 0.3]), np.array([False, False]), n_gold=2, bins=2, with_curve=False
    )
    assert wrong["average_precision"] == 0.0 and wrong["average_precision_gold"] == 0.0
    assert (
        wrong["best"] == {"threshold": 0.8, "precision": 0.0, "recall": 0.0, "f1": 0.0}
        and "curve" not in wrong
    )
    no_gold = R.ranking_table(np.array([0.8]), np.array([False]), n_gold=0, bins=2)
    assert no_gold["curve"]["recall"] == [0.0] and no_gold["best"]["f1"] == 0.0 and no_gold["number"] == 0


@pytest.mark.parametrize(
    "beta, threshold, f",
    [(1.0, 0.9, 0.8), (2.0, 0.5, 5 * 3 / (4 * 3 + 6)), (0.5, 0.9, 1.25 * 2 / (0.25 * 3 + 2))],
)
def test_beta_moves_the_best_threshold(beta, threshold, f):
    """tp 2 of 2 kept at 0.9, 3 of 6 at 0.5, 3 gold: F1 0.8 and 2/3, F2 10/14 and 15/18."""
    R = _ranking()
    scores = np.array([0.9, 0.9, 0.5, 0.5, 0.5, 0.5])
    right = np.array([True, True, True, False, False, False])
    table = R.ranking_table(scores, right, n_gold=3, beta=beta)
    key = "f1" if beta == 1.0 else f"f{beta:g}".replace(".", "_") if False else list(table["best"])[-1]
    assert table["best"]["threshold"] == threshold and table["best"][key] == pytest.approx(f)
    applied = R.threshold_scores(scores, right, 3, 0.5, beta)
    assert applied["predicted"] == 6 and applied["precision"] == 0.5 and applied["recall"] == 1.0
    assert applied[key] == pytest.approx((1 + beta**2) * 0.5 / (beta**2 * 0.5 + 1))


def test_exact_ties_at_another_beta():
    """F2 = 5 tp / (4 gold + kept): 1/(12 + 3) == 2/(12 + 18) with 3 gold: the higher threshold."""
    R = _ranking()
    assert R.best_index([1, 2], [3, 18], 3, 2.0) == 0
    assert R.best_index([1, 3], [3, 18], 3, 2.0) == 1


@pytest.mark.parametrize(
    "threshold, predicted, precision, recall, f1",
    [
        (1.0, 0, 0.0, 0.0, 0.0),  # nothing kept: 0, not 0/0
        (0.9, 2, 1.0, 2 / 4, 2 / 3),
        (0.0, 3, 2 / 3, 2 / 4, 4 / 7),
    ],
)
def test_threshold_scores_by_hand(threshold, predicted, precision, recall, f1):
    R = _ranking()
    got = R.threshold_scores(np.array([0.9, 0.95, 0.1]), np.array([True, True, False]), 4, threshold)
    assert got == {"predicted": predicted, "precision": precision, "recall": recall, "f1": pytest.approx(f1)}
    assert R.threshold_scores(np.array([0.5]), np.array([True]), 0, 0.1) == {
        "predicted": 1,
        "precision": 1.0,
        "recall": 0.0,
        "f1": 0.0,
    }


@pytest.mark.parametrize(
    "bins, ok",
    [(1, True), (1000, True), (np.int64(7), True), (0, False), (1001, False), (True, False), (2.0, False)],
)
def test_calibration_bins_bounds(bins, ok):
    R = _ranking()
    if ok:
        assert R.check_bins(bins) == int(bins) and type(R.check_bins(bins)) is int
    else:
        with pytest.raises(
            ValueError, match=f"^calibration_bins must be an int from 1 to 1000; got {re.escape(repr(bins))}$"
        ):
            R.check_bins(bins)


@pytest.mark.parametrize("threshold", [1.5, 1.0000001, 2.0])
def test_a_threshold_above_one_is_refused(threshold):
    with pytest.raises(ValueError, match=r"must be a number in \[0, 1\]"):
        _ranking().check_threshold_from(dev_results(threshold))
    assert _ranking().check_threshold_from(dev_results(1.0)) == {"threshold": 1.0, "fingerprint": "f" * 40}


def test_results_without_a_threshold_are_named():
    with pytest.raises(
        ValueError, match=r"^threshold_from: those results have no threshold \(no prediction had a score\)$"
    ):
        _ranking().check_threshold_from(dev_results(None))


def test_the_ranking_block_by_hand(spans_metric):
    """The tie corpus: 15 gold of one type, the block's keys, bins and per-type table."""
    gold, pred = tie_corpus()
    out = spans_metric.compute(predictions=pred, references=gold, scores=["ranking"], calibration_bins=4)[
        "ranking"
    ]
    assert set(out) == {"bins", "fingerprint", "strict", "partial"} and out["bins"] == 4
    strict = out["strict"]
    assert strict["per_type"]["A"] == {k: v for k, v in strict.items() if k != "per_type"}
    assert strict["number"] == 15 and strict["predictions"] == 15
    assert [(r["lower"], r["upper"], r["count"]) for r in strict["reliability"]] == [
        (0.5, 0.75, 3),
        (0.75, 1.0, 12),
    ]
    assert (
        strict["reliability"][0]["accuracy"] == pytest.approx(1 / 3)
        and strict["reliability"][1]["accuracy"] == 0.75
    )
    again = spans_metric.compute(
        predictions=pred,
        references=gold,
        scores=["ranking"],
        threshold_from=dev_results(0.9, out["fingerprint"]) if False else dev_results(0.9),
    )["ranking"]
    assert again["fingerprint"] == out["fingerprint"] and again["threshold"] == 0.9
    with pytest.raises(
        ValueError,
        match="^threshold_from holds the results of this very set: a threshold chosen on the set it is scored on is optimistic; take it from a development set, or pass threshold_on_scored_set=True to do it knowingly$",
    ):
        spans_metric.compute(
            predictions=pred,
            references=gold,
            scores=["ranking"],
            threshold_from=dev_results(0.9, out["fingerprint"]),
        )


def test_per_type_tables_cover_types_with_gold_only():
    """A type with gold and no prediction has its table (recall 0); one with neither has none."""
    from types import SimpleNamespace

    from ner_recall.core.vocabulary import SpanArrays

    R = _ranking()
    z = np.zeros(3, dtype=np.int64)
    gold = SpanArrays(np.arange(3), np.arange(3) + 1, np.array([0, 1, 1]), z, np.arange(3))
    pred = SpanArrays(np.arange(1), np.arange(1) + 1, np.array([0]), z[:1], np.arange(1))
    matching = SimpleNamespace(gold=np.array([0]), pred=np.array([0]), scenario=np.array([0]))
    options = SimpleNamespace(beta=1.0, ranking={"bins": 10, "threshold_from": None, "on_scored_set": False})
    out = R.ranking_results(gold, pred, matching, ("A", "B", "C"), np.array([0.7]), options)
    assert set(out["strict"]["per_type"]) == {"A", "B"}
    assert (
        out["strict"]["per_type"]["B"]["number"] == 2 and out["strict"]["per_type"]["B"]["predictions"] == 0
    )
    assert (
        out["strict"]["per_type"]["A"]["best"]["recall"] == 1.0
        and out["strict"]["recall" if False else "best"]["recall"] == 1 / 3
    )


@pytest.mark.parametrize("row", [[0.0, 1.0, 1.5], [1.0, 0.0, -0.5]])
def test_the_bounds_of_a_token_score_are_numbers_in_it(row):
    """0 and 1 are scores: the error names the first number outside [0, 1], not them."""
    with pytest.raises(ValueError, match=r"^token_scores\[0\]\[2\] is "):
        _ranking().check_token_scores([row], [3])
