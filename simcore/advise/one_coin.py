"""Fit the one-coin (symmetric channel) model to a sparse label matrix by EM.

What is fitted. A latent true label ``y_i ~ Categorical(pi)`` over the L labels and, for
every rater ``r``, one accuracy ``a_r``: the rater reports ``y_i`` with probability ``a_r``
and each of the other ``L - 1`` labels with ``e_r = (1 - a_r) / (L - 1)``
(:class:`simcore.advise.channels.OneCoin`). It has ``R + L - 1`` parameters where
Dawid-Skene has ``R L (L - 1) + L - 1``: with free-text labels (thousands of them) or raters
who each label a handful of items, a confusion matrix per rater cannot be estimated, and
its ``(R, L, L)`` arrays do not fit in memory. :func:`simcore.advise.fit.fit_matrix` picks it
automatically above :data:`simcore.advise.fit.ONE_COIN_ABOVE` labels.

Method. EM, with every array of size ``n L`` (the posterior) or the number of labels given:

- E-step: ``log post[i, y] = log pi_y + sum_{r labels i} log e_r
  + sum_{r labels i with y} (log a_r - log e_r) + const``; the last sum is scattered from
  the observed labels only (:func:`numpy.add.at`).
- M-step: ``a_r = (s + sum_{i labelled by r} post[i, label_ir]) / (2 s + n_r)`` (a
  ``Beta(1 + s, 1 + s)`` posterior mode, so no accuracy is exactly 0 or 1) and
  ``pi = (s + sum_i post[i]) / (L s + n)``.

It starts from the majority-vote posterior, so the latent class of a label is that label:
there is no label switching to undo as long as the raters are better than chance.
"""

from typing import NamedTuple

import numpy as np

from simcore.advise.channels import OneCoin


class OneCoinFit(NamedTuple):
    """A fitted one-coin model.

    Attributes
    ----------
    prevalence : numpy.ndarray
        float64 ``(L,)``.
    accuracies : numpy.ndarray
        float64 ``(R,)``: ``P(rater r reports the true label)``.
    posterior : numpy.ndarray
        float64 ``(n, L)``.
    log_likelihood : float
        Observed-data log-likelihood.
    iterations : int
        EM iterations run.
    converged : bool
        Whether the stopping rule was met.
    """

    prevalence: np.ndarray
    accuracies: np.ndarray
    posterior: np.ndarray
    log_likelihood: float
    iterations: int
    converged: bool

    @property
    def raters(self):
        """The channels (:class:`simcore.advise.channels.OneCoin`)."""
        return OneCoin(self.accuracies, len(self.prevalence))


def _entries(codes, observed):
    """Return the observed labels as ``(items, raters, labels)`` int64 index arrays."""
    items, raters = np.nonzero(observed)
    return items, raters, codes[items, raters].astype(np.int64)


def one_coin_majority(entries, n_items, n_labels):
    """Return the majority-vote posterior ``(n, L)`` from the observed ``entries``.

    Each item's mass is split evenly over its most frequent labels; an unlabelled item gets
    the uniform distribution.
    """
    items, _, labels = entries
    votes = np.zeros((n_items, n_labels))
    np.add.at(votes, (items, labels), 1.0)
    top = votes == votes.max(axis=1, keepdims=True)
    return top / top.sum(axis=1, keepdims=True)


def _m_step(posterior, entries, n_raters, smoothing):
    """Return ``(prevalence, accuracies)`` from the posterior (see the module notes)."""
    items, raters, labels = entries
    n_items, n_labels = posterior.shape
    prevalence = (posterior.sum(axis=0) + smoothing) / (n_items + n_labels * smoothing)
    right = np.bincount(raters, weights=posterior[items, labels], minlength=n_raters)
    given = np.bincount(raters, minlength=n_raters)
    accuracies = (right + smoothing) / (given + 2.0 * smoothing)
    return prevalence, np.clip(accuracies, 1e-12, 1.0 - 1e-12)


def _e_step(prevalence, accuracies, entries, n_items):
    """Return ``(posterior, log_likelihood)`` (see the module notes)."""
    items, raters, labels = entries
    n_labels = len(prevalence)
    log_right = np.log(accuracies)
    log_wrong = np.log((1.0 - accuracies) / (n_labels - 1))
    base = np.bincount(items, weights=log_wrong[raters], minlength=n_items)
    with np.errstate(divide="ignore"):
        log_joint = np.add.outer(base, np.log(prevalence))  # one (n, L) pass
    np.add.at(log_joint, (items, labels), (log_right - log_wrong)[raters])
    peak = log_joint.max(axis=1, keepdims=True)
    np.subtract(log_joint, peak, out=log_joint)
    np.exp(log_joint, out=log_joint)
    totals = log_joint.sum(axis=1, keepdims=True)
    log_likelihood = float((peak + np.log(totals)).sum())
    log_joint /= totals
    return log_joint, log_likelihood


def fit_one_coin(
    labels,
    observed,
    n_labels,
    max_iterations=500,
    tolerance=1e-8,
    smoothing=0.01,
    *,
    initial_posterior=None,
):
    """Fit the one-coin model by EM (see the module notes for the steps).

    Parameters
    ----------
    labels : array_like
        int ``(n, R)`` codes in ``[0, L)``; anything where not ``observed``.
    observed : array_like
        bool ``(n, R)``.
    n_labels : int
        L (>= 2).
    max_iterations, tolerance : int, float
        Stop after ``max_iterations`` or when the log-likelihood changes by less than
        ``tolerance * |log_likelihood|``.
    smoothing : float
        ``s`` of the M-step's Beta and Dirichlet priors.
    initial_posterior : array_like, optional
        ``(n, L)`` posterior to start from; default the majority vote.

    Returns
    -------
    OneCoinFit
    """
    codes = np.asarray(labels)
    observed = np.asarray(observed, dtype=bool)
    if codes.shape != observed.shape or codes.ndim != 2:
        raise ValueError(
            f"labels, observed: must be 2-d of one shape (got {codes.shape}, {observed.shape})"
        )
    n_items, n_raters = codes.shape
    entries = _entries(codes, observed)
    if entries[2].size and (entries[2].min() < 0 or entries[2].max() >= n_labels):
        raise ValueError(f"labels: observed codes must lie in [0, {n_labels - 1}]")
    if initial_posterior is None:
        posterior = one_coin_majority(entries, n_items, n_labels)
    else:
        posterior = np.asarray(initial_posterior, dtype=np.float64)
    previous, converged, iterations = -np.inf, False, 0
    while iterations < max_iterations:
        iterations += 1
        prevalence, accuracies = _m_step(posterior, entries, n_raters, smoothing)
        posterior, log_likelihood = _e_step(prevalence, accuracies, entries, n_items)
        if abs(log_likelihood - previous) < tolerance * abs(log_likelihood):
            converged = True
            break
        previous = log_likelihood
    return OneCoinFit(prevalence, accuracies, posterior, log_likelihood, iterations, converged)
