"""The driver: run any study's sweep on the grid, in memory or into a store.

The study (found through the registry by the scenario's ``kind``) supplies the shared
context, the layout and the cells; the grid runs the cells; the store keeps what finished.
A store of the same scenario resumes (finished cells are kept, damaged ones recomputed)
and extends (cells with fewer trials run only the new ones); a run asking fewer trials than
a stored cell holds is refused (a store is never shrunk); nothing here depends on the kind
of study.
"""

import sys
from pathlib import Path

import numpy as np

from simcore.engine.warm import first_use_note, prepare
from simcore.studies import study_of
from simcore.sweep import grid, store, store_meta
from simcore.sweep.cell_writer import CellWriter
from simcore.sweep.memory import check_fits
from simcore.sweep.store_check import cells_summary, check_version
from simcore.sweep.store_trials import check_finished_trials


def run_sweep(
    scenario, out=None, workers=None, scheduler=None, overwrite=False, progress=False, threads=None
):
    """Run ``scenario``'s sweep; return its finished cube (written to ``out`` if given).

    Parameters
    ----------
    scenario : object
        A parsed scenario of any kind.
    out : str or pathlib.Path, optional
        Zarr store to write, resumed if it holds an unfinished run of the same scenario.
    workers, scheduler, threads
        Where the cells run (:func:`simcore.sweep.grid.connect`).
    overwrite : bool
        Replace whatever ``out`` holds (also a store with more trials than asked).
    progress : bool
        Report progress on stderr.

    Returns
    -------
    xarray.Dataset
        The cube: counts, derived rates, and provenance attributes.
    """
    if out is not None:
        if any((Path(out) / name).is_file() for name in (".zgroup", ".zattrs")):
            attrs = store_meta.read_root(out)  # a store whose root metadata is damaged: named
            if not overwrite:
                check_version(out, attrs)  # another simcore's store: before any work
        store.checked_destination(out)  # before any work: a bad --out costs nothing
        check_finished_trials(out, scenario, overwrite)  # a store is never shrunk
    study = study_of(scenario)
    context = study.context(scenario)
    check_fits(study, scenario, context)
    layout = study.layout(scenario, context)
    if hasattr(study, "engines"):
        engines = study.engines(scenario)
        note = first_use_note(engines)
        if note and progress:
            print(f"simcore: {note}", file=sys.stderr, flush=True)
        if note:
            prepare(engines)
    cells = study.cells(scenario, context)

    def derive(cube):
        return study.derive(scenario, context, cube)

    with grid.connect(workers, scheduler, threads) as connection:
        if out is None:
            cube = store.empty_cube(scenario, layout)
            values = store.sweep_values(layout)
            starts = _first_trials(layout.shape, {}, scenario.trials)
            for index, counts in grid.execute(
                scenario, context, cells, connection, progress, starts
            ):
                store.put_cell(cube, layout, index, counts, values)
            cube.attrs["complete"] = 1
            return store.sealed(derive(store.finished_cube(cube, layout)))
        out = Path(out)
        try:
            return _run_into(
                out, scenario, context, layout, cells, connection, progress, overwrite, derive
            )
        except OSError as error:
            if store.full_disk(error):
                raise store.StoreError(
                    f"{out}: no space left on its device ({error.strerror}); free some space "
                    "and run the same command again to finish the store"
                ) from None
            where = error.filename2 or error.filename or "the store"
            raise store.StoreError(
                f"{out}: cannot write {where} ({error.strerror or error}); fix or remove it "
                "and run the same command again"
            ) from None


def _run_into(out, scenario, context, layout, cells, connection, progress, overwrite, derive):  # noqa: PLR0913 (a value object is still to come)
    """Run the cells not yet in the store ``out`` into it, under its lock; finalise it."""
    with store.writer_lock(out) as lock:

        def report(line):
            print(f"simcore: {out}: repaired: {line}", file=sys.stderr)

        done, damaged = store.prepare(
            out, scenario, overwrite=overwrite, layout=layout, report=report
        )
        if damaged:
            print(
                f"simcore: {out}: {cells_summary(damaged, layout.dims, store.sweep_values(layout))}"
                " (missing, unreadable, edited or foreign chunks); recomputing them",
                file=sys.stderr,
            )
        starts = _first_trials(layout.shape, done, scenario.trials)
        todo = (cell for cell in cells if cell.index in starts)
        identity = store.scenario_identity(scenario, layout)
        writer = CellWriter(out, layout, identity, check=lock.check)
        cells_run = grid.execute(scenario, context, todo, connection, progress, starts)
        try:
            for index, counts in cells_run:
                writer.write(index, counts, extend=starts[index] > 0)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: keep every cell that finished
            writer.flush()
            raise
        writer.flush()
        lock.check()
        return store.finalize(out, scenario, layout, derive)


def _first_trials(shape, done, trials):
    """``{cell index: first trial to run}`` for every cell of the grid ``shape`` to run.

    Every cell not yet at ``trials`` trials is extended from where it stopped (a cell not
    stored starts at 0). A cell with more is never here: the store refused the run
    (:func:`simcore.sweep.store_trials.refuse_fewer_trials`).
    """
    starts = {}
    for index in np.ndindex(*shape):
        have = done.get(index, 0)
        if have > trials:
            raise RuntimeError(f"cell {index} holds {have} trials, more than the {trials} asked")
        if have < trials:
            starts[index] = have
    return starts
