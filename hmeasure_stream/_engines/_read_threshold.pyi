from typing import Any

import numpy as np
from numpy.typing import NDArray

from hmeasure_stream._engines._blocked import BlockedAUCEngine

COLUMNS: tuple[str, str, str, str, str, str]

def attach(engine: BlockedAUCEngine, threshold: float) -> None: ...
def weights_at_or_above(
    engine: BlockedAUCEngine, threshold: float
) -> tuple[float, float, float, float]: ...
def weights_from(engine: BlockedAUCEngine, thresholds: NDArray[np.float64]) -> Any: ...
