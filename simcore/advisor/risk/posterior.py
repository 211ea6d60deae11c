"""The risk of a wrong verdict, simulated under the model fitted to the matrix.

The synthetic model fitted to the matrix (:mod:`simcore.advisor.fit`, Dawid-Skene or
one-coin) draws fresh matrices with the data's own overlap structure (which human labelled
which item), and the rule is run on each one twice: on the sparse matrix and on the dense
one (every human labels every item). The risk is the share of draws whose sparse verdict
differs from the dense verdict, each run of draws under its own bootstrap refit of the model
(:func:`posterior_risk`; under one model, :func:`simulate_risk`), so the fit's uncertainty
is inside the risk and its only error is the Monte Carlo one (:func:`monte_carlo_se`). Under
the point rule the draws' comparisons are anchored at the observed ones
(:mod:`simcore.advisor.anchored`, ``anchor``), centred by the model's expected change and
each weighted between the data and the model by how much its items say
(:func:`model_changes`). The
risk now is drawn until that error is under a point (:func:`adaptive_risk_now`); over a grid
of extra items per secondary it is the risk curve (:func:`risk_curve`); beside it, the
Gaussian certification recipe of the fitted model with the rule's pool weights
(:func:`recipe`, docs/howto/plan.md).
"""

import dataclasses
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from simcore.advisor.anchored import (
    anchored_decisions,
    expected_changes,
    point_decisions,
    shrinkage,
    shrinks,
)
from simcore.advisor.recipe import recipe
from simcore.advisor.risk.draws import (
    draw_matrices,
    misplacement_normals,
    proposal_pool,
    sparse_masks,
)
from simcore.advisor.scoring import score_differences
from simcore.advisor.settings import DRAWS_PER_MODEL, AuditRule, Draws, Proposal
from simcore.advisor.verdict import alt_test_decisions
from simcore.calibration.statistics import wilson_interval
from simcore.engine import layout as engine_layout
from simcore.engine import point_rule as engine_point_rule
from simcore.engine.coefficients import coefficient_code
from simcore.model.rule import decide

# --------------------------------------------------------------------------- one risk


def _decisions(labels, mask, n_humans, n_labels, rule):
    """Sparse and dense decisions of every drawn trial, ``(T,)`` each, under ``rule``.

    ``rule`` is the :class:`~simcore.advisor.settings.AuditRule`. The point rule leaves out
    comparisons with fewer than ``rule.min_pairs`` pairs (omega over the comparisons kept;
    none kept is inconclusive); under another coefficient (``rule.scoring``) it decides on
    :func:`simcore.advisor.scoring.score_differences`. The alt_test scores each item by
    ``rule.item_terms`` (:func:`simcore.advisor.verdict.alt_test_decisions`).
    """
    epsilon, tau, min_pairs = rule.epsilon, rule.tau, rule.min_pairs
    if rule.kind == "alt_test":
        return alt_test_decisions(labels, mask, n_humans, epsilon, tau, rule.item_terms)
    if rule.scoring is not None:
        full = np.ones((1, *mask.shape[1:]), dtype=np.bool_)
        differences = (score_differences(labels, m, n_humans, rule.scoring) for m in (mask, full))
        return tuple(point_decisions(*d, epsilon, tau, min_pairs) for d in differences)
    passes, counters, _ = engine_point_rule.evaluate(
        labels, mask, n_humans, n_labels, epsilon, coefficient_code("observed"), min_pairs
    )
    sparse_tested = n_humans - counters[:, engine_layout.THIN]
    dense_tested = n_humans - counters[:, engine_layout.THIN_DENSE]
    return (
        decide(passes[:, 0, 0], n_humans, tau, tested=sparse_tested),
        decide(passes[:, 1, 0], n_humans, tau, tested=dense_tested),
    )


def simulate_risk(
    raters,
    prevalence,
    available,
    judge,
    rule=AuditRule(),
    draws=Draws(),
    proposal=Proposal(),
    anchor=None,
):
    """Estimate how often the sparse verdict differs from the dense one under the fitted model.

    Parameters
    ----------
    raters : numpy.ndarray or simcore.advisor.channels.OneCoin
        The fitted channels of the humans then the judges: ``(K + J, L, L)`` confusions or
        one-coin accuracies (:mod:`simcore.advisor.channels`).
    prevalence : numpy.ndarray
        ``(L,)`` fitted label probabilities.
    available : numpy.ndarray
        ``(n, K)`` bool: which human labelled which item (the data's overlap structure).
    judge : int
        Judge index (rater ``K + judge``).
    rule : simcore.advisor.settings.AuditRule
        The rule each drawn matrix is decided by (kind, epsilon, tau, min_pairs, the
        coefficient's scoring, the alt_test's per-item score; :func:`_decisions`).
    draws : simcore.advisor.settings.Draws
        ``trials`` most matrices, ``batch`` at once, ``stop_at`` a target at which to stop
        early (after a whole batch, once the 95% Wilson interval of the risk lies entirely
        on one side of it; :func:`settled`). ``seed``: labels from the counter-based
        streams of ``SeedSequence([seed, judge, extra])``
        (:func:`simcore.advisor.channels.draw_labels`), proposals from a generator on
        ``SeedSequence([seed, extra, 1])`` (the same for every judge, so that they can
        share pools).
    proposal : simcore.advisor.settings.Proposal
        With ``extra > 0``: each draw first proposes ``extra`` more items per secondary by
        ``design`` (a pool of :data:`MASK_POOL` proposals, :func:`proposal_pool`; a
        stratified one reads the real ``labels``), and the sparse matrix is the current
        one plus the proposal. Its ``pools``, when given, are shared between calls and
        filled here.
    anchor : numpy.ndarray, optional
        ``(K,)`` observed ``d_k`` of the judge: the point rule then decides on the
        simulated comparisons anchored at them
        (:func:`simcore.advisor.anchored.anchored_decisions`); without it, on the simulated
        matrices as drawn.

    Returns
    -------
    tuple
        ``(wrong, trials)``: draws whose sparse decision differs from the dense one
        (accept vs reject; an inconclusive sparse decision counts as differing), and draws.
    """
    model = Channels(raters, prevalence)
    return posterior_risk(
        [model], available, judge, rule, draws.but(per_model=draws.batch), proposal, anchor
    )


class Channels(NamedTuple):
    """One model's channels, as :func:`posterior_risk` reads a fit: raters and prevalence."""

    raters: object
    prevalence: np.ndarray


def posterior_risk(
    models, available, judge, rule=AuditRule(), draws=Draws(), proposal=Proposal(), anchor=None
):
    """Posterior-predictive risk: each run of ``draws.per_model`` draws comes from its own model.

    ``models`` are fits (anything with ``raters`` and ``prevalence``), typically the
    bootstrap refits of the fitted model (:class:`simcore.advisor.models.Bootstrap`): draw
    ``t`` is drawn under ``models[(t // per_model) % len(models)]``, so the risk
    ``r = wrong / trials`` averages the sparse-vs-dense disagreement over the fit's
    uncertainty as well as over the matrices, and its only error is the Monte Carlo one
    (:func:`monte_carlo_se`). With one model it is :func:`simulate_risk` under that model,
    draw for draw. Draws ``draws.first ..`` continue an earlier call's (same streams).
    Every other argument and the return value are :func:`simulate_risk`'s: the rule runs
    on ``draws.batch`` draws at a time (whatever models they come from), and the early stop
    at ``draws.stop_at`` is checked after each batch.
    """
    n_items, n_humans = available.shape
    extra, trials, first = proposal.extra, draws.trials, draws.first
    if labels_everything(available, proposal.design, extra):
        return 0, trials  # every secondary labels every item: sparse is dense, exactly
    n_labels = len(models[0].prevalence)
    sequence = np.random.SeedSequence([draws.seed, judge, extra])
    pool = shared_pool(proposal, available, n_labels, draws.seed)
    anchored = anchor is not None and rule.kind == "point"
    if anchored:
        centre = model_changes(models, available, judge, pool, draws, extra, anchor, rule)
    wrong = done = 0
    while done < trials and not settled(wrong, done, draws.stop_at):
        size = min(draws.batch, trials - done)
        drawn, codes = draw_matrices(
            models, draws.per_model, n_humans, judge, n_items, sequence, first + done, size
        )
        mask = sparse_masks(pool, first + done, size) if extra > 0 or not anchored else None
        if anchored:
            shift = (
                misplacement_normals(sequence, first + done, size, n_humans)
                if getattr(centre, "misplacement", 0.0) > 0
                else None
            )
            sparse, dense = anchored_decisions(
                drawn, mask, available, anchor, codes, rule, centre, shift
            )
        else:
            sparse, dense = _decisions(drawn, mask, n_humans, codes, rule)
        wrong += int((sparse != dense).sum())
        done += size
    return wrong, done


def shared_pool(proposal, available, n_labels, seed):
    """Return the proposal pool of ``(design, extra, seed)``, made once into ``proposal.pools``.

    The proposals come from ``SeedSequence([seed, extra, 1])`` (:func:`proposal_pool`);
    ``proposal.pools`` None makes a fresh one.
    """
    design, extra = proposal.design, proposal.extra
    pools = {} if proposal.pools is None else proposal.pools
    if (design, extra, seed) not in pools:
        rng = np.random.default_rng(np.random.SeedSequence([seed, extra, 1]))
        pools[design, extra, seed] = proposal_pool(
            rng, available, design, extra, proposal.labels, n_labels
        )
    return pools[design, extra, seed]


CHANGE_DRAWS = 100
"""Draws over which the model's expected change of each comparison is averaged."""

CHANGE_STREAM = 3
"""The seed word of those draws: ``SeedSequence([seed, judge, extra, CHANGE_STREAM])``."""


def model_changes(models, available, judge, pool, draws, extra, anchor=None, rule=AuditRule()):
    """Return the model's expected changes of the comparisons, taken out of anchored draws.

    :func:`simcore.advisor.anchored.expected_changes` over :data:`CHANGE_DRAWS` draws of
    their own stream, ``SeedSequence([draws.seed, judge, extra, CHANGE_STREAM])`` (the same
    whatever the batch or the first trial of a call), ``draws.per_model`` from each model;
    with the observed ``anchor`` of enough comparisons
    (:func:`simcore.advisor.anchored.shrinks`), the
    :class:`simcore.advisor.anchored.Shrinkage` (:func:`simcore.advisor.anchored.shrinkage`);
    ``rule.scoring`` the comparisons' coefficient.
    """
    n_items, n_humans = available.shape
    sequence = np.random.SeedSequence([draws.seed, judge, extra, CHANGE_STREAM])
    drawn, codes = draw_matrices(
        models, draws.per_model, n_humans, judge, n_items, sequence, 0, CHANGE_DRAWS
    )
    proposal = sparse_masks(pool, 0, CHANGE_DRAWS) if extra > 0 else None
    if anchor is None or not shrinks(anchor):
        return expected_changes(drawn, proposal, available, codes, rule.scoring)
    return shrinkage(drawn, proposal, available, codes, anchor, rule.scoring)


def labels_everything(available, design, extra):
    """Whether ``extra`` items per secondary by ``design`` leave no item unlabelled."""
    if extra <= 0 or available.shape[1] < 2:
        return False
    if extra >= available.shape[0]:
        return True
    return design != "shared_panel" and extra >= (~available[:, 1:]).sum(axis=0).max()


def settled(wrong, done, target, confidence=0.95):
    """Whether ``wrong / done``'s Wilson interval lies on one side of ``target`` (never at 0)."""
    if target is None or done == 0:
        return False
    low, high = wilson_interval(wrong, done, confidence)
    return high <= target or low > target


def monte_carlo_se(wrong, trials):
    """Return the binomial SE of a risk of ``wrong / trials``, never zero.

    The rate in ``sqrt(r (1 - r) / trials)`` is ``r = (wrong + 0.5) / (trials + 1)``, so that
    0 wrong decisions in ``trials`` still carry an uncertainty (a plain ``p (1 - p) / n``
    would claim none).
    """
    rate = (wrong + 0.5) / (trials + 1)
    return math.sqrt(rate * (1 - rate) / trials)


# --------------------------------------------------------------------------- the curve


@dataclass
class RiskCurve:
    """Risk against extra items per secondary for one judge and design."""

    judge: str
    design: str
    extra: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    trials: list = field(default_factory=list)

    def rate(self, index):
        """Risk at point ``index`` (0 at a point of no simulated matrix: a dense matrix's)."""
        trials = self.trials[index]
        return self.wrong[index] / trials if trials else 0.0

    def se(self, index):
        """Monte Carlo SE of the risk at ``index`` (:func:`monte_carlo_se`; 0 unsimulated)."""
        trials = self.trials[index]
        return monte_carlo_se(self.wrong[index], trials) if trials else 0.0

    def needed(self, target, confidence=0.95):
        """Smallest grid ``extra`` whose risk is under ``target``: ``(point, conservative)``.

        ``conservative`` asks the Wilson upper bound to be under the target too; -1 when no
        grid value is enough.
        """
        point = conservative = -1
        for index, extra in enumerate(self.extra):
            if point < 0 and self.rate(index) <= target:
                point = extra
            upper = (
                wilson_interval(self.wrong[index], self.trials[index], confidence)[1]
                if self.trials[index]
                else self.rate(index)
            )
            if conservative < 0 and upper <= target:
                conservative = extra
        return point, conservative


def risk_curve(models, available, judge_name, rule, plan, proposal, now=None, anchor=None):
    """Simulate the posterior-predictive risk (:func:`posterior_risk`) at each ``plan.grid`` point.

    Each point draws ``plan.trials`` matrices from ``plan.seed`` under ``rule``, the next
    round proposed by ``proposal`` with that point's ``extra`` (its design, the real labels
    and the pools shared between judges), anchored at ``anchor`` (:func:`simulate_risk`).
    ``now``, the ``(wrong, trials)`` already simulated at 0 extra items
    (:func:`adaptive_risk_now`), stands for the grid's 0. With a ``plan.target``: the risk at
    0 extra items (the risk now) gets every trial; later points stop once their comparison
    with the target is settled (:func:`settled`), and the curve ends at the first point
    whose risk is under the target with 95% confidence (more items only lower it further,
    and no recommendation reads past it).
    """
    target = plan.target
    curve = RiskCurve(judge_name, proposal.design)
    for extra in plan.grid:
        if extra == 0 and now is not None:
            wrong, trials = now
        else:
            draws = Draws(plan.trials, plan.seed, stop_at=None if extra == 0 else target)
            point = dataclasses.replace(proposal, extra=extra)
            wrong, trials = posterior_risk(models, available, 0, rule, draws, point, anchor)
        curve.extra.append(int(extra))
        curve.wrong.append(wrong)
        curve.trials.append(trials)
        if target is not None and wilson_interval(wrong, trials, 0.95)[1] <= target:
            break
    return curve


# --------------------------------------------------------------------------- the risk now

RISK_SE_TARGET = 0.01
"""The risk now is simulated until its Monte Carlo SE is at most this (one point)."""

MAX_REFITS = 100
"""Most bootstrap refits the risk now draws from; beyond them the draws cycle over them."""

MAX_GROWTH = 10
"""The risk now draws at most this many times ``--trials`` matrices to reach its SE."""


def adaptive_risk_now(  # noqa: PLR0913 (the draws' seed and size are one value; the rest is the risk's)
    bootstrap, available, judge, rule, draws, anchor=None, se_target=RISK_SE_TARGET
):
    """Return ``(wrong, trials, models)``: the posterior-predictive risk now, to ``se_target``.

    Draws come :data:`~simcore.advisor.settings.DRAWS_PER_MODEL` at a time from successive
    bootstrap refits (``bootstrap``, a :class:`simcore.advisor.models.Bootstrap`),
    ``T = draws.trials`` of them first, from ``draws.seed``, decided by ``rule`` and
    anchored at ``anchor`` (:func:`posterior_risk`); while the risk's Monte Carlo SE
    ``sqrt(r (1 - r) / T)`` (:func:`monte_carlo_se`) is above ``se_target``, more draws
    follow (as many as the current rate says are needed, at least one batch), from new
    refits up to :data:`MAX_REFITS`, until ``T`` reaches :data:`MAX_GROWTH` times
    ``draws.trials`` or ``1 / (4 se_target^2)``, where the SE is at most ``se_target``
    whatever the rate (2,500 draws for one point: the default 300 trials can always reach
    it). ``models`` are the refits used, for the curve and the budget comparison.
    """
    per_model = DRAWS_PER_MODEL
    most = min(math.ceil(0.25 / se_target**2), MAX_GROWTH * draws.trials)
    goal = draws.trials
    wrong = done = 0
    while True:
        models = bootstrap.draw(min(MAX_REFITS, math.ceil(goal / per_model)))
        more = draws.but(trials=goal - done, first=done, per_model=per_model)
        new_wrong, new_done = posterior_risk(
            models, available, judge, rule, more, Proposal(), anchor
        )
        wrong, done = wrong + new_wrong, done + new_done
        if monte_carlo_se(wrong, done) <= se_target or done >= most:
            return wrong, done, models
        rate = (wrong + 0.5) / (done + 1)
        goal = min(most, max(done + 100, math.ceil(rate * (1 - rate) / se_target**2)))


# --------------------------------------------------------------------------- one judge


class JudgeRisk(NamedTuple):
    """One judge's posterior-predictive risk now, its curve, its recipe, the refits used.

    A curve whose first point has no simulated matrix is a dense matrix's exact 0
    (:func:`simcore.advisor.dense.dense_risk`, :func:`simcore.advisor.dense.risk_basis`).
    """

    curve: RiskCurve
    now: tuple
    recipe: tuple
    models: list


def judge_risk(  # noqa: PLR0913 (the rule, the plan and the proposal are one value each)
    model, available, judge_name, rule, plan, proposal, risk_se=RISK_SE_TARGET, anchor=None
):
    """Simulate one judge's risks under its fitted model's bootstrap (:class:`JudgeRisk`).

    ``model`` is a :class:`simcore.advisor.advice.JudgeModel` (the humans, then the judge);
    ``rule`` the :class:`~simcore.advisor.settings.AuditRule` and ``plan`` the
    :class:`~simcore.advisor.settings.AuditPlan` (its ``trials``, ``seed``, ``grid`` and
    ``target``). Every risk is posterior-predictive (:func:`posterior_risk`): the draws
    come from the bootstrap refits, so the fit's uncertainty is inside the risk and its SE
    is Monte Carlo only. The risk now (the curve's point at 0 extra items; NaN when the
    grid lacks it) is simulated until its SE is at most ``risk_se``, a point by default
    (:func:`adaptive_risk_now`); ``plan.target`` shortens the curve (:func:`risk_curve`);
    ``proposal`` carries the curve's design, the real labels and the pools shared between
    judges (:func:`simulate_risk`); ``anchor``, the judge's observed ``d_k``, anchors the
    point rule's simulated comparisons (:func:`simcore.advisor.anchored.anchored_decisions`).
    """
    models = model.bootstrap.refits
    now = None
    if 0 in plan.grid:
        draws = Draws(plan.trials, plan.seed)
        wrong, trials, models = adaptive_risk_now(
            model.bootstrap, available, 0, rule, draws, anchor, risk_se
        )
        now = (wrong, trials)
    curve = risk_curve(models, available, judge_name, rule, plan, proposal, now, anchor)
    risk_now = (curve.rate(0), curve.se(0)) if curve.extra[0] == 0 else (math.nan, math.nan)
    binding = recipe(
        model.fit.raters, model.fit.prevalence, available, 0, rule.epsilon, scoring=rule.scoring
    )
    return JudgeRisk(curve, risk_now, binding, models)
