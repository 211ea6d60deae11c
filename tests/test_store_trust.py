"""A store you can trust: finalisation survives a kill or a full disk at any write, damage
is detected and named (``show``, ``plot``, ``verify``, resume), the lock is never
followed or silently lost, and ``--overwrite`` never deletes what simcore did not write."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
import zarr
from finalise_hook import install
from test_long_sweeps import scenario
from test_studies import SCENARIOS, SMALL

import simcore
from simcore.cli import main
from simcore.sweep import store
from simcore.sweep.cell_writer import CellWriter
from simcore.testing import assert_cubes_identical

HOOK = Path(__file__).with_name("finalise_hook.py")
REPO = Path(__file__).resolve().parent.parent


class Stop(Exception):
    """Raised instead of finalising, to leave a store whose cells are all written."""


def tiny():
    """A small sweep of 3 x 2 cells."""
    return scenario(trials=60, n_items=60)


def write(tmp_path, raw, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def command(path, out):
    return ["run", str(path), "--out", str(out), "--quiet"]


def unfinalised(tmp_path, raw, monkeypatch):
    """Return a store of ``raw`` with every cell written and finalisation not begun."""
    out = tmp_path / "base.zarr"

    def stop(*args, **kwargs):
        raise Stop

    with monkeypatch.context() as patched:
        patched.setattr(store, "finalize", stop)
        with pytest.raises(Stop):
            simcore.run(raw, out=out)
    return out


def finalisation_writes(tmp_path, base, path, monkeypatch):
    """Return how many zarr writes finalising ``base`` takes."""
    out = tmp_path / "count.zarr"
    shutil.copytree(base, out)
    with monkeypatch.context() as patched:
        state = install("count", 0, patched.setattr)
        assert main(command(path, out)) == 0
    return state["writes"]


def kill_in_finalisation(path, out, n):
    """Run ``simcore run`` in a process that dies at finalisation's ``n``-th zarr write."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [sys.executable, str(HOOK), "kill", str(n), *command(path, out)]
    return subprocess.run(args, env=env, capture_output=True, timeout=600).returncode


def check_finalisation_faults(raw, tmp_path, monkeypatch, kills, fulls, seed=20261201):
    """Kill (twice in a row) and fill the disk at random writes of finalisation; resume."""
    path = write(tmp_path, raw)
    reference = simcore.run(raw)
    base = unfinalised(tmp_path, raw, monkeypatch)
    total = finalisation_writes(tmp_path, base, path, monkeypatch)
    rng = np.random.default_rng(seed)
    for case in range(kills):
        out = tmp_path / f"killed{case}.zarr"
        shutil.copytree(base, out)
        first, second = rng.integers(1, total + 1, size=2)
        assert kill_in_finalisation(path, out, first) == 9
        assert kill_in_finalisation(path, out, second) in (0, 9)
        assert main(command(path, out)) == 0, (case, first, second)
        xr.testing.assert_equal(xr.open_zarr(out), reference)
        assert_cubes_identical(xr.open_zarr(out), reference)
    for case in range(fulls):
        out = tmp_path / f"full{case}.zarr"
        shutil.copytree(base, out)
        n = int(rng.integers(1, total + 1))
        with monkeypatch.context() as patched:
            install("full", n, patched.setattr)
            assert main(command(path, out)) == 2, (case, n)
        assert main(command(path, out)) == 0, (case, n)
        xr.testing.assert_equal(xr.open_zarr(out), reference)
        assert_cubes_identical(xr.open_zarr(out), reference)


def test_a_kill_or_a_full_disk_inside_finalisation_resumes(tmp_path, monkeypatch):
    check_finalisation_faults(tiny(), tmp_path, monkeypatch, kills=2, fulls=3)


@pytest.mark.slow
@pytest.mark.parametrize("kind", SCENARIOS)
def test_forty_kills_and_forty_full_disks_inside_finalisation_resume(kind, tmp_path, monkeypatch):
    raw = SCENARIOS[kind](SMALL[kind])
    check_finalisation_faults(raw, tmp_path, monkeypatch, kills=40, fulls=40)


def test_a_full_disk_is_one_line_saying_to_free_space(tmp_path, monkeypatch, capsys):
    raw = tiny()
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    with monkeypatch.context() as patched:
        install("full", 5, patched.setattr)
        assert main(command(path, out)) == 2
    err = capsys.readouterr().err
    assert "no space left" in err and "run the same command again" in err
    assert len(err.strip().splitlines()) == 1


def dead_pid():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_rerun_removes_only_creation_leftovers_of_dead_processes(tmp_path):
    raw = tiny()
    out = tmp_path / "cube.zarr"
    dead = tmp_path / f".cube.zarr.creating-{dead_pid()}"
    live = tmp_path / f".cube.zarr.creating-{os.getppid()}"
    other = tmp_path / ".cube.zarr.creating-notes"
    for folder in (dead, live, other):
        folder.mkdir()
        (folder / ".zgroup").write_text("{}")
    simcore.run(raw, out=out)
    assert not dead.exists() and live.exists() and other.exists()
    simcore.run(raw, out=out)  # and a resume does the same
    assert live.exists() and other.exists()


@pytest.fixture
def finished(tmp_path):
    """A finished store, its scenario file and the uninterrupted cube."""
    raw = tiny()
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    cube = simcore.run(raw, out=out)
    return out, path, cube


def edit(out, name, change):
    group = zarr.open_group(str(out), mode="r+", use_consolidated=False)
    values = group[name][...]
    change(values)
    group[name][...] = values


def check_named_and_repaired(out, path, cube, cells, capsys):
    """verify, show and plot exit 2 naming ``cells``; a resume recomputes exactly them."""
    capsys.readouterr()
    for argv in (["verify", str(out)], ["show", str(out)], ["plot", str(out)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        named = sorted(cells)[:5]  # verify, show and plot name the first five
        assert all(str(cell) in err for cell in named), (argv, err)
        assert len(err.strip().splitlines()) == 1
    assert main(["verify", str(out), "--json"]) == 2
    document = yaml.safe_load(capsys.readouterr().out)
    assert document["command"] == "verify" and document["cells"] == cube["n_trials"].size
    assert [tuple(cell["index"]) for cell in document["damaged"]] == sorted(cells)
    assert main(command(path, out)) == 0
    err = capsys.readouterr().err
    many = "1 damaged cell," if len(cells) == 1 else f"{len(cells)} damaged cells,"
    assert many in err and "recomputing them" in err and len(err.strip().splitlines()) == 1
    assert_cubes_identical(xr.open_zarr(out), cube)
    assert main(["verify", str(out)]) == 0


def test_a_deleted_chunk_of_a_rate_is_detected_and_recomputed(finished, capsys):
    out, path, cube = finished
    (out / "wrong_decision_rate" / "0.0").unlink()  # its one chunk
    shape = cube["n_trials"].shape
    cells = list(np.ndindex(*shape))
    check_named_and_repaired(out, path, cube, cells, capsys)


def test_an_edited_count_in_a_valid_chunk_is_detected(finished, capsys):
    out, path, cube = finished

    def more_wrong(values):
        values[1, 0] += 1

    edit(out, "n_wrong", more_wrong)
    check_named_and_repaired(out, path, cube, [(1, 0)], capsys)


def test_two_cells_swapped_with_their_checksums_are_detected(finished, capsys):
    out, path, cube = finished
    for name in ("cell_ints", "cell_floats", "cell_checksum"):

        def swap(values):
            values[[0, 1]] = values[[1, 0]]

        edit(out, name, swap)
    for name in ("n_trials", "n_wrong"):  # the named counts swapped alike
        edit(out, name, swap)
    cells = [(0, j) for j in range(cube["n_trials"].shape[1])]
    cells += [(1, j) for j in range(cube["n_trials"].shape[1])]
    check_named_and_repaired(out, path, cube, cells, capsys)


def test_a_store_of_the_old_checksum_is_refused_saying_overwrite(finished, capsys):
    out, path, cube = finished
    group = zarr.open_group(str(out), mode="r+", use_consolidated=False)
    del group.attrs["checksum_version"]
    zarr.consolidate_metadata(str(out))
    capsys.readouterr()
    for argv in (["verify", str(out)], ["show", str(out)], command(path, out)):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "--overwrite" in err and "checksum_version" in err and len(err.splitlines()) == 1
    assert main([*command(path, out), "--overwrite"]) == 0
    assert_cubes_identical(xr.open_zarr(out), cube)


def folder_bytes(out):
    """Every file under the store ``out`` and its bytes."""
    return {str(f.relative_to(out)): f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file()}


def set_store_format(out, value):
    """Remove (``None``) or set the store's ``store_format``, consolidated as an editor would."""
    group = zarr.open_group(str(out), mode="r+", use_consolidated=False)
    if value is None:
        del group.attrs["store_format"]
    else:
        group.attrs["store_format"] = value
    zarr.consolidate_metadata(str(out))


@pytest.mark.parametrize(("value", "got"), [(None, "missing"), (1, "1")])
@pytest.mark.parametrize("state", ["finished", "unfinished"])
def test_a_store_of_an_earlier_format_is_refused_untouched(
    value, got, state, tmp_path, monkeypatch, capsys
):
    raw = tiny()
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    if state == "finished":
        assert main(command(path, out)) == 0
        assert xr.open_zarr(out).attrs["store_format"] == store.STORE_FORMAT == 2
        assert main(["verify", str(out)]) == 0  # a store written now opens
        assert main(["show", str(out)]) == 0
    else:
        out = unfinalised(tmp_path, raw, monkeypatch)
        group = zarr.open_group(str(out), mode="r+", use_consolidated=False)
        group.attrs["scenario_source"] = str(path)  # as if run from the file
    set_store_format(out, value)
    before = folder_bytes(out)
    capsys.readouterr()
    line = (
        f"{out}: store_format: written by an earlier simcore (got {got}, this one reads 2); "
        f"remake it with: simcore run {path} --out {out} --overwrite"
    )
    runs = [command(path, out), [*command(path, out), "--trials", "120"]]  # resume, extend
    for argv in (["show", str(out)], ["verify", str(out)], ["plot", str(out)], *runs):
        assert main(argv) == 2, argv
        assert capsys.readouterr().err == f"simcore {argv[0]}: {line}\n", argv
        assert folder_bytes(out) == before, argv  # nothing deleted or changed
    assert not out.with_name(out.name + ".lock").exists()
    assert main([*command(path, out), "--overwrite"]) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))
    assert xr.open_zarr(out).attrs["store_format"] == 2


def test_a_store_run_from_a_mapping_is_remade_from_your_scenario(finished, capsys):
    out, _, _ = finished
    set_store_format(out, 3)
    with pytest.raises(store.StoreError) as refused:
        simcore.run(tiny(), out=out)
    assert str(refused.value) == (
        f"{out}: store_format: written by a later simcore (got 3, this one reads 2); remake it "
        f"with: simcore run YOUR_SCENARIO.yaml --out {out} --overwrite"
    )
    set_store_format(out, "2")
    assert main(["verify", str(out)]) == 2
    assert "(got '2', this one reads 2)" in capsys.readouterr().err


def test_a_lock_that_is_a_symlink_is_refused_and_never_read_out(finished, capsys):
    out, path, _ = finished
    secret = out.parent / "secret.txt"
    secret.write_text("my password\n")
    lock = out.with_name(out.name + ".lock")
    lock.symlink_to(secret)
    assert main(command(path, out)) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and "password" not in err
    assert secret.read_text() == "my password\n" and lock.is_symlink()


def test_a_lock_holding_anything_else_is_never_printed(finished, capsys):
    out, path, _ = finished
    out.with_name(out.name + ".lock").write_text("my password\n")
    assert main(command(path, out)) == 2
    err = capsys.readouterr().err
    assert "password" not in err and "another simcore run" in err


def test_a_writer_whose_lock_vanished_stops(tmp_path, monkeypatch, capsys):
    raw = tiny()
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    write_cell = CellWriter.write

    def write_then_lose_lock(self, *args, **kwargs):
        write_cell(self, *args, **kwargs)
        out.with_name(out.name + ".lock").unlink(missing_ok=True)

    monkeypatch.setattr(CellWriter, "write", write_then_lose_lock)
    assert main(command(path, out)) == 2
    err = capsys.readouterr().err
    assert "vanished" in err and len(err.strip().splitlines()) == 1
    monkeypatch.undo()
    assert main(command(path, out)) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))


def test_overwrite_keeps_a_users_file_inside_a_store(finished, capsys):
    out, path, _ = finished
    for place in (out / "thesis.tex", out / "n_wrong" / "notes.txt"):
        place.write_text("mine")
        before = sorted(p.name for p in out.rglob("*"))
        assert main([*command(path, out), "--overwrite", "--seed", "5"]) == 2
        err = capsys.readouterr().err
        assert str(place) in err and "never deletes" in err
        assert place.read_text() == "mine" and sorted(p.name for p in out.rglob("*")) == before
        place.unlink()
    assert main([*command(path, out), "--overwrite", "--seed", "5"]) == 0


def test_overwrite_keeps_a_folder_that_only_looks_like_a_store(tmp_path, capsys):
    raw = tiny()
    path = write(tmp_path, raw)
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / ".zgroup").write_text('{"zarr_format": 2}')
    (folder / ".zattrs").write_text('{"scenario_hash": "x"}')
    (folder / "thesis.tex").write_text("chapter 1")
    assert main([*command(path, folder), "--overwrite"]) == 2
    assert "thesis.tex" in capsys.readouterr().err
    assert (folder / "thesis.tex").read_text() == "chapter 1"


def test_a_store_path_that_is_a_symlink_is_refused(finished, capsys):
    out, path, _ = finished
    link = out.parent / "link.zarr"
    link.symlink_to(out)
    before = sorted(p.name for p in out.rglob("*"))
    for extra in ([], ["--overwrite"]):
        assert main([*command(path, link), *extra]) == 2
        err = capsys.readouterr().err
        assert "symbolic link" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in out.rglob("*")) == before and link.is_symlink()


@pytest.mark.parametrize(
    ("key", "value"),
    [("output.store", "../../x.zarr"), ("output.store", "/tmp/simcore-elsewhere.zarr")],
)
def test_a_scenario_store_outside_the_working_folder_needs_out(
    key, value, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    raw = {**tiny(), "output": {"store": value}}
    path = write(tmp_path, raw)
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert key in err and value in err and "--out" in err and str(path) in err
    assert not Path(value).exists() and not (tmp_path / "results").exists()
    assert main(["run", str(path), "--quiet", "--out", str(tmp_path / "ok.zarr")]) == 0


def test_a_scenario_name_that_leaves_the_working_folder_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, {**tiny(), "name": "../../escaped"})
    for out in ([], ["--out", str(tmp_path / "ok.zarr")]):
        assert main(["run", str(path), "--quiet", *out]) == 2
        err = capsys.readouterr().err
        assert "name" in err and "../../escaped" in err and "not a path" in err
    assert not (tmp_path / "ok.zarr").exists()


def planning(tmp_path, table, csv):
    raw = yaml.safe_load((REPO / "scenarios" / "planning.yaml").read_text())
    raw["output"] = {"table": str(table), "csv": str(csv)}
    raw["trials"] = 20
    return write(tmp_path, raw, "plan.yaml")


def test_tables_replace_only_simcores_own_and_never_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table, csv = tmp_path / "plan.md", tmp_path / "plan.csv"
    table.write_text("# my notes\n")
    path = planning(tmp_path, table, csv)
    for place in (table, csv):
        assert main(["run", str(path), "--quiet", "--out", "p.zarr"]) == 2
        err = capsys.readouterr().err
        assert str(place) in err and "output." in err and "never overwrites" in err
        assert not (tmp_path / "p.zarr").exists()
        place.unlink()
        if place is table:
            csv.write_text("a,b\n1,2\n")
    csv.mkdir()
    assert main(["run", str(path), "--quiet", "--out", "p.zarr"]) == 2
    assert "is a folder" in capsys.readouterr().err and not (tmp_path / "p.zarr").exists()


def test_plot_never_overwrites_a_file_that_is_not_a_figure(finished, capsys):
    out, _, _ = finished
    notes = out.parent / "notes.png"
    notes.write_text("not a figure")
    assert main(["plot", str(out), "--out", str(notes)]) == 2
    assert "never overwrites" in capsys.readouterr().err and notes.read_text() == "not a figure"
    figure = out.parent / "figure.png"
    assert main(["plot", str(out), "--out", str(figure)]) == 0
    assert main(["plot", str(out), "--out", str(figure)]) == 0  # its own figure: replaced


def test_verify_checks_an_unfinished_store_and_names_its_damaged_cells(
    tmp_path, monkeypatch, capsys
):
    raw = tiny()
    path = write(tmp_path, raw)
    out = unfinalised(tmp_path, raw, monkeypatch)
    group = zarr.open_group(str(out), mode="r+", use_consolidated=False)
    complete = np.asarray(group["cell_complete"][...])
    complete[2, 1] = False  # a cell the run had not reached
    group["cell_complete"][...] = complete
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    said = capsys.readouterr().out
    assert "unfinished: 5 of 6 cells done" in said and "passes its checks" in said
    ints = np.asarray(group["cell_ints"][...])
    ints[1, 0, 1] += 1  # an edited count in a complete cell
    group["cell_ints"][...] = ints
    assert main(["verify", str(out)]) == 2
    err = capsys.readouterr().err
    assert "1 of 6 cells is damaged" in err and "cell (1, 0)" in err and len(err.splitlines()) == 1
    assert main(["verify", str(out), "--json"]) == 2
    document = json.loads(capsys.readouterr().out)
    assert document["complete"] is False and document["cells_complete"] == 5
    assert [cell["index"] for cell in document["damaged"]] == [[1, 0]]
    assert main(command(path, out)) == 0  # the resume recomputes the two cells
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))
    assert main(["verify", str(out)]) == 0
