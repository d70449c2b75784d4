# Declarations of the blocked exact AUC engine: the distinct scores in sorted
# blocks of at most BLOCK keys, a segment tree of class aggregates over the
# blocks' positions (see _blocked.pyx).

from libc.stdint cimport int32_t, int64_t

cdef enum:
    # Distinct scores per block (at most); a full block splits in halves.
    BLOCK = 128


cdef class BlockedAUCEngine:
    # Buffers own the memory; the pointers are refreshed by _bind after growth.
    cdef public object key_buffer           # (blocks * BLOCK,) distinct scores
    cdef public object count_neg_buffer     # (blocks * BLOCK,) int32
    cdef public object count_pos_buffer
    cdef public object weight_buffer        # (blocks * BLOCK, 4): neg, pos, neg comp, pos comp
    cdef public object size_buffer          # (blocks,) int32: keys in the block
    cdef public object aggregate_buffer     # (blocks, 3): neg, pos, 2U of the block
    cdef public object order_buffer         # (blocks,) int32: block id at each position
    cdef public object first_buffer         # (blocks,) first key of the block at each position
    cdef public object free_buffer          # (blocks,) int32: stack of free block ids
    cdef public object tree_buffer          # (2 * leaves, 3): segment tree over positions

    cdef double* key
    cdef int32_t* count_neg
    cdef int32_t* count_pos
    cdef double* weight
    cdef int32_t* size
    cdef double* aggregate
    cdef int32_t* order
    cdef double* first
    cdef int32_t* free_ids
    cdef double* tree

    cdef readonly int32_t block_capacity
    cdef readonly int32_t n_blocks
    cdef int32_t n_free
    cdef readonly int32_t leaves            # power of two >= block_capacity
    cdef readonly int64_t n_points
    cdef readonly bint weighted
    # Unit weights: 2U as an exact integer (compensated pair).
    cdef double twice_u
    cdef double twice_u_compensation
    cdef bint busy
    cdef double inverse_scale
    # Diagnostics for benchmarks (always on, not pickled): segment-tree leaves and
    # inner nodes recomputed (or changed in place) since construction; see ``_counters``.
    cdef int64_t leaf_changes
    cdef int64_t node_changes

    cdef int _bind(self) except -1
    cdef int _reserve_blocks(self, Py_ssize_t needed) except -1
    cdef int _grow(self) except -1
    cdef int _check_idle(self) except -1
    cdef int _make_weighted(self) except -1
    cdef void _make_unit(self) noexcept nogil
    cdef void _emptied(self) noexcept nogil
    cdef int32_t _locate(self, double key) noexcept nogil
    cdef int32_t _lower(self, int32_t block, double key) noexcept nogil
    cdef double _held(self, int32_t slot, bint is_pos) noexcept nogil
    cdef void _block_aggregate(self, int32_t block) noexcept nogil
    cdef void _set_leaf(self, int32_t position) noexcept nogil
    cdef void _pull_up(self, int32_t node) noexcept nogil
    cdef void _rebuild_from(self, int32_t position, int32_t stop) noexcept nogil
    cdef void _prefix(self, int32_t position, double* neg, double* pos) noexcept nogil
    cdef int _split(self, int32_t position) except -1 nogil
    cdef void _drop_key(self, int32_t position, int32_t index) noexcept nogil
    cdef void _remove_position(self, int32_t position) noexcept nogil
    cdef int32_t _count_at(self, double score, bint is_pos) noexcept nogil
    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil
    cdef int32_t _find(self, double score) noexcept nogil
    cdef double _auc(self) noexcept nogil
    cdef int _add_point(self, bint is_pos, double score, double weight, bint apply) except -1
    cdef int _remove_point(self, bint is_pos, double score, double weight,
                           bint apply) except -1
    cdef double _class_total(self, bint is_pos) noexcept nogil
