"""DynamicAUC on sorted blocks, which serve every read: no move to another structure.

A DynamicAUC keeps its points in ``BlockedAUCEngine``; the first derived read
(``partial_auc``, DeLong's variance) starts the blocks' pair sums in place.
Checked against a brute-force Mann-Whitney in fractions, against the
from-scratch functions, and against the same points on blocks that keep their
pair sums from the start (``variance=True``), with ``_check()`` after every
operation.
"""

import math
import pickle

import numpy as np
import pytest
from reference_impl import brute_auc, brute_auc_value, columns, roc_points_exact

from hmeasure_stream import DynamicAUC, DynamicH, auc_variance, partial_auc
from hmeasure_stream._engines._blocked import BlockedAUCEngine


def _tracking_from_start(**options):
    """A DynamicAUC keeping its pair sums and placements from the start, as a reference."""
    return DynamicAUC(variance=True, **options)


def _same(got, expected, exact):
    if math.isnan(expected):
        return math.isnan(got)
    return got == expected if exact else got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_a_plain_structure_stays_on_blocks(rng):
    tracker = DynamicAUC(capacity=1)
    points = []
    for _ in range(300):
        if points and rng.random() < 0.4:
            label, score, _ = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(30)) / 4
            tracker.add(label, score)
            points.append((label, score, 1.0))
        tracker._check()
        assert _same(tracker.auc, brute_auc_value(*columns(points)), exact=True)
    labels, scores = [p[0] for p in points], [p[1] for p in points]
    fpr, tpr = tracker.roc_points()
    assert set(zip(fpr.tolist(), tpr.tolist(), strict=True)) == {
        (float(a), float(b)) for a, b in roc_points_exact(labels, scores)}
    other = DynamicAUC()
    other.add_many([0, 1, 1], [0.3, 0.9, 2.5])
    tracker.merge(other)
    clone = pickle.loads(pickle.dumps(tracker))
    assert type(tracker._engine) is type(clone._engine) is BlockedAUCEngine
    points += [(0, 0.3, 1.0), (1, 0.9, 1.0), (1, 2.5, 1.0)]
    assert clone.auc == tracker.auc == brute_auc_value(*columns(points))
    clone._check()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("read", ["partial", "variance", "interval"])
def test_derived_reads_mid_stream_stay_on_the_blocks_and_keep_every_value(rng, weighted,
                                                                          read):
    moved = DynamicAUC(capacity=1)
    before = _tracking_from_start(capacity=1)
    points = []
    switch_at = int(rng.integers(40, 120))
    for step in range(200):
        if points and rng.random() < 0.4:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            for tracker in (moved, before):
                tracker.remove(label, score, weight)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(25))
            weight = float(rng.choice([0.25, 1.0, 3.0])) if weighted else 1.0
            for tracker in (moved, before):
                tracker.add(label, score, weight)
            points.append((label, score, weight))
        moved._check()
        expected = brute_auc_value(*columns(points))
        assert _same(moved.auc, expected, exact=not weighted)
        assert _same(before.auc, expected, exact=not weighted)
        assert isinstance(moved._engine, BlockedAUCEngine)
        assert moved._engine.tracks_variance == (step > switch_at)
        if step == switch_at:
            if read == "partial":
                moved.partial_auc(fpr_range=(0.0, 0.5))
            elif read == "variance":
                _ = moved.auc_variance
            else:
                moved.auc_ci(level=0.9)
            assert isinstance(moved._engine, BlockedAUCEngine)
            moved._check()
        if step >= switch_at and step % 7 == 0 and len(set(p[0] for p in points)) == 2:
            labels, scores = [p[0] for p in points], [p[1] for p in points]
            weights = [p[2] for p in points]
            for fpr_range in ((0.0, 0.5), (0.2, 0.9)):
                got = moved.partial_auc(fpr_range=fpr_range)
                assert _same(got, before.partial_auc(fpr_range=fpr_range), exact=not weighted)
                assert got == pytest.approx(partial_auc(labels, scores, fpr_range=fpr_range,
                                                        sample_weight=weights), rel=1e-12)
            if read != "partial":
                assert _same(moved.auc_variance, before.auc_variance, exact=not weighted)
                assert moved.auc_variance == pytest.approx(
                    auc_variance(labels, scores, sample_weight=weights), rel=1e-11, abs=1e-15)
    moved_keys, before_keys = moved._engine.items(), before._engine.items()
    for got, expected in zip(moved_keys, before_keys, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert moved._engine.scale == before._engine.scale


def test_a_derived_read_keeps_the_same_engine_points_units_and_exact_statistic(rng):
    n = 3000
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = rng.integers(0, 400, n).astype(np.float64)
    for weights in (None, rng.uniform(0.5, 2.0, n) * 1e-300):
        tracker = DynamicAUC()
        tracker.add_many(y, s, sample_weight=weights)
        tracker.remove_many(y[:1000], s[:1000],
                            sample_weight=None if weights is None else weights[:1000])
        blocked = tracker._engine
        auc, n_neg, n_pos = tracker.auc, tracker.weight_neg, tracker.weight_pos
        keys_before = blocked.items()
        tracker.partial_auc(fpr_range=(0.1, 0.6))
        _ = tracker.auc_variance
        engine = tracker._engine
        assert engine is blocked and engine.tracks_variance
        engine._check()
        # (The class weights and the statistic are the same sums as before.)
        assert (tracker.auc, tracker.weight_neg, tracker.weight_pos) == (auc, n_neg, n_pos)
        assert engine.scale == blocked.scale and engine.unit_weights == blocked.unit_weights
        for got, expected in zip(engine.items(), keys_before, strict=True):
            np.testing.assert_array_equal(got, expected)
        if weights is None:
            assert tracker.auc == float(brute_auc(y[1000:].tolist(), s[1000:].tolist()))
        # Later updates keep the blocks and their pair sums.
        tracker.add_many(y[:1000], s[:1000],
                         sample_weight=None if weights is None else weights[:1000])
        tracker._check()
        assert tracker._engine is blocked


@pytest.mark.parametrize("options", [{"window": 60}, {"half_life": 9.0},
                                     {"window": 80, "half_life": 5.0}])
def test_derived_reads_with_a_window_or_decay(rng, options):
    moved = DynamicAUC(**options)
    before = _tracking_from_start(**options)
    n = 400
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 50, n) / 10
    for k in range(n):
        for tracker in (moved, before):
            tracker.add(int(y[k]), float(s[k]))
        if k == 150:
            assert moved.auc_variance == pytest.approx(before.auc_variance, rel=1e-12)
            assert isinstance(moved._engine, BlockedAUCEngine)  # no move: kept on the blocks
        if k % 10 == 0:
            moved._check()
        exact = "half_life" not in options
        assert _same(moved.auc, before.auc, exact=exact)
        if k >= 150:
            assert _same(moved.auc_variance, before.auc_variance, exact=exact)
            assert _same(moved.weight_neg, before.weight_neg, exact=exact)
    moved._check()


def test_refused_calls_leave_a_blocked_structure_identical():
    tracker = DynamicAUC()
    tracker.add_many([0, 0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8, 0.5], sample_weight=[1, 2, 1, 3, 1])
    before = pickle.dumps(tracker)
    refusals = [
        lambda: tracker.partial_auc(fpr_range=(0.5, 0.2)),
        lambda: tracker.partial_auc(fpr_range=(0.0, 0.5), tpr_range=(0.2, 0.4),
                                    correction="mcclish"),
        lambda: tracker.partial_auc(correction="other"),
        lambda: tracker.auc_ci(level=1.5),
        lambda: tracker.merge([1, 2]),
        lambda: tracker.remove(1, 0.9),
        lambda: tracker.remove(0, 0.4, 5.0),
        lambda: tracker.add(2, 0.3),
    ]
    for refusal in refusals:
        with pytest.raises((ValueError, KeyError)):
            refusal()
        assert pickle.dumps(tracker) == before
        assert isinstance(tracker._engine, BlockedAUCEngine)
    windowed = DynamicAUC(window=3)
    windowed.add_many([0, 1, 1, 0], [0.2, 0.6, 0.1, 0.9])
    before = pickle.dumps(windowed)
    with pytest.raises(ValueError):
        windowed.merge(DynamicAUC())
    with pytest.raises(ValueError):
        windowed.partial_auc(tpr_range=(0.3, 0.3))
    assert pickle.dumps(windowed) == before


def test_merge_keeps_maintaining_the_variance(rng):
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 40, 300) / 8
    small = DynamicAUC(variance=True)
    small.add_many(y[:50], s[:50])
    large = DynamicAUC()
    large.add_many(y[50:], s[50:])
    small.merge(large)  # a copy of the larger's blocks, then tracking again
    assert small._engine.tracks_variance
    assert small.auc_variance == pytest.approx(auc_variance(y, s), rel=1e-13)
    east = DynamicAUC()
    east.add_many(y[:50], s[:50])
    _ = east.auc_variance  # tracking
    west = _tracking_from_start()
    west.add_many(y[50:], s[50:])
    east.merge(west)  # the larger adds its points: still tracking
    assert east._engine.tracks_variance
    assert east.auc_variance == pytest.approx(auc_variance(y, s), rel=1e-13)
    # A DynamicH's points merge into blocks, and blocks into a DynamicH.
    hull = DynamicH()
    hull.add_many(y[:200], s[:200])
    plain = DynamicAUC()
    plain.add_many(y[200:], s[200:])
    plain.merge(hull)
    assert plain.auc == float(brute_auc(y.tolist(), s.tolist()))
    hull.merge(plain)
    assert len(hull) == 500


def test_a_structure_after_a_derived_read_pickles(rng):
    tracker = DynamicAUC()
    tracker.add_many(rng.integers(0, 2, 100), rng.random(100))
    _ = tracker.partial_auc(fpr_range=(0, 0.3))
    clone = pickle.loads(pickle.dumps(tracker))
    assert isinstance(clone._engine, BlockedAUCEngine) and clone._engine.tracks_variance
    assert pickle.dumps(clone) == pickle.dumps(tracker)
    assert clone.partial_auc(fpr_range=(0, 0.3)) == tracker.partial_auc(fpr_range=(0, 0.3))
    assert clone.auc_variance == tracker.auc_variance
    clone._check()
