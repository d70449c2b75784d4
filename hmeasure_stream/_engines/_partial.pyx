"""Compiled kernels of ``partial.py``: the area of the ROC curve inside a box.

Private module.  The ROC curve runs from the highest score down: its point
after a score is (false positives, true positives) of the rule "class 1 when
the score is >= that score", and a score shared by g0 negatives and g1
positives is the straight segment from (F, T) to (F + g0, T + g1).  Both
kernels return parts of the area of

    {(u, t) : a <= u <= b,  c <= t <= min(roc(u), d)}

(the region under the curve, above t = c and at most d, between u = a and
u = b), in the units of their input: class counts for ``box_area_sorted``,
rates for ``box_area_polyline``.
"""

from libc.stdint cimport int64_t


cdef inline double _segment_box_area(double u0, double t0, double du, double dt,
                                     double a, double b, double c, double d) noexcept nogil:
    """Area inside the box under the segment from (u0, t0) to (u0 + du, t0 + dt).

    du > 0 and dt >= 0.  The integral over u in [a, b] of the segment's height
    clamped to [c, d], minus c: exact for a straight segment, computed by
    splitting it where it crosses t = c and t = d.
    """
    cdef double lo = u0 if u0 > a else a
    cdef double hi = u0 + du if u0 + du < b else b
    cdef double slope, t_lo, t_hi, u_c, u_d, height_c, height_d
    if not hi > lo:
        return 0.0
    slope = dt / du
    t_lo = t0 + slope * (lo - u0)
    t_hi = t0 + slope * (hi - u0)
    if t_hi <= c:
        return 0.0
    if t_lo >= d:
        return (d - c) * (hi - lo)
    # Here t_lo < d and t_hi > c; where the segment crosses c or d its slope is > 0.
    u_c = lo
    height_c = t_lo
    if t_lo < c:
        u_c = lo + (c - t_lo) / slope
        height_c = c
    u_d = hi
    height_d = t_hi
    if t_hi > d:
        u_d = lo + (d - t_lo) / slope
        height_d = d
    if u_d < u_c:  # rounding only
        u_d = u_c
    return (u_d - u_c) * (0.5 * (height_c + height_d) - c) + (d - c) * (hi - u_d)


def box_area_sorted(const double[::1] neg, const double[::1] pos,
                    double a, double b, double c, double d):
    """Area in the box of the ROC curve of two classes, each sorted ascending.

    a, b are false positive counts and c, d true positive counts (0 <= a < b
    <= n0, 0 <= c < d <= n1).  Returns ``(twice_inside, width_inside,
    width_above, rest)`` with the area equal to

        twice_inside / 2 - c * width_inside + (d - c) * width_above + rest:

    the segments lying wholly inside the box add the exact integers
    g0 (2T + g1) to ``twice_inside`` and g0 to ``width_inside``; those wholly
    between a and b and at or above d add g0 to ``width_above``; only the few
    segments crossing a side of the box are computed in floating point
    (``rest``).  One merge of the two classes from the top, stopped at the
    first segment beyond b.
    """
    cdef Py_ssize_t i = neg.shape[0] - 1, j = pos.shape[0] - 1
    cdef int64_t fp = 0, tp = 0, g0, g1
    cdef int64_t twice_inside = 0, width_inside = 0, width_above = 0
    cdef double rest = 0.0, value
    with nogil:
        while i >= 0 and fp < b:
            if j < 0 or neg[i] >= pos[j]:
                value = neg[i]
            else:
                value = pos[j]
            g0 = 0
            while i >= 0 and neg[i] == value:
                g0 += 1
                i -= 1
            g1 = 0
            while j >= 0 and pos[j] == value:
                g1 += 1
                j -= 1
            if g0 > 0 and fp + g0 > a:
                if a <= fp and fp + g0 <= b:
                    if c <= tp and tp + g1 <= d:
                        twice_inside += g0 * (2 * tp + g1)
                        width_inside += g0
                    elif tp >= d:
                        width_above += g0
                    elif tp + g1 > c:
                        rest += _segment_box_area(fp, tp, g0, g1, a, b, c, d)
                else:
                    rest += _segment_box_area(fp, tp, g0, g1, a, b, c, d)
            fp += g0
            tp += g1
    return twice_inside, width_inside, width_above, rest


def box_area_polyline(const double[::1] fpr, const double[::1] tpr,
                      double a, double b, double c, double d):
    """Area in the box (rates) of the polyline through (fpr[k], tpr[k]).

    The points run from (0, 0) to (1, 1), both coordinates non-decreasing.
    Compensated (Neumaier) summation over the segments.
    """
    cdef Py_ssize_t k, n = fpr.shape[0]
    cdef double total = 0.0, compensation = 0.0, term, sum_
    with nogil:
        for k in range(n - 1):
            if fpr[k] >= b:
                break
            if fpr[k + 1] <= fpr[k] or fpr[k + 1] <= a:
                continue
            term = _segment_box_area(fpr[k], tpr[k], fpr[k + 1] - fpr[k],
                                     tpr[k + 1] - tpr[k], a, b, c, d)
            sum_ = total + term
            if abs(total) >= abs(term):
                compensation += (total - sum_) + term
            else:
                compensation += (term - sum_) + total
            total = sum_
    return total + compensation
