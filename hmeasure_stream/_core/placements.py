"""DeLong's placement values, on checked arrays: the variance, the covariance and the
paired test of two scores on the same points.

Private; shared by :mod:`hmeasure_stream.uncertainty` (``auc_variance``,
``auc_covariance``, ``auc_test``) and the windows' ``"auc_diff_p"``, which is
``auc_test`` on the window's rows.  The placement of a class 1 point is the
share of the class 0 points it scores above, that of a class 0 point the
share of the class 1 points scoring above it, ties counting one half; both
are counted by one compiled merge of the two classes' sorted scores
(``_scratch.placements``).

E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the areas under
two or more correlated receiver operating characteristic curves: a nonparametric
approach", Biometrics, 1988.
"""

from __future__ import annotations

import math
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from hmeasure_stream._core.delong import check_class_sizes
from hmeasure_stream._core.groups import groups_auc
from hmeasure_stream._core.report import exact_sum
from hmeasure_stream._engines import _scratch
from hmeasure_stream._validation import FloatArray

__all__ = ["PairedDifference", "centred_unit", "normal_pvalue", "paired_difference",
           "sum_squares_over", "weighted_placements", "weighted_sum_squares",
           "weighted_variance", "z_statistic"]

# Exact placements and counts.
_Ints = NDArray[np.int64]


def placement_numerators(neg: FloatArray, pos: FloatArray, in_input_order: bool = False
                          ) -> tuple[_Ints, _Ints]:
    """Twice the unnormalised placements, as exact int64, for unit weights.

    For each class 1 point, 2 #{class 0 below} + #{class 0 equal}; for each class 0
    point, 2 #{class 1 above} + #{class 1 equal}.  ``neg`` and ``pos`` are sorted
    ascending, and so are the placements.  With ``in_input_order`` they need
    not be: each class is sorted first and the placements are put back in the
    order of ``neg`` and ``pos`` (for pairing two classifiers point by point).
    """
    if in_input_order:
        neg_order = np.argsort(neg)
        pos_order = np.argsort(pos)
        neg, pos = neg[neg_order], pos[pos_order]
    below, at_or_below = _scratch.placements(pos, neg)
    pos_place = below + at_or_below
    below, at_or_below = _scratch.placements(neg, pos)
    neg_place = 2 * pos.shape[0] - (below + at_or_below)
    if in_input_order:
        neg_place[neg_order] = neg_place.copy()
        pos_place[pos_order] = pos_place.copy()
    return neg_place, pos_place


def centred_unit(neg: FloatArray, pos: FloatArray, in_input_order: bool = False
                  ) -> tuple[_Ints, _Ints, int]:
    """Centred placements for unit weights, exactly, and twice the Mann-Whitney U.

    Returns (f, e, twice_u): with m = #class 1, n = #class 0, the placements
    X_i = a_i / 2n (class 1) and Y_j = b_j / 2m (class 0) and AUC = 2U / 2mn,

        X_i - AUC = e_i / 2mn,  e_i = m a_i - 2U,
        Y_j - AUC = f_j / 2mn,  f_j = n b_j - 2U,

    all integers (exact in int64 below 2**31 points).  ``neg`` and ``pos`` as
    for ``placement_numerators``.
    """
    neg_num, pos_num = placement_numerators(neg, pos, in_input_order)
    twice_u = int(pos_num.sum())
    e = pos.shape[0] * pos_num - twice_u
    f = neg.shape[0] * neg_num - twice_u
    return f, e, twice_u


def sum_squares_over(f: _Ints, e: _Ints, n: int, m: int, f_other: _Ints | None = None,
                      e_other: _Ints | None = None) -> float:
    """(sum f^2 / (n (n - 1)) + sum e^2 / (m (m - 1))) / (2mn)^2 for exact integers f, e;
    with ``f_other``, ``e_other`` the same of the products f f_other and e e_other
    (DeLong's covariance of two classifiers).

    The integers are converted to float64 (exact while |f|, |e| <= 2mn < 2**53)
    and multiplied and summed there: squares are non-negative terms, nothing
    cancels, a relative error of a few ulps (products may cancel).
    """
    ef, ee = f.astype(np.float64), e.astype(np.float64)
    of = ef if f_other is None else f_other.astype(np.float64)
    oe = ee if e_other is None else e_other.astype(np.float64)
    total = np.dot(ee, oe) / (m * (m - 1.0)) + np.dot(ef, of) / (n * (n - 1.0))
    return float(total / (2.0 * m * n) ** 2)


def weighted_placements(scores: FloatArray, other_scores: FloatArray, other_weights: FloatArray,
                         other_total: float) -> FloatArray:
    """Weighted placement of each point (sorted ``scores``) against the other class.

    For a point of score s, (W[< s] + W[<= s]) / (2 W) with W the weights of
    the other class (sorted ``other_scores``, total ``other_total``): the
    share of the other class below s, ties one half.
    """
    below, at_or_below = _scratch.placements(scores, other_scores, other_weights)
    return cast(FloatArray, (below + at_or_below) / (2.0 * other_total))


def weighted_sum_squares(values: FloatArray, weights: FloatArray, total: float) -> float:
    """sum w (v - mean_w)^2, centred in two passes with compensated means.

    The second pass removes the rounding of the first mean; both weighted
    sums are compensated (``_scratch.dot_compensated``), the final sum of
    non-negative terms is not.
    """
    centred = values - _scratch.dot_compensated(weights, values) / total
    centred -= _scratch.dot_compensated(weights, centred) / total
    return float(np.dot(weights, centred * centred))


def weighted_variance(neg: FloatArray, w_neg: FloatArray, pos: FloatArray, w_pos: FloatArray,
                       total_neg: float, total_pos: float) -> float:
    """Weighted DeLong variance (weights as frequencies, see auc_variance's Notes).

    Each class sorted ascending with its weights.  A class 0 placement is 1
    minus its share of class 1 below it (ties one half); the share has the
    same spread and is centred directly.
    """
    pos_place = weighted_placements(pos, neg, w_neg, total_neg)
    neg_share = weighted_placements(neg, pos, w_pos, total_pos)
    s10 = weighted_sum_squares(pos_place, w_pos, total_pos) / (total_pos - 1.0)
    s01 = weighted_sum_squares(neg_share, w_neg, total_neg) / (total_neg - 1.0)
    return s10 / total_pos + s01 / total_neg


class PairedDifference(NamedTuple):
    """DeLong's paired comparison of two scores on the same points: A1 - A2 and its
    standard error, and the statistic Z of the test (0 or +-inf when the error is 0)."""

    difference: float
    std_error: float
    statistic: float


def paired_difference(is_pos: NDArray[np.uint8], score1: FloatArray, score2: FloatArray,
                      weights: FloatArray | None, metric: str = "DeLong's test"
                      ) -> PairedDifference:
    """DeLong's paired difference of the AUCs of ``score1`` and ``score2`` on the same
    checked points (labels 0/1 as ``is_pos``, weights as frequencies or None), the
    points in any order.  ValueError (naming ``metric``) when a class has fewer than
    two points (a total weight <= 1 with weights).

    The variance of A1 - A2 is (1, -1) S (1, -1)' for DeLong's covariance matrix
    S = S10 / m + S01 / n: the variance of the differences of the two scores'
    placements.  Unit weights: the placements' numerators are exact integers
    (``centred_unit``) and A1 - A2 = (2U1 - 2U2) / 2mn exactly rounded; with
    weights, the weighted placements of ``weighted_variance`` and each AUC as
    :func:`~hmeasure_stream.auc` computes it.
    """
    pos = is_pos.view(np.bool_)
    neg = ~pos
    if weights is not None and np.all(weights == 1.0):
        weights = None  # (unit weights: the exact integers)
    if weights is None:
        n, m = int(np.count_nonzero(neg)), int(np.count_nonzero(pos))
        check_class_sizes(n, m, metric, weighted=False)
        f1, e1, twice_u1 = centred_unit(score1[neg], score1[pos], in_input_order=True)
        f2, e2, twice_u2 = centred_unit(score2[neg], score2[pos], in_input_order=True)
        # (the differences of exact integers: exact)
        std_error = math.sqrt(sum_squares_over(f1 - f2, e1 - e2, n, m))
        difference = (twice_u1 - twice_u2) / (2 * m * n)
    else:
        w_neg, w_pos = weights[neg], weights[pos]
        total_neg, total_pos = exact_sum(w_neg), exact_sum(w_pos)
        check_class_sizes(total_neg, total_pos, metric, weighted=True)
        pos_places, neg_shares, aucs = [], [], []
        for scores in (score1, score2):
            pos_place, neg_share, auc = _weighted_in_order(scores[neg], w_neg, scores[pos],
                                                           w_pos, total_neg, total_pos)
            pos_places.append(pos_place)
            neg_shares.append(neg_share)
            aucs.append(auc)
        s10 = weighted_sum_squares(pos_places[0] - pos_places[1], w_pos, total_pos)
        s01 = weighted_sum_squares(neg_shares[0] - neg_shares[1], w_neg, total_neg)
        std_error = math.sqrt(s10 / (total_pos - 1.0) / total_pos
                              + s01 / (total_neg - 1.0) / total_neg)
        difference = aucs[0] - aucs[1]
    return PairedDifference(difference, std_error, z_statistic(difference, std_error))


def z_statistic(difference: float, std_error: float) -> float:
    """Z = difference / std_error; when the error is 0, 0 for no difference and +-inf
    otherwise, as pROC."""
    if std_error > 0:
        return difference / std_error
    if difference == 0:
        return 0.0
    return math.copysign(math.inf, difference)


def _weighted_in_order(neg: FloatArray, w_neg: FloatArray, pos: FloatArray, w_pos: FloatArray,
                       total_neg: float, total_pos: float
                       ) -> tuple[FloatArray, FloatArray, float]:
    """(the weighted placements of the class 1 points, the shares of the class 0 points,
    in the order given; the weighted AUC as ``auc`` computes it)."""
    neg_order, pos_order = np.argsort(neg, kind="stable"), np.argsort(pos, kind="stable")
    neg_sorted, pos_sorted = neg[neg_order], pos[pos_order]
    w_neg_sorted, w_pos_sorted = w_neg[neg_order], w_pos[pos_order]
    pos_place = np.empty_like(pos)
    neg_share = np.empty_like(neg)
    pos_place[pos_order] = weighted_placements(pos_sorted, neg_sorted, w_neg_sorted, total_neg)
    neg_share[neg_order] = weighted_placements(neg_sorted, pos_sorted, w_pos_sorted, total_pos)
    auc = groups_auc(*_scratch.groups_sorted_weighted(neg_sorted, w_neg_sorted, pos_sorted,
                                                      w_pos_sorted))
    return pos_place, neg_share, float(auc)


def normal_pvalue(statistic: float, alternative: str = "two-sided") -> float:
    """The p-value of a standard normal statistic: ``2 F(-|Z|)``, ``F(Z)`` ("less") or
    ``F(-Z)`` ("greater")."""
    from scipy import special  # (imported on first use: scipy.special slows start-up)

    if alternative == "two-sided":
        return float(2.0 * special.ndtr(-abs(statistic)))
    return float(special.ndtr(statistic if alternative == "less" else -statistic))
