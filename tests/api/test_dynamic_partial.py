"""DynamicAUC.partial_auc and the window metric "pauc" against the from-scratch partial_auc.

Unit weights: equal bit for bit to ``partial_auc`` and to an independent exact
rational integration of the clamped curve, correctly rounded.
"""

import itertools
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import strategies as st
from machines import PointSetMachine, point_set_test
from reference_impl import class_weights, columns, roc_points_exact

from hmeasure_stream import DynamicAUC, PartialRange, SlidingWindow, partial_auc, sliding_window

# (fpr_range, tpr_range, correction): both foci, two-way, McClish, boundaries
# that fall on ROC vertices for small class counts (quarters, thirds).
OPTIONS = [
    (None, None, None),
    ((0.0, 0.5), None, None),
    ((0.0, 0.5), None, "mcclish"),
    ((0.25, 0.75), None, None),
    ((0.1, 0.35), None, "mcclish"),
    ((1 / 3, 1.0), None, None),
    (None, (0.5, 1.0), None),
    (None, (0.8, 1.0), "mcclish"),
    (None, (0.0, 0.3), None),
    (None, (0.25, 2 / 3), "mcclish"),
    ((0.0, 0.5), (0.5, 1.0), None),
    ((0.2, 0.6), (0.25, 0.75), None),
    ((0.5, 1.0), (0.0, 0.5), None),
    ((0.05, 0.95), (0.3, 0.31), None),
]


def _clamped_area(u0, t0, u1, t1, a, b, c, d):
    """Exact integral over [a, b] of (min(max(t(u), c), d) - c) for one segment (Fractions)."""
    lo, hi = max(u0, a), min(u1, b)
    if hi <= lo:
        return Fraction(0)
    slope = (t1 - t0) / (u1 - u0)

    def height(u):
        return t0 + slope * (u - u0)

    # Break where the segment crosses c and d; each piece is linear after clamping.
    cuts = {lo, hi}
    for level in (c, d):
        if slope != 0:
            u = u0 + (level - t0) / slope
            if lo < u < hi:
                cuts.add(u)
    cuts = sorted(cuts)
    total = Fraction(0)
    for left, right in itertools.pairwise(cuts):
        heights = [min(max(height(u), c), d) - c for u in (left, right)]
        total += (right - left) * (heights[0] + heights[1]) / 2
    return total


def exact_partial(points, fpr_range, tpr_range, correction):
    """Independent reference: the clamped ROC curve (the exact ROC points of
    ``roc_points_exact``, in curve order) integrated in rational arithmetic."""
    labels, scores, weights = columns(points)
    labels = [int(bool(label)) for label in labels]
    if 0 in class_weights(labels, weights):
        return float("nan")
    a, b = (Fraction(x) for x in (fpr_range or (0.0, 1.0)))
    c, d = (Fraction(x) for x in (tpr_range or (0.0, 1.0)))
    area = Fraction(0)
    for (u, t), (u1, t1) in itertools.pairwise(sorted(roc_points_exact(labels, scores,
                                                                        weights))):
        if u1 > u:
            area += _clamped_area(u, t, u1, t1, a, b, c, d)
    if correction is None or (fpr_range is None and tpr_range is None):
        return float(area)
    if tpr_range is None:
        low, high = a, b
        diagonal = (high * high - low * low) / 2
    else:
        low, high = c, d
        # Area between the diagonal t = u and the right edge, for t in [c, d].
        diagonal = (high - low) - (high * high - low * low) / 2
    strip = high - low
    return float((1 + (area - diagonal) / (strip - diagonal)) / 2)


def from_scratch(points, fpr_range, tpr_range, correction):
    y = np.array([p[0] for p in points], dtype=np.int64)
    s = np.array([p[1] for p in points])
    w = np.array([p[2] for p in points])
    if not (y.size and w[y == 0].sum() > 0 and w[y == 1].sum() > 0):
        return float("nan")
    weights = None if np.all(w == 1.0) else w
    return partial_auc(y, s, fpr_range=fpr_range, tpr_range=tpr_range, correction=correction,
                       sample_weight=weights)


def assert_partial_matches(tracker, points, exact):
    for fpr_range, tpr_range, correction in OPTIONS:
        got = tracker.partial_auc(fpr_range=fpr_range, tpr_range=tpr_range,
                                  correction=correction)
        expected = from_scratch(points, fpr_range, tpr_range, correction)
        if np.isnan(expected):
            assert np.isnan(got)
            continue
        reference = exact_partial(points, fpr_range, tpr_range, correction)
        if exact:
            # The exact area (or McClish value) correctly rounded, as from scratch.
            assert got == expected == reference, (fpr_range, tpr_range, correction)
        else:
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-13), (
                fpr_range, tpr_range, correction)
            assert got == pytest.approx(reference, rel=1e-12, abs=1e-13)


@pytest.mark.parametrize("fpr_range", [(0.1, 0.7), (0.3, 0.9), (0.99999, 1.0), (0.0, 0.6)])
@pytest.mark.parametrize("tpr_range", [None, (0.1, 0.7), (0.3, 0.6)])
def test_sides_that_floats_round_onto_a_corner(fpr_range, tpr_range):
    # 0.1 * 10 and 0.7 * 10 round to the integers 1.0 and 7.0, but the exact sides
    # (the float rates times 10) are just above 1 and just below 7: the segments from
    # 1 to 2 and from 6 to 7 cross them and are cut, exactly.
    y = np.repeat([0, 1], 10)
    s = np.concatenate([np.arange(10.0), np.arange(10.0) + 0.5])
    s[[3, 13]] = 7.0  # and a tie: a diagonal segment
    tracker = DynamicAUC()
    tracker.add_many(y, s)
    points = list(zip(y, s, np.ones(20), strict=True))
    for correction in (None, "mcclish") if tpr_range is None else (None,):
        reference = exact_partial(points, fpr_range, tpr_range, correction)
        options = {"fpr_range": fpr_range, "tpr_range": tpr_range, "correction": correction}
        assert partial_auc(y, s, **options) == reference
        assert tracker.partial_auc(**options) == reference
        if correction is None:
            # The window's compiled combination: within an ulp or two (its McClish
            # value amplifies that by the inverse of the range's room, documented).
            window = sliding_window(y, s, None, metrics=PartialRange(**options))["pauc"][-1]
            assert window == pytest.approx(reference, rel=1e-15)


@pytest.mark.parametrize("seed", range(10))
def test_random_sequences_against_from_scratch_after_every_operation(seed):
    rng = np.random.default_rng(seed)
    weighted = seed % 2 == 1
    distinct = [2, 4, 12, None, 6][seed % 5]
    tracker = DynamicAUC(capacity=1)
    points = []
    for _ in range(120):
        if points and rng.random() < 0.4:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score, weight)
        else:
            label = int(rng.integers(2))
            score = float(rng.normal()) if distinct is None else float(rng.integers(distinct))
            weight = float(rng.choice([0.0, 0.5, 1.0, 3.0, rng.exponential()])) if weighted \
                else 1.0
            tracker.add(label, score, weight)
            points.append((label, score, weight))
        tracker._check()
        assert_partial_matches(tracker, points, exact=not weighted)


def test_nan_without_both_classes_and_after_emptying():
    tracker = DynamicAUC()
    assert np.isnan(tracker.partial_auc(fpr_range=(0, 0.5)))
    tracker.add_many([1, 1], [0.2, 0.4])
    assert np.isnan(tracker.partial_auc(tpr_range=(0.5, 1), correction="mcclish"))
    tracker.add(0, 0.3)
    # Curve (0, 0) -> (0, 1/2) -> (1, 1/2) -> (1, 1); FPR in [0, 1/2] under it: 1/4.
    assert tracker.partial_auc(fpr_range=(0, 0.5)) == 0.25
    tracker.remove_many([1, 1, 0], [0.2, 0.4, 0.3])
    assert np.isnan(tracker.partial_auc())


def test_values_by_hand_with_ties_as_diagonals():
    tracker = DynamicAUC()
    # Score 2: one point of each class, the diagonal (0, 0) -> (1/2, 1); score 1: one
    # class 0 point, (1/2, 1) -> (1, 1).
    tracker.add_many([0, 1, 0], [2.0, 2.0, 1.0])
    assert tracker.partial_auc(fpr_range=(0, 0.25)) == 1 / 16  # under t = 2u
    assert tracker.partial_auc() == 0.75
    # Right of the curve (u = t / 2) for t in [0, 1/2]: 1/2 - 1/16.
    assert tracker.partial_auc(tpr_range=(0, 0.5)) == 7 / 16
    # Two-way: FPR in [1/4, 1], TPR in [1/2, 3/4]: 1/4 * (1/8 + 3/8) / 2 ... by pieces:
    # u in [1/4, 3/8]: 2u - 1/2; u in [3/8, 1]: 1/4.
    assert tracker.partial_auc(fpr_range=(0.25, 1), tpr_range=(0.5, 0.75)) == (
        1 / 64 + 5 / 32)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fpr_range": (0.5, 0.5)}, "fpr_range must satisfy 0 <= low < high <= 1"),
        ({"tpr_range": (0.2, 1.5)}, "tpr_range must satisfy"),
        ({"fpr_range": "ab"}, "fpr_range must be a pair"),
        ({"tpr_range": (True, 1)}, "tpr_range must be a pair"),
        ({"correction": "McClish"}, "correction must be one of"),
        ({"fpr_range": (0, 0.5), "tpr_range": (0.5, 1), "correction": "mcclish"},
         "not defined for the two-way area"),
    ],
)
def test_bad_options_are_refused_and_change_nothing(kwargs, message):
    tracker = DynamicAUC()
    tracker.add_many([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=message):
        tracker.partial_auc(**kwargs)
    assert pickle.dumps(tracker) == before


def test_large_structure_equals_from_scratch_bit_for_bit(rng):
    n = 20_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 2)  # many ties
    tracker = DynamicAUC()
    tracker.add_many(y, s)
    tracker.remove_many(y[:5000], s[:5000])
    for fpr_range, tpr_range, correction in OPTIONS:
        assert tracker.partial_auc(fpr_range=fpr_range, tpr_range=tpr_range,
                                   correction=correction) == partial_auc(
            y[5000:], s[5000:], fpr_range=fpr_range, tpr_range=tpr_range, correction=correction)


class DynamicPartialMachine(PointSetMachine):
    """The shared machine, checking every partial area after each step."""

    scores = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 2.0, 1e300, -1e-300])

    def make(self):
        return DynamicAUC(capacity=1)

    def matches(self, tracker, points, exact):
        assert_partial_matches(tracker, points, exact)


TestDynamicPartialMachine = point_set_test(DynamicPartialMachine)


def _window_reference(y, s, w, window, options):
    fpr_range, tpr_range, correction = options
    values = []
    for end in range(len(y)):
        start = 0 if window is None else max(0, end + 1 - window)
        points = list(zip(y[start:end + 1], s[start:end + 1], w[start:end + 1], strict=True))
        values.append(from_scratch(points, fpr_range, tpr_range, correction))
    return np.array(values)


@pytest.mark.parametrize("options", OPTIONS[1:], ids=str)
@pytest.mark.parametrize(("window", "weighted"), [(7, False), (25, True), (None, False)])
def test_window_metric_equals_from_scratch_on_every_window(rng, options, window, weighted):
    n = 120
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 6, n).astype(float)
    w = rng.choice([0.5, 1.0, 2.0], n) if weighted else np.ones(n)
    got = sliding_window(y, s, window, metrics=("pauc", "auc", PartialRange(*options)),
                         sample_weight=w if weighted else None)
    expected = _window_reference(y, s, w, window, options)
    np.testing.assert_array_equal(np.isnan(got["pauc"]), np.isnan(expected))
    np.testing.assert_allclose(got["pauc"], expected, rtol=1e-14 if not weighted else 1e-12,
                               atol=1e-15)
    # The AUC column comes from the same engine.
    auc_only = sliding_window(y, s, window, sample_weight=w if weighted else None)["auc"]
    np.testing.assert_array_equal(got["auc"], auc_only)


def test_window_in_chunks_with_a_pickle_midway_equals_one_shot(rng):
    n = 300
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n), 1)
    options = {"fpr_range": (0.0, 0.2), "correction": "mcclish"}
    one_shot = sliding_window(y, s, 40, metrics=("pauc", "h", PartialRange(**options)))
    monitor = SlidingWindow(40, metrics=("pauc", "h", PartialRange(**options)), capacity=1)
    parts = []
    for start in range(0, n, 70):
        if start == 140:
            monitor = pickle.loads(pickle.dumps(monitor))
        parts.append(monitor.update(y[start:start + 70], s[start:start + 70])["pauc"])
        monitor._check()
    np.testing.assert_array_equal(np.concatenate(parts), one_shot["pauc"])
    assert monitor["pauc"] == one_shot["pauc"][-1]
    last = partial_auc(y[-40:], s[-40:], **options)
    assert monitor["pauc"] == pytest.approx(last, rel=1e-14)


def test_window_options_are_checked_once_and_pauc_is_only_where_asked_for():
    with pytest.raises(ValueError, match="fpr_range must satisfy"):
        SlidingWindow(5, metrics=PartialRange(fpr_range=(0.6, 0.2)))
    with pytest.raises(ValueError, match="two-way"):
        sliding_window([0, 1], [0.1, 0.2], 2, metrics=PartialRange(
            fpr_range=(0, 0.5), tpr_range=(0, 0.5), correction="mcclish"))
    # A window without "pauc" has no partial area to read.
    monitor = SlidingWindow(5, metrics="auc")
    with pytest.raises(KeyError, match="'pauc' is not among"):
        monitor["pauc"]


def _random_range(rng):
    """A rate range as users write them: None, random floats, quarters or thirds, the
    ints 0 and 1, numpy floats, a list."""
    kind = int(rng.integers(6))
    if kind == 0:
        return None
    if kind == 1:
        low, high = np.sort(rng.random(2))
        return (float(low), float(high)) if low < high else None
    if kind == 2:
        low, high = sorted(rng.choice(9, 2, replace=False) / 8)
        return float(low), float(high)
    if kind == 3:
        low, high = sorted(rng.choice(4, 2, replace=False) / 3)
        return low, high
    if kind == 4:
        return [0, float(rng.choice([0.25, 0.5, 0.9]))] if rng.random() < 0.5 else (
            float(rng.choice([0.1, 0.5])), 1)
    low, high = np.sort(rng.random(2))
    return (np.float64(low), np.float64(high)) if low < high else None


@pytest.mark.parametrize("seed", range(6))
def test_random_ranges_after_every_operation_compiled_and_python_paths(seed, monkeypatch):
    # The read settles most values in compiled code and leaves the rest (rounding in
    # doubt, an exact zero) to the exact Python combination; both agree with the
    # rational reference bit for bit (unit weights), on random ranges of both foci,
    # two-way and McClish, after every addition and removal (ties included).
    import hmeasure_stream.streaming.auc as auc_module

    compiled = auc_module.read_partial
    rng = np.random.default_rng(100 + seed)
    weighted = seed % 3 == 2
    distinct = [3, None, 8][seed % 3]
    tracker = DynamicAUC(capacity=1)
    points = []
    settled = in_python = 0
    for _ in range(70):
        if points and rng.random() < 0.35:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score, weight)
        else:
            label = int(rng.integers(2))
            score = float(rng.normal()) if distinct is None else float(rng.integers(distinct))
            weight = float(rng.choice([0.5, 1.0, 3.0, rng.exponential()])) if weighted else 1.0
            tracker.add(label, score, weight)
            points.append((label, score, weight))
        for _ in range(6):
            fpr_range, tpr_range = _random_range(rng), _random_range(rng)
            correction = "mcclish" if (fpr_range is None or tpr_range is None) and \
                rng.random() < 0.5 else None
            options = {"fpr_range": fpr_range, "tpr_range": tpr_range, "correction": correction}
            monkeypatch.setattr(auc_module, "read_partial", compiled)
            got = tracker.partial_auc(**options)
            if compiled(tracker._engine, fpr_range, tpr_range, correction) is None:
                in_python += 1
            else:
                settled += 1
            monkeypatch.setattr(auc_module, "read_partial", lambda *args: None)
            python_path = tracker.partial_auc(**options)
            expected = from_scratch(points, fpr_range, tpr_range, correction)
            if np.isnan(expected):
                assert np.isnan(got) and np.isnan(python_path)
                continue
            reference = exact_partial(points, fpr_range, tpr_range, correction)
            if weighted:
                assert got == python_path, options  # the same float operations
                assert got == pytest.approx(reference, rel=1e-12, abs=1e-13), options
            else:
                assert got == python_path == expected == reference, options
    assert settled > 100
    assert in_python > 0 or weighted


def test_exact_zeros_ties_and_non_plain_arguments():
    from hmeasure_stream._engines._tree_partial import read_partial

    tracker = DynamicAUC()
    tracker.add_many([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    tree = tracker._engine  # (the blocked engine: read_partial starts its pair sums)
    # Curve (0, 0) -> (0, 1/2) -> (1/2, 1/2) -> (1/2, 1) -> (1, 1): nothing of the box
    # FPR [0, 1/2] x TPR [0.6, 0.9] lies under it, an exact zero (every part known 0).
    assert read_partial(tree, (0.0, 0.5), (0.6, 0.9), None) == 0.0
    assert tracker.partial_auc(fpr_range=(0.0, 0.5), tpr_range=(0.6, 0.9)) == 0.0
    # Under the TPR 1/2 stretch, along its lower side C = 1/2 (1 of 2 class 1 points).
    assert read_partial(tree, (0.0, 0.5), (0.5, 1.0), None) == 0.0
    # 1/2 * 1/2 (FPR [0, 1/2] at height 1/2), settled in compiled code.
    assert read_partial(tree, (0.0, 0.5), None, None) == 0.25
    for fpr_range in [(np.float32(0.0), 0.5), (0, np.int64(1)), (False, 0.5), "ab",
                      (0.5, 0.5), (0.0, 0.5, 1.0)]:
        assert read_partial(tree, fpr_range, None, None) is None
    assert read_partial(tree, (0.0, 0.5), None, "McClish") is None
    assert read_partial(tree, (0.0, 0.5), (0.5, 1.0), "mcclish") is None
    # Through the public method: the same values (or messages) as before.
    assert tracker.partial_auc(fpr_range=(np.float32(0.0), 0.5)) == 0.25
    assert tracker.partial_auc(fpr_range=(0, np.int64(1))) == tracker.auc == 0.75

    # A tie: one point of each class, the box's area is 0.8 - 0.3 (the floats), which is
    # 1/2 + 2**-54, halfway between two floats.  No error bound settles that: the
    # exact combination rounds it to even, 1/2.
    tracker = DynamicAUC()
    tracker.add_many([0, 1], [0.0, 1.0])
    options = {"fpr_range": (0.0, 1.0), "tpr_range": (0.3, 0.8)}
    exact = Fraction(0.8) - Fraction(0.3)
    assert exact == Fraction(1, 2) + Fraction(1, 2**54)
    assert read_partial(tracker._engine, *options.values(), None) is None
    assert tracker.partial_auc(**options) == float(exact) == 0.5
