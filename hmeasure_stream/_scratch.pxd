# Declarations shared by the from-scratch kernels (_scratch.pyx) and, later,
# the dynamic structures that are tested against them.

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


cdef inline count_t orientation(count_t ox, count_t oy, count_t ax, count_t ay,
                                count_t bx, count_t by) noexcept nogil:
    """Twice the signed area of the triangle o, a, b.

    Positive when o -> a -> b turns counter-clockwise, zero when collinear.
    On the ROC plane (x = false positives, y = true positives) a vertex a of
    the upper hull must make a strictly clockwise turn, i.e. a negative value.
    """
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


cdef inline void compensated_add(double* total, double* compensation,
                                 double value) noexcept nogil:
    """Neumaier's compensated summation step: total + compensation is the sum."""
    cdef double t = total[0] + value
    if (total[0] if total[0] >= 0 else -total[0]) >= (value if value >= 0 else -value):
        compensation[0] += (total[0] - t) + value
    else:
        compensation[0] += (value - t) + total[0]
    total[0] = t
