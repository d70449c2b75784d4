"""The scikit-learn-shaped displays: their lines against scikit-learn's displays and
the package's curves, for fitted estimators and for predictions."""

import matplotlib
import numpy as np
import pytest
from sklearn.calibration import CalibrationDisplay
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import (
    PrecisionRecallDisplay as SklearnPrecisionRecallDisplay,
)
from sklearn.metrics import (
    RocCurveDisplay,
    average_precision_score,
    brier_score_loss,
    roc_auc_score,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from hmeasure_stream import calibration_report, precision_recall_curve, roc_hull, roc_points
from hmeasure_stream.plotting import (
    PrecisionRecallDisplay,
    ReliabilityDisplay,
    RocDisplay,
    plot_reliability,
)

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def problem(rng, n=300, labels=(0, 1)):
    """Three features, labels from a noisy linear rule, as the given pair of labels."""
    X = rng.normal(size=(n, 3))
    y = (X @ np.array([1.0, -0.7, 0.3]) + rng.normal(size=n)) > 0
    return X, np.where(y, labels[1], labels[0])


def ece_by_hand(y, p, n_bins):
    """The ECE of uniform bins, a probability on an inner edge in the bin below."""
    index = np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], p)
    gaps = [abs(np.sum(p[index == b]) - np.sum(y[index == b])) for b in range(n_bins)]
    return float(np.sum(gaps)) / len(y)


# Each case: the estimator, the labels, the class scored (None: classes_[-1]) and the
# scores scikit-learn reads for it, by hand.
CASES = {
    "logistic": (LogisticRegression, (0, 1), None,
                 lambda model, X: model.predict_proba(X)[:, 1]),
    "svc": (LinearSVC, (0, 1), None, lambda model, X: model.decision_function(X)),
    "svc class 0": (LinearSVC, (0, 1), 0, lambda model, X: -model.decision_function(X)),
    "pipeline": (lambda: make_pipeline(StandardScaler(), LogisticRegression()), (0, 1), None,
                 lambda model, X: model.predict_proba(X)[:, 1]),
    "strings": (LogisticRegression, ("churn", "stay"), "churn",
                lambda model, X: model.predict_proba(X)[:, 0]),
    "strings svc": (LinearSVC, ("churn", "stay"), "churn",
                    lambda model, X: -model.decision_function(X)),
}
NAMES = {"logistic": "LogisticRegression", "svc": "LinearSVC", "svc class 0": "LinearSVC",
         "pipeline": "LogisticRegression", "strings": "LogisticRegression",
         "strings svc": "LinearSVC"}


def fitted(rng, case):
    make, labels, pos_label, scores_of = CASES[case]
    X, y = problem(rng, labels=labels)
    model = make().fit(X, y)
    positive = labels[1] if pos_label is None else pos_label
    return model, X, y, pos_label, positive, scores_of(model, X)


@pytest.mark.parametrize("case", sorted(CASES))
def test_roc_from_estimator_draws_sklearns_curve(rng, case):
    model, X, y, pos_label, positive, scores = fitted(rng, case)
    display = RocDisplay.from_estimator(model, X, y, pos_label=pos_label)
    theirs = RocCurveDisplay.from_estimator(model, X, y, pos_label=pos_label,
                                            drop_intermediate=False)
    np.testing.assert_allclose(display.line_.get_xydata(), theirs.line_.get_xydata(),
                               rtol=0, atol=1e-15)
    fpr, tpr = roc_points(y, scores, pos_label=positive)
    np.testing.assert_array_equal(display.line_.get_xdata(), fpr)
    np.testing.assert_array_equal(display.line_.get_ydata(), tpr)
    hull_fpr, hull_tpr = roc_hull(y, scores, pos_label=positive)
    np.testing.assert_array_equal(display.hull_line_.get_xydata(),
                                  np.column_stack([hull_fpr, hull_tpr]))
    expected = roc_auc_score(y == positive, scores)
    assert display.roc_auc == pytest.approx(expected, abs=1e-15)
    assert legend_texts(display.ax_) == [f"{NAMES[case]} (AUC = {expected:.3f})"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_precision_recall_from_estimator_draws_sklearns_curve(rng, case):
    model, X, y, pos_label, positive, scores = fitted(rng, case)
    display = PrecisionRecallDisplay.from_estimator(model, X, y, pos_label=pos_label,
                                                    chance=True)
    theirs = SklearnPrecisionRecallDisplay.from_estimator(model, X, y, pos_label=pos_label,
                                                          plot_chance_level=True)
    np.testing.assert_allclose(display.line_.get_xydata(), theirs.line_.get_xydata(),
                               rtol=1e-15, atol=0)
    assert display.line_.get_drawstyle() == theirs.line_.get_drawstyle() == "steps-post"
    precision, recall, _ = precision_recall_curve(y, scores, pos_label=positive)
    np.testing.assert_array_equal(display.line_.get_xdata(), recall)
    np.testing.assert_array_equal(display.line_.get_ydata(), precision)
    expected = average_precision_score(y == positive, scores)
    assert display.average_precision == pytest.approx(expected, rel=1e-14)
    np.testing.assert_array_equal(display.chance_level_.get_ydata(),
                                  theirs.chance_level_.get_ydata())
    share = np.mean(y == positive)
    assert legend_texts(display.ax_) == [f"{NAMES[case]} (AP = {expected:.3f})",
                                         f"chance level (AP = {share:.3f})"]


@pytest.mark.parametrize("case", ["logistic", "pipeline", "strings"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_from_estimator_draws_sklearns_curve(rng, case, strategy):
    model, X, y, pos_label, positive, scores = fitted(rng, case)
    display = ReliabilityDisplay.from_estimator(model, X, y, pos_label=pos_label, n_bins=7,
                                                strategy=strategy)
    theirs = CalibrationDisplay.from_estimator(model, X, y, pos_label=pos_label, n_bins=7,
                                               strategy=strategy)
    np.testing.assert_allclose(display.line_.get_xydata(), theirs.line_.get_xydata(),
                               rtol=1e-12, atol=1e-15)
    report = calibration_report(y, scores, n_bins=7, strategy=strategy, pos_label=positive)
    np.testing.assert_array_equal(display.line_.get_xdata(), report.prob_pred)
    np.testing.assert_array_equal(display.line_.get_ydata(), report.prob_true)
    brier = brier_score_loss(y == positive, scores)
    assert display.brier == pytest.approx(brier, rel=1e-13)
    if strategy == "uniform":
        assert display.ece == pytest.approx(ece_by_hand(y == positive, scores, 7), rel=1e-12)
    assert legend_texts(display.ax_) == [
        "perfectly calibrated", f"{NAMES[case]} (ECE = {display.ece:.3g}, Brier = {brier:.3g})"]


def test_reliability_bars_are_the_bins_weights(rng):
    p = np.round(rng.uniform(size=200), 2)
    y = (rng.uniform(size=200) < p).astype(int)
    w = rng.uniform(0.5, 2.0, size=200)
    display = ReliabilityDisplay.from_predictions(y, p, n_bins=5, sample_weight=w)
    index = np.searchsorted(np.linspace(0, 1, 6)[1:-1], p)
    heights = [patch.get_height() for patch in display.bars_.patches]
    np.testing.assert_allclose(heights, np.bincount(index, weights=w, minlength=5), rtol=1e-12)
    assert display.bars_.patches[0].axes.get_ylabel() == "bin weight"
    assert display.brier == pytest.approx(brier_score_loss(y, p, sample_weight=w), rel=1e-13)
    # plot_reliability draws the same, through the display.
    ax = plot_reliability(y, p, n_bins=5, sample_weight=w)
    np.testing.assert_array_equal(ax.get_lines()[-1].get_xydata(), display.line_.get_xydata())
    assert legend_texts(ax) == legend_texts(display.ax_)


def test_precision_recall_from_predictions_with_weights_and_names(rng):
    y = rng.integers(0, 2, 200)
    s = np.round(rng.normal(size=200) + y, 1)  # ties
    w = rng.uniform(0.2, 3.0, size=200)
    display = PrecisionRecallDisplay.from_predictions(y, s, sample_weight=w, name="m",
                                                      chance=True)
    theirs = SklearnPrecisionRecallDisplay.from_predictions(y, s, sample_weight=w)
    np.testing.assert_allclose(display.line_.get_xydata(), theirs.line_.get_xydata(),
                               rtol=1e-13, atol=1e-15)
    # The chance level is the share of class 1 by weight.
    share = np.sum(w[y == 1]) / np.sum(w)
    assert display.prevalence == pytest.approx(share, rel=1e-14)
    ap = average_precision_score(y, s, sample_weight=w)
    assert legend_texts(display.ax_) == [f"m (AP = {ap:.3f})", f"chance level (AP = {share:.3f})"]
    # Drawn again on the same axes under another name: one chance line.
    display.plot(display.ax_, name="again", chance=True, color="black")
    assert display.chance_level_ is None
    assert legend_texts(display.ax_)[-1] == f"again (AP = {ap:.3f})"
    # drop_intermediate keeps the steps: the same area.
    dropped = PrecisionRecallDisplay.from_predictions(y, s, sample_weight=w,
                                                      drop_intermediate=True)
    assert dropped.line_.get_xydata().shape[0] < display.line_.get_xydata().shape[0]
    assert dropped.average_precision == display.average_precision


def test_a_display_built_by_hand_plots_and_names(rng):
    y = np.array([0, 0, 1, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8])
    precision, recall, _ = precision_recall_curve(y, s)
    display = PrecisionRecallDisplay(precision, recall, average_precision=0.5)
    assert display.plot().legend_label() == "AP = 0.500"
    with pytest.raises(ValueError, match="chance=True needs the prevalence of class 1"):
        display.plot(chance=True)
    with pytest.raises(ValueError, match="report must be a CalibrationReport"):
        ReliabilityDisplay((precision, recall))
    report = calibration_report(y, s, n_bins=2)
    assert ReliabilityDisplay(report, name="r").plot(counts=False).bars_ is None


def test_the_names_of_a_roc_display():
    y, s = [0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9]
    display = RocDisplay.from_predictions(y, s, name="model")
    assert display.name == "model"
    assert display.legend_label() == "model (AUC = 0.889)"
    assert display.legend_label("other") == "other (AUC = 0.889)"
    display.plot(name="again")
    assert display.line_.get_label() == "again (AUC = 0.889)"


def test_from_estimator_name_overrides_the_default(rng):
    model, X, y, *_ = fitted(rng, "logistic")
    for display in (RocDisplay.from_estimator(model, X, y, name="mine"),
                    PrecisionRecallDisplay.from_estimator(model, X, y, name="mine"),
                    ReliabilityDisplay.from_estimator(model, X, y, name="mine")):
        assert display.line_.get_label().startswith("mine (")


def test_response_method_picks_the_scores(rng):
    model, X, y, *_ = fitted(rng, "logistic")
    by_proba = RocDisplay.from_estimator(model, X, y, response_method="predict_proba")
    by_decision = RocDisplay.from_estimator(model, X, y, response_method="decision_function")
    theirs = RocCurveDisplay.from_estimator(model, X, y, response_method="decision_function",
                                            drop_intermediate=False)
    np.testing.assert_allclose(by_decision.line_.get_xydata(), theirs.line_.get_xydata(),
                               atol=1e-15)
    # The logistic function is increasing: the same ranking, the same curve.
    np.testing.assert_array_equal(by_proba.line_.get_xydata(), by_decision.line_.get_xydata())


def test_from_estimator_refusals(rng):
    X, y = problem(rng)
    model = LogisticRegression().fit(X, y)
    svc = LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match=r"response_method must be one of 'auto', "
                       r"'predict_proba', 'decision_function'; got 'predict'"):
        RocDisplay.from_estimator(model, X, y, response_method="predict")
    with pytest.raises(ValueError, match=r"PrecisionRecallDisplay.from_estimator: LinearSVC "
                       r"has no predict_proba$"):
        PrecisionRecallDisplay.from_estimator(svc, X, y, response_method="predict_proba")
    with pytest.raises(ValueError, match=r"ReliabilityDisplay.from_estimator: LinearSVC has "
                       r"no predict_proba$"):
        ReliabilityDisplay.from_estimator(svc, X, y)
    with pytest.raises(ValueError, match=r"RocDisplay.from_estimator: estimator must be a "
                       r"fitted binary classifier \(with classes_\); got LogisticRegression"):
        RocDisplay.from_estimator(LogisticRegression(), X, y)
    with pytest.raises(ValueError, match="got LinearRegression"):
        RocDisplay.from_estimator(LinearRegression().fit(X, y), X, y)
    three = LogisticRegression().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match=r"must be a binary classifier; LogisticRegression "
                       r"has 3 classes"):
        RocDisplay.from_estimator(three, X, y)
    with pytest.raises(ValueError, match=r"pos_label='yes' is not a class of the estimator, "
                       r"whose classes_ are \[0, 1\]"):
        PrecisionRecallDisplay.from_estimator(model, X, y, pos_label="yes")
    assert plt.get_fignums() == []  # refused before a figure is made
