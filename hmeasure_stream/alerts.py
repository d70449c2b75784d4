"""Alerts on the AUC of a sliding window that state their false-alarm rate.

A point alert (``auc < 0.8`` on the window's estimate) fires on noise: a
stream whose AUC stays at 0.8 crosses its limit at about every other look.  An
:class:`AlertRule` asks for evidence instead: it fires when the window's
upper confidence bound, estimate + c * DeLong's standard error, falls below
the limit, with the boundary c chosen (:func:`alert_boundary`) so that a
stream whose true AUC stays at or above the limit raises on average at most
``false_alarm_rate`` false alarms per row, whatever the window and the
number of rows between looks.  :class:`AlertMonitor` follows a stream that
arrives in chunks and returns the :class:`AlertEvent` of each alarm that
fires or clears.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._validation import check_duration, check_times, is_duration
from hmeasure_stream.metrics import auc
from hmeasure_stream.streaming import SlidingWindow
from hmeasure_stream.typing import FloatArray, Label, Labels, Scores, Weights
from hmeasure_stream.uncertainty import auc_variance

__all__ = ["AlertEvent", "AlertMonitor", "AlertRule", "alert_boundary"]

#: The looks a window of time's 1 - rho is averaged over (``AlertMonitor._smoothed``).
_SMOOTHING = 64

#: The smallest false-alarm rate accepted: below it the boundary passes 7
#: standard errors, where the Gaussian approximation says nothing.
_SMALLEST_RATE = 1e-12


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def _is_count(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclasses.dataclass(frozen=True)
class AlertRule:
    """An alert on the AUC of a window with a stated false-alarm rate.

    Give ``below`` (a fixed limit) or ``drop`` (a limit relative to a
    reference period), not both.

    Parameters
    ----------
    below : float, optional
        The alarm is on when the window's AUC is, with evidence, below this
        limit, in (0, 1].
    drop : float, optional
        The alarm is on when the window's AUC is, with evidence, more than
        ``drop`` below the reference's AUC, in [0, 1).
    false_alarm_rate : float, default=1e-5
        The expected number of false alarms per row of a stream whose true AUC
        stays at the limit (or above it), in [1e-12, 1).
    reference_rows : int, optional
        With ``drop``: the reference is the first ``reference_rows`` rows of
        the stream (at least 4); or give :class:`AlertMonitor` a reference.

    See Also
    --------
    AlertMonitor : follows a stream with the rule.
    alert_boundary : the boundary c of a rule's looks.

    Examples
    --------
    >>> from hmeasure_stream import AlertRule
    >>> AlertRule(below=0.8, false_alarm_rate=1e-5)
    AlertRule(below=0.8, drop=None, false_alarm_rate=1e-05, reference_rows=None)
    """

    #: The limit of the AUC (None: a drop from a reference).
    below: float | None = None
    #: The drop from the reference's AUC (None: a fixed limit).
    drop: float | None = None
    #: False alarms per row allowed on a stream that stays at the limit.
    false_alarm_rate: float = 1e-5
    #: The rows of the reference period (None: a reference given to the monitor).
    reference_rows: int | None = None

    def __post_init__(self) -> None:
        if (self.below is None) == (self.drop is None):
            raise ValueError("give exactly one of below= (a limit of the AUC) and drop= "
                             "(a drop from a reference's AUC)")
        if self.below is not None and not (_is_real(self.below) and 0 < self.below <= 1):
            raise ValueError(f"below must be a number in (0, 1], got {self.below!r}")
        if self.drop is not None and not (_is_real(self.drop) and 0 <= self.drop < 1):
            raise ValueError(f"drop must be a number in [0, 1), got {self.drop!r}")
        rate = self.false_alarm_rate
        if not (_is_real(rate) and _SMALLEST_RATE <= rate < 1):
            raise ValueError(f"false_alarm_rate must be a number in [1e-12, 1) (false alarms "
                             f"per row), got {rate!r}")
        if self.reference_rows is not None:
            if self.drop is None:
                raise ValueError("reference_rows goes with drop= (a drop from the reference's "
                                 "AUC), not with below=")
            if not (_is_count(self.reference_rows) and self.reference_rows >= 4):
                raise ValueError(f"reference_rows must be an int >= 4, got "
                                 f"{self.reference_rows!r}")
        for name in ("below", "drop", "false_alarm_rate"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, float(getattr(self, name)))
        if self.reference_rows is not None:
            object.__setattr__(self, "reference_rows", int(self.reference_rows))


class AlertEvent(NamedTuple):
    """An alarm that fires or clears at a look, with its evidence.

    A named tuple; the alarm is on while ``bound < limit``, that is ``z < -boundary``.

    Attributes
    ----------
    kind : str
        "fired" (the alarm came on at this look) or "cleared" (it went off).
    row : int
        The 0-based row of the look, counting every row fed.
    estimate, bound : float
        The window's AUC and its upper confidence bound, estimate + boundary * se.
    limit : float
        The limit: ``below``, or the reference's AUC minus ``drop``.
    z, boundary : float
        ``(estimate - limit) / se`` and the boundary c of this look (:func:`alert_boundary`).

    See Also
    --------
    AlertMonitor : returns them from ``update``.

    Examples
    --------
    >>> from hmeasure_stream import AlertEvent
    >>> event = AlertEvent("fired", 1159, 0.722, 0.788, 0.8, -2.43, 1.79)
    >>> event.bound < event.limit
    True
    """

    kind: str
    row: int
    estimate: float
    bound: float
    limit: float
    z: float
    boundary: float


def _entry_probability(c: NDArray[np.floating[Any]], rho: NDArray[np.floating[Any]]
                       ) -> FloatArray:
    """P(Z_prev >= -c, Z < -c) for standard bivariate normal Z_prev, Z of correlation rho:
    Phi(-c) - Phi2(-c, -c; rho) = 2 T(c, sqrt((1 - rho) / (1 + rho))), T Owen's function
    (no cancellation in the tail)."""
    from scipy.special import owens_t

    return np.asarray(2 * owens_t(c, np.sqrt((1 - rho) / (1 + rho))), dtype=float)


def _boundaries(budget: NDArray[np.floating[Any]], rho: NDArray[np.floating[Any]]
                ) -> FloatArray:
    """The c >= 0 of each look at which the entry probability is ``budget`` (0 where even
    c = 0 enters less often), by Newton's method on its logarithm from the right."""
    from scipy.special import ndtr, ndtri

    budget, rho = np.broadcast_arrays(np.asarray(budget, float), np.clip(rho, 0.0, 1 - 1e-15))
    slope = np.sqrt((1 - rho) / (1 + rho))
    at_zero = np.arctan(slope) / np.pi  # 2 T(0, a)
    c = np.where(budget < at_zero, -ndtri(np.minimum(budget, 0.5)), 0.0)
    todo = budget < at_zero
    # log(2T(c, a)) is concave and decreasing in c; -ndtri(budget) is right of the root
    # (it is the root of rho = 0's Phi(c) Phi(-c) <= Phi(-c)), so the steps approach it
    # from the right, each at most to the root.
    for _ in range(60):
        if not todo.any():
            break
        ct, at, bt = c[todo], slope[todo], budget[todo]
        value = _entry_probability(ct, rho[todo])
        derivative = -2 * np.exp(-ct * ct / 2) / math.sqrt(2 * math.pi) * (ndtr(at * ct) - 0.5)
        step = (np.log(value) - np.log(bt)) * value / derivative
        c[todo] = np.maximum(ct - step, 0.0)
        still = np.abs(step) > 1e-13 * np.maximum(ct, 1.0)
        todo[todo] = still
    return c


def alert_boundary(false_alarm_rate: float, window: int, every: int = 1) -> float:
    """The boundary c of an alert's looks at a full window.

    An alarm fires at a look where z = (AUC - limit) / se falls below -c
    while the previous look's did not; ``c`` is such that a stream whose true
    AUC stays at the limit raises on average ``false_alarm_rate`` false alarms
    per row (0 when even the point alert, c = 0, raises fewer).

    Parameters
    ----------
    false_alarm_rate : float
        False alarms per row, in [1e-12, 1).
    window : int
        The rows of the window, >= 2.
    every : int, default=1
        The rows between looks, >= 1.

    Returns
    -------
    float
        The boundary c >= 0, in standard errors.

    Raises
    ------
    ValueError
        If an argument is out of its range (its name says which).

    See Also
    --------
    AlertMonitor : the alert on a stream.

    Notes
    -----
    z at looks k rows apart is close to a stationary Gaussian process; the
    windows share w - k of their w rows and the AUC is close to a sum over
    its rows (its Hajek projection), so the correlation of two looks is
    rho = max(0, 1 - k / w).  An alarm fires at a look when z enters the
    region z < -c (an alarm that persists is one alarm), so the expected
    number of alarms per row is the level-crossing probability

    .. math:: \\frac{1}{k} P(Z_{t-k} \\geq -c, Z_t < -c)
              = \\frac{\\Phi(-c) - \\Phi_2(-c, -c; \\rho)}{k}
              = \\frac{2 T(c, \\sqrt{(1 - \\rho) / (1 + \\rho)})}{k},

    T Owen's function; ``c`` solves it equal to ``false_alarm_rate`` (a
    monotone equation, by Newton's method).  The standard error is DeLong's
    (DeLong, DeLong and Clarke-Pearson 1988, Biometrics 44, 837-845).  The
    rate holds as the window grows (the Gaussian approximation);
    ``tools/alert_simulation.py`` measures it on binormal streams.

    Examples
    --------
    >>> from hmeasure_stream import alert_boundary
    >>> round(alert_boundary(1e-5, window=1000, every=10), 3)
    3.289
    >>> round(alert_boundary(1e-5, window=1000, every=1000), 3)  # fewer looks, lower bar
    2.323
    """
    rule = AlertRule(below=1.0, false_alarm_rate=false_alarm_rate)
    window, every = _check_cadence(window, every)
    rho = max(0.0, 1 - every / window)
    return float(_boundaries(np.array([rule.false_alarm_rate * every]), np.array([rho]))[0])


def _check_cadence(window: object, every: object, durations: bool = False
                   ) -> tuple[Any, int]:
    """(window, every) checked: a window of rows, >= 2 (or with ``durations`` a window of
    time, as int nanoseconds), and the rows between looks."""
    if durations and is_duration(window):
        period = check_duration(window, "window")
        if not (_is_count(every) and int(every) >= 1):  # type: ignore[call-overload]
            raise ValueError(f"every must be an int >= 1 (rows between looks), got {every!r}")
        return period, int(every)  # type: ignore[call-overload]
    if not (_is_count(window) and int(window) >= 2):  # type: ignore[call-overload]
        raise ValueError(f"window must be an int >= 2 (a number of rows), got {window!r}")
    if not (_is_count(every) and int(every) >= 1):  # type: ignore[call-overload]
        raise ValueError(f"every must be an int >= 1 (rows between looks), got {every!r}")
    return int(window), int(every)  # type: ignore[call-overload]


class AlertMonitor:
    """An :class:`AlertRule` on the AUC of a sliding window of a stream that arrives in chunks.

    Looks at every ``every``-th row (rows 0-based: row r when ``(r + 1) % every == 0``), once the
    window holds two points of each class; returns the alarms that fire or clear there.  It
    pickles; a refused chunk leaves it unchanged.

    Parameters
    ----------
    rule : AlertRule
        The limit and the false-alarm rate.
    window : int, str, datetime.timedelta or numpy.timedelta64
        The rows of the window, >= 2, or a duration (``"24h"``; ``update`` then
        needs the rows' times): the rows whose time is in (t - window, t].
    every : int, default=1
        The rows between looks.
    reference : tuple of arrays, optional
        With ``rule.drop`` (unless ``rule.reference_rows``): ``(y_true, y_score)`` or
        ``(y_true, y_score, sample_weight)`` of the reference period.
    pos_label : hashable, optional
        The label of class 1, as in :func:`~hmeasure_stream.auc`.

    See Also
    --------
    alert_boundary : the boundary of the looks at a full window.
    SlidingWindow : the window underneath (``"auc"``, ``"auc_var"``).

    Notes
    -----
    At a look at row t, z = (A_t - limit) / sqrt(V_t), A_t the window's AUC and V_t DeLong's
    variance of its points (DeLong, DeLong and Clarke-Pearson 1988, Biometrics 44); with a
    reference, z = (A_t - A_ref + drop) / sqrt(V_t + V_ref), the reference's AUC and variance
    fixed (its rows are not in the window).  The alarm is on while z < -c and off otherwise (no
    hysteresis: the alarms counted are then exactly the level crossings the rate is computed
    for).  c solves the level-crossing equation of :func:`alert_boundary` for the look's budget,
    ``false_alarm_rate`` times the rows since the previous look (``every`` at the first), and the
    correlation of z with it: rho = shared rows / sqrt(rows of each window), 1 - every / window
    once full; with a reference (rho sqrt(V_prev V_t) + V_ref) / sqrt((V_prev + V_ref)(V_t +
    V_ref)).  A window of time holds a varying number of rows: rho is then the rows the two
    windows share over the square root of the rows of each, 1 - rho averaged over about 64
    looks (the rows that leave between two looks are random: a boundary that followed them
    would jitter, and z cross it far more often than the rate).  The false alarms are then at
    most ``false_alarm_rate`` per row on average, asymptotically; with a reference the
    average is over the reference's own noise too.

    Examples
    --------
    >>> import numpy as np
    >>> from hmeasure_stream import AlertMonitor, AlertRule
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 6000)
    >>> s = y * np.where(np.arange(6000) < 3000, 1.2, 0.3) + rng.normal(size=6000)
    >>> monitor = AlertMonitor(AlertRule(below=0.75, false_alarm_rate=1e-5), window=500,
    ...                        every=50)
    >>> [(e.kind, e.row) for e in monitor.update(y, s)]
    [('fired', 3349)]
    >>> monitor.in_alarm, monitor.n_fired, round(monitor.boundary, 2)
    (True, 1, 3.13)
    """

    def __init__(self, rule: AlertRule, window: int, every: int = 1, *,
                 reference: tuple[Any, ...] | None = None, pos_label: Label = None) -> None:
        if not isinstance(rule, AlertRule):
            raise ValueError(f"rule must be an AlertRule, got {rule!r}")
        self._window_rows, self._every = _check_cadence(window, every, durations=True)
        # A window of time: its period (ns), and the times of the rows a later window may
        # still hold (the window's rows are the last of the rows monitored).
        self._period = self._window_rows if is_duration(window) else None
        self._recent_times = np.empty(0, dtype=np.int64)
        self._decorrelation: float | None = None  # (its looks' smoothed 1 - rho)
        self._rule = rule
        self._reference: tuple[float, float] | None = None
        self._reference_window: SlidingWindow | None = None
        if rule.drop is not None and (reference is None) == (rule.reference_rows is None):
            raise ValueError("a rule with drop= needs one reference: reference=(y_true, "
                             "y_score[, sample_weight]) or the rule's reference_rows")
        if rule.drop is None and reference is not None:
            raise ValueError("reference goes with a rule's drop= (a drop from the reference's "
                             "AUC), not with below=")
        if reference is not None:
            if not (isinstance(reference, tuple) and len(reference) in (2, 3)):
                raise ValueError("reference must be a tuple (y_true, y_score) or (y_true, "
                                 "y_score, sample_weight)")
            weights = reference[2] if len(reference) == 3 else None
            self._reference = (
                auc(reference[0], reference[1], sample_weight=weights, pos_label=pos_label),
                auc_variance(reference[0], reference[1], sample_weight=weights,
                             pos_label=pos_label))
        elif rule.reference_rows is not None:
            self._reference_window = SlidingWindow(None, metrics=("auc", "auc_var"),
                                                   pos_label=pos_label)
        self._sliding = SlidingWindow(
            self._window_rows if self._period is None else np.timedelta64(self._period, "ns"),
            metrics=("auc", "auc_var"), pos_label=pos_label)
        self._rows = 0  # every row fed
        self._monitored = 0  # the rows fed to the window
        # The previous defined look: (monitored rows through it, rows its window held, V).
        self._previous: tuple[int, int, float] | None = None
        self._in_alarm = False
        self._fired = 0

    @property
    def rule(self) -> AlertRule:
        """The rule."""
        return self._rule

    @property
    def window(self) -> Any:
        """The rows of the window, or its duration (a ``numpy.timedelta64``)."""
        return self._sliding.window

    @property
    def every(self) -> int:
        """The rows between looks."""
        return self._every

    @property
    def boundary(self) -> float:
        """The boundary c of the looks at a full window of rows (:func:`alert_boundary`),
        without a reference; nan for a window of time (each event states its own)."""
        if self._period is not None:
            return math.nan
        return alert_boundary(self._rule.false_alarm_rate, self._window_rows, self._every)

    @property
    def in_alarm(self) -> bool:
        """Whether the alarm is on after the last look."""
        return self._in_alarm

    @property
    def n_fired(self) -> int:
        """The alarms fired so far."""
        return self._fired

    @property
    def n_rows(self) -> int:
        """The rows fed so far."""
        return self._rows

    @property
    def reference(self) -> tuple[float, float] | None:
        """The reference's (AUC, DeLong variance), None before the reference period ends
        (and without one)."""
        return self._reference

    def update(self, y_true: Labels, y_score: Scores,
               sample_weight: Weights | None = None, *, times: ArrayLike | None = None
               ) -> list[AlertEvent]:
        """Feed the next chunk of rows (their ``times`` with a window of time, as
        :class:`~hmeasure_stream.SlidingWindow` takes them); returns the alarms that fired
        or cleared in it."""
        chunk = [y_true, y_score, sample_weight, times]
        if self._reference_window is None:
            return self._monitor(chunk)
        # The reference period ends in this chunk or a later one: the first rows fill it.
        saved = copy.deepcopy(self.__dict__)
        try:
            return self._fill_reference(chunk)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _fill_reference(self, chunk: list[Any]) -> list[AlertEvent]:
        assert self._reference_window is not None and self._rule.reference_rows is not None
        take = self._rule.reference_rows - len(self._reference_window)
        parts = [np.asarray(part) for part in chunk if part is not None]
        if any(part.ndim != 1 or part.shape != parts[0].shape for part in parts):
            self._reference_window.update(*chunk[:3])  # refused: the window's checks say why
        head: list[Any] = [None if part is None else np.asarray(part)[:take] for part in chunk]
        tail: list[Any] = [None if part is None else np.asarray(part)[take:] for part in chunk]
        if self._period is not None:
            check_times(chunk[3], int(np.shape(chunk[1])[0]))  # (all of them, before)
        self._reference_window.update(*head[:3])
        self._rows += int(np.shape(head[1])[0])
        if len(self._reference_window) < self._rule.reference_rows:
            return []
        estimate, variance = (self._reference_window[name] for name in ("auc", "auc_var"))
        if not (math.isfinite(estimate) and math.isfinite(variance)):
            raise ValueError(f"the reference (the first reference_rows={self._rule.reference_rows}"
                             f" rows) needs two points of each class for DeLong's variance")
        self._reference = (estimate, variance)
        self._reference_window = None
        return self._monitor(tail) if len(tail[1]) else []

    def _held(self, times: ArrayLike | None, n: int) -> NDArray[np.int64] | None:
        """With a window of time: the rows each window of the chunk holds, those of
        (t - period, t] (None for a window of rows); the times kept for the next chunk."""
        if self._period is None:
            return None
        stamps = np.concatenate([self._recent_times, check_times(times, n)])
        known = self._recent_times.shape[0]
        starts = np.searchsorted(stamps, stamps[known:] - self._period, side="right")
        if n:
            self._recent_times = stamps[starts[-1]:]
        held: NDArray[np.int64] = known + 1 + np.arange(n, dtype=np.int64) - starts
        return held

    def _smoothed(self, rho: FloatArray) -> FloatArray:
        """A window of time's rho of each look, smoothed over the looks (an exponential
        average of 1 - rho, over about ``_SMOOTHING`` looks).

        The rows that leave a window of time between two looks are random (a burst
        leaves at once), so each look's own rho, and with it its boundary, would jitter
        from look to look; z crossing a jittering boundary enters the alarm region far
        more often than the level-crossing rate of a fixed one (at every row, a window of
        10^4 rows of Poisson arrivals raised 15 times the rate).  Smoothed, the boundary
        moves with the traffic only; and as the entry probability is concave in 1 - rho
        (about its square root), the mean of 1 - rho overstates the crossings (Jensen):
        the rate is kept, conservatively.
        """
        from scipy.signal import lfilter

        weight = 1.0 / _SMOOTHING
        previous = 1.0 - rho[0] if self._decorrelation is None else self._decorrelation
        smoothed, _ = lfilter([weight], [1.0, weight - 1.0], 1.0 - rho,
                              zi=[(1.0 - weight) * previous])
        self._decorrelation = float(smoothed[-1])
        return np.asarray(1.0 - smoothed, dtype=float)

    def _monitor(self, chunk: list[Any]) -> list[AlertEvent]:
        times = chunk[3]
        values = self._sliding.update(*chunk[:3], times=times)
        estimate, variance = values["auc"], values["auc_var"]
        n = estimate.shape[0]
        every_held = self._held(times, n)
        rows = self._rows + np.arange(n)
        monitored = self._monitored + 1 + np.arange(n)
        self._rows += n
        self._monitored += n
        looks = np.flatnonzero(((rows + 1) % self._every == 0)
                               & np.isfinite(estimate) & np.isfinite(variance))
        if looks.size == 0:
            return []
        through, var, est = monitored[looks], variance[looks], estimate[looks]
        held = (np.minimum(through, self._window_rows) if every_held is None
                else every_held[looks])
        previous = self._previous
        if previous is None:
            before = np.concatenate(([through[0] - self._every], through[:-1]))
            before_held = np.concatenate(([0], held[:-1]))
            before_var = np.concatenate(([np.nan], var[:-1]))
        else:
            before = np.concatenate(([previous[0]], through[:-1]))
            before_held = np.concatenate(([previous[1]], held[:-1]))
            before_var = np.concatenate(([previous[2]], var[:-1]))
        self._previous = (int(through[-1]), int(held[-1]), float(var[-1]))
        shared = np.maximum(0, before - np.maximum(through - held, before - before_held))
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = np.where(before_held > 0, shared / np.sqrt(held * before_held), 0.0)
            if self._period is not None:
                rho = self._smoothed(rho)
            if self._reference is not None:
                reference_auc, reference_var = self._reference
                limit = np.full(looks.size, reference_auc - float(self._rule.drop or 0.0))
                both = np.sqrt((before_var + reference_var) * (var + reference_var))
                rho = np.where(before_held > 0,
                               (rho * np.sqrt(before_var * var) + reference_var) / both, 0.0)
                se = np.sqrt(var + reference_var)
            else:
                limit = np.full(looks.size, float(self._rule.below or 0.0))
                se = np.sqrt(var)
            rho = np.nan_to_num(rho, nan=0.0)
            c = _boundaries(self._rule.false_alarm_rate * (through - before), rho)
            z = (est - limit) / se
        z = np.where(est == limit, 0.0, z)  # 0 / 0 of a window whose variance is 0
        on = z < -c
        changed = np.flatnonzero(on != np.concatenate(([self._in_alarm], on[:-1])))
        events = [AlertEvent("fired" if on[i] else "cleared", int(rows[looks[i]]),
                             float(est[i]), float(est[i] + c[i] * se[i]), float(limit[i]),
                             float(z[i]), float(c[i])) for i in changed]
        self._fired += int(np.count_nonzero(on[changed]))
        self._in_alarm = bool(on[-1])
        return events

    def __repr__(self) -> str:
        return (f"AlertMonitor({self._rule!r}, window={self.window!r}, "
                f"every={self._every})")
