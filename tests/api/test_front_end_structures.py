"""The structures' front end: DeLong's interval under decay, DelayedAUC's keys in a
time window, the unpaired test with zero variances, one bound on every bin count, and
sliding_window's ``at``.

References are independent of the package: DeLong's variance by its definition in
exact fractions (O(n^2)), a dict model of the live predictions, closed forms.
"""

import math

import numpy as np
import pytest
from reference_impl import brute_auc_value, delong_variance_exact

from hmeasure_stream import DynamicAUC, auc_ci, auc_variance, sliding_window

# Random data: the from-scratch references may see an AUC below 0.5.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


# ---------------------------------------------------------------------------
# DeLong's interval under decay


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
        low, high = auc_ci(*rows[:2], sample_weight=rows[2])
        interval = tracker.auc_ci()
        assert abs(interval.low - low) <= 1e-10 and abs(interval.high - high) <= 1e-10
        assert interval.low >= 1.0 - 1e-12
    rows = decayed_rows(y, s, n - 1, 200 if window is None else window, half_life)
    assert delong_variance_exact(*rows) == 0


def test_decayed_interval_recorded_at_every_row():
    n, half_life, window = 400, 23.0, 120
    y, s = separated(n, 6)
    result = sliding_window(y, s, window, half_life=half_life,
                            metrics=("auc_var", "auc_lo", "auc_hi"))
    assert np.nanmax(result["auc_var"]) <= 1e-30
    assert np.nanmin(result["auc_lo"]) >= 1.0 - 1e-12
    for end in (60, 250, n - 1):
        rows = decayed_rows(y, s, end, window, half_life)
        low, high = auc_ci(*rows[:2], sample_weight=rows[2])
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
    exact = float(delong_variance_exact(*rows))
    assert 0 < exact < 1e-6
    assert tracker.auc_variance == pytest.approx(exact, rel=1e-9)
    low, _ = auc_ci(*rows[:2], sample_weight=rows[2])
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
            exact = float(delong_variance_exact(*rows))
            assert math.isclose(tracker.auc_variance, exact, rel_tol=1e-9, abs_tol=1e-22)


# ---------------------------------------------------------------------------
# DelayedAUC: a key predicted again once its first prediction left the window


class LivePredictions:
    """The model: a dict of the live predictions, key -> [time, number, score, prob,
    label or None], the window moving with each prediction (times in seconds), and the
    predictions that left it unlabelled, remembered for one more window."""

    def __init__(self, seconds=None, count=None):
        self.seconds, self.count = seconds, count
        self.live, self.left, self.made, self.late = {}, {}, 0, 0

    def _out(self, entry, time, number, windows):
        if self.seconds is not None:
            return entry[0] <= time - windows * self.seconds
        return entry[1] <= number - windows * self.count

    def predict(self, key, time, score, prob):
        """True if the prediction is taken, False if refused (the key is live at ``time``:
        a refused prediction moves no window)."""
        if key in self.live and not self._out(self.live[key], time, self.made, 1):
            return False
        for name in list(self.live):
            if self._out(self.live[name], time, self.made, 1):
                entry = self.live.pop(name)
                if entry[4] is None:
                    self.left[name] = entry
        for name in list(self.left):
            if self._out(self.left[name], time, self.made, 2):
                del self.left[name]
        self.left.pop(key, None)
        self.live[key] = [time, self.made, score, prob, None]
        self.made += 1
        return True

    def label(self, key, label):
        """"ok", "late", "twice" (ValueError) or "unknown" (KeyError)."""
        entry = self.live.get(key)
        if entry is None:
            entry = self.left.get(key)
            if entry is None:
                return "unknown"
            if entry[4] is not None:
                return "twice"
            entry[4] = label
            self.late += 1
            return "late"
        if entry[4] is not None:
            return "twice"
        entry[4] = label
        return "ok"


def run_delayed_sequence(seed, window, model):
    from hmeasure_stream import DelayedAUC, expected_auc

    rng = np.random.default_rng(seed)
    tracker = DelayedAUC(window=window)
    time, unmatched = 0, 0
    for _ in range(400):
        action = rng.choice(["predict", "predict", "label", "forget", "wait"])
        key = int(rng.integers(0, 5))
        if action == "wait":
            time += int(rng.choice([0, 1, 4, 9, 10, 11, 3600]))
            continue
        if action == "predict":
            score = float(rng.choice([0.1, 0.3, 0.5, 0.7, 0.9]))
            prob = float(rng.choice([0.2, 0.5, 0.8]))
            taken = model.predict(key, time, score, prob)
            if taken:
                tracker.predict(key, score, prob, time=time)
            else:
                with pytest.raises(ValueError, match="already in the window"):
                    tracker.predict(key, score, prob, time=time)
        elif action == "label":
            label = int(rng.integers(0, 2))
            outcome = model.label(key, label)
            if outcome in ("ok", "late"):
                tracker.label(key, label)
            elif outcome == "twice":
                with pytest.raises(ValueError, match="labelled already"):
                    tracker.label(key, label)
            else:  # matches no prediction the monitor remembers: dropped and counted
                tracker.label(key, label)
                unmatched += 1
        else:
            if key in model.live:
                del model.live[key]
                tracker.forget(key)
            else:
                with pytest.raises(KeyError):
                    tracker.forget(key)
        live = model.live.values()
        assert len(tracker) == len(model.live)
        assert all(name in tracker for name in model.live)
        assert tracker.n_pending == sum(entry[4] is None for entry in live)
        assert tracker.n_late_labels == model.late
        assert tracker.n_unmatched_labels == unmatched
        realized = brute_auc_value([entry[4] for entry in live if entry[4] is not None],
                                   [entry[2] for entry in live if entry[4] is not None])
        assert tracker.auc == pytest.approx(realized, nan_ok=True, rel=1e-12)
        probs = [entry[3] if entry[4] is None else float(entry[4]) for entry in live]
        scores = [entry[2] for entry in live]
        has_both = 0 < sum(probs) < len(probs)
        expected = expected_auc(probs, scores) if has_both else math.nan
        assert tracker.expected_auc == pytest.approx(expected, nan_ok=True, rel=1e-12)
        time += int(rng.integers(0, 3))
    return model


@pytest.mark.parametrize("seed", range(6))
def test_delayed_key_predicted_again_after_leaving_a_time_window(seed):
    model = run_delayed_sequence(seed, "10s", LivePredictions(seconds=10))
    assert model.made > 50


@pytest.mark.parametrize("seed", range(6))
def test_delayed_key_predicted_again_after_leaving_a_count_window(seed):
    model = run_delayed_sequence(seed, 3, LivePredictions(count=3))
    assert model.made > 50


def test_delayed_key_reused_an_hour_later():
    from hmeasure_stream import DelayedAUC

    tracker = DelayedAUC(window="10s")
    tracker.predict("a", 0.9, time=0)
    tracker.predict("a", 0.2, time=3600)
    assert len(tracker) == 1 and tracker.n_pending == 1
    tracker.label("a", 0)
    assert tracker.n_late_labels == 0
    with pytest.raises(ValueError, match="already in the window"):
        tracker.predict("a", 0.5, time=3605)
    # The refusal changed nothing.
    assert len(tracker) == 1 and tracker.n_pending == 0
    # In a batch: each prediction against the window as it enters.
    counted = DelayedAUC(window=3)
    counted.predict_many(["a", "b"], [0.1, 0.2])
    with pytest.raises(ValueError, match="'a' is already in the window"):
        counted.predict_many(["a", "c"], [0.3, 0.4])
    assert len(counted) == 2 and "c" not in counted
    counted.predict_many(["c", "a"], [0.3, 0.4])
    assert len(counted) == 3 and all(key in counted for key in "abc")
    assert counted.n_pending == 3
    timed = DelayedAUC(window="10s")
    timed.predict_many(["a", "b"], [0.1, 0.2], times=[0, 5])
    with pytest.raises(ValueError, match="'b' is already in the window"):
        timed.predict_many(["a", "b"], [0.3, 0.4], times=[10, 14])
    timed.predict_many(["a", "b"], [0.3, 0.4], times=[10, 15])
    assert len(timed) == 2 and timed.n_pending == 2


def test_delayed_command_line_reuses_an_id_after_the_window(tmp_path, capsys):
    from hmeasure_stream.cli import main

    source = tmp_path / "stream.csv"
    source.write_text("id,label,score,time\na,,0.9,0\nb,,0.2,1\na,1,,2\nb,0,,2\n"
                      "a,,0.3,3600\nc,,0.8,3601\na,0,,3602\nc,1,,3602\n")
    out = tmp_path / "out.csv"
    code = main([str(source), "--delayed", "--id-col", "id", "--window", "10s",
                 "--time-col", "time", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    last = out.read_text().strip().splitlines()[-1].split(",")
    # The window at t=3602: a (0.3, class 0) and c (0.8, class 1), both labelled.
    assert last[-3:] == [str(brute_auc_value([0, 1], [0.3, 0.8])), "1.0", "0"]


# ---------------------------------------------------------------------------
# The unpaired test with both variances 0


def test_unpaired_test_with_both_variances_zero():
    from hmeasure_stream import auc_test

    y = [0, 0, 0, 1, 1]
    separated_scores, inverted_scores = [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]
    # AUC 1 and AUC 0: every placement is 1 (or 0), both variances are 0.
    assert delong_variance_exact(y, separated_scores, [1] * 5) == 0
    assert delong_variance_exact(y, inverted_scores, [1] * 5) == 0
    paired_equal = auc_test(y, separated_scores, separated_scores)
    assert paired_equal == (0.0, 1.0, 0.0, 0.0, math.inf)
    equal = auc_test(y, separated_scores, [10, 20, 30, 40, 50], y_true2=y)
    assert equal == paired_equal
    for alternative, pvalue in (("two-sided", 0.0), ("greater", 0.0), ("less", 1.0)):
        apart = auc_test(y, separated_scores, inverted_scores, y_true2=y,
                         alternative=alternative)
        assert apart == (math.inf, pvalue, 1.0, 0.0, math.inf)
        reverse = auc_test(y, inverted_scores, separated_scores, y_true2=y,
                           alternative=alternative)
        assert reverse == (-math.inf, {"two-sided": 0.0, "greater": 1.0, "less": 0.0}[
            alternative], -1.0, 0.0, math.inf)
    assert auc_test(y, separated_scores, separated_scores, y_true2=y,
                    alternative="less").pvalue == 0.5


def test_unpaired_test_with_one_variance_zero():
    from scipy import stats

    from hmeasure_stream import auc_test

    y1, s1 = [0, 0, 0, 1, 1], [1, 2, 3, 4, 5]
    y2, s2 = [0, 1, 0, 1, 0, 1, 1], [1, 2, 3, 4, 5, 6, 0]
    variance2 = float(delong_variance_exact(y2, s2, [1] * 7))
    assert variance2 > 0
    result = auc_test(y1, s1, s2, y_true2=y2)
    # Welch and Satterthwaite with V1 = 0: (V2)^2 / (V2^2 / (n2 - 1)) = n2 - 1.
    assert result.df == pytest.approx(6.0, rel=1e-15)
    area2 = brute_auc_value(y2, s2)
    assert result.statistic == pytest.approx((1.0 - area2) / math.sqrt(variance2), rel=1e-12)
    assert result.pvalue == pytest.approx(2 * stats.t.sf(abs(result.statistic), 6), rel=1e-9)


# ---------------------------------------------------------------------------
# One bound on every bin count

TOO_MANY = 10**11
BOUND = 2**24


def bound_message(name):
    return rf"{name} must be at most 16777216 \(2\*\*24\), got 100000000000"


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_functions_bound_n_bins(strategy):
    from hmeasure_stream import calibration_error, calibration_report

    y, p = [0, 1], [0.2, 0.7]
    for function in (calibration_error, calibration_report):
        with pytest.raises(ValueError, match=bound_message("n_bins")):
            function(y, p, n_bins=TOO_MANY, strategy=strategy)
    # At the bound: each point alone in its bin, ECE the mean of |p - y|.
    assert calibration_error(y, p, n_bins=BOUND, strategy=strategy) == pytest.approx(0.25)


def test_calibration_bins_option_and_window_bound_n_bins():
    from hmeasure_stream import CalibrationBins, SlidingWindow

    with pytest.raises(ValueError, match=bound_message("n_bins")):
        CalibrationBins(TOO_MANY)
    with pytest.raises(ValueError, match=bound_message("n_bins")):
        SlidingWindow(5, metrics=[CalibrationBins(n_bins=TOO_MANY)])
    assert CalibrationBins(BOUND).n_bins == BOUND


def test_command_line_bounds_n_bins(tmp_path, capsys):
    from hmeasure_stream.cli import main

    source = tmp_path / "scores.csv"
    source.write_text("label,score\n0,0.1\n1,0.9\n0,0.3\n1,0.7\n")
    out = tmp_path / "out.csv"
    code = main([str(source), "--metrics", "ece", "--n-bins", str(TOO_MANY), "--window", "3",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("hmeasure-stream: ")
    assert "--n-bins" in err and "16777216" in err and "Traceback" not in err
    assert not out.exists()


# ---------------------------------------------------------------------------
# sliding_window's rows ``at``: the messages name the user's values


AT_Y = [0, 1, 0, 1, 1, 0]
AT_S = [0.2, 0.9, 0.4, 0.3, 0.8, 0.1]


@pytest.mark.parametrize(("at", "message"), [
    ([2**63], r"at\[0\] = 9223372036854775808 is not a row of the 6 points \(0 to 5\)"),
    (np.array([1, 2**64 - 1], dtype=np.uint64),
     r"at\[1\] = 18446744073709551615 is not a row of the 6 points"),
    ([1, 2**64], r"at\[1\] = 18446744073709551616 is not a row of the 6 points"),
    ([-2**70], r"at\[0\] = -1180591620717411303424 is not a row"),
    ([-1], r"at\[0\] = -1 is not a row of the 6 points \(0 to 5\)"),
    ([2, 6], r"at\[1\] = 6 is not a row of the 6 points \(0 to 5\)"),
    ([3, 1], r"at must increase strictly: at\[1\] = 1 follows 3"),
    ([1, 1], r"at must increase strictly: at\[1\] = 1 follows 1"),
    ([1, 3.5], r"at must hold row indices \(integers\): at\[1\] = 3\.5"),
    ([3.0], r"at must hold row indices \(integers\): at\[0\] = 3\.0"),
    ([True], r"at must hold row indices \(integers\): at\[0\] = True"),
    (["2"], r"at must hold row indices \(integers\): at\[0\] = '2'"),
])
def test_sliding_window_at_messages_name_the_value(at, message):
    with pytest.raises(ValueError, match=message):
        sliding_window(AT_Y, AT_S, 3, at=at)
    with pytest.raises(ValueError, match=message):
        sliding_window(AT_Y, AT_S, 3, metrics=("auc", "brier"), at=at)


def test_sliding_window_at_takes_every_integer_type():
    every = sliding_window(AT_Y, AT_S, 3)["auc"]
    for at in ([3, 5], np.array([3, 5], dtype=np.uint64), np.array([3, 5], dtype=np.int8),
               (np.int64(3), np.uint64(5)), np.array([3, 5], dtype=object)):
        np.testing.assert_array_equal(sliding_window(AT_Y, AT_S, 3, at=at)["auc"], every[[3, 5]])
    assert sliding_window(AT_Y, AT_S, 3, at=[])["auc"].shape == (0,)
