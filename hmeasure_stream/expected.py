"""Metrics expected before the labels arrive: AUC and H-measure from probabilities.

When point i is of class 1 with (calibrated) probability p_i, the expected
ROC curve counts the part w_i p_i of it as class 1 and the part
w_i (1 - p_i) as class 0, both at its score s_i.  The metrics of these parts
are those of the package's weighted engines on the points doubled
(``_core.groups.expected_groups``), with no logic of their own.
"""

from __future__ import annotations

from hmeasure_stream._core.groups import expected_groups as _core_expected_groups
from hmeasure_stream._core.groups import groups_auc as _groups_auc
from hmeasure_stream._core.groups import groups_h_and_auc as _groups_h_and_auc
from hmeasure_stream._validation import (
    FloatArray,
    SeverityRatio,
    check_cost,
    check_probabilities,
    check_same_length,
    check_scores,
    check_weights,
    raise_bad_score,
    warn_if_inverted,
)
from hmeasure_stream.typing import Probabilities, Scores, Weights

__all__ = ["expected_auc", "expected_h_measure"]


def _expected_groups(y_prob: Probabilities, y_score: Scores | None,
                     sample_weight: Weights | None,
                     function: str) -> tuple[FloatArray, FloatArray]:
    """Checked input as the groups of its expected ROC curve (``expected_groups``).

    Refuses probabilities that leave one expected class without weight: the
    metric is undefined, as for labels of one class.
    """
    probs = check_probabilities(y_prob)
    if y_score is None:
        scores = probs
    else:
        scores = check_scores(y_score)
        check_same_length(probs, scores, "y_prob", "y_score")
        raise_bad_score(scores)
    weights = None if sample_weight is None else check_weights(sample_weight, probs.shape[0])
    group_neg, group_pos = _core_expected_groups(probs, scores, weights)
    for part, extreme, absent in ((group_pos, 0, 1), (group_neg, 1, 0)):
        if not part.any():
            raise ValueError(
                f"{function} is undefined when the expected weight of class {absent} is 0: "
                f"every probability in y_prob is {extreme} (among the points of positive "
                "weight)"
            )
    return group_neg, group_pos


def expected_auc(y_prob: Probabilities, y_score: Scores | None = None, *,
                 sample_weight: Weights | None = None) -> float:
    """Expected area under the ROC curve of points whose labels are not known yet.

    Point i is of class 1 with probability ``y_prob[i]``; the expected ROC
    curve counts the share p_i of it as class 1 and 1 - p_i as class 0 at its
    score.  Its area is the weighted Mann-Whitney statistic of these parts,
    the pair of a point with itself counting as a tie: the ROC AUC that
    NannyML's confidence-based performance estimation (CBPE) estimates.

    Parameters
    ----------
    y_prob : array-like of shape (n,)
        Probability that each point is of class 1, finite, in [0, 1]
        (calibrated: the estimate is only as good as the calibration).
    y_score : array-like of shape (n,) or (n, 1), optional
        Scores whose ranking is evaluated, any finite real numbers.
        Default: ``y_prob`` itself.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.

    Returns
    -------
    float
        The expected AUC in [0, 1]: sum over pairs of p_i (1 - p_j) w_i w_j
        (one half for a tie, the pair (i, i) included) over the product of the
        expected class weights, sum p_i w_i and sum (1 - p_i) w_i.

    Raises
    ------
    ValueError
        If the input is not 1-d (or an (n, 1) column), is empty, the lengths
        differ, a probability is not in [0, 1], a score or weight is not
        finite, a weight is negative, or every probability is 0 or every one
        is 1 (among the points of positive weight): an expected class of
        weight 0 leaves the AUC undefined.

    Warns
    -----
    InvertedScoresWarning
        If the expected AUC is below 0.5: the scores rank the points likely
        of class 0 above those likely of class 1.

    See Also
    --------
    expected_h_measure : the H-measure of the same expected ROC curve.
    hmeasure_stream.auc : the AUC once the labels are known.

    Notes
    -----
    The expected AUC is :func:`~hmeasure_stream.auc` of the points doubled:
    each point once as class 1 with weight w_i p_i and once as class 0 with
    weight w_i (1 - p_i), both at its score.  A part of weight 0 is absent,
    so with every probability 0 or 1 it is the AUC of those labels.  It is
    the ratio of the expected Mann-Whitney count to the product of the
    expected class weights (not the expectation of the AUC over the labels,
    a ratio of dependent quantities).  For distinct scores NannyML's CBPE
    estimate is this value up to its rounding of the cumulative class weights
    to 5 decimals; with tied scores its trapezoids follow the order its sort
    leaves the ties in, here a tie counts one half.  O(n log n) time, one sort
    of the n scores, O(n) memory.

    References
    ----------
    NannyML documentation, "Estimation of Performance of the Monitored Model:
    Confidence-based Performance Estimation (CBPE)",
    https://nannyml.readthedocs.io/en/stable/how_it_works/performance_estimation.html

    Examples
    --------
    >>> from hmeasure_stream import expected_auc
    >>> p = [0.1, 0.4, 0.35, 0.8]  # calibrated probabilities of class 1
    >>> round(expected_auc(p), 6)
    0.77724
    >>> round(expected_auc(p, [1, 4, 2, 3]), 6)  # the ranking of other scores
    0.674081
    >>> expected_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])  # labels known: their AUC
    0.75
    >>> round(expected_auc([0.2, 0.2, 0.9], [1, 2, 2], sample_weight=[1, 2, 1]), 6)
    0.593333
    """
    value = _groups_auc(*_expected_groups(y_prob, y_score, sample_weight, "expected_auc"))
    warn_if_inverted(value, "expected_auc")
    return value


def expected_h_measure(y_prob: Probabilities, y_score: Scores | None = None, *,
                       alpha: float = 2.0, beta: float = 2.0, severity_ratio: SeverityRatio = None,
                       sample_weight: Weights | None = None) -> float:
    """Expected H-measure of points whose labels are not known yet.

    Hand's H-measure of the expected ROC curve of :func:`expected_auc`: point i
    counts as class 1 with weight p_i and as class 0 with weight 1 - p_i at
    its score, and the class priors are the expected class weights.

    Parameters
    ----------
    y_prob : array-like of shape (n,)
        Probability that each point is of class 1, finite, in [0, 1].
    y_score : array-like of shape (n,) or (n, 1), optional
        Scores whose ranking is evaluated, any finite real numbers.
        Default: ``y_prob`` itself.
    alpha, beta : float, default=2.0
        Parameters of the Beta distribution of the cost ``c`` of a false
        positive, as for :func:`~hmeasure_stream.h_measure`.
    severity_ratio : float or "prior", optional
        R hmeasure's parameterisation instead of alpha/beta, as for
        :func:`~hmeasure_stream.h_measure`; ``"prior"`` is SR = pi1 / pi0 of
        the expected class weights.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.

    Returns
    -------
    float
        The expected H-measure in [0, 1].

    Raises
    ------
    ValueError
        As for :func:`expected_auc`; if alpha, beta or the severity ratio is
        not a finite number > 0, or severity_ratio is combined with
        alpha/beta.

    Warns
    -----
    InvertedScoresWarning
        If the expected AUC is below 0.5.

    See Also
    --------
    expected_auc : the area under the same expected ROC curve.
    hmeasure_stream.h_measure : the H-measure once the labels are known.

    Notes
    -----
    :func:`~hmeasure_stream.h_measure` of the points doubled as in
    :func:`expected_auc`, with the priors pi1 = sum w_i p_i / sum w_i and
    pi0 = 1 - pi1: the minimum expected loss over the convex hull of the
    expected ROC curve, averaged over the cost distribution (Hand, 2009).
    O(n log n) time, O(n) memory.

    References
    ----------
    .. [1] D. J. Hand, "Measuring classifier performance: a coherent
       alternative to the area under the ROC curve", Machine Learning 77,
       2009.
    .. [2] NannyML documentation, "Estimation of Performance of the Monitored
       Model: Confidence-based Performance Estimation (CBPE)",
       https://nannyml.readthedocs.io/en/stable/how_it_works/performance_estimation.html

    Examples
    --------
    >>> from hmeasure_stream import expected_h_measure
    >>> p = [0.1, 0.4, 0.35, 0.8]
    >>> round(expected_h_measure(p), 6)
    0.285429
    >>> round(expected_h_measure(p, severity_ratio="prior"), 6)  # R's default cost
    0.292022
    >>> expected_h_measure([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])  # labels known: their H
    0.5
    """
    spec = check_cost(alpha, beta, severity_ratio)
    value: float
    value, roc_auc = _groups_h_and_auc(
        *_expected_groups(y_prob, y_score, sample_weight, "expected_h_measure"), spec)
    warn_if_inverted(roc_auc, "expected_h_measure")
    return value
