"""Figures of a cube: heatmaps, curves and bars, as the scenario's ``plot`` block asks.

Every swept dim is placed: on the axes (``x``, and for a heatmap the other of two dims), in
the colours (``hue``: a dim, or ``variable`` when several variables are drawn), or in a
grid of panels, one per combination of the remaining dims' values. Rates are drawn in
percent with their standard errors; ``scale_by`` multiplies values by a dim's coordinate
(e.g. variance x m). A planning cube gets its own two-panel figure (:func:`plot_planning`).
Every figure's title states the trials per cell, and its file records the store's state
(:mod:`simcore.studies.figure_stamp`).
"""

import itertools
import textwrap
from dataclasses import dataclass

import numpy as np

from simcore.studies.figure_stamp import figure_metadata
from simcore.studies.synthetic.cube import RATE_ATTRS
from simcore.studies.synthetic.report import published_values


def _pyplot():
    """``matplotlib.pyplot`` on the Agg backend, imported when a figure is drawn.

    Not at module import: ``simcore run`` loads this study module but draws nothing, and
    matplotlib would add a few tenths of a second to every run's start-up.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _label(value):
    return f"{value:g}" if isinstance(value, float | np.floating) else str(value)


def _pretty(name):
    return name.replace("_", " ")


def _is_share(variable):
    return variable in RATE_ATTRS or variable.endswith(("_rate", "_error", "_population"))


def _values(panel, variable, spec):
    """Values (and standard errors, or None) of ``variable`` as the spec wants them shown."""
    data = panel[variable]
    se = panel[f"{variable}_se"] if f"{variable}_se" in panel else None
    factor = 100.0 if spec["percent"] and _is_share(variable) else 1.0
    if spec["scale_by"]:
        scale = panel[spec["scale_by"]]
        data = data * scale
        se = se * scale if se is not None else None
    return data * factor, (se * factor if se is not None else None)


def _axis_label(variable, spec):
    text = _pretty(variable)
    if spec["scale_by"]:
        text += f" x {spec['scale_by']}"
    if spec["percent"] and _is_share(variable):
        text += " (%)"
    return text


def _positions(panel, dim):
    values = panel[dim].values
    if values.dtype.kind in "OUS":
        return np.arange(len(values)), [_label(v) for v in values]
    return values.astype(float), None


def _heatmap(figure, axis, panel, variable, spec, published, top):
    rows, columns = panel[variable].dims
    if spec["x"] == rows:
        rows, columns = columns, rows
    data, se = _values(panel, variable, spec)
    values = data.transpose(rows, columns).values
    errors = se.transpose(rows, columns).values if se is not None else None
    image = axis.imshow(values, cmap="viridis", vmin=0, vmax=top, aspect="auto")
    for i, j in np.ndindex(values.shape):
        text = f"{values[i, j]:.1f}" if errors is None else f"{values[i, j]:.1f}±{errors[i, j]:.1f}"
        if published is not None:
            text += f"\n(paper {published[i, j]:g})"
        shade = "white" if not values[i, j] >= 0.6 * top else "black"
        axis.text(j, i, text, ha="center", va="center", fontsize=8, color=shade)
    axis.set_xticks(range(panel.sizes[columns]), [_label(v) for v in panel[columns].values])
    axis.set_yticks(range(panel.sizes[rows]), [_label(v) for v in panel[rows].values])
    axis.set_xlabel(columns)
    axis.set_ylabel(rows)
    figure.colorbar(image, ax=axis, label=_axis_label(variable, spec))


def _series(panel, variables, hue):
    """``(label, variable, selection)`` for each line or bar group."""
    if hue == "variable" or (hue is None and len(variables) > 1):
        return [(_pretty(v), v, {}) for v in variables]
    if hue is None:
        return [(None, variables[0], {})]
    return [
        (f"{hue}={_label(value)}", variables[0], {hue: i})
        for i, value in enumerate(panel[hue].values)
    ]


def _lines(axis, panel, variables, spec, x):
    positions, ticks = _positions(panel, x)
    for label, variable, selection in _series(panel, variables, spec["hue"]):
        data, se = _values(panel.isel(selection), variable, spec)
        axis.errorbar(
            positions,
            data.values,
            yerr=None if se is None else se.values,
            marker="o",
            capsize=3,
            label=label,
        )
    if ticks:
        axis.set_xticks(positions, ticks)
    if spec["log_x"]:
        axis.set_xscale("log")
    axis.set_xlabel(x)
    shares = spec["percent"] and all(_is_share(name) for name in variables)
    axis.set_ylabel(
        _axis_label(variables[0], spec)
        if len(variables) == 1
        else "value (%)"
        if shares
        else "value"
    )
    axis.grid(alpha=0.3)


def _bars(axis, panel, variables, spec, x):
    series = _series(panel, variables, spec["hue"])
    labels = [_label(v) for v in panel[x].values]
    width = 0.8 / len(series)
    for number, (label, variable, selection) in enumerate(series):
        data, se = _values(panel.isel(selection), variable, spec)
        offsets = np.arange(len(labels)) - 0.4 + width * (number + 0.5)
        axis.bar(
            offsets,
            data.values,
            width,
            yerr=None if se is None else se.values,
            capsize=2,
            label=label,
        )
    axis.set_xticks(np.arange(len(labels)), labels, rotation=30, ha="right")
    axis.set_xlabel(x)
    axis.set_ylabel(
        _axis_label(variables[0], spec)
        if len(variables) == 1
        else "value (%)"
        if spec["percent"]
        else "value"
    )
    axis.grid(alpha=0.3, axis="y")


def _scalar(axis, panel, variable, spec):
    """Write the single value of a cube with no swept dims in the middle of ``axis``."""
    data, _ = _values(panel, variable, spec)
    axis.text(0.5, 0.5, f"{float(data):.3g}", ha="center", fontsize=20)
    axis.set_axis_off()


def _save(figure, out, cube):
    """Write ``figure`` to ``out`` with the state of the store ``cube`` came from."""
    from simcore.output_files import save_figure

    try:
        save_figure(figure, out, dpi=110, metadata=figure_metadata(cube, out))
    finally:
        _pyplot().close(figure)
    return out


def _planning_rates(axis, cube, target, largest):
    """Draw the wrong-decision rate against m per margin, the target and the recipe's m_cert."""
    judge_dim = cube["min_items"].dims[0]
    m = cube["m"].values
    margins = cube["population_margin"].values
    shade = (margins - margins.min()) / max(np.ptp(margins), 1e-12)
    colours = _pyplot().get_cmap("coolwarm_r")(shade)
    for position, margin in enumerate(margins):
        cell = cube.isel({judge_dim: position})
        rate = cell["wrong_decision_rate"].values * 100
        axis.plot(m, rate, marker=".", color=colours[position], label=f"{margin:+.2f}")
        recipe = int(cell["recipe_items"])
        if 0 < recipe <= largest:
            axis.plot(
                [recipe],
                [np.interp(recipe, m, rate)],
                marker="v",
                markersize=9,
                color=colours[position],
                markeredgecolor="black",
            )
    axis.axhline(target, color="black", linestyle="--", linewidth=1, label=f"target {target:g}%")
    axis.set_xscale("log")
    axis.set_xlabel("m: items per secondary")
    axis.set_ylabel("wrong-decision rate (%)")
    axis.set_title("rate against m per margin (triangles: the recipe's m_cert)", fontsize=10)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, ncol=2, title="margin")


def _items_needed(cube, margins, sizes, sign, largest):
    """Bar heights, never-enough flags and recipe items for the margins ``sign * sizes``.

    A margin whose rate never reaches the target within the sweep gets a bar 1.3 times the
    largest m, flagged so it can be hatched.
    """
    heights, never, recipes = [], [], []
    for size in sizes:
        index = int(np.argmin(np.abs(margins - sign * size)))
        needed = int(cube["min_items"].values[index])
        heights.append(needed if needed > 0 else largest * 1.3)
        never.append(needed <= 0)
        recipes.append(int(cube["recipe_items"].values[index]))
    return heights, never, recipes


def _planning_items(axis, cube, target, largest):
    """Draw, per |margin| present on both sides, the items needed on each side of the bar."""
    margins = np.round(cube["population_margin"].values, 6)
    sizes = sorted({abs(v) for v in margins if -v in margins and v != 0})
    positions = np.arange(len(sizes))
    sides = (
        (-0.2, 1, "protect a good judge (+margin, FR)", "tab:blue"),
        (0.2, -1, "catch a bad judge (-margin, FA)", "tab:red"),
    )
    for offset, sign, label, colour in sides:
        heights, never, recipes = _items_needed(cube, margins, sizes, sign, largest)
        bars = axis.bar(positions + offset, heights, 0.4, color=colour, label=label)
        for bar, missing in zip(bars, never, strict=True):
            if missing:
                bar.set_hatch("//")
                axis.text(
                    bar.get_x() + bar.get_width() / 2,
                    bar.get_height(),
                    f"> {largest}",
                    ha="center",
                    va="bottom",
                    fontsize=8,
                )
        axis.plot(
            positions + offset, recipes, linestyle="none", marker="_", markersize=18, color="black"
        )
    axis.plot(
        [], [], linestyle="none", marker="_", markersize=18, color="black", label="recipe m_cert"
    )
    axis.set_yscale("log")
    axis.set_xticks(positions, [f"{size:.2f}" for size in sizes])
    axis.set_xlabel("|margin|")
    axis.set_ylabel(f"items per secondary for a rate <= {target:g}%")
    axis.set_title("simulated items needed on each side of the bar", fontsize=10)
    axis.legend(fontsize=8)
    axis.grid(alpha=0.3, axis="y")


def plot_planning(cube, out):
    """Draw a planning cube: rate against m per margin, and the items each side needs.

    Left: the wrong-decision rate (%) against m (log axis) for every margin, the target as a
    line, and the recipe's m_cert marked on each curve. Right: for each |margin| present on
    both sides, the simulated items needed to protect a good judge (+margin, false rejection)
    and to catch a bad one (-margin, false approval), with the recipe beside them.
    """
    target = float(cube["min_items"].attrs["target"]) * 100
    largest = int(cube["m"].values.max())
    figure, (left, right) = _pyplot().subplots(1, 2, figsize=(14, 5.5))
    _planning_rates(left, cube, target, largest)
    _planning_items(right, cube, target, largest)
    figure.suptitle(
        f"{cube.attrs.get('title', '')}: {int(cube['n_trials'].max())} trials per "
        f"cell, reference {cube.attrs.get('reference', '')}",
        fontsize=11,
    )
    figure.tight_layout()
    return _save(figure, out, cube)


_DEFAULT_SPEC = {
    "kind": "auto",
    "variables": ("wrong_decision_rate",),
    "x": None,
    "hue": None,
    "scale_by": None,
    "log_x": False,
    "percent": True,
}


@dataclass(frozen=True)
class _Layout:
    """Where a cube's dims go in a figure of :func:`plot_cube`.

    ``kind`` is the resolved plot kind (heatmap, lines or bars), ``dims`` the variable's dims,
    ``x`` the dim along the x axis of curves and bars (None for a heatmap), ``extra`` the
    dims spread over panels, ``panels`` one ``(variable or None, index per extra dim)`` per
    panel, ``columns`` the panels per row and ``width`` the inches per panel.
    """

    kind: str
    dims: tuple
    x: str | None
    extra: tuple
    panels: tuple
    columns: int
    width: float

    @property
    def rows(self):
        """Rows of panels needed for every panel at ``columns`` per row."""
        return -(-len(self.panels) // self.columns)


def _layout(cube, variables, spec):
    """Resolve the plot kind and place every dim of ``variables[0]`` (see :class:`_Layout`)."""
    dims = list(cube[variables[0]].dims)
    kind = spec["kind"]
    if kind == "auto":
        kind = "heatmap" if len(dims) == 2 and len(variables) == 1 else "lines"
    if kind == "heatmap":
        placed = [spec["x"]] if spec["x"] else []
        placed += [d for d in dims[::-1] if d not in placed][: 2 - len(placed)]
        x = None
    else:
        x = spec["x"] or (dims[0] if kind == "bars" else dims[-1]) if dims else None
        placed = [d for d in (x, spec["hue"]) if d in dims]
    extra = [d for d in dims if d not in placed]
    combos = list(itertools.product(*(range(cube.sizes[d]) for d in extra))) or [()]
    # A heatmap shows one variable per panel: several variables make rows of panels.
    panels = (
        [(name, combo) for name in variables for combo in combos]
        if kind == "heatmap"
        else [(None, combo) for combo in combos]
    )
    return _Layout(
        kind=kind,
        dims=tuple(dims),
        x=x,
        extra=tuple(extra),
        panels=tuple(panels),
        columns=min(4, cube.sizes[extra[-1]] if extra else 1),
        width=6.8 if kind == "heatmap" else 5.2,
    )


def _colour_tops(cube, variables, spec):
    """Return the top of each variable's colour scale, shared by all its panels."""
    tops = {}
    for name in variables:
        every, _ = _values(cube, name, spec)
        tops[name] = max(float(every.max()) if np.isfinite(every).any() else 1.0, 1e-9)
    return tops


def _panel_title(panel, name, layout, variables):
    title = ", ".join(f"{d}={_label(panel[d].item())}" for d in layout.extra)
    if layout.kind == "heatmap" and len(variables) > 1:
        title = f"{_pretty(name)}: {title}" if title else _pretty(name)
    return title


def _published_grid(published, name, layout, spec):
    """Return the published values (%) laid out as the heatmap of ``name``, or None."""
    if published is None or layout.extra or published[3] != name:
        return None
    grid = published[0] * 100 / published[1]  # rows: the first swept dim
    if spec["x"] == layout.dims[0]:
        grid = grid.T
    return grid


def _draw_panel(figure, axis, panel, name, layout, variables, spec, published, tops):  # noqa: PLR0913 (a value object is still to come)
    """Draw one panel of :func:`plot_cube` in the layout's kind."""
    if layout.kind == "heatmap":
        grid = _published_grid(published, name, layout, spec)
        _heatmap(figure, axis, panel, name, spec, grid, tops[name])
    elif not layout.dims:
        _scalar(axis, panel, variables[0], spec)
    elif layout.kind == "lines":
        _lines(axis, panel, variables, spec, layout.x)
    else:
        _bars(axis, panel, variables, spec, layout.x)


def _figure_legend(figure, axes, columns):
    """One legend for the figure from the first panel's series; return their labels."""
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    if labels:  # the same series in every panel
        figure.legend(
            handles,
            labels,
            loc="lower center",
            ncol=min(len(labels), max(2, 2 * columns)),
            fontsize=9,
            frameon=False,
        )
    return labels


def _heading(cube, variables, layout, published):
    """Return the figure's title wrapped to its width, with a heatmap's published source."""
    heading = (
        f"{cube.attrs.get('title', '')}: {', '.join(_pretty(v) for v in variables)}, "
        f"{int(cube['n_trials'].max())} trials per cell"
    )
    if layout.kind == "heatmap" and published is not None and not layout.extra:
        heading += f"\nin parentheses: {published[2]}"
    return "\n".join(
        textwrap.fill(line, int(14 * layout.width * layout.columns))
        for line in heading.splitlines()
    )


BLANK_NOTE = "blank or missing: no trial of that cell defines the value (e.g. no reference accept)"
"""Said on a figure whose values include NaN, which matplotlib leaves blank."""


def blank_note(cube, variables):
    """Return :data:`BLANK_NOTE` when a drawn variable has NaN values (drawn blank), else None."""
    if any(bool(cube[name].isnull().any()) for name in variables if name in cube):
        return BLANK_NOTE
    return None


def plot_cube(cube, out, spec=None):
    """Draw ``cube`` to the PNG ``out`` following ``spec`` (the scenario's ``plot`` block).

    Parameters
    ----------
    cube : xarray.Dataset
        A finished cube.
    out : str or pathlib.Path
        PNG to write.
    spec : dict, optional
        ``kind`` (auto, heatmap, lines, bars), ``variables``, ``x``, ``hue``,
        ``scale_by``, ``log_x``, ``percent``. Auto draws a heatmap for two swept dims and
        one variable, curves otherwise.

    Returns
    -------
    str or pathlib.Path
        ``out``.
    """
    spec = {**_DEFAULT_SPEC, **(spec or {})}
    if spec["kind"] == "planning":
        return plot_planning(cube, out)
    variables = list(spec["variables"])
    layout = _layout(cube, variables, spec)
    figure, axes = _pyplot().subplots(
        layout.rows,
        layout.columns,
        figsize=(layout.width * layout.columns, 4.4 * layout.rows),
        squeeze=False,
    )
    published = published_values(cube)
    tops = _colour_tops(cube, variables, spec)
    for axis, (name, combo) in zip(axes.ravel(), layout.panels, strict=False):
        panel = cube.isel(dict(zip(layout.extra, combo, strict=True)))
        axis.set_title(_panel_title(panel, name, layout, variables), fontsize=9)
        _draw_panel(figure, axis, panel, name, layout, variables, spec, published, tops)
    for axis in axes.ravel()[len(layout.panels) :]:
        axis.set_axis_off()
    labels = _figure_legend(figure, axes, layout.columns)
    figure.suptitle(_heading(cube, variables, layout, published), fontsize=11)
    note = blank_note(cube, variables)
    if note:
        figure.text(0.005, 0.005, note, fontsize=7, color="dimgrey")
    height = figure.get_figheight()
    figure.tight_layout(rect=(0, (0.5 / height) if labels else 0, 1, 1 - 0.55 / height))
    return _save(figure, out, cube)
