"""``simcore advise DATA``: audit a sparse validation matrix and plan its next annotation round.

A thin layer over :func:`simcore.api.audit.advise_each_group`: the options are declared once
in :data:`simcore.advisor.advise_options.OPTIONS` and added here from the declarations. The report
(``report.md``, figures, ``next_round.csv``) goes to ``--out``; ``--json`` prints
``{"command": "advise", "out", "groups": {group: Advice.to_dict()}}`` instead of the summary;
each group's document, like the summary, opens with the recommendation.
"""

from pathlib import Path

from simcore.cli.common import (
    UsageError,
    add_data_arguments,
    add_fail_if,
    add_json,
    add_overwrite,
    add_renamed,
    data_keywords,
    fail_if_conditions,
    gate_status,
    phase_printer,
    print_json,
    subcommand,
)

NAME = "advise"

RENAMED_JUDGE = "--judge is now --audit (the judge to audit); --judges names who is a judge"
"""What ``simcore advise --judge`` answers (exit 2): the flag's new name."""


def add(commands):
    """Add ``advise`` to the subparsers ``commands``."""
    from simcore.advisor.advise_options import OPTIONS

    advise = subcommand(
        commands,
        NAME,
        "audit a sparse validation matrix and plan its next annotation round",
        [
            "simcore advise ../shared/data/alttest/summeval --group-separator __ --out advice",
            "simcore advise ratings.csv --judges judge_a,judge_b --audit judge_a --budget 400 "
            "--json",
        ],
    )
    add_data_arguments(
        advise,
        "an alttest folder, a long or wide CSV file (or .csv.gz), a JSON of humans, an Inspect "
        "AI log or an MLflow store",
    )
    advise.add_argument(
        "--audit",
        action="append",
        default=[],
        metavar="NAME",
        help="a judge to audit (repeat; default every judge); --judges names who is a judge",
    )
    add_renamed(advise, "--judge", RENAMED_JUDGE)
    for option in OPTIONS:
        option.add_to(advise)
    advise.add_argument("--ordinal", action="store_true", help="the labels are ordered")
    advise.add_argument(
        "--pool-groups",
        action="store_true",
        help="audit all groups together instead of each group on its own",
    )
    advise.add_argument("--out", default="advice", help="folder for the report and the CSV")
    advise.add_argument("--quiet", action="store_true", help="no progress, only the summary")
    add_overwrite(advise, "report.md, next_round.csv and the figures in --out")
    add_fail_if(advise, NAME)
    add_json(advise)


def run(args):
    """Audit, write the report folder, print the summary (or JSON)."""
    from simcore.advisor.advise_options import OPTIONS
    from simcore.advisor.groups import group_summary, output_files, write_group_outputs
    from simcore.api import audit as api
    from simcore.output_files import check_output_folder

    conditions = fail_if_conditions(args, NAME)
    options = {option.name: getattr(args, option.name) for option in OPTIONS}
    try:
        api.check_options(options, command_line=True)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.group_separator is not None and not Path(args.data).is_dir():
        raise UsageError(
            f"--group-separator: only for an alttest folder; a CSV gives groups in a group "
            f"column (got {args.group_separator!r} with {args.data})"
        )
    files = output_files(args.out)  # before the minutes of computation
    check_output_folder(args.out, "--out", files, overwrite=args.overwrite)
    keywords = data_keywords(args)
    try:
        advice = api.advise_each_group(
            args.data,
            humans=keywords.get("humans"),
            judges=keywords.get("judges"),
            judges_file=keywords.get("judges_file"),
            audit=args.audit,
            ordinal=args.ordinal,
            group_separator=args.group_separator,
            pool_groups=args.pool_groups,
            slots=keywords.get("slots", False),
            label_order=keywords.get("label_order"),
            merge_label_variants=keywords.get("merge_label_variants", False),
            progress=None if args.quiet or args.json else phase_printer("advise"),
            **options,
        )
    except ValueError as error:  # DataError is one
        text = str(error)  # data errors name the file already; others get its name
        message = text if text.startswith(str(args.data)) else f"{args.data}: {text}"
        raise UsageError(message) from None
    out = write_group_outputs(advice, args.out)
    if args.json:
        groups = {name: one.to_dict() for name, one in advice.items()}
        print_json({"command": NAME, "out": str(out), "groups": groups})
        return gate_status({"command": NAME, "groups": groups}, conditions)
    print(group_summary(advice))
    figures = (
        ["report.png"]
        if len(advice) == 1
        else [f"report_{n}.png" for n in range(1, len(advice) + 1)]
    )
    written = ", ".join(str(out / name) for name in ["report.md", *figures, "next_round.csv"])
    print(f"\nwritten: {written}")
    if not conditions:
        return 0
    groups = {name: one.to_dict() for name, one in advice.items()}
    return gate_status({"command": NAME, "groups": groups}, conditions)
