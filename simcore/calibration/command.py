"""``simcore calibrate``: a judge's TPR and TNR and its corrected production failure rate.

Input is a calibration confusion table (four counts) or a CSV with one row per calibration
item (the human's label and the judge's label), plus the production count: how many of N
production outputs the judge failed. Output is the report :func:`format_report` prints.
"""

import csv
from pathlib import Path

from simcore.calibration.errors import CalibrationInputError as CalibrationInputError
from simcore.calibration.statistics import corrected_failure_rate


def read_confusion_csv(
    path, human_column="human", judge_column="judge", fail="fail", passed="pass", item_column="item"
):
    """Count a CSV's rows into ``(fail_caught, fail_missed, pass_flagged, pass_cleared)``.

    Parameters
    ----------
    path : str or pathlib.Path
        CSV with a header; one calibration item per row.
    human_column, judge_column : str
        Columns holding the human's (the truth's) and the judge's label.
    fail, passed : str
        The two label values (compared after stripping spaces, case-insensitively); the
        positive class is ``fail``.
    item_column : str
        The column of the item id, when the file has one: an item given twice with the same
        labels counts once, with other labels it is refused (:func:`item_rows`).

    Returns
    -------
    tuple of int
        Human-fail items the judge failed and passed, human-pass items it failed and passed.

    Raises
    ------
    CalibrationInputError
        A missing file or column, a row with more or fewer fields than the header, a label
        that is neither value (naming line and column), or an item whose rows disagree.
    """
    path = Path(path)
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    values = {fail.strip().lower(): True, passed.strip().lower(): False}
    rows = csv_rows(path, (human_column, judge_column))
    for line, row in item_rows(path, rows, item_column, (human_column, judge_column)):
        labels = []
        for column in (human_column, judge_column):
            value = (row[column] or "").strip().lower()
            if value not in values:
                raise CalibrationInputError(
                    f"{path}: line {line}: column {column!r}: must be {fail!r} or "
                    f"{passed!r} (got {row[column]!r})"
                )
            labels.append(values[value])
        counts[tuple(labels)] += 1
    if sum(counts.values()) == 0:
        raise CalibrationInputError(f"{path}: no calibration rows")
    return counts[True, True], counts[True, False], counts[False, True], counts[False, False]


def csv_rows(path, columns):
    """Return ``[(line, row dict)]`` of a plain or gzip CSV (a byte-order mark is dropped).

    Raises
    ------
    CalibrationInputError
        A file that cannot be read (missing, damaged gzip, not UTF-8, not CSV) or lacks one
        of ``columns``.
    """
    from simcore.realdata.files import READ_ERRORS, missing_path, open_text

    if not Path(path).is_file():
        raise CalibrationInputError(missing_path(path, "path"))
    try:
        with open_text(path, encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            rows = [(reader.line_num, row) for row in reader]
    except (*READ_ERRORS, csv.Error) as error:
        why = getattr(error, "strerror", None) or error
        raise CalibrationInputError(f"{path}: cannot read ({why})") from None
    for column in columns:
        if column not in header:
            raise CalibrationInputError(
                f"{path}: column {column!r} not found (columns: {', '.join(header) or 'none'})"
            )
    for line, row in rows:
        cells = sum(value is not None for key, value in row.items() if key is not None)
        cells += len(row.get(None) or ())
        if cells != len(header):
            raise CalibrationInputError(
                f"{path}: line {line}: expected {len(header)} fields, as the header has; a "
                f"field is never dropped or guessed (got {cells})"
            )
    return rows


def item_rows(path, rows, item_column, columns):
    """Return ``rows`` with each item once: a repeated identical row dropped, a conflict refused.

    As the one annotation reader treats a rater's repeated label
    (:func:`simcore.realdata.csv_table.numbered_ratings`): a row repeating an earlier row's
    item with the same ``columns`` (compared stripped, case-insensitively) is the same
    answer given twice and counts once; with other values it is refused. Without
    ``item_column`` in the header every row is an item of its own.

    Parameters
    ----------
    path : str or pathlib.Path
        The file, for messages.
    rows : list of (int, dict)
        :func:`csv_rows`' rows.
    item_column : str
        The column of the item id.
    columns : tuple of str
        The columns whose values must agree between two rows of one item.

    Raises
    ------
    CalibrationInputError
        An empty item id, or an item whose rows disagree (naming both lines and values).
    """
    if not rows or item_column not in rows[0][1]:
        return rows
    first, kept = {}, []
    for line, row in rows:
        item = (row[item_column] or "").strip()
        if not item:
            raise CalibrationInputError(
                f"{path}: line {line}: column {item_column!r}: every row needs an item id (got '')"
            )
        values = tuple((row[column] or "").strip().lower() for column in columns)
        if item not in first:
            first[item] = (line, values)
            kept.append((line, row))
            continue
        earlier, given = first[item]
        if given != values:
            shown = ", ".join(f"{c} {v!r}" for c, v in zip(columns, given, strict=True))
            got = ", ".join(f"{c} {row[c]!r}" for c in columns)
            raise CalibrationInputError(
                f"{path}: line {line}: item {item!r} appears again with other labels (line "
                f"{earlier} has {shown}); give each item once (got {got})"
            )
    return kept


def _interval(low, high):
    return f"[{float(low):.3f}, {float(high):.3f}]"


def summary_lines(table, judge_fails, n_production, result, level, youden_floor):
    """Return the report's first lines: the calibration set, TPR, TNR, J and the observed rate.

    ``result`` is the :class:`~simcore.calibration.correction.CorrectedRate` of the counts and
    ``level`` the confidence as printed (``"95%"``).
    """
    rates = result.rates
    caught, missed, flagged, cleared = table
    return [
        f"calibration set: {sum(table)} rows ({caught + missed} human FAIL, "
        f"{flagged + cleared} human PASS); positive class FAIL",
        f"TPR (FAIL caught):  {float(rates.tpr):.3f} {_interval(rates.tpr_low, rates.tpr_high)}"
        f"  {caught}/{caught + missed}, Wilson {level}",
        f"TNR (PASS cleared): {float(rates.tnr):.3f} {_interval(rates.tnr_low, rates.tnr_high)}"
        f"  {cleared}/{flagged + cleared}, Wilson {level}",
        f"Youden J = TPR + TNR - 1: {float(result.youden):.3f} (floor {youden_floor:g})",
        f"production: judge FAIL on {judge_fails} of {n_production}, observed rate "
        f"{float(result.observed):.4f} {_interval(result.observed_low, result.observed_high)}",
    ]


def format_report(table, judge_fails, n_production, confidence=0.95, youden_floor=0.15):
    """Return the calibrate report for a confusion ``table`` and a production count.

    ``table`` is ``(fail_caught, fail_missed, pass_flagged, pass_cleared)``. The report gives
    TPR and TNR with Wilson intervals, the observed production rate, and either the
    Rogan-Gladen corrected rate with its Lang-Reiczigel interval (and the naive interval,
    labelled as too narrow) and the share of the interval's variance owed to the
    calibration set, or the refusal and its reason.
    """
    result = corrected_failure_rate(
        judge_fails, n_production, *table, confidence=confidence, youden_floor=youden_floor
    )
    level = f"{100 * confidence:g}%"
    lines = summary_lines(table, judge_fails, n_production, result, level, youden_floor)
    if not bool(result.corrected):
        lines += [
            f"not corrected: {result.refusal}",
            f"failure rate (uncorrected, judge-flagged): {float(result.observed):.4f} "
            f"{_interval(result.observed_low, result.observed_high)}",
        ]
        return "\n".join(lines)
    share = float(result.calibration_share)
    lines += [
        f"corrected failure rate (Rogan-Gladen): {float(result.estimate):.4f}",
        f"  {level} interval (Lang-Reiczigel): {_interval(result.lr_low, result.lr_high)}",
        f"  {level} naive interval (TPR, TNR taken as exact; too narrow, for comparison only): "
        f"{_interval(result.naive_low, result.naive_high)}",
        f"  {100 * share:.0f}% of the interval's variance comes from the calibration set, "
        f"{100 * (1 - share):.0f}% from the production count"
        + ("; label more calibration rows to narrow it" if share > 0.5 else ""),
    ]
    return "\n".join(lines)
