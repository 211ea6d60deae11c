"""``simcore plot STORE``: draw a finished store's cube as its study draws it."""

from pathlib import Path

from simcore.cli.common import UsageError, add_overwrite, subcommand
from simcore.cli.show_command import open_finished

NAME = "plot"


def add(commands):
    """Add ``plot`` to the subparsers ``commands``."""
    plot = subcommand(
        commands,
        NAME,
        "draw a store's cube",
        [
            "simcore plot results/fig2.zarr",
            "simcore plot results/fig2.zarr --out fig2.pdf --variable false_approval_rate",
        ],
    )
    plot.add_argument("store", help="a finished zarr store written by simcore run")
    plot.add_argument(
        "--out",
        help="PNG file (default: the scenario's output.figure, else the store's name with .png)",
    )
    plot.add_argument(
        "--variable",
        help="draw this variable instead of the scenario's plot.variables "
        "(e.g. false_approval_rate)",
    )
    add_overwrite(plot, "the figure file")


def default_figures(store, cube):
    """Return the figure paths ``simcore plot STORE`` writes without ``--out``.

    The scenario's ``output.figure`` (recorded in the cube), else the store's path with
    ``.png``; both are returned, the one plot would write first.
    """
    import yaml

    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    named = (scenario.get("output") or {}).get("figure")
    paths = [named] if named else []
    return [*paths, str(Path(store).with_suffix(".png"))]


def run(args):
    """Draw the figure and print where it went, with the store's state in its metadata."""
    from simcore.output_files import check_output_file
    from simcore.studies import study_for
    from simcore.studies.figure_stamp import STORE_ATTR
    from simcore.studies.protocol import CubeError

    cube = open_finished(args.store)
    out = args.out or default_figures(args.store, cube)[0]
    option = "--out" if args.out else f"{args.store}: output.figure"
    check_output_file(out, option, "figure", overwrite=args.overwrite)  # suffix, link, owner
    cube.attrs[STORE_ATTR] = str(args.store)  # the figure records the store's state
    try:
        study_for(cube.attrs.get("kind")).plot(cube, out, args.variable)
    except CubeError as error:
        raise UsageError(f"{args.store}: {error}") from None
    print(f"figure: {out}")
    return 0
