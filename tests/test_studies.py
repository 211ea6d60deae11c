"""Every kind of study gets the engine's guarantees, through the one protocol.

For the synthetic, the real-data and the coverage study alike: a run killed with SIGKILL
after some cells resumes to the cube of an uninterrupted run; a store run with T trials
and extended to 2T equals a fresh 2T run; ``--workers 2`` and a real two-worker dask
scheduler give the in-process cube; ``validate``, ``show`` and ``plot`` work on each.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
import zarr

import simcore
from simcore.cli import main
from simcore.studies import KINDS, study_for
from simcore.sweep.store import read_attrs
from simcore.testing import assert_cubes_identical

REPO = Path(__file__).resolve().parent.parent
WAX = REPO.parent / "shared" / "data" / "alttest" / "wax"


def synthetic(trials):
    return {
        "name": "synthetic",
        "model": {"n_items": 150, "n_humans": 4, "p_judge": [0.9, 0.72]},
        "design": {"kind": "bernoulli"},
        "trials": trials,
        "seed": 3,
        "sweep": {"rho": [0.05, 0.1, 0.25], "p_human": [0.8, 0.9]},
    }


def real(trials):
    return {
        "name": "real",
        "kind": "real",
        "data": {"format": "alttest", "path": str(WAX)},
        "trials": trials,
        "seed": 3,
        "sweep": {"design": ["bernoulli", "exact_m", "strat"], "coverage": [0.1, 0.25]},
    }


def coverage(trials):
    return {
        "name": "coverage",
        "kind": "coverage",
        "judges": {"weak": {"se": 0.7, "sp": 0.65}, "strong": {"se": 0.95, "sp": 0.9}},
        "trials": trials,
        "seed": 3,
        "sweep": {"n_cal": [25, 100, 400], "theta": [0.1], "n_production": [1000, 20000]},
    }


def sequential(trials):
    return {
        "name": "sequential",
        "kind": "sequential",
        "n_items": 200,
        "round_size": 4,
        "rounds": 25,
        "trials": trials,
        "seed": 3,
        "sweep": {"p_judge": [0.95, 0.7], "alpha": [0.05, 0.1]},
    }


def coverage_latent(trials):
    return {
        "name": "coverage_latent",
        "kind": "coverage-latent",
        "production": 500,
        "boot": 20,
        "trials": trials,
        "seed": 3,
        "sweep": {
            "n_humans": [3],
            "p_human": [0.85],
            "errors": ["independent", "shared"],
            "n_labels": [2],
            "n_cal": [50],
        },
    }


SCENARIOS = {
    "synthetic": synthetic,
    "real": real,
    "coverage": coverage,
    "sequential": sequential,
    "coverage-latent": coverage_latent,
}
SMALL = {"synthetic": 300, "real": 12, "coverage": 2000, "sequential": 30, "coverage-latent": 4}
"""Trials per cell for the quick checks."""
SLOW = {
    "synthetic": 6000,
    "real": 400,
    "coverage": 500_000,
    "sequential": 2500,
    "coverage-latent": 80,
}
"""Trials per cell that keep a run busy for some seconds (for the kill)."""


def write(tmp_path, raw):
    path = tmp_path / f"{raw['name']}.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def test_every_kind_is_registered():
    assert set(SCENARIOS) == set(KINDS)
    for kind in KINDS:
        assert study_for(kind).kind == kind


@pytest.mark.parametrize("kind", SCENARIOS)
def test_more_trials_extend_a_store_to_a_fresh_runs_cube(kind, tmp_path):
    make, trials = SCENARIOS[kind], SMALL[kind]
    out = tmp_path / "cube.zarr"
    first = simcore.run(make(trials), out=out)
    assert int(first["n_trials"].min()) == trials
    extended = simcore.run(make(2 * trials), out=out)
    fresh = simcore.run(make(2 * trials))
    assert_cubes_identical(extended, fresh)
    assert_cubes_identical(xr.open_zarr(out), fresh)
    np.testing.assert_array_equal(xr.open_zarr(out)["n_trials"], 2 * trials)
    # the extension is not the first run again: the new trials add counts
    assert not first["n_trials"].equals(fresh["n_trials"])


def cells_done(out):
    try:
        return int(np.asarray(zarr.open_group(str(out), mode="r")["cell_complete"][...]).sum())
    except Exception:
        return 0


@pytest.mark.parametrize("kind", SCENARIOS)
def test_sigkill_after_some_cells_then_resume_gives_the_uninterrupted_cube(kind, tmp_path):
    raw = SCENARIOS[kind](SLOW[kind])
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    n_cells = int(np.prod([len(v) for v in raw["sweep"].values()])) * (
        len(raw["judges"]) if kind == "coverage" else 1
    )
    command = [sys.executable, "-m", "simcore", "run", str(path), "--out", str(out), "--quiet"]
    process = subprocess.Popen(command, start_new_session=True)
    deadline = time.monotonic() + 240
    while cells_done(out) < 1 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = cells_done(out)
    assert 0 < killed_at < n_cells, killed_at  # it really was killed mid-sweep
    assert read_attrs(out)["complete"] == 0
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))


@pytest.mark.parametrize("kind", SCENARIOS)
def test_two_local_workers_give_the_in_process_cube(kind):
    raw = SCENARIOS[kind](SMALL[kind])
    assert_cubes_identical(simcore.run(raw, workers=2), simcore.run(raw))


@pytest.mark.parametrize("kind", SCENARIOS)
def test_a_real_dask_scheduler_gives_the_in_process_cube(kind, shared_dask_cluster, tmp_path):
    raw = SCENARIOS[kind](SMALL[kind])
    out = tmp_path / "cube.zarr"
    path = write(tmp_path, raw)
    command = ["run", str(path), "--out", str(out), "--scheduler", shared_dask_cluster]
    assert main([*command, "--quiet"]) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))


@pytest.mark.parametrize("kind", SCENARIOS)
def test_validate_show_and_plot_work_for_every_kind(kind, tmp_path, capsys):
    raw = SCENARIOS[kind](SMALL[kind])
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    assert main(["validate", str(path)]) == 0
    assert "valid;" in capsys.readouterr().out
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert main(["show", str(out)]) == 0
    assert raw["name"] in capsys.readouterr().out
    assert main(["plot", str(out), "--out", str(tmp_path / "figure.png")]) == 0
    assert (tmp_path / "figure.png").stat().st_size > 0
    assert xr.open_zarr(out).attrs["kind"] == kind


@pytest.mark.parametrize("kind", SCENARIOS)
def test_a_cell_depends_on_its_coordinates_not_on_the_sweep(kind):
    raw = SCENARIOS[kind](SMALL[kind])
    whole = simcore.run(raw)
    dim, values = next(iter(raw["sweep"].items()))
    single = simcore.run({**raw, "sweep": {**raw["sweep"], dim: values[-1:]}})
    counts = [
        name
        for name in single.data_vars
        if name.startswith(("n_", "sum_")) and dim in single[name].dims
    ]
    for name in counts:
        xr.testing.assert_equal(whole[name].isel({dim: [-1]}), single[name])


def test_a_store_is_not_resumed_over_changed_data(tmp_path, capsys):
    data = tmp_path / "wax"
    shutil.copytree(WAX, data)
    raw = {**real(SMALL["real"]), "data": {"format": "alttest", "path": str(data)}}
    path = write(tmp_path, raw)
    out = tmp_path / "cube.zarr"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    humans = json.loads((data / "human_annotations.json").read_text())
    human = next(iter(humans))
    item = next(iter(humans[human]))
    labels = sorted({label for ratings in humans.values() for label in ratings.values()})
    humans[human][item] = next(label for label in labels if label != humans[human][item])
    (data / "human_annotations.json").write_text(json.dumps(humans))
    assert main(["run", str(path), "--out", str(out), "--quiet", "--trials", "24"]) == 2
    assert "other inputs (its data changed)" in capsys.readouterr().err
    assert int(xr.open_zarr(out)["n_trials"].max()) == SMALL["real"]  # untouched
    assert main(["run", str(path), "--out", str(out), "--quiet", "--overwrite"]) == 0
