"""Loaders of the two input formats: the ``alttest`` JSON pair and the long CSV table.

:func:`load_alttest` reads a folder holding ``human_annotations.json`` and
``llm_annotations.json``; :func:`load_csv` reads a long ``item,rater,label[,group]`` table.
Both parse their files into ``{rater: {item: label text}}``, collect every problem, and hand
the raters to :func:`simcore.realdata.assembly._build`. The formats and the rules for items,
labels and the primary layer are described in :mod:`simcore.realdata.matrix`.
"""

import csv
import json
from pathlib import Path

from simcore.realdata.annotation import DataError, _got
from simcore.realdata.assembly import _build, _label_text, _names

HUMAN_FILE = "human_annotations.json"
"""File name of the human labels in an ``alttest`` folder."""

JUDGE_FILE = "llm_annotations.json"
"""File name of the judge labels in an ``alttest`` folder."""

CSV_COLUMNS = ("item", "rater", "label", "group")
"""Columns of the long CSV format; ``group`` is optional."""

MAX_ROW_PROBLEMS = 20
"""Row-level CSV problems reported one by one before they are summarised."""


# --------------------------------------------------------------------------- alttest


def _read_json_raters(path, kind, problems):
    """Read one JSON file of ``{rater: {item: label}}``; return it with labels as text."""
    if not path.is_file():
        problems.append(f"{path}: file not found (got {_got(str(path))})")
        return None
    try:
        with path.open(encoding="utf-8") as handle:
            raw = json.load(handle)
    except json.JSONDecodeError as error:
        problems.append(
            f"{path}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno} "
            f"(got {_got(error.doc[max(0, error.pos - 20) : error.pos + 20])})"
        )
        return None
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{path}: unreadable: {error} (got {_got(str(path))})")
        return None
    if not isinstance(raw, dict):
        problems.append(
            f"{path}: must hold a mapping of {kind} name to {{item: label}} "
            f"(got {type(raw).__name__})"
        )
        return None
    data = {}
    for rater, given in raw.items():
        if not isinstance(given, dict):
            problems.append(
                f"{path}: {rater}: must be a mapping of item id to label (got {_got(given)})"
            )
            continue
        texts = {}
        for item, value in given.items():
            text, problem = _label_text(value)
            if problem:
                problems.append(f"{path}: {rater}[{item!r}]: {problem} (got {_got(value)})")
            else:
                texts[item] = text
        data[rater] = texts
    return data


def _alttest_folder(path):
    """Return ``path`` as a folder; raise :class:`DataError` when it is not one."""
    folder = Path(path)
    if not folder.is_dir():
        raise DataError(
            [
                f"{folder}: path: must be a folder holding {HUMAN_FILE} and {JUDGE_FILE} "
                f"(got {_got(str(path))})"
            ]
        )
    return folder


def _read_alttest_raters(folder, problems):
    """Return ``(human_data, judge_data)`` read from an ``alttest`` folder's two files.

    Raises :class:`DataError` with ``problems`` when either file cannot be read as
    ``{rater: {item: label}}``.
    """
    human_data = _read_json_raters(folder / HUMAN_FILE, "human", problems)
    judge_data = _read_json_raters(folder / JUDGE_FILE, "judge", problems)
    if human_data is None or judge_data is None:
        raise DataError(problems)
    return human_data, judge_data


def load_alttest(path, humans=None, judges=None, labels=None, ordinal=False, group_separator=None):
    """Load a folder holding the alternative annotator test's JSON pair.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder holding ``human_annotations.json`` (``{human_id: {item_id: label}}``) and
        ``llm_annotations.json`` (``{judge_name: {item_id: label}}``).
    humans : list of str, optional
        Human ids in primary-layer order (the first is the primary); numbers are read as
        text. Default: every human in the file, ordered by the number of items labelled,
        most first, ties by id in string order, so the primary labels every item whenever
        some human does. Humans left out are ignored.
    judges : list of str, optional
        Judge names to keep. Default: every judge, in file order.
    labels : list, optional
        Declared label values, compared as text (``str(value)``); their order is the code
        order. Default: the sorted union of the labels that the chosen raters give on the
        matrix's items (numeric order when every label is a number, else string order).
    ordinal : bool, default False
        Whether the label order is meaningful.
    group_separator : str, optional
        When given (e.g. ``"__"``), an item's group is the text after the last separator in
        its id; every item id must contain it. Default: no groups.

    Returns
    -------
    AnnotationMatrix
        The items are those labelled by at least one chosen human (sorted by id); items that
        only judges labelled are dropped.

    Raises
    ------
    DataError
        Listing every problem: a missing folder or file, a file that is not JSON or not
        ``{rater: {item: label}}``, an unknown human or judge, a rater who is both, fewer
        than 2 humans, a judge who misses items the humans labelled, labels outside the
        declared ones, an item id without the group separator.
    """
    folder = _alttest_folder(path)
    problems = []
    human_data, judge_data = _read_alttest_raters(folder, problems)
    item_group = _separator_item_group(group_separator, folder, problems)
    return _build(
        folder,
        human_data,
        judge_data,
        humans,
        judges,
        labels,
        ordinal,
        item_group,
        _alttest_sources(folder, human_data, judge_data, group_separator),
        problems,
    )


def _alttest_sources(folder, human_data, judge_data, group_separator):
    """Return the ``sources`` of :func:`_build` for an ``alttest`` folder and its two files."""
    return {
        "humans": folder / HUMAN_FILE,
        "judges": folder / JUDGE_FILE,
        "labels": folder,
        "groups": (folder, "group_separator", group_separator),
        "known": {
            "humans": ("humans in the file", list(human_data)),
            "judges": ("judges in the file", list(judge_data)),
        },
    }


def _separator_item_group(group_separator, folder, problems):
    """Return ``item -> group`` for a group separator (None without one); note a bad one."""
    if group_separator is None:
        return None
    if not isinstance(group_separator, str) or not group_separator:
        problems.append(
            f"{folder}: group_separator: must be a non-empty string (got {_got(group_separator)})"
        )
        return None
    return _separator_group(group_separator)


def _separator_group(separator):
    """Return ``item -> group``: the text after the last ``separator`` (None without one)."""

    def group(item):
        head, found, tail = item.rpartition(separator)
        return tail if found else None

    return group


# --------------------------------------------------------------------------- csv


def load_csv(path, humans=None, judges=None, labels=None, ordinal=False):
    """Load a long CSV table ``item,rater,label`` with an optional ``group`` column.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV file (UTF-8, a header row first). Repeated (item, rater) rows are allowed
        when they carry the same label.
    humans : list of str
        The raters who are human, in primary-layer order (the first is the primary).
        Required.
    judges : list of str
        The raters who are judges. Required. Every rater in the file must be in exactly one
        of ``humans`` and ``judges``, and every listed rater must appear in the file.
    labels : list, optional
        Declared label values in code order, compared as text. Default: the sorted union of
        the labels given on the matrix's items (numeric order when every label is a number).
    ordinal : bool, default False
        Whether the label order is meaningful.

    Returns
    -------
    AnnotationMatrix
        The items are those labelled by at least one human (sorted by id). With a ``group``
        column, the group names are sorted and each item must have one group.

    Raises
    ------
    DataError
        Listing every problem: a missing or unreadable file, a bad header, empty cells,
        an (item, rater) pair given twice with different labels, a rater in neither list or
        in both, a listed rater absent from the file, fewer than 2 humans, a judge who misses
        items, labels outside the declared ones, an item given two groups.
    """
    file = Path(path)
    problems = []
    for key, value in (("humans", humans), ("judges", judges)):
        if value is None:
            problems.append(f"{file}: {key}: required for a CSV file (got null)")
    rows = _read_csv_file(file, path, problems)
    header = _csv_header(rows, file, problems)
    ratings, groups, row_problems = _read_rows(rows, header, file)
    problems += row_problems
    human_names, judge_names, human_data, judge_data = _csv_raters(
        ratings, humans, judges, file, problems
    )
    return _build(
        file,
        human_data,
        judge_data,
        human_names,
        judge_names,
        labels,
        ordinal,
        groups.get if "group" in header else None,
        _csv_sources(file, ratings),
        problems,
    )


def _read_csv_file(file, path, problems):
    """Return the rows of the CSV ``file``; raise :class:`DataError` when there are none."""
    if not file.is_file():
        problems.append(f"{file}: path: file not found (got {_got(str(path))})")
        raise DataError(problems)
    try:
        with file.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        problems.append(f"{file}: unreadable: {error} (got {_got(str(path))})")
        raise DataError(problems) from None
    if not rows:
        problems.append(f"{file}: header: the file is empty (got no rows)")
        raise DataError(problems)
    return rows


def _csv_header(rows, file, problems):
    """Return the stripped header; raise :class:`DataError` when it is not usable."""
    header = [column.strip() for column in rows[0]]
    for column in header:
        if column not in CSV_COLUMNS:
            problems.append(
                f"{file}: header: unknown column (valid: {', '.join(CSV_COLUMNS)}) "
                f"(got {_got(column)})"
            )
    for column in CSV_COLUMNS[:3]:
        if column not in header:
            problems.append(
                f"{file}: header: missing column {column!r} (got {_got(','.join(rows[0]))})"
            )
    repeated = sorted({column for column in header if header.count(column) > 1})
    if repeated:
        problems.append(f"{file}: header: repeated columns (got {_got(repeated)})")
    if problems and any(": header: " in problem for problem in problems):
        raise DataError(problems)
    return header


def _csv_raters(ratings, humans, judges, file, problems):
    """Return ``(human_names, judge_names, human_data, judge_data)`` of a CSV file's raters.

    Raises :class:`DataError` when ``humans`` or ``judges`` is missing or not a list of
    distinct names; notes every rater of the file that is in neither list.
    """
    human_names = _names(humans, "humans", file, problems) if humans is not None else None
    judge_names = _names(judges, "judges", file, problems) if judges is not None else None
    if human_names is None or judge_names is None:
        raise DataError(problems)
    listed = set(human_names) | set(judge_names)
    for rater in ratings:
        if rater not in listed:
            problems.append(
                f"{file}: rater: rater in neither humans nor judges (got {_got(rater)})"
            )
    human_data = {name: ratings[name] for name in ratings if name in human_names}
    judge_data = {name: ratings[name] for name in ratings if name in judge_names}
    for name in sorted(set(human_names) & set(judge_names)):
        human_data.setdefault(name, ratings.get(name, {}))
        judge_data.setdefault(name, ratings.get(name, {}))
    return human_names, judge_names, human_data, judge_data


def _csv_sources(file, ratings):
    """Return the ``sources`` of :func:`_build` for a CSV file: every problem names ``file``."""
    known = ("raters in the file", list(ratings))
    return {
        "humans": file,
        "judges": file,
        "labels": file,
        "groups": (file, "group", None),
        "known": {"humans": known, "judges": known},
    }


def _read_rows(rows, header, file):
    """Return ``({rater: {item: label}}, {item: group}, problems)`` from the CSV rows."""
    column = {name: position for position, name in enumerate(header)}
    ratings, first_row, groups, group_row = {}, {}, {}, {}
    problems = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            problems.append(f"{file}: row {number}: expected {len(header)} cells (got {len(row)})")
            continue
        cells = {name: row[position].strip() for name, position in column.items()}
        empty = [name for name, value in cells.items() if not value]
        if empty:
            problems.append(
                f"{file}: row {number}: empty {', '.join(empty)} (got {_got(','.join(row))})"
            )
            continue
        item, rater, label = cells["item"], cells["rater"], cells["label"]
        given = ratings.setdefault(rater, {})
        if item in given and given[item] != label:
            problems.append(
                f"{file}: row {number}: rater {rater!r} labels item {item!r} again with a "
                f"different label (row {first_row[(item, rater)]} has {given[item]!r}) "
                f"(got {label!r})"
            )
        elif item not in given:
            given[item] = label
            first_row[(item, rater)] = number
        if "group" in cells:
            group = cells["group"]
            if item in groups and groups[item] != group:
                problems.append(
                    f"{file}: row {number}: item {item!r} is in group {groups[item]!r} on row "
                    f"{group_row[item]} (got {group!r})"
                )
            elif item not in groups:
                groups[item] = group
                group_row[item] = number
    if len(problems) > MAX_ROW_PROBLEMS:
        more = len(problems) - MAX_ROW_PROBLEMS
        problems = problems[:MAX_ROW_PROBLEMS] + [
            f"{file}: rows: {more} more row problems like these (got {len(problems)} in all)"
        ]
    return ratings, groups, problems
