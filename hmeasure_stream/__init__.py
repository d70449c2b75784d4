"""hmeasure_stream: exact AUC and Hand's H-measure over streams and sliding windows.

The from-scratch reference functions work on whole arrays:

- :func:`auc` -- area under the ROC curve (Mann-Whitney, ties count one half);
- :func:`h_measure` -- Hand's H-measure on the ROC convex hull;
- :func:`roc_points` -- the points of the ROC curve;
- :func:`roc_hull` -- the vertices of the ROC convex hull;
- :func:`roc_curve`, :func:`precision_recall_curve`, :func:`det_curve` -- the
  curves with their thresholds; :func:`average_precision` -- the area under the
  precision steps;
- :func:`coords` -- operating points at a threshold, specificity or
  sensitivity, and the best threshold (pROC's ``coords``);
- :func:`min_cost_threshold` -- the threshold of least expected loss at a cost;
- :func:`hmeasure_report` -- R hmeasure's summary of one classifier;
- :func:`brier_score`, :func:`log_loss`, :func:`calibration_error`,
  :func:`calibration_report` -- the calibration of probabilities of class 1;
- :func:`expected_auc`, :func:`expected_h_measure` -- the AUC and H expected
  from probabilities, before the labels arrive (NannyML's CBPE estimate);
- :func:`auc_variance`, :func:`auc_ci`, :func:`auc_test`, :func:`auc_covariance`
  -- DeLong's variance of the AUC, its confidence interval, the test of two
  AUCs (paired or not), the covariance of two paired AUCs;
- :func:`bootstrap_ci` -- a stratified bootstrap interval of any statistic;
- :func:`multiclass_auc` -- one-vs-rest or Hand and Till's one-vs-one AUC of c classes;
- :func:`crisp_vus` -- volume under the ROC surface of a crisp classifier;
- :func:`crisp_auc_approximations` -- its one-point approximations;
- :func:`partial_auc` -- area over a range of FPR and/or TPR (pROC's partial AUC);
- :func:`weighted_auc` -- weighted AUC (Maurer and Pontil's plug-in estimator);
- :func:`weighted_auc_error_bound` -- its finite-sample error bound;
- :func:`h_scorer`, :func:`partial_auc_scorer` -- scikit-learn scorers of H and the partial AUC;
- :func:`binned_auc` -- approximate AUC from binned class counts, with an error bound
  (:func:`loglog_transform` -- the bins' log-log transform).

The streaming structures update the metrics as points arrive and leave:

- :class:`DynamicAUC` -- exact AUC, O(log n) per added or removed point;
- :class:`DynamicH` -- exact H-measure, AUCH and ROC hull, O(log n) hull merges per update;
- :class:`BinnedAUC` -- the binned AUC with its error bound, O(log m) per update, mergeable;
- :class:`DynamicMulticlassAUC` -- exact one-vs-rest or one-vs-one AUC of c classes;
- :class:`ApproxH` -- H-measure with fixed priors within a relative error;
- :class:`ApproxAUC` -- AUC within a relative error compression / 2 from a compressed list;
- :class:`SlidingWindow` -- metrics over a window of a stream that arrives in chunks;
- :func:`sliding_window` -- the metrics over every window of an array;
- :class:`DelayedAUC` -- realized and expected AUC of predictions whose labels arrive late;
- :class:`AlertMonitor` -- an alert on a window's AUC (:class:`AlertRule`) with a stated
  false-alarm rate (:func:`alert_boundary`), its alarms as :class:`AlertEvent`.

The metric table :data:`METRICS` declares each metric a window follows
(:data:`WINDOW_METRICS`, their names) with the class of its options:
:class:`HCost` (``"h"``, ``"auch"``, ``"ks"``, ``"mer"``, ``"mwl"``),
:class:`PartialRange` (``"pauc"``), :class:`Binning` (``"auc_binned"``),
:class:`Compression` (``"auc_approx"``), :class:`Threshold` (``"er"``, ...,
``"youden"``), :class:`FixedRates` (``"sens_at_spec"``, ``"spec_at_sens"``),
:class:`ConfidenceLevel` (``"auc_var"``, ``"auc_lo"``,
``"auc_hi"``), :class:`Classes` (``"multiclass_auc"``), :class:`APApprox`
(``"ap_approx"``) and :class:`CalibrationBins` (``"ece"``, ``"mce"``, with
``"brier"``, ``"log_loss"`` and ``"expected_auc"`` the metrics of the scores
read as probabilities of class 1).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# First: the command line's Ctrl-C while the modules below import (see _startup).
from hmeasure_stream import _startup  # noqa: F401
from hmeasure_stream._version import __version__

if TYPE_CHECKING:
    from hmeasure_stream._validation import InvertedScoresWarning
    from hmeasure_stream.alerts import AlertEvent, AlertMonitor, AlertRule, alert_boundary
    from hmeasure_stream.binned import (
        BinnedAUCResult,
        OutOfRangeScoresWarning,
        binned_auc,
        loglog_transform,
    )
    from hmeasure_stream.calibration import (
        CalibrationReport,
        brier_score,
        calibration_error,
        calibration_report,
        log_loss,
    )
    from hmeasure_stream.crisp import CrispVUS, crisp_auc_approximations, crisp_vus
    from hmeasure_stream.curves import (
        CostThreshold,
        DETCurve,
        PrecisionRecallCurve,
        ROCCurve,
        average_precision,
        coords,
        det_curve,
        min_cost_threshold,
        precision_recall_curve,
        roc_curve,
    )
    from hmeasure_stream.expected import expected_auc, expected_h_measure
    from hmeasure_stream.metric_table import (
        METRICS,
        WINDOW_METRICS,
        APApprox,
        Binning,
        CalibrationBins,
        Classes,
        Compression,
        ConfidenceLevel,
        FixedRates,
        HCost,
        PartialRange,
        Threshold,
    )
    from hmeasure_stream.metrics import auc, h_measure, hmeasure_report, roc_hull, roc_points
    from hmeasure_stream.multiclass import multiclass_auc
    from hmeasure_stream.partial import partial_auc, weighted_auc, weighted_auc_error_bound
    from hmeasure_stream.scorers import h_scorer, partial_auc_scorer
    from hmeasure_stream.streaming import (
        ApproxAUC,
        ApproxH,
        BinnedAUC,
        DelayedAUC,
        DynamicAUC,
        DynamicH,
        DynamicMulticlassAUC,
        SlidingWindow,
        sliding_window,
    )
    from hmeasure_stream.uncertainty import (
        AUCTestResult,
        BootstrapInterval,
        ConfidenceInterval,
        auc_ci,
        auc_covariance,
        auc_test,
        auc_variance,
        bootstrap_ci,
    )

#: The public names by the module that defines them (below the package), imported on
#: first use: ``hmeasure-stream --version`` and a script that needs one name load only
#: what they use.
_LAZY = {
    "_validation": ("InvertedScoresWarning",),
    "alerts": ("AlertEvent", "AlertMonitor", "AlertRule", "alert_boundary"),
    "binned": ("BinnedAUCResult", "OutOfRangeScoresWarning", "binned_auc", "loglog_transform"),
    "calibration": (
        "CalibrationReport", "brier_score", "calibration_error", "calibration_report", "log_loss"
    ),
    "crisp": ("CrispVUS", "crisp_auc_approximations", "crisp_vus"),
    "curves": (
        "CostThreshold", "DETCurve", "PrecisionRecallCurve", "ROCCurve", "average_precision",
        "coords", "det_curve", "min_cost_threshold", "precision_recall_curve", "roc_curve"
    ),
    "expected": ("expected_auc", "expected_h_measure"),
    "metric_table": (
        "METRICS", "WINDOW_METRICS", "APApprox", "Binning", "CalibrationBins", "Classes",
        "Compression", "ConfidenceLevel", "FixedRates", "HCost", "PartialRange", "Threshold"
    ),
    "metrics": ("auc", "h_measure", "hmeasure_report", "roc_hull", "roc_points"),
    "multiclass": ("multiclass_auc",),
    "partial": ("partial_auc", "weighted_auc", "weighted_auc_error_bound"),
    "scorers": ("h_scorer", "partial_auc_scorer"),
    "streaming": (
        "ApproxAUC", "ApproxH", "BinnedAUC", "DelayedAUC", "DynamicAUC", "DynamicH",
        "DynamicMulticlassAUC", "SlidingWindow", "sliding_window"
    ),
    "uncertainty": (
        "AUCTestResult", "BootstrapInterval", "ConfidenceInterval", "auc_ci", "auc_covariance",
        "auc_test", "auc_variance", "bootstrap_ci"
    ),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


# Type checkers read the imports above, and would take any other name for one that
# __getattr__ answers: they do not see it.
if not TYPE_CHECKING:
    def __getattr__(name):
        """A public name, imported from its module on first use (PEP 562)."""
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # (the next look-up finds it without this function)
        return value

    def __dir__():
        return sorted({*globals(), *__all__})


__all__ = [
    "METRICS",
    "WINDOW_METRICS",
    "APApprox",
    "AUCTestResult",
    "AlertEvent",
    "AlertMonitor",
    "AlertRule",
    "ApproxAUC",
    "ApproxH",
    "BinnedAUC",
    "BinnedAUCResult",
    "Binning",
    "BootstrapInterval",
    "CalibrationBins",
    "CalibrationReport",
    "Classes",
    "Compression",
    "ConfidenceInterval",
    "ConfidenceLevel",
    "CostThreshold",
    "CrispVUS",
    "DETCurve",
    "DelayedAUC",
    "DynamicAUC",
    "DynamicH",
    "DynamicMulticlassAUC",
    "FixedRates",
    "HCost",
    "InvertedScoresWarning",
    "OutOfRangeScoresWarning",
    "PartialRange",
    "PrecisionRecallCurve",
    "ROCCurve",
    "SlidingWindow",
    "Threshold",
    "__version__",
    "alert_boundary",
    "auc",
    "auc_ci",
    "auc_covariance",
    "auc_test",
    "auc_variance",
    "average_precision",
    "binned_auc",
    "bootstrap_ci",
    "brier_score",
    "calibration_error",
    "calibration_report",
    "coords",
    "crisp_auc_approximations",
    "crisp_vus",
    "det_curve",
    "expected_auc",
    "expected_h_measure",
    "h_measure",
    "h_scorer",
    "hmeasure_report",
    "log_loss",
    "loglog_transform",
    "min_cost_threshold",
    "multiclass_auc",
    "partial_auc",
    "partial_auc_scorer",
    "precision_recall_curve",
    "roc_curve",
    "roc_hull",
    "roc_points",
    "sliding_window",
    "weighted_auc",
    "weighted_auc_error_bound",
]
