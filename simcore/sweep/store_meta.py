"""A store's own files and root attributes: read, checked, and repaired where derivable.

A store is a folder of zarr v2 metadata (``.zgroup``, ``.zattrs``, each array's
``.zarray`` and ``.zattrs``, and ``.zmetadata``, the consolidated copy of them all) and
chunks. Everything here reads the metadata as JSON, file by file, so that damage is named
rather than raised from deep inside zarr or xarray:

- :func:`read_root` reads the root attributes (unreadable ones are refused by name: the
  store's scenario and seed are lost with them);
- :func:`metadata_problems` names each array whose metadata cannot be read and each array
  whose shape disagrees with the other arrays over the same dimensions;
- :func:`zmetadata_problem` checks the consolidated metadata against the files;
- :func:`attr_problems` checks the root attributes against the scenario they record (its
  hash, kind and seed) and the packing against the arrays.

A rerun of the store's scenario repairs what it can derive (:func:`repair`): root
attributes from the scenario, array shapes from the layout (the chunks are kept), a run
variable's unreadable metadata from its siblings'; a named variable with unreadable
metadata is removed and written again when the run finishes; ``.zmetadata`` is written
again by every finished run.
"""

import collections
import json
from pathlib import Path

import numpy as np

from simcore.sweep.store_check import (
    cell_problems,
    check_version,
    load_checked,
    packing_attr,
    packing_problem,
    run_identity,
)
from simcore.sweep.store_files import StoreError, remove_arrays
from simcore.sweep.store_layout import RUN_VARIABLE_ATTRS, layout_sizes

__all__ = [
    "array_metadata",
    "attr_problems",
    "checked_store",
    "derived_attrs",
    "inspect_store",
    "metadata_problems",
    "read_root",
    "repair",
    "same_run",
    "scenario_of",
    "what_is_there",
    "zmetadata_problem",
]

RUN_DTYPES = {
    "cell_ints": ("<i8", None),
    "cell_floats": ("<f8", "NaN"),
    "cell_checksum": ("<i8", None),
    "cell_complete": ("|b1", None),
}
"""Each run variable's dtype and fill value, as a fresh store's ``.zarray`` holds them."""

DERIVED_ATTRS = ("kind", "scenario_hash", "root_seed", "cell_packing")
"""Root attributes that a run of the store's scenario writes again when they differ."""


def _json(path):
    """Return the JSON held by ``path`` (an object), or raise ValueError saying why not."""
    try:
        data = json.loads(Path(path).read_bytes())
    except (OSError, ValueError) as error:
        raise ValueError(str(error) or type(error).__name__) from None
    if not isinstance(data, dict):
        raise ValueError(f"holds {type(data).__name__}, not an object")
    return data


def read_root(path):
    """Return the root attributes of the store at ``path``.

    Raises
    ------
    StoreError
        When ``path`` holds no zarr group that records a scenario hash, or when its
        ``.zgroup`` or ``.zattrs`` cannot be read (named, with the error).
    """
    path = Path(path)
    if not (path / ".zgroup").exists() or not (path / ".zattrs").exists():
        raise StoreError(f"{path}: no simcore store there")
    for name in (".zgroup", ".zattrs"):
        try:
            data = _json(path / name)
        except ValueError as error:
            raise StoreError(
                f"{path / name}: cannot be read ({error}); the store's scenario and seed are "
                "lost with it, so its cells cannot be checked; remove the store and run its "
                "scenario again"
            ) from None
    if "scenario_hash" not in data:
        raise StoreError(f"{path}: no simcore store there")
    return data


def array_metadata(path):
    """Return ``{array name: (metadata, dims) or error text}`` of every array of the store.

    ``metadata`` is the ``.zarray`` object, ``dims`` the ``_ARRAY_DIMENSIONS`` of its
    ``.zattrs``; an array whose files cannot be read, or do not describe an array of that
    many dimensions, has the text of what is wrong instead.
    """
    arrays = {}
    for folder in sorted(Path(path).iterdir()):
        if folder.is_symlink() or not folder.is_dir() or not (folder / ".zarray").exists():
            continue
        try:
            meta = _json(folder / ".zarray")
            attrs = _json(folder / ".zattrs")
        except ValueError as error:
            arrays[folder.name] = f"its metadata cannot be read ({error})"
            continue
        arrays[folder.name] = _described(meta, attrs)
        if isinstance(arrays[folder.name], tuple):
            arrays[folder.name] = _openable(folder) or arrays[folder.name]
    return arrays


def _openable(folder):
    """Return what zarr finds wrong with an array's metadata (codecs, fill...), or None."""
    import zarr

    try:
        zarr.open_array(str(folder), mode="r", zarr_format=2)
    except Exception as error:  # anything at all in edited metadata
        text = " ".join(str(error).split())[:200]
        return f"its metadata cannot be read ({type(error).__name__}: {text})"
    return None


def _described(meta, attrs):
    """Return ``(meta, dims)``, or what is wrong with an array's metadata."""
    shape, chunks = meta.get("shape"), meta.get("chunks")
    dims = attrs.get("_ARRAY_DIMENSIONS")
    for key, value in (("shape", shape), ("chunks", chunks), ("_ARRAY_DIMENSIONS", dims)):
        if not isinstance(value, list):
            return f"its {key} is not a list (got {value!r})"
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
        return f"its shape is not a list of sizes (got {shape!r})"
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in chunks):
        return f"its chunks are not a list of sizes (got {chunks!r})"
    empty = [n == 0 and len(shape) == len(chunks) and shape[i] != 0 for i, n in enumerate(chunks)]
    if any(empty):  # a chunk of no length only along a dimension of no length
        return f"its chunks are not a list of sizes (got {chunks!r})"
    if not all(isinstance(d, str) for d in dims) or not len(shape) == len(chunks) == len(dims):
        return f"its shape {shape}, chunks {chunks} and dimensions {dims} disagree"
    if not isinstance(meta.get("dtype"), str):
        return f"its dtype is not a type (got {meta.get('dtype')!r})"
    return meta, dims


def _sizes(arrays, widths=None):
    """Return ``{dim: size}``: the size most arrays give each dimension.

    ``widths`` (``{"packed_int": n, "packed_float": n}``, from the packing) decide those
    dimensions, which one array each holds.
    """
    seen = collections.defaultdict(collections.Counter)
    for entry in arrays.values():
        if isinstance(entry, tuple):
            meta, dims = entry
            for dim, size in zip(dims, meta["shape"], strict=True):
                seen[dim][size] += 1
    sizes = {dim: counts.most_common(1)[0][0] for dim, counts in seen.items()}
    return {**sizes, **(widths or {})}


def _shape_errors(arrays, sizes):
    """Return ``{name: (found, expected)}`` of the arrays whose shape disagrees with ``sizes``."""
    wrong = {}
    for name, entry in arrays.items():
        if isinstance(entry, tuple):
            meta, dims = entry
            expected = [sizes.get(dim, size) for dim, size in zip(dims, meta["shape"], strict=True)]
            if expected != meta["shape"]:
                wrong[name] = (meta["shape"], expected)
    return wrong


def packing_widths(attrs):
    """Return ``{"packed_int": n, "packed_float": n}`` from ``cell_packing``, or None."""
    try:
        packing = json.loads(attrs.get("cell_packing"))
        widths = [0, 0]
        for _, integer, shape in packing:
            size = 1
            for n in shape:
                size *= int(n)
            widths[0 if integer else 1] += size
    except (TypeError, ValueError):
        return None
    return {"packed_int": widths[0], "packed_float": widths[1]}


def metadata_problems(path, attrs):
    """Return ``(problems, broken)``: what is wrong with the arrays' metadata, and which.

    ``problems`` is a list of ``(class, text)``: ``"metadata"`` for an array whose files
    cannot be read, ``"shape"`` for one whose shape disagrees with the other arrays over
    the same dimensions (found and expected named). ``broken`` is the set of those arrays.
    """
    arrays = array_metadata(path)
    problems = [
        ("metadata", f"array {name}: {entry}")
        for name, entry in arrays.items()
        if not isinstance(entry, tuple)
    ]
    missing = [name for name in RUN_DTYPES if name not in arrays]
    problems += [("metadata", f"array {name}: missing") for name in missing]
    wrong = _shape_errors(arrays, _sizes(arrays, packing_widths(attrs)))
    problems += [
        ("shape", f"array {name}: shape {found}, expected {expected}")
        for name, (found, expected) in wrong.items()
    ]
    broken = {name for name, entry in arrays.items() if not isinstance(entry, tuple)}
    return problems, broken | set(wrong) | set(missing)


def _expected_zmetadata(path):
    """Return the metadata ``.zmetadata`` should hold: every metadata file's object."""
    expected = {}
    for name in (".zgroup", ".zattrs"):
        expected[name] = _json(Path(path) / name)
    for folder in sorted(Path(path).iterdir()):
        if folder.is_dir() and (folder / ".zarray").exists():
            for name in (".zarray", ".zattrs"):
                if (folder / name).exists():
                    expected[f"{folder.name}/{name}"] = _json(folder / name)
    return expected


def zmetadata_problem(path):
    """Return what is wrong with a finished store's ``.zmetadata``, or None.

    ``xarray.open_zarr`` reads it first: it must exist, be JSON, and hold exactly the
    metadata of the store's files.
    """
    file = Path(path) / ".zmetadata"
    if not file.exists():
        return ".zmetadata: missing (xarray.open_zarr reads it to open the store in one call)"
    try:
        stored = _json(file).get("metadata")
        expected = _expected_zmetadata(path)
    except ValueError as error:
        return f".zmetadata: cannot be read ({error})"
    if stored != json.loads(json.dumps(expected)):
        keys = sorted(
            key
            for key in set(expected) | set(stored or {})
            if (stored or {}).get(key) != expected.get(key)
        )
        shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        return f".zmetadata: disagrees with the store's files ({shown})"
    return None


def scenario_of(attrs):
    """Return ``(scenario, None)`` parsed from the ``scenario`` attribute, or ``(None, why)``."""
    import yaml

    from simcore.studies import DEFAULT_KIND, KINDS, study_for

    try:
        raw = yaml.safe_load(attrs.get("scenario"))
        kind = raw.get("kind") or DEFAULT_KIND
        if kind not in KINDS:
            return None, f"names kind {kind!r}, which no study implements"
        return study_for(kind).parse(raw, "<scenario attribute>", None), None
    except Exception as error:  # anything at all in an edited attribute
        text = " ".join(str(error).split())[:200]
        return None, f"cannot be read as a scenario ({type(error).__name__}: {text})"


def attr_problems(attrs, scenario=None, why=None):
    """Return ``["attribute KEY: what is wrong", ...]`` of the root attributes.

    The ``scenario`` attribute must be a scenario (``scenario, why`` from
    :func:`scenario_of`, read here if not given); ``scenario_hash`` its hash, ``kind`` its
    kind, ``root_seed`` its seed. ``cell_packing`` is checked against the arrays by
    :func:`simcore.sweep.store_check.packing_problem`.
    """
    if scenario is None and why is None:
        scenario, why = scenario_of(attrs)
    if scenario is None:
        return [f"attribute scenario: {why}"]
    problems = []
    expected = {
        "scenario_hash": scenario.content_hash(),
        "kind": scenario.kind,
        "root_seed": int(scenario.seed),
    }
    for key, value in expected.items():
        found = attrs.get(key)
        if found != value or type(found) is not type(value):
            problems.append(
                f"attribute {key}: {found!r} is not the {key.replace('_', ' ')} of the "
                f"store's scenario attribute ({value!r}); one of the two was edited"
            )
    return problems


def derived_attrs(scenario, layout):
    """Return the root attributes a run of ``scenario`` writes again when they differ."""
    return {
        "kind": scenario.kind,
        "scenario": scenario.to_yaml(),
        "scenario_hash": scenario.content_hash(),
        "root_seed": int(scenario.seed),
        "cell_packing": packing_attr(layout),
    }


def what_is_there(attrs, scenario, layout):
    """Say what a store that cannot be resumed holds."""
    if not attrs or "scenario_hash" not in attrs:
        return "something that is not a simcore store"
    if _stored_hash(attrs, scenario) == scenario.content_hash():
        changed = sorted(key for key, value in layout.attrs.items() if attrs.get(key) != value)
        return (
            f"a run of this scenario on other inputs (its data changed); attribute "
            f"{', '.join(changed)} differs"
        )
    return "a store of a different scenario"


def _stored_hash(attrs, scenario):
    """Return the store's scenario hash: the attribute's, or its scenario attribute's.

    When the ``scenario_hash`` attribute is not this scenario's but the stored scenario
    is (the attribute alone was edited), the store is this scenario's: its cells'
    checksums, which cover the hash, decide which cells are.
    """
    stored = attrs.get("scenario_hash")
    if stored != scenario.content_hash():
        parsed, _ = scenario_of(attrs)
        if parsed is not None and parsed.content_hash() == scenario.content_hash():
            return parsed.content_hash()
    return stored


def same_run(attrs, scenario, layout):
    """Whether stored ``attrs`` are of this scenario (same hash) on the same inputs.

    The study's layout attributes (e.g. a real matrix's SHA-256) must match too, so a
    store is never resumed over data that changed under the same path.
    """
    if attrs is None or _stored_hash(attrs, scenario) != scenario.content_hash():
        return False
    return all(attrs.get(key) == value for key, value in layout.attrs.items())


def repair(path, scenario, layout, expected):
    """Repair what a run of ``scenario`` can derive; return one line per class repaired.

    ``expected`` is ``{attribute: value}`` of :data:`DERIVED_ATTRS` (and ``scenario``)
    for this run. Root attributes that differ are written again; arrays whose shape
    disagrees with the layout get the layout's shape (their chunks are kept, so their
    cells are checked as usual); a run variable whose metadata cannot be read gets a
    sibling's with its own dtype and shape; a named variable's is removed (the run writes
    it again when it finishes).
    """
    import zarr

    notes = []
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    stored = dict(group.attrs)
    changed = {key: value for key, value in expected.items() if stored.get(key) != value}
    if "scenario" in changed:
        parsed, _ = scenario_of(stored)
        if parsed is not None and parsed.content_hash() == scenario.content_hash():
            del changed["scenario"]  # the same scenario, written by another trial count
    if changed:
        group.attrs.update(changed)
        notes.append(f"attributes {', '.join(sorted(changed))} rewritten from the scenario")
    arrays = array_metadata(path)
    sizes = layout_sizes(layout)
    for name, (found, shape) in _shape_errors(arrays, sizes).items():
        _rewrite(Path(path) / name / ".zarray", {**arrays[name][0], "shape": shape})
        notes.append(f"array {name}: shape {found} restored to {shape}")
    broken = [name for name, entry in arrays.items() if not isinstance(entry, tuple)]
    broken += [name for name in RUN_DTYPES if name not in arrays]
    notes += _rebuilt(path, arrays, broken, sizes, layout.dims)
    return notes


def _rewrite(file, data):
    """Write ``data`` as JSON to ``file`` (a temporary file renamed over it)."""
    temporary = file.with_name(file.name + ".repair")
    temporary.write_text(json.dumps(data, indent=4))
    temporary.replace(file)


def _rebuilt(path, arrays, broken, sizes, cell_dims):
    """Rebuild the run variables among ``broken`` from a readable sibling; remove the rest."""
    notes = []
    sibling = next(
        (arrays[n] for n in RUN_DTYPES if n not in broken and isinstance(arrays.get(n), tuple)),
        None,
    )
    for name in broken:
        if name in RUN_DTYPES and sibling is not None:
            meta, dims = sibling
            own = (
                *cell_dims,
                *{"cell_ints": ["packed_int"], "cell_floats": ["packed_float"]}.get(name, []),
            )
            chunk_of = dict(zip(dims, meta["chunks"], strict=True))
            dtype, fill = RUN_DTYPES[name]
            (Path(path) / name).mkdir(exist_ok=True)
            _rewrite(
                Path(path) / name / ".zarray",
                {
                    **meta,
                    "dtype": dtype,
                    "fill_value": fill,
                    "shape": [sizes[d] for d in own],
                    "chunks": [chunk_of.get(d, sizes[d]) for d in own],
                },
            )
            attrs = {**RUN_VARIABLE_ATTRS[name], "_ARRAY_DIMENSIONS": list(own)}
            _rewrite(Path(path) / name / ".zattrs", attrs)
            notes.append(f"array {name}: metadata rebuilt")
        else:
            remove_arrays(path, [name])
            notes.append(f"array {name}: metadata unreadable; removed, written again")
    return notes


def _identities(attrs, scenario):
    """Return the run identities to try: the attributes', then the scenario attribute's."""
    own = run_identity(attrs)
    if scenario is None:
        return [own]
    parsed = run_identity(
        {**attrs, "scenario_hash": scenario.content_hash(), "root_seed": int(scenario.seed)}
    )
    return [own] if parsed == own else [own, parsed]


def inspect_store(path, unfinished=True):
    """Check a store's files, attributes and cells; return ``(cube, cells, store)``.

    ``cells`` is ``{index: problem}`` of the damaged cells; ``store`` is a list of
    ``(class, text)`` of the store's own damage (metadata, shapes, ``.zmetadata``,
    attributes: see the module). When an array's metadata is damaged the
    cells are not checked (``cube`` is None): a rerun repairs the metadata and checks them.
    The cells' checksums are tried under the run named by the attributes and, when they
    disagree with the scenario attribute, under the scenario's: the one under which more
    cells pass is the run's.

    Raises
    ------
    StoreError
        When ``path`` holds no simcore store, one of another checksum version, its root
        attributes cannot be read, or (without ``unfinished``) the run is unfinished.
    """
    attrs = read_root(path)
    check_version(path, attrs)
    finished = bool(attrs.get("complete"))
    if not finished and not unfinished:
        raise StoreError(
            f"{path}: the run is unfinished; re-run the same scenario into it to resume "
            "(resuming checks every cell)"
        )
    scenario, why = scenario_of(attrs)
    store = [("attributes", text) for text in attr_problems(attrs, scenario, why)]
    problems, broken = metadata_problems(path, attrs)
    store = problems + store
    if finished and not broken:
        zmetadata = zmetadata_problem(path)
        store += [(".zmetadata", zmetadata)] if zmetadata else []
    if broken:
        return None, {}, store
    cube, spoiled = load_checked(path)
    packing = packing_problem(cube) if finished else None
    store += [("attributes", packing)] if packing else []
    candidates = [
        cell_problems(cube, finished, identity) for identity in _identities(attrs, scenario)
    ]
    cells = min(candidates, key=len)
    complete = cube["cell_complete"].values
    for name, mask in spoiled.items():
        if not finished and not str(name).startswith("cell_"):
            continue  # an unfinished store's named variables are rewritten when it finishes
        if not finished and name != "cell_complete":
            mask = mask & complete
        for index in np.argwhere(mask):
            cells.setdefault(tuple(int(i) for i in index), f"a chunk of {name} cannot be read")
    return cube, dict(sorted(cells.items())), store


def checked_store(path, unfinished=False):
    """Open a store and check it; return ``(cube, {index: problem})`` of its damaged cells.

    See :func:`inspect_store`. Damage to the store's own files or attributes is refused.

    Raises
    ------
    StoreError
        As :func:`inspect_store`, and naming the first damage to the store's files or
        attributes (``simcore verify`` names them all).
    """
    cube, cells, store = inspect_store(path, unfinished)
    if store:
        more = f" (and {len(store) - 1} more problems)" if len(store) > 1 else ""
        raise StoreError(
            f"{path}: {store[0][1]}{more}; simcore verify {path} names them; re-run the "
            "store's scenario into it to repair it"
        )
    return cube, cells
