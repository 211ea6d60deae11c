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
import subprocess
import sys
from pathlib import Path

from simcore.engine._jit import kernel_cache_dir

KERNELS = {
    "bitset": ("simcore.engine.bitset.trials", "_simulate_part"),
    "counts": ("simcore.engine.counts", "simulate_counts"),
    "items": ("simcore.engine.kernels", "simulate"),
}
"""The outermost compiled kernel each engine runs a cell with: ``(module, function)``."""

COMPILE_SECONDS = {
    "bitset": 20,
    "bitset:verdicts": 35,
    "bitset:clusters": 25,
    "bitset:verdicts,clusters": 40,
    "counts": 35,
    "counts:weighted": 25,
    "items": 45,
    "items:weighted": 55,
}
"""About how long compiling each kernel takes on first use (2 cores). The bitset engine
compiles one variant per combination of the parts a cell needs beyond the point rule on
independent items (``verdicts``: the interval verdict and the alternative annotator test;
``clusters``); the point rule's comes first, in two processes (:func:`prepare`). The items
and counts engines compile the weighted point rule (``weighted``) only for a cell that
scores a weighted coefficient."""

VARIANT_PARTS = {
    "bitset": ("verdicts", "clusters"),
    "items": ("weighted",),
    "counts": ("weighted",),
}
"""The parts a kernel variant may compile, by engine, in the order of its last arguments
(the items and counts engines' ``weighting``: a weighted coefficient's rule)."""


def is_compiled(engine):
    """Return whether ``engine``'s kernel is compiled in this process or was compiled before.

    ``engine`` is a key of :data:`COMPILE_SECONDS`: an engine, or a variant
    ``ENGINE:PARTS``, compiled when a signature whose last arguments are None (or left
    out) exactly where the variant lacks a part (:data:`VARIANT_PARTS`) is loaded in this
    process (numba's public ``signatures``), or when a run of this engine source has left
    its stamp (:func:`record_compiled`): numba then finds the kernel in its on-disk cache.
    Nothing private of numba is read, so a cache whose files were deleted by hand one by
    one still has its stamp and the note is not printed; the kernel then compiles as on
    first use. With
    ``NUMBA_DISABLE_JIT=1`` nothing compiles, so every kernel counts as compiled.
    """
    if _signatures(engine) is None:  # NUMBA_DISABLE_JIT: a plain function, nothing compiles
        return True
    stamp = _stamp(engine)
    return is_compiled_here(engine) or (stamp is not None and stamp.exists())


_RECORDED = set()
"""The variants this process has stamped (each is written once)."""


def record_compiled(engine):
    """Leave the stamp of ``engine``'s kernel once it is compiled in this process.

    Called after a cell ran on the kernel (numba has then written it to its cache). A
    stamp that cannot be written (a read-only install) is skipped: the note of
    :func:`first_use_note` then errs on the side of saying the kernel compiles.
    """
    if engine in _RECORDED or not is_compiled_here(engine):
        return
    _RECORDED.add(engine)
    stamp = _stamp(engine)
    if stamp is None:
        return
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    except OSError:
        pass


def is_compiled_here(engine):
    """Return whether ``engine``'s kernel variant is loaded in this process."""
    signatures = _signatures(engine)
    if signatures is None:
        return False
    name, _, parts = engine.partition(":")
    wanted = _variant_pattern(name, parts)
    return any(_matches(signature, wanted) for signature in signatures)


def _signatures(engine):
    """Return the compiled signatures of ``engine``'s kernel (None: numba's JIT is off)."""
    module, function = KERNELS[engine.partition(":")[0]]
    return getattr(getattr(importlib.import_module(module), function), "signatures", None)


def _stamp(engine):
    """Return the stamp file of ``engine``'s kernel compiled from this source and numba.

    It lies in the kernels' cache folder (:func:`simcore.engine._jit.kernel_cache_dir`, one
    per version of the engine's sources), beside the kernels it stands for, so it goes with
    them. None where simcore leaves numba to choose the folder: there is no folder of
    simcore's to write it in (a read-only install).
    """
    folder = kernel_cache_dir()
    if folder is None:
        return None
    return Path(folder) / f"compiled-{engine.replace(':', '-').replace(',', '-')}"


def _variant_pattern(name, parts):
    """Whether each variant argument is present (not None), or None for an engine without."""
    if name not in VARIANT_PARTS:
        return None
    chosen = set(parts.split(",")) if parts else set()
    return tuple(part in chosen for part in VARIANT_PARTS[name])


def _matches(signature, wanted):
    """Whether a compiled ``signature``'s variant arguments are None where ``wanted`` says."""
    if wanted is None:
        return True
    last = tuple(signature)[-len(wanted) :]
    absent = ("none", "omitted(default=None)")
    return all(
        (str(kind) not in absent) == present for kind, present in zip(last, wanted, strict=True)
    )


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
    names = " and ".join(_kernel_name(engine) for engine in cold)
    return (
        f"compiling {names} on first use (about {seconds} s on 2 cores; later runs reuse "
        "the compiled code)"
    )


def _kernel_name(engine):
    """Return how the note names a kernel, e.g. ``the bitset engine's verdicts``."""
    name, _, parts = engine.partition(":")
    if not parts:
        return f"the {name} engine"
    return f"the {name} engine's {' and '.join(parts.split(','))}"


def prepare(engines):
    """Compile the cold kernels of ``engines`` before the first cell, on two cores if there are.

    The bitset engine compiles in two parts at once: its decision in a second process while
    this one compiles its draws (:func:`simcore.engine.bitset.trials.warm`), both into numba's
    cache, from which the rest of the engine then loads them (about 20 s on two cores
    rather than 35). On one core, or if the second process fails, everything compiles
    here on first use as before; the compiled code is the same either way.
    """
    if "bitset" not in set(engines) or is_compiled("bitset") or (os.cpu_count() or 1) < 2:
        return
    from simcore.engine.bitset import trials as bitset

    helper = subprocess.Popen(
        [sys.executable, "-c", "from simcore.engine.bitset.trials import warm; warm('decision')"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        bitset.warm("draws")
    finally:
        helper.wait()
