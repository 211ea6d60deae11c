"""Loaders of the input formats: the ``alttest`` JSON pair, the long CSV table, any path.

:func:`load_alttest` reads a folder holding ``human_annotations.json`` and (optionally)
``llm_annotations.json``; :func:`load_csv` reads a long ``item,rater,label[,group]`` table;
:func:`load_ratings` picks one of them (or a lone JSON file of humans) from the path. Every
file may be gzip-compressed (:mod:`simcore.realdata.files`), and the judges may come from a
separate file (``judges_path``: a long CSV or a JSON ``{judge: {item: label}}``). All parse
their files into ``{rater: {item: label text}}``, collect every problem, and hand the raters
to :func:`simcore.realdata.assembly._build`. Without judges the matrix is human-only. The
formats and the rules for items, labels and the primary layer are described in
:mod:`simcore.realdata.matrix`.
"""

from dataclasses import dataclass
from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.assembly import _build, _label_text, _names
from simcore.realdata.csv_table import (  # noqa: F401  (CSV_COLUMNS, MAX_ROW_PROBLEMS re-exported)
    CSV_COLUMNS,
    MAX_ROW_PROBLEMS,
    ItemKeys,
    read_csv_ratings,
    read_keyed_csv,
)
from simcore.realdata.files import (
    FileProblem,
    existing_variant,
    file_format,
    missing_path,
    read_json,
)

HUMAN_FILE = "human_annotations.json"
"""File name of the human labels in an ``alttest`` folder (``.json.gz`` also read)."""

JUDGE_FILE = "llm_annotations.json"
"""File name of the judge labels in an ``alttest`` folder (``.json.gz`` also read)."""


# --------------------------------------------------------------------------- JSON


def _read_json_raters(path, kind, problems):
    """Read one JSON file of ``{rater: {item: label}}``; return it with labels as text."""
    if not path.is_file():
        problems.append(missing_path(path, "path"))
        return None
    try:
        raw = read_json(path)
    except FileProblem as error:
        problems.append(f"{path}: {error}")
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
                f"{path}: {rater}: must be a mapping of item id to label (got {got_text(given)})"
            )
            continue
        texts = {}
        for item, value in given.items():
            text, problem = _label_text(value)
            if problem:
                problems.append(f"{path}: {rater}[{item!r}]: {problem} (got {got_text(value)})")
            else:
                texts[item] = text
        data[str(rater).strip()] = texts
    return data


def alttest_folder(path):
    """Return ``path`` as a folder; raise :class:`DataError` when it is not one."""
    folder = Path(path)
    if not folder.exists():
        raise DataError([missing_path(folder, "path")])
    if not folder.is_dir():
        raise DataError(
            [
                f"{folder}: path: must be a folder holding {HUMAN_FILE} and {JUDGE_FILE}, "
                f"or a CSV or JSON file (got {got_text(str(path))})"
            ]
        )
    return folder


def read_alttest_raters(folder, problems):
    """Return ``(human_data, judge_data)`` read from an ``alttest`` folder's two files.

    Either file may be gzip-compressed. Raises :class:`DataError` with ``problems`` when
    either cannot be read as ``{rater: {item: label}}``.
    """
    human_data = _read_json_raters(existing_variant(folder / HUMAN_FILE), "human", problems)
    judge_data = _read_json_raters(existing_variant(folder / JUDGE_FILE), "judge", problems)
    if human_data is None or judge_data is None:
        raise DataError(problems)
    return human_data, judge_data


def load_alttest(
    path,
    humans=None,
    judges=None,
    labels=None,
    ordinal=False,
    group_separator=None,
    judges_path=None,
):
    """Load a folder holding the alternative annotator test's JSON pair.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder holding ``human_annotations.json`` (``{human_id: {item_id: label}}``) and,
        optionally, ``llm_annotations.json`` (``{judge_name: {item_id: label}}``); either
        may be gzip-compressed and may then end in ``.json.gz``. Without the judge file
        (and without ``judges_path``) the matrix is human-only.
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
    judges_path : str or pathlib.Path, optional
        A file holding the judges instead of ``llm_annotations.json``: a long CSV
        ``item,rater,label`` or a JSON ``{judge: {item: label}}`` (see :func:`load_csv`).

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
    folder = alttest_folder(path)
    return _load_json_humans(
        folder,
        existing_variant(folder / HUMAN_FILE),
        existing_variant(folder / JUDGE_FILE),
        (humans, judges, labels, ordinal, group_separator, judges_path),
    )


def _load_json_humans(source, human_file, judge_file, options):
    """Load humans from a JSON file and judges from ``judges_path``, ``judge_file`` or none.

    ``options`` is ``(humans, judges, labels, ordinal, group_separator, judges_path)``;
    ``judge_file`` (None: no default judge file) is read when it exists or judges are named.
    """
    humans, judges, labels, ordinal, group_separator, judges_path = options
    problems = []
    human_data = _read_json_raters(human_file, "human", problems)
    keys = ItemKeys(composite=False)
    if judges_path is not None:
        judge_data, judge_file = _read_judges_file(judges_path, keys, source, problems)
    elif judge_file is not None and (judge_file.is_file() or judges is not None):
        judge_data = _read_json_raters(judge_file, "judge", problems)
    else:
        judge_data, judge_file = {}, human_file
    if human_data is None or judge_data is None:
        raise DataError(problems)
    item_group = _separator_item_group(group_separator, source, problems)
    sources = {
        "humans": human_file,
        "judges": judge_file,
        "labels": source,
        "groups": (source, "group_separator", group_separator),
        "known": {
            "humans": ("humans in the file", list(human_data)),
            "judges": ("judges in the file", list(judge_data)),
        },
    }
    return _build(
        source,
        human_data,
        judge_data,
        humans,
        judges,
        labels,
        ordinal,
        item_group,
        sources,
        problems,
    )


def _separator_item_group(group_separator, folder, problems):
    """Return ``item -> group`` for a group separator (None without one); note a bad one."""
    if group_separator is None:
        return None
    if not isinstance(group_separator, str) or not group_separator:
        problems.append(
            f"{folder}: group_separator: must be a non-empty string "
            f"(got {got_text(group_separator)})"
        )
        return None
    return _separator_group(group_separator)


def _separator_group(separator):
    """Return ``item -> group``: the text after the last ``separator`` (None without one)."""

    def group(item):
        head, found, tail = item.rpartition(separator)
        return tail if found else None

    return group


# --------------------------------------------------------------------------- judges file


@dataclass(frozen=True)
class ReadJudges:
    """A judges file another reader has read (an Inspect AI log, an MLflow store).

    ``ratings`` is ``{judge: {(item, group): label}}``, ``has_group`` whether its items carry
    groups, ``name`` the source named in messages. Given as ``judges_path``, it is keyed
    like a judges CSV.
    """

    ratings: dict
    has_group: bool
    name: str


def _read_judges_file(judges_path, keys, main, problems):
    """Return ``({judge: {matrix item id: label}}, file)`` read from a separate judges file.

    A CSV judges file is keyed like the main file (``keys``): when item ids repeat across
    groups in the main file, it needs a ``group`` column too. A JSON judges file maps judge
    to ``{matrix item id: label}``. Returns ``(None, file)`` after a problem.
    """
    if isinstance(judges_path, ReadJudges):
        read = judges_path
        return _keyed_judges(read.ratings, read.has_group, keys, main, read.name, problems)
    file = Path(judges_path).expanduser()
    if not file.is_file():
        problems.append(missing_path(file, "judges_path"))
        return None, file
    if file_format(file) == "json":
        return _read_json_raters(file, "judge", problems), file
    try:
        ratings, has_group = read_csv_ratings(file, problems)
    except DataError as error:  # its problems: those added to ``problems`` and the header's
        problems.extend(problem for problem in error.problems if problem not in problems)
        return None, file
    return _keyed_judges(ratings, has_group, keys, main, file, problems)


def _keyed_judges(ratings, has_group, keys, main, file, problems):
    """Return ``({judge: {matrix item id: label}}, file)`` of a judges file's ``ratings``."""
    if keys.composite and not has_group:
        problems.append(
            f"{file}: header: item ids repeat across groups in {main}, so the judges file "
            "needs a group column too (got no group column)"
        )
        return None, file
    if not keys.composite:
        return {
            rater: {item: label for (item, _), label in given.items()}
            for rater, given in ratings.items()
        }, file
    return keys.rekey(ratings), file


# --------------------------------------------------------------------------- csv


def load_csv(
    path, humans=None, judges=None, labels=None, ordinal=False, judges_path=None, columns=None
):
    """Load a long CSV table ``item,rater,label`` with an optional ``group`` column.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV file (UTF-8, a header row first), plain or gzip-compressed (detected by
        content). Repeated (item, rater) rows are allowed when they carry the same label.
        An item is the pair ``(item, group)``: the same item id in two groups is two
        items, whose matrix ids are then ``GROUP/ITEM`` (for every item of the file).
    humans : list of str, optional
        The raters who are human, in primary-layer order (the first is the primary).
        Default: every rater of the file who is not a judge, ordered by the number of items
        labelled, most first, ties by name. With ``judges_path``, humans left out of the
        list are ignored.
    judges : list of str, optional
        The raters who are judges. Default: none (a human-only matrix) or, with
        ``judges_path``, every rater of that file. Without ``judges_path``, every rater in
        the file must be in exactly one of ``humans`` and ``judges`` when ``humans`` is
        given, and every listed rater must appear in the file.
    labels : list, optional
        Declared label values in code order, compared as text. Default: the sorted union of
        the labels given on the matrix's items (numeric order when every label is a number).
    ordinal : bool, default False
        Whether the label order is meaningful.
    judges_path : str or pathlib.Path, optional
        A separate file of judge labels: a long CSV ``item,rater,label[,group]`` (plain or
        gzip) or a JSON ``{judge: {item: label}}``; then every rater of ``path`` is a human.
    columns : dict, optional
        ``{"item" | "rater" | "label" | "group": header name}``; columns not named are found
        under their standard names or aliases
        (:func:`simcore.realdata.csv_table.column_positions`).

    Returns
    -------
    AnnotationMatrix
        The items are those labelled by at least one human (sorted by id). With a ``group``
        column, the group names are sorted.

    Raises
    ------
    DataError
        Listing every problem: a missing or unreadable file, a bad header, empty cells,
        an (item, rater, group) given twice with different labels, a rater in neither list
        or in both, a listed rater absent from the file, fewer than 2 humans, a judge who
        misses items, labels outside the declared ones.
    """
    file = Path(path)
    problems = []
    unknown = sorted(set(columns or {}) - set(CSV_COLUMNS))
    if unknown:
        raise DataError(
            [
                f"{file}: columns: unknown key (valid: {', '.join(CSV_COLUMNS)}) "
                f"(got {got_text(unknown)})"
            ]
        )
    ratings, keys, has_group = read_keyed_csv(file, problems, columns)
    options = (humans, judges, labels, ordinal, judges_path)
    return keyed_table_matrix(ratings, keys, has_group, file, problems, options)


def long_table_matrix(  # noqa: PLR0913 (a value object is still to come)
    keyed,
    has_group,
    file,
    problems,
    humans=None,
    judges=None,
    labels=None,
    ordinal=False,
    judges_path=None,
):
    """Return the :class:`AnnotationMatrix` of a long table's rows, read and keyed.

    ``keyed`` is ``{rater: {(item, group): label text}}`` (``group`` None without a group
    column, :func:`simcore.realdata.csv_table.read_csv_ratings`), ``file`` the source
    named in messages (a CSV file, or a description of a table in memory), ``problems``
    those found so far; the other parameters are :func:`load_csv`'s. Shared by the CSV
    loader, the wide CSV and the DataFrame readers (through :func:`keyed_table_matrix`), so
    a table gives the same matrix whether it comes from a file or a DataFrame. ``keyed``
    itself is left as it is.
    """
    options = (humans, judges, labels, ordinal, judges_path)
    return owned_table_matrix(dict(keyed), has_group, file, problems, options)


def owned_table_matrix(keyed, has_group, file, problems, options):
    """Return :func:`long_table_matrix`'s matrix of ``keyed``, emptying ``keyed`` on the way.

    For a reader done with the table it read: each rater's labels are dropped once rekeyed
    (:meth:`~simcore.realdata.csv_table.ItemKeys.take`), so the table and its rekeyed copy
    are never both whole in memory. ``options`` is the tuple ``(humans, judges, labels,
    ordinal, judges_path)`` of :func:`long_table_matrix`'s parameters.
    """
    keys = ItemKeys.of(keyed)
    return keyed_table_matrix(keys.take(keyed), keys, has_group, file, problems, options)


def keyed_table_matrix(ratings, keys, has_group, file, problems, options):
    """Return the matrix of ``{rater: {matrix item id: label}}`` keyed by ``keys``.

    The rest of :func:`owned_table_matrix` once its table is rekeyed; ``options`` as there.
    """
    humans, judges, labels, ordinal, judges_path = options
    if judges_path is not None:
        judge_data, judge_file = _read_judges_file(judges_path, keys, file, problems)
        if judge_data is None:
            raise DataError(problems)
        human_data, human_names = ratings, humans
        known = {"humans": ratings, "judges": judge_data}
    else:
        judge_file = file
        human_names, judges, human_data, judge_data = _csv_raters(
            ratings, humans, judges, file, problems
        )
        known = {"humans": ratings, "judges": ratings}
    sources = {
        "humans": file,
        "judges": judge_file,
        "labels": file,
        "groups": (file, "group", None),
        "known": {
            "humans": ("raters in the file", list(known["humans"])),
            "judges": (
                ("raters in the file", list(known["judges"]))
                if judge_file == file
                else (
                    f"raters in {judge_file}",
                    list(known["judges"]),
                    f"`simcore inspect {file} --judges-file {judge_file} --json` lists",
                )
            ),
        },
        "item_text": keys.text,
    }
    return _build(
        file,
        human_data,
        judge_data,
        human_names,
        judges,
        labels,
        ordinal,
        keys.groups.get if has_group else None,
        sources,
        problems,
        item_ids=keys.ids,
    )


def _csv_raters(ratings, humans, judges, file, problems):
    """Return ``(human_names, judge_names, human_data, judge_data)`` of a CSV file's raters.

    ``judges`` None means no judge; ``humans`` None means every rater who is not a judge,
    most labels first, ties by name. Raises :class:`DataError` when either is not a list of
    distinct names; notes every rater of the file that is in neither list.
    """
    human_names = _names(humans, "humans", file, problems) if humans is not None else []
    judge_names = _names(judges, "judges", file, problems) if judges is not None else []
    if human_names is None or judge_names is None:
        raise DataError(problems)
    if humans is None:
        others = [name for name in ratings if name not in judge_names]
        human_names = sorted(others, key=lambda name: (-len(ratings[name]), name))
    listed = set(human_names) | set(judge_names)
    for rater in ratings:
        if rater not in listed:
            problems.append(
                f"{file}: rater: rater in neither humans nor judges (got {got_text(rater)})"
            )
    human_data = {name: ratings[name] for name in ratings if name in human_names}
    judge_data = {name: ratings[name] for name in ratings if name in judge_names}
    for name in sorted(set(human_names) & set(judge_names)):
        human_data.setdefault(name, ratings.get(name, {}))
        judge_data.setdefault(name, ratings.get(name, {}))
    return human_names, judge_names, human_data, judge_data


# --------------------------------------------------------------------------- any path


def load_ratings(
    path,
    humans=None,
    judges=None,
    labels=None,
    ordinal=False,
    group_separator=None,
    judges_path=None,
    columns=None,
):
    """Load an annotation matrix from a folder or a file, the format read from the path.

    A folder is an ``alttest`` folder (:func:`load_alttest`); a file is a long CSV table
    (:func:`load_csv`) when it ends ``.csv`` or ``.csv.gz`` or its (decompressed) content
    does not start with ``{``, else a JSON file of humans ``{human: {item: label}}`` whose
    judges, if any, come from ``judges_path``. Gzip is detected by content. The parameters
    are those of :func:`load_alttest`; ``group_separator`` applies to JSON input only.
    ``columns`` (a CSV file only) names the CSV's columns, as :func:`load_csv` takes it.

    Returns
    -------
    AnnotationMatrix

    Raises
    ------
    DataError
        A missing path, a group separator given for a CSV file, or any problem the chosen
        loader reports.
    """
    target = Path(path)
    if columns and (target.is_dir() or (target.is_file() and file_format(target) == "json")):
        raise DataError(
            [f"{target}: {next(iter(columns))} column: only for CSV input (got {columns})"]
        )
    if target.is_dir():
        return load_alttest(target, humans, judges, labels, ordinal, group_separator, judges_path)
    if not target.is_file():
        alttest_folder(target)  # raises: neither a folder nor a file
    if file_format(target) == "json":
        options = (humans, judges, labels, ordinal, group_separator, judges_path)
        return _load_json_humans(target, target, None, options)
    if group_separator is not None:
        raise DataError(
            [
                f"{target}: group_separator: only for JSON input; a CSV file gives groups "
                f"in its group column (got {got_text(group_separator)})"
            ]
        )
    return load_csv(target, humans, judges, labels, ordinal, judges_path, columns)
