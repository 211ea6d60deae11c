"""The sweep: any study's cells on dask, into one zarr store.

The grid runs cells as tasks (grid); the store packs each cell's counts with a checksum,
resumes, extends and finalises (store), on the store's files, lock and checked output
paths (store_files); the driver ties them together (run). It knows a
study only through the registry of :mod:`simcore.studies` and its protocol.
"""
