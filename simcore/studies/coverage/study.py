"""The coverage study as a scenario kind (``kind: coverage``, docs/explanation/calibration.md).

Per cell (calibration size ``n_cal``, judge strength with its Se and Sp, true failure rate
``theta``, production size ``N``) and trial: draw a calibration sample and a production
stream, build the naive and the Lang-Reiczigel intervals for the corrected failure rate,
and record whether each covers the stream's true rate, its width, and whether the Youden
floor refused to correct (:func:`simcore.calibration.statistics.coverage_trials`).

Coverage and width are over the trials the floor let through: a refused trial reports the
observed (judge-flagged) rate, which estimates something else than ``theta``, so it is
counted in ``refusal`` instead. A cell's numbers depend only on the root seed, its
coordinates and the trial count (:mod:`simcore.studies.coverage.cells`); the table and
the figure are in :mod:`simcore.studies.coverage.report`.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from simcore.model.fields import describe_value
from simcore.studies.config import (
    MAX_TRIALS,
    OutputConfig,
    ScenarioError,
    convert_value,
    parse_section,
    sweep_values,
    unknown_keys,
)
from simcore.studies.coverage import cells as coverage_cells
from simcore.studies.coverage import report as coverage_report
from simcore.studies.protocol import CubeError, describe_sweep
from simcore.studies.scenario_names import scenario_name_problems

SWEPT = ("n_cal", "judge_strength", "theta", "n_production")
"""The cube's dimensions, in order."""

SCALARS = {
    "confidence": (
        0.95,
        {
            "kind": "float",
            "exclusive_minimum": 0.0,
            "maximum": 0.9999,
            "description": "two-sided confidence of every interval",
        },
    ),
    "youden_floor": (
        0.15,
        {
            "kind": "float",
            "minimum": -1.0,
            "maximum": 1.0,
            "description": "below this Youden index Se + Sp - 1 the rate is left uncorrected",
        },
    ),
    "trials": (
        2000,
        {"kind": "int", "minimum": 1, "maximum": MAX_TRIALS, "description": "trials per cell"},
    ),
    "seed": (0, {"kind": "int", "minimum": 0, "unbounded": True, "description": "root seed"}),
}
"""Top-level scalars of a coverage scenario: ``key -> (default, declaration)``."""

LARGEST_SIZE = 10**7
"""The largest ``n_cal`` and ``n_production``: a cell's draws read a table of log-factorials
up to the larger of the two (8 bytes each, 80 MB at this size, per worker)."""

SWEEP_KEYS = {
    "n_cal": (
        {
            "kind": "int",
            "minimum": 1,
            "maximum": LARGEST_SIZE,
            "description": "calibration sample sizes",
        },
        "sizes",
    ),
    "theta": (
        {"kind": "probability", "description": "true failure rates of the production stream"},
        "failure rates in (0, 1]",
    ),
    "n_production": (
        {
            "kind": "int",
            "minimum": 1,
            "maximum": LARGEST_SIZE,
            "description": "production stream sizes",
        },
        "sizes",
    ),
}
"""The lists a coverage scenario's ``sweep`` holds (all required): ``key -> (declaration,
what the list holds)``, in :data:`SWEPT` order (``judge_strength`` comes from ``judges``)."""

_TOP_KEYS = (
    "name",
    "description",
    "kind",
    "judges",
    "confidence",
    "youden_floor",
    "trials",
    "seed",
    "sweep",
    "output",
)


@dataclass(frozen=True)
class CoverageScenario:
    """A validated ``kind: coverage`` scenario."""

    name: str
    description: str | None
    judges: tuple  # ((name, se, sp), ...)
    n_cal: tuple
    theta: tuple
    n_production: tuple
    confidence: float
    youden_floor: float
    trials: int
    seed: int
    output: OutputConfig
    source: str

    kind = "coverage"

    @property
    def sweep(self):
        """``(name, values)`` per cube dimension, in :data:`SWEPT` order."""
        return (
            ("n_cal", self.n_cal),
            ("judge_strength", tuple(name for name, _, _ in self.judges)),
            ("theta", self.theta),
            ("n_production", self.n_production),
        )

    @property
    def shape(self):
        """Number of values of each dimension."""
        return tuple(len(values) for _, values in self.sweep)

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""
        return {
            "name": self.name,
            "description": self.description,
            "kind": "coverage",
            "judges": {name: {"se": se, "sp": sp} for name, se, sp in self.judges},
            "confidence": self.confidence,
            "youden_floor": self.youden_floor,
            "trials": self.trials,
            "seed": self.seed,
            "sweep": {
                "n_cal": list(self.n_cal),
                "theta": list(self.theta),
                "n_production": list(self.n_production),
            },
            "output": dataclasses.asdict(self.output),
        }

    def to_yaml(self):
        """Return the effective configuration as YAML text."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def content_hash(self):
        """SHA-256 of everything that decides the numbers, trial count excluded.

        Runs with different ``trials`` share a hash, so that a store can be extended.
        """
        data = self.to_dict()
        for key in ("name", "description", "output", "trials"):
            data.pop(key)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _parse_judges(raw_judges, problems, source):
    """Return ``((name, se, sp), ...)`` from the ``judges`` mapping; problems appended."""
    judges = []
    if not isinstance(raw_judges, dict) or not raw_judges:
        problems.append(
            f"{source}: judges: must map judge names to {{se, sp}} "
            f"(got {describe_value(raw_judges)})"
        )
        return ()
    for name, rates in raw_judges.items():
        if not isinstance(rates, dict) or set(rates) != {"se", "sp"}:
            problems.append(
                f"{source}: judges.{name}: must be {{se: ..., sp: ...}} "
                f"(got {describe_value(rates)})"
            )
            continue
        values = []
        for rate in ("se", "sp"):
            value, problem = convert_value(rates[rate], {"kind": "probability"})
            if problem:
                problems.append(
                    f"{source}: judges.{name}.{rate}: {problem} (got {describe_value(rates[rate])})"
                )
            values.append(value)
        judges.append((str(name), *values))
    return tuple(judges)


def coverage_scenario_from_dict(raw, source):
    """Validate a ``kind: coverage`` scenario; every problem is reported at once.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Naming the file, the key and the bad value.
    """
    problems = unknown_keys(raw, _TOP_KEYS, "a coverage scenario", source)
    problems += scenario_name_problems(raw, source)
    judges = _parse_judges(raw.get("judges"), problems, source)
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict) or set(sweep) - {"n_cal", "theta", "n_production"}:
        problems.append(
            f"{source}: sweep: a coverage scenario sweeps n_cal, theta and n_production "
            f"(got {describe_value(sweep)})"
        )
        sweep = {}
    n_cal, theta, n_production = (
        sweep_values(sweep, key, meta, problems, source, what)
        for key, (meta, what) in SWEEP_KEYS.items()
    )
    scalars = {}
    for key, (default, meta) in SCALARS.items():
        value, problem = convert_value(raw.get(key, default), meta)
        if problem:
            problems.append(f"{source}: {key}: {problem} (got {describe_value(raw.get(key))})")
        scalars[key] = value
    output = parse_section(raw.get("output"), OutputConfig, "output", problems, source)
    if problems:
        raise ScenarioError(problems)
    return CoverageScenario(
        name=raw.get("name") or Path(source).stem,
        description=raw.get("description"),
        judges=tuple(judges),
        n_cal=n_cal,
        theta=theta,
        n_production=n_production,
        output=output,
        source=source,
        **scalars,
    )


class CoverageStudy:
    """The coverage study: implements :class:`simcore.studies.protocol.Study`."""

    kind = "coverage"

    def parse(self, raw, source, base=None):
        """Validate a ``kind: coverage`` scenario (:func:`coverage_scenario_from_dict`)."""
        return coverage_scenario_from_dict(raw, source)

    def describe(self, scenario):
        """Return the cells, the sweep and the trials, for ``simcore validate``."""
        return describe_sweep(scenario.sweep, scenario.trials)

    def context(self, scenario):
        """Return None: a coverage cell needs nothing but its coordinates."""
        return None

    def layout(self, scenario, context):
        """Return the cube's layout (:func:`coverage_cells.coverage_layout`)."""
        return coverage_cells.coverage_layout(scenario)

    def memory_need(self, scenario, context):
        """Return the bytes of one block of trials (:func:`coverage_cells.memory_need`)."""
        return coverage_cells.memory_need(scenario)

    def cells(self, scenario, context):
        """Return every ``(n_cal, judge, theta, N)`` cell."""
        return coverage_cells.coverage_cells(scenario)

    def run_cell(self, scenario, context, cell, start, stop):
        """Draw and check trials ``range(start, stop)`` of one cell."""
        return coverage_cells.run_coverage_cell(scenario, cell, start, stop)

    def derive(self, scenario, context, cube):
        """Add coverage, width and refusal rates (:func:`coverage_cells.derive_coverage`)."""
        return coverage_cells.derive_coverage(cube)

    def summary(self, cube):
        """Return the coverage table (:func:`coverage_report.summary`)."""
        return coverage_report.summary(cube)

    def plot(self, cube, out, variable=None):
        """Draw coverage and width against n_cal (:func:`coverage_report.plot_coverage`)."""
        if variable:
            raise CubeError("--variable: a coverage cube is drawn whole (no --variable)")
        coverage_report.plot_coverage(cube, out)

    def write_outputs(self, scenario, cube):
        """Write nothing further."""
        return []


STUDY = CoverageStudy()
