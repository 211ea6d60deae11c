"""The human ceiling of a card's population (filled from simcore.calibration.ceiling)."""


def population_ceiling(matrix, definition):
    """Return the card's ``human_ceiling`` mapping (placeholder until the ceiling merges)."""
    return {"value": None, "reason": "not computed"}
