"""The structures' curves and operating points against the from-scratch functions.

``coords`` at thresholds, specificities and sensitivities (O(log n) from the
order engine), ``roc_curve``, ``precision_recall_curve`` and
``average_precision`` of the current points (O(n)) equal ``coords``,
``roc_curve``, ``precision_recall_curve`` and ``average_precision`` of the same
points from scratch (which are themselves checked against pROC and
scikit-learn in test_curves.py): exactly with unit weights, within rounding
with weights.
"""

import numpy as np
import pytest
from hypothesis import strategies as st
from machines import PointSetMachine, point_set_test

from hmeasure_stream import (
    ApproxAUC,
    DynamicAUC,
    DynamicH,
    ROCCurve,
    average_precision,
    coords,
    precision_recall_curve,
    roc_curve,
    roc_hull,
)

pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

RET = ("threshold", "specificity", "sensitivity", "accuracy", "precision", "npv", "tp", "fp",
       "tn", "fn", "youden", "closest_topleft")
RATES = np.array([0.0, 1e-9, 0.1, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 0.9, 0.999, 1.0])


def _same(got, expected, exact):
    got, expected = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-12)


def _reads(points):
    """Thresholds to read at: every score, the midpoints, beyond both ends, +-inf."""
    scores = np.unique([p[1] for p in points]) if points else np.array([0.0])
    middles = (scores[:-1] + scores[1:]) / 2
    return np.concatenate((scores, middles, [scores[0] - 1, scores[-1] + 1, -np.inf, np.inf]))


def assert_reads_match(tracker, y, s, w, exact):
    """Every read of the structure against the from-scratch function of (y, s, w)."""
    y, s, w = np.asarray(y), np.asarray(s, dtype=np.float64), np.asarray(w, dtype=np.float64)
    defined = (y == 0).any() and (y == 1).any() and w[y == 0].sum() > 0 and w[y == 1].sum() > 0
    points = list(zip(y.tolist(), s.tolist(), strict=True))
    thresholds = _reads(points)
    if not defined:
        assert np.isnan(tracker.average_precision())
        for got in tracker.coords(RATES, input="specificity", ret=RET).values():
            assert np.isnan(got).all()
        with pytest.raises(ValueError, match="class is absent"):
            tracker.roc_curve()
        return
    for x, read_as in ((thresholds, "threshold"), (RATES, "specificity"),
                       (RATES, "sensitivity"), ("best", "threshold"), ("all", "threshold")):
        got = tracker.coords(x, input=read_as, ret=RET)
        expected = coords(y, s, x, input=read_as, ret=RET, sample_weight=w)
        for name in RET:
            if name == "threshold" and not exact:
                # A rate that a point has only up to rounding reads as interpolated
                # (threshold nan) in one of the two sums and as that point in the other.
                both = ~np.isnan(got[name]) & ~np.isnan(expected[name])
                _same(got[name][both], expected[name][both], exact)
                continue
            _same(got[name], expected[name], exact)
    for mine, theirs in ((tracker.roc_curve(), roc_curve(y, s, sample_weight=w)),
                         (tracker.roc_curve(drop_intermediate=False),
                          roc_curve(y, s, sample_weight=w, drop_intermediate=False)),
                         (tracker.precision_recall_curve(),
                          precision_recall_curve(y, s, sample_weight=w))):
        assert type(mine) is type(theirs)
        for got, expected in zip(mine, theirs, strict=True):
            _same(got, expected, exact)
    _same(tracker.average_precision(), average_precision(y, s, sample_weight=w), exact)
    hull = tracker.hull(return_thresholds=True)
    assert type(hull) is ROCCurve
    for got, expected in zip(hull, roc_hull(y, s, sample_weight=w, return_thresholds=True),
                             strict=True):
        _same(got, expected, exact)


class CurveReadsMachine(PointSetMachine):
    """Random updates of a DynamicAUC, every read compared after each step.

    The weights are dyadic, so both sides sum them exactly: every read equals
    the from-scratch one bit for bit, weights of 0 included.
    """

    scores = st.sampled_from([-2.0, -1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 3.0])
    weights = st.sampled_from([1.0, 1.0, 1.0, 0.5, 3.0, 0.0, 0.25])

    def make(self):
        return DynamicAUC(capacity=1)

    def matches(self, tracker, points, exact):
        y = [p[0] for p in points]
        s = [p[1] for p in points]
        w = [p[2] for p in points]
        assert_reads_match(tracker, y, s, w, exact=True)


TestCurveReadsMachine = point_set_test(CurveReadsMachine)


@pytest.mark.parametrize(("make", "weighted"), [
    (DynamicAUC, False), (DynamicAUC, True), (DynamicH, False), (DynamicH, True),
    (lambda: ApproxAUC(0.1), False)], ids=["auc", "auc-weights", "h", "h-weights", "approx"])
def test_reads_over_many_blocks_after_removals(make, weighted):
    # Thousands of distinct and tied scores: the engine's descent crosses many blocks.
    rng = np.random.default_rng(31)
    n = 6000
    y = rng.integers(0, 2, n)
    s = np.where(rng.random(n) < 0.5, np.round(rng.normal(size=n), 2), rng.normal(size=n)) + y
    w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], n) if weighted else np.ones(n)  # dyadic: exact
    tracker = make()
    tracker.add_many(y, s, sample_weight=w)
    if isinstance(tracker, DynamicAUC):
        assert tracker._engine.n_blocks > 10
    assert_reads_match(tracker, y, s, w, exact=True)
    gone = rng.choice(n, 2500, replace=False)
    tracker.remove_many(y[gone], s[gone], sample_weight=w[gone])
    kept = np.setdiff1d(np.arange(n), gone)
    assert_reads_match(tracker, y[kept], s[kept], w[kept], exact=True)


def test_reads_of_a_count_window_and_of_decay():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 900), np.round(rng.normal(size=900), 1)
    window = DynamicAUC(window=300)
    window.add_many(y, s)
    assert_reads_match(window, y[-300:], s[-300:], np.ones(300), exact=True)
    decayed = DynamicAUC(half_life=50)
    decayed.add_many(y[:400], s[:400])
    # A point of age a weighs 2^(-a / 50) relative to the newest (age 0).
    ages = np.arange(399, -1, -1)
    assert_reads_match(decayed, y[:400], s[:400], 2.0 ** (-ages / 50), exact=False)


def test_reads_with_pos_label_and_class_weights_in_callers_units():
    tracker = DynamicAUC(pos_label="spam")
    labels = ["spam", "ham", "ham", "spam", "ham"]
    scores = [0.9, 0.2, 0.6, 0.6, 0.1]
    tracker.add_many(labels, scores, sample_weight=[3.0, 0.5, 2.0, 1.0, 0.25])
    got = tracker.coords(0.6, ret=("tp", "fp", "tn", "fn"))
    # At "score >= 0.6": spam 3 + 1 found, ham 2 flagged, ham 0.5 + 0.25 left.
    assert {name: float(value[0]) for name, value in got.items()} == {
        "tp": 4.0, "fp": 2.0, "tn": 0.75, "fn": 0.0}
    y = [1, 0, 0, 1, 0]
    assert_reads_match(tracker, y, scores, [3.0, 0.5, 2.0, 1.0, 0.25], exact=True)


def test_coords_options_are_checked_as_from_scratch():
    tracker = DynamicAUC()
    tracker.add_many([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ValueError, match="input must be one of"):
        tracker.coords(0.5, input="fpr")
    with pytest.raises(ValueError, match="ret"):
        tracker.coords(0.5, ret=("auc",))
    with pytest.raises(ValueError, match=r"x must be specificity values in \[0, 1\]"):
        tracker.coords(1.5, input="specificity")
    with pytest.raises(ValueError, match="x must be a number"):
        tracker.coords(np.nan)


@pytest.mark.parametrize("weighted", [False, True])
def test_hull_thresholds_give_the_vertices(weighted):
    # Each vertex is the ROC point of "score >= its threshold", counted point by point.
    rng = np.random.default_rng(8)
    n = 400
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)
    w = rng.choice([0.0, 0.3, 1.0, 2.5], n) if weighted else np.ones(n)
    fpr, tpr, thresholds = roc_hull(y, s, sample_weight=w, return_thresholds=True)
    plain = roc_hull(y, s, sample_weight=w)
    np.testing.assert_array_equal(fpr, plain[0])
    np.testing.assert_array_equal(tpr, plain[1])
    assert thresholds[0] == np.inf and np.all(np.diff(thresholds) < 0)
    for k, threshold in enumerate(thresholds):
        taken = s >= threshold
        expected_fpr = sum(w[i] for i in range(n) if taken[i] and y[i] == 0) / w[y == 0].sum()
        expected_tpr = sum(w[i] for i in range(n) if taken[i] and y[i] == 1) / w[y == 1].sum()
        assert fpr[k] == pytest.approx(expected_fpr, rel=1e-12, abs=1e-15)
        assert tpr[k] == pytest.approx(expected_tpr, rel=1e-12, abs=1e-15)
        # A threshold is a score of positive weight.
        assert w[s == threshold].sum() > 0 or k == 0
