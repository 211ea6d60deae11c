"""``simcore settle DATA``: label until the verdict is settled, one run per round.

A thin layer over :func:`simcore.settle`: every judge's anytime-valid verdict at this look
(settled accept, settled reject or open), the record of the looks (``--looks``) and, while a
verdict is open, the next round (``--next-round``). ``--fail-if not-settled-accept`` makes it
a CI gate (exit 3).
"""

from simcore.cli.common import (
    UsageError,
    add_data_arguments,
    add_fail_if,
    add_json,
    add_overwrite,
    check_flags,
    data_keywords,
    fail_if_conditions,
    gate_status,
    print_result,
    subcommand,
)
from simcore.command_options import SETTLE_OPTIONS

NAME = "settle"


def add(commands):
    """Add ``settle`` to the subparsers ``commands``."""
    settle = subcommand(
        commands,
        NAME,
        "label until the verdict is settled: an anytime-valid verdict per round",
        [
            "simcore settle labels.csv --humans ann1,ann2,ann3 --judges gpt-4o --looks looks.json "
            "--next-round next_round.csv",
            "simcore settle labels.csv --humans ann1,ann2,ann3 --judges gpt-4o --looks looks.json "
            "--fail-if not-settled-accept",
        ],
        description="Reads the matrix so far and the record of the looks already taken; says "
        "per judge whether the leave-one-out verdict (or the alternative annotator test, "
        "--rule alt_test) is settled accept, settled reject or open, with the human labels "
        "spent. The probability that a settled verdict is wrong is at most --alpha at every "
        "look, however many rounds are taken and whenever labelling stops. While a verdict "
        "is open, --next-round writes the next round, sized by simulation to settle with "
        "probability --power.",
    )
    add_data_arguments(
        settle,
        "the matrix so far: an alttest folder, a JSON file, a long CSV, an Inspect AI log or "
        "an MLflow store",
        columns=True,
    )
    settle.add_argument(
        "--looks",
        metavar="FILE",
        help="the record of the looks already taken (JSON, created when missing): checked "
        "against the data, extended by this look when the data holds new labels",
    )
    settle.add_argument(
        "--next-round",
        metavar="FILE.csv",
        help="write the next round here while a verdict is open: human,item,design per label",
    )
    for option in SETTLE_OPTIONS:
        option.add_to(settle)
    add_overwrite(settle, "--looks and --next-round")
    add_fail_if(settle, NAME)
    add_json(settle)


def run(args):
    """Print the verdicts (or JSON); write the record and the round; apply ``--fail-if``."""
    from simcore.api.sequential import settle

    conditions = fail_if_conditions(args, NAME)
    if conditions and args.replay is not None:
        raise UsageError("--fail-if: reads a look; a --replay has none (got --replay)")
    if args.replay is not None:
        given = [
            flag
            for flag in ("--looks", "--next-round")
            if getattr(args, flag[2:].replace("-", "_"))
        ]
        if given:
            raise UsageError(
                f"--replay: replays a finished matrix and writes nothing; leave out "
                f"{' and '.join(given)} (got --replay {args.replay})"
            )
        if args.rule != "point":
            raise UsageError(
                f"--replay: replays the point rule; pass --rule point (got {args.rule})"
            )
    options = {option.name: getattr(args, option.name) for option in SETTLE_OPTIONS}
    check_flags(options, SETTLE_OPTIONS)
    result = settle(
        args.data,
        looks=args.looks,
        next_round=args.next_round,
        overwrite=args.overwrite,
        **data_keywords(args),
        **options,
    )
    print_result(result, args.json)
    return gate_status(result, conditions)
