"""Per-item CSV files with a cluster column: the calibration set's and production's counts.

``simcore calibrate --csv FILE --cluster-column NAME`` reads the calibration CSV (one row per
item, the human's and the judge's label) into one 2 x 2 table per cluster, and a production
CSV (one row per item, the judge's label) into each cluster's FAIL count and rows. A cluster
is every row with the same value in the cluster column; an empty value is an error (an item
is never put in a cluster by guess). With an ``item`` column, an item given twice counts once
when its rows agree and is refused when they do not
(:func:`simcore.calibration.command.item_rows`).
"""

import numpy as np

from simcore.calibration.command import csv_rows, item_rows
from simcore.calibration.errors import CalibrationInputError


def _label(path, line, row, column, values, fail, passed):
    """Return True for FAIL, False for PASS of one cell; refuse anything else."""
    value = (row[column] or "").strip().lower()
    if value not in values:
        raise CalibrationInputError(
            f"{path}: line {line}: column {column!r}: must be {fail!r} or {passed!r} "
            f"(got {row[column]!r})"
        )
    return values[value]


def _cluster(path, line, row, column):
    """Return one row's cluster id; refuse an empty one."""
    value = (row[column] or "").strip()
    if not value:
        raise CalibrationInputError(
            f"{path}: line {line}: column {column!r}: every item needs a cluster id (got '')"
        )
    return value


def read_clustered_calibration(
    path, cluster_column, human_column="human", judge_column="judge", fail="fail", passed="pass"
):
    """Return ``(clusters, caught, missed, flagged, cleared)``: one 2 x 2 table per cluster.

    Parameters
    ----------
    path : str or pathlib.Path
        CSV with a header, one calibration item per row.
    cluster_column, human_column, judge_column : str
        The columns of the cluster id, the human's (the truth's) and the judge's label.
    fail, passed : str
        The two label values (compared stripped, case-insensitively); positive = ``fail``.

    Returns
    -------
    clusters : list of str
        The cluster ids, in first-seen order.
    caught, missed, flagged, cleared : numpy.ndarray
        Each cluster's counts (int64, aligned with ``clusters``).

    Raises
    ------
    CalibrationInputError
        A missing file or column, a label that is neither value or an empty cluster id
        (naming the file, line, column and value), or no rows.
    """
    values = {fail.strip().lower(): True, passed.strip().lower(): False}
    cells = {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}
    tables = {}
    columns = (cluster_column, human_column, judge_column)
    for line, row in item_rows(path, csv_rows(path, columns), "item", columns):
        key = _cluster(path, line, row, cluster_column)
        human = _label(path, line, row, human_column, values, fail, passed)
        judge = _label(path, line, row, judge_column, values, fail, passed)
        tables.setdefault(key, [0, 0, 0, 0])[cells[human, judge]] += 1
    if not tables:
        raise CalibrationInputError(f"{path}: no calibration rows")
    counts = np.array(list(tables.values()), dtype=np.int64).T
    return (list(tables), *counts)


def read_clustered_production(
    path, cluster_column, judge_column="judge", fail="fail", passed="pass"
):
    """Return ``(clusters, fails, rows)``: each production cluster's judge FAILs and rows.

    ``path`` is a CSV with one production item per row: the judge's label in
    ``judge_column`` (``fail`` or ``passed``) and its cluster in ``cluster_column``. Raises
    :class:`CalibrationInputError` as :func:`read_clustered_calibration` does.
    """
    values = {fail.strip().lower(): True, passed.strip().lower(): False}
    counts = {}
    columns = (cluster_column, judge_column)
    for line, row in item_rows(path, csv_rows(path, columns), "item", columns):
        key = _cluster(path, line, row, cluster_column)
        flagged = _label(path, line, row, judge_column, values, fail, passed)
        pair = counts.setdefault(key, [0, 0])
        pair[0] += flagged
        pair[1] += 1
    if not counts:
        raise CalibrationInputError(f"{path}: no production rows")
    fails, rows = np.array(list(counts.values()), dtype=np.int64).T
    return list(counts), fails, rows
