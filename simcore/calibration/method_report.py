"""``simcore calibrate --method``: the failure rate by several methods, side by side.

:func:`format_method_report` prints the calibrate report's summary (calibration set, TPR,
TNR, J, observed rate), then one row per method (estimate and interval, clipped to [0, 1], or
the observed rate where the method refused, with the reason) and a one-line note on each
method's assumptions.
"""

from simcore.calibration.command import _interval, summary_lines
from simcore.calibration.methods import METHODS
from simcore.calibration.statistics import corrected_failure_rate, corrected_rates

ASSUMPTIONS = {
    "lr": "Rogan-Gladen (q + TNR - 1) / J, Lang-Reiczigel interval: the judge's TPR and TNR "
    "carry over from the calibration set to production (their FAIL shares may differ); "
    "refused below the Youden floor",
    "naive": "Rogan-Gladen with the observed rate's Wilson interval, TPR and TNR taken as "
    "exact: too narrow, for comparison only",
    "ppi": "q + (missed - flagged) / n: the calibration rows are a random sample of the "
    "production population; normal approximation; narrow at small n when the judge agrees "
    "with every calibration row",
    "ppi++": "lambda q + mean(human - lambda judge), lambda estimated (power tuning) in [0, 1]: "
    "as ppi; lambda = 0 (the human labels' mean) where every judge label is the same",
    "strat-ppi": "PPV q + (1 - NPV)(1 - q): the calibration rows are representative within "
    "each judge-label stratum (they may be sampled per stratum); the stratum shares are "
    "estimated from production",
    "strat-wilson": "as strat-ppi, with the MOVER interval on each stratum's Wilson limits: it "
    "keeps its coverage where a stratum's FAILs are rare",
}
"""One line per method of :data:`~simcore.calibration.methods.METHODS` on its assumptions."""


def format_method_report(
    table, judge_fails, n_production, method="all", confidence=0.95, youden_floor=0.15
):
    """Return the calibrate report by ``method`` (one of ``METHODS``, or ``"all"``).

    ``table`` is ``(fail_caught, fail_missed, pass_flagged, pass_cleared)``. After the
    summary lines of the default report, a table gives each method's estimate and interval
    (clipped to [0, 1]; ``lambda`` for ppi++), refused methods are marked and their reasons
    listed, and one line per method states its assumptions.
    """
    methods = METHODS if method == "all" else (method,)
    level = f"{100 * confidence:g}%"
    summary = corrected_failure_rate(
        judge_fails, n_production, *table, confidence=confidence, youden_floor=youden_floor
    )
    rates = corrected_rates(
        judge_fails,
        n_production,
        *table,
        confidence=confidence,
        youden_floor=youden_floor,
        methods=methods,
    )
    caught, _, flagged, _ = table
    calibration_share = (caught + flagged) / sum(table) if sum(table) else float("nan")
    lines = summary_lines(table, judge_fails, n_production, summary, level, youden_floor)
    lines += [
        f"judge FAIL share: {calibration_share:.4f} of the calibration set, "
        f"{float(summary.observed):.4f} of production (PPI assumes one population)",
        f"{'method':<12} {'estimate':>8}  {level} interval",
    ]
    for rate in rates:
        row = f"{rate.method:<12} {float(rate.estimate):8.4f}  {_interval(rate.low, rate.high)}"
        if not bool(rate.corrected):
            row += "  refused: observed rate, Wilson interval"
        elif rate.method == "ppi++":
            row += f"  lambda = {float(rate.lam):.3f}"
        lines.append(row)
    lines += [f"{rate.method} not corrected: {rate.refusal}" for rate in rates if rate.refusal]
    lines.append("estimates and intervals clipped to [0, 1]; assumptions:")
    lines += [f"  {rate.method:<12} {ASSUMPTIONS[rate.method]}" for rate in rates]
    return "\n".join(lines)


def _number(value):
    value = float(value)
    return value if value == value else None


def method_rows(rates):
    """Return the ``methods`` rows of a calibrate document, one per :class:`MethodRate`."""
    return [
        {
            "method": rate.method,
            "corrected": bool(rate.corrected),
            "estimate": _number(rate.estimate),
            "low": _number(rate.low),
            "high": _number(rate.high),
            "refusal": str(rate.refusal),
        }
        for rate in rates
    ]
