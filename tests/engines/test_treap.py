"""The score treap engine itself: lcount, split/join, growth, invariants."""

import pickle

import numpy as np
import pytest
from reference_impl import brute_auc

from hmeasure_stream import DynamicAUC


def build(seed, n=300, distinct=60, weighted=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.integers(0, distinct, n).astype(float)
    w = rng.exponential(size=n) if weighted else None
    tracker = DynamicAUC(capacity=1, seed=seed)
    tracker._on_treap()  # (a plain DynamicAUC keeps sorted blocks)
    tracker.add_many(y, s, sample_weight=w)
    return tracker, y, s, (np.ones(n) if w is None else w)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_lcount_equals_prefix_sums(seed, weighted):
    tracker, y, s, w = build(seed, weighted=weighted)
    tree = tracker._engine.tree
    unit = tracker._engine.scale  # the tree keeps weights in units of a power of two
    for key in np.concatenate([np.unique(s), np.unique(s) + 0.5, [-1.0, 1e9]]):
        below_neg, below_pos = (unit * weight for weight in tree.weight_below(key))
        assert below_neg == pytest.approx(w[(y == 0) & (s < key)].sum(), rel=1e-12, abs=1e-12)
        assert below_pos == pytest.approx(w[(y == 1) & (s < key)].sum(), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_split_and_join_at_every_gap(seed, weighted):
    tracker, _, s, _ = build(seed, weighted=weighted)
    tree = tracker._engine.tree
    for key in np.concatenate([np.unique(s) + 0.5, [-1.0]]):
        assert tree._split_join_check(float(key))
    tracker._check()


def test_capacity_grows_from_one_slot_and_slots_are_reused():
    tracker = DynamicAUC(capacity=1, seed=0)
    tree = tracker._on_treap().tree
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


@pytest.mark.parametrize("weighted", [False, True])
def test_pair_weight_of_every_subtree_is_its_twice_mann_whitney(weighted):
    tracker, y, s, w = build(3, weighted=weighted)
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


def test_check_detects_a_stale_pair_weight_in_unit_mode():
    tracker, _, _, _ = build(1)
    tree = tracker._engine.tree
    assert not tree.weighted
    tree.field("subtree_pairs")[tree.root] += 1.0
    with pytest.raises(AssertionError, match="stale pair subtree aggregate"):
        tracker._check()


_OLD_FIELDS = {  # the buffers of a pickle from before the records: one per field
    "left_buffer": ("slots_buffer", 0), "right_buffer": ("slots_buffer", 1),
    "count_neg_buffer": ("slots_buffer", 2), "count_pos_buffer": ("slots_buffer", 3),
    "key_buffer": ("sums_buffer", 0), "subtree_neg_buffer": ("sums_buffer", 1),
    "subtree_pos_buffer": ("sums_buffer", 2), "subtree_pairs_buffer": ("sums_buffer", 3),
    "weight_neg_buffer": ("weights_buffer", 0), "weight_pos_buffer": ("weights_buffer", 1),
    "weight_neg_comp_buffer": ("weights_buffer", 2),
    "weight_pos_comp_buffer": ("weights_buffer", 3),
}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("with_pairs", [False, True])
def test_a_pickle_of_one_buffer_per_field_loads(weighted, with_pairs):
    tracker, _, _, _ = build(2, weighted=weighted)
    tree = tracker._engine.tree
    assert tree.weighted == weighted
    # (A pickle of then had no ``placements`` and no breadth-first build either: the
    # fields and the four pool counters of then; before unit mode, no pair weights.)
    rebuild, (seed, root, n_points, weighted, (capacity, n_used, free_head, buffers, n_built),
              _) = tree.__reduce__()
    assert n_built == 0
    fields = {name: np.ascontiguousarray(buffers[record][:, column])
              for name, (record, column) in _OLD_FIELDS.items() if record in buffers}
    assert len(fields) == (12 if weighted else 8)
    if not with_pairs:
        del fields["subtree_pairs_buffer"]
    old = rebuild(seed, root, n_points, weighted, (capacity, n_used, free_head, fields))
    assert old._check()
    for name in ("key", "count_neg", "count_pos", "subtree_neg", "subtree_pos",
                 "subtree_pairs"):
        np.testing.assert_array_equal(old.field(name)[old._in_order()],
                                      tree.field(name)[tree._in_order()])
    np.testing.assert_array_equal(old.node_weights(old._in_order()),
                                  tree.node_weights(tree._in_order()))
    assert pickle.loads(pickle.dumps(old))._check()


def _depth(tree):
    """The depth of the treap (nodes on its longest root-to-leaf path), walking its links."""
    deepest, stack = 0, [(tree.root, 1)] if tree.root >= 0 else []
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in (tree.field("left")[node], tree.field("right")[node]):
            if child >= 0:
                stack.append((int(child), depth + 1))
    return deepest


def _assert_same_treap(got, expected):
    """The same nodes in the same slots with the same links (free slots aside)."""
    for name in ("root", "n_built", "n_used", "capacity"):
        assert getattr(got, name) == getattr(expected, name), name
    order = expected._in_order()
    np.testing.assert_array_equal(got._in_order(), order)
    np.testing.assert_array_equal(got.field("left")[order], expected.field("left")[order])
    np.testing.assert_array_equal(got.field("right")[order], expected.field("right")[order])
    for a, b in zip(got.items(), expected.items(), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 13, 100, 1000])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_move_builds_a_complete_tree_in_breadth_first_slots(rng, n, weighted):
    # The treap the first partial area moves the points to: slot i's children are 2i + 1
    # and 2i + 2, the keys in order, the least depth; then it works as any treap.
    y = rng.integers(0, 2, 3 * n)
    s = rng.permutation(np.repeat(np.arange(n, dtype=float), 3)) / 7
    w = rng.uniform(0.5, 2.0, 3 * n) if weighted else None
    tracker = DynamicAUC(capacity=1, seed=5)
    tracker.add_many(y, s, sample_weight=w)
    tree = tracker._on_treap().tree
    assert tree._check() and tree.n_built == n and tree.n_used == n
    slots = np.arange(n)
    np.testing.assert_array_equal(tree.field("left")[:n], np.where(2 * slots + 1 < n,
                                                                 2 * slots + 1, -1))
    np.testing.assert_array_equal(tree.field("right")[:n], np.where(2 * slots + 2 < n,
                                                                  2 * slots + 2, -1))
    assert tree.root == (0 if n else -1)
    assert _depth(tree) == int(np.ceil(np.log2(n + 1)))
    np.testing.assert_array_equal(tree.field("key")[tree._in_order()], np.arange(n) / 7)
    # A pickle keeps the build (the priorities of its slots), byte for byte.
    copy = pickle.loads(pickle.dumps(tracker))
    assert copy._engine.tree.n_built == n and pickle.dumps(copy) == pickle.dumps(tracker)
    # Updates on the built treap and on its copy: every invariant (heap order under the
    # build's priorities among them) after each, the same structure, the exact AUC.
    points = list(zip(y.tolist(), s.tolist(), (np.ones(3 * n) if w is None else w).tolist(),
                      strict=True))
    for step in range(min(200, 3 * n + 20)):
        if points and rng.random() < 0.5:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            for structure in (tracker, copy):
                structure.remove(label, score, weight)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(-5, n + 5)) / 7
            for structure in (tracker, copy):
                structure.add(label, score)
            points.append((label, score, 1.0))
        tracker._check()
        if step % 10 == 0:  # (free slots of a grown buffer hold whatever was there)
            _assert_same_treap(copy._engine.tree, tracker._engine.tree)
    labels = [p[0] for p in points]
    if len(set(labels)) == 2:
        expected = brute_auc(labels, [p[1] for p in points], [p[2] for p in points])
        assert tracker.auc == pytest.approx(float(expected), rel=1e-12)


def test_a_built_treap_stays_shallow_under_churn(rng):
    # Replacing every key many times (freed built slots reused for new keys) keeps the
    # depth near that of a random treap: priorities stay independent of the keys.
    n = 4000
    tracker = DynamicAUC(seed=3)
    scores = rng.random(n)
    labels = rng.integers(0, 2, n)
    tracker.add_many(labels, scores)
    tree = tracker._on_treap().tree
    assert _depth(tree) == 12
    held = list(zip(labels.tolist(), scores.tolist(), strict=True))
    for _ in range(5 * n):
        label, score = held.pop(int(rng.integers(len(held))))
        tracker.remove(label, score)
        new = (int(rng.integers(2)), float(rng.random()))
        tracker.add(*new)
        held.append(new)
    tracker._check()
    # A random treap of 4000 keys has expected depth about 2.99 ln n = 25 (Devroye);
    # a degenerate one would be far deeper.
    assert _depth(tree) <= 40
