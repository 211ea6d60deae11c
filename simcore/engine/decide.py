"""Deciding one drawn trial with the cell's rule, shared by both engines.

:func:`decide_rows` takes a trial as weighted rows (one item per row for the items engine,
one category of identical items for the counts engine), runs the point rule on it always
and the alternative annotator test or the interval verdict when the cell asks for them,
and writes the trial's slot of the per-trial outputs (:func:`trial_outputs`). Since both
engines decide through this one function, they compute identical statistics from
identical counts.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.alt_test import alt_test, alt_test_scratch
from simcore.engine.interval import interval_verdict
from simcore.engine.layout import (
    ALT_TEST,
    EXTRA_ITEMS,
    INTERVAL,
    N_COUNTERS,
    N_VALUES,
    PAIRWISE_OVERLAP,
    RULE_COEFFICIENT,
    RULE_EPSILON,
    RULE_KIND,
    RULE_MIN_PAIRS,
    RULE_SKIP,
    SHARED,
    SKIP_AGREEMENT,
    SKIP_OVERLAP,
    SKIP_RANKING,
    THIN,
    THIN_DENSE,
    UNDECIDED,
)
from simcore.engine.point_rule import decide_trial, pair_tables, ranking_scores
from simcore.engine.weighted_rule import decide_weighted_trial, weighted_ranking, weighted_tables


@jit
def trial_outputs(n_trials, n_humans, n_judges):
    """Allocate the per-trial outputs of a simulation (zeros), in its return order.

    Returns
    -------
    favour, against : numpy.ndarray
        int16 ``(T, J)``: comparisons for and against each judge on the sparse matrix (point
        rule: passes and fails; alt_test: humans won and not won; interval: comparisons
        that clear and fail the bar with confidence).
    tested : numpy.ndarray
        int16 ``(T,)``: comparisons made (point rule: K less those with fewer than
        ``rule.min_pairs`` pairs; alt_test: the humans tested).
    reference_favour : numpy.ndarray
        int16 ``(T, J)``: the same on the dense matrix (the interval verdict's reference is
        the point rule's).
    reference_tested : numpy.ndarray
        int16 ``(T,)``.
    counters : numpy.ndarray
        int32 ``(T, N_COUNTERS)``.
    values : numpy.ndarray
        float64 ``(T, N_VALUES)``.
    coverage : numpy.ndarray
        float64 ``(T, K - 1)``: each secondary's share of the items.
    ranking : numpy.ndarray
        float64 ``(T, 2, J)``: each judge's mean score over the comparisons, sparse and dense
        (left at 0 with a single judge: there is nothing to rank).
    skipped : numpy.ndarray
        int8 ``(T, K)``: humans the alternative annotator test skipped (sparse).
    """
    return (
        np.zeros((n_trials, n_judges), dtype=np.int16),
        np.zeros((n_trials, n_judges), dtype=np.int16),
        np.zeros(n_trials, dtype=np.int16),
        np.zeros((n_trials, n_judges), dtype=np.int16),
        np.zeros(n_trials, dtype=np.int16),
        np.zeros((n_trials, N_COUNTERS), dtype=np.int32),
        np.zeros((n_trials, N_VALUES), dtype=np.float64),
        np.zeros((n_trials, n_humans - 1), dtype=np.float64),
        np.zeros((n_trials, 2, n_judges), dtype=np.float64),
        np.zeros((n_trials, n_humans), dtype=np.int8),
    )


@jit
def rule_scratch(n_humans, n_judges, n_labels, weighting=None):
    """Return the scratch :func:`decide_rows` needs, allocated once per chunk of trials.

    With a ``weighting`` (:func:`simcore.engine.weighted_scores.weighting_of`) the last
    entry is the weighted rule's ``(tables, weighting)``
    (:func:`~simcore.engine.weighted_rule.weighted_tables`); without, None, and numba then
    compiles no weighted code at all (the branch on it is pruned).
    """
    return (
        pair_tables(n_humans, n_judges, n_labels),
        np.empty((2, n_judges), dtype=np.int16),
        np.empty(n_judges, dtype=np.int16),
        alt_test_scratch(n_judges, n_humans),
        np.empty(n_humans, dtype=np.int8),
        np.empty((n_humans, n_judges, 6)),
        _weighted_scratch(n_humans, n_judges, n_labels, weighting),
    )


@jit
def _weighted_scratch(n_humans, n_judges, n_labels, weighting):
    """Return ``(weighted_tables, weighting)``, or None without a weighting."""
    if weighting is None:
        return None
    return (weighted_tables(n_humans, n_judges, n_labels), weighting)


@jit
def _overlap_statistics(mask, weights, coverage_row, values, counters):
    """Record each secondary's coverage, the mean pairwise overlap and a shared panel.

    Row ``i`` of ``mask`` stands for ``weights[i]`` items. A row labelled by ``c``
    secondaries adds ``c (c - 1) / 2`` to the pairs' shared items, so the cost is
    ``O(K)`` per row, not ``O(K^2)``; the panel is shared when every non-empty row's
    secondaries are all in or all out.
    """
    n_rows, n_humans = mask.shape
    n_items = 0
    for i in range(n_rows):
        n_items += weights[i]
    for secondary in range(1, n_humans):
        coverage_row[secondary - 1] = 0.0
    total = 0
    shared = True
    for i in range(n_rows):
        labelling = 0
        for secondary in range(1, n_humans):
            if mask[i, secondary]:
                labelling += 1
        if labelling > 0:
            for secondary in range(1, n_humans):
                if mask[i, secondary]:
                    coverage_row[secondary - 1] += weights[i]
            if labelling < n_humans - 1 and weights[i] > 0:
                shared = False
        total += weights[i] * (labelling * (labelling - 1) // 2)
    for secondary in range(1, n_humans):
        coverage_row[secondary - 1] = coverage_row[secondary - 1] / n_items
    pairs = (n_humans - 1) * (n_humans - 2) // 2
    values[PAIRWISE_OVERLAP] = total / pairs if pairs > 0 else np.nan
    counters[SHARED] = 1 if shared else 0


@jit
def decide_rows(labels, mask, weights, dense_rows, n_humans, rule, scratch, t, outputs):
    """Run the cell's rule on one drawn trial and write trial ``t`` of ``outputs``.

    Row ``i`` of ``labels`` ``(rows, R)`` and ``mask`` ``(rows, K)`` stands for
    ``weights[i]`` identical items: one item each for the items engine, one category of
    items for the counts engine. Both engines share this function, so they decide alike.
    The point rule's dense side reads ``dense_rows`` ``(labels, weights)``: the same rows,
    or the counts engine's rows merged by label pattern (same sums, fewer rows).
    ``scratch`` is :func:`rule_scratch`; ``outputs`` is :func:`trial_outputs`. The bits of
    ``rule[RULE_SKIP]`` leave out what the cell does not ask for (its columns stay 0): the
    overlap statistics, the pool's agreement, the ranking; the rest is computed alike.
    """
    (
        favour,
        against,
        tested,
        reference_favour,
        reference_tested,
        counters,
        values,
        coverage,
        ranking,
        skipped,
    ) = outputs
    tables, point, wins, alt_scratch, reference_skipped, interval_sums, weighted = scratch
    kind = int(rule[RULE_KIND])
    n_judges = labels.shape[1] - n_humans
    skip = int(rule[RULE_SKIP])
    if not skip & SKIP_OVERLAP:
        _overlap_statistics(mask, weights, coverage[t], values[t], counters[t])
    point_outputs = (point, counters[t], values[t], ranking[t])
    rows = (labels, mask, weights)
    _either_point_rule(rows, dense_rows, n_humans, rule, tables, weighted, point_outputs)
    reference_tested[t] = n_humans - counters[t, THIN_DENSE]
    tested[t] = n_humans - counters[t, THIN]
    for c in range(n_judges):
        reference_favour[t, c] = point[1, c]
        favour[t, c] = point[0, c]
        against[t, c] = tested[t] - point[0, c]
    if kind == ALT_TEST:
        pair_terms = _alt_test_terms(weighted)
        tested[t] = alt_test(
            *rows, True, n_humans, rule, alt_scratch, favour[t], skipped[t], pair_terms
        )
        reference_tested[t] = alt_test(
            *rows, False, n_humans, rule, alt_scratch, wins, reference_skipped, pair_terms
        )
        for c in range(n_judges):
            reference_favour[t, c] = wins[c]
            against[t, c] = tested[t] - favour[t, c]
    elif kind == INTERVAL:
        undecided, extra = interval_verdict(
            labels, mask, weights, True, n_humans, rule, interval_sums, favour[t], against[t]
        )
        counters[t, UNDECIDED] = undecided
        values[t, EXTRA_ITEMS] = extra


@jit
def _alt_test_terms(weighted):
    """Return the weighted scale's agreement weights ``(L, L)`` for the alt_test, or None.

    ``weighted`` is the ``(tables, weighting)`` of :func:`rule_scratch` (None for an
    unweighted rule, whose alt_test scores the codes).
    """
    if weighted is None:
        return None
    tables, weighting = weighted
    n_labels = tables[3].shape[0]
    return weighting[0].reshape((n_labels, n_labels))


@jit
def _either_point_rule(rows, dense_rows, n_humans, rule, tables, weighted, outputs):
    """Run the weighted point rule when ``weighted`` is given, else the nominal one.

    ``weighted`` is an argument here so that numba prunes the branch it does not take.
    """
    if weighted is None:
        _point_rule(rows, dense_rows, n_humans, rule, tables, *outputs)
    else:
        _weighted_point_rule(rows, dense_rows, n_humans, rule, weighted, outputs)


@jit
def _point_rule(rows, dense_rows, n_humans, rule, tables, point, counters, values, ranking):
    """Run the point rule on one trial; with two judges or more, rank them too.

    ``rows`` is ``(labels, mask, weights)``, ``dense_rows`` as in :func:`decide_rows`.
    ``point`` ``(2, J)`` receives each judge's passes, sparse and dense (comparisons with
    fewer than ``rule[RULE_MIN_PAIRS]`` pairs are left out and counted in ``THIN``,
    ``THIN_DENSE``); ``counters``,
    ``values`` and ``ranking`` ``(2, J)`` are the trial's rows of the outputs. The pool's
    agreement and the ranking are left out when ``rule[RULE_SKIP]`` says so.
    """
    coefficient = int(rule[RULE_COEFFICIENT])
    min_pairs = int(rule[RULE_MIN_PAIRS])
    rule_values = (rule[RULE_EPSILON], coefficient, min_pairs)
    skip = int(rule[RULE_SKIP])
    pool = not skip & SKIP_AGREEMENT
    labels, mask, weights = rows
    arguments = (n_humans, rule_values, True, tables, point, counters, values, pool)
    decide_trial(labels, mask, weights, dense_rows, *arguments)
    if labels.shape[1] - n_humans > 1 and not skip & SKIP_RANKING:  # needs two judges
        n_labels = tables[4].shape[1]
        ranking_scores(tables[0], n_labels, coefficient, min_pairs, ranking[0])
        ranking_scores(tables[1], n_labels, coefficient, min_pairs, ranking[1])


@jit
def _weighted_point_rule(rows, dense_rows, n_humans, rule, weighted, outputs):
    """Run the point rule with a weighted coefficient; rank two judges or more.

    As :func:`_point_rule`, on the whole pair tables
    (:mod:`simcore.engine.weighted_rule`); ``weighted`` is ``(tables, weighting)`` of
    :func:`rule_scratch` and ``outputs`` ``(point, counters, values, ranking)``.
    """
    scratch, weighting = weighted
    point, counters, values, ranking = outputs
    coefficient = int(rule[RULE_COEFFICIENT])
    min_pairs = int(rule[RULE_MIN_PAIRS])
    rule_values = (rule[RULE_EPSILON], coefficient, min_pairs)
    skip = int(rule[RULE_SKIP])
    flags = (True, not skip & SKIP_AGREEMENT)
    trial = (scratch, point, counters, values)
    decide_weighted_trial(rows, dense_rows, n_humans, rule_values, weighting, flags, trial)
    if rows[0].shape[1] - n_humans > 1 and not skip & SKIP_RANKING:
        weighted_ranking(scratch, 0, weighting, coefficient, min_pairs, ranking[0])
        weighted_ranking(scratch, 1, weighting, coefficient, min_pairs, ranking[1])
