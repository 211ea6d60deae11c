"""How much evidence a human ceiling rests on: the minimum, the weights, k and the warning.

A pair of raters who share two items has a Spearman's rho of +-1 (or none), and a pair on
three items barely more; if every pair weighs the same, such pairs set ``r̂`` however many
items the well-observed pairs share. The ceilings
(:mod:`~simcore.instrument.ceiling.human_ceilings`) therefore

* score a rater pair only when it shares at least :data:`MIN_SHARED` items (a rater against
  a consensus only when it has that many scored items);
* weigh each pair (rater) by its shared (scored) items, so ``r̂ = sum n_ab r_ab / sum n_ab``:
  every co-labelled pair of labels on an item counts once, and an item's *weight* is the
  number of scored pairs that co-label it;
* take ``k``, the size of the consensus a judge is scored against, from the items with at
  least :data:`MIN_CONSENSUS_RATERS` raters (:func:`consensus_size`), the items that carry
  the ceiling, rather than a median that collapses to 1 on a sparse matrix;
* warn, naming them, when a few items carry most of the weight
  (:func:`simcore.realdata.data_shape.heavy_items`): half
  of it on at most ``max(2, 1%)`` of the items with weight and at most a tenth of them, the
  rule :mod:`simcore.realdata.data_shape` calls *concentrated*.
"""

import numpy as np

from simcore.instrument.grouped_scores import replicate_scores
from simcore.realdata.data_shape import heavy_items

MIN_SHARED = 3
"""Fewest shared items a rater pair needs for its rank correlation (or kappa) to count.

On two items Spearman's rho is +-1 whatever the raters' reliability, and kappa on two items
is one of -1, 0 or 1; three is the least sample on which either says more than a sign."""

UNWEIGHTED_MIN_SHARED = 2
"""The minimum behind the unweighted ``r̂`` reported beside the weighted one for comparison
(every pair sharing at least 2 items, each weighing the same: the earlier definition)."""

MIN_CONSENSUS_RATERS = 2
"""Items with at least this many humans carry the ceiling: ``k`` and judges' scores use them."""

WIDE_INTERVAL = 0.2
"""A ceiling interval wider than this (on the rho or kappa scale) is thin data: a judge inside
it is not placed "at" the ceiling, and judges inside it cannot be separated from it."""


def consensus_size(labels, min_raters=MIN_CONSENSUS_RATERS):
    """Return ``(k, k_others)``: harmonic means of ``m_i`` and ``m_i - 1`` where ``m_i >= 2``.

    Parameters
    ----------
    labels : numpy.ndarray
        int ``(n_items, R)`` codes, ``-1`` where not labelled.
    min_raters : int, optional
        Fewest raters an item needs to count (default :data:`MIN_CONSENSUS_RATERS`).

    Returns
    -------
    k : float
        ``1 / mean_i(1 / m_i)`` over the items with ``m_i >= min_raters`` (NaN when none).
        If each rater is the item's true score plus independent noise of variance
        ``(1 - r)`` (scores scaled to unit variance), a judge's covariance with the
        consensus of item ``i`` is ``r`` and the consensus's variance ``r + (1 - r)/m_i``;
        over the items, that variance is ``r + (1 - r) mean_i(1/m_i)``, so the symmetric
        ceiling ``c_k`` holds with ``k`` this harmonic mean.
    k_others : float
        ``1 / mean_i(1 / (m_i - 1))`` over the same items: the size of the consensus of the
        other raters that the leave-one-out ceiling scores each rater against.
    """
    count = (np.asarray(labels) >= 0).sum(axis=1)
    count = count[count >= max(min_raters, 2)].astype(np.float64)
    if not count.size:
        return float("nan"), float("nan")
    return float(1.0 / np.mean(1.0 / count)), float(1.0 / np.mean(1.0 / (count - 1.0)))


def item_weights(table, usable):
    """Return each item's weight: the cells of the usable groups (pairs) on it.

    Parameters
    ----------
    table : simcore.instrument.grouped_scores.CellTable
        The pair cells of the data, one cell per (item, rater pair).
    usable : numpy.ndarray
        bool ``(n_groups,)``: pairs that enter ``r̂`` (finite, enough shared items).

    Returns
    -------
    numpy.ndarray
        int64 ``(n_items,)``: ``w_i = #{usable pairs (a, b) that both label i}``; the pair
        weights ``n_ab`` sum to ``sum_i w_i``.
    """
    kept = usable[table.group]
    return np.bincount(table.item[kept], minlength=table.n_items).astype(np.int64)


def pair_evidence(table, graded, n_codes, min_shared):
    """Return ``(heavy items, their share of the weight, items with weight)`` of the data.

    Parameters
    ----------
    table : simcore.instrument.grouped_scores.CellTable
        The data's pair cells (every pair with at least one shared item may be in it).
    graded : bool or simcore.model.weighted.Scoring
        Spearman's rho (True), Cohen's kappa (False) or a chosen coefficient.
    n_codes : int
        Number of codes (categorical only).
    min_shared : int
        Fewest shared items of a pair that enters ``r̂``.

    Returns
    -------
    tuple
        :func:`heavy_items` of the weights of the pairs with a finite score and at least
        ``min_shared`` shared items (:func:`item_weights`), ``sum_heavy w_i / sum_i w_i``
        (0 without heavy items) and ``#{i : w_i > 0}``.
    """
    values, counts = replicate_scores(table, np.arange(table.n_items)[None], graded, n_codes)
    weights = item_weights(table, np.isfinite(values[0]) & (counts[0] >= min_shared))
    heavy = heavy_items(weights)
    share = float(weights[list(heavy)].sum() / weights.sum()) if heavy else 0.0
    return heavy, share, int((weights > 0).sum())


def weight_warning(names, share, n_weighted):
    """Return the warning sentence naming the heavy items (``None`` when there are none).

    Parameters
    ----------
    names : sequence of str
        Ids of the items :func:`heavy_items` returned, heaviest first.
    share : float
        Their share of the total pair weight.
    n_weighted : int
        Items with any weight.
    """
    if not names:
        return None
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    return (
        f"{len(names)} of {n_weighted} items carry {100 * share:.0f}% of the pair weight "
        f"({shown}): r̂ and the ceilings rest mostly on them"
    )
