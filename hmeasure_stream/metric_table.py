"""The metrics a window follows, each declared once: the metric table.

Each entry of :data:`METRICS` names a metric of :class:`~hmeasure_stream.SlidingWindow`
and :func:`~hmeasure_stream.sliding_window`, describes it in one line (the
command line's help and the docs), names the class of its options (a small
frozen dataclass, validated once when it is made), the capabilities it needs
from an engine (one of the constants ``EXACT_AUC``, ``HULL``, ...) and the
column of the engine that holds its value.  The window chooses its engines
from those needs alone; the command line, the plots and dask read their lists
of metrics here.

A metric is asked for by its name (its options then take their defaults) or
by an options object, which gives the options of every metric of its class
in the window and stands for its metric(s) when none of them is named::

    SlidingWindow(1000, metrics=("auc", PartialRange(fpr_range=(0, 0.2)),
                                 HCost(severity_ratio="prior", relative_error=0.1)))

follows ``"auc"``, ``"pauc"`` over false positive rates in [0, 0.2] and
``"h"`` with R's severity ratio, within 0.1 * (1 - H).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from hmeasure_stream._core.binning import check_bins, check_score_range, check_transform
from hmeasure_stream._core.classes import AVERAGES, METHODS
from hmeasure_stream._core.delong import normal_quantiles
from hmeasure_stream._validation import (
    FloatArray,
    check_cost,
    check_option,
    check_partial_correction,
    check_positive,
    check_priors,
    check_probability_level,
    check_rate,
    check_rate_range,
    check_relative_to,
    renamed_fields,
    threshold_key,
)

if TYPE_CHECKING:
    from hmeasure_stream._engines._cost import CostRule

__all__ = ["METRICS", "WINDOW_METRICS", "APApprox", "Binning", "CalibrationBins", "Classes",
           "Compression", "ConfidenceLevel", "FixedRates", "HCost", "Metric", "PartialRange",
           "Threshold", "metric_options"]

# What a metric needs from an engine (the window's engines are chosen from these alone).
#: The exact AUC (every engine but the bins' computes it).
EXACT_AUC = "exact AUC"
#: The maintained ROC convex hull (Tatti, Sec. 5).
HULL = "hull"
#: R hmeasure's KS, MER and MWL: descents of the maintained hull (priors from the window).
REPORT = "hull report"
#: The lower hull as well (KS), which doubles the cost of a step.
LOWER_HULL = "lower hull"
#: The class weights above a threshold after each point (a walk up the segment tree).
THRESHOLD = "threshold descent"
#: A rate at a fixed other rate after each point (a descent of the segment tree).
LEVEL = "level descent"
#: The whole curve after each point, from the highest score down (O(n) a step).
CURVE_WALK = "curve walk"
#: DeLong's variance, maintained with the AUC.
VARIANCE = "variance"
#: The partial area of a box of rates, read after each point.
PARTIAL_BOX = "partial box"
#: The class counts of fixed bins (unit weights in time: no decay, no duration window).
BINS = "bins"
#: Tatti's compressed list of score groups (unit weights only).
COMPRESSED = "compressed list"
#: One binary engine per class or ordered pair of classes, over 2-d scores.
MULTICLASS = "multi-class"
#: The average precision within a relative error after each point (finger searches of the
#: segment tree by rank times true positives).
PRECISION_GROUPS = "precision groups"
#: Exact sums of terms of each point's probability (the scores read as probabilities of
#: class 1, in [0, 1]): Brier, log loss, uniform bins; the expected AUC's doubled points
#: and the scored AUC's pair weights.
CALIBRATION = "probability sums"
#: The class weights of the window (the root of the order engine's segment tree).
CLASS_TOTALS = "class totals"

#: A second model's scores on the same points (``y_score2``): its AUC in an order engine
#: of its own, and the window's rows for DeLong's paired test.
SECOND_SCORE = "second score"

#: The needs that read the scores' values, not only their order: dense ranks of
#: scores not exact as float64 (integers beyond 2**53) would change them.
VALUE_NEEDS = frozenset({THRESHOLD, BINS, CALIBRATION})


@renamed_fields(epsilon="relative_error")
@dataclass(frozen=True)
class HCost:
    """The options of the H-measure's hull: cost distribution, priors and relative error.

    One object for ``"h"``, ``"auch"``, ``"ks"``, ``"mer"`` and ``"mwl"``,
    which share the window's maintained hull; alone in ``metrics`` it asks
    for ``"h"``.

    Parameters
    ----------
    alpha, beta, severity_ratio, priors
        As for :func:`~hmeasure_stream.h_measure`.  Fixed ``priors`` and
        ``severity_ratio="prior"`` need ``relative_error``, and cannot be
        combined with ``"ks"``, ``"mer"`` or ``"mwl"``.
    relative_error : float, optional
        Follow ``"h"`` within ``relative_error * (1 - H)`` as
        :class:`~hmeasure_stream.ApproxH` does.  None: the exact H of
        :class:`~hmeasure_stream.DynamicH`.  ``epsilon=`` is its deprecated name.

    See Also
    --------
    hmeasure_stream.h_measure : the H-measure of one set of points.
    hmeasure_stream.ApproxH : the approximate H of ``relative_error``.

    Examples
    --------
    >>> from hmeasure_stream import HCost, sliding_window
    >>> y, s = [0, 1, 0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3, 0.8, 0.1]
    >>> cost = HCost(severity_ratio="prior", relative_error=0.1)
    >>> h = sliding_window(y, s, 4, metrics=[cost])["h"]
    >>> h.shape
    (6,)
    """

    #: The first shape parameter of the Beta cost distribution.
    alpha: float = field(default=2.0, metadata={"help": "Beta alpha (default 2)"})
    #: The second shape parameter of the Beta cost distribution.
    beta: float = field(default=2.0, metadata={"help": "Beta beta (default 2)"})
    #: R's severity ratio (a number or "prior"), or None.
    severity_ratio: object = field(default=None, metadata={
        "help": "R's severity ratio, a number or 'prior' (instead of alpha/beta)"})
    #: Fixed class priors (pi0, pi1), or None for the window's.
    priors: object = field(default=None, metadata={"help": "fixed class priors"})
    #: The relative error of the approximate H, or None for the exact H.
    relative_error: object = field(default=None, metadata={
        "help": "approximate within E * (1 - H), for any priors", "metavar": "E"})

    def __post_init__(self) -> None:
        rule = check_cost(self.alpha, self.beta, self.severity_ratio, self.priors)
        object.__setattr__(self, "_rule", rule)
        if self.priors is not None:
            object.__setattr__(self, "priors", check_priors(self.priors))
        if self.relative_error is not None:
            object.__setattr__(self, "relative_error",
                               check_positive(self.relative_error, "relative_error"))

    @property
    def rule(self) -> CostRule:
        """The engines' cost rule of these options (made once, when they are checked)."""
        # (set in __post_init__, not a field: getattr tells mypy so)
        return cast("CostRule", getattr(self, "_rule"))  # noqa: B009


@dataclass(frozen=True)
class PartialRange:
    """The options of ``"pauc"``: the box of rates and the correction.

    The same as for :func:`~hmeasure_stream.partial_auc`; alone in
    ``metrics`` it asks for ``"pauc"``.

    Parameters
    ----------
    fpr_range, tpr_range : (float, float), optional
        The ranges of false and true positive rates (default: no range, the AUC).
    correction : {None, "mcclish"}, default=None
        McClish's standardisation (over one range only).

    See Also
    --------
    hmeasure_stream.partial_auc : the partial AUC of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import PartialRange
    >>> PartialRange(fpr_range=(0, 0.2))
    PartialRange(fpr_range=(0.0, 0.2), tpr_range=None, correction=None)
    """

    #: The range of false positive rates, or None.
    fpr_range: object = field(default=None, metadata={
        "help": "the range of false positive rates (default: none)", "metavar": "A,B"})
    #: The range of true positive rates, or None.
    tpr_range: object = field(default=None, metadata={
        "help": "the range of true positive rates (default: none)", "metavar": "A,B"})
    #: None or "mcclish".
    correction: object = field(default=None, metadata={
        "help": "McClish's standardisation, over one range (default: none)",
        "metavar": "mcclish"})

    def __post_init__(self) -> None:
        check_partial_correction(self.correction, self.fpr_range, self.tpr_range)
        for name in ("fpr_range", "tpr_range"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check_rate_range(getattr(self, name), name))

    @property
    def box(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The box ((a, b), (c, d)) of false and true positive rates (a range not given: (0, 1))."""
        return cast("tuple[tuple[float, float], tuple[float, float]]",
                    (self.fpr_range or (0.0, 1.0), self.tpr_range or (0.0, 1.0)))


@renamed_fields(bins="n_bins")
@dataclass(frozen=True)
class Binning:
    """The options of ``"auc_binned"``: its bins.

    The same as for :func:`~hmeasure_stream.binned_auc`; alone in
    ``metrics`` it asks for ``"auc_binned"``.

    Parameters
    ----------
    n_bins : int, default=1000
        The number of bins (>= 1); ``bins=`` is its deprecated name.
    transform : {None, "loglog"}, default=None
        Linear bins, or bins of the log-log transform.
    loglog_alpha : float, optional
        The log-log transform's alpha; None: estimated from the first chunk
        (the whole array in :func:`~hmeasure_stream.sliding_window`), then frozen.
    score_range : (float, float), default=(0.0, 1.0)
        The range of the scores the bins cover.

    See Also
    --------
    hmeasure_stream.BinnedAUC : the binned AUC of a changing set of points.

    Examples
    --------
    >>> from hmeasure_stream import Binning
    >>> Binning(n_bins=100).score_range
    (0.0, 1.0)
    """

    #: The number of bins.
    n_bins: int = field(default=1000, metadata={
        "help": "the number of bins (default 1000)", "metavar": "N"})
    #: None (linear bins) or "loglog".
    transform: object = field(default=None, metadata={
        "help": "bins of the log-log transform (default: linear bins)",
        "metavar": "loglog"})
    #: The log-log alpha, or None to estimate it.
    loglog_alpha: object = field(default=None, metadata={
        "help": "the log-log transform's alpha (default: estimated from the first chunk)",
        "metavar": "ALPHA"})
    #: The range (low, high) of the scores the bins cover.
    score_range: tuple[float, float] = field(default=(0.0, 1.0), metadata={
        "help": "the range of the scores the bins cover (default 0,1)", "metavar": "A,B"})

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_bins", check_bins(self.n_bins, "n_bins"))
        transform, alpha = check_transform(self.transform, self.loglog_alpha)
        object.__setattr__(self, "transform", transform)
        object.__setattr__(self, "loglog_alpha", alpha)
        object.__setattr__(self, "score_range", check_score_range(self.score_range))


@renamed_fields(epsilon="compression")
@dataclass(frozen=True)
class Compression:
    """The options of ``"auc_approx"``: the compression of its list.

    Tatti, "Efficient estimation of AUC in a sliding window", as
    :class:`~hmeasure_stream.ApproxAUC` keeps it.  ``"auc_approx"`` needs
    it (``compression`` has no default); alone in ``metrics`` it asks for
    ``"auc_approx"``.

    Parameters
    ----------
    compression : float
        The list is (1 + compression)-compressed (Tatti's epsilon): the
        estimate is within ``compression * auc / 2`` of the window's AUC
        (``epsilon=``: its deprecated name).
    relative_to : {"auc", "1-auc"}, default="auc"
        With ``"1-auc"`` the bound is ``compression * (1 - auc) / 2`` instead.

    See Also
    --------
    hmeasure_stream.ApproxAUC : the same estimate on a changing set of points.

    Examples
    --------
    >>> from hmeasure_stream import Compression
    >>> Compression(0.1)
    Compression(compression=0.1, relative_to='auc')
    """

    #: The compression of the list (Tatti's epsilon).
    compression: float = field(metadata={
        "help": "a (1 + C)-compressed list: the AUC within C * auc / 2 (required)",
        "metavar": "C"})
    #: "auc" or "1-auc".
    relative_to: str = field(default="auc", metadata={
        "help": "the bound is C * (1 - auc) / 2 instead (default: auc)",
        "metavar": "1-auc"})

    def __post_init__(self) -> None:
        object.__setattr__(self, "compression", check_positive(self.compression, "compression"))
        check_relative_to(self.relative_to, "relative_to")


@dataclass(frozen=True)
class Threshold:
    """The options of R hmeasure's metrics at a threshold.

    The threshold of ``"er"``, ``"sens"``, ``"spec"``, ``"precision"``,
    ``"f"`` and ``"youden"`` (class 1 when score >= threshold, the package's
    one rule: docs/api.rst, "Thresholds"), as for
    :func:`~hmeasure_stream.hmeasure_report`; alone in ``metrics`` it asks
    for the six.

    Parameters
    ----------
    threshold : float, default=0.5
        A finite real number (a ``Fraction`` or an integer beyond 2**53
        too), compared with the scores exactly: it is kept as the least
        double at or above it, which classifies every float64 score as the
        number itself does.

    See Also
    --------
    hmeasure_stream.hmeasure_report : the same metrics of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import Threshold
    >>> Threshold(0.3)
    Threshold(threshold=0.3)
    """

    #: The threshold.
    threshold: float = field(default=0.5, metadata={
        "help": "class 1 when score >= T (default: 0.5)"})

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", threshold_key(self.threshold))


@dataclass(frozen=True)
class FixedRates:
    """The options of ``"sens_at_spec"`` and ``"spec_at_sens"``: the rates held fixed.

    The sensitivity at a fixed specificity and the specificity at a fixed
    sensitivity, read as :func:`~hmeasure_stream.coords` reads them (pROC's
    convention: between two points of the curve, on the straight line between
    them); alone in ``metrics`` it asks for both.

    Parameters
    ----------
    specificity : float, default=0.95
        The specificity of ``"sens_at_spec"``, in [0, 1].
    sensitivity : float, default=0.95
        The sensitivity of ``"spec_at_sens"``, in [0, 1].

    See Also
    --------
    hmeasure_stream.coords : the same reads of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import FixedRates
    >>> FixedRates(specificity=0.9)
    FixedRates(specificity=0.9, sensitivity=0.95)
    """

    #: The fixed specificity.
    specificity: float = field(default=0.95, metadata={
        "help": "the specificity held fixed (default 0.95)", "metavar": "SPEC"})
    #: The fixed sensitivity.
    sensitivity: float = field(default=0.95, metadata={
        "help": "the sensitivity held fixed (default 0.95)", "metavar": "SENS"})

    def __post_init__(self) -> None:
        for name in ("specificity", "sensitivity"):
            object.__setattr__(self, name, check_rate(getattr(self, name), name))


@dataclass(frozen=True)
class ConfidenceLevel:
    """The options of DeLong's interval: its confidence level.

    The level of ``"auc_lo"`` and ``"auc_hi"`` (as
    :func:`~hmeasure_stream.auc_ci`), kept with the variance ``"auc_var"``;
    alone in ``metrics`` it asks for ``"auc_lo"`` and ``"auc_hi"``.

    Parameters
    ----------
    level : float, default=0.95
        In (0, 1).

    See Also
    --------
    hmeasure_stream.auc_ci : the interval of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import ConfidenceLevel
    >>> ConfidenceLevel(0.9)
    ConfidenceLevel(level=0.9)
    """

    #: The confidence level.
    level: float = field(default=0.95, metadata={
        "help": "the confidence level (default 0.95)", "metavar": "LEVEL"})

    def __post_init__(self) -> None:
        object.__setattr__(self, "level", check_probability_level(self.level, "level"))


_WINDOW_AVERAGE = (
    "average=None is not available in a window (one value per step): pass 'macro' or "
    "'weighted', or use DynamicMulticlassAUC for the per-class and pairwise values"
)


@dataclass(frozen=True)
class Classes:
    """The options of ``"multiclass_auc"``: the classes and the averaging.

    The same as for :func:`~hmeasure_stream.multiclass_auc`; alone in
    ``metrics`` it asks for ``"multiclass_auc"``.

    Parameters
    ----------
    classes : sequence, optional
        The classes in the column order of the scores; required by
        :class:`~hmeasure_stream.SlidingWindow` (a window may not hold every
        class), the sorted distinct labels by default in
        :func:`~hmeasure_stream.sliding_window`.
    method : {"ovr", "ovo"}, default="ovr"
        One-vs-rest, or Hand and Till's one-vs-one.
    average : {"macro", "weighted"}, default="macro"
        How the per-class (or pairwise) AUCs are averaged.

    See Also
    --------
    hmeasure_stream.multiclass_auc : the multi-class AUC of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import Classes
    >>> Classes(["a", "b", "c"], method="ovo")
    Classes(classes=('a', 'b', 'c'), method='ovo', average='macro')
    """

    #: The classes in the column order of the scores (a tuple), or None.
    classes: object = None
    #: "ovr" or "ovo".
    method: str = "ovr"
    #: "macro" or "weighted".
    average: str = "macro"

    def __post_init__(self) -> None:
        check_option(self.method, "method", METHODS)
        if self.average is None:
            raise ValueError(_WINDOW_AVERAGE)
        check_option(self.average, "average", tuple(a for a in AVERAGES if a is not None))
        if self.classes is not None:
            object.__setattr__(self, "classes", tuple(cast("Iterable[Any]", self.classes)))


@renamed_fields(epsilon="relative_error")
@dataclass(frozen=True)
class APApprox:
    """The options of ``"ap_approx"``: the relative error of the average precision.

    Alone in ``metrics`` it asks for ``"ap_approx"``.

    Parameters
    ----------
    relative_error : float in (0, 1), default=0.01
        The estimate is within ``relative_error * ap`` of the window's exact
        average precision, as ``DynamicAUC.average_precision(relative_error=...)``
        reads it (``epsilon=``: its deprecated name).

    See Also
    --------
    hmeasure_stream.DynamicAUC.average_precision : the same read on a set of points.

    Examples
    --------
    >>> from hmeasure_stream import APApprox, sliding_window
    >>> y, s = [0, 1, 0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3, 0.8, 0.1]
    >>> sliding_window(y, s, 4, metrics=APApprox(0.05))["ap_approx"].shape
    (6,)
    """

    #: The relative error bound.
    relative_error: float = field(default=0.01, metadata={
        "help": "average precision within E * ap (default 0.01)", "metavar": "E"})

    def __post_init__(self) -> None:
        object.__setattr__(self, "relative_error",
                           check_probability_level(self.relative_error, "relative_error"))


@dataclass(frozen=True)
class CalibrationBins:
    """The options of ``"ece"`` and ``"mce"``: the number of uniform bins.

    The bins of :func:`~hmeasure_stream.calibration_error` with
    ``strategy="uniform"`` (a window keeps per-bin sums, so its bins are
    fixed: quantile bins would move with the window); alone in ``metrics``
    it asks for ``"ece"``.

    Parameters
    ----------
    n_bins : int, default=10
        The number of bins of width 1 / n_bins over [0, 1], in [1, 2**24].

    See Also
    --------
    hmeasure_stream.calibration_error : the same errors of one set of points.

    Examples
    --------
    >>> from hmeasure_stream import CalibrationBins, sliding_window
    >>> CalibrationBins(5)
    CalibrationBins(n_bins=5)
    >>> y, p = [0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3]
    >>> sliding_window(y, p, 2, metrics=[CalibrationBins(2)])["ece"]
    array([0.1 , 0.15, 0.3 , 0.35])
    """

    #: The number of uniform bins.
    n_bins: int = field(default=10, metadata={
        "help": "uniform bins of ece and mce (default 10)", "metavar": "N"})

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_bins", check_bins(self.n_bins, "n_bins"))


@dataclass(frozen=True)
class Reader:
    """How the order engine records a metric: a compiled reader and its arguments.

    ``module`` (a reader of ``hmeasure_stream._engines``, one module per
    reader) has ``function(engine, *arguments(options))`` attach the reader to a
    window's order engine; the metrics of one reader with the same arguments
    share one step (the six of a threshold, DeLong's three).
    """

    #: The reader's module, ``hmeasure_stream._engines._read_...``.
    module: str
    #: The module's function that attaches the reader to an engine.
    function: str
    #: The reader's arguments from the metric's options.
    arguments: Callable[[Any], tuple[Any, ...]]

    def identity(self, options: Any) -> tuple[str, str, tuple[Any, ...]]:
        """What identifies the step this reader attaches for ``options``: (module, function,
        arguments)."""
        return self.module, self.function, self.arguments(options)

    def attach(self, engine: Any, arguments: tuple[Any, ...]) -> None:
        """Attach the reader to ``engine`` with ``arguments`` (those of ``identity``)."""
        getattr(import_module(self.module), self.function)(engine, *arguments)


def _reader(name: str, function: str = "attach",
            arguments: Callable[[Any], tuple[Any, ...]] = lambda options: ()) -> Reader:
    return Reader(f"hmeasure_stream._engines.{name}", function, arguments)


def _box(options: PartialRange) -> tuple[Any, ...]:
    (a, b), (c, d) = options.box
    return (a, b, c, d, options.fpr_range is not None, options.tpr_range is not None,
            options.correction == "mcclish")


_THRESHOLD = _reader("_read_threshold", arguments=lambda options: (options.threshold,))
_KAPPA = _reader("_read_kappa", arguments=lambda options: (options.threshold,))
_INTERVAL = _reader("_read_delong", arguments=lambda options: normal_quantiles(options.level))


@dataclass(frozen=True)
class Metric:
    """One entry of the metric table :data:`~hmeasure_stream.METRICS`.

    A metric of the window, declared once: what the command line, the plots,
    dask and the window's choice of engines read about it.

    See Also
    --------
    hmeasure_stream.SlidingWindow : the window that follows the metrics.

    Examples
    --------
    >>> from hmeasure_stream import METRICS
    >>> METRICS["pauc"].options.__name__, sorted(METRICS["ks"].needs)
    ('PartialRange', ['hull', 'hull report', 'lower hull'])
    """

    #: The metric's name (a key of the window's results, an attribute of the window).
    name: str
    #: One line, for the command line's help and the docs.
    description: str
    #: The class of its options (None: it has none).
    options: type | None
    #: The engine capabilities it needs (``EXACT_AUC``, ``HULL``, ...).
    needs: frozenset[str]
    #: Its name in plots' legends.
    label: str
    #: (metric, 0) for the lower, (metric, 1) for the upper end of a band drawn
    #: around that metric; None.
    band: tuple[str, int] | None = None
    #: Whether an options object of its class asks for it when none of that
    #: class's metrics is named.
    stands_for_options: bool = False
    #: Whether the command line's --metrics offers it (1-d scores, its options
    #: among the command line's).
    cli: bool = True
    #: Its key in hmeasure_report (for dask's grouped metrics), or None.
    report_key: str | None = None
    #: The order engine's reader that records it (None: the engine's own column, or
    #: another engine's).
    reader: Reader | None = None

    @property
    def column(self) -> str:
        """The column of the engine's ``columns`` (and its attribute) that holds the value."""
        return self.name


def _metric(name: str, description: str, options: type | None, needs: Iterable[str], *,
            label: str | None = None, **more: Any) -> Metric:
    return Metric(name, description, options, frozenset(needs), label or name, **more)


#: The metric table: every metric a window follows, in the order of the docs.
METRICS = {metric.name: metric for metric in (
    _metric("auc", "area under the ROC curve (Mann-Whitney, ties count one half)", None,
            (EXACT_AUC,), label="AUC", report_key="AUC"),
    _metric("h", "Hand's H-measure, priors from the window", HCost, (HULL,), label="H",
            stands_for_options=True, report_key="H"),
    _metric("auch", "area under the ROC convex hull", HCost, (HULL,), label="AUCH",
            report_key="AUCH"),
    _metric("auc_approx", "the AUC within compression * auc / 2 from Tatti's compressed list",
            Compression, (COMPRESSED,), stands_for_options=True),
    _metric("auc_binned", "the AUC of binned class counts", Binning, (BINS,),
            stands_for_options=True),
    _metric("pauc", "the partial AUC over a range of FPR and/or TPR", PartialRange,
            (PARTIAL_BOX,), stands_for_options=True,
            reader=_reader("_tree_partial", "record_box", _box)),
    _metric("ks", "R hmeasure's Kolmogorov-Smirnov statistic (the window's priors)", HCost,
            (HULL, REPORT, LOWER_HULL), report_key="KS"),
    _metric("mer", "R hmeasure's minimum error rate (the window's priors)", HCost,
            (HULL, REPORT), report_key="MER"),
    _metric("mwl", "R hmeasure's minimum weighted loss (the window's priors)", HCost,
            (HULL, REPORT), report_key="MWL"),
    _metric("er", "error rate at the threshold", Threshold, (THRESHOLD,),
            stands_for_options=True, report_key="ER", reader=_THRESHOLD),
    _metric("sens", "sensitivity at the threshold", Threshold, (THRESHOLD,),
            stands_for_options=True, report_key="Sens", reader=_THRESHOLD),
    _metric("spec", "specificity at the threshold", Threshold, (THRESHOLD,),
            stands_for_options=True, report_key="Spec", reader=_THRESHOLD),
    _metric("precision", "precision at the threshold", Threshold, (THRESHOLD,),
            stands_for_options=True, report_key="Precision", reader=_THRESHOLD),
    _metric("f", "F measure at the threshold", Threshold, (THRESHOLD,),
            stands_for_options=True, report_key="F", reader=_THRESHOLD),
    _metric("youden", "Youden's index at the threshold", Threshold, (THRESHOLD,),
            stands_for_options=True, report_key="Youden", reader=_THRESHOLD),
    _metric("gmean", "G-mean at the threshold, sqrt(sens * spec) (MOA's)", Threshold,
            (THRESHOLD,), label="G-mean",
            reader=_reader("_read_gmean", arguments=lambda options: (options.threshold,))),
    _metric("kappa", "Cohen's kappa at the threshold (MOA's Kappa)", Threshold, (THRESHOLD,),
            label="kappa", reader=_KAPPA),
    _metric("kappa_m", "Kappa-M at the threshold: kappa against always predicting the "
            "window's majority class", Threshold, (THRESHOLD,), label="Kappa-M", reader=_KAPPA),
    _metric("prevalence", "the share of class 1 in the window, W1 / (W0 + W1)", None,
            (CLASS_TOTALS,), reader=_reader("_read_prevalence")),
    _metric("sens_at_spec", "sensitivity at the fixed specificity (pROC's coords)", FixedRates,
            (LEVEL,), label="sens at spec", stands_for_options=True,
            reader=_reader("_read_levels", arguments=lambda rates: (False, rates.specificity))),
    _metric("spec_at_sens", "specificity at the fixed sensitivity (pROC's coords)", FixedRates,
            (LEVEL,), label="spec at sens", stands_for_options=True,
            reader=_reader("_read_levels", arguments=lambda rates: (True, rates.sensitivity))),
    _metric("ap", "average precision (O(window) a step)", None, (CURVE_WALK,),
            label="AP", reader=_reader("_read_precision")),
    _metric("auc_var", "DeLong's variance of the AUC", ConfidenceLevel, (VARIANCE,),
            reader=_INTERVAL),
    _metric("auc_lo", "lower end of DeLong's interval of the AUC", ConfidenceLevel,
            (VARIANCE,), band=("auc", 0), stands_for_options=True, reader=_INTERVAL),
    _metric("auc_hi", "upper end of DeLong's interval of the AUC", ConfidenceLevel,
            (VARIANCE,), band=("auc", 1), stands_for_options=True, reader=_INTERVAL),
    _metric("auc2", "the second model's AUC (its scores: y_score2, --score2-col)", None,
            (SECOND_SCORE,), label="AUC (model 2)"),
    _metric("auc_diff", "auc - auc2, the first model's AUC minus the second's", None,
            (SECOND_SCORE,), label="AUC difference"),
    _metric("auc_diff_p", "two-sided p-value of DeLong's paired test of auc - auc2 "
            "(O(w log w) a read)", None, (SECOND_SCORE,), label="p of the AUC difference"),
    _metric("multiclass_auc", "one-vs-rest or one-vs-one AUC of c classes (2-d scores, "
            "alone in its window)", Classes, (MULTICLASS,), stands_for_options=True,
            cli=False),
    _metric("ap_approx", "average precision within relative_error * ap "
            "(O(log(w)^2 / relative_error) a step)",
            APApprox, (PRECISION_GROUPS,), label="AP", stands_for_options=True,
            reader=_reader("_read_precision", "attach_approx",
                           lambda options: (options.relative_error,))),
    _metric("brier", "Brier score of the scores as probabilities of class 1", None,
            (CALIBRATION,), label="Brier"),
    _metric("log_loss", "log loss of the scores as probabilities of class 1", None,
            (CALIBRATION,), label="log loss"),
    _metric("ece", "expected calibration error over 10 uniform bins of the probabilities",
            CalibrationBins, (CALIBRATION,), label="ECE", stands_for_options=True),
    _metric("mce", "maximum calibration error over 10 uniform bins of the probabilities",
            CalibrationBins, (CALIBRATION,), label="MCE"),
    _metric("expected_auc", "AUC expected from the scores read as calibrated probabilities "
            "(labels not used)", None, (CALIBRATION,), label="expected AUC"),
    _metric("sauc", "scored AUC of the probabilities (Wu, Flach and Ferri): the pairs "
            "weighted by p1 - p0", None, (CALIBRATION,), label="sAUC"),
)}

#: The metrics a window can follow, by name, in the table's order.
WINDOW_METRICS = tuple(METRICS)

_OPTION_CLASSES = tuple(dict.fromkeys(
    metric.options for metric in METRICS.values() if metric.options is not None))


def metric_options(metrics: object) -> dict[str, Any]:
    """The metrics asked for, by name, each with its options object (or None).

    Parameters
    ----------
    metrics : str, options object, or sequence of them
        Metric names of :data:`METRICS` and options objects (:class:`HCost`,
        :class:`PartialRange`, ...); an options object gives the options of
        its metrics and stands for them when none of them is named.

    Returns
    -------
    dict of str to options object or None
        In the order given (an options object's metrics where it stands).

    Raises
    ------
    ValueError
        On an unknown name, no metric, or two options objects of one class.
    """
    if metrics is None:
        raise ValueError("metrics must be a metric name or a sequence of them, got None")
    if isinstance(metrics, str) and metrics not in METRICS:
        # "auc,h" is the command line's --metrics; in Python the names are a tuple.
        parts = [part for part in re.split(r"[\s,;]+", metrics) if part]
        if len(parts) > 1 and all(part in METRICS for part in parts):
            raise ValueError(f"metrics={metrics!r} is one string: pass the names as a "
                             f"tuple, metrics={tuple(parts)!r} (a comma-separated list is "
                             "the command line's --metrics)")
    if isinstance(metrics, (str, *_OPTION_CLASSES)):
        metrics = (metrics,)
    try:
        metrics = tuple(cast("Iterable[Any]", metrics))
    except TypeError:
        raise ValueError(
            f"metrics must be a metric name or a sequence of them, got {metrics!r}"
        ) from None
    given: dict[type, Any] = {}
    for item in metrics:
        if isinstance(item, _OPTION_CLASSES):
            if type(item) in given:
                raise ValueError(f"metrics holds two {type(item).__name__} options, "
                                 f"{given[type(item)]!r} and {item!r}: give one")
            given[type(item)] = item
    unknown = [item for item in metrics
               if not isinstance(item, _OPTION_CLASSES) and item not in METRICS]
    if unknown or not metrics:
        raise ValueError(
            f"unknown metric(s) {unknown!r}: available metrics are {list(WINDOW_METRICS)} "
            f"or their options ({', '.join(c.__name__ for c in _OPTION_CLASSES)})"
            if unknown else "metrics must name at least one metric"
        )
    named = {item for item in metrics if isinstance(item, str)}
    chosen: dict[str, Any] = {}
    for item in metrics:
        names: tuple[str, ...]
        if isinstance(item, str):
            names = (item,)
        elif any(METRICS[name].options is type(item) for name in named):
            continue  # its metrics are named
        else:
            names = tuple(metric.name for metric in METRICS.values()
                          if metric.options is type(item) and metric.stands_for_options)
        for name in names:
            chosen.setdefault(name, _options_of(name, given))
    return chosen


def value_metrics(metrics: Iterable[str]) -> list[str]:
    """The metrics of ``metrics`` that read the scores' values (a threshold, bins,
    probabilities), not only their order, in order: for them scores are float64 (not
    replaced by their ranks), the one rule of the windows and the command line."""
    return [name for name in metrics if METRICS[name].needs & VALUE_NEEDS]


def first_improbable(metrics: Iterable[str], scores: FloatArray) -> tuple[str, int] | None:
    """``(metric, index)`` of the first score outside [0, 1] when one of ``metrics`` reads
    the scores (float64) as probabilities of class 1, else None: the one rule of the
    windows and the command line, which each say where the score is."""
    names = [name for name in metrics if CALIBRATION in METRICS[name].needs]
    if names:
        bad = np.flatnonzero((scores < 0.0) | (scores > 1.0))
        if bad.size:
            return names[0], int(bad[0])
    return None


def _options_of(name: str, given: dict[type, Any]) -> Any:
    """The options of metric ``name``: the object given for its class, else the defaults."""
    options = METRICS[name].options
    if options is None:
        return None
    if options in given:
        return given[options]
    missing = [f.name for f in dataclasses.fields(options)
               if f.init and f.default is dataclasses.MISSING]
    if missing:
        needed = ", ".join(f"{option}=..." for option in missing)
        raise ValueError(
            f"the metric {name!r} needs {options.__name__}({needed}) among the metrics: "
            f"{' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no default "
            f"(e.g. metrics=[{options.__name__}(0.1)])"
        )
    return options()
