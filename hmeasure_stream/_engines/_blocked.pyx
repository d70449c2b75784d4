"""Exact AUC under insertion and deletion on sorted blocks: the order engine.

Every structure and window keeps its points here but ApproxAUC (whose lists
live in a score treap, ``_auc``).  The Mann-Whitney bookkeeping of Tatti,
"Maintaining AUC and H-measure over time", Sec. 4, Props 1-2, on a
cache-friendly structure: the distinct scores in increasing order, cut into
blocks of at most ``BLOCK`` keys stored contiguously (struct of arrays: keys, class counts, class
weights), a directory of the blocks in score order (their ids and first
keys, one flat array each) and a perfect segment tree holding each block's
class weights (and, in weighted mode, its 2U, combined as two adjacent runs
of scores combine).  An update is a binary search of the directory, a scan
of the block from its top down to the key (the keys that the update then
shifts) and a walk up the segment tree: a few cache lines, where a search
tree's descent pays a memory latency per level.  A full block splits in halves and a block
under a quarter full merges with a neighbour; both shift the directory (a
memmove of ids and first keys).

The segment tree's leaves are gapped slots, as in a packed-memory array: the
blocks sit in score order among empty slots (neutral leaves), at most half
the leaves used.  A split puts the new block in a gap next to its parent's
slot (moving the parent one slot left if only that side is free), else
respreads evenly the smallest aligned window around it whose density stays
under its threshold (from 1 for the smallest windows to 1/2 for the root); a
merge or an emptied block leaves a gap; doubling the capacity doubles the
leaves and respreads them all.  Only the leaves that changed and their
ancestors are recomputed, each once (``_refresh``; the hooks ``_set_leaf``
and ``_pull_node`` are what a subclass keeping more per node overrides): a
split or merge changes a few leaves amortised instead of every later position
(a respread of a large window is rare, but one update may move every block).

The entry points are ``PointEngine``'s (``_protocol``): the ``Status``
values, unit mode with 2U an exact integer kept by increments, weighted mode (from the
first weight other than 1) with 2U the root of non-negative aggregates
recomputed from the stored weights (no increments), weights stored in units
of a power of two fixed by the first positive weight, windows and decay,
the same removal tolerance, the same emptied-structure rule and the same
refusal of concurrent use.

The derived reads (DeLong's variance, the partial areas of ``_tree_partial``)
need more than the class weights: ``track_variance`` (one compiled O(n) pass:
``_track_all``) starts keeping the pair weight 2U of every block and node in
unit mode too (the block's and the path's by the increments of Props 1-2: the
point's pairs under each node) and DeLong's sums of squared placement numerators:
in unit mode the exact 128-bit totals Q1 and Q0 changed by each update
(``_delong.track_squares``), with 2U of the points above the score summed from
the block's suffix and the right siblings on the path up, in the same walk that
changes the path (``_walk_path``); in weighted mode the numerators' sums of
squares centred on their class's mean, M1 and M0, per block (from its keys, in
two passes) and per node (from its children's by the pooled-variance identity:
``_pooled``), sums of non-negative terms.  Centred sums keep the variance of a
(nearly) separated sample at (nearly) 0 to the rounding of its own terms, where
Q / W - (2U / W)^2 would leave the rounding of the AUC squared, about 1e-16, and
its root about 1e-8.  The partial areas then read the blocks by descents of the segment tree
(``_tree_partial``): O(log n + BLOCK).  The same engine records, after each
step of a window, R's metrics at a threshold, one partial area and DeLong's
interval (``_record_extras``): one engine and one ring for every metric read
from the score order.
"""

from importlib import import_module

import numpy as np

from libc.math cimport NAN, isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy, memmove

from hmeasure_stream._engines._delong cimport (
    exact_pairs,
    track_squares,
    wide_accumulate,
)
from hmeasure_stream._engines._numeric cimport (
    compensated_add,
    prefetch,
    wide_add,
    wide_product,
    wide_uint,
)
from hmeasure_stream._engines._pool import doubled_capacity, grown_buffer
from hmeasure_stream._engines._protocol cimport (
    DONE,
    NOT_PRESENT,
    OUT_OF_RANGE,
    UNCHECKED,
    WEIGHT_EXCEEDS,
    point_weight,
    PointEngine,
    removal_exceeds,
    removal_leaves_weight,
)


cdef enum:
    # Directory entries (first keys, 8 bytes each) that fit a 32 KiB first-level cache.
    DIRECTORY_IN_CACHE = 4096


cdef inline int32_t _power_of_two_at_least(Py_ssize_t n) noexcept nogil:
    cdef int32_t leaves = 1
    while leaves < n:
        leaves *= 2
    return leaves


cdef inline void _sum_leaf(double* tree, const double* aggregate, int32_t leaves,
                           int32_t slot, int32_t block) noexcept nogil:
    """The base's leaf: its block's aggregate row, zeros for a gap (block -1)."""
    cdef Py_ssize_t node = 3 * (<Py_ssize_t>leaves + slot)
    if block >= 0:
        tree[node] = aggregate[3 * block]
        tree[node + 1] = aggregate[3 * block + 1]
        tree[node + 2] = aggregate[3 * block + 2]
    else:
        tree[node] = 0.0
        tree[node + 1] = 0.0
        tree[node + 2] = 0.0


cdef inline void _sum_node(double* tree, int32_t node, bint pairs) noexcept nogil:
    """The base's inner node from its children: class weights, and 2U with ``pairs``
    (weighted mode, or the placements kept)."""
    cdef Py_ssize_t left = 6 * <Py_ssize_t>node
    tree[3 * node] = tree[left] + tree[left + 3]
    tree[3 * node + 1] = tree[left + 1] + tree[left + 4]
    if pairs:
        # Adjacent runs: the right part's class 1 weight pairs with the left's class 0.
        tree[3 * node + 2] = tree[left + 2] + tree[left + 5] + 2.0 * tree[left + 4] * tree[left]
    else:
        tree[3 * node + 2] = 0.0


cdef inline void _square_leaf(double* square_tree, const double* square_aggregate,
                              int32_t leaves, int32_t slot, int32_t block) noexcept nogil:
    """Weighted placements: the leaf's M1, M0 from its block's, zeros for a gap."""
    cdef Py_ssize_t node = 2 * (<Py_ssize_t>leaves + slot)
    if block >= 0:
        square_tree[node] = square_aggregate[2 * block]
        square_tree[node + 1] = square_aggregate[2 * block + 1]
    else:
        square_tree[node] = 0.0
        square_tree[node + 1] = 0.0


cdef inline double _pooled(double spread_left, double spread_right, double weight_left,
                           double weight_right, double gap) noexcept nogil:
    """The centred sum of squares of two weighted groups from each one's (Chan, Golub
    and LeVeque): M_L + M_R + gap^2 w_L w_R / (w_L + w_R), ``gap`` the difference of
    their means (the cross term is 0 when a group is empty)."""
    if weight_left > 0.0 and weight_right > 0.0:
        return (spread_left + spread_right
                + gap * gap * (weight_left * weight_right / (weight_left + weight_right)))
    return spread_left + spread_right


cdef inline void _square_node(const double* tree, double* square_tree,
                              int32_t node) noexcept nogil:
    """Weighted placements: inner ``node``'s M1, M0 from its children (its class weights
    and 2U are current).  The right child's class 1 numerators grow by 2 W0(left), and
    are all at least 2 W0(left) while the left child's are at most that: the gap of the
    class 1 means is 2U(right) / W1(right) + (2 W0(left) - 2U(left) / W1(left)), two
    non-negative terms; for class 0 the mirror image.  A sum of non-negative terms."""
    cdef Py_ssize_t left = 2 * <Py_ssize_t>node, right = left + 1
    cdef double w1_left = tree[3 * left + 1], w1_right = tree[3 * right + 1]
    cdef double w0_left = tree[3 * left], w0_right = tree[3 * right], gap = 0.0
    if w1_left > 0.0 and w1_right > 0.0:
        gap = (tree[3 * right + 2] / w1_right
               + (2.0 * w0_left - tree[3 * left + 2] / w1_left))
    square_tree[2 * node] = _pooled(square_tree[2 * left], square_tree[2 * right],
                                    w1_left, w1_right, gap)
    gap = 0.0
    if w0_left > 0.0 and w0_right > 0.0:
        gap = (tree[3 * left + 2] / w0_left
               + (2.0 * w1_right - tree[3 * right + 2] / w0_right))
    square_tree[2 * node + 1] = _pooled(square_tree[2 * left + 1],
                                        square_tree[2 * right + 1], w0_left, w0_right, gap)


cdef inline void _prefetch_path(const double* tree, Py_ssize_t node) noexcept nogil:
    """Ask for the segment-tree nodes on the path from leaf ``node`` up (and their left
    siblings, in the same or the previous cache line) before they are read, so that
    they arrive together with the block's lines.  (The block's own lines need no such
    request: the backward scan reads them in order, which the hardware prefetcher
    follows; asking for the whole block was slower at 10^6 points.)"""
    while node > 1:
        prefetch(tree + 3 * (node - 1))
        node >>= 1


cdef inline int32_t _scan(BlockedAUCEngine self, int32_t block, double key,
                          double* after_neg, double* after_pos) noexcept nogil:
    """The index of the first key >= ``key`` in ``block``, and the class counts of the
    keys from it on.  A backward scan: it reads only the keys an insertion or a removal
    at that index then shifts (a forward scan would read the rest of the block too), and
    its loads do not depend on one another (a binary search waits for each cache line in
    turn); the counts before the index are the block's less these."""
    cdef const double* keys = self.key + block * BLOCK
    cdef const int32_t* count_neg = self.count_neg + block * BLOCK
    cdef const int32_t* count_pos = self.count_pos + block * BLOCK
    cdef int32_t index = self.size[block]
    cdef int64_t neg = 0, pos = 0
    while index > 0 and keys[index - 1] >= key:
        index -= 1
        neg += count_neg[index]
        pos += count_pos[index]
    after_neg[0] = <double>neg
    after_pos[0] = <double>pos
    return index


cdef inline int32_t _scan_pairs(BlockedAUCEngine self, int32_t block, double key,
                                double* after_neg, double* after_pos,
                                double* after_pairs) noexcept nogil:
    """``_scan`` with the pair sums kept (unit mode): also 2U of the keys from the index
    on (each class 0 count pairs with the class 1 counts above it), in the same pass."""
    cdef const double* keys = self.key + block * BLOCK
    cdef const int32_t* count_neg = self.count_neg + block * BLOCK
    cdef const int32_t* count_pos = self.count_pos + block * BLOCK
    cdef int32_t index = self.size[block]
    cdef int64_t neg = 0, pos = 0, pairs = 0
    while index > 0 and keys[index - 1] >= key:
        index -= 1
        pairs += count_neg[index] * (2 * pos + count_pos[index])
        neg += count_neg[index]
        pos += count_pos[index]
    after_neg[0] = <double>neg
    after_pos[0] = <double>pos
    after_pairs[0] = <double>pairs
    return index


cdef inline double _walk_path(BlockedAUCEngine self, int32_t block, bint is_pos,
                              double delta, bint pairs_kept, double pairs_change, double neg,
                              double pairs, double* below_neg, double* below_pos) noexcept nogil:
    """Unit mode, nodes plain sums (``sum_nodes``): one walk up from ``block``'s leaf that
    reads each sibling once for everything a point update needs there.  A left sibling
    lies below the block: its class weights add to ``below_neg``, ``below_pos``.  The
    path takes the point: its class count changes by ``delta`` (+-1).  With the pair
    sums kept (``pairs_kept``), also 2U on the path, by the point's pairs under each
    node (from ``pairs_change`` within the block, adding at each node those with the
    sibling's other class: 2 per pair, all strictly above or below), and a right
    sibling, above the block, adds to 2U of the points above the score, returned (from
    a suffix of the block with class 0 weight ``neg`` and 2U ``pairs``, as
    ``_pairs_beyond``).  Every sibling read is off the path, so the reads see the tree
    before the point; integers in doubles, as recomputing the nodes would give (exact
    below 2**53)."""
    cdef Py_ssize_t node = <Py_ssize_t>self.leaves + self.leaf_of_block[block], sibling
    cdef double* tree = self.tree
    cdef double prefix_neg = 0.0, prefix_pos = 0.0
    tree[3 * node + is_pos] += delta
    if pairs_kept:
        tree[3 * node + 2] += pairs_change
    self.leaf_changes += 1
    while node > 1:
        if node & 1:
            sibling = 3 * (node - 1)
            prefix_neg += tree[sibling]
            prefix_pos += tree[sibling + 1]
            if pairs_kept and is_pos:
                pairs_change += 2.0 * delta * tree[sibling]
        elif pairs_kept:
            sibling = 3 * (node + 1)
            pairs += tree[sibling + 2] + 2.0 * tree[sibling + 1] * neg
            neg += tree[sibling]
            if not is_pos:
                pairs_change += 2.0 * delta * tree[sibling + 1]
        node >>= 1
        tree[3 * node + is_pos] += delta
        if pairs_kept:
            tree[3 * node + 2] += pairs_change
        self.node_changes += 1
    below_neg[0] = prefix_neg
    below_pos[0] = prefix_pos
    return pairs


cdef inline int32_t _log2(int32_t power) noexcept nogil:
    """log2 of a power of two."""
    cdef int32_t result = 0
    while power > 1:
        power >>= 1
        result += 1
    return result


cdef inline void _base_leaf(BlockedAUCEngine self, int32_t slot) noexcept nogil:
    """The base's leaf of ``slot``: its block's aggregate (and weighted M sums)."""
    _sum_leaf(self.tree, self.aggregate, self.leaves, slot, self.block_at_leaf[slot])
    if self.weighted and self.square_tree != NULL:
        _square_leaf(self.square_tree, self.square_aggregate, self.leaves, slot,
                     self.block_at_leaf[slot])


cdef inline void _base_node(BlockedAUCEngine self, int32_t node) noexcept nogil:
    """The base's inner node from its children."""
    _sum_node(self.tree, node, self.weighted or self.placements)
    if self.weighted and self.square_tree != NULL:
        _square_node(self.tree, self.square_tree, node)


cdef inline void _first_block(BlockedAUCEngine self, double score) noexcept nogil:
    """The first point of an empty engine: a block of its own in the middle leaf (the room
    was reserved by ``_reserve``)."""
    cdef int32_t block
    self.n_free -= 1
    block = self.free_ids[self.n_free]
    self.order[0] = block
    self.size[block] = 0
    self.first[0] = score
    self.n_blocks = 1
    self.leaf_of_block[block] = self.leaves >> 1
    self.block_at_leaf[self.leaves >> 1] = block


cdef inline int32_t _scan_key(BlockedAUCEngine self, int32_t block, double score,
                              double* after_neg, double* after_pos,
                              double* after_pairs) noexcept nogil:
    """The index of ``score`` in ``block`` and the class counts from it on (``_scan``),
    their 2U too while the placements are kept in unit mode (``_scan_pairs``)."""
    if self.placements and not self.weighted:
        return _scan_pairs(self, block, score, after_neg, after_pos, after_pairs)
    return _scan(self, block, score, after_neg, after_pos)


cdef inline bint _count_pairs(BlockedAUCEngine self, bint is_pos, bint adding, bint found,
                              int32_t position, int32_t block, int32_t slot,
                              double after_neg, double after_pos,
                              double after_pairs) noexcept nogil:
    """Unit mode: 2U (Props 1-2) and, with the placements, the block's 2U and DeLong's
    Q1, Q0 changed by the point going in or out at ``slot`` (its class counts from the
    scan: ``after_*``).  Returns whether the point's path was changed on the way
    (``_walk_path``: its leaf and ancestors then need no refresh)."""
    cdef double below_neg, below_pos, at_neg = 0.0, at_pos = 0.0, change
    cdef double local_change = 0.0, suffix_neg = 0.0, suffix_pairs = 0.0, pairs_above = 0.0
    cdef double total_pos = self.tree[4]
    cdef bint walked = False
    # The pairs the point takes part in, counted without it.
    if found:
        at_neg = self.count_neg[slot]
        at_pos = self.count_pos[slot]
    if self.placements:
        # The same pairs within the block: its counts below and above the score.
        if is_pos:
            local_change = 2.0 * (self.aggregate[3 * block] - after_neg) + at_neg
        else:
            local_change = 2.0 * (after_pos - at_pos) + at_pos
        # The keys above the score in the block: those from the index on but the
        # score's own key (its class 0 count pairs with those above it).
        suffix_neg = after_neg - at_neg
        suffix_pairs = after_pairs - at_neg * (2.0 * (after_pos - at_pos) + at_pos)
    if self.sum_nodes and (adding or at_neg + at_pos > 1
                           or self._merge_partner(position, self.size[block] - 1) < 0):
        # The point is certain to go in or out now, its block to stay: its path takes
        # it in the same walk that reads the sums below (and above) it.  (A block
        # dropped or merged has its paths recomputed by ``_drop_key``.)
        pairs_above = _walk_path(self, block, is_pos, 1.0 if adding else -1.0,
                                 self.placements, local_change if adding else -local_change,
                                 suffix_neg, suffix_pairs, &below_neg, &below_pos)
        walked = True
    else:
        self._prefix(position, &below_neg, &below_pos)
        if self.placements:
            pairs_above = pairs_beyond(self, block, suffix_neg, suffix_pairs)
    below_neg += self.aggregate[3 * block] - after_neg
    below_pos += self.aggregate[3 * block + 1] - after_pos
    if is_pos:
        change = 2.0 * below_neg + at_neg
    else:
        change = 2.0 * (total_pos - below_pos - at_pos) + at_pos
    compensated_add(&self.twice_u, &self.twice_u_compensation, change if adding else -change)
    if self.placements:
        track_squares(&self.square_pos, &self.square_neg,
                      exact_pairs(self.twice_u, self.twice_u_compensation), pairs_above,
                      is_pos, adding, below_neg, total_pos - below_pos - at_pos, at_neg,
                      at_pos)
        self.aggregate[3 * block + 2] += local_change if adding else -local_change
    return walked


cdef inline void _insert_key(BlockedAUCEngine self, int32_t position, int32_t block,
                             int32_t index, double score) noexcept nogil:
    """A new key ``score`` at ``index`` of ``block`` (not full), with no point yet: the
    keys above it, their counts (and weights) shifted up by one."""
    cdef double* keys = self.key + block * BLOCK
    cdef int32_t slot = block * BLOCK + index, count = self.size[block] - index, column
    memmove(keys + index + 1, keys + index, count * sizeof(double))
    memmove(self.count_neg + slot + 1, self.count_neg + slot, count * sizeof(int32_t))
    memmove(self.count_pos + slot + 1, self.count_pos + slot, count * sizeof(int32_t))
    keys[index] = score
    self.count_neg[slot] = 0
    self.count_pos[slot] = 0
    if self.weighted:
        memmove(self.weight + 4 * (slot + 1), self.weight + 4 * slot,
                4 * count * sizeof(double))
        for column in range(4):
            self.weight[4 * slot + column] = 0.0
    self.size[block] += 1
    if index == 0:
        self.first[position] = score


cdef class BlockedAUCEngine(PointEngine):
    """Exact AUC under insertion and deletion on sorted blocks; see the module docstring."""

    def __cinit__(self, *args, **kwargs):
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.weighted = False
        self.n_points = 0
        self.n_blocks = 0
        self.leaf_changes = 0
        self.node_changes = 0
        self.placements = False
        self.square_pos.low = self.square_pos.high = 0
        self.square_neg.low = self.square_neg.high = 0
        self.n_readers = 0
        self.readers = ()
        self.reader_columns = ()
        # Subclasses keep more than sums in their nodes: every change goes to their hooks.
        self.sum_nodes = type(self) is BlockedAUCEngine

    def __init__(self, Py_ssize_t capacity=16, int block_limit=BLOCK):
        # ``block_limit`` (2..BLOCK keys per block) is for tests: small blocks split and
        # merge often.
        if not 2 <= block_limit <= BLOCK:
            raise ValueError(f"block_limit must be in 2..{BLOCK}, got {block_limit}")
        cdef Py_ssize_t blocks = max(1, (capacity + block_limit - 1) // block_limit), index
        if blocks > MAX_BLOCKS:
            raise MemoryError(f"the blocked engine holds at most {MAX_BLOCKS} blocks")
        self.block_limit = block_limit
        self.block_capacity = blocks
        self.leaves = 2 * _power_of_two_at_least(blocks)
        # (Positional dtypes, and the free ids and -1 links written below through the
        # pointers rather than by np.arange and np.full: a window's segments each make an
        # engine, for which numpy's argument parsing cost more than the buffers.)
        self.key_buffer = np.zeros(blocks * BLOCK)
        self.count_neg_buffer = np.zeros(blocks * BLOCK, np.int32)
        self.count_pos_buffer = np.zeros(blocks * BLOCK, np.int32)
        self.weight_buffer = None  # allocated by _make_weighted
        self.size_buffer = np.zeros(blocks, np.int32)
        self.aggregate_buffer = np.zeros((blocks, 3))
        self.order_buffer = np.zeros(blocks, np.int32)
        self.first_buffer = np.zeros(blocks)
        self.free_buffer = np.empty(blocks, np.int32)
        self.n_free = blocks
        self.tree_buffer = np.zeros((2 * self.leaves, 3))
        self.leaf_of_block_buffer = np.empty(blocks, np.int32)
        self.block_at_leaf_buffer = np.empty(self.leaves, np.int32)
        self.scratch_buffer = np.zeros(2 * self.leaves, np.int32)
        self._bind()
        for index in range(blocks):
            self.free_ids[index] = <int32_t>(blocks - 1 - index)  # the lowest id on top
            self.leaf_of_block[index] = -1
        for index in range(self.leaves):
            self.block_at_leaf[index] = -1

    cdef int _bind(self) except -1:
        cdef double[::1] keys = self.key_buffer
        cdef int32_t[::1] count_neg = self.count_neg_buffer
        cdef int32_t[::1] count_pos = self.count_pos_buffer
        cdef double[:, ::1] weights
        cdef int32_t[::1] sizes = self.size_buffer
        cdef double[:, ::1] aggregates = self.aggregate_buffer
        cdef int32_t[::1] order = self.order_buffer
        cdef double[::1] first = self.first_buffer
        cdef int32_t[::1] free_ids = self.free_buffer
        cdef double[:, ::1] tree = self.tree_buffer
        cdef int32_t[::1] leaf_of_block = self.leaf_of_block_buffer
        cdef int32_t[::1] block_at_leaf = self.block_at_leaf_buffer
        cdef int32_t[::1] scratch = self.scratch_buffer
        self.key = &keys[0]
        self.count_neg = &count_neg[0]
        self.count_pos = &count_pos[0]
        if self.weight_buffer is None:
            self.weight = NULL
        else:
            weights = self.weight_buffer
            self.weight = &weights[0, 0]
        self.size = &sizes[0]
        self.aggregate = &aggregates[0, 0]
        self.order = &order[0]
        self.first = &first[0]
        self.free_ids = &free_ids[0]
        self.tree = &tree[0, 0]
        self.leaf_of_block = &leaf_of_block[0]
        self.block_at_leaf = &block_at_leaf[0]
        self.scratch = &scratch[0]
        cdef double[:, ::1] squares
        self.square_aggregate = NULL
        self.square_tree = NULL
        if self.square_aggregate_buffer is not None:
            squares = self.square_aggregate_buffer
            self.square_aggregate = &squares[0, 0]
            squares = self.square_tree_buffer
            self.square_tree = &squares[0, 0]
        return 0

    cdef int _reserve_blocks(self, Py_ssize_t needed) except -1:
        """At least ``needed`` free blocks (growing by doubling; MemoryError otherwise)."""
        while self.n_free < needed:
            self._grow()
        return 0

    cdef int _grow(self) except -1:
        """Double the block capacity and the leaves, spreading the blocks over the new leaves
        (MemoryError when impossible; nothing changes then)."""
        cdef Py_ssize_t old = self.block_capacity, new, slots, index
        cdef int32_t leaves
        new = doubled_capacity(old, old + 1, "the blocked engine")
        new = min(new, MAX_BLOCKS)
        if new <= old:
            raise MemoryError(f"the blocked engine holds at most {MAX_BLOCKS} blocks")
        slots = new * BLOCK
        leaves = 2 * _power_of_two_at_least(new)
        try:
            buffers = (
                grown_buffer(self.key_buffer, slots, np.float64, 0.0),
                grown_buffer(self.count_neg_buffer, slots, np.int32, 0),
                grown_buffer(self.count_pos_buffer, slots, np.int32, 0),
                (None if self.weight_buffer is None
                 else grown_buffer(self.weight_buffer, (slots, 4), np.float64, 0.0)),
                grown_buffer(self.size_buffer, new, np.int32, 0),
                grown_buffer(self.aggregate_buffer, (new, 3), np.float64, 0.0),
                grown_buffer(self.order_buffer, new, np.int32, 0),
                grown_buffer(self.first_buffer, new, np.float64, 0.0),
                grown_buffer(self.free_buffer, new, np.int32, 0),
                grown_buffer(self.leaf_of_block_buffer, new, np.int32, -1),
                (None if self.square_aggregate_buffer is None
                 else grown_buffer(self.square_aggregate_buffer, (new, 2), np.float64, 0.0)),
            )
            if leaves != self.leaves:
                leaf_buffers = (np.zeros((2 * leaves, 3)),
                                np.full(leaves, -1, dtype=np.int32),
                                np.zeros(2 * leaves, dtype=np.int32),
                                None if self.square_tree_buffer is None
                                else np.zeros((2 * leaves, 2)))
                self._grow_tree(leaves)
        except MemoryError:
            raise MemoryError(f"the blocked engine cannot grow to {new} blocks") from None
        (self.key_buffer, self.count_neg_buffer, self.count_pos_buffer, self.weight_buffer,
         self.size_buffer, self.aggregate_buffer, self.order_buffer, self.first_buffer,
         self.free_buffer, self.leaf_of_block_buffer, self.square_aggregate_buffer) = buffers
        # The new ids are free, the lowest on top of the stack.
        for index in range(new - 1, old - 1, -1):
            self.free_buffer[self.n_free] = index
            self.n_free += 1
        self.block_capacity = new
        if leaves != self.leaves:
            (self.tree_buffer, self.block_at_leaf_buffer, self.scratch_buffer,
             self.square_tree_buffer) = leaf_buffers
            self.leaves = leaves
            self._bind()
            _spread_all(self)
        else:
            self._bind()
        return 0

    cdef int _grow_tree(self, int32_t leaves) except -1:
        """Hook called by ``_grow`` before anything changes when the leaves become ``leaves``:
        the base's nodes are in ``tree_buffer`` (allocated by ``_grow``); a subclass allocates
        its own per-node storage here, replacing the old only when every allocation succeeded
        (all nodes are recomputed next)."""
        return 0

    cdef int _make_weighted(self) except -1:
        """Allocate the weight buffer (a MemoryError changes nothing); every point present
        weighs 1: its class weights become its counts."""
        cdef int32_t position, block, index, slot
        cdef int32_t* changed = self.scratch
        weights = np.zeros((<Py_ssize_t>self.block_capacity * BLOCK, 4))
        if self.placements:
            squares = (np.zeros((self.block_capacity, 2)), np.zeros((2 * self.leaves, 2)))
            self.square_aggregate_buffer, self.square_tree_buffer = squares
        self.weight_buffer = weights
        self._bind()
        self.weighted = True
        # Weighted placements are the M sums of the blocks and nodes, recomputed below.
        self.square_pos.low = self.square_pos.high = 0
        self.square_neg.low = self.square_neg.high = 0
        for position in range(self.n_blocks):
            block = self.order[position]
            for index in range(self.size[block]):
                slot = block * BLOCK + index
                self.weight[4 * slot] = self.count_neg[slot]
                self.weight[4 * slot + 1] = self.count_pos[slot]
                self.weight[4 * slot + 2] = 0.0
                self.weight[4 * slot + 3] = 0.0
            _block_aggregate(self, block)
            changed[position] = self.leaf_of_block[block]
        self._refresh(changed, self.n_blocks)
        return 0

    cdef int _make_unit(self) except -1:
        """Back to unit mode (an emptied engine): the weight buffer is released."""
        self.weighted = False
        self.weight_buffer = None
        # (Unit mode keeps Q1 and Q0 as two exact totals, no buffers.)
        self.square_aggregate_buffer = None
        self.square_tree_buffer = None
        self._bind()
        return 0

    # ------------------------------------------------------------------
    # The hooks of ``PointEngine`` on the blocks.

    cdef int _emptied(self) except -1:
        self.twice_u = 0.0
        self.twice_u_compensation = 0.0
        self.square_pos.low = self.square_pos.high = 0
        self.square_neg.low = self.square_neg.high = 0
        self._make_unit()
        return 0

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        """Room for every split ``new_points`` insertions can cause (``_most_splits``), taken
        before anything changes (a MemoryError leaves the engine as it was).  Then
        weighted mode if needed."""
        # (+ 1: the first point of an empty engine takes a block of its own.)
        self._reserve_blocks(self._most_splits(new_points)
                             + (1 if new_points and self.n_blocks == 0 else 0))
        if weighted and not self.weighted:
            self._make_weighted()
        return 0

    cdef Py_ssize_t _most_splits(self, Py_ssize_t insertions) noexcept nogil:
        """The most block splits ``insertions`` insertions can cause (removals only free
        blocks).  A block of s keys splits at the (limit - s + 1)-th new key it takes,
        and a half left by a split at the (limit // 2 + 1)-th at the earliest, so the
        count is at most the number of these costs, cheapest first, that ``insertions``
        can pay: a pass over the block sizes.  Tight where the old bound (every block
        splitting once) doubled a large window's storage for one slide.  No block splits
        before the fullest has taken its cost, an empty engine's first block (of 0 keys)
        included: a new engine filled with at most ``limit`` keys keeps its one block
        (a segment's, say, which then needs no growth)."""
        cdef int32_t limit = self.block_limit, size, position, fullest = 0
        cdef Py_ssize_t again = limit // 2 + 1, splits = 0, left = insertions, take, cost
        cdef Py_ssize_t by_size[BLOCK + 1]
        if self.n_blocks and insertions <= self.n_free:
            return insertions  # room already: no need to count (an empty engine has none)
        for position in range(self.n_blocks):
            fullest = max(fullest, self.size[self.order[position]])
        if insertions <= limit - fullest:
            return 0  # (a small chunk, the common case: no histogram to clear)
        for size in range(limit + 1):
            by_size[size] = 0
        for position in range(self.n_blocks):
            by_size[self.size[self.order[position]]] += 1
        for size in range(limit, -1, -1):
            cost = limit - size + 1
            if cost >= again or left < cost:
                break
            take = min(by_size[size], left // cost)
            splits += take
            left -= take * cost
        return splits + left // again

    cdef Py_ssize_t _held_points(self) noexcept nogil:
        return self.n_points

    cdef bint _stores_weights(self) noexcept nogil:
        return self.weighted

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """Weighted mode: every stored weight times ``factor`` (a power of two: exact), the
        pair weights (2U) times its square."""
        cdef Py_ssize_t index, position
        cdef int32_t block
        cdef double square = factor * factor, cube = square * factor
        if not self.weighted:
            return
        if self.square_aggregate != NULL:
            for index in range(2 * self.block_capacity):
                self.square_aggregate[index] *= cube
            for index in range(4 * self.leaves):
                self.square_tree[index] *= cube
        for position in range(self.n_blocks):
            block = self.order[position]
            for index in range(4 * block * BLOCK, 4 * (block * BLOCK + self.size[block])):
                self.weight[index] *= factor
            self.aggregate[3 * block] *= factor
            self.aggregate[3 * block + 1] *= factor
            self.aggregate[3 * block + 2] *= square
        for index in range(2 * self.leaves):
            self.tree[3 * index] *= factor
            self.tree[3 * index + 1] *= factor
            self.tree[3 * index + 2] *= square

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """The AUC into ``out[row, 0]``, then what ``_record_extras`` records."""
        out[row, 0] = self._auc()
        self._record_extras(&out[row, 0], 1)

    cdef void _record_extras(self, double* row, Py_ssize_t column) noexcept nogil:
        """The readers' columns from ``row[column]`` on, each reader's step in turn (the
        AUC is in ``row[0]``)."""
        cdef Py_ssize_t k
        for k in range(self.n_readers):
            column += self.record_steps[k](self, self.reader_params[k], row, column)

    cdef int attach(self, RecordStep step, const double* params, Py_ssize_t n_params,
                    tuple columns, object spec) except -1:
        """Record a reader's ``columns`` after the others in ``slide`` (its ``step`` with its
        ``params``); ``spec`` (module, function, arguments) attaches it again (pickles)."""
        cdef Py_ssize_t k
        taken = set(self.columns)
        if self.n_readers == MAX_READERS or n_params > READER_PARAMS:
            raise ValueError(f"an engine records at most {MAX_READERS} readers")
        if taken.intersection(columns):
            raise ValueError(f"the columns {sorted(taken.intersection(columns))} are recorded "
                             "already")
        for k in range(n_params):
            self.reader_params[self.n_readers][k] = params[k]
        self.record_steps[self.n_readers] = step
        self.n_readers += 1
        self.readers += (spec,)
        self.reader_columns += (columns,)
        return 0

    @property
    def columns(self):
        """The metrics ``_record`` writes, in the column order of ``slide``'s ``out``."""
        return ("auc", *(name for names in self.reader_columns for name in names))

    def value(self, name):
        """The current value of the column ``name`` (one reader's step, O(its read))."""
        cdef Py_ssize_t k
        cdef double[::1] row
        if name == "auc":
            return self._auc()
        for k, names in enumerate(self.reader_columns):
            if name in names:
                row = np.empty(1 + len(names))
                row[0] = self._auc()
                self._check_idle()
                self.record_steps[k](self, self.reader_params[k], &row[0], 1)
                return row[1 + names.index(name)]
        if name in self.columns:  # a subclass's own column
            return getattr(self, name)
        raise AttributeError(f"{name!r} is not recorded by this engine: it records "
                             f"{list(self.columns)}")

    cdef object _read(self):
        return self._auc()

    # ------------------------------------------------------------------
    # Searches and aggregates.

    cdef int32_t _locate(self, double key) noexcept nogil:
        """The directory position whose block holds (or would hold) ``key``."""
        cdef int32_t low = 0, n = self.n_blocks, half
        # A directory beyond the first-level cache has both candidates for the next
        # probe requested while this one loads, so the probes' misses overlap.
        cdef bint ahead = n > DIRECTORY_IN_CACHE
        # The last position whose first key is <= key (0 if none), in [low, low + n):
        # branch-free halving (no mispredicted branches on random keys).
        while n > 1:
            half = n >> 1
            if ahead:
                prefetch(self.first + low + (half >> 1))
                prefetch(self.first + low + half + ((n - half) >> 1))
            low += half * (self.first[low + half] <= key)
            n -= half
        return low

    cdef int32_t _lower(self, int32_t block, double key) noexcept nogil:
        """The index of the first key >= ``key`` in ``block``."""
        cdef double* keys = self.key + block * BLOCK
        cdef int32_t low = 0, high = self.size[block], middle
        while low < high:
            middle = (low + high) >> 1
            if keys[middle] < key:
                low = middle + 1
            else:
                high = middle
        return low

    cdef int32_t _find(self, double score) noexcept nogil:
        """The slot of ``score``, or -1."""
        cdef int32_t block, index
        if self.n_blocks == 0:
            return -1
        block = self.order[self._locate(score)]
        index = self._lower(block, score)
        if index < self.size[block] and self.key[block * BLOCK + index] == score:
            return block * BLOCK + index
        return -1

    cdef double _held(self, int32_t slot, bint is_pos) noexcept nogil:
        """One class's weight at a slot (its count in unit mode)."""
        if self.weighted:
            return (self.weight[4 * slot + is_pos]
                    + self.weight[4 * slot + 2 + is_pos])
        return self.count_pos[slot] if is_pos else self.count_neg[slot]

    cdef int _set_leaf(self, int32_t slot) except -1 nogil:
        """Hook: the leaf of ``slot`` from its block's aggregate, or zero for a gap."""
        _base_leaf(self, slot)
        return 0

    cdef int _pull_node(self, int32_t node) except -1 nogil:
        """Hook: inner ``node`` from its children (class weights; 2U weighted or with the
        placements; weighted with the placements, Q1 and Q0)."""
        _base_node(self, node)
        return 0

    cdef int _refresh(self, int32_t* slots, int32_t count) except -1 nogil:
        """The one place where leaves change: ``_set_leaf`` for each of ``slots`` (distinct,
        increasing; overwritten), then ``_pull_node`` once for each distinct ancestor,
        level by level bottom-up."""
        cdef int32_t index, kept, node
        if count == 0:
            return 0
        self.leaf_changes += count
        if count == 1 and self.sum_nodes:
            # The base's own hooks, called directly (one path, no virtual calls).
            _base_leaf(self, slots[0])
            node = (self.leaves + slots[0]) >> 1
            while node >= 1:
                _base_node(self, node)
                self.node_changes += 1
                node >>= 1
            return 0
        if count == 1:
            self._set_leaf(slots[0])
            node = (self.leaves + slots[0]) >> 1
            while node >= 1:
                self._pull_node(node)
                self.node_changes += 1
                node >>= 1
            return 0
        for index in range(count):
            self._set_leaf(slots[index])
            slots[index] = (self.leaves + slots[index]) >> 1
        while True:
            # Parents of increasing nodes are non-decreasing: drop repeats.
            kept = 1
            for index in range(1, count):
                if slots[index] != slots[kept - 1]:
                    slots[kept] = slots[index]
                    kept += 1
            count = kept
            for index in range(count):
                self._pull_node(slots[index])
            self.node_changes += count
            if slots[0] == 1:
                return 0
            for index in range(count):
                slots[index] >>= 1

    cdef void _prefix(self, int32_t position, double* neg, double* pos) noexcept nogil:
        """Class weights of the blocks before ``position``."""
        cdef Py_ssize_t node = self.leaves + self.leaf_of_block[self.order[position]]
        cdef double total_neg = 0.0, total_pos = 0.0, right
        while node > 1:
            # A right child adds its left sibling; branch-free (times 0 or 1, exact).
            right = <double>(node & 1)
            total_neg += right * self.tree[3 * (node - 1)]
            total_pos += right * self.tree[3 * (node - 1) + 1]
            node >>= 1
        neg[0] = total_neg
        pos[0] = total_pos

    cdef double _class_total(self, bint is_pos) noexcept nogil:
        return self.tree[3 + is_pos] if self.n_blocks else 0.0

    cdef bint _both_classes(self, double* total_neg, double* total_pos) noexcept nogil:
        """The class totals into ``total_*``; whether both weigh more than 0 (a metric of
        the two classes is defined)."""
        total_neg[0] = self._class_total(False)
        total_pos[0] = self._class_total(True)
        return total_neg[0] > 0.0 and total_pos[0] > 0.0

    # ------------------------------------------------------------------
    # Structure changes.

    cdef int _split(self, int32_t position) except -1 nogil:
        """Split the (full) block at ``position`` in halves; the upper half goes after it."""
        cdef int32_t block, new_block, half, moved
        if self.n_free == 0:
            with gil:
                self._grow()
        block = self.order[position]
        self.n_free -= 1
        new_block = self.free_ids[self.n_free]
        half = self.size[block] // 2
        moved = self.size[block] - half
        memcpy(self.key + new_block * BLOCK, self.key + block * BLOCK + half,
               moved * sizeof(double))
        memcpy(self.count_neg + new_block * BLOCK, self.count_neg + block * BLOCK + half,
               moved * sizeof(int32_t))
        memcpy(self.count_pos + new_block * BLOCK, self.count_pos + block * BLOCK + half,
               moved * sizeof(int32_t))
        if self.weighted:
            memcpy(self.weight + 4 * new_block * BLOCK, self.weight + 4 * (block * BLOCK + half),
                   4 * moved * sizeof(double))
        self.size[block] = half
        self.size[new_block] = moved
        memmove(self.order + position + 2, self.order + position + 1,
                (self.n_blocks - position - 1) * sizeof(int32_t))
        memmove(self.first + position + 2, self.first + position + 1,
                (self.n_blocks - position - 1) * sizeof(double))
        self.order[position + 1] = new_block
        self.first[position + 1] = self.key[new_block * BLOCK]
        self.n_blocks += 1
        _block_aggregate(self, block)
        _block_aggregate(self, new_block)
        return _place_after(self, block, new_block)

    cdef int _drop_key(self, int32_t position, int32_t index, bint is_pos,
                       bint walked) except -1 nogil:
        """Remove a key emptied by taking a point of class ``is_pos`` (not yet in the
        aggregates; on the leaf's path already if ``walked``); drop an emptied block, merge
        a sparse one with a neighbour (the block emptied leaves a gap among the leaves)."""
        cdef int32_t block = self.order[position], other, left, right
        cdef int32_t left_block, right_block, moved
        cdef int32_t slot = block * BLOCK + index, rest = self.size[block] - index - 1
        cdef int32_t* changed = self.scratch
        memmove(self.key + slot, self.key + slot + 1, rest * sizeof(double))
        memmove(self.count_neg + slot, self.count_neg + slot + 1, rest * sizeof(int32_t))
        memmove(self.count_pos + slot, self.count_pos + slot + 1, rest * sizeof(int32_t))
        if self.weighted:
            memmove(self.weight + 4 * slot, self.weight + 4 * (slot + 1),
                    4 * rest * sizeof(double))
        self.size[block] -= 1
        other = self._merge_partner(position, self.size[block])
        if other == position:
            changed[0] = self._remove_position(position)
            return self._refresh(changed, 1)
        if index == 0:
            self.first[position] = self.key[block * BLOCK]
        if other >= 0:
            left = min(position, other)
            right = max(position, other)
            left_block = self.order[left]
            right_block = self.order[right]
            moved = self.size[right_block]
            slot = left_block * BLOCK + self.size[left_block]
            memcpy(self.key + slot, self.key + right_block * BLOCK, moved * sizeof(double))
            memcpy(self.count_neg + slot, self.count_neg + right_block * BLOCK,
                   moved * sizeof(int32_t))
            memcpy(self.count_pos + slot, self.count_pos + right_block * BLOCK,
                   moved * sizeof(int32_t))
            if self.weighted:
                memcpy(self.weight + 4 * slot, self.weight + 4 * right_block * BLOCK,
                       4 * moved * sizeof(double))
            self.size[left_block] += moved
            self.size[right_block] = 0
            changed[0] = self.leaf_of_block[left_block]
            changed[1] = self._remove_position(right)
            _block_aggregate(self, left_block)
            return self._refresh(changed, 2)
        if walked:
            # (The block's 2U with the placements changed already, in ``_update``.)
            self.aggregate[3 * block + is_pos] -= 1.0
            return 0
        changed[0] = self.leaf_of_block[block]
        _block_aggregate(self, block)
        return self._refresh(changed, 1)

    cdef int32_t _merge_partner(self, int32_t position, int32_t size) noexcept nogil:
        """What becomes of the block at ``position`` left with ``size`` keys: ``position``
        if it is empty (it is dropped), the neighbour it merges with if it is sparse (under
        a quarter of the limit, and the two fit in three quarters), or -1 (it stays)."""
        cdef int32_t other, limit = self.block_limit
        if size == 0:
            return position
        if size < limit // 4 and self.n_blocks > 1:
            other = position + 1 if position + 1 < self.n_blocks else position - 1
            if size + self.size[self.order[other]] <= 3 * limit // 4:
                return other
        return -1

    cdef int32_t _remove_position(self, int32_t position) noexcept nogil:
        """Take an emptied block out of the directory and its leaf, free its id; returns
        the slot it leaves (a gap now)."""
        cdef int32_t block = self.order[position], slot = self.leaf_of_block[block]
        memmove(self.order + position, self.order + position + 1,
                (self.n_blocks - position - 1) * sizeof(int32_t))
        memmove(self.first + position, self.first + position + 1,
                (self.n_blocks - position - 1) * sizeof(double))
        self.n_blocks -= 1
        self.aggregate[3 * block] = 0.0
        self.aggregate[3 * block + 1] = 0.0
        self.aggregate[3 * block + 2] = 0.0
        if self.square_aggregate != NULL:
            self.square_aggregate[2 * block] = 0.0
            self.square_aggregate[2 * block + 1] = 0.0
        self.leaf_of_block[block] = -1
        self.block_at_leaf[slot] = -1
        self.free_ids[self.n_free] = block
        self.n_free += 1
        return slot

    # ------------------------------------------------------------------
    # One point.

    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil:
        """One point in or out by Props 1-2; returns its Status (nothing changes unless DONE).

        A removal takes a point of that class at that score; in unit mode only
        with weight 1, in weighted mode not more than the weight there
        (``removal_exceeds``); the last point of its class at a score leaves
        only with its whole weight, and removing less leaves it there with the
        rest.
        """
        cdef int32_t position, block, index, slot, count = 0, leaf
        cdef double after_neg, after_pos, after_pairs = 0.0, remaining = 0.0
        cdef bint found, leaves, walked = False
        if self.n_blocks == 0:
            if not adding:
                return NOT_PRESENT
            _first_block(self, score)
        position = self._locate(score)
        block = self.order[position]
        # The path's nodes and the block's aggregate (read after the scan) are fetched
        # while the scan waits for the block's keys.
        _prefetch_path(self.tree, <Py_ssize_t>self.leaves + self.leaf_of_block[block])
        prefetch(self.aggregate + 3 * block)
        index = _scan_key(self, block, score, &after_neg, &after_pos, &after_pairs)
        found = index < self.size[block] and self.key[block * BLOCK + index] == score
        if not found:
            if not adding:
                return NOT_PRESENT
            if self.size[block] == self.block_limit:
                self._split(position)
                position = self._locate(score)
                block = self.order[position]
                index = _scan_key(self, block, score, &after_neg, &after_pos, &after_pairs)
        slot = block * BLOCK + index
        if not adding:
            count = self.count_pos[slot] if is_pos else self.count_neg[slot]
            if count == 0:
                return NOT_PRESENT
            remaining = self._held(slot, is_pos)
            if not self.weighted:
                if weight != 1.0:
                    return WEIGHT_EXCEEDS
            elif removal_exceeds(weight, remaining):
                return WEIGHT_EXCEEDS
        if not self.weighted:
            walked = _count_pairs(self, is_pos, adding, found, position, block, slot,
                                  after_neg, after_pos, after_pairs)
        if adding:
            if not found:
                _insert_key(self, position, block, index, score)
            if is_pos:
                self.count_pos[slot] += 1
            else:
                self.count_neg[slot] += 1
            self.n_points += 1
            if self.weighted:
                compensated_add(&self.weight[4 * slot + is_pos],
                                &self.weight[4 * slot + 2 + is_pos], weight)
        else:
            leaves = (count > 1 or not self.weighted
                      or not removal_leaves_weight(weight, remaining))
            if leaves:
                if is_pos:
                    self.count_pos[slot] -= 1
                else:
                    self.count_neg[slot] -= 1
                self.n_points -= 1
            if self.weighted:
                if (self.count_pos[slot] if is_pos else self.count_neg[slot]) == 0:
                    # A class whose last point left gets exactly zero weight back.
                    self.weight[4 * slot + is_pos] = 0.0
                    self.weight[4 * slot + 2 + is_pos] = 0.0
                else:
                    compensated_add(&self.weight[4 * slot + is_pos],
                                    &self.weight[4 * slot + 2 + is_pos],
                                    -min(weight, remaining))
            if self.count_neg[slot] + self.count_pos[slot] == 0:
                self._drop_key(position, index, is_pos, walked)
                if self.n_points == 0 and not self.weighted:
                    self.twice_u = 0.0
                    self.twice_u_compensation = 0.0
                return DONE
        leaf = self.leaf_of_block[block]
        if self.weighted:
            _block_aggregate(self, block)
        else:
            self.aggregate[3 * block + is_pos] += 1.0 if adding else -1.0
            if walked:
                leaf = -1
        if leaf >= 0:
            self._refresh(&leaf, 1)
        if self.n_points == 0 and not self.weighted:
            self.twice_u = 0.0
            self.twice_u_compensation = 0.0
        return DONE

    cdef double _auc(self) noexcept nogil:
        cdef double weight_neg, weight_pos, twice_u
        if self.n_blocks == 0:
            return NAN
        weight_neg = self.tree[3]
        weight_pos = self.tree[4]
        if not (weight_neg > 0.0 and weight_pos > 0.0):
            return NAN
        if self.weighted:
            twice_u = self.tree[5]
        else:
            twice_u = self.twice_u + self.twice_u_compensation
        # Rounding with float weights may leave 2U a few ulps outside [0, 2 N P].
        return min(max(twice_u / (2.0 * weight_neg * weight_pos), 0.0), 1.0)

    # ------------------------------------------------------------------
    # Entry points (the subset of AUCEngine's that the public layer uses).

    cdef int _add_point(self, bint is_pos, double score, double weight,
                        bint apply) except -1:
        """Add one point (finite score, weight >= 0); with ``apply`` False only say whether
        it would be taken: DONE or OUT_OF_RANGE (nothing changes unless DONE)."""
        cdef double inverse, stored
        self._check_idle()
        if point_weight(weight, self.inverse_scale, True, &stored, &inverse) != DONE:
            return OUT_OF_RANGE
        if not apply:
            return DONE
        self._claim()
        try:
            if stored != 1.0 and not self.weighted:
                self._make_weighted()
            self.inverse_scale = inverse
            return self._update(is_pos, score, stored, True)
        finally:
            self._emptied_rule()
            self._release()

    cdef int _remove_point(self, bint is_pos, double score, double weight,
                           bint apply) except -1:
        """Remove one point; with ``apply`` False only say whether it would be taken
        (its Status; nothing changes unless DONE)."""
        cdef double stored, inverse
        cdef int status
        cdef int32_t slot
        self._check_idle()
        if point_weight(weight, self.inverse_scale, False, &stored, &inverse) != DONE or (
                stored != 1.0 and not self.weighted):
            return WEIGHT_EXCEEDS if self._count_at(score, is_pos) else NOT_PRESENT
        if not apply:
            slot = self._find(score)
            if slot < 0 or (self.count_pos[slot] if is_pos else self.count_neg[slot]) == 0:
                return NOT_PRESENT
            if self.weighted and removal_exceeds(stored, self._held(slot, is_pos)):
                return WEIGHT_EXCEEDS
            return DONE
        self._claim()
        try:
            status = self._update(is_pos, score, stored, False)
        finally:
            self._emptied_rule()
            self._release()
        return status

    cdef int32_t _count_at(self, double score, bint is_pos) noexcept nogil:
        cdef int32_t slot = self._find(score)
        if slot < 0:
            return 0
        return self.count_pos[slot] if is_pos else self.count_neg[slot]

    cdef double _weight_at(self, double score, bint is_pos) noexcept nogil:
        cdef int32_t slot = self._find(score)
        return self._held(slot, is_pos) if slot >= 0 else 0.0

    def _slots(self):
        """Slots of the keys in increasing score order."""
        sizes = self.size_buffer[self.order_buffer[:self.n_blocks]]
        starts = self.order_buffer[:self.n_blocks].astype(np.int64) * BLOCK
        total = int(sizes.sum())
        offsets = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return np.repeat(starts, sizes) + offsets

    def items(self):
        """Keys in increasing order with their class weights (stored units) and counts."""
        slots = self._slots()
        if self.weighted:
            weight_neg = self.weight_buffer[slots, 0] + self.weight_buffer[slots, 2]
            weight_pos = self.weight_buffer[slots, 1] + self.weight_buffer[slots, 3]
        else:
            weight_neg = self.count_neg_buffer[slots].astype(np.float64)
            weight_pos = self.count_pos_buffer[slots].astype(np.float64)
        return (self.key_buffer[slots].copy(), weight_neg, weight_pos,
                self.count_neg_buffer[slots].copy(), self.count_pos_buffer[slots].copy())

    @property
    def auc(self):
        return self._auc()

    @property
    def weight_neg(self):
        return self._class_total(False) * self.scale

    @property
    def weight_pos(self):
        return self._class_total(True) * self.scale

    @property
    def unit_weights(self):
        """True while every weight is 1: the AUC is then exactly the from-scratch value."""
        return not self.weighted

    @property
    def tracks_variance(self):
        """Whether the pair sums and DeLong's placements are kept (``track_variance``)."""
        return self.placements

    def track_variance(self):
        """Keep the pair sums (2U of every block and node, in unit mode too) and DeLong's
        placements (Q1, Q0; weighted, M1, M0) from now on: one compiled O(n) pass,
        claiming the engine as an update does (a MemoryError changes nothing)."""
        self._check_idle()
        if self.placements:
            return
        if self.weighted:
            squares = (np.zeros((self.block_capacity, 2)), np.zeros((2 * self.leaves, 2)))
        self._claim()
        try:
            if self.weighted:
                self.square_aggregate_buffer, self.square_tree_buffer = squares
                self._bind()
            self.placements = True
            with nogil:
                _track_all(self)
        finally:
            self._release()

    def _check(self):
        """Every invariant, in O(n) (``_blocked_check.check``)."""
        from hmeasure_stream._engines._blocked_check import check
        return check(self)

    def placement_squares(self):
        """Unit mode: the exact sums of squared placement numerators (class 1, class 0)."""
        return _wide_value(self.square_pos), _wide_value(self.square_neg)

    @property
    def nbytes(self):
        return (sum(buffer.nbytes for buffer in self._buffers() if buffer is not None)
                + self.scratch_buffer.nbytes)

    def _hooks_only(self):
        """For tests: route every unit-mode point update through ``_refresh`` and the hooks,
        as in a subclass (``sum_nodes`` False); returns the engine."""
        self.sum_nodes = False
        return self

    def _counters(self):
        """(segment-tree leaves, inner nodes) recomputed or changed since construction: a
        diagnostic for benchmarks, not part of the state (not pickled)."""
        return int(self.leaf_changes), int(self.node_changes)

    def _buffers(self):
        return (self.key_buffer, self.count_neg_buffer, self.count_pos_buffer,
                self.weight_buffer, self.size_buffer, self.aggregate_buffer, self.order_buffer,
                self.first_buffer, self.free_buffer, self.tree_buffer,
                self.leaf_of_block_buffer, self.block_at_leaf_buffer,
                self.square_aggregate_buffer, self.square_tree_buffer)

    # ------------------------------------------------------------------
    # Readings of R hmeasure's report (as AUCEngine's, on the blocks).

    def score_groups(self):
        """Distinct scores from the highest down with their class weights: the ROC's groups.

        Weights in the structure's units (``scale`` times them in the caller's).
        """
        keys, weight_neg, weight_pos, _, _ = self.items()
        return keys[::-1].copy(), weight_neg[::-1].copy(), weight_pos[::-1].copy()

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_blocked, (_FORMAT, self._buffers(), self.block_capacity,
                                   self.n_blocks, self.n_free, self.leaves, self.block_limit,
                                   self.n_points, self.weighted, self.twice_u,
                                   self.twice_u_compensation, self.inverse_scale,
                                   self.placements, self.placement_squares(),
                                   self.newest_decay, self.readers))


# The layout of the pickles ``__reduce__`` writes.
_FORMAT = 5


def _rebuild_blocked(format_version, buffers, block_capacity, n_blocks, n_free, leaves,
                     block_limit, n_points, weighted, twice_u, compensation, inverse_scale,
                     placements, placement_squares, newest_decay, readers,
                     engine_type=BlockedAUCEngine):
    # ``engine_type``: a subclass rebuilding its base state first (it recomputes its own).
    cdef BlockedAUCEngine engine = engine_type.__new__(engine_type)
    from hmeasure_stream._engines._blocked_check import check_layout
    if format_version != _FORMAT:
        raise ValueError(f"a blocked engine pickled in format {format_version!r}; this "
                         f"version reads format {_FORMAT}")
    # Every index the compiled code follows is checked before the buffers are bound: an
    # inconsistent pickle is refused, never read out of bounds.
    try:
        (engine.key_buffer, engine.count_neg_buffer, engine.count_pos_buffer, engine.weight_buffer,
         engine.size_buffer, engine.aggregate_buffer, engine.order_buffer, engine.first_buffer,
         engine.free_buffer, engine.tree_buffer, engine.leaf_of_block_buffer,
         engine.block_at_leaf_buffer, engine.square_aggregate_buffer,
         engine.square_tree_buffer) = (None if buffer is None else np.array(buffer)
                                       for buffer in buffers)
        engine.placements = placements
        _set_wide(&engine.square_pos, placement_squares[0])
        _set_wide(&engine.square_neg, placement_squares[1])
        engine.block_limit = block_limit
        engine.block_capacity = block_capacity
        engine.n_blocks = n_blocks
        engine.n_free = n_free
        engine.leaves = leaves
        engine.n_points = n_points
        engine.weighted = weighted
        engine.twice_u = twice_u
        engine.twice_u_compensation = compensation
        engine.inverse_scale = inverse_scale
        engine.newest_decay = newest_decay
        check_layout(engine)
    except (AssertionError, OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this blocked engine: {error}") from None
    engine.scratch_buffer = np.zeros(2 * leaves, dtype=np.int32)
    engine._bind()
    for module, function, arguments in readers:
        # (At run time: the readers' modules build on this one.)
        if not module.startswith("hmeasure_stream._engines._"):
            raise ValueError(f"cannot unpickle this blocked engine: {module!r} is no reader")
        getattr(import_module(module), function)(engine, *arguments)
    return engine


# ----------------------------------------------------------------------
# The gapped leaves (a packed-memory array of the blocks in score order) and the
# blocks' aggregates: functions of the engine, not hooks (no subclass changes them).

cdef int _spread_all(BlockedAUCEngine self) except -1 nogil:
    """Spread the blocks evenly over all the leaves (after they doubled) and recompute
    every leaf and node."""
    cdef int32_t position, slot
    cdef int64_t leaves = self.leaves, n = self.n_blocks
    for slot in range(self.leaves):
        self.block_at_leaf[slot] = -1
        self.scratch[slot] = slot
    for position in range(self.n_blocks):
        slot = <int32_t>(((2 * position + 1) * leaves) // (2 * n))
        self.block_at_leaf[slot] = self.order[position]
        self.leaf_of_block[self.order[position]] = slot
    return self._refresh(self.scratch, self.leaves)


cdef int _place_after(BlockedAUCEngine self, int32_t block,
                      int32_t new_block) except -1 nogil:
    """Give ``new_block`` (just split from ``block``) the leaf after ``block``'s:
    a neighbouring gap if there is one, else respread the smallest aligned window
    around ``block``'s slot whose density stays under its threshold (1 near the
    leaves down to 1/2 at the root, which always holds: blocks <= leaves / 2)."""
    cdef int32_t slot = self.leaf_of_block[block], height = _log2(self.leaves)
    cdef int32_t level, width, low, index, count = 1, scanned_low = slot, scanned_high
    cdef int32_t* changed = self.scratch
    if slot + 1 < self.leaves and self.block_at_leaf[slot + 1] < 0:
        self.block_at_leaf[slot + 1] = new_block
        self.leaf_of_block[new_block] = slot + 1
        changed[0] = slot
        changed[1] = slot + 1
        return self._refresh(changed, 2)
    if slot > 0 and self.block_at_leaf[slot - 1] < 0:
        self.block_at_leaf[slot - 1] = block
        self.leaf_of_block[block] = slot - 1
        self.block_at_leaf[slot] = new_block
        self.leaf_of_block[new_block] = slot
        changed[0] = slot - 1
        changed[1] = slot
        return self._refresh(changed, 2)
    scanned_high = slot + 1
    for level in range(1, height + 1):
        width = 1 << level
        low = slot & ~(width - 1)
        # Count the blocks of the window, scanning only the part not seen yet.
        for index in range(low, scanned_low):
            count += self.block_at_leaf[index] >= 0
        for index in range(scanned_high, low + width):
            count += self.block_at_leaf[index] >= 0
        scanned_low = low
        scanned_high = low + width
        # With the new block: count + 1 <= (1 - level / (2 height)) width.
        if (<int64_t>count + 1) * 2 * height <= (<int64_t>2 * height - level) * width:
            return _spread(self, low, width, block, new_block)
    with gil:
        raise AssertionError("the blocked engine's leaves are over half full")


cdef int _spread(BlockedAUCEngine self, int32_t low, int32_t width, int32_t after,
                 int32_t new_block) except -1 nogil:
    """Respread the blocks of the window ``low .. low + width - 1`` evenly, with
    ``new_block`` inserted after ``after``; refresh only the slots that changed."""
    cdef int32_t* blocks = self.scratch
    cdef int32_t* changed = self.scratch + self.leaves
    cdef int32_t slot, block, occupant, m = 0, taken = 0, n_changed = 0
    cdef int64_t target
    for slot in range(low, low + width):
        block = self.block_at_leaf[slot]
        if block >= 0:
            blocks[m] = block
            m += 1
            if block == after:
                blocks[m] = new_block
                m += 1
    target = ((2 * <int64_t>taken + 1) * width) // (2 * m)
    for slot in range(low, low + width):
        occupant = -1
        if taken < m and slot - low == target:
            occupant = blocks[taken]
            taken += 1
            target = ((2 * <int64_t>taken + 1) * width) // (2 * m)
        if (occupant != self.block_at_leaf[slot] or occupant == after
                or (occupant == new_block and occupant >= 0)):
            changed[n_changed] = slot
            n_changed += 1
            self.block_at_leaf[slot] = occupant
            if occupant >= 0:
                self.leaf_of_block[occupant] = slot
    return self._refresh(changed, n_changed)


cdef void _block_aggregate(BlockedAUCEngine self, int32_t block) noexcept nogil:
    """Recompute a block's class weights (and, weighted or with the placements, its 2U;
    weighted with the placements, its M1 and M0) from its keys."""
    cdef int32_t index, slot = block * BLOCK
    cdef double neg = 0.0, pos = 0.0, pairs = 0.0, at_neg, at_pos, own, square, mean
    cdef int64_t count_neg = 0, count_pos = 0, count_pairs = 0
    if self.weighted:
        for index in range(self.size[block]):
            at_neg = self.weight[4 * (slot + index)] + self.weight[4 * (slot + index) + 2]
            at_pos = (self.weight[4 * (slot + index) + 1]
                      + self.weight[4 * (slot + index) + 3])
            pairs += at_pos * (2.0 * neg + at_neg)
            neg += at_neg
            pos += at_pos
        if self.square_aggregate != NULL:
            # Centred on the block's means (2U / W): a second pass over the keys.
            square = 0.0
            at_neg = 0.0
            mean = pairs / pos if pos > 0.0 else 0.0
            for index in range(self.size[block]):
                own = (2.0 * at_neg + self.weight[4 * (slot + index)]
                       + self.weight[4 * (slot + index) + 2]) - mean
                square += (self.weight[4 * (slot + index) + 1]
                           + self.weight[4 * (slot + index) + 3]) * own * own
                at_neg += self.weight[4 * (slot + index)] + self.weight[4 * (slot + index) + 2]
            self.square_aggregate[2 * block] = square
            # M0 from the top key down (exclusive suffixes, no subtraction).
            square = 0.0
            at_pos = 0.0
            mean = pairs / neg if neg > 0.0 else 0.0
            for index in range(self.size[block] - 1, -1, -1):
                own = (2.0 * at_pos + self.weight[4 * (slot + index) + 1]
                       + self.weight[4 * (slot + index) + 3]) - mean
                square += (self.weight[4 * (slot + index)]
                           + self.weight[4 * (slot + index) + 2]) * own * own
                at_pos += (self.weight[4 * (slot + index) + 1]
                           + self.weight[4 * (slot + index) + 3])
            self.square_aggregate[2 * block + 1] = square
    else:
        for index in range(self.size[block]):
            count_pairs += self.count_pos[slot + index] * (
                2 * count_neg + self.count_neg[slot + index])
            count_neg += self.count_neg[slot + index]
            count_pos += self.count_pos[slot + index]
        neg = <double>count_neg
        pos = <double>count_pos
        if self.placements:
            pairs = <double>count_pairs
    self.aggregate[3 * block] = neg
    self.aggregate[3 * block + 1] = pos
    self.aggregate[3 * block + 2] = pairs


cdef inline void _prefetch_counts(BlockedAUCEngine self, int32_t block) noexcept nogil:
    """Start loading the cache lines of a block's class counts (16 int32 per line)."""
    cdef int32_t index
    for index in range(0, self.size[block], 16):
        prefetch(self.count_neg + block * BLOCK + index)
        prefetch(self.count_pos + block * BLOCK + index)


cdef int _track_all(BlockedAUCEngine self) except -1 nogil:
    """The placements from scratch (``track_variance``): every block's 2U (weighted, with
    its M sums: ``_block_aggregate``), then their leaves and ancestors.  In unit mode one
    pass from the lowest key up gives each block's class counts and 2U and the exact Q1
    and Q0 (a key's numerator squared times its count: one 64-bit square times 0 or 1,
    widened only for a count above 1)."""
    cdef int32_t position, block, slot
    cdef uint64_t below = 0, above, own, count
    cdef int64_t block_neg, block_pos, block_pairs
    if self.weighted:
        for position in range(self.n_blocks):
            block = self.order[position]
            _block_aggregate(self, block)
            self.scratch[position] = self.leaf_of_block[block]
        return self._refresh(self.scratch, self.n_blocks)
    # Counts in integers: the class 1 weight above a key is the total less what is below
    # and at it, exactly.  The sums and the buffers' pointers are locals: stored through
    # ``self``, every step would reload the pointers and chain through memory.
    cdef const int32_t* count_neg = self.count_neg
    cdef const int32_t* count_pos = self.count_pos
    cdef wide_uint square_pos = self.square_pos, square_neg = self.square_neg
    above = <uint64_t>self.tree[4]
    for position in range(min(2, self.n_blocks)):
        _prefetch_counts(self, self.order[position])
    for position in range(self.n_blocks):
        block = self.order[position]
        if position + 2 < self.n_blocks:
            # Blocks lie in memory in no particular order: the counts of the block two
            # ahead are loaded while this one is summed.
            _prefetch_counts(self, self.order[position + 2])
        block_neg = block_pos = block_pairs = 0
        for slot in range(block * BLOCK, block * BLOCK + self.size[block]):
            block_pairs += count_pos[slot] * (2 * block_neg + count_neg[slot])
            block_neg += count_neg[slot]
            block_pos += count_pos[slot]
            count = <uint64_t>count_pos[slot]
            own = 2 * below + <uint64_t>count_neg[slot]
            if count <= 1:  # (no branch on the class: times 0 or 1)
                wide_add(&square_pos, own * own * count)
            else:
                wide_accumulate(&square_pos, wide_product(own * own, count))
            below += <uint64_t>count_neg[slot]
            above -= count
            count = <uint64_t>count_neg[slot]
            own = 2 * above + <uint64_t>count_pos[slot]
            if count <= 1:
                wide_add(&square_neg, own * own * count)
            else:
                wide_accumulate(&square_neg, wide_product(own * own, count))
        self.aggregate[3 * block] = <double>block_neg
        self.aggregate[3 * block + 1] = <double>block_pos
        self.aggregate[3 * block + 2] = <double>block_pairs
        self.scratch[position] = self.leaf_of_block[block]
    self.square_pos = square_pos
    self.square_neg = square_neg
    return self._refresh(self.scratch, self.n_blocks)


cdef object _wide_value(wide_uint value):
    return (int(value.high) << 64) | int(value.low)


cdef void _set_wide(wide_uint* target, object value):
    target.low = value & 0xFFFFFFFFFFFFFFFF
    target.high = (value >> 64) & 0xFFFFFFFFFFFFFFFF


def update_row(list engines, Py_ssize_t code, list scores, double weight, bint adding,
               bint pairs):
    """One point's entries in the engines of a multi-class structure, all or nothing.

    One-vs-rest (``pairs`` False): engine k takes the point at ``scores[k]``,
    positive when k is its class ``code``.  One-vs-one (c x c engines, row-major):
    for every other class j, engine (code, j) takes it positive at
    ``scores[code]`` and engine (j, code) negative at ``scores[j]``.  Every entry
    is checked before any engine changes: returns DONE, or the Status of the
    first entry refused (nothing changed).  Scores finite, weight >= 0.
    """
    cdef Py_ssize_t c = len(scores), k, round_index
    cdef int status
    cdef BlockedAUCEngine engine
    if not (isfinite(weight) and weight >= 0.0):
        return UNCHECKED
    for k in range(c):
        if not isfinite(<double>scores[k]):
            return UNCHECKED
    for round_index in range(2):  # check every entry, then apply them
        for k in range(c):
            if pairs and k == code:
                continue
            if pairs:
                engine = engines[code * c + k]
                status = (engine._add_point(True, scores[code], weight, round_index == 1)
                          if adding else
                          engine._remove_point(True, scores[code], weight, round_index == 1))
                if status != DONE:
                    return status
                engine = engines[k * c + code]
                status = (engine._add_point(False, scores[k], weight, round_index == 1)
                          if adding else
                          engine._remove_point(False, scores[k], weight, round_index == 1))
            else:
                engine = engines[k]
                status = (engine._add_point(k == code, scores[k], weight, round_index == 1)
                          if adding else
                          engine._remove_point(k == code, scores[k], weight, round_index == 1))
            if status != DONE:
                return status
    return DONE
