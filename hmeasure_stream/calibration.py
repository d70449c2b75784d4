"""Calibration of probabilities, from scratch: Brier score, log loss, calibration error.

A classifier's probability p of class 1 is calibrated when, among the points
given p, the share of class 1 is p.  The functions take the labels and the
probabilities of class 1 (``predict_proba(X)[:, 1]``):

- :func:`brier_score` -- the mean squared difference between label and
  probability (scikit-learn's ``brier_score_loss``);
- :func:`log_loss` -- the mean negative log-likelihood (scikit-learn's
  ``log_loss`` of binary labels);
- :func:`calibration_error` -- the expected or maximum gap between the mean
  probability and the share of class 1 over the bins of scikit-learn's
  ``calibration_curve``;
- :func:`calibration_report` -- the curve of those bins with every value above
  and Murphy's decomposition of the Brier score over the bins.

Each is O(n) after the probabilities are read (quantile bins: O(n log n)).
A point of zero weight is absent.  A class without points leaves every value
defined (as in scikit-learn), so unlike the ranking metrics nothing is
refused for it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray

from hmeasure_stream._core.binning import check_bins
from hmeasure_stream._core.classes import as_label_array, encode_given, encode_sorted
from hmeasure_stream._core.groups import exact_sum as _exact_sum
from hmeasure_stream._validation import (
    FloatArray,
    Label,
    binary_input,
    check_option,
    check_probabilities,
    check_weights,
    labels_as_is_pos,
    raise_bad_probability,
    scaled_weights,
    with_pos_label,
)
from hmeasure_stream.typing import Labels, Probabilities, Weights

__all__ = ["CalibrationReport", "brier_score", "calibration_error", "calibration_report",
           "log_loss"]

# scikit-learn clips probabilities of float64 input to [eps, 1 - eps] before the log.
_LOG_EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True, eq=False)
class CalibrationReport:
    """The calibration of probabilities over bins, returned by :func:`calibration_report`.

    Frozen, with read-only arrays, one entry per bin of positive weight in
    ``prob_true``, ``prob_pred``, ``bin_weight`` and ``bin_index``.  The terms
    satisfy ``brier = reliability - resolution + uncertainty +
    within_bin_variance - within_bin_covariance`` (up to rounding).

    Attributes
    ----------
    prob_true, prob_pred : ndarray of float64
        Each bin's share (weight) of class 1 and mean probability:
        scikit-learn's ``calibration_curve``.
    bin_weight, bin_index : ndarray
        Each bin's weight (number of points without weights) and its index k
        among the ``n_bins``: it spans ``bin_edges[k]`` to ``bin_edges[k + 1]``.
    bin_edges : ndarray of float64
        The ``n_bins + 1`` edges of all the bins, empty ones included.
    brier, ece, mce : float
        The Brier score and the expected and maximum calibration errors.
    reliability, resolution, uncertainty : float
        Murphy's terms: the bins' mean squared gap between mean probability
        and share of class 1, and between that share and the overall share
        o; ``o (1 - o)``.
    within_bin_variance, within_bin_covariance : float
        The probabilities' mean squared gap to their bin's mean, and twice the
        mean product of the gaps of probability and label to their bin's
        means: both 0 when the probabilities are constant in each bin.

    See Also
    --------
    calibration_report : computes it.

    Examples
    --------
    >>> from hmeasure_stream import calibration_report
    >>> report = calibration_report([0, 1, 1, 0, 1], [0.1, 0.3, 0.8, 0.9, 0.9], n_bins=2)
    >>> report.prob_true, report.prob_pred, report.bin_weight
    (array([0.5       , 0.66666667]), array([0.2       , 0.86666667]), array([2., 3.]))
    >>> report.bin_index, report.bin_edges
    (array([0, 1]), array([0. , 0.5, 1. ]))
    """

    prob_true: np.ndarray
    prob_pred: np.ndarray
    bin_weight: np.ndarray
    bin_index: np.ndarray
    bin_edges: np.ndarray
    brier: float
    ece: float
    mce: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float


def _probability_input(y_true: Labels, y_prob: Probabilities, sample_weight: Weights | None,
                       pos_label: Label, metric: str
                       ) -> tuple[FloatArray, FloatArray, FloatArray | None, int]:
    """Validated input: class 1 as float64 0/1, probabilities, weights scaled by a
    power of two (None without ``sample_weight``) and that power's exponent."""
    labels, probs, weights = binary_input(with_pos_label(y_true, pos_label), y_prob,
                                          sample_weight, score_name="y_prob", ranks=False)
    is_pos = labels_as_is_pos(labels).astype(np.float64)
    raise_bad_probability(probs, "y_prob")
    if weights is None:
        return is_pos, probs, None, 0
    return (is_pos, probs, *_scaled(weights, metric))


def _scaled(weights: FloatArray, metric: str) -> tuple[FloatArray, int]:
    """Checked weights scaled by one power of two, and its exponent; some must be > 0."""
    if not weights.any():
        raise ValueError(f"{metric} is undefined when every point weighs 0: "
                         "sample_weight has no positive entry")
    # One power of two for all (exact): no value depends on the weights' scale.
    return scaled_weights(weights)


def _point_weights(sample_weight: Weights | None, n_points: int, metric: str
                   ) -> FloatArray | None:
    """The weights scaled by one power of two (None without ``sample_weight``)."""
    if sample_weight is None:
        return None
    return _scaled(check_weights(sample_weight, n_points), metric)[0]


def _is_class_matrix(y_prob: Probabilities) -> bool:
    """Whether ``y_prob`` is a matrix of (n, k >= 2) class probabilities."""
    shape = getattr(y_prob, "shape", None)
    if shape is None:
        try:
            shape = np.shape(y_prob)
        except (TypeError, ValueError):
            return False
    return len(shape) == 2 and shape[1] >= 2


def _class_probability_input(y_true: Labels, y_prob: Probabilities,
                             sample_weight: Weights | None, classes: Sequence[Label] | None,
                             pos_label: Label, metric: str
                             ) -> tuple[NDArray[np.intp], FloatArray, FloatArray | None]:
    """Validated (n, k) input: each point's column, the probabilities (rows summing to 1)
    and the scaled weights (None without ``sample_weight``)."""
    if pos_label is not None:
        raise ValueError("pos_label names class 1 of the probabilities of one class; the "
                         "columns of an (n, k) y_prob are the classes (classes=, else the "
                         "sorted labels of y_true)")
    array = as_label_array(y_true)
    probs = np.asarray(y_prob)
    if probs.shape[0] != array.shape[0]:
        raise ValueError(f"y_true and y_prob have different lengths: {array.shape[0]} and "
                         f"{probs.shape[0]}")
    k = probs.shape[1]
    found, codes = encode_sorted(array) if classes is None else encode_given(array, classes)
    if len(found) != k:
        told = "classes has" if classes is not None else "y_true has"
        hint = "" if classes is not None else "; pass classes= to name the class of each column"
        raise ValueError(f"{told} {len(found)} classes but y_prob has {k} columns{hint}")
    tolerance = math.sqrt(np.finfo(probs.dtype).eps if probs.dtype.kind == "f"
                          and probs.dtype.itemsize <= 8 else _LOG_EPS)
    matrix = np.empty(probs.shape, dtype=np.float64)
    for column in range(k):
        matrix[:, column] = check_probabilities(probs[:, column], f"y_prob[:, {column}]")
    # The rows' sums in the input's precision: a float32 row is not refused for float32's
    # rounding of a sum of 1.
    off = np.flatnonzero(np.abs(matrix.sum(axis=1) - 1.0) > k * tolerance)
    if off.size:
        row = int(off[0])
        raise ValueError(f"each row of y_prob must sum to 1 (the probabilities of the "
                         f"classes); row {row} sums to {float(matrix[row].sum())!r}")
    return codes, matrix, _point_weights(sample_weight, array.shape[0], metric)


def _weighted_mean(values: FloatArray, weights: FloatArray | None) -> float:
    """``sum(weights * values) / sum(weights)``, both sums exactly rounded (weights
    None: the plain mean)."""
    if weights is None:
        return float(_exact_sum(values)) / len(values)
    return float(_exact_sum(weights * values)) / float(_exact_sum(weights))


def brier_score(y_true: Labels, y_prob: Probabilities, *, sample_weight: Weights | None = None,
                pos_label: Label = None, classes: Sequence[Label] | None = None) -> float:
    """The Brier score: the mean squared difference between label and probability.

    ``sum_i w_i (y_i - p_i)^2 / sum_i w_i`` with y_i = 1 for class 1 and 0
    for class 0; 0 for certain and right probabilities, 1 for certain and
    wrong ones.  With k >= 3 classes, ``sum_i w_i sum_c (y_ic - p_ic)^2 /
    sum_i w_i`` (y_ic = 1 for the point's class), in [0, 2].

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1, -1/1 or bool; with an (n, k) ``y_prob``, any k labels.
    y_prob : array-like of shape (n,), (n, 1) or (n, k)
        The probability of class 1 of each point, in [0, 1]; or each point's
        probabilities of the k classes (``predict_proba``), rows summing to 1.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point; at least one positive.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Not with
        an (n, k) ``y_prob``.
    classes : sequence of labels, optional
        The class of each column of an (n, k) ``y_prob`` (scikit-learn's
        ``labels``).  Default: the sorted labels of ``y_true``, which must
        then be k.

    Returns
    -------
    float
        In [0, 1]; lower is better.

    Raises
    ------
    ValueError
        On invalid input (a label, probability or weight named with its
        position), empty input, or weights that are all 0.

    See Also
    --------
    calibration_report : Murphy's decomposition of the score over bins.
    log_loss : the logarithmic score.

    Notes
    -----
    O(n k).  Equal to ``sklearn.metrics.brier_score_loss`` of binary labels
    (also with one class absent, which leaves the score defined), and of k
    classes (halved for two columns, as scikit-learn's ``scale_by_half="auto"``,
    so that (n, 2) probabilities score as their class 1 column).  Rows that
    do not sum to 1 are refused (scikit-learn warns).  The sums are exactly
    rounded (``math.fsum``).  The score of G. W. Brier,
    "Verification of forecasts expressed in terms of probability", Monthly
    Weather Review 78(1), 1950, for two classes, halved (Brier summed over
    both classes).

    Examples
    --------
    >>> from hmeasure_stream import brier_score
    >>> brier_score([0, 1, 1, 0], [0.25, 0.75, 1.0, 0.5])
    0.09375
    >>> brier_score(["spam", "ham", "ham", "spam"], [0.25, 0.75, 1.0, 0.5], pos_label="ham")
    0.09375
    >>> brier_score(["cat", "dog", "emu"], [[0.5, 0.5, 0], [0, 1, 0], [0.25, 0.25, 0.5]])
    0.2916666666666667
    """
    if _is_class_matrix(y_prob):
        codes, matrix, weights = _class_probability_input(
            y_true, y_prob, sample_weight, classes, pos_label, "The Brier score")
        gaps = matrix.copy()
        gaps[np.arange(codes.shape[0]), codes] -= 1.0
        squares = np.square(gaps).sum(axis=1)
        # Two columns: the binary score, which counts the one class's gap once.
        return _weighted_mean(squares / 2 if matrix.shape[1] == 2 else squares, weights)
    _no_classes(classes)
    is_pos, probs, weights, _ = _probability_input(y_true, y_prob, sample_weight, pos_label,
                                                   "The Brier score")
    return _weighted_mean(np.square(is_pos - probs), weights)


def _no_classes(classes: object) -> None:
    if classes is not None:
        raise ValueError("classes= names the columns of an (n, k) y_prob; y_prob holds the "
                         "probabilities of class 1 only")


def log_loss(y_true: Labels, y_prob: Probabilities, *, sample_weight: Weights | None = None,
             pos_label: Label = None, classes: Sequence[Label] | None = None) -> float:
    """The log loss: the mean negative log-likelihood of the labels under the probabilities.

    ``-sum_i w_i (y_i log p_i + (1 - y_i) log(1 - p_i)) / sum_i w_i``
    (natural logarithm), each probability first clipped to
    ``[eps, 1 - eps]`` with eps the float64 machine epsilon (2.2e-16), so
    that a certain and wrong probability costs -log(eps) = 36.04, not inf.
    With an (n, k) ``y_prob``, ``-sum_i w_i log p_i,c(i) / sum_i w_i``, the
    probability of each point's own class, clipped alike.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label, classes
        As for :func:`brier_score`.

    Returns
    -------
    float
        >= 0; lower is better.

    Raises
    ------
    ValueError
        As for :func:`brier_score`.

    See Also
    --------
    brier_score : the quadratic score.

    Notes
    -----
    O(n).  Equal to ``sklearn.metrics.log_loss`` of binary labels with the
    probabilities of class 1, which clips ``p`` and ``1 - p`` to
    ``[eps, 1 - eps]`` with eps the machine epsilon of the probabilities'
    dtype: the probabilities are read as float64 here, so the clip is
    float64's for any input (scikit-learn clips float32 input at float32's
    epsilon, 1.2e-7).  One class absent leaves the loss defined: it equals
    scikit-learn's with ``labels=[0, 1]`` (without, scikit-learn refuses).
    Of k classes, equal to scikit-learn's with ``labels=classes``; rows that
    do not sum to 1 are refused (scikit-learn warns).  O(n k).  The sums are
    exactly rounded (``math.fsum``).

    Examples
    --------
    >>> from hmeasure_stream import log_loss
    >>> round(log_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 6)
    0.197635
    >>> round(log_loss([1], [0.0]), 4)  # clipped at eps: -log(2.2e-16)
    36.0437
    """
    if _is_class_matrix(y_prob):
        codes, matrix, weights = _class_probability_input(
            y_true, y_prob, sample_weight, classes, pos_label, "The log loss")
        own = matrix[np.arange(codes.shape[0]), codes]
        return _weighted_mean(-np.log(np.clip(own, _LOG_EPS, 1 - _LOG_EPS)), weights)
    _no_classes(classes)
    is_pos, probs, weights, _ = _probability_input(y_true, y_prob, sample_weight, pos_label,
                                                   "The log loss")
    # The probability given to each point's own class (1 - p computed first, as
    # scikit-learn does), clipped.
    own = np.where(is_pos == 1, probs, 1 - probs)
    return _weighted_mean(-np.log(np.clip(own, _LOG_EPS, 1 - _LOG_EPS)), weights)


class _Bins(NamedTuple):
    """The points' bins and each bin's sums (all ``n_bins``, empty ones included)."""

    edges: np.ndarray
    index: np.ndarray  # type: ignore[assignment]  # the bin of each point (a field, not tuple.index)
    weight: np.ndarray     # sum of w per bin
    prob_pred: np.ndarray  # mean p per bin (0 where empty)
    prob_true: np.ndarray  # share of class 1 per bin (0 where empty)
    filled: np.ndarray     # the bins of positive weight


def _check_binning(n_bins: int, strategy: str
                   ) -> tuple[int, Literal["uniform", "quantile"]]:
    return (check_bins(n_bins, "n_bins"),
            check_option(strategy, "strategy", ("uniform", "quantile")))


def _bins(is_pos: FloatArray, probs: FloatArray, weights: FloatArray | None, n_bins: int,
          strategy: str) -> _Bins:
    """The bins of scikit-learn's ``calibration_curve`` and their weighted means."""
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        # The percentiles of the probabilities, each point of positive weight
        # counting once (calibration_curve's edges, which it computes without weights).
        kept = probs if weights is None else probs[weights > 0]
        edges = np.percentile(kept, np.linspace(0, 1, n_bins + 1) * 100)
    # A probability on an inner edge belongs to the bin below it; 0 and 1 to the end bins.
    index = np.searchsorted(edges[1:-1], probs)
    weight: FloatArray
    if weights is None:
        weight = np.bincount(index, minlength=n_bins).astype(np.float64)
        sum_prob = np.bincount(index, weights=probs, minlength=n_bins)
        sum_pos = np.bincount(index, weights=is_pos, minlength=n_bins)
    else:
        weight = np.asarray(np.bincount(index, weights=weights, minlength=n_bins),
                            dtype=np.float64)
        sum_prob = np.bincount(index, weights=weights * probs, minlength=n_bins)
        sum_pos = np.bincount(index, weights=weights * is_pos, minlength=n_bins)
    filled = weight > 0
    prob_pred = np.divide(sum_prob, weight, out=np.zeros(n_bins), where=filled)
    prob_true = np.divide(sum_pos, weight, out=np.zeros(n_bins), where=filled)
    return _Bins(edges, index, weight, prob_pred, prob_true, filled)


def _gap_norm(bins: _Bins, norm: str) -> float:
    """The bins' gaps |mean p - share of class 1| in ``norm``: their mean by weight
    ("l1", the ECE), the root of their mean square by weight ("l2", the RMS calibration
    error) or their maximum ("max", the MCE)."""
    gaps = np.abs(bins.prob_pred - bins.prob_true)[bins.filled]
    weight = bins.weight[bins.filled]
    if norm == "l1":
        return _weighted_mean(gaps, weight)
    if norm == "l2":
        return math.sqrt(_weighted_mean(np.square(gaps), weight))
    return float(gaps.max())


def _gaps_l1_max(bins: _Bins) -> tuple[float, float]:
    """(ECE, MCE) of the bins."""
    return _gap_norm(bins, "l1"), _gap_norm(bins, "max")


def calibration_error(y_true: Labels, y_prob: Probabilities, *, n_bins: int = 10,
                      strategy: Literal["uniform", "quantile"] = "uniform",
                      norm: Literal["l1", "l2", "max"] = "l1",
                      sample_weight: Weights | None = None,
                      pos_label: Label = None) -> float:
    """Expected or maximum calibration error over bins of the probabilities.

    The points are put in bins by their probability; in each bin b with
    weight W_b the gap is ``|mean p - share of class 1|``.  The expected
    calibration error (ECE, ``norm="l1"``) is the mean gap weighted by
    ``W_b / sum W``, the root mean square calibration error (``norm="l2"``)
    the root of the mean squared gap so weighted, the maximum calibration
    error (MCE, ``norm="max"``) the largest gap; bins without points take no
    part.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As for :func:`brier_score`.
    n_bins : int in [1, 2**24], default 10
        The number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: bins of width 1 / n_bins over [0, 1].
        ``"quantile"``: the edges are the 0, 1/n_bins, ..., 1 quantiles
        (``numpy.percentile``, linear) of the probabilities, so the bins
        hold about as many points each.  As in scikit-learn's
        ``calibration_curve``, a probability on an inner edge falls into
        the bin below it.
    norm : {"l1", "l2", "max"}, default "l1"
        ECE, RMS calibration error or MCE.

    Returns
    -------
    float
        In [0, 1]; 0 when every bin is calibrated.

    Raises
    ------
    ValueError
        As for :func:`brier_score`, and for a bad ``n_bins``, ``strategy``
        or ``norm``.

    See Also
    --------
    calibration_report : the bins with both errors.

    Notes
    -----
    O(n) with uniform bins, O(n log n) with quantile bins.  The bins, their
    mean probabilities and shares of class 1 are those of
    ``sklearn.calibration.calibration_curve(y_true, y_prob, n_bins=n_bins,
    strategy=strategy)`` (whose default is 5 bins), which has no weights:
    with ``sample_weight`` the means are weighted, and the quantile edges
    stay the percentiles of the probabilities of the points of positive
    weight, each counting once.  The errors of M. P. Naeini, G. F. Cooper
    and M. Hauskrecht, "Obtaining well calibrated probabilities using
    Bayesian binning", AAAI 2015; ``"l2"`` is torchmetrics'
    ``calibration_error(norm="l2")`` (its bins put a probability on an inner
    edge in the bin above: the values agree wherever none lies on one).  The
    ECE depends on the bins: it is a reading of the reliability diagram, not
    a proper score.

    Examples
    --------
    >>> from hmeasure_stream import calibration_error
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> p = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8]
    >>> round(calibration_error(y, p, n_bins=2), 6)  # (|0.2 - 1/3| + |0.7 - 2/3|) / 2
    0.083333
    >>> round(calibration_error(y, p, n_bins=2, norm="max"), 6)
    0.133333
    >>> round(calibration_error(y, p, n_bins=2, norm="l2"), 6)  # sqrt of the mean square
    0.097183
    """
    n_bins, strategy = _check_binning(n_bins, strategy)
    norm = check_option(norm, "norm", ("l1", "l2", "max"))
    is_pos, probs, weights, _ = _probability_input(y_true, y_prob, sample_weight, pos_label,
                                                   "The calibration error")
    return _gap_norm(_bins(is_pos, probs, weights, n_bins, strategy), norm)


def calibration_report(y_true: Labels, y_prob: Probabilities, *, n_bins: int = 10,
                       strategy: Literal["uniform", "quantile"] = "uniform",
                       sample_weight: Weights | None = None,
                       pos_label: Label = None) -> CalibrationReport:
    """The reliability curve, calibration errors and Murphy's decomposition of the Brier score.

    Over the bins of :func:`calibration_error` (b with weight W_b, mean
    probability f_b and share of class 1 o_b; o the overall share, W the
    total weight), Murphy's decomposition is

    - reliability ``REL = sum_b W_b (f_b - o_b)^2 / W``,
    - resolution ``RES = sum_b W_b (o_b - o)^2 / W``,
    - uncertainty ``UNC = o (1 - o)``,

    with ``brier = REL - RES + UNC`` when the probabilities are constant in
    every bin.  Otherwise two more terms complete it:
    ``brier = REL - RES + UNC + WBV - WBC`` with the within-bin variance
    ``WBV = sum_i w_i (p_i - f_b(i))^2 / W`` and covariance
    ``WBC = 2 sum_i w_i (p_i - f_b(i)) (y_i - o_b(i)) / W``.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As for :func:`brier_score`.
    n_bins, strategy
        As for :func:`calibration_error`.

    Returns
    -------
    CalibrationReport
        The bins of positive weight (``prob_true``, ``prob_pred``,
        ``bin_weight``, ``bin_index``), all the edges, the Brier score, ECE,
        MCE and the five terms of the decomposition.

    Raises
    ------
    ValueError
        As for :func:`calibration_error`.

    See Also
    --------
    brier_score, calibration_error : the values alone.

    Notes
    -----
    O(n) with uniform bins, O(n log n) with quantile bins.  The decomposition
    of A. H. Murphy, "A new vector partition of the probability score",
    Journal of Applied Meteorology 12(4), 1973, for probabilities that take
    one value per bin; the two within-bin terms for probabilities that vary
    inside a bin are those of D. B. Stephenson, C. A. S. Coelho and I. T.
    Jolliffe, "Two extra components in the Brier score decomposition",
    Weather and Forecasting 23(4), 2008.  The identity is exact in real
    arithmetic; each term is computed on its own (from the gaps to the bin
    means), so the computed terms meet it up to rounding.  The Brier score
    is G. W. Brier's (Monthly Weather Review, 1950); ECE and MCE are those
    of Naeini, Cooper and Hauskrecht (AAAI 2015).

    Examples
    --------
    >>> from hmeasure_stream import calibration_report
    >>> report = calibration_report([0, 0, 1, 0, 1, 1], [0.2, 0.2, 0.2, 0.7, 0.7, 0.7],
    ...                             n_bins=2)
    >>> report.prob_true, report.prob_pred
    (array([0.33333333, 0.66666667]), array([0.2, 0.7]))
    >>> round(report.brier, 6)
    0.231667
    >>> terms = report.reliability, report.resolution, report.uncertainty
    >>> [round(term, 6) for term in terms]
    [0.009444, 0.027778, 0.25]
    >>> round(report.reliability - report.resolution + report.uncertainty, 6)
    0.231667
    """
    n_bins, strategy = _check_binning(n_bins, strategy)
    is_pos, probs, weights, exponent = _probability_input(
        y_true, y_prob, sample_weight, pos_label, "The calibration report")
    bins = _bins(is_pos, probs, weights, n_bins, strategy)
    ece, mce = _gaps_l1_max(bins)
    filled = bins.filled
    weight = bins.weight[filled]
    share = _weighted_mean(is_pos, weights)
    # Each point's gaps to its bin's means (Stephenson et al. 2008, section 2).
    prob_gap = probs - bins.prob_pred[bins.index]
    label_gap = is_pos - bins.prob_true[bins.index]
    arrays = {"prob_true": bins.prob_true[filled], "prob_pred": bins.prob_pred[filled],
              "bin_weight": np.ldexp(weight, exponent), "bin_index": np.flatnonzero(filled),
              "bin_edges": bins.edges}
    for array in arrays.values():
        array.setflags(write=False)
    return CalibrationReport(
        **arrays,
        brier=_weighted_mean(np.square(is_pos - probs), weights),
        ece=ece,
        mce=mce,
        reliability=_weighted_mean(np.square(bins.prob_pred[filled] - bins.prob_true[filled]),
                                   weight),
        resolution=_weighted_mean(np.square(bins.prob_true[filled] - share), weight),
        uncertainty=share * (1 - share),
        within_bin_variance=_weighted_mean(np.square(prob_gap), weights),
        within_bin_covariance=2 * _weighted_mean(prob_gap * label_gap, weights),
    )
