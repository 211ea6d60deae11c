"""One place that decides how every simcore kernel is compiled."""

import numba

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


def jit(function=None, *, parallel=False, inline=False):
    """Compile ``function`` with simcore's numba options.

    Every kernel gets ``cache=True`` (compiled code is reused across processes),
    ``nogil=True`` and ``error_model="numpy"``; ``parallel=True`` is opt-in for the
    outer kernels that loop over trials with ``prange``. ``inline=True`` has numba inline
    the function into every caller (``inline="always"``): for the helpers of a small leaf
    kernel that runs in an inner loop, such as
    :func:`simcore.engine.coefficients.table_score`, where a call would cost as much as the
    work. Their callers then compile to the same code as before the helpers were split out.
    """
    inlining = "always" if inline else "never"

    def decorate(func):
        return numba.njit(parallel=parallel, inline=inlining, **_OPTIONS)(func)

    if function is None:
        return decorate
    return decorate(function)
