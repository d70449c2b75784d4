"""DeLong's confidence interval of an AUC, and the class sizes its variance needs.

Private; shared by ``auc_ci``, ``DynamicAUC.auc_ci`` and
``hmeasure_stream.dask.auc_ci``.  ``AUCInterval`` is documented and pickled
as ``hmeasure_stream.uncertainty.AUCInterval``.
"""

import math
from typing import NamedTuple

from scipy import special

__all__ = ["AUCInterval", "check_class_sizes", "delong_interval"]


class AUCInterval(NamedTuple):
    """Confidence interval of an AUC, returned by :func:`auc_ci`.

    Attributes
    ----------
    low : float
        Lower end of the interval.
    high : float
        Upper end of the interval.
    auc : float
        The AUC of the data (the point estimate the interval is around).
    """

    low: float
    high: float
    auc: float


AUCInterval.__module__ = "hmeasure_stream.uncertainty"


def check_class_sizes(n_neg, n_pos, metric, weighted):
    """Refuse a class with one point (or total weight <= 1): the sample variance is undefined.

    Both classes are present (checked with the input).
    """
    for size, label in ((n_neg, 0), (n_pos, 1)):
        if not size > 1:
            if weighted:
                raise ValueError(
                    f"{metric} needs a total weight > 1 in each class (weights count "
                    f"points): class {label} has total weight {size!r}"
                )
            raise ValueError(
                f"{metric} needs at least two points of each class: y_true has "
                f"{size} point of class {label}"
            )


def delong_interval(estimate, variance, level):
    """DeLong's interval: the AUC -+ the normal quantile times sqrt(variance), clipped to [0, 1]."""
    spread = math.sqrt(variance)
    low = estimate + spread * float(special.ndtri((1.0 - level) / 2.0))
    high = estimate + spread * float(special.ndtri(1.0 - (1.0 - level) / 2.0))
    return AUCInterval(min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0), estimate)
