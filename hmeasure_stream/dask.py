"""Exact AUC, H-measure and R hmeasure's report on dask collections.

The functions of this module take dask arrays or dask DataFrame columns
(``y_true``, ``y_score``, optional ``sample_weight``, partitioned alike) and
return the same values as their in-memory namesakes, computed where the
partitions live:

- :func:`auc`, :func:`h_measure`, :func:`roc_hull`, :func:`hmeasure_report`,
  :func:`partial_auc`, :func:`auc_ci` (DeLong), :func:`multiclass_auc`:
  exact, from the partitions' distinct scores merged exactly;
- :func:`binned_auc`: a histogram per partition, summed;
- :func:`grouped`: exact metrics per segment of a dask DataFrame, as a
  pandas DataFrame.

How: every partition is reduced to its distinct scores with their class
weights (*groups*), sorted; a tree of merges (8 at a time, the last up to
64; each one pass over its children's groups, equal scores summed: exact
integers without weights) gathers them, so a call on P partitions is a
graph of O(P) tasks, one graph layer.  Where only the counts (and the
upper hull) are needed, the last merge keeps those and stores no groups.
Columns of one dask DataFrame are read as one projection of it, each
partition's columns side by side as read.  With ``n_ranges=R`` a sample
of the scores chooses boundaries that cut them into R ranges of
about equal numbers of groups; every partition cuts its groups at the
boundaries (by value, so the points of one score are always in one range)
and each range merges its pieces by a tree of its own: no task holds more
than about 1 / R of the distinct scores, for about 1.15 R + 2 more tasks
per partition.  A range sends a few numbers and the vertices of its ROC hull:
the Mann-Whitney statistic of the whole is the sum of the ranges' own plus,
for each range, its class 0 weight times the class 1 weight of the ranges
above it, and the ROC hull of the whole is the hull of the ranges' hulls
translated by the weights above them.  Metrics that need single points of
the ROC curve (the report's fixed-level values, the partial area, DeLong's
placements) ask each range in a second step, given those offsets.  See the
documentation page "Dask".
"""

from __future__ import annotations

import functools
import importlib
import math
import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
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
from hmeasure_stream._core.groups import cut_classes as _cut_classes
from hmeasure_stream._core.groups import groups_of as _groups_of
from hmeasure_stream._core.groups import merge as _merge
from hmeasure_stream._core.groups import merged_counts as _merged_counts
from hmeasure_stream._core.groups import merged_hull as _merged_hull
from hmeasure_stream._core.groups import sorted_range_summary as _sorted_range_summary
from hmeasure_stream._core.groups import split_classes_of as _split_classes_of
from hmeasure_stream._core.groups import summarise as _summarise
from hmeasure_stream._core.groups import totals as _totals
from hmeasure_stream._core.partial import corrected, count_group_parts, exact_area
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
    check_scores,
    check_weights,
    equal_mask,
    first_other_labels,
    import_optional,
    is_missing,
    raise_bad_label,
    raise_bad_score,
    renamed_keyword,
    same_label,
    third_label_message,
    threshold_key,
)
from hmeasure_stream.binned import BinnedAUCResult
from hmeasure_stream.metric_table import EXACT_AUC, HULL, LOWER_HULL, METRICS, REPORT

dask, da, dd, pd, dask_delayed, dask_graphs = import_optional(
    "dask", "dask.array", "dask.dataframe", "pandas", "dask.delayed", "dask.highlevelgraph",
    needed_by="hmeasure_stream.dask", install="hmeasure_stream[dask]")

if TYPE_CHECKING:
    import pandas
    from dask.array import Array
    from dask.dataframe import DataFrame, Index, Series
    from dask.delayed import Delayed

    from hmeasure_stream._core.delong import ConfidenceInterval

    #: A 1-d dask collection: a dask array, or a dask DataFrame's column or index.
    Collection = Array | Series | Index
    #: A partition (numpy array, pandas Series or DataFrame).
    Part = Any
    #: A partition's or a range's groups: distinct scores, class 0 and class 1 weights.
    Groups = tuple[NDArray[Any], NDArray[Any], NDArray[Any]]
    #: A partition's or a range's piece of its scores by class, (class 0, class 1), unsorted.
    Classes = tuple[NDArray[np.float64], NDArray[np.float64]]
    #: A range's summary (``_core.groups.summarise``).
    Summary = Any
    #: The offsets and totals the ranges are given in a second step.
    Context = dict[str, Any]
    #: Where a partition's input is among its values: ("value", j) -> values[j];
    #: ("columns", j, start, stop, one) -> columns start:stop of the stacked frame
    #: values[j] (a Series when ``one``); None: no such input.
    Layout = tuple[Any, ...]
    #: A partition's (or several partitions') histograms, counts outside the range,
    #: number of scores and span.
    Histograms = tuple[NDArray[Any], int, int, int, float, float]
    #: A partition's (or several's) class weights and groups of each binary problem.
    #: (class weights, groups of problem 0, groups of problem 1, ...).
    Problems = tuple[Any, ...]
    #: Segments' groups: {segment: groups}.
    Segments = dict[Any, Groups]

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


_T = TypeVar("_T")
# Fan-in of the merge trees: P partitions take about P / (_WIDTH - 1) merges.
_WIDTH = 8
# Fan-in of the last merge of groups: one pass over its children's groups (a loser
# tree: log2 of the fan-in per group) whose result alone is new memory.
_ROOT_WIDTH = 64


# ---------------------------------------------------------------------------
# The graph of a call: tasks on the partitions' keys, merged by trees


class _Key:
    """A task's key among the arguments of :meth:`_Graph.task` (its value is passed)."""

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key


def _run(function: Callable[..., _T], template: tuple[tuple[str, Any], ...], *values: Any
         ) -> _T:
    """``function`` called with the literals of ``template`` and the values of its keys."""
    found = iter(values)
    args = [item if kind == "literal" else next(found) if kind == "key"
            else [next(found) for _ in range(item)] for kind, item in template]
    return function(*args)


class _Graph:
    """The tasks of one call, one graph layer on top of the inputs' graphs.

    A task's key is a hash of its function, literals and the keys it reads
    (as ``dask.delayed(..., pure=True)``), so that calls on the same inputs
    share their common tasks in one compute.  Literals travel inside the
    task's callable, out of dask's reach.
    """

    def __init__(self, sources: Sequence[Delayed]) -> None:
        self.sources = sources
        self.tasks: dict[str, Any] = {}

    def task(self, function: Callable[..., Any], *args: Any) -> _Key:
        """A task of ``function(*args)``: a ``_Key`` or a list of them stands for its value."""
        template: list[tuple[str, Any]] = []
        keys: list[Any] = []
        for arg in args:
            if isinstance(arg, _Key):
                template.append(("key", None))
                keys.append(arg.key)
            elif isinstance(arg, list) and arg and all(isinstance(a, _Key) for a in arg):
                template.append(("keys", len(arg)))
                keys.extend(a.key for a in arg)
            else:
                template.append(("literal", arg))
        frozen = tuple(template)
        name = f"{function.__name__.strip('_')}-{dask.base.tokenize(function, frozen, keys)}"
        self.tasks[name] = (functools.partial(_run, function, frozen), *keys)
        return _Key(name)

    def tree(self, function: Callable[[list[Any]], Any], keys: Sequence[_Key],
             root: Callable[[list[Any]], Any] | None = None, root_width: int = _WIDTH) -> _Key:
        """``function`` applied over ``keys`` by a tree of fan-in ``_WIDTH`` (at least once).

        ``function`` takes a list of values and returns one of the same kind
        (associative, in order): P keys take about P / (_WIDTH - 1) tasks.
        The last task applies ``root`` (``function`` by default) to at most
        ``root_width`` values.
        """
        level = list(keys)
        while len(level) > root_width:
            level = [self.task(function, level[k:k + _WIDTH])
                     for k in range(0, len(level), _WIDTH)]
        return self.task(function if root is None else root, level)

    def delayed(self, key: _Key) -> Delayed:
        layer = f"hmeasure_stream-{key.key}"
        graph = dask_graphs.HighLevelGraph.from_collections(
            layer, dict(self.tasks), dependencies=list(self.sources))
        return cast("Delayed", dask_delayed.Delayed(key.key, graph, layer=layer))


def _finish(graph: _Graph, result: _Key, compute: bool) -> Any:
    if not isinstance(compute, (bool, np.bool_)):
        raise ValueError(f"compute must be True or False, got {compute!r}")
    lazy = graph.delayed(result)
    return dask.compute(lazy)[0] if compute else lazy


def _joined(lists: list[list[_T]]) -> list[_T]:
    """Lists concatenated, in order: the tree of values gathered whole (small ones)."""
    return [item for items in lists for item in items]


# ---------------------------------------------------------------------------
# Inputs: the partitions of dask collections, aligned


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


def _length_message(first: tuple[str, int], other: tuple[str, int]) -> str:
    """The in-memory functions' message for inputs (name, length) of different lengths.

    ``first`` is the one named first in the call.
    """
    (name, length), (other_name, other_length) = first, other
    if other_name == "sample_weight":
        return f"sample_weight has {other_length} entries but there are {length} points"
    return f"{name} and {other_name} have different lengths: {length} and {other_length}"


def _stacked(*columns: Any, names: Sequence[str],
             partition_info: dict[str, Any] | None = None) -> pandas.DataFrame:
    """One partition of several dask DataFrame inputs side by side, by position.

    The inputs are put in one collection so that dask optimises them as one
    (reading a parquet directory, it may join files into fewer partitions,
    by how many columns are read).
    """
    lengths = [len(column) for column in columns]
    for name, length in zip(names[1:], lengths[1:], strict=True):
        if length != lengths[0]:
            message = _length_message((names[0], lengths[0]), (name, length))
            index = partition_info["number"] if partition_info else "?"
            raise ValueError(f"{message} (in partition {index})")
    pieces = [column.reset_index(drop=True) if isinstance(column, pd.DataFrame)
              else pd.Series(column.array) for column in columns]
    return pd.concat(pieces, axis=1, ignore_index=True)


def _projected(frames: Sequence[tuple[str, Any]]) -> tuple[Any, list[tuple[int, int]]] | None:
    """Inputs that are columns of one dask DataFrame, as that frame's projection on them.

    Returns (the projection, each input's (start, stop) among its columns),
    or None when the inputs are not distinct columns of one frame.  Each of
    its partitions then holds the inputs side by side as read, without
    putting them together task by task.
    """
    parent = None
    columns: list[Any] = []
    spans = []
    for _, value in frames:
        expr: Any = getattr(value, "expr", None)
        if type(expr).__name__ != "Projection" or not hasattr(expr, "frame"):
            return None
        if parent is None:
            parent = expr.frame
        elif expr.frame._name != parent._name:
            return None
        selected = expr.operand("columns")
        selected = list(selected) if isinstance(value, dd.DataFrame) else [selected]
        spans.append((len(columns), len(columns) + len(selected)))
        columns.extend(selected)
    meta = getattr(parent, "_meta", None)
    if not isinstance(meta, pd.DataFrame) or not meta.columns.is_unique:
        return None
    try:
        unique = len(set(columns)) == len(columns)
    except TypeError:  # (labels that do not hash)
        return None
    if not unique or not all(column in meta.columns for column in columns):
        return None
    return _new_collection(parent)[columns], spans


def _new_collection(expr: Any) -> Any:
    # dask-expr's constructor of a collection from an expression (a module of dask's
    # own since 2025.1, the dask_expr package before).
    try:
        module = importlib.import_module("dask.dataframe.dask_expr")
    except ImportError:
        module = importlib.import_module("dask_expr")
    return module.new_collection(expr)


def _columns(layout: Layout, values: Sequence[Any]) -> tuple[Any, ...]:
    """A partition's inputs, in the order of the call's names, from its values."""
    out: list[Any] = []
    for place in layout:
        if place is None:
            out.append(None)
        elif place[0] == "value":
            out.append(values[place[1]])
        else:
            _, j, start, stop, one = place
            frame = values[j]
            out.append(frame.iloc[:, start] if one else frame.iloc[:, start:stop])
    return tuple(out)


class _Partitions:
    """The partitions of a call's inputs, aligned: a graph, a layout and P lists of keys.

    Dask arrays with known chunks are rechunked to the row chunks of the
    first one (``y_score`` first); dask DataFrame inputs are stacked into
    one collection, optimised once.  The numbers of partitions must then
    agree (each partition's lengths are checked when it is computed).
    """

    def __init__(self, columns: Sequence[tuple[str, Any]], matrix: str | None = None) -> None:
        present = [(name, value) for name, value in columns if value is not None]
        call_order = [name for name, _ in columns]
        for name, value in present:
            if name != matrix:
                _check_collection(value, name)
        # y_score (second) decides the chunks of the arrays.
        order = sorted(present, key=lambda item: item[0] != columns[1][0])
        arrays = [(name, value) for name, value in order if isinstance(value, da.Array)]
        frames = [(name, value) for name, value in present
                  if not isinstance(value, da.Array)]
        reference = next((value for _, value in arrays
                          if not any(math.isnan(c) for c in value.chunks[0])), None)
        aligned = {}
        for name, value in arrays:
            # Unknown chunks cannot be rechunked: their partitions are taken as they are.
            if reference is not None and value is not reference and not math.isnan(
                    value.shape[0]):
                if value.shape[0] != reference.shape[0]:
                    first = next(n for n, v in arrays if v is reference)
                    raise ValueError(_length_message(*sorted(
                        [(name, value.shape[0]), (first, reference.shape[0])],
                        key=lambda item: call_order.index(item[0]))))
                if value.chunks[0] != reference.chunks[0]:
                    value = value.rechunk((reference.chunks[0],) + (-1,) * (value.ndim - 1))
            aligned[name] = value
        counts = {name: value.numblocks[0] for name, value in aligned.items()}
        counts.update({name: value.npartitions for name, value in frames})
        self._check_counts(counts)
        sources: list[Delayed] = []
        per_part: list[list[Delayed]] = []
        layout: dict[str, tuple[Any, ...]] = {}
        if len(frames) == 1:
            name, value = frames[0]
            per_part.append(list(value.to_delayed()))
            layout[name] = ("value", 0)
        elif frames and (projected := _projected(frames)) is not None:
            frame, spans = projected
            per_part.append(list(frame.to_delayed()))
            for (name, value), (start, stop) in zip(frames, spans, strict=True):
                layout[name] = ("columns", 0, start, stop, not isinstance(value, dd.DataFrame))
        elif frames:
            names = [name for name, _ in frames]
            stacked = dd.map_partitions(
                _stacked, *[value for _, value in frames], names=names,
                align_dataframes=False,
                meta=_stacked(*[value._meta for _, value in frames], names=names))
            per_part.append(list(stacked.to_delayed()))
            start = 0
            for name, value in frames:
                width = len(value.columns) if isinstance(value, dd.DataFrame) else 1
                layout[name] = ("columns", 0, start, start + width, not isinstance(
                    value, dd.DataFrame))
                start += width
        if frames:
            optimised = len(per_part[0])
            if optimised != next(iter(counts.values())) and arrays:
                counts = {name: count if name in aligned else optimised
                          for name, count in counts.items()}
                self._check_counts(counts, " (after dask's optimisation of the DataFrame "
                                           "inputs)")
        for name, value in aligned.items():
            layout[name] = ("value", len(per_part))
            per_part.append(list(cast(Any, value).to_delayed().ravel()))
        for parts in per_part:
            if parts:
                sources.append(parts[0])
        self.sources: list[Delayed] = sources
        self.layout: Layout = tuple(layout.get(name) for name, _ in columns)
        n_parts = len(per_part[0]) if per_part else 0
        self.keys: list[list[_Key]] = [
            [_Key(parts[k].key) for parts in per_part] for k in range(n_parts)]

    @staticmethod
    def _check_counts(counts: dict[str, int], after: str = "") -> None:
        if len(set(counts.values())) > 1:
            described = ", ".join(f"{name}: {n}" for name, n in counts.items())
            raise ValueError(
                "the inputs must be partitioned alike; numbers of partitions differ "
                f"({described}){after}"
            )


def _check_n_ranges(n_ranges: int | None) -> int:
    if n_ranges is None:
        return 1
    return check_integer(n_ranges, "n_ranges", 1)


# ---------------------------------------------------------------------------
# Per partition: validated points as groups (keys, class weights), highest first


def _in_partition(index: int, function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)``, a ValueError saying which partition it comes from."""
    try:
        return function(*args)
    except ValueError as exc:
        raise ValueError(f"{exc} (in partition {index})") from None


def _other_labels(index: int, y_part: Part, pos_label: Hashable, name: Hashable = "y_true"
                  ) -> list[tuple[int, bool, list[tuple[Any, int]]]]:
    """Whether a partition holds ``pos_label``, and its first two other labels.

    Returns ``[(index, pos_found, [(label, position), ...])]``: at most two
    distinct labels other than ``pos_label``, in order of first appearance,
    each with its position in the partition (in a list, to be joined with
    the other partitions').
    """
    def run() -> list[tuple[int, bool, list[tuple[Any, int]]]]:
        array = as_1d(y_part, name, True)
        is_pos = equal_mask(array, pos_label)
        return [(index, bool(is_pos.any()), first_other_labels(array, is_pos))]

    return _in_partition(index, run)


def _input_labels(index: int, layout: Layout, values: Sequence[Any], pos_label: Hashable
                  ) -> list[tuple[int, bool, list[tuple[Any, int]]]]:
    return _other_labels(index, _columns(layout, values)[0], pos_label)


def _agreed_neg_label(pos_label: Hashable, name: Hashable,
                      per_partition: Sequence[tuple[int, bool, list[tuple[Any, int]]]]) -> Any:
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


def _neg_label(graph: _Graph, per_partition: Sequence[_Key], pos_label: Hashable,
               name: Hashable = "y_true") -> _Key:
    """The class 0 label agreed by all partitions, from their ``_other_labels``."""
    gathered = graph.tree(_joined, per_partition)
    return graph.task(_agreed_neg_label, pos_label, name, gathered)


def _labels_of(graph: _Graph, parts: _Partitions, pos_label: Hashable | None) -> Any:
    """The class 0 label agreed by all partitions (None without ``pos_label``)."""
    if pos_label is None:
        return None
    per_partition = [graph.task(_input_labels, k, parts.layout, values, pos_label)
                     for k, values in enumerate(parts.keys)]
    return _neg_label(graph, per_partition, pos_label)


def _part_labels(y_part: Part, pos_label: Hashable | None, neg_label: Any,
                 name: Hashable = "y_true") -> NDArray[Any]:
    """A partition's labels for the kernels: as is, or 0/1 against the agreed labels."""
    if pos_label is None:
        return check_labels(y_part, name, allow_empty=True, signed=False)
    labels = binary_labels(y_part, pos_label, neg_label=neg_label, name=name, allow_empty=True)
    return cast("NDArray[Any]", labels[0])


def _binary_points(layout: Layout, values: Sequence[Any], weighted: bool,
                   pos_label: Hashable | None, neg_label: Any
                   ) -> tuple[NDArray[Any], NDArray[np.float64], NDArray[np.float64] | None]:
    """A partition's labels, scores and weights (None without), their shapes checked."""
    y_part, s_part, w_part = _columns(layout, values)
    labels = _part_labels(y_part, pos_label, neg_label)
    scores = check_scores(s_part, allow_empty=True, ranks=False)
    check_same_length(labels, scores)
    weights = check_weights(w_part, scores.shape[0]) if weighted else None
    return labels, scores, weights


def _binary_groups(index: int, layout: Layout, values: Sequence[Any], weighted: bool,
                   pos_label: Hashable | None = None, neg_label: Any = None) -> Groups:
    def run() -> Groups:
        return cast("Groups", _groups_of(*_binary_points(layout, values, weighted, pos_label,
                                                         neg_label)))

    return _in_partition(index, run)


def _binary_classes(index: int, layout: Layout, values: Sequence[Any],
                    pos_label: Hashable | None = None, neg_label: Any = None) -> Classes:
    """A partition's unit-weight points as its (class 0, class 1) scores, unsorted."""
    def run() -> Classes:
        labels, scores, _ = _binary_points(layout, values, False, pos_label, neg_label)
        return cast("Classes", _split_classes_of(labels, scores))

    return _in_partition(index, run)


# ---------------------------------------------------------------------------
# Merging the partitions' groups: one tree, or a range partition


def _merged(pieces: list[Groups]) -> Groups:
    """Groups of one range (or of the whole) merged, equal scores summed."""
    return cast("Groups", _merge(*pieces))


def _countable(pieces: Sequence[Groups]) -> bool:
    """Unit weights, and few enough points for int64 products of counts (as ``_summarise``)."""
    return all(piece[1].dtype == np.int64 for piece in pieces) and sum(
        int(piece[1].sum()) + int(piece[2].sum()) for piece in pieces) < EXACT_COUNT_LIMIT


def _counted(pieces: list[Groups]) -> Summary:
    """The summary without hulls (``_summarise``) of the merge of ``pieces``.

    With unit weights, from one pass over the pieces that keeps only the
    counts: the range's groups are never stored.
    """
    if _countable(pieces):
        return (*_merged_counts(pieces), None, None)
    return _summarise(_merged(pieces), False, False)


def _hulled(pieces: list[Groups]) -> Summary:
    """The summary with the upper hull (``_summarise``) of the merge of ``pieces``.

    With unit weights, from one pass that keeps the counts and builds the hull
    as the merged groups come: they are never stored.
    """
    if _countable(pieces):
        return (*_merged_hull(pieces), None)
    return _summarise(_merged(pieces), False, True)


def _sample(groups: Sequence[NDArray[Any]], n_ranges: int) -> list[tuple[NDArray[Any], float]]:
    """Evenly spaced scores of a partition's groups (``groups[0]``), each standing for
    len / size groups."""
    keys = groups[0]
    size = min(keys.shape[0], _SAMPLES_PER_RANGE * n_ranges)
    if size == 0:
        return [(keys[:0], 0.0)]
    picks = np.linspace(0, keys.shape[0] - 1, size).round().astype(np.intp)
    return [(keys[picks].copy(), keys.shape[0] / size)]


def _bounds(n_ranges: int, samples: Sequence[tuple[NDArray[Any], float]]) -> NDArray[Any]:
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


def _range_pieces(graph: _Graph, groups: Sequence[_Key], n_ranges: int) -> list[list[_Key]]:
    """The pieces of each range, from the partitions' groups, for a tree of merges each.

    One range: the partitions' groups.  More: a sample of every partition's
    scores sets the boundaries, every partition cuts its groups at them (by
    value) and each range merges its pieces by a tree of its own: a sample,
    a cut and n_ranges pieces per partition, and the trees (a tree of merges
    takes one task per 7 keys): about 1.15 n_ranges + 2 tasks per partition.
    """
    if n_ranges == 1:
        return [list(groups)]
    samples = graph.tree(_joined, [graph.task(_sample, g, n_ranges) for g in groups])
    bounds = graph.task(_bounds, n_ranges, samples)
    cut = [graph.task(_cut, g, bounds, n_ranges) for g in groups]
    return [[graph.task(operator.getitem, c, r) for c in cut] for r in range(n_ranges)]


def _class_sample(classes: Classes, n_ranges: int) -> list[tuple[NDArray[Any], float]]:
    """Evenly spaced scores of each class of a partition (as :func:`_sample`)."""
    return [piece for values in classes for piece in _sample((values,), n_ranges)]


def _sorted_ranges(graph: _Graph, classes: Sequence[_Key], n_ranges: int) -> _Key:
    """The list of the ranges' summaries of the partitions' unsorted classes.

    Each range gathers its scores of every partition and sorts them once
    (``_core.groups.sorted_range_summary``), the ranges side by side: the
    points are sorted once in all, where the merge of the partitions' groups
    reads each group again in one task.  The boundaries come from a sample,
    as in :func:`_range_pieces`.
    """
    if n_ranges == 1:
        return graph.task(list, [graph.task(_sorted_range_summary, list(classes))])
    samples = graph.tree(_joined, [graph.task(_class_sample, c, n_ranges) for c in classes])
    bounds = graph.task(_bounds, n_ranges, samples)
    cut = [graph.task(_cut_classes, c, bounds, n_ranges) for c in classes]
    return graph.task(list, [
        graph.task(_sorted_range_summary, [graph.task(operator.getitem, c, r) for c in cut])
        for r in range(n_ranges)])


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


def _pipeline(graph: _Graph, groups: Sequence[_Key], n_ranges: int, lower: bool = False,
              hull: bool = True, with_groups: bool = True) -> tuple[list[_Key], _Key]:
    """(ranges, the list of their summaries) of the partitions' groups.

    Without ``with_groups`` (nor the lower hull) the ranges' groups are not
    formed, only their summaries (ranges is then empty).
    """
    pieces = _range_pieces(graph, groups, n_ranges)
    if not (with_groups or lower):
        root = _hulled if hull else _counted
        summaries = [graph.tree(_merged, p, root, _ROOT_WIDTH) for p in pieces]
        return [], graph.task(list, summaries)
    ranges = [graph.tree(_merged, p, root_width=_ROOT_WIDTH) for p in pieces]
    summaries = [graph.task(_summarise, g, lower, hull) for g in ranges]
    return ranges, graph.task(list, summaries)  # (one key for the list: read by several)


def _binary_pipeline(y_true: Collection, y_score: Collection, sample_weight: Collection | None,
                     n_ranges: int | None, lower: bool = False, hull: bool = True,
                     pos_label: Hashable | None = None, with_groups: bool = True
                     ) -> tuple[_Graph, list[_Key], _Key]:
    pos_label = check_pos_label(pos_label)
    n_ranges = _check_n_ranges(n_ranges)
    parts = _Partitions([("y_true", y_true), ("y_score", y_score),
                         ("sample_weight", sample_weight)])
    graph = _Graph(parts.sources)
    weighted = sample_weight is not None
    neg_label = _labels_of(graph, parts, pos_label)
    if not (lower or hull or with_groups or weighted):
        classes = [graph.task(_binary_classes, k, parts.layout, values, pos_label, neg_label)
                   for k, values in enumerate(parts.keys)]
        return graph, [], _sorted_ranges(graph, classes, n_ranges)
    groups = [
        graph.task(_binary_groups, k, parts.layout, values, weighted, pos_label, neg_label)
        for k, values in enumerate(parts.keys)
    ]
    return graph, *_pipeline(graph, groups, n_ranges, lower, hull, with_groups)


# ---------------------------------------------------------------------------
# auc, h_measure, roc_hull


def _auc_of(metric: str, summaries: Sequence[Summary]) -> float:
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
        Number of score ranges the work is split into.  By default one.
        Without ``sample_weight`` each partition splits its scores by class
        and one task per range gathers the scores of its range from every
        partition (8 bytes a point) and sorts them: one task per partition
        beyond the inputs' own with one range, about R + 3 with R ranges,
        no task holding more than about 1 / R of the points.  With
        ``sample_weight`` the partitions' groups are merged by a tree of
        merges of 8, whose last task per range holds the range's distinct
        scores (24 bytes each; ties collapsed): about 1.15 tasks per
        partition with one range, 1.15 R + 3 with R.
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
    Without weights each partition splits its scores by class (O(p) for
    p points); with ``n_ranges`` a sample of them sets ``n_ranges - 1``
    boundaries and each partition cuts its classes at them by value
    (O(p log R)); each range sorts its scores of each class and counts its
    twice Mann-Whitney count 2U_r, as in memory (O(n log n) in all, the
    ranges side by side), and 2U = sum_r 2U_r + 2 sum_r N0_r T_r, T_r the
    class 1 count of the ranges above range r: exact integers, so the
    AUC is that of the data in memory bit for bit.  With weights each
    partition reduces its points to distinct scores with their class
    weights (O(p log p)), the ranges cut the same way merge them by trees
    of merges (O(g log P) for g groups from P partitions), and 2U follows
    as above from compensated sums.  The points move once.

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
    graph, _, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges,
                                           hull=False, pos_label=pos_label, with_groups=False)
    return cast("float | Delayed",
                _finish(graph, graph.task(_auc_of, "AUC", summaries), compute))


def _h_of(spec: Any, summaries: Sequence[Summary]) -> float:
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
    The merge of :func:`auc`; each range (the whole, by default) computes
    the upper hull of its own ROC points (O(g)) and sends its edges.  Translated by the
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
    graph, _, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges,
                                           pos_label=pos_label, with_groups=False)
    return cast("float | Delayed", _finish(graph, graph.task(_h_of, spec, summaries), compute))


def _hull_of(summaries: Sequence[Summary]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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
    graph, _, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges,
                                           pos_label=pos_label, with_groups=False)
    return cast("tuple[NDArray[np.float64], NDArray[np.float64]] | Delayed",
                _finish(graph, graph.task(_hull_of, summaries), compute))


# ---------------------------------------------------------------------------
# hmeasure_report


def _report_context(levels: Sequence[float], summaries: Sequence[Summary]) -> Context:
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
    # This range's class weights at or above the report's threshold and below it
    # (``threshold`` is its key: a score is >= the threshold exactly when >= the key).
    keys, neg, pos = groups
    high = keys >= threshold
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
               candidates: Sequence[dict[Any, Any]]) -> dict[str, float] | pandas.DataFrame:
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
    threshold = threshold_key(threshold)  # class 1: score >= threshold, exactly
    graph, ranges, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges,
                                                lower=True, pos_label=pos_label)
    context = graph.task(_report_context, list(levels.values()), summaries)
    candidates = [graph.task(_lookup_candidates, g, context, r, threshold)
                  for r, g in enumerate(ranges)]
    report = graph.task(_report_of, spec, levels, bool(as_frame), summaries, candidates)
    return cast("dict[str, float] | pandas.DataFrame | Delayed",
                _finish(graph, report, compute))


# ---------------------------------------------------------------------------
# partial_auc


def _box_context(summaries: Sequence[Summary]) -> Context:
    return cast("Context", _whole(summaries, "The partial AUC").context())


def _exact_box_piece(groups: Groups, context: Context, r: int, box: tuple[float, ...]
                     ) -> tuple[int, int, int, list[tuple[int, int, int, int]]]:
    """This range's integer parts of the unit-weight area in the box, in the whole's counts.

    The parts ``exact_area`` adds up as in memory, by the in-memory kernel's
    rule (``count_group_parts``); the range's segments start at the class
    counts above it.
    """
    _, neg, pos = groups
    return cast("tuple[int, int, int, list[tuple[int, int, int, int]]]", count_group_parts(
        np.ascontiguousarray(neg, dtype=np.int64), np.ascontiguousarray(pos, dtype=np.int64),
        int(context["fp_offsets"][r]), int(context["tp_offsets"][r]), box[:2], box[2:],
        int(context["weight_neg"]), int(context["weight_pos"])))


def _exact_counts(context: Context) -> bool:
    """Unit weights and few enough points for the int64 products of the exact paths.

    As in memory (``exact_path``): from ``EXACT_COUNT_LIMIT`` points the
    products of counts could overflow, and the float path is taken.
    """
    return bool(context["unit_weights"]
                and context["weight_neg"] + context["weight_pos"] < EXACT_COUNT_LIMIT)


def _box_part(groups: Groups, context: Context, r: int, box: tuple[float, ...]) -> Any:
    if _exact_counts(context):
        return _exact_box_piece(groups, context, r, box)
    keys, neg, pos = groups
    floats = (keys, np.asarray(neg, dtype=np.float64), np.asarray(pos, dtype=np.float64))
    return _box_piece(floats, context, r, box)


def _partial_of(options: tuple[Any, ...], context: Context, pieces: Sequence[Any]) -> float:
    weight_neg, weight_pos = context["weight_neg"], context["weight_pos"]
    fpr_box, tpr_box = options[:2]
    if _exact_counts(context):
        # As partial.py: the integer parts, the crossing segments cut in exact rational
        # arithmetic, the (corrected) area rounded once.
        twice_inside, width_inside, width_above = (sum(p[k] for p in pieces) for k in range(3))
        area = exact_area(twice_inside, width_inside, width_above,
                          [cut for piece in pieces for cut in piece[3]], fpr_box, tpr_box,
                          weight_neg, weight_pos)
        return float(corrected(area, *options))
    total = math.fsum(p for p in pieces if p is not None)
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
    After the merge of :func:`auc`, every range is handed the class
    weights above it and measures its own piece of the curve in the box:
    without weights, in the whole's integer counts against the box's exact
    sides, the segments inside or above it summed as integers and the few
    crossing a side cut in rational arithmetic, rounded once (as
    :func:`hmeasure_stream.partial_auc`); with weights by the kernel of the
    in-memory function.

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
    graph, ranges, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges,
                                                hull=False, pos_label=pos_label)
    context = graph.task(_box_context, summaries)
    box = (*fpr_box, *tpr_box)
    pieces = [graph.task(_box_part, g, context, r, box) for r, g in enumerate(ranges)]
    options = (fpr_box, tpr_box, fpr_range, tpr_range, correction)
    result = graph.task(_partial_of, options, context, pieces)
    return cast("float | Delayed", _finish(graph, result, compute))


# ---------------------------------------------------------------------------
# auc_ci (DeLong)


def _delong_context(summaries: Sequence[Summary]) -> Context:
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
    if _exact_counts(context):
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


def _interval_of(context: Context, level: float, pieces: Sequence[tuple[float, float]]
                 ) -> ConfidenceInterval:
    n, m = float(context["weight_neg"]), float(context["weight_pos"])
    sum_pos = math.fsum(p[0] for p in pieces)
    sum_neg = math.fsum(p[1] for p in pieces)
    if _exact_counts(context):
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
        ``(low, high)``, with the AUC as ``estimate``.

    Raises
    ------
    ValueError
        As for :func:`hmeasure_stream.auc_ci`; if ``method`` is not "delong".

    See Also
    --------
    hmeasure_stream.auc_ci : the same on arrays in memory.

    Notes
    -----
    Points of one score share their placements, so after the merge of
    :func:`auc` each range, handed the class weights above it
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
    graph, ranges, summaries = _binary_pipeline(y_true, y_score, sample_weight, n_ranges,
                                                hull=False, pos_label=pos_label)
    context = graph.task(_delong_context, summaries)
    pieces = [graph.task(_delong_piece, g, context, r) for r, g in enumerate(ranges)]
    return cast("ConfidenceInterval | Delayed", _finish(
        graph, graph.task(_interval_of, context, level, pieces), compute))


# ---------------------------------------------------------------------------
# binned_auc


def _length(index: int, layout: Layout, values: Sequence[Any]) -> list[int]:
    return [int(np.shape(_columns(layout, values)[1])[0])]


def _strided(index: int, layout: Layout, values: Sequence[Any], plan: tuple[int, list[int]]
             ) -> list[NDArray[np.float64]]:
    """The scores of a partition at global positions 0, step, 2 step, ..."""
    step, offsets = plan

    def run() -> list[NDArray[np.float64]]:
        scores = check_scores(_columns(layout, values)[1], allow_empty=True, ranks=False)
        return [scores[(-offsets[index]) % step::step]]

    return _in_partition(index, run)


def _alpha_of(lo: float, hi: float, samples: Sequence[NDArray[np.float64]]) -> float:
    sample = np.concatenate(samples) if samples else np.empty(0)
    if sample.size == 0:
        raise ValueError("y_true is empty: at least one point is needed")
    return float(estimate_alpha(sample, lo, hi))


def _sample_plan(lengths: Sequence[int]) -> tuple[int, list[int]]:
    total = sum(lengths)
    step = max(1, -(-total // ALPHA_SAMPLE))
    offsets = np.concatenate(([0], np.cumsum(lengths)))[:-1].tolist()
    return step, offsets


def _bin_counts(index: int, layout: Layout, values: Sequence[Any], weighted: bool,
                params: tuple[float, float, int, str | None], alpha: float | None,
                pos_label: Hashable | None = None, neg_label: Any = None) -> Histograms:
    lo, hi, m, transform = params

    def run() -> Histograms:
        y_part, s_part, w_part = _columns(layout, values)
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


def _added(parts: Sequence[Histograms]) -> Histograms:
    """Histograms added up, with their counts outside the range and spans."""
    counts = parts[0][0].copy()
    for part in parts[1:]:
        counts += part[0]
    return (counts, sum(p[1] for p in parts), sum(p[2] for p in parts), sum(p[3] for p in parts),
            min(p[4] for p in parts), max(p[5] for p in parts))


def _summed(summed: Histograms, alpha: float | None
            ) -> tuple[NDArray[Any], int, int, int, float, float, float | None]:
    if summed[3] == 0:
        raise ValueError("y_true is empty: at least one point is needed")
    return (*summed, alpha)


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


def binned_auc(y_true: Collection, y_score: Collection, *, n_bins: int = 1000,
               transform: str | None = None, loglog_alpha: float | None = None,
               score_range: tuple[float, float] = (0.0, 1.0),
               sample_weight: Collection | None = None, compute: bool = True,
               pos_label: Hashable | None = None, strict: bool = False,
               bins: int | None = None) -> BinnedAUCResult | Delayed:
    """Binned AUC of a dask collection, with its error bound: one histogram per partition.

    Equal to :func:`hmeasure_stream.binned_auc` of the data in memory: the
    same bins, counts, AUC and bounds.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute, pos_label
        As for :func:`auc`.
    n_bins, transform, loglog_alpha, score_range, strict
        As for :func:`hmeasure_stream.binned_auc`: scores outside
        ``score_range`` give one :class:`~hmeasure_stream.OutOfRangeScoresWarning`
        (a ``ValueError`` with ``strict=True``) naming how many of the whole
        collection and their span.
    bins : int, optional
        Deprecated name of ``n_bins`` (removed in the next release).

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
    >>> result = hsd.binned_auc(y, s, n_bins=4)
    >>> result.counts_neg, result.counts_pos
    (array([1, 1, 1, 0]), array([0, 1, 0, 2]))
    >>> result.auc, result.max_error
    (0.8333333333333334, 0.05555555555555555)
    """
    n_bins = renamed_keyword("binned_auc", "bins", "n_bins", bins, n_bins, 1000)
    m = check_bins(n_bins, "n_bins")
    transform, alpha = check_transform(transform, loglog_alpha)
    lo, hi = check_score_range(score_range)
    strict = check_strict(strict)
    pos_label = check_pos_label(pos_label)
    parts = _Partitions([("y_true", y_true), ("y_score", y_score),
                         ("sample_weight", sample_weight)])
    graph = _Graph(parts.sources)
    weighted = sample_weight is not None
    params = (lo, hi, m, transform)
    neg_label = _labels_of(graph, parts, pos_label)
    if transform is not None and alpha is None:
        lengths = graph.tree(_joined, [graph.task(_length, k, parts.layout, values)
                                       for k, values in enumerate(parts.keys)])
        plan = graph.task(_sample_plan, lengths)
        samples = graph.tree(_joined, [graph.task(_strided, k, parts.layout, values, plan)
                                       for k, values in enumerate(parts.keys)])
        alpha = graph.task(_alpha_of, lo, hi, samples)
    counts = [
        graph.task(_bin_counts, k, parts.layout, values, weighted, params, alpha, pos_label,
                   neg_label)
        for k, values in enumerate(parts.keys)
    ]
    summed = graph.task(_summed, graph.tree(_added, counts), alpha)
    if compute:
        return _binned_of(_finish(graph, summed, True), params, weighted, transform, strict)
    return cast("Delayed", _finish(
        graph, graph.task(_binned_of, summed, params, weighted, transform, strict), False))


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


def _label_values(index: int, layout: Layout, values: Sequence[Any]) -> list[Any]:
    def run() -> list[Any]:
        y_part = _columns(layout, values)[0]
        array = as_label_array(y_part) if len(y_part) else np.empty(0, dtype=object)
        if array.size == 0:
            return []
        return list(encode_sorted(array)[0])

    return _in_partition(index, run)


def _union(per_partition: Sequence[Iterable[Any]]) -> list[Any]:
    distinct: set[Any] = set()
    for values in per_partition:
        distinct.update(values)
    return list(distinct)


def _classes_of(n_classes: int, distinct: Sequence[Any]) -> list[Any]:
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


def _problems_of(index: int, layout: Layout, values: Sequence[Any], classes: Sequence[Any],
                 n_classes: int, weighted: bool, problems: Sequence[tuple[int, int | None]]
                 ) -> Problems:
    """A partition's class weights and the groups of each binary problem."""
    y_part, s_part, w_part = _columns(layout, values)
    part = _encoded(index, y_part, s_part, w_part, classes, n_classes, weighted)
    return (_class_mass(part, n_classes),
            *(_problem_groups(part, high, low) for high, low in problems))


def _mass_sum(masses: Sequence[NDArray[np.float64]]) -> NDArray[np.float64]:
    return cast("NDArray[np.float64]", np.sum(masses, axis=0))


def _merged_problems(parts: Sequence[Problems]) -> Problems:
    return (_mass_sum([part[0] for part in parts]),
            *(_merge(*[part[k] for part in parts]) for k in range(1, len(parts[0]))))


def _problem_aucs(whole: Problems) -> list[float]:
    return [_pair_auc([_summarise(groups, False, False)]) for groups in whole[1:]]


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


def _pair_auc(summaries: Sequence[Summary]) -> float:
    """The AUC of one binary problem (nan without a class; the masses are checked apart)."""
    exact, weight_neg, weight_pos, _, _, twice_u = _totals(summaries)
    if not (weight_neg > 0 and weight_pos > 0):
        return math.nan
    if exact:
        return float(twice_u / (2 * weight_neg * weight_pos))
    return float(twice_u / (2.0 * weight_neg * weight_pos))


def _multiclass_of(method: str, average: str | None, classes: Sequence[Any], n_classes: int,
                   class_mass: NDArray[np.float64], weighted: bool, values: Sequence[float]
                   ) -> Any:
    # The rules and the averages of multiclass_auc (a class without points is nan in
    # ``values``: its binary problems lack a class).
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
    one-vs-one A(i|j)) is an exact AUC of the points of its classes: each
    partition computes the groups of all of them in one task, merged by
    one tree (with ``n_ranges``, each problem's by a range partition of its
    own, as :func:`auc`).  That task holds the groups of every problem:
    up to c times the partition's points one-vs-rest, 2 (c - 1) times
    one-vs-one (every point is in the problems of its class against each
    other one, both ways), 24 bytes a group.  Without ``classes`` the
    sorted distinct labels are found by a reduction first.

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
    parts = _Partitions([("y_true", y_true), ("y_score", y_score),
                         ("sample_weight", sample_weight)], matrix="y_score")
    graph = _Graph(parts.sources)
    n_ranges = _check_n_ranges(n_ranges)
    # The classes in column order (a task's key when read from y_true).
    ordered: Any
    if classes is None:
        labels = [graph.task(_label_values, k, parts.layout, values)
                  for k, values in enumerate(parts.keys)]
        ordered = graph.task(_classes_of, n_classes, graph.tree(_union, labels))
    else:
        ordered, _ = encode_given(np.empty(0), classes)
        if len(ordered) != n_classes:
            raise ValueError(
                f"classes has {len(ordered)} classes but y_score has {n_classes} columns"
            )
    weighted = sample_weight is not None
    problems: list[tuple[int, int | None]]
    if method == "ovr":
        problems = [(k, None) for k in range(n_classes)]
    else:
        problems = [(i, j) for i in range(n_classes) for j in range(n_classes) if i != j]
    # Every partition computes the groups of all the binary problems in one task.
    per_part = [graph.task(_problems_of, k, parts.layout, values, ordered, n_classes, weighted,
                           problems)
                for k, values in enumerate(parts.keys)]
    if n_ranges == 1:
        whole = graph.tree(_merged_problems, per_part)
        class_mass = graph.task(operator.getitem, whole, 0)
        values = graph.task(_problem_aucs, whole)
    else:
        class_mass = graph.tree(_mass_sum, [graph.task(operator.getitem, part, 0)
                                          for part in per_part])
        aucs = []
        for k in range(1, len(problems) + 1):
            groups = [graph.task(operator.getitem, part, k) for part in per_part]
            _, summaries = _pipeline(graph, groups, n_ranges, hull=False, with_groups=False)
            aucs.append(graph.task(_pair_auc, summaries))
        values = graph.task(list, aucs)
    result = graph.task(_multiclass_of, method, average, ordered, n_classes, class_mass,
                        weighted, values)
    return cast("float | NDArray[np.float64] | Delayed", _finish(graph, result, compute))


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
                    segment: Hashable, pos_label: Hashable | None, neg_label: Any) -> Groups:
    label, score, weight = columns
    try:
        labels = _part_labels(frame[label].to_numpy(), pos_label, neg_label, label)
        scores = check_scores(frame[score].to_numpy(), score, allow_empty=True, ranks=False)
        weights = check_weights(frame[weight].to_numpy(), scores.shape[0], weight) \
            if weighted else None
        return cast("Groups", _groups_of(labels, scores, weights, (label, score)))
    except ValueError as exc:
        raise ValueError(f"{exc} (in segment {segment!r})") from None


def _frame_labels(index: int, part: pandas.DataFrame, label: Hashable, pos_label: Hashable
                  ) -> list[tuple[int, bool, list[tuple[Any, int]]]]:
    return _other_labels(index, part[label], pos_label, label)


def _segments_of(part: pandas.DataFrame, by: Hashable, columns: tuple[Any, Any, Any],
                 weighted: bool, pos_label: Hashable | None, neg_label: Any,
                 large: tuple[Any, ...]) -> Segments:
    """A partition's groups of each of its segments but the ``large`` ones."""
    if large:
        part = part[~part[by].isin(large)]
    return {segment: _segment_groups(rows, columns, weighted, segment, pos_label, neg_label)
            for segment, rows in part.groupby(by, sort=False, observed=True)}


def _merged_segments(parts: Sequence[Segments]) -> Segments:
    pieces: dict[Any, list[Groups]] = {}
    for part in parts:
        for segment, groups in part.items():
            pieces.setdefault(segment, []).append(groups)
    return {segment: _merge(*found) for segment, found in pieces.items()}


def _segment_rows(spec: Any, metrics: Sequence[str], lower: bool, segments: Segments
                  ) -> dict[Any, dict[str, float]]:
    return {segment: _segment_row(spec, metrics, [_summarise(groups, lower)])
            for segment, groups in segments.items()}


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


def _large_groups(part: pandas.DataFrame, by: Hashable, names: Sequence[Hashable],
                  columns: tuple[Any, Any, Any], weighted: bool, pos_label: Hashable | None,
                  neg_label: Any) -> tuple[Groups, ...]:
    frames = _split_rows(part, by, {segment: k for k, segment in enumerate(names)}, len(names))
    return tuple(
        _segment_groups(frame, columns, weighted, names[k], pos_label, neg_label)
        for k, frame in enumerate(frames)
    )


def _large_row(spec: Any, metrics: Sequence[str], segment: Hashable,
               summaries: Sequence[Summary]) -> dict[Any, dict[str, float]]:
    return {segment: _segment_row(spec, metrics, summaries)}


def _all_rows(found: Sequence[dict[Any, dict[str, float]]]) -> dict[Any, dict[str, float]]:
    rows = {}
    for part in found:
        rows.update(part)
    return rows


def grouped(df: DataFrame, *, by: Hashable, label: Hashable, score: Hashable,
            weight: Hashable | None = None, metrics: str | Iterable[str] = ("auc", "h"),
            alpha: float = 2.0, beta: float = 2.0, severity_ratio: float | None = None,
            priors: tuple[float, float] | None = None, small_rows: int | None = None,
            pos_label: Hashable | None = None) -> pandas.DataFrame:
    """Exact metrics of every segment of a dask DataFrame, as a pandas DataFrame.

    For each value of the column ``by``, the metrics of its rows, equal to
    the in-memory functions on those rows.  Each partition computes the
    groups of each of its segments, and one tree of merges gathers them (a
    graph of about 1.15 tasks per partition beyond the input's own); with
    ``small_rows``, a segment of more rows gets its own range partition, as
    :func:`auc`, so its groups are never in one task.

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
        Segments with more rows than this are large: each is cut into
        about rows / small_rows score ranges, merged apart (about
        1.15 R + 3 more tasks per partition for a segment of R ranges, and 1
        for all of them).  By default no segment is cut: the
        last merge holds the groups of every segment.
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
    Each partition groups its rows by segment and reduces each segment to
    its distinct scores with their class weights; the tree merges them
    segment by segment (equal scores summed, exactly without weights) and
    its last task computes every segment's metrics.  With ``small_rows`` a
    first pass counts the rows of each segment (``value_counts``), and each
    segment of s > small_rows rows is cut into about s / small_rows score
    ranges, as in :func:`auc`, from its groups in every partition (one
    pass over each partition for all large segments).

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
    delayed_parts = frame.to_delayed()
    graph = _Graph(delayed_parts[:1])
    parts = [_Key(part.key) for part in delayed_parts]
    neg_label = None
    if pos_label is not None:
        # The class 0 label of the whole column, agreed by all partitions.
        neg_label = _neg_label(graph, [graph.task(_frame_labels, k, part, label, pos_label)
                                       for k, part in enumerate(parts)], pos_label, label)
    lower = any(LOWER_HULL in METRICS[name].needs for name in metrics if name in METRICS)
    n_ranges: dict[Any, int] = {}  # the large segments' numbers of ranges
    if small_rows is not None:
        sizes = dask.compute(frame[by].value_counts())[0]
        n_ranges = {segment: -(-int(size) // small_rows)
                    for segment, size in sizes[sizes > small_rows].items()}
    names = tuple(n_ranges)
    # The segments but the large ones: merged by one tree of merges.
    segments = graph.tree(_merged_segments, [
        graph.task(_segments_of, part, by, columns, weighted, pos_label, neg_label, names)
        for part in parts])
    found = [graph.task(_segment_rows, spec, metrics, lower, segments)]
    if names:
        per_part = [graph.task(_large_groups, part, by, names, columns, weighted, pos_label,
                               neg_label) for part in parts]
        for k, segment in enumerate(names):
            _, summaries = _pipeline(graph, [graph.task(operator.getitem, p, k) for p in per_part],
                                     n_ranges[segment], lower)
            found.append(graph.task(_large_row, spec, metrics, segment, summaries))
    rows = _finish(graph, graph.task(_all_rows, found), True)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table = table.reindex(columns=["n_neg", "n_pos", *metrics])
    table.index.name = by
    try:
        table = table.sort_index()
    except TypeError:
        pass
    return table
