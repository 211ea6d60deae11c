"""The prediction-powered intervals in the real-data coverage check.

Each split's calibration table and stream count (:mod:`simcore.calibration.real.splits`)
also get the ``ppi``, ``ppi++`` and ``strat-ppi`` intervals
(:func:`simcore.engine.ppi_twins.ppi_method_intervals`, clipped to [0, 1]), checked
against the expert's fail rate on the stream as the LR interval is; this module adds their
per-split arrays, their row fields and the report's method-comparison table.
"""

import math

import numpy as np

from simcore.engine.interval_twins import COVERAGE_SLACK
from simcore.engine.ppi_twins import PPI_METHODS, ppi_method_intervals
from simcore.printed_rates import share_text

COMPARED = ("lr", *PPI_METHODS)
"""The methods of the comparison table (the naive interval is in the main table)."""


def ppi_split_results(counts, n_splits, confidence):
    """Return per-split arrays ``covered_<m>``, ``width_<m>``, ``refused_<m>`` per PPI method.

    ``counts`` is the splits' :class:`~simcore.calibration.real.splits.SplitCounts`.
    Coverage and width are of the interval clipped to [0, 1]; where a method refuses,
    covered is False and width NaN.
    """
    from scipy import stats

    z = float(stats.norm.ppf(0.5 + confidence / 2))
    arrays = [
        np.asarray(values, dtype=np.float64)
        for values in (
            counts.judge_fails,
            np.full(n_splits, counts.n_production),
            counts.fail_caught,
            counts.fail_missed,
            counts.pass_flagged,
            counts.pass_cleared,
        )
    ]
    truth = counts.truth_rate
    results = {}
    for index, method in enumerate(PPI_METHODS):
        refused, _, low, high = ppi_method_intervals(index, *arrays, z)
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        covered = (low - COVERAGE_SLACK <= truth) & (truth <= high + COVERAGE_SLACK)
        results[f"covered_{method}"] = covered & ~refused
        results[f"width_{method}"] = np.where(refused, np.nan, high - low)
        results[f"refused_{method}"] = refused
    return results


def ppi_row_fields(split):
    """Return a row's ``<m>_coverage``, ``_se``, ``_width``, ``_refused``, ``_kept`` per method.

    ``<m>_kept`` is the number of splits the method did not refuse, the coverage's
    denominator.
    """
    fields = {}
    for method in PPI_METHODS:
        kept = ~split[f"refused_{method}"]
        m = int(np.count_nonzero(kept))
        coverage = float(np.count_nonzero(split[f"covered_{method}"][kept])) / m if m else math.nan
        fields[f"{method}_coverage"] = coverage
        fields[f"{method}_se"] = math.sqrt(coverage * (1 - coverage) / m) if m else math.nan
        fields[f"{method}_width"] = (
            float(np.mean(split[f"width_{method}"][kept])) if m else math.nan
        )
        fields[f"{method}_refused"] = 1.0 - m / kept.size
        fields[f"{method}_kept"] = m
    return fields


def _entry(row, method):
    """Return ``coverage ± SE / width`` of one method in one row (and its refusals).

    The coverage prints as :func:`simcore.printed_rates.share_text` over the splits the
    method kept (LR: ``n_corrected``): with fewer than 10 misses (or hits), its exact 95%
    interval instead of ``± SE``.
    """
    refused = row["refused"] if method == "lr" else row[f"{method}_refused"]
    coverage, se = row[f"{method}_coverage"], row[f"{method}_se"]
    if math.isnan(coverage):
        return "refused"
    kept = row["n_corrected"] if method == "lr" else row[f"{method}_kept"]
    text = f"{share_text(coverage, se, int(kept))} / {row[f'{method}_width']:.3f}"
    return text + (f" (refused {100 * refused:.0f}%)" if refused > 0.005 else "")


def ppi_table_lines(rows, per_dimension, confidence):
    """Return the report's section comparing LR with the PPI intervals, row by row."""
    header = "| judge | n_cal | " + " | ".join(COMPARED) + " |"
    rule = "|---|---:|" + "---:|" * len(COMPARED)
    if per_dimension:
        header, rule = "| dimension " + header, "|---" + rule
    lines = [
        "",
        "## LR against the prediction-powered intervals",
        "",
        "Per method: coverage % ± SE / mean width over the splits it did not refuse, on the "
        "same splits ([l, u]: the coverage's exact 95% interval where fewer than 10 splits "
        "missed; > l where none did); `ppi` (classical), `ppi++` (power-tuned lambda), `strat-ppi` "
        "(stratified by the judge's label), clipped to [0, 1] "
        f"({100 * confidence:g}% intervals).",
        "",
        header,
        rule,
    ]
    for row in rows:
        cells = [row["judge"], str(row["n_cal"]), *(_entry(row, m) for m in COMPARED)]
        if per_dimension:
            cells.insert(0, row["dimension"])
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines
