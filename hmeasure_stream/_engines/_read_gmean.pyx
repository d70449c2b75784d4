"""The G-mean at a threshold, read from the order engine (a reader).

MOA's ``WindowAUCImbalancedPerformanceEvaluator`` reports the geometric mean
of the sensitivity and the specificity at its threshold, sqrt(sens * spec):
a classifier that ignores the minority class scores 0 however rare it is.
Under the package's threshold rule (class 1 at or above the threshold,
``_read_threshold.at_or_above``), O(log n + BLOCK) a read; nan while a class
is absent.  ``attach`` is the window metric ``gmean``.
"""

from libc.math cimport NAN, sqrt

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine
from hmeasure_stream._engines._read_threshold cimport at_or_above, attach_at


cdef double gmean(BlockedAUCEngine engine, double threshold) noexcept nogil:
    """sqrt(sens * spec) at ``threshold``; nan while a class is absent."""
    cdef double fp, tp, total_neg, total_pos
    at_or_above(engine, threshold, &fp, &tp, &total_neg, &total_pos)
    if not (total_neg > 0.0 and total_pos > 0.0):
        return NAN
    return sqrt((tp / total_pos) * ((total_neg - fp) / total_neg))


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    row[column] = gmean(engine, params[0])
    return 1


def attach(BlockedAUCEngine engine, double threshold):
    """Have ``engine`` record the G-mean at ``threshold`` after each step of a window."""
    attach_at(engine, _record, threshold, ("gmean",), __name__)
