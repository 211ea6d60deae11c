"""Opening annotation files: gzip by content, the format by suffix or content.

A data file may be gzip-compressed whatever its name: :func:`open_text` detects gzip by its
magic bytes (``1f 8b``) and reads it through :func:`gzip.open` in text mode, so
``ratings.csv.gz``, ``ratings.csv`` holding gzip data and ``human_annotations.json.gz`` all
read like their plain twins. :func:`file_format` says whether a file is a long CSV table or a
JSON mapping ``{rater: {item: label}}``: by its suffix (``.csv``, ``.csv.gz``, ``.json``,
``.json.gz``), else by its first non-blank character (``{`` is JSON, anything else CSV).
:data:`READ_ERRORS` are the errors of reading a damaged file (corrupt gzip included), and
:func:`read_json` reads a JSON file (plain or gzip) whatever it holds, raising
:class:`FileProblem` with one sentence for invalid, too deeply nested or too long input.

Every read is bounded: :func:`open_text` counts the (decompressed) bytes as they are read and
stops with :class:`ReadLimitExceeded` past :func:`read_limit`, one
:data:`TEXT_EXPANSION`-th of the memory available to the process (MemAvailable, and never
more than the room left under an address-space limit), because the readers hold about that
many bytes of Python objects per byte of text. A plain file larger than the limit, or a gzip
file whose compressed bytes alone pass it, is refused before a byte is read; a gzip file is first
inflated and discarded once, counting its bytes, so that a gzip bomb or gigabytes of
compressed rows are refused in seconds, as soon as the count passes the limit, before any
row is parsed.
"""

import gzip
import io
import json
import re
import sys
import zlib
from pathlib import Path

READ_ERRORS = (OSError, EOFError, UnicodeDecodeError, zlib.error)
"""What reading a damaged text file raises: a corrupt gzip stream is ``zlib.error`` or
``gzip.BadGzipFile`` (an ``OSError``), a truncated one ``EOFError``."""


class ReadLimitExceeded(OSError):
    """A file whose (decompressed) text is larger than :func:`read_limit` allows.

    An ``OSError``, so that every reader reports it as it reports an unreadable file, with
    the path: ``FILE: unreadable: the text passes the read limit ...``.
    """


TEXT_EXPANSION = 16
"""Bytes of memory the readers may take per byte of text read (rows as Python objects)."""


def read_limit():
    """Return the most bytes of (decompressed) text one file may hold here.

    ``available_bytes() // TEXT_EXPANSION``
    (:func:`simcore.realdata.allocation.available_bytes`: MemAvailable, bounded by the room
    left under ``RLIMIT_AS``), and at least 1 MiB.
    """
    from simcore.realdata.allocation import available_bytes

    return max(2**20, available_bytes() // TEXT_EXPANSION)


def _limit_problem(limit, what):
    from simcore.realdata.allocation import gib_text

    return ReadLimitExceeded(
        f"{what} passes the read limit of {gib_text(limit)} ({limit:,} bytes: 1/"
        f"{TEXT_EXPANSION} of the memory available here, as the rows read take about "
        f"{TEXT_EXPANSION} bytes per byte of text); split the file, or run it where "
        f"{TEXT_EXPANSION} times its text is available"
    )


class _BoundedStream(io.RawIOBase):
    """A binary stream that raises :class:`ReadLimitExceeded` once ``limit`` bytes are read."""

    def __init__(self, stream, path, limit):
        super().__init__()
        self._stream, self._path, self._limit, self._count = stream, path, limit, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        size = self._stream.readinto(buffer)
        self._count += size or 0
        if self._count > self._limit:
            raise _limit_problem(self._limit, f"the text read ({self._count:,} bytes so far)")
        return size

    def close(self):
        if not self.closed:
            self._stream.close()
        super().close()


SCAN_CHUNK = 2**22
"""Bytes inflated at a time by :func:`_check_inflated_size`."""


def _check_inflated_size(path, limit):
    """Raise :class:`ReadLimitExceeded` when the gzip file ``path`` inflates past ``limit``.

    One pass that inflates and discards (hundreds of MB a second), so that a file too large
    to read is refused in seconds, not after minutes of parsing rows up to the limit.
    """
    inflated = 0
    with gzip.open(path, "rb") as stream:
        while chunk := stream.read(SCAN_CHUNK):
            inflated += len(chunk)
            if inflated > limit:
                raise _limit_problem(limit, f"the text inflated ({inflated:,} bytes so far)")


class FileProblem(ValueError):
    """A file that cannot be read as what it should hold; the text follows ``FILE:`` and a space."""


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


def open_text(path, encoding="utf-8", limit=None):
    """Open ``path`` for reading text, through gzip when its content is gzip.

    Parameters
    ----------
    path : str or pathlib.Path
        A plain or gzip-compressed text file.
    encoding : str, optional
        Text encoding of the (decompressed) content.

    limit : int, optional
        Most bytes of text to read (default :func:`read_limit`).

    Returns
    -------
    io.TextIOBase
        A text handle with universal newlines off (``newline=""``), as :mod:`csv` wants.

    Raises
    ------
    ReadLimitExceeded
        When the file (plain), or its compressed bytes alone, are larger than ``limit``;
        on reading, once the (decompressed) text passes ``limit``.
    """
    limit = read_limit() if limit is None else limit
    compressed = is_gzip(path)
    size = Path(path).stat().st_size
    if size > limit:
        what = "compressed" if compressed else "text"
        raise _limit_problem(limit, f"the file's {size:,} bytes of {what}")
    if compressed:
        _check_inflated_size(path, limit)
    stream = gzip.open(path, "rb") if compressed else Path(path).open("rb")
    bounded = io.BufferedReader(_BoundedStream(stream, path, limit), buffer_size=2**20)
    return io.TextIOWrapper(bounded, encoding=encoding, newline="")


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
    except READ_ERRORS:
        return "csv"
    return "json" if start.startswith("{") else "csv"


def missing_path(path, key):
    """Return the problem of a path that is not there, or not a file where one is needed.

    ``PATH: KEY: no such file or folder (got 'PATH')`` when nothing is at ``path``;
    ``PATH: KEY: not a file (got 'PATH')`` when something else is (a folder).
    """
    path = Path(path)
    what = "not a file" if path.exists() else "no such file or folder"
    return f"{path}: {key}: {what} (got {str(path)!r})"


def existing_variant(path):
    """Return ``path``, or ``path`` with ``.gz`` appended when only that file exists."""
    path = Path(path)
    compressed = path.with_name(path.name + ".gz")
    if not path.exists() and compressed.is_file():
        return compressed
    return path


def read_json(path):
    """Return the JSON value held by the plain or gzip file ``path``.

    Raises
    ------
    FileProblem
        ``unreadable: WHY (got 'PATH')`` for a file that cannot be read (damaged gzip,
        not UTF-8), or :func:`json_value`'s problems.
    """
    try:
        with open_text(path, encoding="utf-8-sig") as handle:
            text = handle.read()
    except READ_ERRORS as error:
        raise FileProblem(f"unreadable: {error} (got {str(path)!r})") from None
    return json_value(text)


def json_value(text):
    """Return the JSON value of ``text``.

    Raises
    ------
    FileProblem
        ``not valid JSON: WHAT at line L column C (got 'TEXT NEAR IT')``; ``not valid JSON:
        nested too deeply ...`` beyond Python's recursion limit; ``not valid JSON: a number
        has more digits than Python reads ...`` beyond its int-string limit.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        near = error.doc[max(0, error.pos - 20) : error.pos + 20]
        raise FileProblem(
            f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno} "
            f"(got {near!r})"
        ) from None
    except RecursionError:
        raise FileProblem(
            "not valid JSON: nested too deeply to read (got lists or mappings nested more "
            f"than about {sys.getrecursionlimit()} levels)"
        ) from None
    except ValueError as error:  # Python's int-string limit: the only other ValueError
        raise FileProblem(f"not valid JSON: {too_long_number(error)}") from None


def too_long_number(error):
    """Return the problem text for Python's int-string limit ``error`` (a ValueError)."""
    found = re.findall(r"(\d+) digits", str(error))
    digits = found[-1] if found else "too many"
    return (
        f"a number has more digits than can be read (at most "
        f"{sys.get_int_max_str_digits()}) (got a number of {digits} digits)"
    )
