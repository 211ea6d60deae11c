"""``simcore show STORE``: a finished store's cube as tables, as JSON (``--json``) or as CSV.

``--csv`` writes the long table: one row per cell, a column per swept coordinate and per
variable over exactly those dimensions (``omega_hist``, with its extra ``omega``
dimension, and the store's bookkeeping are left out). ``--json`` prints ``{"command":
"show", "store", "kind", "dims", "variables", "cells": [row, ...], "engine_streams"}`` with
the same rows; ``engine_streams`` is the stream version of each engine (a synthetic cube's
attribute, as the text's engine line says; null for other kinds and older cubes).
"""

import sys

from simcore.cli.common import UsageError, add_json, print_json, subcommand

NAME = "show"


def add(commands):
    """Add ``show`` to the subparsers ``commands``."""
    show = subcommand(
        commands,
        NAME,
        "print a store's cube as tables",
        [
            "simcore show results/fig2.zarr",
            "simcore show results/fig2.zarr --csv > fig2.csv",
            "simcore show results/fig2.zarr --json",
        ],
    )
    show.add_argument("store", help="a finished zarr store written by simcore run")
    output = show.add_mutually_exclusive_group()
    output.add_argument(
        "--csv", action="store_true", help="print the long table (one row per cell) as CSV"
    )
    add_json(output)


def open_finished(path):
    """Open a finished store whose every cell passes its checks; anything else exits 2.

    See ``simcore verify`` (:mod:`simcore.cli.verify_command`) for the checks.
    """
    from simcore.sweep.store_meta import checked_store

    cube, problems = checked_store(path)
    if problems:
        raise UsageError(
            f"{path}: cells {list(problems)[:5]} are damaged ({len(problems)} in all; "
            f"simcore verify {path} names them); re-run the store's scenario into it to "
            "recompute them"
        )
    return cube


def cell_dims(cube):
    """Return the cube's cell dimensions: the swept parameters (those of ``n_trials``)."""
    return tuple(cube["n_trials"].dims)


def cell_table(cube):
    """Return the long table of ``cube``: one row per cell, coordinates then variables.

    The variables are those over exactly the cell dimensions, the store's own bookkeeping
    (``cell_checksum``, ``cell_complete``) left out.
    """
    dims = cell_dims(cube)
    names = [
        name
        for name, variable in cube.data_vars.items()
        if variable.dims == dims and not name.startswith("cell_")
    ]
    return cube[names].to_dataframe().reset_index()[[*dims, *names]]


def run(args):
    """Print the cube's summary, its long table as CSV, or its JSON document."""
    from simcore import report

    cube = open_finished(args.store)
    if args.csv:
        cell_table(cube).to_csv(sys.stdout, index=False)
    elif args.json:
        print_json(show_document(args.store, cube))
    else:
        print(report.summary(cube, args.store))
    return 0


def show_document(store, cube):
    """Return ``show --json``'s document of ``cube``."""
    from simcore.api.results import plain_row

    table = cell_table(cube)
    dims = list(cell_dims(cube))
    return {
        "command": NAME,
        "store": str(store),
        "kind": cube.attrs.get("kind") or "synthetic",
        "dims": dims,
        "variables": [column for column in table.columns if column not in dims],
        "cells": [plain_row(row) for row in table.to_dict(orient="records")],
        "engine_streams": cube.attrs.get("engine_streams"),
    }
