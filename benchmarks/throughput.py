"""Throughput of simcore's engine against the plain NumPy baseline, measured in one run.

For n in {500, 2000, 8000}, K in {4, 10} and the bernoulli and exact_m designs (p_human and
p_judge 0.85, rho 0.05 or m = 0.05 n, dense reference), trials per second of the baseline
(``benchmarks/baseline.py``: the lean vectorised NumPy rule, single-threaded by construction:
elementwise operations and row sums, no BLAS) and of simcore's engines (``items``: every
item drawn; ``counts``: category counts drawn; ``bitset``: labels and masks as bitsets) on 1
and 2 numba threads, with their ratios to the baseline: medians of 5 repetitions after a
warm-up (compilation excluded; it is measured apart, with a cold and a warm numba cache, per
kernel variant). Then the bitset engine against its targets (:data:`TARGETS`, beside the
research prototype measured in the same run when ``../shared/reference/bitset-prototype/`` is
present), its two-thread scaling and ``simcore.run``'s fixed cost per call. Also
times ``simcore --help`` (start-up) and ``make fig2`` and ``make planning`` end to end
(``simcore run`` then ``simcore plot``, warm numba cache). Writes the ``throughput`` section
of ``benchmarks/results.json``.

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
from simcore.studies.synthetic.cell import simulate_cell
from simcore.studies.synthetic.scenario import scenario_from_dict

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REPEATS = 5
ENGINES = ("items", "counts", "bitset")


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
    """Trials per second of the NumPy baseline, in batches of about 256k items per rater."""
    batch = max(16, 262_144 // n_items)
    rng = np.random.default_rng(0)
    m = int(0.05 * n_items)

    def one_batch():
        wrong_decisions(rng, batch, n_items, n_humans, 0.85, 0.85, design, 0.05, m)

    # Enough batches for about 0.3 s a repetition, judged from the warm-up batch.
    start = time.perf_counter()
    one_batch()
    n_batches = max(2, round(0.3 / max(time.perf_counter() - start, 1e-6)))

    def run():
        for _ in range(n_batches):
            one_batch()

    return n_batches * batch / timed(run)


def engine_rate(
    n_items, n_humans, design, threads, engine, n_labels=2, coefficient="observed", extra=None
):
    """Trials per second of one simcore engine for one cell on ``threads`` numba threads.

    ``extra`` ``{"model": {...}, "rule": {...}}`` adds keys to those sections.
    """
    extra = extra or {}
    model = {"n_items": n_items, "n_humans": n_humans, "n_labels": n_labels, "p_judge": 0.85}
    raw = {
        "model": {**model, **extra.get("model", {})},
        "design": {"kind": design, "rho": 0.05},
        "rule": {"coefficient": coefficient, **extra.get("rule", {})},
        "engine": engine,
        "trials": 1,
        "seed": 0,
    }
    (cell,) = scenario_from_dict(raw).cells()
    work = {"items": n_items, "counts": 500, "bitset": 20 + n_items / 64}[engine]
    trials = max(2000, int(40_000_000 // (work * n_humans * n_humans)))
    numba.set_num_threads(threads)
    try:
        return trials / timed(lambda: simulate_cell(cell, 0, 0, trials))
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


COMPILE = (
    "import json, sys, time\n"
    "start = time.perf_counter()\n"
    "from simcore.studies.synthetic.cell import simulate_cell\n"
    "from simcore.studies.synthetic.scenario import scenario_from_dict\n"
    "raw = json.loads(sys.argv[1])\n"
    "(cell,) = scenario_from_dict(raw).cells()\n"
    "assert cell.kernel_variant == sys.argv[2], cell.kernel_variant\n"
    "simulate_cell(cell, 0, 0, 10)\n"
    "print(time.perf_counter() - start)\n"
)

VARIANTS = {
    "bitset": {},
    "bitset:verdicts": {"rule": {"kind": "interval"}},
    "bitset:clusters": {"model": {"n_clusters": 4, "cluster_spread": 0.2}},
    "bitset:verdicts,clusters": {
        "rule": {"kind": "alt_test"},
        "model": {"n_clusters": 4, "cluster_spread": 0.2},
    },
    "counts": {"engine": "counts"},
    "counts:weighted": {
        "engine": "counts",
        "model": {"n_labels": 5},
        "rule": {"coefficient": "gwet_ac2", "weights": "linear"},
    },
    "items": {"engine": "items"},
    "items:weighted": {
        "engine": "items",
        "model": {"n_labels": 5},
        "rule": {"coefficient": "gwet_ac2", "weights": "linear"},
    },
}
"""A small cell for each compiled kernel variant (``simcore.engine.warm.COMPILE_SECONDS``)."""


def variant_cell(variant):
    """The scenario mapping of :data:`VARIANTS`' cell for ``variant``."""
    extra = VARIANTS[variant]
    return {
        "model": {"n_items": 100, **extra.get("model", {})},
        "design": {"kind": "bernoulli", "rho": 0.1},
        "rule": extra.get("rule", {}),
        "engine": extra.get("engine", "auto"),
        "trials": 1,
        "seed": 0,
    }


def compile_seconds(variants=tuple(VARIANTS)):
    """First-call time of each kernel variant alone (import + compile or cache load).

    Each variant runs in a fresh process on an empty numba cache (cold), then again on the
    cache it left (warm); the difference is about its compile time.
    """
    import json

    times = {}
    for variant in variants:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            command = [sys.executable, "-c", COMPILE, json.dumps(variant_cell(variant)), variant]
            runs = [
                float(
                    subprocess.run(
                        command, env=env, check=True, capture_output=True, text=True
                    ).stdout
                )
                for _ in range(2)
            ]
        times[variant] = {
            "cold_cache_seconds": round(runs[0], 1),
            "warm_cache_seconds": round(runs[1], 1),
        }
        print(f"compile {variant}: {times[variant]}", flush=True)
    return times


def simcore_command():
    """The ``simcore`` console script beside this Python, else ``python -m simcore``."""
    script = Path(sys.executable).parent / "simcore"
    return [str(script)] if script.exists() else [sys.executable, "-m", "simcore"]


def wall_seconds(commands, cwd, repeats):
    """Median wall seconds of running ``commands`` one after the other, ``repeats`` times."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for command in commands:
            subprocess.run(command, check=True, cwd=cwd, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def start_up_seconds(repeats=REPEATS):
    """Median wall seconds of ``simcore --help`` (import and parser, nothing run)."""
    return round(wall_seconds([[*simcore_command(), "--help"]], REPO, repeats), 2)


def end_to_end(name, repeats=REPEATS):
    """Median wall seconds of ``make NAME``'s work: ``simcore run`` then ``simcore plot``.

    Each repetition writes a fresh store (``--overwrite``); one untimed run first warms
    the numba cache and the file system.
    """
    with tempfile.TemporaryDirectory() as folder:
        store = str(Path(folder) / "out.zarr")
        run = [
            *simcore_command(),
            "run",
            str(REPO / "scenarios" / f"{name}.yaml"),
            "--out",
            store,
            "--overwrite",
            "--quiet",
        ]
        plot = [*simcore_command(), "plot", store, "--out", str(Path(folder) / "out.png")]
        # cwd: tables a scenario writes land in the temporary folder
        wall_seconds([run], folder, 1)
        return round(wall_seconds([run, plot], folder, repeats), 1)


def measure_setting(n_items, n_humans, design, engines):
    """Baseline and engine rates of one (n, K, design), with the ratios to the baseline."""
    base = baseline_rate(n_items, n_humans, design)
    row = {
        "n_items": n_items,
        "n_humans": n_humans,
        "design": design,
        "numpy_trials_per_second": round(base),
    }
    for engine in engines:
        one = engine_rate(n_items, n_humans, design, 1, engine)
        two = engine_rate(n_items, n_humans, design, 2, engine)
        row[engine] = {
            "trials_per_second_1_thread": round(one),
            "trials_per_second_2_threads": round(two),
            "ratio_to_numpy_1_thread": round(one / base, 2),
            "ratio_to_numpy_2_threads": round(two / base, 2),
            "thread_scaling": round(two / one, 2),
        }
    return row


def table_header(engines):
    """Markdown header of the throughput table."""
    columns = ["n", "K", "design", "NumPy trials/s"]
    for engine in engines:
        columns += [f"{engine} 1t", "x NumPy", f"{engine} 2t", "x NumPy"]
    return "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns)


def table_line(row, engines):
    """Markdown line of one measured setting."""
    cells = [row["n_items"], row["n_humans"], row["design"], row["numpy_trials_per_second"]]
    for engine in engines:
        rates = row[engine]
        cells += [
            rates["trials_per_second_1_thread"],
            rates["ratio_to_numpy_1_thread"],
            rates["trials_per_second_2_threads"],
            rates["ratio_to_numpy_2_threads"],
        ]
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def cost_growth(rows, engines):
    """Per-trial cost at n = 8000 over n = 500 (1 thread), per engine, K and design."""
    growth = {}
    for engine in engines:
        for n_humans in (4, 10):
            for design in ("bernoulli", "exact_m"):
                rate = {
                    row["n_items"]: row[engine]["trials_per_second_1_thread"]
                    for row in rows
                    if row["n_humans"] == n_humans and row["design"] == design
                }
                if 500 in rate and 8000 in rate:
                    growth[f"{engine} K={n_humans} {design}"] = round(rate[500] / rate[8000], 2)
    return growth


TARGETS = (
    # label, n, K, L, coefficient, design, target ratio (one thread, x NumPy)
    ("Figure 2 cell, n = 500", 500, 4, 2, "observed", "bernoulli", 45),
    ("Figure 2 cell, n = 2000", 2000, 4, 2, "observed", "bernoulli", 57),
    ("Figure 2 cell, n = 8000", 8000, 4, 2, "observed", "bernoulli", 130),
    ("K = 10, L = 5, kappa, exact_m, n = 500", 500, 10, 5, "cohen_kappa", "exact_m", 15),
)
"""The bitset engine's targets, one thread, against the baseline at the same n, K and design
(binary labels and observed agreement: the baseline does less work in the last row). The
Figure 2 targets are the research prototype's own ratios (its README)."""

PROTOTYPE = REPO.parent / "shared" / "reference" / "bitset-prototype"
"""The research prototype of the Figure 2 cell (numba), measured beside simcore when present."""


def prototype_rate(n_items, n_humans, threads=1):
    """Trials per second of the prototype's best engine for the Figure 2 cell, or None.

    Its ``bitset.run`` and ``hybrid.run`` (p_human = p_judge = 0.85, rho = 0.05, dense
    reference), the faster of the two as its README reports; None where the prototype is not
    beside the project or the cell is not one it runs (two labels, bernoulli masks).
    """
    if not PROTOTYPE.is_dir():
        return None
    if str(PROTOTYPE) not in sys.path:
        sys.path.insert(0, str(PROTOTYPE))
    import bitset as prototype_bitset
    import hybrid as prototype_hybrid

    trials = max(2000, int(40_000_000 // ((20 + n_items / 64) * n_humans * n_humans)))
    rates = []
    for engine in (prototype_bitset, prototype_hybrid):
        seeds = iter(range(1, 10**6))

        def one_run(engine=engine, seeds=seeds):
            engine.run(n=n_items, K=n_humans, trials=trials, seed=next(seeds), threads=threads)

        rates.append(trials / timed(one_run))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return max(rates)


def bitset_targets():
    """The bitset engine against its targets: ratios, the prototype's beside it, two threads."""
    rows = []
    for label, n_items, n_humans, n_labels, coefficient, design, target in TARGETS:
        base = baseline_rate(n_items, n_humans, design)
        one = engine_rate(n_items, n_humans, design, 1, "bitset", n_labels, coefficient)
        figure2 = n_labels == 2 and design == "bernoulli" and coefficient == "observed"
        proto = prototype_rate(n_items, n_humans) if figure2 else None
        row = {
            "setting": label,
            "numpy_trials_per_second": round(base),
            "bitset_trials_per_second": round(one),
            "ratio": round(one / base, 1),
            "target_ratio": target,
            "prototype_trials_per_second": None if proto is None else round(proto),
            "prototype_ratio": None if proto is None else round(proto / base, 1),
        }
        if proto:
            row["share_of_prototype"] = round(one / proto, 2)
        rows.append(row)
        print(
            f"| {label} | {round(base)} | {round(one)} | {row['ratio']} | {target} | "
            f"{row['prototype_trials_per_second'] or '-'} | {row['prototype_ratio'] or '-'} |",
            flush=True,
        )
    one = engine_rate(500, 4, "bernoulli", 1, "bitset")
    two = engine_rate(500, 4, "bernoulli", 2, "bitset")
    return {"rows": rows, "two_thread_scaling": round(two / one, 2)}


RULES_AND_CLUSTERS = (
    ("point rule", {}),
    ("alt_test", {"rule": {"kind": "alt_test"}}),
    ("interval verdict", {"rule": {"kind": "interval"}}),
    ("point rule, 10 clusters of spread 0.2", {"model": {"n_clusters": 10, "cluster_spread": 0.2}}),
    (
        "interval verdict, 10 clusters of spread 0.2",
        {"rule": {"kind": "interval"}, "model": {"n_clusters": 10, "cluster_spread": 0.2}},
    ),
)
"""The Figure 2 cell (n = 500, K = 4, bernoulli) under the other rules and with clusters."""


def rules_and_clusters():
    """The bitset engine against the items engine (the one that ran these cells before)."""
    rows = []
    for label, extra in RULES_AND_CLUSTERS:
        items = engine_rate(500, 4, "bernoulli", 1, "items", extra=extra)
        bitset = engine_rate(500, 4, "bernoulli", 1, "bitset", extra=extra)
        row = {
            "setting": label,
            "items_trials_per_second": round(items),
            "bitset_trials_per_second": round(bitset),
            "ratio": round(bitset / items, 1),
        }
        rows.append(row)
        print(
            f"| {label} | {row['items_trials_per_second']} | {row['bitset_trials_per_second']} "
            f"| {row['ratio']} |",
            flush=True,
        )
    return rows


WEIGHTED_SCORINGS = (
    ("krippendorff_alpha", {}),
    ("krippendorff_alpha (ordinal)", {"coefficient": "krippendorff_alpha", "level": "ordinal"}),
    ("cohen_kappa (quadratic)", {"coefficient": "cohen_kappa", "weights": "quadratic"}),
    ("observed (linear)", {"coefficient": "observed", "weights": "linear"}),
)
"""The rating-scale cell's scorings: nominal alpha, then three weighted coefficients."""


def weighted_coefficients():
    """A 1-5 cell (n = 500, K = 4, adjacent errors) by scoring: the weighted rule's cost.

    The weighted rule keeps each comparison's L x L table where the nominal rule keeps
    margins; the bitset engine runs the nominal cell, the items and counts engines both.
    """
    rows = []
    model = {"model": {"adjacent": 0.9}}
    for label, rule in WEIGHTED_SCORINGS:
        row = {"scoring": label}
        rule = {"coefficient": "krippendorff_alpha", **rule}
        for engine in ("items", "counts"):
            extra = {**model, "rule": rule}
            rate = engine_rate(500, 4, "bernoulli", 1, engine, n_labels=5, extra=extra)
            row[f"{engine}_trials_per_second"] = round(rate)
        rows.append(row)
        print(
            f"| {label} | {row['items_trials_per_second']} | {row['counts_trials_per_second']} |",
            flush=True,
        )
    return rows


def run_fixed_cost(repeats=REPEATS):
    """Median seconds of ``simcore.run`` on one cell of one trial (its cost per call)."""
    scenario = {"model": {"n_items": 100}, "design": {"kind": "bernoulli", "rho": 0.1}, "trials": 1}
    return timed(lambda: simcore.run(scenario), repeats)


def parse_arguments():
    """Which settings and extras to measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 500 only, no end-to-end")
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    parser.add_argument("--humans", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--designs", nargs="+", default=["bernoulli", "exact_m"])
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=ENGINES)
    parser.add_argument("--no-compile", action="store_true", help="skip the compile timing")
    parser.add_argument("--no-end-to-end", action="store_true", help="skip start-up and make")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.no_end_to_end = [500], True
    return args


def main():
    args = parse_arguments()
    rows = []
    print(table_header(args.engines), flush=True)
    for n_items in args.sizes:
        for n_humans in args.humans:
            for design in args.designs:
                rows.append(measure_setting(n_items, n_humans, design, args.engines))
                print(table_line(rows[-1], args.engines), flush=True)
    results = {
        "settings": rows,
        "cost_growth_500_to_8000": cost_growth(rows, args.engines),
        "simcore_version": simcore.__version__,
        "numba_version": numba.__version__,
        "numpy_version": np.__version__,
    }
    if results["cost_growth_500_to_8000"]:
        print(
            f"per-trial cost at n = 8000 / n = 500 (1 thread): {results['cost_growth_500_to_8000']}"
        )
    if not args.no_compile:
        results["compile"] = compile_seconds()
        print(f"first call: {results['compile']}")
    if not args.no_end_to_end:
        results["start_up_seconds"] = start_up_seconds()
        print(f"simcore --help: {results['start_up_seconds']} s", flush=True)
        results["end_to_end_seconds"] = {name: end_to_end(name) for name in ("fig2", "planning")}
        print(f"make fig2 / make planning (run + plot, warm): {results['end_to_end_seconds']}")
    print(
        "| setting | NumPy trials/s | bitset trials/s | x NumPy | target | prototype trials/s "
        "| prototype x |"
    )
    print("|---|---|---|---|---|---|---|")
    results["bitset_targets"] = bitset_targets()
    results["run_fixed_cost_seconds"] = round(run_fixed_cost(), 4)
    print(
        f"bitset two threads / one: {results['bitset_targets']['two_thread_scaling']}; "
        f"simcore.run fixed cost: {results['run_fixed_cost_seconds']} s"
    )
    print("| Figure 2 cell, n = 500, K = 4 | items trials/s | bitset trials/s | bitset / items |")
    print("|---|---|---|---|")
    results["rules_and_clusters"] = rules_and_clusters()
    print("| 1-5 scale cell, n = 500, K = 4 | items trials/s | counts trials/s |")
    print("|---|---|---|")
    results["weighted_coefficients"] = weighted_coefficients()
    save_section("throughput", results)


if __name__ == "__main__":
    main()
