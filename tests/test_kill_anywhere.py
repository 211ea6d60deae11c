"""A run killed at any instant resumes to the uninterrupted cube, for every kind of study.

Each kind's run is killed with SIGKILL at instants spread over its whole duration: early,
among the cells, and once every cell is written (during finalisation, or just after it);
the same command then resumes, and the store must equal an uninterrupted run bit for bit.
The default run kills at two instants per kind; ``make test-slow`` at eight.
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr
import yaml
import zarr
from test_long_sweeps import scenario
from test_studies import SCENARIOS, SLOW

import simcore
from simcore.cli import main
from simcore.sweep.store import read_attrs
from simcore.testing import assert_cubes_identical


def cells_state(out):
    """``(cells complete, cells in all)`` of the store at ``out`` (0, 0 before it exists)."""
    try:
        complete = np.asarray(zarr.open_group(str(out), mode="r")["cell_complete"][...])
    except Exception:
        return 0, 0
    return int(complete.sum()), complete.size


def kill_at(command, out, instant, deadline=240):
    """Start ``command`` and SIGKILL it at ``instant``: a share of the cells, or "last"."""
    process = subprocess.Popen(command, start_new_session=True)
    stop = time.monotonic() + deadline
    while process.poll() is None and time.monotonic() < stop:
        done, total = cells_state(out)
        if total and (done == total if instant == "last" else done >= instant * total):
            break
        time.sleep(0.01)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def check_kills(kind, instants, tmp_path):
    raw = SCENARIOS[kind](SLOW[kind] // 4)
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    reference = simcore.run(raw)
    for number, instant in enumerate(instants):
        out = tmp_path / f"cube{number}.zarr"
        command = [sys.executable, "-m", "simcore", "run", str(path), "--out", str(out)]
        kill_at([*command, "--quiet"], out, instant)
        if instant != "last":  # it really was killed before the run finished
            assert not (read_attrs(out) or {}).get("complete"), instant
        assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0, instant
        assert_cubes_identical(xr.open_zarr(out), reference)
        assert not (tmp_path / f"cube{number}.zarr.lock").exists()


@pytest.mark.parametrize("kind", SCENARIOS)
def test_a_kill_among_the_cells_or_after_the_last_resumes(kind, tmp_path):
    check_kills(kind, [0.5, "last"], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", SCENARIOS)
def test_a_kill_at_any_instant_resumes(kind, tmp_path):
    check_kills(kind, [0.0, 0.1, 0.25, 0.4, 0.6, 0.75, 0.9, "last"], tmp_path)


def test_a_kill_among_many_blocks_of_tiny_cells_resumes_and_extends(tmp_path):
    p_judge = [round(0.55 + 0.004 * k, 6) for k in range(100)]
    rho = [round(0.05 + 0.015 * k, 6) for k in range(60)]
    raw = scenario(trials=3, p_judge=p_judge, rho=rho, n_items=20)  # 6,000 tiny cells: two chunks
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    out = tmp_path / "cube.zarr"
    command = [sys.executable, "-m", "simcore", "run", str(path), "--out", str(out), "--quiet"]
    kill_at(command, out, 0.3)
    done, total = cells_state(out)
    assert 0 < done < total and not read_attrs(out).get("complete")
    assert zarr.open_group(str(out), mode="r")["cell_ints"].nchunks > 1
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(raw))
    more = scenario(trials=5, p_judge=p_judge, rho=rho, n_items=20)
    assert main(["run", str(path), "--out", str(out), "--quiet", "--trials", "5"]) == 0
    assert_cubes_identical(xr.open_zarr(out), simcore.run(more))
