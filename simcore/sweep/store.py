"""The zarr store of any study: cells packed as they finish, checked, resumed, finalised.

A store is created with four run variables over the sweep's dims: each cell's integer
counts and float sums packed into one row each (``cell_ints``, ``cell_floats``), a checksum
of the two rows and a completion flag. Cells are packed many to a chunk (a block of the
grid of about :data:`CHUNK_BYTES`), so a store's files grow with its chunks, not its cells.
Finished cells are gathered and written a block at a time
(:class:`~simcore.sweep.cell_writer.CellWriter`); a store whose ``complete`` attribute is
false is unfinished and can be resumed (complete cells whose rows match their checksum
are kept, damaged ones recomputed) or extended with more trials (the new trials' packed
rows are added to the stored ones).
Finalising unpacks the rows into the study's named variables, asks the study to derive
its rates, writes them, sets ``complete`` and consolidates the metadata, so that
``xarray.open_zarr`` opens the cube in one call. What a cell holds comes from the study's
:class:`~simcore.studies.protocol.Layout`; nothing here depends on the kind of study.
"""

import datetime
import errno
from pathlib import Path

import numpy as np
import xarray as xr
import zarr

from simcore.sweep import store_meta
from simcore.sweep.store_check import (
    CHECKSUM_VERSION,
    STORE_FORMAT,
    cell_checksum,
    cell_checksums,
    cell_label,
    cell_problems,
    check_version,
    load_checked,
    packing_attr,
    packing_of,
    read_chunks,
    run_identity,
    sealed,
    unpack,
)
from simcore.sweep.store_files import (
    StoreError,
    checked_destination,
    create_store,
    read_attrs,
    remove_arrays,
    remove_stale_creations,
    remove_store,
    writer_lock,
)
from simcore.sweep.store_layout import (
    RUN_VARIABLE_ATTRS,
    RUN_VARIABLES,
    packed_widths,
    store_chunks,
)
from simcore.sweep.store_trials import refuse_fewer_trials

__all__ = [
    "cell_label_at",
    "checked_destination",
    "damaged_cells",
    "empty_cube",
    "finalize",
    "finished_cube",
    "full_disk",
    "pack_counts",
    "prepare",
    "put_cell",
    "read_attrs",
    "scenario_identity",
    "sealed",
    "StoreError",
    "sweep_values",
    "writer_lock",
]


def _versions():
    from simcore._version import __version__
    from simcore.engine.threads import numba_version

    return {
        "simcore_version": __version__,
        "numba_version": numba_version(),
        "numpy_version": np.__version__,
        "xarray_version": xr.__version__,
        "zarr_version": zarr.__version__,
    }


def _blank(variable, shape):
    if variable.integer:
        return np.zeros(shape, np.int64)
    return np.full(shape, np.nan)


def _run_variables(layout):
    dims, shape = layout.dims, layout.shape
    n_ints, n_floats = packed_widths(layout)
    values = {
        "cell_ints": ((*dims, "packed_int"), np.zeros((*shape, n_ints), np.int64)),
        "cell_floats": ((*dims, "packed_float"), np.zeros((*shape, n_floats))),
        "cell_checksum": (dims, np.zeros(shape, np.int64)),
        "cell_complete": (dims, np.zeros(shape, bool)),
    }
    return {
        name: xr.Variable(*values[name], dict(RUN_VARIABLE_ATTRS[name])) for name in RUN_VARIABLES
    }


def scenario_identity(scenario, layout):
    """Return :func:`~simcore.sweep.store_check.run_identity` of a run of ``scenario``."""
    attrs = {"scenario_hash": scenario.content_hash(), "root_seed": int(scenario.seed)}
    return run_identity({**attrs, **layout.attrs})


def empty_cube(scenario, layout):
    """Return the cube of ``scenario`` with every count zero, every sum NaN, no cell done."""
    dims, shape = layout.dims, layout.shape
    coords = {
        dim: xr.Variable(dim, list(values), {"long_name": long_name, "units": units})
        for dim, values, long_name, units in layout.sweep
    }
    coords.update(layout.coords)
    data_vars = {
        variable.name: xr.Variable(
            (*dims, *variable.extra_dims),
            _blank(variable, (*shape, *variable.shape)),
            {"long_name": variable.long_name, "units": variable.units},
        )
        for variable in layout.variables
    }
    data_vars.update(_run_variables(layout))
    attrs = {
        "title": scenario.name or Path(scenario.source).stem,
        "kind": scenario.kind,
        "scenario": scenario.to_yaml(),
        "scenario_source": str(scenario.source),
        "scenario_hash": scenario.content_hash(),
        "root_seed": int(scenario.seed),
        "trials": int(scenario.trials),
        **layout.attrs,
        # to the microsecond: a figure tells a store from the one that replaced it by it
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds"),
        "complete": 0,
        "store_format": STORE_FORMAT,
        "checksum_version": CHECKSUM_VERSION,
        "cell_packing": packing_attr(layout),
        **_versions(),
    }
    return xr.Dataset(data_vars, coords, attrs)


def pack_counts(counts, layout):
    """Flatten one cell's counts into an int64 and a float64 row of fixed width.

    A value smaller than its variable's per-cell shape fills the first entries; the rest
    are 0 (integers) or NaN (floats).
    """
    rows = ([], [])
    for variable in layout.variables:
        padded = _blank(variable, variable.shape)
        value = np.asarray(counts[variable.name])
        padded[tuple(slice(0, size) for size in value.shape)] = value
        rows[0 if variable.integer else 1].append(padded.ravel())
    ints = np.concatenate(rows[0]) if rows[0] else np.zeros(0, np.int64)
    floats = np.concatenate(rows[1]) if rows[1] else np.zeros(0)
    return ints, floats


def _unpack(ints, floats, layout, leading=()):
    """Return every variable's values from packed rows of shape ``(*leading, width)``."""
    return unpack(ints, floats, packing_of(layout), leading)


def sweep_values(layout):
    """Return each sweep dimension's values, as lists (what a cell's label reads)."""
    return [list(values) for _, values, *_ in layout.sweep]


def cell_label_at(layout, index, values=None):
    """Return the cell at ``index`` as its checksum sees it (dims, indices and values)."""
    return cell_label(layout.dims, values or sweep_values(layout), index)


def put_cell(cube, layout, index, counts, values=None):
    """Write one cell's packed rows into an in-memory cube and mark it complete.

    The named variables are filled from the packed rows once every cell is in
    (:func:`finished_cube`); ``values`` are the sweep's values (:func:`sweep_values`),
    passed by a caller that writes many cells.
    """
    ints, floats = pack_counts(counts, layout)
    run = {name: cube.variables[name].values for name in RUN_VARIABLES}
    run["cell_ints"][index] = ints
    run["cell_floats"][index] = floats
    label = cell_label_at(layout, index, values)
    run["cell_checksum"][index] = cell_checksum(ints, floats, label, run_identity(cube.attrs))
    run["cell_complete"][index] = True


def prepare(path, scenario, overwrite=False, layout=None, report=None):
    """Make ``path`` ready for ``scenario``; return the trials already done per cell.

    A missing store is created (in a temporary folder, then renamed, so that no
    half-created store is left). A store of the same scenario (same hash) is resumed: every
    complete cell whose stored counts still match their checksum keeps its trials (a cell
    whose chunks are missing or damaged is reported and recomputed); a cell holding more
    trials than ``scenario`` asks is refused, the store untouched (a store is never
    shrunk). Anything else at ``path`` is refused unless ``overwrite``.

    Parameters
    ----------
    path : str or pathlib.Path
        The store.
    scenario : object
        A parsed scenario of any kind.
    overwrite : bool
        Replace whatever ``path`` holds.
    layout : simcore.studies.protocol.Layout, optional
        The cube's layout (by default asked of the scenario's study).
    report : callable, optional
        ``report(line)`` is told each repair of the store's own files and attributes
        (:func:`simcore.sweep.store_meta.repair`), before its cells are checked.

    Returns
    -------
    tuple
        ``(done, damaged)``: ``{cell index: trials stored}`` for the cells that can be kept
        (or extended), and the indices of damaged cells.

    Raises
    ------
    StoreError
        When ``path`` holds something other than this scenario's store, or a cell with
        more trials than asked.
    """
    path = Path(path)
    if layout is None:
        from simcore.studies import study_of

        study = study_of(scenario)
        layout = study.layout(scenario, study.context(scenario))
    checked_destination(path)
    remove_stale_creations(path)
    if path.is_dir() and not any(path.iterdir()):
        path.rmdir()  # an empty folder is no store: create the store in its place
    if path.exists():
        attrs = read_attrs(path)
        if attrs and "scenario_hash" in attrs and not overwrite:
            check_version(path, attrs)  # another simcore's store: remade, never resumed
        same = store_meta.same_run(attrs, scenario, layout)
        if not same and not overwrite:
            raise StoreError(
                f"{path}: holds {store_meta.what_is_there(attrs, scenario, layout)} "
                f"({attrs.get('title') if attrs else '-'}); "
                "use --overwrite to replace it or --out for another store"
            )
        if same and not overwrite:
            for note in store_meta.repair(
                path, scenario, layout, store_meta.derived_attrs(scenario, layout)
            ):
                (report or (lambda line: None))(note)
            identity = scenario_identity(scenario, layout)
            finished = bool(attrs.get("complete"))
            done, damaged = _verified_cells(path, layout, finished, identity)
            refuse_fewer_trials(path, done, scenario.trials)  # never shrink: touch nothing
            if len(done) < int(np.prod(layout.shape, dtype=np.int64)) or any(
                trials != scenario.trials for trials in done.values()
            ):
                _mark_unfinished(path)
            return done, damaged
        remove_store(path)
    cube = empty_cube(scenario, layout)[RUN_VARIABLES]
    create_store(path, cube, _encoding(cube, store_chunks(layout)))
    return {}, []


def _verified_cells(path, layout, finished, identity):
    """Complete cells whose stored counts match their checksum, and the damaged ones.

    The run variables are read whole; if that fails (a damaged chunk) they are read chunk
    by chunk, so that only the cells a damaged chunk spoils are recomputed (a cell whose
    completion flag cannot be read is not complete). The checksum covers the run
    (``identity``: :func:`scenario_identity`) and the cell's coordinates as the scenario
    gives them. A ``finished`` store's named variables are checked too
    (:func:`~simcore.sweep.store_check.cell_problems`).
    """
    group = zarr.open_group(str(path), mode="r", use_consolidated=False)
    complete, _ = read_chunks(group["cell_complete"], False)
    checksums, sums_read = read_chunks(group["cell_checksum"], 0)
    ints, ints_read = read_chunks(group["cell_ints"], 0)
    floats, floats_read = read_chunks(group["cell_floats"], 0)
    fresh = cell_checksums(ints, floats, layout.dims, sweep_values(layout), identity)
    readable = sums_read & ints_read.all(axis=-1) & floats_read.all(axis=-1)
    good = complete & readable & (fresh == checksums)
    done = {tuple(int(i) for i in index): int(ints[tuple(index)][0]) for index in np.argwhere(good)}
    damaged = [tuple(int(i) for i in index) for index in np.argwhere(complete & ~good)]
    if finished:
        damaged += [tuple(int(i) for i in index) for index in np.argwhere(~complete)]
        for index in _finished_problems(path, done, identity):
            del done[index]
            damaged.append(index)
    return done, sorted(damaged)


def _finished_problems(path, done, identity):
    """Return the cells of ``done`` whose named variables fail their checks.

    Every cell when the metadata cannot be read (a rerun repairs it first: see
    :func:`prepare`); the cells an unreadable chunk holds.
    """
    try:
        cube, spoiled = load_checked(path)
        problems = cell_problems(cube, identity=identity)
    except Exception:  # metadata that cannot be read: every cell's results are suspect
        return sorted(done)
    for mask in spoiled.values():
        problems.update({tuple(int(i) for i in index): "" for index in np.argwhere(mask)})
    return [index for index in sorted(problems) if index in done]


def _mark_unfinished(path):
    """Set ``complete`` to 0 before anything is rewritten.

    The consolidated metadata is removed first (it would still say complete); the store
    is consolidated again when it is finished.
    """
    (Path(path) / ".zmetadata").unlink(missing_ok=True)
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    group.attrs["complete"] = 0


def _encoding(cube, chunks):
    """Return the chunking of every variable: ``chunks`` along the sweep dims, else whole.

    ``chunks`` is ``{sweep dim: cells per chunk}`` (:func:`store_chunks`), the same for the
    run variables and the named ones, so a block of cells is one chunk of each variable.
    """
    return {
        name: {"chunks": tuple(chunks.get(d, cube.sizes[d]) for d in variable.dims)}
        for name, variable in cube.variables.items()
        if name not in cube.dims
    }


def _stored_chunks(group):
    """Return ``{sweep dim: chunk size}`` of an existing store (its ``cell_complete``)."""
    complete = group["cell_complete"]
    dims = complete.attrs.get("_ARRAY_DIMENSIONS", [])
    return dict(zip(dims, complete.chunks, strict=True))


def finished_cube(cube, layout):
    """Fill the named variables of ``cube`` from its packed rows (every cell complete)."""
    ints, floats = cube["cell_ints"].values, cube["cell_floats"].values
    for name, values in _unpack(ints, floats, layout, layout.shape).items():
        cube[name].values[...] = values
    return cube


def finalize(path, scenario, layout, derive):
    """Unpack the cells, derive every statistic, seal, mark the store complete, consolidate.

    ``derive(cube) -> cube`` is the study's. The store is marked unfinished first, every
    variable finalisation writes is removed (whatever an earlier, killed finalisation left
    of it) and written anew, and only then is ``complete`` set and the metadata
    consolidated: a kill or a full disk at any write leaves a store that the same command
    resumes, and finalising again gives the same store.

    Returns
    -------
    xarray.Dataset
        The finished cube, loaded in memory.
    """
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    complete = np.asarray(group["cell_complete"][...])
    if not complete.all():
        raise RuntimeError(f"{path}: finalize called with unfinished cells")
    cube = empty_cube(scenario, layout)
    cube.attrs.update(
        {**dict(group.attrs), **store_meta.derived_attrs(scenario, layout), **layout.attrs}
    )
    for name in RUN_VARIABLES:
        cube[name].values[...] = np.asarray(group[name][...])
    cube = sealed(derive(finished_cube(cube, layout)))
    kept = set(cube[RUN_VARIABLES].variables)
    chunks = _stored_chunks(group)
    _mark_unfinished(path)
    remove_arrays(path, [name for name in cube.variables if name not in kept])
    written = cube[[name for name in cube.data_vars if name not in RUN_VARIABLES]]
    encoding = {
        name: value for name, value in _encoding(written, chunks).items() if name not in kept
    }
    written.to_zarr(str(path), mode="a", consolidated=False, encoding=encoding)
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    group.attrs.update(
        {
            **{key: value for key, value in cube.attrs.items() if key not in group.attrs},
            **store_meta.derived_attrs(scenario, layout),
            "complete": 1,
            "trials": int(scenario.trials),
            "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
    )
    zarr.consolidate_metadata(str(path))
    cube.attrs.update(dict(group.attrs))
    return cube


def full_disk(error):
    """Whether ``error`` is a full disk or an exhausted quota."""
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def damaged_cells(cube):
    """Return the indices of a loaded cube's cells that fail their checks.

    See :func:`~simcore.sweep.store_check.cell_problems` (a finished cube's named
    variables are checked against the packed rows and the seal).
    """
    if "cell_ints" not in cube:
        return []
    return sorted(cell_problems(cube, finished=bool(cube.attrs.get("complete"))))
