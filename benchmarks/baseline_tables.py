"""The (T, n, K, K) formulation of the point rule in NumPy: the old, slow baseline.

Kept for reference only: it builds ``(T, n, K, K)`` boolean pair arrays, so it runs about
2,300 trials/s at n = 500, K = 4 and flatters any engine compared with it. The benchmark's
baseline is ``benchmarks/baseline.py`` (a handful of ``(T, n)`` operations per pair of humans).
"""

import numpy as np


def draw(rng, n_trials, n_items, n_humans, p_human, p_judge, design, rho, m):
    """Labels ``(T, n, K + 1)`` (judge last) and the humans' mask ``(T, n, K)``."""
    truth = rng.integers(0, 2, size=(n_trials, n_items), dtype=np.int8)
    accuracy = np.array([p_human] * n_humans + [p_judge])
    correct = rng.random((n_trials, n_items, n_humans + 1)) < accuracy
    labels = np.where(correct, truth[..., None], 1 - truth[..., None])
    mask = np.ones((n_trials, n_items, n_humans), dtype=bool)
    if design == "bernoulli":
        mask[..., 1:] = rng.random((n_trials, n_items, n_humans - 1)) < rho
    else:
        keys = rng.random((n_trials, n_humans - 1, n_items))
        chosen = np.argsort(keys, axis=-1)[..., :m]
        secondary = np.zeros((n_trials, n_humans - 1, n_items), dtype=bool)
        np.put_along_axis(secondary, chosen, True, axis=-1)
        mask[..., 1:] = secondary.transpose(0, 2, 1)
    return labels, mask


def passes(labels, mask, n_humans, epsilon):
    """Comparisons the judge passes per trial: ``n_j - n_h + eps n >= 0`` on counts."""
    humans = labels[..., :n_humans]
    judge = labels[..., n_humans]
    pair = mask[..., :, None] & mask[..., None, :] & ~np.eye(n_humans, dtype=bool)
    human_agree = humans[..., :, None] == humans[..., None, :]
    judge_agree = (judge[..., None] == humans)[..., None, :]
    n_pairs = pair.sum(axis=(1, 3))
    n_human = (pair & human_agree).sum(axis=(1, 3))
    n_judge = (pair & judge_agree).sum(axis=(1, 3))
    return (n_judge - n_human + epsilon * n_pairs >= -1e-9).sum(axis=-1)


def wrong_decisions(
    rng, n_trials, n_items, n_humans, p_human, p_judge, design, rho, m, epsilon=0.05, tau=0.5
):
    """Draw and decide ``n_trials`` trials; return how many sparse decisions are wrong."""
    labels, mask = draw(rng, n_trials, n_items, n_humans, p_human, p_judge, design, rho, m)
    sparse = passes(labels, mask, n_humans, epsilon) >= tau * n_humans - 1e-9
    dense = passes(labels, np.ones_like(mask), n_humans, epsilon) >= tau * n_humans - 1e-9
    return int((sparse != dense).sum())
