"""Per-trial cost of both engines against n, K, L and design, and what ``engine: auto`` picks.

For every (n, K, L, design) of the grid below, microseconds per trial of the ``items`` engine
and, where it draws the cell exactly, the ``counts`` engine, on one numba thread (medians of
3 repetitions after a warm-up; p_human = p_judge = 0.85, rho 0.05 or m = 0.05 n, eps 0.05,
every output, dense reference), beside the engine ``auto`` takes
(:attr:`~simcore.studies.synthetic.config.Cell.kernel_engine`). Prints a markdown table and
writes the ``cost_model`` section of ``benchmarks/results.json``. The machine is shared and
noisy: read the table as a cost model (how cost grows with n, K, L), not as absolute times.
"""

import argparse
import statistics
import time

import numba

from results import save_section
from simcore.engine.choice import counts_reach
from simcore.studies.synthetic.cell import simulate_cell
from simcore.studies.synthetic.scenario import scenario_from_dict

REPEATS = 3
DESIGNS = ("bernoulli", "exact_m", "strat", "seq_refined")


def microseconds_per_trial(cell, seconds=0.25):
    """Median microseconds per trial of ``cell`` over ``REPEATS`` runs of about ``seconds``."""
    simulate_cell(cell, 0, 0, 20)  # compile or load, and warm up
    start = time.perf_counter()
    simulate_cell(cell, 0, 0, 200)
    trials = max(200, int(200 * seconds / max(time.perf_counter() - start, 1e-6)))
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        simulate_cell(cell, 0, 0, trials)
        times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times) / trials


def cell_for(n_items, n_humans, n_labels, design, engine):
    """The one cell of a scenario with these settings."""
    raw = {
        "model": {"n_items": n_items, "n_humans": n_humans, "n_labels": n_labels},
        "design": {"kind": design, "rho": 0.05},
        "engine": engine,
        "trials": 1,
        "seed": 0,
    }
    (cell,) = scenario_from_dict(raw).cells()
    return cell


def measure(n_items, n_humans, n_labels, design):
    """One row: per-trial cost of each engine that can run it, and auto's choice."""
    row = {"n_items": n_items, "n_humans": n_humans, "n_labels": n_labels, "design": design}
    auto = cell_for(n_items, n_humans, n_labels, design, "auto")
    row["auto"] = auto.kernel_engine
    for engine in ("items", "counts"):
        if engine == "counts" and counts_reach(auto.engine_shape) is not None:
            row[engine] = None
            continue
        row[engine] = round(
            microseconds_per_trial(cell_for(n_items, n_humans, n_labels, design, engine)), 1
        )
    return row


def table(rows):
    """Markdown table of the rows."""
    lines = [
        "| n | K | L | design | items us/trial | counts us/trial | auto picks |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        counts = "-" if row["counts"] is None else row["counts"]
        lines.append(
            f"| {row['n_items']} | {row['n_humans']} | {row['n_labels']} | {row['design']} "
            f"| {row['items']} | {counts} | {row['auto']} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    parser.add_argument("--humans", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--labels", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=DESIGNS)
    args = parser.parse_args()
    numba.set_num_threads(1)
    rows = []
    for n_humans in args.humans:
        for n_labels in args.labels:
            for design in args.designs:
                for n_items in args.sizes:
                    rows.append(measure(n_items, n_humans, n_labels, design))
                    print(rows[-1], flush=True)
    print(table(rows))
    save_section("cost_model", {"rows": rows, "threads": 1})


if __name__ == "__main__":
    main()
