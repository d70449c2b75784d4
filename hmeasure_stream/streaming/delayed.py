"""Predictions whose labels arrive late: ``DelayedAUC``.

Two sets of window engines, both chosen by ``_engine_choice.window_engines``: the
realized set holds the labelled predictions of the window (unit weights),
the expected set every prediction of the window, a pending one as its two
parts (the probability p as class 1, 1 - p as class 0 at its score, as
``expected.expected_auc`` counts it), a labelled one as its point.
"""

import collections
import itertools
import math

import numpy as np

from hmeasure_stream._core.delong import ConfidenceInterval
from hmeasure_stream._engines._pool import MAX_CAPACITY
from hmeasure_stream._engines._protocol import Status
from hmeasure_stream._validation import (
    check_duration,
    check_label_value,
    check_score_value,
    check_time_value,
    is_duration,
    label_map,
)
from hmeasure_stream.metric_table import (
    BINS,
    METRICS,
    MULTICLASS,
    ConfidenceLevel,
    metric_options,
)
from hmeasure_stream.streaming._base import Pickled, claimed

# Both engine sets come from window_engines, the one place where a window's engines
# are chosen from the metric table.
from hmeasure_stream.streaming._engine_choice import needing as _needing
from hmeasure_stream.streaming._engine_choice import window_engines as _window_engines

__all__ = ["DelayedAUC"]

#: A part of a pending prediction lighter than this (a probability within 2**-64 of 0
#: or 1) is left out of the expected engines, as if the probability were 0 or 1: the
#: engines keep weights in compensated sums whose residue after removals stays far
#: below 1e-9 of a part this heavy (their removal tolerance), and the expected AUC
#: moves by less than 2**-64 of the weight of its class.
_LIGHTEST_PART = 2.0**-64

# A slot: [score, prob, position, label]; position is the prediction's number
# (count window, no window) or its time in ns (duration window); label -1 while
# pending, else 0 or 1.
_SCORE, _PROB, _POSITION, _LABEL = range(4)
_PENDING = -1


def _parts(prob):
    """The expected parts (is_pos, weight) of a pending prediction, heavier first (the
    first weight added to an empty engine fixes its units: at least 1/2, every later part
    of at least 2**-64 is storable next to it); a part lighter than that is left out (only
    class 1's can be: 1 - prob is 0 or at least 2**-53)."""
    if prob >= 0.5:
        return ((True, prob), (False, 1.0 - prob)) if prob < 1.0 else ((True, prob),)
    if prob >= _LIGHTEST_PART:
        return ((False, 1.0 - prob), (True, prob))
    return ((False, 1.0 - prob),)


def _check_key(key, method):
    if type(key) in (int, str):
        return
    try:
        hash(key)
    except TypeError:
        raise ValueError(f"{method}: key must be hashable, got {key!r}") from None


class DelayedAUC(Pickled):
    """The AUC of predictions whose labels arrive late, realized and expected.

    Register each prediction with :meth:`predict` when it is made and its
    label with :meth:`label` when it arrives.  Over the window of the latest
    predictions, the realized metrics (attributes of their names: ``auc``,
    ``h``, ...) are those of the labelled predictions; ``expected_auc`` is
    :func:`~hmeasure_stream.expected_auc` of all of them, a labelled one with
    its label, a pending one counting its probability ``prob`` as class 1 and
    ``1 - prob`` as class 0 at its score.  The object pickles.

    Parameters
    ----------
    window : int, str, datetime.timedelta, numpy.timedelta64 or None, default=None
        The last ``window`` predictions made (an int), those whose time is in
        (t - window, t] for t the newest prediction's (a duration such as
        ``"2h"``: :meth:`predict` then needs ``time``), or None: all.
    metrics : str, options object, or sequence of them, default=("auc",)
        The realized metrics, as for :class:`SlidingWindow`, but not
        ``"auc_binned"`` or ``"multiclass_auc"``; ``"auc"``, ``"auc_lo"`` and
        ``"auc_hi"`` (DeLong's interval, level 0.95 or a
        :class:`~hmeasure_stream.ConfidenceLevel`'s) always; with ``"h"`` also
        ``expected_h``, as :func:`~hmeasure_stream.expected_h_measure`.
    half_life : None
        Decay is not available: anything but None is refused.
    pos_label : hashable, optional
        The label of class 1.  Default: labels 0/1, -1/1 or booleans.

    See Also
    --------
    expected_auc : the expected AUC of one set of predictions.
    SlidingWindow : the metrics of a window of labelled points.

    Notes
    -----
    O(log w) per :meth:`predict`, :meth:`label` and :meth:`forget` for w
    predictions in the window, O(1) per read (O(log w) for a hull metric),
    memory O(w); the values equal the from-scratch ones (nan while a class is
    absent).  Rules: a key in the window is not predicted again nor labelled
    twice (ValueError); :meth:`label` and :meth:`forget` of an unknown key
    raise KeyError.  A label whose prediction left the window unlabelled is
    ignored and counted in ``n_late_labels`` if the prediction is among the
    last ``2 * window`` (KeyError if older).  A count window holds the
    predictions among the last ``window`` made; a duration window's times
    must not go backwards.  A part lighter than 2**-64 (``prob`` within
    2**-64 of 0) is left out of the expected AUC.  A refused call changes
    nothing.

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
    """

    __slots__ = (
        "_by_time",
        "_expected",
        "_expired",
        "_expired_order",
        "_horizon",
        "_labels",
        "_made",
        "_metrics",
        "_n_labelled",
        "_n_late_labels",
        "_newest",
        "_order",
        "_realized",
        "_slots",
        "_window",
    )

    def __init__(self, window=None, metrics=("auc",), *, half_life=None, pos_label=None):
        if half_life is not None:
            raise ValueError(
                "DelayedAUC does not take half_life: decay is not available for predictions "
                "whose labels arrive late; give a count or duration window instead")
        if is_duration(window):
            horizon = check_duration(window, "window")
        elif window is None:
            horizon = None
        elif (isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer))
              or not 1 <= window <= MAX_CAPACITY):
            raise ValueError(
                f"window must be a positive integer (a number of predictions, at most "
                f"{MAX_CAPACITY}), a duration such as '2h', a datetime.timedelta or a "
                f"numpy.timedelta64, or None; got {window!r}")
        else:
            horizon = int(window)
        chosen = metric_options(metrics)
        refused = _needing(chosen, BINS) + _needing(chosen, MULTICLASS)
        if refused:
            raise ValueError(
                f"DelayedAUC does not follow {refused}: 'auc_binned' places its bins from "
                "a whole chunk and 'multiclass_auc' takes 2-d scores; follow them with a "
                "SlidingWindow of the labelled points")
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
        self._window = (np.timedelta64(horizon, "ns") if is_duration(window) else horizon)
        self._horizon = horizon
        self._by_time = is_duration(window)
        self._slots = {}
        self._order = None if horizon is None else collections.deque()
        self._expired = {}
        self._expired_order = collections.deque()
        self._made = 0
        self._newest = None
        self._n_labelled = 0
        self._n_late_labels = 0

    # ------------------------------------------------------------------
    # Updates.

    def predict(self, key, score, prob=None, *, time=None):
        """Register prediction ``key``: its finite ``score``, its (calibrated) probability
        of class 1 ``prob`` (default: the score) and, for a duration window, its ``time``
        (seconds since the epoch, datetime, ISO string; not before the newest).

        Raises ValueError on a key in the window or an invalid value.
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
        position = self._position(time)
        if key in self._slots:
            raise ValueError(
                f"predict: the key {key!r} is already in the window (a key names one "
                "prediction: forget it first to predict it again)")
        slot = [score, prob, position, _PENDING]
        with claimed(*self._realized, *self._expected):  # (one operation: every engine)
            self._expired.pop(key, None)
            self._made += 1
            if self._order is not None:
                self._slide(position)
                self._order.append((key, slot))
            for is_pos, weight in _parts(prob):
                self._add(self._expected, is_pos, score, weight)
            self._slots[key] = slot
            if self._by_time:
                self._newest = position

    def _position(self, time):
        """The prediction's position in the window (checked): its number, or its time in
        ns for a duration window."""
        if time is None:
            if self._by_time:
                raise ValueError("predict: time is required, the window is a duration")
            return self._made
        nanoseconds = check_time_value(time)
        if not self._by_time:
            return self._made
        if self._newest is not None and nanoseconds < self._newest:
            raise ValueError(
                f"predict: time must not go backwards: {time!r} "
                f"({np.datetime64(nanoseconds, 'ns')}) is before the newest prediction's "
                f"({np.datetime64(self._newest, 'ns')})")
        return nanoseconds

    def _slide(self, position):
        """Drop the predictions that leave the window when one at ``position`` enters, and
        the late-label memory older than two windows."""
        order, slots, horizon = self._order, self._slots, self._horizon
        # A count window's position is the prediction's number: this one is the
        # newest, so the window keeps numbers > position - horizon, as a duration
        # window keeps times > t - horizon.
        while order and order[0][1][_POSITION] <= position - horizon:
            key, slot = order.popleft()
            if slots.get(key) is slot:
                self._remove(key, slot)
                if slot[_LABEL] == _PENDING:
                    self._expired[key] = slot
                    self._expired_order.append((key, slot))
        expired, expired_order = self._expired, self._expired_order
        while expired_order and expired_order[0][1][_POSITION] <= position - 2 * horizon:
            key, slot = expired_order.popleft()
            if expired.get(key) is slot:
                del expired[key]

    def label(self, key, y_true):
        """The label of prediction ``key`` (0/1, -1/1, a boolean or ``pos_label``'s).

        Raises KeyError for an unknown key, ValueError for a second label.
        """
        _check_key(key, "label")
        if self._labels is None:
            is_pos, labels = check_label_value(y_true), None
        else:
            is_pos, labels = self._labels.one(y_true)
        slot = self._slots.get(key)
        if slot is None:
            late = self._expired.get(key)
            if late is None:
                raise KeyError(
                    f"label: no prediction with key {key!r} in the window (never predicted, "
                    "forgotten, or left the window more than a window ago)")
            if late[_LABEL] != _PENDING:
                raise ValueError(f"label: the prediction {key!r} is labelled already")
            late[_LABEL] = int(is_pos)
            self._n_late_labels += 1
            self._labels = labels
            return
        if slot[_LABEL] != _PENDING:
            raise ValueError(f"label: the prediction {key!r} is labelled already")
        score = slot[_SCORE]
        with claimed(*self._realized, *self._expected):
            self._add(self._expected, is_pos, score, 1.0)
            for part_is_pos, weight in _parts(slot[_PROB]):
                self._take(self._expected, part_is_pos, score, weight)
            self._add(self._realized, is_pos, score, 1.0)
            slot[_LABEL] = int(is_pos)
            self._n_labelled += 1
            self._labels = labels

    def forget(self, key):
        """Remove prediction ``key`` (labelled or not); KeyError if not in the window."""
        _check_key(key, "forget")
        slot = self._slots.get(key)
        if slot is None:
            raise KeyError(f"forget: no prediction with key {key!r} in the window")
        with claimed(*self._realized, *self._expected):
            self._remove(key, slot)

    def _remove(self, key, slot):
        """Take a held prediction out of every engine and the dict (the deque's entry is
        left, recognised as gone by identity)."""
        score = slot[_SCORE]
        if slot[_LABEL] == _PENDING:
            for is_pos, weight in _parts(slot[_PROB]):
                self._take(self._expected, is_pos, score, weight)
        else:
            is_pos = bool(slot[_LABEL])
            self._take(self._expected, is_pos, score, 1.0)
            self._take(self._realized, is_pos, score, 1.0)
            self._n_labelled -= 1
        del self._slots[key]

    @staticmethod
    def _add(engines, is_pos, score, weight):
        for engine in engines:
            status = engine.add(is_pos, score, weight)
            # (checked values, weights within 2**64 of the engine's units: always stored)
            assert status == Status.DONE, status

    @staticmethod
    def _take(engines, is_pos, score, weight):
        for engine in engines:
            status = engine.remove(is_pos, score, weight)
            assert status == Status.DONE, status  # (a part as it was added)

    # ------------------------------------------------------------------
    # Reads.

    def _metric(self, name):
        if name not in self._metrics and name not in ("auc", "auc_lo", "auc_hi"):
            raise AttributeError(
                f"{name!r} is not among this monitor's metrics {list(self._metrics)}")
        for engine in self._realized:  # (the first engine that computes it, as a window's)
            if name in engine.columns:
                return float(getattr(engine, name))
        raise AssertionError(f"no realized engine computes {name!r}")  # (chosen for it)

    @property
    def auc(self):
        """The AUC of the labelled predictions in the window (nan while a class is absent)."""
        return float(self._realized[0].auc)

    def __getattr__(self, name):
        # The other realized metrics by name (``h``, ``auc_lo``, ...); called only for
        # names that are not attributes.
        if name in METRICS and not name.startswith("_"):
            return self._metric(name)
        raise AttributeError(f"'DelayedAUC' object has no attribute {name!r}")

    @property
    def expected_auc(self):
        """The expected AUC of every prediction in the window (nan without a class)."""
        return float(self._expected[0].auc)

    @property
    def expected_h(self):
        """The expected H-measure of every prediction in the window (with ``"h"`` only)."""
        if "h" not in self._metrics:
            raise AttributeError("expected_h needs the metric 'h' among the metrics")
        return float(self._expected[0].h)

    @property
    def auc_ci(self):
        """DeLong's interval ``(low, high, estimate)`` of the realized AUC (``auc_lo``)."""
        engine = self._realized[0]  # (the blocked engine of the interval and the AUC)
        return ConfidenceInterval(float(engine.auc_lo), float(engine.auc_hi), float(engine.auc))

    @property
    def n_pending(self):
        """The predictions in the window still waiting for their label."""
        return len(self._slots) - self._n_labelled

    @property
    def n_late_labels(self):
        """The labels that arrived after their prediction left the window (ignored)."""
        return self._n_late_labels

    @property
    def pending_share(self):
        """The share of the window's predictions waiting for their label (nan if none)."""
        return self.n_pending / len(self._slots) if self._slots else math.nan

    def results(self):
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
    def window(self):
        """A number of predictions, a duration (``numpy.timedelta64``), or None."""
        return self._window

    @property
    def metrics(self):
        """The realized metrics asked for."""
        return self._metrics

    def __len__(self):
        return len(self._slots)

    def __contains__(self, key):
        try:
            return key in self._slots
        except TypeError:
            return False

    def __repr__(self):
        return (f"DelayedAUC(window={self._window!r}, metrics={self._metrics!r}, "
                f"predictions={len(self)}, pending={self.n_pending})")

    # ------------------------------------------------------------------
    # Invariants.

    def _check_pickle(self):
        """On load: the engines hold as many points as the predictions say."""
        self._check_counts()

    def _check_counts(self):
        labelled = sum(slot[_LABEL] != _PENDING for slot in self._slots.values())
        if labelled != self._n_labelled:
            raise AssertionError(f"{labelled} labelled predictions, {self._n_labelled} counted")
        parts = labelled + sum(len(_parts(slot[_PROB])) for slot in self._slots.values()
                               if slot[_LABEL] == _PENDING)
        for engine in self._realized:
            if engine.n_points != labelled:
                raise AssertionError(f"a realized engine holds {engine.n_points} points, "
                                     f"{labelled} predictions are labelled")
        for engine in self._expected:
            if engine.n_points != parts:
                raise AssertionError(f"an expected engine holds {engine.n_points} points, "
                                     f"the predictions have {parts} parts")

    def _check(self):
        """Verify every invariant in O(n), reading only (for tests)."""
        for engine in (*self._realized, *self._expected):
            engine._check()
        self._check_counts()
        slots = self._slots
        # Class weights: the realized engines hold the labelled predictions, the
        # expected ones their labels and the pending predictions' parts.
        pos = sum(slot[_LABEL] == 1 for slot in slots.values())
        expected_pos = pos + sum(slot[_PROB] for slot in slots.values()
                                 if slot[_LABEL] == _PENDING and slot[_PROB] >= _LIGHTEST_PART)
        for engine in self._realized:
            if hasattr(engine, "weight_pos") and engine.weight_pos != pos:
                raise AssertionError(f"realized class 1 weight {engine.weight_pos}, {pos} "
                                     "labelled")
        if abs(self._expected[0].weight_pos - expected_pos) > 1e-9 * max(len(slots), 1):
            raise AssertionError(f"expected class 1 weight {self._expected[0].weight_pos}, "
                                 f"{expected_pos} summed")
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
        newest = self._newest if self._by_time else self._made - 1
        if positions and positions[0] <= newest - self._horizon:
            raise AssertionError("a prediction older than the window is still in the order")
        if not self._by_time and len(self._order) > self._horizon:
            raise AssertionError(f"{len(self._order)} predictions in a window of "
                                 f"{self._horizon}")
        for key, slot in self._expired.items():
            if key in slots or slot[_POSITION] <= newest - 2 * self._horizon:
                raise AssertionError(f"the late-label memory holds {key!r} wrongly")
        remembered = {id(slot) for _, slot in self._expired_order}
        if any(id(slot) not in remembered for slot in self._expired.values()):
            raise AssertionError("a late-label key is not in the memory's order")
        return True
