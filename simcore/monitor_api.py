"""``simcore.monitor``: the judge in production, watched over time, as a result.

The production stream and the audit sample are dated per-item CSVs
(:mod:`simcore.instrument.monitor_data`); the report is
:func:`simcore.instrument.monitor.monitor_report`: the corrected failure rate with an
anytime-valid confidence sequence, and with a judge card a drift alarm on its TPR and TNR.
"""

from simcore.calibration.errors import CalibrationInputError
from simcore.command_options import MONITOR_OPTIONS
from simcore.options import check_values
from simcore.results import CommandResult

__all__ = ["monitor"]


def monitor(
    production,
    audit,
    *,
    card=None,
    confidence=0.95,
    alarm_alpha=0.05,
    plot=None,
    item_column="item",
    date_column="date",
    judge_column="judge",
    human_column="human",
    fail_label="fail",
    pass_label="pass",
):
    """Report a judge's corrected failure rate over time, and alarm when its card drifts.

    Parameters
    ----------
    production : str or pathlib.Path
        CSV, one row per production item: ``item``, ``date`` (ISO, in order) and the
        judge's label ``judge`` (``fail``/``pass``).
    audit : str or pathlib.Path
        CSV, one row per audited item (a random sample of production): ``item``, ``date``
        and the human's label ``human``.
    card : str, pathlib.Path or dict, optional
        The judge's card (a ``simcore card`` file or its document): the drift alarm tests
        the audited TPR and TNR against its counts. Without it, no alarm.
    confidence : float
        Level of the confidence sequence (valid at every look at once).
    alarm_alpha : float
        Bound on the probability of any false alarm over the whole horizon.
    plot : str or pathlib.Path, optional
        Also write the plot of the rate, its band and the alarms (``--plot``).
    item_column, date_column, judge_column, human_column : str
        The files' column names.
    fail_label, pass_label : str
        The label values (stripped, case-insensitive).

    Returns
    -------
    CommandResult
        ``to_dict()`` is ``simcore monitor --json``: ``confidence``, ``sequence``,
        ``looks`` (``date``, ``production_rows``, ``judge_fails``, ``audits``, ``estimate``,
        ``low``, ``high``, and with a card ``tpr_alarm``, ``tnr_alarm``), ``final`` and with
        a card ``alarm`` (``alpha``, ``card``, ``first_tpr_alarm``, ``first_tnr_alarm``,
        ``power``); table ``looks``.

    Raises
    ------
    ValueError
        A bad file, row or option (naming the file, line, column and value).
    """
    from simcore.instrument.monitor import monitor_report
    from simcore.instrument.monitor_data import monitor_stream

    check_values({"confidence": confidence, "alarm_alpha": alarm_alpha}, MONITOR_OPTIONS)
    if plot is not None:
        from simcore.sweep.store_files import checked_output_file

        checked_output_file(plot, "plot", kind="figure")  # before any work
    counts = None if card is None else _card_counts(card)
    stream = monitor_stream(
        production,
        audit,
        (item_column, date_column, judge_column, human_column),
        (fail_label, pass_label),
    )
    document, text = monitor_report(stream, counts, confidence, alarm_alpha)
    if plot is not None:
        from simcore.instrument.monitor_plot import plot_monitor

        plot_monitor(document, plot)
    return CommandResult("monitor", document, text, {"looks": "looks"})


def _card_counts(card):
    """Return a card's ``(caught, missed, flagged, cleared)``; refuse one without both classes."""
    if not isinstance(card, dict):
        from simcore.instrument.card_file import read_card

        source, card = card, read_card(card)
    else:
        source = "card"
    counts = card["counts"]
    table = tuple(int(counts[key]) for key in ("caught", "missed", "flagged", "cleared"))
    if table[0] + table[1] == 0 or table[2] + table[3] == 0:
        raise CalibrationInputError(
            f"{source}: counts: the card needs human-FAIL and human-PASS rows for a TPR and a "
            f"TNR to watch (got caught, missed, flagged, cleared = {table})"
        )
    return table
