from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from reference_impl import brute_auc
from sklearn.metrics import roc_auc_score
from strategies import labelled_scores

from hmeasure_stream import InvertedScoresWarning, auc


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(labelled_scores())
def test_auc_equals_exact_mann_whitney(data):
    y, s = data
    # Without weights the result is the correctly rounded exact fraction.
    assert auc(y, s) == float(brute_auc(list(y), list(s)))


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(labelled_scores(weighted=True))
def test_weighted_auc_equals_exact_weighted_mann_whitney(data):
    y, s, w = data
    assert auc(y, s, sample_weight=w) == pytest.approx(
        float(brute_auc(list(y), list(s), list(w))), rel=1e-13, abs=1e-15
    )


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(labelled_scores(weighted=True, max_size=60))
def test_auc_matches_scikit_learn(data):
    y, s, w = data
    assert auc(y, s) == pytest.approx(roc_auc_score(y, s), rel=1e-13)
    assert auc(y, s, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12
    )


@pytest.mark.parametrize("n", [1_000, 200_000])
@pytest.mark.parametrize("decimals", [None, 2])
def test_auc_large_inputs_match_scikit_learn(rng, n, decimals):
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.7 * y
    if decimals is not None:
        s = np.round(s, decimals)
    w = rng.exponential(size=n)
    assert auc(y, s) == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert auc(y, s, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-11
    )


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_auc_heavy_imbalance(rng):
    n = 50_000
    s = rng.normal(size=n)
    y = np.zeros(n, dtype=int)
    y[np.argsort(s)[-3]] = 1  # one class 1 point, third-highest score
    assert auc(y, s) == (n - 3) / (n - 1)
    y2 = 1 - y
    assert auc(y2, s) == pytest.approx(roc_auc_score(y2, s), rel=1e-13)
    assert auc(y2, s) == 2 / (n - 1)


@pytest.mark.parametrize(
    ("y", "s", "expected"),
    [
        ([0, 1], [0.0, 1.0], 1.0),
        ([0, 1], [1.0, 0.0], 0.0),
        ([0, 1], [0.5, 0.5], 0.5),
        ([1, 0], [3, -3], 1.0),
    ],
)
def test_auc_two_points(y, s, expected):
    if expected < 0.5:  # the scores rank class 0 higher: said, not flipped
        with pytest.warns(InvertedScoresWarning, match="scores rank class 0 above class 1"):
            assert auc(y, s) == expected
    else:
        assert auc(y, s) == expected


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_auc_is_exact_beyond_float_rounding_of_counts():
    # 2U / (2 n0 n1) with 2U accumulated exactly: compare with the fraction.
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 3001)
    s = rng.integers(0, 40, 3001)
    n0, n1 = int((y == 0).sum()), int((y == 1).sum())
    twice_u = sum(
        int(np.sum(s[y == 1] > v)) * 2 + int(np.sum(s[y == 1] == v)) for v in s[y == 0]
    )
    assert auc(y, s) == float(Fraction(twice_u, 2 * n0 * n1))


LABEL_DTYPES = [bool, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                np.uint32, np.uint64, np.float16, np.float32, np.float64, np.longdouble]
SCORE_DTYPES = [np.int8, np.int32, np.int64, np.uint16, np.uint64, np.float16, np.float32,
                np.float64, np.longdouble]


@pytest.mark.parametrize("label_dtype", LABEL_DTYPES)
@pytest.mark.parametrize("score_dtype", SCORE_DTYPES)
def test_auc_accepts_every_numeric_dtype(label_dtype, score_dtype):
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    s = np.array([3, 7, 7, 9, 1, 2, 5, 4])
    expected = float(brute_auc(list(y), list(s)))
    assert auc(y.astype(label_dtype), s.astype(score_dtype)) == expected
    assert auc(y.astype(label_dtype), s.astype(score_dtype), sample_weight=np.ones(8)) == (
        pytest.approx(expected, rel=1e-15)
    )


def test_auc_accepts_lists_series_and_noncontiguous_arrays():
    y = [0, 1, 0, 1, 1, 0]
    s = [0.2, 0.9, 0.4, 0.3, 0.8, 0.1]
    expected = float(brute_auc(y, s))
    assert auc(y, s) == expected
    assert auc(pd.Series(y, index=list("abcdef")), pd.Series(s)) == expected
    assert auc(pd.Series(y, dtype="Int64"), pd.Series(s, dtype="Float64")) == expected
    assert auc(pd.Series(y).astype(bool), s) == expected
    wide_y = np.repeat(np.array(y), 2)[::2]
    wide_s = np.repeat(np.array(s), 3)[::3]
    assert not wide_y.flags.c_contiguous
    assert auc(wide_y, wide_s) == expected
    read_only = np.array(s)
    read_only.setflags(write=False)
    assert auc(np.array(y), read_only) == expected


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("label_dtype", [np.int8, np.int64, np.float32, np.float64])
def test_auc_signed_labels_equal_zero_one_labels(rng, label_dtype):
    # Labels -1/1 (scikit-learn's convention) are read as 0/1.
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 9, 300) / 4
    expected = float(brute_auc(list(y), list(s)))
    assert auc((2 * y - 1).astype(label_dtype), s) == expected
    assert auc(y.astype(label_dtype), s) == expected


SPECIAL_SCORES = [-1e308, -2.5, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1.0 + 2**-52, 1e308]


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("seed", range(5))
def test_auc_special_scores_and_ties_exact(seed):
    # Zeros of both signs tie; extreme magnitudes keep their order; runs of
    # ties longer than the merge's stretches.  Against the Fraction count.
    rng = np.random.default_rng(seed)
    n = 240
    s = rng.choice(SPECIAL_SCORES, n)
    y = rng.integers(0, 2, n).astype(bool)
    assert auc(y, s) == float(brute_auc(list(y.astype(int)), list(s)))
    # float32: its own extremes (1e308 is not a float32; +-5e-324 become +-0.0).
    s32 = np.clip(s, -3.0e38, 3.0e38).astype(np.float32)
    assert auc(y, s32) == float(brute_auc(list(y.astype(int)), [float(v) for v in s32]))


@pytest.mark.parametrize("y", [[1, 1, 1], [0, 0], [True, True], [-1, -1]])
def test_auc_refuses_one_class(y):
    with pytest.raises(ValueError, match="only one class is present"):
        auc(y, np.arange(len(y), dtype=float))


def test_auc_huge_integer_scores_keep_their_order():
    # 2**60 + 1 and 2**60 are the same float64; the ranks keep them apart.
    base = 2**60
    s = np.array([base, base + 1, base + 2, base + 3], dtype=np.int64)
    y = np.array([0, 1, 0, 1])
    assert auc(y, s) == 0.75
    assert float(s[0]) == float(s[1])
    u = np.array([2**64 - 1, 2**64 - 2], dtype=np.uint64)
    assert auc([1, 0], u) == 1.0
    assert auc([1, 0], np.array([-(2**62), -(2**62) - 1], dtype=np.int64)) == 1.0


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_auc_extended_precision_scores_keep_their_order():
    # Where longdouble is wider than float64 these scores collapse to one
    # float64 value; the ranks keep them apart.  The expectation is computed
    # in longdouble, so the check holds on every platform.
    one = np.longdouble(1)
    eps = np.finfo(np.longdouble).eps
    s = np.array([one, one + eps, one + 2 * eps], dtype=np.longdouble)
    for y in ([0, 1, 0], [0, 0, 1], [1, 0, 0]):
        assert auc(y, s) == float(brute_auc(y, list(s)))
    assert auc([0, 0, 1], s) == 1.0


def test_auc_zero_weights_drop_points():
    y = np.array([0, 1, 0, 1, 0])
    s = np.array([0.1, 0.9, 0.95, 0.3, 0.2])
    w = np.array([1.0, 1.0, 0.0, 1.0, 1.0])
    keep = w > 0
    assert auc(y, s, sample_weight=w) == auc(y[keep], s[keep])


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("kind", ["ties", "continuous", "float32"])
def test_auc_long_classes_exact(rng, kind):
    # Classes long enough for the radix sort; 2U counted by numpy's searchsorted.
    n = 300_000
    y = rng.integers(0, 2, n)
    if kind == "ties":
        s = rng.choice([-1e300, -0.0, 0.0, 5e-324, 0.25, 1e300], n)
    else:
        s = rng.normal(size=n) + 0.3 * y
    if kind == "float32":
        s = s.astype(np.float32)
    neg = np.sort(s[y == 0].astype(np.float64))
    pos = np.sort(s[y == 1].astype(np.float64))
    above = pos.shape[0] - np.searchsorted(pos, neg, side="right")
    equal = np.searchsorted(pos, neg, side="right") - np.searchsorted(pos, neg, side="left")
    twice_u = 2 * int(above.sum()) + int(equal.sum())
    assert auc(y, s) == float(Fraction(twice_u, 2 * neg.shape[0] * pos.shape[0]))
    assert auc(y.astype(bool), s) == auc(2 * y - 1, s) == auc(y, s)
