"""A long pandas DataFrame ``item, rater, label[, group]`` read as an annotation matrix.

:func:`frame_matrix` reads the long table users already have (crowd-kit's ``task, worker,
label`` shape, under the long CSV's names or their aliases) into the same
:class:`~simcore.realdata.annotation.AnnotationMatrix` the CSV file of those rows gives:
every cell is turned into the text a CSV file holds (``str(value)``; a missing value is an
empty cell), the columns are found by :func:`~simcore.realdata.csv_table.column_positions`
and the rows read by the CSV loader's own row reader and matrix builder.
"""

from simcore.realdata.annotation import DataError
from simcore.realdata.csv_table import column_positions, read_rows
from simcore.realdata.loaders import owned_table_matrix

FRAME_SOURCE = "DataFrame"
"""How messages and the report name a matrix given as a DataFrame."""


def frame_matrix(
    frame, humans=None, judges=None, ordinal=False, judges_path=None, labels=None, columns=None
):
    """Return the annotation matrix of a long DataFrame ``item, rater, label[, group]``.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per label, in any order, with any index (problems name a row by its index
        label). The columns are found as in a long CSV file: by ``columns``, their standard
        names or an alias (:func:`simcore.realdata.csv_table.column_positions`).
    humans, judges, ordinal, judges_path, labels, columns
        As for :func:`simcore.realdata.loaders.load_csv`.

    Returns
    -------
    AnnotationMatrix
        The matrix a CSV file of the same rows gives, with source ``DataFrame``.

    Raises
    ------
    DataError
        (a ``ValueError``) naming the column for a frame that has no rows, misses a column
        or has an unknown one; else every problem the CSV loader reports (empty cells,
        conflicting labels, raters in neither list, ...).
    """
    header = [str(column).strip() for column in frame.columns]
    positions = column_positions(header, columns or {}, FRAME_SOURCE, key="columns")
    if frame.empty:
        raise DataError([f"{FRAME_SOURCE}: rows: the frame has no rows (got 0 rows)"])
    keyed, problems = _frame_ratings(frame, header, positions)
    options = (humans, judges, labels, ordinal, judges_path)
    return owned_table_matrix(keyed, "group" in positions, FRAME_SOURCE, problems, options)


def _frame_ratings(frame, header, positions):
    """Return :func:`read_rows` of the frame's cells as text (dropped once they are read)."""
    text = frame.astype(str).where(frame.notna(), "")
    rows = [header, *text.to_numpy().tolist()]
    return read_rows(rows, header, FRAME_SOURCE, row_names=list(frame.index), positions=positions)
