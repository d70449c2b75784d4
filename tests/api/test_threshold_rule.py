"""One threshold rule everywhere: class 1 when the score is >= the threshold.

``min_cost_threshold``'s threshold fed to every reader of a threshold (a
window's ``Threshold``, ``sliding_window``, ``hmeasure_report``, ``coords``,
``DynamicH.report``) gives the rates of a brute-force count of ``score >= t``,
on data with ties at the threshold; and pROC-style thresholds between two
scores never overflow and always separate them under the rule.
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from reference_impl import r_misclass_counts

from hmeasure_stream import (
    DynamicH,
    SlidingWindow,
    Threshold,
    coords,
    hmeasure_report,
    min_cost_threshold,
    sliding_window,
)


def brute_rates(y, s, t):
    """(TPR, FPR) of "class 1 when s >= t": R's misclassification counts
    (``r_misclass_counts``), each rate a count over its class."""
    counts = r_misclass_counts(y, s, t, at_or_above=True)
    return (counts["TP"] / (counts["TP"] + counts["FN"]),
            counts["FP"] / (counts["FP"] + counts["TN"]))


def tied_data():
    """Scores on a coarse grid: many points of both classes at every score."""
    rng = np.random.default_rng(20240611)
    y = rng.integers(0, 2, 300)
    s = (rng.integers(0, 6, 300) + 2 * y) / 8.0
    return y, s


@pytest.mark.parametrize("cost", [0.2, 0.5, 0.7])
def test_min_cost_threshold_agrees_with_every_reader(cost):
    y, s = tied_data()
    best = min_cost_threshold(y, s, cost=cost)
    t = best.threshold
    tpr, fpr = brute_rates(y, s, t)
    assert np.sum(s == t) > 0  # ties exactly at the threshold
    assert (best.tpr, best.fpr) == (tpr, fpr)

    read = coords(y, s, t, ret=("sensitivity", "specificity"))
    assert (read["sensitivity"][0], 1.0 - read["specificity"][0]) == pytest.approx((tpr, fpr))

    report = hmeasure_report(y, s, threshold=t)
    assert (report["Sens"], report["FPR"]) == pytest.approx((tpr, fpr), abs=1e-15)

    window = SlidingWindow(None, [Threshold(t)])
    window.update(y, s)
    metrics = window.threshold_metrics()
    assert (metrics["sens"], 1.0 - metrics["spec"]) == pytest.approx((tpr, fpr), abs=1e-15)

    every = sliding_window(y, s, None, ["sens", "spec", Threshold(t)])
    assert (every["sens"][-1], 1.0 - every["spec"][-1]) == pytest.approx((tpr, fpr),
                                                                         abs=1e-15)

    tracker = DynamicH()
    tracker.add_many(y, s)
    dynamic = tracker.report(threshold=t)
    assert (dynamic["Sens"], dynamic["FPR"]) == pytest.approx((tpr, fpr), abs=1e-15)


def test_threshold_rule_counts_ties_as_class_1():
    y = [0, 1, 0, 1, 1]
    s = [0.2, 0.5, 0.5, 0.5, 0.9]
    report = hmeasure_report(y, s, threshold=0.5)
    assert (report["TP"], report["FP"], report["TN"], report["FN"]) == (3.0, 1.0, 1.0, 0.0)
    window = SlidingWindow(None, ["sens", "spec", Threshold(0.5)])
    window.update(y, s)
    assert window.threshold_metrics() == {"sens": 1.0, "spec": 0.5}


@pytest.mark.parametrize("scores", [
    [-1.7976931348623157e308, -1.5e308, 1.6e308, 1.7976931348623157e308],
    [1.7e308, 1.75e308, 1.7976931348623157e308, -1.7976931348623157e308],
])
def test_coords_thresholds_between_huge_scores(scores):
    y = [0, 1, 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = coords(y, scores, "all", ret=("threshold", "sensitivity", "specificity"))
    thresholds = table["threshold"]
    distinct = np.unique(scores)
    assert thresholds[0] == -np.inf and thresholds[-1] == np.inf
    inner = thresholds[1:-1]
    assert np.all(np.isfinite(inner))
    # Each lies between two consecutive scores, above the lower and at most the upper.
    assert np.all((distinct[:-1] < inner) & (inner <= distinct[1:]))
    for t, sens, spec in zip(thresholds, table["sensitivity"], table["specificity"],
                             strict=True):
        tpr, fpr = brute_rates(y, scores, t)
        assert (sens, 1.0 - spec) == (tpr, fpr)


@pytest.mark.parametrize("low", [0.5, -3.0, 1e-300, 1.7e308, 5e-324, 0.0])
def test_coords_thresholds_between_adjacent_floats(low):
    high = np.nextafter(low, np.inf)
    y, s = [0, 1], [low, high]
    table = coords(y, s, "all", ret=("threshold", "sensitivity", "specificity"))
    assert table["threshold"][1] == high  # no double lies between: the upper one
    assert table["sensitivity"].tolist() == [1.0, 1.0, 0.0]
    assert table["specificity"].tolist() == [0.0, 1.0, 1.0]
    best = coords(y, s, "best", ret=("threshold",))["threshold"]
    assert best.tolist() == [high]
    assert coords(y, s, best, ret=("sensitivity", "specificity")) == {
        "sensitivity": np.array([1.0]), "specificity": np.array([1.0])}


def test_structure_coords_between_huge_scores():
    tracker = DynamicH()
    scores = [-1.7976931348623157e308, 1.7976931348623157e308, 1.7e308, 1.75e308]
    tracker.add_many([0, 1, 0, 1], scores)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read = tracker.coords([0.5, 1.0], input="specificity", ret=("threshold",))
        every = tracker.coords("all", ret=("threshold",))
    assert np.all(np.isfinite(every["threshold"][1:-1]))
    assert np.all(np.isfinite(read["threshold"]) | np.isnan(read["threshold"]))


def exact_counts(y, s, t):
    """(TP, FP, TN, FN) of "class 1 when s >= t", R's misclassification counts
    (``r_misclass_counts``) of the scores as Fractions: Python's exact comparisons."""
    counts = r_misclass_counts(y, [Fraction(score) for score in s], t, at_or_above=True)
    return tuple(counts[name] for name in ("TP", "FP", "TN", "FN"))


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize(("s", "t"), [
    # float(1/3) lies just below 1/3: class 0, which rounding the threshold would lose.
    ([0.1, 1 / 3, 0.5, 0.2, 0.9, np.nextafter(1 / 3, 1)], Fraction(1, 3)),
    # 2**53 + 1 is no double: 2**53 is below it, 2**53 + 2 at or above.
    ([2.0**53, 2.0**53 + 2, 1.0, 2.0**53, 3e16, 0.0], 2**53 + 1),
    ([-(2.0**60), -(2.0**60) + 256, 0.0, -(2.0**60), 5.0, -1e30], -(2**60) + 1),
])
def test_exact_threshold_in_every_reader(s, t):
    y = [1, 0, 1, 0, 1, 1]
    tp, fp, tn, fn = exact_counts(y, s, t)
    assert 0 < tp + fp < len(y)  # the threshold splits the points
    sens, spec = tp / (tp + fn), tn / (tn + fp)

    report = hmeasure_report(y, s, threshold=t)
    assert (report["TP"], report["FP"], report["TN"], report["FN"]) == (tp, fp, tn, fn)

    every = sliding_window(y, s, None, ["sens", "spec", Threshold(t)])
    assert (every["sens"][-1], every["spec"][-1]) == (sens, spec)

    window = SlidingWindow(None, ["sens", "spec", Threshold(t)])
    window.update(y, s)
    assert window.threshold_metrics() == {"sens": sens, "spec": spec}

    tracker = DynamicH()
    tracker.add_many(y, s)
    dynamic = tracker.report(threshold=t)
    assert (dynamic["TP"], dynamic["FP"], dynamic["TN"], dynamic["FN"]) == (tp, fp, tn, fn)

    da = pytest.importorskip("dask.array")
    from hmeasure_stream import dask as hsd

    lazy = hsd.hmeasure_report(da.from_array(np.array(y), chunks=2),
                               da.from_array(np.array(s), chunks=2), threshold=t)
    assert (lazy["TP"], lazy["FP"], lazy["TN"], lazy["FN"]) == (tp, fp, tn, fn)


@pytest.mark.parametrize("bad", [True, np.bool_(False), float("nan"), "0.5", np.float64("inf")])
def test_threshold_refusals_agree(bad):
    y, s = [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]
    tracker = DynamicH()
    tracker.add_many(y, s)
    for call in (lambda: hmeasure_report(y, s, threshold=bad), lambda: Threshold(bad),
                 lambda: tracker.report(threshold=bad)):
        with pytest.raises(ValueError, match="threshold"):
            call()


@pytest.mark.parametrize("scores", [
    np.array([2**53, 2**53 + 1, 2**60 + 3, 5, 2**53 + 1], dtype=np.int64),
    np.array([2**64 - 1, 2**64 - 2, 2**63, 7, 2**64 - 2], dtype=np.uint64),
    [2**70, 2**70 + 1, -(2**80), 3, 2**70 + 1],
])
def test_min_cost_threshold_of_big_integers_is_a_python_int(scores):
    y = [0, 1, 1, 0, 1]
    best = min_cost_threshold(y, scores, cost=0.5)
    assert type(best.threshold) is int
    assert best.threshold in {int(value) for value in scores}
    tp, fp, tn, fn = exact_counts(y, [int(value) for value in scores], best.threshold)
    assert (best.tpr, best.fpr) == (tp / (tp + fn), fp / (fp + tn))


@pytest.mark.parametrize("x", [True, np.bool_(False), [True, False], np.array([False]),
                               np.array([True, 0.5], dtype=object)])
def test_coords_refuses_bool_thresholds_everywhere(x):
    """A bool is no threshold (as for ``hmeasure_report``'s): refused by ``coords`` and by
    a structure's ``coords``, whether given alone, in a list or in an array."""
    y, s = [0, 1, 0, 1], [0.1, 0.8, 0.4, 0.6]
    with pytest.raises(ValueError, match="x must be"):
        coords(y, s, x)
    with pytest.raises(ValueError, match="threshold"):
        hmeasure_report(y, s, threshold=x if np.ndim(x) == 0 else True)
    tracker = DynamicH()
    tracker.add_many(y, s)
    with pytest.raises(ValueError, match="x must be"):
        tracker.coords(x)
    # Other numbers stay thresholds.
    expected = [brute_rates(y, s, t)[0] for t in (0.5, 1)]
    assert coords(y, s, [0.5, 1], ret=("sensitivity",))["sensitivity"].tolist() == expected
    assert tracker.coords([0.5, 1], ret=("sensitivity",))["sensitivity"].tolist() == expected
