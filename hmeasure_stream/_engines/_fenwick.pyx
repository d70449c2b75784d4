"""A Fenwick tree of class counts indexed by dense rank.

When every score of a stream is known in advance, its dense ranks replace
the scores and the class counts below a score are a prefix sum: one flat
int32 array of (class 0, class 1) pairs whose upper levels stay in cache,
instead of a search of the sorted blocks.  ``pairs`` gives the increment of
2U (twice the Mann-Whitney statistic) of Tatti's Props 1-2 ("Maintaining AUC
and H-measure over time", Sec. 4) for a point at a rank.  Counts are int32:
the caller sends fewer than 2^31 points.
"""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t

from hmeasure_stream._engines._numeric cimport unit_auc


cdef class RankCounts:
    """Class counts at ranks 0 .. n_ranks - 1, with prefix sums in O(log n_ranks)."""

    def __cinit__(self, Py_ssize_t n_ranks):
        cdef int32_t[::1] tree, at
        self.n_ranks = n_ranks
        self.n_neg = 0
        self.n_pos = 0
        self.tree_buffer = np.zeros(2 * (n_ranks + 1), dtype=np.int32)
        self.at_buffer = np.zeros(2 * max(n_ranks, 1), dtype=np.int32)
        tree = self.tree_buffer
        at = self.at_buffer
        self.tree = &tree[0]
        self.at = &at[0]

    cdef void below(self, Py_ssize_t rank, int64_t* neg, int64_t* pos) noexcept nogil:
        """Class counts at ranks < ``rank``."""
        cdef int64_t total_neg = 0, total_pos = 0
        cdef Py_ssize_t slot = rank  # 1-based: slot r covers ranks (r - lowbit(r), r]
        while slot > 0:
            total_neg += self.tree[2 * slot]
            total_pos += self.tree[2 * slot + 1]
            slot &= slot - 1
        neg[0] = total_neg
        pos[0] = total_pos

    cdef void update(self, Py_ssize_t rank, bint is_pos, int32_t change) noexcept nogil:
        """Count a point in (change 1) or out (-1) at ``rank``."""
        cdef Py_ssize_t slot = rank + 1
        self.at[2 * rank + is_pos] += change
        while slot <= self.n_ranks:
            self.tree[2 * slot + is_pos] += change
            slot += slot & -slot
        if is_pos:
            self.n_pos += change
        else:
            self.n_neg += change

    cdef int64_t pairs(self, Py_ssize_t rank, bint is_pos) noexcept nogil:
        """2 x the pairs a point at ``rank`` forms with the counted points (Props 1-2).

        Class 1: 2 per class 0 point below, 1 per class 0 point at the rank;
        class 0: 2 per class 1 point above, 1 per class 1 point at the rank.
        """
        cdef int64_t below_neg, below_pos
        self.below(rank, &below_neg, &below_pos)
        if is_pos:
            return 2 * below_neg + self.at[2 * rank]
        return 2 * (self.n_pos - below_pos - self.at[2 * rank + 1]) + self.at[2 * rank + 1]

    def count_below(self, Py_ssize_t rank):
        """(class 0, class 1) counts at ranks < ``rank`` (for tests)."""
        cdef int64_t neg, pos
        self.below(rank, &neg, &pos)
        return neg, pos

    def add(self, Py_ssize_t rank, bint is_pos, int32_t change=1):
        """Count a point in or out (for tests)."""
        self.update(rank, is_pos, change)


def sliding_auc_ranked(const uint8_t[::1] is_pos, const int64_t[::1] ranks,
                       Py_ssize_t n_ranks, Py_ssize_t window, double[::1] auc_out):
    """The AUC of every window with unit weights when the whole stream is known.

    The scores are replaced by their dense ranks 0 .. n_ranks - 1 over the
    whole array and the window's class counts are kept in a Fenwick tree
    (``RankCounts``) instead of a search structure: same Props 1-2 increments of
    2U (an exact integer), but one flat array of 8 bytes per distinct score
    whose upper levels stay in cache, so a step costs about the same for a
    window of 10^3 as of 10^6 points, where a search tree pays a memory latency
    for each of its ~2 ln w levels.  ``window`` <= 0 means every prefix.
    """
    cdef Py_ssize_t n = ranks.shape[0], index, leaving
    cdef int64_t twice_u = 0
    cdef RankCounts counts = RankCounts(n_ranks)
    with nogil:
        for index in range(n):
            # The point leaving the window goes first, then point ``index`` arrives.
            if 0 < window <= index:
                leaving = index - window
                counts.update(ranks[leaving], is_pos[leaving], -1)
                twice_u -= counts.pairs(ranks[leaving], is_pos[leaving])
            twice_u += counts.pairs(ranks[index], is_pos[index])
            counts.update(ranks[index], is_pos[index], 1)
            auc_out[index] = unit_auc(twice_u, counts.n_neg, counts.n_pos)
