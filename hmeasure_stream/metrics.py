"""Exact from-scratch metrics on arrays: AUC, the ROC convex hull, the H-measure.

These are the reference functions every dynamic structure of the package is
tested against, and fast in their own right: O(n log n), dominated by two
numpy sorts, with the linear passes in compiled code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hmeasure_stream._core.curves import hull_of
from hmeasure_stream._core.groups import auc_value as _auc_value
from hmeasure_stream._core.groups import exact_sum as _exact_sum
from hmeasure_stream._core.groups import hull_and_cost as _hull_and_cost
from hmeasure_stream._core.groups import hull_h_and_auc as _hull_h_and_auc
from hmeasure_stream._core.groups import roc_groups as _roc_groups
from hmeasure_stream._core.groups import roc_hull_edges as _roc_hull_edges
from hmeasure_stream._core.groups import roc_sums as _roc_sums
from hmeasure_stream._core.report import curve_metrics, r_lookup, r_report, report_levels
from hmeasure_stream._core.report import unit as _unit
from hmeasure_stream._engines import _scratch
from hmeasure_stream._validation import (
    FloatArray,
    Label,
    Priors,
    SeverityRatio,
    check_cost,
    check_labels,
    check_max_fpr,
    check_weights,
    import_optional,
    labels_and_ranked_scores,
    labels_as_is_pos,
    threshold_key,
    warn_if_inverted,
    with_pos_label,
)
from hmeasure_stream.curves import ROCCurve
from hmeasure_stream.partial import partial_auc
from hmeasure_stream.typing import Labels, Scores, Weights

__all__ = ["auc", "h_measure", "hmeasure_report", "roc_hull", "roc_points"]


def auc(y_true: Labels, y_score: Scores, *, sample_weight: Weights | None = None,
        pos_label: Label = None,
        max_fpr: float | None = None) -> float:
    """Area under the ROC curve, exactly, from scratch.

    The Mann-Whitney statistic: the probability that a random class 1 point
    scores higher than a random class 0 point, ties counting one half.  Equal
    to ``sklearn.metrics.roc_auc_score`` (also with ``sample_weight`` and
    ``max_fpr``).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,) or (n, 1)
        Scores, any finite real numbers (any numeric dtype).  An (n, 2)
        ``predict_proba`` output is refused: pass its class 1 column.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).
    max_fpr : float in (0, 1], optional
        scikit-learn's standardised partial AUC: the area under the curve for
        false positive rates in [0, max_fpr] with McClish's correction,
        ``partial_auc(..., fpr_range=(0, max_fpr), correction="mcclish")``;
        1/2 for the diagonal, 1 for a perfect classifier.  None or 1: the
        whole AUC.

    Returns
    -------
    float
        The AUC in [0, 1] (with ``max_fpr``: the standardised partial AUC, in
        [0, 1]).

    Raises
    ------
    ValueError
        If the input is not 1-d (or an (n, 1) column), is empty, the lengths
        differ, a label is not 0/1, a score or weight is not finite, a weight
        is negative, only one class is present (with positive weight), or
        ``max_fpr`` is not a number in (0, 1].

    Warns
    -----
    InvertedScoresWarning
        If the AUC is below 0.5: the scores rank class 0 above class 1.  The
        value is not flipped; silence with ``warnings.filterwarnings("ignore",
        category=InvertedScoresWarning)``.  Not for a partial AUC
        (``max_fpr`` < 1), which may lie below 1/2 for a good classifier.

    See Also
    --------
    h_measure : Hand's H-measure of the same input.
    hmeasure_report : AUC with the other summaries of R's hmeasure.
    hmeasure_stream.partial_auc : partial areas over any range, corrected or not.

    Notes
    -----
    O(n log n) time, all in compiled passes but numpy's sorts.  Without weights: one pass checks the
    labels and scores and splits the scores by class into one new buffer, each class is sorted in
    place (numpy's vectorised sort where the CPU has one, else a radix sort on the bits of the
    floats from 2**12 scores), and one branch-free merge, cut into four stretches advanced in
    lockstep, counts the class 1 scores below and equal to each class 0 score (Tatti, Alg. 1).  The
    statistic is accumulated as an exact integer (2U), so the result is the correctly rounded value
    of 2U / (2 n0 n1).  With weights the points are sorted once and the sums are compensated.  O(n)
    extra memory.  With ``max_fpr`` < 1 the value is :func:`~hmeasure_stream.partial_auc`'s (exact
    without weights; scikit-learn's, up to its rounding).

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time", Alg. 1.

    Examples
    --------
    >>> from hmeasure_stream import auc
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auc([0, 1, 1], [0.5, 0.5, 0.9])  # a tie counts one half
    0.75
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[1, 3, 1, 1])
    0.625
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=0.5)  # roc_auc_score's max_fpr
    0.6666666666666666
    """
    max_fpr = check_max_fpr(max_fpr)
    if max_fpr is not None and max_fpr < 1.0:
        return partial_auc(y_true, y_score, fpr_range=(0.0, max_fpr), correction="mcclish",
                           sample_weight=sample_weight, pos_label=pos_label)
    value = _auc_value(with_pos_label(y_true, pos_label), y_score, sample_weight)
    warn_if_inverted(value, "auc")
    return value


def roc_points(y_true: Labels, y_score: Scores, *, sample_weight: Weights | None = None,
               pos_label: Label = None) -> tuple[FloatArray, FloatArray]:
    """Points of the ROC curve, one per distinct score, from (0, 0) to (1, 1).

    The point of a threshold t is (FPR, TPR) of the rule "class 1 when the
    score is >= t", for every distinct score t from the highest down.  Joined
    by straight segments (ties as diagonal segments) they are the curve whose
    area :func:`auc` is.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.  A point of weight 0 is
        absent: a score held only by such points gives no point.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    fpr : ndarray of float64
        False positive rates, from 0 to 1, non-decreasing.
    tpr : ndarray of float64
        True positive rates of the same points, from 0 to 1, non-decreasing.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`.

    See Also
    --------
    roc_hull : the convex hull of these points.

    Notes
    -----
    O(n log n) time, O(n) memory.  Equal to ``sklearn.metrics.roc_curve``
    with ``drop_intermediate=False``, without its thresholds.

    References
    ----------
    T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
    Letters 27, 2006.

    Examples
    --------
    >>> from hmeasure_stream import roc_points
    >>> fpr, tpr = roc_points([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    """
    y_true = with_pos_label(y_true, pos_label)
    fp, tp = _roc_sums(*_roc_groups(y_true, y_score, sample_weight, "The ROC curve"))
    return fp / fp[-1], tp / tp[-1]


def roc_hull(y_true: Labels, y_score: Scores, *, sample_weight: Weights | None = None,
             pos_label: Label = None,
             return_thresholds: bool = False) -> ROCCurve | tuple[FloatArray, FloatArray]:
    """Vertices of the convex hull of the ROC curve.

    The hull is the ROC curve of the best classifiers that randomise between
    two thresholds of ``y_score``; the H-measure and the AUCH are computed on
    it.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).
    return_thresholds : bool, default False
        Also return the threshold of each vertex: the vertex is the ROC point
        of "class 1 when the score is >= threshold" (:ref:`rule <thresholds>`;
        ``inf`` for (0, 0)).

    Returns
    -------
    fpr : ndarray of float64
        False positive rates of the hull vertices, from 0 to 1, increasing.
    tpr : ndarray of float64
        True positive rates of the same vertices, from 0 to 1.  Collinear and
        repeated points are removed, so consecutive edges have strictly
        decreasing slopes.  When the ROC curve never rises above the diagonal
        the hull is the diagonal itself.
    thresholds : ndarray
        With ``return_thresholds``: decreasing, one per vertex (scores, as
        :func:`roc_curve`'s); the three arrays are then a :class:`ROCCurve`.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`.

    See Also
    --------
    h_measure : computed on this hull.

    Notes
    -----
    O(n log n) time: the ROC points of the distinct scores, from the highest
    score down, go through Andrew's monotone chain (upper hull).  For unit
    weights all orientation tests are exact integer arithmetic; with
    ``sample_weight`` a vertex whose turn is within a relative 1e-12 of a
    straight line is treated as collinear and dropped.

    References
    ----------
    F. Provost and T. Fawcett, "Robust classification for imprecise
    environments", Machine Learning 42, 2001.

    Examples
    --------
    >>> from hmeasure_stream import roc_hull
    >>> fpr, tpr = roc_hull([0, 0, 1, 0, 1, 1], [1, 2, 3, 4, 5, 6])
    >>> fpr
    array([0.        , 0.        , 0.33333333, 1.        ])
    >>> tpr
    array([0.        , 0.66666667, 1.        , 1.        ])
    >>> roc_hull([0, 0, 1, 0, 1, 1], [1, 2, 3, 4, 5, 6], return_thresholds=True).thresholds
    array([inf,  5.,  3.,  1.])
    """
    y_true, scores, scale = labels_and_ranked_scores(y_true, y_score, pos_label)
    groups = _roc_groups(y_true, scores, sample_weight, "The ROC hull",
                         with_keys=return_thresholds)
    if return_thresholds:
        # with_keys: (keys, group_neg, group_pos).
        return ROCCurve(*hull_of(*groups[1:], groups[0], scale))  # type: ignore[call-arg]
    hull: tuple[FloatArray, FloatArray] = hull_of(*groups)
    return hull


def h_measure(
    y_true: Labels,
    y_score: Scores,
    *,
    alpha: float = 2.0,
    beta: float = 2.0,
    severity_ratio: SeverityRatio = None,
    priors: Priors = None,
    sample_weight: Weights | None = None,
    pos_label: Label = None,
) -> float:
    """Hand's H-measure, exactly, from scratch.

    One minus the expected minimum misclassification loss, normalised by the
    loss of the best trivial classifier, when the cost of a false positive
    ``c`` (relative to ``1 - c`` for a false negative) is drawn from
    Beta(alpha, beta).  The minimum is taken over the convex hull of the ROC
    curve (Tatti, Eq. 5).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    alpha, beta : float, default=2.0
        Parameters of the Beta distribution of the cost ``c``.
    severity_ratio : float or "prior", optional
        R hmeasure's parameterisation instead of alpha/beta: ``SR`` (the cost
        of a false positive over that of a false negative) means
        Beta(2, 1 + 1/SR); ``"prior"`` is R's default SR = pi1 / pi0.  Cannot
        be combined with alpha/beta other than their defaults.
    priors : (float, float), optional
        Class priors (pi0, pi1) to use instead of the class proportions of the
        data (Tatti, Sec. 6).  They must lie in (0, 1) and sum to 1.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    float
        The H-measure in [0, 1]; 1 for perfectly separated classes, 0 when the
        ROC curve never rises above the diagonal.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`; if alpha, beta or the severity
        ratio is not a finite number > 0, the priors are not two probabilities
        summing to 1, or severity_ratio is combined with alpha/beta.

    Warns
    -----
    InvertedScoresWarning
        If the AUC is below 0.5 (the scores rank class 0 above class 1); the
        value is not flipped.  Silence it with ``warnings.filterwarnings(
        "ignore", category=hmeasure_stream.InvertedScoresWarning)``.

    See Also
    --------
    hmeasure_report : H with R hmeasure's other summaries.
    roc_hull : the hull H is computed on.

    Notes
    -----
    Equals R's ``HMeasure(...)$metrics$H`` (and the ``hmeasure`` Python
    port) except that **scores are never flipped**: R reverses the scores
    when the AUC is below 0.5, here such a classifier keeps its low H.

    The loss is summed over the hull edges: edge j with class weights
    (d0_j, d1_j) contributes a_j I(c_j) + b_j J(c_j), where a_j = pi0 d0_j / N0,
    b_j = pi1 d1_j / N1, c_j = b_j / (a_j + b_j) and I, J are regularised
    incomplete beta functions (Tatti, Eqs. 6-7).  O(n log n) time for the
    sorts and O(h) incomplete beta evaluations for a hull of h vertices.

    References
    ----------
    .. [1] D. J. Hand, "Measuring classifier performance: a coherent
       alternative to the area under the ROC curve", Machine Learning 77,
       2009.
    .. [2] D. J. Hand and C. Anagnostopoulos, "A better Beta for the H
       measure of classification performance", Pattern Recognition Letters
       40, 2014.
    .. [3] N. Tatti, "Maintaining AUC and H-measure over time".

    Examples
    --------
    >>> from hmeasure_stream import h_measure
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> round(h_measure(y, s), 6)
    0.674074
    >>> round(h_measure(y, s, severity_ratio=0.5), 6)  # false positives half as costly
    0.644444
    >>> h_measure([0, 1], [0.2, 0.7])  # perfectly separated
    1.0
    """
    y_true = with_pos_label(y_true, pos_label)
    spec = check_cost(alpha, beta, severity_ratio, priors)
    value, roc_auc = _hull_h_and_auc(
        *_roc_hull_edges(y_true, y_score, sample_weight, "The H-measure"), spec)
    warn_if_inverted(roc_auc, "h_measure")
    return value


def hmeasure_report(
    y_true: Labels,
    y_score: Scores,
    *,
    alpha: float = 2.0,
    beta: float = 2.0,
    severity_ratio: SeverityRatio = None,
    priors: Priors = None,
    sample_weight: Weights | None = None,
    sens_spec_levels: float | Sequence[float] = 0.95,
    threshold: float = 0.5,
    as_frame: bool = False,
    pos_label: Label = None,
) -> Any:
    """R hmeasure's summary of one classifier: H, Gini, AUC, AUCH, KS, MER, MWL, ...

    The scalar metrics of R's ``HMeasure`` for one classifier, from one sort of
    the data, under the same conventions and options as :func:`h_measure`.

    Parameters
    ----------
    y_true, y_score, alpha, beta, severity_ratio, priors, sample_weight
        As for :func:`h_measure`.  R's default is ``severity_ratio="prior"``.
    sens_spec_levels : float or sequence of float, default=0.95
        The sensitivity (specificity) levels at which specificity
        (sensitivity) is reported, each in (0, 1) (R's ``level``).
    threshold : float, default=0.5
        The threshold of the crisp rule "class 1 when the score is >=
        ``threshold``" (:ref:`rule <thresholds>`; R's ``threshold``, where R
        classifies ``score > threshold``) whose confusion matrix gives the
        metrics from ``ER`` on; any finite number, compared with the scores
        exactly.
    as_frame : bool, default=False
        Return a one-row :class:`pandas.DataFrame` (requires pandas) instead
        of a dict.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    dict or pandas.DataFrame
        Keys in R's order and with R's names:

        - ``H``: the H-measure (:func:`h_measure`);
        - ``Gini``: 2 AUC - 1;
        - ``AUC``: area under the ROC curve (:func:`auc`);
        - ``AUCH``: area under the ROC convex hull;
        - ``KS``: Kolmogorov-Smirnov statistic, the largest ``abs(TPR - FPR)``
          over thresholds;
        - ``MER``: minimum error rate, min of pi0 FPR + pi1 (1 - TPR);
        - ``MWL``: minimum weighted loss, 2 min of c pi0 FPR + (1 - c) pi1 (1 - TPR),
          at c = SR / (1 + SR) (for alpha/beta: the mode of the Beta, or its mean
          when alpha <= 1 or beta <= 1);
        - ``Spec.SensXX``: specificity where sensitivity reaches XX %;
        - ``Sens.SpecXX``: sensitivity where specificity reaches XX %;
        - at ``threshold`` (class 1 when score >= threshold), R's
          ``misclassCounts``: ``ER`` (error rate, (FP + FN) / N), ``Sens``,
          ``Spec``, ``Precision``, ``Recall`` (= Sens), ``TPR`` (= Sens),
          ``FPR`` (1 - Spec), ``F`` (2 / (1/Precision + 1/Sens)), ``Youden``
          (Sens + Spec - 1) and the confusion weights ``TP``, ``FP``, ``TN``,
          ``FN`` (point counts with unit weights), as floats.  A ratio with
          denominator 0 (no point at or above the threshold: Precision) is
          nan, as in R.

        XX is R's name, the whole percent of the level as written, computed
        exactly (``0.29`` gives ``Spec.Sens29``, where R's
        ``floor(100 * 0.29)`` gives 28), unless two levels share it: then
        each of those has its percent with decimals (``[0.951, 0.959]``
        give ``Spec.Sens95.1`` and ``Spec.Sens95.9``, which R names alike).
        A level is read as the decimal its type prints (``np.float32(0.95)``
        is 0.95); a repeated level is reported once.

    Raises
    ------
    ValueError
        As for :func:`h_measure`, if a level is not in (0, 1) (or no level
        is given), or if the threshold is not a finite number.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    Warns
    -----
    InvertedScoresWarning
        If the AUC is below 0.5 (the scores rank class 0 above class 1); the
        value is not flipped.  Silence it with ``warnings.filterwarnings(
        "ignore", category=hmeasure_stream.InvertedScoresWarning)``.

    See Also
    --------
    h_measure, auc, roc_hull

    Notes
    -----
    The definitions are R hmeasure's (``HMeasure(...)$metrics``), computed on
    the exact class weights, with two deliberate differences: scores are never
    flipped when the AUC is below 0.5, and MER/MWL use ``priors`` when given
    (R always uses the class proportions).  The fixed-level values keep R's
    lookup rule, whose interpolation weights are reversed with respect to
    linear interpolation between the two ROC points around the level; where a
    class's empirical CDF equals the level itself (e.g. 190 of 200 points at
    0.95), R's running sum of rounded fractions falls on either side of it by
    chance, and here the correctly rounded CDF decides.  The threshold
    metrics are those of the scores as given (R computes them after flipping
    the scores of a classifier whose AUC is below 0.5), and a score equal to
    the threshold is class 1 (R's rule is ``score > threshold``: pass
    ``numpy.nextafter(t, numpy.inf)`` for R's values at ``t``); with
    ``sample_weight`` they are sums of weights.

    O(n log n) time, O(n) memory.

    References
    ----------
    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    C. Anagnostopoulos and D. J. Hand, hmeasure: the H-measure and other
    scalar classification performance metrics (R package).

    Examples
    --------
    >>> from hmeasure_stream import hmeasure_report
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> report = hmeasure_report(y, s, severity_ratio="prior")
    >>> list(report)[:9]
    ['H', 'Gini', 'AUC', 'AUCH', 'KS', 'MER', 'MWL', 'Spec.Sens95', 'Sens.Spec95']
    >>> report["AUC"], report["Gini"], report["AUCH"], report["KS"]
    (0.875, 0.75, 0.9375, 0.75)
    >>> {key: report[key] for key in ("ER", "Precision", "TP", "FP", "TN", "FN")}
    {'ER': 0.125, 'Precision': 1.0, 'TP': 3.0, 'FP': 0.0, 'TN': 4.0, 'FN': 1.0}
    """
    spec = check_cost(alpha, beta, severity_ratio, priors)
    levels = report_levels(sens_spec_levels)
    y_true, scores, scale = labels_and_ranked_scores(y_true, y_score, pos_label)
    key = threshold_key(threshold, scale=scale)
    group_neg, group_pos, hull, cost = _hull_and_cost(y_true, scores, sample_weight, spec)
    weight_neg, weight_pos = float(hull[0][-1]), float(hull[1][-1])

    # ROC points from the highest score down; R's empirical class CDFs F0, F1
    # are the same points read from the lowest score up.
    fp, tp = _roc_sums(group_neg, group_pos)
    fpr, tpr = fp / weight_neg, tp / weight_pos
    cdf_neg, cdf_pos = (1.0 - fpr)[::-1], (1.0 - tpr)[::-1]

    roc_auc = float(_scratch.auc2_groups(group_neg, group_pos) / (2.0 * weight_neg * weight_pos))
    warn_if_inverted(_unit(roc_auc), "hmeasure_report")
    curve = curve_metrics(hull, cost, (fpr, tpr), [(fpr, tpr)])
    # The input passed every check above; the threshold is compared with the
    # user's scores exactly, through the keys of the scale.
    is_pos = labels_as_is_pos(check_labels(y_true)).astype(bool)
    above = scores >= key
    weights = (np.ones(is_pos.shape[0]) if sample_weight is None
               else check_weights(sample_weight, is_pos.shape[0]))
    counts = (_exact_sum(weights[is_pos & above]), _exact_sum(weights[~is_pos & above]),
              _exact_sum(weights[~is_pos & ~above]), _exact_sum(weights[is_pos & ~above]))
    report = r_report(
        levels, roc_auc, curve,
        spec_at_sens=lambda level: r_lookup(cdf_pos, cdf_neg, 1.0 - level),
        sens_at_spec=lambda level: r_lookup(cdf_neg, 1.0 - cdf_pos, level),
        counts=counts,
    )
    if as_frame:
        pd = import_optional("pandas", needed_by="hmeasure_report(as_frame=True)",
                             install="pandas")
        return pd.DataFrame([report])
    return report
