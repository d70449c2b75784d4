"""Array-backed treap over distinct scores with per-class point counts.

Tatti, "Maintaining AUC and H-measure over time", Sec. 4.  ApproxAUC's own
structure (``_auc``, ``_approx_auc``).  One node per distinct score; each
node stores the class 0 / class 1 point counts at its score and the subtree
sums of the class counts and of the pairs (``subtree_pairs``: twice the
Mann-Whitney statistic of the subtree), all integers, kept by exact
increments along the search path.  ``lcount`` is Alg. 2 of the paper.
Nodes live in a slot pool (``_pool``), a free list and record buffers
grouped by what a descent reads together: the links and counts (``Slot``),
the score and subtree aggregates (``NodeSums``), 48 bytes a node.

Mutating methods assume the caller reserved a free slot (``reserve``) while
holding the GIL, so they can run without it.
"""

import numpy as np

from libc.math cimport NAN, isfinite
from libc.stdlib cimport realloc, free
from libc.stdint cimport int32_t, int64_t, uint64_t

from hmeasure_stream._engines._pool cimport Slot, SlotPool, pool_priority
from hmeasure_stream._engines._protocol cimport DONE, NOT_PRESENT, WEIGHT_EXCEEDS

from hmeasure_stream._engines._pool import normalized_seed

cdef int32_t _INITIAL_PATH = 64


cdef inline void _subtree_sums(ScoreTreap self, int32_t node, double* total_neg,
                               double* total_pos, double* pairs) noexcept nogil:
    """The subtree aggregates of ``node`` computed from its children (fixed order).

    Reads only (``pull`` stores them; ``_check`` compares).  The pair
    weight counts each class 0 / class 1 pair of the subtree twice when
    class 1 scores higher and once on a tie:
    pairs(L) + pairs(R) + 2 neg(L) (pos(v) + pos(R)) + neg(v) (pos(v) + 2 pos(R)).
    """
    cdef int32_t left_child = self.slots[node].left, right_child = self.slots[node].right
    cdef double at_neg = self.node_neg(node), at_pos = self.node_pos(node)
    cdef double left_neg = 0.0, right_pos = 0.0, subtree_pairs
    total_neg[0] = at_neg
    total_pos[0] = at_pos
    if left_child >= 0:
        left_neg = self.sums[left_child].subtree_neg
        total_neg[0] = left_neg + total_neg[0]
        total_pos[0] = self.sums[left_child].subtree_pos + total_pos[0]
    if right_child >= 0:
        right_pos = self.sums[right_child].subtree_pos
        total_neg[0] = total_neg[0] + self.sums[right_child].subtree_neg
        total_pos[0] = total_pos[0] + right_pos
    subtree_pairs = (2.0 * left_neg * (at_pos + right_pos)
                     + at_neg * (at_pos + 2.0 * right_pos))
    if left_child >= 0:
        subtree_pairs = self.sums[left_child].subtree_pairs + subtree_pairs
    if right_child >= 0:
        subtree_pairs = subtree_pairs + self.sums[right_child].subtree_pairs
    pairs[0] = subtree_pairs


cdef void _pull_slot(SlotPool pool, int32_t slot) noexcept nogil:
    (<ScoreTreap>pool).pull(slot)


cdef class ScoreTreap(SlotPool):
    """A treap of distinct scores with class point counts; see the module docstring.

    Parameters
    ----------
    capacity : int
        Initial number of node slots (grown by doubling).
    seed : int, optional
        Seed of the slot priorities (random when None).
    """

    def __cinit__(self, Py_ssize_t capacity=16, seed=None):
        self.root = -1
        self.n_points = 0
        self.seed = <uint64_t>normalized_seed(seed)
        self.pull_slot = _pull_slot
        self.pool_name = "the score treap"
        self.path = NULL
        self.path_capacity = 0
        self._grow_path()
        self.grow(max(capacity, 1))

    def __dealloc__(self):
        free(self.path)

    cdef int _grow_path(self) except -1 nogil:
        cdef int32_t new_capacity = max(2 * self.path_capacity, _INITIAL_PATH)
        cdef int32_t* grown = <int32_t*>realloc(self.path, new_capacity * sizeof(int32_t))
        if grown == NULL:
            with gil:
                raise MemoryError("cannot grow the treap's path buffer")
        self.path = grown
        self.path_capacity = new_capacity
        return 0

    def _fields(self):
        """(attribute, dtype, components) of every buffer in use."""
        return SlotPool._fields(self) + [("sums_buffer", np.float64, 4)]

    def _bind(self):
        """Point the raw field pointers at the current buffers (NULL when absent)."""
        self._bind_links()
        self.sums = <NodeSums*>_row_pointer(self.sums_buffer)

    def _pull_all(self):
        """Recompute every aggregate, children before parents (the reversed pre-order)."""
        cdef Py_ssize_t index
        order = self._subtree_slots(self.root)
        for index in range(order.shape[0] - 1, -1, -1):
            self.pull(order[index])

    cdef int32_t _new_node(self, double key) noexcept nogil:
        cdef int32_t node = self.take_slot()
        self.sums[node].key = key
        self.slots[node].count_neg = 0
        self.slots[node].count_pos = 0
        self.sums[node].subtree_neg = 0.0
        self.sums[node].subtree_pos = 0.0
        self.sums[node].subtree_pairs = 0.0
        return node

    cdef double node_neg(self, int32_t node) noexcept nogil:
        """Class 0 points at ``node``'s score."""
        return self.slots[node].count_neg

    cdef double node_pos(self, int32_t node) noexcept nogil:
        """Class 1 points at ``node``'s score."""
        return self.slots[node].count_pos

    cdef void aggregate(self, int32_t node, double* total_neg, double* total_pos,
                        double* pairs) noexcept nogil:
        """The subtree aggregates of ``node`` from its children; reads only (``_subtree_sums``)."""
        _subtree_sums(self, node, total_neg, total_pos, pairs)

    cdef void pull(self, int32_t node) noexcept nogil:
        """Store the subtree aggregates of ``node`` recomputed from its children."""
        cdef double total_neg, total_pos, pairs
        _subtree_sums(self, node, &total_neg, &total_pos, &pairs)
        self.sums[node].subtree_neg = total_neg
        self.sums[node].subtree_pos = total_pos
        self.sums[node].subtree_pairs = pairs

    cdef double twice_u(self) noexcept nogil:
        """2U of the whole tree (nan when empty); exact in unit mode below 2**53."""
        if self.root < 0:
            return NAN
        return self.sums[self.root].subtree_pairs

    cdef int32_t find(self, double key) noexcept nogil:
        cdef int32_t node = self.root
        while node >= 0 and self.sums[node].key != key:
            node = self.slots[node].left if key < self.sums[node].key else self.slots[node].right
        return node

    cdef int32_t lcount(self, double key, double* below_neg, double* below_pos) noexcept nogil:
        """Class weights of the scores below ``key`` (Tatti, Alg. 2).

        Returns the node holding ``key``, or -1.
        """
        cdef int32_t node = self.root, child
        cdef double total_neg = 0.0, total_pos = 0.0
        while node >= 0:
            if key < self.sums[node].key:
                node = self.slots[node].left
                continue
            child = self.slots[node].left
            if child >= 0:
                total_neg += self.sums[child].subtree_neg
                total_pos += self.sums[child].subtree_pos
            if key == self.sums[node].key:
                break
            total_neg += self.node_neg(node)
            total_pos += self.node_pos(node)
            node = self.slots[node].right
        below_neg[0] = total_neg
        below_pos[0] = total_pos
        return node

    cdef void split(self, int32_t node, double key,
                    int32_t* out_left, int32_t* out_right) noexcept nogil:
        """Split the subtree at ``node`` into scores < key and scores > key.

        ``key`` must not be in the subtree.  O(depth); every node whose
        children change is pulled.
        """
        if node < 0:
            out_left[0] = -1
            out_right[0] = -1
        elif self.sums[node].key < key:
            self.split(self.slots[node].right, key, &self.slots[node].right, out_right)
            self.pull(node)
            out_left[0] = node
        else:
            self.split(self.slots[node].left, key, out_left, &self.slots[node].left)
            self.pull(node)
            out_right[0] = node

    cdef int32_t _descend(self, double key, int32_t* depth, double* below_neg,
                          double* above_pos, double* at_neg, double* at_pos) except -2 nogil:
        """Search ``key``, recording its ancestors in ``path[:depth]``.

        Accumulates on the way down the class 0 weight below ``key`` and the
        class 1 weight above it (``lcount`` of Tatti, Alg. 2, for both
        sides at once), and reports the weights at ``key``: what Props 1-2
        need.  Returns the node holding ``key``, or -1.
        """
        cdef int32_t node = self.root, child, ancestors = 0
        cdef double total_below_neg = 0.0, total_above_pos = 0.0
        while node >= 0 and self.sums[node].key != key:
            if ancestors == self.path_capacity:
                self._grow_path()
            self.path[ancestors] = node
            ancestors += 1
            if key < self.sums[node].key:
                total_above_pos += self.node_pos(node)
                child = self.slots[node].right
                if child >= 0:
                    total_above_pos += self.sums[child].subtree_pos
                node = self.slots[node].left
            else:
                total_below_neg += self.node_neg(node)
                child = self.slots[node].left
                if child >= 0:
                    total_below_neg += self.sums[child].subtree_neg
                node = self.slots[node].right
        at_neg[0] = 0.0
        at_pos[0] = 0.0
        if node >= 0:
            child = self.slots[node].left
            if child >= 0:
                total_below_neg += self.sums[child].subtree_neg
            child = self.slots[node].right
            if child >= 0:
                total_above_pos += self.sums[child].subtree_pos
            at_neg[0] = self.node_neg(node)
            at_pos[0] = self.node_pos(node)
        depth[0] = ancestors
        below_neg[0] = total_below_neg
        above_pos[0] = total_above_pos
        return node

    cdef void _replace_child(self, int32_t depth, double key, int32_t node) noexcept nogil:
        """Make ``node`` the child of ``path[depth - 1]`` on ``key``'s side (or the root)."""
        cdef int32_t parent
        if depth == 0:
            self.root = node
            return
        parent = self.path[depth - 1]
        if key < self.sums[parent].key:
            self.slots[parent].left = node
        else:
            self.slots[parent].right = node

    cdef int add(self, double key, bint is_pos, double weight,
                 double* below_neg, double* above_pos,
                 double* at_neg, double* at_pos) except -1 nogil:
        """Add one point; report the class weights around its score before the change.

        ``below_neg``: class 0 weight with scores < key; ``above_pos``: class 1
        weight with scores > key; ``at_neg``, ``at_pos``: the weights at key.
        These are what Props 1-2 of Tatti need.  One free slot must be
        reserved.
        """
        cdef int32_t depth, index
        cdef int32_t node = self._descend(key, &depth, below_neg, above_pos, at_neg, at_pos)
        cdef bint is_new = node < 0
        cdef uint64_t priority
        if is_new:
            node = self._new_node(key)
        if is_pos:
            self.slots[node].count_pos += 1
        else:
            self.slots[node].count_neg += 1
        if is_new:
            # The new node goes where the search path first meets a lower
            # priority, taking the subtree there split around its score.
            priority = pool_priority(self, node)
            index = 0
            while index < depth and pool_priority(self, self.path[index]) >= priority:
                index += 1
            if index < depth:
                self.split(self.path[index], key, &self.slots[node].left, &self.slots[node].right)
            self._replace_child(index, key, node)
            depth = index
        self.pull(node)
        self._update_ancestors(depth, key, is_pos, 1.0, below_neg[0], above_pos[0], at_neg[0],
                               at_pos[0])
        self.n_points += 1
        return 0

    cdef int remove(self, double key, bint is_pos, double weight,
                    double* below_neg, double* above_pos,
                    double* at_neg, double* at_pos) except -1 nogil:
        """Remove one point; report the class weights around its score before the change.

        Returns DONE, NOT_PRESENT if there is no point of that class at
        ``key``, or WEIGHT_EXCEEDS for a weight other than 1.  Nothing changes
        unless DONE is returned.
        """
        cdef int32_t depth
        cdef int32_t node = self._descend(key, &depth, below_neg, above_pos, at_neg, at_pos)
        if node < 0 or slot_count(self.slots, is_pos, node) == 0:
            return NOT_PRESENT
        if weight != 1.0:
            return WEIGHT_EXCEEDS
        if is_pos:
            self.slots[node].count_pos -= 1
        else:
            self.slots[node].count_neg -= 1
        if self.slots[node].count_neg + self.slots[node].count_pos == 0:
            self._replace_child(depth, key,
                                self.join(self.slots[node].left, self.slots[node].right))
            self.release_slot(node)
        else:
            self.pull(node)
        self._update_ancestors(depth, key, is_pos, -1.0, below_neg[0], above_pos[0],
                               at_neg[0], at_pos[0])
        self.n_points -= 1
        return DONE

    cdef double class_total(self, bint is_pos) noexcept nogil:
        """Points of one class."""
        if self.root < 0:
            return 0.0
        return subtree_weight(self.sums, is_pos, self.root)

    cdef void _update_ancestors(self, int32_t depth, double key, bint is_pos, double change,
                                double below_neg, double above_pos, double at_neg,
                                double at_pos) noexcept nogil:
        """Bring the aggregates of ``path[:depth]`` up to date after a change below them.

        The subtree sums are exact integers, so one point more or less at
        ``key`` is an exact increment of each ancestor: its class sum by
        ``change`` and its pair weight by ``change`` times the pairs the
        point makes inside the ancestor's subtree (Props 1-2 of Tatti within
        the subtree): for class 1, 2 (class 0 below ``key`` in it) + (class 0
        at ``key``); for class 0: 2 (class 1 above ``key`` in it) + (class 1
        at ``key``).  ``below_neg``, ``above_pos`` (over the
        whole tree, from ``_descend``, before the change) minus what lies
        outside the subtree, found on the way down from the root reading only
        nodes the search read.
        """
        cdef double outside = 0.0
        cdef int32_t index, node, child
        cdef double at_other = at_neg if is_pos else at_pos
        for index in range(depth):
            node = self.path[index]
            if is_pos:
                self.sums[node].subtree_pos += change
                self.sums[node].subtree_pairs += change * (2.0 * (below_neg - outside) + at_other)
                if key > self.sums[node].key:
                    outside += self.slots[node].count_neg
                    child = self.slots[node].left
                    if child >= 0:
                        outside += self.sums[child].subtree_neg
            else:
                self.sums[node].subtree_neg += change
                self.sums[node].subtree_pairs += change * (2.0 * (above_pos - outside) + at_other)
                if key < self.sums[node].key:
                    outside += self.slots[node].count_pos
                    child = self.slots[node].right
                    if child >= 0:
                        outside += self.sums[child].subtree_pos

    cdef int32_t count_at(self, double key, bint is_pos) noexcept nogil:
        cdef int32_t node = self.find(key)
        if node < 0:
            return 0
        return slot_count(self.slots, is_pos, node)

    # ------------------------------------------------------------------
    # Python-level access for tests, _check and pickling.

    def weight_below(self, double key):
        """(class 0, class 1) weight of the scores below ``key``: ``lcount``, Alg. 2."""
        cdef double below_neg, below_pos
        self.lcount(key, &below_neg, &below_pos)
        return below_neg, below_pos

    @property
    def nbytes(self):
        """Bytes held by the node buffers."""
        return sum(getattr(self, name).nbytes for name, _, _ in self._fields())

    def field(self, name):
        """A writable view of one field of every slot's record, by its name in
        ``_RECORD_FIELDS`` (for tests, ``_check`` and pickles)."""
        buffer, column = _FIELD_COLUMNS[name]
        return getattr(self, buffer)[:, column]

    def node_weights(self, slots):
        """Class weights at the given slots."""
        slots = np.asarray(slots, dtype=np.int64)
        return (self.field("count_neg")[slots].astype(np.float64),
                self.field("count_pos")[slots].astype(np.float64))

    def items(self):
        """In-order node contents: keys, class weights and class point counts."""
        order = self._in_order()
        weight_neg, weight_pos = self.node_weights(order)
        return (
            self.field("key")[order].copy(), weight_neg, weight_pos,
            self.field("count_neg")[order].copy(), self.field("count_pos")[order].copy(),
        )

    def _in_order(self):
        """Slots of the tree in increasing score order (iterative, O(n))."""
        order = np.empty(self.n_used, dtype=np.int64)
        stack = []
        node = self.root
        filled = 0
        while stack or node >= 0:
            while node >= 0:
                if len(stack) > self.n_used:
                    raise AssertionError("treap has a cycle")
                stack.append(node)
                node = self.slots[node].left
            node = stack.pop()
            if filled >= self.n_used:
                raise AssertionError("treap holds more nodes than n_used")
            order[filled] = node
            filled += 1
            node = self.slots[node].right
        if filled != self.n_used:
            raise AssertionError(f"treap holds {filled} nodes, n_used says {self.n_used}")
        return order

    def _check(self):
        """Verify every invariant in O(n); raise AssertionError on the first violation."""
        cdef int32_t child
        order = self._in_order()
        keys, _, _, count_neg, count_pos = self.items()
        if keys.size and not np.all(keys[1:] > keys[:-1]):  # (no overflow at +-1e308)
            raise AssertionError("in-order scores are not strictly increasing")
        if not np.all(np.isfinite(keys)):
            raise AssertionError("a score is not finite")
        if np.any(count_neg < 0) or np.any(count_pos < 0):
            raise AssertionError("negative point count")
        counts = count_neg.astype(np.int64) + count_pos
        if np.any(counts == 0):
            raise AssertionError("a node holds no point")
        if int(counts.sum()) != self.n_points:
            raise AssertionError(f"points {int(counts.sum())} != n_points {self.n_points}")
        for node in order:
            for child in (self.slots[node].left, self.slots[node].right):
                if child >= 0 and pool_priority(self, child) > pool_priority(self, node):
                    raise AssertionError(f"heap order violated below slot {node}")
        # Aggregates must equal their recomputation from the children bit for bit.
        self._check_aggregates(order)
        in_tree = np.zeros(self.capacity, dtype=bool)
        in_tree[order] = True
        self._check_free_list(in_tree)
        return True

    def _check_aggregates(self, order):
        cdef double total_neg, total_pos, pairs
        cdef int32_t node
        for node in order:
            self.aggregate(node, &total_neg, &total_pos, &pairs)
            if total_neg != self.sums[node].subtree_neg:
                raise AssertionError(f"stale class 0 subtree aggregate at slot {node}")
            if total_pos != self.sums[node].subtree_pos:
                raise AssertionError(f"stale class 1 subtree aggregate at slot {node}")
            if pairs != self.sums[node].subtree_pairs:
                raise AssertionError(f"stale pair subtree aggregate at slot {node}")

    def _split_join_check(self, double key):
        """Split the whole tree around ``key`` (absent), verify both parts, join back."""
        cdef int32_t left_root, right_root
        if self.find(key) >= 0:
            raise ValueError("the key must not be in the tree")
        before = self.items()
        self.split(self.root, key, &left_root, &right_root)
        left_keys = self.field("key")[self._subtree_slots(left_root)]
        right_keys = self.field("key")[self._subtree_slots(right_root)]
        if np.any(left_keys >= key) or np.any(right_keys <= key):
            raise AssertionError("split put a score on the wrong side")
        self.root = self.join(left_root, right_root)
        after = self.items()
        for old, new in zip(before, after, strict=True):
            if not np.array_equal(old, new):
                raise AssertionError("split + join changed the contents")
        return self._check()

    def _subtree_slots(self, int32_t top):
        """Slots of the subtree at ``top`` (any order)."""
        slots = []
        stack = [top] if top >= 0 else []
        while stack:
            node = stack.pop()
            slots.append(node)
            for child in (self.slots[node].left, self.slots[node].right):
                if child >= 0:
                    stack.append(child)
        return np.array(slots, dtype=np.int64)

    def __reduce__(self):
        state = (int(self.seed), self.root, self.n_points, self._pool_state())
        return (_rebuild_score_treap, state)


# The fields of each record buffer in column order (``Slot``, ``NodeSums``,
# ``NodeWeights``), named as the Python-level views (``field``).
_RECORD_FIELDS = {
    "slots_buffer": ("left", "right", "count_neg", "count_pos"),
    "sums_buffer": ("key", "subtree_neg", "subtree_pos", "subtree_pairs"),
}
_FIELD_COLUMNS = {name: (buffer, column) for buffer, names in _RECORD_FIELDS.items()
                  for column, name in enumerate(names)}
assert sizeof(Slot) == 4 * sizeof(int32_t)
assert sizeof(NodeSums) == 4 * sizeof(double)


cdef double* _row_pointer(buffer):
    """The data of a (slots, components) float64 buffer, NULL when absent."""
    cdef double[:, ::1] view
    if buffer is None:
        return NULL
    view = buffer
    return &view[0, 0]


def _rebuild_score_treap(seed, root, n_points, pool_state):
    cdef ScoreTreap tree = ScoreTreap.__new__(ScoreTreap, 1, seed)
    try:
        tree._restore(*pool_state)
        tree.root = root
        tree.n_points = n_points
        _check_nodes(tree, tree._check_links(root))
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this score treap: {error}") from None
    return tree


cdef int _check_nodes(ScoreTreap tree, const int32_t[::1] order) except -1:
    """The tree's nodes (``order``, links checked) in search and heap order, with finite
    scores and their counts adding up to ``n_points``: O(n), for a pickle."""
    cdef Py_ssize_t index
    cdef int32_t node, child
    cdef int64_t points = 0
    for index in range(order.shape[0]):
        node = order[index]
        if (not isfinite(tree.sums[node].key) or tree.slots[node].count_neg < 0
                or tree.slots[node].count_pos < 0):
            raise ValueError(f"slot {node} has a score or counts out of range")
        points += tree.slots[node].count_neg + tree.slots[node].count_pos
        child = tree.slots[node].left
        if child >= 0 and not (tree.sums[child].key < tree.sums[node].key
                               and pool_priority(tree, child) <= pool_priority(tree, node)):
            raise ValueError(f"slot {node}'s left child {child} is out of order")
        child = tree.slots[node].right
        if child >= 0 and not (tree.sums[child].key > tree.sums[node].key
                               and pool_priority(tree, child) <= pool_priority(tree, node)):
            raise ValueError(f"slot {node}'s right child {child} is out of order")
    if points != tree.n_points:
        raise ValueError(f"{points} points in the nodes, {tree.n_points} held")
    return 0
