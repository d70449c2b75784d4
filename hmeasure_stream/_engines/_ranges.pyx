"""Compiled kernels of ``dask.py``: score groups with their scores, cut by value, merged.

Private module.  A *group* is one distinct score with its class weights; the
arrays of a partition or of a range hold the groups from the highest score
down (the order of ``_scratch``), as three parallel arrays: ``keys`` (the
scores, strictly decreasing), ``neg`` and ``pos`` (int64 counts for unit
weights, float64 weights otherwise).  A range of scores is cut out of every
partition by value, so the points of one score are always in one range, and
the pieces of one range from all partitions are merged back into groups.
The groups themselves come from ``_scratch`` (``with_keys=True``).  Unsorted
scores (the AUC's, without weights) are moved into their ranges by value
(:func:`bucket_by_range`), each range to be sorted once.
"""

import numpy as np

from hmeasure_stream._engines._numeric cimport count_t, int64_t


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


cdef inline Py_ssize_t _range_of(double value, const double* bounds,
                                 Py_ssize_t n_bounds) noexcept nogil:
    """The range of ``value`` among decreasing ``bounds``: how many bounds are >= it."""
    cdef Py_ssize_t lo = 0, hi = n_bounds, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if bounds[mid] >= value:
            lo = mid + 1
        else:
            hi = mid
    return lo


def bucket_by_range(const double[::1] values, const double[::1] bounds):
    """``values`` (in any order) regrouped by range: ``(regrouped, starts)``.

    With the decreasing ``bounds`` b_0 > b_1 > ... of :func:`cut_points`,
    range 0 holds the values above b_0 and range r those in (b_r, b_{r-1}];
    range r's values are ``regrouped[starts[r]:starts[r + 1]]``, in their
    order in ``values``.  Two passes (a count, then a scatter), O(n log R)
    for R ranges.
    """
    cdef Py_ssize_t n = values.shape[0], n_bounds = bounds.shape[0], k, r
    starts_arr = np.zeros(n_bounds + 2, dtype=np.int64)
    regrouped_arr = np.empty(n, dtype=np.float64)
    cdef int64_t[::1] starts = starts_arr
    cdef double[::1] regrouped = regrouped_arr
    cdef const double* b = &bounds[0] if n_bounds else NULL
    cdef int64_t[::1] at
    if n == 0:
        return regrouped_arr, starts_arr
    if n_bounds == 0:
        regrouped[:] = values
        starts[1] = n
        return regrouped_arr, starts_arr
    at_arr = np.empty(n_bounds + 1, dtype=np.int64)
    at = at_arr
    with nogil:
        for k in range(n):
            starts[_range_of(values[k], b, n_bounds) + 1] += 1
        for r in range(n_bounds + 1):
            starts[r + 1] += starts[r]
            at[r] = starts[r]
        for k in range(n):
            r = _range_of(values[k], b, n_bounds)
            regrouped[at[r]] = values[k]
            at[r] += 1
    return regrouped_arr, starts_arr


cdef Py_ssize_t _merge_level(const double[::1] keys, const count_t[::1] neg,
                             const count_t[::1] pos, const int64_t[::1] starts,
                             Py_ssize_t n_runs, double[::1] out_keys, count_t[::1] out_neg,
                             count_t[::1] out_pos, int64_t[::1] out_starts) noexcept nogil:
    """Merge runs 2i and 2i + 1 of decreasing groups into one (equal keys summed).

    ``starts[r]`` is where run r begins (``starts[n_runs]`` the end).  Writes
    the merged runs and their starts; returns their number.
    """
    cdef Py_ssize_t run, i, j, end_i, end_j, m = 0, n_out = 0
    cdef double key
    for run in range(0, n_runs, 2):
        out_starts[n_out] = m
        n_out += 1
        i = starts[run]
        end_i = starts[run + 1]
        if run + 1 < n_runs:
            j = end_i
            end_j = starts[run + 2]
        else:
            j = end_i
            end_j = end_i
        while i < end_i or j < end_j:
            if j >= end_j or (i < end_i and keys[i] > keys[j]):
                key = keys[i]
                out_neg[m] = neg[i]
                out_pos[m] = pos[i]
                i += 1
            elif i >= end_i or keys[j] > keys[i]:
                key = keys[j]
                out_neg[m] = neg[j]
                out_pos[m] = pos[j]
                j += 1
            else:
                key = keys[i]
                out_neg[m] = neg[i] + neg[j]
                out_pos[m] = pos[i] + pos[j]
                i += 1
                j += 1
            out_keys[m] = key
            m += 1
    out_starts[n_out] = m
    return n_out


def merge_runs(keys, neg, pos, starts):
    """Groups of the decreasing runs ``keys[starts[r]:starts[r + 1]]`` (and counts) merged.

    Adjacent runs are merged pairwise, level by level, between two buffers
    (the input's and one more), so the memory is twice the input whatever
    the number of runs; equal keys are summed.  O(m log k) for m groups in k
    runs.  Returns ``(keys, neg, pos)``.
    """
    cdef Py_ssize_t n_runs = starts.shape[0] - 1
    cdef Py_ssize_t m
    keys_b = np.empty_like(keys)
    neg_b = np.empty_like(neg)
    pos_b = np.empty_like(pos)
    starts_b = np.empty_like(starts)
    while n_runs > 1:
        if neg.dtype == np.int64:
            n_runs = _merge_level[int64_t](keys, neg, pos, starts, n_runs, keys_b, neg_b, pos_b,
                                           starts_b)
        else:
            n_runs = _merge_level[double](keys, neg, pos, starts, n_runs, keys_b, neg_b, pos_b,
                                          starts_b)
        keys, keys_b = keys_b, keys
        neg, neg_b = neg_b, neg
        pos, pos_b = pos_b, pos
        starts, starts_b = starts_b, starts
    m = starts[n_runs] if n_runs >= 1 else 0
    return keys[:m], neg[:m], pos[:m]
