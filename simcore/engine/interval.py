"""The interval verdict: whether each comparison clears the bar with confidence.

For every held-out human and judge, the judge's agreement with the other humans minus the
held-out human's, plus ``eps``, gets a confidence interval with an item-clustered standard
error. A comparison clears the bar, fails it, or stays undecided, and an undecided one is
given the number of extra items it would need. The simulations run it through
:func:`simcore.engine.decide.decide_rows`.
"""

import math

from simcore.engine._jit import jit
from simcore.engine.layout import RULE_EPSILON, RULE_Z, TIE_TOLERANCE

EXTRA_ITEMS_CAP = 1_000_000
"""Largest number of extra items recorded for one undecided comparison."""


@jit
def interval_verdict(labels, mask, weights, use_mask, n_humans, rule, sums, clears, fails):
    """Run the interval verdict's comparisons; return ``(undecided, extra items)``.

    For comparison ``k`` and judge ``c``, item ``i`` (labelled by ``k``) contributes
    ``D_i = sum_q [judge == q] - [k == q]`` over its ``c_i`` pool labels; ``d_k + eps =
    sum D / sum c + eps`` with the cluster (item) robust standard error
    ``sqrt(n/(n-1) sum (D_i - d c_i)^2) / sum c``. A comparison clears the bar when the lower
    end of ``d_k + eps -/+ z SE`` is >= 0, fails it when the upper end is < 0, and is
    undecided otherwise (also with fewer than two items). An undecided comparison would be
    settled, by the Gaussian recipe with the same per-item variance, after
    ``n (z SE / (d_k + eps))^2 - n`` more items (capped at :data:`EXTRA_ITEMS_CAP`).
    ``rule`` is the kernel's rule array (eps, z); ``sums`` is ``(K, J, 6)`` scratch;
    ``clears[c]`` and ``fails[c]`` receive judge ``c``'s counts. Row ``i`` stands for
    ``weights[i]`` identical items.
    """
    _interval_sums(labels, mask, weights, use_mask, n_humans, sums)
    return interval_verdicts(sums, rule[RULE_EPSILON], rule[RULE_Z], clears, fails)


@jit
def _interval_sums(labels, mask, weights, use_mask, n_humans, sums):
    """Accumulate each comparison's per-item sums into ``sums`` ``(K, J, 6)``.

    For comparison ``k``, judge ``c`` and each item ``k`` labelled with ``c_i > 0`` pool
    labels, ``sums[k, c]`` gains ``(1, c_i, c_i**2, D_i, D_i**2, D_i c_i)``, each times the
    row's weight.
    """
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    sums[:] = 0.0
    for i in range(n_items):
        weight = weights[i]
        if weight == 0:
            continue
        for k in range(n_humans):
            if use_mask and not mask[i, k]:
                continue
            pool = 0
            own = 0
            for q in range(n_humans):
                if q == k or (use_mask and not mask[i, q]):
                    continue
                pool += 1
                if labels[i, k] == labels[i, q]:
                    own += 1
            if pool == 0:
                continue
            for c in range(n_judges):
                agree = 0
                for q in range(n_humans):
                    if q == k or (use_mask and not mask[i, q]):
                        continue
                    if labels[i, n_humans + c] == labels[i, q]:
                        agree += 1
                difference = float(agree - own)
                sums[k, c, 0] += weight
                sums[k, c, 1] += weight * pool
                sums[k, c, 2] += weight * pool * pool
                sums[k, c, 3] += weight * difference
                sums[k, c, 4] += weight * difference * difference
                sums[k, c, 5] += weight * difference * pool


@jit
def interval_verdicts(sums, epsilon, z, clears, fails):
    """Count each judge's clearing and failing comparisons; return ``(undecided, extra)``."""
    n_humans, n_judges, _ = sums.shape
    undecided = 0
    extra = 0.0
    for c in range(n_judges):
        clears[c] = 0
        fails[c] = 0
    for k in range(n_humans):
        for c in range(n_judges):
            n, pairs, pairs_sq, total, total_sq, cross = sums[k, c]
            if n < 2:
                undecided += 1
                extra += EXTRA_ITEMS_CAP
                continue
            mean = total / pairs
            residual = total_sq - 2.0 * mean * cross + mean * mean * pairs_sq
            se = math.sqrt(max(residual, 0.0) * n / (n - 1.0)) / pairs
            centre = mean + epsilon
            if centre - z * se >= -TIE_TOLERANCE:
                clears[c] += 1
            elif centre + z * se < -TIE_TOLERANCE:
                fails[c] += 1
            else:
                undecided += 1
                needed = n * (z * se / centre) ** 2 if centre != 0.0 else 1e300
                extra += math.ceil(min(max(needed - n, 0.0), EXTRA_ITEMS_CAP))
    return undecided, extra
