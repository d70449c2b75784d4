"""Cohen's kappa and Kappa-M at a threshold, read from the order engine (a reader).

Both compare the accuracy p0 of the rule at the threshold (the package's
rule: class 1 at or above it, ``_read_threshold.at_or_above``) with that of a
baseline, (p0 - pc) / (1 - pc).  Cohen's kappa takes for pc the agreement
expected by chance from the margins, sum over the classes of (predicted
share) * (true share), summed class 0 first as MOA's
``WindowAUCImbalancedPerformanceEvaluator`` sums it, so that unit weights give
its bits.  Kappa-M (Bifet et al., "Efficient online evaluation of big data
stream classifiers", KDD 2015) takes for pc the accuracy of always predicting
the window's majority class, the larger class share; MOA takes instead the
accuracy over the whole stream of a classifier predicting, at each row, the
majority of the window then.  Both are nan while a class is absent (the
window's rule for every metric of two classes).  O(log n + BLOCK) a read:
``attach`` is the window metrics ``kappa`` and ``kappa_m``.
"""

from libc.math cimport NAN

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine
from hmeasure_stream._engines._read_threshold cimport at_or_above, attach_at

#: The columns ``attach`` records, in this order.
COLUMNS = ("kappa", "kappa_m")


cdef void kappas(BlockedAUCEngine engine, double threshold, double* out) noexcept nogil:
    """Cohen's kappa and Kappa-M at ``threshold`` into out[0], out[1]; nan while a class
    is absent."""
    cdef double fp, tp, total_neg, total_pos, total, accuracy, chance, majority
    at_or_above(engine, threshold, &fp, &tp, &total_neg, &total_pos)
    if not (total_neg > 0.0 and total_pos > 0.0):
        out[0] = out[1] = NAN
        return
    total = total_neg + total_pos
    accuracy = (tp + (total_neg - fp)) / total
    # (Predicted class 0 times true class 0, then class 1: MOA's order of the terms.)
    chance = ((((total_neg - fp) + (total_pos - tp)) / total) * (total_neg / total)
              + ((tp + fp) / total) * (total_pos / total))
    out[0] = (accuracy - chance) / (1.0 - chance)
    majority = max(total_neg, total_pos) / total
    out[1] = (accuracy - majority) / (1.0 - majority)


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    kappas(engine, params[0], row + column)
    return 2


def attach(BlockedAUCEngine engine, double threshold):
    """Have ``engine`` record ``COLUMNS`` at ``threshold`` after each step of a window."""
    attach_at(engine, _record, threshold, COLUMNS, __name__)
