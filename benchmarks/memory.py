"""Peak memory of sweeps: it must not grow with the number of cells or of trials.

Each case runs ``simcore run`` in a fresh Python process and reports that process's peak
resident set size (its own ``ru_maxrss``; the default scheduler runs in-process). Writes the
``memory`` section
of ``benchmarks/results.json`` and prints a table.

Cases: a 1,000-cell sweep (p_judge x rho x epsilon, 10 values each, 50 trials per cell), a
10-cell sweep with the same number of trials in all (5,000 per cell) and a 10-cell sweep with
20 times as many (100,000 per cell, above the kernel's 65,536-trial block).

Beside the sweeps, ``simcore inspect`` of a generated long CSV of about 50 MB (2.3 million
``item,rater,label`` rows in random order: 100,000 items, 100 raters, labels 0 and 1), its
peak resident set size given as a multiple of the file's size, with that of inspecting a
40-row file (starting Python and importing simcore) for comparison; the ``inspect_memory``
section. ``python memory.py --inspect`` measures that case alone.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
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


INSPECT_CASE = {"rows": 2_300_000, "items": 100_000, "raters": 100}
"""The long CSV inspected: about 50 MB."""


def write_random_long_csv(path, rows, items, raters, seed=1):
    """Write ``rows`` random ``item,rater,label`` rows (labels 0/1, no pair twice)."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(items * raters, size=rows, replace=False).tolist()
    labels = rng.integers(2, size=rows).tolist()
    with path.open("w", encoding="utf-8") as handle:
        handle.write("item,rater,label\n")
        for start in range(0, rows, 100_000):
            block = slice(start, start + 100_000)
            lines = [
                f"item{cell // raters:06d},rater{cell % raters:03d},{label}\n"
                for cell, label in zip(cells[block], labels[block], strict=True)
            ]
            handle.write("".join(lines))
    return path


def inspect_peak_memory(path):
    """Run ``simcore inspect path`` in a fresh process; return (peak RSS in MiB, wall s)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, "inspect", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout.strip().splitlines()[-1]) / 1024, time.perf_counter() - start


def inspect_case():
    """Measure inspect of the generated long CSV and of a 40-row one; return the section."""
    with tempfile.TemporaryDirectory() as folder:
        tiny = write_random_long_csv(Path(folder) / "tiny.csv", 40, 20, 4)
        startup, _ = inspect_peak_memory(tiny)
        path = write_random_long_csv(Path(folder) / "long.csv", **INSPECT_CASE)
        size = path.stat().st_size / 2**20
        peak, elapsed = inspect_peak_memory(path)
    result = {
        **INSPECT_CASE,
        "file_mib": round(size, 1),
        "peak_rss_mib": round(peak, 1),
        "peak_over_file": round(peak / size, 2),
        "tiny_file_peak_rss_mib": round(startup, 1),
        "wall_seconds": round(elapsed, 1),
    }
    print(
        f"inspect of a {size:.1f} MiB long CSV: peak RSS {peak:.1f} MiB = {peak / size:.2f} x "
        f"the file ({startup:.1f} MiB for a 40-row file), {elapsed:.1f} s",
        flush=True,
    )
    save_section("inspect_memory", result)


def main():
    inspect_case()
    if "--inspect" in sys.argv[1:]:
        return
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
