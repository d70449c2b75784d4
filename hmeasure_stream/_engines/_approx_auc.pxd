# Declarations of the approximate AUC engine on the score treap (Tatti,
# "Efficient estimation of AUC in a sliding window", Secs. 3-4): the list P
# of the treap nodes holding points of the listed class, with gap counters,
# and the (1 + epsilon)-compressed list C the estimate is read from.

cimport cython
from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._auc cimport AUCEngine
from hmeasure_stream._engines._pool cimport Slot
from hmeasure_stream._engines._treap cimport slot_count

cdef enum:
    # List entries are treap slots shifted by two; entries 0 and 1 are the
    # paper's sentinel nodes of score -inf and +inf (no points, always in P and C).
    HEAD = 0
    TAIL = 1
    FIRST_SLOT_ENTRY = 2
    # ``p_next`` / ``p_prev`` / ``c_next`` of an entry that is not in the list;
    # -1 is "none" (the ends of the lists).
    NOT_LISTED = -2


cdef inline bint within(int64_t listed_before_next, int64_t listed_through,
                        double alpha) noexcept nogil:
    """Eq. 3 of the paper for two consecutive entries v, w of C: hp(w) <= alpha (hp(v) + p(v)).

    The one comparison of the compressed list (maintenance and ``_check``):
    ``listed_before_next`` is hp(w), ``listed_through`` is hp(v) + p(v).
    """
    return <double>listed_before_next <= alpha * <double>listed_through


cdef inline int64_t entry_count(const Slot* slots, bint is_pos, int32_t entry) noexcept nogil:
    """A class's points at a list entry (the treap's slot records); 0 at a sentinel."""
    if entry < FIRST_SLOT_ENTRY:
        return 0
    return slot_count(slots, is_pos, entry - FIRST_SLOT_ENTRY)


@cython.final
cdef class ApproxAUCEngine(AUCEngine):
    cdef public object p_next_buffer    # int32 per entry: next entry in P
    cdef public object p_prev_buffer    # int32 per entry: previous entry in P
    cdef public object gap_other_p_buffer   # int64: gn(v; P), the other class in v's gap
    cdef public object c_next_buffer    # int32: next entry in C
    cdef public object gap_listed_c_buffer  # int64: gp(v; C)
    cdef public object gap_other_c_buffer   # int64: gn(v; C)
    cdef int32_t* p_next
    cdef int32_t* p_prev
    cdef int64_t* gap_other_p
    cdef int32_t* c_next
    cdef int64_t* gap_listed_c
    cdef int64_t* gap_other_c
    cdef int32_t entries            # length of the buffers: treap capacity + 2
    cdef readonly double epsilon
    cdef readonly double alpha      # 1 + epsilon
    # False: the lists are over class 0 (the estimate is within epsilon auc / 2);
    # True: over class 1, estimate 1 - (the paper's estimate of 1 - auc).
    cdef readonly bint flip
    cdef readonly int32_t compressed_entries   # |C| without the two sentinels

    cdef double _key(self, int32_t entry) noexcept nogil
    cdef int32_t _max_listed(self, double key, int64_t* other_below_key,
                             int64_t* other_below_found, int32_t* at_key) noexcept nogil
    cdef int32_t _find_compressed(self, double key, int32_t* previous,
                                  int64_t* listed_before) noexcept nogil
    cdef void _add_next(self, int32_t entry) noexcept nogil
    cdef void _compress(self) noexcept nogil
    cdef void _restore_eq3(self) noexcept nogil
    cdef int _add_listed(self, bint is_pos, double score) except -1 nogil
    cdef int _remove_listed(self, bint is_pos, double score, int32_t node) except -1 nogil
    cdef int _update_other(self, bint is_pos, double score, bint adding) except -1 nogil
    cdef double _approx_auc(self) noexcept nogil
