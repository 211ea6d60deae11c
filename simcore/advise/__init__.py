"""``simcore advise``: audit a sparse validation matrix and plan its next round.

The latent-class fits (fit: Dawid-Skene; one_coin; models: the choice between them and the
bootstrap), the raters' channels as the simulation reads them (channels), the agreement
checks (diagnostics), the next round's proposals (next_round), the verdict on the data as
it is (verdict), the risk of a wrong verdict (risk, on the simulated matrices of
risk_draws, anchored at the observed comparisons by anchored; none on a dense matrix:
dense), the audit and the plan that join them (advice), the one recommendation and the
budget comparison (recommendation, worded by report_plan), the files written
(report_files, report_figure, groups), and the Python API (python_api, with the
DataFrames in and out in frames). Under a crowd's rule form the audit runs on the virtual
raters of :mod:`simcore.realdata.rule_forms`. The SummEval round trip and the calibration study of
advise's risk are experiments (the repository's ``experiments/``).

This package module is itself callable: ``simcore.advise(data, humans=..., judges=...,
**options)`` is :func:`simcore.advise.python_api.advise`. A plain function ``simcore.advise``
could not work, because importing any ``simcore.advise.x`` sets the attribute
``simcore.advise`` to this package, so the package's class is a
:class:`types.ModuleType` subclass whose ``__call__`` imports the API on first call
(``import simcore.advise`` stays as light as before).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

import sys
import types

from simcore._lazy import attach

__all__ = [
    "audit_judges",
    "extend_mask",
    "group_summary",
    "judge_anchor",
    "monte_carlo_se",
    "posterior_risk",
    "python_api",
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
        "python_api": ("python_api",),
        "report.files": ("write_outputs",),
        "risk.posterior": ("monte_carlo_se", "posterior_risk"),
        "verdict": ("verdicts",),
    },
)


class _CallableModule(types.ModuleType):
    """The ``simcore.advise`` package, callable as :func:`simcore.advise.python_api.advise`."""

    def __call__(self, data, humans=None, judges=None, **options):
        """Audit ``data`` and plan its next round: :func:`simcore.advise.python_api.advise`."""
        from simcore.advise.python_api import advise

        return advise(data, humans=humans, judges=judges, **options)


sys.modules[__name__].__class__ = _CallableModule
