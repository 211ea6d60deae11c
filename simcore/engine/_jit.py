"""One place that decides how every simcore kernel is compiled."""

import numba

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


def jit(function=None, *, parallel=False):
    """Compile ``function`` with simcore's numba options.

    Every kernel gets ``cache=True`` (compiled code is reused across processes),
    ``nogil=True`` and ``error_model="numpy"``; ``parallel=True`` is opt-in for the
    outer kernels that loop over trials with ``prange``.
    """

    def decorate(func):
        return numba.njit(parallel=parallel, **_OPTIONS)(func)

    if function is None:
        return decorate
    return decorate(function)
