import pickle
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import brute_auc_value, window_points
from strategies import labelled_scores

from hmeasure_stream import (
    WINDOW_METRICS,
    DynamicAUC,
    HCost,
    InvertedScoresWarning,
    SlidingWindow,
    auc,
    h_measure,
    sliding_window,
)


def treap_sliding(y, s, window):
    """The treap engine's compiled loop with unit weights (what DynamicAUC runs).

    ``sliding_window`` sends unit weights to a rank-indexed counter instead;
    ``SlidingWindow``, which cannot know future scores, runs the treap, so this
    keeps the treap's unit-weight path under the same tests.
    """
    return SlidingWindow(window, capacity=1).update(y, s)["auc"]


def windowed_reference(y, s, w, window):
    out = np.full(len(y), np.nan)
    for i in range(len(y)):
        start = 0 if window is None else max(0, i + 1 - window)
        part = slice(start, i + 1)
        yp, wp = y[part], w[part]
        if wp[yp == 0].sum() > 0 and wp[yp == 1].sum() > 0:
            with warnings.catch_warnings():  # windows below AUC 0.5 are part of the check
                warnings.simplefilter("ignore", InvertedScoresWarning)
                out[i] = auc(yp, s[part], sample_weight=wp)
    return out


@given(labelled_scores(max_size=60, weighted=True), st.one_of(st.none(), st.integers(1, 70)))
def test_sliding_window_equals_from_scratch_per_window(data, window):
    y, s, w = data
    exact = sliding_window(y, s, window)["auc"]
    reference = windowed_reference(y, s, np.ones(len(y)), window)
    np.testing.assert_array_equal(exact, reference)
    np.testing.assert_array_equal(treap_sliding(y, s, window), reference)
    np.testing.assert_array_equal(sliding_window(y, s, window, sample_weight=np.ones(len(y)))["auc"],
                                  reference)
    weighted = sliding_window(y, s, window, sample_weight=w)["auc"]
    np.testing.assert_allclose(
        weighted, windowed_reference(y, s, w, window), rtol=1e-12, atol=1e-14
    )


def test_rank_counter_and_treap_agree_on_long_windows_and_prefixes(rng):
    y = rng.integers(0, 2, 20_000)
    s = np.round(rng.normal(size=20_000) + y, 1)
    for window in (1, 2, 999, 20_000, 50_000, None):
        np.testing.assert_array_equal(sliding_window(y, s, window)["auc"],
                                      treap_sliding(y, s, window))
    ends = (4_999, 12_345, 19_999)
    prefix = sliding_window(y, s, None)["auc"]
    assert [prefix[end] for end in ends] == [auc(y[:end + 1], s[:end + 1]) for end in ends]


def test_sliding_window_matches_dynamic_auc_loop(rng):
    y, s = rng.integers(0, 2, 3000), np.round(rng.normal(size=3000), 2)
    tracker = DynamicAUC()
    expected = np.empty(3000)
    for i in range(3000):
        tracker.add(int(y[i]), float(s[i]))
        if i >= 250:
            tracker.remove(int(y[i - 250]), float(s[i - 250]))
        expected[i] = tracker.auc
    np.testing.assert_array_equal(sliding_window(y, s, 250)["auc"], expected)


def test_sliding_window_accepts_metric_names_and_huge_integer_scores():
    y = [0, 1, 0, 1]
    s = np.array([2**60, 2**60 + 1, 2**60 + 2, 2**60 + 3], dtype=np.int64)
    result = sliding_window(y, s, 2, metrics="auc")
    np.testing.assert_array_equal(result["auc"], [np.nan, 1.0, 0.0, 1.0])
    assert list(result) == ["auc"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"window": 0}, r"window must be at least 1; got 0"),
        ({"window": 2.5}, r"window must be an integer from 1 to 2147483647 .*; got 2.5"),
        ({"window": True}, r"window must be an integer from 1 to 2147483647 .*; got True"),
        ({"window": 3, "metrics": ("auc", "gini")}, r"unknown metric\(s\) \['gini'\]: available metrics are "
         + re.escape(str(list(WINDOW_METRICS)))),
        ({"window": 3, "metrics": ()}, r"metrics must name at least one metric"),
    ],
)
def test_sliding_window_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sliding_window([0, 1, 0], [0.1, 0.2, 0.3], **kwargs)


def test_sliding_window_refuses_bad_data():
    with pytest.raises(ValueError, match="found nan at position 1"):
        sliding_window([0, 1], [0.1, np.nan], 2)
    with pytest.raises(ValueError, match="is empty"):
        sliding_window([], [], 2)


@pytest.mark.slow
def test_ten_million_updates_do_not_drift():
    """10^7 updates (5e6 additions, 5e6 removals) in a sliding window of 1000."""
    rng = np.random.default_rng(2026)
    n, window = 5_000_000, 1000
    y = rng.integers(0, 2, n).astype(np.int8)
    s = np.round(rng.normal(size=n) + 0.5 * y, 2)  # many ties
    w = rng.exponential(size=n)
    exact = sliding_window(y, s, window)["auc"]
    treap = treap_sliding(y, s, window)
    weighted = sliding_window(y, s, window, sample_weight=w)["auc"]
    for end in (window - 1, n // 2, n - 1):
        part = slice(end + 1 - window, end + 1)
        assert exact[end] == auc(y[part], s[part])
        assert treap[end] == exact[end]
        assert weighted[end] == pytest.approx(
            auc(y[part], s[part], sample_weight=w[part]), rel=1e-12
        )


def real_stream():
    from hmeasure_stream.datasets import load_default_stream

    return load_default_stream()


def feed_in_random_chunks(tracker, y, s, w, rng):
    """Feed (y, s, w) in random chunks (some empty), with a pickle round trip midway."""
    parts = {}
    start, pickled = 0, False
    while start < len(y):
        size = int(rng.choice([0, 1, 2, 7, 64, 300, 1000]))
        stop = min(len(y), start + size)
        chunk = tracker.update(y[start:stop], s[start:stop],
                               None if w is None else w[start:stop])
        for name, values in chunk.items():
            assert values.shape == (stop - start,) and values.dtype == np.float64
            parts.setdefault(name, []).append(values)
        start = stop
        if not pickled and start >= len(y) // 2:
            tracker = pickle.loads(pickle.dumps(tracker))
            pickled = True
    tracker._check()
    return tracker, {name: np.concatenate(values) for name, values in parts.items()}


@pytest.mark.parametrize("window", [1, 37, 300, None])
@pytest.mark.parametrize(("metrics", "weighted"), [
    (("auc",), False), (("auc",), True), (("h", "auch", "auc"), False), (("auch", "h"), True)])
def test_sliding_window_object_in_chunks_equals_sliding_window(window, metrics, weighted):
    """SlidingWindow fed the real stream in random chunks, pickled midway, equals
    sliding_window on the whole array (AUC bit for bit; H to rounding)."""
    rng = np.random.default_rng(11)
    y, s = real_stream()
    w = rng.uniform(0.2, 3.0, len(y)) if weighted else None
    tracker, values = feed_in_random_chunks(SlidingWindow(window, metrics), y, s, w, rng)
    expected = sliding_window(y, s, window, metrics, sample_weight=w)
    assert list(values) == list(expected) == list(metrics)
    assert len(tracker) == (len(y) if window is None else min(window, len(y)))
    for name in metrics:
        if name == "auc" and not weighted:
            np.testing.assert_array_equal(values[name], expected[name])
        else:
            np.testing.assert_allclose(values[name], expected[name], rtol=1e-10, atol=1e-13)
        # The reads are the last window's values.
        assert tracker[name] == pytest.approx(expected[name][-1], rel=1e-10,
                                                        nan_ok=True)


@pytest.mark.parametrize("options", [{"priors": (0.3, 0.7)}, {"severity_ratio": "prior"}])
def test_sliding_window_object_approximate_h_in_chunks(options):
    rng = np.random.default_rng(12)
    y, s = real_stream()
    window, epsilon = 200, 0.1
    _, values = feed_in_random_chunks(
        SlidingWindow(window, HCost(relative_error=epsilon, **options)), y, s, None, rng)
    for end in range(0, len(y), 17):
        part = slice(max(0, end + 1 - window), end + 1)
        if y[part].min() == y[part].max():
            assert np.isnan(values["h"][end])
            continue
        exact = h_measure(y[part], s[part], **options)
        assert abs(values["h"][end] - exact) <= epsilon * (1 - exact) + 1e-12


def test_sliding_window_auc_does_not_depend_on_the_h_options():
    y, s = real_stream()
    plain = sliding_window(y, s, 100, metrics="auc")
    for options in ({"severity_ratio": "prior", "relative_error": 0.1},
                    {"priors": (0.2, 0.8), "relative_error": 0.1}, {"alpha": 3.0},
                    {"relative_error": 0.1, "priors": (0.5, 0.5)}):
        metrics = ("auc", HCost(**options))
        np.testing.assert_array_equal(sliding_window(y, s, 100, metrics=metrics)["auc"],
                                      plain["auc"])
        np.testing.assert_array_equal(SlidingWindow(100, metrics).update(y, s)["auc"],
                                      plain["auc"])
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        HCost(alpha=-1.0)


def test_sliding_window_object_refusals_change_nothing():
    tracker = SlidingWindow(3, ("auc", "h"))
    tracker.update([0, 1, 1], [0.1, 0.5, 0.7])
    before = pickle.dumps(tracker)
    for bad in (([0, 2], [0.1, 0.2]), ([0, 1], [0.1, np.nan]), ([0, 1], [0.1]),
                ([0, 1], np.array([1, 2**60]))):  # not exact as float64
        with pytest.raises(ValueError):
            tracker.update(*bad)
        assert pickle.dumps(tracker) == before
    with pytest.raises(KeyError, match="'auch' is not among this window's metrics"):
        _ = tracker["auch"]
    assert (tracker.window, tracker.metrics, len(tracker)) == (3, ("auc", "h"), 3)
    for window in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match=r"window must be (at least 1|an integer from 1)"):
            SlidingWindow(window)
    with pytest.raises(ValueError, match=r"window .3. is not a duration.* an int, not a string"):
        SlidingWindow("3")
    with pytest.raises(ValueError, match=r"give relative_error= .* for H within"):
        SlidingWindow(10, HCost(priors=(0.5, 0.5)))


# ----------------------------------------------------------------------------
# Only the windows ending at chosen rows (at=)


def brute_window_auc(y, s, end, window):
    """AUC of the window ending at row ``end`` by counting its pairs (nan without a class)."""
    labels, scores, _ = window_points(y, s, end, window, None)
    return brute_auc_value(labels, scores)


@given(st.data())
def test_windows_at_chosen_rows_count_their_pairs(data):
    # Many ties, -0.0 next to 0.0, windows of 1 row up to every prefix, rows of ``at``
    # close together and far apart (a window shares nothing with the one before).
    n = data.draw(st.integers(1, 60))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 2.0]),
                                     min_size=n, max_size=n)))
    window = data.draw(st.one_of(st.none(), st.integers(1, 12)))
    at = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
    got = sliding_window(y, s, window, at=at)["auc"]
    expected = [brute_window_auc(y, s, end, window) for end in at]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("window", [1, 37, 1000, None])
@pytest.mark.parametrize("gap", [1, 5, 300, 2500])
def test_windows_at_rows_equal_every_window_bit_for_bit(window, gap):
    # Both ways of computing them (merges when the rows are far apart, else every
    # window), against every window computed: the same doubles.
    rng = np.random.default_rng(gap)
    y = rng.integers(0, 2, 20000)
    s = np.round(rng.normal(size=20000) + y, 3)
    every = sliding_window(y, s, window)["auc"]
    at = np.sort(rng.choice(20000, size=20000 // gap, replace=False))
    np.testing.assert_array_equal(sliding_window(y, s, window, at=at)["auc"], every[at])
    np.testing.assert_array_equal(
        sliding_window(y, s, window, at=at, min_periods=min(30, window or 30))["auc"],
        sliding_window(y, s, window, min_periods=min(30, window or 30))["auc"][at])


def test_windows_at_rows_for_other_metrics_and_weights():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = rng.normal(size=300) + y
    w = rng.random(300)
    at = [0, 5, 150, 299]
    for options in ({"metrics": ("auc", "h")}, {"sample_weight": w}):
        every = sliding_window(y, s, 40, **options)
        chosen = sliding_window(y, s, 40, at=at, **options)
        assert chosen.keys() == every.keys()
        for name in every:
            np.testing.assert_array_equal(chosen[name], every[name][at])


@pytest.mark.parametrize(("at", "message"), [
    ([3, 1], r"at must increase strictly: at\[1\] = 1 follows 3"),
    ([2, 2], r"at must increase strictly: at\[1\] = 2 follows 2"),
    ([0, 6], r"at\[1\] = 6 is not a row of the 6 points \(0 to 5\)"),
    ([-1], r"at\[0\] = -1 is not a row"),
    ([0.5], "at must hold row indices"),
    ([True], "at must hold row indices"),
    ([[1]], "at must be 1-d"),
])
def test_rows_that_are_not_increasing_rows_are_refused(at, message):
    with pytest.raises(ValueError, match=message):
        sliding_window([0, 1, 0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3, 0.8, 0.1], 3, at=at)
