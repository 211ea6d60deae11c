"""Sphinx directives that render simcore's declarations, so the reference cannot drift.

- ``.. scenario-keys:: KIND`` renders :func:`simcore.studies.scenario_keys` for a scenario
  kind: every key with its meaning, kind of value, default and allowed values.
- ``.. cube-variables:: KIND`` runs a one-cell scenario of that kind in memory (a few
  trials) and renders the cube's dimensions, variables and dataset attributes with their
  ``long_name`` and ``units``: the cube a run writes, not a list kept beside it.
"""

import os

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TINY_SCENARIOS = {
    "synthetic": (
        "scenarios/fig2.yaml",
        {"sweep.p_judge": [0.85], "sweep.rho": [0.1]},
    ),
    "real": (
        "scenarios/real_wax.yaml",
        {"sweep.design": ["bernoulli"], "sweep.coverage": [0.1]},
    ),
    "coverage": (
        "scenarios/coverage.yaml",
        {"sweep.n_cal": [50], "sweep.theta": [0.1], "sweep.n_production": [500]},
    ),
    "sequential": (
        "scenarios/sequential.yaml",
        {"sweep.p_judge": [0.9], "sweep.alpha": [0.05]},
    ),
    "coverage-latent": (
        "scenarios/coverage_latent.yaml",
        {
            "sweep.n_humans": [3],
            "sweep.p_human": [0.85],
            "sweep.errors": ["shared"],
            "sweep.n_labels": [2],
            "sweep.n_cal": [50],
            "boot": 20,
        },
    ),
}
"""The one-cell run each ``cube-variables`` table is read from: a shipped scenario, narrowed."""


def _cell(text):
    """Return a value as one Markdown table cell: one line, ``|`` escaped, code in backticks."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return f"`{text}`" if _looks_like_code(text) else text


def _looks_like_code(text):
    return text.startswith(("[", "{", "'")) or text in ("null", "true", "false", "required")


def _table(header, rows):
    """Return a Markdown pipe table (the directive's content is parsed as MyST)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


class _Table(Directive):
    """A directive whose content is the Markdown table :meth:`lines` returns.

    Its tables carry the HTML classes ``declared-table`` and the subclass's
    :attr:`css_class`, which ``docs/_static/simcore.css`` lays out (column widths, wrapped
    code) so the table fits the page's column.
    """

    required_arguments = 1
    css_class = "declared-table"

    def run(self):
        container = nodes.container()
        self.state.nested_parse(StringList(self.lines(self.arguments[0])), 0, container)
        for table in container.findall(nodes.table):
            table["classes"].extend(["declared-table", self.css_class])
        return container.children


class ScenarioKeys(_Table):
    """``.. scenario-keys:: KIND``: every key of a scenario of ``KIND``.

    The meaning stands next to the key, before the kind, default and allowed values, so a
    reader finds what a key does without scrolling sideways.
    """

    css_class = "scenario-keys"

    def lines(self, kind):
        """Return the table's Markdown lines."""
        from simcore.studies import scenario_keys

        rows = [
            (f"`{k.key}`", _cell(k.meaning), k.kind, _cell(k.default), _cell(k.values))
            for k in scenario_keys(kind)
        ]
        return _table(("key", "meaning", "kind", "default", "values"), rows)


class CubeVariables(_Table):
    """``.. cube-variables:: KIND``: the dims, variables and attrs of a ``KIND`` cube."""

    css_class = "cube-variables"

    def lines(self, kind):
        """Run the one-cell scenario and return its tables' Markdown lines."""
        import simcore

        path, sets = TINY_SCENARIOS[kind]
        cube = simcore.run(os.path.join(REPOSITORY, path), trials=4, sets=sets)
        rows = []
        for name in (*cube.coords, *sorted(cube.data_vars)):
            variable = cube[name]
            what = variable.attrs.get("long_name", "")
            note = variable.attrs.get("description", "")
            rows.append(
                (
                    f"`{name}`",
                    "coordinate" if name in cube.coords else str(variable.dtype),
                    ", ".join(variable.dims),
                    _cell(f"{what}; {note}" if note else what),
                    _cell(variable.attrs.get("units", "")),
                )
            )
        table = _table(("name", "type", "dims", "meaning", "units"), rows)
        attrs = ", ".join(f"`{key}`" for key in sorted(cube.attrs))
        return [*table, "", f"Dataset attributes: {attrs}."]


def setup(app):
    """Register the directives."""
    app.add_directive("scenario-keys", ScenarioKeys)
    app.add_directive("cube-variables", CubeVariables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
