"""The simulated matrices a risk is drawn from: labels under fitted models, sparse masks.

Draw ``t`` of a posterior-predictive risk takes its labels from the counter-based stream of
trial ``t`` under ``models[(t // per_model) % len(models)]`` (:func:`draw_matrices`), and
its sparse mask from a pool of proposals made once (:func:`proposal_pool`,
:func:`sparse_masks`), so a draw depends only on its index, not on batching.
"""

import numpy as np

from simcore.advisor import channels
from simcore.advisor.next_round import extend_mask


def judge_raters(raters, n_humans, judge):
    """Return the humans' fitted channels and one judge's (:func:`.channels.take`)."""
    return channels.take(raters, [*range(n_humans), n_humans + judge])


MASK_POOL = 16
"""Distinct proposals a simulation draws; trial ``t`` uses proposal ``t % MASK_POOL``."""


def proposal_pool(rng, available, design, extra, labels, n_labels, size=MASK_POOL):
    """Return ``(P, n, K)`` masks: ``available`` plus ``P`` fresh proposals (``P = 1`` at 0).

    The proposals are drawn by ``design`` (:func:`simcore.advisor.next_round.extend_mask`).
    They depend on the real labels only, not on the simulated ones, so reusing a pool of
    them over the trials keeps the risk unbiased for its average over proposals while the
    proposals, the costly part of a draw, are made once.
    """
    if extra <= 0:
        return available[None].copy()
    pool = np.empty((size, *available.shape), dtype=bool)
    for index in range(size):
        pool[index] = available | extend_mask(rng, design, extra, labels, available, n_labels)
    return pool


def sparse_masks(pool, first_trial, n_trials):
    """Return the ``(T, n, K)`` masks of trials ``first_trial ..``: pool entry ``t % P``."""
    return pool[(first_trial + np.arange(n_trials)) % len(pool)]


def draw_matrices(models, per_model, n_humans, judge, n_items, sequence, first_trial, n_trials):
    """Labels of draws ``first_trial ..``: each run of ``per_model`` under its own model."""
    drawn = None
    trial, stop = first_trial, first_trial + n_trials
    while trial < stop:
        size = min(per_model - trial % per_model, stop - trial)
        model = models[(trial // per_model) % len(models)]
        chosen = judge_raters(model.raters, n_humans, judge)
        labels, codes = channels.draw_labels(
            chosen, model.prevalence, size, n_items, sequence, trial
        )
        if drawn is None:
            if size == n_trials:
                return labels, codes
            drawn = np.empty((n_trials, *labels.shape[1:]), dtype=labels.dtype)
            most = codes
        drawn[trial - first_trial : trial - first_trial + size] = labels
        most = max(most, codes)
        trial += size
    return drawn, most


MISPLACEMENT_STREAM = 4
"""The seed word of the misplacement normals: ``SeedSequence([seed, judge, extra]).spawn``."""


def misplacement_normals(sequence, first_trial, n_trials, n_humans):
    """Return ``(T, K)`` standard normals ``z``, row ``t`` from trial ``first_trial + t``'s stream.

    Trial ``t``'s stream is ``SeedSequence(entropy, spawn_key + (MISPLACEMENT_STREAM, t))``
    of the draws' ``sequence``, so a draw's normals depend on its index only.
    """
    rows = np.empty((n_trials, n_humans))
    for row, trial in enumerate(range(first_trial, first_trial + n_trials)):
        stream = np.random.SeedSequence(
            sequence.entropy, spawn_key=(*sequence.spawn_key, MISPLACEMENT_STREAM, trial)
        )
        rows[row] = np.random.default_rng(stream).standard_normal(n_humans)
    return rows
