"""A store is never shrunk, and a figure says which state of its store it shows.

A run asking fewer trials than a store holds is refused (exit 2, one line, every file of
the store unchanged) unless ``--overwrite``; more trials extend it; a store left between
two trial counts is judged cell by cell. ``simcore plot`` records the store's state in the
figure's metadata, and ``simcore run`` names a figure drawn from an earlier state.
"""

import hashlib

import numpy as np
import pytest
import xarray as xr
import yaml
from PIL import Image
from test_long_sweeps import scenario

import simcore
from simcore.cli import main
from simcore.studies.figure_stamp import KEYS, read_state
from simcore.sweep import grid
from simcore.sweep import run as sweep_run
from simcore.sweep.store import StoreError
from simcore.testing import assert_cubes_identical


def tiny(trials=30):
    """Two cells of 40 items: a store in a second or two."""
    return scenario(trials=trials, p_judge=(0.9, 0.7), rho=(0.1,), n_items=40)


def files(folder):
    """``{path: SHA-256}`` of every file under ``folder`` (the store and what lies beside it)."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def store(tmp_path):
    """A finished store of :func:`tiny` at 30 trials, its scenario file beside it."""
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(tiny()))
    out = tmp_path / "cube.zarr"
    simcore.run(tiny(), out=out)
    return path, out


def run_cli(path, out, *extra):
    return main(["run", str(path), "--out", str(out), "--quiet", *extra])


def test_fewer_trials_are_refused_before_any_work_and_the_store_is_untouched(
    store, capsys, monkeypatch
):
    path, out = store
    before = files(out.parent)
    capsys.readouterr()

    def no_work(*args, **kwargs):
        raise AssertionError("the study was consulted: work began before the refusal")

    monkeypatch.setattr(sweep_run, "study_of", no_work)
    assert run_cli(path, out, "--trials", "10") == 2
    err = capsys.readouterr().err
    assert err == (
        f"simcore run: {out}: holds 30 trials per cell; a run of 10 trials per cell would "
        "replace them with fewer; ask for 30 or more (--trials) to keep or extend them, use "
        "--overwrite to replace the store, or --out for another store\n"
    )
    assert files(out.parent) == before  # every file byte-identical, no lock left beside it


def test_the_python_function_raises_the_same_refusal(store):
    _, out = store
    before = files(out.parent)
    with pytest.raises(StoreError, match=r"holds 30 trials per cell; a run of 10 trials"):
        simcore.run(tiny(), trials=10, out=out)
    assert files(out.parent) == before


def test_overwrite_replaces_the_store_and_more_trials_extend_it(store):
    path, out = store
    assert run_cli(path, out, "--trials", "10", "--overwrite") == 0
    assert_cubes_identical(xr.open_zarr(out).load(), simcore.run(tiny(trials=10)))
    assert run_cli(path, out, "--trials", "60") == 0
    extended = xr.open_zarr(out).load()
    np.testing.assert_array_equal(extended["n_trials"], 60)
    assert_cubes_identical(extended, simcore.run(tiny(trials=60)))


def interrupted_extension(out, trials, monkeypatch):
    """Extend ``out`` to ``trials``, interrupted after the first cell is written."""
    execute = grid.execute

    def one_cell(*args, **kwargs):
        cells = execute(*args, **kwargs)
        yield next(cells)
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(grid, "execute", one_cell)
        with pytest.raises(KeyboardInterrupt):
            simcore.run(tiny(), trials=trials, out=out)


def test_a_store_between_two_trial_counts_is_judged_cell_by_cell(store, monkeypatch):
    path, out = store
    interrupted_extension(out, 60, monkeypatch)
    ints = np.asarray(xr.open_zarr(out, consolidated=False)["cell_ints"][..., 0]).ravel()
    assert sorted(ints) == [30, 60]  # one cell extended, one not
    before = files(out.parent)
    with pytest.raises(StoreError) as refused:
        simcore.run(tiny(), trials=45, out=out)
    assert str(refused.value) == (
        f"{out}: holds up to 60 trials per cell (more than 45 in 1 of its 2 finished cells); "
        "a run of 45 trials per cell would replace them with fewer; ask for 60 or more "
        "(--trials) to keep or extend them, use --overwrite to replace the store, or --out "
        "for another store"
    )
    assert files(out.parent) == before
    # the cell with fewer trials is extended as usual, to a fresh run's numbers
    assert run_cli(path, out, "--trials", "60") == 0
    assert_cubes_identical(xr.open_zarr(out).load(), simcore.run(tiny(trials=60)))


def test_plot_records_the_store_state_in_the_figure(store, capsys):
    _, out = store
    cube = xr.open_zarr(out)
    for suffix in (".png", ".svg", ".pdf"):
        figure = out.with_name(f"drawn{suffix}")
        assert main(["plot", str(out), "--out", str(figure)]) == 0
        assert read_state(figure) == {
            "store": str(out),
            "scenario_hash": cube.attrs["scenario_hash"],
            "created": cube.attrs["created"],
            "trials": "30",
        }
    text = Image.open(out.with_name("drawn.png")).text
    assert text[KEYS["trials"]] == "30" and text[KEYS["store"]] == str(out)
    assert text["Description"] == f"drawn by simcore from store {out} at 30 trials per cell"


def test_run_names_a_figure_drawn_from_an_earlier_state_of_its_store(store, capsys):
    path, out = store
    figure = out.with_suffix(".png")  # where ``simcore plot STORE`` draws by default
    assert main(["plot", str(out)]) == 0
    assert run_cli(path, out) == 0  # nothing changed: nothing said
    assert capsys.readouterr().err == ""
    drawn = figure.read_bytes()
    assert run_cli(path, out, "--trials", "60") == 0
    assert capsys.readouterr().err == (
        f"simcore: {figure} was drawn from this store at 30 trials per cell (it now holds 60); "
        f"redraw it with: simcore plot {out} --out {figure}\n"
    )
    assert figure.read_bytes() == drawn  # named, never deleted
    assert main(["plot", str(out), "--out", str(figure)]) == 0
    capsys.readouterr()
    assert run_cli(path, out, "--trials", "10", "--overwrite") == 0
    assert "(it now holds 10)" in capsys.readouterr().err
    assert main(["plot", str(out)]) == 0
    assert run_cli(path, out, "--trials", "10", "--overwrite") == 0  # same trials, new store
    assert "the store has since been replaced" in capsys.readouterr().err


def test_a_figure_of_another_store_at_the_default_path_is_not_named(store, tmp_path, capsys):
    path, out = store
    other = tmp_path / "other.zarr"
    simcore.run(tiny(), out=other)
    assert main(["plot", str(other), "--out", str(out.with_suffix(".png"))]) == 0
    capsys.readouterr()
    assert run_cli(path, out, "--trials", "60") == 0
    assert capsys.readouterr().err == ""
