import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import labelled_scores

from hmeasure_stream import DynamicAUC, SlidingWindow, auc, sliding_window


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
        ({"window": 0}, r"window must be a positive integer or None, got 0"),
        ({"window": 2.5}, r"window must be a positive integer or None"),
        ({"window": True}, r"window must be a positive integer or None"),
        ({"window": 3, "metrics": ("auc", "gini")}, r"unknown metric\(s\) \['gini'\]: available metrics are \['auc', 'h', 'auch'\]"),
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
