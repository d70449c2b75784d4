"""pROC's and R hmeasure's rates at a fixed other rate, read from the order engine.

A reader: per level a descent of the segment tree on the class weights to
the block where the ROC point passes the level, then a scan of its keys,
O(log n + BLOCK).  ``fixed_level`` is R hmeasure's ``Sens.Spec`` and
``Spec.Sens`` lookup (the report of ``DynamicH``); ``crossings`` and
``rate_at`` are pROC's ``coords`` at fixed specificities or sensitivities,
``attach`` the window metrics ``sens_at_spec`` and ``spec_at_sens``.
"""

import numpy as np

from libc.math cimport NAN
from libc.stdint cimport int32_t

from hmeasure_stream._engines._blocked cimport BLOCK, BlockedAUCEngine


cdef double _level_lookup(bint spec_at_sens, double x, double total_neg, double total_pos,
                          double below_neg, double below_pos, double with_neg,
                          double with_pos) noexcept nogil:
    """R hmeasure's ``Look.Up.AUC`` value once the crossing group is found (``fixed_level``).

    ``below_*`` are the class weights under the first group where the CDF
    of one class exceeds ``x`` (the class 1 CDF for ``spec_at_sens``, else
    the class 0 CDF), ``with_*`` the same including that group.  The CDF
    values are formed as the from-scratch report forms them, 1 - (N -
    prefix) / N, and interpolated with R's reversed weights.
    """
    cdef double x1, x2, y1, y2, weight_y2
    if spec_at_sens:
        x1 = 1.0 - (total_pos - below_pos) / total_pos
        x2 = 1.0 - (total_pos - with_pos) / total_pos
        y1 = 1.0 - (total_neg - below_neg) / total_neg
        y2 = 1.0 - (total_neg - with_neg) / total_neg
    else:
        x1 = 1.0 - (total_neg - below_neg) / total_neg
        x2 = 1.0 - (total_neg - with_neg) / total_neg
        y1 = 1.0 - (1.0 - (total_pos - below_pos) / total_pos)
        y2 = 1.0 - (1.0 - (total_pos - with_pos) / total_pos)
    if x2 - x1 > 0.0:
        weight_y2 = (x2 - x) / (x2 - x1)
        return (1.0 - weight_y2) * y1 + weight_y2 * y2
    return y2


cdef inline bint _crossed(bint by_sensitivity, double level, double total_neg,
                          double total_pos, double below_neg, double below_pos) noexcept nogil:
    """Whether the ROC point of the threshold just above the scores weighing ``below_*``
    is past ``level`` in pROC's ``coords``: its specificity reaches ``level``, or (with
    ``by_sensitivity``) its sensitivity falls below it.  The rates are formed as
    ``coords`` forms them, from the weights at or above the threshold (N - below), so
    that with unit weights the point found is the from-scratch one."""
    if by_sensitivity:
        return (total_pos - below_pos) / total_pos < level
    return (total_neg - (total_neg - below_neg)) / total_neg >= level


def fixed_level(BlockedAUCEngine engine, bint spec_at_sens, double level):
    """R hmeasure's ``Spec.Sens`` (``spec_at_sens``) or ``Sens.Spec`` at ``level``.

    R's lookup (``Look.Up.AUC``) on the empirical class CDFs read from the
    lowest score up, as ``AUCEngine.fixed_level``: the first group where
    the CDF of one class exceeds its level, interpolated with the group
    below as R does.  A descent of the segment tree on the class weights to
    the block where the CDF crosses, then a scan of its keys: O(log n +
    BLOCK).  The CDF values are formed as the from-scratch report forms them
    (1 - (N - prefix) / N), so with unit weights the value is the same.
    nan while a class is absent.
    """
    cdef double total_neg, total_pos, total, x, prefix
    cdef double below_neg = 0.0, below_pos = 0.0, with_neg, with_pos
    cdef Py_ssize_t node = 1, child
    cdef int32_t block, index, slot
    cdef bint found = False
    engine._check_idle()
    if not engine._both_classes(&total_neg, &total_pos):
        return NAN
    # Spec.Sens: the class 1 CDF against 1 - level; Sens.Spec: class 0 against level.
    total = total_pos if spec_at_sens else total_neg
    x = 1.0 - level if spec_at_sens else level
    while node < engine.leaves:
        child = 2 * node
        prefix = below_pos + engine.tree[3 * child + 1] if spec_at_sens else (
            below_neg + engine.tree[3 * child])
        if 1.0 - (total - prefix) / total > x:
            node = child
        else:
            below_neg += engine.tree[3 * child]
            below_pos += engine.tree[3 * child + 1]
            node = child + 1
    block = engine.block_at_leaf[node - engine.leaves]
    with_neg = below_neg
    with_pos = below_pos
    if block >= 0:
        for index in range(engine.size[block]):
            slot = block * BLOCK + index
            below_neg = with_neg
            below_pos = with_pos
            with_neg += engine._held(slot, False)
            with_pos += engine._held(slot, True)
            prefix = with_pos if spec_at_sens else with_neg
            if 1.0 - (total - prefix) / total > x:
                found = True
                break
    if not found:  # not reached for a level in (0, 1): the CDF ends at 1
        return NAN
    return _level_lookup(spec_at_sens, x, total_neg, total_pos, below_neg, below_pos,
                         with_neg, with_pos)


def crossings(BlockedAUCEngine engine, bint by_sensitivity, const double[::1] levels):
    """For each level, the first group of scores, from the lowest up, whose ROC point is
    past it (``_crossed``), for pROC's ``coords`` at specificities or sensitivities.

    Returns an array of shape (m, 7), one row per level: ``below_neg,
    below_pos, with_neg, with_pos, previous_key, key, next_key``, the class
    weights of the scores below the group and up to it (stored units), its
    score and the scores of the nearest groups of positive weight below
    and above it (nan where there is none); a row of nan while a class is
    absent or when no group is past the level.  Per level a descent of the
    segment tree on the class weights, then a scan of one block:
    O(log n + BLOCK), and the keys of weight 0 passed on the way to a
    neighbour.
    """
    cdef Py_ssize_t k, m = levels.shape[0]
    found_array = np.full((m, 7), np.nan)
    cdef double[:, ::1] found = found_array
    engine._check_idle()
    with nogil:
        for k in range(m):
            _crossing(engine, by_sensitivity, levels[k], &found[k, 0])
    return found_array


cdef bint _crossing(BlockedAUCEngine engine, bint by_sensitivity, double level,
                    double* found) noexcept nogil:
    """One row of ``crossings`` into found[0..6] (left as it is when none: False)."""
    cdef double total_neg, total_pos, below_neg = 0.0, below_pos = 0.0
    cdef double with_neg, with_pos
    cdef Py_ssize_t node = 1, child
    cdef int32_t block, index, slot, position, leaf
    cdef bint restarted = False
    if not engine._both_classes(&total_neg, &total_pos) or not _crossed(
            by_sensitivity, level, total_neg, total_pos, total_neg, total_pos):
        return False
    while node < engine.leaves:
        child = 2 * node
        if _crossed(by_sensitivity, level, total_neg, total_pos,
                    below_neg + engine.tree[3 * child], below_pos + engine.tree[3 * child + 1]):
            node = child
        else:
            below_neg += engine.tree[3 * child]
            below_pos += engine.tree[3 * child + 1]
            node = child + 1
    # The block of the leaf reached (gaps weigh nothing: the next block to the right).
    leaf = <int32_t>(node - engine.leaves)
    while leaf < engine.leaves and engine.block_at_leaf[leaf] < 0:
        leaf += 1
    position = -1  # the block's directory position, found only if the scan leaves it
    block = engine.block_at_leaf[leaf] if leaf < engine.leaves else -1
    # Scan the keys from there on.  With float weights a node's sum and its
    # children's may differ in the last bit, so the descent can stop a block
    # early or late; the scan then goes on, or starts again from the lowest key.
    while True:
        while block >= 0:
            for index in range(engine.size[block]):
                slot = block * BLOCK + index
                with_neg = below_neg + engine._held(slot, False)
                with_pos = below_pos + engine._held(slot, True)
                if _crossed(by_sensitivity, level, total_neg, total_pos, with_neg,
                            with_pos):
                    found[0] = below_neg
                    found[1] = below_pos
                    found[2] = with_neg
                    found[3] = with_pos
                    found[4] = _present_key(engine, block, index, -1)
                    found[5] = engine.key[slot]
                    found[6] = _present_key(engine, block, index, 1)
                    return True
                below_neg = with_neg
                below_pos = with_pos
            if position < 0:
                position = engine._locate(engine.key[block * BLOCK])
            position += 1
            block = engine.order[position] if position < engine.n_blocks else -1
        if restarted:
            return False
        restarted = True
        position = 0
        block = engine.order[0]
        below_neg = below_pos = 0.0


cdef double rate_at(BlockedAUCEngine engine, bint by_sensitivity, double level) noexcept nogil:
    """pROC's ``coords`` of the current points: the sensitivity at specificity ``level``
    or (``by_sensitivity``) the specificity at sensitivity ``level``; nan while a class
    is absent.  The two points around the level (``_crossing``) and the straight line
    between them, with the rates and the line formed as ``coords`` forms them."""
    cdef double found[7], total_neg, total_pos, low_along, high_along, low_other, high_other
    if not engine._both_classes(&total_neg, &total_pos):
        return NAN
    if not _crossing(engine, by_sensitivity, level, found):
        # No point's sensitivity falls below the level (0): the last point reads it.
        return 1.0
    # The points below the group (low) and up to it (high): rates from the weights at
    # or above their thresholds, N - below.
    low_other = (total_pos - found[1]) / total_pos
    high_other = (total_pos - found[3]) / total_pos
    low_along = (total_neg - (total_neg - found[0])) / total_neg
    high_along = (total_neg - (total_neg - found[2])) / total_neg
    if by_sensitivity:
        # Along the sensitivity (high_other < level <= low_other), reading specificity.
        if low_other == level:
            return low_along
        return high_along + ((level - high_other) / (low_other - high_other)
                             * (low_along - high_along))
    if low_along >= level:  # only the first point, at a specificity of 0
        return low_other
    if high_along == level:
        return high_other
    return low_other + ((level - low_along) / (high_along - low_along)
                        * (high_other - low_other))


cdef double _present_key(BlockedAUCEngine engine, int32_t block, int32_t index,
                         int32_t step) noexcept nogil:
    """The score of the nearest key of positive weight after the key at ``index`` of
    ``block``, upwards (``step`` 1) or downwards (-1); nan if none.  The directory is
    searched only if the block has none."""
    cdef int32_t position = -1, slot
    while True:
        index += step
        while index < 0 or index >= engine.size[block]:
            if position < 0:
                position = engine._locate(engine.key[block * BLOCK])
            position += step
            if position < 0 or position >= engine.n_blocks:
                return NAN
            block = engine.order[position]
            index = engine.size[block] - 1 if step < 0 else 0
        slot = block * BLOCK + index
        if engine._held(slot, False) > 0.0 or engine._held(slot, True) > 0.0:
            return engine.key[slot]


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    row[column] = rate_at(engine, params[0] != 0.0, params[1])
    return 1


def attach(BlockedAUCEngine engine, bint by_sensitivity, double level):
    """Have ``engine`` record, after each step of a window, the specificity at sensitivity
    ``level`` (``by_sensitivity``: column ``spec_at_sens``) or the sensitivity at
    specificity ``level`` (``sens_at_spec``)."""
    cdef double params[2]
    params[0] = by_sensitivity
    params[1] = level
    engine.attach(_record, params, 2, ("spec_at_sens" if by_sensitivity else "sens_at_spec",),
                  (__name__, "attach", (by_sensitivity, level)))
