"""The point rule: pair margins, passes against the held-out humans, the pool's agreement.

Every agreement coefficient of a comparison is a function of its pair count ``N``, the
number of agreeing pairs ``T`` and the label counts of its two sides (the row and column
sums of its ``(L, L)`` pair table; :func:`simcore.engine.coefficients.marginal_score`), so
the rule keeps those margins, never the ``L x L`` table. For held-out human ``k`` every
candidate (each judge, and ``k`` itself) is compared on the same pairs: the pool side's
label counts ``cols[k]`` and the pair count ``totals[k]`` are shared, and each candidate
``c`` has its own label counts ``rows[k, c]`` and agreeing pairs ``traces[k, c]``. Memory
is ``O(K (J + 1) L)``; a row (item) costs ``O(K (labels among its humans + J))``.

:func:`_fill_margins` counts the pairs of every candidate with the other humans' labels,
on the sparse matrix (the labels that exist) and on the dense one (every label, as if
each human had labelled every item); :func:`count_passes` compares each judge with the
human. The human pool's own agreement and each judge's mean score (the ranking) come
from the same margins. :func:`evaluate` and :func:`evaluate_masks` run the rule on given
matrices; the simulations reach it through :func:`simcore.engine.decide.decide_rows`.

A comparison with fewer than ``min_pairs`` pairs is left out of omega (counted in the
``THIN`` counter column): it is neither for nor against the judge, and the comparisons
made (the effective K) shrink by one. With ``min_pairs = 0`` (the paper's convention) an
empty comparison passes (both scores are 0) and every comparison is made.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.coefficients import OBSERVED, marginal_score
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
    TIE_TOLERANCE,
    TRIAL_CHUNK,
)


@jit
def pair_tables(n_humans, n_judges, n_labels):
    """Return the rule's scratch margins, allocated once per task; ``O(K (J + 1) L)`` int64.

    ``(sparse, dense, pool_sums, pool_margins, label_counts, distinct)``: ``sparse`` and
    ``dense`` are each ``(totals (K,), traces (K, J + 1), rows (K, J + 1, L), cols (K, L))``
    (candidate ``c < J`` is judge ``c``, ``c = J`` the held-out human); ``pool_sums``
    ``(2, 2)`` holds the human pool's pairs and agreeing pairs and ``pool_margins``
    ``(2, 2, L)`` its label counts (first and second human of a pair), sparse then dense;
    ``label_counts`` ``(2, L)`` and ``distinct`` ``(2, K)`` are one row's label counts (all
    humans, labelling humans) and the labels present, in which :func:`_fill_margins` works.
    """
    return (
        _side_margins(n_humans, n_judges, n_labels),
        _side_margins(n_humans, n_judges, n_labels),
        np.empty((2, 2), dtype=np.int64),
        np.empty((2, 2, n_labels), dtype=np.int64),
        np.zeros((2, n_labels), dtype=np.int64),
        np.empty((2, n_humans), dtype=np.int64),
    )


def margins_bytes(n_humans, n_judges, n_labels):
    """Bytes of :func:`pair_tables` for K humans, J judges and L labels: linear in L.

    Per side (sparse, dense) ``K (1 + (J + 1) (1 + L) + L)`` int64 (totals, traces, rows,
    cols); the pool's ``4 + 4 L``; a row's label counts ``2 L`` and labels present
    ``2 K``: ``8 (2 K (1 + (J + 1) (1 + L) + L) + 4 + 6 L + 2 K)`` bytes in all.
    """
    side = n_humans * (1 + (n_judges + 1) * (1 + n_labels) + n_labels)
    return 8 * (2 * side + 4 + 6 * n_labels + 2 * n_humans)


@jit
def _side_margins(n_humans, n_judges, n_labels):
    """Return ``(totals, traces, rows, cols)`` of one side (sparse or dense)."""
    return (
        np.empty(n_humans, dtype=np.int64),
        np.empty((n_humans, n_judges + 1), dtype=np.int64),
        np.empty((n_humans, n_judges + 1, n_labels), dtype=np.int64),
        np.empty((n_humans, n_labels), dtype=np.int64),
    )


@jit(inline=True)  # once per trial; inlined, its tuple arguments cost nothing
def _clear(side):
    """Zero one side's margins."""
    totals, traces, rows, cols = side
    totals[:] = 0
    traces[:] = 0
    rows[:] = 0
    cols[:] = 0


@jit(inline=True)  # runs per row and held-out human
def _row_counts(labels, mask, i, n_humans, counts, distinct, side):
    """Count row ``i``'s human labels (``side`` 0: labelling humans, 1: all) into ``counts``.

    Lists the labels present in ``distinct[side]`` and returns how many there are and how
    many humans count. The pool's pairs ``q < r`` are NOT added here (see
    :func:`_add_pool`).
    """
    n_distinct = 0
    n_counted = 0
    for r in range(n_humans):
        if side == 0 and not mask[i, r]:
            continue
        label = labels[i, r]
        if counts[side, label] == 0:
            distinct[side, n_distinct] = label
            n_distinct += 1
        counts[side, label] += 1
        n_counted += 1
    return n_distinct, n_counted


@jit(inline=True)  # runs per row and held-out human
def _add_pool(
    labels,
    mask,
    i,
    n_humans,
    weight,
    counts,
    distinct,
    side,
    n_distinct,
    n_counted,
    pool_sums,
    pool_margins,
):
    """Add row ``i``'s pairs of humans ``q < r`` (oriented ``q``'s label, ``r``'s label)."""
    pool_sums[side, 0] += weight * (n_counted * (n_counted - 1) // 2)
    for d in range(n_distinct):
        count = counts[side, distinct[side, d]]
        pool_sums[side, 1] += weight * (count * (count - 1) // 2)
    position = 0
    for r in range(n_humans):
        if side == 0 and not mask[i, r]:
            continue
        label = labels[i, r]
        pool_margins[side, 0, label] += weight * (n_counted - 1 - position)
        pool_margins[side, 1, label] += weight * position
        position += 1


@jit(inline=True)  # runs per row and held-out human
def _add_comparisons(
    labels, i, n_humans, k, weight, pool, counts, distinct, side, n_distinct, margins
):
    """Add the pairs of held-out human ``k`` on row ``i``: every candidate x ``pool`` others.

    ``counts[side]`` holds the row's pool label counts including ``k``'s own label, which
    is taken off here; cost ``O(labels present + J)``. (Indexing ``counts`` and
    ``distinct`` by ``side`` rather than passing row views avoids a reference count per
    call.)
    """
    totals, traces, rows, cols = margins
    n_judges = rows.shape[1] - 1
    own = labels[i, k]
    totals[k] += weight * pool
    for d in range(n_distinct):
        label = distinct[side, d]
        cols[k, label] += weight * (counts[side, label] - (1 if label == own else 0))
    for c in range(n_judges):
        label = labels[i, n_humans + c]
        rows[k, c, label] += weight * pool
        traces[k, c] += weight * (counts[side, label] - (1 if label == own else 0))
    rows[k, n_judges, own] += weight * pool
    traces[k, n_judges] += weight * (counts[side, own] - 1)


@jit(inline=True)  # once per trial; inlined, its tuple arguments cost nothing
def _fill_margins(labels, mask, weights, dense_rows, n_humans, tables, dense, pool):
    """Accumulate the margins of every comparison and of the human pool into ``tables``.

    Comparison ``k``'s pairs are ``(i, q)`` for every row ``i`` that ``k`` labelled (dense:
    every row) and every other human ``q`` who labelled it (dense: every other human). The
    pool's pairs are every two humans ``q < r`` who both labelled a row. Row ``i`` stands
    for ``weights[i]`` identical items. ``tables`` is :func:`pair_tables`; the dense side
    is filled only when ``dense``, the pool's only when ``pool``. The dense side reads
    ``dense_rows`` = ``(labels, weights)``: the same rows, or the rows merged by their
    labels alone (the dense matrix ignores the mask), which gives the same integer sums.
    """
    sparse, dense_side, pool_sums, pool_margins = tables[0], tables[1], tables[2], tables[3]
    _clear(sparse)
    _clear(dense_side)
    pool_sums[:] = 0
    pool_margins[:] = 0
    for i in range(labels.shape[0]):
        weight = weights[i]
        if weight == 0:
            continue
        _add_row(labels, mask, i, n_humans, weight, 0, sparse, tables, pool)
    if dense:
        dense_labels, dense_weights = dense_rows
        for i in range(dense_labels.shape[0]):
            weight = dense_weights[i]
            if weight == 0:
                continue
            # side 1 never reads the mask
            _add_row(dense_labels, mask, i, n_humans, weight, 1, dense_side, tables, pool)


@jit(inline=True)  # runs per row
def _add_row(labels, mask, i, n_humans, weight, side, margins, tables, pool):
    """Add row ``i``'s pairs to one side's margins (``side`` 0: sparse, 1: dense).

    The pool's pairs are added only when ``pool``.
    """
    pool_sums, pool_margins, counts, distinct = tables[2], tables[3], tables[4], tables[5]
    n_distinct, n_counted = _row_counts(labels, mask, i, n_humans, counts, distinct, side)
    if pool:
        _add_pool(
            labels,
            mask,
            i,
            n_humans,
            weight,
            counts,
            distinct,
            side,
            n_distinct,
            n_counted,
            pool_sums,
            pool_margins,
        )
    if n_counted > 1:
        for k in range(n_humans):
            if side == 0 and not mask[i, k]:
                continue
            _add_comparisons(
                labels,
                i,
                n_humans,
                k,
                weight,
                n_counted - 1,
                counts,
                distinct,
                side,
                n_distinct,
                margins,
            )
    for d in range(n_distinct):
        counts[side, distinct[side, d]] = 0


@jit(inline=True)  # once per trial; inlined, its tuple arguments cost nothing
def count_passes(margins, n_labels, epsilon, coefficient, min_pairs, n_pass, counters, columns):
    """Write each judge's passed comparisons into ``n_pass``; count empty, thin, degenerate.

    ``columns`` = ``(empty, thin, degenerate)`` counter columns (-1: not counted). A
    comparison with fewer than ``min_pairs`` pairs is left out (thin); an empty one that
    is not left out passes. Observed agreement compares on counts, ``judge_agree -
    human_agree + eps n_pairs >= -TIE_TOLERANCE``; other coefficients compare scores with a
    1e-12 tolerance.
    """
    totals, traces, rows, cols = margins
    empty_column, thin_column, degenerate_column = columns
    n_humans = rows.shape[0]
    n_judges = rows.shape[1] - 1
    for c in range(n_judges):
        n_pass[c] = 0
    for k in range(n_humans):
        total = totals[k]
        if total == 0 and empty_column >= 0:
            counters[empty_column] += 1
        if total < min_pairs:
            counters[thin_column] += 1
            continue
        if total == 0:
            for c in range(n_judges):
                n_pass[c] += 1
            continue
        human_agree = traces[k, n_judges]
        if coefficient == OBSERVED:
            for c in range(n_judges):
                if traces[k, c] - human_agree + epsilon * total >= -TIE_TOLERANCE:
                    n_pass[c] += 1
            continue
        human_score, human_degenerate = marginal_score(
            total, human_agree, rows[k, n_judges], cols[k], n_labels, coefficient
        )
        if human_degenerate:
            counters[degenerate_column] += 1
        for c in range(n_judges):
            judge_score, judge_degenerate = marginal_score(
                total, traces[k, c], rows[k, c], cols[k], n_labels, coefficient
            )
            if judge_degenerate:
                counters[degenerate_column] += 1
            if judge_score - human_score + epsilon >= -SCORE_TOLERANCE:
                n_pass[c] += 1


@jit(inline=True)  # once per trial; inlined, its tuple arguments cost nothing
def pool_estimate(tables, side, coefficient, values, counters, value_column, undefined_column):
    """Score the human pool's pairs; an empty or degenerate pool is counted undefined."""
    pool_sums, pool_margins = tables[2], tables[3]
    total = pool_sums[side, 0]
    score, degenerate = marginal_score(
        total,
        pool_sums[side, 1],
        pool_margins[side, 0],
        pool_margins[side, 1],
        pool_margins.shape[2],
        coefficient,
    )
    values[value_column] = score
    if total == 0 or degenerate:
        counters[undefined_column] += 1


@jit
def decide_trial(
    labels,
    mask,
    weights,
    dense_rows,
    n_humans,
    rule_values,
    dense,
    tables,
    passes,
    counters,
    values,
    pool=True,
):
    """Run the rule and the pool estimate on one trial, sparse (and dense when ``dense``).

    ``rule_values`` is ``(epsilon, coefficient, min_pairs)``; ``passes`` ``(2, J)``
    receives each judge's passes, sparse then dense. The comparisons made are ``K`` less
    the ``THIN`` (``THIN_DENSE``) counter. Without ``pool`` the human pool's agreement is
    not estimated (its values and counters are left as they are); the passes do not
    depend on it. The dense side reads ``dense_rows`` ``(labels, weights)``
    (:func:`_fill_margins`). Each combination of the two flags runs its own inlined copy
    with the flags constant: a flag read inside the per-row loops cost 4 us a trial.
    """
    rows = (labels, mask, weights, dense_rows)
    outputs = (tables, passes, counters, values)
    if dense and pool:
        _decide(rows, n_humans, rule_values, True, True, outputs)
    elif dense:
        _decide(rows, n_humans, rule_values, True, False, outputs)
    elif pool:
        _decide(rows, n_humans, rule_values, False, True, outputs)
    else:
        _decide(rows, n_humans, rule_values, False, False, outputs)


@jit(inline=True)  # one copy per flag combination, the flags constant in each
def _decide(rows, n_humans, rule_values, dense, pool, outputs):
    """Run the body of :func:`decide_trial` with constant ``dense`` and ``pool``."""
    labels, mask, weights, dense_rows = rows
    tables, passes, counters, values = outputs
    epsilon, coefficient, min_pairs = rule_values
    _fill_margins(labels, mask, weights, dense_rows, n_humans, tables, dense, pool)
    n_labels = tables[4].shape[1]
    count_passes(
        tables[0],
        n_labels,
        epsilon,
        coefficient,
        min_pairs,
        passes[0],
        counters,
        (EMPTY, THIN, DEGENERATE),
    )
    if pool:
        pool_estimate(tables, 0, coefficient, values, counters, POOL_SPARSE, POOL_UNDEFINED)
    if dense:
        count_passes(
            tables[1],
            n_labels,
            epsilon,
            coefficient,
            min_pairs,
            passes[1],
            counters,
            (-1, THIN_DENSE, DEGENERATE_DENSE),
        )
        if pool:
            pool_estimate(
                tables, 1, coefficient, values, counters, POOL_DENSE, POOL_UNDEFINED_DENSE
            )


@jit
def ranking_scores(margins, n_labels, coefficient, min_pairs, out):
    """Write each judge's mean score over the comparisons made (0 if there are none).

    A comparison is made when it has at least ``max(min_pairs, 1)`` pairs.
    """
    totals, traces, rows, cols = margins
    n_humans = rows.shape[0]
    n_judges = rows.shape[1] - 1
    least = max(min_pairs, 1)
    for c in range(n_judges):
        total = 0.0
        count = 0
        for k in range(n_humans):
            if totals[k] >= least:
                total += marginal_score(
                    totals[k], traces[k, c], rows[k, c], cols[k], n_labels, coefficient
                )[0]
                count += 1
        out[c] = total / count if count > 0 else 0.0


# --------------------------------------------------------------------------- entry points


@jit(parallel=True)
def evaluate(labels, mask, n_humans, n_labels, epsilon, coefficient, min_pairs=0):
    """Run the rule on given label tensors: ``(T, n, R)`` labels and ``(T, n, K)`` mask.

    Returns ``passes`` ``(T, 2, J)`` (sparse, dense), ``counters`` and ``values`` in the
    layout of the simulation's (:func:`simcore.engine.decide.trial_outputs`; the overlap
    columns are left at 0). Comparisons made: ``K - counters[:, THIN]`` (dense:
    ``THIN_DENSE``); with ``min_pairs = 0``, K.
    """
    n_trials = labels.shape[0]
    n_judges = labels.shape[2] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    rule_values = (float(epsilon), int(coefficient), int(min_pairs))
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        tables = pair_tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[-2], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            decide_trial(
                labels[t],
                mask[t],
                weights,
                (labels[t], weights),
                n_humans,
                rule_values,
                True,
                tables,
                passes[t],
                counters[t],
                values[t],
            )
    return passes, counters, values


@jit(parallel=True)
def evaluate_masks(labels, masks, n_humans, n_labels, epsilon, coefficient, min_pairs=0):
    """Run the rule on one label matrix under many masks (real data thinned per trial).

    Only the sparse side is computed (the masks are the data; there is no dense matrix).
    Scratch per parallel task is :func:`pair_tables`, ``O(K (J + 1) L)``.

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
    min_pairs : int
        A comparison with fewer pairs is left out of omega (0: none is).

    Returns
    -------
    passes : numpy.ndarray
        int16 ``(T, J)``: comparisons each judge passes.
    counters : numpy.ndarray
        int32 ``(T, N_COUNTERS)``: as the simulation's (the dense columns are unused).
    pool : numpy.ndarray
        float64 ``(T,)``: the human pool's agreement under the mask.
    ranking : numpy.ndarray
        float64 ``(T, J)``: each judge's mean score over the comparisons made.
    tested : numpy.ndarray
        int16 ``(T,)``: comparisons made, ``K - counters[:, THIN]`` (omega = passes /
        tested; 0 means no comparison was left).
    """
    n_trials = masks.shape[0]
    n_judges = labels.shape[1] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    ranking = np.zeros((n_trials, n_judges), dtype=np.float64)
    rule_values = (float(epsilon), int(coefficient), int(min_pairs))
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        tables = pair_tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[-2], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            decide_trial(
                labels,
                masks[t],
                weights,
                (labels, weights),
                n_humans,
                rule_values,
                False,
                tables,
                passes[t],
                counters[t],
                values[t],
            )
            ranking_scores(tables[0], n_labels, rule_values[1], rule_values[2], ranking[t])
    tested = (n_humans - counters[:, THIN]).astype(np.int16)
    return passes[:, 0], counters, values[:, POOL_SPARSE].copy(), ranking, tested
