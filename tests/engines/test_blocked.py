"""BlockedAUCEngine against a brute-force Mann-Whitney in Fractions, after every operation."""

import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from reference_impl import brute_auc_of_points

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._protocol import Status


def assert_matches(engine, points, weighted):
    engine._check()
    assert engine.n_points == len(points)
    expected = brute_auc_of_points(points)
    if expected is None:
        assert np.isnan(engine.auc)
    elif weighted:
        assert engine.auc == pytest.approx(float(expected), rel=1e-12, abs=1e-15)
    else:
        assert engine.auc == float(expected)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_scores", [3, 40, 400])
def test_random_sequences_against_brute_force(rng, weighted, n_scores):
    engine = BlockedAUCEngine(1)
    points = []
    for step in range(700):
        if points and rng.random() < 0.45:
            k = int(rng.integers(len(points)))
            is_pos, score, weight = points[k]
            assert engine.holds(is_pos, score, weight)
            assert engine.remove(is_pos, score, weight) == Status.DONE
            points.pop(k)
        else:
            is_pos = bool(rng.random() < 0.4)
            score = float(rng.integers(n_scores)) / 7.0
            weight = float(rng.integers(1, 5)) * 0.25 if weighted else 1.0
            assert engine.add(is_pos, score, weight) == Status.DONE
            points.append((is_pos, score, weight))
        if step % 7 == 0 or n_scores < 100:
            assert_matches(engine, points, weighted)
    while points:
        is_pos, score, weight = points.pop()
        assert engine.remove(is_pos, score, weight) == Status.DONE
        assert_matches(engine, points, weighted)
    assert engine.unit_weights and engine.scale == 1.0 and engine.n_blocks == 0


def test_batches_and_points_export(rng):
    engine = BlockedAUCEngine(1)
    is_pos = (rng.random(3000) < 0.3).astype(np.uint8)
    scores = rng.integers(0, 900, 3000) / 3.0
    assert engine.add_many(is_pos, scores) == -1
    points = [(bool(p), float(s), 1.0) for p, s in zip(is_pos, scores, strict=True)]
    assert_matches(engine, points, False)
    keys, weight_neg, _, count_neg, count_pos = engine.items()
    assert np.array_equal(keys, np.unique(scores))
    assert np.array_equal(count_pos, [np.sum((scores == k) & (is_pos == 1)) for k in keys])
    assert np.array_equal(weight_neg, count_neg)
    assert engine.remove_many(is_pos[:1500], scores[:1500]) == -1
    assert_matches(engine, points[1500:], False)


def test_refusals_leave_pickle_identical():
    engine = BlockedAUCEngine(1)
    for k in range(300):
        engine.add(k % 3 == 0, float(k % 50) + (0.5 if k % 3 == 0 else 0.0), 1.0)
    before = pickle.dumps(engine)
    assert engine.remove(True, 1000.0) == Status.NOT_PRESENT
    assert engine.remove(True, 1.0) == Status.NOT_PRESENT  # only class 0 at 1.0
    assert engine.remove(False, 1.0, 2.0) == Status.WEIGHT_EXCEEDS
    assert engine.add(True, float("nan")) == Status.UNCHECKED
    assert engine.add(True, 1.0, 1e300) == Status.OUT_OF_RANGE
    assert engine.remove_many(np.array([0, 0], dtype=np.uint8), np.array([1.0, 999.0])) == 1
    after_partial = pickle.dumps(engine)
    assert after_partial != before  # remove_many runs up to the refusal, as AUCEngine
    engine.add(False, 1.0)
    engine = pickle.loads(before)
    assert pickle.dumps(engine) == before
    assert not engine.holds(True, 1.0) and engine.holds(False, 1.0)
    assert pickle.dumps(engine) == before


def test_weighted_refusals_and_tolerance():
    engine = BlockedAUCEngine(1)
    assert engine.add(True, 0.5, 3.0) == Status.DONE
    assert engine.add(False, 0.25, 0.1) == Status.DONE
    before = pickle.dumps(engine)
    assert engine.remove(True, 0.5, 3.0 * (1 + 1e-6)) == Status.WEIGHT_EXCEEDS
    assert engine.remove(False, 0.25, 1e-200) == Status.WEIGHT_EXCEEDS
    assert pickle.dumps(engine) == before
    # Within the tolerance: the point leaves with its whole weight.
    assert engine.remove(True, 0.5, 3.0 * (1 + 1e-12)) == Status.DONE
    assert engine.n_points == 1 and engine.weight_pos == 0.0
    engine._check()
    # Part of the weight: the point stays with the rest.
    assert engine.remove(False, 0.25, 0.04) == Status.DONE
    assert engine.n_points == 1
    assert engine.weight_neg == pytest.approx(0.06, rel=1e-14)
    engine._check()


def test_scale_invariance_bit_for_bit(rng):
    scores = rng.integers(0, 60, 500) / 10.0
    labels = rng.random(500) < 0.5
    weights = rng.integers(1, 9, 500) / 4.0
    results = []
    for factor in (1.0, 2.0 ** 300, 2.0 ** -500):
        engine = BlockedAUCEngine(1)
        for p, s, w in zip(labels, scores, weights, strict=True):
            engine.add(bool(p), float(s), float(w) * factor)
        results.append(engine.auc)
    assert results[0] == results[1] == results[2]


def test_pickle_round_trip_keeps_working(rng):
    engine = BlockedAUCEngine(1)
    points = []
    for _ in range(500):
        p, s = bool(rng.random() < 0.5), float(rng.integers(200))
        engine.add(p, s)
        points.append((p, s, 1.0))
    copy = pickle.loads(pickle.dumps(engine))
    copy._check()
    assert copy.auc == engine.auc
    for p, s, w in points[:250]:
        assert copy.remove(p, s, w) == Status.DONE
    assert_matches(copy, points[250:], False)
    assert_matches(engine, points, False)


class BlockedMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.engine = BlockedAUCEngine(1)
        self.points = []

    @rule(is_pos=st.booleans(), score=st.integers(0, 300),
          weight=st.sampled_from([1.0, 1.0, 0.5, 3.0, 0.0]))
    def add(self, is_pos, score, weight):
        assert self.engine.add(is_pos, score / 4.0, weight) == Status.DONE
        self.points.append((is_pos, score / 4.0, weight))

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove(self, data):
        k = data.draw(st.integers(0, len(self.points) - 1))
        is_pos, score, weight = self.points[k]
        assert self.engine.remove(is_pos, score, weight) == Status.DONE
        self.points.pop(k)

    @rule(is_pos=st.booleans(), score=st.integers(301, 310))
    def refused_remove(self, is_pos, score):
        before = pickle.dumps(self.engine)
        assert self.engine.remove(is_pos, float(score)) == Status.NOT_PRESENT
        assert pickle.dumps(self.engine) == before

    @invariant()
    def matches(self):
        weighted = any(w != 1.0 for _, _, w in self.points)
        self.engine._check()
        expected = brute_auc_of_points(self.points)
        if expected is None:
            assert np.isnan(self.engine.auc)
        else:
            assert self.engine.auc == pytest.approx(float(expected), rel=1e-12, abs=1e-15)
            if not weighted and self.engine.unit_weights:
                assert self.engine.auc == float(expected)


TestBlockedMachine = BlockedMachine.TestCase
TestBlockedMachine.settings = settings(max_examples=60, stateful_step_count=120, deadline=None)


@pytest.mark.slow
def test_million_updates_no_drift(rng):
    window = 20_000
    n = 500_000
    labels = (rng.random(n + window) < 0.4).astype(np.uint8)
    scores = rng.integers(0, 5000, n + window) / 100.0
    engine = BlockedAUCEngine(1)
    engine.add_many(labels[:window], scores[:window])
    for start in range(0, n, 50_000):
        engine.add_many(labels[window + start:window + start + 50_000],
                        scores[window + start:window + start + 50_000])
        engine.remove_many(labels[start:start + 50_000], scores[start:start + 50_000])
    fresh = BlockedAUCEngine(1)
    fresh.add_many(labels[n:], scores[n:])
    points = np.column_stack([labels[n:], scores[n:]])
    neg = np.sort(points[points[:, 0] == 0, 1])
    pos = points[points[:, 0] == 1, 1]
    twice_u = int(np.sum(np.searchsorted(neg, pos, "left") + np.searchsorted(neg, pos, "right")))
    assert engine.n_points == window == fresh.n_points
    assert engine.auc == fresh.auc == twice_u / (2 * len(neg) * len(pos))
    engine._check()


def test_update_row_is_all_or_nothing():
    from hmeasure_stream._engines._blocked import update_row

    engines = [BlockedAUCEngine(1) for _ in range(3)]
    assert update_row(engines, 1, [0.2, 0.5, 0.3], 1.0, True, False) == Status.DONE
    assert [e.n_points for e in engines] == [1, 1, 1]
    assert [e.weight_pos for e in engines] == [0.0, 1.0, 0.0]
    before = [pickle.dumps(e) for e in engines]
    # The last entry is not there: nothing is removed from the first two.
    assert update_row(engines, 1, [0.2, 0.5, 0.9], 1.0, False, False) == Status.NOT_PRESENT
    # A weight too far from the scale: nothing is added anywhere.
    assert update_row(engines, 0, [0.2, 0.5, 0.9], 1e300, True, False) == Status.OUT_OF_RANGE
    assert [pickle.dumps(e) for e in engines] == before
    assert update_row(engines, 1, [0.2, 0.5, 0.3], 1.0, False, False) == Status.DONE
    assert [e.n_points for e in engines] == [0, 0, 0]
    # One-vs-one: engine (i, j) of a 2-class structure; the diagonal is untouched.
    pairs = [BlockedAUCEngine(1) for _ in range(4)]
    assert update_row(pairs, 0, [0.7, 0.1], 1.0, True, True) == Status.DONE
    assert [e.n_points for e in pairs] == [0, 1, 1, 0]
    assert pairs[1].weight_pos == 1.0 and pairs[2].weight_neg == 1.0
    assert pairs[1].items()[0].tolist() == [0.7] and pairs[2].items()[0].tolist() == [0.1]
