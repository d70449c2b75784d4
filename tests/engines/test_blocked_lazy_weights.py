"""BlockedAUCEngine keeps a weight buffer only in weighted mode.

Unit mode stores class counts only (16 bytes a key slot); the first weight other
than 1 allocates the weight buffer (32 bytes a key slot) and the engine emptied
drops it.  Checked from capacity 1 with ``_check()`` after every operation, against
a brute-force weighted Mann-Whitney of the points held.
"""

import pickle

import numpy as np
import pytest
from reference_impl import brute_auc

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._protocol import Status


def _assert_auc(engine, points):
    labels = [label for label, _, _ in points]
    if not points or min(labels) == max(labels):
        assert np.isnan(engine.auc)
        return
    expected = brute_auc(labels, [score for _, score, _ in points],
                         [weight for _, _, weight in points])
    if all(weight == 1.0 for _, _, weight in points) and engine.unit_weights:
        assert engine.auc == float(expected)
    else:
        assert engine.auc == pytest.approx(float(expected), rel=1e-12)


def _weight_rows(engine):
    return None if engine.weight_buffer is None else engine.weight_buffer.shape[0]


@pytest.mark.parametrize("block_limit", [2, 4, 128])
def test_unit_weighted_emptied_unit_from_capacity_one(rng, block_limit):
    engine = BlockedAUCEngine(1, block_limit=block_limit)
    assert engine.weight_buffer is None and engine.unit_weights
    points = []
    for phase in ("unit", "weighted", "empty", "unit again"):
        steps = 120 if phase != "empty" else 0
        for _ in range(steps):
            if points and rng.random() < 0.35:
                label, score, weight = points.pop(int(rng.integers(len(points))))
                assert engine.remove(label, score, weight) == Status.DONE
            else:
                label, score = int(rng.integers(2)), float(rng.integers(25))
                weight = 1.0 if phase != "weighted" else float(rng.choice([0.5, 1.0, 3.0]))
                assert engine.add(label, score, weight) == Status.DONE
                points.append((label, score, weight))
            engine._check()
            _assert_auc(engine, points)
            # The buffer exists exactly in weighted mode, one row per key slot.
            assert (engine.weight_buffer is None) == engine.unit_weights
            if not engine.unit_weights:
                assert _weight_rows(engine) == engine.block_capacity * 128
        if phase == "weighted":
            assert not engine.unit_weights
        if phase == "empty":
            while points:
                label, score, weight = points.pop()
                assert engine.remove(label, score, weight) == Status.DONE
                engine._check()
                _assert_auc(engine, points)
            # Emptied: unit mode, no weight buffer, the units forgotten.
            assert engine.unit_weights and engine.weight_buffer is None and engine.scale == 1.0
    assert engine.unit_weights and engine.weight_buffer is None


def test_unit_mode_memory_holds_no_weight_buffer(rng):
    n = 20_000
    engine = BlockedAUCEngine(1)
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = rng.random(n)
    assert engine.add_many(y, s, None) == -1
    unit_bytes = engine.nbytes
    assert engine._buffers()[3] is None  # the weight buffer
    # Keys 8 + two int32 counts: 16 bytes a key slot; per block its size, aggregate
    # (3 float64), directory entry (id, first key), free id and slot: 48 bytes; per
    # leaf two segment-tree nodes of 3 float64, its block and 2 int32 of scratch.
    blocks, leaves = engine.block_capacity, engine.leaves
    assert unit_bytes == 16 * 128 * blocks + 48 * blocks + (48 + 4 + 8) * leaves
    engine.add(1, 0.5, 2.0)  # weighted from here: 32 bytes more a key slot
    engine._check()
    assert engine.nbytes == unit_bytes + 32 * engine.block_capacity * 128


def test_growth_and_splits_keep_the_weight_buffer_in_step(rng):
    # Weighted mode from the first point, growing from one block by many splits.
    engine = BlockedAUCEngine(1, block_limit=4)
    points = []
    for step in range(600):
        label, score, weight = int(rng.integers(2)), float(rng.random()), float(rng.random())
        engine.add(label, score, weight)
        points.append((label, score, weight))
        if step % 25 == 0:
            engine._check()
            _assert_auc(engine, points)
    engine._check()
    assert engine.weight_buffer.shape == (engine.block_capacity * 128, 4)
    _assert_auc(engine, points)
    # Batches: unit weights first, then a weighted batch turns the mode over.
    batch = BlockedAUCEngine(1, block_limit=4)
    y = rng.integers(0, 2, 300).astype(np.uint8)
    s = rng.integers(0, 40, 300).astype(np.float64)
    assert batch.add_many(y, s, None) == -1 and batch.weight_buffer is None
    w = rng.uniform(0.5, 2.0, 300)
    assert batch.add_many(y, s, w) == -1
    batch._check()
    _assert_auc(batch, list(zip(np.tile(y, 2).tolist(), np.tile(s, 2).tolist(),
                                [1.0] * 300 + w.tolist(), strict=True)))
    assert batch.remove_many(y, s, w) == -1 and batch.remove_many(y, s, None) == -1
    batch._check()
    assert batch.unit_weights and batch.weight_buffer is None and batch.n_points == 0


@pytest.mark.parametrize("weighted", [False, True])
def test_pickle_round_trip_keeps_the_mode_and_continues_identically(rng, weighted):
    engine = BlockedAUCEngine(1, block_limit=4)
    y = rng.integers(0, 2, 200).astype(np.uint8)
    s = rng.integers(0, 30, 200).astype(np.float64)
    engine.add_many(y, s, rng.uniform(0.5, 2.0, 200) if weighted else None)
    clone = pickle.loads(pickle.dumps(engine))
    clone._check()
    assert (clone.weight_buffer is None) == (not weighted)
    assert pickle.dumps(clone) == pickle.dumps(engine)
    for k in range(50):
        for target in (engine, clone):
            target.add(int(y[k]), float(s[k]) + 0.5)
    assert clone.auc == engine.auc and pickle.dumps(clone) == pickle.dumps(engine)


def test_a_pickle_of_another_format_is_refused(rng):
    # One layout is written and read (its version first); nothing else is taken.
    engine = BlockedAUCEngine(1, block_limit=4)
    engine.add_many(rng.integers(0, 2, 100).astype(np.uint8), rng.random(100), None)
    rebuild, state = engine.__reduce__()
    assert rebuild(*state).auc == engine.auc
    with pytest.raises(ValueError, match="format"):
        rebuild(state[0] + 1, *state[1:])


def test_check_detects_a_weight_buffer_out_of_place():
    engine = BlockedAUCEngine(1)
    engine.add(0, 0.1)
    engine.add(1, 0.2)
    engine.weight_buffer = np.zeros((engine.block_capacity * 128, 4))
    with pytest.raises(AssertionError, match="weight buffer must exist exactly"):
        engine._check()
    weighted = BlockedAUCEngine(1)
    weighted.add(0, 0.1, 2.0)  # (the first weight fixes the units: stored as 1)
    weighted.add(1, 0.2, 3.0)
    assert not weighted.unit_weights
    weighted.weight_buffer = np.zeros((128, 3))
    with pytest.raises(AssertionError, match="weight buffer has the wrong size"):
        weighted._check()
