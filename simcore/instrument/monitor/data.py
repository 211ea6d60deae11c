"""``simcore monitor``'s input: a dated production stream and a dated audit sample.

The production file is a CSV with one row per production item: its id (``item``), the day
it was judged (``date``, ISO ``YYYY-MM-DD``) and the judge's label (``judge``: ``fail`` or
``pass``). The audit file is a CSV with one row per audited item: its id, the day a human
labelled it and the human's label (``human``). Rows come in date order (equal dates are
fine). The looks are the days either file names; at each look the stream holds every row
dated up to it.

Both may instead be an evaluation harness's source (:mod:`simcore.realdata.harness`): an
Inspect AI log or MLflow store gives the production (one judge's labels, dated when the judge
gave them) and the audit (the humans' labels, dated when each was given, one per item).

Nothing is guessed: an empty or unparseable date, a date earlier than the row before it, a
repeated item, an audited item the production file does not hold or one audited before it
was judged is an error naming the file, line, column and value.
"""

import datetime
from typing import NamedTuple

import numpy as np

from simcore.calibration.command import csv_rows
from simcore.calibration.errors import CalibrationInputError


class MonitorStream(NamedTuple):
    """The stream at each look (arrays of one length, cumulative up to the look's day).

    ``dates`` are the looks (ISO strings); ``production_fails`` / ``production_rows`` the
    judge's FAIL labels and the rows judged; ``audits`` the items audited; ``audit_tp`` /
    ``audit_fail`` the audited human-FAIL items the judge failed / all of them;
    ``audit_tn`` / ``audit_pass`` likewise for human PASS. ``rectifiers`` are the audited
    items' ``Y - f`` (human FAIL minus judge FAIL) in audit order.
    """

    dates: list
    production_fails: np.ndarray
    production_rows: np.ndarray
    audits: np.ndarray
    audit_tp: np.ndarray
    audit_fail: np.ndarray
    audit_tn: np.ndarray
    audit_pass: np.ndarray
    rectifiers: np.ndarray


def _date(path, line, row, column, previous):
    """Return a row's date; refuse an empty, unparseable or decreasing one."""
    text = (row[column] or "").strip()
    if not text:
        raise CalibrationInputError(
            f"{path}: line {line}: column {column!r}: every row needs a date (got '')"
        )
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise CalibrationInputError(
            f"{path}: line {line}: column {column!r}: must be an ISO date YYYY-MM-DD (got {text!r})"
        ) from None
    if previous is not None and day < previous:
        raise CalibrationInputError(
            f"{path}: line {line}: column {column!r}: dates out of order: {day} comes after "
            f"{previous}; sort the rows by date (got {text!r})"
        )
    return day


def _label(path, line, row, column, labels):
    """Return True (FAIL) or False (PASS) of one cell; refuse anything else."""
    value = (row[column] or "").strip().lower()
    if value not in labels:
        fail, passed = labels
        raise CalibrationInputError(
            f"{path}: line {line}: column {column!r}: must be {fail!r} or {passed!r} "
            f"(got {row[column]!r})"
        )
    return labels[value]


def _item(path, line, row, column, seen):
    """Return a row's item id; refuse an empty or repeated one."""
    item = (row[column] or "").strip()
    if not item or item in seen:
        why = "every row needs an item id" if not item else "item repeated"
        raise CalibrationInputError(f"{path}: line {line}: column {column!r}: {why} (got {item!r})")
    return item


def read_production(path, columns, labels):
    """Return ``{item: (day, judge FAIL)}`` of a dated production CSV, in file order.

    ``columns`` are ``(item, date, judge)`` column names and ``labels`` ``{fail: True,
    pass: False}`` (lower case).
    """
    item_column, date_column, judge_column = columns
    rows, previous = {}, None
    for line, row in csv_rows(path, columns):
        item = _item(path, line, row, item_column, rows)
        previous = _date(path, line, row, date_column, previous)
        rows[item] = (previous, _label(path, line, row, judge_column, labels))
    if not rows:
        raise CalibrationInputError(f"{path}: no production rows")
    return rows


def read_audit(path, columns, labels, production, production_path):
    """Return ``[(day, human FAIL, judge FAIL)]`` of a dated audit CSV, in file order.

    ``columns`` are ``(item, date, human)``; every item must be in ``production`` (from
    ``production_path``) and audited no earlier than it was judged.
    """
    item_column, date_column, human_column = columns
    audits, seen, previous = [], set(), None
    for line, row in csv_rows(path, columns):
        item = _item(path, line, row, item_column, seen)
        seen.add(item)
        previous = _date(path, line, row, date_column, previous)
        where = (
            f"{path}: line {line}: column {item_column!r}",
            f"{path}: line {line}: column {date_column!r}",
            row[date_column],
        )
        judge_fail = _judged(production, production_path, item, previous, where)
        audits.append((previous, _label(path, line, row, human_column, labels), judge_fail))
    if not audits:
        raise CalibrationInputError(f"{path}: no audit rows")
    return audits


def _judged(production, production_path, item, day, where):
    """Return the judge's FAIL of an item audited on ``day``.

    ``where`` is ``(the place of the row's item, of its date, the date as given)`` for
    messages. Refuses an item the production does not hold and an audit dated before the
    judge labelled it.
    """
    item_place, date_place, given = where
    if item not in production:
        raise CalibrationInputError(
            f"{item_place}: the audited item is not in the production file {production_path} "
            f"(got {item!r})"
        )
    judged, judge_fail = production[item]
    if day < judged:
        raise CalibrationInputError(
            f"{date_place}: audited on {day}, before the judge labelled it on {judged} "
            f"(got {given!r})"
        )
    return judge_fail


def harness_production(source, judge, labels):
    """Return :func:`read_production`'s ``{item: (day, judge FAIL)}`` of a harness source.

    ``source`` is an Inspect AI log or an MLflow store
    (:mod:`simcore.realdata.harness`); ``judge`` names its judge (None: its only one).
    Rows are in date order, each dated when the judge labelled it.
    """
    from simcore.realdata.harness import dated_labels

    rows = {}
    for item, day, label in dated_labels(source, "judge", None if judge is None else [judge]):
        rows[item] = (day, _harness_flag(source, "judge", item, label, labels))
    if not rows:
        raise CalibrationInputError(f"{source}: no production rows")
    return rows


def harness_audit(source, humans, labels, production, production_path):
    """Return :func:`read_audit`'s ``[(day, human FAIL, judge FAIL)]`` of a harness source.

    The audits are the human labels of ``source`` (those of ``humans``, default every human),
    each dated when it was given, one per item.
    """
    from simcore.realdata.harness import dated_labels

    audits = []
    for item, day, label in dated_labels(source, "human", humans):
        where = (f"{source}: item {item}", f"{source}: item {item}", day.isoformat())
        judge_fail = _judged(production, production_path, item, day, where)
        audits.append((day, _harness_flag(source, "human", item, label, labels), judge_fail))
    if not audits:
        raise CalibrationInputError(f"{source}: no audit rows (no human label)")
    return audits


def _harness_flag(source, role, item, label, labels):
    value = label.strip().lower()
    if value not in labels:
        fail, passed = labels
        raise CalibrationInputError(
            f"{source}: item {item}: {role} label: must be {fail!r} or {passed!r} (name the "
            f"labels with --fail-label and --pass-label) (got {label!r})"
        )
    return labels[value]


def monitor_stream(  # noqa: PLR0913 (every input is a keyword)
    production,
    audit,
    columns=("item", "date", "judge", "human"),
    labels=None,
    judge=None,
    humans=None,
):
    """Return the :class:`MonitorStream` of a production stream and an audit sample.

    Parameters
    ----------
    production, audit : str or pathlib.Path
        The two CSV files (module docstring), or an Inspect AI log or MLflow store holding
        the judge's labels (production) or the humans' (audit), each dated when given.
    columns : tuple of str
        The CSV files' item, date, judge-label and human-label column names.
    labels : tuple of str, optional
        ``(fail, pass)`` label values (default ``("fail", "pass")``; compared stripped and
        case-insensitively).
    judge : str, optional
        A harness production's judge (needed when it holds several).
    humans : list of str, optional
        A harness audit's humans (default every one; an item both label is refused).

    Raises
    ------
    CalibrationInputError
        Any bad row (module docstring), naming the file, line, column and value.
    DataError
        A harness source's problem (:mod:`simcore.realdata.harness`).
    """
    from simcore.realdata.harness import harness_for

    fail, passed = labels or ("fail", "pass")
    values = {fail.strip().lower(): True, passed.strip().lower(): False}
    item, date, judge_column, human = columns
    if harness_for(production) is not None:
        rows = harness_production(production, judge, values)
    else:
        rows = read_production(production, (item, date, judge_column), values)
    if harness_for(audit) is not None:
        audits = harness_audit(audit, humans, values, rows, production)
    else:
        audits = read_audit(audit, (item, date, human), values, rows, production)
    looks = sorted({day for day, _ in rows.values()} | {day for day, _, _ in audits})
    judged_days = np.array([day.toordinal() for day, _ in rows.values()])
    judged_fails = np.array([flag for _, flag in rows.values()], dtype=np.int64)
    audit_days = np.array([day.toordinal() for day, _, _ in audits])
    human = np.array([flag for _, flag, _ in audits], dtype=np.int64)
    flagged = np.array([flag for _, _, flag in audits], dtype=np.int64)
    ends = np.array([day.toordinal() for day in looks])
    upto_production = np.searchsorted(judged_days, ends, side="right")
    upto_audit = np.searchsorted(audit_days, ends, side="right")

    def cumulative(values):
        return np.concatenate([[0], np.cumsum(values)])[upto_audit]

    return MonitorStream(
        dates=[day.isoformat() for day in looks],
        production_fails=np.concatenate([[0], np.cumsum(judged_fails)])[upto_production],
        production_rows=upto_production,
        audits=upto_audit,
        audit_tp=cumulative(human * flagged),
        audit_fail=cumulative(human),
        audit_tn=cumulative((1 - human) * (1 - flagged)),
        audit_pass=cumulative(1 - human),
        rectifiers=(human - flagged).astype(np.float64),
    )
