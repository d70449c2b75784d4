"""The Fenwick tree of class counts by rank and the ring of a count window, against lists."""

import pickle

import numpy as np
import pytest

from hmeasure_stream._engines._fenwick import RankCounts
from hmeasure_stream._engines._ring import PointRing


@pytest.mark.parametrize("n_ranks", [1, 2, 7, 64, 100])
def test_rank_counts_equal_brute_force_prefix_counts(n_ranks):
    rng = np.random.default_rng(n_ranks)
    counts = RankCounts(n_ranks)
    held = np.zeros((n_ranks, 2), dtype=np.int64)
    for _ in range(500):
        rank, is_pos = int(rng.integers(n_ranks)), int(rng.integers(2))
        if held[rank, is_pos] and rng.random() < 0.4:
            counts.add(rank, is_pos, -1)
            held[rank, is_pos] -= 1
        else:
            counts.add(rank, is_pos, 1)
            held[rank, is_pos] += 1
        probe = int(rng.integers(n_ranks + 1))
        assert counts.count_below(probe) == (held[:probe, 0].sum(), held[:probe, 1].sum())
        assert (counts.n_neg, counts.n_pos) == (held[:, 0].sum(), held[:, 1].sum())


@pytest.mark.parametrize("capacity", [1, 3, 10])
def test_ring_evicts_the_oldest_point_and_pickles(capacity):
    ring = PointRing(capacity)
    pushed = []
    rng = np.random.default_rng(capacity)
    for step in range(40):
        point = (int(rng.integers(2)), float(step), float(rng.uniform()))
        evicted = ring._push_for_tests(*point)
        assert evicted == (pushed[step - capacity] if step >= capacity else None)
        pushed.append(point)
        is_pos, scores, weights = ring.points()
        assert list(zip(is_pos.tolist(), scores.tolist(), weights.tolist(),
                        strict=True)) == pushed[-capacity:]
        ring = pickle.loads(pickle.dumps(ring))


def test_unbounded_ring_stores_nothing():
    ring = PointRing(0)
    assert ring._push_for_tests(1, 0.5, 1.0) is None
    assert ring.size == 0
