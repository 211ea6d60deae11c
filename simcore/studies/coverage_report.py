"""The coverage study's table and figure.

The table lists, per judge, theta, production size and calibration size, the share of
trials refused and the coverage and width of both intervals; the figure draws coverage and
width against the calibration size.
"""

from pathlib import Path

import numpy as np


def summary(cube):
    """Return the coverage table ``simcore run`` and ``simcore show`` print."""
    lines = [
        f"{cube.attrs.get('title', 'coverage')}: {int(cube['n_trials'].max())} trials per "
        f"cell, confidence {cube.attrs.get('confidence')}, Youden floor "
        f"{cube.attrs.get('youden_floor')}, seed {cube.attrs.get('root_seed')}; coverage over "
        "corrected trials (%)",
        "",
        "| judge (Se, Sp) | theta | N | n_cal | refused % | LR coverage % | naive coverage % "
        "| LR width | naive width |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def percent(name, index):
        value = float(cube[name][index])
        error = float(cube[f"{name}_se"][index])
        return "n/a" if np.isnan(value) else f"{100 * value:.1f} ± {100 * error:.1f}"

    for j, name in enumerate(cube["judge_strength"].values):
        for t, theta in enumerate(cube["theta"].values):
            for p, n_production in enumerate(cube["n_production"].values):
                for a, n_cal in enumerate(cube["n_cal"].values):
                    index = {"n_cal": a, "judge_strength": j, "theta": t, "n_production": p}
                    lines.append(
                        f"| {name} ({float(cube['se'][j]):.2f}, {float(cube['sp'][j]):.2f}) "
                        f"| {theta:g} | {int(n_production)} | {int(n_cal)} "
                        f"| {100 * float(cube['refusal_rate'][index]):.1f} "
                        f"| {percent('coverage_lr', index)} | {percent('coverage_naive', index)} "
                        f"| {float(cube['width_lr'][index]):.3f} "
                        f"| {float(cube['width_naive'][index]):.3f} |"
                    )
    return "\n".join(lines)


def _draw_panel_pair(cube, t, j, coverage_axis, width_axis, colours):
    """Draw one (theta, judge) panel pair: coverage and width against n_cal."""
    for p, n_production in enumerate(cube["n_production"].values):
        cell = cube.isel(theta=t, judge_strength=j, n_production=p)
        colour = colours[p % len(colours)]
        for method, style in (("lr", "-"), ("naive", "--")):
            label = f"{'LR' if method == 'lr' else 'naive'}, N={int(n_production)}"
            line = {"color": colour, "marker": "o", "markersize": 3}
            coverage_axis.plot(
                cell["n_cal"], cell[f"coverage_{method}"], style, label=label, **line
            )
            width_axis.plot(cell["n_cal"], cell[f"width_{method}"], style, **line)
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

    Solid lines are the Lang-Reiczigel interval, dashed the naive one, one colour per
    production size; the coverage panels carry the nominal level as a grey line.
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
        f"Coverage of the corrected failure rate's {100 * level:g}% intervals "
        "(corrected trials; grey: nominal level)",
        fontsize=10,
    )
    figure.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    plt.close(figure)
