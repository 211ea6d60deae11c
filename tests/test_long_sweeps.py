"""Long sweeps that survive: extend, resume after SIGKILL, damaged chunks, a second writer,
a real dask cluster with a worker killed mid-sweep."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr
import yaml
import zarr

import simcore
from simcore.cli import main
from simcore.studies.synthetic.scenario import scenario_from_dict
from simcore.sweep import store, store_layout
from simcore.testing import assert_cubes_identical


def scenario(trials=300, p_judge=(0.9, 0.75, 0.7), rho=(0.05, 0.2), n_items=150):
    return {
        "name": "long",
        "model": {"n_items": n_items, "n_humans": 4},
        "design": {"kind": "bernoulli"},
        "trials": trials,
        "seed": 8,
        "sweep": {"p_judge": list(p_judge), "rho": list(rho)},
    }


def write(tmp_path, raw, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw))
    return path


def test_more_trials_extend_the_store_to_a_fresh_runs_numbers(tmp_path):
    out = tmp_path / "cube.zarr"
    simcore.run(scenario(trials=300), out=out)
    done, damaged = store.prepare(out, scenario_from_dict(scenario(trials=1500)))
    assert set(done.values()) == {300} and not damaged  # only trials 300.. will run
    extended = simcore.run(scenario(trials=1500), out=out)
    fresh = simcore.run(scenario(trials=1500))
    assert_cubes_identical(extended, fresh)
    np.testing.assert_array_equal(xr.open_zarr(out)["n_trials"], 1500)
    # and back down: fewer trials are refused (a store is never shrunk) unless overwritten
    with pytest.raises(store.StoreError, match="holds 1500 trials per cell"):
        simcore.run(scenario(trials=700), out=out)
    smaller = simcore.run(scenario(trials=700), out=out, overwrite=True)
    assert_cubes_identical(smaller, simcore.run(scenario(trials=700)))


def test_damaged_and_missing_chunks_are_recomputed(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(store_layout, "CHUNK_BYTES", 1)  # one cell per chunk: damage names cells
    out = tmp_path / "cube.zarr"
    original = simcore.run(scenario(), out=out)
    (out / "cell_ints" / "1.0.0").unlink()  # a missing chunk (reads as zeros)
    (out / "cell_floats" / "2.1.0").write_bytes(b"not a chunk")  # a damaged one
    zarr.open_group(str(out), mode="r+").attrs["complete"] = 0
    resumed = simcore.run(scenario(), out=out, progress=False)
    err = capsys.readouterr().err
    assert "2 damaged cells" in err and "cell (1, 0)" in err and "cell (2, 1)" in err
    assert_cubes_identical(resumed, original)
    assert_cubes_identical(xr.open_zarr(out), original)


def test_a_damaged_block_of_cells_is_recomputed_and_the_rest_kept(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(store_layout, "CHUNK_BYTES", 2 * 8 * 31)  # rows of 2 cells (31 counts)
    out = tmp_path / "cube.zarr"
    original = simcore.run(scenario(), out=out)
    assert zarr.open_group(str(out))["cell_ints"].chunks[:2] == (1, 2)
    (out / "cell_floats" / "2.0.0").write_bytes(b"not a chunk")  # the block of row 2
    zarr.open_group(str(out), mode="r+").attrs["complete"] = 0
    resumed = simcore.run(scenario(), out=out, progress=False)
    err = capsys.readouterr().err
    assert "2 damaged cells" in err and "cell (2, 0)" in err and "cell (2, 1)" in err
    assert_cubes_identical(resumed, original)
    assert_cubes_identical(xr.open_zarr(out), original)


def test_a_small_sweep_is_a_few_files_per_variable(tmp_path):
    out = tmp_path / "cube.zarr"
    cube = simcore.run(scenario(p_judge=[0.6 + 0.01 * k for k in range(30)], trials=20), out=out)
    variables = len(cube.variables)
    files = [path for path in out.rglob("*") if path.is_file()]
    assert len(files) <= 3 * variables + 3  # .zarray, .zattrs, one chunk each; the group's


def test_a_second_writer_is_refused_and_the_first_finishes(tmp_path, capsys):
    path = write(tmp_path, scenario())
    out = tmp_path / "cube.zarr"
    with store.writer_lock(out):
        assert main(["run", str(path), "--out", str(out), "--quiet"]) == 2
        assert "another simcore run" in capsys.readouterr().err
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert not (tmp_path / "cube.zarr.lock").exists()
    # a lock left by a process that no longer exists is taken over
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (tmp_path / "cube.zarr.lock").write_text(f"{os.uname().nodename} {dead}")
    assert main(["run", str(path), "--out", str(out), "--quiet", "--trials", "301"]) == 0


def cells_done(out):
    try:
        return int(np.asarray(zarr.open_group(str(out), mode="r")["cell_complete"][...]).sum())
    except Exception:
        return 0


def test_sigkill_mid_sweep_then_resume_is_bit_identical(tmp_path):
    raw = scenario(
        trials=40_000,
        p_judge=(0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6),
        rho=(0.05, 0.1, 0.25),
        n_items=300,
    )
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    command = [sys.executable, "-m", "simcore", "run", str(path), "--out", str(out), "--quiet"]
    process = subprocess.Popen(command, start_new_session=True)
    deadline = time.monotonic() + 240
    while cells_done(out) < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = cells_done(out)
    assert 0 < killed_at < 24, killed_at  # it really was killed mid-sweep
    assert store.read_attrs(out)["complete"] == 0
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))


def test_a_real_cluster_gives_the_local_numbers_even_when_a_worker_dies(dask_cluster, tmp_path):
    address, workers = dask_cluster
    raw = scenario(trials=2000, p_judge=(0.95, 0.9, 0.85, 0.8, 0.75, 0.7), n_items=200)
    local = simcore.run(raw)
    assert_cubes_identical(simcore.run(raw, scheduler=address), local)
    # Kill one worker once the sweep is under way: its tasks move to the other worker.
    out = tmp_path / "cube.zarr"
    path = write(tmp_path, {**raw, "seed": 8})
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simcore",
            "run",
            str(path),
            "--out",
            str(out),
            "--scheduler",
            address,
            "--quiet",
        ]
    )
    deadline = time.monotonic() + 120
    while cells_done(out) < 2 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    workers[0].kill()
    assert process.wait(timeout=300) == 0
    assert_cubes_identical(xr.open_zarr(out), local)


def test_show_detects_a_damaged_finished_store(tmp_path, capsys):
    out = tmp_path / "cube.zarr"
    simcore.run(scenario(), out=out)
    assert main(["show", str(out)]) == 0
    (out / "cell_floats" / "0.0.0").write_bytes(b"garbage")  # the one block
    assert main(["show", str(out)]) == 2
    assert "damaged" in capsys.readouterr().err
    assert main(["run", str(write(tmp_path, scenario())), "--out", str(out), "--quiet"]) == 0
    assert main(["show", str(out)]) == 0
