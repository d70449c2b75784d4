from typing import Any

import numpy as np
from numpy.typing import NDArray

def box_area_counts(
    neg: NDArray[np.float64],
    pos: NDArray[np.float64],
    floor_a: int,
    ceil_a: int,
    floor_b: int,
    ceil_b: int,
    floor_c: int,
    ceil_c: int,
    floor_d: int,
    ceil_d: int,
) -> Any: ...
def box_area_count_groups(
    group_neg: NDArray[np.int64],
    group_pos: NDArray[np.int64],
    fp: int,
    tp: int,
    floor_a: int,
    ceil_a: int,
    floor_b: int,
    ceil_b: int,
    floor_c: int,
    ceil_c: int,
    floor_d: int,
    ceil_d: int,
) -> Any: ...
def box_area_groups(
    group_neg: NDArray[np.float64],
    group_pos: NDArray[np.float64],
    a: float,
    b: float,
    c: float,
    d: float,
) -> float: ...
