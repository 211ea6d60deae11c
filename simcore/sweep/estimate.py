"""What a run will cost before it starts: its time, measured on a few cells here, and its store.

``simcore validate`` prints both. The time is measured, not modelled: a few cells spread
over the grid (the first, the middle and the last) run a growing number of trials until a
call takes :data:`PROBE_SECONDS`, after one call that pays for compilation; a line through
the one-trial and the longest call gives each probed cell's fixed cost ``a`` and cost per
trial ``b``, and the run is expected to take ``cells x mean(a + b x trials)`` in this
process (cells one after the other, each on every numba thread). The store's size follows
from the layout: the packed rows (the run variables), the named variables unpacked from
them, one derived rate per count and the seal, uncompressed (zarr compresses it).
"""

import time
from dataclasses import dataclass

import numpy as np

from simcore.sweep.grid import run_task
from simcore.sweep.store_layout import cell_chunks, packed_widths

PROBE_SECONDS = 0.2
"""How long the longest timed call of a probed cell runs (at most ``trials`` trials)."""


@dataclass(frozen=True)
class RunEstimate:
    """A run's expected cost.

    Attributes
    ----------
    cells : int
        Cells of the sweep.
    seconds : float
        Expected seconds of computing every cell in this process (start-up, writing and
        finalising the store come on top).
    probed : int
        Cells timed for it.
    store_bytes : int
        The finished store's size before compression.
    chunks : int
        Chunks per variable (blocks of ``chunk_cells`` cells).
    chunk_cells : int
        Cells per chunk.
    files : int
        About how many files the store holds at most (zarr skips chunks holding only
        their fill value).
    """

    cells: int
    seconds: float
    probed: int
    store_bytes: int
    chunks: int
    chunk_cells: int
    files: int

    def text(self):
        """Return the estimate as ``simcore validate`` prints it."""
        return (
            f"its cells take about {_duration(self.seconds)} to compute in this process "
            f"(measured on {self.probed} cell{'s' if self.probed != 1 else ''} here); store about "
            f"{_size(self.store_bytes)} before compression, in up to about {self.files:,} files "
            f"({self.chunks:,} chunk{'s' if self.chunks != 1 else ''} of up to "
            f"{self.chunk_cells:,} cells per variable)"
        )

    def to_dict(self):
        """Return the estimate as plain numbers (``validate --json``)."""
        return {
            "cells": self.cells,
            "expected_seconds": self.seconds,
            "probed_cells": self.probed,
            "store_bytes": self.store_bytes,
            "chunks_per_variable": self.chunks,
            "cells_per_chunk": self.chunk_cells,
            "files": self.files,
        }


def _duration(seconds):
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _size(count):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


PROBE_SCAN = 1_000
"""Cells probed are drawn from the first this many in C order, so that an estimate never
enumerates a long sweep (a billion-cell sweep is counted from its shape, never listed)."""


def _probe_positions(n_cells):
    """Return the C-order positions of the cells to time (distinct).

    The first, middle and last of the first :data:`PROBE_SCAN` cells.
    """
    scanned = max(1, min(n_cells, PROBE_SCAN))
    return sorted({0, scanned // 2, scanned - 1})


REPEATS = 3
"""Each timed call runs this many times; its median is kept (one slow call is noise)."""


def _timed(run, start, stop):
    """Return the median seconds of :data:`REPEATS` calls ``run(start, stop)``."""
    seconds = []
    for _ in range(REPEATS):
        began = time.perf_counter()
        run(start, stop)
        seconds.append(time.perf_counter() - began)
    return float(np.median(seconds))


def cell_seconds(run, trials):
    """Return the expected seconds of one cell of ``trials`` trials; ``run(start, stop)``.

    One call of one trial first (compilation, caches), then calls of 1, 4, 16, ... trials
    (each the median of :data:`REPEATS`) until one takes :data:`PROBE_SECONDS` or reaches
    ``trials``: with ``t_1`` and ``t_k``,
    ``b = (t_k - t_1) / (k - 1)``, ``a = max(0, t_1 - b)`` and the cell takes ``a + b trials``.
    """
    run(0, 1)
    first = _timed(run, 0, 1)
    count, longest = 1, first
    while count < trials and longest < PROBE_SECONDS:
        count = min(trials, 4 * count)
        longest = _timed(run, 0, count)
    per_trial = (longest - first) / (count - 1) if count > 1 else first
    per_trial = max(per_trial, 0.0)
    return max(0.0, first - per_trial) + per_trial * trials


def store_size(layout):
    """Return ``(bytes, chunks per variable, cells per chunk, files)`` of a finished store."""
    shape = layout.shape
    n_cells = 1
    for size in shape:
        n_cells *= int(size)
    n_ints, n_floats = packed_widths(layout)
    chunks = cell_chunks(shape, 8 * max(n_ints, n_floats, 1))
    n_chunks = int(np.prod([-(-size // chunk) for size, chunk in zip(shape, chunks, strict=True)]))
    packed = 8 * (n_ints + n_floats)
    per_cell = (packed + 8 + 1) + packed + 8 * n_ints + 8  # run rows, named, rates, seal
    variables = 2 * len(layout.variables) + 5
    files = variables * (2 + n_chunks) + 3 * len(shape) + 2
    return n_cells * per_cell, n_chunks, int(np.prod(chunks, dtype=np.int64)), files


def expected_run(study, scenario, context, layout):
    """Return the :class:`RunEstimate` of ``scenario``'s run from the start."""
    n_cells = 1
    for size in layout.shape:
        n_cells *= int(size)
    positions = _probe_positions(n_cells)
    probes = []
    for position, cell in enumerate(study.cells(scenario, context)):
        if position in positions:
            probes.append(cell)
        if position >= positions[-1]:
            break

    def runner(cell):  # as the grid runs a task (one thread per block of few trials)
        return lambda start, stop: run_task(scenario.kind, scenario, context, cell, start, stop)

    seconds = [cell_seconds(runner(cell), scenario.trials) for cell in probes]
    store_bytes, chunks, chunk_cells, files = store_size(layout)
    return RunEstimate(
        cells=n_cells,
        seconds=float(np.mean(seconds)) * n_cells,
        probed=len(probes),
        store_bytes=int(store_bytes),
        chunks=chunks,
        chunk_cells=chunk_cells,
        files=int(files),
    )
