"""One place that decides how every simcore kernel is compiled, and where it is cached."""

import functools
import hashlib
import os
import platform
import shutil
import sys
import time
from pathlib import Path

import numba

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}

ENGINE = Path(__file__).resolve().parent
"""The engine's package: every jitted function of simcore lives under it."""

STALE_SECONDS = 3600
"""Age after which the cache folder of earlier engine sources is removed."""


def jit(function=None, *, parallel=False, inline=False):
    """Compile ``function`` with simcore's numba options.

    Every kernel gets ``cache=True`` (compiled code is reused across processes, in
    :func:`kernel_cache_dir`), ``nogil=True`` and ``error_model="numpy"``;
    ``parallel=True`` is opt-in for the outer kernels that loop over trials with ``prange``.
    ``inline=True`` has numba inline the function into every caller (``inline="always"``):
    for the helpers of a small leaf kernel that runs in an inner loop, such as
    :func:`simcore.engine.coefficients.table_score`, where a call would cost as much as the
    work. Their callers then compile to the same code as before the helpers were split out.
    """
    inlining = "always" if inline else "never"

    def decorate(func):
        folder = kernel_cache_dir()
        saved = numba.config.CACHE_DIR
        if folder is not None:
            numba.config.CACHE_DIR = folder  # read once, when the kernel's cache is set up
        try:
            return numba.njit(parallel=parallel, inline=inlining, **_OPTIONS)(func)
        finally:
            numba.config.CACHE_DIR = saved

    if function is None:
        return decorate
    return decorate(function)


@functools.cache
def engine_fingerprint():
    """Return :func:`sources_fingerprint` of the engine's package (once per process)."""
    return sources_fingerprint(ENGINE)


def sources_fingerprint(folder):
    """Return a hash of the ``.py`` files under ``folder`` and of numba, Python and the machine.

    Any change to any of the files (their names or bytes) changes it, and with it the folder
    the kernels are cached in (:func:`kernel_cache_dir`).
    """
    folder = Path(folder)
    digest = hashlib.sha256(f"{numba.__version__} {sys.version} {platform.machine()}".encode())
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.cache
def kernel_cache_dir():
    """Return the folder numba caches simcore's kernels in, one per :func:`engine_fingerprint`.

    numba keys a cached function on its own file only, yet a kernel's compiled code holds
    the functions it calls from other files (inlined or linked): after a change to
    ``words.py`` alone, the cached ``trials.py`` kernels would still run the old draws. So
    the whole engine's cache is kept per version of all its sources:
    ``simcore-FINGERPRINT`` inside ``NUMBA_CACHE_DIR`` when the user set one, else
    ``cache-FINGERPRINT`` in the engine's ``__pycache__``, where the folders of earlier
    versions (written by simcore, never read again) are removed once they are an hour old
    (a process still compiling the earlier sources keeps its folder). None (numba's own choice
    of folder) where the engine's ``__pycache__`` cannot be written, as in a read-only
    install, whose sources do not change.
    """
    fingerprint = engine_fingerprint()
    if numba.config.CACHE_DIR:
        return os.path.join(numba.config.CACHE_DIR, f"simcore-{fingerprint}")
    base = ENGINE / "__pycache__"
    try:
        base.mkdir(exist_ok=True)
    except OSError:
        return None
    if not os.access(base, os.W_OK):
        return None
    folder = base / f"cache-{fingerprint}"
    remove_stale(base, folder, time.time())
    return str(folder)


def remove_stale(base, keep, now):
    """Remove the ``cache-*`` folders of ``base`` but ``keep`` unchanged for ``STALE_SECONDS``.

    Their age is read against ``now`` (seconds since the epoch).
    """
    for earlier in Path(base).glob("cache-*"):
        try:
            stale = earlier != Path(keep) and now - earlier.stat().st_mtime > STALE_SECONDS
        except OSError:  # removed meanwhile by another process
            continue
        if stale:
            shutil.rmtree(earlier, ignore_errors=True)
