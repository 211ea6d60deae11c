"""The store as files: reading its attributes, the writer's lock, creating and removing it.

A store is created in a temporary folder beside its final path and renamed into place, so
that no half-created store is ever left; one process at a time writes a store, holding
``STORE.lock`` beside it.
"""

import contextlib
import os
import shutil
from pathlib import Path

import zarr


class StoreError(ValueError):
    """A store that cannot be used for this run (bad input: exit status 2)."""


def read_attrs(path):
    """Return the attributes of the store at ``path``, or None if it is not a zarr store."""
    try:
        return dict(zarr.open_group(str(path), mode="r").attrs)
    except (FileNotFoundError, zarr.errors.GroupNotFoundError, ValueError, KeyError):
        return None


@contextlib.contextmanager
def writer_lock(path):
    """Hold ``STORE.lock`` (beside the store) while one process writes the store.

    A second process is refused with :class:`StoreError`; a lock left by a process that no
    longer runs on this host is taken over.

    Raises
    ------
    StoreError
        When another live process holds the lock.
    """
    lock = Path(path).with_name(Path(path).name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    me = f"{os.uname().nodename} {os.getpid()}"
    for _ in range(2):
        try:
            handle = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            owner = lock.read_text().strip() if lock.exists() else ""
            host, _, pid = owner.partition(" ")
            if host == os.uname().nodename and pid.isdigit() and not _alive(int(pid)):
                lock.unlink(missing_ok=True)  # left by a run that was killed
                continue
            raise StoreError(
                f"{path}: another simcore run ({owner or 'unknown'}) is writing "
                f"this store; wait for it or remove {lock} if it is gone"
            ) from None
        with os.fdopen(handle, "w") as stream:
            stream.write(me)
        break
    try:
        yield
    finally:
        if lock.exists() and lock.read_text().strip() == me:
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
    """Return why the nearest existing folder at or above ``folder`` cannot be written, or None."""
    folder = Path(folder)
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is not writable"
    return None


def checked_destination(path):
    """Return ``path`` as a store destination, or raise :class:`StoreError` saying why not.

    Checked before anything is computed: the path must name something (``.`` is the
    working folder itself, which is never a store), its folder must be writable, and
    what is there already must be a simcore store or an empty folder. simcore never
    replaces anything else, even with ``--overwrite``.
    """
    given = Path(path)
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


def checked_output_file(path, option):
    """Raise :class:`StoreError` unless the file ``path`` can be written (before any work)."""
    given = Path(path)
    if given.exists() and given.is_dir():
        raise StoreError(f"{option} {given}: is a folder, not a file")
    problem = _writable_folder(given.resolve().parent)
    if problem:
        raise StoreError(f"{option} {given}: cannot be written ({problem})")


def checked_output_folder(path, option):
    """Raise :class:`StoreError` unless the folder ``path`` can be created or written."""
    given = Path(path)
    if given.exists() and not given.is_dir():
        raise StoreError(f"{option} {given}: is a file, not a folder")
    problem = _writable_folder(given.resolve())
    if problem:
        raise StoreError(f"{option} {given}: cannot be written ({problem})")


def remove_store(path):
    """Remove the store (or file) at ``path``."""
    path = Path(path)
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def create_store(path, cube, encoding):
    """Write ``cube`` as a new zarr v2 store at ``path`` (temporary folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    cube.to_zarr(str(temporary), mode="w", encoding=encoding, consolidated=False, zarr_format=2)
    os.replace(temporary, path)
