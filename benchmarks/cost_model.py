"""Per-trial cost of every engine on every kind of cell, and what ``engine: auto`` picks.

For each cell of :func:`cells` (kinds of cell: the nominal point rule over n, K, L and
design; a weighted coefficient on a 1-5 scale; the interval verdict and the alternative
annotator test; clustered items), microseconds per trial of each engine that runs it
(:data:`simcore.engine.choice.REACH`) on one numba thread, medians of 3 repetitions after a
warm-up (p_human = p_judge = 0.85, rho 0.05 or m = 0.05 n, eps 0.05, every output, dense
reference), beside the engine ``auto`` takes. Prints a markdown table, writes the
``cost_model`` section of ``benchmarks/results.json`` and, with ``--record``, the table
the engine choice is tested against (``benchmarks/engine_costs.json``, kept in the
repository: ``tests/test_engine_choice.py`` checks that ``auto`` takes the fastest engine of
every row). The machine is shared and noisy: read the table as a cost model (how cost grows
with n, K, L), not as absolute times.
"""

import argparse
import json
import statistics
import time
from pathlib import Path

import numba

from results import save_section
from simcore.engine.choice import ENGINES, REACH
from simcore.studies.synthetic.cell import simulate_cell
from simcore.studies.synthetic.scenario import scenario_from_dict

REPEATS = 3
RECORD = Path(__file__).resolve().parent / "engine_costs.json"
"""The recorded table: one row per cell, the engines' microseconds per trial."""

KINDS = {
    "nominal": {},
    "weighted": {"rule": {"coefficient": "gwet_ac2", "weights": "linear"}},
    "interval": {"rule": {"kind": "interval"}},
    "alt_test": {"rule": {"kind": "alt_test"}},
    "clusters": {"model": {"n_clusters": 10, "cluster_spread": 0.2}},
}
"""Keys each kind of cell adds to the scenario's sections."""


def cells(sizes=(500, 2000, 8000), humans=(4, 10)):
    """The grid: ``(kind, n, K, L, design)`` of every cell measured."""
    grid = []
    for n_humans in humans:
        for n_labels in (2, 5):
            for design in ("bernoulli", "exact_m", "strat"):
                grid += [("nominal", n, n_humans, n_labels, design) for n in sizes]
        grid += [("weighted", n, n_humans, 5, "bernoulli") for n in sizes]
    for kind in ("interval", "alt_test", "clusters"):
        grid += [(kind, n, 4, 2, "bernoulli") for n in sizes]
    return grid


def scenario(kind, n_items, n_humans, n_labels, design, engine="auto"):
    """The scenario mapping of one cell with these settings, run by ``engine``."""
    extra = KINDS[kind]
    model = {"n_items": n_items, "n_humans": n_humans, "n_labels": n_labels}
    return {
        "model": {**model, **extra.get("model", {})},
        "design": {"kind": design, "rho": 0.05},
        "rule": extra.get("rule", {}),
        "engine": engine,
        "trials": 1,
        "seed": 0,
    }


def scenario_cell(raw):
    """The one cell of the scenario mapping ``raw``."""
    (cell,) = scenario_from_dict(raw).cells()
    return cell


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


def measure(kind, n_items, n_humans, n_labels, design):
    """One row: each engine's microseconds per trial (None where it cannot run the cell)."""
    raw = scenario(kind, n_items, n_humans, n_labels, design)
    row = {"kind": kind, "n_items": n_items, "n_humans": n_humans, "n_labels": n_labels}
    row["design"] = design
    auto = scenario_cell(raw)
    row["auto"] = auto.kernel_engine
    for engine in ENGINES:
        if REACH[engine](auto.engine_shape) is not None:
            row[engine] = None
            continue
        cell = scenario_cell({**raw, "engine": engine})
        row[engine] = round(microseconds_per_trial(cell), 2)
    row["scenario"] = raw
    return row


def table(rows):
    """Markdown table of the rows."""
    heads = " | ".join(f"{engine} us/trial" for engine in ENGINES)
    lines = [
        f"| cell | n | K | L | design | {heads} | auto picks |",
        "|---|---|---|---|---|" + "---|" * len(ENGINES) + "---|",
    ]
    for row in rows:
        costs = " | ".join("-" if row[e] is None else f"{row[e]:g}" for e in ENGINES)
        lines.append(
            f"| {row['kind']} | {row['n_items']} | {row['n_humans']} | {row['n_labels']} "
            f"| {row['design']} | {costs} | {row['auto']} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    parser.add_argument("--humans", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument(
        "--record", action="store_true", help=f"also write the table to {RECORD.name}"
    )
    args = parser.parse_args()
    numba.set_num_threads(1)
    rows = []
    for kind, *setting in cells(args.sizes, args.humans):
        if kind in args.kinds:
            rows.append(measure(kind, *setting))
            print(rows[-1], flush=True)
    print(table(rows))
    save_section("cost_model", {"rows": rows, "threads": 1})
    if args.record:
        record = {"engines": list(ENGINES), "threads": 1, "repeats": REPEATS, "rows": rows}
        RECORD.write_text(json.dumps(record, indent=1) + "\n")
        print(f"written: {RECORD}")


if __name__ == "__main__":
    main()
