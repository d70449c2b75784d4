"""Compiled engine of DynamicAUC and of ``sliding_window``'s AUC (seed 000, Sec. 4).

2U (twice the Mann-Whitney statistic) changes by Props 1-2 when a point is
added or removed: a class 1 point at score s pairs with the class 0 weight
below s (2 each) and at s (1 each); a class 0 point with the class 1 weight
above s and at s.  The treap returns those weights on the way down.

With unit weights every quantity is an integer, so 2U is exact.  With other
weights the increments are rounded; 2U is then recomputed from the tree (an
O(n) in-order pass) once per max(n, 1024) updates, so the value never drifts
and the amortised cost stays O(log n).
"""

import numpy as np

from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t, uint8_t

from hmeasure_stream._scratch cimport compensated_add
from hmeasure_stream._treap cimport ScoreTreap


cdef class AUCEngine:
    """Exact AUC under insertion and deletion; see the module docstring."""

    def __cinit__(self, Py_ssize_t capacity=16, seed=None, ScoreTreap tree=None):
        self.tree = ScoreTreap(capacity, seed) if tree is None else tree
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.exact = True
        self.updates_since_rebuild = 0

    cdef int _add(self, bint is_pos, double score, double weight) except -1 nogil:
        cdef double below_neg, above_pos, at_neg, at_pos
        self.tree.add(score, is_pos, weight, &below_neg, &above_pos, &at_neg, &at_pos)
        if is_pos:
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            weight * (2.0 * below_neg + at_neg))
        else:
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            weight * (2.0 * above_pos + at_pos))
        self.exact = self.exact and weight == 1.0
        self._after_update()
        return 0

    cdef int _remove(self, bint is_pos, double score, double weight) except -1 nogil:
        cdef double below_neg, above_pos, at_neg, at_pos
        cdef int status = self.tree.remove(score, is_pos, weight,
                                           &below_neg, &above_pos, &at_neg, &at_pos)
        if status != 0:
            return status
        # The pairs the point took part in, counted on the tree before removal.
        if is_pos:
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            -weight * (2.0 * below_neg + at_neg))
        else:
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            -weight * (2.0 * above_pos + at_pos))
        self._after_update()
        return 0

    cdef void _after_update(self) noexcept nogil:
        if self.tree.n_points == 0:
            # Empty again: every trace of rounding goes with the points.
            self.twice_u = 0.0
            self.twice_u_compensation = 0.0
            self.exact = True
            self.updates_since_rebuild = 0
        elif not self.exact:
            self.updates_since_rebuild += 1
            if self.updates_since_rebuild > max(<int64_t>self.tree.n_nodes, 1024):
                self._recompute_twice_u()

    cdef void _recompute_twice_u(self) noexcept nogil:
        """2U from scratch by an in-order pass over the tree (seed 000, Alg. 1)."""
        cdef int32_t node = self.tree.root, depth = 0
        cdef double total = 0.0, total_compensation = 0.0
        cdef double below = 0.0, below_compensation = 0.0
        while depth > 0 or node >= 0:
            while node >= 0:
                if depth == self.tree.path_capacity:
                    self.tree._grow_path()
                self.tree.path[depth] = node
                depth += 1
                node = self.tree.left[node]
            depth -= 1
            node = self.tree.path[depth]
            compensated_add(&total, &total_compensation, self.tree.weight_pos[node]
                            * (2.0 * (below + below_compensation) + self.tree.weight_neg[node]))
            compensated_add(&below, &below_compensation, self.tree.weight_neg[node])
            node = self.tree.right[node]
        self.twice_u = total
        self.twice_u_compensation = total_compensation
        self.updates_since_rebuild = 0

    cdef double _auc(self) noexcept nogil:
        cdef int32_t root = self.tree.root
        cdef double weight_neg, weight_pos
        if root < 0:
            return NAN
        weight_neg = self.tree.subtree_neg[root]
        weight_pos = self.tree.subtree_pos[root]
        if not (weight_neg > 0.0 and weight_pos > 0.0):
            return NAN
        # Rounding with float weights may leave 2U a few ulps outside [0, 2 N P].
        return min(max((self.twice_u + self.twice_u_compensation)
                       / (2.0 * weight_neg * weight_pos), 0.0), 1.0)

    # ------------------------------------------------------------------
    # Entry points for the validated Python layer (streaming.py).

    def add(self, bint is_pos, double score, double weight):
        self.tree.reserve(1)
        self._add(is_pos, score, weight)

    def remove(self, bint is_pos, double score, double weight):
        """0 on success, 1 if no such point, 2 if the weight exceeds what is there."""
        return self._remove(is_pos, score, weight)

    def add_many(self, const uint8_t[::1] is_pos, const double[::1] scores,
                 const double[::1] weights):
        cdef Py_ssize_t index, n = scores.shape[0]
        self.tree.reserve(n)
        with nogil:
            for index in range(n):
                self._add(is_pos[index], scores[index], weights[index])

    def remove_many(self, const uint8_t[::1] is_pos, const double[::1] scores,
                    const double[::1] weights):
        """Remove a batch checked by the caller; returns the index of a refusal or -1."""
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef int status = 0
        with nogil:
            for index in range(n):
                status = self._remove(is_pos[index], scores[index], weights[index])
                if status != 0:
                    break
        return index if status != 0 else -1

    def counts_at(self, const double[::1] scores, bint is_pos):
        """Number of points of one class at each of ``scores``."""
        counts = np.empty(scores.shape[0], dtype=np.int64)
        cdef int64_t[::1] out = counts
        cdef Py_ssize_t index
        with nogil:
            for index in range(scores.shape[0]):
                out[index] = self.tree.count_at(scores[index], is_pos)
        return counts

    def weights_at(self, const double[::1] scores, bint is_pos):
        """Weight of one class at each of ``scores`` (0 where absent)."""
        weights = np.zeros(scores.shape[0], dtype=np.float64)
        cdef double[::1] out = weights
        cdef Py_ssize_t index
        cdef int32_t node
        with nogil:
            for index in range(scores.shape[0]):
                node = self.tree.find(scores[index])
                if node >= 0:
                    out[index] = (self.tree.weight_pos[node] if is_pos
                                  else self.tree.weight_neg[node])
        return weights

    def sliding(self, const uint8_t[::1] is_pos, const double[::1] scores,
                const double[::1] weights, Py_ssize_t window, double[::1] auc_out):
        """AUC over the last ``window`` points after each point (window <= 0: all)."""
        cdef Py_ssize_t index, n = scores.shape[0]
        self.tree.reserve(n if window <= 0 else min(n, window + 1))
        with nogil:
            for index in range(n):
                self._add(is_pos[index], scores[index], weights[index])
                if 0 < window <= index:
                    self._remove(is_pos[index - window], scores[index - window],
                                 weights[index - window])
                auc_out[index] = self._auc()

    @property
    def auc(self):
        return self._auc()

    @property
    def weight_neg(self):
        return self.tree.subtree_neg[self.tree.root] if self.tree.root >= 0 else 0.0

    @property
    def weight_pos(self):
        return self.tree.subtree_pos[self.tree.root] if self.tree.root >= 0 else 0.0

    @property
    def twice_u_value(self):
        return self.twice_u + self.twice_u_compensation

    def _check(self):
        """The tree's invariants, and 2U against its recomputation from the tree."""
        self.tree._check()
        maintained = self.twice_u + self.twice_u_compensation
        saved = (self.twice_u, self.twice_u_compensation, self.updates_since_rebuild)
        self._recompute_twice_u()
        recomputed = self.twice_u + self.twice_u_compensation
        self.twice_u, self.twice_u_compensation, self.updates_since_rebuild = saved
        if self.exact and maintained != recomputed:
            raise AssertionError(f"exact 2U {maintained!r} != recomputed {recomputed!r}")
        if abs(maintained - recomputed) > 1e-12 * max(abs(recomputed), 1.0):
            raise AssertionError(f"2U {maintained!r} drifted from {recomputed!r}")
        return True

    def __reduce__(self):
        return (_rebuild_auc_engine, (self.tree, self.twice_u, self.twice_u_compensation,
                                      self.exact, self.updates_since_rebuild))


def _rebuild_auc_engine(tree, twice_u, compensation, exact, updates_since_rebuild):
    cdef AUCEngine engine = AUCEngine(tree=tree)
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.exact = exact
    engine.updates_since_rebuild = updates_since_rebuild
    return engine
