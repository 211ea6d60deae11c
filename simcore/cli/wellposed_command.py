"""``simcore wellposed DATA``: how well the judges agree with one another, before any human labels.

A thin layer over :func:`simcore.wellposed`. Agreement among two or three cheap judges on a
criterion's unlabelled items predicts whether any judge can be calibrated on it. Humans in
the input are ignored, so a judge-only file works.
"""

from simcore.cli.common import (
    add_json,
    add_overwrite,
    add_scale_arguments,
    check_flags,
    checked_outputs,
    print_json,
    subcommand,
    write_text,
)
from simcore.command_options import WELLPOSED_OPTIONS

NAME = "wellposed"


def add(commands):
    """Add ``wellposed`` to the subparsers ``commands``."""
    wellposed = subcommand(
        commands,
        NAME,
        "agreement among judges on unlabelled items: is the criterion well posed?",
        [
            "simcore wellposed ../shared/data/alttest/summeval --group-separator __",
            "simcore wellposed judges.csv --judges gpt-4o-mini,llama-31 --json",
        ],
        description="Mean pairwise agreement among judges on every group's items (Spearman "
        "for graded labels, Cohen's kappa for categorical ones) with a percentile bootstrap "
        "interval over items. No human labels are needed: humans in the input are ignored.",
    )
    wellposed.add_argument(
        "data",
        help="a folder holding llm_annotations.json, a JSON {judge: {item: label}} file, "
        "a long CSV item,rater,label[,group], an Inspect AI log or an MLflow store",
    )
    for option in WELLPOSED_OPTIONS:
        if option.name != "graded":
            option.add_to(wellposed)
    add_scale_arguments(
        wellposed, "Spearman's rho (default when the labels are numbers with >= 3 values)"
    )
    wellposed.add_argument("--out", metavar="FILE.md", help="also write the table as Markdown")
    wellposed.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    add_overwrite(wellposed, "--out and --csv")
    add_json(wellposed)


def run(args):
    """Print the table (or JSON); write ``--out`` and ``--csv`` if asked."""
    from simcore.api import data as data_commands
    from simcore.instrument.wellposed.report import write_csv

    checked_outputs(
        args, (args.out, "--out", "wellposed-report"), (args.csv, "--csv", "wellposed-csv")
    )
    options = {option.name: getattr(args, option.name) for option in WELLPOSED_OPTIONS}
    check_flags(options, WELLPOSED_OPTIONS)
    result = data_commands.wellposed(args.data, **options)
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.to_markdown())
    if args.out:
        write_text(args.out, result.to_markdown() + "\n")
    if args.csv:
        write_csv(result["groups"], args.csv)
    return 0
