"""Curves and operating points of a set of groups, shared by the from-scratch
functions (``curves``) and the structures' reads (``streaming``).

Private.  Every function here takes the *cumulative sums* of the groups with
a positive weight (``roc_sums``): ``keys``, the distinct scores from the
highest down, and ``fp``, ``tp``, the class weights at or above each (so the
last entries are the class totals).  From arrays they come from one sort;
on a structure, from its engine's groups in O(n).  ``coords`` at a
specificity or a sensitivity also reads a *piece* of the curve: the one or
two points around the value, which a structure's engine finds in O(log n).
"""


import numbers
from decimal import Decimal
from typing import Any

import numpy as np

from hmeasure_stream._engines._scratch import (
    average_precision_sorted_classes,
    average_precision_sum,
    upper_hull,
)
from hmeasure_stream._validation import (
    EXACT_SCALE,
    check_option,
    exact_number,
    exact_path,
    least_double_at_or_above,
    sorted_classes,
    weighted_groups,
)

__all__ = ["COORDS_RETURNS", "average_precision_of", "average_precision_value",
           "check_coords_options", "check_coords_x", "coords_at", "coords_between",
           "coords_of", "det_curve_of", "hull_of",
           "precision_recall_of", "roc_curve_of", "specificity_weight"]

# What ``coords`` can return, in pROC's names (``youden`` is J = sens + spec - 1).
COORDS_RETURNS = ("threshold", "specificity", "sensitivity", "accuracy", "precision", "npv",
                  "tp", "fp", "tn", "fn", "youden", "closest_topleft")

COORDS_INPUTS = ("threshold", "specificity", "sensitivity")


def check_coords_options(input, ret, best_method, best_weights=(1.0, 0.5)):
    """``coords``'s ``input``, ``ret`` (a tuple) and the rule of ``x="best"``, checked
    once: ``(input, ret, best)`` with ``best = (best_method, r)``, r the weight of the
    specificity against the sensitivity that ``best_weights`` gives."""
    input = check_option(input, "input", COORDS_INPUTS)
    best_method = check_option(best_method, "best_method", ("youden", "closest_topleft"))
    if isinstance(ret, str):
        ret = (ret,)
    ret = tuple(ret)
    for name in ret:
        check_option(name, "ret", COORDS_RETURNS)
    return input, ret, (best_method, specificity_weight(best_weights))


def specificity_weight(best_weights):
    """r = (1 - prevalence) / (cost prevalence) of ``best_weights = (cost, prevalence)``:
    the cost of a false negative relative to a false positive and the share of class 1
    make a false positive rate r times as costly as a false negative rate, so the best
    threshold maximises sensitivity + r specificity (pROC's ``best.weights``, whose
    expression this is, so that its float ties are pROC's)."""
    refused = (f"best_weights must be (cost, prevalence) with cost > 0 and 0 < prevalence "
               f"< 1, got {best_weights!r}")
    try:
        cost, prevalence = best_weights
    except (TypeError, ValueError):
        raise ValueError(refused) from None
    for value in (cost, prevalence):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise ValueError(refused)
    cost, prevalence = float(cost), float(prevalence)
    if not (0.0 < cost < np.inf and 0.0 < prevalence < 1.0):
        raise ValueError(refused)
    r = (1.0 - prevalence) / (cost * prevalence)
    if not 0.0 < r < np.inf:
        raise ValueError(f"{refused}: the ratio (1 - prevalence) / (cost prevalence) is {r!r}")
    return r


def check_coords_x(x, input, scale=EXACT_SCALE):
    """The numeric ``x`` of ``coords``, checked: ``(keys, values)``.

    Thresholds (``input="threshold"``): ``values`` are the thresholds as
    given (float64 when each is exact as a float64, else an array of their
    own type), ``keys`` the float64 keys of the scores (``scale``) such that a
    score is >= a threshold exactly when its key is >= the threshold's key
    (the one rule, ``ScoreScale.key``).  A bool is no threshold, as for
    ``check_threshold``.  Specificities or sensitivities: ``values`` as a
    float64 array within [0, 1], ``keys`` None.
    """
    refused = f"x must be a number or a 1-d array of numbers, got {x!r}"
    if input != "threshold":
        values = np.atleast_1d(np.asarray(x, dtype=np.float64))
        if values.ndim != 1 or np.any(np.isnan(values)):
            raise ValueError(refused)
        if np.any((values < 0) | (values > 1)):
            raise ValueError(f"x must be {input} values in [0, 1], got {x!r}")
        return None, values
    try:
        values = np.atleast_1d(np.asarray(x))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(refused) from None
    kind = values.dtype.kind
    if values.ndim != 1 or kind not in "iufO":
        raise ValueError(refused)
    if kind in "iu":
        as_doubles = values.dtype.itemsize < 8 or not values.size or bool(
            np.all(np.abs(values.astype(np.float64)) < 2.0**53))
    else:
        as_doubles = kind == "f" and values.dtype.itemsize <= 8
    if as_doubles:
        shown = values.astype(np.float64)
        if np.any(np.isnan(shown)):
            raise ValueError(refused)
        return (shown if scale is EXACT_SCALE else scale.keys(shown.tolist())), shown
    for value in values.tolist() if kind == "O" else values:
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (numbers.Real, np.number, Decimal)) or value != value:
            raise ValueError(refused)
    if scale is EXACT_SCALE:
        keys = [least_double_at_or_above(exact_number(value)) for value in values]
        return np.array(keys, dtype=np.float64), values
    return scale.keys(values), values


def roc_curve_of(keys, fp, tp, drop_intermediate, scale=EXACT_SCALE) -> tuple[Any, Any, Any]:
    """(fpr, tpr, thresholds) of ``roc_curve``; ``scale`` gives the user's scores of
    ``keys``."""
    if drop_intermediate and keys.shape[0] > 2:
        # A point is kept where the curve turns: its second differences are not both 0.
        turns = (np.diff(fp, 2) != 0) | (np.diff(tp, 2) != 0)
        kept = np.concatenate(([True], turns, [True]))
        keys, fp, tp = keys[kept], fp[kept], tp[kept]
    fpr = np.concatenate(([0.0], fp / fp[-1]))
    tpr = np.concatenate(([0.0], tp / tp[-1]))
    return fpr, tpr, scale.thresholds(keys, before=(np.inf,))


def det_curve_of(keys, fp, tp, drop_intermediate, scale=EXACT_SCALE):
    """(fpr, fnr, thresholds) of ``det_curve``: the points of the ROC curve from the last
    with no false positive to the first with no false negative, thresholds increasing."""
    fp = np.concatenate(([0.0], fp))
    tp = np.concatenate(([0.0], tp))
    thresholds = scale.thresholds(keys, before=(np.inf,))
    if drop_intermediate and fp.shape[0] > 2:
        # A point whose true positives equal both neighbours' lies inside a stretch of
        # one false negative rate: the DET curve is straight there.
        kept = np.concatenate(([True], (np.diff(tp[:-1]) != 0) | (np.diff(tp[1:]) != 0),
                               [True]))
        fp, tp, thresholds = fp[kept], tp[kept], thresholds[kept]
    # Points before the last without false positives, or after the first without false
    # negatives, only move along an axis the normal deviate scale sends to infinity.
    first = int(np.searchsorted(fp, 0.0, side="right")) - 1
    last = int(np.searchsorted(tp, tp[-1], side="left")) + 1
    chosen = slice(last - 1, first - 1 if first > 0 else None, -1)
    return fp[chosen] / fp[-1], (tp[-1] - tp[chosen]) / tp[-1], thresholds[chosen]


def hull_of(group_neg, group_pos, keys=None, scale=EXACT_SCALE):
    """(fpr, tpr) of the ROC hull's vertices from the groups (highest score first), and
    with the groups' ``keys`` the threshold of each vertex (``inf`` for (0, 0)), a
    user's score by ``scale``."""
    if keys is None:
        fp, tp = upper_hull(group_neg, group_pos)
        return fp / fp[-1], tp / tp[-1]
    fp, tp, ends = upper_hull(group_neg, group_pos, with_groups=True)
    return fp / fp[-1], tp / tp[-1], scale.thresholds(keys[ends[1:]], before=(np.inf,))


def precision_recall_of(keys, fp, tp, drop_intermediate,
                        scale=EXACT_SCALE) -> tuple[Any, Any, Any]:
    """(precision, recall, thresholds) of ``precision_recall_curve``."""
    if drop_intermediate and keys.shape[0] > 2:
        # Keep a threshold where the true positives change on either side of it.
        changes = np.concatenate(([True], (np.diff(tp[:-1]) != 0) | (np.diff(tp[1:]) != 0),
                                  [True]))
        keys, fp, tp = keys[changes], fp[changes], tp[changes]
    predicted = tp + fp
    precision = np.divide(tp, predicted, out=np.zeros(tp.shape[0]), where=predicted != 0)
    recall = tp / tp[-1]
    return (np.concatenate((precision[::-1], [1.0])), np.concatenate((recall[::-1], [0.0])),
            scale.thresholds(keys[::-1].copy()))


def average_precision_of(fp, tp) -> float:
    """Average precision: sum_k (tp_k - tp_(k-1)) precision_k / N1, the sum exactly rounded
    (one compiled pass, ``average_precision_sum``)."""
    total, weight_pos = average_precision_sum(fp, tp, True)
    return total / weight_pos


def average_precision_value(y_true, y_score, sample_weight, metric) -> float:
    """:func:`average_precision_of` of validated-shape labels and scores, without the
    cumulative sums: unit weights by one merge of the sorted classes that stores neither
    groups nor terms (``average_precision_sorted_classes``), other weights from the
    groups, their running sums formed in the pass that sums the terms."""
    if exact_path(y_score, sample_weight):
        total, weight_pos = average_precision_sorted_classes(
            *sorted_classes(y_true, y_score, metric))
    else:
        total, weight_pos = average_precision_sum(
            *weighted_groups(y_true, y_score, sample_weight, metric))
    return total / weight_pos


def proc_curve(keys, fp, tp, scale=EXACT_SCALE):
    """pROC's curve, thresholds increasing: -inf, a threshold between each two
    consecutive distinct scores (their midpoint, ``ScoreScale.midpoints``), inf, with
    the class weights at or above each (float64)."""
    ascending = keys[::-1]
    middle = scale.midpoints(ascending[:-1], ascending[1:])
    thresholds = np.concatenate((np.array([-np.inf], dtype=middle.dtype), middle,
                                 np.array([np.inf], dtype=middle.dtype)))
    fp_at = np.concatenate((fp[::-1], [0])).astype(np.float64)
    tp_at = np.concatenate((tp[::-1], [0])).astype(np.float64)
    return thresholds, fp_at, tp_at


def coords_of(keys, fp, tp, x, input, ret, best, scale=EXACT_SCALE):
    """``coords`` on the whole curve of the cumulative sums (options checked, ``best``
    as ``check_coords_options`` gives it); ``scale`` relates ``keys`` to the user's
    scores."""
    total_neg, total_pos = float(fp[-1]), float(tp[-1])
    if isinstance(x, str):
        x = check_option(x, "x", ("all", "best"))
        thresholds, fp_at, tp_at = proc_curve(keys, fp, tp, scale)
        specificity = (total_neg - fp_at) / total_neg
        sensitivity = tp_at / total_pos
        chosen = slice(None)
        best_method, r = best
        # Every threshold whose criterion equals the best one in float64 (pROC's ties).
        if x == "best" and best_method == "youden":
            score = sensitivity + r * specificity
            chosen = score == score.max()
        elif x == "best":
            distance = (1.0 - sensitivity) ** 2 + r * (1.0 - specificity) ** 2
            chosen = distance == distance.min()
        return table(ret, thresholds[chosen], specificity[chosen], sensitivity[chosen],
                     fp_at[chosen], tp_at[chosen], total_neg, total_pos)
    threshold_keys, values = check_coords_x(x, input, scale)
    if threshold_keys is not None:
        # The distinct scores at or above each threshold (keys descending).
        above = np.searchsorted(-keys, -threshold_keys, side="right")
        taken_fp = np.concatenate(([0], fp))[above].astype(np.float64)
        taken_tp = np.concatenate(([0], tp))[above].astype(np.float64)
        return threshold_table(ret, values, taken_fp, taken_tp, total_neg, total_pos)
    return coords_at(values, input, ret, *proc_curve(keys, fp, tp, scale), total_neg,
                     total_pos)


def threshold_table(ret, thresholds, fp, tp, total_neg, total_pos):
    """``coords`` at thresholds whose class weights at or above are ``fp``, ``tp``."""
    return table(ret, thresholds, (total_neg - fp) / total_neg, tp / total_pos, fp, tp,
                 total_neg, total_pos)


def coords_at(values, input, ret, thresholds, fp_at, tp_at, total_neg, total_pos):
    """``coords`` at specificities or sensitivities ``values`` on pROC's whole curve
    (thresholds increasing, class weights at or above each)."""
    if input == "sensitivity":
        # Sensitivities increase with the thresholds decreasing: read the points reversed.
        thresholds, fp_at, tp_at = thresholds[::-1], fp_at[::-1], tp_at[::-1]
        along = tp_at / total_pos
    else:
        along = (total_neg - fp_at) / total_neg
    # The first point whose rate reaches each value, and the point before it.
    first = np.searchsorted(along, values, side="left")
    upper = np.minimum(first, along.shape[0] - 1)
    lower = np.maximum(first - 1, 0)
    return coords_between(values, input, ret, (thresholds[lower], fp_at[lower], tp_at[lower]),
                          (thresholds[upper], fp_at[upper], tp_at[upper]), total_neg,
                          total_pos)


def coords_between(values, input, ret, lower, upper, total_neg, total_pos):
    """``coords`` at specificities or sensitivities ``values``, each read between two
    points of pROC's curve: ``upper``, the first point whose rate (the one ``input``
    names) reaches the value, and ``lower``, the point before it in the order of that
    rate (``upper`` again if there is none); each a triple of arrays (threshold, class
    weights at or above it).  At a value the upper point has exactly, that point (of the
    points sharing the value, the one of highest other rate); between the two, the
    straight line between them (pROC's interpolation, threshold nan)."""
    (_, fp_low, tp_low), (threshold_up, fp_up, tp_up) = lower, upper
    spec_low, spec_up = (total_neg - fp_low) / total_neg, (total_neg - fp_up) / total_neg
    sens_low, sens_up = tp_low / total_pos, tp_up / total_pos
    if input == "specificity":
        along_low, along_up, other_low, other_up = spec_low, spec_up, sens_low, sens_up
    else:
        along_low, along_up, other_low, other_up = sens_low, sens_up, spec_low, spec_up
    exact = along_up == values
    with np.errstate(invalid="ignore", divide="ignore"):
        share = (values - along_low) / (along_up - along_low)
    other = np.where(exact, other_up, other_low + share * (other_up - other_low))
    spec, sens = (values, other) if input == "specificity" else (other, values)
    threshold = np.where(exact, threshold_up, np.nan)
    tp = np.where(exact, tp_up, sens * total_pos)
    fp = np.where(exact, fp_up, total_neg - spec * total_neg)
    return table(ret, threshold, spec, sens, fp, tp, total_neg, total_pos)


def table(ret, threshold, spec, sens, fp, tp, total_neg, total_pos):
    """The columns of ``ret`` from the points' thresholds, rates and class weights."""
    tn, fn = total_neg - fp, total_pos - tp
    with np.errstate(invalid="ignore", divide="ignore"):
        columns = {
            "threshold": threshold,
            "specificity": spec,
            "sensitivity": sens,
            "accuracy": (tp + tn) / (total_pos + total_neg),
            "precision": tp / (tp + fp),
            "npv": tn / (tn + fn),
            "tp": tp, "fp": fp, "tn": tn, "fn": fn,
            "youden": sens + spec - 1.0,
            "closest_topleft": (1.0 - sens) ** 2 + (1.0 - spec) ** 2,
        }
    # Thresholds keep the scores' type (``ScoreScale``); every other column is float64.
    return {name: np.asarray(columns[name], dtype=None if name == "threshold" else np.float64)
            for name in ret}
