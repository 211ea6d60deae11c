"""The long table ``item,rater,label[,group]``: columns, rows and item keys.

:func:`read_csv_ratings` reads a (possibly gzip-compressed) long CSV table into ``{rater:
{(item, group): label}}`` (``group`` None without a group column), collecting every problem.
The columns are found by :func:`column_positions`, for CSV files and DataFrames alike: the
names the caller gives, else the standard names, else the aliases of :data:`COLUMN_ALIASES`
(JUDGE-BENCH's ``item,criterion,rater,score`` is read as it is); any other column is refused
unless the caller named the item, rater and label columns. An item is identified by ``(item,
group)``: the same item id in two groups is two items. :class:`ItemKeys` turns those pairs into
the distinct text ids of an annotation matrix: the user's item id when no id repeats across
groups, else ``GROUP/ITEM`` for every item of the file. The rows are read one at a time
(:func:`csv_rows`), each distinct label and key stored once; :func:`read_keyed_csv` reads a
file straight into matrix item ids.
"""

import csv
import itertools
from dataclasses import dataclass, field
from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.files import READ_ERRORS, missing_path, open_text

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

    def take(self, ratings):
        """Return :meth:`rekey` of ``ratings``, emptying ``ratings`` rater by rater.

        Each rater's labels are dropped as soon as they are rekeyed, so a caller done with
        ``ratings`` never holds it and its rekeyed copy both whole.
        """
        rekeyed = {}
        for rater in list(ratings):
            given = ratings.pop(rater)
            rekeyed[rater] = {
                self.key(item, group): label for (item, group), label in given.items()
            }
        return rekeyed

    def text(self, key):
        """Return the user's view of a matrix item id, for messages: ``'i1'`` or with group."""
        item = self.ids.get(key, key)
        if self.composite and key in self.groups:
            return f"{item!r} in group {self.groups[key]!r}"
        return repr(item)


def read_csv_ratings(file, problems, columns=None):
    """Return ``(ratings, has_group)`` of a long CSV file; raise when it cannot be read.

    ``ratings`` is ``{rater: {(item, group): label}}`` with ``group`` None when the file has
    no group column. The columns are found by :func:`column_positions` (``columns`` names
    them; else standard names, then aliases). Row problems are appended to ``problems``; a
    missing, unreadable or empty file or a bad header raises :class:`DataError` at once.
    The rows are read one at a time, never held together (:func:`csv_rows`).
    """
    return read_csv_table(file, problems, columns)


def read_keyed_csv(file, problems, columns=None):
    """Return ``(ratings, keys, has_group)``: a long CSV file keyed by matrix item ids.

    ``ratings`` is ``{rater: {matrix item id: label}}`` and ``keys`` its :class:`ItemKeys`;
    otherwise as :func:`read_csv_ratings`. A file without a group column is keyed by item
    id as it is read; one with a group column is read by ``(item, group)`` and rekeyed
    rater by rater (:meth:`ItemKeys.take`).
    """
    ratings, has_group = read_csv_table(file, problems, columns, item_keys=True)
    if has_group:
        keys = ItemKeys.of(ratings)
        return keys.take(ratings), keys, True
    ids = {item: item for given in ratings.values() for item in given}
    return ratings, ItemKeys(composite=False, ids=ids), False


def read_csv_table(file, problems, columns=None, item_keys=False):
    """Return ``(ratings, has_group)`` as :func:`read_csv_ratings` does, or keyed by item id.

    ``item_keys`` keys the labels of a file without a group column by item id alone
    (:func:`numbered_ratings`); a file with one is keyed by ``(item, group)`` all the same.
    """
    path = Path(file)
    rows = csv_rows(path, problems)
    header = [name.strip() for name in next(rows)]
    try:
        check_delimiter(header, file)
        positions = column_positions(header, columns or {}, file)
    except DataError as error:
        for _ in rows:  # an unreadable file is reported instead of its header
            pass
        raise DataError(problems + error.problems) from None

    def rows_again():
        again = csv_rows(path, [])
        next(again)
        return enumerate(again, start=2)

    plain = item_keys and "group" not in positions
    ratings, row_problems = numbered_ratings(
        enumerate(rows, start=2), rows_again, len(header), file, positions, item_keys=plain
    )
    problems += row_problems
    return ratings, "group" in positions


def csv_rows(file, problems):
    """Yield the rows of the CSV ``file`` one by one, each a list of text cells.

    Raises :class:`DataError` (``problems`` and one more) when the file is missing, when
    reading it fails (at the row where it does) or when it has no rows.
    """
    if not file.is_file():
        problems.append(missing_path(file, "path"))
        raise DataError(problems)
    empty = True
    try:
        with open_text(file, encoding="utf-8-sig") as handle:
            for row in csv.reader(handle):
                empty = False
                yield row
    except (*READ_ERRORS, csv.Error) as error:
        problems.append(f"{file}: unreadable: {error} (got {got_text(str(file))})")
        raise DataError(problems) from None
    if empty:
        problems.append(f"{file}: header: the file is empty (got no rows)")
        raise DataError(problems)


def read_csv_file(file, problems):
    """Return the rows of the CSV ``file``; raise :class:`DataError` when there are none."""
    return list(csv_rows(file, problems))


OTHER_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "pipe"}
"""Delimiters a table saved by a spreadsheet or a script may use instead of the comma."""


def check_delimiter(header, file):
    """Refuse a header read as one column that another delimiter would split (DataError).

    A semicolon-, tab- or pipe-separated file read as comma-separated gives one column per
    row; the delimiter found most often in that one name is named, and the file refused
    (it is never read with a guessed delimiter)::

        data.csv: header: the header reads as one column 'item;rater;label': the file
        looks semicolon-delimited; simcore reads comma-separated files (save it with commas)
    """
    if len(header) != 1:
        return
    mark = max(OTHER_DELIMITERS, key=header[0].count)
    if mark in header[0]:
        raise DataError(
            [
                f"{file}: header: the header reads as one column {header[0]!r}: the file "
                f"looks {OTHER_DELIMITERS[mark]}-delimited; simcore reads comma-separated "
                f"files (save it with commas, e.g. pandas.read_csv(FILE, sep={mark!r})"
                ".to_csv(NEW, index=False))"
            ]
        )


COLUMN_ALIASES = {
    "item": ("item", "item_id", "id"),
    "rater": ("rater", "annotator", "worker"),
    "label": ("label", "score", "rating"),
    "group": ("group", "criterion", "dimension", "aspect"),
}
"""Standard column -> the header names tried, in order, when no name is given for it."""


def column_positions(header, columns, file, key="header"):
    """Return ``{standard column: position}`` of a long table's header.

    Each of ``item``, ``rater``, ``label`` and the optional ``group`` is found under the
    name ``columns`` gives it, else under its standard name or an alias
    (:data:`COLUMN_ALIASES`). A column that is none of these is refused unless the caller
    named the item, rater and label columns (then the others are not read): a column is
    never guessed. Raises :class:`DataError` naming every missing, unknown or repeated
    column, under ``key`` (``header`` for a file, ``columns`` for a DataFrame).
    """
    positions, problems = {}, []
    for standard, tried in COLUMN_ALIASES.items():
        given = columns.get(standard)
        names = (given,) if given else tried
        found = [name for name in names if name in header]
        if found and header.count(found[0]) > 1:
            problems.append(f"{file}: {key}: repeated columns (got {got_text([found[0]])})")
        elif found:
            positions[standard] = header.index(found[0])
        elif given or standard != "group":
            looked = repr(given) if given else ", ".join(map(repr, tried))
            problems.append(
                f"{file}: {key}: missing column {standard!r} (looked for {looked}) "
                f"(got {got_text(','.join(header))})"
            )
    if not all(columns.get(name) for name in ("item", "rater", "label")):
        used = set(positions.values())
        problems += [
            f"{file}: {key}: unknown column (valid: item, rater, label, group or an alias: "
            f"{', '.join(name for names in COLUMN_ALIASES.values() for name in names[1:])}; "
            "or name the item, rater and label columns and the others are not read) "
            f"(got {got_text(name)})"
            for position, name in enumerate(header)
            if position not in used
        ]
    if problems:
        raise DataError(problems)
    return positions


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
    names = range(2, len(rows) + 1) if row_names is None else row_names

    def numbered():
        return zip(names, itertools.islice(rows, 1, None), strict=True)

    return numbered_ratings(numbered(), numbered, len(header), file, column)


def numbered_ratings(numbered, again, width, file, column, item_keys=False):
    """Return ``({rater: {(item, group): label}}, problems)`` of ``(row name, cells)`` pairs.

    ``numbered`` yields the rows after the header, each with the name messages give it;
    ``width`` is the header's length and ``column`` maps ``item``, ``rater``, ``label`` (and
    ``group``, or any other column that must not be empty) to a cell position. The rows
    are read once: each distinct label text and ``(item, group)`` key is stored once,
    shared by every rater, and no row number is kept per label. Only when a rater gives an
    item a second, different label among the first :data:`MAX_ROW_PROBLEMS` problems is
    ``again()`` (the same pairs afresh) read up to the row of the first label, which the
    message names. Beyond :data:`MAX_ROW_PROBLEMS` problems the rest are counted in one.
    With ``item_keys`` (a table without a group column) a label is keyed by its item id
    alone, ``{rater: {item: label}}``, as an annotation matrix keys it.
    """
    ratings, distinct, problems, count = {}, {}, [], 0
    for number, row in numbered:
        cells = _row_cells(row, number, width, file, column)
        if cells is None:  # a blank line
            continue
        if isinstance(cells, tuple):
            item, rater, label, group = cells
            key = item if item_keys else (item, group)
            key = distinct.setdefault(key, key)
            label = distinct.setdefault(label, label)
            given = ratings.get(rater)
            if given is None:
                given = ratings[rater] = {}
            previous = given.setdefault(key, label)
            if previous == label:
                continue
            cells = (number, rater, (item, group), label, previous)  # a conflict, worded below
        count += 1
        if count <= MAX_ROW_PROBLEMS:
            problems.append(cells)
    conflicts = {(problem[2], problem[1]) for problem in problems if isinstance(problem, tuple)}
    first = _first_rows(again(), conflicts, width, file, column) if conflicts else {}
    problems = [
        problem if isinstance(problem, str) else _conflict_text(file, problem, first)
        for problem in problems
    ]
    if count > MAX_ROW_PROBLEMS:
        problems.append(
            f"{file}: rows: {count - MAX_ROW_PROBLEMS} more row problems like these "
            f"(got {count} in all)"
        )
    return ratings, problems


def _row_cells(row, number, width, file, column):
    """Return ``(item, rater, label, group)`` of a row, its problem text, or None (blank)."""
    if not "".join(row).strip():
        return None
    if len(row) != width:
        return f"{file}: row {number}: expected {width} cells (got {len(row)})"
    cells = {name: row[position].strip() for name, position in column.items()}
    empty = [name for name, value in cells.items() if not value]
    if empty:
        return f"{file}: row {number}: empty {', '.join(empty)} (got {got_text(','.join(row))})"
    return cells["item"], cells["rater"], cells["label"], cells.get("group")


def _first_rows(numbered, wanted, width, file, column):
    """Return ``{(key, rater): name of the first row giving it}`` for the pairs ``wanted``."""
    first = {}
    for number, row in numbered:
        cells = _row_cells(row, number, width, file, column)
        if isinstance(cells, tuple):
            item, rater, _, group = cells
            pair = ((item, group), rater)
            if pair in wanted and pair not in first:
                first[pair] = number
                if len(first) == len(wanted):
                    break
    return first


def _conflict_text(file, conflict, first):
    """Return the problem of a rater giving an item a second, different label."""
    number, rater, (item, group), label, previous = conflict
    where = f" in group {group!r}" if group is not None else ""
    return (
        f"{file}: row {number}: rater {rater!r} labels item {item!r}{where} again "
        f"with a different label (row {first[((item, group), rater)]} has {previous!r}) "
        f"(got {label!r})"
    )
