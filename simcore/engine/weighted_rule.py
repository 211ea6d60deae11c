"""The point rule with a weighted coefficient: each comparison's whole ``(L, L)`` pair table.

A weighted score reads every cell of a comparison's label table (the ordinal metric
even reads its marginal frequencies), so where :mod:`simcore.engine.point_rule` keeps
margins this rule keeps the table: ``tables[side, k, c, a, b]`` counts the pairs of held-out
human ``k`` on which candidate ``c`` (judge ``c < J``, human ``k`` at ``c = J``) says ``a``
and a pool human says ``b``; the human pool's pairs of humans ``q < r`` are kept as
``pool[side, a, b]`` (every pair in both orientations) with the first and the second
human's label counts. Memory is ``2 K (J + 1) L**2 + 2 L**2 + O(L + K)`` int64 a thread
(:func:`weighted_bytes`), which the scenario layer checks before a run; a row costs
``O(K (J + 1) L_i)`` with ``L_i`` the labels present on it.

The passes, the empty, thin and degenerate comparisons, the pool's agreement and the
ranking are counted as the unweighted rule counts them, with the scores of
:func:`simcore.engine.weighted_scores.weighted_score`; every comparison, observed
agreement included, compares scores: ``S_j - S_h + eps >= -SCORE_TOLERANCE``.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
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
    THIN,
    THIN_DENSE,
    TRIAL_CHUNK,
)
from simcore.engine.weighted_scores import weighted_score


@jit
def weighted_tables(n_humans, n_judges, n_labels):
    """Return the weighted rule's scratch: ``(tables, pool, pool_margins, counts, distinct, work)``.

    ``tables`` int64 ``(2, K, J + 1, L, L)`` (sparse, dense); ``pool`` int64 ``(2, L, L)``
    and ``pool_margins`` int64 ``(2, 2, L)`` (first, second human); ``counts`` int64 ``(L,)``
    and ``distinct`` int64 ``(K,)`` one row's label counts and labels present; ``work``
    float64 ``(3, L)`` a comparison's rows, columns and mid-ranks.
    """
    return (
        np.zeros((2, n_humans, n_judges + 1, n_labels, n_labels), dtype=np.int64),
        np.zeros((2, n_labels, n_labels), dtype=np.int64),
        np.zeros((2, 2, n_labels), dtype=np.int64),
        np.zeros(n_labels, dtype=np.int64),
        np.zeros(n_humans, dtype=np.int64),
        np.zeros((3, n_labels), dtype=np.float64),
    )


def weighted_bytes(n_humans, n_judges, n_labels):
    """Bytes of :func:`weighted_tables`: ``8 (2 K (J + 1) L**2 + 2 L**2 + 4 L + L + K + 3 L)``."""
    squares = n_labels * n_labels
    return 8 * (2 * n_humans * (n_judges + 1) * squares + 2 * squares + 8 * n_labels + n_humans)


@jit
def _add_row(labels, mask, i, n_humans, weight, side, scratch, pool):
    """Add row ``i``'s pairs (``weight`` identical items) to side ``side`` (0 sparse, 1 dense)."""
    tables, pool_pairs, pool_margins, counts, distinct, _ = scratch
    n_judges = tables.shape[2] - 1
    n_distinct = 0
    n_counted = 0
    for r in range(n_humans):
        if side == 0 and not mask[i, r]:
            continue
        label = labels[i, r]
        if counts[label] == 0:
            distinct[n_distinct] = label
            n_distinct += 1
        counts[label] += 1
        n_counted += 1
    if pool and n_counted > 1:
        for d in range(n_distinct):
            a = distinct[d]
            for e in range(n_distinct):
                b = distinct[e]
                same = counts[a] if a == b else 0
                pool_pairs[side, a, b] += weight * (counts[a] * counts[b] - same)
        position = 0
        for r in range(n_humans):
            if side == 0 and not mask[i, r]:
                continue
            label = labels[i, r]
            pool_margins[side, 0, label] += weight * (n_counted - 1 - position)
            pool_margins[side, 1, label] += weight * position
            position += 1
    if n_counted > 1:
        for k in range(n_humans):
            if side == 0 and not mask[i, k]:
                continue
            own = labels[i, k]
            for c in range(n_judges + 1):
                said = own if c == n_judges else labels[i, n_humans + c]
                for d in range(n_distinct):
                    b = distinct[d]
                    others = counts[b] - (1 if b == own else 0)
                    tables[side, k, c, said, b] += weight * others
    for d in range(n_distinct):
        counts[distinct[d]] = 0


@jit
def _fill(labels, mask, weights, dense_rows, n_humans, scratch, dense, pool):
    """Fill the sparse side (and the dense one when ``dense``) of the tables and the pool."""
    tables, pool_pairs, pool_margins = scratch[0], scratch[1], scratch[2]
    tables[:] = 0
    pool_pairs[:] = 0
    pool_margins[:] = 0
    for i in range(labels.shape[0]):
        if weights[i] != 0:
            _add_row(labels, mask, i, n_humans, weights[i], 0, scratch, pool)
    if dense:
        dense_labels, dense_weights = dense_rows
        for i in range(dense_labels.shape[0]):
            if dense_weights[i] != 0:
                _add_row(dense_labels, mask, i, n_humans, dense_weights[i], 1, scratch, pool)


@jit
def comparison_score(table, weighting, coefficient, work):
    """Score one comparison's table: its margins into ``work``, then :func:`weighted_score`."""
    n_labels = table.shape[0]
    for a in range(n_labels):
        work[0, a] = 0.0
        work[1, a] = 0.0
    for a in range(n_labels):
        for b in range(n_labels):
            work[0, a] += table[a, b]
            work[1, b] += table[a, b]
    return weighted_score(table, work[0], work[1], weighting, coefficient, work[2])


@jit
def _pairs(table):
    """Return the number of pairs a comparison's table counts."""
    total = 0
    for a in range(table.shape[0]):
        for b in range(table.shape[1]):
            total += table[a, b]
    return total


@jit
def _count_passes(scratch, side, rule_values, weighting, n_pass, counters, columns):
    """Write each judge's passed comparisons on ``side`` into ``n_pass`` (as the unweighted rule).

    ``rule_values`` is ``(epsilon, coefficient, min_pairs)``, ``columns`` the ``(empty,
    thin, degenerate)`` counter columns (-1: not counted).
    """
    tables, work = scratch[0][side], scratch[5]
    epsilon, coefficient, min_pairs = rule_values
    empty_column, thin_column, degenerate_column = columns
    n_humans, n_candidates = tables.shape[0], tables.shape[1]
    n_judges = n_candidates - 1
    for c in range(n_judges):
        n_pass[c] = 0
    for k in range(n_humans):
        total = _pairs(tables[k, n_judges])
        if total == 0 and empty_column >= 0:
            counters[empty_column] += 1
        if total < min_pairs:
            counters[thin_column] += 1
            continue
        if total == 0:
            for c in range(n_judges):
                n_pass[c] += 1
            continue
        human, degenerate = comparison_score(tables[k, n_judges], weighting, coefficient, work)
        if degenerate:
            counters[degenerate_column] += 1
        for c in range(n_judges):
            judge, degenerate = comparison_score(tables[k, c], weighting, coefficient, work)
            if degenerate:
                counters[degenerate_column] += 1
            if judge - human + epsilon >= -SCORE_TOLERANCE:
                n_pass[c] += 1


@jit
def _pool_estimate(scratch, side, weighting, coefficient, values, counters, columns):
    """Score the human pool's pairs on ``side``; an empty or degenerate pool is undefined."""
    pool_pairs, pool_margins, work = scratch[1], scratch[2], scratch[5]
    value_column, undefined_column = columns
    n_labels = pool_pairs.shape[1]
    total = 0
    for a in range(n_labels):
        work[0, a] = pool_margins[side, 0, a]
        work[1, a] = pool_margins[side, 1, a]
        total += pool_margins[side, 0, a]
    score, degenerate = weighted_score(
        pool_pairs[side], work[0], work[1], weighting, coefficient, work[2]
    )
    values[value_column] = score
    if total == 0 or degenerate:
        counters[undefined_column] += 1


@jit
def weighted_ranking(scratch, side, weighting, coefficient, min_pairs, out):
    """Write each judge's mean weighted score over the comparisons made (0 if none is)."""
    tables, work = scratch[0][side], scratch[5]
    n_humans, n_judges = tables.shape[0], tables.shape[1] - 1
    least = max(min_pairs, 1)
    out[:] = 0.0
    count = 0
    for k in range(n_humans):  # each comparison's pairs counted once, for every judge
        if _pairs(tables[k, n_judges]) >= least:
            count += 1
            for c in range(n_judges):
                out[c] += comparison_score(tables[k, c], weighting, coefficient, work)[0]
    if count > 0:
        for c in range(n_judges):
            out[c] /= count


@jit
def decide_weighted_trial(rows, dense_rows, n_humans, rule_values, weighting, flags, outputs):
    """Run the weighted point rule and the pool estimate on one trial.

    ``rows`` is ``(labels, mask, weights)`` (row ``i`` stands for ``weights[i]`` items),
    ``dense_rows`` ``(labels, weights)`` of the dense matrix, ``rule_values`` ``(epsilon,
    coefficient, min_pairs)``, ``weighting`` as
    :func:`~simcore.engine.weighted_scores.weighted_score` takes it,
    ``flags`` ``(dense, pool)`` and ``outputs`` ``(scratch, passes (2, J), counters,
    values)`` with ``scratch`` :func:`weighted_tables`.
    """
    labels, mask, weights = rows
    dense, pool = flags
    scratch, passes, counters, values = outputs
    coefficient = rule_values[1]
    _fill(labels, mask, weights, dense_rows, n_humans, scratch, dense, pool)
    _count_passes(
        scratch, 0, rule_values, weighting, passes[0], counters, (EMPTY, THIN, DEGENERATE)
    )
    if pool:
        columns = (POOL_SPARSE, POOL_UNDEFINED)
        _pool_estimate(scratch, 0, weighting, coefficient, values, counters, columns)
    if dense:
        columns = (-1, THIN_DENSE, DEGENERATE_DENSE)
        _count_passes(scratch, 1, rule_values, weighting, passes[1], counters, columns)
        if pool:
            columns = (POOL_DENSE, POOL_UNDEFINED_DENSE)
            _pool_estimate(scratch, 1, weighting, coefficient, values, counters, columns)


@jit(parallel=True)
def evaluate_masks_weighted(labels, masks, n_humans, n_labels, rule_values, weighting):
    """Run the weighted point rule on one label matrix under many masks (real data).

    A kernel beside :func:`simcore.engine.point_rule.evaluate_masks` rather than a branch
    in it: one kernel with the weighting as a pruned argument compiled its nominal variant
    in 39-41 s against 30-34 s for the nominal kernel alone (cold cache, measured side by
    side), a cost every real-data run would pay.

    As :func:`simcore.engine.point_rule.evaluate_masks`, with ``rule_values`` ``(epsilon,
    coefficient, min_pairs)`` and ``weighting`` as :func:`decide_weighted_trial`'s: returns
    ``passes`` ``(T, J)``, ``counters``, the pool's agreement ``(T,)``, the ranking ``(T, J)``
    and the comparisons made ``(T,)``.
    """
    n_trials = masks.shape[0]
    n_judges = labels.shape[1] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    ranking = np.zeros((n_trials, n_judges), dtype=np.float64)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        scratch = weighted_tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[0], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            outputs = (scratch, passes[t], counters[t], values[t])
            rows = (labels, masks[t], weights)
            flags = (False, True)
            decide_weighted_trial(
                rows, (labels, weights), n_humans, rule_values, weighting, flags, outputs
            )
            weighted_ranking(scratch, 0, weighting, rule_values[1], rule_values[2], ranking[t])
    tested = (n_humans - counters[:, THIN]).astype(np.int16)
    return passes[:, 0], counters, values[:, POOL_SPARSE].copy(), ranking, tested
