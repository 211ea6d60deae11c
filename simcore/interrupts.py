"""Ctrl-C and SIGTERM at any moment: exit status 130 or 143 and one line on stderr.

This module owns how a command ends when it is interrupted. Python turns SIGINT into a
:class:`KeyboardInterrupt` raised wherever the main thread happens to be, and there it does
not always surface as itself:

- inside a numba kernel it is raised in one of numba's callbacks into Python, and the
  kernel returns "a result with an exception set": a :class:`SystemError` (often several,
  nested) whose ``__cause__`` / ``__context__`` chain holds the KeyboardInterrupt;
- on dask, the interrupt's aftermath (cancelled futures, closed connections, lost
  workers) can raise first, with no KeyboardInterrupt in its chain at all.

:func:`guarded` runs a command with SIGINT and SIGTERM noted as they arrive (SIGTERM
raises :class:`Terminated`, a KeyboardInterrupt, so the same clean-up runs: locks released,
clusters closed); an exception is the interrupt's (:func:`caused_by_interrupt`) when its
chain holds a KeyboardInterrupt or when it is raised after one of those signals arrived.
Then one line is printed and the status returned, never a traceback. The line says that
finished cells are kept only for a command that writes a store, where that is true.
"""

import contextlib
import signal
import sys
import threading

STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
"""Exit status after each signal: 128 + its number, as a shell reports a death by it."""

WORDS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}

KEPT = "; finished cells are kept and a re-run resumes"
"""Added to the line of a command that writes a store (its finished cells are on disk)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread the way Ctrl-C raises KeyboardInterrupt."""


_received = []
"""Signals noted while :func:`guarded` runs (first first); empty outside it."""


def interrupt_in(error):
    """Return the KeyboardInterrupt in ``error``'s chain, or None.

    The chain is ``error`` itself, its ``__cause__`` and ``__context__`` and theirs, and the
    members of exception groups, searched in full (cycles are harmless).
    """
    seen, todo = set(), [error]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, KeyboardInterrupt):
            return current
        todo += [current.__cause__, current.__context__]
        if isinstance(current, BaseExceptionGroup):
            todo += current.exceptions
    return None


def caused_by_interrupt(error):
    """Return whether ``error`` is an interrupt's.

    It is when its chain holds a KeyboardInterrupt, or when it is an ordinary exception
    raised after SIGINT or SIGTERM arrived during :func:`guarded` (a cancelled future, a
    closed connection: the interrupt's aftermath).
    """
    if interrupt_in(error) is not None:
        return True
    return bool(_received) and isinstance(error, Exception)


def _signal_of(error):
    """Return the signal ``error`` answers: the first noted, else the one its type says."""
    if _received:
        return _received[0]
    return signal.SIGTERM if isinstance(interrupt_in(error), Terminated) else signal.SIGINT


def message(signum, keeps_cells):
    """Return the one line printed after ``signum`` (``simcore: interrupted[; ...]``)."""
    return f"simcore: {WORDS[signum]}{KEPT if keeps_cells else ''}"


def guarded(function, *args, keeps_cells=False):
    """Return ``function(*args)``; if an interrupt ends it, print one line, return 130 or 143.

    While ``function`` runs, SIGINT raises KeyboardInterrupt and SIGTERM raises
    :class:`Terminated`, each noted first. A signal whose exception was swallowed (caught by
    a library, or lost at an import, where CPython would later end the process by SIGINT
    with no word) still ends the command with its line and status, though ``function``
    returned. The previous handlers are restored afterwards
    (this is also called in-process, by tests and scripts). A signal that is ignored stays
    ignored, and off the main thread no handler is installed (only the main thread may):
    there an interrupt is still recognised by its chain. Any other exception propagates.

    Parameters
    ----------
    function : callable
        The command; its return value is returned.
    keeps_cells : bool
        The command writes a store, so the line says finished cells are kept.
    """
    with _handlers() as reporting:
        try:
            result = function(*args)
        except BaseException as error:
            if not caused_by_interrupt(error):
                raise
            signum = _signal_of(error)
        else:
            if not _received:
                return result
            signum = _received[0]  # its KeyboardInterrupt was swallowed on the way out
        reporting.set()  # a further signal now is ignored, so the line is the last word
        _forget_unhandled_interrupt()
        print(message(signum, keeps_cells), file=sys.stderr, flush=True)
        return STATUS[signum]


def _forget_unhandled_interrupt():
    """Clear CPython's note that a KeyboardInterrupt went unhandled, now that it is handled.

    A KeyboardInterrupt that leaves code run by ``exec`` of a string (``dataclasses`` and
    ``namedtuple`` build their methods so, as modules are imported) sets a flag that makes
    ``python -m`` end by SIGINT itself, killed rather than exiting 130, however the
    exception was caught later (bpo-1054041). The next ``exec`` of a string clears it.
    """
    exec("pass")  # a constant string, run only to clear that flag


@contextlib.contextmanager
def _handlers():
    """Install the noting handlers for SIGINT and SIGTERM; yield the "reporting" event."""
    reporting = threading.Event()

    def handle(signum, frame):
        if reporting.is_set():
            return
        _received.append(signum)
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in STATUS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, handle)
    try:
        yield reporting
    finally:
        for signum, handler in previous.items():  # None: a handler not set from Python
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        _received.clear()
