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
from libc.stdint cimport int32_t

from hmeasure_stream._engines._numeric cimport compensated_add
from hmeasure_stream._engines._protocol cimport DONE, PointEngine
from hmeasure_stream._engines._treap cimport NodeSums, NodeWeights, ScoreTreap


cdef class AUCEngine(PointEngine):
    """Exact AUC under insertion and deletion; see the module docstring."""

    def __cinit__(self, *args, **kwargs):
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0

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
            if self.tree.n_points == 0:
                self.twice_u = 0.0
                self.twice_u_compensation = 0.0
        return DONE

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """The AUC of the current points into ``out[row, 0]``."""
        out[row, 0] = self._auc()

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
        return ("auc",)

    @property
    def auc(self):
        return self._auc()

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
    def unit_weights(self):
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

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_auc_engine, (self.tree, self.twice_u, self.twice_u_compensation,
                                      self.inverse_scale, self.newest_decay))


def _rebuild_auc_engine(tree, twice_u, compensation, inverse_scale, newest_decay):
    cdef AUCEngine engine = AUCEngine.__new__(AUCEngine)
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = inverse_scale
    engine.newest_decay = newest_decay
    return engine
