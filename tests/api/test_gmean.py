"""The window metric "gmean" (MOA's G-mean at the threshold): one reader, one table entry."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

from hmeasure_stream import METRICS, SlidingWindow, Threshold, sliding_window


def gmean_by_counting(y, s, w, threshold):
    """sqrt(sens * spec) of "class 1 when s >= threshold", counted with numpy."""
    predicted = s >= threshold
    positives, negatives = w[y == 1].sum(), w[y == 0].sum()
    if not (positives > 0 and negatives > 0):
        return np.nan
    sens = w[predicted & (y == 1)].sum() / positives
    spec = w[~predicted & (y == 0)].sum() / negatives
    return np.sqrt(sens * spec)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("threshold", [0.5, 1.25, 3.0])
def test_gmean_of_every_window_equals_counting(weighted, threshold):
    rng = np.random.default_rng(11)
    n, window = 400, 37
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 16, n) / 4  # ties, and scores exactly at the thresholds
    w = rng.choice([0.5, 1.0, 3.0], n) if weighted else np.ones(n)
    got = sliding_window(y, s, window, metrics=["gmean", "er", Threshold(threshold)],
                         sample_weight=w if weighted else None)
    expected = [gmean_by_counting(y[max(0, end + 1 - window):end + 1],
                                  s[max(0, end + 1 - window):end + 1],
                                  w[max(0, end + 1 - window):end + 1], threshold)
                for end in range(n)]
    np.testing.assert_allclose(got["gmean"], expected, rtol=1e-14, atol=0)


def test_gmean_of_a_window_read_and_pickled():
    rng = np.random.default_rng(12)
    y, s = rng.integers(0, 2, 300), rng.normal(size=300)
    monitor = SlidingWindow(50, ("auc", "gmean", Threshold(0.2)))
    monitor.update(y[:200], s[:200])
    clone = pickle.loads(pickle.dumps(monitor))
    for tracker in (monitor, clone):
        tracker.update(y[200:], s[200:])
        assert tracker["gmean"] == pytest.approx(
            gmean_by_counting(y[-50:], s[-50:], np.ones(50), 0.2), rel=1e-14)
        assert tracker.results()["gmean"] == tracker["gmean"]


def test_gmean_is_nan_with_one_class():
    got = sliding_window([1, 1, 0], [0.2, 0.7, 0.4], 2, metrics=["gmean"])["gmean"]
    # The last window, (0.7, class 1) and (0.4, class 0), is split at 0.5: sens = spec = 1.
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == 1.0


def test_the_table_offers_gmean_to_the_command_line(tmp_path):
    assert METRICS["gmean"].options is Threshold and METRICS["gmean"].reader is not None
    rows = "label,score\n" + "".join(f"{i % 2},{(i * 7 % 10) / 10}\n" for i in range(40))
    source = tmp_path / "rows.csv"
    source.write_text(rows)
    result = subprocess.run(
        [sys.executable, "-m", "hmeasure_stream", str(source), "--metrics", "gmean",
         "--threshold", "0.45", "--window", "10", "--no-progress"],
        capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    header, last = lines[0].split(","), lines[-1].split(",")
    y = np.array([i % 2 for i in range(40)])
    s = np.array([(i * 7 % 10) / 10 for i in range(40)])
    assert "gmean" in header
    assert float(last[header.index("gmean")]) == pytest.approx(
        gmean_by_counting(y[-10:], s[-10:], np.ones(10), 0.45), rel=1e-12)
