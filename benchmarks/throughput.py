"""Throughput of simcore's engine against the plain NumPy baseline, measured in one run.

For n in {500, 2000, 8000}, K in {4, 10} and the bernoulli and exact_m designs (p_judge
0.85, rho 0.05 or m = 0.05 n, dense reference), trials per second of the baseline
(``benchmarks/baseline.py``, one thread) and of simcore's two engines (``items``: every item
drawn; ``counts``: category counts drawn) on 1 and 2 numba threads:
medians of 5 repetitions after a warm-up (compilation excluded; it is measured apart, with a
cold and a warm numba cache). Also times ``simcore run`` of Figure 2 and of the planning
table end to end. Writes the ``throughput`` section of ``benchmarks/results.json``.

The machine is shared and noisy: compare the ratios, not the absolute rates.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
from baseline import wrong_decisions

import simcore
from results import save_section
from simcore.studies.synthetic_cell import simulate_cell
from simcore.studies.synthetic_scenario import scenario_from_dict

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REPEATS = 5
ENGINES = ("items", "counts")


def timed(function, repeats=REPEATS):
    """Median seconds of ``repeats`` calls after one warm-up call."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def baseline_rate(n_items, n_humans, design):
    """Trials per second of the NumPy baseline (batches small enough to stay in memory)."""
    batch = max(1, int(2_000_000 // (n_items * n_humans * n_humans)))
    trials = max(batch, 4 * batch)
    rng = np.random.default_rng(0)
    m = int(0.05 * n_items)

    def run():
        for _ in range(trials // batch):
            wrong_decisions(rng, batch, n_items, n_humans, 0.85, 0.85, design, 0.05, m)

    return trials / timed(run)


def engine_rate(n_items, n_humans, design, threads, engine):
    """Trials per second of one simcore engine for one cell on ``threads`` numba threads."""
    raw = {
        "model": {"n_items": n_items, "n_humans": n_humans, "p_judge": 0.85},
        "design": {"kind": design, "rho": 0.05},
        "engine": engine,
        "trials": 1,
        "seed": 0,
    }
    (cell,) = scenario_from_dict(raw).cells()
    work = n_items if engine == "items" else 500
    trials = max(2000, int(40_000_000 // (work * n_humans * n_humans)))
    numba.set_num_threads(threads)
    try:
        return trials / timed(lambda: simulate_cell(cell, 0, 0, trials))
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


COMPILE = (
    "import time\n"
    "start = time.perf_counter()\n"
    "from simcore.studies.synthetic_cell import simulate_cell\n"
    "from simcore.studies.synthetic_scenario import scenario_from_dict\n"
    "for engine in ('items', 'counts'):\n"
    "    raw = {'model': {'n_items': 100}, 'design': {'kind': 'bernoulli', 'rho': 0.1},"
    " 'trials': 1, 'seed': 0, 'engine': engine}\n"
    "    (cell,) = scenario_from_dict(raw).cells()\n"
    "    simulate_cell(cell, 0, 0, 10)\n"
    "print(time.perf_counter() - start)\n"
)


def compile_seconds():
    """First-call time of both engines (import + compile or cache load), cold and warm cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = [
            float(
                subprocess.run(
                    [sys.executable, "-c", COMPILE],
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
            )
            for _ in range(2)
        ]
    return {"cold_cache_seconds": round(runs[0], 1), "warm_cache_seconds": round(runs[1], 1)}


def end_to_end(name):
    """Wall seconds of ``simcore run scenarios/NAME.yaml`` into a fresh store."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "simcore",
                "run",
                str(REPO / "scenarios" / f"{name}.yaml"),
                "--out",
                str(Path(folder) / "out.zarr"),
                "--quiet",
            ],
            check=True,
            cwd=folder,  # tables a scenario writes land in the temporary folder
        )
        return round(time.perf_counter() - start, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 500 only, no end-to-end")
    args = parser.parse_args()
    sizes = [500] if args.quick else [500, 2000, 8000]
    rows = []
    header = f"{'n':>5} {'K':>3} {'design':>9} {'numpy/s':>8}"
    for engine in ENGINES:
        header += f" {engine + ' 1t/s':>12} {'x numpy':>7} {'2t/1t':>5}"
    print(header)
    for n_items in sizes:
        for n_humans in (4, 10):
            for design in ("bernoulli", "exact_m"):
                base = baseline_rate(n_items, n_humans, design)
                row = {
                    "n_items": n_items,
                    "n_humans": n_humans,
                    "design": design,
                    "numpy_trials_per_second": round(base),
                }
                line = f"{n_items:>5} {n_humans:>3} {design:>9} {base:>8.0f}"
                for engine in ENGINES:
                    one = engine_rate(n_items, n_humans, design, 1, engine)
                    two = engine_rate(n_items, n_humans, design, 2, engine)
                    row[engine] = {
                        "trials_per_second_1_thread": round(one),
                        "trials_per_second_2_threads": round(two),
                        "ratio_to_numpy_1_thread": round(one / base, 2),
                        "ratio_to_numpy_2_threads": round(two / base, 2),
                        "thread_scaling": round(two / one, 2),
                    }
                    line += f" {one:>12.0f} {one / base:>7.1f} {two / one:>5.2f}"
                rows.append(row)
                print(line, flush=True)
    growth = {}
    for engine in ENGINES:
        for n_humans in (4, 10):
            for design in ("bernoulli", "exact_m"):
                rate = {
                    row["n_items"]: row[engine]["trials_per_second_1_thread"]
                    for row in rows
                    if row["n_humans"] == n_humans and row["design"] == design
                }
                if 500 in rate and 8000 in rate:
                    key = f"{engine} K={n_humans} {design}"
                    growth[key] = round(rate[500] / rate[8000], 2)
    if growth:
        print(f"per-trial cost at n = 8000 / n = 500 (1 thread): {growth}")
    results = {
        "settings": rows,
        "cost_growth_500_to_8000": growth,
        "compile": compile_seconds(),
        "simcore_version": simcore.__version__,
        "numba_version": numba.__version__,
        "numpy_version": np.__version__,
    }
    print(f"first call: {results['compile']}")
    if not args.quick:
        results["end_to_end_seconds"] = {name: end_to_end(name) for name in ("fig2", "planning")}
        print(f"end to end (simcore run): {results['end_to_end_seconds']}")
    save_section("throughput", results)


if __name__ == "__main__":
    main()
