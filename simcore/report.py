"""The table ``simcore run`` and ``simcore show`` print, from whichever study made the cube."""

from simcore.studies import study_for


def summary(cube):
    """Return the cube's summary table, as its study (the cube's ``kind`` attribute) writes it."""
    return study_for(cube.attrs.get("kind")).summary(cube)
