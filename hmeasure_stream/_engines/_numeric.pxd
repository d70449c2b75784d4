# Numeric helpers and fused types shared by every engine: the label and
# count types the kernels accept, the exact orientation test of the ROC hull,
# compensated summation and the storage of weights in units of a power of
# two.  Declarations only (inline), no module of its own.

from libc.math cimport NAN, fma, frexp, ldexp
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

# Every label dtype the Python layer hands to the kernels without a copy
# (bool arrays are viewed as uint8; float16 and longdouble are converted).
ctypedef fused label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double

# Class weights of a ROC point: exact integers for unit weights, doubles for
# sample weights.
ctypedef fused count_t:
    int64_t
    double


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define HMS_PREFETCH(address) __builtin_prefetch(address)
    #else
    #define HMS_PREFETCH(address) ((void)(address))
    #endif
    """
    # A hint to start loading a cache line (nothing where the compiler has none).
    void prefetch "HMS_PREFETCH"(const void* address) noexcept nogil


cdef inline double unit_auc(int64_t twice_u, int64_t n_neg, int64_t n_pos) noexcept nogil:
    """The AUC of unit-weight classes from 2U (an exact integer), nan without a class: one
    rounding of the exact ratio."""
    if n_neg > 0 and n_pos > 0:
        return <double>twice_u / (2.0 * <double>n_neg * <double>n_pos)
    return NAN


cdef inline bint clockwise(count_t first_x, count_t first_y,
                           count_t second_x, count_t second_y) noexcept nogil:
    """Whether edge ``second`` turns strictly clockwise after edge ``first``.

    On the ROC plane (x = false positives, y = true positives) every vertex of
    the upper hull is such a turn.  Exact for integer weights.  For float
    weights a turn whose cross product is within a relative 1e-12 of the
    magnitude of its two terms counts as straight, so rounding never keeps a
    collinear vertex (the edges are sums of non-negative weights, accurate to
    far better than that).
    """
    cdef count_t cross = first_x * second_y - first_y * second_x
    if count_t is int64_t:
        return cross < 0
    else:
        return cross < -1e-12 * (abs(first_x * second_y) + abs(first_y * second_x))


cdef inline bint at_least_as_steep(double ux, double uy, double vx, double vy) noexcept nogil:
    """slope(u) >= slope(v) for vectors with non-negative components, neither zero; exact.

    The sign of uy vx - vy ux exactly, whatever the spread of the weights:
    rounding is monotone, so two rounded products that differ are ordered as
    the exact ones; when they are equal, the exact products differ by the
    difference of their rounding errors, which ``fma`` gives exactly (stored
    weights lie within 2**-400 .. 2**400, so nothing underflows).  The second
    branch is rare: the test costs two products and a comparison.
    """
    cdef double first = uy * vx, second = vy * ux
    if first != second:
        return first > second
    return fma(uy, vx, -first) >= fma(vy, ux, -second)


cdef inline void compensated_add(double* total, double* compensation,
                                 double value) noexcept nogil:
    """Neumaier's compensated summation step: total + compensation is the sum."""
    cdef double t = total[0] + value
    if (total[0] if total[0] >= 0 else -total[0]) >= (value if value >= 0 else -value):
        compensation[0] += (total[0] - t) + value
    else:
        compensation[0] += (value - t) + total[0]
    total[0] = t


# Weights are stored in a structure's own units: times a power of two fixed by
# the first positive weight, which brings it into [1, 2) (exact: only the
# exponent changes).  Stored positive weights lie within 2**-400 .. 2**400, so
# sums of 2**31 of them and their products stay far inside the float64 range.

cdef inline bint storable(double stored) noexcept nogil:
    """Whether a positive weight in stored units is within 2**-400 .. 2**400."""
    return 3.8725919148493183e-121 <= stored <= 2.5822498780869086e+120  # 2**-400, 2**400


cdef inline double inverse_scale_of(double weight) noexcept nogil:
    """The power of two that brings a positive weight into [1, 2) (within 2**+-1022)."""
    cdef int exponent
    frexp(weight, &exponent)
    exponent -= 1
    if exponent < -1022:
        exponent = -1022
    elif exponent > 1022:
        exponent = 1022
    return ldexp(1.0, -exponent)


cdef inline bint stored_weight(double weight, double inverse, double* stored) noexcept nogil:
    """``weight`` in the structure's units; False if it cannot be stored (zero always can)."""
    stored[0] = weight * inverse
    return weight == 0.0 or storable(stored[0])


# Exact unsigned 128-bit integers for sums of squared placement counts
# (DeLong's variance with unit weights), portable C: two 64-bit halves,
# arithmetic modulo 2**128.

ctypedef struct wide_uint:
    uint64_t low
    uint64_t high


cdef inline void wide_add(wide_uint* total, uint64_t value) noexcept nogil:
    """``total += value`` (modulo 2**128)."""
    cdef uint64_t low = total.low + value
    if low < value:
        total.high += 1
    total.low = low


cdef inline void wide_subtract(wide_uint* total, uint64_t value) noexcept nogil:
    """``total -= value`` (modulo 2**128)."""
    if total.low < value:
        total.high -= 1
    total.low -= value


cdef inline wide_uint wide_product(uint64_t first, uint64_t second) noexcept nogil:
    """The exact 128-bit product of two 64-bit integers (by 32-bit halves)."""
    cdef uint64_t mask = 0xFFFFFFFF
    cdef uint64_t first_low = first & mask, first_high = first >> 32
    cdef uint64_t second_low = second & mask, second_high = second >> 32
    cdef uint64_t low_low = first_low * second_low
    cdef uint64_t low_high = first_low * second_high
    cdef uint64_t high_low = first_high * second_low
    cdef uint64_t middle = (low_low >> 32) + (low_high & mask) + (high_low & mask)
    cdef wide_uint product
    product.low = (middle << 32) | (low_low & mask)
    product.high = (first_high * second_high + (low_high >> 32) + (high_low >> 32)
                    + (middle >> 32))
    return product


cdef inline wide_uint wide_times(wide_uint value, uint64_t factor) noexcept nogil:
    """``value * factor`` (modulo 2**128)."""
    cdef wide_uint product = wide_product(value.low, factor)
    product.high += value.high * factor
    return product


cdef inline double wide_difference(wide_uint first, wide_uint second) noexcept nogil:
    """``first - second`` as a double (correct to an ulp); ``first >= second``."""
    cdef uint64_t high = first.high - second.high
    if first.low < second.low:
        high -= 1
    return <double>high * 18446744073709551616.0 + <double>(first.low - second.low)


cdef inline double next_group(const double* neg, Py_ssize_t* i, const double* pos,
                              Py_ssize_t* j, int64_t* group_neg,
                              int64_t* group_pos) noexcept nogil:
    """The next distinct score from the top of two ascending class arrays, and its counts.

    ``i`` and ``j`` index the highest score of each class not taken yet (-1
    when none is left; one must be >= 0) and move past the score taken.
    The one merge step of every from-scratch pass over sorted classes.
    """
    cdef double value
    if j[0] < 0 or (i[0] >= 0 and neg[i[0]] >= pos[j[0]]):
        value = neg[i[0]]
    else:
        value = pos[j[0]]
    group_neg[0] = 0
    while i[0] >= 0 and neg[i[0]] == value:
        group_neg[0] += 1
        i[0] -= 1
    group_pos[0] = 0
    while j[0] >= 0 and pos[j[0]] == value:
        group_pos[0] += 1
        j[0] -= 1
    return value
