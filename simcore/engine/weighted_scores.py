"""Weighted agreement scores of a comparison's pair table (docs/explanation/model.md).

A weighted coefficient credits a disagreement by how far apart its two labels are. A
comparison's ``N`` pairs are summarised by their ``(L, L)`` table ``t[a, b]`` (candidate
label ``a``, pool label ``b``), its row and column sums ``r_a`` and ``k_a``, the pooled
counts ``n_a = r_a + k_a`` of its ``n = 2 N`` values and shares ``pi_a = n_a / n``. With
agreement weights ``W`` (``W_aa = 1``, symmetric, in ``[0, 1]``; Gwet, *Handbook of
Inter-Rater Reliability*, ch. 3) and the weighted agreement ``p_w = sum_ab W_ab t_ab / N``:

====================  ==================================================================
coefficient           definition
====================  ==================================================================
``observed``          ``p_w`` (1 minus the mean scaled distance)
``cohen_kappa``       ``(p_w - p_e) / (1 - p_e)``, ``p_e = sum_ab W_ab r_a k_b / N**2``
``gwet_ac1`` (AC2)    ``(p_w - p_e) / (1 - p_e)``,
                      ``p_e = sum_ab W_ab sum_a pi_a (1 - pi_a) / (L (L - 1))``
``krippendorff_alpha``  ``1 - D_o / D_e`` on the two-coder coincidences of the pairs:
                      ``D_o = sum_ab t_ab d_ab / N``,
                      ``D_e = sum_ab n_a n_b d_ab / (n (n - 1))``
====================  ==================================================================

Alpha's metric ``d`` is ``1 - W`` for the interval and ratio levels (alpha does not change
when ``d`` is scaled, so ``W`` holds the metric divided by its largest value) and, for the
ordinal level, Krippendorff's metric from the comparison's own marginal frequencies,
``d_ab = (sum_{g between a and b} n_g - (n_a + n_b) / 2)**2``, which equals
``(M_a - M_b)**2`` with the mid-ranks ``M_a = sum_{g before a} n_g + n_a / 2`` in the
labels' value order (evaluated divided by ``n**2``). With ``W`` the identity every score
equals :func:`simcore.engine.coefficients.table_score`'s nominal one.

The conventions are :mod:`simcore.engine.coefficients`': an empty table scores 0 and is
not degenerate; a chance-corrected coefficient whose normalised denominator (``1 - p_e``,
``D_e``) is below :data:`~simcore.engine.coefficients.ZERO_TOLERANCE` scores 0 and is
flagged degenerate. No NaN is returned.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.coefficients import (
    COHEN_KAPPA,
    GWET_AC1,
    KRIPPENDORFF_ALPHA,
    OBSERVED,
    ZERO_TOLERANCE,
)


@jit
def weighted_score(table, rows, cols, weighting, coefficient, ranks):  # noqa: C901 (one numba loop over the trial)
    """Score pairs with label table ``table`` and margins ``rows``, ``cols`` (module docstring).

    Parameters
    ----------
    table : numpy.ndarray
        int64 ``(L, L)``: the pairs' label counts. It may count every pair in both
        orientations (the human pool's table): the sums over it are divided by
        ``sum(table) / N``, which is 1 or 2.
    rows, cols : numpy.ndarray
        float64 ``(L,)``: the first and the second side's label counts, ``N = sum(rows)``.
    weighting : tuple
        ``(weights, order, ordinal)``: float64 ``(L * L,)`` agreement weights ``W`` row by
        row (alpha's metric is ``1 - W``), int64 ``(L,)`` the label codes in value order,
        and 1 for alpha's ordinal metric (then ``weights`` is not read by alpha).
    coefficient : int
        Coefficient code (:data:`simcore.engine.coefficients.COEFFICIENTS`; ``gwet_ac1``
        with weights is Gwet's AC2).
    ranks : numpy.ndarray
        float64 ``(L,)`` scratch for the ordinal mid-ranks.

    Returns
    -------
    score : float
        The coefficient; 0.0 for an empty table and at a zero denominator.
    degenerate : bool
        True when the table is non-empty and the normalised denominator is below
        :data:`~simcore.engine.coefficients.ZERO_TOLERANCE`.
    """
    weights, order, ordinal = weighting
    n_labels = table.shape[0]
    total = 0.0
    for a in range(n_labels):
        total += rows[a]
    if total == 0:
        return 0.0, False
    listed = 0.0
    for a in range(n_labels):
        for b in range(n_labels):
            listed += table[a, b]
    scale = listed / total
    if coefficient == KRIPPENDORFF_ALPHA:
        return _alpha(table, rows, cols, weighting, total * scale, ranks)
    agree = 0.0
    for a in range(n_labels):
        for b in range(n_labels):
            agree += weights[a * n_labels + b] * table[a, b]
    agree /= total * scale
    if coefficient == OBSERVED:
        return agree, False
    chance = 0.0
    if coefficient == COHEN_KAPPA:
        for a in range(n_labels):
            for b in range(n_labels):
                chance += weights[a * n_labels + b] * rows[a] * cols[b]
        chance /= total * total
    elif coefficient == GWET_AC1:
        if n_labels < 2:
            return 0.0, True
        weight_sum = 0.0
        spread = 0.0
        for a in range(n_labels):
            share = (rows[a] + cols[a]) / (2.0 * total)
            spread += share * (1.0 - share)
            for b in range(n_labels):
                weight_sum += weights[a * n_labels + b]
        chance = weight_sum * spread / (n_labels * (n_labels - 1))
    else:
        raise ValueError("unknown agreement coefficient code")
    if abs(1.0 - chance) < ZERO_TOLERANCE:
        return 0.0, True
    return (agree - chance) / (1.0 - chance), False


@jit
def _alpha(table, rows, cols, weighting, listed, ranks):
    """Return Krippendorff's ``(alpha, degenerate)`` of a non-empty table (module docstring).

    ``listed`` is ``sum(table)``; the observed disagreement is divided by it.
    """
    weights, order, ordinal = weighting
    n_labels = table.shape[0]
    n_values = 0.0
    for a in range(n_labels):
        n_values += rows[a] + cols[a]
    if ordinal:
        below = 0.0
        for position in range(n_labels):
            label = order[position]
            pooled = rows[label] + cols[label]
            ranks[label] = (below + pooled / 2.0) / n_values
            below += pooled
    observed = 0.0
    expected = 0.0
    for a in range(n_labels):
        for b in range(n_labels):
            if ordinal:
                gap = ranks[a] - ranks[b]
                distance = gap * gap
            else:
                distance = 1.0 - weights[a * n_labels + b]
            observed += table[a, b] * distance
            expected += (rows[a] + cols[a]) * (rows[b] + cols[b]) * distance
    observed /= listed
    expected /= n_values * (n_values - 1.0)
    if abs(expected) < ZERO_TOLERANCE:
        return 0.0, True
    return 1.0 - observed / expected, False


def weighting_of(weight_matrix, order=None, ordinal=False):
    """Return the kernels' ``(weights, order, ordinal)`` tuple of a weight matrix.

    Parameters
    ----------
    weight_matrix : array_like
        ``(L, L)`` agreement weights (alpha's metric is ``1 - W``).
    order : array_like, optional
        The label codes in value order (default ``0 .. L - 1``).
    ordinal : bool
        Alpha's ordinal metric from each comparison's marginal frequencies.

    Returns
    -------
    tuple
        ``(float64 (L * L,), int64 (L,), int)``.
    """
    weight_matrix = np.asarray(weight_matrix, dtype=np.float64)
    n_labels = weight_matrix.shape[0]
    order = np.arange(n_labels) if order is None else np.asarray(order)
    return (
        np.ascontiguousarray(weight_matrix.reshape(-1)),
        order.astype(np.int64),
        int(bool(ordinal)),
    )
