"""ApproxAUC: the guarantee of Prop. 1 after every update, the size of Prop. 2, the
invariants after every operation, refusals, pickling and the window metric."""

import copy
import math
import pickle
import zlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from reference_impl import brute_auc, sorted_count_auc

from hmeasure_stream import ApproxAUC, Compression, SlidingWindow, sliding_window
from hmeasure_stream._demo import load_default_stream

EPSILONS = [0.01, 0.1, 0.5, 1.0]
# Slack for the one rounding of the estimate and of 1 + epsilon (far below any bound).
ROUNDING = Fraction(1, 2**50)


def test_counting_reference_equals_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(20):
        y, s = rng.integers(0, 2, 30), rng.integers(0, 4, 30).astype(float)
        if 0 < y.sum() < len(y):
            assert sorted_count_auc(y, s) == brute_auc(list(y), list(s))


def assert_guarantee(estimate, exact, epsilon, relative_to):
    """|auc' - auc| <= epsilon * auc / 2 (or epsilon * (1 - auc) / 2), nan without a class."""
    if exact is None:
        assert math.isnan(estimate)
        return
    scale = exact if relative_to == "auc" else 1 - exact
    error = abs(Fraction(estimate) - exact)
    assert error <= Fraction(epsilon) * scale / 2 + ROUNDING, (
        f"estimate {estimate!r}, exact {float(exact)!r}, bound {epsilon * float(scale) / 2!r}")


def size_bound(points_listed, epsilon):
    """Prop. 2 with the constant of its proof: |C| <= 2 log k / log(1 + epsilon) + 3,
    sentinels included, for k >= 1 points of the listed class."""
    return 2 * math.log(max(points_listed, 1)) / math.log1p(epsilon) + 3


def make_stream(kind, n, rng):
    if kind == "ties":
        y = rng.integers(0, 2, n)
        s = rng.integers(0, 6, n) + y * rng.integers(0, 3, n)
    elif kind == "rare_positives":
        y = (rng.random(n) < 0.03).astype(int)
        s = np.round(rng.normal(size=n) + 1.5 * y, 2)
    elif kind == "rare_negatives":
        y = (rng.random(n) < 0.97).astype(int)
        s = np.round(rng.normal(size=n) + 1.5 * y, 2)
    elif kind == "separated":
        y = rng.integers(0, 2, n)
        s = rng.normal(size=n) + 3.0 * y
    else:  # drifting: the classifier degrades midway
        y = rng.integers(0, 2, n)
        s = rng.normal(size=n) + np.where(np.arange(n) < n // 2, 1.0, -0.5) * y
    return y.astype(int), s.astype(float)


def listed_count(y, relative_to):
    y = np.asarray(y)
    return int(np.sum(y == (1 if relative_to == "1-auc" else 0)))


@pytest.mark.parametrize("kind", ["ties", "rare_positives", "rare_negatives", "separated",
                                  "drifting"])
@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_guarantee_after_every_insertion_and_deletion(epsilon, relative_to, kind):
    rng = np.random.default_rng(zlib.crc32(f"{epsilon} {relative_to} {kind}".encode()))
    y, s = make_stream(kind, 1200, rng)
    window = 250
    tracker = ApproxAUC(epsilon, relative_to=relative_to, capacity=1)
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]))
        # Before the removal the window holds one point more.
        first = max(0, i - window)
        assert_guarantee(tracker.auc, sorted_count_auc(y[first:i + 1], s[first:i + 1]),
                         epsilon, relative_to)
        if i >= window:
            tracker.remove(int(y[i - window]), float(s[i - window]))
            part = slice(i + 1 - window, i + 1)
            assert_guarantee(tracker.auc, sorted_count_auc(y[part], s[part]), epsilon, relative_to)
            listed = listed_count(y[part], relative_to)
            assert tracker.compressed_size + 2 <= size_bound(listed, epsilon)
            assert tracker.compressed_size + 2 <= 2 * math.log(window) / math.log1p(epsilon) + 4
    tracker._check()


@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_guarantee_on_the_real_stream_in_a_sliding_window(epsilon, relative_to):
    """The embedded stream (UCI digits, naive Bayes scores), every window of 300, by the
    window metric; exact AUCs counted independently."""
    y, s = load_default_stream()
    window = 300
    values = sliding_window(y, s, window,
                            metrics=("auc_approx", "auc", Compression(epsilon, relative_to)))
    worst = 0.0
    for end in range(len(y)):
        start = max(0, end + 1 - window)
        exact = sorted_count_auc(y[start:end + 1], s[start:end + 1])
        assert_guarantee(values["auc_approx"][end], exact, epsilon, relative_to)
        if exact is not None:
            assert values["auc"][end] == float(exact)
            scale = exact if relative_to == "auc" else 1 - exact
            if scale > 0:
                worst = max(worst, float(abs(Fraction(values["auc_approx"][end]) - exact)
                                         / scale))
    # The bound is not vacuous here: the estimate is not simply exact.
    if epsilon >= 0.5:
        assert worst > 0


@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
@pytest.mark.parametrize("epsilon", [0.01, 0.3, 1.0, 4.0])
def test_check_after_every_operation_from_capacity_one(epsilon, relative_to):
    rng = np.random.default_rng(int(epsilon * 1000) + len(relative_to))
    tracker = ApproxAUC(epsilon, relative_to=relative_to, capacity=1, seed=3)
    points = []
    for _ in range(500):
        action = rng.random()
        if points and action < 0.35:
            label, score = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score)
        elif points and action < 0.45:
            chosen = sorted(set(rng.integers(0, len(points), 4).tolist()), reverse=True)
            batch = [points.pop(k) for k in chosen]
            tracker.remove_many([p[0] for p in batch], [p[1] for p in batch])
        elif action < 0.55:
            batch = [(int(rng.integers(2)), float(rng.integers(0, 5))) for _ in range(3)]
            tracker.add_many([p[0] for p in batch], [p[1] for p in batch])
            points.extend(batch)
        else:
            label = int(rng.random() < 0.4)
            score = float(rng.integers(0, 8))
            tracker.add(label, score)
            points.append((label, score))
        tracker._check()
        assert len(tracker) == len(points)
        y, s = [p[0] for p in points], [p[1] for p in points]
        assert_guarantee(tracker.auc, sorted_count_auc(y, s), epsilon, relative_to)
        assert tracker.compressed_size + 2 <= size_bound(listed_count(y, relative_to), epsilon)
    # Emptied, then reusable.
    tracker.remove_many([p[0] for p in points], [p[1] for p in points])
    tracker._check()
    assert len(tracker) == 0 and tracker.compressed_size == 0 and math.isnan(tracker.auc)
    tracker.add_many([0, 1], [0.0, 1.0])
    assert tracker.auc == 1.0


@pytest.mark.parametrize(("epsilon", "largest"), [(0.01, 15), (0.1, 16), (0.5, 17)])
def test_compressed_size_grows_like_log_k(epsilon, largest):
    """Doubling the window adds a roughly constant number of groups: about
    log 2 / log(1 + eps) (a factor 1 + eps per group), at most twice that (Eq. 4)."""
    rng = np.random.default_rng(8)
    per_doubling = math.log(2) / math.log1p(epsilon)
    exponents = np.arange(10, largest + 1)
    sizes = []
    for exponent in exponents:
        window = 2**int(exponent)
        y, s = rng.integers(0, 2, window + 64), rng.normal(size=window + 64)
        tracker = ApproxAUC(epsilon)
        tracker.add_many(y[:window], s[:window])
        samples = []
        for i in range(window, window + 64):
            tracker.add(int(y[i]), float(s[i]))
            tracker.remove(int(y[i - window]), float(s[i - window]))
            samples.append(tracker.compressed_size)
        sizes.append(np.mean(samples))
    slope = np.polyfit(exponents, sizes, 1)[0]
    assert 0.8 * per_doubling <= slope <= 2 * per_doubling, (sizes, per_doubling)
    increments = np.diff(sizes)
    # Roughly constant: integer sizes make single steps jump by one group.
    assert np.all(increments >= min(0.8 * per_doubling, per_doubling - 1.5)), sizes
    assert np.all(increments <= 2 * per_doubling + 1.5), sizes


class ApproxAUCMachine(RuleBasedStateMachine):
    """Random add/remove/batch sequences: invariants, the guarantee in exact arithmetic,
    refusals leaving the structure unchanged."""

    labels = st.integers(0, 1)
    scores = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 2.0, 1e300, -1e-300])

    @initialize(epsilon=st.sampled_from([0.01, 0.1, 0.5, 1.0, 3.0]),
                relative_to=st.sampled_from(["auc", "1-auc"]))
    def start(self, epsilon, relative_to):
        self.epsilon, self.relative_to = epsilon, relative_to
        self.tracker = ApproxAUC(epsilon, relative_to=relative_to, capacity=1, seed=7)
        self.points = []

    @rule(label=labels, score=scores)
    def add(self, label, score):
        self.tracker.add(label, score)
        self.points.append((label, score))

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove(self, data):
        index = data.draw(st.integers(0, len(self.points) - 1))
        label, score = self.points.pop(index)
        self.tracker.remove(label, score)

    @rule(batch=st.lists(st.tuples(labels, scores), max_size=6))
    def add_many(self, batch):
        self.tracker.add_many([p[0] for p in batch], [p[1] for p in batch])
        self.points.extend(batch)

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove_many(self, data):
        chosen = data.draw(st.sets(st.integers(0, len(self.points) - 1), max_size=5))
        batch = [self.points[i] for i in sorted(chosen)]
        self.points = [p for i, p in enumerate(self.points) if i not in chosen]
        self.tracker.remove_many([p[0] for p in batch], [p[1] for p in batch])

    @rule(label=labels, score=scores)
    def remove_absent_is_refused(self, label, score):
        if not any(p == (label, score) for p in self.points):
            before = pickle.dumps(self.tracker)
            with pytest.raises(KeyError, match="to remove"):
                self.tracker.remove(label, score)
            assert pickle.dumps(self.tracker) == before

    @rule(label=labels, score=scores, weight=st.sampled_from([0.0, 0.5, 2.0]))
    def weights_are_refused(self, label, score, weight):
        before = pickle.dumps(self.tracker)
        with pytest.raises(ValueError, match="unit weights only"):
            self.tracker.add(label, score, weight)
        with pytest.raises(ValueError, match="unit weights only"):
            self.tracker.add_many([label, label], [score, score], sample_weight=[1.0, weight])
        assert pickle.dumps(self.tracker) == before

    @invariant()
    def holds(self):
        self.tracker._check()
        assert len(self.tracker) == len(self.points)
        y, s = [p[0] for p in self.points], [p[1] for p in self.points]
        assert_guarantee(self.tracker.auc, sorted_count_auc(y, s), self.epsilon, self.relative_to)


TestApproxAUCMachine = ApproxAUCMachine.TestCase


@pytest.fixture
def tracker():
    tracker = ApproxAUC(0.1, capacity=4, seed=1)
    tracker.add_many([0, 1, 0, 1, 1, 0], [0.1, 0.5, 0.5, 0.9, 0.9, 0.3])
    return tracker


def unchanged(tracker, call):
    before = pickle.dumps(tracker)
    call()
    assert pickle.dumps(tracker) == before


@pytest.mark.parametrize(
    ("method", "args", "error", "message"),
    [
        ("add", (2, 0.5), ValueError, r"y_true must be 0/1, -1/1 or a boolean, got 2"),
        ("add", (1, float("nan")), ValueError, r"y_score must be finite, got nan"),
        ("add", (1, 0.5, 2.0), ValueError, r"unit weights only .* got weight=2.0"),
        ("add", (1, 0.5, 0.0), ValueError, r"unit weights only"),
        ("add", (1, 0.5, -1.0), ValueError, r"weight must be finite and >= 0, got -1.0"),
        ("add", (1, 0.5, "1"), ValueError, r"weight must be a non-negative number"),
        ("remove", (1, 0.5, 2.0), ValueError, r"unit weights only"),
        ("remove", (1, 0.1), KeyError, r"no point with y_true=1, y_score=0.1 to remove"),
        ("remove", (0, 0.7), KeyError, r"no point with y_true=0, y_score=0.7 to remove"),
        ("add_many", ([0, 1], [0.1, 0.2], [1.0, 3.0]), ValueError,
         r"sample_weight: ApproxAUC takes unit weights only .* got 3.0 at position 1"),
        ("add_many", ([0, 2], [0.1, 0.2]), ValueError, r"found 2 at position 1"),
        ("remove_many", ([1, 1, 1], [0.9, 0.9, 0.9]), KeyError,
         r"removes 3 point\(s\) with y_true=1, y_score=0.9, but 2 are present"),
        ("remove_many", ([0, 1], [0.1, 0.5], [1.0, 0.5]), ValueError, r"unit weights only"),
    ],
)
def test_refusals_change_nothing(tracker, method, args, error, message):
    def call():
        with pytest.raises(error, match=message):
            getattr(tracker, method)(*args)

    unchanged(tracker, call)


def test_unit_weights_given_explicitly_are_accepted(tracker):
    tracker.add(1, 0.2, 1.0)
    tracker.add(1, 0.25, np.float64(1.0))
    tracker.add_many([0, 1], [0.05, 0.95], sample_weight=np.ones(2))
    tracker.remove_many([0, 1], [0.05, 0.95], sample_weight=[1, 1])
    tracker.remove(1, 0.25, 1)
    tracker._check()
    assert len(tracker) == 7


@pytest.mark.parametrize("compression", [0, -0.1, float("nan"), float("inf"), "0.1", True])
def test_bad_compression(compression):
    with pytest.raises(ValueError, match="compression must be"):
        ApproxAUC(compression)


def test_compression_is_required():
    for make in (ApproxAUC, lambda: ApproxAUC(None), Compression):
        with pytest.raises(TypeError, match=r"missing 1 required .*argument: 'compression'"):
            make()
    with pytest.raises(ValueError, match="compression must be a positive number, got None"):
        Compression(None)


@pytest.mark.parametrize("relative_to", ["AUC", "1 - auc", None, 1])
def test_bad_relative_to(relative_to):
    with pytest.raises(ValueError, match=r'relative_to must be "auc" or "1-auc"'):
        ApproxAUC(0.1, relative_to=relative_to)


def test_pickle_and_deepcopy_round_trip_with_identical_later_results():
    rng = np.random.default_rng(11)
    tracker = ApproxAUC(0.05, relative_to="1-auc", capacity=2, seed=3)
    tracker.add_many(rng.integers(0, 2, 500), np.round(rng.normal(size=500), 1))
    for duplicate in (lambda t: pickle.loads(pickle.dumps(t)), copy.deepcopy):
        clone = duplicate(tracker)
        clone._check()
        assert (clone.auc, clone.compressed_size, clone.compression, clone.relative_to) == (
            tracker.auc, tracker.compressed_size, 0.05, "1-auc")
        more_y, more_s = rng.integers(0, 2, 50), rng.normal(size=50)
        for target in (tracker, clone):
            target.add_many(more_y, more_s)
            target.remove_many(more_y[:20], more_s[:20])
        assert clone.auc == tracker.auc and len(clone) == len(tracker)
        clone._check()


def test_small_epsilon_keeps_every_group_and_is_exact():
    """With 1 + epsilon below (k + 1) / k every listed node stays in C: Alg. 4 is Eq. 1."""
    rng = np.random.default_rng(3)
    y, s = rng.integers(0, 2, 300), np.round(rng.normal(size=300), 1)
    tracker = ApproxAUC(1e-4)
    tracker.add_many(y, s)
    assert tracker.auc == float(sorted_count_auc(y, s))
    assert tracker.compressed_size == len(np.unique(s[y == 0]))


def test_repr_and_properties(tracker):
    assert repr(tracker).startswith("ApproxAUC(points=6, compression=0.1, relative_to='auc', auc=")
    assert tracker.weight_neg == 3.0 and tracker.weight_pos == 3.0


# ----------------------------------------------------------------------------
# The window metric.


@pytest.mark.parametrize("window", [1, 37, 300, None])
@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
def test_window_metric_in_chunks_equals_sliding_window_and_a_loop(window, relative_to):
    rng = np.random.default_rng(5)
    y, s = load_default_stream()
    compression = Compression(compression=0.2, relative_to=relative_to)
    expected = sliding_window(y, s, window, metrics=("auc", "auc_approx", compression))
    monitor = SlidingWindow(window, ("auc_approx", "auc", compression))
    parts, position = [], 0
    while position < len(y):
        size = int(rng.integers(1, 200))
        parts.append(monitor.update(y[position:position + size], s[position:position + size]))
        position += size
        if len(parts) == 3:
            monitor = pickle.loads(pickle.dumps(monitor))
    monitor._check()
    for name in ("auc", "auc_approx"):
        np.testing.assert_array_equal(np.concatenate([p[name] for p in parts]), expected[name])
    np.testing.assert_array_equal(expected["auc"], sliding_window(y, s, window)["auc"])
    np.testing.assert_array_equal(monitor["auc_approx"], expected["auc_approx"][-1])
    # The same steps by hand: add the new point, then remove the one leaving.
    tracker = ApproxAUC(0.2, relative_to=relative_to)
    by_hand = []
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]))
        if window is not None and i >= window:
            tracker.remove(int(y[i - window]), float(s[i - window]))
        by_hand.append(tracker.auc)
    np.testing.assert_array_equal(by_hand, expected["auc_approx"])


def test_window_metric_with_the_hull_metrics():
    y, s = load_default_stream()
    values = sliding_window(y, s, 200, metrics=("h", "auc_approx", "auc", Compression(0.5)))
    alone = sliding_window(y, s, 200, metrics=Compression(0.5))
    np.testing.assert_array_equal(values["auc_approx"], alone["auc_approx"])
    np.testing.assert_array_equal(values["auc"], sliding_window(y, s, 200)["auc"])
    assert list(values) == ["h", "auc_approx", "auc"]


def test_window_metric_refusals():
    with pytest.raises(ValueError, match=r"'auc_approx' needs Compression\(compression=...\)"):
        SlidingWindow(10, "auc_approx")
    with pytest.raises(ValueError, match="compression must be a finite number > 0"):
        sliding_window([0, 1], [0.1, 0.2], 10, metrics=Compression(compression=0.0))
    with pytest.raises(ValueError, match='relative_to must be "auc" or "1-auc"'):
        SlidingWindow(10, Compression(compression=0.1, relative_to="auc'"))
    monitor = SlidingWindow(3, ("auc", Compression(compression=0.1)))
    monitor.update([0, 1, 1], [0.1, 0.5, 0.7])
    before = pickle.dumps(monitor)
    with pytest.raises(ValueError, match="the metric 'auc_approx' takes unit weights only"):
        monitor.update([0, 1], [0.2, 0.3], sample_weight=[1.0, 2.0])
    assert pickle.dumps(monitor) == before
    values = monitor.update([0, 1], [0.2, 0.3], sample_weight=[1.0, 1.0])
    assert values["auc_approx"].shape == (2,)
    with pytest.raises(ValueError, match="unit weights only"):
        sliding_window([0, 1], [0.1, 0.2], 10, metrics=Compression(compression=0.1),
                       sample_weight=[0.5, 1.0])
    # The compressed list leaves the exact AUC as it is.
    np.testing.assert_array_equal(
        sliding_window([0, 1, 0], [0.1, 0.2, 0.3], 2, ("auc", Compression(0.5)))["auc"],
        sliding_window([0, 1, 0], [0.1, 0.2, 0.3], 2)["auc"])
