"""``simcore verify STORE``: check every cell of a store and name the damaged ones.

A cell is damaged when its packed counts fail their checksum (which covers the run's seed
and scenario hash and the cell's coordinates, so rows moved to another cell or copied in
from another run fail too), when a named count disagrees with
the packed counts, or when its results (every named variable, rates included) fail the
seal written when the run finished (:mod:`simcore.sweep.store_check`). An unfinished
store (a run under way or interrupted) is checked too: its complete cells' packed counts
against their checksums. Exit 0 when every cell passes, 2 naming the damaged cells
otherwise; re-running the store's scenario into it recomputes exactly those (and finishes
an unfinished store). The store's own files and root attributes are checked too
(:mod:`simcore.sweep.store_meta`: metadata, array shapes, ``.zmetadata``, the scenario, its
hash, kind and seed, the packing); each class of such damage is one line, and the damaged
cells are summarised in one line (how many, by problem, the ranges they span and the
first five), however many there are. ``--json`` prints ``{"command": "verify", "store",
"cells", "complete", "cells_complete", "damaged": [{"index", <dim>: value, ...,
"problem"}, ...], "store_damage": [{"class", "problem"}, ...]}`` (``cells``,
``complete`` and ``cells_complete`` are null when damaged metadata keeps the cells from
being checked).
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


def verify_document(store, cube, problems, damage=()):
    """Return ``verify --json``'s document (``cube`` None: the cells could not be checked)."""
    from simcore.sweep.store_check import describe_cell

    return {
        "command": NAME,
        "store": str(store),
        "cells": None if cube is None else int(cube["cell_complete"].size),
        "complete": None if cube is None else bool(cube.attrs.get("complete")),
        "cells_complete": None if cube is None else int(cube["cell_complete"].values.sum()),
        "damaged": [
            {**describe_cell(cube, index), "problem": problem}
            for index, problem in problems.items()
        ],
        "store_damage": [{"class": kind, "problem": text} for kind, text in damage],
    }


def damage_lines(store, cube, problems, damage):
    """Return the lines naming the damage: one per class of the store's, one for the cells."""
    from simcore.sweep.store_check import cell_dims, cells_summary

    by_class = {}
    for kind, text in damage:
        by_class.setdefault(kind, []).append(text)
    lines = [f"{store}: {'; '.join(texts)}" for texts in by_class.values()]
    if damage:
        lines[-1] += "; re-run the store's scenario into it to repair it"
    if cube is None and damage:
        lines[-1] += " (its cells are checked then)"
    if problems:
        dims = cell_dims(cube)
        coords = [cube[dim].values for dim in dims]
        total = int(cube["cell_complete"].size)
        summary = cells_summary(problems, dims, coords, problems, total)
        lines.append(f"{store}: {summary}; re-run the store's scenario into it to recompute them")
    return lines


def run(args):
    """Check the store; print what was found; exit 2 naming the damage."""
    import sys

    from simcore.sweep.store_meta import inspect_store

    cube, problems, damage = inspect_store(args.store, unfinished=True)
    document = verify_document(args.store, cube, problems, damage)
    if args.json:
        print_json(document)
    elif not problems and not damage and document["complete"]:
        print(f"{args.store}: all {document['cells']} cells pass their checks")
    elif not problems and not damage:
        print(
            f"{args.store}: unfinished: {document['cells_complete']} of {document['cells']} "
            "cells done, and every one of them passes its checks; re-run the store's "
            "scenario into it to finish it"
        )
    lines = damage_lines(args.store, cube, problems, damage)
    if not lines:
        return 0
    for line in lines[:-1]:
        print(f"simcore {NAME}: {line}", file=sys.stderr)
    raise UsageError(lines[-1])
