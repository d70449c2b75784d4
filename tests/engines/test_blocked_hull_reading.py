"""BlockedHullEngine's readings beyond H and AUCH: the report's extremes (KS with the lower
hull), R's fixed-level lookups, the approximate H's subset walk, slide records and pickles.

References: R hmeasure's report transcribed naively (``r_style_report``: KS, MER and MWL
over every ROC point, the fixed-level lookups on the class CDFs), ``h_measure`` from scratch
with fixed priors for the approximate H, brute-force hull vertices (Fractions).  Small
blocks and capacity 1 make splits, merges and tree growth frequent; ``_check()`` (the
lower engine included) after every operation.
"""

import itertools
import pickle
from fractions import Fraction

import numpy as np
import pytest
from reference_impl import brute_upper_hull, r_style_report

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._cost import CostRule
from hmeasure_stream._engines._protocol import Status
from hmeasure_stream._engines._read_levels import fixed_level
from hmeasure_stream._engines._read_threshold import weights_at_or_above
from hmeasure_stream._engines._ring import PointRing
from hmeasure_stream.metrics import h_measure

# Random windows can rank class 0 higher: the from-scratch references then warn (the
# warning is tested in test_pos_label.py).
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def random_operations(rng, steps, distinct, weighted=False):
    """(adding, is_pos, score, weight) operations keeping a valid multiset of points."""
    points, operations = [], []
    for _ in range(steps):
        if points and rng.random() < 0.4:
            point = points.pop(int(rng.integers(len(points))))
            operations.append((False, *point))
        else:
            weight = float(rng.integers(1, 8)) / 4 if weighted else 1.0
            point = (bool(rng.integers(2)), float(rng.integers(distinct)) / 8, weight)
            points.append(point)
            operations.append((True, *point))
    return operations


def arrays_of(points):
    y = np.array([int(p) for p, _, _ in points])
    s = np.array([score for _, score, _ in points])
    return y, s


def weighted_extremes(y, s, w, cost):
    """KS, MER and MWL at ``cost`` over every ROC point of weighted points, directly: the
    weighted class CDFs at each distinct score, lowest first, 0 prepended."""
    n0, n1 = np.sum(w[y == 0]), np.sum(w[y == 1])
    pi0, pi1 = n0 / (n0 + n1), n1 / (n0 + n1)
    f0 = [0.0] + [np.sum(w[(y == 0) & (s <= t)]) / n0 for t in np.unique(s)]
    f1 = [0.0] + [np.sum(w[(y == 1) & (s <= t)]) / n1 for t in np.unique(s)]
    return (max(abs(a - b) for a, b in zip(f0, f1, strict=True)),
            min(pi0 * (1 - a) + pi1 * b for a, b in zip(f0, f1, strict=True)),
            2 * min(cost * pi0 * (1 - a) + (1 - cost) * pi1 * b
                    for a, b in zip(f0, f1, strict=True)))


def assert_report_matches(engine, points, cost):
    """KS, MER and MWL (at ``cost``) against R's report transcribed naively."""
    assert engine._check()
    ks, mer, mwl = engine.extremes(cost)
    y, s = arrays_of(points)
    if not points or y.min() == y.max():
        assert np.isnan(ks) and np.isnan(mer) and np.isnan(mwl)
        return
    expected = r_style_report(y, s, severity_ratio=cost / (1 - cost))
    assert ks == pytest.approx(expected["KS"], abs=1e-14)
    assert mer == pytest.approx(expected["MER"], abs=1e-14)
    assert mwl == pytest.approx(expected["MWL"], abs=1e-14)


@pytest.mark.parametrize("block_limit", [2, 3, 128])
@pytest.mark.parametrize("lower_from", [0, 37])
def test_extremes_with_the_lower_hull_after_every_operation(block_limit, lower_from):
    """The lower engine built from the points at step ``lower_from``, then fed every
    update: KS, MER and MWL as R's report after every operation."""
    rng = np.random.default_rng(block_limit + lower_from)
    engine = BlockedHullEngine(capacity=1, block_limit=block_limit)
    points = []
    for step, (adding, is_pos, score, weight) in enumerate(random_operations(rng, 150, 20)):
        if step == lower_from:
            engine.track_lower()
        if adding:
            points.append((is_pos, score, weight))
            assert engine.add(is_pos, score) == Status.DONE
        else:
            points.remove((is_pos, score, weight))
            assert engine.remove(is_pos, score) == Status.DONE
        if step >= lower_from:
            assert_report_matches(engine, points, cost=0.3 + 0.4 * (step % 2))
        else:
            assert np.isnan(engine.extremes(0.5)[0])  # KS needs the lower hull
            assert engine._check()


def test_ks_is_nan_without_the_lower_hull():
    engine = BlockedHullEngine()
    engine.add_many(np.array([0, 1, 0, 1], dtype=np.uint8), np.array([0.1, 0.2, 0.3, 0.4]))
    ks, mer, mwl = engine.extremes(0.5)
    assert np.isnan(ks)
    expected = r_style_report([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], severity_ratio=1.0)
    assert mer == pytest.approx(expected["MER"], abs=1e-15)
    assert mwl == pytest.approx(expected["MWL"], abs=1e-15)
    engine.track_lower()
    assert engine.extremes(0.5)[0] == pytest.approx(expected["KS"], abs=1e-15)


def test_the_lower_hulls_follow_batches_weights_scaling_and_emptying():
    """Weighted batches, removals, the emptied-structure rule and a power-of-two rescaling
    (decay) reach the lower hulls; ``_check`` recomputes them from the blocks."""
    rng = np.random.default_rng(3)
    engine = BlockedHullEngine(capacity=1, block_limit=3)
    engine.track_lower()
    y = rng.integers(0, 2, 60).astype(np.uint8)
    s = rng.integers(0, 15, 60) / 4.0
    w = rng.integers(1, 9, 60) / 8.0
    assert engine.add_many(y, s, w) == -1
    assert engine._check()
    ks, mer, mwl = engine.extremes(0.3)
    expected = weighted_extremes(y, s, w, 0.3)
    assert (ks, mer, mwl) == pytest.approx(expected, abs=1e-14)
    assert engine.has_lower and engine.weighted
    assert engine.remove_many(y[:30], s[:30], w[:30]) == -1
    assert engine._check()
    assert engine.remove_many(y[30:], s[30:], w[30:]) == -1
    assert engine.n_points == 0 and engine.has_lower and not engine.weighted
    assert engine._check()
    engine.add(1, 0.5)
    engine.add(0, 0.25)
    assert_report_matches(engine, [(True, 0.5, 1.0), (False, 0.25, 1.0)], cost=0.5)


@pytest.mark.parametrize("level", [0.05, 0.5, 0.95, 0.999])
@pytest.mark.parametrize("block_limit", [2, 5, 128])
def test_fixed_level_and_weights_at_or_above_against_r(level, block_limit):
    """The blocked engine's R lookups (``fixed_level``) against R's report transcribed
    naively, and ``weights_at_or_above`` against a direct count, on tied scores."""
    rng = np.random.default_rng(int(level * 1000) + block_limit)
    engine = BlockedAUCEngine(capacity=1, block_limit=block_limit)
    all_y, all_s = np.zeros(0, dtype=np.uint8), np.zeros(0)
    for _ in range(6):
        y = rng.integers(0, 2, 40).astype(np.uint8)
        s = rng.integers(0, 25, 40) / 8.0
        engine.add_many(y, s)
        all_y, all_s = np.concatenate((all_y, y)), np.concatenate((all_s, s))
        assert engine._check()
        expected = r_style_report(all_y, all_s, level=level)
        assert fixed_level(engine, True, level) == pytest.approx(expected["Spec.Sens"],
                                                                abs=1e-14)
        assert fixed_level(engine, False, level) == pytest.approx(expected["Sens.Spec"],
                                                                 abs=1e-14)
        for threshold in (-1.0, 0.0, 1.0, 1.5, 3.0, 9.0):
            above = all_s >= threshold
            assert weights_at_or_above(engine, threshold) == (
                float(np.sum(above & (all_y == 0))), float(np.sum(above & (all_y == 1))),
                float(np.sum(all_y == 0)), float(np.sum(all_y == 1)))
        groups = engine.score_groups()
        distinct = np.unique(all_s)[::-1]
        np.testing.assert_array_equal(groups[0], distinct)
        np.testing.assert_array_equal(
            groups[1], [np.sum((all_s == v) & (all_y == 0)) for v in distinct])
        np.testing.assert_array_equal(
            groups[2], [np.sum((all_s == v) & (all_y == 1)) for v in distinct])


def test_fixed_level_is_nan_with_one_class():
    engine = BlockedAUCEngine()
    assert np.isnan(fixed_level(engine, True, 0.9))
    engine.add(1, 0.5)
    assert np.isnan(fixed_level(engine, False, 0.9))
    assert weights_at_or_above(engine, 0.5) == (0.0, 1.0, 0.0, 1.0)
    assert weights_at_or_above(engine, np.nextafter(0.5, 1)) == (0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize("epsilon", [1e-9, 0.1, 0.5, 2.0])
@pytest.mark.parametrize("priors", [(0.5, 0.5), (0.2, 0.8)])
def test_approximate_h_within_its_bound_after_every_operation(epsilon, priors):
    """|H' - H| <= eps (1 - H) against ``h_measure`` from scratch with the same priors; the
    subset's vertices are hull vertices from (0, 0) to (N0, N1)."""
    rng = np.random.default_rng(int(epsilon * 100) + int(priors[0] * 10))
    engine = BlockedHullEngine(capacity=1, block_limit=3)
    engine.set_reading(epsilon, CostRule(priors=priors))
    points = []
    for adding, is_pos, score, weight in random_operations(rng, 140, 60):
        if adding:
            points.append((is_pos, score, weight))
            engine.add(is_pos, score)
        else:
            points.remove((is_pos, score, weight))
            engine.remove(is_pos, score)
        assert engine._check()
        y, s = arrays_of(points)
        if not points or y.min() == y.max():
            assert np.isnan(engine.h)
            continue
        exact = h_measure(y, s, priors=priors)
        assert abs(engine.h - exact) <= epsilon * (1 - exact) + 1e-12
        xs, ys = engine.subset_vertices()
        hull_x, hull_y = engine.hull_vertices()
        hull = set(zip(hull_x.tolist(), hull_y.tolist(), strict=True))
        assert (xs[0], ys[0]) == (0.0, 0.0)
        assert (xs[-1], ys[-1]) == (hull_x[-1], hull_y[-1])
        assert set(zip(xs.tolist(), ys.tolist(), strict=True)) <= hull
        assert np.all(np.diff(xs) >= 0) and np.all(np.diff(ys) >= 0)


def test_a_subset_needs_an_approximate_reading():
    engine = BlockedHullEngine()
    with pytest.raises(ValueError, match="no subset"):
        engine.subset_vertices()


def test_slide_records_auc_h_auch_and_the_report():
    """``slide`` over a count window records AUC, H, AUCH, KS, MER and MWL after every
    point, as from scratch on the window's points (brute-force hull area for AUCH)."""
    rng = np.random.default_rng(11)
    n, window = 90, 17
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = rng.integers(0, 30, n) / 8.0
    engine = BlockedHullEngine(capacity=1, block_limit=3)
    engine.record_report(0.5)
    engine.track_lower()
    assert engine.columns == ("auc", "h", "auch", "ks", "mer", "mwl")
    out = np.full((n, 6), np.nan)
    assert engine.slide(PointRing(window), y, s, None, out) == -1
    assert engine._check()
    for i in range(n):
        wy, ws = y[max(0, i - window + 1):i + 1], s[max(0, i - window + 1):i + 1]
        if wy.min() == wy.max():
            assert np.all(np.isnan(out[i, 1:]))
            continue
        assert out[i, 1] == pytest.approx(h_measure(wy, ws), abs=1e-12)
        report = r_style_report(wy, ws, severity_ratio=1.0)
        np.testing.assert_allclose(out[i, 3:], [report["KS"], report["MER"], report["MWL"]],
                                   atol=1e-14)
        n0, n1 = int(np.sum(wy == 0)), int(np.sum(wy == 1))
        cumulative = {(Fraction(0), Fraction(0))}
        x = yy = 0
        for score in np.unique(ws)[::-1]:
            x += int(np.sum((ws == score) & (wy == 0)))
            yy += int(np.sum((ws == score) & (wy == 1)))
            cumulative.add((Fraction(x), Fraction(yy)))
        vertices = brute_upper_hull(cumulative)
        area = sum((b[0] - a[0]) * (a[1] + b[1]) / 2 for a, b in itertools.pairwise(vertices))
        assert out[i, 2] == float(area / (n0 * n1))


def test_pickles_keep_the_reading_the_lower_hull_and_the_report():
    rng = np.random.default_rng(5)
    engine = BlockedHullEngine(1.5, 3.0, capacity=1, block_limit=4)
    engine.set_reading(0.25, CostRule(priors=(0.3, 0.7)))
    engine.record_report(0.4)
    engine.track_lower()
    engine.add_many(rng.integers(0, 2, 80).astype(np.uint8), rng.integers(0, 20, 80) / 4.0)
    copy = pickle.loads(pickle.dumps(engine))
    assert copy._check()
    assert (copy.alpha, copy.beta, copy.epsilon) == (1.5, 3.0, 0.25)
    assert copy.cost_rule.priors == (0.3, 0.7)
    assert copy.columns == engine.columns
    assert copy.h == engine.h and copy.extremes(0.4) == engine.extremes(0.4)
    for xs, ys in zip(copy.subset_vertices(), engine.subset_vertices(), strict=True):
        np.testing.assert_array_equal(xs, ys)
    assert copy.has_lower


def test_check_detects_a_stale_lower_hull():
    # The lower hulls share the blocks of the upper ones: one copy of the points.
    rng = np.random.default_rng(11)
    engine = BlockedHullEngine(capacity=1, block_limit=3)
    engine.add_many(rng.integers(0, 2, 40).astype(np.uint8), rng.integers(0, 12, 40) / 4.0)
    alone = engine.nbytes
    engine.track_lower()
    assert engine._check() and engine.nbytes < 2 * alone
    engine._perturb(1, 0, 0.5, lower=True)
    with pytest.raises(AssertionError, match="lower hull node 1"):
        engine._check()
