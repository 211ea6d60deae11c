"""``simcore.monitor``: the judge in production, watched over time, as a result.

The production stream and the audit sample are dated per-item CSVs, or an Inspect AI log
or MLflow store holding both (:mod:`simcore.instrument.monitor.data`); the report is
:func:`simcore.instrument.monitor.timeline.monitor_report`: the corrected failure rate with an
anytime-valid confidence sequence, and with a judge card a drift alarm on its TPR and TNR.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from simcore.api.results import MonitorResult
from simcore.calibration.errors import CalibrationInputError
from simcore.command_options import MONITOR_OPTIONS
from simcore.options import (
    DEFAULT,
    Default,
    check_values,
    defaults,
    given_values,
    suggests_keywords,
)

__all__ = ["monitor"]


@suggests_keywords
def monitor(  # noqa: PLR0913 (every option is a keyword)
    production: str | Path,
    audit_file: str | Path,
    *,
    card: str | Path | None = None,
    confidence: float | Default = DEFAULT,
    alarm_alpha: float | Default = DEFAULT,
    plot: str | Path | None = None,
    expire_card: bool = False,
    overwrite: bool = False,
    item_column: str = "item",
    date_column: str = "date",
    judge_column: str = "judge",
    human_column: str = "human",
    fail_label: str = "fail",
    pass_label: str = "pass",
    judge: str | None = None,
    humans: Sequence[str] | str | None = None,
) -> MonitorResult:
    """Report a judge's corrected failure rate over time, and alarm when its card drifts.

    Parameters
    ----------
    production : str or pathlib.Path
        CSV, one row per production item: ``item``, ``date`` (ISO, in order) and the
        judge's label ``judge`` (``fail``/``pass``). Or an Inspect AI log (or folder of
        logs) or an MLflow store: the judge's labels, each dated when given.
    audit_file : str or pathlib.Path
        CSV, one row per audited item (a random sample of production): ``item``, ``date``
        and the human's label ``human``. Or an Inspect AI log or MLflow store: its human
        labels (score edits, HUMAN feedback), each dated when given.
    card : str, pathlib.Path or dict, optional
        The judge's card (a ``simcore card`` file or its document): the drift alarm tests
        the audited TPR and TNR against its counts. Without it, no alarm.
    confidence : float
        Level of the confidence sequence (valid at every look at once).
    alarm_alpha : float
        Bound on the probability of any false alarm over the whole horizon.
    plot : str or pathlib.Path, optional
        Also write the plot of the rate, its band and the alarms (``--plot``).
    expire_card : bool
        ``card`` is a file made with ``--expires-on-alarm`` (valid until the monitor
        alarms): where an alarm fired, write its date into the card's ``expires`` (the file
        is replaced whole, so a reader sees the old card or the new one).
    overwrite : bool
        Replace ``plot`` even when it is not a figure simcore drew (never a symbolic link;
        :mod:`simcore.output_files`).
    item_column, date_column, judge_column, human_column : str
        The files' column names.
    fail_label, pass_label : str
        The label values (stripped, case-insensitive).
    judge : str, optional
        The judge of a harness ``production`` (an Inspect scorer, an MLflow LLM_JUDGE
        source id); needed when it holds several.
    humans : list of str or str, optional
        The humans of a harness ``audit_file`` (default every one; an item two of them
        labelled is refused: an audit holds one label per item).

    Returns
    -------
    MonitorResult
        ``to_dict()`` is ``simcore monitor --json``: ``confidence``, ``sequence``,
        ``looks`` (``date``, ``production_rows``, ``judge_fails``, ``audits``, ``estimate``,
        ``low``, ``high``, and with a card ``tpr_alarm``, ``tnr_alarm``), ``final`` and with
        a card ``alarm`` (``alpha``, ``card``, ``first_tpr_alarm``, ``first_tnr_alarm``,
        ``power``, ``card_expires``: the card's expiry after this run, and
        ``card_written``); table ``looks``.

    Raises
    ------
    ValueError
        A bad file, row or option (naming the file, line, column and value), a bad card
        (checked as ``simcore card --check`` reads one), one label for both classes, or
        ``expire_card`` without ``card``.
    TypeError
        A keyword of the wrong type, naming it and what to pass.
    """
    from simcore.instrument.monitor.data import monitor_stream
    from simcore.instrument.monitor.timeline import monitor_report

    declared = {**defaults(MONITOR_OPTIONS), **given_values(locals(), MONITOR_OPTIONS)}
    check_values(declared, MONITOR_OPTIONS)
    confidence, alarm_alpha = declared["confidence"], declared["alarm_alpha"]
    columns = (item_column, date_column, judge_column, human_column)
    _check_arguments((production, audit_file, plot), columns, (fail_label, pass_label))
    _check_card_flags(card, expire_card)
    _check_outputs(plot, card if expire_card else None, overwrite)  # before any work
    card_document = None if card is None else _card_document(card, expire_card)
    counts = None if card is None else _card_counts(card_document, card)
    from simcore.options import text_value
    from simcore.realdata.readers import name_list

    humans = name_list(humans, "humans")
    if judge is not None:
        text_value(judge, "judge")
    stream = monitor_stream(
        production, audit_file, columns, (fail_label, pass_label), judge=judge, humans=humans
    )
    document, text = monitor_report(stream, counts, confidence, alarm_alpha)
    if card is not None:
        text += "\n" + _card_truth_line(document, card_document)
        text += "\n" + _card_expiry(document, card_document, card, expire_card)
    if plot is not None:
        from simcore.instrument.monitor.plot import plot_monitor

        plot_monitor(document, plot)
    return MonitorResult("monitor", document, text, {"looks": "looks"})


def _check_arguments(paths, columns, labels):
    """Refuse a file, column or label keyword of the wrong type, and one label for both classes.

    ``paths`` are ``(production, audit_file, plot)``, ``columns`` the four column keywords,
    ``labels`` ``(fail_label, pass_label)``.

    Raises
    ------
    TypeError
        A keyword of the wrong type, naming it and what to pass.
    ValueError
        An empty text, or ``fail_label`` and ``pass_label`` equal once stripped and lower-cased
        (every row would be read as one class).
    """
    from simcore.options import path_value, text_value

    production, audit_file, plot = paths
    path_value(production, "production")
    path_value(audit_file, "audit_file")
    path_value(plot, "plot", optional=True)
    for name, value in zip(COLUMN_KEYWORDS, columns, strict=True):
        text_value(value, name)
    fail, passed = (
        text_value(value, name) for name, value in zip(LABEL_KEYWORDS, labels, strict=True)
    )
    if fail.strip().lower() == passed.strip().lower():
        raise CalibrationInputError(
            f"fail_label, pass_label: must be two different labels (compared stripped and "
            f"case-insensitively) (got {fail!r} and {passed!r})"
        )


COLUMN_KEYWORDS = ("item_column", "date_column", "judge_column", "human_column")
"""The column keywords of :func:`monitor`, in ``monitor_stream``'s order."""

LABEL_KEYWORDS = ("fail_label", "pass_label")
"""The label keywords of :func:`monitor`."""


def _check_card_flags(card, expire_card):
    """Refuse a non-bool ``expire_card``, and ``expire_card`` without a card to write into."""
    if not isinstance(expire_card, bool):
        raise TypeError(
            f"expire_card: must be True or False (got {type(expire_card).__name__} {expire_card!r})"
        )
    if expire_card and card is None:
        raise CalibrationInputError(
            "expire_card: writes the first alarm's date into a card file; pass card=FILE "
            "(a card made with --expires-on-alarm) (got no card)"
        )


def _card_document(card, expire_card):
    """Return the card's document (checked, read from a file); refuse a bad --expire-card."""
    from simcore.instrument.card.file import card_argument
    from simcore.instrument.card.measure import ON_ALARM

    if isinstance(card, dict):
        if expire_card:
            raise CalibrationInputError(
                "expire_card: needs the card's file to write its expiry into (got a document)"
            )
        return card_argument(card, "card")
    document = card_argument(card, "card")
    if expire_card and document["expires"] != ON_ALARM:
        raise CalibrationInputError(
            f"{card}: expires: --expire-card dates a card made with --expires-on-alarm; this "
            f"one has a fixed expiry (got {document['expires']!r})"
        )
    return document


def _card_expiry(document, card_document, source, expire_card):
    """Record the card's expiry after this run (written with ``expire_card``); its line."""
    from simcore.instrument.card.measure import ON_ALARM

    alarm = document["alarm"]
    firsts = [day for day in (alarm["first_tpr_alarm"], alarm["first_tnr_alarm"]) if day]
    expires, written = card_document.get("expires"), False
    if expires == ON_ALARM and firsts:
        expires = max(min(firsts), card_document["measured"])
        if expire_card:
            _replace_card({**card_document, "expires": expires}, source)
            written = True
    alarm["card_expires"], alarm["card_written"] = expires, written
    if expires == ON_ALARM:
        return "card: valid until this monitor alarms, and it has not"
    if card_document.get("expires") == ON_ALARM:
        done = f"written into {source}" if written else "pass --expire-card to write it"
        return f"card: valid until this monitor alarmed; it expires {expires} ({done})"
    return f"card: expires {expires}" if expires else "card: given as a document"


def _check_outputs(plot, card, overwrite):
    """Refuse, before any work, a ``plot`` or a card file (``expire_card``) simcore may not write.

    :func:`simcore.output_files.check_output_file`: never through a symbolic link, and a
    ``plot`` already there must be a figure simcore drew unless ``overwrite``.
    """
    from simcore.output_files import check_output_file

    if plot is not None:
        check_output_file(plot, "plot", "figure", overwrite=overwrite, remedy="overwrite=True")
    if card is not None and not isinstance(card, dict):
        check_output_file(card, "card", "card", overwrite=overwrite, remedy="overwrite=True")


def _card_truth_line(document, card):
    """Record in ``document["alarm"]`` what the alarm's card rates mean; return the line."""
    from simcore.instrument.card.truth import card_truth

    truth = card_truth(card)
    document["alarm"]["truth"] = truth
    if truth["kind"] == "latent":
        audit = truth["audit"]
        return (
            f"truth: the card was measured against the latent truth; the audits carry one "
            f"human label per item, so the alarm watches the rates its fit predicts against "
            f"one human's label (TPR {audit['tpr']['estimate']:.3f}, TNR "
            f"{audit['tnr']['estimate']:.3f} at the card's prevalence; a shift of the "
            "prevalence moves them too)"
        )
    return (
        f"truth: the card's TPR and TNR against {truth['text']}; each audit reads one "
        "human's label as the truth"
    )


def _replace_card(card, path):
    """Write ``card`` over ``path`` whole: a temporary file beside it, then a rename."""
    from simcore.instrument.card.file import write_card

    write_card(card, path)


def _card_counts(card, source):
    """Return a card's ``(caught, missed, flagged, cleared)``; refuse one without both classes.

    The audits label each item by one human, so the alarm watches the rates against one
    human's label: a majority card's counts (as the card measured them), or a latent card's
    ``truth.audit`` counts, the rates its fit predicts against one human's label
    (:func:`simcore.calibration.latent.judge_error.audit_rates`).
    """
    from simcore.instrument.card.truth import card_truth

    source = "card" if isinstance(source, dict) else source
    counts = card["counts"]
    if card_truth(card)["kind"] == "latent":
        counts = card["truth"]["audit"]["counts"]
    table = tuple(int(counts[key]) for key in ("caught", "missed", "flagged", "cleared"))
    if table[0] + table[1] == 0 or table[2] + table[3] == 0:
        raise CalibrationInputError(
            f"{source}: counts: the card needs human-FAIL and human-PASS rows for a TPR and a "
            f"TNR to watch (got caught, missed, flagged, cleared = {table})"
        )
    return table
