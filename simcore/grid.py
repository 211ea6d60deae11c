"""The grid: run a scenario's cells as dask tasks and hand back counts as cells finish.

Each cell is one task (:func:`simcore.cell.run_cell`) whose numbers depend only on the
root seed, the cell's parameters and the trial count, so the scheduler, the number of
workers and the order in which cells finish never change a result.

- default: an in-process dask.distributed cluster with one worker thread; the kernel
  itself runs its trials in parallel on every core (numba threads);
- ``workers=N``: a local cluster of N worker processes, each giving its kernel
  ``cores // N`` numba threads;
- ``scheduler="tcp://HOST:PORT"``: an existing dask.distributed cluster.
"""

import contextlib
import logging
import os
import sys
import time

from simcore.cell import run_cell


@contextlib.contextmanager
def _client(workers=None, scheduler=None):
    """Yield ``(client, numba threads per task)`` for the chosen scheduler."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        with Client(scheduler, timeout="30s") as client:
            yield client, None
        return
    local = {
        "threads_per_worker": 1,
        "dashboard_address": "127.0.0.1:0",
        "silence_logs": logging.ERROR,
    }
    if workers is None:
        cluster = LocalCluster(n_workers=1, processes=False, **local)
        threads = None
    else:
        cluster = LocalCluster(n_workers=workers, processes=True, host="127.0.0.1", **local)
        threads = max(1, (os.cpu_count() or 1) // workers)
    with cluster, Client(cluster) as client:
        yield client, threads


class Progress:
    """A one-line progress report on stderr: cells done, elapsed time and estimate left."""

    def __init__(self, total, enabled=True, stream=None):
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.interactive = getattr(self.stream, "isatty", lambda: False)()
        self._last = 0.0

    def advance(self):
        """Count one finished cell and redraw when due."""
        self.done += 1
        now = time.monotonic()
        if not self.enabled or (now - self._last < 1.0 and self.done < self.total):
            return
        self._last = now
        elapsed = now - self.start
        left = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        line = (
            f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} cells "
            f"{elapsed:6.1f}s elapsed, ~{left:5.1f}s left"
        )
        end = "\r" if self.interactive and self.done < self.total else "\n"
        if self.interactive or self.done == self.total or self.done % max(1, self.total // 10) == 0:
            print(line, end=end, file=self.stream, flush=True)


def execute(cells, root_seed, trials, workers=None, scheduler=None, progress=True, threads=None):
    """Run ``cells`` on dask and yield ``(index, counts)`` as each cell finishes.

    Parameters
    ----------
    cells : sequence of simcore.scenario.Cell
        Cells to compute.
    root_seed, trials : int
        The scenario's root seed and trials per cell.
    workers : int, optional
        Local worker processes (``--workers``).
    scheduler : str, optional
        Address of an existing dask.distributed scheduler (``--scheduler``).
    progress : bool
        Report progress on stderr.
    threads : int, optional
        Numba threads per task; by default all cores in-process, ``cores // workers`` on a
        local cluster, and the worker's own setting on a remote scheduler.

    Yields
    ------
    tuple
        ``(cell.index, counts)``, in completion order.
    """
    from distributed import as_completed

    cells = list(cells)
    if not cells:
        return
    meter = Progress(len(cells), enabled=progress)
    with _client(workers, scheduler) as (client, default_threads):
        threads = threads or default_threads
        futures = [
            client.submit(run_cell, cell, root_seed, trials, threads, pure=False) for cell in cells
        ]
        for future in as_completed(futures):
            index, counts = future.result()
            meter.advance()
            yield index, counts
