"""Figures of a cube: a heatmap for 2-D sweeps, curves for 1-D, panels for more dims."""

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from simcore.report import published_values  # noqa: E402


def _label(value):
    return f"{value:g}" if isinstance(value, float | np.floating) else str(value)


def _heatmap(axis, cube, variable, published):
    row_dim, column_dim = cube[variable].dims
    values = cube[variable].values * 100
    ses = cube[f"{variable}_se"].values * 100
    image = axis.imshow(
        values, cmap="viridis", vmin=0, vmax=max(np.nanmax(values), 1.0), aspect="auto"
    )
    for i, j in np.ndindex(values.shape):
        text = f"{values[i, j]:.1f}±{ses[i, j]:.1f}"
        if published is not None:
            text += f"\n(paper {published[i, j]:g})"
        shade = "white" if values[i, j] < 0.6 * np.nanmax(values) else "black"
        axis.text(j, i, text, ha="center", va="center", fontsize=8, color=shade)
    axis.set_xticks(range(cube.sizes[column_dim]), [_label(v) for v in cube[column_dim].values])
    axis.set_yticks(range(cube.sizes[row_dim]), [_label(v) for v in cube[row_dim].values])
    axis.set_xlabel(column_dim)
    axis.set_ylabel(row_dim)
    return image


def _curves(axis, cube, variable):
    (dim,) = cube[variable].dims
    x = cube[dim].values
    axis.errorbar(
        range(len(x)) if x.dtype.kind in "OUS" else x,
        cube[variable].values * 100,
        yerr=cube[f"{variable}_se"].values * 100,
        marker="o",
        capsize=3,
    )
    if x.dtype.kind in "OUS":
        axis.set_xticks(range(len(x)), [_label(v) for v in x])
    axis.set_xlabel(dim)
    axis.set_ylabel(f"{variable.replace('_', ' ')} (%)")
    axis.grid(alpha=0.3)


def plot_cube(cube, out, variable="wrong_decision_rate"):
    """Draw ``variable`` (in percent) of ``cube`` to the PNG ``out``.

    Two swept dims give an annotated heatmap (with the scenario's published values in
    parentheses where it has them), one gives a curve with standard-error bars; further
    dims become one panel per combination of their values.
    """
    dims = list(cube[variable].dims)
    published = published_values(cube)
    grid_values = None
    if published is not None and published[3] == variable:
        grid_values = published[0] * 100 / published[1]
    main, extra = dims[-2:] if len(dims) >= 2 else dims, dims[:-2]
    combos = list(itertools.product(*(range(cube.sizes[d]) for d in extra))) or [()]
    columns = min(3, len(combos))
    rows = -(-len(combos) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(6.5 * columns, 4.8 * rows), squeeze=False)
    for axis, combo in zip(axes.ravel(), combos, strict=False):
        panel = cube.isel(dict(zip(extra, combo, strict=True)))
        title = ", ".join(f"{d}={_label(panel[d].item())}" for d in extra)
        if len(main) == 2:
            image = _heatmap(axis, panel, variable, grid_values if not extra else None)
            figure.colorbar(image, ax=axis, label=f"{variable.replace('_', ' ')} (%)")
        elif len(main) == 1:
            _curves(axis, panel, variable)
        else:
            axis.text(0.5, 0.5, f"{100 * float(panel[variable]):.1f}%", ha="center", fontsize=20)
            axis.set_axis_off()
        axis.set_title(title)
    for axis in axes.ravel()[len(combos) :]:
        axis.set_axis_off()
    heading = (
        f"{cube.attrs.get('title', '')}: {variable.replace('_', ' ')} (%), "
        f"{int(cube['n_trials'].max())} trials per cell"
    )
    if grid_values is not None and not extra:
        heading += f"\nin parentheses: {published[2]}"
    figure.suptitle(heading)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    plt.close(figure)
    return out
