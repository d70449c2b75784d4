"""Exact AUC under insertion and deletion on the score treap: the base of ApproxAUC's engine.

Tatti, "Maintaining AUC and H-measure over time", Sec. 4.  2U (twice the
Mann-Whitney statistic) changes by Props 1-2 when a point is added or
removed: a class 1 point at score s pairs with the class 0 points below s
(2 each) and at s (1 each); a class 0 point with the class 1 points above s
and at s.  The treap returns those counts on the way down.  Every quantity
is an integer, so 2U, kept by these increments, is exact.

The treap is ApproxAUC's own structure: the compressed lists of Tatti's
"Efficient estimation of AUC in a sliding window" are threaded through its
nodes (``_approx_auc``), which keep their slots while the points change.
Every other structure keeps its points in the sorted blocks (``_blocked``).
The entry points are those of ``PointEngine`` (``_protocol``): each run by
``_guarded`` (claim the structure, run, release), one rule for an emptied
structure, one compiled fast path for single points; ``AUCEngine`` fills in
its hooks on the treap.  Unit weights only (the compressed list's Lemma 1
relies on counts changing by one): weights all equal to one constant are
stored as 1, any other weight is refused.
"""

import numpy as np

from libc.math cimport NAN
from libc.stdint cimport int32_t

from hmeasure_stream._engines._numeric cimport compensated_add
from hmeasure_stream._engines._protocol cimport DONE, PointEngine
from hmeasure_stream._engines._treap cimport ScoreTreap


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
        return False

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
        return 0

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        """With the GIL, before a mutation: room for the points (unit weights only: the
        public layer refuses others first; this guards the invariants)."""
        if weighted:
            raise ValueError("the score treap takes unit weights only")
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
        cdef double weight_neg, weight_pos
        if root < 0:
            return NAN
        weight_neg = self.tree.sums[root].subtree_neg
        weight_pos = self.tree.sums[root].subtree_pos
        if not (weight_neg > 0.0 and weight_pos > 0.0):
            return NAN
        return (self.twice_u + self.twice_u_compensation) / (2.0 * weight_neg * weight_pos)

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """Nothing: unit weights are never rescaled (no decay)."""
        return

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
        return True

    def _check(self):
        """The tree's invariants, and 2U against a recomputation from the tree."""
        self.tree._check()
        _, weight_neg, weight_pos, count_neg, count_pos = self.tree.items()
        below = 0
        recomputed = 0
        for negatives, positives in zip(count_neg.tolist(), count_pos.tolist()):
            recomputed += positives * (2 * below + negatives)
            below += negatives
        maintained = self.twice_u + self.twice_u_compensation
        if maintained != recomputed:
            raise AssertionError(f"exact 2U {maintained!r} != recomputed {recomputed}")
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
