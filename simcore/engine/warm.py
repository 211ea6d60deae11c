"""Whether an engine's kernel is compiled yet, and about how long compiling it takes.

Every kernel is compiled by numba on its first call and kept in numba's on-disk cache
(``cache=True``), so only the first run after an install or a change of simcore pays for
it. :func:`first_use_note` is what ``simcore run`` prints before its first cell when a
kernel the run needs is not in the cache yet, so a user does not take a silent first
minute for a hang. The estimates are the cold compile times ``make bench`` measures on two
cores (docs/benchmarks.md).
"""

import importlib
import os

KERNELS = {
    "bitset": ("simcore.engine.bitset", "simulate_bitset"),
    "counts": ("simcore.engine.counts", "simulate_counts"),
    "items": ("simcore.engine.kernels", "simulate"),
}
"""The kernel each engine runs a cell with: ``(module, function)``."""

COMPILE_SECONDS = {"bitset": 15, "counts": 35, "items": 45}
"""About how long compiling each engine's kernel takes on first use (2 cores)."""


def is_compiled(engine):
    """Return whether ``engine``'s kernel is compiled in this process or in numba's cache.

    Reads the cache index numba keeps beside the module (``__pycache__``); when that cannot
    be found the kernel is taken as not compiled (the note then errs on the side of saying
    so).
    """
    module, name = KERNELS[engine]
    dispatcher = getattr(importlib.import_module(module), name)
    if dispatcher.signatures:
        return True
    try:
        index = dispatcher._cache._cache_file._index_path
    except AttributeError:  # another numba: no way to tell
        return False
    return os.path.exists(index)


def first_use_note(engines):
    """Return the line to print before compiling ``engines``' kernels, or None if all are.

    Parameters
    ----------
    engines : iterable of str
        Engines a run uses (keys of :data:`KERNELS`).
    """
    cold = [engine for engine in sorted(set(engines)) if not is_compiled(engine)]
    if not cold:
        return None
    seconds = sum(COMPILE_SECONDS[engine] for engine in cold)
    names = " and ".join(f"the {engine} engine" for engine in cold)
    return (
        f"compiling {names} on first use (about {seconds} s on 2 cores; later runs reuse "
        "the compiled code)"
    )
