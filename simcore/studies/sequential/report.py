"""The sequential planning study's table and figure.

One row per judge accuracy and error rate: the population margin and decision; the
sequential verdict's share settled within the budget, its wrong share (at most alpha by
construction), and the items per secondary it spent (mean over settled trials, 90th
percentile over all); the fixed plan's items at the same error rate (``simcore plan``'s
``m`` for this judge); the labels the sequential design saves (negative: costs) at the
mean; and how often the fixed rule read after every round is wrong at some look.
"""

import math

from simcore.printed_rates import rate_text
from simcore.studies.figure_stamp import figure_metadata

HEADER = (
    "p_judge",
    "margin",
    "population",
    "alpha",
    "settled",
    "wrong (<= alpha)",
    "mean m to settle",
    "p90 m",
    "fixed plan m",
    "saved vs plan",
    "certified fixed m",
    "saved vs certified",
    "fixed rule peeked: ever wrong",
)


def _items(value, budget):
    """Return items per secondary as printed (``> budget`` for NaN)."""
    return f"> {budget}" if math.isnan(value) else f"{value:.0f}"


def _saved(secondaries, fixed, mean):
    """Return ``(K - 1) (fixed - mean)`` as printed (``-`` where either is unknown)."""
    if math.isnan(mean) or math.isnan(fixed):
        return "-"
    return f"{secondaries * (fixed - mean):+.0f}"


def table_rows(cube):
    """Return the table's rows (texts), one per ``(p_judge, alpha)``."""
    budget = cube.attrs["round_size"] * cube.attrs["rounds"]
    secondaries = cube.attrs["n_humans"] - 1
    rows = []
    for p, p_judge in enumerate(cube["p_judge"].values):
        for a, alpha in enumerate(cube["alpha"].values):
            cell = cube.isel(p_judge=p, alpha=a)
            trials = int(cell["n_trials"])
            settled = int(cell["n_accept"] + cell["n_reject"])
            mean = float(cell["mean_items_to_settle"])
            fixed = float(cell["fixed_items"])
            recipe = int(cell["recipe_items"])
            mostly = settled >= 0.9 * trials  # a mean over few settled trials says little
            saved = _saved(secondaries, fixed, mean if mostly else math.nan)
            certified = float(recipe) if recipe > 0 else math.nan
            saved_recipe = _saved(secondaries, certified, mean if mostly else math.nan)
            rows.append(
                (
                    f"{p_judge:g}",
                    f"{float(cell['population_margin']):+.3f}",
                    "accept" if bool(cell["population_accepts"]) else "reject",
                    f"{alpha:g}",
                    rate_text(settled, trials),
                    rate_text(int(cell["n_wrong"]), trials),
                    "-" if math.isnan(mean) else f"{mean:.0f}",
                    _items(float(cell["p90_items_to_settle"]), budget),
                    _items(fixed, budget),
                    saved,
                    str(recipe) if recipe > 0 else "-",
                    saved_recipe,
                    rate_text(int(cell["n_fixed_ever_wrong"]), trials),
                )
            )
    return rows


def _lines(cube):
    attrs = cube.attrs
    budget = attrs["round_size"] * attrs["rounds"]
    head = (
        f"{attrs.get('title', 'sequential')}: {int(cube['n_trials'].max())} trials per cell; "
        f"n = {attrs['n_items']}, K = {attrs['n_humans']}, L = {attrs['n_labels']}, "
        f"p_human {attrs['p_human']:g}, eps {attrs['epsilon']:g}, tau {attrs['tau']:g}; the "
        f"primary labels every item, each secondary {attrs['round_size']} items per round, up "
        f"to m = {budget}; scoring {attrs['scoring']}, reference {attrs['reference']}. "
        "m: items per secondary. `settled`: trials whose sequential verdict settled within the "
        "budget; `wrong`: settled against the population decision; `mean m to settle` over "
        "the settled trials, `p90 m` over all (`> budget`: fewer than 90% settled); `fixed "
        "plan m`: the smallest m from which the fixed-size rule's wrong-decision rate stays at "
        "or below alpha (simcore plan's answer, which needs the judge's margin known); "
        "`certified fixed m`: plan's certification recipe ceil(z_{1 - alpha/2}^2 sigma0^2 / "
        "margin^2), the fixed size at which one comparison is certified at alpha (the error "
        "the sequential verdict bounds); `saved`: (K - 1) x (fixed m - mean m to settle) "
        "secondary labels, negative when the sequential design costs more (shown where at "
        "least 90% of the trials settled); `fixed rule peeked`: trials where the fixed rule read "
        "after every round is wrong at some look."
    )
    lines = [head, "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return lines + ["| " + " | ".join(row) + " |" for row in table_rows(cube)]


def summary(cube):
    """Return the table ``simcore run`` and ``simcore show`` print."""
    return "\n".join(_lines(cube))


def table_markdown(cube):
    """Return ``output.table``: the planning table under its title."""
    title = "# Planning table: labels until the sequential verdict settles, against the fixed plan"
    return "\n".join([title, "", *_lines(cube)]) + "\n"


def plot_sequential(cube, out):
    """Draw items per secondary against p_judge: sequential mean and p90, the fixed plan."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_alpha = cube.sizes["alpha"]
    figure, axes = plt.subplots(1, n_alpha, figsize=(4.2 * n_alpha, 3.4), squeeze=False)
    budget = cube.attrs["round_size"] * cube.attrs["rounds"]
    for a, alpha in enumerate(cube["alpha"].values):
        axis = axes[0, a]
        cell = cube.isel(alpha=a)
        x = cell["p_judge"].values
        axis.plot(x, cell["mean_items_to_settle"], "o-", label="sequential: mean m to settle")
        axis.plot(x, cell["p90_items_to_settle"], "s--", label="sequential: p90 m")
        axis.plot(x, cell["fixed_items"], "^-", label=f"fixed plan m (error <= {alpha:g})")
        axis.axhline(budget, color="grey", linewidth=0.8)
        axis.set_xlabel("judge accuracy p_judge", fontsize=8)
        axis.set_ylabel("items per secondary m", fontsize=8)
        axis.set_title(f"alpha {alpha:g} (grey: budget)", fontsize=9)
        axis.tick_params(labelsize=7)
    axes[0, 0].legend(fontsize=7)
    figure.suptitle(
        f"Labels until the sequential verdict settles, against the fixed plan, "
        f"{int(cube['n_trials'].max())} trials per cell",
        fontsize=10,
    )
    figure.tight_layout()
    from simcore.output_files import save_figure

    try:
        save_figure(figure, out, dpi=110, metadata=figure_metadata(cube, out))
    finally:
        plt.close(figure)
