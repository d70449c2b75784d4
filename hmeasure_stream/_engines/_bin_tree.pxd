# Declarations of the segment tree of binned class weights (Bouckaert,
# "Efficient AUC learning curve calculation", Sec. 4).

cimport cython
from libc.stdint cimport int64_t

from hmeasure_stream._engines._protocol cimport Guarded
from hmeasure_stream._engines._ring cimport PointRing


cdef struct BinSums:
    # What a node sums up over its bins (lower bins on the left).
    double neg             # class 0 weight
    double pos             # class 1 weight
    double twice_area      # 2 x the area: 2 per (class 0 lower, class 1 higher) pair, 1 per tie
    double ties            # sum over bins of neg_b pos_b: twice the bound's numerator
    double walk            # sum over bins of sqrt(neg_b^2 + pos_b^2) sqrt(neg_b + pos_b)


@cython.final
cdef class BinTree(Guarded):
    # Its entry points that change it hold the claim of ``Guarded`` while they run.
    cdef public object sums_buffer       # (2 size, 5) node sums; leaves at size + b
    cdef public object count_buffer      # (bins, 2) points of each class in each bin
    cdef public object weight_buffer     # (bins, 2) weight of each class in each bin ...
    cdef public object compensation_buffer  # ... plus its Neumaier compensation
    cdef BinSums* sums
    cdef int64_t* count
    cdef double* weight
    cdef double* compensation
    cdef readonly Py_ssize_t bins
    cdef readonly Py_ssize_t size        # leaves: the power of two >= bins
    cdef readonly int64_t n_points
    # Weights are stored times ``inverse_scale``, a power of two fixed by the
    # first positive weight (0: none yet), as in the AUC engine (``_numeric``).
    cdef readonly double inverse_scale
    # The bins of a window (``slide``): the frozen rule of _binning.
    cdef readonly double lo
    cdef readonly double span
    cdef readonly int transform
    cdef readonly double alpha

    cdef void leaf(self, Py_ssize_t bin_index) noexcept nogil
    cdef void pull(self, Py_ssize_t node) noexcept nogil
    cdef void aggregate(self, Py_ssize_t node, BinSums* out) noexcept nogil
    cdef int update(self, Py_ssize_t bin_index, bint is_pos, double weight,
                    bint adding) noexcept nogil
    cdef double _auc(self) noexcept nogil
    cdef Py_ssize_t _slide(self, PointRing ring, object is_pos_array, object scores_array,
                           object weights_array, object out_array) except -2
    cdef Py_ssize_t _apply(self, const int64_t[::1] bin_indices, const unsigned char[::1] is_pos,
                           object weights_array, bint adding) except -2
    cdef bint _add_counts(self, BinTree other) except -1
    cdef void _forget_emptied(self) noexcept
