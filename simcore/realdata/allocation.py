"""Refusing a computation whose arrays cannot fit in memory, before they are allocated.

Every command that allocates in proportion to its input's sizes (the reader's dense
``items x raters`` matrix, the ceilings' and well-posedness' bootstrap draws, advise's
simulated matrices, plan's simulated corpus) estimates the bytes from the sizes it has
observed and calls :func:`check_memory` first, so that too large an input ends with one
line, what it would need and what to lower, instead of a ``MemoryError`` or a machine
that swaps. The estimates follow the allocations and err on the large side; they are not
an accounting. The same comparison refuses a ``simcore run`` that cannot fit
(:mod:`simcore.sweep.memory`).
"""

import os
from pathlib import Path

from simcore.realdata.annotation import DataError

__all__ = ["GIB", "available_bytes", "check_memory", "gib_text"]

GIB = 2**30
"""Bytes in a gibibyte."""


def available_bytes():
    """Return the memory available to a new allocation, in bytes.

    ``MemAvailable`` of ``/proc/meminfo`` where there is one, else the free physical pages
    (``os.sysconf('SC_AVPHYS_PAGES')``) times the page size.
    """
    meminfo = Path("/proc/meminfo")
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def gib_text(size):
    """Return ``size`` bytes as ``12.3 GiB``, ``< 0.1 GiB`` or ``7.5e+21 GiB``."""
    gib = size / GIB
    if gib >= 1e6:
        return f"{gib:.1e} GiB"
    return f"{gib:.1f} GiB" if gib >= 0.1 else "< 0.1 GiB"


def check_memory(need, where, what, advice, got):
    """Raise :class:`DataError` when ``need`` bytes exceed the memory available here.

    Parameters
    ----------
    need : int
        Estimated bytes of the computation.
    where : str
        ``SOURCE: key`` (or the option) the message starts with.
    what : str
        What would be allocated, e.g. ``"1000 bootstrap draws of 5000 items"``.
    advice : str
        What to lower, e.g. ``"lower --boot (Python: boot)"``.
    got : str
        The sizes observed, shown after ``got``.

    Raises
    ------
    DataError
        ``WHERE: WHAT need about X GiB of memory and this machine has Y GiB available;
        ADVICE (got GOT)``.
    """
    available = available_bytes()
    if need > available:
        raise DataError(
            [
                f"{where}: {what} need about {gib_text(need)} of memory and this machine has "
                f"{gib_text(available)} available; {advice} (got {got})"
            ]
        )
