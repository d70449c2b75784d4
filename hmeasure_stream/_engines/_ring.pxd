# Declarations of the ring of the points in a count window, oldest first.

cimport cython
from libc.stdint cimport uint8_t


@cython.final
cdef class PointRing:
    cdef public object is_pos_buffer
    cdef public object score_buffer
    cdef public object weight_buffer
    cdef uint8_t* is_pos
    cdef double* score
    cdef double* weight
    cdef readonly Py_ssize_t capacity    # the window; 0: unbounded (nothing is stored)
    cdef readonly Py_ssize_t head        # slot of the oldest point
    cdef readonly Py_ssize_t size

    cdef bint push(self, uint8_t is_pos, double score, double weight, uint8_t* out_is_pos,
                   double* out_score, double* out_weight) noexcept nogil
