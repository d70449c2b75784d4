"""Array-backed treap over distinct scores with per-class weights (seed 000, Sec. 4).

Private engine of the dynamic structures.  One node per distinct score; each
node stores the class 0 / class 1 weight and point count at its score and the
subtree sums of the weights, recomputed from the children whenever a node
changes (never accumulated, so they do not drift).  ``lcount`` is Alg. 2 of
seed 000.  Nodes live in one buffer per field; deleted slots are kept on a
free list linked through ``left``.

Mutating methods assume the caller reserved a free slot (``reserve``) while
holding the GIL, so they can run without it.
"""

import os

import numpy as np

from libc.stdlib cimport realloc, free
from libc.stdint cimport int32_t, int64_t, uint64_t

from hmeasure_stream._treap cimport slot_priority

cdef int32_t _INITIAL_PATH = 64
cdef Py_ssize_t _MAX_CAPACITY = 2**31 - 1


cdef class ScoreTreap:
    """A treap of distinct scores with class weights; see the module docstring.

    Parameters
    ----------
    capacity : int
        Initial number of node slots (grown by doubling).
    seed : int, optional
        Seed of the slot priorities (random when None).
    """

    def __cinit__(self, Py_ssize_t capacity=16, seed=None):
        self.root = -1
        self.capacity = 0
        self.n_nodes = 0
        self.n_points = 0
        self.free_head = -1
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        self.seed = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self.path = NULL
        self.path_capacity = 0
        self._grow_path()
        self._resize(max(capacity, 1))

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

    cdef int _resize(self, Py_ssize_t new_capacity) except -1:
        """Grow every field buffer to ``new_capacity`` slots, one buffer at a time.

        Growing field by field keeps the transient memory to one old buffer.
        The new slots are pushed on the free list.
        """
        cdef Py_ssize_t old_capacity = self.capacity, slot
        if new_capacity > _MAX_CAPACITY:
            raise MemoryError(f"a treap holds at most {_MAX_CAPACITY} distinct scores")
        if new_capacity <= old_capacity:
            return 0
        try:
            self.key_buffer = _grown(self.key_buffer, new_capacity, np.float64)
            self.left_buffer = _grown(self.left_buffer, new_capacity, np.int32)
            self.right_buffer = _grown(self.right_buffer, new_capacity, np.int32)
            self.weight_neg_buffer = _grown(self.weight_neg_buffer, new_capacity, np.float64)
            self.weight_pos_buffer = _grown(self.weight_pos_buffer, new_capacity, np.float64)
            self.count_neg_buffer = _grown(self.count_neg_buffer, new_capacity, np.int32)
            self.count_pos_buffer = _grown(self.count_pos_buffer, new_capacity, np.int32)
            self.subtree_neg_buffer = _grown(self.subtree_neg_buffer, new_capacity, np.float64)
            self.subtree_pos_buffer = _grown(self.subtree_pos_buffer, new_capacity, np.float64)
        except MemoryError:
            raise MemoryError(
                f"cannot grow the treap from {old_capacity} to {new_capacity} nodes"
            ) from None
        finally:
            # Buffers grown before a failure stay valid: refresh every pointer.
            self._bind()
        for slot in range(new_capacity - 1, old_capacity - 1, -1):
            self.left[slot] = self.free_head
            self.free_head = <int32_t>slot
        self.capacity = <int32_t>new_capacity
        return 0

    cdef int reserve(self, Py_ssize_t extra_nodes) except -1:
        """Make room for ``extra_nodes`` more distinct scores (doubling)."""
        cdef Py_ssize_t needed = self.n_nodes + extra_nodes
        cdef Py_ssize_t new_capacity = self.capacity
        if needed <= self.capacity:
            return 0
        if needed > _MAX_CAPACITY:
            raise MemoryError(f"a treap holds at most {_MAX_CAPACITY} distinct scores")
        while new_capacity < needed:
            new_capacity *= 2
        return self._resize(min(new_capacity, _MAX_CAPACITY))

    def _bind(self):
        """Point the raw field pointers at the current buffers."""
        if self.key_buffer is None:
            return
        cdef double[::1] keys = self.key_buffer
        cdef int32_t[::1] lefts = self.left_buffer
        cdef int32_t[::1] rights = self.right_buffer
        cdef double[::1] weight_neg = self.weight_neg_buffer
        cdef double[::1] weight_pos = self.weight_pos_buffer
        cdef int32_t[::1] count_neg = self.count_neg_buffer
        cdef int32_t[::1] count_pos = self.count_pos_buffer
        cdef double[::1] subtree_neg = self.subtree_neg_buffer
        cdef double[::1] subtree_pos = self.subtree_pos_buffer
        self.key = &keys[0]
        self.left = &lefts[0]
        self.right = &rights[0]
        self.weight_neg = &weight_neg[0]
        self.weight_pos = &weight_pos[0]
        self.count_neg = &count_neg[0]
        self.count_pos = &count_pos[0]
        self.subtree_neg = &subtree_neg[0]
        self.subtree_pos = &subtree_pos[0]

    cdef int32_t _new_node(self, double key) noexcept nogil:
        cdef int32_t node = self.free_head
        self.free_head = self.left[node]
        self.key[node] = key
        self.left[node] = -1
        self.right[node] = -1
        self.weight_neg[node] = 0.0
        self.weight_pos[node] = 0.0
        self.count_neg[node] = 0
        self.count_pos[node] = 0
        self.subtree_neg[node] = 0.0
        self.subtree_pos[node] = 0.0
        self.n_nodes += 1
        return node

    cdef void _free_node(self, int32_t node) noexcept nogil:
        self.left[node] = self.free_head
        self.right[node] = -1
        self.free_head = node
        self.n_nodes -= 1

    cdef void pull(self, int32_t node) noexcept nogil:
        """Recompute the subtree sums of ``node`` from its children (fixed order)."""
        cdef int32_t child = self.left[node]
        cdef double total_neg = self.weight_neg[node]
        cdef double total_pos = self.weight_pos[node]
        if child >= 0:
            total_neg = self.subtree_neg[child] + total_neg
            total_pos = self.subtree_pos[child] + total_pos
        child = self.right[node]
        if child >= 0:
            total_neg = total_neg + self.subtree_neg[child]
            total_pos = total_pos + self.subtree_pos[child]
        self.subtree_neg[node] = total_neg
        self.subtree_pos[node] = total_pos

    cdef int32_t find(self, double key) noexcept nogil:
        cdef int32_t node = self.root
        while node >= 0 and self.key[node] != key:
            node = self.left[node] if key < self.key[node] else self.right[node]
        return node

    cdef int32_t lcount(self, double key, double* below_neg, double* below_pos) noexcept nogil:
        """Class weights of the scores below ``key`` (seed 000, Alg. 2).

        Returns the node holding ``key``, or -1.
        """
        cdef int32_t node = self.root, child
        cdef double total_neg = 0.0, total_pos = 0.0
        while node >= 0:
            if key < self.key[node]:
                node = self.left[node]
                continue
            child = self.left[node]
            if child >= 0:
                total_neg += self.subtree_neg[child]
                total_pos += self.subtree_pos[child]
            if key == self.key[node]:
                break
            total_neg += self.weight_neg[node]
            total_pos += self.weight_pos[node]
            node = self.right[node]
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
        elif self.key[node] < key:
            self.split(self.right[node], key, &self.right[node], out_right)
            self.pull(node)
            out_left[0] = node
        else:
            self.split(self.left[node], key, out_left, &self.left[node])
            self.pull(node)
            out_right[0] = node

    cdef int32_t join(self, int32_t left_root, int32_t right_root) noexcept nogil:
        """Join two treaps whose scores are all smaller in ``left_root``'s. O(depth)."""
        if left_root < 0:
            return right_root
        if right_root < 0:
            return left_root
        if slot_priority(self.seed, left_root) > slot_priority(self.seed, right_root):
            self.right[left_root] = self.join(self.right[left_root], right_root)
            self.pull(left_root)
            return left_root
        self.left[right_root] = self.join(left_root, self.left[right_root])
        self.pull(right_root)
        return right_root

    cdef int add(self, double key, bint is_pos, double weight,
                 double* below_neg, double* above_pos,
                 double* at_neg, double* at_pos) except -1 nogil:
        """Add one point; report the class weights around its score before the change.

        ``below_neg``: class 0 weight with scores < key; ``above_pos``: class 1
        weight with scores > key; ``at_neg``, ``at_pos``: the weights at key.
        These are what Props 1-2 of seed 000 need.  One free slot must be
        reserved.
        """
        cdef int32_t node = self.root, child, depth = 0, index, parent
        cdef double total_below_neg = 0.0, total_above_pos = 0.0
        cdef uint64_t priority
        cdef bint is_new
        while node >= 0:
            if depth == self.path_capacity:
                self._grow_path()
            self.path[depth] = node
            depth += 1
            if key < self.key[node]:
                total_above_pos += self.weight_pos[node]
                child = self.right[node]
                if child >= 0:
                    total_above_pos += self.subtree_pos[child]
                node = self.left[node]
            elif key > self.key[node]:
                total_below_neg += self.weight_neg[node]
                child = self.left[node]
                if child >= 0:
                    total_below_neg += self.subtree_neg[child]
                node = self.right[node]
            else:
                break
        is_new = node < 0
        if not is_new:
            child = self.left[node]
            if child >= 0:
                total_below_neg += self.subtree_neg[child]
            child = self.right[node]
            if child >= 0:
                total_above_pos += self.subtree_pos[child]
            at_neg[0] = self.weight_neg[node]
            at_pos[0] = self.weight_pos[node]
            depth -= 1  # the node itself is pulled separately
        else:
            at_neg[0] = 0.0
            at_pos[0] = 0.0
            node = self._new_node(key)
        below_neg[0] = total_below_neg
        above_pos[0] = total_above_pos
        if is_pos:
            self.weight_pos[node] += weight
            self.count_pos[node] += 1
        else:
            self.weight_neg[node] += weight
            self.count_neg[node] += 1
        if is_new:
            # The new node goes where the search path first meets a lower
            # priority, taking the subtree there split around its score.
            priority = slot_priority(self.seed, node)
            index = 0
            while index < depth and slot_priority(self.seed, self.path[index]) >= priority:
                index += 1
            if index < depth:
                self.split(self.path[index], key, &self.left[node], &self.right[node])
            self.pull(node)
            if index == 0:
                self.root = node
            else:
                parent = self.path[index - 1]
                if key < self.key[parent]:
                    self.left[parent] = node
                else:
                    self.right[parent] = node
            depth = index
        else:
            self.pull(node)
        while depth > 0:
            depth -= 1
            self.pull(self.path[depth])
        self.n_points += 1
        return 0

    cdef int remove(self, double key, bint is_pos, double weight,
                    double* below_neg, double* above_pos,
                    double* at_neg, double* at_pos) except -1 nogil:
        """Remove one point; report the class weights around its score before the change.

        Returns 0 on success, 1 if there is no point of that class at ``key``,
        2 if ``weight`` exceeds the weight of that class at ``key``.  Nothing
        changes unless 0 is returned.
        """
        cdef int32_t node = self.root, child, depth = 0, replacement
        cdef double total_below_neg = 0.0, total_above_pos = 0.0, remaining
        while node >= 0:
            if depth == self.path_capacity:
                self._grow_path()
            if key < self.key[node]:
                self.path[depth] = node
                depth += 1
                total_above_pos += self.weight_pos[node]
                child = self.right[node]
                if child >= 0:
                    total_above_pos += self.subtree_pos[child]
                node = self.left[node]
            elif key > self.key[node]:
                self.path[depth] = node
                depth += 1
                total_below_neg += self.weight_neg[node]
                child = self.left[node]
                if child >= 0:
                    total_below_neg += self.subtree_neg[child]
                node = self.right[node]
            else:
                break
        if node < 0 or (self.count_pos[node] if is_pos else self.count_neg[node]) == 0:
            return 1
        remaining = (self.weight_pos[node] if is_pos else self.weight_neg[node])
        if weight > remaining * (1.0 + 1e-9):
            return 2
        child = self.left[node]
        if child >= 0:
            total_below_neg += self.subtree_neg[child]
        child = self.right[node]
        if child >= 0:
            total_above_pos += self.subtree_pos[child]
        below_neg[0] = total_below_neg
        above_pos[0] = total_above_pos
        at_neg[0] = self.weight_neg[node]
        at_pos[0] = self.weight_pos[node]
        # The last point of a class leaves exactly zero weight behind.
        if is_pos:
            self.count_pos[node] -= 1
            self.weight_pos[node] = max(remaining - weight, 0.0) if self.count_pos[node] else 0.0
        else:
            self.count_neg[node] -= 1
            self.weight_neg[node] = max(remaining - weight, 0.0) if self.count_neg[node] else 0.0
        if self.count_neg[node] + self.count_pos[node] == 0:
            replacement = self.join(self.left[node], self.right[node])
            if depth == 0:
                self.root = replacement
            else:
                child = self.path[depth - 1]
                if key < self.key[child]:
                    self.left[child] = replacement
                else:
                    self.right[child] = replacement
            self._free_node(node)
        else:
            self.pull(node)
        while depth > 0:
            depth -= 1
            self.pull(self.path[depth])
        self.n_points -= 1
        return 0

    cdef int32_t count_at(self, double key, bint is_pos) noexcept nogil:
        cdef int32_t node = self.find(key)
        if node < 0:
            return 0
        return self.count_pos[node] if is_pos else self.count_neg[node]

    # ------------------------------------------------------------------
    # Python-level access for tests, _check and pickling.

    def items(self):
        """In-order node contents: keys, class weights and class point counts."""
        order = self._in_order()
        return (
            self.key_buffer[order].copy(),
            self.weight_neg_buffer[order].copy(),
            self.weight_pos_buffer[order].copy(),
            self.count_neg_buffer[order].copy(),
            self.count_pos_buffer[order].copy(),
        )

    def _in_order(self):
        """Slots of the tree in increasing score order (iterative, O(n))."""
        order = np.empty(self.n_nodes, dtype=np.int64)
        stack = []
        node = self.root
        filled = 0
        while stack or node >= 0:
            while node >= 0:
                if len(stack) > self.n_nodes:
                    raise AssertionError("treap has a cycle")
                stack.append(node)
                node = self.left[node]
            node = stack.pop()
            if filled >= self.n_nodes:
                raise AssertionError("treap holds more nodes than n_nodes")
            order[filled] = node
            filled += 1
            node = self.right[node]
        if filled != self.n_nodes:
            raise AssertionError(f"treap holds {filled} nodes, n_nodes says {self.n_nodes}")
        return order

    def _check(self):
        """Verify every invariant in O(n); raise AssertionError on the first violation."""
        cdef int32_t node, child
        cdef double expected_neg, expected_pos
        order = self._in_order()
        keys = self.key_buffer[order]
        if keys.size and not np.all(np.diff(keys) > 0):
            raise AssertionError("in-order scores are not strictly increasing")
        if not np.all(np.isfinite(keys)):
            raise AssertionError("a score is not finite")
        counts = self.count_neg_buffer[order].astype(np.int64) + self.count_pos_buffer[order]
        if np.any(self.count_neg_buffer[order] < 0) or np.any(self.count_pos_buffer[order] < 0):
            raise AssertionError("negative point count")
        if np.any(counts == 0):
            raise AssertionError("a node holds no point")
        if int(counts.sum()) != self.n_points:
            raise AssertionError(f"points {int(counts.sum())} != n_points {self.n_points}")
        for weights, point_counts in (
            (self.weight_neg_buffer[order], self.count_neg_buffer[order]),
            (self.weight_pos_buffer[order], self.count_pos_buffer[order]),
        ):
            if np.any(weights < 0) or np.any(weights[point_counts == 0] != 0):
                raise AssertionError("a class weight is negative or left behind by its points")
        for node in order:
            for child in (self.left[node], self.right[node]):
                if child >= 0 and slot_priority(self.seed, child) > slot_priority(self.seed, node):
                    raise AssertionError(f"heap order violated below slot {node}")
            # Subtree sums must equal their recomputation bit for bit.
            expected_neg = self.weight_neg[node]
            expected_pos = self.weight_pos[node]
            child = self.left[node]
            if child >= 0:
                expected_neg = self.subtree_neg[child] + expected_neg
                expected_pos = self.subtree_pos[child] + expected_pos
            child = self.right[node]
            if child >= 0:
                expected_neg = expected_neg + self.subtree_neg[child]
                expected_pos = expected_pos + self.subtree_pos[child]
            if expected_neg != self.subtree_neg[node] or expected_pos != self.subtree_pos[node]:
                raise AssertionError(f"stale subtree sums at slot {node}")
        in_tree = np.zeros(self.capacity, dtype=bool)
        in_tree[order] = True
        free_slots = 0
        node = self.free_head
        while node >= 0:
            if in_tree[node]:
                raise AssertionError(f"slot {node} is both free and in the tree")
            in_tree[node] = True
            free_slots += 1
            node = self.left[node]
        if free_slots + self.n_nodes != self.capacity:
            raise AssertionError("slots lost: neither free nor in the tree")
        return True

    def _split_join_check(self, double key):
        """Split the whole tree around ``key`` (absent), verify both parts, join back."""
        cdef int32_t left_root, right_root
        if self.find(key) >= 0:
            raise ValueError("the key must not be in the tree")
        before = self.items()
        self.split(self.root, key, &left_root, &right_root)
        left_keys = self.key_buffer[self._subtree_slots(left_root)]
        right_keys = self.key_buffer[self._subtree_slots(right_root)]
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
            for child in (self.left[node], self.right[node]):
                if child >= 0:
                    stack.append(child)
        return np.array(slots, dtype=np.int64)

    def __reduce__(self):
        state = (
            self.capacity, int(self.seed), self.root, self.free_head, self.n_nodes,
            self.n_points, self.key_buffer, self.left_buffer, self.right_buffer,
            self.weight_neg_buffer, self.weight_pos_buffer, self.count_neg_buffer,
            self.count_pos_buffer, self.subtree_neg_buffer, self.subtree_pos_buffer,
        )
        return (_rebuild_score_treap, state)


def _grown(buffer, Py_ssize_t new_capacity, dtype):
    grown = np.empty(new_capacity, dtype=dtype)
    if buffer is not None:
        grown[:buffer.shape[0]] = buffer
    return grown


def _rebuild_score_treap(capacity, seed, root, free_head, n_nodes, n_points, *buffers):
    cdef ScoreTreap tree = ScoreTreap.__new__(ScoreTreap, 1, seed)
    (tree.key_buffer, tree.left_buffer, tree.right_buffer, tree.weight_neg_buffer,
     tree.weight_pos_buffer, tree.count_neg_buffer, tree.count_pos_buffer,
     tree.subtree_neg_buffer, tree.subtree_pos_buffer) = [
        np.array(buffer, copy=True) for buffer in buffers
    ]
    tree._bind()
    tree.capacity = capacity
    tree.root = root
    tree.free_head = free_head
    tree.n_nodes = n_nodes
    tree.n_points = n_points
    return tree
