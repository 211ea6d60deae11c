"""The ``simcore`` command line: run, show, plot, validate.

Exit status: 0 on success, 2 on bad input (the message names the file, the key and what
was wrong; nothing is written), 1 on an internal error, 130 when interrupted (cells
already finished stay in the store and a re-run resumes).
"""

import argparse
import sys
import traceback
from pathlib import Path

from simcore.grid import SchedulerError
from simcore.scenario import ScenarioError, load_scenario
from simcore.store import StoreError, read_attrs


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


def _parser():
    parser = argparse.ArgumentParser(
        prog="simcore",
        description="Monte Carlo sweeps of the leave-one-out LLM-judge validation rule "
        "under sparse human overlap.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run a scenario's sweep into a zarr store")
    run.add_argument("scenario", help="scenario YAML file")
    run.add_argument(
        "--out",
        help="zarr store (default: the scenario's output.store, else results/<scenario name>.zarr)",
    )
    run.add_argument("--trials", type=int, help="trials per cell (overrides the file)")
    run.add_argument("--seed", type=int, help="root seed (overrides the file)")
    run.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override any field, e.g. model.n_items=1000 (repeatable)",
    )
    where = run.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask.distributed scheduler to run on, e.g. tcp://host:8786",
    )
    where.add_argument(
        "--workers", type=int, metavar="N", help="run on a local cluster of N worker processes"
    )
    run.add_argument("--overwrite", action="store_true", help="replace whatever the store holds")
    run.add_argument("--quiet", action="store_true", help="no progress, no table")

    show = commands.add_parser("show", help="print a store's cube as tables")
    show.add_argument("store")

    plot = commands.add_parser("plot", help="draw a store's cube")
    plot.add_argument("store")
    plot.add_argument(
        "--out",
        help="PNG file (default: the scenario's output.figure, else the store's name with .png)",
    )
    plot.add_argument(
        "--variable",
        help="draw this variable instead of the scenario's plot.variables "
        "(e.g. false_approval_rate)",
    )

    validate = commands.add_parser("validate", help="check a scenario file without running")
    validate.add_argument("scenario")
    validate.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    return parser


def _default_store(scenario, path):
    if scenario.output.store:
        return Path(scenario.output.store)
    return Path("results") / f"{scenario.name or Path(path).stem}.zarr"


def _command_run(args):
    from simcore import api, report

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: must be >= 1 (got {args.workers})")
    scenario = load_scenario(args.scenario, overrides=args.sets, trials=args.trials, seed=args.seed)
    out = Path(args.out) if args.out else _default_store(scenario, args.scenario)
    cube = api.run(
        scenario,
        out=out,
        workers=args.workers,
        scheduler=args.scheduler,
        overwrite=args.overwrite,
        progress=not args.quiet,
    )
    if not args.quiet:
        print(report.summary(cube))
        print(f"\nstore: {out}")


def _open_finished(path):
    from simcore.store import open_cube

    attrs = read_attrs(path)
    if attrs is None:
        raise UsageError(f"{path}: no simcore store there")
    if not attrs.get("complete"):
        raise UsageError(
            f"{path}: the run is unfinished; re-run the same scenario into it to resume"
        )
    return open_cube(path).load()


def _command_show(args):
    from simcore import report

    print(report.summary(_open_finished(args.store)))


def _command_plot(args):
    import yaml

    from simcore.plots import plot_cube

    cube = _open_finished(args.store)
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    spec = scenario.get("plot") or {}
    if args.variable:
        spec = {**spec, "variables": [args.variable]}
    for name in spec.get("variables", []):
        if name not in cube:
            raise UsageError(f"--variable: {args.store} has no variable {name!r}")
    out = args.out or (scenario.get("output") or {}).get("figure")
    out = out or str(Path(args.store).with_suffix(".png"))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    plot_cube(cube, out, spec)
    print(f"figure: {out}")


def _command_validate(args):
    scenario = load_scenario(args.scenario, overrides=args.sets)
    dims = ", ".join(f"{name} ({len(values)})" for name, values in scenario.sweep) or "none"
    cells = 1
    for size in scenario.shape:
        cells *= size
    print(f"{args.scenario}: valid; {cells} cells, sweep {dims}, {scenario.trials} trials per cell")


COMMANDS = {
    "run": _command_run,
    "show": _command_show,
    "plot": _command_plot,
    "validate": _command_validate,
}


def main(argv=None):
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        COMMANDS[args.command](args)
    except (ScenarioError, StoreError, SchedulerError, UsageError) as error:
        print(
            f"simcore {args.command}: {error}"
            if not isinstance(error, ScenarioError)
            else str(error),
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("simcore: interrupted; finished cells are kept and a re-run resumes", file=sys.stderr)
        return 130
    except Exception:  # an internal error: say so, with the traceback
        traceback.print_exc()
        print(
            "simcore: internal error (please report it with the traceback above)", file=sys.stderr
        )
        return 1
    return 0
