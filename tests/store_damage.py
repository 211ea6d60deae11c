"""Damage to a finished store, one class at a time, for the store-damage tests.

:func:`build_stores` writes a small finished store of a 4 x 3 sweep packed two cells to a
chunk (8 chunks), and two stores of the same grid from other runs (another seed, another
scenario). Each entry of :data:`DAMAGES` damages a copy of the store and returns the cells
that the damage spoils (``None``: no cell, only the store's metadata or attributes), the
cells that ``verify`` names and a rerun recomputes.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import yaml

import simcore
from simcore.sweep import store_layout

P_JUDGE = [0.9, 0.8, 0.75, 0.7]
RHO = [0.05, 0.1, 0.2]
SHAPE = (len(P_JUDGE), len(RHO))
CHUNK = (1, 2)
"""Cells per chunk along (p_judge, rho): rho's 3 values make chunks of 2 and 1 cells."""


def raw_scenario(seed=8, n_items=60):
    """The stores' scenario: 12 cells of 60 items, 40 trials each."""
    return {
        "name": "damage",
        "model": {"n_items": n_items, "n_humans": 4},
        "design": {"kind": "bernoulli"},
        "trials": 40,
        "seed": seed,
        "sweep": {"p_judge": list(P_JUDGE), "rho": list(RHO)},
    }


def build_stores(folder, monkeypatch):
    """Write the base store and the two foreign ones in ``folder``; return their paths.

    Returns ``(scenario file, base store, another seed's store, another scenario's store)``.
    """
    folder = Path(folder)
    path = folder / "damage.yaml"
    path.write_text(yaml.safe_dump(raw_scenario(), sort_keys=False))
    outs = []
    with monkeypatch.context() as patched:
        patched.setattr(store_layout, "CHUNK_BYTES", 2 * 8 * 31)  # two packed rows per chunk
        for name, raw in (
            ("base", raw_scenario()),
            ("seed", raw_scenario(seed=9)),
            ("other", raw_scenario(n_items=61)),
        ):
            out = folder / f"{name}.zarr"
            simcore.run(raw, out=out)
            outs.append(out)
    chunks = json.loads((outs[0] / "cell_ints" / ".zarray").read_text())["chunks"]
    assert tuple(chunks[:2]) == CHUNK, chunks
    return (path, *outs)


def cells_of_chunk(key):
    """Return the cells of chunk ``key`` (its position in the chunk grid)."""
    ranges = [range(k * c, min((k + 1) * c, n)) for k, c, n in zip(key, CHUNK, SHAPE, strict=True)]
    return [(i, j) for i in ranges[0] for j in ranges[1]]


def chunk_file(out, name, key):
    """Return the file of chunk ``key`` of run variable ``name`` (packed rows: one more axis)."""
    extra = ".0" if name in ("cell_ints", "cell_floats") else ""
    return out / name / (".".join(str(k) for k in key) + extra)


def foreign_chunks(source):
    """Copy chunks (0, 1) and (2, 0) of every variable over the cells from ``source``."""

    def damage(out, foreign):
        keys = [(0, 1), (2, 0)]
        for folder in Path(foreign[source]).iterdir():
            if not (folder / ".zarray").exists():
                continue
            dims = json.loads((folder / ".zattrs").read_text())["_ARRAY_DIMENSIONS"]
            if dims[:2] != ["p_judge", "rho"]:
                continue
            for key in keys:
                for chunk in folder.glob(".".join(str(k) for k in key) + "*"):
                    shutil.copy(chunk, out / folder.name / chunk.name)
        return sorted(cell for key in keys for cell in cells_of_chunk(key))

    return damage


def _edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def _edit_attr(key, value):
    def damage(out, foreign):
        _edit_json(out / ".zattrs", lambda attrs: attrs.__setitem__(key, value))
        _consolidated_too(out)

    return damage


def _consolidated_too(out):
    """Make ``.zmetadata`` agree with the edited files, as a careful editor would."""
    import zarr

    zarr.consolidate_metadata(str(out))


def _scenario_text(out):
    attrs = json.loads((out / ".zattrs").read_text())
    return attrs["scenario"].replace("seed: 8", "seed: 11")


def _edited_scenario(out, foreign):
    _edit_json(out / ".zattrs", lambda attrs: attrs.__setitem__("scenario", _scenario_text(out)))
    _consolidated_too(out)


def _swapped_packing(out, foreign):
    def swap(attrs):
        packing = json.loads(attrs["cell_packing"])
        packing[3], packing[6] = packing[6], packing[3]
        attrs["cell_packing"] = json.dumps(packing)

    _edit_json(out / ".zattrs", swap)
    _consolidated_too(out)


def _shape(name, shape):
    def damage(out, foreign):
        _edit_json(out / name / ".zarray", lambda meta: meta.__setitem__("shape", shape))
        _consolidated_too(out)

    return damage


def _garbage_chunk(out, foreign):
    chunk_file(out, "cell_ints", (1, 0)).write_bytes(b"\x00garbage" * 7)
    return cells_of_chunk((1, 0))


def _folder_for_chunk(out, foreign):
    chunk = chunk_file(out, "cell_floats", (3, 1))
    chunk.unlink()
    chunk.mkdir()  # unreadable as a file, whoever reads it (chmod 000 does not stop root)
    return cells_of_chunk((3, 1))


def _unreadable_chunk(out, foreign):
    chunk_file(out, "cell_checksum", (2, 1)).chmod(0)
    return cells_of_chunk((2, 1))


def _deleted_chunk(out, foreign):
    chunk_file(out, "cell_ints", (3, 0)).unlink()
    return cells_of_chunk((3, 0))


def _deleted_complete_chunk(out, foreign):
    chunk_file(out, "cell_complete", (0, 0)).unlink()
    return cells_of_chunk((0, 0))


def _edited_checksum(out, foreign):
    import zarr

    group = zarr.open_group(str(out), mode="r+", use_consolidated=False)
    values = np.asarray(group["cell_checksum"][...])
    values[1, 2] += 1
    group["cell_checksum"][...] = values
    return [(1, 2)]


def _truncated(name):
    def damage(out, foreign):
        path = out / name
        text = path.read_bytes()
        path.write_bytes(text[: len(text) // 2])

    return damage


def _garbage_zmetadata(out, foreign):
    (out / ".zmetadata").write_bytes(b"\x89PNG not json at all")


def _deleted_zmetadata(out, foreign):
    (out / ".zmetadata").unlink()


DAMAGES = {
    "foreign chunks of another seed's run": foreign_chunks("seed"),
    "foreign chunks of another scenario": foreign_chunks("other"),
    ".zmetadata garbage": _garbage_zmetadata,
    ".zmetadata deleted": _deleted_zmetadata,
    "attribute scenario edited": _edited_scenario,
    "attribute kind edited": _edit_attr("kind", "real"),
    "attribute kind unknown": _edit_attr("kind", "bogus"),
    "attribute scenario_hash edited": _edit_attr("scenario_hash", "0" * 64),
    "attribute root_seed edited": _edit_attr("root_seed", 9),
    "attribute cell_packing reordered": _swapped_packing,
    "attribute cell_packing garbage": _edit_attr("cell_packing", "[[1, 2"),
    "shape of cell_ints edited": _shape("cell_ints", [4, 3, 30]),
    "shape of n_wrong edited": _shape("n_wrong", [5, 3]),
    "shape of a coordinate edited": _shape("rho", [4]),
    "one chunk garbage": _garbage_chunk,
    "one chunk a folder": _folder_for_chunk,
    "one chunk unreadable (chmod 000)": _unreadable_chunk,
    "one chunk deleted": _deleted_chunk,
    "one completion chunk deleted": _deleted_complete_chunk,
    "a checksum edited": _edited_checksum,
    "cell_ints/.zarray truncated": _truncated("cell_ints/.zarray"),
    "n_wrong/.zattrs truncated": _truncated("n_wrong/.zattrs"),
    "root .zattrs truncated": _truncated(".zattrs"),
    ".zgroup truncated": _truncated(".zgroup"),
}
"""Each damage: ``damage(out, {"seed": store, "other": store}) -> damaged cells or None``."""
