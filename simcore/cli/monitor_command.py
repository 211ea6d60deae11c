"""``simcore monitor``: the corrected failure rate over time, and a drift alarm on the card.

A thin layer over :func:`simcore.monitor`. The audit sample is ``--audit-file FILE``: in
``simcore advise``, ``--audit NAME`` names the judge to audit, so here the retired ``--audit``
answers exit 2 naming ``--audit-file``.
"""

from simcore.cli.common import (
    UsageError,
    add_fail_if,
    add_json,
    add_overwrite,
    add_renamed,
    check_flags,
    fail_if_conditions,
    gate_status,
    print_result,
    subcommand,
)
from simcore.command_options import MONITOR_OPTIONS

NAME = "monitor"

RENAMED_AUDIT = (
    "--audit is now --audit-file (the file of human audits); --audit names the judge to audit "
    "in simcore advise"
)
"""What ``simcore monitor --audit`` answers (exit 2): the flag's new name."""


def add(commands):
    """Add ``monitor`` to the subparsers ``commands``."""
    monitor = subcommand(
        commands,
        NAME,
        "a judge in production over time: the corrected failure rate and a drift alarm",
        [
            "simcore monitor --production production.csv --audit-file audit.csv",
            "simcore monitor --production production.csv --audit-file audit.csv --card card.json "
            "--plot monitor.png --json",
        ],
        description="At every date of the files: the failure rate corrected by the audits, "
        "with a confidence sequence valid at every look at once, and with --card an alarm "
        "when the audited TPR or TNR moves away from the card's (false alarms over the whole "
        "horizon at most --alarm-alpha).",
    )
    monitor.add_argument(
        "--production",
        required=True,
        metavar="FILE",
        help="CSV, one row per production item: item, date (ISO, in order), judge (fail/pass); "
        "or an Inspect AI log (or folder) or MLflow store holding the judge's labels",
    )
    monitor.add_argument(
        "--audit-file",
        required=True,
        metavar="FILE",
        help="CSV, one row per audited production item: item, date, human (fail/pass); or "
        "an Inspect AI log or MLflow store holding the humans' labels",
    )
    monitor.add_argument("--card", metavar="FILE", help="the judge's card: alarm on its drift")
    monitor.add_argument(
        "--expire-card",
        action="store_true",
        help="a --card made with --expires-on-alarm: write the first alarm's date into its expires",
    )
    for option in MONITOR_OPTIONS:
        option.add_to(monitor)
    monitor.add_argument("--plot", metavar="FILE", help="also plot the rate, band and alarms")
    add_overwrite(monitor, "--plot")
    for column in ("item", "date", "judge", "human"):
        monitor.add_argument(
            f"--{column}-column", default=column, help=f"the files' {column} column"
        )
    monitor.add_argument(
        "--judge",
        metavar="NAME",
        help="an Inspect log's or MLflow store's judge (a scorer, an LLM_JUDGE source id), "
        "when --production is one that holds several",
    )
    monitor.add_argument(
        "--humans",
        metavar="A,B,...",
        help="an Inspect log's or MLflow store's humans whose labels are the audits "
        "(default every one; an item two of them labelled is refused)",
    )
    monitor.add_argument("--fail-label", default="fail", help="the label value meaning FAIL")
    monitor.add_argument("--pass-label", default="pass", help="the label value meaning PASS")
    add_fail_if(monitor, NAME)
    add_json(monitor)
    add_renamed(monitor, "--audit", RENAMED_AUDIT)


def run(args):
    """Print the monitor's table (or JSON); write ``--plot`` if asked."""
    from simcore.api.monitoring import monitor

    _check_flags(args)
    conditions = fail_if_conditions(args, NAME)
    if conditions and not args.card:
        raise UsageError(
            f"--fail-if: {', '.join(map(str, conditions))} reads the card's alarm and expiry; "
            "add --card FILE (got no --card)"
        )
    from simcore.output_files import check_output_file

    if args.plot:
        check_output_file(args.plot, "--plot", "figure", overwrite=args.overwrite)
    if args.expire_card and args.card:
        check_output_file(args.card, "--card", "card", overwrite=args.overwrite)
    options = {option.name: getattr(args, option.name) for option in MONITOR_OPTIONS}
    check_flags(options, MONITOR_OPTIONS)
    result = monitor(
        args.production,
        args.audit_file,
        card=args.card,
        expire_card=args.expire_card,
        plot=args.plot,
        overwrite=args.overwrite,
        item_column=args.item_column,
        date_column=args.date_column,
        judge_column=args.judge_column,
        human_column=args.human_column,
        fail_label=args.fail_label,
        pass_label=args.pass_label,
        judge=args.judge,
        humans=args.humans,
        **options,
    )
    print_result(result, args.json)
    return gate_status(result, conditions, args.today)


def _check_flags(args):
    """Refuse ``--expire-card`` without ``--card`` and one label for both classes (exit 2)."""
    if args.expire_card and not args.card:
        raise UsageError(
            "--expire-card: writes the first alarm's date into the --card file; add --card "
            "FILE (a card made with --expires-on-alarm) (got no --card)"
        )
    if args.fail_label.strip().lower() == args.pass_label.strip().lower():
        raise UsageError(
            f"--fail-label, --pass-label: must be two different labels (compared stripped and "
            f"case-insensitively) (got {args.fail_label!r} and {args.pass_label!r})"
        )
