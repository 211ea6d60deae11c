"""The synthetic generative model (SPEC §2): true labels and symmetric noise channels.

A trial draws ``y_i ~ Categorical(prevalence)`` for each of ``n_items`` items; rater ``r``
reports ``y_i`` with probability ``accuracy[r]`` and otherwise one of the other
``n_labels - 1`` labels uniformly. Raters are conditionally independent given ``y``.
Columns are ordered humans first (primary at 0), then judges.

This module holds the NumPy sampler used as the test oracle's source of draws and the
analytic agreement probabilities behind the ``population`` reference. The kernels in
:mod:`simcore.kernels` draw from the same model with their own counter-based streams.
"""

import numpy as np


def rater_accuracies(p_human, p_judge, n_humans):
    """Return the accuracy of every rater column, humans first, then judges.

    Parameters
    ----------
    p_human : float or sequence of float
        One accuracy shared by all humans, or one per human (length ``n_humans``).
    p_judge : float or sequence of float
        Accuracy of each judge.
    n_humans : int
        Number of humans K.

    Returns
    -------
    numpy.ndarray
        float64 array of length ``K + J``.
    """
    humans = np.broadcast_to(np.asarray(p_human, dtype=np.float64), (n_humans,))
    judges = np.atleast_1d(np.asarray(p_judge, dtype=np.float64))
    return np.concatenate([humans, judges])


def prevalence_vector(prevalence, n_labels):
    """Return the prevalence vector: uniform when ``prevalence`` is None."""
    if prevalence is None:
        return np.full(n_labels, 1.0 / n_labels)
    vector = np.asarray(prevalence, dtype=np.float64)
    return vector / vector.sum()


def sample_labels(rng, n_trials, n_items, accuracies, prevalence):
    """Draw true labels and every rater's labels with NumPy.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.
    n_trials, n_items : int
        Shape of the draw.
    accuracies : numpy.ndarray
        Accuracy per rater column (see :func:`rater_accuracies`).
    prevalence : numpy.ndarray
        Probability of each label (length L).

    Returns
    -------
    truth : numpy.ndarray
        int16 array ``(n_trials, n_items)``.
    labels : numpy.ndarray
        int16 array ``(n_trials, n_items, n_raters)``: the reported labels.
    """
    n_labels = len(prevalence)
    n_raters = len(accuracies)
    truth = rng.choice(n_labels, size=(n_trials, n_items), p=prevalence).astype(np.int16)
    correct = rng.random((n_trials, n_items, n_raters)) < accuracies
    # A wrong report is truth + offset (mod L) with offset uniform on 1..L-1.
    offset = rng.integers(1, max(n_labels, 2), size=(n_trials, n_items, n_raters))
    wrong = (truth[..., None] + offset) % n_labels
    labels = np.where(correct, truth[..., None], wrong).astype(np.int16)
    return truth, labels


def pair_agreement(p_a, p_b, n_labels):
    """Probability that two raters report the same label under symmetric noise.

    ``P(a == b) = p_a p_b + (1 - p_a)(1 - p_b) / (L - 1)``, whatever the prevalence
    (SPEC §6). Broadcasts over array arguments.
    """
    p_a = np.asarray(p_a, dtype=np.float64)
    p_b = np.asarray(p_b, dtype=np.float64)
    return p_a * p_b + (1.0 - p_a) * (1.0 - p_b) / (n_labels - 1)
