"""Compiled counting for the one-vs-one AUC of :mod:`hmeasure_stream.multiclass`.

A(i|j) is the Mann-Whitney statistic of class i's scores over class j's,
both in column i.  With each class's scores sorted ascending, one merge pass
counts, for every class-j score v, the class-i scores below v and at or
below v; both counts only grow with v.
"""

from libc.stdint cimport int64_t


def twice_u_sorted(const double[::1] high, const double[::1] low):
    """Twice the Mann-Whitney U of ``high`` over ``low``, each sorted ascending, exactly.

    2U = sum over v in low of #{high > v} + #{high >= v}
       = 2 |high| |low| - sum over v of (#{high < v} + #{high <= v}).
    """
    cdef Py_ssize_t n_high = high.shape[0], n_low = low.shape[0]
    cdef Py_ssize_t k, less = 0, at_most = 0
    cdef int64_t total = 0
    cdef double value
    with nogil:
        for k in range(n_low):
            value = low[k]
            while less < n_high and high[less] < value:
                less += 1
            if at_most < less:
                at_most = less
            while at_most < n_high and high[at_most] <= value:
                at_most += 1
            total += less + at_most
    return 2 * <int64_t>n_high * <int64_t>n_low - total


def twice_u_sorted_weighted(
    const double[::1] high, const double[::1] high_weight,
    const double[::1] low, const double[::1] low_weight,
):
    """Weighted 2U of ``high`` over ``low`` (each sorted ascending, with its weights).

    2U = 2 W_high W_low - sum over v in low of w(v) (W{high < v} + W{high <= v}).
    """
    cdef Py_ssize_t n_high = high.shape[0], n_low = low.shape[0]
    cdef Py_ssize_t k, less = 0, at_most = 0
    cdef double weight_less = 0.0, weight_at_most = 0.0, total = 0.0
    cdef double high_total = 0.0, low_total = 0.0, value
    with nogil:
        for k in range(n_high):
            high_total += high_weight[k]
        for k in range(n_low):
            value = low[k]
            low_total += low_weight[k]
            while less < n_high and high[less] < value:
                weight_less += high_weight[less]
                less += 1
            if at_most < less:
                at_most = less
                weight_at_most = weight_less
            while at_most < n_high and high[at_most] <= value:
                weight_at_most += high_weight[at_most]
                at_most += 1
            total += low_weight[k] * (weight_less + weight_at_most)
    return 2.0 * high_total * low_total - total
