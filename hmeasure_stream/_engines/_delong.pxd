# DeLong's variance of the AUC maintained under insertion and deletion: the
# rules of the blocked engine (``BlockedAUCEngine``), kept apart from its
# bookkeeping of blocks and nodes.  The placement numerators
# are, for a class 1 point, a = 2 (class 0 weight below it) + (class 0 weight at
# its score) and, for a class 0 point, b = 2 (class 1 weight above it) + (class 1
# weight at its score); the variance needs 2U = sum u a = sum v b and the sums of
# squares Q1 = sum u a^2, Q0 = sum v b^2 (exact, unit mode) or the centred ones
# M1 = sum u (a - 2U / W1)^2, M0 = sum v (b - 2U / W0)^2 (weighted mode).

from libc.math cimport NAN, sqrt
from libc.stdint cimport int64_t, uint64_t

from hmeasure_stream._engines._numeric cimport (
    wide_add,
    wide_difference,
    wide_product,
    wide_subtract,
    wide_times,
    wide_uint,
)


cdef inline void wide_accumulate(wide_uint* total, wide_uint value) noexcept nogil:
    """``total += value`` (modulo 2**128)."""
    wide_add(total, value.low)
    total.high += value.high


cdef inline uint64_t exact_pairs(double twice_u, double compensation) noexcept nogil:
    """Unit mode: 2U, kept as a compensated pair of integers in doubles, as an integer."""
    return <uint64_t>(<int64_t>twice_u + <int64_t>compensation)


cdef inline void track_squares(wide_uint* square_pos, wide_uint* square_neg, uint64_t twice_u,
                               double pairs_above, bint is_pos, bint adding,
                               double below_neg, double above_pos, double at_neg,
                               double at_pos) noexcept nogil:
    """Unit mode: Q1 (``square_pos``) and Q0 (``square_neg``) after one point in or out.

    ``twice_u``: the exact 2U after the change (``exact_pairs``); ``pairs_above``: 2U of the
    points above the score; the counts around the score are from before the
    change (a removal is the addition to the points without it, undone).
    Adding a class 1 point at s gives it a = 2 N< + N= and raises b by 2 for
    each class 0 point below s and by 1 for those at s: sum (b + 2)^2 - b^2 =
    4 B + 4 N< over those below, where B = sum b = 2U(< s) + 2 N< (P> + P=),
    and N= (2 b= + 1) at s.  A class 0 point likewise with the class 1 points
    above it.  The whole 2U (before the change) is 2U(< s) + 2U(> s) + 2 N<
    (P> + P=) + N= (2 P> + P=), so B = 2U - 2U(> s) - N= (2 P> + P=).  Exact
    modulo 2**64 per term and 2**128 in the sums: the true values are below
    both for fewer than 2**31 points; 2U(> s) is exact while n0 n1 < 2**52
    (integers in doubles).
    """
    cdef uint64_t below = <uint64_t>below_neg, above = <uint64_t>above_pos
    cdef uint64_t at_n = <uint64_t>at_neg, at_p = <uint64_t>at_pos, own, other, pairs
    cdef wide_uint* own_sum
    cdef wide_uint* other_sum
    if is_pos:
        if not adding:
            at_p -= 1
        own = 2 * below + at_n
        # 2U of the points without this one (``twice_u`` is after the change).
        pairs = twice_u
        if adding:
            pairs -= own
        pairs -= <uint64_t>pairs_above + at_n * (2 * above + at_p)
        other = 4 * pairs + 4 * below + at_n * (2 * (2 * above + at_p) + 1)
        own_sum = square_pos
        other_sum = square_neg
    else:
        if not adding:
            at_n -= 1
        own = 2 * above + at_p
        other = (4 * (<uint64_t>pairs_above + 2 * (below + at_n) * above)
                 + 4 * above + at_p * (2 * (2 * below + at_n) + 1))
        own_sum = square_neg
        other_sum = square_pos
    if adding:
        wide_add(own_sum, own * own)
        wide_add(other_sum, other)
    else:
        wide_subtract(own_sum, own * own)
        wide_subtract(other_sum, other)


cdef inline double delong_variance(bint weighted, double weight_neg, double weight_pos,
                                   uint64_t exact_twice_u,
                                   wide_uint square_pos, wide_uint square_neg,
                                   double centred_square_pos, double centred_square_neg,
                                   double scale) noexcept nogil:
    """DeLong's variance of the AUC, weights as frequencies in units of ``scale``.

    With totals W1, W0 (stored units), placements V of mean A (the AUC) and
    q1 = sum u V^2 / W1: var = (q1 - A^2) / (scale W1 - 1) + (q0 - A^2) /
    (scale W0 - 1).  Unit mode: q1 - A^2 = (m Q1 - T^2) / (4 m^2 n^2), Q1
    the exact ``square_pos``, T = 2U (``exact_twice_u``), formed exactly in
    128 bits and rounded once.  Weighted mode: q1 - A^2 = M1 / (4 W0^2 W1), M1
    the numerators' centred sum of squares (``centred_square_pos``), no
    subtraction.  nan while a class holds a total weight <= 1 (in caller units).
    """
    cdef double denominator, spread_pos, spread_neg
    cdef wide_uint pairs_squared
    if not (scale * weight_neg > 1.0 and scale * weight_pos > 1.0):
        return NAN
    if not weighted:
        pairs_squared = wide_product(exact_twice_u, exact_twice_u)
        denominator = 4.0 * (weight_neg * weight_pos) * (weight_neg * weight_pos)
        spread_pos = wide_difference(wide_times(square_pos, <uint64_t>weight_pos),
                                     pairs_squared) / denominator
        spread_neg = wide_difference(wide_times(square_neg, <uint64_t>weight_neg),
                                     pairs_squared) / denominator
    else:
        spread_pos = centred_square_pos / (4.0 * weight_neg * weight_neg) / weight_pos
        spread_neg = centred_square_neg / (4.0 * weight_pos * weight_pos) / weight_neg
    return (spread_pos / (scale * weight_pos - 1.0)
            + spread_neg / (scale * weight_neg - 1.0))


cdef inline double caller_units(double inverse_scale, double newest_decay) noexcept nogil:
    """What a stored weight of 1 counts in the caller's units, relative to the newest
    point with decay (the ``scale`` of ``delong_variance``); nan while no unit is fixed."""
    if inverse_scale > 0.0:
        return 1.0 / (inverse_scale * newest_decay)
    return NAN


cdef inline void delong_interval(double auc, double variance, double quantile_low,
                                 double quantile_high, double* out) noexcept nogil:
    """DeLong's variance, and the AUC -+ the normal quantiles times its root clipped to
    [0, 1] (as ``auc_ci``), into out[0..2]; nan where the variance is."""
    cdef double spread
    out[0] = variance
    if variance != variance:
        out[1] = NAN
        out[2] = NAN
        return
    spread = sqrt(variance)
    out[1] = min(max(auc + spread * quantile_low, 0.0), 1.0)
    out[2] = min(max(auc + spread * quantile_high, 0.0), 1.0)
