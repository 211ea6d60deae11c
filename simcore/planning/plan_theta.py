"""Which failure rate ``simcore calibrate --plan`` plans for, and why (``--plan-theta``).

A pilot (the calibration table and the judge's ``fails`` of ``N`` production rows, ``q =
fails/N``) gives two estimates of the production failure rate theta, and they can differ a
lot:

* ``reported``: the estimate ``simcore calibrate`` reports for the same counts and
  ``--method`` (for ``lr``, Rogan-Gladen ``(q + Sp - 1)/(Se + Sp - 1)`` clipped to [0, 1]). It
  assumes only that the judge's TPR and TNR on the calibration rows hold in production, so
  it holds for rows drawn from human-labelled FAIL and PASS pools too;
* ``stratified``: ``q p1 + (1 - q) p0`` with ``p1 = caught/(caught + flagged)`` and ``p0 =
  missed/(missed + cleared)`` the human FAIL shares among the rows the judge failed and
  passed. It assumes the calibration rows within each judge label are like production's, as
  a random production sample's are; a pilot enriched in failures carries its FAIL share
  into production.

:func:`planned_theta` takes one of them or a rate the user assumes and says which, with the
other beside it, in the plan's text (:meth:`PlannedTheta.lines`) and JSON
(:meth:`PlannedTheta.document`). At a rate of 0 or 1 the plan is degenerate (no failures, or
no passes, to find; the simulated intervals collapse to zero width and a handful of labels
"suffice"), so where the reported estimate is clipped to 0 (or 1) the plan is for the far end
of the report's own interval, the largest (smallest) rate the pilot does not rule out.
"""

from dataclasses import dataclass

from simcore.calibration.errors import CalibrationInputError

ESTIMATORS = {
    "lr": ("rogan-gladen", "Rogan-Gladen"),
    "naive": ("rogan-gladen", "Rogan-Gladen"),
    "ppi": ("ppi", "PPI"),
    "ppi++": ("ppi++", "PPI++"),
    "strat-ppi": ("stratified-ppi", "stratified PPI"),
    "strat-wilson": ("stratified-ppi", "stratified PPI"),
}
"""Each ``--method``'s point estimator: its JSON name and its name in the text."""


@dataclass(frozen=True)
class PlannedTheta:
    """The failure rate a plan is for, where it came from, and the pilot's two estimates.

    Attributes
    ----------
    value : float
        The rate planned for.
    source : str
        ``reported``, ``stratified``, ``assumed`` (a rate given as ``--plan-theta``) or
        ``theta`` (``--theta``, no pilot).
    planned_at : str
        ``estimate``, ``interval_high`` or ``interval_low`` (the report's estimate is
        clipped to 0 or 1 and the plan is for its interval's far end), or ``given``.
    method : str or None
        The ``--method`` whose estimate is ``reported`` (``all`` reads as ``lr``).
    reported : float or None
        What ``simcore calibrate`` reports for the pilot; None where it refuses to correct.
    interval : tuple of float or None
        The report's interval ``(low, high)``.
    stratified : float or None
        The stratified estimate.
    shares : tuple of float or None
        The calibration rows' human FAIL share, their judge FAIL share, and the judge's
        production FAIL share ``q``.
    confidence : float
        The interval's confidence.
    """

    value: float
    source: str
    planned_at: str = "given"
    method: str | None = None
    reported: float | None = None
    interval: tuple | None = None
    stratified: float | None = None
    shares: tuple | None = None
    confidence: float = 0.95

    def document(self):
        """Return the JSON ``plan_theta`` mapping: value, source and the pilot's estimates."""
        estimates = None
        if self.source != "theta":
            estimates = {"reported": self.reported, "stratified": self.stratified}
        shares = None
        if self.shares is not None:
            human, judge, production = self.shares
            shares = {
                "calibration_human_fail": human,
                "calibration_judge_fail": judge,
                "production_judge_fail": production,
            }
        return {
            "value": self.value,
            "source": self.source,
            "estimator": _estimator(self)[0],
            "method": self.method,
            "planned_at": self.planned_at,
            "estimates": estimates,
            "reported_interval": None
            if self.interval is None
            else {"low": self.interval[0], "high": self.interval[1]},
            "shares": shares,
        }

    def lines(self):
        """Return the plan's lines naming the rate planned for (none for ``--theta``)."""
        if self.source == "theta":
            return []
        command = _command(self.method)
        label = ESTIMATORS[self.method][1]
        head = f"failure rate planned for: {self.value:.4f}"
        if self.source == "assumed":
            told = f"`{command}` reports {_rate(self.reported)} ({label})"
            return [
                f"{head}, as assumed (--plan-theta {self.value:g}); this pilot's estimates: "
                f"{told}, stratified {self.stratified:.4f}"
            ]
        differ = self.reported is None or round(self.reported, 4) != round(self.stratified, 4)
        if self.source == "stratified":
            lines = [f"{head}, the stratified estimate (--plan-theta stratified), {_why(self)}"]
            if differ:
                lines.append(f"`{command}` reports {_rate(self.reported)} ({label}) for this pilot")
            return lines
        if self.planned_at == "estimate":
            lines = [f"{head}, the {label} estimate `{command}` reports for this pilot"]
        else:
            end, bound = ("upper", 0) if self.planned_at == "interval_high" else ("lower", 1)
            low, high = self.interval
            lines = [
                f"{head}, the {end} end of the {100 * self.confidence:g}% interval "
                f"[{low:.3f}, {high:.3f}] `{command}` reports for this pilot: its {label} "
                f"estimate is clipped to {bound}, where a plan is degenerate (every simulated "
                "interval zero-wide); --plan-theta RATE plans for another rate"
            ]
        if differ:
            lines.append(f"--plan-theta stratified gives {self.stratified:.4f}, {_why(self)}")
        return lines


def _command(method):
    """Return the command line whose report gives the ``reported`` estimate."""
    return "simcore calibrate" if method == "lr" else f"simcore calibrate --method {method}"


def _rate(value):
    """Return a reported rate as text, or what the report says where it refuses."""
    return "no corrected rate" if value is None else f"{value:.4f}"


def _estimator(chosen):
    """Return ``(JSON name, text name)`` of the estimator of ``chosen``'s value."""
    if chosen.source == "reported":
        return ESTIMATORS[chosen.method]
    if chosen.source == "stratified":
        return "stratified", "stratified"
    return None, None


def _why(chosen):
    """Return why the stratified estimate may differ: its assumption, and the pilot's shares."""
    human, judge, production = chosen.shares
    return (
        "which assumes the calibration rows are a random production sample: their human FAIL "
        f"share {human:.2f} and judge FAIL share {judge:.2f}, against the judge's production "
        f"FAIL share {production:.2f}"
    )


def planned_theta(choice, table, production, stratified, report):
    """Return the :class:`PlannedTheta` of a pilot for ``--plan-theta`` ``choice``.

    Parameters
    ----------
    choice : str or float
        ``reported``, ``stratified`` or a rate in (0, 1)
        (:func:`simcore.command_options.plan_theta_choice`).
    table : tuple of int
        The pilot's ``(caught, missed, flagged, cleared)``.
    production : tuple of int
        ``(fails, N)``: the judge failed ``fails`` of ``N`` production rows.
    stratified : float
        The stratified estimate
        (:meth:`simcore.calibration.JudgeProfile.from_pilot`).
    report : tuple
        ``(method, confidence, youden_floor)`` of the report whose estimate is ``reported``.

    Returns
    -------
    PlannedTheta
        ``reported``: the report's estimate, or where it is clipped to 0 (1) its interval's
        upper (lower) end; ``stratified``: ``stratified``; a number: that rate.

    Raises
    ------
    CalibrationInputError
        The report refuses to correct the pilot (``reported``), or the rate planned for is
        0 or 1 (a degenerate plan); the message names ``--plan-theta``.
    """
    from simcore.calibration.statistics import corrected_rates

    method, confidence, youden_floor = report
    method = "lr" if method == "all" else method
    fails, n_production = production
    (rate,) = corrected_rates(
        fails, n_production, *table, confidence, youden_floor, methods=(method,)
    )
    caught, missed, flagged, cleared = table
    rows = sum(table)
    shares = ((caught + missed) / rows, (caught + flagged) / rows, fails / n_production)
    pilot = {
        "method": method,
        "reported": float(rate.estimate) if bool(rate.corrected) else None,
        "interval": (float(rate.low), float(rate.high)),
        "stratified": float(stratified),
        "shares": shares,
        "confidence": confidence,
    }
    if choice == "stratified":
        return _not_degenerate(PlannedTheta(float(stratified), "stratified", **pilot))
    if choice != "reported":
        return _not_degenerate(PlannedTheta(float(choice), "assumed", **pilot))
    if pilot["reported"] is None:
        raise CalibrationInputError(
            f"--plan-theta reported: `{_command(method)}` refuses to correct this pilot "
            f"({rate.refusal}), so it reports no failure rate to plan for; give "
            "--plan-theta stratified or a rate in (0, 1)"
        )
    at = {0.0: "interval_high", 1.0: "interval_low"}.get(pilot["reported"], "estimate")
    value = {"interval_high": rate.high, "interval_low": rate.low}.get(at, rate.estimate)
    return _not_degenerate(PlannedTheta(float(value), "reported", at, **pilot))


def _not_degenerate(chosen):
    """Return ``chosen`` unless its rate is 0 or 1 (CalibrationInputError naming the flag)."""
    if 0.0 < chosen.value < 1.0:
        return chosen
    raise CalibrationInputError(
        f"--plan-theta {chosen.source}: the rate to plan for is {chosen.value:g}, where a plan "
        "is degenerate (no failures, or no passes, to find); give --plan-theta a rate in (0, 1) "
        f"(got {chosen.value:g})"
    )
