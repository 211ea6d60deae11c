"""Every class of damage to a finished store is found by ``verify``, its cells named, and a
rerun of the same command repairs exactly those (or refuses by name): foreign chunks of
another run, ``.zmetadata``, root attributes, array shapes, one bad chunk, truncated
metadata; and random damage to the store's metadata never gives a traceback."""

import json
import os
import shutil

import numpy as np
import pytest
import xarray as xr
from store_damage import DAMAGES, SHAPE, build_stores

from simcore.cli import main
from simcore.testing import assert_cubes_identical

REFUSED = {"root .zattrs truncated": ".zattrs", ".zgroup truncated": ".zgroup"}
"""Damage a rerun refuses, naming the file (the store's scenario and seed are lost)."""

RECOMPUTES_ALL = {"n_wrong/.zattrs truncated"}
"""A named variable whose metadata is lost is written again, and every cell recomputed."""

N_CELLS = SHAPE[0] * SHAPE[1]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    folder = tmp_path_factory.mktemp("damage")
    with pytest.MonkeyPatch.context() as patched:
        path, base, seed, other = build_stores(folder, patched)
    return path, base, {"seed": seed, "other": other}, xr.open_zarr(base).load()


def damaged_copy(stores, tmp_path, name):
    path, base, foreign, reference = stores
    out = tmp_path / "case.zarr"
    shutil.copytree(base, out)
    return path, out, DAMAGES[name](out, foreign), reference


def command(path, out):
    return ["run", str(path), "--out", str(out), "--quiet"]


def check_verify_names(out, cells, capsys):
    """verify (text and JSON) and show exit 2, in a few lines, naming ``cells``."""
    capsys.readouterr()
    for argv in (["verify", str(out)], ["show", str(out)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and 1 <= len(err.strip().splitlines()) <= 3, err
        if cells and argv[0] == "verify":
            assert f"{len(cells)} of {N_CELLS} cells" in err, err
            assert all(str(cell) in err for cell in cells[:5]), err
    assert main(["verify", str(out), "--json"]) == 2
    document = json.loads(capsys.readouterr().out)
    assert [tuple(cell["index"]) for cell in document["damaged"]] == (cells or [])
    assert cells or document["store_damage"]


@pytest.mark.parametrize("name", list(DAMAGES))
def test_each_damage_is_found_named_and_repaired(name, stores, tmp_path, capsys):
    if name.endswith("(chmod 000)") and os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode")
    path, out, cells, reference = damaged_copy(stores, tmp_path, name)
    if name in REFUSED:
        for argv in (["verify", str(out)], ["show", str(out)], command(path, out)):
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert REFUSED[name] in err and len(err.strip().splitlines()) == 1, err
        return
    check_verify_names(out, cells, capsys)
    if name == "one chunk a folder":
        assert main(command(path, out)) == 2
        err = capsys.readouterr().err
        assert "cannot write" in err and "3.1" in err and "Traceback" not in err
        assert "1 damaged cell" in err  # said once: the resume below just finishes it
        next(p for p in (out / "cell_floats").iterdir() if p.is_dir()).rmdir()
        cells = None
    assert main(command(path, out)) == 0
    err = capsys.readouterr().err
    recomputed = N_CELLS if name in RECOMPUTES_ALL else len(cells or [])
    if recomputed:
        assert f"{recomputed} damaged cell" in err and "recomputing them" in err, err
    else:
        assert "damaged cell" not in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 2, err
    assert_cubes_identical(xr.open_zarr(out), reference)
    assert main(["verify", str(out)]) == 0


def test_a_foreign_run_is_not_taken_for_the_store_even_with_its_attributes(stores, tmp_path):
    """Another seed's chunks with their attributes copied in too fail every cell."""
    path, base, foreign, _ = stores
    out = tmp_path / "case.zarr"
    shutil.copytree(foreign["seed"], out)
    for name in (".zattrs", ".zmetadata"):
        shutil.copy(base / name, out / name)
    assert main(["verify", str(out)]) == 2


def metadata_files(out):
    files = [out / ".zgroup", out / ".zattrs", out / ".zmetadata"]
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):
        files += [folder / ".zarray", folder / ".zattrs"]
    return files


ODD_VALUES = [None, -1, 0, "x", [], {}, 1e300, True, [1, 2, 3], "NaN"]


def mutate(file, rng):
    """Flip a byte, truncate, or set a random key of the JSON to an odd value."""
    data = file.read_bytes()
    how = rng.integers(3)
    if how == 0:
        at = int(rng.integers(len(data)))
        file.write_bytes(
            data[:at] + bytes([data[at] ^ (1 << int(rng.integers(8)))]) + data[at + 1 :]
        )
    elif how == 1:
        file.write_bytes(data[: int(rng.integers(len(data)))])
    else:
        parsed = json.loads(data)
        if not parsed:
            parsed = {"zarr_format": 2}
        key = list(parsed)[int(rng.integers(len(parsed)))]
        parsed[key] = ODD_VALUES[int(rng.integers(len(ODD_VALUES)))]
        file.write_text(json.dumps(parsed))
    return ("flip", "truncate", "edit")[how]


@pytest.mark.parametrize("case", range(30))
def test_random_metadata_damage_never_gives_a_traceback(case, stores, tmp_path, capsys):
    path, base, _, reference = stores
    files = metadata_files(base)
    rng = np.random.default_rng([20261205, case])
    out = tmp_path / "fuzz.zarr"
    shutil.copytree(base, out)
    target = out / files[int(rng.integers(len(files)))].relative_to(base)
    label = (str(target.relative_to(out)), mutate(target, rng))
    capsys.readouterr()
    verified = main(["verify", str(out)])
    err = capsys.readouterr().err
    assert verified in (0, 2) and "Traceback" not in err, (label, err)
    assert len(err.strip().splitlines()) <= 4, (label, err)
    if verified == 0:  # only a store that is truly intact passes
        xr.testing.assert_identical(xr.open_zarr(out).load(), reference)
    assert main(["show", str(out)]) in (0, 2)
    assert "Traceback" not in capsys.readouterr().err, label
    ran = main(command(path, out))
    err = capsys.readouterr().err
    assert ran in (0, 2) and "Traceback" not in err, (label, err)
    if ran == 0:
        assert main(["verify", str(out)]) == 0, label
        assert_cubes_identical(xr.open_zarr(out), reference)
