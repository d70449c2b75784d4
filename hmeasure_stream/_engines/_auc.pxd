# Declarations of the exact AUC engine on the score treap (Tatti,
# "Maintaining AUC and H-measure over time", Sec. 4), the base of every
# engine that keeps points in the score treap.

from libc.stdint cimport int64_t, uint8_t

from hmeasure_stream._engines._numeric cimport wide_uint
from hmeasure_stream._engines._ring cimport Forgetting, PointRing
from hmeasure_stream._engines._treap cimport ScoreTreap

cdef enum Operation:
    # What ``_guarded`` runs for an entry point.
    ADD_POINT
    REMOVE_POINT
    ADD_BATCH
    REMOVE_BATCH
    SLIDE
    READ
    FORGET_POINT
    FORGET_BATCH
    FORGET_REMOVE


cdef class AUCEngine:
    cdef readonly ScoreTreap tree
    # Unit weights: 2U of Props 1-2, an exact integer (compensated pair).
    cdef double twice_u
    cdef double twice_u_compensation
    # Set while an operation runs: other threads may not mutate then.
    cdef bint busy
    # Weights are stored times ``inverse_scale``, a power of two fixed by the
    # first positive weight (0 until then, and again once emptied): every
    # result is the same whatever the scale of the weights.
    cdef double inverse_scale
    # DeLong's variance (with the tree's placements), unit mode: the sums over
    # class 1 of a^2, a = 2 (class 0 below) + (class 0 at its score), and over
    # class 0 of b^2, b = 2 (class 1 above) + (class 1 at its score); exact.
    cdef wide_uint square_pos
    cdef wide_uint square_neg
    # The decay factor the newest point was stored with (1 without decay).
    cdef double newest_decay
    # Record auc_var, auc_lo, auc_hi in ``slide`` (the interval's normal quantiles).
    cdef readonly bint interval
    cdef double quantile_low
    cdef double quantile_high

    cdef int _check_idle(self) except -1
    cdef object _guarded(self, Operation operation, object first, object second, object third,
                         object fourth)
    cdef int _point(self, object y_true, object y_score, object weight, bint adding) except -1
    cdef object _stored_weights(self, object weights, Py_ssize_t n, bint adding,
                                double* inverse, Py_ssize_t* refused)
    cdef Py_ssize_t _batch(self, object is_pos_array, object scores_array,
                           object weights_array, bint adding) except -2
    cdef Py_ssize_t _slide(self, PointRing ring, object is_pos_array, object scores_array,
                           object weights_array, object out_array) except -2
    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1
    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil
    cdef int _tree_update(self, bint is_pos, double score, double weight,
                          bint adding) except -1 nogil
    cdef void _track_squares(self, bint is_pos, bint adding, double below_neg,
                             double above_pos, double at_neg, double at_pos) noexcept nogil
    cdef double _variance(self, double scale) noexcept nogil
    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil
    cdef void _interval_into(self, double auc, double* out) noexcept nogil
    cdef object _read(self)
    cdef double _auc(self) noexcept nogil
    # Windows and decay (``Forgetting``): the points leave here.
    cdef void _scale_weights(self, double factor) noexcept nogil
    cdef int _forget_one(self, Forgetting forgetting, uint8_t is_pos, double score,
                         double weight, int64_t time, bint has_time) except -1 nogil
    cdef object _forget_point(self, Forgetting forgetting, object time, object y_true,
                              object y_score, object weight)
    cdef Py_ssize_t _forget_batch(self, Forgetting forgetting, object times, object out,
                                  object held, object is_pos_array, object scores_array,
                                  object weights_array) except -2
    cdef object _forget_remove(self, Forgetting forgetting, object is_pos_array,
                               object scores_array, object weights_array)


cdef class ThresholdEngine(AUCEngine):
    # R hmeasure's metrics of the rule "class 1 when score > threshold".
    cdef readonly double threshold

    cdef void _threshold_metrics(self, double* out) noexcept nogil
