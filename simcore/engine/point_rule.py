"""The point rule: pair tables, passes against the held-out humans, the pool's agreement.

For each held-out human ``k``, :func:`_fill_tables` counts the pairs of every candidate
(each judge, and ``k`` itself) with the other humans' labels, on the sparse matrix (the
labels that exist) and on the dense one (every label, as if each human had labelled
every item); :func:`_count_passes` compares each judge's table with the human's. The
human pool's own agreement and each judge's mean score (the ranking) come from the same
tables. :func:`evaluate` and :func:`evaluate_masks` run the rule on given matrices; the
simulations reach it through :func:`simcore.engine.decide.decide_rows`.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.coefficients import OBSERVED, table_score
from simcore.engine.layout import (
    DEGENERATE,
    DEGENERATE_DENSE,
    EMPTY,
    N_COUNTERS,
    N_VALUES,
    POOL_DENSE,
    POOL_SPARSE,
    POOL_UNDEFINED,
    POOL_UNDEFINED_DENSE,
    SCORE_TOLERANCE,
    TIE_TOLERANCE,
    TRIAL_CHUNK,
)


@jit
def _fill_tables(labels, mask, weights, n_humans, tables):
    """Accumulate the pair tables of every comparison and of the human pool into ``tables``.

    ``tables[k, c, a, b]`` counts pairs of held-out human ``k`` whose candidate label is
    ``a`` and pool label is ``b``; candidate ``c < J`` is judge ``c`` and ``c = J`` is
    human ``k`` itself. ``pool[a, b]`` counts every pair of humans ``q < r`` who both
    labelled an item, oriented (``q``'s label, ``r``'s label). Row ``i`` stands for
    ``weights[i]`` identical items (1 per item for the items engine, a category count for
    the counts engine). ``tables`` is :func:`pair_tables`.
    """
    sparse_tables, dense_tables, sparse_pool, dense_pool, label_counts = tables
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    n_labels = dense_tables.shape[2]
    sparse_tables[:] = 0
    dense_tables[:] = 0
    sparse_pool[:] = 0
    dense_pool[:] = 0
    # Per row, count the humans' labels (all of them, and those who labelled the item): the
    # pool of held-out human k holds every other human, so its label counts are these minus
    # k's own label, and a table row gains them at once: O(K L (J + 1)) per row, not
    # O(K^2 (J + 1)).
    every = label_counts[0]
    labelled = label_counts[1]
    for i in range(n_items):
        weight = weights[i]
        if weight == 0:
            continue
        every[:] = 0
        labelled[:] = 0
        for r in range(n_humans):
            label = labels[i, r]
            # the pool's pairs (q < r): r's label against the labels of the humans before it
            for a in range(n_labels):
                dense_pool[a, label] += weight * every[a]
                if mask[i, r]:
                    sparse_pool[a, label] += weight * labelled[a]
            every[label] += 1
            if mask[i, r]:
                labelled[label] += 1
        for k in range(n_humans):
            own = labels[i, k]
            observed = mask[i, k]
            for b in range(n_labels):
                dense_pairs = weight * (every[b] - (1 if own == b else 0))
                sparse_pairs = weight * (labelled[b] - (1 if own == b else 0)) if observed else 0
                if dense_pairs > 0:
                    for c in range(n_judges):
                        dense_tables[k, c, labels[i, n_humans + c], b] += dense_pairs
                    dense_tables[k, n_judges, own, b] += dense_pairs
                if sparse_pairs > 0:
                    for c in range(n_judges):
                        sparse_tables[k, c, labels[i, n_humans + c], b] += sparse_pairs
                    sparse_tables[k, n_judges, own, b] += sparse_pairs


@jit
def _count_passes(tables, epsilon, coefficient, n_pass, counters, empty_column, degenerate_column):
    """Write each judge's passed comparisons into ``n_pass``; count empty and degenerate.

    Observed agreement compares on counts, ``judge_agree - human_agree + eps n_pairs >=
    -TIE_TOLERANCE``; other coefficients compare scores with a 1e-12 tolerance.
    """
    n_humans = tables.shape[0]
    n_judges = tables.shape[1] - 1
    n_labels = tables.shape[2]
    for c in range(n_judges):
        n_pass[c] = 0
    for k in range(n_humans):
        total = 0
        human_agree = 0
        for a in range(n_labels):
            human_agree += tables[k, n_judges, a, a]
            for b in range(n_labels):
                total += tables[k, n_judges, a, b]
        if total == 0:
            if empty_column >= 0:
                counters[empty_column] += 1
            for c in range(n_judges):
                n_pass[c] += 1
            continue
        if coefficient == OBSERVED:
            for c in range(n_judges):
                judge_agree = 0
                for a in range(n_labels):
                    judge_agree += tables[k, c, a, a]
                if judge_agree - human_agree + epsilon * total >= -TIE_TOLERANCE:
                    n_pass[c] += 1
            continue
        human_score, human_degenerate = table_score(tables[k, n_judges], coefficient)
        if human_degenerate:
            counters[degenerate_column] += 1
        for c in range(n_judges):
            judge_score, judge_degenerate = table_score(tables[k, c], coefficient)
            if judge_degenerate:
                counters[degenerate_column] += 1
            if judge_score - human_score + epsilon >= -SCORE_TOLERANCE:
                n_pass[c] += 1


@jit
def _pool_estimate(pool, coefficient, values, counters, value_column, undefined_column):
    """Score the human pool's table; an empty or degenerate table is counted undefined."""
    total = 0
    for a in range(pool.shape[0]):
        for b in range(pool.shape[1]):
            total += pool[a, b]
    score, degenerate = table_score(pool, coefficient)
    values[value_column] = score
    if total == 0 or degenerate:
        counters[undefined_column] += 1


@jit
def decide_trial(
    labels, mask, weights, n_humans, epsilon, coefficient, tables, passes, counters, values
):
    """Run the rule and the pool estimate on one trial, sparse and dense."""
    _fill_tables(labels, mask, weights, n_humans, tables)
    sparse_tables, dense_tables, sparse_pool, dense_pool, _ = tables
    _count_passes(sparse_tables, epsilon, coefficient, passes[0], counters, EMPTY, DEGENERATE)
    _count_passes(dense_tables, epsilon, coefficient, passes[1], counters, -1, DEGENERATE_DENSE)
    _pool_estimate(sparse_pool, coefficient, values, counters, POOL_SPARSE, POOL_UNDEFINED)
    _pool_estimate(dense_pool, coefficient, values, counters, POOL_DENSE, POOL_UNDEFINED_DENSE)


@jit
def pair_tables(n_humans, n_judges, n_labels):
    """Return the rule's scratch tables, allocated once per task.

    Sparse and dense comparison tables, sparse and dense pool tables, and the per-row label
    counts (all humans, labelling humans) :func:`_fill_tables` works in.
    """
    sparse_tables = np.empty((n_humans, n_judges + 1, n_labels, n_labels), dtype=np.int64)
    dense_tables = np.empty_like(sparse_tables)
    sparse_pool = np.empty((n_labels, n_labels), dtype=np.int64)
    dense_pool = np.empty_like(sparse_pool)
    label_counts = np.empty((2, n_labels), dtype=np.int64)
    return sparse_tables, dense_tables, sparse_pool, dense_pool, label_counts


@jit
def ranking_scores(tables, coefficient, out):
    """Write each judge's mean score over the non-empty comparisons (0 if all are empty)."""
    n_humans = tables.shape[0]
    n_judges = tables.shape[1] - 1
    for c in range(n_judges):
        total = 0.0
        count = 0
        for k in range(n_humans):
            pairs = 0
            for a in range(tables.shape[2]):
                for b in range(tables.shape[3]):
                    pairs += tables[k, c, a, b]
            if pairs > 0:
                total += table_score(tables[k, c], coefficient)[0]
                count += 1
        out[c] = total / count if count > 0 else 0.0


# --------------------------------------------------------------------------- entry points


@jit(parallel=True)
def evaluate(labels, mask, n_humans, n_labels, epsilon, coefficient):
    """Run the rule on given label tensors: ``(T, n, R)`` labels and ``(T, n, K)`` mask.

    Returns ``passes``, ``counters`` and ``values`` in the layout of the simulation's
    (:func:`simcore.engine.decide.trial_outputs`; the overlap columns are left at 0).
    """
    n_trials = labels.shape[0]
    n_judges = labels.shape[2] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        tables = pair_tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[-2], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            decide_trial(
                labels[t],
                mask[t],
                weights,
                n_humans,
                epsilon,
                coefficient,
                tables,
                passes[t],
                counters[t],
                values[t],
            )
    return passes, counters, values


@jit(parallel=True)
def evaluate_masks(labels, masks, n_humans, n_labels, epsilon, coefficient):
    """Run the rule on one label matrix under many masks (real data thinned per trial).

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(n, K + J)``; unobserved human entries may hold any label code.
    masks : numpy.ndarray
        bool ``(T, n, K)``: which human labels each trial keeps.
    n_humans, n_labels : int
        K and L.
    epsilon : float
        Tolerance eps.
    coefficient : int
        Agreement coefficient code.

    Returns
    -------
    passes : numpy.ndarray
        int16 ``(T, J)``: comparisons each judge passes.
    counters : numpy.ndarray
        int32 ``(T, N_COUNTERS)``: as the simulation's (the dense columns are unused).
    pool : numpy.ndarray
        float64 ``(T,)``: the human pool's agreement under the mask.
    ranking : numpy.ndarray
        float64 ``(T, J)``: each judge's mean score over the non-empty comparisons.
    """
    n_trials = masks.shape[0]
    n_judges = labels.shape[1] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    ranking = np.zeros((n_trials, n_judges), dtype=np.float64)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        tables = pair_tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[-2], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            decide_trial(
                labels,
                masks[t],
                weights,
                n_humans,
                epsilon,
                coefficient,
                tables,
                passes[t],
                counters[t],
                values[t],
            )
            ranking_scores(tables[0], coefficient, ranking[t])
    return passes[:, 0], counters, values[:, POOL_SPARSE].copy(), ranking
