"""The types of the public API's arguments and results, by name.

The signatures of the package (``help(hmeasure_stream.auc)``,
``inspect.signature``) name these aliases rather than what they stand for, and
a user's own annotations can use them:

>>> import inspect
>>> import hmeasure_stream
>>> from hmeasure_stream.typing import Labels, Scores
>>> str(inspect.signature(hmeasure_stream.auc)).startswith("(y_true: 'Labels', y_score: 'Scores'")
True
>>> def my_auc(y_true: Labels, y_score: Scores) -> float:
...     return hmeasure_stream.auc(y_true, y_score)
>>> my_auc([0, 1, 1], [0.1, 0.8, 0.4])
1.0
"""

import datetime
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Columns",
    "Correction",
    "CostPrevalence",
    "Duration",
    "FloatArray",
    "Label",
    "Labels",
    "Priors",
    "Probabilities",
    "RandomState",
    "RateRange",
    "Scores",
    "SeverityRatio",
    "Weights",
    "Window",
]

#: Binary labels, array-like of shape (n,): 0/1, -1/1, booleans, or two labels
#: of any kind with ``pos_label`` naming class 1.
Labels: TypeAlias = ArrayLike
#: Scores, array-like of shape (n,) (or an (n, 1) column): higher means class 1.
Scores: TypeAlias = ArrayLike
#: Probabilities of class 1, array-like of shape (n,) of values in [0, 1].
Probabilities: TypeAlias = ArrayLike
#: Non-negative weights of the points, array-like of shape (n,).
Weights: TypeAlias = ArrayLike
#: The label of class 1: a string, number, bool, ... (None: labels 0/1 or booleans).
Label: TypeAlias = Any
#: A float64 array of results.
FloatArray: TypeAlias = NDArray[np.float64]
#: A duration: a number of points, or a time span ("15min", a timedelta).
Duration: TypeAlias = float | str | datetime.timedelta | np.timedelta64
#: A window: a number of points, a time span, or None for every point.
Window: TypeAlias = int | str | datetime.timedelta | np.timedelta64 | None
#: R hmeasure's severity ratio of the costs (None: alpha and beta).
SeverityRatio: TypeAlias = float | Literal["prior"] | None
#: Class priors (pi0, pi1) instead of the class proportions.
Priors: TypeAlias = tuple[float, float] | None
#: A range of rates (a, b).
RateRange: TypeAlias = tuple[float, float] | None
#: Seed of a random generator.
RandomState: TypeAlias = int | np.random.SeedSequence | np.random.Generator | None
#: Names of the columns to return (``coords``'s ``ret``): one name or several.
Columns: TypeAlias = str | Sequence[str]
#: (cost, prevalence) of ``coords``' best threshold: the cost of a false negative
#: relative to a false positive, and the share of class 1 (pROC's ``best.weights``).
CostPrevalence: TypeAlias = tuple[float, float]
#: Which partial-AUC correction to apply.
Correction: TypeAlias = Literal["mcclish"] | None
