"""The bin rule of the binned AUC's kernels (``_binning``) against the naive rule.

These are the bins a streaming structure will assign through ``_binning.pxd``:
the batch kernels ``bin_indices``, ``count_bins`` and ``count_bins_weighted``
must all place every score as the rule written from the definitions does.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import naive_bin, naive_loglog
from scipy.special import expit

from hmeasure_stream._engines import _binning


def bins_of(scores, m, alpha=None, lo=0.0, hi=1.0):
    """``_binning.bin_indices`` of finite scores under frozen parameters."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    out = np.empty(scores.shape[0], dtype=np.int64)
    transform = _binning.TRANSFORM_LINEAR if alpha is None else _binning.TRANSFORM_LOGLOG
    _binning.bin_indices(scores, lo, hi - lo, m, transform, 0.0 if alpha is None else alpha,
                         out)
    return out


def test_bins_equal_naive_rule_on_many_scores(rng):
    m = 1000
    s = np.concatenate([
        rng.random(20_000),
        expit(rng.normal(size=20_000) * 30),
        np.arange(m + 1) / m,                      # the linear edges themselves
        [0.0, 1.0, 0.5, np.nextafter(0.5, 0), np.nextafter(0.5, 1), 5e-324, -0.5, 1.5],
    ])
    for alpha in (None, 0.0716, 0.15, 0.7):
        got = bins_of(s, m, alpha)
        expected = [naive_bin(float(v), m, alpha=alpha) for v in s]
        assert got.tolist() == expected


def test_loglog_bins_at_their_edges():
    m, alpha = 200, 0.12
    # The edges in r: the inverse of T, r = 2 ** -exp((1/2 - u) / alpha) below
    # 1/2 and mirrored above (as binned_auc reports them).
    u = np.arange(1, m) / m
    low_u = u <= 0.5
    edges = np.where(low_u, np.exp(-np.log(2.0) * np.exp((0.5 - u) / alpha)),
                     -np.expm1(-np.log(2.0) * np.exp((u - 0.5) / alpha)))
    k = np.arange(1, m)
    # The edges are T's inverse: T(edge_k) = k / m where float64 resolves them.
    low = (edges <= 0.5) & (edges > 1e-300)
    high = (edges > 0.5) & (1 - edges >= 1e-5)
    assert low.sum() > 50 and high.sum() > 50
    resolved = low | high
    np.testing.assert_allclose(
        [naive_loglog(float(e), alpha) for e in edges[resolved]], k[resolved] / m, atol=1e-9
    )
    # Scores a relative 1e-9 either side of an edge (in r below 1/2, in 1 - r above;
    # a change of T far above rounding, far below a bin) fall on either side of it.
    for sign, side in ((-1, k - 1), (1, k)):
        lower = edges[low] * (1 + sign * 1e-9)
        upper = 1 - (1 - edges[high]) * (1 - sign * 1e-9)
        assert bins_of(lower, m, alpha).tolist() == side[low].tolist()
        assert bins_of(upper, m, alpha).tolist() == side[high].tolist()


finite = st.floats(-3.0, 3.0, allow_nan=False)


@given(
    st.lists(finite, min_size=2, max_size=60),
    st.sampled_from([1, 2, 3, 10, 64, 1000]),
    st.one_of(st.none(), st.floats(1e-4, 2.0)),
    st.sampled_from([(0.0, 1.0), (-1.0, 2.0), (0.25, 0.75), (-3.0, 0.5)]),
)
def test_bin_is_non_decreasing_in_the_score(scores, m, alpha, score_range):
    lo, hi = score_range
    # Around the ends of the range and around its middle (T's junction at r = 1/2).
    middle = lo + (hi - lo) / 2
    special = [lo, hi, middle, np.nextafter(middle, -np.inf), np.nextafter(middle, np.inf),
               np.nextafter(lo, -np.inf), np.nextafter(lo, np.inf),
               np.nextafter(hi, -np.inf), np.nextafter(hi, np.inf)]
    s = np.sort(np.concatenate([scores, special]))
    got = bins_of(s, m, alpha, lo, hi)
    assert (np.diff(got) >= 0).all()
    assert got.min() >= 0 and got.max() <= m - 1
    assert got.tolist() == [naive_bin(float(v), m, lo, hi, alpha) for v in s]


@given(
    st.lists(st.tuples(st.integers(0, 1), finite), min_size=1, max_size=60),
    st.sampled_from([1, 3, 10, 100]),
    st.one_of(st.none(), st.floats(0.01, 1.0)),
    st.sampled_from([(0.0, 1.0), (-1.0, 2.0), (0.25, 0.75)]),
)
def test_counting_kernels_use_the_same_bins(points, m, alpha, score_range):
    # count_bins skips the division when the range is [0, 1]; every kernel must
    # still agree with bin_indices (the end bins included).
    lo, hi = score_range
    # The range's ends and middle among the scores.
    labels = np.array([label for label, _ in points] + [0, 1, 1], dtype=np.int64)
    s = np.array([score for _, score in points] + [lo, hi, lo + (hi - lo) / 2])
    transform = _binning.TRANSFORM_LINEAR if alpha is None else _binning.TRANSFORM_LOGLOG
    kernel_alpha = 0.0 if alpha is None else alpha
    bins = bins_of(s, m, alpha, lo, hi)
    expected = np.zeros(2 * m, dtype=np.int64)
    np.add.at(expected, labels * m + bins, 1)
    counts = np.zeros(2 * m, dtype=np.int64)
    flags = _binning.count_bins(labels, s, lo, hi - lo, hi, m, transform, kernel_alpha, counts)
    below, above = int(np.sum(s < lo)), int(np.sum(s > hi))
    assert flags == (False, False, below, above)
    assert counts.tolist() == expected.tolist()
    weights = np.arange(1.0, s.shape[0] + 1.0)
    weighted = np.zeros(2 * m, dtype=np.float64)
    flags = _binning.count_bins_weighted(labels, s, weights, lo, hi - lo, hi, m, transform,
                                         kernel_alpha, weighted)
    assert flags == (False, False, below, above)
    expected_weights = np.zeros(2 * m)
    np.add.at(expected_weights, labels * m + bins, weights)
    assert weighted.tolist() == expected_weights.tolist()
