"""The synthetic study (``kind: synthetic``, the default): P's simulation of the rule.

Each cell is one point of the sweep over the generative model, the design and the rule
(:mod:`simcore.studies.synthetic.config`); its trials draw label tensors and masks with
the per-item or the counts engine and decide every judge by the rule against the dense or
the population reference (:mod:`simcore.studies.synthetic.cell`). The cube, its rates
and the planning table are in :mod:`simcore.studies.synthetic.cube` and
:mod:`simcore.studies.planning_table`; its tables and figures in
:mod:`simcore.studies.synthetic.report` and :mod:`simcore.studies.figures`.
"""

import itertools

import yaml

from simcore.studies import figures
from simcore.studies.protocol import CubeError, describe_sweep
from simcore.studies.synthetic import cube as synthetic_cube
from simcore.studies.synthetic import memory as synthetic_memory
from simcore.studies.synthetic import report as synthetic_report
from simcore.studies.synthetic.cell import run_cell
from simcore.studies.synthetic.scenario import scenario_from_dict

ENGINE_SCAN = 4096
"""Cells read to find which engines a sweep uses (a long sweep is not read whole for it)."""


class SyntheticStudy:
    """The synthetic study: implements :class:`simcore.studies.protocol.Study`."""

    kind = "synthetic"

    def parse(self, raw, source, base=None):
        """Validate a synthetic scenario (:func:`scenario_from_dict`)."""
        return scenario_from_dict(raw, source=source)

    def describe(self, scenario):
        """Return the cells, the sweep and the trials, for ``simcore validate``."""
        return describe_sweep(scenario.sweep, scenario.trials)

    def context(self, scenario):
        """Return None: a synthetic cell needs nothing but its own parameters."""
        return None

    def layout(self, scenario, context):
        """Return the synthetic cube's layout (:func:`synthetic_cube.layout`)."""
        return synthetic_cube.layout(scenario)

    def memory_need(self, scenario, context):
        """Return the largest cell's bytes and what to change (:mod:`synthetic_memory`)."""
        return synthetic_memory.memory_need(scenario)

    def cells(self, scenario, context):
        """Yield every resolved :class:`~simcore.studies.synthetic.config.Cell`, in C order."""
        return scenario.cells()

    def run_cell(self, scenario, context, cell, start, stop):
        """Run trials ``range(start, stop)`` of ``cell`` (:func:`run_cell`)."""
        _, counts = run_cell(cell, scenario.seed, stop, start=start)
        return synthetic_cube.cell_counts(counts, synthetic_cube.judge_count(scenario))

    def engines(self, scenario):
        """Return the kernels the first :data:`ENGINE_SCAN` cells run on (to compile)."""
        return {cell.kernel_variant for cell in itertools.islice(scenario.cells(), ENGINE_SCAN)}

    def derive(self, scenario, context, cube):
        """Add rates, agreement statistics and the planning table."""
        return synthetic_cube.derive(scenario, cube)

    def summary(self, cube):
        """Return the synthetic tables (:func:`synthetic_report.summary`)."""
        return synthetic_report.summary(cube)

    def plot(self, cube, out, variable=None):
        """Draw the cube as its scenario's ``plot`` block says (or ``variable`` alone)."""
        scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
        spec = scenario.get("plot") or {}
        if variable:
            spec = {**spec, "variables": [variable]}
        for name in spec.get("variables", []):
            if name not in cube:
                raise CubeError(f"--variable: the cube has no variable {name!r}")
        figures.plot_cube(cube, out, spec)  # written atomically, its folder created

    def write_outputs(self, scenario, cube):
        """Write a planning scenario's table (Markdown and CSV); return the paths written."""
        if scenario.planning is None:
            return []
        from simcore.studies.planning_table import write_plan_table

        paths = [path for path in (scenario.output.table, scenario.output.csv) if path]
        if paths:  # written atomically, their folders created
            write_plan_table(cube, scenario.output.table, scenario.output.csv)
        return paths


STUDY = SyntheticStudy()
