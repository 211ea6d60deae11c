"""How much memory a run may take, and refusing a run that cannot fit before it starts.

A study estimates the bytes its largest cell allocates in one process (kernel scratch per
numba thread, outputs per block of trials); the driver and ``simcore validate`` compare
that with the memory this machine has available and refuse, naming what to change, when
the estimate does not fit.
"""

import os
from pathlib import Path

from simcore.studies import ScenarioError

GIB = 2**30


def available_bytes():
    """Return the memory available to a new allocation (``MemAvailable``, else all RAM)."""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


DRIVER_BYTES_PER_CELL = 400
"""Bytes the driver holds per cell of a sweep besides its counts: the cell's index and
coordinates, its first trial to run and its progress entry (Python objects)."""


def cells_need(layout):
    """Return ``(cells, bytes)``: the sweep's cell count and what the driver holds for them.

    The count multiplies the axis lengths (no cell is enumerated); the bytes are the cube's
    (:func:`simcore.sweep.estimate.store_size`, counts and rates, held when it is finalised
    or returned) plus :data:`DRIVER_BYTES_PER_CELL` per cell.
    """
    from simcore.sweep.estimate import store_size

    cells = 1
    for size in layout.shape:
        cells *= int(size)
    return cells, store_size(layout)[0] + DRIVER_BYTES_PER_CELL * cells


def check_fits(study, scenario, context, available=None):
    """Raise ScenarioError when the study's largest cell, or its cells, cannot fit in memory.

    ``study.memory_need(scenario, context)`` gives ``(bytes, what to change)``; the sweep's
    cells are counted from its layout's shape (:func:`cells_need`) before any is enumerated.
    """
    available = available_bytes() if available is None else available
    cells, held = cells_need(study.layout(scenario, context))
    if held > available:
        raise ScenarioError(
            [
                f"{scenario.source}: sweep: {cells:,} cells need about {held / GIB:.1f} GiB of "
                f"memory to run (about {DRIVER_BYTES_PER_CELL} bytes a cell besides the cube) "
                f"and this machine has {available / GIB:.1f} GiB available; sweep fewer values "
                f"(at most about {available * cells // max(held, 1):,} cells fit here)"
            ]
        )
    need, advice = study.memory_need(scenario, context)
    if need > available:
        raise ScenarioError(
            [
                f"{scenario.source}: the largest cell needs about {need / GIB:.1f} GiB of "
                f"memory and this machine has {available / GIB:.1f} GiB available; {advice}"
            ]
        )
