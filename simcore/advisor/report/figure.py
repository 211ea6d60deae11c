"""The figure ``simcore advise`` writes, ``report.png``: the verdicts and the risk curves."""

import numpy as np


def report_figure(advice, path):
    """Write the figure of :func:`draw_report` to ``path`` as PNG, atomically (Agg, 110 dpi)."""
    from simcore.output_files import write_atomically

    return write_atomically(path, figure_writer(advice), binary=True)


def figure_writer(advice):
    """Return ``write(stream)``, which draws :func:`draw_report` into ``stream`` as PNG.

    For :func:`simcore.output_files.write_together`: the figure is drawn (Agg backend, 110
    dpi) when the stream is ready, and closed in pyplot after.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def write(stream):
        figure = draw_report(advice, plt)
        try:
            figure.savefig(stream, format="png", dpi=110)
        finally:
            plt.close(figure)

    return write


def report_plot(advice):
    """Return the report's figure (:func:`draw_report`) for a notebook, not shown by pyplot.

    The figure is drawn with the current matplotlib backend and closed in pyplot, so it is
    displayed once, as the value of a notebook cell, and ``figure.savefig`` still works.
    """
    import matplotlib.pyplot as plt

    figure = draw_report(advice, plt)
    plt.close(figure)
    return figure


def draw_report(advice, pyplot):
    """Return a new figure: the d_k intervals against the bar and the risk against extra items.

    ``pyplot`` is :mod:`matplotlib.pyplot`, imported by the caller (which chooses the backend).
    """
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.2))
    _draw_intervals(left, advice)
    _draw_risk_curves(right, advice)
    figure.tight_layout()
    return figure


VERDICT_COLOURS = (
    ("clears the bar", "tab:green"),
    ("fails the bar", "tab:red"),
    ("undecided", "grey"),
)
"""The colour of each comparison's verdict in report.png, as its legend says."""


def _draw_intervals(axes, advice):
    """Draw every comparison's d_k with its interval, coloured by verdict, and the bar."""
    position = 0
    ticks, names = [], []
    for row in advice.verdicts:
        for k, comparison in enumerate(row["comparisons"]):
            if comparison["items"] == 0:
                continue
            colour = {"clears": "tab:green", "fails": "tab:red"}.get(comparison["verdict"], "grey")
            axes.errorbar(
                comparison["d"],
                position,
                xerr=[
                    [comparison["d"] - comparison["low"]],
                    [comparison["high"] - comparison["d"]],
                ],
                fmt="o",
                color=colour,
                markersize=4,
            )
            ticks.append(position)
            names.append(f"{row['judge']} vs {advice.humans[k]}")
            position += 1
        position += 0.5
    bar = axes.axvline(
        -advice.epsilon,
        color="black",
        linestyle="--",
        linewidth=1,
        label=f"bar d_k = -eps = {-advice.epsilon:g}",
    )
    axes.set_yticks(ticks)
    axes.set_yticklabels(names, fontsize=6)
    axes.invert_yaxis()
    axes.set_xlabel("d_k (judge minus held-out human agreement with the pool), 95% interval")
    from matplotlib.lines import Line2D

    verdicts = [
        Line2D([], [], marker="o", linestyle="", color=colour, label=label)
        for label, colour in VERDICT_COLOURS
    ]
    axes.legend(handles=[*verdicts, bar], fontsize=7)


def _draw_risk_curves(axes, advice):
    """Draw every judge's risk against extra items per secondary, the target, the answer."""
    for curve in advice.curves.values():
        extra = np.array(curve.extra, dtype=float)
        rates = np.array([curve.rate(i) for i in range(len(extra))])
        errors = np.array([curve.se(i) for i in range(len(extra))])
        axes.errorbar(
            np.maximum(extra, 1),
            rates,
            yerr=errors,
            marker="o",
            markersize=3,
            label=curve.judge,
            capsize=2,
        )
    axes.axhline(advice.target, color="grey", linewidth=1, label=f"target {advice.target:g}")
    answer = getattr(advice, "recommendation", None)
    if answer is not None and answer.kind == "labels":
        axes.axvline(
            max(answer.per_secondary, 1),
            color="black",
            linestyle=":",
            linewidth=1,
            label=f"recommended: {answer.per_secondary} per secondary",
        )
    axes.set_xscale("log")
    axes.set_xlabel(f"extra items per secondary ({advice.curve_design}; 0 drawn at 1)")
    axes.set_ylabel("risk: sparse verdict differs from dense")
    axes.legend(fontsize=7)
