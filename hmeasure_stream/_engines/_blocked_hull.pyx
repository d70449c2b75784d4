"""Exact ROC hull, H-measure and AUCH under insertion and deletion on sorted blocks.

The hull maintenance of Tatti, "Maintaining AUC and H-measure over time"
(Secs. 5.1-5.3, after Overmars and van Leeuwen: a node's hull is the bridge
of its children's hulls) on the structure of ``BlockedAUCEngine``: the
distinct scores in sorted blocks, a perfect segment tree over gapped leaf
slots.  Every tree node keeps the ROC upper hull of its points as ONE
contiguous array of edges (``Hull``): per edge its class 0 and class 1
steps and its H-measure loss term (priors from the data, Eq. 7: the term
depends on the edge alone), plus the node's end point, the sum of the loss
terms and twice the area under the hull.  These three are recomputed at each
change from the children's, less what the edges the bridge replaced held,
plus the bridge's (O(bridge search), exact integers for unit weights); they
are never adjusted by increments over time, so nothing drifts.  A leaf takes
them by a pass over its edges; ``_check`` compares every node with such a
pass.

The ROC curve runs from the highest score down and the leaves are in
increasing score order, so a node's hull is its right child's hull followed
by its left child's, shifted to start at the right child's end point, with
the upper hull taken over both.  Working on edge vectors (as
``_scratch.upper_hull``) nothing is shifted: the right child's edges are
copied as they are, then the left child's edges are pushed by Andrew's
monotone chain, each pop merging the popped edge into the run.  The first
left edge pushed without a pop ends the bridge search: the left child is
convex, so the rest of its edges are copied as they are, with their loss
terms.  Only the edge that absorbed pops (the bridge) gets a new loss term.
A leaf's hull is one monotone-chain scan of its block's groups from the
highest score down; a gap's hull is empty.  Turns are decided by
``at_least_as_steep`` (exact on the stored edge vectors); collinear and
repeated points are dropped, as ``_scratch.upper_hull`` does.

Cost of an update: the base's update, then one leaf scan (<= BLOCK groups)
and one merge per ancestor, each O(size of the node's hull) in copies (two
memcpy) and O(bridge search) in turn tests.  With unit weights the ROC
points are lattice points, so a node of m points has O(m^(2/3)) hull
vertices (a convex lattice chain in an m x m box), and the copies along a
path are dominated by the root's hull.  Memory: every node's array holds its
own hull; with lattice points the total over the tree is O(n).

A batch (``add_many``, ``remove_many``) keeps the base's sums current point
by point but only flags the leaves it changes; at its end the flagged leaves
and each of their ancestors are recomputed once (``_refresh``).

Storage: ``hulls`` is one calloc'd array of ``Hull`` records indexed by tree
node; each record owns a malloc'd edge array grown by doubling (realloc,
MemoryError when it fails), never shrunk, all freed in ``__dealloc__``.  When
the base doubles its leaves (``_grow_tree``) a new record array is allocated
first and the old one freed once that succeeded; every node is recomputed
next by the base.  Pickling stores the base's buffers; hulls are rebuilt on
load.
"""

import numpy as np

from cpython.exc cimport PyErr_NoMemory
from libc.math cimport NAN, fabs
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy

from hmeasure_stream._engines._blocked cimport BLOCK, BlockedAUCEngine
from hmeasure_stream._engines._cost cimport (
    CostRule,
    SubsetWalk,
    edge_loss,
    integer_order_of,
    resolve_cost,
    subset_edge,
)
from hmeasure_stream._engines._numeric cimport at_least_as_steep, prefetch

from hmeasure_stream._engines._blocked import _rebuild_blocked


cdef void _free_hulls(Hull* hulls, int32_t count) noexcept nogil:
    cdef int32_t node
    if hulls == NULL:
        return
    for node in range(count):
        free(hulls[node].edge)
    free(hulls)


cdef void _scale_hulls(Hull* hulls, int32_t count, double factor) noexcept nogil:
    """Every hull's steps, end point and loss terms (homogeneous of degree 1) times
    ``factor``, its area times the square (nothing for NULL)."""
    cdef int32_t node, k
    if hulls == NULL:
        return
    for node in range(1, count):
        for k in range(3 * hulls[node].size):
            hulls[node].edge[k] *= factor
        hulls[node].total_neg *= factor
        hulls[node].total_pos *= factor
        hulls[node].loss *= factor
        hulls[node].area2 *= factor * factor


cdef Py_ssize_t _hulls_nbytes(const Hull* hulls, int32_t count) noexcept:
    """Bytes held by the hull records and their edge arrays (0 for NULL)."""
    cdef Py_ssize_t node, total = count * sizeof(Hull)
    if hulls == NULL:
        return 0
    for node in range(count):
        total += 3 * sizeof(double) * hulls[node].capacity
    return total


cdef void _finish(Hull* out) noexcept nogil:
    """End point, loss sum and twice the area of a hull, from its edges (one pass)."""
    cdef int32_t k
    cdef double x = 0.0, y = 0.0, loss = 0.0, area2 = 0.0, dx, dy
    cdef double* edge = out.edge
    for k in range(out.size):
        dx = edge[3 * k]
        dy = edge[3 * k + 1]
        area2 += dx * (2.0 * y + dy)
        x += dx
        y += dy
        loss += edge[3 * k + 2]
    out.total_neg = x
    out.total_pos = y
    out.loss = loss
    out.area2 = area2


cdef int32_t _unit_chain(const int32_t* count_neg, const int32_t* count_pos, int32_t size,
                         int64_t* stack, double* edge) noexcept nogil:
    """The upper hull of a block's groups with unit weights, from its highest score down
    (Andrew's monotone chain on integer steps: every turn test exact in int64, as the
    counts of a block stay below 2^31); its edges into ``edge`` (stride 3).  Returns the
    number of edges.  Every group has a point of some class, so no step is zero."""
    cdef int32_t index, top = 0, k
    cdef int64_t run_neg, run_pos
    for index in range(size - 1, -1, -1):
        run_neg = count_neg[index]
        run_pos = count_pos[index]
        # Pop while the run is at least as steep as the top edge: run_pos / run_neg >=
        # top_pos / top_neg.
        while top >= 1 and run_pos * stack[2 * top - 2] >= stack[2 * top - 1] * run_neg:
            top -= 1
            run_neg += stack[2 * top]
            run_pos += stack[2 * top + 1]
        stack[2 * top] = run_neg
        stack[2 * top + 1] = run_pos
        top += 1
    for k in range(top):
        edge[3 * k] = <double>stack[2 * k]
        edge[3 * k + 1] = <double>stack[2 * k + 1]
    return top


cdef inline bint _close(double maintained, double recomputed, double scale) noexcept:
    """Equal within 1e-12 of ``scale`` (what the terms of the sums are bounded by)."""
    return abs(maintained - recomputed) <= 1e-12 * max(abs(recomputed), scale, 1e-300)


cdef void _subset_range(const double* point, int32_t low, int32_t high, double start_x,
                        double start_y, double end_x, double end_y,
                        SubsetWalk* walk) noexcept nogil:
    """Subset (Tatti, Sec. 6, Alg. 3) of the hull vertices ``low`` .. ``high - 1``.

    The vertices are taken as a perfectly balanced binary tree, the middle
    one its root.  ``point`` holds the cumulative (x, y) of every vertex;
    (start_x, start_y) is the vertex before ``low`` and (end_x, end_y) a
    point at or after ``high - 1``, both in Q already (or to be: the end).
    A range whose vertices all lie between them with end_x <= (1 + eps)
    start_x and N1 - start_y <= (1 + eps) (N1 - end_y) is skipped (Props
    5-6, the combined test of Sec. 6), so the H read from Q is within
    eps (1 - H) of the exact H (Prop. 4).
    """
    cdef double factor = 1.0 + walk.epsilon, x, y
    cdef int32_t middle
    if low >= high:
        return
    if not (end_x > factor * start_x
            or walk.total_pos - start_y > factor * (walk.total_pos - end_y)):
        return
    middle = (low + high) >> 1
    x = point[2 * middle]
    y = point[2 * middle + 1]
    _subset_range(point, low, middle, start_x, start_y, x, y, walk)
    subset_edge(walk, x, y)
    _subset_range(point, middle + 1, high, x, y, end_x, end_y, walk)


cdef class BlockedHullEngine(BlockedAUCEngine):
    """Exact ROC hull, H-measure (priors from the data), AUCH and AUC on sorted blocks."""

    def __cinit__(self, *args, **kwargs):
        self.hulls = NULL
        self.lower_hulls = NULL
        self.hull_nodes = 0
        self.work.edge = NULL
        self.work.size = 0
        self.work.capacity = 0
        self.work.kept = 0
        self.stamps = 0
        self.edges_copied = 0
        self.loss_calls = 0
        self.deferring = False
        self.dirty = NULL
        self.vertices.edge = NULL
        self.vertices.size = 0
        self.vertices.capacity = 0
        self.has_lower = False
        self.report_cost = NAN
        self.epsilon = 0.0

    def __init__(self, double alpha=2.0, double beta=2.0, Py_ssize_t capacity=16,
                 int block_limit=BLOCK):
        BlockedAUCEngine.__init__(self, capacity, block_limit)
        self.alpha = alpha
        self.beta = beta
        self.integer_order = integer_order_of(alpha, beta)
        self.cost_rule = None
        self._allocate_nodes(self.leaves)

    def __dealloc__(self):
        _free_hulls(self.hulls, self.hull_nodes)
        self.hulls = NULL
        _free_hulls(self.lower_hulls, self.hull_nodes)
        self.lower_hulls = NULL
        free(self.work.edge)
        self.work.edge = NULL
        free(self.vertices.edge)
        self.vertices.edge = NULL

    def set_reading(self, double epsilon, CostRule rule=None):
        """How ``h`` is read: exact (epsilon 0), or within epsilon (1 - H) under ``rule``."""
        self.epsilon = epsilon
        self.cost_rule = rule
        if rule is not None:
            self.cost = rule.cost

    cdef int _allocate_nodes(self, int32_t leaves) except -1:
        """Empty hulls (and lower hulls while ``has_lower``) for a tree of ``leaves`` leaves;
        the old ones are freed only then."""
        dirty = np.zeros(leaves, dtype=np.uint8)
        cdef unsigned char[::1] flags = dirty
        cdef Hull* fresh = <Hull*>calloc(2 * <size_t>leaves, sizeof(Hull))
        cdef Hull* fresh_lower = NULL
        if fresh != NULL and self.has_lower:
            fresh_lower = <Hull*>calloc(2 * <size_t>leaves, sizeof(Hull))
            if fresh_lower == NULL:
                free(fresh)
                fresh = NULL
        if fresh == NULL:
            raise MemoryError(f"the blocked hull engine cannot hold {2 * leaves} tree nodes")
        _free_hulls(self.hulls, self.hull_nodes)
        _free_hulls(self.lower_hulls, self.hull_nodes)
        self.hulls = fresh
        self.lower_hulls = fresh_lower
        self.hull_nodes = 2 * leaves
        self.dirty_buffer = dirty
        self.dirty = &flags[0]
        return 0

    cdef int _grow_tree(self, int32_t leaves) except -1:
        return self._allocate_nodes(leaves)

    cdef int _reserve_edges(self, Hull* hull, int32_t size) except -1 nogil:
        """Room for ``size`` edges (doubling); MemoryError leaves the hull as it was."""
        cdef int32_t capacity = hull.capacity if hull.capacity > 0 else 4
        cdef double* grown
        if size <= hull.capacity:
            return 0
        while capacity < size:
            capacity *= 2
        grown = <double*>realloc(hull.edge, 3 * sizeof(double) * <size_t>capacity)
        if grown == NULL:
            with gil:
                PyErr_NoMemory()
            return -1
        hull.edge = grown
        hull.capacity = capacity
        return 0

    # ------------------------------------------------------------------
    # The hooks of BlockedAUCEngine.

    cdef int _set_leaf(self, int32_t slot) except -1 nogil:
        BlockedAUCEngine._set_leaf(self, slot)
        if self.hulls == NULL:
            return 0
        if self.deferring:
            self.dirty[slot] = 1
            return 0
        if self.lower_hulls != NULL:
            self._leaf_into(slot, &self.lower_hulls[self.leaves + slot], True)
        return self._leaf_into(slot, &self.hulls[self.leaves + slot], False)

    cdef int _pull_node(self, int32_t node) except -1 nogil:
        BlockedAUCEngine._pull_node(self, node)
        if self.hulls == NULL or self.deferring:
            return 0
        if node > 1:
            # The next merge up reads the sibling's hull and writes the parent's: ask for
            # their first lines now, so that they arrive while this merge runs.
            prefetch(self.hulls[node ^ 1].edge)
            prefetch(self.hulls[node >> 1].edge)
        self._merge_into(&self.hulls[2 * node + 1], &self.hulls[2 * node], &self.hulls[node])
        if self.lower_hulls != NULL:
            self._merge_into(&self.lower_hulls[2 * node + 1], &self.lower_hulls[2 * node],
                             &self.lower_hulls[node])
        if node == 1:
            # Room for the subset walk's vertices, so that reading never allocates.
            self._reserve_edges(&self.vertices, self.hulls[1].size)
        return 0

    cdef int _leaf_into(self, int32_t slot, Hull* out, bint swapped) except -1 nogil:
        """The hull of the block at ``slot`` (empty for a gap): a monotone chain over its
        groups from the highest score down, then the loss terms of the kept edges.  With
        ``swapped`` the classes change roles (x the class 1 weight, y the class 0 weight):
        the lower hull, turned into an upper one."""
        cdef int32_t block = self.block_at_leaf[slot], index, top = 0, k, at, old
        cdef double* work = self.leaf_work
        cdef double run_neg, run_pos
        if out != &self.work:
            self.stamps += 1
            out.stamp = self.stamps
        if block < 0:
            out.size = 0
            _finish(out)
            return 0
        if self.weighted:
            for index in range(self.size[block] - 1, -1, -1):
                at = block * BLOCK + index
                run_neg = self.weight[4 * at + swapped] + self.weight[4 * at + 2 + swapped]
                run_pos = (self.weight[4 * at + 1 - swapped]
                           + self.weight[4 * at + 3 - swapped])
                if run_neg == 0.0 and run_pos == 0.0:
                    continue  # a repeated point
                while top >= 1 and at_least_as_steep(
                        run_neg, run_pos, work[3 * top - 3], work[3 * top - 2]):
                    top -= 1
                    run_neg += work[3 * top]
                    run_pos += work[3 * top + 1]
                work[3 * top] = run_neg
                work[3 * top + 1] = run_pos
                top += 1
        else:
            top = _unit_chain((self.count_pos if swapped else self.count_neg) + block * BLOCK,
                              (self.count_neg if swapped else self.count_pos) + block * BLOCK,
                              self.size[block], self.leaf_counts, work)
        # Loss terms: an edge the old hull had keeps its term (both hulls list their edges
        # by decreasing slope, so one pass over the old one finds them).
        old = 0
        for k in range(top):
            while old < out.size and not at_least_as_steep(
                    work[3 * k], work[3 * k + 1], out.edge[3 * old], out.edge[3 * old + 1]):
                old += 1
            if (old < out.size and out.edge[3 * old] == work[3 * k]
                    and out.edge[3 * old + 1] == work[3 * k + 1]):
                work[3 * k + 2] = out.edge[3 * old + 2]
            else:
                work[3 * k + 2] = edge_loss(work[3 * k], work[3 * k + 1], self.alpha,
                                            self.beta, self.integer_order)
                self.loss_calls += 1
        self._reserve_edges(out, top)
        memcpy(out.edge, work, 3 * sizeof(double) * <size_t>top)
        out.size = top
        self.edges_copied += top
        _finish(out)
        return 0

    cdef int _merge_into(self, const Hull* right, const Hull* left, Hull* out) except -1 nogil:
        """The hull of ``right``'s points followed by ``left``'s (the bridge, as the
        module docstring says); ``out`` is neither of them.

        A pop takes the stack's top first, so the edges popped from ``right`` (its last
        ones) and the left edges pushed with a pop (its first ``stop``) all end in one
        edge, the bridge.  The end point, loss sum and area are then the children's, less
        what the popped and absorbed edges held, plus the bridge's: O(bridge search).
        """
        cdef int32_t top = right.size, k, stop = left.size, kept_right = right.size, same = 0
        cdef double run_neg, run_pos, y_end, y_start, loss_gone = 0.0, area_gone = 0.0
        cdef double bridge_neg = 0.0, bridge_pos = 0.0, bridge_h = 0.0, suffix_neg, height
        cdef double absorbed_neg = 0.0, absorbed_pos = 0.0
        cdef double* edge
        cdef bint popped, stored = out != &self.work
        self._reserve_edges(out, right.size + left.size)
        edge = out.edge
        if stored and out.right_stamp == right.stamp:
            # The right child has not changed since this hull was merged (the update came
            # from the left): its first ``kept`` edges are already in place.
            same = min(out.kept, right.size)
        if right.size > same:
            memcpy(edge + 3 * same, right.edge + 3 * same,
                   3 * sizeof(double) * <size_t>(right.size - same))
        for k in range(left.size):
            run_neg = left.edge[3 * k]
            run_pos = left.edge[3 * k + 1]
            popped = False
            while top >= 1 and at_least_as_steep(
                    run_neg, run_pos, edge[3 * top - 3], edge[3 * top - 2]):
                top -= 1
                run_neg += edge[3 * top]
                run_pos += edge[3 * top + 1]
                popped = True
            if not popped:
                # The left hull is convex from here on: the rest as it is.
                stop = k
                memcpy(edge + 3 * top, left.edge + 3 * k,
                       3 * sizeof(double) * <size_t>(left.size - k))
                top += left.size - k
                break
            # A merged edge, the bridge so far (a later pop absorbs it).
            edge[3 * top] = run_neg
            edge[3 * top + 1] = run_pos
            kept_right = min(kept_right, top)
            top += 1
        out.size = top
        self.edges_copied += top - same
        out.total_neg = right.total_neg + left.total_neg
        out.total_pos = right.total_pos + left.total_pos
        if stored:
            self.stamps += 1
            out.stamp = self.stamps
            out.right_stamp = right.stamp
            out.kept = kept_right
        if stop == 0:
            out.loss = right.loss + left.loss
            out.area2 = right.area2 + left.area2 + 2.0 * right.total_pos * left.total_neg
            return 0
        bridge_neg = edge[3 * kept_right]
        bridge_pos = edge[3 * kept_right + 1]
        bridge_h = edge_loss(bridge_neg, bridge_pos, self.alpha, self.beta, self.integer_order)
        edge[3 * kept_right + 2] = bridge_h
        self.loss_calls += 1
        # The right hull's popped edges, from its end back.
        y_end = right.total_pos
        for k in range(right.size - 1, kept_right - 1, -1):
            y_start = y_end - right.edge[3 * k + 1]
            area_gone += right.edge[3 * k] * (y_start + y_end)
            loss_gone += right.edge[3 * k + 2]
            y_end = y_start
        height = y_end
        out.loss = right.loss - loss_gone
        out.area2 = right.area2 - area_gone + bridge_neg * (2.0 * height + bridge_pos)
        # The left hull's absorbed edges, from its start.
        loss_gone = 0.0
        area_gone = 0.0
        for k in range(stop):
            area_gone += left.edge[3 * k] * (2.0 * absorbed_pos + left.edge[3 * k + 1])
            absorbed_neg += left.edge[3 * k]
            absorbed_pos += left.edge[3 * k + 1]
            loss_gone += left.edge[3 * k + 2]
        suffix_neg = left.total_neg - absorbed_neg
        out.loss += bridge_h + (left.loss - loss_gone)
        # The left suffix sat at height absorbed_pos in the left hull and starts at
        # height + bridge_pos = right.total_pos + absorbed_pos here.
        out.area2 += left.area2 - area_gone + 2.0 * right.total_pos * suffix_neg
        return 0

    # ------------------------------------------------------------------
    # Batches: the base's sums follow every point; the hulls are recomputed once at the
    # end, each changed leaf and each of their ancestors once.

    cdef Py_ssize_t _batch(self, object is_pos_array, object scores_array,
                           object weights_array, bint adding) except -2:
        self.deferring = True
        try:
            return BlockedAUCEngine._batch(self, is_pos_array, scores_array, weights_array,
                                           adding)
        finally:
            self.deferring = False
            self._flush()

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """The base's weights times ``factor`` (a power of two: exact), and every hull with
        them: steps, end points and loss terms (homogeneous of degree 1) times ``factor``,
        areas times its square."""
        BlockedAUCEngine._scale_weights(self, factor)
        if not self.weighted:
            return
        _scale_hulls(self.hulls, self.hull_nodes, factor)
        _scale_hulls(self.lower_hulls, self.hull_nodes, factor)

    cdef int _flush(self) except -1:
        """Recompute the hulls of the flagged leaves and of their ancestors (``_refresh``)."""
        slots = np.flatnonzero(self.dirty_buffer).astype(np.int32)
        if slots.shape[0] == 0:
            return 0
        self.dirty_buffer[:] = 0
        cdef int32_t[::1] changed = slots
        self._refresh(&changed[0], <int32_t>changed.shape[0])
        return 0

    # ------------------------------------------------------------------
    # Reading.

    cdef const Hull* _defined_root(self) noexcept nogil:
        """The root's hull while both classes have weight (the metrics are defined), else
        NULL."""
        cdef const Hull* root
        if self.hulls == NULL:
            return NULL
        root = &self.hulls[1]
        if not (root.total_neg > 0.0 and root.total_pos > 0.0):
            return NULL
        return root

    cdef double _h(self) noexcept nogil:
        """1 - L / L_max with L the root hull's loss terms and L_max the term of the one
        edge from (0, 0) to (N0, N1), both over N (Eq. 7, priors from the data)."""
        cdef const Hull* root = self._defined_root()
        if root == NULL:
            return NAN
        return min(max(1.0 - root.loss / edge_loss(root.total_neg, root.total_pos, self.alpha,
                                                   self.beta, self.integer_order), 0.0), 1.0)

    cdef double _auch(self) noexcept nogil:
        """Area under the hull over the area of the unit square in weights."""
        cdef const Hull* root = self._defined_root()
        if root == NULL:
            return NAN
        return min(max(root.area2 / (2.0 * root.total_neg * root.total_pos), 0.0), 1.0)

    cdef double _approx_h(self, int32_t* subset_edges, double* record_x=NULL,
                          double* record_y=NULL) noexcept nogil:
        """H within epsilon (1 - H) of the exact value, for any priors (Sec. 6).

        Subset (Alg. 3) over the root hull's vertices taken as a balanced
        tree (``_subset_range``), summing the loss over the edges of the subset
        Q it keeps, with the priors and Beta shape of ``cost``.
        ``subset_edges`` receives the number of Q's edges.  One pass over the
        root's edges for the cumulative vertices, then O((1 + 1/eps) log^2 n)
        loss terms (Prop. 7).  Reads only.
        """
        cdef SubsetWalk walk
        cdef double pi0, pi1, x = 0.0, y = 0.0
        cdef const Hull* root = self._defined_root()
        cdef double* point = self.vertices.edge
        cdef int32_t k
        subset_edges[0] = 0
        if root == NULL:
            return NAN
        for k in range(root.size):
            x += root.edge[3 * k]
            y += root.edge[3 * k + 1]
            point[2 * k] = x
            point[2 * k + 1] = y
        resolve_cost(&self.cost, root.total_neg, root.total_pos, &pi0, &pi1, &walk.alpha,
                     &walk.beta)
        walk.integer_order = integer_order_of(walk.alpha, walk.beta)
        walk.epsilon = self.epsilon
        walk.total_neg = root.total_neg
        walk.total_pos = root.total_pos
        walk.rate_neg = pi0 / root.total_neg
        walk.rate_pos = pi1 / root.total_pos
        walk.previous_x = 0.0
        walk.previous_y = 0.0
        walk.loss = 0.0
        walk.count = 0
        walk.record_x = record_x
        walk.record_y = record_y
        _subset_range(point, 0, root.size, 0.0, 0.0, root.total_neg, root.total_pos, &walk)
        if walk.previous_x != root.total_neg or walk.previous_y != root.total_pos:
            # The hull's last vertex (N0, N1) is in Q by definition.
            subset_edge(&walk, root.total_neg, root.total_pos)
        subset_edges[0] = walk.count
        return min(max(1.0 - walk.loss / edge_loss(pi0, pi1, walk.alpha, walk.beta,
                                                   walk.integer_order), 0.0), 1.0)

    cdef double _reading(self) noexcept nogil:
        """H as ``set_reading`` says: exact, or approximate under its cost."""
        cdef int32_t subset_edges
        if self.epsilon == 0.0:
            return self._h()
        return self._approx_h(&subset_edges)

    cdef object _read(self):
        return self._reading()

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """AUC, H and AUCH of the current points into ``out[row]`` (then KS, MER, MWL while
        ``record_report`` holds), then what ``_record_extras`` records."""
        cdef double ks, mer, mwl
        cdef Py_ssize_t column = 3
        out[row, 0] = self._auc()
        out[row, 1] = self._reading()
        out[row, 2] = self._auch()
        if self.report_cost == self.report_cost:
            self._extremes(self.report_cost, &ks, &mer, &mwl)
            out[row, 3] = ks
            out[row, 4] = mer
            out[row, 5] = mwl
            column = 6
        self._record_extras(&out[row, 0], column)

    @property
    def columns(self):
        """The metrics ``_record`` writes, in the column order of ``slide``'s ``out``."""
        report = ("ks", "mer", "mwl") if self.report_cost == self.report_cost else ()
        return ("auc", "h", "auch", *report, *BlockedAUCEngine.columns.__get__(self)[1:])

    @property
    def h(self):
        """H as set by ``set_reading`` (by default exact, priors from the data,
        Beta(alpha, beta)); nan with one class."""
        self._check_idle()
        return self._reading()

    def subset_vertices(self):
        """Cumulative (class 0, class 1) weights of the subset Q's vertices, from (0, 0),
        in the structure's units: the subset the approximate H is read from."""
        cdef int32_t subset_edges
        if self.epsilon == 0.0:
            raise ValueError("the exact H is read from the whole hull: no subset")
        self._check_idle()
        xs, ys = np.zeros(self.hulls[1].size + 2), np.zeros(self.hulls[1].size + 2)
        cdef double[::1] record_x = xs, record_y = ys
        self._approx_h(&subset_edges, &record_x[1], &record_y[1])
        return xs[:subset_edges + 1], ys[:subset_edges + 1]

    # ------------------------------------------------------------------
    # The report's extremes of linear functions over the ROC points.

    cdef void _hull_argmax(self, const Hull* root, double a, double b, double* x,
                           double* y) noexcept nogil:
        """The vertex (x, y) (weights from the origin) of hull ``root`` maximising
        a y - b x, for a, b >= 0.  The edges' slopes decrease, so the edges with
        a dy > b dx are a prefix of the array: its end is the maximum (the origin
        when the prefix is empty).  O(hull size)."""
        cdef int32_t k
        x[0] = 0.0
        y[0] = 0.0
        for k in range(root.size):
            if not a * root.edge[3 * k + 1] > b * root.edge[3 * k]:
                return
            x[0] += root.edge[3 * k]
            y[0] += root.edge[3 * k + 1]

    cdef void _extremes(self, double cost, double* ks, double* mer,
                        double* mwl) noexcept nogil:
        """R hmeasure's KS, MER and MWL (at cost c) of the current points, priors from the
        data: extremes of linear functions of (FPR, TPR) over the ROC points, reached at a
        vertex of the upper hull (MER, MWL, max TPR - FPR) or of the lower hull (max FPR -
        TPR, from the lower hulls: KS is nan without them), formed as the from-scratch
        report forms them."""
        cdef double weight_neg, weight_pos, pi0, pi1, x, y, fpr, tpr, upper
        cdef const Hull* root = self._defined_root()
        if root == NULL:
            ks[0] = NAN
            mer[0] = NAN
            mwl[0] = NAN
            return
        weight_neg = root.total_neg
        weight_pos = root.total_pos
        pi0 = weight_neg / (weight_neg + weight_pos)
        pi1 = weight_pos / (weight_neg + weight_pos)
        # max TPR - FPR: a = 1 / N1, b = 1 / N0, scaled by N0 N1.
        self._hull_argmax(root, weight_neg, weight_pos, &x, &y)
        upper = fabs(y / weight_pos - x / weight_neg)
        if self.lower_hulls != NULL:
            # The lower hull's x is our class 1 weight, its y our class 0 weight.
            self._hull_argmax(&self.lower_hulls[1], weight_pos, weight_neg, &x, &y)
            ks[0] = max(upper, fabs(x / weight_pos - y / weight_neg))
        else:
            ks[0] = NAN
        # min pi0 FPR + pi1 (1 - TPR) = pi1 - max (pi1 TPR - pi0 FPR).
        self._hull_argmax(root, pi1 * weight_neg, pi0 * weight_pos, &x, &y)
        fpr = x / weight_neg
        tpr = y / weight_pos
        mer[0] = pi0 * fpr + pi1 * (1.0 - tpr)
        self._hull_argmax(root, (1.0 - cost) * pi1 * weight_neg, cost * pi0 * weight_pos,
                          &x, &y)
        fpr = x / weight_neg
        tpr = y / weight_pos
        mwl[0] = 2.0 * (cost * pi0 * fpr + (1.0 - cost) * pi1 * (1.0 - tpr))

    def extremes(self, double cost):
        """(KS, MER, MWL) of the current points, MWL at cost c; nan while a class is absent.

        KS needs the lower hull (``track_lower``); it is nan without it.
        O(hull size).
        """
        cdef double ks, mer, mwl
        self._check_idle()
        self._extremes(cost, &ks, &mer, &mwl)
        return ks, mer, mwl

    def track_lower(self):
        """Maintain the lower ROC hull from now on, for KS (built once from the current points).

        A second hull per segment-tree node over the same blocks, read with the
        classes swapped (its upper hull is our lower hull), recomputed with the
        first wherever a leaf or node changes: each later update costs about
        twice as much, and no point is stored twice.
        """
        cdef Py_ssize_t slot, node
        self._check_idle()
        if self.has_lower:
            return
        lower = <Hull*>calloc(<size_t>self.hull_nodes, sizeof(Hull))
        if lower == NULL:
            raise MemoryError(f"the blocked hull engine cannot hold {self.hull_nodes} lower hulls")
        self.lower_hulls = lower
        self.has_lower = True
        try:
            for slot in range(self.leaves):
                self._leaf_into(<int32_t>slot, &self.lower_hulls[self.leaves + slot], True)
            for node in range(self.leaves - 1, 0, -1):
                self._merge_into(&self.lower_hulls[2 * node + 1], &self.lower_hulls[2 * node],
                                 &self.lower_hulls[node])
        except MemoryError:
            # Nothing half built stays behind.
            _free_hulls(self.lower_hulls, self.hull_nodes)
            self.lower_hulls = NULL
            self.has_lower = False
            raise

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
        """Record KS, MER and MWL (at cost c) in ``slide``'s ``out`` as well (columns 3-5,
        before the extras); KS is nan unless ``track_lower`` holds."""
        self.report_cost = cost

    @property
    def auch(self):
        """The area under the ROC convex hull (nan with one class)."""
        self._check_idle()
        return self._auch()

    def hull_vertices(self):
        """Cumulative (class 0, class 1) weights of the root hull's vertices from (0, 0),
        in the caller's units."""
        self._check_idle()
        return self._vertices(1)

    def _vertices(self, Py_ssize_t node):
        cdef const Hull* hull = &self.hulls[node]
        cdef Py_ssize_t k
        steps = np.zeros((hull.size + 1, 2))
        for k in range(hull.size):
            steps[k + 1, 0] = hull.edge[3 * k]
            steps[k + 1, 1] = hull.edge[3 * k + 1]
        points = np.cumsum(steps, axis=0) * self.scale
        return points[:, 0], points[:, 1]

    def _counters(self):
        """Diagnostics: (base leaf changes, base node changes, edges copied, loss terms)."""
        return (self.leaf_changes, self.node_changes, self.edges_copied, self.loss_calls)

    @property
    def hull_nbytes(self):
        """Bytes held by the node hulls (records and edge arrays)."""
        return _hulls_nbytes(self.hulls, self.hull_nodes) + _hulls_nbytes(self.lower_hulls,
                                                                          self.hull_nodes)

    @property
    def nbytes(self):
        """Bytes of the base's buffers, the node hulls and the reading space."""
        return (BlockedAUCEngine.nbytes.__get__(self) + self.hull_nbytes
                + 3 * sizeof(double) * self.vertices.capacity)

    # ------------------------------------------------------------------
    # Invariants and pickling.

    def _check(self):
        """The base's invariants, and every node's hull equal to the one recomputed from its
        block (leaves) or its children (inner nodes), strictly convex, with its end point,
        loss sum and area recomputed; O(n + total hull size)."""
        BlockedAUCEngine._check(self)
        cdef Hull* root
        if self.hulls == NULL or self.hull_nodes != 2 * self.leaves:
            raise AssertionError("the node hulls are not allocated for the tree")
        if self.deferring or np.any(self.dirty_buffer):
            raise AssertionError("a batch left stale hulls")
        self._check_hulls(False)
        root = &self.hulls[1]
        if not self.weighted and (root.total_neg != self.tree[3]
                                  or root.total_pos != self.tree[4]):
            raise AssertionError("the root hull does not end at the class totals")
        if self.vertices.capacity < root.size:
            raise AssertionError("no room for the subset walk over the root hull")
        if self.has_lower != (self.lower_hulls != NULL):
            raise AssertionError("has_lower and the lower hulls disagree")
        if self.has_lower:
            self._check_hulls(True)
            root = &self.lower_hulls[1]
            if not self.weighted and (root.total_neg != self.tree[4]
                                      or root.total_pos != self.tree[3]):
                raise AssertionError("the lower root hull does not end at the class totals")
        return True

    def _check_hulls(self, bint swapped):
        """Every node's hull (the lower ones with ``swapped``) equal to the one recomputed
        from its block (leaves) or its children (inner nodes), strictly convex, with its
        end point, loss sum and area recomputed."""
        cdef Py_ssize_t node, k, slot
        cdef int64_t copied = self.edges_copied, calls = self.loss_calls
        cdef Hull* hull
        cdef Hull* hulls = self.lower_hulls if swapped else self.hulls
        name = "lower hull" if swapped else "hull"
        try:
            for node in range(2 * self.leaves - 1, 0, -1):
                hull = &hulls[node]
                if node >= self.leaves:
                    slot = node - self.leaves
                    self._leaf_into(<int32_t>slot, &self.work, swapped)
                else:
                    self._merge_into(&hulls[2 * node + 1], &hulls[2 * node],
                                     &self.work)
                if hull.size != self.work.size or hull.size > hull.capacity:
                    raise AssertionError(f"{name} node {node}: {hull.size} edges, recomputed "
                                         f"{self.work.size}")
                for k in range(3 * hull.size):
                    if hull.edge[k] != self.work.edge[k]:
                        raise AssertionError(f"{name} node {node}: edge value {k} is stale")
                for k in range(hull.size):
                    if not (hull.edge[3 * k] >= 0.0 and hull.edge[3 * k + 1] >= 0.0
                            and hull.edge[3 * k] + hull.edge[3 * k + 1] > 0.0):
                        raise AssertionError(f"{name} node {node}: edge {k} is not a positive step")
                    if k and at_least_as_steep(hull.edge[3 * k], hull.edge[3 * k + 1],
                                               hull.edge[3 * k - 3], hull.edge[3 * k - 2]):
                        raise AssertionError(f"{name} node {node}: no strict turn at vertex {k}")
                    if hull.edge[3 * k + 2] != edge_loss(hull.edge[3 * k], hull.edge[3 * k + 1],
                                                         self.alpha, self.beta,
                                                         self.integer_order):
                        raise AssertionError(f"{name} node {node}: loss term {k} is stale")
                if (hull.total_neg != self.work.total_neg or hull.total_pos
                        != self.work.total_pos or hull.loss != self.work.loss
                        or hull.area2 != self.work.area2):
                    raise AssertionError(f"{name} node {node}: end point, loss or area is stale")
                # Independently: a pass over the node's own edges.
                _finish(&self.work)
                # A hull's loss is at most the diagonal's, its area at most the box's.
                if not (_close(hull.total_neg, self.work.total_neg, 0.0)
                        and _close(hull.total_pos, self.work.total_pos, 0.0)
                        and _close(hull.loss, self.work.loss, edge_loss(
                            hull.total_neg, hull.total_pos, self.alpha, self.beta,
                            self.integer_order))
                        and _close(hull.area2, self.work.area2,
                                   2.0 * hull.total_neg * hull.total_pos)):
                    raise AssertionError(f"{name} node {node}: end point, loss or area differ from "
                                         "a pass over its edges")
                if not self.weighted and (hull.total_neg != self.work.total_neg
                                          or hull.total_pos != self.work.total_pos
                                          or hull.area2 != self.work.area2):
                    raise AssertionError(f"{name} node {node}: unit-mode end point or area inexact")
        finally:
            self.edges_copied = copied
            self.loss_calls = calls

    def _perturb(self, Py_ssize_t node, Py_ssize_t index, double delta, field="edge",
                 bint lower=False):
        """For tests of ``_check``: add ``delta`` to value ``index`` of a node's edge array
        (of its lower hull with ``lower``), or to its ``loss`` / ``area2``."""
        cdef Hull* hulls = self.lower_hulls if lower else self.hulls
        if hulls == NULL or not 1 <= node < self.hull_nodes:
            raise IndexError(node)
        if field == "loss":
            hulls[node].loss += delta
        elif field == "area2":
            hulls[node].area2 += delta
        else:
            if not 0 <= index < 3 * hulls[node].size:
                raise IndexError(index)
            hulls[node].edge[index] += delta

    def __reduce__(self):
        self._check_idle()
        base = BlockedAUCEngine.__reduce__(self)[1]
        return (_rebuild_blocked_hull, (base, self.alpha, self.beta, self.epsilon,
                                        self.cost_rule, self.has_lower, self.report_cost))


def _rebuild_blocked_hull(base, alpha, beta, epsilon, cost_rule, has_lower, report_cost):
    cdef BlockedHullEngine engine = _rebuild_blocked(*base, engine_type=BlockedHullEngine)
    cdef int32_t slot, node
    engine.alpha = alpha
    engine.beta = beta
    engine.integer_order = integer_order_of(alpha, beta)
    engine.set_reading(epsilon, cost_rule)
    engine.report_cost = report_cost
    engine._allocate_nodes(engine.leaves)
    for slot in range(engine.leaves):
        engine._set_leaf(slot)
    for node in range(engine.leaves - 1, 0, -1):
        engine._pull_node(node)
    if has_lower:
        engine.track_lower()
    return engine
