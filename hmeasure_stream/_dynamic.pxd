# Declarations of the dynamic-metric engines built on the score treap.

from hmeasure_stream._treap cimport ScoreTreap


cdef class AUCEngine:
    cdef readonly ScoreTreap tree
    # Unit weights: 2U of seed 000 Props 1-2, an exact integer (compensated pair).
    cdef double twice_u
    cdef double twice_u_compensation
    # Set while a loop runs without the GIL: other threads may not mutate then.
    cdef bint busy

    cdef int _check_idle(self) except -1
    cdef int _enter(self) except -1
    cdef int _admit_point(self, object y_true, object y_score, object weight, bint adding,
                          bint* is_pos, double* score, double* point_weight) except -1
    cdef int _add(self, bint is_pos, double score, double weight) except -1 nogil
    cdef int _remove(self, bint is_pos, double score, double weight) except -1 nogil
    cdef double _auc(self) noexcept nogil
