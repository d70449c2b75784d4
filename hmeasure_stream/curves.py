"""Curves with their thresholds and the operating points read from them.

From-scratch functions on whole arrays, O(n log n) (one sort, then linear
passes over the distinct scores):

- :func:`roc_curve` -- the ROC curve with its thresholds (scikit-learn's);
- :func:`precision_recall_curve` -- the precision-recall curve with its
  thresholds (scikit-learn's);
- :func:`average_precision` -- the area under the precision-recall steps
  (scikit-learn's ``average_precision_score``);
- :func:`coords` -- operating points at thresholds, specificities or
  sensitivities, or the best one (pROC's ``coords``);
- :func:`min_cost_threshold` -- the threshold of least expected
  misclassification loss for a cost (the loss H integrates over costs).

Every curve is read from the *groups*: the distinct scores from the highest
down with the class weights of their points; the rule of a threshold t is
"class 1 when the score is >= t" (the package's one rule, docs/api.rst,
"Thresholds"), so the cumulative class weights of the groups down to t are
its false and true positives.  A point of zero weight
is absent (as in scikit-learn): a score whose points all weigh zero is no
threshold.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from hmeasure_stream._core.curves import (
    average_precision_value,
    check_coords_options,
    coords_of,
    det_curve_of,
    precision_recall_of,
    roc_curve_of,
)
from hmeasure_stream._core.groups import roc_groups, roc_sums
from hmeasure_stream._validation import (
    FloatArray,
    Label,
    Priors,
    ScoreScale,
    SeverityRatio,
    check_positive,
    check_priors,
    check_probability_level,
    labels_and_ranked_scores,
)
from hmeasure_stream.typing import Columns, CostPrevalence, Labels, Scores, Weights

__all__ = ["CostThreshold", "DETCurve", "PrecisionRecallCurve", "ROCCurve",
           "average_precision", "coords", "det_curve", "min_cost_threshold",
           "precision_recall_curve", "roc_curve"]


class ROCCurve(NamedTuple):
    """The ROC curve of :func:`roc_curve`: three arrays of the same length.

    Also the vertices of the ROC hull with their thresholds
    (``roc_hull(..., return_thresholds=True)``) and the curves the
    structures read of their current points.

    Attributes
    ----------
    fpr : ndarray of float64
        False positive rates, non-decreasing from 0 to 1.
    tpr : ndarray of float64
        True positive rates, non-decreasing from 0 to 1.
    thresholds : ndarray
        Decreasing; ``fpr[i]``, ``tpr[i]`` are the rates of "class 1 when the
        score is >= thresholds[i]" (:ref:`rule <thresholds>`); the first is ``inf``
        (nothing is class 1).  float64, but for integer scores beyond 2**53:
        those scores, as objects (:ref:`rule <thresholds>`).

    See Also
    --------
    roc_curve : the curve of one set of points.
    roc_hull : its convex hull.

    Examples
    --------
    >>> from hmeasure_stream import roc_curve
    >>> curve = roc_curve([0, 1, 1], [0.2, 0.6, 0.9])
    >>> curve.tpr, curve.thresholds
    (array([0. , 0.5, 1. , 1. ]), array([inf, 0.9, 0.6, 0.2]))
    """

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


class DETCurve(NamedTuple):
    """The detection error tradeoff curve of :func:`det_curve`.

    Three arrays of the same length, thresholds increasing, as scikit-learn's
    ``det_curve`` returns them.

    Attributes
    ----------
    fpr : ndarray of float64
        False positive rates, non-increasing.
    fnr : ndarray of float64
        False negative rates (1 - TPR), non-decreasing.
    thresholds : ndarray
        Increasing: ``fpr[i]``, ``fnr[i]`` are the rates of "class 1 when the
        score is >= thresholds[i]" (:ref:`rule <thresholds>`).

    See Also
    --------
    det_curve : the curve of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import det_curve
    >>> det_curve([0, 1, 0, 1], [0.2, 0.6, 0.7, 0.9]).fnr
    array([0. , 0.5, 0.5])
    """

    fpr: np.ndarray
    fnr: np.ndarray
    thresholds: np.ndarray


class PrecisionRecallCurve(NamedTuple):
    """The precision-recall curve of :func:`precision_recall_curve`.

    Three arrays, from the lowest threshold up, as scikit-learn returns them;
    also what the structures' ``precision_recall_curve()`` returns.

    Attributes
    ----------
    precision : ndarray of float64
        Precision at each threshold, then 1 (the curve's end at recall 0).
    recall : ndarray of float64
        Recall at each threshold (non-increasing), then 0.
    thresholds : ndarray
        Increasing, one fewer than ``precision``: the distinct scores (float64,
        or their own dtype for integers beyond 2**53, :ref:`rule <thresholds>`).

    See Also
    --------
    precision_recall_curve : the curve of one set of points.
    average_precision : the area under its steps.

    Examples
    --------
    >>> from hmeasure_stream import precision_recall_curve
    >>> precision_recall_curve([0, 1, 1], [0.2, 0.6, 0.9]).recall
    array([1. , 1. , 0.5, 0. ])
    """

    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray


def _cumulative(y_true: Labels, y_score: Scores, sample_weight: Weights | None,
                pos_label: Label, metric: str,
                counts: bool = False) -> tuple[FloatArray, FloatArray, FloatArray, ScoreScale]:
    """(keys, fp, tp, scale): the keys of the distinct scores of positive weight from the
    highest down, the class weights at or above each (float64; with weights in the units
    of ``sample_weight`` for ``counts``, else scaled by a power of two: rates do not
    depend on the scale, and the scaling keeps the sums finite), and the
    :class:`~hmeasure_stream._validation.ScoreScale` that gives the user's scores of
    the keys (dense ranks of integers beyond 2**53)."""
    y_true, scores, scale = labels_and_ranked_scores(y_true, y_score, pos_label)
    keys, group_neg, group_pos = roc_groups(y_true, scores, sample_weight, metric,
                                            with_keys=True, normalize=not counts)
    fp, tp, keys = roc_sums(group_neg, group_pos, keys)
    return keys, fp[1:], tp[1:], scale


def roc_curve(y_true: Labels, y_score: Scores, *, sample_weight: Weights | None = None,
              pos_label: Label = None,
              drop_intermediate: bool = True) -> ROCCurve:
    """The ROC curve with the threshold of each point.

    The point of a threshold t is (FPR, TPR) of the rule "class 1 when the
    score is >= t" (:ref:`rule <thresholds>`); the thresholds are the distinct
    scores, from the highest down, after ``inf`` (nothing is class 1).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1, -1/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point; a point of weight 0 is absent.
    pos_label : hashable, optional
        The label of class 1; the one other label is class 0.
    drop_intermediate : bool, default True
        Leave out the points inside a straight stretch of the curve (which do
        not change its area or its hull), as scikit-learn does.

    Returns
    -------
    ROCCurve
        ``(fpr, tpr, thresholds)``, from (0, 0) at threshold ``inf`` to (1, 1).

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`, and when a class has no weight.

    See Also
    --------
    roc_points : the same points without thresholds, never dropped.
    coords : operating points read from the curve.

    Notes
    -----
    O(n log n).  Equal to ``sklearn.metrics.roc_curve`` with the same
    arguments (its first threshold is ``inf`` too); where scikit-learn warns
    and returns nan for a class without points, this raises.

    Examples
    --------
    >>> from hmeasure_stream import roc_curve
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    keys, fp, tp, scale = _cumulative(y_true, y_score, sample_weight, pos_label,
                                      "The ROC curve")
    return ROCCurve(*roc_curve_of(keys, fp, tp, drop_intermediate, scale))


def det_curve(y_true: Labels, y_score: Scores, *, sample_weight: Weights | None = None,
              pos_label: Label = None, drop_intermediate: bool = False) -> DETCurve:
    """The detection error tradeoff (DET) curve: false negative against false positive rates.

    The ROC curve's points with the miss rate 1 - TPR in place of the TPR,
    from the last point with no false positives to the first with no false
    negatives (the points beyond them lie at infinity on the normal deviate
    scale a DET plot uses), thresholds increasing, as scikit-learn returns them.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As for :func:`roc_curve`.
    drop_intermediate : bool, default False
        Leave out the points whose true positives equal both neighbours'
        (inside a stretch of one false negative rate), as scikit-learn's
        option does.

    Returns
    -------
    DETCurve
        ``(fpr, fnr, thresholds)``.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`, and when a class has no weight.

    See Also
    --------
    roc_curve : the same points as (FPR, TPR), from threshold ``inf``.

    Notes
    -----
    O(n log n).  Equal to ``sklearn.metrics.det_curve`` with the same
    arguments.  A. Martin, G. Doddington, T. Kamm, M. Ordowski and M.
    Przybocki, "The DET curve in assessment of detection task performance",
    Eurospeech, 1997.

    Examples
    --------
    >>> from hmeasure_stream import det_curve
    >>> fpr, fnr, thresholds = det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr, fnr, thresholds
    (array([0.5, 0.5, 0. ]), array([0. , 0.5, 0.5]), array([0.35, 0.4 , 0.8 ]))
    """
    keys, fp, tp, scale = _cumulative(y_true, y_score, sample_weight, pos_label,
                                      "The DET curve")
    return DETCurve(*det_curve_of(keys, fp, tp, drop_intermediate, scale))


def precision_recall_curve(y_true: Labels, y_score: Scores, *,
                           sample_weight: Weights | None = None,
                           pos_label: Label = None,
                           drop_intermediate: bool = False) -> PrecisionRecallCurve:
    """Precision and recall at every threshold.

    Precision is the share of class 1 among the points at or above a
    threshold, recall the share of class 1 found there; the thresholds are
    the distinct scores.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As for :func:`roc_curve`.
    drop_intermediate : bool, default False
        Leave out the thresholds at which the true positives do not change
        (they share one recall), as scikit-learn's option does.

    Returns
    -------
    PrecisionRecallCurve
        ``(precision, recall, thresholds)``: thresholds increasing, then the
        point (recall 0, precision 1) that has no threshold.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`, and when a class has no weight.

    See Also
    --------
    average_precision : the area under these points drawn as steps.

    Notes
    -----
    O(n log n).  Equal to ``sklearn.metrics.precision_recall_curve`` with the
    same arguments.  A threshold above which no point lies has no precision
    (0 / 0); scikit-learn's convention sets it to 0, and so does this
    function (it can only happen at the lowest threshold of a curve whose
    lowest scores all weigh zero, which are absent, so never here).

    Examples
    --------
    >>> from hmeasure_stream import precision_recall_curve
    >>> precision, recall, thresholds = precision_recall_curve(
    ...     [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    """
    keys, fp, tp, scale = _cumulative(y_true, y_score, sample_weight, pos_label,
                                      "The precision-recall curve")
    return PrecisionRecallCurve(*precision_recall_of(keys, fp, tp, drop_intermediate, scale))


def average_precision(y_true: Labels, y_score: Scores, *,
                      sample_weight: Weights | None = None,
                      pos_label: Label = None) -> float:
    """Average precision: the precision at each threshold weighted by the recall it adds.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over the thresholds from the highest
    score down: the area under the precision-recall curve drawn as steps.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As for :func:`roc_curve`.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`, and when a class has no weight.

    See Also
    --------
    precision_recall_curve : the points whose steps it sums.

    Notes
    -----
    O(n log n).  Equal to ``sklearn.metrics.average_precision_score``.  Steps,
    not the trapezoid: between two thresholds precision is not linear in
    recall, so straight lines would overstate it (Davis and Goadrich, "The
    relationship between precision-recall and ROC curves", ICML 2006); the
    steps are the expected precision of a point of class 1 drawn by weight.
    The terms are summed exactly rounded (``math.fsum``).

    Examples
    --------
    >>> from hmeasure_stream import average_precision
    >>> average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333333333333333
    """
    y_true, scores, _ = labels_and_ranked_scores(y_true, y_score, pos_label)
    return average_precision_value(y_true, scores, sample_weight, "Average precision")


def coords(y_true: Labels, y_score: Scores, x: float | ArrayLike | str, *,
           input: Literal["threshold", "specificity", "sensitivity"] = "threshold",
           ret: Columns = ("threshold", "specificity", "sensitivity"),
           best_method: Literal["youden", "closest_topleft"] = "youden",
           best_weights: CostPrevalence = (1, 0.5),
           sample_weight: Weights | None = None, pos_label: Label = None) -> dict[str,
           FloatArray]:
    """Operating points of the ROC curve, as R pROC's ``coords``.

    The sensitivity at a given specificity, the threshold that reaches a
    target sensitivity, the accuracy, predictive values and Youden's J at a
    threshold, or the best threshold.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As for :func:`roc_curve`.
    x : float, array-like of float, "all" or "best"
        Where to read: values of ``input``; ``"all"``: every threshold of
        pROC's curve; ``"best"``: the threshold(s) maximising Youden's J
        (``best_method="youden"``) or closest to the top-left corner
        (``"closest_topleft"``).
    input : {"threshold", "specificity", "sensitivity"}, default "threshold"
        What ``x`` is.  At a threshold t the rule is "class 1 when the score
        is >= t" (:ref:`rule <thresholds>`), compared exactly (a Python int beyond
        2**53 too).  A specificity between two points of the curve reads the
        point of the straight line between them (pROC's interpolation; its
        threshold is nan); one that a point has exactly reads the point with
        the highest sensitivity (likewise for a sensitivity).
    ret : sequence of str
        What to return, from ``"threshold"``, ``"specificity"``,
        ``"sensitivity"``, ``"accuracy"``, ``"precision"``, ``"npv"``,
        ``"tp"``, ``"fp"``, ``"tn"``, ``"fn"``, ``"youden"``,
        ``"closest_topleft"``.
    best_method : {"youden", "closest_topleft"}, default "youden"
        The criterion of ``x="best"``; all tied thresholds are returned.
    best_weights : (float, float), default (1, 0.5)
        ``(cost, prevalence)`` of ``x="best"``, as pROC's ``best.weights``:
        the cost of a false negative relative to a false positive, and the
        share of class 1 in the population.  With r = (1 - prevalence) /
        (cost * prevalence), the best threshold maximises sensitivity + r
        specificity (``"youden"``) or minimises (1 - sensitivity)^2 + r (1 -
        specificity)^2 (``"closest_topleft"``); the default is r = 1.

    Returns
    -------
    dict of str to ndarray
        One array per name of ``ret``, one entry per point read (in the
        order of ``x``; for "all" and "best" thresholds increasing).
        ``pandas.DataFrame(coords(...))`` gives pROC's table.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`; an unknown ``input``, ``ret``
        or ``best_method``; ``best_weights`` not a cost > 0 and a prevalence
        in (0, 1); an ``x`` outside [0, 1] for a rate.

    See Also
    --------
    roc_curve : every point of the curve with its threshold.

    Notes
    -----
    O(n log n + m log n) for m values of ``x``.  Equal to pROC's ``coords``
    with ``direction="<"`` (class 1 scores higher), except two names:
    ``youden`` is J = sensitivity + specificity - 1, the package's meaning
    (pROC's ``youden`` column is sensitivity + specificity), and
    ``closest_topleft`` is the squared distance to (0, 1).  pROC's
    thresholds lie between the distinct scores (-inf, inf and between two
    consecutive scores a < b their midpoint, computed without overflow, or b
    where no value of the scores' type lies strictly between them, so that a
    is below it and b at or above it; for integers beyond 2**53 the midpoint
    rounded up, an int); scikit-learn's (:func:`roc_curve`) are the scores
    themselves: the two describe the same points.  With weights, the counts
    are class weights.

    Examples
    --------
    >>> from hmeasure_stream import coords
    >>> y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]
    >>> coords(y, s, 0.5, ret=("sensitivity", "specificity", "tp", "fp"))
    {'sensitivity': array([0.66666667]), 'specificity': array([1.]), 'tp': array([2.]), \
'fp': array([0.])}
    >>> coords(y, s, "best", ret=("threshold", "youden"))  # two tie
    {'threshold': array([0.275, 0.55 ]), 'youden': array([0.66666667, 0.66666667])}
    >>> coords(y, s, "best", best_weights=(1.0, 0.25), ret="threshold")  # r = 3
    {'threshold': array([0.55])}
    """
    input, ret, best = check_coords_options(input, ret, best_method, best_weights)
    keys, fp, tp, scale = _cumulative(y_true, y_score, sample_weight, pos_label, "coords",
                                      counts=True)
    table: dict[str, FloatArray] = coords_of(keys, fp, tp, x, input, ret, best, scale)
    return table


class CostThreshold(NamedTuple):
    """The threshold of least expected loss, returned by :func:`min_cost_threshold`.

    The operating point of the rule "class 1 when the score is >= threshold"
    (:ref:`rule <thresholds>`) that loses least on average at one cost.

    Attributes
    ----------
    threshold : float
        Class 1 when the score is >= ``threshold`` (``inf``: nothing is): one
        of the scores, in their own type for integers beyond 2**53 (an int).
    loss : float
        The expected loss per point there, c pi0 FPR + (1 - c) pi1 (1 - TPR).
    fpr : float
        False positive rate at the threshold.
    tpr : float
        True positive rate at the threshold.

    See Also
    --------
    min_cost_threshold : the function that returns it.

    Examples
    --------
    >>> from hmeasure_stream import min_cost_threshold
    >>> min_cost_threshold([0, 1, 1], [0.2, 0.6, 0.9], cost=0.5).threshold
    0.6
    """

    threshold: float
    loss: float
    fpr: float
    tpr: float


def min_cost_threshold(y_true: Labels, y_score: Scores, *, cost: float | None = None,
                       severity_ratio: SeverityRatio = None, priors: Priors = None,
                       sample_weight: Weights | None = None,
                       pos_label: Label = None) -> CostThreshold:
    """The threshold that minimises the expected misclassification loss at a cost.

    With ``c`` the cost of a false positive and ``1 - c`` that of a false
    negative, the rule "class 1 when the score is >= t" loses
    L(t) = c pi0 FPR(t) + (1 - c) pi1 (1 - TPR(t)) per point on average;
    this is the t of least L, the minimum that :func:`h_measure` averages over
    a distribution of ``c``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As for :func:`roc_curve`.
    cost : float, optional
        ``c`` in (0, 1), the cost of a false positive (a false negative
        costs ``1 - c``).  Exactly one of ``cost`` and ``severity_ratio``.
    severity_ratio : float, optional
        The cost of a false positive over that of a false negative, > 0:
        ``c = SR / (1 + SR)`` (R hmeasure's parameterisation).
    priors : (float, float), optional
        Class priors (pi0, pi1) instead of the class proportions of the data.

    Returns
    -------
    CostThreshold
        ``(threshold, loss, fpr, tpr)``; among thresholds of equal loss the
        highest.

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc`; neither or both of ``cost``
        and ``severity_ratio``, or either out of its range; invalid priors.

    See Also
    --------
    h_measure : one minus the normalised loss averaged over a Beta
        distribution of ``c``.
    coords : operating points by other criteria.

    Notes
    -----
    O(n log n); the minimum lies on a vertex of the ROC convex hull, where
    the hull's slope passes (c pi0 / N0) / ((1 - c) pi1 / N1) (Hand,
    "Measuring classifier performance: a coherent alternative to the area
    under the ROC curve", Machine Learning, 2009).

    Examples
    --------
    >>> from hmeasure_stream import min_cost_threshold
    >>> y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]
    >>> min_cost_threshold(y, s, cost=0.6)
    CostThreshold(threshold=0.7, loss=0.06666666666666667, fpr=0.0, tpr=0.6666666666666666)
    >>> min_cost_threshold(y, s, cost=0.1).threshold  # false positives are cheap
    0.35
    """
    if (cost is None) == (severity_ratio is None):
        raise ValueError("give exactly one of cost and severity_ratio, got "
                         f"cost={cost!r}, severity_ratio={severity_ratio!r}")
    if cost is None:
        ratio = check_positive(severity_ratio, "severity_ratio")
        cost = ratio / (1.0 + ratio)
    else:
        cost = check_probability_level(cost, "cost")
    keys, fp, tp, scale = _cumulative(y_true, y_score, sample_weight, pos_label,
                                      "The minimum-cost threshold")
    total_neg, total_pos = float(fp[-1]), float(tp[-1])
    # The thresholds from inf (nothing is class 1) down to the lowest score.
    thresholds = scale.thresholds(keys, before=(np.inf,))
    fp, tp = np.concatenate(([0], fp)), np.concatenate(([0], tp))
    fpr, tpr = fp / total_neg, tp / total_pos
    if priors is None:
        # pi0 FPR = FP / N: the weights themselves, so that equal losses stay equal.
        loss = (cost * fp + (1.0 - cost) * (total_pos - tp)) / (total_neg + total_pos)
    else:
        pi0, pi1 = check_priors(priors)
        loss = cost * pi0 * fpr + (1.0 - cost) * pi1 * (1.0 - tpr)
    best = int(np.argmin(loss))
    threshold = thresholds[best]
    # The user's score: a float, or (scores not exact as float64) the score in its own
    # type, integers as Python ints (``thresholds`` holds them as objects).
    threshold = float(threshold) if thresholds.dtype == np.float64 else threshold
    return CostThreshold(threshold, float(loss[best]), float(fpr[best]), float(tpr[best]))
