# Declarations of the hull engine: the ROC convex hull under insertion and
# deletion on the score treap (Tatti, "Maintaining AUC and H-measure over
# time", Secs. 5.1-5.3, after Overmars and van Leeuwen).

from libc.stdint cimport int32_t, uint8_t

from hmeasure_stream._engines._auc cimport AUCEngine
from hmeasure_stream._engines._chain cimport ChainPool, Merge
from hmeasure_stream._engines._cost cimport Cost


cdef class HullEngine(AUCEngine):
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
    # How H is read: epsilon 0 is the exact H (priors from the data); epsilon
    # > 0 the approximate H of Sec. 6 under ``cost``.
    cdef readonly double epsilon
    cdef readonly object cost_rule
    cdef Cost cost
    # The report's lower hull (``track_lower``): None, or an engine holding the
    # same points with the classes swapped, whose upper hull is our lower hull.
    cdef readonly HullEngine lower
    cdef bint has_lower
    # MWL's cost c while the report's KS, MER and MWL are recorded (nan: not).
    cdef readonly double report_cost

    cdef void _hand_out(self, int32_t node, int32_t left_hull, int32_t right_hull) noexcept nogil
    cdef void _open(self, int32_t node) noexcept nogil
    cdef void _open_toward(self, int32_t node, bint going_left) noexcept nogil
    cdef double _subtree_weight(self, int32_t node) noexcept nogil
    cdef void _close(self, int32_t node) noexcept nogil
    cdef void _open_path(self, double key) noexcept nogil
    cdef void _close_opened(self, int32_t node) noexcept nogil
    cdef bint _class_weights(self, double* weight_neg, double* weight_pos) noexcept nogil
    cdef double _h(self) noexcept nogil
    cdef double _approx_h(self, int32_t* subset_edges, double* record_x=*,
                          double* record_y=*) noexcept nogil
    cdef double _auch(self) noexcept nogil
    cdef void _scale_weights(self, double factor) noexcept nogil
    cdef void _hull_argmax(self, double a, double b, double* x, double* y) noexcept nogil
    cdef void _extremes(self, double cost, double* ks, double* mer,
                        double* mwl) noexcept nogil
