"""The risk of a wrong verdict, simulated under the model fitted to the matrix.

The synthetic model fitted to the matrix (:mod:`simcore.advise.fit`, Dawid-Skene) draws
fresh matrices with the data's own overlap structure (which human labelled which item), and
the rule is run on each one twice: on the sparse matrix and on the dense one (every human
labels every item). The risk is the share of draws whose sparse verdict differs from the
dense verdict (:func:`simulate_risk`), with its Monte Carlo standard error
(:func:`monte_carlo_se`); over a grid of extra items per secondary it is the risk curve
(:func:`risk_curve`); over bootstrap refits of the model, its model spread
(:func:`model_spread`); beside it, the Gaussian certification recipe of the fitted model
(:func:`recipe`, SPEC §7).
"""

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from simcore.advise import channels
from simcore.advise.next_round import extend_mask
from simcore.calibration.statistics import wilson_interval
from simcore.engine import kernels
from simcore.engine.coefficients import coefficient_code
from simcore.model.recipes import certification_items
from simcore.model.rule import decide, decide_counts

# --------------------------------------------------------------------------- one risk


def judge_raters(raters, n_humans, judge):
    """Return the humans' fitted channels and one judge's (:func:`simcore.advise.channels.take`)."""
    return channels.take(raters, [*range(n_humans), n_humans + judge])


MASK_POOL = 16
"""Distinct proposals a simulation draws; trial ``t`` uses proposal ``t % MASK_POOL``."""


def proposal_pool(rng, available, design, extra, labels, n_labels, size=MASK_POOL):
    """Return ``(P, n, K)`` masks: ``available`` plus ``P`` fresh proposals (``P = 1`` at 0).

    The proposals are drawn by ``design`` (:func:`simcore.advise.next_round.extend_mask`).
    They depend on the real labels only, not on the simulated ones, so reusing a pool of
    them over the trials keeps the risk unbiased for its average over proposals while the
    proposals, the costly part of a draw, are made once.
    """
    if extra <= 0:
        return available[None].copy()
    pool = np.empty((size, *available.shape), dtype=bool)
    for index in range(size):
        pool[index] = available | extend_mask(rng, design, extra, labels, available, n_labels)
    return pool


def sparse_masks(pool, first_trial, n_trials):
    """Return the ``(T, n, K)`` masks of trials ``first_trial ..``: pool entry ``t % P``."""
    return pool[(first_trial + np.arange(n_trials)) % len(pool)]


def _decisions(labels, mask, n_humans, n_labels, rule, epsilon, tau, min_pairs=0):
    """Sparse and dense decisions of every drawn trial, ``(T,)`` each.

    The point rule leaves out comparisons with fewer than ``min_pairs`` pairs (omega over
    the comparisons kept; none kept is inconclusive).
    """
    n_trials = labels.shape[0]
    if rule == "alt_test":
        sparse = np.empty(n_trials, dtype=np.int8)
        dense = np.empty(n_trials, dtype=np.int8)
        full = np.ones(mask.shape[1:], dtype=bool)
        for t in range(n_trials):
            for out, this_mask in ((sparse, mask[t]), (dense, full)):
                wins, tested, _, _ = kernels.alternative_annotator_test(
                    labels[t], this_mask, n_humans, epsilon, 2, 30, 0.05, False
                )
                out[t] = decide_counts(
                    int(wins[0]), tested - int(wins[0]), tested, tau, kind="alt_test"
                )
        return sparse, dense
    passes, counters, _ = kernels.evaluate(
        labels, mask, n_humans, n_labels, epsilon, coefficient_code("observed"), min_pairs
    )
    sparse_tested = n_humans - counters[:, kernels.THIN]
    dense_tested = n_humans - counters[:, kernels.THIN_DENSE]
    return (
        decide(passes[:, 0, 0], n_humans, tau, tested=sparse_tested),
        decide(passes[:, 1, 0], n_humans, tau, tested=dense_tested),
    )


def simulate_risk(
    raters,
    prevalence,
    available,
    judge,
    rule="point",
    epsilon=0.05,
    tau=0.5,
    trials=400,
    seed=0,
    design=None,
    extra=0,
    labels=None,
    batch=100,
    target=None,
    pools=None,
    min_pairs=0,
):
    """Estimate how often the sparse verdict differs from the dense one under the fitted model.

    Parameters
    ----------
    raters : numpy.ndarray or simcore.advise.channels.OneCoin
        The fitted channels of the humans then the judges: ``(K + J, L, L)`` confusions or
        one-coin accuracies (:mod:`simcore.advise.channels`).
    prevalence : numpy.ndarray
        ``(L,)`` fitted label probabilities.
    available : numpy.ndarray
        ``(n, K)`` bool: which human labelled which item (the data's overlap structure).
    judge : int
        Judge index (rater ``K + judge``).
    rule : str
        ``point`` or ``alt_test``.
    epsilon, tau : float
        The rule's tolerance and threshold.
    trials : int
        Most matrices drawn.
    seed : int
        Seed of the draws: labels from the counter-based streams of
        ``SeedSequence([seed, judge, extra])`` (:func:`simcore.advise.channels.draw_labels`),
        proposals from a generator on ``SeedSequence([seed, extra, 1])`` (the same for every
        judge, so that they can share ``pools``).
    design : str, optional
        With ``extra > 0``: each draw first proposes ``extra`` more items per secondary by
        this design (a pool of :data:`MASK_POOL` proposals, :func:`proposal_pool`), and the
        sparse matrix is the current one plus the proposal.
    extra : int
        Items per secondary added.
    labels : numpy.ndarray, optional
        ``(n, K)`` real human labels, needed to stratify a proposal.
    batch : int
        Trials drawn at once.
    target : float, optional
        Stop early, after a whole batch, once the 95% Wilson interval of the risk lies
        entirely on one side of ``target`` (the comparison with the target is settled).
        Default: run all ``trials``.
    pools : dict, optional
        Proposal pools shared between calls, keyed by ``(design, extra)``: the proposals
        depend on the real labels only, so every judge can use the same ones. Filled here.
    min_pairs : int
        The point rule's ``rule.min_pairs`` (:func:`_decisions`).

    Returns
    -------
    tuple
        ``(wrong, trials)``: draws whose sparse decision differs from the dense one
        (accept vs reject; an inconclusive sparse decision counts as differing), and draws.
    """
    n_items, n_humans = available.shape
    if labels_everything(available, design, extra):
        return 0, trials  # every secondary labels every item: sparse is dense, exactly
    n_labels = len(prevalence)
    chosen = judge_raters(raters, n_humans, judge)
    sequence = np.random.SeedSequence([seed, judge, extra])
    pools = {} if pools is None else pools
    if (design, extra, seed) not in pools:
        rng = np.random.default_rng(np.random.SeedSequence([seed, extra, 1]))
        pools[design, extra, seed] = proposal_pool(rng, available, design, extra, labels, n_labels)
    pool = pools[design, extra, seed]
    wrong = 0
    done = 0
    while done < trials and not settled(wrong, done, target):
        size = min(batch, trials - done)
        drawn, codes = channels.draw_labels(chosen, prevalence, size, n_items, sequence, done)
        mask = sparse_masks(pool, done, size)
        sparse, dense = _decisions(drawn, mask, n_humans, codes, rule, epsilon, tau, min_pairs)
        wrong += int((sparse != dense).sum())
        done += size
    return wrong, done


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
        """Risk at point ``index``."""
        return self.wrong[index] / self.trials[index]

    def se(self, index):
        """Monte Carlo standard error of the risk at ``index`` (:func:`monte_carlo_se`)."""
        return monte_carlo_se(self.wrong[index], self.trials[index])

    def needed(self, target, confidence=0.95):
        """Smallest grid ``extra`` whose risk is under ``target``: ``(point, conservative)``.

        ``conservative`` asks the Wilson upper bound to be under the target too; -1 when no
        grid value is enough.
        """
        point = conservative = -1
        for index, extra in enumerate(self.extra):
            if point < 0 and self.rate(index) <= target:
                point = extra
            upper = wilson_interval(self.wrong[index], self.trials[index], confidence)[1]
            if conservative < 0 and upper <= target:
                conservative = extra
        return point, conservative


def risk_curve(
    raters, prevalence, available, labels, judge, judge_name, design, grid, target=None, **options
):
    """Simulate the risk at each ``extra`` of ``grid`` (:func:`simulate_risk`).

    With a ``target``: the risk at 0 extra items (the risk now) gets every trial; later
    points stop once their comparison with the target is settled (:func:`settled`), and the
    curve ends at the first point whose risk is under the target with 95% confidence (more
    items only lower it further, and no recommendation reads past it).
    """
    curve = RiskCurve(judge_name, design)
    for extra in grid:
        wrong, trials = simulate_risk(
            raters,
            prevalence,
            available,
            judge,
            design=design,
            extra=extra,
            labels=labels,
            target=None if extra == 0 else target,
            **options,
        )
        curve.extra.append(int(extra))
        curve.wrong.append(wrong)
        curve.trials.append(trials)
        if target is not None and wilson_interval(wrong, trials, 0.95)[1] <= target:
            break
    return curve


# --------------------------------------------------------------------------- the model's share


def model_spread(fits, available, judge, trials=100, seed=0, **options):
    """Return the SD of the risk across refitted models, Monte Carlo noise removed.

    ``var_between = var(r_b) - mean(r_b (1 - r_b) / trials)``, floored at 0, over the risks
    ``r_b`` simulated under each refit ``b`` (:func:`refits`) with ``trials`` draws each:
    how much the risk moves with the fitted parameters. ``fits`` are bootstrap refits
    (:func:`simcore.advise.models.bootstrap_refits`); ``options`` go to
    :func:`simulate_risk` (rule, eps, tau, design, extra, labels).
    """
    risks = []
    for index, refit in enumerate(fits):
        wrong, count = simulate_risk(
            refit.raters,
            refit.prevalence,
            available,
            judge,
            trials=trials,
            seed=seed + 1000 + index,
            **options,
        )
        risks.append(wrong / count)
    if len(risks) < 2:
        return 0.0
    risks = np.array(risks)
    noise = float(np.mean(risks * (1 - risks) / trials))
    return math.sqrt(max(0.0, float(np.var(risks, ddof=1)) - noise))


def recipe(raters, prevalence, n_humans, judge, epsilon, alpha=0.05):
    """Return the Gaussian recipe of the binding comparison: ``(margin, sigma0^2, m_cert, k)``.

    For each held-out human ``k`` with one pool rater ``r`` (the primary, or human 1 when
    ``k`` is the primary): ``margin_k = P(judge = r) - P(k = r) + eps`` under the fitted
    model, ``sigma0^2`` the per-item variance of ``D``
    (:func:`simcore.advise.channels.recipe_variance`) and ``m_cert = ceil(z^2 sigma0^2 /
    margin^2)`` co-labelled items (SPEC §7). The comparison whose margin is closest to the
    bar needs the most items and decides the verdict's precision; its numbers are returned
    (``m_cert`` -1 for a zero margin). ``raters`` as for :func:`simulate_risk`.
    """
    chosen = judge_raters(raters, n_humans, judge)
    agreement = channels.pair_agreement(chosen, prevalence)
    binding = None
    for held_out in range(n_humans):
        pool = 1 if held_out == 0 else 0
        margin = float(agreement[-1, pool] - agreement[held_out, pool] + epsilon)
        if binding is None or abs(margin) < abs(binding[0]):
            sigma2 = channels.recipe_variance(chosen, prevalence, n_humans, held_out, pool)
            binding = (margin, sigma2, certification_items(margin, sigma2, alpha), held_out)
    return binding


# --------------------------------------------------------------------------- one judge


def spread_trials(trials):
    """Draws per refit for the model spread: ``max(40, trials // 6)``.

    Eight refits at 50 draws cost 400 draws, fewer than the curve's; the binomial noise
    they add is subtracted (:func:`model_spread`), so fewer draws widen the estimate's own
    scatter but do not bias it upwards.
    """
    return max(40, trials // 6)


class JudgeRisk(NamedTuple):
    """One judge's risk now, its curve over extra items, its model SE and its recipe."""

    curve: RiskCurve
    now: tuple
    model_se: float
    recipe: tuple


def judge_risk(
    model, available, labels, judge_name, design, grid, options, target=None, pools=None
):
    """Simulate one judge's risks under its fitted model (:class:`JudgeRisk`).

    ``model`` is a :class:`simcore.advise.advice.JudgeModel` (the humans, then the judge);
    ``options`` hold the rule, ``epsilon``, ``tau``, ``trials`` and ``seed``. The risk now
    is the curve's point at 0 extra items (NaN when the grid lacks it); the model SE comes
    from :func:`spread_trials` draws under each refit (:func:`model_spread`). ``target``
    shortens the curve (:func:`risk_curve`); ``pools`` shares proposals between judges
    (:func:`simulate_risk`).
    """
    fit = model.fit
    n_humans = available.shape[1]
    curve = risk_curve(
        fit.raters,
        fit.prevalence,
        available,
        labels,
        0,
        judge_name,
        design,
        grid,
        target,
        **options,
    )
    now = (curve.rate(0), curve.se(0)) if curve.extra[0] == 0 else (math.nan, math.nan)
    binding = recipe(fit.raters, fit.prevalence, n_humans, 0, options["epsilon"])
    model_se = model_spread(
        model.refits,
        available,
        0,
        trials=spread_trials(options["trials"]),
        seed=options["seed"],
        rule=options["rule"],
        epsilon=options["epsilon"],
        tau=options["tau"],
        min_pairs=options.get("min_pairs", 0),
    )
    return JudgeRisk(curve, now, model_se, binding)
