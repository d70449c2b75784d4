"""The window metric "multiclass_auc" of SlidingWindow / sliding_window.

Every window's value is checked against multiclass_auc of that window from scratch (nan
where it refuses: a class absent from the window), and that function is itself checked
against scikit-learn in test_multiclass.py.
"""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from hmeasure_stream import Classes, SlidingWindow, multiclass_auc, sliding_window


def _expected(y, s, w, window, method, average, labels):
    """multiclass_auc of every window from scratch; nan where a class is absent."""
    values = []
    for end in range(1, len(y) + 1):
        start = 0 if window is None else max(0, end - window)
        held = y[start:end] if w is None else y[start:end][w[start:end] > 0]
        if labels is not None and not set(labels) <= set(held.tolist()):
            # A listed class absent: the window reads nan (multiclass_auc gives
            # scikit-learn's value over the present classes where it has one).
            values.append(math.nan)
            continue
        try:
            values.append(multiclass_auc(
                y[start:end], s[start:end], method=method, average=average, classes=labels,
                sample_weight=None if w is None else w[start:end]))
        except ValueError as error:
            assert "undefined" in str(error)
            values.append(math.nan)
    return np.array(values)


def _stream(rng, n, c, tied=True):
    y = rng.integers(0, c, n)
    s = rng.normal(size=(n, c)) + 1.2 * np.eye(c)[y]
    if tied:
        s = np.round(s, 1)
    return y, s


def _chunks(rng, n):
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(6, n - 1), replace=False))
    return np.split(np.arange(n), cuts)


@pytest.mark.parametrize("method", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("window", [1, 2, 7, 25, None])
def test_every_window_equals_multiclass_auc(rng, method, average, window):
    c = 4
    y, s = _stream(rng, 90, c)
    expected = _expected(y, s, None, window, method, average, list(range(c)))
    assert np.isnan(expected).any() or window is None  # windows with a class absent occur
    tracker = SlidingWindow(window, Classes(range(c), method=method, average=average),
                            capacity=1)
    got = []
    for part in _chunks(rng, len(y)):
        got.append(tracker.update(y[part], s[part])["multiclass_auc"])
        tracker._check()
        # Pickled midway, the copy carries on identically.
        tracker = pickle.loads(pickle.dumps(tracker))
    got = np.concatenate(got)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    last = expected[-1]
    assert (math.isnan(tracker["multiclass_auc"]) and math.isnan(last)) or (
        tracker["multiclass_auc"] == pytest.approx(last, abs=1e-14))
    one_shot = sliding_window(y, s, window, Classes(method=method, average=average))
    np.testing.assert_allclose(one_shot["multiclass_auc"], expected, rtol=0, atol=1e-14)


@pytest.mark.parametrize("method", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_weighted_windows(rng, method, average):
    c = 3
    y, s = _stream(rng, 80, c)
    w = rng.uniform(0.1, 3.0, 80)
    w[rng.integers(0, 80, 5)] = 0.0
    expected = _expected(y, s, w, 9, method, average, [0, 1, 2])
    tracker = SlidingWindow(9, Classes([0, 1, 2], method=method, average=average))
    got = np.concatenate([tracker.update(y[part], s[part], w[part])["multiclass_auc"]
                          for part in _chunks(rng, 80)])
    tracker._check()
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert np.array_equal(np.isnan(got), np.isnan(expected))


def test_against_scikit_learn_on_windows(rng):
    # Rows that sum to 1, every class in every window: scikit-learn's definition.
    c, window = 3, 40
    y = np.concatenate([np.arange(c)] * 4 + [rng.integers(0, c, 100)])
    logits = rng.normal(size=(len(y), c)) + np.eye(c)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    for method in ("ovr", "ovo"):
        values = sliding_window(y, p, window, Classes(
            method=method, average="weighted" if method == "ovr" else "macro"))
        for end in range(window, len(y) + 1, 7):
            part = slice(end - window, end)
            if len(set(y[part].tolist())) < c:
                continue
            expected = roc_auc_score(y[part], p[part], multi_class=method,
                                     average="weighted" if method == "ovr" else "macro")
            assert values["multiclass_auc"][end - 1] == pytest.approx(expected, abs=1e-12)


def test_string_labels_in_column_order_and_point_by_point(rng):
    names = ["zebra", "ant", "moth"]
    codes, s = _stream(rng, 40, 3)
    y = [names[k] for k in codes]
    tracker = SlidingWindow(12, Classes(names, method="ovo"))
    got = [tracker.update([label], [row])["multiclass_auc"][0] for label, row in zip(y, s, strict=True)]
    expected = _expected(np.array(y, dtype=object), s, None, 12, "ovo", "macro", names)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)
    assert len(tracker) == 12
    assert tracker.metrics == ("multiclass_auc",)
    assert tracker.nbytes > 0


def test_refusals_leave_the_window_unchanged(rng):
    y, s = _stream(rng, 20, 3)
    tracker = SlidingWindow(5, Classes([0, 1, 2]))
    tracker.update(y, s)
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="not in classes: 7"):
        tracker.update([0, 7], s[:2])
    with pytest.raises(ValueError, match="3 classes"):
        tracker.update([0, 1], s[:2, :2])
    with pytest.raises(ValueError, match="finite"):
        tracker.update([0], [[0.1, np.nan, 0.2]])
    with pytest.raises(ValueError, match="different lengths"):
        tracker.update([0, 1, 2], s[:2])
    with pytest.raises(ValueError, match="2-d"):
        tracker.update([0], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="weight"):
        tracker.update([0], s[:1], [-1.0])
    with pytest.raises(ValueError, match="y_true is empty but y_score"):
        tracker.update([], s[:1])
    with pytest.raises(ValueError, match="y_true is empty"):
        sliding_window([], np.empty((0, 3)), 3, Classes([0, 1, 2]))
    assert tracker.update([], np.empty((0, 3)))["multiclass_auc"].shape == (0,)
    for method in ("ovr", "ovo"):
        weighted = SlidingWindow(5, Classes([0, 1, 2], method=method))
        weighted.update(y, s, np.full(20, 2.0))
        state = pickle.dumps(weighted)
        with pytest.raises(ValueError, match=r"2\*\*400.*position 1"):
            weighted.update(y[:3], s[:3], [1.0, 1e-130, 1.0])
        assert pickle.dumps(weighted) == state
    assert pickle.dumps(tracker) == before
    tracker._check()


def test_option_refusals():
    with pytest.raises(ValueError, match="cannot be combined with the binary metrics"):
        SlidingWindow(5, ("auc", Classes([0, 1, 2])))
    with pytest.raises(ValueError, match="needs classes="):
        SlidingWindow(5, "multiclass_auc")
    with pytest.raises(ValueError, match="average=None"):
        SlidingWindow(5, Classes([0, 1], average=None))
    with pytest.raises(ValueError, match="method"):
        SlidingWindow(5, Classes([0, 1], method="ovx"))
    with pytest.raises(ValueError, match="at least 2"):
        SlidingWindow(5, Classes([0]))
    with pytest.raises(ValueError, match="cannot be combined"):
        sliding_window([0, 1], [[0.1, 0.9], [0.8, 0.2]], 2, ("multiclass_auc", "h"))
    with pytest.raises(ValueError, match="y_score has 3 columns but classes names 2 classes"):
        sliding_window([0, 1], [[0.1, 0.9, 0.0], [0.8, 0.2, 0.0]], 2, "multiclass_auc")
    with pytest.raises(KeyError, match="multiclass_auc"):
        _ = SlidingWindow(5)["multiclass_auc"]
    # The binary metrics keep working as before.
    assert SlidingWindow(5).update([0, 1], [0.1, 0.9])["auc"][1] == 1.0


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.one_of(st.none(), st.integers(1, 8)),
       st.sampled_from(["ovr", "ovo"]), st.sampled_from(["macro", "weighted"]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_random_streams_in_random_chunks(c, window, method, average, weighted, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    y = rng.integers(0, c, n)
    s = rng.integers(0, 3, (n, c)).astype(float)  # heavy ties
    w = rng.choice([0.0, 0.5, 1.0, 2.0], n) if weighted else None
    expected = _expected(y, s, w, window, method, average, list(range(c)))
    tracker = SlidingWindow(window, Classes(range(c), method=method, average=average),
                            capacity=1)
    got = []
    start = 0
    while start < n:
        stop = start + int(rng.integers(0, 5))
        got.append(tracker.update(y[start:stop], s[start:stop].reshape(-1, c),
                                  None if w is None else w[start:stop])["multiclass_auc"])
        tracker._check()
        if rng.random() < 0.3:
            tracker = pickle.loads(pickle.dumps(tracker))
        start = stop
    got = np.concatenate(got)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("options", [{"window": "1h"}, {"window": 3, "half_life": 2.0},
                                     {"window": 3, "min_periods": 2}])
def test_time_windows_and_decay_are_refused_for_multiclass(options):
    window = options.pop("window")
    with pytest.raises(ValueError, match="'multiclass_auc' takes a count window"):
        SlidingWindow(window, (Classes([0, 1, 2]),), **options)
    y, s = [0, 1, 2], np.eye(3)
    with pytest.raises(ValueError, match="'multiclass_auc' takes a count window"):
        sliding_window(y, s, window=window, metrics=("multiclass_auc",), **options)


def test_times_are_checked_with_a_count_window():
    tracker = SlidingWindow(2, (Classes([0, 1, 2]),))
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="times"):
        tracker.update([0, 1, 2], np.eye(3), times=[1.0, 2.0])
    assert pickle.dumps(tracker) == before
    # Times in order are taken and do not change the values of a count window.
    got = tracker.update([0, 1, 2], np.eye(3), times=[1.0, 2.0, 3.0])["multiclass_auc"]
    expected = SlidingWindow(2, (Classes([0, 1, 2]),)).update(
        [0, 1, 2], np.eye(3))["multiclass_auc"]
    np.testing.assert_array_equal(got, expected)
