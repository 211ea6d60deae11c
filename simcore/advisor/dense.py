"""The risk now of a dense matrix: exactly 0, without a simulation, and saying why.

The risk now is ``P(sparse verdict != dense verdict)``, the dense verdict being the rule's
on the matrix where every human labels every item. When the matrix is already dense (every
human has labelled every item), the verdict *is* the dense verdict: the risk is 0 exactly,
with no Monte Carlo error, and nothing is simulated (:func:`dense_risk`). The fitted model
is still fitted (its accuracies and the Gaussian recipe are reported), but its misfits have
no bearing on a risk that is not simulated, so they raise no warning (:func:`misfit_note`).

The basis of each judge's risk now, ``dense`` or ``simulated``, reaches ``simcore advise
--json`` as ``risk_now`` (:func:`risk_now_document`) and the printed summary and report as
a sentence (:func:`risk_text`).
"""

from simcore.advisor.anchored import judge_anchor
from simcore.advisor.recipe import recipe
from simcore.advisor.risk.posterior import JudgeRisk, RiskCurve, judge_risk
from simcore.advisor.settings import Proposal
from simcore.printed_rates import share_text

DENSE_REASON = "dense: every human labels every item, so the verdict is the dense verdict"
"""Why a dense matrix's risk now is 0, as the summary and the report say it."""


def is_dense(available):
    """Whether every human labels every item of ``available`` (bool ``(n, K)``, n, K >= 1)."""
    return available.size > 0 and bool(available.all())


def dense_risk(model, available, judge_name, design, epsilon, scoring=None):
    """Return the judge's risk on a dense matrix: 0, not simulated.

    A :class:`simcore.advisor.risk.posterior.JudgeRisk`.

    The risk now is ``0`` with SE ``0`` (the sparse matrix is the dense one, so
    ``P(sparse verdict != dense verdict) = 0`` exactly); the curve is its one point at
    0 extra items with 0 simulated matrices (a dense matrix has no item left to label,
    :func:`simcore.advisor.advice.curve_grid`); the recipe is the fitted model's
    (:func:`simcore.advisor.risk.posterior.recipe`), and the refits are those already fitted.
    """
    curve = RiskCurve(judge_name, design, extra=[0], wrong=[0], trials=[0])
    binding = recipe(model.fit.raters, model.fit.prevalence, available, 0, epsilon, scoring=scoring)
    return JudgeRisk(curve, (0.0, 0.0), binding, model.bootstrap.refits)


def risk_basis(advice, name):
    """Return ``dense`` when judge ``name``'s risk now was not simulated, else ``simulated``.

    A risk now of no simulated matrix is a dense matrix's (:func:`dense_risk`); a judge
    without a risk now (a grid without 0) is ``none``.
    """
    curve = advice.curves[name]
    if not curve.extra or curve.extra[0] != 0:
        return "none"
    return "dense" if curve.trials[0] == 0 else "simulated"


def risk_now_document(advice):
    """Return ``--json``'s ``risk_now``: per judge its risk, SE, basis and simulated matrices.

    ``{judge: {"risk", "se", "basis", "trials", "reason"}}``; ``basis`` is ``dense`` (0
    exactly, SE 0, no simulation: :func:`dense_risk`) or ``simulated`` (the
    posterior-predictive share of simulated matrices whose sparse verdict differs from the
    dense one, ± its Monte Carlo SE); ``reason`` says it in words.
    """
    document = {}
    for name, (rate, se) in advice.risk_now.items():
        basis = risk_basis(advice, name)
        curve = advice.curves[name]
        document[name] = {
            "risk": float(rate),
            "se": float(se),
            "basis": basis,
            "trials": int(curve.trials[0]) if basis != "none" else 0,
            "reason": DENSE_REASON
            if basis == "dense"
            else "simulated under bootstrap refits of the fitted model",
        }
    return document


def risk_text(advice, name):
    """Return judge ``name``'s risk now as the summary prints it.

    ``0% (dense: ...)`` for a dense matrix (:data:`DENSE_REASON`), otherwise the risk of
    its simulated matrices as :func:`simcore.printed_rates.share_text` prints it: ``r% ± se``
    with ten or more wrong verdicts and right ones, else the exact 95% interval (``< 0.3%``
    for none of 1,000).
    """
    rate, se = advice.risk_now[name]
    basis = risk_basis(advice, name)
    if basis == "dense":
        return f"0% ({DENSE_REASON})"
    trials = int(advice.curves[name].trials[0]) if basis == "simulated" else 0
    return share_text(rate, se, trials, unit="%")


def all_dense(advice):
    """Whether every audited judge's risk now is a dense matrix's (nothing simulated)."""
    return bool(advice.curves) and all(
        risk_basis(advice, name) == "dense" for name in advice.curves
    )


def misfit_note(advice):
    """Return the report's sentence on misfits when nothing is simulated, else None.

    On a dense matrix the risk is not simulated, so how well the model fits the rater pairs
    has no bearing on it; the model table still shows the largest misfit.
    """
    if not all_dense(advice):
        return None
    return (
        "The matrix is dense, so no risk is simulated and the models' fit to the rater "
        "pairs (the table's largest misfit) has no bearing on the risk."
    )


def audit_risks(models, verdict_rows, available, human_labels, rule, plan, risk_se, say):  # noqa: PLR0913 (the matrix's arrays, the rule and the plan)
    """Return ``{judge: JudgeRisk}``: each audited judge's risks (steps 2-3 of the audit).

    ``rule`` and ``plan`` are the audit's :class:`~simcore.advisor.settings.AuditRule` and
    :class:`~simcore.advisor.settings.AuditPlan` (the curves' design, grid, target, trials
    and seed); ``human_labels`` stratify the proposals; ``risk_se`` is the SE the risk now
    is drawn to.

    On a dense matrix (:func:`is_dense`) each is :func:`dense_risk`, nothing simulated;
    otherwise :func:`simcore.advisor.risk.posterior.judge_risk`, anchored at the judge's observed
    comparisons (:func:`simcore.advisor.anchored.judge_anchor`), the proposals shared by
    every judge. ``models`` and ``verdict_rows`` are per judge, in the same order;
    ``say`` is called as each judge starts.
    """
    dense = is_dense(available)
    # proposals shared by every judge (simcore.advisor.risk.posterior.simulate_risk)
    proposal = Proposal(plan.design, 0, human_labels, pools={})
    grid = plan.grid
    risks = {}
    for number, (name, row) in enumerate(zip(models, verdict_rows, strict=True), start=1):
        if dense:
            say(f"{name} ({number}/{len(models)}): dense matrix, risk now 0 without simulation")
            risks[name] = dense_risk(
                models[name], available, name, plan.design, rule.epsilon, rule.scoring
            )
            continue
        say(
            f"{name} ({number}/{len(models)}): simulating the risk of a wrong verdict "
            f"({plan.trials} matrices at each of {len(grid) + 1} sizes)"
        )
        risks[name] = judge_risk(
            models[name], available, name, rule, plan, proposal, risk_se, judge_anchor(row)
        )
    return risks
