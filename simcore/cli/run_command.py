"""``simcore run SCENARIO``: a scenario's sweep into a zarr store."""

import sys
from pathlib import Path

from simcore.cli.common import UsageError, subcommand

NAME = "run"


def add(commands):
    """Add ``run`` to the subparsers ``commands``."""
    run = subcommand(
        commands,
        NAME,
        "run a scenario's sweep into a zarr store",
        [
            "simcore run scenarios/fig2.yaml",
            "simcore run scenarios/fig2.yaml --trials 2000 --set model.n_items=1000",
            "simcore run scenarios/real_wax.yaml --workers 2 --out results/real_wax.zarr",
        ],
    )
    run.add_argument("scenario", help="scenario YAML file")
    run.add_argument(
        "--out",
        help="zarr store (default: the scenario's output.store, else results/<scenario name>.zarr)",
    )
    run.add_argument("--trials", type=int, help="trials per cell (overrides the file)")
    run.add_argument("--seed", type=int, help="root seed (overrides the file)")
    add_sets(run, "override any field, e.g. model.n_items=1000 (repeatable)")
    where = run.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask.distributed scheduler to run on, e.g. tcp://host:8786",
    )
    where.add_argument(
        "--workers", type=int, metavar="N", help="run on a local cluster of N worker processes"
    )
    run.add_argument(
        "--overwrite",
        action="store_true",
        help="replace whatever the store holds, and the scenario's output.table and "
        "output.csv even when they are not simcore's own (never through a symbolic link)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress, no table")


def add_sets(parser, help_text):
    """Add the repeatable ``--set KEY=VALUE``."""
    parser.add_argument(
        "--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help=help_text
    )


def default_store(scenario, path):
    """Return the store a scenario writes without ``--out``."""
    if scenario.output.store:
        return Path(scenario.output.store)
    return Path("results") / f"{scenario.name or Path(path).stem}.zarr"


def checked_paths(args, scenario):
    """Return the store path; refuse, before any work, outputs the scenario may not write.

    A store named by the scenario (``output.store``, or ``name`` for the default) must lie
    inside the working folder (``--out`` may point anywhere); ``output.table`` and
    ``output.csv`` may replace only simcore's own tables, never a folder.
    """
    from simcore.output_files import check_output_file
    from simcore.sweep.store_files import inside_working_folder

    for key, value, kind in (
        ("output.table", scenario.output.table, "planning-table"),
        ("output.csv", scenario.output.csv, "planning-csv"),
    ):
        if value:
            check_output_file(value, f"{args.scenario}: {key}", kind, overwrite=args.overwrite)
    if args.out:
        return Path(args.out)
    out = default_store(scenario, args.scenario)
    if not inside_working_folder(out):
        key, value = ("output.store", scenario.output.store)
        if not scenario.output.store:
            key, value = ("name", scenario.name)
        raise UsageError(
            f"{args.scenario}: {key}: the store would lie outside the working folder (got "
            f"{value}); give it on the command line with --out to write there"
        )
    return out


def run(args):
    """Run the sweep, write the store and the scenario's tables, print the summary.

    A figure ``simcore plot`` drew from an earlier state of the store, at the store's
    default figure paths, is named on stderr with the command that redraws it.
    """
    from simcore import report
    from simcore.api import scenarios as api
    from simcore.cli.plot_command import default_figures
    from simcore.studies import study_of
    from simcore.studies.figure_stamp import stale_figures
    from simcore.sweep.grid import check_parallel

    try:
        check_parallel("workers", args.workers, "--workers")
    except ValueError as error:
        raise UsageError(str(error)) from None
    scenario = api.load_scenario(
        args.scenario, overrides=args.sets, trials=args.trials, seed=args.seed
    )
    out = checked_paths(args, scenario)
    cube = api.run(
        scenario,
        out=out,
        workers=args.workers,
        scheduler=args.scheduler,
        overwrite=args.overwrite,
        progress=not args.quiet,
    )
    written = study_of(scenario).write_outputs(scenario, cube)
    for line in stale_figures(out, cube, default_figures(out, cube)):
        print(f"simcore: {line}", file=sys.stderr)
    if not args.quiet:
        print(report.summary(cube, out))
        print(f"\nstore: {out}")
        for path in written:
            print(f"table: {path}")
    return 0
