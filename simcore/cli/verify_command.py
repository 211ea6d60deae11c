"""``simcore verify STORE``: check every cell of a store and name the damaged ones.

A cell is damaged when its packed counts fail their checksum (which covers the cell's
coordinates, so rows moved to another cell fail too), when a named count disagrees with
the packed counts, or when its results (every named variable, rates included) fail the
seal written when the run finished (:mod:`simcore.sweep.store_check`). An unfinished
store (a run under way or interrupted) is checked too: its complete cells' packed counts
against their checksums. Exit 0 when every cell passes, 2 naming the damaged cells
otherwise; re-running the store's scenario into it recomputes exactly those (and finishes
an unfinished store). ``--json`` prints ``{"command": "verify", "store", "cells",
"complete", "cells_complete", "damaged": [{"index", <dim>: value, ..., "problem"}, ...]}``.
"""

from simcore.cli.common import UsageError, add_json, print_json, subcommand

NAME = "verify"


def add(commands):
    """Add ``verify`` to the subparsers ``commands``."""
    verify = subcommand(
        commands,
        NAME,
        "check every cell of a store (finished or not) and name the damaged ones",
        [
            "simcore verify results/fig2.zarr",
            "simcore verify results/fig2.zarr --json",
            "simcore verify results/fig2.zarr || simcore run scenarios/fig2.yaml",
        ],
    )
    verify.add_argument("store", help="a zarr store written by simcore run (finished or not)")
    add_json(verify)


def verify_document(store, cube, problems):
    """Return ``verify --json``'s document."""
    from simcore.sweep.store_check import describe_cell

    return {
        "command": NAME,
        "store": str(store),
        "cells": int(cube["cell_complete"].size),
        "complete": bool(cube.attrs.get("complete")),
        "cells_complete": int(cube["cell_complete"].values.sum()),
        "damaged": [
            {**describe_cell(cube, index), "problem": problem}
            for index, problem in problems.items()
        ],
    }


def run(args):
    """Check the store; print what was found; exit 2 naming the damaged cells."""
    from simcore.sweep.store_check import checked_store

    cube, problems = checked_store(args.store, unfinished=True)
    document = verify_document(args.store, cube, problems)
    if args.json:
        print_json(document)
    elif not problems and document["complete"]:
        print(f"{args.store}: all {document['cells']} cells pass their checks")
    elif not problems:
        print(
            f"{args.store}: unfinished: {document['cells_complete']} of {document['cells']} "
            "cells done, and every one of them passes its checks; re-run the store's "
            "scenario into it to finish it"
        )
    if problems:
        named = "; ".join(
            f"cell {tuple(cell['index'])} ({_coords(cell)}): {cell['problem']}"
            for cell in document["damaged"][:10]
        )
        more = f" and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise UsageError(
            f"{args.store}: {len(problems)} of {document['cells']} cells are damaged: "
            f"{named}{more}; re-run the store's scenario into it to recompute them"
        )
    return 0


def _coords(cell):
    return ", ".join(
        f"{key}={value}" for key, value in cell.items() if key not in ("index", "problem")
    )
