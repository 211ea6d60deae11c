"""Planning a sequential validation as a scenario kind (``kind: sequential``).

Per cell (judge accuracy ``p_judge``, level ``alpha``) and trial: a validation labelled in
rounds by the exact_m design of ``simcore plan`` (:mod:`simcore.sequential.rounds`), read
after every round by the sequential verdict and by the fixed-size point rule. The cube holds
when the sequential verdict settled, how often it settled wrongly, and the fixed rule's
wrong-decision rate at every ``m``; :mod:`simcore.studies.sequential.cells` derives the
expected and 90th-percentile items to settle and the fixed plan's ``m`` at the same error
rate, and :mod:`simcore.studies.sequential.report` prints and draws them.
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
from simcore.studies.protocol import CubeError, describe_sweep
from simcore.studies.scenario_names import scenario_name_problems
from simcore.studies.sequential import cells as sequential_cells
from simcore.studies.sequential import report as sequential_report

LARGEST_ITEMS = 100_000
"""The largest corpus a cell draws (one trial holds a few arrays of ``n x K``)."""

SCALARS = {
    "n_items": (
        500,
        {"kind": "int", "minimum": 2, "maximum": LARGEST_ITEMS, "description": "items, n"},
    ),
    "n_humans": (4, {"kind": "int", "minimum": 2, "maximum": 64, "description": "humans, K"}),
    "n_labels": (2, {"kind": "int", "minimum": 2, "maximum": 64, "description": "labels, L"}),
    "p_human": (0.85, {"kind": "probability", "description": "every human's accuracy"}),
    "round_size": (
        5,
        {"kind": "int", "minimum": 1, "description": "items each secondary labels per round"},
    ),
    "rounds": (
        100,
        {
            "kind": "int",
            "minimum": 1,
            "maximum": 10_000,
            "description": "rounds in the budget (round_size x rounds <= n_items)",
        },
    ),
    "epsilon": (
        0.05,
        {"kind": "float", "minimum": 0.0, "maximum": 0.99, "description": "tolerance"},
    ),
    "tau": (
        0.5,
        {
            "kind": "float",
            "exclusive_minimum": 0.0,
            "maximum": 1.0,
            "description": "share of comparisons that must favour the judge",
        },
    ),
    "trials": (
        1000,
        {"kind": "int", "minimum": 1, "maximum": MAX_TRIALS, "description": "trials per cell"},
    ),
    "seed": (0, {"kind": "int", "minimum": 0, "unbounded": True, "description": "root seed"}),
}
"""Top-level scalars of a sequential scenario: ``key -> (default, declaration)``."""

SWEEP_KEYS = {
    "p_judge": (
        {"kind": "probability", "description": "judge accuracies"},
        "accuracies in (0, 1]",
    ),
    "alpha": (
        {
            "kind": "float",
            "exclusive_minimum": 0.0,
            "maximum": 0.49,
            "description": "error rates: the sequential verdict's alpha and the fixed plan's "
            "target wrong-decision rate",
        },
        "error rates in (0, 0.49]",
    ),
}
"""The lists a sequential scenario's ``sweep`` holds (both required), in cube order."""

_TOP_KEYS = ("name", "description", "kind", *SCALARS, "sweep", "output")


@dataclass(frozen=True)
class SequentialScenario:
    """A validated ``kind: sequential`` scenario."""

    name: str
    description: str | None
    p_judge: tuple
    alpha: tuple
    n_items: int
    n_humans: int
    n_labels: int
    p_human: float
    round_size: int
    rounds: int
    epsilon: float
    tau: float
    trials: int
    seed: int
    output: OutputConfig
    source: str

    kind = "sequential"

    @property
    def sweep(self):
        """``(name, values)`` per cube dimension."""
        return (("p_judge", self.p_judge), ("alpha", self.alpha))

    @property
    def shape(self):
        """Number of values of each dimension."""
        return (len(self.p_judge), len(self.alpha))

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""
        scalars = {key: getattr(self, key) for key in SCALARS}
        return {
            "name": self.name,
            "description": self.description,
            "kind": "sequential",
            **scalars,
            "sweep": {"p_judge": list(self.p_judge), "alpha": list(self.alpha)},
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


def sequential_scenario_from_dict(raw, source):
    """Validate a ``kind: sequential`` scenario; every problem is reported at once.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Naming the file, the key and the bad value.
    """
    problems = unknown_keys(raw, _TOP_KEYS, "a sequential scenario", source)
    problems += scenario_name_problems(raw, source)
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict) or set(sweep) - set(SWEEP_KEYS):
        problems.append(
            f"{source}: sweep: a sequential scenario sweeps p_judge and alpha "
            f"(got {describe_value(sweep)})"
        )
        sweep = {}
    p_judge, alpha = (
        sweep_values(sweep, key, meta, problems, source, what)
        for key, (meta, what) in SWEEP_KEYS.items()
    )
    scalars = {}
    for key, (default, meta) in SCALARS.items():
        value, problem = convert_value(raw.get(key, default), meta)
        if problem:
            problems.append(f"{source}: {key}: {problem} (got {describe_value(raw.get(key))})")
        scalars[key] = value
    if not problems and scalars["round_size"] * scalars["rounds"] > scalars["n_items"]:
        problems.append(
            f"{source}: rounds: round_size x rounds must be at most n_items, the items a "
            f"secondary can label (got {scalars['round_size']} x {scalars['rounds']} > "
            f"{scalars['n_items']})"
        )
    output = parse_section(raw.get("output"), OutputConfig, "output", problems, source)
    if output.csv:
        problems.append(
            f"{source}: output.csv: a sequential scenario writes its table as Markdown "
            f"(output.table) only (got {describe_value(output.csv)})"
        )
    if problems:
        raise ScenarioError(problems)
    return SequentialScenario(
        name=raw.get("name") or Path(source).stem,
        description=raw.get("description"),
        p_judge=p_judge,
        alpha=alpha,
        output=output,
        source=source,
        **scalars,
    )


class SequentialStudy:
    """The sequential planning study: implements :class:`simcore.studies.protocol.Study`."""

    kind = "sequential"

    def parse(self, raw, source, base=None):
        """Validate a ``kind: sequential`` scenario (:func:`sequential_scenario_from_dict`)."""
        return sequential_scenario_from_dict(raw, source)

    def describe(self, scenario):
        """Return the cells, the sweep and the trials, for ``simcore validate``."""
        return describe_sweep(scenario.sweep, scenario.trials)

    def context(self, scenario):
        """Return None: a cell needs nothing but its coordinates."""
        return None

    def layout(self, scenario, context):
        """Return the cube's layout (:func:`sequential_cells.sequential_layout`)."""
        return sequential_cells.sequential_layout(scenario)

    def memory_need(self, scenario, context):
        """Return the bytes of one trial's arrays (:func:`sequential_cells.memory_need`)."""
        return sequential_cells.memory_need(scenario)

    def cells(self, scenario, context):
        """Return every ``(p_judge, alpha)`` cell."""
        return sequential_cells.sequential_cells(scenario)

    def run_cell(self, scenario, context, cell, start, stop):
        """Run trials ``range(start, stop)`` of one cell."""
        return sequential_cells.run_sequential_cell(scenario, cell, start, stop)

    def derive(self, scenario, context, cube):
        """Add the rates and items to settle (:func:`sequential_cells.derive_sequential`)."""
        return sequential_cells.derive_sequential(cube)

    def summary(self, cube):
        """Return the planning table (:func:`sequential_report.summary`)."""
        return sequential_report.summary(cube)

    def plot(self, cube, out, variable=None):
        """Draw items to settle against p_judge (:func:`sequential_report.plot_sequential`)."""
        if variable:
            raise CubeError("--variable: a sequential cube is drawn whole (no --variable)")
        sequential_report.plot_sequential(cube, out)

    def write_outputs(self, scenario, cube):
        """Write ``output.table`` (Markdown); return the paths written."""
        if not scenario.output.table:
            return []
        from simcore.output_files import write_text

        write_text(scenario.output.table, sequential_report.table_markdown(cube))
        return [scenario.output.table]

    def engines(self, scenario):
        """Return no engine: the trials run in NumPy."""
        return set()


STUDY = SequentialStudy()
