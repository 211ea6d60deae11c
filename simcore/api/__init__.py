"""simcore's Python face: one function per command, each returning what the command prints.

Scenarios (scenarios): :func:`load_scenario`, :func:`run` and :func:`estimate`. A matrix of
labels (data): :func:`inspect`, :func:`agreement`, :func:`ceiling`, :func:`wellposed`,
:func:`card` and :func:`card_check`, with the checks and reports of the instrument
commands in instrument. :func:`advise` and :func:`advise_groups` (audit) audit a sparse
validation matrix and plan its next round; :func:`calibrate` (calibration, with its inputs
checked in calibrate_inputs and clustered items in calibrate_clusters) corrects a
production failure rate, :func:`plan_calibration` plans its calibration set; :func:`monitor`
(monitoring) follows it over time. :func:`settle` (sequential) reads a judge's verdict at
every round of labelling, valid under any rule for stopping; :func:`gate` reads a judge
command's result against the conditions of ``--fail-if``. Each data command's result is
typed (results): a subclass of :class:`~simcore.api.results.CommandResult`, such as
:class:`~simcore.api.results.InspectResult` or :class:`~simcore.api.results.CalibrationResult`,
with its document's fields as attributes, ``summary()``, and ``to_dict()`` the command's
``--json``. ``simcore.NAME`` is ``simcore.api.NAME``.

``__all__`` lists the public names; each is imported from its module on first use
(:func:`simcore._lazy.attach`), so ``import simcore`` stays light.
"""

from simcore._lazy import attach
from simcore.api.results import RESULT_NAMES

API_NAMES = (
    "advise",
    "advise_groups",
    "agreement",
    "calibrate",
    "card",
    "card_check",
    "ceiling",
    "estimate",
    "gate",
    "inspect",
    "load_scenario",
    "monitor",
    "plan_calibration",
    "run",
    "settle",
    "wellposed",
)
"""The command functions, each also ``simcore.NAME``."""

__all__ = [*RESULT_NAMES, *API_NAMES]

__getattr__, __dir__ = attach(
    __name__,
    {
        "audit": ("advise", "advise_groups"),
        "calibration": ("calibrate", "plan_calibration"),
        "ci_gate": ("gate",),
        "data": ("agreement", "card", "card_check", "ceiling", "inspect", "wellposed"),
        "monitoring": ("monitor",),
        "results": RESULT_NAMES,
        "scenarios": ("estimate", "load_scenario", "run"),
        "sequential": ("settle",),
    },
)
