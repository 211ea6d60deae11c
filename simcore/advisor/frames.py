"""pandas DataFrames out of ``simcore advise``, for notebooks.

(A DataFrame in is read by the one reader, :func:`simcore.realdata.read_annotations`.)
The tables of an :class:`simcore.advisor.advice.Advice` (its properties call these):
:func:`verdict_table`, :func:`comparison_table`, :func:`alt_test_table`,
:func:`risk_table`, :func:`risk_curve_table`, :func:`budget_table`, :func:`model_table`
and :func:`next_round_table` (the rows of ``next_round.csv``).
"""

import math

import pandas as pd

from simcore.advisor.report.files import next_round_rows

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
    (:func:`simcore.advisor.interval_risk.normal_approximation_risk`; NaN under the
    alternative annotator test).

    ``needed`` and ``needed_conservative`` are the fewest grid items per secondary whose simulated
    risk (its Wilson upper bound) is under the target, -1 beyond the grid; the recipe's columns are
    the binding comparison's held-out human (None when no human shares an item with another), fitted
    margin, sigma0^2 and co-labelled items ``m_cert`` (docs/howto/plan.md).
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
    """Return the budget's risk under each design (no rows without a budget).

    ``trials`` is the simulated matrices behind ``risk``, ``mean_se`` the SE of
    ``mean_risk``; ``tie`` marks the designs within noise of the best, ``raises_risk``
    those whose risk is above the worst risk now (never recommended), ``recommended`` the
    one chosen, if any (:func:`simcore.advisor.recommendation.choose_design`).
    """
    columns = ["design", "extra", "worst_judge", "risk", "se", "trials", "mean_risk", "mean_se"]
    columns += ["tie", "raises_risk", "recommended"]
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
