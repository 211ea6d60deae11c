"""Ctrl-C and SIGTERM at any moment: exit 130 or 143, one line on stderr, a store that resumes.

A run is signalled once its first cell is in the store, so the signal lands while the next
cell's numba kernel runs (where a KeyboardInterrupt used to surface as a SystemError and
exit 1 with a screenful of traceback); the same command then resumes the store, whose
counts must equal an uninterrupted run's. The recogniser is also tested on hand-built
exception chains.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
import zarr

import simcore
from simcore import interrupts
from simcore.cli import main
from simcore.studies.synthetic.cell import COUNT_NAMES
from simcore.sweep.store_files import read_attrs

REPO = Path(__file__).resolve().parent.parent

RAW = {
    "name": "interrupts",
    "model": {"n_items": 500, "n_humans": 4, "n_labels": 2, "p_human": 0.85},
    "design": {"kind": "bernoulli"},
    "rule": {"kind": "point", "coefficient": "observed", "epsilon": 0.05, "tau": 0.5},
    "reference": "dense",
    "trials": 40_000,  # a cell's kernels run for a second or two
    "seed": 7,
    "sweep": {"p_judge": [0.9, 0.7], "rho": [0.25]},
}

KEPT = "simcore: {}; finished cells are kept and a re-run resumes"


@pytest.fixture(scope="module")
def reference():
    """The uninterrupted run's cube."""
    return simcore.run(RAW)


def cells_done(out):
    """Cells complete in the store at ``out`` (0 before it exists)."""
    try:
        return int(np.asarray(zarr.open_group(str(out), mode="r")["cell_complete"][...]).sum())
    except Exception:  # not there yet, or being written
        return 0


def signalled_run(command, out, signum, deadline=120):
    """Run ``command``, send ``signum`` to its process group once a cell is in ``out``.

    Returns ``(exit status, stderr)``. The group is signalled, as a terminal does on Ctrl-C.
    """
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stop = time.monotonic() + deadline
    while process.poll() is None and time.monotonic() < stop and cells_done(out) == 0:
        time.sleep(0.02)
    if process.poll() is None:
        os.killpg(process.pid, signum)
    try:
        _, err = process.communicate(timeout=deadline)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return process.returncode, err


def check_signal_then_resume(tmp_path, reference, signum, status, word, extra=(), raw=RAW):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    out = tmp_path / "cube.zarr"
    command = [sys.executable, "-m", "simcore", "run", str(path), "--out", str(out), "--quiet"]
    returncode, err = signalled_run([*command, *extra], out, signum)
    assert returncode == status, err
    assert err.splitlines() == [KEPT.format(word)], err
    assert "Traceback" not in err and "internal error" not in err
    assert not (read_attrs(out) or {}).get("complete"), "the run was signalled after it finished"
    assert 1 <= cells_done(out) < len(raw["sweep"]["p_judge"])
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    resumed = xr.open_zarr(out)
    for name in COUNT_NAMES:
        xr.testing.assert_equal(resumed[name].load(), reference[name])
    assert not (tmp_path / "cube.zarr.lock").exists()


def test_ctrl_c_inside_a_kernel_exits_130_with_one_line_and_the_store_resumes(tmp_path, reference):
    check_signal_then_resume(tmp_path, reference, signal.SIGINT, 130, "interrupted")


def test_sigterm_inside_a_kernel_exits_143_with_one_line_and_the_store_resumes(tmp_path, reference):
    check_signal_then_resume(tmp_path, reference, signal.SIGTERM, 143, "terminated")


THREE_CELLS = {**RAW, "sweep": {"p_judge": [0.9, 0.8, 0.7], "rho": [0.25]}}
"""Two workers run two cells at once and may finish both together: a third is still running."""


def test_ctrl_c_with_worker_processes_is_one_line_too(tmp_path):
    """The workers, in the same process group, leave Ctrl-C to the run that started them."""
    reference = simcore.run(THREE_CELLS)
    check_signal_then_resume(
        tmp_path,
        reference,
        signal.SIGINT,
        130,
        "interrupted",
        extra=["--workers", "2"],
        raw=THREE_CELLS,
    )


def chained(error, cause=None, context=None):
    error.__cause__, error.__context__ = cause, context
    return error


def numba_chain():
    """What a kernel interrupted in a callback raises: SystemErrors over a KeyboardInterrupt."""
    inner = chained(
        SystemError("_numba_unpickle returned a result with an exception set"),
        cause=KeyboardInterrupt(),
    )
    return chained(
        SystemError("CPUDispatcher returned a result with an exception set"), cause=inner
    )


@pytest.mark.parametrize(
    "error",
    [
        KeyboardInterrupt(),
        interrupts.Terminated(),
        chained(
            SystemError("returned a result with an exception set"), context=KeyboardInterrupt()
        ),
        numba_chain(),
        chained(RuntimeError("closing"), context=numba_chain()),
        BaseExceptionGroup("tasks", [ValueError("a"), numba_chain()]),
    ],
)
def test_an_interrupt_is_recognised_however_it_is_wrapped(error):
    assert isinstance(interrupts.interrupt_in(error), KeyboardInterrupt)
    assert interrupts.caused_by_interrupt(error)


@pytest.mark.parametrize(
    "error",
    [
        ValueError("bad"),
        chained(SystemError("no"), cause=ValueError("bad")),
        ExceptionGroup("tasks", [ValueError("a"), OSError("b")]),
    ],
)
def test_other_errors_are_not_interrupts(error):
    assert interrupts.interrupt_in(error) is None
    assert not interrupts.caused_by_interrupt(error)


def test_a_cyclic_chain_ends():
    first, second = ValueError("a"), ValueError("b")
    first.__context__, second.__context__ = second, first
    assert interrupts.interrupt_in(first) is None


def raising(error):
    def command():
        raise error

    return command


def test_guarded_prints_one_line_and_returns_the_status(capsys):
    assert interrupts.guarded(raising(numba_chain()), keeps_cells=True) == 130
    assert capsys.readouterr().err == KEPT.format("interrupted") + "\n"
    assert interrupts.guarded(raising(interrupts.Terminated())) == 143
    assert capsys.readouterr().err == "simcore: terminated\n"
    with pytest.raises(ValueError):
        interrupts.guarded(raising(ValueError("bad")))
    assert interrupts.guarded(lambda: 7) == 7


def test_an_error_after_a_signal_is_the_signals(capsys):
    """A cancelled future or a closed connection, raised after SIGTERM, reports SIGTERM."""

    def command():
        try:
            signal.raise_signal(signal.SIGTERM)
            time.sleep(1)  # the handler raises before this ends
        except interrupts.Terminated:
            pass
        raise ConnectionError("the scheduler closed")  # no interrupt in its chain

    assert interrupts.guarded(command) == 143
    assert capsys.readouterr().err == "simcore: terminated\n"


def test_main_restores_the_signal_handlers(fig2_path, capsys):
    before = [signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)]
    assert main(["validate", str(fig2_path)]) == 0
    assert [signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)] == before


INTERRUPTED_IN_EXEC = """
import signal, sys
from simcore import interrupts

def command():  # as when Ctrl-C lands while dataclasses builds a class at an import
    exec("import signal; signal.raise_signal(signal.SIGINT); sum(range(10))")

sys.exit(interrupts.guarded(command))
"""


def run_module(folder, name, source):
    """Run ``source`` as ``python -m name`` in ``folder``; return the finished process."""
    (folder / f"{name}.py").write_text(source)
    return subprocess.run(
        [sys.executable, "-m", name],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_python_m_exits_130_after_an_interrupt_inside_exec(tmp_path):
    """Not killed by SIGINT at exit (status -2), as CPython would after exec's interrupt."""
    done = run_module(tmp_path, "interrupted_in_exec", INTERRUPTED_IN_EXEC)
    assert (done.returncode, done.stderr) == (130, "simcore: interrupted\n")


SWALLOWED = """
import signal, sys
from simcore import interrupts

def command():  # a library catches the interrupt and goes on; exec leaves CPython's flag set
    try:
        exec("import signal; signal.raise_signal(signal.SIGINT); sum(range(10))")
    except KeyboardInterrupt:
        pass
    print("result")
    return 0

sys.exit(interrupts.guarded(command))
"""


def test_a_swallowed_interrupt_still_exits_130_with_its_line(tmp_path):
    """Not 0 with the interrupt lost, nor killed by SIGINT at exit (-2) with no word."""
    done = run_module(tmp_path, "swallowed", SWALLOWED)
    assert (done.returncode, done.stderr) == (130, "simcore: interrupted\n")
