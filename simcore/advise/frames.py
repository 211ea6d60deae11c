"""pandas DataFrames in and out of ``simcore advise``, for notebooks.

In: :func:`frame_matrix` reads a long DataFrame with the columns ``item, rater, label`` and
an optional ``group`` (one row per label, the long CSV format of
:mod:`simcore.realdata.matrix`) into the same :class:`~simcore.realdata.matrix.AnnotationMatrix`
the CSV file of those rows gives: every cell is turned into the text a CSV file holds
(``str(value)``; a missing value is an empty cell) and read by the CSV loader's own row
reader and matrix builder.

Out: the tables of an :class:`simcore.advise.advice.Advice` (its properties call these):
:func:`verdict_table`, :func:`comparison_table`, :func:`alt_test_table`,
:func:`risk_table`, :func:`risk_curve_table`, :func:`budget_table`, :func:`model_table`
and :func:`next_round_table` (the rows of ``next_round.csv``).
"""

import math

import pandas as pd

from simcore.advise.report_files import next_round_rows
from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.csv_table import CSV_COLUMNS, read_rows
from simcore.realdata.loaders import long_table_matrix

FRAME_SOURCE = "DataFrame"
"""How messages and the report name a matrix given as a DataFrame."""


# --------------------------------------------------------------------------- in


def frame_matrix(frame, humans=None, judges=None, ordinal=False, judges_path=None):
    """Return the annotation matrix of a long DataFrame ``item, rater, label[, group]``.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per label; exactly the columns of the long CSV format
        (:data:`simcore.realdata.csv_table.CSV_COLUMNS`; ``group`` optional), in any
        order, with any index (problems name a row by its index label).
    humans, judges, ordinal, judges_path
        As for :func:`simcore.realdata.matrix.load_csv`.

    Returns
    -------
    AnnotationMatrix
        The matrix a CSV file of the same rows gives, with source ``DataFrame``.

    Raises
    ------
    DataError
        (a ``ValueError``) naming the column for a frame that is not a DataFrame, has no
        rows, misses a column or has an unknown one; else every problem the CSV loader
        reports (empty cells, conflicting labels, raters in neither list, ...).
    """
    header = _frame_header(frame)
    cells = frame.set_axis(header, axis=1)  # the names stripped; the caller's frame unchanged
    text = cells.astype(str).where(cells.notna(), "")
    rows = [header, *text.to_numpy().tolist()]
    keyed, problems = read_rows(rows, header, FRAME_SOURCE, row_names=list(frame.index))
    has_group = "group" in header
    return long_table_matrix(
        keyed, has_group, FRAME_SOURCE, problems, humans, judges, None, ordinal, judges_path
    )


def _frame_header(frame):
    """Return the frame's column names; raise :class:`DataError` naming a bad column."""
    if not isinstance(frame, pd.DataFrame):
        raise DataError([f"{FRAME_SOURCE}: data: not a pandas DataFrame (got {type(frame)})"])
    columns = [str(column).strip() for column in frame.columns]
    problems = [
        f"{FRAME_SOURCE}: columns: missing column {column!r} (got columns {got_text(columns)})"
        for column in CSV_COLUMNS[:3]
        if column not in columns
    ]
    problems += [
        f"{FRAME_SOURCE}: columns: unknown column {column!r} (valid: "
        f"{', '.join(CSV_COLUMNS)}; select them with frame[[...]]) "
        f"(got columns {got_text(columns)})"
        for column in columns
        if column not in CSV_COLUMNS
    ]
    repeated = sorted({column for column in columns if columns.count(column) > 1})
    if repeated:
        problems.append(f"{FRAME_SOURCE}: columns: repeated columns (got {got_text(repeated)})")
    if not problems and frame.empty:
        problems.append(f"{FRAME_SOURCE}: rows: the frame has no rows (got 0 rows)")
    if problems:
        raise DataError(problems)
    return columns


# --------------------------------------------------------------------------- out


def verdict_table(advice):
    """Return one row per judge: its verdict's numbers (omega, decision, ...), no lists."""
    rows = [
        {key: value for key, value in row.items() if not isinstance(value, list | dict)}
        for row in advice.verdicts
    ]
    return pd.DataFrame(rows).drop(columns=["label_values"], errors="ignore")


def comparison_table(advice):
    """Return one row per judge and held-out human: d_k, its SE and 95% interval, verdict."""
    columns = ["judge", "held_out", "d", "se", "low", "high", "items", "pairs", "verdict"]
    rows = [
        {"judge": row["judge"], "held_out": advice.humans[k], **comparison}
        for row in advice.verdicts
        for k, comparison in enumerate(row["comparisons"])
    ]
    return pd.DataFrame(rows, columns=columns)


def alt_test_table(advice):
    """Return the alternative annotator test per judge and held-out human (empty otherwise)."""
    columns = ["judge", "held_out", "items", "tested", "pvalue", "won", "advantage"]
    rows = [
        {"judge": row["judge"], "held_out": advice.humans[h], **test}
        for row in advice.verdicts
        for h, test in enumerate(row.get("alt_test", []))
    ]
    return pd.DataFrame(rows, columns=columns)


def risk_table(advice):
    """Return one row per judge: the risk now ± Monte Carlo SE, the items needed, the recipe.

    ``interval_risk`` is the same risk read from the comparison intervals alone
    (:func:`simcore.advise.interval_risk.normal_approximation_risk`; NaN under the
    alternative annotator test).

    ``needed`` and ``needed_conservative`` are the fewest grid items per secondary whose
    simulated risk (its Wilson upper bound) is under the target, -1 beyond the grid; the
    recipe's columns are the binding comparison's held-out human (None when no human shares
    an item with another), fitted margin, sigma0^2 and co-labelled items ``m_cert`` (SPEC §7).
    """
    rows = []
    intervals = {row["judge"]: row.get("interval_risk", math.nan) for row in advice.verdicts}
    for name, (rate, se) in advice.risk_now.items():
        needed, conservative = advice.curves[name].needed(advice.target)
        margin, sigma2, m_cert, held_out = advice.recipes[name]
        rows.append(
            {
                "judge": name,
                "risk": rate,
                "se": se,
                "interval_risk": intervals.get(name, math.nan),
                "needed": needed,
                "needed_conservative": conservative,
                "binding_human": advice.humans[held_out] if held_out >= 0 else None,
                "margin": margin,
                "sigma2": sigma2,
                "m_cert": m_cert,
            }
        )
    return pd.DataFrame(rows)


def risk_curve_table(advice):
    """Return the risk curves in long form: judge, design, extra, risk, se, trials."""
    rows = [
        {
            "judge": curve.judge,
            "design": curve.design,
            "extra": extra,
            "risk": curve.rate(index),
            "se": curve.se(index),
            "trials": curve.trials[index],
        }
        for curve in advice.curves.values()
        for index, extra in enumerate(curve.extra)
    ]
    return pd.DataFrame(rows, columns=["judge", "design", "extra", "risk", "se", "trials"])


def budget_table(advice):
    """Return the budget's risk under each design (no rows without a budget)."""
    columns = ["design", "extra", "worst_judge", "risk", "se", "mean_risk"]
    return pd.DataFrame(advice.budget_rows, columns=columns)


def model_table(advice):
    """Return each judge's fitted model: every rater's accuracy ± bootstrap SE, long form."""
    rows = [
        {
            "judge": name,
            "rater": rater,
            "accuracy": float(model.fit.accuracies[r]),
            "se": float(model.errors.accuracies[r]),
        }
        for name, model in advice.models.items()
        for r, rater in enumerate(model.rater_names)
    ]
    return pd.DataFrame(rows, columns=["judge", "rater", "accuracy", "se"])


def next_round_table(advice):
    """Return the rows of ``next_round.csv``: human, item, design."""
    return pd.DataFrame(next_round_rows(advice), columns=["human", "item", "design"])
