"""simcore: how far to trust an LLM judge validated on sparse, partly overlapping labels.

Public API, one function per command: :func:`run` a scenario into a cube,
:func:`load_scenario` to read and validate a scenario file, :func:`estimate` its run's time
and store (``simcore validate``), :func:`advise` to audit a sparse
validation matrix and plan its next round (the callable package :mod:`simcore.advise`,
:func:`simcore.advise.python_api.advise`; :func:`advise_groups` for grouped data),
:func:`inspect`, :func:`agreement`, :func:`ceiling`, :func:`card`, :func:`card_check`,
:func:`wellposed`, :func:`calibrate` and :func:`monitor` (each taking a path or the long
``item, rater, label[, group]`` DataFrame and returning a result with ``to_dict()``, the
command's ``--json``), the one reader :func:`read_annotations`, and :mod:`simcore.testing`
for assertion helpers on cubes.

The names are imported on first use (PEP 562), so ``import simcore.cli`` does not pull in
numba, xarray, zarr and dask before a command needs them.
"""

import importlib

from simcore._version import __version__

__all__ = [
    "ScenarioError",
    "__version__",
    "advise",
    "advise_groups",
    "agreement",
    "calibrate",
    "card",
    "card_check",
    "ceiling",
    "estimate",
    "inspect",
    "load_scenario",
    "monitor",
    "read_annotations",
    "run",
    "wellposed",
]

_LAZY = {
    "load_scenario": ("simcore.api", "load_any"),  # synthetic or real-data
    "run": ("simcore.api", "run"),
    "estimate": ("simcore.api", "estimate"),
    "ScenarioError": ("simcore.studies.config", "ScenarioError"),
    "advise": ("simcore.advise", None),  # the package itself, callable
    "advise_groups": ("simcore.advise.python_api", "advise_groups"),
    "agreement": ("simcore.data_commands", "agreement"),
    "calibrate": ("simcore.calibrate_api", "calibrate"),
    "card": ("simcore.data_commands", "card"),
    "card_check": ("simcore.data_commands", "card_check"),
    "ceiling": ("simcore.data_commands", "ceiling"),
    "inspect": ("simcore.data_commands", "inspect"),
    "monitor": ("simcore.monitor_api", "monitor"),
    "read_annotations": ("simcore.realdata.readers", "read_annotations"),
    "wellposed": ("simcore.data_commands", "wellposed"),
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
