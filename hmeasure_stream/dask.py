"""Exact AUC, H-measure and R hmeasure's report on dask collections.

The functions of this module take dask arrays or dask DataFrame columns
(``y_true``, ``y_score``, optional ``sample_weight``, partitioned alike) and
return the same values as their in-memory namesakes, computed where the
partitions live:

- :func:`auc`, :func:`h_measure`, :func:`roc_hull`, :func:`hmeasure_report`,
  :func:`partial_auc`, :func:`auc_ci` (DeLong), :func:`multiclass_auc`:
  exact, by a range partition of the distinct scores;
- :func:`binned_auc`: a histogram per partition, summed;
- :func:`grouped`: exact metrics per segment of a dask DataFrame, as a
  pandas DataFrame.

How: every partition is reduced to its distinct scores with their class
weights (*groups*), sorted; a sample of those scores chooses boundaries that
cut the scores into ranges of about equal numbers of groups; every partition
cuts its groups at the boundaries (by value, so the points of one score are
always in one range) and each range merges its pieces from all partitions.
A range then sends only a few numbers and the vertices of its own ROC hull:
the Mann-Whitney statistic of the whole is the sum of the ranges' own plus,
for each range, its class 0 weight times the class 1 weight of the ranges
above it, and the ROC hull of the whole is the hull of the ranges' hulls
translated by the weights above them.  Metrics that need single points of
the ROC curve (the report's fixed-level values, the partial area, DeLong's
placements) ask each range in a second step, given those offsets.  No step
holds more than a range or a partition: memory per worker is bounded by its
partitions.  See the documentation page "Dask".
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._core.binning import (
    ALPHA_SAMPLE,
    check_bins,
    check_score_range,
    check_strict,
    check_transform,
    estimate_alpha,
    histograms,
    outside_span,
    result_fields,
)
from hmeasure_stream._core.classes import (
    AVERAGES,
    METHODS,
    as_label_array,
    averaged,
    check_classes_present,
    check_finite_matrix,
    encode_given,
    encode_sorted,
)
from hmeasure_stream._core.delong import check_class_sizes, delong_interval
from hmeasure_stream._core.groups import Whole as _Whole
from hmeasure_stream._core.groups import box_piece as _box_piece
from hmeasure_stream._core.groups import cut as _cut
from hmeasure_stream._core.groups import groups_of as _groups_of
from hmeasure_stream._core.groups import merge as _merge
from hmeasure_stream._core.groups import summarise as _summarise
from hmeasure_stream._core.groups import totals as _totals
from hmeasure_stream._core.partial import corrected
from hmeasure_stream._core.report import curve_metrics, r_lookup, r_report, report_levels
from hmeasure_stream._validation import (
    EXACT_COUNT_LIMIT,
    NO_LABEL,
    as_1d,
    binary_labels,
    check_cost,
    check_integer,
    check_labels,
    check_option,
    check_partial_correction,
    check_pos_label,
    check_probability_level,
    check_rate_range,
    check_same_length,
    check_score_value,
    check_scores,
    check_weights,
    equal_mask,
    first_other_labels,
    import_optional,
    is_missing,
    raise_bad_label,
    raise_bad_score,
    same_label,
    third_label_message,
)
from hmeasure_stream.binned import BinnedAUCResult
from hmeasure_stream.metric_table import EXACT_AUC, HULL, LOWER_HULL, METRICS, REPORT

dask, da, dd, pd = import_optional(
    "dask", "dask.array", "dask.dataframe", "pandas", needed_by="hmeasure_stream.dask",
    install="hmeasure_stream[dask]")

if TYPE_CHECKING:
    import pandas
    from dask.array import Array
    from dask.dataframe import DataFrame, Index, Series
    from dask.delayed import Delayed

    from hmeasure_stream._core.delong import ConfidenceInterval

    #: A 1-d dask collection: a dask array, or a dask DataFrame's column or index.
    Collection = Array | Series | Index
    #: A partition (numpy array, pandas Series), or a Delayed of one.
    Part = Any
    #: A partition's or a range's groups: distinct scores, class 0 and class 1 weights.
    Groups = tuple[NDArray[Any], NDArray[Any], NDArray[Any]]
    #: A range's summary (``_core.groups.summarise``), or a Delayed of one.
    Summary = Any
    #: The offsets and totals the ranges are given in a second step.
    Context = dict[str, Any]

__all__ = [
    "auc",
    "auc_ci",
    "binned_auc",
    "grouped",
    "h_measure",
    "hmeasure_report",
    "multiclass_auc",
    "partial_auc",
    "roc_hull",
]

# Scores sampled per range from each partition to choose the boundaries,
# and a cap on the whole sample (it is gathered in one task).
_SAMPLES_PER_RANGE = 8
_MAX_SAMPLE = 1 << 20
# grouped(): the metrics it can compute, in output order: the window metrics of the
# table read from the hull with the window's priors (R's report scalars), and the Gini.
_HULL_NEEDS = frozenset((EXACT_AUC, HULL, REPORT, LOWER_HULL))
_TABLE_METRICS = tuple(name for name, metric in METRICS.items()
                       if metric.report_key and metric.needs <= _HULL_NEEDS)
# (R's order: the Gini after the AUCH.)
_GROUP_METRICS = tuple(name for metric in _TABLE_METRICS
                       for name in ((metric, "gini") if metric == "auch" else (metric,)))


# ---------------------------------------------------------------------------
# Inputs: dask collections as lists of delayed partitions


def _is_series(value: object) -> bool:
    return isinstance(value, (dd.Series, dd.Index))


def _check_collection(value: object, name: str) -> None:
    if isinstance(value, da.Array):
        if value.ndim != 1:
            raise ValueError(f"{name} must be 1-d, got a dask array of shape {value.shape}")
        return
    if _is_series(value):
        return
    if isinstance(value, dd.DataFrame):
        raise ValueError(
            f"{name} must be one column (a dask Series or a 1-d dask array), got a dask "
            f"DataFrame with columns {list(value.columns)}"
        )
    raise ValueError(
        f"{name} must be a dask array or a dask DataFrame column, got "
        f"{type(value).__name__}; for data in memory use hmeasure_stream's own functions"
    )


def _delayed_parts(value: Collection | DataFrame) -> list[Delayed]:
    if isinstance(value, da.Array):
        return list(cast(Any, value).to_delayed().ravel())  # (dask's methods are untyped)
    return list(cast(Any, value).to_delayed())


def _aligned(columns: Sequence[tuple[str, Collection | None]]
             ) -> list[tuple[Delayed | None, ...]]:
    """Delayed partitions of each (name, collection) pair, partitioned alike.

    Dask arrays with known chunks are rechunked to the chunks of the first
    one; otherwise the numbers of partitions must agree (each partition's
    lengths are checked when it is computed).
    """
    for name, value in columns:
        if value is not None:
            _check_collection(value, name)
    first_name, first = columns[1]  # y_score decides the partitioning
    present = [(name, value) for name, value in columns if value is not None]
    if isinstance(first, da.Array) and not any(math.isnan(c) for c in first.chunks[0]):
        aligned = []
        for name, value in present:
            if isinstance(value, da.Array) and value is not first:
                if value.shape[0] != first.shape[0] and not math.isnan(value.shape[0]):
                    raise ValueError(
                        f"{name} and {first_name} have different lengths: "
                        f"{value.shape[0]} and {first.shape[0]}"
                    )
                if value.chunks != first.chunks:
                    value = value.rechunk(first.chunks)
            aligned.append((name, value))
        present = aligned
    counts = {name: value.npartitions for name, value in present}
    if len(set(counts.values())) > 1:
        described = ", ".join(f"{name}: {n}" for name, n in counts.items())
        raise ValueError(
            f"the inputs must be partitioned alike; numbers of partitions differ ({described})"
        )
    parts = {name: _delayed_parts(value) for name, value in present}
    n_parts = counts[first_name]
    return [
        tuple(parts[name][k] if name in parts else None for name, _ in columns)
        for k in range(n_parts)
    ]


def _check_n_ranges(n_ranges: int | None, n_parts: int) -> int:
    if n_ranges is None:
        return max(1, n_parts)
    return check_integer(n_ranges, "n_ranges", 1)


def _finish(result: Delayed, compute: bool) -> Any:
    if not isinstance(compute, (bool, np.bool_)):
        raise ValueError(f"compute must be True or False, got {compute!r}")
    return cast(Any, result).compute() if compute else result  # (untyped in dask)


# ---------------------------------------------------------------------------
# Per partition: validated points as groups (keys, class weights), highest first


_T = TypeVar("_T")


def _in_partition(index: int, function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)``, a ValueError saying which partition it comes from."""
    try:
        return function(*args)
    except ValueError as exc:
        raise ValueError(f"{exc} (in partition {index})") from None


def _other_labels(index: int, y_part: Part, pos_label: Hashable, name: Hashable = "y_true"
                  ) -> tuple[int, bool, list[tuple[Any, int]]]:
    """Whether a partition holds ``pos_label``, and its first two other labels.

    Returns ``(index, pos_found, [(label, position), ...])``: at most two
    distinct labels other than ``pos_label``, in order of first appearance,
    each with its position in the partition.
    """
    def run() -> tuple[int, bool, list[tuple[Any, int]]]:
        array = as_1d(y_part, name, True)
        is_pos = equal_mask(array, pos_label)
        return index, bool(is_pos.any()), first_other_labels(array, is_pos)

    return _in_partition(index, run)


def _agreed_neg_label(pos_label: Hashable, name: Hashable,
                      *per_partition: tuple[int, bool, list[tuple[Any, int]]]) -> Any:
    """The class 0 label of the whole: the first label other than ``pos_label``.

    A second other label (or a missing one) anywhere is a ValueError naming
    it, its position and its partition; ``NO_LABEL`` when every label is
    ``pos_label``.
    """
    pos_found = any(found for _, found, _ in per_partition)
    neg_label = NO_LABEL
    for index, _, labels in per_partition:
        for value, position in labels:
            if neg_label is NO_LABEL and not is_missing(value):
                neg_label = value
                continue
            if neg_label is not NO_LABEL and same_label(value, neg_label):
                continue
            message = third_label_message(name, value, position, pos_label, neg_label,
                                          pos_found)
            raise ValueError(f"{message} (in partition {index})")
    return neg_label



def _neg_label(parts: Sequence[tuple[Part, ...]], pos_label: Hashable | None, column: int = 0,
               name: Hashable = "y_true") -> Delayed | None:
    """Delayed class 0 label agreed by all partitions (None without ``pos_label``)."""
    if pos_label is None:
        return None
    per_partition = [
        dask.delayed(_other_labels, pure=True)(k, part[column], pos_label, name)
        for k, part in enumerate(parts)
    ]
    return cast("Delayed",
                dask.delayed(_agreed_neg_label, pure=True)(pos_label, name, *per_partition))


def _part_labels(y_part: Part, pos_label: Hashable | None, neg_label: Any,
                 name: Hashable = "y_true") -> NDArray[Any]:
    """A partition's labels for the kernels: as is, or 0/1 against the agreed labels."""
    if pos_label is None:
        return check_labels(y_part, name, allow_empty=True, signed=False)
    labels = binary_labels(y_part, pos_label, neg_label=neg_label, name=name, allow_empty=True)
    return cast("NDArray[Any]", labels[0])


def _binary_groups(index: int, y_part: Part, s_part: Part, w_part: Part, weighted: bool,
                   pos_label: Hashable | None = None, neg_label: Any = None) -> Groups:
    def run() -> Groups:
        labels = _part_labels(y_part, pos_label, neg_label)
        scores = check_scores(s_part, allow_empty=True, ranks=False)
        check_same_length(labels, scores)
        weights = None
        if weighted:
            weights = check_weights(w_part, scores.shape[0])
        return cast("Groups", _groups_of(labels, scores, weights))

    return _in_partition(index, run)


# ---------------------------------------------------------------------------
# The range partition


def _sample(groups: Groups, n_ranges: int) -> tuple[NDArray[Any], float]:
    """Evenly spaced scores of a partition's groups, each standing for len / size groups."""
    keys = groups[0]
    size = min(keys.shape[0], _SAMPLES_PER_RANGE * n_ranges)
    if size == 0:
        return keys[:0], 0.0
    picks = np.linspace(0, keys.shape[0] - 1, size).round().astype(np.intp)
    return keys[picks].copy(), keys.shape[0] / size


def _bounds(n_ranges: int, *samples: tuple[NDArray[Any], float]) -> NDArray[Any]:
    """At most n_ranges - 1 distinct scores, decreasing, cutting the sample into equal parts."""
    values = np.concatenate([values for values, _ in samples])
    if values.size == 0 or n_ranges == 1:
        return np.empty(0)
    weights = np.concatenate([np.full(values.shape[0], w) for values, w in samples])
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    targets = cumulative[-1] * np.arange(1, n_ranges) / n_ranges
    picks = np.minimum(np.searchsorted(cumulative, targets), values.shape[0] - 1)
    return cast("NDArray[Any]", np.unique(values[order][picks])[::-1].copy())


def _range_groups(groups: Sequence[Delayed], n_ranges: int) -> list[Delayed]:
    """Delayed groups of each range, highest scores first, from delayed partition groups."""
    samples = [dask.delayed(_sample, pure=True)(g, n_ranges) for g in groups]
    bounds = dask.delayed(_bounds, pure=True)(n_ranges, *samples)
    if n_ranges == 1:
        return [dask.delayed(_merge, pure=True)(*groups)]
    cut = [dask.delayed(_cut, pure=True, nout=n_ranges)(g, bounds, n_ranges) for g in groups]
    return [
        dask.delayed(_merge, pure=True)(*[pieces[r] for pieces in cut]) for r in range(n_ranges)
    ]


# ---------------------------------------------------------------------------
# Per range: its numbers and hulls; on the driver: the whole


def _range_points(groups: Groups, context: Context, r: int
                  ) -> tuple[NDArray[Any], NDArray[Any]]:
    """Cumulative class weights (fp, tp) of a range's ROC points, its start point first."""
    _, neg, pos = groups
    fp = np.concatenate(([0], np.cumsum(neg))) + context["fp_offsets"][r]
    tp = np.concatenate(([0], np.cumsum(pos))) + context["tp_offsets"][r]
    return fp, tp


def _whole(summaries: Sequence[Summary], metric: str) -> Any:
    return _Whole(summaries, metric)


def _pipeline(groups: Sequence[Delayed], n_ranges: int, lower: bool = False, hull: bool = True
              ) -> tuple[list[Delayed], list[Delayed]]:
    """Delayed (ranges, summaries) of delayed partition groups."""
    ranges = _range_groups(groups, n_ranges)
    summaries = [dask.delayed(_summarise, pure=True)(g, lower, hull) for g in ranges]
    return ranges, summaries


def _binary_pipeline(y_true: Collection, y_score: Collection, sample_weight: Collection | None,
                     n_ranges: int | None, lower: bool = False, hull: bool = True,
                     pos_label: Hashable | None = None) -> tuple[list[Delayed], list[Delayed]]:
    pos_label = check_pos_label(pos_label)
    parts = _aligned([("y_true", y_true), ("y_score", y_score), ("sample_weight", sample_weight)])
    n_ranges = _check_n_ranges(n_ranges, len(parts))
    weighted = sample_weight is not None
    neg_label = _neg_label(parts, pos_label)
    groups = [
        dask.delayed(_binary_groups, pure=True)(k, y, s, w, weighted, pos_label, neg_label)
        for k, (y, s, w) in enumerate(parts)
    ]
    return _pipeline(groups, n_ranges, lower, hull)


# ---------------------------------------------------------------------------
# auc, h_measure, roc_hull


def _auc_of(metric: str, *summaries: Summary) -> float:
    return float(_whole(summaries, metric).auc)


def auc(y_true: Collection, y_score: Collection, *, sample_weight: Collection | None = None,
        n_ranges: int | None = None, compute: bool = True, pos_label: Hashable | None = None
        ) -> float | Delayed:
    """Area under the ROC curve of a dask collection, exactly.

    Equal to :func:`hmeasure_stream.auc` of the same data in memory (with
    unit weights bit for bit; with ``sample_weight`` to a relative 1e-12).

    Parameters
    ----------
    y_true : dask array or dask Series of shape (n,)
        Labels, 0/1 or bool (or any two labels with ``pos_label``); class 1
        is the class expected to score higher.
    y_score : dask array or dask Series of shape (n,)
        Scores, finite real numbers (integers beyond 2**53 are refused,
        extended-precision floats rounded to float64).
    sample_weight : dask array or dask Series of shape (n,), optional
        Non-negative finite weight of each point.
    n_ranges : int, optional
        Number of score ranges the work is split into; default the number
        of partitions of ``y_score``, so that a range holds about as many
        distinct scores as a partition.
    compute : bool, default=True
        False: return a ``dask.delayed.Delayed`` of the float instead.
    pos_label : hashable, optional
        The label of class 1 (a string, a number, ...); the one other label
        of ``y_true`` is class 0, whichever partitions hold it.  A partition
        sees only its own labels, so the labels are then read twice: a
        light first pass per partition finds its labels other than
        ``pos_label`` and one small task agrees on the class 0 label (a
        third label anywhere is an error naming it, its position and its
        partition); every partition's points are then mapped against the
        agreed labels.  Without ``pos_label`` there is no extra pass.

    Returns
    -------
    float or dask.delayed.Delayed
        The AUC in [0, 1].

    Raises
    ------
    ValueError
        If an input is not a 1-d dask collection or the inputs are not
        partitioned alike (at once); on invalid data, as for
        :func:`hmeasure_stream.auc`, when computed (the message names the
        partition and the position in it).

    See Also
    --------
    hmeasure_stream.auc : the same on arrays in memory.
    h_measure : the H-measure of a dask collection.

    Notes
    -----
    Each partition sorts its two classes and reduces them to distinct
    scores with their class counts (O(p log p) for p points); a sample of
    those scores sets ``n_ranges - 1`` boundaries; each partition cuts its
    groups at the boundaries and each range merges its pieces (O(g log P)
    for g groups from P partitions) and computes its own twice Mann-Whitney
    count 2U_r and class weights.  Then 2U = sum_r 2U_r + 2 sum_r N0_r T_r,
    T_r the class 1 weight of the ranges above range r.  Without weights
    every count is an exact integer.  The points move once (as groups, the
    ties of a partition collapsed); no task holds more than a partition or
    a range.

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time", Alg. 1.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1, 0, 1], chunks=3)
    >>> s = da.from_array([0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8], chunks=3)
    >>> hsd.auc(y, s)
    0.875
    >>> lazy = hsd.auc(y, s, compute=False)
    >>> lazy.compute()
    0.875
    >>> words = da.from_array(["no", "no", "yes", "no", "yes", "yes", "no", "yes"], chunks=3)
    >>> hsd.auc(words, s, pos_label="yes")
    0.875
    """
    _, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges, hull=False,
                                    pos_label=pos_label)
    return cast("float | Delayed",
                _finish(dask.delayed(_auc_of, pure=True)("AUC", *summaries), compute))


def _h_of(spec: Any, *summaries: Summary) -> float:
    return float(_whole(summaries, "The H-measure").h_measure(spec))


def h_measure(y_true: Collection, y_score: Collection, *, alpha: float = 2.0, beta: float = 2.0,
              severity_ratio: float | None = None, priors: tuple[float, float] | None = None,
              sample_weight: Collection | None = None, n_ranges: int | None = None,
              compute: bool = True, pos_label: Hashable | None = None) -> float | Delayed:
    """Hand's H-measure of a dask collection, exactly.

    Equal to :func:`hmeasure_stream.h_measure` of the same data in memory
    (with unit weights the same hull, vertex for vertex; to 1e-9 with
    ``sample_weight``).

    Parameters
    ----------
    y_true, y_score, sample_weight, n_ranges, compute, pos_label
        As for :func:`auc`.
    alpha, beta, severity_ratio, priors
        The cost distribution and the priors, as for
        :func:`hmeasure_stream.h_measure`.

    Returns
    -------
    float or dask.delayed.Delayed
        The H-measure in [0, 1].

    Raises
    ------
    ValueError
        On invalid options (at once), inputs or data, as for :func:`auc`.

    See Also
    --------
    hmeasure_stream.h_measure : the same on arrays in memory.
    roc_hull : the hull H is computed on.

    Notes
    -----
    The range partition of :func:`auc`; each range computes the upper hull
    of its own ROC points (O(g)) and sends its edges.  Translated by the
    class weights of the ranges above it, a range's curve is a piece of the
    whole curve, and the hull of the whole is the hull of the pieces' hulls:
    the driver runs the monotone chain over the concatenated edges, a few
    per range, and sums the loss over the hull's edges as
    :func:`hmeasure_stream.h_measure` does.

    References
    ----------
    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    N. Tatti, "Maintaining AUC and H-measure over time".

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1, 0, 1], chunks=3)
    >>> s = da.from_array([0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8], chunks=3)
    >>> round(hsd.h_measure(y, s), 6)
    0.674074
    """
    spec = check_cost(alpha, beta, severity_ratio, priors)
    _, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges, pos_label=pos_label)
    return cast("float | Delayed",
                _finish(dask.delayed(_h_of, pure=True)(spec, *summaries), compute))


def _hull_of(*summaries: Summary) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    hull_fp, hull_tp = _whole(summaries, "The ROC hull").hull()
    return hull_fp / hull_fp[-1], hull_tp / hull_tp[-1]


def roc_hull(y_true: Collection, y_score: Collection, *, sample_weight: Collection | None = None,
             n_ranges: int | None = None, compute: bool = True,
             pos_label: Hashable | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]] | Delayed:
    """Vertices of the ROC convex hull of a dask collection.

    Equal to :func:`hmeasure_stream.roc_hull` of the same data in memory.

    Parameters
    ----------
    y_true, y_score, sample_weight, n_ranges, compute, pos_label
        As for :func:`auc`.

    Returns
    -------
    fpr : ndarray of float64
        False positive rates of the hull's vertices, from 0 to 1.
    tpr : ndarray of float64
        True positive rates of the same vertices.  With ``compute=False``
        a Delayed of the pair ``(fpr, tpr)`` instead.

    Raises
    ------
    ValueError
        As for :func:`auc`.

    See Also
    --------
    hmeasure_stream.roc_hull : the same on arrays in memory.

    Notes
    -----
    The hull of the ranges' hulls (see :func:`h_measure`); the driver holds
    only hull vertices.

    References
    ----------
    F. Provost and T. Fawcett, "Robust classification for imprecise
    environments", Machine Learning 42, 2001.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1], chunks=2)
    >>> s = da.from_array([1, 2, 3, 4, 5, 6], chunks=2)
    >>> fpr, tpr = hsd.roc_hull(y, s)
    >>> fpr
    array([0.        , 0.        , 0.33333333, 1.        ])
    >>> tpr
    array([0.        , 0.66666667, 1.        , 1.        ])
    """
    _, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges, pos_label=pos_label)
    return cast("tuple[NDArray[np.float64], NDArray[np.float64]] | Delayed",
                _finish(dask.delayed(_hull_of, pure=True)(*summaries), compute))


# ---------------------------------------------------------------------------
# hmeasure_report


def _report_context(levels: Sequence[float], *summaries: Summary) -> Context:
    return cast("Context", _whole(summaries, "The H-measure").context(levels=levels))


def _lookup_candidates(groups: Groups, context: Context, r: int, threshold: float
                       ) -> dict[Any, Any]:
    """This range's candidates for R's fixed-level lookups: (global index, value) or None.

    R's ``Look.Up.AUC`` on the ascending class CDFs finds the first point
    above a level and interpolates with the point before it; from the
    highest score down that is the last ROC point k whose CDF value exceeds
    the level, with the point k + 1.  Both lie in the range that holds
    group k + 1; each range offers the last such k among its own points
    (not its end point), and the driver takes the largest.
    """
    fp, tp = _range_points(groups, context, r)
    n_points = fp.shape[0] - 1  # segments of this range
    fpr = fp / context["weight_neg"]
    tpr = tp / context["weight_pos"]
    cdf_neg, cdf_pos = 1.0 - fpr, 1.0 - tpr
    curves = {
        "spec": (cdf_pos, cdf_neg),        # Spec.SensXX: x = 1 - level
        "sens": (cdf_neg, 1.0 - cdf_pos),  # Sens.SpecXX: x = level
    }
    out: dict[Any, Any] = {}
    for value in context["levels"]:
        for kind, (xcurve, ycurve) in curves.items():
            x = 1.0 - value if kind == "spec" else value
            above = np.flatnonzero(xcurve[:n_points] > x)
            if above.size == 0:
                out[kind, value] = None
                continue
            k = int(above[-1])
            pair_x = np.array([xcurve[k + 1], xcurve[k]])
            pair_y = np.array([ycurve[k + 1], ycurve[k]])
            out[kind, value] = (context["group_offsets"][r] + k, r_lookup(pair_x, pair_y, x))
    # This range's class weights above and not above the report's threshold.
    keys, neg, pos = groups
    high = keys > threshold
    out["threshold"] = tuple(float(math.fsum(part)) for part in (
        pos[high], neg[high], neg[~high], pos[~high]))
    return out


def _curve_of(whole: Any, spec: Any) -> tuple[float, Any]:
    """The AUC of the whole and its H, AUCH, KS, MER and MWL, from its two hulls.

    KS is nan when the ranges did not compute their lower hulls.
    """
    hull = whole.hull(with_edges=True)
    hull_fp, hull_tp = hull[:2]
    weight_neg, weight_pos = float(hull_fp[-1]), float(hull_tp[-1])
    rates = (hull_fp / weight_neg, hull_tp / weight_pos)
    ks_rates = []
    if whole.summaries[0][5] is not None:
        low_fp, low_tp = whole.lower_hull()
        ks_rates = [rates, (low_fp / weight_neg, low_tp / weight_pos)]
    # A linear function of (FPR, TPR) that falls with FPR and rises with TPR is
    # extreme at a vertex of the upper hull; |TPR - FPR| also at the lower hull.
    curve = curve_metrics(hull, spec.at(weight_neg, weight_pos), rates, ks_rates)
    return float(whole.twice_u / (2.0 * weight_neg * weight_pos)), curve


def _report_of(spec: Any, levels: Sequence[float], as_frame: bool, summaries: Sequence[Summary],
               *candidates: dict[Any, Any]) -> dict[str, float] | pandas.DataFrame:
    auc, curve = _curve_of(_whole(summaries, "The H-measure"), spec)

    def looked_up(kind: str) -> Callable[[float], Any]:
        def value_at(level: float) -> Any:
            found = [c[kind, level] for c in candidates if c[kind, level] is not None]
            return max(found)[1]
        return value_at

    # TP, FP, TN, FN summed over the ranges.
    counts = tuple(math.fsum(c["threshold"][i] for c in candidates) for i in range(4))
    report = r_report(levels, auc, curve, looked_up("spec"), looked_up("sens"), counts)
    if as_frame:
        return pd.DataFrame([report])
    return report


def hmeasure_report(y_true: Collection, y_score: Collection, *, alpha: float = 2.0,
                    beta: float = 2.0, severity_ratio: float | None = None,
                    priors: tuple[float, float] | None = None,
                    sample_weight: Collection | None = None,
                    sens_spec_levels: float | Sequence[float] = 0.95, threshold: float = 0.5,
                    as_frame: bool = False, n_ranges: int | None = None, compute: bool = True,
                    pos_label: Hashable | None = None
                    ) -> dict[str, float] | pandas.DataFrame | Delayed:
    """R hmeasure's summary of one classifier on a dask collection.

    The same keys and values as :func:`hmeasure_stream.hmeasure_report` of
    the data in memory: H, Gini, AUC, AUCH, KS, MER, MWL, the
    fixed-level specificities and sensitivities and the metrics at
    ``threshold``.

    Parameters
    ----------
    y_true, y_score, sample_weight, n_ranges, compute, pos_label
        As for :func:`auc`.
    alpha, beta, severity_ratio, priors, sens_spec_levels, threshold, as_frame
        As for :func:`hmeasure_stream.hmeasure_report`.

    Returns
    -------
    dict or pandas.DataFrame or dask.delayed.Delayed
        The report (a Delayed of it with ``compute=False``).

    Raises
    ------
    ValueError
        As for :func:`h_measure`, or if a level is not in (0, 1).

    See Also
    --------
    hmeasure_stream.hmeasure_report : the same on arrays in memory.

    Notes
    -----
    H, AUCH, MER and MWL are minima or sums over the hull's vertices, and
    KS is the largest distance of the ROC curve from the diagonal, reached
    at a vertex of its upper or of its lower hull: both hulls come from the
    ranges' own (see :func:`h_measure`).  The fixed-level values are read at
    single ROC points: a second step hands every range the class weights
    above it and the range holding the level answers.  Each range also sums
    its class weights above and below the threshold.

    References
    ----------
    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1, 0, 1], chunks=3)
    >>> s = da.from_array([0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8], chunks=3)
    >>> report = hsd.hmeasure_report(y, s, severity_ratio="prior")
    >>> report["AUC"], report["Gini"], report["AUCH"], report["KS"]
    (0.875, 0.75, 0.9375, 0.75)
    """
    spec = check_cost(alpha, beta, severity_ratio, priors)
    levels = report_levels(sens_spec_levels)
    threshold = check_score_value(threshold, "threshold")
    ranges, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges, lower=True,
                                         pos_label=pos_label)
    context = dask.delayed(_report_context, pure=True)(list(levels.values()), *summaries)
    candidates = [
        dask.delayed(_lookup_candidates, pure=True)(g, context, r, threshold)
        for r, g in enumerate(ranges)
    ]
    report = dask.delayed(_report_of, pure=True)(
        spec, levels, bool(as_frame), summaries, *candidates
    )
    return cast("dict[str, float] | pandas.DataFrame | Delayed", _finish(report, compute))


# ---------------------------------------------------------------------------
# partial_auc


def _box_context(*summaries: Summary) -> Context:
    return cast("Context", _whole(summaries, "The partial AUC").context())


def _partial_of(options: tuple[Any, ...], context: Context, box: tuple[float, ...],
                *pieces: Any) -> float:
    _, _, c, d = box
    weight_neg, weight_pos = context["weight_neg"], context["weight_pos"]
    present = [piece for piece in pieces if piece is not None]
    if context["unit_weights"]:
        # As partial.py: exact rational arithmetic on the counts, rounded once.
        c_count, d_count = Fraction(c * weight_pos), Fraction(d * weight_pos)
        area = Fraction(0)
        for (twice_inside, width_inside, width_above, rest), above_pos in present:
            area += (
                Fraction(twice_inside, 2)
                - (c_count - above_pos) * width_inside
                + (d_count - c_count) * width_above
                + Fraction(rest)
            )
        return float(corrected(area / (weight_neg * weight_pos), *options))
    total = math.fsum(parts for parts, _ in present)
    return float(corrected(total / weight_neg / weight_pos, *options))


def partial_auc(y_true: Collection, y_score: Collection, *,
                fpr_range: tuple[float, float] | None = None,
                tpr_range: tuple[float, float] | None = None, correction: str | None = None,
                sample_weight: Collection | None = None, n_ranges: int | None = None,
                compute: bool = True, pos_label: Hashable | None = None) -> float | Delayed:
    """Partial area under the ROC curve of a dask collection; pROC's ``partial.auc``.

    Equal (to a relative 1e-12) to :func:`hmeasure_stream.partial_auc` of
    the data in memory.

    Parameters
    ----------
    y_true, y_score, sample_weight, n_ranges, compute, pos_label
        As for :func:`auc`.
    fpr_range, tpr_range, correction
        As for :func:`hmeasure_stream.partial_auc`.

    Returns
    -------
    float or dask.delayed.Delayed
        The partial area (McClish-standardised with ``correction``).

    Raises
    ------
    ValueError
        On invalid options (at once) or data, as for
        :func:`hmeasure_stream.partial_auc`.

    See Also
    --------
    hmeasure_stream.partial_auc : the same on arrays in memory.

    Notes
    -----
    After the range partition of :func:`auc`, every range is handed the
    class weights above it and measures its own piece of the curve in the
    box translated to the piece's start (the kernel of
    :func:`hmeasure_stream.partial_auc`); without weights the parts are
    exact integers but for the few cut segments, and the driver adds them in
    rational arithmetic, as in memory.

    References
    ----------
    D. K. McClish, "Analyzing a portion of the ROC curve", Medical Decision
    Making 9, 1989.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1, 0, 1], chunks=3)
    >>> s = da.from_array([0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8], chunks=3)
    >>> hsd.partial_auc(y, s, fpr_range=(0, 0.5))
    0.375
    """
    fpr_box = check_rate_range(fpr_range, "fpr_range")
    tpr_box = check_rate_range(tpr_range, "tpr_range")
    check_partial_correction(correction, fpr_range, tpr_range)
    ranges, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges, hull=False,
                                         pos_label=pos_label)
    context = dask.delayed(_box_context, pure=True)(*summaries)
    box = (*fpr_box, *tpr_box)
    pieces = [
        dask.delayed(_box_piece, pure=True)(g, context, r, box) for r, g in enumerate(ranges)
    ]
    options = (fpr_box, tpr_box, fpr_range, tpr_range, correction)
    result = dask.delayed(_partial_of, pure=True)(options, context, box, *pieces)
    return cast("float | Delayed", _finish(result, compute))


# ---------------------------------------------------------------------------
# auc_ci (DeLong)


def _delong_context(*summaries: Summary) -> Context:
    whole = _whole(summaries, "DeLong's confidence interval")
    check_class_sizes(whole.weight_neg, whole.weight_pos, "DeLong's confidence interval",
                       weighted=not whole.unit_weights)
    return cast("Context", whole.context(auc=whole.auc))


def _delong_piece(groups: Groups, context: Context, r: int) -> tuple[float, float]:
    """This range's sums of squared centred placements: (class 1 sum, class 0 sum)."""
    _, neg, pos = groups
    # The class weights at higher scores than each group.
    above_neg = _range_points(groups, context, r)[0][:-1]
    above_pos = _range_points(groups, context, r)[1][:-1]
    n, m = context["weight_neg"], context["weight_pos"]
    if context["unit_weights"]:
        # As uncertainty.py: e = m a - 2U, a = 2 #{class 0 below} + #{class 0 level};
        # f = n b - 2U, b = 2 #{class 1 above} + #{class 1 level}: exact integers.
        twice_u = context["twice_u"]
        e = m * (2 * (n - above_neg - neg) + neg) - twice_u
        f = n * (2 * above_pos + pos) - twice_u
        ee, ef = e.astype(np.float64), f.astype(np.float64)
        return float(np.dot(pos.astype(np.float64), ee * ee)), float(
            np.dot(neg.astype(np.float64), ef * ef)
        )
    estimate = context["auc"]
    # Placements, ties one half: of a class 1 point, the share of class 0 below;
    # of a class 0 point, the share of class 1 below (centred at 1 - AUC).
    pos_place = (2.0 * (n - above_neg) - neg) / (2.0 * n) - estimate
    neg_share = (2.0 * (m - above_pos) - pos) / (2.0 * m) - (1.0 - estimate)
    return float(np.dot(pos, pos_place * pos_place)), float(np.dot(neg, neg_share * neg_share))


def _interval_of(context: Context, level: float, *pieces: tuple[float, float]
                 ) -> ConfidenceInterval:
    n, m = float(context["weight_neg"]), float(context["weight_pos"])
    sum_pos = math.fsum(p[0] for p in pieces)
    sum_neg = math.fsum(p[1] for p in pieces)
    if context["unit_weights"]:
        variance = float(
            (sum_pos / (m * (m - 1.0)) + sum_neg / (n * (n - 1.0))) / (2.0 * m * n) ** 2
        )
    else:
        variance = (sum_pos / (m - 1.0)) / m + (sum_neg / (n - 1.0)) / n
    return delong_interval(context["auc"], variance, level)


def auc_ci(y_true: Collection, y_score: Collection, *, level: float = 0.95,
           method: str = "delong", sample_weight: Collection | None = None,
           n_ranges: int | None = None, compute: bool = True,
           pos_label: Hashable | None = None) -> ConfidenceInterval | Delayed:
    """DeLong's confidence interval for the AUC of a dask collection.

    Equal (to a relative 1e-12) to :func:`hmeasure_stream.auc_ci` with
    ``method="delong"`` of the data in memory.

    Parameters
    ----------
    y_true, y_score, n_ranges, compute, pos_label
        As for :func:`auc`.
    level : float, default=0.95
        Confidence level, in (0, 1).
    method : {"delong"}, default="delong"
        Only DeLong's interval: the bootstrap resamples every row, which is
        not what a cluster is for.
    sample_weight : dask array or dask Series, optional
        Frequency weights, as for :func:`hmeasure_stream.auc_variance`.

    Returns
    -------
    ConfidenceInterval or dask.delayed.Delayed
        ``(low, high, estimate)``, the estimate the AUC.

    Raises
    ------
    ValueError
        As for :func:`hmeasure_stream.auc_ci`; if ``method`` is not "delong".

    See Also
    --------
    hmeasure_stream.auc_ci : the same on arrays in memory.

    Notes
    -----
    Points of one score share their placements, so after the range
    partition of :func:`auc` each range, handed the class weights above it
    and 2U, sums its groups' squared centred placements (exact integers
    before squaring without weights); the driver adds the sums.

    References
    ----------
    E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
    areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach", Biometrics 44, 1988.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1, 0, 1], chunks=3)
    >>> s = da.from_array([0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8], chunks=3)
    >>> ci = hsd.auc_ci(y, s)
    >>> round(ci.low, 6), ci.high, ci.estimate
    (0.592104, 1.0, 0.875)
    """
    level = check_probability_level(level, "level")
    if method == "bootstrap":
        raise ValueError(
            'method="bootstrap" is not available on dask collections (it resamples every '
            'row); use method="delong", or hmeasure_stream.auc_ci on a sample in memory'
        )
    if method != "delong":
        raise ValueError(f'method must be "delong", got {method!r}')
    ranges, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges, hull=False,
                                         pos_label=pos_label)
    context = dask.delayed(_delong_context, pure=True)(*summaries)
    pieces = [dask.delayed(_delong_piece, pure=True)(g, context, r) for r, g in enumerate(ranges)]
    return cast("ConfidenceInterval | Delayed", _finish(
        dask.delayed(_interval_of, pure=True)(context, level, *pieces), compute))


# ---------------------------------------------------------------------------
# binned_auc


def _length(part: ArrayLike) -> int:
    return int(np.shape(part)[0])


def _strided(index: int, part: Part, offset: int, step: int) -> NDArray[np.float64]:
    """The scores of a partition at global positions 0, step, 2 step, ..."""
    def run() -> NDArray[np.float64]:
        scores = check_scores(part, allow_empty=True, ranks=False)
        return scores[(-offset) % step::step]

    return _in_partition(index, run)


def _alpha_of(lo: float, hi: float, *samples: NDArray[np.float64]) -> float:
    sample = np.concatenate(samples) if samples else np.empty(0)
    if sample.size == 0:
        raise ValueError("y_true is empty: at least one point is needed")
    return float(estimate_alpha(sample, lo, hi))


def _sample_plan(lengths: Sequence[int]) -> tuple[int, list[int]]:
    total = sum(lengths)
    step = max(1, -(-total // ALPHA_SAMPLE))
    offsets = np.concatenate(([0], np.cumsum(lengths)))[:-1].tolist()
    return step, offsets


def _bin_counts(index: int, y_part: Part, s_part: Part, w_part: Part, weighted: bool,
                params: tuple[float, float, int, str | None], alpha: float | None,
                pos_label: Hashable | None = None, neg_label: Any = None
                ) -> tuple[NDArray[Any], int, int, int, float, float]:
    lo, hi, m, transform = params

    def run() -> tuple[NDArray[Any], int, int, int, float, float]:
        labels = _part_labels(y_part, pos_label, neg_label)
        scores = check_scores(s_part, allow_empty=True, ranks=False)
        check_same_length(labels, scores)
        weights = check_weights(w_part, scores.shape[0]) if weighted else None
        counts, flags = histograms(labels, scores, weights, lo, hi, m, transform, alpha)
        bad_label, bad_score, n_below, n_above = flags
        if bad_label:
            raise_bad_label(labels)
        if bad_score:
            raise_bad_score(scores)
        # The partition's span: the warning of scores outside the range names the whole's.
        low, high = ((float(scores.min()), float(scores.max())) if scores.shape[0]
                     else (math.inf, -math.inf))
        return counts, int(n_below), int(n_above), scores.shape[0], low, high

    return _in_partition(index, run)


def _summed(alpha: float | None, *parts: tuple[NDArray[Any], int, int, int, float, float]
            ) -> tuple[NDArray[Any], int, int, int, float, float, float | None]:
    """The partitions' histograms added up, with their counts outside the range and span."""
    if sum(p[3] for p in parts) == 0:
        raise ValueError("y_true is empty: at least one point is needed")
    counts = parts[0][0].copy()
    for part in parts[1:]:
        counts += part[0]
    return (counts, sum(p[1] for p in parts), sum(p[2] for p in parts), sum(p[3] for p in parts),
            min(p[4] for p in parts), max(p[5] for p in parts), alpha)


def _binned_of(summed: tuple[NDArray[Any], int, int, int, float, float, float | None],
               params: tuple[float, float, int, str | None], weighted: bool,
               transform: str | None, strict: bool) -> BinnedAUCResult:
    """The result of the summed histograms, after the word on (or refusal of) the scores
    outside the range, as :func:`hmeasure_stream.binned_auc` gives them."""
    lo, hi, m, _ = params
    counts, n_below, n_above, n, low, high, alpha = summed
    outside_span(n_below + n_above, n, low, high, (lo, hi), strict,
                 "hmeasure_stream.dask.binned_auc", stacklevel=4)  # binned_auc's caller
    if not weighted and n >= EXACT_COUNT_LIMIT:
        counts, weighted = counts.astype(np.float64), True
    return BinnedAUCResult(**result_fields(
        counts[:m].copy(), counts[m:].copy(), n_below, n_above, weighted, lo, hi, transform,
        alpha))


def binned_auc(y_true: Collection, y_score: Collection, *, bins: int = 1000,
               transform: str | None = None, loglog_alpha: float | None = None,
               score_range: tuple[float, float] = (0.0, 1.0),
               sample_weight: Collection | None = None, compute: bool = True,
               pos_label: Hashable | None = None, strict: bool = False
               ) -> BinnedAUCResult | Delayed:
    """Binned AUC of a dask collection, with its error bound: one histogram per partition.

    Equal to :func:`hmeasure_stream.binned_auc` of the data in memory: the
    same bins, counts, AUC and bounds.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute, pos_label
        As for :func:`auc`.
    bins, transform, loglog_alpha, score_range, strict
        As for :func:`hmeasure_stream.binned_auc`: scores outside
        ``score_range`` give one :class:`~hmeasure_stream.OutOfRangeScoresWarning`
        (a ``ValueError`` with ``strict=True``) naming how many of the whole
        collection and their span.

    Returns
    -------
    BinnedAUCResult or dask.delayed.Delayed
        As :func:`hmeasure_stream.binned_auc` returns it.

    Raises
    ------
    ValueError
        As for :func:`hmeasure_stream.binned_auc`.

    See Also
    --------
    hmeasure_stream.binned_auc : the same on arrays in memory.
    auc : the exact AUC of a dask collection.

    Notes
    -----
    Each partition counts its points into the bins (one compiled pass); the
    histograms of the partitions add up to that of the whole, one
    reduction.  With ``transform="loglog"`` and no ``loglog_alpha``, alpha
    is estimated from the same evenly strided sample of at most 65536
    scores as in memory (a first pass finds the partitions' lengths).
    Each partition also sends its number of scores outside ``score_range``
    and its span, so the warning (or refusal) counts the whole collection;
    with ``compute=False`` it comes when the result is computed.

    References
    ----------
    R. R. Bouckaert, "Efficient AUC learning curve calculation", Sec. 4.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array([0, 0, 1, 0, 1, 1], chunks=4)
    >>> s = da.from_array([0.1, 0.42, 0.45, 0.7, 0.8, 0.95], chunks=4)
    >>> result = hsd.binned_auc(y, s, bins=4)
    >>> result.counts_neg, result.counts_pos
    (array([1, 1, 1, 0]), array([0, 1, 0, 2]))
    >>> result.auc, result.max_error
    (0.8333333333333334, 0.05555555555555555)
    """
    m = check_bins(bins)
    transform, alpha = check_transform(transform, loglog_alpha)
    lo, hi = check_score_range(score_range)
    strict = check_strict(strict)
    pos_label = check_pos_label(pos_label)
    parts = _aligned([("y_true", y_true), ("y_score", y_score), ("sample_weight", sample_weight)])
    weighted = sample_weight is not None
    params = (lo, hi, m, transform)
    neg_label = _neg_label(parts, pos_label)
    if transform is not None and alpha is None:
        lengths = [dask.delayed(_length, pure=True)(s) for _, s, _ in parts]
        plan = dask.delayed(_sample_plan, pure=True)(lengths)
        step, offsets = plan[0], plan[1]
        samples = [
            dask.delayed(_strided, pure=True)(k, s, offsets[k], step)
            for k, (_, s, _) in enumerate(parts)
        ]
        alpha = dask.delayed(_alpha_of, pure=True)(lo, hi, *samples)
    counts = [
        dask.delayed(_bin_counts, pure=True)(k, y, s, w, weighted, params, alpha, pos_label,
                                             neg_label)
        for k, (y, s, w) in enumerate(parts)
    ]
    summed = _finish(dask.delayed(_summed, pure=True)(alpha, *counts), compute)
    if compute:
        return _binned_of(summed, params, weighted, transform, strict)
    return cast("Delayed",
                dask.delayed(_binned_of, pure=True)(summed, params, weighted, transform, strict))


# ---------------------------------------------------------------------------
# multiclass_auc


def _score_block(part: Any, n_classes: int) -> NDArray[np.float64]:
    matrix = part.to_numpy() if hasattr(part, "to_numpy") else np.asarray(part)
    if matrix.ndim != 2 or matrix.shape[1] != n_classes:
        raise ValueError(
            f"y_score must be 2-d with {n_classes} columns, got a block of shape {matrix.shape}"
        )
    scores = np.empty(matrix.shape, dtype=np.float64, order="F")
    for column in range(n_classes):
        scores[:, column] = check_scores(matrix[:, column], name=f"y_score[:, {column}]",
                                         allow_empty=True, ranks=False)
    return cast("NDArray[np.float64]", check_finite_matrix(scores))


def _label_values(index: int, y_part: Part) -> Any:
    def run() -> Any:
        array = as_label_array(y_part) if len(y_part) else np.empty(0, dtype=object)
        if array.size == 0:
            return []
        return encode_sorted(array)[0]

    return _in_partition(index, run)


def _classes_of(n_classes: int, *per_partition: Iterable[Any]) -> list[Any]:
    distinct: set[Any] = set()
    for values in per_partition:
        distinct.update(values)
    try:
        classes = sorted(distinct)
    except TypeError:
        raise ValueError(
            "y_true holds labels that cannot be sorted together; pass classes= to give the "
            "column order of y_score"
        ) from None
    if len(classes) != n_classes:
        raise ValueError(
            f"y_true has {len(classes)} classes but y_score has {n_classes} columns; "
            "pass classes= to name the class of each column"
        )
    return classes


def _encoded(index: int, y_part: Part, s_part: Part, w_part: Part, classes: Sequence[Any],
             n_classes: int, weighted: bool
             ) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64] | None]:
    """A partition as (class codes, float64 score matrix, weights or None)."""
    def run() -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64] | None]:
        if len(y_part):
            array = as_label_array(y_part)
            _, codes = encode_given(array, classes)
        else:
            codes = np.empty(0, dtype=np.intp)
        scores = _score_block(s_part, n_classes)
        if scores.shape[0] != codes.shape[0]:
            raise ValueError(
                f"y_true and y_score have different lengths: {codes.shape[0]} and "
                f"{scores.shape[0]}"
            )
        weights = check_weights(w_part, codes.shape[0]) if weighted else None
        return codes, scores, weights

    return _in_partition(index, run)


def _class_mass(part: tuple[NDArray[np.intp], Any, NDArray[np.float64] | None],
                n_classes: int) -> NDArray[np.float64]:
    codes, _, weights = part
    return np.bincount(codes, weights=weights, minlength=n_classes).astype(np.float64)


def _problem_groups(part: tuple[NDArray[np.intp], NDArray[np.float64],
                                NDArray[np.float64] | None],
                    high: int, low: int | None) -> Groups:
    """Groups of the binary problem "class ``high`` against class ``low`` (None: all others)".

    Column ``high`` is the score; class ``high`` is class 1.
    """
    codes, scores, weights = part
    if low is None:
        labels = (codes == high).view(np.uint8)
        column = np.ascontiguousarray(scores[:, high])
        return cast("Groups", _groups_of(labels, column, weights))
    keep = (codes == high) | (codes == low)
    labels = np.ascontiguousarray(codes[keep] == high).view(np.uint8)
    column = np.ascontiguousarray(scores[keep, high])
    return cast("Groups", _groups_of(labels, column, None if weights is None else weights[keep]))


def _pair_auc(*summaries: Summary) -> float:
    """The AUC of one binary problem (nan without a class; the masses are checked apart)."""
    exact, weight_neg, weight_pos, _, _, twice_u = _totals(summaries)
    if not (weight_neg > 0 and weight_pos > 0):
        return math.nan
    if exact:
        return float(twice_u / (2 * weight_neg * weight_pos))
    return float(twice_u / (2.0 * weight_neg * weight_pos))


def _multiclass_of(method: str, average: str | None, classes: Sequence[Any], n_classes: int,
                   masses: Sequence[NDArray[np.float64]], weighted: bool, *values: float
                   ) -> Any:
    # The rules and the averages of multiclass_auc (a class without points is nan in
    # ``values``: its binary problems lack a class).
    class_mass = np.sum(masses, axis=0)
    check_classes_present(classes, class_mass, method, average, weighted)
    if method == "ovr":
        return averaged(np.array(values, dtype=np.float64), method, average, class_mass)
    pairwise = np.full((n_classes, n_classes), np.nan)
    pairs = [(i, j) for i in range(n_classes) for j in range(n_classes) if i != j]
    for (i, j), value in zip(pairs, values, strict=True):
        pairwise[i, j] = value
    return averaged(pairwise, method, average, class_mass)


def multiclass_auc(y_true: Collection, y_score: Array | DataFrame, *, method: str = "ovr",
                   average: str | None = "macro", classes: ArrayLike | None = None,
                   sample_weight: Collection | None = None, n_ranges: int | None = None,
                   compute: bool = True) -> float | NDArray[np.float64] | Delayed:
    """Multi-class AUC of a dask collection: one-vs-rest or Hand and Till's M, exactly.

    Equal to :func:`hmeasure_stream.multiclass_auc` of the data in memory.

    Parameters
    ----------
    y_true : dask array or dask Series of shape (n,)
        Class labels, any hashable values.
    y_score : dask array of shape (n, c) or dask DataFrame with c columns
        Scores of each point for each class, partitioned along the rows
        like ``y_true`` (a dask array is rechunked to one block per row
        chunk).
    method, average, classes
        As for :func:`hmeasure_stream.multiclass_auc`.
    sample_weight, n_ranges, compute
        As for :func:`auc`.

    Returns
    -------
    float, ndarray or dask.delayed.Delayed
        As :func:`hmeasure_stream.multiclass_auc` returns it.

    Raises
    ------
    ValueError
        As for :func:`hmeasure_stream.multiclass_auc`.

    See Also
    --------
    hmeasure_stream.multiclass_auc : the same on arrays in memory.
    hmeasure_stream.DynamicMulticlassAUC : per-shard monitors, combined by ``merge``.

    Notes
    -----
    Every binary AUC of the definition (c one-vs-rest, or c (c - 1)
    one-vs-one A(i|j)) is an exact AUC of the points of its classes, each
    by the range partition of :func:`auc`.  Without ``classes`` the sorted
    distinct labels are found by a reduction first.

    References
    ----------
    D. J. Hand and R. J. Till, "A simple generalisation of the area under the
    ROC curve for multiple class classification problems", Machine Learning
    45, 2001.

    Examples
    --------
    >>> import dask.array as da
    >>> from hmeasure_stream import dask as hsd
    >>> y = da.from_array(["cat", "dog", "emu", "cat", "dog", "emu", "cat"], chunks=3)
    >>> scores = da.from_array(
    ...     [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6], [0.3, 0.5, 0.2],
    ...      [0.5, 0.3, 0.2], [0.1, 0.3, 0.6], [0.4, 0.4, 0.2]], chunks=(3, 3))
    >>> hsd.multiclass_auc(y, scores)
    0.7972222222222222
    >>> hsd.multiclass_auc(y, scores, method="ovo")
    0.8125
    """
    method = check_option(method, "method", METHODS)
    average = check_option(average, "average", AVERAGES)
    if isinstance(y_score, dd.DataFrame):
        n_classes = len(y_score.columns)
    elif isinstance(y_score, da.Array):
        if y_score.ndim != 2:
            raise ValueError(
                "y_score must be 2-d, of shape (n_samples, n_classes), got a dask array of "
                f"shape {y_score.shape}"
            )
        n_classes = y_score.shape[1]
        y_score = y_score.rechunk({1: -1})
    else:
        raise ValueError(
            "y_score must be a 2-d dask array or a dask DataFrame of score columns, got "
            f"{type(y_score).__name__}"
        )
    if n_classes < 2:
        raise ValueError(f"y_score must have one column per class, at least 2; got {n_classes}")
    _check_collection(y_true, "y_true")
    if sample_weight is not None:
        _check_collection(sample_weight, "sample_weight")
    if isinstance(y_score, da.Array) and not any(math.isnan(c) for c in y_score.chunks[0]):
        if isinstance(y_true, da.Array) and y_true.chunks[0] != y_score.chunks[0]:
            y_true = y_true.rechunk((y_score.chunks[0],))
        if isinstance(sample_weight, da.Array) and sample_weight.chunks[0] != y_score.chunks[0]:
            sample_weight = sample_weight.rechunk((y_score.chunks[0],))
    score_parts = _delayed_parts(y_score)
    label_parts = _delayed_parts(y_true)
    weight_parts = _delayed_parts(sample_weight) if sample_weight is not None else None
    counts = {"y_true": len(label_parts), "y_score": len(score_parts)}
    if weight_parts is not None:
        counts["sample_weight"] = len(weight_parts)
    if len(set(counts.values())) > 1:
        described = ", ".join(f"{name}: {n}" for name, n in counts.items())
        raise ValueError(
            f"the inputs must be partitioned alike; numbers of partitions differ ({described})"
        )
    n_ranges = _check_n_ranges(n_ranges, len(score_parts))
    # The classes in column order (a Delayed of them when read from y_true).
    ordered: Any
    if classes is None:
        labels = [dask.delayed(_label_values, pure=True)(k, y) for k, y in enumerate(label_parts)]
        ordered = dask.delayed(_classes_of, pure=True)(n_classes, *labels)
    else:
        ordered, _ = encode_given(np.empty(0), classes)
        if len(ordered) != n_classes:
            raise ValueError(
                f"classes has {len(ordered)} classes but y_score has {n_classes} columns"
            )
    weighted = sample_weight is not None
    encoded = [
        dask.delayed(_encoded, pure=True)(
            k, y, s, None if weight_parts is None else weight_parts[k], ordered, n_classes,
            weighted,
        )
        for k, (y, s) in enumerate(zip(label_parts, score_parts, strict=True))
    ]
    masses = [dask.delayed(_class_mass, pure=True)(part, n_classes) for part in encoded]
    problems: list[tuple[int, int | None]]
    if method == "ovr":
        problems = [(k, None) for k in range(n_classes)]
    else:
        problems = [(i, j) for i in range(n_classes) for j in range(n_classes) if i != j]
    values = []
    for high, low in problems:
        groups = [dask.delayed(_problem_groups, pure=True)(part, high, low) for part in encoded]
        _, summaries = _pipeline(groups, n_ranges, hull=False)
        values.append(dask.delayed(_pair_auc, pure=True)(*summaries))
    result = dask.delayed(_multiclass_of, pure=True)(
        method, average, ordered, n_classes, masses, weighted, *values
    )
    return cast("float | NDArray[np.float64] | Delayed", _finish(result, compute))


# ---------------------------------------------------------------------------
# grouped


def _check_metrics(metrics: str | Iterable[str]) -> tuple[str, ...]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics must name at least one metric")
    for name in names:
        if not isinstance(name, str) or name not in _GROUP_METRICS:
            choices = ", ".join(repr(m) for m in _GROUP_METRICS)
            raise ValueError(f"metrics must be among {choices}; got {name!r}")
    return tuple(dict.fromkeys(names))


_REPORT_NAMES: dict[str, str] = {
    **{name: key for name in _TABLE_METRICS if (key := METRICS[name].report_key) is not None},
    "gini": "Gini"}


def _segment_row(spec: Any, metrics: Sequence[str], summaries: Sequence[Summary]
                 ) -> dict[str, float]:
    """Class weights and the metrics of one segment (nan while a class is absent)."""
    exact, weight_neg, weight_pos, _, _, _ = _totals(summaries)
    row = {"n_neg": weight_neg, "n_pos": weight_pos}
    if weight_neg > 0 and weight_pos > 0:
        auc, curve = _curve_of(_Whole(summaries, "The AUC"), spec)
        values = r_report({}, auc, curve, None, None, None)
        row.update({name: values[_REPORT_NAMES[name]] for name in metrics})
    else:
        row.update({name: math.nan for name in metrics})
    del exact
    return row


def _segment_groups(frame: pandas.DataFrame, columns: tuple[Any, Any, Any], weighted: bool,
                    segment: Hashable, labels_of: tuple[Any, Any] = (None, None)) -> Groups:
    label, score, weight = columns
    try:
        labels = _part_labels(frame[label].to_numpy(), *labels_of, label)
        scores = check_scores(frame[score].to_numpy(), score, allow_empty=True, ranks=False)
        weights = check_weights(frame[weight].to_numpy(), scores.shape[0], weight) \
            if weighted else None
        return cast("Groups", _groups_of(labels, scores, weights, (label, score)))
    except ValueError as exc:
        raise ValueError(f"{exc} (in segment {segment!r})") from None


def _split_rows(part: pandas.DataFrame, by: Hashable, assignment: dict[Any, int],
                n_targets: int) -> list[pandas.DataFrame]:
    """A partition's rows cut by ``assignment`` (segment -> target), one frame per target."""
    target = part[by].map(assignment)
    keep = target.notna().to_numpy()
    rows = part[keep]
    ids = target[keep].to_numpy(dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    rows, ids = rows.iloc[order], ids[order]
    cuts = np.searchsorted(ids, np.arange(n_targets + 1))
    return [rows.iloc[cuts[k]:cuts[k + 1]] for k in range(n_targets)]


def _large_groups(part: pandas.DataFrame, by: Hashable, assignment: dict[Any, int],
                  n_large: int, columns: tuple[Any, Any, Any], weighted: bool,
                  names: Sequence[Hashable], labels_of: tuple[Any, Any]) -> tuple[Groups, ...]:
    frames = _split_rows(part, by, assignment, n_large)
    return tuple(
        _segment_groups(frame, columns, weighted, names[k], labels_of)
        for k, frame in enumerate(frames)
    )


def _small_bucket(by: Hashable, columns: tuple[Any, Any, Any], weighted: bool, spec: Any,
                  metrics: Sequence[str], lower: bool, labels_of: tuple[Any, Any],
                  *frames: pandas.DataFrame) -> dict[Any, dict[str, float]]:
    """Every small segment of one bucket, gathered: {segment: row}."""
    frame = pd.concat(frames)
    rows = {}
    for segment, rows_of in frame.groupby(by, sort=False):
        groups = _segment_groups(rows_of, columns, weighted, segment, labels_of)
        rows[segment] = _segment_row(spec, metrics, [_summarise(groups, lower)])
    return rows


def _large_row(spec: Any, metrics: Sequence[str], segment: Hashable, *summaries: Summary
               ) -> dict[Any, dict[str, float]]:
    return {segment: _segment_row(spec, metrics, summaries)}


def _buckets(sizes: pandas.Series, capacity: int) -> tuple[dict[Any, int], int]:
    """Small segments packed into buckets of about ``capacity`` rows (largest first)."""
    n_buckets = max(1, -(-int(sizes.sum()) // capacity))
    heap = [(0, k) for k in range(n_buckets)]
    assignment = {}
    for segment, size in sizes.sort_values(ascending=False, kind="stable").items():
        load, k = heapq.heappop(heap)
        assignment[segment] = k
        heapq.heappush(heap, (load + int(size), k))
    return assignment, n_buckets


def grouped(df: DataFrame, *, by: Hashable, label: Hashable, score: Hashable,
            weight: Hashable | None = None, metrics: str | Iterable[str] = ("auc", "h"),
            alpha: float = 2.0, beta: float = 2.0, severity_ratio: float | None = None,
            priors: tuple[float, float] | None = None, small_rows: int | None = None,
            pos_label: Hashable | None = None) -> pandas.DataFrame:
    """Exact metrics of every segment of a dask DataFrame, as a pandas DataFrame.

    For each value of the column ``by``, the metrics of its rows, equal to
    the in-memory functions on those rows.  A segment with at most
    ``small_rows`` rows is gathered in one task with other small segments;
    the rows of a larger segment are never gathered: it gets its own range
    partition, as :func:`auc`.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        The data.
    by : str
        Column of the segments (any hashable values; rows whose segment is
        missing are left out, as pandas' ``groupby`` does).
    label, score : str
        Columns of the labels (0/1 or bool, or any two labels with
        ``pos_label``) and the scores.
    weight : str, optional
        Column of the sample weights.
    metrics : sequence of str, default=("auc", "h")
        Among "auc", "h", "auch", "gini", "ks", "mer", "mwl" (the values of
        :func:`hmeasure_stream.hmeasure_report` of that name).
    alpha, beta, severity_ratio, priors
        The H-measure's options, as for :func:`hmeasure_stream.h_measure`.
    small_rows : int, optional
        Segments with at most this many rows are small; default the mean
        number of rows of a partition.
    pos_label : hashable, optional
        The label of class 1 in ``label``; the one other label of the whole
        column is class 0, agreed over all partitions by a light pass of its
        own over the label column (a third label is an error naming it and
        its partition).  A segment holding only one of the two labels has
        nan metrics.

    Returns
    -------
    pandas.DataFrame
        One row per segment, indexed by the segment values (sorted when they
        can be), with the columns ``n_neg`` and ``n_pos`` (class weights)
        and the metrics.  A segment with one class only has nan metrics.

    Raises
    ------
    ValueError
        If ``df`` is not a dask DataFrame, a column is missing, a metric or
        an option is unknown, or on invalid data (the message names the
        segment).

    See Also
    --------
    hmeasure_report : the fixed-level values too, for one classifier.

    Notes
    -----
    A first pass counts the rows of each segment (``value_counts``).  Small
    segments are packed into buckets of about ``small_rows`` rows (largest
    first, into the least filled bucket); each partition sends each bucket
    its rows, and a bucket computes its segments one by one.  Each large
    segment of s rows is cut into about s / small_rows score ranges, as in
    :func:`auc`, from its groups in every partition (one pass over each
    partition for all large segments).

    References
    ----------
    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from hmeasure_stream import dask as hsd
    >>> frame = pd.DataFrame({
    ...     "segment": ["a", "a", "a", "a", "b", "b", "b", "b"],
    ...     "label": [0, 1, 0, 1, 0, 0, 1, 1],
    ...     "score": [0.1, 0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.8],
    ... })
    >>> df = dd.from_pandas(frame, npartitions=2)
    >>> hsd.grouped(df, by="segment", label="label", score="score", metrics=("auc",))
             n_neg  n_pos   auc
    segment
    a            2      2  0.75
    b            2      2  0.75
    """
    if not isinstance(df, dd.DataFrame):
        raise ValueError(f"df must be a dask DataFrame, got {type(df).__name__}")
    metrics = _check_metrics(metrics)
    spec = check_cost(alpha, beta, severity_ratio, priors)
    for name, column in (("by", by), ("label", label), ("score", score), ("weight", weight)):
        if column is not None and column not in df.columns:
            raise ValueError(f"{name}={column!r} is not a column of df: {list(df.columns)}")
    if small_rows is not None:
        small_rows = check_integer(small_rows, "small_rows", 1)
    pos_label = check_pos_label(pos_label)
    weighted = weight is not None
    columns = (label, score, weight)
    used = [c for c in dict.fromkeys((by, label, score, weight)) if c is not None]
    frame = df[used]
    parts = frame.to_delayed()
    sizes, lengths = dask.compute(frame[by].value_counts(), frame.map_partitions(len))
    neg_label = None
    if pos_label is not None:
        # The class 0 label of the whole column, agreed by all partitions (a pass of its own).
        neg_label = _neg_label([(part[label],) for part in parts], pos_label, name=label)
        neg_label = dask.compute(neg_label)[0]
    labels_of = (pos_label, neg_label)
    capacity = int(small_rows) if small_rows is not None else max(
        1, -(-int(np.sum(lengths)) // max(1, len(lengths)))
    )
    lower = any(LOWER_HULL in METRICS[name].needs for name in metrics if name in METRICS)
    small = sizes[sizes <= capacity]
    large = sizes[sizes > capacity]
    results = []
    if small.size:
        assignment, n_buckets = _buckets(small, capacity)
        cut = [
            dask.delayed(_split_rows, pure=True, nout=n_buckets)(p, by, assignment, n_buckets)
            for p in parts
        ]
        results += [
            dask.delayed(_small_bucket, pure=True)(
                by, columns, weighted, spec, metrics, lower, labels_of,
                *[pieces[b] for pieces in cut]
            )
            for b in range(n_buckets)
        ]
    if large.size:
        names = list(large.index)
        assignment = {segment: k for k, segment in enumerate(names)}
        per_part = [
            dask.delayed(_large_groups, pure=True, nout=len(names))(
                p, by, assignment, len(names), columns, weighted, names, labels_of
            )
            for p in parts
        ]
        for k, segment in enumerate(names):
            n_ranges = max(1, -(-int(large[segment]) // capacity))
            _, summaries = _pipeline([groups[k] for groups in per_part], n_ranges, lower)
            results.append(
                dask.delayed(_large_row, pure=True)(spec, metrics, segment, *summaries)
            )
    rows = {}
    for found in dask.compute(*results):
        rows.update(found)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table = table.reindex(columns=["n_neg", "n_pos", *metrics])
    table.index.name = by
    try:
        table = table.sort_index()
    except TypeError:
        pass
    return table
