"""A store's integrity: the cells' checksums, the seal of the finished cube, the checks.

Each cell's packed rows carry a checksum (``cell_checksum``) that covers the run (its
scenario's hash, root seed and data fingerprint: :func:`run_identity`), the cell's
coordinates (each dimension's name, the cell's index along it and its value) and its
packed numbers, so a damaged chunk, an edited number, two cells' rows swapped with their
checksums, or chunks copied in from another run of the same grid all fail. When the run
finishes, every named variable is written from the packed rows and the finished cube is
sealed: ``cell_final_checksum`` covers each cell's run, its coordinates and every named
variable's values at it (counts and derived rates alike). :func:`cell_problems` checks a
loaded cube against all three (packed rows, named counts against the packed rows, the
seal) and names the damaged cells; a chunk that cannot be read damages only the cells it
holds (:func:`load_checked`). Stores are of :data:`STORE_FORMAT` and
:data:`CHECKSUM_VERSION`; a store of another format or checksum version is refused
wherever it is opened (:func:`check_version`), with the command that remakes it. The
store's files and root attributes are checked by :mod:`simcore.sweep.store_meta`.
"""

import hashlib
import itertools
import json
import shlex

import numpy as np

from simcore.sweep.store_files import StoreError

STORE_FORMAT = 2
"""The version of the store's format, recorded in every store's ``store_format``: what a
store holds and how (its attributes, the scenario text and hash, the variables); a store
of another format is refused, never read, resumed or extended."""

CHECKSUM_VERSION = 3
"""The version of the cells' checksums, recorded in every store's ``checksum_version``."""

SEAL = "cell_final_checksum"
"""The variable that seals each cell of a finished cube."""

CELL_TAG = b"simcore cell v3;"
SEAL_TAG = b"simcore seal v3;"

IDENTITY_KEYS = ("scenario_hash", "root_seed", "data_sha256")
"""The attributes that name a run: every cell's checksum and seal cover them."""

BLOCK_CELLS = 16_384
"""Cells hashed per block by :func:`cell_checksums` and :func:`seals` (bounds their memory)."""


def run_identity(attrs):
    """Return the bytes naming the run of a store with attributes ``attrs``.

    ``scenario_hash`` (which covers the seed and every setting that decides the numbers),
    ``root_seed`` and, for real data, ``data_sha256``: the JSON list of their text, absent
    ones empty. Chunks copied in from another run (another seed or scenario on the same
    grid, or the same scenario on other data) fail their checksums.
    """
    return json.dumps([_identity_text(attrs.get(key)) for key in IDENTITY_KEYS]).encode()


def _identity_text(value):
    if value is None:
        return ""
    if isinstance(value, bool | int | np.integer):
        return str(int(value))
    return str(value)


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


def _digest(tag, cell, identity):
    digest = hashlib.sha256(tag + identity + b";")
    for dim, i, value in cell:
        digest.update(_label_text(dim, i, value))
    return digest


def _signed(digest):
    return int.from_bytes(digest.digest()[:8], "little", signed=True)


def cell_checksum(ints, floats, cell, identity):
    """Return the checksum of one cell's packed rows, its ``cell`` label and its run.

    The first 8 bytes, as a signed little-endian integer, of
    ``SHA-256(tag || identity || ";" || label || ints || floats)``, ``identity`` being
    :func:`run_identity`, the label ``dim=i:value;`` for each dimension
    (:func:`cell_label`) and the rows their int64 and float64 bytes.
    """
    digest = _digest(CELL_TAG, cell, identity)
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

    ``tag`` ends with the run's identity and ``;`` (:func:`_digest`).

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


def cell_checksums(ints, floats, dims, coords, identity):
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

    return _hashed(CELL_TAG + identity + b";", dims, coords, shape, blocks)


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


def seals(cube, identity=None):
    """Return the seal of every cell of ``cube``: an int64 array over its cell dims.

    A cell's seal is the first 8 bytes of ``SHA-256(tag || identity || ";" || label ||
    ...)``, where for each named variable (sorted by name) ``...`` is
    ``name:dtype:shape;`` and the variable's bytes at the cell; ``identity`` is
    :func:`run_identity` (by default of the cube's attributes).
    """
    if identity is None:
        identity = run_identity(cube.attrs)
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

    return _hashed(SEAL_TAG + identity + b";", dims, coords, shape, blocks)


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


def _packing(cube):
    """Return the cube's ``cell_packing`` if it fits its packed rows, else what is wrong."""
    try:
        packing = packing_from_attr(cube.attrs.get("cell_packing"))
    except (TypeError, ValueError) as error:
        return f"attribute cell_packing: cannot be read ({error})"
    widths = [0, 0]
    for _, integer, shape in packing:
        widths[0 if integer else 1] += int(np.prod(shape, dtype=np.int64))
    found = [cube["cell_ints"].shape[-1], cube["cell_floats"].shape[-1]]
    if widths != found:
        return (
            f"attribute cell_packing: packs {widths[0]} integers and {widths[1]} floats per "
            f"cell, the store's rows hold {found[0]} and {found[1]}"
        )
    return packing


def cell_problems(cube, finished=True, identity=None):
    """Return ``{cell index: what is wrong}`` for every damaged cell of a loaded cube.

    Complete cells whose packed rows fail their checksum (which covers the run, given by
    ``identity`` or the cube's attributes, and the coordinates); with ``finished``, also
    cells not marked complete, cells whose named counts disagree with the packed rows and
    cells whose seal fails (any named variable damaged or edited), and every cell when a
    variable is missing. A ``cell_packing`` that does not unpack the rows
    (:func:`packing_problem`) is the store's problem, not the cells'.
    """
    identity = run_identity(cube.attrs) if identity is None else identity
    dims = cell_dims(cube)
    coords = [cube[dim].values for dim in dims]
    complete = cube["cell_complete"].values
    ints, floats = cube["cell_ints"].values, cube["cell_floats"].values
    failing = complete & (
        cell_checksums(ints, floats, dims, coords, identity) != cube["cell_checksum"].values
    )
    problems = {
        tuple(int(i) for i in index): "its packed counts fail their checksum"
        for index in np.argwhere(failing)
    }
    if not finished:
        return problems
    unsealed = np.ones(complete.shape, bool)
    if SEAL in cube:
        unsealed = cube[SEAL].values != seals(cube, identity)
    wrong = _wrong_counts(cube, dims, complete & ~failing & ~unsealed)
    for index in np.argwhere(~complete | wrong | unsealed):
        index = tuple(int(i) for i in index)
        if index in problems:
            continue
        if not complete[index]:
            problems[index] = "its completion flag is unset (a chunk of cell_complete lost)"
        elif wrong[index]:
            problems[index] = "its named counts disagree with its packed counts"
        else:
            problems[index] = "its results fail their checksum"
    return problems


def _wrong_counts(cube, dims, sound):
    """Cells whose named counts disagree with their packed rows, under a sound packing.

    When the packing cannot be read, or every ``sound`` cell (packed rows and seal
    intact) disagrees, the packing is what is wrong (:func:`packing_problem`): no cell is.
    """
    packing = _packing(cube)
    if isinstance(packing, str):
        return np.zeros(sound.shape, bool)
    wrong = _counts_mismatch(cube, packing, dims)
    if sound.any() and wrong[sound].all():
        return wrong & ~sound
    return wrong


def packing_problem(cube):
    """Return what is wrong with a finished cube's ``cell_packing``, or None.

    It must be readable, fit the packed rows' widths and unpack the rows into the named
    counts: when every cell whose packed rows and seal are intact disagrees, the packing
    was edited.
    """
    packing = _packing(cube)
    if isinstance(packing, str):
        return packing
    dims = cell_dims(cube)
    identity = run_identity(cube.attrs)
    coords = [cube[dim].values for dim in dims]
    ints, floats = cube["cell_ints"].values, cube["cell_floats"].values
    sound = cube["cell_complete"].values & (
        cell_checksums(ints, floats, dims, coords, identity) == cube["cell_checksum"].values
    )
    if SEAL in cube:
        sound &= cube[SEAL].values == seals(cube, identity)
    if sound.any() and _counts_mismatch(cube, packing, dims)[sound].all():
        return (
            "attribute cell_packing: does not unpack the cells' rows into their named counts "
            "(edited)"
        )
    return None


def read_chunks(array, fill):
    """Return ``(values, readable)`` of a zarr array: chunks that cannot be read are ``fill``.

    The array is read whole; if that fails (a damaged chunk) it is read a chunk at a time,
    and ``readable`` (over the array) is False on the chunks that fail.
    """
    try:
        return np.asarray(array[...]), np.ones(array.shape, bool)
    except Exception:  # damaged somewhere: read chunk by chunk
        pass
    values = np.full(array.shape, fill, array.dtype)
    readable = np.ones(array.shape, bool)
    grid = [range(0, size, chunk) for size, chunk in zip(array.shape, array.chunks, strict=True)]
    for starts in itertools.product(*grid):
        region = tuple(
            slice(start, start + chunk) for start, chunk in zip(starts, array.chunks, strict=True)
        )
        try:
            values[region] = array[region]
        except Exception:  # a chunk that cannot be read or decoded
            readable[region] = False
    return values, readable


def _spoiled_cells(dims, unreadable, cells):
    """Return the cells (a mask like ``cells``) that unreadable entries of a variable hold.

    A variable over fewer dims (a coordinate) spoils every cell along the missing ones.
    """
    import xarray as xr

    mask = xr.DataArray(unreadable, dims=dims)
    extra = [dim for dim in dims if dim not in cells.dims]
    if extra:
        mask = mask.any(extra)
    blank = xr.DataArray(np.zeros(cells.shape, bool), dims=cells.dims)
    return (blank | mask).transpose(*cells.dims).values


def load_checked(path, drop=()):
    """Open the store at ``path`` in memory; return ``(cube, {variable: cells it spoils})``.

    A variable whose chunks cannot be read or decoded keeps its fill there (so its cells
    fail their checks) and is named with the mask, over the cell dims, of the cells those
    chunks hold: one unreadable chunk spoils only its cells. ``drop`` names arrays not to
    open (their metadata is damaged: :mod:`simcore.sweep.store_meta`).
    """
    import xarray as xr
    import zarr

    cube = xr.open_zarr(str(path), chunks=None, consolidated=False, drop_variables=list(drop))
    group = zarr.open_group(str(path), mode="r", use_consolidated=False)
    cells = cube["cell_complete"]
    spoiled = {}
    for name in list(cube.variables):
        try:
            cube[name].load()
        except Exception:  # a chunk that cannot be read or decoded: read chunk by chunk
            array = group[name]
            fill = np.nan if cube[name].dtype.kind == "f" else 0
            values, readable = read_chunks(array, fill)
            cube[name] = cube[name].copy(data=values)
            spoiled[name] = _spoiled_cells(cube[name].dims, ~readable, cells)
    return cube.load(), spoiled


def check_version(path, attrs):
    """Refuse a store of another format (:data:`STORE_FORMAT`) or checksum version.

    Called wherever a store is opened (read, resumed, extended, verified, shown, plotted),
    before anything in it is read or changed.

    Raises
    ------
    StoreError
        One line naming the store, what it holds and the command that remakes it.
    """
    found = attrs.get("store_format")
    if type(found) is not int or found != STORE_FORMAT:
        if found is None:
            got, by = "missing", "an earlier"
        elif type(found) is int:
            got, by = repr(found), "a later" if found > STORE_FORMAT else "an earlier"
        else:
            got, by = repr(found), "another"
        raise StoreError(
            f"{path}: store_format: written by {by} simcore (got {got}, this one reads "
            f"{STORE_FORMAT}); remake it with: simcore run {_scenario_file(attrs)} "
            f"--out {shlex.quote(str(path))} --overwrite"
        )
    version = attrs.get("checksum_version", 1)
    if version != CHECKSUM_VERSION:
        raise StoreError(
            f"{path}: checksum_version: written by another simcore (got {version!r}, this one "
            f"writes {CHECKSUM_VERSION}, whose checksums also cover the run's seed and "
            "scenario); re-run its scenario with --overwrite to rewrite it"
        )


def _scenario_file(attrs):
    """Return the scenario file a store was run from (``scenario_source``), as a shell word.

    ``YOUR_SCENARIO.yaml`` when the store names none (a run of a mapping, not a file).
    """
    source = attrs.get("scenario_source")
    if not isinstance(source, str) or not source.strip() or source.startswith("<"):
        return "YOUR_SCENARIO.yaml"
    return shlex.quote(source)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def cells_summary(cells, dims, coords, problems=None, total=None, first=5):
    """Return a few lines' worth of text naming ``cells`` (indices), however many there are.

    How many, what is wrong with them (``problems``: ``{index: problem}``, counted by
    problem), the range they span along each dimension (``coords``: each dim's values)
    and the first ``first`` cells with their coordinates, e.g. ``3 of 12 cells are damaged
    (3: its packed counts fail their checksum), within p_judge 0.9..0.75 (indices 0-2),
    rho 0.05..0.2 (indices 0-2): cell (0, 2) (p_judge=0.9, rho=0.2), ...`` (without
    ``total``: ``3 damaged cells ...``).
    """
    import collections

    cells = sorted(cells)
    spans = []
    for k, dim in enumerate(dims):
        low, high = min(cell[k] for cell in cells), max(cell[k] for cell in cells)
        if low == high:
            spans.append(f"{dim}={_plain(coords[k][low])}")
        else:
            values = f"{_plain(coords[k][low])}..{_plain(coords[k][high])}"
            spans.append(f"{dim} {values} (indices {low}-{high})")
    named = []
    for cell in cells[:first]:
        at = ", ".join(f"{dim}={_plain(coords[k][cell[k]])}" for k, dim in enumerate(dims))
        named.append(f"cell {cell} ({at})")
    more = f" and {len(cells) - first} more" if len(cells) > first else ""
    kinds = ""
    if problems:
        counts = collections.Counter(problems[cell] for cell in cells)
        kinds = " (" + "; ".join(f"{n}: {problem}" for problem, n in counts.most_common()) + ")"
    plural = "cell" if len(cells) == 1 else "cells"
    if total is None:
        head = f"{len(cells)} damaged {plural}"
    else:
        head = f"{len(cells)} of {total} cells {'is' if len(cells) == 1 else 'are'} damaged"
    return f"{head}{kinds}, within {', '.join(spans)}: {', '.join(named)}{more}"


def describe_cell(cube, index):
    """Return ``{"index": [...], dim: value, ...}`` naming the cell at ``index``."""
    dims = cell_dims(cube)
    named = {dim: cube[dim].values[i].item() for dim, i in zip(dims, index, strict=True)}
    return {"index": [int(i) for i in index], **named}
