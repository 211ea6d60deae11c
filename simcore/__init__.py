"""simcore: how far to trust an LLM judge validated on sparse, partly overlapping labels.

Public API: :func:`run` a scenario into a cube, :func:`load_scenario` to read and validate
a scenario file, :func:`advise` to audit a sparse validation matrix and plan its next round
(the callable package :mod:`simcore.advise`, :func:`simcore.advise.python_api.advise`), and
:mod:`simcore.testing` for assertion helpers on cubes.

The names are imported on first use (PEP 562), so ``import simcore.cli`` does not pull in
numba, xarray, zarr and dask before a command needs them.
"""

import importlib

from simcore._version import __version__

__all__ = ["ScenarioError", "__version__", "advise", "load_scenario", "run"]

_LAZY = {
    "load_scenario": ("simcore.api", "load_any"),  # synthetic or real-data
    "run": ("simcore.api", "run"),
    "ScenarioError": ("simcore.studies.config", "ScenarioError"),
    "advise": ("simcore.advise", None),  # the package itself, callable
}


def __getattr__(name):
    """Import a public name of :data:`_LAZY` on first access."""
    if name not in _LAZY:
        raise AttributeError(f"module 'simcore' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(module)
    value = value if attribute is None else getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
