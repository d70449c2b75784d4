"""Exact AUC of a changing set of points: ``DynamicAUC``, O(log n) per update.

The points are kept in sorted blocks (``BlockedAUCEngine``), which also serve the
partial areas and DeLong's variance.
"""

from __future__ import annotations

import math

import numpy as np

from hmeasure_stream._core.delong import ConfidenceInterval, delong_interval
from hmeasure_stream._core.partial import corrected, exact_area
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._read_delong import variance
from hmeasure_stream._engines._tree_partial import box_area_parts, read_partial
from hmeasure_stream._validation import (
    Correction,
    Duration,
    Label,
    Window,
    check_partial_correction,
    check_probability_level,
    check_rate_range,
    label_map,
)
from hmeasure_stream.streaming._base import (
    PointSet,
    WindowedPointSet,
    check_capacity,
    make_forgetting,
    merge_points,
)

__all__ = ["DynamicAUC"]


class DynamicAUC(WindowedPointSet):
    """Exact AUC of a set of points that changes one point (or batch) at a time.

    The weighted Mann-Whitney statistic of class 1 over class 0, ties counting one half, as
    :func:`hmeasure_stream.auc`.  Points: labels 0/1, -1/1, booleans or as ``pos_label`` says,
    finite scores, weights (default 1) finite, >= 0 and within 2**400 times the first positive one,
    and under a duration times (epoch seconds, datetimes or ISO 8601 strings, naive: UTC) never
    going back.  A refused call (ValueError; KeyError to remove the absent) changes nothing.

    Parameters
    ----------
    window : int, str, datetime.timedelta or numpy.timedelta64, optional
        The last ``window`` points (an int), or those whose time is in (t - window, t], t
        the newest (a duration such as ``"15min"``).  None: every point until removed.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        Exponential decay: a point of age a (in points or time) weighs 2^(-a / half_life) times its
        weight, and leaves after 60 half-lives.  Combines with ``window``.
    variance : bool, default=False
        Maintain DeLong's variance and partial areas from the start (else from a read, O(n)).
    pos_label : hashable, optional
        The label of class 1; the first other label is class 0, a third is refused.
    capacity : int, default=16
        Initial room, in distinct scores; it doubles as needed.

    See Also
    --------
    hmeasure_stream.auc : the same from scratch.
    sliding_window : the AUC over every window of an array.

    Notes
    -----
    Updates cost O(log n) for n distinct scores, ``auc`` O(1), memory O(n).  With unit weights
    ``auc`` and ``partial_auc`` are the from-scratch values exactly, with weights without drift.
    ``merge`` refuses windows and decay.  One thread may mutate at a time (others: RuntimeError).
    N. Tatti, "Maintaining AUC and H-measure over time" (preprint), Sec. 4.

    Examples
    --------
    >>> from hmeasure_stream import DynamicAUC; tracker = DynamicAUC()
    >>> tracker.add_many([0, 0, 1, 0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8])
    >>> tracker.auc, tracker.partial_auc(fpr_range=(0, 0.5)), round(tracker.auc_ci().low, 6)
    (0.875, 0.375, 0.592104)
    >>> tracker.remove(0, 0.4); tracker.auc, len(tracker), tracker.weight_neg, tracker.weight_pos
    (0.9166666666666666, 7, 3.0, 4.0)
    >>> recent = DynamicAUC(window="1h")
    >>> recent.add_many([0, 1, 0, 1], [0.2, 0.9, 0.4, 0.3], times=[0, 1800, 3600, 4200])
    >>> len(recent), recent.auc     # the points of times in (600, 4200] seconds
    (3, 0.5)
    >>> decayed = DynamicAUC(half_life=1); decayed.add_many([1, 0, 1], [0.2, 0.5, 0.9])
    >>> decayed.auc, decayed.weight_pos  # weights 1/4, 1/2 and 1
    (0.8, 1.25)
    """

    # The single-point methods validate in compiled code (fast path for Python
    # bools, ints and floats; anything else goes through _validation).
    __slots__ = ()

    def __init__(self, *, window: Window = None, half_life: Duration | None = None,
                 variance: bool = False, pos_label: Label = None, capacity: int = 16) -> None:
        self._labels = label_map(pos_label)
        self._forgetting = make_forgetting(window, half_life)
        if not isinstance(variance, (bool, np.bool_)):
            raise ValueError(f"variance must be True or False, got {variance!r}")
        capacity = check_capacity(capacity)
        self._engine: BlockedAUCEngine = BlockedAUCEngine(capacity)
        if variance:
            self._engine.track_variance()

    @property
    def auc_variance(self) -> float:
        """DeLong's variance, :func:`~hmeasure_stream.auc_variance`; nan if a class weighs <= 1."""
        engine = self._engine
        if not engine.tracks_variance:
            engine.track_variance()
        scale = engine.scale
        if self._forgetting is not None:
            scale /= self._forgetting.newest_factor()
        return variance(engine, scale)

    def auc_ci(self, level: float = 0.95) -> ConfidenceInterval:
        """DeLong's ``(low, high)`` and ``.estimate``, as :func:`~hmeasure_stream.auc_ci`; O(1)."""
        level = check_probability_level(level, "level")
        return delong_interval(self.auc, self.auc_variance, level)

    def partial_auc(self, fpr_range: tuple[float, float] | None = None,
                    tpr_range: tuple[float, float] | None = None,
                    correction: Correction = None) -> float:
        """The partial AUC, as :func:`~hmeasure_stream.partial_auc` takes arguments.  O(log n)."""
        engine = self._engine
        tracking = engine.tracks_variance
        if tracking:
            value = read_partial(engine, fpr_range, tpr_range, correction)
            if value is not None:  # plain arguments, the value settled in compiled code
                return value
        fpr_box = check_rate_range(fpr_range, "fpr_range")
        tpr_box = check_rate_range(tpr_range, "tpr_range")
        check_partial_correction(correction, fpr_range, tpr_range)
        if not tracking:
            # Checked before the pair weights start, so that a refused call changes nothing.
            engine.track_variance()
            value = read_partial(engine, fpr_range, tpr_range, correction)
            if value is not None:
                return value
        parts = box_area_parts(engine, *fpr_box, *tpr_box)
        if parts is None:
            return math.nan
        if len(parts) == 6:
            *exact, n_neg, n_pos = parts
            area = exact_area(*exact, fpr_box, tpr_box, n_neg, n_pos)  # type: ignore[call-arg]
        else:
            weighted_area, total_neg, total_pos = parts
            area = weighted_area / total_neg / total_pos
        area_value: float = corrected(area, fpr_box, tpr_box, fpr_range, tpr_range, correction)
        return area_value

    def merge(self, other: DynamicAUC) -> None:
        """Add the m points of a DynamicAUC, DynamicH or ApproxH, exactly.  O(m log(n + m))."""
        if not isinstance(other, PointSet):
            raise ValueError(
                "merge takes a DynamicAUC, DynamicH or ApproxH (a set of points), got "
                f"{type(other).__name__}"
            )
        merge_points(self, other)

    def __repr__(self) -> str:
        return (
            f"DynamicAUC(points={len(self)}, weight_neg={self.weight_neg!r}, "
            f"weight_pos={self.weight_pos!r}, "
            f"auc={self.auc!r})"
        )
