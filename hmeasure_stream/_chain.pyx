"""Pool of hull chains: implicit-key treaps of hull vertices (seed 000, Sec. 5.2).

Private engine of the maintained ROC hull.  A chain is a sequence of
vertices; each vertex stores ``d``, its coordinate difference (class 0
weight, class 1 weight) to the previous vertex (the chain's first vertex:
to the chain's start), and each subtree the sum ``cd`` of its ``d`` and its
number of vertices.  Coordinates are therefore relative: a chain can be
shifted, cut at a position and concatenated in O(log n) without touching its
vertices, and the coordinates of a vertex are the sum of ``cd`` of what lies
before it, gathered on the way down.

All chains share one set of buffers (one per field, free list through
``left``); a chain is named by its root slot, -1 for the empty chain.
Priorities are a hash of the slot, as in the score treap.
"""

import os

import numpy as np

from libc.stdint cimport int32_t, uint64_t

from hmeasure_stream._treap cimport slot_priority

cdef Py_ssize_t _MAX_CAPACITY = 2**31 - 1

_FIELDS = (
    ("d_neg_buffer", np.float64), ("d_pos_buffer", np.float64),
    ("cd_neg_buffer", np.float64), ("cd_pos_buffer", np.float64),
    ("first_neg_buffer", np.float64), ("first_pos_buffer", np.float64),
    ("size_buffer", np.int32), ("left_buffer", np.int32), ("right_buffer", np.int32),
)


cdef class ChainPool:
    """Shared storage of hull chains; see the module docstring."""

    def __cinit__(self, Py_ssize_t capacity=16, seed=None):
        self.capacity = 0
        self.n_vertices = 0
        self.free_head = -1
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        self.seed = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self._resize(max(capacity, 1))

    def _bind(self):
        cdef double[::1] d_neg = self.d_neg_buffer
        cdef double[::1] d_pos = self.d_pos_buffer
        cdef double[::1] cd_neg = self.cd_neg_buffer
        cdef double[::1] cd_pos = self.cd_pos_buffer
        cdef double[::1] first_neg = self.first_neg_buffer
        cdef double[::1] first_pos = self.first_pos_buffer
        cdef int32_t[::1] size = self.size_buffer
        cdef int32_t[::1] lefts = self.left_buffer
        cdef int32_t[::1] rights = self.right_buffer
        self.d_neg, self.d_pos = &d_neg[0], &d_pos[0]
        self.cd_neg, self.cd_pos = &cd_neg[0], &cd_pos[0]
        self.first_neg, self.first_pos = &first_neg[0], &first_pos[0]
        self.size, self.left, self.right = &size[0], &lefts[0], &rights[0]

    cdef int _resize(self, Py_ssize_t new_capacity) except -1:
        cdef Py_ssize_t old_capacity = self.capacity, slot
        if new_capacity > _MAX_CAPACITY:
            raise MemoryError(f"a chain pool holds at most {_MAX_CAPACITY} vertices")
        try:
            for name, dtype in _FIELDS:
                old = getattr(self, name)
                grown = np.empty(new_capacity, dtype=dtype)
                if old is not None:
                    grown[:old_capacity] = old
                setattr(self, name, grown)
        except MemoryError:
            raise MemoryError(
                f"cannot grow the chain pool from {old_capacity} to {new_capacity} vertices"
            ) from None
        finally:
            self._bind()
        for slot in range(new_capacity - 1, old_capacity - 1, -1):
            self.left[slot] = self.free_head
            self.free_head = <int32_t>slot
        self.capacity = <int32_t>new_capacity
        return 0

    cdef int reserve(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t needed = self.n_vertices + extra, new_capacity = self.capacity
        if needed <= self.capacity:
            return 0
        if needed > _MAX_CAPACITY:
            raise MemoryError(f"a chain pool holds at most {_MAX_CAPACITY} vertices")
        while new_capacity < needed:
            new_capacity *= 2
        return self._resize(min(new_capacity, _MAX_CAPACITY))

    cdef int32_t new_vertex(self, double d_neg, double d_pos) noexcept nogil:
        """A one-vertex chain (a free slot must be reserved)."""
        cdef int32_t vertex = self.free_head
        self.free_head = self.left[vertex]
        self.left[vertex] = -1
        self.right[vertex] = -1
        self.d_neg[vertex] = d_neg
        self.d_pos[vertex] = d_pos
        self.pull(vertex)
        self.n_vertices += 1
        return vertex

    cdef void free_vertex(self, int32_t vertex) noexcept nogil:
        self.left[vertex] = self.free_head
        self.right[vertex] = -1
        self.free_head = vertex
        self.n_vertices -= 1

    cdef void pull(self, int32_t vertex) noexcept nogil:
        """Recompute cd, size and first d of ``vertex`` from its children (fixed order)."""
        cdef int32_t child = self.left[vertex]
        cdef double total_neg = self.d_neg[vertex], total_pos = self.d_pos[vertex]
        cdef int32_t count = 1
        if child >= 0:
            total_neg = self.cd_neg[child] + total_neg
            total_pos = self.cd_pos[child] + total_pos
            count += self.size[child]
            self.first_neg[vertex] = self.first_neg[child]
            self.first_pos[vertex] = self.first_pos[child]
        else:
            self.first_neg[vertex] = self.d_neg[vertex]
            self.first_pos[vertex] = self.d_pos[vertex]
        child = self.right[vertex]
        if child >= 0:
            total_neg = total_neg + self.cd_neg[child]
            total_pos = total_pos + self.cd_pos[child]
            count += self.size[child]
        self.cd_neg[vertex] = total_neg
        self.cd_pos[vertex] = total_pos
        self.size[vertex] = count

    cdef int32_t chain_size(self, int32_t root) noexcept nogil:
        return self.size[root] if root >= 0 else 0

    cdef int32_t join(self, int32_t left_root, int32_t right_root) noexcept nogil:
        """Concatenate two chains.  O(log n)."""
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

    cdef void split(self, int32_t root, int32_t count,
                    int32_t* out_left, int32_t* out_right) noexcept nogil:
        """Cut a chain after its first ``count`` vertices.  O(log n)."""
        cdef int32_t left_size
        if root < 0:
            out_left[0] = -1
            out_right[0] = -1
            return
        left_size = self.chain_size(self.left[root])
        if count <= left_size:
            self.split(self.left[root], count, out_left, &self.left[root])
            self.pull(root)
            out_right[0] = root
        else:
            self.split(self.right[root], count - left_size - 1, &self.right[root], out_right)
            self.pull(root)
            out_left[0] = root

    # ------------------------------------------------------------------
    # Python-level access for tests.

    def chain_from(self, d_neg, d_pos):
        """A new chain with the given vertex differences; returns its root."""
        cdef Py_ssize_t index, n = len(d_neg)
        cdef int32_t root = -1
        self.reserve(n)
        for index in range(n):
            root = self.join(root, self.new_vertex(d_neg[index], d_pos[index]))
        return root

    def vertices(self, int32_t root):
        """The chain's differences in order, as arrays (d_neg, d_pos)."""
        slots = self.in_order(root)
        return self.d_neg_buffer[slots].copy(), self.d_pos_buffer[slots].copy()

    def in_order(self, int32_t root):
        slots, stack, node = [], [], root
        while stack or node >= 0:
            while node >= 0:
                stack.append(node)
                node = self.left[node]
            node = stack.pop()
            slots.append(node)
            node = self.right[node]
        return np.array(slots, dtype=np.int64)

    def _bottom_up(self, int32_t root):
        """Slots of the chain's tree, every node after its children."""
        order, stack = [], [root] if root >= 0 else []
        while stack:
            node = stack.pop()
            order.append(node)
            for child in (self.left[node], self.right[node]):
                if child >= 0:
                    stack.append(child)
        return order[::-1]

    def split_chain(self, int32_t root, int32_t count):
        cdef int32_t left_root, right_root
        self.split(root, count, &left_root, &right_root)
        return left_root, right_root

    def join_chains(self, int32_t left_root, int32_t right_root):
        return self.join(left_root, right_root)

    def free_chain(self, int32_t root):
        for slot in self.in_order(root):
            self.free_vertex(slot)

    def _check_chain(self, int32_t root):
        """Heap order, sizes and sums bit-equal to their recomputation, in O(size)."""
        cdef int32_t child
        for node in self._bottom_up(root):
            for child in (self.left[node], self.right[node]):
                if child >= 0 and slot_priority(self.seed, child) > slot_priority(self.seed, node):
                    raise AssertionError(f"heap order violated below slot {node}")
            saved = (self.cd_neg[node], self.cd_pos[node], self.size[node],
                     self.first_neg[node], self.first_pos[node])
            self.pull(node)
            if saved != (self.cd_neg[node], self.cd_pos[node], self.size[node],
                         self.first_neg[node], self.first_pos[node]):
                raise AssertionError(f"stale aggregates at slot {node}")
        return True
