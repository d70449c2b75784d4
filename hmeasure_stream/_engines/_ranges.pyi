from typing import Any

import numpy as np
from numpy.typing import NDArray

def cut_points(keys: NDArray[np.float64], bounds: NDArray[np.float64]) -> Any: ...
def merge_runs(keys: Any, neg: Any, pos: Any, starts: Any) -> Any: ...
