"""Compiled kernels of ``dask.py``: score groups with their scores, cut by value, merged.

Private module.  A *group* is one distinct score with its class weights; the
arrays of a partition or of a range hold the groups from the highest score
down (the order of ``_scratch``), as three parallel arrays: ``keys`` (the
scores, strictly decreasing), ``neg`` and ``pos`` (int64 counts for unit
weights, float64 weights otherwise).  A range of scores is cut out of every
partition by value, so the points of one score are always in one range, and
the pieces of one range from all partitions are merged back into groups.
"""

import numpy as np

from hmeasure_stream._engines._numeric cimport count_t, int64_t, uint8_t


def groups_sorted(const double[::1] neg, const double[::1] pos):
    """Distinct scores from the highest down with their class counts.

    ``neg`` and ``pos`` are the class 0 and class 1 scores, each sorted
    ascending.  Returns ``(keys, group_neg, group_pos)``: float64 keys,
    int64 counts.
    """
    cdef Py_ssize_t i = neg.shape[0] - 1, j = pos.shape[0] - 1, m = 0
    keys_arr = np.empty(i + j + 2, dtype=np.float64)
    group_neg_arr = np.empty(i + j + 2, dtype=np.int64)
    group_pos_arr = np.empty(i + j + 2, dtype=np.int64)
    cdef double[::1] keys = keys_arr
    cdef int64_t[::1] group_neg = group_neg_arr
    cdef int64_t[::1] group_pos = group_pos_arr
    cdef double value
    cdef int64_t count
    with nogil:
        while i >= 0 or j >= 0:
            if j < 0 or (i >= 0 and neg[i] >= pos[j]):
                value = neg[i]
            else:
                value = pos[j]
            count = 0
            while i >= 0 and neg[i] == value:
                count += 1
                i -= 1
            group_neg[m] = count
            count = 0
            while j >= 0 and pos[j] == value:
                count += 1
                j -= 1
            group_pos[m] = count
            keys[m] = value
            m += 1
    return keys_arr[:m], group_neg_arr[:m], group_pos_arr[:m]


def groups_weighted(const int64_t[::1] order, const double[::1] scores,
                    const uint8_t[::1] is_pos, const double[::1] weight):
    """Distinct scores from the highest down with their class weights.

    ``order`` sorts ``scores`` ascending.  Returns float64 arrays
    ``(keys, group_neg, group_pos)``.
    """
    cdef Py_ssize_t k = order.shape[0] - 1, m = 0, idx
    keys_arr = np.empty(k + 1, dtype=np.float64)
    group_neg_arr = np.empty(k + 1, dtype=np.float64)
    group_pos_arr = np.empty(k + 1, dtype=np.float64)
    cdef double[::1] keys = keys_arr
    cdef double[::1] group_neg = group_neg_arr
    cdef double[::1] group_pos = group_pos_arr
    cdef double value, w_neg, w_pos
    with nogil:
        while k >= 0:
            value = scores[order[k]]
            w_neg = 0.0
            w_pos = 0.0
            while k >= 0 and scores[order[k]] == value:
                idx = order[k]
                if is_pos[idx]:
                    w_pos += weight[idx]
                else:
                    w_neg += weight[idx]
                k -= 1
            keys[m] = value
            group_neg[m] = w_neg
            group_pos[m] = w_pos
            m += 1
    return keys_arr[:m], group_neg_arr[:m], group_pos_arr[:m]


def cut_points(const double[::1] keys, const double[::1] bounds):
    """For each bound b (decreasing), how many of the decreasing ``keys`` exceed b.

    Range r of a partition is then ``keys[cut[r - 1]:cut[r]]`` (cut[-1] = 0,
    the last range ends at len(keys)): the scores in (b_{r+1}, b_r].
    Binary searches, O(len(bounds) log len(keys)).
    """
    cdef Py_ssize_t n = keys.shape[0], r, lo, hi, mid
    out_arr = np.empty(bounds.shape[0], dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    with nogil:
        for r in range(bounds.shape[0]):
            lo = 0
            hi = n
            while lo < hi:  # first index whose key is <= the bound
                mid = (lo + hi) // 2
                if keys[mid] > bounds[r]:
                    lo = mid + 1
                else:
                    hi = mid
            out[r] = lo
    return out_arr


def merge_two(const double[::1] keys_a, const count_t[::1] neg_a, const count_t[::1] pos_a,
              const double[::1] keys_b, const count_t[::1] neg_b, const count_t[::1] pos_b):
    """The groups of two decreasing group arrays together: one merge, equal keys summed."""
    cdef Py_ssize_t i = 0, j = 0, m = 0
    cdef Py_ssize_t n_a = keys_a.shape[0], n_b = keys_b.shape[0]
    if count_t is int64_t:
        dtype = np.int64
    else:
        dtype = np.float64
    keys_arr = np.empty(n_a + n_b, dtype=np.float64)
    neg_arr = np.empty(n_a + n_b, dtype=dtype)
    pos_arr = np.empty(n_a + n_b, dtype=dtype)
    cdef double[::1] keys = keys_arr
    cdef count_t[::1] neg = neg_arr
    cdef count_t[::1] pos = pos_arr
    with nogil:
        while i < n_a and j < n_b:
            if keys_a[i] > keys_b[j]:
                keys[m] = keys_a[i]
                neg[m] = neg_a[i]
                pos[m] = pos_a[i]
                i += 1
            elif keys_a[i] < keys_b[j]:
                keys[m] = keys_b[j]
                neg[m] = neg_b[j]
                pos[m] = pos_b[j]
                j += 1
            else:
                keys[m] = keys_a[i]
                neg[m] = neg_a[i] + neg_b[j]
                pos[m] = pos_a[i] + pos_b[j]
                i += 1
                j += 1
            m += 1
        while i < n_a:
            keys[m] = keys_a[i]
            neg[m] = neg_a[i]
            pos[m] = pos_a[i]
            i += 1
            m += 1
        while j < n_b:
            keys[m] = keys_b[j]
            neg[m] = neg_b[j]
            pos[m] = pos_b[j]
            j += 1
            m += 1
    return keys_arr[:m], neg_arr[:m], pos_arr[:m]
