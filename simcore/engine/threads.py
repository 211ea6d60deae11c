"""numba's thread pool and version, for the layers above the engine (which never import numba).

A cell's results do not depend on the number of threads (each trial draws from its own
stream), so :func:`set_threads` only trades speed between processes: the sweep gives each
dask task ``cores // workers`` threads, and the studies size their scratch per thread
(:func:`thread_count`). :func:`numba_version` is what a store records.
"""

import numba


def set_threads(count):
    """Run this process's kernels on ``count`` threads, kept within 1 and numba's maximum."""
    numba.set_num_threads(max(1, min(count, numba.config.NUMBA_NUM_THREADS)))


def thread_count():
    """Return the number of threads this process's parallel kernels run on."""
    return int(numba.get_num_threads())


def numba_version():
    """Return the installed numba's version string (``numba.__version__``)."""
    return numba.__version__
