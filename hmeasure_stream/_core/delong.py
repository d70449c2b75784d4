"""Confidence intervals: the pair every one is returned as, DeLong's
interval of an AUC, and the class sizes its variance needs.

Private; shared by ``auc_ci``, ``bootstrap_ci``, ``DynamicAUC.auc_ci`` and
``hmeasure_stream.dask.auc_ci``.  ``ConfidenceInterval`` is documented and
pickled as ``hmeasure_stream.uncertainty.ConfidenceInterval``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["AUCInterval", "BootstrapInterval", "ConfidenceInterval", "check_class_sizes",
           "delong_interval", "normal_quantiles"]


@dataclass(frozen=True, eq=False)
class ConfidenceInterval:
    """Confidence interval of a statistic, with its point estimate.

    A pair ``(low, high)`` as scipy's ``ConfidenceInterval`` (it unpacks,
    indexes and compares as that pair), the estimate an attribute:
    ``low, high = ci``, and pROC's order ``low, auc, high = ci`` is a
    ValueError rather than a silent swap.  Frozen.
    Every interval of the package is one (``AUCInterval`` and
    ``BootstrapInterval`` are other names of this class).

    Attributes
    ----------
    low : float
        Lower end of the interval.
    high : float
        Upper end of the interval.
    estimate : float
        The statistic of the data, the point estimate the interval is around.

    See Also
    --------
    hmeasure_stream.auc_ci : DeLong's or a bootstrap interval of the AUC.
    hmeasure_stream.bootstrap_ci : a bootstrap interval of any statistic.

    Examples
    --------
    >>> from hmeasure_stream import auc_ci
    >>> ci = auc_ci([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9])
    >>> low, high = ci
    >>> round(low, 6), high, round(ci.estimate, 6)
    (0.58091, 1.0, 0.888889)
    """

    low: float
    high: float
    estimate: float

    def __iter__(self) -> Iterator[float]:
        return iter((self.low, self.high))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int | slice) -> Any:
        return (self.low, self.high)[index]

    # Equal as (low, high) to a plain pair; two intervals compare their estimates too.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, ConfidenceInterval):
            return (self.low, self.high, self.estimate) == (other.low, other.high,
                                                            other.estimate)
        if isinstance(other, tuple):
            return (self.low, self.high) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.low, self.high))

    def _asdict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high, "estimate": self.estimate}

    def _replace(self, **changes: float) -> ConfidenceInterval:
        return dataclasses.replace(self, **changes)


ConfidenceInterval.__module__ = "hmeasure_stream.uncertainty"
#: The interval of an AUC (:func:`~hmeasure_stream.auc_ci`): a :class:`ConfidenceInterval`.
AUCInterval = ConfidenceInterval
#: The interval of :func:`~hmeasure_stream.bootstrap_ci`: a :class:`ConfidenceInterval`.
BootstrapInterval = ConfidenceInterval


def check_class_sizes(n_neg, n_pos, metric, weighted, name="y_true"):
    """Refuse a class with one point (or total weight <= 1): the sample variance is undefined.

    Both classes are present (checked with the input); ``name`` is the labels'
    argument, named in the message.
    """
    for size, label in ((n_neg, 0), (n_pos, 1)):
        if not size > 1:
            if weighted:
                raise ValueError(
                    f"{metric} needs a total weight > 1 in each class (weights count "
                    f"points): class {label} has total weight {size!r}"
                )
            raise ValueError(
                f"{metric} needs at least two points of each class: {name} has "
                f"{size} point of class {label}"
            )


def normal_quantiles(level: float) -> tuple[float, float]:
    """The standard normal's quantiles at (1 - level) / 2 and 1 - (1 - level) / 2."""
    from scipy import special  # (imported on first use: scipy.special slows start-up)

    return (float(special.ndtri((1.0 - level) / 2.0)),
            float(special.ndtri(1.0 - (1.0 - level) / 2.0)))


def delong_interval(estimate, variance, level) -> ConfidenceInterval:
    """DeLong's interval: the AUC -+ the normal quantile times sqrt(variance), clipped to [0, 1]."""
    spread = math.sqrt(variance)
    low_quantile, high_quantile = normal_quantiles(level)
    low = estimate + spread * low_quantile
    high = estimate + spread * high_quantile
    return ConfidenceInterval(min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0), estimate)
