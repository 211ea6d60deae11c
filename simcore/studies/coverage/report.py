"""The coverage study's table and figure.

The table lists, per judge, theta, production size and calibration size, the coverage and
width of every interval method (and its refusal rate where it refused), followed by the
per-region advice of :mod:`simcore.studies.coverage.advice`; the figure draws every method's
coverage and width against the calibration size.
"""

import numpy as np

from simcore.printed_rates import rate_text
from simcore.studies.coverage.advice import advice_lines
from simcore.studies.figure_stamp import figure_metadata


def _entry(cube, index, method):
    """Return ``coverage ± SE / width`` of one method in one cell, with its refusal if any.

    The coverage prints as :func:`simcore.printed_rates.rate_text` of its covered trials
    among those not refused: with fewer than 10 misses (or hits), its exact 95% interval.
    """
    cell = {**index, "method": list(cube["method"].values).index(method)}
    value = float(cube["coverage"][cell])
    if np.isnan(value):
        return "refused"
    kept = int(cube["n_trials"][index] - cube["n_declined"][cell])
    text = f"{rate_text(int(cube['n_covered'][cell]), kept)} / {float(cube['width'][cell]):.3f}"
    refusal = float(cube["refusal"][cell])
    return text + (f" (refused {100 * refusal:.0f}%)" if refusal > 0.005 else "")


def summary(cube):
    """Return the coverage table and the per-region advice ``simcore run``/``show`` print."""
    methods = [str(m) for m in cube["method"].values]
    lines = [
        f"{cube.attrs.get('title', 'coverage')}: {int(cube['n_trials'].max())} trials per "
        f"cell, confidence {cube.attrs.get('confidence')}, Youden floor "
        f"{cube.attrs.get('youden_floor')} (naive, lr), seed {cube.attrs.get('root_seed')}; "
        "per method: coverage % ± SE / mean width, over the trials it did not refuse; "
        "[l, u]: the coverage's exact 95% interval where fewer than 10 trials missed (> l "
        "where none did)",
        "",
        "| judge (Se, Sp) | theta | N | n_cal | " + " | ".join(methods) + " |",
        "|---|---|---|---|" + "---|" * len(methods),
    ]
    for j, name in enumerate(cube["judge_strength"].values):
        for t, theta in enumerate(cube["theta"].values):
            for p, n_production in enumerate(cube["n_production"].values):
                for a, n_cal in enumerate(cube["n_cal"].values):
                    index = {"n_cal": a, "judge_strength": j, "theta": t, "n_production": p}
                    entries = " | ".join(_entry(cube, index, m) for m in methods)
                    lines.append(
                        f"| {name} ({float(cube['se'][j]):.2f}, {float(cube['sp'][j]):.2f}) "
                        f"| {theta:g} | {int(n_production)} | {int(n_cal)} | {entries} |"
                    )
    return "\n".join([*lines, "", *advice_lines(cube)])


def _draw_panel_pair(cube, t, j, coverage_axis, width_axis, colours):
    """Draw one (theta, judge) panel pair: every method's coverage and width against n_cal."""
    styles = ("-", "--", ":", "-.")
    for p, n_production in enumerate(cube["n_production"].values):
        for m, method in enumerate(cube["method"].values):
            cell = cube.isel(theta=t, judge_strength=j, n_production=p, method=m)
            line = {"color": colours[m % len(colours)], "marker": "o", "markersize": 3}
            style = styles[p % len(styles)]
            label = f"{method}, N={int(n_production)}"
            coverage_axis.plot(cell["n_cal"], cell["coverage"], style, label=label, **line)
            width_axis.plot(cell["n_cal"], cell["width"], style, **line)
    coverage_axis.axhline(float(cube.attrs.get("confidence", 0.95)), color="grey", linewidth=0.8)
    coverage_axis.set_ylim(0, 1.02)
    se, sp = float(cube["se"][j]), float(cube["sp"][j])
    judge, theta = cube["judge_strength"].values[j], cube["theta"].values[t]
    coverage_axis.set_title(f"{judge} (Se {se:.2f}, Sp {sp:.2f}), theta {theta:g}", fontsize=8)
    width_axis.set_title("interval width", fontsize=8)
    for axis in (coverage_axis, width_axis):
        axis.set_xscale("log")
        axis.set_xticks([int(n) for n in cube["n_cal"].values])
        axis.set_xticklabels([str(int(n)) for n in cube["n_cal"].values])
        axis.minorticks_off()
        axis.tick_params(labelsize=7)


def plot_coverage(cube, out):
    """Draw coverage and width against n_cal: rows theta, columns judge x (coverage, width).

    One colour per method, one line style per production size; the coverage panels carry
    the nominal level as a grey line.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_judges, n_thetas = cube.sizes["judge_strength"], cube.sizes["theta"]
    figure, axes = plt.subplots(
        n_thetas,
        2 * n_judges,
        figsize=(3.2 * 2 * n_judges, 2.6 * n_thetas),
        squeeze=False,
        sharex=True,
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for t in range(n_thetas):
        for j in range(n_judges):
            _draw_panel_pair(cube, t, j, axes[t, 2 * j], axes[t, 2 * j + 1], colours)
            if t == n_thetas - 1:
                axes[t, 2 * j].set_xlabel("n_cal", fontsize=8)
                axes[t, 2 * j + 1].set_xlabel("n_cal", fontsize=8)
        axes[t, 0].set_ylabel("coverage", fontsize=8)
    axes[0, 0].legend(fontsize=6, loc="lower right")
    level = float(cube.attrs.get("confidence", 0.95))
    figure.suptitle(
        f"Coverage of the corrected failure rate's {100 * level:g}% intervals, "
        f"{int(cube['n_trials'].max())} trials per cell "
        "(trials not refused; grey: nominal level)",
        fontsize=10,
    )
    figure.tight_layout()
    from simcore.output_files import save_figure

    try:
        save_figure(figure, out, dpi=110, metadata=figure_metadata(cube, out))
    finally:
        plt.close(figure)
