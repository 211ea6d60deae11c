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
import itertools
import json

import numpy as np

from simcore.sweep.store_files import StoreError, read_attrs

CHECKSUM_VERSION = 2
"""The version of the cells' checksums, recorded in every store's ``checksum_version``."""

SEAL = "cell_final_checksum"
"""The variable that seals each cell of a finished cube."""

CELL_TAG = b"simcore cell v2;"
SEAL_TAG = b"simcore seal v2;"

BLOCK_CELLS = 16_384
"""Cells hashed per block by :func:`cell_checksums` and :func:`seals` (bounds their memory)."""


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


def _label_text(dim, i, value):
    return f"{dim}={i}:{canonical(value)};".encode()


def _digest(tag, cell):
    digest = hashlib.sha256(tag)
    for dim, i, value in cell:
        digest.update(_label_text(dim, i, value))
    return digest


def _signed(digest):
    return int.from_bytes(digest.digest()[:8], "little", signed=True)


def cell_checksum(ints, floats, cell):
    """Return the checksum of one cell's packed rows and its ``cell`` label.

    The first 8 bytes, as a signed little-endian integer, of
    ``SHA-256(tag || label || ints || floats)``, the label being ``dim=i:value;`` for each
    dimension (:func:`cell_label`) and the rows their int64 and float64 bytes.
    """
    digest = _digest(CELL_TAG, cell)
    digest.update(np.ascontiguousarray(ints, np.int64).tobytes())
    digest.update(np.ascontiguousarray(floats, np.float64).tobytes())
    return _signed(digest)


def _labels(dims, coords):
    """Yield every cell's label bytes, in C order (what :func:`_digest` hashes first)."""
    parts = [
        [_label_text(dim, i, value) for i, value in enumerate(values)]
        for dim, values in zip(dims, coords, strict=True)
    ]
    for pieces in itertools.product(*parts):
        yield b"".join(pieces)


def _as_rows(array, n_cells):
    """Return ``array`` (cells first) as an ``(n_cells, bytes)`` uint8 matrix of its bytes."""
    flat = np.ascontiguousarray(array).reshape(n_cells, -1)
    return flat.view(np.uint8).reshape(n_cells, -1)


def _hashed(tag, dims, coords, shape, blocks):
    """Return the digests over the grid ``shape``: ``tag``, each cell's label, its bytes.

    ``blocks(start, stop)`` returns the uint8 rows of cells ``range(start, stop)`` (C order);
    the same digests as hashing each cell in turn (:func:`cell_checksum`, :func:`seals`).
    """
    n_cells = int(np.prod(shape, dtype=np.int64))
    out = np.zeros(n_cells, np.int64)
    labels = _labels(dims, coords)
    for start in range(0, n_cells, BLOCK_CELLS):
        stop = min(n_cells, start + BLOCK_CELLS)
        rows = blocks(start, stop)
        for k, label in zip(range(start, stop), labels, strict=False):
            out[k] = _signed(hashlib.sha256(tag + label + rows[k - start].tobytes()))
    return out.reshape(shape)


def cell_checksums(ints, floats, dims, coords):
    """Return :func:`cell_checksum` of every cell of packed rows ``(*grid, width)``."""
    shape = ints.shape[:-1]
    n_cells = int(np.prod(shape, dtype=np.int64))
    ints = np.asarray(ints, np.int64).reshape(n_cells, -1)
    floats = np.asarray(floats, np.float64).reshape(n_cells, -1)

    def blocks(start, stop):
        return np.concatenate(
            [_as_rows(ints[start:stop], stop - start), _as_rows(floats[start:stop], stop - start)],
            axis=1,
        )

    return _hashed(CELL_TAG, dims, coords, shape, blocks)


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
    """Return the seal of every cell of ``cube``: an int64 array over its cell dims.

    A cell's seal is the first 8 bytes of ``SHA-256(tag || label || ...)``, where for each
    named variable (sorted by name) ``...`` is ``name:dtype:shape;`` and the variable's
    bytes at the cell.
    """
    dims = cell_dims(cube)
    shape = cube["cell_complete"].shape
    coords = [cube[dim].values for dim in dims]
    n_cells = int(np.prod(shape, dtype=np.int64))
    values = []
    for name in _named(cube):
        if name == SEAL:
            continue
        array = np.asarray(_per_cell(cube, name, dims))
        header = f"{name}:{array.dtype.str}:{array.shape[len(dims) :]};".encode()
        values.append((np.frombuffer(header, np.uint8), array.reshape(n_cells, -1)))

    def blocks(start, stop):
        parts = []
        for header, array in values:
            parts.append(np.broadcast_to(header, (stop - start, header.size)))
            parts.append(_as_rows(array[start:stop], stop - start))
        return np.concatenate(parts, axis=1) if parts else np.zeros((stop - start, 0), np.uint8)

    return _hashed(SEAL_TAG, dims, coords, shape, blocks)


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
    fresh = cell_checksums(cube["cell_ints"].values, cube["cell_floats"].values, dims, coords)
    failing = complete & (fresh != checksums)
    problems = {
        tuple(int(i) for i in index): "its packed counts fail their checksum"
        for index in np.argwhere(failing)
    }
    if not finished:
        return problems
    packing = packing_from_attr(cube.attrs.get("cell_packing", "[]"))
    wrong = _counts_mismatch(cube, packing, dims)
    stored_seals = cube[SEAL].values if SEAL in cube else None
    unsealed = np.ones(complete.shape, bool)
    if stored_seals is not None:
        unsealed = stored_seals != seals(cube)
    for index in np.argwhere(wrong | unsealed):
        index = tuple(int(i) for i in index)
        if index in problems:
            continue
        if wrong[index]:
            problems[index] = "its named counts disagree with its packed counts"
        else:
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


def checked_store(path, unfinished=False):
    """Open a store and check every cell; return ``(cube, {index: problem})``.

    A finished store's cells are checked in full (:func:`cell_problems`). With
    ``unfinished``, a store whose run is under way or was interrupted is checked too: its
    complete cells' packed counts against their checksums (the named variables are not
    written yet).

    Raises
    ------
    StoreError
        When ``path`` holds no simcore store, one of an older checksum version, or (without
        ``unfinished``) an unfinished one.
    """
    attrs = read_attrs(path)
    if attrs is None or "scenario_hash" not in attrs:
        raise StoreError(f"{path}: no simcore store there")
    check_version(path, attrs)
    finished = bool(attrs.get("complete"))
    if not finished and not unfinished:
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
    problems = cell_problems(cube, finished=finished)
    complete = cube["cell_complete"].values
    for name in unreadable:
        if not finished and not str(name).startswith("cell_"):
            continue  # an unfinished store's named variables are rewritten when it finishes
        for index in np.ndindex(*complete.shape):
            if finished or complete[index] or name == "cell_complete":
                problems.setdefault(index, f"variable {name} cannot be read")
    return cube, dict(sorted(problems.items()))


def describe_cell(cube, index):
    """Return ``{"index": [...], dim: value, ...}`` naming the cell at ``index``."""
    dims = cell_dims(cube)
    named = {dim: cube[dim].values[i].item() for dim, i in zip(dims, index, strict=True)}
    return {"index": [int(i) for i in index], **named}
