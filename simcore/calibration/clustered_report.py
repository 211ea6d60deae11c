"""``simcore calibrate --cluster-column``: the report with cluster-robust intervals.

The report of :func:`simcore.calibration.method_report.format_method_report` on clustered
items: the summary's TPR, TNR and observed rate with Wilson intervals on the effective
counts (rows divided by the design effect), one line on the clusters and what they cost,
then each method's estimate and its cluster-robust interval
(:mod:`simcore.calibration.clustered`).
"""

import math

from simcore.calibration.command import _interval, summary_lines
from simcore.calibration.correction import corrected_failure_rate


def _effect_text(value):
    """Return a design effect as printed (``-`` where undefined)."""
    return "-" if not math.isfinite(value) else f"{value:.2f}"


def format_clustered_report(clustered, cluster_column, confidence, youden_floor):
    """Return the calibrate report of clustered items.

    Parameters
    ----------
    clustered : simcore.calibration.clustered.ClusteredRates
        The rates by method, their clusters, design effects and effective counts.
    cluster_column : str
        The column the clusters were read from (for the report).
    confidence, youden_floor : float
        As for the methods.

    Returns
    -------
    str
        The summary (totals as counted, intervals on the effective counts), the clusters'
        line, one row per method with its cluster-robust interval, and the refusals.
    """
    effective = clustered.effective_counts
    fails, n_production, *table = clustered.counts
    summary = corrected_failure_rate(*effective, confidence=confidence, youden_floor=youden_floor)
    level = f"{100 * confidence:g}%"
    lines = summary_lines(table, fails, n_production, summary, level, youden_floor)
    effects = clustered.design_effects
    production = (
        "production rows taken as independent (counts, no clusters)"
        if clustered.production_clusters is None
        else f"{clustered.production_clusters} production clusters"
    )
    lines += [
        f"clusters (column {cluster_column!r}): {clustered.clusters} calibration clusters, "
        f"{production}; design effects Se {_effect_text(effects['se'])}, Sp "
        f"{_effect_text(effects['sp'])}, production share {_effect_text(effects['q'])}; "
        f"the Wilson intervals above use the rows divided by them (at least 1)",
        f"{'method':<12} {'estimate':>8}  {level} cluster-robust interval",
    ]
    for rate in clustered.rates:
        row = f"{rate.method:<12} {float(rate.estimate):8.4f}  {_interval(rate.low, rate.high)}"
        if not bool(rate.corrected):
            row += "  refused: observed rate, Wilson interval"
        lines.append(row)
    lines += [
        f"{rate.method} not corrected: {rate.refusal}" for rate in clustered.rates if rate.refusal
    ]
    lines.append(
        "intervals from cluster-level sums (sandwich variance; lr, naive and strat-wilson on "
        "the effective counts); estimates as for independent items, clipped to [0, 1]"
    )
    return "\n".join(lines)
