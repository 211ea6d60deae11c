"""The ceiling no recommended round may exceed: the worst risk now.

A round is recommended only if it is predicted to lower the risk, or at least not to raise
it: :func:`simcore.advisor.recommendation.choose_design` never recommends a budget design
whose predicted worst-judge risk is above the worst risk now over the audited judges
(:func:`worst_now`). When every design is above it, advise says why
(:func:`raise_reason`): by how many combined Monte Carlo SEs the best design's risk is
above it, whether that is beyond noise (:data:`CLEAR_SES`), and from which simulated size
on the risk curves the risk falls clearly below the risk now (:func:`clear_drop`).
"""

import math

from simcore.advisor.risk.posterior import labels_everything
from simcore.printed_rates import share_text

CLEAR_SES = 2.0
"""Two risks differ clearly (beyond Monte Carlo noise) when they differ by more than this many
combined SEs, ``|r_a - r_b| > 2 sqrt(se_a^2 + se_b^2)``: the rule of the designs' ties."""


def worst_now(audit):
    """Return ``(judge, risk, se, trials)``: the highest risk now over the audited judges.

    ``trials`` is the number of simulated matrices behind it (0 for a dense matrix's).
    """
    name, risk = max(audit.risks.items(), key=lambda item: item[1].now[0])
    curve = risk.curve
    trials = int(curve.trials[0]) if curve.extra and curve.extra[0] == 0 else 0
    return name, float(risk.now[0]), float(risk.now[1]), trials


def best_row(rows):
    """Return the budget row of the lowest worst-judge risk (then mean risk), None for none."""
    return min(rows, key=lambda row: (row["risk"], row["mean_risk"]), default=None)


def clear_drop(curves, after, rate_now, se_now, ses=CLEAR_SES):
    """Return the first curve size above ``after`` whose risk is clearly below the risk now.

    At each simulated size larger than ``after`` the worst risk over the curves simulated
    there (a curve stops once under the target with 95% confidence, lower still past it)
    is clearly below when ``rate_now - r > ses * sqrt(se^2 + se_now^2)``. Returns
    ``(extra, risk, se, trials)``, or None when no simulated size is.
    """
    sizes = sorted({extra for curve in curves for extra in curve.extra if extra > after})
    for extra in sizes:
        points = [
            (curve.rate(i), curve.se(i), int(curve.trials[i]))
            for curve in curves
            for i, size in enumerate(curve.extra)
            if size == extra
        ]
        rate, se, trials = max(points)
        if rate_now - rate > ses * math.hypot(se, se_now):
            return extra, rate, se, trials
    return None


def raise_reason(audit, curves, budget_rows, drop, labels):
    """Return why no round of the budget's size is recommended (kind ``raises_risk``).

    ``drop`` is :func:`clear_drop`'s answer, ``labels`` the labels the round would buy. The
    rise of the best design over the worst risk now is given in combined Monte Carlo SEs,
    ``(r - r_now) / sqrt(se^2 + se_now^2)``, and called beyond noise above
    :data:`CLEAR_SES`.
    """
    judge_now, rate_now, se_now, trials_now = worst_now(audit)
    best = best_row(budget_rows)
    rise = (best["risk"] - rate_now) / math.hypot(best["se"], se_now)
    noise = "beyond noise" if rise > CLEAR_SES else "within noise: more trials would tell"
    text = (
        f"at {best['extra']} more items per secondary ({labels} labels) every design's "
        "predicted worst-judge risk is above the risk now, "
        f"{share_text(rate_now, se_now, trials_now, unit='%')} ({judge_now}): at best "
        f"{share_text(best['risk'], best['se'], best['trials'], unit='%')} by {best['design']} "
        f"({rise:.1f} combined Monte Carlo SEs above it, {noise})"
    )
    last = max((size for curve in curves for size in curve.extra), default=0)
    if drop is None:
        return text + (
            f"; no simulated size up to {last} items per secondary by {audit.curve_design} "
            f"brings it clearly below the risk now (by more than {CLEAR_SES:g} combined SEs)"
        )
    extra, rate, se, trials = drop
    if labels_everything(audit.available, audit.curve_design, extra):
        return text + (
            "; the risk falls clearly below the risk now only when every unlabelled item is "
            f"labelled ({extra} items per secondary by {audit.curve_design}), where it is 0"
        )
    return text + (
        f"; the risk falls clearly below the risk now (by more than {CLEAR_SES:g} combined "
        f"SEs) from {extra} items per secondary by {audit.curve_design} "
        f"({share_text(rate, se, trials, unit='%')})"
    )
