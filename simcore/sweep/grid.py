"""The grid: run a scenario's cells as dask tasks and hand back counts as cells finish.

Each cell is one task (:func:`run_task`, which calls the study's ``run_cell``) whose
numbers depend only on the root seed, the cell's coordinates and the trial count, so the
scheduler, the number of workers and the order in which cells finish never change a
result.

- default: no cluster; the tasks run one after another in this process, each kernel
  running its trials in parallel on every core (numba threads);
- ``workers=N``: a local cluster of N worker processes, each giving its kernel
  ``cores // N`` numba threads; it listens on 127.0.0.1 only and, with the
  ``cryptography`` package (``pip install 'simcore[secure]'``), speaks TLS with temporary
  credentials made for this run, so no other user of the machine can submit work to it;
- ``scheduler="tcp://HOST:PORT"``: an existing dask.distributed cluster.
"""

import collections
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

from simcore.studies import study_for
from simcore.studies.protocol import add_counts

CONNECT_TIMEOUT = "30s"

SCRIPT_GUARD = (
    "simcore.run(..., workers=N) starts worker processes, and each of them imports your "
    'script again; put the call under `if __name__ == "__main__":` (the script then runs '
    "it once, in the main process)"
)
WORKERS_FAILED = f"the local worker processes failed to start. If this is a script: {SCRIPT_GUARD}"


def refuse_inside_a_spawned_import():
    """Raise a clear error when a worker process, importing the user's script, runs it.

    Worker processes are started by *spawning*: each imports the main script as
    ``__mp_main__``, so a script that calls ``simcore.run(..., workers=N)`` at module
    level would start workers from inside a worker.
    """
    import multiprocessing

    # the flag multiprocessing itself reads while a spawned process imports the main script
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise RuntimeError(SCRIPT_GUARD)


class SchedulerError(ValueError):
    """No dask scheduler answered at the given address (bad input: exit status 2)."""


@dataclass
class Connection:
    """An open dask client (None: run in this process) and the numba threads per task."""

    client: object
    threads: int | None


def _check_address(scheduler):
    """Raise :class:`SchedulerError` for an address that cannot name a scheduler at all.

    Checked before any client is made, so a typo costs no connection attempt and leaves
    no half-started event loop behind.
    """
    from distributed.comm import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler)
        if scheme in ("tcp", "tls"):
            host, _ = parse_host_port(location)
            if not host:
                raise ValueError("no host")
    except (ValueError, TypeError) as error:
        raise SchedulerError(
            f"--scheduler {scheduler}: not a scheduler address ({error}); give one such as "
            "tcp://host:8786"
        ) from None


PARALLEL_PER_CORE = 4
"""``workers`` and ``threads`` may each be at most this many times the machine's cores."""


def most_parallel():
    """Return the most ``workers`` (or ``threads``) a run takes.

    :data:`PARALLEL_PER_CORE` times ``os.cpu_count()``.
    """
    return PARALLEL_PER_CORE * max(1, os.cpu_count() or 1)


def check_parallel(name, value, flag=None):
    """Refuse ``workers`` or ``threads`` that is not an integer from 1 to :func:`most_parallel`.

    ``None`` passes (the default). Raises ``TypeError`` for a value that is not an integer
    (``bool`` included) and ``ValueError`` below 1 or above the bound, naming ``flag`` (the
    option, as ``--workers``) when given, else ``name``.
    """
    if value is None:
        return
    key, most = flag or name, most_parallel()
    cores = max(1, os.cpu_count() or 1)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{key}: must be an integer from 1 to {most} (got {value!r})")
    if not 1 <= int(value) <= most:
        raise ValueError(
            f"{key}: must be an integer from 1 to {most} ({PARALLEL_PER_CORE} per core of "
            f"this machine's {cores}) (got {int(value)})"
        )


@contextlib.contextmanager
def connect(workers=None, scheduler=None, threads=None):
    """Open the dask client for a run; yield a :class:`Connection`.

    Parameters
    ----------
    workers : int, optional
        Start a local cluster of this many worker processes.
    scheduler : str, optional
        Address of an existing dask.distributed scheduler.
    threads : int, optional
        Numba threads per task; by default all cores in-process, ``cores // workers`` on a
        local cluster, and each worker's own setting on a remote scheduler.

    Without ``workers`` or ``scheduler`` no cluster is started: the tasks run one after the
    other in this process (each on all numba threads), which spares a small sweep the
    start-up of dask.distributed (its import and an in-process scheduler and worker).

    Raises
    ------
    SchedulerError
        When no scheduler answers at ``scheduler`` within :data:`CONNECT_TIMEOUT`.
    """
    check_parallel("workers", workers)
    check_parallel("threads", threads)
    if workers is None and scheduler is None:
        yield Connection(None, threads)
        return
    from distributed import Client, LocalCluster

    if scheduler is not None:
        _check_address(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise SchedulerError(
                f"--scheduler {scheduler}: no dask scheduler answered "
                f"within {CONNECT_TIMEOUT} ({error})"
            ) from None
        with client:
            yield Connection(client, threads)
        return
    security = local_security()
    local = {
        "security": security,
        "threads_per_worker": 1,
        "dashboard_address": "127.0.0.1:0",
        # A worker's log is noise to the user (a task's error reaches the client as an
        # exception); at ERROR a heartbeat racing the cluster's shutdown printed a traceback.
        "silence_logs": logging.CRITICAL,
        "preload": [__name__],  # each worker process runs dask_setup below
    }
    refuse_inside_a_spawned_import()
    threads = threads or max(1, (os.cpu_count() or 1) // workers)
    cluster = client = None
    try:
        with _signals_held():
            try:
                cluster = LocalCluster(n_workers=workers, processes=True, host="127.0.0.1", **local)
            except RuntimeError as error:
                raise RuntimeError(WORKERS_FAILED) from error
            client = Client(cluster, security=security)
        yield Connection(client, threads)
    finally:
        with _signals_held():
            for opened in (client, cluster):
                if opened is not None:
                    opened.close()


UNSECURED = (
    "simcore: note: the local cluster listens on 127.0.0.1 without authentication (another "
    "user of this machine could submit work to it); pip install 'simcore[secure]' (the "
    "cryptography package) makes it use TLS with temporary credentials"
)


def local_security():
    """Return temporary TLS credentials for a local cluster, or None without cryptography.

    ``distributed.security.Security.temporary()``: a self-signed certificate and key made
    in memory for this run and given to the scheduler, the workers and the client alone,
    with encryption required; nothing without them can connect. Without the
    ``cryptography`` package it cannot be made: the cluster runs unauthenticated on
    127.0.0.1 and :data:`UNSECURED` says so on stderr.
    """
    from distributed.security import Security

    try:
        return Security.temporary()
    except ImportError:
        print(UNSECURED, file=sys.stderr)
        return None


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM while a local cluster starts or stops; deliver them after.

    Interrupted half-way, distributed leaves a half-made cluster and prints its own errors
    (and at exit more); so a signal that arrives meanwhile is noted and raised again when
    the block ends, to whatever handler was there before. A second one of the same kind is
    delivered at once (the user insists: a stuck start stays interruptible). Only the main
    thread may change handlers; elsewhere this holds nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    held = []

    def restore():
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)

    def hold(signum, frame):
        if signum not in held:
            held.append(signum)
            return
        held.clear()
        restore()
        signal.raise_signal(signum)

    for signum, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, hold)
    try:
        yield
    finally:
        restore()
        for signum in held:
            signal.raise_signal(signum)


def dask_setup(worker):
    """Set up a worker process of the local cluster (distributed calls it: see ``preload``).

    The worker ignores SIGINT: a terminal sends Ctrl-C to every process in its group, and
    each worker would print its own KeyboardInterrupt traceback, while the process that
    started the cluster handles it and, closing the cluster, stops the workers anyway.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class Progress:
    """Progress on stderr: cells and trials done, elapsed time, an estimate of the time left.

    Trials are counted as tasks finish (a long cell runs as several tasks, so the count
    moves within it). The estimate starts from the first finished task, so numba's
    compilation at the start does not inflate it. On a terminal one line is redrawn at most
    once a second; elsewhere a line is printed at every tenth of the trials.
    """

    def __init__(self, cells, trials, enabled=True, stream=None):
        self.cells, self.trials = cells, trials
        self.cells_done = self.trials_done = 0
        self.enabled = enabled and trials > 0
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.first = None  # (time, trials done) when the first task finished
        self.interactive = self.stream.isatty()
        self.last_drawn = 0.0
        self.next_tenth = 1

    def advance(self, trials, cell_finished):
        """Count one finished task of ``trials`` trials and report when due."""
        self.trials_done += trials
        self.cells_done += int(cell_finished)
        now = time.monotonic()
        if self.first is None:
            self.first = (now, self.trials_done)
        if not self.enabled:
            return
        finished = self.trials_done == self.trials
        tenth = 10 * self.trials_done // self.trials
        due = now - self.last_drawn >= 1.0 if self.interactive else tenth >= self.next_tenth
        if not (due or finished):
            return
        self.last_drawn, self.next_tenth = now, tenth + 1
        print(
            self.line(now),
            end="\r" if self.interactive and not finished else "\n",
            file=self.stream,
            flush=True,
        )

    def line(self, now):
        """Return the progress line at time ``now``."""
        since, counted = self.first
        rate = (self.trials_done - counted) / (now - since) if now > since else 0.0
        left = f"~{(self.trials - self.trials_done) / rate:.1f}s left" if rate > 0 else "estimating"
        filled = 30 * self.trials_done // self.trials
        return (
            f"[{'#' * filled}{'.' * (30 - filled)}] {self.cells_done}/{self.cells} cells, "
            f"{100 * self.trials_done / self.trials:.0f}% of trials, "
            f"{now - self.start:.1f}s elapsed, {left}"
        )


TRIALS_PER_TASK = 16_384
"""Most trials per task: a longer cell runs as several tasks whose counts add exactly, so
progress moves within it and workers share it (results do not depend on this)."""


def trial_ranges(start, stop):
    """Split trials ``range(start, stop)`` into ranges of at most :data:`TRIALS_PER_TASK`."""
    edges = [*range(start, stop, TRIALS_PER_TASK), stop]
    return list(zip(edges[:-1], edges[1:], strict=True))


def run_task(kind, scenario, context, cell, start, stop, numba_threads=None):
    """Compute one cell's counts over trials ``range(start, stop)`` (a dask task).

    The study is looked up by ``kind`` in the registry on the worker, so tasks carry only
    plain data. ``numba_threads`` sets the kernel's threads in this process, and a task of
    few trials runs on at most one thread per block of them
    (:func:`simcore.engine.threads.threads_for_trials`: every parallel kernel splits its
    trials); results do not depend on either.

    Returns
    -------
    tuple
        ``(cell.index, counts)``.
    """
    from simcore.engine.threads import set_threads, threads_for_trials

    if numba_threads is not None:
        set_threads(numba_threads)
    study = study_for(kind)
    with threads_for_trials(stop - start):
        return cell.index, study.run_cell(scenario, context, cell, start, stop)


TASKS_IN_FLIGHT = 512
"""Most tasks submitted to a dask cluster and not yet finished: a long sweep's tasks are
submitted as earlier ones finish, so the scheduler never holds a million of them."""


def execute(scenario, context, cells, connection, progress=True, starts=None):
    """Run ``cells`` as dask tasks and yield ``(index, counts)`` as each cell finishes.

    Parameters
    ----------
    scenario : object
        The parsed scenario (any kind); its study runs each cell.
    context : object
        The study's shared read-only inputs, sent once to every worker.
    cells : iterable of simcore.studies.protocol.CellSpec
        Cells to compute (read once, as tasks are submitted).
    connection : Connection
        From :func:`connect`.
    progress : bool
        Report progress on stderr.
    starts : dict, optional
        ``{cell index: first trial}`` of every cell in ``cells`` (default: each of a
        sized ``cells`` from trial 0); progress counts its cells and trials from it.

    Yields
    ------
    tuple
        ``(cell.index, counts)``, in completion order; counts cover trials
        ``start .. scenario.trials - 1``.
    """
    if starts is None:
        cells = list(cells)
        starts = {cell.index: 0 for cell in cells}
    trials = len(starts) * scenario.trials - sum(starts.values())
    meter = Progress(len(starts), trials, progress)
    pending = collections.Counter()

    def tasks():
        for cell in cells:
            ranges = trial_ranges(starts.get(cell.index, 0), scenario.trials)
            pending[cell.index] = len(ranges)
            for first, last in ranges:
                yield cell, first, last

    partial = {}
    for (index, counts), done in _finished_tasks(scenario, context, tasks(), connection):
        partial[index] = add_counts(partial.get(index), counts)
        pending[index] -= 1
        meter.advance(done, pending[index] == 0)
        if pending[index] == 0:
            del pending[index]
            yield index, partial.pop(index)


def _finished_tasks(scenario, context, tasks, connection):
    """Yield ``((cell index, counts), trials)`` of each task as it finishes.

    In this process (``connection.client`` None) in the order given; on dask as the
    futures complete, at most :data:`TASKS_IN_FLIGHT` submitted at a time.
    """
    if connection.client is None:
        for cell, first, last in tasks:
            task = run_task(scenario.kind, scenario, context, cell, first, last, connection.threads)
            yield task, last - first
        return
    from distributed import as_completed

    shared = context
    if context is not None:
        shared = connection.client.scatter(context, broadcast=True, hash=False)
    submitted = {}
    finished = as_completed()

    def submit_next():
        for cell, first, last in tasks:
            future = connection.client.submit(
                run_task,
                scenario.kind,
                scenario,
                shared,
                cell,
                first,
                last,
                connection.threads,
                pure=False,
            )
            submitted[future] = last - first
            finished.add(future)
            return

    try:
        for _ in range(TASKS_IN_FLIGHT):
            submit_next()
        for future in finished:
            result = future.result()
            trials = submitted.pop(future)
            submit_next()
            yield result, trials
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: leave no task for the closing cluster
        with contextlib.suppress(Exception):  # to report as lost (its logs say so loudly)
            connection.client.cancel(list(submitted))
        raise
