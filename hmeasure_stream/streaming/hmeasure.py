"""The maintained ROC hull: ``DynamicH`` (exact H-measure) and ``ApproxH`` (fixed priors)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from hmeasure_stream._core.report import r_report, report_levels
from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._cost import mwl_cost
from hmeasure_stream._engines._read_levels import fixed_level
from hmeasure_stream._engines._read_threshold import weights_at_or_above
from hmeasure_stream._validation import (
    Duration,
    FloatArray,
    Label,
    Window,
    label_map,
    renamed_attributes,
    renamed_keyword,
    threshold_key,
)
from hmeasure_stream.curves import ROCCurve
from hmeasure_stream.metric_table import HCost
from hmeasure_stream.streaming._base import (
    RENAMED_ATTRIBUTES,
    PointSet,
    WindowedPointSet,
    check_capacity,
    make_forgetting,
    merge_points,
)
from hmeasure_stream.streaming._engine_choice import hull_engine

__all__ = ["ApproxH", "DynamicH"]


class _HullPointSet(WindowedPointSet):
    """What DynamicH and ApproxH share: the maintained ROC hull (BlockedHullEngine) and its AUCH."""

    __slots__ = ()

    @property
    def auch(self) -> float:
        """Area under the ROC convex hull (exact); nan while a class is absent."""
        auch: float = self._engine.auch
        return auch

    def hull(self, return_thresholds: bool = False
             ) -> ROCCurve | tuple[FloatArray, FloatArray]:
        """As ``roc_hull`` returns it, O(h) (O(n) with thresholds); ValueError while a class
        is absent."""
        if return_thresholds:  # the vertices' scores: from the groups
            return WindowedPointSet.hull(self, True)
        fp, tp = self._engine.hull_vertices()
        if not (fp[-1] > 0 and tp[-1] > 0):
            raise ValueError("the ROC hull is undefined while a class is absent")
        return fp / fp[-1], tp / tp[-1]


class DynamicH(_HullPointSet):
    """Exact H-measure of a set of points that changes one point (or batch) at a time.

    Maintains the convex hull of the ROC curve and from it Hand's H-measure with the class priors of
    the current points, the area under the hull (AUCH) and the AUC, all equal to the from-scratch
    values.  Points, refusals, windows, decay, ``merge`` and threads as in :class:`DynamicAUC`.

    Parameters
    ----------
    alpha, beta : float, default=2.0
        The Beta distribution of the cost, as in :func:`~hmeasure_stream.h_measure`.
    severity_ratio : float, optional
        R hmeasure's Beta(2, 1 + 1/SR).  ``"prior"`` is refused: it changes the cost distribution
        with the class balance (use :class:`ApproxH`).  As :class:`~hmeasure_stream.HCost` checks
        them.
    window, half_life, pos_label, capacity
        As in :class:`DynamicAUC`.

    See Also
    --------
    ApproxH : H with priors fixed from outside, within a relative error.
    hmeasure_stream.h_measure : the same H from scratch.

    Notes
    -----
    An update costs O(B + h log n) for B = 128 keys a block and hulls of at most h vertices:
    O(n^(2/3)) with unit weights, O(n) for real weights in convex position.  Reads are O(1), memory
    O(n); ``hull()`` is exact with unit weights.  N. Tatti, "Maintaining AUC and H-measure over
    time" (preprint), Secs. 5.1-5.3; D. J. Hand, "Measuring classifier performance: a coherent
    alternative to the area under the ROC curve", Machine Learning 77, 2009.

    Examples
    --------
    >>> from hmeasure_stream import DynamicH, h_measure, hmeasure_report
    >>> y, s = [0, 0, 1, 0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> tracker = DynamicH(); tracker.add_many(y, s)
    >>> round(tracker.h, 6), round(h_measure(y, s), 6), tracker.report() == hmeasure_report(y, s)
    (0.674074, 0.674074, True)
    >>> tracker.remove(0, 0.4); tracker.auc == 11 / 12, tracker.auch == 23 / 24
    (True, True)
    """

    __slots__ = ()

    def __init__(self, alpha: float = 2.0, beta: float = 2.0,
                 severity_ratio: float | Literal["prior"] | None = None, *,
                 window: Window = None, half_life: Duration | None = None,
                 pos_label: Label = None, capacity: int = 16) -> None:
        self._labels = label_map(pos_label)
        self._forgetting = make_forgetting(window, half_life)
        self._engine: BlockedHullEngine = hull_engine(
            HCost(alpha, beta, severity_ratio), check_capacity(capacity))


    @property
    def h(self) -> float:
        """The H-measure (priors from the current points); nan while a class is absent."""
        return self._engine.h

    def merge(self, other: DynamicH) -> None:
        """Add the points of a DynamicH (same alpha, beta) or a DynamicAUC in one batch, exactly."""
        if isinstance(other, DynamicH):
            mine = (self._engine.alpha, self._engine.beta)
            theirs = (other._engine.alpha, other._engine.beta)
            if mine != theirs:
                raise ValueError(
                    f"cannot merge a DynamicH with Beta{theirs} into one with Beta{mine}: "
                    "the H-measures differ in their cost distribution"
                )
        elif isinstance(other, ApproxH):
            raise ValueError(
                "cannot merge an ApproxH into a DynamicH: its H options (priors fixed from "
                "outside, relative_error) differ from the exact H with priors from the data"
            )
        elif not isinstance(other, PointSet):
            raise ValueError(
                f"merge takes a DynamicH or a DynamicAUC, got {type(other).__name__}"
            )
        merge_points(self, other)

    def report(self, sens_spec_levels: float | Sequence[float] = 0.95, *,
               threshold: float = 0.5) -> dict[str, float]:
        """R hmeasure's summary of the points, as :func:`~hmeasure_stream.hmeasure_report`.

        O(h + log n + B); the first call starts keeping the lower hull (for KS), about doubling an
        update's cost.
        """
        levels = report_levels(sens_spec_levels)
        key = threshold_key(threshold)
        engine = self._engine
        if not engine.has_lower:
            engine.track_lower()
        ks, mer, mwl = engine.extremes(mwl_cost(engine.alpha, engine.beta, None))
        curve = {"H": self.h, "AUCH": self.auch, "KS": ks, "MER": mer, "MWL": mwl}
        # In the caller's units: the engine stores weights scaled by a power of two.
        above_neg, above_pos, total_neg, total_pos = (
            value * engine.scale for value in weights_at_or_above(engine, key))
        counts = None
        if total_neg > 0 and total_pos > 0:
            counts = (above_pos, above_neg, total_neg - above_neg, total_pos - above_pos)
        return r_report(
            levels, self.auc, curve,
            spec_at_sens=lambda level: fixed_level(engine, True, level),
            sens_at_spec=lambda level: fixed_level(engine, False, level),
            counts=counts,
        )

    def __repr__(self) -> str:
        return (
            f"DynamicH(points={len(self)}, alpha={self._engine.alpha!r}, "
            f"beta={self._engine.beta!r}, h={self.h!r}, auc={self.auc!r})"
        )


class ApproxH(_HullPointSet):
    """H-measure within a relative error, for class priors fixed from outside.

    With priors other than those of the current points (known base rates, R's
    ``severity_ratio="prior"``), H does not split into a sum over hull edges.  ApproxH maintains
    the ROC hull of :class:`DynamicH` and computes ``h`` from a subset of its vertices such that
    ``|h - H| <= relative_error * (1 - H)``, H the exact :func:`~hmeasure_stream.h_measure`.
    Points, refusals, windows, decay and threads as in :class:`DynamicAUC`.

    Parameters
    ----------
    relative_error : float
        Relative error bound, > 0 (``epsilon=``: deprecated).  Smaller is more exact and slower.
    priors : (float, float), optional
        Class priors (pi0, pi1) in (0, 1) summing to 1.  None: those of the current points.
    alpha, beta : float, default=2.0
        The Beta distribution of the cost, as in :func:`~hmeasure_stream.h_measure`.
    severity_ratio : float or "prior", optional
        R hmeasure's Beta(2, 1 + 1/SR); ``"prior"`` is SR = pi1 / pi0.
    window, half_life, pos_label, capacity
        As in :class:`DynamicAUC`.

    See Also
    --------
    DynamicH : the exact H with priors from the data, read in O(1).
    hmeasure_stream.h_measure : the exact H from scratch, any priors.

    Notes
    -----
    Updates cost as in :class:`DynamicH`; reading ``h`` visits O((1 + 1/relative_error) log^2 n)
    hull vertices.  Two structures holding the same points read the same value.  Method: Subset
    (Sec. 6, Alg. 3, Props 3-7) of N. Tatti, "Maintaining AUC and H-measure over time" (preprint).

    Examples
    --------
    >>> from hmeasure_stream import ApproxH, h_measure
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.6, 0.7]
    >>> tracker = ApproxH(relative_error=0.1, priors=(0.9, 0.1)); tracker.add_many(y, s)
    >>> exact = h_measure(y, s, priors=(0.9, 0.1))
    >>> abs(tracker.h - exact) <= 0.1 * (1 - exact), tracker.subset_info()
    (True, {'hull_vertices': 5, 'subset_vertices': 5})
    """

    __slots__ = ()

    def __init__(self, relative_error: float | None = None,
                 priors: tuple[float, float] | None = None,
                 alpha: float = 2.0, beta: float = 2.0,
                 severity_ratio: float | Literal["prior"] | None = None, *,
                 window: Window = None, half_life: Duration | None = None,
                 pos_label: Label = None, capacity: int = 16,
                 epsilon: float | None = None) -> None:
        relative_error = renamed_keyword("ApproxH", "epsilon", "relative_error", epsilon,
                                         relative_error)
        if relative_error is None:
            raise TypeError("ApproxH() missing 1 required argument: 'relative_error'")
        self._labels = label_map(pos_label)
        self._forgetting = make_forgetting(window, half_life)
        cost = HCost(alpha, beta, severity_ratio, priors, relative_error)
        self._engine: BlockedHullEngine = hull_engine(cost, check_capacity(capacity))

    __getattr__ = renamed_attributes(**RENAMED_ATTRIBUTES, epsilon="relative_error")

    @property
    def relative_error(self) -> float:
        """The relative error bound."""
        return self._engine.epsilon

    @property
    def h(self) -> float:
        """H within relative_error * (1 - H); nan while a class is absent.  O((1 + 1 /
        relative_error) log^2 n)."""
        return self._engine.h

    def subset_info(self) -> dict[str, int]:
        """``{"hull_vertices": int, "subset_vertices": int}``, both counting (0, 0).  O(h)."""
        hull_x, _ = self._engine.hull_vertices()
        subset_x, _ = self._engine.subset_vertices()
        return {"hull_vertices": len(hull_x), "subset_vertices": len(subset_x)}

    def __repr__(self) -> str:
        return (
            f"ApproxH(points={len(self)}, relative_error={self.relative_error!r}, h={self.h!r}, "
            f"auc={self.auc!r})"
        )
