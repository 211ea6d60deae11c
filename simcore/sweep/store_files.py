"""The store as files: reading its attributes, the writer's lock, creating and removing it.

A store is created in a temporary folder beside its final path and renamed into place, so
that no half-created store is ever left (the folders ``.NAME.zarr.creating-PID`` of
processes that no longer run are removed by the next run); one process at a time writes a
store, holding ``STORE.lock`` beside it (never a symbolic link; the writer checks that it
still holds it). simcore deletes only what it wrote: a store (or a variable of it) is
removed only when it holds nothing but zarr's own files; anything else is named and left.
"""

import contextlib
import os
import re
import shutil
import stat
from pathlib import Path

import zarr

from simcore.output_files import OutputError, fault_message, linked_folder, writable_problem


class StoreError(ValueError):
    """A store that cannot be used for this run (bad input: exit status 2)."""


def read_attrs(path):
    """Return the attributes of the store at ``path``, or None if it is not a zarr store."""
    try:
        return dict(zarr.open_group(str(path), mode="r", use_consolidated=False).attrs)
    except (FileNotFoundError, zarr.errors.GroupNotFoundError, ValueError, KeyError):
        return None


_OWNER = re.compile(r"[\w.-]+ \d+")


def _read_lock(lock):
    """Return the owner ``"host pid"`` of ``lock``, "" if unrecognised, None if missing.

    The lock is never followed as a symbolic link, and what it holds is never printed
    unless it has the shape of an owner.
    """
    try:
        handle = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError:
        raise StoreError(
            f"{lock}: is a symbolic link, not a simcore lock; simcore never follows one; remove it"
        ) from None
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise StoreError(f"{lock}: is not a file, so not a simcore lock; remove it")
        owner = stream.read(256).decode("ascii", "replace").strip()
    return owner if _OWNER.fullmatch(owner) else ""


class HeldLock:
    """The writer's hold on ``STORE.lock``: :meth:`check` before each write."""

    def __init__(self, store, lock, me):
        self.store, self.lock, self.me = store, lock, me

    def check(self):
        """Raise :class:`StoreError` if the lock vanished or another process holds it."""
        if _read_lock(self.lock) != self.me:
            raise StoreError(
                f"{self.store}: its lock {self.lock} vanished while this run was writing "
                "(removed, or taken by another run); run the same command again to resume"
            )


def _take(lock, path, me):
    """Create ``lock`` for ``me``; return whether it was taken (False: a dead owner's)."""
    if lock.is_symlink():
        raise StoreError(
            f"{lock}: is a symbolic link, not a simcore lock; simcore never follows one; remove it"
        )
    try:
        handle = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW)
    except FileExistsError:
        owner = _read_lock(lock)
        host, _, pid = (owner or "").partition(" ")
        if host == os.uname().nodename and pid.isdigit() and not _alive(int(pid)):
            lock.unlink(missing_ok=True)  # left by a run that was killed
            return False
        raise StoreError(
            f"{path}: another simcore run ({owner or 'unknown'}) is writing "
            f"this store; wait for it or remove {lock} if it is gone"
        ) from None
    except OSError as error:  # /proc, a read-only or immutable folder
        raise OutputError(fault_message(lock, error)) from None
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(me)
    except OSError as error:  # a full disk: no empty lock is left behind
        lock.unlink(missing_ok=True)
        raise OutputError(fault_message(lock, error)) from None
    return True


@contextlib.contextmanager
def writer_lock(path):
    """Hold ``STORE.lock`` (beside the store) while one process writes the store.

    A second process is refused with :class:`StoreError`; a lock left by a process that no
    longer runs on this host is taken over. Yields a :class:`HeldLock`.

    Raises
    ------
    StoreError
        When another live process holds the lock, or the lock is a symbolic link.
    """
    lock = Path(path).with_name(Path(path).name + ".lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(fault_message(lock, error)) from None
    me = f"{os.uname().nodename} {os.getpid()}"
    if not _take(lock, path, me) and not _take(lock, path, me):
        raise StoreError(f"{path}: could not take its lock {lock}; run the command again")
    try:
        yield HeldLock(path, lock, me)
    finally:
        with contextlib.suppress(StoreError, OSError):
            if _read_lock(lock) == me:
                lock.unlink()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_store(path):
    """Whether ``path`` holds a simcore store (a zarr group that records a scenario hash)."""
    attrs = read_attrs(path)
    return attrs is not None and "scenario_hash" in attrs


def _writable_folder(folder):
    """Return why the nearest existing folder at or above ``folder`` cannot be written, or None.

    A probe file is created there and removed (:func:`simcore.output_files.writable_problem`):
    permission bits do not tell a read-only or immutable file system, or ``/proc``.
    """
    return writable_problem(folder)


def checked_destination(path):
    """Return ``path`` as a store destination, or raise :class:`StoreError` saying why not.

    Checked before anything is computed: the path must name something (``.`` is the
    working folder itself, which is never a store), its folder must be writable, and
    what is there already must be a simcore store or an empty folder. simcore never
    replaces anything else, even with ``--overwrite``.
    """
    given = Path(path)
    if given.is_symlink():
        raise StoreError(
            f"{given}: is a symbolic link; simcore never writes a store through one, even "
            "with --overwrite; give the real path with --out"
        )
    link = linked_folder(given)
    if link is not None:
        raise StoreError(
            f"{given}: lies in {link}, a symbolic link to a folder; simcore never writes a store "
            f"through one, even with --overwrite; give the real path {os.path.realpath(given)}"
        )
    path = given.resolve()
    if not given.name or path == Path.cwd() or path == Path(path.anchor):
        raise StoreError(
            f"{given}: names a folder, not a store; give a store path such as results/run.zarr"
        )
    problem = _writable_folder(path.parent)
    if problem:
        raise StoreError(f"{given}: cannot be written ({problem}); choose another --out")
    if path.exists() and not path.is_dir():
        raise StoreError(
            f"{given}: is a file, not a simcore store; simcore never replaces it, even with "
            "--overwrite; choose another --out"
        )
    if path.exists() and any(path.iterdir()) and not is_store(path):
        raise StoreError(
            f"{given}: holds something that is not a simcore store; simcore never replaces it, "
            "even with --overwrite; choose another --out"
        )
    return given


def inside_working_folder(path):
    """Whether ``path`` (relative to the working folder, or absolute) lies inside it."""
    return Path(path).resolve().is_relative_to(Path.cwd().resolve())


_CHUNK = re.compile(r"\d+(\.\d+)*")
_PARTIAL = re.compile(r".*\.[0-9a-f]{32}\.partial")  # zarr's atomic write, if killed
_GROUP_FILES = {".zgroup", ".zattrs", ".zmetadata"}
_ARRAY_FILES = {".zarray", ".zattrs"}


def _zarr_file(name, own):
    return name in own or bool(_CHUNK.fullmatch(name) or _PARTIAL.fullmatch(name))


def _foreign_in_array(folder):
    """Return the first entry of an array's folder that zarr did not write, or None."""
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink() or entry.is_dir() or not _zarr_file(entry.name, _ARRAY_FILES):
            return entry
    return None


def foreign_file(path):
    """Return the first file or folder inside the store ``path`` that zarr did not write.

    A store holds its group's metadata and one folder per array, each with the array's
    metadata and its chunks (and zarr's temporary ``*.partial`` files, if a write was
    killed); anything else (a symbolic link included) is someone else's.
    """
    for entry in sorted(Path(path).iterdir()):
        if entry.is_symlink():
            return entry
        if entry.is_dir():
            found = _foreign_in_array(entry)
            if found is not None:
                return found
        elif not _zarr_file(entry.name, _GROUP_FILES) or _CHUNK.fullmatch(entry.name):
            return entry
    return None


def _refuse_foreign(store, found):
    raise StoreError(
        f"{store}: holds {found}, which simcore did not write; simcore never deletes it, "
        "even with --overwrite; move it away or choose another --out"
    )


def remove_store(path):
    """Remove the store at ``path``, which must hold nothing but zarr's files.

    Raises
    ------
    StoreError
        Naming the first foreign file (nothing is removed), or when ``path`` is a link.
    """
    path = Path(path)
    if path.is_symlink() or not path.is_dir():
        raise StoreError(f"{path}: is not a simcore store folder; simcore never removes it")
    found = foreign_file(path)
    if found is not None:
        _refuse_foreign(path, found)
    shutil.rmtree(path)


def remove_arrays(path, names):
    """Remove the arrays ``names`` of the store ``path`` (those present), each zarr's only."""
    for name in names:
        folder = Path(path) / name
        if not os.path.lexists(folder):
            continue
        found = folder if folder.is_symlink() or not folder.is_dir() else None
        found = found or _foreign_in_array(folder)
        if found is not None:
            _refuse_foreign(path, found)
        shutil.rmtree(folder)


def remove_stale_creations(path):
    """Remove ``.NAME.zarr.creating-PID`` folders beside ``path`` whose process is gone."""
    path = Path(path)
    pattern = re.compile(rf"\.{re.escape(path.name)}\.creating-(\d+)")
    if not path.parent.is_dir():
        return
    for entry in path.parent.iterdir():
        match = pattern.fullmatch(entry.name)
        if match and entry.is_dir() and not entry.is_symlink() and not _alive(int(match[1])):
            shutil.rmtree(entry)


def create_store(path, cube, encoding):
    """Write ``cube`` as a new zarr v2 store at ``path`` (temporary folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_creations(path)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    try:
        cube.to_zarr(str(temporary), mode="w", encoding=encoding, consolidated=False, zarr_format=2)
        os.replace(temporary, path)
    except BaseException:  # a full disk, an interrupt: no half-created store is left
        shutil.rmtree(temporary, ignore_errors=True)
        raise
