"""Pool of hull chains: implicit-key treaps of hull vertices (Tatti, Sec. 5.2).

Private engine of the maintained ROC hull.  A chain is a sequence of
vertices; each vertex stores ``d``, its coordinate difference (class 0
weight, class 1 weight) to the previous vertex (the chain's first vertex:
to the chain's start), and each subtree the sum ``cd`` of its ``d`` and its
number of vertices.  Coordinates are therefore relative: a chain can be
shifted, cut at a position and concatenated in O(log n) without touching its
vertices, and the coordinates of a vertex are the sum of ``cd`` of what lies
before it, gathered on the way down.

All chains share one set of buffers (one per field, free list through
``left``); a chain is named by its root slot, -1 for the empty chain.
Priorities are a hash of the slot, as in the score treap.

Each vertex also carries ``h``, the loss term of its edge in the H-measure
with class priors taken from the data (Tatti, Sec. 5.3): for an edge of
class weights (d0, d1) and c = d1 / (d0 + d1),

    h = d0 I(c) + d1 J(c),  I(c) = a/(a+b) betainc(a+1, b, c),
                            J(c) = b/(a+b) betaincc(a, b+1, c),

which depends on the edge alone, so the sum ``ch`` over a chain's tree is
the loss of the whole hull times the total weight.  ``area`` is the area
under the chain above its starting height, for the AUCH.  Both are
recomputed from the children, never accumulated.

Loss terms are computed lazily.  An update redoes O(log n) merges and each
gives one vertex a new d, but most of those vertices are cut away again by
a merge higher up: only the ones that reach the root chain matter.  So a
new d sets h to NaN ("pending"), and since NaN propagates through sums, a
NaN ``ch`` marks exactly the subtrees holding pending terms.  ``settle``
computes them, descending only into NaN subtrees, when H is read.  h is a
function of d alone, so when it is computed does not change its value.

For integer shapes a, b (Beta(2, 2), the default, and severity ratios 1/k)
the incomplete beta functions are finite binomial sums of positive terms,
evaluated directly (``integer_order`` = a + b); scipy's betainc otherwise.
"""

import numpy as np

from libc.math cimport NAN, isnan
from libc.stdint cimport int32_t, uint64_t

from hmeasure_stream._engines._chain cimport (
    ChainAggregates,
    Cursor,
    Merge,
    SubsetWalk,
    at_least_as_steep,
)
from hmeasure_stream._engines._cost cimport edge_loss, integer_order_of
from hmeasure_stream._engines._pool cimport SlotPool, slot_priority

from hmeasure_stream._engines._pool import normalized_seed

# (name, dtype, components): the 2-vectors (class 0, class 1) of a vertex are one
# buffer of shape (capacity, 2), so a pull reads both components in one cache line.
_FIELDS = (
    ("d_buffer", np.float64, 2), ("cd_buffer", np.float64, 2), ("first_buffer", np.float64, 2),
    ("h_buffer", np.float64, 1), ("ch_buffer", np.float64, 1), ("area_buffer", np.float64, 1),
    ("size_buffer", np.int32, 1),
)


cdef inline void _chain_sums(ChainPool self, int32_t vertex, ChainAggregates* out) noexcept nogil:
    """The subtree sums of ``vertex`` from its children (fixed order); reads only.

    The area of a chain X followed by Y is area(X) + area(Y) + width(Y)
    height(X): Y starts where X ends.
    """
    cdef int32_t child = self.left[vertex]
    cdef double total_neg = self.d[2 * vertex], total_pos = self.d[2 * vertex + 1]
    cdef double loss = self.h[vertex], area = 0.5 * total_neg * total_pos
    cdef int32_t count = 1
    if child >= 0:
        area = self.area[child] + (area + total_neg * self.cd[2 * child + 1])
        total_neg = self.cd[2 * child] + total_neg
        total_pos = self.cd[2 * child + 1] + total_pos
        loss = self.ch[child] + loss
        count += self.size[child]
        out.first_neg = self.first[2 * child]
        out.first_pos = self.first[2 * child + 1]
    else:
        out.first_neg = self.d[2 * vertex]
        out.first_pos = self.d[2 * vertex + 1]
    child = self.right[vertex]
    if child >= 0:
        area = area + (self.area[child] + self.cd[2 * child] * total_pos)
        total_neg = total_neg + self.cd[2 * child]
        total_pos = total_pos + self.cd[2 * child + 1]
        loss = loss + self.ch[child]
        count += self.size[child]
    out.cd_neg = total_neg
    out.cd_pos = total_pos
    out.ch = loss
    out.area = area
    out.size = count


cdef void _pull_slot(SlotPool pool, int32_t slot) noexcept nogil:
    (<ChainPool>pool).pull(slot)


cdef class ChainPool(SlotPool):
    """Shared storage of hull chains; see the module docstring."""

    def __cinit__(self, Py_ssize_t capacity=16, seed=None, double alpha=2.0, double beta=2.0):
        self.alpha = alpha
        self.beta = beta
        self.integer_order = integer_order_of(alpha, beta)
        self.seed = <uint64_t>normalized_seed(seed)
        self.pull_slot = _pull_slot
        self.pool_name = "the chain pool"
        self.grow(max(capacity, 1))

    def _fields(self):
        return SlotPool._fields(self) + list(_FIELDS)

    def _bind(self):
        cdef double[:, ::1] d = self.d_buffer
        cdef double[:, ::1] cd = self.cd_buffer
        cdef double[:, ::1] first = self.first_buffer
        cdef double[::1] h = self.h_buffer
        cdef double[::1] ch = self.ch_buffer
        cdef double[::1] area = self.area_buffer
        cdef int32_t[::1] size = self.size_buffer
        self._bind_links()
        self.d, self.cd, self.first = &d[0, 0], &cd[0, 0], &first[0, 0]
        self.h, self.ch, self.area = &h[0], &ch[0], &area[0]
        self.size = &size[0]

    cdef int32_t new_vertex(self, double d_neg, double d_pos) noexcept nogil:
        """A one-vertex chain (a free slot must be reserved)."""
        cdef int32_t vertex = self.take_slot()
        self.set_d(vertex, d_neg, d_pos)
        self.pull(vertex)
        return vertex

    cdef void free_vertex(self, int32_t vertex) noexcept nogil:
        self.release_slot(vertex)

    cdef double loss_term(self, double d_neg, double d_pos) noexcept nogil:
        """h of an edge: d0 I(c) + d1 J(c), c = d1 / (d0 + d1) (see the module docstring)."""
        return edge_loss(d_neg, d_pos, self.alpha, self.beta, self.integer_order)

    cdef void set_d(self, int32_t vertex, double d_neg, double d_pos) noexcept nogil:
        """Set a vertex's d, its loss term pending (the aggregates are the caller's)."""
        self.d[2 * vertex] = d_neg
        self.d[2 * vertex + 1] = d_pos
        self.h[vertex] = NAN

    cdef void settle(self, int32_t vertex) noexcept nogil:
        """Compute the pending loss terms of a subtree, and its aggregates again.

        Descends only into subtrees whose ``ch`` is NaN; O(k log n) for k
        pending terms.
        """
        cdef int32_t child = self.left[vertex]
        if child >= 0 and isnan(self.ch[child]):
            self.settle(child)
        child = self.right[vertex]
        if child >= 0 and isnan(self.ch[child]):
            self.settle(child)
        if isnan(self.h[vertex]):
            self.h[vertex] = self.loss_term(self.d[2 * vertex], self.d[2 * vertex + 1])
        self.pull(vertex)

    cdef void subset_walk(self, int32_t vertex, double start_x, double start_y,
                          double end_x, double end_y, SubsetWalk* walk) noexcept nogil:
        """Subset (Tatti, Sec. 6, Alg. 3) of a chain's subtree, in chain order.

        (start_x, start_y) is the point just before the subtree and (end_x,
        end_y) a point at or after its last vertex; both are in the subset Q
        already (or will be: the chain's end).  A subtree whose vertices all lie
        between them with end_x <= (1 + eps) start_x and N1 - start_y <=
        (1 + eps) (N1 - end_y) is skipped: the condition of Props 5-6 on both
        coordinates at once (the combined test of Sec. 6), so the H computed
        from Q is within eps (1 - H) of the exact one (Prop. 4).  Otherwise the
        subtree's root vertex joins Q between the vertices of its left and
        right subtrees, and the loss term of the edge from the previous vertex
        of Q is added.  O((1 + 1/eps) log^2 n) vertices in all (Prop. 7).
        """
        cdef double factor = 1.0 + walk.epsilon, x, y
        cdef int32_t child
        if vertex < 0:
            return
        if not (end_x > factor * start_x
                or walk.total_pos - start_y > factor * (walk.total_pos - end_y)):
            return
        x = start_x + self.d[2 * vertex]
        y = start_y + self.d[2 * vertex + 1]
        child = self.left[vertex]
        if child >= 0:
            x = x + self.cd[2 * child]
            y = y + self.cd[2 * child + 1]
            self.subset_walk(child, start_x, start_y, x, y, walk)
        subset_edge(walk, x, y)
        self.subset_walk(self.right[vertex], x, y, end_x, end_y, walk)

    cdef double chain_loss(self, int32_t root) noexcept nogil:
        """``ch`` of a chain, its pending loss terms computed first."""
        if root < 0:
            return 0.0
        if isnan(self.ch[root]):
            self.settle(root)
        return self.ch[root]

    cdef void aggregate(self, int32_t vertex, ChainAggregates* out) noexcept nogil:
        """The subtree sums of ``vertex`` from its children; reads only (``_chain_sums``)."""
        _chain_sums(self, vertex, out)

    cdef void pull(self, int32_t vertex) noexcept nogil:
        """Store the subtree sums of ``vertex`` recomputed from its children."""
        cdef ChainAggregates sums
        _chain_sums(self, vertex, &sums)
        self.cd[2 * vertex] = sums.cd_neg
        self.cd[2 * vertex + 1] = sums.cd_pos
        self.first[2 * vertex] = sums.first_neg
        self.first[2 * vertex + 1] = sums.first_pos
        self.ch[vertex] = sums.ch
        self.area[vertex] = sums.area
        self.size[vertex] = sums.size

    cdef double pending_loss(self, int32_t vertex) noexcept nogil:
        """``ch`` of a subtree with its pending loss terms computed on the fly; reads only."""
        cdef double loss
        if vertex < 0:
            return 0.0
        if not isnan(self.ch[vertex]):
            return self.ch[vertex]
        loss = self.h[vertex]
        if isnan(loss):
            loss = self.loss_term(self.d[2 * vertex], self.d[2 * vertex + 1])
        return self.pending_loss(self.left[vertex]) + loss + self.pending_loss(self.right[vertex])

    cdef int32_t chain_size(self, int32_t root) noexcept nogil:
        return self.size[root] if root >= 0 else 0

    cdef void split(self, int32_t root, int32_t count,
                    int32_t* out_left, int32_t* out_right, bint first_changed=False) noexcept nogil:
        """Cut a chain after its first ``count`` vertices.  O(log n).

        A part that is not cut is returned as it is, without recomputing its
        aggregates; ``first_changed``: the right part's first vertex was given
        a new d, so the aggregates down to it are recomputed as well.
        """
        cdef int32_t left_size
        if root < 0 or (count <= 0 and not first_changed):
            out_left[0] = -1
            out_right[0] = root
            return
        if count >= self.size[root]:
            # Nothing to cut (a merge that keeps a whole chain): no pulls down a spine.
            out_left[0] = root
            out_right[0] = -1
            return
        left_size = self.chain_size(self.left[root])
        if count <= left_size:
            self.split(self.left[root], count, out_left, &self.left[root], first_changed)
            self.pull(root)
            out_right[0] = root
        else:
            self.split(self.right[root], count - left_size - 1, &self.right[root], out_right,
                       first_changed)
            self.pull(root)
            out_left[0] = root

    # ------------------------------------------------------------------
    # Descents with coordinates (Tatti, Sec. 5.2: a child's coordinates
    # follow from its parent's in O(1)).
    #
    # The orientation tests compare vectors between two vertices.  Taken as a
    # difference of coordinates from a chain's start, such a vector cancels:
    # with weights spread over more than 2**53, a small edge after a large
    # prefix is lost entirely and the tests decide at random (a wrong hull).
    # So a cursor keeps only sums of non-negative d: what lies before its
    # subtree, or (``from_end``) what lies after it.  A vertex's prefix (from
    # the start) and suffix (to the end) are such sums, and so is every vector
    # the tests use: from a point to a vertex, the point's offset plus the
    # vertex's prefix; between two chains, the left vertex's suffix plus the
    # right vertex's prefix.  Each component is then accurate to a few ulp of
    # itself, at any spread of the weights, and a test errs only on turns
    # within about 1e-15 relative of straight.  A descent keeps only the one
    # sum it needs: the same work as keeping coordinates.

    cdef Cursor cursor(self, int32_t root, bint from_end) noexcept nogil:
        """The root vertex of a chain, for ``suffix`` if ``from_end``, else ``prefix``."""
        cdef Cursor position
        position.node = root
        position.rank = self.chain_size(self.left[root]) + 1
        position.outside_x = 0.0
        position.outside_y = 0.0
        position.has_after = False
        position.after_x = 0.0
        position.after_y = 0.0
        position.from_end = from_end
        return position

    cdef void prefix(self, Cursor* position, double* out_x, double* out_y) noexcept nogil:
        """The vertex's coordinates from the chain's start: d summed up to it
        (a cursor not ``from_end``)."""
        cdef int32_t node = position.node, child = self.left[node]
        out_x[0] = position.outside_x + self.d[2 * node]
        out_y[0] = position.outside_y + self.d[2 * node + 1]
        if child >= 0:
            out_x[0] += self.cd[2 * child]
            out_y[0] += self.cd[2 * child + 1]

    cdef void suffix(self, Cursor* position, double* out_x, double* out_y) noexcept nogil:
        """From the vertex to the chain's end: d summed after it (a ``from_end`` cursor)."""
        cdef int32_t child = self.right[position.node]
        out_x[0] = position.outside_x
        out_y[0] = position.outside_y
        if child >= 0:
            out_x[0] += self.cd[2 * child]
            out_y[0] += self.cd[2 * child + 1]

    cdef void go_left(self, Cursor* position) noexcept nogil:
        cdef int32_t node = position.node, child = self.left[node], sibling
        cdef int32_t grandchild = self.right[child]
        if position.from_end:
            # The vertex and its right subtree now follow the cursor's subtree.
            sibling = self.right[node]
            position.outside_x = position.outside_x + self.d[2 * node]
            position.outside_y = position.outside_y + self.d[2 * node + 1]
            if sibling >= 0:
                position.outside_x += self.cd[2 * sibling]
                position.outside_y += self.cd[2 * sibling + 1]
        position.rank -= 1
        if grandchild >= 0:
            position.rank -= self.size[grandchild]
        position.after_x = self.d[2 * node]
        position.after_y = self.d[2 * node + 1]
        position.has_after = True
        position.node = child

    cdef void go_right(self, Cursor* position) noexcept nogil:
        cdef int32_t node = position.node, child = self.right[node], sibling
        cdef int32_t grandchild = self.left[child]
        if not position.from_end:
            # The vertex and its left subtree now precede the cursor's subtree.
            sibling = self.left[node]
            position.outside_x = position.outside_x + self.d[2 * node]
            position.outside_y = position.outside_y + self.d[2 * node + 1]
            if sibling >= 0:
                position.outside_x += self.cd[2 * sibling]
                position.outside_y += self.cd[2 * sibling + 1]
        position.rank += 1
        if grandchild >= 0:
            position.rank += self.size[grandchild]
        position.node = child

    cdef bint out_edge(self, Cursor* position, double* out_x, double* out_y) noexcept nogil:
        """The edge leaving the cursor's vertex (its successor's d); False at the end."""
        cdef int32_t child = self.right[position.node]
        if child >= 0:
            out_x[0] = self.first[2 * child]
            out_y[0] = self.first[2 * child + 1]
            return True
        if position.has_after:
            out_x[0] = position.after_x
            out_y[0] = position.after_y
            return True
        return False

    cdef void last_edge(self, int32_t root, double* out_x, double* out_y) noexcept nogil:
        while self.right[root] >= 0:
            root = self.right[root]
        out_x[0] = self.d[2 * root]
        out_y[0] = self.d[2 * root + 1]

    cdef Cursor tangent(self, int32_t root, double offset_x, double offset_y,
                        double* touch_x, double* touch_y) noexcept nogil:
        """The vertex of a chain where the upper tangent from a point to its left touches.

        ``offset`` is the vector from the point to the chain's start (both
        components non-negative); ``touch`` receives the vector from the point
        to the vertex returned.  That vertex is the first vertex b whose
        outgoing edge lies strictly below the line from the point to b (the
        last vertex when none does): a lower-bound descent.
        """
        cdef Cursor position = self.cursor(root, False), best = position
        cdef double out_x, out_y, x, y
        cdef bint found = False
        while True:
            self.prefix(&position, &x, &y)
            x = offset_x + x
            y = offset_y + y
            if self.out_edge(&position, &out_x, &out_y) and at_least_as_steep(out_x, out_y, x, y):
                if self.right[position.node] < 0:
                    break
                self.go_right(&position)
            else:
                best = position
                touch_x[0] = x
                touch_y[0] = y
                found = True
                if self.left[position.node] < 0:
                    break
                self.go_left(&position)
        if not found:
            touch_x[0] = x
            touch_y[0] = y
            return position
        return best

    cdef bint _bridge_at_origin(self, int32_t left_root, int32_t right_root,
                                int32_t* keep_left, int32_t* first_right) noexcept nogil:
        """Whether the bridge starts at the left chain's origin; if so, set its ends.

        It does when the first left edge does not rise above the tangent from
        the origin to the right chain.
        """
        cdef double touch_x, touch_y
        cdef Cursor touch = self.tangent(right_root, self.cd[2 * left_root],
                                         self.cd[2 * left_root + 1], &touch_x, &touch_y)
        if not at_least_as_steep(touch_x, touch_y, self.first[2 * left_root],
                                 self.first[2 * left_root + 1]):
            return False
        keep_left[0] = 0
        first_right[0] = touch.rank
        return True

    cdef void bridge_slow(self, int32_t left_root, int32_t right_root,
                          int32_t* keep_left, int32_t* first_right) noexcept nogil:
        """The bridge by nested binary searches, O(log^2 n): the reference for ``bridge``.

        A vertex a of the left chain is the bridge's left end iff, with t the
        tangent point on the right chain seen from a, neither neighbour of a is
        above the line a-t (the previous one not on it either); otherwise that
        neighbour says on which side the end lies.  The origin is the end when
        the first edge does not rise above its own tangent line.
        """
        cdef Cursor position, touch
        cdef double out_x, out_y, rest_x, rest_y, line_x, line_y
        if self._bridge_at_origin(left_root, right_root, keep_left, first_right):
            return
        position = self.cursor(left_root, True)
        while True:
            self.suffix(&position, &rest_x, &rest_y)
            touch = self.tangent(right_root, rest_x, rest_y, &line_x, &line_y)
            # With float weights rounding can point past a leaf; the vertex
            # reached is then the end, up to that rounding.
            if at_least_as_steep(line_x, line_y,
                                 self.d[2 * position.node], self.d[2 * position.node + 1]):
                if self.left[position.node] < 0:
                    break
                self.go_left(&position)  # the previous vertex is on or above the line
            elif self.out_edge(&position, &out_x, &out_y) and not at_least_as_steep(
                    line_x, line_y, out_x, out_y):
                if self.right[position.node] < 0:
                    break
                self.go_right(&position)  # the next vertex is strictly above the line
            else:
                break
        keep_left[0] = position.rank
        first_right[0] = touch.rank

    cdef void bridge(self, int32_t left_root, int32_t right_root,
                     int32_t* keep_left, int32_t* first_right) noexcept nogil:
        """The bridge of two chains, the right one starting where the left one ends.

        Seed 000, Alg. 5 (after Overmars and van Leeuwen): both chains are
        descended at once.  At the left candidate a and the right candidate b:
        a's previous vertex on or above line ab moves a left, b's next vertex on
        or above it moves b right; a's next vertex above it moves a right and
        b's previous vertex above it moves b left, except that when both hold
        the intersection of those two edges' lines, left or right of the
        junction, decides which.  The two ends that need no search are settled
        first: the origin (its tangent to the right chain passes above the first
        edge) and the junction (the chains already turn clockwise there).

        ``keep_left``: vertices of the left chain kept (0: the bridge starts at
        the origin); ``first_right``: 1-based position of the right chain's
        vertex where the bridge ends.
        """
        cdef double last_x, last_y, in_x, in_y, out_x, out_y, line_x, line_y
        cdef double rest_x, rest_y, reach_x, reach_y
        cdef double cross, numerator
        cdef Cursor left_end, right_end
        cdef bint left_has_out, right_has_out, left_moves_left, right_moves_right
        cdef bint left_moves_right, right_moves_left, crossing_left
        self.last_edge(left_root, &last_x, &last_y)
        if not at_least_as_steep(self.first[2 * right_root], self.first[2 * right_root + 1],
                                 last_x, last_y):
            keep_left[0] = self.size[left_root]  # a clockwise turn at the junction
            first_right[0] = 1
            return
        if self._bridge_at_origin(left_root, right_root, keep_left, first_right):
            return
        left_end = self.cursor(left_root, True)
        right_end = self.cursor(right_root, False)
        while True:
            # The line from a to b: a's suffix in the left chain plus b's
            # prefix in the right one, never a difference (see ``cursor``).
            self.suffix(&left_end, &rest_x, &rest_y)
            self.prefix(&right_end, &reach_x, &reach_y)
            line_x = rest_x + reach_x
            line_y = rest_y + reach_y
            left_has_out = self.out_edge(&left_end, &out_x, &out_y)
            right_has_out = self.out_edge(&right_end, &in_x, &in_y)  # b's outgoing edge
            left_moves_left = self.left[left_end.node] >= 0 and at_least_as_steep(
                line_x, line_y, self.d[2 * left_end.node], self.d[2 * left_end.node + 1])
            right_moves_right = (self.right[right_end.node] >= 0 and right_has_out
                                 and at_least_as_steep(in_x, in_y, line_x, line_y))
            if left_moves_left:
                self.go_left(&left_end)
                continue
            if right_moves_right:
                self.go_right(&right_end)
                continue
            # a's next vertex strictly above the line; b's previous one strictly above.
            left_moves_right = (self.right[left_end.node] >= 0 and left_has_out
                                and not at_least_as_steep(line_x, line_y, out_x, out_y))
            in_x = self.d[2 * right_end.node]
            in_y = self.d[2 * right_end.node + 1]
            right_moves_left = (self.left[right_end.node] >= 0
                                and not at_least_as_steep(in_x, in_y, line_x, line_y))
            if left_moves_right and right_moves_left:
                # Where do the line through a's next edge and the line through
                # b's previous edge cross: left of the junction or right of it?
                cross = out_x * in_y - out_y * in_x
                numerator = (line_x * in_y - line_y * in_x) * out_x
                # x of the crossing = a.x + numerator / cross; cross < 0 here.
                # A crossing exactly at the junction moves b: with collinear
                # vertices, moving a there can step past the bridge's end.
                crossing_left = numerator > rest_x * cross
                if crossing_left:
                    self.go_right(&left_end)
                else:
                    self.go_left(&right_end)
                continue
            if left_moves_right:
                self.go_right(&left_end)
                continue
            if right_moves_left:
                self.go_left(&right_end)
                continue
            break
        # The local conditions that define the bridge, checked at the result:
        # a turns clockwise before the line and nothing after a or before b
        # rises to it, and b's next vertex is strictly below it.  Should the
        # descent ever have stopped short, the nested search settles it.
        self.suffix(&left_end, &rest_x, &rest_y)
        self.prefix(&right_end, &reach_x, &reach_y)
        line_x = rest_x + reach_x
        line_y = rest_y + reach_y
        if (not at_least_as_steep(line_x, line_y,
                                  self.d[2 * left_end.node], self.d[2 * left_end.node + 1])
                and not (self.out_edge(&left_end, &out_x, &out_y)
                         and not at_least_as_steep(line_x, line_y, out_x, out_y))
                and at_least_as_steep(self.d[2 * right_end.node], self.d[2 * right_end.node + 1],
                                      line_x, line_y)
                and not (self.out_edge(&right_end, &in_x, &in_y)
                         and at_least_as_steep(in_x, in_y, line_x, line_y))):
            keep_left[0] = left_end.rank
            first_right[0] = right_end.rank
        else:
            self.bridge_slow(left_root, right_root, keep_left, first_right)

    cdef double set_first_d_h(self, int32_t root, double d_neg, double d_pos,
                              double h) noexcept nogil:
        """Give the chain's first vertex a new d and its known loss term h.

        Returns the loss term the vertex had.  O(log n).
        """
        cdef double old_h
        if self.left[root] >= 0:
            old_h = self.set_first_d_h(self.left[root], d_neg, d_pos, h)
        else:
            old_h = self.h[root]
            self.d[2 * root] = d_neg
            self.d[2 * root + 1] = d_pos
            self.h[root] = h
        self.pull(root)
        return old_h

    cdef int32_t merge(self, int32_t left_root, int32_t right_root,
                       Merge* undo) noexcept nogil:
        """The upper hull of two chains, the right one starting where the left one ends.

        Keeps the left chain up to the bridge and the right chain from it; the
        first kept right vertex takes the bridge as its d (Tatti, Sec. 5.1).
        ``undo`` receives what was cut away, for ``unmerge``.  O(log n).
        """
        cdef int32_t keep_left, first_right, kept_left, rest_left, rest_right, kept_right
        cdef int32_t vertex
        cdef double bridge_neg, bridge_pos, before_neg, before_pos
        undo.rest_left = -1
        undo.rest_right = -1
        undo.right_kept = right_root >= 0
        if left_root < 0 or right_root < 0:
            undo.keep_left = self.chain_size(left_root)
            return left_root if right_root < 0 else right_root
        self.bridge(left_root, right_root, &keep_left, &first_right)
        self.split(left_root, keep_left, &kept_left, &rest_left)
        undo.keep_left = keep_left
        undo.rest_left = rest_left
        if first_right > 1:
            # The bridge spans the removed vertices and the old first edge.  The
            # vertex where it ends takes it as its d before the cut: the kept
            # part's left spine, down to that vertex, is the cut's path, so the
            # cut's own pulls bring their aggregates up to date.
            vertex = self.at_rank(right_root, first_right, &before_neg, &before_pos)
            undo.saved_neg = self.d[2 * vertex]
            undo.saved_pos = self.d[2 * vertex + 1]
            undo.saved_h = self.h[vertex]
            bridge_neg = before_neg + undo.saved_neg
            bridge_pos = before_pos + undo.saved_pos
            if rest_left >= 0:
                bridge_neg = self.cd[2 * rest_left] + bridge_neg
                bridge_pos = self.cd[2 * rest_left + 1] + bridge_pos
            self.set_d(vertex, bridge_neg, bridge_pos)
            self.split(right_root, first_right - 1, &rest_right, &kept_right, True)
            undo.rest_right = rest_right
        else:
            kept_right = right_root
            if rest_left >= 0:
                bridge_neg = self.cd[2 * rest_left] + self.first[2 * kept_right]
                bridge_pos = self.cd[2 * rest_left + 1] + self.first[2 * kept_right + 1]
                undo.saved_neg = self.first[2 * kept_right]
                undo.saved_pos = self.first[2 * kept_right + 1]
                undo.saved_h = self.set_first_d_h(kept_right, bridge_neg, bridge_pos, NAN)
        return self.join(kept_left, kept_right)

    cdef int32_t at_rank(self, int32_t root, int32_t rank, double* before_neg,
                         double* before_pos) noexcept nogil:
        """The vertex at 1-based position ``rank`` and the sum of d before it.  O(log n)."""
        cdef int32_t node = root, child, left_size
        cdef double total_neg = 0.0, total_pos = 0.0
        while True:
            child = self.left[node]
            left_size = self.chain_size(child)
            if rank <= left_size:
                node = child
                continue
            if child >= 0:
                total_neg = total_neg + self.cd[2 * child]
                total_pos = total_pos + self.cd[2 * child + 1]
            if rank == left_size + 1:
                before_neg[0] = total_neg
                before_pos[0] = total_pos
                return node
            total_neg = total_neg + self.d[2 * node]
            total_pos = total_pos + self.d[2 * node + 1]
            rank -= left_size + 1
            node = self.right[node]

    cdef void unmerge(self, int32_t root, Merge* undo,
                      int32_t* out_left, int32_t* out_right) noexcept nogil:
        """Undo ``merge``: the two chains exactly as they were.  O(log n)."""
        cdef int32_t kept_left, kept_right, vertex
        cdef double ignored_neg, ignored_pos
        cdef bint bridged = undo.rest_left >= 0 or undo.rest_right >= 0
        if not undo.right_kept:
            out_left[0] = root
            out_right[0] = -1
            return
        if bridged and 0 < undo.keep_left < self.size[root]:
            # As in merge: restore the bridge vertex first, the cut's pulls follow.
            vertex = self.at_rank(root, undo.keep_left + 1, &ignored_neg, &ignored_pos)
            self.d[2 * vertex] = undo.saved_neg
            self.d[2 * vertex + 1] = undo.saved_pos
            self.h[vertex] = undo.saved_h
            self.split(root, undo.keep_left, &kept_left, &kept_right, True)
            bridged = False
        else:
            self.split(root, undo.keep_left, &kept_left, &kept_right)
        if kept_right >= 0 and bridged:
            self.set_first_d_h(kept_right, undo.saved_neg, undo.saved_pos, undo.saved_h)
        out_left[0] = self.join(kept_left, undo.rest_left)
        out_right[0] = self.join(undo.rest_right, kept_right)

    # ------------------------------------------------------------------
    # Python-level access for tests.

    def __reduce__(self):
        return (_rebuild_chain_pool, (int(self.seed), self.alpha, self.beta,
                                      (self.capacity, self.n_used, self.free_head,
                                       self._buffers())))

    def settled_loss(self, int32_t root):
        """``ch`` of a chain after computing its pending loss terms."""
        return self.chain_loss(root)

    def edge_loss(self, double d_neg, double d_pos):
        return self.loss_term(d_neg, d_pos)

    def merge_chains(self, int32_t left_root, int32_t right_root):
        """Merge two chains; returns (root, undo record as a tuple)."""
        cdef Merge undo
        root = self.merge(left_root, right_root, &undo)
        return root, (undo.keep_left, undo.rest_left, undo.rest_right, undo.saved_neg,
                      undo.saved_pos, undo.saved_h, undo.right_kept)

    def unmerge_chain(self, int32_t root, record):
        cdef Merge undo
        cdef int32_t left_root, right_root
        (undo.keep_left, undo.rest_left, undo.rest_right, undo.saved_neg,
         undo.saved_pos, undo.saved_h, undo.right_kept) = record
        self.unmerge(root, &undo, &left_root, &right_root)
        return left_root, right_root

    def find_bridge(self, int32_t left_root, int32_t right_root, bint slow=False):
        """(vertices kept from the left chain, 1-based first vertex kept from the right)."""
        cdef int32_t keep_left, first_right
        if slow:
            self.bridge_slow(left_root, right_root, &keep_left, &first_right)
        else:
            self.bridge(left_root, right_root, &keep_left, &first_right)
        return keep_left, first_right

    def chain_from(self, d_neg, d_pos):
        """A new chain with the given vertex differences; returns its root."""
        cdef Py_ssize_t index, n = len(d_neg)
        cdef int32_t root = -1
        self.reserve(n)
        for index in range(n):
            root = self.join(root, self.new_vertex(d_neg[index], d_pos[index]))
        return root

    def vertices(self, int32_t root):
        """The chain's differences in order, as arrays (d_neg, d_pos)."""
        slots = self.in_order(root)
        return self.d_buffer[slots, 0].copy(), self.d_buffer[slots, 1].copy()

    def in_order(self, int32_t root):
        slots, stack, node = [], [], root
        while stack or node >= 0:
            while node >= 0:
                stack.append(node)
                node = self.left[node]
            node = stack.pop()
            slots.append(node)
            node = self.right[node]
        return np.array(slots, dtype=np.int64)

    def _bottom_up(self, int32_t root):
        """Slots of the chain's tree, every node after its children."""
        order, stack = [], [root] if root >= 0 else []
        while stack:
            node = stack.pop()
            order.append(node)
            for child in (self.left[node], self.right[node]):
                if child >= 0:
                    stack.append(child)
        return order[::-1]

    def split_chain(self, int32_t root, int32_t count):
        cdef int32_t left_root, right_root
        self.split(root, count, &left_root, &right_root)
        return left_root, right_root

    def join_chains(self, int32_t left_root, int32_t right_root):
        return self.join(left_root, right_root)

    def free_chain(self, int32_t root):
        for slot in self.in_order(root):
            self.free_vertex(slot)

    def _check_chain(self, int32_t root):
        """Heap order, loss terms, sizes and sums bit-equal to their recomputation; reads only.

        O(size of the chain).  Returns the slots of the chain's tree.
        """
        cdef int32_t child
        cdef ChainAggregates sums
        slots = self._bottom_up(root)
        for node in slots:
            for child in (self.left[node], self.right[node]):
                if child >= 0 and slot_priority(self.seed, child) > slot_priority(self.seed, node):
                    raise AssertionError(f"heap order violated below slot {node}")
            if not isnan(self.h[node]) and self.h[node] != self.loss_term(
                    self.d[2 * node], self.d[2 * node + 1]):
                raise AssertionError(f"loss term of slot {node} does not match its d")
            self.aggregate(node, &sums)
            if (sums.cd_neg, sums.cd_pos, sums.size, sums.first_neg, sums.first_pos,
                    repr(sums.ch), sums.area) != (
                    self.cd[2 * node], self.cd[2 * node + 1], self.size[node],
                    self.first[2 * node], self.first[2 * node + 1], repr(self.ch[node]),
                    self.area[node]):
                raise AssertionError(f"stale aggregates at slot {node}")
        return slots


def _rebuild_chain_pool(seed, alpha, beta, pool_state):
    cdef ChainPool pool = ChainPool.__new__(ChainPool, 1, seed, alpha, beta)
    pool._restore(*pool_state)
    return pool
