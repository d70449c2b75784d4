"""Partial and weighted areas under the ROC curve, exactly, from scratch.

- :func:`partial_auc` -- the area under the ROC curve over a range of false
  positive rates and/or true positive rates, R pROC's ``partial.auc`` with
  its McClish correction, and the two-way partial area;
- :func:`weighted_auc` -- the plug-in estimator of Maurer and Pontil's
  weighted AUC for a weight function of the false positive rate;
- :func:`weighted_auc_error_bound` -- their finite-sample bound on its
  estimation error (Theorem 2) for a Lipschitz weight function.

The definitions, the compatibility with pROC and scikit-learn, and why a step
weight function (a partial AUC) has no such bound are in the documentation
page "Partial and weighted AUC".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from hmeasure_stream._core.groups import exact_sum as _exact_sum
from hmeasure_stream._core.partial import corrected as _corrected
from hmeasure_stream._core.partial import exact_area as _exact_area
from hmeasure_stream._core.partial import side_bounds as _side_bounds
from hmeasure_stream._engines import _partial, _scratch
from hmeasure_stream._validation import (
    Correction,
    FloatArray,
    Label,
    RateRange,
    check_integer,
    check_probability_level,
    check_weight_value,
    exact_path,
    sorted_classes,
    weighted_classes,
    weighted_groups,
    with_pos_label,
)
from hmeasure_stream._validation import check_partial_correction as _check_correction
from hmeasure_stream._validation import check_rate_range as _check_range
from hmeasure_stream.typing import Labels, Scores, Weights

__all__ = ["partial_auc", "weighted_auc", "weighted_auc_error_bound"]


def _box_area(y_true: Labels, y_score: Scores, sample_weight: Weights | None,
              fpr_box: tuple[float, float], tpr_box: tuple[float, float]) -> Any:
    """Area of the ROC curve inside the box fpr_box x tpr_box, as a fraction of the unit square.

    Exact with unit weights (a pair of ints, ``_exact_area``), a float with weights.
    """
    (a, b), (c, d) = fpr_box, tpr_box
    if exact_path(y_score, sample_weight):
        neg, pos = sorted_classes(y_true, y_score, "The partial AUC")
        n_neg, n_pos = neg.shape[0], pos.shape[0]
        # The box's sides in class counts, exact, as their floors and ceilings:
        # the kernel classifies the segments in integers and sums those wholly
        # inside or above the box as integers; the ones crossing a side are cut
        # in exact rational arithmetic, and the area is rounded once.
        twice_inside, width_inside, width_above, cuts = _partial.box_area_counts(
            neg, pos, *_side_bounds(fpr_box, tpr_box, n_neg, n_pos))
        return _exact_area(twice_inside, width_inside, width_above, cuts, fpr_box, tpr_box,
                           n_neg, n_pos)
    group_neg, group_pos = weighted_groups(y_true, y_score, sample_weight, "The partial AUC")
    total_neg, total_pos = _exact_sum(group_neg), _exact_sum(group_pos)
    area = _partial.box_area_groups(
        group_neg, group_pos, a * total_neg, b * total_neg, c * total_pos, d * total_pos
    )
    return area / total_neg / total_pos


def partial_auc(y_true: Labels, y_score: Scores, *, fpr_range: RateRange = None,
                tpr_range: RateRange = None, correction: Correction = None,
                sample_weight: Weights | None = None, pos_label: Label = None) -> float:
    """Partial area under the ROC curve, exactly, from scratch; R pROC's ``partial.auc``.

    The area under the empirical ROC curve (ties as diagonal segments, as in
    :func:`auc`) restricted to a range of false positive rates, or of true
    positive rates, or both:

    - ``fpr_range=(a, b)``: the area under the curve for FPR in [a, b], the
      curve interpolated linearly at a and b.  pROC's
      ``auc(roc, partial.auc=c(1 - a, 1 - b), partial.auc.focus="specificity")``.
    - ``tpr_range=(c, d)``: the area between the curve and the right edge
      FPR = 1 (the specificity integrated over the sensitivity) for TPR in
      [c, d].  pROC's ``partial.auc=c(d, c), partial.auc.focus="sensitivity"``.
    - both: the two-way partial area, the integral over FPR in [a, b] of
      ``(min(roc(u), d) - c)+``, the part of the area under the curve that
      lies in the box [a, b] x [c, d].  With one range the other one is the
      whole [0, 1], so all three are this same area of the box.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers (any numeric dtype).
    fpr_range : (float, float), optional
        False positive rates (a, b), 0 <= a < b <= 1.  Default: (0, 1).
    tpr_range : (float, float), optional
        True positive rates (c, d), 0 <= c < d <= 1.  Default: (0, 1).
    correction : {None, "mcclish"}, default=None
        ``"mcclish"``: McClish's standardisation of a partial area A over one
        range, (1 + (A - A_min) / (A_max - A_min)) / 2, where A_max is the
        area of the whole strip and A_min that under the diagonal: 1 for a
        perfect classifier, 1/2 for the diagonal.  pROC's
        ``partial.auc.correct=TRUE``; for ``fpr_range=(0, m)`` scikit-learn's
        ``roc_auc_score(max_fpr=m)``.  Not defined for the two-way area;
        without any range it is the identity.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point: the ROC curve of the
        weighted points, as in :func:`roc_points`.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    float
        The partial area, in [0, (b - a)(d - c)]; with ``correction="mcclish"``
        the standardised value (below 1/2 when the curve runs below the
        diagonal in the range).

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc` (including only one class
        present); if a range is not a pair of numbers with
        0 <= low < high <= 1 (the message names the argument); if
        ``correction`` is not None or "mcclish", or is "mcclish" with both
        ranges.

    See Also
    --------
    auc : the whole area, which ``partial_auc`` equals without ranges.
    roc_points : the curve whose area this is.
    weighted_auc : a smooth weight function of the FPR instead of a range.

    Notes
    -----
    pROC (1.18) computes a partial area with the trapezoidal rule on the ROC
    points whose specificity (or sensitivity) lies in the range, plus one
    trapezoid at each end of the range up to the curve interpolated linearly
    between the two consecutive points on either side of that end.  Its curve
    has one point per distinct score (thresholds between consecutive
    distinct scores), so a score shared by both classes is a diagonal segment
    and an end of the range falling inside such a segment is interpolated
    along the diagonal.  That is the exact area of the box under the
    piecewise linear curve, which is what this function computes.  The only
    difference is the McClish correction of a curve below the diagonal:
    pROC then returns ``NA`` with a warning (unless
    ``allow.invalid.partial.auc.correct=TRUE``, which gives the value
    returned here), scikit-learn returns the value as here.

    O(n log n) time: each class is sorted, the two are merged into the
    class counts of each distinct score (the points of :func:`roc_points`)
    and one compiled pass from the highest score down stops at the end of
    the FPR range.  Without weights the result is the exact area correctly
    rounded (and so is the McClish value, however narrow the range): the
    sides of the box are exact rationals in class counts (the float bounds
    times the class sizes), the segments are classified against their
    floors and ceilings in integers, those wholly inside the box or above it
    are summed as exact integers, and the at most four segments crossing a
    side are cut in exact rational arithmetic; without ranges the result is
    exactly :func:`auc`.  With ``sample_weight`` the points are sorted once
    and the segments' areas (each >= 0) are summed with compensation.  O(n)
    extra memory.

    With ``sample_weight`` the McClish correction of a range of width w
    divides by A_max - A_min, which is of order w**2 at the far end of the
    curve: the rounding of the interpolated segments, relative to the area,
    is then amplified by about 1 / w, and ranges narrower than about 1e-8
    give corrected values of little accuracy (the uncorrected area stays
    accurate).

    References
    ----------
    .. [1] D. K. McClish, "Analyzing a portion of the ROC curve", Medical
       Decision Making 9, 1989.
    .. [2] X. Robin et al., "pROC: an open-source package for R and S+ to
       analyze and compare ROC curves", BMC Bioinformatics 12, 2011.
    .. [3] A. Maurer and M. Pontil, "Estimating weighted areas under the ROC
       curve".

    Examples
    --------
    >>> from hmeasure_stream import partial_auc
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> partial_auc(y, s, fpr_range=(0, 0.5))
    0.375
    >>> partial_auc(y, s, fpr_range=(0, 0.5), correction="mcclish")  # sklearn's max_fpr=0.5
    0.8333333333333334
    >>> partial_auc(y, s, tpr_range=(0.5, 1))
    0.375
    >>> partial_auc(y, s, fpr_range=(0, 0.5), tpr_range=(0.5, 1))  # two-way
    0.125
    >>> partial_auc(y, s)  # no range: the AUC
    0.875
    """
    y_true = with_pos_label(y_true, pos_label)
    fpr_box = _check_range(fpr_range, "fpr_range")
    tpr_box = _check_range(tpr_range, "tpr_range")
    _check_correction(correction, fpr_range, tpr_range)
    area = _box_area(y_true, y_score, sample_weight, fpr_box, tpr_box)
    value: float = _corrected(area, fpr_box, tpr_box, fpr_range, tpr_range, correction)
    return value


def _check_weight_values(values: ArrayLike, points: FloatArray) -> FloatArray:
    """The weight function's values at ``points`` as float64 of the same shape, finite, >= 0."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"weight must return numbers: weight(v) returned {type(values).__name__}"
        ) from None
    if array.ndim == 0:
        array = np.full(points.shape[0], float(array))
    elif array.shape != points.shape:
        raise ValueError(
            f"weight must be vectorised: called on an array of shape {points.shape} it "
            f"returned shape {array.shape}"
        )
    bad = np.flatnonzero(~(np.isfinite(array) & (array >= 0)))
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"weight must return finite values >= 0 on [0, 1]; weight({float(points[k])!r}) "
            f"returned {float(array[k])!r}"
        )
    return array


def weighted_auc(y_true: Labels, y_score: Scores, weight: Callable[[FloatArray], ArrayLike],
                 *, sample_weight: Weights | None = None, pos_label: Label = None) -> float:
    r"""Weighted area under the ROC curve: Maurer and Pontil's plug-in estimator.

    The plug-in estimator of Maurer and Pontil (Sec. 2.1) with the step
    function counting ties one half:

    .. math::

        \frac{1}{n_1 n_0} \sum_{i \in S_1} \sum_{j \in S_0} H(X_i - X_j)\, W(v_j),
        \qquad v_j = \frac{\#\{k \in S_0 : X_k \le X_j\}}{n_0},

    where S0, S1 are the class 0 and class 1 points and H(0) = 1/2.  It
    estimates the integral of roc(u) W(1 - u) over the false positive rate u:
    v_j, the fraction of class 0 points scoring at most X_j, is one minus the
    false positive rate at which the curve passes X_j, so ``W(1 - u)`` is the
    weight of FPR u.  ``W = 1`` gives :func:`auc`; a step W gives a
    (non-interpolated) partial area.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool; class 1 is the class expected to score higher.
    y_score : array-like of shape (n,)
        Scores, any finite real numbers.
    weight : callable
        The weight function W on [0, 1], vectorised: called once with the
        float64 array of the v_j of all class 0 points (in ascending order
        of score), it returns an array of the same shape (or a scalar, a
        constant W) of finite values >= 0.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.  The estimator is then the
        same functional at the weighted empirical measure: each pair counts
        w_i w_j, the normalisation is by the class weights W1 W0 instead of
        n1 n0, and v_j is the weight of the class 0 points scoring at most
        X_j over W0.  Integer weights give the same value as repeating the
        points.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).

    Returns
    -------
    float
        The weighted AUC, in [0, max W].

    Raises
    ------
    ValueError
        On invalid input, as for :func:`auc` (including only one class
        present); if ``weight`` is not callable, does not return one number
        per point, or returns a value that is not finite or is negative (the
        message gives the argument and the value).

    See Also
    --------
    weighted_auc_error_bound : how far this estimate can be from its
        population value.
    partial_auc : the interpolated area over an FPR range.
    auc : the case W = 1.

    Notes
    -----
    O(n log n) time: each class is sorted, the v_j and the counts of class 1
    points above and tied with each class 0 point are found by one compiled
    merge each (with ``sample_weight``: compensated sums of the weights), and
    W is evaluated once per class 0 point (one vectorised call).  The sum is
    pairwise (numpy); with W = 1 and no weights it is an exact integer, so
    the result is exactly :func:`auc`'s.  O(n) extra memory.

    The paper's l = H counts ties zero; counting them one half (as pROC and
    scikit-learn do for the AUC) keeps W = 1 equal to the AUC and is still
    non-decreasing with values in [0, 1], so Theorem 2 applies to it.

    References
    ----------
    .. [1] A. Maurer and M. Pontil, "Estimating weighted areas under the ROC
       curve", Sec. 2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from hmeasure_stream import weighted_auc
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> weighted_auc(y, s, lambda v: np.ones_like(v))  # W = 1: the AUC
    0.875
    >>> weighted_auc(y, s, lambda v: v)  # weight 1 - u on FPR u: low FPRs count more
    0.515625
    >>> weighted_auc([0, 0, 1], [0.5, 0.5, 0.5], lambda v: v)  # ties count one half
    0.5
    """
    y_true = with_pos_label(y_true, pos_label)
    if not callable(weight):
        raise ValueError(f"weight must be a callable W(v) on [0, 1], got {weight!r}")
    if exact_path(y_score, sample_weight):
        neg, pos = sorted_classes(y_true, y_score, "The weighted AUC")
        n_neg, n_pos = neg.shape[0], pos.shape[0]
        # For each class 0 point: the class 0 points at or below it, and twice
        # (class 1 points above it) + (class 1 points tied with it).
        _, at_or_below = _scratch.placements(neg, neg)
        pos_below, pos_at_or_below = _scratch.placements(neg, pos)
        twice_wins = (2 * n_pos - pos_at_or_below - pos_below).astype(np.float64)
        points = at_or_below / n_neg
        values = _check_weight_values(weight(points), points)
        value: float = float(np.sum(twice_wins * values)) / (2.0 * n_neg * n_pos)
        return value
    neg, neg_weight, pos, pos_weight = weighted_classes(
        y_true, y_score, sample_weight, "The weighted AUC"
    )
    total_neg, total_pos = _exact_sum(neg_weight), _exact_sum(pos_weight)
    _, at_or_below = _scratch.placements(neg, neg, neg_weight)
    pos_below, pos_at_or_below = _scratch.placements(neg, pos, pos_weight)
    twice_wins = 2.0 * total_pos - pos_at_or_below - pos_below
    points = at_or_below / total_neg
    values = _check_weight_values(weight(points), points)
    return float(np.sum(neg_weight * twice_wins * values) / (2.0 * total_neg * total_pos))


def weighted_auc_error_bound(n_neg: float, n_pos: float, *, delta: float, w_max: float,
                             w_lipschitz: float) -> float:
    """Maurer and Pontil's Theorem 2: the error bound of :func:`weighted_auc`.

    For n = n0 + n1 points drawn independently from one distribution, of which
    n0 = ``n_neg`` are of class 0 and n1 = ``n_pos`` of class 1, and a weight
    function W with sup norm ``w_max`` and Lipschitz constant
    ``w_lipschitz``, the bound

    .. math::

        \\frac{\\|W\\|_{Lip} + 9 \\|W\\|_\\infty}{\\min(n_0/n, n_1/n)^2}
        \\sqrt{\\frac{2 \\ln(4/\\delta)}{n}}

    on the distance between the weighted AUC of the sample and that of the
    distribution.  Theorem 2 holds on the event A_delta that
    min(n0/n, n1/n) > sqrt(2 ln(4/delta) / n): with probability at least
    1 - delta, A_delta implies the bound (more precisely the probability of
    A_delta without the bound is below delta).  When the observed counts
    are not in A_delta the theorem says nothing and the result is nan.

    Parameters
    ----------
    n_neg, n_pos : int
        Numbers of class 0 and class 1 points, each >= 1.
    delta : float
        The probability allowed for failure, in (0, 1).
    w_max : float
        ||W||_inf, the supremum of W on [0, 1], >= 0.
    w_lipschitz : float
        ||W||_Lip, a Lipschitz constant of W on [0, 1], >= 0 (1 / eta for a
        ramp of width eta from 0 to 1).

    Returns
    -------
    float
        The bound, or nan when min(n0, n1) / n <= sqrt(2 ln(4/delta) / n)
        (the event A_delta fails).
        Both weighted AUCs lie in [0, w_max], so a bound >= w_max says
        nothing either.

    Raises
    ------
    ValueError
        If a count is not an integer >= 1 (a class absent), delta is not in
        (0, 1), or w_max or w_lipschitz is not a finite number >= 0.

    See Also
    --------
    weighted_auc : the estimator the bound is about.

    Notes
    -----
    The bound concerns the plug-in estimator f_{W, l}(mu_hat) for any
    non-decreasing l with values in [0, 1], so for :func:`weighted_auc`'s
    ties counting one half; f_{W, l}(mu) is then the probability-weighted
    value for the distribution with the same tie convention.  It needs W
    Lipschitz: for a step W (a partial AUC) no bound of this kind exists
    (Proposition 1 of the paper); the documentation page "Partial and
    weighted AUC" shows how Remark 2 brackets a partial AUC between two
    Lipschitz weights instead.  O(1).

    Theorem 2 is about an unweighted sample of n points drawn independently
    from one distribution: it does not apply to
    ``weighted_auc(..., sample_weight=...)``, whose points are not such a
    sample (pass the counts of an unweighted iid sample only).

    References
    ----------
    .. [1] A. Maurer and M. Pontil, "Estimating weighted areas under the ROC
       curve", Theorem 2 and Eq. (2).

    Examples
    --------
    >>> from hmeasure_stream import weighted_auc_error_bound
    >>> bound = weighted_auc_error_bound(50_000, 50_000, delta=0.05, w_max=1, w_lipschitz=10)
    >>> round(bound, 4)  # a ramp of width 0.1
    0.7115
    >>> weighted_auc_error_bound(990, 10, delta=0.05, w_max=1, w_lipschitz=10)  # A_delta fails
    nan
    """
    n_neg = check_integer(n_neg, "n_neg", 0)
    n_pos = check_integer(n_pos, "n_pos", 0)
    if n_neg + n_pos == 0:
        raise ValueError("n_neg and n_pos are both 0: the bound needs at least one point")
    for name, count, label in (("n_neg", n_neg, 0), ("n_pos", n_pos, 1)):
        if count == 0:
            raise ValueError(
                f"{name} is 0: class {label} is absent, where the weighted AUC and its "
                "bound are undefined")
    delta = check_probability_level(delta, "delta")
    w_max = check_weight_value(w_max, "w_max")
    w_lipschitz = check_weight_value(w_lipschitz, "w_lipschitz")
    n = n_neg + n_pos
    smaller = min(n_neg, n_pos) / n
    radius = math.sqrt(2.0 * math.log(4.0 / delta) / n)
    if not smaller > radius:
        return math.nan
    return (w_lipschitz + 9.0 * w_max) / smaller**2 * radius
