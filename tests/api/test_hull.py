from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from reference_impl import brute_upper_hull, roc_points_exact
from strategies import labelled_scores

from hmeasure_stream import roc_hull


@given(labelled_scores(max_size=25))
def test_roc_hull_equals_brute_force_hull(data):
    y, s = data
    fpr, tpr = roc_hull(y, s)
    expected = brute_upper_hull(roc_points_exact(list(y), list(s)))
    assert len(fpr) == len(expected)
    np.testing.assert_allclose(fpr, [float(p[0]) for p in expected], rtol=1e-15, atol=0)
    np.testing.assert_allclose(tpr, [float(p[1]) for p in expected], rtol=1e-15, atol=0)


@given(labelled_scores(max_size=60, weighted=True))
def test_roc_hull_is_a_hull_of_every_roc_point(data):
    y, s, w = data
    for weights in (None, w):
        fpr, tpr = roc_hull(y, s, sample_weight=weights)
        assert (fpr[0], tpr[0]) == (0.0, 0.0)
        assert (fpr[-1], tpr[-1]) == (1.0, 1.0)
        assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
        # Strictly clockwise turns: no collinear or repeated vertices.
        dx, dy = np.diff(fpr), np.diff(tpr)
        assert np.all(dx[:-1] * dy[1:] - dy[:-1] * dx[1:] < 0)
        # Every ROC point lies on or under the hull.
        w_ = np.ones(len(y)) if weights is None else weights
        for t in np.unique(s):
            x = w_[(y == 0) & (s >= t)].sum() / w_[y == 0].sum()
            v = w_[(y == 1) & (s >= t)].sum() / w_[y == 1].sum()
            assert v <= np.interp(x, fpr, tpr) + 1e-12


def test_roc_hull_integer_weights_equal_repetition(rng):
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300) + y, 1)
    w = rng.integers(1, 4, 300)
    repeated = roc_hull(np.repeat(y, w), np.repeat(s, w))
    weighted = roc_hull(y, s, sample_weight=w.astype(float))
    np.testing.assert_allclose(weighted[0], repeated[0], rtol=1e-12)
    np.testing.assert_allclose(weighted[1], repeated[1], rtol=1e-12)


@pytest.mark.parametrize(
    ("y", "s", "fpr", "tpr"),
    [
        ([0, 1], [0, 1], [0, 0, 1], [0, 1, 1]),          # perfect
        ([0, 1], [1, 0], [0, 1], [0, 1]),                # reversed: the diagonal
        ([0, 1], [5, 5], [0, 1], [0, 1]),                # one tie
        ([0, 0, 1, 1], [1, 2, 1, 2], [0, 1], [0, 1]),    # collinear: only end points
    ],
)
def test_roc_hull_small_cases(y, s, fpr, tpr):
    got_fpr, got_tpr = roc_hull(y, s)
    np.testing.assert_array_equal(got_fpr, fpr)
    np.testing.assert_array_equal(got_tpr, tpr)


def test_roc_hull_exact_on_many_points():
    # A concave curve with every point a vertex; exact integer arithmetic keeps
    # all of them although neighbouring slopes differ by ~1e-10.
    k = 2000
    y = np.concatenate([np.zeros(k, int), np.ones(k * (k + 1) // 2, int)])
    # Class 1 points: k at score k, k-1 at score k-1, ... (decreasing steps).
    pos_scores = np.repeat(np.arange(k, 0, -1), np.arange(k, 0, -1))
    neg_scores = np.arange(k, 0, -1) - 0.5
    fpr, tpr = roc_hull(y, np.concatenate([neg_scores, pos_scores]))
    assert len(fpr) == k + 2
    total = k * (k + 1) // 2
    assert tpr[1] == k / total
    assert fpr[-2] == float(Fraction(k - 1, k))


def test_weighted_hull_drops_collinear_vertices_despite_rounding():
    # Found by hypothesis: weights of 0.01 make two hull edges exactly collinear
    # in real arithmetic, but not in rounded cumulative sums.
    y = np.array([0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                  0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1])
    s = np.array([0, 0, 0, 0, 0, 0, 2, 1, 1, 1, -1, -1, -1, -1, 1, -1, -1, -1, 2,
                  2, 2, 1, 1, -1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, -1, 2, 2, 2]) / 4
    w = np.ones(len(y))
    w[[14, 30, 31]] = 0.01
    fpr, tpr = roc_hull(y, s, sample_weight=w)
    # The same hull in exact arithmetic: integer-valued weights, 100 times larger.
    exact_fpr, exact_tpr = roc_hull(np.repeat(y, (100 * w).astype(int)),
                                    np.repeat(s, (100 * w).astype(int)))
    np.testing.assert_allclose(fpr, exact_fpr, rtol=1e-13)
    np.testing.assert_allclose(tpr, exact_tpr, rtol=1e-13)


@pytest.mark.parametrize("weighted", [False, True])
def test_roc_points_equal_sklearn_roc_curve_without_dropping(rng, weighted):
    from sklearn.metrics import roc_curve

    from hmeasure_stream import roc_points

    y = rng.integers(0, 2, 500)
    s = np.round(rng.normal(size=500) + y, 1)  # many ties
    w = rng.uniform(0.1, 3.0, 500) if weighted else None
    fpr, tpr = roc_points(y, s, sample_weight=w)
    expected_fpr, expected_tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(fpr, expected_fpr, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(tpr, expected_tpr, rtol=1e-13, atol=1e-15)
    assert len(fpr) == len(np.unique(s)) + 1
