"""Two models on one window: ``y_score2`` and the metrics ``auc2``, ``auc_diff`` and
``auc_diff_p`` (DeLong's paired test on the window's rows)."""

import itertools
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_impl import brute_auc, delong_paired_exact
from scipy import stats

from hmeasure_stream import DelayedAUC, SlidingWindow, auc_test, sliding_window

BOTH = ("auc", "auc2", "auc_diff", "auc_diff_p")
SECOND = ("auc2", "auc_diff", "auc_diff_p")


def stream(seed, n=160, levels=5, weighted=False):
    """Labels, two models' tied scores (few levels), weights (some 0) or None, times."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s1 = (y + rng.integers(0, levels, n)).astype(float)
    s2 = rng.integers(0, levels, n).astype(float)
    w = rng.integers(0, 4, n).astype(float) if weighted else None
    t = np.cumsum(rng.integers(0, 3, n)).astype(np.int64) * 10**9
    return y, s1, s2, w, t


def paired_test_of_window(y, s1, s2, w, rows):
    """auc_test on the window's rows: (difference, p-value), nan where it is undefined."""
    try:
        result = auc_test(y[rows], s1[rows], s2[rows],
                          sample_weight=None if w is None else w[rows])
    except ValueError:
        return math.nan, math.nan
    return result.difference, result.pvalue


def windows_of(kind, n, t, window):
    """Each row's window (a slice or a mask of the rows), by kind."""
    for end in range(n):
        if kind == "count":
            yield end, slice(max(0, end + 1 - window), end + 1)
        elif kind == "prefix":
            yield end, slice(0, end + 1)
        else:  # a window of time: (t - window, t]
            yield end, np.flatnonzero((t > t[end] - window * 10**9) & (np.arange(n) <= end))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("kind", "window"), [("count", 1), ("count", 2), ("count", 9),
                                              ("count", 40), ("prefix", None), ("time", 25)])
def test_every_row_equals_auc_test_on_the_window_rows(kind, window, weighted):
    y, s1, s2, w, t = stream(7 + (window or 0), weighted=weighted)
    given_window = f"{window}s" if kind == "time" else window
    times = t.view("datetime64[ns]") if kind == "time" else None
    values = sliding_window(y, s1, given_window, BOTH, y_score2=s2, sample_weight=w,
                            times=times)
    alone = sliding_window(y, s2, given_window, "auc", sample_weight=w, times=times)["auc"]
    np.testing.assert_array_equal(values["auc2"], alone)
    np.testing.assert_array_equal(values["auc_diff"], values["auc"] - values["auc2"])
    for end, rows in windows_of(kind, y.shape[0], t, window):
        difference, pvalue = paired_test_of_window(y, s1, s2, w, rows)
        got = values["auc_diff_p"][end]
        assert got == pvalue or (math.isnan(got) and math.isnan(pvalue)), end
        if not math.isnan(difference):
            assert values["auc_diff"][end] == pytest.approx(difference, rel=0, abs=4e-16)
        elif w is None:  # (a class of one point: the AUCs exist, the test does not)
            assert math.isnan(pvalue)


def test_decay_weighs_the_window_rows_by_their_age():
    y, s1, s2, w, t = stream(3, weighted=True)
    for half_life, times in ((12.0, None), ("20s", t.view("datetime64[ns]"))):
        values = sliding_window(y, s1, 50, BOTH, y_score2=s2, sample_weight=w,
                                half_life=half_life, times=times)
        for end in range(y.shape[0]):
            rows = np.arange(max(0, end - 49), end + 1)
            age = (end - rows) / 12.0 if times is None else (t[end] - t[rows]) / 20e9
            decayed = w[rows] * np.exp2(-age)
            try:
                expected = auc_test(y[rows], s1[rows], s2[rows], sample_weight=decayed).pvalue
            except ValueError:
                expected = math.nan
            assert values["auc_diff_p"][end] == pytest.approx(expected, rel=1e-12, nan_ok=True)


def test_the_p_value_equals_the_exact_definition():
    y, s1, s2, _, _ = stream(11, n=60, levels=3)
    values = sliding_window(y, s1, 12, "auc_diff_p", y_score2=s2)["auc_diff_p"]
    for end in range(y.shape[0]):
        rows = slice(max(0, end - 11), end + 1)
        paired = delong_paired_exact(list(y[rows]), list(s1[rows]), list(s2[rows]))
        if paired is None:
            assert math.isnan(values[end])
            continue
        difference, variance = paired
        if variance == 0:
            assert values[end] == (1.0 if difference == 0 else 0.0)
        else:
            z = float(difference) / math.sqrt(variance)
            assert values[end] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9, abs=1e-15)
        assert float(brute_auc(y[rows], s2[rows])) == pytest.approx(
            sliding_window(y[rows], s2[rows], None)["auc"][-1], rel=1e-15)


@pytest.mark.parametrize("window", [7, None, "30s"])
@pytest.mark.parametrize("half_life", [None, 10.0])
def test_in_chunks_and_pickled_midway_as_in_one_call(window, half_life):
    y, s1, s2, w, t = stream(5, weighted=True)
    options = {"half_life": half_life, "min_periods": 3}
    times = t.view("datetime64[ns]")
    whole = sliding_window(y, s1, window, BOTH, y_score2=s2, sample_weight=w, times=times,
                           **options)
    monitor = SlidingWindow(window, BOTH, **options)
    rng = np.random.default_rng(1)
    bounds = np.unique(np.concatenate([[0, y.shape[0]], rng.integers(0, y.shape[0], 12)]))
    parts = []
    for start, stop in itertools.pairwise(bounds):
        part = slice(start, stop)
        parts.append(monitor.update(y[part], s1[part], w[part], y_score2=s2[part],
                                    times=times[part]))
        assert monitor._check()
        monitor = pickle.loads(pickle.dumps(monitor))
    for name in BOTH:
        np.testing.assert_array_equal(np.concatenate([p[name] for p in parts]), whole[name])
        assert monitor[name] == pytest.approx(whole[name][-1], rel=1e-12, nan_ok=True)


def test_segments_compare_the_models_per_segment():
    y, s1, s2, w, _ = stream(9, n=300, weighted=True)
    keys = np.random.default_rng(2).choice(["north", "south", "east"], 300)
    values = sliding_window(y, s1, 20, BOTH, y_score2=s2, sample_weight=w, by=keys)
    monitor = SlidingWindow(20, BOTH)
    chunks = [monitor.update(y[k:k + 41], s1[k:k + 41], w[k:k + 41], y_score2=s2[k:k + 41],
                             by=keys[k:k + 41]) for k in range(0, 300, 41)]
    assert monitor._check()
    for key in ("north", "south", "east"):
        rows = keys == key
        alone = sliding_window(y[rows], s1[rows], 20, BOTH, y_score2=s2[rows],
                               sample_weight=w[rows])
        for name in BOTH:
            np.testing.assert_array_equal(values[name][rows], alone[name])
            np.testing.assert_array_equal(np.concatenate([c[name] for c in chunks])[rows],
                                          alone[name])
        assert monitor.segments()[key] == pytest.approx(
            {name: alone[name][-1] for name in BOTH}, nan_ok=True)


def test_reading_some_rows_only():
    y, s1, s2, _, _ = stream(4)
    every = sliding_window(y, s1, 30, BOTH, y_score2=s2)
    at = [0, 5, 77, 159]
    some = sliding_window(y, s1, 30, BOTH, y_score2=s2, at=at)
    monitor = SlidingWindow(30, BOTH)
    first = monitor.update(y[:80], s1[:80], y_score2=s2[:80], at=[0, 5, 77])
    last = monitor.update(y[80:], s1[80:], y_score2=s2[80:], at=[79])
    for name in BOTH:
        np.testing.assert_array_equal(some[name], every[name][at])
        np.testing.assert_array_equal(np.concatenate([first[name], last[name]]),
                                      every[name][at])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_windows_with_ties_and_weights(data):
    n = data.draw(st.integers(1, 40))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s1, s2 = (np.array(data.draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)),
                       dtype=float) for _ in range(2))
    w = (None if data.draw(st.booleans()) else
         np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n,
                                     max_size=n))))
    window = data.draw(st.integers(1, 12))
    values = sliding_window(y, s1, window, BOTH, y_score2=s2, sample_weight=w)
    for end in range(n):
        _, pvalue = paired_test_of_window(y, s1, s2, w, slice(max(0, end + 1 - window), end + 1))
        got = values["auc_diff_p"][end]
        assert got == pvalue or (math.isnan(got) and math.isnan(pvalue))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: sliding_window([0, 1], [0.1, 0.2], 2, "auc2"), r"give its scores, y_score2="),
    (lambda: sliding_window([0, 1], [0.1, 0.2], 2, "auc", y_score2=[0.3, 0.1]),
     r"y_score2 .* none of them is among"),
    (lambda: sliding_window([0, 1], [0.1, 0.2], 2, "auc_diff", y_score2=[0.3]),
     r"y_true and y_score2 have different lengths: 2 and 1"),
    (lambda: sliding_window([0, 1, 1], [0.1, 0.2, 0.3], 2, "auc_diff_p",
                            y_score2=[0.3, np.nan, 1]), r"y_score2.*position 1|y_score2\[1\]"),
    (lambda: DelayedAUC(10, ("auc", "auc_diff")), r"DelayedAUC does not follow \['auc_diff'\]"),
])
def test_refusals_name_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_refused_chunk_leaves_the_window_as_it_was():
    y, s1, s2, _, _ = stream(6)
    monitor = SlidingWindow(10, BOTH)
    monitor.update(y[:50], s1[:50], y_score2=s2[:50])
    before = pickle.dumps(monitor)
    bad = s2[50:60].copy()
    bad[7] = np.inf
    for kwargs in ({"y_score2": bad}, {}, {"y_score2": s2[50:59]}):
        with pytest.raises(ValueError, match="y_score2"):
            monitor.update(y[50:60], s1[50:60], **kwargs)
        assert pickle.dumps(monitor) == before
    monitor.update(y[50:], s1[50:], y_score2=s2[50:])
    assert monitor._check()
