"""numba's thread pool and version, for the layers above the engine (which never import numba).

A cell's results do not depend on the number of threads (each trial draws from its own
stream), so :func:`set_threads` only trades speed between processes: the sweep gives each
dask task ``cores // workers`` threads, and the studies size their scratch per thread
(:func:`thread_count`). :func:`numba_version` is what a store records.
"""

import contextlib

import numba

from simcore.engine.layout import TRIAL_CHUNK


def set_threads(count):
    """Run this process's kernels on ``count`` threads, kept within 1 and numba's maximum."""
    numba.set_num_threads(max(1, min(count, numba.config.NUMBA_NUM_THREADS)))


@contextlib.contextmanager
def threads_for_trials(n_trials):
    """Run the kernels called inside on at most one thread per block of trials.

    A parallel kernel hands each thread blocks of :data:`~simcore.engine.layout.TRIAL_CHUNK`
    trials, so a call of ``n_trials`` uses at most ``ceil(n_trials / TRIAL_CHUNK)`` of them;
    waking the others only costs time (on a busy machine, milliseconds per call: a sweep of
    tiny cells would spend most of its time there). Results do not depend on threads.
    """
    threads = thread_count()
    needed = max(1, -(-int(n_trials) // TRIAL_CHUNK))
    if needed >= threads:
        yield
        return
    numba.set_num_threads(needed)
    try:
        yield
    finally:
        numba.set_num_threads(threads)


def thread_count():
    """Return the number of threads this process's parallel kernels run on."""
    return int(numba.get_num_threads())


def numba_version():
    """Return the installed numba's version string (``numba.__version__``)."""
    return numba.__version__
