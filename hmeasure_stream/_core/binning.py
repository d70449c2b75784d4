"""The binned AUC's shared rules: options, the log-log alpha, the histograms, the result;
and the bound on every bin count (``check_bins``, the calibration errors' too).

Private.  ``binned_auc``, ``BinnedAUC``, the ``auc_binned`` window metric and
``hmeasure_stream.dask.binned_auc`` bin alike through these: the bin of a
score is the compiled kernel's (``_binning``), a pure function of the score
and the frozen parameters, so histograms made with the same parameters
merge exactly.
"""

import math
import warnings
from typing import Any

import numpy as np

from hmeasure_stream._engines import _binning
from hmeasure_stream._validation import (
    FloatArray,
    check_both_classes,
    check_integer,
    check_option,
    check_positive,
)

__all__ = ["ALPHA_SAMPLE", "MAX_BINS", "TRANSFORMS", "OutOfRangeScoresWarning", "check_bins",
           "check_score_range", "check_strict", "check_transform", "edges_of",
           "estimate_alpha", "histograms", "outside_range", "outside_span", "result_fields"]

TRANSFORMS = {None: _binning.TRANSFORM_LINEAR, "loglog": _binning.TRANSFORM_LOGLOG}

# At most this many bins, for every bin count of the package (the binned AUC's
# ``bins``, the calibration errors' ``n_bins``): the binned AUC's histograms and
# edges then take 400 MB, and a finer binning than 2**24 bins of a score range is no
# longer a summary of it.
MAX_BINS = 2**24


def check_bins(bins, name="bins"):
    """The number of bins (the argument ``name``, named in the message), an integer in
    [1, MAX_BINS]."""
    bins = check_integer(bins, name, 1)
    if bins > MAX_BINS:
        raise ValueError(
            f"{name} must be at most {MAX_BINS} (2**24), got {bins}: every bin takes "
            "memory (24 bytes or more) and a finer binning is no longer a summary")
    return bins


# Rule estimating the log-log alpha: the scores of an evenly strided sample
# of at most this many points ...
ALPHA_SAMPLE = 65_536
# ... mapped to [0, 1]; of those strictly inside (0, 1), this lower fraction of
# t = min(r, 1 - r) falls in the end bins ...
_ALPHA_TAIL = 0.01
# ... and t is capped at this value, so alpha <= 1 / (2 log 2).
_ALPHA_T_CAP = 0.25


class OutOfRangeScoresWarning(UserWarning):
    """Scores outside a binned AUC's ``score_range``: they were counted in the end bins.

    Issued by :func:`~hmeasure_stream.binned_auc` and
    :class:`~hmeasure_stream.BinnedAUC` when scores lie below or above
    ``score_range`` (default (0, 1), for probabilities): the scores of all of
    them share the two end bins, so the binned AUC is coarse (decision
    values of a linear SVM, say, need ``score_range`` set to their span).
    The message says how many and the span of the scores.  With
    ``strict=True`` such scores are refused (``ValueError``) instead.

    See Also
    --------
    hmeasure_stream.binned_auc : one of the two that issue it.

    Examples
    --------
    >>> import warnings
    >>> from hmeasure_stream import OutOfRangeScoresWarning, binned_auc
    >>> y, s = [0, 1, 0, 1], [-2.0, -1.0, 0.5, 3.0]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = binned_auc(y, s, n_bins=5)
    >>> caught[0].category is OutOfRangeScoresWarning, result.n_below, result.n_above
    (True, 2, 1)
    >>> result.auc, binned_auc(y, s, n_bins=5, score_range=(-2, 3)).auc  # exact: 0.75
    (0.625, 0.75)
    """


OutOfRangeScoresWarning.__module__ = "hmeasure_stream"


def check_strict(strict):
    return check_option(strict, "strict", (False, True))


def outside_range(n_outside, scores, score_range, strict, where, stacklevel=3):
    """Refuse (``strict``: ValueError) or warn of the ``n_outside`` of ``scores`` outside
    ``score_range``, naming how many and the scores' span; nothing if there are none."""
    if n_outside == 0:
        return
    outside_span(n_outside, scores.shape[0], float(np.min(scores)), float(np.max(scores)),
                 score_range, strict, where, stacklevel + 1)


def outside_span(n_outside, n_scores, low, high, score_range, strict, where, stacklevel=3):
    """``outside_range`` from the scores' number and span ``[low, high]`` (the sums of
    the partitions of a dask collection)."""
    if n_outside == 0:
        return
    if n_scores == 1:
        what = f"the score {low!r} lies"
    else:
        verb = "lies" if n_outside == 1 else "lie"
        what = f"{n_outside} of {n_scores} scores (in [{low!r}, {high!r}]) {verb}"
    message = f"{where}: {what} outside score_range {score_range}"
    if strict:
        raise ValueError(
            f"{message}, and strict=True refuses them: pass a score_range that holds the "
            "scores")
    warnings.warn(
        f"{message}; they are counted in the end bins, which coarsens the binned AUC. Pass "
        "a score_range that holds the scores, or strict=True to refuse them",
        OutOfRangeScoresWarning, stacklevel=stacklevel)


def check_transform(transform, loglog_alpha):
    transform = check_option(transform, "transform", tuple(TRANSFORMS))
    if loglog_alpha is None:
        return transform, None
    if transform is None:
        raise ValueError(
            f"loglog_alpha is only used with transform='loglog', got loglog_alpha="
            f"{loglog_alpha!r} with linear bins (transform=None)"
        )
    return transform, check_positive(loglog_alpha, "loglog_alpha")


def check_score_range(score_range: tuple[float, float]) -> tuple[float, float]:
    try:
        lo, hi = score_range
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError):
        raise ValueError(
            f"score_range must be a pair of numbers (low, high), got {score_range!r}"
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi and math.isfinite(hi - lo)):
        raise ValueError(
            f"score_range must be finite with low < high, got {score_range!r}"
        )
    return lo, hi


def _alpha_from_t(t):
    """The alpha that maps t (and 1 - t) to the end of [0, 1]: loglog(t) = 0."""
    return 0.5 / (math.log(-math.log(t)) - math.log(math.log(2.0)))


def estimate_alpha(scores, lo, hi):
    """The log-log alpha estimated from the scores (rule in ``binned_auc``'s Notes)."""
    step = -(-scores.shape[0] // ALPHA_SAMPLE)
    sample = (scores[::step] - lo) / (hi - lo)
    t = np.minimum(sample, 1.0 - sample)
    t = t[(t > 0.0) & (t <= 0.5)]
    if t.size == 0:
        return _alpha_from_t(_ALPHA_T_CAP)
    k = int(_ALPHA_TAIL * (t.size - 1))
    t_tail = float(np.partition(t, k)[k])
    return _alpha_from_t(min(t_tail, _ALPHA_T_CAP))


def edges_of(bins: int, lo: float, hi: float, transform: str | None,
             alpha: Any) -> FloatArray:
    """Scores at which the bin changes (nominal: the rule itself decides ties)."""
    u = np.arange(bins + 1, dtype=np.float64) / bins
    if transform is None:
        r = u
    else:
        # Inverse of the continuous transform: r = 2 ** -exp((1/2 - u) / alpha)
        # below 1/2, and 1 - r mirrored above.
        low = u <= 0.5
        r = np.empty_like(u)
        # A small alpha overflows the inner exp to inf far from 1/2: the edge is
        # then 0 (or 1) as it should be, so the overflow is not worth a warning.
        with np.errstate(over="ignore"):
            r[low] = np.exp(-math.log(2.0) * np.exp((0.5 - u[low]) / alpha))
            r[~low] = -np.expm1(-math.log(2.0) * np.exp((u[~low] - 0.5) / alpha))
        r[0], r[-1] = 0.0, 1.0
    edges = lo + (hi - lo) * r
    edges[0], edges[-1] = lo, hi
    return edges


def histograms(labels, scores, weights, lo, hi, bins, transform, alpha):
    """Class histograms of checked-shape points, counted by the compiled kernel.

    Returns ``(counts, flags)``: ``counts`` holds the class 0 histogram then
    the class 1 histogram (``2 bins`` int64 counts; float64 sums of
    ``weights`` unless it is None), ``flags`` the kernel's ``(bad_label,
    bad_score, n_below, n_above)``.
    """
    code = TRANSFORMS[transform]
    kernel_alpha = 0.0 if alpha is None else alpha
    if weights is not None:
        counts = np.zeros(2 * bins, dtype=np.float64)
        flags = _binning.count_bins_weighted(
            labels, scores, weights, lo, hi - lo, hi, bins, code, kernel_alpha, counts
        )
    else:
        counts = np.zeros(2 * bins, dtype=np.int64)
        flags = _binning.count_bins(labels, scores, lo, hi - lo, hi, bins, code, kernel_alpha,
                                    counts)
    return counts, flags


def result_fields(counts_neg, counts_pos, n_below, n_above, weighted, lo, hi, transform,
                        alpha, scale_exponent=0):
    """``BinnedAUCResult``'s fields from histograms ``counts_neg``, ``counts_pos``.

    The counts are int64, float64 if ``weighted``.

    Weighted histograms may be counted in units of ``2**scale_exponent``;
    the counts of the result are given in the caller's units.

    Histograms of disjoint parts made with the same parameters add up; this
    is the one place the AUC, the bound and the estimate are computed from
    them (``binned_auc`` and ``hmeasure_stream.dask.binned_auc``), as the
    keyword arguments of ``BinnedAUCResult``.
    """
    m = counts_neg.shape[0]
    total_neg, total_pos = counts_neg.sum(), counts_pos.sum()
    check_both_classes(total_neg, total_pos, "The binned AUC")

    # Class 1 count strictly above each bin.
    above = np.empty_like(counts_pos)
    above[-1] = 0
    np.cumsum(counts_pos[:0:-1], out=above[-2::-1])
    if weighted:
        pairs = float(total_neg) * float(total_pos)
        area = float(np.dot(counts_neg, above) + 0.5 * np.dot(counts_neg, counts_pos))
        auc_value = min(max(area / pairs, 0.0), 1.0)
        max_error = 0.5 * float(np.dot(counts_neg, counts_pos)) / pairs
    else:
        # Exact integers: twice the area and twice the triangles (2 P N < 2**63).
        twice_area = int(np.dot(counts_neg, 2 * above + counts_pos))
        twice_pairs = 2 * int(total_neg) * int(total_pos)
        auc_value = twice_area / twice_pairs
        max_error = int(np.dot(counts_neg, counts_pos)) / twice_pairs
    neg_f = counts_neg.astype(np.float64)
    pos_f = counts_pos.astype(np.float64)
    total = float(total_neg) + float(total_pos)
    expected_error = float(
        np.sum(np.sqrt(neg_f * neg_f + pos_f * pos_f) * np.sqrt((neg_f + pos_f) / total))
        / (3.0 * total)
    )
    if scale_exponent:
        with np.errstate(over="ignore"):  # (totals beyond the float64 range are inf)
            counts_neg = np.ldexp(counts_neg, scale_exponent)
            counts_pos = np.ldexp(counts_pos, scale_exponent)
    for array in (counts_neg, counts_pos):
        array.setflags(write=False)
    edges = edges_of(m, lo, hi, transform, alpha)
    edges.setflags(write=False)
    return dict(
        auc=auc_value,
        max_error=max_error,
        expected_error=expected_error,
        edges=edges,
        counts_neg=counts_neg,
        counts_pos=counts_pos,
        n_below=n_below,
        n_above=n_above,
        transform=transform,
        loglog_alpha=alpha,
    )
