"""The coverage study as a scenario kind: cube, reproducibility, store, CLI, bad input."""

import copy

import numpy as np
import pytest
import xarray as xr
import yaml

import simcore
from simcore.cli import main
from simcore.studies.config import ScenarioError

TRIALS = 1500

SCENARIO = {
    "name": "coverage-test",
    "kind": "coverage",
    "judges": {"medium": {"se": 0.8, "sp": 0.8}, "strong": {"se": 0.95, "sp": 0.95}},
    "confidence": 0.95,
    "youden_floor": 0.15,
    "trials": TRIALS,
    "seed": 7,
    "sweep": {"n_cal": [25, 100], "theta": [0.15], "n_production": [100000]},
}


def scenario(**changes):
    """Return the test scenario with top-level or sweep entries replaced."""
    raw = copy.deepcopy(SCENARIO)
    for key, value in changes.items():
        if key in raw["sweep"]:
            raw["sweep"][key] = value
        else:
            raw[key] = value
    return raw


@pytest.fixture(scope="module")
def cube():
    return simcore.run(scenario())


def test_the_cube_has_the_swept_dims_and_the_named_variables(cube):
    assert cube["n_trials"].dims == ("n_cal", "judge_strength", "theta", "n_production")
    for name in ("coverage", "coverage_se", "coverage_theta", "width", "refusal", "refusal_se"):
        assert cube[name].dims == (*cube["n_trials"].dims, "method")
        assert "long_name" in cube[name].attrs
    legacy = ("coverage_lr", "coverage_naive", "width_lr", "n_covered_lr", "sum_width_naive")
    assert not set(legacy + ("refusal_rate",)) & set(cube.variables)  # one name per number
    assert list(cube["se"].values) == [0.8, 0.95]
    total = cube["n_corrected"] + cube["n_refused"]
    assert (total == cube["n_trials"]).all() and (cube["n_trials"] == TRIALS).all()
    assert cube.attrs["kind"] == "coverage"


def test_lr_covers_and_naive_does_not_at_small_calibration_and_large_n(cube):
    """At n_cal 25 and N 1e5 the naive interval ignores the dominant (calibration) error."""
    cell = cube.sel(n_cal=25, judge_strength="medium", theta=0.15, n_production=100000)
    lr, naive = (cell.sel({"method": method}) for method in ("lr", "naive"))
    corrected = int(cell["n_corrected"])
    tolerance = 3 * np.sqrt(0.95 * 0.05 / corrected)  # 3 binomial SEs at the nominal level
    assert float(lr["coverage"]) >= 0.95 - tolerance
    gap = float(lr["coverage"] - naive["coverage"])
    combined = float(np.hypot(lr["coverage_se"], naive["coverage_se"]))
    assert gap > 10 * combined
    assert float(naive["width"]) < float(lr["width"])


def test_a_cell_does_not_depend_on_the_rest_of_the_sweep(cube):
    alone = simcore.run(scenario(n_cal=[100], judges={"strong": {"se": 0.95, "sp": 0.95}}))
    for name in ("n_covered", "n_declined", "sum_width", "n_refused"):
        assert (
            alone[name].squeeze(drop=True).values
            == cube[name].sel(n_cal=100, judge_strength="strong").squeeze(drop=True).values
        ).all()


def test_the_store_opens_without_simcore_and_is_reused(tmp_path, capsys):
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario()))
    store = tmp_path / "coverage.zarr"
    assert main(["run", str(path), "--out", str(store), "--quiet"]) == 0
    opened = xr.open_zarr(str(store))
    assert int(opened["n_trials"].sum()) == 4 * TRIALS
    assert main(["show", str(store)]) == 0
    assert "| medium (0.80, 0.80) | 0.15 | 100000 | 25 |" in capsys.readouterr().out
    figure = tmp_path / "coverage.png"
    assert main(["plot", str(store), "--out", str(figure)]) == 0
    assert figure.stat().st_size > 10_000
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(scenario(seed=8)))
    assert main(["run", str(other), "--out", str(store), "--quiet"]) == 2
    assert "holds a store of a different scenario" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"judges": {"weak": {"se": 1.5, "sp": 0.7}}}, "judges.weak.se"),
        ({"judges": {"weak": {"se": 0.7}}}, "judges.weak: must be {se: ..., sp: ...}"),
        ({"n_cal": [25, 0]}, "sweep.n_cal"),
        ({"theta": []}, "sweep.theta: must be a non-empty list"),
        ({"confidence": 1.5}, "confidence"),
        ({"bogus": 1}, "bogus: unknown key for a coverage scenario"),
    ],
)
def test_bad_input_names_the_key_and_exits_2(tmp_path, capsys, change, message):
    raw = scenario(**change)
    with pytest.raises(ScenarioError, match=message.replace("{", r"\{").replace("}", r"\}")):
        simcore.run(raw)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    store = tmp_path / "never.zarr"
    assert main(["run", str(path), "--out", str(store)]) == 2
    assert str(path) in capsys.readouterr().err
    assert not store.exists()


def test_validate_counts_the_cells(tmp_path, capsys):
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario()))
    assert main(["validate", str(path)]) == 0
    assert "valid; 4 cells" in capsys.readouterr().out


METHODS = ["naive", "lr", "ppi", "ppi++", "strat-ppi"]


def test_every_method_is_on_the_method_axis_and_the_floor_refuses_naive_and_lr_alike(cube):
    assert list(cube["method"].values) == METHODS
    assert cube["coverage"].dims == ("n_cal", "judge_strength", "theta", "n_production", "method")
    for method in ("naive", "lr"):
        entry = cube.sel({"method": method})
        assert (cube["n_refused"] == entry["n_declined"]).all()
    assert (cube["n_covered"] <= cube["n_trials"] - cube["n_declined"]).all()


@pytest.fixture(scope="module")
def easy_corner():
    """Strong judges at n_cal 400 (symmetric and asymmetric), a few thousand trials a cell."""
    judges = {
        "strong": {"se": 0.95, "sp": 0.95},
        "sensitive": {"se": 0.95, "sp": 0.70},
    }
    return simcore.run(
        scenario(judges=judges, n_cal=[400], theta=[0.15, 0.5], n_production=[1000], trials=4000)
    )


def _within_3_se(cell, variable):
    """Return whether ``cell[variable]`` is at least 95% minus 3 binomial SEs, everywhere."""
    kept = cell["n_trials"] - cell["n_declined"]
    return bool((cell[variable] >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / kept)).all())


@pytest.mark.parametrize("method", METHODS[1:])
def test_every_corrected_interval_covers_at_the_easy_corner(easy_corner, method):
    """Strong judge, n_cal 400: coverage within 3 binomial SEs of 95% (or above)."""
    cell = easy_corner.sel({"method": method, "judge_strength": "strong"})
    assert (cell["refusal"] == 0).all()
    assert _within_3_se(cell, "coverage"), cell["coverage"].values.ravel()
    assert _within_3_se(cell, "coverage_theta"), cell["coverage_theta"].values.ravel()


@pytest.mark.parametrize("method", METHODS[2:])
def test_the_ppi_intervals_cover_theta_for_an_asymmetric_judge(easy_corner, method):
    cell = easy_corner.sel({"method": method, "judge_strength": "sensitive"})
    assert _within_3_se(cell, "coverage_theta"), cell["coverage_theta"].values.ravel()


def test_ppi_plus_plus_undercovers_the_streams_rate_when_lambda_is_small(easy_corner):
    """Se 0.95 / Sp 0.70 at theta 0.15 tunes lambda to about 0.25: the interval then leans on
    the calibration mean of Y and its production term, lambda^2 q(1-q)/N, leaves out the
    stream's own sampling variance around theta (about Var(Y - lambda f)/N)."""
    cell = easy_corner.sel(
        {"method": "ppi++", "judge_strength": "sensitive", "theta": 0.15, "n_production": 1000}
    )
    assert not _within_3_se(cell, "coverage")
    assert _within_3_se(cell, "coverage_theta")


def test_the_report_compares_the_methods_and_advises_per_region(easy_corner):
    from simcore.studies.coverage.advice import advise
    from simcore.studies.coverage.report import summary

    advice = advise(easy_corner)
    assert [(a.band, a.judge, a.theta) for a in advice] == [
        ("large", judge, theta) for judge in ("strong", "sensitive") for theta in (0.15, 0.5)
    ]
    for item in advice:
        region = easy_corner.sel(judge_strength=item.judge, theta=item.theta)
        assert item.qualifies and item.method in item.qualifying and item.method != "naive"
        widths = {m: float(region["width"].sel({"method": m}).mean()) for m in item.qualifying}
        assert widths[item.method] == min(widths.values())
    table = summary(easy_corner)
    assert "| naive | lr | ppi | ppi++ | strat-ppi |" in table
    assert "## Which interval to use" in table
