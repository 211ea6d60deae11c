"""The ``data`` block of a real-data scenario: its keys, their checks, and the one reader.

:func:`load_data` checks every key of the block, reports all problems together as
``data.KEY: what is wrong (got VALUE)``, resolves the paths and reads the data with the one
reader, :func:`~simcore.realdata.readers.read_annotations` (a ``format``, when given, must
be the one the reader finds at the path). A real-data scenario runs the rule, so by default
the matrix must have a judge.
"""

from pathlib import Path

from simcore.options import did_you_mean
from simcore.realdata.annotation import DataError, got_text, require_judges
from simcore.realdata.assembly import _declared_labels, _names
from simcore.realdata.readers import read_annotations, reader_for

FORMATS = ("alttest", "json", "csv", "wide", "inspect", "mlflow")
"""Values of the ``format`` key of a scenario's ``data`` block."""

SCALES = ("nominal", "ordinal")
"""Values of the ``scale`` key of a scenario's ``data`` block."""

DATA_KEY_MEANINGS = {
    "format": (
        None,
        "alttest, json, csv, wide, inspect (an Inspect AI log or folder) or mlflow (an "
        "mlflow.db file or mlruns folder); null: as the reader finds it at the path",
    ),
    "path": (
        None,
        "required: the matrix (a folder for alttest, a file otherwise; plain or gzip), "
        "relative to the scenario file",
    ),
    "judges_path": (None, "judge labels in a separate file (long CSV or JSON)"),
    "humans": (None, "human ids, primary first (default: every rater not a judge)"),
    "judges": (None, "judge names (a CSV does not say which raters are judges)"),
    "labels": (None, "the label values in order (default: as read)"),
    "scale": ("nominal", "nominal or ordinal (ordered labels)"),
    "group_separator": (None, "JSON input: an item's group is the text after the last separator"),
    "slots": (False, "the human columns are label positions, not people"),
    "merge_label_variants": (
        False,
        "merge labels that differ only in case or surrounding spaces into their most "
        "frequent spelling (without it such labels are refused)",
    ),
}
"""Keys of a scenario's ``data`` block: ``key -> (default, meaning)``."""

DATA_KEYS = tuple(DATA_KEY_MEANINGS)
"""Valid keys of a scenario's ``data`` block."""


def load_data(block, base=None, need_judges=True):
    """Load the matrix that a scenario's ``data`` block names.

    Parameters
    ----------
    block : dict
        The ``data`` mapping with the keys ``format`` (``alttest``, ``csv``, or absent:
        read from the path, a folder being ``alttest``), ``path`` (required; a folder for
        ``alttest``, a file for ``csv``, plain or gzip), ``judges_path`` (a separate file of
        judge labels, CSV or JSON), ``humans`` (primary first), ``judges``, ``labels``
        (declared label values in order), ``scale`` (``nominal``, the default, or
        ``ordinal``) and ``group_separator`` (JSON input only).
    base : str or pathlib.Path, optional
        Folder that a relative ``path`` or ``judges_path`` is resolved against (the
        scenario file's folder). Default: the current directory.
    need_judges : bool, default True
        Whether a human-only matrix is refused (the rule needs a judge).

    Returns
    -------
    AnnotationMatrix
        As :func:`load_alttest`, :func:`load_csv` or :func:`load_ratings` return it.

    Raises
    ------
    DataError
        Listing every problem in the block as ``data.KEY: what is wrong (got VALUE)``
        (the caller may prefix the scenario file), or, once the block is valid, every problem
        in the data as the loaders report them, or a matrix without judges when
        ``need_judges``.
    """
    kind, path, names, labels, scale, separator = _checked_block(block)
    target, judges_path = (_resolved(value, base) for value in (path, block.get("judges_path")))
    ordinal = scale == "ordinal"
    humans, judges = names["humans"], names["judges"]
    reader = reader_for(target)
    if kind is not None and reader.name != kind:
        raise DataError(
            [f"data.format: the path holds {reader.description} (got {got_text(kind)})"]
        )
    matrix = read_annotations(
        target,
        humans=humans,
        judges=judges,
        judges_file=judges_path,
        group_separator=separator,
        labels=labels,
        ordinal=ordinal,
        slots=_given(block, "slots"),
        merge_label_variants=_given(block, "merge_label_variants"),
    )
    if need_judges:
        require_judges(matrix, "a real-data scenario")
    return matrix


def _resolved(path, base):
    """Return ``path`` (None stays None) resolved against ``base`` when relative."""
    if path is None:
        return None
    target = Path(path).expanduser()
    if not target.is_absolute() and base is not None:
        target = Path(base) / target
    return target


def _checked_block(block):
    """Return ``(format, path, names, labels, scale, group_separator)`` of a valid block.

    ``names`` maps ``"humans"`` and ``"judges"`` to their lists of names (None when not
    given). Raises :class:`DataError` listing every problem of the block.
    """
    if not isinstance(block, dict):
        raise DataError(
            [f"data: must be a mapping with keys {', '.join(DATA_KEYS)} (got {got_text(block)})"]
        )
    problems = []
    for key in block:
        if key not in DATA_KEYS:
            problems.append(
                f"data.{key}: unknown key{did_you_mean(key, DATA_KEYS)} (valid keys: "
                f"{', '.join(DATA_KEYS)}) (got {got_text(key)})"
            )
    kind = block.get("format")
    if kind is not None and kind not in FORMATS:
        problems.append(f"data.format: must be one of {', '.join(FORMATS)} (got {got_text(kind)})")
    path = block.get("path")
    if not isinstance(path, str) or not path.strip():
        problems.append(
            f"data.path: must be given, the path of the data (a folder or a CSV file) "
            f"(got {got_text(path)})"
        )
    judges_path = block.get("judges_path")
    if judges_path is not None and (not isinstance(judges_path, str) or not judges_path.strip()):
        problems.append(
            f"data.judges_path: must be the path of a CSV or JSON file of judge labels "
            f"(got {got_text(judges_path)})"
        )
    names = {key: _block_names(block, key, problems) for key in ("humans", "judges")}
    labels = block.get("labels")
    if labels is not None and _declared_labels(labels, "data", []) is None:
        problems.append(
            f"data.labels: must be a list of distinct label values (got {got_text(labels)})"
        )
    scale = _given(block, "scale")
    if scale not in SCALES:
        problems.append(f"data.scale: must be one of {', '.join(SCALES)} (got {got_text(scale)})")
    separator = block.get("group_separator")
    _check_separator(separator, kind, problems)
    if not isinstance(_given(block, "slots"), bool):
        problems.append(
            "data.slots: must be true (the human columns are label positions, not people) "
            f"or false (got {got_text(block.get('slots'))})"
        )
    if not isinstance(_given(block, "merge_label_variants"), bool):
        problems.append(
            "data.merge_label_variants: must be true or false "
            f"(got {got_text(block.get('merge_label_variants'))})"
        )
    if problems:
        raise DataError(problems)
    return kind, path, names, labels, scale, separator


def _given(block, key):
    """Return the block's ``key``, or its declared default (:data:`DATA_KEY_MEANINGS`)."""
    return block.get(key, DATA_KEY_MEANINGS[key][0])


def _block_names(block, key, problems):
    """Return the rater names under ``key`` (None when not given); note a bad value."""
    value = block.get(key)
    if value is None:
        return None
    names = _names(value, f"data.{key}", "data", [])
    if names is None:
        problems.append(
            f"data.{key}: must be a list of distinct rater names (got {got_text(value)})"
        )
    return names


def _check_separator(separator, kind, problems):
    """Note a ``group_separator`` that is not a non-empty string, or one given for a CSV."""
    if separator is None:
        return
    if not isinstance(separator, str) or not separator:
        problems.append(
            f"data.group_separator: must be a non-empty string or null (got {got_text(separator)})"
        )
    elif kind == "csv":
        problems.append(
            "data.group_separator: only for format alttest; a CSV file gives groups in "
            f"its group column (got {got_text(separator)})"
        )
