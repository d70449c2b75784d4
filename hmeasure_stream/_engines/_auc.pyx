"""Exact AUC under insertion and deletion: the engine of DynamicAUC.

Tatti, "Maintaining AUC and H-measure over time", Sec. 4.  2U (twice the
Mann-Whitney statistic) changes by Props 1-2 when a point is added or
removed: a class 1 point at score s pairs with the class 0 weight below s
(2 each) and at s (1 each); a class 0 point with the class 1 weight above s
and at s.  The treap returns those weights on the way down.

With unit weights every quantity is an integer, so 2U, kept by these
increments, is exact.  The first other weight switches the treap to weighted
mode, where 2U is the root of a subtree aggregate of non-negative terms,
recomputed from the children on every update: no increment is accumulated,
so nothing can drift or cancel.

``AUCEngine`` is also the base of every engine that keeps its points in the
score treap (the hull engine).  Its entry points are those of
``PointEngine`` (``_protocol``): each run by ``_guarded`` (claim the
structure, run, release), one rule for an emptied structure, one compiled
fast path for single points; ``AUCEngine`` fills in its hooks on the treap.

Weights are stored in the structure's own units: times a power of two fixed
by the first positive weight, which brings it into [1, 2).  Multiplying by a
power of two is exact, so multiplying every weight by one constant changes
nothing that is stored, and every metric is the same bit for bit; products
of weights never overflow or underflow.  A later weight more than 2**400
(about 1e120) times larger or smaller than that first one is refused
(``Status.OUT_OF_RANGE``).  The scale is forgotten when the structure
empties.
"""

import numpy as np

from libc.math cimport NAN, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t

from hmeasure_stream._engines._fenwick cimport RankCounts
from hmeasure_stream._engines._delong cimport (
    caller_units,
    delong_interval,
    delong_variance,
    exact_pairs,
    track_squares,
)
from hmeasure_stream._engines._numeric cimport compensated_add, wide_uint
from hmeasure_stream._engines._protocol cimport DONE, PointEngine
from hmeasure_stream._engines._treap cimport NodeSums, NodeWeights, ScoreTreap


cdef class AUCEngine(PointEngine):
    """Exact AUC under insertion and deletion; see the module docstring."""

    def __cinit__(self, *args, **kwargs):
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.square_pos.low = self.square_pos.high = 0
        self.square_neg.low = self.square_neg.high = 0
        self.interval = False
        self.quantile_low = NAN
        self.quantile_high = NAN

    def __init__(self, Py_ssize_t capacity=16, seed=None):
        self.tree = ScoreTreap(capacity, seed)

    # ------------------------------------------------------------------
    # The hooks of ``PointEngine`` on the score treap.

    cdef Py_ssize_t _held_points(self) noexcept nogil:
        return self.tree.n_points

    cdef bint _stores_weights(self) noexcept nogil:
        return self.tree.weighted

    cdef int32_t _count_at(self, double score, bint is_pos) noexcept nogil:
        return self.tree.count_at(score, is_pos)

    cdef double _weight_at(self, double score, bint is_pos) noexcept nogil:
        cdef int32_t node = self.tree.find(score)
        if node < 0:
            return 0.0
        return self.tree.node_pos(node) if is_pos else self.tree.node_neg(node)

    cdef int _emptied(self) except -1:
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.square_pos.low = self.square_pos.high = 0
        self.square_neg.low = self.square_neg.high = 0
        if self.tree.weighted:
            self.tree.make_unit()
        return 0

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        """With the GIL, before a mutation: weighted mode if needed, room for the points."""
        if weighted and not self.tree.weighted:
            self.tree.make_weighted()
        self.tree.reserve(new_points)
        return 0

    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil:
        """One point in or out (a slot reserved); returns its Status.  Engines override."""
        return self._tree_update(is_pos, score, weight, adding)

    cdef int _tree_update(self, bint is_pos, double score, double weight,
                          bint adding) except -1 nogil:
        """The treap and 2U: one point in or out by Props 1-2; returns its Status."""
        cdef double below_neg, above_pos, at_neg, at_pos
        cdef int status
        if adding:
            self.tree.add(score, is_pos, weight, &below_neg, &above_pos, &at_neg, &at_pos)
        else:
            status = self.tree.remove(score, is_pos, weight,
                                      &below_neg, &above_pos, &at_neg, &at_pos)
            if status != DONE:
                return status
        if not self.tree.weighted:
            # The pairs the point takes part in, counted without it.
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            (1.0 if adding else -1.0)
                            * (2.0 * below_neg + at_neg if is_pos else 2.0 * above_pos + at_pos))
            if self.tree.placements:
                self._track_squares(is_pos, adding, below_neg, above_pos, at_neg, at_pos)
            if self.tree.n_points == 0:
                self.twice_u = 0.0
                self.twice_u_compensation = 0.0
        return DONE

    cdef void _track_squares(self, bint is_pos, bint adding, double below_neg,
                             double above_pos, double at_neg, double at_pos) noexcept nogil:
        """Unit mode: the sums of squared placement numerators after one point in or out
        (``_delong.track_squares``; called after 2U is updated, with the treap's
        ``pairs_above`` = 2U(> s) summed on the way down)."""
        track_squares(&self.square_pos, &self.square_neg,
                      exact_pairs(self.twice_u, self.twice_u_compensation),
                      <double>self.tree.pairs_above, is_pos, adding, below_neg, above_pos,
                      at_neg, at_pos)

    cdef double _variance(self, double scale) noexcept nogil:
        """DeLong's variance of the AUC, weights as frequencies in units of ``scale``
        (``_delong.delong_variance``): unit mode from the exact sums, weighted mode from
        the root's aggregates; nan without the tree's placements."""
        cdef int32_t root = self.tree.root
        if root < 0 or not self.tree.placements:
            return NAN
        return delong_variance(
            self.tree.weighted, self.tree.sums[root].subtree_neg,
            self.tree.sums[root].subtree_pos, self.tree.sums[root].subtree_pairs,
            exact_pairs(self.twice_u, self.twice_u_compensation), self.square_pos,
            self.square_neg, self.tree.squares[2 * root] if self.tree.weighted else 0.0,
            self.tree.squares[2 * root + 1] if self.tree.weighted else 0.0, scale)

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """The metrics of the current points into ``out[row]``: the AUC in column 0
        (with ``interval``: then DeLong's variance and interval, as ``auc_ci``)."""
        cdef double auc = self._auc()
        out[row, 0] = auc
        if self.interval:
            self._interval_into(auc, &out[row, 1])

    cdef void _interval_into(self, double auc, double* out) noexcept nogil:
        """DeLong's variance, and the AUC -+ the quantiles times its root clipped to [0, 1]
        (as ``auc_ci``), into out[0..2]; weights in the caller's units (with decay
        relative to the newest point)."""
        delong_interval(auc, self._variance(caller_units(self.inverse_scale, self.newest_decay)),
                        self.quantile_low, self.quantile_high, out)

    cdef object _read(self):
        return self._auc()

    cdef double _auc(self) noexcept nogil:
        cdef int32_t root = self.tree.root
        cdef double weight_neg, weight_pos, twice_u
        if root < 0:
            return NAN
        weight_neg = self.tree.sums[root].subtree_neg
        weight_pos = self.tree.sums[root].subtree_pos
        if not (weight_neg > 0.0 and weight_pos > 0.0):
            return NAN
        if self.tree.weighted:
            twice_u = self.tree.twice_u()
        else:
            twice_u = self.twice_u + self.twice_u_compensation
        # Rounding with float weights may leave 2U a few ulps outside [0, 2 N P].
        return min(max(twice_u / (2.0 * weight_neg * weight_pos), 0.0), 1.0)

    # ------------------------------------------------------------------
    # Windows and decay: the points of a ``Forgetting`` leave here.

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """Multiply every stored weight by ``factor``, a power of two (exact).

        Weighted mode only; quantities of degree 2 in the weights (the pair
        weights) by ``factor`` squared.  Engines with more weighted state
        override and call this.
        """
        cdef Py_ssize_t slot
        cdef double cube = factor * factor * factor
        cdef double* squares = self.tree.squares
        cdef NodeWeights* weights
        cdef NodeSums* sums
        if not self.tree.weighted:
            return
        for slot in range(self.tree.capacity):
            weights = &self.tree.weights[slot]
            weights.neg *= factor
            weights.pos *= factor
            weights.neg_comp *= factor
            weights.pos_comp *= factor
            sums = &self.tree.sums[slot]
            sums.subtree_neg *= factor
            sums.subtree_pos *= factor
            sums.subtree_pairs *= factor * factor
            if self.tree.placements:
                squares[2 * slot] *= cube
                squares[2 * slot + 1] *= cube

    def items(self):
        """Keys in increasing order with their class weights (stored units) and counts."""
        return self.tree.items()

    def score_groups(self):
        """Distinct scores from the highest down with their class weights: the ROC's groups.

        Weights in the structure's units (``scale`` times them in the caller's).
        """
        keys, weight_neg, weight_pos, _, _ = self.tree.items()
        return keys[::-1].copy(), weight_neg[::-1].copy(), weight_pos[::-1].copy()

    @property
    def columns(self):
        """The metrics ``_record`` writes, in the column order of ``slide``'s ``out``."""
        if self.interval:
            return ("auc", "auc_var", "auc_lo", "auc_hi")
        return ("auc",)

    @property
    def auc(self):
        return self._auc()

    # ------------------------------------------------------------------
    # DeLong's variance.

    def track_variance(self):
        """Maintain DeLong's variance from now on (the tree's placements): O(n) once,
        claiming the structure as an update does."""
        self._check_idle()
        if self.tree.placements:
            return
        self.busy = True
        try:
            self.tree.track_placements()
            if not self.tree.weighted:
                square_pos, square_neg = _exact_squares(self.tree)
                _set_wide(&self.square_pos, square_pos)
                _set_wide(&self.square_neg, square_neg)
        finally:
            self.busy = False

    def record_interval(self, double quantile_low, double quantile_high):
        """Record ``auc_var``, ``auc_lo`` and ``auc_hi`` in ``slide`` too: the AUC plus the
        normal quantiles ``quantile_low`` and ``quantile_high`` times DeLong's standard
        error, clipped to [0, 1]."""
        self.track_variance()
        self.interval = True
        self.quantile_low = quantile_low
        self.quantile_high = quantile_high

    @property
    def tracks_variance(self):
        return self.tree.placements

    def variance(self, double scale):
        """DeLong's variance with weights as frequencies, a stored weight of 1 counting
        ``scale`` (nan without ``track_variance``, or while a class has total weight
        <= 1)."""
        return self._variance(scale)

    def placement_squares(self):
        """Unit mode: the exact sums of squared placement numerators (class 1, class 0)."""
        return _wide_value(self.square_pos), _wide_value(self.square_neg)

    @property
    def weight_neg(self):
        return self.tree.class_total(False) * self.scale

    @property
    def weight_pos(self):
        return self.tree.class_total(True) * self.scale

    @property
    def n_points(self):
        return self.tree.n_points

    @property
    def nbytes(self):
        return self.tree.nbytes

    @property
    def exact(self):
        """True while every weight is 1: the AUC is then exactly the from-scratch value."""
        return not self.tree.weighted

    def _check(self):
        """The tree's invariants, and 2U against a recomputation from the tree."""
        self.tree._check()
        _, weight_neg, weight_pos, count_neg, count_pos = self.tree.items()
        if self.tree.weighted:
            below = np.cumsum(weight_neg) - weight_neg
            recomputed = float(np.sum(weight_pos * (2.0 * below + weight_neg)))
            maintained = self.tree.twice_u() if self.tree.root >= 0 else 0.0
            if fabs(maintained - recomputed) > 1e-12 * max(abs(recomputed), 1e-300):
                raise AssertionError(f"2U {maintained!r} != recomputed {recomputed!r}")
        else:
            below = 0
            recomputed = 0
            for negatives, positives in zip(count_neg.tolist(), count_pos.tolist()):
                recomputed += positives * (2 * below + negatives)
                below += negatives
            maintained = self.twice_u + self.twice_u_compensation
            if maintained != recomputed:
                raise AssertionError(f"exact 2U {maintained!r} != recomputed {recomputed}")
        if self.tree.placements:
            self._check_squares()
        if self.tree.n_points == 0 and self.tree.weighted:
            raise AssertionError("an empty structure must be back in unit mode")
        if self.tree.n_points == 0 and self.inverse_scale != 0.0:
            raise AssertionError("an empty structure must have forgotten its weights' scale")
        if self.inverse_scale != 0.0 and (
                np.frexp(self.inverse_scale)[0] != 0.5 or not np.isfinite(self.inverse_scale)):
            raise AssertionError(f"the weights' scale {self.inverse_scale!r} is not a power of two")
        if self.inverse_scale == 0.0 and (np.any(weight_neg != 0) or np.any(weight_pos != 0)):
            raise AssertionError("positive weight stored without a scale")
        return True

    def _check_squares(self):
        """The variance's aggregates against a recomputation from the tree's contents:
        unit mode exactly (Python integers), weighted mode the root's sums to 1e-11."""
        _, weight_neg, weight_pos, _, _ = self.tree.items()
        if not self.tree.weighted:
            expected = _exact_squares(self.tree)
            if self.placement_squares() != expected:
                raise AssertionError(
                    f"squared placements {self.placement_squares()} != recomputed {expected}")
            return
        if self.tree.root < 0:
            return
        # Exclusive prefix and suffix sums, without subtractions (no cancellation).
        below = np.concatenate(([0.0], np.cumsum(weight_neg)[:-1]))
        above = np.concatenate((np.cumsum(weight_pos[::-1])[::-1][1:], [0.0]))
        for name, weights, numerators, column in (
                ("class 1", weight_pos, 2.0 * below + weight_neg, 0),
                ("class 0", weight_neg, 2.0 * above + weight_pos, 1)):
            recomputed = float(np.sum(weights * numerators * numerators))
            maintained = float(self.tree.squares_buffer[self.tree.root, column])
            if fabs(maintained - recomputed) > 1e-11 * max(recomputed, 1e-300):
                raise AssertionError(
                    f"{name} squared placements {maintained!r} != recomputed {recomputed!r}")

    def _variance_state(self):
        return (_wide_value(self.square_pos), _wide_value(self.square_neg), self.interval,
                self.quantile_low, self.quantile_high, self.newest_decay)

    def _restore_variance(self, state):
        square_pos, square_neg, self.interval, self.quantile_low, self.quantile_high, \
            self.newest_decay = state
        _set_wide(&self.square_pos, square_pos)
        _set_wide(&self.square_neg, square_neg)

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_auc_engine, (self.tree, self.twice_u, self.twice_u_compensation,
                                      self.inverse_scale, self._variance_state()))


def _rebuild_auc_engine(tree, twice_u, compensation, inverse_scale, variance):
    cdef AUCEngine engine = AUCEngine.__new__(AUCEngine)
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = inverse_scale
    engine._restore_variance(variance)
    return engine


cdef object _wide_value(wide_uint value):
    return (int(value.high) << 64) | int(value.low)


cdef void _set_wide(wide_uint* target, object value):
    target.low = value & 0xFFFFFFFFFFFFFFFF
    target.high = (value >> 64) & 0xFFFFFFFFFFFFFFFF


def _exact_squares(ScoreTreap tree):
    """Unit mode: sum over class 1 of a^2 and over class 0 of b^2 (placement numerators,
    see ``_track_squares``), in Python integers from the tree's contents; O(n)."""
    _, _, _, count_neg, count_pos = tree.items()
    square_pos = square_neg = 0
    below = 0
    for negatives, positives in zip(count_neg.tolist(), count_pos.tolist()):
        square_pos += positives * (2 * below + negatives) ** 2
        below += negatives
    above = 0
    for negatives, positives in zip(reversed(count_neg.tolist()), reversed(count_pos.tolist())):
        square_neg += negatives * (2 * above + positives) ** 2
        above += positives
    return square_pos, square_neg


def sliding_auc_ranked(const uint8_t[::1] is_pos, const int64_t[::1] ranks,
                       Py_ssize_t n_ranks, Py_ssize_t window, double[::1] auc_out):
    """The AUC of every window with unit weights when the whole stream is known.

    The scores are replaced by their dense ranks 0 .. n_ranks - 1 over the
    whole array and the window's class counts are kept in a Fenwick tree
    (``RankCounts``) instead of the score treap: same Props 1-2 increments of
    2U (an exact integer), but one flat array of 8 bytes per distinct score
    whose upper levels stay in cache, so a step costs about the same for a
    window of 10^3 as of 10^6 points, where the treap pays a memory latency
    for each of its ~2 ln w levels.  ``window`` <= 0 means every prefix.
    """
    cdef Py_ssize_t n = ranks.shape[0], index, leaving
    cdef int64_t twice_u = 0
    cdef RankCounts counts = RankCounts(n_ranks)
    with nogil:
        for index in range(n):
            # The point leaving the window goes first, then point ``index`` arrives.
            if 0 < window <= index:
                leaving = index - window
                counts.update(ranks[leaving], is_pos[leaving], -1)
                twice_u -= counts.pairs(ranks[leaving], is_pos[leaving])
            twice_u += counts.pairs(ranks[index], is_pos[index])
            counts.update(ranks[index], is_pos[index], 1)
            if counts.n_neg > 0 and counts.n_pos > 0:
                auc_out[index] = <double>twice_u / (2.0 * <double>counts.n_neg
                                                    * <double>counts.n_pos)
            else:
                auc_out[index] = NAN
