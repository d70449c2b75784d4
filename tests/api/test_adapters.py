"""The river metrics and the scikit-learn scorers, against river's and by-hand values."""

import math
import pickle
import warnings

import numpy as np
import pytest
from reference_impl import brute_auc
from river import evaluate, linear_model, metrics, preprocessing
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score

import hmeasure_stream as hs
from hmeasure_stream import InvertedScoresWarning, h_measure, partial_auc
from hmeasure_stream.river import ROCAUC, HMeasure
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
