"""The sweep: any study's cells on dask, into one zarr store.

The grid runs cells as tasks (grid); the store packs each cell's counts with a checksum,
resumes, extends and finalises (store), on the store's files, lock and checked output
paths (store_files); the driver ties them together (run). It knows a
study only through the registry of :mod:`simcore.studies` and its protocol.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "SchedulerError",
    "StoreError",
    "check_fits",
    "damaged_cells",
    "read_attrs",
    "run_sweep",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "grid": ("SchedulerError",),
        "memory": ("check_fits",),
        "run": ("run_sweep",),
        "store": ("StoreError", "damaged_cells", "read_attrs"),
    },
)
