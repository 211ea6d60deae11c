"""Human ceilings of a multi-rater matrix: how well humans agree, and what a judge can reach.

A judge's agreement with human labels means little until it is set against how well the
humans of the same population agree with each other. The input is ``labels``, an int array
``(n_items, R)`` of codes with ``-1`` where a rater (or rater slot) did not label the item,
and ``graded``: True when codes are ordered scores (agreement is Spearman's rho), False when
they are categories (agreement is Cohen's kappa). Graded codes are read as equally spaced
scores: a consensus is the mean of the codes present.

The statistics (docs/explanation/ceilings.md), each weighted by its evidence
(:mod:`~simcore.instrument.ceiling.evidence`):

* ``r̂`` (:func:`pairwise_agreement`, ``weighted_mean``): the single-rater reliability, the
  mean over rater pairs sharing at least ``min_shared`` items of their agreement on those
  items, each pair weighted by its shared items; the plain mean over every pair sharing 2
  items (the earlier ``r̂``) is kept beside it for comparison;
* the *benchmark-style* ceiling: each rater against the consensus that includes that rater
  (what a benchmark reports when it scores its own humans against its target), averaged
  over raters weighted by their scored items; inflated, because a rater agrees with itself;
* the *leave-one-out* (LOO) ceiling: each rater against the consensus of the other raters
  of the item, averaged over raters weighted by their scored items;
* the *symmetric* ceiling ``c_k = r̂ / sqrt(r̂ + (1 - r̂)/k)``
  (:func:`~simcore.calibration.statistics.human_ceiling`): what one more independent rater,
  as good as the others, reaches against the same ``k``-rater consensus a judge is scored
  against, ``k`` the harmonic mean of the raters per item over items with at least two
  (:func:`~simcore.instrument.ceiling.evidence.consensus_size`); 0 when ``r̂ <= 0``;
* the model check: the LOO ceiling that formula predicts, ``c_{k'}(r̂)`` with ``k'`` the
  harmonic mean of ``m_i - 1`` (a rater against the others), beside the measured LOO.

Each comes with a percentile bootstrap interval over items (items drawn with replacement,
every statistic and its weights recomputed on the same draws). All work is sized by the
observed cells: rater pairs are found from the item rows, never from an ``R x R x n`` array
(:mod:`~simcore.instrument.grouped_scores`). Judges are placed against the interval by
:mod:`~simcore.instrument.ceiling.position`.
"""

from typing import NamedTuple

import numpy as np

from simcore.calibration.statistics import human_ceiling
from simcore.instrument.ceiling.evidence import (
    MIN_SHARED,
    UNWEIGHTED_MIN_SHARED,
    consensus_size,
    pair_evidence,
)
from simcore.instrument.grouped_scores import (
    CellTable,
    averaged,
    closest_codes,
    code_count,
    grouped_scores,
    replicate_scores,
    replicate_weighted_means,
)
from simcore.realdata.label_scale import label_scale

DEFAULT_BOOT = 1000
"""Bootstrap resamples of the items."""

DEFAULT_SEED = 2026
"""First entry of every group's SeedSequence."""


class PairwiseAgreement(NamedTuple):
    """Agreement of every co-labelling rater pair.

    Attributes
    ----------
    mean : float
        Plain mean of the finite ``values`` (NaN when there is none).
    pairs : numpy.ndarray
        int64 ``(P, 2)`` column indices ``(a, b)``, ``a < b``, of the pairs with at least
        ``min_overlap`` co-labelled items, in lexicographic order.
    values : numpy.ndarray
        float64 ``(P,)`` Spearman's rho or Cohen's kappa of each pair (NaN when undefined).
    overlaps : numpy.ndarray
        int64 ``(P,)`` co-labelled items of each pair.
    weighted_mean : float
        ``sum n_ab r_ab / sum n_ab`` over the finite ``values``, ``n_ab`` the ``overlaps``:
        ``r̂`` when ``min_overlap`` is the ceiling's ``min_shared``.
    """

    mean: float
    pairs: np.ndarray
    values: np.ndarray
    overlaps: np.ndarray
    weighted_mean: float = float("nan")


class Estimate(NamedTuple):
    """A point value with its bootstrap percentile interval ``[low, high]``."""

    value: float
    low: float
    high: float


class Ceilings(NamedTuple):
    """The human ceilings of a matrix (see the module docstring for each).

    Attributes
    ----------
    reliability : Estimate
        ``r̂``, the mean pairwise agreement weighted by shared items, over the pairs sharing
        at least ``min_shared`` items.
    k : float
        Raters per item in the consensus: the harmonic mean over items with at least two
        (:func:`~simcore.instrument.ceiling.evidence.consensus_size`).
    benchmark, leave_one_out, symmetric, predicted_leave_one_out : Estimate
        The benchmark-style, measured leave-one-out, symmetric ``c_k(r̂)`` and predicted
        leave-one-out ``c_{k_others}(r̂)`` ceilings.
    n_items, n_raters : int
        Items and rater columns of the matrix.
    n_boot : int
        Bootstrap replicates behind the intervals.
    level : float
        Coverage of the intervals.
    unweighted_reliability : Estimate
        The plain mean over every pair sharing at least 2 items (for comparison only).
    k_others : float
        Harmonic mean of ``m_i - 1`` over the same items (the LOO consensus size).
    min_shared : int
        Fewest shared items of a scored pair (scored items of a scored rater).
    heavy_items : tuple of int
        Row indices of the items carrying half of the pair weight when a few do
        (:func:`~simcore.instrument.ceiling.evidence.heavy_items`), heaviest first; ``()``
        when the weight is spread.
    heavy_share : float
        Their share of the pair weight (0 without heavy items).
    weighted_items : int
        Items with any pair weight (co-labelled by a scored pair).
    """

    reliability: Estimate
    k: float
    benchmark: Estimate
    leave_one_out: Estimate
    symmetric: Estimate
    predicted_leave_one_out: Estimate
    n_items: int
    n_raters: int
    n_boot: int
    level: float
    unweighted_reliability: Estimate = Estimate(float("nan"), float("nan"), float("nan"))
    k_others: float = float("nan")
    min_shared: int = MIN_SHARED
    heavy_items: tuple = ()
    heavy_share: float = 0.0
    weighted_items: int = 0

    @property
    def r_hat(self):
        """Return ``reliability``, under the name the formulas use."""
        return self.reliability


def is_graded(labels):
    """Return whether label texts read as graded: the one scale decision, on texts alone.

    Parameters
    ----------
    labels : sequence of str
        The declared label values (codes index them, in numeric order when numeric).

    Returns
    -------
    bool
        True when every label parses as a finite float and there are at least 3 of them
        (:func:`simcore.realdata.label_scale.label_scale` without a declared order).
    """
    return label_scale(labels).is_rating


def _checked_labels(labels):
    """Return ``labels`` as a 2-D int64 array (ValueError when it is not one)."""
    array = np.asarray(labels)
    if array.ndim != 2 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(
            f"labels must be a 2-D integer array (got shape {array.shape}, dtype {array.dtype})"
        )
    array = array.astype(np.int64)
    if array.size and array.min() < -1:
        raise ValueError(f"labels: codes must be >= -1 (got {int(array.min())})")
    return array


def _pair_cells(labels):
    """Return ``(item, a, b)`` of every co-labelled rater pair on every item, by item."""
    present = labels >= 0
    rows, cols = np.nonzero(present)
    per_item = present.sum(axis=1)
    starts = np.cumsum(per_item) - per_item
    items, firsts, seconds = [], [], []
    for size in np.unique(per_item[per_item >= 2]):
        chosen = np.flatnonzero(per_item == size)
        raters = cols[starts[chosen][:, None] + np.arange(size)]
        upper_a, upper_b = np.triu_indices(size, 1)
        items.append(np.repeat(chosen, len(upper_a)))
        firsts.append(raters[:, upper_a].ravel())
        seconds.append(raters[:, upper_b].ravel())
    if not items:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    item = np.concatenate(items)
    order = np.argsort(item, kind="stable")
    return item[order], np.concatenate(firsts)[order], np.concatenate(seconds)[order]


def _pair_table(labels, min_overlap):
    """Return the pair cells as a :class:`CellTable` and the kept pairs with their overlaps."""
    n_raters = labels.shape[1]
    item, first, second = _pair_cells(labels)
    codes, group = np.unique(first * n_raters + second, return_inverse=True)
    overlaps = np.bincount(group, minlength=len(codes))
    kept = overlaps >= min_overlap
    renumber = np.cumsum(kept) - 1
    cell_kept = kept[group]
    table = CellTable(
        item=item[cell_kept],
        group=renumber[group[cell_kept]].astype(np.int64),
        x=labels[item[cell_kept], first[cell_kept]],
        y=labels[item[cell_kept], second[cell_kept]],
        n_groups=int(kept.sum()),
        n_items=labels.shape[0],
    )
    pairs = np.stack([codes[kept] // n_raters, codes[kept] % n_raters], axis=1).astype(np.int64)
    return table, pairs, overlaps[kept].astype(np.int64)


def pairwise_agreement(labels, graded, min_overlap=2):
    """Return the agreement of every rater pair on the items both labelled, and its means.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.
    graded : bool or simcore.model.weighted.Scoring
        True: Spearman's rho of the two raters' scores (average ranks for ties; NaN when
        either is constant on the shared items). False: Cohen's kappa
        ``(p_o - p_e) / (1 - p_e)``, ``p_o`` the share of shared items with the same code,
        ``p_e = sum_c p_a(c) p_b(c)`` from the pair's own marginals on those items (NaN when
        ``p_e == 1``). A Scoring: that coefficient of the pair's table (NaN when undefined).
    min_overlap : int, optional
        Fewest co-labelled items a pair needs to be scored (default 2; the ceilings use
        :data:`~simcore.instrument.ceiling.evidence.MIN_SHARED`).

    Returns
    -------
    PairwiseAgreement
        ``mean = (1/P') sum_{pairs} value``, the plain mean over the ``P'`` pairs with a
        finite value (applied to judges, their inter-judge agreement), and
        ``weighted_mean = sum n_ab value_ab / sum n_ab`` over the same pairs, ``n_ab`` their
        shared items (applied to humans with ``min_overlap = MIN_SHARED``: ``r̂``).

    Notes
    -----
    Pairs are enumerated from each item's raters, so only pairs that co-label an item are
    ever touched: cost and memory grow with ``sum_i k_i (k_i - 1) / 2`` cells.
    """
    labels = _checked_labels(labels)
    table, pairs, overlaps = _pair_table(labels, min_overlap)
    values, _ = replicate_scores(
        table, np.arange(labels.shape[0]), graded, code_count(graded, labels)
    )
    values = values[0]
    finite = np.isfinite(values)
    mean = float(values[finite].mean()) if finite.any() else float("nan")
    weighted = (
        float(np.average(values[finite], weights=overlaps[finite]))
        if finite.any()
        else float("nan")
    )
    return PairwiseAgreement(mean, pairs, values, overlaps, weighted)


def _item_tallies(labels, graded, n_codes):
    """Return per-item label counts ``(n,)`` and sums ``(n,)`` or code tallies ``(n, L)``."""
    present = labels >= 0
    count = present.sum(axis=1)
    if averaged(graded):
        return count, np.where(present, labels, 0).sum(axis=1).astype(np.float64)
    rows, cols = np.nonzero(present)
    cells = rows * n_codes + labels[rows, cols]
    tally = np.bincount(cells, minlength=labels.shape[0] * n_codes)
    return count, tally.reshape(labels.shape[0], n_codes)


def consensus(labels, graded, exclude=None):
    """Return each item's consensus of the raters present.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.
    graded : bool or simcore.model.weighted.Scoring
        True: the mean code of the raters present. False: the majority code, a tie broken
        toward the smallest code. A coefficient: the code closest to the raters' labels
        under its weights (:func:`~simcore.instrument.grouped_scores.closest_codes`).
    exclude : int, optional
        A rater column left out of every item's consensus.

    Returns
    -------
    numpy.ndarray
        float64 means (NaN where no rater is left) or int64 codes (``-1`` there).
    """
    labels = _checked_labels(labels)
    if exclude is not None:
        labels = np.delete(labels, exclude, axis=1)
    count, tally = _item_tallies(labels, graded, code_count(graded, labels))
    if averaged(graded):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, tally / np.maximum(count, 1), np.nan)
    return np.where(count > 0, closest_codes(tally, graded), -1).astype(np.int64)


def _consensus_table(labels, graded, n_codes, leave_one_out):
    """Return the cells (rater's code, consensus of the item) grouped by rater."""
    count, tally = _item_tallies(labels, graded, n_codes)
    rows, cols = np.nonzero(labels >= 0)
    own = labels[rows, cols]
    if leave_one_out:
        keep = count[rows] >= 2
        rows, cols, own = rows[keep], cols[keep], own[keep]
    others = int(leave_one_out)
    if averaged(graded):
        target = (tally[rows] - others * own) / (count[rows] - others)
    else:
        votes = tally[rows].copy()
        votes[np.arange(len(rows)), own] -= others
        target = closest_codes(votes, graded).astype(np.int64)
    return CellTable(rows, cols.astype(np.int64), own, target, labels.shape[1], labels.shape[0])


def raters_per_item(labels):
    """Return ``k``: the harmonic mean of the raters per item over the items with at least two.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.

    Returns
    -------
    float
        ``1 / mean_i(1 / m_i)`` over the items with ``m_i >= 2`` labels (the items that
        carry the ceiling; see
        :func:`~simcore.instrument.ceiling.evidence.consensus_size`); NaN with none.
    """
    return consensus_size(_checked_labels(labels))[0]


def symmetric_ceiling(reliability, k):
    """Return ``c_k(r) = r / sqrt(r + (1 - r)/k)``, 0 when ``r <= 0``, NaN when undefined.

    Parameters
    ----------
    reliability : array_like
        Single-rater reliabilities ``r``.
    k : float
        Raters averaged; NaN is returned for ``k < 1`` or a non-finite ``r``.

    Returns
    -------
    numpy.ndarray
        float64 of ``reliability``'s shape.
    """
    r = np.atleast_1d(np.asarray(reliability, dtype=np.float64))
    result = np.full(r.shape, np.nan)
    if not (np.isfinite(k) and k >= 1):
        return result
    positive = np.isfinite(r) & (r > 0)
    result[np.isfinite(r) & (r <= 0)] = 0.0
    if positive.any():
        result[positive] = human_ceiling(np.minimum(r[positive], 1.0), k)
    return result


def percentile_estimate(point, replicates, level):
    """Return :class:`Estimate` of ``point`` with the percentile interval of ``replicates``."""
    finite = replicates[np.isfinite(replicates)]
    if not finite.size or not np.isfinite(point):
        return Estimate(float(point), float("nan"), float("nan"))
    tail = 50.0 * (1.0 - level)
    low, high = np.percentile(finite, [tail, 100.0 - tail])
    return Estimate(float(point), float(low), float(high))


def _replicate_rows(n_items, n_boot, seed):
    """Return the data's rows then ``n_boot`` draws of ``n_items`` items with replacement."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    return np.concatenate(
        [np.arange(n_items)[None], rng.integers(0, n_items, size=(n_boot, n_items))]
    )


def human_ceilings(
    labels, graded, n_boot=DEFAULT_BOOT, seed=DEFAULT_SEED, level=0.95, min_shared=MIN_SHARED
):
    """Return ``r̂``, the benchmark-style, leave-one-out and symmetric ceilings, with intervals.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.
    graded : bool or simcore.model.weighted.Scoring
        Spearman's rho (True), Cohen's kappa (False) or a chosen coefficient throughout.
    n_boot : int, optional
        Bootstrap replicates (default 1000); 0 gives NaN intervals.
    seed : int, optional
        Root seed; the items are drawn by ``numpy.random.default_rng(SeedSequence(seed))``.
    level : float, optional
        Coverage of the percentile intervals (default 0.95).
    min_shared : int, optional
        Fewest shared items a rater pair, and fewest scored items a rater, needs to be
        scored (default :data:`~simcore.instrument.ceiling.evidence.MIN_SHARED`, 3).

    Returns
    -------
    Ceilings
        With ``r̂ = sum_ab n_ab s(a, b) / sum_ab n_ab`` over the pairs with ``n_ab >=
        min_shared`` shared items and a finite score; benchmark ``= sum_a n_a s(a,
        consensus) / sum_a n_a``; leave-one-out the same against the consensus without
        ``a`` over the items with another rater (``n_a`` the rater's scored items, at least
        ``min_shared``); symmetric ``c_k(r̂)`` and predicted leave-one-out
        ``c_{k_others}(r̂)`` (:func:`symmetric_ceiling`), ``k`` and ``k_others`` from
        :func:`~simcore.instrument.ceiling.evidence.consensus_size`; the unweighted ``r̂``
        (plain mean over the pairs sharing at least 2 items) for comparison; and the items
        carrying most of the pair weight, if a few do.

    Notes
    -----
    Every replicate draws ``n_items`` items with replacement and recomputes every pair's
    (rater's) score and weight on the same draw: an item drawn twice counts twice in the
    weights, and a pair enters when it has ``min_shared`` *distinct* items in the draw. The
    symmetric ceilings of a replicate are those of its ``r̂`` with ``k`` held at the data's
    value. Intervals are the ``(1 - level)/2`` and ``(1 + level)/2`` percentiles of the
    finite replicates.
    """
    labels = _checked_labels(labels)
    n_items, n_raters = labels.shape
    n_codes = code_count(graded, labels)
    min_shared = max(int(min_shared), 1)
    pair_table = _pair_table(labels, min(min_shared, UNWEIGHTED_MIN_SHARED))[0]
    tables = (
        pair_table,
        _consensus_table(labels, graded, n_codes, leave_one_out=False),
        _consensus_table(labels, graded, n_codes, leave_one_out=True),
    )
    rows = _replicate_rows(n_items, n_boot, seed)
    pairs, unweighted = replicate_weighted_means(
        pair_table, rows, graded, n_codes, min_shared, UNWEIGHTED_MIN_SHARED
    )
    means = [pairs] + [
        replicate_weighted_means(t, rows, graded, n_codes, min_shared) for t in tables[1:]
    ]
    k, k_others = consensus_size(labels)
    means += [symmetric_ceiling(means[0], k), symmetric_ceiling(means[0], k_others), unweighted]
    reliability, benchmark, loo, symmetric, predicted, plain = (
        percentile_estimate(values[0], values[1:], level) for values in means
    )
    evidence = pair_evidence(pair_table, graded, n_codes, min_shared)
    estimates = (reliability, k, benchmark, loo, symmetric, predicted)
    counts = (n_items, n_raters, n_boot, level)
    return Ceilings(*estimates, *counts, plain, k_others, min_shared, *evidence)


def agreement_with_consensus(judge_labels, labels, graded, min_raters=1):
    """Return one rater's (a judge's) agreement with the consensus of all of ``labels``.

    Parameters
    ----------
    judge_labels : array_like
        int ``(n_items,)`` codes of the judge, ``-1`` where missing.
    labels : array_like
        int ``(n_items, R)`` human codes, ``-1`` where not labelled.
    graded : bool or simcore.model.weighted.Scoring
        Spearman's rho against the mean code (True), Cohen's kappa against the majority
        code (False) or a coefficient against its closest code (:func:`consensus`), over
        the items that the judge and at least ``min_raters`` humans labelled.
    min_raters : int, optional
        Fewest humans an item needs to be scored (default 1; the ceiling report uses
        :data:`~simcore.instrument.ceiling.evidence.MIN_CONSENSUS_RATERS`, the items ``k``
        is taken from).

    Returns
    -------
    float
        The score; NaN when undefined. The target is the one the benchmark-style ceiling
        scores each human against, and the one :func:`symmetric_ceiling` models.
    """
    labels = _checked_labels(labels)
    judge = np.asarray(judge_labels).astype(np.int64).ravel()
    if judge.shape != (labels.shape[0],):
        raise ValueError(f"judge_labels must have shape ({labels.shape[0]},) (got {judge.shape})")
    target = consensus(labels, graded)
    used = (judge >= 0) & ((labels >= 0).sum(axis=1) >= max(int(min_raters), 1))
    group = np.zeros(int(used.sum()), dtype=np.int64)
    n_codes = code_count(graded, labels, judge)
    value, _ = grouped_scores(group, judge[used], target[used], 1, n_codes, graded)
    return float(value[0])
