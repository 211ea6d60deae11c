"""Synthetic calibration panels with known truth: humans and a judge whose errors may be shared.

Each item has a true label ``y_i ~ Categorical(prevalence)``. Rater ``r`` (a human or the
judge) of accuracy ``p_r`` errs on item ``i`` when

``sqrt(rho) Z_i + sqrt(1 - rho) e_ir > Phi^-1(p_r)``, ``Z_i, e_ir ~ N(0, 1)`` independent,

so every rater errs with probability exactly ``1 - p_r`` and, for ``rho > 0``, the raters
err together on the items of high difficulty ``Z_i`` (a difficulty shared by all raters,
the judge included); ``rho = 0`` gives independent errors. An error is a flip on two labels
and a step to a neighbouring label on a scale of more (up or down with equal chance, the
one neighbour at either end), so the judge's true confusion matrix is known
(:func:`judge_confusion`).
"""

from typing import NamedTuple

import numpy as np
from scipy.special import ndtri


class PanelModel(NamedTuple):
    """A synthetic panel's population.

    Attributes
    ----------
    prevalence : tuple of float
        ``(L,)``: the true labels' shares (class 0 is FAIL on two labels).
    p_humans : tuple of float
        Each human's accuracy.
    p_judge : float
        The judge's accuracy.
    shared : float
        ``rho``, the share of an error's propensity that is the item's difficulty (0:
        independent errors).
    """

    prevalence: tuple
    p_humans: tuple
    p_judge: float
    shared: float = 0.0


def _errors(difficulty, accuracies, shared, rng):
    """Return bool ``(n, R)``: which rater errs on which item (module docstring)."""
    noise = rng.standard_normal((len(difficulty), len(accuracies)))
    propensity = np.sqrt(shared) * difficulty[:, None] + np.sqrt(1.0 - shared) * noise
    return propensity > ndtri(np.asarray(accuracies, dtype=np.float64))


def _answers(truth, errs, n_labels, rng):
    """Return the answers: the truth, or on an error a flip (L = 2) or a neighbouring label."""
    if n_labels == 2:
        return np.where(errs, 1 - truth[:, None], truth[:, None])
    up = rng.random(errs.shape) < 0.5
    step = np.where(up, 1, -1)
    moved = truth[:, None] + step
    moved = np.where((moved < 0) | (moved >= n_labels), truth[:, None] - step, moved)
    return np.where(errs, moved, truth[:, None])


def draw_panel(model, n_items, rng):
    """Return ``(truth, human_codes, judge_codes)`` of ``n_items`` items (every human labels all).

    ``truth`` int ``(n,)``; ``human_codes`` int ``(n, H)``; ``judge_codes`` int ``(n,)``.
    """
    n_labels = len(model.prevalence)
    truth = rng.choice(n_labels, size=n_items, p=np.asarray(model.prevalence))
    difficulty = rng.standard_normal(n_items)
    accuracies = (*model.p_humans, model.p_judge)
    answers = _answers(truth, _errors(difficulty, accuracies, model.shared, rng), n_labels, rng)
    return truth, answers[:, :-1], answers[:, -1]


def draw_production(model, n_items, rng):
    """Return ``(truth, judge_codes)`` of a production stream of ``n_items`` items."""
    n_labels = len(model.prevalence)
    truth = rng.choice(n_labels, size=n_items, p=np.asarray(model.prevalence))
    difficulty = rng.standard_normal(n_items)
    errs = _errors(difficulty, (model.p_judge,), model.shared, rng)
    return truth, _answers(truth, errs, n_labels, rng)[:, 0]


def judge_confusion(n_labels, p_judge):
    """Return the judge's true ``(L, L)`` confusion matrix under the panel model.

    ``p`` on the diagonal; on two labels ``1 - p`` off it; on more, ``(1 - p) / 2`` to each
    neighbour and ``1 - p`` to the one neighbour of an end label.
    """
    confusion = np.eye(n_labels) * p_judge
    for label in range(n_labels):
        neighbours = [other for other in (label - 1, label + 1) if 0 <= other < n_labels]
        for other in neighbours:
            confusion[label, other] = (1.0 - p_judge) / len(neighbours)
    return confusion
