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

from libc.math cimport NAN, fabs
from libc.stdint cimport int32_t, uint8_t

from hmeasure_stream._engines._auc cimport AUCEngine
from hmeasure_stream._engines._chain cimport ChainPool, Cursor, Merge, SubsetWalk, subset_edge
from hmeasure_stream._engines._cost cimport (
    CostRule,
    edge_loss,
    integer_order_of,
    resolve_cost,
)
from hmeasure_stream._engines._treap cimport DONE, NOT_PRESENT

from hmeasure_stream._engines._auc import stored_scale
from hmeasure_stream._engines._cost import h_from_hull
from hmeasure_stream._engines._pool import grown_buffer
from hmeasure_stream._engines._scratch import upper_hull


# States of a node during an update (``opened``): closed (0), both merges undone,
# only the outer merge undone.
cdef enum:
    _FULLY_OPEN = 1
    _OUTER_OPEN = 2


cdef class HullEngine(AUCEngine):
    """Exact ROC hull, H-measure (priors from the data), AUCH and AUC under updates."""

    def __cinit__(self, *args, **kwargs):
        self.has_lower = False
        self.report_cost = NAN

    def __init__(self, double alpha=2.0, double beta=2.0, Py_ssize_t capacity=16, seed=None):
        AUCEngine.__init__(self, capacity, seed)
        self.alpha = alpha
        self.beta = beta
        # The chains' priorities are independent of the treap's.
        self.chains = ChainPool(capacity, None if seed is None else seed + 1, alpha, beta)
        self.slots = 0
        self.epsilon = 0.0
        self.cost_rule = None
        self._sync()

    def set_reading(self, double epsilon, CostRule rule=None):
        """How ``h`` is read: exact (epsilon 0), or within epsilon (1 - H) under ``rule``."""
        self.epsilon = epsilon
        self.cost_rule = rule
        if rule is not None:
            self.cost = rule.cost

    def _sync(self):
        """Grow the per-node buffers to the treap's capacity (new slots: no hull, closed).

        Undo records are stored as raw bytes of ``sizeof(Merge)`` per node, so
        their layout is the struct's own and has no copy to disagree with.
        """
        cdef Py_ssize_t old = self.slots, new = self.tree.capacity
        if new == old and self.own != NULL:
            return  # the common case of a single point: nothing to grow or rebind
        if new > old:
            self.own_buffer = grown_buffer(self.own_buffer, new, np.int32, -1)
            self.hull_buffer = grown_buffer(self.hull_buffer, new, np.int32, -1)
            self.merge_inner_buffer = grown_buffer(self.merge_inner_buffer,
                                                   (new, sizeof(Merge)), np.uint8, 0)
            self.merge_outer_buffer = grown_buffer(self.merge_outer_buffer,
                                                   (new, sizeof(Merge)), np.uint8, 0)
            self.opened_buffer = grown_buffer(self.opened_buffer, new, np.uint8, 0)
            self.outer_right_buffer = grown_buffer(self.outer_right_buffer, new, np.uint8, 0)
            self.slots = <int32_t>new
        self._bind()

    def _bind(self):
        cdef int32_t[::1] own = self.own_buffer
        cdef int32_t[::1] hull = self.hull_buffer
        cdef uint8_t[::1] opened = self.opened_buffer
        cdef uint8_t[::1] outer_right = self.outer_right_buffer
        cdef uint8_t[:, ::1] merge_inner = self.merge_inner_buffer
        cdef uint8_t[:, ::1] merge_outer = self.merge_outer_buffer
        self.own = &own[0]
        self.hull = &hull[0]
        self.opened = &opened[0]
        self.outer_right = &outer_right[0]
        self.merge_inner = <Merge*>&merge_inner[0, 0]
        self.merge_outer = <Merge*>&merge_outer[0, 0]

    # ------------------------------------------------------------------

    cdef void _hand_out(self, int32_t node, int32_t left_hull, int32_t right_hull) noexcept nogil:
        if self.tree.left[node] >= 0:
            self.hull[self.tree.left[node]] = left_hull
        if self.tree.right[node] >= 0:
            self.hull[self.tree.right[node]] = right_hull

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
        return self.tree.subtree_neg[node] + self.tree.subtree_pos[node]

    cdef void _close(self, int32_t node) noexcept nogil:
        """Merge a node's hull from its children's hulls and its own group.

        A fully opened node chooses its grouping again: the child with the
        larger subtree goes in the outer merge, since the next update is the
        more likely to pass that way and then only the outer merge is undone.
        """
        cdef int32_t left_child = self.tree.left[node], right_child = self.tree.right[node]
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
        weight_neg = self.tree.node_neg(node)
        weight_pos = self.tree.node_pos(node)
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
        cdef int32_t node = self.tree.root, spine
        while node >= 0:
            if key < self.tree.key[node]:
                self._open_toward(node, True)
                node = self.tree.left[node]
            elif key > self.tree.key[node]:
                self._open_toward(node, False)
                node = self.tree.right[node]
            else:
                self._open(node)
                spine = self.tree.left[node]
                while spine >= 0:
                    self._open_toward(spine, False)
                    spine = self.tree.right[spine]
                spine = self.tree.right[node]
                while spine >= 0:
                    self._open_toward(spine, True)
                    spine = self.tree.left[spine]
                return

    cdef void _close_opened(self, int32_t node) noexcept nogil:
        """Close every opened node below ``node``, children first."""
        if node < 0 or not self.opened[node]:
            return
        self._close_opened(self.tree.left[node])
        self._close_opened(self.tree.right[node])
        self._close(node)

    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil:
        """One point in or out: open the path, change the treap, close; returns its Status."""
        cdef int32_t node = -1, nodes = self.tree.n_used
        cdef int status
        if adding:
            # A new score takes the treap's first free slot.
            node = self.tree.free_head
        else:
            node = self.tree.find(score)
            if node < 0 or (self.tree.count_pos[node] if is_pos
                            else self.tree.count_neg[node]) == 0:
                return NOT_PRESENT
        self._open_path(score)
        status = self._tree_update(is_pos, score, weight, adding)
        if self.tree.n_used > nodes:
            self.own[node] = self.chains.new_vertex(0.0, 0.0)
            self.opened[node] = _FULLY_OPEN
        elif self.tree.n_used < nodes:
            self.chains.free_vertex(self.own[node])
            self.own[node] = -1
            self.opened[node] = 0
        self._close_opened(self.tree.root)
        if self.has_lower and status == DONE:
            # Weights arrive in our units: the lower engine keeps the same scale.
            self.lower.inverse_scale = self.inverse_scale
            self.lower._update(not is_pos, score, weight, adding)
        return status

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        AUCEngine._reserve(self, new_points, weighted)
        self.chains.reserve(new_points)
        self._sync()
        if self.has_lower:
            if self.lower.tree.n_points == 0:
                # The emptied-structure rule, applied to the lower engine too.
                self.lower.twice_u = 0.0
                self.lower.twice_u_compensation = 0.0
                self.lower.inverse_scale = 0.0
                if self.lower.tree.weighted:
                    self.lower.tree.make_unit()
            self.lower._reserve(new_points, weighted)
        return 0

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """Every stored weight times ``factor``, a power of two: the treap's, the chains'
        (the areas, of degree 2, by its square; pending loss terms stay NaN) and the
        undo records'.  Exact, so every maintained value is the scaled one bit for bit."""
        cdef Py_ssize_t slot
        cdef double* d = self.chains.d
        cdef double* cd = self.chains.cd
        cdef double* first = self.chains.first
        cdef double* h = self.chains.h
        cdef double* ch = self.chains.ch
        cdef double* area = self.chains.area
        AUCEngine._scale_weights(self, factor)
        for slot in range(2 * <Py_ssize_t>self.chains.capacity):
            d[slot] *= factor
            cd[slot] *= factor
            first[slot] *= factor
        for slot in range(self.chains.capacity):
            h[slot] *= factor
            ch[slot] *= factor
            area[slot] *= factor * factor
        for slot in range(self.slots):
            self.merge_inner[slot].saved_neg *= factor
            self.merge_inner[slot].saved_pos *= factor
            self.merge_inner[slot].saved_h *= factor
            self.merge_outer[slot].saved_neg *= factor
            self.merge_outer[slot].saved_pos *= factor
            self.merge_outer[slot].saved_h *= factor
        if self.has_lower:
            # The lower engine holds the same points in the same units.
            self.lower._scale_weights(factor)

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """AUC, H and AUCH of the current points into ``out[row]``."""
        cdef int32_t subset_edges
        cdef double ks, mer, mwl
        out[row, 0] = self._auc()
        out[row, 1] = self._h() if self.epsilon == 0.0 else self._approx_h(&subset_edges)
        out[row, 2] = self._auch()
        if self.report_cost == self.report_cost:
            self._extremes(self.report_cost, &ks, &mer, &mwl)
            out[row, 3] = ks
            out[row, 4] = mer
            out[row, 5] = mwl

    cdef object _read(self):
        cdef int32_t subset_edges
        if self.epsilon == 0.0:
            return self._h()
        return self._approx_h(&subset_edges)

    cdef bint _class_weights(self, double* weight_neg, double* weight_pos) noexcept nogil:
        """The total class weights; False while a class is absent (the metrics are nan)."""
        cdef int32_t root = self.tree.root
        if root < 0:
            return False
        weight_neg[0] = self.tree.subtree_neg[root]
        weight_pos[0] = self.tree.subtree_pos[root]
        return weight_neg[0] > 0.0 and weight_pos[0] > 0.0

    cdef double _h(self) noexcept nogil:
        """1 - L / L_max with L = sum of the hull's loss terms / N (Eq. 7).

        Computes the root chain's pending loss terms first (a write: the caller
        holds the structure).
        """
        cdef double weight_neg, weight_pos
        cdef int32_t root = self.tree.root
        if not self._class_weights(&weight_neg, &weight_pos):
            return NAN
        # L_max = pi0 I(pi1) + pi1 J(pi1) is the loss term of one edge from the
        # origin to (N0, N1), divided by N like the hull's terms.
        return min(max(1.0 - self.chains.chain_loss(self.hull[root])
                       / self.chains.loss_term(weight_neg, weight_pos), 0.0), 1.0)

    cdef double _approx_h(self, int32_t* subset_edges, double* record_x=NULL,
                          double* record_y=NULL) noexcept nogil:
        """H within epsilon (1 - H) of the exact value, for any priors (Sec. 6).

        Walks the root hull with Subset (``ChainPool.subset_walk``, Alg. 3) and
        sums the loss over the edges of the subset Q it keeps, with the priors
        and Beta shape of ``cost``.  ``subset_edges`` receives the number of
        Q's edges.  Reads only: no loss term of the chains is computed or stored.
        """
        cdef SubsetWalk walk
        cdef double weight_neg, weight_pos, pi0, pi1
        cdef int32_t root = self.tree.root
        subset_edges[0] = 0
        if not self._class_weights(&weight_neg, &weight_pos):
            return NAN
        resolve_cost(&self.cost, weight_neg, weight_pos, &pi0, &pi1, &walk.alpha, &walk.beta)
        walk.integer_order = integer_order_of(walk.alpha, walk.beta)
        walk.epsilon = self.epsilon
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

    def subset_vertices(self):
        """Cumulative (class 0, class 1) weights of the subset Q's vertices, from (0, 0).

        The subset the approximate H is read from (``set_reading``).
        """
        cdef int32_t subset_edges
        if self.epsilon == 0.0:
            raise ValueError("the exact H is read from the whole hull: no subset")
        size = 2 if self.tree.root < 0 else self.chains.chain_size(self.hull[self.tree.root]) + 2
        xs, ys = np.zeros(size), np.zeros(size)
        cdef double[::1] record_x = xs, record_y = ys
        self._check_idle()
        self._approx_h(&subset_edges, &record_x[1], &record_y[1])
        return xs[:subset_edges + 1], ys[:subset_edges + 1]

    cdef double _auch(self) noexcept nogil:
        """Area under the hull over the area of the unit square in weights."""
        cdef double weight_neg, weight_pos
        if not self._class_weights(&weight_neg, &weight_pos):
            return NAN
        # Rounding with float weights may leave the ratio an ulp outside [0, 1].
        return min(max(self.chains.area[self.hull[self.tree.root]]
                       / (weight_neg * weight_pos), 0.0), 1.0)

    @property
    def h(self):
        """H as set by ``set_reading``; reading the exact H settles pending loss terms,
        so it claims the structure like an update."""
        return self.read()

    @property
    def auch(self):
        return self._auch()

    @property
    def columns(self):
        if self.report_cost == self.report_cost:
            return ("auc", "h", "auch", "ks", "mer", "mwl")
        return ("auc", "h", "auch")

    # ------------------------------------------------------------------
    # The report's extremes of linear functions over the ROC points.

    cdef void _hull_argmax(self, double a, double b, double* x, double* y) noexcept nogil:
        """The hull vertex (x, y) (class weights from the origin) maximising a y - b x.

        a, b >= 0.  The hull's edges have strictly decreasing slopes, so the
        edges with a dy > b dx are a prefix of the chain: a descent of the
        root chain's tree finds the last of them, whose end is the maximum
        (the origin when there is none).  O(log n).
        """
        cdef int32_t root = self.tree.root, node
        cdef Cursor position
        x[0] = 0.0
        y[0] = 0.0
        if root < 0 or self.hull[root] < 0:
            return
        position = self.chains.cursor(self.hull[root], 0.0, 0.0)
        while True:
            node = position.node
            if a * self.chains.d[2 * node + 1] > b * self.chains.d[2 * node]:
                x[0] = position.x
                y[0] = position.y
                if self.chains.right[node] < 0:
                    return
                self.chains.go_right(&position)
            else:
                if self.chains.left[node] < 0:
                    return
                self.chains.go_left(&position)

    cdef void _extremes(self, double cost, double* ks, double* mer,
                        double* mwl) noexcept nogil:
        """R hmeasure's KS, MER and MWL (at cost c) of the current points, priors from the data.

        Each is the extreme of a linear function of (FPR, TPR) over the ROC
        points, so it is reached at a vertex of the upper hull (MER, MWL and
        max TPR - FPR) or of the lower hull (max FPR - TPR, from ``lower``:
        nan without it).  The values are formed as the from-scratch report
        forms them.  O(log n).
        """
        cdef double weight_neg, weight_pos, pi0, pi1, x, y, fpr, tpr, upper
        if not self._class_weights(&weight_neg, &weight_pos):
            ks[0] = NAN
            mer[0] = NAN
            mwl[0] = NAN
            return
        pi0 = weight_neg / (weight_neg + weight_pos)
        pi1 = weight_pos / (weight_neg + weight_pos)
        # max TPR - FPR: a = 1 / N1, b = 1 / N0, scaled by N0 N1.
        self._hull_argmax(weight_neg, weight_pos, &x, &y)
        upper = fabs(y / weight_pos - x / weight_neg)
        if self.has_lower:
            # The lower engine's x is our class 1 weight, its y our class 0 weight.
            self.lower._hull_argmax(weight_pos, weight_neg, &x, &y)
            ks[0] = max(upper, fabs(x / weight_pos - y / weight_neg))
        else:
            ks[0] = NAN
        # min pi0 FPR + pi1 (1 - TPR) = pi1 - max (pi1 TPR - pi0 FPR).
        self._hull_argmax(pi1 * weight_neg, pi0 * weight_pos, &x, &y)
        fpr = x / weight_neg
        tpr = y / weight_pos
        mer[0] = pi0 * fpr + pi1 * (1.0 - tpr)
        self._hull_argmax((1.0 - cost) * pi1 * weight_neg, cost * pi0 * weight_pos, &x, &y)
        fpr = x / weight_neg
        tpr = y / weight_pos
        mwl[0] = 2.0 * (cost * pi0 * fpr + (1.0 - cost) * pi1 * (1.0 - tpr))

    def extremes(self, double cost):
        """(KS, MER, MWL) of the current points, MWL at cost c; nan while a class is absent.

        KS needs the lower hull (``track_lower``); it is nan without it.
        O(log n) for n distinct scores.
        """
        cdef double ks, mer, mwl
        self._check_idle()
        self._extremes(cost, &ks, &mer, &mwl)
        return ks, mer, mwl

    def track_lower(self):
        """Maintain the lower ROC hull from now on, for KS (built once from the current points).

        An engine holding the same points with the classes swapped, fed every
        later update: its upper hull is this engine's lower hull.  Building it
        costs O(n log^2 n) once; afterwards each update costs twice as much.
        """
        self._check_idle()
        if self.has_lower:
            return
        # Claimed while building: the lower engine's batches release the GIL.
        self.busy = True
        try:
            self.lower = self._swapped_copy()
            self.has_lower = True
        finally:
            self.busy = False

    def _swapped_copy(self):
        """A new engine holding this engine's points with the classes swapped.

        Fed through its ``_update`` with our stored weights and our scale, so
        that both keep the same units: one point per (score, class) with the
        total weight there, the others with weight 0 (the same counts).
        """
        cdef HullEngine lower = HullEngine(self.alpha, self.beta, max(self.tree.n_used, 1))
        cdef Py_ssize_t k, _repeat
        keys, weight_neg, weight_pos, count_neg, count_pos = self.tree.items()
        lower._reserve(int(count_neg.sum() + count_pos.sum()), self.tree.weighted)
        lower.inverse_scale = self.inverse_scale
        for swapped, weights, counts in ((True, weight_neg, count_neg),
                                         (False, weight_pos, count_pos)):
            for k in np.flatnonzero(counts > 0):
                lower._update(swapped, keys[k],
                              weights[k] if self.tree.weighted else 1.0, True)
                for _repeat in range(1, counts[k]):
                    lower._update(swapped, keys[k], 0.0 if self.tree.weighted else 1.0, True)
        return lower

    @property
    def ks(self):
        return self.extremes(self.report_cost)[0]

    @property
    def mer(self):
        return self.extremes(self.report_cost)[1]

    @property
    def mwl(self):
        return self.extremes(self.report_cost)[2]

    def record_report(self, double cost):
        """Record KS, MER and MWL (at cost c) in ``slide``'s ``out`` as well (columns 3-5)."""
        self.track_lower()
        self.report_cost = cost

    @property
    def nbytes(self):
        """Bytes of every buffer: the score treap, the chains and the per-node records."""
        own = sum(buffer.nbytes for buffer in (
            self.own_buffer, self.hull_buffer, self.merge_inner_buffer,
            self.merge_outer_buffer, self.outer_right_buffer, self.opened_buffer))
        return (self.tree.nbytes + self.chains.nbytes + own
                + (self.lower.nbytes if self.has_lower else 0))

    def __reduce__(self):
        self._check_idle()
        buffers = {name: getattr(self, name) for name in (
            "own_buffer", "hull_buffer", "merge_inner_buffer", "merge_outer_buffer",
            "outer_right_buffer", "opened_buffer")}
        return (_rebuild_hull_engine, (self.alpha, self.beta, self.tree, self.twice_u,
                                       self.twice_u_compensation, self.chains, self.slots,
                                       buffers, self.epsilon, self.cost_rule,
                                       self.inverse_scale, self.lower, self.report_cost))

    def hull_vertices(self):
        """Cumulative (class 0, class 1) weights of the hull vertices, from (0, 0)."""
        if self.tree.root < 0:
            return np.zeros(1), np.zeros(1)
        d_neg, d_pos = self.chains.vertices(self.hull[self.tree.root])
        return (np.concatenate(([0.0], np.cumsum(d_neg))),
                np.concatenate(([0.0], np.cumsum(d_pos))))

    def _check(self):
        """Every invariant, read only: the treap and 2U; one vertex per score; the chains'
        aggregates; the root hull equal to the from-scratch hull and its H to the
        from-scratch H (pending loss terms computed on the fly, not stored)."""
        cdef double weight_neg, weight_pos, maintained
        AUCEngine._check(self)
        if self.tree.root < 0:
            if self.chains.n_used != 0:
                raise AssertionError("chain vertices left behind by an empty tree")
            return True
        if self.chains.n_used != self.tree.n_used:
            raise AssertionError(
                f"{self.chains.n_used} chain vertices for {self.tree.n_used} scores")
        order = self.tree._in_order()
        if np.any(self.opened_buffer[order]):
            raise AssertionError("a node was left open")
        holders = order[self.hull_buffer[order] >= 0]
        if np.any(holders != self.tree.root):
            raise AssertionError("only the root may hold its hull")
        if holders.size == 0 and self.tree.class_total(False) + self.tree.class_total(True) > 0:
            # (Points of zero weight alone make an empty hull.)
            raise AssertionError("the root holds no hull although the points weigh something")
        root_chain = self.chains._check_chain(self.hull[self.tree.root])
        owned = self.own_buffer[order]
        if np.any(owned < 0) or len(set(owned.tolist())) != len(owned):
            raise AssertionError("every score must own one chain vertex of its own")
        in_use = np.zeros(self.chains.capacity, dtype=bool)
        in_use[owned] = True
        self.chains._check_free_list(in_use)
        if len(root_chain) > len(order):
            raise AssertionError("the root hull has more vertices than there are scores")
        _, group_neg, group_pos, _, _ = self.tree.items()
        fp, tp = upper_hull(group_neg[::-1].copy(), group_pos[::-1].copy())
        got_fp, got_tp = self.hull_vertices()
        if not self.tree.weighted:
            # Unit weights: integer arithmetic on both sides, the same vertices exactly.
            if not (np.array_equal(fp, got_fp) and np.array_equal(tp, got_tp)):
                raise AssertionError("the maintained hull differs from the from-scratch hull")
        if self._class_weights(&weight_neg, &weight_pos):
            total = weight_neg + weight_pos
            expected = h_from_hull(fp, tp, weight_neg / total, weight_pos / total,
                                   self.alpha, self.beta)
            maintained = 1.0 - (self.chains.pending_loss(self.hull[self.tree.root])
                                / self.chains.loss_term(weight_neg, weight_pos))
            if abs(maintained - expected) > 1e-9 * max(abs(expected), 1e-3):
                raise AssertionError(f"maintained H {maintained!r} != from scratch {expected!r}")
        if self.has_lower:
            self._check_lower()
        return True

    def _check_lower(self):
        """The lower engine holds our points with the classes swapped, and is sound."""
        keys, weight_neg, weight_pos, count_neg, count_pos = self.tree.items()
        lower_keys, lower_neg, lower_pos, lower_count_neg, lower_count_pos = self.lower.tree.items()
        if not (np.array_equal(keys, lower_keys) and np.array_equal(count_neg, lower_count_pos)
                and np.array_equal(count_pos, lower_count_neg)):
            raise AssertionError("the lower engine's points differ from ours, classes swapped")
        tolerance = 1e-12 * max(float(np.sum(weight_neg) + np.sum(weight_pos)), 1.0)
        if (np.max(np.abs(weight_neg - lower_pos), initial=0.0) > tolerance
                or np.max(np.abs(weight_pos - lower_neg), initial=0.0) > tolerance):
            raise AssertionError("the lower engine's weights differ from ours, classes swapped")
        if self.lower.tree.n_points:
            self.lower._check()


def _rebuild_hull_engine(alpha, beta, tree, twice_u, compensation, chains, slots, buffers,
                         epsilon, cost_rule, inverse_scale=None, lower=None, report_cost=NAN):
    cdef HullEngine engine = HullEngine.__new__(HullEngine)
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = stored_scale(tree, inverse_scale)
    engine.alpha = alpha
    engine.beta = beta
    engine.chains = chains
    for name, buffer in buffers.items():
        setattr(engine, name, np.array(buffer, copy=True))
    engine.slots = slots
    engine._bind()
    engine.set_reading(epsilon, cost_rule)
    engine.lower = lower
    engine.has_lower = lower is not None
    engine.report_cost = report_cost
    return engine
