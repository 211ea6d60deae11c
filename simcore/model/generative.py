"""The synthetic generative model: true labels, noise channels, clustered items.

A trial draws ``y_i ~ Categorical(prevalence)`` for each item. Rater ``r`` reports label
``l`` with probability ``confusion[r, y_i, l]``: a row-stochastic ``L x L`` matrix, by
default the symmetric channel (``p_r`` on the diagonal, ``(1 - p_r) / (L - 1)`` elsewhere).
Raters are conditionally independent given ``y`` (and the item's cluster). Columns are
ordered humans first (primary at 0), then judges.

Clustered items (P App. D, shared difficulty): item ``i`` belongs to cluster
``i mod n_clusters``; each trial draws one difficulty ``delta_c ~ Uniform(-spread, spread)``
per cluster, shared by every rater, and shifts every diagonal entry of every rater's matrix by
it, clipped to [0, 1], rescaling the row's off-diagonal entries to keep it stochastic (see
:func:`shift_accuracy`).

This module also holds the NumPy sampler that feeds the oracle tests and the analytic pair
tables behind the ``population`` reference.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Skew:
    """Prevalence with ``share`` on label 0 and the rest spread evenly over the others."""

    share: float


def prevalence_vector(prevalence, n_labels):
    """Return the probability of each label.

    Parameters
    ----------
    prevalence : None, sequence of float or Skew
        None is uniform; a :class:`Skew` puts ``share`` on label 0 and
        ``(1 - share) / (L - 1)`` on every other label; a sequence is used as given
        (normalised).
    n_labels : int
        L.

    Returns
    -------
    numpy.ndarray
        float64 vector of length L summing to 1.
    """
    if prevalence is None:
        return np.full(n_labels, 1.0 / n_labels)
    if isinstance(prevalence, Skew):
        vector = np.full(n_labels, (1.0 - prevalence.share) / (n_labels - 1))
        vector[0] = prevalence.share
        return vector
    vector = np.asarray(prevalence, dtype=np.float64)
    return vector / vector.sum()


def symmetric_confusion(accuracy, n_labels):
    """Return the symmetric channel: ``accuracy`` on the diagonal, the rest spread evenly."""
    matrix = np.full((n_labels, n_labels), (1.0 - accuracy) / (n_labels - 1))
    np.fill_diagonal(matrix, accuracy)
    return matrix


def adjacent_confusion(accuracy, n_labels, adjacent):
    """Return a rating scale's channel: its errors fall on the neighbouring labels first.

    Row ``a`` (the true label) holds ``accuracy`` on the diagonal; of the error mass
    ``1 - accuracy`` a share ``adjacent`` goes to the labels next to ``a`` (``a - 1`` and
    ``a + 1`` where they exist, split evenly) and the rest is spread evenly over the other
    labels. A label with no other label beyond its neighbours (``L <= 3``) gives all its
    errors to them. ``adjacent = 2 / (L - 1)`` is the symmetric channel on the middle labels.
    """
    matrix = np.zeros((n_labels, n_labels))
    for label in range(n_labels):
        near = [b for b in (label - 1, label + 1) if 0 <= b < n_labels]
        far = [b for b in range(n_labels) if b != label and b not in near]
        near_share = adjacent if far else 1.0
        matrix[label, near] = (1.0 - accuracy) * near_share / len(near)
        if far:
            matrix[label, far] = (1.0 - accuracy) * (1.0 - adjacent) / len(far)
        matrix[label, label] = accuracy
    return matrix


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


def rater_confusions(
    n_humans,
    n_labels,
    p_human,
    p_judge,
    confusion_human=None,
    confusion_judge=None,
    adjacent=None,
):
    """Return every rater's confusion matrix, ``(K + J, L, L)``, humans first.

    Parameters
    ----------
    n_humans, n_labels : int
        K and L.
    p_human, p_judge : float or sequence of float
        Accuracies for the symmetric channel (used where no matrix is given).
    confusion_human : array_like, optional
        One ``L x L`` matrix for every human, or ``K`` of them.
    confusion_judge : array_like, optional
        One ``L x L`` matrix per judge (or one for all).
    adjacent : float, optional
        The share of each error that falls on a neighbouring label
        (:func:`adjacent_confusion`); None: errors spread evenly (the symmetric channel).

    Returns
    -------
    numpy.ndarray
        float64 ``(R, L, L)``; row ``y`` of rater ``r`` is ``P(report | truth y)``.
    """
    accuracies = rater_accuracies(p_human, p_judge, n_humans)
    n_judges = len(accuracies) - n_humans
    if adjacent is None:
        matrices = np.stack([symmetric_confusion(p, n_labels) for p in accuracies])
    else:
        matrices = np.stack([adjacent_confusion(p, n_labels, adjacent) for p in accuracies])
    if confusion_human is not None:
        given = np.asarray(confusion_human, dtype=np.float64)
        matrices[:n_humans] = np.broadcast_to(given, (n_humans, n_labels, n_labels))
    if confusion_judge is not None:
        given = np.asarray(confusion_judge, dtype=np.float64)
        matrices[n_humans:] = np.broadcast_to(given, (n_judges, n_labels, n_labels))
    return matrices


def shift_accuracy(confusion, delta):
    """Shift every diagonal entry by ``delta`` (clipped to [0, 1]) keeping rows stochastic.

    Each row's off-diagonal entries are rescaled to sum to ``1 - diagonal``; a row with no
    off-diagonal mass spreads it evenly. Works on ``(..., L, L)`` stacks.
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    n_labels = confusion.shape[-1]
    eye = np.eye(n_labels, dtype=bool)
    diagonal = np.clip(np.diagonal(confusion, axis1=-2, axis2=-1) + delta, 0.0, 1.0)
    off = np.where(eye, 0.0, confusion)
    off_sum = off.sum(axis=-1, keepdims=True)
    even = np.where(eye, 0.0, 1.0 / (n_labels - 1))
    share = np.where(off_sum > 0, off / np.where(off_sum > 0, off_sum, 1.0), even)
    return np.where(eye, diagonal[..., None, :] * eye, share * (1.0 - diagonal)[..., :, None])


def sample_labels(rng, n_trials, n_items, accuracies, prevalence):
    """Draw true labels and every rater's labels under symmetric noise with NumPy.

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
    (docs/explanation/model.md). Broadcasts over array arguments.
    """
    p_a = np.asarray(p_a, dtype=np.float64)
    p_b = np.asarray(p_b, dtype=np.float64)
    return p_a * p_b + (1.0 - p_a) * (1.0 - p_b) / (n_labels - 1)


def pair_tables(confusions, prevalence, cluster_spread=0.0, nodes=401):
    """Joint distribution of every pair of raters' labels: ``P[a, b, l, l']``.

    ``P[a, b, l, l'] = sum_y pi_y E_delta[M_a(delta)[y, l] M_b(delta)[y, l']]``, the
    expectation over the cluster difficulty ``delta ~ Uniform(-spread, spread)`` taken by the
    midpoint rule on ``nodes`` points (exact when ``spread`` is 0). This is the limit of the
    pair tables as the numbers of items and clusters grow.

    Returns
    -------
    numpy.ndarray
        float64 ``(R, R, L, L)``.
    """
    prevalence = np.asarray(prevalence, dtype=np.float64)
    if cluster_spread > 0:
        deltas = cluster_spread * (2 * (np.arange(nodes) + 0.5) / nodes - 1)
    else:
        deltas = np.zeros(1)
    total = 0.0
    for delta in deltas:
        shifted = shift_accuracy(confusions, delta)  # (R, L, L)
        total = total + np.einsum("y,ayl,bym->ablm", prevalence, shifted, shifted)
    return total / len(deltas)
