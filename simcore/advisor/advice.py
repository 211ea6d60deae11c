"""``simcore advise``: audit a sparse validation matrix and plan its next annotation round.

Four steps, joined by :func:`advise`; the first two audit the matrix as it is
(:func:`audit_judges`), the last two plan the next round (:func:`plan_next_round`):

1. **The verdict as it is** (:mod:`simcore.advisor.verdict`): per judge, every leave-one-out
   comparison ``d_k`` with its item-cluster confidence interval and the pairs behind it,
   omega, the effective K (comparisons with at least two items), the point rule's decision
   and the interval verdict (docs/explanation/rule.md).
2. **How much to trust it** (:mod:`simcore.advisor.risk.posterior`): the synthetic model fitted to
   the humans and each judge (:func:`fit_judge_model`, Dawid-Skene) draws fresh matrices with the
   data's own overlap structure, and the rule is run on each one on the sparse matrix and on the
   dense one (every human labels every item). The risk is the share of draws whose sparse verdict
   differs from the dense one; each run of draws comes from its own bootstrap refit, so the fit's
   uncertainty is inside it (its SE is Monte Carlo only). Under the point rule the simulated
   comparisons are anchored at the observed ones (:mod:`simcore.advisor.anchored`): the model says
   how far they move, the data where.
3. **What to label next** (:func:`simcore.advisor.risk.posterior.risk_curve`): the same risk when
   each secondary labels ``extra`` more items chosen by a design
   (:func:`simcore.advisor.next_round.extend_mask`), over a grid of ``extra``; the smallest grid
   value whose risk is under the target, beside the Gaussian certification recipe from the fitted
   model (docs/howto/plan.md); with a budget, the risk of spending it under each design; one
   recommendation read from them (:mod:`simcore.advisor.recommendation`).
4. **The allocation** (:func:`simcore.advisor.report.files.write_outputs`): ``next_round.csv``
   (for each secondary, the items to label next), ``report.md`` and ``report.png``.
"""

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcore.advisor.dense import audit_risks
from simcore.advisor.diagnostics import agreement_diagnostics, poor_fit
from simcore.advisor.models import fit_matrix, matrix_columns
from simcore.advisor.next_round import extend_mask
from simcore.advisor.recommendation import (  # noqa: F401  (budget_* and Reach re-exported)
    Reach,
    above_target,
    budget_comparison,
    budget_row,
    next_round_size,
    reachability,
    recommend,
    recommended_extra,
)
from simcore.advisor.report.plan import recommendation_text
from simcore.advisor.risk.posterior import RISK_SE_TARGET
from simcore.advisor.scoring import coefficient_label
from simcore.advisor.scoring_check import attach_scoring_check
from simcore.advisor.settings import AuditPlan, AuditRule
from simcore.advisor.verdict import (
    comparison_intervals,  # noqa: F401  (re-exported)
    verdicts,
)
from simcore.advisor.views import AdviceView
from simcore.model.decision_rule import Rule
from simcore.model.rule_form import form_for
from simcore.realdata.data_shape import data_shape
from simcore.realdata.rule_forms import virtual_annotation

ADVISE_MIN_COMPARISONS = 1
"""advise decides in every form as the rule does with ``min_comparisons`` 1: its risk counts
an inconclusive verdict as differing."""


# --------------------------------------------------------------------------- the model


@dataclass
class JudgeModel:
    """The synthetic model fitted to the humans and one judge, with its checks."""

    fit: object
    errors: object
    rater_names: tuple
    diagnostics: list
    bootstrap: object

    @property
    def refits(self):
        """The bootstrap refits drawn so far (:class:`simcore.advisor.models.Bootstrap`)."""
        return self.bootstrap.refits

    @property
    def misfits(self):
        """The rater pairs the model fits poorly (:func:`simcore.advisor.diagnostics.poor_fit`)."""
        return poor_fit(self.diagnostics)


def fit_judge_model(matrix, judge, n_boot=30, seed=0, model="auto"):
    """Fit the humans and one judge (:func:`simcore.advisor.models.fit_matrix`); check it.

    One model per judge: the judges' errors are often correlated with each other (they
    agree beyond what a conditionally independent model allows), so fitting several judges
    together lets them outvote the humans on the latent label. The judge's own labels do
    enter the E-step: leaving them out would estimate its confusion matrix against a soft
    latent label, which attenuates it (the likelihood must include every rater fitted).
    The ``n_boot`` bootstrap refits give the errors; the risk draws its matrices from them
    and from more refits of the same bootstrap when it needs them
    (:func:`simcore.advisor.risk.posterior.adaptive_risk_now`), so nothing is fitted twice.
    """
    fit, errors, rater_names, bootstrap = fit_matrix(
        matrix, judges=[judge], n_boot=n_boot, seed=seed, model=model, with_refits=True
    )
    labels, observed, _ = matrix_columns(matrix, [judge])
    diagnostics = agreement_diagnostics(labels, observed, fit, rater_names)
    return JudgeModel(fit, errors, tuple(rater_names), diagnostics, bootstrap)


@dataclass
class Advice(AdviceView):
    """Everything :func:`advise` found; :func:`.report.files.write_outputs` writes it.

    ``recommendation`` is the one answer (labels to buy, where, how sure;
    :class:`simcore.advisor.recommendation.Recommendation`); ``recommended_extra``,
    ``recipes`` and the curves are the details behind it. Its base
    :class:`~simcore.advisor.views.AdviceView` adds the report's tables as DataFrames,
    ``to_markdown()`` and ``plot()``.
    """

    recommendation: object  # simcore.advisor.recommendation.Recommendation, first
    source: str
    humans: tuple
    judges: tuple
    labels: tuple
    rule: str
    epsilon: float
    target: float
    design: str
    curve_design: str
    extra: int
    verdicts: list
    models: dict
    risk_now: dict
    curves: dict
    recipes: dict
    recommended_extra: int
    budget: int | None
    budget_rows: list
    proposal: np.ndarray
    items: tuple
    co_labelled: np.ndarray
    reach: object = None
    min_pairs: int = 0
    shape: object = None  # the matrix's simcore.realdata.data_shape.DataShape
    rule_form: object = None  # simcore.model.rule_form.RuleForm: who the rule held out
    coefficient: str = "observed"  # the point rule's coefficient, with its level or weights
    label_scale: object = None  # simcore.realdata.label_scale.LabelScale of the labels
    scoring: str = "observed agreement (exact match)"  # the verdicts' scoring, in words
    scoring_check: dict | None = None  # each verdict under the other scoring of a rating scale
    tau: float = 0.5  # the acceptance threshold the verdicts used (omega >= tau accepts)

    @property
    def misfits(self):
        """``(judge, row)`` for every rater pair a judge's fitted model fits poorly."""
        return [(name, row) for name, model in self.models.items() for row in model.misfits]


# --------------------------------------------------------------------------- the audit


class Audit(NamedTuple):
    """The matrix as it is, audited (steps 1 and 2 of :func:`advise`).

    Attributes
    ----------
    judges : tuple of str
        The audited judges.
    rule : simcore.advisor.settings.AuditRule
        The rule of the verdicts and of every simulation.
    plan : simcore.advisor.settings.AuditPlan
        The plan audited: the curves' design (:attr:`curve_design`) and grid (:attr:`grid`,
        capped by what is unlabelled), the target, trials and seed of every simulation.
    human_labels : numpy.ndarray
        int64 ``(n, K)`` codes, negative where missing.
    available : numpy.ndarray
        bool ``(n, K)``: which human labelled which item.
    verdicts : list of dict
        One row per judge (:func:`simcore.advisor.verdict.verdicts`).
    models : dict
        :class:`JudgeModel` per judge.
    risks : dict
        :class:`simcore.advisor.risk.posterior.JudgeRisk` per judge.
    """

    judges: tuple
    rule: AuditRule
    plan: AuditPlan
    human_labels: np.ndarray
    available: np.ndarray
    verdicts: list
    models: dict
    risks: dict

    @property
    def curve_design(self):
        """The design of the risk curves."""
        return self.plan.design

    @property
    def grid(self):
        """Items per secondary of the risk curves."""
        return list(self.plan.grid)


def audited_judges(matrix, judges):
    """Return the names of the judges to audit (default: all); raise on an unknown one."""
    from simcore.realdata.annotation import DataError, unknown_names

    names = tuple(judges) if judges else tuple(matrix.judges)
    problems = unknown_names(names, matrix.judges, matrix.source, "--audit", "judge", "judges")
    if problems:
        raise DataError(problems)
    return names


def curve_grid(grid, available):
    """Return ``grid`` capped at the most items a secondary has left unlabelled, sorted."""
    n_humans = available.shape[1]
    unlabelled = int((~available[:, 1:]).sum(axis=0).max()) if n_humans > 1 else 0
    return sorted({min(int(g), unlabelled) for g in grid})


def audit_judges(matrix, names, rule, plan, say=None, risk_se=RISK_SE_TARGET):
    """Return the :class:`Audit` of the judges ``names``: verdicts, fitted models, risks.

    ``rule`` is the :class:`~simcore.advisor.settings.AuditRule` (resolved on ``matrix``,
    :meth:`~simcore.advisor.settings.AuditRule.on_matrix`); ``plan`` the
    :class:`~simcore.advisor.settings.AuditPlan`: its ``n_boot`` and ``model`` go to
    :func:`fit_judge_model`, its ``design`` and ``grid`` are the risk curves' (the grid is
    capped by :func:`curve_grid`), its ``target`` shortens them
    (:func:`simcore.advisor.risk.posterior.risk_curve`); ``risk_se`` the Monte Carlo SE the
    risk now is drawn to (:func:`simcore.advisor.risk.posterior.adaptive_risk_now`); on a
    dense matrix the risk now is 0 without simulation (:func:`simcore.advisor.dense.audit_risks`).
    """
    human_labels = np.asarray(matrix.human_labels, dtype=np.int64)
    columns = [matrix.judges.index(name) for name in names]
    judge_labels = np.asarray(matrix.judge_labels, dtype=np.int64)[:, columns]
    available = human_labels >= 0
    verdict_rows = verdicts(human_labels, judge_labels, names, rule)
    say = say or (lambda message: None)
    models = {}
    for number, name in enumerate(names, start=1):
        say(f"{name} ({number}/{len(names)}): fitting the latent-class model, {plan.n_boot} refits")
        models[name] = fit_judge_model(matrix, name, plan.n_boot, plan.seed, plan.model)
    plan = dataclasses.replace(plan, grid=tuple(curve_grid(plan.grid, available)))
    risks = audit_risks(models, verdict_rows, available, human_labels, rule, plan, risk_se, say)
    return Audit(names, rule, plan, human_labels, available, verdict_rows, models, risks)


# --------------------------------------------------------------------------- the plan


def plan_next_round(matrix, audit, shape, rule_form):
    """Recommend and propose the next round after ``audit``; return the whole :class:`Advice`.

    ``shape`` and ``rule_form`` are the data's as read and the form the audit ran in (the
    ``matrix`` audited may be the form's virtual raters).

    The audit's plan gives the ``target``, the largest acceptable risk, and the ``budget``, the
    total new labels to spend (None or 0: none). Only the judges whose risk now is above the target
    ask for labels (:func:`simcore.advisor.recommendation.above_target`): when there is none,
    nothing is proposed, with or without a budget. The proposal is drawn from
    ``SeedSequence([seed, 20261130])``; :attr:`Advice.recommendation` says what it buys
    (:func:`simcore.advisor.recommendation.recommend`).
    """
    target, budget = audit.plan.target, audit.plan.budget
    curves = {name: risk.curve for name, risk in audit.risks.items()}
    risk_now = {name: risk.now for name, risk in audit.risks.items()}
    needs_labels = bool(above_target(risk_now, target))
    recommended = recommended_extra(curves.values(), target)
    budget_rows = budget_comparison(audit, budget) if budget else []
    reach = reachability(audit, curves, recommended)
    design, extra = next_round_size(
        budget_rows, audit.curve_design, recommended, reach.reachable, needs_labels
    )
    rng = np.random.default_rng(np.random.SeedSequence([audit.plan.seed, 20_261_130]))
    available = audit.available
    proposal = extend_mask(rng, design, extra, audit.human_labels, available, matrix.n_labels)
    answer = recommend(audit, curves, reach, budget_rows, design, extra, proposal, target)
    advice = Advice(
        recommendation=answer,
        source=str(matrix.source),
        humans=tuple(matrix.humans),
        judges=audit.judges,
        labels=tuple(matrix.labels),
        rule=audit.rule.kind,
        epsilon=audit.rule.epsilon,
        target=target,
        design=design,
        curve_design=audit.curve_design,
        extra=int(extra),
        verdicts=audit.verdicts,
        models=audit.models,
        risk_now=risk_now,
        curves=curves,
        recipes={name: risk.recipe for name, risk in audit.risks.items()},
        recommended_extra=recommended,
        budget=budget,
        budget_rows=budget_rows,
        proposal=proposal,
        items=tuple(matrix.items),
        co_labelled=(available[:, 1:] & available[:, :1]).sum(axis=0),
        reach=reach,
        min_pairs=audit.rule.min_pairs,
        tau=audit.rule.tau,
        shape=shape,
        rule_form=rule_form,
        coefficient=coefficient_label(audit.rule.scoring),
    )
    advice.recommendation = answer._replace(text=recommendation_text(advice))
    return advice


# --------------------------------------------------------------------------- the whole


def advise(matrix, judges=None, rule=Rule(), plan=AuditPlan(), progress=None):
    """Audit ``matrix`` and plan its next round; return an :class:`Advice`.

    Parameters
    ----------
    matrix : simcore.realdata.matrix.AnnotationMatrix
        The data as collected (the first human is the primary).
    judges : list of str, optional
        Judges to audit (default: all).
    rule : simcore.model.decision_rule.Rule
        The decision rule: its ``kind`` (``point`` or ``alt_test``), ``epsilon`` and
        ``tau``; the alt_test's per-item ``scale`` (categorical accuracy, or minus the RMSE
        of the label values, numeric, every label a number; the verdict uses it, the risk
        simulations score as the verdict does); the point rule's ``min_pairs`` (0, the
        paper's convention, lets an empty comparison pass; with 1 or more, omega is over the
        comparisons kept, and none kept is inconclusive; in the verdict and in every
        simulated matrix), its ``form`` (:mod:`simcore.realdata.rule_forms`: ``auto`` by the
        matrix's shape, pooled on a crowd, slots where a few items carry most pairs, else
        every human; ``raters``, ``slots`` or ``pooled``; under slots or pooled the whole
        audit runs on the virtual raters,
        :func:`~simcore.realdata.rule_forms.virtual_annotation`, named in every output, the
        shape reported as read) with ``min_items``, the fewest items a virtual rater shares,
        and its ``coefficient`` with Krippendorff's ``level`` or the agreement ``weights``
        (:mod:`simcore.advisor.scoring`: the verdict, every simulated matrix and the recipe
        score with it; default the paper's observed agreement).
    plan : simcore.advisor.settings.AuditPlan
        The ``target`` (the largest acceptable risk of a wrong verdict); the ``budget``
        (total new labels: each design is then simulated with ``budget // (K - 1)`` items
        per secondary and the best one proposes the next round); the ``design`` of the
        proposal without a budget (default ``strat``: stratified by the current labels);
        ``trials`` simulated matrices per risk estimate and their ``seed`` (also the
        bootstrap's and the proposal's); ``n_boot`` bootstrap refits (the risks are drawn
        from them, posterior-predictive, and from more where the risk now needs them);
        the ``grid`` of items per secondary of the risk curve; the latent-class ``model``
        (``auto``, ``dawid-skene`` or ``one-coin``, :func:`simcore.advisor.models.choose_model`).
    progress : callable, optional
        Called with a short message as each phase starts (fits, risks, the plan).

    Returns
    -------
    Advice
    """
    say = progress or (lambda message: None)
    shape = data_shape(matrix)
    rule_form = form_for(rule.kind, rule.form, shape, rule.min_pairs, ADVISE_MIN_COMPARISONS)
    matrix = virtual_annotation(matrix, rule_form, rule.min_items)
    names = audited_judges(matrix, judges)
    audit_rule = AuditRule.on_matrix(rule, matrix)
    audit = audit_judges(matrix, names, audit_rule, plan, say)
    say(
        "planning the next round"
        + (" and comparing the designs within the budget" if plan.budget else "")
    )
    advice = plan_next_round(matrix, audit, shape, rule_form)
    return attach_scoring_check(advice, matrix, names, audit_rule)


def advise_groups(matrix, pool_groups=False, progress=None, **settings):
    """Return ``{group: Advice}``: each group of ``matrix`` audited on its own, or pooled.

    A matrix without groups, or ``pool_groups``, gives one :class:`Advice` under the name
    :data:`simcore.realdata.matrix.NO_GROUPS` (``all``) or the single group's name; otherwise
    every group (:attr:`~simcore.realdata.matrix.AnnotationMatrix.group_names`) is advised
    on its items alone (:meth:`~simcore.realdata.matrix.AnnotationMatrix.subset`), with the
    same ``judges``, ``rule`` and ``plan`` (``settings``, :func:`advise`). A group's errors
    are prefixed by its name.
    """
    names = matrix.group_names
    if pool_groups or len(names) == 1:
        return {
            names[0] if len(names) == 1 else "all groups": advise(
                matrix, progress=progress, **settings
            )
        }
    say = progress or (lambda message: None)
    results = {}
    for number, name in enumerate(names, start=1):
        say(f"group {name} ({number}/{len(names)})")
        try:
            results[name] = advise(matrix.subset(name), progress=progress, **settings)
        except ValueError as error:
            raise ValueError(f"group {name!r}: {error}") from None
    return results
