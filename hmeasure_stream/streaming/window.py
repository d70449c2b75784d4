"""Metrics over a sliding window of a stream: ``SlidingWindow`` and ``sliding_window``.

The one place where an engine is chosen for a window of a stream.
"""

import numpy as np

from hmeasure_stream._engines._auc import AUCEngine, sliding_auc_ranked
from hmeasure_stream._engines._hull import HullEngine
from hmeasure_stream._engines._pool import MAX_CAPACITY
from hmeasure_stream._engines._ring import PointRing
from hmeasure_stream._validation import check_cost, check_positive, dense_ranks
from hmeasure_stream.streaming._base import (
    check_structure_options,
    checked_batch,
    out_of_range_message,
)

__all__ = ["WINDOW_METRICS", "SlidingWindow", "sliding_window"]

#: The metrics a window can follow.
WINDOW_METRICS = ("auc", "h", "auch")
_HULL_METRICS = frozenset(("h", "auch"))


def _check_window(window):
    if window is not None and (
        isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer))
        or not 1 <= window <= MAX_CAPACITY
    ):
        raise ValueError(
            f"window must be a positive integer or None, got {window!r} (at most "
            f"{MAX_CAPACITY}, the most points a structure holds)"
        )
    return None if window is None else int(window)


def _check_metrics(metrics):
    if metrics is None:
        raise ValueError("metrics must be a metric name or a sequence of them, got None")
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        metrics = tuple(metrics)
    except TypeError:
        raise ValueError(
            f"metrics must be a metric name or a sequence of them, got {metrics!r}"
        ) from None
    unknown = [name for name in metrics if name not in WINDOW_METRICS]
    if unknown or not metrics:
        raise ValueError(
            f"unknown metric(s) {unknown!r}: available metrics are {list(WINDOW_METRICS)}"
            if unknown else "metrics must name at least one metric"
        )
    return tuple(dict.fromkeys(metrics))


def _window_engines(metrics, *, alpha, beta, severity_ratio, priors, epsilon, capacity, seed):
    """The engines for these metrics: the one place where a window's engines are chosen.

    Each engine computes the metrics it names in ``columns``; every metric
    asked for is read from the first engine that computes it.  The AUC alone
    needs only the score treap, and the H options are then ignored.  H and
    AUCH need the maintained hull: exact H when the priors come from the data
    and the cost distribution does not depend on them, the approximate H of
    ``epsilon`` otherwise.
    """
    if not _HULL_METRICS.intersection(metrics):
        return [AUCEngine(capacity, seed)]
    rule = check_cost(alpha, beta, severity_ratio, priors)
    if epsilon is not None:
        epsilon = check_positive(epsilon, "epsilon")
        # A fixed seed by default: the subset, hence H', depends on the trees'
        # random shape, and the same stream should give the same values.
        engine = HullEngine(2.0, 2.0, capacity, 0 if seed is None else seed)
        engine.set_reading(epsilon, rule)
        return [engine]
    if not rule.exact_on_structures:
        raise ValueError(
            "fixed priors and severity_ratio='prior' make H impossible to maintain "
            "exactly: pass epsilon= for the approximate H (within epsilon * (1 - H)), "
            "or call h_measure on each window"
        )
    return [HullEngine(*rule.shape, capacity, seed)]


class SlidingWindow:
    """Metrics over a sliding window of a stream that arrives in chunks.

    Feed the stream with :meth:`update`, chunk by chunk in stream order; the
    window is carried across calls, so the values are those of
    :func:`sliding_window` on the whole stream.  A monitor can pickle the
    object and resume later.

    Parameters
    ----------
    window : int or None
        Number of points in the window (>= 1), or None for every prefix
        (nothing is ever evicted: the learning curve).
    metrics : str or sequence of str, default=("auc",)
        ``"auc"``, ``"h"`` (the H-measure) and ``"auch"`` (area under the
        ROC hull).
    alpha, beta, severity_ratio, priors
        The H-measure's cost distribution and class priors, as for
        :func:`~hmeasure_stream.h_measure`; ignored when neither ``"h"`` nor
        ``"auch"`` is asked for.  Fixed ``priors`` and
        ``severity_ratio="prior"`` need ``epsilon``.
    epsilon : float, optional
        Follow ``"h"`` within ``epsilon * (1 - H)`` as :class:`ApproxH`
        does.  None: the exact H of :class:`DynamicH`.
    capacity : int, default=16
        Initial room, in distinct scores, of the engine (doubles as needed).
    seed : int, optional
        Seed of the engine's random priorities (0 by default with
        ``epsilon``, so that the same stream gives the same values).

    Attributes
    ----------
    auc, h, auch : float
        The metrics of the current window (``h`` and ``auch`` when asked for);
        nan while a class is absent from the window.
    window : int or None
        The window length.
    metrics : tuple of str
        The metrics followed.

    See Also
    --------
    sliding_window : the same on a whole array in one call.
    DynamicAUC, DynamicH, ApproxH : the structures behind the metrics.

    Notes
    -----
    Per point: O(log w) with the AUC alone, O(log^2 w) with ``"h"`` or
    ``"auch"`` (plus O((1 + 1/epsilon) log^2 w) to read the approximate H),
    for a window of w points; reading the properties is O(1).  Memory O(w):
    the engine's structure and the window's points (17 bytes each) to know
    which point leaves.  Scores are float64: integers beyond 2**53 are
    refused (:func:`sliding_window`, which sees the whole array, ranks them).
    Weights are kept as :class:`DynamicAUC` keeps them: the metrics do not
    depend on their common scale.

    Threads: call :meth:`update` from one thread at a time; an update (or a
    read of ``h``) that finds another one running raises RuntimeError.
    Reading ``auc`` and ``auch`` is safe from any thread.

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time".

    Examples
    --------
    >>> from hmeasure_stream import SlidingWindow
    >>> monitor = SlidingWindow(3, metrics=("auc", "h"))
    >>> monitor.update([0, 1, 0], [0.2, 0.9, 0.4])["auc"]
    array([nan,  1.,  1.])
    >>> monitor.update([1, 1, 0], [0.3, 0.8, 0.1])["auc"]
    array([0.5, 0.5, 1. ])
    >>> len(monitor), monitor.auc, monitor.h
    (3, 1.0, 1.0)
    """

    # One ring of the window's points per engine: each engine removes the
    # points that leave its own window.
    __slots__ = ("_engines", "_metrics", "_rings", "_window")

    def __init__(self, window, metrics=("auc",), *, alpha=2.0, beta=2.0, severity_ratio=None,
                 priors=None, epsilon=None, capacity=16, seed=None):
        self._window = _check_window(window)
        self._metrics = _check_metrics(metrics)
        capacity, seed = check_structure_options(capacity, seed)
        self._engines = _window_engines(
            self._metrics, alpha=alpha, beta=beta, severity_ratio=severity_ratio,
            priors=priors, epsilon=epsilon, capacity=capacity, seed=seed)
        self._rings = [PointRing(0 if self._window is None else self._window)
                       for _ in self._engines]

    def update(self, y_true, y_score, sample_weight=None):
        """Feed the next chunk of the stream; the metrics after each of its points.

        Parameters
        ----------
        y_true : array-like of shape (k,)
            Labels, 0/1 or bool, in stream order.
        y_score : array-like of shape (k,)
            Scores, finite real numbers.
        sample_weight : array-like of shape (k,), optional
            Weights, finite and >= 0 (default 1).

        Returns
        -------
        dict of str to ndarray
            For each metric a float64 array of length k: entry i is the metric
            over the window ending at the chunk's point i; nan where a class is
            absent from that window.

        Raises
        ------
        ValueError
            On invalid input (as for :func:`~hmeasure_stream.auc`), or a weight
            more than 2**400 times larger or smaller than the first positive
            weight of the window; nothing changes.
        """
        return self._slide(*checked_batch(y_true, y_score, sample_weight))

    def _slide(self, is_pos, scores, weights):
        values = {}
        for engine, ring in zip(self._engines, self._rings, strict=True):
            out = np.empty((scores.shape[0], len(engine.columns)), dtype=np.float64)
            refused = engine.slide(ring, is_pos, scores, weights, out)
            if refused >= 0:
                # (Every engine has the same history, so the first refuses or none does.)
                raise ValueError(out_of_range_message(engine, weights, refused, "sample_weight"))
            for column, name in enumerate(engine.columns):
                values.setdefault(name, out[:, column])
        return {name: values[name].copy() for name in self._metrics}

    def _one_shot(self, is_pos, scores, weights):
        """The metrics of every window of a whole stream (``sliding_window``).

        With the AUC alone and unit weights, the whole stream is known: the
        window's class counts go in a Fenwick tree over the stream's dense
        ranks instead of the score treap.
        """
        n = scores.shape[0]
        if (self._metrics == ("auc",) and len(self) == 0 and n < 2**31
                and (weights is None or np.all(weights == 1.0))):
            ranks, n_ranks = dense_ranks(scores)
            values = np.empty(n, dtype=np.float64)
            sliding_auc_ranked(is_pos, ranks, n_ranks, self._window or 0, values)
            return {"auc": values}
        return self._slide(is_pos, scores, weights)

    def _metric(self, name):
        if name not in self._metrics:
            raise AttributeError(
                f"{name!r} is not among this window's metrics {list(self._metrics)}"
            )
        return getattr(next(engine for engine in self._engines if name in engine.columns), name)

    @property
    def auc(self):
        """The AUC of the current window; nan while a class is absent.  O(1)."""
        return self._metric("auc")

    @property
    def h(self):
        """The H-measure of the current window; nan while a class is absent."""
        return self._metric("h")

    @property
    def auch(self):
        """The area under the ROC hull of the current window; nan while a class is absent."""
        return self._metric("auch")

    @property
    def window(self):
        """The window length (None: every prefix)."""
        return self._window

    @property
    def metrics(self):
        """The metrics followed."""
        return self._metrics

    @property
    def nbytes(self):
        """Bytes held by the engine's buffers and the window's points."""
        return sum(engine.nbytes for engine in self._engines) + sum(
            buffer.nbytes for ring in self._rings
            for buffer in (ring.is_pos_buffer, ring.score_buffer, ring.weight_buffer))

    def __len__(self):
        return int(self._engines[0].n_points)

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)

    def __repr__(self):
        return (f"SlidingWindow(window={self._window!r}, metrics={self._metrics!r}, "
                f"points={len(self)})")

    def _check(self):
        """Verify the engine's invariants and that it holds the ring's points (for tests)."""
        for engine, ring in zip(self._engines, self._rings, strict=True):
            engine._check()
            if engine.n_points != len(self):
                raise AssertionError(f"engines hold {engine.n_points} and {len(self)} points")
            if self._window is not None and ring.size != len(self):
                raise AssertionError(f"{ring.size} points in the ring, {len(self)} held")
        return True


def sliding_window(
    y_true,
    y_score,
    window,
    metrics=("auc",),
    *,
    sample_weight=None,
    alpha=2.0,
    beta=2.0,
    severity_ratio=None,
    epsilon=None,
    priors=None,
):
    """Metrics over a sliding window (or every prefix) of an array, in one compiled loop.

    Entry i of each result is the metric over the ``window`` points ending at
    point i (over points 0..i when ``window`` is None: the learning curve).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool, in stream order.
    y_score : array-like of shape (n,)
        Scores, finite real numbers.
    window : int or None
        Number of points in the window (>= 1), or None for every prefix.
    metrics : sequence of str, default=("auc",)
        Which metrics to compute: ``"auc"``, ``"h"`` (the H-measure with
        priors from the window) and ``"auch"`` (area under the ROC hull).
    sample_weight : array-like of shape (n,), optional
        Weights, finite and >= 0.
    alpha, beta, severity_ratio
        The H-measure's cost distribution, as for :class:`DynamicH`
        (``severity_ratio="prior"`` needs ``epsilon``).
    epsilon : float, optional
        Compute ``"h"`` as :class:`ApproxH` does, within ``epsilon * (1 - H)``
        of the exact value, which allows fixed ``priors`` and
        ``severity_ratio="prior"``.  None: the exact H of :class:`DynamicH`.
    priors : (float, float), optional
        Fixed class priors (pi0, pi1) for ``"h"``; needs ``epsilon``.

    Returns
    -------
    dict of str to ndarray
        For each metric a float64 array of length n; nan where a class is
        absent from the window.

    Raises
    ------
    ValueError
        On invalid input (as for :func:`hmeasure_stream.auc`), a window that
        is not a positive integer, or an unknown metric.

    See Also
    --------
    SlidingWindow : the same over a stream that arrives in chunks.
    DynamicAUC : the same engine, one update at a time.
    DynamicH : the hull engine behind ``"h"`` and ``"auch"``.

    Notes
    -----
    With ``"auc"`` alone and unit weights, the whole stream is known in
    advance: its scores are replaced by their dense ranks (one sort,
    O(n log n)) and the window's class counts are kept in a Fenwick tree
    indexed by rank, O(log n) per step in one flat array of 8 bytes per
    distinct score, so a step costs about the same for any window size; O(n)
    memory.  With weights, the score treap of :class:`DynamicAUC`:
    O(n log w) time, O(w) memory.  With ``"h"`` or ``"auch"``, the hull
    engine of :class:`DynamicH`: O(n log^2 w) time, O(w) memory (plus
    O(n (1 + 1/epsilon) log^2 w) with ``epsilon``).  Each step
    adds a point and removes the one leaving the window.  Values equal the
    from-scratch metric of each window (exactly for unit weights).

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time".

    Examples
    --------
    >>> from hmeasure_stream import sliding_window
    >>> y = [0, 1, 0, 1, 1, 0]
    >>> s = [0.2, 0.9, 0.4, 0.3, 0.8, 0.1]
    >>> sliding_window(y, s, window=3)["auc"]
    array([nan, 1. , 1. , 0.5, 0.5, 1. ])
    >>> sliding_window(y, s, window=None)["auc"]
    array([       nan, 1.        , 1.        , 0.75      , 0.83333333,
           0.88888889])
    """
    window = _check_window(window)
    options = {"alpha": alpha, "beta": beta, "severity_ratio": severity_ratio,
               "priors": priors, "epsilon": epsilon}
    # The options are checked before the data; a window of at least the whole
    # stream keeps every point (each window is a prefix) and needs no ring.
    tracker = SlidingWindow(None, metrics, **options)
    is_pos, scores, weights = checked_batch(
        y_true, y_score, sample_weight, allow_empty=False, ranks=True
    )
    if window is not None and window < scores.shape[0]:
        tracker = SlidingWindow(window, metrics, **options)
    return tracker._one_shot(is_pos, scores, weights)
