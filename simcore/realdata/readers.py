"""The one reader: every input format declares whether it can open an input and how to read it.

Every command and function that reads annotations (``inspect``, real-data scenarios,
``advise``, ``calibrate``, ``card``, ``card --check``, ``ceiling``, ``wellposed``) calls
:func:`read_annotations`, which asks each :class:`Reader` of :data:`READERS` in turn whether
it can open the input (as xarray's backends are asked, ``guess_can_open``) and reads it with
the first that can. All return the same :class:`~simcore.realdata.annotation.AnnotationMatrix`
with its roles explicit: ``humans`` (primary first), ``judges`` and ``group_names``.

The formats:

========== ================================================================= =============
name       input                                                             roles
========== ================================================================= =============
inspect    an Inspect AI eval log (``.eval``, ``.json``) or a folder of them  declared
mlflow     an MLflow tracking store (``sqlite:///FILE``, a ``.db``, mlruns)   declared
dataframe  a pandas DataFrame ``item, rater, label[, group]`` (crowd-kit's)    given
alttest    a folder with ``human_annotations.json`` / ``llm_annotations.json`` declared
json       a JSON (or .json.gz) file of humans ``{human: {item: label}}``     declared
csv        a long CSV (or gzip) ``item,rater,label[,group]``, aliases read    given
wide       a wide CSV ``item[,group],RATER,RATER,...``, one label per cell    given
========== ================================================================= =============

A long table's columns are found by name, then by alias (``score`` for the label,
``criterion`` for the group, ...), or as ``columns`` names them; any other column is
refused unless the item, rater and label columns are all named. Names and labels are
stripped of surrounding spaces in every format. A format whose roles are "given" does not
say which raters are judges: without ``judges`` (or ``humans``) every rater is a human, and
a caller that needs a judge passes ``require_roles`` so such input is refused, naming the
raters, instead of guessed.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcore.realdata.annotation import AnnotationMatrix, DataError, got_text, unknown_names
from simcore.realdata.files import (
    READ_ERRORS,
    FileProblem,
    file_format,
    missing_path,
    open_text,
    read_json,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "READERS",
    "Reader",
    "is_frame",
    "roles_note",
    "name_list",
    "production_frame_problem",
    "read_annotations",
    "read_judge_labels",
    "reader_for",
]


@dataclass(frozen=True)
class Reader:
    """One input format: whether it can open an input, and how to read it.

    Attributes
    ----------
    name : str
        The format's name (a scenario's ``data.format``).
    description : str
        What the input looks like, for messages and the docs.
    declares_roles : bool
        Whether the input itself says which raters are humans and which judges.
    can_open : callable
        ``can_open(source, columns) -> bool`` (``columns``: the long table's named columns).
    read : callable
        ``read(source, **keywords) -> AnnotationMatrix``.
    """

    name: str
    description: str
    declares_roles: bool
    can_open: Any
    read: Any


def is_frame(source, columns=None):
    """Whether ``source`` is a pandas DataFrame (pandas is not imported to find out)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(source, pandas.DataFrame)


def production_frame_problem(frame):
    """Return why the DataFrame ``frame`` is not a judge's production table (a line), or None.

    A production table has the columns ``rater`` and ``label``, one row per item the judge
    labelled.
    """
    missing = [column for column in ("rater", "label") if column not in frame.columns]
    if not missing:
        return None
    got = got_text([str(name) for name in frame.columns])
    return (
        "production: a DataFrame needs the columns rater and label, one row per item the "
        f"judge labelled (missing {', '.join(missing)}) (got columns {got})"
    )


def _is_path(source):
    return isinstance(source, str | Path)


def _first_line(path):
    """Return the first line of a (possibly gzip) text file, "" when unreadable."""
    try:
        with open_text(path) as handle:
            return handle.readline()
    except (*READ_ERRORS, ValueError):
        return ""


def _header(path):
    import csv

    line = _first_line(path).lstrip("\ufeff")
    return [name.strip() for name in next(csv.reader([line]), [])]


def _is_csv_file(source, columns=None):
    return _is_path(source) and Path(source).is_file() and file_format(Path(source)) == "csv"


def _is_wide(source, columns=None):
    """Tell a wide CSV: a header with an item column but no rater or label column."""
    from simcore.realdata.csv_table import COLUMN_ALIASES

    if columns or not _is_csv_file(source):
        return False
    header = set(_header(source))
    long_names = set(COLUMN_ALIASES["rater"]) | set(COLUMN_ALIASES["label"])
    return bool(header & set(COLUMN_ALIASES["item"])) and not header & long_names


def _read_frame(source, humans=None, judges=None, judges_file=None, ordinal=False, **rest):
    from simcore.realdata.dataframe import frame_matrix

    _only_for("group_separator", rest, "JSON input; a DataFrame gives groups in a group column")
    return frame_matrix(
        source,
        humans=humans,
        judges=judges,
        ordinal=ordinal,
        judges_path=judges_file,
        labels=rest.get("labels"),
        columns=rest.get("columns"),
    )


def _only_for(key, given, where):
    if given.get(key) is not None:
        raise DataError([f"{key}: only for {where} (got {got_text(given[key])})"])


def _read_path(source, humans=None, judges=None, judges_file=None, ordinal=False, **rest):
    from simcore.realdata.loaders import load_ratings

    return load_ratings(
        Path(source),
        humans=humans,
        judges=judges,
        labels=rest.get("labels"),
        ordinal=ordinal,
        group_separator=rest.get("group_separator"),
        judges_path=judges_file,
        columns=rest.get("columns"),
    )


def _read_wide(source, humans=None, judges=None, judges_file=None, ordinal=False, **rest):
    from simcore.realdata.wide import load_wide_csv

    _only_for("group_separator", rest, "JSON input; a wide CSV gives groups in a group column")
    return load_wide_csv(
        Path(source),
        humans=humans,
        judges=judges,
        labels=rest.get("labels"),
        ordinal=ordinal,
        judges_path=judges_file,
    )


def _harness_reader(harness):
    """Return the :class:`Reader` of one evaluation harness (roles from the source)."""

    def read(source, humans=None, judges=None, judges_file=None, ordinal=False, **rest):
        from simcore.realdata.harness.source import harness_matrix

        _only_for("group_separator", rest, "JSON input")
        _only_for("columns", rest, "a long table")
        table = harness.read_labels(source)
        return harness_matrix(table, humans, judges, rest.get("labels"), ordinal, judges_file)

    return Reader(harness.name, harness.description, True, harness.can_open, read)


def _harness_readers():
    from simcore.realdata.harness.source import HARNESSES

    return tuple(_harness_reader(harness) for harness in HARNESSES)


READERS = (
    *_harness_readers(),
    Reader(
        "dataframe", "a pandas DataFrame item, rater, label[, group]", False, is_frame, _read_frame
    ),
    Reader(
        "alttest",
        "a folder holding human_annotations.json and llm_annotations.json",
        True,
        lambda source, columns: _is_path(source) and Path(source).is_dir(),
        _read_path,
    ),
    Reader(
        "json",
        "a JSON file of humans {human: {item: label}}",
        True,
        lambda source, columns: (
            _is_path(source) and Path(source).is_file() and file_format(Path(source)) == "json"
        ),
        _read_path,
    ),
    Reader(
        "wide",
        "a wide CSV item[,group],RATER,... with one label per cell",
        False,
        _is_wide,
        _read_wide,
    ),
    Reader(
        "csv",
        "a long CSV item,rater,label[,group] (plain or gzip)",
        False,
        _is_csv_file,
        _read_path,
    ),
)
"""The formats, asked in this order (a wide CSV is told apart from a long one by its header)."""


def reader_for(source, columns=None):
    """Return the first :class:`Reader` that can open ``source``.

    Raises
    ------
    DataError
        When none can open a path (it does not exist).
    TypeError
        For something that is neither a path nor a DataFrame.
    """
    for reader in READERS:
        if reader.can_open(source, columns):
            return reader
    if isinstance(source, str) and "://" in source:
        raise DataError(
            [
                f"{source}: data: no MLflow store at this URI (sqlite:///PATH names an MLflow "
                f"SQLite file that exists, file:///PATH an mlruns folder) (got {source!r})"
            ]
        )
    if _is_path(source):
        from simcore.realdata.loaders import alttest_folder

        alttest_folder(source)  # raises: neither a folder nor a file
    raise TypeError(f"data: a path or a pandas DataFrame (got {type(source).__name__})")


def read_annotations(  # noqa: PLR0913 (every option is a keyword)
    source: str | Path | pd.DataFrame,
    *,
    humans: Sequence[str] | None = None,
    judges: Sequence[str] | None = None,
    judges_file: str | Path | None = None,
    group_separator: str | None = None,
    columns: Mapping[str, str] | None = None,
    labels: Sequence[Any] | None = None,
    ordinal: bool = False,
    require_roles: bool = False,
    slots: bool = False,
    label_order: Sequence[str] | str | None = None,
    merge_label_variants: bool = False,
) -> AnnotationMatrix:
    """Read an annotation matrix from any supported input, its roles explicit.

    Parameters
    ----------
    source : str, pathlib.Path or pandas.DataFrame
        An ``alttest`` folder, a JSON file of humans, a long or wide CSV (plain or gzip), or
        a long DataFrame (the formats of this module's table).
    humans, judges : list of str, optional
        Which raters are humans (primary first) and which are judges; names are stripped.
    judges_file : str or pathlib.Path, optional
        A separate file of judge labels (long CSV or JSON ``{judge: {item: label}}``).
    group_separator : str, optional
        JSON input: an item's group is the text after the last separator in its id.
    columns : dict, optional
        A long table's ``{"item" | "rater" | "label" | "group": column name}``.
    labels : list, optional
        Declared label values in code order.
    ordinal : bool
        Whether the label order is meaningful.
    require_roles : bool
        Refuse input whose format does not declare roles when neither ``humans``,
        ``judges`` nor ``judges_file`` says them (the message names the raters).
    slots : bool
        The human columns are label positions, not people (``--slots``): the matrix's
        shape is then ``slots`` (:mod:`~simcore.realdata.data_shape`).
    label_order : list or str, optional
        The labels in their order, lowest first (``--label-order``; a comma-separated text
        is split): ``labels`` declared ordinal in one keyword, for a rating scale of text
        labels. Every label read must be one of them.
    merge_label_variants : bool
        Labels read (not declared) that differ only in case or surrounding spaces
        (``'Yes'``, ``'yes'``) are refused unless this merges each group into its most
        frequent spelling, ties to the first in sorted order; the matrix's
        ``label_merges`` records each merge (:mod:`~simcore.realdata.label_spellings`).

    Returns
    -------
    AnnotationMatrix

    Raises
    ------
    DataError
        Every problem, each naming the file (or ``DataFrame``), the key and the value.
    """
    _check_keywords(judges_file, group_separator, columns, labels)
    if label_order is not None:
        if labels is not None:
            raise DataError(
                [f"{source}: label_order: declares the labels; give it or labels, not both"]
            )
        labels, ordinal = name_list(label_order, "label_order"), True
    reader = reader_for(source, columns)
    judges_file = _read_harness_judges(judges_file)
    keywords = {
        "humans": name_list(humans, "humans"),
        "judges": name_list(judges, "judges"),
        "judges_file": judges_file,
        "group_separator": group_separator,
        "columns": columns,
        "labels": labels,
        "ordinal": ordinal,
    }
    matrix = reader.read(source, **keywords)
    roles_given = any(keywords[key] is not None for key in ("humans", "judges", "judges_file"))
    if require_roles and not reader.declares_roles and not roles_given:
        name = "DataFrame" if reader.name == "dataframe" else str(source)
        raise DataError(
            [
                f"{name}: judges: {reader.description} does not say which raters are judges; "
                f"name them with --judges (Python: judges=[...]) or the humans with --humans "
                f"(got raters {got_text(list(matrix.humans))})"
            ]
        )
    if slots not in (None, False):
        if not isinstance(slots, bool):
            name = "DataFrame" if reader.name == "dataframe" else str(source)
            raise DataError([f"{name}: slots: must be true or false (got {got_text(slots)})"])
        matrix = dataclasses.replace(matrix, slots=True) if slots else matrix
    if not isinstance(merge_label_variants, bool):
        name = "DataFrame" if reader.name == "dataframe" else str(source)
        raise DataError(
            [
                f"{name}: merge_label_variants: must be true or false "
                f"(got {got_text(merge_label_variants)})"
            ]
        )
    if labels is None:
        from simcore.realdata.label_spellings import settle_spellings

        matrix = settle_spellings(matrix, merge_label_variants)
    return matrix


def _read_harness_judges(judges_file):
    """Return ``judges_file``, read already when it is an Inspect AI log or MLflow store."""
    from simcore.realdata.harness.source import harness_for, judge_table
    from simcore.realdata.loaders import ReadJudges

    if judges_file is None or harness_for(judges_file) is None:
        return judges_file
    ratings, has_group = judge_table(judges_file)
    return ReadJudges(ratings, has_group, str(judges_file))


def name_list(names, keyword="names"):
    """Return a list of rater names stripped of spaces; a comma-separated text is split.

    ``None`` or an empty text is no list (None), so ``--judges ""`` means no judges given.
    A name is a text or an integer (a rater id read from a DataFrame); NumPy scalars are
    taken as the Python values they hold.

    Raises
    ------
    TypeError
        ``names`` neither None, a text nor a list or tuple of names (naming ``keyword``).
    """
    from simcore.options import plain_number, shown_value

    if names is None or isinstance(names, str) and not names.strip():
        return None
    if isinstance(names, str):
        names = names.split(",")
    if not isinstance(names, list | tuple) or not all(
        isinstance(plain_number(name), str | int) and not isinstance(plain_number(name), bool)
        for name in names
    ):
        raise TypeError(
            f"{keyword}: must be a list of names (texts) or one comma-separated text "
            f"(got {shown_value(names)})"
        )
    names = [plain_number(name) for name in names]
    return [name.strip() if isinstance(name, str) else name for name in names]


def _check_keywords(judges_file, group_separator, columns, labels):
    """Refuse a reader keyword of the wrong type before reading, naming it (TypeError)."""
    import os

    from simcore.options import shown_value

    problem = None
    if judges_file is not None and not isinstance(judges_file, str | os.PathLike):
        problem = "judges_file", "a path (str or pathlib.Path)", judges_file
    elif group_separator is not None and not isinstance(group_separator, str):
        problem = "group_separator", "a text", group_separator
    elif columns is not None and not (
        isinstance(columns, dict) and all(isinstance(v, str) for v in columns.values())
    ):
        problem = "columns", "a mapping of role to column name, as {'item': 'id'}", columns
    elif labels is not None and (isinstance(labels, str) or not isinstance(labels, list | tuple)):
        problem = "labels", "a list of labels", labels
    if problem:
        name, expected, value = problem
        raise TypeError(f"{name}: must be {expected} (got {shown_value(value)})")


def read_judge_labels(source, judge):
    """Return one judge's labels (texts, stripped) from a production file, one per item.

    ``source`` is a long CSV (the rows whose rater is ``judge``), a JSON
    ``{judge: {item: label}}``, an alttest folder (its judge file), a long DataFrame, or an
    Inspect AI log or MLflow store (the judge's labels on every item it holds).
    Raises :class:`DataError` naming the file when ``judge`` is not in it or it gives no label.
    """
    from simcore.realdata.csv_table import read_csv_ratings
    from simcore.realdata.files import existing_variant
    from simcore.realdata.harness.source import harness_for, judge_production
    from simcore.realdata.loaders import JUDGE_FILE

    problems = []
    if not is_frame(source) and harness_for(source) is not None:
        return judge_production(source, judge)
    if is_frame(source):
        frame = source
        problem = production_frame_problem(frame)
        if problem:
            raise DataError([problem])
        raters = {}
        for rater, label in zip(frame["rater"].astype(str), frame["label"], strict=True):
            raters.setdefault(rater.strip(), []).append(str(label).strip())
        name, labels_of = "DataFrame", raters
    else:
        path = Path(source)
        if path.is_dir():
            path = existing_variant(path / JUDGE_FILE)
        if not path.is_file():
            raise DataError([missing_path(path, "production")])
        name = str(path)
        if file_format(path) == "json":
            try:
                raw = read_json(path)
            except FileProblem as error:
                raise DataError([f"{path}: {error}"]) from None
            if not isinstance(raw, dict):
                raise DataError(
                    [
                        f"{path}: must hold a mapping {{judge: {{item: label}}}} "
                        f"(got {got_text(raw)})"
                    ]
                )
            labels_of = {
                str(rater).strip(): [str(label).strip() for label in given.values()]
                for rater, given in raw.items()
                if isinstance(given, dict)
            }
        else:
            ratings, _ = read_csv_ratings(path, problems)
            if problems:
                raise DataError(problems)
            labels_of = {rater: list(given.values()) for rater, given in ratings.items()}
    problems = unknown_names([judge], sorted(labels_of), name, "judge", "judge", "raters")
    if problems or not labels_of[judge]:
        raise DataError(
            problems or [f"{name}: judge: no labels of this judge (got {got_text(judge)})"]
        )
    return labels_of[judge]


def roles_note(data, roles):
    """Return the line saying how the roles were read, or "" where the files name them.

    A long or wide table or a DataFrame does not say which raters are judges; read without
    ``judges``, ``humans`` or ``judges_file`` its raters are all humans, and the output says so.
    An Inspect AI log or MLflow store records the roles, and the line says how they were read
    (which of its records are a judge's labels and which a human's).
    """
    from simcore.realdata.harness.source import harness_for

    harness = None if is_frame(data) else harness_for(data, roles.get("columns"))
    if harness is not None:
        return harness.roles_text
    given = any(roles.get(key) for key in ("humans", "judges", "judges_file"))
    if given or reader_for(data, roles.get("columns")).declares_roles:
        return ""
    return (
        "roles: the input does not say which raters are judges, so every rater is read as a "
        "human (name the judges with --judges)"
    )
