"""What every streaming structure shares: batch validation, refusals, the point-set protocol.

The structures keep their points in a compiled engine (``_engines``) and
only validate, translate refusals into exceptions and document here.
"""

from __future__ import annotations

import copyreg
import dataclasses
import pickle
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike

from hmeasure_stream._core.curves import (
    average_precision_of,
    check_coords_options,
    check_coords_x,
    coords_between,
    coords_of,
    hull_of,
    precision_recall_of,
    roc_curve_of,
    table,
    threshold_table,
)
from hmeasure_stream._core.groups import roc_sums
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._protocol import Claim, Status
from hmeasure_stream._engines._read_levels import crossings
from hmeasure_stream._engines._read_precision import read as read_average_precision
from hmeasure_stream._engines._read_threshold import weights_from
from hmeasure_stream._engines._ring import DROP_EXPONENTS, Forgetting
from hmeasure_stream._validation import (
    EXACT_SCALE,
    Duration,
    FloatArray,
    Label,
    Window,
    check_duration,
    check_label_value,
    check_labels,
    check_same_length,
    check_score_value,
    check_scores,
    check_seed,
    check_time_value,
    check_times,
    check_weight_value,
    check_weights,
    is_duration,
    label_one,
    labels_as_is_pos,
    labels_many,
    merged_label_map,
    raise_bad_score,
    renamed_attributes,
    renamed_keyword,
)
from hmeasure_stream.curves import PrecisionRecallCurve, ROCCurve
from hmeasure_stream.metric_table import APApprox
from hmeasure_stream.streaming._window_rules import (
    check_count,
    check_window_counts,
    half_life_of,
    window_of,
)
from hmeasure_stream.typing import Columns, CostPrevalence

# The types of the structures' slots, for the type checker only: a class body with
# annotations would give every structure an ``__annotations__`` that help() lists.
if TYPE_CHECKING:
    class _PointSlots:
        _engine: Any
        _labels: Any

    class _WindowSlots:
        _forgetting: Forgetting | None
else:
    _PointSlots = _WindowSlots = object

#: The format of every structure's pickle; a pickle of another format is refused.
PICKLE_FORMAT = 3
#: The deprecated attribute names of every point set (old=new); a subclass that renames
#: more gives its ``__getattr__`` these and its own.
RENAMED_ATTRIBUTES = {"n_neg": "weight_neg", "n_pos": "weight_pos"}


class Pickled:
    """Pickling of a structure with ``__slots__``: its slots and the format they were written in.

    Nothing has been released with another layout, so there is one format;
    a change of any structure's or engine's state raises it, and a pickle of
    another format is refused with a clear message instead of being misread.
    """

    __slots__ = ()

    def __reduce_ex__(self, protocol):
        # One reduction for every protocol, 0 and 1 included (whose default would look
        # for a base class to copy the object into).
        return copyreg.__newobj__, (type(self),), self.__getstate__()

    def __getstate__(self):
        state = {"format": PICKLE_FORMAT}
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(self, name):
                    state[name] = getattr(self, name)
        return state

    def __setstate__(self, state):
        written = state.get("format") if isinstance(state, dict) else None
        if written != PICKLE_FORMAT:
            raise ValueError(
                f"cannot unpickle this {type(self).__name__}: it was written in pickle format "
                f"{written!r}, and this version of hmeasure_stream reads format {PICKLE_FORMAT} "
                "only (pickles do not carry over between format versions)")
        for name, value in state.items():
            if name != "format":
                setattr(self, name, value)
        try:
            self._check_pickle()
        except AssertionError as error:
            raise ValueError(f"cannot unpickle this {type(self).__name__}: {error}") from None

    def _check_pickle(self) -> None:
        """What a pickle's parts must agree on beyond each engine's own checks (which run
        as each is rebuilt); AssertionError otherwise."""


def checked_batch(y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None,
                  allow_empty: bool = True, ranks: bool = False) -> tuple[Any, Any, Any]:
    """Validated batch as (is_pos uint8, scores float64, weights float64 or None for unit).

    Labels -1/1 are read as 0/1, as everywhere (:func:`~hmeasure_stream._validation.binary_labels`).
    """
    labels = check_labels(y_true, allow_empty=allow_empty)
    scores = check_scores(y_score, allow_empty=allow_empty, ranks=ranks)
    check_same_length(labels, scores)
    is_pos = labels_as_is_pos(labels)
    raise_bad_score(scores)
    if sample_weight is None:
        return is_pos, scores, None
    return is_pos, scores, check_weights(sample_weight, scores.shape[0])


def checked_point(y_true, y_score, weight):
    """One point as the plain Python values the engines' fast path takes (or ValueError)."""
    return check_label_value(y_true), check_score_value(y_score), check_weight_value(weight)


def check_structure_options(capacity, seed):
    """The options every structure takes: (capacity, seed as an int or None)."""
    return check_capacity(capacity), check_seed(seed)


def out_of_range_message(engine, weights, index, name):
    """The refusal of a weight the structure cannot store next to those it holds."""
    if weights is None or np.ndim(weights) == 0:
        weight = 1.0 if weights is None else weights
        where = ""
    else:
        weight = np.asarray(weights)[index].item()
        where = f" at position {index}"
    return (
        f"{name} must lie within a factor 2**400 (about 1e120) of the weights the "
        f"structure holds (its scale is set by the first positive weight added, here "
        f"{engine.scale!r}); found {weight!r}{where}. Weights of any common scale are "
        "fine: an emptied structure starts afresh"
    )


def merge_scale_message(mine, theirs):
    """The refusal of a merge whose two structures' weights cannot share one scale."""
    return (
        f"cannot merge: the other structure's weights (scale {theirs!r}) are more than "
        f"2**400 times larger or smaller than this one's (scale {mine!r}); nothing was merged"
    )


#: ``with claimed(*engines):`` holds the claim of a structure's engines
#: (``_protocol.Guarded``) for one operation of several engine calls (a check then a
#: removal, several engines, a merge): the calling thread's calls enter, another
#: thread's are refused (``RuntimeError``), all of them or none before anything
#: changes, so that no thread sees or leaves half an operation.
claimed = Claim


def check_capacity(capacity):
    """The initial room of an engine, in distinct scores: a count (``check_count``)."""
    return check_count(capacity, "capacity")


def _missing_message(engine, is_pos, score, weight, status):
    point = f"y_true={int(is_pos)}, y_score={score!r}"
    if status == Status.NOT_PRESENT:
        return f"no point with {point} to remove"
    held = float(engine.weights_at(np.array([score]), is_pos)[0])
    return (
        f"cannot remove weight {weight!r} from the points with {point}: "
        f"they weigh {held!r} in total"
    )


def _check_removable(engine, is_pos, scores, weights):
    """Refuse a batch that removes more points or weight than a (label, score) holds."""
    stored, refused = engine.stored_weights(weights, scores.shape[0], False)
    if stored is None:
        stored = np.ones(scores.shape[0])
    _check_counts(engine, is_pos, scores)
    if refused >= 0:
        weight = 1.0 if weights is None else weights[refused].item()
        raise KeyError(
            f"remove_many: position {refused} removes weight {weight!r}, but no point "
            "present weighs that: the structure holds weights of scale "
            f"{engine.scale!r} (within a factor 2**400), or none of positive weight"
        )
    if engine.unit_weights:
        odd = np.flatnonzero(stored != 1.0)
        if odd.size:
            k = odd[0]
            weight = 1.0 if weights is None else weights[k].item()
            raise KeyError(
                f"remove_many: every point present has weight {engine.scale!r}, but "
                f"position {k} removes weight {weight!r}"
            )
    for label in (0, 1):
        mask = is_pos == label
        if not mask.any():
            continue
        distinct, inverse = np.unique(scores[mask], return_inverse=True)
        removed = np.bincount(inverse, weights=stored[mask])
        k = engine.first_excess(distinct, bool(label), removed)
        if k >= 0:
            held_weight = engine.weights_at(distinct[k:k + 1], bool(label))[0]
            raise KeyError(
                f"remove_many: the batch removes weight {float(removed[k] * engine.scale)!r} from "
                f"the points with y_true={label}, y_score={distinct[k].item()!r}, which "
                f"weigh {held_weight.item()!r}"
            )


def _check_counts(engine, is_pos, scores):
    """Refuse a batch that removes more points than a (label, score) holds."""
    for label in (0, 1):
        mask = is_pos == label
        if not mask.any():
            continue
        distinct, needed = np.unique(scores[mask], return_counts=True)
        held = engine.counts_at(distinct, bool(label))
        short = np.flatnonzero(needed > held)
        if short.size:
            k = short[0]
            raise KeyError(
                f"remove_many: the batch removes {needed[k]} point(s) with "
                f"y_true={label}, y_score={distinct[k].item()!r}, but {held[k]} "
                "are present"
            )


def add_point(engine, y_true, y_score, weight):
    """Add one point to an engine, validating what its fast path does not take."""
    status = engine.add(y_true, y_score, weight)
    if status:
        if status == Status.UNCHECKED:
            y_true, y_score, weight = checked_point(y_true, y_score, weight)
            status = engine.add(y_true, y_score, weight)
        if status == Status.OUT_OF_RANGE:
            raise ValueError(out_of_range_message(engine, weight, 0, "weight"))


def remove_checked(engine, is_pos, scores, weights):
    """Remove a checked batch from an engine: all of it, or nothing and KeyError (the check
    and the removal under one claim: no other thread changes the engine in between)."""
    with claimed(engine):
        _check_removable(engine, is_pos, scores, weights)
        failed = engine.remove_many(is_pos, scores, weights)
    if failed >= 0:
        # Not reachable after the check above; undo rather than leave half a batch.
        done = None if weights is None else weights[:failed]
        engine.add_many(is_pos[:failed], scores[:failed], done)
        weight = 1.0 if weights is None else float(weights[failed])
        raise KeyError(_missing_message(engine, bool(is_pos[failed]), float(scores[failed]),
                                        weight, Status.WEIGHT_EXCEEDS))


def points_batch(engine):
    """A batch (is_pos, scores, weights or None) whose addition re-creates the engine's points.

    From the engine's score groups with their point counts: with unit
    weights each point once; with weights, the points of one score and class
    as one point carrying their total weight and the others with weight 0,
    which leaves the same counts and weights in a structure.
    """
    keys, weight_neg, weight_pos, count_neg, count_pos = engine.items()
    parts = []
    for label, weights, counts in ((0, weight_neg, count_neg), (1, weight_pos, count_pos)):
        present = counts > 0
        counts = counts[present].astype(np.int64)
        scores = np.repeat(keys[present], counts)
        batch_weights = None
        if not engine.unit_weights:
            batch_weights = np.zeros(scores.shape[0])
            batch_weights[np.cumsum(counts) - 1] = weights[present]
        parts.append((np.full(scores.shape[0], label, dtype=np.uint8), scores, batch_weights))
    is_pos = np.concatenate([part[0] for part in parts])
    scores = np.concatenate([part[1] for part in parts])
    # The engine stores weights in units of ``scale`` (a power of two: exact).
    scale = engine.scale
    if engine.unit_weights:
        return is_pos, scores, None if scale == 1.0 else np.full(scores.shape[0], scale)
    return is_pos, scores, np.concatenate([part[2] for part in parts]) * scale


def merge_refusal(owner):
    """The refusal of a merge of a structure that forgets (a window, decay)."""
    return (f"cannot merge a {type(owner).__name__} with a window or half-life: its points "
            "have ages and times; merge structures that keep every point")


def merge_points(structure, other):
    """Add the points of ``other`` to ``structure`` (both checked compatible by the caller).

    The smaller point set is added to the larger: when ``other`` holds more
    points and has the same kind of engine, ``structure`` takes a copy of
    its engine and adds its own points to it.  Structures with a window or
    decay are refused: their points have ages and times.
    """
    for owner in (structure, other):
        if getattr(owner, "_forgetting", None) is not None:
            raise ValueError(merge_refusal(owner))
    labels = merged_label_map(structure._labels, other._labels)
    mine = structure._engine
    with claimed(mine, other._engine):
        if len(other) > len(structure) and type(other._engine) is type(mine):
            engine = pickle.loads(pickle.dumps(other._engine))
            refused = engine.add_many(*points_batch(mine))
        else:
            engine = mine
            refused = engine.add_many(*points_batch(other._engine))
        if refused >= 0:  # (nothing added: the weights are checked first)
            raise ValueError(merge_scale_message(mine.scale, other._engine.scale))
        if engine is not mine and getattr(mine, "tracks_variance", False):
            engine.track_variance()
        with claimed(engine):  # (the engine taken over is claimed before it is seen)
            structure._engine = engine
            structure._labels = labels


class PointSet(Pickled, _PointSlots):
    """What every structure over a set of (label, score, weight) points shares.

    ``_engine`` is the compiled engine holding the points (an ``AUCEngine``
    or one built on it).  Single points go to the engine's compiled fast
    path; values it does not take (``Status.UNCHECKED``) are validated here
    and sent again.
    """

    __slots__ = ("_engine", "_labels")

    def add(self, y_true: Label, y_score: float, weight: float = 1.0) -> None:
        """Add one point, as the class docstring says."""
        if self._labels is not None:  # (one test on the hot path of labels 0/1)
            is_pos, labels = self._labels.one(y_true)
            add_point(self._engine, is_pos, y_score, weight)
            self._labels = labels
            return
        status = self._engine.add(y_true, y_score, weight)
        if status:  # (DONE is 0: no enum comparison on the hot path)
            if status == Status.UNCHECKED:
                y_true, y_score, weight = checked_point(y_true, y_score, weight)
                status = self._engine.add(y_true, y_score, weight)
            if status == Status.OUT_OF_RANGE:
                raise ValueError(out_of_range_message(self._engine, weight, 0, "weight"))

    def remove(self, y_true: Label, y_score: float, weight: float = 1.0) -> None:
        """Remove a point (or part of a score's weight) as added; KeyError if absent."""
        if self._labels is None:  # the hot path of labels 0/1: no label map to apply
            status = self._engine.remove(y_true, y_score, weight)
            if not status:
                return
        y_true, labels = label_one(self._labels, y_true)
        status = self._engine.remove(y_true, y_score, weight)
        if status:  # the rare paths, off the hot one
            y_true, y_score, weight = checked_point(y_true, y_score, weight)
            if status == Status.UNCHECKED:
                status = self._engine.remove(y_true, y_score, weight)
            if status:
                raise KeyError(_missing_message(self._engine, y_true, y_score, weight, status))
        self._labels = labels

    def add_many(self, y_true: ArrayLike, y_score: ArrayLike,
                 sample_weight: ArrayLike | None = None) -> None:
        """Add arrays of the arguments of :meth:`add` in one compiled loop."""
        with claimed(self._engine):  # (the label map too: read, then replaced)
            y_true, labels = labels_many(self._labels, y_true)
            is_pos, scores, weights = self._checked_batch(y_true, y_score, sample_weight)
            refused = self._engine.add_many(is_pos, scores, weights)
            if refused >= 0:
                raise ValueError(
                    out_of_range_message(self._engine, weights, refused, "sample_weight"))
            self._labels = labels

    def remove_many(self, y_true: ArrayLike, y_score: ArrayLike,
                    sample_weight: ArrayLike | None = None) -> None:
        """Remove arrays of points, each as :meth:`remove`: all of them or none."""
        with claimed(self._engine):
            y_true, labels = labels_many(self._labels, y_true)
            remove_checked(self._engine, *self._checked_batch(y_true, y_score, sample_weight))
            self._labels = labels

    def _checked_batch(self, y_true, y_score, sample_weight):
        """A batch as the engine takes it (see :func:`checked_batch`); a structure whose
        engine takes less (unit weights) refuses more here."""
        return checked_batch(y_true, y_score, sample_weight)

    def roc_points(self) -> tuple[FloatArray, FloatArray]:
        """(fpr, tpr), as ``roc_points`` returns them, O(n); ValueError while a class is absent."""
        fp, tp = roc_sums(*self._groups()[1:])
        return fp / fp[-1], tp / tp[-1]

    def hull(self, return_thresholds: bool = False
             ) -> ROCCurve | tuple[FloatArray, FloatArray]:
        """As :func:`~hmeasure_stream.roc_hull` returns it, O(n); ValueError without a class."""
        keys, group_neg, group_pos = self._groups()
        if return_thresholds:
            return ROCCurve(*hull_of(group_neg, group_pos, keys))
        return hull_of(group_neg, group_pos)

    def roc_curve(self, drop_intermediate: bool = True) -> ROCCurve:
        """(fpr, tpr, thresholds) as :func:`~hmeasure_stream.roc_curve` returns them.  O(n)."""
        return ROCCurve(*roc_curve_of(*self._sums(), drop_intermediate))

    def precision_recall_curve(self, drop_intermediate: bool = False
                               ) -> PrecisionRecallCurve:
        """As :func:`~hmeasure_stream.precision_recall_curve` returns it.  O(n)."""
        return PrecisionRecallCurve(*precision_recall_of(*self._sums(), drop_intermediate))

    def average_precision(self, relative_error: float | None = None, *,
                          epsilon: float | None = None) -> float:
        """:func:`~hmeasure_stream.average_precision` of the points (O(n); nan without a class);
        with ``relative_error`` e in (0, 1) (``epsilon``: deprecated), within e times it in
        O(log(n)^2 / e), as ``"ap_approx"`` (docs/implementation.rst)."""
        relative_error = renamed_keyword("average_precision", "epsilon", "relative_error",
                                         epsilon, relative_error)
        if relative_error is not None:
            relative_error = APApprox(relative_error).relative_error
            if isinstance(self._engine, BlockedAUCEngine):
                return read_average_precision(self._engine, relative_error)
        if not (self._engine.weight_neg > 0 and self._engine.weight_pos > 0):
            return np.nan
        return average_precision_of(*self._sums()[1:])

    def coords(self, x: object, *, input: str = "threshold",
               ret: Columns = ("threshold", "specificity", "sensitivity"),
               best_method: str = "youden", best_weights: CostPrevalence = (1, 0.5)) -> Any:
        """:func:`~hmeasure_stream.coords`; O(log n) a value of ``x``, O(n) for "all", "best"."""
        input, ret, best = check_coords_options(input, ret, best_method, best_weights)
        if isinstance(x, str):
            return coords_of(*self._sums(units=True), x, input, ret, best)
        keys, values = check_coords_x(x, input)
        engine = self._engine
        units = self._units()
        # The class totals in the engine's units (those its reads are in).
        total_neg, total_pos = engine.weight_neg / engine.scale, engine.weight_pos / engine.scale
        if not (total_neg > 0 and total_pos > 0):
            nan = np.full(values.shape[0], np.nan)
            return table(ret, nan, nan, nan, nan, nan, np.nan, np.nan)
        if not isinstance(engine, BlockedAUCEngine):  # ApproxAUC's treap: from its groups
            return coords_of(*self._sums(units=True), values, input, ret, best)
        if keys is not None:
            above = weights_from(engine, keys) * units
            return threshold_table(ret, values, above[:, 0], above[:, 1], total_neg * units,
                                   total_pos * units)
        lower, upper = self._points_around(input == "sensitivity", values, total_neg, total_pos)
        return coords_between(values, input, ret, (lower[0], *lower[1:] * units),
                              (upper[0], *upper[1:] * units), total_neg * units,
                              total_pos * units)

    def _points_around(self, by_sensitivity, values, total_neg, total_pos):
        """The two points of pROC's curve around each specificity (or sensitivity) of
        ``values``, as ``coords_between`` reads them: (lower, upper), each an array of
        rows (thresholds, class weight 0 at or above them, class weight 1), in the
        engine's units (class totals ``total_neg``, ``total_pos``)."""
        found = crossings(self._engine, by_sensitivity, values)
        below_neg, below_pos, with_neg, with_pos, previous_key, key, next_key = found.T
        # The points of the thresholds just below the group and just above it.
        below = np.array([np.where(np.isnan(previous_key), -np.inf,
                                   EXACT_SCALE.midpoints(previous_key, key)),
                          total_neg - below_neg, total_pos - below_pos])
        above = np.array([np.where(np.isnan(next_key), np.inf,
                                   EXACT_SCALE.midpoints(key, next_key)),
                          total_neg - with_neg, total_pos - with_pos])
        # Specificity rises with the threshold: the group's point is the first to reach
        # the value; sensitivity falls: the point below the group is the last to reach it.
        lower, upper = (above, below) if by_sensitivity else (below, above)
        # The ends: a sensitivity no group falls below (0) reads the last point
        # (threshold inf), a specificity of 0 the first (-inf, every point above it).
        if by_sensitivity:
            end, at_end = np.array([[np.inf], [0.0], [0.0]]), np.isnan(key)
        else:
            end, at_end = np.array([[-np.inf], [total_neg], [total_pos]]), values <= 0
        return np.where(at_end, end, lower), np.where(at_end, end, upper)

    def _units(self) -> float:
        """The caller's weight units over the engine's stored ones."""
        return self._engine.scale

    def _sums(self, units: bool = False) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The groups' cumulative sums (keys, fp, tp) that the curves read (``_core.curves``),
        in the caller's units with ``units``; ValueError while a class is absent."""
        keys, group_neg, group_pos = self._groups()
        if units:
            factor = self._units()
            group_neg, group_pos = group_neg * factor, group_pos * factor
        fp, tp, keys = roc_sums(group_neg, group_pos, keys)
        return keys, fp[1:], tp[1:]

    def _groups(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        scores, group_neg, group_pos = self._engine.score_groups()
        if not (group_neg.sum() > 0 and group_pos.sum() > 0):
            raise ValueError("the ROC curve is undefined while a class is absent")
        return scores, group_neg, group_pos

    @property
    def auc(self) -> float:
        """The AUC of the current points (nan while a class is absent).  O(1)."""
        return self._engine.auc

    @property
    def weight_neg(self) -> float:
        """Total weight of class 0."""
        return self._engine.weight_neg

    @property
    def weight_pos(self) -> float:
        """Total weight of class 1."""
        return self._engine.weight_pos

    __getattr__ = renamed_attributes(**RENAMED_ATTRIBUTES)

    @property
    def nbytes(self) -> int:
        """Bytes held by the structure's buffers."""
        return self._engine.nbytes

    @property
    def pos_label(self) -> Label:
        """The label of class 1 given at construction (None: labels are 0/1 or booleans)."""
        return None if self._labels is None else self._labels.pos

    def __len__(self) -> int:
        return int(self._engine.n_points)

    def _check(self) -> bool:
        """Verify every invariant of the structure in O(n), reading only (for tests)."""
        return self._engine._check()



@dataclasses.dataclass(frozen=True)
class ForgettingRules:
    """A window and a half-life as ``Forgetting`` takes them (0: none)."""

    count: int            # a window of this many points
    period: int           # a window of this duration (ns)
    half_life: float      # points, or ns when decay_by_time
    decay_by_time: bool


def make_forgetting(window, half_life):
    """The ``Forgetting`` of a window and a half-life as the public API takes them, or None.

    Decayed points leave at 2^-DROP_EXPONENTS relative to the newest, in every
    engine; durations need a time with every point.
    """
    rules = forgetting_rules(window, half_life)
    return None if rules is None else forgetting_of(rules)


def forgetting_of(rules, *, decay_only=False):
    """A new ``Forgetting`` of checked ``ForgettingRules``: the one place one is built
    (a window's engines and segments each get their own from the rules checked once).
    ``decay_only``: the half-life alone, without the window's count or period (a
    ``Forgetting`` without its ring, as ``DelayedAUC`` keeps its decay)."""
    count, period = (0, 0) if decay_only else (rules.count, rules.period)
    return Forgetting(count, period, rules.half_life, rules.decay_by_time,
                      period > 0 or rules.decay_by_time, DROP_EXPONENTS)


def forgetting_rules(window, half_life):
    """The ``ForgettingRules`` of a window and a half-life as the public API takes them,
    checked, or None for neither.

    ``window``: None, an int (a count of points) or a duration (see
    ``check_duration``); ``half_life``: None, a positive number of points or a
    duration.
    """
    if window is None and half_life is None:
        return None
    count = period = 0
    if is_duration(window):
        period = check_duration(window, "window")
    elif window is not None:
        count = check_window_counts(window)[0]
    decay = 0.0
    decay_by_time = False
    if is_duration(half_life):
        decay, decay_by_time = float(check_duration(half_life, "half_life")), True
    elif half_life is not None:
        if (isinstance(half_life, (bool, np.bool_)) or not isinstance(half_life, (int, float,
                                                                                np.integer,
                                                                                np.floating))
                or not 0 < half_life < float("inf")):
            raise ValueError(
                "half_life must be a positive number of points, a duration such as '1h', a "
                f"datetime.timedelta or a numpy.timedelta64, or None; got {half_life!r}"
            )
        decay = float(half_life)
    return ForgettingRules(count, period, decay, decay_by_time)


def forgetting_times(forgetting, times, n, name="times"):
    """A batch's times (int64 ns, or None) checked against a structure's ``Forgetting``."""
    if forgetting is None:  # (a count window: times are checked, not ordered)
        return None if times is None else check_times(times, n, name)
    return ordered_times(times, n, forgetting.newest_time if forgetting.has_time else None,
                         forgetting.needs_time, name=name)


def ordered_times(times, n, newest, required, *, name="times", caller="",
                  newest_of="of the structure"):
    """A batch's times (int64 ns, or None when not given) for a window or a decay that
    keeps them: given when ``required`` (a duration), in order, none before ``newest``
    (ns, None before the first).  ``caller`` prefixes the messages."""
    prefix = f"{caller}: " if caller else ""
    if times is None:
        if required and n:
            raise ValueError(f"{prefix}{name} is required: the window or half-life is a "
                             "duration")
        return None
    times = check_times(times, n, name)
    if not n:
        return times
    back = np.flatnonzero(times[1:] < times[:-1])  # (np.diff wraps beyond 2^63 ns)
    if back.size:
        k = back[0] + 1
        raise ValueError(
            f"{prefix}{name} must not go backwards: {name}[{k}] ({_as_time(times[k])}) is "
            f"before {name}[{k - 1}] ({_as_time(times[k - 1])})"
        )
    if newest is not None and times[0] < newest:
        raise ValueError(
            f"{prefix}{name} must not go backwards: {name}[0] ({_as_time(times[0])}) is "
            f"before the newest time {newest_of} ({_as_time(newest)})"
        )
    return times


def _as_time(nanoseconds):
    return str(np.datetime64(int(nanoseconds), "ns"))


def forgetting_time(forgetting, time):
    """One point's time (int ns, or None) checked against a ``Forgetting``."""
    return ordered_time(time, forgetting.newest_time if forgetting.has_time else None,
                        forgetting.needs_time)


def ordered_time(time, newest, required, *, caller="", newest_of="of the structure"):
    """One point's time as ``ordered_times`` checks a batch's."""
    prefix = f"{caller}: " if caller else ""
    if time is None:
        if required:
            raise ValueError(f"{prefix}time is required: the window or half-life is a "
                             "duration")
        return None
    nanoseconds = check_time_value(time)
    if newest is not None and nanoseconds < newest:
        raise ValueError(
            f"{prefix}time must not go backwards: {time!r} ({_as_time(nanoseconds)}) is "
            f"before the newest time {newest_of} ({_as_time(newest)})"
        )
    return nanoseconds


def check_forgetting(engine, forgetting):
    """The window's points are exactly the engine's: counts per label and score equal,
    weights within 1e-9; the ring in time order; nothing left that should have left."""
    ring = forgetting.ring
    is_pos, scores, weights = ring.points()
    live = is_pos != 2
    if int(live.sum()) != forgetting.live or forgetting.live != engine.n_points:
        raise AssertionError(
            f"{int(live.sum())} live points in the ring, {forgetting.live} counted, "
            f"{engine.n_points} in the engine")
    times = ring.times()  # (differences of times in Python integers: int64 ones wrap)
    if times.size and (np.any(times[1:] < times[:-1])
                       or (forgetting.has_time and times[-1] > forgetting.newest_time)):
        raise AssertionError("the ring's times go backwards")
    if forgetting.count and ring.size > forgetting.count:
        raise AssertionError(f"{ring.size} points in a window of {forgetting.count}")
    if (forgetting.period and times.size
            and forgetting.newest_time - int(times[0]) >= forgetting.period):
        raise AssertionError("a point older than the time window is still held")
    if forgetting.half_life and ring.size:
        positions = forgetting.positions()
        newest = forgetting.newest_time if forgetting.decay_by_time else forgetting.step - 1
        if newest - int(positions[0]) > forgetting.drop_exponent * forgetting.half_life:
            raise AssertionError("a point past the drop age is still held")
        if live.any():
            last = np.flatnonzero(live)[-1]
            exponent = forgetting.exponent_at(int(positions[last]))
            if not -DROP_EXPONENTS - 2 <= exponent <= 2 * DROP_EXPONENTS + 8:
                raise AssertionError(f"the newest decay exponent {exponent} drifted")
    keys, weight_neg, weight_pos, count_neg, count_pos = engine.items()
    for label, held_counts, held_weights in ((0, count_neg, weight_neg),
                                             (1, count_pos, weight_pos)):
        mask = live & (is_pos == label)
        position = np.searchsorted(keys, scores[mask])
        if np.any(position >= keys.size) or np.any(keys[np.minimum(position, keys.size - 1)]
                                                    != scores[mask]):
            raise AssertionError("a point of the window is not in the engine")
        counts = np.bincount(position, minlength=keys.size)
        if not np.array_equal(counts, held_counts):
            raise AssertionError(f"class {label}: the window's counts differ from the engine's")
        if engine.unit_weights:
            continue
        summed = np.bincount(position, weights=weights[mask], minlength=keys.size)
        if np.any(np.abs(summed - held_weights) > 1e-9 * np.maximum(summed.max(initial=0), 1e-300)):
            raise AssertionError(f"class {label}: the window's weights differ from the engine's")
    return True


class WindowedPointSet(PointSet, _WindowSlots):
    """A point set that may forget: a count or time window, exponential decay.

    ``_forgetting`` is None for a structure that keeps every point (the
    methods are then those of ``PointSet``); otherwise every addition goes
    through it and the engine's ``forget_*`` entry points, which remove the
    points leaving the window in the same compiled call.
    """

    __slots__ = ("_forgetting",)

    def add(self, y_true: Label, y_score: float, weight: float = 1.0, *,
            time: object = None) -> None:
        """Add one point, as the class docstring says; the points it pushes out leave."""
        forgetting = self._forgetting
        if forgetting is None:
            if time is None and self._labels is None:
                # The hot path (a structure keeping every point, labels 0/1), without the
                # call to PointSet.add; a status other than DONE changed nothing, so
                # PointSet.add below runs the point again on its checked path.
                if not self._engine.add(y_true, y_score, weight):
                    return
            elif time is not None:
                check_time_value(time)
            PointSet.add(self, y_true, y_score, weight)
            return
        y_true, labels = label_one(self._labels, y_true)
        if type(time) is float and -9.2e9 < time < 9.2e9:
            # The fast path of epoch seconds (as check_time_value converts them).
            nanoseconds = round(time * 1e9)
            if nanoseconds < forgetting.newest_time and forgetting.has_time:
                forgetting_time(forgetting, time)  # raises, with the message
            time = nanoseconds
        elif time is not None or forgetting.needs_time:
            time = forgetting_time(forgetting, time)
        status = self._engine.forget_add(forgetting, y_true, y_score, weight, time)
        if status:  # (DONE is 0: no enum comparison on the hot path)
            if status == Status.UNCHECKED:
                y_true, y_score, weight = checked_point(y_true, y_score, weight)
                status = self._engine.forget_add(forgetting, y_true, y_score, weight, time)
            if status == Status.OUT_OF_RANGE:
                raise ValueError(out_of_range_message(self._engine, weight, 0, "weight"))
        self._labels = labels

    def add_many(self, y_true: ArrayLike, y_score: ArrayLike,
                 sample_weight: ArrayLike | None = None, *, times: ArrayLike | None = None) -> None:
        """Add arrays of the arguments of :meth:`add` in one compiled loop."""
        with claimed(self._engine):
            y_true, labels = labels_many(self._labels, y_true)
            batch = self._checked_batch(y_true, y_score, sample_weight)
            forgetting = self._forgetting
            times = forgetting_times(forgetting, times, batch[1].shape[0])
            if forgetting is None:
                refused = self._engine.add_many(*batch)
            else:
                refused = self._engine.forget_add_many(forgetting, *batch, times)
            if refused >= 0:
                raise ValueError(
                    out_of_range_message(self._engine, batch[2], refused, "sample_weight"))
            self._labels = labels

    def remove(self, y_true: Label, y_score: float, weight: float = 1.0) -> None:
        """Remove a point as added (from a window: with its weight, in O(w)); KeyError if absent."""
        if self._forgetting is None:
            if self._labels is None and not self._engine.remove(y_true, y_score, weight):
                return  # the hot path, as in add
            PointSet.remove(self, y_true, y_score, weight)
            return
        y_true, labels = label_one(self._labels, y_true)
        is_pos, score, weight = checked_point(y_true, y_score, weight)
        self._retract(np.array([is_pos], dtype=np.uint8), np.array([score]),
                      np.array([weight]))
        self._labels = labels

    def remove_many(self, y_true: ArrayLike, y_score: ArrayLike,
                    sample_weight: ArrayLike | None = None) -> None:
        """Remove arrays of points, each as :meth:`remove`: all of them or none."""
        if self._forgetting is None:
            PointSet.remove_many(self, y_true, y_score, sample_weight)
            return
        with claimed(self._engine):
            y_true, labels = labels_many(self._labels, y_true)
            self._retract(*self._checked_batch(y_true, y_score, sample_weight))
            self._labels = labels

    def _retract(self, is_pos, scores, weights):
        index, status = self._engine.forget_remove_many(self._forgetting, is_pos, scores,
                                                        weights)
        if index >= 0:
            weight = 1.0 if weights is None else float(weights[index])
            point = f"y_true={int(is_pos[index])}, y_score={float(scores[index])!r}"
            if status == Status.NOT_PRESENT:
                raise KeyError(f"no point with {point} in the window to remove")
            raise KeyError(f"no point with {point} and weight {weight!r} in the window to "
                           "remove (pass the weight it was added with)")

    def _check_pickle(self) -> None:
        """On load: the window's points are the engine's (``check_forgetting``)."""
        if self._forgetting is not None:
            check_forgetting(self._engine, self._forgetting)

    def _units(self) -> float:
        if self._forgetting is None:
            return self._engine.scale
        return self._engine.scale / self._forgetting.newest_factor()

    @property
    def weight_neg(self) -> float:
        """Total weight of class 0 (with decay: decayed, relative to the newest point)."""
        if self._forgetting is None:
            return self._engine.weight_neg
        return self._engine.weight_neg / self._forgetting.newest_factor()

    @property
    def weight_pos(self) -> float:
        """Total weight of class 1 (with decay: decayed, relative to the newest point)."""
        if self._forgetting is None:
            return self._engine.weight_pos
        return self._engine.weight_pos / self._forgetting.newest_factor()

    @property
    def window(self) -> Window:
        """The window: a number of points, a duration (``numpy.timedelta64``), or None."""
        return cast("Window", window_of(self._forgetting))

    @property
    def half_life(self) -> Duration | None:
        """The half-life: a number of points, a duration (``numpy.timedelta64``), or None."""
        return cast("Duration | None", half_life_of(self._forgetting))

    def _check(self) -> bool:
        """Verify every invariant of the structure in O(n), reading only (for tests)."""
        self._engine._check()
        if self._forgetting is not None:
            check_forgetting(self._engine, self._forgetting)
        return True
