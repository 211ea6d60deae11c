"""Wall time and peak memory of inspect, a kind: real run and advise on every data shape.

Draws each matrix of :data:`simcore.realdata.shapes.SHAPES` into a temporary folder as a
long CSV, then runs ``simcore inspect``, ``simcore run`` of a ``kind: real`` scenario and
``simcore advise`` on it, each in its own process under a memory cap, and reports wall
time, peak resident memory and the exit status. Writes ``shapes.json`` beside this file.

Usage: ``python shapes.py [--shapes crowd,partial] [--cap-gb 8] [--timeout 900]``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from simcore.realdata.shapes import SHAPES, draw_matrix, write_long_csv

HERE = Path(__file__).resolve().parent
SIMCORE = [sys.executable, "-m", "simcore"]


def measured(command, cap_bytes, timeout):
    """Run ``command`` under an address-space cap; return wall s, peak MiB, status, tail."""
    wrapped = ["prlimit", f"--as={cap_bytes}", "/usr/bin/time", "-f", "%M"] + command
    started = time.perf_counter()
    try:
        done = subprocess.run(wrapped, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(seconds=timeout, peak_mib=None, status="timeout", tail="")
    seconds = time.perf_counter() - started
    lines = done.stderr.strip().splitlines()
    peak = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else None
    tail = " | ".join((lines[:-1] or [""])[-2:])[-300:]
    return dict(
        seconds=round(seconds, 1), peak_mib=peak and round(peak), status=done.returncode, tail=tail
    )


def scenario(csv_path, humans, judges, store):
    """A kind: real scenario over ``csv_path``: two designs, two coverages, 100 trials."""
    return dict(
        name="shape",
        kind="real",
        data=dict(format="csv", path=str(csv_path), humans=humans, judges=judges),
        rule=dict(kind="point", coefficient="observed", epsilon=0.05, tau=0.5),
        trials=100,
        seed=1,
        sweep=dict(design=["bernoulli", "strat"], coverage=[0.05, 0.25]),
        output=dict(store=str(store)),
    )


def measure_shape(name, folder, cap_bytes, timeout):
    """Measure the three commands on shape ``name``; return their results."""
    humans, judges = draw_matrix(**SHAPES[name], seed=7)
    data = write_long_csv(humans, judges, folder / f"{name}.csv")
    names = ["--humans", ",".join(humans), "--judges", ",".join(judges)]
    path = folder / f"{name}.yaml"
    path.write_text(
        yaml.safe_dump(scenario(data, list(humans), list(judges), folder / f"{name}.zarr"))
    )
    commands = {
        "inspect": ["inspect", str(data)] + names,
        "run": ["run", str(path), "--quiet", "--overwrite"],
        "advise": ["advise", str(data)]
        + names
        + ["--out", str(folder / f"{name}_advice"), "--quiet"],
    }
    return {
        command: measured(SIMCORE + arguments, cap_bytes, timeout)
        for command, arguments in commands.items()
    }


def main(argv=None):
    """Measure every requested shape and write ``shapes.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--cap-gb", type=float, default=8.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out", default=str(HERE / "shapes.json"))
    options = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in options.shapes.split(","):
            results[name] = measure_shape(
                name, Path(scratch), int(options.cap_gb * 2**30), options.timeout
            )
            for command, result in results[name].items():
                print(name, command, result, flush=True)
    Path(options.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")
    main()
