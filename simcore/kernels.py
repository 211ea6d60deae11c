"""Numba kernels: draw trials and run the leave-one-out rule on them.

Everything here takes arrays and scalars and returns arrays; configuration, seeding and
storage live elsewhere. Each trial ``t`` draws from its own counter-based stream seeded by
``trial_keys[t]`` (:mod:`simcore.rng`), so results do not depend on the number of threads.
Outer kernels run ``prange`` over chunks of trials; each chunk allocates its scratch once
and writes only its own trials' slots.

Draw order inside a trial (this order defines the stream and must not change silently):

1. ``exact_m`` only: for each secondary in turn, a partial Fisher-Yates shuffle of
   ``0 .. n-1`` picks its ``m`` items.
2. For each item: the true label (inverse CDF of the prevalence), then each rater's label
   (one uniform against its accuracy; if wrong, one uniform choice among the other L - 1
   labels), then, for ``bernoulli`` only, one uniform per secondary against ``rho``.
"""

import numpy as np
from numba import prange

from simcore._jit import jit
from simcore.agreement import table_score
from simcore.rng import below, seed_state, uniform
from simcore.rule import TIE_TOLERANCE

DESIGN_BERNOULLI = 0
DESIGN_EXACT_M = 1
COEFFICIENT_OBSERVED = 0
_CHUNK = 64
_SCORE_TOLERANCE = 1e-12


@jit
def _noisy_label(state, truth, accuracy, n_labels):
    if uniform(state) < accuracy:
        return truth
    return (truth + 1 + below(state, n_labels - 1)) % n_labels


@jit
def _draw_trial(state, n_humans, accuracies, prevalence_cdf, design, rho, m, labels, mask, order):
    """Fill ``labels`` ``(n, R)`` and ``mask`` ``(n, K)`` for one trial from ``state``."""
    n_items = labels.shape[0]
    n_raters = labels.shape[1]
    n_labels = prevalence_cdf.shape[0]
    mask[:, :] = False
    mask[:, 0] = True
    if design == DESIGN_EXACT_M:
        for secondary in range(1, n_humans):
            for i in range(n_items):
                order[i] = i
            for slot in range(m):
                pick = slot + below(state, n_items - slot)
                chosen = order[pick]
                order[pick] = order[slot]
                order[slot] = chosen
                mask[chosen, secondary] = True
    for i in range(n_items):
        u = uniform(state)
        truth = n_labels - 1
        for label in range(n_labels - 1):
            if u < prevalence_cdf[label]:
                truth = label
                break
        for rater in range(n_raters):
            labels[i, rater] = _noisy_label(state, truth, accuracies[rater], n_labels)
        if design == DESIGN_BERNOULLI:
            for secondary in range(1, n_humans):
                mask[i, secondary] = uniform(state) < rho


@jit
def _fill_tables(labels, mask, n_humans, sparse_tables, dense_tables):
    """Accumulate the pair tables of every comparison, sparse and dense.

    ``tables[k, c, a, b]`` counts pairs of held-out human ``k`` whose candidate label is
    ``a`` and pool label is ``b``; candidate ``c < J`` is judge ``c`` and ``c = J`` is
    human ``k`` itself.
    """
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    sparse_tables[:] = 0
    dense_tables[:] = 0
    for i in range(n_items):
        for k in range(n_humans):
            own = labels[i, k]
            for q in range(n_humans):
                if q == k:
                    continue
                pool = labels[i, q]
                observed = mask[i, k] and mask[i, q]
                for c in range(n_judges):
                    candidate = labels[i, n_humans + c]
                    dense_tables[k, c, candidate, pool] += 1
                    if observed:
                        sparse_tables[k, c, candidate, pool] += 1
                dense_tables[k, n_judges, own, pool] += 1
                if observed:
                    sparse_tables[k, n_judges, own, pool] += 1


@jit
def _count_passes(tables, epsilon, coefficient, n_pass):
    """Write each judge's passed comparisons into ``n_pass``; return empty comparisons."""
    n_humans = tables.shape[0]
    n_judges = tables.shape[1] - 1
    n_labels = tables.shape[2]
    n_empty = 0
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
            n_empty += 1
        for c in range(n_judges):
            if coefficient == COEFFICIENT_OBSERVED:
                judge_agree = 0
                for a in range(n_labels):
                    judge_agree += tables[k, c, a, a]
                margin = judge_agree - human_agree + epsilon * total
                passed = margin >= -TIE_TOLERANCE
            else:
                difference = table_score(tables[k, c], coefficient) - table_score(
                    tables[k, n_judges], coefficient
                )
                passed = difference + epsilon >= -_SCORE_TOLERANCE
            if passed:
                n_pass[c] += 1
    return n_empty


@jit
def _decide_trial(
    labels,
    mask,
    n_humans,
    epsilon,
    coefficient,
    sparse_tables,
    dense_tables,
    sparse_pass,
    dense_pass,
):
    """Run the rule on one trial, sparse and dense; return the empty sparse comparisons."""
    _fill_tables(labels, mask, n_humans, sparse_tables, dense_tables)
    _count_passes(dense_tables, epsilon, coefficient, dense_pass)
    return _count_passes(sparse_tables, epsilon, coefficient, sparse_pass)


@jit(parallel=True)
def simulate(
    trial_keys, n_items, n_humans, accuracies, prevalence_cdf, design, rho, m, epsilon, coefficient
):
    """Draw and decide every trial of one cell.

    Parameters
    ----------
    trial_keys : numpy.ndarray
        uint64 key per trial (:func:`simcore.rng.trial_keys`).
    n_items, n_humans : int
        n and K.
    accuracies : numpy.ndarray
        float64 accuracy per rater, humans first then judges (length K + J).
    prevalence_cdf : numpy.ndarray
        float64 cumulative prevalence (length L, last entry 1).
    design : int
        :data:`DESIGN_BERNOULLI` or :data:`DESIGN_EXACT_M`.
    rho : float
        Bernoulli coverage of each secondary.
    m : int
        Items per secondary for ``exact_m``.
    epsilon : float
        Tolerance eps.
    coefficient : int
        Agreement coefficient code (:data:`simcore.agreement.COEFFICIENTS`).

    Returns
    -------
    sparse_pass : numpy.ndarray
        int16 ``(T, J)``: comparisons passed on the sparse matrix.
    dense_pass : numpy.ndarray
        int16 ``(T, J)``: comparisons passed with every human labelling every item.
    sparse_empty : numpy.ndarray
        int16 ``(T,)``: sparse comparisons with no eligible pair.
    """
    n_trials = trial_keys.shape[0]
    n_raters = accuracies.shape[0]
    n_judges = n_raters - n_humans
    n_labels = prevalence_cdf.shape[0]
    sparse_pass = np.zeros((n_trials, n_judges), dtype=np.int16)
    dense_pass = np.zeros((n_trials, n_judges), dtype=np.int16)
    sparse_empty = np.zeros(n_trials, dtype=np.int16)
    n_chunks = (n_trials + _CHUNK - 1) // _CHUNK
    for chunk in prange(n_chunks):
        state = np.empty(4, dtype=np.uint64)
        labels = np.empty((n_items, n_raters), dtype=np.int16)
        mask = np.empty((n_items, n_humans), dtype=np.bool_)
        order = np.empty(n_items, dtype=np.int64)
        sparse_tables = np.empty((n_humans, n_judges + 1, n_labels, n_labels), dtype=np.int64)
        dense_tables = np.empty_like(sparse_tables)
        for t in range(chunk * _CHUNK, min(n_trials, (chunk + 1) * _CHUNK)):
            seed_state(trial_keys[t], state)
            _draw_trial(
                state, n_humans, accuracies, prevalence_cdf, design, rho, m, labels, mask, order
            )
            sparse_empty[t] = _decide_trial(
                labels,
                mask,
                n_humans,
                epsilon,
                coefficient,
                sparse_tables,
                dense_tables,
                sparse_pass[t],
                dense_pass[t],
            )
    return sparse_pass, dense_pass, sparse_empty


@jit(parallel=True)
def draw(trial_keys, n_items, n_humans, accuracies, prevalence_cdf, design, rho, m):
    """Return the label tensor ``(T, n, R)`` and mask ``(T, n, K)`` that :func:`simulate` uses.

    Same streams and draw order as :func:`simulate`; for tests and inspection.
    """
    n_trials = trial_keys.shape[0]
    n_raters = accuracies.shape[0]
    labels = np.empty((n_trials, n_items, n_raters), dtype=np.int16)
    mask = np.empty((n_trials, n_items, n_humans), dtype=np.bool_)
    for t in prange(n_trials):
        state = np.empty(4, dtype=np.uint64)
        order = np.empty(n_items, dtype=np.int64)
        seed_state(trial_keys[t], state)
        _draw_trial(
            state, n_humans, accuracies, prevalence_cdf, design, rho, m, labels[t], mask[t], order
        )
    return labels, mask


@jit(parallel=True)
def evaluate(labels, mask, n_humans, n_labels, epsilon, coefficient):
    """Run the rule on given label tensors: ``(T, n, R)`` labels and ``(T, n, K)`` mask.

    Returns
    -------
    sparse_pass : numpy.ndarray
        int16 ``(T, J)``: comparisons passed under ``mask``.
    dense_pass : numpy.ndarray
        int16 ``(T, J)``: comparisons passed with every label observed.
    sparse_empty : numpy.ndarray
        int16 ``(T,)``: comparisons with no eligible pair under ``mask``.
    """
    n_trials = labels.shape[0]
    n_judges = labels.shape[2] - n_humans
    sparse_pass = np.zeros((n_trials, n_judges), dtype=np.int16)
    dense_pass = np.zeros((n_trials, n_judges), dtype=np.int16)
    sparse_empty = np.zeros(n_trials, dtype=np.int16)
    n_chunks = (n_trials + _CHUNK - 1) // _CHUNK
    for chunk in prange(n_chunks):
        sparse_tables = np.empty((n_humans, n_judges + 1, n_labels, n_labels), dtype=np.int64)
        dense_tables = np.empty_like(sparse_tables)
        for t in range(chunk * _CHUNK, min(n_trials, (chunk + 1) * _CHUNK)):
            sparse_empty[t] = _decide_trial(
                labels[t],
                mask[t],
                n_humans,
                epsilon,
                coefficient,
                sparse_tables,
                dense_tables,
                sparse_pass[t],
                dense_pass[t],
            )
    return sparse_pass, dense_pass, sparse_empty
