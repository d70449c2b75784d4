"""Compiled kernels of ``dask.py``'s merge trees: k runs of groups merged in one pass.

Private module.  A *run* is a partition's (or a merge's) groups from the
highest score down, as three parallel arrays (the layout of ``_ranges``):
``keys`` (strictly decreasing float64 scores), ``neg`` and ``pos`` (int64
counts for unit weights, float64 weights otherwise).  A node of a merge tree
merges its k children through a loser tree: every group is read once and
written once (log2(k) branch-free matches each), where merging pairs level
by level moves every group log2(k) times through buffers of the whole.  The
root of a tree that only needs the Mann-Whitney count (and the upper ROC
hull) reads its children without writing the merged groups at all.  Both
passes run without the GIL: the threaded scheduler runs merges side by side.
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc, realloc

from hmeasure_stream._engines._numeric cimport clockwise, count_t, int64_t


cdef struct _Runs:
    # A loser tree over ``size`` leaves (a power of two; leaves past the runs are spent):
    # ``head[r]`` is run r's current key (-inf once spent: scores are finite),
    # ``loser[1:size]`` the loser of each match, ``loser[0]`` the overall winner.
    Py_ssize_t size
    const double** keys
    void** neg
    void** pos
    Py_ssize_t* at
    Py_ssize_t* end
    double* head
    Py_ssize_t* loser


cdef int _open(_Runs* runs, list pieces, bint exact) except -1:
    """Fill ``runs`` with the runs of ``pieces`` ((keys, neg, pos) triples) and play the tree."""
    cdef Py_ssize_t k = len(pieces), r, n, size = 1
    cdef const double[::1] keys
    cdef const int64_t[::1] neg_i
    cdef const int64_t[::1] pos_i
    cdef const double[::1] neg_f
    cdef const double[::1] pos_f
    while size < k:
        size *= 2
    runs.size = size
    runs.keys = NULL
    runs.neg = runs.pos = NULL
    runs.at = runs.end = runs.loser = NULL
    runs.head = NULL
    runs.keys = <const double**>malloc(size * sizeof(double*))
    runs.neg = <void**>malloc(size * sizeof(void*))
    runs.pos = <void**>malloc(size * sizeof(void*))
    runs.at = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
    runs.end = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
    runs.head = <double*>malloc(size * sizeof(double))
    runs.loser = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
    if (runs.keys == NULL or runs.neg == NULL or runs.pos == NULL or runs.at == NULL
            or runs.end == NULL or runs.head == NULL or runs.loser == NULL):
        _close(runs)
        raise MemoryError("no memory for a merge of groups")
    for r in range(size):
        runs.keys[r] = NULL
        runs.neg[r] = NULL
        runs.pos[r] = NULL
        runs.at[r] = 0
        runs.end[r] = 0
        runs.head[r] = -INFINITY
    for r in range(k):
        keys = pieces[r][0]
        n = keys.shape[0]
        if n == 0:
            continue
        if exact:
            neg_i = pieces[r][1]
            pos_i = pieces[r][2]
            if neg_i.shape[0] != n or pos_i.shape[0] != n:
                _close(runs)
                raise ValueError("a run's keys and counts differ in length")
            runs.neg[r] = <void*>&neg_i[0]
            runs.pos[r] = <void*>&pos_i[0]
        else:
            neg_f = pieces[r][1]
            pos_f = pieces[r][2]
            if neg_f.shape[0] != n or pos_f.shape[0] != n:
                _close(runs)
                raise ValueError("a run's keys and weights differ in length")
            runs.neg[r] = <void*>&neg_f[0]
            runs.pos[r] = <void*>&pos_f[0]
        runs.keys[r] = &keys[0]
        runs.end[r] = n
        runs.head[r] = keys[0]
    _play(runs)
    return 0


cdef int _play(_Runs* runs) except -1:
    """Play every match bottom up: each node keeps its loser, ``loser[0]`` the winner."""
    cdef Py_ssize_t size = runs.size, node, a, b
    # winner[i]: the winner of node i (leaves size .. 2 size - 1 are their runs).
    cdef Py_ssize_t* winner = <Py_ssize_t*>malloc(2 * size * sizeof(Py_ssize_t))
    if winner == NULL:
        _close(runs)
        raise MemoryError("no memory for a merge of groups")
    for node in range(size, 2 * size):
        winner[node] = node - size
    for node in range(size - 1, 0, -1):
        a = winner[2 * node]
        b = winner[2 * node + 1]
        if runs.head[a] >= runs.head[b]:
            runs.loser[node] = b
            winner[node] = a
        else:
            runs.loser[node] = a
            winner[node] = b
    runs.loser[0] = winner[1]
    free(winner)
    return 0


cdef void _close(_Runs* runs) noexcept:
    free(runs.keys)
    free(runs.neg)
    free(runs.pos)
    free(runs.at)
    free(runs.end)
    free(runs.head)
    free(runs.loser)


cdef inline Py_ssize_t _pop(_Runs* runs) noexcept nogil:
    """Advance the winning run past its head and replay its path: the new winner.

    Branch-free matches (the select compiles to conditional moves): the keys
    of merged runs are as unpredictable as a coin.
    """
    cdef Py_ssize_t w = runs.loser[0], k = runs.at[w] + 1, node, other
    cdef double key, other_key
    cdef bint swap
    runs.at[w] = k
    key = runs.keys[w][k] if k < runs.end[w] else -INFINITY
    runs.head[w] = key
    node = (w + runs.size) >> 1
    while node >= 1:
        # The nodes on the path do not depend on the matches: their losers' keys load
        # ahead, and the candidate's key stays in a register.
        other = runs.loser[node]
        other_key = runs.head[other]
        # Equal keys come out in the order of the runs (the first run's key is kept:
        # -0.0 or 0.0 as the earliest partition has it).
        swap = (other_key > key) | ((other_key == key) & (other < w))
        runs.loser[node] = w if swap else other
        w = other if swap else w
        key = other_key if swap else key
        node >>= 1
    runs.loser[0] = w
    return w


cdef Py_ssize_t _merge_into(_Runs* runs, double* keys, count_t* neg, count_t* pos
                            ) noexcept nogil:
    cdef Py_ssize_t m = -1, w = runs.loser[0]
    cdef double key, last = INFINITY
    while runs.head[w] > -INFINITY:
        key = runs.head[w]
        if key != last:
            m += 1
            keys[m] = key
            neg[m] = 0
            pos[m] = 0
            last = key
        neg[m] += (<const count_t*>runs.neg[w])[runs.at[w]]
        pos[m] += (<const count_t*>runs.pos[w])[runs.at[w]]
        w = _pop(runs)
    return m + 1


def merge_groups(list pieces):
    """The groups of the runs ``pieces`` ((keys, neg, pos) triples) merged, equal keys summed.

    One pass: O(m log k) comparisons for m groups in k runs, each group read
    and written once.  Returns ``(keys, neg,
    pos)``, of the runs' count dtype (int64 when every run's counts are).
    """
    cdef bint exact = all(piece[1].dtype == np.int64 for piece in pieces)
    cdef Py_ssize_t total = sum(piece[0].shape[0] for piece in pieces), m
    cdef _Runs runs
    count_dtype = np.int64 if exact else np.float64
    if not exact:
        pieces = [(keys, np.asarray(neg, dtype=np.float64), np.asarray(pos, dtype=np.float64))
                  for keys, neg, pos in pieces]
    keys_arr = np.empty(total, dtype=np.float64)
    neg_arr = np.empty(total, dtype=count_dtype)
    pos_arr = np.empty(total, dtype=count_dtype)
    if total == 0:
        return keys_arr, neg_arr, pos_arr
    cdef double[::1] keys = keys_arr
    cdef int64_t[::1] neg_i
    cdef int64_t[::1] pos_i
    cdef double[::1] neg_f
    cdef double[::1] pos_f
    _open(&runs, pieces, exact)
    try:
        if exact:
            neg_i = neg_arr
            pos_i = pos_arr
            with nogil:
                m = _merge_into[int64_t](&runs, &keys[0], &neg_i[0], &pos_i[0])
        else:
            neg_f = neg_arr
            pos_f = pos_arr
            with nogil:
                m = _merge_into[double](&runs, &keys[0], &neg_f[0], &pos_f[0])
    finally:
        _close(&runs)
    if m == total:
        return keys_arr, neg_arr, pos_arr
    # Ties across runs: keep only the groups written (a copy, not a view of the buffers).
    return keys_arr[:m].copy(), neg_arr[:m].copy(), pos_arr[:m].copy()


def merged_counts(list pieces):
    """``(groups, N0, N1, 2U)`` of the int64 runs ``pieces`` merged, without the groups.

    The pass of :func:`merge_groups` that keeps, instead of the merged groups,
    their number, the class counts and twice the Mann-Whitney count (each class
    0 point beaten by the class 1 points above it, tied with those of its own
    score), as ``_scratch.auc2_groups`` of the merged groups.  The caller keeps
    the counts below the point where 2 N0 N1 could overflow int64.
    """
    cdef _Runs runs
    cdef _Counts counts
    _open(&runs, pieces, True)
    try:
        with nogil:
            _count(&runs, NULL, &counts)
    finally:
        _close(&runs)
    return counts.groups, counts.neg, counts.pos, counts.twice_u


cdef struct _Edges:
    # The upper hull's edges so far, as a stack: edge k (1 <= k <= top) goes from
    # vertex k - 1 to vertex k; slot 0 is never read.
    Py_ssize_t top
    Py_ssize_t capacity
    int64_t* neg
    int64_t* pos


cdef inline bint _push_edge(_Edges* edges, int64_t run_neg, int64_t run_pos) noexcept nogil:
    """Append the edge of one group (not both 0) to the upper hull; False without memory.

    Andrew's monotone chain on edges: while the last edge and the new one do
    not turn strictly clockwise, the last vertex is no vertex of the hull, and
    its edge joins the new one (collinear and repeated points dropped).
    """
    cdef Py_ssize_t top = edges.top
    cdef void* grown
    while top >= 1 and not clockwise(edges.neg[top], edges.pos[top], run_neg, run_pos):
        run_neg += edges.neg[top]
        run_pos += edges.pos[top]
        top -= 1
    top += 1
    if top == edges.capacity:
        grown = realloc(edges.neg, 2 * edges.capacity * sizeof(int64_t))
        if grown == NULL:
            return False
        edges.neg = <int64_t*>grown
        grown = realloc(edges.pos, 2 * edges.capacity * sizeof(int64_t))
        if grown == NULL:
            return False
        edges.pos = <int64_t*>grown
        edges.capacity *= 2
    edges.neg[top] = run_neg
    edges.pos[top] = run_pos
    edges.top = top
    return True


cdef struct _Counts:
    Py_ssize_t groups
    int64_t neg
    int64_t pos
    int64_t twice_u


cdef bint _count(_Runs* runs, _Edges* edges, _Counts* out) noexcept nogil:
    """Walk the merge of int64 runs: the number of groups, N0, N1 and 2U, and with
    ``edges`` (else NULL) the upper hull; False when the hull's memory ran out.

    A group is closed when a lower key comes (or none is left): its term of 2U
    is its class 0 count times twice the class 1 count above it plus its own
    class 1 count; its edge goes to the hull unless it weighs nothing.
    """
    cdef Py_ssize_t w = runs.loser[0]
    cdef int64_t g_neg = 0, g_pos = 0
    cdef double key, last = INFINITY
    out.groups = 0
    out.neg = 0
    out.pos = 0
    out.twice_u = 0
    while True:
        key = runs.head[w]  # -inf once every run is spent
        if key != last:
            out.twice_u += g_neg * (2 * out.pos + g_pos)
            out.neg += g_neg
            out.pos += g_pos
            if edges != NULL and (g_neg != 0 or g_pos != 0):
                if not _push_edge(edges, g_neg, g_pos):
                    return False
            if key == -INFINITY:
                return True
            g_neg = 0
            g_pos = 0
            out.groups += 1
            last = key
        g_neg += (<const int64_t*>runs.neg[w])[runs.at[w]]
        g_pos += (<const int64_t*>runs.pos[w])[runs.at[w]]
        w = _pop(runs)


def merged_hull(list pieces):
    """``(groups, N0, N1, 2U, (edge_neg, edge_pos))`` of the int64 runs ``pieces`` merged.

    :func:`merged_counts` with the edges of the upper ROC hull of the merged
    groups, built as they come (as ``_scratch.upper_hull``: one vertex per
    strictly clockwise turn, from (0, 0) to (N0, N1)): the merged groups are
    never stored, only the hull.  int64 edges; the caller keeps the counts
    below the point where the cross products could overflow.
    """
    cdef _Runs runs
    cdef _Edges edges
    cdef _Counts counts
    cdef bint ok
    cdef Py_ssize_t k
    cdef int64_t[::1] out_neg
    cdef int64_t[::1] out_pos
    edges.top = 0
    edges.capacity = 1024
    edges.neg = <int64_t*>malloc(edges.capacity * sizeof(int64_t))
    edges.pos = <int64_t*>malloc(edges.capacity * sizeof(int64_t))
    try:
        if edges.neg == NULL or edges.pos == NULL:
            raise MemoryError("no memory for a hull")
        _open(&runs, pieces, True)
        try:
            with nogil:
                ok = _count(&runs, &edges, &counts)
        finally:
            _close(&runs)
        if not ok:
            raise MemoryError("no memory for a hull")
        edge_neg = np.empty(edges.top, dtype=np.int64)
        edge_pos = np.empty(edges.top, dtype=np.int64)
        out_neg = edge_neg
        out_pos = edge_pos
        for k in range(edges.top):
            out_neg[k] = edges.neg[k + 1]
            out_pos[k] = edges.pos[k + 1]
    finally:
        free(edges.neg)
        free(edges.pos)
    return counts.groups, counts.neg, counts.pos, counts.twice_u, (edge_neg, edge_pos)
