"""The epsilon-approximate average precision of the structures and of the window metric.

``average_precision(relative_error=...)`` must stay within ``epsilon`` (relative) of
scikit-learn's ``average_precision_score`` of the current points after every
step of random streams: weighted and unit points, ties, additions and
removals, windows by count, time and decay, small blocks (so that groups span
blocks and the segment tree's finger searches run) and large ones.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule
from machines import PointSetMachine
from sklearn.metrics import average_precision_score

from hmeasure_stream import (
    APApprox,
    ApproxAUC,
    ApproxH,
    DynamicAUC,
    DynamicH,
    SlidingWindow,
    sliding_window,
)
from hmeasure_stream._engines._blocked import BlockedAUCEngine

EPSILONS = (0.9, 0.5, 0.1, 0.01, 0.001)


def sklearn_ap(y, s, w=None):
    """scikit-learn's average precision of the points of positive weight (nan: one class
    has no weight).  Points of weight 0 change no step of the curve."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    if not (w[y == 1].sum() > 0 and w[y == 0].sum() > 0):
        return np.nan
    return float(average_precision_score(y, s, sample_weight=w))


def assert_within(tracker, exact, epsilons=EPSILONS):
    for epsilon in epsilons:
        approx = tracker.average_precision(relative_error=epsilon)
        if np.isnan(exact):
            assert np.isnan(approx), epsilon
        else:
            assert abs(approx - exact) <= epsilon * exact, (epsilon, approx, exact)


class ApproxAPMachine(PointSetMachine):
    """Single and batch updates with weights 0, 1e-3, 0.5, 1, 3 and ties (the shared
    machine), plus large batches over few distinct scores, on blocks of 3 keys."""

    scores = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.5])

    def make(self):
        tracker = DynamicAUC()
        tracker._engine = BlockedAUCEngine(1, block_limit=3)
        return tracker

    @rule(data=st.data())
    def add_large_batch(self, data):
        n = data.draw(st.integers(1, 120))
        seed = data.draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        y = rng.integers(0, 2, n)
        s = rng.integers(0, data.draw(st.sampled_from([3, 30, 1000])), n) / 7.0
        weighted = data.draw(st.booleans())
        w = rng.choice([0.25, 1.0, 4.0, 1e3], n) if weighted else np.ones(n)
        self.tracker.add_many(y, s, sample_weight=w)
        self.points.extend(zip(y.tolist(), s.tolist(), w.tolist(), strict=True))
        self.exact &= not weighted

    @precondition(lambda self: len(self.points) > 20)
    @rule(data=st.data())
    def remove_half(self, data):
        seed = data.draw(st.integers(0, 2**32 - 1))
        chosen = set(np.random.default_rng(seed).permutation(len(self.points))[
            : len(self.points) // 2].tolist())
        batch = [self.points[i] for i in sorted(chosen)]
        self.points = [p for i, p in enumerate(self.points) if i not in chosen]
        y, s, w = (list(column) for column in zip(*batch, strict=True))
        self.tracker.remove_many(y, s, sample_weight=w)

    def matches(self, tracker, points, exact):
        y, s, w = (np.array(c) for c in zip(*points, strict=True)) if points else ([],) * 3
        reference = sklearn_ap(y, s, w) if points else np.nan
        assert_within(tracker, reference)


TestApproxAPMachine = ApproxAPMachine.TestCase
TestApproxAPMachine.settings = settings(max_examples=60, stateful_step_count=25,
                                        deadline=None)


class ApproxAPHullMachine(ApproxAPMachine):
    """The same reads on the hull's engine (DynamicH), default blocks."""

    def make(self):
        return DynamicH()


TestApproxAPHullMachine = ApproxAPHullMachine.TestCase
TestApproxAPHullMachine.settings = settings(max_examples=25, stateful_step_count=20,
                                            deadline=None)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("distinct", [5, 200, None])
def test_large_sets_within_the_bound(weighted, distinct):
    rng = np.random.default_rng(3 + weighted + (distinct or 0))
    n = 30_000
    y = (rng.random(n) < 0.2).astype(int)
    s = rng.normal(size=n) + 1.5 * y
    if distinct is not None:
        s = np.round((s - s.min()) / (s.max() - s.min()) * (distinct - 1))
    w = rng.exponential(size=n) if weighted else None
    tracker = DynamicAUC()
    tracker.add_many(y, s, sample_weight=w)
    exact = sklearn_ap(y, s, w)
    assert tracker.average_precision() == pytest.approx(exact, rel=1e-10)
    assert_within(tracker, exact, (0.5, 0.1, 0.01, 1e-3, 1e-5))
    # Remove most points: the read follows.
    tracker.remove_many(y[: n - 500], s[: n - 500],
                        sample_weight=None if w is None else w[: n - 500])
    assert_within(tracker, sklearn_ap(y[n - 500:], s[n - 500:],
                                      None if w is None else w[n - 500:]))


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 8), st.sampled_from([1.0, 2.5])),
                min_size=1, max_size=60),
       st.sampled_from(EPSILONS))
def test_ties_are_one_threshold(points, epsilon):
    """Every positive of a tie shares its precision: a tie of many points at the top, or
    the whole set one tie, reads as scikit-learn's step."""
    y, s, w = (np.array(c) for c in zip(*points, strict=True))
    for structure in (DynamicAUC(), ApproxH(0.1)):
        structure.add_many(y, s, sample_weight=w)
        assert_within(structure, sklearn_ap(y, s, w), (epsilon,))
    one_tie = DynamicAUC()
    one_tie.add_many(y, np.zeros(len(y)), sample_weight=w)
    assert_within(one_tie, sklearn_ap(y, np.zeros(len(y)), w), (epsilon,))


def test_every_step_of_count_time_and_decay_windows():
    rng = np.random.default_rng(11)
    n, window = 400, 60
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)
    w = rng.choice([0.5, 1.0, 2.0], n)
    times = np.cumsum(rng.integers(1, 4, n)).astype(float)
    half_life = 25.0
    structures = {"count": DynamicAUC(window=window), "time": DynamicH(window="100s"),
                  "decay": DynamicAUC(half_life="25s")}
    for i in range(n):
        structures["count"].add(y[i], s[i], w[i])
        structures["time"].add(y[i], s[i], w[i], time=times[i])
        structures["decay"].add(y[i], s[i], w[i], time=times[i])
        low = max(0, i + 1 - window)
        assert_within(structures["count"], sklearn_ap(y[low:i + 1], s[low:i + 1], w[low:i + 1]))
        inside = times[: i + 1] > times[i] - 100.0
        assert_within(structures["time"], sklearn_ap(y[: i + 1][inside], s[: i + 1][inside],
                                                     w[: i + 1][inside]))
        decayed = w[: i + 1] * 0.5 ** ((times[i] - times[: i + 1]) / half_life)
        exact = sklearn_ap(y[: i + 1], s[: i + 1], decayed)
        assert structures["decay"].average_precision() == pytest.approx(exact, rel=1e-9,
                                                                        nan_ok=True)
        assert_within(structures["decay"], exact, (0.5, 0.01))


def test_structures_without_a_segment_tree_read_the_exact_value():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 300), rng.integers(0, 40, 300) / 4.0
    approx_auc = ApproxAUC(0.1)
    approx_auc.add_many(y, s)
    assert approx_auc.average_precision(relative_error=0.2) == pytest.approx(sklearn_ap(y, s),
                                                                        rel=1e-12)


@pytest.mark.parametrize("epsilon", [0, 1, -0.1, 1.5, np.nan, np.inf, "0.1", True])
def test_a_bad_epsilon_is_refused_and_changes_nothing(epsilon):
    tracker = DynamicAUC()
    tracker.add_many([0, 1, 1], [0.1, 0.4, 0.2])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="relative_error"):
        tracker.average_precision(relative_error=epsilon)
    assert pickle.dumps(tracker) == before
    with pytest.raises(ValueError, match="relative_error"):
        APApprox(epsilon)


def test_one_class_reads_nan():
    tracker = DynamicAUC()
    assert np.isnan(tracker.average_precision(relative_error=0.1))
    tracker.add_many([1, 1], [0.1, 0.2])
    assert np.isnan(tracker.average_precision(relative_error=0.1))


@pytest.mark.parametrize("epsilon", [0.5, 0.05, 0.001])
def test_the_window_metric_within_the_bound_on_every_window(epsilon):
    rng = np.random.default_rng(8)
    n, window = 300, 50
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.8 * y, 1)
    w = rng.choice([0.5, 1.0, 3.0], n)
    values = sliding_window(y, s, window, APApprox(epsilon), sample_weight=w)["ap_approx"]
    both = sliding_window(y, s, window, ["ap", "ap_approx", APApprox(epsilon)],
                          sample_weight=w)
    np.testing.assert_array_equal(both["ap_approx"], values)
    monitor = SlidingWindow(window, APApprox(epsilon))
    monitor.update(y[:120], s[:120], sample_weight=w[:120])
    restored = pickle.loads(pickle.dumps(monitor))
    np.testing.assert_array_equal(
        restored.update(y[120:], s[120:], sample_weight=w[120:])["ap_approx"], values[120:])
    for end in range(n):
        low = max(0, end + 1 - window)
        exact = sklearn_ap(y[low:end + 1], s[low:end + 1], w[low:end + 1])
        assert both["ap"][end] == pytest.approx(exact, rel=1e-9, nan_ok=True)
        if np.isnan(exact):
            assert np.isnan(values[end])
        else:
            assert abs(values[end] - exact) <= epsilon * exact, end
    assert restored["ap_approx"] == values[-1]
