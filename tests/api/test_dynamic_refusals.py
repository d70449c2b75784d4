"""A refused call raises the right error and leaves the structure exactly as it was."""

import pickle

import numpy as np
import pytest

from hmeasure_stream import DynamicAUC


@pytest.fixture
def tracker():
    tracker = DynamicAUC(capacity=4)
    tracker.add_many([0, 1, 0, 1, 1], [0.1, 0.5, 0.5, 0.9, 0.9], sample_weight=[1, 1, 2, 1, 1])
    return tracker


def unchanged(tracker, call):
    before = pickle.dumps(tracker)
    call()
    assert pickle.dumps(tracker) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((2, 0.5), r"y_true must be 0/1, -1/1 or a boolean, got 2"),
        (("1", 0.5), r"y_true must be 0/1, -1/1 or a boolean, got '1'"),
        ((0.5, 0.5), r"y_true must be 0/1, -1/1 or a boolean, got 0.5"),
        ((1, float("nan")), r"y_score must be finite, got nan"),
        ((1, float("inf")), r"y_score must be finite"),
        ((1, "0.5"), r"y_score must be a real number, got '0.5'"),
        ((1, 2**60 + 1), r"y_score must be exact as float64"),
        ((1, 0.5, -1.0), r"weight must be finite and >= 0, got -1.0"),
        ((1, 0.5, float("nan")), r"weight must be finite and >= 0"),
        ((1, 0.5, "1"), r"weight must be a non-negative number"),
    ],
)
@pytest.mark.parametrize("method", ["add", "remove"])
def test_bad_single_points_are_refused(tracker, method, args, message):
    def call():
        with pytest.raises(ValueError, match=message):
            getattr(tracker, method)(*args)

    unchanged(tracker, call)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 0.1), r"no point with y_true=1, y_score=0.1 to remove"),
        ((0, 0.9), r"no point with y_true=0, y_score=0.9 to remove"),
        ((0, 0.3), r"no point with y_true=0, y_score=0.3 to remove"),
        ((0, 0.5, 5.0), r"cannot remove weight 5.0 from the points with y_true=0, y_score=0.5: they weigh 2.0"),
    ],
)
def test_removing_a_missing_point_is_a_key_error(tracker, args, message):
    def call():
        with pytest.raises(KeyError, match=message):
            tracker.remove(*args)

    unchanged(tracker, call)


@pytest.mark.parametrize(
    ("batch", "error", "message"),
    [
        (([1, 1, 1], [0.9, 0.9, 0.9]), KeyError, r"removes 3 point\(s\) with y_true=1, y_score=0.9, but 2 are present"),
        (([0, 0], [0.1, 0.7]), KeyError, r"removes 1 point\(s\) with y_true=0, y_score=0.7, but 0 are present"),
        (([0, 1], [0.5, 0.5], [3.0, 1.0]), KeyError, r"removes weight 3.0 from the points with y_true=0, y_score=0.5"),
        (([0, 2], [0.1, 0.5]), ValueError, r"y_true must contain only labels 0 and 1.*found 2 at position 1"),
        (([0, 1], [0.1, np.nan]), ValueError, r"found nan at position 1"),
        (([0, 1], [0.1]), ValueError, r"different lengths"),
        (([0, 1], [0.1, 0.5], [1.0, -1.0]), ValueError, r"sample_weight must be non-negative"),
    ],
)
def test_refused_batches_remove_nothing(tracker, batch, error, message):
    def call():
        with pytest.raises(error, match=message):
            tracker.remove_many(*batch)

    unchanged(tracker, call)


@pytest.mark.parametrize(
    ("batch", "message"),
    [
        (([0, 1, 3], [0.1, 0.2, 0.3]), r"found 3 at position 2"),
        (([0, 1, 1], [0.1, 0.2, np.inf]), r"found inf at position 2"),
        (([0, 1], np.array([1, 2**62])), r"y_score must hold integers of magnitude <= 2\*\*53"),
        (([[0, 1]], [[0.1, 0.2]]), r"must be 1-d"),
    ],
)
def test_refused_batches_add_nothing(tracker, batch, message):
    def call():
        with pytest.raises(ValueError, match=message):
            tracker.add_many(*batch)

    unchanged(tracker, call)


def test_empty_batches_are_no_ops(tracker):
    unchanged(tracker, lambda: tracker.add_many([], []))
    unchanged(tracker, lambda: tracker.remove_many([], [], sample_weight=[]))


@pytest.mark.parametrize("capacity", [0, -3, 2.5, True, "8"])
def test_bad_capacity(capacity):
    with pytest.raises(ValueError, match=r"capacity must be (at least 1|an integer from 1 to)"):
        DynamicAUC(capacity=capacity)
