"""The Python entry point: run a scenario and get its cube."""

import copy
import sys
from pathlib import Path

from simcore.studies.config import apply_overrides, read_raw, scenario_from_dict
from simcore.sweep import grid, store


def _as_scenario(scenario, sets, trials, seed):
    """Return a validated scenario (synthetic or real-data) from any accepted form."""
    if isinstance(scenario, str | Path):
        overrides = [f"{key}={value}" for key, value in (sets or {}).items()]
        return load_any(scenario, overrides=overrides, trials=trials, seed=seed)
    if not (sets or trials is not None or seed is not None) and not isinstance(scenario, dict):
        return scenario  # a loaded scenario, unchanged
    if isinstance(scenario, dict):
        raw, source, base = copy.deepcopy(scenario), "<dict>", None
    else:
        raw, source, base = scenario.to_dict(), scenario.source, None
    apply_overrides(raw, [f"{key}={value}" for key, value in (sets or {}).items()], source)
    if trials is not None:
        raw["trials"] = trials
    if seed is not None:
        raw["seed"] = seed
    return _validate(raw, source, base)


def _validate(raw, source, base):
    if isinstance(raw, dict) and raw.get("kind") == "coverage":
        from simcore.studies.coverage import coverage_scenario_from_dict

        return coverage_scenario_from_dict(raw, source=source)
    if isinstance(raw, dict) and raw.get("kind") == "real":
        from simcore.studies.real import real_scenario_from_dict

        return real_scenario_from_dict(raw, source=source, base=base)
    return scenario_from_dict(raw, source=source)


def load_any(path, overrides=(), trials=None, seed=None):
    """Load a synthetic, a real-data (``kind: real``) or a ``kind: coverage`` scenario file.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Every problem, naming the file, the key and the bad value.
    """
    raw = read_raw(path, overrides, trials, seed)
    return _validate(raw, str(path), Path(path).parent)


def run(
    scenario,
    *,
    out=None,
    trials=None,
    seed=None,
    sets=None,
    workers=None,
    scheduler=None,
    overwrite=False,
    progress=False,
    threads=None,
):
    """Run a scenario's sweep and return its cube.

    Parameters
    ----------
    scenario : str, pathlib.Path, dict or Scenario
        A scenario file, a raw mapping, or a loaded :class:`~simcore.studies.config.Scenario`.
    out : str or pathlib.Path, optional
        Zarr store to write (resumed if it holds an unfinished run of the same scenario).
        Without it the cube is computed in memory only.
    trials, seed : int, optional
        Override the trial count or the root seed.
    sets : dict, optional
        ``{"model.n_items": 1000, ...}`` overrides, as ``--set`` on the command line.
    workers : int, optional
        Run on a local cluster of this many worker processes.
    scheduler : str, optional
        Address of a dask.distributed scheduler to run on.
    overwrite : bool
        Replace whatever ``out`` holds.
    progress : bool
        Report progress on stderr.
    threads : int, optional
        Numba threads per cell on the default in-process scheduler (default: all cores).
        Results do not depend on it.

    Returns
    -------
    xarray.Dataset
        The cube: counts, rates with standard errors, and provenance attributes.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Bad scenario input (nothing is written).
    simcore.sweep.store.StoreError
        ``out`` holds another scenario's store and ``overwrite`` is false.
    simcore.sweep.grid.SchedulerError
        No scheduler answers at ``scheduler`` (nothing is written).
    """
    scenario = _as_scenario(scenario, sets, trials, seed)
    if getattr(scenario, "judges", None) is not None and hasattr(scenario, "n_cal"):
        from simcore.studies.coverage import run_coverage

        return run_coverage(scenario, out=out, overwrite=overwrite)
    if getattr(scenario, "designs", None) is not None:  # a real-data scenario
        from simcore.studies.real import run_real

        return run_real(scenario, out=out, overwrite=overwrite)
    cells = list(scenario.cells())
    with grid.connect(workers, scheduler, threads) as connection:
        if out is None:
            cube = store.empty_cube(scenario)
            for index, counts in grid.execute(
                cells, scenario.seed, scenario.trials, connection, progress
            ):
                store.put_cell(cube, index, counts)
            cube.attrs["complete"] = 1
            return store.derive(cube, scenario)
        out = Path(out)
        with store.writer_lock(out):
            done, damaged = store.prepare(out, scenario, overwrite=overwrite)
            for index in damaged:
                print(
                    f"simcore: {out}: cell {index} is damaged (missing or unreadable chunks); "
                    "recomputing it",
                    file=sys.stderr,
                )
            starts = {}
            for cell in cells:
                have = done.get(cell.index, 0)
                if have != scenario.trials:
                    starts[cell.index] = have if have < scenario.trials else 0
            todo = [cell for cell in cells if cell.index in starts]
            n_judges = store.judge_count(scenario)
            writer = store.CellWriter(out, scenario)
            cells_by_index = {cell.index: cell for cell in todo}
            for index, counts in grid.execute(
                todo, scenario.seed, scenario.trials, connection, progress, starts
            ):
                previous = None
                if starts[index] > 0:
                    previous = writer.read(cells_by_index[index], n_judges)
                writer.write(index, counts, previous)
            return store.finalize(out, scenario)
