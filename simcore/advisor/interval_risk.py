"""The risk read from the verdict's own comparison intervals, without a fitted model.

Each leave-one-out comparison ``d_k`` of the point rule comes with an item-cluster SE
(:func:`simcore.advisor.verdict.comparison_intervals`). Taking the dense ``d_k`` as normal
around the estimate with that SE, and the comparisons as independent, gives the probability
that the dense verdict differs from the sparse one (:func:`normal_approximation_risk`): the
*interval risk*, shown by advise beside the model's risk and used by the calibration study
as a baseline.
"""

import math

import numpy as np
from scipy import stats

from simcore.model.rule import ACCEPT, REJECT, decide


def poisson_binomial(probabilities):
    """Return ``P(S = s)`` for ``s = 0..K``, ``S`` a sum of independent Bernoulli(p_k).

    The convolution recursion ``P_k(s) = P_{k-1}(s) (1 - p_k) + P_{k-1}(s - 1) p_k``.
    """
    distribution = np.array([1.0])
    for p in probabilities:
        distribution = np.append(distribution * (1 - p), 0.0) + np.append(0.0, distribution * p)
    return distribution


def comparison_pass_probability(row, epsilon):
    """Return the normal approximation of ``P(dense d_k >= -eps)`` from one sparse comparison.

    ``Phi((d_k + eps) / se_k)`` from the comparison's ``d`` and ``se``
    (:func:`simcore.advisor.verdict.comparison_row`). Without an SE (fewer than two items,
    or an empty comparison) nothing is known: 0.5. A zero SE gives a step: 1 when ``d_k +
    eps >= 0``, else 0.
    """
    d, se = row["d"], row["se"]
    if row["items"] < 2 or not math.isfinite(se) or not math.isfinite(d):
        return 0.5
    centre = d + epsilon
    if se == 0:
        return 1.0 if centre >= -1e-9 else 0.0
    return float(stats.norm.cdf(centre / se))


def normal_approximation_risk(comparisons, sparse_decision, epsilon, tau=0.5):
    """Return the baseline risk ``P(dense decision != sparse decision)`` from the d_k intervals.

    Each leave-one-out comparison passes densely with probability ``p_k =
    Phi((d_k + eps) / se_k)`` (:func:`comparison_pass_probability`); the comparisons are
    taken as independent, so the dense number of passes is Poisson-binomial
    (:func:`poisson_binomial`) and the dense decision is the point rule's on it
    (:func:`simcore.model.rule.decide`, every comparison tested). The risk is
    ``P(dense accept)`` when the sparse verdict rejects, ``P(dense reject)`` when it accepts,
    and 1 when it is inconclusive (the dense verdict never is under this rule); never below
    0 (a sum of rounded probabilities can exceed 1, which would print "-0.0%").
    """
    probabilities = [comparison_pass_probability(row, epsilon) for row in comparisons]
    distribution = poisson_binomial(probabilities)
    n_humans = len(probabilities)
    decisions = decide(np.arange(n_humans + 1), n_humans, tau)
    accept = float(distribution[decisions == ACCEPT].sum())
    accept = min(max(accept, 0.0), 1.0)  # a sum of rounded terms can pass 1 by 1e-16
    if sparse_decision == "reject" or sparse_decision == REJECT:
        return accept
    if sparse_decision == "accept" or sparse_decision == ACCEPT:
        return 1.0 - accept
    return 1.0
