"""The table ``simcore run`` and ``simcore show`` print, from whichever study made the cube."""

import numpy as np

from simcore.studies import study_for

PRINTED_CELLS = 2_000
"""Most cells a summary prints; a larger cube is read with ``simcore show --csv`` or xarray."""


def cell_count(cube):
    """Return the number of cells of ``cube`` (the product of its sweep dims' sizes)."""
    if "cell_complete" in cube:
        return int(np.prod(cube["cell_complete"].shape, dtype=np.int64))
    return 1


def summary(cube, store=None):
    """Return the cube's summary table, as its study (the cube's ``kind`` attribute) writes it.

    A cube of more than :data:`PRINTED_CELLS` cells gets one line saying how to read it
    instead (``store`` names it there).
    """
    cells = cell_count(cube)
    if cells > PRINTED_CELLS:
        where = store or "STORE"
        return (
            f"{cube.attrs.get('title', 'cube')}: {cells:,} cells, too many to print here "
            f"(at most {PRINTED_CELLS:,}); `simcore show {where} --csv` writes them all, "
            f"`xarray.open_zarr('{where}')` opens them"
        )
    return study_for(cube.attrs.get("kind")).summary(cube)
