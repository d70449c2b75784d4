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
score treap (the hull engine): one set of entry points, each run by
``_guarded`` (claim the structure, run, release), one rule for an emptied
structure, one compiled fast path for single points.  A value the fast path
does not take comes back as ``Status.UNCHECKED``; the public layer then
validates it and calls again with plain Python values (engines never import
the public layer).

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

from libc.math cimport NAN, exp2, fabs, floor, isfinite, ldexp, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from hmeasure_stream._engines._fenwick cimport RankCounts
from hmeasure_stream._engines._numeric cimport (
    compensated_add,
    inverse_scale_of,
    stored_weight,
    wide_add,
    wide_difference,
    wide_product,
    wide_subtract,
    wide_times,
    wide_uint,
)
from hmeasure_stream._engines._ring cimport (
    RESCALE_EXPONENT,
    RETRACTED,
    Forgetting,
    PointRing,
    ring_slot,
)
from hmeasure_stream._engines._treap cimport (
    DONE,
    NOT_PRESENT,
    OUT_OF_RANGE,
    UNCHECKED,
    WEIGHT_EXCEEDS,
    ScoreTreap,
    removal_exceeds,
)


cdef inline bint _plain_label(object value, bint* is_pos):
    """A Python bool, or the int 0 or 1, as a label; False for anything else."""
    if value is True or value is False:
        is_pos[0] = value is True
        return True
    if type(value) is int and (value == 0 or value == 1):
        is_pos[0] = value == 1
        return True
    return False


cdef inline bint _plain_score(object value, double* score):
    """A finite Python float, or an int exact as a float64, as a score."""
    if type(value) is float:
        score[0] = value
        return isfinite(score[0])
    if type(value) is int and -2**53 <= value <= 2**53:
        score[0] = value
        return True
    return False


cdef inline bint _plain_weight(object value, double* weight):
    """A finite Python float >= 0 as a weight."""
    if type(value) is float:
        weight[0] = value
        return isfinite(weight[0]) and weight[0] >= 0.0
    return False


def stored_batch(weights, Py_ssize_t n, bint adding, double inverse_scale):
    """A batch's weights in a structure's units; reads only (shared by the engines).

    Returns ``(stored, inverse, refused)``: the weights times ``inverse``
    (None: all 1), the inverse scale to store them with (an addition's first
    positive weight fixes it while ``inverse_scale`` is 0: no scale yet), and
    the index of the first weight that cannot be stored, or -1.
    """
    cdef double inverse = inverse_scale
    if weights is None:
        if n == 0 or inverse == 1.0:
            return None, inverse, -1
        if inverse == 0.0:
            if adding:
                return None, 1.0, -1
            return None, inverse, 0  # unit weights, but nothing of positive weight is held
        weights = np.ones(n)
    weights = np.asarray(weights, dtype=np.float64)
    if inverse == 0.0 and adding:
        positive = np.flatnonzero(weights > 0.0)
        if positive.size:
            inverse = inverse_scale_of(weights[positive[0]])
    with np.errstate(over="ignore", under="ignore"):  # such weights are refused below
        stored = weights * inverse
    bad = np.flatnonzero((weights != 0.0) & ~((stored >= 2.0 ** -400) & (stored <= 2.0 ** 400)))
    return stored, inverse, (bad[0] if bad.size else -1)


# Batches through a window (``Forgetting``) reserve room for _BLOCK points at a time.
cdef Py_ssize_t _BLOCK = 4096


cdef class AUCEngine:
    """Exact AUC under insertion and deletion; see the module docstring."""

    def __cinit__(self, *args, **kwargs):
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.busy = False
        self.inverse_scale = 0.0
        self.square_pos.low = self.square_pos.high = 0
        self.square_neg.low = self.square_neg.high = 0
        self.newest_decay = 1.0
        self.interval = False
        self.quantile_low = NAN
        self.quantile_high = NAN

    def __init__(self, Py_ssize_t capacity=16, seed=None):
        self.tree = ScoreTreap(capacity, seed)

    cdef int _check_idle(self) except -1:
        """Refuse while an operation (perhaps in another thread) holds the structure."""
        if self.busy:
            raise RuntimeError(
                "the structure is being modified by another thread (a batch operation "
                "is running); share it between threads only under a lock"
            )
        return 0

    cdef object _guarded(self, Operation operation, object first, object second, object third,
                         object fourth):
        """Claim the structure, run one operation, apply the emptied rule, release.

        Every entry point runs here.  Check and claim happen with the GIL
        held and nothing in between, so two threads can never both pass; the
        claim covers the whole operation, its preparation (which may run
        Python code, where threads switch) included.
        """
        self._check_idle()
        self.busy = True
        try:
            if operation == ADD_POINT or operation == REMOVE_POINT:
                result = self._point(first, second, third, operation == ADD_POINT)
            elif operation == ADD_BATCH or operation == REMOVE_BATCH:
                result = self._batch(first, second, third, operation == ADD_BATCH)
            elif operation == SLIDE:
                result = self._slide(first[0], first[1], first[2], second, third)
            elif operation == FORGET_POINT:
                result = self._forget_point(first[0], first[1], second, third, fourth)
            elif operation == FORGET_BATCH:
                result = self._forget_batch(first[0], first[1], first[2], first[3], second,
                                            third, fourth)
            elif operation == FORGET_REMOVE:
                result = self._forget_remove(first, second, third, fourth)
            else:
                result = self._read()
            if self.tree.n_points == 0:
                # The one emptied-structure rule: back to exact unit mode.
                self.twice_u = 0.0
                self.twice_u_compensation = 0.0
                self.inverse_scale = 0.0
                self.square_pos.low = self.square_pos.high = 0
                self.square_neg.low = self.square_neg.high = 0
                if self.tree.weighted:
                    self.tree.make_unit()
        finally:
            self.busy = False
        return result

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        """With the GIL, before a mutation: weighted mode if needed, room for the points."""
        if weighted and not self.tree.weighted:
            self.tree.make_weighted()
        self.tree.reserve(new_points)
        return 0

    cdef int _point(self, object y_true, object y_score, object weight, bint adding) except -1:
        cdef bint is_pos
        cdef double score, point_weight, inverse = self.inverse_scale
        if not (_plain_label(y_true, &is_pos) and _plain_score(y_score, &score)
                and _plain_weight(weight, &point_weight)):
            return UNCHECKED
        if point_weight != 1.0 or inverse != 1.0:
            if inverse == 0.0 and adding and point_weight > 0.0:
                inverse = inverse_scale_of(point_weight)
            if not stored_weight(point_weight, inverse, &point_weight):
                if adding:
                    return OUT_OF_RANGE
                return WEIGHT_EXCEEDS if self.tree.count_at(score, is_pos) else NOT_PRESENT
        if adding:
            self._reserve(1, point_weight != 1.0)
            self.inverse_scale = inverse
        elif point_weight != 1.0 and not self.tree.weighted:
            # Every point present weighs 1.
            return WEIGHT_EXCEEDS if self.tree.count_at(score, is_pos) else NOT_PRESENT
        return self._update(is_pos, score, point_weight, adding)

    cdef object _stored_weights(self, object weights, Py_ssize_t n, bint adding,
                                double* inverse, Py_ssize_t* refused):
        """A batch's weights in the structure's units (``stored_batch``), reading only."""
        stored, inverse[0], refused[0] = stored_batch(weights, n, adding, self.inverse_scale)
        return stored

    cdef Py_ssize_t _batch(self, object is_pos_array, object scores_array,
                           object weights_array, bint adding) except -2:
        """A checked batch; returns -1, or the index of a refused point (none of the batch
        run for a weight out of range; the rest not run for a refused removal).

        The arrays are taken as objects and viewed here, so that ``_guarded``,
        on every single point's path, holds no buffer views of its own.
        """
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef Py_ssize_t index, n = scores.shape[0], refused
        cdef double inverse
        cdef int status = DONE
        stored = self._stored_weights(weights_array, n, adding, &inverse, &refused)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] stored_view = None if unit else stored
        if adding:
            self._reserve(n, not unit and bool(np.any(stored != 1.0)))
            self.inverse_scale = inverse
        with nogil:
            for index in range(n):
                status = self._update(is_pos[index], scores[index],
                                      1.0 if unit else stored_view[index], adding)
                if status != DONE:
                    break
        return index if status != DONE else -1

    cdef Py_ssize_t _slide(self, PointRing ring, object is_pos_array, object scores_array,
                           object weights_array, object out_array) except -2:
        """Add each point, remove the one it evicts from ``ring``, record the metrics.

        ``out[i]`` receives the metrics after point i (``_record``; ``columns``
        names them).  The ring keeps the weights in the structure's units.
        Returns -1, or the index of a weight that cannot be stored (nothing done).
        """
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef double[:, ::1] out = out_array
        cdef Py_ssize_t index, n = scores.shape[0], refused
        cdef double weight, left_score, left_weight, inverse
        cdef uint8_t left_is_pos
        stored = self._stored_weights(weights_array, n, True, &inverse, &refused)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] stored_view = None if unit else stored
        self._reserve(n if ring.capacity == 0 else min(n, ring.capacity + 1),
                      not unit and bool(np.any(stored != 1.0)))
        self.inverse_scale = inverse
        with nogil:
            for index in range(n):
                weight = 1.0 if unit else stored_view[index]
                self._update(is_pos[index], scores[index], weight, True)
                if ring.push(is_pos[index], scores[index], weight,
                             &left_is_pos, &left_score, &left_weight):
                    self._update(left_is_pos, left_score, left_weight, False)
                self._record(out, index)
        return -1

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
        """Unit mode: the sums of squared placement numerators after one point in or out.

        Called after 2U is updated.  The counts around the score are from
        before the change; a removal is the addition to the points without
        it, undone.  Adding a class 1
        point at s gives it a = 2 N< + N= (squared into ``square_pos``) and
        raises b by 2 for each class 0 point below s and by 1 for those at s:
        sum (b + 2)^2 - b^2 = 4 B + 4 N< over those below, where
        B = sum b = 2U(< s) + 2 N< (P> + P=), and N= (2 b= + 1) at s.  A class 0
        point likewise with the class 1 points above it, with the treap's
        ``pairs_above`` = 2U(> s).  The whole 2U (before the change) is
        2U(< s) + 2U(> s) + 2 N< (P> + P=) + N= (2 P> + P=), so
        B = 2U - 2U(> s) - N= (2 P> + P=).  Exact modulo 2**64 per
        term and 2**128 in the sums: the true values are below both for
        fewer than 2**31 points; 2U(> s) comes from the subtree pair weights,
        integers in doubles, exact while n0 n1 < 2**52.
        """
        cdef uint64_t below = <uint64_t>below_neg, above = <uint64_t>above_pos
        cdef uint64_t at_n = <uint64_t>at_neg, at_p = <uint64_t>at_pos, own, other, pairs
        cdef wide_uint* own_sum
        cdef wide_uint* other_sum
        if is_pos:
            if not adding:
                at_p -= 1
            own = 2 * below + at_n
            # 2U of the points without this one (2U is already updated).
            pairs = <uint64_t>(<int64_t>self.twice_u + <int64_t>self.twice_u_compensation)
            if adding:
                pairs -= own
            pairs -= <uint64_t>self.tree.pairs_above + at_n * (2 * above + at_p)
            other = 4 * pairs + 4 * below + at_n * (2 * (2 * above + at_p) + 1)
            own_sum = &self.square_pos
            other_sum = &self.square_neg
        else:
            if not adding:
                at_n -= 1
            own = 2 * above + at_p
            other = (4 * (<uint64_t>self.tree.pairs_above + 2 * (below + at_n) * above)
                     + 4 * above + at_p * (2 * (2 * below + at_n) + 1))
            own_sum = &self.square_neg
            other_sum = &self.square_pos
        if adding:
            wide_add(own_sum, own * own)
            wide_add(other_sum, other)
        else:
            wide_subtract(own_sum, own * own)
            wide_subtract(other_sum, other)

    cdef double _variance(self, double scale) noexcept nogil:
        """DeLong's variance of the AUC, weights as frequencies in units of ``scale``.

        With totals W1, W0 (stored units), placements V of mean A (the AUC)
        and q1 = sum u V^2 / W1: var = (q1 - A^2) / (scale W1 - 1) +
        (q0 - A^2) / (scale W0 - 1).  Unit mode: q1 - A^2 = (m Q1 - T^2) /
        (4 m^2 n^2), Q1 the exact ``square_pos``, T = 2U, formed exactly in 128
        bits and rounded once.  Weighted mode: from the root's aggregates.
        nan while a class holds a total weight <= 1 (in caller units), or
        without the tree's placements.
        """
        cdef int32_t root = self.tree.root
        cdef double weight_neg, weight_pos, twice_u, auc, denominator
        cdef double spread_pos, spread_neg
        cdef uint64_t count_neg, count_pos, pairs
        cdef wide_uint pairs_squared
        if root < 0 or not self.tree.placements:
            return NAN
        weight_neg = self.tree.subtree_neg[root]
        weight_pos = self.tree.subtree_pos[root]
        if not (scale * weight_neg > 1.0 and scale * weight_pos > 1.0):
            return NAN
        if not self.tree.weighted:
            count_neg = <uint64_t>weight_neg
            count_pos = <uint64_t>weight_pos
            pairs = <uint64_t>(<int64_t>self.twice_u + <int64_t>self.twice_u_compensation)
            pairs_squared = wide_product(pairs, pairs)
            denominator = 4.0 * (weight_neg * weight_pos) * (weight_neg * weight_pos)
            spread_pos = wide_difference(wide_times(self.square_pos, count_pos),
                                         pairs_squared) / denominator
            spread_neg = wide_difference(wide_times(self.square_neg, count_neg),
                                         pairs_squared) / denominator
        else:
            twice_u = self.tree.subtree_pairs[root]
            auc = twice_u / (2.0 * weight_neg * weight_pos)
            spread_pos = max(self.tree.squares[2 * root] / (4.0 * weight_neg * weight_neg)
                             / weight_pos - auc * auc, 0.0)
            spread_neg = max(self.tree.squares[2 * root + 1] / (4.0 * weight_pos * weight_pos)
                             / weight_neg - auc * auc, 0.0)
        return (spread_pos / (scale * weight_pos - 1.0)
                + spread_neg / (scale * weight_neg - 1.0))

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
        cdef double variance = NAN, spread
        if self.inverse_scale > 0.0:
            variance = self._variance(1.0 / (self.inverse_scale * self.newest_decay))
        out[0] = variance
        if variance != variance:
            out[1] = NAN
            out[2] = NAN
            return
        spread = sqrt(variance)
        out[1] = min(max(auc + spread * self.quantile_low, 0.0), 1.0)
        out[2] = min(max(auc + spread * self.quantile_high, 0.0), 1.0)

    cdef object _read(self):
        return self._auc()

    cdef double _auc(self) noexcept nogil:
        cdef int32_t root = self.tree.root
        cdef double weight_neg, weight_pos, twice_u
        if root < 0:
            return NAN
        weight_neg = self.tree.subtree_neg[root]
        weight_pos = self.tree.subtree_pos[root]
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
        cdef int field
        cdef double* fields[6]
        cdef double* pairs = self.tree.subtree_pairs
        cdef double cube = factor * factor * factor
        cdef double* squares = self.tree.squares
        if not self.tree.weighted:
            return
        fields[0] = self.tree.weight_neg
        fields[1] = self.tree.weight_pos
        fields[2] = self.tree.weight_neg_comp
        fields[3] = self.tree.weight_pos_comp
        fields[4] = self.tree.subtree_neg
        fields[5] = self.tree.subtree_pos
        for slot in range(self.tree.capacity):
            for field in range(6):
                fields[field][slot] *= factor
            pairs[slot] *= factor * factor
            if self.tree.placements:
                squares[2 * slot] *= cube
                squares[2 * slot + 1] *= cube

    cdef int _forget_one(self, Forgetting forgetting, uint8_t is_pos, double score,
                         double weight, int64_t time, bint has_time) except -1 nogil:
        """One point in, through ``forgetting`` (a slot and a ring slot reserved).

        The points that leave before it arrives go first (oldest first; the
        retracted ones are only dropped from the ring); with decay its weight
        is stored times its decay factor, after rescaling every stored weight
        by 2^-k when that factor would pass 2^RESCALE_EXPONENT.
        """
        cdef Py_ssize_t slot
        cdef int64_t position
        cdef double exponent, shift, whole, factor
        cdef double* ring_weights
        if has_time:
            forgetting.newest_time = time
            forgetting.has_time = True
        else:
            time = forgetting.newest_time
        while forgetting.expired():
            slot = forgetting.ring.head
            if forgetting.ring.is_pos[slot] != RETRACTED:
                self._update(forgetting.ring.is_pos[slot], forgetting.ring.score[slot],
                             forgetting.ring.weight[slot], False)
                forgetting.live -= 1
            forgetting.ring.pop_oldest()
        if forgetting.half_life > 0.0:
            position = time if forgetting.decay_by_time else forgetting.step
            if forgetting.live == 0:
                forgetting.anchor = position
                forgetting.anchor_fraction = 0.0
            exponent = forgetting.exponent(position)
            if exponent > RESCALE_EXPONENT:
                whole = floor(exponent)
                factor = ldexp(1.0, -<int>whole)
                self._scale_weights(factor)
                ring_weights = forgetting.ring.weight
                for slot in range(forgetting.ring.slots):
                    ring_weights[slot] *= factor
                # The anchor moves by ``whole`` half-lives: an integer part and a
                # fraction below 1 (0 when the half-life is an integer).
                shift = forgetting.anchor_fraction + whole * forgetting.half_life
                forgetting.anchor += <int64_t>floor(shift)
                forgetting.anchor_fraction = shift - floor(shift)
                forgetting.rescales += 1
                exponent = forgetting.exponent(position)
            weight = weight * exp2(exponent)
            self.newest_decay = exp2(exponent)
        self._update(is_pos, score, weight, True)
        forgetting.ring.append(is_pos, score, weight, time)
        forgetting.step += 1
        forgetting.live += 1
        return 0

    cdef object _forget_point(self, Forgetting forgetting, object time, object y_true,
                              object y_score, object weight):
        """One point given as plain Python values (``time``: int nanoseconds or None)."""
        cdef bint is_pos
        cdef double score, point_weight, inverse = self.inverse_scale
        if not (_plain_label(y_true, &is_pos) and _plain_score(y_score, &score)
                and _plain_weight(weight, &point_weight)):
            return UNCHECKED
        if point_weight != 1.0 or inverse != 1.0:
            if inverse == 0.0 and point_weight > 0.0:
                inverse = inverse_scale_of(point_weight)
            if not stored_weight(point_weight, inverse, &point_weight):
                return OUT_OF_RANGE
        self._reserve(1, point_weight != 1.0 or forgetting.half_life > 0.0)
        self.inverse_scale = inverse
        forgetting.ring.reserve(1)
        self._forget_one(forgetting, is_pos, score, point_weight,
                         0 if time is None else time, time is not None)
        return DONE

    cdef Py_ssize_t _forget_batch(self, Forgetting forgetting, object times, object out,
                                  object held, object is_pos_array, object scores_array,
                                  object weights_array) except -2:
        """A checked batch through ``forgetting``; ``out[i]`` (unless None) gets the metrics
        after point i and ``held[i]`` (unless None) the number of points then held.  In
        blocks, so that a long batch on a short window reserves room for one block only:
        memory follows the window, not the batch.  Weights are stored in the structure's
        units (as ``_batch``); returns -1, or the index of a weight that cannot be
        stored (nothing done)."""
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef const int64_t[::1] time_view = times
        cdef double[:, ::1] out_view = out
        cdef int64_t[::1] held_view = held
        cdef Py_ssize_t index, start, stop, n = scores.shape[0], refused
        cdef double inverse
        cdef bint timed = times is not None, record = out is not None
        cdef bint count = held is not None
        stored = self._stored_weights(weights_array, n, True, &inverse, &refused)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] weights = stored
        self._reserve(0, forgetting.half_life > 0.0
                      or (not unit and bool(np.any(stored != 1.0))))
        self.inverse_scale = inverse
        for start in range(0, n, _BLOCK):
            stop = min(start + _BLOCK, n)
            self._reserve(stop - start, False)
            forgetting.ring.reserve(stop - start)
            with nogil:
                for index in range(start, stop):
                    self._forget_one(forgetting, is_pos[index], scores[index],
                                     1.0 if unit else weights[index],
                                     time_view[index] if timed else 0, timed)
                    if record:
                        self._record(out_view, index)
                    if count:
                        held_view[index] = forgetting.live
        return -1

    cdef object _forget_remove(self, Forgetting forgetting, object is_pos_array,
                               object scores_array, object weights_array):
        """Retract a checked batch from the window: each point is the oldest one there with
        its label, score and weight, not yet retracted.  Returns (-1, DONE), or (index,
        status) of the first point not found (nothing retracted)."""
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef const double[::1] weights = weights_array
        cdef PointRing ring = forgetting.ring
        cdef Py_ssize_t index, offset, slot, n = scores.shape[0]
        cdef double expected, stored
        cdef bint seen
        taken = np.zeros(ring.slots, dtype=np.uint8)
        cdef uint8_t[::1] taken_view = taken
        found = np.empty(n, dtype=np.intp)
        for index in range(n):
            seen = False
            found[index] = -1
            for offset in range(ring.size):
                slot = ring_slot(ring, offset)
                if (ring.is_pos[slot] != is_pos[index] or ring.score[slot] != scores[index]
                        or taken_view[slot]):
                    continue
                seen = True
                stored = ring.weight[slot]
                expected = (1.0 if weights is None else weights[index]) * self.inverse_scale
                if forgetting.half_life > 0.0:
                    expected *= exp2(forgetting.exponent(forgetting.position(offset)))
                if stored == expected or fabs(stored - expected) <= 1e-9 * max(stored, expected):
                    taken_view[slot] = 1
                    found[index] = slot
                    break
            if found[index] < 0:
                return index, WEIGHT_EXCEEDS if seen else NOT_PRESENT
        for index in range(n):
            slot = found[index]
            self._update(ring.is_pos[slot], ring.score[slot], ring.weight[slot], False)
            ring.is_pos[slot] = RETRACTED
            forgetting.live -= 1
        return -1, DONE

    def forget_add(self, Forgetting forgetting, y_true, y_score, weight=1.0, time=None):
        """Add one point (plain Python values) through ``forgetting``: DONE, UNCHECKED or
        OUT_OF_RANGE.

        ``time``: int nanoseconds, not before ``forgetting.newest_time`` (the
        caller checks), or None.
        """
        return self._guarded(FORGET_POINT, (forgetting, time), y_true, y_score, weight)

    def forget_add_many(self, Forgetting forgetting, is_pos, scores, weights=None, times=None,
                        out=None, held=None):
        """Add a checked batch through ``forgetting`` (``times``: int64 ns, non-decreasing
        from ``forgetting.newest_time``, or None); ``out[i]`` gets the metrics after point i
        (as ``slide``), ``held[i]`` (int64) the number of points then held.  Returns -1,
        or the index of a weight out of range (nothing is done)."""
        return self._guarded(FORGET_BATCH, (forgetting, times, out, held), is_pos, scores, weights)

    def forget_remove_many(self, Forgetting forgetting, is_pos, scores, weights=None):
        """Retract a checked batch from the window: (-1, DONE) or (index, Status)."""
        return self._guarded(FORGET_REMOVE, forgetting, is_pos, scores, weights)

    # ------------------------------------------------------------------
    # Entry points for the validated public layer.

    def add(self, y_true, y_score, weight=1.0):
        """Add one point given as plain Python values; returns DONE or UNCHECKED."""
        return self._guarded(ADD_POINT, y_true, y_score, weight, None)

    def remove(self, y_true, y_score, weight=1.0):
        """Remove one point; returns its Status (nothing changes unless DONE)."""
        return self._guarded(REMOVE_POINT, y_true, y_score, weight, None)

    def add_many(self, is_pos, scores, weights=None):
        """Add a checked batch (uint8 labels, float64 scores, float64 weights or None).

        Returns -1, or the index of a weight out of range (nothing is added).
        """
        return self._guarded(ADD_BATCH, is_pos, scores, weights, None)

    def remove_many(self, is_pos, scores, weights=None):
        """Remove a checked batch; returns -1, or the index of the first refusal."""
        return self._guarded(REMOVE_BATCH, is_pos, scores, weights, None)

    def slide(self, PointRing ring, is_pos, scores, weights, out):
        """Feed a checked chunk through a window ``ring``; ``out[i]`` gets the metrics.

        Returns -1, or the index of a weight out of range (nothing is done).
        """
        return self._guarded(SLIDE, (ring, is_pos, scores), weights, out, None)

    def read(self):
        """The engine's main metric, read under the claim (the AUC here)."""
        return self._guarded(READ, None, None, None, None)

    def counts_at(self, const double[::1] scores, bint is_pos):
        """Number of points of one class at each of ``scores``."""
        counts = np.empty(scores.shape[0], dtype=np.int64)
        cdef int64_t[::1] out = counts
        cdef Py_ssize_t index
        with nogil:
            for index in range(scores.shape[0]):
                out[index] = self.tree.count_at(scores[index], is_pos)
        return counts

    def stored_weights(self, weights, Py_ssize_t n, bint adding):
        """(weights in the structure's units or None for all 1, index of the first that
        cannot be stored or -1); reads only."""
        cdef double inverse
        cdef Py_ssize_t refused
        stored = self._stored_weights(weights, n, adding, &inverse, &refused)
        return stored, refused

    @property
    def scale(self):
        """What a stored weight of 1 stands for (a power of two; 1 while none is fixed)."""
        return 1.0 / self.inverse_scale if self.inverse_scale > 0.0 else 1.0

    def weights_at(self, const double[::1] scores, bint is_pos):
        """Weight of one class at each of ``scores`` (0 where absent), in the caller's units."""
        weights = np.zeros(scores.shape[0], dtype=np.float64)
        cdef double[::1] out = weights
        cdef Py_ssize_t index
        cdef int32_t node
        with nogil:
            for index in range(scores.shape[0]):
                node = self.tree.find(scores[index])
                if node >= 0:
                    out[index] = self.tree.node_pos(node) if is_pos else self.tree.node_neg(node)
        return weights * self.scale

    def first_excess(self, const double[::1] scores, bint is_pos, const double[::1] removed):
        """The first index whose ``removed`` weight (stored units) exceeds what its score
        holds, or -1."""
        cdef Py_ssize_t index
        cdef int32_t node
        cdef double held
        for index in range(scores.shape[0]):
            node = self.tree.find(scores[index])
            held = 0.0
            if node >= 0:
                held = self.tree.node_pos(node) if is_pos else self.tree.node_neg(node)
            if removal_exceeds(removed[index], held):
                return index
        return -1

    def items(self):
        """Keys in increasing order with their class weights (stored units) and counts."""
        return self.tree.items()

    def holds(self, bint is_pos, double score, double weight=1.0):
        """Whether ``remove`` would take this point: a point of that class at that score,
        and the weight there (``weight`` in the caller's units)."""
        cdef int32_t node = self.tree.find(score)
        cdef double held, stored
        if node < 0 or (self.tree.count_pos[node] if is_pos else self.tree.count_neg[node]) == 0:
            return False
        if not stored_weight(weight, self.inverse_scale, &stored):
            return False
        if not self.tree.weighted:
            return stored == 1.0
        held = self.tree.node_pos(node) if is_pos else self.tree.node_neg(node)
        return not removal_exceeds(stored, held)

    def fixed_level(self, bint spec_at_sens, double level):
        """R hmeasure's ``Spec.Sens`` (``spec_at_sens``) or ``Sens.Spec`` at ``level``.

        R's lookup (``Look.Up.AUC``) on the empirical class CDFs, read from the
        lowest score up: the first group where the CDF of one class exceeds
        its level, and the reversed interpolation weights R uses with the group
        below.  An order-statistic descent of the treap on the subtree class
        weights: O(log n).  The CDF values are formed as the from-scratch
        report forms them (1 - (N - prefix) / N), so that with unit weights
        every comparison, hence the value, is the same.  nan while a class
        is absent.
        """
        cdef int32_t node = self.tree.root, child
        cdef double total_neg, total_pos, total, x, prefix
        cdef double below_neg = 0.0, below_pos = 0.0, with_neg, with_pos
        cdef double x1, x2, y1, y2, weight_y2
        cdef bint found = False
        if node < 0:
            return NAN
        total_neg = self.tree.subtree_neg[node]
        total_pos = self.tree.subtree_pos[node]
        if not (total_neg > 0.0 and total_pos > 0.0):
            return NAN
        # Spec.Sens: the class 1 CDF against 1 - level; Sens.Spec: class 0 against level.
        total = total_pos if spec_at_sens else total_neg
        x = 1.0 - level if spec_at_sens else level
        while node >= 0:
            child = self.tree.left[node]
            with_neg = below_neg
            with_pos = below_pos
            if child >= 0:
                with_neg += self.tree.subtree_neg[child]
                with_pos += self.tree.subtree_pos[child]
                prefix = with_pos if spec_at_sens else with_neg
                if 1.0 - (total - prefix) / total > x:
                    node = child
                    continue
            below_neg = with_neg
            below_pos = with_pos
            with_neg += self.tree.node_neg(node)
            with_pos += self.tree.node_pos(node)
            prefix = with_pos if spec_at_sens else with_neg
            if 1.0 - (total - prefix) / total > x:
                found = True
                break
            below_neg = with_neg
            below_pos = with_pos
            node = self.tree.right[node]
        if not found:  # not reached for a level in (0, 1): the CDF ends at 1
            return NAN
        if spec_at_sens:
            x1 = 1.0 - (total_pos - below_pos) / total_pos
            x2 = 1.0 - (total_pos - with_pos) / total_pos
            y1 = 1.0 - (total_neg - below_neg) / total_neg
            y2 = 1.0 - (total_neg - with_neg) / total_neg
        else:
            x1 = 1.0 - (total_neg - below_neg) / total_neg
            x2 = 1.0 - (total_neg - with_neg) / total_neg
            y1 = 1.0 - (1.0 - (total_pos - below_pos) / total_pos)
            y2 = 1.0 - (1.0 - (total_pos - with_pos) / total_pos)
        if x2 - x1 > 0.0:
            weight_y2 = (x2 - x) / (x2 - x1)
            return (1.0 - weight_y2) * y1 + weight_y2 * y2
        return y2

    def weights_above(self, double threshold):
        """Class weights of the scores strictly above ``threshold``, and the class totals.

        ``(above_neg, above_pos, total_neg, total_pos)``.  What R hmeasure
        predicts as class 1 at a threshold (``s > threshold``): the treap's
        class weights below and at the threshold subtracted from the class
        totals.  O(log n).
        """
        cdef double below_neg, below_pos, total_neg, total_pos
        cdef int32_t node
        if self.tree.root < 0:
            return 0.0, 0.0, 0.0, 0.0
        node = self.tree.lcount(threshold, &below_neg, &below_pos)
        total_neg = self.tree.subtree_neg[self.tree.root]
        total_pos = self.tree.subtree_pos[self.tree.root]
        if node >= 0:
            below_neg += self.tree.node_neg(node)
            below_pos += self.tree.node_pos(node)
        return (max(total_neg - below_neg, 0.0), max(total_pos - below_pos, 0.0),
                total_neg, total_pos)

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

    def _interval_values(self):
        cdef double values[3]
        self._interval_into(self._auc(), values)
        return values[0], values[1], values[2]

    @property
    def auc_var(self):
        return self._interval_values()[0]

    @property
    def auc_lo(self):
        return self._interval_values()[1]

    @property
    def auc_hi(self):
        return self._interval_values()[2]

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
        if state is None:
            return
        square_pos, square_neg, self.interval, self.quantile_low, self.quantile_high, \
            self.newest_decay = state
        _set_wide(&self.square_pos, square_pos)
        _set_wide(&self.square_neg, square_neg)

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_auc_engine, (self.tree, self.twice_u, self.twice_u_compensation,
                                      self.inverse_scale, self._variance_state()))


def _rebuild_auc_engine(tree, twice_u, compensation, inverse_scale=None, variance=None):
    cdef AUCEngine engine = AUCEngine.__new__(AUCEngine)
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = stored_scale(tree, inverse_scale)
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


def stored_scale(ScoreTreap tree, inverse_scale):
    """``inverse_scale`` of a pickle; None (a pickle from before weights were scaled,
    stored as given): 1 when there are points."""
    if inverse_scale is None:
        return 1.0 if tree.n_points else 0.0
    return inverse_scale


cdef class ThresholdEngine(AUCEngine):
    """The AUC and R hmeasure's metrics at a threshold (``misclassCounts``) under updates.

    Records, after every step of ``slide``, the AUC and ER, Sens, Spec,
    Precision, F and Youden of the rule "class 1 when score > threshold":
    one descent of the treap, O(log n).  nan while a class is absent (and
    Precision and F where R has 0/0).
    """

    def __init__(self, double threshold, Py_ssize_t capacity=16, seed=None):
        AUCEngine.__init__(self, capacity, seed)
        self.threshold = threshold

    cdef void _threshold_metrics(self, double* out) noexcept nogil:
        """ER, Sens, Spec, Precision, F, Youden into out[0..5]."""
        cdef double below_neg, below_pos, total_neg, total_pos, tp, fp, tn, fn
        cdef double sens, spec, precision
        cdef int32_t root = self.tree.root, node
        cdef int k
        if root < 0 or not (self.tree.subtree_neg[root] > 0.0
                            and self.tree.subtree_pos[root] > 0.0):
            for k in range(6):
                out[k] = NAN
            return
        total_neg = self.tree.subtree_neg[root]
        total_pos = self.tree.subtree_pos[root]
        node = self.tree.lcount(self.threshold, &below_neg, &below_pos)
        if node >= 0:
            below_neg += self.tree.node_neg(node)
            below_pos += self.tree.node_pos(node)
        fp = max(total_neg - below_neg, 0.0)
        tp = max(total_pos - below_pos, 0.0)
        tn = total_neg - fp
        fn = total_pos - tp
        sens = tp / (tp + fn)
        spec = tn / (tn + fp)
        precision = tp / (tp + fp) if tp + fp > 0.0 else NAN
        out[0] = (fp + fn) / (tp + fp + tn + fn)
        out[1] = sens
        out[2] = spec
        out[3] = precision
        if precision != precision:
            out[4] = NAN
        elif precision == 0.0 or sens == 0.0:
            out[4] = 0.0
        else:
            out[4] = 2.0 / (1.0 / precision + 1.0 / sens)
        out[5] = sens + spec - 1.0

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        out[row, 0] = self._auc()
        self._threshold_metrics(&out[row, 1])

    def _metrics(self):
        cdef double values[6]
        self._threshold_metrics(values)
        return dict(zip(self.columns[1:], [values[k] for k in range(6)], strict=True))

    @property
    def columns(self):
        return ("auc", "er", "sens", "spec", "precision", "f", "youden")

    @property
    def er(self):
        return self._metrics()["er"]

    @property
    def sens(self):
        return self._metrics()["sens"]

    @property
    def spec(self):
        return self._metrics()["spec"]

    @property
    def precision(self):
        return self._metrics()["precision"]

    @property
    def f(self):
        return self._metrics()["f"]

    @property
    def youden(self):
        return self._metrics()["youden"]

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_threshold_engine, (self.threshold, self.tree, self.twice_u,
                                            self.twice_u_compensation, self.inverse_scale,
                                            self._variance_state()))


def _rebuild_threshold_engine(threshold, tree, twice_u, compensation, inverse_scale,
                              variance=None):
    cdef ThresholdEngine engine = ThresholdEngine.__new__(ThresholdEngine)
    engine.threshold = threshold
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = stored_scale(tree, inverse_scale)
    engine._restore_variance(variance)
    return engine


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
