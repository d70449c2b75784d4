"""The engines store weights in units of a power of two fixed by the first positive weight."""

import math
import pickle

import numpy as np
import pytest

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._protocol import Status


@pytest.mark.parametrize("engine_type", [BlockedAUCEngine, BlockedHullEngine])
@pytest.mark.parametrize("first", [1.0, 3.0, 1e-300, 1e300, 2.0**-1000, 5e-324])
def test_the_first_positive_weight_fixes_the_scale(engine_type, first):
    engine = engine_type()
    assert engine.scale == 1.0
    assert engine.add(0, 0.5, 0.0) == Status.DONE  # a zero weight fixes nothing
    assert engine.scale == 1.0
    assert engine.add(1, 0.7, first) == Status.DONE
    mantissa, _ = math.frexp(engine.scale)
    assert mantissa == 0.5  # a power of two
    stored = first / engine.scale
    assert 2.0**-53 <= stored < 2.0
    assert engine.weight_pos == first
    engine._check()
    again = pickle.loads(pickle.dumps(engine))
    assert again.scale == engine.scale and again.weight_pos == first
    # Emptied, the structure forgets its scale.
    assert engine.remove(1, 0.7, first) == Status.DONE
    assert engine.remove(0, 0.5, 0.0) == Status.DONE
    assert engine.scale == 1.0
    engine._check()


def test_unit_weights_of_any_power_of_two_stay_exact():
    engine = BlockedAUCEngine()
    engine.add_many(np.array([0, 1, 1], dtype=np.uint8), np.array([0.1, 0.5, 0.1]),
                    np.full(3, 2.0**-700))
    assert engine.unit_weights  # stored as 1: the exact unit mode
    assert engine.auc == 0.75
    assert engine.weight_pos == 2.0**-699


def test_out_of_range_is_reported_and_changes_nothing():
    engine = BlockedAUCEngine()
    engine.add(0, 0.5, 1.0)
    before = pickle.dumps(engine)
    assert engine.add(1, 0.7, 2.0**401) == Status.OUT_OF_RANGE
    assert engine.add(1, 0.7, 2.0**-401) == Status.OUT_OF_RANGE
    assert engine.add_many(np.array([1, 1], dtype=np.uint8), np.array([0.1, 0.2]),
                           np.array([1.0, 2.0**402])) == 1
    assert pickle.dumps(engine) == before
    assert engine.add(1, 0.7, 2.0**399) == Status.DONE
    # Removals of a weight no point can have are weight refusals.
    assert engine.remove(1, 0.7, 2.0**420) == Status.WEIGHT_EXCEEDS
    assert engine.remove(1, 0.9, 2.0**420) == Status.NOT_PRESENT


def test_partial_removal_of_the_last_point_keeps_counts_and_weights_in_step():
    engine = BlockedAUCEngine()
    engine.add(0, 0.1, 1.0)
    engine.add(1, 0.5, 2.0)
    assert engine.remove(1, 0.5, 0.5) == Status.DONE
    assert engine.n_points == 2 and engine.weight_pos == 1.5
    engine._check()
    assert engine.remove(1, 0.5, 1.5 * (1 + 1e-12)) == Status.DONE  # its whole weight
    assert engine.n_points == 1 and engine.weight_pos == 0.0
    engine._check()


def test_first_excess_tolerance_is_relative_to_the_removed_weight():
    engine = BlockedAUCEngine()
    engine.add_many(np.array([1, 1], dtype=np.uint8), np.array([0.1, 0.2]),
                    np.array([1e12, 1.0]))
    scores = np.array([0.2])
    unit = 1.0 / engine.scale  # removed weights are in the structure's units
    assert engine.first_excess(scores, True, np.array([unit * (1 + 1e-12)])) == -1
    assert engine.first_excess(scores, True, np.array([unit * (1 + 1e-6)])) == 0
