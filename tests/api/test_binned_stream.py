"""BinnedAUC against binned_auc of the current points after every update, merges, refusals."""

import pickle

import numpy as np
import pytest

from hmeasure_stream import BinnedAUC, auc, binned_auc

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.  Scores
# outside score_range are part of what is checked here: their OutOfRangeScoresWarning
# is tested in test_messages.py.
pytestmark = [pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning"),
              pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")]


def assert_equals_batch(tracker, points, bins, **options):
    if not points:
        assert np.isnan(tracker.auc) and len(tracker) == 0
        return
    y = np.array([p[0] for p in points])
    s = np.array([p[1] for p in points])
    w = np.array([p[2] for p in points])
    if not (w[y == 0].sum() > 0 and w[y == 1].sum() > 0):
        assert np.isnan(tracker.auc) and np.isnan(tracker.max_error)
        return
    unit = bool(np.all(w == 1.0))
    expected = binned_auc(y, s, n_bins=bins, sample_weight=None if unit else w,
                          loglog_alpha=tracker.loglog_alpha, **options)
    got = tracker.result()
    for name in ("counts_neg", "counts_pos"):
        if unit:
            np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
        else:
            np.testing.assert_allclose(getattr(got, name), getattr(expected, name),
                                       rtol=1e-12, atol=1e-12)
    if unit:  # integers all the way: the same floats
        assert (got.auc, got.max_error) == (expected.auc, expected.max_error)
    else:
        assert got.auc == pytest.approx(expected.auc, rel=1e-12)
        assert got.max_error == pytest.approx(expected.max_error, rel=1e-12, abs=1e-15)
    assert got.expected_error == pytest.approx(expected.expected_error, rel=1e-12)
    assert (got.n_below, got.n_above) == (expected.n_below, expected.n_above)
    np.testing.assert_array_equal(got.edges, expected.edges)
    # The bound holds for the exact AUC of the points.
    assert abs(auc(y, s, sample_weight=None if unit else w) - got.auc) <= got.max_error + 1e-12


@pytest.mark.parametrize("options", [{}, {"transform": "loglog"},
                                     {"transform": "loglog", "loglog_alpha": 0.3},
                                     {"score_range": (0.2, 0.8)}])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("bins", [1, 7, 100])
def test_random_updates_equal_binned_auc_of_the_points(options, weighted, bins):
    rng = np.random.default_rng(bins)
    tracker = BinnedAUC(bins, **options)
    batch_options = {k: v for k, v in options.items() if k != "loglog_alpha"}
    points = []
    for step in range(200):
        if points and rng.random() < 0.4:
            point = points.pop(int(rng.integers(len(points))))
            tracker.remove(*point)
        elif rng.random() < 0.3:
            k = int(rng.integers(1, 20))
            batch = [(int(rng.integers(2)), float(np.round(rng.random(), 2)),
                      float(rng.choice([0.5, 1.0, 3.0])) if weighted else 1.0)
                     for _ in range(k)]
            tracker.add_many(*(list(column) for column in zip(*batch, strict=True)))
            points.extend(batch)
        else:
            point = (int(rng.integers(2)), float(np.round(rng.random(), 2)),
                     float(rng.choice([0.5, 1.0, 3.0])) if weighted else 1.0)
            tracker.add(*point)
            points.append(point)
        tracker._check()
        assert len(tracker) == len(points)
        assert_equals_batch(tracker, points, bins, **batch_options)
        if step % 40 == 0:
            tracker = pickle.loads(pickle.dumps(tracker))


def test_merging_two_halves_equals_the_whole():
    from hmeasure_stream._demo import load_default_stream

    y, s = load_default_stream()
    p = 1 / (1 + np.exp(-s))  # the log-odds as probabilities, crowded near 0 and 1
    left, right, whole = (BinnedAUC(100, transform="loglog", loglog_alpha=0.2)
                          for _ in range(3))
    left.add_many(y[:900], p[:900])
    right.add_many(y[900:], p[900:])
    whole.add_many(y, p)
    left.merge(right)
    left._check()
    a, b = left.result(), whole.result()
    np.testing.assert_array_equal(a.counts_neg, b.counts_neg)
    np.testing.assert_array_equal(a.counts_pos, b.counts_pos)
    assert (a.auc, a.max_error) == (b.auc, b.max_error)
    assert a.auc == binned_auc(y, p, n_bins=100, transform="loglog", loglog_alpha=0.2).auc
    left.merge(BinnedAUC(50))  # an empty structure adds nothing, whatever its bins
    with pytest.raises(ValueError, match="cannot merge different bins"):
        left.merge(_filled(BinnedAUC(50)))


def _filled(tracker):
    tracker.add_many([0, 1], [0.2, 0.7])
    return tracker


def test_refusals_change_nothing():
    tracker = BinnedAUC(10)
    tracker.add_many([0, 1, 1], [0.15, 0.55, 0.95], [1.0, 2.0, 1.0])
    before = pickle.dumps(tracker)
    with pytest.raises(KeyError, match="bin 2"):
        tracker.remove(0, 0.25)  # no class 0 point in bin 2
    with pytest.raises(KeyError, match="bin 5"):
        tracker.remove(1, 0.55, 2.5)  # more weight than bin 5 holds
    with pytest.raises(KeyError):
        tracker.remove_many([0, 0], [0.15, 0.12])  # two from a bin holding one
    for bad in (([0, 2], [0.1, 0.2]), ([0], [np.nan]), ([0], [0.1], [-1.0])):
        with pytest.raises(ValueError):
            tracker.add_many(*bad)
    assert pickle.dumps(tracker) == before
    with pytest.raises(ValueError, match="cannot merge different bins"):
        tracker.merge(_filled(BinnedAUC(11)))
    for bins in (0, 2.5, "10"):
        with pytest.raises(ValueError, match="bins"):
            BinnedAUC(bins)


def test_a_long_stream_does_not_drift():
    """A sliding window of weighted points, 200 000 updates in batches: the value at the end
    equals the from-scratch one (every sum recomputed from the children, compensated bins)."""
    rng = np.random.default_rng(3)
    n, window = 200_000, 5_000
    y, s, w = rng.integers(0, 2, n), rng.random(n), rng.uniform(0.1, 10, n)
    tracker = BinnedAUC(64)
    tracker.add_many(y[:window], s[:window], w[:window])
    for start in range(window, n, window):
        tracker.add_many(y[start:start + window], s[start:start + window],
                         w[start:start + window])
        tracker.remove_many(y[start - window:start], s[start - window:start],
                            w[start - window:start])
    tracker._check()
    expected = binned_auc(y[-window:], s[-window:], n_bins=64, sample_weight=w[-window:])
    assert tracker.auc == pytest.approx(expected.auc, rel=1e-13)
    assert tracker.max_error == pytest.approx(expected.max_error, rel=1e-12)


@pytest.mark.parametrize("window", [1, 50, None])
@pytest.mark.parametrize("options", [{}, {"n_bins": 20, "transform": "loglog"},
                                     {"n_bins": 7, "score_range": (-3.0, 3.0)}])
def test_window_metric_equals_binned_auc_of_every_window(window, options):
    from hmeasure_stream import Binning, SlidingWindow, sliding_window

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=400) * 3 + 2 * y))), 3)
    values = sliding_window(y, s, window, ("auc_binned", "auc", Binning(**options)))
    alpha = None
    if options.get("transform") == "loglog":
        alpha = binned_auc(y, s, **options).loglog_alpha  # estimated from the whole array
    batch_options = {**options, "loglog_alpha": alpha} if alpha is not None else options
    for end in range(len(y)):
        part = slice(0 if window is None else max(0, end + 1 - window), end + 1)
        if y[part].min() == y[part].max():
            assert np.isnan(values["auc_binned"][end])
            continue
        expected = binned_auc(y[part], s[part], **batch_options)
        assert values["auc_binned"][end] == expected.auc
        assert abs(values["auc"][end] - expected.auc) <= expected.max_error + 1e-12
    # In chunks (alpha frozen from the first chunk when estimated), pickled midway.
    tracker = SlidingWindow(window, Binning(**batch_options))
    first = tracker.update(y[:150], s[:150])["auc_binned"]
    tracker = pickle.loads(pickle.dumps(tracker))
    rest = tracker.update(y[150:], s[150:])["auc_binned"]
    tracker._check()
    np.testing.assert_array_equal(np.concatenate([first, rest]), values["auc_binned"])
    assert tracker["auc_binned"] == values["auc_binned"][-1] or np.isnan(tracker["auc_binned"])


def test_refused_merge_leaves_an_empty_structure_unchanged():
    # An empty loglog structure takes the other's alpha only when the merge succeeds.
    empty = BinnedAUC(10, transform="loglog")
    before = pickle.dumps(empty)
    with pytest.raises(ValueError, match="cannot merge different bins"):
        empty.merge(_filled(BinnedAUC(20, transform="loglog", loglog_alpha=0.3)))
    assert pickle.dumps(empty) == before
    assert empty.loglog_alpha is None


def test_merge_checks_pos_label():
    spam, ham = BinnedAUC(10, pos_label="spam"), BinnedAUC(10, pos_label="spam")
    spam.add_many(["spam", "ham"], [0.75, 0.25])
    ham.add_many(["spam", "eggs"], [0.65, 0.35])
    plain = _filled(BinnedAUC(10))
    for other, message in ((ham, "class 0 label is 'ham' here and 'eggs'"),
                           (plain, "different pos_label: 'spam' and None")):
        before = pickle.dumps(spam)
        with pytest.raises(ValueError, match=message):
            spam.merge(other)
        assert pickle.dumps(spam) == before
    learner = BinnedAUC(10, pos_label="spam")
    learner.merge(spam)
    assert learner.auc == binned_auc([1, 0], [0.75, 0.25], n_bins=10).auc
    with pytest.raises(ValueError, match="'eggs'"):
        learner.add("eggs", 0.5)


def test_every_entry_point_refuses_more_than_2_24_bins_alike():
    # One check of the number of bins: the function, the structure, the window's options
    # and dask give the same message.
    import dask.array as da

    from hmeasure_stream import Binning
    from hmeasure_stream import dask as hsd

    message = r"bins must be at most 16777216 \(2\*\*24\), got 16777217"
    for make in (lambda: binned_auc([0, 1], [0.2, 0.7], n_bins=2**24 + 1),
                 lambda: BinnedAUC(n_bins=2**24 + 1),
                 lambda: Binning(n_bins=2**24 + 1),
                 lambda: hsd.binned_auc(da.from_array([0, 1]), da.from_array([0.2, 0.7]),
                                        n_bins=2**24 + 1)):
        with pytest.raises(ValueError, match=message):
            make()
