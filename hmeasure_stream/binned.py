"""Binned (approximate) AUC with an error bound, from histograms of class counts.

Bouckaert (*Efficient AUC learning curve calculation*, Sec. 4) approximates the
AUC from m bins of class counts: the ROC curve is replaced by straight lines
between the bins' cumulative counts, and the exact AUC is within the sum of
the bins' triangles of it.  Binned counts are what monitoring and distributed
systems keep; with the bound they say how wrong their AUC may be, and the
counts of disjoint parts of a data set add up to the counts of the whole.

The bin of a score is a pure function of the score and the frozen parameters
(number of bins, ``score_range``, transform and its ``alpha``), computed in one
compiled place, so histograms made with the same parameters merge exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from hmeasure_stream._core.binning import (
    OutOfRangeScoresWarning,
    histograms,
    outside_range,
    result_fields,
)
from hmeasure_stream._core.binning import check_bins as _check_bins
from hmeasure_stream._core.binning import check_score_range as _check_score_range
from hmeasure_stream._core.binning import check_strict as _check_strict
from hmeasure_stream._core.binning import check_transform as _check_transform
from hmeasure_stream._core.binning import estimate_alpha as _estimate_alpha
from hmeasure_stream._engines import _binning
from hmeasure_stream._validation import (
    FloatArray,
    Label,
    binary_input,
    check_positive,
    check_scores,
    exact_path,
    raise_flagged,
    renamed_attributes,
    renamed_keyword,
    scaled_weights,
    warn_if_inverted,
    with_pos_label,
)
from hmeasure_stream.typing import Labels, Scores, Weights

__all__ = ["BinnedAUCResult", "OutOfRangeScoresWarning", "binned_auc", "loglog_transform"]


@dataclass(frozen=True, eq=False)
class BinnedAUCResult:
    """The binned AUC of a data set, its error bound and its histograms.

    Returned by :func:`binned_auc`; frozen, with read-only arrays.  The
    histograms of disjoint parts of a data set binned with the same
    parameters (``n_bins``, ``score_range``, ``transform``, ``loglog_alpha``) add
    up to the histograms of the whole.

    Attributes
    ----------
    auc : float
        Area under the ROC curve of the bins (trapezoids; the class 1 and
        class 0 points of one bin count as ties, one half).
    max_error : float
        Bound on the error: the exact AUC of the data lies in
        ``[auc - max_error, auc + max_error]``.
    expected_error : float
        Bouckaert's random-walk estimate of the error (a heuristic, not a
        bound).  It divides the bins' areas by T^{3/2}, T = P + N the number
        of points, where the AUC divides by P N: it is not on the AUC's
        scale, and is often larger than ``max_error``.
    edges : ndarray of float64, shape (n_bins + 1,)
        Bin edges in score units, ``edges[0] = score_range[0]`` and
        ``edges[-1] = score_range[1]``: bin j holds the scores in
        ``[edges[j], edges[j + 1])`` (up to rounding; the last bin includes its
        upper edge), bin 0 also the scores below the range and the last bin
        those above it.
    counts_neg, counts_pos : ndarray, shape (n_bins,)
        Number (int64; total weight, float64, with ``sample_weight``) of the
        class 0 / class 1 points in each bin, lowest scores first.
    n_below, n_above : int
        Number of points whose score is below / above ``score_range`` (they
        are counted in the end bins).
    transform : str or None
        ``None`` (linear bins) or ``"loglog"``.
    loglog_alpha : float or None
        The log-log transform's alpha in effect (given or estimated), None for
        linear bins.
    n_bins : int
        Number of bins (``bins`` is its deprecated name).

    See Also
    --------
    binned_auc : computes it.

    Examples
    --------
    >>> from hmeasure_stream import binned_auc
    >>> result = binned_auc([0, 1, 0, 1], [0.1, 0.9, 0.6, 0.7], n_bins=2)
    >>> result.counts_neg, result.counts_pos, result.n_bins
    (array([1, 1]), array([0, 2]), 2)
    >>> result.auc, result.max_error
    (0.75, 0.25)
    """

    auc: float
    max_error: float
    expected_error: float
    edges: np.ndarray
    counts_neg: np.ndarray
    counts_pos: np.ndarray
    n_below: int
    n_above: int
    transform: str | None
    loglog_alpha: float | None

    @property
    def n_bins(self) -> int:
        # (Documented in the class's Attributes, not here: numpydoc would link a documented
        # property from there by a target that the options' own n_bins make ambiguous.)
        n_bins: int = self.counts_neg.shape[0]
        return n_bins

    __getattr__ = renamed_attributes(bins="n_bins")


def loglog_transform(r: ArrayLike, alpha: float) -> FloatArray:
    """Bouckaert's log-log transform, corrected to be continuous and increasing.

    .. math::

       T(r) = \\tfrac12 - \\alpha\\,[\\log(-\\log r) - \\log\\log 2]
              \\quad (r \\le \\tfrac12), \\qquad
       T(r) = \\tfrac12 + \\alpha\\,[\\log(-\\log(1 - r)) - \\log\\log 2]
              \\quad (r > \\tfrac12).

    It spreads probabilities crowded near 0 and 1 over the bins: with bins of
    equal width in T, those near 0 and 1 are exponentially narrow in r.

    Parameters
    ----------
    r : array-like of shape (n,)
        Values in [0, 1] (probabilities, or scores mapped to [0, 1]).
    alpha : float
        Positive scale: the values with ``min(r, 1 - r) >= 2 ** -exp(1 /
        (2 alpha))`` are mapped into [0, 1].

    Returns
    -------
    ndarray of float64
        T(r), increasing in r, ``T(1/2) = 1/2``, ``T(1 - r) = 1 - T(r)`` (up to
        rounding), ``-inf`` at 0 and ``+inf`` at 1.

    Raises
    ------
    ValueError
        If ``r`` is not 1-d, holds a value outside [0, 1] or NaN, or ``alpha``
        is not a finite number > 0.

    See Also
    --------
    binned_auc : bins the transformed scores with ``transform="loglog"``.

    Notes
    -----
    The formula printed in the paper omits the ``log log 2`` terms; its two
    branches are each increasing but meet at r = 1/2 with a downward jump
    from ``1/2 + 0.367 alpha`` to ``1/2 - 0.367 alpha`` (``-log log 2 =
    0.3665``), so the bins would not be ordered by score.  Subtracting
    ``log log 2`` in both branches makes both equal 1/2 at r = 1/2.  O(n),
    compiled; this is the function :func:`binned_auc` uses to place scores.

    References
    ----------
    R. R. Bouckaert, "Efficient AUC learning curve calculation", Sec. 4.

    Examples
    --------
    >>> from hmeasure_stream import loglog_transform
    >>> loglog_transform([0.0, 0.5, 1.0], 0.1)
    array([-inf,  0.5,  inf])
    >>> t = loglog_transform([1e-6, 0.25, 0.75, 1 - 1e-6], 0.1)
    >>> [round(float(v), 6) for v in t]
    [0.20077, 0.430685, 0.569315, 0.79923]
    """
    alpha = check_positive(alpha, "alpha")
    values = check_scores(r, "r", allow_empty=True, ranks=False, column=False)
    bad = ~((values >= 0.0) & (values <= 1.0))
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"r must hold values in [0, 1]; found {values[position].item()!r} at position "
            f"{position}"
        )
    out = np.empty_like(values)
    _binning.loglog_array(values, alpha, out)
    return out


def binned_auc(y_true: Labels, y_score: Scores, *, n_bins: int = 1000,
               transform: Literal["loglog"] | None = None, loglog_alpha: float | None = None,
               score_range: tuple[float, float] = (0.0, 1.0),
               sample_weight: Weights | None = None,
               pos_label: Label = None, strict: bool = False,
               bins: int | None = None) -> BinnedAUCResult:
    """Approximate AUC from binned class counts, with an error bound.

    The scores are counted in ``n_bins`` bins per class; the ROC curve through
    the bins' cumulative counts (straight lines inside each bin) has area
    ``auc``, and the exact AUC lies within ``max_error`` of it.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, finite real numbers, expected in ``score_range`` (those outside
        go to the end bins, are counted in ``n_below`` / ``n_above`` and raise
        a warning, or an error with ``strict``).
    n_bins : int, default 1000
        Number of bins m, 1 <= m <= 2**24 (scikit-learn's name, as in
        ``calibration_curve``; ``bins=`` is its deprecated spelling).
    transform : {None, "loglog"}, default None
        None: bins of equal width over ``score_range``.  ``"loglog"``: bins of
        equal width in the continuous log-log transform of the scores mapped to
        [0, 1] (see :func:`loglog_transform`), for probabilities crowded near
        0 and 1.
    loglog_alpha : float, optional
        The transform's alpha (> 0); estimated from the data when None (rule in
        Notes).  Only with ``transform="loglog"``.
    score_range : (float, float), default (0.0, 1.0)
        Finite (low, high), low < high: a score s is mapped to
        ``r = (s - low) / (high - low)``.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point: the bins count weights.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).
    strict : bool, default False
        Refuse scores outside ``score_range`` (ValueError) instead of
        counting them in the end bins with a warning.
    bins : int, optional
        Deprecated name of ``n_bins`` (removed in the next release).

    Returns
    -------
    BinnedAUCResult
        ``auc``, ``max_error``, ``expected_error``, ``edges``, ``counts_neg``,
        ``counts_pos``, ``n_below``, ``n_above``, ``transform`` and
        ``loglog_alpha`` (the value in effect).

    Raises
    ------
    ValueError
        If the input is not 1-d, is empty, the lengths differ, a label is not
        0/1, a score or weight is not finite, a weight is negative, only one
        class is present (with positive weight), or a parameter is invalid;
        with ``strict=True``, if a score lies outside ``score_range``.

    Warns
    -----
    OutOfRangeScoresWarning
        If scores lie outside ``score_range`` (and ``strict`` is False): the
        message says how many and the scores' span.
    InvertedScoresWarning
        If the AUC is below 0.5 (the scores rank class 0 above class 1); the
        value is not flipped.  Silence it with ``warnings.filterwarnings(
        "ignore", category=hmeasure_stream.InvertedScoresWarning)``.

    See Also
    --------
    auc : the exact AUC, O(n log n).
    loglog_transform : the transform of ``transform="loglog"``.

    Notes
    -----
    Bins (Bouckaert, Sec. 4): with ``r`` the score mapped to [0, 1], the bin
    is ``j = min(floor(m r), m - 1)``, ``r <= 0`` in bin 0 and ``r >= 1`` in
    bin m - 1.  With ``transform="loglog"`` the same rule is applied to
    ``T(r)`` for ``0 < r < 1`` (scores of exactly 0 or 1 go to the end bins).

    With ``b+_j`` and ``b-_j`` the class 1 and class 0 counts of bin j, ``P``
    and ``N`` their totals and ``A_j`` the class 1 count above bin j,

    - ``auc = sum_j b-_j (A_j + b+_j / 2) / (P N)``: the trapezoids;
    - ``max_error = sum_j b+_j b-_j / 2 / (P N)`` (Sec. 4.1): inside a bin the
      true curve lies in the rectangle spanned by the bin's segment, so it
      differs from the trapezoid by at most the triangle above or below;
    - ``expected_error = sum_j (1/3) sqrt(b+_j^2 + b-_j^2) / T *
      sqrt((b+_j + b-_j) / T)`` with ``T = P + N`` (Sec. 4.2): the paper's
      random-walk heuristic, not a bound.  It divides by ``T^{3/2}`` where
      the AUC divides by ``P N``, so it is not on the scale of the AUC's
      error, and it is often larger than ``max_error`` (several times at 100
      bins and more on the data of the documentation's figure).

    ``loglog_alpha=None``: alpha is estimated from an evenly strided sample of
    at most 65536 scores, mapped to [0, 1].  Of the sampled ``t = min(r, 1 -
    r)`` strictly inside (0, 1/2], take the value of rank ``floor(0.01 (k -
    1))`` (0-based, ascending, k of them), cap it at 1/4 and choose alpha so
    that T maps it to 0 (and ``1 - t`` to 1): ``alpha = 1 / (2 (log(-log t) -
    log log 2))``.  About 1% of the scores then fall in the end bins beyond
    the transform's range, and alpha lies in [0.0716, 0.7214] for any
    float64 data.  Without such scores, alpha = 1 / (2 log 2).  The result
    reports the alpha used; passing it back reproduces the same bins, so
    histograms of parts of a stream made with it add up.

    Without weights the counts are int64 and ``auc`` is the correctly rounded
    value of the exact fraction.  O(n + m) time: one compiled pass over the
    points (plus the alpha sample), then O(m) over the bins; O(m) memory.

    References
    ----------
    R. R. Bouckaert, "Efficient AUC learning curve calculation", Sec. 4.

    Examples
    --------
    >>> from hmeasure_stream import auc, binned_auc
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> s = [0.1, 0.42, 0.45, 0.7, 0.8, 0.95]
    >>> result = binned_auc(y, s, n_bins=4)
    >>> result.counts_neg, result.counts_pos
    (array([1, 1, 1, 0]), array([0, 1, 0, 2]))
    >>> result.auc, result.max_error
    (0.8333333333333334, 0.05555555555555555)
    >>> abs(auc(y, s) - result.auc) <= result.max_error
    True
    >>> result.edges
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    n_bins = renamed_keyword("binned_auc", "bins", "n_bins", bins, n_bins, 1000)
    y_true = with_pos_label(y_true, pos_label)
    m = _check_bins(n_bins, "n_bins")
    transform, alpha = _check_transform(transform, loglog_alpha)
    lo, hi = _check_score_range(score_range)
    strict = _check_strict(strict)
    labels, scores, weights = binary_input(y_true, y_score, sample_weight, ranks=False)
    if transform is not None and alpha is None:
        alpha = _estimate_alpha(scores, lo, hi)
    weighted = not exact_path(scores, sample_weight)
    if weighted:
        if weights is None:
            weights = np.ones(scores.shape[0])
        # Counted in units of a power of two (undone in the result): sums and
        # products of counts then neither overflow nor underflow, whatever the
        # weights' scale.
        weights, scale_exponent = scaled_weights(weights)
    counts, flags = histograms(labels, scores, weights if weighted else None, lo, hi, m,
                               transform, alpha)
    bad_label, bad_score, n_below, n_above = flags
    raise_flagged(labels, scores, bad_label, bad_score)
    outside_range(int(n_below + n_above), scores, (lo, hi), strict, "binned_auc")
    result = BinnedAUCResult(**result_fields(
        counts[:m], counts[m:], int(n_below), int(n_above), weighted, lo, hi, transform, alpha,
        scale_exponent if weighted else 0))
    warn_if_inverted(result.auc, "binned_auc")
    return result


