"""R hmeasure's metrics at a threshold, read from the order engine (a reader).

The package's one threshold rule (docs/api.rst, "Thresholds"): a point is
class 1 when its score is at or above the threshold (``at_or_above``).  The
class weights above a threshold are the class totals less the weights of the
blocks before the threshold's block (a walk up the segment tree) and of its
keys up to the threshold: O(log n + BLOCK).  ``attach`` has a window's engine
record ER, Sens, Spec, Precision, F and Youden after each step (R hmeasure's
``misclassCounts``); ``weights_at_or_above`` and ``weights_from`` are the
structures' reads.
"""

import numpy as np

from libc.math cimport INFINITY, NAN, nextafter
from libc.stdint cimport int32_t

from hmeasure_stream._engines._blocked cimport BLOCK, BlockedAUCEngine, RecordStep

#: The columns ``attach`` records, in the order ``threshold_metrics`` writes them.
COLUMNS = ("er", "sens", "spec", "precision", "f", "youden")


cdef void at_or_above(BlockedAUCEngine engine, double threshold, double* above_neg,
                      double* above_pos, double* total_neg, double* total_pos) noexcept nogil:
    """The package's one threshold rule (docs/api.rst, "Thresholds"): the class weights
    of the scores >= ``threshold``, class 1 at the threshold, and the class totals.
    The scores > the double just below the threshold (the same for every double
    score)."""
    above(engine, nextafter(threshold, -INFINITY), above_neg, above_pos, total_neg, total_pos)


cdef void above(BlockedAUCEngine engine, double threshold, double* above_neg,
                double* above_pos, double* total_neg, double* total_pos) noexcept nogil:
    """Class weights of the scores strictly above ``threshold`` and the class totals
    (R hmeasure's ``s > threshold``; the package's rule is ``at_or_above``).  The class
    weights of the blocks before the threshold's block (a walk up the segment tree)
    and of its keys up to the threshold are subtracted from the totals.
    O(log n + BLOCK)."""
    cdef double below_neg, below_pos
    cdef int32_t position, block, index
    if engine.n_blocks == 0:
        above_neg[0] = above_pos[0] = total_neg[0] = total_pos[0] = 0.0
        return
    total_neg[0] = engine._class_total(False)
    total_pos[0] = engine._class_total(True)
    position = engine._locate(threshold)
    block = engine.order[position]
    engine._prefix(position, &below_neg, &below_pos)
    for index in range(engine.size[block]):
        if engine.key[block * BLOCK + index] > threshold:
            break
        below_neg += engine._held(block * BLOCK + index, False)
        below_pos += engine._held(block * BLOCK + index, True)
    above_neg[0] = max(total_neg[0] - below_neg, 0.0)
    above_pos[0] = max(total_pos[0] - below_pos, 0.0)


cdef void threshold_metrics(BlockedAUCEngine engine, double threshold,
                            double* out) noexcept nogil:
    """ER, Sens, Spec, Precision, F and Youden at ``threshold`` into out[0..5] (R
    hmeasure's ``misclassCounts``): nan while a class is absent, Precision and F
    where R has 0/0."""
    cdef double fp, tp, total_neg, total_pos, sens, precision
    cdef int k
    at_or_above(engine, threshold, &fp, &tp, &total_neg, &total_pos)
    if not (total_neg > 0.0 and total_pos > 0.0):
        for k in range(6):
            out[k] = NAN
        return
    sens = tp / total_pos
    precision = tp / (tp + fp) if tp + fp > 0.0 else NAN
    out[0] = (fp + (total_pos - tp)) / (total_neg + total_pos)
    out[1] = sens
    out[2] = (total_neg - fp) / total_neg
    out[3] = precision
    if precision != precision:
        out[4] = NAN
    elif precision == 0.0 or sens == 0.0:
        out[4] = 0.0
    else:
        out[4] = 2.0 / (1.0 / precision + 1.0 / sens)
    out[5] = out[1] + out[2] - 1.0


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    threshold_metrics(engine, params[0], row + column)
    return 6


cdef int attach_at(BlockedAUCEngine engine, RecordStep step, double threshold,
                   tuple columns, str module) except -1:
    """Have ``engine`` record ``columns`` by ``step`` at ``threshold`` after each step of a
    window: the ``attach`` of every reader at a threshold (``module``'s, which pickles
    re-attach)."""
    cdef double params[1]
    params[0] = threshold
    engine.attach(step, params, 1, columns, (module, "attach", (threshold,)))
    return 0


def attach(BlockedAUCEngine engine, double threshold):
    """Have ``engine`` record ``COLUMNS`` at ``threshold`` after each step of a window."""
    attach_at(engine, _record, threshold, COLUMNS, __name__)


def weights_at_or_above(BlockedAUCEngine engine, double threshold):
    """Class weights of the scores >= ``threshold``, and the class totals:
    ``(above_neg, above_pos, total_neg, total_pos)`` (``at_or_above``)."""
    cdef double above_neg, above_pos, total_neg, total_pos
    engine._check_idle()
    at_or_above(engine, threshold, &above_neg, &above_pos, &total_neg, &total_pos)
    return above_neg, above_pos, total_neg, total_pos


def weights_from(BlockedAUCEngine engine, const double[::1] thresholds):
    """For each threshold t, the class weights of the scores >= t (``at_or_above``):
    an array of shape (m, 2).  O(log n + BLOCK) each."""
    cdef Py_ssize_t k, m = thresholds.shape[0]
    cdef double total_neg, total_pos
    weights_array = np.empty((m, 2))
    cdef double[:, ::1] weights = weights_array
    engine._check_idle()
    with nogil:
        for k in range(m):
            at_or_above(engine, thresholds[k], &weights[k, 0], &weights[k, 1], &total_neg,
                        &total_pos)
    return weights_array
