"""``simcore card``: measure a judge card, or check one on a new population (``--check``).

``simcore card DATA --judge NAME --criterion C --population LABEL --out CARD.json``
measures a card (:func:`simcore.card`); ``simcore card --check CARD.json NEWDATA`` compares
the card's TPR and TNR with a labelled sample of a new population (:func:`simcore.card_check`).
A long CSV does not say which raters are judges, so it needs ``--judges`` (every judge in
it) or ``--humans``: another judge is never counted as a human.
"""

from simcore.cli.common import (
    UsageError,
    add_data_arguments,
    add_fail_if,
    add_json,
    add_overwrite,
    check_flags,
    checked_outputs,
    data_keywords,
    fail_if_conditions,
    gate_status,
    json_text,
    print_json,
    subcommand,
    write_text,
)
from simcore.command_options import CARD_OPTIONS, CHECK_OPTIONS
from simcore.options import iso_date

NAME = "card"


def add(commands):
    """Add ``card`` to the subparsers ``commands``."""
    card = subcommand(
        commands,
        NAME,
        "a judge's TPR/TNR card on one criterion and population (or --check one)",
        [
            "simcore card ../shared/data/alttest/summeval --group-separator __ --judge gpt-4o "
            "--criterion coherence --population summeval --fail-at-most 2 --out card.json",
            "simcore card ratings.csv --judges judge_a,judge_b --judge judge_a --criterion all "
            "--population pilot --fail-labels fail --out card.json",
            "simcore card --check card.json new_sample.csv --judges judge_a,judge_b",
        ],
    )
    add_data_arguments(
        card,
        "alttest folder, CSV or JSON file, Inspect AI log or MLflow store with humans and the "
        "judge",
        judges_help="comma-separated judge names: a CSV must name every judge in it (or give "
        "--humans)",
        columns=True,
    )
    card.add_argument(
        "--check",
        metavar="CARD",
        help="instead of measuring: check CARD on DATA, a labelled sample of a new population",
    )
    fail = card.add_mutually_exclusive_group()
    unique = {option.name: option for option in CARD_OPTIONS + CHECK_OPTIONS}
    for option in unique.values():
        exclusive = option.name in ("fail_at_most", "fail_labels")
        option.add_to(fail if exclusive else card)
    card.add_argument(
        "--out",
        help="card JSON file to write (with --check: the check's JSON document, as --json prints)",
    )
    add_overwrite(card, "--out")
    add_fail_if(card, NAME)
    add_json(card)


def run(args):
    """Measure (default) or check (``--check``) a card; print the summary or JSON."""
    from simcore.api import data as data_commands
    from simcore.instrument.card.file import write_card

    conditions = fail_if_conditions(args, NAME)
    if conditions and not args.check:
        raise UsageError(
            "--fail-if: reads a card's check; add --check CARD (got --fail-if without --check)"
        )
    if args.check:
        checked_outputs(args, (args.out, "--out", "card-check"))
        options = {option.name: getattr(args, option.name) for option in CHECK_OPTIONS}
        check_flags(options, CHECK_OPTIONS)
        result = data_commands.card_check(args.check, args.data, **data_keywords(args), **options)
        if args.out:
            write_text(args.out, json_text(result.to_dict()))
    else:
        missing = [
            f"--{name}"
            for name in ("judge", "criterion", "population", "out")
            if not getattr(args, name)
        ]
        if missing:
            raise UsageError(f"{', '.join(missing)} required to measure a card (or --check CARD)")
        checked_outputs(args, (args.out, "--out", "card"))
        options = {option.name: getattr(args, option.name) for option in CARD_OPTIONS}
        check_flags(options, CARD_OPTIONS)
        result = data_commands.card(args.data, **data_keywords(args), **options)
        path = write_card(result["card"], args.out)
    if args.json:
        print_json(result.to_dict())
        return gate_status(result, conditions, args.today)
    if args.out:
        print(f"card: {path}" if not args.check else f"check: {args.out}")
    print(result.to_markdown())
    return gate_status(result, conditions, args.today)


def add_calibrate_card_options(calibrate):
    """Add the options of ``calibrate --card``: population, transport, today."""
    group = calibrate.add_argument_group("judge card (--card)")
    group.add_argument("--population", help="population the production count comes from")
    group.add_argument(
        "--accept-transport",
        action="store_true",
        help="use an expired card or another population's card anyway (with a warning)",
    )
    group.add_argument("--today", type=iso_date, help="date the card is used on (default today)")


def calibrate_card_table(args):
    """Return ``calibrate --card``'s four counts, printing the card's header and warnings.

    Raises :class:`~simcore.calibration.command.CalibrationInputError` (exit 2) without
    ``--population``, on a bad card, or on an expired or other-population card without
    ``--accept-transport``.
    """
    import sys

    from simcore.calibration.errors import CalibrationInputError
    from simcore.instrument.card.file import card_calibration_table

    if not args.population:
        raise CalibrationInputError(
            f"--card: needs --population LABEL, the population the production count comes "
            f"from (got card {args.card!r} and no --population)"
        )
    table, lines = card_calibration_table(
        args.card, args.population, args.today, args.accept_transport
    )
    for line in lines:
        print(line, file=sys.stderr if getattr(args, "json", False) else sys.stdout)
    return table
