"""``simcore ceiling DATA``: human ceilings of a multi-rater matrix, judges read against them.

A thin layer over :func:`simcore.ceiling`: the text is its ``to_markdown()``, ``--json`` its
``to_dict()``, ``--csv`` one row per group. A long CSV's columns are found by name or alias
(JUDGE-BENCH's ``item,criterion,rater,score`` is read as it is) or named by
``--item-column`` and the like.
"""

from simcore.cli.common import (
    add_data_arguments,
    add_json,
    add_overwrite,
    add_scale_arguments,
    check_flags,
    checked_outputs,
    data_keywords,
    print_json,
    subcommand,
    write_text,
)
from simcore.command_options import CEILING_OPTIONS

NAME = "ceiling"

REPORT_TITLE = "# simcore ceiling"
"""The line ``--out FILE.md`` opens with, above the printed report: a second run knows the
file as its own (:mod:`simcore.output_files`)."""

SHARED_FLAGS = (
    "judge_scores",
    "score_column",
    "coefficient",
    "level",
    "weights",
    "boot",
    "seed",
    "min_shared",
)
"""The ceiling's options added from their declarations (the data, scale and criterion flags
are added beside them)."""


def add(commands):
    """Add ``ceiling`` to the subparsers ``commands``."""
    ceiling = subcommand(
        commands,
        NAME,
        "human ceilings of a multi-rater matrix (r-hat, benchmark, leave-one-out, "
        "symmetric) and judges against them",
        [
            "simcore ceiling ../shared/data/judgebench/newsroom/human_scores.csv",
            "simcore ceiling ../shared/data/alttest/summeval --group-separator __ --json",
            "simcore ceiling ratings.csv --label-column stars --boot 200 --csv ceilings.csv",
        ],
    )
    add_data_arguments(
        ceiling,
        "an alttest folder, a JSON file of humans, a long or wide CSV "
        "(item,rater,label[,group]; item,criterion,rater,score also read), an Inspect AI log "
        "or an MLflow store",
        judges_help="comma-separated judge names (a CSV: default none, every rater a human)",
        columns=True,
    )
    ceiling.add_argument(
        "--criterion",
        action="append",
        metavar="NAME",
        help="report only this group (repeatable; default every group)",
    )
    add_scale_arguments(
        ceiling, "ordered scores: Spearman (default when every label is a number, >= 3 of them)"
    )
    for option in CEILING_OPTIONS:
        if option.name in SHARED_FLAGS:
            option.add_to(ceiling)
    ceiling.add_argument("--out", metavar="FILE.md", help="also write the Markdown report")
    ceiling.add_argument("--csv", metavar="FILE", help="also write one CSV row per group")
    add_overwrite(ceiling, "--out and --csv")
    add_json(ceiling)


def run(args):
    """Print the report (or JSON); write ``--out`` and ``--csv`` if asked."""
    import csv

    from simcore.api import data as data_commands
    from simcore.instrument.ceiling.report import CSV_FIELDS
    from simcore.output_files import write_atomically

    checked_outputs(args, (args.out, "--out", "ceiling-report"), (args.csv, "--csv", "ceiling-csv"))
    options = {
        name: getattr(args, name)
        for name in (
            "graded",
            "criterion",
            *SHARED_FLAGS,
        )
    }
    check_flags(options, CEILING_OPTIONS)
    result = data_commands.ceiling(args.data, **data_keywords(args), **options)
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.to_markdown(), end="")
    if args.out:
        write_text(args.out, f"{REPORT_TITLE}\n\n{result.to_markdown()}")
    if args.csv:

        def write_rows(stream):
            writer = csv.DictWriter(stream, fieldnames=CSV_FIELDS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(result["groups"])

        write_atomically(args.csv, write_rows)
    return 0
