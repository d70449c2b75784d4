"""The point ring of a count window (``PointRing``) against a deque of the last
``capacity`` points: a ring made with fewer slots than its window grows by doubling
(``reserve``) up to the window, evicting only once the window is full; the invariants
(``_check_ring``) after every push, pickles taken midway, refusals."""

import collections
import pickle

import numpy as np
import pytest

from hmeasure_stream import Binning
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._ring import PointRing, _check_ring, _rebuild_ring
from hmeasure_stream.streaming._engine_choice import bins_engine


def _points(ring):
    is_pos, scores, weights = ring.points()
    return list(zip(is_pos.tolist(), scores.tolist(), weights.tolist(), strict=True))


@pytest.mark.parametrize("capacity, slots", [(1, 1), (2, 1), (5, 1), (7, 3), (64, 4),
                                             (100, 16), (9, 9)])
def test_a_ring_of_few_slots_is_a_window_of_its_capacity(capacity, slots):
    """Chunks of random sizes, room reserved before each as a window does: every push
    evicts exactly the deque's oldest, the slots double up to the capacity, never past
    it, and a pickle taken after any chunk goes on alike."""
    rng = np.random.default_rng(capacity * 31 + slots)
    ring = PointRing(capacity, False, slots)
    assert (ring.capacity, ring.slots, ring.size) == (capacity, slots, 0)
    window = collections.deque()
    for chunk in range(25):
        n = int(rng.integers(0, 2 * capacity + 3))
        before = ring.slots
        ring.reserve(n)
        wanted = min(capacity, len(window) + n)
        assert ring.slots == before if wanted <= before else before < ring.slots <= capacity
        assert ring.slots >= wanted
        assert _points(ring) == list(window)  # (growth keeps the points, oldest first)
        for _ in range(n):
            point = (int(rng.integers(0, 2)), float(rng.random()), float(rng.choice([0.5, 1.0, 2.0])))
            left = ring._push_for_tests(*point)
            window.append(point)
            expected = window.popleft() if len(window) > capacity else None
            assert left == expected
            _check_ring(ring)
            assert ring.size == len(window)
        assert _points(ring) == list(window)
        if chunk % 4 == 3:
            ring = pickle.loads(pickle.dumps(ring))
            _check_ring(ring)
            assert _points(ring) == list(window)
    assert len(window) == capacity and ring.slots == capacity


def test_without_room_reserved_a_full_ring_evicts_within_its_slots():
    """A push with every slot taken and none reserved evicts the oldest (as a window of
    its slots), never writing past the buffers."""
    ring = PointRing(10, False, 2)
    assert ring._push_for_tests(1, 0.1, 1.0) is None
    assert ring._push_for_tests(0, 0.2, 1.0) is None
    assert ring._push_for_tests(1, 0.3, 1.0) == (1, 0.1, 1.0)
    _check_ring(ring)
    assert _points(ring) == [(0, 0.2, 1.0), (1, 0.3, 1.0)]


def test_reserve_stops_at_the_window_and_refuses_what_cannot_be():
    ring = PointRing(1000, False, 4)
    ring.reserve(10**18)  # (a window needs at most its own size)
    assert ring.slots == 1000
    unbounded = PointRing(0, True)
    before = unbounded.slots
    with pytest.raises(MemoryError):
        unbounded.reserve(2**62)
    with pytest.raises(MemoryError):
        unbounded.reserve(2**56)  # (numpy cannot allocate 2**56 * 25 bytes)
    assert unbounded.slots == before and unbounded.size == 0
    with pytest.raises(ValueError, match="room for -1"):
        ring.reserve(-1)


@pytest.mark.parametrize("capacity, slots", [(3, 4), (-1, 0), (0, -2)])
def test_a_ring_of_more_slots_than_its_window_is_refused(capacity, slots):
    with pytest.raises(ValueError, match="slots for a window"):
        PointRing(capacity, False, slots)


def test_a_pickle_of_more_slots_than_its_window_is_refused():
    ring = PointRing(4, False, 2)
    state = ring.__reduce__()[1]
    zeros = np.zeros(8)
    with pytest.raises(ValueError, match="a window of 4 points in 8 slots"):
        _rebuild_ring(4, 0, 0, np.zeros(8, np.uint8), zeros, zeros)
    with pytest.raises(ValueError, match="head 2 and size 0 out of 2 slots"):
        _rebuild_ring(state[0], 2, *state[2:])
    assert _points(_rebuild_ring(*state)) == []


@pytest.mark.parametrize("engine_of", [lambda: BlockedAUCEngine(16), lambda: bins_engine(Binning())])
def test_an_engine_slide_grows_a_ring_of_few_slots_to_its_window(engine_of):
    """A window's ring of 2 slots fed 7 points by an engine's slide, then 20: the engine
    reserves the room (the ring holds the last 7, then the last 10 points)."""
    rng = np.random.default_rng(3)
    engine, ring = engine_of(), PointRing(10, False, 2)
    y, s = rng.integers(0, 2, 27).astype(np.uint8), rng.random(27)
    out = np.empty((27, len(engine.columns)))
    assert engine.slide(ring, y[:7], s[:7], None, out[:7]) < 0
    assert (ring.size, ring.slots) == (7, 8) and _points(ring) == [
        (int(a), float(b), 1.0) for a, b in zip(y[:7], s[:7], strict=True)]
    assert engine.slide(ring, y[7:], s[7:], None, out[7:]) < 0
    assert (ring.size, ring.slots) == (10, 10) and [p[1] for p in _points(ring)] == s[-10:].tolist()
    _check_ring(ring)
    assert engine.n_points == 10
