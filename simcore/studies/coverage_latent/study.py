"""The latent-truth coverage study as a scenario kind (``kind: coverage-latent``).

Per cell (humans ``n_humans`` of accuracy ``p_human``, their errors independent or shared,
a scale of ``n_labels`` labels, ``n_cal`` calibration items) and trial: a synthetic
calibration panel whose truth is known and a production stream
(:mod:`simcore.calibration.latent.synthetic`); the judge's error measured against the
humans' majority (the gold column) and against the latent truth fitted by EM
(:mod:`simcore.calibration.latent`), and whether the production rate corrected through each
covers the stream's true rate. The cube holds the errors' sums and the coverage counts
(:mod:`simcore.studies.coverage_latent.cells`), from which the bias with its SE and the
coverage are derived; :mod:`simcore.studies.coverage_latent.report` prints and draws them.
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
from simcore.studies.coverage_latent import cells as latent_cells
from simcore.studies.coverage_latent import report as latent_report
from simcore.studies.protocol import CubeError, describe_sweep
from simcore.studies.scenario_names import scenario_name_problems

KIND = "coverage-latent"
"""The ``kind:`` value of this study's scenario files."""

LARGEST_ITEMS = 100_000
"""The largest calibration panel or production stream a trial draws."""

SCALARS = {
    "p_judge": (0.85, {"kind": "probability", "description": "the judge's accuracy"}),
    "production": (
        2000,
        {
            "kind": "int",
            "minimum": 1,
            "maximum": LARGEST_ITEMS,
            "description": "production items per trial",
        },
    ),
    "shared_rho": (
        0.5,
        {
            "kind": "float",
            "minimum": 0.0,
            "maximum": 1.0,
            "description": "rho where errors is shared: the share of an error's propensity that is "
            "the item's difficulty",
        },
    ),
    "boot": (
        200,
        {
            "kind": "int",
            "minimum": 10,
            "maximum": 100_000,
            "description": "bootstrap refits of the latent fit (and majority resamples) per trial",
        },
    ),
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
            "description": "below this Youden index (two labels) or separation (five) the "
            "production rate is not corrected",
        },
    ),
    "trials": (
        100,
        {"kind": "int", "minimum": 1, "maximum": MAX_TRIALS, "description": "trials per cell"},
    ),
    "seed": (0, {"kind": "int", "minimum": 0, "unbounded": True, "description": "root seed"}),
}
"""Top-level scalars of a coverage-latent scenario: ``key -> (default, declaration)``."""

SWEEP_KEYS = {
    "n_humans": (
        {"kind": "int", "minimum": 2, "maximum": 64, "description": "humans per calibration item"},
        "counts in [2, 64]",
    ),
    "p_human": (
        {"kind": "probability", "description": "every human's accuracy"},
        "accuracies in (0, 1]",
    ),
    "errors": (
        {
            "kind": "str",
            "choices": (latent_cells.INDEPENDENT, latent_cells.SHARED),
            "description": "the raters' errors: independent (rho 0) or shared through the "
            "item's difficulty (rho = shared_rho)",
        },
        f"{latent_cells.INDEPENDENT} or {latent_cells.SHARED}",
    ),
    "n_labels": (
        {
            "kind": "int",
            "choices": tuple(latent_cells.PREVALENCE),
            "minimum": min(latent_cells.PREVALENCE),
            "maximum": max(latent_cells.PREVALENCE),
            "description": "labels of the scale: 2 (FAIL/PASS, prevalence 0.3/0.7) or 5 "
            "(prevalence 0.1, 0.15, 0.25, 0.3, 0.2)",
        },
        "label counts, 2 or 5",
    ),
    "n_cal": (
        {
            "kind": "int",
            "minimum": 10,
            "maximum": LARGEST_ITEMS,
            "description": "calibration items per trial",
        },
        f"sizes in [10, {LARGEST_ITEMS}]",
    ),
}
"""The lists a coverage-latent scenario's ``sweep`` holds (all required), in cube order."""

_TOP_KEYS = ("name", "description", "kind", *SCALARS, "sweep", "output")


@dataclass(frozen=True)
class CoverageLatentScenario:
    """A validated ``kind: coverage-latent`` scenario."""

    name: str
    description: str | None
    n_humans: tuple
    p_human: tuple
    errors: tuple
    n_labels: tuple
    n_cal: tuple
    p_judge: float
    production: int
    shared_rho: float
    boot: int
    confidence: float
    youden_floor: float
    trials: int
    seed: int
    output: OutputConfig
    source: str

    kind = KIND

    @property
    def sweep(self):
        """``(name, values)`` per cube dimension."""
        return tuple((key, getattr(self, key)) for key in SWEEP_KEYS)

    @property
    def shape(self):
        """Number of values of each dimension."""
        return tuple(len(values) for _, values in self.sweep)

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""
        scalars = {key: getattr(self, key) for key in SCALARS}
        return {
            "name": self.name,
            "description": self.description,
            "kind": KIND,
            **scalars,
            "sweep": {key: list(values) for key, values in self.sweep},
            "output": dataclasses.asdict(self.output),
        }

    def to_yaml(self):
        """Return the effective configuration as YAML text."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def content_hash(self):
        """SHA-256 of everything that decides the numbers, trial count excluded."""
        data = self.to_dict()
        for key in ("name", "description", "output", "trials"):
            data.pop(key)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def latent_scenario_from_dict(raw, source):
    """Validate a ``kind: coverage-latent`` scenario; every problem is reported at once.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Naming the file, the key and the bad value.
    """
    problems = unknown_keys(raw, _TOP_KEYS, "a coverage-latent scenario", source)
    problems += scenario_name_problems(raw, source)
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict) or set(sweep) - set(SWEEP_KEYS):
        problems.append(
            f"{source}: sweep: a coverage-latent scenario sweeps {', '.join(SWEEP_KEYS)} "
            f"(got {describe_value(sweep)})"
        )
        sweep = {}
    swept = {
        key: sweep_values(sweep, key, meta, problems, source, what)
        for key, (meta, what) in SWEEP_KEYS.items()
    }
    for value in swept["n_labels"]:
        if value not in latent_cells.PREVALENCE:
            problems.append(
                f"{source}: sweep.n_labels: the prevalences are declared for 2 and 5 labels "
                f"(got {describe_value(value)})"
            )
    scalars = {}
    for key, (default, meta) in SCALARS.items():
        value, problem = convert_value(raw.get(key, default), meta)
        if problem:
            problems.append(f"{source}: {key}: {problem} (got {describe_value(raw.get(key))})")
        scalars[key] = value
    output = parse_section(raw.get("output"), OutputConfig, "output", problems, source)
    if output.csv:
        problems.append(
            f"{source}: output.csv: a coverage-latent scenario writes its table as Markdown "
            f"(output.table) only (got {describe_value(output.csv)})"
        )
    if problems:
        raise ScenarioError(problems)
    return CoverageLatentScenario(
        name=raw.get("name") or Path(source).stem,
        description=raw.get("description"),
        output=output,
        source=source,
        **swept,
        **scalars,
    )


class CoverageLatentStudy:
    """The latent-truth coverage study: implements :class:`simcore.studies.protocol.Study`."""

    kind = KIND

    def parse(self, raw, source, base=None):
        """Validate a ``kind: coverage-latent`` scenario (:func:`latent_scenario_from_dict`)."""
        return latent_scenario_from_dict(raw, source)

    def describe(self, scenario):
        """Return the cells, the sweep and the trials, for ``simcore validate``."""
        return describe_sweep(scenario.sweep, scenario.trials)

    def context(self, scenario):
        """Return None: a cell needs nothing but its coordinates."""
        return None

    def layout(self, scenario, context):
        """Return the cube's layout (:func:`latent_cells.latent_layout`)."""
        return latent_cells.latent_layout(scenario)

    def memory_need(self, scenario, context):
        """Return the bytes of one trial's refits (:func:`latent_cells.memory_need`)."""
        return latent_cells.memory_need(scenario)

    def cells(self, scenario, context):
        """Return every ``(n_humans, p_human, errors, n_labels, n_cal)`` cell."""
        return latent_cells.latent_cells(scenario)

    def run_cell(self, scenario, context, cell, start, stop):
        """Run trials ``range(start, stop)`` of one cell."""
        return latent_cells.run_latent_cell(scenario, cell, start, stop)

    def derive(self, scenario, context, cube):
        """Add the bias, coverage, refusal and width (:func:`latent_cells.derive_latent`)."""
        return latent_cells.derive_latent(cube)

    def summary(self, cube):
        """Return the coverage tables (:func:`latent_report.summary`)."""
        return latent_report.summary(cube)

    def plot(self, cube, out, variable=None):
        """Draw coverage against n_cal (:func:`latent_report.plot_latent`)."""
        if variable:
            raise CubeError("--variable: a coverage-latent cube is drawn whole (no --variable)")
        latent_report.plot_latent(cube, out)

    def write_outputs(self, scenario, cube):
        """Write ``output.table`` (Markdown); return the paths written."""
        if not scenario.output.table:
            return []
        from simcore.output_files import write_text

        write_text(scenario.output.table, latent_report.table_markdown(cube))
        return [scenario.output.table]

    def engines(self, scenario):
        """Return no engine: the trials run in NumPy."""
        return set()


STUDY = CoverageLatentStudy()
