"""Figures of a cube: heatmaps, curves and bars, as the scenario's ``plot`` block asks.

Every swept dim is placed: on the axes (``x``, and for a heatmap the other of two dims), in
the colours (``hue``: a dim, or ``variable`` when several variables are drawn), or in a
grid of panels, one per combination of the remaining dims' values. Rates are drawn in
percent with their standard errors; ``scale_by`` multiplies values by a dim's coordinate
(e.g. variance x m).
"""

import itertools
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from simcore.studies.synthetic_cube import RATE_ATTRS  # noqa: E402
from simcore.studies.synthetic_report import published_values  # noqa: E402


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


def plot_planning(cube, out):
    """Draw a planning cube: rate against m per margin, and the items each side needs.

    Left: the wrong-decision rate (%) against m (log axis) for every margin, the target as a
    line, and the recipe's m_cert marked on each curve. Right: for each |margin| present on
    both sides, the simulated items needed to protect a good judge (+margin, false rejection)
    and to catch a bad one (-margin, false approval), with the recipe beside them.
    """
    judge_dim = cube["min_items"].dims[0]
    target = float(cube["min_items"].attrs["target"]) * 100
    m = cube["m"].values
    largest = int(m.max())
    figure, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
    margins = cube["population_margin"].values
    shade = (margins - margins.min()) / max(np.ptp(margins), 1e-12)
    colours = plt.get_cmap("coolwarm_r")(shade)
    for position, margin in enumerate(margins):
        cell = cube.isel({judge_dim: position})
        rate = cell["wrong_decision_rate"].values * 100
        left.plot(m, rate, marker=".", color=colours[position], label=f"{margin:+.2f}")
        recipe = int(cell["recipe_items"])
        if 0 < recipe <= largest:
            left.plot(
                [recipe],
                [np.interp(recipe, m, rate)],
                marker="v",
                markersize=9,
                color=colours[position],
                markeredgecolor="black",
            )
    left.axhline(target, color="black", linestyle="--", linewidth=1, label=f"target {target:g}%")
    left.set_xscale("log")
    left.set_xlabel("m: items per secondary")
    left.set_ylabel("wrong-decision rate (%)")
    left.set_title("rate against m per margin (triangles: the recipe's m_cert)", fontsize=10)
    left.grid(alpha=0.3)
    left.legend(fontsize=8, ncol=2, title="margin")
    rounded = np.round(margins, 6)
    sizes = sorted({abs(v) for v in rounded if -v in rounded and v != 0})
    positions = np.arange(len(sizes))
    sides = (
        (-0.2, 1, "protect a good judge (+margin, FR)", "tab:blue"),
        (0.2, -1, "catch a bad judge (-margin, FA)", "tab:red"),
    )
    for offset, sign, label, colour in sides:
        heights, recipes, never = [], [], []
        for size in sizes:
            index = int(np.argmin(np.abs(rounded - sign * size)))
            needed = int(cube["min_items"].values[index])
            heights.append(needed if needed > 0 else largest * 1.3)
            never.append(needed <= 0)
            recipes.append(int(cube["recipe_items"].values[index]))
        bars = right.bar(positions + offset, heights, 0.4, color=colour, label=label)
        for bar, missing in zip(bars, never, strict=True):
            if missing:
                bar.set_hatch("//")
                right.text(
                    bar.get_x() + bar.get_width() / 2,
                    bar.get_height(),
                    f"> {largest}",
                    ha="center",
                    va="bottom",
                    fontsize=8,
                )
        right.plot(
            positions + offset, recipes, linestyle="none", marker="_", markersize=18, color="black"
        )
    right.plot(
        [], [], linestyle="none", marker="_", markersize=18, color="black", label="recipe m_cert"
    )
    right.set_yscale("log")
    right.set_xticks(positions, [f"{size:.2f}" for size in sizes])
    right.set_xlabel("|margin|")
    right.set_ylabel(f"items per secondary for a rate <= {target:g}%")
    right.set_title("simulated items needed on each side of the bar", fontsize=10)
    right.legend(fontsize=8)
    right.grid(alpha=0.3, axis="y")
    figure.suptitle(
        f"{cube.attrs.get('title', '')}: {int(cube['n_trials'].max())} trials per "
        f"cell, reference {cube.attrs.get('reference', '')}",
        fontsize=11,
    )
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


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
    spec = {
        "kind": "auto",
        "variables": ["wrong_decision_rate"],
        "x": None,
        "hue": None,
        "scale_by": None,
        "log_x": False,
        "percent": True,
        **(spec or {}),
    }
    if spec["kind"] == "planning":
        return plot_planning(cube, out)
    variables = list(spec["variables"])
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
    columns = min(4, cube.sizes[extra[-1]] if extra else 1)
    rows = -(-len(panels) // columns)
    width = 6.8 if kind == "heatmap" else 5.2
    figure, axes = plt.subplots(rows, columns, figsize=(width * columns, 4.4 * rows), squeeze=False)
    published = published_values(cube)
    tops = {}
    for name in variables:  # one colour scale per variable
        every, _ = _values(cube, name, spec)
        tops[name] = max(float(every.max()) if np.isfinite(every).any() else 1.0, 1e-9)
    for axis, (name, combo) in zip(axes.ravel(), panels, strict=False):
        panel = cube.isel(dict(zip(extra, combo, strict=True)))
        title = ", ".join(f"{d}={_label(panel[d].item())}" for d in extra)
        if kind == "heatmap" and len(variables) > 1:
            title = f"{_pretty(name)}: {title}" if title else _pretty(name)
        axis.set_title(title, fontsize=9)
        if kind == "heatmap":
            grid = None
            if published is not None and not extra and published[3] == name:
                grid = published[0] * 100 / published[1]  # rows: the first swept dim
                if spec["x"] == dims[0]:
                    grid = grid.T
            _heatmap(figure, axis, panel, name, spec, grid, tops[name])
        elif not dims:
            data, _ = _values(panel, variables[0], spec)
            axis.text(0.5, 0.5, f"{float(data):.3g}", ha="center", fontsize=20)
            axis.set_axis_off()
        elif kind == "lines":
            _lines(axis, panel, variables, spec, x)
        else:
            _bars(axis, panel, variables, spec, x)
    for axis in axes.ravel()[len(panels) :]:
        axis.set_axis_off()
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    if labels:  # the same series in every panel: one legend for the figure
        figure.legend(
            handles,
            labels,
            loc="lower center",
            ncol=min(len(labels), max(2, 2 * columns)),
            fontsize=9,
            frameon=False,
        )
    heading = (
        f"{cube.attrs.get('title', '')}: {', '.join(_pretty(v) for v in variables)}, "
        f"{int(cube['n_trials'].max())} trials per cell"
    )
    if kind == "heatmap" and published is not None and not extra:
        heading += f"\nin parentheses: {published[2]}"
    wrapped = "\n".join(
        textwrap.fill(line, int(14 * width * columns)) for line in heading.splitlines()
    )
    figure.suptitle(wrapped, fontsize=11)
    height = figure.get_figheight()
    figure.tight_layout(rect=(0, (0.5 / height) if labels else 0, 1, 1 - 0.55 / height))
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out
