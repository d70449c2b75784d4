# Declarations of the blocked ROC-hull engine: BlockedAUCEngine whose segment
# tree nodes also keep their ROC upper hull as a contiguous array of edges
# (see _blocked_hull.pyx).

from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._blocked cimport BLOCK, BlockedAUCEngine
from hmeasure_stream._engines._cost cimport Cost


cdef struct Hull:
    # The upper hull of a node's ROC points, relative to the node's start (0, 0):
    # edge k at edge[3 k .. 3 k + 2] = (class 0 step, class 1 step, loss term).
    double* edge
    int32_t size            # edges (= vertices after the implicit origin)
    int32_t capacity        # edges the allocation holds (grown by doubling)
    double total_neg        # the node's end point: sums of its edges
    double total_pos
    double loss             # sum of the edges' loss terms (from the children, never accumulated)
    double area2            # twice the area under the hull, above the node's start
    # Copies saved: the hull's first ``kept`` edges are the right child's first ``kept``
    # while the right child's ``stamp`` is still ``right_stamp`` (see _merge_into).
    int64_t stamp           # changes with every recomputation of the hull
    int64_t right_stamp     # the right child's stamp when this hull was merged
    int32_t kept


cdef class BlockedHullEngine(BlockedAUCEngine):
    cdef Hull* hulls                 # per tree node (index 1 .. 2 leaves - 1), NULL before init
    # The report's lower hull (``track_lower``), per tree node as ``hulls``, NULL until
    # then: the upper hull of the same blocks read with the classes swapped.
    cdef Hull* lower_hulls
    cdef int32_t hull_nodes          # entries of ``hulls`` (2 leaves)
    cdef readonly double alpha
    cdef readonly double beta
    cdef int integer_order
    cdef Hull work                   # scratch hull for _check
    cdef double leaf_work[3 * BLOCK]
    cdef int64_t leaf_counts[2 * BLOCK]
    # A batch defers the hulls: leaves changed are flagged, recomputed once at its end.
    cdef bint deferring
    cdef object dirty_buffer         # (leaves,) uint8: the leaf's hull is stale (batch only)
    cdef unsigned char* dirty
    # Diagnostic counters (not state): edges copied into node hulls, loss terms computed.
    cdef readonly int64_t edges_copied
    cdef readonly int64_t loss_calls
    cdef int64_t stamps              # the last stamp given to a recomputed hull
    # How H is read: epsilon 0 is the exact H (priors from the data); epsilon
    # > 0 the approximate H of Sec. 6 under ``cost`` (``set_reading``).
    cdef readonly double epsilon
    cdef readonly object cost_rule
    cdef Cost cost
    # Cumulative root vertices for the subset walk, (x, y) per vertex; kept at least
    # as large as the root's hull (``_pull_node`` of the root reserves it).
    cdef Hull vertices
    cdef readonly bint has_lower
    # MWL's cost c while the report's KS, MER and MWL are recorded (nan: not).
    cdef readonly double report_cost

    cdef int _reserve_edges(self, Hull* hull, int32_t size) except -1 nogil
    cdef int _allocate_nodes(self, int32_t leaves) except -1
    cdef int _flush(self) except -1
    cdef Py_ssize_t _batch(self, object is_pos_array, object scores_array,
                           object weights_array, bint adding) except -2
    cdef void _scale_weights(self, double factor) noexcept nogil
    cdef int _leaf_into(self, int32_t slot, Hull* out, bint swapped) except -1 nogil
    cdef int _merge_into(self, const Hull* right, const Hull* left, Hull* out) except -1 nogil
    cdef const Hull* _defined_root(self) noexcept nogil
    cdef double _h(self) noexcept nogil
    cdef double _auch(self) noexcept nogil
    cdef double _approx_h(self, int32_t* subset_edges, double* record_x=*,
                          double* record_y=*) noexcept nogil
    cdef double _reading(self) noexcept nogil
    cdef void _hull_argmax(self, const Hull* root, double a, double b, double* x,
                           double* y) noexcept nogil
    cdef void _extremes(self, double cost, double* ks, double* mer,
                        double* mwl) noexcept nogil
