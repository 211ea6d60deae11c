"""The cube: labelled counts and rates of a sweep, in memory and in zarr stores.

One dimension per swept parameter (named as in the scenario's ``sweep``, values as
coordinates), integer count variables, rates derived from the counts with their binomial
standard errors, and the scenario, its hash, the root seed and library versions in the
attributes. A store is written cell by cell as cells finish (``cell_complete`` records
which), then finalised: rates written, ``complete`` set, metadata consolidated. A store
whose ``complete`` attribute is false is unfinished and can be resumed.
"""

import datetime
import os
import shutil
from pathlib import Path

import numpy as np
import xarray as xr
import zarr

from simcore.cell import COUNT_NAMES

COUNT_ATTRS = {
    "n_trials": ("trials run", "count"),
    "n_ref_accept": ("trials whose reference decision accepts the judge", "count"),
    "n_ref_reject": ("trials whose reference decision rejects the judge", "count"),
    "n_wrong": (
        "trials whose sparse decision differs from the reference (accept vs "
        "reject; inconclusive excluded)",
        "count",
    ),
    "n_false_reject": ("trials with reference accept and sparse reject", "count"),
    "n_false_accept": ("trials with reference reject and sparse accept", "count"),
    "n_inconclusive": ("trials whose sparse decision is inconclusive", "count"),
    "n_empty_comparisons": (
        "leave-one-out comparisons with no eligible pair (each passes), summed over trials",
        "count",
    ),
    "omega_hist": ("trials by number of comparisons the judge passes (omega * n_humans)", "count"),
}
RATE_ATTRS = {
    "wrong_decision_rate": ("n_wrong", "n_trials", "wrong-decision rate"),
    "false_rejection_rate": (
        "n_false_reject",
        "n_ref_accept",
        "false-rejection rate among reference accepts",
    ),
    "false_approval_rate": (
        "n_false_accept",
        "n_ref_reject",
        "false-approval rate among reference rejects",
    ),
}
"""Each rate: ``(numerator count, denominator count, long name)``."""

SWEEP_ATTRS = {
    "p_judge": ("judge accuracy", "1"),
    "p_human": ("human accuracy", "1"),
    "n_items": ("items in the corpus", "count"),
    "n_humans": ("humans K", "count"),
    "n_labels": ("label categories L", "count"),
    "design": ("overlap design", ""),
    "rho": ("per-secondary coverage", "1"),
    "m": ("items per secondary", "count"),
    "coefficient": ("agreement coefficient", ""),
    "epsilon": ("tolerance eps", "1"),
    "tau": ("acceptance threshold on omega", "1"),
    "reference": ("reference decision", ""),
}


class StoreError(ValueError):
    """A store that cannot be used for this run (bad input: exit status 2)."""


def _versions():
    import numba

    import simcore

    return {
        "simcore_version": simcore.__version__,
        "numba_version": numba.__version__,
        "numpy_version": np.__version__,
        "xarray_version": xr.__version__,
        "zarr_version": zarr.__version__,
    }


def _max_humans(scenario):
    return max(cell.model.n_humans for cell in scenario.cells())


def empty_cube(scenario):
    """Return the cube of ``scenario`` with every count zero and no cell complete."""
    dims = scenario.dims
    shape = scenario.shape
    coords = {}
    for name, values in scenario.sweep:
        long_name, units = SWEEP_ATTRS[name]
        coords[name] = xr.Variable(name, list(values), {"long_name": long_name, "units": units})
    omega = np.arange(_max_humans(scenario) + 1)
    coords["omega"] = xr.Variable(
        "omega",
        omega,
        {"long_name": "comparisons passed (omega = value / n_humans)", "units": "count"},
    )
    data_vars = {}
    for name in COUNT_NAMES:
        long_name, units = COUNT_ATTRS[name]
        data_vars[name] = xr.Variable(
            dims, np.zeros(shape, np.int64), {"long_name": long_name, "units": units}
        )
    long_name, units = COUNT_ATTRS["omega_hist"]
    data_vars["omega_hist"] = xr.Variable(
        (*dims, "omega"),
        np.zeros((*shape, len(omega)), np.int64),
        {"long_name": long_name, "units": units},
    )
    data_vars["cell_complete"] = xr.Variable(
        dims, np.zeros(shape, bool), {"long_name": "cell finished and written", "units": "1"}
    )
    attrs = {
        "title": scenario.name or Path(scenario.source).stem,
        "scenario": scenario.to_yaml(),
        "scenario_source": str(scenario.source),
        "scenario_hash": scenario.content_hash(),
        "root_seed": int(scenario.seed),
        "trials": int(scenario.trials),
        "reference": scenario.reference,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "complete": 0,
        **_versions(),
    }
    return xr.Dataset(data_vars, coords, attrs)


def put_cell(cube, index, counts):
    """Write one cell's counts into an in-memory cube and mark it complete."""
    for name in COUNT_NAMES:
        cube[name].values[index] = counts[name]
    hist = counts["omega_hist"]
    cube["omega_hist"].values[(*index, slice(0, len(hist)))] = hist
    cube["cell_complete"].values[index] = True


def with_rates(cube):
    """Return ``cube`` with every rate of :data:`RATE_ATTRS` and its standard error.

    ``rate = count / denominator``; ``rate_se = sqrt(rate (1 - rate) / denominator)``
    (binomial). Both are NaN where the denominator is 0 (no trial to rate), which the
    attributes say.
    """
    cube = cube.copy()
    for name, (numerator, denominator, long_name) in RATE_ATTRS.items():
        den = cube[denominator].astype(np.float64)
        rate = xr.where(den > 0, cube[numerator] / den.where(den > 0), np.nan)
        se = np.sqrt(rate * (1 - rate) / den.where(den > 0))
        note = f"{numerator} / {denominator}; NaN where {denominator} is 0"
        cube[name] = rate.assign_attrs(long_name=long_name, units="1", description=note)
        cube[f"{name}_se"] = se.assign_attrs(
            long_name=f"binomial standard error of the {long_name}",
            units="1",
            description=f"sqrt(rate (1 - rate) / {denominator}); NaN where {denominator} is 0",
        )
    return cube


# --------------------------------------------------------------------------- zarr


def _encoding(cube):
    encoding = {}
    for name, variable in cube.variables.items():
        if name in cube.dims:
            continue
        encoding[name] = {
            "chunks": tuple(
                1 if d in cube.coords and d != "omega" else cube.sizes[d] for d in variable.dims
            )
        }
    return encoding


def read_attrs(path):
    """Return the attributes of the store at ``path``, or None if it is not a zarr store."""
    try:
        return dict(zarr.open_group(str(path), mode="r").attrs)
    except (FileNotFoundError, zarr.errors.GroupNotFoundError, ValueError, KeyError):
        return None


def prepare(path, scenario, overwrite=False):
    """Make ``path`` ready for ``scenario``; return the indices of cells already done.

    A missing store is created (in a temporary folder, then renamed, so that no
    half-created store is left). A store of the same scenario (same hash) is resumed:
    cells complete with the same trial count are kept. Anything else at ``path`` is
    refused unless ``overwrite``.

    Raises
    ------
    StoreError
        When ``path`` holds something other than this scenario's store.
    """
    path = Path(path)
    if path.exists():
        attrs = read_attrs(path)
        same = attrs is not None and attrs.get("scenario_hash") == scenario.content_hash()
        if not same and not overwrite:
            what = (
                "a store of a different scenario"
                if attrs and "scenario_hash" in attrs
                else "something that is not a simcore store"
            )
            raise StoreError(
                f"{path}: holds {what} ({attrs.get('title') if attrs else '-'}); "
                "use --overwrite to replace it or --out for another store"
            )
        if same and not overwrite:
            cube = xr.open_zarr(str(path), consolidated=False)
            done = cube["cell_complete"].values & (cube["n_trials"].values == scenario.trials)
            if not done.all():
                _mark_unfinished(path)
            return {tuple(int(i) for i in row) for row in np.argwhere(done)}
        _remove(path)
    _create(path, empty_cube(scenario))
    return set()


def _mark_unfinished(path):
    """Set ``complete`` to 0, in the consolidated metadata too, before cells are rewritten."""
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    group.attrs["complete"] = 0
    zarr.consolidate_metadata(str(path))


def _remove(path):
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def _create(path, cube):
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    cube.to_zarr(
        str(temporary), mode="w", encoding=_encoding(cube), consolidated=False, zarr_format=2
    )
    os.replace(temporary, path)


def write_cell(path, scenario, index, counts):
    """Write one finished cell's counts into the store; ``cell_complete`` is set last."""
    group = zarr.open_group(str(path), mode="r+")
    for name in COUNT_NAMES:
        group[name][index] = counts[name]
    hist = counts["omega_hist"]
    group["omega_hist"][(*index, slice(0, len(hist)))] = hist
    group["cell_complete"][index] = True


def finalize(path, scenario):
    """Derive the rates, mark the store complete and consolidate its metadata.

    Returns
    -------
    xarray.Dataset
        The finished cube, loaded in memory.
    """
    cube = xr.open_zarr(str(path), consolidated=False).load()
    if not bool(cube["cell_complete"].all()):
        raise RuntimeError(f"{path}: finalize called with unfinished cells")
    cube = with_rates(cube)
    rates = cube[[name for name in cube.data_vars if name.endswith(("_rate", "_rate_se"))]]
    rates.to_zarr(
        str(path),
        mode="a",
        encoding=_encoding(rates) if not _has(path, rates) else None,
        consolidated=False,
    )
    group = zarr.open_group(str(path), mode="r+")
    group.attrs.update(
        {
            "complete": 1,
            "trials": int(scenario.trials),
            "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
    )
    zarr.consolidate_metadata(str(path))
    cube.attrs.update(dict(group.attrs))
    return cube


def _has(path, dataset):
    group = zarr.open_group(str(path), mode="r")
    return all(name in group for name in dataset.data_vars)


def open_cube(path):
    """Open a finished store with plain xarray (no simcore needed for this)."""
    return xr.open_zarr(str(path))
