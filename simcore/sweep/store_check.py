"""A store's integrity: the cells' checksums, the seal of the finished cube, the checks.

Each cell's packed rows carry a checksum (``cell_checksum``) that covers the cell's
coordinates (each dimension's name, the cell's index along it and its value) and its
packed numbers, so a damaged chunk, an edited number or two cells' rows swapped with
their checksums all fail. When the run finishes, every named variable is written from the
packed rows and the finished cube is sealed: ``cell_final_checksum`` covers each cell's
coordinates and every named variable's values at it (counts and derived rates alike).
:func:`cell_problems` checks a loaded cube against all three (packed rows, named counts
against the packed rows, the seal) and names the damaged cells. Stores are of
:data:`CHECKSUM_VERSION`; older stores (whose checksum did not cover the coordinates) are
refused with a message saying to re-run with ``--overwrite``.
"""

import hashlib
import json

import numpy as np

from simcore.sweep.store_files import StoreError, read_attrs

CHECKSUM_VERSION = 2
"""The version of the cells' checksums, recorded in every store's ``checksum_version``."""

SEAL = "cell_final_checksum"
"""The variable that seals each cell of a finished cube."""


def packing_of(layout):
    """Return ``[(name, integer, shape), ...]``: how a cell's counts are packed, in order."""
    return [
        (variable.name, bool(variable.integer), tuple(int(n) for n in variable.shape))
        for variable in layout.variables
    ]


def packing_attr(layout):
    """Return the packing of ``layout`` as the JSON text stored in ``cell_packing``."""
    return json.dumps([[name, integer, list(shape)] for name, integer, shape in packing_of(layout)])


def packing_from_attr(text):
    """Return the packing recorded as ``cell_packing`` (see :func:`packing_attr`)."""
    return [(name, bool(integer), tuple(shape)) for name, integer, shape in json.loads(text)]


def unpack(ints, floats, packing, leading=()):
    """Return every variable's values from packed rows of shape ``(*leading, width)``."""
    arrays, position = {}, [0, 0]
    for name, integer, shape in packing:
        which = 0 if integer else 1
        size = int(np.prod(shape, dtype=np.int64))
        row = (ints, floats)[which]
        block = np.asarray(row[..., position[which] : position[which] + size])
        arrays[name] = block.reshape((*leading, *shape))
        position[which] += size
    return arrays


def canonical(value):
    """Return a coordinate value as stable text (numbers as floats, anything else as str)."""
    if isinstance(value, bool | int | float | np.number | np.bool_):
        return repr(float(value))
    return str(value)


def cell_label(dims, coords, index):
    """Return ``((dim, i, value), ...)`` of the cell at ``index``; ``coords`` per dim."""
    return tuple(
        (dim, int(i), coords[k][i]) for k, (dim, i) in enumerate(zip(dims, index, strict=True))
    )


def _digest(tag, cell):
    digest = hashlib.sha256(tag)
    for dim, i, value in cell:
        digest.update(f"{dim}={i}:{canonical(value)};".encode())
    return digest


def _signed(digest):
    return int.from_bytes(digest.digest()[:8], "little", signed=True)


def cell_checksum(ints, floats, cell):
    """Return the checksum of one cell's packed rows and its ``cell`` label."""
    digest = _digest(b"simcore cell v2;", cell)
    digest.update(np.ascontiguousarray(ints, np.int64).tobytes())
    digest.update(np.ascontiguousarray(floats, np.float64).tobytes())
    return _signed(digest)


def cell_dims(cube):
    """Return the cube's cell dimensions (those of ``cell_complete``)."""
    return tuple(cube["cell_complete"].dims)


def _named(cube):
    """Return the named variables of ``cube`` (everything but the store's bookkeeping), sorted."""
    return sorted(name for name in cube.data_vars if not str(name).startswith("cell_"))


def _per_cell(cube, name, dims):
    """Return variable ``name``'s values with the cell dims first (broadcast over them)."""
    variable = cube[name]
    if set(dims) - set(variable.dims):
        variable = variable.broadcast_like(cube["cell_complete"])
    return variable.transpose(*dims, ...).values


def seals(cube):
    """Return the seal of every cell of ``cube``: an int64 array over its cell dims."""
    dims = cell_dims(cube)
    coords = [cube[dim].values for dim in dims]
    values = [(name, _per_cell(cube, name, dims)) for name in _named(cube) if name != SEAL]
    out = np.zeros(cube["cell_complete"].shape, np.int64)
    for index in np.ndindex(*out.shape):
        digest = _digest(b"simcore seal v2;", cell_label(dims, coords, index))
        for name, array in values:
            cell = np.asarray(array[index])
            digest.update(f"{name}:{cell.dtype.str}:{cell.shape};".encode())
            digest.update(np.ascontiguousarray(cell).tobytes())
        out[index] = _signed(digest)
    return out


def sealed(cube):
    """Return ``cube`` with ``cell_final_checksum``, the seal of each finished cell."""
    cube[SEAL] = (
        cell_dims(cube),
        seals(cube),
        {
            "long_name": "checksum of the cell's coordinates and every named variable's "
            "values at it (detects damaged or edited results)",
            "units": "1",
        },
    )
    return cube


def _checks(cube, index, dims, coords, checksums):
    ints = cube["cell_ints"].values[index]
    floats = cube["cell_floats"].values[index]
    label = cell_label(dims, coords, index)
    return cell_checksum(ints, floats, label) == int(checksums[index])


def _counts_mismatch(cube, packing, dims):
    """Boolean array over the cells: a named variable disagrees with the packed rows."""
    shape = cube["cell_complete"].shape
    arrays = unpack(cube["cell_ints"].values, cube["cell_floats"].values, packing, shape)
    wrong = np.zeros(shape, bool)
    for name, integer, _ in packing:
        if name not in cube:
            return np.ones(shape, bool)
        stored = _per_cell(cube, name, dims)
        if stored.shape != arrays[name].shape:
            return np.ones(shape, bool)
        same = stored == arrays[name]
        if not integer:
            same |= np.isnan(stored) & np.isnan(arrays[name])
        wrong |= ~same.reshape((*shape, -1)).all(axis=-1)
    return wrong


def cell_problems(cube, finished=True):
    """Return ``{cell index: what is wrong}`` for every damaged cell of a loaded cube.

    Complete cells whose packed rows fail their checksum (which covers the coordinates);
    with ``finished``, also cells whose named counts disagree with the packed rows and
    cells whose seal fails (any named variable damaged or edited), and every cell when a
    variable is missing.
    """
    dims = cell_dims(cube)
    coords = [cube[dim].values for dim in dims]
    complete = cube["cell_complete"].values
    checksums = cube["cell_checksum"].values
    problems = {}
    for index in np.ndindex(*complete.shape):
        if complete[index] and not _checks(cube, index, dims, coords, checksums):
            problems[index] = "its packed counts fail their checksum"
    if not finished:
        return problems
    packing = packing_from_attr(cube.attrs.get("cell_packing", "[]"))
    wrong = _counts_mismatch(cube, packing, dims)
    stored_seals = cube[SEAL].values if SEAL in cube else None
    fresh = seals(cube)
    for index in np.ndindex(*complete.shape):
        if index in problems:
            continue
        if wrong[index]:
            problems[index] = "its named counts disagree with its packed counts"
        elif stored_seals is None or int(stored_seals[index]) != int(fresh[index]):
            problems[index] = "its results fail their checksum"
    return problems


def load_checked(path):
    """Open the store at ``path`` in memory; return ``(cube, unreadable variable names)``.

    A variable whose chunks cannot be read or decoded is replaced by its fill (so its
    cells fail their checks) and named.
    """
    import xarray as xr

    cube = xr.open_zarr(str(path), chunks=None, consolidated=False)
    unreadable = []
    for name in list(cube.variables):
        try:
            cube[name].load()
        except Exception:  # a chunk that cannot be read or decoded
            unreadable.append(name)
            fill = np.zeros(cube[name].shape, cube[name].dtype)
            if cube[name].dtype.kind == "f":
                fill[...] = np.nan
            cube[name] = cube[name].copy(data=fill)
    return cube.load(), unreadable


def check_version(path, attrs):
    """Refuse a store whose checksums are of an older simcore (they miss the coordinates)."""
    version = attrs.get("checksum_version", 1)
    if version != CHECKSUM_VERSION:
        raise StoreError(
            f"{path}: checksum_version: written by an older simcore (got {version}, whose "
            "checksums do not cover the cells' coordinates); re-run its scenario with "
            "--overwrite to rewrite it"
        )


def checked_store(path):
    """Open a finished store and check every cell; return ``(cube, {index: problem})``.

    Raises
    ------
    StoreError
        When ``path`` holds no simcore store, an unfinished one, or one of an older
        checksum version.
    """
    attrs = read_attrs(path)
    if attrs is None or "scenario_hash" not in attrs:
        raise StoreError(f"{path}: no simcore store there")
    check_version(path, attrs)
    if not attrs.get("complete"):
        raise StoreError(
            f"{path}: the run is unfinished; re-run the same scenario into it to resume "
            "(resuming checks every cell)"
        )
    try:
        cube, unreadable = load_checked(path)
    except Exception as error:  # metadata that cannot be read
        raise StoreError(
            f"{path}: the store is damaged ({error}); re-run its scenario into it to repair it"
        ) from None
    problems = cell_problems(cube)
    for name in unreadable:
        for index in np.ndindex(*cube["cell_complete"].shape):
            problems.setdefault(index, f"variable {name} cannot be read")
    return cube, dict(sorted(problems.items()))


def describe_cell(cube, index):
    """Return ``{"index": [...], dim: value, ...}`` naming the cell at ``index``."""
    dims = cell_dims(cube)
    named = {dim: cube[dim].values[i].item() for dim, i in zip(dims, index, strict=True)}
    return {"index": [int(i) for i in index], **named}
