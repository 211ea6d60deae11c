"""The long CSV table ``item,rater,label[,group]``: rows, header, and item keys.

:func:`read_csv_ratings` reads a (possibly gzip-compressed) long table into
``{rater: {(item, group): label}}`` (``group`` None without a ``group`` column), collecting
every problem. An item is identified by ``(item, group)``: the same item id in two groups is
two items. :class:`ItemKeys` turns those pairs into the distinct text ids of an annotation
matrix: the user's item id when no id repeats across groups, else ``GROUP/ITEM`` for every
item of the file.
"""

import csv
from dataclasses import dataclass, field
from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.files import open_text

CSV_COLUMNS = ("item", "rater", "label", "group")
"""Columns of the long CSV format; ``group`` is optional."""

MAX_ROW_PROBLEMS = 20
"""Row-level CSV problems reported one by one before they are summarised."""

ITEM_GROUP_JOIN = "/"
"""Joins group and item id into a matrix item id when item ids repeat across groups."""


@dataclass
class ItemKeys:
    """How ``(item, group)`` pairs become matrix item ids, and the way back.

    Attributes
    ----------
    composite : bool
        Whether some item id appears in several groups; then every item's matrix id is
        ``f"{group}{ITEM_GROUP_JOIN}{item}"``, else the item id itself.
    groups : dict
        Matrix item id -> group name (empty without a group column).
    ids : dict
        Matrix item id -> the user's item id.
    """

    composite: bool
    groups: dict = field(default_factory=dict)
    ids: dict = field(default_factory=dict)

    @classmethod
    def of(cls, ratings):
        """Return the keys of ``{rater: {(item, group): label}}``: composite when needed."""
        seen = {}
        composite = False
        for given in ratings.values():
            for item, group in given:
                if seen.setdefault(item, group) != group:
                    composite = True
                    break
        return cls(composite)

    def key(self, item, group):
        """Return the matrix id of ``(item, group)`` and remember its group and user id."""
        key = f"{group}{ITEM_GROUP_JOIN}{item}" if self.composite else item
        if group is not None:
            self.groups.setdefault(key, group)
        self.ids.setdefault(key, item)
        return key

    def rekey(self, ratings):
        """Return ``{rater: {matrix id: label}}`` of ``{rater: {(item, group): label}}``."""
        return {
            rater: {self.key(item, group): label for (item, group), label in given.items()}
            for rater, given in ratings.items()
        }

    def text(self, key):
        """Return the user's view of a matrix item id, for messages: ``'i1'`` or with group."""
        item = self.ids.get(key, key)
        if self.composite and key in self.groups:
            return f"{item!r} in group {self.groups[key]!r}"
        return repr(item)


def read_csv_ratings(file, problems):
    """Return ``(ratings, has_group)`` of a long CSV file; raise when it cannot be read.

    ``ratings`` is ``{rater: {(item, group): label}}`` with ``group`` None when the file has
    no ``group`` column. Row problems are appended to ``problems``; a missing, unreadable or
    empty file or a bad header raises :class:`DataError` at once.
    """
    rows = _read_csv_file(Path(file), problems)
    header = _csv_header(rows, file, problems)
    ratings, row_problems = read_rows(rows, header, file)
    problems += row_problems
    return ratings, "group" in header


def _read_csv_file(file, problems):
    """Return the rows of the CSV ``file``; raise :class:`DataError` when there are none."""
    if not file.is_file():
        problems.append(f"{file}: path: file not found (got {got_text(str(file))})")
        raise DataError(problems)
    try:
        with open_text(file, encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle))
    except (OSError, EOFError, UnicodeDecodeError, csv.Error) as error:
        problems.append(f"{file}: unreadable: {error} (got {got_text(str(file))})")
        raise DataError(problems) from None
    if not rows:
        problems.append(f"{file}: header: the file is empty (got no rows)")
        raise DataError(problems)
    return rows


def _csv_header(rows, file, problems):
    """Return the stripped header; raise :class:`DataError` when it is not usable."""
    header = [column.strip() for column in rows[0]]
    header_problems = []
    for column in header:
        if column not in CSV_COLUMNS:
            header_problems.append(
                f"{file}: header: unknown column (valid: {', '.join(CSV_COLUMNS)}) "
                f"(got {got_text(column)})"
            )
    for column in CSV_COLUMNS[:3]:
        if column not in header:
            header_problems.append(
                f"{file}: header: missing column {column!r} (got {got_text(','.join(rows[0]))})"
            )
    repeated = sorted({column for column in header if header.count(column) > 1})
    if repeated:
        header_problems.append(f"{file}: header: repeated columns (got {got_text(repeated)})")
    if header_problems:
        raise DataError(problems + header_problems)
    return header


def read_rows(rows, header, file, row_names=None, positions=None):
    """Return ``({rater: {(item, group): label}}, problems)`` from the CSV rows.

    ``rows[0]`` is the header row (``header``, stripped), the others lists of text cells.
    ``positions`` maps ``item``, ``rater``, ``label`` (and ``group``) to their cells when
    the header names them otherwise (default: the header's own names).
    A rater labelling the same ``(item, group)`` twice with different labels is a problem;
    the same item id in two groups is two items. Messages name a row by its line number
    in the file, or by ``row_names`` (one per row after the header; a DataFrame's index).
    """
    column = positions or {name: position for position, name in enumerate(header)}
    ratings, first_row = {}, {}
    problems = []
    names = range(2, len(rows) + 1) if row_names is None else row_names
    for number, row in zip(names, rows[1:], strict=True):
        if not "".join(row).strip():  # a blank line
            continue
        if len(row) != len(header):
            problems.append(f"{file}: row {number}: expected {len(header)} cells (got {len(row)})")
            continue
        cells = {name: row[position].strip() for name, position in column.items()}
        empty = [name for name, value in cells.items() if not value]
        if empty:
            problems.append(
                f"{file}: row {number}: empty {', '.join(empty)} (got {got_text(','.join(row))})"
            )
            continue
        item, rater, label = cells["item"], cells["rater"], cells["label"]
        key = (item, cells.get("group"))
        given = ratings.setdefault(rater, {})
        if key in given and given[key] != label:
            where = f" in group {key[1]!r}" if key[1] is not None else ""
            problems.append(
                f"{file}: row {number}: rater {rater!r} labels item {item!r}{where} again "
                f"with a different label (row {first_row[(key, rater)]} has {given[key]!r}) "
                f"(got {label!r})"
            )
        elif key not in given:
            given[key] = label
            first_row[(key, rater)] = number
    if len(problems) > MAX_ROW_PROBLEMS:
        more = len(problems) - MAX_ROW_PROBLEMS
        problems = problems[:MAX_ROW_PROBLEMS] + [
            f"{file}: rows: {more} more row problems like these (got {len(problems)} in all)"
        ]
    return ratings, problems
