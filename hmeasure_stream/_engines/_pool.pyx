"""The slot pool shared by every array-backed tree of the package.

A pool stores nodes in numpy buffers of records, one record per slot, nodes
named by int32 slot indices, -1 for none.  The fields a descent reads at a
node together share a record (``Slot``: the links and the counts), so a node
costs it one or two cache lines rather than one per field; buffers start on
a cache line (``aligned_empty``), so no record straddles two.  Free slots
form a list linked through ``left``.  Capacity doubles when needed, one
buffer at a time, so the transient memory of a growth is one old buffer; a
failed growth raises ``MemoryError`` and leaves a consistent pool.  A
subclass lists its fields (``_fields``), binds its raw pointers (``_bind``)
and recomputes a node's aggregates from its children (``pull_slot``);
``join`` is written once, here.
"""

import os

import numpy as np

from libc.stdint cimport int32_t

# The Python-level limit, for the public layer's checks.
MAX_CAPACITY = MAX_SLOTS


def normalized_seed(seed):
    """A 64-bit seed: ``None`` draws one from the OS, an integer is taken modulo 2^64."""
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer or None, got {seed!r}")
    return int(seed) & 0xFFFFFFFFFFFFFFFF


CACHE_LINE = 64


def aligned_empty(shape, dtype):
    """An uninitialised array of ``shape`` (a length, or a tuple of them) whose data
    starts on a cache line.

    A record of 16 or 32 bytes then never straddles two lines (numpy aligns
    large arrays to 16 bytes only).  The size and the address are plain C
    arithmetic: engines call this for every buffer they make or grow.
    """
    dtype = np.dtype(dtype)
    cdef Py_ssize_t size = dtype.itemsize, line = CACHE_LINE, start
    if isinstance(shape, tuple):
        for length in shape:
            size *= <Py_ssize_t>length
    else:
        size *= <Py_ssize_t>shape
    raw = np.empty(size + line, dtype=np.uint8)
    cdef unsigned char[::1] bytes_view = raw
    start = (line - <Py_ssize_t>(<size_t>&bytes_view[0] % <size_t>line)) % line
    return raw[start:start + size].view(dtype).reshape(shape)


def grown_buffer(buffer, shape, dtype, fill=None):
    """A field buffer of ``shape`` (slots, or (slots, components)) holding ``buffer`` first.

    Aligned to a cache line; new slots are left uninitialised unless
    ``fill`` is given.
    """
    grown = aligned_empty(shape, dtype)
    if fill is not None:
        grown[...] = fill
    if buffer is not None:
        grown[:buffer.shape[0]] = buffer
    return grown


def doubled_capacity(Py_ssize_t capacity, Py_ssize_t needed, what):
    """The capacity, doubled as often as needed to hold ``needed`` slots (int32 indices)."""
    if needed > MAX_SLOTS:
        raise MemoryError(f"{what} holds at most {MAX_SLOTS} slots")
    capacity = max(capacity, 1)
    while capacity < needed:
        capacity *= 2
    return min(capacity, MAX_SLOTS)


cdef void _pull_nothing(SlotPool pool, int32_t slot) noexcept nogil:
    pass


cdef class SlotPool:
    """Base of the array-backed trees; see the module docstring."""

    def __cinit__(self, *args, **kwargs):
        self.capacity = 0
        self.n_used = 0
        self.free_head = -1
        self.seed = 0
        self.pool_name = "a pool"
        self.pull_slot = _pull_nothing

    def _fields(self):
        """(attribute, dtype, components) of every buffer in use."""
        return [("slots_buffer", np.int32, 4)]

    def _bind(self):
        self._bind_links()

    cdef int _bind_links(self) except -1:
        cdef int32_t[:, ::1] records = self.slots_buffer
        self.slots = <Slot*>&records[0, 0]
        return 0

    cdef int32_t join(self, int32_t left_root, int32_t right_root) noexcept nogil:
        """Join two trees, every node of ``left_root``'s before every node of the other.

        The root of higher priority stays on top; O(depth).
        """
        if left_root < 0:
            return right_root
        if right_root < 0:
            return left_root
        if pool_priority(self, left_root) > pool_priority(self, right_root):
            self.slots[left_root].right = self.join(self.slots[left_root].right, right_root)
            self.pull_slot(self, left_root)
            return left_root
        self.slots[right_root].left = self.join(left_root, self.slots[right_root].left)
        self.pull_slot(self, right_root)
        return right_root

    cdef int32_t take_slot(self) noexcept nogil:
        """A free slot with no children (one must be reserved)."""
        cdef int32_t slot = self.free_head
        self.free_head = self.slots[slot].left
        self.slots[slot].left = -1
        self.slots[slot].right = -1
        self.n_used += 1
        return slot

    cdef void release_slot(self, int32_t slot) noexcept nogil:
        self.slots[slot].left = self.free_head
        self.slots[slot].right = -1
        self.free_head = slot
        self.n_used -= 1

    cdef int grow(self, Py_ssize_t new_capacity) except -1:
        """Grow every field buffer to ``new_capacity`` slots; the new ones go on the free list.

        The raw pointers are refreshed even after a failure (buffers grown
        before it stay valid).
        """
        cdef Py_ssize_t old_capacity = self.capacity
        if new_capacity > MAX_SLOTS:
            raise MemoryError(f"{self.pool_name} holds at most {MAX_SLOTS} slots")
        if new_capacity <= old_capacity:
            return 0
        try:
            for name, dtype, components in self._fields():
                shape = new_capacity if components == 1 else (new_capacity, components)
                setattr(self, name, grown_buffer(getattr(self, name), shape, dtype))
        except MemoryError:
            raise MemoryError(
                f"cannot grow {self.pool_name} from {old_capacity} to {new_capacity} slots"
            ) from None
        finally:
            self._bind()
        links = self.slots_buffer[:, 0]
        links[old_capacity:new_capacity - 1] = np.arange(old_capacity + 1, new_capacity)
        links[new_capacity - 1] = self.free_head
        self.free_head = <int32_t>old_capacity
        self.capacity = <int32_t>new_capacity
        return 0

    cdef int reserve(self, Py_ssize_t extra) except -1:
        """Make room for ``extra`` more slots in use (doubling)."""
        cdef Py_ssize_t needed = self.n_used + extra
        if needed <= self.capacity:
            return 0
        return self.grow(doubled_capacity(self.capacity, needed, self.pool_name))

    def _buffers(self):
        """The field buffers by name (for pickling)."""
        return {name: getattr(self, name) for name, _, _ in self._fields()}

    def _restore(self, capacity, n_used, free_head, buffers):
        """Take over pickled buffers (copies) and counters; ValueError, before anything is
        bound, when their sizes or counters disagree (the links are the tree's to check)."""
        fields = self._fields()
        if not (isinstance(buffers, dict) and set(buffers) == {name for name, _, _ in fields}
                and 1 <= capacity <= MAX_SLOTS and 0 <= n_used <= capacity
                and -1 <= free_head < capacity):
            raise ValueError(f"{self.pool_name}: {n_used} of {capacity} slots in use, free "
                             f"list at {free_head}, buffers {sorted(buffers)}")
        for name, dtype, components in fields:
            buffer = np.asarray(buffers[name])
            shape = (capacity,) if components == 1 else (capacity, components)
            if buffer.dtype != dtype or buffer.shape != shape:
                raise ValueError(f"{self.pool_name}: its {name} is {buffer.dtype} "
                                 f"{buffer.shape}, not {np.dtype(dtype)} {shape}")
        for name, buffer in buffers.items():
            buffer = np.asarray(buffer)
            setattr(self, name, grown_buffer(buffer, buffer.shape, buffer.dtype))
        self.capacity = capacity
        self.n_used = n_used
        self.free_head = free_head
        self._bind()

    def _check_links(self, int32_t root):
        """The tree at ``root`` and the free list together hold every slot once, every link
        in range (a pickle's, checked in O(n) before any operation follows them); returns
        the tree's slots in pre-order.  ValueError otherwise."""
        cdef Py_ssize_t capacity = self.capacity, filled = 0, top = 0, free_slots = 0
        cdef int32_t node, child, side
        seen = np.zeros(capacity, dtype=np.uint8)
        order = np.empty(self.n_used, dtype=np.int32)
        cdef unsigned char[::1] seen_view = seen
        cdef int32_t[::1] order_view = order
        stack = np.empty(capacity + 1, dtype=np.int32)
        cdef int32_t[::1] stack_view = stack
        if not -1 <= root < capacity:
            raise ValueError(f"{self.pool_name}: its root {root} is not a slot")
        if root >= 0:
            stack_view[0] = root
            seen_view[root] = 1
            top = 1
        while top:
            top -= 1
            node = stack_view[top]
            if filled == self.n_used:
                raise ValueError(f"{self.pool_name}: more slots in the tree than "
                                 f"{self.n_used} in use")
            order_view[filled] = node
            filled += 1
            for side in range(2):
                child = self.slots[node].left if side == 0 else self.slots[node].right
                if child == -1:
                    continue
                if not 0 <= child < capacity or seen_view[child]:
                    raise ValueError(f"{self.pool_name}: slot {node} links to slot {child}, "
                                     "out of range or reached twice")
                seen_view[child] = 1
                stack_view[top] = child
                top += 1
        if filled != self.n_used:
            raise ValueError(f"{self.pool_name}: {filled} slots in the tree, {self.n_used} "
                             "in use")
        node = self.free_head
        while node != -1:
            if not 0 <= node < capacity or seen_view[node]:
                raise ValueError(f"{self.pool_name}: its free list reaches slot {node}, out "
                                 "of range or in use")
            seen_view[node] = 1
            free_slots += 1
            node = self.slots[node].left
        if free_slots + filled != capacity:
            raise ValueError(f"{self.pool_name}: {capacity - free_slots - filled} slots "
                             "neither free nor in use")
        return order

    def _pool_state(self):
        """What ``_restore`` takes back, for pickling."""
        return (self.capacity, self.n_used, self.free_head, self._buffers())

    def _check_free_list(self, in_use):
        """Every slot is either in use (``in_use``, a bool mask) or on the free list, once."""
        seen = np.array(in_use, dtype=bool, copy=True)
        if seen.shape[0] != self.capacity or int(seen.sum()) != self.n_used:
            raise AssertionError(
                f"{int(seen.sum())} slots reached, {self.n_used} in use by the counter")
        free_slots = 0
        slot = self.free_head
        while slot >= 0:
            if seen[slot]:
                raise AssertionError(f"slot {slot} is both free and in use (or free twice)")
            seen[slot] = True
            free_slots += 1
            slot = self.slots[slot].left
        if free_slots + self.n_used != self.capacity:
            raise AssertionError("slots lost: neither free nor in use")
        return True

    @property
    def nbytes(self):
        """Bytes held by the field buffers."""
        return sum(getattr(self, name).nbytes for name, _, _ in self._fields())
