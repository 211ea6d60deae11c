import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"


@pytest.fixture
def fig2_path():
    return SCENARIOS / "fig2.yaml"


def start_dask_cluster(folder, n_workers=2):
    """Start a real scheduler and ``n_workers`` worker processes on 127.0.0.1.

    Returns ``(address, workers, processes)``: the scheduler's address, the worker
    processes, and every process to stop afterwards.
    """
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler_file = Path(folder) / "scheduler.json"
    scheduler = subprocess.Popen(
        [
            *dask,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--dashboard-address",
            "127.0.0.1:0",
            "--scheduler-file",
            str(scheduler_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not scheduler_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    address = yaml.safe_load(scheduler_file.read_text())["address"]
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                address,
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--dashboard-address",
                "127.0.0.1:0",
                "--no-nanny",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(n_workers)
    ]
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(n_workers, timeout=60)
    return address, workers, [*workers, scheduler]


def _stop(processes):
    for process in processes:
        process.kill()
        process.wait()


@pytest.fixture
def dask_cluster(tmp_path):
    """A real scheduler and two worker processes (the dask command line), for one test."""
    address, workers, processes = start_dask_cluster(tmp_path)
    yield address, workers
    _stop(processes)


@pytest.fixture(scope="module")
def shared_dask_cluster(tmp_path_factory):
    """A real scheduler and two worker processes shared by a module's tests."""
    address, _, processes = start_dask_cluster(tmp_path_factory.mktemp("dask"))
    yield address
    _stop(processes)
