"""Drop-in use by scikit-learn users, against scikit-learn's own functions.

- the scorers read ``decision_function`` (else ``predict_proba``) as scikit-learn's
  ranking scorers do, ``pos_label`` included;
- ``auc(..., max_fpr=)`` equals ``roc_auc_score(..., max_fpr=)``, with ties, weights,
  zero weights and ``pos_label``;
- scores of shape (n, 1) are their n scores everywhere; (n, 2) is refused with the
  column to pass;
- a class of ``classes`` without points in ``multiclass_auc``: scikit-learn's value
  where it has one.
"""

import math
import warnings

import numpy as np
import pytest
from registry import BINARY_FUNCTIONS, FREQUENCY_WEIGHTS, FUNCTIONS, STRUCTURES, readings
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer, roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from test_scale_invariance import same

import hmeasure_stream as hs
from hmeasure_stream import auc, h_measure, multiclass_auc, partial_auc
from hmeasure_stream.scorers import h_scorer, partial_auc_scorer

SKLEARN_RANKING = ("decision_function", "predict_proba")

# ---------------------------------------------------------------------------
# Scorers


def classification(rng, n, labels=(0, 1)):
    x = rng.normal(size=(n, 3))
    y = (x[:, 0] - 0.5 * x[:, 1] + rng.normal(size=n)) > 0
    return x, np.where(y, labels[1], labels[0])


MODELS = {
    "LinearSVC": lambda: LinearSVC(),
    "LogisticRegression": lambda: LogisticRegression(),
    "pipeline LinearSVC": lambda: make_pipeline(StandardScaler(), LinearSVC(C=0.5)),
    "pipeline LogisticRegression": lambda: make_pipeline(StandardScaler(), LogisticRegression()),
}


def scores_by_hand(model, x, pos_label):
    """scikit-learn's rule, written out: decision_function (negated for classes_[0]),
    else the pos_label column of predict_proba."""
    if hasattr(model, "decision_function"):
        values = model.decision_function(x)
        return -values if pos_label == model.classes_[0] else values
    return model.predict_proba(x)[:, list(model.classes_).index(pos_label)]


def folds_by_hand(make, metric, x, y, cv, pos_label, **options):
    values = []
    for train, test in cv.split(x, y):
        model = clone(make()).fit(x[train], y[train])
        values.append(metric(y[test], scores_by_hand(model, x[test], pos_label),
                             pos_label=pos_label, **options))
    return np.array(values)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize(("labels", "pos_label"),
                         [((0, 1), None), (("churn", "stay"), None), (("churn", "stay"), "churn"),
                          ((-1, 1), -1)])
def test_cross_val_score_is_finite_without_warnings(rng, name, labels, pos_label):
    x, y = classification(rng, 240, labels)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    scorers = {
        "h": (h_scorer(pos_label=pos_label), h_measure, {}),
        "partial": (partial_auc_scorer(fpr_range=(0, 0.3), correction="mcclish",
                                       pos_label=pos_label),
                    partial_auc, {"fpr_range": (0, 0.3), "correction": "mcclish"}),
    }
    for scorer, metric, options in scorers.values():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = cross_val_score(MODELS[name](), x, y, cv=cv, scoring=scorer)
        assert np.isfinite(got).all()
        expected = folds_by_hand(MODELS[name], metric, x, y, cv,
                                 labels[1] if pos_label is None else pos_label, **options)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("labels", [(0, 1), ("churn", "stay")])
def test_scorers_passed_as_they_are_score_with_the_defaults(rng, name, labels):
    # scoring=h_scorer (not h_scorer()), as scikit-learn users pass make_scorer's result:
    # the values of the default scorer, each fold by hand, with no warning (a scorer that
    # raised would be nan with a warning).
    x, y = classification(rng, 240, labels)
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    for factory, metric in ((h_scorer, h_measure), (partial_auc_scorer, partial_auc)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = cross_val_score(MODELS[name](), x, y, cv=cv, scoring=factory,
                                  error_score="raise")
            grid = GridSearchCV(MODELS[name](), {}, cv=cv, scoring={"m": factory},
                                refit=False, error_score="raise").fit(x, y)
        expected = folds_by_hand(MODELS[name], metric, x, y, cv, labels[1])
        np.testing.assert_array_equal(got, expected)
        assert grid.cv_results_["mean_test_m"][0] == pytest.approx(expected.mean(), rel=1e-15)


def test_scorer_called_as_a_scorer_takes_options_and_weights(rng):
    x, y = classification(rng, 200, (0, 1))
    model = MODELS[sorted(MODELS)[0]]().fit(x, y)
    w = rng.random(200)
    s = scores_by_hand(model, x, 1)
    assert h_scorer(model, x, y, alpha=3.0) == h_measure(y, s, alpha=3.0)
    assert h_scorer(model, x, y, sample_weight=w) == h_measure(y, s, sample_weight=w)
    assert partial_auc_scorer(model, x, y, fpr_range=(0, 0.2)) == partial_auc(
        y, s, fpr_range=(0, 0.2))
    with pytest.raises(TypeError, match="scorer\\(estimator, X, y\\), got 2"):
        h_scorer(model, x)
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['sample_weight'\\]"):
        h_scorer(sample_weight=w)
    with pytest.raises(ValueError, match="alpha"):
        h_scorer(model, x, y, alpha=-1.0)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("max_fpr", [0.1, 0.5, 1.0])
def test_partial_scorer_equals_sklearns_roc_auc_scorer(rng, name, max_fpr):
    x, y = classification(rng, 300)
    cv = StratifiedKFold(5, shuffle=True, random_state=2)
    ours = cross_val_score(MODELS[name](), x, y, cv=cv, scoring=partial_auc_scorer(
        fpr_range=(0, max_fpr), correction="mcclish"))
    theirs = cross_val_score(MODELS[name](), x, y, cv=cv, scoring=make_scorer(
        roc_auc_score, response_method=SKLEARN_RANKING, max_fpr=max_fpr))
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)
    if max_fpr == 1.0:
        np.testing.assert_allclose(ours, cross_val_score(MODELS[name](), x, y, cv=cv,
                                                         scoring="roc_auc"), rtol=1e-12, atol=0)


def test_pos_label_of_class_zero_negates_the_decision_function(rng):
    x, y = classification(rng, 200, ("churn", "stay"))
    model = LinearSVC().fit(x, y)
    decision = model.decision_function(x)
    # scikit-learn's own scorer machinery, given pos_label="churn" (classes_[0]), passes
    # the negated decision function: a scorer that returns what it receives shows it.
    received = make_scorer(lambda y_true, s, pos_label: roc_auc_score(y_true == pos_label, s),
                           response_method=SKLEARN_RANKING, pos_label="churn")(model, x, y)
    assert received == roc_auc_score(y == "churn", -decision)
    assert partial_auc_scorer(pos_label="churn")(model, x, y) == pytest.approx(received,
                                                                               rel=1e-15)
    assert h_scorer(pos_label="churn")(model, x, y) == h_measure(y, -decision,
                                                                 pos_label="churn")
    # Class "churn" scored by its own (negated) scores ranks well, not inverted.
    assert h_scorer(pos_label="churn")(model, x, y) == h_scorer()(model, x, y)


def test_an_estimator_without_decision_function_scores_predict_proba(rng):
    x, y = classification(rng, 200, ("a", "b"))
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(x[:100], y[:100])
    assert not hasattr(model, "decision_function")
    proba = model.predict_proba(x[100:])
    assert h_scorer()(model, x[100:], y[100:]) == h_measure(y[100:], proba[:, 1], pos_label="b")
    assert h_scorer(pos_label="a")(model, x[100:], y[100:]) == h_measure(
        y[100:], proba[:, 0], pos_label="a")
    assert partial_auc_scorer(fpr_range=(0, 0.4))(model, x[100:], y[100:]) == partial_auc(
        y[100:], proba[:, 1], fpr_range=(0, 0.4), pos_label="b")


# ---------------------------------------------------------------------------
# auc(max_fpr=)


def binary_data(rng, n, ties, weights):
    y = rng.random(n) < 0.4
    s = rng.normal(size=n) + y
    if ties:
        s = np.round(s, 1)
    w = None
    if weights == "float":
        w = rng.exponential(size=n)
    elif weights == "zeros":
        w = rng.integers(0, 3, n).astype(float)  # a third of the points weigh 0
    return y, s, w


@pytest.mark.parametrize("max_fpr", [1e-3, 0.05, 0.25, 0.5, 0.999, 1.0])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weights", [None, "float", "zeros"])
def test_max_fpr_equals_roc_auc_score(rng, max_fpr, ties, weights):
    for n in (5, 40, 500):
        y, s, w = binary_data(rng, n, ties, weights)
        if not (0 < np.sum(y if w is None else w * y) < np.sum(np.ones(n) if w is None else w)):
            continue
        expected = roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", hs.InvertedScoresWarning)
            got = auc(y, s, sample_weight=w, max_fpr=max_fpr)
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-13)
            if max_fpr == 1.0:  # the whole AUC
                assert got == auc(y, s, sample_weight=w)
            else:  # the McClish-corrected partial AUC over [0, max_fpr]
                assert got == partial_auc(y, s, fpr_range=(0, max_fpr), correction="mcclish",
                                          sample_weight=w)


@pytest.mark.parametrize("max_fpr", [0.2, 0.6])
def test_max_fpr_with_pos_label(rng, max_fpr):
    y01, s, w = binary_data(rng, 300, True, "zeros")
    names = np.where(y01, "spam", "ham")
    for pos_label, is_pos in (("spam", y01), ("ham", ~y01)):
        expected = roc_auc_score(is_pos, s, sample_weight=w, max_fpr=max_fpr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", hs.InvertedScoresWarning)
            assert auc(names, s, sample_weight=w, pos_label=pos_label,
                       max_fpr=max_fpr) == pytest.approx(expected, rel=1e-12)
    signed = np.where(y01, 1, -1)
    assert auc(signed, s, max_fpr=max_fpr) == pytest.approx(
        roc_auc_score(signed, s, max_fpr=max_fpr), rel=1e-12)


def test_max_fpr_by_hand():
    # ROC points (0, 1/2), (1/2, 1/2), (1/2, 1), (1, 1): over FPR [0, 1/2] the area is 1/4,
    # the diagonal's 1/8 and the best 1/2, so McClish's value is (1 + 1/3) / 2.
    assert auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=0.5) == 2 / 3
    assert auc([0, 1], [0.3, 0.6], max_fpr=0.1) == 1.0
    assert auc([0, 1], [0.5, 0.5], max_fpr=0.1) == 0.5  # a tie: the diagonal
    assert auc([0, 1, 0], [0.3, 0.6, 0.3], max_fpr=None) == 1.0


def test_max_fpr_below_one_half_is_not_warned_about():
    # A partial AUC below 1/2 need not mean inverted scores; the whole AUC warns as always.
    y, s = [0, 1, 0, 1, 1, 0], [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = auc(y, s, max_fpr=0.2)
    assert value == pytest.approx(roc_auc_score(y, s, max_fpr=0.2), rel=1e-15)
    assert value < 0.5 < auc(y, s)


@pytest.mark.parametrize(("max_fpr", "message"), [
    (0, r"^max_fpr must be in \(0, 1\], got 0.0$"),
    (-0.5, r"^max_fpr must be in \(0, 1\], got -0.5$"),
    (1.5, r"^max_fpr must be in \(0, 1\], got 1.5$"),
    (math.nan, r"^max_fpr must be in \(0, 1\], got nan$"),
    (math.inf, r"^max_fpr must be in \(0, 1\], got inf$"),
    ("0.5", r"^max_fpr must be a number in \(0, 1\], got '0.5'$"),
    (True, r"^max_fpr must be a number in \(0, 1\], got True$"),
    ((0, 0.5), r"^max_fpr must be a number in \(0, 1\], got \(0, 0.5\)$"),
])
def test_bad_max_fpr_is_refused(max_fpr, message):
    with pytest.raises(ValueError, match=message):
        auc([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], max_fpr=max_fpr)


def test_max_fpr_accepts_numpy_numbers():
    y, s = [0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.35]
    assert auc(y, s, max_fpr=np.float32(0.5)) == auc(y, s, max_fpr=float(np.float32(0.5)))
    assert auc(y, s, max_fpr=np.int64(1)) == auc(y, s)


# ---------------------------------------------------------------------------
# Shapes of y_score


def shape_data(rng):
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
    s = np.round(rng.normal(size=y.size) + y, 1)
    return y, s


@pytest.mark.parametrize("name", BINARY_FUNCTIONS)
def test_a_column_of_scores_is_its_scores_everywhere(rng, name):
    y, s = shape_data(rng)
    w = rng.integers(0, 3, y.size).astype(float)
    w[:2] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hs.InvertedScoresWarning)
        warnings.simplefilter("ignore", hs.OutOfRangeScoresWarning)  # binned_auc of normal s
        expected = FUNCTIONS[name](y, s)
        for column in (s[:, None], s.reshape(-1, 1).tolist(), np.column_stack([s, s])[:, 1:]):
            same(FUNCTIONS[name](y, column), expected)
        if name not in FREQUENCY_WEIGHTS:  # (auc_test takes no weights)
            same(FUNCTIONS[name](y, s[:, None], sample_weight=w),
                        FUNCTIONS[name](y, s, sample_weight=w))


@pytest.mark.parametrize("name", BINARY_FUNCTIONS)
def test_two_columns_of_scores_ask_for_column_one(rng, name):
    y, s = shape_data(rng)
    if name in ("brier_score", "log_loss"):
        # These read an (n, k) y_prob as the classes' probabilities (test_calibration.py):
        # rows that are no probabilities are refused as such.
        with pytest.raises(ValueError, match=r"^y_true has 2 classes but y_prob has 4 "
                                             r"columns; pass classes= to name the class"):
            FUNCTIONS[name](y, np.ones((12, 4)))
        with pytest.raises(ValueError, match=r"^each row of y_prob must sum to 1 \(the "
                                             r"probabilities of the classes\); row 0 sums to "
                                             r"1.46"):
            FUNCTIONS[name](y, np.ones((12, 2)))  # the logistic of 1, twice
        return
    with pytest.raises(ValueError, match=r"got an array of shape \(12, 2\): pass the scores "
                                         r"of class 1, y_(?:score1?|prob)\[:, 1\] for predict_proba"):
        FUNCTIONS[name](y, np.column_stack([1 - s, s]))
    with pytest.raises(ValueError, match=r"shape \(12, 4\); scores of several classes"):
        FUNCTIONS[name](y, np.ones((12, 4)))


def test_a_column_in_the_threshold_metrics_of_the_report(rng):
    y, s = shape_data(rng)
    report = hs.hmeasure_report(y, s[:, None], threshold=0.3)
    assert report == hs.hmeasure_report(y, s, threshold=0.3)
    assert report["TP"] + report["FN"] == y.sum()


# (BinnedAUC's score range does not hold every normal score drawn)
@pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")
@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_structures_take_a_column_of_scores(rng, name):
    y, s = shape_data(rng)
    one, two = STRUCTURES[name].make(), STRUCTURES[name].make()
    one.add_many(y, s[:, None])
    two.add_many(y, s)
    assert readings(one) == readings(two)
    before = readings(one)
    with pytest.raises(ValueError, match=r"y_score\[:, 1\]"):
        one.add_many(y, np.column_stack([1 - s, s]))
    assert readings(one) == before


def test_the_window_takes_a_column_of_scores(rng):
    y, s = shape_data(rng)
    window = hs.SlidingWindow(5, ("auc", "h"))
    got = window.update(y, s[:, None])
    expected = hs.SlidingWindow(5, ("auc", "h")).update(y, s)
    for key in ("auc", "h"):
        np.testing.assert_array_equal(got[key], expected[key])


def test_a_frame_of_one_column_is_its_scores(rng):
    pd = pytest.importorskip("pandas")
    y, s = shape_data(rng)
    assert auc(y, pd.DataFrame({"p": s})) == auc(y, s)


# ---------------------------------------------------------------------------
# Multi-class with a listed class without points


def multiclass_data(rng, n, c, absent):
    y = rng.choice([k for k in range(c) if k not in absent], size=n)
    # Rows summing to 1 (scikit-learn checks it), in tenths: many ties.
    counts = np.array([rng.multinomial(10, (1 + 2 * np.eye(c)[k]) / (c + 2)) for k in y])
    return y, counts / 10


def sklearn_value(y, p, labels, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return roc_auc_score(y, p, labels=labels, **kwargs)


@pytest.mark.parametrize("absent", [(0,), (2,), (3,), (1, 3)])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_ovo_with_a_class_absent_equals_sklearn(rng, absent, average):
    c = 4
    for n in (6, 30, 200):
        y, p = multiclass_data(rng, n, c, absent)
        if len(set(y.tolist())) < 2:
            continue
        expected = sklearn_value(y, p, list(range(c)), multi_class="ovo", average=average)
        got = multiclass_auc(y, p, method="ovo", average=average, classes=list(range(c)))
        assert got == pytest.approx(expected, rel=1e-12)
        # Integer weights are repetitions; a class of zero weight is absent.
        w = rng.integers(1, 4, n).astype(float)
        present = [k for k in range(c) if k not in absent]
        w[y == present[0]] = 0.0
        kept = w > 0
        if len(set(y[kept].tolist())) < 2:
            continue
        rows = np.repeat(np.arange(n), w.astype(int))
        expected = sklearn_value(y[rows], p[rows], list(range(c)), multi_class="ovo",
                                 average=average)
        got = multiclass_auc(y, p, method="ovo", average=average, classes=list(range(c)),
                             sample_weight=w)
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("absent", [(0,), (3,), (1, 2)])
def test_ovr_with_a_class_absent_follows_sklearn(rng, absent):
    c = 4
    y, p = multiclass_data(rng, 80, c, absent)
    labels = list(range(c))
    # scikit-learn gives the absent class weight 0 in the weighted mean ...
    assert multiclass_auc(y, p, average="weighted", classes=labels) == pytest.approx(
        sklearn_value(y, p, labels, multi_class="ovr", average="weighted"), rel=1e-12)
    # ... and nan as its own value ...
    per_class = multiclass_auc(y, p, average=None, classes=labels)
    expected = sklearn_value(y, p, labels, multi_class="ovr", average=None)
    np.testing.assert_allclose(per_class, expected, rtol=1e-12)
    assert np.isnan(per_class).tolist() == [k in absent for k in range(c)]
    # ... so its macro mean is nan: undefined, refused from scratch.
    assert math.isnan(sklearn_value(y, p, labels, multi_class="ovr", average="macro"))
    with pytest.raises(ValueError, match=rf"^multi-class AUC is undefined: class {absent[0]} "
                                         rf"\(column {absent[0]}\) has no points in y_true$"):
        multiclass_auc(y, p, classes=labels)


def test_ovo_matrix_with_a_class_absent(rng):
    y, p = multiclass_data(rng, 60, 4, (2,))
    matrix = multiclass_auc(y, p, method="ovo", average=None, classes=[0, 1, 2, 3])
    assert np.isnan(matrix[2]).all() and np.isnan(matrix[:, 2]).all()
    for i in (0, 1, 3):
        for j in (0, 1, 3):
            if i != j:
                pair = (y == i) | (y == j)
                assert matrix[i, j] == pytest.approx(
                    roc_auc_score(y[pair] == i, p[pair, i]), rel=1e-15)


def test_fewer_than_two_classes_is_undefined(rng):
    y = np.zeros(10, dtype=int)
    p = np.full((10, 3), 1 / 3)
    # scikit-learn: nan (no pair; one class against an empty rest).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(roc_auc_score(y, p, labels=[0, 1, 2], multi_class="ovo"))
    for method in ("ovo", "ovr"):
        for average in ("macro", "weighted", None):
            with pytest.raises(ValueError, match=r"^multi-class AUC is undefined: class 1 "
                                                 r"\(column 1\) has no points in y_true$"):
                multiclass_auc(y, p, method=method, average=average, classes=[0, 1, 2])
