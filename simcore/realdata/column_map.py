"""Long CSV tables whose columns carry other names: ``item,criterion,rater,score`` and the like.

The long format is ``item,rater,label[,group]`` (:mod:`~simcore.realdata.csv_table`). Many
published tables hold the same long rows under other names; JUDGE-BENCH's newsroom ratings,
for one, are ``item,criterion,rater,score``. :func:`load_mapped_csv` finds each of the four
columns by the name the caller gives or, when none is given, by its standard name and then
by the known aliases in :data:`COLUMN_ALIASES`; other columns are ignored. The rows then go
through the same reader and matrix assembly as :func:`~simcore.realdata.loaders.load_csv`,
so the same problems are reported the same way.
"""

from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.csv_table import _read_csv_file, read_rows
from simcore.realdata.loaders import long_table_matrix

COLUMN_ALIASES = {
    "item": ("item", "item_id", "id"),
    "rater": ("rater", "annotator", "worker"),
    "label": ("label", "score", "rating"),
    "group": ("group", "criterion", "dimension", "aspect"),
}
"""Standard column -> the header names tried, in order, when no name is given for it."""


def _column_positions(header, columns, file):
    """Return ``{standard column: position}``; raise :class:`DataError` for a missing one."""
    positions, problems = {}, []
    for standard, tried in COLUMN_ALIASES.items():
        given = columns.get(standard)
        names = (given,) if given else tried
        found = [name for name in names if name in header]
        if found and header.count(found[0]) > 1:
            problems.append(
                f"{file}: header: repeated column {found[0]!r} (got {got_text(header)})"
            )
        elif found:
            positions[standard] = header.index(found[0])
        elif given or standard != "group":
            looked = repr(given) if given else "one of " + ", ".join(map(repr, tried))
            problems.append(
                f"{file}: header: no {standard} column (looked for {looked}) "
                f"(got {got_text(','.join(header))})"
            )
    if problems:
        raise DataError(problems)
    return positions


def load_mapped_csv(path, columns=None, humans=None, judges=None, judges_path=None):
    """Load a long CSV table whose item, rater, label and group columns may be named otherwise.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV file (UTF-8, header first; plain or gzip).
    columns : dict, optional
        ``{"item" | "rater" | "label" | "group": header name}``; a column not given is
        looked up under :data:`COLUMN_ALIASES` (the group column is optional unless named).
    humans, judges, judges_path
        As for :func:`~simcore.realdata.loaders.load_csv`.

    Returns
    -------
    AnnotationMatrix
        With a group column, one group per distinct value; an item id repeated across
        groups is one item per group.

    Raises
    ------
    DataError
        A missing or unreadable file, a column not found (naming the file and the names
        looked for), or any problem :func:`~simcore.realdata.loaders.load_csv` reports.
    """
    file = Path(path)
    unknown = sorted(set(columns or {}) - set(COLUMN_ALIASES))
    if unknown:
        raise DataError(
            [
                f"{file}: columns: unknown key (valid: item, rater, label, group) "
                f"(got {got_text(unknown)})"
            ]
        )
    problems = []
    rows = _read_csv_file(file, problems)
    header = [name.strip() for name in rows[0]]
    positions = _column_positions(header, columns or {}, file)
    ratings, row_problems = read_rows(rows, header, file, positions=positions)
    problems += row_problems
    return long_table_matrix(
        ratings, "group" in positions, file, problems, humans, judges, None, False, judges_path
    )
