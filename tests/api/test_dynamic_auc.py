import copy
import pickle

import numpy as np
import pytest
from hypothesis import strategies as st
from machines import PointSetMachine, point_set_test
from reference_impl import brute_auc

from hmeasure_stream import DynamicAUC, DynamicH, auc

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def reference(points):
    """From-scratch AUC of a list of (label, score, weight), nan without both classes."""
    if not points:
        return np.nan
    y = np.array([p[0] for p in points])
    if y.min() == y.max():
        return np.nan
    w = np.array([p[2] for p in points])
    s = np.array([p[1] for p in points])
    if not (w[y == 0].sum() > 0 and w[y == 1].sum() > 0):
        return np.nan
    return auc(y, s, sample_weight=w)


def assert_matches(tracker, points, exact):
    expected = reference(points)
    if np.isnan(expected):
        assert np.isnan(tracker.auc)
    elif exact:
        assert tracker.auc == expected
    else:
        assert tracker.auc == pytest.approx(expected, rel=1e-12, abs=1e-14)
    assert len(tracker) == len(points)
    assert tracker.weight_neg == pytest.approx(sum(p[2] for p in points if p[0] == 0), rel=1e-12)
    assert tracker.weight_pos == pytest.approx(sum(p[2] for p in points if p[0] == 1), rel=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_sequences_against_reference_checking_every_step(seed):
    rng = np.random.default_rng(seed)
    weighted = seed % 2 == 1
    distinct = [3, 20, None][seed % 3]
    tracker = DynamicAUC(capacity=1)
    points = []
    for _ in range(400):
        if points and rng.random() < 0.45:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score, weight)
        else:
            label = int(rng.integers(2))
            score = float(rng.normal()) if distinct is None else float(rng.integers(distinct))
            weight = float(rng.choice([0.0, 0.5, 1.0, 2.5, rng.exponential()])) if weighted else 1.0
            tracker.add(label, score, weight)
            points.append((label, score, weight))
        tracker._check()
        assert_matches(tracker, points, exact=not weighted)
    # Remove every point: the structure is empty and reusable.
    for label, score, weight in points:
        tracker.remove(label, score, weight)
        tracker._check()
    assert len(tracker) == 0 and np.isnan(tracker.auc)
    assert tracker.weight_neg == 0.0 and tracker.weight_pos == 0.0
    tracker.add(0, 1.0)
    tracker.add(1, 2.0)
    assert tracker.auc == 1.0


def test_unit_weights_equal_exact_fraction():
    rng = np.random.default_rng(5)
    tracker = DynamicAUC(capacity=1)
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 10, 300)
    for label, score in zip(y, s, strict=True):
        tracker.add(int(label), int(score))
    assert tracker.auc == float(brute_auc(list(y), list(s)))


class DynamicAUCMachine(PointSetMachine):
    """Random add/remove/batch sequences against the from-scratch reference."""

    scores = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 2.0, 1e300, -1e-300])

    def make(self):
        return DynamicAUC(capacity=1)

    def matches(self, tracker, points, exact):
        assert_matches(tracker, points, exact=exact)


TestDynamicAUCMachine = point_set_test(DynamicAUCMachine)


def test_pickle_and_deepcopy_round_trip_with_identical_later_results():
    rng = np.random.default_rng(11)
    tracker = DynamicAUC(capacity=2)
    tracker.add_many(rng.integers(0, 2, 500), np.round(rng.normal(size=500), 1),
                     sample_weight=rng.exponential(size=500))
    for duplicate in (lambda t: pickle.loads(pickle.dumps(t)), copy.deepcopy):
        clone = duplicate(tracker)
        clone._check()
        assert clone.auc == tracker.auc and len(clone) == len(tracker)
        more_y, more_s = rng.integers(0, 2, 50), rng.normal(size=50)
        for target in (tracker, clone):
            target.add_many(more_y, more_s)
            target.remove_many(more_y[:20], more_s[:20])
        assert clone.auc == tracker.auc
        assert clone.weight_neg == tracker.weight_neg and clone.weight_pos == tracker.weight_pos
        clone._check()


def test_add_many_equals_single_adds_and_remove_many_equals_single_removes():
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 2, 300), np.round(rng.normal(size=300), 1)
    single, batch = DynamicAUC(), DynamicAUC()
    for label, score in zip(y, s, strict=True):
        single.add(int(label), float(score))
    batch.add_many(y, s)
    assert single.auc == batch.auc == auc(y, s)
    for label, score in zip(y[:100], s[:100], strict=True):
        single.remove(int(label), float(score))
    batch.remove_many(y[:100], s[:100])
    assert single.auc == batch.auc == auc(y[100:], s[100:])
    batch._check()


def test_zero_weight_points_count_but_do_not_weigh():
    tracker = DynamicAUC()
    tracker.add(1, 0.5, 0.0)
    tracker.add(0, 0.7)
    assert len(tracker) == 2 and np.isnan(tracker.auc)
    tracker.add(1, 0.9)
    assert tracker.auc == 1.0
    tracker.remove(1, 0.5, 0.0)
    tracker._check()


@pytest.mark.slow
@pytest.mark.parametrize(("structure", "n"), [(DynamicAUC, 2_000_000), (DynamicH, 100_000)])
def test_concurrent_mutation_is_refused_not_corrupting(structure, n):
    import threading

    rng = np.random.default_rng(9)
    tracker = structure()
    y, s = rng.integers(0, 2, n), rng.random(n)
    errors, started = [], threading.Event()

    def batch():
        started.set()
        while True:  # a refused batch changed nothing: try again
            try:
                tracker.add_many(y, s)
                return
            except RuntimeError as error:
                assert "another thread" in str(error)

    worker = threading.Thread(target=batch)
    worker.start()
    started.wait()
    added = refused = 0
    while worker.is_alive():
        try:
            tracker.add(1, 0.5)
            added += 1
        except RuntimeError as error:
            assert "another thread" in str(error)
            refused += 1
        except Exception as error:  # anything else is a failure
            errors.append(error)
    worker.join()
    assert not errors
    # The batch ran for long without the GIL: mutations did meet it and were refused.
    assert refused > 0
    tracker._check()
    # Every accepted point is there, and the value is exact.
    all_y = np.concatenate([y, np.ones(added, dtype=y.dtype)])
    all_s = np.concatenate([s, np.full(added, 0.5)])
    assert len(tracker) == all_y.size
    assert tracker.auc == auc(all_y, all_s)
