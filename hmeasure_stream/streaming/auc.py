"""Exact AUC of a changing set of points: ``DynamicAUC``, O(log n) per update.

The points are kept in sorted blocks (``BlockedAUCEngine``), which also serve the
partial areas and DeLong's variance.
"""

import math

import numpy as np

from hmeasure_stream._core.delong import delong_interval
from hmeasure_stream._core.partial import corrected, exact_area
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._tree_partial import box_area_parts, read_partial
from hmeasure_stream._validation import (
    check_partial_correction,
    check_probability_level,
    check_rate_range,
    label_map,
)
from hmeasure_stream.streaming._base import (
    PointSet,
    WindowedPointSet,
    check_structure_options,
    make_forgetting,
    merge_points,
)

__all__ = ["DynamicAUC"]


class DynamicAUC(WindowedPointSet):
    """Exact AUC of a set of points that changes one point (or batch) at a time.

    Points are (label, score, weight) triples; the AUC is the weighted
    Mann-Whitney statistic of class 1 over class 0, ties counting one half,
    exactly as :func:`hmeasure_stream.auc` computes it from scratch.

    Parameters
    ----------
    window : int, str, datetime.timedelta or numpy.timedelta64, optional
        Keep only a window of the points: an int keeps the last ``window``
        points added (adding one more evicts the oldest); a duration
        (``"15min"``, ``"24h"``, ``"7d"``, a timedelta) keeps the points whose
        time is in (t - window, t], t the newest time (every point then needs
        a time).  None (default): every point is kept until removed.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        Exponential decay: a point of age a weighs 2^(-a / half_life) times
        its weight, relative to the newest point; the age counts points
        added after it (a number) or time (a duration, with times).  Combines
        with ``window``.
    variance : bool, default=False
        Maintain DeLong's variance of the AUC from the start, for O(1) reads
        of :attr:`auc_variance` and :meth:`auc_ci` (see Notes for its cost).
        Without it, the first such read starts maintaining it, in O(n) once.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...), fixed for
        ``add``, ``remove``, ``add_many`` and ``remove_many``: the first other
        label added is class 0 from then on and a third one is refused.
        Default: labels 0/1, -1/1 or booleans.
    capacity : int, default=16
        Initial number of distinct scores the structure has room for; it
        doubles as needed.
    seed : int, optional
        Accepted as by the other structures; nothing in sorted blocks is
        random.

    Attributes
    ----------
    auc : float
        The current AUC; nan while a class is absent (or has zero weight).
    auc_variance : float
        DeLong's variance of the current AUC (as
        :func:`~hmeasure_stream.auc_variance`); nan while a class has fewer
        than two points (total weight <= 1).  See also :meth:`auc_ci`.
    n_neg, n_pos : float
        Total weight of class 0 and of class 1.

    See Also
    --------
    sliding_window : the AUC over every window of an array, in one compiled loop.
    hmeasure_stream.auc : the same value from scratch.
    hmeasure_stream.auc_variance, hmeasure_stream.auc_ci : DeLong's variance and
        interval from scratch.

    Notes
    -----
    The points are kept in sorted blocks: the distinct scores in increasing
    order, cut into blocks of at most 128 stored contiguously with their
    class counts, a directory of the blocks and a segment tree of each
    block's class weights over gapped leaves.  An update costs O(log n) time
    for n distinct scores: a binary search of the directory and of one block,
    a scan of the block's prefix and a walk up the segment tree give the
    class weights below and above the score, and the Mann-Whitney statistic
    changes by Props 1-2 of the paper below; a few cache lines, where a
    search tree pays a memory latency per level.  Reading ``auc`` is O(1).
    Memory is O(n): 16 bytes per key slot (the score and two counts; 48 once
    a weight other than the first is added), blocks between a quarter and
    wholly full and their capacity doubling: ``nbytes / n`` is 36.3 at 10^6
    distinct random scores.  Reading the ROC points or the hull is O(n).

    ``partial_auc`` and DeLong's variance (``variance=True``,
    :attr:`auc_variance`, :meth:`auc_ci`) read the same blocks: each block
    and segment-tree node also keeps its pair weight (twice the Mann-Whitney
    statistic of its points), as the score treap of the paper keeps each
    subtree's.  The pair weights are kept from the first such call on (or
    from the start with ``variance=True``): one O(n) pass over the blocks,
    then O(log n) more per update; a ``partial_auc`` read is O(log n) (plus a
    scan of a few blocks).

    With unit weights twice the statistic is an exact integer, so ``auc``
    equals the from-scratch value exactly, after any number of updates.  With
    other weights it is the root of a tree of sums of non-negative terms,
    recomputed from the children on every update, so it never drifts
    (relative error of order depth times 1e-16).  Weights are stored times
    the power of two that brings the first positive one into [1, 2): every
    metric is the same bit for bit when all weights are multiplied by one
    constant (1e-300 or 1e300 alike); a weight more than 2**400 times larger
    or smaller than that first one is refused.

    Scores are stored as float64: integers beyond 2**53 are refused,
    extended-precision floats are rounded.  ``remove`` subtracts the given
    weight from the points of that label and score; pass the weight the point
    was added with (the last point there leaves only with its whole weight).

    Threads: a structure may be mutated by one thread at a time.  A mutation
    (or a batch, which releases the GIL) that finds another one running
    raises RuntimeError instead of corrupting the structure; reading ``auc``,
    ``n_neg``, ``n_pos`` and ``len`` is safe from any thread (a value from
    before or after a concurrent update).  Pickling copies the buffers (and
    is refused while an update runs).

    DeLong's variance is maintained with the AUC (with ``variance=True``, or
    from the first read of :attr:`auc_variance` or :meth:`auc_ci` on), also in
    O(log n) per update and O(1) per read.  With unit weights it costs no
    measurable time or memory; with other weights about 15-35 % more per
    update (measured at 10^5 and 10^6 points, ``asv_benchmarks/ratios.py
    --part variance``), hence opt-in.  It needs, besides 2U, the sums over each class of the
    squared placement numerators: for a class 1 point a = 2 (class 0 weight
    below it) + (class 0 weight at its score), for a class 0 point b = 2
    (class 1 weight above it) + (class 1 weight at its score).  With unit
    weights these sums are kept exactly, in 128-bit integers: adding a class 1
    point at s adds its a^2 and raises b by 2 for each class 0 point below s
    (by 1 at s), which changes their sum of squares by 4 (sum of those b) +
    4 (their number) (+ the same at s); sum b over the class 0 points below s
    is 2U minus 2U of the points above s minus the pairs at s, and 2U of the
    points above s is summed on the way down from each subtree's 2U (the
    pair weight that :meth:`partial_auc` reads: nothing more is stored).  So
    the variance is formed from exact integers and rounded once: it never
    drifts, after any number of updates, while n0 n1 < 2**52 (the subtree
    pair weights are integers in doubles).  With other weights each
    subtree keeps its sums of weight times squared numerator, recomputed
    from the children (a subtree's numerators shifted by k become
    Q + 2 k U + k^2 W), sums of non-negative terms like 2U (96 bytes a slot);
    the variance is then their difference with the squared AUC, with a
    relative error of about depth x 1e-16 of the mean squared placement.
    Weights count as frequencies, as for
    :func:`~hmeasure_stream.auc_variance`: unlike the AUC, the variance
    depends on their scale (with decay, that of weights relative to the
    newest point).

    Windows and decay: with ``window`` or ``half_life`` each point is kept,
    oldest first, with its time in a ring (25 bytes a point, growing by
    doubling); the points that leave go in the same compiled call as the
    point that makes them leave, one O(log n) update each (amortised: each
    point leaves once).  With decay a point's weight is stored times
    2^((x - x0) / half_life) (x its step or time, x0 an anchor), so the
    newest points weigh most and nothing already stored changes; when that
    factor passes 2^64 every stored weight is multiplied by 2^-k (exact in
    floating point) and x0 moves k half-lives: the metrics, which do not
    depend on a common scale of the weights, equal the from-scratch values
    with ``sample_weight = weight * 2^(-age / half_life)`` to about 1e-12.
    Points older than 60 half-lives (factor below 2^-60, about 8.7e-19 of the
    newest) leave, so memory stays bounded: with points arriving at a
    steady rate the weight they carry is below 1e-15 of their class's, and
    so is their effect on the metrics.  ``remove`` then retracts a point
    before it leaves (the oldest in the window with that label, score and
    weight), in O(w) for w points in the window.  Times must not go
    backwards.

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time", Sec. 4.

    Examples
    --------
    >>> from hmeasure_stream import DynamicAUC
    >>> tracker = DynamicAUC()
    >>> tracker.add_many([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> tracker.auc
    0.75
    >>> tracker.add(1, 0.9)
    >>> tracker.remove(0, 0.4)
    >>> tracker.auc, len(tracker), tracker.n_neg, tracker.n_pos
    (1.0, 4, 1.0, 3.0)

    DeLong's variance and interval, maintained (equal to the from-scratch
    :func:`~hmeasure_stream.auc_variance` and :func:`~hmeasure_stream.auc_ci`):

    >>> tracker.add_many([0, 0], [0.5, 0.95])
    >>> round(tracker.auc, 6), round(tracker.auc_variance, 6)  # maintained from now on
    (0.555556, 0.098765)
    >>> low, high, _ = tracker.auc_ci(level=0.9)
    >>> round(low, 6), high
    (0.038628, 1.0)

    A time window and decay (a point of age a weighs 2^(-a / half_life)):

    >>> recent = DynamicAUC(window="1h")
    >>> recent.add_many([0, 1, 0, 1], [0.2, 0.9, 0.4, 0.3],
    ...                 times=["2024-05-01T09:00", "2024-05-01T09:30",
    ...                        "2024-05-01T10:00", "2024-05-01T10:10"])
    >>> len(recent), recent.auc     # the points in (09:10, 10:10]
    (3, 0.5)
    >>> decayed = DynamicAUC(half_life=1)
    >>> decayed.add_many([1, 0, 1], [0.2, 0.5, 0.9])
    >>> decayed.auc, decayed.n_pos  # weights 1/4, 1/2 and 1
    (0.8, 1.25)
    """

    # The single-point methods validate in compiled code (fast path for Python
    # bools, ints and floats; anything else goes through _validation).
    __slots__ = ()

    def __init__(self, *, window=None, half_life=None, variance=False, pos_label=None,
                 capacity=16, seed=None):
        self._labels = label_map(pos_label)
        self._forgetting = make_forgetting(window, half_life)
        if not isinstance(variance, (bool, np.bool_)):
            raise ValueError(f"variance must be True or False, got {variance!r}")
        capacity, _ = check_structure_options(capacity, seed)
        self._engine = BlockedAUCEngine(capacity)
        if variance:
            self._engine.track_variance()

    @property
    def auc_variance(self):
        """DeLong's variance of the current AUC, maintained: O(1).

        Equal to :func:`~hmeasure_stream.auc_variance` of the current points
        (weights as frequencies; with decay, the decayed weights relative to
        the newest point); nan while a class has fewer than two points (total
        weight <= 1).  Without ``variance=True``, the first read starts
        maintaining it: O(n) once, and every later update costs a little more
        (see the class's Notes).
        """
        engine = self._engine
        if not engine.tracks_variance:
            engine.track_variance()
        scale = engine.scale
        if self._forgetting is not None:
            scale /= self._forgetting.newest_factor()
        return engine.variance(scale)

    def auc_ci(self, level=0.95):
        """DeLong's confidence interval of the current AUC, maintained: O(1).

        The AUC -+ z sqrt(:attr:`auc_variance`), z the standard normal
        quantile of (1 + level) / 2, clipped to [0, 1]: the same as
        :func:`~hmeasure_stream.auc_ci` of the current points.

        Parameters
        ----------
        level : float, default=0.95
            Confidence level, in (0, 1).

        Returns
        -------
        AUCInterval
            Named tuple ``(low, high, auc)``; nan ends while a class has
            fewer than two points (total weight <= 1).

        Raises
        ------
        ValueError
            If ``level`` is not in (0, 1).

        See Also
        --------
        hmeasure_stream.auc_ci : the same interval from scratch.

        Notes
        -----
        O(1): the maintained variance (see the class's Notes) and one normal
        quantile.

        References
        ----------
        E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
        areas under two or more correlated receiver operating characteristic
        curves: a nonparametric approach", Biometrics 44, 1988.

        Examples
        --------
        >>> from hmeasure_stream import DynamicAUC
        >>> tracker = DynamicAUC(variance=True)
        >>> tracker.add_many([0, 0, 1, 0, 1, 1, 0, 1],
        ...                  [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8])
        >>> low, high, auc = tracker.auc_ci()
        >>> round(low, 6), high, auc
        (0.592104, 1.0, 0.875)
        """
        level = check_probability_level(level, "level")
        return delong_interval(self.auc, self.auc_variance, level)

    def partial_auc(self, fpr_range=None, tpr_range=None, correction=None):
        """The partial AUC of the current points, read in O(log n).

        The same value as :func:`hmeasure_stream.partial_auc` computes from
        scratch on the points held: the area of the ROC curve (ties as
        diagonal segments) over a range of false positive rates, of true
        positive rates (pROC's two foci), or both (the two-way area), with
        McClish's correction if asked.

        Parameters
        ----------
        fpr_range : (float, float), optional
            False positive rates (a, b), 0 <= a < b <= 1.  Default: (0, 1).
        tpr_range : (float, float), optional
            True positive rates (c, d), 0 <= c < d <= 1.  Default: (0, 1).
        correction : {None, "mcclish"}, default=None
            McClish's standardisation over one range, as for
            :func:`~hmeasure_stream.partial_auc`.

        Returns
        -------
        float
            The partial area (or its standardised value); nan while a class
            is absent (or has zero weight).

        Raises
        ------
        ValueError
            If a range is not a pair of numbers with 0 <= low < high <= 1, or
            ``correction`` is not None or "mcclish", or is "mcclish" with
            both ranges (the message names the argument).

        See Also
        --------
        hmeasure_stream.partial_auc : the same value from scratch, O(n log n).
        SlidingWindow : the metric ``"pauc"`` over a sliding window.

        Notes
        -----
        O(log n) for n distinct scores, whatever the range (the first call,
        unless ``variance=True``, starts keeping the pair weights, O(n) once:
        see the class's Notes): the curve's class weights never decrease from
        the highest score down, so the first segment reaching each side of
        the box is found by one descent of the segment tree and a scan of one
        block (at most seven; a range ending at 0 or 1 needs fewer); the
        segments wholly inside the box are summed from the aggregates of the
        class weights and of the pair weight (twice the Mann-Whitney
        statistic) of blocks and nodes, without visiting the points between
        the sides; at most four segments crossing a side are cut as from
        scratch.

        With unit weights the parts are the from-scratch function's, exact
        integers (below 2**53, beyond 10^7 points of each class): the
        segments are classified against the exact sides of the box, and the
        result is the exact area (or McClish value) correctly rounded, equal
        to :func:`~hmeasure_stream.partial_auc` bit for bit.  The parts are
        combined in compiled double-double arithmetic with a rigorous bound
        on its error, which settles the rounding but for values within about
        2**-90 of a midpoint between floats (as with quarters for ranges and
        a few points): those are computed in exact rational arithmetic.
        With other weights it is a sum of non-negative terms over the class
        totals (relative error of order depth times 1e-16).

        References
        ----------
        .. [1] N. Tatti, "Maintaining AUC and H-measure over time", Sec. 4
           (the subtree aggregates).
        .. [2] D. K. McClish, "Analyzing a portion of the ROC curve", Medical
           Decision Making 9, 1989.
        .. [3] X. Robin et al., "pROC: an open-source package for R and S+ to
           analyze and compare ROC curves", BMC Bioinformatics 12, 2011.

        Examples
        --------
        >>> from hmeasure_stream import DynamicAUC
        >>> tracker = DynamicAUC()
        >>> tracker.add_many([0, 0, 1, 0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8])
        >>> tracker.partial_auc(fpr_range=(0, 0.5))
        0.375
        >>> tracker.partial_auc(fpr_range=(0, 0.5), correction="mcclish")  # 5/6, rounded
        0.8333333333333334
        >>> tracker.partial_auc(fpr_range=(0, 0.5), tpr_range=(0.5, 1))  # two-way
        0.125
        >>> tracker.remove(0, 0.4)
        >>> tracker.partial_auc(tpr_range=(0.5, 1))  # 1/4 + (1/4)(2/3)
        0.4166666666666667
        """
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
            area = exact_area(*exact, fpr_box, tpr_box, n_neg, n_pos)
        else:
            weighted_area, total_neg, total_pos = parts
            area = weighted_area / total_neg / total_pos
        return corrected(area, fpr_box, tpr_box, fpr_range, tpr_range, correction)

    def merge(self, other):
        """Add the points of another structure: the union of both point sets.

        Per-shard trackers combine into one global view; ``other`` is not
        changed.

        Parameters
        ----------
        other : DynamicAUC, DynamicH or ApproxH
            The structure whose points are added (only its points count).

        Raises
        ------
        ValueError
            If ``other`` is not such a structure (a ``SlidingWindow`` keeps
            a window, not a set of points), either has a window or decay, or
            their ``pos_label`` (or the class 0 labels they learned) differ;
            nothing changes.

        Notes
        -----
        O(m log(n + m)) for the m points of the smaller of the two and n of
        the larger: the smaller set is added to the larger, point by point
        in one batch (when ``other`` is the larger, this structure first
        takes an O(n) copy of its buffers).  Reading the points of a
        structure is O(m).  Exact: with unit weights the AUC equals that of
        the union from scratch; with weights each score's points keep their
        count and total weight.

        Examples
        --------
        >>> from hmeasure_stream import DynamicAUC, auc
        >>> east, west = DynamicAUC(), DynamicAUC()
        >>> east.add_many([0, 1, 1], [0.2, 0.7, 0.4])
        >>> west.add_many([0, 0, 1], [0.5, 0.1, 0.9])
        >>> east.merge(west)
        >>> east.auc == auc([0, 1, 1, 0, 0, 1], [0.2, 0.7, 0.4, 0.5, 0.1, 0.9])
        True
        >>> len(east), len(west)
        (6, 3)
        """
        if not isinstance(other, PointSet):
            raise ValueError(
                "merge takes a DynamicAUC, DynamicH or ApproxH (a set of points), got "
                f"{type(other).__name__}"
            )
        tracking = self._engine.tracks_variance
        merge_points(self, other)
        if tracking:
            # (A no-op unless the engine came from ``other``.)
            self._engine.track_variance()

    def __repr__(self):
        return (
            f"DynamicAUC(points={len(self)}, n_neg={self.n_neg!r}, n_pos={self.n_pos!r}, "
            f"auc={self.auc!r})"
        )
