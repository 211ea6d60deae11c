"""Human ceilings of a multi-rater matrix: how well humans agree, and what a judge can reach.

A judge's agreement with human labels means little until it is set against how well the
humans of the same population agree with each other. The input is ``labels``, an int array
``(n_items, R)`` of codes with ``-1`` where a rater (or rater slot) did not label the item,
and ``graded``: True when codes are ordered scores (agreement is Spearman's rho), False when
they are categories (agreement is Cohen's kappa). Graded codes are read as equally spaced
scores: a consensus is the mean of the codes present.

The statistics (SPEC §9):

* ``r̂`` (:func:`pairwise_agreement`): the single-rater reliability, the plain mean over rater
  pairs of their agreement on the items both labelled;
* the *benchmark-style* ceiling: each rater against the consensus that includes that rater
  (what a benchmark reports when it scores its own humans against its target), averaged
  over raters; inflated, because a rater agrees with itself;
* the *leave-one-out* (LOO) ceiling: each rater against the consensus of the other raters
  of the item, averaged over raters;
* the *symmetric* ceiling ``c_k = r̂ / sqrt(r̂ + (1 - r̂)/k)``
  (:func:`~simcore.calibration.statistics.human_ceiling`): what one more independent rater,
  as good as the others, reaches against the same ``k``-rater consensus a judge is scored
  against; reported as 0 when ``r̂ <= 0``;
* the model check: the LOO ceiling that formula predicts, ``c_{k-1}(r̂)`` (a rater against
  the ``k - 1`` others), beside the measured LOO ceiling.

Each comes with a percentile bootstrap interval over items (items drawn with replacement,
every statistic recomputed on the same draws). All work is sized by the observed cells: rater
pairs are found from the item rows, never from an ``R x R x n`` array
(:mod:`~simcore.instrument.grouped_scores`).
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.statistics import human_ceiling
from simcore.instrument.grouped_scores import (
    CellTable,
    grouped_kappa,
    grouped_spearman,
    replicate_means,
    replicate_scores,
)

NEAR_ZERO_CEILING = 0.1
"""A symmetric ceiling below this is near zero: the humans barely agree at all."""

DEFAULT_BOOT = 1000
"""Bootstrap resamples of the items."""

DEFAULT_SEED = 2026
"""First entry of every group's SeedSequence."""

POSITIONS = ("below", "at", "above")
"""Where a judge's score lies against the symmetric ceiling's bootstrap interval."""


class PairwiseAgreement(NamedTuple):
    """Agreement of every co-labelling rater pair.

    Attributes
    ----------
    mean : float
        Plain mean of the finite ``values`` (NaN when there is none): ``r̂``.
    pairs : numpy.ndarray
        int64 ``(P, 2)`` column indices ``(a, b)``, ``a < b``, of the pairs with at least
        ``min_overlap`` co-labelled items, in lexicographic order.
    values : numpy.ndarray
        float64 ``(P,)`` Spearman's rho or Cohen's kappa of each pair (NaN when undefined).
    overlaps : numpy.ndarray
        int64 ``(P,)`` co-labelled items of each pair.
    """

    mean: float
    pairs: np.ndarray
    values: np.ndarray
    overlaps: np.ndarray


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
        ``r̂``, the mean pairwise agreement.
    k : float
        Raters per item: the median number of labels over the items with at least one.
    benchmark, leave_one_out, symmetric, predicted_leave_one_out : Estimate
        The benchmark-style, measured leave-one-out, symmetric ``c_k(r̂)`` and predicted
        leave-one-out ``c_{k-1}(r̂)`` ceilings.
    n_items, n_raters : int
        Items and rater columns of the matrix.
    n_boot : int
        Bootstrap replicates behind the intervals.
    level : float
        Coverage of the intervals.
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

    @property
    def r_hat(self):
        """Return ``reliability``, under the name the formulas use."""
        return self.reliability


def is_graded(labels):
    """Return whether label texts read as graded: all numbers, at least 3 distinct values.

    Parameters
    ----------
    labels : sequence of str
        The declared label values (codes index them, in numeric order when numeric).

    Returns
    -------
    bool
        True when every label parses as a finite float and there are at least 3 of them.
    """
    values = []
    for label in labels:
        try:
            value = float(label)
        except (TypeError, ValueError):
            return False
        if not math.isfinite(value):
            return False
        values.append(value)
    return len(set(values)) >= 3


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


def _n_codes(*arrays):
    """Return one more than the largest code of ``arrays`` (at least 1)."""
    return max([1] + [int(a.max()) + 1 for a in arrays if a.size])


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
    """Return the agreement of every rater pair on the items both labelled, and its mean.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.
    graded : bool
        True: Spearman's rho of the two raters' scores (average ranks for ties; NaN when
        either is constant on the shared items). False: Cohen's kappa
        ``(p_o - p_e) / (1 - p_e)``, ``p_o`` the share of shared items with the same code,
        ``p_e = sum_c p_a(c) p_b(c)`` from the pair's own marginals on those items (NaN when
        ``p_e == 1``).
    min_overlap : int, optional
        Fewest co-labelled items a pair needs to be scored (default 2).

    Returns
    -------
    PairwiseAgreement
        ``mean`` is ``r̂ = (1/P') sum_{pairs} value``, the plain (unweighted) mean over the
        ``P'`` pairs with a finite value. Applied to humans it is the single-rater
        reliability; applied to judges, their inter-judge agreement.

    Notes
    -----
    Pairs are enumerated from each item's raters, so only pairs that co-label an item are
    ever touched: cost and memory grow with ``sum_i k_i (k_i - 1) / 2`` cells.
    """
    labels = _checked_labels(labels)
    table, pairs, overlaps = _pair_table(labels, min_overlap)
    values, _ = replicate_scores(table, np.arange(labels.shape[0]), graded, _n_codes(labels))
    values = values[0]
    finite = np.isfinite(values)
    mean = float(values[finite].mean()) if finite.any() else float("nan")
    return PairwiseAgreement(mean, pairs, values, overlaps)


def _item_tallies(labels, graded, n_codes):
    """Return per-item label counts ``(n,)`` and sums ``(n,)`` or code tallies ``(n, L)``."""
    present = labels >= 0
    count = present.sum(axis=1)
    if graded:
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
    graded : bool
        True: the mean code of the raters present. False: the majority code, a tie broken
        toward the smallest code.
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
    count, tally = _item_tallies(labels, graded, _n_codes(labels))
    if graded:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, tally / np.maximum(count, 1), np.nan)
    return np.where(count > 0, np.argmax(tally, axis=1), -1).astype(np.int64)


def _consensus_table(labels, graded, n_codes, leave_one_out):
    """Return the cells (rater's code, consensus of the item) grouped by rater."""
    count, tally = _item_tallies(labels, graded, n_codes)
    rows, cols = np.nonzero(labels >= 0)
    own = labels[rows, cols]
    if leave_one_out:
        keep = count[rows] >= 2
        rows, cols, own = rows[keep], cols[keep], own[keep]
    others = int(leave_one_out)
    if graded:
        target = (tally[rows] - others * own) / (count[rows] - others)
    else:
        votes = tally[rows].copy()
        votes[np.arange(len(rows)), own] -= others
        target = np.argmax(votes, axis=1).astype(np.int64)
    return CellTable(rows, cols.astype(np.int64), own, target, labels.shape[1], labels.shape[0])


def raters_per_item(labels):
    """Return ``k``: the median number of labels over the items with at least one.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.

    Returns
    -------
    float
        The median (a half-integer when the two middle items differ); NaN with no label.
    """
    count = (_checked_labels(labels) >= 0).sum(axis=1)
    count = count[count > 0]
    return float(np.median(count)) if count.size else float("nan")


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


def human_ceilings(
    labels, graded, n_boot=DEFAULT_BOOT, seed=DEFAULT_SEED, level=0.95, min_overlap=2
):
    """Return ``r̂``, the benchmark-style, leave-one-out and symmetric ceilings, with intervals.

    Parameters
    ----------
    labels : array_like
        int ``(n_items, R)`` codes, ``-1`` where not labelled.
    graded : bool
        Spearman's rho (True) or Cohen's kappa (False) throughout.
    n_boot : int, optional
        Bootstrap replicates (default 1000); 0 gives NaN intervals.
    seed : int, optional
        Root seed; the items are drawn by ``numpy.random.default_rng(SeedSequence(seed))``.
    level : float, optional
        Coverage of the percentile intervals (default 0.95).
    min_overlap : int, optional
        Fewest shared items a rater pair, and fewest items a rater, needs to be scored.

    Returns
    -------
    Ceilings
        With ``r̂ = mean_pairs score(a, b)``; benchmark ``= mean_a score(a, consensus)``;
        leave-one-out ``= mean_a score(a, consensus without a)`` over the items with another
        rater; symmetric ``c_k(r̂)`` and predicted leave-one-out ``c_{k-1}(r̂)``
        (:func:`symmetric_ceiling`), ``k`` from :func:`raters_per_item`. Every mean is plain
        over the raters (pairs) whose score is finite and rests on at least ``min_overlap``
        items: each such rater weighs the same whatever its number of items.

    Notes
    -----
    Every replicate draws ``n_items`` items with replacement and recomputes ``r̂`` and both
    measured ceilings on the same draw; the symmetric ceilings of a replicate are those of
    its ``r̂`` with ``k`` held at the data's value. Intervals are the ``(1 - level)/2`` and
    ``(1 + level)/2`` percentiles of the finite replicates.
    """
    labels = _checked_labels(labels)
    n_items, n_raters = labels.shape
    n_codes = _n_codes(labels)
    tables = (
        _pair_table(labels, min_overlap)[0],
        _consensus_table(labels, graded, n_codes, leave_one_out=False),
        _consensus_table(labels, graded, n_codes, leave_one_out=True),
    )
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    rows = np.concatenate(
        [np.arange(n_items)[None], rng.integers(0, n_items, size=(n_boot, n_items))]
    )
    means = [replicate_means(table, rows, graded, n_codes, min_overlap) for table in tables]
    k = raters_per_item(labels)
    means += [symmetric_ceiling(means[0], k), symmetric_ceiling(means[0], k - 1)]
    reliability, benchmark, loo, symmetric, predicted = (
        percentile_estimate(values[0], values[1:], level) for values in means
    )
    return Ceilings(
        reliability, k, benchmark, loo, symmetric, predicted, n_items, n_raters, n_boot, level
    )


def agreement_with_consensus(judge_labels, labels, graded):
    """Return one rater's (a judge's) agreement with the consensus of all of ``labels``.

    Parameters
    ----------
    judge_labels : array_like
        int ``(n_items,)`` codes of the judge, ``-1`` where missing.
    labels : array_like
        int ``(n_items, R)`` human codes, ``-1`` where not labelled.
    graded : bool
        Spearman's rho against the mean code (True) or Cohen's kappa against the majority
        code (False), over the items that both the judge and some human labelled.

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
    used = (judge >= 0) & ((labels >= 0).any(axis=1))
    group = np.zeros(int(used.sum()), dtype=np.int64)
    if graded:
        value, _ = grouped_spearman(group, judge[used], target[used], 1)
    else:
        n_codes = _n_codes(labels, judge)
        value, _ = grouped_kappa(group, judge[used], target[used], 1, n_codes)
    return float(value[0])


def judge_position(judge_score, ceilings):
    """Return where ``judge_score`` lies against the symmetric ceiling: below, at or above.

    Parameters
    ----------
    judge_score : float
        The judge's agreement with the ``k``-rater consensus (same statistic as the humans).
    ceilings : Ceilings
        From :func:`human_ceilings`.

    Returns
    -------
    str
        ``"at"`` inside the symmetric ceiling's bootstrap interval ``[low, high]`` (inside
        ``[value, value]`` when there is no interval), ``"below"`` under it, ``"above"`` over.

    Raises
    ------
    ValueError
        A non-finite score, or an undefined symmetric ceiling.
    """
    score = float(judge_score)
    if not np.isfinite(score):
        raise ValueError(f"judge_score must be finite (got {judge_score!r})")
    ceiling = ceilings.symmetric
    if not np.isfinite(ceiling.value):
        raise ValueError("the symmetric ceiling is undefined (no rater pair could be scored)")
    low, high = (ceiling.low, ceiling.high) if np.isfinite(ceiling.low) else (ceiling.value,) * 2
    if score < low:
        return "below"
    return "above" if score > high else "at"


def position_reading(judge_score, ceilings):
    """Return one sentence that reads ``judge_score`` against the ceilings.

    Above a near-zero symmetric ceiling (below :data:`NEAR_ZERO_CEILING`) the humans barely
    agree with each other, so a judge that tracks their mean is agreeing with a shared bias
    of the aggregate (what the raters' errors have in common), not showing accuracy.
    """
    position = judge_position(judge_score, ceilings)
    ceiling = ceilings.symmetric.value
    k = f"{ceilings.k:g}"
    if position == "above" and ceiling < NEAR_ZERO_CEILING:
        return (
            f"above a near-zero ceiling (c_{k} = {ceiling:.3f}): the humans barely agree, so this "
            "is agreement with a shared bias of the aggregate, not accuracy"
        )
    if position == "above":
        return (
            f"above the ceiling (c_{k} = {ceiling:.3f}): closer to the {k}-rater consensus than "
            "an independent human; look for a bias shared with the raters before calling it "
            "better than human"
        )
    if position == "at":
        return f"at the ceiling (c_{k} = {ceiling:.3f}): as close as one more independent human"
    return f"below the ceiling (c_{k} = {ceiling:.3f}): an independent human would agree more"
