"""``simcore advise``: audit a sparse validation matrix and plan its next round.

The latent-class fits (fit: Dawid-Skene; one_coin; models: the choice between them and the
bootstrap), the raters' channels as the simulation reads them (channels), the agreement
checks (diagnostics), the next round's proposals (next_round), the verdict on the data as
it is (verdict), the risk of a wrong verdict (risk, on the simulated matrices of
risk_draws), the audit, the budget comparison and the plan that join them (advice), the
files written (report_files, report_figure, groups), and the Python API (python_api, with
the DataFrames in and out in frames). The SummEval round trip and the calibration study of
advise's risk are experiments (:mod:`simcore.experiments`).

This package module is itself callable: ``simcore.advise(data, humans=..., judges=...,
**options)`` is :func:`simcore.advise.python_api.advise`. A plain function ``simcore.advise``
could not work, because importing any ``simcore.advise.x`` sets the attribute
``simcore.advise`` to this package, so the package's class is a
:class:`types.ModuleType` subclass whose ``__call__`` imports the API on first call
(``import simcore.advise`` stays as light as before).
"""

import sys
import types


class _CallableModule(types.ModuleType):
    """The ``simcore.advise`` package, callable as :func:`simcore.advise.python_api.advise`."""

    def __call__(self, data, humans=None, judges=None, **options):
        """Audit ``data`` and plan its next round: :func:`simcore.advise.python_api.advise`."""
        from simcore.advise.python_api import advise

        return advise(data, humans=humans, judges=judges, **options)


sys.modules[__name__].__class__ = _CallableModule
