"""Compiled kernel of ``partial.py``: the area of the ROC curve inside a box.

Private module.  The ROC curve is given by its groups (``_scratch``): the
class weights of each distinct score, highest score first.  The curve runs
from the highest score down, so a score shared by g0 negatives and g1
positives, reached at (F, T), is the straight segment from (F, T) to
(F + g0, T + g1).  The kernel measures the area of

    {(u, t) : a <= u <= b,  c <= t <= min(roc(u), d)}

(the region under the curve, above t = c and at most d, between u = a and
u = b) in the units of the groups: class counts, or class weights.  The area
under one segment is ``segment_box_area`` (``_partial.pxd``).
"""

from hmeasure_stream._engines._numeric cimport compensated_add, count_t, int64_t


def box_area_groups(const count_t[::1] group_neg, const count_t[::1] group_pos,
                    double a, double b, double c, double d):
    """Area in the box of the ROC curve of the groups (highest score first).

    a, b are in the units of ``group_neg`` and c, d in those of
    ``group_pos`` (0 <= a < b <= N0, 0 <= c < d <= N1).  One pass from the
    highest score down, stopped at the first segment beyond b.  Segments
    lying wholly inside the box add g0 (T + g1 / 2 - c), those wholly between
    a and b at or above d add g0 (d - c), and only the few segments crossing
    a side of the box are cut (``segment_box_area``).

    For int64 counts the area is exact but for the cut segments: returns
    ``(twice_inside, width_inside, width_above, rest)`` with the area equal
    to ``twice_inside / 2 - c * width_inside + (d - c) * width_above + rest``,
    the first three exact integers (sums of g0 (2T + g1), g0 and g0) and
    ``rest`` the cut segments' area.  For float64 weights returns the area,
    summed with compensation (every term is >= 0).
    """
    cdef Py_ssize_t k, m = group_neg.shape[0]
    cdef count_t g0, g1
    cdef int64_t fp = 0, tp = 0
    cdef int64_t twice_inside = 0, width_inside = 0, width_above = 0
    cdef double rest = 0.0, rest_comp = 0.0
    cdef double fp_sum = 0.0, fp_comp = 0.0, tp_sum = 0.0, tp_comp = 0.0
    cdef double u0, t0
    with nogil:
        for k in range(m):
            if count_t is int64_t:
                u0 = <double>fp
                t0 = <double>tp
            else:
                u0 = fp_sum + fp_comp
                t0 = tp_sum + tp_comp
            if u0 >= b:
                break
            g0 = group_neg[k]
            g1 = group_pos[k]
            if g0 > 0 and u0 + g0 > a:
                if a <= u0 and u0 + g0 <= b:
                    if c <= t0 and t0 + g1 <= d:
                        if count_t is int64_t:
                            twice_inside += g0 * (2 * tp + g1)
                            width_inside += g0
                        else:
                            compensated_add(&rest, &rest_comp, g0 * ((t0 - c) + 0.5 * g1))
                    elif t0 >= d:
                        if count_t is int64_t:
                            width_above += g0
                        else:
                            compensated_add(&rest, &rest_comp, g0 * (d - c))
                    elif t0 + g1 > c:
                        compensated_add(&rest, &rest_comp,
                                        segment_box_area(u0, t0, g0, g1, a, b, c, d))
                else:
                    compensated_add(&rest, &rest_comp,
                                    segment_box_area(u0, t0, g0, g1, a, b, c, d))
            if count_t is int64_t:
                fp += g0
                tp += g1
            else:
                compensated_add(&fp_sum, &fp_comp, g0)
                compensated_add(&tp_sum, &tp_comp, g1)
    if count_t is int64_t:
        return twice_inside, width_inside, width_above, rest + rest_comp
    return rest + rest_comp
