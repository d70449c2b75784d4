"""The score treap (ApproxAUC's structure) itself: lcount, split/join, growth, invariants."""


import numpy as np
import pytest

from hmeasure_stream import DynamicAUC
from hmeasure_stream._engines._auc import AUCEngine
from hmeasure_stream._engines._protocol import Status


def treap_tracker(capacity=16, seed=None):
    """A DynamicAUC whose points are kept in a score treap (``AUCEngine``)."""
    tracker = DynamicAUC(capacity=capacity)
    tracker._engine = AUCEngine(capacity, seed)
    return tracker


def build(seed, n=300, distinct=60):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.integers(0, distinct, n).astype(float)
    tracker = treap_tracker(capacity=1, seed=seed)
    tracker.add_many(y, s)
    return tracker, y, s, np.ones(n)


@pytest.mark.parametrize("seed", range(4))
def test_lcount_equals_prefix_sums(seed):
    tracker, y, s, w = build(seed)
    tree = tracker._engine.tree
    unit = tracker._engine.scale  # the tree keeps weights in units of a power of two
    for key in np.concatenate([np.unique(s), np.unique(s) + 0.5, [-1.0, 1e9]]):
        below_neg, below_pos = (unit * weight for weight in tree.weight_below(key))
        assert below_neg == pytest.approx(w[(y == 0) & (s < key)].sum(), rel=1e-12, abs=1e-12)
        assert below_pos == pytest.approx(w[(y == 1) & (s < key)].sum(), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_split_and_join_at_every_gap(seed):
    tracker, _, s, _ = build(seed)
    tree = tracker._engine.tree
    for key in np.concatenate([np.unique(s) + 0.5, [-1.0]]):
        assert tree._split_join_check(float(key))
    tracker._check()


def test_capacity_grows_from_one_slot_and_slots_are_reused():
    tracker = treap_tracker(capacity=1, seed=0)
    tree = tracker._engine.tree
    for k in range(100):
        tracker.add(k % 2, float(k))
        tracker._check()
    assert tree.capacity == 128 and tree.n_used == 100
    for k in range(100):
        tracker.remove(k % 2, float(k))
    for k in range(100):
        tracker.add(k % 2, float(-k))
    tracker._check()
    assert tree.capacity == 128  # freed slots served the new scores


def test_check_detects_a_corrupted_aggregate():
    tracker, _, _, _ = build(0)
    tree = tracker._engine.tree
    tree.field("subtree_neg")[tree.root] += 1.0
    with pytest.raises(AssertionError, match="stale class 0 subtree aggregate"):
        tracker._check()


def test_pair_weight_of_every_subtree_is_its_twice_mann_whitney():
    tracker, y, s, w = build(3)
    tree = tracker._engine.tree
    keys = tree.field("key")
    for slot in tree._in_order():
        subtree_keys = keys[tree._subtree_slots(int(slot))]
        members = np.isin(s, subtree_keys)
        neg, pos = (y == 0) & members, (y == 1) & members
        # Brute force over the pairs: 2 for class 1 above, 1 for a tie.
        twice_u = sum(w[i] * w[j] * (2.0 if s[j] > s[i] else 1.0 if s[j] == s[i] else 0.0)
                      for i in np.flatnonzero(neg) for j in np.flatnonzero(pos))
        assert tree.field("subtree_pairs")[slot] == pytest.approx(twice_u, rel=1e-12)


def test_check_detects_a_stale_pair_weight():
    tracker, _, _, _ = build(1)
    tree = tracker._engine.tree
    tree.field("subtree_pairs")[tree.root] += 1.0
    with pytest.raises(AssertionError, match="stale pair subtree aggregate"):
        tracker._check()


def test_weights_other_than_one_are_refused_and_change_nothing():
    tracker, _, _, _ = build(2)
    engine = tracker._engine
    before = engine.items()
    with pytest.raises(ValueError, match="unit weights only"):
        engine.add(1, 0.5, 3.0)
    assert engine.add(1, 0.5, 1.0) == Status.DONE
    assert engine.remove(1, 0.5, 2.0) == Status.WEIGHT_EXCEEDS
    assert engine.remove(1, 0.5, 1.0) == Status.DONE
    for got, expected in zip(engine.items(), before, strict=True):
        np.testing.assert_array_equal(got, expected)
    tracker._check()
