"""BlockedAUCEngine's gapped leaves: splits, merges, shifts, respreads and growth of the
segment tree's leaf slots, checked after every operation from capacity 1.

Small blocks (``block_limit``) make the structure change often at small sizes.  The AUC
is checked against independent exact computations: the Mann-Whitney count from sorted
class scores (integers) in the stress tests, the O(n^2) Fraction brute force in the
state machine.  The segment-tree counters check the hook contract: a change refreshes
exactly the leaves that changed and each of their ancestors once.
"""

import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from reference_impl import brute_auc, sorted_count_auc

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._protocol import Status


def exact_auc(points):
    """``sorted_count_auc`` of unit-weight (is_pos, score) points, as a float (correctly
    rounded); None while a class is absent."""
    labels = np.fromiter((is_pos for is_pos, _ in points), dtype=bool, count=len(points))
    scores = np.fromiter((score for _, score in points), dtype=float, count=len(points))
    expected = sorted_count_auc(labels, scores)
    return None if expected is None else float(expected)


def _bits(buffer):
    """A buffer's elements as the integers of their bytes (exact comparisons, -0.0 apart
    from 0.0), as int64."""
    return buffer.view(f"i{buffer.itemsize}").astype(np.int64)


def contents(engine):
    """Each leaf slot's block and size, and that block's keys and class counts (their
    bytes), row by row: (blocks, sizes, keys, negatives, positives), a row a slot.  A gap
    is the block -1 and zeros; beyond a block's size, zeros (so the rows of two slots are
    equal exactly when they hold the same block with the same keys and counts)."""
    stride = engine.key_buffer.shape[0] // engine.block_capacity
    blocks = engine.block_at_leaf_buffer.astype(np.int64)
    held = blocks >= 0
    sizes = np.where(held, engine.size_buffer[np.maximum(blocks, 0)], 0).astype(np.int64)
    offsets = np.arange(int(sizes.max(initial=0)))
    index = np.maximum(blocks, 0)[:, None] * stride + offsets
    inside = offsets < sizes[:, None]
    return (blocks[:, None], sizes[:, None],
            *(np.where(inside, _bits(buffer)[index], 0)
              for buffer in (engine.key_buffer, engine.count_neg_buffer,
                             engine.count_pos_buffer)))


def changed_slots(before, after):
    """The slots whose rows of ``contents`` differ (the narrower parts as if padded with
    zeros)."""
    changed = np.zeros(before[0].shape[0], dtype=bool)
    for old, new in zip(before, after, strict=True):
        width = min(old.shape[1], new.shape[1])
        changed |= np.any(old[:, :width] != new[:, :width], axis=1)
        changed |= np.any(old[:, width:] != 0, axis=1) | np.any(new[:, width:] != 0, axis=1)
    return np.flatnonzero(changed)


def slot_of_block(occupants, size):
    """For each block id below ``size``, the leaf slot it occupies (-1 if none)."""
    slots = np.full(size, -1, dtype=np.int64)
    occupied = np.flatnonzero(occupants >= 0)
    slots[occupants[occupied]] = occupied
    return slots


def snapshot(engine):
    return (engine.leaves, engine.n_blocks, engine.block_at_leaf_buffer.copy(),
            contents(engine), engine._counters())


def ancestors(slots, leaves):
    """Distinct inner nodes above leaf ``slots`` of a perfect tree with ``leaves`` leaves."""
    nodes, level = set(), {leaves + s for s in slots}
    while level:
        level = {node >> 1 for node in level if node > 1}
        nodes |= level
    return nodes


class Events:
    """What the operations did to the leaves (to show the tests reach every case)."""

    def __init__(self):
        self.splits = self.merges_or_drops = self.growths = 0
        self.shifts = self.respreads = 0

    def record(self, engine, before):
        leaves, n_blocks, occupants, rows, (leaf_count, node_count) = before
        new_leaf_count, new_node_count = engine._counters()
        refreshed, pulled = new_leaf_count - leaf_count, new_node_count - node_count
        if engine.leaves != leaves:
            self.growths += 1
            # Growth respreads everything: every leaf and node once.
            assert refreshed >= engine.leaves and pulled >= engine.leaves - 1
            return
        self.splits += engine.n_blocks > n_blocks > 0
        self.merges_or_drops += engine.n_blocks < n_blocks
        # Blocks present before and after whose slot changed.
        after = engine.block_at_leaf_buffer
        size = int(max(occupants.max(initial=-1), after.max(initial=-1))) + 1
        old_slot, new_slot = slot_of_block(occupants, size), slot_of_block(after, size)
        moved = int(np.count_nonzero((old_slot >= 0) & (new_slot >= 0) & (old_slot != new_slot)))
        if engine.n_blocks > n_blocks > 0:
            self.shifts += moved == 1
            self.respreads += moved > 1
        if not engine.weighted:
            # Unit mode, no growth: a leaf is refreshed only if its block or that block's
            # keys or counts changed, and each ancestor of a changed leaf is pulled once;
            # a split refreshes the leaves it changes, then the leaf the point goes to
            # and its path.
            changed = changed_slots(rows, contents(engine)).tolist()
            depth = leaves.bit_length() - 1
            split = engine.n_blocks > n_blocks > 0
            assert refreshed == len(changed) + split
            assert pulled == len(ancestors(changed, leaves)) + split * depth


def check_now(engine, points):
    engine._check()
    assert engine.n_points == len(points)
    expected = exact_auc(points)
    if expected is None:
        assert np.isnan(engine.auc)
    else:
        assert engine.auc == expected


def sequence_scores(kind, rng, n):
    """Score streams that stress different parts of the leaves."""
    if kind == "random":
        return rng.integers(0, 4000, n) / 8.0
    if kind == "increasing":  # every insertion at the right end
        return np.arange(n) / 4.0
    if kind == "decreasing":  # every insertion at the left end
        return -np.arange(n) / 4.0
    # Most insertions in one narrow range: repeated splits at the same leaves.
    return np.where(rng.random(n) < 0.8, 100.0 + rng.random(n), rng.random(n) * 1000.0)


@pytest.mark.parametrize("block_limit", [2, 4, 8])
@pytest.mark.parametrize("kind", ["random", "increasing", "decreasing", "hotspot"])
def test_sliding_window_stress_from_capacity_one(rng, block_limit, kind):
    engine = BlockedAUCEngine(1, block_limit=block_limit)
    if block_limit == 4:
        engine._hooks_only()  # the path of a subclass: point updates through the hooks too
    events = Events()
    n, window = 2500, 300
    scores = sequence_scores(kind, rng, n)
    labels = rng.random(n) < 0.45
    points = []
    for t in range(n):
        # Grow to the window, then slide; shrink for a while in the middle.
        removing = len(points) >= window or (1200 <= t < 1500 and points)
        before = snapshot(engine)
        if removing:
            is_pos, score = points.pop(0)
            assert engine.remove(is_pos, score) == Status.DONE
        else:
            is_pos, score = bool(labels[t]), float(scores[t])
            assert engine.add(is_pos, score) == Status.DONE
            points.append((is_pos, score))
        events.record(engine, before)
        check_now(engine, points)
    while points:
        before = snapshot(engine)
        is_pos, score = points.pop(int(rng.integers(len(points))))
        assert engine.remove(is_pos, score) == Status.DONE
        events.record(engine, before)
        check_now(engine, points)
    assert engine.n_blocks == 0 and not np.any(engine.tree_buffer)
    assert events.splits > 50 and events.merges_or_drops > 50 and events.growths >= 3
    assert events.respreads > 0
    if kind in ("random", "hotspot"):
        assert events.shifts > 0


def test_random_insertions_and_deletions_weighted(rng):
    engine = BlockedAUCEngine(1, block_limit=4)
    events = Events()
    points = []
    for _ in range(3000):
        before = snapshot(engine)
        if points and rng.random() < 0.47:
            is_pos, score, weight = points.pop(int(rng.integers(len(points))))
            assert engine.remove(is_pos, score, weight) == Status.DONE
        else:
            point = (bool(rng.random() < 0.4), float(rng.integers(600)) / 4.0,
                     float(rng.integers(1, 8)) / 4.0)
            assert engine.add(*point) == Status.DONE
            points.append(point)
        events.record(engine, before)
        engine._check()
        assert engine.n_points == len(points)
        if len(points) < 60 or rng.random() < 0.05:
            labels, scores, weights = zip(*points, strict=True) if points else ((), (), ())
            if any(labels) and not all(labels):
                expected = brute_auc([int(p) for p in labels], scores, weights)
                assert engine.auc == pytest.approx(float(expected), rel=1e-12)
    assert events.splits > 50 and events.merges_or_drops > 50 and events.respreads > 0


def test_batches_grow_and_respread(rng):
    engine = BlockedAUCEngine(1, block_limit=4)
    points = []
    for size in (1, 7, 60, 400, 3):
        is_pos = (rng.random(size) < 0.5).astype(np.uint8)
        scores = rng.integers(0, 3000, size) / 16.0
        assert engine.add_many(is_pos, scores) == -1
        points += [(bool(p), float(s)) for p, s in zip(is_pos, scores, strict=True)]
        check_now(engine, points)
    leaves = engine.leaves
    gone, points = points[:300], points[300:]
    assert engine.remove_many(np.array([p for p, _ in gone], dtype=np.uint8),
                              np.array([s for _, s in gone])) == -1
    check_now(engine, points)
    assert engine.leaves == leaves  # leaves are never given back; emptied blocks leave gaps
    assert np.count_nonzero(engine.block_at_leaf_buffer >= 0) == engine.n_blocks


def test_refused_calls_leave_pickle_identical(rng):
    engine = BlockedAUCEngine(1, block_limit=4)
    for k in range(400):
        engine.add(k % 3 == 0, float(rng.integers(300)) / 2.0 + (0.25 if k % 3 == 0 else 0.0))
    for k in range(0, 300, 2):  # removals leave gaps among the leaves
        for p in (False, True):
            score = k / 2.0 + (0.25 if p else 0.0)
            while engine.holds(p, score):
                engine.remove(p, score)
    engine._check()
    assert np.count_nonzero(engine.block_at_leaf_buffer < 0) > engine.n_blocks
    keys, _, _, count_neg, count_pos = engine.items()
    negative_only = float(keys[(count_neg > 0) & (count_pos == 0)][0])
    before = pickle.dumps(engine)
    assert engine.remove(True, 1000.0) == Status.NOT_PRESENT
    assert engine.remove(True, negative_only) == Status.NOT_PRESENT
    assert engine.remove(False, negative_only, 2.0) == Status.WEIGHT_EXCEEDS
    assert engine.add(True, float("nan")) == Status.UNCHECKED
    assert engine.add(True, 1.0, -1.0) == Status.UNCHECKED
    assert engine.add(True, 1.0, 1e300) == Status.OUT_OF_RANGE
    assert engine.add_many(np.array([0, 1], dtype=np.uint8), np.array([0.125, 0.375]),
                           np.array([1.0, 1e300])) == 1
    assert engine.remove_many(np.array([1], dtype=np.uint8), np.array([0.5]),
                              np.array([1e300])) == 0
    assert pickle.dumps(engine) == before
    copy = pickle.loads(before)
    copy._check()
    assert pickle.dumps(copy) == before
    # The copy keeps its gaps and keeps working (splits into them, growth).
    assert np.array_equal(copy.block_at_leaf_buffer, engine.block_at_leaf_buffer)
    for k in range(600):
        copy.add(bool(k % 2), float(k) / 3.0)
        engine.add(bool(k % 2), float(k) / 3.0)
    copy._check()
    assert copy.auc == engine.auc and pickle.dumps(copy) == pickle.dumps(engine)


def test_block_limit_is_checked():
    with pytest.raises(ValueError, match="block_limit"):
        BlockedAUCEngine(1, block_limit=1)
    with pytest.raises(ValueError, match="block_limit"):
        BlockedAUCEngine(1, block_limit=129)
    assert BlockedAUCEngine(1).block_limit == 128


class GappedLeavesMachine(RuleBasedStateMachine):
    """Random single and batch operations on small blocks against the Fraction brute force."""

    def __init__(self):
        super().__init__()
        self.engine = None
        self.points = []

    @precondition(lambda self: self.engine is None)
    @rule(block_limit=st.integers(2, 8), capacity=st.integers(1, 40), hooks_only=st.booleans())
    def create(self, block_limit, capacity, hooks_only):
        self.engine = BlockedAUCEngine(capacity, block_limit=block_limit)
        if hooks_only:
            self.engine._hooks_only()

    @precondition(lambda self: self.engine is not None)
    @rule(is_pos=st.booleans(), score=st.integers(0, 120),
          weight=st.sampled_from([1.0, 1.0, 1.0, 0.5, 2.0, 0.0]))
    def add(self, is_pos, score, weight):
        assert self.engine.add(is_pos, score / 4.0, weight) == Status.DONE
        self.points.append((is_pos, score / 4.0, weight))

    @precondition(lambda self: self.engine is not None)
    @rule(labels=st.lists(st.booleans(), min_size=1, max_size=10), data=st.data())
    def add_many(self, labels, data):
        scores = data.draw(st.lists(st.integers(0, 120), min_size=len(labels),
                                    max_size=len(labels)))
        assert self.engine.add_many(np.array(labels, dtype=np.uint8),
                                    np.array(scores) / 4.0) == -1
        self.points += [(p, s / 4.0, 1.0) for p, s in zip(labels, scores, strict=True)]

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove(self, data):
        k = data.draw(st.integers(0, len(self.points) - 1))
        is_pos, score, weight = self.points.pop(k)
        assert self.engine.remove(is_pos, score, weight) == Status.DONE

    @precondition(lambda self: len(self.points) > 3)
    @rule(data=st.data())
    def remove_many(self, data):
        count = data.draw(st.integers(1, len(self.points)))
        gone, self.points = self.points[:count], self.points[count:]
        assert self.engine.remove_many(
            np.array([p for p, _, _ in gone], dtype=np.uint8), np.array([s for _, s, _ in gone]),
            np.array([w for _, _, w in gone])) == -1

    @precondition(lambda self: self.engine is not None)
    @rule(is_pos=st.booleans(), score=st.integers(121, 130))
    def refused_remove(self, is_pos, score):
        before = pickle.dumps(self.engine)
        assert self.engine.remove(is_pos, score / 4.0) == Status.NOT_PRESENT
        assert pickle.dumps(self.engine) == before

    @invariant()
    def matches(self):
        if self.engine is None:
            return
        self.engine._check()
        assert self.engine.n_points == len(self.points)
        labels = [int(p) for p, _, _ in self.points]
        weights = [w for _, _, w in self.points]
        n0 = sum(w for p, w in zip(labels, weights, strict=True) if p == 0)
        n1 = sum(w for p, w in zip(labels, weights, strict=True) if p == 1)
        if n0 == 0 or n1 == 0:
            assert np.isnan(self.engine.auc)
            return
        expected = brute_auc(labels, [s for _, s, _ in self.points], weights)
        if self.engine.unit_weights:
            assert self.engine.auc == float(expected)
        else:
            assert self.engine.auc == pytest.approx(float(expected), rel=1e-12)


TestGappedLeavesMachine = GappedLeavesMachine.TestCase
TestGappedLeavesMachine.settings = settings(max_examples=50, stateful_step_count=80,
                                            deadline=None)
