"""The prevalence of class 1, read from the order engine (a reader).

The window's class 1 weight over its total weight, W1 / (W0 + W1), from the
class totals at the root of the segment tree: O(1) a read, nan for an empty
window.  MOA's ``WindowAUCImbalancedPerformanceEvaluator`` reports the ratio
W1 / W0 instead (``Double.MAX_VALUE`` without class 0), which is
prevalence / (1 - prevalence).  ``attach`` is the window metric ``prevalence``.
"""

from libc.math cimport NAN

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    cdef double total_neg = engine._class_total(False), total_pos = engine._class_total(True)
    row[column] = (total_pos / (total_neg + total_pos) if total_neg + total_pos > 0.0
                   else NAN)
    return 1


def attach(BlockedAUCEngine engine):
    """Have ``engine`` record the prevalence of class 1 after each step of a window."""
    engine.attach(_record, NULL, 0, ("prevalence",), (__name__, "attach", ()))
