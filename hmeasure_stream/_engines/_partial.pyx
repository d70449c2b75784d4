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

With class counts, ``box_area_counts`` (which takes the two classes' sorted
scores and forms the groups as it goes) takes the box's sides as the floor
and ceiling of their exact values in counts, so every comparison of an
integer corner with a side is exact, and returns the few segments crossing a
side instead of their area, for ``partial.py`` to cut in exact rational
arithmetic.
"""

from hmeasure_stream._engines._numeric cimport compensated_add, count_t, int64_t, next_group

# The most segments that cross a side of the box: one per side.
cdef enum:
    MAX_CUTS = 4


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


def box_area_counts(const double[::1] neg, const double[::1] pos,
                    int64_t floor_a, int64_t ceil_a, int64_t floor_b, int64_t ceil_b,
                    int64_t floor_c, int64_t ceil_c, int64_t floor_d, int64_t ceil_d):
    """The box's area of the ROC curve of class counts, exactly, in integer parts.

    ``neg`` and ``pos`` are each class's scores sorted ascending; the counts
    of each distinct score are taken as the pass goes (``next_group``), with
    no group arrays.  The sides A, B (class 0 counts) and C, D (class 1
    counts) are given by the floor and ceiling of their exact values (equal
    when a side is an integer), 0 <= A < B <= N0 and 0 <= C < D <= N1.  A
    corner of the curve is a pair of integers, so each comparison with a side
    is exact in integers: u >= A iff u >= ceil(A), u > A iff u > floor(A),
    and so on.  One pass from the highest score down, stopped at the first
    segment starting at or beyond B, as ``box_area_groups``.

    Returns ``(twice_inside, width_inside, width_above, cuts)``: the area is
    ``twice_inside / 2 - C * width_inside + (D - C) * width_above`` plus the
    area in the box under each segment ``(u0, t0, g0, g1)`` of ``cuts`` (at
    most four: those crossing a side, in integers, for an exact rational
    cut).
    """
    cdef Py_ssize_t i = neg.shape[0] - 1, j = pos.shape[0] - 1
    cdef const double* neg_first = &neg[0] if neg.shape[0] else NULL
    cdef const double* pos_first = &pos[0] if pos.shape[0] else NULL
    cdef int64_t g0, g1, fp = 0, tp = 0
    cdef int64_t twice_inside = 0, width_inside = 0, width_above = 0
    cdef int64_t cuts[MAX_CUTS][4]
    cdef int k, n_cuts = 0, extra = 0
    with nogil:
        while (i >= 0 or j >= 0) and fp < ceil_b:  # (u0 >= B: done)
            next_group(neg_first, &i, pos_first, &j, &g0, &g1)
            # Vertical segments have no area; the others need u0 + g0 > A and
            # a height above C somewhere (t0 + g1 > C).
            if g0 > 0 and fp + g0 > floor_a and tp + g1 > floor_c:
                if fp >= ceil_a and fp + g0 <= floor_b and (
                        (tp >= ceil_c and tp + g1 <= floor_d) or tp >= ceil_d):
                    if tp >= ceil_d:  # at or above D over its whole width
                        width_above += g0
                    else:  # inside the box
                        twice_inside += g0 * (2 * tp + g1)
                        width_inside += g0
                elif n_cuts < MAX_CUTS:
                    cuts[n_cuts][0] = fp
                    cuts[n_cuts][1] = tp
                    cuts[n_cuts][2] = g0
                    cuts[n_cuts][3] = g1
                    n_cuts += 1
                else:
                    extra += 1
            fp += g0
            tp += g1
    if extra:
        raise AssertionError("more than four segments cross a side of the box")
    return (twice_inside, width_inside, width_above,
            [(cuts[k][0], cuts[k][1], cuts[k][2], cuts[k][3]) for k in range(n_cuts)])
