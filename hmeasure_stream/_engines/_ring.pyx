"""The points of a count window, oldest first, in a fixed ring of buffers.

A window of w points evicts its oldest point when a new one arrives: the
ring hands it back so that the engine can remove it.  One buffer per field,
allocated once at the window's size (17 bytes a point); capacity 0 stands
for an unbounded window (every prefix), which stores nothing.
"""

import numpy as np

from libc.stdint cimport uint8_t


cdef class PointRing:
    """The last ``capacity`` points (label, score, weight); see the module docstring."""

    def __cinit__(self, Py_ssize_t capacity):
        self.capacity = capacity
        self.head = 0
        self.size = 0
        self.is_pos_buffer = np.zeros(max(capacity, 1), dtype=np.uint8)
        self.score_buffer = np.zeros(max(capacity, 1), dtype=np.float64)
        self.weight_buffer = np.zeros(max(capacity, 1), dtype=np.float64)
        self._bind()

    def _bind(self):
        cdef uint8_t[::1] is_pos = self.is_pos_buffer
        cdef double[::1] score = self.score_buffer
        cdef double[::1] weight = self.weight_buffer
        self.is_pos = &is_pos[0]
        self.score = &score[0]
        self.weight = &weight[0]

    cdef bint push(self, uint8_t is_pos, double score, double weight, uint8_t* out_is_pos,
                   double* out_score, double* out_weight) noexcept nogil:
        """Store a point; if that evicts the oldest, write it out and return True."""
        cdef Py_ssize_t slot
        cdef bint evicted = False
        if self.capacity == 0:
            return False
        if self.size == self.capacity:
            slot = self.head
            out_is_pos[0] = self.is_pos[slot]
            out_score[0] = self.score[slot]
            out_weight[0] = self.weight[slot]
            evicted = True
            # The new point takes the evicted one's slot: the next is the oldest.
            self.head = slot + 1 if slot + 1 < self.capacity else 0
        else:
            slot = self.head + self.size
            if slot >= self.capacity:
                slot -= self.capacity
            self.size += 1
        self.is_pos[slot] = is_pos
        self.score[slot] = score
        self.weight[slot] = weight
        return evicted

    def _push_for_tests(self, uint8_t is_pos, double score, double weight):
        """``push`` from Python: the evicted point as a tuple, or None."""
        cdef uint8_t out_is_pos
        cdef double out_score, out_weight
        if self.push(is_pos, score, weight, &out_is_pos, &out_score, &out_weight):
            return (out_is_pos, out_score, out_weight)
        return None

    def points(self):
        """(is_pos, scores, weights) of the stored points, oldest first (copies)."""
        order = (self.head + np.arange(self.size)) % max(self.capacity, 1)
        return (self.is_pos_buffer[order].copy(), self.score_buffer[order].copy(),
                self.weight_buffer[order].copy())

    def __reduce__(self):
        state = (self.capacity, self.head, self.size,
                 self.is_pos_buffer, self.score_buffer, self.weight_buffer)
        return (_rebuild_ring, state)


def _rebuild_ring(capacity, head, size, is_pos, score, weight):
    cdef PointRing ring = PointRing(capacity)
    ring.head = head
    ring.size = size
    ring.is_pos_buffer = np.array(is_pos, copy=True)
    ring.score_buffer = np.array(score, copy=True)
    ring.weight_buffer = np.array(weight, copy=True)
    ring._bind()
    return ring
