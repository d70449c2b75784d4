"""The rules every window front end shares, each in one place.

:class:`~hmeasure_stream.SlidingWindow`, :func:`~hmeasure_stream.sliding_window`,
the structures' ``window=``, :func:`~hmeasure_stream.plotting.plot_metrics`
and the command line check their counts here, mask the values of short
windows here, refuse decay for the unit-weight engines here, read a metric
from their engines here and give their options back as a ``metrics``
argument here.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from hmeasure_stream._engines._pool import MAX_CAPACITY
from hmeasure_stream._validation import is_duration

__all__ = [
    "COUNT_LIMIT",
    "check_count",
    "check_window_counts",
    "engine_of",
    "half_life_of",
    "mask_short",
    "metrics_argument",
    "read_metric",
    "refuse_decay",
    "refuse_duration",
    "window_of",
]

#: The most points a window holds (its ring's slots): the limit of every count.
COUNT_LIMIT = MAX_CAPACITY

# What else a window may be, for the message of a window that is not a count.
_WINDOW_KINDS = ", a duration such as '24h' (a datetime.timedelta, a numpy.timedelta64), or None"


def check_count(value: object, name: str, *, kinds: str = "") -> int:
    """A count of points (a window, ``min_periods``, ``capacity``) as an int, or
    ValueError naming ``name``: an integer (Python or numpy, not a bool) from 1 to
    ``COUNT_LIMIT``.  ``kinds``: what else the argument may be, for the message."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer from 1 to {COUNT_LIMIT} (a number of "
                         f"points){kinds}; got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1; got {value!r}")
    if value > COUNT_LIMIT:
        raise ValueError(f"{name} must be at most {COUNT_LIMIT}, the most points a window "
                         f"holds; got {value!r}")
    return int(value)


def check_window_counts(window: Any, min_periods: object = 1) -> tuple[Any, int]:
    """(window, min_periods) checked: a count window as an int (a duration or None as
    given: durations are checked where they are read), ``min_periods`` a count that a
    count window can reach."""
    if window is not None and not is_duration(window):
        window = check_count(window, "window", kinds=_WINDOW_KINDS)
    periods = check_count(min_periods, "min_periods")
    if window is not None and not is_duration(window) and periods > window:
        raise ValueError(f"min_periods ({periods}) must not exceed the window ({window} "
                         "points): every value would be nan")
    return window, periods


def mask_short(values: Mapping[str, np.ndarray], min_periods: int, held: np.ndarray,
               window: int | None = None) -> None:
    """Set to nan, in place, each value whose window holds fewer than ``min_periods``
    points: ``held`` the points seen up to each row, of which a count ``window`` keeps
    at most that many (None: all of them)."""
    if min_periods <= 1:
        return
    if window is not None:
        held = np.minimum(held, window)
    short = held < min_periods
    for column in values.values():
        column[short] = np.nan


def refuse_decay(unit_weight_metrics: Sequence[str], half_life: object) -> None:
    """Refuse (ValueError) a ``half_life`` for metrics whose engines take unit weights
    (the bins, the compressed list: they count points one by one, and decay weighs them)."""
    if half_life is not None and unit_weight_metrics:
        raise ValueError(
            f"half_life is not available with {sorted(unit_weight_metrics)}: decay weighs the "
            "points, and their engines count unit weights only; use window=, or the exact "
            "'auc' (DynamicAUC(half_life=...)) with decay")


def refuse_duration(count_only_metrics: Sequence[str], window: object) -> None:
    """Refuse (ValueError) a window given as a duration for metrics whose engine keeps a
    count window's points only (the bins: they slide over a ring of the last points)."""
    if count_only_metrics and is_duration(window):
        raise ValueError(f"a window given as a duration is not available with "
                         f"{count_only_metrics[0]!r}: its bins keep a window of a number of "
                         "points (an int) only")


def engine_of(engines: Iterable[Any], name: str) -> Any:
    """The engine a metric is read from: the first that computes it."""
    return next(engine for engine in engines if name in engine.columns)


def window_of(forgetting: Any) -> Any:
    """The window a structure's ``Forgetting`` keeps: a number of points, a duration
    (``numpy.timedelta64``), or None."""
    if forgetting is None or not (forgetting.count or forgetting.period):
        return None
    if forgetting.count:
        return int(forgetting.count)
    return np.timedelta64(int(forgetting.period), "ns")


def half_life_of(forgetting: Any) -> Any:
    """The half-life of a structure's ``Forgetting``: a number of points, a duration
    (``numpy.timedelta64``), or None."""
    if forgetting is None or not forgetting.half_life:
        return None
    if forgetting.decay_by_time:
        return np.timedelta64(int(forgetting.half_life), "ns")
    return float(forgetting.half_life)


def read_metric(engines: Iterable[Any], name: str) -> float:
    """The current value of a metric, read from the first engine that computes it."""
    return float(engine_of(engines, name).value(name))


def metrics_argument(chosen: Mapping[str, object]) -> tuple[object, ...]:
    """The ``metrics`` argument of these metrics and their options (each options object
    once, after the names), as ``metric_options`` reads it back."""
    return (*chosen, *dict.fromkeys(options for options in chosen.values()
                                    if options is not None))
