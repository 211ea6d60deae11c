"""Label tensors drawn from fitted rater channels, one counter-based stream per trial.

Two channels, both with a latent true label per item and raters conditionally independent
given it:

- **confusion** (Dawid-Skene): ``truth ~ Categorical(prevalence)``, rater ``r`` reports
  ``l`` with probability ``confusion[r, truth, l]``; drawn by inverse CDF, O(L) per label.
- **one-coin** (symmetric channel): rater ``r`` reports the truth with probability
  ``a_r``, else one of the other ``L - 1`` labels uniformly. Only which labels are equal
  matters to an agreement rule, so the labels are drawn in *compact codes*: on every item the
  truth is code 0 and each wrong label is either one already drawn on that item (each with
  probability ``1 / (L - 1)``) or a new one (``1 - m / (L - 1)`` with ``m`` wrong labels
  drawn so far), numbered 1, 2, ... in order of appearance. The equality pattern of the
  labels on an item then has exactly the symmetric channel's distribution, in O(1) per
  label, and codes never exceed ``min(L, R + 1) - 1`` whatever L is.

Trial ``t`` draws from the xoshiro256** stream keyed by ``keys[t]``
(:mod:`simcore.engine.rng`), items in order and raters in order within an item (the truth
first), so a trial's labels depend only on its key: not on threads or batching.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.rng import seed_state, uniform


def compact_label_count(n_labels, n_raters):
    """Return the codes a one-coin draw can use: ``min(L, R + 1)`` (truth + R wrong labels)."""
    return int(min(n_labels, n_raters + 1))


@jit
def _inverse_cdf(cdf, u):
    """Return the first index whose cumulative probability exceeds ``u`` (the last if none)."""
    last = cdf.shape[0] - 1
    for index in range(last):
        if u < cdf[index]:
            return index
    return last


@jit(parallel=True)
def draw_confusion_labels(keys, truth_cdf, rater_cdf, n_items, out):
    """Fill ``out`` ``(T, n, R)`` int16 with labels from per-rater confusion matrices.

    ``truth_cdf`` ``(L,)`` is the prevalence's cumulative sum, ``rater_cdf`` ``(R, L, L)``
    each confusion row's cumulative sum (row = truth). Label = first ``l`` with
    ``u < cdf[l]``, ``u`` uniform on [0, 1).
    """
    n_raters = rater_cdf.shape[0]
    for t in prange(keys.shape[0]):
        state = np.empty(4, dtype=np.uint64)
        seed_state(keys[t], state)
        for i in range(n_items):
            truth = _inverse_cdf(truth_cdf, uniform(state))
            for r in range(n_raters):
                out[t, i, r] = _inverse_cdf(rater_cdf[r, truth], uniform(state))


@jit(parallel=True)
def draw_one_coin_labels(keys, accuracies, n_labels, n_items, out):
    """Fill ``out`` ``(T, n, R)`` int16 with compact one-coin labels (see the module notes).

    Rater ``r`` reports code 0 (the truth) when ``u < accuracies[r]``; otherwise, with ``m``
    wrong labels drawn on the item so far, the existing wrong label ``1 + floor(v (L - 1))``
    when that is ``<= m``, else the new code ``m + 1`` (``v`` a second uniform).
    """
    n_raters = accuracies.shape[0]
    others = n_labels - 1
    for t in prange(keys.shape[0]):
        state = np.empty(4, dtype=np.uint64)
        seed_state(keys[t], state)
        for i in range(n_items):
            wrong = 0
            for r in range(n_raters):
                if uniform(state) < accuracies[r]:
                    out[t, i, r] = 0
                    continue
                pick = int(uniform(state) * others)
                if pick < wrong:
                    out[t, i, r] = pick + 1
                else:
                    wrong += 1
                    out[t, i, r] = wrong
