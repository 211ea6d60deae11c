"""A deterministic fault inside finalisation: after the N-th zarr write, die or fill the disk.

``install(mode, n)`` wraps zarr's local store so that, once :func:`simcore.sweep.store.finalize`
has started, the ``n``-th write (or deletion) either ends the process at once with
``os._exit`` (``mode="kill"``, as SIGKILL would) or raises ``OSError(ENOSPC)``
(``mode="full"``, a full disk); ``mode="count"`` only counts. Run as a script,
``python finalise_hook.py MODE N simcore-arguments...`` runs the command line under it.
"""

import errno
import os
import sys

import zarr.storage

from simcore.sweep import store


def install(mode, n, patch=setattr):
    """Install the fault with ``patch(owner, name, value)`` (pytest's ``monkeypatch.setattr``
    undoes it); return the counter ``{"on": bool, "writes": int}``."""
    state = {"on": False, "writes": 0}
    local = zarr.storage.LocalStore

    def faulty(method):
        async def wrapped(self, *args, **kwargs):
            if state["on"]:
                state["writes"] += 1
                if state["writes"] == n and mode == "kill":
                    os._exit(9)
                if state["writes"] == n and mode == "full":
                    raise OSError(errno.ENOSPC, "No space left on device")
            return await method(self, *args, **kwargs)

        return wrapped

    for name in ("set", "delete"):
        patch(local, name, faulty(getattr(local, name)))
    finalize = store.finalize

    def counted(*args, **kwargs):
        state["on"] = True
        try:
            return finalize(*args, **kwargs)
        finally:
            state["on"] = False

    patch(store, "finalize", counted)
    return state


if __name__ == "__main__":
    install(sys.argv[1], int(sys.argv[2]))
    from simcore.cli import main

    sys.exit(main(sys.argv[3:]))
