"""The risk of a wrong verdict, simulated under the model fitted to the matrix.

The posterior risk and its Monte Carlo error (posterior), the simulated matrices it is
drawn from (draws), and the ceiling no recommended round may exceed (ceiling).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "JudgeRisk",
    "RISK_SE_TARGET",
    "RiskCurve",
    "best_row",
    "clear_drop",
    "judge_raters",
    "judge_risk",
    "labels_everything",
    "monte_carlo_se",
    "posterior_risk",
    "raise_reason",
    "worst_now",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "ceiling": (
            "best_row",
            "clear_drop",
            "raise_reason",
            "worst_now",
        ),
        "draws": ("judge_raters",),
        "posterior": (
            "JudgeRisk",
            "RISK_SE_TARGET",
            "RiskCurve",
            "judge_risk",
            "labels_everything",
            "monte_carlo_se",
            "posterior_risk",
        ),
    },
)
