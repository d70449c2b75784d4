"""The river metrics and the scikit-learn scorers, against river's and by-hand values."""

import math
import pickle
import warnings

import numpy as np
import pytest
from reference_impl import brute_auc
from river import anomaly, evaluate, linear_model, metrics, preprocessing
from river.utils import Rolling
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedKFold, cross_val_score

import hmeasure_stream as hs
from hmeasure_stream import InvertedScoresWarning, h_measure, partial_auc
from hmeasure_stream.river import ROCAUC, AveragePrecision, BrierScore, HMeasure, LogLoss
from hmeasure_stream.scorers import h_scorer, partial_auc_scorer

# ---------------------------------------------------------------------------
# river


def stream(rng, n):
    """Untied scores (continuous draws) with a signal, labels as river gives them (bools)."""
    y = rng.random(n) < 0.4
    s = rng.normal(size=n) + 0.8 * y
    return y.tolist(), s.tolist()


@pytest.mark.parametrize("window", [1, 2, 5, 50])
def test_rocauc_equals_rivers_rolling_rocauc_on_untied_scores(rng, window):
    ours, theirs = ROCAUC(window=window), metrics.RollingROCAUC(window_size=window)
    y, s = stream(rng, 400)
    compared = 0
    for k, (label, score) in enumerate(zip(y, s, strict=True)):
        ours.update(label, score)
        theirs.update(label, score)
        held = y[max(0, k + 1 - window):k + 1]
        if all(held) or not any(held):
            # river reads 0 while a class is absent; this metric nan.
            assert math.isnan(ours.get()) and theirs.get() == 0.0
            continue
        assert ours.get() == theirs.get()
        compared += 1
    assert compared > 0 if window > 1 else compared == 0


def test_river_truncates_the_half_credit_of_ties():
    # One class 0 point tied with one class 1 point: the pair counts one half.
    ours, theirs = ROCAUC(window=10), metrics.RollingROCAUC(window_size=10)
    for label, score in [(True, 0.9), (False, 0.5), (True, 0.5), (False, 0.1)]:
        ours.update(label, score)
        theirs.update(label, score)
    exact = float(brute_auc([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1]))
    assert ours.get() == exact == 0.875
    # river: the tied class 0 point gets (c + c') // 2 = (2 + 1) // 2 = 1 instead of 1.5.
    assert theirs.get() == 0.75


def test_revert_undoes_an_update_and_a_missing_point_is_a_key_error(rng):
    metric = ROCAUC()
    y, s = stream(rng, 30)
    for label, score in zip(y, s, strict=True):
        metric.update(label, score)
    before = metric.get()
    metric.update(True, 0.123)
    metric.revert(True, 0.123)
    assert metric.get() == before == float(brute_auc([int(v) for v in y], s))
    state = pickle.dumps(metric)
    with pytest.raises(KeyError, match=r"no point with y_true=1, y_score=0\.321 to remove"):
        metric.revert(True, 0.321)
    with pytest.raises(ValueError, match=r"y_true must be pos_label=True \(class 1\) or the other label False "
                       r"\(class 0\), got 'maybe'"):
        metric.update("maybe", 0.5)
    assert pickle.dumps(metric) == state


def test_dict_predictions_string_labels_and_weights():
    metric = ROCAUC(pos_val="spam")
    points = [("spam", 0.8, 2.0), ("ham", 0.3, 1.0), ("ham", 0.9, 1.0), ("spam", 0.6, 1.0)]
    for label, p, w in points:
        metric.update(label, {"spam": p, "ham": 1 - p}, w)
    expected = hs.auc(["spam", "ham", "ham", "spam"], [0.8, 0.3, 0.9, 0.6],
                      sample_weight=[2.0, 1.0, 1.0, 1.0], pos_label="spam")
    assert metric.get() == expected
    metric.update("ham", {"ham": 1.0})  # no entry for pos_val: probability 0
    assert metric.get() == hs.auc([1, 0, 0, 1, 0], [0.8, 0.3, 0.9, 0.6, 0.0],
                                  sample_weight=[2, 1, 1, 1, 1])


def test_hmeasure_with_decay_equals_weighted_h(rng):
    y, s = stream(rng, 60)
    metric = HMeasure(severity_ratio=0.5, half_life=10)
    for label, score in zip(y, s, strict=True):
        metric.update(label, score)
    ages = np.arange(len(y))[::-1]
    expected = h_measure(y, s, severity_ratio=0.5, sample_weight=2.0 ** (-ages / 10))
    assert metric.get() == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_protocol_and_clone():
    metric = HMeasure(alpha=3.0, beta=1.5, window=20, pos_val=1)
    assert metric.bigger_is_better and not metric.requires_labels and metric.works_with_weights
    assert metric.works_with(linear_model.LogisticRegression())
    assert not metric.works_with(linear_model.LinearRegression())
    assert isinstance(metric, metrics.base.BinaryMetric)
    metric.update(1, 0.9)
    fresh = metric.clone()
    assert (fresh.alpha, fresh.beta, fresh.window, fresh.pos_val) == (3.0, 1.5, 20, 1)
    assert len(fresh) == 0 and len(metric) == 1
    assert math.isnan(fresh.get())


def logistic_model():
    return preprocessing.StandardScaler() | linear_model.LogisticRegression()


def dataset(rng, n):
    x = rng.normal(size=(n, 3))
    y = (x @ np.array([1.0, -0.5, 0.25]) + rng.normal(size=n)) > 0
    return [({f"x{j}": float(v) for j, v in enumerate(row)}, bool(label))
            for row, label in zip(x, y, strict=True)]


@pytest.mark.parametrize("window", [None, 100])
def test_progressive_val_score_equals_from_scratch_values(rng, window):
    data = dataset(rng, 400)
    auc_metric = evaluate.progressive_val_score(data, logistic_model(), ROCAUC(window=window))
    h_metric = evaluate.progressive_val_score(data, logistic_model(), HMeasure(window=window))
    # The same predictions by hand: predict, then learn, point by point.
    model, labels, scores = logistic_model(), [], []
    for x, label in data:
        proba = model.predict_proba_one(x)
        if proba:  # progressive_val_score skips empty predictions, as here
            labels.append(label)
            scores.append(proba.get(True, 0.0))
        model.learn_one(x, label)
    if window is not None:
        labels, scores = labels[-window:], scores[-window:]
    assert auc_metric.get() == float(brute_auc([int(v) for v in labels], scores))
    assert h_metric.get() == pytest.approx(h_measure(labels, scores), rel=1e-12, abs=1e-15)
    if window is not None:
        theirs = evaluate.progressive_val_score(data, logistic_model(),
                                                metrics.RollingROCAUC(window_size=window))
        assert len(set(scores)) == len(scores)  # untied: river's value is exact too
        assert auc_metric.get() == theirs.get()


def test_importing_the_package_does_not_import_river():
    import subprocess
    import sys

    code = ("import sys, hmeasure_stream; import hmeasure_stream.scorers; "
            "assert 'river' not in sys.modules and 'sklearn' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------
# scikit-learn scorers


def classification(rng, n, labels=(0, 1)):
    x = rng.normal(size=(n, 2))
    y = (x[:, 0] + rng.normal(size=n)) > 0
    return x, np.where(y, labels[1], labels[0])


def by_hand(metric, x, y, cv, pos_label, **options):
    values = []
    for train, test in cv.split(x, y):
        model = clone(LogisticRegression()).fit(x[train], y[train])
        column = list(model.classes_).index(pos_label)
        values.append(metric(y[test], model.predict_proba(x[test])[:, column],
                             pos_label=pos_label, **options))
    return np.array(values)


@pytest.mark.parametrize("labels", [(0, 1), ("churn", "stay"), (-1, 1)])
def test_scorers_in_cross_val_score_equal_the_metrics_by_hand(rng, labels):
    x, y = classification(rng, 200, labels)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    got = cross_val_score(LogisticRegression(), x, y, cv=cv,
                          scoring=h_scorer(severity_ratio=0.5))
    same = by_hand(h_measure, x, y, cv, labels[1], severity_ratio=0.5)
    np.testing.assert_array_equal(got, same)
    got = cross_val_score(LogisticRegression(), x, y, cv=cv,
                          scoring=partial_auc_scorer(fpr_range=(0, 0.2), correction="mcclish"))
    same = by_hand(partial_auc, x, y, cv, labels[1], fpr_range=(0, 0.2), correction="mcclish")
    np.testing.assert_array_equal(got, same)


def test_scorer_pos_label_scores_the_named_class(rng):
    x, y = classification(rng, 200, ("churn", "stay"))
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    with warnings.catch_warnings():
        # Scoring class "churn", which the model ranks lower, is not inverted: its column is used.
        warnings.simplefilter("error", InvertedScoresWarning)
        got = cross_val_score(LogisticRegression(), x, y, cv=cv,
                              scoring=h_scorer(pos_label="churn"))
    np.testing.assert_array_equal(got, by_hand(h_measure, x, y, cv, "churn"))
    assert (got > 0).all()


# ---------------------------------------------------------------------------
# river: average precision, log loss and Brier score, against river and the windows


def probability_stream(rng, n):
    """Probabilities in [0.02, 0.98] (river's clip of the log loss never acts), ties
    (two decimals) and labels drawn from them, as river gives them (bools)."""
    p = np.round(rng.uniform(0.02, 0.98, size=n), 2)
    y = rng.uniform(size=n) < p
    return y.tolist(), p.tolist()


def window_values(metric, y, p, window, **options):
    """The package's SlidingWindow ``metric`` after every row, fed one row a call."""
    monitor = hs.SlidingWindow(window, metrics=(metric,), **options)
    return [float(monitor.update([label], [prob])[metric][0])
            for label, prob in zip(y, p, strict=True)]


ADAPTERS = {"ap": AveragePrecision, "log_loss": LogLoss, "brier": BrierScore}


@pytest.mark.parametrize("name", sorted(ADAPTERS))
@pytest.mark.parametrize("window", [None, 1, 7, 40])
def test_adapters_equal_the_sliding_window_after_every_row(rng, name, window):
    y, p = probability_stream(rng, 300)
    expected = window_values(name, y, p, window)
    metric = ADAPTERS[name](window=window)
    # river's own rolling wrapper around the metric over every point: update, then revert.
    rolled = None if window is None else Rolling(ADAPTERS[name], window_size=window)
    for k, (label, prob) in enumerate(zip(y, p, strict=True)):
        metric.update(label, prob)
        got = metric.get()
        assert got == expected[k] or (math.isnan(got) and math.isnan(expected[k]))
        if rolled is not None:
            rolled.update(label, prob)
            assert rolled.get() == got or (math.isnan(got) and math.isnan(rolled.get()))
    assert metric._tracker._check()


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_adapters_with_decay_equal_the_decayed_window(rng, name):
    y, p = probability_stream(rng, 200)
    expected = window_values(name, y, p, None, half_life=15)
    metric = ADAPTERS[name](half_life=15)
    for k, (label, prob) in enumerate(zip(y, p, strict=True)):
        metric.update(label, prob)
        assert metric.get() == pytest.approx(expected[k], rel=1e-13, nan_ok=True)


@pytest.mark.parametrize("window", [None, 25])
def test_log_loss_and_brier_equal_rivers_metrics_after_every_step(rng, window):
    y, p = probability_stream(rng, 300)
    ours_log, ours_brier = LogLoss(window=window), BrierScore(window=window)
    theirs_log, theirs_brier = metrics.LogLoss(), metrics.MSE()  # river: Brier = MSE of 0/1
    if window is not None:
        theirs_log = Rolling(metrics.LogLoss, window_size=window)
        theirs_brier = Rolling(metrics.MSE, window_size=window)
    for k, (label, prob) in enumerate(zip(y, p, strict=True)):
        ours_log.update(label, {True: prob, False: 1 - prob})
        theirs_log.update(label, {True: prob, False: 1 - prob})
        ours_brier.update(label, prob)
        theirs_brier.update(float(label), prob)
        # river's running means round at every update and revert.
        assert ours_log.get() == pytest.approx(theirs_log.get(), rel=1e-11)
        assert ours_brier.get() == pytest.approx(theirs_brier.get(), rel=1e-11, abs=1e-15)
        held = slice(0 if window is None else max(0, k + 1 - window), k + 1)
        # And the package's functions from scratch, on the points held.
        assert ours_log.get() == pytest.approx(hs.log_loss(y[held], p[held], pos_label=True),
                                               rel=1e-14)
        assert ours_brier.get() == pytest.approx(
            hs.brier_score(y[held], p[held], pos_label=True), rel=1e-14, abs=1e-16)


def test_average_precision_equals_sklearn_on_the_window(rng):
    y, p = probability_stream(rng, 200)
    metric = AveragePrecision(window=30)
    for k, (label, prob) in enumerate(zip(y, p, strict=True)):
        metric.update(label, prob)
        held = slice(max(0, k + 1 - 30), k + 1)
        if all(y[held]) or not any(y[held]):
            assert math.isnan(metric.get())
            continue
        assert metric.get() == pytest.approx(average_precision_score(y[held], p[held]),
                                             rel=1e-14)


def test_adapters_protocol_labels_weights_and_refusals():
    for cls, bigger in ((AveragePrecision, True), (LogLoss, False), (BrierScore, False)):
        metric = cls(window=5, pos_val="spam")
        assert metric.bigger_is_better is bigger and not metric.requires_labels
        assert metric.works_with(linear_model.LogisticRegression())
        assert not metric.works_with(linear_model.LinearRegression())
        assert isinstance(metric, metrics.base.BinaryMetric) and metric.works_with_weights
        metric.update("spam", {"spam": 0.8, "ham": 0.2}, 2.0)
        metric.update("ham", {"ham": 1.0})  # no entry for pos_val: probability 0
        metric.update("ham", 0.6)
        state = pickle.dumps(metric)
        with pytest.raises(KeyError, match=r"no point with y_true=1, y_score=0\.5 in the window"):
            metric.revert("spam", 0.5)
        with pytest.raises(KeyError, match=r"and weight 1\.0 in the window"):
            metric.revert("spam", 0.8)  # added with weight 2
        with pytest.raises(ValueError, match="y_true must be pos_label='spam'"):
            metric.update("eggs", 0.5)
        assert pickle.dumps(metric) == state
        assert pickle.loads(state).get() == metric.get()
        fresh = metric.clone()
        assert (fresh.window, fresh.pos_val, len(fresh)) == (5, "spam", 0)
    # The last metric of the loop, BrierScore, with the weights.
    assert metric.get() == pytest.approx(hs.brier_score(
        ["spam", "ham", "ham"], [0.8, 0.0, 0.6], sample_weight=[2, 1, 1], pos_label="spam"),
        rel=1e-15)
    assert not LogLoss().works_with(anomaly.HalfSpaceTrees())
    assert AveragePrecision().works_with(anomaly.HalfSpaceTrees())
    for bad in (1.5, -0.1, float("nan"), "0.5"):
        with pytest.raises(ValueError, match=r"y_pred must be the probability of class 1, in "
                           r"\[0, 1\]; got "):
            LogLoss().update(True, bad)


def test_log_loss_revert_is_exact():
    metric = LogLoss()
    for label, p in [(True, 0.9), (False, 0.3), (True, 0.35)]:
        metric.update(label, p)
    metric.update(False, 0.123456789)
    metric.revert(False, 0.123456789)
    # The exact sums are back to those of the three points: the value from scratch.
    assert metric.get() == hs.log_loss([1, 0, 1], [0.9, 0.3, 0.35])
    assert metric._tracker._check()
    with pytest.raises(KeyError):
        BrierScore().revert(True, 0.5)


@pytest.mark.parametrize("window", [None, 100])
def test_progressive_val_score_log_loss_equals_rivers(rng, window):
    data = dataset(rng, 300)
    ours = evaluate.progressive_val_score(data, logistic_model(), LogLoss(window=window))
    theirs = metrics.LogLoss() if window is None else Rolling(metrics.LogLoss, window)
    theirs = evaluate.progressive_val_score(data, logistic_model(), theirs)
    assert ours.get() == pytest.approx(theirs.get(), rel=1e-11)


@pytest.mark.parametrize("name", ["log_loss", "brier"])
def test_probability_adapters_with_a_time_window_equal_the_window(rng, name):
    y, p = probability_stream(rng, 120)
    steps = np.cumsum(rng.integers(0, 40, 120))  # seconds apart, some at the same time
    times = np.datetime64("2026-01-01T00:00") + steps * np.timedelta64(1, "s")
    monitor = hs.SlidingWindow("2min", metrics=(name,))
    metric = ADAPTERS[name](window="2min")
    for label, prob, time in zip(y, p, times, strict=True):
        expected = monitor.update([label], [prob], times=[time])[name][0]
        metric.update(label, prob, time=time)
        assert metric.get() == expected
    with pytest.raises(ValueError, match="time is required"):
        metric.update(True, 0.5)
