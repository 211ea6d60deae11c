"""The paper's real-data protocol (P §4.2) as a study kind (``kind: real``).

A ``kind: real`` scenario names an annotation matrix (``data``), a rule, and a sweep over
``design`` and ``coverage``. A cell is ``(group, design, coverage)`` (the group dim only
for matrices with several groups, e.g. SummEval's dimensions); each of its trials thins
the matrix (:mod:`simcore.realdata.thinning`) from a stream keyed by the root seed, the
cell's coordinates and the trial, decides every judge with the rule, and compares the
decision with the full-matrix decision (:mod:`simcore.studies.real.cells`). Judges are
classed by their full-matrix omega: pass (omega >= 0.6), reject (omega < 0.5), borderline
(otherwise). Per judge: false rejection (pass judges), false approval (reject judges) and
wrong decisions (all judges); per cell: top-1 and rank errors of the judges' ranking and
the human pool's agreement estimate against the full matrix.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr
import yaml

from simcore.model.decision_rule import Rule
from simcore.model.designs import DESIGNS
from simcore.model.fields import describe_value
from simcore.realdata.matrix import DataError, load_data
from simcore.realdata.strat_variants import DEFINITIONS, JUDGE_STRATIFIED
from simcore.realdata.thinning import REAL_DESIGNS
from simcore.studies.config import (
    MAX_TRIALS,
    OutputConfig,
    ScenarioError,
    convert_value,
    parse_section,
    unknown_keys,
)
from simcore.studies.real import alt_test as real_alt_test
from simcore.studies.real import cells as real_cells
from simcore.studies.real import judge_panels as real_judge_panels
from simcore.studies.real.forms import group_form
from simcore.studies.rule_section import rule_dict, weighting_problems
from simcore.studies.scenario_names import scenario_name_problems

DEFAULT_COVERAGES = (0.05, 0.10, 0.25, 0.50)
PUBLISHED = ("none", "paper")
"""What ``published`` may name: no published numbers, or the sparse-overlap paper's."""
_TOP_KEYS = (
    "name",
    "description",
    "kind",
    "data",
    "published",
    "rule",
    "trials",
    "seed",
    "sweep",
    "output",
)
SCALARS = {
    "trials": (
        300,
        {"kind": "int", "minimum": 1, "maximum": MAX_TRIALS, "description": "thinnings per cell"},
    ),
    "seed": (0, {"kind": "int", "minimum": 0, "unbounded": True, "description": "root seed"}),
    "published": (
        "none",
        {
            "kind": "str",
            "choices": PUBLISHED,
            "description": "published numbers the tables set beside this run's: none, or "
            "paper (the sparse-overlap paper's Table 3 means, measured on its WAX, CeBaB and "
            "SummEval matrices; only for a scenario that reads those matrices under the "
            "paper's rule; a --set of data or rule turns it off)",
        },
    ),
}
"""Top-level scalars of a real-data scenario: ``key -> (default, declaration)``."""
SWEEP_KEYS = {
    "design": (list(DESIGNS), "designs that thin the matrix (a list; default every design)"),
    "coverage": (list(DEFAULT_COVERAGES), "per-secondary coverages, shares in (0, 1] (a list)"),
}
"""What a real-data scenario's ``sweep`` holds: ``key -> (default, meaning)``."""


@dataclass(frozen=True)
class RealScenario:
    """A validated ``kind: real`` scenario."""

    name: str
    description: str | None
    data: dict
    rule: Rule
    output: OutputConfig
    trials: int
    seed: int
    designs: tuple
    coverages: tuple
    source: str
    published: str = "none"

    kind = "real"

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""
        return {
            "name": self.name,
            "description": self.description,
            "kind": "real",
            "data": self.data,
            "published": self.published,
            "rule": rule_dict(self.rule),
            "trials": self.trials,
            "seed": self.seed,
            "sweep": {"design": list(self.designs), "coverage": list(self.coverages)},
            "output": dataclasses.asdict(self.output),
        }

    def to_yaml(self):
        """Return the effective configuration as YAML text."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def content_hash(self):
        """SHA-256 of everything that decides the numbers, trial count excluded.

        Runs with different ``trials`` share a hash, so that a store can be extended;
        names, descriptions, outputs and the published numbers named are left out.
        """
        data = self.to_dict()
        for key in ("name", "description", "output", "trials", "published"):
            data.pop(key)
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def real_scenario_from_dict(raw, source, base=None):
    """Validate a ``kind: real`` scenario; every problem is reported at once.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Naming the file, the key and the bad value.
    """
    problems = unknown_keys(raw, _TOP_KEYS, "a real-data scenario", source)
    problems += scenario_name_problems(raw, source)
    rule = parse_section(raw.get("rule"), Rule, "rule", problems, source)
    output = parse_section(raw.get("output"), OutputConfig, "output", problems, source)
    scalars = {}
    for key, (default, meta) in SCALARS.items():
        value, problem = convert_value(raw.get(key, default), meta)
        if problem:
            problems.append(f"{source}: {key}: {problem} (got {describe_value(raw.get(key))})")
        scalars[key] = value
    designs, coverages = _parse_sweep(raw.get("sweep") or {}, problems, source)
    if rule.kind not in ("point", "alt_test"):
        problems.append(
            f"{source}: rule.kind: the real-data protocol runs the point rule or alt_test "
            f"(got {rule.kind!r})"
        )
    if rule.kind == "alt_test" and (rule.form not in ("auto", "raters") or rule.min_comparisons):
        problems.append(
            f"{source}: rule.form: belongs to the point rule; alt_test holds out every human "
            f"with rule.min_items_per_human items (got form {rule.form!r}, min_comparisons "
            f"{rule.min_comparisons})"
        )
    for key, text, value in weighting_problems(rule, synthetic=False):
        problems.append(f"{source}: {key}: {text} (got {value!r})")
    judged = sorted(set(designs) & set(JUDGE_STRATIFIED))
    if rule.kind == "alt_test" and judged:
        problems.append(
            f"{source}: sweep.design: {', '.join(judged)} thins per judge, which only the "
            "point rule runs (rule.kind: point)"
        )
    data = raw.get("data")
    if not isinstance(data, dict):
        problems.append(
            f"{source}: data: must be a mapping naming the matrix (got {describe_value(data)})"
        )
    if problems:
        raise ScenarioError(problems)
    name = raw.get("name") or Path(source).stem
    for key in ("path", "judges_path"):  # relative to the scenario file's folder
        value = data.get(key, "" if key == "path" else None)
        if base is not None and isinstance(value, str) and not Path(value).is_absolute():
            data = {**data, key: str((Path(base) / value).resolve())}
    return RealScenario(
        name=name,
        description=raw.get("description"),
        data=data,
        rule=rule,
        output=output,
        designs=tuple(designs),
        coverages=tuple(float(c) for c in coverages),
        source=source,
        **scalars,
    )


def _parse_sweep(sweep, problems, source):
    """Return the swept designs and coverages (defaults: every design, 5-50%)."""
    if not isinstance(sweep, dict) or set(sweep) - {"design", "coverage"}:
        problems.append(
            f"{source}: sweep: a real-data scenario sweeps design and coverage "
            f"only (got {describe_value(sweep)})"
        )
        return [], []
    designs = sweep.get("design", SWEEP_KEYS["design"][0])
    coverages = sweep.get("coverage", SWEEP_KEYS["coverage"][0])
    if not isinstance(designs, list) or not designs or any(d not in REAL_DESIGNS for d in designs):
        problems.append(
            f"{source}: sweep.design: must be a non-empty list of "
            f"{', '.join(REAL_DESIGNS)} (got {describe_value(designs)})"
        )
        designs = []
    if (
        not isinstance(coverages, list)
        or not coverages
        or any(convert_value(c, {"kind": "probability"})[1] for c in coverages)
    ):
        problems.append(
            f"{source}: sweep.coverage: must be a non-empty list of shares in "
            f"(0, 1] (got {describe_value(coverages)})"
        )
        coverages = []
    return designs, coverages


def load_matrix(scenario):
    """Load the scenario's matrix; data problems become scenario errors (exit status 2)."""
    try:
        return load_data(scenario.data)
    except DataError as error:
        raise ScenarioError([f"{scenario.source}: data: {p}" for p in error.problems]) from None


class RealStudy:
    """The real-data study: implements :class:`simcore.studies.protocol.Study`."""

    kind = "real"

    def parse(self, raw, source, base=None):
        """Validate a ``kind: real`` scenario (:func:`real_scenario_from_dict`)."""
        return real_scenario_from_dict(raw, source, base)

    def describe(self, scenario):
        """Load the matrix and summarise it with the sweep, for ``simcore validate``."""
        matrix = load_matrix(scenario)
        names = matrix.group_names
        forms = {
            group_form(scenario.rule, matrix.subset(name) if len(names) > 1 else matrix).text()
            for name in names
        }
        return (
            f"real data {matrix.source} ({matrix.n_items} items, {matrix.n_humans} humans, "
            f"{matrix.n_judges} judges), {len(scenario.designs)} designs x "
            f"{len(scenario.coverages)} coverages, {scenario.trials} trials per cell; "
            + "; ".join(sorted(forms))
        )

    def context(self, scenario):
        """Load the matrix and its full-matrix reference, once for every cell."""
        return real_cells.real_context(scenario, load_matrix(scenario))

    def layout(self, scenario, context):
        """Return the cube's layout (:func:`real_cells.real_layout`), each design defined."""
        layout = real_cells.real_layout(scenario, context)
        defined = "; ".join(f"{name}: {DEFINITIONS[name]}" for name in scenario.designs)
        return dataclasses.replace(layout, attrs={**layout.attrs, "design_definitions": defined})

    def memory_need(self, scenario, context):
        """Return the largest group's bytes and what to change (:func:`real_cells.memory_need`)."""
        return real_cells.memory_need(context)

    def cells(self, scenario, context):
        """Return every ``(group, design, coverage)`` cell."""
        return real_cells.real_cells(scenario, context)

    def run_cell(self, scenario, context, cell, start, stop):
        """Thin, decide and count trials ``range(start, stop)`` of one cell."""
        if cell.coords["design"] in JUDGE_STRATIFIED:
            return real_judge_panels.run_judge_cell(scenario, context, cell, start, stop)
        return real_cells.run_real_cell(scenario, context, cell, start, stop)

    def derive(self, scenario, context, cube):
        """Add the full-matrix reference, then the rates (:func:`real_cells.derive_real`)."""
        cube = real_cells.derive_real(real_cells.with_reference(cube, context))
        cube.attrs.update(dict(context.scale_attrs))  # descriptive: not part of resuming
        if scenario.rule.kind == "alt_test":
            cube = real_alt_test.derive_alt_test(cube)
        return cube

    def summary(self, cube):
        """Return the per-judge table (:func:`simcore.studies.real.tables.summary`)."""
        from simcore.studies.real.tables import summary

        return summary(cube)

    def plot(self, cube, out, variable=None):
        """Draw the pooled rates per design as bars (or ``variable`` alone)."""
        from simcore.studies.figures import plot_cube
        from simcore.studies.protocol import CubeError
        from simcore.studies.real.tables import RATES, pooled_cube

        pooled = pooled_cube(cube)
        spec = {"kind": "bars", "variables": list(RATES), "x": "design", "hue": "variable"}
        if variable:
            spec["variables"] = [variable]
        for name in spec["variables"]:
            if name not in pooled:
                raise CubeError(f"--variable: the cube has no variable {name!r}")
        plot_cube(pooled, out, spec)  # written atomically, its folder created

    def write_outputs(self, scenario, cube):
        """Write nothing further (``simcore tables`` writes the paper's tables)."""
        return []


STUDY = RealStudy()


def evaluate_group(scenario, matrix):
    """Run every design and coverage of ``scenario`` on one matrix, in this process.

    Returns
    -------
    xarray.Dataset
        Counts and sums with dims ``design``, ``coverage`` and ``judge``, the full-matrix
        reference per judge, and the rates.
    """
    context = real_cells.real_context(scenario, matrix)
    layout = STUDY.layout(scenario, context)
    data = {
        variable.name: (
            (*layout.dims, *variable.extra_dims),
            np.zeros((*layout.shape, *variable.shape), np.int64 if variable.integer else float),
        )
        for variable in layout.variables
    }
    coords = {dim: list(values) for dim, values, *_ in layout.sweep}
    cube = xr.Dataset(data, coords={**coords, **layout.coords})
    for cell in STUDY.cells(scenario, context):
        counts = STUDY.run_cell(scenario, context, cell, 0, scenario.trials)
        for name, value in counts.items():
            cube[name].values[cell.index] = value
    return STUDY.derive(scenario, context, cube)
