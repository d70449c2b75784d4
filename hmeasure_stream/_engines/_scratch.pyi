from typing import Any

import numpy as np
from numpy.typing import NDArray

LABEL_DTYPES: frozenset[Any]

def _label_dtypes() -> Any: ...
def auc2_groups(group_neg: NDArray[Any], group_pos: NDArray[Any]) -> Any: ...
def auc2_sorted_classes(neg: NDArray[np.float64], pos: NDArray[np.float64]) -> Any: ...
def average_precision_sorted_classes(
    neg: NDArray[np.float64], pos: NDArray[np.float64]
) -> Any: ...
def average_precision_sum(
    neg: NDArray[Any], pos: NDArray[Any], cumulative: int = False
) -> Any: ...
def dot_compensated(a: NDArray[np.float64], b: NDArray[np.float64]) -> Any: ...
def exactly_rounded_sum(values: NDArray[np.float64]) -> Any: ...
def groups_sorted_classes(
    neg: NDArray[np.float64], pos: NDArray[np.float64], with_keys: int = False
) -> Any: ...
def groups_sorted_weighted(
    neg: NDArray[np.float64],
    neg_weight: NDArray[np.float64],
    pos: NDArray[np.float64],
    pos_weight: NDArray[np.float64],
) -> Any: ...
def groups_weighted(
    order: NDArray[np.int64],
    scores: NDArray[np.float64],
    is_pos: NDArray[np.uint8],
    weight: NDArray[np.float64],
    with_keys: int = False,
) -> Any: ...
def groups_expected(
    order: NDArray[np.int64],
    scores: NDArray[np.float64],
    weight: NDArray[np.float64] | None,
    prob: NDArray[np.float64],
) -> Any: ...
def hull_sorted_classes(neg: NDArray[np.float64], pos: NDArray[np.float64]) -> Any: ...
def placements(
    scores: NDArray[np.float64], other: NDArray[np.float64], other_weight: Any = None
) -> Any: ...
def radix_argsort(values: NDArray[np.float64]) -> NDArray[np.int64]: ...
def radix_sort(values: NDArray[np.float64]) -> Any: ...
def split_by_class(
    labels: NDArray[Any], scores: NDArray[np.float64], out: NDArray[np.float64]
) -> Any: ...
def upper_hull(
    group_neg: NDArray[Any],
    group_pos: NDArray[Any],
    with_edges: int = False,
    with_groups: int = False,
) -> Any: ...
def sliding_auc_at(
    is_pos: NDArray[np.uint8],
    scores: NDArray[np.float64],
    window: int,
    at: NDArray[np.int64],
    out: NDArray[np.float64],
) -> None: ...
