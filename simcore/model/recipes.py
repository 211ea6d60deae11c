"""The Gaussian recipes of planning (the sparse-overlap paper, App. Eq. 7, Theorem 2).

In closed form (docs/howto/plan.md):

- the certification recipe ``m_cert = ceil(z^2 sigma0^2 / (mu_d + eps)^2)`` with
  ``z = z_{1 - alpha/2}`` and ``sigma0^2`` the per-item variance of
  ``[judge == r1] - [r_k == r1]`` (:func:`recipe_variance`). It bounds one comparison's
  false rejection and says nothing about false approval; for negative margins it is
  reported as an extension;
- the ranking recipe ``m_rank = ceil(2 z_{1 - alpha/(J-1)}^2 sigma0^2 / Delta_min^2)``,
  which assumes equal variances and no covariance between the judges' scores;
- the judge accuracy that a signed population margin sets (:func:`judge_accuracy_for_margin`);
- for any coefficient, weighted or not, the population mean and the delta-method per-item
  variance of the comparison's difference ``d = S_j - S_h`` (:func:`coefficient_recipe`),
  which equals :func:`recipe_variance` for observed agreement.
"""

import math

import numpy as np

from simcore.model.generative import pair_tables, prevalence_vector, symmetric_confusion
from simcore.model.weighted import table_scores

POPULATION_PAIRS = 1e9
"""Pairs a limit table is scaled to, so that alpha's small-sample factor is 1 to 9 digits."""

GRADIENT_STEP = 1e-7
"""Central-difference step on a joint probability in :func:`coefficient_recipe`."""


def judge_accuracy_for_margin(margin, p_human, n_labels, epsilon):
    """Return the judge accuracy whose population margin is ``margin`` (docs/explanation/model.md).

    Under symmetric noise and observed agreement with equal humans,
    ``margin = S_j - S_h + eps`` with ``S_j = p_j p_h + (1 - p_j)(1 - p_h)/(L - 1)`` and
    ``S_h = p_h^2 + (1 - p_h)^2/(L - 1)``; ``S_j`` is linear in ``p_j``, so
    ``p_j = (margin - eps + S_h - (1 - p_h)/(L - 1)) / (p_h - (1 - p_h)/(L - 1))``.
    (L = 2, p_h = 0.85, eps = 0.05: ``p_j = (margin + 0.545) / 0.7``.)
    """
    off = (1.0 - p_human) / (n_labels - 1)
    human = p_human**2 + (1.0 - p_human) ** 2 / (n_labels - 1)
    return (margin - epsilon + human - off) / (p_human - off)


def _triple_agreement(confusion_a, confusion_b, confusion_c, prevalence):
    """``P(a == b == c)``: all three raters report the same label."""
    return float(np.einsum("y,yl,yl,yl->", prevalence, confusion_a, confusion_b, confusion_c))


def recipe_variance(confusions, prevalence, judge=-1, held_out=1, pool=0):
    """Per-item variance ``sigma0^2`` of ``D = [judge == r1] - [r_k == r1]`` under the model.

    ``Var(D) = P(j = r1) + P(k = r1) - 2 P(j = r1 = k) - (P(j = r1) - P(k = r1))^2``, from
    the raters' confusion matrices (held-out human ``k``, pool rater ``r1``: by default
    human 1 against the primary).

    Parameters
    ----------
    confusions : numpy.ndarray
        ``(R, L, L)`` confusion matrices, humans first.
    prevalence : numpy.ndarray
        Label probabilities.
    judge, held_out, pool : int
        Rater indices of the judge, ``r_k`` and ``r1``.

    Returns
    -------
    float
    """
    pairs = pair_tables(confusions, prevalence)
    judge_pool = float(np.trace(pairs[judge, pool]))
    human_pool = float(np.trace(pairs[held_out, pool]))
    both = _triple_agreement(confusions[judge], confusions[pool], confusions[held_out], prevalence)
    return judge_pool + human_pool - 2.0 * both - (judge_pool - human_pool) ** 2


def coefficient_recipe(
    confusions, prevalence, coefficient, weighting=None, judge=-1, held_out=1, pool=0
):
    """Return ``(mu_d, sigma0^2)`` of ``d = S_j - S_h`` against one pool rater, by the delta method.

    On ``m`` items labelled by the judge, held-out human ``k`` and pool rater ``r1``, the
    labels ``(a, b, c)`` of the three have the joint law
    ``P_abc = sum_y pi_y M_j[y, a] M_k[y, b] M_1[y, c]``; the judge's pair table is
    ``sum_b P_abc``, the human's ``sum_a P_abc``, and ``d = F(P) = S(judge table) - S(human
    table)`` with ``S`` the coefficient (weighted by ``weighting``,
    :func:`simcore.model.weighted.rule_weighting`). The estimate ``F(P_hat)`` of the
    empirical law then has ``Var ~ sigma0^2 / m`` with
    ``sigma0^2 = sum_abc P_abc g_abc^2 - (sum_abc P_abc g_abc)^2``, ``g = grad F(P)``
    (central differences of step :data:`GRADIENT_STEP`). For observed agreement ``F`` is
    linear and this is :func:`recipe_variance` exactly.

    Returns
    -------
    tuple
        ``(mu_d, sigma0^2)``: the population difference (the margin less eps) and the
        per-item variance.
    """
    return delta_recipe(
        joint_law(confusions, prevalence, judge, held_out, pool), coefficient, weighting
    )


def joint_law(confusions, prevalence, judge=-1, held_out=1, pool=0):
    """Return ``P_abc = sum_y pi_y M_j[y, a] M_k[y, b] M_r[y, c]``, ``(L, L, L)``.

    The law of the judge's, held-out human ``k``'s and pool rater ``r``'s labels on one item
    (:func:`coefficient_recipe`); a mixture of them over pool raters is a pooled comparison's.
    """
    confusions = np.asarray(confusions, dtype=np.float64)
    return np.einsum(
        "y,ya,yb,yc->abc",
        np.asarray(prevalence, dtype=np.float64),
        confusions[judge],
        confusions[held_out],
        confusions[pool],
    )


def delta_recipe(joint, coefficient, weighting=None):
    """Return ``(mu_d, sigma0^2)`` of ``d = F(P)`` on the law ``joint`` (:func:`joint_law`).

    ``F(P) = S(sum_b P_abc) - S(sum_a P_abc)`` and ``sigma0^2 = sum P g^2 - (sum P g)^2``
    with ``g = grad F`` by central differences (:func:`coefficient_recipe`).
    """
    size = joint.size
    steps = np.concatenate([np.eye(size), -np.eye(size), np.zeros((1, size))]) * GRADIENT_STEP
    laws = joint.reshape(1, -1) + steps
    laws = laws.reshape(-1, *joint.shape)
    judge_scores = table_scores(POPULATION_PAIRS * laws.sum(axis=2), coefficient, weighting)
    human_scores = table_scores(POPULATION_PAIRS * laws.sum(axis=1), coefficient, weighting)
    difference = judge_scores - human_scores
    gradient = (difference[:size] - difference[size : 2 * size]) / (2 * GRADIENT_STEP)
    shares = joint.reshape(-1)
    mean_gradient = float(shares @ gradient)
    return float(difference[-1]), float(shares @ gradient**2 - mean_gradient**2)


def symmetric_recipe_variance(p_judge, p_human, n_labels, prevalence=None):
    """:func:`recipe_variance` for symmetric noise with equal humans."""
    confusions = np.stack([symmetric_confusion(p, n_labels) for p in (p_human, p_human, p_judge)])
    return recipe_variance(confusions, prevalence_vector(prevalence, n_labels), judge=2)


def z_two_sided(alpha):
    """``z_{1 - alpha/2}``, the two-sided normal quantile."""
    from scipy import stats  # 0.45 s to import: only when a recipe is asked for

    return float(stats.norm.ppf(1.0 - alpha / 2.0))


def certification_items(margin, sigma2, alpha=0.05):
    """Return the certification recipe ``m_cert = ceil(z^2 sigma0^2 / margin^2)``.

    ``margin = mu_d + eps``; for a negative margin the same formula is reported (an
    extension: it is the items needed for the comparison to fail with confidence). Returns
    -1 for a zero margin (no number of items separates it from the bar), and for one so
    small that the items are beyond any float.
    """
    if margin == 0 or margin**2 == 0:  # at the bar, or so near that its square underflows
        return -1
    items = z_two_sided(alpha) ** 2 * sigma2 / margin**2 - 1e-12
    return int(math.ceil(items)) if math.isfinite(items) else -1


def ranking_items(n_judges, gap, sigma2, alpha=0.05):
    """Return the ranking recipe ``m_rank = ceil(2 z_{1 - alpha/(J-1)}^2 sigma0^2 / Delta_min^2)``.

    ``z_{1 - alpha/(J-1)}`` is the one-sided normal quantile at the Bonferroni level over the
    ``J - 1`` adjacent comparisons. Assumes equal per-item variances ``sigma0^2`` and no
    covariance between the judges' scores.
    """
    if n_judges < 2:
        raise ValueError(f"ranking needs at least 2 judges (got {n_judges})")
    from scipy import stats

    z = float(stats.norm.ppf(1.0 - alpha / (n_judges - 1)))
    return int(math.ceil(2.0 * z**2 * sigma2 / gap**2 - 1e-12))
