"""The average precision, exact and within epsilon, read from the order engine.

A reader: ``average_precision`` walks the keys from the highest (O(n)), as
scikit-learn's ``average_precision_score`` sums them; ``approx_average_precision``
reads the keys in groups whose precision brackets stay within (1 + epsilon)^2,
one block scan and one finger search of the segment tree per group
(docs/implementation.rst, "The approximate average precision").  ``attach``
and ``attach_approx`` are the window metrics ``ap`` and ``ap_approx``.
"""

from libc.math cimport NAN
from libc.stdint cimport int32_t

from hmeasure_stream._engines._blocked cimport BLOCK, BlockedAUCEngine
from hmeasure_stream._engines._numeric cimport compensated_add


cdef inline double _slot_weight(BlockedAUCEngine engine, int32_t slot,
                                bint is_pos) noexcept nogil:
    """``_held`` without the virtual call, for the scans of the hot reads."""
    if engine.weighted:
        return engine.weight[4 * slot + is_pos] + engine.weight[4 * slot + 2 + is_pos]
    return engine.count_pos[slot] if is_pos else engine.count_neg[slot]


cdef inline bint _past(double ratio, double start_neg, double start_pos, double neg,
                       double pos) noexcept nogil:
    """Whether class weights ``neg``, ``pos`` at or above a key leave the bracket of a
    group that starts at ``start_neg``, ``start_pos``: the ratio of the precision bounds
    pos (start_pos + neg) / (start_pos (pos + start_neg)) past ``ratio`` (it only grows
    down the scores).  A group starting without class 1 weight ends at the first."""
    if start_pos == 0.0:
        return pos > 0.0
    return pos * (start_pos + neg) > ratio * start_pos * (pos + start_neg)


cdef double average_precision(BlockedAUCEngine engine) noexcept nogil:
    """``average_precision`` of the current points: one pass over the keys from the
    highest, sum_k (tp_k - tp_(k-1)) tp_k / (tp_k + fp_k) / N1 (compensated); nan
    while a class is absent.  O(n)."""
    cdef double fp = 0.0, tp = 0.0, at_pos, total = 0.0, compensation = 0.0
    cdef double total_neg, total_pos
    cdef int32_t position, block, index, slot
    if not engine._both_classes(&total_neg, &total_pos):
        return NAN
    for position in range(engine.n_blocks - 1, -1, -1):
        block = engine.order[position]
        for index in range(engine.size[block] - 1, -1, -1):
            slot = block * BLOCK + index
            fp += engine._held(slot, False)
            at_pos = engine._held(slot, True)
            if at_pos > 0.0:
                tp += at_pos
                compensated_add(&total, &compensation, at_pos * (tp / (tp + fp)))
    return (total + compensation) / tp


cdef double approx_average_precision(BlockedAUCEngine engine, double epsilon) noexcept nogil:
    """The average precision within ``epsilon`` (relative) of ``average_precision``:
    nan while a class is absent.

    The distinct scores are read from the highest down in groups (runs of
    consecutive keys, so a tie is never split).  A group starts at a key where
    the class 1 and class 0 weights at or above it are tp0, fp0 and runs to the
    last key whose tp, fp keep the precision's bracket within (1 + epsilon)^2:
    every precision tp / (tp + fp) in a group ending at tp1, fp1 lies in
    [tp0 / (tp0 + fp1), tp1 / (tp1 + fp0)] (``_past``).  The group's class 1
    weight w (exact, from the segment tree's sums) times the harmonic mean of
    the two ends is within (q - 1) / (q + 1) < epsilon of its exact share, q the
    ends' ratio (docs/implementation.rst, "The approximate average
    precision").  One block scan and one finger search of the segment tree per
    group (``_group_end``)."""
    cdef double ratio = (1.0 + epsilon) * (1.0 + epsilon), total = 0.0
    cdef double above[4]  # class 0 and 1 weights above the cursor, then at its block's end
    cdef double before_pos, start_neg, start_pos, weight, total_neg, total_pos
    cdef int32_t block, index, slot
    cdef Py_ssize_t leaf
    if not engine._both_classes(&total_neg, &total_pos):
        return NAN
    block = engine.order[engine.n_blocks - 1]
    index = engine.size[block] - 1
    leaf = 3 * (<Py_ssize_t>engine.leaves + engine.leaf_of_block[block])
    above[0] = above[1] = 0.0
    above[2] = engine.tree[leaf]
    above[3] = engine.tree[leaf + 1]
    while block >= 0:
        # The group's first key, then its end: the first key past its bracket.
        slot = block * BLOCK + index
        before_pos = above[1]
        above[0] += _slot_weight(engine, slot, False)
        above[1] += _slot_weight(engine, slot, True)
        start_neg = above[0]
        start_pos = above[1]
        index -= 1
        _group_end(engine, ratio, start_neg, start_pos, &block, &index, above)
        weight = above[1] - before_pos
        if weight > 0.0 and start_pos > 0.0:
            total += 2.0 * weight / ((start_pos + above[0]) / start_pos
                                     + (above[1] + start_neg) / above[1])
    return total / above[1]


cdef void _group_end(BlockedAUCEngine engine, double ratio, double start_neg,
                     double start_pos, int32_t* at_block, int32_t* at_index,
                     double* above) noexcept nogil:
    """From the key at ``at_index`` of ``at_block`` down, the first key whose class
    weights at or above it are past the group's bracket (``_past``).  Its block and
    index go to ``at_*`` (block -1: none, the group runs to the lowest key);
    ``above[0:2]`` gain the weights of the keys passed, ``above[2:4]`` are the
    weights down to the end of the block reached.  The rest of the block is
    skipped whole if its end is within the bracket, else scanned; then a finger
    search: up from the block's leaf while the left siblings (the next lower
    scores) stay within it, taking their weights, down into the first that does
    not.  O(BLOCK + log n) per group."""
    cdef int32_t block = at_block[0], index = at_index[0], slot
    cdef Py_ssize_t node, child, leaf
    cdef double neg, pos
    while True:
        if index >= 0 and not _past(ratio, start_neg, start_pos, above[2], above[3]):
            index = -1
            above[0] = above[2]
            above[1] = above[3]
        while index >= 0:
            slot = block * BLOCK + index
            neg = above[0] + _slot_weight(engine, slot, False)
            pos = above[1] + _slot_weight(engine, slot, True)
            if _past(ratio, start_neg, start_pos, neg, pos):
                at_block[0] = block
                at_index[0] = index
                return
            above[0] = neg
            above[1] = pos
            index -= 1
        # Every leaf from the block's on is read: climb while the left sibling stays
        # within the bracket, taking its weights.
        node = <Py_ssize_t>engine.leaves + engine.leaf_of_block[block]
        while node > 1:
            if node & 1:
                neg = above[0] + engine.tree[3 * (node - 1)]
                pos = above[1] + engine.tree[3 * (node - 1) + 1]
                if _past(ratio, start_neg, start_pos, neg, pos):
                    node -= 1
                    break
                above[0] = neg
                above[1] = pos
            node >>= 1
        if node == 1:
            at_block[0] = -1
            return
        while node < engine.leaves:
            child = 2 * node + 1
            neg = above[0] + engine.tree[3 * child]
            pos = above[1] + engine.tree[3 * child + 1]
            if _past(ratio, start_neg, start_pos, neg, pos):
                node = child
            else:
                above[0] = neg
                above[1] = pos
                node = child - 1
        # Gaps weigh nothing (a float node sum may still lead to one): the next
        # block to the left.
        leaf = node - engine.leaves
        while leaf >= 0 and engine.block_at_leaf[leaf] < 0:
            leaf -= 1
        if leaf < 0:
            at_block[0] = -1
            return
        block = engine.block_at_leaf[leaf]
        index = engine.size[block] - 1
        above[2] = above[0] + engine.tree[3 * (engine.leaves + leaf)]
        above[3] = above[1] + engine.tree[3 * (engine.leaves + leaf) + 1]


def read(BlockedAUCEngine engine, epsilon=None):
    """The average precision of the points, within ``epsilon`` (relative) of the exact one
    if given; nan while a class is absent."""
    cdef double value, tolerance = NAN if epsilon is None else epsilon
    engine._check_idle()
    with nogil:
        value = (average_precision(engine) if tolerance != tolerance
                 else approx_average_precision(engine, tolerance))
    return value


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    row[column] = average_precision(engine)
    return 1


cdef Py_ssize_t _record_approx(BlockedAUCEngine engine, const double* params, double* row,
                               Py_ssize_t column) noexcept nogil:
    row[column] = approx_average_precision(engine, params[0])
    return 1


def attach(BlockedAUCEngine engine):
    """Have ``engine`` record the average precision after each step: O(n) a step."""
    engine.attach(_record, NULL, 0, ("ap",), (__name__, "attach", ()))


def attach_approx(BlockedAUCEngine engine, double epsilon):
    """Have ``engine`` record the average precision within ``epsilon`` after each step
    (column ``ap_approx``)."""
    cdef double params[1]
    params[0] = epsilon
    engine.attach(_record_approx, params, 1, ("ap_approx",),
                  (__name__, "attach_approx", (epsilon,)))
