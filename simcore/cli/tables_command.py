"""``simcore tables STORE ...``: P's Tables 3 and 2 over finished real-data stores."""

from simcore.cli.common import (
    UsageError,
    add_overwrite,
    add_renamed,
    checked_outputs,
    subcommand,
    write_text,
)
from simcore.cli.show_command import open_finished

NAME = "tables"

OUTPUTS = ("table3", "table2", "variants", "scorings")
"""The options naming a Markdown file ``tables`` writes (each opens with ``# Real matrices``
or ``# Which reading of P's Strat?``, so a second run recognises it)."""


def add(commands):
    """Add ``tables`` to the subparsers ``commands``."""
    tables = subcommand(
        commands,
        NAME,
        "the sparse-overlap paper's Tables 3 and 2 (FR/FA/WDR, ranking) over real-data stores",
        [
            "simcore tables results/real_*.zarr --table3 results/table3.md",
            "simcore tables results/real_*.zarr --variants results/variants.md",
            "simcore tables results/weighted_*.zarr --scorings results/real_weighted.md",
        ],
    )
    tables.add_argument("stores", nargs="+", help="real-data zarr stores")
    tables.add_argument("--table3", help="Markdown file for the FR/FA/WDR table")
    tables.add_argument("--table2", help="Markdown file for the ranking table")
    tables.add_argument(
        "--paper",
        nargs="+",
        metavar="STORE",
        help="stores of the sparse-overlap paper's composition (one matrix per data set, "
        "SummEval as one): --table3 then opens with Table 3 over them, class counts beside "
        "the paper's 20/16/4",
    )
    tables.add_argument(
        "--variants",
        metavar="FILE",
        help="Markdown file: every design of the stores beside the sparse-overlap paper's "
        "published Strat numbers (Table 3, Table 4's borderline WDR, CeBaB stars agreement) "
        "and the closest reading",
    )
    tables.add_argument(
        "--scorings",
        metavar="FILE",
        help="Markdown file: the stores' matrices under each store's coefficient side by side "
        "(full-matrix verdicts, wrong-decision rate by coverage, pool agreement) and the "
        "judges whose verdict changes with the scoring",
    )
    tables.add_argument(
        "--agreement-stores",
        nargs="+",
        metavar="STORE",
        help="with --variants: stores whose CeBaB stars agreement (e.g. scored with "
        "krippendorff_alpha) fills the agreement columns instead of the rates' stores",
    )
    add_overwrite(tables, "the Markdown files")
    add_renamed(
        tables,
        "--agreement",
        "--agreement is now --agreement-stores (stores whose agreement fills --variants); "
        "--agreement names a coefficient in simcore inspect",
    )


def real_cubes(paths):
    """Open finished real-data stores; anything else is a usage error."""
    cubes = []
    for path in paths:
        cube = open_finished(path)
        if cube.attrs.get("kind") != "real":
            raise UsageError(f"{path}: not a real-data store (kind {cube.attrs.get('kind')!r})")
        cubes.append(cube)
    return cubes


def run(args):
    """Print the tables and write the files asked for."""
    from simcore.studies.real.paper import composition_table, variants_report
    from simcore.studies.real.tables import table2, table3

    checked_outputs(
        args,
        *((getattr(args, name), f"--{name}", "tables") for name in OUTPUTS),
    )
    cubes = real_cubes(args.stores)
    outputs = []
    if args.scorings:
        from simcore.studies.real.scorings import scorings_table

        outputs.append((scorings_table(cubes), args.scorings))
    if args.variants:
        agreement = real_cubes(args.agreement_stores) if args.agreement_stores else None
        outputs.append((variants_report(cubes, agreement), args.variants))
    if args.table3 or args.table2 or not (args.variants or args.scorings):
        first = table3(cubes)
        if args.paper:
            first = (
                composition_table(real_cubes(args.paper))
                + "\n## Every group as a matrix (SummEval's four dimensions as four matrices)\n\n"
                + first.replace("# Real matrices", "### Real matrices", 1)
            )
        outputs += [(first, args.table3), (table2(cubes), args.table2)]
    for text, out in outputs:
        print(text)
        if out:
            write_text(out, text)
            print(f"table: {out}\n")
    return 0
