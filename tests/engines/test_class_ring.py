"""The class ring of a multi-class count window (``ClassRing``) against a deque of the
last ``capacity`` points: every chunk's evicted points in eviction order, the window's
points after it, the invariants after every push, pickles and refusals."""

import collections
import pickle

import numpy as np
import pytest

from hmeasure_stream._engines._ring import ClassRing, _rebuild_class_ring


def _chunk(rng, n, n_columns):
    codes = rng.integers(0, 4, n).astype(np.intp)
    weights = rng.choice([0.0, 0.5, 1.0, 3.25], n)
    rows = rng.normal(size=(n, n_columns)) if n_columns else None
    return codes, weights, rows


def _deque_push(window, capacity, codes, weights, rows):
    """The reference: one point at a time, the oldest leaving once ``capacity`` are held."""
    left = []
    for index in range(codes.shape[0]):
        window.append((int(codes[index]), float(weights[index]),
                       None if rows is None else tuple(rows[index].tolist())))
        if len(window) > capacity:
            left.append(window.popleft())
    return left


def _as_points(codes, weights, rows):
    return [(int(code), float(weight), None if rows is None else tuple(row.tolist()))
            for code, weight, row in zip(codes.tolist(), weights.tolist(),
                                         rows if rows is not None else [None] * len(codes),
                                         strict=True)]


@pytest.mark.parametrize("capacity", [1, 2, 3, 5])
@pytest.mark.parametrize("n_columns", [0, 1, 3])
def test_push_hands_back_what_a_deque_evicts(capacity, n_columns):
    rng = np.random.default_rng(capacity * 10 + n_columns)
    ring, window = ClassRing(capacity, n_columns), collections.deque()
    for _ in range(200):
        codes, weights, rows = _chunk(rng, int(rng.integers(0, 2 * capacity + 2)), n_columns)
        expected = _deque_push(window, capacity, codes, weights, rows)
        left_codes, left_weights, left_rows = ring.push(codes, weights, rows)
        assert left_codes.dtype == np.intp and left_weights.dtype == np.float64
        assert (left_rows is None) == (n_columns == 0)
        if left_rows is not None:
            assert left_rows.shape == (len(expected), n_columns)
        assert _as_points(left_codes, left_weights, left_rows) == expected
        assert ring._check()
        assert _as_points(*ring.points()) == list(window)
        assert ring.size == len(window) <= capacity


def test_pickles_round_trip_and_broken_ones_are_refused():
    rng = np.random.default_rng(3)
    ring = ClassRing(4, 2)
    ring.push(*_chunk(rng, 6, 2))
    copy = pickle.loads(pickle.dumps(ring))
    assert copy._check() and _as_points(*copy.points()) == _as_points(*ring.points())
    assert (copy.capacity, copy.n_columns, copy.head, copy.size) == (4, 2, 2, 4)
    # The copy goes on as the original: the same points leave, the same stay.
    chunk = _chunk(rng, 3, 2)
    assert _as_points(*copy.push(*chunk)) == _as_points(*ring.push(*chunk))
    assert _as_points(*copy.points()) == _as_points(*ring.points())
    state = ring.__reduce__()[1]
    broken = {
        "a head out of the slots": (4, 2, 4, 2, *state[4:]),
        "a size beyond the window": (4, 2, 0, 5, *state[4:]),
        "codes as floats": (*state[:4], state[4].astype(np.float64), *state[5:]),
        "a negative code held": (*state[:4], np.full(4, -1, dtype=np.intp), *state[5:]),
        "a weight not finite": (*state[:5], np.full(4, np.inf), state[6]),
        "rows of the wrong width": (*state[:6], np.zeros((4, 3))),
        "no rows for a ring of rows": (*state[:6], None),
        "a window of no points": (0, 2, 0, 0, np.zeros(0, np.intp), np.zeros(0),
                                  np.zeros((0, 2))),
        "not a number": ("four", *state[1:]),
    }
    for reason, arguments in broken.items():
        with pytest.raises(ValueError, match="cannot unpickle this window's class ring"):
            _rebuild_class_ring(*arguments)
            pytest.fail(reason)


def test_a_refused_chunk_changes_nothing():
    ring = ClassRing(3, 2)
    ring.push(np.array([0, 1], dtype=np.intp), np.ones(2), np.zeros((2, 2)))
    before = _as_points(*ring.points())
    refusals = [
        ((np.array([0, 1], dtype=np.intp), np.ones(3), np.zeros((2, 2))), "2 codes and 3"),
        ((np.array([0], dtype=np.intp), np.ones(1), None), "keeps rows of 2 scores"),
        ((np.array([0], dtype=np.intp), np.ones(1), np.zeros((1, 3))), r"shape \(1, 3\)"),
        ((np.array([-1], dtype=np.intp), np.ones(1), np.zeros((1, 2))), "code below 0"),
        ((np.array([0], dtype=np.intp), np.array([-0.5]), np.zeros((1, 2))), "negative"),
        ((np.array([0], dtype=np.intp), np.array([np.nan]), np.zeros((1, 2))), "not finite"),
        ((np.array([0.0]), np.ones(1), np.zeros((1, 2))), "dtype mismatch"),
    ]
    for arguments, message in refusals:
        with pytest.raises(ValueError, match=message):
            ring.push(*arguments)
        assert _as_points(*ring.points()) == before and ring._check()
    with pytest.raises(ValueError, match="keeps no rows"):
        ClassRing(2).push(np.array([0], dtype=np.intp), np.ones(1), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="a class ring of 0 points"):
        ClassRing(0)


def test_a_chunk_longer_than_the_window_evicts_its_own_first_points():
    ring = ClassRing(2)
    ring.push(np.array([3], dtype=np.intp), np.array([0.5]))
    codes, weights, rows = ring.push(np.arange(5, dtype=np.intp), np.arange(5.0))
    assert codes.tolist() == [3, 0, 1, 2] and weights.tolist() == [0.5, 0.0, 1.0, 2.0]
    assert rows is None
    assert ring.points()[0].tolist() == [3, 4] and ring.points()[1].tolist() == [3.0, 4.0]
    assert ring.nbytes == 2 * (np.dtype(np.intp).itemsize + 8)
