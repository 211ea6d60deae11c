"""Opening annotation files: gzip by content, the format by suffix or content.

A data file may be gzip-compressed whatever its name: :func:`open_text` detects gzip by its
magic bytes (``1f 8b``) and reads it through :func:`gzip.open` in text mode, so
``ratings.csv.gz``, ``ratings.csv`` holding gzip data and ``human_annotations.json.gz`` all
read like their plain twins. :func:`file_format` says whether a file is a long CSV table or a
JSON mapping ``{rater: {item: label}}``: by its suffix (``.csv``, ``.csv.gz``, ``.json``,
``.json.gz``), else by its first non-blank character (``{`` is JSON, anything else CSV).
"""

import gzip
from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of every gzip stream."""

CSV_SUFFIXES = (".csv", ".csv.gz")
"""File name endings read as a long CSV table."""

JSON_SUFFIXES = (".json", ".json.gz")
"""File name endings read as a JSON mapping ``{rater: {item: label}}``."""


def is_gzip(path):
    """Return whether the file at ``path`` starts with the gzip magic bytes ``1f 8b``."""
    with Path(path).open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def open_text(path, encoding="utf-8"):
    """Open ``path`` for reading text, through gzip when its content is gzip.

    Parameters
    ----------
    path : str or pathlib.Path
        A plain or gzip-compressed text file.
    encoding : str, optional
        Text encoding of the (decompressed) content.

    Returns
    -------
    io.TextIOBase
        A text handle with universal newlines off (``newline=""``), as :mod:`csv` wants.
    """
    if is_gzip(path):
        return gzip.open(path, "rt", encoding=encoding, newline="")
    return Path(path).open(encoding=encoding, newline="")


def file_format(path):
    """Return ``"csv"`` or ``"json"``: the format of an annotation file.

    The suffix decides when it is one of :data:`CSV_SUFFIXES` or :data:`JSON_SUFFIXES`
    (case-insensitive); otherwise the first non-blank character of the (decompressed)
    content does: ``{`` means JSON, anything else CSV. An unreadable file is called CSV, and
    the CSV reader reports why it cannot be read.
    """
    name = Path(path).name.lower()
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    if name.endswith(JSON_SUFFIXES):
        return "json"
    try:
        with open_text(path, encoding="utf-8-sig") as handle:
            start = handle.read(4096).lstrip()
    except (OSError, UnicodeDecodeError, EOFError):
        return "csv"
    return "json" if start.startswith("{") else "csv"


def existing_variant(path):
    """Return ``path``, or ``path`` with ``.gz`` appended when only that file exists."""
    path = Path(path)
    compressed = path.with_name(path.name + ".gz")
    if not path.exists() and compressed.is_file():
        return compressed
    return path
