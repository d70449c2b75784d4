"""BlockedAUCEngine's pair sums and DeLong's placements (``track_variance``).

Pair sums (2U of every block and segment-tree node) and the sums of squared
placement numerators are checked by ``_check()`` after every operation against
their recomputation, on small blocks that split and merge often; the variance
against DeLong's definition summed over all pairs, and 2U above a score against
a count over all pairs.
"""

import pickle

import numpy as np
import pytest
from reference_impl import columns, delong_variance_exact, mann_whitney_2u, r_misclass_counts

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._blocked_check import pairs_above
from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._read_delong import attach as record_interval
from hmeasure_stream._engines._read_delong import variance
from hmeasure_stream._engines._read_threshold import attach as record_threshold


def delong_by_pairs(points):
    """``delong_variance_exact`` of (label, score, weight) points."""
    return delong_variance_exact(*columns(points))


def pairs_above_by_pairs(points, score):
    """2U of the unit-weight points above ``score``: ``mann_whitney_2u``, every pair counted."""
    labels, scores, _ = columns([point for point in points if point[1] > score])
    return mann_whitney_2u(labels, scores)


def _random_walk(rng, engine, steps, weighted, activate_at, check_every=1):
    """Random additions and removals (ties on a coarse grid) with ``_check()``; yields the
    points held after each step."""
    points = []
    for step in range(steps):
        if step == activate_at:
            engine.track_variance()
            engine._check()
        if points and rng.random() < 0.45:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            engine.remove(label, score, weight)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(0, 24)) / 4
            weight = float(rng.choice([0.5, 1.0, 3.0])) if weighted else 1.0
            engine.add(label, score, weight)
            points.append((label, score, weight))
        if step % check_every == 0:
            engine._check()
        yield step, points


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("block_limit", [2, 4, 128])
def test_pair_sums_and_squares_hold_under_random_updates(rng, weighted, block_limit):
    for _ in range(4):
        engine = BlockedAUCEngine(1, block_limit=block_limit)
        activate_at = int(rng.integers(0, 80))
        for step, points in _random_walk(rng, engine, 220, weighted, activate_at):
            assert engine.tracks_variance == (step >= activate_at)
            if step >= activate_at and step % 5 == 0:
                expected = delong_by_pairs(points)
                got = variance(engine, engine.scale)
                if expected is None:
                    assert np.isnan(got)
                else:
                    assert got == pytest.approx(float(expected), rel=1e-12, abs=1e-300)
                if not weighted:
                    for score in (-1.0, 0.0, 1.25, 2.5, 5.75, 9.0):
                        assert pairs_above(engine, score) == pairs_above_by_pairs(points, score)


def test_unit_variance_is_the_exact_value_rounded_once(rng):
    # Unit weights: Q1, Q0 and 2U are exact integers, the variance one rounding of them.
    engine = BlockedAUCEngine(1, block_limit=3)
    engine.track_variance()
    for step, points in _random_walk(rng, engine, 300, False, None, check_every=10):
        if step % 25 == 0:
            expected = delong_by_pairs(points)
            got = variance(engine, 1.0)
            assert np.isnan(got) if expected is None else got == pytest.approx(
                float(expected), rel=4e-16)


def test_reads_are_the_same_before_and_after_activation(rng):
    y = rng.integers(0, 2, 2000).astype(np.uint8)
    s = rng.integers(0, 300, 2000) / 7
    for weights in (None, rng.uniform(0.5, 2.0, 2000)):
        plain = BlockedAUCEngine(1, block_limit=8)
        tracked = BlockedAUCEngine(1, block_limit=8)
        tracked.track_variance()
        late = BlockedAUCEngine(1, block_limit=8)
        for engine in (plain, tracked, late):
            engine.add_many(y[:1500], s[:1500], weights if weights is None else weights[:1500])
            engine.remove_many(y[:500], s[:500], weights if weights is None else weights[:500])
        late.track_variance()
        for engine in (plain, tracked, late):
            engine._check()
        assert plain.auc == tracked.auc == late.auc
        assert variance(tracked, tracked.scale) == variance(late, late.scale)
        for first, second in zip(plain.items(), late.items(), strict=True):
            np.testing.assert_array_equal(first, second)
        np.testing.assert_array_equal(tracked.tree_buffer, late.tree_buffer)
        assert tracked.placement_squares() == late.placement_squares()


@pytest.mark.parametrize("weighted", [False, True])
def test_the_new_state_pickles_with_the_engine(rng, weighted):
    engine = BlockedAUCEngine(1, block_limit=4)
    points = list(_random_walk(rng, engine, 150, weighted, 30, check_every=50))[-1][1]
    clone = pickle.loads(pickle.dumps(engine))
    clone._check()
    assert clone.tracks_variance and pickle.dumps(clone) == pickle.dumps(engine)
    assert variance(clone, clone.scale) == variance(engine, engine.scale)
    assert clone.placement_squares() == engine.placement_squares()
    for label, score, weight in points[:20]:
        for target in (engine, clone):
            target.remove(label, score, weight)
            target.add(label, score + 0.125, weight)
    clone._check()
    assert pickle.dumps(clone) == pickle.dumps(engine)


def test_a_refusal_leaves_the_tracking_engine_identical(rng):
    for weighted in (False, True):
        engine = BlockedAUCEngine(1, block_limit=4)
        points = list(_random_walk(rng, engine, 120, weighted, 0, check_every=60))[-1][1]
        before = pickle.dumps(engine)
        label, score, weight = points[0]
        for arguments in ((label, score + 0.01), (1 - label, 100.0),
                          (label, score, weight * 1000)):
            assert engine.remove(*arguments) != 0  # a Status other than DONE
            assert pickle.dumps(engine) == before
        engine.track_variance()  # already tracking: nothing changes
        assert pickle.dumps(engine) == before


def test_emptied_and_refilled_engine_keeps_tracking(rng):
    engine = BlockedAUCEngine(1, block_limit=2)
    engine.track_variance()
    for weight in (2.5, 1.0):
        engine.add_many(np.array([0, 1, 1, 0], np.uint8), np.array([0.1, 0.5, 0.2, 0.9]),
                        np.full(4, weight))
        engine._check()
        engine.remove_many(np.array([0, 1, 1, 0], np.uint8), np.array([0.1, 0.5, 0.2, 0.9]),
                           np.full(4, weight))
        engine._check()
        assert engine.placement_squares() == (0, 0) and np.isnan(variance(engine, 1.0))
    engine.add_many(np.array([0, 1, 1, 0], np.uint8), np.array([0.1, 0.5, 0.2, 0.9]), None)
    assert variance(engine, 1.0) == pytest.approx(float(delong_by_pairs(
        [(0, 0.1, 1), (1, 0.5, 1), (1, 0.2, 1), (0, 0.9, 1)])), rel=1e-15)


def test_the_hull_engine_inherits_the_placements(rng):
    engine = BlockedHullEngine(capacity=1, block_limit=3)
    engine.track_variance()
    points = []
    for step in range(150):
        if points and rng.random() < 0.4:
            label, score = points.pop(int(rng.integers(len(points))))
            engine.remove(label, score)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(0, 20)) / 3
            engine.add(label, score)
            points.append((label, score))
        engine._check()
        if step % 10 == 0:
            expected = delong_by_pairs([(y, s, 1) for y, s in points])
            got = variance(engine, 1.0)
            assert np.isnan(got) if expected is None else got == pytest.approx(
                float(expected), rel=1e-13)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("hull", [False, True])
def test_recorded_interval_columns_equal_auc_ci_from_scratch(rng, weighted, hull):
    # ``record_interval``: auc_var, auc_lo, auc_hi after the engine's own columns, as
    # ``auc_ci`` computes them from scratch on every window, DeLong's definition summed
    # over all pairs, and kept by pickling.
    from hmeasure_stream import auc, auc_ci
    from hmeasure_stream._engines._ring import PointRing

    n, window, low, high = 160, 30, -1.6448536269514729, 1.6448536269514722
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = rng.integers(0, 12, n) / 4
    w = rng.choice([0.5, 1.0, 3.0], n) if weighted else None
    engine = BlockedHullEngine(capacity=1, block_limit=3) if hull else BlockedAUCEngine(
        1, block_limit=3)
    own = engine.columns
    if hull:
        engine.record_report(0.5)
        own = engine.columns
    assert engine.columns == own and engine.readers == ()
    record_interval(engine, low, high)
    assert engine.readers == (("hmeasure_stream._engines._read_delong", "attach", (low, high)),)
    assert engine.tracks_variance
    assert engine.columns == (*own, "auc_var", "auc_lo", "auc_hi")
    ring, got = PointRing(window), np.empty((n, len(engine.columns)))
    for start in range(0, n, 40):
        part = slice(start, start + 40)
        engine.slide(ring, y[part], s[part], None if w is None else w[part], got[part])
        engine._check()
        engine = pickle.loads(pickle.dumps(engine))
        assert engine.columns[-3:] == ("auc_var", "auc_lo", "auc_hi")
    interval = got[:, len(own):]
    for end in range(n):
        part = slice(max(0, end + 1 - window), end + 1)
        weights = None if w is None else w[part]
        counts = np.bincount(y[part], weights=weights, minlength=2)
        if counts.min() <= 1.0:  # (DeLong's variance needs a class weight above 1)
            assert np.isnan(interval[end]).all() or counts.min() > 0.0
            continue
        assert got[end, 0] == pytest.approx(auc(y[part], s[part], sample_weight=weights),
                                            rel=1e-13)
        expected = auc_ci(y[part], s[part], level=0.9, sample_weight=weights)
        np.testing.assert_allclose(interval[end, 1:], [expected.low, expected.high],
                                   rtol=1e-12, atol=1e-15)
    for end in range(window, n, 13):
        part = slice(end + 1 - window, end + 1)
        points = list(zip(y[part].tolist(), s[part].tolist(),
                          [1.0] * window if w is None else w[part].tolist(), strict=True))
        variance = delong_by_pairs(points)
        if variance is None:
            assert np.isnan(interval[end]).all()
        else:
            assert interval[end, 0] == pytest.approx(float(variance), rel=1e-12)
    assert tuple(engine.value(name) for name in ("auc_var", "auc_lo", "auc_hi")) == tuple(
        interval[-1])


THRESHOLD_METRICS = ("ER", "Sens", "Spec", "Precision", "F", "Youden")


def _threshold_by_counting(y, s, w, threshold):
    """ER, Sens, Spec, Precision, F, Youden of "class 1 when s >= threshold": R's
    misclassification counts (``r_misclass_counts``); nan while a class is absent, as
    every reader of a threshold reads."""
    if not (w[y == 0].sum() > 0 and w[y == 1].sum() > 0):
        return [np.nan] * len(THRESHOLD_METRICS)
    counts = r_misclass_counts(y, s, threshold, w, at_or_above=True)
    return [counts[name] for name in THRESHOLD_METRICS]


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("hull", [False, True])
def test_recorded_threshold_and_box_columns(rng, weighted, hull):
    # ``record_threshold`` and ``record_box``: R's metrics at a threshold and one partial
    # area after the engine's own columns and before the interval's, on one engine,
    # equal to counting and to ``partial_auc`` from scratch on every window, and kept by
    # pickling.
    from hmeasure_stream import partial_auc
    from hmeasure_stream._engines._ring import PointRing
    from hmeasure_stream._engines._tree_partial import record_box

    n, window, threshold = 150, 25, 1.25
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = rng.integers(0, 12, n) / 4
    w = rng.choice([0.5, 1.0, 3.0], n) if weighted else np.ones(n)
    engine = BlockedHullEngine(capacity=1, block_limit=3) if hull else BlockedAUCEngine(
        1, block_limit=3)
    own = engine.columns
    record_threshold(engine, threshold)
    record_box(engine, 0.1, 0.6, 0.0, 1.0, True, False, True)
    record_interval(engine, -1.96, 1.96)
    assert engine.columns == (*own, "er", "sens", "spec", "precision", "f", "youden", "pauc",
                              "auc_var", "auc_lo", "auc_hi")
    ring, got = PointRing(window), np.empty((n, len(engine.columns)))
    for start in range(0, n, 40):
        part = slice(start, start + 40)
        engine.slide(ring, y[part], s[part], w[part] if weighted else None, got[part])
        engine._check()
        engine = pickle.loads(pickle.dumps(engine))
        assert engine.readers[1] == ("hmeasure_stream._engines._tree_partial", "record_box",
                                     (0.1, 0.6, 0.0, 1.0, True, False, True))
    column = len(own)
    for end in range(n):
        part = slice(max(0, end + 1 - window), end + 1)
        np.testing.assert_allclose(got[end, column:column + 6],
                                   _threshold_by_counting(y[part], s[part], w[part], threshold),
                                   rtol=1e-13)
        if 0 < y[part].sum() < len(y[part]):
            assert got[end, column + 6] == pytest.approx(partial_auc(
                y[part], s[part], fpr_range=(0.1, 0.6), correction="mcclish",
                sample_weight=w[part] if weighted else None), rel=1e-12)
        else:
            assert np.isnan(got[end, column + 6])
    values = got[-1, column:column + 7]
    np.testing.assert_array_equal(
        [engine.value(name) for name in ("er", "sens", "spec", "precision", "f", "youden",
                                         "pauc")], values)
