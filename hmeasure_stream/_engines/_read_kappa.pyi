from hmeasure_stream._engines._blocked import BlockedAUCEngine

COLUMNS: tuple[str, ...]

def attach(engine: BlockedAUCEngine, threshold: float) -> None: ...
