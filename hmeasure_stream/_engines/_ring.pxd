# Declarations of the ring of the points in a window, oldest first, and of the
# rules that make points leave a structure (count and time windows, decay).

cimport cython
from libc.stdint cimport int64_t, uint8_t


cdef enum:
    # ``is_pos`` of a point retracted before it left the window (``Forgetting``).
    RETRACTED = 2
    # Decay: points whose factor falls below 2^-DROP_EXPONENT relative to the
    # newest leave, in every engine; stored weights are rescaled by a power of
    # two when the newest factor passes 2^RESCALE_EXPONENT.
    DROP_EXPONENT = 60
    RESCALE_EXPONENT = 64


@cython.final
cdef class PointRing:
    cdef public object is_pos_buffer
    cdef public object score_buffer
    cdef public object weight_buffer
    cdef public object time_buffer       # None unless the ring keeps times
    cdef uint8_t* is_pos
    cdef double* score
    cdef double* weight
    cdef int64_t* time
    cdef readonly Py_ssize_t capacity    # the window; 0: unbounded (nothing is stored by push)
    cdef readonly Py_ssize_t slots       # length of the buffers (<= capacity for a window)
    cdef readonly Py_ssize_t head        # slot of the oldest point
    cdef readonly Py_ssize_t size

    cdef bint push(self, uint8_t is_pos, double score, double weight, uint8_t* out_is_pos,
                   double* out_score, double* out_weight) noexcept nogil
    cpdef int reserve(self, Py_ssize_t extra) except -1
    cdef void append(self, uint8_t is_pos, double score, double weight,
                     int64_t time) noexcept nogil
    cdef void pop_oldest(self) noexcept nogil


@cython.final
cdef class ClassRing:
    # The class codes, weights and (optionally) score rows of a count window, oldest
    # first: the multi-class window's record of what leaves.
    cdef readonly object code_buffer     # intp, one per slot
    cdef readonly object weight_buffer
    cdef readonly object row_buffer      # (slots, n_columns) float64; None without rows
    cdef readonly Py_ssize_t capacity    # the window (>= 1): the number of slots
    cdef readonly Py_ssize_t n_columns   # entries of a score row (0: no rows)
    cdef readonly Py_ssize_t head        # slot of the oldest point
    cdef readonly Py_ssize_t size


cdef inline Py_ssize_t ring_slot(PointRing ring, Py_ssize_t offset) noexcept nogil:
    """The slot of the ``offset``-th oldest point."""
    cdef Py_ssize_t slot = ring.head + offset
    return slot - ring.slots if slot >= ring.slots else slot


@cython.final
cdef class Forgetting:
    # The points a structure holds under a window and/or decay, oldest first.
    cdef readonly PointRing ring
    cdef readonly int64_t count          # count window in points (0: none)
    cdef readonly int64_t period         # time window in nanoseconds (0: none)
    cdef readonly double half_life       # in points or nanoseconds (0: no decay)
    cdef readonly bint decay_by_time     # half_life in nanoseconds (else in points)
    cdef readonly double drop_exponent   # decay: points older than this many half-lives leave
    cdef readonly bint needs_time        # every point must come with a time
    cdef readonly int64_t step           # points added so far (the next point's step)
    cdef readonly int64_t newest_time
    cdef readonly bint has_time          # a time was given (newest_time is set)
    cdef readonly int64_t live           # points in the ring not retracted
    # Decay: a point at x (step or time) is stored with weight times
    # 2^((x - anchor - anchor_fraction) / half_life); every stored weight is
    # multiplied by 2^-k (exact) and the anchor moved k half-lives when the
    # newest factor passes 2^RESCALE_EXPONENT.
    cdef readonly int64_t anchor
    cdef readonly double anchor_fraction
    cdef readonly int64_t rescales

    cdef double exponent(self, int64_t x) noexcept nogil
    cdef double decay_to(self, int64_t position, bint empty, int* shift) noexcept nogil
    cdef int64_t position(self, Py_ssize_t offset) noexcept nogil
    cdef bint expired(self) noexcept nogil
