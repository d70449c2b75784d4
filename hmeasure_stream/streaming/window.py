"""Metrics over a sliding window of a stream: ``SlidingWindow`` and ``sliding_window``.

The one place where an engine is chosen for a window of a stream.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Hashable, Iterable
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._core.binning import estimate_alpha
from hmeasure_stream._core.classes import as_label_array, encode_sorted
from hmeasure_stream._core.placements import normal_pvalue, paired_difference
from hmeasure_stream._engines._bin_tree import BinTree
from hmeasure_stream._engines._calibration import CalibrationEngine
from hmeasure_stream._engines._fenwick import sliding_auc_ranked
from hmeasure_stream._engines._ring import PointRing
from hmeasure_stream._engines._scratch import sliding_auc_at
from hmeasure_stream._validation import (
    Duration,
    FloatArray,
    Label,
    Window,
    check_rows,
    check_scores,
    check_times,
    check_unit_weights,
    dense_ranks,
    is_duration,
    label_map,
    labels_many,
    raise_bad_score,
    with_pos_label,
)
from hmeasure_stream.metric_table import (
    BINS,
    COMPRESSED,
    METRICS,
    MULTICLASS,
    SECOND_SCORE,
    THRESHOLD,
    WINDOW_METRICS,
    first_improbable,
    metric_options,
    value_metrics,
)
from hmeasure_stream.streaming._base import (
    Pickled,
    check_forgetting,
    check_structure_options,
    checked_batch,
    claimed,
    forgetting_of,
    forgetting_rules,
    forgetting_times,
    ordered_times,
    out_of_range_message,
)
from hmeasure_stream.streaming._engine_choice import engine_maker as _engine_maker
from hmeasure_stream.streaming._engine_choice import needing as _needing
from hmeasure_stream.streaming._engine_choice import unit_weight_metrics as _unit_weight_metrics
from hmeasure_stream.streaming._engine_choice import window_engines as _window_engines
from hmeasure_stream.streaming._window_rules import (
    COUNT_LIMIT,
    check_window_counts,
    engine_of,
    half_life_of,
    mask_short,
    read_metric,
    refuse_decay,
    refuse_duration,
)
from hmeasure_stream.streaming.multiclass import MulticlassWindow

__all__ = ["WINDOW_METRICS", "SlidingWindow", "sliding_window"]

def _check_probabilities(metrics: Iterable[str], scores: FloatArray) -> None:
    """Refuse (ValueError) a score outside [0, 1] when a metric reads the scores as
    probabilities of class 1, before anything changes."""
    found = first_improbable(metrics, scores)
    if found is not None:
        name, position = found
        raise ValueError(
            f"the metric {name!r} reads the scores as probabilities of class 1, which "
            f"lie in [0, 1]: y_score has {float(scores[position])!r} at position {position}")



# ----------------------------------------------------------------------------
# Segments (``by=``): one key per row, grouped in one pass.  A chunk's keys are
# checked and numbered by ``_segment_codes``, its rows grouped by segment in their
# order by ``_segment_rows``, and a segment's count-window ring grows with its points
# (``PointRing.reserve``): a segment of a few points holds a few slots, not the window's
# size.
#: The slots of a segment's count-window ring when it is made (it doubles as points arrive,
#: up to the window's size).
_FIRST_SLOTS = 64


def _is_missing(key: object) -> bool:
    """None, nan, NaT or pandas' NA: no segment."""
    if key is None:
        return True
    try:
        return bool(key != key)
    except (TypeError, ValueError):  # pandas.NA (its truth is ambiguous), an array
        return True


def _refuse_missing(position: int, key: object) -> None:
    raise ValueError(f"by[{position}] is {key!r}: every row needs a segment key (a missing "
                     "key, None or nan, names no segment)")


def _as_keys(by: object, n: int) -> NDArray[Any]:
    """``by`` as a 1-d array of ``n`` keys: a numpy array or a pandas/polars Series as
    numpy holds it, a sequence as Python objects (numpy would make ``[1, "1"]`` two
    equal strings, and a list of tuples 2-d)."""
    if isinstance(by, (str, bytes)) or not hasattr(by, "__len__"):
        raise ValueError(f"by must hold one segment key per row (an array or a sequence of "
                         f"{n} hashable keys), got {type(by).__name__} {by!r:.80}")
    if isinstance(by, np.ndarray) or hasattr(by, "__array__"):
        keys = np.asarray(by)
        if keys.dtype.kind == "V":  # structured rows: one key each, as Python objects
            keys = np.fromiter(keys.tolist(), dtype=object, count=keys.shape[0])
    else:
        items = list(cast("Iterable[Any]", by))
        keys = np.empty(len(items), dtype=object)
        for position, key in enumerate(items):
            keys[position] = key
    if keys.ndim != 1:
        raise ValueError(f"by must be 1-d, one segment key per row; got shape {keys.shape}")
    if keys.shape[0] != n:
        raise ValueError(f"by has {keys.shape[0]} keys for {n} rows")
    return keys


def _segment_codes(by: object, n: int) -> tuple[list[Hashable], NDArray[np.int64]]:
    """The segments of a chunk of ``n`` rows: (their keys, in the order they first occur;
    each row's index in those keys).

    Numeric, string, datetime and boolean arrays are numbered by ``np.unique``
    (one sort); other keys (Python objects: strings and numbers mixed, tuples,
    a pandas categorical's values) by a dict, as the window's dict of segments
    compares them.  A key that is missing (None, nan, NaT, ``pandas.NA``) or not
    hashable is a ValueError naming its row (``by[i]``).
    """
    keys = _as_keys(by, n)
    kind = keys.dtype.kind
    if n == 0:
        return [], np.empty(0, dtype=np.int64)
    if kind == "O":
        table: dict[Hashable, int] = {}
        codes = np.empty(n, dtype=np.int64)
        for position, key in enumerate(keys.tolist()):
            known = len(table)
            try:
                code = table.setdefault(key, known)
            except TypeError:
                raise ValueError(f"by[{position}] is {key!r}, which is not hashable: a "
                                 "segment key must be (a number, a string, a tuple, ...)"
                                 ) from None
            if code == known and _is_missing(key):
                _refuse_missing(position, key)
            codes[position] = code
        return list(table), codes
    if kind in "fc":
        missing = np.flatnonzero(np.isnan(keys))
        if missing.size:
            _refuse_missing(int(missing[0]), keys[missing[0]].item())
    elif kind in "mM":
        missing = np.flatnonzero(np.isnat(keys))
        if missing.size:
            _refuse_missing(int(missing[0]), keys[missing[0]])
    uniques, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.shape[0])
    ordered = uniques[by_first]
    # Python scalars (exact for int64 beyond 2**53); times stay numpy's (tolist would
    # give nanoseconds as ints).
    listed = list(ordered) if kind in "mM" else ordered.tolist()
    return listed, rank[inverse.reshape(-1)].astype(np.int64, copy=False)


def _segment_rows(codes: NDArray[np.int64], n_segments: int
                 ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(order, bounds): the rows grouped by segment, each segment's in row order
    (``order[bounds[j]:bounds[j + 1]]`` are segment j's rows), by one stable sort."""
    # (Codes of 16 bits or fewer: numpy's stable sort is then a radix sort.)
    narrow = codes.astype(np.uint16) if n_segments <= 1 << 16 else codes
    order = np.argsort(narrow, kind="stable")
    bounds = np.zeros(n_segments + 1, dtype=np.intp)
    np.cumsum(np.bincount(codes, minlength=n_segments), out=bounds[1:])
    return order, bounds


# ----------------------------------------------------------------------------
# Two models on one window (``y_score2``): the second model's AUC comes from an order
# engine of its own (a window of ``"auc"`` fed with the second scores); DeLong's paired
# test (``"auc_diff_p"``) is ``auc_test`` on the window's rows, kept here.

class _PairedRows(Pickled):
    """The window's rows for DeLong's paired test: labels, both scores, weights and
    each row's position (its step, or its time with decay by time), oldest first.

    A count window keeps its last ``count`` rows, a window of time or decay the rows
    its ``Forgetting`` holds (the engines say how many after each row): rows leave
    from the oldest end only, so each window is the last rows held.
    """

    __slots__ = ("by_time", "half_life", "is_pos", "position", "score1", "score2", "steps",
                 "weight")

    def __init__(self, half_life: float = 0.0, by_time: bool = False) -> None:
        self.half_life = half_life  # (in steps, or nanoseconds ``by_time``; 0: no decay)
        self.by_time = by_time
        self.is_pos = np.empty(0, dtype=np.uint8)
        self.score1 = np.empty(0)
        self.score2 = np.empty(0)
        self.weight = np.empty(0)
        self.position = np.empty(0, dtype=np.int64)
        self.steps = 0  # rows seen

    def __len__(self) -> int:
        return int(self.is_pos.shape[0])

    def pvalues(self, is_pos: NDArray[np.uint8], score1: FloatArray, score2: FloatArray,
                weights: FloatArray | None, times: NDArray[np.int64] | None,
                held: NDArray[np.int64], reading: NDArray[np.bool_] | None) -> FloatArray:
        """A chunk's rows added; the p-value after each row of ``reading`` (every row
        without it; nan elsewhere), the window then its last ``held[i]`` rows; the rows
        of the last window kept."""
        n = is_pos.shape[0]
        steps = self.steps + np.arange(n, dtype=np.int64)
        arrays = [np.concatenate([old, new]) for old, new in (
            (self.is_pos, is_pos), (self.score1, score1), (self.score2, score2),
            (self.weight, np.ones(n) if weights is None else weights),
            (self.position, times if self.by_time else steps))]
        start = len(self)
        values = np.full(n, np.nan)
        for i in np.arange(n) if reading is None else np.flatnonzero(reading):
            end = start + int(i) + 1
            rows = slice(end - int(held[i]), end)
            values[i] = self._pvalue(*(array[rows] for array in arrays))
        self.steps += n
        if n:
            keep = slice(start + n - int(held[-1]), start + n)
            (self.is_pos, self.score1, self.score2, self.weight,
             self.position) = (array[keep].copy() for array in arrays)
        return values

    def pvalue(self) -> float:
        """The p-value of the current window."""
        if not len(self):
            return np.nan
        return self._pvalue(self.is_pos, self.score1, self.score2, self.weight, self.position)

    def _pvalue(self, is_pos: NDArray[np.uint8], score1: FloatArray, score2: FloatArray,
                weight: FloatArray, position: NDArray[np.int64]) -> float:
        if self.half_life:  # a row of age a weighs 2^(-a / half_life) its weight
            weight = weight * np.exp2((position - position[-1]) / self.half_life)
        try:
            statistic = paired_difference(is_pos, score1, score2, weight).statistic
        except ValueError:  # a class with fewer than two points: undefined
            return np.nan
        return normal_pvalue(statistic)

    def _check(self) -> None:
        lengths = {array.shape[0] for array in (self.is_pos, self.score1, self.score2,
                                                self.weight, self.position)}
        if len(lengths) != 1:
            raise AssertionError(f"the paired rows' arrays have lengths {sorted(lengths)}")
        if len(self) > self.steps or np.any(np.diff(self.position) < 0):
            raise AssertionError("the paired rows are not the last rows, in order")

    def _check_pickle(self) -> None:
        self._check()


#: A chunk's second scores (None without a second model) and the rows read (a mask of
#: the chunk's rows; None: every row).
_Pair = tuple["FloatArray | None", "NDArray[np.bool_] | None"]


def _reading(rows: NDArray[np.int64], n: int) -> NDArray[np.bool_]:
    """The rows ``rows`` (checked) of a chunk of ``n`` rows as a mask."""
    mask = np.zeros(n, dtype=np.bool_)
    mask[rows] = True
    return mask


def _part_of(pair: _Pair, rows: slice | NDArray[np.intp]) -> _Pair:
    """The ``rows`` of a chunk's second scores and rows read."""
    scores2, reading = pair
    return (None if scores2 is None else scores2[rows],
            None if reading is None else reading[rows])


def _second_scores(chosen: dict[str, Any], y_score2: ArrayLike | None, n: int,
                   ranks: bool = False) -> FloatArray | None:
    """The second model's scores checked (finite, one per row), or None when no metric
    reads them; ValueError when they are missing, or given with no metric to read them."""
    names = _needing(chosen, SECOND_SCORE)
    if not names:
        if y_score2 is not None:
            raise ValueError("y_score2 (a second model's scores) is read by the metrics "
                             "'auc2', 'auc_diff' and 'auc_diff_p' only, and none of them is "
                             "among this window's metrics")
        return None
    if y_score2 is None:
        raise ValueError(f"the metric(s) {names} compare a second model on the same rows: "
                         "give its scores, y_score2=")
    scores2 = check_scores(y_score2, "y_score2", allow_empty=True, ranks=ranks)
    if scores2.shape[0] != n:
        raise ValueError(f"y_true and y_score2 have different lengths: {n} and "
                         f"{scores2.shape[0]}")
    raise_bad_score(scores2, "y_score2")
    return scores2



class SlidingWindow(Pickled):
    """Metrics over a sliding window of a stream that arrives in chunks.

    Feed the stream to :meth:`update` chunk by chunk; the window carries across calls, so the values
    are those of :func:`sliding_window` on the whole stream.  The object pickles.

    Parameters
    ----------
    window : int, str, datetime.timedelta, numpy.timedelta64 or None
        A number of points, a duration (``update`` then needs ``times``) or None: every prefix.
    metrics : str, options object, or sequence of them, default=("auc",)
        Names from :data:`~hmeasure_stream.WINDOW_METRICS` (``window[name]`` reads one) and
        options objects (:class:`~hmeasure_stream.HCost`, ...) setting their metrics' options
        (standing for them when none is named); ``"multiclass_auc"`` (2-d scores) goes alone.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        Exponential decay as in :class:`DynamicAUC`; not with ``"auc_approx"``, ``"auc_binned"``.
    min_periods : int, default=1
        The metrics are nan until the window holds this many points (at most a count window).
    pos_label, capacity, seed
        As in :class:`DynamicAUC`; ``seed`` seeds ``"auc_approx"``'s treap (nothing else is random).

    See Also
    --------
    sliding_window : the same on a whole array in one call.

    Notes
    -----
    Per point, for w points: O(log w) in the one order engine of every metric read from the score
    order (:class:`DynamicH`'s hull for the hull metrics), memory O(w); exact as on the structures.
    N. Tatti, "Maintaining AUC and H-measure over time"; ECML PKDD 2018 (sliding-window AUC).

    Examples
    --------
    >>> from hmeasure_stream import PartialRange, SlidingWindow
    >>> monitor = SlidingWindow(3, metrics=("auc", "h", PartialRange(fpr_range=(0, 0.5))))
    >>> monitor.update([0, 1, 0], [0.2, 0.9, 0.4])["auc"]
    array([nan,  1.,  1.])
    >>> monitor.update([1, 1, 0], [0.3, 0.8, 0.1])["auc"], monitor["h"]
    (array([0.5, 0.5, 1. ]), 1.0)
    >>> monitor.results()  # the current window's, by name
    {'auc': 1.0, 'h': 1.0, 'pauc': 0.5}
    """

    # One ring of the window's points per engine: each engine removes the
    # points that leave its own window.
    # With a duration window or a half-life, one ``Forgetting`` per engine instead.
    # With ``by=``: ``_segments`` maps each key to its segment's window (None: no
    # segments), every one made from ``_spec``, the options checked once (the window's
    # own engines then hold no point).
    # With the metrics of a second model (``y_score2``): ``_second`` the window of its
    # AUC, ``_paired`` the rows of DeLong's paired test (None without ``"auc_diff_p"``).
    __slots__ = ("_engines", "_forgettings", "_labels", "_metrics", "_min_periods", "_paired",
                 "_rings", "_second", "_segments", "_spec", "_window")

    def __init__(self, window: Window, metrics: object = ("auc",), *,
                 half_life: Duration | None = None, min_periods: int = 1,
                 pos_label: Label = None, capacity: int = 16, seed: int | None = None) -> None:
        self._build(window, metric_options(metrics), half_life=half_life,
                    min_periods=min_periods, pos_label=pos_label, capacity=capacity, seed=seed)

    def _build(self, window: Window, chosen: dict[str, Any], *, half_life: Duration | None,
               min_periods: int, pos_label: Label, capacity: int = 16,
               seed: int | None = None) -> None:
        """The window of the metrics ``chosen`` (as ``metric_options`` gives them), every
        argument checked before anything is built."""
        # A count, a numpy.timedelta64 or None (a duration given is kept as checked).
        window, self._min_periods = check_window_counts(window, min_periods)
        self._window: Any = window
        self._metrics = tuple(chosen)
        self._labels = label_map(pos_label)
        multiclass = bool(_needing(chosen, MULTICLASS))
        if self._labels is not None and multiclass:
            raise ValueError("pos_label does not apply to 'multiclass_auc', whose labels are "
                             "the classes (see Classes(classes=...))")
        self._forgettings: list[Any] | None = None
        if multiclass and (is_duration(window) or half_life is not None
                           or self._min_periods > 1):
            raise ValueError("the metric 'multiclass_auc' takes a count window (an int or "
                             "None) without half_life or min_periods")
        refuse_decay(_unit_weight_metrics(chosen), half_life)
        refuse_duration(_needing(chosen, BINS), window)
        forgets = is_duration(window) or half_life is not None
        # (checks both before anything is built)
        rules = forgetting_rules(window, half_life) if forgets else None
        capacity, seed = check_structure_options(capacity, seed)
        self._spec = (chosen, capacity, seed, rules)
        self._segments: dict[Hashable, SlidingWindow] | None = None
        self._engines = _window_engines(chosen, capacity=capacity, seed=seed, window=window)
        self._second: SlidingWindow | None = None
        self._paired: _PairedRows | None = None
        if _needing(chosen, SECOND_SCORE):
            self._second = SlidingWindow.__new__(SlidingWindow)
            self._second._build(window, {"auc": None}, half_life=half_life,
                                min_periods=min_periods, pos_label=None, capacity=capacity,
                                seed=seed)
        if forgets:
            self._forgettings = [forgetting_of(rules) for _ in self._engines]
            self._window = self._forgettings[0].count or (
                np.timedelta64(int(self._forgettings[0].period), "ns")
                if self._forgettings[0].period else None)
            self._rings: list[PointRing | None] = []
        else:
            self._keep_last(cast("int | None", window))  # (not a duration: checked)
        if "auc_diff_p" in chosen:
            decay = self._forgettings[0] if self._forgettings else None
            self._paired = (_PairedRows() if decay is None else
                            _PairedRows(float(decay.half_life), bool(decay.decay_by_time)))

    def _keep_last(self, window: int | None) -> None:
        """Keep the last ``window`` points (a checked count; None: every point) while the
        engines hold none: one ring per engine that does not keep its own window."""
        self._window = window
        self._rings = [None if getattr(engine, "own_window", False) else PointRing(window or 0)
                       for engine in self._engines]
        if self._second is not None:
            self._second._keep_last(window)

    def update(self, y_true: ArrayLike, y_score: ArrayLike,
               sample_weight: ArrayLike | None = None, *, y_score2: ArrayLike | None = None,
               times: ArrayLike | None = None, by: ArrayLike | None = None,
               at: ArrayLike | None = None) -> dict[str, FloatArray]:
        """Feed the next chunk as :func:`sliding_window` takes it (``y_score2`` too); returns
        what it would for it (with ``at``, rows of the chunk, the values at those rows only:
        ``"auc_diff_p"`` is then computed at those rows alone).

        With ``by`` (one hashable key per row: an array, a pandas or polars
        Series, a sequence), each segment has its own window of this one's
        options, and row i's values are those of its segment's window; a
        window fed with ``by`` takes ``by`` with every chunk (:meth:`segments`
        reads them).  A missing (None, nan) or unhashable key is a ValueError
        naming its row, before anything changes.
        """
        engine = self._engines[0]
        if isinstance(engine, MulticlassWindow):  # 2-d scores
            if by is not None:
                raise ValueError("by= is not available with 'multiclass_auc': give each "
                                 "segment a window of its own")
            chunk = engine.checked(y_true, y_score, sample_weight)
            self._times(times, chunk[0].shape[0])  # checked, not used by a count window
            return {str(self._metrics[0]): engine.slide(*chunk)}
        if by is None and self._segments is not None:
            raise ValueError("this window follows segments (it was fed with by=): give the "
                             "rows' segment keys, by=, with every chunk")
        if by is not None and self._segments is None and len(self):
            raise ValueError(f"this window holds {len(self)} points fed without by=: a window "
                             "follows segments from its first chunk on (make a new one)")
        second = [] if self._second is None else self._second._engines
        with claimed(*self._engines, *second):  # every engine, its ring and the labels
            y_true, labels = labels_many(self._labels, y_true)
            batch = checked_batch(y_true, y_score, sample_weight)
            n = batch[1].shape[0]
            rows = None if at is None else check_rows(at, n)
            pair = (_second_scores(self._spec[0], y_score2, n),
                    None if rows is None else _reading(rows, n))
            if by is None and rows is not None and self._reads_apart(batch[2], n, rows):
                self._times(times, n)  # (checked, not used by a count window)
                values = self._read_apart(batch[0], batch[1], rows)
                self._labels = labels
                return values
            if by is None:
                values = self._slide(*batch, self._times(times, n), pair)
            else:
                keys, codes = _segment_codes(by, n)
                values = self._slide_segments(*batch, self._segment_times(times, n), keys,
                                              codes, pair)
            self._labels = labels
        return values if at is None else {name: column[pair[1]]
                                          for name, column in values.items()}

    def _reads_apart(self, weights: FloatArray | None, n: int,
                     rows: NDArray[np.int64]) -> bool:
        """Whether a chunk's AUC at ``rows`` alone is best read from sorted pieces
        (:meth:`_read_apart`) than after each row from the engine: the AUC alone of a
        count window, unit weights, a chunk of a window or more, the rows read on average
        ``window / 100`` rows apart or more (a merge's O(w) against the updates between
        two rows read; measured: closer rows are read faster from the engine)."""
        window = self._window
        return (self._metrics == ("auc",) and self._forgettings is None
                and self._second is None and self._segments is None
                and window is not None and window <= n < 2**31 - window
                and weights is None and len(self._rings) == 1 and self._rings[0] is not None
                and rows.shape[0] * window <= 100 * n)

    def _read_apart(self, is_pos: NDArray[np.uint8], scores: FloatArray,
                    rows: NDArray[np.int64]) -> dict[str, FloatArray]:
        """The AUC of the windows ending at the chunk's ``rows``, by merges of sorted pieces
        of the window's points and the chunk's (``sliding_auc_at``, as ``sliding_window``
        reads them), and the window made again from the chunk's last ``window`` points:
        O(w) for each row read and O(w log w) for the chunk, not O(log w) for each row."""
        self._check_unit_weights(None)
        self._check_scale(None, scores.shape[0])
        window = cast(int, self._window)
        ring = self._rings[0]
        assert ring is not None  # (_reads_apart)
        held_is_pos, held_scores, _ = ring.points()
        held = held_scores.shape[0]
        values = {"auc": np.empty(rows.shape[0], dtype=np.float64)}
        sliding_auc_at(np.concatenate([held_is_pos, is_pos]),
                       np.concatenate([held_scores, scores]), window, rows + held,
                       values["auc"])
        mask_short(values, self._min_periods, held + rows + 1, window)
        # The points the window holds now: the chunk's last ``window``, through new engines.
        last = slice(scores.shape[0] - window, None)
        blank = self._blank(window)
        blank._slide(is_pos[last], scores[last], None)
        self._engines, self._rings = blank._engines, blank._rings
        return values

    def _times(self, times: ArrayLike | None, n: int) -> NDArray[np.int64] | None:
        if self._forgettings is not None:
            return cast("NDArray[np.int64] | None",
                        forgetting_times(self._forgettings[0], times, n))
        if times is not None:
            check_times(times, n)
        return None

    def _segment_times(self, times: ArrayLike | None, n: int) -> NDArray[np.int64] | None:
        """A chunk's times for the segments: in order, none before the newest of any
        segment (the stream's times do not go backwards)."""
        if self._forgettings is None:
            return self._times(times, n)
        newest = max((int(window._forgettings[0].newest_time)
                      for window in (self._segments or {}).values()
                      if window._forgettings and window._forgettings[0].has_time),
                     default=None)
        return cast("NDArray[np.int64] | None",
                    ordered_times(times, n, newest, self._forgettings[0].needs_time))

    def _blank(self, arriving: int = 0, make: Any = None) -> SlidingWindow:
        """An empty window of this one's options, for a segment: its engines (and their
        ``Forgetting``) made from ``_spec``, checked once when this window was built (by
        ``make``, the ``engine_maker`` of ``_spec``, when given: one for a chunk's new
        segments); a count window's ring holds the ``arriving`` points (at least
        ``_FIRST_SLOTS`` slots, at most the window) and grows with its points, and the
        engines' first ``capacity`` holds them too (it only sizes their first buffers:
        growing them point by point would cost more than the points)."""
        chosen, capacity, seed, rules = self._spec
        window = self._window
        rounded = 1 << max(arriving - 1, 0).bit_length()  # (a power of two >= arriving)
        if window is not None and not is_duration(window):
            rounded = min(rounded, window)
        if make is None:
            make = _engine_maker(chosen, seed=seed, window=window)
        blank = SlidingWindow.__new__(SlidingWindow)
        blank._spec = self._spec
        blank._segments = None
        blank._metrics = self._metrics
        blank._min_periods = self._min_periods
        blank._labels = None  # (the labels are this window's: segments take 0/1)
        blank._window = window
        blank._engines = engines = make(min(max(capacity, rounded), COUNT_LIMIT))
        if rules is not None:
            blank._forgettings = [forgetting_of(rules) for _ in engines]
            blank._rings = []
        else:
            blank._forgettings = None
            first = 0 if window is None else min(window, max(_FIRST_SLOTS, rounded))
            blank._rings = [None if getattr(engine, "own_window", False)
                            else PointRing(window or 0, False, first) for engine in engines]
        blank._second = None if self._second is None else self._second._blank(arriving)
        blank._paired = None if self._paired is None else _PairedRows(self._paired.half_life,
                                                                      self._paired.by_time)
        return blank

    def _slide_segments(self, is_pos: NDArray[np.uint8], scores: FloatArray,
                        weights: FloatArray | None, times: NDArray[np.int64] | None,
                        keys: list[Hashable], codes: NDArray[np.int64], pair: _Pair
                        ) -> dict[str, FloatArray]:
        """A checked chunk through its segments' windows (made for new keys): its rows
        grouped by segment in one stable sort, each segment's fed once, every check of
        every segment made before any of them changes; the values scattered back in row
        order."""
        _check_probabilities(self._metrics, scores)
        self._check_unit_weights(weights)
        held = self._segments if self._segments is not None else {}
        order, bounds = _segment_rows(codes, len(keys))
        edges = bounds.tolist()
        chosen, _, seed, _ = self._spec
        make = _engine_maker(chosen, seed=seed, window=self._window)
        windows, made = [], []
        for j, key in enumerate(keys):
            window = held.get(key)
            if window is None:
                window = self._blank(edges[j + 1] - edges[j], make)
                made.append((key, window))
            windows.append(window)
        is_pos, scores = is_pos[order], scores[order]
        weights = None if weights is None else weights[order]
        times = None if times is None else times[order]
        pair = _part_of(pair, order)
        for j, window in enumerate(windows):
            # (Unit weights are refused by no engine still at scale 1: a new segment's,
            # or one never fed weights of another scale.)
            if weights is None and window._second is None:
                scaled = False
                for engine in window._engines:
                    scaled = scaled or engine.scale != 1.0
                if not scaled:
                    continue
            window._check_scale(None if weights is None else weights[edges[j]:edges[j + 1]],
                                edges[j + 1] - edges[j])
        plan = self._plan()  # (every segment's engines are this window's kinds, in order)
        if (self._forgettings is None and self._min_periods <= 1 and self._second is None
                and not any(isinstance(engine, BinTree) for engine in self._engines)):
            grouped = self._slide_parts(windows, edges, is_pos, scores, weights, plan)
        else:
            grouped = {name: np.empty(scores.shape[0]) for name in self._metrics}
            for j, window in enumerate(windows):
                part = slice(edges[j], edges[j + 1])
                window._feed_part(is_pos[part], scores[part],
                                  None if weights is None else weights[part],
                                  None if times is None else times[part], plan, grouped, part,
                                  _part_of(pair, part))
        held.update(made)
        self._segments = held
        ordered = {}
        for name, column in grouped.items():
            ordered[name] = np.empty_like(column)
            ordered[name][order] = column
        return ordered

    @staticmethod
    def _slide_parts(windows: list[SlidingWindow], edges: list[int],
                     is_pos: NDArray[np.uint8], scores: FloatArray, weights: FloatArray | None,
                     plan: list[tuple[str, int, int]]) -> dict[str, FloatArray]:
        """``_feed_part`` of each segment's rows (``edges[j]:edges[j + 1]`` of the grouped
        chunk) for count windows (and every prefix) without ``min_periods``, bins or a
        second model: each engine's rows written straight into one array for the chunk,
        the metrics read from them once, not once a segment."""
        n = scores.shape[0]
        outs = ([np.empty((n, len(engine.columns))) for engine in windows[0]._engines]
                if windows else [])
        kinds = range(len(outs))
        # (Indices rather than zips: this loop runs once per segment and chunk.)
        for j, window in enumerate(windows):
            start, stop = edges[j], edges[j + 1]
            part_is_pos, part_scores = is_pos[start:stop], scores[start:stop]
            part_weights = None if weights is None else weights[start:stop]
            engines, rings = window._engines, window._rings
            for k in kinds:  # (a segment's ring grows to its window in the engine's slide)
                refused = engines[k].slide(rings[k], part_is_pos, part_scores, part_weights,
                                           outs[k][start:stop])
                assert refused < 0  # (checked before: nothing is left unwritten)
        return {name: outs[index][:, column] if outs else np.empty(n)
                for name, index, column in plan}

    def _slide(self, is_pos: NDArray[np.uint8], scores: FloatArray, weights: FloatArray | None,
               times: NDArray[np.int64] | None = None, pair: _Pair = (None, None)
               ) -> dict[str, FloatArray]:
        """A checked chunk through the engines, its probabilities, unit weights and scale
        checked first: each metric's values."""
        _check_probabilities(self._metrics, scores)
        self._check_unit_weights(weights)
        self._check_scale(weights, scores.shape[0])  # (unit weights too)
        values = {name: np.empty(scores.shape[0]) for name in self._metrics}
        self._feed_part(is_pos, scores, weights, times, self._plan(), values, slice(None),
                        pair)
        return values

    def _plan(self) -> list[tuple[str, int, int]]:
        """(metric, the index of the engine it is read from, its column there), in the
        order of the metrics (those of a second model apart: ``_feed_second``)."""
        plan = []
        for name in self._metrics:
            if SECOND_SCORE in METRICS[name].needs:
                continue
            engine = engine_of(self._engines, name)
            index = next(k for k, other in enumerate(self._engines) if other is engine)
            plan.append((name, index, engine.columns.index(name)))
        return plan

    def _feed_part(self, is_pos: NDArray[np.uint8], scores: FloatArray,
                   weights: FloatArray | None, times: NDArray[np.int64] | None,
                   plan: list[tuple[str, int, int]], into: dict[str, FloatArray],
                   part: slice, pair: _Pair = (None, None)) -> None:
        """A checked chunk through the engines (their ``Forgetting``, or their rings: a
        segment's grows with its points), each metric's values written to
        ``into[name][part]`` by ``plan`` (:meth:`_plan`), a second model's by
        :meth:`_feed_second` (``pair``: its scores, and the rows read, None for all)."""
        n = scores.shape[0]
        if self._forgettings is None and (self._min_periods > 1 or self._second is not None):
            held = len(self) + np.arange(1, n + 1)
            if self._window is not None:
                held = np.minimum(held, self._window)
        if self._forgettings is not None:
            held = np.empty(n, dtype=np.int64)
            outs = []
            for engine, forgetting in zip(self._engines, self._forgettings, strict=True):
                outs.append(out := np.empty((n, len(engine.columns))))
                refused = engine.forget_add_many(forgetting, is_pos, scores, weights, times,
                                                 out, held)
                assert refused < 0  # (checked before)
        else:
            rings = self._rings
            for engine in self._engines:
                if isinstance(engine, BinTree) and np.isnan(engine.alpha) and n:
                    # The log-log alpha, estimated from the first chunk, then frozen.
                    engine.set_binning(engine.lo, engine.span, engine.transform,
                                       estimate_alpha(scores, engine.lo,
                                                      engine.lo + engine.span))
            outs = []
            for engine, ring in zip(self._engines, rings, strict=True):
                outs.append(out := np.empty((n, len(engine.columns))))
                refused = engine.slide(ring, is_pos, scores, weights, out)
                assert refused < 0  # (checked before: nothing is left unwritten)
        for name, index, column in plan:
            into[name][part] = outs[index][:, column]
        if self._second is not None:
            auc = next(out[:, engine.columns.index("auc")] for engine, out
                       in zip(self._engines, outs, strict=True) if "auc" in engine.columns)
            self._feed_second(is_pos, scores, weights, times, auc, held, into, part, pair)
        if self._min_periods > 1:
            mask_short({name: into[name][part] for name in into}, self._min_periods, held)

    def _feed_second(self, is_pos: NDArray[np.uint8], scores: FloatArray,
                     weights: FloatArray | None, times: NDArray[np.int64] | None,
                     auc: FloatArray, held: NDArray[np.int64], into: dict[str, FloatArray],
                     part: slice, pair: _Pair) -> None:
        """The second model's scores through its window: ``"auc2"``, ``"auc_diff"`` (``auc``
        the first model's AUC after each row) and ``"auc_diff_p"`` after the rows read,
        ``held`` the rows of each window."""
        scores2, reading = pair
        assert scores2 is not None and self._second is not None  # (checked before)
        second = {"auc": np.empty(scores2.shape[0])}
        self._second._feed_part(is_pos, scores2, weights, times, self._second._plan(), second,
                                slice(None))
        for name, values in (("auc2", second["auc"]), ("auc_diff", auc - second["auc"])):
            if name in into:
                into[name][part] = values
        if self._paired is not None:
            into["auc_diff_p"][part] = self._paired.pvalues(is_pos, scores, scores2, weights,
                                                            times, held, reading)

    def _check_scale(self, weights: FloatArray | None, n: int) -> None:
        """Refuse (ValueError) weights an engine cannot store next to those it holds: each
        engine answers for its own units (the second model's too), before any changes."""
        for engine in self._engines:
            refused = engine.stored_weights(weights, n, True)[1]
            if refused >= 0:
                raise ValueError(out_of_range_message(engine, weights, refused, "sample_weight"))
        if self._second is not None:
            self._second._check_scale(weights, n)

    def _check_unit_weights(self, weights: FloatArray | None) -> None:
        for name in self._metrics:
            if COMPRESSED in METRICS[name].needs:
                check_unit_weights(weights, f"the metric {name!r}")

    def _one_shot_classes(self, y_true: ArrayLike, y_score: ArrayLike,
                          sample_weight: ArrayLike | None, times: ArrayLike | None,
                          at: ArrayLike | None) -> dict[str, FloatArray]:
        """``"multiclass_auc"`` of every window of a whole stream (``sliding_window``), or
        of the windows ending at the rows ``at``."""
        engine = self._engines[0]
        batch = engine.checked(y_true, y_score, sample_weight, allow_empty=False)
        self._times(times, batch[0].shape[0])  # checked, not used by a count window
        rows = None if at is None else check_rows(at, batch[0].shape[0])
        values = engine.slide(*batch)
        return {str(self._metrics[0]): values if rows is None else values[rows]}

    def _one_shot(self, is_pos: NDArray[np.uint8], scores: FloatArray,
                  weights: FloatArray | None, times: NDArray[np.int64] | None = None,
                  at: NDArray[np.int64] | None = None, pair: _Pair = (None, None)
                  ) -> dict[str, FloatArray]:
        """The metrics of every window of a whole stream (``sliding_window``), or of the
        windows ending at the rows ``at`` (checked); ``pair`` as for :meth:`_feed_part`
        (without ``at``).

        With the AUC alone and unit weights, the whole stream is known: the
        window's class counts go in a Fenwick tree over the stream's dense
        ranks instead of the sorted blocks; at chosen rows only, the window's
        sorted scores go from one row to the next by merges of sorted pieces.
        """
        n = scores.shape[0]
        if not (self._metrics == ("auc",) and len(self) == 0 and n < 2**31
                and self._forgettings is None
                and (weights is None or np.all(weights == 1.0))):
            values = self._slide(is_pos, scores, weights, times,
                                 pair if at is None else (pair[0], _reading(at, n)))
            return values if at is None else {name: column[at] for name, column in
                                              values.items()}
        # The merges cost O(w) for each row of ``at``, the ranked loop O(log n) for each
        # row: merges when the rows of ``at`` are, on average, w / 1000 rows apart or more.
        if at is not None and at.shape[0] * (self._window or n) <= 1000 * n:
            values = {"auc": np.empty(at.shape[0], dtype=np.float64)}
            sliding_auc_at(is_pos, scores, self._window or 0, at, values["auc"])
        else:
            every = np.empty(n, dtype=np.float64)
            ranks, n_ranks = dense_ranks(scores)
            sliding_auc_ranked(is_pos, ranks, n_ranks, self._window or 0, every)
            values = {"auc": every if at is None else every[at]}
        mask_short(values, self._min_periods, np.arange(1, n + 1) if at is None else at + 1,
                   self._window)
        return values

    def _one_shot_segments(self, is_pos: NDArray[np.uint8], scores: FloatArray,
                           weights: FloatArray | None, times: NDArray[np.int64] | None,
                           keys: list[Hashable], codes: NDArray[np.int64],
                           count: int | None, pair: _Pair = (None, None)
                           ) -> dict[str, FloatArray]:
        """``sliding_window(..., by=)``: each segment's rows (grouped by one stable sort)
        through :meth:`_one_shot` of a window of its own, the values scattered back in row
        order; ``count``: a count window that this window (of every prefix) stands for, a
        segment of more rows keeps its last ``count`` points."""
        _check_probabilities(self._metrics, scores)  # (named by row)
        order, bounds = _segment_rows(codes, len(keys))
        is_pos, scores = is_pos[order], scores[order]
        weights = None if weights is None else weights[order]
        times = None if times is None else times[order]
        pair = _part_of(pair, order)
        grouped = {name: np.empty(scores.shape[0]) for name in self._metrics}
        for j in range(len(keys)):
            part = slice(int(bounds[j]), int(bounds[j + 1]))
            window = self._blank(part.stop - part.start if count is None
                                 else min(part.stop - part.start, count))
            if count is not None and part.stop - part.start > count:
                window._keep_last(count)
            values = window._one_shot(is_pos[part], scores[part],
                                      None if weights is None else weights[part],
                                      None if times is None else times[part], None,
                                      _part_of(pair, part))
            for name, column in values.items():
                grouped[name][part] = column
        ordered = {}
        for name, column in grouped.items():
            ordered[name] = np.empty_like(column)
            ordered[name][order] = column
        return ordered

    def __getitem__(self, name: str) -> float:
        """A chosen metric over the current window, by name (KeyError for another)."""
        if name not in self._metrics:
            raise KeyError(f"{name!r} is not among this window's metrics {list(self._metrics)}")
        if self._segments is not None:
            raise ValueError(f"this window follows {len(self._segments)} segments: read one "
                             f"segment's, window.segment(key)[{name!r}], or window.segments()")
        if self._second is not None and SECOND_SCORE in METRICS[name].needs:
            if name == "auc_diff_p":
                return cast("_PairedRows", self._paired).pvalue()
            auc2 = self._second["auc"]
            return auc2 if name == "auc2" else read_metric(self._engines, "auc") - auc2
        return read_metric(self._engines, name)

    def segments(self) -> dict[Hashable, dict[str, float]]:
        """Every segment's metrics over its current window (its :meth:`results`), by key,
        in the order the keys first came; empty for a window fed without ``by``.

        Examples
        --------
        >>> from hmeasure_stream import SlidingWindow
        >>> window = SlidingWindow(2)
        >>> window.update([0, 0, 1, 1], [0.2, 0.1, 0.9, 0.3], by=["a", "b", "a", "b"])["auc"]
        array([nan, nan,  1.,  1.])
        >>> window.segments()
        {'a': {'auc': 1.0}, 'b': {'auc': 1.0}}
        """
        return {key: window.results() for key, window in (self._segments or {}).items()}

    def segment(self, key: Hashable) -> SlidingWindow:
        """The window of the segment ``key`` (KeyError for a key not seen): read it
        (``window.segment(key)["auc"]``, ``len``); feed this window, not it."""
        segments = self._segments or {}
        if key not in segments:
            raise KeyError(f"no segment {key!r} (this window has {len(segments)} segments)")
        return segments[key]

    def results(self) -> dict[str, float]:
        """Every chosen metric over the current window, by name, in the order of ``metrics``."""
        return {name: self[name] for name in self._metrics}

    def threshold_metrics(self) -> dict[str, float]:
        """The metrics followed at the threshold (``"er"``, ``"sens"``, ...), by name.  O(log w)."""
        return {name: self[name] for name in self._metrics if THRESHOLD in METRICS[name].needs}

    def __getattr__(self, name: str) -> float:
        # The reads by attribute of the previous API (``window.h``), for one release:
        # called only for names that are not attributes, and not listed by help().
        if name not in METRICS:
            raise AttributeError(f"'SlidingWindow' object has no attribute {name!r}")
        warnings.warn(f"SlidingWindow.{name} is deprecated and will be removed in the next "
                      f"release: read window[{name!r}] (or window.results())",
                      DeprecationWarning, stacklevel=2)
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(error.args[0]) from None

    @property
    def window(self) -> Window:
        """A number of points, a duration (``numpy.timedelta64``), or None (every prefix)."""
        return cast(Window, self._window)

    @property
    def half_life(self) -> Duration | None:
        """The half-life: a number of points, a duration (``numpy.timedelta64``), or None."""
        forgetting = self._forgettings[0] if self._forgettings else None
        return cast("Duration | None", half_life_of(forgetting))

    @property
    def min_periods(self) -> int:
        """The fewest points a window needs for its metrics (nan before)."""
        return self._min_periods

    @property
    def metrics(self) -> tuple[object, ...]:
        """The metrics followed."""
        return self._metrics

    @property
    def nbytes(self) -> int:
        """Bytes held by the engine's buffers and the window's points (its segments' too)."""
        segments = sum(window.nbytes for window in (self._segments or {}).values())
        if self._second is not None:  # a second model's window and the paired rows
            segments += self._second.nbytes + (0 if self._paired is None else sum(
                array.nbytes for array in (self._paired.is_pos, self._paired.score1,
                                           self._paired.score2, self._paired.weight,
                                           self._paired.position)))
        rings = self._rings if self._forgettings is None else [
            forgetting.ring for forgetting in self._forgettings]
        return segments + int(sum(engine.nbytes for engine in self._engines) + sum(
            buffer.nbytes for ring in rings if ring is not None
            for buffer in (ring.is_pos_buffer, ring.score_buffer, ring.weight_buffer,
                           ring.time_buffer) if buffer is not None))

    def __len__(self) -> int:
        """The points held (in every segment, with ``by``)."""
        if self._segments is not None:
            return sum(len(window) for window in self._segments.values())
        return int(self._engines[0].n_points)

    def __repr__(self) -> str:
        segments = "" if self._segments is None else f", segments={len(self._segments)}"
        return (f"SlidingWindow(window={self._window!r}, metrics={self._metrics!r}, "
                f"points={len(self)}{segments})")

    def _check_segments(self) -> None:
        """With segments: this window's engines hold no point, and each segment is a
        window of these options without segments of its own (AssertionError otherwise)."""
        if self._segments is None:
            return
        if self._engines[0].n_points:
            raise AssertionError(f"a window of segments holds {self._engines[0].n_points} "
                                 "points of its own")
        for key, window in self._segments.items():
            if not isinstance(window, SlidingWindow) or window._segments is not None:
                raise AssertionError(f"segment {key!r} is not a window without segments")
            if (window._metrics, window._min_periods, window._spec[3]) != (
                    self._metrics, self._min_periods, self._spec[3]):
                raise AssertionError(f"segment {key!r} has other metrics or window rules")
            if not (self._window is None or is_duration(self._window)) and any(
                    ring is not None and ring.capacity != self._window for ring in window._rings):
                raise AssertionError(f"segment {key!r} keeps another number of points than the "
                                     "window's")

    def _check_second(self) -> None:
        """With a second model: its window holds as many points as this one, and the
        paired rows are those points (their labels and weights); AssertionError otherwise."""
        if self._second is None:
            if self._paired is not None:
                raise AssertionError("paired rows without a second model")
            return
        if self._segments is not None:  # (each segment checks its own)
            return
        if len(self._second) != len(self):
            raise AssertionError(f"the second model's window holds {len(self._second)} "
                                 f"points, this one {len(self)}")
        if self._paired is not None:
            self._paired._check()
            if len(self._paired) != len(self):
                raise AssertionError(f"{len(self._paired)} paired rows for {len(self)} "
                                     "points held")
            ring = (self._forgettings[0].ring if self._forgettings else self._rings[0])
            if ring is not None and (self._forgettings or ring.capacity):
                is_pos, scores, _ = ring.points()
                live = is_pos != 2
                if not (np.array_equal(is_pos[live], self._paired.is_pos)
                        and np.array_equal(scores[live], self._paired.score1)):
                    raise AssertionError("the paired rows are not the window's points")

    def _check_pickle(self) -> None:
        """On load: each engine holds its window's points (their counts, or the points of
        its ``Forgetting``), each segment's too; a second model's window agrees."""
        self._check_segments()
        self._check_second()
        if self._second is not None:
            self._second._check_pickle()
        if self._segments is not None:
            for window in self._segments.values():
                window._check_pickle()
            return
        if self._forgettings is not None:
            for engine, forgetting in zip(self._engines, self._forgettings, strict=True):
                check_window_points(engine, forgetting)
            return
        if len(self._engines) != len(self._rings):
            raise AssertionError(f"{len(self._engines)} engines, {len(self._rings)} rings")
        for engine, ring in zip(self._engines, self._rings, strict=True):
            if engine.n_points != len(self) or (
                    self._window is not None and ring is not None and ring.size != len(self)):
                raise AssertionError(f"an engine or ring holds other points than the window's "
                                     f"{len(self)}")

    def _check(self) -> bool:
        """Verify the engine's invariants and that it holds the ring's points (for tests);
        each segment's too, and that the segments hold the window's points; a second
        model's window too."""
        self._check_segments()
        self._check_second()
        if self._second is not None:
            self._second._check()
        if self._segments is not None:
            return all(window._check() for window in self._segments.values())
        if self._forgettings is not None:
            for engine, forgetting in zip(self._engines, self._forgettings, strict=True):
                engine._check()
                check_window_points(engine, forgetting)
            return True
        for engine, ring in zip(self._engines, self._rings, strict=True):
            engine._check()
            if engine.n_points != len(self):
                raise AssertionError(f"engines hold {engine.n_points} and {len(self)} points")
            if self._window is not None and ring is not None and ring.size != len(self):
                raise AssertionError(f"{ring.size} points in the ring, {len(self)} held")
        return True


def check_window_points(engine: Any, forgetting: Any) -> Any:
    """The engine holds the points of its ``Forgetting`` (the calibration sums: exactly
    those of the live points of the ring)."""
    if not isinstance(engine, CalibrationEngine):
        return check_forgetting(engine, forgetting)
    is_pos, scores, weights = forgetting.ring.points()
    live = is_pos != 2
    if int(live.sum()) != forgetting.live or forgetting.live != engine.n_points:
        raise AssertionError(f"{int(live.sum())} live points in the ring, {forgetting.live} "
                             f"counted, {engine.n_points} in the engine")
    return engine.check_points(is_pos[live], scores[live], weights[live])


def sliding_window(
    y_true: ArrayLike,
    y_score: ArrayLike,
    window: Window,
    metrics: object = ("auc",),
    *,
    y_score2: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    times: ArrayLike | None = None,
    half_life: Duration | None = None,
    min_periods: int = 1,
    pos_label: Label = None,
    at: ArrayLike | None = None,
    by: ArrayLike | None = None,
) -> dict[str, FloatArray]:
    """Metrics over a sliding window (or every prefix) of an array, in one compiled loop.

    Entry i of each result is the metric over the ``window`` points ending at
    point i (over points 0..i when ``window`` is None: the learning curve).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or bool, in stream order.
    y_score : array-like of shape (n,)
        Scores, finite real numbers.
    window : int, str, datetime.timedelta, numpy.timedelta64 or None
        Number of points in the window (>= 1); a duration (``"15min"``,
        ``"24h"``, ``"7d"``, a timedelta) for the points whose time is in
        (t - window, t], t the time of the point the window ends at (needs
        ``times``); or None for every prefix.
    metrics : str, options object, or sequence of them, default=("auc",)
        Which metrics to compute, by name or options object, as for
        :class:`SlidingWindow`: ``"auc"``, ``"h"`` (the H-measure with
        priors from the window), ``"auch"`` (area under the ROC hull),
        ``"auc_approx"`` (the estimate of :class:`ApproxAUC`, unit weights
        only), ``"auc_binned"`` (the binned AUC; with ``window=None``
        Bouckaert's binned learning curve, a log-log alpha of None estimated
        from the whole array), ``"pauc"`` (the partial AUC), DeLong's
        ``"auc_var"``, ``"auc_lo"``, ``"auc_hi"``, the scores read as
        probabilities of class 1 (in [0, 1]): ``"brier"``, ``"log_loss"``,
        ``"ece"``, ``"mce"`` (bins of :class:`~hmeasure_stream.CalibrationBins`)
        and ``"expected_auc"`` (labels not used), and the others of the
        metric table; or ``"multiclass_auc"`` alone, for 2-d scores (its
        :class:`~hmeasure_stream.Classes` default to the sorted distinct
        labels of ``y_true``).
    y_score2 : array-like of shape (n,), optional
        A second model's scores on the same rows, for ``"auc2"`` (its AUC),
        ``"auc_diff"`` (auc - auc2) and ``"auc_diff_p"`` (the two-sided
        p-value of DeLong's paired test: :func:`~hmeasure_stream.auc_test` on
        the window's rows, weighted as the window weighs them).
    sample_weight : array-like of shape (n,), optional
        Weights, finite and >= 0.
    times : array-like of shape (n,), optional
        The points' times, non-decreasing: numbers of seconds since the
        epoch, datetime64, datetimes, pandas Timestamps or ISO 8601 strings
        (a pandas column with a time zone is converted to UTC).  Required
        with a duration ``window`` or ``half_life``.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        Exponential decay as for :class:`DynamicAUC`: a point of age a
        weighs 2^(-a / half_life) times its weight; the age in points (a
        number) or in time (a duration, with ``times``).  Combines with
        ``window``.
    min_periods : int, default=1
        Entries whose window holds fewer points are nan (as pandas'
        ``rolling``; at most a count ``window``).
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...); the one other
        label in ``y_true`` is class 0 and a third one is refused.  Default:
        labels 0/1 or booleans (or -1/1, as in scikit-learn).
    at : array-like of int, optional
        Only the windows ending at these rows (strictly increasing integers in
        [0, n), of any integer type; floats such as 3.0 are refused),
        as ``sliding_window(...)[name][at]`` but, with ``"auc"`` alone, unit
        weights and a count window, computed for those rows only.
    by : array-like of shape (n,), optional
        One segment key per row (any hashable: numbers, strings, a pandas
        categorical or polars Series): each segment has its own window, and
        entry i is the metric over the window of row i's segment ending at
        row i, equal to ``sliding_window`` on that segment's rows alone.
        A missing key (None, nan) is refused naming its row.  With ``at``,
        every row is computed and the rows of ``at`` returned.

    Returns
    -------
    dict of str to ndarray
        For each metric a float64 array of length n (of ``at``'s length with
        ``at``); nan where a class is absent from the window.

    Raises
    ------
    ValueError
        On invalid input (as for :func:`hmeasure_stream.auc`), a window that
        is not a positive integer, an unknown metric, ``"auc_approx"``
        without :class:`~hmeasure_stream.Compression` or with weights other
        than 1, ``"multiclass_auc"`` with another metric, a score outside
        [0, 1] with a metric that reads the scores as probabilities.

    See Also
    --------
    SlidingWindow : the same over a stream that arrives in chunks.
    DynamicAUC : the same engine, one update at a time.
    DynamicH : the hull engine behind ``"h"`` and ``"auch"``.
    ApproxAUC : the compressed list behind ``"auc_approx"``.

    Notes
    -----
    With ``"auc"`` alone and unit weights, the whole stream is known in
    advance: its scores are replaced by their dense ranks (one sort,
    O(n log n)) and the window's class counts are kept in a Fenwick tree
    indexed by rank, O(log n) per step in one flat array of 8 bytes per
    distinct score, so a step costs about the same for any window size; O(n)
    memory; at the rows ``at`` only, the window's sorted scores of each class
    go from one row to the next by merging in the sorted rows that arrive and
    out those that leave (2U from searches), O(w + K log w) for K rows
    between two rows of ``at``.  Otherwise the sorted blocks of :class:`DynamicAUC`: O(n log w)
    time, O(w) memory, one copy of the points for every metric read from the
    score order.  With ``"h"`` or ``"auch"``, the hull
    engine of :class:`DynamicH`: O(n (B + h log w)) time for hulls of at
    most h vertices, O(w) memory (plus O(n (h + (1 + 1/e) log^2 w)) with
    ``relative_error`` e).  With
    ``"auc_approx"``, the compressed list of :class:`ApproxAUC` over its
    treap: O(n (log w + log w / c)) for ``compression`` c.  With the probability metrics,
    exact sums: O(1) per step (``"ece"``, ``"mce"``: O(bins) to read),
    ``"expected_auc"`` O(log w), each value the from-scratch one of its
    window bit for bit for ``"brier"`` and ``"log_loss"`` (exactly rounded
    sums), with no drift however long the stream.  With ``"pauc"``, the blocks read
    as :meth:`DynamicAUC.partial_auc` reads them after each step: O(n log w)
    (the area within an ulp or two of the from-scratch value with unit
    weights, whose integer parts it shares, the cut segments in floating
    point; its McClish value divides that by A_max - A_min, of order w**2
    for a range of width w at the far end of the curve).  A second model
    has an order engine of its own (O(log w) a step); ``"auc_diff_p"`` is
    the test from scratch on the window's rows, O(w log w) for each row
    read (only the rows of ``at`` with ``at``), its rows kept, O(w).  Each step
    adds a point and removes the one leaving the window.  Values equal the
    from-scratch metric of each window (exactly for unit weights), and
    ``"auc_approx"`` is within its bound of the exact AUC.

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time".

    N. Tatti, "Efficient estimation of AUC in a sliding window".

    Examples
    --------
    >>> from hmeasure_stream import sliding_window
    >>> y = [0, 1, 0, 1, 1, 0]
    >>> s = [0.2, 0.9, 0.4, 0.3, 0.8, 0.1]
    >>> sliding_window(y, s, window=3)["auc"]
    array([nan, 1. , 1. , 0.5, 0.5, 1. ])
    >>> sliding_window(y, s, window=None)["auc"]
    array([       nan, 1.        , 1.        , 0.75      , 0.83333333,
           0.88888889])
    >>> sliding_window(y, s, window=3, at=[3, 5])["auc"]
    array([0.5, 1. ])
    >>> sliding_window(y, s, window=2, by=["a", "a", "b", "b", "a", "b"])["auc"]
    array([nan,  1., nan,  0., nan,  1.])
    """
    window, _ = check_window_counts(window, min_periods)
    chosen = metric_options(metrics)
    options: dict[str, Any] = {"half_life": half_life, "min_periods": min_periods,
                               "pos_label": pos_label}
    tracker = SlidingWindow.__new__(SlidingWindow)
    by_count = window is not None and not is_duration(window)
    if _needing(chosen, MULTICLASS):
        if by is not None:
            raise ValueError("by= is not available with 'multiclass_auc': call "
                             "sliding_window on each segment's rows")
        _second_scores(chosen, y_score2, 0)  # (refused: no metric reads it)
        label_array = as_label_array(y_true)
        name = _needing(chosen, MULTICLASS)[0]
        if chosen[name].classes is None:
            chosen = {**chosen, name: dataclasses.replace(
                chosen[name], classes=encode_sorted(label_array)[0])}
        if by_count and window >= label_array.shape[0]:
            window = None  # every window is a prefix
        tracker._build(window, chosen, **options)
        return tracker._one_shot_classes(label_array, y_score, sample_weight, times, at)
    # The options are checked before the data: a count window is built without its rings,
    # which a window of at least the whole stream does not need (each window is a prefix);
    # with decay, its ``Forgetting`` keeps the count (and grows as points arrive).
    ringed = by_count and half_life is None
    tracker._build(None if ringed else window, chosen, **options)
    y_true = with_pos_label(y_true, pos_label)
    # Ranks keep every comparison between scores, not their values.
    is_pos, scores, weights = checked_batch(
        y_true, y_score, sample_weight, allow_empty=False,
        ranks=not value_metrics(chosen)
    )
    scores2 = _second_scores(chosen, y_score2, scores.shape[0], ranks=True)
    rows = None if at is None else check_rows(at, scores.shape[0])
    if by is not None:
        keys, codes = _segment_codes(by, scores.shape[0])
        values = tracker._one_shot_segments(
            is_pos, scores, weights, tracker._times(times, scores.shape[0]), keys, codes,
            cast("int", window) if ringed else None,
            (scores2, None if rows is None else _reading(rows, scores.shape[0])))
        return values if rows is None else {name: column[rows]
                                            for name, column in values.items()}
    if ringed and window < scores.shape[0]:
        tracker._keep_last(cast("int", window))
    return tracker._one_shot(is_pos, scores, weights, tracker._times(times, scores.shape[0]),
                             rows, (scores2, None))
