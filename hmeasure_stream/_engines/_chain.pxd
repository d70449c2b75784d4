# Declarations of the pool of hull chains (Tatti, Sec. 5.2): every partial
# hull is a treap of its vertices in chain order; a vertex stores its
# difference d to the previous vertex and the subtree sum cd of d.

cimport cython
from libc.math cimport fma
from libc.stdint cimport int32_t

from hmeasure_stream._engines._cost cimport edge_loss
from hmeasure_stream._engines._pool cimport SlotPool


cdef struct Cursor:
    # A vertex reached by descending a chain's tree, with what the descent knows.
    # Only sums of non-negative d are kept, never differences of coordinates, so
    # every vector between two vertices is accurate relative to its own size,
    # whatever the spread of the weights (see ``ChainPool.cursor``).
    int32_t node
    int32_t rank          # 1-based position of the vertex in its chain
    double outside_x      # sum of d before the vertex's subtree (after it if from_end)
    double outside_y
    double after_x        # d of the nearest ancestor that follows it (its successor
    double after_y        # when it has no right subtree), if any
    bint has_after
    bint from_end         # the cursor measures to the chain's end (suffix), not from its start


cdef struct Merge:
    # What a merge of two chains removed, so that it can be undone exactly.
    int32_t keep_left       # vertices kept from the left chain
    int32_t rest_left       # root of the left chain's removed suffix (-1: none)
    int32_t rest_right      # root of the right chain's removed prefix (-1: none)
    double saved_neg        # the first kept right vertex's d before it became the bridge
    double saved_pos
    double saved_h          # ... and its loss term (restored without recomputing it)
    bint right_kept         # the right chain kept vertices (False: it was empty)


cdef inline bint at_least_as_steep(double ux, double uy, double vx, double vy) noexcept nogil:
    """slope(u) >= slope(v) for vectors with non-negative components, neither zero; exact.

    The sign of uy vx - vy ux exactly, whatever the spread of the weights:
    rounding is monotone, so two rounded products that differ are ordered as
    the exact ones; when they are equal, the exact products differ by the
    difference of their rounding errors, which ``fma`` gives exactly (stored
    weights lie within 2**-400 .. 2**400, so nothing underflows).  The second
    branch is rare: the test costs two products and a comparison.
    """
    cdef double first = uy * vx, second = vy * ux
    if first != second:
        return first > second
    return fma(uy, vx, -first) >= fma(vy, ux, -second)


cdef struct SubsetWalk:
    # Alg. 3 (Subset) over a hull chain with its H-measure loss summed on the way.
    double epsilon
    double total_neg           # the chain's end point (N0, N1)
    double total_pos
    double rate_neg            # pi0 / N0 and pi1 / N1: class weight -> prior-weighted rate
    double rate_pos
    double alpha
    double beta
    int integer_order
    double previous_x          # the last vertex put in the subset Q
    double previous_y
    double loss                # sum of the loss terms of Q's edges so far
    int32_t count              # vertices put in Q so far
    double* record_x           # if not NULL: Q's vertices are written here (for tests)
    double* record_y


cdef inline void subset_edge(SubsetWalk* walk, double x, double y) noexcept nogil:
    """Put the vertex (x, y) in Q: add the loss term of the edge from Q's previous vertex.

    With float weights, coordinates summed in different orders may differ by
    an ulp; a difference below zero is rounding and counts as zero.
    """
    walk.loss += edge_loss(walk.rate_neg * max(x - walk.previous_x, 0.0),
                           walk.rate_pos * max(y - walk.previous_y, 0.0),
                           walk.alpha, walk.beta, walk.integer_order)
    if walk.record_x != NULL:
        walk.record_x[walk.count] = x
        walk.record_y[walk.count] = y
    walk.previous_x = x
    walk.previous_y = y
    walk.count += 1


cdef struct ChainAggregates:
    # What a vertex's subtree sums up (see ChainPool.pull).
    double cd_neg
    double cd_pos
    double first_neg
    double first_pos
    double ch
    double area
    int32_t size


@cython.final
cdef class ChainPool(SlotPool):
    cdef public object d_buffer           # shape (capacity, 2): class 0, class 1
    cdef public object cd_buffer
    cdef public object first_buffer
    cdef public object h_buffer
    cdef public object ch_buffer
    cdef public object area_buffer
    cdef public object size_buffer

    # 2-vectors at [2 v] (class 0) and [2 v + 1] (class 1) of vertex v:
    cdef double* d            # class weights of the edge into this vertex (x and y steps)
    cdef double* cd           # subtree sums of d
    cdef double* first        # d of the subtree's first vertex (a successor's edge in O(1))
    cdef double* h            # the H-measure loss term of the edge into this vertex
    cdef double* ch           # subtree sum of h
    cdef double* area         # area under the subtree's chain, above its start
    cdef int32_t* size        # vertices in the subtree

    cdef readonly double alpha       # Beta(alpha, beta) of the H-measure's cost
    cdef readonly double beta
    cdef readonly int integer_order  # alpha + beta when both are integers (closed form), else 0

    cdef int32_t new_vertex(self, double d_neg, double d_pos) noexcept nogil
    cdef void free_vertex(self, int32_t vertex) noexcept nogil
    cdef double loss_term(self, double d_neg, double d_pos) noexcept nogil
    cdef void set_d(self, int32_t vertex, double d_neg, double d_pos) noexcept nogil
    cdef void settle(self, int32_t vertex) noexcept nogil
    cdef double chain_loss(self, int32_t root) noexcept nogil
    cdef void subset_walk(self, int32_t vertex, double start_x, double start_y,
                          double end_x, double end_y, SubsetWalk* walk) noexcept nogil
    cdef double set_first_d_h(self, int32_t root, double d_neg, double d_pos,
                              double h) noexcept nogil
    cdef void aggregate(self, int32_t vertex, ChainAggregates* out) noexcept nogil
    cdef void pull(self, int32_t vertex) noexcept nogil
    cdef double pending_loss(self, int32_t vertex) noexcept nogil
    cdef void split(self, int32_t root, int32_t count,
                    int32_t* out_left, int32_t* out_right,
                    bint first_changed=*) noexcept nogil
    cdef int32_t chain_size(self, int32_t root) noexcept nogil
    cdef Cursor cursor(self, int32_t root, bint from_end) noexcept nogil
    cdef void prefix(self, Cursor* cursor, double* out_x, double* out_y) noexcept nogil
    cdef void suffix(self, Cursor* cursor, double* out_x, double* out_y) noexcept nogil
    cdef void go_left(self, Cursor* cursor) noexcept nogil
    cdef void go_right(self, Cursor* cursor) noexcept nogil
    cdef bint out_edge(self, Cursor* cursor, double* out_x, double* out_y) noexcept nogil
    cdef Cursor tangent(self, int32_t root, double offset_x, double offset_y,
                        double* touch_x, double* touch_y) noexcept nogil
    cdef void last_edge(self, int32_t root, double* out_x, double* out_y) noexcept nogil
    cdef void bridge(self, int32_t left_root, int32_t right_root,
                     int32_t* keep_left, int32_t* first_right) noexcept nogil
    cdef bint _bridge_at_origin(self, int32_t left_root, int32_t right_root,
                                int32_t* keep_left, int32_t* first_right) noexcept nogil
    cdef void bridge_slow(self, int32_t left_root, int32_t right_root,
                          int32_t* keep_left, int32_t* first_right) noexcept nogil
    cdef int32_t at_rank(self, int32_t root, int32_t rank, double* before_neg,
                         double* before_pos) noexcept nogil
    cdef int32_t merge(self, int32_t left_root, int32_t right_root,
                       Merge* undo) noexcept nogil
    cdef void unmerge(self, int32_t root, Merge* undo,
                      int32_t* out_left, int32_t* out_right) noexcept nogil
