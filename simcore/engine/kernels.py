"""The items engine: draw every item of a trial, merge the items into rows, decide them.

:func:`simulate` runs every trial of one cell. A trial's labels and masks are drawn item
by item (:mod:`simcore.engine.draws`, which defines the stream order), items with the same
labels and mask are merged into weighted rows (:func:`merge_rows`), and the rows are
decided by the cell's rule (:func:`simcore.engine.decide.decide_rows`, which the counts
engine shares). Each trial ``t`` draws from its own counter-based stream seeded by
``trial_keys[t]`` (:mod:`simcore.engine.rng`), so results do not depend on the number of
threads. The kernel runs ``prange`` over chunks of trials; each chunk allocates its
scratch once and writes only its own trials' slots.

The codes and array layouts (:mod:`simcore.engine.layout`), the draws, and the rules
(:mod:`simcore.engine.point_rule`, :mod:`simcore.engine.alt_test`,
:mod:`simcore.engine.interval`, :mod:`simcore.engine.decide`) live in their own modules.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.decide import decide_rows, rule_scratch, trial_outputs
from simcore.engine.draws import cluster_cdfs, design_scratch, draw_trial
from simcore.engine.layout import (
    TRIAL_CHUNK,
)

__all__ = ["MAX_MERGED_CATEGORIES", "merge_rows", "simulate"]

MAX_MERGED_CATEGORIES = 1 << 16
"""Most (label pattern x mask pattern) categories for which a trial's items are merged."""


@jit(parallel=True)
def simulate(
    trial_keys,
    n_items,
    n_humans,
    confusion,
    prevalence_cdf,
    n_clusters,
    cluster_spread,
    design,
    rho,
    m,
    rule,
    weighting=None,
):
    """Draw and decide every trial of one cell.

    Parameters
    ----------
    trial_keys : numpy.ndarray
        uint64 key per trial (:func:`simcore.engine.rng.trial_keys`).
    n_items, n_humans : int
        n and K.
    confusion : numpy.ndarray
        float64 ``(R, L, L)`` confusion matrix per rater, humans first then judges.
    prevalence_cdf : numpy.ndarray
        float64 cumulative prevalence (length L, last entry 1).
    n_clusters : int
        Item clusters (item ``i`` in cluster ``i % n_clusters``); 1 for none.
    cluster_spread : float
        Half-width of each cluster's uniform difficulty shift; 0 for none.
    design : int
        Design code (:data:`BERNOULLI` ...).
    rho : float
        Bernoulli coverage of each secondary.
    m : int
        Items per secondary for the other designs.
    rule : numpy.ndarray
        float64 ``(N_RULE,)``: kind (:data:`POINT`, :data:`ALT_TEST`, :data:`INTERVAL`),
        eps, coefficient code, z of the interval verdict, the alternative annotator test's
        minimum humans per item and items per human, its BY level, 1 for numeric labels,
        and the point rule's fewest pairs for a comparison to count (``rule.min_pairs``).
    weighting : tuple, optional
        A weighted coefficient's weights (:func:`simcore.engine.weighted_scores.weighting_of`);
        None (the default) for the nominal coefficients.

    Returns
    -------
    tuple
        ``favour, against, tested, reference_favour, reference_tested, counters, values,
        coverage, ranking, skipped``: the per-trial arrays of
        :func:`simcore.engine.decide.trial_outputs`, trial ``t`` in row ``t``.
    """
    n_trials = trial_keys.shape[0]
    outputs = trial_outputs(n_trials, n_humans, confusion.shape[0] - n_humans)
    model = (n_items, n_humans, confusion, prevalence_cdf, n_clusters, cluster_spread)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        first = chunk * TRIAL_CHUNK
        stop = min(n_trials, first + TRIAL_CHUNK)
        _simulate_chunk(trial_keys, first, stop, model, design, rho, m, rule, outputs, weighting)
    return outputs


@jit
def _simulate_chunk(trial_keys, first, stop, model, design, rho, m, rule, outputs, weighting):
    """Draw and decide trials ``range(first, stop)`` with scratch allocated once for them.

    ``model`` is ``(n_items, n_humans, confusion, prevalence_cdf, n_clusters,
    cluster_spread)``; the other arguments are :func:`simulate`'s.
    """
    n_items, n_humans, confusion, prevalence_cdf, n_clusters, cluster_spread = model
    n_raters, n_labels, _ = confusion.shape
    state = np.empty(4, dtype=np.uint64)
    labels = np.empty((n_items, n_raters), dtype=np.int16)
    mask = np.empty((n_items, n_humans), dtype=np.bool_)
    cluster_cdf = cluster_cdfs(confusion, n_clusters)
    scratch = design_scratch(n_items, n_labels)
    decide_scratch = rule_scratch(n_humans, n_raters - n_humans, n_labels, weighting)
    merge_scratch = _merge_scratch(n_items, n_raters, n_humans, n_labels)
    for t in range(first, stop):
        draw_trial(
            trial_keys[t],
            state,
            n_humans,
            confusion,
            prevalence_cdf,
            n_clusters,
            cluster_spread,
            design,
            rho,
            m,
            cluster_cdf,
            scratch,
            labels,
            mask,
        )
        _decide_items(
            labels, mask, n_labels, n_humans, rule, decide_scratch, merge_scratch, t, outputs
        )


@jit
def _decide_items(
    labels, mask, n_labels, n_humans, rule, decide_scratch, merge_scratch, t, outputs
):
    """Decide trial ``t``'s items, merged into weighted rows when there are few categories.

    ``merge_scratch`` is :func:`_merge_scratch`; with too many categories to merge, every
    item is a row of weight 1.
    """
    merge, histogram, touched, weights, row_sizes, row_labels, row_masks = merge_scratch
    if merge:
        rows = merge_rows(
            labels, mask, n_labels, histogram, touched, row_sizes, row_labels, row_masks
        )
        decide_rows(
            row_labels[:rows],
            row_masks[:rows],
            row_sizes[:rows],
            (row_labels[:rows], row_sizes[:rows]),
            n_humans,
            rule,
            decide_scratch,
            t,
            outputs,
        )
    else:
        dense_rows = (labels, weights)
        decide_rows(labels, mask, weights, dense_rows, n_humans, rule, decide_scratch, t, outputs)


@jit
def _merge_scratch(n_items, n_raters, n_humans, n_labels):
    """Return the scratch of :func:`merge_rows` and whether a trial's items are merged.

    ``(merge, histogram, touched, unit weights (n,), row sizes (n,), row labels (n, R), row
    masks (n, K))``; the histogram and touched codes take one slot when ``merge`` is False.
    """
    categories = _merged_categories(n_labels, n_raters, n_humans)
    merge = categories <= MAX_MERGED_CATEGORIES
    return (
        merge,
        np.zeros(categories if merge else 1, dtype=np.int64),
        np.empty(min(categories, n_items) if merge else 1, dtype=np.int64),
        np.ones(n_items, dtype=np.int64),
        np.empty(n_items, dtype=np.int64),
        np.empty((n_items, n_raters), dtype=np.int16),
        np.empty((n_items, n_humans), dtype=np.bool_),
    )


@jit
def _merged_categories(n_labels, n_raters, n_humans):
    """Return ``L**R 2**(K - 1)``, or ``MAX_MERGED_CATEGORIES + 1`` once it exceeds it."""
    categories = 1
    for _ in range(n_raters):
        categories *= n_labels
        if categories > MAX_MERGED_CATEGORIES:
            return MAX_MERGED_CATEGORIES + 1
    for _ in range(n_humans - 1):
        categories *= 2
        if categories > MAX_MERGED_CATEGORIES:
            return MAX_MERGED_CATEGORIES + 1
    return categories


@jit
def merge_rows(labels, mask, n_labels, histogram, touched, row_sizes, row_labels, row_masks):
    """Merge items with identical labels and mask into weighted rows; return the row count.

    Item ``i``'s category code is ``(sum_r labels[i, r] L**(R - 1 - r)) 2**(K - 1) +
    sum_s mask[i, s] 2**(s - 1)`` (secondaries ``s = 1 .. K - 1``). ``histogram`` (one slot
    per code, all zero on entry and on return) counts items per code; rows come out in order
    of each code's first item. Every statistic the rules read is a sum over items of a
    function of the category, with integer-valued terms, so deciding the merged rows gives
    exactly the numbers of deciding the items one by one, for the cost of one pass over the
    items.
    """
    n_items, n_raters = labels.shape
    n_humans = mask.shape[1]
    n_touched = 0
    for i in range(n_items):
        code = 0
        for rater in range(n_raters):
            code = code * n_labels + labels[i, rater]
        for secondary in range(1, n_humans):
            code = code * 2 + (1 if mask[i, secondary] else 0)
        if histogram[code] == 0:
            touched[n_touched] = code
            n_touched += 1
        histogram[code] += 1
    for row in range(n_touched):
        code = touched[row]
        row_sizes[row] = histogram[code]
        histogram[code] = 0
        for secondary in range(n_humans - 1, 0, -1):
            row_masks[row, secondary] = code % 2 == 1
            code //= 2
        row_masks[row, 0] = True
        for rater in range(n_raters - 1, -1, -1):
            row_labels[row, rater] = code % n_labels
            code //= n_labels
    return n_touched
