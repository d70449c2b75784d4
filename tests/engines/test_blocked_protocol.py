"""BlockedAUCEngine through PointEngine's entry points: windows, decay, slide, the fast path.

The same points go through ``BlockedAUCEngine`` (small blocks: splits, merges and
respreads happen) and through a brute-force weighted Mann-Whitney of the points the
window holds, with the decay weights computed here from the points' ages.
"""

import numpy as np
import pytest
from reference_impl import brute_auc, window_points

from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._ring import PointRing
from hmeasure_stream.streaming._base import make_forgetting


def _expected(y, s, end, window, half_life):
    """AUC of the points 0..end that a count window and decay hold, by brute force."""
    labels, scores, weights = window_points(y, s, end, window, half_life)
    if labels.min() == labels.max():
        return np.nan  # one class absent
    return float(brute_auc(labels, scores, weights))


@pytest.mark.parametrize(("window", "half_life"), [(40, None), (None, 3.0), (200, 1.5)])
@pytest.mark.parametrize("chunk", [1, 37])
def test_forgetting_on_blocks_equals_brute_force(rng, window, half_life, chunk):
    n = 1500
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = np.round(rng.normal(size=n) + y, 1)  # ties
    engine = BlockedAUCEngine(1, block_limit=4)
    forgetting = make_forgetting(window, half_life)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        if chunk == 1:
            assert engine.forget_add(forgetting, int(y[start]), float(s[start])) == 0
        else:
            assert engine.forget_add_many(forgetting, y[start:stop], s[start:stop]) == -1
        engine._check()
        if chunk == 1 and start % 7 and stop < n:
            # The invariants after every point; the exact (fraction) brute force, O(n^2)
            # per call, every 7th point and at the end.
            continue
        expected = _expected(y, s, stop - 1, window, half_life)
        got = engine.auc
        if np.isnan(expected):
            assert np.isnan(got)
        elif half_life is None:
            assert got == expected  # unit weights: exact
        else:
            assert got == pytest.approx(expected, rel=1e-12, abs=0)
    if half_life is not None:
        assert forgetting.rescales > 0  # the stored weights were rescaled (_scale_weights)


def test_slide_records_the_window_auc(rng):
    n, window = 800, 25
    y = rng.integers(0, 2, n).astype(np.uint8)
    s = rng.integers(0, 30, n).astype(np.float64)
    engine = BlockedAUCEngine(1, block_limit=3)
    out = np.empty((n, 1))
    assert engine.slide(PointRing(window), y, s, None, out) == -1
    engine._check()
    expected = [_expected(y, s, end, window, None) for end in range(n)]  # floats, nan
    np.testing.assert_array_equal(out[:, 0], expected)


def test_plain_values_fast_path_and_unchecked():
    engine = BlockedAUCEngine(1, block_limit=2)
    assert engine.add(True, 0.5) == 0
    assert engine.add(0, 2) == 0  # an int score exact as a float
    assert engine.add(1, 0.7, 2.0) == 0
    assert engine.auc == float(brute_auc([1, 0, 1], [0.5, 2.0, 0.7], [1.0, 1.0, 2.0]))
    # Values the compiled path does not take come back unchecked, nothing changed.
    for args in (("1", 0.5), (1, "0.5"), (1, 0.5, 1), (2, 0.5), (1, float("nan"))):
        assert engine.add(*args) == 3  # Status.UNCHECKED
    assert len(engine.items()[0]) == 3
    assert engine.remove(1, 0.7, 2.0) == 0
    assert engine.remove(1, 0.5) == 0
    assert engine.remove(0, 2.0) == 0
    engine._check()
    assert engine.n_points == 0 and engine.unit_weights and engine.scale == 1.0
