# Declarations of the array-backed treap over distinct scores (Tatti,
# "Maintaining AUC and H-measure over time", Sec. 4).

cimport cython
from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._pool cimport Slot, SlotPool


cdef struct NodeSums:
    # A node's score and its subtree aggregates, one 32-byte record (half a
    # cache line): a search reads the score of each node it passes and the
    # aggregates of a child, which is the next node half the time.
    double key
    double subtree_neg      # class counts of the subtree (exact integers)
    double subtree_pos
    double subtree_pairs    # 2U of the subtree (see pull), exact


cdef inline int32_t slot_count(const Slot* slots, bint is_pos, int32_t slot) noexcept nogil:
    """One class's points at a node's score (its ``Slot`` record)."""
    return slots[slot].count_pos if is_pos else slots[slot].count_neg


cdef inline double subtree_weight(const NodeSums* sums, bint is_pos, int32_t slot) noexcept nogil:
    """One class's points in a node's subtree."""
    return sums[slot].subtree_pos if is_pos else sums[slot].subtree_neg


@cython.final
cdef class ScoreTreap(SlotPool):
    # The class counts at a node's score are in the pool's ``Slot`` record,
    # beside its links (``slots[node].count_neg``, ``.count_pos``).
    cdef public object sums_buffer      # (capacity, 4) float64: ``NodeSums``

    cdef NodeSums* sums

    cdef readonly int32_t root
    cdef readonly int64_t n_points

    cdef int32_t* path
    cdef int32_t path_capacity

    cdef int _grow_path(self) except -1 nogil
    cdef int32_t _new_node(self, double key) noexcept nogil
    cdef double node_neg(self, int32_t node) noexcept nogil
    cdef double node_pos(self, int32_t node) noexcept nogil
    cdef void pull(self, int32_t node) noexcept nogil
    cdef void aggregate(self, int32_t node, double* total_neg, double* total_pos,
                        double* pairs) noexcept nogil
    cdef int32_t find(self, double key) noexcept nogil
    cdef int32_t lcount(self, double key, double* below_neg, double* below_pos) noexcept nogil
    cdef void split(self, int32_t node, double key,
                    int32_t* out_left, int32_t* out_right) noexcept nogil
    cdef int32_t _descend(self, double key, int32_t* depth, double* below_neg,
                          double* above_pos, double* at_neg, double* at_pos) except -2 nogil
    cdef void _replace_child(self, int32_t depth, double key, int32_t node) noexcept nogil
    cdef int add(self, double key, bint is_pos, double weight,
                 double* below_neg, double* above_pos,
                 double* at_neg, double* at_pos) except -1 nogil
    cdef int remove(self, double key, bint is_pos, double weight,
                    double* below_neg, double* above_pos,
                    double* at_neg, double* at_pos) except -1 nogil
    cdef void _update_ancestors(self, int32_t depth, double key, bint is_pos, double change,
                                double below_neg, double above_pos, double at_neg,
                                double at_pos) noexcept nogil
    cdef int32_t count_at(self, double key, bint is_pos) noexcept nogil
    cdef double class_total(self, bint is_pos) noexcept nogil
    cdef double twice_u(self) noexcept nogil
