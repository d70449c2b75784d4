"""R hmeasure's report (``HMeasure(...)$metrics``), assembled once from what every caller has.

``hmeasure_report`` (arrays), ``hmeasure_stream.dask.hmeasure_report``
(ranges of a dask collection) and ``DynamicH.report`` (the maintained hull)
reach the same numbers by different routes; :func:`r_report` turns them into
the report: R's keys in R's order, the fixed-level keys named by
:func:`report_levels`, every rate and area as a float in [0, 1].
"""

import math
import sys

import numpy as np

from hmeasure_stream._engines import _scratch
from hmeasure_stream._engines._cost import h_from_edges, mwl_cost
from hmeasure_stream._validation import level_names

__all__ = ["curve_metrics", "exact_sum", "hull_h", "r_lookup", "r_report", "report_levels",
           "threshold_metrics", "unit"]


def unit(value):
    """A rate or area as a float in [0, 1]: rounding may leave it an ulp outside (nan stays)."""
    return min(max(float(value), 0.0), 1.0)


def exact_sum(values):
    """The sum of float64 values rounded once (``math.fsum``'s value), in C."""
    return _scratch.exactly_rounded_sum(np.ascontiguousarray(values, dtype=np.float64))


def hull_h(edge_neg, edge_pos, cost) -> float:
    """The H-measure from the class weights of the ROC hull's edges and the cost in effect
    for them (``(pi0, pi1, alpha, beta, ratio)`` of ``CostRule.at``): every H of the package
    computed from a hull (``h_measure``, the reports, dask's whole).

    With a prior below float64's normal range (a class weighing less than
    about 2**-1022 of the other), where the formula cannot be evaluated, H is
    its limit as that prior goes to 0 (:func:`_h_at_vanishing_prior`).
    """
    pi0, pi1, alpha, beta, _ = cost
    if min(pi0, pi1) < sys.float_info.min and math.isfinite(alpha + beta):
        return unit(_h_at_vanishing_prior(edge_neg, edge_pos, pi1 < pi0))
    return unit(h_from_edges(edge_neg, edge_pos, pi0, pi1, alpha, beta))


def _h_at_vanishing_prior(edge_neg, edge_pos, rare_pos):
    """H's limit as one class's prior goes to 0 (below float64's normal range, where the
    priors cannot be formed): the share of that class's weight on the hull's edges that
    hold none of the other class.

    For pi1 -> 0 every edge of the hull with class 0 weight loses pi1 d1 / N1 J(0)
    to first order (its cost c = O(pi1)), an edge of class 1 only loses nothing, and
    L_max = pi1 J(0) + O(pi1**(alpha + 1)): H -> the class 1 weight of the edges without
    class 0 weight over N1 (1 for separated classes); pi0 -> 0 likewise, classes swapped.
    """
    rare, other = (edge_pos, edge_neg) if rare_pos else (edge_neg, edge_pos)
    rare, other = np.asarray(rare, dtype=np.float64), np.asarray(other, dtype=np.float64)
    return exact_sum(rare[other == 0]) / exact_sum(rare)


def report_levels(level):
    """The report's sensitivity/specificity levels, checked, by the name R gives them.

    ``level`` (``sens_spec_levels`` of the public functions) is a number or a
    sequence (or array) of them; returns the dict
    name -> level of :func:`~hmeasure_stream._validation.level_names` (the
    key of level 0.95 is ``Spec.Sens95``).
    """
    if isinstance(level, (str, bytes)) or level is None:
        raise ValueError(
            f"sens_spec_levels must be a number in (0, 1) or a sequence of them, got {level!r}")
    if isinstance(level, np.ndarray):
        levels = list(level.ravel())  # numpy scalars of its own dtype
    else:
        levels = [level] if np.ndim(level) == 0 else list(level)
    if not levels:
        raise ValueError("sens_spec_levels must name at least one level")
    return level_names(levels)


def r_lookup(xcurve, ycurve, x):
    """R hmeasure's ``Look.Up.AUC``: ycurve where the ascending xcurve first exceeds x.

    Kept exactly as R computes it, including its interpolation weights
    ((x2 - x) / (x2 - x1) on y2), so that the report matches R.
    """
    index = int(np.argmax(xcurve > x))
    x1, x2 = xcurve[index - 1], xcurve[index]
    y1, y2 = ycurve[index - 1], ycurve[index]
    if x2 - x1 > 0:
        weight_y2 = (x2 - x) / (x2 - x1)
        return float((1 - weight_y2) * y1 + weight_y2 * y2)
    return float(y2)


def threshold_metrics(tp, fp, tn, fn):
    """R hmeasure's ``misclassCounts`` metrics from a threshold's confusion weights.

    A ratio whose denominator is 0 is nan (R's 0/0); F is 0 when precision or
    sensitivity is 0 (R's 2 / (1/0 + ...)).
    """

    def ratio(numerator, denominator):
        return numerator / denominator if denominator > 0 else math.nan

    sens = ratio(tp, tp + fn)
    spec = ratio(tn, tn + fp)
    precision = ratio(tp, tp + fp)
    if math.isnan(precision) or math.isnan(sens):
        f_score = math.nan
    elif precision == 0 or sens == 0:
        f_score = 0.0
    else:
        f_score = 2.0 / (1.0 / precision + 1.0 / sens)
    return {
        "ER": ratio(fp + fn, tp + fp + tn + fn),
        "Sens": sens,
        "Spec": spec,
        "Precision": precision,
        "Recall": sens,
        "TPR": sens,
        "FPR": 1.0 - spec,
        "F": f_score,
        "Youden": sens + spec - 1.0,
        "TP": float(tp),
        "FP": float(fp),
        "TN": float(tn),
        "FN": float(fn),
    }


def curve_metrics(hull, cost, rates, ks_rates):
    """H, AUCH, KS, MER and MWL (R's names) from the ROC hull and ROC points.

    Parameters
    ----------
    hull : (ndarray, ndarray, ndarray, ndarray)
        ``(fp, tp, edge_neg, edge_pos)``: the vertices of the ROC hull in
        class weights, from (0, 0) to (N0, N1), and the class weights of its
        edges (``upper_hull(..., with_edges=True)``); H is computed from the
        edges, which keep steps below the rounding of the vertices.
    cost : tuple
        ``(pi0, pi1, alpha, beta, ratio)`` in effect for these class weights
        (``CostRule.at``).
    rates : (ndarray, ndarray)
        Points (FPR, TPR) over which MER and MWL are minimised: every ROC
        point, or only the hull's vertices (a linear function of (FPR, TPR)
        falling with FPR and rising with TPR is least at a vertex of the
        upper hull).
    ks_rates : sequence of (ndarray, ndarray)
        Points over which KS, max ``abs(TPR - FPR)``, is taken: every ROC
        point, or the vertices of the upper and of the lower hull; empty: KS
        is nan.
    """
    pi0, pi1, alpha, beta, ratio = cost
    hull_fp, hull_tp, edge_neg, edge_pos = hull
    hull_fpr, hull_tpr = hull_fp / float(hull_fp[-1]), hull_tp / float(hull_tp[-1])
    fpr, tpr = rates
    loss_cost = mwl_cost(alpha, beta, ratio)
    ks = max((float(np.max(np.abs(y - x))) for x, y in ks_rates), default=math.nan)
    return {
        "H": hull_h(edge_neg, edge_pos, cost),
        "AUCH": np.sum(np.diff(hull_fpr) * (hull_tpr[1:] + hull_tpr[:-1])) / 2.0,
        "KS": ks,
        "MER": np.min(pi0 * fpr + pi1 * (1.0 - tpr)),
        "MWL": 2.0 * np.min(loss_cost * pi0 * fpr + (1.0 - loss_cost) * pi1 * (1.0 - tpr)),
    }


def r_report(levels, auc, curve, spec_at_sens, sens_at_spec, counts) -> dict[str, float]:
    """R hmeasure's report dict: keys in R's order, rates and areas in [0, 1].

    Parameters
    ----------
    levels : dict
        Name -> level, from :func:`report_levels`.
    auc : float
        The AUC (Gini is 2 AUC - 1).
    curve : dict
        ``H``, ``AUCH``, ``KS``, ``MER``, ``MWL`` (:func:`curve_metrics`, or
        a maintained hull's).
    spec_at_sens, sens_at_spec : callable
        A level -> R's specificity where sensitivity reaches it
        (``Spec.SensXX``), and sensitivity where specificity reaches it
        (``Sens.SpecXX``).
    counts : tuple or None
        The threshold's confusion weights ``(TP, FP, TN, FN)``; None (a
        class absent): the threshold metrics are nan.
    """
    auc = unit(auc)
    report = {"H": unit(curve["H"]), "Gini": 2.0 * auc - 1.0, "AUC": auc}
    for key in ("AUCH", "KS", "MER", "MWL"):
        report[key] = unit(curve[key])
    for name, value in levels.items():
        report[f"Spec.Sens{name}"] = unit(spec_at_sens(value))
    for name, value in levels.items():
        report[f"Sens.Spec{name}"] = unit(sens_at_spec(value))
    metrics = threshold_metrics(*(counts if counts is not None else (0.0,) * 4))
    if counts is None:
        metrics = dict.fromkeys(metrics, math.nan)
    report.update(metrics)
    return report
