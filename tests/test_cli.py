"""The command line: exit statuses, messages, and a tiny real run into a zarr store."""

import subprocess
import sys

import numpy as np
import pytest
import xarray as xr
import zarr
from scenario_files import FIG2, variant, write_scenario

from simcore.cli import main
from simcore.studies.synthetic.cell import COUNT_NAMES
from simcore.studies.synthetic.scenario import load_scenario
from simcore.sweep import grid

TINY = {
    "name": "tiny",
    "model": {"n_items": 40, "n_humans": 3, "p_human": 0.85},
    "design": {"kind": "bernoulli", "rho": 0.5},
    "trials": 50,
    "seed": 11,
    "sweep": {"p_judge": [0.9, 0.6]},
}
COUNTS = (*COUNT_NAMES, "omega_hist")


def counts(store):
    """Load the count variables of a store with plain xarray."""
    with xr.open_zarr(str(store)) as cube:
        return cube[list(COUNTS)].load()


def scenario_hash(store):
    with xr.open_zarr(str(store)) as cube:
        return cube.attrs["scenario_hash"]


@pytest.fixture
def tiny_run(tmp_path, capsys):
    """Run the tiny scenario into ``tmp_path/x.zarr``; return (scenario, store, status, out)."""
    scenario = write_scenario(tmp_path, TINY)
    store = tmp_path / "x.zarr"
    status = main(["run", str(scenario), "--out", str(store)])
    out = capsys.readouterr().out
    return scenario, store, status, out


# --------------------------------------------------------------------------- validate


def test_validate_fig2_exits_0_and_says_valid(capsys):
    assert main(["validate", str(FIG2)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out
    assert "20 cells" in out


def test_validate_bad_file_exits_2_naming_key(tmp_path, capsys):
    path = write_scenario(tmp_path, variant(TINY, {"model.p_judge": 1.5}))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: model.p_judge:" in err


def test_python_dash_m_simcore_validate(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "simcore", "validate", str(FIG2)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout


# --------------------------------------------------------------------------- bad input


BAD_SCENARIOS = {
    "unknown_key": ({"model.nope": 3}, "model.nope"),
    "wrong_type": ({"model.n_items": "abc"}, "model.n_items"),
    "p_judge_zero": ({"model.p_judge": 0, "sweep": None}, "model.p_judge"),
    "p_judge_above_one": ({"sweep.p_judge": [0.9, 1.5]}, "sweep.p_judge[1]"),
    "rho_zero": ({"design.rho": 0}, "design.rho"),
    "rho_negative": ({"design.rho": -0.1}, "design.rho"),
    "m_above_n": ({"design.kind": "exact_m", "design.m": 100}, "design.m"),
    "one_human": ({"model.n_humans": 1}, "model.n_humans"),
    "empty_sweep": ({"sweep": {"rho": []}}, "sweep.rho"),
}


@pytest.mark.parametrize("case", BAD_SCENARIOS)
def test_run_bad_scenario_exits_2_names_file_and_key_writes_nothing(tmp_path, capsys, case):
    changes, key = BAD_SCENARIOS[case]
    scenario = write_scenario(tmp_path, variant(TINY, changes))
    out = tmp_path / "out" / "x.zarr"
    assert main(["run", str(scenario), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{scenario}: {key}:" in err
    assert not out.exists()
    assert not out.parent.exists()


def test_run_zero_trials_exits_2(tmp_path, capsys):
    scenario = write_scenario(tmp_path, TINY)
    out = tmp_path / "x.zarr"
    assert main(["run", str(scenario), "--out", str(out), "--trials", "0"]) == 2
    assert f"{scenario}: trials:" in capsys.readouterr().err
    assert not out.exists()


def test_run_missing_file_exits_2(tmp_path, capsys):
    missing = tmp_path / "absent.yaml"
    out = tmp_path / "x.zarr"
    assert main(["run", str(missing), "--out", str(out)]) == 2
    assert str(missing) in capsys.readouterr().err
    assert not out.exists()


def test_run_directory_exits_2(tmp_path, capsys):
    folder = tmp_path / "folder"
    folder.mkdir()
    out = tmp_path / "x.zarr"
    assert main(["run", str(folder), "--out", str(out)]) == 2
    assert str(folder) in capsys.readouterr().err
    assert not out.exists()


def test_run_set_unknown_key_exits_2_naming_it(tmp_path, capsys):
    scenario = write_scenario(tmp_path, TINY)
    out = tmp_path / "x.zarr"
    assert main(["run", str(scenario), "--out", str(out), "--set", "model.nope=3"]) == 2
    assert "model.nope" in capsys.readouterr().err
    assert not out.exists()


def test_run_set_bad_value_exits_2(tmp_path, capsys):
    scenario = write_scenario(tmp_path, TINY)
    out = tmp_path / "x.zarr"
    assert main(["run", str(scenario), "--out", str(out), "--set", "model.n_items=abc"]) == 2
    assert f"{scenario}: model.n_items:" in capsys.readouterr().err
    assert not out.exists()


def test_run_zero_workers_exits_2(tmp_path, capsys):
    scenario = write_scenario(tmp_path, TINY)
    out = tmp_path / "x.zarr"
    assert main(["run", str(scenario), "--out", str(out), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    assert not out.exists()


def test_show_of_a_path_that_is_not_a_store_exits_2(tmp_path, capsys):
    assert main(["show", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


# --------------------------------------------------------------------------- a tiny run


def test_run_tiny_scenario_exits_0_and_prints_table(tiny_run):
    _, store, status, out = tiny_run
    assert status == 0
    assert "p_judge" in out
    assert "wrong decision" in out
    assert "0.9" in out
    assert "0.6" in out
    assert store.is_dir()


def test_show_finished_store(tiny_run, capsys):
    _, store, _, _ = tiny_run
    assert main(["show", str(store)]) == 0
    out = capsys.readouterr().out
    assert "wrong decision" in out
    assert "0.6" in out


def test_show_json_and_csv_hold_the_cube_cells(tiny_run, capsys):
    import csv
    import io
    import json

    _, store, _, _ = tiny_run
    assert main(["show", str(store), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["command"] == "show" and document["dims"] == ["p_judge"]
    assert "n_wrong" in document["variables"] and "omega_hist" not in document["variables"]
    assert main(["show", str(store), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    cube = counts(store)
    assert [float(row["p_judge"]) for row in rows] == list(cube["p_judge"].values)
    for row, cell in zip(rows, document["cells"], strict=True):
        assert int(row["n_wrong"]) == cell["n_wrong"]
        assert cell["n_wrong"] == int(cube["n_wrong"].sel(p_judge=cell["p_judge"]))
        assert cell["n_trials"] == 50
    assert main(["show", str(store)]) == 0
    text = capsys.readouterr().out
    for cell in document["cells"]:
        assert f"{cell['p_judge']:g}" in text


def test_plot_writes_a_png(tiny_run, tmp_path, capsys):
    _, store, _, _ = tiny_run
    png = tmp_path / "x.png"
    assert main(["plot", str(store), "--out", str(png)]) == 0
    assert png.stat().st_size > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_store_opens_with_plain_xarray(tiny_run):
    _, store, _, _ = tiny_run
    with xr.open_zarr(str(store)) as cube:
        assert cube["n_trials"].dims == ("p_judge",)
        np.testing.assert_allclose(cube["p_judge"].values, [0.9, 0.6])
        np.testing.assert_array_equal(cube["n_trials"].values, [50, 50])
        for name in ("wrong_decision_rate", "wrong_decision_rate_se"):
            assert cube[name].dims == ("p_judge",)
            assert np.isfinite(cube[name].values).all()
        assert cube["omega_hist"].dims == ("p_judge", "omega")
        np.testing.assert_array_equal(cube["omega_hist"].sum("omega").values, [50, 50])
        for attr in (
            "scenario_hash",
            "root_seed",
            "numba_version",
            "numpy_version",
            "simcore_version",
        ):
            assert attr in cube.attrs
        assert cube.attrs["root_seed"] == 11
        assert cube.attrs["complete"] == 1


def test_run_of_a_different_scenario_into_the_store_is_refused(tiny_run, tmp_path, capsys):
    _, store, _, _ = tiny_run
    before_hash, before = scenario_hash(store), counts(store)
    other = write_scenario(tmp_path, variant(TINY, {"seed": 12}), name="other.yaml")
    assert main(["run", str(other), "--out", str(store)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert scenario_hash(store) == before_hash
    xr.testing.assert_identical(counts(store), before)


def test_run_of_a_different_scenario_with_overwrite_replaces_the_store(tiny_run, tmp_path):
    _, store, _, _ = tiny_run
    before_hash = scenario_hash(store)
    other = write_scenario(tmp_path, variant(TINY, {"seed": 12}), name="other.yaml")
    assert main(["run", str(other), "--out", str(store), "--overwrite", "--quiet"]) == 0
    assert scenario_hash(store) != before_hash
    assert scenario_hash(store) == load_scenario(other).content_hash()


def test_rerun_into_a_finished_store_keeps_the_counts(tiny_run):
    scenario, store, _, _ = tiny_run
    before = counts(store)
    assert main(["run", str(scenario), "--out", str(store), "--quiet"]) == 0
    xr.testing.assert_equal(counts(store), before)


def test_same_scenario_into_a_fresh_store_gives_the_same_counts(tiny_run, tmp_path):
    scenario, store, _, _ = tiny_run
    again = tmp_path / "again.zarr"
    assert main(["run", str(scenario), "--out", str(again), "--quiet"]) == 0
    xr.testing.assert_equal(counts(again), counts(store))


# --------------------------------------------------------------------------- resuming


def _interrupt_after_first_cell(monkeypatch):
    """Make the next run stop after its first cell, as Ctrl-C would (exit status 130)."""
    real = grid.execute

    def interrupted(*args, **kwargs):
        cells = real(*args, **kwargs)
        yield next(cells)
        cells.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(grid, "execute", interrupted)


def test_interrupted_extension_leaves_store_marked_unfinished(tiny_run, monkeypatch, capsys):
    # Re-running with more trials recomputes every cell; if that is interrupted the store
    # holds cells of 60 and of 50 trials with stale rates, so it must not claim to be
    # complete (see report).
    scenario, store, _, _ = tiny_run
    _interrupt_after_first_cell(monkeypatch)
    status = main(["run", str(scenario), "--out", str(store), "--trials", "60", "--quiet"])
    assert status == 130
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["show", str(store)]) == 2
    assert "unfinished" in capsys.readouterr().err
    assert main(["run", str(scenario), "--out", str(store), "--trials", "60", "--quiet"]) == 0
    np.testing.assert_array_equal(counts(store)["n_trials"].values, [60, 60])


def test_resume_with_the_sweep_in_another_order_never_mixes_up_cells(tmp_path, capsys):
    # Same sweep, other dimension order: a resumed store must either be refused or keep
    # every cell's counts at its own coordinates (see report).
    sweep = {"p_judge": [0.9, 0.6], "rho": [0.5, 0.25]}
    forward = write_scenario(tmp_path, variant(TINY, {"sweep": sweep}), name="forward.yaml")
    backward = write_scenario(
        tmp_path, variant(TINY, {"sweep": dict(reversed(sweep.items()))}), name="backward.yaml"
    )
    store = tmp_path / "x.zarr"
    assert main(["run", str(forward), "--out", str(store), "--quiet"]) == 0
    before = counts(store)
    # an interruption would have left cell (p_judge=0.9, rho=0.25) unfinished
    zarr.open_group(str(store), mode="r+")["cell_complete"][0, 1] = False
    status = main(["run", str(backward), "--out", str(store), "--quiet"])
    if status == 2:
        assert "--overwrite" in capsys.readouterr().err
        return
    assert status == 0
    after = counts(store)
    at_same_coords = {dim: before[dim].values for dim in ("p_judge", "rho")}
    for name in COUNTS:
        np.testing.assert_array_equal(
            after[name].sel(at_same_coords).transpose(*before[name].dims).values,
            before[name].values,
            err_msg=name,
        )
