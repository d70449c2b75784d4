"""The maintained ROC hull: ``DynamicH`` (exact H-measure) and ``ApproxH`` (fixed priors)."""

from hmeasure_stream._core.report import r_report, report_levels
from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream._engines._cost import mwl_cost
from hmeasure_stream._validation import check_cost, check_positive, check_score_value, label_map
from hmeasure_stream.streaming._base import (
    PointSet,
    WindowedPointSet,
    check_structure_options,
    make_forgetting,
    merge_points,
)

__all__ = ["ApproxH", "DynamicH"]


class _HullPointSet(WindowedPointSet):
    """What DynamicH and ApproxH share: the maintained ROC hull (BlockedHullEngine) and its AUCH."""

    __slots__ = ()

    @property
    def auch(self):
        """Area under the ROC convex hull (exact); nan while a class is absent."""
        return self._engine.auch

    def hull(self):
        """(fpr, tpr) of the ROC convex hull's vertices, as :func:`~hmeasure_stream.roc_hull`.

        O(h) for a hull of h vertices: the maintained hull.  Raises ValueError
        while a class is absent.
        """
        fp, tp = self._engine.hull_vertices()
        if not (fp[-1] > 0 and tp[-1] > 0):
            raise ValueError("the ROC hull is undefined while a class is absent")
        return fp / fp[-1], tp / tp[-1]


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
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...), fixed for
        ``add``, ``remove``, ``add_many`` and ``remove_many``: the first other
        label added is class 0 from then on and a third one is refused.
        Default: labels 0/1, -1/1 or booleans.
    capacity : int, default=16
        Initial number of distinct scores there is room for (doubles as needed).
    seed : int, optional
        Accepted for compatibility with :class:`DynamicAUC`; the structure
        has no randomness.

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
    The distinct scores are kept in sorted blocks of at most 128 under a
    segment tree whose every node keeps the upper hull of its points as one
    array of edges, each with its term of the H-measure's loss (with priors
    from the data it depends on the edge alone: Tatti, Sec. 5.3, Eq. 7).  A
    node's hull is the bridge of its children's (Overmars and van Leeuwen;
    Tatti, Secs. 5.1-5.2): the right child's edges, then the left child's
    pushed through a monotone chain, so only the bridge gets a new loss term.
    An update costs one scan of a block plus, at each of the O(log n) nodes
    on its path, a copy of the node's hull and the bridge search: O(B + h
    log n) for hulls of at most h vertices, where h is O(n^(2/3)) with unit
    weights (lattice points) and in practice a few hundred (216 at 10^6
    random points); adversarial real weights (points in convex position) can
    make it O(n).  H, AUCH and AUC are read in O(1).  O(n) memory with unit
    weights, about 115 bytes per point.

    With unit weights every hull vertex is exact and ``hull()`` returns what
    :func:`~hmeasure_stream.roc_hull` returns.  Weights are kept as
    :class:`DynamicAUC` keeps them: the metrics do not depend on their common
    scale, bit for bit.

    Threads: mutate from one thread at a time; a mutation, or a read while
    one runs, raises RuntimeError.  ``h``, ``auch``, ``auc``, ``n_neg`` and
    ``n_pos`` are plain reads.

    Windows and decay: as in :class:`DynamicAUC` (a ring of the points, 25
    bytes each; the points leaving go in the same compiled call, one
    update each, amortised; decay stores weights times
    2^((x - x0) / half_life), rescaled by powers of two; points older than 60
    half-lives leave; ``remove`` retracts a point before it leaves, in O(w)).
    The hull's orientation tests compare edge vectors summed from
    non-negative weights, never differences of coordinates, so they hold at
    any spread of the weights it holds; values equal the from-scratch ones with
    ``sample_weight = weight * 2^(-age / half_life)`` to about 1e-11.

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time".

    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    M. H. Overmars and J. van Leeuwen, "Maintenance of configurations in the
    plane", Journal of Computer and System Sciences 23, 1981.

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

    def __init__(self, alpha=2.0, beta=2.0, severity_ratio=None, *, window=None, half_life=None,
                 pos_label=None, capacity=16, seed=None):
        self._labels = label_map(pos_label)
        self._forgetting = make_forgetting(window, half_life)
        if isinstance(severity_ratio, str) and severity_ratio == "prior":
            raise ValueError(
                'severity_ratio="prior" cannot be maintained exactly: the cost '
                "distribution would change with the class balance of the current "
                "points. Use h_measure(..., severity_ratio='prior') on the points, or "
                "ApproxH(epsilon, severity_ratio='prior'), which approximates it within "
                "epsilon (1 - H)"
            )
        alpha, beta = check_cost(alpha, beta, severity_ratio).shape
        self._engine = BlockedHullEngine(alpha, beta, *check_structure_options(capacity, seed))


    @property
    def h(self):
        """The H-measure (priors from the current points); nan while a class is absent."""
        return self._engine.h

    def merge(self, other):
        """Add the points of another structure: the union of both point sets.

        Per-shard trackers combine into one global view; ``other`` is not
        changed.

        Parameters
        ----------
        other : DynamicH or DynamicAUC
            A DynamicH with the same cost distribution (alpha, beta), or a
            DynamicAUC (points only).

        Raises
        ------
        ValueError
            If ``other`` is another kind of structure, a DynamicH whose
            alpha or beta differ, either has a window or decay, or their
            ``pos_label`` (or the class 0 labels they learned) differ;
            nothing changes.

        Notes
        -----
        One batch of the m points of the smaller of the two, as
        ``add_many`` (see ``DynamicAUC.merge``).  Exact: the hull, H and AUCH equal those
        of the union from scratch.

        Examples
        --------
        >>> from hmeasure_stream import DynamicH, h_measure
        >>> east, west = DynamicH(), DynamicH()
        >>> east.add_many([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.6])
        >>> west.add_many([0, 0, 1, 1], [0.5, 0.1, 0.9, 0.3])
        >>> east.merge(west)
        >>> y, s = [0, 1, 1, 0, 0, 0, 1, 1], [0.2, 0.7, 0.4, 0.6, 0.5, 0.1, 0.9, 0.3]
        >>> round(east.h, 12) == round(h_measure(y, s), 12)
        True
        >>> DynamicH().merge(DynamicH(severity_ratio=0.5))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot merge a DynamicH with Beta(2.0, 3.0) into one with Beta(2.0, 2.0): ...
        """
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
                "outside, epsilon) differ from the exact H with priors from the data"
            )
        elif not isinstance(other, PointSet):
            raise ValueError(
                f"merge takes a DynamicH or a DynamicAUC, got {type(other).__name__}"
            )
        merge_points(self, other)

    def report(self, sens_spec_levels=0.95, *, threshold=0.5):
        """R hmeasure's summary of the current points, as :func:`~hmeasure_stream.hmeasure_report`.

        Parameters
        ----------
        sens_spec_levels : float or sequence of float, default=0.95
            The sensitivity (specificity) levels at which specificity
            (sensitivity) is reported, each in (0, 1).
        threshold : float, default=0.5
            The threshold of the crisp rule "class 1 when score > threshold"
            of the metrics from ``ER`` on.

        Returns
        -------
        dict
            The keys and values of ``hmeasure_report(y, s, alpha=alpha,
            beta=beta, sample_weight=w, sens_spec_levels=sens_spec_levels, threshold=threshold)`` of
            the current points (H, Gini, AUC, AUCH, KS, MER, MWL,
            Spec.SensXX, Sens.SpecXX, ER, Sens, Spec, Precision, Recall,
            TPR, FPR, F, Youden, TP, FP, TN, FN); every value is nan while a
            class is absent.

        Raises
        ------
        ValueError
            If a level is not in (0, 1) or the threshold is not a finite number.

        See Also
        --------
        hmeasure_stream.hmeasure_report : the same summary from scratch.

        Notes
        -----
        Nothing is recomputed from the points.  H, AUCH and the AUC are
        maintained (O(1) to read).  KS, MER and MWL are extremes of linear
        functions of (FPR, TPR), reached at vertices of the ROC hull: one
        pass over the maintained hull's edges each, O(h) for h vertices.
        KS's side max(FPR - TPR) lies on the *lower* hull: the first call of
        ``report`` builds it (one batch of the points, once) and from then on
        every update maintains it as well, which about doubles the cost of an
        update (a second hull over the same points with the classes swapped).
        Spec.SensXX and Sens.SpecXX are R's lookup on the empirical ROC
        curve: a descent of the score blocks' tree to the block where a class
        CDF crosses the level, O(log n + B); the threshold metrics one more
        search, O(log n + B).  With unit weights every
        value equals the from-scratch one; with weights up to rounding.

        References
        ----------
        D. J. Hand, "Measuring classifier performance: a coherent alternative
        to the area under the ROC curve", Machine Learning 77, 2009.

        N. Tatti, "Maintaining AUC and H-measure over time".

        Examples
        --------
        >>> from hmeasure_stream import DynamicH, hmeasure_report
        >>> y, s = [0, 0, 1, 0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
        >>> tracker = DynamicH()
        >>> tracker.add_many(y, s)
        >>> report = tracker.report()
        >>> report == hmeasure_report(y, s)
        True
        >>> report["KS"], report["MER"], report["Sens.Spec95"], report["ER"]
        (0.75, 0.125, 0.75, 0.25)
        """
        levels = report_levels(sens_spec_levels)
        threshold = check_score_value(threshold, "threshold")
        engine = self._engine
        if engine.lower is None:
            engine.track_lower()
        ks, mer, mwl = engine.extremes(mwl_cost(engine.alpha, engine.beta, None))
        curve = {"H": self.h, "AUCH": self.auch, "KS": ks, "MER": mer, "MWL": mwl}
        # In the caller's units: the engine stores weights scaled by a power of two.
        above_neg, above_pos, total_neg, total_pos = (
            value * engine.scale for value in engine.weights_above(threshold))
        counts = None
        if total_neg > 0 and total_pos > 0:
            counts = (above_pos, above_neg, total_neg - above_neg, total_pos - above_pos)
        return r_report(
            levels, self.auc, curve,
            spec_at_sens=lambda level: engine.fixed_level(True, level),
            sens_at_spec=lambda level: engine.fixed_level(False, level),
            counts=counts,
        )

    def __repr__(self):
        return (
            f"DynamicH(points={len(self)}, alpha={self._engine.alpha!r}, "
            f"beta={self._engine.beta!r}, h={self.h!r}, auc={self.auc!r})"
        )


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
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...), fixed for
        ``add``, ``remove``, ``add_many`` and ``remove_many``: the first other
        label added is class 0 from then on and a third one is refused.
        Default: labels 0/1, -1/1 or booleans.
    capacity : int, default=16
        Initial number of distinct scores there is room for (doubles as needed).
    seed : int, optional
        Accepted for compatibility with :class:`DynamicAUC`; the structure
        has no randomness.

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
    An update costs as in :class:`DynamicH` (the hull is the same).
    Reading ``h`` walks the hull's vertices, taken as a balanced binary tree
    (the middle vertex its root), with Subset (Alg. 3 of the paper): a
    subtree whose vertices lie between two kept vertices p, q with
    q_x <= (1 + eps) p_x and N1 - p_y <= (1 + eps) (N1 - q_y) is skipped,
    which keeps both terms of the loss within a factor 1 + eps.  That visits
    O((1 + 1/eps) log^2 n) vertices; :meth:`subset_info` tells how many edges
    the subset kept.  H is then summed over the subset's edges with the
    given priors.  The bound is relative to 1 - H, so it is tightest for good
    classifiers.  The walk is preceded by one pass over the hull's edges
    (their cumulative sums).  Two structures holding the same points return
    the same value.

    Windows and decay: as in :class:`DynamicH` (the same hull, the same
    cost per point leaving, the same agreement with the from-scratch values).

    Threads: mutate from one thread at a time; a mutation, or a read while
    one runs, raises RuntimeError.  ``h``, ``auch``, ``auc``, ``n_neg`` and
    ``n_pos`` are plain reads.

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time", Sec. 6.

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

    __slots__ = ()

    def __init__(self, epsilon, priors=None, alpha=2.0, beta=2.0, severity_ratio=None, *,
                 window=None, half_life=None, pos_label=None, capacity=16, seed=None):
        self._labels = label_map(pos_label)
        self._forgetting = make_forgetting(window, half_life)
        epsilon = check_positive(epsilon, "epsilon")
        rule = check_cost(alpha, beta, severity_ratio, priors)
        self._engine = BlockedHullEngine(2.0, 2.0, *check_structure_options(capacity, seed))
        self._engine.set_reading(epsilon, rule)

    @property
    def epsilon(self):
        """The relative error bound."""
        return self._engine.epsilon

    @property
    def h(self):
        """H within epsilon (1 - H) of the exact value; nan while a class is absent.

        O((1 + 1/epsilon) log^2 n).
        """
        return self._engine.h

    def subset_info(self):
        """Vertices of the ROC hull and of the subset H is computed from.

        Both count the origin (0, 0); 1 when there is no point.

        Returns
        -------
        dict
            ``{"hull_vertices": int, "subset_vertices": int}``.
        """
        hull_x, _ = self._engine.hull_vertices()
        subset_x, _ = self._engine.subset_vertices()
        return {"hull_vertices": len(hull_x), "subset_vertices": len(subset_x)}

    def __repr__(self):
        return (
            f"ApproxH(points={len(self)}, epsilon={self.epsilon!r}, h={self.h!r}, "
            f"auc={self.auc!r})"
        )
