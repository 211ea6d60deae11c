"""Writing finished cells into a store, a block of the grid (one chunk) at a time.

Cells finish one by one (in any order on a cluster); writing each as it comes would cost a
chunk write per cell, so the writer gathers them and writes a chunk's worth at once, soon
enough that a kill loses next to nothing (:class:`CellWriter`).
"""

import time

import numpy as np
import zarr

from simcore.sweep.store import cell_label_at, pack_counts, sweep_values
from simcore.sweep.store_check import cell_checksum
from simcore.sweep.store_layout import RUN_VARIABLES

__all__ = ["FLUSH_SECONDS", "SLOW_CELL_SECONDS", "CellWriter"]

FLUSH_SECONDS = 0.5
"""A finished cell waits at most this long (until the next cell finishes) to be written."""

SLOW_CELL_SECONDS = 0.05
"""Cells that finish this far apart or more are written as each finishes."""


class CellWriter:
    """Writes finished cells into a store, a block of the grid (one chunk) at a time.

    Cells are gathered as they finish and written when their chunk is full, when the
    oldest gathered cell has waited :data:`FLUSH_SECONDS` or when cells finish
    :data:`SLOW_CELL_SECONDS` apart or more (then each as it finishes), and by
    :meth:`flush` (the driver calls it at the end and when interrupted). A process killed
    outright loses only cells gathered but not yet written: at most
    :data:`FLUSH_SECONDS` of fast cells. ``check`` (the lock's) is called before every
    write. ``identity`` names the run (:func:`simcore.sweep.store.scenario_identity`):
    every checksum covers it.
    """

    def __init__(self, path, layout, identity, check=None, clock=time.monotonic):
        self.group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
        self.layout = layout
        self.identity = identity
        self.arrays = {name: self.group[name] for name in RUN_VARIABLES}
        self.chunks = self.arrays["cell_complete"].chunks
        self.chunk_cells = int(np.prod(self.chunks, dtype=np.int64))
        self.values = sweep_values(layout)
        self.check = check or (lambda: None)
        self.clock = clock
        self.pending = {}  # chunk key -> [(index, counts, extend), ...]
        self.oldest, self.last = None, clock()  # the first cell's gap runs from here

    def write(self, index, counts, extend=False):
        """Gather one cell's counts; write what is due (see the class).

        With ``extend`` the counts are those of further trials and are added to the stored
        ones (packed rows add exactly: counts are integers, sums are of quantised values).
        """
        now = self.clock()
        key = tuple(i // c for i, c in zip(index, self.chunks, strict=True))
        self.pending.setdefault(key, []).append((tuple(index), counts, extend))
        slow = now - self.last >= SLOW_CELL_SECONDS
        self.oldest = now if self.oldest is None else self.oldest
        self.last = now
        full = len(self.pending[key]) >= self.chunk_cells
        if full or slow or now - self.oldest >= FLUSH_SECONDS:
            self.flush()

    def flush(self):
        """Write every gathered cell, a chunk at a time."""
        if not self.pending:
            return
        self.check()
        for key, cells in sorted(self.pending.items()):
            self._write_block(key, cells)
        self.pending.clear()
        self.oldest = None

    def _read(self, name, region, blank):
        """Return the stored block ``region`` of run variable ``name`` (``blank`` if damaged)."""
        try:
            return np.array(self.arrays[name][region])
        except Exception:  # an unreadable chunk: its cells are recomputed, rewrite it whole
            return blank

    def _write_block(self, key, cells):
        """Write ``cells`` of one chunk: flags down, rows, checksums, flags up.

        Cells being rewritten are marked incomplete first and their checksums written
        before they are marked complete again, so a run killed at any moment leaves each
        cell old, to recompute, or new (each chunk is written whole, atomically).
        """
        region = tuple(
            slice(k * c, min((k + 1) * c, n))
            for k, c, n in zip(key, self.chunks, self.layout.shape, strict=True)
        )
        size = tuple(r.stop - r.start for r in region)
        width = self.arrays["cell_ints"].shape[-1], self.arrays["cell_floats"].shape[-1]
        complete = self._read("cell_complete", region, np.zeros(size, bool))
        ints = self._read("cell_ints", region, np.zeros((*size, width[0]), np.int64))
        floats = self._read("cell_floats", region, np.zeros((*size, width[1])))
        checksums = self._read("cell_checksum", region, np.zeros(size, np.int64))
        local = [
            tuple(i - r.start for i, r in zip(index, region, strict=True)) for index, *_ in cells
        ]
        if any(complete[at] for at in local):
            for at in local:
                complete[at] = False
            self.arrays["cell_complete"][region] = complete
        for at, (index, counts, extend) in zip(local, cells, strict=True):
            row_ints, row_floats = pack_counts(counts, self.layout)
            if extend:
                row_ints, row_floats = row_ints + ints[at], row_floats + floats[at]
            ints[at], floats[at] = row_ints, row_floats
            label = cell_label_at(self.layout, index, self.values)
            checksums[at] = cell_checksum(row_ints, row_floats, label, self.identity)
        self.arrays["cell_ints"][region] = ints
        self.arrays["cell_floats"][region] = floats
        self.arrays["cell_checksum"][region] = checksums
        for at in local:
            complete[at] = True
        self.arrays["cell_complete"][region] = complete
