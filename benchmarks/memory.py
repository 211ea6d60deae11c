"""Peak memory of sweeps: it must not grow with the number of cells or of trials.

Each case runs ``simcore run`` in a fresh Python process and reports that process's peak
resident set size (its own ``ru_maxrss``; the default scheduler runs in-process). Writes the
``memory`` section
of ``benchmarks/results.json`` and prints a table.

Cases: a 1,000-cell sweep (p_judge x rho x epsilon, 10 values each, 50 trials per cell), a
10-cell sweep with the same number of trials in all (5,000 per cell) and a 10-cell sweep with
20 times as many (100,000 per cell, above the kernel's 65,536-trial block).
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from results import save_section

BASE = {"model": {"n_items": 200, "n_humans": 4}, "design": {"kind": "bernoulli"}, "seed": 1}
CASES = {
    "1000 cells x 50 trials": {
        "trials": 50,
        "sweep": {
            "p_judge": [round(0.6 + 0.035 * i, 3) for i in range(10)],
            "rho": [round(0.05 * (i + 1), 2) for i in range(10)],
            "epsilon": [round(0.01 * i, 2) for i in range(10)],
        },
    },
    "10 cells x 5000 trials": {
        "trials": 5000,
        "sweep": {"p_judge": [round(0.6 + 0.035 * i, 3) for i in range(10)]},
        "design": {"kind": "bernoulli", "rho": 0.1},
    },
    "10 cells x 100000 trials": {
        "trials": 100_000,
        "sweep": {"p_judge": [round(0.6 + 0.035 * i, 3) for i in range(10)]},
        "design": {"kind": "bernoulli", "rho": 0.1},
    },
}


MEASURE = (
    "import resource, sys\n"
    "from simcore.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    "sys.exit(status)\n"
)


def peak_memory(raw):
    """Run one scenario in a fresh process; return (its peak RSS in MiB, wall seconds)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.yaml"
        path.write_text(yaml.safe_dump(raw))
        start = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                MEASURE,
                "run",
                str(path),
                "--out",
                str(Path(folder) / "out.zarr"),
                "--quiet",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - start
    return int(done.stdout.strip().splitlines()[-1]) / 1024, elapsed


def main():
    results = {}
    for name, case in CASES.items():
        raw = {**BASE, **case}
        peak, elapsed = peak_memory(raw)
        cells = 1
        for values in raw["sweep"].values():
            cells *= len(values)
        results[name] = {
            "cells": cells,
            "trials_per_cell": raw["trials"],
            "peak_rss_mib": round(peak, 1),
            "wall_seconds": round(elapsed, 1),
        }
        print(f"{name:28s} peak RSS {peak:7.1f} MiB  ({elapsed:5.1f} s)", flush=True)
    save_section("memory", results)


if __name__ == "__main__":
    main()
