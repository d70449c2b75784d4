"""Compiled kernels of the from-scratch metrics.

Private module: the public functions in ``metrics.py`` validate their input
and call these kernels on contiguous arrays.  Conventions:

* ROC points are produced from the highest score down, so the cumulative
  class weights of a point are its (false positives, true positives) and the
  curve runs from (0, 0) to (N0, N1).  A *group* is the class weight of one
  distinct score: (weight of negatives, weight of positives) at that score.
* ``2U`` is twice the Mann-Whitney statistic (ties count one half), an exact
  integer for unit weights.
"""

import numpy as np

from libc.math cimport INFINITY, NAN, fabs, isfinite, isinf, isnan, nextafter
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from hmeasure_stream._engines._numeric cimport (
    clockwise,
    compensated_add,
    count_t,
    int64_t,
    label_t,
    next_group,
    uint8_t,
    unit_auc,
)


def _label_dtypes():
    """The numpy dtypes of ``label_t``, read off the compiled specialisations."""
    names = {"float": np.float32, "double": np.float64}
    return frozenset(np.dtype(names.get(name, name.removesuffix("_t")))
                     for name in split_by_class.__signatures__)


def split_by_class(const label_t[::1] labels, const double[::1] scores,
                   double[::1] out):
    """Copy the scores of class 0 to the front of ``out`` and of class 1 to its back.

    Returns ``(n_neg, bad_label, bad_score)``: class 0 scores end up in
    ``out[:n_neg]`` (input order), class 1 scores in ``out[n_neg:]`` (reversed
    input order).  ``bad_label`` is set when a label is neither 0 nor 1,
    ``bad_score`` when a score is not finite; the caller then locates the
    offending entry, so the loop itself stays branch-free.
    """
    cdef Py_ssize_t n = labels.shape[0]
    cdef Py_ssize_t k, lo = 0, hi = n - 1
    cdef bint bad_label = False, bad_score = False
    cdef int is_pos
    cdef double score
    with nogil:
        for k in range(n):
            is_pos = labels[k] == 1
            bad_label |= (labels[k] != 0) & (is_pos == 0)
            score = scores[k]
            bad_score |= not isfinite(score)
            # Write to both ends and advance one of them: every slot receives
            # its final value last, and random labels cost no mispredictions.
            out[lo] = score
            out[hi] = score
            lo += 1 - is_pos
            hi -= is_pos
    return lo, bad_label, bad_score


cdef enum:
    RADIX_BITS = 8
    RADIX_BUCKETS = 256
    RADIX_PASSES = 8


cdef inline uint64_t _order_key(uint64_t bits) noexcept nogil:
    """The key of a double's ``bits`` whose unsigned order is the numeric order (flip
    every bit of a negative number, the sign bit of a positive one)."""
    return bits ^ ((0 - (bits >> 63)) | ((<uint64_t>1) << 63))


cdef inline void _count_digits(uint64_t key, Py_ssize_t* counts) noexcept nogil:
    """Count the key's digit of every pass in ``counts``."""
    cdef int p
    for p in range(RADIX_PASSES):
        counts[p * RADIX_BUCKETS + ((key >> (p * RADIX_BITS)) & (RADIX_BUCKETS - 1))] += 1


cdef inline uint64_t _radix_key(uint64_t bits, Py_ssize_t* counts) noexcept nogil:
    """``_order_key`` of a double's ``bits``, its digits counted in ``counts``."""
    cdef uint64_t key = _order_key(bits)
    _count_digits(key, counts)
    return key


cdef inline bint _radix_starts(Py_ssize_t* start, Py_ssize_t n) noexcept nogil:
    """Turn one pass's digit counts into the digits' first slots; whether every key
    shares the digit (the pass is then skipped)."""
    cdef Py_ssize_t total = 0, count
    cdef bint shared = False
    cdef int c
    for c in range(RADIX_BUCKETS):
        count = start[c]
        shared |= count == n
        start[c] = total
        total += count
    return shared


cdef uint64_t* _radix_passes(uint64_t* keys, uint64_t* spare, int64_t* index,
                             int64_t* spare_index, Py_ssize_t* counts, Py_ssize_t n,
                             int64_t** moved) noexcept nogil:
    """The stable passes of an LSD radix sort of ``keys`` (their digits in ``counts``), with
    ``index`` moved along unless NULL; returns where the sorted keys end (``keys`` or
    ``spare``), and ``moved[0]`` where the indices do."""
    cdef int p, shift, c
    cdef Py_ssize_t k, at
    cdef uint64_t key
    cdef Py_ssize_t* start
    for p in range(RADIX_PASSES):
        start = counts + p * RADIX_BUCKETS
        if _radix_starts(start, n):
            continue
        shift = p * RADIX_BITS
        if index == NULL:
            for k in range(n):
                key = keys[k]
                c = (key >> shift) & (RADIX_BUCKETS - 1)
                spare[start[c]] = key
                start[c] += 1
        else:
            for k in range(n):
                key = keys[k]
                c = (key >> shift) & (RADIX_BUCKETS - 1)
                at = start[c]
                spare[at] = key
                spare_index[at] = index[k]
                start[c] = at + 1
        keys, spare = spare, keys
        index, spare_index = spare_index, index
    moved[0] = index
    return keys


def radix_sort(double[::1] values):
    """Sort finite ``values`` ascending, in place: LSD radix sort on their bits.

    Each double is mapped to a 64-bit key whose unsigned order is the
    numeric order (flip every bit of a negative number, the sign bit of a
    positive one); eight stable passes of 8 bits, one count of every digit
    up front, and a pass is skipped when all keys share its digit (scores in
    a narrow range share their high bits).  -0.0 ends before 0.0; they
    compare equal, so the result is sorted for ``<=``.  O(n) time, a buffer
    of n doubles.  Needs no NaN (callers validate).
    """
    cdef Py_ssize_t n = values.shape[0], k
    if n < 2:
        return
    cdef uint64_t* keys = <uint64_t*>&values[0]
    cdef uint64_t* spare = <uint64_t*>malloc(n * sizeof(uint64_t))
    cdef Py_ssize_t* counts = <Py_ssize_t*>calloc(RADIX_PASSES * RADIX_BUCKETS,
                                                  sizeof(Py_ssize_t))
    cdef uint64_t key, sign = (<uint64_t>1) << 63
    cdef uint64_t* source
    cdef int64_t* moved
    if spare == NULL or counts == NULL:
        free(spare)
        free(counts)
        raise MemoryError(f"no memory for a radix sort of {n} scores")
    with nogil:
        for k in range(n):
            keys[k] = _radix_key(keys[k], counts)
        source = _radix_passes(keys, spare, NULL, NULL, counts, n, &moved)
        if source != keys:
            memcpy(keys, source, n * sizeof(uint64_t))
        for k in range(n):
            key = keys[k]
            keys[k] = key ^ (((key >> 63) - 1) | sign)
    free(spare)
    free(counts)


# ---------------------------------------------------------------------------
# The AUC of a sliding window at chosen rows only, by merges of sorted pieces.


cdef inline uint64_t _score_key(double score) noexcept nogil:
    """A finite score as the unsigned key ``radix_sort`` orders by; -0.0 and 0.0 get one
    key (they are equal scores)."""
    cdef double positive_zero = score + 0.0  # (-0.0 + 0.0 is 0.0)
    return _order_key((<uint64_t*>&positive_zero)[0])


cdef void _sort_keys(uint64_t* keys, uint64_t* spare, Py_ssize_t* counts,
                     Py_ssize_t n) noexcept nogil:
    """Sort keys ascending in place (insertion sort for a few, else ``_radix_passes``)."""
    cdef Py_ssize_t k, j
    cdef uint64_t key
    cdef uint64_t* source
    cdef int64_t* moved
    if n <= 32:
        for k in range(1, n):
            key = keys[k]
            j = k
            while j > 0 and keys[j - 1] > key:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = key
        return
    memset(counts, 0, RADIX_PASSES * RADIX_BUCKETS * sizeof(Py_ssize_t))
    for k in range(n):
        _count_digits(keys[k], counts)
    source = _radix_passes(keys, spare, NULL, NULL, counts, n, &moved)
    if source != keys:
        memcpy(keys, source, n * sizeof(uint64_t))


cdef inline Py_ssize_t _first(const uint64_t* keys, Py_ssize_t lo, Py_ssize_t hi, uint64_t key,
                              bint above) noexcept nogil:
    """The first index in [lo, hi) of a key >= ``key`` (> ``key`` if ``above``), or hi:
    a few steps from lo (the next rows of a piece are usually near), then exponential
    steps and bisection, so a search near lo costs little and a far one O(log)."""
    cdef Py_ssize_t behind, step = 1, ahead, middle, near = min(hi, lo + 16)
    if above:
        while lo < near and keys[lo] <= key:
            lo += 1
    else:
        while lo < near and keys[lo] < key:
            lo += 1
    if lo < near or lo == hi:
        return lo
    behind = lo - 1
    while True:
        ahead = behind + step
        if ahead >= hi:
            ahead = hi
            break
        if keys[ahead] > key or (not above and keys[ahead] == key):
            break
        behind = ahead
        step <<= 1
    while behind + 1 < ahead:
        middle = (behind + ahead) >> 1
        if keys[middle] > key or (not above and keys[middle] == key):
            ahead = middle
        else:
            behind = middle
    return ahead


cdef int64_t _below_twice(const uint64_t* keys, Py_ssize_t n, const uint64_t* others,
                          Py_ssize_t n_others) noexcept nogil:
    """The sum over sorted ``keys`` of the sorted ``others`` below each (twice) and equal to
    it (once), by searches from the last position found."""
    cdef Py_ssize_t k, below = 0, not_above = 0
    cdef int64_t total = 0, last = 0
    for k in range(n):
        if k and keys[k] == keys[k - 1]:
            total += last
            continue
        below = _first(others, below, n_others, keys[k], False)
        not_above = max(not_above, below)
        while not_above < n_others and others[not_above] == keys[k]:
            not_above += 1
        last = below + not_above
        total += last
    return total


cdef int64_t _pairs(const uint64_t* pos, Py_ssize_t n_pos, const uint64_t* neg,
                    Py_ssize_t n_neg) noexcept nogil:
    """2U of sorted class 1 and class 0 keys: each class 1 key counts the class 0 keys
    below it twice and those equal once (Tatti, Props 1-2, summed).  The searches run
    over the shorter class: 2U = 2 n1 n0 - the same count from the class 0 side."""
    if n_pos <= n_neg:
        return _below_twice(pos, n_pos, neg, n_neg)
    return 2 * <int64_t>n_pos * n_neg - _below_twice(neg, n_neg, pos, n_pos)


cdef Py_ssize_t _replaced(const uint64_t* keys, Py_ssize_t n, const uint64_t* gone,
                          Py_ssize_t n_gone, const uint64_t* new, Py_ssize_t n_new,
                          uint64_t* out) noexcept nogil:
    """Sorted ``keys`` less the sorted multiset ``gone`` (held by them) plus the sorted
    ``new``, into ``out``, in one pass: the runs between the places found are moved whole."""
    cdef Py_ssize_t g = 0, a = 0, start = 0, m = 0, at
    while g < n_gone or a < n_new:
        if a < n_new and (g == n_gone or new[a] < gone[g]):
            at = _first(keys, start, n, new[a], True)
            memcpy(out + m, keys + start, (at - start) * sizeof(uint64_t))
            m += at - start
            out[m] = new[a]
            m += 1
            start = at
            a += 1
        else:  # (an equal key leaves first, from the front of its run)
            at = _first(keys, start, n, gone[g], False)
            memcpy(out + m, keys + start, (at - start) * sizeof(uint64_t))
            m += at - start
            start = at + 1
            g += 1
    memcpy(out + m, keys + start, (n - start) * sizeof(uint64_t))
    return m + n - start


cdef struct _Piece:
    # The sorted keys of one class of some rows, in a buffer of the window's size.
    uint64_t* keys
    Py_ssize_t n


cdef void _split(const uint8_t* is_pos, const double* scores, Py_ssize_t start, Py_ssize_t stop,
                 _Piece* pos, _Piece* neg, uint64_t* spare, Py_ssize_t* counts) noexcept nogil:
    """The rows [start, stop) as sorted class 1 and class 0 keys."""
    cdef Py_ssize_t row
    pos.n = 0
    neg.n = 0
    for row in range(start, stop):
        if is_pos[row]:
            pos.keys[pos.n] = _score_key(scores[row])
            pos.n += 1
        else:
            neg.keys[neg.n] = _score_key(scores[row])
            neg.n += 1
    _sort_keys(pos.keys, spare, counts, pos.n)
    _sort_keys(neg.keys, spare, counts, neg.n)


cdef void _replace(_Piece* held, _Piece* gone, _Piece* new, uint64_t** spare) noexcept nogil:
    """``held`` less ``gone`` plus ``new``, written to the buffer ``spare``, which becomes
    ``held``'s (and ``held``'s the spare)."""
    cdef uint64_t* written = spare[0]
    held.n = _replaced(held.keys, held.n, gone.keys, gone.n, new.keys, new.n, written)
    spare[0] = held.keys
    held.keys = written


def sliding_auc_at(const uint8_t[::1] is_pos, const double[::1] scores, Py_ssize_t window,
                   const int64_t[::1] at, double[::1] out):
    """The AUC, unit weights, of the window ending at each row of ``at`` only.

    ``out[k]`` is the AUC of rows ``max(0, at[k] - window + 1) .. at[k]``
    (``window`` 0: from row 0), nan without a class; ``at`` increases
    strictly (checked by the caller).  The window's class 1 and class 0
    scores are kept sorted (as ``_score_key`` keys) with 2U, an exact
    integer: from one row of ``at`` to the next, the rows that left and the
    rows that came are each sorted, their pairs with the window counted by
    searches from the last position found (Tatti's Props 1-2 summed over a
    piece), and the window's arrays rebuilt by moving the runs between
    them.  A step costs O(w) moves and O(K log w) compares for K rows
    between two rows of ``at``, against the K updates of a search structure.
    """
    cdef Py_ssize_t n = scores.shape[0], m = at.shape[0], k, capacity, buffer_index
    cdef Py_ssize_t first = 0, last = -1, new_first, new_last
    cdef int64_t twice_u = 0
    if m == 0:
        return
    capacity = n if window <= 0 else min(window, n)
    # The window's two classes (held), the spare buffer of a rebuild, the pieces of the
    # rows that leave and arrive, and the radix sort's buffer and digit counts.
    cdef uint64_t[:, ::1] key_buffers = np.empty((8, capacity), dtype=np.uint64)
    cdef Py_ssize_t[::1] digit_counts = np.empty(RADIX_PASSES * RADIX_BUCKETS, dtype=np.intp)
    cdef Py_ssize_t* counts = &digit_counts[0]
    cdef uint64_t* buffers[8]
    for buffer_index in range(8):
        buffers[buffer_index] = &key_buffers[buffer_index, 0]
    cdef _Piece held_pos, held_neg, gone_pos, gone_neg, new_pos, new_neg
    held_pos.keys, held_neg.keys = buffers[0], buffers[1]
    gone_pos.keys, gone_neg.keys = buffers[2], buffers[3]
    new_pos.keys, new_neg.keys = buffers[4], buffers[5]
    cdef uint64_t* spare = buffers[6]
    cdef uint64_t* sort_spare = buffers[7]
    held_pos.n = held_neg.n = 0
    with nogil:
        for k in range(m):
            new_last = at[k]
            new_first = 0 if window <= 0 else max(0, new_last - window + 1)
            if new_first > last:  # nothing shared with the window before: rebuilt
                _split(&is_pos[0], &scores[0], new_first, new_last + 1, &held_pos, &held_neg,
                       sort_spare, counts)
                twice_u = _pairs(held_pos.keys, held_pos.n, held_neg.keys, held_neg.n)
            else:
                _split(&is_pos[0], &scores[0], first, new_first, &gone_pos, &gone_neg,
                       sort_spare, counts)
                _split(&is_pos[0], &scores[0], last + 1, new_last + 1, &new_pos, &new_neg,
                       sort_spare, counts)
                twice_u -= (_pairs(gone_pos.keys, gone_pos.n, held_neg.keys, held_neg.n)
                            + _pairs(held_pos.keys, held_pos.n, gone_neg.keys, gone_neg.n)
                            - _pairs(gone_pos.keys, gone_pos.n, gone_neg.keys, gone_neg.n))
                # The pairs of the rows that arrive: with those that stay, and among them.
                twice_u += (_pairs(new_pos.keys, new_pos.n, held_neg.keys, held_neg.n)
                            - _pairs(new_pos.keys, new_pos.n, gone_neg.keys, gone_neg.n)
                            + _pairs(held_pos.keys, held_pos.n, new_neg.keys, new_neg.n)
                            - _pairs(gone_pos.keys, gone_pos.n, new_neg.keys, new_neg.n)
                            + _pairs(new_pos.keys, new_pos.n, new_neg.keys, new_neg.n))
                _replace(&held_pos, &gone_pos, &new_pos, &spare)
                _replace(&held_neg, &gone_neg, &new_neg, &spare)
            first, last = new_first, new_last
            out[k] = unit_auc(twice_u, held_neg.n, held_pos.n)


def radix_argsort(const double[::1] values):
    """The stable ascending order of finite ``values``: ``np.argsort(values,
    kind="stable")``, -0.0 and 0.0 equal (in input order).

    LSD radix sort of (key, index) pairs, the keys as ``radix_sort`` makes
    them (from ``values + 0.0``, which is 0.0 for -0.0): each pass is stable,
    so equal keys keep their input order; passes whose digit every key
    shares are skipped.  O(n) time where numpy's stable sort (a merge sort)
    is O(n log n) and not vectorised; buffers of 3n 8-byte words.
    """
    cdef Py_ssize_t n = values.shape[0], k
    order = np.empty(n, dtype=np.int64)
    if n == 0:
        return order
    cdef int64_t[::1] out = order
    cdef uint64_t* keys = <uint64_t*>malloc(2 * n * sizeof(uint64_t))
    cdef int64_t* spare = <int64_t*>malloc(n * sizeof(int64_t))
    cdef Py_ssize_t* counts = <Py_ssize_t*>calloc(RADIX_PASSES * RADIX_BUCKETS,
                                                  sizeof(Py_ssize_t))
    cdef uint64_t key
    cdef double value
    cdef int64_t* moved
    if keys == NULL or spare == NULL or counts == NULL:
        free(keys)
        free(spare)
        free(counts)
        raise MemoryError(f"no memory for a radix sort of {n} scores")
    with nogil:
        for k in range(n):
            value = values[k] + 0.0
            memcpy(&key, &value, sizeof(uint64_t))
            keys[k] = _radix_key(key, counts)
            out[k] = k
        _radix_passes(keys, keys + n, &out[0], spare, counts, n, &moved)
        if moved != &out[0]:
            memcpy(&out[0], moved, n * sizeof(int64_t))
    free(keys)
    free(spare)
    free(counts)
    return order


ctypedef struct _MergeRun:
    # One stretch of the merge of ``auc2_sorted_classes``: class 0 scores
    # ``neg[i:stop]`` against the class 1 scores from ``pos[j]`` on.
    Py_ssize_t i, stop, j
    int64_t below          # sum over the class 0 scores taken of #{class 1 < score}
    int64_t ties           # sum over the class 0 scores taken of #{class 1 == score}
    int64_t tie_run        # #{class 1 == tie_value}, cached for runs of tied class 0 scores
    double tie_value


cdef inline Py_ssize_t _lower_bound(const double* values, Py_ssize_t n,
                                    double value) noexcept nogil:
    """The number of ``values`` (sorted ascending) below ``value``."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if values[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void _merge_step(_MergeRun* run, const double* neg, const double* pos,
                             Py_ssize_t n_pos) noexcept nogil:
    """Take the smaller of ``neg[i]`` and ``pos[j]`` (class 0 on ties), without branches.

    Needs ``i < stop`` and ``neg[i] <= pos[n_pos - 1]``, so ``j`` stays in range.
    """
    cdef double value = neg[run.i], other = pos[run.j]
    cdef Py_ssize_t take_pos = other < value, r
    run.below += (1 - take_pos) * run.j
    if other == value:
        # Rare for continuous scores; each run of tied class 1 scores is
        # counted once, then reused by the class 0 scores equal to it.
        if value != run.tie_value:
            run.tie_value = value
            r = run.j
            while r < n_pos and pos[r] == value:
                r += 1
            run.tie_run = r - run.j
        run.ties += run.tie_run
    run.j += take_pos
    run.i += 1 - take_pos


cdef enum:
    MERGE_WAYS = 4  # the lockstep loop below is written out for 4


cdef int64_t _twice_u(const double* neg, Py_ssize_t n_neg, const double* pos,
                      Py_ssize_t n_pos) noexcept nogil:
    """2U from the sorted classes: one merge, cut into independent stretches.

    2U = sum over class 0 scores v of 2 #{pos > v} + #{pos == v}
       = 2 n0 n1 - 2 sum_v #{pos < v} - sum_v #{pos == v}       (Tatti, Alg. 1)

    Class 0 scores above every class 1 score only add n1 each to the first
    sum; the others are merged.  A single merge is one chain of dependent
    loads and compares; cut at ``MERGE_WAYS`` class 0 scores (never inside a
    run of equal scores, so no run of ties is split), the stretches advance in
    lockstep and the processor overlaps their chains.
    """
    cdef _MergeRun runs[MERGE_WAYS]
    cdef Py_ssize_t n_merged, total, target, lo, hi, mid, cut, k
    cdef int64_t below = 0, ties = 0
    if n_neg == 0 or n_pos == 0:
        return 0
    # neg[n_merged:] > max(pos): each of them has all n_pos class 1 scores below.
    n_merged = n_neg
    lo = 0
    hi = n_neg
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if neg[mid] <= pos[n_pos - 1]:
            lo = mid + 1
        else:
            hi = mid
    n_merged = lo
    below = (n_neg - n_merged) * <int64_t>n_pos
    # Cut the merge of neg[:n_merged] into stretches of about equal length
    # (class 0 plus class 1 scores taken), each starting at the first of a
    # run of equal class 0 scores, with j at the class 1 scores below it.
    total = n_merged + (_lower_bound(pos, n_pos, neg[n_merged - 1]) if n_merged else 0)
    cut = 0
    for k in range(MERGE_WAYS):
        runs[k].i = cut
        runs[k].j = _lower_bound(pos, n_pos, neg[cut]) if cut < n_merged else n_pos
        runs[k].below = 0
        runs[k].ties = 0
        runs[k].tie_run = 0
        runs[k].tie_value = NAN  # the tie cache starts empty: NaN equals nothing
        if k + 1 < MERGE_WAYS:
            # The first class 0 score at which the merge has taken >= target.
            target = total * (k + 1) // MERGE_WAYS
            lo = cut
            hi = n_merged
            while lo < hi:
                mid = lo + (hi - lo) // 2
                if mid + _lower_bound(pos, n_pos, neg[mid]) < target:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < n_merged:
                lo = _lower_bound(neg, lo, neg[lo])  # back to the start of its run
                if lo < cut:
                    lo = cut
            cut = lo
        else:
            cut = n_merged
        runs[k].stop = cut
    while ((runs[0].i < runs[0].stop) & (runs[1].i < runs[1].stop)
           & (runs[2].i < runs[2].stop) & (runs[3].i < runs[3].stop)):
        _merge_step(&runs[0], neg, pos, n_pos)
        _merge_step(&runs[1], neg, pos, n_pos)
        _merge_step(&runs[2], neg, pos, n_pos)
        _merge_step(&runs[3], neg, pos, n_pos)
    for k in range(MERGE_WAYS):
        while runs[k].i < runs[k].stop:
            _merge_step(&runs[k], neg, pos, n_pos)
        below += runs[k].below
        ties += runs[k].ties
    return 2 * <int64_t>n_neg * n_pos - 2 * below - ties


def auc2_sorted_classes(const double[::1] neg, const double[::1] pos):
    """Twice the Mann-Whitney U of class 1 over class 0, from each class sorted ascending.

    Exact (int64); one pass over both arrays (see ``_twice_u``).
    """
    cdef Py_ssize_t n_neg = neg.shape[0], n_pos = pos.shape[0]
    cdef int64_t twice_u
    if n_neg == 0 or n_pos == 0:
        return 0
    with nogil:
        twice_u = _twice_u(&neg[0], n_neg, &pos[0], n_pos)
    return twice_u


def groups_sorted_classes(const double[::1] neg, const double[::1] pos, bint with_keys=False):
    """Class counts of each distinct score, highest score first.

    ``neg`` and ``pos`` are the class 0 and class 1 scores, each sorted
    ascending.  Returns int64 arrays ``(group_neg, group_pos)``, preceded by
    the float64 distinct scores ``keys`` with ``with_keys``.
    """
    cdef Py_ssize_t i = neg.shape[0] - 1, j = pos.shape[0] - 1, m = 0
    keys_arr = np.empty(i + j + 2 if with_keys else 1, dtype=np.float64)
    group_neg_arr = np.empty(i + j + 2, dtype=np.int64)
    group_pos_arr = np.empty(i + j + 2, dtype=np.int64)
    cdef double[::1] keys = keys_arr
    cdef int64_t[::1] group_neg = group_neg_arr
    cdef int64_t[::1] group_pos = group_pos_arr
    cdef double value
    cdef const double* neg_first = &neg[0] if neg.shape[0] else NULL
    cdef const double* pos_first = &pos[0] if pos.shape[0] else NULL
    with nogil:
        while i >= 0 or j >= 0:
            value = next_group(neg_first, &i, pos_first, &j, &group_neg[m], &group_pos[m])
            if with_keys:
                keys[m] = value
            m += 1
    if with_keys:
        return keys_arr[:m], group_neg_arr[:m], group_pos_arr[:m]
    return group_neg_arr[:m], group_pos_arr[:m]


cdef Py_ssize_t _group_weights(const int64_t* order, Py_ssize_t n, const double* scores,
                               const uint8_t* is_pos, const double* weight, const double* prob,
                               double* keys, double* group_neg, double* group_pos) noexcept nogil:
    """The groups of ``groups_weighted`` (``prob`` NULL) or ``groups_expected`` (``weight``
    NULL: unit weights); returns their number.  ``keys`` may be NULL."""
    cdef Py_ssize_t k = n - 1, m = 0, idx
    cdef double value, w_neg, w_pos, share
    while k >= 0:
        value = scores[order[k]]
        w_neg = 0.0
        w_pos = 0.0
        while k >= 0 and scores[order[k]] == value:
            idx = order[k]
            if prob != NULL:
                # The point's two parts, summed in the order of its class's points (a
                # unit weight times p and 1 - p is p and 1 - p exactly).
                share = prob[idx]
                if weight == NULL:
                    w_pos += share
                    w_neg += 1.0 - share
                else:
                    w_pos += weight[idx] * share
                    w_neg += weight[idx] * (1.0 - share)
            elif is_pos[idx]:
                w_pos += weight[idx]
            else:
                w_neg += weight[idx]
            k -= 1
        if keys != NULL:
            keys[m] = value
        group_neg[m] = w_neg
        group_pos[m] = w_pos
        m += 1
    return m


cdef object _groups(const int64_t[::1] order, const double[::1] scores,
                    const uint8_t[::1] is_pos, const double[::1] weight,
                    const double[::1] prob, bint with_keys):
    """The arrays of ``groups_weighted`` (``prob`` None) or ``groups_expected`` (``is_pos``
    None; ``weight`` None: unit weights)."""
    cdef Py_ssize_t n = order.shape[0], m = 0
    keys_arr = np.empty(n if with_keys else 0, dtype=np.float64)
    group_neg_arr = np.empty(n, dtype=np.float64)
    group_pos_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] keys = keys_arr
    cdef double[::1] group_neg = group_neg_arr
    cdef double[::1] group_pos = group_pos_arr
    if n:
        with nogil:
            m = _group_weights(&order[0], n, &scores[0],
                               &is_pos[0] if prob is None else NULL,
                               NULL if weight is None else &weight[0],
                               NULL if prob is None else &prob[0],
                               &keys[0] if with_keys else NULL, &group_neg[0], &group_pos[0])
    if with_keys:
        return keys_arr[:m], group_neg_arr[:m], group_pos_arr[:m]
    return group_neg_arr[:m], group_pos_arr[:m]


def groups_weighted(const int64_t[::1] order, const double[::1] scores,
                    const uint8_t[::1] is_pos, const double[::1] weight, bint with_keys=False):
    """Class weights of each distinct score, highest score first.

    ``order`` sorts ``scores`` ascending.  Returns float64 arrays
    ``(group_neg, group_pos)``, preceded by the distinct scores ``keys`` with
    ``with_keys``; a group's weight is an ordinary sum of its points' weights
    (groups are short, the error is a few ulps).
    """
    return _groups(order, scores, is_pos, weight, None, with_keys)


def groups_expected(const int64_t[::1] order, const double[::1] scores,
                    const double[::1] weight, const double[::1] prob):
    """``groups_weighted`` of the expected labels: each point is a class 1 part of
    weight ``weight * prob`` and a class 0 part of weight ``weight * (1 - prob)``
    at its score, read through ``order`` in place (no copy of the points is made
    for the parts); ``weight`` None: unit weights (nothing to gather)."""
    return _groups(order, scores, None, weight, prob, False)


def auc2_groups(const count_t[::1] group_neg, const count_t[::1] group_pos):
    """Twice the Mann-Whitney U from groups ordered by decreasing score.

    Each class 0 point is beaten by the class 1 weight above it and ties with
    the class 1 weight of its own group.  Weighted sums are compensated.
    """
    cdef Py_ssize_t k, m = group_neg.shape[0]
    cdef int64_t exact_total = 0, exact_above = 0
    cdef double total = 0.0, total_comp = 0.0, above = 0.0, above_comp = 0.0
    with nogil:
        if count_t is int64_t:
            for k in range(m):
                exact_total += group_neg[k] * (2 * exact_above + group_pos[k])
                exact_above += group_pos[k]
        else:
            for k in range(m):
                compensated_add(&total, &total_comp,
                                group_neg[k] * (2.0 * (above + above_comp) + group_pos[k]))
                compensated_add(&above, &above_comp, group_pos[k])
    if count_t is int64_t:
        return exact_total
    return total + total_comp


cdef inline Py_ssize_t _hull_push(
        count_t* fp, count_t* tp, count_t* edge_neg, count_t* edge_pos, Py_ssize_t top,
        count_t run_neg, count_t run_pos) noexcept nogil:
    """One step of the monotone chain of ``upper_hull``: the run of groups
    (``run_neg``, ``run_pos``, not both 0) after vertex ``top``; returns the new top.

    Vertices that no longer turn clockwise are popped and their edges merged
    into the run.
    """
    while top >= 1 and not clockwise(edge_neg[top], edge_pos[top], run_neg, run_pos):
        run_neg = edge_neg[top] + run_neg
        run_pos = edge_pos[top] + run_pos
        top -= 1
    edge_neg[top + 1] = run_neg
    edge_pos[top + 1] = run_pos
    fp[top + 1] = fp[top] + run_neg
    tp[top + 1] = tp[top] + run_pos
    return top + 1


def upper_hull(const count_t[::1] group_neg, const count_t[::1] group_pos,
               bint with_edges=False, bint with_groups=False):
    """Vertices of the ROC convex hull from groups ordered by decreasing score.

    The ROC points are the prefix sums (false positives, true positives),
    starting at (0, 0).  Andrew's monotone chain keeps the upper hull, run on
    edge vectors rather than on coordinates: the turn at vertex a between the
    edge into a and the run of groups after a is ``cross(edge, run)``, and
    popping a merges its edge into the run.  A kept vertex turns strictly
    clockwise; collinear and repeated points are dropped.  For unit weights
    every test is exact integer arithmetic; for float weights the edges are
    sums of non-negative terms (small relative error) and a turn within a
    relative 1e-12 of straight counts as collinear (see ``clockwise``).  Returns arrays
    ``(fp, tp)`` of the vertices' cumulative class weights, from (0, 0) to
    (N0, N1); with ``with_edges`` also ``(edge_neg, edge_pos)``, the class
    weights of each edge.  An edge keeps its own relative accuracy where the
    difference of its two vertices may not: a class 1 step of 2**-60 after
    a class 1 weight of 1 leaves the cumulative weight at 1.0, and the
    H-measure, whose priors may make that step decide the loss (a class 0
    weighing 2**-120), is computed from the edges.  With ``with_groups`` the
    last array is the index of the group each vertex ends (-1 for (0, 0)):
    the vertex is the ROC point of the threshold at that group's score.
    """
    cdef Py_ssize_t k, m = group_neg.shape[0], top = 0
    if count_t is int64_t:
        dtype = np.int64
    else:
        dtype = np.float64
    fp_arr = np.empty(m + 1, dtype=dtype)
    tp_arr = np.empty(m + 1, dtype=dtype)
    edge_neg_arr = np.empty(m + 1, dtype=dtype)
    edge_pos_arr = np.empty(m + 1, dtype=dtype)
    cdef count_t[::1] fp = fp_arr
    cdef count_t[::1] tp = tp_arr
    cdef count_t[::1] edge_neg = edge_neg_arr
    cdef count_t[::1] edge_pos = edge_pos_arr
    ends_arr = np.empty(m + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] ends = ends_arr
    with nogil:
        fp[0] = 0
        tp[0] = 0
        ends[0] = -1
        for k in range(m):
            if group_neg[k] != 0 or group_pos[k] != 0:  # else a repeated point
                top = _hull_push(&fp[0], &tp[0], &edge_neg[0], &edge_pos[0], top,
                                 group_neg[k], group_pos[k])
                ends[top] = k
    result = (fp_arr[:top + 1], tp_arr[:top + 1])
    if with_edges:
        result += (edge_neg_arr[1:top + 1], edge_pos_arr[1:top + 1])
    if with_groups:
        result += (ends_arr[:top + 1],)
    return result


cdef Py_ssize_t _hull_corners(const double* neg, Py_ssize_t n_neg, const double* pos,
                              Py_ssize_t n_pos, int64_t* corner_fp, int64_t* corner_tp,
                              int64_t* twice_u) noexcept nogil:
    """The ROC points that can be vertices of the hull, and 2U, when no score is in both classes.

    Walks the merge of the sorted classes from the top one point at a time,
    without branches on the labels (random labels would mispredict half of
    them).  With no score shared by the classes every point is a ROC point,
    and only an upper-left corner (a class 1 step followed by a class 0 step)
    can be a vertex of the upper hull: the points inside a run lie between
    its ends, and the end of a run of class 0 lies straight below the next
    corner.  Writes the corners to ``corner_fp``/``corner_tp`` (at most
    ``n_neg`` of them), 2U to ``twice_u`` and returns their number; returns
    -1 when a score is in both classes (a tie across the classes, whose
    group the caller counts as a whole).
    """
    cdef Py_ssize_t i = n_neg - 1, j = n_pos - 1, k = 0
    cdef int64_t fp = 0, tp = 0, total = 0, take_pos, prev_pos = 0
    cdef double value, prev = INFINITY
    cdef bint tied = False
    while i >= 0 and j >= 0:
        take_pos = pos[j] > neg[i]  # class 0 first on a tie; flagged below
        value = pos[j] if take_pos else neg[i]
        # Equal scores are adjacent in the merge: a tie across the classes
        # shows as two equal neighbours of different classes.
        tied |= (value == prev) & (take_pos != prev_pos)
        prev = value
        corner_fp[k] = fp
        corner_tp[k] = tp
        k += prev_pos & (1 - take_pos)
        total += (1 - take_pos) * 2 * tp  # a class 0 point: 2 x the class 1 above it
        fp += 1 - take_pos
        tp += take_pos
        i -= 1 - take_pos
        j -= take_pos
        prev_pos = take_pos
    if i >= 0:  # class 0 scores left, below every class 1 score
        tied |= (neg[i] == prev) & (prev_pos == 1)
        corner_fp[k] = fp
        corner_tp[k] = tp
        k += prev_pos
        total += (i + 1) * 2 * tp
    elif j >= 0:  # class 1 scores left: one run up to the last point
        tied |= (pos[j] == prev) & (prev_pos == 0)
    twice_u[0] = total
    return -1 if tied else k


def hull_sorted_classes(const double[::1] neg, const double[::1] pos):
    """The ROC convex hull and 2U in one pass over the sorted classes.

    ``neg`` and ``pos`` are the class 0 and class 1 scores, each sorted
    ascending, both non-empty.  Returns ``(fp, tp, edge_neg, edge_pos,
    twice_u)``: int64 arrays as ``upper_hull(*groups_sorted_classes(neg,
    pos), with_edges=True)`` and twice the Mann-Whitney U as
    ``auc2_sorted_classes``, without the groups ever being stored.  When no
    score is in both classes only the corners that can be vertices are
    pushed onto the chain (``_hull_corners``); else each group is pushed as
    it is counted, runs of one class summed first.
    """
    cdef Py_ssize_t n_neg = neg.shape[0], n_pos = pos.shape[0], i, j, top = 0, k, c
    cdef int64_t group_neg, group_pos, run_neg = 0, run_pos = 0, above = 0, twice_u = 0
    cdef int64_t last_fp = 0, last_tp = 0
    if n_neg == 0 or n_pos == 0:
        raise ValueError("hull_sorted_classes needs scores of both classes")
    fp_arr = np.empty(n_neg + n_pos + 1, dtype=np.int64)
    tp_arr = np.empty(n_neg + n_pos + 1, dtype=np.int64)
    edge_neg_arr = np.empty(n_neg + n_pos + 1, dtype=np.int64)
    edge_pos_arr = np.empty(n_neg + n_pos + 1, dtype=np.int64)
    cdef int64_t[::1] fp = fp_arr
    cdef int64_t[::1] tp = tp_arr
    cdef int64_t[::1] edge_neg = edge_neg_arr
    cdef int64_t[::1] edge_pos = edge_pos_arr
    # The corners (at most n_neg; their fp, then their tp) in a buffer of
    # their own: the chain writes its vertices while it reads them.
    cdef int64_t* corners = <int64_t*>malloc(2 * (n_neg + 1) * sizeof(int64_t))
    if corners == NULL:
        raise MemoryError(f"no memory for the hull of {n_neg + n_pos} scores")
    with nogil:
        fp[0] = 0
        tp[0] = 0
        k = _hull_corners(&neg[0], n_neg, &pos[0], n_pos, corners, corners + n_neg + 1,
                          &twice_u)
        if k >= 0:
            for c in range(k):
                top = _hull_push(&fp[0], &tp[0], &edge_neg[0], &edge_pos[0], top,
                                 corners[c] - last_fp, corners[n_neg + 1 + c] - last_tp)
                last_fp = corners[c]
                last_tp = corners[n_neg + 1 + c]
            top = _hull_push(&fp[0], &tp[0], &edge_neg[0], &edge_pos[0], top,
                             n_neg - last_fp, n_pos - last_tp)
        else:
            twice_u = 0
            i = n_neg - 1
            j = n_pos - 1
            while i >= 0 or j >= 0:
                next_group(&neg[0], &i, &pos[0], &j, &group_neg, &group_pos)
                twice_u += group_neg * (2 * above + group_pos)
                above += group_pos
                # Consecutive groups of one class are collinear: the chain
                # would merge them, so they are summed first and only a run
                # that changes direction is pushed.
                if (group_neg | run_neg) == 0 or (group_pos | run_pos) == 0:
                    run_neg += group_neg
                    run_pos += group_pos
                else:
                    if run_neg | run_pos:
                        top = _hull_push(&fp[0], &tp[0], &edge_neg[0], &edge_pos[0], top,
                                         run_neg, run_pos)
                    run_neg = group_neg
                    run_pos = group_pos
            top = _hull_push(&fp[0], &tp[0], &edge_neg[0], &edge_pos[0], top,
                             run_neg, run_pos)
    free(corners)
    return (fp_arr[:top + 1], tp_arr[:top + 1], edge_neg_arr[1:top + 1], edge_pos_arr[1:top + 1],
            twice_u)


def groups_sorted_weighted(const double[::1] neg, const double[::1] neg_weight,
                           const double[::1] pos, const double[::1] pos_weight):
    """Class weights of each distinct score, highest score first, from sorted classes.

    ``neg`` and ``pos`` are the class 0 and class 1 scores, each sorted
    ascending (ties in input order), with their weights.  The weighted
    counterpart of ``groups_sorted_classes``; a group's weight is summed as in
    ``groups_weighted`` (from the last point of the group down), so both give
    the same groups for the same points.  Returns float64 arrays
    ``(group_neg, group_pos)``.
    """
    cdef Py_ssize_t i = neg.shape[0] - 1, j = pos.shape[0] - 1, m = 0
    group_neg_arr = np.empty(i + j + 2, dtype=np.float64)
    group_pos_arr = np.empty(i + j + 2, dtype=np.float64)
    cdef double[::1] group_neg = group_neg_arr
    cdef double[::1] group_pos = group_pos_arr
    cdef double value, total
    with nogil:
        while i >= 0 or j >= 0:
            if j < 0 or (i >= 0 and neg[i] >= pos[j]):
                value = neg[i]
            else:
                value = pos[j]
            total = 0.0
            while i >= 0 and neg[i] == value:
                total += neg_weight[i]
                i -= 1
            group_neg[m] = total
            total = 0.0
            while j >= 0 and pos[j] == value:
                total += pos_weight[j]
                j -= 1
            group_pos[m] = total
            m += 1
    return group_neg_arr[:m], group_pos_arr[:m]


cdef void _placement_merge(const double[::1] scores, const double[::1] other,
                           const double* other_weight, count_t[::1] below,
                           count_t[::1] at_or_below) noexcept nogil:
    """The merge of ``placements``: ``other_weight`` is NULL (unused) for counts."""
    cdef Py_ssize_t i, j = 0, k = 0, n_other = other.shape[0]
    cdef int64_t count_below = 0, count_upto = 0
    cdef double sum_below = 0.0, comp_below = 0.0, sum_upto = 0.0, comp_upto = 0.0
    cdef double value
    for i in range(scores.shape[0]):
        value = scores[i]
        # j: the other scores < value; k: those <= value.  Both only advance.
        while j < n_other and other[j] < value:
            if count_t is int64_t:
                count_below += 1
            else:
                compensated_add(&sum_below, &comp_below, other_weight[j])
            j += 1
        if k < j:
            k = j
            count_upto = count_below
            sum_upto = sum_below
            comp_upto = comp_below
        while k < n_other and other[k] <= value:
            if count_t is int64_t:
                count_upto += 1
            else:
                compensated_add(&sum_upto, &comp_upto, other_weight[k])
            k += 1
        if count_t is int64_t:
            below[i] = count_below
            at_or_below[i] = count_upto
        else:
            below[i] = sum_below + comp_below
            at_or_below[i] = sum_upto + comp_upto


def placements(const double[::1] scores, const double[::1] other, other_weight=None):
    """For each score, the (weight of the) ``other`` scores below it and at or below it.

    Both ``scores`` and ``other`` are sorted ascending.  Returns
    ``(below, at_or_below)``: int64 counts without ``other_weight``, else
    float64 sums of ``other_weight`` (compensated).  The placement of a score
    against the other class, ties one half, is ``(below + at_or_below) / 2``
    over the other class's total.  One merge, O(len(scores) + len(other)).
    """
    cdef Py_ssize_t n = scores.shape[0]
    cdef int64_t[::1] count_below, count_upto
    cdef double[::1] sum_below, sum_upto
    cdef const double[::1] weight
    cdef const double* weight_ptr = NULL
    if other_weight is None:
        below_arr = np.empty(n, dtype=np.int64)
        upto_arr = np.empty(n, dtype=np.int64)
        count_below = below_arr
        count_upto = upto_arr
        with nogil:
            _placement_merge(scores, other, NULL, count_below, count_upto)
        return below_arr, upto_arr
    weight = other_weight
    if weight.shape[0] != other.shape[0]:
        raise ValueError(
            f"other_weight has {weight.shape[0]} entries but other has {other.shape[0]}"
        )
    if weight.shape[0]:
        weight_ptr = &weight[0]
    below_arr = np.empty(n, dtype=np.float64)
    upto_arr = np.empty(n, dtype=np.float64)
    sum_below = below_arr
    sum_upto = upto_arr
    with nogil:
        _placement_merge(scores, other, weight_ptr, sum_below, sum_upto)
    return below_arr, upto_arr


def dot_compensated(const double[::1] a, const double[::1] b):
    """The sum of ``a[k] * b[k]``: each product rounded, their sum compensated."""
    cdef Py_ssize_t k
    cdef double total = 0.0, compensation = 0.0
    with nogil:
        for k in range(a.shape[0]):
            compensated_add(&total, &compensation, a[k] * b[k])
    return total + compensation


# Shewchuk's non-overlapping partials of finite doubles occupy disjoint bit
# ranges of the 2098 bit positions of float64, so this many always suffice.
cdef enum:
    _MAX_PARTIALS = 2100
    # Independent TwoSum chains of the fast sum: enough to hide the latency of an
    # addition and for the compiler to pair them in vector registers.
    _LANES = 8
    # What the sums report besides a value: math.fsum's two errors.
    _SUM_OVERFLOW = 1
    _SUM_INF_MINUS_INF = 2

# The fast sum's domain and bound (see _proven_sum): at most 2**40 values
# whose absolute values sum to a number in [2**-900, 2**1019].
cdef Py_ssize_t _PROVEN_MAX_COUNT = (<Py_ssize_t>1) << 40
cdef double _PROVEN_MIN_MASS = 2.0 ** -900
cdef double _PROVEN_MAX_MASS = 2.0 ** 1019
cdef double _TWICE_UNIT_SQUARED = 2.0 ** -105


cdef int _partials_sum(const double* values, Py_ssize_t n, double* result) noexcept nogil:
    """math.fsum, step for step: the exactly rounded sum of ``values`` into ``result``.

    Shewchuk, "Adaptive precision floating-point arithmetic and fast robust
    geometric predicates", Discrete Comput. Geom. 1997, Sec. 2.8: each value
    is added into a list of non-overlapping partials by error-free sums
    (Knuth's TwoSum), so the partials hold the exact sum; it is then rounded
    from the largest partial down, with the round-half-even correction when
    the rest lies exactly half way.  Non-finite values and overflow are
    treated as CPython's ``math.fsum`` treats them: returns 0, or
    ``_SUM_OVERFLOW`` where fsum raises OverflowError (a partial overflows
    although the values are finite), ``_SUM_INF_MINUS_INF`` where it raises
    ValueError (inf and -inf among the values); nan or an infinity among the
    values is the result otherwise.
    """
    cdef double partials[_MAX_PARTIALS]
    cdef Py_ssize_t k, i, j, count = 0
    cdef double x, y, given, high, low = 0.0, twice, rounded
    cdef double special = 0.0, infinities = 0.0
    for k in range(n):
        x = values[k]
        given = x
        i = 0
        for j in range(count):
            y = partials[j]
            if fabs(x) < fabs(y):
                x, y = y, x
            high = x + y
            low = y - (high - x)
            if low != 0.0:
                partials[i] = low
                i += 1
            x = high
        count = i
        if x != 0.0:
            if not isfinite(x):
                # From finite values: an overflow; else a non-finite value, which
                # only the non-finite values decide from here on.
                if isfinite(given):
                    return _SUM_OVERFLOW
                if isinf(given):
                    infinities += given
                special += given
                count = 0
            else:
                partials[count] = x
                count += 1
    if special != 0.0:
        if isnan(infinities):
            return _SUM_INF_MINUS_INF
        result[0] = special
        return 0
    high = 0.0
    if count > 0:
        count -= 1
        high = partials[count]
        while count > 0:
            count -= 1
            x, y = high, partials[count]
            high = x + y
            low = y - (high - x)
            if low != 0.0:
                break
        # Half way between two doubles: round to even, using the sign of what lies below.
        if count > 0 and ((low < 0.0 and partials[count - 1] < 0.0)
                          or (low > 0.0 and partials[count - 1] > 0.0)):
            twice = low * 2.0
            rounded = high + twice
            if twice == rounded - high:
                high = rounded
    result[0] = high
    return 0


# The fast sum and why its result is math.fsum's (u = 2**-53, the unit roundoff;
# g(k) = k u / (1 - k u), Higham's gamma).  Ogita, Rump and Oishi, "Accurate sum
# and dot product", SIAM J. Sci. Comput. 26(6), 2005: Knuth's TwoSum(a, b) gives
# h = fl(a + b) and e with a + b = h + e exactly, and cascading it over values
# (their Sum2) leaves the rounded sum s and error terms e_i whose exact total is
# the error of s.  Here K cascades (chains) run side by side, chain j on n_j <= L
# values: over an array, _LANES chains take the values in turn and one more the
# last n mod _LANES (K = _LANES + 1, L <= ceil(n / _LANES) + _LANES); over a
# kernel's own terms, MERGE_WAYS chains of stretches of its merge and one more
# of their sums (K = MERGE_WAYS + 1, L the longest stretch + MERGE_WAYS).  TwoSum
# then cascades the chains' sums into one, ``total``, so that exactly
#
#     S = sum of the values = total + sum_i e_i      (M <= n + K terms e_i).
#
# ``error``, the floating-point sum of the e_i (each chain's recursive sum, then
# the chains'), is a summation of M terms, so |error - sum e_i| <= g(M) sum |e_i|
# (Higham, "Accuracy and Stability of Numerical Algorithms", (4.4), any order).
# A cascade over y_1..y_p has |e_i| <= u |s_i| <= u (1 + u)**(p - 1) sum |y|
# (ORO's Lemma 2.1 and (2.3)), hence sum |e_i| <= g(p - 1) sum |y|; over the chains
# and their sums (whose absolute values add up to at most (1 + g(L)) sum |x|),
# sum |e_i| <= (g(L) + g(K)(1 + g(L))) sum |x| <= g(L + K) sum |x|.  ``mass``, the
# computed sum of |x| (L + K additions, each rounding down by at most a factor
# 1 - u), has sum |x| <= mass (1 + g(L + K)).  With n <= 2**40, every k here has
# k u <= 2**-12, so g(k) <= 1.001 k u and
#
#     |S - total - error| <= 1.01 (n + K) (L + K) u**2 mass <= bound,
#
# ``bound`` computed as fl(fl(P) 2 u**2 mass) with P = (n + K)(L + K): the factor
# 2 covers the two roundings of the products (mass >= 2**-900 keeps them normal).
# With TwoSum(total, error) = (rounded, low), S lies within ``bound`` of rounded +
# low, and rounded is the double nearest S (math.fsum's value, round half even or
# not) when that interval lies strictly inside the half-gaps to rounded's
# neighbours: low + bound < (next above - rounded) / 2 and low - bound > -(rounded
# - next below) / 2.  Rounding is monotone and the half-gaps are doubles, so the
# comparisons of the rounded low +- bound cannot pass where the exact ones fail (a
# half-gap of 2**-1075 rounds to 0, which only fails more).  Otherwise the
# partials decide (_partials_sum), a rare case for values that do not cancel: for
# n non-negative values bound / ulp(S) <= 2 (n + K)(L + K) u.  Overflow: TwoSum(a,
# b) has |h| + |e| <= (1 + 2u)(|a| + |b|), so no quantity of math.fsum (at most
# 2098 partials) or of this sum exceeds (1 + 2u)**(2098 n) sum |x| < 4 sum |x| <=
# 2**1021.01 for mass <= 2**1019: where math.fsum raises, this sum never decides,
# and every TwoSum above is exact.
cdef struct _Chain:
    double total   # the cascade's rounded sum
    double error   # the recursive sum of its TwoSum errors
    double mass    # the recursive sum of the absolute values added


cdef inline void _chain_add(_Chain* chain, double x) noexcept nogil:
    """One step of a TwoSum cascade (Knuth's TwoSum, no branch)."""
    cdef double high = chain.total + x
    cdef double back = high - x
    chain.error += (chain.total - back) + (x - (high - back))
    chain.total = high
    chain.mass += fabs(x)


cdef bint _certified(const _Chain* chain, Py_ssize_t n, Py_ssize_t per_chain,
                     Py_ssize_t chains, double* result) noexcept nogil:
    """The exactly rounded sum of the ``n`` values cascaded into ``chain`` (already
    merged from ``chains`` chains of at most ``per_chain`` values each) into ``result``,
    when the bound above proves it; else False."""
    cdef double rounded, back, low, bound
    if chain.mass == 0.0:
        result[0] = 0.0  # every value is +-0 (math.fsum's 0.0, never -0.0)
        return True
    if n > _PROVEN_MAX_COUNT or not (_PROVEN_MIN_MASS <= chain.mass <= _PROVEN_MAX_MASS):
        return False  # also nan and inf
    rounded = chain.total + chain.error
    back = rounded - chain.error
    low = (chain.total - back) + (chain.error - (rounded - back))
    bound = <double>(n + chains) * <double>(per_chain + chains)
    bound = bound * _TWICE_UNIT_SQUARED * chain.mass
    if (low + bound < (nextafter(rounded, INFINITY) - rounded) * 0.5
            and low - bound > (nextafter(rounded, -INFINITY) - rounded) * 0.5):
        result[0] = rounded
        return True
    return False


cdef bint _proven_sum(const double* values, Py_ssize_t n, double* result) noexcept nogil:
    """The exactly rounded sum into ``result`` when the bound proves it, else False."""
    # The lanes' chains as three arrays (not _Chain structs), which the compiler keeps
    # in vector registers.
    cdef double lane_total[_LANES]
    cdef double lane_error[_LANES]
    cdef double lane_mass[_LANES]
    cdef _Chain whole
    cdef double x, high, back
    cdef Py_ssize_t k, lane, full = n - n % _LANES
    for lane in range(_LANES):
        lane_total[lane] = 0.0
        lane_error[lane] = 0.0
        lane_mass[lane] = 0.0
    k = 0
    while k < full:
        for lane in range(_LANES):
            x = values[k + lane]
            high = lane_total[lane] + x
            back = high - x
            lane_error[lane] += (lane_total[lane] - back) + (x - (high - back))
            lane_total[lane] = high
            lane_mass[lane] += fabs(x)
        k += _LANES
    whole.total = 0.0
    whole.error = 0.0
    whole.mass = 0.0
    for k in range(full, n):
        _chain_add(&whole, values[k])  # the last n % _LANES values: one more chain
    for lane in range(_LANES):
        x = lane_total[lane]
        high = whole.total + x
        back = high - x
        whole.error += (whole.total - back) + (x - (high - back))
        whole.total = high
        whole.error += lane_error[lane]
        whole.mass += lane_mass[lane]
    return _certified(&whole, n, (n + _LANES - 1) // _LANES + _LANES, _LANES + 1, result)


cdef int exact_sum_of(const double* values, Py_ssize_t n, double* result) noexcept nogil:
    """``math.fsum`` of ``values`` into ``result``: the fast proven sum, else the partials
    (returns ``_partials_sum``'s status)."""
    if _proven_sum(values, n, result):
        return 0
    return _partials_sum(values, n, result)


cdef double _raise_sum_status(int status, str name) except -1.0:
    if status == _SUM_OVERFLOW:
        raise OverflowError(f"{name}: intermediate overflow (a partial sum beyond float64)")
    raise ValueError(f"{name}: -inf + inf")


def exactly_rounded_sum(const double[::1] values):
    """The sum of ``values`` rounded once: ``math.fsum``'s value, in C.

    One pass of TwoSum chains whose error bound proves the rounded result
    (Ogita, Rump and Oishi's Sum2 with a certificate); where it cannot, the
    non-overlapping partials of ``math.fsum`` (Shewchuk's algorithm).  As
    ``math.fsum``: OverflowError when a partial sum of finite values overflows,
    ValueError for inf and -inf among the values, nan or an infinity when one
    is among them.
    """
    cdef double total = 0.0
    cdef int status
    cdef Py_ssize_t n = values.shape[0]
    if n == 0:
        return 0.0
    with nogil:
        status = exact_sum_of(&values[0], n, &total)
    if status:
        _raise_sum_status(status, "exactly_rounded_sum")
    return total


def average_precision_sum(const count_t[::1] neg, const count_t[::1] pos,
                          bint cumulative=False):
    """The exactly rounded sum of average precision's terms, and the class 1 weight.

    ``neg`` and ``pos`` are the groups' class weights, highest score first,
    or with ``cumulative`` their running sums (fp, tp).  With fp and tp the
    float64 running sums of the groups (``np.cumsum``'s), a group's term is
    ``(tp - tp before) * (tp / (tp + fp))``; a group that adds no class 1
    weight has none (its term is 0, or nan for a leading group of weight 0).
    Returns ``(sum of the terms, tp of the last group)``: the average
    precision is their ratio.  One pass, then :func:`exactly_rounded_sum`'s.
    """
    cdef Py_ssize_t k, m = 0, n = neg.shape[0]
    cdef double fp = 0.0, tp = 0.0, before = 0.0, added, total = 0.0
    cdef int status = 0
    if pos.shape[0] != n:
        raise ValueError(f"pos has {pos.shape[0]} entries but neg has {n}")
    cdef double* terms = <double*> malloc((n if n else 1) * sizeof(double))
    if terms == NULL:
        raise MemoryError("average_precision_sum: no memory for the terms")
    with nogil:
        for k in range(n):
            if cumulative:
                fp = <double>neg[k]
                tp = <double>pos[k]
            else:
                fp = fp + <double>neg[k]
                tp = tp + <double>pos[k]
            added = tp - before
            before = tp
            if added != 0.0:
                terms[m] = added * (tp / (tp + fp))
                m += 1
        status = exact_sum_of(terms, m, &total)
    free(terms)
    if status:
        _raise_sum_status(status, "average_precision_sum")
    return total, tp


cdef inline double _precision_term(Py_ssize_t run, Py_ssize_t tp, Py_ssize_t fp) noexcept nogil:
    """A run's term of average precision: ``run * (tp / (tp + fp))``, tp and fp the class
    counts at or above its score (the groups' formula, ``average_precision_sum``)."""
    return <double>run * (<double>tp / <double>(tp + fp))


cdef Py_ssize_t _precision_terms(const double* neg, Py_ssize_t n_neg, const double* pos,
                                 Py_ssize_t n_pos, double* terms) noexcept nogil:
    """Average precision's terms over unit-weight classes sorted ascending, into ``terms``:
    one merge from the top, without branches on the data; returns how many it gave.

    Each step takes the highest score left: a class 0 score at or above the
    class 1 score ``pos[j]`` (ties count as above), or else ``pos[j]``.  The
    step that takes the lowest class 1 score of a run of equal ones gives the
    group's term, ``run * (tp / (tp + fp))`` with tp, fp the counts at or
    above it (the groups' formula, ``average_precision_sum``); every other
    step gives 0.0, which changes no sum.  (``_precision_chains`` sums the same
    non-zero terms.)
    """
    cdef Py_ssize_t i = n_neg - 1, j = n_pos - 1, run_top = n_pos - 1, steps = 0
    cdef Py_ssize_t take, ends
    cdef double value
    while j >= 0:
        value = pos[j]
        take = (i >= 0) & (neg[i if i >= 0 else 0] >= value)
        if j + 1 == n_pos or pos[j + 1] != value:
            run_top = j  # pos[j] starts a run (going down): predictable without many ties
        ends = (1 - take) & ((j == 0) | (pos[j - 1 if j > 0 else 0] != value))
        # tp = n_pos - j and fp = n_neg - 1 - i at or above pos[j]; 0 unless the run ends.
        terms[steps] = _precision_term(run_top - j + 1, n_pos - j, n_neg - 1 - i) * <double>ends
        steps += 1
        i -= take
        j -= 1 - take
    return steps


cdef inline void _below_step(Py_ssize_t* i, Py_ssize_t* j, const double* neg,
                             Py_ssize_t n_neg, Py_ssize_t last, const double* pos,
                             Py_ssize_t* below) noexcept nogil:
    """One step of the ascending merge of ``_class0_below``, without branches: take
    ``neg[i]`` if it is below ``pos[j]``, else ``pos[j]``, whose count is then final."""
    cdef Py_ssize_t take = (i[0] < n_neg) & (neg[i[0] if i[0] < n_neg else last] < pos[j[0]])
    below[j[0]] = i[0]
    i[0] += take
    j[0] += 1 - take


cdef void _class0_below(const double* neg, Py_ssize_t n_neg, const double* pos,
                        Py_ssize_t n_pos, Py_ssize_t* below) noexcept nogil:
    """``below[j]``: the number of class 0 scores below ``pos[j]`` for the ``n_pos``
    class 1 scores from ``pos`` on (both sorted ascending; ``neg`` readable at index 0
    when empty), by a merge cut at ``MERGE_WAYS`` class 1 scores into stretches that
    advance in lockstep (as ``_twice_u``'s)."""
    cdef Py_ssize_t i[MERGE_WAYS]
    cdef Py_ssize_t j[MERGE_WAYS]
    cdef Py_ssize_t stop[MERGE_WAYS]
    cdef Py_ssize_t k, last = n_neg - 1 if n_neg else 0
    for k in range(MERGE_WAYS):
        j[k] = (k * n_pos) // MERGE_WAYS
        stop[k] = ((k + 1) * n_pos) // MERGE_WAYS
        i[k] = _lower_bound(neg, n_neg, pos[j[k]]) if j[k] < stop[k] else 0
    while (j[0] < stop[0]) & (j[1] < stop[1]) & (j[2] < stop[2]) & (j[3] < stop[3]):
        for k in range(MERGE_WAYS):
            _below_step(&i[k], &j[k], neg, n_neg, last, pos, below)
    for k in range(MERGE_WAYS):
        while j[k] < stop[k]:
            _below_step(&i[k], &j[k], neg, n_neg, last, pos, below)


cdef inline double _run_term(const double* pos, Py_ssize_t n_pos, Py_ssize_t n_neg,
                             Py_ssize_t below, Py_ssize_t j, Py_ssize_t* top) noexcept nogil:
    """The term of class 1 score ``pos[j]`` going down: its run's, ``run * tp / (tp + fp)``
    with tp = n_pos - j and fp = n_neg - below (``below`` class 0 scores under it),
    where the run ends there, else 0.0 (no branch on that); ``top``, the highest index
    of the run, kept."""
    cdef double value = pos[j]
    cdef Py_ssize_t ends = (j == 0) | (pos[j - 1 if j > 0 else 0] != value)
    if j + 1 < n_pos and pos[j + 1] != value:
        top[0] = j  # pos[j] starts a run (going down): predictable without many ties
    return _precision_term(top[0] - j + 1, n_pos - j, n_neg - below) * <double>ends


cdef enum:
    _PRECISION_BLOCK = 4096  # class 1 scores whose class 0 counts are held at once


cdef void _precision_chains(const double* neg, Py_ssize_t n_neg, const double* pos,
                            Py_ssize_t n_pos, _Chain* chain) noexcept nogil:
    """``_precision_terms``' non-zero terms, and a 0.0 for each class 1 score inside a
    run, cascaded into ``chain``: n_pos values.

    Block by block of class 1 scores from the top, their class 0 counts first
    (``_class0_below``), then one pass down the block gives each run's term,
    taken in turn by ``MERGE_WAYS`` cascades (one cascade is one chain of
    dependent additions; the processor overlaps independent ones), whose sums are
    cascaded into ``chain`` as ``_proven_sum`` does.
    """
    cdef _Chain lanes[MERGE_WAYS]
    cdef Py_ssize_t below[_PRECISION_BLOCK]
    cdef Py_ssize_t lo, hi = n_pos, j, top = n_pos - 1, k
    cdef double x, high, back
    for k in range(MERGE_WAYS):
        lanes[k].total = 0.0
        lanes[k].error = 0.0
        lanes[k].mass = 0.0
    while hi > 0:
        lo = max(hi - _PRECISION_BLOCK, 0)
        _class0_below(neg, n_neg, pos + lo, hi - lo, below)
        j = hi - 1
        while j >= lo + MERGE_WAYS - 1:  # (written out for MERGE_WAYS = 4)
            _chain_add(&lanes[0], _run_term(pos, n_pos, n_neg, below[j - lo], j, &top))
            _chain_add(&lanes[1], _run_term(pos, n_pos, n_neg, below[j - 1 - lo], j - 1,
                                            &top))
            _chain_add(&lanes[2], _run_term(pos, n_pos, n_neg, below[j - 2 - lo], j - 2,
                                            &top))
            _chain_add(&lanes[3], _run_term(pos, n_pos, n_neg, below[j - 3 - lo], j - 3,
                                            &top))
            j -= MERGE_WAYS
        while j >= lo:
            _chain_add(&lanes[0], _run_term(pos, n_pos, n_neg, below[j - lo], j, &top))
            j -= 1
        hi = lo
    for k in range(MERGE_WAYS):
        x = lanes[k].total
        high = chain.total + x
        back = high - x
        chain.error += (chain.total - back) + (x - (high - back))
        chain.total = high
        chain.error += lanes[k].error
        chain.mass += lanes[k].mass


def average_precision_sorted_classes(const double[::1] neg, const double[::1] pos):
    """The exactly rounded sum of average precision's terms from unit-weight classes,
    each sorted ascending, and the class 1 count.

    The same terms and sum as :func:`average_precision_sum` of their groups,
    with neither the groups nor the terms stored: the terms feed four TwoSum
    cascades (``_precision_chains``) whose bound proves the sum (the comment
    before ``_Chain``), and only where it cannot does one merge store the terms
    for the partials (``_precision_terms``).
    """
    cdef Py_ssize_t n_neg = neg.shape[0], n_pos = pos.shape[0], steps
    cdef _Chain chain
    cdef double total = 0.0
    cdef double* terms
    cdef int status = 0
    cdef bint proven
    chain.total = 0.0
    chain.error = 0.0
    chain.mass = 0.0
    if n_pos == 0:
        return 0.0, 0.0
    # Without class 0 scores the merge still reads one (and ignores it): any readable one.
    cdef const double* neg_first = &neg[0] if n_neg else &pos[0]
    with nogil:
        _precision_chains(neg_first, n_neg, &pos[0], n_pos, &chain)
        # n_pos values in MERGE_WAYS cascades of at most ceil(n_pos / MERGE_WAYS), and
        # ``chain`` of their sums.
        proven = _certified(&chain, n_pos, (n_pos + MERGE_WAYS - 1) // MERGE_WAYS
                            + MERGE_WAYS, MERGE_WAYS + 1, &total)
    if not proven:  # (the merge's every step: at most one a score)
        terms = <double*> malloc((n_neg + n_pos) * sizeof(double))
        if terms == NULL:
            raise MemoryError("average_precision_sorted_classes: no memory for the terms")
        with nogil:
            steps = _precision_terms(neg_first, n_neg, &pos[0], n_pos, terms)
            status = _partials_sum(terms, steps, &total)
        free(terms)
        if status:
            _raise_sum_status(status, "average_precision_sorted_classes")
    return total, <double>n_pos


#: Label dtypes the kernels take without conversion (the fused type ``label_t``).
LABEL_DTYPES = _label_dtypes()
