"""Compiled kernels of the binned AUC (``binned.py``).

Private module.  The bin of a score is a pure function of the score and the
frozen parameters (number of bins, score range, transform and its alpha):
the inline helpers of ``_binning.pxd`` (``loglog``, ``interior_bin``,
``end_bin``, ``bin_of``) are the only places that compute it, so the batch
function and any later streaming structure assign every score to the same
bin.

With ``r = (s - lo) / (hi - lo)`` the score mapped to [0, 1]:

* linear: ``j = min(floor(m r), m - 1)``, with ``r <= 0`` (and NaN) in bin 0
  and ``r >= 1`` in bin ``m - 1``;
* log-log: the same rule applied to ``loglog(r)`` for ``0 < r < 1``; ``r <= 0``
  goes to bin 0 and ``r >= 1`` to bin ``m - 1``.
"""

from libc.math cimport isfinite

from hmeasure_stream._engines._numeric cimport int64_t, label_t

TRANSFORM_LINEAR = 0
TRANSFORM_LOGLOG = 1


def loglog_array(const double[::1] r, double alpha, double[::1] out):
    """``out[k] = loglog(r[k], alpha)`` for r in [0, 1] (checked by the caller)."""
    cdef Py_ssize_t k
    with nogil:
        for k in range(r.shape[0]):
            out[k] = loglog(r[k], alpha)


def bin_of_score(double score, double lo, double span, Py_ssize_t m, int transform,
                 double alpha):
    """The bin of one finite score (a streaming structure's single point)."""
    return bin_of(score, lo, span, m, transform, alpha)


def bin_indices(const double[::1] scores, double lo, double span, Py_ssize_t m,
                int transform, double alpha, int64_t[::1] out):
    """``out[k]`` = the bin of ``scores[k]`` (finite scores, checked by the caller)."""
    cdef Py_ssize_t k
    with nogil:
        for k in range(scores.shape[0]):
            out[k] = bin_of(scores[k], lo, span, m, transform, alpha)


def count_bins(const label_t[::1] labels, const double[::1] scores,
               double lo, double span, double hi, Py_ssize_t m, int transform,
               double alpha, int64_t[::1] counts):
    """Add each point to ``counts[label * m + bin]`` in one pass.

    Returns ``(bad_label, bad_score, n_below, n_above)``: the flags are set
    when some label is neither 0 nor 1 or some score is not finite (the caller
    then locates the offending entry); ``n_below`` / ``n_above`` count the
    scores below ``lo`` / above ``hi``.  The same bins as ``bin_of``, with the
    checks moved to the (rare) end-bin branch: a score that is not finite
    never maps strictly inside (0, 1).
    """
    cdef Py_ssize_t n = labels.shape[0]
    cdef Py_ssize_t k, j, n_below = 0, n_above = 0
    cdef bint bad_label = False, bad_score = False
    cdef bint divide = span != 1.0
    cdef Py_ssize_t is_pos
    cdef double s, r
    with nogil:
        for k in range(n):
            is_pos = labels[k] == 1
            bad_label |= (labels[k] != 0) & (is_pos == 0)
            s = scores[k]
            # (s - lo) / 1 is s - lo: skip the division when span is 1.
            r = (s - lo) / span if divide else s - lo
            if r > 0.0 and r < 1.0:
                j = interior_bin(r, m, transform, alpha)
            else:
                bad_score |= not isfinite(s)
                n_below += s < lo
                n_above += s > hi
                j = end_bin(r, m)
            counts[is_pos * m + j] += 1
    return bad_label, bad_score, n_below, n_above


def count_bins_weighted(const label_t[::1] labels, const double[::1] scores,
                        const double[::1] weights, double lo, double span, double hi,
                        Py_ssize_t m, int transform, double alpha, double[::1] counts):
    """As ``count_bins`` with ``counts[label * m + bin] += weight``, one copy (2 m entries)."""
    cdef Py_ssize_t n = labels.shape[0]
    cdef Py_ssize_t k, n_below = 0, n_above = 0
    cdef bint bad_label = False, bad_score = False
    cdef Py_ssize_t is_pos
    cdef double s
    with nogil:
        for k in range(n):
            is_pos = labels[k] == 1
            bad_label |= (labels[k] != 0) & (is_pos == 0)
            s = scores[k]
            bad_score |= not isfinite(s)
            n_below += s < lo
            n_above += s > hi
            counts[is_pos * m + bin_of(s, lo, span, m, transform, alpha)] += weights[k]
    return bad_label, bad_score, n_below, n_above
