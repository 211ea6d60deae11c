"""The wide CSV table: one row per item, one column per rater, a label in each cell.

``item[,group],RATER,RATER,...``: the first columns are the item id (``item`` or an alias)
and, optionally, its group (``group`` or an alias); every other column is a rater, whose cell
holds its label for the item, or nothing where it gave none. The rows become the long
table's ``{rater: {(item, group): label}}`` and go through the same matrix assembly as a long
CSV file (:func:`simcore.realdata.loaders.long_table_matrix`), so roles, labels, groups and
every problem message are the long table's. A wide table does not say which raters are
judges: name them (``judges``) or the humans.
"""

from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.csv_table import (
    COLUMN_ALIASES,
    MAX_ROW_PROBLEMS,
    check_delimiter,
    csv_rows,
)
from simcore.realdata.loaders import owned_table_matrix


def _key_columns(header, file):
    """Return ``(item position, group position or None)``; raise for a missing or repeated one."""
    found = {}
    for standard in ("item", "group"):
        names = [name for name in COLUMN_ALIASES[standard] if name in header]
        if names and header.count(names[0]) > 1:
            raise DataError([f"{file}: header: repeated columns (got {got_text([names[0]])})"])
        found[standard] = header.index(names[0]) if names else None
    if found["item"] is None:
        raise DataError(
            [f"{file}: header: missing column 'item' (got {got_text(','.join(header))})"]
        )
    return found["item"], found["group"]


def wide_ratings(rows, file):
    """Return ``({rater: {(item, group): label}}, has_group, problems)`` of a wide table's rows.

    ``rows`` is any iterable of rows, the header first (a list, or :func:`csv_rows`); each
    distinct label text is stored once and each row's ``(item, group)`` key shared by its
    raters.
    """
    rows = iter(rows)
    header = [name.strip() for name in next(rows)]
    check_delimiter(header, file)
    item_at, group_at = _key_columns(header, file)
    raters = [(at, name) for at, name in enumerate(header) if at not in (item_at, group_at)]
    problems = [f"{file}: header: a rater column has no name (got {got_text(','.join(header))})"]
    problems = problems if any(not name for _, name in raters) else []
    repeated = sorted({name for _, name in raters if header.count(name) > 1})
    if repeated:
        problems.append(f"{file}: header: repeated columns (got {got_text(repeated)})")
    if problems:
        raise DataError(problems)
    ratings, distinct = {name: {} for _, name in raters}, {}
    for number, row in enumerate(rows, start=2):
        if not "".join(row).strip():
            continue
        if len(row) != len(header):
            problems.append(f"{file}: row {number}: expected {len(header)} cells (got {len(row)})")
            continue
        item = row[item_at].strip()
        group = row[group_at].strip() if group_at is not None else None
        if not item or group == "":
            problems.append(
                f"{file}: row {number}: empty item or group (got {got_text(','.join(row))})"
            )
            continue
        key = (item, group)
        for at, name in raters:
            label = row[at].strip()
            if label and key in ratings[name] and ratings[name][key] != label:
                problems.append(
                    f"{file}: row {number}: item {item!r} appears again with another label "
                    f"of {name!r} (got {label!r})"
                )
            elif label:
                ratings[name][key] = distinct.setdefault(label, label)
    if len(problems) > MAX_ROW_PROBLEMS:
        more = len(problems) - MAX_ROW_PROBLEMS
        problems = problems[:MAX_ROW_PROBLEMS] + [
            f"{file}: rows: {more} more row problems like these (got {len(problems)} in all)"
        ]
    return ratings, group_at is not None, problems


def load_wide_csv(path, humans=None, judges=None, labels=None, ordinal=False, judges_path=None):
    """Load a wide CSV table ``item[,group],RATER,...`` (plain or gzip).

    Parameters
    ----------
    path : str or pathlib.Path
        The file, header first.
    humans, judges, labels, ordinal, judges_path
        As for :func:`simcore.realdata.loaders.load_csv`.

    Returns
    -------
    AnnotationMatrix
        The matrix the long table of the same labels gives.

    Raises
    ------
    DataError
        A missing or unreadable file, a header without an item column, an unnamed or
        repeated rater column, ragged rows, or any problem of the long table's assembly.
    """
    file = Path(path)
    problems = []
    rows = csv_rows(file, problems)
    try:
        ratings, has_group, row_problems = wide_ratings(rows, file)
    except DataError:
        for _ in rows:  # an unreadable file is reported instead of its header
            pass
        raise
    ratings = {name: given for name, given in ratings.items() if given}
    options = (humans, judges, labels, ordinal, judges_path)
    return owned_table_matrix(ratings, has_group, file, problems + row_problems, options)
