"""The Python entry point: run a scenario and get its cube."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from simcore.options import plain_number, plain_numbers, shown_value
from simcore.studies import KINDS, study_for
from simcore.studies.config import ScenarioError, apply_overrides, read_raw
from simcore.sweep.run import run_sweep

if TYPE_CHECKING:
    import xarray as xr

ScenarioSource: TypeAlias = "str | Path | Mapping[str, Any] | Any"
"""A scenario file, a raw mapping, or a scenario already loaded (of any kind)."""


def _as_scenario(scenario, sets, trials, seed):
    """Return a validated scenario of any kind from any accepted form."""
    if sets is not None and not isinstance(sets, dict):
        raise TypeError(
            f"sets: must be a mapping {{'KEY': VALUE}}, as {{'model.n_items': 1000}} "
            f"(got {type(sets).__name__} {sets!r})"
        )
    _check_scenario_type(scenario)
    sets, trials, seed = plain_numbers(sets), plain_number(trials), plain_number(seed)
    if isinstance(scenario, str | Path):
        overrides = [f"{key}={value}" for key, value in (sets or {}).items()]
        return load_scenario(scenario, overrides=overrides, trials=trials, seed=seed)
    if not (sets or trials is not None or seed is not None) and not isinstance(scenario, dict):
        return scenario  # a loaded scenario, unchanged
    if isinstance(scenario, dict):
        raw, source, base = plain_numbers(copy.deepcopy(scenario)), "<dict>", None
    else:
        raw, source, base = scenario.to_dict(), scenario.source, None
    apply_overrides(raw, [f"{key}={value}" for key, value in (sets or {}).items()], source)
    if trials is not None:
        raw["trials"] = trials
    if seed is not None:
        raw["seed"] = seed
    return _validate(raw, source, base)


def _check_scenario_type(scenario):
    """Refuse a ``scenario`` that is neither a file, a mapping nor a loaded scenario.

    Raises
    ------
    TypeError
        ``scenario: must be a scenario file (str or pathlib.Path), a mapping or a loaded
        scenario (got int 5)``.
    """
    if isinstance(scenario, str | Path | dict):
        if isinstance(scenario, str) and ("\x00" in scenario or not scenario.strip()):
            raise ScenarioError([f"scenario: must be a file's path (got {scenario!r})"])
        return
    if getattr(scenario, "kind", None) in KINDS and hasattr(scenario, "to_dict"):
        return
    raise TypeError(
        f"scenario: must be a scenario file (str or pathlib.Path), a mapping or a scenario "
        f"from simcore.load_scenario (got {shown_value(scenario)})"
    )


def _validate(raw, source, base):
    """Parse ``raw`` with the study its ``kind`` names (synthetic when absent)."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind is not None and kind not in KINDS:
        raise ScenarioError([f"{source}: kind: must be one of {', '.join(KINDS)} (got {kind!r})"])
    return study_for(kind).parse(raw, source, base)


def load_scenario(
    path: str | Path,
    overrides: Sequence[str] = (),
    trials: int | None = None,
    seed: int | None = None,
) -> Any:
    """Load a scenario file of any kind (``kind:`` synthetic, real, coverage).

    Raises
    ------
    simcore.studies.config.ScenarioError
        Every problem, naming the file, the key and the bad value.
    """
    from simcore.options import path_value

    path_value(path, "path")
    if not isinstance(overrides, list | tuple) or not all(
        isinstance(item, str) for item in overrides
    ):
        raise TypeError(
            f"overrides: must be a list of 'KEY=VALUE' texts, as ['model.n_items=1000'] "
            f"(got {type(overrides).__name__} {overrides!r})"
        )
    raw = read_raw(path, overrides, plain_number(trials), plain_number(seed))
    return _validate(raw, str(path), Path(path).parent)


def run(  # noqa: PLR0913 (every setting of a run is a keyword)
    scenario: ScenarioSource,
    *,
    out: str | Path | None = None,
    trials: int | None = None,
    seed: int | None = None,
    sets: Mapping[str, Any] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
    threads: int | None = None,
) -> xr.Dataset:
    """Run a scenario's sweep and return its cube.

    Parameters
    ----------
    scenario : str, pathlib.Path, dict or Scenario
        A scenario file, a raw mapping, or a loaded scenario of any kind.
    out : str or pathlib.Path, optional
        Zarr store to write (resumed if it holds an unfinished run of the same scenario).
        Without it the cube is computed in memory only.
    trials, seed : int, optional
        Override the trial count or the root seed.
    sets : dict, optional
        ``{"model.n_items": 1000, ...}`` overrides, as ``--set`` on the command line.
    workers : int, optional
        Run on a local cluster of this many worker processes. Each imports the script that
        started it, so a script must make this call under ``if __name__ == "__main__":``
        (a clear ``RuntimeError`` says so otherwise).
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
        ``out`` holds another scenario's store, or cells with more trials than ``trials``
        (a store is never shrunk), and ``overwrite`` is false; the store is left untouched.
    simcore.sweep.grid.SchedulerError
        No scheduler answers at ``scheduler`` (nothing is written).
    """
    from simcore.options import path_value

    path_value(out, "out", optional=True)
    from simcore.sweep.grid import check_parallel

    check_parallel("workers", workers)
    check_parallel("threads", threads)
    scenario = _as_scenario(scenario, sets, trials, seed)
    return run_sweep(
        scenario,
        out=out,
        workers=workers,
        scheduler=scheduler,
        overwrite=overwrite,
        progress=progress,
        threads=threads,
    )


def estimate(
    scenario: ScenarioSource,
    *,
    trials: int | None = None,
    seed: int | None = None,
    sets: Mapping[str, Any] | None = None,
) -> Any:
    """Return what running ``scenario`` from the start will cost, without running it.

    Checks that its largest cell fits in memory (as a run does), then times a few of its
    cells here and sizes its store (:mod:`simcore.sweep.estimate`).

    Parameters
    ----------
    scenario : str, pathlib.Path, dict or Scenario
        As :func:`run`.
    trials, seed : int, optional
        Override the trial count or the root seed.
    sets : dict, optional
        Overrides, as :func:`run`.

    Returns
    -------
    simcore.sweep.estimate.RunEstimate
        Expected seconds in this process, the store's bytes before compression, its
        chunks and files; ``to_dict()`` is ``simcore validate --json``'s ``estimate``.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Bad scenario input, or a cell that cannot fit in memory here.
    """
    from simcore.studies import study_of
    from simcore.sweep.estimate import expected_run
    from simcore.sweep.memory import check_fits

    scenario = _as_scenario(scenario, sets, trials, seed)
    study = study_of(scenario)
    context = study.context(scenario)
    check_fits(study, scenario, context)
    return expected_run(study, scenario, context, study.layout(scenario, context))
