"""``simcore card``: measure a judge card, or check one on a new population (``--check``).

``simcore card DATA --judge NAME --criterion C --population LABEL --out CARD.json`` measures
a card (:mod:`simcore.instrument.card`); ``simcore card --check CARD.json NEWDATA`` compares
the card's TPR and TNR with a labelled sample of a new population
(:mod:`simcore.instrument.card_check`). The options ``calibrate --card`` needs live here
too. Everything heavy is imported inside the functions, so ``simcore --help`` stays fast.
"""

import argparse
import datetime


def _iso_date(text):
    """Return ``text`` as a :class:`datetime.date`; argparse reports a bad one (exit 2)."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a date YYYY-MM-DD (got {text!r})") from None


def _label_list(text):
    """Return a comma-separated list of labels as a tuple of stripped, non-empty texts."""
    labels = tuple(part.strip() for part in text.split(","))
    if not all(labels):
        raise argparse.ArgumentTypeError(f"must be labels separated by commas (got {text!r})")
    return labels


def add_card(commands, subcommand):
    """Add ``card``: measure a judge card from data, or ``--check`` one on new data."""
    card = subcommand(
        commands,
        "card",
        help="a judge's TPR/TNR card on one criterion and population (or --check one)",
    )
    card.add_argument("data", help="alttest folder, CSV or JSON file with humans and the judge")
    card.add_argument(
        "--check",
        metavar="CARD",
        help="instead of measuring: check CARD on DATA, a labelled sample of a new population",
    )
    card.add_argument("--judge", help="the judge the card is for")
    card.add_argument("--criterion", help="the criterion: a group name with --group-separator")
    card.add_argument("--population", help="label of the population DATA comes from")
    card.add_argument("--out", help="card JSON file to write")
    fail = card.add_mutually_exclusive_group()
    fail.add_argument("--fail-at-most", type=float, help="FAIL = numeric label <= X")
    fail.add_argument("--fail-labels", type=_label_list, help="FAIL = one of these labels A,B")
    card.add_argument(
        "--group-separator",
        help="an item's group (criterion) is the text after the last separator in its id; "
        "with --check, default the card's (give '' for none)",
    )
    card.add_argument(
        "--labels",
        type=_label_list,
        help="labels a judge answer must be one of to parse (default: those the humans use)",
    )
    card.add_argument("--date", type=_iso_date, help="measurement date (default today)")
    card.add_argument("--expires-days", type=int, default=30, help="days until the card expires")
    card.add_argument("--confidence", type=float, default=0.95, help="confidence of intervals")
    card.add_argument("--youden-floor", type=float, default=0.15, help="J floor for correction")
    card.add_argument("--drop", type=float, default=0.15, help="--check: drop the power is for")
    card.add_argument("--alpha", type=float, default=0.05, help="--check: level of each test")


def add_calibrate_card_options(calibrate):
    """Add the options of ``calibrate --card``: population, transport, today."""
    group = calibrate.add_argument_group("judge card (--card)")
    group.add_argument("--population", help="population the production count comes from")
    group.add_argument(
        "--accept-transport",
        action="store_true",
        help="use an expired card or another population's card anyway (with a warning)",
    )
    group.add_argument("--today", type=_iso_date, help="date the card is used on (default today)")


def calibrate_card_table(args):
    """Return ``calibrate --card``'s four counts, printing the card's header and warnings.

    Raises :class:`~simcore.calibration.command.CalibrationInputError` (exit 2) without
    ``--population``, on a bad card, or on an expired or other-population card without
    ``--accept-transport``.
    """
    from simcore.calibration.command import CalibrationInputError
    from simcore.instrument.card_file import card_calibration_table

    if not args.population:
        raise CalibrationInputError(
            f"--card: needs --population LABEL, the population the production count comes "
            f"from (got card {args.card!r} and no --population)"
        )
    table, lines = card_calibration_table(
        args.card, args.population, args.today, args.accept_transport
    )
    for line in lines:
        print(line)
    return table


def command_card(args):
    """Run ``simcore card``: measure a card (default) or check one (``--check``)."""
    from simcore.calibration.command import CalibrationInputError
    from simcore.cli import UsageError
    from simcore.realdata.annotation import DataError

    try:
        if args.check:
            _check_card(args)
        else:
            _measure_card(args)
    except (CalibrationInputError, DataError) as error:
        raise UsageError(str(error)) from None


def _fail_definition(args):
    """Return the FAIL definition of ``--fail-at-most`` / ``--fail-labels`` (UsageError)."""
    from simcore.calibration.command import CalibrationInputError
    from simcore.instrument.fail_definitions import FailDefinition

    if args.fail_at_most is None and args.fail_labels is None:
        raise CalibrationInputError(
            "card: needs a FAIL definition: --fail-at-most X or --fail-labels A,B (got neither)"
        )
    try:
        return FailDefinition(args.fail_at_most, args.fail_labels).check()
    except ValueError as error:
        raise CalibrationInputError(f"card: {error}") from None


def _measure_card(args):
    """Measure the card of ``args`` on ``args.data``, write it to ``--out``, print a summary."""
    from simcore.calibration.command import CalibrationInputError
    from simcore.instrument.card import card_text, load_criterion, measure_card
    from simcore.instrument.card_file import write_card

    missing = [
        f"--{name}"
        for name in ("judge", "criterion", "population", "out")
        if not getattr(args, name)
    ]
    if missing:
        raise CalibrationInputError(
            f"card: {', '.join(missing)} required to measure a card (or --check CARD)"
        )
    if args.expires_days < 0 or not 0 < args.confidence < 1:
        raise CalibrationInputError(
            "card: --expires-days must be >= 0 and --confidence in (0, 1) "
            f"(got {args.expires_days}, {args.confidence})"
        )
    definition = _fail_definition(args)
    matrix, label_set = load_criterion(
        args.data, args.criterion, args.group_separator or None, judges=[args.judge]
    )
    names = {
        "criterion": args.criterion,
        "population": args.population,
        "source": str(args.data),
        "group_separator": args.group_separator or None,
    }
    card = measure_card(
        matrix,
        args.judge,
        definition,
        names=names,
        label_set=args.labels or label_set,
        dates=(args.date, args.expires_days),
        settings={"confidence": args.confidence, "youden_floor": args.youden_floor},
    )
    path = write_card(card, args.out)
    print(f"card: {path}")
    print(card_text(card))


def _check_card(args):
    """Check the card ``--check`` on the labelled sample ``args.data``; print the verdict."""
    from simcore.calibration.command import CalibrationInputError
    from simcore.instrument.card import count_outcomes, judge_outcomes, load_criterion
    from simcore.instrument.card_check import transport_check
    from simcore.instrument.card_file import card_definition, read_card

    if not (0 < args.alpha < 1 and 0 < args.drop < 1):
        raise CalibrationInputError(
            f"card --check: --alpha and --drop must lie in (0, 1) (got {args.alpha}, {args.drop})"
        )
    card = read_card(args.check)
    separator = card["group_separator"] if args.group_separator is None else args.group_separator
    matrix, _ = load_criterion(
        args.data, card["criterion"], separator or None, judges=[card["judge"]]
    )
    label_set = args.labels or tuple(card["label_set"])
    truth_fail, judge_fail, parsed, n_tied = judge_outcomes(
        matrix, card["judge"], card_definition(card), label_set
    )
    counts = count_outcomes(truth_fail, judge_fail, parsed)
    old = card["counts"]
    result = transport_check(
        (old["caught"], old["missed"], old["flagged"], old["cleared"]),
        counts.table,
        drop=args.drop,
        alpha=args.alpha,
    )
    print(
        f"check of card {args.check} (judge {card['judge']}, criterion {card['criterion']}, "
        f"population {card['population']}, {card['fail_definition']['text']}) on {args.data}: "
        f"{counts.n} rows with a human truth ({n_tied} tied, excluded), "
        f"{counts.unparseable_fail + counts.unparseable_pass} unparseable answers counted as errors"
    )
    for line in result.lines:
        print(line)
