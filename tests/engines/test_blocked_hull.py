"""BlockedHullEngine: the ROC hull, H and AUCH kept per segment-tree node of the blocked engine.

After every operation: ``_check()`` (every node's hull equal to the one recomputed from its
children or its block), the root hull against the O(n^3) brute-force upper hull of the exact
ROC points (Fractions), the AUCH against the area under that hull (Fractions), H against
``h_measure`` from scratch on the same points and, at a few points, against H by
quadrature (``h_by_integration``).  Small blocks (``block_limit``) and capacity 1 make splits, merges,
gaps and tree growth frequent at small sizes.
"""

import itertools
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from reference_impl import brute_upper_hull, h_by_integration, window_points

from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._protocol import Status
from hmeasure_stream.metrics import h_measure, roc_hull
from hmeasure_stream.streaming._base import make_forgetting

# Random points can rank class 0 higher: the from-scratch references then warn (the
# warning is tested in test_pos_label.py).
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def brute_hull_points(points):
    """Upper hull of the ROC points of (is_pos, score, weight) triples in cumulative weights
    (Fractions, from (0, 0)), by the O(n^3) definition."""
    weights = {}
    for is_pos, score, weight in points:
        neg, pos = weights.get(score, (Fraction(0), Fraction(0)))
        if is_pos:
            pos += Fraction(weight)
        else:
            neg += Fraction(weight)
        weights[score] = (neg, pos)
    x = y = Fraction(0)
    cumulative = {(x, y)}
    for score in sorted(weights, reverse=True):
        x += weights[score][0]
        y += weights[score][1]
        cumulative.add((x, y))
    return brute_upper_hull(cumulative), x, y


def area_under(vertices):
    return sum((b[0] - a[0]) * (a[1] + b[1]) / 2 for a, b in itertools.pairwise(vertices))


def h_from_scratch(points, alpha=2.0, beta=2.0):
    """``h_measure`` of (is_pos, score, weight) triples."""
    return h_measure([int(p) for p, _, _ in points], [score for _, score, _ in points],
                     sample_weight=[weight for _, _, weight in points], alpha=alpha, beta=beta)


def assert_matches(engine, points, exact=True, quadrature=False):
    """Root hull, AUCH, H and AUC of ``engine`` against independent computations."""
    assert engine._check()
    if not points:
        assert engine.n_points == 0
        assert np.isnan(engine.h) and np.isnan(engine.auch)
        return
    vertices, n0, n1 = brute_hull_points(points)
    xs, ys = engine.hull_vertices()
    if exact:
        assert [(Fraction(x), Fraction(y)) for x, y in zip(xs, ys, strict=True)] == vertices
    else:
        assert len(xs) == len(vertices)
        np.testing.assert_allclose(xs, [float(v[0]) for v in vertices], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ys, [float(v[1]) for v in vertices], rtol=1e-12, atol=1e-12)
    if n0 == 0 or n1 == 0:
        assert np.isnan(engine.h) and np.isnan(engine.auch)
        return
    auch = float(area_under(vertices) / (n0 * n1))
    assert engine.auch == pytest.approx(auch, rel=1e-14 if exact else 1e-12, abs=1e-15)
    assert engine.h == pytest.approx(h_from_scratch(points, engine.alpha, engine.beta),
                                     rel=1e-12, abs=1e-13)
    if quadrature:
        labels = [int(p) for p, _, _ in points]
        scores = [s for _, s, _ in points]
        weights = [w for _, _, w in points]
        expected = h_by_integration(labels, scores, engine.alpha, engine.beta, w=weights)
        assert engine.h == pytest.approx(expected, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("block_limit", [2, 3, 4, 128])
@pytest.mark.parametrize("distinct", [4, 40])
def test_random_updates_unit_weights(block_limit, distinct):
    rng = np.random.default_rng(block_limit * 100 + distinct)
    engine = BlockedHullEngine(capacity=1, block_limit=block_limit)
    points = []
    for step in range(160):
        if points and rng.random() < 0.4:
            point = points.pop(int(rng.integers(len(points))))
            assert engine.remove(point[0], point[1]) == Status.DONE
        else:
            point = (bool(rng.integers(2)), float(rng.integers(distinct)) / 4, 1.0)
            points.append(point)
            assert engine.add(point[0], point[1]) == Status.DONE
        assert_matches(engine, points, quadrature=step % 40 == 39)
    while points:  # empty it completely: back to an empty hull
        point = points.pop()
        assert engine.remove(point[0], point[1]) == Status.DONE
        assert_matches(engine, points)


@pytest.mark.parametrize("block_limit", [2, 5])
def test_weighted_points(block_limit):
    rng = np.random.default_rng(block_limit)
    engine = BlockedHullEngine(alpha=1.5, beta=3.0, capacity=1, block_limit=block_limit)
    points = []
    for step in range(120):
        if points and rng.random() < 0.35:
            point = points.pop(int(rng.integers(len(points))))
            assert engine.remove(point[0], point[1], point[2]) == Status.DONE
        else:
            # Dyadic weights: every sum is exact, so the hull is exactly the brute force's.
            weight = float(rng.integers(0, 8)) / 4
            point = (bool(rng.integers(2)), float(rng.integers(12)), weight)
            points.append(point)
            assert engine.add(*point) == Status.DONE
        assert_matches(engine, points, quadrature=step == 60)


def test_float_weights_against_the_brute_force():
    rng = np.random.default_rng(7)
    engine = BlockedHullEngine(capacity=1, block_limit=3)
    points = []
    for _ in range(150):
        point = (bool(rng.integers(2)), float(rng.integers(30)), float(rng.uniform(0.1, 3.0)))
        points.append(point)
        assert engine.add(*point) == Status.DONE
    assert_matches(engine, points, exact=False)
    for point in points[:100]:
        assert engine.remove(*point) == Status.DONE
    assert_matches(engine, points[100:], exact=False)


def test_h_against_the_from_scratch_function_and_pickle():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    s = np.round(rng.normal(size=3000) + y, 2)
    engine = BlockedHullEngine(capacity=1, block_limit=8)
    for label, score in zip(y.tolist(), s.tolist(), strict=True):
        engine.add(bool(label), score)
    assert engine._check()
    assert engine.h == pytest.approx(h_measure(y, s), rel=1e-12)
    copy = pickle.loads(pickle.dumps(engine))
    assert copy._check()
    assert copy.h == engine.h and copy.auch == engine.auch and copy.auc == engine.auc
    assert [a.tolist() for a in copy.hull_vertices()] == [
        a.tolist() for a in engine.hull_vertices()]
    # The copy is independent and keeps working.
    for label, score in zip(y[:500].tolist(), s[:500].tolist(), strict=True):
        assert copy.remove(bool(label), score) == Status.DONE
    assert copy._check()
    assert copy.h == pytest.approx(h_measure(y[500:], s[500:]), rel=1e-12)
    assert engine.h == pytest.approx(h_measure(y, s), rel=1e-12)


def test_refusals_change_nothing():
    engine = BlockedHullEngine(capacity=1, block_limit=2)
    for score in range(10):
        engine.add(score % 3 == 0, float(score))
    before = pickle.dumps(engine)
    assert engine.remove(True, 1.0) == Status.NOT_PRESENT
    assert engine.remove(False, 0.5) == Status.NOT_PRESENT
    assert engine.remove(False, 1.0, 2.0) == Status.WEIGHT_EXCEEDS
    assert pickle.dumps(engine) == before
    assert engine._check()


@pytest.mark.parametrize(("node", "index", "field", "message"), [
    (1, 0, "edge", "stale"), (1, 2, "edge", "edge value 2 is stale"), (1, 0, "loss", "stale"),
    (1, 0, "area2", "stale"), ("leaf", 1, "edge", "stale"), (2, 0, "edge", "stale")])
def test_check_detects_a_corrupted_hull(node, index, field, message):
    engine = BlockedHullEngine(capacity=1, block_limit=2)
    rng = np.random.default_rng(4)
    for _ in range(40):
        engine.add(bool(rng.integers(2)), float(rng.integers(30)))
    assert engine._check()
    if node == "leaf":
        node = engine.leaves + int(np.flatnonzero(engine.block_at_leaf_buffer >= 0)[0])
    engine._perturb(node, index, 0.5, field)
    with pytest.raises(AssertionError, match=message):
        engine._check()


class BlockedHullMachine(RuleBasedStateMachine):
    """Random adds and removes (ties, weights, emptying) against the brute force."""

    def __init__(self):
        super().__init__()
        self.engine = BlockedHullEngine(capacity=1, block_limit=3)
        self.points = []

    @rule(is_pos=st.booleans(), score=st.integers(0, 9),
          weight=st.sampled_from([1.0, 1.0, 1.0, 0.5, 2.0, 0.0]))
    def add(self, is_pos, score, weight):
        assert self.engine.add(is_pos, float(score), weight) == Status.DONE
        self.points.append((is_pos, float(score), weight))

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove(self, data):
        index = data.draw(st.integers(0, len(self.points) - 1))
        point = self.points.pop(index)
        assert self.engine.remove(*point) == Status.DONE

    @invariant()
    def matches(self):
        assert_matches(self.engine, self.points)


BlockedHullMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30,
                                                deadline=None)
TestBlockedHullMachine = BlockedHullMachine.TestCase


@pytest.mark.slow
def test_no_drift_over_a_long_window():
    rng = np.random.default_rng(11)
    n, window = 120_000, 2_000
    y = rng.integers(0, 2, n).astype(bool)
    s = np.round(rng.normal(size=n) + y, 3)
    engine = BlockedHullEngine(capacity=1)
    for index in range(n):
        engine.add(bool(y[index]), float(s[index]))
        if index >= window:
            assert engine.remove(bool(y[index - window]), float(s[index - window])) == \
                Status.DONE
    assert engine._check()
    tail_y, tail_s = y[n - window:], s[n - window:]
    assert engine.h == pytest.approx(h_measure(tail_y, tail_s), rel=1e-13)
    fresh = BlockedHullEngine(capacity=1)
    for label, score in zip(tail_y.tolist(), tail_s.tolist(), strict=True):
        fresh.add(label, score)
    assert engine.h == fresh.h and engine.auch == fresh.auch


@pytest.mark.parametrize("block_limit", [2, 4, 128])
def test_batches_recompute_each_node_once(block_limit):
    rng = np.random.default_rng(block_limit + 50)
    engine = BlockedHullEngine(capacity=1, block_limit=block_limit)
    points = []
    for round_index in range(12):
        size = int(rng.integers(1, 40))
        labels = rng.integers(0, 2, size).astype(np.uint8)
        scores = rng.integers(0, 25, size).astype(np.float64)
        weights = None if round_index < 6 else rng.integers(1, 5, size) / 2.0
        assert engine.add_many(labels, scores, weights) == -1
        points += [(bool(p), s, w) for p, s, w in zip(
            labels.tolist(), scores.tolist(),
            [1.0] * size if weights is None else weights.tolist(), strict=True)]
        assert_matches(engine, points)
        take = sorted(rng.choice(len(points), size=len(points) // 3, replace=False).tolist(),
                      reverse=True)
        gone = [points.pop(index) for index in take]
        result = engine.remove_many(np.array([p for p, _, _ in gone], dtype=np.uint8),
                                    np.array([s for _, s, _ in gone]),
                                    np.array([w for _, _, w in gone]))
        assert result == -1
        assert_matches(engine, points)


def test_a_refused_batch_leaves_current_hulls():
    engine = BlockedHullEngine(capacity=1, block_limit=2)
    assert engine.add_many(np.array([1, 0, 1, 0], dtype=np.uint8),
                           np.array([1.0, 2.0, 3.0, 4.0])) == -1
    # The third removal is refused: the first two are applied, the hulls follow them.
    assert engine.remove_many(np.array([1, 0, 1], dtype=np.uint8),
                              np.array([1.0, 2.0, 9.0])) == 2
    assert_matches(engine, [(True, 3.0, 1.0), (False, 4.0, 1.0)])


@pytest.mark.parametrize(("window", "half_life", "chunk"),
                         [(40, None, 1), (None, 3.0, 1), (200, 1.5, 37), (None, 2.0, 11)])
def test_windows_and_decay_against_from_scratch(window, half_life, chunk):
    """PointEngine's forgetting (count window, decay with rescaling by powers of two) drives
    BlockedHullEngine: H and AUCH after every chunk equal ``h_measure`` and the area under
    ``roc_hull`` of the window's points with weights 2^(-age / half_life), from scratch."""
    rng = np.random.default_rng(17)
    n = 700
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = np.round(rng.normal(size=n) + y, 1)
    engine = BlockedHullEngine(capacity=1, block_limit=4)
    forgetting = make_forgetting(window, half_life)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        if chunk == 1:
            assert engine.forget_add(forgetting, int(y[start]), float(s[start])) == 0
        else:
            assert engine.forget_add_many(forgetting, y[start:stop], s[start:stop]) == -1
        assert engine._check()
        wy, ws, weights = window_points(y, s, stop - 1, window, half_life)
        if wy.min() == wy.max():
            assert np.isnan(engine.h)
            continue
        assert engine.h == pytest.approx(h_measure(wy, ws, sample_weight=weights),
                                         rel=1e-9, abs=1e-12)
        fpr, tpr = roc_hull(wy, ws, sample_weight=weights)
        assert engine.auch == pytest.approx(np.trapezoid(tpr, fpr), rel=1e-9, abs=1e-12)
    if half_life is not None:
        assert forgetting.rescales > 0  # the hulls were rescaled (_scale_weights)
