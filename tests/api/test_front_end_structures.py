"""The structures' front end: DeLong's interval under decay, DelayedAUC's keys in a
time window, the unpaired test with zero variances, one bound on every bin count, and
sliding_window's ``at``.

References are independent of the package: DeLong's variance by its definition in
exact fractions (O(n^2)), a dict model of the live predictions, closed forms.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from hmeasure_stream import DynamicAUC, auc_ci, auc_variance, sliding_window

# Random data: the from-scratch references may see an AUC below 0.5.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


# ---------------------------------------------------------------------------
# DeLong's interval under decay


def definition_variance(y, s, w):
    """DeLong's variance with frequency weights by its definition, in exact fractions:
    weighted placements against every point of the other class, O(n^2)."""
    y = np.asarray(y)
    s = np.asarray(s, dtype=float)
    w = [Fraction(float(v)) for v in w]
    pos = [i for i in range(y.size) if y[i] == 1]
    neg = [j for j in range(y.size) if y[j] == 0]
    total_pos = sum(w[i] for i in pos)
    total_neg = sum(w[j] for j in neg)

    def psi(i, j):
        return Fraction(1) if s[i] > s[j] else Fraction(1, 2) if s[i] == s[j] else Fraction(0)

    v10 = {i: sum(w[j] * psi(i, j) for j in neg) / total_neg for i in pos}
    v01 = {j: sum(w[i] * psi(i, j) for i in pos) / total_pos for j in neg}
    area = sum(w[i] * v10[i] for i in pos) / total_pos
    s10 = sum(w[i] * (v10[i] - area) ** 2 for i in pos) / (total_pos - 1)
    s01 = sum(w[j] * (v01[j] - area) ** 2 for j in neg) / (total_neg - 1)
    return s10 / total_pos + s01 / total_neg


def decayed_rows(y, s, end, window, half_life):
    """The rows a count window with decay holds after rows 0..end, and their weights
    2^(-age / half_life) relative to the newest row."""
    start = 0 if window is None else max(0, end + 1 - window)
    ages = end - np.arange(start, end + 1)
    return y[start:end + 1], s[start:end + 1], 2.0 ** (-ages / half_life)


def separated(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, y + rng.random(n)


@pytest.mark.parametrize("half_life", [7.3, 37.0, 50.0])
@pytest.mark.parametrize("window", [None, 150])
def test_decayed_interval_of_separated_data_is_exact(window, half_life):
    # Perfectly separated: every placement is 1, the variance is exactly 0.
    n = 1200
    y, s = separated(n, 5)
    tracker = DynamicAUC(window=window, half_life=half_life, variance=True)
    for end in range(n):
        tracker.add(int(y[end]), float(s[end]))
        if end % 97 != 96:
            continue
        rows = decayed_rows(y, s, end, window, half_life)
        assert auc_variance(*rows[:2], sample_weight=rows[2]) <= 1e-30
        assert tracker.auc_variance <= 1e-30
        low, high, _ = auc_ci(*rows[:2], sample_weight=rows[2])
        interval = tracker.auc_ci()
        assert abs(interval.low - low) <= 1e-10 and abs(interval.high - high) <= 1e-10
        assert interval.low >= 1.0 - 1e-12
    rows = decayed_rows(y, s, n - 1, 200 if window is None else window, half_life)
    assert definition_variance(*rows) == 0


def test_decayed_interval_recorded_at_every_row():
    n, half_life, window = 400, 23.0, 120
    y, s = separated(n, 6)
    result = sliding_window(y, s, window, half_life=half_life,
                            metrics=("auc_var", "auc_lo", "auc_hi"))
    assert np.nanmax(result["auc_var"]) <= 1e-30
    assert np.nanmin(result["auc_lo"]) >= 1.0 - 1e-12
    for end in (60, 250, n - 1):
        rows = decayed_rows(y, s, end, window, half_life)
        low, high, _ = auc_ci(*rows[:2], sample_weight=rows[2])
        assert abs(result["auc_lo"][end] - low) <= 1e-10
        assert abs(result["auc_hi"][end] - high) <= 1e-10


def test_decayed_interval_of_nearly_separated_data():
    # One pair out of order, the culprit decaying: a variance near 0 whose root the
    # interval reads to 1e-10.
    n, half_life = 300, 19.0
    y, s = separated(n, 7)
    s[0] = 0.5 if y[0] == 1 else 1.5
    tracker = DynamicAUC(half_life=half_life, variance=True)
    for label, score in zip(y, s, strict=True):
        tracker.add(int(label), float(score))
    rows = decayed_rows(y, s, n - 1, None, half_life)
    exact = float(definition_variance(*rows))
    assert 0 < exact < 1e-6
    assert tracker.auc_variance == pytest.approx(exact, rel=1e-9)
    low, high, _ = auc_ci(*rows[:2], sample_weight=rows[2])
    assert abs(tracker.auc_ci().low - low) <= 1e-10


def test_decayed_variance_follows_the_definition_after_removals():
    n, half_life = 260, 15.0
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 3 * y, 1)
    tracker = DynamicAUC(window=90, half_life=half_life, variance=True)
    for end in range(n):
        tracker.add(int(y[end]), float(s[end]))
        if end % 37 == 36:
            rows = decayed_rows(y, s, end, 90, half_life)
            exact = float(definition_variance(*rows))
            assert math.isclose(tracker.auc_variance, exact, rel_tol=1e-9, abs_tol=1e-22)
