"""``simcore calibrate``: a judge's TPR/TNR and its corrected production failure rate.

A thin layer over :func:`simcore.calibrate`. The calibration set is ``--table`` counts, a
one-row-per-item ``--csv``, a ``--card``, or ``--data`` annotations in any format of the one
reader (with ``--judge`` and ``--fail-labels``/``--fail-at-most``); the production stream is
``--fails``/``--of`` or ``--production FILE`` (the judge's labels). ``--plan`` instead plans
the calibration labels each method needs.
"""

from simcore.cli.common import (
    UsageError,
    add_data_arguments,
    add_json,
    check_flags,
    data_keywords,
    print_result,
    subcommand,
)
from simcore.command_options import (
    ALL_LABELS,
    CALIBRATE_OPTIONS,
    FAIL_AT_MOST,
    FAIL_LABELS,
    PLAN_THETA,
    PLAN_TRIALS,
    TRUTH_OPTIONS,
)
from simcore.options import LARGEST_COUNT
from simcore.options import count_number as count
from simcore.options import finite_number as finite

NAME = "calibrate"

CALIBRATE_METHODS = CALIBRATE_OPTIONS[0].choices
"""``--method``: simcore.calibration.methods.METHODS and ``all`` (declared in
:mod:`simcore.command_options`, so that parsing does not load SciPy; a test keeps them equal)."""


def add(commands):
    """Add ``calibrate`` to the subparsers ``commands``."""
    from simcore.cli.card_command import add_calibrate_card_options

    calibrate = subcommand(
        commands,
        NAME,
        "a judge's TPR/TNR and its corrected production failure rate",
        [
            "simcore calibrate --table 40,10,5,45 --fails 120 --of 1000",
            "simcore calibrate --data calibration.csv --judges judge_a --judge judge_a "
            "--fail-labels fail --production production.csv --json",
            "simcore calibrate --plan --se 0.85 --sp 0.9 --theta 0.1 --of 5000 --half-width 0.03",
        ],
    )
    source = calibrate.add_mutually_exclusive_group()  # one is needed unless --plan --se
    source.add_argument(
        "--table",
        metavar="CAUGHT,MISSED,FLAGGED,CLEARED",
        help="calibration counts: human-FAIL rows the judge failed, passed; human-PASS rows "
        "it failed, passed",
    )
    source.add_argument("--csv", help="CSV with one calibration row per item")
    source.add_argument("--card", help="a judge card (simcore card): its four counts")
    source.add_argument(
        "--data", help="calibration annotations in any input format (humans and --judge)"
    )
    add_data_arguments(calibrate, "unused", columns=True, positional=False)
    calibrate.add_argument("--judge", help="--data/--production: the judge calibrated")
    fail = calibrate.add_mutually_exclusive_group()
    for option in (FAIL_AT_MOST, FAIL_LABELS):  # --data and --production: what FAIL means
        option.add_to(fail)
    calibrate.add_argument("--human-column", default="human", help="CSV column of the truth")
    calibrate.add_argument("--judge-column", default="judge", help="CSV column of the judge")
    calibrate.add_argument("--fail-label", default="fail", help="CSV value meaning FAIL")
    calibrate.add_argument("--pass-label", default="pass", help="CSV value meaning PASS")
    calibrate.add_argument("--fails", type=count, help="production outputs the judge failed")
    calibrate.add_argument("--of", type=count, help="production outputs, N")
    calibrate.add_argument(
        "--production", metavar="FILE", help="the production stream: a file of judge labels"
    )
    calibrate.add_argument(
        "--cluster-column",
        metavar="COLUMN",
        help="items come in clusters: the --csv (and per-item --production CSV) column of "
        "each item's cluster id; every interval is then cluster-robust",
    )
    for option in CALIBRATE_OPTIONS:
        option.add_to(calibrate)
    truth = calibrate.add_argument_group("the truth and the scale (--data)")
    for option in (*TRUTH_OPTIONS, ALL_LABELS):
        option.add_to(truth)
    _add_plan(calibrate)
    add_calibrate_card_options(calibrate)
    add_json(calibrate)


def _add_plan(calibrate):
    """Add ``calibrate --plan``: calibration labels needed per method for a target width."""
    plan = calibrate.add_argument_group("planning (--plan)")
    plan.add_argument(
        "--plan",
        action="store_true",
        help="instead of a report: the calibration labels each method needs for --half-width, "
        "from a pilot (--table/--csv, --fails, --of) or from --se --sp --theta --of",
    )
    plan.add_argument("--half-width", type=finite, help="target half-width of the interval")
    plan.add_argument("--se", type=finite, help="the judge's sensitivity (TPR), instead of a pilot")
    plan.add_argument("--sp", type=finite, help="the judge's specificity (TNR), instead of a pilot")
    plan.add_argument("--theta", type=finite, help="the failure rate in (0, 1), instead of a pilot")
    plan.add_argument(
        "--cluster-size", type=count, help="plan in clusters of this many items (with --icc)"
    )
    plan.add_argument(
        "--icc",
        type=finite,
        help="intra-cluster correlation of the failures and of the judge's errors (with "
        "--cluster-size)",
    )
    PLAN_TRIALS.add_to(plan)
    PLAN_THETA.add_to(plan)


PLAN_ONLY = ("half_width", "se", "sp", "theta", "cluster_size", "icc", "plan_theta")
"""The ``--plan`` flags a report refuses (``--plan-theta`` only when not its default)."""


def _refuse_plan_flags(args):
    """Raise UsageError for a ``--plan`` flag given without ``--plan``."""
    for name in PLAN_ONLY:
        value = getattr(args, name)
        if value is not None and not (name == "plan_theta" and value == PLAN_THETA.default):
            flag = "--" + name.replace("_", "-")
            raise UsageError(f"{flag}: belongs to a plan; add --plan (got {flag} {value})")


def _table(args):
    """Return the calibration counts of ``--table``, ``--csv``, ``--card`` or ``--data``."""
    from simcore.api.calibration import calibration_counts, fail_definition
    from simcore.calibration.command import read_confusion_csv

    if args.card:
        from simcore.cli.card_command import calibrate_card_table

        return calibrate_card_table(args)
    if args.csv:
        return read_confusion_csv(
            args.csv, args.human_column, args.judge_column, args.fail_label, args.pass_label
        )
    if args.data:
        if not args.judge:
            raise UsageError("--data: needs --judge, the judge calibrated (got none)")
        definition = fail_definition(args.fail_at_most, args.fail_labels)
        return calibration_counts(args.data, args.judge, definition, **data_keywords(args))
    parts = args.table.split(",")
    if len(parts) != 4 or not all(_is_count(part.strip()) for part in parts):
        raise UsageError(
            f"--table: needs four non-negative counts CAUGHT,MISSED,FLAGGED,CLEARED "
            f"(got {args.table!r})"
        )
    return tuple(int(part) for part in parts)


def _is_count(text):
    """Whether ``text`` is a non-negative integer of at most 2**53 (a count a float holds)."""
    return text.isdigit() and len(text) <= 17 and int(text) <= LARGEST_COUNT


def run(args):
    """Print the calibrate report (or JSON), or the plan with ``--plan``."""
    from simcore.api.calibration import calibrate, plan_calibration
    from simcore.cli.card_command import calibrate_card_table

    piloted = any(value is not None for value in (args.table, args.csv, args.card, args.data))
    if args.production is not None and args.of is not None:
        raise UsageError("--production: give the file or --fails/--of, not both")
    if not args.plan:
        _refuse_plan_flags(args)
    if args.cluster_column is not None:
        if args.truth != "majority" or args.all_labels:
            raise UsageError(
                "--cluster-column: reads a per-item --csv truth; --truth latent and "
                "--all-labels need --data"
            )
        return _clustered(args, calibrate)
    if args.plan:
        if args.truth != "majority" or args.all_labels:
            raise UsageError(
                "--plan: plans a FAIL rate against the majority; --truth latent and "
                "--all-labels belong to a report"
            )
        if args.of is None:
            raise UsageError("calibrate --plan: --of N, the production size, is required")
        check_flags({"method": args.method}, CALIBRATE_OPTIONS)
        result = plan_calibration(
            table=_table(args) if piloted else None,
            fails=args.fails,
            of=args.of,
            confidence=args.confidence,
            youden_floor=args.youden_floor,
            half_width=args.half_width,
            se=args.se,
            sp=args.sp,
            theta=args.theta,
            plan_trials=args.plan_trials,
            plan_theta=args.plan_theta,
            method=args.method,
            cluster_size=args.cluster_size,
            icc=args.icc,
        )
        return print_result(result, args.json)
    if not piloted or (args.fails is None and args.production is None):
        raise UsageError(
            "--table, --csv, --card or --data, and --fails/--of or --production, "
            "are required (or --plan)"
        )
    if args.production is None and args.of is None:
        raise UsageError("calibrate: --of N, the production size, is required with --fails")
    truth = _truth_flags(args)
    if args.data:
        if not args.judge:
            raise UsageError("--data: needs --judge, the judge calibrated (got none)")
        source = {"data": args.data, **truth, **data_keywords(args)}
    elif args.card:
        calibrate_card_table(args)  # prints the card's header; refuses a card not to use
        source = {"card": args.card, **({"truth": "latent"} if truth["truth"] == "latent" else {})}
    elif truth["truth"] == "latent" or truth["all_labels"]:
        flag = "--truth latent" if truth["truth"] == "latent" else "--all-labels"
        raise UsageError(
            f"{flag}: needs the humans' labels of each item, --data (got "
            f"{'--table' if args.table else '--csv'})"
        )
    else:
        source = {"table": _table(args)}
    result = calibrate(
        **source,
        judge=args.judge,
        fail_at_most=args.fail_at_most,
        fail_labels=args.fail_labels,
        production=args.production,
        fails=args.fails,
        of=args.of,
        **_method_flags(args),
    )
    return print_result(result, args.json)


def _truth_flags(args):
    """Return ``--truth``, ``--truth-model``, ``--boot``, ``--seed``, ``--all-labels``, checked."""
    flags = {option.name: getattr(args, option.name) for option in (*TRUTH_OPTIONS, ALL_LABELS)}
    check_flags(flags, (*TRUTH_OPTIONS, ALL_LABELS))
    return flags


def _method_flags(args):
    """Return ``--method``, ``--confidence`` and ``--youden-floor``, checked (UsageError)."""
    flags = {name: getattr(args, name) for name in ("method", "confidence", "youden_floor")}
    check_flags(flags, CALIBRATE_OPTIONS)
    return flags


def _clustered(args, calibrate):
    """Run ``calibrate --cluster-column``: a per-item --csv, production as file or counts."""
    if args.plan or args.csv is None:
        given = "--plan" if args.plan else "--table/--card/--data"
        raise UsageError(
            f"--cluster-column: reads the clusters of a per-item --csv (got {given}; to plan "
            "in clusters give --plan --cluster-size M --icc RHO)"
        )
    if args.production is None and (args.fails is None or args.of is None):
        raise UsageError("--cluster-column: needs --production FILE or --fails/--of")
    result = calibrate(
        csv=args.csv,
        cluster_column=args.cluster_column,
        production=args.production,
        fails=args.fails,
        of=args.of,
        **_method_flags(args),
    )
    return print_result(result, args.json)
