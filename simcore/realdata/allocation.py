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

__all__ = [
    "GIB",
    "WORK_LIMIT",
    "address_space_room",
    "available_bytes",
    "check_memory",
    "check_work",
    "gib_text",
]

GIB = 2**30
"""Bytes in a gibibyte."""

WORK_LIMIT = 2 * 10**11
"""Most elementary array operations (element reads and writes) one computation may plan.

NumPy runs about 10^9 such operations a second on one core, so the bound is a few
minutes; a computation estimated beyond it is refused before it starts (:func:`check_work`)
rather than left to run for hours."""


def available_bytes():
    """Return the memory available to a new allocation in this process, in bytes.

    ``MemAvailable`` of ``/proc/meminfo`` where there is one, else the free physical pages
    (``os.sysconf('SC_AVPHYS_PAGES')``) times the page size; and never more than the room
    left under the address-space limit (``resource.getrlimit(RLIMIT_AS)``, when one is set)
    after what this process already maps (``VmSize`` of ``/proc/self/status``).
    """
    available = _proc_bytes("/proc/meminfo", "MemAvailable:")
    if available is None:
        available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    room = address_space_room()
    return available if room is None else max(0, min(available, room))


def address_space_room():
    """Return the bytes left under ``RLIMIT_AS`` after this process's mappings, or None.

    None when no address-space limit is set (or it cannot be read).
    """
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    return max(0, limit - (_proc_bytes("/proc/self/status", "VmSize:") or 0))


def _proc_bytes(path, key):
    """Return the ``key: N kB`` line of the ``/proc`` file ``path`` in bytes, or None."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    return next((int(line.split()[1]) * 1024 for line in lines if line.startswith(key)), None)


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


def check_work(operations, where, what, advice, got):
    """Raise :class:`DataError` when ``operations`` exceed :data:`WORK_LIMIT`.

    Parameters
    ----------
    operations : int or float
        Estimated elementary array operations of the computation.
    where, what, advice, got : str
        As for :func:`check_memory`.

    Raises
    ------
    DataError
        ``WHERE: WHAT take about N array operations, beyond the WORK_LIMIT simcore runs
        (minutes at about 10^9 a second); ADVICE (got GOT)``.
    """
    if operations > WORK_LIMIT:
        raise DataError(
            [
                f"{where}: {what} take about {float(operations):.1e} array operations, beyond "
                f"the {float(WORK_LIMIT):.0e} simcore runs in one computation (minutes at about "
                f"1e9 a second); {advice} (got {got})"
            ]
        )
