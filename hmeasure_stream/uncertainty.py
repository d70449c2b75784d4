"""How sure is the AUC: DeLong's variance, confidence intervals and tests.

From-scratch functions on whole arrays, O(n log n) (the bootstrap O(n_boot n)):

- :func:`auc_variance` -- DeLong's estimate of the variance of the AUC;
- :func:`auc_ci` -- a confidence interval for the AUC, DeLong's or a
  stratified bootstrap;
- :func:`auc_test` -- DeLong's test for the difference of two AUCs, paired
  (two classifiers scored on the same points) or unpaired, two- or one-sided;
- :func:`auc_covariance` -- DeLong's covariance of two paired AUCs;
- :func:`bootstrap_ci` -- a stratified bootstrap interval of any statistic
  (a partial AUC, H, average precision).

Both intervals are :class:`ConfidenceInterval` pairs ``(low, high)``,
as scipy's, with the statistic of the data as ``ci.estimate``.

Everything rests on the placement values: the placement of a class 1 point is
the share of the class 0 points it scores above, the placement of a class 0
point the share of the class 1 points scoring above it, ties counting one half.
Both are counted by one compiled merge of the two classes' sorted scores
(``_scratch.placements``).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterator, Sized
from typing import Any, Literal, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from hmeasure_stream._core.delong import AUCInterval, BootstrapInterval, ConfidenceInterval
from hmeasure_stream._core.delong import check_class_sizes as _check_class_sizes
from hmeasure_stream._core.delong import delong_interval as _delong_interval
from hmeasure_stream._core.groups import exact_sum as _exact_sum
from hmeasure_stream._core.groups import groups_auc as _groups_auc
from hmeasure_stream._core.placements import centred_unit as _centred_unit
from hmeasure_stream._core.placements import normal_pvalue as _normal_pvalue
from hmeasure_stream._core.placements import paired_difference as _paired_difference
from hmeasure_stream._core.placements import sum_squares_over as _sum_squares_over
from hmeasure_stream._core.placements import weighted_variance as _weighted_variance
from hmeasure_stream._core.placements import z_statistic as _z_statistic
from hmeasure_stream._engines import _scratch
from hmeasure_stream._validation import (
    EXACT_COUNT_LIMIT,
    FloatArray,
    InvertedScoresWarning,
    Label,
    RandomState,
    as_1d,
    check_both_classes,
    check_integer,
    check_labels,
    check_option,
    check_probability_level,
    check_random_state,
    check_same_length,
    check_scores,
    check_weights,
    exact_path,
    labels_as_is_pos,
    raise_bad_score,
    sorted_classes,
    split_classes,
    warn_if_inverted,
    weighted_classes,
    with_pos_label,
)
from hmeasure_stream.typing import Labels, Scores, Weights

# Exact placements and counts.
_Ints = NDArray[np.int64]

__all__ = ["AUCInterval", "AUCTestResult", "BootstrapInterval", "ConfidenceInterval", "auc_ci",
           "auc_covariance", "auc_test", "auc_variance", "bootstrap_ci"]

# Elements of one bootstrap batch (per temporary array): bounds the memory.
_BOOT_BATCH_ELEMENTS = 2**21
# Point indices of one batch of bootstrap_ci's resamples (2 MB of int64 per array).
_BOOT_INDEX_ELEMENTS = 2**18


class AUCTestResult(NamedTuple):
    """Result of DeLong's test, returned by :func:`auc_test`.

    A named tuple ``(statistic, pvalue, difference, std_error, df)``, as
    scipy's test results: the Z statistic of the difference of two AUCs, its
    p-value, the difference, its standard error and the degrees of freedom.

    Attributes
    ----------
    statistic : float
        Z = difference / std_error, standard normal under the null hypothesis
        of equal AUCs.
    pvalue : float
        The p-value of the alternative: ``P(abs(N(0, 1)) >= abs(Z))`` for
        "two-sided", ``P(N(0, 1) <= Z)`` for "less", ``P(N(0, 1) >= Z)`` for
        "greater".
    difference : float
        AUC of ``y_score1`` minus AUC of ``y_score2``.
    std_error : float
        DeLong's standard error of the difference.
    df : float
        Degrees of freedom of the Student t distribution of Z under the null
        hypothesis: ``inf`` (the standard normal) for the paired test, Welch
        and Satterthwaite's for the unpaired one (``inf`` when both
        variances are 0).

    See Also
    --------
    auc_test : computes it, paired or unpaired.

    Examples
    --------
    >>> from hmeasure_stream import auc_test; y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> result = auc_test(y, [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8],
    ...                   [0.3, 0.1, 0.2, 0.6, 0.4, 0.9, 0.5, 0.8])
    >>> result.difference, round(result.statistic, 4), round(result.pvalue, 4)
    (0.1875, 1.3887, 0.1649)
    """

    statistic: float
    pvalue: float
    difference: float
    std_error: float
    df: float


# ---------------------------------------------------------------------------
# Variance


def _variance_and_auc(y_true: Labels, y_score: Scores, sample_weight: Weights | None,
                      metric: str, with_auc: bool, label_name: str = "y_true",
                      score_name: str = "y_score") -> tuple[float, float | None]:
    """DeLong's variance of validated input and (``with_auc``) the AUC, else None.

    ``label_name`` and ``score_name`` are the arguments the messages name.
    """
    if exact_path(y_score, sample_weight):
        neg, pos = sorted_classes(y_true, y_score, metric, score_name, label_name)
        n, m = neg.shape[0], pos.shape[0]
        _check_class_sizes(n, m, metric, weighted=False, name=label_name)
        f, e, twice_u = _centred_unit(neg, pos)
        return _sum_squares_over(f, e, n, m), twice_u / (2 * m * n)
    # Frequency weights: their scale is the sample size, so they stay as given.
    neg, w_neg, pos, w_pos = weighted_classes(y_true, y_score, sample_weight, metric,
                                              normalize=False)
    total_neg, total_pos = _exact_sum(w_neg), _exact_sum(w_pos)
    _check_class_sizes(total_neg, total_pos, metric, weighted=True)
    variance = _weighted_variance(neg, w_neg, pos, w_pos, total_neg, total_pos)
    if not with_auc:
        return variance, None
    # The AUC as auc() computes it (the same groups and compensated sums).
    return variance, _groups_auc(*_scratch.groups_sorted_weighted(neg, w_neg, pos, w_pos))


def auc_variance(y_true: Labels, y_score: Scores, *, sample_weight: Weights | None = None,
                 pos_label: Label = None) -> float:
    """DeLong's estimate of the variance of the AUC.

    The variance of the empirical AUC (the Mann-Whitney statistic) estimated
    from the placement values of the points, as in DeLong, DeLong and
    Clarke-Pearson.  Equal to R pROC's ``var(roc(...), method="delong")``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers (any numeric dtype).
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point, read as a frequency: a point
        of weight k counts as k copies of the point (see Notes).
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    float
        The estimated variance of the AUC, >= 0.

    Raises
    ------
    ValueError
        If the input is not 1-d, is empty, the lengths differ, a label is not
        0/1, a score or weight is not finite, a weight is negative, or a class
        has fewer than two points (total weight <= 1 with ``sample_weight``):
        the sample variances of the placements are then undefined (pROC
        returns NaN).

    See Also
    --------
    auc_ci : confidence interval from this variance.
    auc_test : DeLong's test of two correlated AUCs.
    auc : the AUC itself.

    Notes
    -----
    With m class 1 points of scores x_i and n class 0 points of scores y_j,
    psi(x, y) = 1 if x > y, 1/2 if x = y, else 0, the AUC is
    A = sum_ij psi(x_i, y_j) / (m n) and the placements are

    - V10_i = (1/n) sum_j psi(x_i, y_j) for each class 1 point,
    - V01_j = (1/m) sum_i psi(x_i, y_j) for each class 0 point;

    both have mean A.  DeLong's variance is S10 / m + S01 / n with the sample
    variances S10 = sum_i (V10_i - A)^2 / (m - 1) and
    S01 = sum_j (V01_j - A)^2 / (n - 1).

    **Weights.**  With weights u_i (class 1) and v_j (class 0), totals
    W1 = sum u_i and W0 = sum v_j, the weighted placements are
    V10_i = (1/W0) sum_j v_j psi(x_i, y_j) and
    V01_j = (1/W1) sum_i u_i psi(x_i, y_j), the weighted AUC is
    A = sum_ij u_i v_j psi(x_i, y_j) / (W1 W0) (the weighted mean of either
    placement, and :func:`auc` with ``sample_weight``), and the variance is
    S10 / W1 + S01 / W0 with frequency-weighted sample variances
    S10 = sum_i u_i (V10_i - A)^2 / (W1 - 1) and
    S01 = sum_j v_j (V01_j - A)^2 / (W0 - 1).  Integer weights therefore give
    exactly the variance of the data with each point repeated that many times,
    a weight of 0 removes the point, and unit weights give DeLong's estimate.
    Unlike the AUC, the variance is not invariant to scaling all weights: the
    total weight is the sample size.

    **Computation.**  Each class is sorted and the placements are counted by
    one compiled merge of the two classes: O(n log n) time, O(n) memory.  For
    unit weights every placement minus the AUC is an exact integer numerator
    over 2mn; the numerators are squared and summed in float64 (exact
    numerators, non-negative terms: no cancellation, a relative error of a
    few ulps).  With weights the placements are centred in two passes, each
    weighted mean a compensated sum, so the second pass removes the first
    mean's rounding.

    References
    ----------
    .. [1] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
       areas under two or more correlated receiver operating characteristic
       curves: a nonparametric approach", Biometrics 44, 1988.
    .. [2] X. Robin et al., "pROC: an open-source package for R and S+ to
       analyze and compare ROC curves", BMC Bioinformatics 12, 2011.

    Examples
    --------
    >>> from hmeasure_stream import auc_variance
    >>> auc_variance([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.125
    >>> round(auc_variance([0, 0, 0, 1, 1, 1], [1, 2, 3, 2, 3, 4]), 6)  # ties count one half
    0.04321
    >>> round(auc_variance([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[2, 1, 1, 3]), 6)
    0.013889
    """
    y_true = with_pos_label(y_true, pos_label)
    return _variance_and_auc(y_true, y_score, sample_weight, "DeLong's variance", False)[0]


# ---------------------------------------------------------------------------
# Confidence interval


def _resampled_counts(groups: _Ints, k: int, size: int, rng: np.random.Generator
                      ) -> _Ints:
    """(size, k) counts: per resample, how many of len(groups) draws with
    replacement from the points fall on each of the k distinct scores.

    ``groups`` holds each point's distinct-score index.  Few distinct scores
    (many ties): one multinomial draw per resample over the class's distinct
    scores, O(distinct) each.  Otherwise: the drawn point indices, counted
    with one ``bincount`` for the whole batch, O(points) each.
    """
    n_points = groups.shape[0]
    present, counts = np.unique(groups, return_counts=True)
    if 2 * present.shape[0] <= n_points:
        out = np.zeros((size, k), dtype=np.int64)
        out[:, present] = rng.multinomial(n_points, counts / n_points, size=size)
        return out
    drawn = groups[rng.integers(0, n_points, size=(size, n_points))]
    drawn += (np.arange(size, dtype=np.int64) * k)[:, None]
    return np.bincount(drawn.ravel(), minlength=size * k).reshape(size, k)


def _bootstrap_aucs(neg: FloatArray, pos: FloatArray, n_boot: int,
                    rng: np.random.Generator) -> FloatArray:
    """AUCs of n_boot stratified bootstrap resamples, in batches of whole resamples.

    A resample draws n class 0 and m class 1 points with replacement, each class
    separately.  Its AUC depends only on how many of the draws fall on each
    distinct score: with P_k, N_k the class 1 and class 0 counts at the k-th
    distinct score, 2U = sum_k P_k (2 N_{<k} + N_k), one cumulative sum per
    resample.  Exact integers; no Python loop over resamples.
    """
    n, m = neg.shape[0], pos.shape[0]
    values, inverse = np.unique(np.concatenate((neg, pos)), return_inverse=True)
    k = values.shape[0]
    neg_groups, pos_groups = inverse[:n].astype(np.int64), inverse[n:].astype(np.int64)
    batch = max(1, _BOOT_BATCH_ELEMENTS // max(k, n, m))
    aucs = np.empty(n_boot)
    for start in range(0, n_boot, batch):
        size = min(batch, n_boot - start)
        neg_counts = _resampled_counts(neg_groups, k, size, rng)
        pos_counts = _resampled_counts(pos_groups, k, size, rng)
        # 2 #{class 0 below} + #{class 0 equal} at each distinct score.
        twice_below = 2 * np.cumsum(neg_counts, axis=1) - neg_counts
        twice_u = np.einsum("ij,ij->i", pos_counts, twice_below)
        aucs[start:start + size] = twice_u / (2.0 * m * n)
    return aucs


def auc_ci(
    y_true: Labels,
    y_score: Scores,
    *,
    level: float = 0.95,
    method: Literal["delong", "bootstrap"] = "delong",
    n_boot: int = 2000,
    random_state: RandomState = None,
    sample_weight: Weights | None = None,
    pos_label: Label = None,
) -> ConfidenceInterval:
    """Confidence interval for the AUC: DeLong's or a stratified bootstrap.

    ``method="delong"`` is AUC -+ z sqrt(V), with V from :func:`auc_variance`
    and z the standard normal quantile of (1 + level) / 2, clipped to [0, 1];
    equal to R pROC's ``ci.auc(roc, method="delong")``.
    ``method="bootstrap"`` is the percentile interval of the AUCs of
    ``n_boot`` stratified resamples, as pROC's ``ci.auc(roc,
    method="bootstrap")``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    level : float, default=0.95
        Confidence level, in (0, 1).
    method : {"delong", "bootstrap"}, default="delong"
        DeLong's asymptotic normal interval, or the bootstrap percentile
        interval.
    n_boot : int, default=2000
        Number of bootstrap resamples (``method="bootstrap"`` only).
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the bootstrap resampling (``method="bootstrap"`` only);
        passed to :func:`numpy.random.default_rng`.
    sample_weight : array-like of shape (n,), optional
        Frequency weight of each point, as in :func:`auc_variance`
        (``method="delong"`` only).
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    ConfidenceInterval
        Named tuple ``(low, high)`` of the interval's ends, as scipy's
        ``ConfidenceInterval``, with the AUC of the data as ``estimate``, for
        both methods.  pROC's ``ci.auc`` is ``(low, auc, high)`` (the median
        of the resampled AUCs in the middle of a bootstrap interval): its
        order unpacked here, ``low, auc, high = auc_ci(...)``, is a
        ValueError, not a swap.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc_variance` (the bootstrap needs
        one point of each class only); if ``level`` is not in (0, 1),
        ``method`` is unknown, ``n_boot`` is not a positive integer,
        ``random_state`` is not a valid seed (both checked for either method),
        or ``sample_weight`` is given with ``method="bootstrap"``.

    Warns
    -----
    InvertedScoresWarning
        If the AUC is below 0.5 (the scores rank class 0 above class 1); the
        value is not flipped.  Silence it with ``warnings.filterwarnings(
        "ignore", category=hmeasure_stream.InvertedScoresWarning)``.

    See Also
    --------
    auc_variance : DeLong's variance used here.
    auc_test : DeLong's test of two correlated AUCs.

    Notes
    -----
    DeLong: O(n log n) time, as :func:`auc_variance`.  The ends are
    AUC + sqrt(V) q((1 - level) / 2) and AUC + sqrt(V) q((1 + level) / 2),
    q the standard normal quantile function, each clipped to [0, 1].

    Bootstrap: each resample draws, with replacement, as many class 0 points
    from the class 0 points and as many class 1 points from the class 1
    points as there are (stratified, so both classes are always present);
    the ends are the (1 - level) / 2 and (1 + level) / 2 quantiles of the
    resampled AUCs, linearly interpolated (numpy's default, R's type 7).  A
    resample's AUC depends only on how many draws fall on each distinct
    score; for a batch of resamples these counts are drawn at once (one
    multinomial per resample over a class's distinct scores when it has many
    ties, else the drawn indices counted by one ``bincount``) and one
    cumulative sum per resample gives its exact Mann-Whitney count:
    O(n log n + n_boot n) time, no Python loop over resamples, memory bounded
    by the batch size.  The ends are random: with p = (1 - level) / 2 each
    has a Monte Carlo standard error of about sqrt(p (1 - p) / n_boot) / phi(z_p)
    times the AUC's standard deviation (about 0.06 of it for level 0.95 and
    n_boot = 2000; phi the normal density, z_p its quantile).

    References
    ----------
    .. [1] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
       areas under two or more correlated receiver operating characteristic
       curves: a nonparametric approach", Biometrics 44, 1988.
    .. [2] X. Robin et al., "pROC: an open-source package for R and S+ to
       analyze and compare ROC curves", BMC Bioinformatics 12, 2011.
    .. [3] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993.

    Examples
    --------
    >>> from hmeasure_stream import auc_ci
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> ci = auc_ci(y, s)
    >>> round(ci.low, 6), ci.high, ci.estimate
    (0.592104, 1.0, 0.875)
    >>> low, high = auc_ci(y, s, level=0.9)
    >>> round(low, 6), high
    (0.637586, 1.0)
    >>> auc_ci(y, s, method="bootstrap", random_state=0)
    ConfidenceInterval(low=0.5, high=1.0, estimate=0.875)
    """
    y_true = with_pos_label(y_true, pos_label)
    level = check_probability_level(level, "level")
    method = check_option(method, "method", ("delong", "bootstrap"))
    n_boot = check_integer(n_boot, "n_boot", 1)
    rng = check_random_state(random_state)
    if method == "delong":
        variance, estimate = _variance_and_auc(
            y_true, y_score, sample_weight, "DeLong's confidence interval", True
        )
        warn_if_inverted(estimate, "auc_ci")
        return _delong_interval(estimate, variance, level)
    if sample_weight is not None:
        raise ValueError(
            'sample_weight is not supported with method="bootstrap"; use method="delong"'
        )
    neg, pos = split_classes(y_true, y_score, "The bootstrap confidence interval")
    # Each class in input order (the split reverses class 1): the resamples
    # drawn for a seed follow the points' order.
    pos = pos[::-1]
    aucs = _bootstrap_aucs(neg, pos, n_boot, rng)
    low, high = np.quantile(aucs, [(1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0])
    twice_u = _scratch.auc2_sorted_classes(np.sort(neg), np.sort(pos))
    estimate = twice_u / (2 * neg.shape[0] * pos.shape[0])
    warn_if_inverted(estimate, "auc_ci")
    return ConfidenceInterval(float(low), float(high), estimate)


# ---------------------------------------------------------------------------
# Bootstrap interval of any statistic


def _stratified_resamples(neg: NDArray[Any], pos: NDArray[Any], n_boot: int,
                          rng: np.random.Generator) -> Iterator[NDArray[Any]]:
    """The point indices of ``n_boot`` stratified resamples, a batch at a time.

    Yields 2-d arrays, one row per resample: n = len(neg) indices drawn with
    replacement from ``neg``, then m = len(pos) from ``pos``.  Each class
    draws from its own child of ``rng`` (``Generator.spawn``), a whole batch
    by one vectorised call: the resamples of a seed do not depend on the
    batch size, at most ``_BOOT_INDEX_ELEMENTS`` indices (a few MB).
    """
    n, m = neg.shape[0], pos.shape[0]
    neg_rng, pos_rng = rng.spawn(2)
    batch = max(1, _BOOT_INDEX_ELEMENTS // (n + m))
    for start in range(0, n_boot, batch):
        size = min(batch, n_boot - start)
        yield np.concatenate((neg[neg_rng.integers(0, n, (size, n))],
                              pos[pos_rng.integers(0, m, (size, m))]), axis=1)


def bootstrap_ci(y_true: Labels, y_score: Scores, statistic: Callable[[Any, Any], float], *,
                 level: float = 0.95, n_boot: int = 2000, pos_label: Label = None,
                 random_state: RandomState = None) -> ConfidenceInterval:
    """Stratified bootstrap confidence interval of any binary-classification statistic.

    For what has no asymptotic variance at hand: a partial AUC, the
    H-measure, average precision, a sensitivity at a fixed specificity.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1, -1/1 or bool (or two labels with ``pos_label``).
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    statistic : callable
        ``statistic(y_true, y_score) -> float``, called with 0/1 labels:
        a from-scratch function of the package such as :func:`h_measure`,
        :func:`average_precision` or
        ``functools.partial(partial_auc, fpr_range=(0, 0.2))``, or any other.
    level : float, default 0.95
        Confidence level, in (0, 1).
    n_boot : int, default 2000
        Number of resamples.
    pos_label : hashable, optional
        The label of class 1; the one other label is class 0.
    random_state : None, int, SeedSequence or Generator, optional
        Seed of the resampling (:func:`numpy.random.default_rng`).

    Returns
    -------
    ConfidenceInterval
        ``(low, high)``: the (1 - level) / 2 and (1 + level) / 2 quantiles
        of the resampled statistics (R's type 7, numpy's default), with the
        statistic of the data as ``estimate``.

    Raises
    ------
    ValueError
        On invalid labels (as for :func:`auc`), a class with fewer than two
        points, a ``level`` outside (0, 1), an ``n_boot`` < 1, a
        ``statistic`` that is not callable, or one that fails on the data.

    See Also
    --------
    auc_ci : the AUC's interval, DeLong's or a faster bootstrap.

    Notes
    -----
    Each resample draws, with replacement, as many class 0 points from the
    class 0 points and as many class 1 points from the class 1 points as
    there are (stratified, as pROC's ``boot.stratified=TRUE``), and
    ``statistic`` is called on it: n_boot calls, the points of each resample
    in class order (class 0 first), an ``InvertedScoresWarning`` of the
    statistic issued for the data only.  Each class draws its points from its
    own child of ``random_state`` (``Generator.spawn``), the indices of many
    resamples by one call (a few MB at a time), so a seed gives the same
    resamples whatever their number per call.  The ends are random, with a
    Monte Carlo error that shrinks as 1 / sqrt(n_boot) (see :func:`auc_ci`);
    for a partial AUC they agree with pROC's ``ci.auc(roc,
    method="bootstrap")`` within it.  B. Efron and R. J. Tibshirani, "An
    Introduction to the Bootstrap", Chapman & Hall, 1993.

    Examples
    --------
    >>> import functools
    >>> from hmeasure_stream import average_precision, bootstrap_ci, h_measure, partial_auc
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.6, 0.7]
    >>> bootstrap_ci(y, s, functools.partial(partial_auc, fpr_range=(0, 0.5)),
    ...              random_state=0)
    ConfidenceInterval(low=0.16, high=0.5, estimate=0.36)
    >>> ci = bootstrap_ci(y, s, h_measure, n_boot=500, random_state=0)
    >>> round(ci.low, 4), round(ci.high, 4), round(ci.estimate, 4)
    (0.315, 1.0, 0.5393)
    >>> low, high = bootstrap_ci(y, s, average_precision, level=0.9, random_state=0)
    >>> round(low, 4), round(high, 4)
    (0.7222, 1.0)
    """
    if not callable(statistic):
        raise ValueError(f"statistic must be callable, got {statistic!r}")
    level = check_probability_level(level, "level")
    n_boot = check_integer(n_boot, "n_boot", 1)
    rng = check_random_state(random_state)
    labels = check_labels(with_pos_label(y_true, pos_label))
    is_pos = labels_as_is_pos(labels).astype(bool)
    scores = as_1d(y_score, "y_score", column=True)  # the statistic validates the values
    if scores.shape != is_pos.shape:
        raise ValueError(f"y_true and y_score must have the same length; got "
                         f"{is_pos.shape[0]} and {scores.shape[0] if scores.ndim else 0}")
    y01 = is_pos.astype(np.int64)
    neg, pos = np.flatnonzero(~is_pos), np.flatnonzero(is_pos)
    check_both_classes(neg.shape[0], pos.shape[0], "The bootstrap")
    _check_class_sizes(neg.shape[0], pos.shape[0], "The bootstrap", weighted=False)
    estimate = float(statistic(y01, scores))
    values = np.empty(n_boot)
    done = 0
    with warnings.catch_warnings():
        # The data's ranking was judged above; a resample's AUC below 0.5 says
        # nothing new about the scores.
        warnings.simplefilter("ignore", InvertedScoresWarning)
        for drawn in _stratified_resamples(neg, pos, n_boot, rng):
            for row in drawn:
                values[done] = statistic(y01[row], scores[row])
                done += 1
    low, high = np.quantile(values, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return ConfidenceInterval(float(low), float(high), estimate)


# ---------------------------------------------------------------------------
# DeLong's tests and covariance


def _paired_placements(y_true: Labels, y_score1: Scores, y_score2: Scores,
                       pos_label: Label, metric: str, function: str
                       ) -> tuple[_Ints, _Ints, int, _Ints, _Ints, int, int, int]:
    """Two classifiers on the same points: (f1, e1, 2U1, f2, e2, 2U2, n, m), the
    centred placements of each (``_centred_unit``) in the points' order
    (``function`` named in the message on too many points)."""
    y_true = with_pos_label(y_true, pos_label)
    # Both classifiers' scores split by the same labels (converted once; the
    # split flags a bad label in its own pass): point k of a class is the
    # same point for both, so the classifiers pair up.
    labels = check_labels(y_true)
    neg1, pos1 = split_classes(labels, y_score1, score_name="y_score1")
    neg2, pos2 = split_classes(labels, y_score2, score_name="y_score2")
    n, m = neg1.shape[0], pos1.shape[0]
    check_both_classes(n, m, metric)
    _check_class_sizes(n, m, metric, weighted=False)
    if n + m >= EXACT_COUNT_LIMIT:
        raise ValueError(
            f"y_true has {n + m} points; {function} supports fewer than 2**31 (exact int64 "
            "placements)"
        )
    return (*_centred_unit(neg1, pos1, in_input_order=True),
            *_centred_unit(neg2, pos2, in_input_order=True), n, m)


def auc_covariance(y_true: Labels, y_score1: Scores, y_score2: Scores, *,
                   pos_label: Label = None) -> float:
    """Estimate the covariance of two classifiers' AUCs on the same points (DeLong).

    The AUCs of two classifiers scored on the same points are correlated
    through the points they share; this is DeLong's estimate of their
    covariance, the off-diagonal term of the matrix :func:`auc_test` uses.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1, -1/1 or bool; class 1 is the class expected to score higher.
    y_score1, y_score2 : array-like of shape (n,)
        Scores of the two classifiers on the same points.
    pos_label : hashable, optional
        The label of class 1; the one other label is class 0.

    Returns
    -------
    float
        The covariance of the two AUCs; with ``y_score1`` for both, the
        variance of :func:`auc_variance`.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc_test`.

    See Also
    --------
    auc_variance : the variance of one AUC.
    auc_test : DeLong's test of two AUCs.

    Notes
    -----
    S10 / m + S01 / n at (1, 2) in DeLong's notation (see :func:`auc_test`),
    from the exact placement numerators.  O(n log n).  Equal to R pROC's
    ``cov(roc1, roc2, method="delong")``.

    Examples
    --------
    >>> from hmeasure_stream import auc_covariance
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s1 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> s2 = [0.3, 0.2, 0.1, 0.4, 0.5, 0.6, 0.7, 0.8]
    >>> auc_covariance(y, s1, s2)
    0.03125
    """
    f1, e1, _, f2, e2, _, n, m = _paired_placements(y_true, y_score1, y_score2, pos_label,
                                                    "DeLong's covariance", "auc_covariance")
    return _sum_squares_over(f1, e1, n, m, f2, e2)


def _unpaired_sample(y_true: Labels, y_score: Scores, pos_label: Label, label_name: str,
                     score_name: str) -> tuple[float, float, int]:
    """DeLong's variance, the AUC and the size of one sample of the unpaired test;
    every message names ``label_name`` and ``score_name``."""
    variance, estimate = _variance_and_auc(with_pos_label(y_true, pos_label, label_name),
                                           y_score, None, "DeLong's test", True, label_name,
                                           score_name)
    return variance, cast(float, estimate), len(cast("Sized", y_true))  # (with_auc: a float)


def _welch_satterthwaite(variance1: float, size1: int, variance2: float, size2: int) -> float:
    """Welch and Satterthwaite's degrees of freedom of sqrt(V1 + V2), with each sample's
    size: (V1 + V2)^2 / (V1^2 / (n1 - 1) + V2^2 / (n2 - 1)), from the shares of the sum
    (no square to underflow); ``inf`` when both variances are 0, where Z is 0 or +-inf
    and its p-value the same under every t distribution (the paired test's normal)."""
    total = variance1 + variance2
    if total == 0.0:
        return math.inf
    share1, share2 = variance1 / total, variance2 / total
    return 1.0 / (share1 * share1 / (size1 - 1) + share2 * share2 / (size2 - 1))


def _paired_points(y_true: Labels, y_score1: Scores, y_score2: Scores,
                   sample_weight: Weights | None, pos_label: Label, metric: str
                   ) -> tuple[NDArray[np.uint8], FloatArray, FloatArray, FloatArray | None]:
    """Two classifiers' checked scores on the same points, in the points' order:
    (is_pos, score1, score2, weights or None), both classes present."""
    labels = check_labels(with_pos_label(y_true, pos_label))
    is_pos = labels_as_is_pos(labels)
    scores = []
    for values, name in ((y_score1, "y_score1"), (y_score2, "y_score2")):
        checked = check_scores(values, name)
        check_same_length(labels, checked, score_name=name)
        raise_bad_score(checked, name)
        scores.append(checked)
    weights = None if sample_weight is None else check_weights(sample_weight, is_pos.shape[0])
    pos = is_pos.view(np.bool_)
    if weights is None:
        m = int(np.count_nonzero(pos))
        check_both_classes(is_pos.shape[0] - m, m, metric)
        if is_pos.shape[0] >= EXACT_COUNT_LIMIT:
            raise ValueError(f"y_true has {is_pos.shape[0]} points; auc_test supports fewer "
                             "than 2**31 (exact int64 placements)")
    else:
        check_both_classes(float(weights[~pos].sum()), float(weights[pos].sum()), metric)
    return is_pos, scores[0], scores[1], weights


def auc_test(y_true: Labels, y_score1: Scores, y_score2: Scores, *,
             y_true2: Labels | None = None,
             alternative: Literal["two-sided", "less", "greater"] = "two-sided",
             sample_weight: Weights | None = None, pos_label: Label = None) -> AUCTestResult:
    """DeLong's test of the difference between two AUCs.

    Is the difference of two AUCs more than chance?  Z = (A1 - A2) / se.
    Paired (the default): two classifiers scored the same points, and se is
    DeLong's standard error of the difference, which accounts for the
    correlation of the two AUCs through the points they share (R pROC's
    ``roc.test(roc1, roc2, method="delong", paired=TRUE)``).  Unpaired (with
    ``y_true2``): the AUCs of two independent samples, se = sqrt(V1 + V2)
    with DeLong's variance of each, and Z has a Student t distribution with
    Welch and Satterthwaite's degrees of freedom (pROC's ``paired=FALSE``).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score1 : array-like of shape (n,)
        Scores of the first classifier, any finite real numbers.
    y_score2 : array-like of shape (n,) or (n2,)
        Scores of the second classifier on the same points, or with
        ``y_true2`` on the points of ``y_true2``.
    y_true2 : array-like of shape (n2,), optional
        Labels of a second, independent sample: the test is then unpaired.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        The alternative hypothesis: A1 != A2, A1 < A2 or A1 > A2.
    sample_weight : array-like of shape (n,), optional
        Weights of the points of the paired test, finite and >= 0, read as
        frequencies as by :func:`auc_variance` (not with ``y_true2``).
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...) in both samples;
        the one other label is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    AUCTestResult
        Named tuple ``(statistic, pvalue, difference, std_error, df)``: Z, the
        p-value of ``alternative``, A1 - A2, its standard error and the degrees
        of freedom of Z's distribution (``inf`` when paired).  When the
        standard error is 0 (e.g. identical scores, or unpaired samples both
        perfectly separated) Z is 0 if the AUCs are equal, and +-inf
        otherwise, as in pROC: the two-sided p-value is then 1 or 0 (a
        one-sided one 0.5, or 0 or 1), and the unpaired test's degrees of
        freedom are ``inf`` as the paired test's (every t distribution gives
        these p-values).

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc_variance`, the message naming the
        argument: ``y_true``, ``y_score1``, ``y_score2`` or ``y_true2``.

    See Also
    --------
    auc_variance : the variance of one AUC.
    auc_ci : confidence interval for one AUC.

    Notes
    -----
    With the placements of :func:`auc_variance` for each classifier k = 1, 2,
    V10_ik and V01_jk, the covariance matrix of (A1, A2) is S10 / m + S01 / n
    with S10_kl = sum_i (V10_ik - A_k)(V10_il - A_l) / (m - 1) and S01
    likewise.  The variance of A1 - A2 is L' S L for L = (1, -1), i.e. the
    same formula applied to the differences of the placements
    D10_i = V10_i1 - V10_i2 (and D01_j), whose numerators are exact integers
    squared and summed in float64 (no cancellation); with ``sample_weight``,
    the weighted placements and moments of :func:`auc_variance`.  The p-value is
    ``2 F(-abs(Z))``, ``F(Z)`` ("less") or ``F(-Z)`` ("greater"), F the
    distribution of Z, as pROC's.  O(n log n) time, O(n) memory.

    References
    ----------
    .. [1] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
       areas under two or more correlated receiver operating characteristic
       curves: a nonparametric approach", Biometrics 44, 1988.
    .. [2] X. Robin et al., "pROC: an open-source package for R and S+ to
       analyze and compare ROC curves", BMC Bioinformatics 12, 2011.

    Examples
    --------
    >>> from hmeasure_stream import auc_test
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s1 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> s2 = [0.3, 0.2, 0.1, 0.4, 0.5, 0.6, 0.7, 0.8]
    >>> result = auc_test(y, s1, s2)
    >>> result.difference
    0.25
    >>> round(result.statistic, 6), round(result.pvalue, 6)
    (1.732051, 0.083265)
    """
    alternative = check_option(alternative, "alternative", ("two-sided", "less", "greater"))
    if y_true2 is None:
        difference, std_error, statistic = _paired_difference(
            *_paired_points(y_true, y_score1, y_score2, sample_weight, pos_label,
                            "DeLong's test"))
        return AUCTestResult(statistic, _normal_pvalue(statistic, alternative), difference,
                             std_error, math.inf)
    if sample_weight is not None:
        raise ValueError("sample_weight applies to the paired test (two classifiers on the "
                         "same points): the unpaired test (y_true2) takes none")
    (variance1, auc1, size1), (variance2, auc2, size2) = (
        _unpaired_sample(y_true, y_score1, pos_label, "y_true", "y_score1"),
        _unpaired_sample(y_true2, y_score2, pos_label, "y_true2", "y_score2"))
    std_error = math.sqrt(variance1 + variance2)
    difference = auc1 - auc2
    df = _welch_satterthwaite(variance1, size1, variance2, size2)
    statistic = _z_statistic(difference, std_error)
    if df == math.inf:
        return AUCTestResult(statistic, _normal_pvalue(statistic, alternative), difference,
                             std_error, df)
    from scipy import special  # (imported on first use: scipy.special slows start-up)

    tail = functools.partial(special.stdtr, df)
    if alternative == "two-sided":
        pvalue = 2.0 * tail(-abs(statistic))
    else:
        pvalue = tail(statistic if alternative == "less" else -statistic)
    return AUCTestResult(statistic, float(pvalue), difference, std_error, df)
