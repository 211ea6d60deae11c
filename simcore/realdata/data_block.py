"""The ``data`` block of a real-data scenario: its keys, their checks, and the loader it names.

:func:`load_data` checks every key of the block, reports all problems together as
``data.KEY: what is wrong (got VALUE)``, resolves the path and calls
:func:`~simcore.realdata.loaders.load_alttest` or :func:`~simcore.realdata.loaders.load_csv`.
"""

from pathlib import Path

from simcore.realdata.annotation import DataError, _got
from simcore.realdata.assembly import _declared_labels, _names
from simcore.realdata.loaders import load_alttest, load_csv

FORMATS = ("alttest", "csv")
"""Values of the ``format`` key of a scenario's ``data`` block."""

SCALES = ("nominal", "ordinal")
"""Values of the ``scale`` key of a scenario's ``data`` block."""

DATA_KEYS = ("format", "path", "humans", "judges", "labels", "scale", "group_separator")
"""Valid keys of a scenario's ``data`` block."""


def load_data(block, base=None):
    """Load the matrix that a scenario's ``data`` block names.

    Parameters
    ----------
    block : dict
        The ``data`` mapping with the keys ``format`` (``alttest``, the default, or
        ``csv``), ``path`` (required; a folder for ``alttest``, a file for ``csv``),
        ``humans`` (primary first; required for ``csv``), ``judges`` (required for
        ``csv``), ``labels`` (declared label values in order), ``scale`` (``nominal``, the
        default, or ``ordinal``) and ``group_separator`` (``alttest`` only).
    base : str or pathlib.Path, optional
        Folder that a relative ``path`` is resolved against (the scenario file's folder).
        Default: the current directory.

    Returns
    -------
    AnnotationMatrix
        As :func:`load_alttest` or :func:`load_csv` return it.

    Raises
    ------
    DataError
        Listing every problem in the block as ``data.KEY: what is wrong (got VALUE)``
        (the caller may prefix the scenario file), or, once the block is valid, every problem
        in the data as the loaders report them.
    """
    kind, path, names, labels, scale, separator = _checked_block(block)
    target = Path(path).expanduser()
    if not target.is_absolute() and base is not None:
        target = Path(base) / target
    ordinal = scale == "ordinal"
    if kind == "csv":
        return load_csv(target, names["humans"], names["judges"], labels, ordinal)
    return load_alttest(target, names["humans"], names["judges"], labels, ordinal, separator)


def _checked_block(block):
    """Return ``(format, path, names, labels, scale, group_separator)`` of a valid block.

    ``names`` maps ``"humans"`` and ``"judges"`` to their lists of names (None when not
    given). Raises :class:`DataError` listing every problem of the block.
    """
    if not isinstance(block, dict):
        raise DataError(
            [f"data: must be a mapping with keys {', '.join(DATA_KEYS)} (got {_got(block)})"]
        )
    problems = []
    for key in block:
        if key not in DATA_KEYS:
            problems.append(
                f"data.{key}: unknown key (valid keys: {', '.join(DATA_KEYS)}) (got {_got(key)})"
            )
    kind = block.get("format", "alttest")
    if kind not in FORMATS:
        problems.append(f"data.format: must be one of {', '.join(FORMATS)} (got {_got(kind)})")
    path = block.get("path")
    if not isinstance(path, str) or not path.strip():
        problems.append(
            f"data.path: must be given, the path of the data (a folder or a CSV file) "
            f"(got {_got(path)})"
        )
    names = {key: _block_names(block, key, kind, problems) for key in ("humans", "judges")}
    labels = block.get("labels")
    if labels is not None and _declared_labels(labels, "data", []) is None:
        problems.append(
            f"data.labels: must be a list of distinct label values (got {_got(labels)})"
        )
    scale = block.get("scale", "nominal")
    if scale not in SCALES:
        problems.append(f"data.scale: must be one of {', '.join(SCALES)} (got {_got(scale)})")
    separator = block.get("group_separator")
    _check_separator(separator, kind, problems)
    if problems:
        raise DataError(problems)
    return kind, path, names, labels, scale, separator


def _block_names(block, key, kind, problems):
    """Return the rater names under ``key`` (None when not given); note a bad value."""
    value = block.get(key)
    if value is None:
        if kind == "csv":
            problems.append(f"data.{key}: required when format is csv (got null)")
        return None
    names = _names(value, f"data.{key}", "data", [])
    if names is None:
        problems.append(f"data.{key}: must be a list of distinct rater names (got {_got(value)})")
    return names


def _check_separator(separator, kind, problems):
    """Note a ``group_separator`` that is not a non-empty string, or one given for a CSV."""
    if separator is None:
        return
    if not isinstance(separator, str) or not separator:
        problems.append(
            f"data.group_separator: must be a non-empty string or null (got {_got(separator)})"
        )
    elif kind == "csv":
        problems.append(
            "data.group_separator: only for format alttest; a CSV file gives groups in "
            f"its group column (got {_got(separator)})"
        )
