"""Metrics of a changing set of points: exact, updated in polylogarithmic time.

``DynamicAUC`` keeps the points in an array-backed treap over the distinct
scores with cumulative class weights (Tatti, Sec. 4): O(log n) per update.
``DynamicH`` also maintains the convex hull of the ROC curve (Sec. 5) and with
it the H-measure with priors from the data and the AUCH: O(log^2 n).
``ApproxH`` keeps the same hull and computes H for priors not taken from the
data within a relative error epsilon (Sec. 6): O((1 + 1/eps) log^2 n) to read.
``sliding_window`` runs these engines over an array in one compiled loop.
"""

import numpy as np

from hmeasure_stream._cost import resolve_cost
from hmeasure_stream._dynamic import AUCEngine, sliding_auc_ranked
from hmeasure_stream._hull import HullEngine
from hmeasure_stream._validation import (
    check_label_value,
    check_labels,
    check_positive,
    check_same_length,
    check_score_value,
    check_scores,
    check_weight_value,
    check_weights,
    dense_ranks,
    labels_as_is_pos,
    raise_bad_score,
)

__all__ = ["ApproxH", "DynamicAUC", "DynamicH", "sliding_window"]

_WINDOW_METRICS = ("auc", "h", "auch")


def _checked_batch(y_true, y_score, sample_weight, allow_empty, ranks):
    """Validated batch as (is_pos uint8, scores float64, weights float64 or None for unit)."""
    labels = check_labels(y_true, allow_empty=allow_empty)
    scores = check_scores(y_score, allow_empty=allow_empty, ranks=ranks)
    check_same_length(labels, scores)
    is_pos = labels_as_is_pos(labels)
    raise_bad_score(scores)
    if sample_weight is None:
        return is_pos, scores, None
    return is_pos, scores, check_weights(sample_weight, scores.shape[0])


def _missing_message(counts_engine, is_pos, score, weight, status):
    point = f"y_true={int(is_pos)}, y_score={score!r}"
    if status == 1:
        return f"no point with {point} to remove"
    held = float(counts_engine.weights_at(np.array([score]), is_pos)[0])
    return (
        f"cannot remove weight {weight!r} from the points with {point}: "
        f"they weigh {held!r} in total"
    )


def _raise_missing(counts_engine, y_true, y_score, weight, status):
    raise KeyError(
        _missing_message(
            counts_engine, check_label_value(y_true), check_score_value(y_score),
            check_weight_value(weight), status,
        )
    )


def _check_removable(counts_engine, is_pos, scores, weights):
    """Refuse a batch that removes more points or weight than a (label, score) holds."""
    if weights is None:
        weights = np.ones(scores.shape[0])
    elif counts_engine.exact:
        odd = np.flatnonzero(weights != 1.0)
        if odd.size:
            k = odd[0]
            raise KeyError(
                f"remove_many: every point present has weight 1, but position {k} "
                f"removes weight {weights[k].item()!r}"
            )
    for label in (0, 1):
        mask = is_pos == label
        if not mask.any():
            continue
        distinct, inverse, needed = np.unique(
            scores[mask], return_inverse=True, return_counts=True
        )
        held = counts_engine.counts_at(distinct, bool(label))
        short = np.flatnonzero(needed > held)
        if short.size:
            k = short[0]
            raise KeyError(
                f"remove_many: the batch removes {needed[k]} point(s) with "
                f"y_true={label}, y_score={distinct[k].item()!r}, but {held[k]} "
                "are present"
            )
        removed = np.bincount(inverse, weights=weights[mask])
        held_weight = counts_engine.weights_at(distinct, bool(label))
        total = counts_engine.weight_pos if label else counts_engine.weight_neg
        over = np.flatnonzero(removed > held_weight + 1e-9 * total)
        if over.size:
            k = over[0]
            raise KeyError(
                f"remove_many: the batch removes weight {removed[k].item()!r} from the "
                f"points with y_true={label}, y_score={distinct[k].item()!r}, which "
                f"weigh {held_weight[k].item()!r}"
            )


def _add_many(engine, y_true, y_score, sample_weight):
    is_pos, scores, weights = _checked_batch(
        y_true, y_score, sample_weight, allow_empty=True, ranks=False
    )
    engine.add_many(is_pos, scores, weights)


def _remove_many(engine, counts_engine, y_true, y_score, sample_weight):
    is_pos, scores, weights = _checked_batch(
        y_true, y_score, sample_weight, allow_empty=True, ranks=False
    )
    _check_removable(counts_engine, is_pos, scores, weights)
    failed = engine.remove_many(is_pos, scores, weights)
    if failed >= 0:
        # Not reachable after the check above; undo rather than leave half a batch.
        done = None if weights is None else weights[:failed]
        engine.add_many(is_pos[:failed], scores[:failed], done)
        weight = 1.0 if weights is None else float(weights[failed])
        raise KeyError(
            _missing_message(counts_engine, bool(is_pos[failed]), float(scores[failed]),
                             weight, 2)
        )


def _check_capacity(capacity):
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise ValueError(f"capacity must be an integer >= 1, got {capacity!r}")
    return int(capacity)


class _PointSet:
    """What DynamicAUC and DynamicH share: updates, class weights, size, checks.

    Single points are validated in compiled code (a fast path for Python
    bools, ints and floats; anything else goes through ``_validation``).

    ``_engine`` mutates and reads the metrics; ``_counts`` is the AUC engine
    that holds the score treap (the same object for DynamicAUC).
    """

    __slots__ = ("_engine",)

    def add(self, y_true, y_score, weight=1.0):
        """Add one point: one update (see the class for its cost).

        Parameters
        ----------
        y_true : int or bool
            Its label, 0/1 or a boolean.
        y_score : float
            Its score, a finite real number.
        weight : float, default=1.0
            Its weight, finite and >= 0.

        Raises
        ------
        ValueError
            If the label, score or weight is invalid; nothing changes.
        """
        self._engine.add(y_true, y_score, weight)

    def remove(self, y_true, y_score, weight=1.0):
        """Remove one point: one update (see the class for its cost).

        Parameters
        ----------
        y_true : int or bool
            Its label, 0/1 or a boolean.
        y_score : float
            Its score.
        weight : float, default=1.0
            The weight it was added with.

        Raises
        ------
        KeyError
            If no point with this label and score is present, or the weight
            exceeds their total weight; nothing changes.
        ValueError
            If the label, score or weight is invalid; nothing changes.
        """
        status = self._engine.remove(y_true, y_score, weight)
        if status:
            _raise_missing(self._counts, y_true, y_score, weight, status)

    def add_many(self, y_true, y_score, sample_weight=None):
        """Add a batch of points, in one compiled loop: k updates for k points.

        Parameters
        ----------
        y_true : array-like of shape (k,)
            Labels, 0/1 or bool.
        y_score : array-like of shape (k,)
            Scores, finite real numbers.
        sample_weight : array-like of shape (k,), optional
            Weights, finite and >= 0 (default 1).

        Raises
        ------
        ValueError
            If any entry is invalid; nothing is added.
        """
        _add_many(self._engine, y_true, y_score, sample_weight)

    def remove_many(self, y_true, y_score, sample_weight=None):
        """Remove a batch of points, in one compiled loop: k updates for k points.

        Parameters
        ----------
        y_true : array-like of shape (k,)
            Labels, 0/1 or bool.
        y_score : array-like of shape (k,)
            Scores.
        sample_weight : array-like of shape (k,), optional
            The weights the points were added with (default 1).

        Raises
        ------
        KeyError
            If the batch removes a point that is not present (counting
            repeats) or more weight than a label and score hold; nothing is
            removed.
        ValueError
            If any entry is invalid; nothing is removed.
        """
        _remove_many(self._engine, self._counts, y_true, y_score, sample_weight)

    @property
    def auc(self):
        """The AUC of the current points (nan while a class is absent).  O(1)."""
        return self._engine.auc

    @property
    def n_neg(self):
        """Total weight of class 0."""
        return self._counts.weight_neg

    @property
    def n_pos(self):
        """Total weight of class 1."""
        return self._counts.weight_pos

    @property
    def nbytes(self):
        """Bytes held by the structure's buffers."""
        return self._engine.nbytes

    def __len__(self):
        return int(self._counts.tree.n_points)

    def _check(self):
        """Verify every invariant of the structure in O(n) (for tests)."""
        return self._engine._check()


class DynamicAUC(_PointSet):
    """Exact AUC of a set of points that changes one point (or batch) at a time.

    Points are (label, score, weight) triples; the AUC is the weighted
    Mann-Whitney statistic of class 1 over class 0, ties counting one half,
    exactly as :func:`hmeasure_stream.auc` computes it from scratch.

    Parameters
    ----------
    capacity : int, default=16
        Initial number of distinct scores the structure has room for; it
        doubles as needed.
    seed : int, optional
        Seed of the treap's random priorities (for reproducible shapes).

    Attributes
    ----------
    auc : float
        The current AUC; nan while a class is absent (or has zero weight).
    n_neg, n_pos : float
        Total weight of class 0 and of class 1.

    See Also
    --------
    sliding_window : the AUC over every window of an array, in one compiled loop.
    hmeasure_stream.auc : the same value from scratch.

    Notes
    -----
    Each update costs O(log n) time for n distinct scores: the treap returns
    the class weights below and above the score on its way down and the
    Mann-Whitney statistic changes by Props 1-2 of Tatti's paper.  Reading
    ``auc`` is O(1).  Memory is O(n): 56 bytes per distinct score in one
    buffer per field.

    With unit weights twice the statistic is an exact integer, so ``auc``
    equals the from-scratch value exactly, after any number of updates.  With
    other weights it is recomputed from the tree once per max(n, 1024)
    updates, so it never drifts (relative error of order 1e-15).

    Scores are stored as float64: integers beyond 2**53 are refused,
    extended-precision floats are rounded.  ``remove`` subtracts the given
    weight from the points of that label and score; pass the weight the point
    was added with.

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
    """

    # The single-point methods validate in compiled code (fast path for Python
    # bools, ints and floats; anything else goes through _validation).
    __slots__ = ()

    def __init__(self, *, capacity=16, seed=None):
        self._engine = AUCEngine(_check_capacity(capacity), seed)

    @property
    def _counts(self):
        return self._engine

    def __repr__(self):
        return (
            f"DynamicAUC(points={len(self)}, n_neg={self.n_neg!r}, n_pos={self.n_pos!r}, "
            f"auc={self.auc!r})"
        )


class _HullPointSet(_PointSet):
    """What DynamicH and ApproxH share: the maintained ROC hull (HullEngine) and its AUCH."""

    __slots__ = ()

    @property
    def _counts(self):
        return self._engine.auc_engine

    @property
    def auch(self):
        """Area under the ROC convex hull (exact); nan while a class is absent."""
        return self._engine.auch


class DynamicH(_HullPointSet):
    """Exact H-measure of a set of points that changes one point (or batch) at a time.

    Maintains the convex hull of the ROC curve under insertion and deletion
    (Tatti, Sec. 5) and from it Hand's H-measure with the class priors taken
    from the current points, the area under the hull (AUCH) and the AUC, all
    equal to the from-scratch values.

    Parameters
    ----------
    alpha, beta : float, default=2.0
        Parameters of the Beta distribution of the cost ``c`` of a false
        positive, as in :func:`hmeasure_stream.h_measure`.
    severity_ratio : float, optional
        R hmeasure's parameterisation: Beta(2, 1 + 1/SR).  ``"prior"`` (R's
        default, SR = pi1/pi0) is refused: it changes the cost distribution
        whenever the class balance changes, so it cannot be maintained exactly.
    capacity : int, default=16
        Initial number of distinct scores there is room for (doubles as needed).
    seed : int, optional
        Seed of the treaps' random priorities.

    Attributes
    ----------
    h : float
        The H-measure; nan while a class is absent.
    auch : float
        Area under the ROC convex hull; nan while a class is absent.
    auc : float
        The AUC, as :class:`DynamicAUC` keeps it.
    n_neg, n_pos : float
        Total weight of class 0 and class 1.

    See Also
    --------
    DynamicAUC : the AUC alone, O(log n) per update.
    hmeasure_stream.h_measure : the same H from scratch.
    sliding_window : ``metrics=("h", "auch")`` over every window of an array.

    Notes
    -----
    O(log^2 n) per update for n distinct scores; reading is O(1).  The treap
    over the distinct scores stands, at every node, for the hull of its
    subtree: only the root keeps its hull as a chain, every other node keeps
    what its hull lost in its parent's two merges.  An update undoes the merges
    along the score's path, changes the point, and merges again (Overmars and
    van Leeuwen; seed 000, Secs. 5.1-5.2).  The hull chains carry each edge's
    term of the H-measure's loss, which with priors from the data depends on
    the edge alone (Sec. 5.3, Eq. 7), and the area under the hull.  O(n) memory.

    With unit weights every hull vertex is exact and ``hull()`` returns what
    :func:`~hmeasure_stream.roc_hull` returns.

    Examples
    --------
    >>> from hmeasure_stream import DynamicH, h_measure
    >>> tracker = DynamicH()
    >>> y, s = [0, 0, 1, 0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> tracker.add_many(y, s)
    >>> round(tracker.h, 6), round(h_measure(y, s), 6)
    (0.674074, 0.674074)
    >>> tracker.remove(0, 0.4)
    >>> tracker.auc == 11 / 12, tracker.auch == 23 / 24
    (True, True)
    """

    __slots__ = ()

    def __init__(self, alpha=2.0, beta=2.0, severity_ratio=None, *, capacity=16, seed=None):
        if isinstance(severity_ratio, str) and severity_ratio == "prior":
            raise ValueError(
                'severity_ratio="prior" cannot be maintained exactly: the cost '
                "distribution would change with the class balance of the current "
                "points. Use h_measure(..., severity_ratio='prior') on the points, or "
                "ApproxH(epsilon, severity_ratio='prior'), which approximates it within "
                "epsilon (1 - H)"
            )
        spec = resolve_cost(alpha, beta, severity_ratio)
        _, _, alpha, beta, _ = spec.at(1.0, 1.0)
        self._engine = HullEngine(alpha, beta, _check_capacity(capacity), seed)

    def hull(self):
        """(fpr, tpr) of the ROC convex hull's vertices, as :func:`~hmeasure_stream.roc_hull`.

        O(h) for a hull of h vertices.  Raises ValueError while a class is absent.
        """
        fp, tp = self._engine.hull_vertices()
        if not (fp[-1] > 0 and tp[-1] > 0):
            raise ValueError("the ROC hull is undefined while a class is absent")
        return fp / fp[-1], tp / tp[-1]

    @property
    def h(self):
        """The H-measure (priors from the current points); nan while a class is absent."""
        return self._engine.h

    def __repr__(self):
        return (
            f"DynamicH(points={len(self)}, alpha={self._engine.alpha!r}, "
            f"beta={self._engine.beta!r}, h={self.h!r}, auc={self.auc!r})"
        )


def _approx_arguments(epsilon, spec):
    """The arguments of ``HullEngine.approx_h`` for a cost specification.

    ``spec.at`` resolves fixed priors and a numeric severity ratio.  Priors
    from the data are only known when H is read: they are passed as nan, and
    with ``severity_ratio="prior"`` the Beta shape is then resolved at each
    read too (``ratio_from_priors``).
    """
    pi0, pi1, alpha, beta, _ = spec.at(1.0, 1.0)
    if spec.priors is None:
        pi0 = pi1 = float("nan")
    ratio_from_priors = spec.priors is None and spec.severity_ratio == "prior"
    return (epsilon, pi0, pi1, alpha, beta, ratio_from_priors)


class ApproxH(_HullPointSet):
    """H-measure within a relative error epsilon, for class priors fixed from outside.

    When the priors are not those of the current points (known base rates, a
    cost model, R's default ``severity_ratio="prior"``), H no longer splits
    into a sum over hull edges and cannot be kept exactly.  ApproxH maintains
    the same ROC convex hull as :class:`DynamicH` and, when ``h`` is read,
    computes H from a subset of the hull's vertices chosen so that

        ``|h - H| <= epsilon * (1 - H)``

    where H is :func:`~hmeasure_stream.h_measure` of the current points with
    the same priors and cost distribution (Tatti, Sec. 6, Props 3-7).

    Parameters
    ----------
    epsilon : float
        Relative error bound, > 0.  Smaller is more exact and slower to read.
    priors : (float, float), optional
        Class priors (pi0, pi1), two numbers in (0, 1) summing to 1.  None:
        the class proportions of the current points.
    alpha, beta : float, default=2.0
        The Beta distribution of the cost, as in :func:`~hmeasure_stream.h_measure`.
    severity_ratio : float or "prior", optional
        R hmeasure's Beta(2, 1 + 1/SR); ``"prior"`` (R's default) is
        SR = pi1 / pi0, with the priors above or those of the current points.
    capacity : int, default=16
        Initial number of distinct scores there is room for (doubles as needed).
    seed : int, optional
        Seed of the treaps' random priorities.

    Attributes
    ----------
    h : float
        The approximate H-measure; nan while a class is absent.
    auch, auc : float
        Exact area under the ROC hull and AUC, as :class:`DynamicH` keeps them.
    n_neg, n_pos : float
        Total weight of class 0 and class 1.

    See Also
    --------
    DynamicH : the exact H with priors from the data, read in O(1).
    hmeasure_stream.h_measure : the exact H from scratch, any priors.

    Notes
    -----
    An update costs O(log^2 n) as in :class:`DynamicH` (the hull is the
    same).  Reading ``h`` walks the hull's tree with Subset (Alg. 3 of the
    paper): a subtree whose vertices lie between two kept vertices p, q with
    q_x <= (1 + eps) p_x and N1 - p_y <= (1 + eps) (N1 - q_y) is skipped,
    which keeps both terms of the loss within a factor 1 + eps.  That visits
    O((1 + 1/eps) log^2 n) vertices; :meth:`subset_info` tells how many edges
    the subset kept.  H is then summed over the subset's edges with the
    given priors.  The bound is relative to 1 - H, so it is tightest for good
    classifiers.  Which vertices are kept depends on the shape of the trees,
    which is random (``seed``): two structures holding the same points may
    return different values, both within the bound.

    Examples
    --------
    >>> from hmeasure_stream import ApproxH, h_measure
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.6, 0.7]
    >>> tracker = ApproxH(epsilon=0.1, priors=(0.9, 0.1))
    >>> tracker.add_many(y, s)
    >>> exact = h_measure(y, s, priors=(0.9, 0.1))
    >>> abs(tracker.h - exact) <= 0.1 * (1 - exact)
    True
    >>> tracker.subset_info()
    {'hull_vertices': 5, 'subset_vertices': 5}
    """

    __slots__ = ("_approximate", "_spec")

    def __init__(self, epsilon, priors=None, alpha=2.0, beta=2.0, severity_ratio=None, *,
                 capacity=16, seed=None):
        epsilon = check_positive(epsilon, "epsilon")
        self._spec = resolve_cost(alpha, beta, severity_ratio, priors)
        self._approximate = _approx_arguments(epsilon, self._spec)
        self._engine = HullEngine(2.0, 2.0, _check_capacity(capacity), seed)

    @property
    def epsilon(self):
        """The relative error bound."""
        return self._approximate[0]

    @property
    def h(self):
        """H within epsilon (1 - H) of the exact value; nan while a class is absent.

        O((1 + 1/epsilon) log^2 n).
        """
        return self._engine.approx_h(*self._approximate)

    def subset_info(self):
        """Vertices of the ROC hull and of the subset H is computed from.

        Both count the origin (0, 0); 1 when there is no point.

        Returns
        -------
        dict
            ``{"hull_vertices": int, "subset_vertices": int}``.
        """
        hull_x, _ = self._engine.hull_vertices()
        subset_x, _ = self._engine.subset_vertices(*self._approximate)
        return {"hull_vertices": len(hull_x), "subset_vertices": len(subset_x)}

    def __repr__(self):
        return (
            f"ApproxH(points={len(self)}, epsilon={self.epsilon!r}, h={self.h!r}, "
            f"auc={self.auc!r})"
        )


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
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = tuple(metrics)
    unknown = [name for name in metrics if name not in _WINDOW_METRICS]
    if unknown or not metrics:
        raise ValueError(
            f"unknown metric(s) {unknown!r}: available metrics are {list(_WINDOW_METRICS)}"
            if unknown else "metrics must name at least one metric"
        )
    metrics = tuple(dict.fromkeys(metrics))
    if window is not None and (
        isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1
    ):
        raise ValueError(f"window must be a positive integer or None, got {window!r}")
    hull_needed = "h" in metrics or "auch" in metrics
    approximate = None
    if epsilon is not None:
        # A fixed seed: the subset, hence H', depends on the trees' random shape,
        # and the same call should give the same values.
        tracker = ApproxH(epsilon, priors, alpha, beta, severity_ratio, seed=0)
        approximate = tracker._approximate
    elif priors is not None or (isinstance(severity_ratio, str) and severity_ratio == "prior"):
        raise ValueError(
            "fixed priors and severity_ratio='prior' make H impossible to maintain "
            "exactly: pass epsilon= for the approximate H (within epsilon * (1 - H)), "
            "or call h_measure on each window"
        )
    else:
        tracker = DynamicH(alpha, beta, severity_ratio)
    engine = tracker._engine
    is_pos, scores, weights = _checked_batch(
        y_true, y_score, sample_weight, allow_empty=False, ranks=True
    )
    n = scores.shape[0]
    steps = 0 if window is None else int(window)
    values = {name: np.empty(n, dtype=np.float64) for name in ("auc", "h", "auch")}
    if hull_needed:
        engine.sliding(is_pos, scores, weights, steps, values["h"], values["auch"],
                       values["auc"], 0, approximate)
    elif (weights is None or np.all(weights == 1.0)) and n < 2**31:
        # Unit weights and the whole stream at hand: counts indexed by rank.
        ranks, n_ranks = dense_ranks(scores)
        sliding_auc_ranked(is_pos, ranks, n_ranks, steps, values["auc"])
    else:
        span = n if window is None else min(int(window), n)
        AUCEngine(max(span + 1, 1)).sliding(is_pos, scores, weights, steps, values["auc"])
    return {name: values[name] for name in metrics}
