from typing import Any

import numpy as np
from numpy.typing import NDArray

from hmeasure_stream._engines._blocked import BlockedAUCEngine

def attach(engine: BlockedAUCEngine, by_sensitivity: int, level: float) -> None: ...
def fixed_level(engine: BlockedAUCEngine, spec_at_sens: int, level: float) -> float: ...
def crossings(
    engine: BlockedAUCEngine, by_sensitivity: int, levels: NDArray[np.float64]
) -> Any: ...
