# Declarations of the Fenwick tree of class counts indexed by dense rank.

cimport cython
from libc.stdint cimport int32_t, int64_t


@cython.final
cdef class RankCounts:
    cdef object tree_buffer      # interleaved (class 0, class 1) partial sums, 1-based
    cdef object at_buffer        # interleaved (class 0, class 1) counts at each rank
    cdef int32_t* tree
    cdef int32_t* at
    cdef readonly Py_ssize_t n_ranks
    cdef readonly int64_t n_neg
    cdef readonly int64_t n_pos

    cdef void below(self, Py_ssize_t rank, int64_t* neg, int64_t* pos) noexcept nogil
    cdef void update(self, Py_ssize_t rank, bint is_pos, int32_t change) noexcept nogil
    cdef int64_t pairs(self, Py_ssize_t rank, bint is_pos) noexcept nogil
