# Declarations of the blocked exact AUC engine: the distinct scores in sorted
# blocks of at most BLOCK keys, a segment tree of class aggregates whose leaves
# are gapped slots holding the blocks in score order (see _blocked.pyx).
#
# Contract for subclasses (cdef methods are virtual):
# - The segment tree is perfect: ``leaves`` (a power of two, at least twice the
#   block capacity) leaf slots, node ``leaves + slot`` for a slot, inner nodes
#   1 <= node < leaves with children 2 node and 2 node + 1, the root 1.  Slot
#   ``leaf_of_block[block]`` holds a block in use (-1 for a free id);
#   ``block_at_leaf[slot]`` is its block or -1 for a gap.  Blocks occupy slots
#   in directory (score) order; a gap's leaf is neutral (weights 0, empty).
# - ``_set_leaf(slot)`` recomputes the leaf of ``slot`` from its block (its
#   keys and ``aggregate`` row are current) or makes it neutral for a gap;
#   ``_pull_node(node)`` recomputes inner ``node`` from its two children.  Both
#   may fail (-1 with an exception set, e.g. MemoryError); the base never does.
# - Every change of leaves goes through ``_refresh``: ``_set_leaf`` once per
#   changed slot, then ``_pull_node`` once per distinct ancestor, bottom-up, and
#   for no node with nothing changed below it.  When unit mode turns weighted,
#   every block's leaf and their ancestors are recomputed; when the leaves
#   double, every leaf and node, ``_grow_tree(leaves)`` being called first (before
#   anything changes) so that a subclass allocates its per-node storage for the
#   new size, replacing the old only once every allocation succeeded.
# - ``sum_nodes``: True only for the base class itself (set in __cinit__).  While
#   it holds, a unit-mode point update changes its leaf's path by increments
#   (``_walk_path``: +-1 to the class count, the point's pairs to 2U) instead of
#   recomputing it, the same result for nodes that are plain sums of integers,
#   and ``_refresh`` of one leaf runs the base's
#   recomputation inline instead of the virtual hooks.  Subclasses have it
#   False, so every change of a leaf reaches their hooks.
# - Pickling (``__reduce__``) rebuilds a base engine from the base's buffers: a
#   subclass with more state pickles it itself.

from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._numeric cimport wide_uint
from hmeasure_stream._engines._protocol cimport PointEngine

cdef enum:
    # Distinct scores per block (at most); a full block splits in halves.
    BLOCK = 128
    # Blocks are addressed by int32 slots: at most this many blocks (2**31 - 1 // BLOCK).
    MAX_BLOCKS = 16777215


cdef enum:
    # Readers one engine records at once, and the doubles of each one's parameters.
    MAX_READERS = 8
    READER_PARAMS = 8


cdef class BlockedAUCEngine


# A reader's step (the metric table's ``reader``: one module each, ``_read_*``): the
# reader's columns of the current points into row[column], row[column + 1], ...
# (``row[0]`` holds the AUC already); returns how many it wrote.  ``params`` are the
# reader's own (``attach``).
ctypedef Py_ssize_t (*RecordStep)(BlockedAUCEngine engine, const double* params,
                                  double* row, Py_ssize_t column) noexcept nogil


cdef class BlockedAUCEngine(PointEngine):
    # Buffers own the memory; the pointers are refreshed by _bind after growth.
    cdef public object key_buffer           # (blocks * BLOCK,) distinct scores
    cdef public object count_neg_buffer     # (blocks * BLOCK,) int32
    cdef public object count_pos_buffer
    # Weighted mode only (None in unit mode, where a key's weights are its counts):
    cdef public object weight_buffer        # (blocks * BLOCK, 4): neg, pos, neg comp, pos comp
    cdef public object size_buffer          # (blocks,) int32: keys in the block
    cdef public object aggregate_buffer     # (blocks, 3): neg, pos, 2U of the block
    cdef public object order_buffer         # (blocks,) int32: block id at each position
    cdef public object first_buffer         # (blocks,) first key of the block at each position
    cdef public object free_buffer          # (blocks,) int32: stack of free block ids
    cdef public object tree_buffer          # (2 * leaves, 3): segment tree over leaf slots
    cdef public object leaf_of_block_buffer  # (blocks,) int32: slot of each block id, -1 if free
    cdef public object block_at_leaf_buffer  # (leaves,) int32: block at each slot, -1: a gap
    cdef object scratch_buffer              # (2 * leaves,) int32: work space (not state)
    # DeLong's placements in weighted mode (``track_variance``; None otherwise): the
    # centred sums M1 = sum u (a - mean a)^2 and M0 = sum v (b - mean b)^2 of each block
    # and segment-tree node (unit mode keeps the exact uncentred totals ``square_pos``
    # and ``square_neg`` instead).
    cdef public object square_aggregate_buffer  # (blocks, 2)
    cdef public object square_tree_buffer       # (2 * leaves, 2)

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
    cdef int32_t* leaf_of_block
    cdef int32_t* block_at_leaf
    cdef int32_t* scratch
    cdef double* square_aggregate
    cdef double* square_tree

    cdef readonly int32_t block_capacity
    cdef readonly int32_t n_blocks
    cdef int32_t n_free
    cdef readonly int32_t leaves            # power of two >= 2 * block_capacity
    # Keys per block before it splits: BLOCK, or less to test splits and merges.
    cdef readonly int32_t block_limit
    cdef readonly int64_t n_points
    cdef readonly bint weighted
    # Unit weights: 2U as an exact integer (compensated pair).
    cdef double twice_u
    cdef double twice_u_compensation
    cdef bint sum_nodes
    # Pair sums and placements kept (``track_variance``): column 2 of ``aggregate`` and
    # ``tree`` (2U of each block and node) in unit mode too, and DeLong's Q1, Q0.
    cdef readonly bint placements
    cdef wide_uint square_pos
    cdef wide_uint square_neg
    # The readers (``attach``): what ``slide`` records after the engine's own columns,
    # each reader's step writing its columns in the order they were attached; the
    # Python-level specs rebuild them (pickles) and name their columns.
    cdef RecordStep record_steps[MAX_READERS]
    cdef double reader_params[MAX_READERS][READER_PARAMS]
    cdef Py_ssize_t n_readers
    cdef readonly tuple readers             # (attach function, arguments) of each reader
    cdef readonly tuple reader_columns      # the columns of each reader, in order
    # Diagnostics for benchmarks (always on, not pickled): segment-tree leaves and
    # inner nodes recomputed (or changed in place) since construction; see ``_counters``.
    cdef int64_t leaf_changes
    cdef int64_t node_changes

    cdef int _bind(self) except -1
    cdef int _reserve_blocks(self, Py_ssize_t needed) except -1
    cdef Py_ssize_t _most_splits(self, Py_ssize_t insertions) noexcept nogil
    cdef int _grow(self) except -1
    cdef int _grow_tree(self, int32_t leaves) except -1
    cdef int _make_weighted(self) except -1
    cdef int _make_unit(self) except -1
    cdef int32_t _locate(self, double key) noexcept nogil
    cdef int32_t _lower(self, int32_t block, double key) noexcept nogil
    cdef double _held(self, int32_t slot, bint is_pos) noexcept nogil
    cdef int _set_leaf(self, int32_t slot) except -1 nogil
    cdef int _pull_node(self, int32_t node) except -1 nogil
    cdef int _refresh(self, int32_t* slots, int32_t count) except -1 nogil
    cdef void _prefix(self, int32_t position, double* neg, double* pos) noexcept nogil
    cdef int _split(self, int32_t position) except -1 nogil
    cdef int _drop_key(self, int32_t position, int32_t index, bint is_pos,
                       bint walked) except -1 nogil
    cdef int32_t _merge_partner(self, int32_t position, int32_t size) noexcept nogil
    cdef int32_t _remove_position(self, int32_t position) noexcept nogil
    cdef int32_t _find(self, double score) noexcept nogil
    cdef bint _both_classes(self, double* total_neg, double* total_pos) noexcept nogil
    cdef double _auc(self) noexcept nogil
    cdef int _add_point(self, bint is_pos, double score, double weight, bint apply) except -1
    cdef int _remove_point(self, bint is_pos, double score, double weight,
                           bint apply) except -1
    cdef double _class_total(self, bint is_pos) noexcept nogil
    cdef void _record_extras(self, double* row, Py_ssize_t column) noexcept nogil
    cdef int attach(self, RecordStep step, const double* params, Py_ssize_t n_params,
                    tuple columns, object spec) except -1


cdef inline double pairs_beyond(BlockedAUCEngine self, int32_t block, double neg,
                                double pairs) noexcept nogil:
    """2U of a suffix of ``block`` (class 0 weight ``neg``, 2U ``pairs``) and of every later
    block: every right sibling on the path up lies above all the keys before it, and
    2U(lower + upper) = 2U(lower) + 2U(upper) + 2 W1(upper) W0(lower).  Integers in
    doubles (unit mode), exact below 2**53."""
    cdef Py_ssize_t node = <Py_ssize_t>self.leaves + self.leaf_of_block[block], right
    while node > 1:
        if not (node & 1):
            right = 3 * (node + 1)
            pairs += self.tree[right + 2] + 2.0 * self.tree[right + 1] * neg
            neg += self.tree[right]
        node >>= 1
    return pairs
