# Declarations of the partial-area kernels: the area inside a box under one
# straight segment of a ROC curve, shared by the from-scratch kernel and the
# structures that will report a partial AUC; the floor and ceiling of a side
# of the box in class counts.

from libc.math cimport ceil, floor, fma


cdef inline double segment_box_area(double u0, double t0, double du, double dt,
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


cdef inline void exact_floor_ceil(double rate, double count, double* low,
                                  double* high) noexcept nogil:
    """The floor and ceiling of the exact product ``rate * count``.

    ``count`` a non-negative integer below 2**53, ``rate`` in [0, 1].  The
    rounded product p has the exact one's floor and ceiling unless p is an
    integer, which the sign of the product's rounding error (exact, by fma)
    then settles: an integer strictly between the exact product and p would
    be nearer to the product than p.
    """
    cdef double product = rate * count
    cdef double error = fma(rate, count, -product)
    low[0] = floor(product)
    high[0] = ceil(product)
    if low[0] == product:
        if error < 0.0:
            low[0] = product - 1.0
        elif error > 0.0:
            high[0] = product + 1.0
