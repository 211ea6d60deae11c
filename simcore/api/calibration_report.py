"""The calibrate report of four calibration counts and a production count, as a result.

One place builds :func:`simcore.calibrate`'s document and text from
``(caught, missed, flagged, cleared)`` and ``fails`` of ``of``, whatever the counts were
measured against (the ``truth`` field says it): the counts as given, the humans' majority,
a card's truth, or the latent truth's effective counts (:mod:`simcore.api.calibrate_truth`).
"""

from simcore.api.results import CalibrationResult
from simcore.calibration.method_report import method_rows
from simcore.command_options import CALIBRATE_OPTIONS

METHODS = CALIBRATE_OPTIONS[0].choices
"""``method``: :data:`simcore.calibration.methods.METHODS` and ``all``."""

GIVEN_TRUTH = {
    "kind": "given",
    "text": "the human truth of the calibration counts as given (table or csv)",
}
"""The ``truth`` of a calibration read from counts or a per-item CSV: what the user counted."""


def _number(value):
    value = float(value)
    return value if value == value else None


def _document(table, fails, n, result, rates):
    """Return the JSON document of a calibration report."""
    caught, missed, flagged, cleared = table
    judge = result.rates
    document = {
        "calibration": {
            "caught": caught,
            "missed": missed,
            "flagged": flagged,
            "cleared": cleared,
            "rows": sum(table),
        },
        "tpr": {
            "estimate": _number(judge.tpr),
            "low": _number(judge.tpr_low),
            "high": _number(judge.tpr_high),
        },
        "tnr": {
            "estimate": _number(judge.tnr),
            "low": _number(judge.tnr_low),
            "high": _number(judge.tnr_high),
        },
        "youden_j": _number(result.youden),
        "production": {
            "fails": fails,
            "of": n,
            "observed": _number(result.observed),
            "low": _number(result.observed_low),
            "high": _number(result.observed_high),
        },
        "corrected": bool(result.corrected),
        "refusal": str(result.refusal),
        "estimate": _number(result.estimate),
        "interval": {
            "method": "lang-reiczigel",
            "low": _number(result.lr_low),
            "high": _number(result.lr_high),
        },
        "naive_interval": {"low": _number(result.naive_low), "high": _number(result.naive_high)},
        "calibration_share": _number(result.calibration_share),
    }
    document["methods"] = method_rows(rates)
    return document


def report_of_counts(table, fails, of, method, confidence, youden_floor, truth=None):
    """Return the result of the counts: the report's text and its document.

    ``truth`` is the document's ``truth`` field (what the counts were measured against);
    default: the counts as given. A truth simcore formed (the majority, a card's) opens the
    text: ``truth: majority: ...``.
    """
    from simcore.calibration.command import format_report
    from simcore.calibration.method_report import format_method_report
    from simcore.calibration.statistics import corrected_failure_rate, corrected_rates

    result = corrected_failure_rate(
        fails, of, *table, confidence=confidence, youden_floor=youden_floor
    )
    chosen = ("lr",) if method == "lr" else (METHODS[:-1] if method == "all" else (method,))
    rates = corrected_rates(
        fails, of, *table, confidence=confidence, youden_floor=youden_floor, methods=chosen
    )
    if method == "lr":
        text = format_report(table, fails, of, confidence, youden_floor)
    else:
        text = format_method_report(table, fails, of, method, confidence, youden_floor)
    document = _document(table, fails, of, result, rates)
    document["truth"] = truth or GIVEN_TRUTH
    if truth is not None:
        counted = (
            "; the counts below are its effective counts (the latent rates with their "
            "bootstrap variance), not items"
            if truth["kind"] == "latent"
            else ""
        )
        text = f"truth: {truth['kind']}: {truth['text']}{counted}\n{text}"
    return CalibrationResult("calibrate", document, text, {"methods": "methods"})
