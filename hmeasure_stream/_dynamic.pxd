# Declarations of the dynamic-metric engines built on the score treap.

from libc.stdint cimport int64_t

from hmeasure_stream._treap cimport ScoreTreap


cdef class AUCEngine:
    cdef readonly ScoreTreap tree
    cdef double twice_u               # 2U of seed 000 Props 1-2, compensated pair
    cdef double twice_u_compensation
    cdef readonly bint exact          # every weight so far is 1: 2U is an exact integer
    cdef int64_t updates_since_rebuild

    cdef int _add(self, bint is_pos, double score, double weight) except -1 nogil
    cdef int _remove(self, bint is_pos, double score, double weight) except -1 nogil
    cdef void _after_update(self) noexcept nogil
    cdef void _recompute_twice_u(self) noexcept nogil
    cdef double _auc(self) noexcept nogil
