"""The raters' fitted channels, as the risk simulation, the diagnostics and the recipe read them.

A fitted model (:mod:`simcore.advisor.fit`, :mod:`simcore.advisor.one_coin`) describes how each
rater's label depends on the latent true label. Two kinds:

- a confusion array ``(R, L, L)`` (Dawid-Skene): ``C_r[y, l] = P(r reports l | truth y)``;
- :class:`OneCoin`: accuracies ``a_r`` and ``L``; ``P(l | y) = a_r`` if ``l == y``, else
  ``e_r = (1 - a_r) / (L - 1)``. Nothing of size ``L x L`` is ever built for it.

Every function here takes either kind (``raters``) and the prevalence ``pi`` ``(L,)``, so
callers never branch on the model and never materialise ``(R, L, L)`` for a one-coin fit.
"""

from typing import NamedTuple

import numpy as np

from simcore.engine import label_draws
from simcore.engine.rng import trial_keys
from simcore.model.generative import symmetric_confusion


class OneCoin(NamedTuple):
    """Symmetric channels: rater ``r`` is right with ``accuracies[r]``, else uniform over the rest.

    Attributes
    ----------
    accuracies : numpy.ndarray
        float64 ``(R,)``.
    n_labels : int
        L.
    """

    accuracies: np.ndarray
    n_labels: int

    @property
    def errors(self):
        """``e_r = (1 - a_r) / (L - 1)``: the probability of each particular wrong label."""
        return (1.0 - self.accuracies) / (self.n_labels - 1)


def is_one_coin(raters):
    """Whether ``raters`` is a :class:`OneCoin` (else a confusion array)."""
    return isinstance(raters, OneCoin)


def rater_count(raters):
    """R."""
    return len(raters.accuracies) if is_one_coin(raters) else raters.shape[0]


def take(raters, rows):
    """Return the channels of the raters ``rows`` (a list of indices), in that order."""
    if is_one_coin(raters):
        return OneCoin(np.asarray(raters.accuracies)[rows], raters.n_labels)
    return np.asarray(raters)[rows]


def confusions(raters):
    """Return the raters' ``(R, L, L)`` confusion matrices (a one-coin channel's written out).

    A one-coin rater is the symmetric channel of its accuracy
    (:func:`simcore.model.generative.symmetric_confusion`).
    """
    if not is_one_coin(raters):
        return np.asarray(raters, dtype=np.float64)
    return np.stack([symmetric_confusion(a, raters.n_labels) for a in raters.accuracies])


def pair_agreement(raters, prevalence):
    """Return ``P(a = b)`` for every pair of raters, ``(R, R)`` (diagonal included).

    Confusions: ``sum_y pi_y sum_l C_a[y, l] C_b[y, l]``. One-coin, in closed form and free
    of ``pi``: ``a_a a_b + (L - 1) e_a e_b``.
    """
    if is_one_coin(raters):
        a, e = raters.accuracies, raters.errors
        return np.outer(a, a) + (raters.n_labels - 1) * np.outer(e, e)
    return np.einsum("y,ayl,byl->ab", prevalence, raters, raters)


def triple_agreement(raters, prevalence, a, b, c):
    """Return ``P(a = b = c)``: ``sum_y pi_y sum_l C_a[y, l] C_b[y, l] C_c[y, l]``.

    One-coin: ``a_a a_b a_c + (L - 1) e_a e_b e_c``.
    """
    if is_one_coin(raters):
        acc, err = raters.accuracies, raters.errors
        return float(acc[a] * acc[b] * acc[c] + (raters.n_labels - 1) * err[a] * err[b] * err[c])
    return float(np.einsum("y,yl,yl,yl->", prevalence, raters[a], raters[b], raters[c]))


def recipe_variance(raters, prevalence, judge, held_out, pool):
    """Per-item variance ``sigma0^2`` of ``D = [judge = r1] - [r_k = r1]`` (docs/howto/plan.md).

    ``Var(D) = P(j = r1) + P(k = r1) - 2 P(j = r1 = k) - (P(j = r1) - P(k = r1))^2``, as
    :func:`simcore.model.recipes.recipe_variance`, for either kind of channel.
    """
    agreement = pair_agreement(take(raters, [judge, held_out, pool]), prevalence)
    judge_pool, human_pool = float(agreement[0, 2]), float(agreement[1, 2])
    both = triple_agreement(raters, prevalence, judge, pool, held_out)
    return judge_pool + human_pool - 2.0 * both - (judge_pool - human_pool) ** 2


def draw_labels(raters, prevalence, n_trials, n_items, sequence, first_trial=0):
    """Draw ``(T, n, R)`` int16 labels; return ``(labels, n_label_codes)``.

    Trial ``first_trial + t`` draws from the stream keyed by
    :func:`simcore.engine.rng.trial_keys` of ``sequence`` (a
    :class:`numpy.random.SeedSequence`), so the draws do not depend on batching or threads.
    A confusion array is drawn in label codes ``0 .. L - 1``; a :class:`OneCoin` in compact
    codes (:func:`simcore.engine.label_draws.draw_one_coin_labels`), of which there are
    :func:`simcore.engine.label_draws.compact_label_count` -- what an agreement rule needs,
    whatever L is.
    """
    keys = trial_keys(sequence, first_trial, first_trial + n_trials)
    n_raters = rater_count(raters)
    out = np.empty((n_trials, n_items, n_raters), dtype=np.int16)
    if is_one_coin(raters):
        accuracies = np.ascontiguousarray(raters.accuracies, dtype=np.float64)
        label_draws.draw_one_coin_labels(keys, accuracies, int(raters.n_labels), n_items, out)
        return out, label_draws.compact_label_count(raters.n_labels, n_raters)
    truth_cdf = np.cumsum(np.asarray(prevalence, dtype=np.float64))
    rater_cdf = np.cumsum(np.asarray(raters, dtype=np.float64), axis=2)
    label_draws.draw_confusion_labels(keys, truth_cdf, rater_cdf, n_items, out)
    return out, raters.shape[1]
