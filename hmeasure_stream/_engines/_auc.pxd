# Declarations of the exact AUC engine on the score treap (Tatti,
# "Maintaining AUC and H-measure over time", Sec. 4), the base of every
# engine that keeps points in the score treap.


from hmeasure_stream._engines._numeric cimport wide_uint
from hmeasure_stream._engines._protocol cimport PointEngine
from hmeasure_stream._engines._treap cimport ScoreTreap

cdef class AUCEngine(PointEngine):
    cdef readonly ScoreTreap tree
    # Unit weights: 2U of Props 1-2, an exact integer (compensated pair).
    cdef double twice_u
    cdef double twice_u_compensation
    # DeLong's variance (with the tree's placements), unit mode: the sums over
    # class 1 of a^2, a = 2 (class 0 below) + (class 0 at its score), and over
    # class 0 of b^2, b = 2 (class 1 above) + (class 1 at its score); exact.
    cdef wide_uint square_pos
    cdef wide_uint square_neg
    # Record auc_var, auc_lo, auc_hi in ``slide`` (the interval's normal quantiles).
    cdef readonly bint interval
    cdef double quantile_low
    cdef double quantile_high

    cdef int _tree_update(self, bint is_pos, double score, double weight,
                          bint adding) except -1 nogil
    cdef void _track_squares(self, bint is_pos, bint adding, double below_neg,
                             double above_pos, double at_neg, double at_pos) noexcept nogil
    cdef double _variance(self, double scale) noexcept nogil
    cdef void _interval_into(self, double auc, double* out) noexcept nogil
    cdef double _auc(self) noexcept nogil
