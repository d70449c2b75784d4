"""AUC within a relative error, from a compressed list: ``ApproxAUC``."""

from hmeasure_stream._engines._approx_auc import ApproxAUCEngine
from hmeasure_stream._validation import (
    check_positive,
    check_relative_to,
    check_unit_weights,
    check_weight_value,
    label_map,
)
from hmeasure_stream.streaming._base import (
    WindowedPointSet,
    check_structure_options,
    checked_batch,
    make_forgetting,
)

__all__ = ["ApproxAUC"]


def _unit_weight(weight):
    """1.0, or ValueError: an invalid weight as everywhere, any other valid one refused."""
    if type(weight) is float and weight == 1.0:
        return weight
    if check_weight_value(weight) != 1.0:
        raise ValueError(
            "ApproxAUC takes unit weights only (its compressed list counts points one by "
            f"one), got weight={weight!r}"
        )
    return 1.0


class ApproxAUC(WindowedPointSet):
    """AUC within a relative error epsilon / 2 of a set of points that changes.

    Keeps the points in the score tree of :class:`DynamicAUC` and, over it,
    a *(1 + epsilon)-compressed list* of score groups (Tatti, "Efficient
    estimation of AUC in a sliding window", Secs. 3-4).  The AUC read from
    the groups satisfies

        ``|auc' - auc| <= epsilon * auc / 2``           (``relative_to="auc"``)

        ``|auc' - auc| <= epsilon * (1 - auc) / 2``     (``relative_to="1-auc"``)

    where auc is the exact AUC of the current points, as
    :func:`~hmeasure_stream.auc` computes it (Prop. 1 of the paper, and the
    remark after it).

    Parameters
    ----------
    epsilon : float
        The compression, > 0: the estimate is within ``epsilon / 2`` of the
        AUC relatively (to auc or to 1 - auc).  Smaller is more exact and
        slower.
    relative_to : {"auc", "1-auc"}, default="auc"
        What the error is relative to.  ``"1-auc"`` builds the list over
        class 1 instead of class 0 and returns one minus the estimate of
        1 - auc: the tighter bound for good classifiers, whose AUC is near 1.
    window : int, str, datetime.timedelta, numpy.timedelta64 or None
        Keep only the last ``window`` points added, or with a duration the
        points whose time is in (t - window, t] for the newest time t (then
        every addition needs a time), as :class:`DynamicAUC`; None keeps
        every point.
    half_life : None
        Not available: decay gives the points weights other than 1, which
        the compressed list does not take (see Notes).  Refused with
        ValueError unless None.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...), fixed for
        ``add``, ``remove``, ``add_many`` and ``remove_many``: the first other
        label added is class 0 from then on and a third one is refused.
        Default: labels 0/1, -1/1 or booleans.
    capacity : int, default=16
        Initial number of distinct scores there is room for (doubles as needed).
    seed : int, optional
        Seed of the treap's random priorities (the estimate does not depend on it).

    Attributes
    ----------
    auc : float
        The estimate; nan while a class is absent.
    compressed_size : int
        Score groups in the compressed list (the sentinels not counted).
    n_neg, n_pos : float
        Number of points of class 0 and of class 1.

    See Also
    --------
    DynamicAUC : the exact AUC, cheaper still to maintain (see Notes).
    sliding_window : ``metrics="auc_approx"`` over every window of an array.

    Notes
    -----
    The list C is built over the nodes of the score tree that hold points of
    one class (class 0 here; the paper's labels are mirrored, since it scores
    the other class higher), with counters of both classes in the gap up to
    the next node of C.  Consecutive nodes v, w of C satisfy
    ``hp(w) <= (1 + epsilon) (hp(v) + p(v))``, where p is a node's count of
    the listed class and hp the count below it (Eq. 3), so every group
    between them is within a factor 1 + epsilon of its neighbours and the
    estimate of Alg. 4, which treats a group as one score, is within the
    bound.  C also satisfies Eq. 4 (no node can be dropped), which keeps it
    to ``|C| <= 2 log k / log(1 + epsilon) + 3`` nodes for k points of the
    listed class, sentinels included (Prop. 2).

    With m nodes in C, an update costs O(log n) in the tree plus O(m) to walk and compress
    the list (Algs. 5-8): O(log n + log n / epsilon).  Reading ``auc`` walks
    the list once (Alg. 4), O(m), in exact integer arithmetic.  The exact
    AUC of :class:`DynamicAUC` costs O(log n) per update and O(1) to read,
    so it is faster than the estimate for every epsilon; the estimate
    is faster than recomputing the AUC of each window from scratch, O(k),
    which is what the paper compares with.  Memory O(n): the tree's 40
    bytes and 36 bytes of list links and counters per distinct score.

    Unit weights only: the paper's repair of the list after an update
    (Lemma 1) relies on counts changing by one, and a compressed list of
    weighted points is not maintained by it.  A weight other than 1 is
    refused with ValueError.  Pickling copies the buffers; a structure may
    be mutated by one thread at a time (as :class:`DynamicAUC`).

    References
    ----------
    N. Tatti, "Efficient estimation of AUC in a sliding window", Secs. 3-4,
    Props 1-2.

    Examples
    --------
    >>> from hmeasure_stream import ApproxAUC, auc
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.6, 0.7]
    >>> tracker = ApproxAUC(epsilon=0.5)
    >>> tracker.add_many(y, s)
    >>> tracker.auc, auc(y, s), tracker.compressed_size
    (0.82, 0.84, 3)
    >>> abs(tracker.auc - auc(y, s)) <= 0.5 * auc(y, s) / 2
    True
    >>> tracker.remove(0, 0.6)
    >>> tracker.auc, auc(y[:8] + y[9:], s[:8] + s[9:])
    (0.925, 0.9)
    """

    __slots__ = ()

    def __init__(self, epsilon, *, relative_to="auc", window=None, half_life=None,
                 pos_label=None, capacity=16, seed=None):
        if half_life is not None:
            raise ValueError(
                "half_life is not available on ApproxAUC: decay weighs the points, and its "
                "compressed list counts unit weights only; use window=, or DynamicAUC("
                "half_life=...) for the exact AUC with decay")
        self._labels = label_map(pos_label)
        epsilon = check_positive(epsilon, "epsilon")
        flip = check_relative_to(relative_to) == "1-auc"
        self._forgetting = make_forgetting(window, None)
        self._engine = ApproxAUCEngine(epsilon, flip, *check_structure_options(capacity, seed))

    def _checked_batch(self, y_true, y_score, sample_weight):
        is_pos, scores, weights = checked_batch(y_true, y_score, sample_weight)
        check_unit_weights(weights, "ApproxAUC")
        return is_pos, scores, None

    def add(self, y_true, y_score, weight=1.0, *, time=None):
        """Add one point: O(log n + m) for m = ``compressed_size``.

        Parameters
        ----------
        y_true : int or bool
            Its label: 0/1, -1/1 or a boolean, or with ``pos_label`` one of two labels.
        y_score : float
            Its score, a finite real number.
        weight : float, default=1.0
            Must be 1 (unit weights only).
        time : optional
            Its time, as for :meth:`DynamicAUC.add`; required with a window
            given as a duration.

        Raises
        ------
        ValueError
            If the label, score, weight or time is invalid, or the weight is
            not 1; nothing changes.
        """
        WindowedPointSet.add(self, y_true, y_score, _unit_weight(weight), time=time)

    def remove(self, y_true, y_score, weight=1.0):
        """Remove one point: O(log n + m) for m = ``compressed_size``.

        Parameters
        ----------
        y_true : int or bool
            Its label: 0/1, -1/1 or a boolean, or with ``pos_label`` one of two labels.
        y_score : float
            Its score.
        weight : float, default=1.0
            Must be 1 (unit weights only).

        Raises
        ------
        KeyError
            If no point with this label and score is present; nothing changes.
        ValueError
            If the label, score or weight is invalid, or the weight is not 1;
            nothing changes.
        """
        WindowedPointSet.remove(self, y_true, y_score, _unit_weight(weight))

    @property
    def auc(self):
        """The estimate of the AUC (Alg. 4); nan while a class is absent.  O(compressed_size)."""
        return self._engine.auc_approx

    @property
    def epsilon(self):
        """The compression: the bound is epsilon / 2, relative."""
        return self._engine.epsilon

    @property
    def relative_to(self):
        """``"auc"`` or ``"1-auc"``: what the error bound is relative to."""
        return "1-auc" if self._engine.flip else "auc"

    @property
    def compressed_size(self):
        """Score groups in the compressed list C, without its two sentinels.  O(1)."""
        return int(self._engine.compressed_entries)

    def __repr__(self):
        window = "" if self.window is None else f"window={self.window!r}, "
        return (
            f"ApproxAUC(points={len(self)}, {window}epsilon={self.epsilon!r}, "
            f"relative_to={self.relative_to!r}, auc={self.auc!r})"
        )
