"""The honest baseline: the point rule as a competent user writes it first in plain NumPy.

Binary labels, symmetric noise, observed agreement, a bernoulli or exact_m mask on the
secondaries (human 0, the primary, labels every item), the dense reference (every human
labels every item), omega = passes / K >= tau. A batch of T trials is drawn at once and held
rater-major, ``(K + 1, T, n)`` bool, so every operation is on a contiguous ``(T, n)`` slab:
per unordered pair of humans {k, q} the pairs both labelled, their agreement and the judge's
agreement with each are a handful of boolean ANDs and row counts (no loop over trials or
items, no ``(T, n, K, K)`` array, no numba, no simcore).
"""

import numpy as np

TIE_TOLERANCE = 1e-9
"""Slack of the count comparisons, as in ``simcore.model.rule``."""


def draw(rng, n_trials, n_items, n_humans, p_human, p_judge, design, rho, m):
    """Draw labels and masks of a batch of trials.

    Each rater's label is the true label (a fair coin) flipped with probability
    ``1 - accuracy`` (uniform float32 draws; accuracy ``p_human`` for the humans, ``p_judge``
    for the judge). Human 0 labels every item; each secondary labels each item with
    probability ``rho`` (``bernoulli``) or exactly ``m`` items chosen uniformly (``exact_m``).

    Returns
    -------
    labels : numpy.ndarray
        ``(K + 1, T, n)`` bool, humans first, the judge last.
    masks : numpy.ndarray
        ``(K, T, n)`` bool, True where a human labelled an item.
    """
    shape = (n_trials, n_items)
    truth = rng.random(shape, dtype=np.float32) < 0.5
    accuracy = np.array([p_human] * n_humans + [p_judge], dtype=np.float32)[:, None, None]
    labels = truth ^ (rng.random((n_humans + 1, *shape), dtype=np.float32) >= accuracy)
    masks = np.empty((n_humans, *shape), dtype=bool)
    masks[0] = True
    if design == "bernoulli":
        masks[1:] = rng.random((n_humans - 1, *shape), dtype=np.float32) < rho
    elif design == "exact_m":
        masks[1:] = _exactly_m(rng.random((n_humans - 1, *shape), dtype=np.float32), m)
    else:
        raise ValueError(f"design must be 'bernoulli' or 'exact_m' (got {design!r})")
    return labels, masks


def _exactly_m(keys, m):
    """True on the ``m`` smallest keys of each row (items chosen uniformly, exactly m).

    The m-th smallest key is a threshold (``np.partition``, linear time); when float32 keys
    tie at a threshold (about 3e-5 of rows at n = 500) the batch falls back to
    ``np.argpartition``, so every row has exactly ``m`` items.
    """
    if m == 0:
        return np.zeros(keys.shape, dtype=bool)
    chosen = keys <= np.partition(keys, m - 1, axis=-1)[..., m - 1 : m]
    if np.all(chosen.sum(axis=-1, dtype=np.int32) == m):
        return chosen
    chosen[...] = False
    np.put_along_axis(chosen, np.argpartition(keys, m - 1, axis=-1)[..., :m], True, axis=-1)
    return chosen


def _count(rows):
    """Per-trial number of True entries of a ``(T, n)`` bool array, as int64."""
    return rows.view(np.uint8).sum(axis=-1, dtype=np.int64)


def passes(labels, masks, epsilon):
    """Comparisons passed per trial: ``n_j(k) - n_h(k) + eps n_pairs(k) >= 0`` summed over k.

    For held-out human k, the pairs are (item, q) with q != k and both k and q labelling the
    item; ``n_h(k)`` counts those where k agrees with q and ``n_j(k)`` those where the judge
    agrees with q. The pair counts and the humans' agreements are symmetric in {k, q}, so
    each unordered pair is counted once. An empty comparison passes (0 >= -tolerance).

    Parameters
    ----------
    labels : numpy.ndarray
        ``(K + 1, T, n)`` bool labels, the judge last.
    masks : numpy.ndarray or None
        ``(K, T, n)`` bool; None for the dense reference (every human labels every item).
    epsilon : float
        Tolerance eps.

    Returns
    -------
    numpy.ndarray
        ``(T,)`` int64 comparisons passed, 0 .. K.
    """
    n_humans, n_trials, n_items = labels.shape[0] - 1, labels.shape[1], labels.shape[2]
    judge_agrees = [labels[q] == labels[n_humans] for q in range(n_humans)]
    margin = np.zeros((n_humans, n_trials), dtype=np.int64)  # n_j(k) - n_h(k)
    n_pairs = np.zeros((n_humans, n_trials), dtype=np.int64)
    if masks is None:
        judge_counts = [_count(agree) for agree in judge_agrees]
    for k in range(n_humans):
        for q in range(k + 1, n_humans):
            humans_agree = labels[k] == labels[q]
            if masks is None:
                both_agree = _count(humans_agree)
                margin[k] += judge_counts[q] - both_agree
                margin[q] += judge_counts[k] - both_agree
                n_pairs[k] += n_items
                n_pairs[q] += n_items
                continue
            both = masks[k] & masks[q]
            both_agree = _count(both & humans_agree)
            margin[k] += _count(both & judge_agrees[q]) - both_agree
            margin[q] += _count(both & judge_agrees[k]) - both_agree
            pairs = _count(both)
            n_pairs[k] += pairs
            n_pairs[q] += pairs
    return (margin + epsilon * n_pairs >= -TIE_TOLERANCE).sum(axis=0)


def accepts(n_pass, n_humans, tau):
    """The decision ``omega = n_pass / K >= tau``, on counts (up to the tie tolerance)."""
    return n_pass >= tau * n_humans - TIE_TOLERANCE


def wrong_decisions(
    rng, n_trials, n_items, n_humans, p_human, p_judge, design, rho, m, epsilon=0.05, tau=0.5
):
    """Draw and decide ``n_trials`` trials; return how many sparse decisions are wrong.

    A decision is wrong when the sparse design's decision differs from the dense
    reference's on the same labels.
    """
    labels, masks = draw(rng, n_trials, n_items, n_humans, p_human, p_judge, design, rho, m)
    sparse = accepts(passes(labels, masks, epsilon), n_humans, tau)
    dense = accepts(passes(labels, None, epsilon), n_humans, tau)
    return int(np.count_nonzero(sparse != dense))
