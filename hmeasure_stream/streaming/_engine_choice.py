"""The choice of a window's engines from the metric table, in one place.

:class:`~hmeasure_stream.SlidingWindow`, :func:`~hmeasure_stream.sliding_window`
and :class:`~hmeasure_stream.DelayedAUC` read their engines here: each metric
of the table says what it needs from an engine (``EXACT_AUC``, ``HULL``, ...),
and :func:`window_engines` makes the fewest engines that serve them all.
"""

from importlib import import_module

import numpy as np

from hmeasure_stream._core.binning import TRANSFORMS
from hmeasure_stream._engines._approx_auc import ApproxAUCEngine
from hmeasure_stream._engines._bin_tree import BinTree
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._calibration import CalibrationEngine
from hmeasure_stream._engines._cost import mwl_cost
from hmeasure_stream.metric_table import (
    BINS,
    CALIBRATION,
    COMPRESSED,
    CURVE_WALK,
    HULL,
    LEVEL,
    LOWER_HULL,
    METRICS,
    MULTICLASS,
    PARTIAL_BOX,
    PRECISION_GROUPS,
    REPORT,
    THRESHOLD,
    VARIANCE,
)
from hmeasure_stream.streaming.multiclass import MulticlassWindow

__all__ = ["ORDER_NEEDS", "attach_readers", "bins_engine", "compressed_engine", "engine_maker",
           "hull_engine", "needing", "options_needing", "probability_engine", "unit_weight_metrics",
           "window_engines"]

# What the one blocked engine of a window serves beyond the exact AUC: the metrics
# read from the score order.
ORDER_NEEDS = (HULL, THRESHOLD, LEVEL, CURVE_WALK, PARTIAL_BOX, VARIANCE, PRECISION_GROUPS)


def needing(chosen, need):
    """The metrics of ``chosen`` that need the engine capability ``need``, by name."""
    return [name for name in chosen if need in METRICS[name].needs]


def unit_weight_metrics(chosen):
    """The metrics of ``chosen`` whose engines take unit weights only (the bins and the
    compressed list): no decay for them."""
    return sorted(needing(chosen, COMPRESSED) + needing(chosen, BINS))


def options_needing(chosen, need):
    """The options object of the metrics that need ``need`` (one class shares it)."""
    return next(chosen[name] for name in needing(chosen, need))


def window_engines(chosen, *, capacity, seed, window=None):
    """The engines for these metrics: the one place where a window's engines are chosen.

    ``chosen`` maps each metric to its options (:func:`metric_options`); the
    engines follow from what the metric table says each metric needs.  Each
    engine computes the metrics it names in ``columns``; every metric is read
    from the first engine that computes it.  One blocked engine keeps the
    points in score order for every metric read from that order (the AUC,
    the threshold metrics, the partial box, DeLong's variance and interval):
    the hull engine when a hull metric is asked (H, AUCH and R's KS, MER,
    MWL: exact H when the priors come from the data and the cost
    distribution does not depend on them, the approximate H of ``relative_error``
    otherwise; the report's descents and the lower hull only when a metric
    needs them), else a ``BlockedAUCEngine``; it is left out when the bins or
    the compressed list compute every metric asked for.  The bins and the
    compressed list (``auc_binned``, ``auc_approx``) are structures of their
    own.  ``MULTICLASS`` takes 2-d scores, so it is alone in its window:
    its engine (one binary engine per class or per ordered pair of classes)
    keeps the window's points itself.
    """
    return engine_maker(chosen, seed=seed, window=window)(capacity)


def engine_maker(chosen, *, seed, window=None):
    """:func:`window_engines` in two steps: the choice, made and checked here once, and
    the function it returns, which makes the engines chosen for a first ``capacity``
    (a window's segments, each with engines of its own, pay for the choice once a
    chunk, not once a segment)."""
    multiclass = needing(chosen, MULTICLASS)
    if multiclass:
        if len(chosen) > 1:
            raise ValueError(
                f"the metric {multiclass[0]!r} takes 2-d scores (one column per class) and "
                "cannot be combined with the binary metrics "
                f"{[m for m in chosen if m not in multiclass]}: use one window per kind of "
                "score"
            )
        classes = options_needing(chosen, MULTICLASS)
        if classes.classes is None:
            raise ValueError(
                "the metric 'multiclass_auc' needs classes=, the classes in the column order "
                "of the score rows (a window may not hold every class): give "
                "Classes(classes=...) among the metrics"
            )
        listed = list(classes.classes)
        return lambda capacity: [MulticlassWindow(window, list(listed), classes.method,
                                                  classes.average, capacity)]
    makers = []
    if needing(chosen, BINS):
        binning = options_needing(chosen, BINS)
        makers.append(lambda capacity: bins_engine(binning))
    if needing(chosen, COMPRESSED):
        compression = options_needing(chosen, COMPRESSED)
        makers.append(lambda capacity: compressed_engine(compression, capacity, seed))
    if needing(chosen, CALIBRATION):
        makers.append(lambda capacity: _calibration_engine(chosen))
    # (The other engines' columns, from engines made once for the choice.)
    columns = {column for make in makers for column in make(16).columns}
    if (any(needing(chosen, need) for need in ORDER_NEEDS)
            or any(METRICS[name].column not in columns for name in chosen)):
        # One blocked engine (the hull's when a hull metric is asked) keeps the window's
        # points in score order and records every metric read from that order.
        order = (_hull_maker(options_needing(chosen, HULL),
                             report=bool(needing(chosen, REPORT)),
                             lower=bool(needing(chosen, LOWER_HULL)))
                 if needing(chosen, HULL) else BlockedAUCEngine)
        readers = _readers(chosen)

        def make_order(capacity):
            blocked = order(capacity)
            for attach, arguments in readers:
                attach(blocked, *arguments)
            return blocked

        makers.insert(0, make_order)
    return lambda capacity: [make(capacity) for make in makers]


def _readers(chosen):
    """(attach function, arguments) of every reader the order engine of ``chosen`` records
    (:func:`attach_readers`)."""
    readers, attached = [], set()
    for name in METRICS:
        reader = METRICS[name].reader
        if name in chosen and reader is not None:
            identity = reader.identity(chosen[name])
            if identity not in attached:
                attached.add(identity)
                readers.append((getattr(import_module(identity[0]), identity[1]),
                                identity[2]))
    return readers


def attach_readers(blocked, chosen):
    """Have the order engine ``blocked`` record every metric of ``chosen`` that has a
    reader in the metric table: one loop over the table, each reader attached once for
    the metrics that share it."""
    for attach, arguments in _readers(chosen):
        attach(blocked, *arguments)


def _calibration_engine(chosen):
    """The exact sums of the probability metrics (Brier, log loss, ECE, MCE) and the
    expected AUC's doubled points, for the metrics of ``CALIBRATION`` asked."""
    names = needing(chosen, CALIBRATION)
    bins = [chosen[name] for name in names if chosen[name] is not None]
    return CalibrationEngine(names, np.linspace(0.0, 1.0, bins[0].n_bins + 1) if bins else None)


def probability_engine(metric):
    """The exact sums of one probability metric alone (``"brier"``, ``"log_loss"``), as a
    window of that metric has them."""
    return _calibration_engine({metric: None})


def bins_engine(binning):
    """The bins of ``binning`` (:class:`Binning`): ``binned_auc``'s rule, frozen (a
    log-log alpha of None, nan here, is estimated from the first chunk)."""
    lo, hi = binning.score_range
    engine = BinTree(binning.n_bins)
    engine.set_binning(lo, hi - lo, TRANSFORMS[binning.transform],
                       0.0 if binning.transform is None
                       else np.nan if binning.loglog_alpha is None else binning.loglog_alpha)
    return engine


def compressed_engine(compression, capacity, seed):
    """Tatti's compressed list of ``compression`` (:class:`Compression`)."""
    return ApproxAUCEngine(compression.compression, compression.relative_to == "1-auc",
                           capacity, seed)


def hull_engine(cost, capacity, *, report=False, lower=False):
    """The maintained hull of H, AUCH and R's KS, MER and MWL for ``cost`` (:class:`HCost`):
    the exact H when the priors come from the points and the cost distribution does not
    depend on them, the approximate H of ``cost.relative_error`` otherwise; R's report's
    descents with ``report``, the lower hull (KS) with ``lower``."""
    return _hull_maker(cost, report=report, lower=lower)(capacity)


def _hull_maker(cost, *, report, lower):
    """:func:`hull_engine` in two steps: ``cost`` checked here, the engines made of a first
    capacity by the function returned."""
    if cost.relative_error is not None:
        if report:
            raise ValueError(
                "the metrics 'ks', 'mer' and 'mwl' come from the exact hull: they cannot be "
                "combined with relative_error="
            )

        def approximate(capacity):
            engine = BlockedHullEngine(2.0, 2.0, capacity)
            engine.set_reading(cost.relative_error, cost.rule)
            return engine

        return approximate
    if not cost.rule.exact_on_structures:
        raise ValueError(
            "fixed priors and severity_ratio='prior' make H impossible to maintain "
            "exactly (H then no longer splits into a sum over the hull's edges): give "
            "relative_error= (ApproxH, or HCost in a window) for H within "
            "relative_error * (1 - H), or call h_measure on each set of points"
        )
    shape = cost.rule.shape
    # R hmeasure's KS, MER and MWL (priors from the window, MWL at the Beta's mode): hull
    # descents, KS with the lower hull as well.
    descents = mwl_cost(*shape, None) if report else None

    def exact(capacity):
        engine = BlockedHullEngine(*shape, capacity)
        if report:
            engine.record_report(descents)
            if lower:
                engine.track_lower()
        return engine

    return exact
