"""The Gaussian recipe of the fitted model: how many co-labelled items a verdict needs.

Beside the simulated risk, advise reports the recipe of the binding comparison under the
fitted model (:func:`recipe`, docs/howto/plan.md): the margin of the comparison closest to
the bar, the per-item variance ``sigma0^2`` of its estimate and the items
``m_cert = ceil(z^2 sigma0^2 / margin^2)`` that certify it.
"""

import math

import numpy as np

from simcore.advisor import channels
from simcore.advisor.risk.draws import judge_raters
from simcore.model.recipes import certification_items, delta_recipe, joint_law

RECIPE_MAX_LABELS = 10
"""Most labels a weighted coefficient's recipe is computed for: its delta method holds an
``L^3 x L^3`` difference step (8 MB at 10 labels); above, the recipe is not given."""


def recipe(raters, prevalence, available, judge, epsilon, alpha=0.05, scoring=None):
    """Return the Gaussian recipe of the binding comparison: ``(margin, sigma0^2, m_cert, k)``.

    The comparison of held-out human ``k`` pools the other humans ``r``, each weighted by its share
    ``w_r`` of the co-labelled pairs ``(k, r)`` in ``available`` (the rule sums over those pairs): a
    pair's ``D = [judge = r] - [k = r]`` has mean ``mu_r = P(judge = r) - P(k = r)`` and variance
    ``s_r^2`` (:func:`simcore.advisor.channels.recipe_variance`) under the fitted model, so
    ``margin_k = sum_r w_r mu_r + eps`` and ``sigma0^2 = sum_r w_r (s_r^2 + mu_r^2) - (sum_r w_r
    mu_r)^2`` (the mixture's variance), and ``m_cert = ceil(z^2 sigma0^2 / margin^2)``
    (docs/howto/plan.md). A pool of humans whose margins against the judge differ in sign is
    weighted as the rule weighs it, not replaced by one pool rater. The comparison whose margin is
    closest to the bar needs the most items and decides the verdict's precision; its numbers are
    returned (``m_cert`` -1 for a zero margin; ``k`` -1 when no human shares an item with another).
    ``raters`` as for :func:`simulate_risk`. Under another coefficient (``scoring``) the pair's
    law is the same mixture over the pool, ``P = sum_r w_r P_r`` of the judge's, ``k``'s and
    ``r``'s labels, and ``(mu, sigma0^2)`` the delta method of the score difference on it
    (:func:`simcore.model.recipes.delta_recipe`; for observed agreement it is the mixture
    above); NaN above :data:`RECIPE_MAX_LABELS` labels.
    """
    n_humans = available.shape[1]
    chosen = judge_raters(raters, n_humans, judge)
    counts = available.T.astype(np.int64) @ available.astype(np.int64)  # (K, K) pairs
    binding = (math.nan, math.nan, -1, -1)
    if scoring is not None and len(prevalence) > RECIPE_MAX_LABELS:
        return binding
    for held_out in range(n_humans):
        weights = counts[held_out].astype(float)
        weights[held_out] = 0.0
        if weights.sum() == 0:
            continue
        weights /= weights.sum()
        if scoring is None:
            mean, sigma2 = _pool_mixture(chosen, prevalence, n_humans, held_out, weights)
        else:
            mean, sigma2 = _scored_mixture(chosen, prevalence, held_out, weights, scoring)
        margin = mean + epsilon
        if binding[3] < 0 or abs(margin) < abs(binding[0]):
            binding = (margin, sigma2, certification_items(margin, sigma2, alpha), held_out)
    return binding


def _pool_mixture(chosen, prevalence, n_humans, held_out, weights):
    """Observed agreement's ``(sum_r w_r mu_r, mixture variance)`` (:func:`recipe`)."""
    agreement = channels.pair_agreement(chosen, prevalence)
    pool = np.flatnonzero(weights)
    means = np.array([agreement[-1, r] - agreement[held_out, r] for r in pool])
    variances = np.array(
        [channels.recipe_variance(chosen, prevalence, n_humans, held_out, r) for r in pool]
    )
    mean = float(weights[pool] @ means)
    return mean, float(weights[pool] @ (variances + means**2) - mean**2)


def _scored_mixture(chosen, prevalence, held_out, weights, scoring):
    """``(mu, sigma0^2)`` of the score difference on the pool's mixture law (:func:`recipe`)."""
    confusions = channels.confusions(chosen)
    joint = sum(
        weights[r] * joint_law(confusions, prevalence, -1, held_out, r)
        for r in np.flatnonzero(weights)
    )
    return delta_recipe(joint, scoring.coefficient, scoring.weighting)
