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
scores and forms the groups as it goes) and ``box_area_count_groups`` (a
range of groups starting at given counts, as dask's ranges of scores) share
one step (``_count_segment``), which takes the box's sides as the floor
and ceiling of their exact values in counts, so every comparison of an
integer corner with a side is exact, and returns the few segments crossing a
side instead of their area, for ``partial.py`` to cut in exact rational
arithmetic.
"""

from hmeasure_stream._engines._numeric cimport compensated_add, int64_t, next_group

# The most segments that cross a side of the box: one per side.
cdef enum:
    MAX_CUTS = 4


def box_area_groups(const double[::1] group_neg, const double[::1] group_pos,
                    double a, double b, double c, double d):
    """Area in the box of the ROC curve of the groups (highest score first).

    a, b are in the units of ``group_neg`` and c, d in those of
    ``group_pos`` (0 <= a < b <= N0, 0 <= c < d <= N1).  One pass from the
    highest score down, stopped at the first segment beyond b.  Segments
    lying wholly inside the box add g0 (T + g1 / 2 - c), those wholly between
    a and b at or above d add g0 (d - c), and only the few segments crossing
    a side of the box are cut (``segment_box_area``).

    The class weights are float64 (class counts go to ``box_area_counts``,
    exact); the area is summed with compensation (every term is >= 0).
    """
    cdef Py_ssize_t k, m = group_neg.shape[0]
    cdef double g0, g1, u0, t0
    cdef double rest = 0.0, rest_comp = 0.0
    cdef double fp_sum = 0.0, fp_comp = 0.0, tp_sum = 0.0, tp_comp = 0.0
    with nogil:
        for k in range(m):
            u0 = fp_sum + fp_comp
            t0 = tp_sum + tp_comp
            if u0 >= b:
                break
            g0 = group_neg[k]
            g1 = group_pos[k]
            if g0 > 0 and u0 + g0 > a:
                if a <= u0 and u0 + g0 <= b:
                    if c <= t0 and t0 + g1 <= d:
                        compensated_add(&rest, &rest_comp, g0 * ((t0 - c) + 0.5 * g1))
                    elif t0 >= d:
                        compensated_add(&rest, &rest_comp, g0 * (d - c))
                    elif t0 + g1 > c:
                        compensated_add(&rest, &rest_comp,
                                        segment_box_area(u0, t0, g0, g1, a, b, c, d))
                else:
                    compensated_add(&rest, &rest_comp,
                                    segment_box_area(u0, t0, g0, g1, a, b, c, d))
            compensated_add(&fp_sum, &fp_comp, g0)
            compensated_add(&tp_sum, &tp_comp, g1)
    return rest + rest_comp


cdef struct BoxParts:
    # The integer parts of a box's area in class counts (box_area_counts), and the
    # floor and ceiling of each side A, B, C, D that its segments are compared with.
    int64_t bounds[8]
    int64_t twice_inside
    int64_t width_inside
    int64_t width_above
    int64_t cuts[MAX_CUTS][4]
    int n_cuts
    int extra


cdef inline BoxParts _no_parts(int64_t floor_a, int64_t ceil_a, int64_t floor_b,
                               int64_t ceil_b, int64_t floor_c, int64_t ceil_c,
                               int64_t floor_d, int64_t ceil_d) noexcept nogil:
    """Empty parts of the box whose sides have these floors and ceilings."""
    cdef BoxParts parts
    parts.bounds[0], parts.bounds[1] = floor_a, ceil_a
    parts.bounds[2], parts.bounds[3] = floor_b, ceil_b
    parts.bounds[4], parts.bounds[5] = floor_c, ceil_c
    parts.bounds[6], parts.bounds[7] = floor_d, ceil_d
    parts.twice_inside = parts.width_inside = parts.width_above = 0
    parts.n_cuts = parts.extra = 0
    return parts


cdef inline void _count_segment(BoxParts* parts, int64_t fp, int64_t tp, int64_t g0,
                                int64_t g1) noexcept nogil:
    """Add the segment (fp, tp) -> (fp + g0, tp + g1) to the box's integer parts.

    A corner of the curve is a pair of integers, so each comparison with a
    side is exact against its floor and ceiling (u >= A iff u >= ceil(A),
    u > A iff u > floor(A), ...).
    """
    cdef const int64_t* bounds = parts.bounds
    cdef int64_t floor_a = bounds[0], ceil_a = bounds[1], floor_b = bounds[2]
    cdef int64_t floor_c = bounds[4], ceil_c = bounds[5], floor_d = bounds[6]
    cdef int64_t ceil_d = bounds[7]
    # Vertical segments have no area; the others need u0 + g0 > A and a height
    # above C somewhere (t0 + g1 > C).
    if not (g0 > 0 and fp + g0 > floor_a and tp + g1 > floor_c):
        return
    if fp >= ceil_a and fp + g0 <= floor_b and (
            (tp >= ceil_c and tp + g1 <= floor_d) or tp >= ceil_d):
        if tp >= ceil_d:  # at or above D over its whole width
            parts.width_above += g0
        else:  # inside the box
            parts.twice_inside += g0 * (2 * tp + g1)
            parts.width_inside += g0
    elif parts.n_cuts < MAX_CUTS:
        parts.cuts[parts.n_cuts][0] = fp
        parts.cuts[parts.n_cuts][1] = tp
        parts.cuts[parts.n_cuts][2] = g0
        parts.cuts[parts.n_cuts][3] = g1
        parts.n_cuts += 1
    else:
        parts.extra += 1


cdef _parts_result(BoxParts* parts):
    if parts.extra:
        raise AssertionError("more than four segments cross a side of the box")
    return (parts.twice_inside, parts.width_inside, parts.width_above,
            [(parts.cuts[k][0], parts.cuts[k][1], parts.cuts[k][2], parts.cuts[k][3])
             for k in range(parts.n_cuts)])


def box_area_counts(const double[::1] neg, const double[::1] pos,
                    int64_t floor_a, int64_t ceil_a, int64_t floor_b, int64_t ceil_b,
                    int64_t floor_c, int64_t ceil_c, int64_t floor_d, int64_t ceil_d):
    """The box's area of the ROC curve of class counts, exactly, in integer parts.

    ``neg`` and ``pos`` are each class's scores sorted ascending; the counts
    of each distinct score are taken as the pass goes (``next_group``), with
    no group arrays.  The sides A, B (class 0 counts) and C, D (class 1
    counts) are given by the floor and ceiling of their exact values (equal
    when a side is an integer), 0 <= A < B <= N0 and 0 <= C < D <= N1; each
    comparison of a corner with a side is exact in integers
    (``_count_segment``).  One pass from the highest score down, stopped at
    the first segment starting at or beyond B.

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
    cdef BoxParts parts = _no_parts(floor_a, ceil_a, floor_b, ceil_b, floor_c, ceil_c,
                                    floor_d, ceil_d)
    with nogil:
        while (i >= 0 or j >= 0) and fp < ceil_b:  # (u0 >= B: done)
            next_group(neg_first, &i, pos_first, &j, &g0, &g1)
            _count_segment(&parts, fp, tp, g0, g1)
            fp += g0
            tp += g1
    return _parts_result(&parts)


def box_area_count_groups(const int64_t[::1] group_neg, const int64_t[::1] group_pos,
                          int64_t fp, int64_t tp,
                          int64_t floor_a, int64_t ceil_a, int64_t floor_b, int64_t ceil_b,
                          int64_t floor_c, int64_t ceil_c, int64_t floor_d, int64_t ceil_d):
    """The integer parts of ``box_area_counts`` for a range of groups of class counts.

    The groups (highest score first) start at the corner (fp, tp) of the
    whole curve: the class counts above the range (dask's ranges of scores).
    """
    cdef Py_ssize_t k, m = group_neg.shape[0]
    cdef BoxParts parts = _no_parts(floor_a, ceil_a, floor_b, ceil_b, floor_c, ceil_c,
                                    floor_d, ceil_d)
    with nogil:
        for k in range(m):
            if fp >= ceil_b:  # (u0 >= B: done)
                break
            _count_segment(&parts, fp, tp, group_neg[k], group_pos[k])
            fp += group_neg[k]
            tp += group_pos[k]
    return _parts_result(&parts)
