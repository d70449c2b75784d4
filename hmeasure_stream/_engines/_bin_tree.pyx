"""A segment tree of binned class weights: the binned AUC, its bound and its estimate.

Bouckaert, "Efficient AUC learning curve calculation", Sec. 4: with m bins of
class 0 and class 1 weights, the binned AUC counts every class 0 / class 1
pair of different bins as ordered by its bins and every pair within a bin as
a tie (one half); the error is at most the sum of the within-bin pairs over
two, and Sec. 4.2's random-walk estimate sums a term per bin.  All three are
sums over bins, or over pairs of bins ordered left to right, so a perfect
binary tree over the bins keeps them: a node's sums are computed from its
two children (never accumulated, so nothing drifts), an update changes one
leaf and recomputes its O(log m) ancestors, a read is O(1) at the root.
Better than the paper's O(sqrt m) anchor points.

A bin's weights are kept with Neumaier compensation and return to exactly
zero with the bin's last point of a class; with unit weights every sum is
an integer, exact below 2^53.  Weights are stored in units of a power of two
fixed by the first positive weight, as in the AUC engine (``_auc``): every
metric is the same bit for bit whatever the weights' common scale, and a
weight more than 2**400 times larger or smaller than that first one is
refused (``Status.OUT_OF_RANGE``).
"""

import numpy as np

from libc.math cimport NAN, sqrt
from libc.stdint cimport int64_t, uint8_t

from hmeasure_stream._engines._binning cimport bin_of
from hmeasure_stream._engines._numeric cimport compensated_add, stored_weight
from hmeasure_stream._engines._ring cimport PointRing
from hmeasure_stream._engines._protocol cimport (
    DONE,
    NOT_PRESENT,
    OUT_OF_RANGE,
    WEIGHT_EXCEEDS,
    point_weight,
    removal_exceeds,
    removal_leaves_weight,
)

from hmeasure_stream._engines._protocol import claim, release, stored_batch


cdef class BinTree:
    """Binned class weights over ``bins`` bins; see the module docstring."""

    def __cinit__(self, Py_ssize_t bins):
        self.bins = bins
        self.size = 1
        while self.size < bins:
            self.size *= 2
        self.n_points = 0
        self.inverse_scale = 0.0
        self.lo, self.span, self.transform, self.alpha = 0.0, 1.0, 0, 0.0
        self.sums_buffer = np.zeros((2 * self.size, 5), dtype=np.float64)
        self.count_buffer = np.zeros((bins, 2), dtype=np.int64)
        self.weight_buffer = np.zeros((bins, 2), dtype=np.float64)
        self.compensation_buffer = np.zeros((bins, 2), dtype=np.float64)
        self._bind()

    def _bind(self):
        cdef double[:, ::1] sums = self.sums_buffer
        cdef int64_t[:, ::1] count = self.count_buffer
        cdef double[:, ::1] weight = self.weight_buffer
        cdef double[:, ::1] compensation = self.compensation_buffer
        self.sums = <BinSums*>&sums[0, 0]
        self.count = &count[0, 0]
        self.weight = &weight[0, 0]
        self.compensation = &compensation[0, 0]

    cdef void leaf(self, Py_ssize_t bin_index) noexcept nogil:
        """A leaf's sums from its bin's weights."""
        cdef BinSums* node = &self.sums[self.size + bin_index]
        cdef double neg = self.weight[2 * bin_index] + self.compensation[2 * bin_index]
        cdef double pos = self.weight[2 * bin_index + 1] + self.compensation[2 * bin_index + 1]
        node.neg = neg
        node.pos = pos
        node.twice_area = neg * pos
        node.ties = neg * pos
        node.walk = sqrt(neg * neg + pos * pos) * sqrt(neg + pos)

    cdef void aggregate(self, Py_ssize_t node, BinSums* out) noexcept nogil:
        """A node's sums from its children's (reads only): the lower bins on the left."""
        cdef BinSums* low = &self.sums[2 * node]
        cdef BinSums* high = &self.sums[2 * node + 1]
        out.neg = low.neg + high.neg
        out.pos = low.pos + high.pos
        out.twice_area = low.twice_area + high.twice_area + 2.0 * low.neg * high.pos
        out.ties = low.ties + high.ties
        out.walk = low.walk + high.walk

    cdef void pull(self, Py_ssize_t node) noexcept nogil:
        self.aggregate(node, &self.sums[node])

    cdef int update(self, Py_ssize_t bin_index, bint is_pos, double weight,
                    bint adding) noexcept nogil:
        """One point in or out of a bin; its Status (nothing changes unless DONE)."""
        cdef Py_ssize_t slot = 2 * bin_index + is_pos, node
        cdef double held = self.weight[slot] + self.compensation[slot]
        cdef bint leaves = True
        if not adding:
            if self.count[slot] == 0:
                return NOT_PRESENT
            if removal_exceeds(weight, held):
                return WEIGHT_EXCEEDS
            # As in the sorted blocks: the last point of a bin leaves only with its
            # whole weight, so counts and weights stay in step.
            leaves = self.count[slot] > 1 or not removal_leaves_weight(weight, held)
        if leaves:
            self.count[slot] += 1 if adding else -1
            self.n_points += 1 if adding else -1
        if self.count[slot] == 0:
            self.weight[slot] = 0.0
            self.compensation[slot] = 0.0
        else:
            compensated_add(&self.weight[slot], &self.compensation[slot],
                            weight if adding else -min(weight, held))
        self.leaf(bin_index)
        node = (self.size + bin_index) // 2
        while node >= 1:
            self.pull(node)
            node //= 2
        return DONE

    cdef double _auc(self) noexcept nogil:
        cdef BinSums* top = &self.sums[1]
        if not (top.neg > 0.0 and top.pos > 0.0):
            return NAN
        return top.twice_area / (2.0 * top.neg * top.pos)

    # ------------------------------------------------------------------
    # Entry points for the validated public layer.

    def set_binning(self, double lo, double span, int transform, double alpha):
        """The frozen bin rule of ``slide`` (see ``_binning``)."""
        self.lo, self.span, self.transform, self.alpha = lo, span, transform, alpha

    @property
    def columns(self):
        """The metric ``slide`` records."""
        return ("auc_binned",)

    @property
    def auc_binned(self):
        return self._auc()

    def value(self, name):
        """The current value of the column ``name`` of ``columns``."""
        return getattr(self, name)

    def slide(self, PointRing ring, is_pos_array, scores_array, weights_array, out_array):
        """A window's protocol (as the other engines'): add each point, remove the one it
        evicts from ``ring``, record the binned AUC in ``out[i, 0]``.  Returns -1, or
        the index of a weight that cannot be stored (nothing done)."""
        self._claim()
        try:
            return self._slide(ring, is_pos_array, scores_array, weights_array, out_array)
        finally:
            self._release()

    cdef Py_ssize_t _slide(self, PointRing ring, object is_pos_array, object scores_array,
                           object weights_array, object out_array) except -2:
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef double[:, ::1] out = out_array
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef double weight, left_score, left_weight
        cdef uint8_t left_is_pos
        stored, inverse, refused = stored_batch(weights_array, n, True, self.inverse_scale)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] weights = stored
        if ring.capacity:  # (a window's ring grows to the window as its points arrive)
            ring.reserve(n)
        self.inverse_scale = inverse
        with nogil:
            for index in range(n):
                weight = 1.0 if unit else weights[index]
                self.update(bin_of(scores[index], self.lo, self.span, self.bins, self.transform,
                                   self.alpha), is_pos[index], weight, True)
                if ring.push(is_pos[index], scores[index], weight,
                             &left_is_pos, &left_score, &left_weight):
                    self.update(bin_of(left_score, self.lo, self.span, self.bins,
                                       self.transform, self.alpha),
                                left_is_pos, left_weight, False)
                out[index, 0] = self._auc()
        self._forget_emptied()
        return -1

    cdef void _forget_emptied(self) noexcept:
        """An emptied structure forgets its scale (as the AUC engine)."""
        if self.n_points == 0:
            self.inverse_scale = 0.0

    def stored_weights(self, weights, Py_ssize_t n, bint adding):
        """(weights in stored units or None for all 1, index of the first that cannot be
        stored or -1); reads only."""
        stored, _, refused = stored_batch(weights, n, adding, self.inverse_scale)
        return stored, refused

    @property
    def scale(self):
        """What a stored weight of 1 stands for (a power of two; 1 while none is fixed)."""
        return 1.0 / self.inverse_scale if self.inverse_scale > 0.0 else 1.0

    def apply(self, const int64_t[::1] bin_indices, const unsigned char[::1] is_pos,
              weights_array, bint adding):
        """A checked batch of bin indices, weights in the caller's units; returns -1, or
        the index of a refused point (none run for a weight that cannot be stored, the
        rest not run for a refused removal)."""
        self._claim()
        try:
            return self._apply(bin_indices, is_pos, weights_array, adding)
        finally:
            self._release()

    cdef Py_ssize_t _apply(self, const int64_t[::1] bin_indices, const unsigned char[::1] is_pos,
                           object weights_array, bint adding) except -2:
        cdef Py_ssize_t index, n = bin_indices.shape[0]
        cdef int status = DONE
        stored, inverse, refused = stored_batch(weights_array, n, adding, self.inverse_scale)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] weights = stored
        if adding:
            self.inverse_scale = inverse
        with nogil:
            for index in range(n):
                status = self.update(bin_indices[index], is_pos[index],
                                     1.0 if unit else weights[index], adding)
                if status != DONE:
                    break
        self._forget_emptied()
        return index if status != DONE else -1

    def point(self, Py_ssize_t bin_index, bint is_pos, double weight, bint adding):
        """One checked point in or out of a bin (weight in the caller's units); its Status
        (nothing changes unless DONE)."""
        cdef double inverse, stored
        cdef int status
        self._claim()  # (nothing below raises: the release follows)
        if point_weight(weight, self.inverse_scale, adding, &stored, &inverse) != DONE:
            status = OUT_OF_RANGE if adding else WEIGHT_EXCEEDS
        else:
            status = self.update(bin_index, is_pos, stored, adding)
            if status == DONE and adding:
                self.inverse_scale = inverse
            self._forget_emptied()
        self._release()
        return status

    def holds(self, Py_ssize_t bin_index, bint is_pos, double weight):
        """Whether a bin holds a point of the class and ``weight`` (caller's units)."""
        cdef Py_ssize_t slot = 2 * bin_index + is_pos
        cdef double stored
        return (self.count[slot] > 0 and stored_weight(weight, self.inverse_scale, &stored)
                and not removal_exceeds(stored, self.weight[slot] + self.compensation[slot]))

    def add_counts(self, BinTree other):
        """Add another tree's bins (same number of bins): O(m).  Returns False, changing
        nothing, if its weights cannot be stored in this tree's units."""
        claim((self, other))
        try:
            return self._add_counts(other)
        finally:
            release((self, other))

    cdef bint _add_counts(self, BinTree other) except -1:
        cdef Py_ssize_t slot, node
        cdef double factor
        if other.inverse_scale == 0.0:
            factor = 1.0  # nothing of positive weight
        elif self.inverse_scale == 0.0:
            factor = 1.0
            self.inverse_scale = other.inverse_scale
        else:
            # Both scales are powers of two: their ratio is exact (as an exponent,
            # since it may leave the float range when the weights are far apart).
            shift = np.frexp(self.inverse_scale)[1] - np.frexp(other.inverse_scale)[1]
            with np.errstate(over="ignore", under="ignore"):
                theirs = np.ldexp(other.class_weights_stored(), shift)
            if np.any((theirs != 0.0) & ~((theirs >= 2.0 ** -400) & (theirs <= 2.0 ** 400))):
                return False
            factor = np.ldexp(1.0, shift)
        for slot in range(2 * self.bins):
            self.count[slot] += other.count[slot]
            compensated_add(&self.weight[slot], &self.compensation[slot],
                            other.weight[slot] * factor)
            compensated_add(&self.weight[slot], &self.compensation[slot],
                            other.compensation[slot] * factor)
        self.n_points += other.n_points
        for slot in range(self.bins):
            self.leaf(slot)
        for node in range(self.size - 1, 0, -1):
            self.pull(node)
        return True

    def root(self):
        """(class 0 weight, class 1 weight, 2 x area, 2 x bound numerator, walk sum)."""
        cdef BinSums* top = &self.sums[1]
        return top.neg, top.pos, top.twice_area, top.ties, top.walk

    def class_weights_stored(self):
        """(bins, 2) class weights of the bins in stored units."""
        return self.weight_buffer + self.compensation_buffer

    def class_weights(self):
        """(bins, 2) class weights of the bins in the caller's units."""
        with np.errstate(over="ignore"):  # (totals beyond the float64 range are inf)
            return self.class_weights_stored() * self.scale

    @property
    def nbytes(self):
        buffers = (self.sums_buffer, self.count_buffer, self.weight_buffer,
                   self.compensation_buffer)
        return sum(buffer.nbytes for buffer in buffers)

    def _check(self):
        """Every node's sums equal their recomputation; counts and weights agree.  Reads only."""
        cdef BinSums expected
        cdef Py_ssize_t node
        counts = self.count_buffer
        weights = self.class_weights_stored()
        if self.inverse_scale == 0.0 and np.any(weights > 0):
            raise AssertionError("positive weight stored without a scale")
        if self.inverse_scale != 0.0 and (np.frexp(self.inverse_scale)[0] != 0.5
                                          or self.n_points == 0):
            raise AssertionError(f"inverse scale {self.inverse_scale!r} (power of two, "
                                 "0 when empty)")
        if np.any(counts < 0) or np.any(weights < 0):
            raise AssertionError("a negative count or weight")
        if np.any(weights[counts == 0] != 0):
            raise AssertionError("weight left in a bin without points of that class")
        if int(counts.sum()) != self.n_points:
            raise AssertionError(f"{int(counts.sum())} points in the bins, {self.n_points} held")
        leaves = np.zeros((self.size, 5))
        leaves[:self.bins, 0] = weights[:, 0]
        leaves[:self.bins, 1] = weights[:, 1]
        leaves[:self.bins, 2] = weights[:, 0] * weights[:, 1]
        leaves[:self.bins, 3] = weights[:, 0] * weights[:, 1]
        leaves[:self.bins, 4] = (np.sqrt(weights[:, 0] ** 2 + weights[:, 1] ** 2)
                                 * np.sqrt(weights[:, 0] + weights[:, 1]))
        if not np.array_equal(leaves, self.sums_buffer[self.size:]):
            raise AssertionError("a leaf's sums do not match its bin")
        for node in range(self.size - 1, 0, -1):
            self.aggregate(node, &expected)
            if (expected.neg, expected.pos, expected.twice_area, expected.ties,
                    expected.walk) != tuple(self.sums_buffer[node]):
                raise AssertionError(f"stale sums at node {node}")
        return True

    def __reduce__(self):
        return (_rebuild_bin_tree, (self.bins, self.n_points, self.sums_buffer,
                                    self.count_buffer, self.weight_buffer,
                                    self.compensation_buffer,
                                    (self.lo, self.span, self.transform, self.alpha),
                                    self.inverse_scale))


def _rebuild_bin_tree(bins, n_points, sums, count, weight, compensation, binning,
                      inverse_scale):
    cdef BinTree tree
    buffers = tuple(np.array(buffer, copy=True)
                    for buffer in (sums, count, weight, compensation))
    try:
        # (The bins are checked against the pickle's buffers before any is allocated.)
        if not (isinstance(bins, int) and 1 <= bins and buffers[1].shape == (bins, 2)):
            raise ValueError(f"{bins!r} bins for counts of shape {buffers[1].shape}")
        tree = BinTree(bins)
        tree.set_binning(*binning)
        tree.n_points = n_points
        tree.inverse_scale = inverse_scale
        for buffer, model in zip(buffers, (tree.sums_buffer, tree.count_buffer,
                                           tree.weight_buffer, tree.compensation_buffer),
                                 strict=True):
            if buffer.dtype != model.dtype or buffer.shape != model.shape:
                raise ValueError(f"a buffer is {buffer.dtype} {buffer.shape}, not "
                                 f"{model.dtype} {model.shape}")
        if np.any(buffers[1] < 0) or int(buffers[1].sum()) != n_points:
            raise ValueError(f"counts out of range or not adding up to {n_points} points")
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle these bins: {error}") from None
    (tree.sums_buffer, tree.count_buffer, tree.weight_buffer,
     tree.compensation_buffer) = buffers
    tree._bind()
    return tree
