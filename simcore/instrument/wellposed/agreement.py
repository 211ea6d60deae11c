"""Is a criterion well posed? Agreement among judges on unlabelled items, with bootstrap bounds.

Before any human labels a criterion, two or three cheap judges can label every item. When
they cannot agree with one another, no judge is likely to be calibrated on it: the question
itself is vague. :func:`judge_agreement` measures that agreement on a ``(n, R)`` matrix of
judge label codes (``-1`` where a judge is silent):

* the point estimate is :func:`simcore.instrument.ceiling.human_ceilings.pairwise_agreement` (the
  mean over judge pairs of Spearman's rho for graded labels, Cohen's kappa for categorical ones,
  each pair on the items both labelled);
* its interval is the percentile bootstrap over items: ``B`` resamples of the ``n`` items
  with replacement, the mean pairwise agreement on each, and the ``(1 - c) / 2`` and
  ``(1 + c) / 2`` quantiles of the ``B`` means (``numpy.quantile``, linear interpolation).

A resample's pair statistics come from the pair's ``L x L`` contingency table, weighted by
how often each item was drawn: ``T_b = W_b @ onehot(x_i, y_i)`` with ``W_b`` the item counts
of resample ``b``; see :func:`table_kappa` and :func:`table_spearman`. Judges give a handful
of label values, so all ``B`` resamples cost one matrix product per pair: on a SummEval
dimension (1,600 items, 6 judges, Spearman) 1,000 resamples take about 0.3 s, against about
9 s through the cell-level :func:`simcore.instrument.grouped_scores.replicate_scores` that
:mod:`~simcore.instrument.ceiling.human_ceilings` uses. The tests check that both give the same
means on the same draws, and that the data's own table gives ``pairwise_agreement``.

Seeding: the resamples of a group come from ``numpy.random.default_rng(SeedSequence([seed,
crc32(group name)]))`` (:func:`group_seed_key`), so a group's row depends only on the seed,
its name and its items, not on the other groups run with it.
"""

import math
import zlib
from itertools import combinations
from typing import NamedTuple

import numpy as np
from scipy import sparse

from simcore.instrument.ceiling.human_ceilings import (
    DEFAULT_BOOT,
    DEFAULT_SEED,
    PairwiseAgreement,
    pairwise_agreement,
    percentile_estimate,
)
from simcore.instrument.grouped_scores import CELLS_PER_BLOCK, code_count
from simcore.model.weighted import table_scores

DEFAULT_MIN_OVERLAP = 2
"""A judge pair is scored only on at least this many items that both labelled."""


def group_seed_key(seed, group):
    """Return ``[seed, crc32(group)]``, the SeedSequence entropy of one group's resamples."""
    return [int(seed), zlib.crc32(str(group).encode("utf-8"))]


def bootstrap_indices(n_items, n_boot, rng):
    """Return int64 ``(n_boot, n_items)`` item indices drawn uniformly with replacement."""
    return rng.integers(0, n_items, size=(n_boot, n_items))


def resample_weights(indices, n_items):
    """Return float64 ``(B, n)``: how often resample ``b`` drew item ``i``.

    ``W[b, i] = #{t : indices[b, t] == i}``, one ``bincount`` over row-offset indices.
    """
    n_boot = indices.shape[0]
    offset = (np.arange(n_boot, dtype=np.int64)[:, None] * n_items + indices).ravel()
    counts = np.bincount(offset, minlength=n_boot * n_items)
    return counts.reshape(n_boot, n_items).astype(np.float64)


def pair_cells(codes, n_labels):
    """Return each judge pair's sparse ``(n, L^2)`` indicator of the cell its items fall in.

    Row ``i`` of pair ``(a, b)`` (``itertools.combinations`` order) has a single 1 at
    ``x_i L + y_i`` when both judges labelled item ``i``, and is empty otherwise: built once
    and reused for every block of resamples (:func:`pair_tables`), O(n) memory per pair.
    """
    n_items, n_raters = codes.shape
    cells = []
    for a, b in combinations(range(n_raters), 2):
        x, y = codes[:, a].astype(np.int64), codes[:, b].astype(np.int64)
        rows = np.flatnonzero((x >= 0) & (y >= 0))
        cells.append(
            sparse.csr_matrix(
                (np.ones(rows.size), (rows, x[rows] * n_labels + y[rows])),
                shape=(n_items, n_labels * n_labels),
            )
        )
    return cells


def pair_tables(codes, weights, n_labels, cells=None):
    """Return the weighted contingency tables of every judge pair.

    Parameters
    ----------
    codes : numpy.ndarray
        int ``(n, R)`` label codes in ``0 .. L-1``, ``-1`` where missing.
    weights : numpy.ndarray
        float ``(B, n)`` item weights (resample counts; ones for the data as observed).
    n_labels : int
        ``L``.
    cells : list, optional
        :func:`pair_cells` of ``codes``, when already built.

    Returns
    -------
    numpy.ndarray
        float64 ``(P, B, L, L)`` with ``P = R (R - 1) / 2`` pairs in
        ``itertools.combinations`` order: ``T[p, b, c, d] = sum_i W[b, i] 1[x_i = c, y_i = d]``
        over the items both judges of pair ``p`` labelled.
    """
    cells = pair_cells(codes, n_labels) if cells is None else cells
    out = np.zeros((len(cells), weights.shape[0], n_labels, n_labels))
    for position, indicator in enumerate(cells):
        out[position] = (indicator.T @ weights.T).T.reshape(-1, n_labels, n_labels)
    return out


TABLE_COPIES = 3
"""Float64 ``(P, b, L, L)`` arrays alive at once while a block of tables is scored."""

TABLE_PASSES = 8
"""Array operations per table entry: the product that fills it and the passes that score it."""


def pair_table_size(n_judges, n_labels, n_boot):
    """Return ``(bytes, operations)`` of scoring ``n_boot + 1`` sets of pair tables.

    Every resample (and the data) fills and scores one ``L x L`` table per judge pair, so
    the work is ``(B + 1) P L^2`` table entries times :data:`TABLE_PASSES`, with
    ``P = R (R - 1) / 2``; a block holds at least one resample's ``P`` tables, so the
    memory is at least :data:`TABLE_COPIES` float64 copies of ``P L^2`` entries.
    """
    entries = n_judges * (n_judges - 1) // 2 * n_labels**2
    block = max(1, CELLS_PER_BLOCK // max(entries, 1))
    return 8 * TABLE_COPIES * block * entries, (n_boot + 1) * entries * TABLE_PASSES


def table_kappa(tables):
    """Return Cohen's kappa of each ``L x L`` table (last two axes).

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o = sum_c T_cc / N`` and
    ``p_e = sum_c (T_c. / N)(T_.c / N)``; NaN when ``p_e == 1`` (both raters give one label).
    """
    total = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(tables, axis1=-2, axis2=-1) / total
        expected = np.sum(tables.sum(axis=-1) * tables.sum(axis=-2), axis=-1) / total**2
        kappa = (observed - expected) / (1.0 - expected)
    return np.where(np.isclose(expected, 1.0, rtol=0.0, atol=1e-12), np.nan, kappa)


def table_spearman(tables):
    """Return Spearman's rho of each ``L x L`` table of ordered codes (last two axes).

    Ties get mid-ranks: code ``c`` of the row rater ranks ``r_c = F_{c-1} + (n_c + 1) / 2``
    with ``n_c`` its (weighted) count and ``F`` the cumulative count; rho is Pearson's r of
    the mid-ranks, ``sum T_cd (r_c - m)(s_d - m) / sqrt(sum n_c (r_c - m)^2 sum n_d (s_d -
    m)^2)`` with ``m = (N + 1) / 2``. NaN when either rater gives a single value.
    """
    total = tables.sum(axis=(-2, -1))[..., None]
    row, col = tables.sum(axis=-1), tables.sum(axis=-2)
    middle = (total + 1.0) / 2.0
    rank_row = np.cumsum(row, axis=-1) - row + (row + 1.0) / 2.0 - middle
    rank_col = np.cumsum(col, axis=-1) - col + (col + 1.0) / 2.0 - middle
    covariance = np.einsum("...cd,...c,...d->...", tables, rank_row, rank_col)
    spread = np.sum(row * rank_row**2, axis=-1) * np.sum(col * rank_col**2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = covariance / np.sqrt(spread)
    return np.where(spread > 0, np.clip(rho, -1.0, 1.0), np.nan)


def table_agreement(tables, graded, min_overlap=DEFAULT_MIN_OVERLAP, scoring=None):
    """Return ``(P, B)`` pair agreements: Spearman (graded) or kappa; NaN below ``min_overlap``.

    With ``scoring`` (a :class:`simcore.model.weighted.Scoring`) each table is scored by that
    coefficient instead (:func:`simcore.model.weighted.table_scores`; NaN when undefined).
    """
    if scoring is not None:
        values = table_scores(tables, scoring.coefficient, scoring.weighting, undefined=np.nan)
    else:
        values = table_spearman(tables) if graded else table_kappa(tables)
    overlap = tables.sum(axis=(-2, -1))
    return np.where(overlap >= min_overlap, values, np.nan)


def scored_pairs(codes, scoring, min_overlap=DEFAULT_MIN_OVERLAP):
    """Return the pairs' agreement under ``scoring`` as ``pairwise_agreement`` returns it.

    The pairs sharing at least ``min_overlap`` items, in ``itertools.combinations`` order,
    each scored on its own table (:func:`table_agreement`); ``mean`` over the finite ones.
    """
    n_labels = code_count(scoring, codes)
    tables = pair_tables(codes, np.ones((1, codes.shape[0])), n_labels)[:, 0]
    overlaps = tables.sum(axis=(-2, -1)).astype(np.int64)
    kept = overlaps >= min_overlap
    values = table_agreement(tables, False, min_overlap, scoring)[kept]
    pairs = np.array(list(combinations(range(codes.shape[1]), 2)), dtype=np.int64)[kept]
    finite = np.isfinite(values)
    mean = float(values[finite].mean()) if finite.any() else math.nan
    return PairwiseAgreement(mean, pairs, values, overlaps[kept])


class JudgeAgreement(NamedTuple):
    """Agreement among judges on one set of items, with its bootstrap interval.

    Attributes
    ----------
    mean : float
        Mean pairwise agreement (``pairwise_agreement(...).mean``); NaN when no pair counts.
    low, high : float
        Percentile bootstrap interval of the mean (NaN when no resample gives a mean).
    pairs : tuple of tuple of int
        The judge pairs, column indices, as ``pairwise_agreement`` lists them.
    values : numpy.ndarray
        float ``(P,)`` agreement of each pair.
    measure : str
        ``"spearman"``, ``"kappa"`` or the chosen coefficient's name (``cohen_kappa
        (quadratic)``, ``krippendorff_alpha (ordinal)``, ...).
    n_items : int
        Items (rows) the agreement was measured on.
    n_boot : int
        Resamples drawn.
    n_boot_defined : int
        Resamples with a defined mean (the interval's quantiles are over these).
    """

    mean: float
    low: float
    high: float
    pairs: tuple
    values: np.ndarray
    measure: str
    n_items: int
    n_boot: int
    n_boot_defined: int


def _codes(labels):
    codes = np.asarray(labels)
    if codes.ndim != 2 or codes.dtype.kind not in "iu":
        raise ValueError(
            f"labels must be a 2-D integer array of codes (got {codes.ndim}-D {codes.dtype})"
        )
    if codes.shape[1] < 2:
        raise ValueError(f"labels need at least 2 judges (got {codes.shape[1]})")
    if codes.size and codes.min() < -1:
        raise ValueError(f"label codes must be >= -1 (got {int(codes.min())})")
    return codes


def bootstrap_means(codes, graded, indices, min_overlap=DEFAULT_MIN_OVERLAP, scoring=None):
    """Return float ``(B,)``: the mean pairwise agreement of each resample of the rows.

    Resample ``b`` is ``codes[indices[b]]``; its mean is the plain mean over the pairs that
    share at least ``min_overlap`` items in the data and in the resample and whose agreement
    is defined (NaN when there is none), as ``pairwise_agreement`` computes it. Resamples are
    scored in blocks of at most ``CELLS_PER_BLOCK`` (resample, item) weights or table
    entries (at least one resample); ``scoring`` chooses the pair statistic
    (:func:`table_agreement`). :func:`pair_table_size` estimates the cost beforehand.
    """
    codes = _codes(codes)
    n_items = codes.shape[0]
    n_labels = code_count(scoring, codes)
    indices = np.atleast_2d(np.asarray(indices, dtype=np.int64))
    cells = pair_cells(codes, n_labels)
    counted_pairs = np.array([indicator.nnz for indicator in cells]) >= min_overlap
    block = max(1, CELLS_PER_BLOCK // max(n_items, len(cells) * n_labels**2, 1))
    means = []
    for start in range(0, indices.shape[0], block):
        weights = resample_weights(indices[start : start + block], n_items)
        tables = pair_tables(codes, weights, n_labels, cells)
        values = table_agreement(tables, graded, min_overlap, scoring)
        defined = np.isfinite(values) & counted_pairs[:, None]
        counted = defined.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            total = np.where(defined, values, 0.0).sum(axis=0)
            means.append(np.where(counted > 0, total / np.maximum(counted, 1), np.nan))
    return np.concatenate(means) if means else np.zeros(0)


def judge_agreement(
    labels,
    graded,
    n_boot=DEFAULT_BOOT,
    rng=None,
    confidence=0.95,
    min_overlap=DEFAULT_MIN_OVERLAP,
    scoring=None,
):
    """Return the mean pairwise agreement among judges and its percentile bootstrap interval.

    Parameters
    ----------
    labels : array_like of int
        ``(n, R)`` judge label codes, ``R >= 2``; ``-1`` where a judge gave no label.
        Graded codes must be in the labels' numeric order.
    graded : bool
        Spearman's rho when True, Cohen's kappa when False.
    n_boot : int, optional
        Bootstrap resamples of the items (0: no interval, ``low`` and ``high`` NaN).
    rng : numpy.random.Generator or int or SeedSequence, optional
        Source of the resamples.
    confidence : float, optional
        Two-sided level of the interval.
    min_overlap : int, optional
        A pair counts only on at least this many shared items.
    scoring : simcore.model.weighted.Scoring, optional
        Score each pair with this coefficient instead of Spearman's rho or kappa
        (``graded`` is then not read); the point is the mean over the data's own tables.

    Returns
    -------
    JudgeAgreement
    """
    codes = _codes(labels)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 0:
        raise ValueError(f"n_boot must be an integer >= 0 (got {n_boot!r})")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1 (got {confidence!r})")
    point = (
        pairwise_agreement(codes, graded, min_overlap=min_overlap)
        if scoring is None
        else scored_pairs(codes, scoring, min_overlap)
    )
    low = high = math.nan
    defined = 0
    if n_boot and codes.shape[0]:
        indices = bootstrap_indices(codes.shape[0], int(n_boot), np.random.default_rng(rng))
        means = bootstrap_means(codes, graded, indices, min_overlap, scoring)
        defined = int(np.isfinite(means).sum())
        _, low, high = percentile_estimate(point.mean, means, confidence)
    return JudgeAgreement(
        mean=float(point.mean),
        low=low,
        high=high,
        pairs=tuple(tuple(int(j) for j in pair) for pair in point.pairs),
        values=np.asarray(point.values, dtype=float),
        measure=scoring.name if scoring is not None else "spearman" if graded else "kappa",
        n_items=int(codes.shape[0]),
        n_boot=int(n_boot),
        n_boot_defined=defined,
    )


def group_agreements(  # noqa: PLR0913 (a value object is still to come)
    codes,
    groups,
    group_names,
    graded,
    n_boot=DEFAULT_BOOT,
    seed=DEFAULT_SEED,
    confidence=0.95,
    only=None,
    scoring=None,
):
    """Return ``{group name: JudgeAgreement}`` of every group (or only those in ``only``).

    Parameters
    ----------
    codes : numpy.ndarray
        int ``(n, R)`` judge label codes, ``-1`` where missing.
    groups : numpy.ndarray
        int ``(n,)`` group code of each item, indexing ``group_names``.
    group_names : sequence of str
        The groups' names.
    graded : bool
        Spearman's rho when True, Cohen's kappa when False.
    n_boot, confidence : optional
        As in :func:`judge_agreement`.
    seed : int, optional
        Non-negative; group ``g``'s resamples use ``SeedSequence(group_seed_key(seed, g))``.
    only : sequence of str, optional
        Names of the groups to measure (default: all), in the order of ``group_names``.
    scoring : simcore.model.weighted.Scoring, optional
        The pair statistic, as in :func:`judge_agreement`.

    Returns
    -------
    dict of str to JudgeAgreement
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0 (got {seed!r})")
    codes, groups = np.asarray(codes), np.asarray(groups)
    result = {}
    for position, name in enumerate(group_names):
        if only is not None and name not in only:
            continue
        rng = np.random.default_rng(np.random.SeedSequence(group_seed_key(seed, name)))
        result[name] = judge_agreement(
            codes[groups == position],
            graded,
            n_boot=n_boot,
            rng=rng,
            confidence=confidence,
            scoring=scoring,
        )
    return result
