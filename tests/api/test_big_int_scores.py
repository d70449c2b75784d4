"""Integer scores beyond 2**53: ranks serve the order, every value shown is the user's.

int64 near 2**63, uint64 near 2**64 and Python ints beyond 2**64 are not all
exact as float64.  The curves' thresholds come back as the user's scores,
thresholds the user gives are compared with the scores exactly, and every
rate agrees with a brute-force count on exact Python ints (and, on data
shifted into float64's exact range, with scikit-learn).
"""

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve as sk_precision_recall_curve
from sklearn.metrics import roc_curve as sk_roc_curve

from hmeasure_stream import (
    coords,
    hmeasure_report,
    min_cost_threshold,
    precision_recall_curve,
    roc_curve,
    roc_hull,
    sliding_window,
)

Y = [0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0]
OFFSETS = [0, 7, 3, 3, 9, 1, 5, 7, 0, 2, 12, 11]


def datasets():
    """(name, scores as given, the same scores as Python ints, the base they are near)."""
    int64_base = 2**63 - 20
    uint64_base = 2**64 - 20
    big_base = 2**70 + 3
    return [
        ("int64", np.array([int64_base + k for k in OFFSETS], dtype=np.int64), int64_base),
        ("int64-low", np.array([-(2**63) + k for k in OFFSETS], dtype=np.int64), -(2**63)),
        ("uint64", np.array([uint64_base + k for k in OFFSETS], dtype=np.uint64), uint64_base),
        ("python", [big_base + k for k in OFFSETS], big_base),
        ("python-mixed", [big_base + k if k % 2 else -big_base - k for k in OFFSETS], 0),
    ]


CASES = [pytest.param(scores, base, id=name) for name, scores, base in datasets()]


def exact(scores):
    return [int(value) for value in scores]


def counts_at(y, scores, t):
    """(TP, FP, TN, FN) of "class 1 when score >= t", on Python ints."""
    predicted = [value >= t for value in exact(scores)]
    tp = sum(p and label == 1 for p, label in zip(predicted, y, strict=True))
    fp = sum(p and label == 0 for p, label in zip(predicted, y, strict=True))
    return tp, fp, y.count(0) - fp, y.count(1) - tp


def rates_at(y, scores, t):
    tp, fp, _, _ = counts_at(y, scores, t)
    return tp / y.count(1), fp / y.count(0)


@pytest.mark.parametrize(("scores", "base"), CASES)
def test_roc_curve_thresholds_are_the_scores(scores, base):
    fpr, tpr, thresholds = roc_curve(Y, scores, drop_intermediate=False)
    distinct = sorted(set(exact(scores)), reverse=True)
    assert thresholds[0] == np.inf
    assert [int(t) for t in thresholds[1:]] == distinct
    for t, f, r in zip(thresholds, fpr, tpr, strict=True):
        assert (r, f) == rates_at(Y, scores, t)


@pytest.mark.parametrize(("scores", "base"), CASES)
def test_precision_recall_thresholds_keep_the_dtype(scores, base):
    precision, recall, thresholds = precision_recall_curve(Y, scores)
    assert [int(t) for t in thresholds] == sorted(set(exact(scores)))
    if isinstance(scores, np.ndarray):
        assert thresholds.dtype == scores.dtype
    for t, p, r in zip(thresholds, precision, recall, strict=False):
        tp, fp, _, _ = counts_at(Y, scores, t)
        assert (p, r) == (tp / (tp + fp), tp / Y.count(1))


@pytest.mark.parametrize(("scores", "base"), CASES)
def test_roc_hull_thresholds_are_scores(scores, base):
    fpr, tpr, thresholds = roc_hull(Y, scores, return_thresholds=True)
    assert thresholds[0] == np.inf
    assert {int(t) for t in thresholds[1:]} <= set(exact(scores))
    for t, f, r in zip(thresholds, fpr, tpr, strict=True):
        assert (r, f) == pytest.approx(rates_at(Y, scores, t), abs=1e-15)


@pytest.mark.parametrize(("scores", "base"), CASES)
def test_coords_at_user_thresholds_compare_exactly(scores, base):
    values = exact(scores)
    # Every score, one above and one below it: exact Python ints, not floats.
    x = sorted({v + d for v in values for d in (-1, 0, 1)})
    table = coords(Y, scores, x, ret=("threshold", "sensitivity", "specificity", "tp", "fp"))
    assert [int(t) for t in table["threshold"]] == x
    for t, sens, spec, tp, fp in zip(x, table["sensitivity"], table["specificity"],
                                     table["tp"], table["fp"], strict=True):
        counts = counts_at(Y, scores, t)
        assert (tp, fp) == counts[:2]
        assert (sens, 1.0 - spec) == pytest.approx(rates_at(Y, scores, t), abs=1e-15)


@pytest.mark.parametrize(("scores", "base"), CASES)
def test_coords_all_thresholds_separate_the_scores(scores, base):
    table = coords(Y, scores, "all", ret=("threshold", "tp", "fp"))
    thresholds = list(table["threshold"])
    distinct = sorted(set(exact(scores)))
    assert thresholds[0] == -np.inf and thresholds[-1] == np.inf
    for low, t, high in zip(distinct[:-1], thresholds[1:-1], distinct[1:], strict=True):
        assert low < t <= high
    for t, tp, fp in zip(thresholds, table["tp"], table["fp"], strict=True):
        assert (tp, fp) == counts_at(Y, scores, t)[:2]


@pytest.mark.parametrize(("scores", "base"), CASES)
@pytest.mark.parametrize("cost", [0.1, 0.5, 0.8])
def test_min_cost_threshold_is_a_score(scores, base, cost):
    best = min_cost_threshold(Y, scores, cost=cost)
    assert best.threshold == np.inf or int(best.threshold) in set(exact(scores))
    assert (best.tpr, best.fpr) == rates_at(Y, scores, best.threshold)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize(("scores", "base"), CASES)
def test_hmeasure_report_threshold_compares_exactly(scores, base):
    for t in sorted(set(exact(scores)))[::3]:
        report = hmeasure_report(Y, scores, threshold=t)
        assert (report["TP"], report["FP"], report["TN"], report["FN"]) == counts_at(
            Y, scores, t)


@pytest.mark.parametrize(("scores", "base"), [case for case in CASES if case.id != "python-mixed"])
def test_curves_equal_scikit_learn_on_shifted_scores(scores, base):
    """Shifted by the base they are near, the scores are small exact floats."""
    shifted = np.array([value - base for value in exact(scores)], dtype=np.float64)
    fpr, tpr, thresholds = roc_curve(Y, scores)
    sk_fpr, sk_tpr, sk_thresholds = sk_roc_curve(Y, shifted)
    np.testing.assert_array_equal(fpr, sk_fpr)
    np.testing.assert_array_equal(tpr, sk_tpr)
    assert [int(t) - base for t in thresholds[1:]] == sk_thresholds[1:].tolist()
    precision, recall, pr_thresholds = precision_recall_curve(Y, scores)
    sk_precision, sk_recall, sk_pr_thresholds = sk_precision_recall_curve(Y, shifted)
    np.testing.assert_allclose(precision, sk_precision, rtol=1e-15)
    np.testing.assert_array_equal(recall, sk_recall)
    assert [int(t) - base for t in pr_thresholds] == sk_pr_thresholds.tolist()


@pytest.mark.parametrize("metric", ["auc_binned", "sens", "brier"])
def test_sliding_window_refuses_big_ints_for_value_metrics(metric):
    """Binned, threshold and calibration metrics read the scores' values, which ranks
    would change: sliding_window refuses integers beyond 2**53 for them, naming one."""
    scores = np.array([2**62, 2**62 + 2**10, 2**62 + 2**11, 2**62 + 3 * 2**10], dtype=np.int64)
    with pytest.raises(ValueError, match="4611686018427387904"):
        sliding_window([0, 1, 0, 1], scores, None, [metric])


def test_sliding_window_ranks_big_ints_for_order_metrics():
    scores = np.array([2**62, 2**62 + 2**10, 2**62 + 2**11, 2**62 + 3 * 2**10], dtype=np.int64)
    np.testing.assert_array_equal(
        sliding_window([0, 1, 0, 1], scores, None, ["auc"])["auc"],
        sliding_window([0, 1, 0, 1], [0.0, 1.0, 2.0, 3.0], None, ["auc"])["auc"])
