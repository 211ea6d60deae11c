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
