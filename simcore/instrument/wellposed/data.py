"""The judges' labels of ``simcore wellposed``: read from any input, humans ignored.

A matrix needs at least two humans and keeps only the items humans labelled, but the question
"is this criterion well posed?" is asked *before* any human labels it. So
:func:`load_judge_table` reads only the judges, through the one reader
(:func:`simcore.realdata.readers.read_annotations`, so labels, groups and every problem
message are its), with the judges standing in the rater columns:

* a folder: its ``llm_annotations.json`` (``.json.gz`` too); ``human_annotations.json`` is
  not read and need not exist;
* a JSON file: ``{judge: {item: label}}``;
* a long or wide CSV, or a long DataFrame: the judges' columns (``--judges``; default every
  rater in it), other raters ignored;
* an Inspect AI log or MLflow store: its judges (scorers, LLM_JUDGE feedback) on every item
  they labelled; its humans are not read.

The items are those at least one judge labelled; a judge's missing labels are ``-1``.
"""

from pathlib import Path
from typing import NamedTuple

import numpy as np

from simcore.realdata.annotation import unknown_names
from simcore.realdata.files import FileProblem, existing_variant, read_json
from simcore.realdata.loaders import JUDGE_FILE
from simcore.realdata.matrix import DataError, got_text


class JudgeTable(NamedTuple):
    """Judge labels on the items, as integer codes.

    Attributes
    ----------
    source : str
        The file read.
    judges : tuple of str
        The ``R`` judges, one column each.
    labels : tuple of str
        Label values in code order (numeric order when every label is a number).
    codes : numpy.ndarray
        int16 ``(n, R)`` codes into ``labels``, ``-1`` where the judge gave none.
    groups : numpy.ndarray
        int16 ``(n,)`` group code of each item.
    group_names : tuple of str
        Group names (``("all",)`` without groups).
    """

    source: str
    judges: tuple
    labels: tuple
    codes: np.ndarray
    groups: np.ndarray
    group_names: tuple


def _chosen(requested, available, file):
    """Return the judge names to use; raise DataError for unknown names or fewer than 2."""
    problems = []
    names = list(available) if requested is None else [str(name) for name in requested]
    problems = unknown_names(names, available, file, "judges", "judge", "raters in the file")
    if len(set(names)) != len(names):
        problems.append(f"{file}: judges: names must be distinct (got {got_text(names)})")
    if not problems and len(names) < 2:
        problems.append(
            f"{file}: judges: need at least 2 judges to measure their agreement "
            f"(got {got_text(names)})"
        )
    if problems:
        raise DataError(problems)
    return names


def _json_raters(file):
    """Return the rater names of a JSON ``{rater: {...}}`` file, None when unreadable."""
    try:
        raw = read_json(file)
    except FileProblem:
        return None
    return [str(name) for name in raw] if isinstance(raw, dict) else None


def _judge_file(path):
    """Return the file holding the judges of ``path`` (a folder's ``llm_annotations.json``)."""
    target = Path(path)
    if target.is_dir():
        file = existing_variant(target / JUDGE_FILE)
        if not file.is_file():
            raise DataError(
                [
                    f"{target}: {JUDGE_FILE}: the folder holds no judge file "
                    f"(got {got_text(str(file))})"
                ]
            )
        return file
    if not target.is_file():
        raise DataError(
            [
                f"{target}: path: must be a folder holding {JUDGE_FILE}, a CSV or a JSON file "
                f"(got {got_text(str(path))})"
            ]
        )
    return target


def load_judge_table(path, judges=None, group_separator=None, merge_label_variants=False):
    """Read the judges' labels of a folder, a JSON file or a long CSV file.

    Parameters
    ----------
    path : str or pathlib.Path
        See the module docstring.
    judges : list of str, optional
        Judges to keep, in column order. Default: every rater of the judge file (a CSV:
        every rater in the file).
    group_separator : str, optional
        JSON input: an item's group is the text after the last separator in its id. A CSV
        gives groups in its ``group`` column.
    merge_label_variants : bool
        Merge labels that differ only in case or surrounding spaces (otherwise refused;
        :func:`simcore.realdata.readers.read_annotations`).

    Returns
    -------
    JudgeTable

    Raises
    ------
    DataError
        Listing the problems: a missing path or judge file, an unreadable file, an unknown
        judge, fewer than 2 judges, a separator for CSV input, labels or groups the loaders
        refuse.
    """
    from simcore.realdata.readers import read_annotations, reader_for

    if reader_for(path).name in ("inspect", "mlflow"):
        return _harness_judges(path, judges, group_separator, merge_label_variants)
    if reader_for(path).name not in ("alttest", "json"):  # a long or wide table, a DataFrame
        if group_separator is not None:
            raise DataError(
                [
                    f"{path}: group_separator: only for JSON input; a table gives groups "
                    f"in its group column (got {got_text(group_separator)})"
                ]
            )
        matrix = read_annotations(path, merge_label_variants=merge_label_variants)
        return _table_judges(matrix, judges)
    file = _judge_file(path)
    available = _json_raters(file)
    if available is None:  # the reader reports why the file cannot be read
        read_annotations(file, group_separator=group_separator)
        raise DataError([f"{file}: must hold a mapping of judge to {{item: label}}"])
    names = _chosen(judges, available, file)
    matrix = read_annotations(
        file,
        humans=names,
        group_separator=group_separator,
        merge_label_variants=merge_label_variants,
    )
    return JudgeTable(
        source=str(file),
        judges=tuple(matrix.humans),
        labels=tuple(matrix.labels),
        codes=np.asarray(matrix.human_labels),
        groups=np.asarray(matrix.groups),
        group_names=tuple(matrix.group_names),
    )


def _harness_judges(path, judges, group_separator, merge_label_variants):
    """Return the :class:`JudgeTable` of an Inspect AI log's or MLflow store's judges.

    Every item a judge labelled, whether or not a human did; the humans are not read.
    """
    from simcore.realdata import long_table_matrix
    from simcore.realdata.harness import judge_table
    from simcore.realdata.label_spellings import settle_spellings

    if group_separator is not None:
        raise DataError(
            [
                f"{path}: group_separator: only for JSON input; an Inspect AI log's groups "
                f"are its tasks, an MLflow store's its assessment names "
                f"(got {got_text(group_separator)})"
            ]
        )
    ratings, has_group = judge_table(path)
    ratings = {name: ratings[name] for name in _chosen(judges, list(ratings), str(path))}
    matrix = long_table_matrix(ratings, has_group, str(path), [])
    return _table_judges(settle_spellings(matrix, merge_label_variants), judges)


def _table_judges(matrix, judges):
    """Return the :class:`JudgeTable` of the chosen raters of a table (every rater a human).

    Their columns, the items at least one of them labelled, and only the labels they use.
    """
    names = _chosen(judges, list(matrix.humans), matrix.source)
    columns = [matrix.humans.index(name) for name in names]
    codes = np.asarray(matrix.human_labels)[:, columns]
    rows = (codes >= 0).any(axis=1)
    codes = codes[rows]
    used = np.unique(codes[codes >= 0])
    recoded = np.full(codes.shape, -1, dtype=np.int16)
    recoded[codes >= 0] = np.searchsorted(used, codes[codes >= 0])
    groups = np.asarray(matrix.groups)[rows]
    present = np.unique(groups)
    return JudgeTable(
        source=matrix.source,
        judges=tuple(names),
        labels=tuple(matrix.labels[code] for code in used),
        codes=recoded,
        groups=np.searchsorted(present, groups).astype(np.int16),
        group_names=tuple(matrix.group_names[code] for code in present),
    )
