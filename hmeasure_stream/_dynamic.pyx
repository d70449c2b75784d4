"""Compiled engine of DynamicAUC and of ``sliding_window``'s AUC (seed 000, Sec. 4).

2U (twice the Mann-Whitney statistic) changes by Props 1-2 when a point is
added or removed: a class 1 point at score s pairs with the class 0 weight
below s (2 each) and at s (1 each); a class 0 point with the class 1 weight
above s and at s.  The treap returns those weights on the way down.

With unit weights every quantity is an integer, so 2U, kept by these
increments, is exact.  The first other weight switches the treap to weighted
mode, where 2U is the root of a subtree aggregate of non-negative terms,
recomputed from the children on every update: no increment is accumulated,
so nothing can drift or cancel.
"""

import numpy as np

from hmeasure_stream._validation import (
    check_label_value,
    check_score_value,
    check_weight_value,
)

from libc.math cimport NAN, isfinite
from libc.stdint cimport int32_t, int64_t, uint8_t

from hmeasure_stream._scratch cimport compensated_add
from hmeasure_stream._treap cimport ScoreTreap


cdef inline bint _label(object value) except -1:
    """A label as a bool; Python bools and ints inline, anything else validated in Python."""
    if value is True:
        return True
    if value is False:
        return False
    if type(value) is int:
        if value == 1:
            return True
        if value == 0:
            return False
    return check_label_value(value)


cdef inline double _score(object value) except? -1.0:
    """A score as a double; finite Python floats inline, anything else validated in Python."""
    cdef double score
    if type(value) is float:
        score = value
        if isfinite(score):
            return score
    return check_score_value(value)


cdef inline double _weight(object value) except? -1.0:
    cdef double weight
    if type(value) is float:
        weight = value
        if isfinite(weight) and weight >= 0.0:
            return weight
    return check_weight_value(value)


cdef class AUCEngine:
    """Exact AUC under insertion and deletion; see the module docstring."""

    def __cinit__(self, Py_ssize_t capacity=16, seed=None, ScoreTreap tree=None):
        self.tree = ScoreTreap(capacity, seed) if tree is None else tree
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.busy = False

    cdef int _check_idle(self) except -1:
        """Refuse while another thread is modifying the structure."""
        if self.busy:
            raise RuntimeError(
                "the structure is being modified by another thread (a batch operation "
                "is running); share it between threads only under a lock"
            )
        return 0

    cdef int _enter(self) except -1:
        """Claim the structure for a mutation; the caller releases it (``busy = False``).

        Check and claim happen with the GIL held and nothing in between, so two
        threads can never both pass; the claim covers the whole operation, the
        preparation (which may run Python code, where threads switch) included.
        """
        self._check_idle()
        self.busy = True
        return 0

    cdef int _add(self, bint is_pos, double score, double weight) except -1 nogil:
        cdef double below_neg, above_pos, at_neg, at_pos
        self.tree.add(score, is_pos, weight, &below_neg, &above_pos, &at_neg, &at_pos)
        if not self.tree.weighted:
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            2.0 * below_neg + at_neg if is_pos else 2.0 * above_pos + at_pos)
        return 0

    cdef int _remove(self, bint is_pos, double score, double weight) except -1 nogil:
        cdef double below_neg, above_pos, at_neg, at_pos
        cdef int status = self.tree.remove(score, is_pos, weight,
                                           &below_neg, &above_pos, &at_neg, &at_pos)
        if status != 0:
            return status
        if not self.tree.weighted:
            # The pairs the point took part in, counted before its removal.
            compensated_add(&self.twice_u, &self.twice_u_compensation,
                            -(2.0 * below_neg + at_neg if is_pos else 2.0 * above_pos + at_pos))
        if self.tree.n_points == 0:
            self.twice_u = 0.0
            self.twice_u_compensation = 0.0
        return 0

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

    def _prepare(self, weights, Py_ssize_t new_points):
        """With the GIL, before a mutation: weighted mode if needed, room for the points.

        ``weights`` None means unit weights (no array is allocated for them).
        """
        if weights is not None and not self.tree.weighted and np.any(np.asarray(weights) != 1.0):
            self.tree.make_weighted()
        self.tree.reserve(new_points)

    def _settle(self):
        """After removals: an emptied tree returns to unit mode."""
        if self.tree.n_points == 0 and self.tree.weighted:
            self.tree.make_unit()

    # ------------------------------------------------------------------
    # Entry points for the validated Python layer (streaming.py).

    cdef int _admit_point(self, object y_true, object y_score, object weight, bint adding,
                          bint* is_pos, double* score, double* point_weight) except -1:
        """Validate one point and claim the structure for it; nothing changes if invalid.

        Shared by every engine built on this one; the caller holds the claim
        (``_enter``).  Adding: switches to
        weighted mode if needed and reserves a slot, returns 0.  Removing:
        returns 0 to go ahead, or the refusal status of ``remove`` when a
        weight other than 1 meets points that all weigh 1.
        """
        is_pos[0] = _label(y_true)
        score[0] = _score(y_score)
        point_weight[0] = _weight(weight)
        if adding:
            if point_weight[0] != 1.0 and not self.tree.weighted:
                self.tree.make_weighted()
            self.tree.reserve(1)
            return 0
        if point_weight[0] != 1.0 and not self.tree.weighted:
            return 2 if self.tree.count_at(score[0], is_pos[0]) else 1
        return 0

    def add(self, y_true, y_score, weight=1.0):
        """Validate one point (nothing changes if invalid), then add it."""
        cdef bint is_pos
        cdef double score, point_weight
        self._enter()
        try:
            self._admit_point(y_true, y_score, weight, True, &is_pos, &score, &point_weight)
            self._add(is_pos, score, point_weight)
        finally:
            self.busy = False

    def remove(self, y_true, y_score, weight=1.0):
        """Validate one point, then remove it.

        Returns 0 on success, 1 if no such point, 2 if the weight is not what
        is there; nothing changes unless 0 is returned.
        """
        cdef bint is_pos
        cdef double score, point_weight
        cdef int status
        self._enter()
        try:
            status = self._admit_point(y_true, y_score, weight, False,
                                       &is_pos, &score, &point_weight)
            if status == 0:
                status = self._remove(is_pos, score, point_weight)
                if self.tree.n_points == 0:
                    self._settle()
        finally:
            self.busy = False
        return status

    def add_many(self, const uint8_t[::1] is_pos, const double[::1] scores,
                 const double[::1] weights=None):
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef bint unit = weights is None
        self._enter()
        try:
            self._prepare(weights, n)
            with nogil:
                for index in range(n):
                    self._add(is_pos[index], scores[index], 1.0 if unit else weights[index])
        finally:
            self.busy = False

    def remove_many(self, const uint8_t[::1] is_pos, const double[::1] scores,
                    const double[::1] weights=None):
        """Remove a batch checked by the caller; returns the index of a refusal or -1."""
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef int status = 0
        cdef bint unit = weights is None
        self._enter()
        try:
            with nogil:
                for index in range(n):
                    status = self._remove(is_pos[index], scores[index],
                                          1.0 if unit else weights[index])
                    if status != 0:
                        break
        finally:
            self.busy = False
        self._settle()
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
                    out[index] = self.tree.node_pos(node) if is_pos else self.tree.node_neg(node)
        return weights

    def sliding(self, const uint8_t[::1] is_pos, const double[::1] scores,
                const double[::1] weights, Py_ssize_t window, double[::1] auc_out,
                Py_ssize_t start=0):
        """AUC over the last ``window`` points after each point (window <= 0: all).

        Processes points ``start`` .. n-1 of the arrays, writing ``auc_out[i - start]``;
        the structure must already hold the window ending just before ``start``
        (nothing when ``start`` is 0), which lets a stream arrive in chunks.
        ``weights`` None means unit weights.
        """
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef bint unit = weights is None
        self._enter()
        try:
            self._prepare(weights, n - start if window <= 0 else min(n - start, window + 1))
            with nogil:
                for index in range(start, n):
                    self._add(is_pos[index], scores[index], 1.0 if unit else weights[index])
                    if 0 < window <= index:
                        self._remove(is_pos[index - window], scores[index - window],
                                     1.0 if unit else weights[index - window])
                    auc_out[index - start] = self._auc()
        finally:
            self.busy = False

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
            if abs(maintained - recomputed) > 1e-12 * max(abs(recomputed), 1e-300):
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
        return True

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_auc_engine, (self.tree, self.twice_u, self.twice_u_compensation))


def _rebuild_auc_engine(tree, twice_u, compensation):
    cdef AUCEngine engine = AUCEngine(tree=tree)
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    return engine


cdef inline void _rank_counts(const int32_t[::1] tree, Py_ssize_t rank,
                              int64_t* below_neg, int64_t* below_pos) noexcept nogil:
    """Class counts at ranks < ``rank`` from a Fenwick tree of interleaved (neg, pos) pairs."""
    cdef int64_t neg = 0, pos = 0
    cdef Py_ssize_t slot = rank  # the tree is 1-based: slot r covers ranks (r - lowbit(r), r]
    while slot > 0:
        neg += tree[2 * slot]
        pos += tree[2 * slot + 1]
        slot &= slot - 1
    below_neg[0] = neg
    below_pos[0] = pos


cdef inline void _rank_update(int32_t[::1] tree, int32_t[::1] at, Py_ssize_t rank,
                              bint is_pos, int32_t change) noexcept nogil:
    """Count a point in (change 1) or out (-1) at ``rank``: the counts at the rank and the tree."""
    cdef Py_ssize_t slot = rank + 1, size = tree.shape[0] // 2
    at[2 * rank + is_pos] += change
    while slot < size:
        tree[2 * slot + is_pos] += change
        slot += slot & -slot


cdef inline int64_t _rank_pairs(const int32_t[::1] tree, const int32_t[::1] at, Py_ssize_t rank,
                                bint is_pos, int64_t n_pos) noexcept nogil:
    """2 x the pairs a point at ``rank`` forms with the counted points (Props 1-2).

    Class 1: 2 per class 0 point below, 1 per class 0 point at the rank; class 0:
    2 per class 1 point above (of ``n_pos``), 1 per class 1 point at the rank.
    """
    cdef int64_t below_neg, below_pos
    _rank_counts(tree, rank, &below_neg, &below_pos)
    if is_pos:
        return 2 * below_neg + at[2 * rank]
    return 2 * (n_pos - below_pos - at[2 * rank + 1]) + at[2 * rank + 1]


def sliding_auc_ranked(const uint8_t[::1] is_pos, const int64_t[::1] ranks,
                       Py_ssize_t n_ranks, Py_ssize_t window, double[::1] auc_out):
    """``sliding_window``'s AUC with unit weights when the whole stream is known.

    The scores are replaced by their dense ranks 0 .. n_ranks - 1 over the
    whole array, so the window's class counts below a score are a prefix sum
    of a Fenwick tree indexed by rank instead of a descent of the score treap.
    Same Props 1-2 increments of 2U (an exact integer), but the tree is one
    flat array of 8 bytes per distinct score whose upper levels stay in cache:
    a step costs about the same for a window of 10^3 as of 10^6 points, where
    the treap pays a memory latency for each of its ~2 ln w levels.
    ``window`` <= 0 means every prefix.
    """
    cdef Py_ssize_t n = ranks.shape[0], index, leaving
    cdef int64_t n_neg = 0, n_pos = 0, twice_u = 0
    # Counts fit int32 because the caller sends fewer than 2^31 points.
    fenwick = np.zeros(2 * (n_ranks + 1), dtype=np.int32)
    at_rank = np.zeros(2 * n_ranks, dtype=np.int32)
    cdef int32_t[::1] tree = fenwick
    cdef int32_t[::1] at = at_rank
    with nogil:
        for index in range(n):
            # The point leaving the window goes first, then point ``index`` arrives.
            if 0 < window <= index:
                leaving = index - window
                _rank_update(tree, at, ranks[leaving], is_pos[leaving], -1)
                twice_u -= _rank_pairs(tree, at, ranks[leaving], is_pos[leaving], n_pos)
                if is_pos[leaving]:
                    n_pos -= 1
                else:
                    n_neg -= 1
            twice_u += _rank_pairs(tree, at, ranks[index], is_pos[index], n_pos)
            _rank_update(tree, at, ranks[index], is_pos[index], 1)
            if is_pos[index]:
                n_pos += 1
            else:
                n_neg += 1
            if n_neg > 0 and n_pos > 0:
                auc_out[index] = <double>twice_u / (2.0 * <double>n_neg * <double>n_pos)
            else:
                auc_out[index] = NAN
