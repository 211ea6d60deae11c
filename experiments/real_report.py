"""The Markdown report of the real-data coverage check.

:func:`coverage_markdown` turns the rows of
:func:`~simcore.calibration.real.splits.real_coverage_table` into a report: what was done, the
table, where the LR and naive intervals under-cover, and the rows whose coverage rests on no
or few corrected splits or on a judge below the Youden floor.
"""

import math

import numpy as np

from simcore.calibration.real.pairs import POOLED
from simcore.calibration.real.ppi import ppi_table_lines
from simcore.calibration.statistics import DEFAULT_YOUDEN_FLOOR
from simcore.realdata.loaders import HUMAN_FILE, JUDGE_FILE

DIMENSION_SEED_NOTE = " (per dimension: a fourth entry, the dimension's sorted position from 1)"
"""Seed note of the report when it has per-dimension rows."""

TABLE_HEADER = (
    "| judge | TPR | TNR | J | n_cal | refused % | LR coverage % ± SE "
    "| naive coverage % ± SE | LR width | naive width |"
)
"""Header row of the Markdown table (a leading ``dimension`` column is added per dimension)."""


def _percent(value, se):
    if math.isnan(value):
        return "n/a"
    return f"{100.0 * value:.1f} ± {100.0 * se:.1f}"


def _number(value, digits=3):
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _under_covers(value, se, target):
    return not math.isnan(value) and value + 2.0 * se < target


def _namer(per_dimension):
    def name(row):
        prefix = f"{row['dimension']}/" if per_dimension else ""
        return f"{prefix}{row['judge']} n_cal={row['n_cal']}"

    return name


def coverage_markdown(
    rows,
    path,
    expert,
    n_splits,
    seed,
    fail_at_most,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
):
    """Return the Markdown report of :func:`real_coverage_table` rows.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`real_coverage_table`.
    path : str or pathlib.Path
        The data folder, as named in the report.
    expert : str
        The truth expert.
    n_splits, seed : int
        The splits per row and the seed used.
    fail_at_most : float
        The binarisation threshold.
    confidence : float, optional
        The intervals' level, also the coverage target.
    youden_floor : float, optional
        The Youden floor used.

    Returns
    -------
    str
        A header stating what was done, the table, and a line on where the LR interval
        under-covers (``coverage + 2 SE < confidence``).
    """
    per_dimension = any(row["dimension"] != POOLED for row in rows)
    lines = _method_lines(
        rows, path, expert, n_splits, seed, fail_at_most, confidence, youden_floor, per_dimension
    )
    lines += _table_lines(rows, per_dimension)
    lines += _coverage_lines(rows, confidence, per_dimension)
    lines += ppi_table_lines(rows, per_dimension, confidence)
    lines += _caveat_lines(rows, youden_floor, per_dimension)
    return "\n".join(lines) + "\n"


def _method_lines(
    rows, path, expert, n_splits, seed, fail_at_most, confidence, youden_floor, per_dimension
):
    """Return the report's title and the bullet list stating what was done."""
    target = 100.0 * confidence
    n_items = sorted({row["n_items"] for row in rows if row["dimension"] == POOLED})
    stream_rates = [row["true_fail_rate"] for row in rows if row["dimension"] == POOLED]
    n_cals = sorted({row["n_cal"] for row in rows})
    lines = [
        "# Coverage of the corrected failure rate's intervals on real judges (SummEval)",
        "",
        f"- Data: `{path}` ({HUMAN_FILE}, {JUDGE_FILE}), read in place.",
        f"- Binarisation: FAIL when score <= {fail_at_most:g}, PASS otherwise; positive class "
        "FAIL.",
        f"- Truth: expert `{expert}`'s labels. Instrument: each LLM judge, on the items both "
        f"labelled, all dimensions pooled (n = {', '.join(map(str, n_items))} items"
        + (", and each dimension on its own" if per_dimension else "")
        + ").",
        f"- Splits: for each judge and n_cal in {', '.join(map(str, n_cals))}, {n_splits} "
        "random splits: a calibration set of n_cal items drawn uniformly without replacement "
        "and a production stream of all the other items (N = n - n_cal).",
        f"- Seed: splits of judge j (file position from 0) at n_cal use "
        f"`numpy.random.default_rng(SeedSequence([{seed}, j, n_cal]))`"
        + (DIMENSION_SEED_NOTE if per_dimension else "")
        + ".",
        "- Intervals: `simcore.calibration.statistics.corrected_failure_rate` at "
        f"{target:g}% confidence, Youden floor {youden_floor:g}: the Lang-Reiczigel (LR) "
        "interval, which carries the calibration set's uncertainty, and the naive interval "
        "(the stream's Wilson interval pushed through Rogan-Gladen with the calibration "
        "TPR/TNR taken as exact).",
        "- Coverage: share of the corrected (not refused) splits whose interval contains the "
        "expert's fail rate on that split's stream, ± one binomial SE sqrt(c(1 - c)/m), m = "
        "corrected splits. Widths: mean over the corrected splits. Refused %: share of all "
        "splits where the correction was refused (calibration J below the floor, or no "
        "expert-fail / expert-pass calibration item). TPR, TNR, J: judge against the expert "
        "on all co-labelled items.",
    ]
    if stream_rates:
        lines.append(
            f"- The expert's fail rate on the streams averages {np.mean(stream_rates):.3f} "
            f"(row means {min(stream_rates):.4f} to {max(stream_rates):.4f})."
        )
    return lines


def _table_lines(rows, per_dimension):
    """Return the Markdown table, one line per row, after a blank line and before one."""
    header = TABLE_HEADER
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if per_dimension:
        header = "| dimension " + header
        rule = "|---" + rule
    lines = ["", header, rule]
    for row in rows:
        cells = [
            row["judge"],
            _number(row["tpr"]),
            _number(row["tnr"]),
            _number(row["youden"]),
            str(row["n_cal"]),
            f"{100.0 * row['refused']:.1f}",
            _percent(row["lr_coverage"], row["lr_se"]),
            _percent(row["naive_coverage"], row["naive_se"]),
            _number(row["lr_width"]),
            _number(row["naive_width"]),
        ]
        if per_dimension:
            cells.insert(0, row["dimension"])
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _coverage_lines(rows, confidence, per_dimension):
    """Return the lines on where the LR interval and the naive interval under-cover."""
    target = 100.0 * confidence
    name = _namer(per_dimension)
    lines = []
    lr_under = [
        f"{name(row)} ({_percent(row['lr_coverage'], row['lr_se'])})"
        for row in rows
        if _under_covers(row["lr_coverage"], row["lr_se"], confidence)
    ]
    if lr_under:
        lines.append(
            f"The LR interval under-covers (coverage + 2 SE < {target:g}%) at: "
            + "; ".join(lr_under)
            + "."
        )
    else:
        lines.append(
            f"The LR interval does not under-cover anywhere (coverage + 2 SE >= {target:g}% "
            "in every row with a corrected split)."
        )
    naive_under = sum(_under_covers(r["naive_coverage"], r["naive_se"], confidence) for r in rows)
    with_coverage = sum(not math.isnan(row["naive_coverage"]) for row in rows)
    lines.append("")
    lines.append(
        f"The naive interval under-covers (coverage + 2 SE < {target:g}%) in {naive_under} of "
        f"{with_coverage} rows with a corrected split."
    )
    return lines


def _caveat_lines(rows, youden_floor, per_dimension):
    """Return the lines on rows without, or with few, corrected splits and on weak judges."""
    name = _namer(per_dimension)
    lines = []
    empty = [name(row) for row in rows if row["n_corrected"] == 0]
    if empty:
        lines.append("")
        lines.append(
            "No corrected split, so no coverage (the correction was refused every time): "
            + "; ".join(empty)
            + "."
        )
    weak = {}
    for row in rows:
        label = f"{row['dimension']}/{row['judge']}" if per_dimension else row["judge"]
        if row["youden"] < youden_floor:
            weak.setdefault(label, f"{label} (J = {row['youden']:.4f})")
    if weak:
        lines.append("")
        lines.append(
            f"Full-data J below the Youden floor {youden_floor:g}: "
            f"{', '.join(weak.values())}. Their corrected splits are those whose "
            "calibration set cleared the floor by chance, a selected subset on which neither "
            "interval's coverage claim holds."
        )
    few = [
        f"{name(row)} ({row['n_corrected']})"
        for row in rows
        if 0 < row["n_corrected"] < min(30, row["n_splits"])
    ]
    if few:
        lines.append("")
        lines.append(
            "Fewer than 30 corrected splits (coverage rests on few splits): " + "; ".join(few) + "."
        )
    return lines
