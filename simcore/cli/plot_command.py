"""``simcore plot STORE``: draw a finished store's cube as its study draws it."""

from pathlib import Path

from simcore.cli.common import UsageError, subcommand
from simcore.cli.show_command import open_finished

NAME = "plot"

FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".tif", ".tiff", ".eps", ".webp")
"""File types ``simcore plot`` writes (matplotlib's, by suffix)."""


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


def run(args):
    """Draw the figure and print where it went."""
    import yaml

    from simcore.studies import study_for
    from simcore.studies.protocol import CubeError
    from simcore.sweep.store_files import checked_output_file

    cube = open_finished(args.store)
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    out = args.out or (scenario.get("output") or {}).get("figure")
    out = out or str(Path(args.store).with_suffix(".png"))
    if Path(out).suffix.lower() not in FIGURE_SUFFIXES:
        raise UsageError(
            f"--out {out}: a figure file ends in one of {', '.join(FIGURE_SUFFIXES)} "
            f"(got {Path(out).suffix or 'no suffix'})"
        )
    option = "--out" if args.out else f"{args.store}: output.figure"
    checked_output_file(out, option, kind="figure")
    try:
        study_for(cube.attrs.get("kind")).plot(cube, out, args.variable)
    except CubeError as error:
        raise UsageError(f"{args.store}: {error}") from None
    print(f"figure: {out}")
    return 0
