# Declarations of the slot pool shared by every array-backed tree of the
# package (the score treap): storage in typed buffers, one record per slot,
# int32 slot indices, -1 for none, a free list linked through ``left``,
# growth by doubling, priorities (hashed, or those of a breadth-first build)
# and the treap join.

cimport cython
from libc.stdint cimport int32_t, uint64_t

cdef enum:
    # Slots are int32 indices: at most 2^31 - 1 of them.
    MAX_SLOTS = 2147483647


cdef struct Slot:
    # A slot's int32 fields, one 16-byte record (a quarter of a cache line,
    # the buffer aligned to lines): its children, -1 for none (``left`` also
    # links the free list), and the two counts the tree keeps beside them
    # (the score treap: its class 0 and class 1 points at the slot's score).
    # A descent reads all four at every node it passes: one line, not four.
    int32_t left
    int32_t right
    int32_t count_neg
    int32_t count_pos


cdef inline uint64_t slot_priority(uint64_t seed, int32_t slot) noexcept nogil:
    """The heap priority of a slot: splitmix64's finaliser of (seed, slot).

    Priorities are a fixed pseudo-random function of the slot rather than a
    stored field: slots are handed out independently of the keys, so every
    tree stays a random treap, and a node costs no priority buffer.
    """
    cdef uint64_t z = seed + <uint64_t>(slot + 1) * <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


# A subclass's ``pull`` as a plain function: the trees themselves stay final
# (direct calls on their hot paths) and ``join`` is still written once.
ctypedef void (*pull_function)(SlotPool pool, int32_t slot) noexcept nogil


cdef class SlotPool:
    # Buffers own the memory; the raw pointers are refreshed by _bind after
    # every reallocation (a subclass's _bind binds its own fields and calls
    # _bind_links).
    cdef public object slots_buffer     # (capacity, 4) int32: the ``Slot`` records
    cdef Slot* slots
    cdef readonly int32_t capacity
    cdef readonly int32_t n_used     # slots in use
    cdef int32_t free_head
    cdef uint64_t seed
    cdef str pool_name          # for messages: "the score treap"

    cdef pull_function pull_slot    # recompute a node's aggregates from its children

    @cython.final
    cdef int32_t join(self, int32_t left_root, int32_t right_root) noexcept nogil

    @cython.final
    cdef int32_t take_slot(self) noexcept nogil

    @cython.final
    cdef void release_slot(self, int32_t slot) noexcept nogil

    @cython.final
    cdef int grow(self, Py_ssize_t new_capacity) except -1

    @cython.final
    cdef int reserve(self, Py_ssize_t extra) except -1

    @cython.final
    cdef int _bind_links(self) except -1


cdef inline uint64_t pool_priority(SlotPool pool, int32_t slot) noexcept nogil:
    """The heap priority of a slot of ``pool``: the one rule every treap operation uses.

    A hash of the slot (``slot_priority``), fixed whatever key the slot later
    holds, so a key meets priorities independent of it and the treap stays
    balanced in expectation (Seidel and Aragon, "Randomized search trees",
    Sec. 3).
    """
    return slot_priority(pool.seed, slot)
