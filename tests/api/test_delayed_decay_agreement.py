"""DelayedAUC's decay and the windows' (``Forgetting``) are one rule: predictions labelled
as they are made give the realized AUC, the points held and the interval of
``DynamicAUC(half_life=)`` on the same points, and the weighted AUC from scratch with
weights 2^(-age / half_life)."""

import datetime

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from hmeasure_stream import DelayedAUC, DynamicAUC

SECOND = 10**9


def _both(n, seed, half_life, window=None, timed=False):
    """A DelayedAUC whose predictions are labelled at once and a DynamicAUC given the same
    points, after each point: (delayed, dynamic, labels, scores, times in ns or None)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)  # ties within and across classes
    times = np.cumsum(rng.integers(0, 3, n)) * SECOND if timed else None
    delayed = DelayedAUC(window, half_life=half_life)
    dynamic = DynamicAUC(window=window, half_life=half_life)
    for i in range(n):
        time = None if times is None else np.datetime64(int(times[i]), "ns")
        delayed.predict(i, float(s[i]), 0.5, time=time)
        delayed.label(i, int(y[i]))
        dynamic.add(int(y[i]), float(s[i]), time=time)
        yield delayed, dynamic, y[:i + 1], s[:i + 1], None if times is None else times[:i + 1]


def _from_scratch(y, s, ages, half_life, window):
    """The weighted AUC of the points a window and a decay hold (nan without a class)."""
    held = ages <= 60 * half_life
    if window is not None:
        held[:-window] = False
    if len(set(y[held])) < 2:
        return np.nan
    return roc_auc_score(y[held], s[held], sample_weight=2.0 ** (-ages[held] / half_life))


# (half_life, window, the half-life in points or seconds)
@pytest.mark.parametrize(("half_life", "window", "in_units"), [
    (7.5, None, 7.5), (1 / 3, None, 1 / 3), (5.0, 40, 5.0), ("3s", None, 3.0),
    (datetime.timedelta(seconds=3), None, 3.0), (np.timedelta64(3000, "ms"), None, 3.0),
    (np.timedelta64(2, "s"), "5s", 2.0)])
def test_realized_auc_is_dynamic_auc_with_the_same_decay(half_life, window, in_units):
    timed = not isinstance(half_life, float)
    count_window = window if isinstance(window, int) else None
    for step, (delayed, dynamic, y, s, times) in enumerate(
            _both(400, 7, half_life, window, timed)):
        assert len(delayed) == len(dynamic)
        np.testing.assert_equal(delayed.auc, dynamic.auc)
        if step % 37 == 0 and step:
            ages = ((times[-1] - times) / SECOND if timed
                    else np.arange(len(y))[::-1].astype(float))
            held = np.ones(len(y), dtype=bool)
            if window == "5s":
                held = times[-1] - times < 5 * SECOND
            expected = _from_scratch(y[held], s[held], ages[held], in_units, count_window)
            np.testing.assert_allclose(delayed.auc, expected, rtol=1e-12, atol=0)


def test_the_decay_rescales_alike_over_a_long_stream():
    # A half-life of half a point: the factors pass 2**64 every 32 points, so the weights
    # are rescaled hundreds of times; points leave after 30 points.
    for delayed, dynamic, _, _, _ in _both(12000, 11, 0.5):
        assert len(delayed) == len(dynamic) <= 31
        np.testing.assert_equal(delayed.auc, dynamic.auc)
    interval, other = delayed.auc_ci, dynamic.auc_ci()
    np.testing.assert_allclose([interval.low, interval.high], [other.low, other.high],
                               rtol=1e-12)


def test_a_point_one_nanosecond_past_the_drop_age_leaves_every_structure():
    # Half-life 2 days: 60 of them are 1.0368e16 ns, where doubles are 2 ns apart.
    drop = 60 * 2 * 86400 * SECOND
    delayed, dynamic = DelayedAUC(half_life="2d"), DynamicAUC(half_life="2d")
    for key, (at, label, score) in enumerate([(0, 0, 0.5), (0, 1, 0.9), (drop + 1, 1, 0.1)]):
        time = np.datetime64(at, "ns")
        delayed.predict(key, score, 0.5, time=time)
        delayed.label(key, label)
        dynamic.add(label, score, time=time)
    assert (len(delayed), len(dynamic)) == (1, 1)
    assert dynamic._check()
