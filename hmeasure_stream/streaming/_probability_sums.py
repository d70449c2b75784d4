"""The points of one probability metric ("brier" or "log_loss") that can be taken out again.

The window's exact sums of the metric (its calibration engine, chosen where
every window's engines are) with the points kept in order by a
``Forgetting``, also without a window nor decay: the sums alone cannot tell a
point held from one never added, and a removal must find its point.  The
river adapters ``LogLoss`` and ``BrierScore`` keep their points here.
"""

from __future__ import annotations

import numbers

from hmeasure_stream._validation import Duration, Label, Window, label_map
from hmeasure_stream.streaming._base import (
    ForgettingRules,
    WindowedPointSet,
    forgetting_of,
    forgetting_rules,
)
from hmeasure_stream.streaming._engine_choice import probability_engine
from hmeasure_stream.streaming.window import check_window_points

__all__ = ["ProbabilitySums"]

# No window and no decay: a ring of every point, which nothing leaves.
_KEEP_EVERY_POINT = ForgettingRules(count=0, period=0, half_life=0.0, decay_by_time=False)


class ProbabilitySums(WindowedPointSet):
    """The points of ``metric`` over ``window`` / ``half_life``, class 1 ``pos_label``;
    :attr:`value` is the metric of the points held (nan while none weighs)."""

    __slots__ = ("_metric",)

    def __init__(self, metric: str, window: Window, half_life: Duration | None,
                 pos_label: Label) -> None:
        rules = forgetting_rules(window, half_life)
        self._metric = metric
        self._labels = label_map(pos_label)
        self._engine = probability_engine(metric)
        self._forgetting = forgetting_of(_KEEP_EVERY_POINT if rules is None else rules)

    def add(self, y_true: Label, y_score: float, weight: float = 1.0, *,
            time: object = None) -> None:
        """Add one point, its score a probability of class 1 in [0, 1]."""
        if not (isinstance(y_score, numbers.Real) and 0.0 <= y_score <= 1.0):
            raise ValueError(f"y_pred must be the probability of class 1, in [0, 1]; got "
                             f"{y_score!r}")
        WindowedPointSet.add(self, y_true, y_score, weight, time=time)

    @property
    def value(self) -> float:
        return float(self._engine.value(self._metric))

    def _check_pickle(self) -> None:
        check_window_points(self._engine, self._forgetting)

    def _check(self) -> bool:
        self._engine._check()
        return bool(check_window_points(self._engine, self._forgetting))
