"""The original alternative annotator test (docs/explanation/rule.md): does a judge beat each human.

Each human is held out in turn. On the items that human labelled, the judge's label and
the human's are scored against the other humans' labels, and a one-sided t-test per human
asks whether the human's advantage over the judge is below ``eps``. A Benjamini-Yekutieli
procedure over the tested humans turns the p-values into the judge's wins. The
simulations run the test through :func:`simcore.engine.decide.decide_rows`;
:func:`alternative_annotator_test` runs it on one matrix.
"""

import math

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.layout import (
    N_RULE,
    RULE_EPSILON,
    RULE_MIN_HUMANS,
    RULE_MIN_ITEMS,
    RULE_NUMERIC,
    RULE_Q,
    TRIAL_CHUNK,
)
from simcore.engine.stats_kernels import benjamini_yekutieli_rejections, one_sided_t_pvalue

SCORE_TIE = 1e-12
"""Two per-item scores this close are a tie: a weighted score sums fractional weights, whose
rounding depends on the order of the other humans' labels; distinct accuracies or RMSEs of
label codes are far further apart than this."""


@jit
def _item_score(labels, mask, use_mask, i, label, exclude, n_humans, numeric, pair_terms):
    """Return ``(score, humans)``: a label's score against the other humans on item ``i``.

    The other humans are the first ``n_humans`` columns but ``exclude`` (those of ``mask``
    when ``use_mask``). Without ``pair_terms`` the score is the share of them the label
    agrees with, or minus the RMSE of the codes when ``numeric``. With ``pair_terms``
    (``(L, L)``, row = the label, column = another human's), the score is the mean
    of the terms, ``s(x) = (1/c) sum_q T[x, y_q]`` (agreement weights: the weighted
    scale), or minus its root when ``numeric`` (squared distances of the label values).
    """
    total = 0.0
    count = 0
    for q in range(n_humans):
        if q == exclude or (use_mask and not mask[i, q]):
            continue
        if pair_terms is not None:
            total += pair_terms[label, labels[i, q]]
        elif numeric:
            gap = float(label - labels[i, q])
            total += gap * gap
        elif label == labels[i, q]:
            total += 1.0
        count += 1
    if count == 0:
        return 0.0, 0
    if numeric:
        return -math.sqrt(total / count), count
    return total / count, count


@jit
def alt_test_scratch(n_judges, n_humans):
    """Return the alternative annotator test's scratch: p-values, an order, sums, advantages.

    ``(pvalues (J, K), order (K,), sums (J, 3), advantage (J, K))``: after
    :func:`alt_test`, ``pvalues[c, h]`` and ``advantage[c, h]`` hold judge ``c``'s p-value
    and advantage over human ``h`` (NaN where ``h`` was skipped).
    """
    return (
        np.empty((n_judges, n_humans)),
        np.empty(n_humans),
        np.empty((n_judges, 3)),
        np.empty((n_judges, n_humans)),
    )


@jit
def _held_out_differences(rows, use_mask, n_humans, h, min_humans, numeric, pair_terms, sums):
    """Sum every judge's differences ``d_i`` on held-out human ``h``'s items; return the count.

    ``rows`` is ``(labels, mask, weights)``; ``sums[c]`` receives ``(sum d_i, sum d_i**2,
    sum W_j(i))`` for judge ``c`` over the items ``h`` labelled that at least
    ``min_humans`` humans labelled, each row counted ``weights[i]`` times, with
    ``W_j(i) = [s_judge >= s_h]`` (the advantage's numerator; scores within
    :data:`SCORE_TIE` tie); the count is the number of such items. ``numeric`` and
    ``pair_terms`` choose the score (:func:`_item_score`).
    """
    labels, mask, weights = rows
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    count = 0
    sums[:, :] = 0.0
    for i in range(n_items):
        weight = weights[i]
        if weight == 0 or (use_mask and not mask[i, h]):
            continue
        labelled = 0
        for q in range(n_humans):
            if not use_mask or mask[i, q]:
                labelled += 1
        if labelled < min_humans:
            continue
        count += weight
        scores = (n_humans, numeric, pair_terms)
        human, _ = _item_score(labels, mask, use_mask, i, labels[i, h], h, *scores)
        for c in range(n_judges):
            judge, _ = _item_score(labels, mask, use_mask, i, labels[i, n_humans + c], h, *scores)
            judge_wins = judge >= human - SCORE_TIE
            d = (1.0 if human >= judge - SCORE_TIE else 0.0) - (1.0 if judge_wins else 0.0)
            sums[c, 0] += weight * d
            sums[c, 1] += weight * d * d
            if judge_wins:
                sums[c, 2] += weight
    return count


@jit
def judge_wins(pvalues, skipped, tested, level, order, wins):
    """Write each judge's Benjamini-Yekutieli rejections among the tested humans into ``wins``.

    ``pvalues[c, h]`` is judge ``c``'s p-value against human ``h``; humans with
    ``skipped[h]`` set are left out, and ``order`` is scratch of one slot per human.
    """
    n_judges, n_humans = pvalues.shape
    for c in range(n_judges):
        gathered = 0
        for h in range(n_humans):
            if skipped[h] == 0:
                order[gathered] = pvalues[c, h]
                gathered += 1
        wins[c] = benjamini_yekutieli_rejections(order, tested, level, order) if tested else 0


@jit
def alt_test(labels, mask, weights, use_mask, n_humans, rule, scratch, wins, skipped, pair_terms):
    """Run the alternative annotator test; return the number of humans tested.

    Items labelled by fewer than ``min_humans`` humans are dropped. For held-out human ``h``
    and each item ``h`` labelled, the judge's and ``h``'s scores are their mean agreement
    with (or minus the RMSE from) the other humans on the item; ``d_i = [s_h >= s_j] -
    [s_j >= s_h]``; ``p_h`` is the one-sided t-test of ``mean(d) >= eps`` against
    ``< eps``. A human with fewer than ``min_items`` items is skipped. Benjamini-Yekutieli at
    ``level`` over the tested humans' p-values: each rejection is a win for the judge.
    ``wins[c]`` receives judge ``c``'s wins; ``pvalues[c, h]`` the p-value of judge ``c``
    against human ``h`` and ``advantage[c, h]`` its advantage ``mean_i [s_judge >= s_h]``
    (both NaN for a skipped human). ``rule`` is the kernel's rule array (eps, minimum
    humans per item and items per human, BY level, numeric scores); ``scratch`` is
    ``(pvalues (J, K), order (K,), sums (J, 3), advantage (J, K))``
    (:func:`alt_test_scratch`). Row ``i`` stands for ``weights[i]`` identical items.
    ``pair_terms`` ``(L, L)`` scores an item by the mean of ``T[label, other human's
    label]`` (agreement weights, the weighted scale) or, with numeric scores, minus the
    root of that mean (squared distances of the label values); None scores the codes
    (:func:`_item_score`).
    """
    pvalues, order, sums, _ = scratch
    epsilon = rule[RULE_EPSILON]
    min_humans = int(rule[RULE_MIN_HUMANS])
    min_items = int(rule[RULE_MIN_ITEMS])
    numeric = rule[RULE_NUMERIC] > 0.5
    tested = 0
    for h in range(n_humans):
        rows = (labels, mask, weights)
        count = _held_out_differences(
            rows, use_mask, n_humans, h, min_humans, numeric, pair_terms, sums
        )
        tested += record_held_out(h, count, sums, epsilon, min_items, scratch, skipped)
    judge_wins(pvalues, skipped, tested, rule[RULE_Q], order, wins)
    return tested


@jit
def record_held_out(h, count, sums, epsilon, min_items, scratch, skipped):
    """Record held-out human ``h``'s p-values and advantages from its sums; return 1 if tested.

    ``count`` items and, per judge ``c``, ``sums[c] = (sum d_i, sum d_i**2, sum W_j(i))``
    (:func:`alt_test`); a human with fewer than ``min_items`` (or two) items is skipped:
    ``skipped[h] = 1`` and NaN p-values and advantages. ``scratch`` as :func:`alt_test`.
    """
    pvalues, advantage = scratch[0], scratch[3]
    n_judges = pvalues.shape[0]
    if count < min_items or count < 2:
        skipped[h] = 1
        for c in range(n_judges):
            pvalues[c, h] = np.nan
            advantage[c, h] = np.nan
        return 0
    skipped[h] = 0
    for c in range(n_judges):
        pvalues[c, h] = one_sided_t_pvalue(count, sums[c, 0], sums[c, 1], epsilon)
        advantage[c, h] = sums[c, 2] / count
    return 1


@jit
def alternative_annotator_test(
    labels,
    mask,
    n_humans,
    epsilon,
    min_humans_per_item,
    min_items_per_human,
    level,
    numeric,
    pair_terms=None,
):
    """Run the alternative annotator test (docs/explanation/rule.md) on one matrix.

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(n, K + J)``, humans first; unobserved entries may hold any code.
    mask : numpy.ndarray
        bool ``(n, K)``: which human labels exist.
    n_humans : int
        K.
    epsilon, level : float
        The test's eps and the Benjamini-Yekutieli level q.
    min_humans_per_item, min_items_per_human : int
        Items with fewer human labels are dropped; humans with fewer items are skipped.
    numeric : bool
        Score items by minus the RMSE of the label codes instead of accuracy.
    pair_terms : numpy.ndarray, optional
        ``(L, L)``: score an item by the mean of ``T[label, other human's label]``
        (agreement weights) or, when ``numeric``, minus its root (squared distances of the
        label values) (:func:`alt_test`).

    Returns
    -------
    wins : numpy.ndarray
        int16 ``(J,)``: humans each judge wins against.
    tested : int
        Humans tested (the effective K); the winning rate is ``wins / tested``.
    skipped : numpy.ndarray
        int8 ``(K,)``: 1 for a skipped human.
    pvalues : numpy.ndarray
        ``(J, K)``: p-value per judge and human, NaN where skipped.
    """
    n_judges = labels.shape[1] - n_humans
    wins = np.zeros(n_judges, dtype=np.int16)
    skipped = np.zeros(n_humans, dtype=np.int8)
    rule = np.zeros(N_RULE)
    rule[RULE_EPSILON] = epsilon
    rule[RULE_MIN_HUMANS] = min_humans_per_item
    rule[RULE_MIN_ITEMS] = min_items_per_human
    rule[RULE_Q] = level
    rule[RULE_NUMERIC] = 1.0 if numeric else 0.0
    scratch = alt_test_scratch(n_judges, n_humans)
    weights = np.ones(labels.shape[0], dtype=np.int64)
    tested = alt_test(
        labels, mask, weights, True, n_humans, rule, scratch, wins, skipped, pair_terms
    )
    pvalues = scratch[0]
    return wins, tested, skipped, pvalues


@jit
def mean_advantage(advantage, skipped, tested, out):
    """Write each judge's advantage probability (mean over the tested humans) into ``out``.

    ``advantage`` and ``skipped`` as :func:`alt_test` leaves them; NaN when no human is
    tested.
    """
    n_judges, n_humans = advantage.shape
    for c in range(n_judges):
        total = 0.0
        for h in range(n_humans):
            if skipped[h] == 0:
                total += advantage[c, h]
        out[c] = total / tested if tested > 0 else np.nan


@jit(parallel=True)
def alt_test_masks(labels, masks, n_humans, rule, pair_terms=None):
    """Run the alternative annotator test on one label matrix under many masks.

    The real-data protocol's entry point for ``rule.kind: alt_test``: trial ``t`` keeps
    the human labels ``masks[t]``, and the test runs as :func:`alt_test` does.

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(n, K + J)``, humans first; unobserved entries may hold any code.
    masks : numpy.ndarray
        bool ``(T, n, K)``.
    n_humans : int
        K.
    rule : numpy.ndarray
        The kernel's rule array (eps, minimums, BY level, numeric scores).
    pair_terms : numpy.ndarray, optional
        ``(L, L)`` terms of each item's score (:func:`alt_test`); None scores the codes.

    Returns
    -------
    wins : numpy.ndarray
        int16 ``(T, J)``: humans each judge wins against.
    tested : numpy.ndarray
        int16 ``(T,)``: humans tested.
    advantage : numpy.ndarray
        float64 ``(T, J)``: advantage probability, the mean over the tested humans of the
        share of items on which the judge scores at least as well (NaN with none tested).
    """
    n_trials = masks.shape[0]
    n_judges = labels.shape[1] - n_humans
    wins = np.zeros((n_trials, n_judges), dtype=np.int16)
    tested = np.zeros(n_trials, dtype=np.int16)
    advantage = np.zeros((n_trials, n_judges), dtype=np.float64)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        scratch = alt_test_scratch(n_judges, n_humans)
        skipped = np.zeros(n_humans, dtype=np.int8)
        weights = np.ones(labels.shape[0], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            tested[t] = alt_test(
                labels,
                masks[t],
                weights,
                True,
                n_humans,
                rule,
                scratch,
                wins[t],
                skipped,
                pair_terms,
            )
            mean_advantage(scratch[3], skipped, tested[t], advantage[t])
    return wins, tested, advantage
