"""Stores of many tiny cells: how soon a run writes, how fast it goes, how many files it makes.

Each case runs ``simcore run`` on a sweep of tiny cells (20 items, 3 humans, 4 trials) in a
fresh process and reports: the seconds until the first chunk of cells is on disk, the wall
time and cells per second of the whole run, its peak resident memory, the files and bytes
of the finished store, and the seconds of ``simcore verify`` (every cell's checks) and of
extending the store by one trial per cell (every cell reads its stored rows and adds the
new trial). Writes the ``store_scale`` section of ``benchmarks/results.json``.

Usage: ``python store_scale.py [LARGEST]``; the default runs 2,000, 100,000 and 1,000,000
cells (the last takes a quarter of an hour on two cores).
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from memory import MEASURE

from results import save_section

SHAPES = {2_000: (40, 50), 100_000: (200, 500), 1_000_000: (1000, 1000)}


def scenario(p_count, rho_count, trials=4):
    """A sweep of ``p_count x rho_count`` tiny cells."""
    return {
        "name": f"tiny{p_count * rho_count}",
        "model": {"n_items": 20, "n_humans": 3},
        "design": {"kind": "bernoulli"},
        "trials": trials,
        "seed": 7,
        "sweep": {
            "p_judge": [round(0.55 + 0.44 * k / p_count, 6) for k in range(p_count)],
            "rho": [round(0.05 + 0.9 * k / rho_count, 6) for k in range(rho_count)],
        },
    }


def first_chunk(store):
    """Whether a chunk of ``cell_complete`` is on disk (a block of cells written)."""
    folder = store / "cell_complete"
    return folder.is_dir() and any(name[0].isdigit() for name in os.listdir(folder))


def timed_run(path, out, extra=()):
    """Run ``simcore run`` in a fresh process; return (wall s, first chunk s, peak MiB)."""
    command = [sys.executable, "-c", MEASURE, "run", str(path), "--out", str(out), "--quiet"]
    start = time.perf_counter()
    process = subprocess.Popen([*command, *extra], stdout=subprocess.PIPE, text=True)
    first = None
    while process.poll() is None:
        if first is None and first_chunk(out):
            first = time.perf_counter() - start
        time.sleep(0.05)
    wall = time.perf_counter() - start
    stdout, _ = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"simcore run failed on {path} (exit {process.returncode})")
    return wall, first, int(stdout.strip().splitlines()[-1]) / 1024


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main():
    largest = int(sys.argv[1]) if len(sys.argv) > 1 else max(SHAPES)
    results = {}
    for cells, (p_count, rho_count) in SHAPES.items():
        if cells > largest:
            continue
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "case.yaml"
            path.write_text(yaml.safe_dump(scenario(p_count, rho_count)))
            out = Path(folder) / "case.zarr"
            wall, first, peak = timed_run(path, out)
            files = [item for item in out.rglob("*") if item.is_file()]
            verify = timed([sys.executable, "-m", "simcore", "verify", str(out)])
            extend, _, _ = timed_run(path, out, ["--trials", "5"])
            results[f"{cells} cells"] = {
                "cells": cells,
                "trials_per_cell": 4,
                "first_chunk_seconds": None if first is None else round(first, 1),
                "wall_seconds": round(wall, 1),
                "cells_per_second": round(cells / wall),
                "peak_rss_mib": round(peak, 1),
                "files": len(files),
                "bytes": sum(item.stat().st_size for item in files),
                "verify_seconds": round(verify, 1),
                "extend_one_trial_seconds": round(extend, 1),
            }
        row = results[f"{cells} cells"]
        print(
            f"{cells:>9,} cells: first chunk {row['first_chunk_seconds']} s, {wall:7.1f} s "
            f"({row['cells_per_second']:,} cells/s), peak {peak:6.0f} MiB, "
            f"{row['files']:,} files, {row['bytes'] / 1e6:.1f} MB, verify {verify:.1f} s, "
            f"extend {extend:.1f} s",
            flush=True,
        )
    save_section("store_scale", results)


if __name__ == "__main__":
    main()
