"""Where to spend calibration labels: the judge-stratified split and the pooled-rows split.

``simcore calibrate --plan`` says how many labels each interval method needs from a random
sample of production; this module says how to split them when the sample need not be random.

**Stratified by the judge's label.** Send ``n1`` of the production items the judge called
FAIL and ``n0`` of those it called PASS to humans. With ``q = theta Se + (1 - theta)(1 -
Sp)`` the judge's FAIL share, ``p1 = theta Se / q`` and ``p0 = theta (1 - Se) / (1 - q)`` the
human FAIL shares within its FAIL and PASS items, the estimate is ``theta = q p1 + (1 - q)
p0`` (stratified PPI with the judge's label as strata; Rogan-Gladen with Se and Sp estimated
from the same sample by inverse-probability weights is the same number), with

    ``Var = q^2 p1(1-p1)/n1 + (1-q)^2 p0(1-p0)/n0 + (p1 - p0)^2 q(1-q)/N``.

For a total ``n`` the variance is least at Neyman's split ``n_k ∝ w_k sigma_k``
(``w1 = q``, ``sigma1 = sqrt(p1(1-p1))``, ``w0 = 1 - q``, ``sigma0 = sqrt(p0(1-p0))``), and a
half-width ``h`` at ``z`` needs

    ``n = z^2 (q sigma1 + (1-q) sigma0)^2 / (h^2 - z^2 (p1 - p0)^2 q(1-q)/N)``

where a random sample (proportional allocation) needs ``z^2 (q sigma1^2 + (1-q) sigma0^2) /
(same)`` (:func:`simcore.planning.calibration.labels.closed_form_n`, ``strat-ppi``).

**Pooled rows** (the setting of Lee, Zeng, Jeong, Sohn and Lee, "How to correctly report
LLM-as-a-judge evaluations", arXiv 2511.21140, whose adaptive algorithm splits a budget from
pilot rates; its code was not at hand, so this is the split their variance implies): a team
that can draw from items humans already labelled FAIL (``m1`` of them, for Se) and PASS
(``m0``, for Sp) estimates Rogan-Gladen's ``theta = (q + Sp - 1) / J``, ``J = Se + Sp - 1``,
with the delta-method variance

    ``Var = [q(1-q)/N + theta^2 Se(1-Se)/m1 + (1-theta)^2 Sp(1-Sp)/m0] / J^2``,

least for a total ``m`` at ``m1 / m0 = theta sqrt(Se(1-Se)) / ((1-theta) sqrt(Sp(1-Sp)))``,
and a half-width ``h`` needs ``m = z^2 (a1 + a0)^2 / (h^2 J^2 - z^2 q(1-q)/N)`` with ``a1 =
theta sqrt(Se(1-Se))``, ``a0 = (1-theta) sqrt(Sp(1-Sp))``. It assumes the pools' items are
like production's within each human class (the judge errs on a pooled FAIL item as on a
production one) and reads theta, Se and Sp from a pilot: a wrong pilot gives a wrong split,
not a wrong interval.

Each split is simulated back (:func:`simulate_split`): the interval simcore reports on such a
sample (stratified PPI's MOVER-Wilson interval, ``calibrate --method strat-wilson``; the
Lang-Reiczigel interval for the pools) at the planned sizes, its coverage of theta and its
mean half-width, against the target; the coverage reported is re-simulated at the chosen
sizes on fresh trials, so the choice does not flatter it. A stratum cannot give more items
than production holds: a split asking more than the judge's expected FAIL (``q N``) or PASS
(``(1 - q) N``) items has no answer.
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.ppi import stratified_ppi
from simcore.calibration.statistics import lang_reiczigel_interval

SPLIT_SEED = 20_261_202
"""Root seed of the simulations back (one stream per design)."""

DESIGNS = ("judge_strata", "random", "human_pools")
"""``judge_strata``: Neyman's split of production items by the judge's label;
``random``: a random production sample (proportional, as the methods are planned);
``human_pools``: items drawn from human-labelled FAIL and PASS pools (Rogan-Gladen)."""


class Split(NamedTuple):
    """One design's labels and their split, with the simulated interval at those sizes.

    ``first``/``second`` are judge-FAIL/judge-PASS items (``judge_strata``, ``random``) or
    human-FAIL/human-PASS items (``human_pools``); sizes are None where no size reaches the
    target (the production term alone is wider).
    """

    design: str
    total: int | None
    first: int | None
    second: int | None
    half_width: float
    coverage: float
    coverage_se: float


def _rounded(shares, total):
    """Return ``total`` split by ``shares`` into two sizes, each rounded up and at least 2."""
    weight = shares[0] / (shares[0] + shares[1]) if shares[0] + shares[1] > 0 else 0.5
    first = max(2, math.ceil(total * weight))
    second = max(2, math.ceil(total * (1 - weight)))
    return first, second


def judge_strata_split(judge, target, neyman=1.0):
    """Return ``(n1, n0)`` judge-FAIL and judge-PASS items for ``target``'s width, or None.

    The shares are ``neyman`` times Neyman's ``w_k sigma_k`` split plus ``1 - neyman``
    times the proportional ``w_k`` one (1: Neyman's, 0: a random sample's); with shares
    ``s_k`` the total is ``z^2 sum_k w_k^2 sigma_k^2 / s_k / room``, ``room = h^2 - z^2
    (p1 - p0)^2 q(1-q)/N`` (module docstring), ``judge`` a
    :class:`~simcore.calibration.judge_profile.JudgeProfile` and ``target`` a
    :class:`~simcore.planning.calibration.target.PlanTarget`. None where ``room <= 0``.
    """
    q, p1, p0 = judge.strata
    half_width, z, n_production = target.half_width, target.z, target.n_production
    weights = (q, 1 - q)
    sigmas = (math.sqrt(p1 * (1 - p1)), math.sqrt(p0 * (1 - p0)))
    room = half_width**2 - z * z * (p1 - p0) ** 2 * q * (1 - q) / n_production
    if room <= 0:
        return None
    spread = sum(w * s for w, s in zip(weights, sigmas, strict=True))
    shares = [
        neyman * (w * s / spread if spread > 0 else w) + (1 - neyman) * w
        for w, s in zip(weights, sigmas, strict=True)
    ]
    variance = sum(
        (w * s) ** 2 / share for w, s, share in zip(weights, sigmas, shares, strict=True) if share
    )
    return _rounded(shares, z * z * variance / room)


def human_pools_split(judge, target):
    """Return ``(m1, m0)`` human-FAIL and human-PASS pool items for ``target``, or None.

    The delta-method optimum for Rogan-Gladen (module docstring); None where the production
    term alone exceeds the target or the judge is no better than chance.
    """
    se, sp, theta = judge.sensitivity, judge.specificity, judge.prevalence
    youden, q, z = judge.youden, judge.flag_rate, target.z
    room = target.half_width**2 * youden**2 - z * z * q * (1 - q) / target.n_production
    if youden <= 0 or room <= 0:
        return None
    shares = (theta * math.sqrt(se * (1 - se)), (1 - theta) * math.sqrt(sp * (1 - sp)))
    total = z * z * (shares[0] + shares[1]) ** 2 / room
    return _rounded(shares, total)


def simulate_split(design, sizes, judge, target, stream):
    """Return ``(mean half-width, coverage of theta, its SE)`` of the interval at ``sizes``.

    Every trial draws the production stream's judge FAIL count ``x ~ Bin(N, q)`` and the
    calibration rows: judge-stratified (``judge_strata``, ``random`` with its sizes) the
    human FAILs ``Bin(n1, p1)`` and ``Bin(n0, p0)``, scored by stratified PPI's MOVER-Wilson
    interval (:func:`simcore.calibration.ppi.stratified_ppi`, ``interval="wilson"``); from
    the pools (``human_pools``) the caught ``Bin(m1, Se)`` and the cleared ``Bin(m0, Sp)``,
    scored by Rogan-Gladen with the Lang-Reiczigel interval. A trial whose interval is
    undefined counts as not covering. ``target.trials`` trials on ``stream`` of
    :data:`SPLIT_SEED`.
    """
    rng = np.random.default_rng(np.random.SeedSequence(SPLIT_SEED, spawn_key=(stream,)))
    se, sp, theta = judge.sensitivity, judge.specificity, judge.prevalence
    n_production, confidence, trials = target.n_production, target.confidence, target.trials
    q, p1, p0 = judge.strata
    first, second = sizes
    fails = rng.binomial(n_production, q, trials)
    if design == "human_pools":
        caught = rng.binomial(first, se, trials)
        cleared = rng.binomial(second, sp, trials)
        _, low, high = lang_reiczigel_interval(
            fails, n_production, caught, first, cleared, second, confidence
        )
    else:
        caught = rng.binomial(first, p1, trials)
        missed = rng.binomial(second, p0, trials)
        _, low, high = stratified_ppi(
            fails,
            n_production,
            caught,
            missed,
            first - caught,
            second - missed,
            confidence,
            interval="wilson",
        )
    covered = (low <= theta) & (theta <= high)
    coverage = float(covered.mean())
    return (
        float(np.nanmean((high - low) / 2)),
        coverage,
        math.sqrt(max(coverage * (1 - coverage), 1e-12) / trials),
    )


GROWTH = 1.05
"""The sizes grow by this factor until the simulated interval meets the target."""

MAX_GROWTH = 64.0
"""Beyond this many times the closed-form sizes the design has no answer (None)."""

COVERAGE_SES = 3.0
"""Sizes qualify when their simulated coverage is at most this many SEs below nominal (the
criterion of every plan, :mod:`simcore.planning.calibration.labels` included)."""

NEYMAN_WEIGHTS = (1.0, 0.75, 0.5, 0.25, 0.0)
"""The judge-stratified splits tried, from Neyman's (1) to the proportional one (0)."""


def plan_splits(judge, target):
    """Return a :class:`Split` per design of :data:`DESIGNS`, simulated back at its sizes.

    Each design starts at its closed-form sizes; both grow by :data:`GROWTH` (the split's
    shares kept) until the simulated mean half-width is at most ``half_width`` and the
    coverage of theta within :data:`COVERAGE_SES` SEs of ``confidence``, up to
    :data:`MAX_GROWTH` times and within the production stream's judge-label strata (for the
    judge-stratified designs). Every size tried draws from the design's own stream
    (:data:`SPLIT_SEED`); the reported half-width and coverage are re-simulated at the chosen
    sizes on a fresh stream, ``target.trials`` trials.
    """
    candidates = {
        "judge_strata": [judge_strata_split(judge, target, weight) for weight in NEYMAN_WEIGHTS],
        "random": [judge_strata_split(judge, target, 0.0)],
        "human_pools": [human_pools_split(judge, target)],
    }
    splits = []
    for stream, design in enumerate(DESIGNS):
        found = [_grown(design, sizes, judge, target, stream) for sizes in candidates[design]]
        found = [one for one in found if one is not None]
        if not found:
            splits.append(Split(design, None, None, None, math.nan, math.nan, math.nan))
            continue
        sizes, _ = min(found, key=lambda one: sum(one[0]))
        fresh = simulate_split(design, sizes, judge, target, len(DESIGNS) + stream)
        splits.append(Split(design, sum(sizes), *sizes, *fresh))
    return splits


def _within_strata(design, sizes, judge, n_production):
    """Return whether a judge-stratified split asks at most each stratum's expected items."""
    if design == "human_pools":
        return True
    q = judge.flag_rate
    return sizes[0] <= q * n_production and sizes[1] <= (1 - q) * n_production


def _grown(design, sizes, judge, target, stream):
    """Return ``(sizes, simulated)`` of the first grown sizes that meet the target, or None."""
    if sizes is None:
        return None
    confidence = target.confidence
    factor = 1.0
    while factor <= MAX_GROWTH:
        grown = tuple(max(2, math.ceil(size * factor)) for size in sizes)
        if not _within_strata(design, grown, judge, target.n_production):
            return None
        checked = simulate_split(design, grown, judge, target, stream)
        width, coverage, coverage_se = checked
        if width <= target.half_width and coverage >= confidence - COVERAGE_SES * coverage_se:
            return grown, checked
        factor *= GROWTH
    return None
