from typing import Any

import numpy as np
from numpy.typing import NDArray

TRANSFORM_LINEAR: int
TRANSFORM_LOGLOG: int

def bin_indices(
    scores: NDArray[np.float64],
    lo: float,
    span: float,
    m: int,
    transform: int,
    alpha: float,
    out: NDArray[np.int64],
) -> Any: ...
def bin_of_score(
    score: float, lo: float, span: float, m: int, transform: int, alpha: float
) -> Any: ...
def count_bins(
    labels: NDArray[Any],
    scores: NDArray[np.float64],
    lo: float,
    span: float,
    hi: float,
    m: int,
    transform: int,
    alpha: float,
    counts: NDArray[np.int64],
) -> Any: ...
def count_bins_weighted(
    labels: NDArray[Any],
    scores: NDArray[np.float64],
    weights: NDArray[np.float64],
    lo: float,
    span: float,
    hi: float,
    m: int,
    transform: int,
    alpha: float,
    counts: NDArray[np.float64],
) -> Any: ...
def loglog_array(r: NDArray[np.float64], alpha: float, out: NDArray[np.float64]) -> Any: ...
