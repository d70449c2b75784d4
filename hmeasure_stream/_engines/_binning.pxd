# Declarations of the binned AUC's bin rule: the bin of a score is a pure
# function of the score and the frozen parameters, computed only here (the
# batch kernels of _binning.pyx and any streaming structure cimport it).

from libc.math cimport log


cdef inline double loglog(double r, double alpha) noexcept nogil:
    """The continuous log-log transform of r in [0, 1] (-inf at 0, +inf at 1).

    log(log 2) is subtracted in both branches so that the transform is
    continuous (and equal to 1/2) at r = 1/2.
    """
    cdef double log_log_2 = -0.36651292058166435  # log(log(2.0)), the nearest double
    if r <= 0.5:
        return 0.5 - alpha * (log(-log(r)) - log_log_2)
    return 0.5 + alpha * (log(-log(1.0 - r)) - log_log_2)


cdef inline Py_ssize_t interior_bin(double r, Py_ssize_t m, int transform,
                                    double alpha) noexcept nogil:
    """The bin of r with 0 < r < 1: min(floor(m u), m - 1) for u = r or loglog(r)."""
    cdef Py_ssize_t j
    cdef double u = r
    if transform != 0:  # 0: linear bins, 1: log-log
        u = loglog(r, alpha)
        # Branch-free clamps to [0, 1].
        u = u if u > 0.0 else 0.0
        u = u if u < 1.0 else 1.0
    j = <Py_ssize_t>(m * u)
    return j - (j >= m)


cdef inline Py_ssize_t end_bin(double r, Py_ssize_t m) noexcept nogil:
    """The bin of r outside (0, 1): the last bin for r >= 1, else bin 0 (also NaN)."""
    return m - 1 if r > 0.0 else 0


cdef inline Py_ssize_t bin_of(double s, double lo, double span, Py_ssize_t m,
                              int transform, double alpha) noexcept nogil:
    """The bin of score ``s`` with ``r = (s - lo) / span`` (rule in _binning.pyx)."""
    cdef double r = (s - lo) / span
    if r > 0.0 and r < 1.0:
        return interior_bin(r, m, transform, alpha)
    return end_bin(r, m)
