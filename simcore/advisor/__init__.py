"""The advisor behind ``simcore advise``: audit a sparse validation matrix, plan its next round.

The latent-class fits (fit: Dawid-Skene; one_coin; models: the choice between them and the
bootstrap), the raters' channels as the simulation reads them (channels), the agreement checks
(diagnostics), the next round's proposals (next_round), the verdict on the data as it is
(verdict), the risk of a wrong verdict (risk.posterior, on the simulated matrices of risk.draws,
anchored at the observed comparisons by anchored; none on a dense matrix: dense), the audit and
the plan that join them (advice, taking the value objects of settings), the one recommendation
and the budget comparison (recommendation, worded by report.plan), the files written
(report.files, report.figure, groups), and the DataFrames in and out (frames, views). The Python
function is :func:`simcore.advise` (:mod:`simcore.api.audit`). Under a crowd's rule form the
audit runs on the virtual raters of :mod:`simcore.realdata.rule_forms`. The SummEval round trip
and the calibration study of advise's risk are experiments (the repository's ``experiments/``).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "AuditPlan",
    "AuditRule",
    "Draws",
    "Proposal",
    "audit_judges",
    "audit_settings",
    "extend_mask",
    "group_summary",
    "judge_anchor",
    "monte_carlo_se",
    "posterior_risk",
    "verdicts",
    "write_group_outputs",
    "write_outputs",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "advice": ("audit_judges",),
        "anchored": ("judge_anchor",),
        "groups": ("group_summary", "write_group_outputs"),
        "next_round": ("extend_mask",),
        "report.files": ("write_outputs",),
        "risk.posterior": ("monte_carlo_se", "posterior_risk"),
        "settings": ("AuditPlan", "AuditRule", "Draws", "Proposal", "audit_settings"),
        "verdict": ("verdicts",),
    },
)
