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

from simcore.cell import COUNT_NAMES, SUM_NAMES

STORED_ATTRS = {
    "n_trials": ("trials run", "count"),
    "n_ref_accept": ("trials whose reference decision accepts the judge", "count"),
    "n_ref_reject": ("trials whose reference decision rejects the judge", "count"),
    "n_wrong": (
        "trials whose sparse decision differs from the reference (accept vs reject; "
        "inconclusive excluded)",
        "count",
    ),
    "n_false_reject": ("trials with reference accept and sparse reject", "count"),
    "n_false_accept": ("trials with reference reject and sparse accept", "count"),
    "n_inconclusive": ("trials whose sparse decision is inconclusive", "count"),
    "n_empty_comparisons": (
        "leave-one-out comparisons with no eligible pair (each passes), summed over trials",
        "count",
    ),
    "n_degenerate_scores": (
        "sparse comparison scores whose coefficient had a zero "
        "denominator (scored 0), summed over trials",
        "count",
    ),
    "n_shared_panel": ("trials in which every secondary labelled the same items", "count"),
    "n_agreement_defined": (
        "trials whose human-pool agreement is defined on both the sparse and the dense matrix",
        "count",
    ),
    "n_agreement_reliable": (
        "trials whose sparse human-pool agreement is within 0.05 of the dense one",
        "count",
    ),
    "sum_pairwise_overlap": (
        "sum over trials of the mean number of items shared by two secondaries",
        "items",
    ),
    "sum_agreement_estimate": ("sum of the sparse human-pool agreement over defined trials", "1"),
    "sum_agreement_estimate_sq": ("sum of its squares", "1"),
    "sum_agreement_reference": ("sum of the dense human-pool agreement over defined trials", "1"),
    "sum_agreement_error": ("sum of sparse minus dense human-pool agreement", "1"),
    "sum_agreement_error_sq": ("sum of its squares", "1"),
    "omega_hist": ("trials by number of comparisons the judge passes (omega * n_humans)", "count"),
    "sum_coverage": ("sum over trials of each secondary's share of the items", "1"),
}
"""long_name and units of every stored count and sum."""

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
    "shared_panel_rate": (
        "n_shared_panel",
        "n_trials",
        "share of trials whose secondaries labelled the same items",
    ),
    "agreement_reliability": (
        "n_agreement_reliable",
        "n_trials",
        "share of trials whose sparse human-pool agreement is within "
        "0.05 of the dense one (undefined estimates count as "
        "unreliable)",
    ),
}
"""Each binomial rate: ``(numerator count, denominator count, long name)``."""

DERIVED_ATTRS = {
    "mean_coverage": ("mean share of the items each secondary labels", "1"),
    "mean_pairwise_overlap": ("mean number of items two secondaries both label", "items"),
    "agreement_mean": ("mean sparse human-pool agreement", "1"),
    "agreement_reference_mean": ("mean dense human-pool agreement", "1"),
    "agreement_bias": ("mean of sparse minus dense human-pool agreement", "1"),
    "agreement_sd": ("standard deviation of the sparse human-pool agreement", "1"),
    "agreement_variance": ("variance of the sparse human-pool agreement", "1"),
    "agreement_error_sd": ("standard deviation of sparse minus dense human-pool agreement", "1"),
}
"""Means and spreads derived from the sums (NaN where nothing was defined)."""

PLOT_VARIABLES = (*RATE_ATTRS, *DERIVED_ATTRS)
"""Variables ``simcore plot`` can draw."""

SWEEP_ATTRS = {
    "p_judge": ("judge accuracy", "1"),
    "p_human": ("human accuracy", "1"),
    "n_items": ("items in the corpus", "count"),
    "n_humans": ("humans K", "count"),
    "n_labels": ("label categories L", "count"),
    "design": ("overlap design", ""),
    "rho": ("per-secondary coverage", "1"),
    "m": ("items per secondary", "count"),
    "margin": ("signed population margin S_j - S_h + eps (sets p_judge)", "1"),
    "skew": ("prevalence of label 0 (the others share the rest evenly)", "1"),
    "n_clusters": ("item clusters", "count"),
    "cluster_spread": ("half-width of the clusters' accuracy shift", "1"),
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


def _judge_accuracy_coordinate(scenario):
    """Return the judge accuracy each margin sets, as a coordinate.

    It lies along ``margin`` alone when the other swept dims do not change it (the usual
    case), else along every swept dim.
    """
    accuracy = np.empty(scenario.shape)
    for cell in scenario.cells():
        accuracy[cell.index] = cell.model.p_judge
    axis = scenario.dims.index("margin")
    along = np.moveaxis(accuracy, axis, 0).reshape(scenario.shape[axis], -1)
    attrs = {"long_name": "judge accuracy set by the margin", "units": "1"}
    if (along == along[:, :1]).all():
        return xr.Variable("margin", along[:, 0], attrs)
    return xr.Variable(scenario.dims, accuracy, attrs)


def _stored(name, dims, data):
    long_name, units = STORED_ATTRS[name]
    return xr.Variable(dims, data, {"long_name": long_name, "units": units})


def empty_cube(scenario):
    """Return the cube of ``scenario`` with every count and sum zero and no cell complete."""
    dims = scenario.dims
    shape = scenario.shape
    coords = {}
    for name, values in scenario.sweep:
        long_name, units = SWEEP_ATTRS[name]
        coords[name] = xr.Variable(name, list(values), {"long_name": long_name, "units": units})
    if "margin" in dims:
        coords["p_judge"] = _judge_accuracy_coordinate(scenario)
    max_humans = _max_humans(scenario)
    coords["omega"] = xr.Variable(
        "omega",
        np.arange(max_humans + 1),
        {"long_name": "comparisons passed (omega = value / n_humans)", "units": "count"},
    )
    coords["secondary"] = xr.Variable(
        "secondary",
        np.arange(1, max_humans),
        {"long_name": "secondary human (1 .. K - 1)", "units": "1"},
    )
    data_vars = {name: _stored(name, dims, np.zeros(shape, np.int64)) for name in COUNT_NAMES}
    data_vars.update({name: _stored(name, dims, np.zeros(shape)) for name in SUM_NAMES})
    data_vars["omega_hist"] = _stored(
        "omega_hist", (*dims, "omega"), np.zeros((*shape, max_humans + 1), np.int64)
    )
    data_vars["sum_coverage"] = _stored(
        "sum_coverage", (*dims, "secondary"), np.full((*shape, max_humans - 1), np.nan)
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


def _cell_values(index, counts):
    """``(variable, region, value)`` for every stored variable of one cell.

    The per-omega and per-secondary arrays fill only their first entries (cells with fewer
    humans than the largest K of the sweep leave the rest at 0 and NaN).
    """
    for name in (*COUNT_NAMES, *SUM_NAMES):
        yield name, index, counts[name]
    for name in ("omega_hist", "sum_coverage"):
        yield name, (*index, slice(0, len(counts[name]))), counts[name]


def put_cell(cube, index, counts):
    """Write one cell's counts into an in-memory cube and mark it complete."""
    for name, region, value in _cell_values(index, counts):
        cube[name].values[region] = value
    cube["cell_complete"].values[index] = True


def _ratio(numerator, denominator):
    denominator = denominator.astype(np.float64)
    return numerator / denominator.where(denominator > 0)


def with_rates(cube):
    """Return ``cube`` with every rate and derived statistic.

    Binomial rates (:data:`RATE_ATTRS`): ``rate = count / denominator`` and
    ``rate_se = sqrt(rate (1 - rate) / denominator)``. Agreement statistics over the ``n``
    trials with a defined estimate: mean ``S / n``; sample variance
    ``(S2 - S^2 / n) / (n - 1)``; bias the mean error; SDs the square roots. Everything is
    NaN where its denominator is 0 (or ``n < 2`` for spreads), which the attributes say.
    """
    cube = cube.copy()
    for name, (numerator, denominator, long_name) in RATE_ATTRS.items():
        rate = _ratio(cube[numerator], cube[denominator])
        se = np.sqrt(rate * (1 - rate) / cube[denominator].where(cube[denominator] > 0))
        note = f"{numerator} / {denominator}; NaN where {denominator} is 0"
        cube[name] = rate.assign_attrs(long_name=long_name, units="1", description=note)
        cube[f"{name}_se"] = se.assign_attrs(
            long_name=f"binomial standard error of the {long_name}",
            units="1",
            description=f"sqrt(rate (1 - rate) / {denominator}); NaN where {denominator} is 0",
        )
    trials = cube["n_trials"]
    defined = cube["n_agreement_defined"]

    def variance(total, squares):
        spread = cube[squares] - cube[total] ** 2 / defined.where(defined > 0)
        return (spread / (defined - 1).where(defined > 1)).clip(min=0)

    derived = {
        "mean_coverage": _ratio(cube["sum_coverage"], trials),
        "mean_pairwise_overlap": _ratio(cube["sum_pairwise_overlap"], trials),
        "agreement_mean": _ratio(cube["sum_agreement_estimate"], defined),
        "agreement_reference_mean": _ratio(cube["sum_agreement_reference"], defined),
        "agreement_bias": _ratio(cube["sum_agreement_error"], defined),
        "agreement_variance": variance("sum_agreement_estimate", "sum_agreement_estimate_sq"),
        "agreement_error_sd": np.sqrt(variance("sum_agreement_error", "sum_agreement_error_sq")),
    }
    derived["agreement_sd"] = np.sqrt(derived["agreement_variance"])
    for name, (long_name, units) in DERIVED_ATTRS.items():
        cube[name] = derived[name].assign_attrs(
            long_name=long_name,
            units=units,
            description="NaN where no trial (or, for spreads, fewer than two) defines it",
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
                cube.sizes[d] if d in ("omega", "secondary") else 1 for d in variable.dims
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


def write_whole(path, cube):
    """Write a finished cube in one go (temporary folder, then rename), consolidated."""
    path = Path(path)
    if path.exists():
        _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    cube.to_zarr(str(temporary), mode="w", consolidated=True, zarr_format=2)
    os.replace(temporary, path)


def write_cell(path, scenario, index, counts):
    """Write one finished cell's counts into the store; ``cell_complete`` is set last."""
    group = zarr.open_group(str(path), mode="r+")
    for name, region, value in _cell_values(index, counts):
        group[name][region] = value
    group["cell_complete"][index] = True


def derive(cube, scenario):
    """Return ``cube`` with rates, derived statistics and, for planning scenarios, the plan."""
    cube = with_rates(cube)
    if scenario.planning is not None:
        from simcore.planning import add_plan

        cube = add_plan(cube, scenario)
    return cube


def finalize(path, scenario):
    """Derive every statistic, mark the store complete and consolidate its metadata.

    Returns
    -------
    xarray.Dataset
        The finished cube, loaded in memory.
    """
    cube = xr.open_zarr(str(path), consolidated=False).load()
    if not bool(cube["cell_complete"].all()):
        raise RuntimeError(f"{path}: finalize called with unfinished cells")
    stored = set(cube.data_vars)
    cube = derive(cube, scenario)
    derived = cube[[name for name in cube.data_vars if name not in stored]].reset_coords(drop=True)
    derived.to_zarr(
        str(path),
        mode="a",
        encoding=_encoding(derived) if not _has(path, derived) else None,
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
