"""Predictions whose labels arrive late: ``DelayedAUC``.

Two sets of window engines, both chosen by ``_engine_choice.window_engines``: the
realized set holds the labelled predictions of the window (unit weights),
the expected set every prediction of the window, a pending one as its two
parts (the probability p as class 1, 1 - p as class 0 at its score, as
``expected.expected_auc`` counts it), a labelled one as its point.
"""

from __future__ import annotations

import collections
import itertools
import math
from collections.abc import Hashable, Sequence
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._core.delong import ConfidenceInterval
from hmeasure_stream._engines._protocol import Status
from hmeasure_stream._engines._ring import DROP_EXPONENTS, RESCALE_EXPONENTS, Forgetting
from hmeasure_stream._validation import (
    Duration,
    Label,
    Window,
    check_label_value,
    check_labels,
    check_option,
    check_score_value,
    check_scores,
    check_time_value,
    check_times,
    label_map,
    labels_as_is_pos,
    raise_bad_probability,
    raise_bad_score,
)
from hmeasure_stream.metric_table import (
    BINS,
    METRICS,
    MULTICLASS,
    SECOND_SCORE,
    ConfidenceLevel,
    metric_options,
)
from hmeasure_stream.streaming._base import (
    Pickled,
    claimed,
    forgetting_of,
    forgetting_rules,
    ordered_time,
    ordered_times,
)

# Both engine sets come from window_engines, the one place where a window's engines
# are chosen from the metric table.
from hmeasure_stream.streaming._engine_choice import needing as _needing
from hmeasure_stream.streaming._engine_choice import unit_weight_metrics as _unit_weight_metrics
from hmeasure_stream.streaming._engine_choice import window_engines as _window_engines
from hmeasure_stream.streaming._window_rules import read_metric, refuse_decay

__all__ = ["DelayedAUC"]

#: A part of a pending prediction lighter than this share of it (a probability within
#: 2**-64 of 0 or 1; 2**-32 with decay) is left out of the expected engines, as if the
#: probability were 0 or 1.  The engines keep the weight of a class at a score in a
#: compensated sum (about 106 bits): the parts and the decay factors, which span up to
#: 2**DROP_EXPONENTS, stay within 2**96 of each other, so the residue after removals
#: stays far below 1e-9 of the lightest part (the removal tolerance); the expected AUC
#: moves by less than that share of the weight of its class.
_LIGHTEST_PART = 2.0**-64
_LIGHTEST_DECAYED_PART = 2.0**-32

# A slot: [score, prob, position, label, weight, decay_at]; position is the
# prediction's number (count window, no window) or its time in ns (duration
# window); label -1 while pending, else 0 or 1; weight its decay factor (1 without
# decay) relative to the decay's anchor (``Forgetting``'s), rescaled as the engines'
# weights are; decay_at its number or time in ns for the decay (None without decay).
_SCORE, _PROB, _POSITION, _LABEL, _WEIGHT, _DECAY_AT = range(6)
_PENDING = -1
#: A pending prediction's parts: (is_pos, weight), heavier first.
_Parts = tuple[tuple[bool, float], ...]


def _parts(prob: float, weight: float = 1.0, lightest: float = _LIGHTEST_PART) -> _Parts:
    """The expected parts (is_pos, weight) of a pending prediction of decay factor
    ``weight``, heavier first (the first weight added to an empty engine fixes its units:
    every later part of at least ``lightest`` of its prediction's is storable next to
    it); a part lighter than that is left out (without decay only class 1's can be:
    1 - prob is 0 or at least 2**-53)."""
    rest = 1.0 - prob
    if prob >= 0.5:
        if rest >= lightest:
            return ((True, prob * weight), (False, rest * weight))
        return ((True, prob * weight),)
    if prob >= lightest:
        return ((False, rest * weight), (True, prob * weight))
    return ((False, rest * weight),)


#: No key (``None`` is a key).
_NONE = object()

#: What a label that matches no prediction the monitor remembers does: dropped and
#: counted in ``n_unmatched_labels``, or a KeyError.
_UNMATCHED_LABELS = ("count", "raise")


def _checked_keys(keys: Any, method: str) -> list[Hashable]:
    """A batch's keys as a list of distinct hashable keys (else ValueError)."""
    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__iter__"):
        raise ValueError(f"{method}: keys must be a sequence of keys, got {keys!r}")
    checked: list[Hashable] = keys.tolist() if isinstance(keys, np.ndarray) else list(keys)
    for key in checked:
        _check_key(key, method)
    if len(set(checked)) != len(checked):
        seen: set[Hashable] = set()
        for key in checked:
            if key in seen:
                raise ValueError(f"{method}: the key {key!r} is given twice (a key names one "
                                 "prediction)")
            seen.add(key)
    return checked


def _check_length(keys: list[Hashable], values: NDArray[Any], name: str) -> None:
    if values.shape[0] != len(keys):
        raise ValueError(f"keys and {name} have different lengths: {len(keys)} and "
                         f"{values.shape[0]}")


def _check_key(key: Hashable, method: str) -> None:
    if type(key) in (int, str):
        return
    try:
        hash(key)
    except TypeError:
        raise ValueError(f"{method}: key must be hashable, got {key!r}") from None


class DelayedAUC(Pickled):
    """The AUC of predictions whose labels arrive late, realized and expected.

    Register each prediction with :meth:`predict` when it is made and its label with
    :meth:`label` when it arrives (or batches of them with :meth:`predict_many` and
    :meth:`label_many`, all or nothing).  Over the window of the latest predictions, the
    realized metrics (attributes of their names: ``auc``, ``h``, ...) are those of the
    labelled predictions; ``expected_auc`` is :func:`~hmeasure_stream.expected_auc` of all
    of them, a labelled one with its label, a pending one counting its probability ``prob``
    as class 1 and ``1 - prob`` as class 0 at its score.  The object pickles.

    Parameters
    ----------
    window : int, str, datetime.timedelta, numpy.timedelta64 or None, default=None
        The last ``window`` predictions made (an int), those whose time is in (t - window,
        t] for t the newest prediction's (a duration such as ``"2h"``: :meth:`predict` then
        needs ``time``), or None: all.
    metrics : str, options object, or sequence of them, default=("auc",)
        The realized metrics, as for :class:`SlidingWindow`, but not ``"auc_binned"``,
        ``"multiclass_auc"`` (nor ``"auc_approx"`` with ``half_life``); ``"auc"``,
        ``"auc_lo"`` and ``"auc_hi"`` (DeLong's interval, level 0.95 or a
        :class:`~hmeasure_stream.ConfidenceLevel`'s) always; with ``"h"`` also
        ``expected_h``, as :func:`~hmeasure_stream.expected_h_measure`.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        Exponential decay by the age of the prediction: a prediction made a predictions (a
        number) or a duration (:meth:`predict` then needs ``time``) before the newest weighs
        2^(-a / half_life) in the realized and the expected metrics and in DeLong's interval
        (as the ``sample_weight`` of the from-scratch functions); it leaves once older than
        60 half-lives.
    pos_label : hashable, optional
        The label of class 1.  Default: labels 0/1, -1/1 or booleans.
    unmatched_labels : {"count", "raise"}, default="count"
        An unmatched label (see Notes) is dropped and counted in ``n_unmatched_labels``, or
        raises KeyError; a late one is dropped and counted in ``n_late_labels`` either way.

    Attributes
    ----------
    n_late_labels, n_unmatched_labels : int
        The labels dropped as late, and as unmatched (0 with ``"raise"``).

    See Also
    --------
    expected_auc : the expected AUC of one set of predictions.
    SlidingWindow : the metrics of a window of labelled points.

    Notes
    -----
    O(log w) per update for w predictions in the window (amortized with decay), O(1) per
    read (O(log w) for a hull metric), memory O(w); the values equal the from-scratch ones.
    A key in the window is not predicted again (one that left may be), a prediction not
    labelled twice while held or remembered (ValueError).  A label whose prediction left the
    window unlabelled, among the last ``2 * window`` (and 120 half-lives), is late: its key
    is remembered that long.  Any other label is unmatched (a key never predicted,
    forgotten, or gone longer: only a memory of every key tells them apart).  A count window
    holds the last ``window`` predictions; times must not go backwards.  A part lighter than
    2**-64 of its prediction (``prob`` within 2**-64 of 0; 2**-32 of 0 or 1 with decay) is
    left out of the expected AUC.  A refused call changes nothing.

    Examples
    --------
    >>> from hmeasure_stream import DelayedAUC
    >>> monitor = DelayedAUC(window=1000)
    >>> for key, score in enumerate([0.9, 0.2, 0.7, 0.4]):
    ...     monitor.predict(key, score)
    >>> monitor.n_pending, round(monitor.expected_auc, 6)
    (4, 0.80303)
    >>> monitor.label(0, 1); monitor.label(1, 0); monitor.label(3, 1)
    >>> monitor.auc, monitor.n_pending, round(monitor.expected_auc, 6)
    (1.0, 1, 0.884615)
    >>> monitor.label("never predicted", 1); monitor.n_unmatched_labels  # dropped, counted
    1
    """

    __slots__ = (
        "_by_time",
        "_decay",
        "_expected",
        "_expired",
        "_expired_order",
        "_horizon",
        "_labels",
        "_made",
        "_metrics",
        "_n_labelled",
        "_n_late_labels",
        "_n_unmatched_labels",
        "_newest",
        "_order",
        "_realized",
        "_slots",
        "_unmatched_labels",
        "_window",
    )

    def __init__(self, window: Window = None, metrics: object = ("auc",), *,
                 half_life: Duration | None = None, pos_label: Label = None,
                 unmatched_labels: Literal["count", "raise"] = "count") -> None:
        unmatched_labels = check_option(unmatched_labels, "unmatched_labels", _UNMATCHED_LABELS)
        # The window and the half-life as every structure reads them.
        rules = forgetting_rules(window, half_life)
        horizon = None if rules is None else (rules.count or rules.period or None)
        chosen = metric_options(metrics)
        refused = (_needing(chosen, BINS) + _needing(chosen, MULTICLASS)
                   + _needing(chosen, SECOND_SCORE))
        if refused:
            raise ValueError(
                f"DelayedAUC does not follow {refused}: 'auc_binned' places its bins from "
                "a whole chunk, 'multiclass_auc' takes 2-d scores and 'auc2', 'auc_diff', "
                "'auc_diff_p' a second model's scores; follow them with a SlidingWindow of "
                "the labelled points")
        refuse_decay(_unit_weight_metrics(chosen), half_life)
        if "expected_auc" in chosen:
            raise ValueError(
                "DelayedAUC follows expected_auc itself (every prediction, a pending one by "
                "its probability): leave the window metric 'expected_auc', which ignores the "
                "labels, out of metrics")
        self._labels = label_map(pos_label)
        self._metrics = tuple(chosen)
        # The realized set: what was asked, with the AUC and DeLong's interval.
        realized = dict(chosen)
        realized.setdefault("auc", None)
        level = next((options for options in chosen.values()
                      if isinstance(options, ConfidenceLevel)), ConfidenceLevel())
        for name in ("auc_lo", "auc_hi"):
            realized.setdefault(name, level)
        self._realized = _window_engines(realized, capacity=16, seed=None)
        # The expected set: the AUC, and H with its options when H is asked.
        expected = {"auc": None}
        if "h" in chosen:
            expected["h"] = chosen["h"]
        self._expected = _window_engines(expected, capacity=16, seed=None)
        self._by_time = rules is not None and rules.period > 0
        self._window = np.timedelta64(horizon, "ns") if self._by_time else horizon
        self._horizon = horizon
        # Decay: the half-life, its anchor and rescales, the newest decay position, kept
        # by a ``Forgetting`` without its ring (the window is the order's below: the
        # predictions enter the engines as their labels arrive, not as they age).
        self._decay: Forgetting | None = (
            None if rules is None or not rules.half_life
            else forgetting_of(rules, decay_only=True))
        self._slots: dict[Hashable, list[Any]] = {}
        self._order: Any = (None if horizon is None and self._decay is None
                       else collections.deque())
        self._expired: dict[Hashable, list[Any]] = {}
        self._expired_order: collections.deque[tuple[Hashable, list[Any]]] = collections.deque()
        self._made = 0
        self._newest: int | None = None
        self._n_labelled = 0
        self._n_late_labels = 0
        self._unmatched_labels = unmatched_labels
        self._n_unmatched_labels = 0

    # ------------------------------------------------------------------
    # Updates.

    def predict(self, key: Hashable, score: float, prob: float | None = None, *,
                time: object = None) -> None:
        """Register prediction ``key``: its finite ``score``, its (calibrated) probability
        of class 1 ``prob`` (default: the score) and, for a duration window, its ``time``
        (seconds since the epoch, datetime, ISO string; not before the newest).

        Raises ValueError on a key in the window (a key whose prediction leaves the
        window as this one enters is free) or an invalid value.
        """
        _check_key(key, "predict")
        if type(score) is not float or score - score != 0.0:  # (a finite float passes)
            score = check_score_value(score, "score")
        defaulted = prob is None
        if defaulted:
            prob = score
        elif type(prob) is not float:
            prob = check_score_value(prob, "prob")
        if not 0.0 <= prob <= 1.0:
            raise ValueError(
                f"predict: prob must lie in [0, 1] (the probability of class 1), got {prob!r}"
                + ("; it defaults to score: give prob= with scores outside [0, 1]"
                   if defaulted else ""))
        nanoseconds = self._time(time)
        if self._held_at(key, nanoseconds, 0):
            raise ValueError(
                f"predict: the key {key!r} is already in the window (a key names one "
                "prediction: forget it first to predict it again)")
        self._enter(key, score, prob, nanoseconds)

    def predict_many(self, keys: Sequence[Hashable] | NDArray[Any], y_score: ArrayLike,
                     y_prob: ArrayLike | None = None, *, times: ArrayLike | None = None) -> None:
        """Register a batch of predictions as :meth:`predict` each, in order, all or
        nothing: distinct ``keys``, none in the window (else ValueError)."""
        keys = _checked_keys(keys, "predict_many")
        scores = check_scores(y_score, allow_empty=True, ranks=False)
        _check_length(keys, scores, "y_score")
        raise_bad_score(scores)
        probs = scores if y_prob is None else check_scores(y_prob, "y_prob", allow_empty=True,
                                                           ranks=False)
        _check_length(keys, probs, "y_prob")
        raise_bad_probability(probs, "y_score (the probabilities by default)" if y_prob is None
                              else "y_prob")
        if self._keeps_times():
            nanoseconds = ordered_times(times, len(keys), self._newest, True,
                                        caller="predict_many",
                                        newest_of="of a prediction").tolist()
        else:  # (checked, not kept)
            if times is not None:
                check_times(times, len(keys))
            nanoseconds = [None] * len(keys)
        held = next((key for ahead, (key, at) in enumerate(zip(keys, nanoseconds, strict=True))
                     if self._held_at(key, at, ahead)), _NONE)
        if held is not _NONE:
            raise ValueError(f"predict_many: the key {held!r} is already in the window")
        with claimed(*self._realized, *self._expected):
            for key, score, prob, at in zip(keys, scores.tolist(), probs.tolist(), nanoseconds,
                                            strict=True):
                self._enter(key, score, prob, at)

    def _place(self, nanoseconds: int | None, ahead: int) -> tuple[Any, Any]:
        """(position, decay_at) of the prediction ``ahead`` after the next one to enter, at
        ``nanoseconds`` (its time in ns if kept, else None)."""
        number = self._made + ahead
        return (nanoseconds if self._by_time else number,
                None if self._decay is None else nanoseconds if self._decay.decay_by_time
                else number)

    def _held_at(self, key: Hashable, nanoseconds: int | None, ahead: int) -> bool:
        """Whether ``key`` names a prediction still in the window when the prediction
        ``ahead`` after the next one enters at ``nanoseconds``: one that would leave the
        window as it enters does not hold its key (the key then names the new one)."""
        slot = self._slots.get(key)
        if slot is None:
            return False
        return self._order is None or not self._beyond(slot, *self._place(nanoseconds, ahead), 1)

    def _enter(self, key: Hashable, score: float, prob: float, nanoseconds: int | None) -> None:
        """Register a checked prediction (its time in ns if kept, else None)."""
        position, decay_at = self._place(nanoseconds, 0)
        slot = [score, prob, position, _PENDING, 1.0, decay_at]
        with claimed(*self._realized, *self._expected):  # (one operation: every engine)
            self._made += 1
            if self._order is not None:
                # (an earlier prediction of the key leaves here, if it is still held)
                self._slide(position, decay_at)
                self._order.append((key, slot))
            # The key names this prediction now, not one that left unlabelled.
            self._expired.pop(key, None)
            if self._decay is not None:
                slot[_WEIGHT] = self._decay_factor(self._decay, decay_at)
            for is_pos, weight in self._parts(slot):
                self._add(self._expected, is_pos, score, weight)
            self._slots[key] = slot
            if nanoseconds is not None:
                self._newest = nanoseconds

    def _keeps_times(self) -> bool:
        """Whether predictions carry times: a duration window or half-life."""
        return self._by_time or (self._decay is not None and self._decay.decay_by_time)

    def _time(self, time: object) -> int | None:
        """The prediction's time in ns, checked, if the window or the decay keeps times
        (else None: a time given is checked and not used)."""
        if self._keeps_times():
            return cast("int | None", ordered_time(time, self._newest, True, caller="predict",
                                                   newest_of="of a prediction"))
        if time is not None:  # (checked, not kept)
            check_time_value(time)
        return None

    def _beyond(self, slot: list[Any], position: Any, decay_at: Any, windows: int) -> bool:
        """Whether the prediction of ``slot`` is out of ``windows`` windows (and ``windows``
        times 60 half-lives) of one at (``position``, ``decay_at``)."""
        # A count window's position is the prediction's number: the window keeps
        # numbers > position - horizon, as a duration window keeps times > t - horizon.
        if self._horizon is not None and slot[_POSITION] <= position - windows * self._horizon:
            return True
        decay = self._decay
        return (decay is not None
                and decay_at - slot[_DECAY_AT] > windows * decay.drop_exponent * decay.half_life)

    def _slide(self, position: Any, decay_at: Any) -> None:
        """Drop the predictions that leave the window when one at (``position``,
        ``decay_at``) enters, and the late-label memory older than two windows."""
        order, slots = self._order, self._slots
        while order and self._beyond(order[0][1], position, decay_at, 1):
            key, slot = order.popleft()
            held = slots.get(key)
            if held is not None and held is slot:  # (else forgotten, or predicted anew)
                self._remove(key, held)
                if held[_LABEL] == _PENDING:
                    self._expired[key] = held
                    self._expired_order.append((key, held))
        expired, expired_order = self._expired, self._expired_order
        while expired_order and self._beyond(expired_order[0][1], position, decay_at, 2):
            key, slot = expired_order.popleft()
            if expired.get(key) is slot:
                del expired[key]

    def _decay_factor(self, decay: Forgetting, decay_at: int) -> float:
        """The decay factor of a prediction at ``decay_at`` (the newest), relative to the
        anchor, by ``Forgetting``'s rule; when it rescales, every held weight and the
        engines' are multiplied by the same power of two."""
        factor, rescale = decay.decay_newest(decay_at, not self._slots)
        if rescale is not None:
            shift, scale = rescale
            for slot in self._slots.values():
                slot[_WEIGHT] *= scale
            for engine in (*self._realized, *self._expected):
                engine.set_decay(shift, factor)
        return factor

    def _newest_decay_at(self) -> int | None:
        """The newest prediction's decay position (None without decay or predictions)."""
        decay = self._decay
        return None if decay is None or not self._made else decay.newest_position()

    def _hand_over_decay(self) -> None:
        """Tell the engines the newest prediction's factor, before a read: DeLong's
        variance reads the weights relative to it.  Handed over here rather than at each
        prediction, which then costs no call into the engines."""
        decay = self._decay
        if decay is None or not self._slots:
            return
        newest = decay.factor_at(decay.newest_position())
        for engine in (*self._realized, *self._expected):
            if engine.newest_factor != newest:
                engine.set_decay(0, newest)

    def _parts(self, slot: list[Any]) -> _Parts:
        """The expected parts (is_pos, weight) of the pending prediction of ``slot``."""
        return _parts(slot[_PROB], slot[_WEIGHT],
                      _LIGHTEST_PART if self._decay is None else _LIGHTEST_DECAYED_PART)

    def label(self, key: Hashable, y_true: Label) -> None:
        """The label of prediction ``key`` (0/1, -1/1, a boolean or ``pos_label``'s), dropped
        and counted if late or unmatched (see the Notes); ValueError for a second label."""
        _check_key(key, "label")
        if self._labels is None:
            is_pos, labels = check_label_value(y_true), None
        else:
            is_pos, labels = self._labels.one(y_true)
        self._apply_label(self._labelled_slot(key, "label"), is_pos)
        self._labels = labels

    def label_many(self, keys: Sequence[Hashable] | NDArray[Any], y_true: ArrayLike) -> None:
        """The labels of a batch of predictions as :meth:`label` each, all or nothing:
        distinct ``keys`` (else ValueError)."""
        keys = _checked_keys(keys, "label_many")
        if self._labels is None:
            is_pos, labels = labels_as_is_pos(check_labels(y_true, allow_empty=True)), None
        else:
            is_pos, labels = self._labels.many(y_true)
        _check_length(keys, is_pos, "y_true")
        slots = [self._labelled_slot(key, "label_many") for key in keys]
        with claimed(*self._realized, *self._expected):
            for found, one in zip(slots, is_pos.tolist(), strict=True):
                self._apply_label(found, one)
            self._labels = labels

    def _labelled_slot(self, key: Hashable, method: str) -> tuple[list[Any], bool] | None:
        """``(slot, held)`` of the pending prediction ``key`` names, held or left
        unlabelled within the memory; None if it names none the monitor remembers
        (KeyError with ``unmatched_labels="raise"``); ValueError if it is labelled."""
        slot = self._slots.get(key)
        held = slot is not None
        if slot is None:
            slot = self._expired.get(key)
            if slot is None:
                if self._unmatched_labels == "count":
                    return None
                raise KeyError(
                    f"{method}: no prediction with key {key!r} in the window (never "
                    "predicted, forgotten, or left the window more than a window ago; "
                    "unmatched_labels='count' drops and counts such labels)")
        # A second label stays an error, not a count: unlike an unmatched label the
        # monitor sees that it contradicts or repeats one it took (a held prediction's
        # moved the metrics already), a fault of the stream (a label logged twice, a
        # wrong key) that dropping it would hide.
        if slot[_LABEL] != _PENDING:
            raise ValueError(f"{method}: the prediction {key!r} is labelled already")
        return slot, held

    def _apply_label(self, found: tuple[list[Any], bool] | None, is_pos: bool) -> None:
        """Apply a checked label to ``found`` (``_labelled_slot``'s): a held prediction's
        parts swap for its point, a late label is counted, an unmatched one too."""
        if found is None:
            self._n_unmatched_labels += 1
            return
        slot, held = found
        if not held:
            slot[_LABEL] = int(is_pos)
            self._n_late_labels += 1
            return
        score, weight = slot[_SCORE], slot[_WEIGHT]
        with claimed(*self._realized, *self._expected):
            self._add(self._expected, is_pos, score, weight)
            for part_is_pos, part in self._parts(slot):
                self._take(self._expected, part_is_pos, score, part)
            self._add(self._realized, is_pos, score, weight)
            slot[_LABEL] = int(is_pos)
            self._n_labelled += 1

    def forget(self, key: Hashable) -> None:
        """Remove prediction ``key`` (labelled or not); KeyError if not in the window."""
        _check_key(key, "forget")
        slot = self._slots.get(key)
        if slot is None:
            raise KeyError(f"forget: no prediction with key {key!r} in the window")
        with claimed(*self._realized, *self._expected):
            self._remove(key, slot)

    def _remove(self, key: Hashable, slot: list[Any]) -> None:
        """Take a held prediction out of every engine and the dict (the deque's entry is
        left, recognised as gone by identity)."""
        score = slot[_SCORE]
        if slot[_LABEL] == _PENDING:
            for is_pos, weight in self._parts(slot):
                self._take(self._expected, is_pos, score, weight)
        else:
            is_pos = bool(slot[_LABEL])
            self._take(self._expected, is_pos, score, slot[_WEIGHT])
            self._take(self._realized, is_pos, score, slot[_WEIGHT])
            self._n_labelled -= 1
        del self._slots[key]

    @staticmethod
    def _add(engines: Sequence[Any], is_pos: bool, score: float, weight: float) -> None:
        for engine in engines:
            status = engine.add(is_pos, score, weight)
            # (checked values, weights within 2**64 of the engine's units: always stored)
            assert status == Status.DONE, status

    @staticmethod
    def _take(engines: Sequence[Any], is_pos: bool, score: float, weight: float) -> None:
        for engine in engines:
            status = engine.remove(is_pos, score, weight)
            assert status == Status.DONE, status  # (a part as it was added)

    # ------------------------------------------------------------------
    # Reads.

    def _metric(self, name: str) -> float:
        if name not in self._metrics and name not in ("auc", "auc_lo", "auc_hi"):
            raise AttributeError(
                f"{name!r} is not among this monitor's metrics {list(self._metrics)}")
        self._hand_over_decay()
        return read_metric(self._realized, name)

    @property
    def auc(self) -> float:
        """The AUC of the labelled predictions in the window (nan while a class is absent)."""
        return float(self._realized[0].auc)

    def __getattr__(self, name: str) -> float:
        # The other realized metrics by name (``h``, ``auc_lo``, ...); called only for
        # names that are not attributes.
        if name in METRICS and not name.startswith("_"):
            return self._metric(name)
        raise AttributeError(f"'DelayedAUC' object has no attribute {name!r}")

    @property
    def expected_auc(self) -> float:
        """The expected AUC of every prediction in the window (nan without a class)."""
        return float(self._expected[0].auc)

    @property
    def expected_h(self) -> float:
        """The expected H-measure of every prediction in the window (with ``"h"`` only)."""
        if "h" not in self._metrics:
            raise AttributeError("expected_h needs the metric 'h' among the metrics")
        return float(self._expected[0].h)

    @property
    def auc_ci(self) -> ConfidenceInterval:
        """DeLong's interval ``(low, high)`` of the realized AUC, ``.estimate`` (``auc_lo``)."""
        self._hand_over_decay()
        engine = self._realized[0]  # (the blocked engine of the interval and the AUC)
        return ConfidenceInterval(float(engine.value("auc_lo")), float(engine.value("auc_hi")),
                                  float(engine.auc))

    @property
    def n_pending(self) -> int:
        """The predictions in the window still waiting for their label."""
        return len(self._slots) - self._n_labelled

    @property
    def n_late_labels(self) -> int:
        """The labels that arrived after their prediction left the window (dropped)."""
        return self._n_late_labels

    @property
    def n_unmatched_labels(self) -> int:
        """The labels that matched no prediction the monitor remembers (dropped)."""
        return self._n_unmatched_labels

    @property
    def pending_share(self) -> float:
        """The share of the window's predictions waiting for their label (nan if none)."""
        return self.n_pending / len(self._slots) if self._slots else math.nan

    def results(self) -> dict[str, float]:
        """Every value by name: ``"auc"``, the other realized metrics, ``"expected_auc"``
        (``"expected_h"``), ``"n_pending"``, ``"pending_share"``, ``"auc_lo"``, ``"auc_hi"``."""
        values = {name: self._metric(name) for name in dict.fromkeys(("auc", *self._metrics))}
        values["expected_auc"] = self.expected_auc
        if "h" in self._metrics:
            values["expected_h"] = self.expected_h
        values["n_pending"] = self.n_pending
        values["pending_share"] = self.pending_share
        for name in ("auc_lo", "auc_hi"):
            values.setdefault(name, self._metric(name))
        return values

    @property
    def window(self) -> Window:
        """A number of predictions, a duration (``numpy.timedelta64``), or None."""
        return self._window

    @property
    def metrics(self) -> tuple[str, ...]:
        """The realized metrics asked for."""
        return self._metrics

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, key: object) -> bool:
        try:
            return key in self._slots
        except TypeError:
            return False

    def __repr__(self) -> str:
        return (f"DelayedAUC(window={self._window!r}, metrics={self._metrics!r}, "
                f"predictions={len(self)}, pending={self.n_pending})")

    # ------------------------------------------------------------------
    # Invariants.

    def _check_pickle(self) -> None:
        """On load: every slot is set, the counts agree, the engines hold as many points
        as the predictions say."""
        missing = [name for name in DelayedAUC.__slots__ if not hasattr(self, name)]
        if missing:
            raise AssertionError(f"its state lacks {missing} (a pickle of another layout)")
        self._check_counts()

    def _check_counts(self) -> None:
        if self._unmatched_labels not in _UNMATCHED_LABELS:
            raise AssertionError(f"unmatched_labels is {self._unmatched_labels!r}")
        for name in ("_n_late_labels", "_n_unmatched_labels"):
            count = getattr(self, name)
            if type(count) is not int or count < 0:
                raise AssertionError(f"{name[1:]} is {count!r}")
        if self._unmatched_labels == "raise" and self._n_unmatched_labels:
            raise AssertionError(f"{self._n_unmatched_labels} unmatched labels counted, "
                                 "though they raise")
        # Each late label labelled its remembered slot once, and was counted then.
        remembered = sum(slot[_LABEL] != _PENDING for slot in self._expired.values())
        if remembered > self._n_late_labels:
            raise AssertionError(f"{remembered} remembered predictions labelled late, "
                                 f"{self._n_late_labels} late labels counted")
        labelled = sum(slot[_LABEL] != _PENDING for slot in self._slots.values())
        if labelled != self._n_labelled:
            raise AssertionError(f"{labelled} labelled predictions, {self._n_labelled} counted")
        parts = labelled + sum(len(self._parts(slot)) for slot in self._slots.values()
                               if slot[_LABEL] == _PENDING)
        for engine in self._realized:
            if engine.n_points != labelled:
                raise AssertionError(f"a realized engine holds {engine.n_points} points, "
                                     f"{labelled} predictions are labelled")
        for engine in self._expected:
            if engine.n_points != parts:
                raise AssertionError(f"an expected engine holds {engine.n_points} points, "
                                     f"the predictions have {parts} parts")

    def _check(self) -> bool:
        """Verify every invariant in O(n), reading only (for tests)."""
        for engine in (*self._realized, *self._expected):
            engine._check()
        self._check_counts()
        slots = self._slots
        # Class weights: the realized engines hold the labelled predictions, the
        # expected ones their labels and the pending predictions' parts (the
        # weights sum exactly while all are 1).
        pos = sum(slot[_WEIGHT] for slot in slots.values() if slot[_LABEL] == 1)
        expected_pos = pos + sum(weight for slot in slots.values() if slot[_LABEL] == _PENDING
                                 for is_pos, weight in self._parts(slot) if is_pos)
        total = sum(slot[_WEIGHT] for slot in slots.values())
        for engine in self._realized:
            if hasattr(engine, "weight_pos") and abs(engine.weight_pos - pos) > (
                    0.0 if self._decay is None else 1e-12 * total):
                raise AssertionError(f"realized class 1 weight {engine.weight_pos}, {pos} "
                                     "labelled")
        if abs(self._expected[0].weight_pos - expected_pos) > 1e-9 * max(total, 1.0):
            raise AssertionError(f"expected class 1 weight {self._expected[0].weight_pos}, "
                                 f"{expected_pos} summed")
        if self._decay is not None:
            self._check_decay(self._decay)
        if self._order is None:
            if self._expired or self._expired_order:
                raise AssertionError("predictions expired from a window keeping all")
            return True
        live = [(key, slot) for key, slot in self._order if slots.get(key) is slot]
        if len(live) != len(slots):
            raise AssertionError(f"{len(live)} live predictions in the order, "
                                 f"{len(slots)} held")
        positions = [slot[_POSITION] for _, slot in self._order]
        if any(later < earlier for earlier, later in itertools.pairwise(positions)):
            raise AssertionError("the order's positions go backwards")
        newest: Any = self._newest if self._by_time else self._made - 1
        if self._order and self._beyond(self._order[0][1], newest, self._newest_decay_at(), 1):
            raise AssertionError("a prediction older than the window is still in the order")
        if (not self._by_time and self._horizon is not None
                and len(self._order) > self._horizon):
            raise AssertionError(f"{len(self._order)} predictions in a window of "
                                 f"{self._horizon}")
        for key, slot in self._expired.items():
            if key in slots or self._beyond(slot, newest, self._newest_decay_at(), 2):
                raise AssertionError(f"the late-label memory holds {key!r} wrongly")
        remembered = {id(slot) for _, slot in self._expired_order}
        if any(id(slot) not in remembered for slot in self._expired.values()):
            raise AssertionError("a late-label key is not in the memory's order")
        return True

    def _check_decay(self, decay: Forgetting) -> None:
        """Each held prediction's weight is its decay factor relative to the anchor, within
        2**RESCALE_EXPONENTS.  (The engines get the newest factor at read time: the
        intervals the tests compare after every step check it.)"""
        fraction = decay.anchor_fraction
        if not 0.0 <= fraction < 1.0:
            raise AssertionError(f"the anchor's fraction {fraction} is not in [0, 1)")
        if decay.ring.size:
            raise AssertionError("the decay's ring holds points (the order holds them)")
        for slot in self._slots.values():
            exponent = decay.exponent_at(slot[_DECAY_AT])
            if not (-DROP_EXPONENTS - 1 <= exponent <= RESCALE_EXPONENTS
                    and math.isclose(slot[_WEIGHT], 2.0**exponent, rel_tol=1e-12)):
                raise AssertionError(f"a weight {slot[_WEIGHT]} at exponent {exponent}")
