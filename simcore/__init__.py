"""simcore: how far to trust an LLM judge validated on sparse, partly overlapping labels.

Public API, one function per command: :func:`run` a scenario into a cube,
:func:`load_scenario` to read and validate a scenario file, :func:`estimate` its run's time
and store (``simcore validate``), :func:`advise` to audit a sparse
validation matrix and plan its next round (:func:`advise_groups` for grouped data),
:func:`inspect`, :func:`agreement`, :func:`ceiling`, :func:`card`, :func:`card_check`,
:func:`wellposed`, :func:`calibrate`, :func:`plan_calibration`, :func:`monitor` and
:func:`settle` (each taking a
path or the long ``item, rater, label[, group]`` DataFrame and returning a result with
``to_dict()``, the command's ``--json``; every one is also ``simcore.api.NAME``,
:mod:`simcore.api`), the one reader
:func:`read_annotations`, the value objects :class:`Rule` and :class:`CalibrationTable`, and
:mod:`simcore.testing` for assertion helpers on cubes.

The names are imported on first use (PEP 562), so ``import simcore.cli`` does not pull in
numba, xarray, zarr and dask before a command needs them.
"""

import importlib

from simcore._version import __version__ as __version__
from simcore.api import API_NAMES

__all__ = sorted(
    ["CalibrationTable", "Rule", "ScenarioError", "__version__", "read_annotations", *API_NAMES]
)

_LAZY = {
    **{name: ("simcore.api", name) for name in API_NAMES},
    "CalibrationTable": ("simcore.calibration.table", "CalibrationTable"),
    "Rule": ("simcore.model.decision_rule", "Rule"),
    "ScenarioError": ("simcore.studies.config", "ScenarioError"),
    "read_annotations": ("simcore.realdata.readers", "read_annotations"),
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
