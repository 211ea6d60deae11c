"""The layout of a store on disk: its run variables, packed row widths, chunks and sizes.

A store holds four run variables over the sweep's dims while its run is under way (each
cell's counts packed into an integer and a float row, a checksum and a completion flag);
their widths, the chunk of the grid a block of cells fills and every dimension's size
follow from the study's :class:`~simcore.studies.protocol.Layout` alone.
"""

import numpy as np

__all__ = [
    "CHUNK_BYTES",
    "RUN_VARIABLES",
    "RUN_VARIABLE_ATTRS",
    "cell_chunks",
    "layout_sizes",
    "packed_widths",
    "store_chunks",
]

RUN_VARIABLES = ["cell_ints", "cell_floats", "cell_checksum", "cell_complete"]
"""What a store holds while its run is under way: each cell's counts packed in two rows,
a checksum and a completion flag."""

RUN_VARIABLE_ATTRS = {
    "cell_ints": {
        "long_name": "a cell's integer counts, packed (unpacked into the named "
        "variables when the run finishes)",
        "units": "1",
    },
    "cell_floats": {"long_name": "a cell's float sums, packed", "units": "1"},
    "cell_checksum": {
        "long_name": "checksum of the run, the cell's coordinates and its stored counts "
        "(detects damaged chunks and chunks of other runs)",
        "units": "1",
    },
    "cell_complete": {"long_name": "cell finished and written", "units": "1"},
}
"""Each run variable's attributes."""

CHUNK_BYTES = 2**20
"""About how many bytes of packed rows one chunk holds: the cells of a block of the grid
whose wider packed row (integers or floats) fills this many bytes, one cell at least."""


def packed_widths(layout):
    """Packed row widths ``(ints, floats)`` of one cell."""
    widths = [0, 0]
    for variable in layout.variables:
        widths[0 if variable.integer else 1] += int(np.prod(variable.shape, dtype=np.int64))
    return widths


def cell_chunks(shape, row_bytes, chunk_bytes=None):
    """Return the chunk of the grid ``shape``: a block of about ``chunk_bytes / row_bytes`` cells.

    The block takes whole trailing dimensions first (C order, the order cells are listed
    in), so a chunk is a run of consecutive cells: with ``c = chunk_bytes // row_bytes``,
    the last dimension contributes ``min(size, c)`` cells, the one before it
    ``min(size, c // that)``, and so on (at least 1 each).
    """
    budget = max(1, (CHUNK_BYTES if chunk_bytes is None else chunk_bytes) // max(1, row_bytes))
    chunks = []
    for size in reversed(shape):
        take = max(1, min(int(size), budget))
        chunks.append(take)
        budget = max(1, budget // take) if take == size else 1
    return tuple(reversed(chunks))


def store_chunks(layout):
    """Return ``{sweep dim: chunk size}`` of a new store of ``layout`` (:func:`cell_chunks`)."""
    row_bytes = 8 * max(packed_widths(layout))
    return dict(zip(layout.dims, cell_chunks(layout.shape, row_bytes), strict=True))


def layout_sizes(layout):
    """Return ``{dim: size}`` of every dimension a store of ``layout`` has."""
    sizes = dict(zip(layout.dims, layout.shape, strict=True))
    for variable in layout.variables:
        sizes.update(zip(variable.extra_dims, variable.shape, strict=False))
    for coord in layout.coords.values():
        sizes.update(coord.sizes)
    n_ints, n_floats = packed_widths(layout)
    return {**sizes, "packed_int": n_ints, "packed_float": n_floats}
