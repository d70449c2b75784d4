from typing import Any

from hmeasure_stream._engines._blocked import BlockedAUCEngine

def box_area_parts(blocked: BlockedAUCEngine, a: float, b: float, c: float, d: float) -> Any: ...
def read_partial(
    blocked: BlockedAUCEngine, fpr_range: Any, tpr_range: Any, correction: Any
) -> float | None: ...
def record_box(
    blocked: BlockedAUCEngine,
    a: float,
    b: float,
    c: float,
    d: float,
    has_fpr: int,
    has_tpr: int,
    corrected: int,
) -> Any: ...
