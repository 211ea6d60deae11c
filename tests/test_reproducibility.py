"""Reproducibility tier: a cell's numbers depend only on root seed, coordinates and trials."""

import numpy as np
import pytest
import xarray as xr
import zarr

import simcore
from simcore.testing import assert_counts_consistent, assert_cubes_identical

COUNTS = [
    "n_trials",
    "n_ref_accept",
    "n_wrong",
    "n_false_reject",
    "n_false_accept",
    "n_empty_comparisons",
    "omega_hist",
]


def scenario(p_judge=(0.9, 0.7), rho=(0.05, 0.2), seed=5, trials=1500):
    return {
        "model": {"n_items": 120, "n_humans": 4, "p_human": 0.85},
        "design": {"kind": "bernoulli"},
        "trials": trials,
        "seed": seed,
        "sweep": {"p_judge": list(p_judge), "rho": list(rho)},
    }


@pytest.fixture(scope="module")
def baseline():
    return simcore.run(scenario())


def test_counts_add_up(baseline):
    assert_counts_consistent(baseline)
    assert int(baseline["n_wrong"].sum()) > 0


def test_numba_threads_do_not_change_the_cube(baseline):
    assert_cubes_identical(simcore.run(scenario(), threads=1), baseline)
    assert_cubes_identical(simcore.run(scenario(), threads=2), baseline)


@pytest.mark.parametrize("workers", [1, 2])
def test_dask_workers_do_not_change_the_cube(baseline, workers):
    assert_cubes_identical(simcore.run(scenario(), workers=workers), baseline)


def test_a_cell_does_not_change_when_the_sweep_grows(baseline):
    alone = simcore.run(scenario(p_judge=[0.7], rho=[0.2]))
    bigger = simcore.run(scenario(p_judge=[0.95, 0.7, 0.6], rho=[0.2, 0.5, 0.05]))
    for name in COUNTS:
        expected = baseline[name].sel(p_judge=0.7, rho=0.2)
        xr.testing.assert_equal(alone[name].sel(p_judge=0.7, rho=0.2), expected)
        xr.testing.assert_equal(bigger[name].sel(p_judge=0.7, rho=0.2), expected)


def test_a_fixed_parameter_and_a_one_value_sweep_agree(baseline):
    raw = scenario(p_judge=[0.7], rho=[0.2])
    raw["model"]["p_judge"] = 0.7
    del raw["sweep"]["p_judge"]
    fixed = simcore.run(raw)
    for name in COUNTS:
        np.testing.assert_array_equal(
            fixed[name].sel(rho=0.2).values, baseline[name].sel(p_judge=0.7, rho=0.2).values
        )


def test_more_trials_extend_the_same_trials():
    # The first trials of a longer run are the trials of the shorter run: the omega
    # histogram of 1500 trials dominates that of 300, cell by cell.
    short = simcore.run(scenario(trials=300))
    long = simcore.run(scenario(trials=1500))
    assert (long["omega_hist"] >= short["omega_hist"]).all()
    assert not (long["omega_hist"] == short["omega_hist"]).all()


def test_a_different_seed_gives_different_numbers(baseline):
    other = simcore.run(scenario(seed=6))
    assert not (other["omega_hist"] == baseline["omega_hist"]).all()


def test_store_equals_memory_and_resumes_after_interruption(tmp_path, baseline):
    store = tmp_path / "cube.zarr"
    written = simcore.run(scenario(), out=store)
    for name in COUNTS:
        xr.testing.assert_equal(written[name], baseline[name])
    # Pretend the run died after two cells: clear the others and the completion mark.
    group = zarr.open_group(str(store), mode="r+")
    group["cell_complete"][1, :] = False
    group["cell_ints"][1, ...] = 0
    group.attrs["complete"] = 0
    resumed = simcore.run(scenario(), out=store)
    assert_cubes_identical(xr.open_zarr(store), written)
    assert_cubes_identical(resumed, written)


def test_an_existing_cluster_gives_the_same_cube(baseline):
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:
        remote = simcore.run(scenario(), scheduler=cluster.scheduler_address)
    assert_cubes_identical(remote, baseline)
