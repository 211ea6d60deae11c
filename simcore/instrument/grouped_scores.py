"""Spearman's rho and Cohen's kappa of many small samples at once, and item-bootstrap gathers.

The human ceilings (:mod:`~simcore.instrument.ceiling.human_ceilings`) score many samples: one per
rater pair, or one per rater against a consensus, and again in every bootstrap replicate. Each
sample is a *group* of cells ``(x, y)``; a flat table of cells with a group id per cell is scored in
one pass of sorting and :func:`numpy.bincount`, so the work and the memory grow with the number of
observed cells, never with ``raters x raters x items``.

A :class:`CellTable` holds the cells of the original items, sorted by item; a bootstrap
replicate that draws items with replacement is the concatenation of the drawn items' cells
(:func:`gather_cells`), and the replicate's groups are ``replicate * n_groups + group``.
"""

from typing import NamedTuple

import numpy as np

from simcore.engine.layout import ORDINAL
from simcore.model.weighted import Scoring, agreement_weights, table_scores

CELLS_PER_BLOCK = 500_000
"""Most gathered cells (and group x code counters) scored at once; bounds the memory."""

_CONSTANT = 1e-9
"""A sample whose rank sum of squares is at most this is constant (its rho is NaN)."""


class CellTable(NamedTuple):
    """The cells to score, sorted by item.

    Attributes
    ----------
    item : numpy.ndarray
        int64 ``(m,)`` item index of each cell, non-decreasing.
    group : numpy.ndarray
        int64 ``(m,)`` sample (group) of each cell, in ``[0, n_groups)``.
    x, y : numpy.ndarray
        ``(m,)`` the two values compared: scores (graded) or int64 codes (categorical).
    n_groups : int
        Number of groups.
    n_items : int
        Number of items of the matrix the cells come from.
    """

    item: np.ndarray
    group: np.ndarray
    x: np.ndarray
    y: np.ndarray
    n_groups: int
    n_items: int


def grouped_average_ranks(group, values):
    """Return the rank of each value within its group, ties given their average rank.

    Parameters
    ----------
    group : numpy.ndarray
        int64 ``(m,)`` group of each value.
    values : numpy.ndarray
        ``(m,)`` values.

    Returns
    -------
    numpy.ndarray
        float64 ``(m,)``: ranks ``1..n_g`` within each group; a block of ``t`` tied values
        occupying positions ``s+1..s+t`` gets ``s + (t + 1) / 2`` (the ``average`` method of
        :func:`scipy.stats.rankdata`).
    """
    size = len(values)
    order = np.lexsort((values, group))
    sorted_group, sorted_values = group[order], values[order]
    position = np.arange(size)
    new_group = np.ones(size, dtype=bool)
    new_group[1:] = sorted_group[1:] != sorted_group[:-1]
    new_block = new_group.copy()
    new_block[1:] |= sorted_values[1:] != sorted_values[:-1]
    group_start = np.maximum.accumulate(np.where(new_group, position, 0))
    block_start = position[new_block]
    block_end = np.append(block_start[1:], size)
    block_rank = (block_start + block_end + 1) / 2.0
    ranks = np.empty(size)
    ranks[order] = block_rank[np.cumsum(new_block) - 1] - group_start
    return ranks


def grouped_spearman(group, x, y, n_groups):
    """Return Spearman's rho of ``(x, y)`` within every group, and each group's size.

    Parameters
    ----------
    group : numpy.ndarray
        int64 ``(m,)`` group of each cell, in ``[0, n_groups)``.
    x, y : numpy.ndarray
        ``(m,)`` paired values.
    n_groups : int
        Number of groups.

    Returns
    -------
    rho : numpy.ndarray
        float64 ``(n_groups,)``: the Pearson correlation of the within-group average ranks,
        ``sum dx dy / sqrt(sum dx^2 sum dy^2)`` (as :func:`scipy.stats.spearmanr`); NaN for a
        group with fewer than 2 cells or a constant ``x`` or ``y``.
    count : numpy.ndarray
        int64 ``(n_groups,)`` cells per group.
    """
    count = np.bincount(group, minlength=n_groups)
    if len(group) == 0:
        return np.full(n_groups, np.nan), count
    sizes = np.maximum(count, 1)
    sums = []
    deviations = []
    for values in (x, y):
        ranks = grouped_average_ranks(group, values)
        deviation = ranks - (np.bincount(group, ranks, minlength=n_groups) / sizes)[group]
        deviations.append(deviation)
        sums.append(np.bincount(group, deviation * deviation, minlength=n_groups))
    cross = np.bincount(group, deviations[0] * deviations[1], minlength=n_groups)
    defined = (count >= 2) & (sums[0] > _CONSTANT) & (sums[1] > _CONSTANT)
    rho = np.full(n_groups, np.nan)
    rho[defined] = cross[defined] / np.sqrt(sums[0][defined] * sums[1][defined])
    return np.clip(rho, -1.0, 1.0), count


def grouped_kappa(group, x, y, n_groups, n_codes):
    """Return Cohen's kappa of ``(x, y)`` within every group, and each group's size.

    Parameters
    ----------
    group : numpy.ndarray
        int64 ``(m,)`` group of each cell, in ``[0, n_groups)``.
    x, y : numpy.ndarray
        int64 ``(m,)`` codes in ``[0, n_codes)``.
    n_groups, n_codes : int
        Number of groups and of codes.

    Returns
    -------
    kappa : numpy.ndarray
        float64 ``(n_groups,)``: ``(p_o - p_e) / (1 - p_e)`` with the observed agreement
        ``p_o = mean(x == y)`` and the chance agreement ``p_e = sum_c p_x(c) p_y(c)`` from the
        group's own marginals; NaN for an empty group or where ``p_e == 1`` (both sides
        constant on the same code).
    count : numpy.ndarray
        int64 ``(n_groups,)`` cells per group.
    """
    count = np.bincount(group, minlength=n_groups)
    sizes = np.maximum(count, 1)
    observed = np.bincount(group, (x == y).astype(np.float64), minlength=n_groups) / sizes
    chance = np.zeros(n_groups)
    if len(group):
        shape = (n_groups, n_codes)
        share_x = np.bincount(group * n_codes + x, minlength=n_groups * n_codes).reshape(shape)
        share_y = np.bincount(group * n_codes + y, minlength=n_groups * n_codes).reshape(shape)
        chance = (share_x * share_y).sum(axis=1) / (sizes.astype(np.float64) ** 2)
    defined = (count >= 1) & (chance < 1.0 - 1e-12)
    kappa = np.full(n_groups, np.nan)
    kappa[defined] = (observed[defined] - chance[defined]) / (1.0 - chance[defined])
    return kappa, count


def grouped_coefficient(group, x, y, n_groups, scoring):
    """Return an agreement coefficient of ``(x, y)`` within every group, and each group's size.

    Each group's ``L x L`` table of its cells (``L = scoring.n_labels``), scored by
    :func:`simcore.model.weighted.table_scores` under ``scoring`` (a
    :class:`simcore.model.weighted.Scoring`); NaN for an empty group or an undefined score.
    Groups are tabled :data:`CELLS_PER_BLOCK` counters at a time.
    """
    count = np.bincount(group, minlength=n_groups)
    squares = scoring.n_labels**2
    cell = x.astype(np.int64) * scoring.n_labels + y.astype(np.int64)
    values = np.full(n_groups, np.nan)
    step = max(1, CELLS_PER_BLOCK // squares)
    for start in range(0, n_groups, step):
        stop = min(start + step, n_groups)
        chosen = (group >= start) & (group < stop)
        flat = (group[chosen] - start) * squares + cell[chosen]
        tables = np.bincount(flat, minlength=(stop - start) * squares).reshape(
            stop - start, scoring.n_labels, scoring.n_labels
        )
        values[start:stop] = table_scores(
            tables, scoring.coefficient, scoring.weighting, undefined=np.nan
        )
    return values, count


def grouped_scores(group, x, y, n_groups, n_codes, graded):
    """Return the groups' scores: Spearman's rho, Cohen's kappa, or a chosen coefficient.

    ``graded`` is True (:func:`grouped_spearman`), False (:func:`grouped_kappa`) or a
    :class:`simcore.model.weighted.Scoring` (:func:`grouped_coefficient`).
    """
    if isinstance(graded, Scoring):
        return grouped_coefficient(group, x, y, n_groups, graded)
    if graded:
        return grouped_spearman(group, x, y, n_groups)
    return grouped_kappa(group, x, y, n_groups, n_codes)


def consensus_weights(scoring):
    """Return the ``(L, L)`` agreement a consensus code maximises under ``scoring``.

    The consensus of an item under a chosen coefficient is the code ``c`` closest to the
    raters' labels, ``argmax_c sum_q W[c, q] n(q)`` (ties to the smallest code): the
    majority under identity weights, the median under linear weights or the ordinal level
    (linear weights on the codes' ranks), nearest the mean under quadratic or interval ones.
    """
    code, weight_matrix, order = scoring.weighting
    if code != ORDINAL:
        return weight_matrix
    ranks = np.empty(len(order))
    ranks[order] = np.arange(len(order))
    return agreement_weights(ranks, "linear")


def averaged(graded):
    """Whether a consensus is the mean code (Spearman's rho), not a code."""
    return not isinstance(graded, Scoring) and bool(graded)


def code_count(graded, *arrays):
    """``L`` of the tallies: a coefficient's labels, else one more than the largest code."""
    if isinstance(graded, Scoring):
        return graded.n_labels
    return max([1] + [int(a.max()) + 1 for a in arrays if a.size])


def closest_codes(votes, graded):
    """Return each row's consensus code from its label counts ``votes`` ``(m, L)``.

    The majority (a tie to the smallest code), or under a coefficient the code closest to
    the labels, ``argmax_c sum_q W[c, q] votes[q]`` (:func:`consensus_weights`).
    """
    if isinstance(graded, Scoring):
        votes = votes @ consensus_weights(graded).T
    return np.argmax(votes, axis=1)


def gather_cells(table, rows):
    """Return the cells of items ``rows`` of every replicate, grouped per replicate.

    Parameters
    ----------
    table : CellTable
        Cells of the original items.
    rows : numpy.ndarray
        int ``(b, n)`` item indices drawn for ``b`` replicates.

    Returns
    -------
    group, x, y : numpy.ndarray
        The gathered cells, ``group = replicate * n_groups + table.group`` (an item drawn
        twice contributes its cells twice).
    """
    starts = np.searchsorted(table.item, np.arange(table.n_items), side="left")
    counts = np.searchsorted(table.item, np.arange(table.n_items), side="right") - starts
    drawn = counts[rows]
    flat_counts = drawn.ravel()
    total = int(flat_counts.sum())
    first = np.repeat(starts[rows].ravel(), flat_counts)
    offsets = np.cumsum(flat_counts) - flat_counts
    index = first + np.arange(total) - np.repeat(offsets, flat_counts)
    replicate = np.repeat(np.arange(rows.shape[0]), drawn.sum(axis=1))
    return replicate * table.n_groups + table.group[index], table.x[index], table.y[index]


def _blocks(table, rows, n_codes):
    """Yield consecutive blocks of ``rows`` of at most :data:`CELLS_PER_BLOCK` cells each."""
    per_replicate = max(len(table.item), table.n_groups * max(n_codes, 1), 1)
    block = max(1, CELLS_PER_BLOCK // per_replicate)
    for start in range(0, rows.shape[0], block):
        yield rows[start : start + block]


def replicate_means(table, rows, graded, n_codes, min_count):
    """Return each replicate's :func:`mean_of_defined` score, block by block.

    The same as ``mean_of_defined(*replicate_scores(...), min_count)`` without holding the
    ``(b, n_groups)`` scores of every replicate at once.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=np.int64))
    return np.concatenate(
        [
            mean_of_defined(*replicate_scores(table, chunk, graded, n_codes), min_count)
            for chunk in _blocks(table, rows, n_codes)
        ]
    )


def replicate_scores(table, rows, graded, n_codes):
    """Return each replicate's score of every group, and the group sizes.

    Parameters
    ----------
    table : CellTable
        Cells of the original items.
    rows : numpy.ndarray
        int ``(b, n)`` item indices of ``b`` replicates (``arange(n)[None]`` for the data).
    graded : bool or simcore.model.weighted.Scoring
        Spearman's rho (True), Cohen's kappa (False) or a chosen coefficient
        (:func:`grouped_scores`).
    n_codes : int
        Number of codes (categorical only).

    Returns
    -------
    scores : numpy.ndarray
        float64 ``(b, n_groups)``.
    counts : numpy.ndarray
        int64 ``(b, n_groups)`` cells behind each score.

    Notes
    -----
    Replicates are scored in blocks of at most :data:`CELLS_PER_BLOCK` gathered cells (and
    group x code counters), so memory stays bounded whatever ``b`` is.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=np.int64))
    scores, counts = [], []
    for chunk in _blocks(table, rows, n_codes):
        group, x, y = gather_cells(table, chunk)
        n_groups = chunk.shape[0] * table.n_groups
        value, count = grouped_scores(group, x, y, n_groups, n_codes, graded)
        scores.append(value.reshape(chunk.shape[0], table.n_groups))
        counts.append(count.reshape(chunk.shape[0], table.n_groups))
    return np.concatenate(scores), np.concatenate(counts)


def mean_of_defined(scores, counts, min_count):
    """Return the plain mean, per replicate, of the finite scores backed by ``min_count`` cells.

    Parameters
    ----------
    scores, counts : numpy.ndarray
        ``(b, g)`` scores and their cell counts.
    min_count : int
        Fewest cells a score needs to enter the mean.

    Returns
    -------
    numpy.ndarray
        float64 ``(b,)``; NaN for a replicate with no such score.
    """
    usable = np.isfinite(scores) & (counts >= min_count)
    total = np.where(usable, scores, 0.0).sum(axis=1)
    number = usable.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(number > 0, total / np.maximum(number, 1), np.nan)


def _block_scores(table, chunk, graded, n_codes):
    """Return the ``(b, n_groups)`` scores, cells and distinct items of one block of draws."""
    group, x, y = gather_cells(table, chunk)
    b = chunk.shape[0]
    n_groups = b * table.n_groups
    value, count = grouped_scores(group, x, y, n_groups, n_codes, graded)
    present = np.zeros((b, table.n_items), dtype=bool)
    present[np.arange(b)[:, None], chunk] = True
    replicate_group = (np.arange(b)[:, None] * table.n_groups + table.group[None, :]).ravel()
    distinct = np.bincount(
        replicate_group, weights=present[:, table.item].ravel(), minlength=n_groups
    )
    shape = (b, table.n_groups)
    return value.reshape(shape), count.reshape(shape), distinct.reshape(shape)


def weighted_mean_of_defined(scores, counts, distinct, min_items):
    """Return per replicate ``sum_g n_g s_g / sum_g n_g`` over the usable groups.

    Parameters
    ----------
    scores, counts, distinct : numpy.ndarray
        ``(b, g)`` scores, their cells ``n_g`` and their distinct items.
    min_items : int
        Fewest distinct items a group needs to be usable (with a finite score).

    Returns
    -------
    numpy.ndarray
        float64 ``(b,)``; NaN for a replicate with no usable group.
    """
    usable = np.isfinite(scores) & (distinct >= min_items)
    weight = np.where(usable, counts, 0).astype(np.float64)
    total = (weight * np.where(usable, scores, 0.0)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight.sum(axis=1) > 0, total / weight.sum(axis=1), np.nan)


def replicate_weighted_means(table, rows, graded, n_codes, min_items, plain_min_count=None):
    """Return each replicate's mean score weighted by cells, over groups on ``min_items`` items.

    Parameters
    ----------
    table : CellTable
        Cells of the original items (one cell per item of a group: a rater pair's shared
        items, or a rater's scored items).
    rows : numpy.ndarray
        int ``(b, n)`` item indices of ``b`` replicates (``arange(n)[None]`` for the data).
    graded : bool or simcore.model.weighted.Scoring
        Spearman's rho (True), Cohen's kappa (False) or a chosen coefficient
        (:func:`grouped_scores`).
    n_codes : int
        Number of codes (categorical only).
    min_items : int
        Fewest *distinct* items a group needs in a replicate to enter its mean.
    plain_min_count : int, optional
        When given, also return :func:`mean_of_defined` of the same scores with this
        ``min_count`` (the unweighted mean), from the same scoring pass.

    Returns
    -------
    numpy.ndarray
        float64 ``(b,)``: ``sum_g n_g s_g / sum_g n_g`` over the groups ``g`` with a finite
        score ``s_g`` and at least ``min_items`` distinct items, ``n_g`` the group's cells in
        the replicate (an item drawn twice counts twice, so the weights follow the draw);
        NaN for a replicate with no such group. With ``plain_min_count``, a pair
        ``(weighted, plain)`` of such arrays.

    Notes
    -----
    A group's distinct items in a replicate are ``sum_{cells} [item drawn]`` over its
    cells of the data, counted from a ``(b, n_items)`` presence mask of the block's draws
    (no sort of the gathered cells); blocks hold at most ``4 * CELLS_PER_BLOCK`` mask cells.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=np.int64))
    weighted, plain = [], []
    step = max(1, 4 * CELLS_PER_BLOCK // max(table.n_items, 1))  # bounds the presence mask
    for block in _blocks(table, rows, n_codes):
        for start in range(0, block.shape[0], step):
            chunk = block[start : start + step]
            value, count, distinct = _block_scores(table, chunk, graded, n_codes)
            weighted.append(weighted_mean_of_defined(value, count, distinct, min_items))
            if plain_min_count is not None:
                plain.append(mean_of_defined(value, count, plain_min_count))
    weighted = np.concatenate(weighted) if weighted else np.zeros(0)
    if plain_min_count is None:
        return weighted
    return weighted, (np.concatenate(plain) if plain else np.zeros(0))
