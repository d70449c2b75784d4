"""The compiled exactly rounded sum and the from-scratch means that go through it.

The sum is compared with ``math.fsum`` (CPython's own implementation of
Shewchuk's partials, independent of the compiled one) bit for bit, sign of
zero included, and so are its errors: where ``math.fsum`` raises, the sum
raises the same exception.  The inputs are built to defeat a proven fast sum:
cancellation, sums exactly half way between two doubles, values near 1e308
whose partial sums overflow, subnormals, +-0.0, alternating signs, exponents
over the whole range and every length up to a few dozen (each remainder of the
sum's lanes).  Average precision is checked against scikit-learn's
``average_precision_score``, exact fractions and, bit for bit, the formula's
terms summed by ``math.fsum``; the expected AUC against the AUC of the points
doubled (its definition, by another path) and the O(n^2) definition in
fractions; the Brier score and the log loss against ``math.fsum`` of their
terms; the multi-class averages against ``math.fsum`` of theirs.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import brute_expected_auc, expected_parts

import hmeasure_stream as hs
from hmeasure_stream._engines._scratch import (
    average_precision_sorted_classes,
    average_precision_sum,
    exactly_rounded_sum,
    groups_sorted_classes,
)

MAX = float.fromhex("0x1.fffffffffffffp+1023")
ULP_OF_MAX = 2.0**971
TINY = 5e-324


def fsum_outcome(values):
    """``math.fsum``'s value as hex (nan as "nan"), or the type of what it raises."""
    try:
        value = math.fsum(values)
    except (OverflowError, ValueError) as error:
        return type(error)
    return "nan" if math.isnan(value) else value.hex()


def our_outcome(values):
    try:
        value = exactly_rounded_sum(np.array(values, dtype=np.float64))
    except (OverflowError, ValueError) as error:
        return type(error)
    return "nan" if math.isnan(value) else value.hex()


def assert_same_as_fsum(values):
    values = [float(v) for v in values]
    assert our_outcome(values) == fsum_outcome(values), values


# ---------------------------------------------------------------------------
# The sum against math.fsum


def test_cancellation_halfway_sums_and_zeros():
    cases = [
        [], [0.0], [-0.0], [-0.0, -0.0], [0.0, -0.0], [1.0, -1.0], [-1.0, 1.0, -0.0],
        [1e100, 1.0, -1e100], [1.0, 1e100, 1.0, -1e100], [2.0**60, 1.0, -(2.0**60)] * 7,
        # Exactly half way: round half even, decided by what lies below.
        [1.0, 2.0**-53], [1.0 + 2.0**-52, 2.0**-53], [1.0, 2.0**-53, 2.0**-106],
        [1.0, 2.0**-53, -(2.0**-106)], [1e16, 1.0, 1e-16], [-1.0, -(2.0**-53)],
        [0.1] * 10, [0.1] * 10 + [-1.0], [1e308, 1.0, -1e308],
    ]
    for values in cases:
        assert_same_as_fsum(values)


def test_large_magnitudes_and_overflow_of_partial_sums():
    cases = [
        [1e308, 1e308], [1e308, 1e308, -1e308], [1e308, -1e308, 1e308],
        [-1e308, -1e308, 1e308], [MAX, -MAX, MAX], [MAX, MAX * 2.0**-54],
        # The running sum rounds to MAX while the exact one passes MAX + ulp / 2:
        # math.fsum's partial overflows although no rounded prefix sum does.
        [MAX, 0.4 * ULP_OF_MAX, 0.4 * ULP_OF_MAX, -MAX],
        [MAX, 0.3 * ULP_OF_MAX, -MAX], [MAX, 0.6 * ULP_OF_MAX, -MAX],
        [2.0**1019] * 8, [2.0**1019] * 9 + [-(2.0**1022)], [2.0**1020] * 15,
        [1e308] * 17 + [-1e308] * 17, [1e308, -1e308] * 20,
        [8.98846567431158e307] * 3 + [-MAX],
    ]
    for values in cases:
        assert_same_as_fsum(values)
    with pytest.raises(OverflowError):
        exactly_rounded_sum(np.array([1e308, 1e308, -1e308]))


def test_subnormals_and_non_finite_values():
    rng = np.random.default_rng(3)
    cases = [
        [TINY] * 7, [TINY, -TINY], [TINY, 2.0**-1022, -(2.0**-1022)],
        list(rng.integers(-2**40, 2**40, size=50) * TINY),
        [*(rng.integers(-2**20, 2**20, size=33) * TINY), 2.0**-1000],
        [2.0**-1022 - TINY, TINY], [2.0**-900, -(2.0**-900), TINY],
        [math.inf], [math.inf, 1.0], [-math.inf, 1e308, 1e308], [math.inf, -math.inf],
        [math.nan, 1.0], [math.nan, math.inf], [1e308, 1e308, math.inf],
    ]
    for values in cases:
        assert_same_as_fsum(values)


def test_alternating_signs_random_exponents_and_every_length():
    rng = np.random.default_rng(7)
    for n in range(0, 70):
        for kind in range(5):
            if kind == 0:   # one sign, similar magnitudes: the proven sum decides
                values = rng.random(n)
            elif kind == 1:  # alternating signs, near-cancelling neighbours
                values = (-1.0) ** np.arange(n) * (1.0 + rng.integers(0, 8, n) * 2.0**-52)
            elif kind == 2:  # exponents over almost the whole range
                values = rng.normal(size=n) * 2.0 ** rng.integers(-1070, 1000, size=n)
            elif kind == 3:  # values and their negatives, shuffled, with a small rest
                half = rng.normal(size=n // 2) * 2.0 ** rng.integers(-60, 60, size=n // 2)
                values = rng.permutation(np.concatenate((half, -half, rng.random(n % 2))))
            else:            # large values cancelling around small ones
                values = rng.normal(size=n) * 1e300
                values[::3] = rng.random(values[::3].shape[0]) * 1e-300
            assert_same_as_fsum(values.tolist())


def test_long_sums():
    rng = np.random.default_rng(11)
    n = 200_003
    for values in (rng.random(n), rng.random(n) * 1e-310, -rng.exponential(size=n),
                   rng.normal(size=n) * 2.0 ** rng.integers(-60, 60, size=n),
                   np.concatenate((rng.random(n), -rng.random(n)))):
        assert exactly_rounded_sum(values).hex() == math.fsum(values.tolist()).hex()


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                max_size=80))
def test_any_doubles(values):
    assert_same_as_fsum(values)


@given(st.lists(st.sampled_from([1.0, -1.0, 2.0**-53, -(2.0**-53), 2.0**-106, 2.0**60,
                                 -(2.0**60), TINY, -TINY, 0.0, -0.0, 0.1, 1e308, -1e308,
                                 MAX, 0.4 * ULP_OF_MAX]), max_size=60))
def test_adversarial_mixtures(values):
    assert_same_as_fsum(values)


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=300),
       st.integers(min_value=-1074, max_value=1000))
def test_non_negative_values_of_one_scale(values, exponent):
    assert_same_as_fsum(np.ldexp(np.array(values), exponent).tolist())


# ---------------------------------------------------------------------------
# Average precision


def ap_cases(seed, n_cases):
    rng = np.random.default_rng(seed)
    for k in range(n_cases):
        n = int(rng.integers(2, 60))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = rng.integers(0, 6, n).astype(float) if k % 2 else rng.normal(size=n)
        w = None
        if k % 3:
            w = rng.exponential(size=n)
            w[rng.random(n) < 0.2] = 0.0
            w[:2] = 1.0
        yield y, s, w


def ap_by_fsum(y, s, w):
    """AP's formula with numpy's groups and math.fsum: over the distinct scores of positive
    weight from the highest down, (tp - tp before) * tp / (tp + fp), summed, over tp."""
    w = np.ones(len(y)) if w is None else w
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    keys, index = np.unique(s, return_inverse=True)
    order = slice(None, None, -1)
    tp = np.cumsum(np.bincount(index, weights=w * (y == 1), minlength=keys.size)[order])
    fp = np.cumsum(np.bincount(index, weights=w * (y == 0), minlength=keys.size)[order])
    added = np.diff(tp, prepend=0.0)
    return math.fsum((added * (tp / (tp + fp))).tolist()) / tp[-1]


def ap_in_fractions(y, s, w):
    weights = [Fraction(1)] * len(y) if w is None else [Fraction(v) for v in w.tolist()]
    total_pos = sum(wi for yi, wi in zip(y, weights, strict=True) if yi == 1)
    value = Fraction(0)
    for t in sorted(set(s.tolist()), reverse=True):
        above = [(yi, wi) for yi, si, wi in zip(y, s, weights, strict=True) if si >= t]
        added = sum(wi for yi, si, wi in zip(y, s, weights, strict=True) if si == t and yi)
        if added:
            value += added / total_pos * sum(wi for yi, wi in above if yi) / sum(
                wi for _, wi in above)
    return value


def test_average_precision_equals_scikit_learn_fractions_and_its_formula():
    for y, s, w in ap_cases(5, 120):
        value = hs.average_precision(y, s, sample_weight=w)
        assert value == pytest.approx(skm.average_precision_score(y, s, sample_weight=w),
                                      rel=1e-12)
        assert value == pytest.approx(float(ap_in_fractions(y, s, w)), rel=1e-13)
        # Unit weights: the groups are counts, so numpy's sums are the same floats.
        if w is None or np.all(w == np.round(w)):
            assert value == ap_by_fsum(y, s, w)


def test_average_precision_bit_for_bit_on_counts():
    rng = np.random.default_rng(2)
    for n in (2, 9, 1000, 30_001):
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = rng.integers(0, max(2, n // 7), n).astype(float)
        w = rng.integers(0, 4, n).astype(float)
        w[:2] = 1.0
        assert hs.average_precision(y, s) == ap_by_fsum(y, s, None)
        assert hs.average_precision(y, s, sample_weight=w) == ap_by_fsum(y, s, w)


def test_average_precision_sum_kernel_from_groups_and_from_sums():
    group_neg = np.array([0.0, 1.0, 0.0, 2.0, 0.5])
    group_pos = np.array([0.0, 2.0, 0.0, 1.0, 0.25])
    fp, tp = np.cumsum(group_neg), np.cumsum(group_pos)
    # By hand: groups 2, 4, 5 add class 1 weight 2, 1, 0.25 at precisions 2/3, 3/6, 3.25/6.75.
    expected = math.fsum([2 * (2 / 3), 1 * (3 / 6), 0.25 * (3.25 / 6.75)])
    assert average_precision_sum(group_neg, group_pos) == (expected, 3.25)
    assert average_precision_sum(fp, tp, True) == (expected, 3.25)
    counts = average_precision_sum(np.array([1, 0, 3]), np.array([2, 1, 0]))
    assert counts == (math.fsum([2 * (2 / 3), 1 * (3 / 4)]), 3.0)
    assert average_precision_sum(np.array([], dtype=float), np.array([], dtype=float)) == (
        0.0, 0.0)
    with pytest.raises(ValueError, match="pos has 1 entries but neg has 2"):
        average_precision_sum(np.array([1.0, 2.0]), np.array([1.0]))


def test_average_precision_from_sorted_classes_is_that_of_their_groups():
    rng = np.random.default_rng(6)
    for k in range(300):
        n_neg, n_pos = int(rng.integers(0, 40)), int(rng.integers(1, 40))
        values = 1 + int(rng.integers(1, 12)) * (k % 3) if k % 3 else 10**6
        neg = np.sort(rng.integers(0, values, n_neg).astype(float))
        pos = np.sort(rng.integers(0, values, n_pos).astype(float))
        assert average_precision_sorted_classes(neg, pos) == average_precision_sum(
            *groups_sorted_classes(neg, pos))


def test_average_precision_from_sorted_classes_across_its_blocks_and_stretches():
    # Class 1 scores cut in blocks of 4096 and each block in four stretches, run side
    # by side: runs of ties across the cuts, class 0 scores above, below and between
    # them, a class empty of ties.
    rng = np.random.default_rng(7)
    for k in range(80):
        n_neg, n_pos = int(rng.integers(0, 3000)), int(rng.integers(1, 3000 + 4000 * (k % 3)))
        values = (3, 40, 2000, 10**9)[k % 4]
        neg = np.sort(rng.integers(0, values, n_neg).astype(float))
        pos = np.sort(rng.integers(0, values, n_pos).astype(float) + (k % 5 == 0) * 0.5)
        assert average_precision_sorted_classes(neg, pos) == average_precision_sum(
            *groups_sorted_classes(neg, pos))


def test_average_precision_whose_terms_sum_half_way_between_two_doubles():
    # Terms 1 (tp 1, fp 0) and fl(2/3) (tp 2, fp 1), whose last bit is 2**-53: their
    # sum lies exactly half way between two doubles, where no error bound decides.
    assert (2 / 3).hex().endswith("5p-1")
    y, s = [1, 0, 1], [0.9, 0.6, 0.5]
    expected = math.fsum([1.0, 2 / 3]) / 2
    assert hs.average_precision(y, s) == expected
    assert hs.average_precision(y, s, sample_weight=[1.0, 1.0, 1.0]) == expected
    assert average_precision_sorted_classes(np.array([0.6]), np.array([0.5, 0.9])) == (
        math.fsum([1.0, 2 / 3]), 2.0)


# ---------------------------------------------------------------------------
# The expected AUC, the Brier score, the log loss, the multi-class averages


@pytest.mark.parametrize("seed", range(12))
def test_expected_auc_is_the_auc_of_the_points_doubled(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 3000))
    p = rng.random(n)
    p[rng.random(n) < 0.1] = 0.0
    p[:2] = [0.25, 0.75]
    s = None if seed % 3 == 0 else (np.round(rng.normal(size=n) + 2 * p, seed % 2))
    w = None if seed % 2 else rng.exponential(size=n)
    value = hs.expected_auc(p, s, sample_weight=w)
    # The definition by another path: each point as a class 1 part of weight w p and a
    # class 0 part of weight w (1 - p) at its score, through the weighted AUC of labels.
    labels, scores, weights = expected_parts(p, p if s is None else s, w)
    assert value == hs.auc(labels, scores, sample_weight=weights)
    if n <= 200:
        exact = brute_expected_auc(p, p if s is None else s, w)
        assert value == pytest.approx(float(exact), rel=1e-13)


def test_brier_score_and_log_loss_are_means_by_fsum():
    rng = np.random.default_rng(4)
    for n in (1, 7, 1000, 100_001):
        y = rng.integers(0, 2, n)
        p = rng.random(n)
        w = rng.exponential(size=n)
        w[0] = 1.0
        squares = (y - p) ** 2
        assert hs.brier_score(y, p) == math.fsum(squares.tolist()) / n
        assert hs.brier_score(y, p, sample_weight=w) == (
            math.fsum((w * squares).tolist()) / math.fsum(w.tolist()))
        assert hs.brier_score(y, p) == pytest.approx(skm.brier_score_loss(y, p), rel=1e-12)
        own = np.clip(np.where(y == 1, p, 1 - p), np.finfo(float).eps,
                      1 - np.finfo(float).eps)
        assert hs.log_loss(y, p) == math.fsum((-np.log(own)).tolist()) / n


def test_multiclass_averages_are_fsum_means():
    rng = np.random.default_rng(9)
    n, c = 400, 5
    y = rng.integers(0, c, n)
    y[:c] = np.arange(c)
    scores = rng.random((n, c))
    scores /= scores.sum(axis=1, keepdims=True)
    per_class = hs.multiclass_auc(y, scores, average=None)
    mass = np.bincount(y, minlength=c).astype(float)
    assert hs.multiclass_auc(y, scores, average="macro") == math.fsum(per_class.tolist()) / c
    assert hs.multiclass_auc(y, scores, average="weighted") == (
        math.fsum((per_class * mass).tolist()) / math.fsum(mass.tolist()))
