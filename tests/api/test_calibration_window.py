"""The probability metrics of a window (brier, log_loss, ece, mce, expected_auc).

Every window of random streams is compared with an independent computation on
the rows it covers: scikit-learn's ``brier_score_loss``, ``log_loss`` and
``calibration_curve``, the exactly rounded sums of the definitions
(``math.fsum``, for bit-for-bit equality), exact rational bin sums
(``fractions``) and the O(n^2) expected Mann-Whitney count.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from reference_impl import (
    brute_auc_value,
    brute_ece,
    exact_brier,
    exact_log_loss,
    expected_parts,
)
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

from hmeasure_stream import (
    METRICS,
    CalibrationBins,
    SlidingWindow,
    brier_score,
    calibration_error,
    expected_auc,
    log_loss,
    sliding_window,
)
from hmeasure_stream._engines._calibration import CalibrationEngine
from hmeasure_stream.metric_table import CALIBRATION

pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

PROBABILITY_METRICS = ("brier", "log_loss", "ece", "mce", "expected_auc")
# Decayed points leave after this many half-lives (2^-60 of the newest).
DROP = 60


def stream(rng, n, ties=True):
    """Labels drawn from their probabilities (some 0, 1 and tied ones)."""
    p = rng.uniform(size=n)
    if ties:
        p = np.round(p, 1)
    p[rng.uniform(size=n) < 0.05] = 0.0
    p[rng.uniform(size=n) < 0.05] = 1.0
    y = (rng.uniform(size=n) < p).astype(int)
    return y, p


def assert_window(values, i, y, p, w, n_bins=10):
    """Every probability metric at step i against the rows (y, p, w) it covers."""
    assert values["brier"][i] == exact_brier(y, p, w)
    assert values["log_loss"][i] == exact_log_loss(y, p, w)
    assert values["brier"][i] == pytest.approx(brier_score_loss(y, p, sample_weight=w),
                                               rel=1e-12, abs=1e-15)
    assert values["log_loss"][i] == pytest.approx(
        sk_log_loss(y, p, sample_weight=w, labels=[0, 1]), rel=1e-12)
    ece, mce = brute_ece(y, p, w, n_bins)
    assert values["ece"][i] == pytest.approx(ece, rel=1e-13, abs=1e-15)
    assert values["mce"][i] == pytest.approx(mce, rel=1e-13, abs=1e-15)
    positive = w > 0
    assert values["ece"][i] == pytest.approx(calibration_error(
        y[positive], p[positive], n_bins=n_bins, sample_weight=w[positive]), rel=1e-12,
        abs=1e-15)
    assert values["expected_auc"][i] == pytest.approx(brute_auc_value(*expected_parts(p, p, w), exact=False), rel=1e-11,
                                                      nan_ok=True)


@pytest.mark.parametrize("window", [1, 7, 40])
@pytest.mark.parametrize("weighted", [False, True])
def test_count_windows_equal_the_definitions(window, weighted, rng):
    y, p = stream(rng, 300)
    w = rng.choice([1.0, 2.5, 0.125, 0.0], size=len(y)) if weighted else None
    values = sliding_window(y, p, window, PROBABILITY_METRICS, sample_weight=w)
    w = np.ones(len(y)) if w is None else w
    for i in range(len(y)):
        rows = slice(max(0, i - window + 1), i + 1)
        if not w[rows].sum() > 0:
            assert all(np.isnan(values[name][i]) for name in PROBABILITY_METRICS)
            continue
        assert_window(values, i, y[rows], p[rows], w[rows])


def test_brier_and_log_loss_equal_the_from_scratch_functions_bit_for_bit(rng):
    p = rng.uniform(size=1500)
    y = (rng.uniform(size=1500) < p).astype(int)
    w = rng.uniform(0.1, 5, size=1500)
    values = sliding_window(y, p, 100, ("brier", "log_loss"), sample_weight=w)
    for i in range(99, 1500, 7):
        rows = slice(i - 99, i + 1)
        assert values["brier"][i] == brier_score(y[rows], p[rows], sample_weight=w[rows])
        assert values["log_loss"][i] == log_loss(y[rows], p[rows], sample_weight=w[rows])


def test_unit_weights_equal_scikit_learn_calibration_curve(rng):
    y, p = stream(rng, 200, ties=False)
    values = sliding_window(y, p, 50, [CalibrationBins(5), "ece", "mce"])
    for i in range(49, len(y), 10):
        rows = slice(i - 49, i + 1)
        prob_true, prob_pred = calibration_curve(y[rows], p[rows], n_bins=5)
        # calibration_curve leaves out the empty bins: the weights of the others.
        index = np.searchsorted(np.linspace(0, 1, 6)[1:-1], p[rows])
        weight = np.bincount(index, minlength=5)
        weight = weight[weight > 0]
        gaps = np.abs(prob_true - prob_pred)
        assert values["ece"][i] == pytest.approx((weight * gaps).sum() / 50, rel=1e-12)
        assert values["mce"][i] == pytest.approx(gaps.max(), rel=1e-12)


def test_expected_auc_equals_the_from_scratch_function(rng):
    y, p = stream(rng, 150)
    w = rng.uniform(0.5, 2, size=len(y))
    values = sliding_window(y, p, 30, "expected_auc", sample_weight=w)
    for i in range(29, len(y), 5):
        rows = slice(i - 29, i + 1)
        assert values["expected_auc"][i] == pytest.approx(
            expected_auc(p[rows], sample_weight=w[rows]), rel=1e-12)
    # Labels are not used.
    assert np.array_equal(values["expected_auc"],
                          sliding_window(1 - y, p, 30, "expected_auc", sample_weight=w)[
                              "expected_auc"], equal_nan=True)


def irregular_times(rng, n):
    return np.cumsum(rng.choice([0.0, 1.0, 2.5, 7.0], size=n)) + 1.7e9


def test_duration_windows_equal_the_definitions(rng):
    y, p = stream(rng, 200)
    w = rng.choice([1.0, 3.0, 0.5], size=len(y))
    t = irregular_times(rng, len(y))
    values = sliding_window(y, p, "20s", PROBABILITY_METRICS, sample_weight=w,
                            times=pd.to_datetime(t, unit="s"))
    for i in range(len(y)):
        rows = (np.arange(len(y)) <= i) & (t > t[i] - 20)
        assert_window(values, i, y[rows], p[rows], w[rows])


@pytest.mark.parametrize("half_life", [0.5, 3, 7.5])
def test_decay_equals_the_decayed_weights(half_life, rng):
    # 0.5 points: the stored weights are rescaled every ~32 points, points leave after 30.
    y, p = stream(rng, 400)
    w = rng.choice([1.0, 2.0, 0.25], size=len(y))
    tracker = SlidingWindow(None, PROBABILITY_METRICS, half_life=half_life)
    values = {name: [] for name in PROBABILITY_METRICS}
    for start in range(0, len(y), 37):
        chunk = tracker.update(y[start:start + 37], p[start:start + 37], w[start:start + 37])
        for name in PROBABILITY_METRICS:
            values[name].extend(chunk[name])
        tracker._check()
    # (The stored weights are rescaled once the newest factor passes 2^64.)
    assert (tracker._forgettings[0].rescales > 0) == (len(y) / half_life > 64)
    for i in range(0, len(y), 3):
        age = i - np.arange(i + 1)
        held = age <= DROP * half_life
        decayed = (w[:i + 1] * 2.0 ** (-age / half_life))[held]
        yy, pp = y[:i + 1][held], p[:i + 1][held]
        for name, expected in (("brier", exact_brier(yy, pp, decayed)),
                               ("log_loss", exact_log_loss(yy, pp, decayed)),
                               ("ece", brute_ece(yy, pp, decayed)[0]),
                               ("mce", brute_ece(yy, pp, decayed)[1]),
                               ("expected_auc", brute_auc_value(*expected_parts(pp, pp, decayed), exact=False))):
            assert values[name][i] == pytest.approx(expected, rel=1e-9, abs=1e-12,
                                                    nan_ok=True)


def test_chunks_equal_one_call_and_the_state_is_that_of_the_points(rng):
    # The exact sums hold the same state for the same points, however they came.
    y, p = stream(rng, 500)
    w = rng.uniform(0, 3, size=len(y))
    whole = sliding_window(y, p, 64, PROBABILITY_METRICS, sample_weight=w)
    tracker = SlidingWindow(64, PROBABILITY_METRICS)
    start = 0
    for size in rng.integers(1, 50, size=100):
        chunk = tracker.update(y[start:start + size], p[start:start + size],
                               w[start:start + size])
        for name in PROBABILITY_METRICS:
            assert np.array_equal(chunk[name], whole[name][start:start + size],
                                  equal_nan=True)
        tracker._check()
        start += size
        if start >= len(y):
            break
    end = min(start, len(y))
    fresh = SlidingWindow(64, PROBABILITY_METRICS)
    fresh.update(y[end - 64:end], p[end - 64:end], w[end - 64:end])
    engine, again = tracker._engines[0], fresh._engines[0]
    # The same sums (each in its engine's units, a power of two fixed by its first weight).
    assert np.array_equal(engine.sums() * engine.scale, again.sums() * again.scale)
    for name in ("brier", "log_loss", "ece", "mce"):
        assert tracker[name] == fresh[name]


def test_no_drift_after_many_updates():
    # 10^6 updates through a window of 1000 (unit and sample weights): the values equal
    # the exactly rounded definitions of the last window, bit for bit.
    rng = np.random.default_rng(7)
    n, window = 10**6, 1000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(np.int8)
    w = rng.uniform(0.1, 10, size=n)
    for weights in (None, w):
        tracker = SlidingWindow(window, ("brier", "log_loss", "ece"))
        for start in range(0, n, 100_000):
            tracker.update(y[start:start + 100_000], p[start:start + 100_000],
                           None if weights is None else weights[start:start + 100_000])
        last = slice(n - window, n)
        ww = np.ones(window) if weights is None else weights[last]
        assert tracker["brier"] == exact_brier(y[last], p[last], ww)
        assert tracker["log_loss"] == exact_log_loss(y[last], p[last], ww)
        assert tracker["ece"] == pytest.approx(brute_ece(y[last], p[last], ww)[0], rel=1e-14)
        tracker._check()


def test_refused_update_leaves_the_window_byte_identical(rng):
    y, p = stream(rng, 50)
    for options in ({}, {"half_life": 5}, {"window": "10s"}):
        window = options.pop("window", 20)
        times = irregular_times(rng, 60)
        tracker = SlidingWindow(window, PROBABILITY_METRICS, **options)
        tracker.update(y[:30], p[:30], times=times[:30])
        before = pickle.dumps(tracker)
        bad = p[30:40].copy()
        bad[4] = 1.5
        with pytest.raises(ValueError, match=r"'brier'.*1\.5 at position 4"):
            tracker.update(y[30:40], bad, times=times[30:40])
        bad[4] = -0.25
        with pytest.raises(ValueError, match=r"probabilities of class 1.*position 4"):
            tracker.update(y[30:40], bad, times=times[30:40])
        assert pickle.dumps(tracker) == before
        tracker._check()
    with pytest.raises(ValueError, match=r"'ece'.*at position 2"):
        sliding_window([0, 1, 1], [0.5, 0.2, 2.0], 2, "ece")


def test_pickles_mid_stream(rng):
    y, p = stream(rng, 120)
    for options in ({"window": 15}, {"window": None, "half_life": 4},
                    {"window": "9s"}):
        window = options.pop("window")
        t = irregular_times(rng, len(y))
        tracker = SlidingWindow(window, PROBABILITY_METRICS, **options)
        first = tracker.update(y[:60], p[:60], times=t[:60])
        copy = pickle.loads(pickle.dumps(tracker))
        copy._check()
        rest = tracker.update(y[60:], p[60:], times=t[60:])
        again = copy.update(y[60:], p[60:], times=t[60:])
        for name in PROBABILITY_METRICS:
            assert np.array_equal(rest[name], again[name], equal_nan=True)
            assert first[name].shape == (60,)


def test_engine_pickle_format_is_checked():
    engine = CalibrationEngine(("brier",))
    engine.add_many(np.array([0, 1], dtype=np.uint8), np.array([0.2, 0.7]))
    function, arguments = engine.__reduce__()
    assert function(*arguments).brier == engine.brier
    with pytest.raises(ValueError, match="format"):
        function(99, *arguments[1:])
    with pytest.raises(ValueError, match="cannot unpickle"):
        function(arguments[0], arguments[1], arguments[2], arguments[3], arguments[4],
                 arguments[5], arguments[6][:, :3], *arguments[7:])


def test_options_and_table():
    assert CalibrationBins().n_bins == 10
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
            CalibrationBins(bad)
    for name in PROBABILITY_METRICS:
        assert METRICS[name].needs == {CALIBRATION}
    # An options object stands for "ece"; its bins serve "mce" too.
    tracker = SlidingWindow(5, [CalibrationBins(3), "mce"])
    assert tracker.metrics == ("mce",)
    assert SlidingWindow(5, CalibrationBins(3)).metrics == ("ece",)
    # The probability metrics alone need no order engine; with "auc" both.
    assert len(SlidingWindow(5, "brier")._engines) == 1
    assert len(SlidingWindow(5, ("auc", "brier", "expected_auc"))._engines) == 2


def test_mixed_with_ranking_metrics(rng):
    y, p = stream(rng, 100)
    values = sliding_window(y, p, 25, ("auc", "brier", "h", "expected_auc", "er"))
    alone = sliding_window(y, p, 25, "auc")
    assert np.allclose(values["auc"], alone["auc"], equal_nan=True)
    i = 60
    rows = slice(i - 24, i + 1)
    assert values["brier"][i] == exact_brier(y[rows], p[rows], np.ones(25))


def test_min_periods_and_empty_windows():
    values = sliding_window([0, 1, 1], [0.2, 0.9, 0.5], 2, PROBABILITY_METRICS,
                            sample_weight=[0.0, 0.0, 1.0])
    assert np.isnan(values["brier"][:2]).all() and values["brier"][2] == 0.25
    # One class alone: the scores stay defined, the expected AUC needs both expected classes.
    values = SlidingWindow(3, PROBABILITY_METRICS, min_periods=2).update([1, 1], [1.0, 1.0])
    assert np.isnan(values["brier"][0]) and values["brier"][1] == 0.0
    assert np.isnan(values["expected_auc"][1])


def state(value):
    """What an engine's pickle holds, comparable: arrays by dtype, shape and bytes, floats
    in hexadecimal, engines by their reductions."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return tuple(state(item) for item in value)
    if value is None or isinstance(value, (str, int, np.generic)) or callable(value):
        return repr(value)
    return state(value.__reduce__()[1])


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol_round_trips_byte_identical(protocol, rng):
    y, p = stream(rng, 30)
    w = rng.uniform(0, 2, size=30)
    tracker = SlidingWindow(8, (*PROBABILITY_METRICS, CalibrationBins(4)))
    tracker.update(y[:20], p[:20], w[:20])
    copy = pickle.loads(pickle.dumps(tracker, protocol=protocol))
    assert state(copy._engines[0]) == state(tracker._engines[0])
    copy._check()
    mine, theirs = (t.update(y[20:], p[20:], w[20:]) for t in (tracker, copy))
    for name in PROBABILITY_METRICS:
        np.testing.assert_array_equal(mine[name], theirs[name])
