"""The public functions and structures, declared once for the tests of common properties.

As scikit-learn's ``metrics/tests/test_common.py``: a test of a property
that every function or structure must have (labels read by ``pos_label``
and -1/1, results invariant under a common weight scale, bad input refused
cleanly) takes its subjects from here, so that a new function or structure
is checked by all of them once it is declared here.  The sets below name
the exceptions, each with its reason.
"""

import dataclasses
from typing import NamedTuple

import numpy as np

import hmeasure_stream as hs
from hmeasure_stream.metric_table import Binning, Classes, Compression

# ---------------------------------------------------------------------------
# From-scratch functions of binary labels: f(y_true, y_score, **kwargs) with
# the keyword arguments sample_weight= and pos_label=, returning a value the
# tests compare (floats, arrays, tuples, dicts).

def _probability(s):
    """Scores as probabilities of class 1 in (0, 1), in the same order (the logistic)."""
    return 1 / (1 + np.exp(-np.asarray(s, dtype=float)))


def _calibration_values(y, s, **kwargs):
    """Every field of ``calibration_report`` in one array, the bins' weights as shares
    (their sum scales with the weights)."""
    report = hs.calibration_report(y, _probability(s), n_bins=4, **kwargs)
    report = dataclasses.replace(report, bin_weight=report.bin_weight / report.bin_weight.sum())
    return np.concatenate([np.ravel(getattr(report, field.name))
                           for field in dataclasses.fields(report)])


#: The metrics of a report at a threshold: they depend on the scores' values.
AT_THRESHOLD = ("ER", "Sens", "Spec", "Precision", "Recall", "TPR", "FPR", "F", "Youden",
                "TP", "FP", "TN", "FN")


def _of_the_order(report):
    """A report without its metrics at a threshold."""
    return {key: value for key, value in report.items() if key not in AT_THRESHOLD}


FUNCTIONS = {
    "auc": hs.auc,
    "auc max_fpr": lambda y, s, **kw: hs.auc(y, s, max_fpr=0.4, **kw),
    "roc_points": hs.roc_points,
    "roc_hull": hs.roc_hull,
    # (The curves' arrays, one after the other: the thresholds are one fewer in a
    # precision-recall curve.)
    "roc_curve": lambda y, s, **kw: np.concatenate(hs.roc_curve(y, s, **kw)),
    "roc_curve all": lambda y, s, **kw: np.concatenate(
        hs.roc_curve(y, s, drop_intermediate=False, **kw)),
    "precision_recall_curve": lambda y, s, **kw: np.concatenate(
        hs.precision_recall_curve(y, s, **kw)),
    "det_curve": lambda y, s, **kw: np.concatenate(hs.det_curve(y, s, **kw)),
    "average_precision": hs.average_precision,
    "coords best": lambda y, s, **kw: hs.coords(
        y, s, "best", ret=("threshold", "sensitivity", "specificity", "precision", "npv",
                           "accuracy", "youden"), **kw),
    "coords at specificity": lambda y, s, **kw: hs.coords(
        y, s, [0.2, 0.5, 0.9], input="specificity", ret=("threshold", "sensitivity"), **kw),
    "h_measure": hs.h_measure,
    "h_measure prior": lambda y, s, **kw: hs.h_measure(y, s, severity_ratio="prior", **kw),
    "h_measure priors": lambda y, s, **kw: hs.h_measure(
        y, s, priors=(0.3, 0.7), alpha=1.5, beta=3.0, **kw),
    "hmeasure_report": lambda y, s, **kw: hs.hmeasure_report(
        y, s, severity_ratio="prior", sens_spec_levels=[0.5, 0.95], threshold=0.25, **kw),
    "binned_auc": lambda y, s, **kw: hs.binned_auc(y, s, n_bins=4, **kw).auc,
    "partial fpr": lambda y, s, **kw: hs.partial_auc(
        y, s, fpr_range=(0.1, 0.6), correction="mcclish", **kw),
    "partial tpr": lambda y, s, **kw: hs.partial_auc(y, s, tpr_range=(0.2, 0.9), **kw),
    "partial two-way": lambda y, s, **kw: hs.partial_auc(
        y, s, fpr_range=(0.0, 0.5), tpr_range=(0.5, 1.0), **kw),
    "weighted_auc": lambda y, s, **kw: hs.weighted_auc(y, s, lambda v: v * v, **kw),
    "auc_variance": hs.auc_variance,
    "auc_ci": lambda y, s, **kw: (lambda ci: (*ci, ci.estimate))(hs.auc_ci(y, s, **kw)),
    # (A second score of each point, from its first: the pairs follow the points.)
    "auc_test": lambda y, s, **kw: tuple(hs.auc_test(
        y, s, np.abs(np.asarray(s, dtype=float) - 0.5), **kw)),
    "hmeasure_report of the order": lambda y, s, **kw: _of_the_order(hs.hmeasure_report(
        y, s, sens_spec_levels=[0.9, 0.5], **kw)),
    "sliding_window": lambda y, s, **kw: np.concatenate(list(hs.sliding_window(
        y, s, 4, ("auc", "h"), **kw).values())),
    # MOA's window measures (the scored AUC reads probabilities: the scores mapped).
    "sliding_window moa": lambda y, s, **kw: np.concatenate(list(hs.sliding_window(
        y, _probability(s), 4, ("gmean", "kappa", "kappa_m", "prevalence", "sauc"),
        **kw).values())),
    # The calibration functions take probabilities: the scores mapped into (0, 1).
    "brier_score": lambda y, s, **kw: hs.brier_score(y, _probability(s), **kw),
    "log_loss": lambda y, s, **kw: hs.log_loss(y, _probability(s), **kw),
    "calibration_error": lambda y, s, **kw: hs.calibration_error(y, _probability(s), **kw),
    "calibration_error max quantile": lambda y, s, **kw: hs.calibration_error(
        y, _probability(s), n_bins=3, strategy="quantile", norm="max", **kw),
    "calibration_report": lambda y, s, **kw: _calibration_values(y, s, **kw),
    "min_cost_threshold": lambda y, s, **kw: tuple(hs.min_cost_threshold(y, s, cost=0.3, **kw)),
    "multiclass ovr": lambda y, s, **kw: hs.multiclass_auc(
        y, np.column_stack([-np.asarray(s, dtype=float), s]), average="weighted", **kw),
}

#: Functions whose labels are classes, not a positive class: no pos_label, no -1/1.
CLASS_LABELS = frozenset({"multiclass ovr"})

#: Functions whose value depends on the scores only through their order, ties included:
#: equal on the scores and on their ranks.
ORDER_ONLY = frozenset({"auc", "auc max_fpr", "roc_points", "roc_hull", "average_precision",
                        "h_measure", "h_measure prior", "h_measure priors",
                        "hmeasure_report of the order", "partial fpr", "partial tpr",
                        "partial two-way", "weighted_auc", "auc_variance", "auc_ci",
                        "sliding_window"})

#: The calibration metrics: functions of probabilities of class 1 (given above the scores
#: mapped into (0, 1)).
PROBABILITY_FUNCTIONS = frozenset({"brier_score", "log_loss", "calibration_error",
                                   "calibration_error max quantile", "calibration_report"})

#: DeLong's variance treats weights as frequencies (its denominators are the
#: class weights minus one): not invariant under a common weight scale.
FREQUENCY_WEIGHTS = frozenset({"auc_variance", "auc_ci", "auc_test"})

#: The window's weighted engines round their sums in an order that depends on
#: their random shape: invariant up to rounding, tested as such on its own.
ROUNDED_UNDER_SCALE = frozenset({"sliding_window", "sliding_window moa"})

#: Counts of points in the report: sums of weights, so they scale with them.
REPORT_WEIGHT_SUMS = ("TP", "FP", "TN", "FN")

BINARY_FUNCTIONS = sorted(set(FUNCTIONS) - CLASS_LABELS)
SCALE_INVARIANT_FUNCTIONS = sorted(set(FUNCTIONS) - FREQUENCY_WEIGHTS - ROUNDED_UNDER_SCALE)


def function_value(name, y, s, **kwargs):
    """``FUNCTIONS[name]`` called, with the report's weight sums left out."""
    value = FUNCTIONS[name](y, s, **kwargs)
    if isinstance(value, dict):
        value = {key: item for key, item in value.items() if key not in REPORT_WEIGHT_SUMS}
    return value


# ---------------------------------------------------------------------------
# Structures over binary labels: made by ``make(**kwargs)`` (kwargs: pos_label=).

class Structure(NamedTuple):
    make: object
    metric: str          # the property every test reads
    weighted: bool       # takes weights other than 1
    keeps_points: bool   # holds every point added and not removed (no window, no decay)


STRUCTURES = {  # (seeded: reproducible shapes, so weighted sums round alike in twins)
    "DynamicAUC": Structure(lambda **kw: hs.DynamicAUC(**kw), "auc", True, True),
    "DynamicAUC-window": Structure(lambda **kw: hs.DynamicAUC(window=6, **kw), "auc",
                                   True, False),
    "DynamicAUC-decay": Structure(lambda **kw: hs.DynamicAUC(half_life=3, **kw), "auc",
                                  True, False),
    "DynamicH": Structure(lambda **kw: hs.DynamicH(**kw), "h", True, True),
    "DynamicH-window": Structure(lambda **kw: hs.DynamicH(window=6, **kw), "h",
                                 True, False),
    "DynamicH sr": Structure(lambda **kw: hs.DynamicH(severity_ratio=0.5, **kw), "h",
                             True, True),
    "ApproxH": Structure(lambda **kw: hs.ApproxH(0.1, priors=(0.4, 0.6), **kw), "h",
                         True, True),
    "ApproxH prior": Structure(
        lambda **kw: hs.ApproxH(0.1, severity_ratio="prior", **kw), "h", True, True),
    "ApproxAUC": Structure(lambda **kw: hs.ApproxAUC(0.1, seed=3, **kw), "auc", False, True),
    "ApproxAUC-window": Structure(lambda **kw: hs.ApproxAUC(0.1, window=6, seed=3, **kw), "auc",
                                  False, False),
    "BinnedAUC": Structure(lambda **kw: hs.BinnedAUC(8, score_range=(-2.0, 2.0), **kw), "auc",
                           True, True),
}

#: The structures that keep every point with its weight and read the ROC curve.
EXACT_WEIGHTED = sorted(name for name, structure in STRUCTURES.items()
                        if structure.weighted and structure.keeps_points
                        and name != "BinnedAUC")


#: The structures that forget: ``make(window=..., half_life=...)`` holds a window (of
#: points or of time) or decays the weights (the names of STRUCTURES without a window).
FORGETTING = ("DynamicAUC", "DynamicH", "ApproxH", "ApproxAUC")


def readings(tracker, roc=False, totals=True):
    """What a structure reports, as a dict: its class weights with ``totals``, the ROC
    points and hull with ``roc``."""
    values = {"auc": tracker.auc, "len": len(tracker)}
    names = ("h", "auch", "max_error", "expected_error")
    for name in ("weight_neg", "weight_pos", *names) if totals else names:
        if hasattr(tracker, name):
            values[name] = getattr(tracker, name)
    if roc and tracker.weight_neg > 0 and tracker.weight_pos > 0:
        values["roc"] = tracker.roc_points()
        values["hull"] = tracker.hull()
    return values


# ---------------------------------------------------------------------------
# Structures of other interfaces, over binary labels: made by ``make()``, fed a stream by
# ``feed(structure, y, s, w)`` (w None: no weights) and read at its end by ``read``.

class Stream(NamedTuple):
    make: object
    feed: object
    read: object
    weighted: bool       # takes weights other than 1


def _predicted_and_labelled(monitor, y, s, w):
    keys = list(range(len(y)))
    monitor.predict_many(keys, s, _probability(s))
    monitor.label_many(keys, y)


def _two_columns(s):
    s = np.asarray(s, dtype=float)
    return np.column_stack([-s, s])


STREAMS = {
    # A window longer than every stream the tests feed: read at the end, it holds them all.
    "SlidingWindow": Stream(lambda: hs.SlidingWindow(10_000, ("auc", "h", "auch")),
                            lambda window, y, s, w: window.update(y, s, w),
                            lambda window: window.results(), True),
    "DelayedAUC": Stream(lambda: hs.DelayedAUC(window=10_000),
                         _predicted_and_labelled, lambda monitor: monitor.results(), False),
    "DynamicMulticlassAUC": Stream(
        lambda: hs.DynamicMulticlassAUC([0, 1]),
        lambda tracker, y, s, w: tracker.add_many(y, _two_columns(s), w),
        lambda tracker: (tracker.auc, *tracker.per_class()), True),
}


# ---------------------------------------------------------------------------
# Further configurations of the structures, for the tests of their state (pickles) and of
# their input (fuzzed batches): other engines and options, windows of a few rows, times
# beyond int64 nanoseconds apart.  Made, fed and read as STREAMS; not for the common
# tests (their readings depend on the order or the times of the points).

def centuries(n):
    """n increasing times (datetime64[ns]) from 1680 to 2257: the first and the last more
    than 2^63 ns apart."""
    days = np.linspace(0, 211_000, n).astype(np.int64)
    return (np.datetime64("1680-01-01", "D") + days).astype("datetime64[ns]")


def _added(tracker, y, s, w):
    tracker.add_many(y, s, w)


def _added_at_times(tracker, y, s, w):
    tracker.add_many(y, s, w, times=centuries(len(y)))


def _updated(window, y, s, w):
    window.update(y, s, w)


STATES = {
    "DynamicAUC variance": Stream(lambda: hs.DynamicAUC(variance=True), _added, readings,
                                  True),
    "DynamicH time window": Stream(lambda: hs.DynamicH(window="106000d"), _added_at_times,
                                   readings, True),
    "DynamicAUC time decay": Stream(lambda: hs.DynamicAUC(half_life="30000d"),
                                    _added_at_times, readings, True),
    "BinnedAUC loglog": Stream(
        lambda: hs.BinnedAUC(8, transform="loglog", score_range=(0.01, 1.0)), _added,
        readings, True),
    "DynamicMulticlassAUC ovo": Stream(
        lambda: hs.DynamicMulticlassAUC([0, 1], method="ovo"),
        lambda tracker, y, s, w: tracker.add_many(y, _two_columns(s), w),
        lambda tracker: (tracker.auc, tracker.pairwise()), True),
    # (The compressed list counts points one by one: unit weights.)
    "SlidingWindow rows": Stream(
        lambda: hs.SlidingWindow(4, ("auc", "h", "pauc", "auc_var", "ks", "auc_binned",
                                     "auc_approx", Compression(0.1))),
        _updated, lambda window: window.results(), False),
    "SlidingWindow binned": Stream(
        lambda: hs.SlidingWindow(3, ("auc", Binning(4, score_range=(-2.0, 2.0))), seed=2),
        _updated, lambda window: [window["auc"], window["auc_binned"], len(window)], True),
    "SlidingWindow time": Stream(
        lambda: hs.SlidingWindow("106000d", ("auc", "h")),
        lambda window, y, s, w: window.update(y, s, w, times=centuries(len(y))),
        lambda window: window.results(), True),
    "SlidingWindow multiclass": Stream(
        lambda: hs.SlidingWindow(3, ["multiclass_auc", Classes([0, 1])]),
        lambda window, y, s, w: window.update(y, _two_columns(s), w),
        lambda window: window.results(), True),
}

#: Every configuration above, by name: STRUCTURES as streams (added to with add_many,
#: read by ``readings``), STREAMS and STATES.
EVERY_STATE = {
    **{name: Stream(structure.make, _added, readings, structure.weighted)
       for name, structure in STRUCTURES.items()},
    **STREAMS, **STATES,
}


# ---------------------------------------------------------------------------
# Every name of hmeasure_stream.__all__ is above (a function by the first word of its
# FUNCTIONS names or by FUNCTION_OF, a structure by STRUCTURES' names up to a space or a
# hyphen, or in STREAMS), or here with the reason it is not.

FUNCTION_OF = {
    "partial fpr": "partial_auc", "partial tpr": "partial_auc",
    "partial two-way": "partial_auc", "multiclass ovr": "multiclass_auc",
}

NOT_IN_REGISTRY = {
    "__version__": "a string",
    "METRICS": "the table of metric names (tested in test_metric_table.py)",
    "WINDOW_METRICS": "the table of window metric names (tested in test_metric_table.py)",
    "InvertedScoresWarning": "a warning class",
    "OutOfRangeScoresWarning": "a warning class",
    "expected_auc": "probabilities in place of labels: no y_true, no pos_label",
    "expected_h_measure": "probabilities in place of labels: no y_true, no pos_label",
    "auc_covariance": "no sample_weight (the common tests call every function with weights)",
    "bootstrap_ci": "draws resamples at random: its value depends on the random state, and it "
                    "takes no sample_weight",
    "crisp_auc_approximations": "of a confusion matrix, not of labels and scores",
    "crisp_vus": "of a confusion matrix, not of labels and scores",
    "loglog_transform": "a transform of scores, not a metric",
    "weighted_auc_error_bound": "a bound from class sizes, not of labels and scores",
    "h_scorer": "a scikit-learn scorer of an estimator (tested in test_sklearn_ergonomics.py)",
    "partial_auc_scorer": "a scikit-learn scorer of an estimator (tested in "
                          "test_sklearn_ergonomics.py)",
    "alert_boundary": "a boundary from a rate and a window, not of labels and scores (tested "
                      "in test_alerts_rate.py)",
    "AlertMonitor": "an alert on a window's AUC: its alarms, not a metric (tested in "
                    "test_alerts_rate.py)",
}

#: Option classes and result types: arguments and values of the functions above, not
#: functions of labels and scores.
OPTIONS_AND_RESULTS = frozenset({
    "APApprox", "Binning", "Classes", "Compression", "ConfidenceLevel", "FixedRates", "HCost",
    "PartialRange", "Threshold",
    "AUCTestResult", "BinnedAUCResult", "BootstrapInterval", "CalibrationBins",
    "CalibrationReport", "ConfidenceInterval", "CostThreshold", "CrispVUS",
    "DETCurve", "PrecisionRecallCurve", "ROCCurve",
    "AlertRule", "AlertEvent",
})


def public_name(name):
    """The public name of the function of ``FUNCTIONS[name]``."""
    return FUNCTION_OF.get(name, name.split()[0])


def registered_names():
    """The public names the registry declares: its functions and structures."""
    functions = {public_name(name) for name in FUNCTIONS}
    structures = {name.split()[0].split("-")[0] for name in STRUCTURES}
    return functions | structures | set(STREAMS)
