"""``simcore wellposed DATA``: how well the judges agree with one another, before any human labels.

The subcommand's parser (:func:`add_wellposed`) and handler (:func:`command_wellposed`).
Agreement among two or three cheap judges on a criterion's unlabelled items predicts
whether any judge can be calibrated on it (README, "Is the question well posed?"). The
statistics live in :mod:`simcore.instrument.wellposed`; the judges are read by
:mod:`simcore.instrument.wellposed_data`, humans ignored, so a judge-only file works.
Nothing heavy is imported until the command runs.
"""

import argparse

from simcore.cli_ceiling import add_scale_arguments


def _at_least(low):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer (got {text!r})") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low} (got {text})")
        return value

    return parse


def add_wellposed(commands, subcommand):
    """Add ``wellposed`` to ``commands`` with ``subcommand(commands, name, **kwargs)``."""
    wellposed = subcommand(
        commands,
        "wellposed",
        help="agreement among judges on unlabelled items: is the criterion well posed?",
        description="Mean pairwise agreement among judges on every group's items (Spearman "
        "for graded labels, Cohen's kappa for categorical ones) with a percentile bootstrap "
        "interval over items. No human labels are needed: humans in the input are ignored.",
    )
    wellposed.add_argument(
        "data",
        help="a folder holding llm_annotations.json, a JSON {judge: {item: label}} file, or "
        "a long CSV item,rater,label[,group]",
    )
    wellposed.add_argument(
        "--judges",
        help="comma-separated judges, e.g. gpt-4o-mini,llama-31,mistral-v03 (default: every "
        "judge of the folder or JSON file; a CSV: every rater in it)",
    )
    wellposed.add_argument("--group-separator", help="JSON: item id separator before the group")
    wellposed.add_argument("--criterion", help="measure this group only")
    add_scale_arguments(
        wellposed, "Spearman's rho (default when the labels are numbers with >= 3 values)"
    )
    wellposed.add_argument("--boot", type=_at_least(0), default=1000, help="bootstrap resamples")
    wellposed.add_argument("--seed", type=_at_least(0), default=2026, help="root seed")
    wellposed.add_argument("--out", metavar="FILE.md", help="also write the table as Markdown")
    wellposed.add_argument("--csv", metavar="FILE", help="also write the table as CSV")


def _judges_text(table):
    return ", ".join(table.judges)


def _report(table, agreements, graded, args):
    from simcore.instrument.wellposed_report import agreement_lines

    scale = "graded labels" if graded else "categorical labels"
    lines = [
        f"# Is the question well posed? {table.source}",
        "",
        f"{len(table.judges)} judges ({_judges_text(table)}); {scale} "
        f"({', '.join(table.labels)}); {args.boot} bootstrap resamples of the items, seed "
        f"{args.seed}.",
        "",
        *agreement_lines(agreements, table.judges),
        "",
        "Low agreement among judges warns that the criterion may be too vague for any judge "
        "to be calibrated on it (README, 'Is the question well posed?').",
    ]
    return "\n".join(lines)


def command_wellposed(args):
    """Run ``simcore wellposed``: print the table; bad input raises ``UsageError`` (exit 2)."""
    from simcore.cli import UsageError
    from simcore.instrument.ceiling import is_graded
    from simcore.instrument.wellposed import group_agreements
    from simcore.instrument.wellposed_data import load_judge_table
    from simcore.instrument.wellposed_report import agreement_rows, write_csv
    from simcore.realdata.matrix import DataError
    from simcore.sweep.store_files import checked_output_file

    for path, option in ((args.out, "--out"), (args.csv, "--csv")):
        if path:
            checked_output_file(path, option)
    judges = args.judges.split(",") if args.judges else None
    try:
        table = load_judge_table(args.data, judges=judges, group_separator=args.group_separator)
    except DataError as error:
        raise UsageError(str(error)) from None
    if args.criterion is not None and args.criterion not in table.group_names:
        raise UsageError(
            f"{table.source}: --criterion: unknown group (groups: "
            f"{', '.join(table.group_names)}) (got {args.criterion!r})"
        )
    graded = is_graded(table.labels) if args.graded is None else args.graded
    only = None if args.criterion is None else [args.criterion]
    agreements = group_agreements(
        table.codes, table.groups, table.group_names, graded, args.boot, args.seed, only=only
    )
    text = _report(table, agreements, graded, args)
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    if args.csv:
        write_csv(agreement_rows(agreements, table.judges, args.seed), args.csv)
