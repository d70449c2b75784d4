# Declarations of the calibration engine of a window: exact sums of the
# probabilities' scores (Brier, log loss, uniform bins) and the expected AUC's
# doubled points (see _calibration.pyx).

from libc.stdint cimport int64_t, uint8_t

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine
from hmeasure_stream._engines._protocol cimport PointEngine

cdef enum:
    # Digits of an exact sum, radix 2**32: bit 0 stands for 2**-1074 (the least
    # double); any double's three digits lie below digit 67, the signed top
    # (sums of 2**31 stored terms stay below 2**510).
    DIGITS = 68
    LOWEST = 1074
    # The accumulators before the bins': the total weight, the Brier and log-loss sums.
    TOTAL = 0
    BRIER = 1
    LOG_LOSS = 2
    FIRST_BIN = 3


cdef void exact_add(int64_t* digits, double value, bint negate) noexcept nogil
cdef double exact_value(const int64_t* digits) noexcept nogil
cdef void exact_shift_down(int64_t* digits, int64_t bits) noexcept nogil


cdef class CalibrationEngine(PointEngine):
    # (accumulators, DIGITS) int64: TOTAL, BRIER, LOG_LOSS, then per bin b its
    # weight (FIRST_BIN + 2 b) and sum of w (p - y) (FIRST_BIN + 2 b + 1).
    cdef public object digit_buffer
    cdef public object count_buffer      # (n_bins,) int64: points per bin
    cdef public object edge_buffer       # (n_bins + 1,) float64: the bins' edges
    cdef object cache_buffer             # (accumulators,) each sum rounded (derived state)
    cdef object dirty_buffer             # (accumulators,) uint8: changed since rounded
    cdef uint8_t* dirty
    cdef bint stale                      # some sum changed since the last read
    cdef int64_t* digits
    cdef int64_t* count
    cdef double* edges
    cdef double* cache
    cdef readonly Py_ssize_t n_bins
    cdef readonly Py_ssize_t accumulators
    cdef readonly int64_t n_points
    cdef readonly tuple columns
    cdef bint with_brier
    cdef bint with_log_loss
    cdef bint with_ece
    cdef bint with_mce
    # The expected AUC: each point as its parts w p (class 1) and w (1 - p) (class 0).
    cdef readonly BlockedAUCEngine parts
    # The scored AUC: class 1 weighing w p and class 0 w (``scored_pos``), and the
    # mirror image (``scored_neg``); None without ``sauc``.
    cdef readonly BlockedAUCEngine scored_pos
    cdef readonly BlockedAUCEngine scored_neg

    cdef int _bind(self) except -1
    cdef int _emptied_rule(self) except -1
    cdef Py_ssize_t _bin_of(self, double probability) noexcept nogil
    cdef void _refresh(self, Py_ssize_t accumulator) noexcept nogil
    cdef void _clear(self, Py_ssize_t accumulator) noexcept nogil
    cdef void _settle(self) noexcept nogil
    cdef double _metric(self, Py_ssize_t column) noexcept nogil
    cdef int _update_scored(self, bint is_pos, double score, double weight,
                            bint adding) except -1 nogil
    cdef double _scored_auc(self) noexcept nogil
