# Declarations of the entry points every engine of points shares (see _protocol.pyx),
# the update statuses and the removal tolerance:
# the claim against concurrent use, single points, batches, window rings, windows and
# decay, weights in the structure's units.  A subclass keeps the points and fills in
# the hooks.

from libc.stdint cimport int32_t, int64_t, uint8_t

from hmeasure_stream._engines._numeric cimport inverse_scale_of, stored_weight
from hmeasure_stream._engines._ring cimport Forgetting, PointRing

cpdef enum Status:
    # The outcome of an update, shared by every engine and the public layer.
    DONE = 0
    NOT_PRESENT = 1        # removal: no point of that class at that score
    WEIGHT_EXCEEDS = 2     # removal: more weight than the points there hold
    UNCHECKED = 3          # a value the compiled fast path does not take: validate in Python
    OUT_OF_RANGE = 4       # addition: a weight too far in magnitude from the structure's scale


cdef inline bint removal_exceeds(double weight, double held) noexcept nogil:
    """Whether removing ``weight`` from points holding ``held`` asks for more than they have.

    The one place of the removal tolerance: rounding of the compensated sums
    allows 1e-9 of the weight removed (the point's own weight, so that the
    tolerance does not grow with the other points of its class).
    """
    return weight > held + 1e-9 * weight


cdef inline bint removal_leaves_weight(double weight, double held) noexcept nogil:
    """Whether removing ``weight`` from points holding ``held`` leaves weight behind.

    With the tolerance of ``removal_exceeds``: the last point of a class at
    a score leaves only with its whole weight.
    """
    return held - weight > 1e-9 * weight


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


cdef inline int point_weight(double weight, double inverse_scale, bint adding,
                             double* stored, double* inverse) noexcept nogil:
    """A point's weight in a structure's units: DONE, or OUT_OF_RANGE if it cannot be stored.

    While ``inverse_scale`` is 0 (no units yet) an addition's positive weight
    fixes them; ``inverse`` receives the units to keep.  Shared by every
    engine's single-point paths.
    """
    stored[0] = weight
    inverse[0] = inverse_scale
    if weight != 1.0 or inverse_scale != 1.0:
        if inverse_scale == 0.0 and adding and weight > 0.0:
            inverse[0] = inverse_scale_of(weight)
        if not stored_weight(weight, inverse[0], stored):
            return OUT_OF_RANGE
    return DONE


cdef class Guarded:
    # The claim against concurrent use, the one guard of every engine: how many
    # claims are held, and the thread of a structure's claim (``claim``), whose
    # operations enter; 0 while only an operation of the engine's own holds it,
    # which nothing enters.
    cdef Py_ssize_t claims
    cdef unsigned long owner

    cdef int _check_idle(self) except -1
    cdef int _claim(self) except -1
    cdef void _release(self) noexcept


cdef class PointEngine(Guarded):
    # Weights are stored times ``inverse_scale``, a power of two fixed by the
    # first positive weight (0 until then, and again once emptied): every
    # result is the same whatever the scale of the weights.
    cdef double inverse_scale
    # The decay factor the newest point was stored with (1 without decay).
    cdef double newest_decay

    cdef int _emptied_rule(self) except -1
    cdef object _guarded(self, Operation operation, object first, object second, object third,
                         object fourth)
    cdef int _point(self, object y_true, object y_score, object weight, bint adding) except -1
    cdef object _stored_weights(self, object weights, Py_ssize_t n, bint adding,
                                double* inverse, Py_ssize_t* refused)
    cdef Py_ssize_t _batch(self, object is_pos_array, object scores_array,
                           object weights_array, bint adding) except -2
    cdef Py_ssize_t _slide(self, PointRing ring, object is_pos_array, object scores_array,
                           object weights_array, object out_array) except -2
    cdef int _forget_one(self, Forgetting forgetting, uint8_t is_pos, double score,
                         double weight, int64_t time, bint has_time) except -1 nogil
    cdef object _forget_point(self, Forgetting forgetting, object time, object y_true,
                              object y_score, object weight)
    cdef Py_ssize_t _forget_batch(self, Forgetting forgetting, object times, object out,
                                  object held, object is_pos_array, object scores_array,
                                  object weights_array) except -2
    cdef object _forget_remove(self, Forgetting forgetting, object is_pos_array,
                               object scores_array, object weights_array)

    # Hooks (virtual): what a subclass keeping the points provides.
    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1
    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil
    cdef Py_ssize_t _held_points(self) noexcept nogil
    cdef bint _stores_weights(self) noexcept nogil
    cdef int32_t _count_at(self, double score, bint is_pos) noexcept nogil
    cdef double _weight_at(self, double score, bint is_pos) noexcept nogil
    cdef int _emptied(self) except -1
    cdef void _scale_weights(self, double factor) noexcept nogil
    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil
    cdef object _read(self)
