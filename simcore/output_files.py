"""What simcore writes, and how: one output policy for every command and Python function.

simcore creates a new file or folder, or replaces one it wrote itself (recognisably its own
output of the same kind, :data:`KINDS`). It never replaces anything else unless asked
(``--overwrite``, or ``overwrite=True`` in Python), and never writes through a symbolic
link, a folder, a device, a pipe or a ``/proc`` entry, even when asked. The checks run
before any work (:func:`check_output_file`, :func:`check_output_folder`); a refusal is an
:class:`OutputError` (exit status 2), one line naming the option, the path and what to pass.

Every file is written to a temporary name in its own folder (``.NAME.simcore-PID-N.tmp``,
created exclusively, never through a link), flushed to the disk and renamed onto its path
(:func:`write_atomically`), so a failure (a full disk, a read-only or immutable file
system, a folder that vanished) leaves the earlier file as it was and no partial file: the
temporary file is removed, and so are the folders the write created. The fault becomes an
:class:`OutputError` naming the path and the system's reason.

Nothing heavy is imported here: every layer may use it.
"""

import contextlib
import json
import os
import stat
from pathlib import Path

__all__ = [
    "FIGURE_FORMATS",
    "KINDS",
    "OutputError",
    "check_output_file",
    "check_output_folder",
    "is_own_output",
    "linked_folder",
    "save_figure",
    "write_atomically",
    "write_bytes",
    "write_text",
    "write_together",
    "writable_problem",
]


class OutputError(ValueError):
    """An output path simcore refuses, or a write the file system refused (exit status 2)."""


FIGURE_FORMATS = {
    ".png": "png",
    ".pdf": "pdf",
    ".svg": "svg",
    ".eps": "eps",
    ".ps": "ps",
    ".jpg": "jpeg",
    ".jpeg": "jpeg",
    ".tif": "tiff",
    ".tiff": "tiff",
    ".webp": "webp",
}
"""The figure files simcore writes, by suffix, and matplotlib's format for each."""

_STAMP = "drawn by simcore with matplotlib"
_PIL_STAMPS = {
    "jpeg": {"comment": _STAMP.encode()},
    "tiff": {"description": _STAMP},
    "webp": {"xmp": _STAMP.encode()},
}
"""What makes a JPEG, TIFF or WebP figure recognisably simcore's (matplotlib stamps the
other formats with its own name)."""

_HEAD_BYTES = 16 << 20
"""How much of an existing file is read to recognise it."""


def _starts(*prefixes):
    return lambda head: head.startswith(tuple(prefixes))


def _csv_header(*headers):
    lines = tuple(f"{header}{end}".encode() for header in headers for end in ("\r\n", "\n"))
    return lambda head: head.startswith(lines)


def _json_document(head):
    """Return the JSON object ``head`` holds whole, or None."""
    try:
        document = json.loads(head.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def _card(head):
    document = _json_document(head)
    return document is not None and str(document.get("format", "")).startswith("simcore judge card")


def _card_check(head):
    document = _json_document(head)
    return document is not None and document.get("command") == "card" and "rates" in document


def _look_record(head):
    document = _json_document(head)
    return document is not None and document.get("kind") == "simcore look record"


def _overlap_table(head):
    """Whether ``head`` is a K x K overlap table: ``human,NAMES`` and a row per name, in order."""
    whole = len(head) < _HEAD_BYTES
    lines = head.decode("utf-8", "replace").splitlines()
    lines = lines if whole else lines[:-1]  # the last line may be cut
    if not lines or not lines[0].startswith("human,"):
        return False
    names = lines[0].split(",")[1:]
    if len(lines) - 1 > len(names) or (whole and len(lines) - 1 != len(names)):
        return False
    for name, line in zip(names, lines[1:], strict=False):
        cells = line.split(",")
        if cells[0] != name or len(cells) != len(names) + 1:
            return False
        if not all(cell.isdigit() for cell in cells[1:]):
            return False
    return True


KINDS = {
    "planning-table": ("planning table", _starts(b"# Planning table:")),
    "planning-csv": (
        "planning table (CSV)",
        _csv_header("margin,p_judge,side,simulated_m,recipe_m,ratio"),
    ),
    "figure": ("figure", lambda head: b"matplotlib" in head.lower()),
    "card": ("judge card", _card),
    "card-check": ("card check (JSON)", _card_check),
    "advise-report": ("advise report", _starts(b"# simcore advise")),
    "next-round": ("next_round.csv", _csv_header("human,item,design", "human,item,design,group")),
    "look-record": ("look record", _look_record),
    "ceiling-report": ("ceiling report", _starts(b"# simcore ceiling")),
    "ceiling-csv": ("ceiling table (CSV)", _starts(b"group,n_items,n_raters,k,k_others,")),
    "wellposed-report": ("well-posedness report", _starts(b"# Is the question well posed?")),
    "wellposed-csv": (
        "well-posedness table (CSV)",
        _starts(b"group,n_items,n_judges,judges,measure,agreement,"),
    ),
    "tables": ("real-data table", _starts(b"# Real matrices", b"# Which reading of P's Strat?")),
    "overlap-csv": ("overlap table (CSV)", _overlap_table),
    "data": ("generated data file", lambda head: False),
}
"""simcore's own output kinds: ``{kind: (what it is called, recogniser of its first bytes)}``.

A ``data`` file (annotations drawn for a test or an example) is never recognised: it looks
like the user's own data, so it is replaced only when asked."""


def is_own_output(path, kind):
    """Whether the regular file ``path`` is recognisably simcore's output of ``kind``."""
    _, recognise = KINDS[kind]
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return False
        head = stream.read(_HEAD_BYTES)
    return recognise(head)


def _nearest_existing(folder):
    """Return the nearest folder at or above ``folder`` that exists (links not followed)."""
    folder = Path(folder)
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    return folder


def linked_folder(path):
    """Return the first folder in ``path`` as given that is a symbolic link, or None.

    Every folder the path names is checked, from its first component to its parent (a
    relative path from the working folder; the working folder itself and the folders above
    it are the user's choice of where to run, not part of the path). A folder reached
    through a link may lie anywhere, so simcore writes into it only when given the real
    path (``os.path.realpath``).
    """
    given = Path(path)
    folder = Path(given.anchor)
    for part in given.parent.parts[1 if given.anchor else 0 :]:
        folder = folder / part
        if part not in (".", "..") and os.path.islink(folder):
            return folder
    return None


def _link_problem(path, remedy):
    """Return why ``path`` is refused for a symbolic link in its folders (a phrase), or None."""
    link = linked_folder(path)
    if link is None:
        return None
    return (
        f"lies in {link}, a symbolic link to a folder; simcore never writes through one, even "
        f"with {remedy}; give the real path {os.path.realpath(path)}"
    )


def writable_problem(folder):
    """Return why a file cannot be created in ``folder`` (or the folders it needs), or None.

    The nearest existing folder at or above ``folder`` is tried with a probe file created
    and removed at once: this finds a read-only or immutable file system, ``/proc`` and
    folders the user may not write, which permission bits alone do not tell (root).
    """
    existing = _nearest_existing(folder or ".")
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    probe = existing / f".simcore-probe-{os.getpid()}"
    try:
        handle = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return None  # a probe of ours left behind: the folder takes files
    except OSError as error:
        return f"{existing} takes no new file: {error.strerror or error}"
    os.close(handle)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return None


def _file_problem(path, kind, overwrite, remedy):
    """Return why the file ``path`` may not be written (a phrase), or None."""
    linked = _link_problem(path, remedy)
    if linked is not None:
        return linked
    if os.path.islink(path):
        return (
            f"is a symbolic link; simcore never writes through one, even with {remedy}; "
            "give the real path"
        )
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        blocker = next(p for p in Path(path).parents if os.path.isfile(p))
        return f"cannot be written: {blocker} is a file, not a folder"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(mode):
        return (
            "is not a regular file (a device, a pipe, a socket or a /proc entry); simcore "
            "writes only regular files"
        )
    if overwrite or is_own_output(path, kind):
        return None
    what, _ = KINDS[kind]
    article = "an" if what[0] in "aeiou" else "a"
    return (
        f"exists and is not {article} {what} simcore wrote; simcore never overwrites it; pass "
        f"{remedy} to replace it, or move it away or choose another path"
    )


def figure_format(path, option="--out"):
    """Return matplotlib's format for the figure file ``path``, or raise :class:`OutputError`."""
    suffix = Path(path).suffix.lower()
    if suffix not in FIGURE_FORMATS:
        raise OutputError(
            f"{option} {path}: a figure file ends in one of {', '.join(FIGURE_FORMATS)} "
            f"(got {suffix or 'no suffix'})"
        )
    return FIGURE_FORMATS[suffix]


def check_output_file(path, option, kind, overwrite=False, remedy="--overwrite"):
    """Raise :class:`OutputError` unless simcore may write the file ``path`` (before any work).

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write.
    option : str
        How the caller named it (``--out``, ``plot``, ``SCENARIO: output.table``).
    kind : str
        One of :data:`KINDS`: an existing file must be simcore's output of this kind.
    overwrite : bool
        Replace an existing regular file whatever it holds (never a link or a folder).
    remedy : str
        What the caller passes to replace a file: ``--overwrite`` or ``overwrite=True``.

    Raises
    ------
    OutputError
        ``path`` is a symbolic link, a folder, a special file, lies in a folder that cannot
        be written, is not a figure suffix (``kind="figure"``), or is a file that is not
        simcore's output of ``kind`` and ``overwrite`` is false.
    """
    if kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)} (got {kind!r})")
    given = Path(path)
    if kind == "figure":
        figure_format(given, option)
    problem = _file_problem(given, kind, overwrite, remedy)
    if problem is None:
        folder = writable_problem(given.parent)
        problem = None if folder is None else f"cannot be written ({folder})"
    if problem is not None:
        raise OutputError(f"{option} {given}: {problem}")
    return given


def check_output_folder(path, option, files, overwrite=False, remedy="--overwrite"):
    """Raise :class:`OutputError` unless simcore may write ``files`` into the folder ``path``.

    ``files`` maps each file name simcore writes there to its kind (:data:`KINDS`). The
    folder must not be a symbolic link or a file (even with ``overwrite``), must be
    writable (or creatable), and each named file already there must be a regular file
    that is simcore's output of its kind (with ``overwrite``: any regular file).
    """
    given = Path(path)
    linked = _link_problem(given, remedy)
    if linked is not None:
        raise OutputError(f"{option} {given}: {linked}")
    if os.path.islink(given):
        raise OutputError(
            f"{option} {given}: is a symbolic link; simcore never writes through one, even "
            f"with {remedy}; give the real folder"
        )
    if os.path.lexists(given) and not given.is_dir():
        raise OutputError(f"{option} {given}: is a file, not a folder")
    folder = writable_problem(given)
    if folder is not None:
        raise OutputError(f"{option} {given}: cannot be written ({folder})")
    for name, kind in files.items():
        problem = _file_problem(given / name, kind, overwrite, remedy)
        if problem is not None:
            raise OutputError(f"{option} {given}: {given / name} {problem}")
    return given


def _make_folders(folder):
    """Create ``folder`` and the folders above it that are missing; return those created."""
    missing = []
    folder = Path(folder)
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    created = []
    try:
        for each in reversed(missing):
            os.mkdir(each)
            created.append(each)
    except BaseException:
        _remove_folders(created)
        raise
    return created


def _remove_folders(created):
    for folder in reversed(created):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _open_temporary(path, binary):
    """Create a temporary file beside ``path`` (exclusively, no link); return it and its stream."""
    base = path.name[:200]
    for number in range(1000):
        temporary = path.with_name(f".{base}.simcore-{os.getpid()}-{number}.tmp")
        try:
            handle = os.open(
                temporary,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                0o666,
            )
        except FileExistsError:
            continue
        try:
            with contextlib.suppress(OSError):
                os.fchmod(handle, stat.S_IMODE(os.stat(path).st_mode))  # keep a replaced mode
            if binary:
                return temporary, os.fdopen(handle, "wb")
            return temporary, os.fdopen(handle, "w", encoding="utf-8", newline="")
        except BaseException:
            os.close(handle)
            os.unlink(temporary)
            raise
    raise FileExistsError(f"{path}: no free temporary name beside it")


def fault_message(path, error):
    """Return the one line saying why the file system refused to write ``path``."""
    reason = error.strerror or str(error) or type(error).__name__
    return f"{path}: could not be written ({reason}); nothing was written there"


def write_atomically(path, write, binary=False):
    """Write ``path`` by calling ``write(stream)`` on a temporary file, then renaming it.

    The temporary file lies beside ``path`` and is flushed to the disk before the rename,
    so ``path`` holds either its earlier content or the whole new one. Missing folders are
    created, and removed again if the write fails. Text is UTF-8, lines as written.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OutputError
        The file system refused the write (full, read-only, immutable, vanished): one line
        naming ``path`` and the reason; nothing is left behind.
    """
    write_together([(path, write, binary)])
    return Path(path)


def write_together(files):
    """Write several files as one: every one to its temporary file first, then all renamed.

    ``files`` lists ``(path, write, binary)`` as :func:`write_atomically` takes them. When
    any write fails, no file is replaced: every temporary file and every folder created is
    removed, and the fault is an :class:`OutputError` naming the file that failed.
    """
    staged, created, current = [], [], None
    try:
        for path, write, binary in files:
            current = Path(path)
            created += _make_folders(current.parent)
            temporary, stream = _open_temporary(current, binary)
            staged.append((temporary, current))
            with stream:
                write(stream)
                stream.flush()
                os.fsync(stream.fileno())
        for temporary, path in staged:
            current = path
            os.replace(temporary, path)
    except BaseException as error:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        _remove_folders(created)
        if isinstance(error, OSError) and not isinstance(error, BrokenPipeError):
            raise OutputError(fault_message(current, error)) from None
        raise


def write_text(path, text):
    """Write ``text`` to ``path`` (UTF-8) atomically (:func:`write_atomically`)."""
    return write_atomically(path, lambda stream: stream.write(text))


def write_bytes(path, data):
    """Write ``data`` to ``path`` atomically (:func:`write_atomically`)."""
    return write_atomically(path, lambda stream: stream.write(data), binary=True)


def save_figure(figure, path, **savefig):
    """Write the matplotlib ``figure`` to ``path`` atomically, in the format of its suffix.

    ``savefig`` are :meth:`matplotlib.figure.Figure.savefig`'s keywords (``dpi``,
    ``metadata``). JPEG, TIFF and WebP files carry a note that simcore drew them, so that
    simcore recognises them as its own the next time.
    """
    kind = figure_format(path)
    stamp = _PIL_STAMPS.get(kind)
    if stamp:
        savefig = {**savefig, "pil_kwargs": {**stamp, **savefig.get("pil_kwargs", {})}}

    def draw(stream):
        figure.savefig(stream, format=kind, **savefig)

    return write_atomically(path, draw, binary=True)
