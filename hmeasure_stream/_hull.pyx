"""Compiled engine of DynamicH: the ROC convex hull under insertion and deletion.

Seed 000, Secs. 5.1-5.3, after Overmars and van Leeuwen.  The score treap
(``_treap``) orders the distinct scores; every treap node owns one chain
vertex (``_chain``) for its own group of points and stands for the hull of
its subtree's ROC points.  The ROC curve runs from the highest score down,
so in chain order a subtree is its right part, the node, its left part:

    hull(v) = merge(merge(hull(right), own(v)), hull(left)).

Only the root holds its hull as a chain.  Every other node's hull is shared
out between its parent's hull and the two undo records (``Merge``) its parent
keeps, so every vertex lives in exactly one chain: O(n) memory.

An update first *opens* the nodes on the score's search path, top-down (and
both spines below the score, which a deletion's join rewires): opening
undoes the node's two merges, handing each child its full hull.  Then the
treap (and the AUC) changes, and the opened nodes are *closed* again,
bottom-up, by two merges each.  O(log n) merges of O(log n) each: O(log^2 n).

The chains carry the H-measure's loss terms (priors from the data) and the
area under the hull, so H and the AUCH are read at the root in O(1).
"""

import numpy as np

from libc.math cimport NAN, isnan
from libc.stdint cimport int32_t, uint8_t

from hmeasure_stream._chain cimport (
    ChainPool,
    Merge,
    SubsetWalk,
    edge_loss,
    integer_order_of,
    subset_edge,
)
from hmeasure_stream._dynamic cimport AUCEngine
from hmeasure_stream._treap cimport ScoreTreap

from hmeasure_stream._treap import grown_buffer

# The layout of hmeasure_stream._chain.Merge, for the buffer of undo records.
MERGE_DTYPE = np.dtype(
    [("keep_left", np.int32), ("rest_left", np.int32), ("rest_right", np.int32),
     ("saved_neg", np.float64), ("saved_pos", np.float64), ("saved_h", np.float64),
     ("right_kept", np.int32)],
    align=True,
)


# States of a node during an update (``opened``): closed (0), both merges undone,
# only the outer merge undone.
cdef enum:
    _FULLY_OPEN = 1
    _OUTER_OPEN = 2


cdef struct ApproxSpec:
    double epsilon
    double pi0            # nan: the priors of the current points
    double pi1
    double alpha
    double beta
    bint ratio_from_priors


cdef ApproxSpec _approx_spec(double epsilon, double pi0, double pi1, double alpha, double beta,
                             bint ratio_from_priors):
    cdef ApproxSpec spec
    spec.epsilon = epsilon
    spec.pi0 = pi0
    spec.pi1 = pi1
    spec.alpha = alpha
    spec.beta = beta
    spec.ratio_from_priors = ratio_from_priors
    return spec


cdef class HullEngine:
    """Exact ROC hull, H-measure (priors from the data), AUCH and AUC under updates."""

    cdef readonly AUCEngine auc_engine
    cdef readonly ScoreTreap base       # the AUC engine's score treap
    cdef readonly ChainPool chains
    cdef public object own_buffer       # chain vertex of each node's own group
    cdef public object hull_buffer      # the node's hull while it holds it, else -1
    # A node's hull is merge(merge(hull(right), own), hull(left)) ("outer left") or
    # merge(hull(right), merge(own, hull(left))) ("outer right"); undo records of both merges.
    cdef public object merge_inner_buffer
    cdef public object merge_outer_buffer
    cdef public object outer_right_buffer   # 1: the outer merge is with the right child
    cdef public object opened_buffer
    cdef int32_t* own
    cdef int32_t* hull
    cdef Merge* merge_inner
    cdef Merge* merge_outer
    cdef uint8_t* outer_right
    cdef uint8_t* opened
    cdef int32_t slots
    cdef readonly double alpha
    cdef readonly double beta

    def __cinit__(self, double alpha=2.0, double beta=2.0, Py_ssize_t capacity=16, seed=None,
                  AUCEngine auc_engine=None, ChainPool chains=None):
        if sizeof(Merge) != MERGE_DTYPE.itemsize:
            raise RuntimeError("the Merge record and its numpy dtype disagree")
        self.alpha = alpha
        self.beta = beta
        self.auc_engine = AUCEngine(capacity, seed) if auc_engine is None else auc_engine
        self.base = self.auc_engine.tree
        if chains is None:
            chains = ChainPool(capacity, None if seed is None else seed + 1, alpha, beta)
        self.chains = chains
        self.slots = 0
        self._sync()

    def _sync(self):
        """Grow the per-node buffers to the treap's capacity (new slots: no hull, closed)."""
        cdef Py_ssize_t old = self.slots, new = self.base.capacity
        if new == old and self.own != NULL:
            return  # the common case of a single point: nothing to grow or rebind
        if new > old:
            self.own_buffer = grown_buffer(self.own_buffer, new, np.int32, -1)
            self.hull_buffer = grown_buffer(self.hull_buffer, new, np.int32, -1)
            self.merge_inner_buffer = grown_buffer(self.merge_inner_buffer, new, MERGE_DTYPE, 0)
            self.merge_outer_buffer = grown_buffer(self.merge_outer_buffer, new, MERGE_DTYPE, 0)
            self.opened_buffer = grown_buffer(self.opened_buffer, new, np.uint8, 0)
            self.outer_right_buffer = grown_buffer(self.outer_right_buffer, new, np.uint8, 0)
            self.slots = <int32_t>new
        self._bind()

    def _bind(self):
        cdef int32_t[::1] own = self.own_buffer
        cdef int32_t[::1] hull = self.hull_buffer
        cdef uint8_t[::1] opened = self.opened_buffer
        cdef uint8_t[::1] outer_right = self.outer_right_buffer
        cdef signed char[::1] merge_inner = self.merge_inner_buffer.view(np.int8)
        cdef signed char[::1] merge_outer = self.merge_outer_buffer.view(np.int8)
        self.own = &own[0]
        self.hull = &hull[0]
        self.opened = &opened[0]
        self.outer_right = &outer_right[0]
        self.merge_inner = <Merge*>&merge_inner[0]
        self.merge_outer = <Merge*>&merge_outer[0]

    # ------------------------------------------------------------------

    cdef void _hand_out(self, int32_t node, int32_t left_hull, int32_t right_hull) noexcept nogil:
        if self.base.left[node] >= 0:
            self.hull[self.base.left[node]] = left_hull
        if self.base.right[node] >= 0:
            self.hull[self.base.right[node]] = right_hull

    cdef void _open(self, int32_t node) noexcept nogil:
        """Undo a holder's two merges: its children hold their hulls, its own vertex is free."""
        cdef int32_t inner, right_hull, left_hull, own_chain
        if self.outer_right[node]:
            self.chains.unmerge(self.hull[node], &self.merge_outer[node], &right_hull, &inner)
            self.chains.unmerge(inner, &self.merge_inner[node], &own_chain, &left_hull)
        else:
            self.chains.unmerge(self.hull[node], &self.merge_outer[node], &inner, &left_hull)
            self.chains.unmerge(inner, &self.merge_inner[node], &right_hull, &own_chain)
        self.hull[node] = -1
        self._hand_out(node, left_hull, right_hull)
        self.opened[node] = _FULLY_OPEN

    cdef void _open_toward(self, int32_t node, bint going_left) noexcept nogil:
        """Open a node the update passes on its way to one child.

        Splitting and joining the treap never rotate: a node passed on the
        way left keeps its right subtree and its own group, one passed on the
        way right its left subtree.  When that intact side is in the node's
        inner merge, only the outer merge is undone: the node keeps the inner
        chain in ``hull`` and only the outer merge is redone on closing.
        """
        cdef int32_t inner, child_hull
        if going_left == <bint>self.outer_right[node]:
            self._open(node)
            return
        if going_left:
            self.chains.unmerge(self.hull[node], &self.merge_outer[node], &inner, &child_hull)
            self._hand_out(node, child_hull, -1)
        else:
            self.chains.unmerge(self.hull[node], &self.merge_outer[node], &child_hull, &inner)
            self._hand_out(node, -1, child_hull)
        self.hull[node] = inner
        self.opened[node] = _OUTER_OPEN

    cdef double _subtree_weight(self, int32_t node) noexcept nogil:
        if node < 0:
            return 0.0
        return self.base.subtree_neg[node] + self.base.subtree_pos[node]

    cdef void _close(self, int32_t node) noexcept nogil:
        """Merge a node's hull from its children's hulls and its own group.

        A fully opened node chooses its grouping again: the child with the
        larger subtree goes in the outer merge, since the next update is the
        more likely to pass that way and then only the outer merge is undone.
        """
        cdef int32_t left_child = self.base.left[node], right_child = self.base.right[node]
        cdef int32_t left_hull = -1, right_hull = -1, own_chain = -1, inner
        cdef int32_t vertex = self.own[node]
        cdef double weight_neg, weight_pos
        if left_child >= 0:
            left_hull = self.hull[left_child]
            self.hull[left_child] = -1
        if right_child >= 0:
            right_hull = self.hull[right_child]
            self.hull[right_child] = -1
        if self.opened[node] == _OUTER_OPEN:
            if self.outer_right[node]:
                self.hull[node] = self.chains.merge(right_hull, self.hull[node],
                                                    &self.merge_outer[node])
            else:
                self.hull[node] = self.chains.merge(self.hull[node], left_hull,
                                                    &self.merge_outer[node])
            self.opened[node] = 0
            return
        weight_neg = self.base.node_neg(node)
        weight_pos = self.base.node_pos(node)
        if weight_neg + weight_pos > 0.0:
            if (weight_neg != self.chains.d[2 * vertex]
                    or weight_pos != self.chains.d[2 * vertex + 1]):
                self.chains.set_d(vertex, weight_neg, weight_pos)
                self.chains.pull(vertex)
            own_chain = vertex
        self.outer_right[node] = (self._subtree_weight(right_child)
                                  > self._subtree_weight(left_child))
        if self.outer_right[node]:
            inner = self.chains.merge(own_chain, left_hull, &self.merge_inner[node])
            self.hull[node] = self.chains.merge(right_hull, inner, &self.merge_outer[node])
        else:
            inner = self.chains.merge(right_hull, own_chain, &self.merge_inner[node])
            self.hull[node] = self.chains.merge(inner, left_hull, &self.merge_outer[node])
        self.opened[node] = 0

    cdef void _open_path(self, double key) noexcept nogil:
        """Open the search path of ``key`` and, below it, both spines around it."""
        cdef int32_t node = self.base.root, spine
        while node >= 0:
            if key < self.base.key[node]:
                self._open_toward(node, True)
                node = self.base.left[node]
            elif key > self.base.key[node]:
                self._open_toward(node, False)
                node = self.base.right[node]
            else:
                self._open(node)
                spine = self.base.left[node]
                while spine >= 0:
                    self._open_toward(spine, False)
                    spine = self.base.right[spine]
                spine = self.base.right[node]
                while spine >= 0:
                    self._open_toward(spine, True)
                    spine = self.base.left[spine]
                return

    cdef void _close_opened(self, int32_t node) noexcept nogil:
        """Close every opened node below ``node``, children first."""
        if node < 0 or not self.opened[node]:
            return
        self._close_opened(self.base.left[node])
        self._close_opened(self.base.right[node])
        self._close(node)

    cdef int _update(self, bint is_pos, double score, double weight, bint adding) except -1 nogil:
        """One point in or out; returns the AUC engine's status (0: done)."""
        cdef int32_t node = -1, nodes = self.base.n_nodes
        cdef int status
        if adding:
            # A new score takes the treap's first free slot.
            node = self.base.free_head
        else:
            node = self.base.find(score)
            if node < 0 or (self.base.count_pos[node] if is_pos
                            else self.base.count_neg[node]) == 0:
                return 1
        self._open_path(score)
        if adding:
            status = self.auc_engine._add(is_pos, score, weight)
        else:
            status = self.auc_engine._remove(is_pos, score, weight)
        if self.base.n_nodes > nodes:
            self.own[node] = self.chains.new_vertex(0.0, 0.0)
            self.opened[node] = _FULLY_OPEN
        elif self.base.n_nodes < nodes:
            self.chains.free_vertex(self.own[node])
            self.own[node] = -1
            self.opened[node] = 0
        self._close_opened(self.base.root)
        return status

    # ------------------------------------------------------------------
    # Entry points for the validated Python layer.

    def _prepare(self, Py_ssize_t new_points, weights=None):
        self.auc_engine._prepare(weights, new_points)
        self.chains.reserve(new_points)
        self._sync()

    def add(self, y_true, y_score, weight=1.0):
        """Validate one point (nothing changes if invalid), then add it."""
        cdef bint is_pos
        cdef double score, point_weight
        self.auc_engine._enter()
        try:
            self.auc_engine._admit_point(y_true, y_score, weight, True,
                                         &is_pos, &score, &point_weight)
            self.chains.reserve(1)
            self._sync()
            self._update(is_pos, score, point_weight, True)
        finally:
            self.auc_engine.busy = False

    def remove(self, y_true, y_score, weight=1.0):
        """Validate one point, then remove it; statuses as ``AUCEngine.remove``."""
        cdef bint is_pos
        cdef double score, point_weight
        cdef int status
        self.auc_engine._enter()
        try:
            status = self.auc_engine._admit_point(y_true, y_score, weight, False,
                                                  &is_pos, &score, &point_weight)
            if status == 0:
                status = self._update(is_pos, score, point_weight, False)
        finally:
            self.auc_engine.busy = False
        return status

    def add_many(self, const uint8_t[::1] is_pos, const double[::1] scores,
                 const double[::1] weights=None):
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef bint unit = weights is None
        self.auc_engine._enter()
        try:
            self._prepare(n, weights)
            with nogil:
                for index in range(n):
                    self._update(is_pos[index], scores[index],
                                 1.0 if unit else weights[index], True)
        finally:
            self.auc_engine.busy = False

    def remove_many(self, const uint8_t[::1] is_pos, const double[::1] scores,
                    const double[::1] weights=None):
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef bint unit = weights is None
        cdef int status = 0
        self.auc_engine._enter()
        try:
            with nogil:
                for index in range(n):
                    status = self._update(is_pos[index], scores[index],
                                          1.0 if unit else weights[index], False)
                    if status != 0:
                        break
        finally:
            self.auc_engine.busy = False
        return index if status != 0 else -1

    def sliding(self, const uint8_t[::1] is_pos, const double[::1] scores,
                const double[::1] weights, Py_ssize_t window, double[::1] h_out,
                double[::1] auch_out, double[::1] auc_out, Py_ssize_t start=0,
                approximate=None):
        """H, AUCH and AUC over the last ``window`` points after each point (<= 0: all).

        ``approximate``: None for the exact H, or the arguments of
        ``approx_h`` (epsilon, pi0, pi1, alpha, beta, ratio_from_priors) for
        the approximate one.
        """
        cdef Py_ssize_t index, n = scores.shape[0]
        cdef bint unit = weights is None
        cdef ApproxSpec spec
        cdef bint exact = approximate is None
        cdef int32_t subset_edges
        if not exact:
            epsilon, pi0, pi1, alpha, beta, ratio_from_priors = approximate
            spec = _approx_spec(epsilon, pi0, pi1, alpha, beta, ratio_from_priors)
        self.auc_engine._enter()
        try:
            self._prepare(n - start if window <= 0 else min(n - start, window + 1), weights)
            with nogil:
                for index in range(start, n):
                    self._update(is_pos[index], scores[index],
                                 1.0 if unit else weights[index], True)
                    if 0 < window <= index:
                        self._update(is_pos[index - window], scores[index - window],
                                     1.0 if unit else weights[index - window], False)
                    if exact:
                        h_out[index - start] = self._h()
                    else:
                        h_out[index - start] = self._approx_h(&spec, &subset_edges)
                    auch_out[index - start] = self._auch()
                    auc_out[index - start] = self.auc_engine._auc()
        finally:
            self.auc_engine.busy = False

    cdef bint _class_weights(self, double* weight_neg, double* weight_pos) noexcept nogil:
        """The total class weights; False while a class is absent (the metrics are nan)."""
        cdef int32_t root = self.base.root
        if root < 0:
            return False
        weight_neg[0] = self.base.subtree_neg[root]
        weight_pos[0] = self.base.subtree_pos[root]
        return weight_neg[0] > 0.0 and weight_pos[0] > 0.0

    cdef double _h(self) noexcept nogil:
        """1 - L / L_max with L = sum of the hull's loss terms / N (Eq. 7).

        Computes the root chain's pending loss terms first (a write: the caller
        holds the structure).
        """
        cdef double weight_neg, weight_pos
        cdef int32_t root = self.base.root
        if not self._class_weights(&weight_neg, &weight_pos):
            return NAN
        # L_max = pi0 I(pi1) + pi1 J(pi1) is the loss term of one edge from the
        # origin to (N0, N1), divided by N like the hull's terms.
        return min(max(1.0 - self.chains.chain_loss(self.hull[root])
                       / self.chains.loss_term(weight_neg, weight_pos), 0.0), 1.0)

    cdef double _approx_h(self, ApproxSpec* spec, int32_t* subset_edges,
                          double* record_x=NULL, double* record_y=NULL) noexcept nogil:
        """H within epsilon (1 - H) of the exact value, for any priors (seed 000, Sec. 6).

        Walks the root hull with Subset (``ChainPool.subset_walk``) and sums
        the loss over the edges of the subset Q it keeps, with the priors and
        Beta shape of ``spec``.  ``subset_edges`` receives the number of Q's
        edges.  Reads only: no loss term of the chains is computed or stored.
        """
        cdef SubsetWalk walk
        cdef double weight_neg, weight_pos, pi0, pi1
        cdef int32_t root = self.base.root
        subset_edges[0] = 0
        if not self._class_weights(&weight_neg, &weight_pos):
            return NAN
        if isnan(spec.pi0):
            pi0 = weight_neg / (weight_neg + weight_pos)
            pi1 = weight_pos / (weight_neg + weight_pos)
        else:
            pi0 = spec.pi0
            pi1 = spec.pi1
        walk.alpha = spec.alpha
        walk.beta = 1.0 + pi0 / pi1 if spec.ratio_from_priors else spec.beta
        walk.integer_order = integer_order_of(walk.alpha, walk.beta)
        walk.epsilon = spec.epsilon
        walk.total_neg = weight_neg
        walk.total_pos = weight_pos
        walk.rate_neg = pi0 / weight_neg
        walk.rate_pos = pi1 / weight_pos
        walk.previous_x = 0.0
        walk.previous_y = 0.0
        walk.loss = 0.0
        walk.count = 0
        walk.record_x = record_x
        walk.record_y = record_y
        self.chains.subset_walk(self.hull[root], 0.0, 0.0, weight_neg, weight_pos, &walk)
        if walk.previous_x != weight_neg or walk.previous_y != weight_pos:
            # The chain's last vertex (N0, N1) is in Q by definition.
            subset_edge(&walk, weight_neg, weight_pos)
        subset_edges[0] = walk.count
        return min(max(1.0 - walk.loss / edge_loss(pi0, pi1, walk.alpha, walk.beta,
                                                   walk.integer_order), 0.0), 1.0)

    def approx_h(self, double epsilon, double pi0, double pi1, double alpha, double beta,
                 bint ratio_from_priors):
        """The approximate H; pi0 nan: priors from the data.

        ``ratio_from_priors``: Beta(2, 1 + pi0/pi1), R's ``severity_ratio="prior"``.
        """
        cdef ApproxSpec spec = _approx_spec(epsilon, pi0, pi1, alpha, beta, ratio_from_priors)
        cdef int32_t subset_edges
        self.auc_engine._check_idle()
        return self._approx_h(&spec, &subset_edges)

    def subset_vertices(self, double epsilon, double pi0, double pi1, double alpha,
                        double beta, bint ratio_from_priors):
        """Cumulative (class 0, class 1) weights of the subset Q's vertices, from (0, 0)."""
        cdef ApproxSpec spec = _approx_spec(epsilon, pi0, pi1, alpha, beta, ratio_from_priors)
        cdef int32_t subset_edges
        size = 2 if self.base.root < 0 else self.chains.chain_size(self.hull[self.base.root]) + 2
        xs, ys = np.zeros(size), np.zeros(size)
        cdef double[::1] record_x = xs, record_y = ys
        self.auc_engine._check_idle()
        self._approx_h(&spec, &subset_edges, &record_x[1], &record_y[1])
        return xs[:subset_edges + 1], ys[:subset_edges + 1]

    cdef double _auch(self) noexcept nogil:
        """Area under the hull over the area of the unit square in weights."""
        cdef double weight_neg, weight_pos
        if not self._class_weights(&weight_neg, &weight_pos):
            return NAN
        return self.chains.area[self.hull[self.base.root]] / (weight_neg * weight_pos)

    @property
    def h(self):
        # Reading settles pending loss terms, so it claims the structure like an update.
        self.auc_engine._enter()
        try:
            return self._h()
        finally:
            self.auc_engine.busy = False

    @property
    def auch(self):
        return self._auch()

    @property
    def auc(self):
        return self.auc_engine._auc()

    @property
    def nbytes(self):
        """Bytes of every buffer: the score treap, the chains and the per-node records."""
        own = sum(buffer.nbytes for buffer in (
            self.own_buffer, self.hull_buffer, self.merge_inner_buffer,
            self.merge_outer_buffer, self.outer_right_buffer, self.opened_buffer))
        return self.base.nbytes + self.chains.nbytes + own

    def __reduce__(self):
        self.auc_engine._check_idle()
        buffers = {name: getattr(self, name) for name in (
            "own_buffer", "hull_buffer", "merge_inner_buffer", "merge_outer_buffer",
            "outer_right_buffer", "opened_buffer")}
        return (_rebuild_hull_engine, (self.alpha, self.beta, self.auc_engine, self.chains,
                                       self.slots, buffers))

    def hull_vertices(self):
        """Cumulative (class 0, class 1) weights of the hull vertices, from (0, 0)."""
        if self.base.root < 0:
            return np.zeros(1), np.zeros(1)
        d_neg, d_pos = self.chains.vertices(self.hull[self.base.root])
        return (np.concatenate(([0.0], np.cumsum(d_neg))),
                np.concatenate(([0.0], np.cumsum(d_pos))))

    def _check(self):
        """The AUC engine's invariants; the root hull equals the from-scratch hull."""
        from hmeasure_stream import _scratch

        self.auc_engine._check()
        if self.base.root < 0:
            if self.chains.n_vertices != 0:
                raise AssertionError("chain vertices left behind by an empty tree")
            return True
        if self.chains.n_vertices != self.base.n_nodes:
            raise AssertionError(
                f"{self.chains.n_vertices} chain vertices for {self.base.n_nodes} scores")
        order = self.base._in_order()
        if np.any(self.opened_buffer[order]):
            raise AssertionError("a node was left open")
        holders = np.flatnonzero(self.hull_buffer[order] >= 0)
        if holders.tolist() != [int(np.flatnonzero(order == self.base.root)[0])]:
            raise AssertionError("only the root may hold its hull")
        self.chains._check_chain(self.hull[self.base.root])
        _, weight_neg, weight_pos, _, _ = self.base.items()
        fp, tp = _scratch.upper_hull(weight_neg[::-1].copy(), weight_pos[::-1].copy())
        got_fp, got_tp = self.hull_vertices()
        if not self.base.weighted:
            # Unit weights: integer arithmetic on both sides, the same vertices exactly.
            if not (np.array_equal(fp, got_fp) and np.array_equal(tp, got_tp)):
                raise AssertionError("the maintained hull differs from the from-scratch hull")
        elif weight_neg.sum() > 0 and weight_pos.sum() > 0:
            from hmeasure_stream._cost import h_from_hull

            total = weight_neg.sum() + weight_pos.sum()
            expected = h_from_hull(fp, tp, weight_neg.sum() / total, weight_pos.sum() / total,
                                   self.alpha, self.beta)
            if abs(self._h() - expected) > 1e-9 * max(abs(expected), 1e-3):
                raise AssertionError(f"maintained H {self._h()!r} != from scratch {expected!r}")
        return True


def _rebuild_hull_engine(alpha, beta, auc_engine, chains, slots, buffers):
    cdef HullEngine engine = HullEngine(alpha, beta, auc_engine=auc_engine, chains=chains)
    for name, buffer in buffers.items():
        setattr(engine, name, np.array(buffer, copy=True))
    engine.slots = slots
    engine._bind()
    return engine
