"""Pairwise overlaps and agreement of a matrix's humans, sized by the labels observed.

:func:`pair_overlaps` counts the items each pair of humans both labelled as a sparse
``K x K`` matrix, ``O = A^T A`` with ``A`` the ``(n, K)`` 0/1 availability mask, so a crowd
of thousands whose members rarely meet costs what they share, not ``K^2``.
:func:`agreement_counts` counts agreeing pairs of labels per item from equality counts
(``sum_l c_il (c_il - 1) / 2``), never an ``L x L`` table, so ``L`` in the thousands is as
cheap as ``L = 2``. Both are sums over items, taken over blocks of consecutive items
(:func:`item_blocks`), so their memory is that of a block, not of every label given.
:func:`write_overlap_csv` writes the full table one row at a time.
"""

import csv
from dataclasses import dataclass

import numpy as np
from scipy import sparse

MIN_CELLS_PER_BLOCK = 2**20
"""The fewest (item, human) cells of a block of :func:`item_blocks`."""


def item_blocks(matrix):
    """Yield the humans' ``(items, K)`` codes of consecutive items, block by block.

    A block holds at least :data:`MIN_CELLS_PER_BLOCK` cells and at least ``K x K``, so
    adding up a ``K x K`` result block by block costs no more than reading the blocks.
    """
    k = max(matrix.n_humans, 1)
    step = max(1, max(MIN_CELLS_PER_BLOCK, k * k) // k)
    for start in range(0, matrix.n_items, step):
        yield matrix.human_labels[start : start + step]


def pair_overlaps(matrix):
    """Return the sparse ``(K, K)`` int64 counts of items labelled by both humans.

    ``O[k, k'] = sum_i A[i, k] A[i, k']`` where ``A[i, k] = 1`` when human ``k`` labelled item
    ``i``; the diagonal holds each human's own item count. Memory is proportional to the
    number of pairs that share at least one item, and to a block of items.
    """
    shape = (matrix.n_humans, matrix.n_humans)
    overlaps = sparse.csr_matrix(shape, dtype=np.int64)
    for codes in item_blocks(matrix):
        rows, cols = np.nonzero(codes >= 0)
        ones = np.ones(rows.size, dtype=np.int64)
        mask = sparse.csr_matrix((ones, (rows, cols)), shape=codes.shape)
        overlaps = overlaps + mask.T @ mask
    return overlaps.tocsr()


@dataclass(frozen=True)
class Agreement:
    """Agreeing and compared pairs of human labels, pooled and per human.

    Attributes
    ----------
    agreeing, pairs : int
        ``sum_i sum_l c_il (c_il - 1) / 2`` and ``sum_i m_i (m_i - 1) / 2`` over items, with
        ``c_il`` the humans giving label ``l`` to item ``i`` and ``m_i = sum_l c_il``.
    human_agreeing, human_pairs : numpy.ndarray
        ``(K,)`` int64: for human ``k``, ``sum_i (c_{i, y_ik} - 1)`` and ``sum_i (m_i - 1)``
        over the items ``k`` labelled: the other humans agreeing with ``k``, and the
        labels ``k`` shares an item with (its total overlap with the others).
    """

    agreeing: int
    pairs: int
    human_agreeing: np.ndarray
    human_pairs: np.ndarray

    @property
    def rate(self):
        """Return the pooled observed agreement ``agreeing / pairs`` (nan without pairs)."""
        return self.agreeing / self.pairs if self.pairs else float("nan")

    @property
    def human_rates(self):
        """Return each human's agreement with the others (nan for a human who shares none)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.human_pairs > 0, self.human_agreeing / self.human_pairs, np.nan)


def agreement_counts(matrix):
    """Return the :class:`Agreement` of the humans' labels, from equality counts.

    The observed agreement of humans is ``P_o = sum_i sum_l c_il (c_il - 1) / 2 /
    sum_i m_i (m_i - 1) / 2``, the share of agreeing pairs among the pairs of labels given
    to the same item. The counts ``c_il`` come from sorting the labelled (item, label)
    cells, so memory is proportional to the labels given, whatever ``L``.
    """
    agreeing = pairs = 0
    human_agreeing = np.zeros(matrix.n_humans, dtype=np.int64)
    human_pairs = np.zeros(matrix.n_humans, dtype=np.int64)
    for codes in item_blocks(matrix):
        counts, per_item, same, others = _block_counts(codes, max(matrix.n_labels, 1))
        agreeing += int((counts * (counts - 1) // 2).sum())
        pairs += int((per_item * (per_item - 1) // 2).sum())
        human_agreeing += same.astype(np.int64)
        human_pairs += others.astype(np.int64)
    return Agreement(agreeing, pairs, human_agreeing, human_pairs)


def _block_counts(codes, n_labels):
    """Return one block's ``c_il`` (labels given), ``m_i`` and per human agreeing and shared.

    ``codes`` is a block of ``(items, K)`` label codes (``-1``: no label); the last two are
    ``(K,)`` sums, over the block's items, of the other humans agreeing with each human and
    of the labels each human shares an item with.
    """
    rows, cols = np.nonzero(codes >= 0)
    key = rows.astype(np.int64) * n_labels + codes[rows, cols]
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    per_item = np.bincount(rows, minlength=codes.shape[0]).astype(np.int64)
    n_humans = codes.shape[1]
    same = np.bincount(cols, weights=counts[inverse.ravel()] - 1, minlength=n_humans)
    others = np.bincount(cols, weights=per_item[rows] - 1, minlength=n_humans)
    return counts, per_item, same, others


def pair_quantiles(overlaps, quantiles):
    """Return the quantiles of the overlaps of the ``K (K - 1) / 2`` distinct pairs.

    Pairs sharing no item are absent from the sparse ``overlaps``; they count as zeros
    without being stored. Quantiles interpolate linearly, as :func:`numpy.quantile`.

    Returns
    -------
    values : numpy.ndarray
        One value per requested quantile.
    zero_share : float
        The share of pairs that share no item.
    """
    upper = sparse.triu(overlaps, k=1).tocoo()
    shared = np.sort(upper.data[upper.data > 0])
    k = overlaps.shape[0]
    total = k * (k - 1) // 2
    zeros = total - shared.size
    if total == 0:
        return np.full(len(quantiles), np.nan), float("nan")
    if shared.size == 0:  # no two raters share an item: every pair's overlap is 0
        return np.zeros(len(quantiles)), 1.0

    def at(index):
        return np.where(index < zeros, 0, shared[np.clip(index - zeros, 0, None)])

    position = np.asarray(quantiles, dtype=float) * (total - 1)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, total - 1)
    weight = position - low
    values = at(low) * (1 - weight) + at(high) * weight
    return values, zeros / total


def overlap_partners(overlaps):
    """Return ``(K,)`` the number of other humans each human shares at least one item with."""
    pairs = overlaps.tocoo()
    met = (pairs.row != pairs.col) & (pairs.data > 0)
    return np.bincount(pairs.row[met], minlength=overlaps.shape[0])


def write_overlap_csv(matrix, path):
    """Write the full ``K x K`` overlap table to ``path`` as CSV; return the path.

    The header is ``human`` then every human in primary-layer order; row ``k`` holds the
    items that human ``k`` labelled together with each human (the diagonal: its own items).
    Rows are written one at a time from the sparse counts, to a temporary file renamed
    onto ``path`` (:func:`simcore.output_files.write_atomically`).
    """
    from simcore.output_files import write_atomically

    overlaps = pair_overlaps(matrix)

    def write(stream):
        writer = csv.writer(stream)
        writer.writerow(["human", *matrix.humans])
        for k, name in enumerate(matrix.humans):
            writer.writerow([name, *overlaps.getrow(k).toarray().ravel().tolist()])

    return write_atomically(path, write)
