"""Validations labelled in rounds by the exact_m design: when the sequential verdict settles.

The model of ``simcore plan`` (docs/howto/plan.md): ``n`` items with a true label uniform over
``L`` labels; ``K`` humans of accuracy ``p_h`` and a judge of accuracy ``p_j``, each wrong
with one of the other labels uniformly. The primary has labelled every item before the
first round; in every round each secondary labels ``s`` more items it has not labelled,
in an order drawn uniformly at random (so after ``r`` rounds its items are a uniform
``m = r s``-subset: the exact_m design at ``m``, independent across secondaries). After
each round the team looks.

One trial (:func:`round_trial`) reads, at every look ``r = 1 .. R``:

* the sequential verdict (:mod:`simcore.sequential.verdict`): item ``i`` enters comparison
  ``k`` at round ``E_k(i) = max(R_ik, min_{h != k} R_ih)`` (``R_ih``: the round ``h``
  labelled it, 0 for the primary), with the other humans present then; items enter in
  the order (round, item index), and the comparison settles at its capital's first
  crossing of ``log(K / alpha)``;
* the fixed-size point rule on every label present (the rule ``plan`` sizes): pair
  ``(k, h)`` of item ``i`` counts from round ``max(R_ik, R_ih)``; comparison ``k`` passes
  when ``sum (A_jh - A_kh + eps) >= 0`` over its pairs, with at least one pair.

Both are scored against the population decision: accept when the judge's population margin
``d + eps >= 0`` (:func:`simcore.sequential.simulation.population_margin`).
"""

import math
from dataclasses import dataclass

import numpy as np

from simcore.calibration import hedged_log_capital
from simcore.sequential.verdict import bet_level, settling_indices, verdict_codes

NEVER_SETTLED = 0
"""The settle look of a trial whose verdict stays open through the last round."""


@dataclass(frozen=True)
class RoundsModel:
    """The exact_m validation labelled in rounds (module docstring).

    Attributes
    ----------
    n_items, n_humans, n_labels : int
        n, K (the primary and ``K - 1`` secondaries), L.
    p_human, p_judge : float
        Accuracies, in (0, 1].
    round_size : int
        Items each secondary labels per round, s.
    rounds : int
        Rounds in the budget, R (``R s <= n``).
    """

    n_items: int
    n_humans: int
    n_labels: int
    p_human: float
    p_judge: float
    round_size: int
    rounds: int

    def __post_init__(self):
        if self.round_size * self.rounds > self.n_items:
            raise ValueError(
                f"round_size x rounds must be at most n_items (got {self.round_size} x "
                f"{self.rounds} > {self.n_items})"
            )

    @property
    def population_margin(self):
        """``d = P(judge, human agree) - P(human, human agree)`` (symmetric errors)."""
        share = 1.0 / (self.n_labels - 1)
        a, h = self.p_judge, self.p_human
        return (a * h + (1 - a) * (1 - h) * share) - (h * h + (1 - h) * (1 - h) * share)


def labelled_rounds(rng, model):
    """Return ``(n, K)`` the round each human labels each item (0: the primary; R + 1: never)."""
    n, s = model.n_items, model.round_size
    rounds = np.zeros((n, model.n_humans), dtype=np.int64)
    for k in range(1, model.n_humans):
        position = np.empty(n, dtype=np.int64)
        position[rng.permutation(n)] = np.arange(n)
        rounds[:, k] = np.minimum(position // s + 1, model.rounds + 1)
    return rounds


def noisy_labels(rng, truth, accuracy, n_labels, size):
    """Return labels right with probability ``accuracy``, else uniform over the others."""
    wrong = rng.random(size) >= accuracy
    shift = rng.integers(1, n_labels, size=size)
    base = truth if len(size) == 1 else truth[:, None]
    return np.where(wrong, (base + shift) % n_labels, base)


def round_trial(rng, model, settings):
    """Return one trial's ``(settle_look, verdict, fixed_accept)`` (module docstring).

    Draws the labels and the rounds of the model, then reads them with :func:`read_rounds`.
    """
    n, n_humans = model.n_items, model.n_humans
    truth = rng.integers(0, model.n_labels, size=n)
    humans = noisy_labels(rng, truth, model.p_human, model.n_labels, (n, n_humans))
    judge = noisy_labels(rng, truth, model.p_judge, model.n_labels, (n,))
    rounds = labelled_rounds(rng, model)
    return read_rounds(humans, judge, rounds, settings, model.rounds)


def read_rounds(humans, judge, rounds, settings, last):
    """Return ``(settle_look, verdict, fixed_accept)`` of labels revealed in rounds.

    Parameters
    ----------
    humans : numpy.ndarray
        ``(n, K)`` label codes (anything where a human never labels the item).
    judge : numpy.ndarray
        ``(n,)`` the judge's codes.
    rounds : numpy.ndarray
        ``(n, K)`` the round each label is revealed (0: before the first look; above
        ``last``: never).
    settings : SequentialSettings
        Rule (``point``), eps, alpha, tau.
    last : int
        The last look, R.

    Returns
    -------
    settle_look : int
        The first look (1-based) where the sequential verdict is settled, or
        :data:`NEVER_SETTLED`.
    verdict : int
        +1 settled accept, -1 settled reject, 0 open.
    fixed_accept : numpy.ndarray
        ``(R,)`` bool: the fixed-size rule's accept at every look.
    """
    n_humans = humans.shape[1]
    judge_agrees = humans == judge[:, None]
    threshold = math.log(n_humans / settings.alpha)
    level = bet_level(settings, n_humans)
    eps = settings.epsilon
    settle_for = np.full(n_humans, last + 1)
    settle_against = np.full(n_humans, last + 1)
    passes = np.zeros(last, dtype=np.int64)
    for k in range(n_humans):
        others = np.arange(n_humans) != k
        entry = np.maximum(rounds[:, k], rounds[:, others].min(axis=1))
        present = others & (rounds <= entry[:, None])
        own = humans == humans[:, [k]]
        difference = np.where(present, judge_agrees.astype(np.int64) - own, 0).sum(axis=1)
        count = present.sum(axis=1)
        x = ((difference + eps * count) / (n_humans - 1) + 1.0 - eps) / 2.0
        order = np.flatnonzero(entry <= last)
        order = order[np.argsort(entry[order], kind="stable")]
        if order.size:
            log_up, log_down = hedged_log_capital(
                np.clip(x[order], 0.0, 1.0), level, settings.null_mean
            )
            up, down = settling_indices(log_up, log_down, threshold)
            entered = np.append(entry[order], last + 1)  # index len(order): never settled
            settle_for[k], settle_against[k] = entered[up], entered[down]
        pair_rounds = np.maximum(rounds[:, [k]], rounds[:, others])
        pair_values = judge_agrees[:, others].astype(float) - own[:, others] + eps
        valid = pair_rounds <= last
        sums = np.bincount(pair_rounds[valid], pair_values[valid], minlength=last + 1)
        counts = np.bincount(pair_rounds[valid], minlength=last + 1)
        margin, pairs = np.cumsum(sums)[1:], np.cumsum(counts)[1:]
        passes += (pairs > 0) & (margin >= -1e-9)
    needed = settings.needed(n_humans)
    looks = np.arange(1, last + 1)
    favour = (settle_for[:, None] <= looks).sum(axis=0)
    against = (settle_against[:, None] <= looks).sum(axis=0)
    codes = verdict_codes(favour, against, n_humans, needed)
    if not codes.any():
        return NEVER_SETTLED, 0, passes >= needed
    first = int(np.argmax(codes != 0))
    return first + 1, int(codes[first]), passes >= needed
