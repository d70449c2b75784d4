# Declarations of the array-backed treap over distinct scores (seed 000, Sec. 4).

cimport cython
from libc.stdint cimport int32_t, int64_t, uint64_t


cdef inline uint64_t slot_priority(uint64_t seed, int32_t slot) noexcept nogil:
    """The heap priority of a node slot: splitmix64's finaliser of (seed, slot).

    Priorities are a fixed pseudo-random function of the slot rather than a
    stored field: slots are handed out independently of the keys, so the tree
    stays a random treap, and a node costs no priority buffer.
    """
    cdef uint64_t z = seed + <uint64_t>(slot + 1) * <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


@cython.final
cdef class ScoreTreap:
    # One buffer per field (struct of arrays); the numpy arrays own the memory,
    # the pointers below are refreshed by _bind after every reallocation.
    cdef public object key_buffer
    cdef public object left_buffer
    cdef public object right_buffer
    cdef public object count_neg_buffer
    cdef public object count_pos_buffer
    cdef public object subtree_neg_buffer
    cdef public object subtree_pos_buffer
    # Weighted mode only (None with unit weights, where a node's weight is its
    # point count): compensated class weights and the subtree pair weight.
    cdef public object weight_neg_buffer
    cdef public object weight_pos_buffer
    cdef public object weight_neg_comp_buffer
    cdef public object weight_pos_comp_buffer
    cdef public object subtree_pairs_buffer

    cdef double* key
    cdef int32_t* left          # -1 for none; also links the free list
    cdef int32_t* right
    cdef int32_t* count_neg     # class 0 points at this score
    cdef int32_t* count_pos
    cdef double* subtree_neg    # class weights of the subtree, recomputed from children
    cdef double* subtree_pos
    cdef double* weight_neg     # weighted mode: class weight at this score ...
    cdef double* weight_pos
    cdef double* weight_neg_comp  # ... plus its Neumaier compensation
    cdef double* weight_pos_comp
    cdef double* subtree_pairs  # weighted mode: 2U of the subtree (see pull)

    cdef readonly int32_t root
    cdef readonly int32_t capacity
    cdef readonly int32_t n_nodes       # distinct scores
    cdef readonly int64_t n_points
    cdef readonly bint weighted
    cdef int32_t free_head
    cdef uint64_t seed

    cdef int32_t* path
    cdef int32_t path_capacity

    cdef int _resize(self, Py_ssize_t new_capacity) except -1
    cdef int reserve(self, Py_ssize_t extra_nodes) except -1
    cdef int make_weighted(self) except -1
    cdef int make_unit(self) except -1
    cdef int _grow_path(self) except -1 nogil
    cdef int32_t _new_node(self, double key) noexcept nogil
    cdef void _free_node(self, int32_t node) noexcept nogil
    cdef double node_neg(self, int32_t node) noexcept nogil
    cdef double node_pos(self, int32_t node) noexcept nogil
    cdef void _add_weight(self, int32_t node, bint is_pos, double weight) noexcept nogil
    cdef void pull(self, int32_t node) noexcept nogil
    cdef int32_t find(self, double key) noexcept nogil
    cdef int32_t lcount(self, double key, double* below_neg, double* below_pos) noexcept nogil
    cdef void split(self, int32_t node, double key,
                    int32_t* out_left, int32_t* out_right) noexcept nogil
    cdef int32_t join(self, int32_t left_root, int32_t right_root) noexcept nogil
    cdef int32_t _descend(self, double key, int32_t* depth, double* below_neg,
                          double* above_pos, double* at_neg, double* at_pos) except -2 nogil
    cdef void _replace_child(self, int32_t depth, double key, int32_t node) noexcept nogil
    cdef int add(self, double key, bint is_pos, double weight,
                 double* below_neg, double* above_pos,
                 double* at_neg, double* at_pos) except -1 nogil
    cdef int remove(self, double key, bint is_pos, double weight,
                    double* below_neg, double* above_pos,
                    double* at_neg, double* at_pos) except -1 nogil
    cdef void _update_ancestors(self, int32_t depth, bint is_pos, double change) noexcept nogil
    cdef int32_t count_at(self, double key, bint is_pos) noexcept nogil
    cdef double twice_u(self) noexcept nogil
